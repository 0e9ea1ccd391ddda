/*
 * test_rerun.c — oc_analysis_rerun() gives what a fresh analysis gives, on a
 * prepared analysis and on a fork (oc_analysis_fork).
 *
 * A sweep, the symbolic fit and the --fit search re-run one analysis at many
 * bindings instead of decoding the graph again. The model: x [batch, 8] ->
 * MatMul W [8, 16] -> Relu -> MatMul V [16, 4]; by hand, MACs = batch *
 * (8*16 + 16*4) = 192 * batch, parameters 8*16 + 16*4 = 192.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

static struct pbw model_bytes(void) {
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, 8), TU_LIST("batch", NULL)));
    pbm_init(&pm, pb_tensor_f32("W", 2, TU_DIMS(8, 16)));
    pbm_init(&pm, pb_tensor_f32("V", 2, TU_DIMS(16, 4)));
    pbm_node(&pm, pb_node("mm1", "MatMul", TU_LIST("x", "W"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("act", "Relu", TU_LIST("h"), TU_LIST("r"), 0, NULL));
    pbm_node(&pm, pb_node("mm2", "MatMul", TU_LIST("r", "V"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, 2, TU_DIMS(-1, 4), TU_LIST("batch", NULL)));
    return pbm_finish(&pm, 17);
}

static const struct oc_value *out_of(const struct oc_analysis *a, const char *node) {
    for (int32_t i = 0; i < a->graph->n_nodes; i++)
        if (strcmp(a->graph->nodes[i].name, node) == 0)
            return &a->graph->values[a->graph->nodes[i].out[0]];
    fail_msg("no node %s", node);
    return NULL;
}

static void rerun_matches_fresh(void **state) {
    (void)state;
    struct pbw bytes = model_bytes();
    struct oc_model *m = NULL;
    struct oc_diag d = {0};
    assert_int_equal(oc_model_load_buffer(bytes.p, bytes.n, NULL, &m, &d), OC_OK);
    struct oc_binding b = {"batch", 3};
    struct oc_analyze_opts o = {.dims = &b, .n_dims = 1};
    struct oc_analysis *an = NULL;
    assert_int_equal(oc_analysis_prepare(m, &o, &an, &d), OC_OK);
    assert_int_equal(oc_analysis_rerun(an, &o, &d), OC_OK);
    assert_int_equal(an->totals.macs, 192 * 3);
    assert_int_equal(an->totals.params, 192);
    TU_SHAPE(out_of(an, "mm1"), 3, 16);
    for (int64_t batch = 1; batch <= 40; batch += 13) {
        b.value = batch;
        assert_int_equal(oc_analysis_rerun(an, &o, &d), OC_OK);
        assert_int_equal(an->totals.macs, 192 * (uint64_t)batch);
        assert_int_equal(an->totals.flops, 2 * 192 * (uint64_t)batch + 16 * (uint64_t)batch); /* + Relu */
        assert_int_equal(an->totals.params, 192);
        assert_int_equal(an->n_bound, 1);
        assert_int_equal(an->n_warnings, 0);
        TU_SHAPE(out_of(an, "mm2"), batch, 4);
        /* and equal to a fresh analysis at the same binding */
        struct oc_analysis *fresh = NULL;
        struct oc_analyze_opts fo = {.dims = &b, .n_dims = 1};
        assert_int_equal(oc_analyze(m, &fo, &fresh, &d), OC_OK);
        assert_memory_equal(&fresh->totals, &an->totals, sizeof an->totals);
        oc_analysis_free(fresh);
    }
    /* a run that leaves batch unbound warns; the next run starts clean */
    struct oc_analyze_opts none = {0};
    assert_int_equal(oc_analysis_rerun(an, &none, &d), OC_OK);
    assert_int_equal(an->n_warnings, 1);
    assert_int_equal(an->totals.macs, 192);
    assert_int_equal(oc_analysis_rerun(an, &o, &d), OC_OK);
    assert_int_equal(an->n_warnings, 0);
    oc_analysis_free(an);
    oc_model_free(m);
    pbw_free(&bytes);
}

