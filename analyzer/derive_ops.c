/*
 * derive_ops.c — one derivation rule per op (derive_rules.h): the op's shape
 * arithmetic on polynomials, and on the contents of the small integer
 * tensors exported graphs compute shapes with. Every rule follows the ONNX
 * operator specification, not onnxcost's shape rule (the engine checks the
 * two agree at the base binding). A rule that cannot prove an output a
 * polynomial over the whole region fails with the reason.
 */
#include "derive_rules.h"

#include "attr.h"
#include "dtype.h"
#include "fold.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what rules read and write (derive_rules.h) ------------------------------------ */

bool oc_d_fail(struct oc_dctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return false;
}

int32_t oc_d_in(const struct oc_node *n, int32_t i) {
    return i >= 0 && i < n->n_in ? n->in[i] : -1;
}

int32_t oc_d_rank(const struct oc_dctx *c, int32_t v) {
    return v >= 0 ? c->g->values[v].rank : -1;
}

const struct oc_poly *oc_d_dim(const struct oc_dctx *c, int32_t v, int32_t axis) {
    if (v < 0 || axis < 0 || axis >= c->g->values[v].rank || !c->out->dims[v])
        return NULL;
    return c->out->dims[v][axis];
}

bool oc_d_cont(const struct oc_dctx *c, int32_t v, const struct oc_poly *const **p, int32_t *n) {
    if (v < 0 || c->n_cont[v] < 0)
        return false;
    for (int32_t i = 0; i < c->n_cont[v]; i++)
        if (!c->cont[v][i])
            return false;
    *p = c->cont[v];
    *n = c->n_cont[v];
    return true;
}

bool oc_d_fail_values(struct oc_dctx *c, int32_t v, const char *what) {
    const struct oc_value *val = v >= 0 ? &c->g->values[v] : NULL;
    const struct oc_node *p = val && val->producer >= 0 ? &c->g->nodes[val->producer] : NULL;
    if (!val)
        return oc_d_fail(c, "%s is not given", what);
    return oc_d_fail(c, "%s ('%.60s'%s%s) is not derived as polynomials", what, val->name ? val->name : "",
                     p ? ", from " : "", p ? p->op_type : "");
}

bool oc_d_const_ints(const struct oc_dctx *c, int32_t v, int64_t *buf, int32_t cap, int32_t *n) {
    const struct oc_poly *const *p;
    int32_t m;
    if (!oc_d_cont(c, v, &p, &m) || m > cap)
        return false;
    for (int32_t i = 0; i < m; i++)
        if (!oc_d_is_const(p[i], &buf[i]))
            return false;
    *n = m;
    return true;
}

bool oc_d_const_floats(const struct oc_dctx *c, int32_t v, double *buf, int32_t cap, int32_t *n) {
    if (v < 0 || c->out->dep[v])
        return false;
    const struct oc_value *val = &c->g->values[v];
    if (!val->fval || val->n_ival > cap)
        return false;
    memcpy(buf, val->fval, (size_t)val->n_ival * sizeof *buf);
    *n = (int32_t)val->n_ival;
    return true;
}

void oc_d_out_dims(struct oc_dctx *c, int32_t v, const struct oc_poly *const *dims, int32_t rank) {
    if (v < 0 || c->g->values[v].rank != rank || rank <= 0)
        return;
    const struct oc_poly **d = oc_arena_array(&c->s->arena, (size_t)rank, sizeof *d);
    if (!d)
        return;
    memcpy(d, dims, (size_t)rank * sizeof *d);
    c->out->dims[v] = d;
}

/* Whether the box has an upper end in every symbol. */
static bool oc_d_box_bounded(const struct oc_dctx *c) {
    for (int32_t j = 0; j < c->k; j++)
        if (c->hi[j] == INT64_MAX)
            return false;
    return true;
}

/* Whether element p of a value of type dt equals the polynomial at every
   binding of the box: the type holds every value p takes there (no wrap,
   no saturation). A constant is checked once. Where the box has no upper
   end (formulas), an int64 element that may pass 64 bits is recorded, and
   the engine bounds the dims where none does (derive.c); a narrower type
   needs its bounds. */
static bool oc_d_type_holds(struct oc_dctx *c, int32_t dt, const struct oc_poly *p) {
    int64_t tlo, thi, lo, hi;
    if (!oc_fold_dtype(dt) || dt == OC_DT_FLOAT || dt == OC_DT_DOUBLE || dt == OC_DT_FLOAT16 ||
        dt == OC_DT_BFLOAT16)
        return false;
    oc_fold_int_range(dt, &tlo, &thi);
    if (oc_poly_bounds(p, c->k, c->lo, c->hi, &lo, &hi))
        return lo >= tlo && hi <= thi;
    if ((dt != OC_DT_INT64 && dt != OC_DT_UINT64) || oc_d_box_bounded(c))
        return false;
    if (c->n_wide >= OC_D_MAX_WIDE)
        return false;
    for (int32_t i = 0; i < c->n_wide; i++)
        if (oc_poly_equal(c->wide[i], p))
            return true;
    if (!c->n_wide)
        c->wide_node = c->node;
    c->wide[c->n_wide] = p;
    c->wide_unsigned[c->n_wide++] = dt == OC_DT_UINT64;
    return true;
}

void oc_d_out_cont(struct oc_dctx *c, int32_t v, const struct oc_poly *const *elems, int32_t n) {
    if (v < 0 || n < 0 || n > OC_D_MAX_CONT)
        return;
    const struct oc_poly **e = oc_arena_array(&c->s->arena, (size_t)n + 1, sizeof *e);
    if (!e)
        return;
    memcpy(e, elems, (size_t)n * sizeof *e);
    for (int32_t i = 0; i < n; i++) /* an element its type cannot hold over the box is not derived */
        if (e[i] && !oc_d_type_holds(c, c->g->values[v].dtype, e[i]))
            e[i] = NULL;
    c->cont[v] = e;
    c->n_cont[v] = n;
}

bool oc_d_is_const(const struct oc_poly *p, int64_t *v) {
    return oc_poly_constant(p, v);
}

int oc_d_sign(const struct oc_dctx *c, const struct oc_poly *p) {
    return oc_poly_sign(p, c->k, c->lo, c->hi);
}

bool oc_d_assume_nonneg(struct oc_dctx *c, const struct oc_poly *p) {
    int sg = oc_d_sign(c, p);
    if (sg == 0 || sg == 1)
        return true;
    if (sg == -1 || !p || c->out->n_guards >= OC_DERIVE_MAX_GUARDS)
        return false;
    for (int32_t i = 0; i < c->out->n_guards; i++)
        if (oc_poly_equal(c->out->guards[i], p))
            return true;
    c->out->guards[c->out->n_guards++] = p;
    return true;
}

typedef const struct oc_poly *P;

enum { OC_DR_MAX_RANK = 16 };

static int32_t oc_dr_out(const struct oc_node *n, int32_t i) {
    return i >= 0 && i < n->n_out ? n->out[i] : -1;
}

static int64_t oc_dr_attr(const struct oc_node *n, const char *name, int64_t def) {
    int64_t v = def;
    struct oc_diag d = {0};
    if (oc_attr_int(n, name, def, &v, &d) != OC_OK)
        return def;
    return v;
}

/* Integer list from an attribute, else from input `in` (constant), else
   absent: *n = -1. false when present but not readable. */
static bool oc_dr_ints(struct oc_dctx *c, const struct oc_node *n, const char *attr, int32_t in, int64_t *buf,
                       int32_t cap, int32_t *cnt) {
    *cnt = -1;
    if (attr && oc_attr_has(n, attr)) {
        const int64_t *v;
        int64_t k;
        struct oc_diag d = {0};
        if (oc_attr_ints(n, attr, &v, &k, &d) != OC_OK || k > cap)
            return oc_d_fail(c, "attribute %s is not a short list of integers", attr);
        memcpy(buf, v, (size_t)k * sizeof *buf);
        *cnt = (int32_t)k;
        return true;
    }
    int32_t v = oc_d_in(n, in);
    if (v < 0)
        return true;
    if (!oc_d_const_ints(c, v, buf, cap, cnt))
        return oc_d_fail(c, "input %d is not a constant list (it depends on the symbols or is not known)", in);
    return true;
}

static bool oc_dr_dims(struct oc_dctx *c, int32_t v, P *out, int32_t *rank) {
    int32_t r = oc_d_rank(c, v);
    if (r < 0 || r > OC_DR_MAX_RANK)
        return oc_d_fail(c, "an input's rank is not known");
    for (int32_t a = 0; a < r; a++)
        if (!(out[a] = oc_d_dim(c, v, a)))
            return oc_d_fail(c, "an input's dim %d is not derived", a);
    *rank = r;
    return true;
}

