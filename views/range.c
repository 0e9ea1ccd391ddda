/*
 * range.c — totals over a box of dim ranges (range.h).
 */
#include "range.h"

#include "../analyzer/derive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t oc_range_figure_of(const struct oc_totals *t, enum oc_range_fig f) {
    switch (f) {
    case OC_RF_PARAMS: return t->params;
    case OC_RF_PARAMS_BYTES: return t->params_bytes;
    case OC_RF_MACS: return t->macs;
    case OC_RF_FLOPS: return t->flops;
    case OC_RF_INPUT_BYTES: return t->input_bytes;
    case OC_RF_ACTIVATION_BYTES: return t->activation_bytes;
    case OC_RF_PEAK: return t->peak_activation_bytes;
    default: return 0;
    }
}

const char *oc_range_figure_label(enum oc_range_fig f) {
    static const char *const names[OC_RF_COUNT] = {"params", "params_bytes", "macs", "flops", "input_bytes",
                                                   "activation_bytes", "peak_activation_bytes"};
    return f < OC_RF_COUNT ? names[f] : "";
}

void oc_range_bind(const struct oc_analyze_opts *opts, const struct oc_range_dim *r, int32_t n,
                   const int64_t *point, struct oc_binding *dims, struct oc_analyze_opts *out) {
    *out = *opts;
    for (int32_t k = 0; k < opts->n_dims; k++)
        dims[k] = opts->dims[k];
    for (int32_t k = 0; k < n; k++)
        dims[opts->n_dims + k] = (struct oc_binding){r[k].name, point[k]};
    out->dims = dims;
    out->n_dims = opts->n_dims + n;
}

struct oc_binding *oc_range_corner(const struct oc_analyze_opts *opts, const struct oc_range_dim *r, int32_t n,
                                   bool upper, struct oc_analyze_opts *out) {
    struct oc_binding *dims = calloc((size_t)opts->n_dims + (size_t)n + 1, sizeof *dims);
    if (!dims)
        return NULL;
    int64_t point[OC_RANGE_MAX] = {0};
    for (int32_t k = 0; k < n && k < OC_RANGE_MAX; k++)
        point[k] = upper ? r[k].hi : r[k].lo;
    oc_range_bind(opts, r, n, point, dims, out);
    return dims;
}

/* The worst case: each figure's maximum, every analysis's flags. */
static void oc_range_worst(struct oc_totals *w, const struct oc_totals *t, bool first) {
    if (first) {
        *w = *t;
        return;
    }
    w->params = t->params > w->params ? t->params : w->params;
    w->params_bytes = t->params_bytes > w->params_bytes ? t->params_bytes : w->params_bytes;
    w->macs = t->macs > w->macs ? t->macs : w->macs;
    w->flops = t->flops > w->flops ? t->flops : w->flops;
    w->input_bytes = t->input_bytes > w->input_bytes ? t->input_bytes : w->input_bytes;
    w->activation_bytes = t->activation_bytes > w->activation_bytes ? t->activation_bytes : w->activation_bytes;
    if (t->peak_activation_bytes > w->peak_activation_bytes) {
        w->peak_activation_bytes = t->peak_activation_bytes;
        w->peak_node = t->peak_node;
    }
    w->peak_complete &= t->peak_complete;
    w->flags |= t->flags;
    if (t->n_uncosted > w->n_uncosted) {
        w->n_uncosted = t->n_uncosted;
        w->n_downstream = t->n_downstream;
    }
}

void oc_range_free(struct oc_range_result *r) {
    free(r->nodes);
    r->nodes = NULL;
    r->n_nodes = 0;
}

/* Each node's costs into the box's per-node [min, max]. */
static bool oc_range_take_nodes(struct oc_range_result *out, const struct oc_analysis *an, bool first) {
    const struct oc_graph *g = an->graph;
    if (first) {
        free(out->nodes);
        out->nodes = calloc((size_t)g->n_nodes + 1, sizeof *out->nodes);
        if (!out->nodes)
            return false;
        out->n_nodes = g->n_nodes;
    }
    for (int32_t i = 0; i < g->n_nodes && i < out->n_nodes; i++) {
        const struct oc_node *nd = &g->nodes[i];
        struct oc_range_node *rn = &out->nodes[i];
        uint64_t v[OC_RN_COUNT] = {nd->cost.macs, nd->cost.flops, nd->activation_bytes};
        rn->unknown |= (nd->cost.flags & OC_COST_UNKNOWN) != 0;
        for (int k = 0; k < OC_RN_COUNT; k++) {
            if (first || v[k] < rn->min[k])
                rn->min[k] = v[k];
            if (first || v[k] > rn->max[k])
                rn->max[k] = v[k];
        }
    }
    return true;
}

