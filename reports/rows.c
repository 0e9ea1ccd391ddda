/*
 * rows.c — the module and node tables the Markdown and HTML reports share
 * (the text report draws its own torchsummary layout, text.c).
 */
#include "report_impl.h"

#include "../views/measure.h"

#include <stdlib.h>

void oc_module_table(struct oc_table *t, const struct oc_report_spec *spec) {
    char num[48];
    static const struct oc_table_col cols[] = {
        {"module", "module", OC_ALIGN_LEFT},
        {"nodes", "nodes", OC_ALIGN_RIGHT},
        {"params", "params", OC_ALIGN_RIGHT},
        {"MACs", "macs", OC_ALIGN_RIGHT},
        {"FLOPs", "flops", OC_ALIGN_RIGHT},
    };
    oc_table_cols(t, cols, (int32_t)(sizeof cols / sizeof cols[0]));
    for (int32_t i = 0; i < spec->n_modules; i++) {
        const struct oc_module *m = &spec->modules[i];
        oc_table_row(t);
        oc_table_level(t, m->depth - 1);
        oc_table_puts(t, m->path);
        oc_table_cell(t, "%d", m->n_nodes);
        oc_table_puts(t, oc_fmt_thousands(m->params, num, sizeof num));
        oc_table_puts(t, oc_fmt_thousands(m->macs, num, sizeof num));
        oc_table_puts(t, oc_fmt_thousands(m->flops, num, sizeof num));
    }
}

bool oc_node_table(struct oc_table *t, const struct oc_analysis *an, const struct oc_report_spec *spec,
                   uint32_t flags, int32_t *n_shown) {
    const struct oc_graph *g = an->graph;
    char num[48];
    int32_t n;
    int32_t *rows = oc_report_rows(an, spec, &n);
    if (!rows)
        return false;
    oc_table_col(t, "node", "node", OC_ALIGN_LEFT);
    oc_table_col(t, "op", "op_type", OC_ALIGN_LEFT);
    oc_table_col(t, "output shape", "output_shape", OC_ALIGN_LEFT);
    oc_table_col(t, "params", "params", OC_ALIGN_RIGHT);
    oc_table_col(t, "MACs", "macs", OC_ALIGN_RIGHT);
    if (flags & OC_NODES_FLOPS)
        oc_table_col(t, "FLOPs", "flops", OC_ALIGN_RIGHT);
    bool ranged = oc_ranges_has_nodes(spec);
    if (ranged)
        oc_table_col(t, "MACs over the ranges", "macs_range", OC_ALIGN_RIGHT);
    if (spec->measured)
        oc_table_col(t, "measured (us)", "measured_us", OC_ALIGN_RIGHT);
    if (spec->measured && spec->gpu) {
        oc_table_col(t, "predicted (us)", "predicted_us", OC_ALIGN_RIGHT);
        oc_table_col(t, "pred/meas", "predicted_over_measured", OC_ALIGN_RIGHT);
    }
    oc_table_reserve(t, n);
    for (int32_t r = 0; r < n; r++) {
        const struct oc_node *nd = &g->nodes[rows[r]];
        bool unknown = (nd->cost.flags & OC_COST_UNKNOWN) != 0;
        oc_table_row(t);
        oc_table_puts(t, nd->name[0] || !(flags & OC_NODES_DASH_UNNAMED) ? nd->name : "-");
        oc_table_puts(t, nd->op_type);
        oc_fmt_node_shapes(oc_table_next(t), g, nd, flags & OC_NODES_SYM_SHAPES ? spec->sym : NULL, false);
        oc_table_puts(t, oc_fmt_thousands(nd->params, num, sizeof num));
        oc_table_puts(t, unknown ? "?" : oc_fmt_thousands(nd->cost.macs, num, sizeof num));
        if (flags & OC_NODES_FLOPS)
            oc_table_puts(t, unknown ? "?" : oc_fmt_thousands(nd->cost.flops, num, sizeof num));
        if (ranged)
            oc_ranges_node_cell(oc_table_next(t), spec, nd->index, 0);
        if (spec->measured) {
            const struct oc_measured_node *m = &spec->measured->nodes[nd->index];
            if (m->runs)
                oc_table_cell(t, "%.1f", m->median_us);
            else
                oc_table_puts(t, "-");
            const struct oc_node_perf *np = spec->gpu ? &spec->gpu->perf->nodes[nd->index] : NULL;
            if (np && (!np->known || !(np->time > 0))) {
                oc_table_puts(t, np->known ? "-" : "?");
                oc_table_puts(t, np->known ? "-" : "?");
            } else if (np) {
                oc_table_cell(t, "%.1f", np->time * 1e6);
                if (m->runs && m->median_us > 0)
                    oc_table_cell(t, "%.2f", np->time * 1e6 / m->median_us);
                else
                    oc_table_puts(t, "-");
            }
        }
    }
    free(rows);
    *n_shown = n;
    return true;
}
