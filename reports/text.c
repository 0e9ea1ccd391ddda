/*
 * text.c — the torchsummary-style table.
 *
 *   Layer (type) | Output Shape | Param # | MACs, one row per node in
 *   execution order, then the totals block with torchsummary's lines
 *   (sizes in MiB = 2^20 bytes, which torchsummary labels "MB").
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OC_TCOL_LAYER, OC_TCOL_SHAPE, OC_TCOL_PARAMS, OC_TCOL_MACS, OC_TCOL_AI, OC_TCOL_BOUND, OC_TCOL_TIME, OC_TCOL_COUNT };
enum { OC_TCOL_BASE = OC_TCOL_AI }; /* the last three only with --gpu */

struct oc_tcol {
    const char *header;
    bool right;
};

static const struct oc_tcol oc_tcols[] = {
    [OC_TCOL_LAYER] = {"Layer (type)", false},
    [OC_TCOL_SHAPE] = {"Output Shape", true},
    [OC_TCOL_PARAMS] = {"Param #", true},
    [OC_TCOL_MACS] = {"MACs", true},
    [OC_TCOL_AI] = {"FLOP/B", true},
    [OC_TCOL_BOUND] = {"Bound", false},
    [OC_TCOL_TIME] = {"Time (us)", true},
};
_Static_assert(OC_ARRAY_LEN(oc_tcols) == OC_TCOL_COUNT, "text columns out of sync");

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

static void oc_cell_shape(struct oc_sbuf *b, const struct oc_graph *g, const struct oc_node *n,
                          const struct oc_symbolic *s) {
    int32_t shown = 0;
    for (int32_t k = 0; k < n->n_out; k++)
        shown += n->out[k] >= 0;
    if (shown > 1)
        oc_sbuf_puts(b, "[");
    int32_t i = 0;
    for (int32_t k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0)
            continue;
        if (i++)
            oc_sbuf_puts(b, ", ");
        oc_fmt_shape_sym(b, g, n->out[k], s);
    }
    if (shown > 1)
        oc_sbuf_puts(b, "]");
    if (!shown)
        oc_sbuf_puts(b, "-");
}

static void oc_cell_count(struct oc_sbuf *b, uint64_t v, bool unknown) {
    char buf[48];
    oc_sbuf_puts(b, unknown ? "?" : oc_fmt_thousands(v, buf, sizeof buf));
}

static double oc_mib(uint64_t bytes) {
    return (double)bytes / (1024.0 * 1024.0);
}

/* Display width of UTF-8 text: one column per code point (formulas use "·"
 * and superscripts; names are printed with control bytes replaced). */
static size_t oc_display_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* A cell padded to `width` columns; text wider than that is cut and ends in
 * "…" (the terminal-width fit). */
static void oc_put_cell(struct oc_sbuf *out, const char *s, size_t width, bool right) {
    size_t len = oc_display_width(s, strlen(s));
    if (len > width && width >= 2) {
        size_t keep = 0, cols = 0;
        while (s[keep] && cols < width - 1) { /* whole UTF-8 characters */
            keep++;
            while (((unsigned char)s[keep] & 0xC0) == 0x80)
                keep++;
            cols++;
        }
        oc_sbuf_put(out, s, keep);
        oc_sbuf_puts(out, "\xE2\x80\xA6");
        return;
    }
    if (right)
        oc_sbuf_pad(out, ' ', width - len);
    oc_sbuf_puts(out, s);
    if (!right)
        oc_sbuf_pad(out, ' ', width - len);
}


static void oc_pct(char *buf, size_t size, uint64_t part, uint64_t total) {
    if (!total)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)total);
}