static void oc_range_take(struct oc_range_result *out, const struct oc_totals *t, const int64_t *point,
                          bool first) {
    for (int f = 0; f < OC_RF_COUNT; f++) {
        struct oc_range_figure *g = &out->fig[f];
        uint64_t v = oc_range_figure_of(t, (enum oc_range_fig)f);
        if (first || v < g->min) {
            g->min = v;
            memcpy(g->argmin, point, sizeof g->argmin);
        }
        if (first || v > g->max) {
            g->max = v;
            memcpy(g->argmax, point, sizeof g->argmax);
        }
    }
    oc_range_worst(&out->worst, t, first);
}

/* d's error, said to be at `point`. */
static enum oc_status oc_range_blame(struct oc_diag *d, enum oc_status st, const struct oc_range_dim *r, int32_t n,
                                     const int64_t *point) {
    if (st == OC_OK || st == OC_ERR_NOMEM)
        return st;
    char msg[sizeof d->msg], at[160] = "";
    size_t len = 0;
    for (int32_t k = 0; k < n && len < sizeof at; k++)
        len += (size_t)snprintf(at + len, sizeof at - len, "%s%s=%lld", k ? ", " : "", r[k].name, (long long)point[k]);
    snprintf(msg, sizeof msg, "%s", d->msg);
    d->code = OC_OK;
    d->n_errors = 0;
    return oc_diag_set(d, st, "at %s: %s", at, msg);
}

/* Analyzes m at `point`; the totals into *t, and with out its nodes' costs
   into out's per-node ranges. */
static enum oc_status oc_range_at_nodes(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                        const struct oc_range_dim *r, int32_t n, const int64_t *point,
                                        struct oc_binding *dims, struct oc_totals *t, struct oc_range_result *out,
                                        bool first, struct oc_diag *d) {
    struct oc_analyze_opts o;
    oc_range_bind(opts, r, n, point, dims, &o);
    struct oc_analysis *an = NULL;
    enum oc_status st = oc_analyze(m, &o, &an, d);
    if (st == OC_OK) {
        *t = an->totals;
        if (out && !oc_range_take_nodes(out, an, first))
            st = OC_ERR_NOMEM;
    }
    oc_analysis_free(an);
    return oc_range_blame(d, st, r, n, point);
}

/* Analyzes m at `point`; the totals into *t. */
static enum oc_status oc_range_at(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                  const struct oc_range_dim *r, int32_t n, const int64_t *point,
                                  struct oc_binding *dims, struct oc_totals *t, struct oc_diag *d) {
    return oc_range_at_nodes(m, opts, r, n, point, dims, t, NULL, false, d);
}

/* Whether every figure is proven never to fall as a ranged dim grows, so
   that the box's corners are its minimum and maximum (derive.h): every dim
   of every tensor derived as a polynomial that never falls within the box,
   and every node's cost a rule that never falls as its dims grow. Why not
   into out->why. */
