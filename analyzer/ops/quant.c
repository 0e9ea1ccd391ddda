/*
 * ops/quant.c — linear quantization and the integer / quantized contractions.
 *
 * QuantizeLinear  y = saturate(round(x / y_scale) + y_zero_point)
 *   FLOPs = 2 * numel(x)   (divide by the scale, add the zero point; rounding
 *                           and saturation are part of the conversion)
 * DequantizeLinear  y = (x - x_zero_point) * x_scale
 *   FLOPs = 2 * numel(x)   (subtract the zero point, multiply by the scale)
 * DynamicQuantizeLinear: min and max over x, then QuantizeLinear:
 *   FLOPs = 4 * numel(x) + 8 (per element: min, max, divide, add; once:
 *   y_scale = (max(0, xmax) - min(0, xmin)) / 255 is 4, y_zero_point =
 *   saturate(round(0 - xmin / y_scale)) is 4)
 * MatMulInteger   MACs as MatMul (numel(Y) * K);
 *   FLOPs = 2 * MACs + numel(A) if a_zero_point + numel(B) if b_zero_point
 *   (the zero point is subtracted once per operand element, not per MAC)
 * ConvInteger     MACs as Conv (numel(Y) * C_in/group * prod(k));
 *   FLOPs = 2 * MACs + numel(X) if x_zero_point + numel(W) if w_zero_point
 * QLinearMatMul   MACs as MatMul;
 *   FLOPs = 2 * MACs + numel(A) + numel(B) + 2 * numel(Y)
 *   (zero points subtracted from both operands; the int32 accumulator is
 *   requantized with one multiply by a_scale * b_scale / y_scale and one add
 *   of y_zero_point per output)
 * QLinearConv     MACs as Conv;
 *   FLOPs = 2 * MACs + numel(X) + numel(W) + numel(Y) if B + 2 * numel(Y)
 *   (zero points, the int32 bias add, requantization as QLinearMatMul)
 *
 * Output types (ONNX Operators.md):
 *   QuantizeLinear: output_dtype (opset >= 21) when set, else the type of
 *     y_zero_point, else uint8.
 *   DequantizeLinear: float before opset 19; from 19 the type of x_scale;
 *     from 23 output_dtype when set. From 24 x_scale may be float8e8m0, which
 *     is not an output type: output_dtype is then required.
 *   MatMulInteger, ConvInteger: int32. QLinear*: the type of y_zero_point.
 * Granularity (y_scale / x_scale shape): a scalar or one element is per
 * tensor; 1-D is per axis (length = x.shape[axis], opset >= 13); with
 * block_size > 0 (opset >= 21) the scale has x's rank and
 * ceil(D_axis / block_size) along the axis.
 */
#include "../attr.h"
#include "../dtype.h"
#include "contract.h"
#include "rules.h"
#include "../shape.h"

/* Checks the scale (and zero point) shape against x for per-tensor, per-axis
 * and blocked quantization. */
