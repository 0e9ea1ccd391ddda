/*
 * html.c — one self-contained HTML file: no scripts, fonts or links to
 * anything outside it. Totals, inline SVG bar charts (MACs and params per
 * module or per op type, the op-type shares of MACs), MACs and FLOPs
 * against each unbound dim when the report has formulas, and the node (or
 * module) table. Every string from the model goes through oc_html_text.
 */
#include "report_impl.h"

#include "../views/measure.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


struct oc_bar {
    const char *label;
    uint64_t value;
};

/* Horizontal bar chart of up to 20 bars, largest first as given. */
static void oc_svg_bars(struct oc_sbuf *b, const char *title, const char *cls, const struct oc_bar *bars, int32_t n) {
    if (n > 20)
        n = 20;
    uint64_t max = 1;
    for (int32_t i = 0; i < n; i++)
        if (bars[i].value > max)
            max = bars[i].value;
    int h = 22 * n + 30;
    oc_sbuf_puts(b, "<h2>");
    oc_html_text(b, title);
    oc_sbuf_printf(b, "</h2>\n<svg class=\"chart\" width=\"900\" height=\"%d\" role=\"img\">\n", h);
    for (int32_t i = 0; i < n; i++) {
        char num[48];
        int y = 10 + 22 * i;
        double w = 560.0 * (double)bars[i].value / (double)max;
        oc_sbuf_printf(b, "<text x=\"250\" y=\"%d\" text-anchor=\"end\">", y + 14);
        oc_html_text(b, bars[i].label);
        oc_sbuf_printf(b, "</text><rect class=\"%s\" x=\"256\" y=\"%d\" width=\"%.1f\" height=\"18\"/>", cls, y,
                       w < 1 && bars[i].value ? 1.0 : w);
        oc_sbuf_printf(b, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", 262 + w, y + 14,
                       oc_fmt_thousands(bars[i].value, num, sizeof num));
    }
    oc_sbuf_printf(b, "<line class=\"axis\" x1=\"256\" y1=\"5\" x2=\"256\" y2=\"%d\"/>\n</svg>\n", h - 15);
}

static int oc_bar_cmp(const void *pa, const void *pb) {
    const struct oc_bar *a = pa, *b = pb;
    return a->value < b->value ? 1 : a->value > b->value ? -1 : 0;
}

/* Line chart of total MACs and FLOPs against one symbol (the others at 1). */
static void oc_svg_formula_lines(struct oc_sbuf *b, const struct oc_symbolic *s, int32_t sym) {
    enum { NPTS = 10 };
    int64_t xs[NPTS], macs[NPTS], flops[NPTS];
    for (int i = 0; i < NPTS; i++) {
        int64_t point[OC_SYM_MAX] = {1, 1, 1, 1};
        xs[i] = (int64_t)1 << i; /* 1 .. 512 */
        point[sym] = xs[i];
        if (!oc_poly_value(s->macs, s, point, &macs[i]) || !oc_poly_value(s->flops, s, point, &flops[i]))
            return;
    }
    double ymax = (double)(flops[NPTS - 1] > macs[NPTS - 1] ? flops[NPTS - 1] : macs[NPTS - 1]);
    if (ymax <= 0)
        return;
    oc_sbuf_puts(b, "<h2>MACs and FLOPs against ");
    oc_html_text(b, s->syms[sym]);
    oc_sbuf_puts(b, s->totals_proven ? " (other dims at 1; exact formulas, derived through the ops"
                                     : " (other dims at 1; formulas FITTED to the probe analyses, not proven");
    if (s->totals_proven && s->where[0]) {
        oc_sbuf_puts(b, ", where ");
        oc_html_text(b, s->where);
    }
    oc_sbuf_puts(b, "; the horizontal axis doubles per step)</h2>\n<svg class=\"chart\" width=\"700\" height=\"320\" "
                    "role=\"img\">\n<line class=\"axis\" x1=\"60\" y1=\"280\" x2=\"660\" y2=\"280\"/>"
                    "<line class=\"axis\" x1=\"60\" y1=\"20\" x2=\"60\" y2=\"280\"/>\n");
    const int64_t *series[2] = {macs, flops};
    static const char *const color[2] = {"#4e79a7", "#f28e2b"}, *const name[2] = {"MACs", "FLOPs"};
    for (int k = 0; k < 2; k++) {
        oc_sbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color[k]);
        for (int i = 0; i < NPTS; i++)
            oc_sbuf_printf(b, "%.1f,%.1f ", 60 + 600.0 * i / (NPTS - 1), 280 - 260.0 * (double)series[k][i] / ymax);
        oc_sbuf_printf(b, "\"/><text x=\"70\" y=\"%d\" fill=\"%s\">%s</text>\n", 35 + 15 * k, color[k], name[k]);
    }
    for (int i = 0; i < NPTS; i++)
        oc_sbuf_printf(b, "<text x=\"%.1f\" y=\"298\" text-anchor=\"middle\">%lld</text>", 60 + 600.0 * i / (NPTS - 1),
                       (long long)xs[i]);
    oc_sbuf_printf(b, "\n<text x=\"60\" y=\"14\">max %.3g</text>\n</svg>\n", ymax);
}

