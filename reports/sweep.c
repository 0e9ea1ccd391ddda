/*
 * sweep.c — the table of `onnxcost sweep`: one row per binding, and with
 * --gpu the predicted time and throughput of each (text, md, csv, json).
 */
#include "report_impl.h"

#include <math.h>
#include <string.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The fit every row is checked against (inference: a sweep has no optimizer). */
static struct oc_fit oc_sweep_fit(const struct oc_sweep_gpu *g) {
    return (struct oc_fit){.reserve = g->reserve, .usable = g->usable};
}

static bool oc_sweep_has_tokens(const struct oc_sweep_row *rows, int32_t n) {
    for (int32_t r = 0; r < n; r++)
        if (rows[r].status == OC_OK && rows[r].perf.tokens_per_s > 0)
            return true;
    return false;
}

static void oc_sweep_table(struct oc_table *t, const struct oc_sweep_row *rows, int32_t n,
                           const struct oc_sweep_dim *dims, int32_t nd, const struct oc_sweep_gpu *gpu, bool csv) {
    bool tokens = gpu && oc_sweep_has_tokens(rows, n);
    for (int32_t c = 0; c < nd; c++)
        oc_table_col(t, dims[c].name, dims[c].name, OC_ALIGN_RIGHT);
    oc_table_col(t, "MACs", "macs", OC_ALIGN_RIGHT);
    oc_table_col(t, "FLOPs", "flops", OC_ALIGN_RIGHT);
    oc_table_col(t, "Params", "params", OC_ALIGN_RIGHT);
    oc_table_col(t, "Activations (MiB)", "activation_bytes", OC_ALIGN_RIGHT);
    oc_table_col(t, "Peak (MiB)", "peak_activation_bytes", OC_ALIGN_RIGHT);
    oc_table_col(t, "Input (MiB)", "input_bytes", OC_ALIGN_RIGHT);
    if (gpu) {
        oc_table_col(t, "Time (ms)", "time_s", OC_ALIGN_RIGHT);
        oc_table_col(t, "Samples/s", "samples_per_s", OC_ALIGN_RIGHT);
        if (tokens)
            oc_table_col(t, "Tokens/s", "tokens_per_s", OC_ALIGN_RIGHT);
        if (gpu->fit) {
            oc_table_col(t, "Memory (MiB)", "need_bytes", OC_ALIGN_RIGHT);
            oc_table_col(t, "Fits", "fits", OC_ALIGN_RIGHT);
        }
    }
    if (csv)
        oc_table_col(t, "", "complete", OC_ALIGN_RIGHT);
    for (int32_t r = 0; r < n; r++) {
        const struct oc_sweep_row *row = &rows[r];
        const struct oc_totals *tt = &row->totals;
        const struct oc_sweep_perf *p = &row->perf;
        oc_table_row(t);
        for (int32_t c = 0; c < nd; c++)
            oc_table_cell(t, "%lld", (long long)row->values[c]);
        if (row->status != OC_OK) {
            oc_table_cell(t, "error");
            continue;
        }
        bool exact = oc_totals_exact(tt);
        const char *lb = csv ? "" : oc_lower_bound_mark(tt, true);
        const char *peak_lb = csv || (tt->peak_complete && !*lb) ? "" : ">= ";
        const char *ub = csv || exact ? "" : "<= ";
        char num[48];
        if (csv) {
            oc_table_cell(t, "%llu", (unsigned long long)tt->macs);
            oc_table_cell(t, "%llu", (unsigned long long)tt->flops);
            oc_table_cell(t, "%llu", (unsigned long long)tt->params);
            oc_table_cell(t, "%llu", (unsigned long long)tt->activation_bytes);
            oc_table_cell(t, "%llu", (unsigned long long)tt->peak_activation_bytes);
            oc_table_cell(t, "%llu", (unsigned long long)tt->input_bytes);
        } else {
            oc_table_cell(t, "%s%s", lb, oc_fmt_thousands(tt->macs, num, sizeof num));
            oc_table_cell(t, "%s%s", lb, oc_fmt_thousands(tt->flops, num, sizeof num));
            oc_table_cell(t, "%s", oc_fmt_thousands(tt->params, num, sizeof num));
            oc_table_cell(t, "%s%.2f", lb, oc_mib(tt->activation_bytes));
            oc_table_cell(t, "%s%.2f", peak_lb, oc_mib(tt->peak_activation_bytes));
            oc_table_cell(t, "%.2f", oc_mib(tt->input_bytes));
        }
        if (!gpu)
            goto complete;
        if (csv)
            oc_table_cell(t, "%.9g", p->time);
        else
            oc_table_cell(t, "%s%.3f", lb, p->time * 1e3);
        if (p->samples_per_s > 0)
            oc_table_cell(t, csv ? "%s%.9g" : "%s%.1f", ub, p->samples_per_s);
        else
            oc_table_cell(t, "%s", csv ? "" : "-");
        if (tokens && p->tokens_per_s > 0)
            oc_table_cell(t, csv ? "%s%.9g" : "%s%.0f", ub, p->tokens_per_s);
        else if (tokens)
            oc_table_cell(t, "%s", csv ? "" : "-");
        if (gpu->fit) {
            bool need_exact = exact && tt->peak_complete;
            if (csv)
                oc_table_cell(t, "%llu", (unsigned long long)p->need);
            else
                oc_table_cell(t, "%s%.2f", need_exact ? "" : ">= ", oc_mib(p->need));
            oc_table_cell(t, "%s", oc_fit_word(p->fit));
        }
    complete:
        if (csv)
            oc_table_cell(t, "%s", exact ? "true" : "false");
    }
}