static bool oc_dr_axis(struct oc_dctx *c, int64_t axis, int32_t rank, int32_t *out) {
    *out = 0;
    if (axis < -rank || axis >= rank)
        return oc_d_fail(c, "axis %lld out of range", (long long)axis);
    *out = (int32_t)(axis < 0 ? axis + rank : axis);
    return true;
}

static bool oc_dr_is(P p, int64_t want) {
    int64_t v;
    return oc_d_is_const(p, &v) && v == want;
}

/* The product of dims [from, to). */
static P oc_dr_prod(struct oc_dctx *c, const P *d, int32_t from, int32_t to) {
    P r = oc_poly_const(c->s, 1);
    for (int32_t a = from; a < to && r; a++)
        r = oc_poly_mul(c->s, r, d[a]);
    return r;
}

/* Numpy broadcasting of one axis: the dims other than 1 must be one
   polynomial (a constant 1 yields to it). */
static bool oc_dr_bcast1(struct oc_dctx *c, const P *cand, int32_t n, P *out) {
    P r = NULL;
    for (int32_t i = 0; i < n; i++) {
        if (oc_dr_is(cand[i], 1))
            continue;
        if (!r)
            r = cand[i];
        else if (!oc_poly_equal(r, cand[i]))
            return oc_d_fail(c, "broadcasts two dims that are not one polynomial");
    }
    *out = r ? r : oc_poly_const(c->s, 1);
    return *out != NULL;
}

static bool oc_dr_broadcast(struct oc_dctx *c, const int32_t *vs, int32_t nv, P *out, int32_t *rank) {
    P d[4][OC_DR_MAX_RANK];
    int32_t r[4], rmax = 0;
    if (nv > 4)
        return oc_d_fail(c, "more than 4 inputs broadcast");
    for (int32_t i = 0; i < nv; i++) {
        if (!oc_dr_dims(c, vs[i], d[i], &r[i]))
            return false;
        rmax = r[i] > rmax ? r[i] : rmax;
    }
    for (int32_t a = 0; a < rmax; a++) {
        P cand[4];
        int32_t m = 0;
        for (int32_t i = 0; i < nv; i++) {
            int32_t ai = a - (rmax - r[i]);
            if (ai >= 0)
                cand[m++] = d[i][ai];
        }
        if (!oc_dr_bcast1(c, cand, m, &out[a]))
            return false;
    }
    *rank = rmax;
    return true;
}

static bool oc_dr_int_type(int32_t dt) {
    return (dt >= 2 && dt <= 7) || dt == 9 || dt == 12 || dt == 13;
}

/* ---- same shape as input 0 ------------------------------------------------------------ */

static bool oc_dr_same_as(struct oc_dctx *c, const struct oc_node *n, int32_t in, int32_t out) {
    P d[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_dims(c, oc_d_in(n, in), d, &r))
        return false;
    oc_d_out_dims(c, oc_dr_out(n, out), d, r);
    return true;
}

static bool oc_dr_unary(struct oc_dctx *c, const struct oc_node *n) {
    if (!oc_dr_same_as(c, n, 0, 0))
        return false;
    for (int32_t o = 1; o < n->n_out; o++) /* Dropout's mask */
        if (oc_dr_out(n, o) >= 0 && oc_d_rank(c, oc_dr_out(n, o)) == oc_d_rank(c, oc_d_in(n, 0)))
            oc_dr_same_as(c, n, 0, o);
    return true;
}

/* Identity, Neg, and Cast between integer and bool types: the contents too.
   A Cast is derived only where it changes no value over the box: to an
   integer type, every value in the type's range (oc_d_out_cont checks it:
   an int8 of 200 wraps to -56); to bool, x != 0, so values in [0, 1] pass
   through and values of one sign over the whole box are 1. */
static bool oc_dr_identity(struct oc_dctx *c, const struct oc_node *n) {
    if (!oc_dr_same_as(c, n, 0, 0))
        return false;
    const P *e;
    int32_t k;
    int32_t in = oc_d_in(n, 0), out = oc_dr_out(n, 0);
    if (!oc_d_cont(c, in, &e, &k))
        return true;
    P o[OC_D_MAX_CONT];
    bool neg = strcmp(n->op_type, "Neg") == 0;
    bool cast = strcmp(n->op_type, "Cast") == 0 || strcmp(n->op_type, "CastLike") == 0;
    int32_t to = c->g->values[out].dtype;
    if (cast && (!oc_dr_int_type(to) || !oc_dr_int_type(c->g->values[in].dtype)))
        return true; /* through floats: not followed */
    for (int32_t i = 0; i < k; i++) {
        o[i] = neg ? oc_poly_sub(c->s, oc_poly_const(c->s, 0), e[i]) : e[i];
        if (cast && to == OC_DT_BOOL) {
            int64_t lo, hi;
            int sg = oc_d_sign(c, e[i]);
            if (sg == 1 || sg == -1)
                o[i] = oc_poly_const(c->s, 1);
            else if (!oc_poly_bounds(e[i], c->k, c->lo, c->hi, &lo, &hi) || lo < 0 || hi > 1)
                o[i] = NULL; /* zero at some bindings, not at others */
        }
    }
    oc_d_out_cont(c, out, o, k);
    return true;
}

/* ---- elementwise with broadcasting ----------------------------------------------------- */

enum {
    OC_DR_ADD,
    OC_DR_SUB,
    OC_DR_MUL,
    OC_DR_DIV,
    OC_DR_EQ,
    OC_DR_LT,
    OC_DR_GT,
    OC_DR_LE,
    OC_DR_GE,
    OC_DR_MAX,
    OC_DR_MIN,
    OC_DR_WHERE,
    OC_DR_NONE
};

static int oc_dr_op(const char *t) {
    static const char *const names[] = {
        "Add", "Sub", "Mul", "Div", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Max", "Min", "Where"};
    for (int i = 0; i < OC_DR_NONE; i++)
        if (strcmp(t, names[i]) == 0)
            return i;
    return OC_DR_NONE;
}

/* One element of a binary op on contents: NULL when not derived. */
static P oc_dr_elem(struct oc_dctx *c, int op, P a, P b) {
    switch (op) {
    case OC_DR_ADD: return oc_poly_add(c->s, a, b);
    case OC_DR_SUB: return oc_poly_sub(c->s, a, b);
    case OC_DR_MUL: return oc_poly_mul(c->s, a, b);
    case OC_DR_DIV: return oc_poly_div_exact(c->s, a, b); /* integer division that leaves no remainder */
    case OC_DR_MAX:
    case OC_DR_MIN: {
        int sg = oc_d_sign(c, oc_poly_sub(c->s, a, b));
        if (sg == 2)
            return NULL; /* the larger one changes within the region */
        return (sg >= 0) == (op == OC_DR_MAX) ? a : b;
    }
    default: {
        int sg = oc_d_sign(c, oc_poly_sub(c->s, a, b));
        if (sg == 2)
            return NULL;
        bool t = op == OC_DR_EQ   ? sg == 0
                 : op == OC_DR_LT ? sg < 0
                 : op == OC_DR_GT ? sg > 0
                 : op == OC_DR_LE ? sg <= 0
                                  : sg >= 0;
        return oc_poly_const(c->s, t);
    }
    }
}

static bool oc_dr_eltwise(struct oc_dctx *c, const struct oc_node *n) {
    int32_t vs[4], nv = 0;
    for (int32_t i = 0; i < n->n_in && nv < 4; i++)
        if (n->in[i] >= 0)
            vs[nv++] = n->in[i];
    P d[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_broadcast(c, vs, nv, d, &r))
        return false;
    int32_t out = oc_dr_out(n, 0);
    oc_d_out_dims(c, out, d, r);
    /* contents of shape arithmetic: every operand's known, as long as the output */
    int op = oc_dr_op(n->op_type);
    if (op == OC_DR_NONE || r > 1 || (op == OC_DR_WHERE ? nv != 3 : nv != 2))
        return true;
    int64_t len;
    if (r == 1 && !oc_d_is_const(d[0], &len))
        return true;
    if (r == 0)
        len = 1;
    if (len > OC_D_MAX_CONT || (!oc_dr_int_type(c->g->values[out].dtype) && c->g->values[out].dtype != 9))
        return true;
    const P *e[3];
    int32_t k[3];
    for (int32_t i = 0; i < nv; i++)
        if (!oc_d_cont(c, vs[i], &e[i], &k[i]) || (k[i] != len && k[i] != 1))
            return true;
    P o[OC_D_MAX_CONT];
    for (int64_t i = 0; i < len; i++) {
        P x[3] = {NULL, NULL, NULL};
        for (int32_t j = 0; j < nv; j++)
            x[j] = e[j][k[j] == 1 ? 0 : i];
        if (op == OC_DR_WHERE) {
            int64_t cond;
            o[i] = oc_d_is_const(x[0], &cond) ? (cond ? x[1] : x[2]) : NULL;
        } else {
            o[i] = oc_dr_elem(c, op, x[0], x[1]);
        }
    }
    oc_d_out_cont(c, out, o, (int32_t)len);
    return true;
}

/* ---- shape arithmetic ---------------------------------------------------------------- */

static bool oc_dr_shape(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    int64_t start = oc_dr_attr(n, "start", 0), end = oc_dr_attr(n, "end", r);
    if (start < 0)
        start += r;
    if (end < 0)
        end += r;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    int32_t k = end > start ? (int32_t)(end - start) : 0;
    P len = oc_poly_const(c->s, k);
    oc_d_out_dims(c, oc_dr_out(n, 0), &len, 1);
    oc_d_out_cont(c, oc_dr_out(n, 0), d + start, k);
    return true;
}

static bool oc_dr_size(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    P prod = oc_dr_prod(c, d, 0, r);
    oc_d_out_cont(c, oc_dr_out(n, 0), &prod, 1);
    return true;
}

static bool oc_dr_gather(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], id[OC_DR_MAX_RANK], o[2 * OC_DR_MAX_RANK];
    int32_t r, ri, axis;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_dims(c, oc_d_in(n, 1), id, &ri) ||
        !oc_dr_axis(c, oc_dr_attr(n, "axis", 0), r, &axis))
        return false;
    int32_t k = 0;
    for (int32_t a = 0; a < axis; a++)
        o[k++] = d[a];
    for (int32_t a = 0; a < ri; a++)
        o[k++] = id[a];
    for (int32_t a = axis + 1; a < r; a++)
        o[k++] = d[a];
    oc_d_out_dims(c, oc_dr_out(n, 0), o, k);
    const P *e;
    int32_t ne;
    int64_t idx[OC_D_MAX_CONT];
    int32_t ni;
    if (r != 1 || ri > 1 || !oc_d_cont(c, oc_d_in(n, 0), &e, &ne) ||
        !oc_d_const_ints(c, oc_d_in(n, 1), idx, OC_D_MAX_CONT, &ni))
        return true;
    P out[OC_D_MAX_CONT];
    for (int32_t i = 0; i < ni; i++) {
        int64_t j = idx[i] < 0 ? idx[i] + ne : idx[i];
        if (j < 0 || j >= ne)
            return true;
        out[i] = e[j];
    }
    oc_d_out_cont(c, oc_dr_out(n, 0), out, ni);
    return true;
}

