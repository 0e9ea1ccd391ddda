/*
 * compare.c — side-by-side totals of several models (onnxcost compare):
 * one row per model, the best value of each column marked "*", and each
 * value's ratio to the first model's. With --gpu: predicted time and
 * throughput per model, and with --fit whether it fits and the largest
 * batch that does. With ranges: each total as [min, max] over the box,
 * ranked and compared by its maximum.
 */
#include "report_impl.h"
#include "../views/range.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum oc_cmp_kind { OC_CMP_COUNT_V, OC_CMP_MIB, OC_CMP_MS, OC_CMP_RATE, OC_CMP_BATCH };

enum {
    OC_CMP_PARAMS,
    OC_CMP_MACS,
    OC_CMP_FLOPS,
    OC_CMP_PARAMS_BYTES,
    OC_CMP_PEAK,
    OC_CMP_TRAIN,
    OC_CMP_TIME,
    OC_CMP_SAMPLES,
    OC_CMP_MAX_BATCH,
    OC_CMP_NCOLS
};

static const struct {
    const char *key, *header;
    enum oc_cmp_kind kind;
    bool larger_better;
} oc_cmp_cols[OC_CMP_NCOLS] = {
    {"params", "Params", OC_CMP_COUNT_V, false},
    {"macs", "MACs", OC_CMP_COUNT_V, false},
    {"flops", "FLOPs", OC_CMP_COUNT_V, false},
    {"params_bytes", "Params (MiB)", OC_CMP_MIB, false},
    {"peak_activation_bytes", "Peak act. (MiB)", OC_CMP_MIB, false},
    {"training_bytes", "Training (MiB)", OC_CMP_MIB, false},
    {"time_s", "Time (ms)", OC_CMP_MS, false},
    {"samples_per_s", "Samples/s", OC_CMP_RATE, true},
    {"max_batch", "Max batch", OC_CMP_BATCH, true},
};

/* A column's value: integers exactly, the predictions as doubles; over
 * ranges u is the maximum over the box and lo the minimum. */
struct oc_cmp_value {
    bool known;
    uint64_t u;
    double x;
    bool ranged;
    uint64_t lo;
};

/* The range figure of a static column, or -1. */
static int oc_cmp_range_fig(int c) {
    switch (c) {
    case OC_CMP_PARAMS:
        return OC_RF_PARAMS;
    case OC_CMP_MACS:
        return OC_RF_MACS;
    case OC_CMP_FLOPS:
        return OC_RF_FLOPS;
    case OC_CMP_PARAMS_BYTES:
        return OC_RF_PARAMS_BYTES;
    case OC_CMP_PEAK:
        return OC_RF_PEAK;
    default:
        return -1;
    }
}

/* The totals a model's marks come from: over ranges, every analysis made. */
static const struct oc_totals *oc_cmp_totals(const struct oc_compare_entry *e) {
    return e->range ? &e->range->worst : &e->an->totals;
}

static struct oc_cmp_value oc_cmp_value(const struct oc_compare_entry *e, int c) {
    const struct oc_totals *t = &e->an->totals;
    int f = oc_cmp_range_fig(c);
    if (e->range && f >= 0) {
        if (e->range->method == OC_RANGE_UNBOUNDED)
            return (struct oc_cmp_value){.known = false, .u = 0, .x = 0, .ranged = true, .lo = 0};
        const struct oc_range_figure *g = &e->range->fig[f];
        return (struct oc_cmp_value){.known = true, .u = g->max, .x = 0, .ranged = true, .lo = g->min};
    }
    switch (c) {
    case OC_CMP_PARAMS:
        return (struct oc_cmp_value){.known = true, .u = t->params, .x = 0};
    case OC_CMP_MACS:
        return (struct oc_cmp_value){.known = true, .u = t->macs, .x = 0};
    case OC_CMP_FLOPS:
        return (struct oc_cmp_value){.known = true, .u = t->flops, .x = 0};
    case OC_CMP_PARAMS_BYTES:
        return (struct oc_cmp_value){.known = true, .u = t->params_bytes, .x = 0};
    case OC_CMP_PEAK:
        return (struct oc_cmp_value){.known = true, .u = t->peak_activation_bytes, .x = 0};
    case OC_CMP_TRAIN:
        return (struct oc_cmp_value){.known = true, .u = e->training ? e->training->total_bytes : 0, .x = 0};
    case OC_CMP_TIME:
        return (struct oc_cmp_value){.known = e->perf != NULL, .u = 0, .x = e->perf ? e->perf->time : 0};
    case OC_CMP_SAMPLES:
        return (struct oc_cmp_value){.known = e->perf && e->perf->samples_per_s > 0,
                                     .u = 0,
                                     .x = e->perf ? e->perf->samples_per_s : 0};
    default:
        return (struct oc_cmp_value){.known = e->fit && e->fit->max_batch >= 0,
                                     .u = e->fit && e->fit->max_batch > 0 ? (uint64_t)e->fit->max_batch : 0,
                                     .x = 0};
    }
}

