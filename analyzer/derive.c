/*
 * derive.c — shapes derived as polynomials through the ops (derive.h): the
 * polynomial arithmetic, bounds over a box, and the walk over the graph.
 * The rules are in derive_ops.c.
 */
#include "derive_rules.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- guards ----------------------------------------------------------------------------- */

bool oc_derived_guards_hold(const struct oc_derived *d, int32_t n_syms, const int64_t *lo, const int64_t *hi) {
    for (int32_t i = 0; i < d->n_guards; i++) {
        int64_t mn, mx;
        if (!oc_poly_bounds(d->guards[i], n_syms, lo, hi, &mn, &mx) || mn < 0)
            return false;
    }
    return true;
}

bool oc_derived_guards_hold_at(const struct oc_derived *d, int32_t n_syms, const int64_t *at) {
    for (int32_t i = 0; i < d->n_guards; i++) {
        int64_t v;
        if (!oc_poly_eval_at(d->guards[i], n_syms, at, &v) || v < 0)
            return false;
    }
    return true;
}

/* The guards hold at every point of the grid grid[0 .. pts[j]) in each
   symbol j (symbolic.h, oc_sym_grid_point). */
static bool oc_derived_guards_hold_on_grid(const struct oc_derived *d, int32_t n_syms, const int64_t *grid,
                                           const int32_t *pts) {
    int32_t points = 1;
    for (int32_t j = 0; j < n_syms; j++)
        points *= pts[j];
    for (int32_t r = 0; r < points; r++) {
        int64_t at[OC_SYM_MAX] = {1, 1, 1, 1};
        oc_sym_grid_point(grid, pts, n_syms, r, at);
        if (!oc_derived_guards_hold_at(d, n_syms, at))
            return false;
    }
    return true;
}

void oc_derived_guards_text(const struct oc_derived *d, const struct oc_symbolic *s, char *buf, size_t size) {
    size_t at = 0;
    buf[0] = 0;
    for (int32_t i = 0; i < d->n_guards && at + 1 < size; i++) {
        const struct oc_poly *g = d->guards[i];
        char f[160];
        int w;
        /* c - k*x >= 0 (one symbol, k > 0): x <= floor(c / k) */
        int64_t c0 = 0, k = 0;
        int32_t sym = -1;
        bool simple = true;
        for (int32_t t = 0; t < g->n_terms && simple; t++) {
            int32_t deg = 0, j0 = -1;
            for (int32_t j = 0; j < s->n_syms; j++)
                if (g->terms[t].exp[j]) {
                    deg += g->terms[t].exp[j];
                    j0 = j;
                }
            if (deg == 0)
                c0 = g->terms[t].coef;
            else if (deg == 1 && g->terms[t].coef < 0 && sym < 0)
                sym = j0, k = -g->terms[t].coef;
            else
                simple = false;
        }
        if (simple && sym >= 0 && c0 >= 0)
            w = snprintf(buf + at, size - at, "%s%s <= %lld", i ? ", " : "", s->syms[sym], (long long)(c0 / k));
        else
            w = snprintf(buf + at, size - at, "%s%s >= 0", i ? ", " : "", oc_poly_format(g, s, false, f, sizeof f));
        if (w < 0)
            break;
        at += (size_t)w < size - at ? (size_t)w : size - at - 1;
    }
}

/* ---- the walk ---------------------------------------------------------------------------- */

/* The base analysis's dims (and small integer contents) as constants: a
   value that does not depend on the symbols. */
static void oc_d_take_base(struct oc_dctx *c, int32_t v) {
    const struct oc_value *val = &c->g->values[v];
    if (val->rank > 0) {
        const struct oc_poly **d = oc_arena_array(&c->s->arena, (size_t)val->rank, sizeof *d);
        if (d) {
            for (int32_t a = 0; a < val->rank; a++)
                d[a] = val->dims[a].value >= 0 ? oc_poly_const(c->s, val->dims[a].value) : NULL;
            c->out->dims[v] = d;
        }
    }
    if (val->ival && val->n_ival <= OC_D_MAX_CONT) {
        const struct oc_poly **e = oc_arena_array(&c->s->arena, (size_t)val->n_ival + 1, sizeof *e);
        if (e) {
            for (int64_t i = 0; i < val->n_ival; i++)
                e[i] = oc_poly_const(c->s, val->ival[i]);
            c->cont[v] = e;
            c->n_cont[v] = (int32_t)val->n_ival;
        }
    }
}

