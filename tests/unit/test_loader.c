/*
 * test_loader.c — the weight-free loader and graph validation: payloads are
 * skipped and accounted for, external data is never needed, and every kind
 * of broken file gives one error naming what is wrong.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

static struct pbw relu_model(void) {
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    return pbm_finish(&pm, 13);
}

/* Expects analysis to fail with `code` and a message containing `needle`. */
static void expect_error(struct pbw *bytes, enum oc_status code, const char *needle) {
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_diag d;
    enum oc_status st = tu_analyze(bytes, NULL, &m, &an, &d);
    if (st != code || !strstr(d.msg, needle))
        fail_msg("expected status %d with '%s', got %d: '%s'", code, needle, st, d.msg);
    assert_null(an);
    tu_free(m, an, bytes);
}

static void payloads_are_skipped(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 1000), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(1000, 1000)));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_diag d;
    assert_int_equal(tu_analyze(&bytes, NULL, &m, &an, &d), OC_OK);
    const struct oc_model_stats *s = oc_model_stats(m);
    /* the 4,000,000 weight bytes stay in the file; the structure is tiny */
    assert_int_equal(s->payload_bytes, 4000000);
    assert_int_equal(s->n_payloads, 1);
    assert_true(s->structure_bytes < 400);
    assert_true(s->heap_peak_bytes < 8192);
    assert_int_equal(an->totals.params, 1000000);
    assert_int_equal(an->totals.params_bytes, 4000000);
    tu_free(m, an, &bytes);
}

static void external_data_counts_from_dims(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 300), NULL));
    struct pbw t = {0}, kv = {0};
    pbw_int(&t, 1, 300);
    pbw_int(&t, 1, 500);
    pbw_int(&t, 2, PB_FLOAT);
    pbw_str(&t, 8, "w");
    pbw_str(&kv, 1, "location");
    pbw_str(&kv, 2, "no_such_file.data");
    pbw_msg(&t, 13, &kv);
    pbw_int(&t, 14, 1); /* EXTERNAL */
    pbm_init(&pm, t);
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_diag d;
    assert_int_equal(tu_analyze(&bytes, NULL, &m, &an, &d), OC_OK);
    assert_int_equal(an->totals.params, 150000);
    assert_int_equal(an->totals.macs, 2 * 500 * 300);
    tu_free(m, an, &bytes);
}

