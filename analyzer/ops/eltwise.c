/*
 * ops/eltwise.c — unary, binary and variadic elementwise ops, comparisons
 * and logical ops, Cast, CastLike, Clip, Where, PRelu. Shapes follow
 * multidirectional broadcasting (the legacy `broadcast`/`axis` form before
 * opset 7, exact shapes for the variadic ops before opset 8); for small
 * integer tensors (shape arithmetic) the values are propagated too.
 *
 * FLOPs per output element (docs/COSTS.md): the elementary operations of
 * the op's defining formula in the ONNX spec, a transcendental function
 * (exp, log, sqrt, erf, tanh) counting as one.
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "rules.h"
#include "../shape.h"

#include <math.h>
#include <string.h>

/* out = broadcast of inputs [first, first + n) */
static enum oc_status oc_broadcast_inputs(struct oc_op_ctx *c, int32_t first, int32_t n, struct oc_dim **dims,
                                          int32_t *rank) {
    int32_t r = 0;
    for (int32_t i = first; i < first + n; i++) {
        const struct oc_value *v = oc_in(c, i);
        if (!v || v->rank < 0)
            return OC_ERR_SHAPE;
        if (v->rank > r)
            r = v->rank;
    }
    struct oc_dim *acc = oc_arena_array(c->arena, (size_t)r + 1, sizeof *acc);
    struct oc_dim *tmp = oc_arena_array(c->arena, (size_t)r + 1, sizeof *tmp);
    if (!acc || !tmp)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    int32_t ra = 0;
    for (int32_t i = first; i < first + n; i++) {
        const struct oc_value *v = oc_in(c, i);
        int32_t rt;
        if (oc_broadcast(acc, ra, v->dims, v->rank, tmp, &rt) != OC_OK)
            return OC_FAIL(c, OC_ERR_MODEL, "input shapes cannot be broadcast together (input %d)", i);
        memcpy(acc, tmp, (size_t)rt * sizeof *acc);
        ra = rt;
    }
    *dims = acc;
    *rank = ra;
    return OC_OK;
}

/* ---- value propagation ---------------------------------------------------------
 * One evaluator for every elementwise op: in int64 when every input holds
 * integers (exact, overflow refused), else in double with the result rounded
 * to the output type (oc_fold_put_f), as the op computes in that type. */

enum oc_eval_op {
    OC_EV_ADD, OC_EV_SUB, OC_EV_MUL, OC_EV_DIV, OC_EV_MOD, OC_EV_FMOD, OC_EV_POW, OC_EV_MAX, OC_EV_MIN,
    OC_EV_SUM, OC_EV_MEAN, OC_EV_EQ, OC_EV_LT, OC_EV_GT, OC_EV_LE, OC_EV_GE, OC_EV_AND, OC_EV_OR, OC_EV_XOR,
    OC_EV_BAND, OC_EV_BOR, OC_EV_BXOR, OC_EV_SHL, OC_EV_SHR,
    OC_EV_NOT, OC_EV_NEG, OC_EV_ABS, OC_EV_SIGN, OC_EV_FLOOR, OC_EV_CEIL, OC_EV_ROUND, OC_EV_SQRT,
    OC_EV_RECIP, OC_EV_EXP, OC_EV_LOG, OC_EV_RELU, OC_EV_BNOT, OC_EV_ISNAN, OC_EV_ISINF, /* unary */
    OC_EV_WHERE, OC_EV_CLIP, OC_EV_NONE
};