/* the contents of input 0, unchanged (Unsqueeze, Squeeze, Reshape, Flatten) */
static void oc_dr_pass_cont(struct oc_dctx *c, const struct oc_node *n) {
    const P *e;
    int32_t k;
    if (oc_d_cont(c, oc_d_in(n, 0), &e, &k))
        oc_d_out_cont(c, oc_dr_out(n, 0), e, k);
}

static bool oc_dr_unsqueeze(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r, na;
    int64_t axes[OC_DR_MAX_RANK];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_ints(c, n, "axes", 1, axes, OC_DR_MAX_RANK, &na))
        return false;
    if (na < 0 || r + na > OC_DR_MAX_RANK)
        return oc_d_fail(c, "no axes");
    int32_t ro = r + na;
    bool ins[OC_DR_MAX_RANK] = {false};
    for (int32_t i = 0; i < na; i++) {
        int32_t a;
        if (!oc_dr_axis(c, axes[i], ro, &a))
            return false;
        ins[a] = true;
    }
    for (int32_t a = 0, k = 0; a < ro; a++)
        o[a] = ins[a] ? oc_poly_const(c->s, 1) : d[k++];
    oc_d_out_dims(c, oc_dr_out(n, 0), o, ro);
    oc_dr_pass_cont(c, n);
    return true;
}

static bool oc_dr_squeeze(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r, na;
    int64_t axes[OC_DR_MAX_RANK];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_ints(c, n, "axes", 1, axes, OC_DR_MAX_RANK, &na))
        return false;
    bool drop[OC_DR_MAX_RANK] = {false};
    if (na < 0) { /* every dim of size 1: only when that is decided for each */
        for (int32_t a = 0; a < r; a++) {
            int64_t v;
            if (!oc_d_is_const(d[a], &v) && oc_d_sign(c, oc_poly_sub(c->s, d[a], oc_poly_const(c->s, 1))) != 1)
                return oc_d_fail(c, "squeezes without axes a dim that may be 1");
            drop[a] = oc_d_is_const(d[a], &v) && v == 1;
        }
    } else {
        for (int32_t i = 0; i < na; i++) {
            int32_t a;
            if (!oc_dr_axis(c, axes[i], r, &a))
                return false;
            drop[a] = true;
        }
    }
    int32_t k = 0;
    for (int32_t a = 0; a < r; a++)
        if (!drop[a])
            o[k++] = d[a];
    oc_d_out_dims(c, oc_dr_out(n, 0), o, k);
    oc_dr_pass_cont(c, n);
    return true;
}

static bool oc_dr_concat(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r0 = -1, axis = 0;
    P cont[OC_D_MAX_CONT];
    int32_t nc = 0;
    bool have_cont = true;
    for (int32_t i = 0; i < n->n_in; i++) {
        int32_t v = n->in[i], r;
        if (v < 0)
            continue;
        if (!oc_dr_dims(c, v, d, &r))
            return false;
        if (r0 < 0) {
            r0 = r;
            if (!oc_dr_axis(c, oc_dr_attr(n, "axis", 0), r, &axis))
                return false;
            memcpy(o, d, (size_t)r * sizeof *o);
        } else {
            if (r != r0)
                return oc_d_fail(c, "inputs of different ranks");
            for (int32_t a = 0; a < r; a++) {
                if (a == axis)
                    o[a] = oc_poly_add(c->s, o[a], d[a]);
                else if (!oc_poly_equal(o[a], d[a]))
                    return oc_d_fail(c, "inputs whose dim %d is not one polynomial", a);
            }
        }
        const P *e;
        int32_t k;
        if (have_cont && oc_d_cont(c, v, &e, &k) && nc + k <= OC_D_MAX_CONT) {
            memcpy(cont + nc, e, (size_t)k * sizeof *e);
            nc += k;
        } else {
            have_cont = false;
        }
    }
    if (r0 < 0)
        return oc_d_fail(c, "no input");
    oc_d_out_dims(c, oc_dr_out(n, 0), o, r0);
    if (have_cont && r0 == 1)
        oc_d_out_cont(c, oc_dr_out(n, 0), cont, nc);
    return true;
}

static bool oc_dr_reshape(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r, k;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    const P *t;
    P tbuf[OC_DR_MAX_RANK];
    if (oc_attr_has(n, "shape")) { /* Reshape-1 */
        int64_t s[OC_DR_MAX_RANK];
        if (!oc_dr_ints(c, n, "shape", -1, s, OC_DR_MAX_RANK, &k) || k < 0)
            return false;
        for (int32_t i = 0; i < k; i++)
            tbuf[i] = oc_poly_const(c->s, s[i]);
        t = tbuf;
    } else if (!oc_d_cont(c, oc_d_in(n, 1), &t, &k) || k > OC_DR_MAX_RANK) {
        return oc_d_fail_values(c, oc_d_in(n, 1), "the target shape");
    }
    bool allowzero = oc_dr_attr(n, "allowzero", 0) != 0;
    int32_t infer = -1;
    P known = oc_poly_const(c->s, 1);
    for (int32_t i = 0; i < k; i++) {
        int64_t v;
        if (oc_d_is_const(t[i], &v) && v == -1) {
            if (infer >= 0)
                return oc_d_fail(c, "two -1 in the target shape");
            infer = i;
            continue;
        }
        if (oc_d_is_const(t[i], &v) && v == 0 && !allowzero) {
            if (i >= r)
                return oc_d_fail(c, "a 0 past the input's rank");
            o[i] = d[i];
        } else {
            if (oc_d_sign(c, t[i]) != 1 && !oc_d_is_const(t[i], &v))
                return oc_d_fail(c, "a target dim that may be 0 or -1 within the region");
            o[i] = t[i];
        }
        known = oc_poly_mul(c->s, known, o[i]);
    }
    P numel = oc_dr_prod(c, d, 0, r);
    if (infer >= 0 && !(o[infer] = oc_poly_div_exact(c->s, numel, known)))
        return oc_d_fail(c, "the -1 dim is not an exact quotient of polynomials");
    if (!oc_poly_equal(oc_dr_prod(c, o, 0, k), numel))
        return oc_d_fail(c, "the element count changes");
    oc_d_out_dims(c, oc_dr_out(n, 0), o, k);
    oc_dr_pass_cont(c, n);
    return true;
}