static enum oc_status oc_range_monotone(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                        const struct oc_range_dim *r, int32_t n, struct oc_range_result *out,
                                        bool *mono, struct oc_diag *d) {
    *mono = false;
    struct oc_analysis *an = NULL;
    /* the lower corner: valid, each ranged name an input's dim, and the base
       of the derivation */
    int64_t lo[OC_RANGE_MAX], hi[OC_RANGE_MAX];
    const char *names[OC_RANGE_MAX];
    for (int32_t k = 0; k < n; k++) {
        lo[k] = r[k].lo;
        hi[k] = r[k].hi;
        names[k] = r[k].name;
    }
    struct oc_analyze_opts at_lo;
    struct oc_binding *dims = oc_range_corner(opts, r, n, false, &at_lo);
    if (!dims)
        return OC_ERR_NOMEM;
    enum oc_status st = oc_analyze(m, &at_lo, &an, d);
    if (st != OC_OK) {
        free(dims);
        return oc_range_blame(d, st, r, n, lo);
    }
    out->analyses++;
    for (int32_t k = 0; k < n; k++) {
        bool found = false;
        for (int32_t j = 0; j < an->n_bound; j++)
            found |= an->bound[j].name && strcmp(an->bound[j].name, r[k].name) == 0;
        if (!found) {
            oc_analysis_free(an);
            free(dims);
            return oc_diag_set(d, OC_ERR_USAGE, "--dim %s=%lld:%lld: no graph input has a dim named '%s'", r[k].name,
                               (long long)r[k].lo, (long long)r[k].hi, r[k].name);
        }
    }
    struct oc_symbolic *sym = oc_symbolic_new(names, n);
    struct oc_derived dv;
    if (!sym || oc_derive(an, sym, lo, lo, hi, &dv) != OC_OK) {
        oc_symbolic_free(sym);
        oc_analysis_free(an);
        free(dims);
        return OC_ERR_NOMEM;
    }
    const struct oc_graph *g = an->graph;
    char why[600];
    if (dv.stop_node >= 0) {
        snprintf(why, sizeof why, "not proven: %s", dv.why);
        oc_fit_words(out->why, sizeof out->why, why);
    } else if (!oc_derived_guards_hold(&dv, n, lo, hi)) {
        char w[160];
        oc_derived_guards_text(&dv, sym, w, sizeof w);
        snprintf(why, sizeof why, "not proven: the shapes are polynomials only where %s, and the box goes beyond", w);
        oc_fit_words(out->why, sizeof out->why, why);
    }
    const char *bad = NULL;
    for (int32_t v = 0; v < g->n_values && !out->why[0]; v++) {
        const struct oc_value *val = &g->values[v];
        if (!dv.dep[v] || val->rank <= 0)
            continue;
        for (int32_t a = 0; a < val->rank && !bad; a++)
            if (!dv.dims[v] || !oc_poly_nondecreasing(dv.dims[v][a], n, lo, hi))
                bad = val->name;
        if (bad)
            snprintf(out->why, sizeof out->why, "not proven: tensor '%.100s' has a dim %s", bad,
                     dv.dims[v] ? "that may fall as a ranged dim grows" : "not derived");
    }
    for (int32_t i = 0; i < g->n_nodes && !out->why[0]; i++)
        if (!dv.cost_monotone[i] && !(g->nodes[i].cost.flags & OC_COST_UNKNOWN))
            snprintf(out->why, sizeof out->why, "not proven: the cost of node '%.100s' (%s) is not proven to grow "
                     "with its dims",
                     g->nodes[i].name[0] ? g->nodes[i].name : g->nodes[i].op_type, g->nodes[i].op_type);
    *mono = !out->why[0];
    oc_derived_free(&dv);
    oc_symbolic_free(sym);
    oc_analysis_free(an);
    free(dims);
    return OC_OK;
}

enum oc_status oc_range_analyze(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                const struct oc_range_dim *r, int32_t n, uint64_t max_points,
                                struct oc_range_result *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    if (n < 1 || n > OC_RANGE_MAX)
        return oc_diag_set(d, OC_ERR_USAGE, "between 1 and %d dims may be ranged, got %d", OC_RANGE_MAX, n);
    out->n = n;
    out->points = 1;
    for (int32_t k = 0; k < n; k++) {
        out->dims[k] = r[k];
        for (int32_t j = 0; j < opts->n_dims; j++)
            if (strcmp(opts->dims[j].name, r[k].name) == 0)
                return oc_diag_set(d, OC_ERR_USAGE, "--dim %s is given both as a value and as a range", r[k].name);
        uint64_t span = (uint64_t)(r[k].hi - r[k].lo) + 1;
        if (__builtin_mul_overflow(out->points, span, &out->points))
            out->points = UINT64_MAX;
    }
    struct oc_binding *dims = calloc((size_t)opts->n_dims + (size_t)n + 1, sizeof *dims);
    if (!dims)
        return OC_ERR_NOMEM;
    bool mono;
    enum oc_status st = oc_range_monotone(m, opts, r, n, out, &mono, d);
    int64_t point[OC_RANGE_MAX] = {0};
    if (st == OC_OK && mono) {
        out->method = OC_RANGE_MONOTONE;
        struct oc_totals t;
        for (int corner = 0; corner < 2 && st == OC_OK; corner++) {
            for (int32_t k = 0; k < n; k++)
                point[k] = corner ? r[k].hi : r[k].lo;
            st = oc_range_at_nodes(m, opts, r, n, point, dims, &t, out, corner == 0, d);
            if (st != OC_OK)
                break;
            out->analyses++;
            oc_range_take(out, &t, point, corner == 0);
        }
    }
    if (st == OC_OK && !mono) {
        if (out->points > max_points) {
            out->method = OC_RANGE_UNBOUNDED;
        } else {
            out->method = OC_RANGE_ENUMERATED;
            for (int32_t k = 0; k < n; k++)
                point[k] = r[k].lo;
            for (uint64_t i = 0; i < out->points && st == OC_OK; i++) {
                struct oc_totals t;
                st = oc_range_at_nodes(m, opts, r, n, point, dims, &t, out, i == 0, d);
                if (st != OC_OK)
                    break;
                out->analyses++;
                oc_range_take(out, &t, point, i == 0);
                for (int32_t k = n - 1; k >= 0; k--) { /* the next binding, the last dim fastest */
                    if (point[k] < r[k].hi) {
                        point[k]++;
                        break;
                    }
                    point[k] = r[k].lo;
                }
            }
        }
    }
    free(dims);
    if (st != OC_OK || out->method == OC_RANGE_UNBOUNDED)
        oc_range_free(out);
    return st;
}