static enum oc_eval_op oc_eval_op_of(const struct oc_op_ctx *c) {
    static const struct {
        const char *name;
        enum oc_eval_op op;
    } t[] = {{"Add", OC_EV_ADD},           {"Sub", OC_EV_SUB},
             {"Mul", OC_EV_MUL},           {"Div", OC_EV_DIV},
             {"Mod", OC_EV_MOD},           {"Pow", OC_EV_POW},
             {"Max", OC_EV_MAX},           {"Min", OC_EV_MIN},
             {"Sum", OC_EV_SUM},           {"Mean", OC_EV_MEAN},
             {"Equal", OC_EV_EQ},          {"Less", OC_EV_LT},
             {"Greater", OC_EV_GT},        {"LessOrEqual", OC_EV_LE},
             {"GreaterOrEqual", OC_EV_GE}, {"And", OC_EV_AND},
             {"Or", OC_EV_OR},             {"Xor", OC_EV_XOR},
             {"BitwiseAnd", OC_EV_BAND},   {"BitwiseOr", OC_EV_BOR},
             {"BitwiseXor", OC_EV_BXOR},   {"BitShift", OC_EV_SHL},
             {"Not", OC_EV_NOT},           {"Neg", OC_EV_NEG},
             {"Abs", OC_EV_ABS},           {"Sign", OC_EV_SIGN},
             {"Floor", OC_EV_FLOOR},       {"Ceil", OC_EV_CEIL},
             {"Round", OC_EV_ROUND},       {"Sqrt", OC_EV_SQRT},
             {"Reciprocal", OC_EV_RECIP},  {"Exp", OC_EV_EXP},
             {"Log", OC_EV_LOG},           {"Relu", OC_EV_RELU},
             {"BitwiseNot", OC_EV_BNOT},   {"IsNaN", OC_EV_ISNAN},
             {"IsInf", OC_EV_ISINF},       {"Where", OC_EV_WHERE},
             {"Clip", OC_EV_CLIP}};
    for (size_t i = 0; i < OC_ARRAY_LEN(t); i++) {
        if (strcmp(c->node->op_type, t[i].name) != 0)
            continue;
        struct oc_diag d = {0};
        if (t[i].op == OC_EV_MOD) {
            int64_t fmod = 0;
            if (oc_attr_int(c->node, "fmod", 0, &fmod, &d) != OC_OK)
                return OC_EV_NONE;
            return fmod ? OC_EV_FMOD : OC_EV_MOD;
        }
        if (t[i].op == OC_EV_SHL) {
            char dir[8];
            if (oc_attr_string(c->node, "direction", "", dir, sizeof dir, &d) != OC_OK)
                return OC_EV_NONE;
            return strcmp(dir, "RIGHT") == 0 ? OC_EV_SHR : OC_EV_SHL;
        }
        return t[i].op;
    }
    return OC_EV_NONE;
}

static bool oc_eval_is_unary(enum oc_eval_op op) {
    return op >= OC_EV_NOT && op <= OC_EV_ISINF;
}

/* Comparisons and logic, for either kind of value: ord is -1, 0 or 1 as
 * a < b, a == b, a > b, or 2 when they are unordered (a NaN); ta and tb the
 * truth of a and b. False for the other ops. */
static bool oc_eval_logic(enum oc_eval_op op, int ord, bool ta, bool tb, int64_t *r) {
    switch (op) {
    case OC_EV_EQ:
        *r = ord == 0;
        return true;
    case OC_EV_LT:
        *r = ord == -1;
        return true;
    case OC_EV_GT:
        *r = ord == 1;
        return true;
    case OC_EV_LE:
        *r = ord == -1 || ord == 0;
        return true;
    case OC_EV_GE:
        *r = ord == 1 || ord == 0;
        return true;
    case OC_EV_AND:
        *r = ta && tb;
        return true;
    case OC_EV_OR:
        *r = ta || tb;
        return true;
    case OC_EV_XOR:
        *r = ta != tb;
        return true;
    case OC_EV_NOT:
        *r = !ta;
        return true;
    default:
        return false;
    }
}

/* One step on int64 values (unary ops ignore b). False when the result is
 * not representable (overflow, division by 0, a negative exponent). */