/* A graph input: each dim named like a symbol is that symbol. */
static void oc_d_take_input(struct oc_dctx *c, int32_t v) {
    const struct oc_value *val = &c->g->values[v];
    oc_d_take_base(c, v);
    if (val->rank <= 0 || !c->out->dims[v])
        return;
    for (int32_t a = 0; a < val->rank; a++) {
        const char *sym = val->dims[a].sym;
        for (int32_t j = 0; sym && j < c->k; j++)
            if (strcmp(sym, c->s->syms[j]) == 0) {
                c->out->dims[v][a] = oc_poly_var(c->s, j);
                c->out->dep[v] = true;
            }
    }
    if (c->out->dep[v]) { /* the contents of an input are data */
        c->cont[v] = NULL;
        c->n_cont[v] = -1;
    }
}

static const char *oc_d_label(const struct oc_node *n, char *buf, size_t size) {
    snprintf(buf, size, "%s%s%s (%s)", n->name && n->name[0] ? "'" : "#", n->name && n->name[0] ? n->name : "",
             n->name && n->name[0] ? "'" : "", n->op_type);
    if (!(n->name && n->name[0]))
        snprintf(buf, size, "#%d (%s)", n->index, n->op_type);
    return buf;
}

/* A derived quantity must give the base analysis's value at the base
   binding; else a rule is wrong for this model: not derived. */
static bool oc_d_equals_at(const struct oc_dctx *c, const struct oc_poly *p, int64_t want, const int64_t *at) {
    int64_t v;
    return oc_poly_eval_at(p, c->k, at, &v) && v == want;
}

static bool oc_d_reads_dep(const struct oc_dctx *c, const struct oc_node *n) {
    for (int32_t i = 0; i < n->n_in; i++)
        if (n->in[i] >= 0 && c->out->dep[n->in[i]])
            return true;
    for (int32_t i = 0; i < n->n_implicit; i++)
        if (n->implicit[i] >= 0 && c->out->dep[n->implicit[i]])
            return true;
    return false;
}

/* Every dim a node reads or writes derived; else false with the reason in
   c->why. (Contents a rule needs, it asks for: oc_d_cont fails it.) */
static bool oc_d_node_derived(struct oc_dctx *c, const struct oc_node *n) {
    for (int side = 0; side < 2; side++) {
        int32_t cnt = side ? n->n_out : n->n_in;
        const int32_t *vs = side ? n->out : n->in;
        for (int32_t i = 0; i < cnt; i++) {
            int32_t v = vs[i];
            if (v < 0 || !c->out->dep[v])
                continue;
            const struct oc_value *val = &c->g->values[v];
            bool dims = val->rank >= 0 && (val->rank == 0 || c->out->dims[v]);
            for (int32_t a = 0; dims && a < val->rank; a++)
                dims = c->out->dims[v][a] != NULL;
            if (!dims) {
                if (!c->why[0])
                    oc_d_fail(c, "the shape of %s %d is not derived", side ? "output" : "input", i);
                return false;
            }
        }
    }
    return true;
}

/* Whether every recorded int64 content stays within its type while each
   symbol is at most cap. */
static bool oc_d_wide_fit(const struct oc_dctx *c, int64_t cap) {
    int64_t hi[OC_SYM_MAX];
    for (int32_t j = 0; j < c->k; j++)
        hi[j] = c->hi[j] < cap ? c->hi[j] : cap;
    for (int32_t i = 0; i < c->n_wide; i++) {
        int64_t mn, mx;
        if (!oc_poly_bounds(c->wide[i], c->k, c->lo, hi, &mn, &mx) || (c->wide_unsigned[i] && mn < 0))
            return false;
    }
    return true;
}

/* Where the box has no upper end (formulas), int64 shape arithmetic that
   may pass 64 bits (a product of dims, a coefficient near 2^62) wraps in a
   runtime and saturates or stays unknown in the analysis: what is derived
   then holds only below the largest cap S at which none does, recorded as
   guards "x <= S" on the symbols those contents read, where S is under
   OC_DERIVE_DIM_CAP (derive.h: beyond it, formulas are not claimed). */
