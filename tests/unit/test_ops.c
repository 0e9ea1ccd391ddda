/*
 * test_ops.c — shape rules and cost formulas on small graphs built byte by
 * byte (pbw.h). Every expected number is worked out by hand in the comment
 * next to it from the ONNX spec and the conventions in docs/COSTS.md.
 */
#include "testutil.h"

static struct oc_analysis *an;
static struct oc_model *md;
static struct pbw bytes;
static struct oc_diag dg;

static void analyze(struct pb_model *pm, int64_t opset, const struct oc_analyze_opts *o) {
    bytes = pbm_finish(pm, opset);
    enum oc_status st = tu_analyze(&bytes, o, &md, &an, &dg);
    if (st != OC_OK)
        fail_msg("analysis failed: %s", dg.msg);
}

static int teardown(void **state) {
    (void)state;
    tu_free(md, an, &bytes);
    md = NULL;
    an = NULL;
    return 0;
}

static void conv_groups_dilation(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 8, 17, 17), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(16, 2, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(16)));
    struct pbw at[] = {pb_attr_int("group", 4), pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                       pb_attr_ints("dilations", 2, TU_DIMS(2, 2)), pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w", "b"), TU_LIST("y"), 4, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* span (3-1)*2+1 = 5; (17 + 1 + 1 - 5) / 2 + 1 = 8 */
    TU_SHAPE(tu_out(an, "conv", 0), 2, 16, 8, 8);
    const struct oc_node *n = tu_node(an, "conv");
    /* numel(Y) = 2*16*8*8 = 2048; MACs = 2048 * (8/4) * 3*3 = 36,864 */
    assert_int_equal(n->cost.macs, 36864);
    /* FLOPs = 2 * 36,864 + 2048 bias adds = 75,776 */
    assert_int_equal(n->cost.flops, 75776);
    /* params = 16*2*3*3 + 16 = 304 */
    assert_int_equal(n->params, 304);
    assert_int_equal(an->totals.params, 304);
    /* bytes: read X 2*8*17*17*4 = 18,496 + W 288*4 + B 16*4 = 19,712; written 2048*4 = 8,192 */
    assert_int_equal(n->cost.bytes_read, 19712);
    assert_int_equal(n->cost.bytes_written, 8192);
}

static void conv_same_upper(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 3, 224, 224), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(32, 3, 3, 3)));
    struct pbw at[] = {pb_attr_ints("strides", 2, TU_DIMS(2, 2)), pb_attr_str("auto_pad", "SAME_UPPER")};
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 11, NULL);
    TU_SHAPE(tu_out(an, "conv", 0), 1, 32, 112, 112);
    /* 32*112*112 = 401,408 outputs x 27 = 10,838,016 MACs, no bias: FLOPs = 2x */
    assert_int_equal(tu_node(an, "conv")->cost.macs, 10838016);
    assert_int_equal(tu_node(an, "conv")->cost.flops, 21676032);
}

