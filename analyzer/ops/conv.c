/*
 * ops/conv.c — Conv, ConvTranspose, DeformConv, Col2Im and pooling. Output
 * sizes come from the one implementation in shape.c (oc_spatial_out, and its
 * inverse oc_spatial_out_transposed for ConvTranspose and MaxUnpool).
 *
 * Conv (ONNX Operators.md#Conv), X [N, C, D1..Dn], W [M, C/group, k1..kn]:
 *   MACs  = numel(Y) * (C / group) * prod(k)          (bias excluded)
 *   FLOPs = 2 * MACs + numel(Y) if B is given          (one add per output)
 * MaxPool: numel(Y) * (prod(k) - 1) comparisons.
 * AveragePool: numel(Y) * prod(k) (prod(k) - 1 adds and one divide).
 * GlobalAveragePool: numel(X) (adds plus one divide per output).
 * GlobalMaxPool: numel(X) - numel(Y) comparisons.
 * ConvTranspose, DeformConv, LpPool, GlobalLpPool, MaxUnpool, Col2Im: see
 * the comment of each cost function below.
 */
#include "../attr.h"
#include "contract.h"
#include "rules.h"
#include "../shape.h"

#include <stdio.h>
#include <string.h>

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

/* X is [N, C, spatial...] (rank >= 3) and W, when given, has X's rank. */
static enum oc_status oc_nc_ranks(struct oc_op_ctx *c, const struct oc_value *x, const struct oc_value *wt) {
    if (x->rank < 3)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected at least 3 (N, C, spatial...)", x->rank);
    if (wt && wt->rank != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "weight W has rank %d, input X rank %d", wt->rank, x->rank);
    return OC_OK;
}

