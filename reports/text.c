/*
 * text.c — the torchsummary-style table.
 *
 *   Layer (type) | Output Shape | Param # | MACs, one row per node in
 *   execution order, then the totals block with torchsummary's lines
 *   (sizes in MiB = 2^20 bytes, which torchsummary labels "MB").
 */
#include "report_impl.h"

#include "../views/measure.h"

#include "../analyzer/dtype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names come from the file: bytes that are not printable UTF-8 (control
 * bytes, invalid sequences) are shown as \xNN, so they never reach the
 * terminal and the column width stays right. */
static void oc_put_safe(struct oc_sbuf *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t run = 0, len; /* printable characters go in one copy */
        while (i + run < n && (len = oc_utf8_len(p + i + run, n - i - run)) > 0)
            run += len;
        oc_sbuf_put(b, s + i, run);
        i += run;
        if (i < n) {
            char esc[4] = {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
            oc_sbuf_put(b, esc, 4);
            i++;
        }
    }
}

static void oc_cell_layer(struct oc_sbuf *b, const struct oc_node *n) {
    if (n->name[0]) {
        oc_put_safe(b, n->name);
        oc_sbuf_puts(b, " (");
    }
    if (n->domain[0]) {
        oc_put_safe(b, n->domain);
        oc_sbuf_puts(b, "::");
    }
    oc_put_safe(b, n->op_type);
    if (n->name[0])
        oc_sbuf_puts(b, ")");
    else
        oc_sbuf_printf(b, "-%d", n->index + 1);
}

static void oc_cell_count(struct oc_sbuf *b, uint64_t v, bool unknown) {
    char buf[48];
    oc_sbuf_puts(b, unknown ? "?" : oc_fmt_thousands(v, buf, sizeof buf));
}

static void oc_pct(char *buf, size_t size, uint64_t part, uint64_t total) {
    if (!total)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)total);
}

/* The --columns of node and module rows, in the order they are shown. */
static const struct oc_table_col oc_col_heads[OC_COL_COUNT] = {
    [OC_COL_INPUT] = {"Input Shape", "input_shape", OC_ALIGN_RIGHT},
    [OC_COL_OUTPUT] = {"Output Shape", "output_shape", OC_ALIGN_RIGHT},
    [OC_COL_PARAMS] = {"Param #", "params", OC_ALIGN_RIGHT},
    [OC_COL_PARAMS_SHARE] = {"Param %", "params_share", OC_ALIGN_RIGHT},
    [OC_COL_MACS] = {"MACs", "macs", OC_ALIGN_RIGHT},
    [OC_COL_MACS_SHARE] = {"MACs %", "macs_share", OC_ALIGN_RIGHT},
    [OC_COL_FLOPS] = {"FLOPs", "flops", OC_ALIGN_RIGHT},
    [OC_COL_BYTES] = {"Output (bytes)", "bytes", OC_ALIGN_RIGHT},
};
static const enum oc_column oc_node_col_order[OC_COL_COUNT] = {
    OC_COL_INPUT, OC_COL_OUTPUT, OC_COL_PARAMS, OC_COL_PARAMS_SHARE,
    OC_COL_MACS,  OC_COL_MACS_SHARE, OC_COL_FLOPS, OC_COL_BYTES};
/* module rows: MACs % last, as before --columns existed */
static const enum oc_column oc_module_col_order[OC_COL_COUNT] = {
    OC_COL_INPUT, OC_COL_OUTPUT, OC_COL_PARAMS, OC_COL_PARAMS_SHARE,
    OC_COL_MACS,  OC_COL_FLOPS,  OC_COL_BYTES,  OC_COL_MACS_SHARE};
enum {
    OC_NODE_COLUMNS = 1u << OC_COL_OUTPUT | 1u << OC_COL_PARAMS | 1u << OC_COL_MACS,
    OC_MODULE_COLUMNS = 1u << OC_COL_PARAMS | 1u << OC_COL_MACS | 1u << OC_COL_FLOPS | 1u << OC_COL_MACS_SHARE,
};