static void unsorted_file(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    pbm_node(&pm, pb_node("second", "Relu", TU_LIST("a"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("first", "Relu", TU_LIST("x"), TU_LIST("a"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_diag d;
    assert_int_equal(tu_analyze(&bytes, NULL, &m, &an, &d), OC_OK);
    assert_int_equal(an->graph->order[0], 1);
    assert_int_equal(an->graph->order[1], 0);
    TU_SHAPE(tu_out(an, "second", 0), 1, 4);
    tu_free(m, an, &bytes);
}

static void not_a_protobuf(void **state) {
    (void)state;
    struct pbw b = {0};
    pbw_raw(&b, "hello, this is not an onnx file\n", 32);
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_diag d;
    assert_int_not_equal(tu_analyze(&b, NULL, &m, &an, &d), OC_OK);
    assert_true(strlen(d.msg) > 0);
    tu_free(m, an, &b);
}

static void truncated_everywhere(void **state) {
    (void)state;
    struct pbw full = relu_model();
    int failed = 0;
    for (size_t cut = 1; cut < full.n; cut++) {
        struct oc_model *m = NULL;
        struct oc_analysis *an = NULL;
        struct oc_diag d = {0};
        enum oc_status st = oc_model_load_buffer(full.p, cut, NULL, &m, &d);
        if (st == OC_OK)
            st = oc_analyze(m, NULL, &an, &d);
        if (st != OC_OK) {
            failed++;
            assert_true(strlen(d.msg) > 0);
        }
        oc_analysis_free(an);
        oc_model_free(m);
    }
    /* nearly every prefix is invalid (a few end on a message boundary) */
    assert_true(failed > (int)full.n / 2);
    pbw_free(&full);
}

static void truncated_payload(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    pbm_init(&pm, pb_tensor_f32("w", 1, TU_DIMS(100000)));
    struct pbw bytes = pbm_finish(&pm, 13);
    bytes.n -= 50000; /* cut inside the weight payload */
    expect_error(&bytes, OC_ERR_PARSE, "runs past the end");
}

static void cycle(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    pbm_node(&pm, pb_node("a", "Add", TU_LIST("x", "b_out"), TU_LIST("a_out"), 0, NULL));
    pbm_node(&pm, pb_node("b", "Relu", TU_LIST("a_out"), TU_LIST("b_out"), 0, NULL));
    pbm_output(&pm, pb_value_info("b_out", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "cycle in graph: node 'a' (Add)");
}

static void dangling_input(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    pbm_node(&pm, pb_node("add", "Add", TU_LIST("x", "nope"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "node 'add' (Add): input 'nope' is not produced");
}

static void duplicate_output(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    pbm_node(&pm, pb_node("r1", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("r2", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "node 'r2' (Relu): output 'y' is also produced by node 'r1'");
}

static void negative_dim(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    struct pbw t = {0};
    pbw_int(&t, 1, -3);
    pbw_int(&t, 2, PB_FLOAT);
    pbw_str(&t, 8, "w");
    pbm_init(&pm, t);
    pbm_node(&pm, pb_node("r", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "initializer 'w' has negative dim -3");
}

static void wrong_attribute_type(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, 5, 5), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(2, 2, 3, 3)));
    struct pbw at[] = {pb_attr_float("group", 1.0f)};
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "node 'conv' (Conv): attribute 'group' has type FLOAT, expected INT");
}

static void channel_mismatch(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 3, 8, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(4, 2, 3, 3)));
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "node 'conv' (Conv): input has 3 channels but weight expects 2 x group 1");
}

static void arity(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 3, 8, 8), NULL));
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 13);
    expect_error(&bytes, OC_ERR_MODEL, "Conv-1 takes 2 to 3 inputs");
}

static void no_graph(void **state) {
    (void)state;
    struct pbw b = {0};
    pbw_int(&b, 1, 8); /* ir_version only */
    expect_error(&b, OC_ERR_MODEL, "no graph");
}

static void out_of_memory_paths(void **state) {
    (void)state;
    struct pbw full = relu_model();
    /* every allocation of the loader and of the analyzer fails in turn */
    for (int64_t k = 1; k < 400; k++) {
        struct oc_model *m = NULL;
        struct oc_analysis *an = NULL;
        struct oc_diag d = {0};
        struct oc_load_opts lo = {.fail_alloc_after = k};
        enum oc_status st = oc_model_load_buffer(full.p, full.n, &lo, &m, &d);
        if (st != OC_OK) {
            assert_int_equal(st, OC_ERR_NOMEM);
            continue;
        }
        struct oc_analyze_opts ao = {.fail_alloc_after = k};
        st = oc_analyze(m, &ao, &an, &d);
        assert_true(st == OC_OK || st == OC_ERR_NOMEM);
        oc_analysis_free(an);
        oc_model_free(m);
    }
    pbw_free(&full);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(payloads_are_skipped), cmocka_unit_test(external_data_counts_from_dims),
        cmocka_unit_test(unsorted_file),        cmocka_unit_test(not_a_protobuf),
        cmocka_unit_test(truncated_everywhere), cmocka_unit_test(truncated_payload),
        cmocka_unit_test(cycle),                cmocka_unit_test(dangling_input),
        cmocka_unit_test(duplicate_output),     cmocka_unit_test(negative_dim),
        cmocka_unit_test(wrong_attribute_type), cmocka_unit_test(channel_mismatch),
        cmocka_unit_test(arity),                cmocka_unit_test(no_graph),
        cmocka_unit_test(out_of_memory_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