static void pools(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 112, 112), NULL));
    struct pbw mp[] = {pb_attr_ints("kernel_shape", 2, TU_DIMS(3, 3)), pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                       pb_attr_int("ceil_mode", 1)};
    pbm_node(&pm, pb_node("mp", "MaxPool", TU_LIST("x"), TU_LIST("m"), 3, mp));
    struct pbw ap[] = {pb_attr_ints("kernel_shape", 2, TU_DIMS(2, 2)), pb_attr_ints("strides", 2, TU_DIMS(2, 2))};
    pbm_node(&pm, pb_node("ap", "AveragePool", TU_LIST("x"), TU_LIST("a"), 2, ap));
    pbm_node(&pm, pb_node("gap", "GlobalAveragePool", TU_LIST("x"), TU_LIST("g"), 0, NULL));
    pbm_output(&pm, pb_value_info("m", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* ceil((112 - 3) / 2) + 1 = 56 */
    TU_SHAPE(tu_out(an, "mp", 0), 1, 4, 56, 56);
    /* 4*56*56 = 12,544 outputs x (9 - 1) comparisons */
    assert_int_equal(tu_node(an, "mp")->cost.flops, 100352);
    TU_SHAPE(tu_out(an, "ap", 0), 1, 4, 56, 56);
    /* 12,544 x 4 (3 adds + 1 divide) */
    assert_int_equal(tu_node(an, "ap")->cost.flops, 50176);
    TU_SHAPE(tu_out(an, "gap", 0), 1, 4, 1, 1);
    /* numel(X) = 4*112*112 = 50,176 */
    assert_int_equal(tu_node(an, "gap")->cost.flops, 50176);
    assert_int_equal(an->totals.macs, 0);
}

static void gemm_trans(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(4, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("b", 2, TU_DIMS(5, 4)));
    pbm_init(&pm, pb_tensor_f32("c", 1, TU_DIMS(5)));
    struct pbw at[] = {pb_attr_int("transA", 1), pb_attr_int("transB", 1), pb_attr_float("alpha", 0.5f)};
    pbm_node(&pm, pb_node("gemm", "Gemm", TU_LIST("a", "b", "c"), TU_LIST("y"), 3, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* A' = [3, 4], B' = [4, 5]: Y [3, 5] */
    TU_SHAPE(tu_out(an, "gemm", 0), 3, 5);
    const struct oc_node *n = tu_node(an, "gemm");
    /* M*N*K = 3*5*4 = 60 MACs; FLOPs 120 + 15 (alpha) + 15 (add C) */
    assert_int_equal(n->cost.macs, 60);
    assert_int_equal(n->cost.flops, 150);
    assert_int_equal(n->params, 25);
}

static void matmul_broadcast(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 4, TU_DIMS(2, 1, 4, 8), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 3, TU_DIMS(3, 8, 5), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 1, TU_DIMS(8), NULL));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("a", "b"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("mv", "MatMul", TU_LIST("v", "b"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* batch (2,1) x (3) -> (2,3); Y [2, 3, 4, 5]; MACs 2*3*4*5*8 = 960 */
    TU_SHAPE(tu_out(an, "mm", 0), 2, 3, 4, 5);
    assert_int_equal(tu_node(an, "mm")->cost.macs, 960);
    assert_int_equal(tu_node(an, "mm")->cost.flops, 1920);
    /* [8] x [3, 8, 5]: promoted [1, 8], result [3, 5]; MACs 3*5*8 = 120 */
    TU_SHAPE(tu_out(an, "mv", 0), 3, 5);
    assert_int_equal(tu_node(an, "mv")->cost.macs, 120);
}

static void reshape_flatten(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 3, 4, 5), NULL));
    pbm_init(&pm, pb_tensor_i64("s_raw", 1, TU_DIMS(3), TU_DIMS(0, -1, 5)));
    pbm_init(&pm, pb_tensor_i64_packed("s_packed", 1, TU_DIMS(2), TU_DIMS(-1, 4)));
    pbm_node(&pm, pb_node("r1", "Reshape", TU_LIST("x", "s_raw"), TU_LIST("y1"), 0, NULL));
    pbm_node(&pm, pb_node("r2", "Reshape", TU_LIST("x", "s_packed"), TU_LIST("y2"), 0, NULL));
    struct pbw fa[] = {pb_attr_int("axis", 2)};
    pbm_node(&pm, pb_node("fl", "Flatten", TU_LIST("x"), TU_LIST("y3"), 1, fa));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* [0 -> 2, -1 -> 120 / (2*5) = 12, 5] */
    TU_SHAPE(tu_out(an, "r1", 0), 2, 12, 5);
    /* [-1 -> 120 / 4 = 30, 4] */
    TU_SHAPE(tu_out(an, "r2", 0), 30, 4);
    /* [2*3, 4*5] */
    TU_SHAPE(tu_out(an, "fl", 0), 6, 20);
    /* views move no bytes and cost nothing */
    assert_int_equal(tu_node(an, "r1")->cost.bytes_read, 0);
    assert_int_equal(tu_node(an, "r1")->cost.flops, 0);
    /* integer initializers are not parameters */
    assert_int_equal(an->totals.params, 0);
}

static void shape_arithmetic_chain(void **state) {
    (void)state;
    struct pb_model pm = {0};
    const char *syms[] = {"batch", NULL, NULL};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(-1, 3, 4), syms));
    pbm_init(&pm, pb_tensor_i64("zero", 0, NULL, TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("ax0", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("minus1", 1, TU_DIMS(1), TU_DIMS(-1)));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("gather", "Gather", TU_LIST("s", "zero"), TU_LIST("n"), 0, NULL));
    pbm_node(&pm, pb_node("unsq", "Unsqueeze", TU_LIST("n", "ax0"), TU_LIST("n1"), 0, NULL));
    struct pbw ca[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("n1", "minus1"), TU_LIST("target"), 1, ca));
    pbm_node(&pm, pb_node("resh", "Reshape", TU_LIST("x", "target"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct oc_analyze_opts o = {.batch = 6};
    analyze(&pm, 13, &o);
    TU_SHAPE(tu_out(an, "shape", 0), 3);
    assert_int_equal(tu_out(an, "gather", 0)->rank, 0); /* scalar */
    /* target = [6, -1] -> [6, 12] */
    TU_SHAPE(tu_out(an, "resh", 0), 6, 12);
    const struct oc_value *t = tu_out(an, "cat", 0);
    assert_non_null(t->ival);
    assert_int_equal(t->ival[0], 6);
    assert_int_equal(t->ival[1], -1);
    assert_int_equal(an->n_warnings, 0);
    assert_int_equal(an->n_bound, 1);
    assert_int_equal(an->bound[0].value, 6);
    assert_int_equal(an->bound[0].source, OC_BIND_BATCH);
}

static void layout_ops(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    pbm_input(&pm, pb_value_info("z", PB_FLOAT, 3, TU_DIMS(2, 5, 3), NULL));
    pbm_input(&pm, pb_value_info("u", PB_FLOAT, 3, TU_DIMS(1, 2, 3), NULL));
    pbm_input(&pm, pb_value_info("p", PB_FLOAT, 4, TU_DIMS(1, 1, 5, 5), NULL));
    pbm_init(&pm, pb_tensor_i64("ax", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("pads", 1, TU_DIMS(8), TU_DIMS(0, 0, 1, 2, 0, 0, 3, 4)));
    struct pbw tp[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))};
    pbm_node(&pm, pb_node("tr", "Transpose", TU_LIST("x"), TU_LIST("xt"), 1, tp));
    struct pbw ca[] = {pb_attr_int("axis", -2)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("xt", "z"), TU_LIST("c"), 1, ca));
    pbm_node(&pm, pb_node("sq", "Squeeze", TU_LIST("u", "ax"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("pad", "Pad", TU_LIST("p", "pads"), TU_LIST("pp"), 0, NULL));
    pbm_output(&pm, pb_value_info("c", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "tr", 0), 2, 4, 3);
    /* axis -2 of rank 3 = 1: 4 + 5 */
    TU_SHAPE(tu_out(an, "cat", 0), 2, 9, 3);
    TU_SHAPE(tu_out(an, "sq", 0), 2, 3);
    /* H 5 + 1 + 3 = 9, W 5 + 2 + 4 = 11 */
    TU_SHAPE(tu_out(an, "pad", 0), 1, 1, 9, 11);
}

static void unsqueeze_attr_form(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    struct pbw ua[] = {pb_attr_ints("axes", 2, TU_DIMS(0, 3))};
    pbm_node(&pm, pb_node("un", "Unsqueeze", TU_LIST("x"), TU_LIST("y"), 1, ua));
    struct pbw sa[] = {pb_attr_ints("axes", 1, TU_DIMS(0))};
    pbm_node(&pm, pb_node("sq", "Squeeze", TU_LIST("y"), TU_LIST("z"), 1, sa));
    pbm_output(&pm, pb_value_info("z", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 11, NULL); /* opset 11: axes are attributes */
    TU_SHAPE(tu_out(an, "un", 0), 1, 2, 3, 1);
    TU_SHAPE(tu_out(an, "sq", 0), 2, 3, 1);
}

static void shared_weight_through_identity(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 10), NULL));
    pbm_input(&pm, pb_value_info("x2", PB_FLOAT, 2, TU_DIMS(2, 10), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(10, 4)));
    pbm_node(&pm, pb_node("id", "Identity", TU_LIST("w"), TU_LIST("w2"), 0, NULL));
    pbm_node(&pm, pb_node("mm1", "MatMul", TU_LIST("x", "w2"), TU_LIST("y1"), 0, NULL));
    pbm_node(&pm, pb_node("mm2", "MatMul", TU_LIST("x2", "w"), TU_LIST("y2"), 0, NULL));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("y2", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* 40 parameters, counted once, shown on the first computing consumer */
    assert_int_equal(an->totals.params, 40);
    assert_int_equal(tu_node(an, "id")->params, 0);
    assert_int_equal(tu_node(an, "mm1")->params, 40);
    assert_int_equal(tu_node(an, "mm2")->params, 0);
    assert_true(tu_node(an, "mm2")->shares_params);
    /* MACs 3*4*10 + 2*4*10 */
    assert_int_equal(an->totals.macs, 200);
}

static void batchnorm_buffers(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 4, 3, 3), NULL));
    const char *names[] = {"scale", "bias", "mean", "var"};
    for (int i = 0; i < 4; i++)
        pbm_init(&pm, pb_tensor_f32(names[i], 1, TU_DIMS(4)));
    pbm_node(&pm, pb_node("bn", "BatchNormalization", TU_LIST("x", "scale", "bias", "mean", "var"), TU_LIST("y"), 0,
                          NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 15, NULL);
    TU_SHAPE(tu_out(an, "bn", 0), 2, 4, 3, 3);
    assert_int_equal(an->totals.params, 16);
    assert_int_equal(an->totals.non_trainable_params, 8);
    assert_int_equal(an->totals.trainable_params, 8);
    /* 2 FLOPs per element: 2*4*3*3 = 72 elements */
    assert_int_equal(tu_node(an, "bn")->cost.flops, 144);
}

