/*
 * test_limits.c — the load limits (nodes, rank, subgraph depth) through the
 * library API, and the escaping every diagnostic goes through (issue 9).
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "model.h"

#include <stdio.h>

/* A chain of n Relu nodes. */
static struct pbw chain(int n) {
    struct pb_model pm = {0};
    char in[32], out[32];
    pbm_input(&pm, pb_value_info("t0", PB_FLOAT, 2, TU_DIMS(1, 4), NULL));
    for (int i = 0; i < n; i++) {
        snprintf(in, sizeof in, "t%d", i);
        snprintf(out, sizeof out, "t%d", i + 1);
        char name[32];
        snprintf(name, sizeof name, "r%d", i);
        pbm_node(&pm, pb_node(name, "Relu", TU_LIST(in), TU_LIST(out), 0, NULL));
    }
    pbm_output(&pm, pb_value_info(out, PB_FLOAT, -1, NULL, NULL));
    return pbm_finish(&pm, 13);
}

static enum oc_status load(struct pbw *b, struct oc_limits lim, struct oc_model **m, struct oc_diag *d) {
    struct oc_load_opts lo = {.limits = lim};
    memset(d, 0, sizeof *d);
    return oc_model_load_buffer(b->p, b->n, &lo, m, d);
}

static void node_limit(void **state) {
    (void)state;
    struct pbw b = chain(10);
    struct oc_model *m = NULL;
    struct oc_diag d;
    assert_int_equal(load(&b, (struct oc_limits){.max_nodes = 9}, &m, &d), OC_ERR_UNSUPPORTED);
    assert_null(m);
    assert_string_equal(d.msg, "node 'r9' (Relu): the model has more than 9 nodes (--limit-nodes N raises the limit)");
    assert_int_equal(load(&b, (struct oc_limits){.max_nodes = 10}, &m, &d), OC_OK);
    assert_int_equal(oc_model_limits(m)->max_nodes, 10);
    assert_int_equal(oc_model_limits(m)->max_rank, OC_DEFAULT_MAX_RANK);
    assert_int_equal(oc_model_limits(m)->max_subgraph_depth, OC_DEFAULT_MAX_SUBGRAPH_DEPTH);
    oc_model_free(m);
    pbw_free(&b);
}

static void rank_limit(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 5, TU_DIMS(1, 1, 1, 1, 4), NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct pbw b = pbm_finish(&pm, 13);
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_diag d;
    assert_int_equal(load(&b, (struct oc_limits){.max_rank = 4}, &m, &d), OC_OK);
    assert_int_equal(oc_analyze(m, NULL, &an, &d), OC_ERR_UNSUPPORTED);
    assert_string_equal(d.msg, "graph input 'x' has rank 5 (limit 4; --limit-rank N raises it)");
    oc_model_free(m);
    assert_int_equal(load(&b, (struct oc_limits){.max_rank = 5}, &m, &d), OC_OK);
    assert_int_equal(oc_analyze(m, NULL, &an, &d), OC_OK);
    oc_analysis_free(an);
    oc_model_free(m);
    pbw_free(&b);
}

static void printable(void **state) {
    (void)state;
    char out[64];
    oc_printable("a\x1b[2Jb\xff\xc3\xa9\xc2\x9b\x7f\n", out, sizeof out);
    assert_string_equal(out, "a\\x1b[2Jb\\xff\xc3\xa9\\xc2\\x9b\\x7f\\x0a");
    /* cut at a whole escape, never inside one */
    oc_printable("\x01\x02\x03", out, 9);
    assert_string_equal(out, "\\x01\\x02");
    assert_int_equal(oc_utf8_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
    assert_int_equal(oc_utf8_len((const unsigned char *)"\xe2\x82", 2), 0);     /* truncated */
    assert_int_equal(oc_utf8_len((const unsigned char *)"\xc0\xaf", 2), 0);     /* overlong */
    assert_int_equal(oc_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0); /* surrogate */
    struct oc_diag d = {0};
    oc_diag_set(&d, OC_ERR_MODEL, "node '%s'", "x\x1b]0;t\x07");
    assert_string_equal(d.msg, "node 'x\\x1b]0;t\\x07'");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_limit),
        cmocka_unit_test(rank_limit),
        cmocka_unit_test(printable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
