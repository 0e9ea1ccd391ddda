/*
 * ops/sample.c — resampling: Resize, Upsample, GridSample, AffineGrid,
 * RoiAlign, MaxRoiPool.
 *
 * Interpolation cost, per output element: the output is a weighted sum of
 * T input taps, T multiplies and T - 1 adds = 2T - 1 FLOPs, with T the
 * product over the interpolated axes of 2 taps (linear) or 4 (cubic);
 * nearest copies (0). Coordinate and weight arithmetic depends on the
 * output position only, not on the data, and is not counted.
 */
#include "../attr.h"
#include "../dtype.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

enum { OC_SMP_MAX_RANK = 64 };

/* floor(in * scale) as ONNX shape inference and ONNX Runtime compute it:
 * the product in single precision, truncated. */
static bool oc_scaled_dim(int64_t in, double scale, int64_t *out) {
    float p = (float)in * (float)scale;
    if (!(p >= 0.0f && p < 9.0e18f))
        return false;
    *out = (int64_t)p;
    return true;
}

/* Interpolation kind from a mode string: 0 nearest, 1 linear, 2 cubic, -1 unknown. */
static int oc_interp_kind(const char *mode) {
    if (strcmp(mode, "nearest") == 0)
        return 0;
    if (strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0)
        return 1;
    if (strcmp(mode, "cubic") == 0 || strcmp(mode, "bicubic") == 0)
        return 2;
    return -1;
}

/* 2T - 1 FLOPs per output for T taps; a copy (T = 1) is 0. */
static void oc_interp_flops(struct oc_cost *cost, uint64_t n_out, uint64_t taps) {
    if (taps > 1)
        oc_cost_add_flops(cost, n_out, taps >= UINT64_MAX / 2 ? UINT64_MAX : 2 * taps - 1);
}

static enum oc_status oc_read_mode(struct oc_op_ctx *c, const char *def, int *kind) {
    char mode[32];
    enum oc_status st = oc_attr_string(c->node, "mode", def, mode, sizeof mode, c->diag);
    if (st != OC_OK)
        return st;
    if ((*kind = oc_interp_kind(mode)) < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "mode '%s' is not nearest, linear or cubic", mode);
    return OC_OK;
}

/* ---- Resize ----------------------------------------------------------------------
 * Resize-10: inputs (X, scales). 11: (X, roi, scales[, sizes]). 13: roi and
 * scales optional. 18: `axes` (the entries of scales/sizes refer to those
 * axes; others keep their size) and keep_aspect_ratio_policy for sizes.
 * With sizes (non-empty): out[d] = sizes[i] (stretch), or for not_larger /
 * not_smaller s = min / max over the axes of sizes[i] / in[d] and
 * out[d] = round_half_up(s * in[d]). With scales: out[d] = floor(in[d] *
 * scales[i]). The spec's roi factor for tf_crop_and_resize is left out, as
 * ONNX shape inference and ONNX Runtime leave it out. */