static bool oc_eval_int(enum oc_eval_op op, int64_t a, int64_t b, int64_t *r) {
    if (oc_eval_logic(op, (a > b) - (a < b), a != 0, b != 0, r))
        return true;
    switch (op) {
    case OC_EV_ADD:
    case OC_EV_SUM:
        return !oc_add_i64(a, b, r);
    case OC_EV_SUB:
        return !__builtin_sub_overflow(a, b, r);
    case OC_EV_MUL:
        return !oc_mul_i64(a, b, r);
    case OC_EV_DIV:
    case OC_EV_MOD:
    case OC_EV_FMOD:
        if (b == 0 || (a == INT64_MIN && b == -1))
            return false;
        if (op == OC_EV_DIV) {
            *r = a / b; /* truncated, as C and ONNX Runtime divide integers */
        } else {
            *r = a % b; /* fmod = 1: the sign of the dividend */
            if (op == OC_EV_MOD && *r != 0 && ((*r < 0) != (b < 0)))
                *r += b; /* fmod = 0: the sign of the divisor */
        }
        return true;
    case OC_EV_POW:
        if (a == 1 || b == 0) {
            *r = 1;
            return true;
        }
        if (a == -1) {
            *r = b % 2 ? -1 : 1;
            return true;
        }
        if (b < 0)
            return false;
        if (a == 0) {
            *r = 0;
            return true;
        }
        *r = 1; /* |a| >= 2: overflows within 63 steps */
        for (int64_t k = 0; k < b; k++)
            if (oc_mul_i64(*r, a, r))
                return false;
        return true;
    case OC_EV_MAX:
        *r = a > b ? a : b;
        return true;
    case OC_EV_MIN:
        *r = a < b ? a : b;
        return true;
    case OC_EV_BAND:
        *r = a & b;
        return true;
    case OC_EV_BOR:
        *r = a | b;
        return true;
    case OC_EV_BXOR:
        *r = a ^ b;
        return true;
    case OC_EV_SHL:
    case OC_EV_SHR:
        if (a < 0 || b < 0 || b > 63)
            return false; /* BitShift is defined on unsigned types */
        if (op == OC_EV_SHR) {
            *r = a >> b;
            return true;
        }
        if (b > 0 && a > (INT64_MAX >> b))
            return false;
        *r = a << b;
        return true;
    case OC_EV_BNOT:
        *r = ~a;
        return true;
    case OC_EV_NEG:
    case OC_EV_ABS:
        if (a == INT64_MIN)
            return false;
        *r = op == OC_EV_NEG || a < 0 ? -a : a;
        return true;
    case OC_EV_SIGN:
        *r = (a > 0) - (a < 0);
        return true;
    case OC_EV_RELU:
        *r = a > 0 ? a : 0;
        return true;
    case OC_EV_FLOOR:
    case OC_EV_CEIL:
    case OC_EV_ROUND:
        *r = a;
        return true;
    case OC_EV_ISNAN:
    case OC_EV_ISINF:
        *r = 0;
        return true;
    default:
        return false;
    }
}

/* One step on doubles; the result is rounded to the output type by the
 * caller. False for ops without a float meaning (bitwise, shifts). */
static bool oc_eval_float(enum oc_eval_op op, double a, double b, double *r) {
    int64_t truth;
    if (oc_eval_logic(op, isnan(a) || isnan(b) ? 2 : (a > b) - (a < b), a != 0, b != 0, &truth)) {
        *r = (double)truth;
        return true;
    }
    switch (op) {
    case OC_EV_ADD:
    case OC_EV_SUM:
        *r = a + b;
        return true;
    case OC_EV_SUB:
        *r = a - b;
        return true;
    case OC_EV_MUL:
        *r = a * b;
        return true;
    case OC_EV_DIV:
        *r = a / b;
        return true;
    case OC_EV_FMOD:
        *r = fmod(a, b);
        return true;
    case OC_EV_MOD: /* the sign of the divisor, as Python's % */
        *r = fmod(a, b);
        if (*r != 0 && ((*r < 0) != (b < 0)))
            *r += b;
        return true;
    case OC_EV_POW:
        *r = pow(a, b);
        return true;
    case OC_EV_MAX:
        *r = isnan(a) || isnan(b) ? NAN : a > b ? a : b;
        return true;
    case OC_EV_MIN:
        *r = isnan(a) || isnan(b) ? NAN : a < b ? a : b;
        return true;
    case OC_EV_NEG:
        *r = -a;
        return true;
    case OC_EV_ABS:
        *r = fabs(a);
        return true;
    case OC_EV_SIGN:
        *r = isnan(a) ? a : (a > 0) - (a < 0);
        return true;
    case OC_EV_FLOOR:
        *r = floor(a);
        return true;
    case OC_EV_CEIL:
        *r = ceil(a);
        return true;
    case OC_EV_ROUND: /* halves to even */
        *r = nearbyint(a);
        return true;
    case OC_EV_SQRT:
        *r = sqrt(a);
        return true;
    case OC_EV_RECIP:
        *r = 1.0 / a;
        return true;
    case OC_EV_EXP:
        *r = exp(a);
        return true;
    case OC_EV_LOG:
        *r = log(a);
        return true;
    case OC_EV_RELU:
        *r = a > 0 ? a : 0;
        return true;
    case OC_EV_ISNAN:
        *r = isnan(a);
        return true;
    case OC_EV_ISINF:
        *r = isinf(a);
        return true;
    default:
        return false;
    }
}