static void oc_d_bound_wide(struct oc_dctx *c) {
    if (!c->n_wide)
        return;
    int64_t lo = 0, hi = OC_DERIVE_DIM_CAP; /* fits at lo, not known at hi */
    int64_t floor = 1;
    for (int32_t j = 0; j < c->k; j++)
        floor = c->lo[j] > floor ? c->lo[j] : floor;
    if (!oc_d_wide_fit(c, floor)) {
        lo = -1;
    } else if (oc_d_wide_fit(c, hi)) {
        return; /* nothing wraps with every dim up to the cap */
    } else {
        lo = floor;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (oc_d_wide_fit(c, mid))
                lo = mid;
            else
                hi = mid;
        }
    }
    bool reads[OC_SYM_MAX] = {false};
    for (int32_t i = 0; i < c->n_wide; i++)
        for (int32_t t = 0; t < c->wide[i]->n_terms; t++)
            for (int32_t j = 0; j < c->k; j++)
                reads[j] |= c->wide[i]->terms[t].exp[j] != 0;
    for (int32_t j = 0; j < c->k; j++) {
        if (!reads[j])
            continue;
        /* S - x >= 0: S < 0 (overflow at the box's lower corner) is a guard
           no binding meets, so nothing derived is claimed */
        const struct oc_poly *g = oc_poly_sub(c->s, oc_poly_const(c->s, lo), oc_poly_var(c->s, j));
        if (!oc_d_assume_nonneg(c, g) && c->out->stop_node < 0) {
            char label[200];
            c->out->stop_node = c->wide_node;
            snprintf(c->out->why, sizeof c->out->why,
                     "node %s: its integer shape arithmetic passes 64 bits at the smallest dims (or too many "
                     "conditions)",
                     oc_d_label(&c->g->nodes[c->wide_node], label, sizeof label));
        }
    }
}

/* The rule of each op type seen in one walk, by the op's name: the rule
   table is scanned once per distinct op, not once per node. */
enum { OC_D_MEMO = 512 };
struct oc_d_memo {
    const char *domain[OC_D_MEMO], *op[OC_D_MEMO];
    const struct oc_derive_rule *rule[OC_D_MEMO];
};

static const struct oc_derive_rule *oc_d_rule(struct oc_d_memo *memo, const char *domain, const char *op) {
    uint32_t h = oc_fnv1a(oc_fnv1a(OC_FNV_INIT, op, SIZE_MAX), domain ? domain : "", SIZE_MAX);
    for (uint32_t i = 0; i < OC_D_MEMO; i++) {
        uint32_t at = (h + i) % OC_D_MEMO;
        if (!memo->op[at]) {
            memo->op[at] = op;
            memo->domain[at] = domain ? domain : "";
            return memo->rule[at] = oc_derive_rule_for(domain, op);
        }
        if (strcmp(memo->op[at], op) == 0 && strcmp(memo->domain[at], domain ? domain : "") == 0)
            return memo->rule[at];
    }
    return oc_derive_rule_for(domain, op); /* more distinct ops than the memo holds */
}