static bool oc_dr_flatten(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[2];
    int32_t r, axis;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    int64_t ax = oc_dr_attr(n, "axis", 1);
    if (ax < -r || ax > r)
        return oc_d_fail(c, "axis out of range");
    axis = (int32_t)(ax < 0 ? ax + r : ax);
    o[0] = oc_dr_prod(c, d, 0, axis);
    o[1] = oc_dr_prod(c, d, axis, r);
    oc_d_out_dims(c, oc_dr_out(n, 0), o, 2);
    oc_dr_pass_cont(c, n);
    return true;
}

static bool oc_dr_transpose(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r, np;
    int64_t perm[OC_DR_MAX_RANK];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_ints(c, n, "perm", -1, perm, OC_DR_MAX_RANK, &np))
        return false;
    for (int32_t a = 0; a < r; a++) {
        int64_t p = np < 0 ? r - 1 - a : perm[a];
        if (np >= 0 && np != r)
            return oc_d_fail(c, "perm of another rank");
        if (p < 0 || p >= r)
            return oc_d_fail(c, "perm out of range");
        o[a] = d[p];
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), o, r);
    return true;
}

static bool oc_dr_expand(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r, k;
    const P *t;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    if (!oc_d_cont(c, oc_d_in(n, 1), &t, &k) || k > OC_DR_MAX_RANK)
        return oc_d_fail_values(c, oc_d_in(n, 1), "the shape to expand to");
    int32_t ro = r > k ? r : k;
    for (int32_t a = 0; a < ro; a++) {
        P cand[2];
        int32_t m = 0;
        if (a - (ro - r) >= 0)
            cand[m++] = d[a - (ro - r)];
        if (a - (ro - k) >= 0)
            cand[m++] = t[a - (ro - k)];
        if (!oc_dr_bcast1(c, cand, m, &o[a]))
            return false;
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), o, ro);
    return true;
}

/* a <= b over the whole region */
static bool oc_dr_le(struct oc_dctx *c, P a, P b) {
    int sg = oc_d_sign(c, oc_poly_sub(c->s, b, a));
    return sg == 0 || sg == 1;
}

/* One axis of Slice: [start, end) over a dim, clamped as the spec says.
   Where a clamp is not decided over the region, the unclamped length is
   taken under a guard (end <= dim, 0 <= start <= end): it holds where the
   guard does (the causal mask bias[:, :, :seq, :seq] of a 1024-position
   model, for seq <= 1024). Step 1, or -1 for the whole axis reversed. */
static P oc_dr_slice1(struct oc_dctx *c, P dim, P start, P end, int64_t step) {
    const int64_t big = (int64_t)1 << 62;
    int64_t v;
    if (step == -1) { /* x[::-1]: start past the end, end before the start */
        int64_t s0, e0;
        if (oc_d_is_const(start, &s0) && s0 >= big && oc_d_is_const(end, &e0) && e0 <= -big)
            return dim;
        return NULL;
    }
    if (step != 1)
        return NULL;
    /* negative indices count from the end: only constants are normalized */
    if (oc_d_is_const(start, &v) && v < 0)
        start = v <= -big ? oc_poly_const(c->s, 0) : oc_poly_add(c->s, dim, start);
    if (oc_d_is_const(end, &v) && v < 0)
        end = v <= -big ? oc_poly_const(c->s, 0) : oc_poly_add(c->s, dim, end);
    /* an end at or past the dim (INT64_MAX and the like) is the dim */
    if ((oc_d_is_const(end, &v) && v >= big) || oc_dr_le(c, dim, end))
        end = dim;
    /* then 0 <= start <= end <= dim, decided or guarded */
    if (!start || !end || !oc_d_assume_nonneg(c, start) || !oc_d_assume_nonneg(c, oc_poly_sub(c->s, end, start)) ||
        !oc_d_assume_nonneg(c, oc_poly_sub(c->s, dim, end)))
        return NULL;
    return oc_poly_sub(c->s, end, start);
}

static bool oc_dr_slice(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    P starts[OC_DR_MAX_RANK], ends[OC_DR_MAX_RANK];
    int64_t axes[OC_DR_MAX_RANK], steps[OC_DR_MAX_RANK];
    int32_t ns, ne, na = -1, nst = -1;
    if (oc_attr_has(n, "starts")) { /* Slice-1 */
        int64_t s[OC_DR_MAX_RANK], e[OC_DR_MAX_RANK];
        if (!oc_dr_ints(c, n, "starts", -1, s, OC_DR_MAX_RANK, &ns) ||
            !oc_dr_ints(c, n, "ends", -1, e, OC_DR_MAX_RANK, &ne) ||
            !oc_dr_ints(c, n, "axes", -1, axes, OC_DR_MAX_RANK, &na))
            return false;
        for (int32_t i = 0; i < ns; i++)
            starts[i] = oc_poly_const(c->s, s[i]);
        for (int32_t i = 0; i < ne; i++)
            ends[i] = oc_poly_const(c->s, e[i]);
    } else {
        const P *s, *e;
        if (!oc_d_cont(c, oc_d_in(n, 1), &s, &ns) || ns > OC_DR_MAX_RANK)
            return oc_d_fail_values(c, oc_d_in(n, 1), "starts");
        if (!oc_d_cont(c, oc_d_in(n, 2), &e, &ne) || ne > OC_DR_MAX_RANK)
            return oc_d_fail_values(c, oc_d_in(n, 2), "ends");
        memcpy(starts, s, (size_t)ns * sizeof *s);
        memcpy(ends, e, (size_t)ne * sizeof *e);
        if (!oc_dr_ints(c, n, NULL, 3, axes, OC_DR_MAX_RANK, &na) ||
            !oc_dr_ints(c, n, NULL, 4, steps, OC_DR_MAX_RANK, &nst))
            return false;
    }
    if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return oc_d_fail(c, "starts, ends, axes and steps of different lengths");
    memcpy(o, d, (size_t)r * sizeof *o);
    for (int32_t i = 0; i < ns; i++) {
        int32_t a;
        if (!oc_dr_axis(c, na >= 0 ? axes[i] : i, r, &a))
            return false;
        if (!(o[a] = oc_dr_slice1(c, d[a], starts[i], ends[i], nst >= 0 ? steps[i] : 1)))
            return oc_d_fail(c, "slices axis %d where a clamp or the step may change within the region", a);
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), o, r);
    /* a slice of a shape vector with constant bounds */
    const P *e;
    int32_t k;
    int64_t s0, e0;
    if (r == 1 && oc_d_cont(c, oc_d_in(n, 0), &e, &k) && oc_d_is_const(o[0], &e0) &&
        oc_d_is_const(oc_poly_sub(c->s, d[0], o[0]), &s0) && (nst < 0 || steps[0] == 1)) {
        int64_t first = 0;
        if (!oc_d_is_const(starts[0], &first))
            return true;
        if (first < 0)
            first += k;
        first = first < 0 ? 0 : first > k ? k : first;
        if (first + e0 <= k)
            oc_d_out_cont(c, oc_dr_out(n, 0), e + first, (int32_t)e0);
    }
    return true;
}

static bool oc_dr_split(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r, axis, ns;
    int64_t split[OC_DR_MAX_RANK * 4];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_axis(c, oc_dr_attr(n, "axis", 0), r, &axis) ||
        !oc_dr_ints(c, n, "split", 1, split, OC_DR_MAX_RANK * 4, &ns))
        return false;
    if (ns >= 0 && ns != n->n_out)
        return oc_d_fail(c, "split of another length");
    P part = NULL;
    if (ns < 0) { /* equal parts: the dim must divide exactly */
        if (oc_attr_has(n, "num_outputs") || n->n_out > 0) {
            part = oc_poly_div_exact(c->s, d[axis], oc_poly_const(c->s, n->n_out));
            if (!part)
                return oc_d_fail(c, "splits a dim in %d parts that may not divide it", n->n_out);
        }
    }
    for (int32_t o = 0; o < n->n_out; o++) {
        P od[OC_DR_MAX_RANK];
        memcpy(od, d, (size_t)r * sizeof *od);
        od[axis] = ns >= 0 ? oc_poly_const(c->s, split[o]) : part;
        oc_d_out_dims(c, oc_dr_out(n, o), od, r);
    }
    return true;
}

static bool oc_dr_tile(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r, k;
    int64_t rep[OC_DR_MAX_RANK];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_ints(c, n, NULL, 1, rep, OC_DR_MAX_RANK, &k) || k != r)
        return oc_d_fail(c, "repeats are not constant");
    for (int32_t a = 0; a < r; a++)
        d[a] = oc_poly_mul(c->s, d[a], oc_poly_const(c->s, rep[a]));
    oc_d_out_dims(c, oc_dr_out(n, 0), d, r);
    return true;
}

