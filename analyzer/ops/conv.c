/*
 * ops/conv.c — Conv and pooling. Output sizes come from the one
 * implementation in shape.c (oc_spatial_out).
 *
 * Conv (ONNX Operators.md#Conv), X [N, C, D1..Dn], W [M, C/group, k1..kn]:
 *   MACs  = numel(Y) * (C / group) * prod(k)          (bias excluded)
 *   FLOPs = 2 * MACs + numel(Y) if B is given          (one add per output)
 * MaxPool: numel(Y) * (prod(k) - 1) comparisons.
 * AveragePool: numel(Y) * prod(k) (prod(k) - 1 adds and one divide).
 * GlobalAveragePool: numel(X) (adds plus one divide per output).
 * GlobalMaxPool: numel(X) - numel(Y) comparisons.
 */
#include "../attr.h"
#include "contract.h"
#include "rules.h"
#include "../shape.h"

#include <stdio.h>
#include <string.h>

enum { OC_MAX_SPATIAL = 16 };

struct oc_window {
    int32_t n;                      /* spatial rank                 */
    int64_t k[OC_MAX_SPATIAL];      /* kernel                       */
    int64_t s[OC_MAX_SPATIAL];      /* strides                      */
    int64_t dil[OC_MAX_SPATIAL];    /* dilations                    */
    int64_t pads[2 * OC_MAX_SPATIAL];
    enum oc_auto_pad ap;
    bool ceil_mode;
};

/* Reads kernel_shape (or takes `kernel` when given), strides, dilations,
 * pads, auto_pad and ceil_mode, each checked against the spatial rank. */
static enum oc_status oc_window_read(struct oc_op_ctx *c, int32_t n, const int64_t *kernel,
                                     struct oc_window *w) {
    const int64_t *v;
    int64_t cnt;
    enum oc_status st;
    if (n > OC_MAX_SPATIAL)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "%d spatial dims (limit %d)", n, OC_MAX_SPATIAL);
    memset(w, 0, sizeof *w);
    w->n = n;
    if ((st = oc_attr_ints(c->node, "kernel_shape", &v, &cnt, c->diag)) != OC_OK)
        return st;
    if (cnt) {
        if (cnt != n)
            return OC_FAIL(c, OC_ERR_MODEL, "kernel_shape has %lld entries, expected %d", (long long)cnt, n);
        memcpy(w->k, v, (size_t)n * sizeof *v);
    } else if (kernel) {
        memcpy(w->k, kernel, (size_t)n * sizeof *kernel);
    } else {
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'kernel_shape' is missing");
    }
    for (int32_t i = 0; i < n; i++) {
        if (w->k[i] <= 0)
            return OC_FAIL(c, OC_ERR_MODEL, "kernel size %lld is not positive", (long long)w->k[i]);
        w->s[i] = w->dil[i] = 1;
    }
    static const char *const names[] = {"strides", "dilations"};
    int64_t *dst[] = {w->s, w->dil};
    for (int j = 0; j < 2; j++) {
        if ((st = oc_attr_ints(c->node, names[j], &v, &cnt, c->diag)) != OC_OK)
            return st;
        if (!cnt)
            continue;
        if (cnt != n)
            return OC_FAIL(c, OC_ERR_MODEL, "%s has %lld entries, expected %d", names[j], (long long)cnt, n);
        for (int32_t i = 0; i < n; i++) {
            if (v[i] <= 0)
                return OC_FAIL(c, OC_ERR_MODEL, "%s entry %lld is not positive", names[j], (long long)v[i]);
            dst[j][i] = v[i];
        }
    }
    if ((st = oc_attr_ints(c->node, "pads", &v, &cnt, c->diag)) != OC_OK)
        return st;
    if (cnt) {
        if (cnt != 2 * n)
            return OC_FAIL(c, OC_ERR_MODEL, "pads has %lld entries, expected %d", (long long)cnt, 2 * n);
        for (int32_t i = 0; i < 2 * n; i++) {
            if (v[i] < 0)
                return OC_FAIL(c, OC_ERR_MODEL, "negative pad %lld", (long long)v[i]);
            w->pads[i] = v[i];
        }
    }
    char ap[32];
    if ((st = oc_attr_string(c->node, "auto_pad", "NOTSET", ap, sizeof ap, c->diag)) != OC_OK)
        return st;
    if (!oc_auto_pad_parse(ap, &w->ap))
        return OC_FAIL(c, OC_ERR_MODEL, "auto_pad '%s' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
    int64_t ceil_mode;
    if ((st = oc_attr_int(c->node, "ceil_mode", 0, &ceil_mode, c->diag)) != OC_OK)
        return st;
    w->ceil_mode = ceil_mode != 0;
    return OC_OK;
}

/* Y dims [N, channels, spatial...] from X and the window. */
static enum oc_status oc_window_apply(struct oc_op_ctx *c, const struct oc_value *x, int64_t channels,
                                      const struct oc_window *w, struct oc_dim *out) {
    out[0] = x->dims[0];
    out[1] = (struct oc_dim){channels, channels == x->dims[1].value ? x->dims[1].sym : NULL};
    for (int32_t i = 0; i < w->n; i++) {
        int64_t o, pb, pe;
        if (oc_spatial_out(x->dims[2 + i].value, w->k[i], w->s[i], w->dil[i], w->pads[i], w->pads[w->n + i],
                           w->ap, w->ceil_mode, &o, &pb, &pe) != OC_OK)
            return OC_FAIL(c, OC_ERR_MODEL,
                           "window (kernel %lld, dilation %lld) does not fit spatial dim %d of size %lld",
                           (long long)w->k[i], (long long)w->dil[i], i, (long long)x->dims[2 + i].value);
        out[2 + i] = (struct oc_dim){o, NULL};
    }
    return OC_OK;
}