static enum oc_status oc_quant_granularity(struct oc_op_ctx *c, const struct oc_value *x,
                                           const struct oc_value *scale, const struct oc_value *zp) {
    int64_t axis = 1, block = 0;
    enum oc_status st;
    bool has_axis = c->node->opset >= 13, has_block = c->node->opset >= 21;
    if (has_axis && (st = oc_attr_int(c->node, "axis", 1, &axis, c->diag)) != OC_OK)
        return st;
    if (has_block && (st = oc_attr_int(c->node, "block_size", 0, &block, c->diag)) != OC_OK)
        return st;
    if (block < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "block_size %lld is negative", (long long)block);
    if (!scale || scale->rank < 0)
        return OC_OK;
    /* the spec asks for equal shapes; a one-element zero point or scale is
     * tolerated (it does not change shapes or costs), two larger ones must agree */
    if (zp && oc_shape_known(zp) && oc_shape_known(scale) && oc_numel(zp) != 1 && oc_numel(scale) != 1) {
        bool same = zp->rank == scale->rank;
        for (int32_t i = 0; same && i < zp->rank; i++)
            same = zp->dims[i].value == scale->dims[i].value;
        if (!same)
            return OC_FAIL(c, OC_ERR_MODEL, "zero point and scale shapes differ");
    }
    if (scale->rank == 0 || (oc_shape_known(scale) && oc_numel(scale) == 1))
        return OC_OK; /* per tensor */
    int32_t a;
    if (block > 0) {
        if (scale->rank != x->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "blocked quantization needs a scale of rank %d, got rank %d", x->rank,
                           scale->rank);
        if (!oc_axis_norm(axis, x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, x->rank);
        for (int32_t i = 0; i < x->rank; i++) {
            int64_t xd = x->dims[i].value, sd = scale->dims[i].value;
            if (xd < 0 || sd < 0)
                continue;
            int64_t want = i == a ? (xd + block - 1) / block : xd;
            if (sd != want)
                return OC_FAIL(c, OC_ERR_MODEL,
                               "scale dim %d is %lld, expected %lld for input dim %lld and block_size %lld", i,
                               (long long)sd, (long long)want, (long long)xd, (long long)block);
        }
        return OC_OK;
    }
    if (!has_axis)
        return OC_FAIL(c, OC_ERR_MODEL, "opset %lld quantizes per tensor only: the scale must be a scalar",
                       (long long)c->node->opset);
    if (scale->rank != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "per-axis scale must be 1-D, got rank %d (block_size not set)",
                       scale->rank);
    if (!oc_axis_norm(axis, x->rank, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    if (x->dims[a].value >= 0 && scale->dims[0].value >= 0 && x->dims[a].value != scale->dims[0].value)
        return OC_FAIL(c, OC_ERR_MODEL, "per-axis scale has %lld elements, axis %d has %lld",
                       (long long)scale->dims[0].value, a, (long long)x->dims[a].value);
    return OC_OK;
}

OC_RULE(oc_quantize_infer) {
    const struct oc_value *x = oc_in(c, 0), *scale = oc_in(c, 1), *zp = oc_in(c, 2);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t od = 0;
    enum oc_status st;
    if (c->node->opset >= 21 && (st = oc_attr_int(c->node, "output_dtype", 0, &od, c->diag)) != OC_OK)
        return st;
    if (od < 0 || od >= OC_DT_COUNT)
        return OC_FAIL(c, OC_ERR_MODEL, "output_dtype %lld is not a data type", (long long)od);
    int32_t dt = OC_DT_UINT8;
    if (od) {
        if (zp && zp->dtype && zp->dtype != od)
            return OC_FAIL(c, OC_ERR_MODEL, "output_dtype %s differs from the zero point's type %s",
                           oc_dtype_name((int32_t)od), oc_dtype_name(zp->dtype));
        dt = (int32_t)od;
    } else if (zp) {
        if (!zp->dtype)
            return OC_FAIL(c, OC_ERR_SHAPE, "the type of y_zero_point is not known");
        dt = zp->dtype;
    }
    if ((st = oc_quant_granularity(c, x, scale, zp)) != OC_OK)
        return st;
    return oc_set_out(c, 0, dt, x->rank, x->dims);
}

OC_RULE(oc_dequantize_infer) {
    const struct oc_value *x = oc_in(c, 0), *scale = oc_in(c, 1), *zp = oc_in(c, 2);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->dtype && zp && zp->dtype && zp->dtype != x->dtype)
        return OC_FAIL(c, OC_ERR_MODEL, "zero point type %s differs from the input's type %s",
                       oc_dtype_name(zp->dtype), oc_dtype_name(x->dtype));
    int64_t od = 0;
    enum oc_status st;
    if (c->node->opset >= 23 && (st = oc_attr_int(c->node, "output_dtype", 0, &od, c->diag)) != OC_OK)
        return st;
    if (od < 0 || od >= OC_DT_COUNT)
        return OC_FAIL(c, OC_ERR_MODEL, "output_dtype %lld is not a data type", (long long)od);
    int32_t dt = OC_DT_FLOAT;
    if (od) {
        dt = (int32_t)od;
    } else if (c->node->opset >= 19) {
        if (!scale || !scale->dtype)
            return OC_FAIL(c, OC_ERR_SHAPE, "the type of x_scale is not known");
        if (scale->dtype == OC_DT_FLOAT8E8M0)
            return OC_FAIL(c, OC_ERR_MODEL, "x_scale is float8e8m0: output_dtype must be set");
        dt = scale->dtype;
    }
    if ((st = oc_quant_granularity(c, x, scale, zp)) != OC_OK)
        return st;
    return oc_set_out(c, 0, dt, x->rank, x->dims);
}

/* QuantizeLinear / DequantizeLinear: 2 FLOPs per element (see the top). */
OC_COST(oc_quant_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 2);
    return OC_OK;
}

OC_RULE(oc_dynamic_quantize_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_set_out(c, 0, OC_DT_UINT8, x->rank, x->dims);
    if (st == OC_OK)
        st = oc_set_out(c, 1, OC_DT_FLOAT, 0, NULL);
    if (st == OC_OK)
        st = oc_set_out(c, 2, OC_DT_UINT8, 0, NULL);
    return st;
}

/* 4 * numel(x) + 8: min, max, divide, add per element; scale and zero point once. */
OC_COST(oc_dynamic_quantize_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 4);
    oc_cost_add_flops(cost, 8, 1);
    return OC_OK;
}

