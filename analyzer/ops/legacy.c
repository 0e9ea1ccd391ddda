/*
 * ops/legacy.c — the experimental ops of ONNX 1.0–1.4 (removed from the
 * standard at opset 10) that old model zoos still hold: ImageScaler, Crop,
 * Affine, ScaledTanh, ParametricSoftplus, Scale, GivenTensorFill,
 * ConstantFill and DynamicSlice (ThresholdedRelu-1 and
 * MeanVarianceNormalization-1 share their successors' rules). Semantics are
 * those of the ONNX 1.4 operator docs; ONNX Runtime still runs the first six.
 *
 * FLOPs per output element (docs/COSTS.md):
 *   ImageScaler  scale * x + bias[c]             2
 *   Affine       alpha * x + beta                2
 *   ScaledTanh   alpha * tanh(beta * x)          3
 *   ParametricSoftplus alpha * ln(exp(beta * x) + 1)  5
 *   Scale        scale * x                       1
 *   Crop, GivenTensorFill, ConstantFill, DynamicSlice: data movement, 0.
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "rules.h"

#include <string.h>

enum { OC_LEGACY_MAX_RANK = 64 };

/* ImageScaler: an NCHW input, one bias per channel. */
OC_RULE(oc_image_scaler_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const float *bias;
    int64_t nb;
    enum oc_status st = oc_attr_floats(c->node, "bias", &bias, &nb, c->diag);
    if (st != OC_OK)
        return st;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected [N, C, H, W]", x->rank);
    if (oc_attr_has(c->node, "bias") && x->dims[1].value >= 0 && nb != x->dims[1].value)
        return OC_FAIL(c, OC_ERR_MODEL, "bias has %lld values for %lld channels", (long long)nb,
                       (long long)x->dims[1].value);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* Crop: border = [left, top, right, bottom] on an NCHW input; with
 * scale = [height, width] the crop has that size from (top, left), else
 * H - top - bottom by W - left - right. */
OC_RULE(oc_crop_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *border, *scale;
    int64_t nb, ns;
    enum oc_status st;
    if ((st = oc_attr_ints(c->node, "border", &border, &nb, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "scale", &scale, &ns, c->diag)) != OC_OK)
        return st;
    if (x->rank != 4)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected [N, C, H, W]", x->rank);
    if (nb != 4)
        return OC_FAIL(c, OC_ERR_MODEL, "border has %lld values, expected 4 (left, top, right, bottom)", (long long)nb);
    if (ns != 0 && ns != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "scale has %lld values, expected 2 (height, width)", (long long)ns);
    struct oc_dim out[4] = {x->dims[0], x->dims[1], {OC_DIM_UNKNOWN, NULL}, {OC_DIM_UNKNOWN, NULL}};
    for (int32_t k = 0; k < 2; k++) {
        int64_t d = x->dims[2 + k].value, lo = border[1 - k], hi = border[3 - k]; /* H: top, bottom; W: left, right */
        if (lo < 0 || hi < 0 || (ns && scale[k] < 0))
            return OC_FAIL(c, OC_ERR_MODEL, "negative border or scale");
        if (d < 0)
            continue;
        int64_t len = ns ? scale[k] : d - lo - hi;
        if (len < 0 || lo + len > d)
            return OC_FAIL(c, OC_ERR_MODEL, "the crop does not fit axis %d of size %lld", 2 + k, (long long)d);
        out[2 + k].value = len;
    }
    return oc_set_out(c, 0, x->dtype, 4, out);
}

/* Shape of a Fill op: from input 0's values (input_as_shape = 1), else
 * input 0's shape, else the `shape` attribute; `extra_shape` appended. */
static enum oc_status oc_fill_shape(struct oc_op_ctx *c, int32_t dtype) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t as_shape, n = 0, ne;
    const int64_t *dims = NULL, *extra;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "input_as_shape", 0, &as_shape, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "extra_shape", &extra, &ne, c->diag)) != OC_OK)
        return st;
    int64_t buf[OC_LEGACY_MAX_RANK];
    if (x && as_shape) {
        if (!(dims = oc_in_ints(c, 0, &n)))
            return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 0 (the shape) are not known");
    } else if (x) {
        if (x->rank < 0)
            return OC_ERR_SHAPE;
        if (x->rank > OC_LEGACY_MAX_RANK)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_LEGACY_MAX_RANK);
        for (int32_t i = 0; i < x->rank; i++) {
            if (x->dims[i].value < 0)
                return OC_FAIL(c, OC_ERR_SHAPE, "input 0's shape is not known");
            buf[i] = x->dims[i].value;
        }
        dims = buf;
        n = x->rank;
    } else if ((st = oc_attr_ints(c->node, "shape", &dims, &n, c->diag)) != OC_OK) {
        return st;
    }
    if (n + ne > OC_LEGACY_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_LEGACY_MAX_RANK);
    int64_t out[OC_LEGACY_MAX_RANK];
    for (int64_t i = 0; i < n + ne; i++) {
        out[i] = i < n ? dims[i] : extra[i - n];
        if (out[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative dim %lld in the requested shape", (long long)out[i]);
    }
    return oc_set_out_i64(c, 0, dtype, (int32_t)(n + ne), out);
}

/* GivenTensorFill: float `values` in the shape above. */
OC_RULE(oc_given_tensor_fill_infer) { return oc_fill_shape(c, OC_DT_FLOAT); }

/* ConstantFill: `value` of type `dtype` (default float) in the shape above. */
OC_RULE(oc_constant_fill_infer) {
    int32_t dt;
    enum oc_status st = oc_attr_dtype(c->node, "dtype", OC_DT_FLOAT, &dt, c->diag);
    return st != OC_OK ? st : oc_fill_shape(c, dt);
}

/* ConstantFill: every element `value` (a float attribute, converted). */
OC_FOLD(oc_constant_fill_fold) {
    struct oc_fold_out o;
    struct oc_diag d = {0};
    float v;
    if (oc_attr_float(c->node, "value", 0.0f, &v, &d) != OC_OK || !oc_fold_out(c, 0, &o))
        return OC_OK;
    for (int64_t i = 0; i < o.n; i++)
        if (!oc_fold_put_f(&o, i, v))
            return OC_OK;
    oc_fold_commit(&o);
    return OC_OK;
}

/* GivenTensorFill: `values`, one per element. */
OC_FOLD(oc_given_tensor_fill_fold) {
    oc_fold_attr_floats(c, 0, "values");
    return OC_OK;
}
