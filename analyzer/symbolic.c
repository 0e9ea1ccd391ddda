/*
 * symbolic.c — polynomial fits of shapes and costs over unbound dims (see
 * symbolic.h).
 *
 * Method: the analysis is repeated on a tensor grid of probe values, one
 * set of D + 1 distinct values per symbol. Along each symbol's axis the
 * samples are turned into monomial coefficients by Newton interpolation in
 * exact rational arithmetic (128-bit), one axis after the other, which gives
 * the unique polynomial of degree <= D in each symbol through the grid.
 * Coefficients must come out integral. Two more analyses at points off the
 * grid must then be reproduced exactly, or the quantity is declared not
 * polynomial.
 */
#include "symbolic.h"

#include "dtype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 oc_i128; /* GCC/Clang: exact fractions */

struct oc_frac {
    oc_i128 n, d; /* d > 0, reduced */
};

static oc_i128 oc_abs128(oc_i128 a) {
    return a < 0 ? -a : a;
}

static oc_i128 oc_gcd128(oc_i128 a, oc_i128 b) {
    a = oc_abs128(a);
    b = oc_abs128(b);
    while (b) {
        oc_i128 t = a % b;
        a = b;
        b = t;
    }
    return a ? a : 1;
}

/* Magnitude guard: keeps every product below 2^126. */
static const oc_i128 OC_FRAC_LIMIT = (oc_i128)1 << 62;

static bool oc_frac_ok(struct oc_frac f) {
    return oc_abs128(f.n) < OC_FRAC_LIMIT && f.d < OC_FRAC_LIMIT;
}

static struct oc_frac oc_frac_norm(oc_i128 n, oc_i128 d) {
    if (d < 0) {
        n = -n;
        d = -d;
    }
    if (d == 1) /* integers, the common case: no gcd */
        return (struct oc_frac){n, 1};
    oc_i128 g = oc_gcd128(n, d);
    return (struct oc_frac){n / g, d / g};
}

static bool oc_frac_sub(struct oc_frac a, struct oc_frac b, struct oc_frac *r) {
    if (!oc_frac_ok(a) || !oc_frac_ok(b))
        return false;
    if (a.d == b.d) /* same denominator (1 for integer samples) */
        *r = oc_frac_norm(a.n - b.n, a.d);
    else
        *r = oc_frac_norm(a.n * b.d - b.n * a.d, a.d * b.d);
    return oc_frac_ok(*r);
}

static bool oc_frac_mul_int(struct oc_frac a, int64_t k, struct oc_frac *r) {
    if (!oc_frac_ok(a))
        return false;
    *r = oc_frac_norm(a.n * k, a.d);
    return oc_frac_ok(*r);
}

static bool oc_frac_div_int(struct oc_frac a, int64_t k, struct oc_frac *r) {
    if (!oc_frac_ok(a) || k == 0)
        return false;
    *r = oc_frac_norm(a.n, a.d * k);
    return oc_frac_ok(*r);
}

/* In place: y[0..m) at nodes x -> monomial coefficients c[0..m). */
static bool oc_interp1(const int64_t *x, struct oc_frac *y, int m) {
    if (m == 2 && x[1] - x[0] == 1 && y[0].d == 1 && y[1].d == 1) { /* a line through integers: integers */
        oc_i128 slope = y[1].n - y[0].n;
        y[0] = (struct oc_frac){y[0].n - slope * x[0], 1};
        y[1] = (struct oc_frac){slope, 1};
        return true;
    }
    struct oc_frac a[OC_SYM_DEGREE + 1], c[OC_SYM_DEGREE + 1];
    memcpy(a, y, (size_t)m * sizeof *a);
    for (int j = 1; j < m; j++) /* Newton divided differences */
        for (int i = m - 1; i >= j; i--) {
            struct oc_frac t;
            if (!oc_frac_sub(a[i], a[i - 1], &t) || !oc_frac_div_int(t, x[i] - x[i - j], &a[i]))
                return false;
        }
    for (int i = 0; i < m; i++)
        c[i] = (struct oc_frac){0, 1};
    c[0] = a[m - 1];
    for (int i = m - 2, deg = 0; i >= 0; i--, deg++) { /* c = c * (s - x_i) + a_i */
        for (int j = deg + 1; j >= 0; j--) {
            struct oc_frac shifted = j > 0 ? c[j - 1] : (struct oc_frac){0, 1}, t;
            if (!oc_frac_mul_int(c[j], x[i], &t) || !oc_frac_sub(shifted, t, &c[j]))
                return false;
        }
        struct oc_frac t;
        if (!oc_frac_sub(c[0], (struct oc_frac){-a[i].n, a[i].d}, &t))
            return false;
        c[0] = t;
    }
    memcpy(y, c, (size_t)m * sizeof *c);
    return true;
}