/* The lines under a text or Markdown table: rows whose values are bounds,
 * and rows that failed. */
static void oc_sweep_notes(struct oc_sbuf *b, const struct oc_sweep_row *rows, int32_t n,
                           const struct oc_sweep_dim *dims, int32_t nd, const struct oc_sweep_gpu *gpu) {
    for (int32_t r = 0; r < n; r++) /* where a row's values are lower bounds, why */
        if (rows[r].status == OC_OK && !oc_totals_exact(&rows[r].totals)) {
            for (int32_t c = 0; c < nd; c++)
                oc_sbuf_printf(b, "%s%s=%lld", c ? ", " : "WARNING: incomplete at ", dims[c].name,
                               (long long)rows[r].values[c]);
            oc_sbuf_puts(b, ": ");
            oc_fmt_incomplete(b, &rows[r].totals);
            oc_sbuf_puts(b, gpu ? "; values marked >= are lower bounds, <= upper bounds\n"
                                : "; values marked >= are lower bounds\n");
        }
    for (int32_t r = 0; r < n; r++)
        if (rows[r].status != OC_OK) {
            for (int32_t c = 0; c < nd; c++)
                oc_sbuf_printf(b, "%s%s=%lld", c ? ", " : "error at ", dims[c].name, (long long)rows[r].values[c]);
            oc_sbuf_printf(b, ": %s\n", rows[r].reason);
        }
}