static bool oc_dr_pad(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r, k, na = -1;
    int64_t pads[2 * OC_DR_MAX_RANK], axes[OC_DR_MAX_RANK];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) ||
        !oc_dr_ints(c, n, oc_attr_has(n, "pads") ? "pads" : NULL, 1, pads, 2 * OC_DR_MAX_RANK, &k) ||
        !oc_dr_ints(c, n, NULL, 3, axes, OC_DR_MAX_RANK, &na))
        return false;
    int32_t m = na >= 0 ? na : r;
    if (k != 2 * m)
        return oc_d_fail(c, "pads are not constant");
    for (int32_t i = 0; i < m; i++) {
        int32_t a;
        if (!oc_dr_axis(c, na >= 0 ? axes[i] : i, r, &a))
            return false;
        d[a] = oc_poly_add(c->s, d[a], oc_poly_const(c->s, pads[i] + pads[i + m]));
        if (oc_d_sign(c, d[a]) < 0 || oc_d_sign(c, d[a]) == 2)
            return oc_d_fail(c, "negative pads that may empty the axis");
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), d, r);
    return true;
}

static bool oc_dr_constant_of_shape(struct oc_dctx *c, const struct oc_node *n) {
    const P *t;
    int32_t k;
    if (!oc_d_cont(c, oc_d_in(n, 0), &t, &k) || k > OC_DR_MAX_RANK)
        return oc_d_fail_values(c, oc_d_in(n, 0), "the shape");
    oc_d_out_dims(c, oc_dr_out(n, 0), t, k);
    return true;
}

static bool oc_dr_range(struct oc_dctx *c, const struct oc_node *n) {
    const P *s, *l, *dl;
    int32_t ks, kl, kd;
    int64_t delta;
    if (!oc_d_cont(c, oc_d_in(n, 0), &s, &ks) || !oc_d_cont(c, oc_d_in(n, 1), &l, &kl) ||
        !oc_d_cont(c, oc_d_in(n, 2), &dl, &kd) || ks != 1 || kl != 1 || kd != 1 || !oc_d_is_const(dl[0], &delta) ||
        delta == 0)
        return oc_d_fail(c, "start, limit or delta is not derived (or delta is not a constant)");
    P span = oc_poly_sub(c->s, l[0], s[0]);
    P len = oc_poly_div_exact(c->s, span, oc_poly_const(c->s, delta));
    int sg = oc_d_sign(c, len);
    if (!len || sg == -1 || sg == 2)
        return oc_d_fail(c, "the length ceil((limit - start) / delta) is not an exact polynomial >= 0");
    oc_d_out_dims(c, oc_dr_out(n, 0), &len, 1);
    return true;
}

/* ---- contractions, windows, reductions -------------------------------------------- */

static bool oc_dr_matmul(struct oc_dctx *c, const struct oc_node *n) {
    P a[OC_DR_MAX_RANK], b[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t ra, rb;
    int32_t ia = 0, ib = 1;
    if (strcmp(n->op_type, "QLinearMatMul") == 0)
        ib = 3;
    if (!oc_dr_dims(c, oc_d_in(n, ia), a, &ra) || !oc_dr_dims(c, oc_d_in(n, ib), b, &rb) || ra < 1 || rb < 1)
        return false;
    bool va = ra == 1, vb = rb == 1;
    if (va) { /* a vector: [K] as [1, K] */
        a[1] = a[0];
        a[0] = oc_poly_const(c->s, 1);
        ra = 2;
    }
    if (vb) {
        b[1] = oc_poly_const(c->s, 1);
        rb = 2;
    }
    if (!oc_poly_equal(a[ra - 1], b[rb - 2]))
        return oc_d_fail(c, "the contracted dims are not one polynomial");
    int32_t bra = ra - 2, brb = rb - 2, br = bra > brb ? bra : brb, k = 0;
    for (int32_t x = 0; x < br; x++) {
        P cand[2];
        int32_t m = 0;
        if (x - (br - bra) >= 0)
            cand[m++] = a[x - (br - bra)];
        if (x - (br - brb) >= 0)
            cand[m++] = b[x - (br - brb)];
        if (!oc_dr_bcast1(c, cand, m, &o[k++]))
            return false;
    }
    if (!va)
        o[k++] = a[ra - 2];
    if (!vb)
        o[k++] = b[rb - 1];
    oc_d_out_dims(c, oc_dr_out(n, 0), o, k);
    return true;
}

static bool oc_dr_gemm(struct oc_dctx *c, const struct oc_node *n) {
    P a[2], b[2], o[2];
    int32_t ra, rb;
    if (!oc_dr_dims(c, oc_d_in(n, 0), a, &ra) || !oc_dr_dims(c, oc_d_in(n, 1), b, &rb) || ra != 2 || rb != 2)
        return oc_d_fail(c, "Gemm inputs of rank other than 2");
    bool ta = oc_dr_attr(n, "transA", 0), tb = oc_dr_attr(n, "transB", 0);
    if (!oc_poly_equal(ta ? a[0] : a[1], tb ? b[1] : b[0]))
        return oc_d_fail(c, "the contracted dims are not one polynomial");
    o[0] = ta ? a[1] : a[0];
    o[1] = tb ? b[0] : b[1];
    oc_d_out_dims(c, oc_dr_out(n, 0), o, 2);
    return true;
}

/* Output size of one window axis when the input size is a polynomial:
   stride 1 only (a floor division otherwise). */
static P oc_dr_window1(struct oc_dctx *c, P in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe,
                       const char *auto_pad, bool ceil_mode) {
    int64_t v;
    if (oc_d_is_const(in, &v))
        return NULL; /* a constant input: the base analysis's value, kept by the caller */
    if (stride != 1)
        return NULL;
    (void)ceil_mode; /* with stride 1, floor and ceil agree */
    if (strcmp(auto_pad, "SAME_UPPER") == 0 || strcmp(auto_pad, "SAME_LOWER") == 0)
        return in;
    if (strcmp(auto_pad, "VALID") == 0)
        pb = pe = 0;
    P out = oc_poly_add(c->s, in, oc_poly_const(c->s, pb + pe - (k - 1) * dil));
    return oc_d_sign(c, out) == 1 ? out : NULL;
}

/* Conv, pools: [N, C, spatial...]; C from `chan` (or the input's) */
static bool oc_dr_window(struct oc_dctx *c, const struct oc_node *n, int32_t x_in, int32_t w_in, bool global) {
    P x[OC_DR_MAX_RANK], w[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t rx, rw = 0;
    if (!oc_dr_dims(c, oc_d_in(n, x_in), x, &rx) || rx < 2)
        return false;
    if (w_in >= 0 && !oc_dr_dims(c, oc_d_in(n, w_in), w, &rw))
        return false;
    int32_t ns = rx - 2, out = oc_dr_out(n, 0);
    o[0] = x[0];
    o[1] = w_in >= 0 ? w[0] : x[1];
    int64_t ks[OC_DR_MAX_RANK], st[OC_DR_MAX_RANK], dl[OC_DR_MAX_RANK], pd[2 * OC_DR_MAX_RANK];
    int32_t nk, nst, ndl, npd;
    if (!global && (!oc_dr_ints(c, n, "kernel_shape", -1, ks, OC_DR_MAX_RANK, &nk) ||
                    !oc_dr_ints(c, n, "strides", -1, st, OC_DR_MAX_RANK, &nst) ||
                    !oc_dr_ints(c, n, "dilations", -1, dl, OC_DR_MAX_RANK, &ndl) ||
                    !oc_dr_ints(c, n, "pads", -1, pd, 2 * OC_DR_MAX_RANK, &npd)))
        return false;
    char ap[32] = "NOTSET";
    struct oc_diag dg = {0};
    (void)oc_attr_string(n, "auto_pad", "NOTSET", ap, sizeof ap, &dg);
    bool ceil_mode = oc_dr_attr(n, "ceil_mode", 0) != 0;
    const struct oc_value *ov = &c->g->values[out];
    for (int32_t s = 0; s < ns; s++) {
        int64_t v;
        if (global) {
            o[2 + s] = oc_poly_const(c->s, 1);
            continue;
        }
        if (oc_d_is_const(x[2 + s], &v)) { /* a constant input size: the base analysis's output */
            if (ov->rank != rx || ov->dims[2 + s].value < 0)
                return oc_d_fail(c, "an output size is not known");
            o[2 + s] = oc_poly_const(c->s, ov->dims[2 + s].value);
            continue;
        }
        int64_t k = nk > s ? ks[s] : (w_in >= 0 && rw == rx && oc_d_is_const(w[2 + s], &v) ? v : -1);
        if (k < 1)
            return oc_d_fail(c, "the kernel size is not known");
        o[2 + s] = oc_dr_window1(c, x[2 + s], k, nst > s ? st[s] : 1, ndl > s ? dl[s] : 1, npd > s ? pd[s] : 0,
                                 npd > s + ns ? pd[s + ns] : 0, ap, ceil_mode);
        if (!o[2 + s])
            return oc_d_fail(c, "a window over a symbolic size with stride > 1 (a floor division)");
    }
    oc_d_out_dims(c, out, o, rx);
    for (int32_t i = 1; i < n->n_out; i++) /* MaxPool's indices */
        oc_d_out_dims(c, oc_dr_out(n, i), o, rx);
    return true;
}

static bool oc_dr_conv(struct oc_dctx *c, const struct oc_node *n) {
    bool q = strcmp(n->op_type, "QLinearConv") == 0;
    return oc_dr_window(c, n, 0, q ? 3 : 1, false);
}

static bool oc_dr_pool(struct oc_dctx *c, const struct oc_node *n) {
    return oc_dr_window(c, n, 0, -1, false);
}

static bool oc_dr_global_pool(struct oc_dctx *c, const struct oc_node *n) {
    return oc_dr_window(c, n, 0, -1, true);
}

static bool oc_dr_conv_transpose(struct oc_dctx *c, const struct oc_node *n) {
    P x[OC_DR_MAX_RANK], w[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t rx, rw;
    if (!oc_dr_dims(c, oc_d_in(n, 0), x, &rx) || !oc_dr_dims(c, oc_d_in(n, 1), w, &rw) || rx < 2 || rw != rx)
        return false;
    int64_t group = oc_dr_attr(n, "group", 1), v;
    int32_t ns = rx - 2;
    o[0] = x[0];
    o[1] = oc_poly_mul(c->s, w[1], oc_poly_const(c->s, group));
    int64_t st[OC_DR_MAX_RANK], dl[OC_DR_MAX_RANK], pd[2 * OC_DR_MAX_RANK], op[OC_DR_MAX_RANK], os[OC_DR_MAX_RANK];
    int32_t nst, ndl, npd, nop, nos;
    if (!oc_dr_ints(c, n, "strides", -1, st, OC_DR_MAX_RANK, &nst) ||
        !oc_dr_ints(c, n, "dilations", -1, dl, OC_DR_MAX_RANK, &ndl) ||
        !oc_dr_ints(c, n, "pads", -1, pd, 2 * OC_DR_MAX_RANK, &npd) ||
        !oc_dr_ints(c, n, "output_padding", -1, op, OC_DR_MAX_RANK, &nop) ||
        !oc_dr_ints(c, n, "output_shape", -1, os, OC_DR_MAX_RANK, &nos))
        return false;
    char ap[32] = "NOTSET";
    struct oc_diag dg = {0};
    (void)oc_attr_string(n, "auto_pad", "NOTSET", ap, sizeof ap, &dg);
    for (int32_t s = 0; s < ns; s++) {
        if (nos > s) {
            o[2 + s] = oc_poly_const(c->s, os[s]);
            continue;
        }
        int64_t k;
        if (!oc_d_is_const(w[2 + s], &k))
            return oc_d_fail(c, "the kernel size is not known");
        int64_t stride = nst > s ? st[s] : 1, dil = ndl > s ? dl[s] : 1, opad = nop > s ? op[s] : 0;
        bool same = strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0;
        int64_t pads = same || strcmp(ap, "VALID") == 0 ? 0 : (npd > s ? pd[s] : 0) + (npd > s + ns ? pd[s + ns] : 0);
        if (same)
            o[2 + s] = oc_poly_mul(c->s, x[2 + s], oc_poly_const(c->s, stride));
        else /* stride * (in - 1) + output_padding + (k - 1) * dil + 1 - pads */
            o[2 + s] = oc_poly_add(c->s, oc_poly_mul(c->s, x[2 + s], oc_poly_const(c->s, stride)),
                                   oc_poly_const(c->s, -stride + opad + (k - 1) * dil + 1 - pads));
        (void)v;
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), o, rx);
    return true;
}

static bool oc_dr_reduce(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK], o[OC_DR_MAX_RANK];
    int32_t r, na;
    int64_t axes[OC_DR_MAX_RANK];
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    bool arg = strncmp(n->op_type, "Arg", 3) == 0;
    if (arg) {
        axes[0] = oc_dr_attr(n, "axis", 0);
        na = 1;
    } else if (!oc_dr_ints(c, n, "axes", 1, axes, OC_DR_MAX_RANK, &na)) {
        return false;
    }
    bool keep = oc_dr_attr(n, "keepdims", 1) != 0, red[OC_DR_MAX_RANK] = {false};
    if (na <= 0) {
        if (oc_dr_attr(n, "noop_with_empty_axes", 0))
            return oc_dr_same_as(c, n, 0, 0);
        for (int32_t a = 0; a < r; a++)
            red[a] = true;
    }
    for (int32_t i = 0; i < na; i++) {
        int32_t a;
        if (!oc_dr_axis(c, axes[i], r, &a))
            return false;
        red[a] = true;
    }
    int32_t k = 0;
    for (int32_t a = 0; a < r; a++) {
        if (!red[a])
            o[k++] = d[a];
        else if (keep)
            o[k++] = oc_poly_const(c->s, 1);
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), o, k);
    return true;
}

