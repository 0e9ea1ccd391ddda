/*
 * ops/training.c — the ai.onnx.preview.training domain: the optimizers
 * Momentum, Adagrad and Adam, and Gradient.
 *
 * The optimizers take R (learning rate) and T (update count), then k
 * groups of k tensors each: the optimized tensors X_1..X_k, their gradients,
 * and one or two groups of accumulators. The outputs are the new values of
 * every group but the gradients, group by group; output j mirrors the
 * shape and type of the input it updates.
 *
 * Costs, per element of the optimized tensors (n = Σ numel(X_i)), the
 * elementary operations of the spec's pseudo code (attribute-only terms such
 * as 1 − alpha are constants), plus the scalar work once per optimized
 * tensor ("applied independently to each of them"):
 *   Momentum standard: G_reg = norm·X + G (2), V_new = alpha·V +
 *     beta_adj·G_reg (3), X_new = X − R·V_new (2): 7n, + 1 per tensor
 *     (beta_adj = T > 0 ? beta : 1);
 *   Momentum nesterov: X_new = X − R·(G_reg + alpha·V_new) (4): 9n + 1;
 *   Adagrad: r = R / (1 + T·decay) (3 per tensor); G_reg (2), H_new = H +
 *     G_reg² (2), H_adaptive = sqrt(H_new) + eps (2), X_new = X −
 *     r·G_reg / H_adaptive (3): 9n + 3 per tensor;
 *   Adam: G_reg (2), V_new = alpha·V + (1 − alpha)·G_reg (3), H_new =
 *     beta·H + (1 − beta)·G_reg² (4), H_sqrt = sqrt(H_new) + eps (2), X_new
 *     = X − R_adj·V_new / H_sqrt (3), X_final = (1 − norm_post)·X_new (1):
 *     15n; R_adj = T > 0 ? R·sqrt(1 − beta^T) / (1 − alpha^T) : R (8 per
 *     tensor).
 *   Gradient: not modelled (the backward pass of the differentiated
 *     subgraph): unknown.
 */
#include "../attr.h"
#include "../dtype.h"
#include "rules.h"

#include <string.h>

struct oc_optim {
    int32_t groups_in;  /* groups of inputs after R, T                   */
    int32_t groups_out; /* groups of outputs                             */
    int32_t grad_group; /* the input group that has no output (gradients) */
};

/* k, the number of optimized tensors, from the node's counts. */
static enum oc_status oc_optim_k(struct oc_op_ctx *c, const struct oc_optim *o, int32_t *k) {
    int32_t n = oc_n_in(c) - 2;
    if (n <= 0 || n % o->groups_in != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "%s takes R, T and %d groups of tensors, the node has %d inputs",
                       c->node->op_type, o->groups_in, oc_n_in(c));
    *k = n / o->groups_in;
    if (c->node->n_out > o->groups_out * *k)
        return OC_FAIL(c, OC_ERR_MODEL, "%s with %d optimized tensors has at most %d outputs, the node has %d",
                       c->node->op_type, *k, o->groups_out * *k, c->node->n_out);
    return OC_OK;
}

static enum oc_status oc_optim_infer(struct oc_op_ctx *c, const struct oc_optim *o) {
    int32_t k;
    enum oc_status st = oc_optim_k(c, o, &k);
    if (st != OC_OK)
        return st;
    enum oc_status res = OC_OK;
    for (int32_t j = 0; j < c->node->n_out; j++) {
        int32_t g = j / k, i = j % k;
        int32_t in_group = g < o->grad_group ? g : g + 1; /* skip the gradients */
        const struct oc_value *v = oc_in(c, 2 + in_group * k + i);
        if (!v || v->rank < 0) {
            res = OC_ERR_SHAPE;
            continue;
        }
        if ((st = oc_set_out(c, j, v->dtype, v->rank, v->dims)) != OC_OK)
            return st;
    }
    return res;
}

/* Σ numel of the optimized tensors X_1..X_k */
static uint64_t oc_optim_elems(struct oc_op_ctx *c, int32_t k) {
    uint64_t n = 0;
    for (int32_t i = 0; i < k; i++)
        oc_add_u64(n, oc_numel(oc_in(c, 2 + i)), &n);
    return n;
}

