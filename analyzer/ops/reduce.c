/*
 * ops/reduce.c — ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd,
 * ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, ArgMax,
 * ArgMin. Axes come from an attribute (before ReduceSum-13 / the others' 18)
 * or from input 1 (after); ArgMax/ArgMin take one `axis` attribute and give
 * int64 indices.
 *
 * With X = numel(input), Y = numel(output) and fold = X - Y (the elements
 * folded into an accumulator: one op each):
 * ReduceMean: X FLOPs (fold adds, Y divides).
 * ReduceSum, ReduceMax, ReduceMin, ReduceProd, ArgMax, ArgMin: fold.
 * ReduceL1: X + fold (|x| per element, then the adds).
 * ReduceSumSquare: X + fold (x*x per element, then the adds).
 * ReduceL2: X + fold + Y (x*x, adds, one sqrt per output).
 * ReduceLogSum: fold + Y (adds, one log per output).
 * ReduceLogSumExp: X + fold + Y (exp per element, adds, one log per output).
 */
#include "../attr.h"
#include "../fold.h"
#include "rules.h"
#include "../shape.h"

#include <math.h>
#include <string.h>

enum { OC_MAX_REDUCE_RANK = 1024 };

static enum oc_status oc_reduce_shape(struct oc_op_ctx *c, const int64_t *axes, int64_t n_axes, bool all,
                                      int64_t keep, int32_t dtype) {
    const struct oc_value *x = oc_in(c, 0);
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
    return oc_set_out(c, 0, dtype, r, out);
}

static enum oc_status oc_reduce_apply(struct oc_op_ctx *c, const int64_t *axes, int64_t n_axes, bool all) {
    int64_t keep;
    enum oc_status st = oc_attr_int(c->node, "keepdims", 1, &keep, c->diag);
    if (st != OC_OK)
        return st;
    return oc_reduce_shape(c, axes, n_axes, all, keep, oc_in(c, 0)->dtype);
}

/* ArgMax / ArgMin: one axis (default 0), keepdims, int64 output. */
OC_RULE(oc_argminmax_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t axis, keep, last;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "axis", 0, &axis, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "keepdims", 1, &keep, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "select_last_index", 0, &last, c->diag)) != OC_OK)
        return st;
    if (x->rank == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "input is a scalar: there is no axis to reduce");
    return oc_reduce_shape(c, &axis, 1, false, keep, 7 /* INT64 */);
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

/* fold = numel(X) - numel(Y): the elements combined into an accumulator */
static void oc_reduce_counts(struct oc_op_ctx *c, uint64_t *x, uint64_t *y, uint64_t *fold) {
    *x = oc_numel(oc_in(c, 0));
    *y = oc_numel(oc_out(c, 0));
    *fold = *x > *y ? *x - *y : 0;
}

/* ReduceL1 = sum |x|: X abs + fold adds. ReduceSumSquare = sum x*x: X multiplies + fold adds. */
OC_COST(oc_reduce_l1_cost) {
    uint64_t x, y, fold;
    oc_reduce_counts(c, &x, &y, &fold);
    oc_cost_add_flops(cost, x, 1);
    oc_cost_add_flops(cost, fold, 1);
    return OC_OK;
}

/* One op per element, one add per folded element, one op per output:
 * ReduceL2 = sqrt(sum x*x) (multiplies, adds, square roots) and
 * ReduceLogSumExp = log(sum exp(x)) (exps, adds, logs). */
OC_COST(oc_reduce_map_fold_out_cost) {
    uint64_t x, y, fold;
    oc_reduce_counts(c, &x, &y, &fold);
    oc_cost_add_flops(cost, x, 1);
    oc_cost_add_flops(cost, fold, 1);
    oc_cost_add_flops(cost, y, 1);
    return OC_OK;
}

/* ReduceLogSum = log(sum x): fold adds + Y logs. */
OC_COST(oc_reduce_logsum_cost) {
    uint64_t x, y, fold;
    oc_reduce_counts(c, &x, &y, &fold);
    oc_cost_add_flops(cost, fold, 1);
    oc_cost_add_flops(cost, y, 1);
    return OC_OK;
}


/* ---- value propagation (fold.h) --------------------------------------------------
 * ReduceSum, ReduceProd, ReduceMin, ReduceMax, ReduceMean of known contents:
 * integers exactly (overflow leaves the output unknown), floats accumulated
 * in double and rounded to the type once. */