OC_RULE(oc_resize_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank > OC_SMP_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit %d", x->rank, OC_SMP_MAX_RANK);
    int64_t opset = c->node->opset;
    int kind;
    enum oc_status st = oc_read_mode(c, "nearest", &kind);
    if (st != OC_OK)
        return st;
    int32_t scales_at = opset < 11 ? 1 : 2, sizes_at = opset < 11 ? -1 : 3;
    /* axes (18) */
    const int64_t *axv = NULL;
    int64_t n_axes = 0;
    if (opset >= 18 && (st = oc_attr_ints(c->node, "axes", &axv, &n_axes, c->diag)) != OC_OK)
        return st;
    int32_t axes[OC_SMP_MAX_RANK];
    int32_t na = n_axes ? (int32_t)n_axes : x->rank;
    if (n_axes > x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "axes has %lld entries for rank %d", (long long)n_axes, x->rank);
    for (int32_t i = 0; i < na; i++)
        if (!n_axes)
            axes[i] = i;
        else if (!oc_axis_norm(axv[i], x->rank, &axes[i]))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axv[i], x->rank);
    struct oc_dim out[OC_SMP_MAX_RANK];
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    int64_t ns = 0, nz = 0;
    const int64_t *sizes = NULL;
    if (sizes_at >= 0 && oc_in(c, sizes_at)) {
        sizes = oc_in_ints(c, sizes_at, &nz);
        if (!sizes)
            return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'sizes' are not known");
    }
    if (sizes && nz > 0) {
        if (nz != na)
            return OC_FAIL(c, OC_ERR_MODEL, "sizes has %lld entries, expected %d", (long long)nz, na);
        char policy[32];
        if (opset >= 18 &&
            (st = oc_attr_string(c->node, "keep_aspect_ratio_policy", "stretch", policy, sizeof policy, c->diag)) !=
                OC_OK)
            return st;
        if (opset < 18 || strcmp(policy, "stretch") == 0) {
            for (int32_t i = 0; i < na; i++) {
                if (sizes[i] < 0)
                    return OC_FAIL(c, OC_ERR_MODEL, "negative size %lld", (long long)sizes[i]);
                out[axes[i]] = (struct oc_dim){sizes[i], NULL};
            }
        } else {
            bool larger = strcmp(policy, "not_smaller") == 0;
            if (!larger && strcmp(policy, "not_larger") != 0)
                return OC_FAIL(c, OC_ERR_MODEL, "keep_aspect_ratio_policy '%s' is not stretch, not_larger or "
                                                "not_smaller", policy);
            float s = 0.0f;
            for (int32_t i = 0; i < na; i++) {
                int64_t in = x->dims[axes[i]].value;
                if (in <= 0)
                    return in < 0 ? OC_ERR_SHAPE : OC_FAIL(c, OC_ERR_MODEL, "axis %d is empty", axes[i]);
                float r = (float)sizes[i] / (float)in;
                if (i == 0 || (larger ? r > s : r < s))
                    s = r;
            }
            for (int32_t i = 0; i < na; i++) {
                float p = s * (float)x->dims[axes[i]].value;
                if (!(p >= 0.0f && p < 9.0e18f))
                    return OC_FAIL(c, OC_ERR_MODEL, "resized size out of range");
                out[axes[i]] = (struct oc_dim){(int64_t)((double)p + 0.5), NULL}; /* round half up */
            }
        }
        return oc_set_out(c, 0, x->dtype, x->rank, out);
    }
    const double *scales = oc_in(c, scales_at) ? oc_in_floats(c, scales_at, &ns) : NULL;
    if (oc_in(c, scales_at) && !scales)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'scales' are not known");
    if (!scales || ns == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "neither scales nor sizes is given");
    if (ns != na)
        return OC_FAIL(c, OC_ERR_MODEL, "scales has %lld entries, expected %d", (long long)ns, na);
    for (int32_t i = 0; i < na; i++) {
        int64_t in = x->dims[axes[i]].value;
        if (!(scales[i] > 0))
            return OC_FAIL(c, OC_ERR_MODEL, "scale %g is not positive", scales[i]);
        if (in < 0) {
            out[axes[i]] = (struct oc_dim){OC_DIM_UNKNOWN, NULL};
            continue;
        }
        if (scales[i] == 1.0)
            continue;
        int64_t o;
        if (!oc_scaled_dim(in, scales[i], &o))
            return OC_FAIL(c, OC_ERR_MODEL, "scaled size out of range");
        out[axes[i]] = (struct oc_dim){o, NULL};
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* Resize and Upsample, per output element (see the file comment):
 *   nearest: 0;
 *   linear:  2T - 1 with T = 2^(number of axes whose size changes);
 *   cubic:   2T - 1 with T = 4^(number of axes whose size changes);
 *   antialias (Resize-18) on an axis that shrinks multiplies its taps by
 *   ceil(in / out) (the filter is stretched by 1 / scale).
 * A resize that changes no axis is a copy: 0. */
OC_COST(oc_resize_cost) {
    const struct oc_value *x = oc_in(c, 0), *y = oc_out(c, 0);
    int kind;
    enum oc_status st = oc_read_mode(c, "nearest", &kind);
    if (st != OC_OK)
        return st;
    int64_t antialias = 0;
    if (c->node->opset >= 18 && (st = oc_attr_int(c->node, "antialias", 0, &antialias, c->diag)) != OC_OK)
        return st;
    if (kind == 0)
        return OC_OK;
    uint64_t taps = 1;
    for (int32_t i = 0; i < x->rank; i++) {
        int64_t in = x->dims[i].value, o = y->dims[i].value;
        if (in == o)
            continue;
        uint64_t t = kind == 1 ? 2 : 4;
        if (antialias && o > 0 && o < in)
            t *= (uint64_t)((in + o - 1) / o);
        if (oc_mul_u64(taps, t, &taps))
            cost->flags |= OC_COST_OVERFLOW;
    }
    oc_interp_flops(cost, oc_numel(y), taps);
    return OC_OK;
}

/* ---- Upsample ----------------------------------------------------------------------
 * Upsample-1: height_scale, width_scale (NCHW); 7: scales attribute; 9:
 * scales input. out[d] = floor(in[d] * scale[d]). Cost as Resize. */
OC_RULE(oc_upsample_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank > OC_SMP_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit %d", x->rank, OC_SMP_MAX_RANK);
    int kind;
    enum oc_status st = oc_read_mode(c, "nearest", &kind);
    if (st != OC_OK)
        return st;
    double sc[OC_SMP_MAX_RANK];
    int64_t n;
    if (c->node->opset >= 9) {
        const double *s = oc_in_floats(c, 1, &n);
        if (!s)
            return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'scales' are not known");
        if (n != x->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "scales has %lld entries for rank %d", (long long)n, x->rank);
        memcpy(sc, s, (size_t)n * sizeof *s);
    } else if (c->node->opset >= 7) {
        const float *f;
        if ((st = oc_attr_floats(c->node, "scales", &f, &n, c->diag)) != OC_OK)
            return st;
        if (n != x->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "scales has %lld entries for rank %d", (long long)n, x->rank);
        for (int64_t i = 0; i < n; i++)
            sc[i] = f[i];
    } else {
        float h, w;
        if ((st = oc_attr_float(c->node, "height_scale", 1.0f, &h, c->diag)) != OC_OK ||
            (st = oc_attr_float(c->node, "width_scale", 1.0f, &w, c->diag)) != OC_OK)
            return st;
        if (x->rank != 4)
            return OC_FAIL(c, OC_ERR_MODEL, "Upsample-1 takes a 4-D NCHW input, got rank %d", x->rank);
        sc[0] = sc[1] = 1.0;
        sc[2] = h;
        sc[3] = w;
    }
    struct oc_dim out[OC_SMP_MAX_RANK];
    for (int32_t i = 0; i < x->rank; i++) {
        if (!(sc[i] > 0))
            return OC_FAIL(c, OC_ERR_MODEL, "scale %g is not positive", sc[i]);
        out[i] = x->dims[i];
        if (sc[i] != 1.0 && x->dims[i].value >= 0) {
            out[i].sym = NULL;
            if (!oc_scaled_dim(x->dims[i].value, sc[i], &out[i].value))
                return OC_FAIL(c, OC_ERR_MODEL, "scaled size out of range");
        }
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* ---- GridSample, AffineGrid ----------------------------------------------------------
 * GridSample (16; N-D from 20): X [N, C, D1..Dr], grid [N, O1..Or, r]:
 * Y [N, C, O1..Or]. */
OC_RULE(oc_grid_sample_infer) {
    const struct oc_value *x = oc_in(c, 0), *g = oc_in(c, 1);
    if (!x || !g || x->rank < 0 || g->rank < 0)
        return OC_ERR_SHAPE;
    int kind;
    enum oc_status st = oc_read_mode(c, "bilinear", &kind);
    if (st != OC_OK)
        return st;
    int32_t r = x->rank - 2;
    if (r < 1 || g->rank != x->rank || x->rank > OC_SMP_MAX_RANK)
        return OC_FAIL(c, OC_ERR_MODEL, "X (rank %d) and grid (rank %d) must have the same rank >= 3", x->rank,
                       g->rank);
    if (g->dims[g->rank - 1].value >= 0 && g->dims[g->rank - 1].value != r)
        return OC_FAIL(c, OC_ERR_MODEL, "grid's last dim is %lld, expected %d", (long long)g->dims[g->rank - 1].value,
                       r);
    struct oc_dim out[OC_SMP_MAX_RANK];
    out[0] = x->dims[0].value >= 0 ? x->dims[0] : g->dims[0];
    out[1] = x->dims[1];
    for (int32_t i = 0; i < r; i++)
        out[2 + i] = g->dims[1 + i];
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* GridSample, per output element: nearest 0; (bi)linear 2T - 1 with
 * T = 2^r; (bi)cubic 2T - 1 with T = 4^r (r spatial dims). */
OC_COST(oc_grid_sample_cost) {
    int kind;
    enum oc_status st = oc_read_mode(c, "bilinear", &kind);
    if (st != OC_OK)
        return st;
    int32_t r = oc_in(c, 0)->rank - 2;
    uint64_t taps = 1;
    for (int32_t i = 0; kind && i < r; i++)
        if (oc_mul_u64(taps, kind == 1 ? 2 : 4, &taps))
            cost->flags |= OC_COST_OVERFLOW;
    oc_interp_flops(cost, oc_numel(oc_out(c, 0)), taps);
    return OC_OK;
}

/* AffineGrid (20): theta [N, r, r + 1], size (values) [N, C, D1..Dr] with
 * r = 2 or 3: grid [N, D1..Dr, r]. */
OC_RULE(oc_affine_grid_infer) {
    const struct oc_value *th = oc_in(c, 0);
    if (!th || th->rank < 0)
        return OC_ERR_SHAPE;
    int64_t n;
    const int64_t *size = oc_in_ints(c, 1, &n);
    if (!size)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'size' are not known");
    if (n != 4 && n != 5)
        return OC_FAIL(c, OC_ERR_MODEL, "size has %lld entries, expected 4 (2-D) or 5 (3-D)", (long long)n);
    int32_t r = (int32_t)n - 2;
    if (th->rank != 3 || (th->dims[1].value >= 0 && th->dims[1].value != r) ||
        (th->dims[2].value >= 0 && th->dims[2].value != r + 1))
        return OC_FAIL(c, OC_ERR_MODEL, "theta must be [N, %d, %d]", r, r + 1);
    int64_t dims[5];
    dims[0] = size[0];
    for (int32_t i = 0; i < r; i++)
        dims[1 + i] = size[2 + i];
    dims[1 + r] = r;
    for (int32_t i = 0; i < r + 2; i++)
        if (dims[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative size %lld", (long long)dims[i]);
    return oc_set_out_i64(c, 0, th->dtype, r + 2, dims);
}

/* AffineGrid: a batched matmul of the homogeneous base grid [D1..Dr, r + 1]
 * with theta^T [r + 1, r]:
 *   MACs = numel(grid) * (r + 1),  FLOPs = 2 * MACs. */
OC_COST(oc_affine_grid_cost) {
    const struct oc_value *g = oc_out(c, 0);
    oc_cost_add_macs(cost, oc_numel(g), (uint64_t)g->dims[g->rank - 1].value + 1);
    oc_cost_add_flops(cost, cost->macs, 2);
    return OC_OK;
}

/* ---- RoiAlign, MaxRoiPool -------------------------------------------------------------
 * RoiAlign (10; coordinate_transformation_mode from 16): X [N, C, H, W],
 * rois [R, 4], batch_indices [R]: Y [R, C, output_height, output_width]
 * (defaults 1). MaxRoiPool (1): rois [R, 5], Y [R, C, pooled_shape]. */
static enum oc_status oc_roi_out(struct oc_op_ctx *c, int64_t oh, int64_t ow, int64_t roi_cols) {
    const struct oc_value *x = oc_in(c, 0), *rois = oc_in(c, 1);
    if (!x || !rois || x->rank < 0 || rois->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 4)
        return OC_FAIL(c, OC_ERR_MODEL, "X has rank %d, expected 4 (N, C, H, W)", x->rank);
    if (rois->rank != 2 || (rois->dims[1].value >= 0 && rois->dims[1].value != roi_cols))
        return OC_FAIL(c, OC_ERR_MODEL, "rois must be [num_rois, %lld]", (long long)roi_cols);
    if (oh <= 0 || ow <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "the pooled size %lld x %lld is not positive", (long long)oh,
                       (long long)ow);
    struct oc_dim out[4] = {rois->dims[0], x->dims[1], {oh, NULL}, {ow, NULL}};
    const struct oc_value *bi = oc_in(c, 2);
    if (out[0].value < 0 && bi && bi->rank == 1)
        out[0] = bi->dims[0];
    return oc_set_out(c, 0, x->dtype, 4, out);
}

OC_RULE(oc_roi_align_infer) {
    int64_t oh, ow;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "output_height", 1, &oh, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "output_width", 1, &ow, c->diag)) != OC_OK)
        return st;
    return oc_roi_out(c, oh, ow, 4);
}

/* RoiAlign with sampling_ratio s > 0: S = s * s bilinear samples per output
 * bin, 7 FLOPs each (4 multiplies, 3 adds), then avg: S - 1 adds + 1 divide,
 * max: S - 1 comparisons:
 *   FLOPs = numel(Y) * (8S) (avg) or numel(Y) * (8S - 1) (max).
 * With sampling_ratio 0 the samples per bin are ceil(roi size / bins), which
 * depends on the roi values: the cost is left unknown. */
OC_COST(oc_roi_align_cost) {
    int64_t sr;
    char mode[16];
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "sampling_ratio", 0, &sr, c->diag)) != OC_OK ||
        (st = oc_attr_string(c->node, "mode", "avg", mode, sizeof mode, c->diag)) != OC_OK)
        return st;
    if (sr <= 0)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "samples per bin depend on the roi values (sampling_ratio 0)");
    uint64_t s = (uint64_t)sr * (uint64_t)sr, per;
    if (oc_mul_u64(s, 8, &per))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), strcmp(mode, "max") == 0 ? per - 1 : per);
    return OC_OK;
}

