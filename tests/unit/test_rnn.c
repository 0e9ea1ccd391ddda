/*
 * test_rnn.c — recurrent ops (LSTM, GRU, RNN): shapes and costs on small graphs built byte by byte
 * (pbw.h). Every expected number is worked out by hand in the comment next
 * to it from the ONNX spec and the formulas in the analyzer/ops/rnn.c
 * header.
 */
#include "testutil.h"

#include "dtype.h"

/* An LSTM's inputs: x [5, 2, 3] (5 steps, batch 2, 3 features), and W, R
 * and B for hidden size 4 over `dirs` directions. */
static void lstm_inputs(struct pb_model *pm, int64_t dirs) {
    pbm_input(pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(5, 2, 3), NULL));
    pbm_init(pm, pb_tensor_f32("w", 3, TU_DIMS(dirs, 16, 3)));
    pbm_init(pm, pb_tensor_f32("r", 3, TU_DIMS(dirs, 16, 4)));
    pbm_init(pm, pb_tensor_f32("b", 2, TU_DIMS(dirs, 32)));
}

static void lstm_bidirectional(void **state) {
    (void)state;
    struct pb_model pm = {0};
    lstm_inputs(&pm, 2);
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

/* Peepholes come with P (input 7), not with the initial cell state (input
 * 6). x [5, 2, 3], hidden 4, one direction, with B. MACs: 4H (I + H) =
 * 16 x 7 = 112 per step and row x 5 x 2 = 1,120 (both nodes).
 * Elementwise per unit: 14 (activations) + 4 (cell, hidden) + 8 (bias) =
 * 26, + 6 with peepholes; 5 x 2 x 4 = 40 units.
 *   with_c: initial_h, initial_c, no P: 2,240 + 40 x 26 = 3,280
 *   with_p: P alone:                     2,240 + 40 x 32 = 3,520 */
static void lstm_peepholes_from_p(void **state) {
    (void)state;
    struct pb_model pm = {0};
    lstm_inputs(&pm, 1);
    pbm_init(&pm, pb_tensor_f32("h0", 3, TU_DIMS(1, 2, 4)));
    pbm_init(&pm, pb_tensor_f32("c0", 3, TU_DIMS(1, 2, 4)));
    pbm_init(&pm, pb_tensor_f32("p", 2, TU_DIMS(1, 12)));
    struct pbw at[] = {pb_attr_int("hidden_size", 4)};
    struct pbw at2[] = {pb_attr_int("hidden_size", 4)};
    pbm_node(&pm, pb_node("with_c", "LSTM", TU_LIST("x", "w", "r", "b", "", "h0", "c0"), TU_LIST("y"), 1, at));
    pbm_node(&pm, pb_node("with_p", "LSTM", TU_LIST("x", "w", "r", "b", "", "", "", "p"), TU_LIST("y2"), 1, at2));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("y2", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 22, NULL);
    assert_int_equal(tu_node(an, "with_c")->cost.macs, 1120);
    assert_int_equal(tu_node(an, "with_c")->cost.flops, 3280);
    assert_int_equal(tu_node(an, "with_p")->cost.macs, 1120);
    assert_int_equal(tu_node(an, "with_p")->cost.flops, 3520);
}

/* input_forget couples the forget gate to the input gate (f = 1 - i): one
 * sigmoid (4 FLOPs) becomes one subtraction. x [5, 2, 3], hidden 4, one
 * direction, with B: MACs 1,120 as above; per unit 26 - 4 + 1 = 23, over
 * 40 units: 2,240 + 920 = 3,160. */
static void lstm_input_forget(void **state) {
    (void)state;
    struct pb_model pm = {0};
    lstm_inputs(&pm, 1);
    struct pbw at[] = {pb_attr_int("hidden_size", 4), pb_attr_int("input_forget", 1)};
    pbm_node(&pm, pb_node("coupled", "LSTM", TU_LIST("x", "w", "r", "b"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 22, NULL);
    assert_int_equal(tu_node(an, "coupled")->cost.macs, 1120);
    assert_int_equal(tu_node(an, "coupled")->cost.flops, 3160);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(lstm_bidirectional, tu_teardown),
        cmocka_unit_test_teardown(lstm_peepholes_from_p, tu_teardown),
        cmocka_unit_test_teardown(lstm_input_forget, tu_teardown),
        cmocka_unit_test_teardown(gru_batch_first_and_rnn, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
