/*
 * ops/random.c — RandomNormal, RandomUniform, RandomNormalLike,
 * RandomUniformLike, Bernoulli, Multinomial.
 *
 * A draw from a distribution counts as one operation (like a
 * transcendental): RandomNormal, RandomUniform and their *Like forms cost
 * n = numel(output) FLOPs, Bernoulli 2n (a uniform draw and a comparison
 * with p), Multinomial see its cost comment.
 */
#include "../attr.h"
#include "../dtype.h"
#include "rules.h"

/* RandomNormal, RandomUniform: shape from the `shape` attribute (required),
 * type from `dtype` (default float). */
OC_RULE(oc_random_infer) {
    const int64_t *shape;
    int64_t n;
    int32_t dt;
    enum oc_status st = oc_attr_ints(c->node, "shape", &shape, &n, c->diag);
    if (st != OC_OK || (st = oc_attr_dtype(c->node, "dtype", OC_DT_FLOAT, &dt, c->diag)) != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "shape"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'shape' is missing");
    if (n > INT32_MAX)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "shape has %lld dims", (long long)n);
    for (int64_t i = 0; i < n; i++)
        if (shape[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "shape dim %lld is %lld", (long long)i, (long long)shape[i]);
    return oc_set_out_i64(c, 0, dt, (int32_t)n, shape);
}

/* RandomNormalLike, RandomUniformLike, Bernoulli: the input's shape, type
 * from `dtype` or the input's. */
OC_RULE(oc_random_like_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int32_t dt;
    enum oc_status st = oc_attr_dtype(c->node, "dtype", x->dtype, &dt, c->diag);
    if (st != OC_OK)
        return st;
    return oc_set_out(c, 0, dt, x->rank, x->dims);
}

/* One draw per output element. */
OC_COST(oc_random_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return OC_OK;
}

/* Bernoulli: y = uniform() < p: a draw and a comparison per element. */
OC_COST(oc_bernoulli_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 2);
    return OC_OK;
}

static enum oc_status oc_sample_size(struct oc_op_ctx *c, int64_t *s) {
    enum oc_status st = oc_attr_int(c->node, "sample_size", 1, s, c->diag);
    if (st != OC_OK)
        return st;
    if (*s <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "sample_size is %lld, expected > 0", (long long)*s);
    return OC_OK;
}

/* Multinomial: input [batch, classes] -> [batch, sample_size], type from
 * `dtype` (default int32). */
OC_RULE(oc_multinomial_infer) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t s;
    int32_t dt;
    enum oc_status st = oc_sample_size(c, &s);
    if (st != OC_OK || (st = oc_attr_dtype(c->node, "dtype", OC_DT_INT32, &dt, c->diag)) != OC_OK)
        return st;
    if (dt != OC_DT_INT32 && dt != OC_DT_INT64)
        return OC_FAIL(c, OC_ERR_MODEL, "dtype %s, expected int32 or int64", oc_dtype_name(dt));
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected 2 (batch, classes)", x->rank);
    struct oc_dim out[2] = {x->dims[0], {s, NULL}};
    return oc_set_out(c, 0, dt, 2, out);
}

/* Multinomial, batch B, k classes, s samples: per batch row k exps of the
 * log-probabilities and k - 1 adds for their running sum (the unnormalised
 * CDF); per sample one draw, one multiply (scaling it by the total) and a
 * scan of the k CDF entries (k comparisons):
 *   B · (2k - 1) + B · s · (k + 2). */
OC_COST(oc_multinomial_cost) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t s;
    if (oc_sample_size(c, &s) != OC_OK)
        return OC_ERR_MODEL;
    uint64_t b = (uint64_t)x->dims[0].value, k = (uint64_t)x->dims[1].value, bs;
    if (k == 0)
        return OC_OK;
    oc_cost_add_flops(cost, b, 2 * k - 1);
    if (oc_mul_u64(b, (uint64_t)s, &bs))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_flops(cost, bs, k + 2);
    return OC_OK;
}