OC_RULE(oc_max_roi_pool_infer) {
    const int64_t *ps;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "pooled_shape", &ps, &n, c->diag);
    if (st != OC_OK)
        return st;
    if (n != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "pooled_shape has %lld entries, expected 2", (long long)n);
    return oc_roi_out(c, ps[0], ps[1], 5);
}

/* MaxRoiPool: the comparisons per output bin depend on each roi's extent
 * (data): the cost is left unknown. */
OC_COST(oc_max_roi_pool_cost) {
    (void)cost;
    return OC_FAIL(c, OC_ERR_UNSUPPORTED, "the bin sizes depend on the roi values");
}

/* ImageDecoder-20: encoded bytes -> [H, W, C] uint8. C is 3 for RGB/BGR, 1
 * for Grayscale (pixel_format); H and W are in the image's own header, so
 * they depend on the data and stay unknown. Decoding is not floating-point
 * work: 0 FLOPs. */
OC_RULE(oc_image_decoder_infer) {
    char fmt[16];
    enum oc_status st = oc_attr_string(c->node, "pixel_format", "RGB", fmt, sizeof fmt, c->diag);
    if (st != OC_OK)
        return st;
    int64_t ch;
    if (strcmp(fmt, "RGB") == 0 || strcmp(fmt, "BGR") == 0)
        ch = 3;
    else if (strcmp(fmt, "Grayscale") == 0)
        ch = 1;
    else
        return OC_FAIL(c, OC_ERR_MODEL, "pixel_format '%s' is not RGB, BGR or Grayscale", fmt);
    const int64_t dims[3] = {OC_DIM_UNKNOWN, OC_DIM_UNKNOWN, ch};
    return oc_set_out_i64(c, 0, OC_DT_UINT8, 3, dims);
}