enum oc_status oc_conv_shape(struct oc_op_ctx *c, const struct oc_value *x, const struct oc_value *wt,
                             const struct oc_value *b, int32_t dtype) {
    if (!x || !wt || x->rank < 0 || wt->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 3)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected at least 3 (N, C, spatial...)", x->rank);
    if (wt->rank != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "weight W has rank %d, input X rank %d", wt->rank, x->rank);
    int64_t group;
    enum oc_status st = oc_attr_int(c->node, "group", 1, &group, c->diag);
    if (st != OC_OK)
        return st;
    if (group <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "group %lld is not positive", (long long)group);
    int64_t C = x->dims[1].value, M = wt->dims[0].value, Cw = wt->dims[1].value;
    if (C >= 0 && Cw >= 0) {
        int64_t expect;
        if (oc_mul_i64(Cw, group, &expect) || expect != C)
            return OC_FAIL(c, OC_ERR_MODEL,
                           "input has %lld channels but weight expects %lld x group %lld", (long long)C,
                           (long long)Cw, (long long)group);
    }
    if (M >= 0 && M % group != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "%lld output channels are not divisible by group %lld", (long long)M,
                       (long long)group);
    if (b && b->rank >= 0 && (b->rank != 1 || (b->dims[0].value >= 0 && M >= 0 && b->dims[0].value != M)))
        return OC_FAIL(c, OC_ERR_MODEL, "bias B must be 1-D with %lld elements", (long long)M);
    int32_t n = x->rank - 2;
    int64_t kernel[OC_MAX_SPATIAL];
    for (int32_t i = 0; i < n && i < OC_MAX_SPATIAL; i++)
        kernel[i] = wt->dims[2 + i].value;
    struct oc_window w;
    if ((st = oc_window_read(c, n, kernel, &w)) != OC_OK)
        return st;
    for (int32_t i = 0; i < n; i++)
        if (kernel[i] >= 0 && w.k[i] != kernel[i])
            return OC_FAIL(c, OC_ERR_MODEL, "kernel_shape %lld differs from weight dim %lld", (long long)w.k[i],
                           (long long)kernel[i]);
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    if ((st = oc_window_apply(c, x, M, &w, out)) != OC_OK)
        return st;
    return oc_set_out(c, 0, dtype, x->rank, out);
}

enum oc_status oc_conv_macs(struct oc_op_ctx *c, const struct oc_value *x, const struct oc_value *wt,
                            const struct oc_value *y, struct oc_cost *cost) {
    int64_t group;
    enum oc_status st = oc_attr_int(c->node, "group", 1, &group, c->diag);
    if (st != OC_OK)
        return st;
    uint64_t per_out = (uint64_t)(x->dims[1].value / group);
    for (int32_t i = 2; i < wt->rank; i++)
        if (oc_mul_u64(per_out, (uint64_t)wt->dims[i].value, &per_out))
            cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_macs(cost, oc_numel(y), per_out);
    return OC_OK;
}

OC_RULE(oc_conv_infer) {
    const struct oc_value *x = oc_in(c, 0);
    return oc_conv_shape(c, x, oc_in(c, 1), oc_in(c, 2), x ? x->dtype : 0);
}

OC_COST(oc_conv_cost) {
    enum oc_status st = oc_conv_macs(c, oc_in(c, 0), oc_in(c, 1), oc_out(c, 0), cost);
    if (st != OC_OK)
        return st;
    oc_cost_add_flops(cost, cost->macs, 2);
    if (oc_in(c, 2))
        oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return OC_OK;
}

OC_RULE(oc_pool_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 3)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected at least 3 (N, C, spatial...)", x->rank);
    struct oc_window w;
    enum oc_status st = oc_window_read(c, x->rank - 2, NULL, &w);
    if (st != OC_OK)
        return st;
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    if ((st = oc_window_apply(c, x, x->dims[1].value, &w, out)) != OC_OK)
        return st;
    if ((st = oc_set_out(c, 0, x->dtype, x->rank, out)) != OC_OK)
        return st;
    return oc_set_out(c, 1, 7 /* INT64 indices */, x->rank, out);
}

static uint64_t oc_kernel_size(struct oc_op_ctx *c) {
    const int64_t *v;
    int64_t n;
    uint64_t k = 1;
    if (oc_attr_ints(c->node, "kernel_shape", &v, &n, c->diag) != OC_OK)
        return 0;
    for (int64_t i = 0; i < n; i++)
        if (oc_mul_u64(k, (uint64_t)v[i], &k))
            return UINT64_MAX;
    return k;
}

OC_COST(oc_maxpool_cost) {
    uint64_t k = oc_kernel_size(c);
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), k ? k - 1 : 0);
    return OC_OK;
}

OC_COST(oc_avgpool_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), oc_kernel_size(c));
    return OC_OK;
}

OC_RULE(oc_global_pool_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected at least 2 (N, C, ...)", x->rank);
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    if (x->rank > OC_MAX_SPATIAL + 2)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit", x->rank);
    out[0] = x->dims[0];
    out[1] = x->dims[1];
    for (int32_t i = 2; i < x->rank; i++)
        out[i] = (struct oc_dim){1, NULL};
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_COST(oc_global_avgpool_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    return OC_OK;
}

OC_COST(oc_global_maxpool_cost) {
    uint64_t in = oc_numel(oc_in(c, 0)), out = oc_numel(oc_out(c, 0));
    oc_cost_add_flops(cost, in - out, 1);
    return OC_OK;
}