/* LayerNormalization: Y like X; Mean and InvStdDev with the normalized axes 1 */
static bool oc_dr_layer_norm(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r, axis;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_axis(c, oc_dr_attr(n, "axis", -1), r, &axis))
        return false;
    oc_d_out_dims(c, oc_dr_out(n, 0), d, r);
    for (int32_t a = axis; a < r; a++)
        d[a] = oc_poly_const(c->s, 1);
    for (int32_t o = 1; o < n->n_out; o++)
        oc_d_out_dims(c, oc_dr_out(n, o), d, r);
    return true;
}

static bool oc_dr_resize(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r, k;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r))
        return false;
    const P *sz;
    int32_t in_sizes = strcmp(n->op_type, "Upsample") == 0 ? -1 : 3,
            in_scales = strcmp(n->op_type, "Upsample") == 0 ? 1 : 2;
    if (in_sizes >= 0 && oc_d_in(n, in_sizes) >= 0) {
        if (!oc_d_cont(c, oc_d_in(n, in_sizes), &sz, &k) || k != r)
            return oc_d_fail_values(c, oc_d_in(n, in_sizes), "sizes");
        oc_d_out_dims(c, oc_dr_out(n, 0), sz, r);
        return true;
    }
    double sc[OC_DR_MAX_RANK];
    if (!oc_d_const_floats(c, oc_d_in(n, in_scales), sc, OC_DR_MAX_RANK, &k) || k != r)
        return oc_d_fail(c, "scales are not constant");
    for (int32_t a = 0; a < r; a++) {
        int64_t v;
        if (oc_d_is_const(d[a], &v) && c->g->values[oc_dr_out(n, 0)].rank == r &&
            c->g->values[oc_dr_out(n, 0)].dims[a].value >= 0) {
            d[a] = oc_poly_const(c->s, c->g->values[oc_dr_out(n, 0)].dims[a].value);
            continue;
        }
        if (sc[a] != (double)(int64_t)sc[a] || sc[a] < 1)
            return oc_d_fail(c, "a scale that is not a whole number on a symbolic dim (a floor)");
        d[a] = oc_poly_mul(c->s, d[a], oc_poly_const(c->s, (int64_t)sc[a]));
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), d, r);
    return true;
}

static bool oc_dr_einsum(struct oc_dctx *c, const struct oc_node *n) {
    char eq[256];
    struct oc_diag dg = {0};
    if (oc_attr_string(n, "equation", "", eq, sizeof eq, &dg) != OC_OK || strchr(eq, '.'))
        return oc_d_fail(c, "an equation with '...' is not followed");
    P letter[128] = {NULL};
    const char *p = eq;
    for (int32_t i = 0; i < n->n_in; i++) {
        P d[OC_DR_MAX_RANK];
        int32_t r;
        if (!oc_dr_dims(c, oc_d_in(n, i), d, &r))
            return false;
        int32_t a = 0;
        for (; *p && *p != ',' && *p != '-'; p++) {
            if (*p == ' ')
                continue;
            if ((unsigned char)*p >= 128 || a >= r)
                return oc_d_fail(c, "an equation that does not match the ranks");
            P *l = &letter[(unsigned char)*p];
            if (!*l || oc_dr_is(*l, 1))
                *l = d[a];
            else if (!oc_dr_is(d[a], 1) && !oc_poly_equal(*l, d[a]))
                return oc_d_fail(c, "one letter with two polynomials");
            a++;
        }
        if (*p == ',')
            p++;
    }
    const char *arrow = strstr(eq, "->");
    if (!arrow)
        return oc_d_fail(c, "an implicit output is not followed");
    P o[OC_DR_MAX_RANK];
    int32_t k = 0;
    for (p = arrow + 2; *p; p++) {
        if (*p == ' ')
            continue;
        if ((unsigned char)*p >= 128 || !letter[(unsigned char)*p] || k >= OC_DR_MAX_RANK)
            return oc_d_fail(c, "an output letter not in the inputs");
        o[k++] = letter[(unsigned char)*p];
    }
    oc_d_out_dims(c, oc_dr_out(n, 0), o, k);
    return true;
}