static double oc_cmp_num(const struct oc_cmp_value *v, int c) {
    return oc_cmp_cols[c].kind == OC_CMP_MS || oc_cmp_cols[c].kind == OC_CMP_RATE ? v->x : (double)v->u;
}

/* What a value is: exact, a lower bound, an upper bound, or neither
 * (both: a capped search over lower-bound needs). */
enum oc_cmp_bound { OC_CMP_EXACT, OC_CMP_LOWER, OC_CMP_UPPER, OC_CMP_UNKNOWN };

/* Column c of a model: totals of an incomplete analysis (oc_totals_exact)
 * are lower bounds, so its time is one too, and its throughput and largest
 * batch upper bounds. */
static enum oc_cmp_bound oc_cmp_bound_of(const struct oc_compare_entry *e, int c) {
    const struct oc_totals *t = oc_cmp_totals(e);
    bool saturated = (t->flags & OC_COST_OVERFLOW) != 0, exact = oc_totals_exact(t);
    bool lower = false, upper = false;
    switch (c) {
    case OC_CMP_PARAMS:
    case OC_CMP_PARAMS_BYTES:
        lower = saturated;
        break;
    case OC_CMP_PEAK:
        lower = !exact || !t->peak_complete;
        break;
    case OC_CMP_TRAIN:
        lower = !exact || (e->training && !e->training->complete);
        break;
    case OC_CMP_SAMPLES:
        upper = !exact;
        break;
    case OC_CMP_MAX_BATCH:
        lower = e->fit && e->fit->max_batch_capped;
        upper = e->fit && !e->fit->need_exact;
        break;
    default:
        lower = !exact;
    }
    return lower && upper ? OC_CMP_UNKNOWN : lower ? OC_CMP_LOWER : upper ? OC_CMP_UPPER : OC_CMP_EXACT;
}

static const char *oc_cmp_mark(enum oc_cmp_bound k, bool md) {
    return k == OC_CMP_UNKNOWN ? "~ " : k == OC_CMP_LOWER ? (md ? "≥ " : ">= ") : k == OC_CMP_UPPER ? (md ? "≤ " : "<= ") : "";
}

static const char *oc_cmp_bound(const struct oc_compare_entry *e, int c, bool md) {
    return oc_cmp_mark(oc_cmp_bound_of(e, c), md);
}

/* What v / v0 is, from what each is: a lower bound over an exact value or an
 * upper bound is a lower bound, and so on; two bounds of one kind say
 * nothing of the ratio. */
static enum oc_cmp_bound oc_cmp_ratio_bound(enum oc_cmp_bound v, enum oc_cmp_bound v0) {
    if (v == OC_CMP_UNKNOWN || v0 == OC_CMP_UNKNOWN || (v != OC_CMP_EXACT && v == v0))
        return OC_CMP_UNKNOWN;
    if (v == OC_CMP_LOWER || v0 == OC_CMP_UPPER)
        return OC_CMP_LOWER;
    return v == OC_CMP_UPPER || v0 == OC_CMP_LOWER ? OC_CMP_UPPER : OC_CMP_EXACT;
}

/* Whether a bound of model e in column c leaves room to beat x: a lower
 * bound below it where smaller wins, an upper bound above it where larger
 * wins, and a value known to be neither always. */
