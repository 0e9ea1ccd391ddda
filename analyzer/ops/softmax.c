/*
 * ops/softmax.c — Softmax, LogSoftmax, Hardmax, and Dropout (an inference
 * identity).
 *
 * Softmax: 5 FLOPs per element (max, subtract, exp, sum, divide).
 * LogSoftmax: 5 per element (max, subtract, exp, sum, subtract) plus one
 *   log per row.
 * Hardmax: numel - rows comparisons (the first maximum of each row).
 * Softmax, LogSoftmax, Hardmax share the shape rule: axis defaults to 1 and
 *   rows are the input coerced to 2-D at axis before opset 13; from 13 the
 *   axis defaults to -1 and a row is that one axis.
 * Dropout: inference identity (aliases its input), 0 FLOPs.
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "rules.h"
#include "../shape.h"

OC_RULE(oc_softmax_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t axis;
    enum oc_status st = oc_attr_int(c->node, "axis", c->node->opset >= 13 ? -1 : 1, &axis, c->diag);
    if (st != OC_OK)
        return st;
    int32_t a;
    if (x->rank > 0 && !oc_axis_norm(axis, x->rank, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

OC_COST(oc_softmax_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 5);
    return OC_OK;
}

/* Rows of a Softmax-family op: numel(X) / the row length, the row being
 * the `axis` dim from opset 13 and the flattened dims [axis, rank) before
 * (the input is coerced to 2-D there). 0 when the axis is invalid. */
static uint64_t oc_softmax_rows(struct oc_op_ctx *c) {
    const struct oc_value *x = oc_in(c, 0);
    uint64_t n = oc_numel(x), row = 1;
    int64_t axis;
    int32_t a = 0;
    if (oc_attr_int(c->node, "axis", c->node->opset >= 13 ? -1 : 1, &axis, c->diag) != OC_OK)
        return 0;
    if (x->rank > 0 && oc_axis_norm(axis, x->rank, &a)) {
        int32_t end = c->node->opset >= 13 ? a + 1 : x->rank;
        for (int32_t i = a; i < end; i++)
            row *= (uint64_t)x->dims[i].value;
    }
    return row ? n / row : 0;
}

OC_COST(oc_logsoftmax_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 5);
    oc_cost_add_flops(cost, oc_softmax_rows(c), 1);
    return OC_OK;
}

/* Hardmax: y = 1 at the first maximum of each row, else 0: finding it takes
 * row length - 1 comparisons per row = numel(X) - rows (rows as Softmax:
 * one axis from opset 13, the flattened tail before). */
OC_COST(oc_hardmax_cost) {
    uint64_t n = oc_numel(oc_in(c, 0)), rows = oc_softmax_rows(c);
    oc_cost_add_flops(cost, n > rows ? n - rows : 0, 1);
    return OC_OK;
}

OC_RULE(oc_dropout_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_set_out(c, 0, x->dtype, x->rank, x->dims);
    if (st != OC_OK)
        return st;
    /* the ratio and training_mode read now, so the views can tell a
       training Dropout from the identity (views/training.c) */
    struct oc_known k;
    (void)oc_fold_in(c, 1, &k);
    (void)oc_fold_in(c, 2, &k);
    /* opset >= 10: the mask is bool; before, the input's type */
    return oc_set_out(c, 1, c->node->opset >= 10 ? OC_DT_BOOL : x->dtype, x->rank, x->dims);
}