enum { OC_EVAL_MAX_IN = 64 };

/* Every elementwise op of the registry: output 0 from the broadcast inputs.
 * Unary ops map input 0, Where selects, Clip bounds input 0 by the optional
 * min and max (inputs from Clip-11, attributes before), Mean divides the sum,
 * every other op folds its inputs left to right. Before opset 7 binary ops
 * broadcast by their own rule: folded only when the shapes agree. */
OC_FOLD(oc_eltwise_fold) {
    enum oc_eval_op op = oc_eval_op_of(c);
    int32_t n_in = oc_n_in(c);
    struct oc_value *y = oc_out(c, 0);
    if (op == OC_EV_NONE || !y || n_in < 1 || n_in > OC_EVAL_MAX_IN || (op == OC_EV_WHERE && n_in != 3))
        return OC_OK;
    struct oc_known k[OC_EVAL_MAX_IN];
    bool present[OC_EVAL_MAX_IN], all_int = true;
    for (int32_t i = 0; i < n_in; i++) {
        present[i] = oc_in(c, i) != NULL;
        if (!present[i])
            continue;
        if (!oc_fold_in(c, i, &k[i]) || k[i].rank > y->rank)
            return OC_OK;
        if (c->node->opset < 7 && !oc_dims_equal(k[i].dims, k[i].rank, y->dims, y->rank))
            return OC_OK;
        if (op != OC_EV_WHERE || i > 0)
            all_int = all_int && k[i].i;
    }
    double lo = -INFINITY, hi = INFINITY;
    if (op == OC_EV_CLIP && c->node->opset < 11) {
        float fl, fh;
        struct oc_diag d = {0};
        if (oc_attr_float(c->node, "min", -INFINITY, &fl, &d) != OC_OK ||
            oc_attr_float(c->node, "max", INFINITY, &fh, &d) != OC_OK)
            return OC_OK;
        lo = fl, hi = fh;
        n_in = 1;
    }
    bool as_int = all_int && op != OC_EV_SQRT && op != OC_EV_RECIP && op != OC_EV_EXP && op != OC_EV_LOG &&
                  op != OC_EV_MEAN;
    int64_t umin, umask;
    oc_fold_int_range(y->dtype, &umin, &umask);
    umask = umin == 0 && umask != INT64_MAX ? umask : 0;
    bool pos_inf = true, neg_inf = true;
    if (op == OC_EV_ISINF) {
        int64_t dp, dn;
        struct oc_diag d = {0};
        if (oc_attr_int(c->node, "detect_positive", 1, &dp, &d) != OC_OK ||
            oc_attr_int(c->node, "detect_negative", 1, &dn, &d) != OC_OK)
            return OC_OK;
        pos_inf = dp != 0, neg_inf = dn != 0;
    }
    struct oc_fold_out o;
    if (!oc_fold_out(c, 0, &o))
        return OC_OK;
    for (int64_t f = 0; f < o.n; f++) {
        int64_t at[OC_EVAL_MAX_IN];
        for (int32_t i = 0; i < n_in; i++)
            at[i] = present[i] ? oc_fold_bcast_index(k[i].dims, k[i].rank, y->dims, y->rank, f) : 0;
        bool ok = true;
        if (op == OC_EV_WHERE) {
            int64_t cond;
            ok = oc_known_int(&k[0], at[0], &cond) && oc_fold_copy(&o, f, &k[cond ? 1 : 2], at[cond ? 1 : 2]);
        } else if (op == OC_EV_CLIP) { /* min(max(x, lo), hi): hi wins when lo > hi */
            double x = oc_known_f(&k[0], at[0]);
            if (n_in > 1 && present[1])
                lo = oc_known_f(&k[1], at[1]);
            if (n_in > 2 && present[2])
                hi = oc_known_f(&k[2], at[2]);
            double r = x < lo ? lo : x;
            r = r > hi ? hi : r;
            ok = r != x ? oc_fold_put_f(&o, f, r) : oc_fold_copy(&o, f, &k[0], at[0]);
        } else if (as_int) {
            int64_t r = k[0].i[at[0]];
            if (oc_eval_is_unary(op))
                ok = oc_eval_int(op, r, 0, &r);
            for (int32_t i = 1; ok && i < n_in && !oc_eval_is_unary(op); i++)
                ok = oc_eval_int(op, r, k[i].i[at[i]], &r);
            if (op == OC_EV_BNOT && umask) /* the complement within an unsigned type's bits */
                r &= umask;
            ok = ok && oc_fold_put_i(&o, f, r);
        } else {
            /* each step computes in the inputs' type: rounded to input 0's */
            double r = oc_known_f(&k[0], at[0]);
            int32_t in_dt = k[0].f ? k[0].dtype : OC_DT_DOUBLE;
            if (op == OC_EV_ISINF)
                r = (pos_inf && r == INFINITY) || (neg_inf && r == -INFINITY);
            else if (oc_eval_is_unary(op))
                ok = oc_eval_float(op, r, 0, &r);
            for (int32_t i = 1; ok && i < n_in && !oc_eval_is_unary(op); i++) {
                ok = oc_eval_float(op == OC_EV_MEAN ? OC_EV_ADD : op, r, oc_known_f(&k[i], at[i]), &r);
                r = oc_round_to_dtype(in_dt, r);
            }
            if (op == OC_EV_MEAN)
                r /= n_in;
            ok = ok && oc_fold_put_f(&o, f, r);
        }
        if (!ok)
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* Output 0 = input 0's shape with element type dt (0: input 0's). */
static enum oc_status oc_same_shape(struct oc_op_ctx *c, int32_t dt) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    return oc_set_out(c, 0, dt ? dt : x->dtype, x->rank, x->dims);
}