/* The per-op-type breakdown: count, MACs, FLOPs, params and their shares. */
static void oc_text_op_types(struct oc_sbuf *out, const struct oc_analysis *an) {
    enum { NCOL = 8 };
    static const char *const hdr[NCOL] = {"Op type", "Nodes", "MACs", "MACs %", "FLOPs", "FLOPs %", "Params", "Params %"};
    const struct oc_totals *t = &an->totals;
    int32_t n = an->n_op_stats;
    char(*cells)[NCOL][64] = calloc((size_t)n + 1, sizeof *cells);
    size_t w[NCOL];
    if (!cells) {
        out->oom = true;
        return;
    }
    for (int c = 0; c < NCOL; c++)
        w[c] = strlen(hdr[c]);
    for (int32_t r = 0; r < n; r++) {
        const struct oc_op_stat *s = &an->op_stats[r];
        snprintf(cells[r][0], 64, "%s%s%s", s->domain, s->domain[0] ? "::" : "", s->op_type);
        for (char *p = cells[r][0]; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        snprintf(cells[r][1], 64, "%d", s->count);
        oc_fmt_thousands(s->macs, cells[r][2], 64);
        oc_pct(cells[r][3], 64, s->macs, t->macs);
        oc_fmt_thousands(s->flops, cells[r][4], 64);
        oc_pct(cells[r][5], 64, s->flops, t->flops);
        oc_fmt_thousands(s->params, cells[r][6], 64);
        oc_pct(cells[r][7], 64, s->params, t->params);
        for (int c = 0; c < NCOL; c++) {
            size_t len = oc_display_width(cells[r][c], strlen(cells[r][c]));
            if (len > w[c])
                w[c] = len;
        }
    }
    for (int c = 0; c < NCOL; c++) {
        oc_sbuf_puts(out, c ? "  " : "");
        oc_put_cell(out, hdr[c], w[c], c > 0);
    }
    oc_sbuf_puts(out, "\n");
    for (int32_t r = 0; r < n; r++) {
        for (int c = 0; c < NCOL; c++) {
            oc_sbuf_puts(out, c ? "  " : "");
            oc_put_cell(out, cells[r][c], w[c], c > 0);
        }
        oc_sbuf_puts(out, "\n");
    }
    free(cells);
}

/* --depth: one row per module, indented by depth, with subtotals. */
static enum oc_status oc_text_modules(struct oc_sbuf *out, const struct oc_analysis *an, const struct oc_report_spec *spec,
                                      size_t *line) {
    enum { NCOL = 6 };
    static const char *const hdr[NCOL] = {"Module", "Nodes", "Params", "MACs", "FLOPs", "MACs %"};
    const struct oc_totals *t = &an->totals;
    const struct oc_symbolic *s = spec->sym;
    int32_t n = spec->n_modules;
    struct oc_sbuf cells = {0};
    size_t *off = calloc((size_t)n * NCOL + 1, sizeof *off), w[NCOL];
    if (!off)
        return OC_ERR_NOMEM;
    for (int c = 0; c < NCOL; c++)
        w[c] = strlen(hdr[c]);
    for (int32_t r = 0; r < n; r++) {
        const struct oc_module *m = &spec->modules[r];
        for (int c = 0; c < NCOL; c++) {
            size_t start = cells.n;
            char buf[512];
            int64_t k;
            off[(size_t)r * NCOL + (size_t)c] = start;
            switch (c) {
            case 0:
                oc_sbuf_pad(&cells, ' ', 2 * (size_t)(m->depth - 1));
                oc_put_safe(&cells, m->path);
                break;
            case 1:
                oc_sbuf_printf(&cells, "%d", m->n_nodes);
                break;
            case 2:
                oc_cell_count(&cells, m->params, false);
                break;
            case 3:
            case 4: {
                const struct oc_poly *p = c == 3 ? m->macs_poly : m->flops_poly;
                if (s && p && !oc_poly_constant(p, &k))
                    oc_sbuf_puts(&cells, oc_poly_format(p, s, true, buf, sizeof buf));
                else
                    oc_cell_count(&cells, c == 3 ? m->macs : m->flops, false);
                if (m->n_uncosted)
                    oc_sbuf_puts(&cells, "+?");
                break;
            }
            default: /* a share depends on the binding: none while dims are symbolic */
                if (t->macs && !s)
                    oc_sbuf_printf(&cells, "%.1f%%", 100.0 * (double)m->macs / (double)t->macs);
                else
                    oc_sbuf_puts(&cells, "-");
                break;
            }
            size_t len = oc_display_width(cells.p ? cells.p + start : "", cells.n - start);
            if (len > w[c])
                w[c] = len;
            oc_sbuf_put(&cells, "", 1);
        }
    }
    *line = 2;
    for (int c = 0; c < NCOL; c++)
        *line += w[c] + (c ? 2 : 0);
    oc_sbuf_pad(out, '-', *line);
    oc_sbuf_puts(out, "\n  ");
    for (int c = 0; c < NCOL; c++) {
        oc_sbuf_puts(out, c ? "  " : "");
        oc_put_cell(out, hdr[c], w[c], c > 0);
    }
    oc_sbuf_puts(out, "\n");
    oc_sbuf_pad(out, '=', *line);
    oc_sbuf_puts(out, "\n");
    for (int32_t r = 0; r < n && !cells.oom; r++) {
        oc_sbuf_puts(out, "  ");
        for (int c = 0; c < NCOL; c++) {
            oc_sbuf_puts(out, c ? "  " : "");
            oc_put_cell(out, cells.p + off[(size_t)r * NCOL + (size_t)c], w[c], c > 0);
        }
        oc_sbuf_puts(out, "\n");
    }
    if (cells.oom)
        out->oom = true;
    free(off);
    oc_sbuf_free(&cells);
    return OC_OK;
}

/* The node table (execution order, or --sort/--top). */
static enum oc_status oc_text_nodes(struct oc_sbuf *out, const struct oc_analysis *an, const struct oc_report_spec *spec,
                                    struct oc_diag *d, size_t *line) {
    const struct oc_graph *g = an->graph;
    int32_t n;
    int32_t *rows = oc_report_rows(an, spec, &n);
    if (!rows)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    /* cells: n rows x 4 columns, each a NUL-terminated string in one buffer */
    const int ncol = spec->gpu ? OC_TCOL_COUNT : OC_TCOL_BASE;
    struct oc_sbuf cells = {0};
    size_t *off = calloc((size_t)n * OC_TCOL_COUNT + 1, sizeof *off);
    size_t width[OC_TCOL_COUNT];
    if (!off) {
        free(rows);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    }
    for (int c = 0; c < ncol; c++)
        width[c] = strlen(oc_tcols[c].header);
    for (int32_t r = 0; r < n; r++) {
        const struct oc_node *nd = &g->nodes[rows[r]];
        for (int c = 0; c < ncol; c++) {
            size_t start = cells.n;
            off[(size_t)r * (size_t)ncol + (size_t)c] = start;
            switch (c) {
            case OC_TCOL_LAYER:
                oc_cell_layer(&cells, nd);
                break;
            case OC_TCOL_SHAPE:
                oc_cell_shape(&cells, g, nd, spec->sym);
                break;
            case OC_TCOL_PARAMS:
                oc_cell_count(&cells, nd->params, false);
                break;
            case OC_TCOL_MACS:
                if (spec->sym && spec->sym->nodes[nd->index].macs) {
                    char buf[256];
                    oc_sbuf_puts(&cells, oc_poly_format(spec->sym->nodes[nd->index].macs, spec->sym, true, buf,
                                                        sizeof buf));
                } else {
                    oc_cell_count(&cells, nd->cost.macs, (nd->cost.flags & OC_COST_UNKNOWN) != 0);
                }
                break;
            default: {
                const struct oc_node_perf *np = &spec->gpu->perf->nodes[nd->index];
                if (!np->known)
                    oc_sbuf_puts(&cells, "?");
                else if (np->bound == OC_BOUND_NONE)
                    oc_sbuf_puts(&cells, "-");
                else if (c == OC_TCOL_AI)
                    oc_sbuf_printf(&cells, "%.1f", np->ai);
                else if (c == OC_TCOL_BOUND)
                    oc_sbuf_puts(&cells, oc_bound_name(np->bound));
                else
                    oc_sbuf_printf(&cells, "%.1f", np->time * 1e6);
                break;
            }
            }
            if (cells.oom)
                break;
            size_t len = oc_display_width(cells.p + start, cells.n - start);
            if (len > width[c])
                width[c] = len;
            oc_sbuf_put(&cells, "", 1); /* keep the NUL as a separator */
        }
    }
        *line = 2;
    for (int c = 0; c < ncol; c++)
        *line += width[c] + (c ? 2 : 0);
    if (spec->width > 0 && *line > (size_t)spec->width) { /* narrow the layer column first */
        size_t excess = *line - (size_t)spec->width, room = width[OC_TCOL_LAYER] > 16 ? width[OC_TCOL_LAYER] - 16 : 0;
        size_t cut = excess < room ? excess : room;
        width[OC_TCOL_LAYER] -= cut;
        *line -= cut;
    }
    oc_sbuf_pad(out, '-', *line);
    oc_sbuf_puts(out, spec->color ? "\n\033[1m  " : "\n  ");
    for (int c = 0; c < ncol; c++) {
        if (c)
            oc_sbuf_puts(out, "  ");
        oc_put_cell(out, oc_tcols[c].header, width[c], oc_tcols[c].right);
    }
    oc_sbuf_puts(out, spec->color ? "\033[0m\n" : "\n");
    oc_sbuf_pad(out, '=', *line);
    oc_sbuf_puts(out, "\n");
    enum oc_status st = OC_OK;
    for (int32_t r = 0; r < n && !cells.oom; r++) {
        oc_sbuf_puts(out, "  ");
        for (int c = 0; c < ncol; c++) {
            if (c)
                oc_sbuf_puts(out, "  ");
            oc_put_cell(out, cells.p + off[(size_t)r * (size_t)ncol + (size_t)c], width[c], oc_tcols[c].right);
        }
        oc_sbuf_puts(out, "\n");
        if (out->n > 1 << 16 && (st = oc_sbuf_flush(out, spec, d)) != OC_OK)
            break;
    }
    if (cells.oom)
        out->oom = true;
    free(off);
    free(rows);
    oc_sbuf_free(&cells);
    if (st != OC_OK)
        return st;

    if (n < g->n_nodes || spec->sort != OC_SORT_NONE) {
        static const char *const keys[] = {"", "MACs", "FLOPs", "params", "output bytes"};
        oc_sbuf_printf(out, "  (%d of %d nodes", n, g->n_nodes);
        if (spec->sort != OC_SORT_NONE)
            oc_sbuf_printf(out, ", largest %s first", keys[spec->sort]);
        oc_sbuf_puts(out, ")\n");
    }
    return OC_OK;
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
        oc_sbuf_printf(&out, "Total MACs: %s\n", oc_poly_format(s->macs, s, true, buf, sizeof buf));
    } else {
        oc_sbuf_printf(&out, "Total MACs: %s%s (%.3f GMACs%s)\n", lb, oc_fmt_thousands(t->macs, b1, sizeof b1),
                       (double)t->macs / 1e9, *lb ? "; a lower bound" : "");
    }
    if (s && s->flops && !oc_poly_constant(s->flops, &konst)) {
        char buf[512];
        oc_sbuf_printf(&out, "Total FLOPs: %s\n", oc_poly_format(s->flops, s, true, buf, sizeof buf));
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
    if (spec->training) {
        const struct oc_training *tr = spec->training;
        char b3[48];
        oc_sbuf_printf(&out, "Training step (optimizer %s", oc_optimizer_name(tr->optimizer));
        if (tr->batch > 0)
            oc_sbuf_printf(&out, ", batch %lld", (long long)tr->batch);
        oc_sbuf_puts(&out, "):\n");
        oc_sbuf_printf(&out, "  Parameters (MiB): %.2f\n", oc_mib(tr->param_bytes));
        oc_sbuf_printf(&out, "  Gradients (MiB): %.2f\n", oc_mib(tr->grad_bytes));
        oc_sbuf_printf(&out, "  Optimizer state (MiB): %.2f\n", oc_mib(tr->optimizer_bytes));
        oc_sbuf_printf(&out, "  Activations saved for backward (MiB): %.2f\n", oc_mib(tr->saved_bytes));
        oc_sbuf_printf(&out, "  Total training memory (MiB): %s%.2f\n", tr->complete ? "" : ">= ",
                       oc_mib(tr->total_bytes));
        oc_sbuf_printf(&out, "  FLOPs per step: %s (forward + backward: 3 x contraction FLOPs + 2 x the rest)\n",
                       oc_fmt_thousands(tr->step_flops, b3, sizeof b3));
        if (tr->samples > 0 && tr->batch > 0) {
            char b4[48], b5[48];
            uint64_t steps = (uint64_t)(tr->samples / tr->batch + (tr->samples % tr->batch != 0));
            oc_sbuf_printf(&out, "  FLOPs per epoch (%s samples, %s steps): %s\n",
                           oc_fmt_thousands((uint64_t)tr->samples, b4, sizeof b4), oc_fmt_thousands(steps, b5, sizeof b5),
                           oc_fmt_thousands(tr->epoch_flops, b3, sizeof b3));
        }
    }
    if (s) {
        oc_sbuf_puts(&out, "(sizes at ");
        oc_fmt_sym_binding(&out, an, s);
        oc_sbuf_puts(&out, "; shapes and MACs above are exact formulas in the unbound dims)\n");
    }
    oc_sbuf_pad(&out, '-', line);
    oc_sbuf_puts(&out, "\n");

    if (spec->gpu) {
        oc_gpu_text(&out, an, spec);
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
        if (listed++ == 20) {
            oc_sbuf_puts(&out, "  ... (all listed in --format json)\n");
            continue;
        }
        if (listed > 20)
            continue;
        oc_sbuf_puts(&out, listed == 1 ? "Nodes whose shapes could not be inferred:\n" : "");
        oc_sbuf_puts(&out, "  ");
        oc_cell_layer(&out, nd);
        oc_sbuf_puts(&out, ": ");
        oc_put_safe(&out, nd->reason ? nd->reason : oc_status_str(nd->status));
        oc_sbuf_puts(&out, "\n");
    }
    if (downstream)
        oc_sbuf_printf(&out, "%d more node%s downstream of these %s unknown shapes\n", downstream,
                       downstream == 1 ? "" : "s", downstream == 1 ? "has" : "have");
    if (t->flags & OC_COST_OVERFLOW)
        oc_sbuf_puts(&out, "Warning: a count passed 64 bits and is saturated at 2^64 - 1 (totals marked >=)\n");
    st = oc_sbuf_flush(&out, spec, d);
    oc_sbuf_free(&out);
    return st;
}