static void oc_sweep_json(struct oc_sbuf *b, const struct oc_sweep_row *rows, int32_t n,
                          const struct oc_sweep_dim *dims, int32_t nd, const struct oc_sweep_gpu *gpu,
                          const struct oc_perf *setup, const char *path) {
    json_t *doc = json_object(), *jd = json_array(), *jr = json_array();
    for (int32_t c = 0; jd && c < nd; c++)
        json_array_append_new(jd, json_string(dims[c].name));
    for (int32_t r = 0; jr && r < n; r++) {
        const struct oc_sweep_row *row = &rows[r];
        const struct oc_totals *t = &row->totals;
        json_t *o = json_object(), *bind = json_object();
        for (int32_t c = 0; c < nd; c++)
            json_object_set_new(bind, dims[c].name, json_integer(row->values[c]));
        json_object_set_new(o, "bindings", bind);
        if (row->status != OC_OK) {
            json_object_set_new(o, "error", json_string(row->reason));
        } else {
            json_object_set_new(o, "macs", json_integer((json_int_t)t->macs));
            json_object_set_new(o, "flops", json_integer((json_int_t)t->flops));
            json_object_set_new(o, "params", json_integer((json_int_t)t->params));
            json_object_set_new(o, "activation_bytes", json_integer((json_int_t)t->activation_bytes));
            json_object_set_new(o, "peak_activation_bytes", json_integer((json_int_t)t->peak_activation_bytes));
            json_object_set_new(o, "input_bytes", json_integer((json_int_t)t->input_bytes));
            /* false: macs, flops and the activation sizes are lower bounds */
            json_object_set_new(o, "complete", json_boolean(oc_totals_exact(t)));
            json_object_set_new(o, "nodes_without_cost", json_integer(t->n_uncosted));
            if (gpu) {
                const struct oc_sweep_perf *p = &row->perf;
                json_t *g = json_object();
                json_object_set_new(g, "time_s", json_real(p->time));
                json_object_set_new(g, "samples_per_s", p->samples_per_s > 0 ? json_real(p->samples_per_s) : json_null());
                json_object_set_new(g, "tokens_per_s", p->tokens_per_s > 0 ? json_real(p->tokens_per_s) : json_null());
                json_object_set_new(g, "nodes_not_timed", json_integer(p->n_untimed));
                if (gpu->fit) {
                    json_object_set_new(g, "need_bytes", json_integer((json_int_t)p->need));
                    json_object_set_new(g, "fits", oc_fit_json(p->fit)); /* null: maybe */
                }
                json_object_set_new(o, "gpu", g);
            }
        }
        json_array_append_new(jr, o);
    }
    json_object_set_new(doc, "schema", json_string("onnxcost-sweep/1"));
    json_object_set_new(doc, "model", json_string(path ? path : ""));
    if (gpu) {
        json_t *g = oc_gpu_json_setup(setup);
        if (g && gpu->fit) {
            struct oc_fit f = oc_sweep_fit(gpu);
            json_object_set_new(g, "fit", oc_gpu_json_fit_setup(&f));
        }
        json_object_set_new(doc, "gpu", g);
    }
    json_object_set_new(doc, "dims", jd);
    json_object_set_new(doc, "rows", jr);
    oc_sbuf_json(b, doc);
}

/* One chart of the sweep's figure f against the first swept dim, log-log,
   a line per binding of the other dims (up to 24: 8 colours, solid, dashed
   and dotted; past that the heading says how many are drawn); with a
   capacity (> 0),
   a dashed line at it and each point past it drawn hollow. Every point
   carries its values (data-x, data-y) and the binding it is. */
enum { OC_SWEEP_FIG_MACS, OC_SWEEP_FIG_FLOPS, OC_SWEEP_FIG_PEAK, OC_SWEEP_FIG_NEED, OC_SWEEP_FIG_TIME, OC_SWEEP_FIG_RATE };

static double oc_sweep_figure(const struct oc_sweep_row *r, int f) {
    switch (f) {
    case OC_SWEEP_FIG_MACS: return (double)r->totals.macs;
    case OC_SWEEP_FIG_FLOPS: return (double)r->totals.flops;
    case OC_SWEEP_FIG_PEAK: return oc_mib(r->totals.peak_activation_bytes);
    case OC_SWEEP_FIG_NEED: return oc_mib(r->perf.need);
    case OC_SWEEP_FIG_TIME: return r->perf.time * 1e3;
    default: return r->perf.samples_per_s;
    }
}

