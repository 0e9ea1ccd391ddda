/*
 * ops/loss.c — NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
 *
 * input / scores [N, C, d1..dk], target / labels [N, d1..dk], weight [C].
 * Output: reduction "none" -> [N, d1..dk]; "mean" (default) and "sum" -> a
 * scalar; SoftmaxCrossEntropyLoss's optional log_prob has the scores' shape.
 *
 * NegativeLogLikelihoodLoss, n = numel(target):
 *   FLOPs = n * (1 + w + i)        negate the gathered log-probability,
 *                                  w = 1 multiply by weight[c] when weight is
 *                                  given, i = 1 select when ignore_index is set
 *         + (n - 1)                if reduction is sum or mean (the sum)
 *         + 1 + (n - 1) * (w | i)  if mean: the divide, and summing the
 *                                  denominator (applied weights or the count
 *                                  of kept targets) when it is not simply n
 * SoftmaxCrossEntropyLoss = LogSoftmax over C, then the above:
 *   FLOPs = 5 * numel(scores) + n (LogSoftmax, one log per row) + NLL(n)
 */
#include "../attr.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

enum oc_reduction { OC_RED_NONE, OC_RED_SUM, OC_RED_MEAN };

static enum oc_status oc_reduction_read(struct oc_op_ctx *c, enum oc_reduction *r) {
    char s[16];
    enum oc_status st = oc_attr_string(c->node, "reduction", "mean", s, sizeof s, c->diag);
    if (st != OC_OK)
        return st;
    if (!strcmp(s, "none"))
        *r = OC_RED_NONE;
    else if (!strcmp(s, "sum"))
        *r = OC_RED_SUM;
    else if (!strcmp(s, "mean"))
        *r = OC_RED_MEAN;
    else
        return OC_FAIL(c, OC_ERR_MODEL, "reduction '%s' is not none, sum or mean", s);
    return OC_OK;
}

static enum oc_status oc_loss_infer(struct oc_op_ctx *c, bool log_prob) {
    const struct oc_value *x = oc_in(c, 0), *t = oc_in(c, 1), *w = oc_in(c, 2);
    if (!x || !t || x->rank < 0 || t->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected at least 2 (N, C, ...)", x->rank);
    if (t->rank != x->rank - 1)
        return OC_FAIL(c, OC_ERR_MODEL, "target has rank %d, expected %d", t->rank, x->rank - 1);
    for (int32_t i = 0; i < t->rank; i++) {
        int64_t a = t->dims[i].value, b = x->dims[i ? i + 1 : 0].value;
        if (a >= 0 && b >= 0 && a != b)
            return OC_FAIL(c, OC_ERR_MODEL, "target dim %d is %lld, input has %lld", i, (long long)a, (long long)b);
    }
    if (w && w->rank >= 0 &&
        (w->rank != 1 || (w->dims[0].value >= 0 && x->dims[1].value >= 0 && w->dims[0].value != x->dims[1].value)))
        return OC_FAIL(c, OC_ERR_MODEL, "weight must be 1-D with C = %lld elements", (long long)x->dims[1].value);
    enum oc_reduction r;
    enum oc_status st = oc_reduction_read(c, &r);
    if (st != OC_OK)
        return st;
    if ((st = oc_set_out(c, 0, x->dtype, r == OC_RED_NONE ? t->rank : 0, t->dims)) != OC_OK)
        return st;
    return log_prob ? oc_set_out(c, 1, x->dtype, x->rank, x->dims) : OC_OK;
}

OC_RULE(oc_nll_loss_infer) { return oc_loss_infer(c, false); }
OC_RULE(oc_sce_loss_infer) { return oc_loss_infer(c, true); }

/* NLL FLOPs over n targets (formula at the top). */
static enum oc_status oc_nll_flops(struct oc_op_ctx *c, struct oc_cost *cost) {
    uint64_t n = oc_numel(oc_in(c, 1));
    bool w = oc_in(c, 2) != NULL, ii = oc_attr_has(c->node, "ignore_index");
    enum oc_reduction r;
    enum oc_status st = oc_reduction_read(c, &r);
    if (st != OC_OK)
        return st;
    oc_cost_add_flops(cost, n, 1 + (w ? 1 : 0) + (ii ? 1 : 0));
    uint64_t sum = n ? n - 1 : 0;
    if (r != OC_RED_NONE)
        oc_cost_add_flops(cost, sum, 1);
    if (r == OC_RED_MEAN) {
        oc_cost_add_flops(cost, 1, 1);
        if (w || ii)
            oc_cost_add_flops(cost, sum, 1);
    }
    return OC_OK;
}

OC_COST(oc_nll_loss_cost) { return oc_nll_flops(c, cost); }

/* 5 * numel(scores) + n + NLL(n). */
OC_COST(oc_sce_loss_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 5);
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 1)), 1);
    return oc_nll_flops(c, cost);
}
