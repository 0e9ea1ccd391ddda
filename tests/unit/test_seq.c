/*
 * test_seq.c — recurrent, attention, quantized and signal ops: shapes and
 * costs on small graphs built byte by byte (pbw.h). Every expected number is
 * worked out by hand in the comment next to it from the ONNX spec and the
 * formulas in the analyzer/ops/{rnn,attention,quant,loss,signal}.c headers.
 */
#include "testutil.h"

#include "dtype.h"

static void lstm_bidirectional(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(5, 2, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 3, TU_DIMS(2, 16, 3)));
    pbm_init(&pm, pb_tensor_f32("r", 3, TU_DIMS(2, 16, 4)));
    pbm_init(&pm, pb_tensor_f32("b", 2, TU_DIMS(2, 32)));
    struct pbw at[] = {pb_attr_int("hidden_size", 4), pb_attr_str("direction", "bidirectional")};
    pbm_node(&pm, pb_node("lstm", "LSTM", TU_LIST("x", "w", "r", "b"), TU_LIST("y", "yh", "yc"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 22, NULL);
    /* seq 5, dirs 2, batch 2, hidden 4 */
    TU_SHAPE(tu_out(an, "lstm", 0), 5, 2, 2, 4);
    TU_SHAPE(tu_out(an, "lstm", 1), 2, 2, 4);
    TU_SHAPE(tu_out(an, "lstm", 2), 2, 2, 4);
    const struct oc_node *n = tu_node(an, "lstm");
    /* per step, direction and batch row 4H (I + H) = 16 * 7 = 112;
     * x seq 5 x dirs 2 x batch 2 = 20 -> 2,240 MACs */
    assert_int_equal(n->cost.macs, 2240);
    /* elementwise per hidden unit and direction: 3 sigmoids (4 each) + tanh + tanh = 14,
     * cell 3 + hidden 1 = 4, bias 8 -> 26; two directions 52;
     * seq 5 x batch 2 x hidden 4 = 40 units -> 2,080; FLOPs = 4,480 + 2,080 */
    assert_int_equal(n->cost.flops, 6560);
    /* params W 96 + R 128 + B 64 */
    assert_int_equal(n->params, 288);
}

static void gru_batch_first_and_rnn(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(3, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("w", PB_FLOAT, 3, TU_DIMS(1, 18, 5), NULL));
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 3, TU_DIMS(1, 18, 6), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 2, TU_DIMS(1, 36), NULL));
    struct pbw at[] = {pb_attr_int("hidden_size", 6), pb_attr_int("layout", 1), pb_attr_int("linear_before_reset", 1),
                       pb_attr_strs("activations", 2, TU_LIST("HardSigmoid", "Relu"))};
    pbm_node(&pm, pb_node("gru", "GRU", TU_LIST("x", "w", "r", "b"), TU_LIST("y", "yh"), 4, at));
    /* RNN without hidden_size: taken from R [1, 2, 2] */
    pbm_input(&pm, pb_value_info("x2", PB_FLOAT, 3, TU_DIMS(2, 1, 3), NULL));
    pbm_input(&pm, pb_value_info("w2", PB_FLOAT, 3, TU_DIMS(1, 2, 3), NULL));
    pbm_input(&pm, pb_value_info("r2", PB_FLOAT, 3, TU_DIMS(1, 2, 2), NULL));
    pbm_node(&pm, pb_node("rnn", "RNN", TU_LIST("x2", "w2", "r2"), TU_LIST("", "h2"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 14, NULL);
    /* layout 1: X [batch 3, seq 4, input 5] -> Y [batch, seq, dirs, hidden], Y_h [batch, dirs, hidden] */
    TU_SHAPE(tu_out(an, "gru", 0), 3, 4, 1, 6);
    TU_SHAPE(tu_out(an, "gru", 1), 3, 1, 6);
    const struct oc_node *n = tu_node(an, "gru");
    /* 3H (I + H) = 18 * 11 = 198 per row; seq 4 x batch 3 = 12 rows -> 2,376 MACs */
    assert_int_equal(n->cost.macs, 2376);
    /* e = 2 HardSigmoid (4 each) + Relu 1 + 5 (r*H, (1-z)*h + z*H)
     *   + 1 (linear_before_reset add) + 6 (bias) = 21;
     * 4 x 3 x 6 = 72 units -> 1,512; FLOPs = 4,752 + 1,512 */
    assert_int_equal(n->cost.flops, 6264);
    TU_SHAPE(tu_out(an, "rnn", 1), 1, 1, 2);
    /* H (I + H) = 2 * 5 = 10 per row, 2 steps -> 20 MACs; tanh on 2 x 2 units -> 40 + 4 */
    assert_int_equal(tu_node(an, "rnn")->cost.macs, 20);
    assert_int_equal(tu_node(an, "rnn")->cost.flops, 44);
}

static void attention_gqa(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 4, TU_DIMS(2, 8, 3, 16), NULL));
    pbm_input(&pm, pb_value_info("k", PB_FLOAT, 4, TU_DIMS(2, 2, 3, 16), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 4, TU_DIMS(2, 2, 3, 32), NULL));
    pbm_input(&pm, pb_value_info("pk", PB_FLOAT, 4, TU_DIMS(2, 2, 5, 16), NULL));
    pbm_input(&pm, pb_value_info("pv", PB_FLOAT, 4, TU_DIMS(2, 2, 5, 32), NULL));
    struct pbw at[] = {pb_attr_int("is_causal", 1)};
    pbm_node(&pm, pb_node("att", "Attention", TU_LIST("q", "k", "v", "", "pk", "pv"),
                          TU_LIST("y", "present_k", "present_v", "qk"), 1, at));
    /* 3-D form: heads from the attributes, softcap */
    pbm_input(&pm, pb_value_info("q3", PB_FLOAT16, 3, TU_DIMS(2, 3, 64), NULL));
    pbm_input(&pm, pb_value_info("k3", PB_FLOAT16, 3, TU_DIMS(2, 5, 32), NULL));
    pbm_input(&pm, pb_value_info("v3", PB_FLOAT16, 3, TU_DIMS(2, 5, 48), NULL));
    struct pbw at3[] = {pb_attr_int("q_num_heads", 4), pb_attr_int("kv_num_heads", 2), pb_attr_float("softcap", 30.0f)};
    pbm_node(&pm, pb_node("att3", "Attention", TU_LIST("q3", "k3", "v3"), TU_LIST("y3"), 3, at3));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 23, NULL);
    /* B 2, Hq 8, Hkv 2, Sq 3, kv 3 + past 5 = T 8, Dh 16, Dv 32 */
    TU_SHAPE(tu_out(an, "att", 0), 2, 8, 3, 32);
    TU_SHAPE(tu_out(an, "att", 1), 2, 2, 8, 16);
    TU_SHAPE(tu_out(an, "att", 2), 2, 2, 8, 32);
    TU_SHAPE(tu_out(an, "att", 3), 2, 8, 3, 8);
    const struct oc_node *n = tu_node(an, "att");
    /* scores S = B*Hq*Sq*T = 2*8*3*8 = 384; MACs = 384*16 (QK^T) + 384*32 (AV) = 18,432
     * (every query head counts, although only 2 K/V heads exist) */
    assert_int_equal(n->cost.macs, 18432);
    /* FLOPs = 2 * 18,432 + 384 * (1 scale + 5 softmax + 1 causal bias); causal not halved */
    assert_int_equal(n->cost.flops, 39552);
    /* 3-D: Dh = 64/4 = 16, K 32/2 = 16, Dv = 48/2 = 24; Y [2, 3, 4*24] in Q's type */
    TU_SHAPE(tu_out(an, "att3", 0), 2, 3, 96);
    assert_int_equal(tu_out(an, "att3", 0)->dtype, PB_FLOAT16);
    /* S = 2*4*3*5 = 120; MACs = 120*16 + 120*24 = 4,800;
     * FLOPs = 9,600 + 120 * (6 + 3 softcap: divide, tanh, multiply) = 10,680 */
    assert_int_equal(tu_node(an, "att3")->cost.macs, 4800);
    assert_int_equal(tu_node(an, "att3")->cost.flops, 10680);
}