static void oc_sweep_chart(struct oc_sbuf *b, const struct oc_sweep_row *rows, int32_t n,
                           const struct oc_sweep_dim *dims, int32_t nd, int f, const char *title, double capacity) {
    static const char *const color[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                        "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
    int32_t per = dims[0].n_values, n_series = per ? n / per : 0; /* the first dim varies slowest */
    double ymin = 1e300, ymax = 0;
    for (int32_t r = 0; r < n; r++) {
        double v = oc_sweep_figure(&rows[r], f);
        if (rows[r].status == OC_OK && v > 0) {
            ymin = v < ymin ? v : ymin;
            ymax = v > ymax ? v : ymax;
        }
    }
    if (capacity > 0) {
        ymin = capacity < ymin ? capacity : ymin;
        ymax = capacity > ymax ? capacity : ymax;
    }
    if (ymax <= 0 || per < 1)
        return;
    int64_t x0 = dims[0].values[0], x1 = dims[0].values[0];
    for (int32_t k = 0; k < per; k++) {
        x0 = dims[0].values[k] < x0 ? dims[0].values[k] : x0;
        x1 = dims[0].values[k] > x1 ? dims[0].values[k] : x1;
    }
    struct oc_loglog ll = {.x0 = floor(log10((double)x0)), .x1 = ceil(log10((double)x1)), .y0 = floor(log10(ymin)),
                           .y1 = ceil(log10(ymax))};
    if (ll.x1 <= ll.x0)
        ll.x1 = ll.x0 + 1;
    if (ll.y1 <= ll.y0)
        ll.y1 = ll.y0 + 1;
    enum { OC_SWEEP_MAX_SERIES = 24 };
    static const char *const dash[3] = {"", " stroke-dasharray=\"8 4\"", " stroke-dasharray=\"2 3\""};
    oc_sbuf_printf(b, "<h2>%s against %s, log-log", title, dims[0].name);
    if (n_series > OC_SWEEP_MAX_SERIES) /* never dropped without a word: the table has them all */
        oc_sbuf_printf(b, " (the first %d of %d lines, one per binding of the other dims; the table below has "
                          "every row)",
                       OC_SWEEP_MAX_SERIES, (int)n_series);
    oc_sbuf_puts(b, "</h2>\n");
    oc_ll_open(b);
    for (int32_t s = 0; s < n_series && s < OC_SWEEP_MAX_SERIES; s++) {
        const char *c = color[s % 8];
        struct oc_sbuf label = {0};
        for (int32_t k = 1; k < nd; k++)
            oc_sbuf_printf(&label, "%s%s=%lld", k > 1 ? ", " : "", dims[k].name,
                           (long long)rows[s].values[k]);
        oc_sbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s data-series=\"%d\" points=\"", c,
                       dash[s / 8], (int)s);
        int32_t drawn = 0;
        for (int32_t k = 0; k < per; k++) {
            const struct oc_sweep_row *r = &rows[k * n_series + s];
            double v = oc_sweep_figure(r, f);
            if (r->status == OC_OK && v > 0)
                oc_sbuf_printf(b, "%s%.1f,%.1f", drawn++ ? " " : "", oc_ll_x(&ll, (double)r->values[0]),
                               oc_ll_y(&ll, v));
        }
        oc_sbuf_puts(b, "\"/>\n");
        for (int32_t k = 0; k < per; k++) {
            const struct oc_sweep_row *r = &rows[k * n_series + s];
            double v = oc_sweep_figure(r, f);
            if (r->status != OC_OK || !(v > 0))
                continue;
            bool over = capacity > 0 && v > capacity;
            oc_sbuf_printf(b, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" stroke=\"%s\" "
                              "data-x=\"%lld\" data-y=\"%.9g\" data-series=\"%d\"><title>%s=%lld%s%s: %.6g</title></circle>\n",
                           over ? " over" : "", oc_ll_x(&ll, (double)r->values[0]), oc_ll_y(&ll, v),
                           over ? "white" : c, c, (long long)r->values[0], v, s, dims[0].name,
                           (long long)r->values[0], label.n ? ", " : "", label.p ? label.p : "", v);
        }
        if (label.n) /* the legend in two columns of 12 */
            oc_sbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s%s</text>\n", s < 12 ? 70 : 360,
                           34.0 + 14.0 * (s % 12), c, s >= 8 ? (s >= 16 ? "\xC2\xB7\xC2\xB7 " : "-- ") : "",
                           label.p);
        oc_sbuf_free(&label);
    }
    if (capacity > 0) {
        double y = oc_ll_y(&ll, capacity);
        oc_sbuf_printf(b, "<line class=\"capacity\" x1=\"60\" x2=\"660\" y1=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#e15759\" stroke-dasharray=\"6 4\" data-y=\"%.9g\"/>"
                          "<text x=\"655\" y=\"%.1f\" fill=\"#e15759\" text-anchor=\"end\">device memory less the "
                          "reserve</text>\n",
                       y, y, capacity, y - 4);
    }
    oc_ll_ticks(b, &ll);
    oc_sbuf_puts(b, "\n</svg>\n");
}