enum oc_status oc_derive(const struct oc_analysis *base, struct oc_symbolic *s, const int64_t *base_point,
                         const int64_t *lo, const int64_t *hi, struct oc_derived *out) {
    memset(out, 0, sizeof *out);
    out->stop_node = -1;
    const struct oc_graph *g = base->graph;
    struct oc_dctx c = {.s = s, .g = g, .k = s->n_syms, .out = out};
    for (int32_t j = 0; j < c.k; j++) {
        c.lo[j] = lo[j] < 1 ? 1 : lo[j];
        c.hi[j] = hi[j];
    }
    out->n_values = g->n_values;
    out->n_nodes = g->n_nodes;
    out->dims = calloc((size_t)g->n_values + 1, sizeof *out->dims);
    out->dep = calloc((size_t)g->n_values + 1, sizeof *out->dep);
    out->cost_monotone = calloc((size_t)g->n_nodes + 1, sizeof *out->cost_monotone);
    out->cost_form = calloc((size_t)g->n_nodes + 1, sizeof *out->cost_form);
    c.n_cont = malloc(((size_t)g->n_values + 1) * sizeof *c.n_cont);
    c.cont = calloc((size_t)g->n_values + 1, sizeof *c.cont);
    struct oc_d_memo *memo = calloc(1, sizeof *memo);
    if (!out->dims || !out->dep || !out->cost_monotone || !out->cost_form || !c.n_cont || !c.cont || !memo) {
        free(c.n_cont);
        free(c.cont);
        free(memo);
        oc_derived_free(out);
        return OC_ERR_NOMEM;
    }
    for (int32_t v = 0; v < g->n_values; v++)
        c.n_cont[v] = -1;
    for (int32_t v = 0; v < g->n_values; v++) {
        if (g->values[v].kind == OC_VALUE_INPUT)
            oc_d_take_input(&c, v);
        else if (g->values[v].kind == OC_VALUE_INITIALIZER)
            oc_d_take_base(&c, v);
    }
    char label[200];
    for (int32_t s_i = 0; s_i < g->n_nodes; s_i++) {
        const struct oc_node *n = &g->nodes[g->order[s_i]];
        if (!oc_d_reads_dep(&c, n)) { /* none of it depends on the symbols */
            for (int32_t o = 0; o < n->n_out; o++)
                if (n->out[o] >= 0)
                    oc_d_take_base(&c, n->out[o]);
            out->cost_monotone[n->index] = true;
            out->cost_form[n->index] = OC_DC_CONST;
            continue;
        }
        for (int32_t o = 0; o < n->n_out; o++)
            if (n->out[o] >= 0)
                out->dep[n->out[o]] = true;
        const struct oc_derive_rule *r = oc_d_rule(memo, n->domain, n->op_type);
        c.why[0] = 0;
        c.node = n->index;
        bool ok;
        if (!r)
            ok = oc_d_fail(&c,
                           "no derivation rule for %s (its output's shape is not "
                           "proven a polynomial)",
                           n->op_type);
        else
            ok = r->fn(&c, n);
        /* each derived quantity against the base analysis */
        for (int32_t o = 0; ok && o < n->n_out; o++) {
            int32_t v = n->out[o];
            if (v < 0)
                continue;
            const struct oc_value *val = &g->values[v];
            for (int32_t a = 0; out->dims[v] && a < val->rank; a++)
                if (out->dims[v][a] && val->dims[a].value >= 0 &&
                    !oc_d_equals_at(&c, out->dims[v][a], val->dims[a].value, base_point)) {
                    out->dims[v][a] = NULL;
                    ok = oc_d_fail(&c,
                                   "the derivation of output %d's dim %d disagrees with "
                                   "the analysis",
                                   o, a);
                }
            for (int32_t i = 0; i < c.n_cont[v]; i++)
                if (c.cont[v][i] && val->ival && i < val->n_ival &&
                    !oc_d_equals_at(&c, c.cont[v][i], val->ival[i], base_point)) {
                    c.cont[v][i] = NULL;
                    ok = oc_d_fail(&c,
                                   "the derivation of output %d's contents disagrees "
                                   "with the analysis",
                                   o);
                }
        }
        bool all = ok && oc_d_node_derived(&c, n);
        out->cost_monotone[n->index] = all && r && r->cost != OC_DC_NONE;
        out->cost_form[n->index] = all && r ? (uint8_t)r->cost : OC_DC_NONE;
        if (!all && out->stop_node < 0) {
            out->stop_node = n->index;
            snprintf(out->why, sizeof out->why, "node %s: %s", oc_d_label(n, label, sizeof label),
                     c.why[0] ? c.why : "an output's shape is not derived");
        }
    }
    oc_d_bound_wide(&c);
    free(memo);
    free(c.n_cont);
    free(c.cont);
    return OC_OK;
}

void oc_derived_free(struct oc_derived *d) {
    free(d->dims);
    free(d->dep);
    free(d->cost_monotone);
    free(d->cost_form);
    d->cost_form = NULL;
    d->dims = NULL;
    d->dep = NULL;
    d->cost_monotone = NULL;
}

/* ---- the proof of a fit (symbolic.h) ------------------------------------------------ */

/* Degree of p in symbol j. */
static int32_t oc_poly_degree(const struct oc_poly *p, int32_t j) {
    int32_t d = 0;
    for (int32_t t = 0; p && t < p->n_terms; t++)
        d = p->terms[t].exp[j] > d ? p->terms[t].exp[j] : d;
    return d;
}

/* Degree in symbol j of the product of a value's derived dims. */
static int32_t oc_numel_degree(const struct oc_derived *dv, const struct oc_graph *g, int32_t v, int32_t j) {
    int32_t d = 0;
    for (int32_t a = 0; a < g->values[v].rank; a++)
        d += oc_poly_degree(dv->dims[v][a], j);
    return d;
}