static void softmax_costs(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 10), NULL));
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("lsm", "LogSoftmax", TU_LIST("x"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* 5 per element: 100; LogSoftmax 5*20 + one log per row (2 rows) = 102 */
    assert_int_equal(tu_node(an, "sm")->cost.flops, 100);
    assert_int_equal(tu_node(an, "lsm")->cost.flops, 102);
}

static void unknown_op_uses_value_info(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 7), NULL));
    pbm_node(&pm, pb_node_dom("foo", "com.example", "Foo", TU_LIST("x"), TU_LIST("f"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("f"), TU_LIST("r"), 0, NULL));
    pbm_node(&pm, pb_node_dom("bar", "com.example", "Bar", TU_LIST("r"), TU_LIST("b"), 0, NULL));
    pbm_node(&pm, pb_node("relu2", "Relu", TU_LIST("b"), TU_LIST("r2"), 0, NULL));
    pbm_value_info(&pm, pb_value_info("f", PB_FLOAT, 2, TU_DIMS(1, 7), NULL));
    pbm_output(&pm, pb_value_info("r2", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 13, NULL);
    /* Foo: declared shape used; Relu after it is shaped and costed */
    assert_int_equal(tu_node(an, "foo")->status, OC_ERR_UNSUPPORTED);
    TU_SHAPE(tu_out(an, "relu", 0), 1, 7);
    assert_int_equal(tu_node(an, "relu")->cost.flops, 7);
    /* Bar: nothing declared, so Bar and the Relu after it stay unknown */
    assert_int_equal(tu_out(an, "relu2", 0)->rank, -1);
    assert_int_equal(tu_node(an, "relu2")->status, OC_ERR_SHAPE);
    assert_int_equal(an->totals.n_nodes, 4);
    assert_int_equal(an->totals.n_shaped, 2);
    assert_int_equal(an->totals.n_no_rule, 2);
    assert_int_equal(an->n_unsupported, 2);
    assert_string_equal(an->unsupported[0].domain, "com.example");
}

static void bindings(void **state) {
    (void)state;
    const char *syms[] = {"batch", "seq"};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, -1), syms));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct oc_binding b[] = {{"seq", 128}, {"nosuch", 3}};
    struct oc_analyze_opts o = {.dims = b, .n_dims = 2};
    analyze(&pm, 13, &o);
    /* batch unbound -> 1 with a warning; seq bound; nosuch reported */
    TU_SHAPE(tu_out(an, "relu", 0), 1, 128);
    assert_int_equal(an->n_warnings, 2);
    assert_non_null(strstr(an->warnings[0], "'batch'"));
    assert_non_null(strstr(an->warnings[1], "nosuch"));
    assert_string_equal(tu_out(an, "relu", 0)->dims[1].sym, "seq");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(conv_groups_dilation, teardown),
        cmocka_unit_test_teardown(conv_same_upper, teardown),
        cmocka_unit_test_teardown(pools, teardown),
        cmocka_unit_test_teardown(gemm_trans, teardown),
        cmocka_unit_test_teardown(matmul_broadcast, teardown),
        cmocka_unit_test_teardown(reshape_flatten, teardown),
        cmocka_unit_test_teardown(shape_arithmetic_chain, teardown),
        cmocka_unit_test_teardown(layout_ops, teardown),
        cmocka_unit_test_teardown(unsqueeze_attr_form, teardown),
        cmocka_unit_test_teardown(shared_weight_through_identity, teardown),
        cmocka_unit_test_teardown(batchnorm_buffers, teardown),
        cmocka_unit_test_teardown(softmax_costs, teardown),
        cmocka_unit_test_teardown(unknown_op_uses_value_info, teardown),
        cmocka_unit_test_teardown(bindings, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
