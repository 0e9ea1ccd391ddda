/*
 * test_attention.c — Attention (grouped-query heads): shapes and costs on small graphs built byte by byte
 * (pbw.h). Every expected number is worked out by hand in the comment next
 * to it from the ONNX spec and the formulas in the analyzer/ops/attention.c
 * header.
 */
#include "testutil.h"

#include "dtype.h"

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

/* ONNX Runtime's MultiHeadAttention with key and value already the whole
 * cache, [B, N, L, H] (4-D): L is the total length, a past_key beside them
 * adds nothing. q [1, 3, 8], 2 heads (head size 4), k and v [1, 2, 10, 4],
 * past_key [1, 2, 7, 4]: T = 10; scores 1 x 2 x 3 x 10 = 60; MACs 60 x
 * (4 + 4) = 480; present_key [1, 2, 10, 4]. */
static void mha_whole_cache_key(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 3, TU_DIMS(1, 3, 8), NULL));
    pbm_input(&pm, pb_value_info("k", PB_FLOAT, 4, TU_DIMS(1, 2, 10, 4), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 4, TU_DIMS(1, 2, 10, 4), NULL));
    pbm_input(&pm, pb_value_info("pk", PB_FLOAT, 4, TU_DIMS(1, 2, 7, 4), NULL));
    pbm_input(&pm, pb_value_info("pv", PB_FLOAT, 4, TU_DIMS(1, 2, 7, 4), NULL));
    struct pbw at[] = {pb_attr_int("num_heads", 2)};
    pbm_node(&pm, pb_node_dom("mha", "com.microsoft", "MultiHeadAttention",
                              TU_LIST("q", "k", "v", "", "", "", "pk", "pv"), TU_LIST("y", "present_k", "present_v"),
                              1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_bytes_ok(pbm_finish_ms(&pm, 17, 1), NULL);
    TU_SHAPE(tu_out(an, "mha", 0), 1, 3, 8);
    TU_SHAPE(tu_out(an, "mha", 1), 1, 2, 10, 4);
    assert_int_equal(tu_node(an, "mha")->cost.macs, 480);
}

/* MultiHeadAttention with Q, K and V packed in one [B, S, N, 3, H] query
 * (ONNX Runtime runs it only on a GPU): B 2, S 5, N 2 heads, H 4. Its
 * output [2, 5, 8]; MACs Q K^T and A V, B N S S H each: 2 x 2 x 5 x 5 x 4
 * x 2 = 800; FLOPs twice those, and the softmax and scale's 6 per score,
 * 6 x 2 x 2 x 5 x 5 = 600: 2,200 */
static void mha_packed_qkv(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("qkv", PB_FLOAT, 5, TU_DIMS(2, 5, 2, 3, 4), NULL));
    struct pbw at[] = {pb_attr_int("num_heads", 2)};
    pbm_node(&pm, pb_node_dom("mha", "com.microsoft", "MultiHeadAttention", TU_LIST("qkv"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_bytes_ok(pbm_finish_ms(&pm, 17, 1), NULL);
    TU_SHAPE(tu_out(an, "mha", 0), 2, 5, 8);
    assert_int_equal(tu_node(an, "mha")->cost.macs, 800);
    assert_int_equal(tu_node(an, "mha")->cost.flops, 2200);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(attention_gqa, tu_teardown),
        cmocka_unit_test_teardown(attention_bad_heads, tu_teardown),
        cmocka_unit_test_teardown(mha_whole_cache_key, tu_teardown),
        cmocka_unit_test_teardown(mha_packed_qkv, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