/* ---- log-log roofline charts (the --gpu prediction and the replay's measurements) ---- */

double oc_ll_x(const struct oc_loglog *c, double v) {
    return 60 + 600.0 * (log10(v) - c->x0) / (c->x1 - c->x0);
}

double oc_ll_y(const struct oc_loglog *c, double v) {
    return 280 - 260.0 * (log10(v) - c->y0) / (c->y1 - c->y0);
}

void oc_ll_open(struct oc_sbuf *b) {
    oc_sbuf_puts(b, "<svg class=\"chart\" width=\"700\" height=\"320\" role=\"img\">\n"
                    "<line class=\"axis\" x1=\"60\" y1=\"280\" x2=\"660\" y2=\"280\"/>"
                    "<line class=\"axis\" x1=\"60\" y1=\"20\" x2=\"60\" y2=\"280\"/>\n");
}

void oc_ll_roof(struct oc_sbuf *b, const struct oc_loglog *c, double peak, double bw, const char *color) {
    double lo = pow(10, c->x0), ylo = lo * bw;
    oc_sbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>",
                   color, oc_ll_x(c, lo), oc_ll_y(c, ylo > pow(10, c->y0) ? ylo : pow(10, c->y0)),
                   oc_ll_x(c, peak / bw), oc_ll_y(c, peak), oc_ll_x(c, pow(10, c->x1)), oc_ll_y(c, peak));
}

void oc_ll_ticks(struct oc_sbuf *b, const struct oc_loglog *c) {
    for (int e = (int)c->x0; e <= (int)c->x1; e++)
        oc_sbuf_printf(b, "<text x=\"%.1f\" y=\"298\" text-anchor=\"middle\">1e%d</text>", oc_ll_x(c, pow(10, e)), e);
    for (int e = (int)c->y0; e <= (int)c->y1; e += 2)
        oc_sbuf_printf(b, "<text x=\"55\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>", oc_ll_y(c, pow(10, e)) + 4, e);
}

/* --gpu: log-log roofline. Roofs min(peak, AI x bandwidth) for FP32 and the
 * fastest unit; one point per timed node at (AI, FLOPs / predicted time)
 * and, with --measured (m not NULL), a ring at (AI, FLOPs / measured
 * median) joined to it. */