static enum oc_status oc_optim_cost(struct oc_op_ctx *c, const struct oc_optim *o, struct oc_cost *cost,
                                    uint64_t per_elem, uint64_t per_tensor) {
    int32_t k;
    enum oc_status st = oc_optim_k(c, o, &k);
    if (st != OC_OK)
        return st;
    oc_cost_add_flops(cost, oc_optim_elems(c, k), per_elem);
    oc_cost_add_flops(cost, (uint64_t)k, per_tensor);
    return OC_OK;
}

/* Momentum: inputs X, G, V; outputs X_new, V_new */
static const struct oc_optim oc_momentum = {3, 2, 1};
/* Adagrad: inputs X, G, H; outputs X_new, H_new */
static const struct oc_optim oc_adagrad = {3, 2, 1};
/* Adam: inputs X, G, V, H; outputs X_new, V_new, H_new */
static const struct oc_optim oc_adam = {4, 3, 1};

static enum oc_status oc_momentum_mode(struct oc_op_ctx *c, bool *nesterov) {
    char mode[16];
    if (!oc_attr_has(c->node, "mode"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'mode' is missing");
    enum oc_status st = oc_attr_string(c->node, "mode", "", mode, sizeof mode, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(mode, "standard") != 0 && strcmp(mode, "nesterov") != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'mode' is '%s', expected 'standard' or 'nesterov'", mode);
    *nesterov = mode[0] == 'n';
    return OC_OK;
}

OC_RULE(oc_momentum_infer) {
    bool nesterov;
    enum oc_status st = oc_momentum_mode(c, &nesterov);
    return st != OC_OK ? st : oc_optim_infer(c, &oc_momentum);
}

OC_COST(oc_momentum_cost) {
    bool nesterov;
    enum oc_status st = oc_momentum_mode(c, &nesterov);
    return st != OC_OK ? st : oc_optim_cost(c, &oc_momentum, cost, nesterov ? 9 : 7, 1);
}

OC_RULE(oc_adagrad_infer) { return oc_optim_infer(c, &oc_adagrad); }

OC_COST(oc_adagrad_cost) { return oc_optim_cost(c, &oc_adagrad, cost, 9, 3); }

OC_RULE(oc_adam_infer) { return oc_optim_infer(c, &oc_adam); }

OC_COST(oc_adam_cost) { return oc_optim_cost(c, &oc_adam, cost, 15, 8); }

/* Gradient: inputs are the values of xs then zs; output i is dy/d xs[i],
 * of input i's shape and (floating-point) type. */
OC_RULE(oc_gradient_infer) {
    char b[2];
    int64_t n_xs, n_zs;
    enum oc_status st = oc_attr_strings_at(c->node, "xs", -1, b, sizeof b, &n_xs, c->diag);
    if (st != OC_OK || (st = oc_attr_strings_at(c->node, "zs", -1, b, sizeof b, &n_zs, c->diag)) != OC_OK)
        return st;
    if (n_xs == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'xs' is missing or empty");
    if (!oc_attr_has(c->node, "y"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'y' is missing");
    if (c->node->n_out > n_xs)
        return OC_FAIL(c, OC_ERR_MODEL, "%d outputs for %lld tensors in 'xs'", c->node->n_out, (long long)n_xs);
    if (oc_n_in(c) != n_xs + n_zs)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "%d inputs for %lld names in 'xs' and 'zs': the shapes of xs are "
                       "not derivable", oc_n_in(c), (long long)(n_xs + n_zs));
    enum oc_status res = OC_OK;
    for (int32_t i = 0; i < c->node->n_out; i++) {
        if (!oc_out(c, i))
            continue;
        const struct oc_value *x = oc_in(c, i);
        if (!x)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input %d (the value of xs[%d]) is omitted: its gradient's shape is "
                           "not derivable", i, i);
        if (x->rank < 0 || !x->dtype) {
            res = OC_ERR_SHAPE;
            continue;
        }
        if (!oc_dtype_is_float(x->dtype))
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "xs[%d] is %s: no gradient of a non-float tensor", i,
                           oc_dtype_name(x->dtype));
        if ((st = oc_set_out(c, i, x->dtype, x->rank, x->dims)) != OC_OK)
            return st;
    }
    return res;
}

OC_COST(oc_gradient_cost) {
    (void)cost;
    return OC_FAIL(c, OC_ERR_UNSUPPORTED, "the backward pass of the differentiated subgraph is not modelled");
}
