/*
 * ops/normalize.c — BatchNormalization, LayerNormalization,
 * RMSNormalization, GroupNormalization, InstanceNormalization, LRN,
 * MeanVarianceNormalization, LpNormalization. Every output has X's shape
 * (LayerNormalization's Mean and InvStdDev: X's shape with 1s from `axis`
 * on). n = numel(X); a "row" is one set of elements that share a mean (or
 * norm); per-row work counts once per row (docs/COSTS.md).
 *
 * BatchNormalization (inference): 2 FLOPs per element, y = x * s + t with
 * the per-channel s, t folded from scale, bias, mean and var; its
 * training-mode outputs (running or saved mean/var) are per channel.
 */
#include "../attr.h"
#include "../dtype.h"
#include "rules.h"
#include "../shape.h"

OC_RULE(oc_batchnorm_infer) {
    const struct oc_value *x = oc_in(c, 0), *scale = oc_in(c, 1);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected at least 2 (N, C, ...)", x->rank);
    for (int32_t i = 1; i < 5; i++) {
        const struct oc_value *p = oc_in(c, i);
        if (p && p->rank >= 0 && x->dims[1].value >= 0 &&
            (p->rank != 1 || (p->dims[0].value >= 0 && p->dims[0].value != x->dims[1].value)))
            return OC_FAIL(c, OC_ERR_MODEL, "input %d must be 1-D with C=%lld elements", i,
                           (long long)x->dims[1].value);
    }
    enum oc_status st = oc_set_out(c, 0, x->dtype, x->rank, x->dims);
    if (st != OC_OK)
        return st;
    /* training-mode outputs (running or saved mean/var) are per channel */
    for (int32_t i = 1; i < c->node->n_out; i++)
        if ((st = oc_set_out(c, i, scale && scale->dtype ? scale->dtype : x->dtype, 1, &x->dims[1])) != OC_OK)
            return st;
    return OC_OK;
}

OC_COST(oc_batchnorm_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 2);
    return OC_OK;
}

enum { OC_NORM_MAX_RANK = 1024 };