static void rerun_needs_rerunnable(void **state) {
    (void)state;
    struct pbw bytes = model_bytes();
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_diag d = {0};
    struct oc_analyze_opts o = {.batch = 2};
    assert_int_equal(tu_analyze(&bytes, &o, &m, &an, &d), OC_OK);
    assert_int_equal(oc_analysis_rerun(an, &o, &d), OC_ERR_USAGE);
    tu_free(m, an, &bytes);
}

/* keep_built: an analysis that left batch unbound keeps its graph as built;
 * a fork of it re-runs at other bindings to what a fresh analysis gives (by
 * hand: 192 * batch MACs), and leaves the base's own figures (batch taken as
 * 1) as they were. Without keep_built, or with every dim bound, there is
 * nothing to fork. */
static void fork_matches_fresh(void **state) {
    (void)state;
    struct pbw bytes = model_bytes();
    struct oc_model *m = NULL;
    struct oc_diag d = {0};
    assert_int_equal(oc_model_load_buffer(bytes.p, bytes.n, NULL, &m, &d), OC_OK);
    struct oc_analyze_opts keep = {.keep_built = true};
    struct oc_analysis *base = NULL, *fork = NULL, *plain = NULL, *bound = NULL;
    assert_int_equal(oc_analyze(m, &keep, &base, &d), OC_OK);
    assert_int_equal(base->totals.macs, 192);
    assert_int_equal(oc_analysis_fork(base, &fork, &d), OC_OK);
    struct oc_binding b = {"batch", 0};
    struct oc_analyze_opts o = {.dims = &b, .n_dims = 1};
    for (int64_t batch = 2; batch <= 40; batch += 19) {
        b.value = batch;
        assert_int_equal(oc_analysis_rerun(fork, &o, &d), OC_OK);
        assert_int_equal(fork->totals.macs, 192 * (uint64_t)batch);
        TU_SHAPE(out_of(fork, "mm1"), batch, 16);
        struct oc_analysis *fresh = NULL;
        assert_int_equal(oc_analyze(m, &o, &fresh, &d), OC_OK);
        assert_memory_equal(&fresh->totals, &fork->totals, sizeof fork->totals);
        oc_analysis_free(fresh);
    }
    assert_int_equal(base->totals.macs, 192);
    TU_SHAPE(out_of(base, "mm2"), 1, 4);
    oc_analysis_free(fork);
    assert_int_equal(oc_analyze(m, NULL, &plain, &d), OC_OK);
    assert_int_equal(oc_analysis_fork(plain, &fork, &d), OC_ERR_USAGE);
    assert_null(fork);
    b.value = 5;
    o.keep_built = true;
    assert_int_equal(oc_analyze(m, &o, &bound, &d), OC_OK);
    assert_int_equal(oc_analysis_fork(bound, &fork, &d), OC_ERR_USAGE);
    oc_analysis_free(bound);
    oc_analysis_free(plain);
    oc_analysis_free(base);
    oc_model_free(m);
    pbw_free(&bytes);
}

/* Every allocation of a re-run may fail: the error comes back and the
 * analysis can still be re-run to the right result afterwards. */
static void rerun_survives_allocation_failure(void **state) {
    (void)state;
    struct pbw bytes = model_bytes();
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_diag d = {0};
    struct oc_analyze_opts o = {.batch = 2};
    assert_int_equal(oc_model_load_buffer(bytes.p, bytes.n, NULL, &m, &d), OC_OK);
    assert_int_equal(oc_analysis_prepare(m, &o, &an, &d), OC_OK);
    assert_int_equal(oc_analysis_rerun(an, &o, &d), OC_OK);
    int failures = 0;
    for (int64_t k = 1; k < 200; k++) {
        struct oc_analyze_opts f = o;
        f.fail_alloc_after = k;
        enum oc_status st = oc_analysis_rerun(an, &f, &d);
        if (st == OC_OK)
            break;
        assert_int_equal(st, OC_ERR_NOMEM);
        failures++;
        assert_int_equal(oc_analysis_rerun(an, &o, &d), OC_OK);
        assert_int_equal(an->totals.macs, 2 * 192);
    }
    assert_true(failures > 3);
    tu_free(m, an, &bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rerun_matches_fresh),
        cmocka_unit_test(rerun_needs_rerunnable),
        cmocka_unit_test(fork_matches_fresh),
        cmocka_unit_test(rerun_survives_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