OC_RULE(oc_unary_infer) { return oc_same_shape(c, 0); }

/* IsNaN, IsInf (and Not): a bool of the input's shape */
OC_RULE(oc_unary_bool_infer) { return oc_same_shape(c, OC_DT_BOOL); }

OC_RULE(oc_not_infer) { return oc_same_shape(c, OC_DT_BOOL); }

OC_RULE(oc_clip_infer) { return oc_same_shape(c, 0); }

OC_RULE(oc_gelu_infer) {
    char approx[8];
    enum oc_status st = oc_attr_string(c->node, "approximate", "none", approx, sizeof approx, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(approx, "none") != 0 && strcmp(approx, "tanh") != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'approximate' is '%s', expected 'none' or 'tanh'", approx);
    return oc_same_shape(c, 0);
}

/* Broadcast of every input, element type dt (0: the first known input type),
 * values evaluated for integer inputs. */
static enum oc_status oc_nary(struct oc_op_ctx *c, int32_t dt, bool exact) {
    struct oc_dim *dims;
    int32_t rank, n = oc_n_in(c);
    enum oc_status st = oc_broadcast_inputs(c, 0, n, &dims, &rank);
    if (st != OC_OK)
        return st;
    int32_t in_dt = 0;
    for (int32_t i = 0; i < n && !in_dt; i++)
        in_dt = oc_in(c, i)->dtype;
    for (int32_t i = 0; exact && i < n; i++) {
        /* before broadcasting was introduced: every input has the output's shape */
        const struct oc_value *v = oc_in(c, i);
        bool same = v->rank == rank;
        for (int32_t k = 0; same && k < rank; k++)
            same = v->dims[k].value < 0 || dims[k].value < 0 || v->dims[k].value == dims[k].value;
        if (!same)
            return OC_FAIL(c, OC_ERR_MODEL, "input %d's shape differs (no broadcasting before opset 8)", i);
    }
    return oc_set_out(c, 0, dt ? dt : in_dt, rank, dims);
}

OC_RULE(oc_binary_infer) { return oc_nary(c, 0, false); }

/* BitShift: `direction` (required) is "LEFT" or "RIGHT" */
OC_RULE(oc_bitshift_infer) {
    char dir[8];
    enum oc_status st = oc_attr_string(c->node, "direction", "", dir, sizeof dir, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(dir, "LEFT") != 0 && strcmp(dir, "RIGHT") != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'direction' is '%s', expected 'LEFT' or 'RIGHT'", dir);
    return oc_nary(c, 0, false);
}

/* Equal, Less, LessOrEqual, ..., And, Or, Xor: bool out */
OC_RULE(oc_compare_infer) { return oc_nary(c, OC_DT_BOOL, false); }

/* Max, Min, Sum, Mean from opset 8: multidirectional broadcasting of 1..N inputs */
OC_RULE(oc_variadic_infer) { return oc_nary(c, 0, false); }

/* Max, Min, Sum, Mean before opset 8: all inputs of one shape */
OC_RULE(oc_variadic_same_infer) { return oc_nary(c, 0, true); }

/* Legacy broadcasting before opset 7 (And, Or, Xor -1): the output has A's
 * shape; with broadcast = 1, B's shape must match a contiguous run of A's
 * dims starting at `axis` (default: A's trailing dims), a dim of 1 in B
 * being broadcast; with broadcast = 0 the shapes are equal. */
static enum oc_status oc_legacy_binary(struct oc_op_ctx *c, int32_t dt) {
    const struct oc_value *a = oc_in(c, 0), *b = oc_in(c, 1);
    if (!a || a->rank < 0 || !b || b->rank < 0)
        return OC_ERR_SHAPE;
    int64_t bcast, axis;
    enum oc_status st = oc_attr_int(c->node, "broadcast", 0, &bcast, c->diag);
    if (st != OC_OK || (st = oc_attr_int(c->node, "axis", a->rank - b->rank, &axis, c->diag)) != OC_OK)
        return st;
    if (!bcast && b->rank != a->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "inputs of rank %d and %d without broadcast = 1", a->rank, b->rank);
    if (!bcast)
        axis = 0;
    if (axis < 0)
        axis += a->rank;
    if (b->rank > a->rank || axis < 0 || axis + b->rank > a->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "input B of rank %d does not fit A of rank %d at axis %lld", b->rank,
                       a->rank, (long long)axis);
    for (int32_t k = 0; k < b->rank; k++) {
        int64_t db = b->dims[k].value, da = a->dims[axis + k].value;
        if (db >= 0 && da >= 0 && db != da && !(bcast && db == 1))
            return OC_FAIL(c, OC_ERR_MODEL, "input B dim %d is %lld, A's dim %lld is %lld", k, (long long)db,
                           (long long)(axis + k), (long long)da);
    }
    return oc_set_out(c, 0, dt ? dt : a->dtype, a->rank, a->dims);
}

/* And, Or, Xor -1 */
OC_RULE(oc_logical1_infer) { return oc_legacy_binary(c, OC_DT_BOOL); }

/* PRelu: Y has X's shape; from opset 7 slope broadcasts unidirectionally to X
 * (checked; before, the per-channel forms of PRelu-1/6 are accepted as they are) */
OC_RULE(oc_prelu_infer) {
    const struct oc_value *x = oc_in(c, 0), *s = oc_in(c, 1);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (c->node->opset >= 7 && s && s->rank >= 0 && !oc_broadcastable_to(s->dims, s->rank, x->dims, x->rank))
        return OC_FAIL(c, OC_ERR_MODEL, "slope of rank %d cannot be broadcast to X of rank %d", s->rank, x->rank);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

OC_RULE(oc_where_infer) {
    struct oc_dim *dims;
    int32_t rank;
    enum oc_status st = oc_broadcast_inputs(c, 0, 3, &dims, &rank);
    if (st != OC_OK)
        return st;
    return oc_set_out(c, 0, oc_in(c, 1)->dtype, rank, dims);
}

/* Output 0 = input 0's shape in type `to`. */
static enum oc_status oc_cast_to(struct oc_op_ctx *c, int32_t to) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    return oc_set_out(c, 0, to, x->rank, x->dims);
}

OC_RULE(oc_cast_infer) {
    int64_t to;
    enum oc_status st = oc_attr_int(c->node, "to", 0, &to, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "to"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'to' is missing");
    if (to <= 0 || to >= OC_DT_COUNT)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "cast to unknown data type %lld", (long long)to);
    return oc_cast_to(c, (int32_t)to);
}

/* CastLike: Cast to the element type of input 1 (its shape is not used) */
OC_RULE(oc_castlike_infer) {
    const struct oc_value *t = oc_in(c, 1);
    if (!t || !t->dtype)
        return OC_FAIL(c, OC_ERR_SHAPE, "the type of input 'target_type' is not known");
    return oc_cast_to(c, t->dtype);
}

static enum oc_status oc_per_elem(struct oc_op_ctx *c, struct oc_cost *cost, uint64_t k) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), k);
    return OC_OK;
}