/* X with a known rank, `axis` normalised to [0, rank). */
static enum oc_status oc_norm_axis(struct oc_op_ctx *c, int64_t def, int32_t *a) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t axis;
    enum oc_status st = oc_attr_int(c->node, "axis", def, &axis, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_axis_norm(axis, x->rank, a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    return OC_OK;
}

/* Input i (when given, of known rank) must broadcast unidirectionally to X. */
static enum oc_status oc_norm_param(struct oc_op_ctx *c, int32_t i, const char *name) {
    const struct oc_value *x = oc_in(c, 0), *p = oc_in(c, i);
    if (p && p->rank >= 0 && !oc_broadcastable_to(p->dims, p->rank, x->dims, x->rank))
        return OC_FAIL(c, OC_ERR_MODEL, "input '%s' of rank %d cannot be broadcast to X of rank %d", name, p->rank,
                       x->rank);
    return OC_OK;
}

/* Product of X's dims [from, to). */
static uint64_t oc_dims_prod(const struct oc_value *x, int32_t from, int32_t to) {
    uint64_t p = 1;
    for (int32_t i = from; i < to; i++)
        if (oc_mul_u64(p, (uint64_t)x->dims[i].value, &p))
            return UINT64_MAX;
    return p;
}

static enum oc_status oc_stash_type(struct oc_op_ctx *c, int64_t *st_type) {
    enum oc_status st = oc_attr_int(c->node, "stash_type", OC_DT_FLOAT, st_type, c->diag);
    if (st != OC_OK)
        return st;
    if (*st_type <= 0 || *st_type >= OC_DT_COUNT || !oc_dtype_is_float((int32_t)*st_type))
        return OC_FAIL(c, OC_ERR_MODEL, "stash_type %lld is not a floating-point type", (long long)*st_type);
    return OC_OK;
}

/* LayerNormalization-17: Y like X; Mean and InvStdDev of type stash_type
 * and shape X.shape[:axis] + [1] * (rank - axis). */
OC_RULE(oc_layernorm_infer) {
    int32_t a;
    int64_t stash;
    enum oc_status st = oc_norm_axis(c, -1, &a);
    if (st != OC_OK || (st = oc_stash_type(c, &stash)) != OC_OK || (st = oc_norm_param(c, 1, "Scale")) != OC_OK ||
        (st = oc_norm_param(c, 2, "B")) != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    if ((st = oc_set_out(c, 0, x->dtype, x->rank, x->dims)) != OC_OK)
        return st;
    if (x->rank > OC_NORM_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_NORM_MAX_RANK);
    struct oc_dim red[OC_NORM_MAX_RANK];
    for (int32_t i = 0; i < x->rank; i++)
        red[i] = i < a ? x->dims[i] : (struct oc_dim){1, NULL};
    for (int32_t k = 1; k < 3; k++)
        if ((st = oc_set_out(c, k, (int32_t)stash, x->rank, red)) != OC_OK)
            return st;
    return OC_OK;
}

/* LayerNormalization, the spec's equations, rows = prod(X.shape[:axis]):
 *   Mean = ReduceMean(X)            n   (n - rows adds, rows divides)
 *   D = X - Mean                    n
 *   DD = D * D                      n
 *   Var = ReduceMean(DD)            n
 *   VarEps = Var + epsilon          rows
 *   StdDev = Sqrt(VarEps)           rows
 *   InvStdDev = Reciprocal(StdDev)  rows
 *   Normalized = D * InvStdDev      n
 *   Y = Normalized * Scale (+ B)    n (+ n)
 * = 6n + 3 rows, + n with B. */
OC_COST(oc_layernorm_cost) {
    const struct oc_value *x = oc_in(c, 0);
    int32_t a;
    if (oc_norm_axis(c, -1, &a) != OC_OK)
        return OC_ERR_MODEL;
    uint64_t n = oc_numel(x), rows = oc_dims_prod(x, 0, a);
    oc_cost_add_flops(cost, n, oc_in(c, 2) ? 7 : 6);
    oc_cost_add_flops(cost, rows, 3);
    return OC_OK;
}

/* RMSNormalization-23: Y has X's shape and scale's type (V). */
OC_RULE(oc_rmsnorm_infer) {
    int32_t a;
    int64_t stash;
    enum oc_status st = oc_norm_axis(c, -1, &a);
    if (st != OC_OK || (st = oc_stash_type(c, &stash)) != OC_OK || (st = oc_norm_param(c, 1, "scale")) != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0), *s = oc_in(c, 1);
    return oc_set_out(c, 0, s && s->dtype ? s->dtype : x->dtype, x->rank, x->dims);
}

/* RMSNormalization, the spec's equations, rows = prod(X.shape[:axis]):
 *   XSquared = X * X                        n
 *   XSquaredMean = ReduceMean(XSquared)     n
 *   MeanSquareEpsilon = XSquaredMean + eps  rows
 *   RMS = Sqrt(MeanSquareEpsilon)           rows
 *   Normalized = X / RMS                    n
 *   Y = Normalized * Scale                  n
 * = 4n + 2 rows. */
OC_COST(oc_rmsnorm_cost) {
    const struct oc_value *x = oc_in(c, 0);
    int32_t a;
    if (oc_norm_axis(c, -1, &a) != OC_OK)
        return OC_ERR_MODEL;
    oc_cost_add_flops(cost, oc_numel(x), 4);
    oc_cost_add_flops(cost, oc_dims_prod(x, 0, a), 2);
    return OC_OK;
}

/* X of shape (N, C, ...): checks the rank and that inputs first.. are 1-D
 * with `len` elements (len < 0: not checked). */
static enum oc_status oc_nc_params(struct oc_op_ctx *c, int32_t first, int32_t last, int64_t len) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected at least 2 (N, C, ...)", x->rank);
    for (int32_t i = first; i <= last; i++) {
        const struct oc_value *p = oc_in(c, i);
        if (p && p->rank >= 0 && (p->rank != 1 || (len >= 0 && p->dims[0].value >= 0 && p->dims[0].value != len)))
            return OC_FAIL(c, OC_ERR_MODEL, "input %d must be 1-D with %lld elements", i, (long long)len);
    }
    return OC_OK;
}

static enum oc_status oc_num_groups(struct oc_op_ctx *c, int64_t *g) {
    enum oc_status st = oc_attr_int(c->node, "num_groups", 0, g, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "num_groups"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'num_groups' is missing");
    if (*g <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "num_groups is %lld, expected > 0", (long long)*g);
    return OC_OK;
}

/* GroupNormalization: Y like X (N, C, ...), C divisible by num_groups;
 * scale and bias have num_groups elements before opset 21, C from 21. */
OC_RULE(oc_groupnorm_infer) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t g, stash = OC_DT_FLOAT;
    enum oc_status st = oc_num_groups(c, &g);
    if (st != OC_OK || (c->node->opset >= 21 && (st = oc_stash_type(c, &stash)) != OC_OK))
        return st;
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t ch = x->rank >= 2 ? x->dims[1].value : -1;
    if ((st = oc_nc_params(c, 1, 2, c->node->opset >= 21 ? ch : g)) != OC_OK)
        return st;
    if (ch >= 0 && ch % g != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "C = %lld is not divisible by num_groups = %lld", (long long)ch, (long long)g);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* y = scale * (x - mean) / sqrt(variance + epsilon) + bias over `rows`
 * groups of elements (per instance per group / channel):
 *   mean                 n   (n - rows adds, rows divides)
 *   x - mean             n
 *   (x - mean)^2         n
 *   variance (mean)      n
 *   variance + epsilon   rows
 *   sqrt                 rows
 *   divide               n
 *   * scale, + bias      2n
 * = 7n + 2 rows. */
static enum oc_status oc_group_stats_cost(struct oc_op_ctx *c, struct oc_cost *cost, uint64_t groups) {
    const struct oc_value *x = oc_in(c, 0);
    oc_cost_add_flops(cost, oc_numel(x), 7);
    oc_cost_add_flops(cost, (uint64_t)x->dims[0].value, 2 * groups);
    return OC_OK;
}

/* GroupNormalization: rows = N * num_groups. */
OC_COST(oc_groupnorm_cost) {
    int64_t g;
    if (oc_num_groups(c, &g) != OC_OK)
        return OC_ERR_MODEL;
    return oc_group_stats_cost(c, cost, (uint64_t)g);
}

/* InstanceNormalization: Y like X (N, C, ...); scale and B have C elements. */
OC_RULE(oc_instancenorm_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_nc_params(c, 1, 2, x->rank >= 2 ? x->dims[1].value : -1);
    if (st != OC_OK)
        return st;
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* InstanceNormalization: the GroupNormalization formula with rows = N * C. */
OC_COST(oc_instancenorm_cost) {
    return oc_group_stats_cost(c, cost, (uint64_t)oc_in(c, 0)->dims[1].value);
}

OC_RULE(oc_lrn_infer) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t size;
    enum oc_status st = oc_attr_int(c->node, "size", 0, &size, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "size"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'size' is missing");
    if (size <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "size is %lld, expected > 0", (long long)size);
    if ((st = oc_nc_params(c, 1, 0, -1)) != OC_OK)
        return st;
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* LRN: Y = X / (bias + alpha / size * square_sum) ^ beta, square_sum over the
 * w_c channels of c's window [max(0, c - floor((size-1)/2)),
 * min(C-1, c + ceil((size-1)/2))]: w_c squares and w_c - 1 adds, then
 * multiply (alpha / size is a constant), add, pow, divide:
 * 2 w_c + 3 per element, summed over channels × numel(X) / C. */
OC_COST(oc_lrn_cost) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t size, ch = x->dims[1].value;
    if (oc_attr_int(c->node, "size", 0, &size, c->diag) != OC_OK || ch <= 0)
        return ch == 0 ? OC_OK : OC_ERR_MODEL;
    if (size <= 0)
        return OC_ERR_MODEL;
    /* closed form (channel counts come from the file, a loop could hang):
     * w_c = size - (cut at the low edge) - (cut at the high edge), and
     * the cuts sum to m*before - m(m-1)/2 with m = min(before, C), and the
     * same with after */
    __extension__ typedef unsigned __int128 u128;
    u128 before = (u128)(size - 1) / 2, after = (u128)(size - 1) - before, n = (u128)ch;
    u128 m = before < n ? before : n, t = after < n ? after : n;
    u128 cut = m * before - m * (m - 1) / 2 + t * after - t * (t - 1) / 2;
    u128 per_pos = 2 * (n * (u128)size - cut) + 3 * n;
    if (per_pos > UINT64_MAX) {
        cost->flags |= OC_COST_OVERFLOW;
        per_pos = UINT64_MAX;
    }
    oc_cost_add_flops(cost, oc_numel(x) / (uint64_t)ch, (uint64_t)per_pos);
    return OC_OK;
}

/* axes of MeanVarianceNormalization (default [0, 2, 3]) as a mask. */
/* The reduced axes: `axes` (default 0, 2, 3) from MVN-9; before, the
 * experimental MVN-1 normalizes each (N, C) over the spatial axes, or each N
 * over C and the spatial axes with across_channels = 1. */
static enum oc_status oc_mvn_axes(struct oc_op_ctx *c, bool *red) {
    const struct oc_value *x = oc_in(c, 0);
    static const int64_t def[] = {0, 2, 3};
    const int64_t *axes;
    int64_t n;
    enum oc_status st;
    if (c->node->opset < 9) {
        int64_t across;
        if ((st = oc_attr_int(c->node, "across_channels", 0, &across, c->diag)) != OC_OK)
            return st;
        if (x->rank < 2)
            return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected [N, C, ...]", x->rank);
        for (int32_t i = 0; i < x->rank; i++)
            red[i] = i >= 2 || (i == 1 && across);
        return OC_OK;
    }
    st = oc_attr_ints(c->node, "axes", &axes, &n, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "axes")) {
        axes = def;
        n = 3;
    }
    for (int32_t i = 0; i < x->rank; i++)
        red[i] = false;
    for (int64_t i = 0; i < n; i++) {
        int32_t a;
        if (!oc_axis_norm(axes[i], x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axes[i], x->rank);
        red[a] = true;
    }
    return OC_OK;
}

OC_RULE(oc_mvn_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank > OC_NORM_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_NORM_MAX_RANK);
    bool red[OC_NORM_MAX_RANK];
    enum oc_status st = oc_mvn_axes(c, red);
    if (st != OC_OK)
        return st;
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* MeanVarianceNormalization, the spec's function body, rows = numel(X) /
 * prod(dims over axes):
 *   X_RM = ReduceMean(X)                 n
 *   EX_squared = X_RM ^ 2                rows
 *   X_squared = X ^ 2                    n
 *   E_Xsquared = ReduceMean(X_squared)   n
 *   Variance = E_Xsquared - EX_squared   rows
 *   STD = Sqrt(Variance)                 rows
 *   X_variance = X - X_RM                n
 *   Processed_STD = STD + epsilon        rows
 *   Y = X_variance / Processed_STD       n
 * = 5n + 4 rows. MVN-1 with normalize_variance = 0 subtracts the mean only:
 * ReduceMean and the subtraction, 2n. */
OC_COST(oc_mvn_cost) {
    const struct oc_value *x = oc_in(c, 0);
    bool red[OC_NORM_MAX_RANK];
    int64_t nv = 1;
    if (x->rank > OC_NORM_MAX_RANK || oc_mvn_axes(c, red) != OC_OK ||
        (c->node->opset < 9 && oc_attr_int(c->node, "normalize_variance", 1, &nv, c->diag) != OC_OK))
        return OC_ERR_MODEL;
    if (!nv) {
        oc_cost_add_flops(cost, oc_numel(x), 2);
        return OC_OK;
    }
    uint64_t rows = 1;
    for (int32_t i = 0; i < x->rank; i++)
        if (!red[i] && oc_mul_u64(rows, (uint64_t)x->dims[i].value, &rows))
            break;
    oc_cost_add_flops(cost, oc_numel(x), 5);
    oc_cost_add_flops(cost, rows, 4);
    return OC_OK;
}

static enum oc_status oc_lp_p(struct oc_op_ctx *c, int64_t *p) {
    enum oc_status st = oc_attr_int(c->node, "p", 2, p, c->diag);
    if (st != OC_OK)
        return st;
    if (*p != 1 && *p != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "p is %lld, only 1 and 2 are defined", (long long)*p);
    return OC_OK;
}

OC_RULE(oc_lpnorm_infer) {
    int32_t a;
    int64_t p;
    enum oc_status st = oc_lp_p(c, &p);
    if (st != OC_OK || (st = oc_norm_axis(c, -1, &a)) != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* LpNormalization: y = x / ||x||_p along axis, rows = n / dim[axis]:
 *   p = 2: x^2 (n), sum (n - rows), sqrt (rows), divide (n) = 3n;
 *   p = 1: |x| (n), sum (n - rows), divide (n) = 3n - rows. */
OC_COST(oc_lpnorm_cost) {
    const struct oc_value *x = oc_in(c, 0);
    int32_t a;
    int64_t p;
    if (oc_lp_p(c, &p) != OC_OK || oc_norm_axis(c, -1, &a) != OC_OK)
        return OC_ERR_MODEL;
    uint64_t n = oc_numel(x), len = (uint64_t)x->dims[a].value, rows = len ? n / len : 0;
    oc_cost_add_flops(cost, n, 2);        /* x^2 or |x|, and the divide */
    oc_cost_add_flops(cost, n - rows, 1); /* the sum */
    if (p == 2)
        oc_cost_add_flops(cost, rows, 1); /* the sqrt */
    return OC_OK;
}