enum oc_status oc_range_value_bytes(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                    const struct oc_range_dim *r, int32_t n, uint64_t max_points, uint64_t **bytes,
                                    int32_t *n_values, struct oc_diag *d) {
    *bytes = NULL;
    *n_values = 0;
    uint64_t points = 1;
    for (int32_t k = 0; k < n; k++)
        if (__builtin_mul_overflow(points, (uint64_t)(r[k].hi - r[k].lo) + 1, &points))
            points = UINT64_MAX;
    if (points > max_points)
        return oc_diag_set(d, OC_ERR_UNSUPPORTED, "the box has %llu bindings, more than %llu to analyze one by one",
                           (unsigned long long)points, (unsigned long long)max_points);
    struct oc_binding *dims = calloc((size_t)opts->n_dims + (size_t)n + 1, sizeof *dims);
    if (!dims)
        return OC_ERR_NOMEM;
    int64_t point[OC_RANGE_MAX];
    for (int32_t k = 0; k < n; k++)
        point[k] = r[k].lo;
    enum oc_status st = OC_OK;
    uint64_t *max = NULL;
    int32_t nv = 0;
    for (uint64_t i = 0; i < points && st == OC_OK; i++) {
        struct oc_analyze_opts o;
        oc_range_bind(opts, r, n, point, dims, &o);
        struct oc_analysis *an = NULL;
        st = oc_analyze(m, &o, &an, d);
        if (st == OC_OK) {
            const struct oc_graph *g = an->graph;
            if (!max) {
                nv = g->n_values;
                if (!(max = calloc((size_t)nv + 1, sizeof *max)))
                    st = OC_ERR_NOMEM;
            } else if (g->n_values != nv) { /* never: one file, one graph */
                st = oc_diag_set(d, OC_ERR_UNSUPPORTED, "the graph differs between bindings");
            }
            for (int32_t v = 0; st == OC_OK && v < nv; v++) {
                uint64_t b;
                if (max[v] == UINT64_MAX || !oc_value_bytes(&g->values[v], &b))
                    max[v] = UINT64_MAX;
                else if (b > max[v])
                    max[v] = b;
            }
        }
        oc_analysis_free(an);
        st = oc_range_blame(d, st, r, n, point);
        for (int32_t k = n - 1; k >= 0; k--) { /* the next binding, the last dim fastest */
            if (point[k] < r[k].hi) {
                point[k]++;
                break;
            }
            point[k] = r[k].lo;
        }
    }
    free(dims);
    if (st != OC_OK) {
        free(max);
        return st;
    }
    *bytes = max;
    *n_values = nv;
    return OC_OK;
}

/* Whether t keeps every budget (a lower bound within a limit does not); the
   first key it breaks into *key. */
static bool oc_range_keeps(const struct oc_budget *b, const struct oc_totals *t, enum oc_budget_key *key,
                           bool *unverified) {
    struct oc_budget_excess ex[OC_BUDGET_COUNT];
    *unverified = false;
    if (oc_budget_check(b, t, ex)) {
        *key = ex[0].key;
        return false;
    }
    if (oc_budget_unverified(b, t, ex)) {
        *key = ex[0].key;
        *unverified = true;
        return false;
    }
    return true;
}