static bool oc_dr_topk(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r, axis, k;
    const P *kk;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || !oc_dr_axis(c, oc_dr_attr(n, "axis", -1), r, &axis))
        return false;
    if (oc_attr_has(n, "k")) {
        d[axis] = oc_poly_const(c->s, oc_dr_attr(n, "k", 1));
    } else {
        if (!oc_d_cont(c, oc_d_in(n, 1), &kk, &k) || k != 1)
            return oc_d_fail_values(c, oc_d_in(n, 1), "k");
        d[axis] = kk[0];
    }
    for (int32_t o = 0; o < n->n_out; o++)
        oc_d_out_dims(c, oc_dr_out(n, o), d, r);
    return true;
}

static bool oc_dr_depth_space(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || r != 4)
        return oc_d_fail(c, "an input of rank other than 4");
    int64_t b = oc_dr_attr(n, "blocksize", 1);
    P bb = oc_poly_const(c->s, b * b), b1 = oc_poly_const(c->s, b);
    if (strcmp(n->op_type, "DepthToSpace") == 0) {
        d[1] = oc_poly_div_exact(c->s, d[1], bb);
        d[2] = oc_poly_mul(c->s, d[2], b1);
        d[3] = oc_poly_mul(c->s, d[3], b1);
    } else {
        d[1] = oc_poly_mul(c->s, d[1], bb);
        d[2] = oc_poly_div_exact(c->s, d[2], b1);
        d[3] = oc_poly_div_exact(c->s, d[3], b1);
    }
    if (!d[1] || !d[2] || !d[3])
        return oc_d_fail(c, "the block size may not divide a symbolic dim");
    oc_d_out_dims(c, oc_dr_out(n, 0), d, r);
    return true;
}

/* GatherElements: the indices' shape; ScatterND/ScatterElements: the data's */
static bool oc_dr_like_input1(struct oc_dctx *c, const struct oc_node *n) {
    return oc_dr_same_as(c, n, 1, 0);
}

/* ---- com.microsoft ------------------------------------------------------------------------ */

/* Attention: [B, S, Dv] and the cache [2, B, N, P + S, Dk / N] */
static bool oc_dr_ms_attention(struct oc_dctx *c, const struct oc_node *n) {
    P x[OC_DR_MAX_RANK], w[OC_DR_MAX_RANK], pst[OC_DR_MAX_RANK];
    int32_t rx, rw, rp;
    if (!oc_dr_dims(c, oc_d_in(n, 0), x, &rx) || !oc_dr_dims(c, oc_d_in(n, 1), w, &rw) || rx != 3 || rw != 2)
        return oc_d_fail(c, "input and weights of other ranks");
    int64_t heads = oc_dr_attr(n, "num_heads", 0), qkv[3];
    int32_t nq;
    if (heads <= 0 || !oc_dr_ints(c, n, "qkv_hidden_sizes", -1, qkv, 3, &nq))
        return oc_d_fail(c, "num_heads or qkv_hidden_sizes not known");
    P dk, dv;
    if (nq == 3) {
        dk = oc_poly_const(c->s, qkv[1]);
        dv = oc_poly_const(c->s, qkv[2]);
    } else {
        dk = dv = oc_poly_div_exact(c->s, w[1], oc_poly_const(c->s, 3));
    }
    P past = oc_poly_const(c->s, 0);
    if (oc_d_in(n, 4) >= 0) {
        if (!oc_dr_dims(c, oc_d_in(n, 4), pst, &rp) || rp != 5)
            return oc_d_fail(c, "past of another rank");
        past = pst[3];
    }
    P o[5] = {x[0], x[1], dv};
    oc_d_out_dims(c, oc_dr_out(n, 0), o, 3);
    P pr[5] = {oc_poly_const(c->s, 2), x[0], oc_poly_const(c->s, heads), oc_poly_add(c->s, past, x[1]),
               oc_poly_div_exact(c->s, dk, oc_poly_const(c->s, heads))};
    oc_d_out_dims(c, oc_dr_out(n, 1), pr, 5);
    return true;
}

/* EmbedLayerNormalization: [B, S, H] from the ids and the word table; the
   mask index [B] */
static bool oc_dr_ms_embed_ln(struct oc_dctx *c, const struct oc_node *n) {
    P ids[OC_DR_MAX_RANK], word[OC_DR_MAX_RANK];
    int32_t ri, rw;
    if (!oc_dr_dims(c, oc_d_in(n, 0), ids, &ri) || !oc_dr_dims(c, oc_d_in(n, 2), word, &rw) || ri != 2 || rw != 2)
        return oc_d_fail(c, "input_ids and word_embedding of other ranks");
    P o[3] = {ids[0], ids[1], word[1]};
    oc_d_out_dims(c, oc_dr_out(n, 0), o, 3);
    oc_d_out_dims(c, oc_dr_out(n, 1), ids, 1);
    oc_d_out_dims(c, oc_dr_out(n, 2), o, 3);
    return true;
}

/* SkipLayerNormalization: the output and the sum like the input; mean and
   inverse deviation with the last axis 1 */
static bool oc_dr_ms_skip_ln(struct oc_dctx *c, const struct oc_node *n) {
    P d[OC_DR_MAX_RANK];
    int32_t r;
    if (!oc_dr_dims(c, oc_d_in(n, 0), d, &r) || r < 1)
        return false;
    for (int32_t o = 0; o < n->n_out; o++) {
        int32_t v = oc_dr_out(n, o);
        if (v < 0 || oc_d_rank(c, v) != r)
            continue;
        if (o == 1 || o == 2) {
            P m[OC_DR_MAX_RANK];
            memcpy(m, d, (size_t)r * sizeof *m);
            m[r - 1] = oc_poly_const(c->s, 1);
            oc_d_out_dims(c, v, m, r);
        } else {
            oc_d_out_dims(c, v, d, r);
        }
    }
    return true;
}

/* ---- the table -------------------------------------------------------------------------- */

/* The last column says what the op's cost rule (analyzer/ops/) is in the
   node's dims (derive_rules.h): ONE or TWO, a polynomial of that form with
   no negative term; MONO, never falling as a dim grows but not claimed a
   polynomial (a ceil, a log2, a window count). */
