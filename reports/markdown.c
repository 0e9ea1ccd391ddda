/*
 * markdown.c — GitHub-flavoured tables for pull-request comments: the
 * totals, the op-type shares, and the node (or --depth module) rows.
 */
#include "report_impl.h"

#include "../views/measure.h"

#include <stdlib.h>
#include <string.h>

static void oc_md_count(struct oc_sbuf *b, uint64_t v) {
    char buf[48];
    oc_sbuf_puts(b, oc_fmt_thousands(v, buf, sizeof buf));
}

enum oc_status oc_render_md(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    const struct oc_graph *g = an->graph;
    const struct oc_totals *t = &an->totals;
    struct oc_sbuf b = {0};
    oc_sbuf_puts(&b, "### onnxcost: ");
    oc_md_text(&b, spec->model_path ? spec->model_path : "");
    oc_sbuf_puts(&b, "\n\n");
    const char *lb = oc_lower_bound_mark(t, false);
    if (*lb) {
        oc_sbuf_puts(&b, t->n_uncosted ? "> **Incomplete analysis:** " : "> **Saturated totals:** ");
        struct oc_sbuf why = {0};
        oc_fmt_incomplete(&why, t);
        oc_md_text(&b, why.p ? why.p : "");
        oc_sbuf_free(&why);
        oc_sbuf_puts(&b, ". MACs, FLOPs and memory below are lower bounds (≥).\n\n");
    }
    oc_sbuf_puts(&b, "| total | value |\n|---|---:|\n");
    oc_sbuf_puts(&b, "| params | ");
    oc_md_count(&b, t->params);
    oc_sbuf_printf(&b, " |\n| MACs | %s", lb);
    oc_md_count(&b, t->macs);
    oc_sbuf_printf(&b, " |\n| FLOPs | %s", lb);
    oc_md_count(&b, t->flops);
    oc_sbuf_printf(&b, " |\n| params size (MiB) | %.2f |\n", oc_mib(t->params_bytes));
    oc_sbuf_printf(&b, "| peak activation memory (MiB) | %s%.2f |\n", t->peak_complete && !*lb ? "" : "≥ ",
                   oc_mib(t->peak_activation_bytes));
    oc_sbuf_printf(&b, "| nodes with concrete shapes | %d / %d |\n", t->n_shaped, t->n_nodes);
    if (t->n_uncosted)
        oc_sbuf_printf(&b, "| nodes without a cost | %d |\n", t->n_uncosted);
    if (an->n_bound) {
        oc_sbuf_puts(&b, "\nBindings: ");
        for (int32_t i = 0; i < an->n_bound; i++) {
            oc_sbuf_puts(&b, i ? ", " : "");
            if (an->bound[i].name)
                oc_md_text(&b, an->bound[i].name);
            else
                oc_sbuf_printf(&b, "input %d", an->bound[i].axis);
            oc_sbuf_printf(&b, "=%lld", (long long)an->bound[i].value);
        }
        oc_sbuf_puts(&b, "\n");
    }
    if (spec->ranges)
        oc_ranges_md(&b, spec);
    if (spec->lint)
        oc_lint_md_section(&b, spec->lint);
    struct oc_table tb = {0};
    char num[48];
    static const struct oc_table_col cols[] = {
        {"op type", "op_type", OC_ALIGN_LEFT},
        {"nodes", "nodes", OC_ALIGN_RIGHT},
        {"MACs", "macs", OC_ALIGN_RIGHT},
        {"MACs %", "macs_share", OC_ALIGN_RIGHT},
        {"FLOPs", "flops", OC_ALIGN_RIGHT},
        {"params", "params", OC_ALIGN_RIGHT},
    };
    oc_table_cols(&tb, cols, (int32_t)(sizeof cols / sizeof cols[0]));
    for (int32_t i = 0; i < an->n_op_stats; i++) {
        const struct oc_op_stat *s = &an->op_stats[i];
        oc_table_row(&tb);
        oc_table_cell(&tb, "%s%s%s", s->domain, s->domain[0] ? "::" : "", s->op_type);
        oc_table_cell(&tb, "%d", s->count);
        oc_table_puts(&tb, oc_fmt_thousands(s->macs, num, sizeof num));
        if (t->macs)
            oc_table_cell(&tb, "%.1f", 100.0 * (double)s->macs / (double)t->macs);
        else
            oc_table_puts(&tb, "-");
        oc_table_puts(&tb, oc_fmt_thousands(s->flops, num, sizeof num));
        oc_table_puts(&tb, oc_fmt_thousands(s->params, num, sizeof num));
    }
    oc_sbuf_puts(&b, "\n");
    oc_table_md(&b, &tb);
    oc_table_free(&tb);
    if (spec->modules) {
        oc_module_table(&tb, spec);
        oc_sbuf_puts(&b, "\n");
        oc_table_md(&b, &tb);
        oc_table_free(&tb);
    } else {
        int32_t n;
        if (!oc_node_table(&tb, an, spec, OC_NODES_DASH_UNNAMED, &n)) {
            oc_sbuf_free(&b);
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
        }
        oc_sbuf_puts(&b, "\n");
        oc_table_md(&b, &tb);
        oc_table_free(&tb);
        if (n < g->n_nodes)
            oc_sbuf_printf(&b, "\n%d of %d nodes shown.\n", n, g->n_nodes);
    }
    if (spec->training) { /* likewise, with the export's signs beside the figures */
        oc_sbuf_puts(&b, "\n### Training step\n\n```\n");
        oc_training_text(&b, spec->training);
        oc_sbuf_puts(&b, "```\n");
    }
    if (spec->gpu) { /* the text block as is: it is already one line per figure */
        oc_sbuf_puts(&b, "\n### GPU prediction\n\n```\n");
        oc_gpu_text(&b, an, spec);
        oc_sbuf_puts(&b, "```\n");
    }
    if (spec->measured) { /* likewise, with what the profile lacks or has too much */
        oc_sbuf_puts(&b, "\n### Measured (ONNX Runtime)\n\n```\n");
        oc_measured_text(&b, an, spec);
        oc_sbuf_puts(&b, "```\n");
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