static void oc_text_cols(struct oc_table *tb, uint32_t cols, const enum oc_column *order) {
    bool modules = order == oc_module_col_order; /* a module holds "Params", a layer its "Param #" */
    for (int k = 0; k < OC_COL_COUNT; k++) {
        const struct oc_table_col *h = &oc_col_heads[order[k]];
        const char *header = modules && order[k] == OC_COL_PARAMS         ? "Params"
                             : modules && order[k] == OC_COL_PARAMS_SHARE ? "Params %"
                                                                          : h->header;
        if (cols >> order[k] & 1)
            oc_table_col(tb, header, h->key, h->align);
    }
}

/* A count, or its formula in the unbound dims where s has one; "?" when
 * unknown, "-" when it depends on unbound dims without a formula. */
static void oc_cell_formula(struct oc_sbuf *b, const struct oc_poly *p, const struct oc_symbolic *s, uint64_t v,
                            bool unknown, bool no_formula, bool proven) {
    char buf[512];
    int64_t k;
    if (no_formula) {
        oc_sbuf_puts(b, "-");
    } else if (s && p && !oc_poly_constant(p, &k)) {
        if (!proven)
            oc_sbuf_puts(b, "~"); /* fitted, not proven (symbolic.h) */
        oc_sbuf_puts(b, oc_poly_format(p, s, true, buf, sizeof buf));
    } else
        oc_cell_count(b, v, unknown);
}

/* part / total in %; "-" without a total, or while dims are symbolic (s):
 * a share then depends on the binding. */
static void oc_cell_share(struct oc_sbuf *b, uint64_t part, uint64_t total, const struct oc_symbolic *s) {
    char pct[32];
    if (s)
        snprintf(pct, sizeof pct, "-");
    else
        oc_pct(pct, sizeof pct, part, total);
    oc_sbuf_puts(b, pct);
}

