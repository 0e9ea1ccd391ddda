/*
 * ops/eltwise.c — unary and binary elementwise ops, comparisons, Cast,
 * Clip, Where. Shapes follow multidirectional broadcasting; for small
 * integer tensors (shape arithmetic) the values are propagated too.
 *
 * FLOPs per output element (docs/COSTS.md): the elementary operations of
 * the op's defining formula in the ONNX spec, a transcendental function
 * (exp, log, sqrt, erf, tanh) counting as one.
 */
#include "../dtype.h"
#include "../attr.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

enum { OC_EVAL_MAX = 1 << 16 };

OC_RULE(oc_unary_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

OC_RULE(oc_clip_infer) {
    return oc_unary_infer(c);
}

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

/* Flat index into an input broadcast against an output of rank r. */
static int64_t oc_bcast_index(const struct oc_value *v, const struct oc_dim *odims, int32_t r, int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (int32_t k = r - 1; k >= 0; k--) {
        int64_t od = odims[k].value;
        int64_t coord = flat % od;
        flat /= od;
        int32_t vk = k - (r - v->rank);
        if (vk < 0)
            continue;
        int64_t vd = v->dims[vk].value;
        idx += (vd == 1 ? 0 : coord) * stride;
        stride *= vd;
    }
    return idx;
}

enum oc_eval_op { OC_EV_ADD, OC_EV_SUB, OC_EV_MUL, OC_EV_DIV, OC_EV_EQ, OC_EV_LT, OC_EV_GT, OC_EV_WHERE, OC_EV_NONE };

static enum oc_eval_op oc_eval_op_of(const char *op) {
    static const struct {
        const char *name;
        enum oc_eval_op op;
    } t[] = {{"Add", OC_EV_ADD},  {"Sub", OC_EV_SUB},     {"Mul", OC_EV_MUL},    {"Div", OC_EV_DIV},
             {"Equal", OC_EV_EQ}, {"Less", OC_EV_LT},     {"Greater", OC_EV_GT}, {"Where", OC_EV_WHERE}};
    for (size_t i = 0; i < OC_ARRAY_LEN(t); i++)
        if (strcmp(op, t[i].name) == 0)
            return t[i].op;
    return OC_EV_NONE;
}

/* Propagates integer values through an elementwise node when every input's
 * values are known. Silently does nothing otherwise. */
static enum oc_status oc_eval_ints(struct oc_op_ctx *c, int32_t n_in) {
    enum oc_eval_op op = oc_eval_op_of(c->node->op_type);
    struct oc_value *out = oc_out(c, 0);
    if (op == OC_EV_NONE || !out || !oc_shape_known(out))
        return OC_OK;
    const int64_t *iv[3];
    int64_t nv[3];
    for (int32_t i = 0; i < n_in; i++) {
        const struct oc_value *v = oc_in(c, i);
        if (!oc_shape_known(v) || !(iv[i] = oc_in_ints(c, i, &nv[i])))
            return OC_OK;
    }
    uint64_t n = oc_numel(out);
    if (n > OC_EVAL_MAX)
        return OC_OK;
    int64_t *res = oc_arena_array(c->arena, n ? n : 1, sizeof *res);
    if (!res)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    for (int64_t f = 0; f < (int64_t)n; f++) {
        int64_t x[3] = {0, 0, 0};
        for (int32_t i = 0; i < n_in; i++) {
            int64_t k = oc_bcast_index(oc_in(c, i), out->dims, out->rank, f);
            if (k >= nv[i])
                return OC_OK;
            x[i] = iv[i][k];
        }
        int64_t r;
        switch (op) {
        case OC_EV_ADD:
            if (oc_add_i64(x[0], x[1], &r))
                return OC_OK;
            break;
        case OC_EV_SUB:
            if (__builtin_sub_overflow(x[0], x[1], &r))
                return OC_OK;
            break;
        case OC_EV_MUL:
            if (oc_mul_i64(x[0], x[1], &r))
                return OC_OK;
            break;
        case OC_EV_DIV:
            if (x[1] == 0 || (x[0] == INT64_MIN && x[1] == -1))
                return OC_OK;
            r = x[0] / x[1];
            break;
        case OC_EV_EQ:
            r = x[0] == x[1];
            break;
        case OC_EV_LT:
            r = x[0] < x[1];
            break;
        case OC_EV_GT:
            r = x[0] > x[1];
            break;
        case OC_EV_WHERE:
            r = x[0] ? x[1] : x[2];
            break;
        default:
            return OC_OK;
        }
        res[f] = r;
    }
    out->ival = res;
    out->n_ival = (int64_t)n;
    return OC_OK;
}

OC_RULE(oc_binary_infer) {
    struct oc_dim *dims;
    int32_t rank;
    enum oc_status st = oc_broadcast_inputs(c, 0, 2, &dims, &rank);
    if (st != OC_OK)
        return st;
    const struct oc_value *a = oc_in(c, 0);
    int32_t dt = a->dtype ? a->dtype : oc_in(c, 1)->dtype;
    if ((st = oc_set_out(c, 0, dt, rank, dims)) != OC_OK)
        return st;
    return oc_dtype_is_int(dt) ? oc_eval_ints(c, 2) : OC_OK;
}

OC_RULE(oc_compare_infer) {
    struct oc_dim *dims;
    int32_t rank;
    enum oc_status st = oc_broadcast_inputs(c, 0, 2, &dims, &rank);
    if (st != OC_OK)
        return st;
    if ((st = oc_set_out(c, 0, OC_DT_BOOL, rank, dims)) != OC_OK)
        return st;
    return oc_dtype_is_int(oc_in(c, 0)->dtype) ? oc_eval_ints(c, 2) : OC_OK;
}

OC_RULE(oc_where_infer) {
    struct oc_dim *dims;
    int32_t rank;
    enum oc_status st = oc_broadcast_inputs(c, 0, 3, &dims, &rank);
    if (st != OC_OK)
        return st;
    int32_t dt = oc_in(c, 1)->dtype;
    if ((st = oc_set_out(c, 0, dt, rank, dims)) != OC_OK)
        return st;
    return oc_dtype_is_int(dt) ? oc_eval_ints(c, 3) : OC_OK;
}

OC_RULE(oc_cast_infer) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t to;
    enum oc_status st = oc_attr_int(c->node, "to", 0, &to, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "to"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'to' is missing");
    if (to <= 0 || to >= OC_DT_COUNT)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "cast to unknown data type %lld", (long long)to);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if ((st = oc_set_out(c, 0, (int32_t)to, x->rank, x->dims)) != OC_OK)
        return st;
    int64_t n;
    const int64_t *v = oc_in_ints(c, 0, &n);
    if (v && oc_dtype_is_int((int32_t)to))
        return oc_set_ints(c, 0, v, n);
    return OC_OK;
}

static enum oc_status oc_per_elem(struct oc_op_ctx *c, struct oc_cost *cost, uint64_t k) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), k);
    return OC_OK;
}

OC_COST(oc_unary1_cost) { return oc_per_elem(c, cost, 1); }
OC_COST(oc_unary2_cost) { return oc_per_elem(c, cost, 2); }
OC_COST(oc_unary4_cost) { return oc_per_elem(c, cost, 4); }
OC_COST(oc_unary5_cost) { return oc_per_elem(c, cost, 5); }
OC_COST(oc_binary_cost) { return oc_per_elem(c, cost, 1); }

OC_COST(oc_cost_zero) {
    (void)c;
    (void)cost;
    return OC_OK;
}
