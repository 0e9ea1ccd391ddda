/*
 * ops/reduce.c — ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd.
 * Axes come from an attribute (before ReduceSum-13 / the others' 18) or
 * from input 1 (after).
 *
 * ReduceMean: numel(X) FLOPs (numel(X) - numel(Y) adds, numel(Y) divides).
 * Others: numel(X) - numel(Y) (one add / compare / multiply per folded element).
 */
#include "../attr.h"
#include "rules.h"
#include "../shape.h"

enum { OC_MAX_REDUCE_RANK = 1024 };

static enum oc_status oc_reduce_apply(struct oc_op_ctx *c, const int64_t *axes, int64_t n_axes, bool all) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t keep;
    enum oc_status st = oc_attr_int(c->node, "keepdims", 1, &keep, c->diag);
    if (st != OC_OK)
        return st;
    if (x->rank > OC_MAX_REDUCE_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_MAX_REDUCE_RANK);
    bool red[OC_MAX_REDUCE_RANK] = {false};
    for (int32_t i = 0; i < x->rank; i++)
        red[i] = all;
    for (int64_t i = 0; i < n_axes; i++) {
        int32_t a;
        if (!oc_axis_norm(axes[i], x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axes[i], x->rank);
        red[a] = true;
    }
    struct oc_dim out[OC_MAX_REDUCE_RANK];
    int32_t r = 0;
    for (int32_t i = 0; i < x->rank; i++) {
        if (!red[i])
            out[r++] = x->dims[i];
        else if (keep)
            out[r++] = (struct oc_dim){1, NULL};
    }
    return oc_set_out(c, 0, x->dtype, r, out);
}

OC_RULE(oc_reduce_attr_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *axes;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "axes", &axes, &n, c->diag);
    if (st != OC_OK)
        return st;
    return oc_reduce_apply(c, axes, n, n == 0);
}

OC_RULE(oc_reduce_input_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t noop;
    enum oc_status st = oc_attr_int(c->node, "noop_with_empty_axes", 0, &noop, c->diag);
    if (st != OC_OK)
        return st;
    int64_t n = 0;
    const int64_t *axes = NULL;
    if (oc_in(c, 1)) {
        axes = oc_in_ints(c, 1, &n);
        if (!axes)
            return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'axes' are not known");
    }
    if (n == 0 && noop)
        return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
    return oc_reduce_apply(c, axes, n, n == 0);
}

OC_COST(oc_reduce_mean_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    return OC_OK;
}

OC_COST(oc_reduce_cost) {
    uint64_t in = oc_numel(oc_in(c, 0)), out = oc_numel(oc_out(c, 0));
    oc_cost_add_flops(cost, in > out ? in - out : 0, 1);
    return OC_OK;
}