/* Per output element; the formula of each op is in docs/COSTS.md:
 *   1: one op or transcendental (Relu, Exp, Sin, Acosh, Sign, Round, Not,
 *      IsNaN x != x, ThresholdedRelu x > alpha ? x : 0, And, Mod, BitShift, ...)
 *   2: LeakyRelu, PRelu: x < 0 ? slope * x : x (compare, multiply); Clip
 *   3: Softplus ln(exp(x) + 1): exp, add, log;
 *      Softsign x / (1 + |x|): abs, add, divide;
 *      Shrink x < -l ? x + b : (x > l ? x - b : 0): two compares, one add
 *   4: Sigmoid, HardSigmoid; Elu x < 0 ? alpha * (exp(x) - 1) : x:
 *      compare, exp, subtract, multiply
 *   5: HardSwish; Selu x <= 0 ? gamma * (alpha * exp(x) - alpha) : gamma * x:
 *      compare, exp, multiply, subtract, multiply;
 *      Mish x * tanh(ln(1 + exp(x))): exp, add, log, tanh, multiply
 *   7: Celu max(0, x) + min(0, alpha * (exp(x / alpha) - 1)):
 *      max, divide, exp, subtract, multiply, min, add */
OC_COST(oc_cost_1_flops_per_elem) { return oc_per_elem(c, cost, 1); }
OC_COST(oc_cost_2_flops_per_elem) { return oc_per_elem(c, cost, 2); }
OC_COST(oc_cost_3_flops_per_elem) { return oc_per_elem(c, cost, 3); }
OC_COST(oc_cost_4_flops_per_elem) { return oc_per_elem(c, cost, 4); }
OC_COST(oc_cost_5_flops_per_elem) { return oc_per_elem(c, cost, 5); }
OC_COST(oc_cost_7_flops_per_elem) { return oc_per_elem(c, cost, 7); }
OC_COST(oc_binary_cost) { return oc_per_elem(c, cost, 1); }