static void oc_sweep_html(struct oc_sbuf *b, const struct oc_sweep_row *rows, int32_t n, const struct oc_sweep_dim *dims,
                          int32_t nd, const struct oc_sweep_gpu *gpu, const struct oc_perf *setup,
                          const struct oc_report_spec *spec) {
    const char *path = spec->model_path ? spec->model_path : "";
    oc_html_open(b, "onnxcost sweep", "Sweep", path);
    if (gpu) {
        struct oc_sbuf head = {0};
        oc_gpu_text_header(&head, setup, spec->gpu ? spec->gpu->spec_source : NULL);
        if (gpu->fit) {
            struct oc_fit fi = oc_sweep_fit(gpu);
            oc_gpu_text_fit_header(&head, &fi, gpu->gpu);
        }
        oc_sbuf_put(&head, "", 1);
        oc_html_pre(b, head.oom ? "" : head.p);
        if (head.oom)
            b->oom = true;
        oc_sbuf_free(&head);
    }
    struct oc_table t = {0};
    oc_sweep_table(&t, rows, n, dims, nd, gpu, false);
    oc_table_draw(b, &t, OC_FORMAT_HTML);
    oc_table_free(&t);
    struct oc_sbuf notes = {0}; /* the rows that are lower bounds or errors, and why, as text and Markdown say */
    oc_sweep_notes(&notes, rows, n, dims, nd, gpu);
    if (notes.n) {
        oc_sbuf_put(&notes, "", 1);
        oc_html_pre(b, notes.oom ? "" : notes.p);
    }
    if (notes.oom)
        b->oom = true;
    oc_sbuf_free(&notes);
    oc_sweep_chart(b, rows, n, dims, nd, OC_SWEEP_FIG_MACS, "MACs", 0);
    oc_sweep_chart(b, rows, n, dims, nd, OC_SWEEP_FIG_FLOPS, "FLOPs", 0);
    if (gpu && gpu->fit)
        oc_sweep_chart(b, rows, n, dims, nd, OC_SWEEP_FIG_NEED, "Memory needed (MiB)",
                       gpu->usable ? oc_mib(gpu->usable) : 0);
    else
        oc_sweep_chart(b, rows, n, dims, nd, OC_SWEEP_FIG_PEAK, "Peak activation memory (MiB)", 0);
    if (gpu) {
        oc_sweep_chart(b, rows, n, dims, nd, OC_SWEEP_FIG_TIME, "Predicted time (ms)", 0);
        oc_sweep_chart(b, rows, n, dims, nd, OC_SWEEP_FIG_RATE, "Predicted samples/s", 0);
    }
    oc_sbuf_puts(b, "<p>Generated by onnxcost sweep; the figures: docs/COSTS.md and docs/MODEL.md.</p>\n</body></html>\n");
}

enum oc_status oc_report_sweep(const struct oc_sweep_row *rows, int32_t n, const struct oc_sweep_dim *dims,
                               int32_t n_dims, const struct oc_sweep_gpu *gpu, const struct oc_report_spec *spec,
                               struct oc_diag *d) {
    struct oc_sbuf b = {0};
    struct oc_perf setup = {0}; /* what the header lines of a prediction read */
    if (gpu) {
        setup.gpu = gpu->gpu;
        setup.opts = gpu->opts;
    }
    if (spec->format == OC_FORMAT_JSON) {
        oc_sweep_json(&b, rows, n, dims, n_dims, gpu, &setup, spec->model_path);
    } else if (spec->format == OC_FORMAT_HTML) {
        oc_sweep_html(&b, rows, n, dims, n_dims, gpu, &setup, spec);
    } else {
        bool md = spec->format == OC_FORMAT_MD, csv = spec->format == OC_FORMAT_CSV;
        struct oc_table t = {0};
        oc_sweep_table(&t, rows, n, dims, n_dims, gpu, csv);
        if (!csv && gpu) {
            oc_gpu_text_header(&b, &setup, spec->gpu ? spec->gpu->spec_source : NULL);
            if (gpu->fit) {
                struct oc_fit f = oc_sweep_fit(gpu);
                oc_gpu_text_fit_header(&b, &f, gpu->gpu);
            }
            oc_sbuf_puts(&b, md ? "\n" : "");
        }
        oc_table_draw(&b, &t, spec->format);
        oc_table_free(&t);
        if (!csv) {
            oc_sbuf_puts(&b, md ? "\n" : "");
            oc_sweep_notes(&b, rows, n, dims, n_dims, gpu);
        }
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