static bool oc_cmp_may_beat(const struct oc_compare_entry *e, int c, double x) {
    struct oc_cmp_value v = oc_cmp_value(e, c);
    enum oc_cmp_bound k = oc_cmp_bound_of(e, c);
    if (!v.known || k == OC_CMP_EXACT)
        return false;
    if (k == OC_CMP_UNKNOWN)
        return true;
    if (oc_cmp_cols[c].larger_better)
        return k == OC_CMP_LOWER || oc_cmp_num(&v, c) > x;
    return k == OC_CMP_UPPER || oc_cmp_num(&v, c) < x;
}

/* The columns a comparison shows, in order; returns how many. */
static int oc_cmp_columns(const struct oc_compare_entry *e, int cols[OC_CMP_NCOLS]) {
    int n = 0;
    for (int c = 0; c <= OC_CMP_PEAK; c++)
        cols[n++] = c;
    if (e[0].training)
        cols[n++] = OC_CMP_TRAIN;
    if (e[0].perf) {
        cols[n++] = OC_CMP_TIME;
        cols[n++] = OC_CMP_SAMPLES;
    }
    if (e[0].fit)
        cols[n++] = OC_CMP_MAX_BATCH;
    return n;
}

static void oc_cmp_json(struct oc_sbuf *b, const struct oc_compare_entry *e, int32_t n, const int *cols, int ncol,
                        const struct oc_report_spec *spec) {
    json_t *doc = json_object(), *models = json_array();
    for (int32_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "path", json_string(e[i].path));
        for (int k = 0; k < ncol; k++) {
            int c = cols[k];
            if (c >= OC_CMP_TIME)
                continue; /* under "gpu" */
            struct oc_cmp_value v = oc_cmp_value(&e[i], c), v0 = oc_cmp_value(&e[0], c);
            char key[64];
            enum oc_cmp_bound rb = oc_cmp_ratio_bound(oc_cmp_bound_of(&e[i], c), oc_cmp_bound_of(&e[0], c));
            json_object_set_new(o, oc_cmp_cols[c].key, v.known ? json_integer((json_int_t)v.u) : json_null());
            snprintf(key, sizeof key, "%s_ratio", oc_cmp_cols[c].key);
            json_object_set_new(o, key, v.known && v0.known && v0.u && rb != OC_CMP_UNKNOWN
                                            ? json_real((double)v.u / (double)v0.u)
                                            : json_null());
            if (rb == OC_CMP_LOWER || rb == OC_CMP_UPPER) { /* the ratio of a bound is a bound */
                snprintf(key, sizeof key, "%s_ratio_bound", oc_cmp_cols[c].key);
                json_object_set_new(o, key, json_string(rb == OC_CMP_LOWER ? "lower" : "upper"));
            }
        }
        /* false: macs, flops and memory are lower bounds (nodes without a cost) */
        const struct oc_totals *tt = oc_cmp_totals(&e[i]);
        bool bounded = !e[i].range || e[i].range->method != OC_RANGE_UNBOUNDED;
        json_object_set_new(o, "complete", json_boolean(bounded && oc_totals_exact(tt)));
        json_object_set_new(o, "nodes_without_cost", json_integer(tt->n_uncosted));
        if (e[i].training) /* training_bytes above is as exported; here under the rules its signs suggest */
            json_object_set_new(o, "training_with_signs", oc_training_alts_json(e[i].training));
        if (e[i].range) { /* the columns above are the maxima; here each figure's [min, max] and where */
            struct oc_report_spec rs = {.ranges = e[i].range};
            json_object_set_new(o, "ranges", oc_ranges_json(&rs));
        }
        if (e[i].perf) {
            const struct oc_perf *p = e[i].perf;
            json_t *g = json_object();
            json_object_set_new(g, "time_s", json_real(p->time));
            json_object_set_new(g, "samples_per_s", p->samples_per_s > 0 ? json_real(p->samples_per_s) : json_null());
            json_object_set_new(g, "tokens_per_s", p->tokens_per_s > 0 ? json_real(p->tokens_per_s) : json_null());
            json_object_set_new(g, "batch", p->batch >= 0 ? json_integer(p->batch) : json_null());
            json_object_set_new(g, "nodes_not_timed", json_integer(p->n_unknown));
            if (e[i].fit) {
                const struct oc_fit *f = e[i].fit;
                json_object_set_new(g, "need_bytes", json_integer((json_int_t)f->need));
                json_object_set_new(g, "fits", oc_fit_json(oc_fit_verdict(f->need, f->need_exact, f->usable)));
                json_object_set_new(g, "need_exact", json_boolean(f->need_exact));
                json_object_set_new(g, "max_batch", f->max_batch >= 0 ? json_integer(f->max_batch) : json_null());
                json_object_set_new(g, "max_batch_capped", json_boolean(f->max_batch_capped));
            }
            json_object_set_new(o, "gpu", g);
        }
        json_array_append_new(models, o);
    }
    json_object_set_new(doc, "schema", json_string("onnxcost-compare/1"));
    if (e[0].perf) {
        json_t *g = oc_gpu_json_setup(e[0].perf);
        if (g && e[0].fit)
            json_object_set_new(g, "fit", oc_gpu_json_fit_setup(e[0].fit));
        if (g && spec->gpu && spec->gpu->spec_source)
            json_object_set_new(g, "spec_file", json_string(spec->gpu->spec_source));
        json_object_set_new(doc, "gpu", g);
    }
    json_object_set_new(doc, "models", models);
    oc_sbuf_json(b, doc);
}