static const struct oc_derive_rule oc_derive_rules[] = {
    /* same shape as input 0 */
    {"", "Abs", oc_dr_unary, OC_DC_ONE},
    {"", "Acos", oc_dr_unary, OC_DC_ONE},
    {"", "Asin", oc_dr_unary, OC_DC_ONE},
    {"", "Atan", oc_dr_unary, OC_DC_ONE},
    {"", "BatchNormalization", oc_dr_unary, OC_DC_ONE},
    {"", "Ceil", oc_dr_unary, OC_DC_ONE},
    {"", "Celu", oc_dr_unary, OC_DC_ONE},
    {"", "Clip", oc_dr_unary, OC_DC_ONE},
    {"", "Cos", oc_dr_unary, OC_DC_ONE},
    {"", "Cosh", oc_dr_unary, OC_DC_ONE},
    {"", "CumSum", oc_dr_unary, OC_DC_MONO},
    {"", "DequantizeLinear", oc_dr_unary, OC_DC_ONE},
    {"", "Dropout", oc_dr_unary, OC_DC_ONE},
    {"", "Elu", oc_dr_unary, OC_DC_ONE},
    {"", "Erf", oc_dr_unary, OC_DC_ONE},
    {"", "Exp", oc_dr_unary, OC_DC_ONE},
    {"", "Floor", oc_dr_unary, OC_DC_ONE},
    {"", "Gelu", oc_dr_unary, OC_DC_ONE},
    {"", "GroupNormalization", oc_dr_unary, OC_DC_ONE},
    {"", "HardSigmoid", oc_dr_unary, OC_DC_ONE},
    {"", "HardSwish", oc_dr_unary, OC_DC_ONE},
    {"", "Hardmax", oc_dr_unary, OC_DC_MONO},
    {"", "InstanceNormalization", oc_dr_unary, OC_DC_ONE},
    {"", "IsInf", oc_dr_unary, OC_DC_ONE},
    {"", "IsNaN", oc_dr_unary, OC_DC_ONE},
    {"", "LRN", oc_dr_unary, OC_DC_MONO},
    {"", "LeakyRelu", oc_dr_unary, OC_DC_ONE},
    {"", "Log", oc_dr_unary, OC_DC_ONE},
    {"", "LogSoftmax", oc_dr_unary, OC_DC_ONE},
    {"", "MeanVarianceNormalization", oc_dr_unary, OC_DC_ONE},
    {"", "Mish", oc_dr_unary, OC_DC_ONE},
    {"", "Not", oc_dr_unary, OC_DC_ONE},
    {"", "PRelu", oc_dr_unary, OC_DC_ONE},
    {"", "QuantizeLinear", oc_dr_unary, OC_DC_ONE},
    {"", "Reciprocal", oc_dr_unary, OC_DC_ONE},
    {"", "Relu", oc_dr_unary, OC_DC_ONE},
    {"", "Round", oc_dr_unary, OC_DC_ONE},
    {"", "Selu", oc_dr_unary, OC_DC_ONE},
    {"", "Shrink", oc_dr_unary, OC_DC_ONE},
    {"", "Sigmoid", oc_dr_unary, OC_DC_ONE},
    {"", "Sign", oc_dr_unary, OC_DC_ONE},
    {"", "Sin", oc_dr_unary, OC_DC_ONE},
    {"", "Sinh", oc_dr_unary, OC_DC_ONE},
    {"", "Softmax", oc_dr_unary, OC_DC_ONE},
    {"", "Softplus", oc_dr_unary, OC_DC_ONE},
    {"", "Softsign", oc_dr_unary, OC_DC_ONE},
    {"", "Sqrt", oc_dr_unary, OC_DC_ONE},
    {"", "Tan", oc_dr_unary, OC_DC_ONE},
    {"", "Tanh", oc_dr_unary, OC_DC_ONE},
    {"", "ThresholdedRelu", oc_dr_unary, OC_DC_ONE},
    {"", "Trilu", oc_dr_unary, OC_DC_ONE},
    {"", "Cast", oc_dr_identity, OC_DC_ONE},
    {"", "CastLike", oc_dr_identity, OC_DC_ONE},
    {"", "Identity", oc_dr_identity, OC_DC_ONE},
    {"", "Neg", oc_dr_identity, OC_DC_ONE},
    /* elementwise with broadcasting */
    {"", "Add", oc_dr_eltwise, OC_DC_ONE},
    {"", "And", oc_dr_eltwise, OC_DC_ONE},
    {"", "BitShift", oc_dr_eltwise, OC_DC_ONE},
    {"", "Div", oc_dr_eltwise, OC_DC_ONE},
    {"", "Equal", oc_dr_eltwise, OC_DC_ONE},
    {"", "Greater", oc_dr_eltwise, OC_DC_ONE},
    {"", "GreaterOrEqual", oc_dr_eltwise, OC_DC_ONE},
    {"", "Less", oc_dr_eltwise, OC_DC_ONE},
    {"", "LessOrEqual", oc_dr_eltwise, OC_DC_ONE},
    {"", "Max", oc_dr_eltwise, OC_DC_ONE},
    {"", "Mean", oc_dr_eltwise, OC_DC_ONE},
    {"", "Min", oc_dr_eltwise, OC_DC_ONE},
    {"", "Mod", oc_dr_eltwise, OC_DC_ONE},
    {"", "Mul", oc_dr_eltwise, OC_DC_ONE},
    {"", "Or", oc_dr_eltwise, OC_DC_ONE},
    {"", "Pow", oc_dr_eltwise, OC_DC_ONE},
    {"", "Sub", oc_dr_eltwise, OC_DC_ONE},
    {"", "Sum", oc_dr_eltwise, OC_DC_ONE},
    {"", "Where", oc_dr_eltwise, OC_DC_ONE},
    {"", "Xor", oc_dr_eltwise, OC_DC_ONE},
    /* shapes */
    {"", "Concat", oc_dr_concat, OC_DC_ONE},
    {"", "ConstantOfShape", oc_dr_constant_of_shape, OC_DC_ONE},
    {"", "Expand", oc_dr_expand, OC_DC_ONE},
    {"", "Flatten", oc_dr_flatten, OC_DC_ONE},
    {"", "Gather", oc_dr_gather, OC_DC_ONE},
    {"", "GatherElements", oc_dr_like_input1, OC_DC_ONE},
    {"", "Pad", oc_dr_pad, OC_DC_ONE},
    {"", "Range", oc_dr_range, OC_DC_ONE},
    {"", "Reshape", oc_dr_reshape, OC_DC_ONE},
    {"", "ScatterElements", oc_dr_unary, OC_DC_ONE},
    {"", "ScatterND", oc_dr_unary, OC_DC_ONE},
    {"", "Shape", oc_dr_shape, OC_DC_ONE},
    {"", "Size", oc_dr_size, OC_DC_ONE},
    {"", "Slice", oc_dr_slice, OC_DC_ONE},
    {"", "Split", oc_dr_split, OC_DC_ONE},
    {"", "Squeeze", oc_dr_squeeze, OC_DC_ONE},
    {"", "Tile", oc_dr_tile, OC_DC_ONE},
    {"", "Transpose", oc_dr_transpose, OC_DC_ONE},
    {"", "Unsqueeze", oc_dr_unsqueeze, OC_DC_ONE},
    {"", "DepthToSpace", oc_dr_depth_space, OC_DC_ONE},
    {"", "SpaceToDepth", oc_dr_depth_space, OC_DC_ONE},
    /* contractions, windows, reductions */
    {"", "ArgMax", oc_dr_reduce, OC_DC_MONO},
    {"", "ArgMin", oc_dr_reduce, OC_DC_MONO},
    {"", "AveragePool", oc_dr_pool, OC_DC_ONE},
    {"", "Conv", oc_dr_conv, OC_DC_CONV},
    {"", "ConvInteger", oc_dr_conv, OC_DC_CONV},
    {"", "ConvTranspose", oc_dr_conv_transpose, OC_DC_TWO},
    {"", "Einsum", oc_dr_einsum, OC_DC_MONO},
    {"", "Gemm", oc_dr_gemm, OC_DC_GEMM},
    {"", "GlobalAveragePool", oc_dr_global_pool, OC_DC_ONE},
    {"", "GlobalLpPool", oc_dr_global_pool, OC_DC_ONE},
    {"", "GlobalMaxPool", oc_dr_global_pool, OC_DC_MONO},
    {"", "LayerNormalization", oc_dr_layer_norm, OC_DC_ONE},
    {"", "LpPool", oc_dr_pool, OC_DC_ONE},
    {"", "MatMul", oc_dr_matmul, OC_DC_MATMUL},
    {"", "MatMulInteger", oc_dr_matmul, OC_DC_MATMUL},
    {"", "MaxPool", oc_dr_pool, OC_DC_ONE},
    {"", "QLinearConv", oc_dr_conv, OC_DC_TWO},
    {"", "QLinearMatMul", oc_dr_matmul, OC_DC_MATMUL},
    {"", "ReduceL1", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceL2", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceLogSum", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceLogSumExp", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceMax", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceMean", oc_dr_reduce, OC_DC_ONE},
    {"", "ReduceMin", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceProd", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceSum", oc_dr_reduce, OC_DC_MONO},
    {"", "ReduceSumSquare", oc_dr_reduce, OC_DC_MONO},
    {"", "Resize", oc_dr_resize, OC_DC_NONE},
    {"", "TopK", oc_dr_topk, OC_DC_MONO},
    {"", "Upsample", oc_dr_resize, OC_DC_MONO},
    /* com.microsoft: ONNX Runtime's fused transformer ops */
    {"com.microsoft", "Attention", oc_dr_ms_attention, OC_DC_TWO},
    {"com.microsoft", "BiasGelu", oc_dr_eltwise, OC_DC_ONE},
    {"com.microsoft", "EmbedLayerNormalization", oc_dr_ms_embed_ln, OC_DC_ONE},
    {"com.microsoft", "FastGelu", oc_dr_unary, OC_DC_ONE},
    {"com.microsoft", "FusedConv", oc_dr_conv, OC_DC_CONV},
    {"com.microsoft", "FusedGemm", oc_dr_gemm, OC_DC_GEMM},
    {"com.microsoft", "Gelu", oc_dr_unary, OC_DC_ONE},
    {"com.microsoft", "QuickGelu", oc_dr_unary, OC_DC_ONE},
    {"com.microsoft", "RotaryEmbedding", oc_dr_unary, OC_DC_ONE},
    {"com.microsoft", "SkipLayerNormalization", oc_dr_ms_skip_ln, OC_DC_ONE},
    {"com.microsoft", "SkipSimplifiedLayerNormalization", oc_dr_ms_skip_ln, OC_DC_ONE},
};

const struct oc_derive_rule *oc_derive_rule_for(const char *domain, const char *op_type) {
    if (!domain || strcmp(domain, "ai.onnx") == 0)
        domain = "";
    for (size_t i = 0; i < sizeof oc_derive_rules / sizeof oc_derive_rules[0]; i++)
        if (strcmp(oc_derive_rules[i].domain, domain) == 0 && strcmp(oc_derive_rules[i].op_type, op_type) == 0)
            return &oc_derive_rules[i];
    return NULL;
}