/* Type of a required zero-point input that decides the output type. */
static enum oc_status oc_zero_point_type(struct oc_op_ctx *c, int32_t i, int32_t *dt) {
    const struct oc_value *zp = oc_in(c, i);
    if (!zp || !zp->dtype)
        return OC_FAIL(c, OC_ERR_SHAPE, "the type of y_zero_point is not known");
    *dt = zp->dtype;
    return OC_OK;
}

OC_RULE(oc_matmul_integer_infer) {
    return oc_matmul_shape(c, oc_in(c, 0), oc_in(c, 1), OC_DT_INT32);
}

/* 2 * MACs + numel(A) if a_zero_point + numel(B) if b_zero_point. */
OC_COST(oc_matmul_integer_cost) {
    oc_matmul_macs(oc_in(c, 0), oc_out(c, 0), cost);
    oc_cost_add_flops(cost, cost->macs, 2);
    if (oc_in(c, 2))
        oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    if (oc_in(c, 3))
        oc_cost_add_flops(cost, oc_numel(oc_in(c, 1)), 1);
    return OC_OK;
}

OC_RULE(oc_qlinear_matmul_infer) {
    int32_t dt = 0;
    enum oc_status st = oc_zero_point_type(c, 7, &dt);
    if (st != OC_OK)
        return st;
    return oc_matmul_shape(c, oc_in(c, 0), oc_in(c, 3), dt);
}

/* 2 * MACs + numel(A) + numel(B) + 2 * numel(Y). */
OC_COST(oc_qlinear_matmul_cost) {
    const struct oc_value *y = oc_out(c, 0);
    oc_matmul_macs(oc_in(c, 0), y, cost);
    oc_cost_add_flops(cost, cost->macs, 2);
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 3)), 1);
    oc_cost_add_flops(cost, oc_numel(y), 2);
    return OC_OK;
}

OC_RULE(oc_conv_integer_infer) {
    return oc_conv_shape(c, oc_in(c, 0), oc_in(c, 1), NULL, OC_DT_INT32);
}

/* 2 * MACs + numel(X) if x_zero_point + numel(W) if w_zero_point. */
OC_COST(oc_conv_integer_cost) {
    enum oc_status st = oc_conv_macs(c, oc_in(c, 0), oc_in(c, 1), oc_out(c, 0), cost);
    if (st != OC_OK)
        return st;
    oc_cost_add_flops(cost, cost->macs, 2);
    if (oc_in(c, 2))
        oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    if (oc_in(c, 3))
        oc_cost_add_flops(cost, oc_numel(oc_in(c, 1)), 1);
    return OC_OK;
}

OC_RULE(oc_qlinear_conv_infer) {
    int32_t dt = 0;
    enum oc_status st = oc_zero_point_type(c, 7, &dt);
    if (st != OC_OK)
        return st;
    return oc_conv_shape(c, oc_in(c, 0), oc_in(c, 3), oc_in(c, 8), dt);
}

/* 2 * MACs + numel(X) + numel(W) + numel(Y) if B + 2 * numel(Y). */
OC_COST(oc_qlinear_conv_cost) {
    const struct oc_value *y = oc_out(c, 0);
    enum oc_status st = oc_conv_macs(c, oc_in(c, 0), oc_in(c, 3), y, cost);
    if (st != OC_OK)
        return st;
    oc_cost_add_flops(cost, cost->macs, 2);
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 3)), 1);
    if (oc_in(c, 8))
        oc_cost_add_flops(cost, oc_numel(y), 1);
    oc_cost_add_flops(cost, oc_numel(y), 2);
    return OC_OK;
}