/* A model's path in a note: in Markdown, its '|' escaped. */
static void oc_cmp_path(struct oc_sbuf *b, const char *path, bool md) {
    for (const char *p = path; *p; p++)
        oc_sbuf_puts(b, md && *p == '|' ? "\\|" : (char[2]){*p, 0});
}

/* html: the text in b as a <pre> block (escaped), then b emptied */
static void oc_cmp_html_pre(struct oc_sbuf *page, struct oc_sbuf *b) {
    oc_sbuf_put(b, "", 1);
    if (b->oom)
        page->oom = true;
    else
        oc_html_pre(page, b->p);
    oc_sbuf_free(b);
    *b = (struct oc_sbuf){0};
}

enum oc_status oc_report_compare(const struct oc_compare_entry *e, int32_t n, const struct oc_report_spec *spec,
                                 struct oc_diag *d) {
    int cols[OC_CMP_NCOLS];
    int ncol = oc_cmp_columns(e, cols);
    struct oc_cmp_value best[OC_CMP_NCOLS];
    for (int k = 0; k < ncol; k++) { /* a bound is never the best */
        int c = cols[k];
        best[k] = (struct oc_cmp_value){.known = false, .u = 0, .x = 0};
        for (int32_t i = 0; i < n; i++) {
            struct oc_cmp_value v = oc_cmp_value(&e[i], c);
            if (!v.known || *oc_cmp_bound(&e[i], c, false))
                continue;
            bool better = oc_cmp_cols[c].larger_better ? oc_cmp_num(&v, c) > oc_cmp_num(&best[k], c)
                                                       : oc_cmp_num(&v, c) < oc_cmp_num(&best[k], c) ||
                                                             (oc_cmp_num(&v, c) == oc_cmp_num(&best[k], c) && v.u < best[k].u);
            if (!best[k].known || better)
                best[k] = v;
        }
        for (int32_t i = 0; best[k].known && i < n; i++)
            if (oc_cmp_may_beat(&e[i], c, oc_cmp_num(&best[k], c)))
                best[k].known = false;
    }
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON) {
        oc_cmp_json(&b, e, n, cols, ncol, spec);
        goto flush;
    }
    bool md = spec->format == OC_FORMAT_MD, csv = spec->format == OC_FORMAT_CSV;
    bool html = spec->format == OC_FORMAT_HTML;
    struct oc_sbuf page = {0}; /* html: the page; b then holds the text around the table */
    if (html) {
        char subject[48];
        snprintf(subject, sizeof subject, "%d models", n);
        oc_html_open(&page, "onnxcost compare", "Comparison", subject);
    }
    struct oc_table t = {0};
    oc_table_col(&t, "Model", "model", OC_ALIGN_LEFT);
    char min_keys[OC_CMP_NCOLS][48];
    for (int k = 0; k < ncol; k++) {
        if (csv && e[0].range && oc_cmp_range_fig(cols[k]) >= 0) { /* the minimum first, then the maximum */
            snprintf(min_keys[k], sizeof min_keys[k], "%s_min", oc_cmp_cols[cols[k]].key);
            oc_table_col(&t, "", min_keys[k], OC_ALIGN_RIGHT);
        }
        oc_table_col(&t, oc_cmp_cols[cols[k]].header, oc_cmp_cols[cols[k]].key, OC_ALIGN_RIGHT);
    }
    if (e[0].fit)
        oc_table_col(&t, "Fits", "fits", OC_ALIGN_RIGHT);
    if (csv)
        oc_table_col(&t, "", "complete", OC_ALIGN_RIGHT);
    for (int32_t i = 0; i < n; i++) {
        oc_table_row(&t);
        oc_table_cell(&t, "%s", e[i].path);
        for (int k = 0; k < ncol; k++) {
            int c = cols[k];
            struct oc_cmp_value v = oc_cmp_value(&e[i], c), v0 = oc_cmp_value(&e[0], c);
            char num[112], lo[48], hi[48];
            if (csv && v.ranged) {
                if (v.known)
                    oc_table_cell(&t, "%llu", (unsigned long long)v.lo);
                else
                    oc_table_cell(&t, "%s", "");
            }
            if (!v.known) {
                oc_table_cell(&t, "%s", csv ? "" : v.ranged ? "not bounded" : "-");
                continue;
            }
            switch (oc_cmp_cols[c].kind) {
            case OC_CMP_COUNT_V:
                if (csv)
                    snprintf(num, sizeof num, "%llu", (unsigned long long)v.u);
                else if (v.ranged && v.lo != v.u)
                    snprintf(num, sizeof num, "[%s, %s]", oc_fmt_thousands(v.lo, lo, sizeof lo),
                             oc_fmt_thousands(v.u, hi, sizeof hi));
                else
                    oc_fmt_thousands(v.u, num, sizeof num);
                break;
            case OC_CMP_MIB:
                if (csv)
                    snprintf(num, sizeof num, "%llu", (unsigned long long)v.u);
                else if (v.ranged && v.lo != v.u)
                    snprintf(num, sizeof num, "[%.2f, %.2f]", oc_mib(v.lo), oc_mib(v.u));
                else
                    snprintf(num, sizeof num, "%.2f", oc_mib(v.u));
                break;
            case OC_CMP_MS:
                snprintf(num, sizeof num, csv ? "%.9g" : "%.3f", csv ? v.x : v.x * 1e3);
                break;
            case OC_CMP_RATE:
                snprintf(num, sizeof num, csv ? "%.9g" : "%.1f", v.x);
                break;
            case OC_CMP_BATCH:
                snprintf(num, sizeof num, "%llu", (unsigned long long)v.u);
                break;
            }
            if (csv) {
                oc_table_cell(&t, "%s", num);
                continue;
            }
            const char *lb = oc_cmp_bound(&e[i], c, md);
            bool is_best = !*lb && best[k].known && oc_cmp_num(&v, c) == oc_cmp_num(&best[k], c) && v.u == best[k].u;
            double x0 = oc_cmp_num(&v0, c);
            enum oc_cmp_bound rb = oc_cmp_ratio_bound(oc_cmp_bound_of(&e[i], c), oc_cmp_bound_of(&e[0], c));
            if (i == 0 || !v0.known || x0 == 0)
                oc_table_cell(&t, "%s%s%s", lb, num, is_best && n > 1 ? " *" : "");
            else if (rb == OC_CMP_UNKNOWN) /* two lower bounds: no ratio */
                oc_table_cell(&t, "%s%s (?x)%s", lb, num, is_best ? " *" : "");
            else
                oc_table_cell(&t, "%s%s (%s%.2fx)%s", lb, num, oc_cmp_mark(rb, md), oc_cmp_num(&v, c) / x0,
                              is_best ? " *" : "");
        }
        if (e[0].fit) {
            const struct oc_fit *f = e[i].fit;
            oc_table_cell(&t, "%s", !f ? "" : oc_fit_word(oc_fit_verdict(f->need, f->need_exact, f->usable)));
        }
        if (csv)
            oc_table_cell(&t, "%s",
                          oc_totals_exact(oc_cmp_totals(&e[i])) &&
                                  (!e[i].range || e[i].range->method != OC_RANGE_UNBOUNDED)
                              ? "true"
                              : "false");
    }
    if (csv) {
        oc_table_draw(&b, &t, spec->format);
        oc_table_free(&t);
        goto flush;
    }
    if (e[0].perf) {
        oc_gpu_text_header(&b, e[0].perf, spec->gpu ? spec->gpu->spec_source : NULL);
        if (e[0].fit)
            oc_gpu_text_fit_header(&b, e[0].fit, e[0].perf->gpu);
        oc_sbuf_puts(&b, md ? "\n" : "");
    }
    if (html) {
        oc_cmp_html_pre(&page, &b);
        oc_table_draw(&page, &t, spec->format);
    } else {
        oc_table_draw(&b, &t, spec->format);
    }
    oc_table_free(&t);
    oc_sbuf_puts(&b, md ? "\n" : "");
    if (e[0].range) {
        const struct oc_range_result *r = e[0].range;
        oc_sbuf_puts(&b, "Over the ranges ");
        for (int32_t k = 0; k < r->n; k++)
            oc_sbuf_printf(&b, "%s%s %lld..%lld", k ? ", " : "", r->dims[k].name, (long long)r->dims[k].lo,
                           (long long)r->dims[k].hi);
        oc_sbuf_puts(&b, ": [min, max] (one value where they are equal); * and (Nx) by the maximum\n");
    }
    oc_sbuf_puts(&b, e[0].perf ? "* = best in its column (smallest; largest for Samples/s and Max batch); (Nx) = ratio "
                                 "to the first model\n"
                               : "* = smallest in its column; (Nx) = ratio to the first model\n");
    for (int32_t i = 0; i < n; i++) { /* training memory is as exported: the figure each sign suggests */
        const struct oc_training *tr = e[i].training;
        for (int32_t k = 0; tr && k < tr->n_alts; k++) {
            oc_sbuf_puts(&b, md ? (k ? "> " : "\n> **Training memory:** ") : "NOTE: training memory of ");
            oc_cmp_path(&b, e[i].path, md);
            oc_sbuf_printf(&b, " is %s%.2f MiB ", tr->alts[k].complete ? "" : md ? "≥ " : ">= ",
                           oc_mib(tr->alts[k].total_bytes));
            oc_training_alt_text(&b, tr, &tr->alts[k]);
            oc_sbuf_puts(&b, "\n");
        }
    }
    bool any_bound = false;
    for (int32_t i = 0; i < n; i++) {
        if (e[i].range && e[i].range->method == OC_RANGE_UNBOUNDED) {
            oc_sbuf_puts(&b, md ? "\n> **Not bounded:** " : "WARNING: not bounded: ");
            oc_cmp_path(&b, e[i].path, md);
            oc_sbuf_printf(&b, ": its costs are not proven monotone (%s) and the box has %llu bindings, more than "
                               "--range-points\n",
                           e[i].range->why, (unsigned long long)e[i].range->points);
            continue;
        }
        const struct oc_totals *tt = oc_cmp_totals(&e[i]);
        if (oc_totals_exact(tt))
            continue;
        oc_sbuf_puts(&b, md ? "\n> **Incomplete:** " : "WARNING: incomplete: ");
        oc_cmp_path(&b, e[i].path, md);
        oc_sbuf_puts(&b, ": ");
        oc_fmt_incomplete(&b, tt);
        oc_sbuf_puts(&b, md ? "; its values marked ≥ are lower bounds" : "; its values marked >= are lower bounds");
        oc_sbuf_puts(&b, !e[0].perf ? "\n" : md ? ", ≤ upper bounds\n" : ", <= upper bounds\n");
        any_bound = true;
    }
    if (any_bound)
        oc_sbuf_puts(&b, md ? "\nA ratio marked ≥ or ≤ is a bound, (?x) unknown; no value is marked best while a bound "
                              "could beat it.\n"
                            : "A ratio marked >= or <= is a bound, (?x) unknown; no value is marked best while a bound "
                              "could beat it.\n");
    if (html) {
        oc_cmp_html_pre(&page, &b);
        oc_sbuf_puts(&page, "</body></html>\n");
        oc_sbuf_free(&b);
        b = page;
    }
flush:;
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