/* Degree in symbol j of input i's dims [from, to) (to < 0: to its rank):
   their sum (a product of them), or with `largest` the largest (one of
   them). -1 when the input is absent, of unknown rank or not derived. */
static int32_t oc_input_dims_degree(const struct oc_derived *dv, const struct oc_graph *g, const struct oc_node *n,
                                    int32_t i, int32_t from, int32_t to, bool largest, int32_t j) {
    int32_t v = i < n->n_in ? n->in[i] : -1;
    if (v < 0 || g->values[v].rank < 0 || (g->values[v].rank > 0 && !dv->dims[v]))
        return -1;
    int32_t r = g->values[v].rank, d = 0;
    to = to < 0 || to > r ? r : to;
    for (int32_t a = from < 0 ? 0 : from; a < to; a++) {
        int32_t e = oc_poly_degree(dv->dims[v][a], j);
        d = largest ? (e > d ? e : d) : d + e;
    }
    return d;
}

/* The degree in symbol j of the contraction factor K of a cost of form
   OC_DC_MATMUL, OC_DC_GEMM or OC_DC_CONV (derive.h); -1 when not known. */
static int32_t oc_contraction_degree(const struct oc_derived *dv, const struct oc_graph *g, const struct oc_node *n,
                                     int32_t j) {
    switch (dv->cost_form[n->index]) {
    case OC_DC_MATMUL: { /* A's last dim */
        int32_t v = n->n_in > 0 ? n->in[0] : -1, r = v >= 0 ? g->values[v].rank : -1;
        return r < 1 ? -1 : oc_input_dims_degree(dv, g, n, 0, r - 1, r, false, j);
    }
    case OC_DC_GEMM: { /* one dim of A that is also one of B */
        int32_t a = oc_input_dims_degree(dv, g, n, 0, 0, -1, true, j);
        int32_t b = oc_input_dims_degree(dv, g, n, 1, 0, -1, true, j);
        return a < 0 || b < 0 ? -1 : (a < b ? a : b);
    }
    case OC_DC_CONV: { /* X's dim 1 (over a constant group) times W's dims 2.. */
        int32_t x = oc_input_dims_degree(dv, g, n, 0, 1, 2, false, j);
        int32_t w = oc_input_dims_degree(dv, g, n, 1, 2, -1, false, j);
        return x < 0 || w < 0 ? -1 : x + w;
    }
    default:
        return -1;
    }
}

/* The degree in symbol j of node i's cost, by its form (derive.h): 0 for a
   node that reads no symbol; OC_DC_ONE: the largest of its tensors' sizes;
   OC_DC_TWO: output 0's plus the largest other's; a contraction: output 0's
   plus its factor K's, or the largest tensor's if larger. -1 when its cost
   is no polynomial of a known form or a tensor it touches is not derived. */
static int32_t oc_node_cost_degree(const struct oc_derived *dv, const struct oc_graph *g, int32_t i, int32_t j) {
    const struct oc_node *n = &g->nodes[i];
    uint8_t form = dv->cost_form[i];
    if (form == OC_DC_CONST)
        return 0;
    if (form == OC_DC_NONE || form == OC_DC_MONO)
        return -1;
    int32_t out0 = n->n_out > 0 && n->out[0] >= 0 ? oc_numel_degree(dv, g, n->out[0], j) : 0, other = 0;
    for (int side = 0; side < 2; side++)
        for (int32_t k = 0; k < (side ? n->n_out : n->n_in); k++) {
            int32_t v = side ? n->out[k] : n->in[k];
            if (v < 0 || (side && k == 0))
                continue;
            if (g->values[v].rank < 0 || (g->values[v].rank > 0 && !dv->dims[v]))
                return -1;
            int32_t d = oc_numel_degree(dv, g, v, j);
            other = d > other ? d : other;
        }
    int32_t single = out0 > other ? out0 : other; /* a term of one tensor's dims */
    if (form == OC_DC_ONE)
        return single;
    if (form == OC_DC_TWO)
        return out0 + other;
    int32_t kdeg = oc_contraction_degree(dv, g, n, j);
    if (kdeg < 0)
        return out0 + other;
    return out0 + kdeg > single ? out0 + kdeg : single;
}

/* Whether node i's cost formulas are proven: every dim it reads and writes
   derived, its cost a polynomial of a known form, of degree at most deg[j]
   in each symbol j (what the probe grid determines). */