/* ---- the probe runs ------------------------------------------------------------- */

/* One sample per quantity per run; INT64_MIN marks "not known in this run". */
#define OC_NA INT64_MIN

enum { OC_TOT_MACS, OC_TOT_FLOPS, OC_TOT_PARAMS, OC_TOT_ACT, OC_TOT_INPUT, OC_TOT_COUNT };

struct oc_layout {
    int32_t n_values, n_nodes;
    int32_t *dim_off;  /* [value]: first slot of its dims, -1 when its rank is unknown */
    int32_t node_off;  /* first node slot (3 per node) */
    int32_t tot_off;
    int32_t n_slots;
};

static bool oc_sample(const struct oc_analysis *an, const struct oc_layout *L, const struct oc_analysis *base,
                      int64_t *out) {
    const struct oc_graph *g = an->graph, *bg = base->graph;
    if (g->n_values != L->n_values || g->n_nodes != L->n_nodes)
        return false;
    for (int32_t i = 0; i < L->n_slots; i++)
        out[i] = OC_NA;
    for (int32_t v = 0; v < g->n_values; v++) {
        if (L->dim_off[v] < 0 || g->values[v].rank != bg->values[v].rank)
            continue;
        for (int32_t k = 0; k < g->values[v].rank; k++)
            out[L->dim_off[v] + k] = g->values[v].dims[k].value >= 0 ? g->values[v].dims[k].value : OC_NA;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        int64_t *o = &out[L->node_off + 3 * i];
        bool known = !(n->cost.flags & (OC_COST_UNKNOWN | OC_COST_OVERFLOW));
        o[0] = known && n->cost.macs <= INT64_MAX ? (int64_t)n->cost.macs : OC_NA;
        o[1] = known && n->cost.flops <= INT64_MAX ? (int64_t)n->cost.flops : OC_NA;
        o[2] = n->activation_bytes <= INT64_MAX ? (int64_t)n->activation_bytes : OC_NA;
    }
    const struct oc_totals *t = &an->totals;
    bool ok = !(t->flags & OC_COST_OVERFLOW) && t->n_uncosted == 0;
    int64_t *o = &out[L->tot_off];
    o[OC_TOT_MACS] = ok ? (int64_t)t->macs : OC_NA;
    o[OC_TOT_FLOPS] = ok ? (int64_t)t->flops : OC_NA;
    o[OC_TOT_PARAMS] = (int64_t)t->params;
    o[OC_TOT_ACT] = ok ? (int64_t)t->activation_bytes : OC_NA;
    o[OC_TOT_INPUT] = (int64_t)t->input_bytes;
    return true;
}

const int64_t oc_sym_grid[OC_SYM_DEGREE + 1] = {2, 3, 5, 7};
const int64_t oc_sym_checks[2][OC_SYM_MAX] = {{11, 13, 17, 19}, {23, 29, 31, 37}};
const int64_t oc_sym_grid_derived[OC_SYM_DEGREE + 1] = {1, 2, 3, 4};
void oc_sym_grid_point(const int64_t *grid, const int32_t *npts, int32_t k, int32_t r, int64_t *at) {
    for (int32_t j = 0, q = r; j < k; q /= npts[j], j++)
        at[j] = grid[q % npts[j]];
}

#define oc_grid oc_sym_grid
#define oc_checks oc_sym_checks