/* The per-op-type breakdown: count, MACs, FLOPs, params and their shares. */
static void oc_text_op_types(struct oc_sbuf *out, const struct oc_analysis *an) {
    const struct oc_totals *t = &an->totals;
    struct oc_table tb = {0};
    char pct[32];
    static const struct oc_table_col cols[] = {
        {"Op type", "op_type", OC_ALIGN_LEFT},
        {"Nodes", "nodes", OC_ALIGN_RIGHT},
        {"MACs", "macs", OC_ALIGN_RIGHT},
        {"MACs %", "macs_share", OC_ALIGN_RIGHT},
        {"FLOPs", "flops", OC_ALIGN_RIGHT},
        {"FLOPs %", "flops_share", OC_ALIGN_RIGHT},
        {"Params", "params", OC_ALIGN_RIGHT},
        {"Params %", "params_share", OC_ALIGN_RIGHT},
    };
    oc_table_cols(&tb, cols, (int32_t)(sizeof cols / sizeof cols[0]));
    for (int32_t r = 0; r < an->n_op_stats; r++) {
        const struct oc_op_stat *s = &an->op_stats[r];
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", s->domain, s->domain[0] ? "::" : "", s->op_type);
        for (char *p = name; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        oc_table_row(&tb);
        oc_table_puts(&tb, name);
        oc_table_cell(&tb, "%d", s->count);
        oc_cell_count(oc_table_next(&tb), s->macs, false);
        oc_pct(pct, sizeof pct, s->macs, t->macs);
        oc_table_puts(&tb, pct);
        oc_cell_count(oc_table_next(&tb), s->flops, false);
        oc_pct(pct, sizeof pct, s->flops, t->flops);
        oc_table_puts(&tb, pct);
        oc_cell_count(oc_table_next(&tb), s->params, false);
        oc_pct(pct, sizeof pct, s->params, t->params);
        oc_table_puts(&tb, pct);
    }
    oc_table_text(out, &tb, NULL);
    oc_table_free(&tb);
}

/* --depth: one row per module, indented by depth, with subtotals. */
static enum oc_status oc_text_modules(struct oc_sbuf *out, const struct oc_analysis *an, const struct oc_report_spec *spec,
                                      size_t *line) {
    const struct oc_totals *t = &an->totals;
    const struct oc_symbolic *s = spec->sym;
    struct oc_table tb = {0};
    uint32_t cols = spec->columns ? spec->columns & ~(uint32_t)OC_COLS_SHAPES : OC_MODULE_COLUMNS;
    oc_table_col(&tb, "Module", "module", OC_ALIGN_LEFT);
    oc_table_col(&tb, "Nodes", "nodes", OC_ALIGN_RIGHT);
    oc_text_cols(&tb, cols, oc_module_col_order);
    for (int32_t r = 0; r < spec->n_modules; r++) {
        const struct oc_module *m = &spec->modules[r];
        oc_table_row(&tb);
        oc_table_level(&tb, m->depth - 1);
        oc_put_safe(oc_table_next(&tb), m->path);
        oc_table_cell(&tb, "%d", m->n_nodes);
        for (int k = 0; k < OC_COL_COUNT; k++) {
            enum oc_column c = oc_module_col_order[k];
            if (!(cols >> c & 1))
                continue;
            struct oc_sbuf *cell = oc_table_next(&tb);
            if (c == OC_COL_PARAMS)
                oc_cell_count(cell, m->params, false);
            else if (c == OC_COL_PARAMS_SHARE)
                oc_cell_share(cell, m->params, t->params, NULL);
            else if (c == OC_COL_MACS_SHARE) /* a share depends on the binding: none while dims are symbolic */
                oc_cell_share(cell, m->macs, t->macs, s);
            else if (c == OC_COL_BYTES)
                oc_cell_formula(cell, NULL, s, m->activation_bytes, false, s != NULL, true);
            else
                oc_cell_formula(cell, c == OC_COL_MACS ? m->macs_poly : m->flops_poly, s,
                                c == OC_COL_MACS ? m->macs : m->flops, false, false, m->formulas_proven);
            if (m->n_uncosted && (c == OC_COL_MACS || c == OC_COL_FLOPS || c == OC_COL_BYTES))
                oc_sbuf_puts(cell, "+?");
        }
    }
    static const struct oc_text_style style = {.indent = "  ", .rules = true};
    *line = oc_table_text(out, &tb, &style);
    bool oom = tb.oom;
    oc_table_free(&tb);
    return oom ? OC_ERR_NOMEM : OC_OK;
}

/* The node table (execution order, or --sort/--top). */
static enum oc_status oc_text_nodes(struct oc_sbuf *out, const struct oc_analysis *an, const struct oc_report_spec *spec,
                                    struct oc_diag *d, size_t *line) {
    const struct oc_graph *g = an->graph;
    int32_t n;
    int32_t *rows = oc_report_rows(an, spec, &n);
    if (!rows)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    struct oc_table tb = {0};
    uint32_t cols = spec->columns ? spec->columns : OC_NODE_COLUMNS;
    const struct oc_symbolic *s = spec->sym;
    oc_table_col(&tb, "Layer (type)", "layer", OC_ALIGN_LEFT);
    oc_text_cols(&tb, cols, oc_node_col_order);
    if (spec->gpu) {
        oc_table_col(&tb, "FLOP/B", "intensity", OC_ALIGN_RIGHT);
        oc_table_col(&tb, "Bound", "bound", OC_ALIGN_LEFT);
        oc_table_col(&tb, "Time (us)", "time_us", OC_ALIGN_RIGHT);
    }
    if (oc_ranges_has_nodes(spec))
        oc_table_col(&tb, "MACs over the ranges", "macs_range", OC_ALIGN_RIGHT);
    if (spec->measured) {
        oc_table_col(&tb, "Measured (us)", "measured_us", OC_ALIGN_RIGHT);
        oc_table_col(&tb, "GFLOP/s", "measured_gflops", OC_ALIGN_RIGHT);
        if (spec->gpu)
            oc_table_col(&tb, "Pred/meas", "predicted_over_measured", OC_ALIGN_RIGHT);
    }
    oc_table_reserve(&tb, n);
    for (int32_t r = 0; r < n && !tb.oom; r++) {
        const struct oc_node *nd = &g->nodes[rows[r]];
        const struct oc_node_poly *fp = s ? &s->nodes[nd->index] : NULL; /* formulas */
        bool proven = s && s->node_proven && s->node_proven[nd->index];
        bool unknown = (nd->cost.flags & OC_COST_UNKNOWN) != 0;
        oc_table_row(&tb);
        oc_cell_layer(oc_table_next(&tb), nd);
        for (int k = 0; k < OC_COL_COUNT; k++) {
            enum oc_column c = oc_node_col_order[k];
            if (!(cols >> c & 1))
                continue;
            struct oc_sbuf *cell = oc_table_next(&tb);
            if (c == OC_COL_INPUT)
                oc_fmt_node_input_shapes(cell, g, nd, s);
            else if (c == OC_COL_OUTPUT)
                oc_fmt_node_shapes(cell, g, nd, s, true);
            else if (c == OC_COL_PARAMS)
                oc_cell_count(cell, nd->params, false);
            else if (c == OC_COL_PARAMS_SHARE)
                oc_cell_share(cell, nd->params, an->totals.params, NULL);
            else if (c == OC_COL_MACS_SHARE)
                unknown ? oc_sbuf_puts(cell, "?") : oc_cell_share(cell, nd->cost.macs, an->totals.macs, s);
            else if (c == OC_COL_MACS)
                oc_cell_formula(cell, fp ? fp->macs : NULL, s, nd->cost.macs, unknown, false, proven);
            else if (c == OC_COL_FLOPS)
                oc_cell_formula(cell, fp ? fp->flops : NULL, s, nd->cost.flops, unknown, false, proven);
            else
                oc_cell_formula(cell, fp ? fp->activation_bytes : NULL, s, nd->activation_bytes,
                                nd->status != OC_OK, false, proven);
        }
        const struct oc_node_perf *np = spec->gpu ? &spec->gpu->perf->nodes[nd->index] : NULL;
        if (oc_ranges_has_nodes(spec) && !np) /* after the GPU columns when both */
            oc_ranges_node_cell(oc_table_next(&tb), spec, nd->index, 0);
        for (int c = 0; np && c < 3; c++) {
            if (!np->known)
                oc_table_puts(&tb, "?");
            else if (np->bound == OC_BOUND_NONE && (c < 2 || !(np->time > 0)))
                oc_table_puts(&tb, "-"); /* no kernel: a CPU's node still takes its fixed cost */
            else if (c == 0)
                oc_table_cell(&tb, "%.1f", np->ai);
            else if (c == 1)
                oc_table_puts(&tb, oc_bound_name(np->bound));
            else
                oc_table_cell(&tb, "%.1f", np->time * 1e6);
        }
        if (oc_ranges_has_nodes(spec) && np)
            oc_ranges_node_cell(oc_table_next(&tb), spec, nd->index, 0);
        if (spec->measured) {
            const struct oc_measured_node *m = &spec->measured->nodes[nd->index];
            if (!m->runs) {
                oc_table_puts(&tb, "-");
                oc_table_puts(&tb, "-");
            } else {
                oc_table_cell(&tb, "%.1f", m->median_us);
                if (unknown || !(m->median_us > 0))
                    oc_table_puts(&tb, unknown ? "?" : "-");
                else
                    oc_table_cell(&tb, "%.1f", (double)nd->cost.flops / (m->median_us * 1e3));
            }
            if (np) { /* predicted over measured */
                if (!np->known)
                    oc_table_puts(&tb, "?");
                else if (!m->runs || !(m->median_us > 0) || !(np->time > 0))
                    oc_table_puts(&tb, "-");
                else
                    oc_table_cell(&tb, "%.2f", np->time * 1e6 / m->median_us);
            }
        }
    }
    free(rows);
    struct oc_report_flush fl = {spec, d, OC_OK};
    struct oc_table_flush flush = {oc_report_flush, &fl};
    struct oc_text_style style = {.indent = "  ", .rules = true, .bold_header = spec->color, .fit_width = spec->width,
                                  .shrink_col = 0, .flush = &flush};
    bool oom = tb.oom;
    *line = oc_table_text(out, &tb, &style);
    oc_table_free(&tb);
    if (fl.st != OC_OK)
        return fl.st;
    if (oom)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    if (n < g->n_nodes || spec->sort != OC_SORT_NONE) {
        static const char *const keys[] = {"", "MACs", "FLOPs", "params", "output bytes"};
        oc_sbuf_printf(out, "  (%d of %d nodes", n, g->n_nodes);
        if (spec->sort != OC_SORT_NONE)
            oc_sbuf_printf(out, ", largest %s first", keys[spec->sort]);
        oc_sbuf_puts(out, ")\n");
    }
    return OC_OK;
}

/* The nth node of a list under heading (the heading before the first): its
   label and why; past 20, one line sending the reader to the JSON. */
static void oc_text_reason_line(struct oc_sbuf *out, int32_t nth, const char *heading, const struct oc_node *nd) {
    if (nth > 21)
        return;
    if (nth == 21) {
        oc_sbuf_puts(out, "  ... (all listed in --format json)\n");
        return;
    }
    if (nth == 1) {
        oc_sbuf_puts(out, heading);
        oc_sbuf_puts(out, "\n");
    }
    oc_sbuf_puts(out, "  ");
    oc_cell_layer(out, nd);
    oc_sbuf_puts(out, ": ");
    oc_put_safe(out, nd->reason ? nd->reason : oc_status_str(nd->status));
    oc_sbuf_puts(out, "\n");
}


enum oc_status oc_render_text(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    const struct oc_graph *g = an->graph;
    const struct oc_totals *t = &an->totals;
    struct oc_sbuf out = {0};
    size_t line = 0;
    const char *lb = oc_lower_bound_mark(t, true);
    if (*lb) { /* said before the table, where the reader starts */
        oc_sbuf_puts(&out, spec->color ? "\033[1mWARNING:\033[0m " : "WARNING: ");
        oc_sbuf_puts(&out, t->n_uncosted ? "incomplete analysis: " : "");
        oc_fmt_incomplete(&out, t);
        oc_sbuf_puts(&out, ".\n         MACs, FLOPs and activation sizes are lower bounds (marked >=); "
                           "the causes are listed at the end.\n");
    }
    enum oc_status st = spec->modules ? oc_text_modules(&out, an, spec, &line) : oc_text_nodes(&out, an, spec, d, &line);
    if (st != OC_OK) {
        oc_sbuf_free(&out);
        return st;
    }

    char b1[48], b2[48];
    oc_sbuf_pad(&out, '=', line);
    oc_sbuf_printf(&out, "\n%sTotal params: %s%s\n", spec->color ? "\033[1m" : "",
                   oc_fmt_thousands(t->params, b1, sizeof b1), spec->color ? "\033[0m" : "");
    oc_sbuf_printf(&out, "Trainable params: %s\n", oc_fmt_thousands(t->trainable_params, b1, sizeof b1));
    oc_sbuf_printf(&out, "Non-trainable params: %s\n", oc_fmt_thousands(t->non_trainable_params, b1, sizeof b1));
    const struct oc_symbolic *s = spec->sym;
    int64_t konst;
    if (s && s->macs && !oc_poly_constant(s->macs, &konst)) {
        char buf[512];
        oc_sbuf_printf(&out, "Total MACs: %s%s%s\n", s->totals_proven ? "" : "~",
                       oc_poly_format(s->macs, s, true, buf, sizeof buf),
                       s->totals_proven ? "" : " (fitted, not proven: see below)");
    } else {
        oc_sbuf_printf(&out, "Total MACs: %s%s (%.3f GMACs%s)\n", lb, oc_fmt_thousands(t->macs, b1, sizeof b1),
                       (double)t->macs / 1e9, *lb ? "; a lower bound" : "");
    }
    if (s && s->flops && !oc_poly_constant(s->flops, &konst)) {
        char buf[512];
        oc_sbuf_printf(&out, "Total FLOPs: %s%s%s\n", s->totals_proven ? "" : "~",
                       oc_poly_format(s->flops, s, true, buf, sizeof buf),
                       s->totals_proven ? "" : " (fitted, not proven: see below)");
    } else {
        oc_sbuf_printf(&out, "Total FLOPs: %s%s (%.3f GFLOPs%s)\n", lb, oc_fmt_thousands(t->flops, b2, sizeof b2),
                       (double)t->flops / 1e9, *lb ? "; a lower bound" : "");
    }
    oc_sbuf_pad(&out, '-', line);
    double in = oc_mib(t->input_bytes), fb = 2.0 * oc_mib(t->activation_bytes), pa = oc_mib(t->params_bytes);
    oc_sbuf_printf(&out, "\nInput size (MiB): %.2f\n", in);
    oc_sbuf_printf(&out, "Forward/backward pass size (MiB): %s%.2f\n", lb, fb);
    oc_sbuf_printf(&out, "Params size (MiB): %.2f\n", pa);
    oc_sbuf_printf(&out, "Estimated Total Size (MiB): %s%.2f\n", lb, in + fb + pa);
    oc_sbuf_printf(&out, "Peak activation memory (MiB): %s%.2f", t->peak_complete && !*lb ? "" : ">= ",
                   oc_mib(t->peak_activation_bytes));
    if (t->peak_node >= 0) {
        oc_sbuf_puts(&out, " at ");
        oc_cell_layer(&out, &g->nodes[t->peak_node]);
    }
    oc_sbuf_puts(&out, " (tensor liveness, inference)\n");
    if (spec->dtype_name)
        oc_sbuf_printf(&out, "(sizes with every float tensor priced as %s)\n", spec->dtype_name);
    if (spec->training)
        oc_training_text(&out, spec->training);
    if (s) {
        oc_sbuf_puts(&out, "(sizes at ");
        oc_fmt_sym_binding(&out, an, s);
        if (s->all_proven)
            oc_sbuf_printf(&out, "; shapes and costs above are exact formulas in the unbound dims, derived through "
                                 "the ops%s%s)\n",
                           s->where[0] ? ", where " : "", s->where);
        else
            oc_sbuf_printf(&out, "; formulas marked ~ are fitted to %d analyses, not proven: they may differ "
                                 "between the probed bindings (%s); the others are derived)\n",
                           s->n_runs, s->why);
    }
    if (spec->ranges)
        oc_ranges_text(&out, spec);
    if (spec->lint)
        oc_lint_text_summary(&out, spec->lint);
    oc_sbuf_pad(&out, '-', line);
    oc_sbuf_puts(&out, "\n");

    if (spec->gpu) {
        oc_gpu_text(&out, an, spec);
        oc_sbuf_pad(&out, '-', line);
        oc_sbuf_puts(&out, "\n");
    }
    if (spec->measured) {
        oc_measured_text(&out, an, spec);
        oc_sbuf_pad(&out, '-', line);
        oc_sbuf_puts(&out, "\n");
    }
    if (spec->baseline) {
        oc_baseline_text(&out, an, spec);
        oc_sbuf_pad(&out, '-', line);
        oc_sbuf_puts(&out, "\n");
    }
    oc_text_op_types(&out, an);
    oc_sbuf_pad(&out, '-', line);
    oc_sbuf_puts(&out, "\n");
    oc_sbuf_printf(&out, "Shapes: %d/%d nodes concrete", t->n_shaped, t->n_nodes);
    if (t->n_uncosted)
        oc_sbuf_printf(&out, "; %d nodes without a cost (MACs/FLOPs above exclude them)", t->n_uncosted);
    oc_sbuf_puts(&out, "\n");
    if (an->n_unsupported) {
        oc_sbuf_printf(&out, "Ops without a shape rule (%d node%s): ", t->n_no_rule, t->n_no_rule == 1 ? "" : "s");
        for (int32_t i = 0; i < an->n_unsupported; i++) {
            const struct oc_op_count *u = &an->unsupported[i];
            oc_sbuf_puts(&out, i ? ", " : "");
            if (u->domain[0]) {
                oc_put_safe(&out, u->domain);
                oc_sbuf_puts(&out, "::");
            }
            oc_put_safe(&out, u->op_type);
            oc_sbuf_printf(&out, " x%d", u->count);
        }
        oc_sbuf_puts(&out, "\n");
    }
    int32_t listed = 0, downstream = 0;
    for (int32_t r = 0; r < g->n_nodes; r++) {
        const struct oc_node *nd = &g->nodes[g->order[r]];
        if (nd->status == OC_OK || (!nd->def && !nd->is_call))
            continue;
        if (nd->upstream) {
            downstream++;
            continue;
        }
        oc_text_reason_line(&out, ++listed, "Nodes whose shapes could not be inferred:", nd);
    }
    if (downstream)
        oc_sbuf_printf(&out, "%d more node%s downstream of these %s unknown shapes\n", downstream,
                       downstream == 1 ? "" : "s", downstream == 1 ? "has" : "have");
    int32_t refused = 0; /* shaped, but the cost rule refused an attribute */
    for (int32_t r = 0; r < g->n_nodes; r++) {
        const struct oc_node *nd = &g->nodes[g->order[r]];
        if (nd->status == OC_OK && (nd->cost.flags & OC_COST_UNKNOWN) && nd->reason)
            oc_text_reason_line(&out, ++refused, "Nodes without a cost:", nd);
    }
    if (t->flags & OC_COST_OVERFLOW)
        oc_sbuf_puts(&out, "Warning: a count passed 64 bits and is saturated at 2^64 - 1 (totals marked >=)\n");
    st = oc_sbuf_flush(&out, spec, d);
    oc_sbuf_free(&out);
    return st;
}