static bool oc_node_formulas_proven(const struct oc_symbolic *s, const struct oc_derived *dv, const struct oc_graph *g,
                                    int32_t i, const int32_t *deg) {
    for (int32_t j = 0; j < s->n_syms; j++) {
        int32_t d = oc_node_cost_degree(dv, g, i, j);
        if (d < 0 || d > deg[j])
            return false;
    }
    return true;
}

bool oc_derived_degree(const struct oc_derived *dv, const struct oc_graph *g, int32_t n_syms, int32_t *deg) {
    for (int32_t j = 0; j < n_syms; j++)
        deg[j] = 0;
    if (dv->stop_node >= 0)
        return false;
    for (int32_t v = 0; v < g->n_values; v++) { /* every dim, and every value's size */
        int32_t r = g->values[v].rank;
        if (r < 0 || (r > 0 && !dv->dims[v])) {
            if (g->values[v].kind == OC_VALUE_INITIALIZER)
                continue; /* a weight of no known shape: no symbol in it */
            return false;
        }
        for (int32_t a = 0; a < r; a++)
            if (!dv->dims[v][a])
                return false;
        for (int32_t j = 0; j < n_syms; j++) {
            int32_t d = oc_numel_degree(dv, g, v, j);
            deg[j] = d > deg[j] ? d : deg[j];
        }
    }
    for (int32_t i = 0; i < g->n_nodes; i++) /* every cost: its form's degree */
        for (int32_t j = 0; j < n_syms && !(g->nodes[i].cost.flags & OC_COST_UNKNOWN); j++) {
            int32_t d = oc_node_cost_degree(dv, g, i, j);
            if (d < 0)
                return false;
            deg[j] = d > deg[j] ? d : deg[j];
        }
    return true;
}

/* The proof of s's fit from dv, s's derivation over every binding (each
   symbol >= 1); frees dv. */
static enum oc_status oc_symbolic_prove_with(struct oc_symbolic *s, const struct oc_analysis *base,
                                             struct oc_derived dv) {
    const struct oc_graph *g = base->graph;
    int32_t deg[OC_SYM_MAX] = {0}; /* the degree the grid determines in each symbol */
    for (int32_t j = 0; j < s->n_syms; j++)
        deg[j] = s->grid_points[j] - 1;
    s->value_derived = oc_arena_array(&s->arena, (size_t)g->n_values + 1, sizeof *s->value_derived);
    s->node_proven = oc_arena_array(&s->arena, (size_t)g->n_nodes + 1, sizeof *s->node_proven);
    if (!s->value_derived || !s->node_proven) {
        oc_derived_free(&dv);
        return OC_ERR_NOMEM;
    }
    if (dv.stop_node >= 0)
        snprintf(s->why, sizeof s->why, "%s", dv.why);
    bool all = dv.stop_node < 0;
    /* what is derived holds where the guards do; the fits of the costs are
       proofs only when every probe binding lies there */
    oc_derived_guards_text(&dv, s, s->where, sizeof s->where);
    static const int64_t one[OC_SYM_MAX] = {1, 1, 1, 1};
    bool probes_inside = oc_derived_guards_hold_at(&dv, s->n_syms, one) && /* the base analysis, the grid */
                         oc_derived_guards_hold_on_grid(&dv, s->n_syms, s->grid, s->grid_points);
    for (int c = 0; c < 2 && probes_inside && s->checked; c++)
        probes_inside = oc_derived_guards_hold_at(&dv, s->n_syms, oc_sym_checks[c]);
    if (!probes_inside && !s->why[0])
        snprintf(s->why, sizeof s->why, "the probe bindings go beyond where the shapes are polynomials (%s)", s->where);
    /* a derived dim replaces its fit; the two must agree */
    for (int32_t v = 0; v < g->n_values; v++) {
        int32_t r = g->values[v].rank;
        bool ok = r >= 0 && (r == 0 || dv.dims[v]);
        for (int32_t a = 0; ok && a < r; a++) {
            const struct oc_poly *d = dv.dims[v][a], *f = s->dims[v] ? s->dims[v][a] : NULL;
            if (!d) {
                ok = false;
            } else if (f && !oc_poly_equal(d, f)) {
                ok = false;
                if (!s->why[0])
                    snprintf(s->why, sizeof s->why, "tensor '%.100s': its derived and fitted dims differ",
                             g->values[v].name ? g->values[v].name : "");
            } else if (s->dims[v]) {
                s->dims[v][a] = d;
            }
        }
        s->value_derived[v] = ok;
        all &= ok || g->values[v].kind == OC_VALUE_INITIALIZER;
    }
    bool totals = true;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node_poly *np = &s->nodes[i];
        bool outs = true;
        for (int32_t o = 0; o < g->nodes[i].n_out; o++)
            outs &= g->nodes[i].out[o] < 0 || s->value_derived[g->nodes[i].out[o]];
        s->node_proven[i] = outs && np->macs && np->flops && np->activation_bytes && probes_inside &&
                            oc_node_formulas_proven(s, &dv, g, i, deg);
        if (!s->node_proven[i] && !(g->nodes[i].cost.flags & OC_COST_UNKNOWN)) {
            totals = false;
            if (!s->why[0])
                snprintf(s->why, sizeof s->why,
                         "node '%.100s' (%s): its cost is not proven a polynomial of the "
                         "degree the probes determine",
                         g->nodes[i].name[0] ? g->nodes[i].name : g->nodes[i].op_type, g->nodes[i].op_type);
        }
    }
    for (int32_t i = 0; i < g->n_inputs && totals; i++) { /* input bytes: each input's numel */
        int32_t v = g->inputs[i];
        totals = s->value_derived[v];
        for (int32_t j = 0; totals && j < s->n_syms; j++)
            totals = oc_numel_degree(&dv, g, v, j) <= deg[j];
    }
    s->totals_proven = totals && s->macs && s->flops && s->activation_bytes && s->input_bytes && s->params;
    s->all_proven = all && s->totals_proven;
    if (!s->all_proven && !s->why[0])
        snprintf(s->why, sizeof s->why, "a total's formula is not proven");
    oc_derived_free(&dv);
    return OC_OK;
}