/* Analysis at one probe point; fills out[0..n_slots). *work is the analysis
 * the probes share: made by the first, re-run by the others. The first forks
 * base where it kept its graph as built (oc_analyze_opts.keep_built), else
 * builds the graph again. */
static enum oc_status oc_probe(const struct oc_model *m, const struct oc_analyze_opts *opts, const struct oc_symbolic *s,
                               const int64_t *point, const struct oc_layout *L, const struct oc_analysis *base,
                               int64_t *out, struct oc_analysis **work) {
    struct oc_binding b[64 + OC_SYM_MAX];
    int32_t nb = 0;
    for (int32_t i = 0; i < opts->n_dims && nb < 64; i++)
        b[nb++] = opts->dims[i];
    for (int32_t i = 0; i < s->n_syms; i++)
        b[nb++] = (struct oc_binding){s->syms[i], point[i]};
    struct oc_analyze_opts o = *opts;
    o.dims = b;
    o.n_dims = nb;
    struct oc_diag d = {0};
    enum oc_status st = *work ? OC_OK : oc_analysis_fork(base, work, &d); /* the graph as built, kept */
    if (st == OC_ERR_USAGE)                                                /* or built again */
        st = oc_analysis_prepare(m, &o, work, &d);
    if (st == OC_OK)
        st = oc_analysis_rerun(*work, &o, &d);
    if (st == OC_OK && !oc_sample(*work, L, base, out))
        st = OC_ERR_UNSUPPORTED;
    return st;
}

/* Exact value of p at point, in 128 bits; false on overflow. */
static bool oc_poly_eval(const struct oc_poly *p, int32_t k, const int64_t *point, oc_i128 *out) {
    oc_i128 sum = 0;
    for (int32_t t = 0; t < p->n_terms; t++) {
        oc_i128 v = p->terms[t].coef;
        for (int32_t j = 0; j < k; j++)
            for (int e = 0; e < p->terms[t].exp[j]; e++) {
                v *= point[j];
                if (oc_abs128(v) > OC_FRAC_LIMIT)
                    return false;
            }
        sum += v;
    }
    *out = sum;
    return true;
}

static int oc_term_cmp(const void *pa, const void *pb) {
    const struct oc_poly_term *a = pa, *b = pb;
    int da = 0, db = 0;
    for (int j = 0; j < OC_SYM_MAX; j++) {
        da += a->exp[j];
        db += b->exp[j];
    }
    if ((da == 0) != (db == 0)) /* constant last */
        return da == 0 ? 1 : -1;
    if (da != db)
        return da < db ? -1 : 1;
    for (int j = 0; j < OC_SYM_MAX; j++)
        if (a->exp[j] != b->exp[j])
            return a->exp[j] > b->exp[j] ? -1 : 1;
    return 0;
}

/* The constant polynomials of one fit, shared: most slots (weights' dims,
   hidden sizes) hold a few distinct values, made once each. */
enum { OC_CONST_MEMO = 1024 };
struct oc_const_memo {
    int64_t value[OC_CONST_MEMO];
    const struct oc_poly *poly[OC_CONST_MEMO];
};

static const struct oc_poly *oc_poly_constant_shared(struct oc_symbolic *s, struct oc_const_memo *memo, int64_t c) {
    uint64_t h = (uint64_t)c * 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; memo && i < 8; i++) {
        uint32_t at = (uint32_t)((h >> 40) + i) % OC_CONST_MEMO;
        if (memo->poly[at] && memo->value[at] == c)
            return memo->poly[at];
        if (!memo->poly[at]) {
            memo->value[at] = c;
            return memo->poly[at] = oc_poly_constant_shared(s, NULL, c);
        }
    }
    struct oc_poly *p = oc_arena_alloc(&s->arena, sizeof *p);
    struct oc_poly_term *terms = oc_arena_alloc(&s->arena, sizeof *terms);
    if (!p || !terms)
        return NULL;
    p->terms = terms;
    if (c != 0)
        terms[p->n_terms++].coef = c; /* every exponent 0 */
    return p;
}

/* Fits one quantity from its grid samples (m[j] values of symbol j, sample
   index sum idx_j * stride_j with stride_j = m[0] * ... * m[j-1]); NULL
   when not an integer polynomial. */
