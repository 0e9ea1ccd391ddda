/*
 * test_quant.c — quantized ops (QLinear*, *Integer, QuantizeLinear, DequantizeLinear): shapes and costs on small graphs built byte by byte
 * (pbw.h). Every expected number is worked out by hand in the comment next
 * to it from the ONNX spec and the formulas in the analyzer/ops/quant.c
 * header.
 */
#include "testutil.h"

#include "dtype.h"

static void qlinear_conv_and_conv_integer(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", OC_DT_UINT8, 4, TU_DIMS(1, 4, 10, 10), NULL));
    pbm_input(&pm, pb_value_info("xs", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("xz", OC_DT_UINT8, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("w", OC_DT_UINT8, 4, TU_DIMS(8, 2, 3, 3), NULL));
    pbm_input(&pm, pb_value_info("ws", PB_FLOAT, 1, TU_DIMS(8), NULL));
    pbm_input(&pm, pb_value_info("wz", OC_DT_UINT8, 1, TU_DIMS(8), NULL));
    pbm_input(&pm, pb_value_info("ys", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("yz", OC_DT_INT8, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("b", PB_INT32, 1, TU_DIMS(8), NULL));
    struct pbw at[] = {pb_attr_int("group", 2), pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                       pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("qc", "QLinearConv", TU_LIST("x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"),
                          TU_LIST("y"), 3, at));
    struct pbw at2[] = {pb_attr_int("group", 2), pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                        pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("ci", "ConvInteger", TU_LIST("x", "w", "xz"), TU_LIST("yi"), 3, at2));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 10, NULL);
    /* (10 + 1 + 1 - 3) / 2 + 1 = 5; output type = y_zero_point's (int8) */
    TU_SHAPE(tu_out(an, "qc", 0), 1, 8, 5, 5);
    assert_int_equal(tu_out(an, "qc", 0)->dtype, OC_DT_INT8);
    const struct oc_node *n = tu_node(an, "qc");
    /* numel(Y) 200 x C/group 2 x 3*3 = 3,600 MACs */
    assert_int_equal(n->cost.macs, 3600);
    /* 7,200 + numel(X) 400 + numel(W) 144 (zero points) + 200 (int32 bias)
     * + 2 * 200 (requantize) = 8,344 */
    assert_int_equal(n->cost.flops, 8344);
    TU_SHAPE(tu_out(an, "ci", 0), 1, 8, 5, 5);
    assert_int_equal(tu_out(an, "ci", 0)->dtype, PB_INT32);
    /* same contraction; + numel(X) 400 for x_zero_point only */
    assert_int_equal(tu_node(an, "ci")->cost.macs, 3600);
    assert_int_equal(tu_node(an, "ci")->cost.flops, 7600);
}

static void matmul_integer_and_qlinear(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", OC_DT_UINT8, 3, TU_DIMS(2, 4, 8), NULL));
    pbm_input(&pm, pb_value_info("b", OC_DT_INT8, 2, TU_DIMS(8, 5), NULL));
    pbm_input(&pm, pb_value_info("az", OC_DT_UINT8, 0, NULL, NULL));
    pbm_node(&pm, pb_node("mmi", "MatMulInteger", TU_LIST("a", "b", "az"), TU_LIST("y"), 0, NULL));
    pbm_input(&pm, pb_value_info("qa", OC_DT_UINT8, 2, TU_DIMS(4, 8), NULL));
    pbm_input(&pm, pb_value_info("qb", OC_DT_UINT8, 2, TU_DIMS(8, 3), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("z", OC_DT_UINT8, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("yz", OC_DT_INT8, 0, NULL, NULL));
    pbm_node(&pm, pb_node("qmm", "QLinearMatMul", TU_LIST("qa", "s", "z", "qb", "s", "z", "s", "yz"), TU_LIST("q"),
                          0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_INT32, -1, NULL, NULL));
    tu_analyze_ok(&pm, 21, NULL);
    /* [2, 4, 8] x [8, 5] -> int32 [2, 4, 5] */
    TU_SHAPE(tu_out(an, "mmi", 0), 2, 4, 5);
    assert_int_equal(tu_out(an, "mmi", 0)->dtype, PB_INT32);
    /* numel(Y) 40 x K 8 = 320 MACs; FLOPs 640 + numel(A) 64 (a_zero_point) */
    assert_int_equal(tu_node(an, "mmi")->cost.macs, 320);
    assert_int_equal(tu_node(an, "mmi")->cost.flops, 704);
    TU_SHAPE(tu_out(an, "qmm", 0), 4, 3);
    assert_int_equal(tu_out(an, "qmm", 0)->dtype, OC_DT_INT8);
    /* 12 x 8 = 96 MACs; 192 + 32 + 24 (zero points) + 2 * 12 (requantize) = 272 */
    assert_int_equal(tu_node(an, "qmm")->cost.macs, 96);
    assert_int_equal(tu_node(an, "qmm")->cost.flops, 272);
}

static void dequantize_blocked(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", OC_DT_INT4, 2, TU_DIMS(64, 32), NULL));
    pbm_init(&pm, pb_tensor_f32("s", 2, TU_DIMS(4, 32)));
    pbm_input(&pm, pb_value_info("z", OC_DT_INT4, 2, TU_DIMS(4, 32), NULL));
    struct pbw at[] = {pb_attr_int("axis", 0), pb_attr_int("block_size", 16)};
    pbm_node(&pm, pb_node("dq", "DequantizeLinear", TU_LIST("x", "s", "z"), TU_LIST("y"), 2, at));
    /* a block that does not divide the axis: ceil(10 / 4) = 3 scales */
    pbm_input(&pm, pb_value_info("x2", OC_DT_INT8, 2, TU_DIMS(10, 4), NULL));
    pbm_input(&pm, pb_value_info("s2", PB_FLOAT16, 2, TU_DIMS(3, 4), NULL));
    struct pbw at2[] = {pb_attr_int("axis", 0), pb_attr_int("block_size", 4)};
    pbm_node(&pm, pb_node("dq2", "DequantizeLinear", TU_LIST("x2", "s2"), TU_LIST("y2"), 2, at2));
    /* QuantizeLinear: output_dtype without a zero point; per-axis with one */
    pbm_input(&pm, pb_value_info("f", PB_FLOAT, 2, TU_DIMS(6, 8), NULL));
    pbm_input(&pm, pb_value_info("fs", PB_FLOAT, 1, TU_DIMS(8), NULL));
    pbm_input(&pm, pb_value_info("fz", OC_DT_INT8, 1, TU_DIMS(8), NULL));
    struct pbw q1[] = {pb_attr_int("axis", 1), pb_attr_int("output_dtype", OC_DT_INT4)};
    pbm_node(&pm, pb_node("q", "QuantizeLinear", TU_LIST("f", "fs"), TU_LIST("qy"), 2, q1));
    struct pbw q2[] = {pb_attr_int("axis", -1)};
    pbm_node(&pm, pb_node("q2", "QuantizeLinear", TU_LIST("f", "fs", "fz"), TU_LIST("qy2"), 1, q2));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 21, NULL);
    const struct oc_value *y = tu_out(an, "dq", 0);
    TU_SHAPE(y, 64, 32);
    /* opset 21: the output takes x_scale's type */
    assert_int_equal(y->dtype, PB_FLOAT);
    const struct oc_node *n = tu_node(an, "dq");
    /* 2 FLOPs per element: 64 * 32 * 2 */
    assert_int_equal(n->cost.flops, 4096);
    assert_int_equal(n->cost.macs, 0);
    /* the scale initializer (4 * 32) is a quantization parameter, not trainable */
    assert_int_equal(n->params, 128);
    assert_int_equal(an->totals.non_trainable_params, 128);
    TU_SHAPE(tu_out(an, "dq2", 0), 10, 4);
    assert_int_equal(tu_out(an, "dq2", 0)->dtype, PB_FLOAT16);
    assert_int_equal(tu_node(an, "dq2")->cost.flops, 80);
    TU_SHAPE(tu_out(an, "q", 0), 6, 8);
    assert_int_equal(tu_out(an, "q", 0)->dtype, OC_DT_INT4);
    assert_int_equal(tu_node(an, "q")->cost.flops, 96);
    assert_int_equal(tu_out(an, "q2", 0)->dtype, OC_DT_INT8);
}

static void quantize_dtype_by_opset(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", OC_DT_UINT8, 2, TU_DIMS(3, 4), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT16, 0, NULL, NULL));
    struct pbw at[] = {pb_attr_int("output_dtype", OC_DT_BFLOAT16)};
    pbm_node(&pm, pb_node("dq", "DequantizeLinear", TU_LIST("x", "s"), TU_LIST("y"), 1, at));
    pbm_node(&pm, pb_node("dq2", "DequantizeLinear", TU_LIST("x", "s"), TU_LIST("y2"), 0, NULL));
    pbm_input(&pm, pb_value_info("f", PB_FLOAT, 1, TU_DIMS(7), NULL));
    pbm_node(&pm, pb_node("q", "QuantizeLinear", TU_LIST("f", "s"), TU_LIST("u"), 0, NULL));
    pbm_node(&pm, pb_node("dyn", "DynamicQuantizeLinear", TU_LIST("f"), TU_LIST("dy", "dys", "dyz"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 23, NULL);
    /* opset 23: output_dtype wins, else x_scale's type; QuantizeLinear without zero point: uint8 */
    assert_int_equal(tu_out(an, "dq", 0)->dtype, OC_DT_BFLOAT16);
    assert_int_equal(tu_out(an, "dq2", 0)->dtype, PB_FLOAT16);
    assert_int_equal(tu_out(an, "q", 0)->dtype, OC_DT_UINT8);
    TU_SHAPE(tu_out(an, "dyn", 0), 7);
    assert_int_equal(tu_out(an, "dyn", 1)->rank, 0);
    assert_int_equal(tu_out(an, "dyn", 2)->dtype, OC_DT_UINT8);
    /* 4 * 7 (min, max, divide, add) + 8 for the scale and zero point */
    assert_int_equal(tu_node(an, "dyn")->cost.flops, 36);
}

static void quantize_opset10_per_tensor(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("f", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 1, TU_DIMS(1), NULL));
    pbm_input(&pm, pb_value_info("z", OC_DT_INT8, 1, TU_DIMS(1), NULL));
    pbm_node(&pm, pb_node("q", "QuantizeLinear", TU_LIST("f", "s", "z"), TU_LIST("u"), 0, NULL));
    pbm_node(&pm, pb_node("dq", "DequantizeLinear", TU_LIST("u", "s", "z"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 10, NULL);
    /* a one-element scale is per tensor; types from the zero point, then float */
    assert_int_equal(tu_out(an, "q", 0)->dtype, OC_DT_INT8);
    TU_SHAPE(tu_out(an, "dq", 0), 2, 3);
    assert_int_equal(tu_out(an, "dq", 0)->dtype, PB_FLOAT);
    /* 2 per element each: 12 + 12 */
    assert_int_equal(an->totals.flops, 24);
}

static void quantize_opset10_rejects_per_axis(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("f", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 1, TU_DIMS(3), NULL));
    pbm_node(&pm, pb_node("q", "QuantizeLinear", TU_LIST("f", "s"), TU_LIST("u"), 0, NULL));
    pbm_output(&pm, pb_value_info("u", OC_DT_UINT8, -1, NULL, NULL));
    tu_analyze_err(&pm, 10, OC_ERR_MODEL, "per tensor only");
}

static void dequantize_bad_block(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", OC_DT_INT8, 2, TU_DIMS(64, 32), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 2, TU_DIMS(3, 32), NULL));
    struct pbw at[] = {pb_attr_int("axis", 0), pb_attr_int("block_size", 16)};
    pbm_node(&pm, pb_node("dq", "DequantizeLinear", TU_LIST("x", "s"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    /* ceil(64 / 16) = 4 scales expected along axis 0 */
    tu_analyze_err(&pm, 21, OC_ERR_MODEL, "expected 4");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(qlinear_conv_and_conv_integer, tu_teardown),
        cmocka_unit_test_teardown(matmul_integer_and_qlinear, tu_teardown),
        cmocka_unit_test_teardown(dequantize_blocked, tu_teardown),
        cmocka_unit_test_teardown(quantize_dtype_by_opset, tu_teardown),
        cmocka_unit_test_teardown(quantize_opset10_per_tensor, tu_teardown),
        cmocka_unit_test_teardown(quantize_opset10_rejects_per_axis, tu_teardown),
        cmocka_unit_test_teardown(dequantize_bad_block, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