static void attention_bad_heads(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 4, TU_DIMS(1, 6, 3, 8), NULL));
    pbm_input(&pm, pb_value_info("k", PB_FLOAT, 4, TU_DIMS(1, 4, 3, 8), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 4, TU_DIMS(1, 4, 3, 8), NULL));
    pbm_node(&pm, pb_node("att", "Attention", TU_LIST("q", "k", "v"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_err(&pm, 23, OC_ERR_MODEL, "not a multiple of kv_num_heads");
}

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

static void losses_signal_rope(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("sc", PB_FLOAT, 3, TU_DIMS(4, 5, 3), NULL));
    pbm_input(&pm, pb_value_info("lb", PB_INT64, 2, TU_DIMS(4, 3), NULL));
    pbm_input(&pm, pb_value_info("wt", PB_FLOAT, 1, TU_DIMS(5), NULL));
    struct pbw sce[] = {pb_attr_int("ignore_index", 0)};
    pbm_node(&pm, pb_node("sce", "SoftmaxCrossEntropyLoss", TU_LIST("sc", "lb", "wt"), TU_LIST("l", "lp"), 1, sce));
    struct pbw nll[] = {pb_attr_str("reduction", "none")};
    pbm_node(&pm, pb_node("nll", "NegativeLogLikelihoodLoss", TU_LIST("sc", "lb"), TU_LIST("nl"), 1, nll));
    pbm_input(&pm, pb_value_info("sig", PB_FLOAT, 3, TU_DIMS(2, 16, 1), NULL));
    pbm_init(&pm, pb_tensor_i64("len", 0, NULL, TU_DIMS(32)));
    struct pbw dft[] = {pb_attr_int("onesided", 1)};
    pbm_node(&pm, pb_node("dft", "DFT", TU_LIST("sig", "len"), TU_LIST("spec"), 1, dft));
    pbm_init(&pm, pb_tensor_i64("n", 0, NULL, TU_DIMS(64)));
    struct pbw hann[] = {pb_attr_int("output_datatype", OC_DT_DOUBLE)};
    pbm_node(&pm, pb_node("hann", "HannWindow", TU_LIST("n"), TU_LIST("win"), 1, hann));
    pbm_input(&pm, pb_value_info("audio", PB_FLOAT, 3, TU_DIMS(1, 100, 1), NULL));
    pbm_init(&pm, pb_tensor_i64("step", 0, NULL, TU_DIMS(10)));
    pbm_input(&pm, pb_value_info("w20", PB_FLOAT, 1, TU_DIMS(20), NULL));
    pbm_node(&pm, pb_node("stft", "STFT", TU_LIST("audio", "step", "w20"), TU_LIST("st"), 0, NULL));
    pbm_input(&pm, pb_value_info("h", PB_FLOAT, 3, TU_DIMS(2, 5, 24), NULL));
    pbm_input(&pm, pb_value_info("cos", PB_FLOAT, 2, TU_DIMS(100, 2), NULL));
    pbm_input(&pm, pb_value_info("pos", PB_INT64, 2, TU_DIMS(2, 5), NULL));
    struct pbw rope[] = {pb_attr_int("num_heads", 3), pb_attr_int("rotary_embedding_dim", 4)};
    pbm_node(&pm, pb_node("rope", "RotaryEmbedding", TU_LIST("h", "cos", "cos", "pos"), TU_LIST("hr"), 2, rope));
    pbm_output(&pm, pb_value_info("l", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 23, NULL);
    assert_int_equal(tu_out(an, "sce", 0)->rank, 0);
    TU_SHAPE(tu_out(an, "sce", 1), 4, 5, 3);
    /* n = 12 targets: LogSoftmax 5 * 60 + 12 logs; NLL 12 * (negate, weight, ignore select) = 36,
     * sum 11, mean: divide 1 + denominator sum 11 -> 300 + 12 + 36 + 11 + 1 + 11 */
    assert_int_equal(tu_node(an, "sce")->cost.flops, 371);
    TU_SHAPE(tu_out(an, "nll", 0), 4, 3);
    assert_int_equal(tu_node(an, "nll")->cost.flops, 12);
    /* dft_length 32, onesided: 32 / 2 + 1 = 17 bins on axis -2 */
    TU_SHAPE(tu_out(an, "dft", 0), 2, 17, 2);
    /* 2 real transforms of n = 32: 5 * 32 * log2 32 / 2 = 400 each */
    assert_int_equal(tu_node(an, "dft")->cost.flops, 800);
    TU_SHAPE(tu_out(an, "hann", 0), 64);
    assert_int_equal(tu_out(an, "hann", 0)->dtype, OC_DT_DOUBLE);
    assert_int_equal(tu_node(an, "hann")->cost.flops, 256);
    /* frame 20 (window), step 10: (100 - 20) / 10 + 1 = 9 frames, 20 / 2 + 1 = 11 bins */
    TU_SHAPE(tu_out(an, "stft", 0), 1, 9, 11, 2);
    /* per frame: 5 * 20 * ceil(log2 20) / 2 = 250 + 20 window multiplies = 270; x 9 */
    assert_int_equal(tu_node(an, "stft")->cost.flops, 2430);
    TU_SHAPE(tu_out(an, "rope", 0), 2, 5, 24);
    /* head 24 / 3 = 8; 2*5*3 = 30 (token, head) pairs x rotary dim 4 x 3 = 360 */
    assert_int_equal(tu_node(an, "rope")->cost.flops, 360);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(lstm_bidirectional, tu_teardown),
        cmocka_unit_test_teardown(gru_batch_first_and_rnn, tu_teardown),
        cmocka_unit_test_teardown(attention_gqa, tu_teardown),
        cmocka_unit_test_teardown(attention_bad_heads, tu_teardown),
        cmocka_unit_test_teardown(qlinear_conv_and_conv_integer, tu_teardown),
        cmocka_unit_test_teardown(matmul_integer_and_qlinear, tu_teardown),
        cmocka_unit_test_teardown(dequantize_blocked, tu_teardown),
        cmocka_unit_test_teardown(quantize_dtype_by_opset, tu_teardown),
        cmocka_unit_test_teardown(quantize_opset10_per_tensor, tu_teardown),
        cmocka_unit_test_teardown(quantize_opset10_rejects_per_axis, tu_teardown),
        cmocka_unit_test_teardown(dequantize_bad_block, tu_teardown),
        cmocka_unit_test_teardown(losses_signal_rope, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