static void oc_whole_box(int64_t *one, int64_t *inf) {
    for (int32_t j = 0; j < OC_SYM_MAX; j++) {
        one[j] = 1;
        inf[j] = INT64_MAX;
    }
}

enum oc_status oc_symbolic_prove(struct oc_symbolic *s, const struct oc_analysis *base) {
    int64_t one[OC_SYM_MAX], inf[OC_SYM_MAX];
    oc_whole_box(one, inf);
    struct oc_derived dv;
    if (oc_derive(base, s, one, one, inf, &dv) != OC_OK)
        return OC_ERR_NOMEM;
    return oc_symbolic_prove_with(s, base, dv);
}

enum oc_status oc_symbolic_derive(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                  const struct oc_analysis *base, struct oc_symbolic **out, struct oc_diag *d) {
    struct oc_symbolic *s;
    enum oc_status st = oc_symbolic_for(base, &s, d);
    if (st != OC_OK)
        return st;
    int64_t one[OC_SYM_MAX], inf[OC_SYM_MAX];
    oc_whole_box(one, inf);
    struct oc_derived dv;
    if (oc_derive(base, s, one, one, inf, &dv) != OC_OK) {
        oc_symbolic_free(s);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    /* the derivation's degree bound, where it covers the whole graph and
       every point of the grid 1..D+1 lies where it holds; else the grid
       of fits, checked */
    int32_t k = s->n_syms, n = k <= 2 ? OC_SYM_DEGREE + 1 : OC_SYM_DEGREE;
    const int32_t npts[OC_SYM_MAX] = {n, n, n, n};
    int32_t deg[OC_SYM_MAX], pts[OC_SYM_MAX] = {1, 1, 1, 1};
    bool derived = oc_derived_degree(&dv, base->graph, k, deg) && oc_symbolic_base_at_one(base);
    for (int32_t j = 0; derived && j < k; j++) {
        pts[j] = deg[j] + 1;
        derived = pts[j] <= n;
    }
    derived = derived && oc_derived_guards_hold_on_grid(&dv, k, oc_sym_grid_derived, pts);
    st = derived ? oc_symbolic_fit_grid(m, opts, base, s, oc_sym_grid_derived, pts, false, d)
                 : oc_symbolic_fit_grid(m, opts, base, s, oc_sym_grid, npts, true, d);
    if (st == OC_OK)
        st = oc_symbolic_prove_with(s, base, dv);
    else
        oc_derived_free(&dv);
    if (st != OC_OK) {
        oc_symbolic_free(s);
        return st == OC_ERR_NOMEM ? oc_diag_set(d, st, "out of memory") : st;
    }
    *out = s;
    return OC_OK;
}