static void oc_svg_roofline(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_perf *p,
                            const struct oc_measured *m) {
    const struct oc_gpu *gpu = p->gpu;
    const struct oc_graph *g = an->graph;
    enum oc_unit top = OC_UNIT_FP32; /* the fastest unit the nodes use */
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (p->nodes[i].known && p->nodes[i].bound != OC_BOUND_NONE && gpu->peak[p->nodes[i].unit] > gpu->peak[top])
            top = p->nodes[i].unit;
    if (gpu->mem_bw <= 0 || gpu->peak[top] <= 0)
        return;
    /* axes: AI 10^-2 .. 10^4 FLOP/B; FLOP/s from 10^(k-6) to 10^k above the top peak */
    double y1 = ceil(log10(gpu->peak[top]));
    const struct oc_loglog ll = {.x0 = -2, .x1 = 4, .y0 = y1 - 6, .y1 = y1};
    double x0 = ll.x0, x1 = ll.x1, y0 = ll.y0;
    oc_sbuf_puts(b, "<h2>Roofline on ");
    oc_html_text(b, gpu->name);
    oc_sbuf_puts(b, m ? " (log-log; FLOP/s against FLOP/byte; one point per node at its predicted time, a ring at "
                        "its measured time)</h2>\n"
                      : " (log-log; FLOP/s against FLOP/byte; one point per node at its predicted time)</h2>\n");
    oc_ll_open(b);
    enum oc_unit roofs[2] = {OC_UNIT_FP32, top};
    static const char *const color[2] = {"#4e79a7", "#e15759"};
    for (int k = 0; k < (top == OC_UNIT_FP32 ? 1 : 2); k++) {
        double peak = gpu->peak[roofs[k]];
        oc_ll_roof(b, &ll, peak, gpu->mem_bw, color[k]);
        oc_sbuf_printf(b, "<text x=\"655\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s %.3g TFLOPS, ridge %.1f FLOP/B</text>\n",
                       oc_ll_y(&ll, peak) - 5, color[k], oc_unit_name(roofs[k]), peak / 1e12, peak / gpu->mem_bw);
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node_perf *np = &p->nodes[i];
        if (!np->known || np->bound == OC_BOUND_NONE || np->ai <= 0 || np->time <= 0)
            continue;
        double ai = np->ai < pow(10, x0) ? pow(10, x0) : np->ai > pow(10, x1) ? pow(10, x1) : np->ai;
        double f = (double)g->nodes[i].cost.flops / np->time;
        if (f < pow(10, y0))
            f = pow(10, y0);
        oc_sbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.6\"><title>",
                       oc_ll_x(&ll, ai), oc_ll_y(&ll, f), np->bound == OC_BOUND_MEMORY ? "#f28e2b" : "#59a14f");
        oc_html_text(b, g->nodes[i].name[0] ? g->nodes[i].name : g->nodes[i].op_type);
        oc_sbuf_printf(b, ": %.3g FLOP/B, %.3g FLOP/s, %s-bound</title></circle>", np->ai, f, oc_bound_name(np->bound));
        if (!m || !m->nodes[i].runs || !(m->nodes[i].median_us > 0))
            continue;
        double fm = (double)g->nodes[i].cost.flops / (m->nodes[i].median_us * 1e-6);
        if (fm < pow(10, y0))
            fm = pow(10, y0);
        oc_sbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-width=\"0.5\"/>",
                       oc_ll_x(&ll, ai), oc_ll_y(&ll, f), oc_ll_x(&ll, ai), oc_ll_y(&ll, fm));
        oc_sbuf_printf(b, "<circle class=\"measured\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"none\" stroke=\"#333\"><title>",
                       oc_ll_x(&ll, ai), oc_ll_y(&ll, fm));
        oc_html_text(b, g->nodes[i].name[0] ? g->nodes[i].name : g->nodes[i].op_type);
        oc_sbuf_printf(b, ": measured %.3g FLOP/s (%.1f us), predicted / measured %.2f</title></circle>", fm,
                       m->nodes[i].median_us, np->time * 1e6 / m->nodes[i].median_us);
    }
    oc_ll_ticks(b, &ll);
    oc_sbuf_puts(b, m ? "\n<text x=\"655\" y=\"314\" text-anchor=\"end\">FLOP/byte (orange: memory-bound, green: "
                        "compute-bound, rings: measured)</text>\n</svg>\n"
                      : "\n<text x=\"655\" y=\"314\" text-anchor=\"end\">FLOP/byte (orange: memory-bound, green: "
                        "compute-bound)</text>\n</svg>\n");
}

static void oc_html_row(struct oc_sbuf *b, const char *k, const char *v) {
    oc_sbuf_puts(b, "<tr><th>");
    oc_html_text(b, k);
    oc_sbuf_puts(b, "</th><td class=\"n\">");
    oc_html_text(b, v);
    oc_sbuf_puts(b, "</td></tr>\n");
}