static const struct oc_poly *oc_poly_interpolate(struct oc_symbolic *s, const int32_t *m, const int64_t *samples,
                                                 struct oc_frac *work, struct oc_const_memo *memo) {
    int32_t k = s->n_syms, total = 1;
    for (int32_t j = 0; j < k; j++)
        total *= m[j];
    bool constant = true;
    for (int32_t i = 0; i < total; i++) {
        if (samples[i] == OC_NA)
            return NULL;
        work[i] = (struct oc_frac){samples[i], 1};
        constant = constant && samples[i] == samples[0];
    }
    if (constant) /* most slots (weights' dims, hidden sizes): what interpolation gives, directly */
        return oc_poly_constant_shared(s, memo, samples[0]);
    /* interpolate along each symbol's axis */
    for (int32_t j = 0, stride = 1; j < k; stride *= m[j], j++) {
        if (m[j] == 1)
            continue; /* a constant in this symbol: the sample is its coefficient */
        for (int32_t base = 0; base < total; base++) {
            if ((base / stride) % m[j] != 0)
                continue;
            struct oc_frac fiber[OC_SYM_DEGREE + 1];
            for (int32_t i = 0; i < m[j]; i++)
                fiber[i] = work[base + i * stride];
            if (!oc_interp1(s->grid, fiber, m[j]))
                return NULL;
            for (int32_t i = 0; i < m[j]; i++)
                work[base + i * stride] = fiber[i];
        }
    }
    int32_t n_terms = 0;
    for (int32_t i = 0; i < total; i++) {
        if (work[i].d != 1 || oc_abs128(work[i].n) > INT64_MAX)
            return NULL; /* not an integer polynomial */
        n_terms += work[i].n != 0;
    }
    struct oc_poly *p = oc_arena_alloc(&s->arena, sizeof *p);
    struct oc_poly_term *terms = oc_arena_array(&s->arena, (size_t)n_terms + 1, sizeof *terms);
    if (!p || !terms)
        return NULL;
    p->terms = terms;
    for (int32_t i = 0; i < total; i++) {
        if (!work[i].n)
            continue;
        struct oc_poly_term *t = &terms[p->n_terms++];
        t->coef = (int64_t)work[i].n;
        for (int32_t j = 0, r = i; j < k && j < OC_SYM_MAX; r /= m[j], j++)
            t->exp[j] = (uint8_t)(r % m[j]);
    }
    qsort(terms, (size_t)p->n_terms, sizeof *terms, oc_term_cmp);
    return p;
}

enum oc_status oc_symbolic_for(const struct oc_analysis *base, struct oc_symbolic **out, struct oc_diag *d) {
    *out = NULL;
    struct oc_symbolic *s = calloc(1, sizeof *s);
    if (!s)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    oc_arena_init(&s->arena);
    for (int32_t i = 0; i < base->n_bound; i++) {
        const struct oc_bound_dim *b = &base->bound[i];
        if (b->source != OC_BIND_DEFAULT || !b->name)
            continue;
        if (s->n_syms == OC_SYM_MAX) {
            oc_symbolic_free(s);
            return oc_diag_set(d, OC_ERR_UNSUPPORTED, "more than %d unbound dims", OC_SYM_MAX);
        }
        s->syms[s->n_syms++] = b->name;
    }
    if (!s->n_syms) {
        oc_symbolic_free(s);
        return oc_diag_set(d, OC_ERR_UNSUPPORTED, "no unbound dims");
    }
    *out = s;
    return OC_OK;
}

bool oc_symbolic_base_at_one(const struct oc_analysis *base) {
    for (int32_t i = 0; i < base->n_bound; i++)
        if (base->bound[i].source == OC_BIND_DEFAULT && base->bound[i].name && base->bound[i].value != 1)
            return false;
    return true;
}

