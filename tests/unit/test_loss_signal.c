/*
 * test_loss_signal.c — losses, signal ops and RotaryEmbedding: shapes and costs on small graphs built byte by byte
 * (pbw.h). Every expected number is worked out by hand in the comment next
 * to it from the ONNX spec and the formulas in the analyzer/ops/{loss,signal,contrib}.c
 * headers.
 */
#include "testutil.h"

#include "dtype.h"

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
        cmocka_unit_test_teardown(losses_signal_rope, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