OC_FOLD(oc_reduce_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    struct oc_diag d = {0};
    const int64_t *axes = NULL;
    int64_t n = 0, noop = 0;
    const char *op = c->node->op_type;
    if (!oc_fold_in(c, 0, &x) || x.rank > OC_MAX_REDUCE_RANK)
        return OC_OK;
    bool from_input = (strcmp(op, "ReduceSum") == 0 && c->node->opset >= 13) || c->node->opset >= 18;
    if (from_input) {
        if ((oc_in(c, 1) && !(axes = oc_in_ints(c, 1, &n))) ||
            oc_attr_int(c->node, "noop_with_empty_axes", 0, &noop, &d) != OC_OK)
            return OC_OK;
    } else if (oc_attr_ints(c->node, "axes", &axes, &n, &d) != OC_OK) {
        return OC_OK;
    }
    bool red[OC_MAX_REDUCE_RANK];
    for (int32_t i = 0; i < x.rank; i++)
        red[i] = n == 0 && !noop;
    for (int64_t i = 0; i < n; i++) {
        int32_t a;
        if (!oc_axis_norm(axes[i], x.rank, &a))
            return OC_OK;
        red[a] = true;
    }
    if (!oc_fold_out(c, 0, &o))
        return OC_OK;
    int64_t *cnt = oc_arena_array(c->arena, (size_t)o.n + 1, sizeof *cnt);
    double *acc = oc_arena_array(c->arena, (size_t)o.n + 1, sizeof *acc);
    int64_t *iacc = oc_arena_array(c->arena, (size_t)o.n + 1, sizeof *iacc);
    int64_t *co = oc_arena_array(c->arena, (size_t)x.rank + 1, sizeof *co);
    if (!cnt || !acc || !iacc || !co)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    enum { SUM, PROD, MIN, MAX, MEAN } kind = strcmp(op, "ReduceProd") == 0  ? PROD
                                             : strcmp(op, "ReduceMin") == 0  ? MIN
                                             : strcmp(op, "ReduceMax") == 0  ? MAX
                                             : strcmp(op, "ReduceMean") == 0 ? MEAN
                                                                              : SUM;
    bool as_int = x.i && kind != MEAN;
    for (int64_t j = 0; j < o.n; j++)
        cnt[j] = 0, acc[j] = kind == PROD ? 1 : 0, iacc[j] = kind == PROD ? 1 : 0;
    for (int64_t i = 0; i < x.n; i++) {
        oc_fold_coords(i, x.dims, x.rank, co);
        int64_t j = 0;
        for (int32_t k = 0; k < x.rank; k++)
            if (!red[k])
                j = j * x.dims[k].value + co[k];
        if (j >= o.n)
            return OC_OK;
        double v = oc_known_f(&x, i);
        if (as_int) {
            int64_t a = iacc[j], b = x.i[i];
            if (cnt[j] == 0 && (kind == MIN || kind == MAX))
                a = b;
            else if (kind == SUM ? oc_add_i64(a, b, &a) : kind == PROD ? oc_mul_i64(a, b, &a) : false)
                return OC_OK;
            else if (kind == MIN || kind == MAX)
                a = (kind == MIN) == (b < a) ? b : a;
            iacc[j] = a;
        } else if (cnt[j] == 0 && (kind == MIN || kind == MAX)) {
            acc[j] = v;
        } else {
            acc[j] = kind == PROD ? acc[j] * v
                     : kind == MIN ? (v < acc[j] || isnan(v) ? v : acc[j])
                     : kind == MAX ? (v > acc[j] || isnan(v) ? v : acc[j])
                                   : acc[j] + v;
        }
        cnt[j]++;
    }
    for (int64_t j = 0; j < o.n; j++) {
        if (cnt[j] == 0 && kind == MEAN)
            return OC_OK; /* 0 / 0: left to the run time */
        if (cnt[j] == 0 && (kind == MIN || kind == MAX)) { /* over nothing: the identity */
            int64_t lo, hi;
            oc_fold_int_range(o.dtype, &lo, &hi);
            acc[j] = kind == MIN ? INFINITY : -INFINITY;
            iacc[j] = kind == MIN ? hi : lo;
        }
        if (!(as_int ? oc_fold_put_i(&o, j, iacc[j]) : oc_fold_put_f(&o, j, kind == MEAN ? acc[j] / (double)cnt[j] : acc[j])))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}