enum oc_status oc_symbolic_fit(const struct oc_model *m, const struct oc_analyze_opts *opts,
                               const struct oc_analysis *base, struct oc_symbolic **out, struct oc_diag *d) {
    enum oc_status st = oc_symbolic_for(base, out, d);
    if (st != OC_OK)
        return st;
    int32_t n = (*out)->n_syms <= 2 ? OC_SYM_DEGREE + 1 : OC_SYM_DEGREE;
    const int32_t npts[OC_SYM_MAX] = {n, n, n, n};
    st = oc_symbolic_fit_grid(m, opts, base, *out, oc_grid, npts, true, d);
    if (st != OC_OK) {
        oc_symbolic_free(*out);
        *out = NULL;
    }
    return st;
}

enum oc_status oc_symbolic_fit_grid(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                    const struct oc_analysis *base, struct oc_symbolic *s, const int64_t *grid,
                                    const int32_t *npts, bool checked, struct oc_diag *d) {
    static const struct oc_analyze_opts none;
    if (!opts)
        opts = &none;
    int32_t k = s->n_syms, runs = 1;
    if (grid[0] == 1 && !oc_symbolic_base_at_one(base))
        return oc_diag_set(d, OC_ERR_UNSUPPORTED, "no such probe grid");
    for (int32_t j = 0; j < k; j++) {
        if (npts[j] < 1 || npts[j] > OC_SYM_DEGREE + 1 || (npts[j] == 1 && grid[0] != 1))
            return oc_diag_set(d, OC_ERR_UNSUPPORTED, "no such probe grid");
        runs *= npts[j];
    }
    s->grid = grid;
    s->checked = checked;
    /* three or four symbols without the derivation's degrees: a grid of 29
       or 83 analyses, each of the whole graph; bounded by the graph's size */
    int64_t analyses = runs + (checked ? 2 : 0);
    if (analyses > OC_SYM_FIT_FREE && analyses * (int64_t)base->graph->n_nodes > OC_SYM_FIT_WORK)
        return oc_diag_set(d, OC_ERR_UNSUPPORTED,
                           "%d unbound dims would take %lld analyses of %d nodes to fit, more than onnxcost spends "
                           "on formulas; bind or range some with --dim",
                           (int)k, (long long)analyses, (int)base->graph->n_nodes);

    const struct oc_graph *bg = base->graph;
    struct oc_layout L = {.n_values = bg->n_values, .n_nodes = bg->n_nodes};
    L.dim_off = calloc((size_t)bg->n_values + 1, sizeof *L.dim_off);
    enum oc_status st = OC_OK;
    int64_t *samples = NULL, *check = NULL, *column = NULL;
    struct oc_frac *fwork = NULL;
    struct oc_analysis *work = NULL;
    if (!L.dim_off) {
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t v = 0; v < bg->n_values; v++) {
        L.dim_off[v] = bg->values[v].rank >= 0 ? L.n_slots : -1;
        L.n_slots += bg->values[v].rank > 0 ? bg->values[v].rank : 0;
    }
    L.node_off = L.n_slots;
    L.n_slots += 3 * bg->n_nodes;
    L.tot_off = L.n_slots;
    L.n_slots += OC_TOT_COUNT;
    samples = calloc((size_t)runs * (size_t)L.n_slots + 1, sizeof *samples);
    check = calloc(2 * (size_t)L.n_slots + 1, sizeof *check);
    column = calloc((size_t)runs + 1, sizeof *column);
    fwork = calloc((size_t)runs + 1, sizeof *fwork);
    if (!samples || !check || !column || !fwork) {
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t r = 0; r < runs && st == OC_OK; r++) {
        int64_t point[OC_SYM_MAX];
        oc_sym_grid_point(s->grid, npts, k, r, point);
        if (r == 0 && grid[0] == 1) /* every symbol at 1: the base analysis itself */
            st = oc_sample(base, &L, base, samples) ? OC_OK : OC_ERR_UNSUPPORTED;
        else
            st = oc_probe(m, opts, s, point, &L, base, samples + (size_t)r * (size_t)L.n_slots, &work);
    }
    for (int c = 0; c < 2 && st == OC_OK && s->checked; c++)
        st = oc_probe(m, opts, s, oc_checks[c], &L, base, check + (size_t)c * (size_t)L.n_slots, &work);
    s->n_runs = runs + (s->checked ? 2 : 0);
    oc_analysis_free(work); /* its figures are in samples: the formulas are made without it */
    work = NULL;
    if (st != OC_OK) {
        st = oc_diag_set(d, OC_ERR_UNSUPPORTED, "the model is not valid at every probe binding");
        goto done;
    }
    s->dims = oc_arena_array(&s->arena, (size_t)bg->n_values + 1, sizeof *s->dims);
    s->nodes = oc_arena_array(&s->arena, (size_t)bg->n_nodes + 1, sizeof *s->nodes);
    if (!s->dims || !s->nodes) {
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    const struct oc_poly **slot_poly = calloc((size_t)L.n_slots + 1, sizeof *slot_poly);
    struct oc_const_memo *memo = calloc(1, sizeof *memo);
    if (!slot_poly || !memo) {
        free(slot_poly);
        free(memo);
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < L.n_slots; i++) {
        for (int32_t r = 0; r < runs; r++)
            column[r] = samples[(size_t)r * (size_t)L.n_slots + (size_t)i];
        const struct oc_poly *p = oc_poly_interpolate(s, npts, column, fwork, memo);
        for (int c = 0; p && c < 2 && s->checked; c++) {
            int64_t want = check[(size_t)c * (size_t)L.n_slots + (size_t)i];
            oc_i128 got;
            if (want == OC_NA || !oc_poly_eval(p, k, oc_checks[c], &got) || got != want)
                p = NULL;
        }
        slot_poly[i] = p;
    }
    for (int32_t v = 0; v < bg->n_values; v++) {
        if (L.dim_off[v] < 0 || bg->values[v].rank <= 0)
            continue;
        s->dims[v] = oc_arena_array(&s->arena, (size_t)bg->values[v].rank, sizeof *s->dims[v]);
        if (!s->dims[v])
            break;
        for (int32_t a = 0; a < bg->values[v].rank; a++)
            s->dims[v][a] = slot_poly[L.dim_off[v] + a];
    }
    for (int32_t i = 0; i < bg->n_nodes; i++)
        s->nodes[i] = (struct oc_node_poly){slot_poly[L.node_off + 3 * i], slot_poly[L.node_off + 3 * i + 1],
                                            slot_poly[L.node_off + 3 * i + 2]};
    s->macs = slot_poly[L.tot_off + OC_TOT_MACS];
    s->flops = slot_poly[L.tot_off + OC_TOT_FLOPS];
    s->params = slot_poly[L.tot_off + OC_TOT_PARAMS];
    s->activation_bytes = slot_poly[L.tot_off + OC_TOT_ACT];
    s->input_bytes = slot_poly[L.tot_off + OC_TOT_INPUT];
    free(slot_poly);
    free(memo);
    for (int32_t j = 0; j < k; j++)
        s->grid_points[j] = npts[j];
done:
    free(L.dim_off);
    free(samples);
    free(check);
    free(column);
    free(fwork);
    oc_analysis_free(work);
    return st;
}

struct oc_symbolic *oc_symbolic_new(const char *const *names, int32_t n) {
    if (n < 0 || n > OC_SYM_MAX)
        return NULL;
    struct oc_symbolic *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    oc_arena_init(&s->arena);
    for (int32_t i = 0; i < n; i++)
        s->syms[i] = names[i];
    s->n_syms = n;
    return s;
}

void oc_symbolic_free(struct oc_symbolic *s) {
    if (!s)
        return;
    oc_arena_free(&s->arena);
    free(s);
}

bool oc_poly_constant(const struct oc_poly *p, int64_t *v) {
    if (!p)
        return false;
    if (p->n_terms == 0) {
        *v = 0;
        return true;
    }
    if (p->n_terms != 1)
        return false;
    for (int j = 0; j < OC_SYM_MAX; j++)
        if (p->terms[0].exp[j])
            return false;
    *v = p->terms[0].coef;
    return true;
}

static void oc_put(char *buf, size_t size, size_t *at, const char *s) {
    size_t n = strlen(s);
    if (*at + n + 1 > size)
        n = *at + 1 < size ? size - *at - 1 : 0;
    memcpy(buf + *at, s, n);
    *at += n;
    buf[*at] = 0;
}

static void oc_put_int(char *buf, size_t size, size_t *at, uint64_t v, bool sep) {
    char tmp[32], out[48];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        if (sep && i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = tmp[i];
    }
    out[o] = 0;
    oc_put(buf, size, at, out);
}

const char *oc_poly_format(const struct oc_poly *p, const struct oc_symbolic *s, bool pretty, char *buf, size_t size) {
    static const char *const sup[] = {"", "", "\xC2\xB2", "\xC2\xB3", "\xE2\x81\xB4", "\xE2\x81\xB5", "\xE2\x81\xB6"};
    size_t at = 0;
    buf[0] = 0;
    if (!p) {
        oc_put(buf, size, &at, "?");
        return buf;
    }
    if (p->n_terms == 0) {
        oc_put(buf, size, &at, "0");
        return buf;
    }
    for (int32_t t = 0; t < p->n_terms; t++) {
        const struct oc_poly_term *term = &p->terms[t];
        int64_t c = term->coef;
        if (t > 0)
            oc_put(buf, size, &at, c < 0 ? " - " : " + ");
        else if (c < 0)
            oc_put(buf, size, &at, "-");
        uint64_t mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
        bool has_sym = false;
        for (int j = 0; j < s->n_syms; j++)
            has_sym |= term->exp[j] > 0;
        bool first = true;
        if (mag != 1 || !has_sym) {
            oc_put_int(buf, size, &at, mag, pretty);
            first = false;
        }
        for (int j = 0; j < s->n_syms; j++) {
            int e = term->exp[j];
            if (!e)
                continue;
            if (!first)
                oc_put(buf, size, &at, pretty ? "\xC2\xB7" : "*");
            first = false;
            oc_put(buf, size, &at, s->syms[j]);
            if (e > 1) {
                if (pretty && e < 7) {
                    oc_put(buf, size, &at, sup[e]);
                } else {
                    char tmp[8];
                    snprintf(tmp, sizeof tmp, "^%d", e);
                    oc_put(buf, size, &at, tmp);
                }
            }
        }
    }
    return buf;
}

const struct oc_poly *oc_poly_sum(struct oc_symbolic *s, const struct oc_poly *const *ps, int32_t n) {
    int32_t total = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!ps[i])
            return NULL;
        total += ps[i]->n_terms;
    }
    struct oc_poly *p = oc_arena_alloc(&s->arena, sizeof *p);
    struct oc_poly_term *t = oc_arena_array(&s->arena, (size_t)total + 1, sizeof *t);
    if (!p || !t)
        return NULL;
    p->terms = t;
    for (int32_t i = 0; i < n; i++)
        for (int32_t k = 0; k < ps[i]->n_terms; k++) {
            const struct oc_poly_term *src = &ps[i]->terms[k];
            int32_t j = 0;
            while (j < p->n_terms && memcmp(t[j].exp, src->exp, sizeof src->exp))
                j++;
            if (j == p->n_terms)
                t[p->n_terms++] = (struct oc_poly_term){0, {0}};
            memcpy(t[j].exp, src->exp, sizeof src->exp);
            if (__builtin_add_overflow(t[j].coef, src->coef, &t[j].coef))
                return NULL;
        }
    int32_t w = 0; /* drop terms that cancelled */
    for (int32_t j = 0; j < p->n_terms; j++)
        if (t[j].coef)
            t[w++] = t[j];
    p->n_terms = w;
    qsort(t, (size_t)w, sizeof *t, oc_term_cmp);
    return p;
}

bool oc_poly_value(const struct oc_poly *p, const struct oc_symbolic *s, const int64_t *point, int64_t *out) {
    oc_i128 v;
    if (!p || !oc_poly_eval(p, s->n_syms, point, &v) || v > INT64_MAX || v < INT64_MIN)
        return false;
    *out = (int64_t)v;
    return true;
}

bool oc_symbolic_wanted(const struct oc_analysis *an) {
    for (int32_t i = 0; i < an->n_bound; i++)
        if (an->bound[i].source == OC_BIND_DEFAULT && an->bound[i].name)
            return true;
    return false;
}