/* Gelu, approximate = "none": 0.5 * x * (1 + erf(x / sqrt(2))):
 *   divide, erf, add, multiply, multiply = 5 per element;
 * approximate = "tanh": 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))):
 *   pow, multiply, add, multiply, tanh, add, multiply, multiply = 8 per element. */
OC_COST(oc_gelu_cost) {
    char approx[8];
    if (oc_attr_string(c->node, "approximate", "none", approx, sizeof approx, c->diag) != OC_OK)
        return OC_ERR_MODEL;
    return oc_per_elem(c, cost, strcmp(approx, "tanh") == 0 ? 8 : 5);
}

/* IsInf: x == +inf and/or x == -inf, one comparison per detected sign
 * (detect_positive + detect_negative, both 1 by default) per element. */
OC_COST(oc_isinf_cost) {
    int64_t pos, neg;
    if (oc_attr_int(c->node, "detect_positive", 1, &pos, c->diag) != OC_OK ||
        oc_attr_int(c->node, "detect_negative", 1, &neg, c->diag) != OC_OK)
        return OC_ERR_MODEL;
    return oc_per_elem(c, cost, (uint64_t)(pos != 0) + (uint64_t)(neg != 0));
}

/* Max, Min, Sum of k inputs: k - 1 compares / adds per output element. */
OC_COST(oc_variadic_cost) {
    return oc_per_elem(c, cost, (uint64_t)oc_n_in(c) - 1);
}

/* Mean of k inputs: (x1 + ... + xk) / k: k - 1 adds and one divide = k per
 * output element. */
OC_COST(oc_mean_cost) {
    return oc_per_elem(c, cost, (uint64_t)oc_n_in(c));
}

OC_COST(oc_cost_zero) {
    (void)c;
    (void)cost;
    return OC_OK;
}