enum oc_status oc_render_html(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    const struct oc_totals *t = &an->totals;
    struct oc_sbuf b = {0};
    char buf[512], num[48];
    oc_html_open(&b, "onnxcost", "onnxcost", spec->model_path);
    const char *lb = oc_lower_bound_mark(t, false);
    if (*lb) {
        struct oc_sbuf why = {0};
        oc_fmt_incomplete(&why, t);
        oc_sbuf_puts(&b, t->n_uncosted ? "<p class=\"warn\"><b>Incomplete analysis:</b> " : "<p class=\"warn\"><b>Saturated totals:</b> ");
        oc_html_text(&b, why.p ? why.p : "");
        oc_sbuf_free(&why);
        oc_sbuf_puts(&b, ". MACs, FLOPs and memory below are lower bounds (≥).</p>\n");
    }
    oc_sbuf_puts(&b, "<table>\n");
    oc_html_row(&b, "params", oc_fmt_thousands(t->params, num, sizeof num));
    if (spec->sym && spec->sym->macs) {
        oc_html_row(&b, "MACs", oc_poly_format(spec->sym->macs, spec->sym, true, buf, sizeof buf));
    } else {
        snprintf(buf, sizeof buf, "%s%s", lb, oc_fmt_thousands(t->macs, num, sizeof num));
        oc_html_row(&b, "MACs", buf);
    }
    if (spec->sym && spec->sym->flops) {
        oc_html_row(&b, "FLOPs", oc_poly_format(spec->sym->flops, spec->sym, true, buf, sizeof buf));
    } else {
        snprintf(buf, sizeof buf, "%s%s", lb, oc_fmt_thousands(t->flops, num, sizeof num));
        oc_html_row(&b, "FLOPs", buf);
    }
    snprintf(buf, sizeof buf, "%.2f", oc_mib(t->params_bytes));
    oc_html_row(&b, "params size (MiB)", buf);
    snprintf(buf, sizeof buf, "%s%.2f", t->peak_complete && !*lb ? "" : "≥ ",
             oc_mib(t->peak_activation_bytes));
    oc_html_row(&b, "peak activation memory (MiB)", buf);
    snprintf(buf, sizeof buf, "%d / %d", t->n_shaped, t->n_nodes);
    oc_html_row(&b, "nodes with concrete shapes", buf);
    if (t->n_uncosted) {
        snprintf(buf, sizeof buf, "%d", t->n_uncosted);
        oc_html_row(&b, "nodes without a cost", buf);
    }
    if (spec->training) { /* the training step, and the same under each rule the export's signs suggest */
        const struct oc_training *tr = spec->training;
        const char *tlb = tr->complete ? "" : "≥ ";
        char k[96];
        snprintf(k, sizeof k, "training step memory, optimizer %s (MiB)", oc_optimizer_name(tr->optimizer));
        snprintf(buf, sizeof buf, "%s%.2f", tlb, oc_mib(tr->total_bytes));
        oc_html_row(&b, k, buf);
        snprintf(buf, sizeof buf, "%s%.2f%s", tlb, oc_mib(tr->saved_bytes), tr->n_alts ? " as exported" : "");
        oc_html_row(&b, "activations saved for backward (MiB)", buf);
        char n1[48];
        snprintf(buf, sizeof buf, "%s%s", tr->flops_complete ? "" : "≥ ",
                 oc_fmt_thousands(tr->step_flops, n1, sizeof n1));
        oc_html_row(&b, "training FLOPs per step (forward + backward)", buf);
        if (tr->samples > 0 && tr->batch > 0) {
            snprintf(buf, sizeof buf, "%s%s", tr->flops_complete ? "" : "≥ ",
                     oc_fmt_thousands(tr->epoch_flops, n1, sizeof n1));
            snprintf(k, sizeof k, "training FLOPs per epoch of %lld samples", (long long)tr->samples);
            oc_html_row(&b, k, buf);
        }
        struct oc_sbuf why = {0};
        for (int32_t i = 0; i < tr->n_alts; i++) {
            const struct oc_training_alt *a = &tr->alts[i];
            why.n = 0;
            oc_training_alt_text(&why, tr, a);
            snprintf(buf, sizeof buf, "%s%.2f MiB saved, %.2f MiB in all", a->complete ? "" : "≥ ",
                     oc_mib(a->saved_bytes), oc_mib(a->total_bytes));
            oc_html_row(&b, why.p ? why.p : "", buf);
        }
        oc_sbuf_free(&why);
    }
    if (spec->ranges) { /* each total over the box, beside the totals at its upper end */
        struct oc_sbuf cell = {0};
        oc_ranges_html_head(&cell, spec);
        oc_html_row(&b, "over the ranges", cell.p ? cell.p : "");
        const char *label;
        for (int f = 0; cell.n = 0, oc_ranges_html_cell(&cell, spec, f, &label); f++) {
            char k[96];
            snprintf(k, sizeof k, "%s over the ranges", label);
            oc_html_row(&b, k, cell.p ? cell.p : "");
        }
        cell.n = 0;
        if (oc_ranges_largest_text(&cell, spec))
            oc_html_row(&b, "largest value keeping every budget", cell.p ? cell.p : "");
        oc_sbuf_free(&cell);
    }
    if (spec->lint)
        oc_lint_html_rows(&b, spec->lint, oc_html_row);
    if (spec->measured) {
        const struct oc_measured *m = spec->measured;
        if (m->runs) {
            snprintf(buf, sizeof buf, "%.3f median of %d quiet runs of %d", m->run_median_us / 1e3, m->quiet_runs,
                     m->runs);
            oc_html_row(&b, "measured by ONNX Runtime, end to end (ms)", buf);
        }
        snprintf(buf, sizeof buf, "%.3f over %d of %d nodes", m->sum_median_us / 1e3, m->n_matched, t->n_nodes);
        oc_html_row(&b, "measured, sum of node medians (ms)", buf);
        if (m->n_unmatched) {
            snprintf(buf, sizeof buf, "%d (first: %.80s): analyze the graph ONNX Runtime ran (optimized_model_filepath)",
                     m->n_unmatched, m->first_unmatched);
            oc_html_row(&b, "profile nodes not in this model", buf);
        }
    }
    if (spec->gpu) {
        const struct oc_perf *p = spec->gpu->perf;
        snprintf(buf, sizeof buf, "%.3f on %s", p->time * 1e3, p->gpu->name);
        oc_html_row(&b, "predicted latency (ms)", buf);
        if (p->samples_per_s > 0) {
            snprintf(buf, sizeof buf, "%.1f at batch %lld", p->samples_per_s, (long long)p->batch);
            oc_html_row(&b, "predicted throughput (samples/s)", buf);
        }
    }
    oc_sbuf_puts(&b, "</table>\n");

    /* charts: per module with --depth, else per op type */
    int32_t nb = spec->modules ? spec->n_modules : an->n_op_stats;
    struct oc_bar *bars = calloc((size_t)nb + 1, sizeof *bars);
    if (!bars) {
        oc_sbuf_free(&b);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    }
    for (int pass = 0; pass < 2; pass++) {
        int32_t k = 0;
        for (int32_t i = 0; i < nb; i++) {
            const char *label = spec->modules ? spec->modules[i].path : an->op_stats[i].op_type;
            uint64_t v = spec->modules ? (pass ? spec->modules[i].params : spec->modules[i].macs)
                                       : (pass ? an->op_stats[i].params : an->op_stats[i].macs);
            if (spec->modules && spec->modules[i].depth != 1)
                continue; /* top-level modules only: deeper ones would count twice */
            if (v)
                bars[k++] = (struct oc_bar){label, v};
        }
        qsort(bars, (size_t)k, sizeof *bars, oc_bar_cmp);
        const char *what = spec->modules ? "module" : "op type";
        snprintf(buf, sizeof buf, "%s per %s", pass ? "Parameters" : "MACs", what);
        if (k)
            oc_svg_bars(&b, buf, pass ? "bar2" : "bar", bars, k);
    }
    /* op-type shares of MACs as one stacked bar */
    if (t->macs) {
        static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                                              "#b07aa1", "#ff9da7"};
        double x = 0;
        oc_sbuf_puts(&b, "<h2>Share of MACs by op type</h2>\n<svg class=\"chart\" width=\"900\" height=\"70\" "
                         "role=\"img\">\n");
        for (int32_t i = 0, c = 0; i < an->n_op_stats; i++) {
            double w = 880.0 * (double)an->op_stats[i].macs / (double)t->macs;
            if (w <= 0)
                continue;
            oc_sbuf_printf(&b, "<rect x=\"%.1f\" y=\"5\" width=\"%.1f\" height=\"30\" fill=\"%s\"><title>", 10 + x, w,
                           palette[c++ % 8]);
            oc_html_text(&b, an->op_stats[i].op_type);
            oc_sbuf_printf(&b, " %.1f %%</title></rect>", 100.0 * (double)an->op_stats[i].macs / (double)t->macs);
            if (w > 60) {
                oc_sbuf_printf(&b, "<text x=\"%.1f\" y=\"55\">", 10 + x);
                oc_html_text(&b, an->op_stats[i].op_type);
                oc_sbuf_printf(&b, " %.1f %%</text>", 100.0 * (double)an->op_stats[i].macs / (double)t->macs);
            }
            x += w;
        }
        oc_sbuf_puts(&b, "\n</svg>\n");
    }
    free(bars);
    for (int32_t i = 0; spec->sym && i < spec->sym->n_syms; i++)
        oc_svg_formula_lines(&b, spec->sym, i);
    if (spec->gpu)
        oc_svg_roofline(&b, an, spec->gpu->perf, spec->measured);

    /* the rows */
    struct oc_table tb = {0};
    if (spec->modules) {
        oc_sbuf_puts(&b, "<h2>Modules</h2>\n");
        oc_module_table(&tb, spec);
    } else {
        int32_t n;
        oc_sbuf_puts(&b, "<h2>Nodes</h2>\n");
        if (!oc_node_table(&tb, an, spec, OC_NODES_FLOPS | OC_NODES_SYM_SHAPES, &n)) {
            oc_sbuf_free(&b);
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
        }
    }
    oc_table_html(&b, &tb);
    oc_table_free(&tb);
    oc_sbuf_puts(&b, "<p>Generated by onnxcost. MACs: multiply-accumulates of contractions, no bias; "
                     "FLOPs: 2 &times; MACs plus the elementwise work of every other op; sizes in MiB "
                     "(2<sup>20</sup> bytes).</p>\n</body></html>\n");
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