static uint64_t oc_range_budget_figure(const struct oc_totals *t, enum oc_budget_key k) {
    switch (k) {
    case OC_BUDGET_PARAMS: return t->params;
    case OC_BUDGET_MACS: return t->macs;
    case OC_BUDGET_FLOPS: return t->flops;
    case OC_BUDGET_PARAMS_BYTES: return t->params_bytes;
    case OC_BUDGET_PEAK_MEMORY: return t->peak_activation_bytes;
    default: return 0;
    }
}

/* The worst totals over the other dims with dim `which` at v (their upper
   corner when monotone), and where its budget breaks. */
static enum oc_status oc_range_worst_at(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                        const struct oc_range_dim *r, int32_t n, int32_t which, int64_t v,
                                        bool monotone, const struct oc_budget *b, struct oc_binding *dims,
                                        struct oc_range_largest *L, bool *keeps, struct oc_diag *d) {
    int64_t point[OC_RANGE_MAX] = {0};
    for (int32_t k = 0; k < n; k++)
        point[k] = k == which ? v : monotone ? r[k].hi : r[k].lo;
    enum oc_status st = OC_OK;
    *keeps = true;
    for (;;) {
        struct oc_totals t;
        st = oc_range_at(m, opts, r, n, point, dims, &t, d);
        if (st != OC_OK)
            return st;
        L->analyses++;
        enum oc_budget_key key;
        bool unverified;
        if (!oc_range_keeps(b, &t, &key, &unverified)) {
            *keeps = false;
            L->key = key;
            L->unverified = unverified;
            L->figure = oc_range_budget_figure(&t, key);
            L->limit = b->limit[key];
            memcpy(L->at, point, sizeof L->at);
            return OC_OK;
        }
        if (monotone)
            return OC_OK;
        int32_t k = n - 1; /* the next binding of the others */
        for (; k >= 0; k--) {
            if (k == which)
                continue;
            if (point[k] < r[k].hi) {
                point[k]++;
                break;
            }
            point[k] = r[k].lo;
        }
        if (k < 0)
            return OC_OK;
    }
}

enum oc_status oc_range_largest(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                const struct oc_range_dim *r, int32_t n, int32_t which, const struct oc_budget *b,
                                struct oc_range_result *out, struct oc_diag *d) {
    struct oc_range_largest *L = &out->largest;
    memset(L, 0, sizeof *L);
    L->asked = true;
    L->dim = which;
    if (out->method == OC_RANGE_UNBOUNDED)
        return OC_OK;
    bool mono = out->method == OC_RANGE_MONOTONE;
    struct oc_binding *dims = calloc((size_t)opts->n_dims + (size_t)n + 1, sizeof *dims);
    if (!dims)
        return OC_ERR_NOMEM;
    enum oc_status st = OC_OK;
    bool keeps;
    struct oc_range_largest at_break = *L;
    int64_t lo = r[which].lo, hi = r[which].hi;
    if (mono) { /* the largest v that keeps them: keeping never returns as v grows */
        st = oc_range_worst_at(m, opts, r, n, which, lo, true, b, dims, L, &keeps, d);
        if (st == OC_OK && keeps) {
            L->found = true;
            int64_t good = lo, bad = hi + 1;
            while (st == OC_OK && bad - good > 1) {
                int64_t mid = good + (bad - good) / 2;
                struct oc_range_largest probe = *L;
                st = oc_range_worst_at(m, opts, r, n, which, mid, true, b, dims, &probe, &keeps, d);
                L->analyses = probe.analyses;
                if (keeps) {
                    good = mid;
                } else {
                    bad = mid;
                    at_break = probe;
                }
            }
            L->value = good;
            L->at_end = bad == hi + 1;
            if (!L->at_end) {
                L->breaks = bad;
                L->key = at_break.key;
                L->figure = at_break.figure;
                L->limit = at_break.limit;
                L->unverified = at_break.unverified;
                memcpy(L->at, at_break.at, sizeof L->at);
            }
        } else if (st == OC_OK) {
            L->breaks = lo;
        }
    } else { /* each value in turn, over every binding of the others */
        int64_t v = lo;
        for (; st == OC_OK && v <= hi; v++) {
            st = oc_range_worst_at(m, opts, r, n, which, v, false, b, dims, L, &keeps, d);
            if (st != OC_OK || !keeps)
                break;
            L->found = true;
            L->value = v;
        }
        L->at_end = st == OC_OK && v > hi;
        if (!L->at_end)
            L->breaks = v;
    }
    free(dims);
    return st;
}