enum oc_status oc_conv_shape(struct oc_op_ctx *c, const struct oc_value *x, const struct oc_value *wt,
                             const struct oc_value *b, int32_t dtype) {
    if (!x || !wt || x->rank < 0 || wt->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_nc_ranks(c, x, wt);
    if (st != OC_OK)
        return st;
    int64_t group;
    st = oc_attr_int(c->node, "group", 1, &group, c->diag);
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
    if ((st = oc_window_read(c->node, n, kernel, &w, c->diag)) != OC_OK)
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
    enum oc_status st = oc_nc_ranks(c, x, NULL);
    if (st != OC_OK)
        return st;
    struct oc_window w;
    st = oc_window_read(c->node, x->rank - 2, NULL, &w, c->diag);
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
    oc_cost_add_flops(cost, in > out ? in - out : 0, 1); /* an empty spatial axis: no comparisons, not 2^64 */
    return OC_OK;
}

/* ---- ConvTranspose ----------------------------------------------------------------
 * X [N, C, D1..Dn], W [C, M/group, k1..kn], B [M]; Y [N, M, O1..On] with
 * Oi = output_shape[i] when given, else oc_spatial_out_transposed (stride,
 * output_padding, dilation, pads or auto_pad). */

/* Reads output_padding and output_shape (n or n + 2 entries; the last n are
 * the spatial sizes) into pad_out / shape_out (shape_out[0] = -1 when absent). */
static enum oc_status oc_convt_attrs(struct oc_op_ctx *c, int32_t n, int64_t *pad_out, int64_t *shape_out) {
    const int64_t *v;
    int64_t cnt;
    enum oc_status st = oc_attr_ints(c->node, "output_padding", &v, &cnt, c->diag);
    if (st != OC_OK)
        return st;
    if (cnt && cnt != n)
        return OC_FAIL(c, OC_ERR_MODEL, "output_padding has %lld entries, expected %d", (long long)cnt, n);
    for (int32_t i = 0; i < n; i++) {
        pad_out[i] = cnt ? v[i] : 0;
        if (pad_out[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative output_padding %lld", (long long)pad_out[i]);
    }
    if ((st = oc_attr_ints(c->node, "output_shape", &v, &cnt, c->diag)) != OC_OK)
        return st;
    shape_out[0] = -1;
    if (!cnt)
        return OC_OK;
    if (cnt != n && cnt != n + 2)
        return OC_FAIL(c, OC_ERR_MODEL, "output_shape has %lld entries, expected %d", (long long)cnt, n);
    for (int32_t i = 0; i < n; i++) {
        shape_out[i] = v[cnt - n + i];
        if (shape_out[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative output_shape entry %lld", (long long)shape_out[i]);
    }
    return OC_OK;
}

OC_RULE(oc_convt_infer) {
    const struct oc_value *x = oc_in(c, 0), *wt = oc_in(c, 1), *b = oc_in(c, 2);
    if (!x || !wt || x->rank < 0 || wt->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_nc_ranks(c, x, wt);
    if (st != OC_OK)
        return st;
    int64_t group;
    st = oc_attr_int(c->node, "group", 1, &group, c->diag);
    if (st != OC_OK)
        return st;
    if (group <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "group %lld is not positive", (long long)group);
    int64_t C = x->dims[1].value, Cw = wt->dims[0].value, M = OC_DIM_UNKNOWN;
    if (C >= 0 && Cw >= 0 && C != Cw)
        return OC_FAIL(c, OC_ERR_MODEL, "input has %lld channels but weight W has %lld", (long long)C, (long long)Cw);
    if (C >= 0 && C % group != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "%lld input channels are not divisible by group %lld", (long long)C,
                       (long long)group);
    if (wt->dims[1].value >= 0 && oc_mul_i64(wt->dims[1].value, group, &M))
        return OC_FAIL(c, OC_ERR_OVERFLOW, "output channels overflow 64 bits");
    if (b && b->rank >= 0 && (b->rank != 1 || (b->dims[0].value >= 0 && M >= 0 && b->dims[0].value != M)))
        return OC_FAIL(c, OC_ERR_MODEL, "bias B must be 1-D with %lld elements", (long long)M);
    int32_t n = x->rank - 2;
    int64_t kernel[OC_MAX_SPATIAL];
    for (int32_t i = 0; i < n && i < OC_MAX_SPATIAL; i++)
        kernel[i] = wt->dims[2 + i].value;
    struct oc_window w;
    if ((st = oc_window_read(c->node, n, kernel, &w, c->diag)) != OC_OK)
        return st;
    for (int32_t i = 0; i < n; i++)
        if (kernel[i] >= 0 && w.k[i] != kernel[i])
            return OC_FAIL(c, OC_ERR_MODEL, "kernel_shape %lld differs from weight dim %lld", (long long)w.k[i],
                           (long long)kernel[i]);
    int64_t opad[OC_MAX_SPATIAL], oshape[OC_MAX_SPATIAL];
    if ((st = oc_convt_attrs(c, n, opad, oshape)) != OC_OK)
        return st;
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    out[0] = x->dims[0];
    out[1] = (struct oc_dim){M, NULL};
    for (int32_t i = 0; i < n; i++) {
        int64_t o = oshape[0] >= 0 ? oshape[i] : -1;
        if (oshape[0] < 0 && oc_spatial_out_transposed(x->dims[2 + i].value, w.k[i], w.s[i], w.dil[i], w.pads[i],
                                                       w.pads[n + i], opad[i], w.ap, &o) != OC_OK)
            return OC_FAIL(c, OC_ERR_MODEL, "spatial dim %d: the transposed window gives no output (input %lld)", i,
                           (long long)x->dims[2 + i].value);
        out[2 + i] = (struct oc_dim){o, NULL};
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* ConvTranspose, counted from the input side (each input element meets
 * M/group output channels times the kernel once, whatever part of the
 * result the pads later crop):
 *   MACs  = numel(X) * (M / group) * prod(k) = numel(X) * W.dims[1] * prod(k)
 *   FLOPs = 2 * MACs + numel(Y) if B is given.
 * (Counting numel(Y) * C/group * prod(k), as for Conv, over-counts by about
 * prod(stride): most output positions meet only part of the kernel.) */
OC_COST(oc_convt_cost) {
    const struct oc_value *wt = oc_in(c, 1);
    uint64_t per_in = (uint64_t)wt->dims[1].value;
    for (int32_t i = 2; i < wt->rank; i++)
        if (oc_mul_u64(per_in, (uint64_t)wt->dims[i].value, &per_in))
            cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_macs(cost, oc_numel(oc_in(c, 0)), per_in);
    oc_cost_add_flops(cost, cost->macs, 2);
    if (oc_in(c, 2))
        oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return OC_OK;
}

/* ---- DeformConv (opset 19) ----------------------------------------------------------
 * X [N, C, D1..Dn], W [M, C/group, k1..kn], offset [N, og * n * prod(k), O1..On],
 * B [M], mask [N, og * prod(k), O1..On]; Y [N, M, O1..On] with the Conv
 * output size (pads, strides, dilations; no auto_pad). */
OC_RULE(oc_deform_conv_infer) {
    const struct oc_value *x = oc_in(c, 0), *off = oc_in(c, 2);
    enum oc_status st = oc_conv_shape(c, x, oc_in(c, 1), oc_in(c, 3), x ? x->dtype : 0);
    if (st != OC_OK)
        return st;
    const struct oc_value *y = oc_out(c, 0);
    if (!y || !off || off->rank < 0)
        return OC_OK;
    if (off->rank != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "offset has rank %d, input X rank %d", off->rank, x->rank);
    for (int32_t i = 2; i < x->rank; i++)
        if (off->dims[i].value >= 0 && y->dims[i].value >= 0 && off->dims[i].value != y->dims[i].value)
            return OC_FAIL(c, OC_ERR_MODEL, "offset spatial dim %d is %lld, the output's %lld", i - 2,
                           (long long)off->dims[i].value, (long long)y->dims[i].value);
    return OC_OK;
}

/* DeformConv: the Conv contraction over bilinearly sampled inputs.
 *   MACs    = numel(Y) * (C / group) * prod(k)                  (as Conv)
 *   samples S = N * C * prod(k) * prod(O)  (every input channel is sampled at
 *             every kernel tap of every output position)
 *   FLOPs   = 2 * MACs + S * (2 * 2^n - 1)   (n-linear interpolation: 2^n
 *             taps, 2^n multiplies and 2^n - 1 adds; 7 per sample in 2-D)
 *           + S if a mask is given (one multiply per sample)
 *           + numel(Y) if B is given. */
OC_COST(oc_deform_conv_cost) {
    const struct oc_value *x = oc_in(c, 0), *wt = oc_in(c, 1), *y = oc_out(c, 0);
    enum oc_status st = oc_conv_macs(c, x, wt, y, cost);
    if (st != OC_OK)
        return st;
    oc_cost_add_flops(cost, cost->macs, 2);
    if (oc_in(c, 3))
        oc_cost_add_flops(cost, oc_numel(y), 1);
    int32_t n = x->rank - 2;
    uint64_t s = (uint64_t)x->dims[0].value;
    bool ovf = oc_mul_u64(s, (uint64_t)x->dims[1].value, &s);
    for (int32_t i = 2; i < x->rank; i++)
        ovf |= oc_mul_u64(s, (uint64_t)wt->dims[i].value, &s) || oc_mul_u64(s, (uint64_t)y->dims[i].value, &s);
    if (ovf)
        cost->flags |= OC_COST_OVERFLOW;
    uint64_t taps = n < 62 ? (uint64_t)1 << n : UINT64_MAX;
    oc_cost_add_flops(cost, s, taps == UINT64_MAX ? UINT64_MAX : 2 * taps - 1);
    if (oc_in(c, 4))
        oc_cost_add_flops(cost, s, 1);
    return OC_OK;
}

/* LpPool: y = (sum over the window of |x|^p)^(1/p).
 *   FLOPs = numel(Y) * 3 * prod(k): |x| and ^p per window element (2),
 *           prod(k) - 1 adds and one root per output. */
OC_COST(oc_lppool_cost) {
    uint64_t k = oc_kernel_size(c), per;
    if (oc_mul_u64(k, 3, &per))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), per);
    return OC_OK;
}

/* GlobalLpPool: 2 * numel(X) (|x|, ^p) + numel(X) - numel(Y) adds + numel(Y)
 * roots = 3 * numel(X). */
OC_COST(oc_global_lppool_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 3);
    return OC_OK;
}

/* ---- MaxUnpool --------------------------------------------------------------------
 * X [N, C, D1..Dn], I (indices, X's shape), output_shape (optional input:
 * the full output shape). Without it Oi = (Di - 1) * stride + k - pb - pe,
 * oc_spatial_out_transposed with dil = 1. A scatter: 0 FLOPs. */
OC_RULE(oc_maxunpool_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_nc_ranks(c, x, NULL);
    if (st != OC_OK)
        return st;
    struct oc_window w;
    st = oc_window_read(c->node, x->rank - 2, NULL, &w, c->diag);
    if (st != OC_OK)
        return st;
    if (oc_in(c, 2)) {
        int64_t n;
        const int64_t *shape = oc_in_ints(c, 2, &n);
        if (!shape)
            return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'output_shape' are not known");
        if (n != x->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "output_shape has %lld entries for rank %d", (long long)n, x->rank);
        for (int64_t i = 0; i < n; i++)
            if (shape[i] < 0)
                return OC_FAIL(c, OC_ERR_MODEL, "negative output_shape entry %lld", (long long)shape[i]);
        return oc_set_out_i64(c, 0, x->dtype, x->rank, shape);
    }
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    out[0] = x->dims[0];
    out[1] = x->dims[1];
    for (int32_t i = 0; i < w.n; i++) {
        int64_t o;
        if (oc_spatial_out_transposed(x->dims[2 + i].value, w.k[i], w.s[i], 1, w.pads[i], w.pads[w.n + i], 0,
                                      OC_AUTO_PAD_NOTSET, &o) != OC_OK)
            return OC_FAIL(c, OC_ERR_MODEL, "spatial dim %d: the unpooled size is negative", i);
        out[2 + i] = (struct oc_dim){o, NULL};
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* ---- Col2Im (opset 18) ------------------------------------------------------------
 * input [N, C * prod(block), L], image_shape and block_shape (values, n
 * each); Y [N, C, image_shape...]. L must equal the number of blocks, the
 * product of oc_spatial_out over the image (pads, strides, dilations). */
OC_RULE(oc_col2im_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 3)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected 3 (N, C * prod(block), L)", x->rank);
    int64_t ni, nb;
    const int64_t *img = oc_in_ints(c, 1, &ni), *blk = oc_in_ints(c, 2, &nb);
    if (!img || !blk)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of inputs 'image_shape'/'block_shape' are not known");
    if (ni != nb || ni < 1 || ni > OC_MAX_SPATIAL)
        return OC_FAIL(c, OC_ERR_MODEL, "image_shape has %lld entries, block_shape %lld", (long long)ni,
                       (long long)nb);
    int32_t n = (int32_t)ni;
    struct oc_window w;
    enum oc_status st = oc_window_read(c->node, n, blk, &w, c->diag);
    if (st != OC_OK)
        return st;
    int64_t prod_blk = 1, blocks = 1;
    for (int32_t i = 0; i < n; i++) {
        int64_t o, pb, pe;
        if (img[i] < 0 || oc_mul_i64(prod_blk, blk[i], &prod_blk) ||
            oc_spatial_out(img[i], blk[i], w.s[i], w.dil[i], w.pads[i], w.pads[n + i], OC_AUTO_PAD_NOTSET, false, &o,
                           &pb, &pe) != OC_OK ||
            oc_mul_i64(blocks, o, &blocks))
            return OC_FAIL(c, OC_ERR_MODEL, "block %lld does not fit image dim %d of size %lld", (long long)blk[i], i,
                           (long long)img[i]);
    }
    int64_t cb = x->dims[1].value, L = x->dims[2].value;
    if (cb >= 0 && cb % prod_blk != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "input dim 1 (%lld) is not a multiple of the block size %lld", (long long)cb,
                       (long long)prod_blk);
    if (L >= 0 && L != blocks)
        return OC_FAIL(c, OC_ERR_MODEL, "input has %lld blocks, the image and block shapes give %lld", (long long)L,
                       (long long)blocks);
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    out[0] = x->dims[0];
    out[1] = (struct oc_dim){cb >= 0 ? cb / prod_blk : OC_DIM_UNKNOWN, NULL};
    for (int32_t i = 0; i < n; i++)
        out[2 + i] = (struct oc_dim){img[i], NULL};
    return oc_set_out(c, 0, x->dtype, n + 2, out);
}

/* Col2Im: every input element is added into its image position:
 * FLOPs = numel(input). */
OC_COST(oc_col2im_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    return OC_OK;
}
