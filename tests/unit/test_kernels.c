/*
 * test_kernels.c — kernel families, their features and the tables'
 * interpolation (views/perf/kernels.h), and a node's time taken from a table
 * (views/perf/node.c). Features are worked out by hand from the shapes written
 * here; interpolated times from the formula in kernels.h with the samples
 * written here as literals.
 */
#include "testutil.h"

#include "dtype.h"
#include "perf/perf.h"
#include "perf/kernels.h"

#include <math.h>

static const struct oc_kfixed NO_FIXED = {0, 0}; /* a GPU table's: nothing beside the work */

static void near(double got, double want, const char *what) {
    if (!(fabs(got - want) <= 1e-9 * fabs(want)))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static const struct oc_node *node(const char *name) {
    for (int32_t i = 0; i < an->graph->n_nodes; i++)
        if (strcmp(an->graph->nodes[i].name, name) == 0)
            return &an->graph->nodes[i];
    fail_msg("no node %s", name);
    return NULL;
}

/* each named node's oc_kernel_runs equals want */
static void runs_are(const char *const *names, const double *want, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (oc_kernel_runs(an->graph, node(names[k])) != want[k])
            fail_msg("%s: %g runs, want %g", names[k], oc_kernel_runs(an->graph, node(names[k])), want[k]);
}

/* x [2, 16, 8, 8] through a dense 3x3 (pads 1), a strided 3x3, a 1x1, a
 * depthwise 3x3 and a grouped 3x3; y = Relu(1x1); a MatMul [2, 3, 10] x [10, 7] */
static void families(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 16, 8, 8), NULL));
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 3, TU_DIMS(2, 3, 10), NULL));
    pbm_init(&pm, pb_tensor_f32("w3", 4, TU_DIMS(32, 16, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("w1", 4, TU_DIMS(24, 16, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("wd", 4, TU_DIMS(16, 1, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("wg", 4, TU_DIMS(16, 4, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("ws", 4, TU_DIMS(16, 1, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("b", 2, TU_DIMS(10, 7)));
    struct pbw p1[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("dense", "Conv", TU_LIST("x", "w3"), TU_LIST("y3"), 1, p1));
    struct pbw s2[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1)), pb_attr_ints("strides", 2, TU_DIMS(2, 2))};
    pbm_node(&pm, pb_node("strided", "Conv", TU_LIST("x", "w3"), TU_LIST("ys"), 2, s2));
    pbm_node(&pm, pb_node("pointwise", "Conv", TU_LIST("x", "w1"), TU_LIST("y1"), 0, NULL));
    struct pbw dw[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1)), pb_attr_int("group", 16)};
    pbm_node(&pm, pb_node("depthwise", "Conv", TU_LIST("x", "wd"), TU_LIST("yd"), 2, dw));
    struct pbw gr[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1)), pb_attr_int("group", 4)};
    pbm_node(&pm, pb_node("grouped", "Conv", TU_LIST("x", "wg"), TU_LIST("yg"), 2, gr));
    struct pbw sc[] = {pb_attr_int("group", 16)};
    pbm_node(&pm, pb_node("scale", "Conv", TU_LIST("x", "ws"), TU_LIST("yc"), 1, sc));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("y1"), TU_LIST("r"), 0, NULL));
    struct pbw lrn[] = {pb_attr_int("size", 5)};
    pbm_node(&pm, pb_node("lrn", "LRN", TU_LIST("y1"), TU_LIST("l"), 1, lrn));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("a", "b"), TU_LIST("m"), 0, NULL));
    const char *outs[] = {"y3", "ys", "yd", "yg", "yc", "r", "l", "m"};
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++)
        pbm_output(&pm, pb_value_info(outs[k], PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_kfeat f;
    /* dense 3x3 stride 1: pixels 2 x 8 x 8, C_out 32, reduction 16 x 9; work = FLOPs = 2 x 128 x 32 x 144 */
    oc_kernel_features(an->graph, node("dense"), false, &f);
    assert_int_equal(f.family, OC_KF_CONV_3X3);
    near(f.x[0], 128, "pixels");
    near(f.x[1], 32, "c_out");
    near(f.x[2], 144, "reduction");
    near(f.work, 2.0 * 128 * 32 * 144, "work");
    /* strided: another dense family, pixels 2 x 4 x 4 */
    oc_kernel_features(an->graph, node("strided"), false, &f);
    assert_int_equal(f.family, OC_KF_CONV_KXK);
    near(f.x[0], 32, "strided pixels");
    oc_kernel_features(an->graph, node("pointwise"), false, &f);
    assert_int_equal(f.family, OC_KF_CONV_1X1);
    near(f.x[2], 16, "1x1 reduction");
    /* depthwise: reduction = the kernel's 9 taps; grouped: 16 / 4 x 9 */
    oc_kernel_features(an->graph, node("depthwise"), false, &f);
    assert_int_equal(f.family, OC_KF_CONV_DEPTHWISE);
    near(f.x[2], 9, "depthwise reduction");
    oc_kernel_features(an->graph, node("grouped"), false, &f);
    assert_int_equal(f.family, OC_KF_CONV_GROUPED);
    near(f.x[2], 36, "grouped reduction");
    /* a 1x1 depthwise convolution (a per-channel scale: ONNX Runtime's NCHWc
       BatchNormalization) is elementwise: its bytes, x [2, 16, 8, 8] and 16
       weights read, the same shape written */
    oc_kernel_features(an->graph, node("scale"), false, &f);
    assert_int_equal(f.family, OC_KF_ELTWISE);
    assert_string_equal(f.op, "Conv");
    near(f.x[0], (2.0 * 2048 + 16) * 4, "scale bytes");
    /* Relu over [2, 24, 8, 8] floats: 3,072 elements read and written, 4 bytes each */
    oc_kernel_features(an->graph, node("relu"), false, &f);
    assert_int_equal(f.family, OC_KF_ELTWISE);
    near(f.x[0], 2.0 * 3072 * 4, "relu bytes");
    near(f.work, 2.0 * 3072 * 4, "relu work");
    /* LRN: a window over the channels, a reduction kind; its bytes those of a
       [2, 24, 8, 8] read and written */
    oc_kernel_features(an->graph, node("lrn"), false, &f);
    assert_int_equal(f.family, OC_KF_REDUCE);
    near(f.x[0], 2.0 * 3072 * 4, "lrn bytes");
    /* MatMul: M = 2 x 3 (batch dims folded), N 7, K 10 */
    oc_kernel_features(an->graph, node("mm"), false, &f);
    assert_int_equal(f.family, OC_KF_GEMM);
    near(f.x[0], 6, "m");
    near(f.x[1], 7, "n");
    near(f.x[2], 10, "k");
}

/* Gemm with transA (A [10, 5] read as its transpose, B [10, 7]): M 5, N 7,
 * K 10, A's first dim; ONNX Runtime's FusedMatMul (com.microsoft) with
 * transA (A [2, 10, 3], B [10, 4]): M 2 x 3, N 4, K 10, A's second-last dim */
static void gemm_transposes(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(10, 5), NULL));
    pbm_input(&pm, pb_value_info("f", PB_FLOAT, 3, TU_DIMS(2, 10, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("b", 2, TU_DIMS(10, 7)));
    pbm_init(&pm, pb_tensor_f32("c", 2, TU_DIMS(10, 4)));
    struct pbw ta[] = {pb_attr_int("transA", 1)};
    pbm_node(&pm, pb_node("gemm", "Gemm", TU_LIST("a", "b"), TU_LIST("g"), 1, ta));
    struct pbw tf[] = {pb_attr_int("transA", 1)};
    pbm_node(&pm, pb_node_dom("fused", "com.microsoft", "FusedMatMul", TU_LIST("f", "c"), TU_LIST("m"), 1, tf));
    pbm_output(&pm, pb_value_info("g", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("m", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_bytes_ok(pbm_finish_ms(&pm, 17, 1), NULL);
    struct oc_kfeat f;
    oc_kernel_features(an->graph, node("gemm"), false, &f);
    assert_int_equal(f.family, OC_KF_GEMM);
    near(f.x[0], 5, "gemm m");
    near(f.x[1], 7, "gemm n");
    near(f.x[2], 10, "gemm k (transA: A's first dim)");
    oc_kernel_features(an->graph, node("fused"), false, &f);
    assert_int_equal(f.family, OC_KF_GEMM);
    near(f.x[0], 6, "FusedMatMul m");
    near(f.x[1], 4, "FusedMatMul n");
    near(f.x[2], 10, "FusedMatMul k (transA: A's second-last dim)");
}

/* Runs in older and variadic forms: Softmax before opset 13 flattens the
 * axes from `axis` on into one row, so r [4, 6, 8] at axis 1 (given, and as
 * the default of those opsets) runs 4 rows, at axis 2 runs 24; a Sum of
 * three inputs is not the two-input broadcast loop: one run. */
static void kernel_runs_older_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 3, TU_DIMS(4, 6, 8), NULL));
    struct pbw one[] = {pb_attr_int("axis", 1)}, two[] = {pb_attr_int("axis", 2)};
    pbm_node(&pm, pb_node("soft_1", "Softmax", TU_LIST("r"), TU_LIST("y1"), 1, one));
    pbm_node(&pm, pb_node("soft_default", "Softmax", TU_LIST("r"), TU_LIST("y2"), 0, NULL));
    pbm_node(&pm, pb_node("soft_2", "Softmax", TU_LIST("r"), TU_LIST("y3"), 1, two));
    pbm_node(&pm, pb_node("sum3", "Sum", TU_LIST("r", "r", "r"), TU_LIST("y4"), 0, NULL));
    const char *outs[] = {"y1", "y2", "y3", "y4"};
    for (size_t k = 0; k < 4; k++)
        pbm_output(&pm, pb_value_info(outs[k], PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    const char *names[] = {"soft_1", "soft_default", "soft_2", "sum3"};
    const double want[] = {4, 4, 24, 1};
    runs_are(names, want, 4);
}

/* The graph ONNX Runtime ran on a CPU after its NCHWc rewrite (it holds a
 * com.microsoft.nchwc node): a depthwise 3x3 on 24 channels, no multiple
 * of the block, stayed in the default domain and runs MLAS's grouped path
 * (the grouped family, reduction the 9 taps); without the rewrite (the
 * same node on 32 channels in the default domain) both are depthwise. */
static void depthwise_outside_nchwc(void **state) {
    (void)state;
    for (int rewritten = 0; rewritten < 2; rewritten++) {
        struct pb_model pm = {0};
        pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 24, 8, 8), NULL));
        pbm_input(&pm, pb_value_info("z", PB_FLOAT, 4, TU_DIMS(1, 32, 8, 8), NULL));
        pbm_init(&pm, pb_tensor_f32("wd", 4, TU_DIMS(24, 1, 3, 3)));
        pbm_init(&pm, pb_tensor_f32("wz", 4, TU_DIMS(32, 1, 3, 3)));
        struct pbw dw[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1)), pb_attr_int("group", 24)};
        pbm_node(&pm, pb_node("plain", "Conv", TU_LIST("x", "wd"), TU_LIST("yd"), 2, dw));
        struct pbw dz[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1)), pb_attr_int("group", 32)};
        if (rewritten)
            pbm_node(&pm, pb_node_dom("blocked", "com.microsoft.nchwc", "Conv", TU_LIST("z", "wz"), TU_LIST("yz"), 2,
                                      dz));
        else
            pbm_node(&pm, pb_node("blocked", "Conv", TU_LIST("z", "wz"), TU_LIST("yz"), 2, dz));
        pbm_output(&pm, pb_value_info("yd", PB_FLOAT, -1, NULL, NULL));
        pbm_output(&pm, pb_value_info("yz", PB_FLOAT, -1, NULL, NULL));
        tu_analyze_ok(&pm, 17, NULL);
        assert_true(oc_graph_nchwc(an->graph) == (rewritten != 0));
        struct oc_kfeat f;
        oc_kernel_features(an->graph, node("plain"), oc_graph_nchwc(an->graph), &f);
        assert_int_equal(f.family, rewritten ? OC_KF_CONV_GROUPED : OC_KF_CONV_DEPTHWISE);
        near(f.x[2], 9, "reduction");
        if (!rewritten) {
            oc_kernel_features(an->graph, node("blocked"), oc_graph_nchwc(an->graph), &f);
            assert_int_equal(f.family, OC_KF_CONV_DEPTHWISE);
        }
        tu_free(md, an, &bytes);
        md = NULL;
        an = NULL;
    }
}

/* Interpolation in log2 feature space: one sample gives its own
 * efficiency; two at equal distance their geometric mean; beyond the
 * radius nothing. */
static void interpolation(void **state) {
    (void)state;
    struct oc_ksample one[] = {{{64, 64, 64}, 1e9, 1e-3}}; /* 1e12 FLOP/s */
    struct oc_ktable t = {OC_KF_GEMM, OC_DT_FLOAT, OC_MATH_FP32, NULL, 0, 1, one, 0};
    struct oc_kfeat f = {OC_KF_GEMM, {128, 64, 64}, 4e9, NULL};
    double s;
    bool ex = true;
    assert_true(oc_ktable_time(&t, &f, &s, &ex));
    near(s, 4e9 / 1e12, "one sample: work / its efficiency");
    assert_false(ex); /* one log2 unit away: not past it */
    /* 3 log2 units away in one feature: past the radius of 2 */
    struct oc_kfeat far = {OC_KF_GEMM, {512, 64, 64}, 1e9, NULL};
    assert_false(oc_ktable_time(&t, &far, &s, NULL));
    /* 1.5 units away: inside, and extrapolated */
    struct oc_kfeat mid = {OC_KF_GEMM, {64 * 2.8284271247461903, 64, 64}, 1e9, NULL};
    assert_true(oc_ktable_time(&t, &mid, &s, &ex));
    assert_true(ex);
    /* two samples at 32 and 128 (efficiencies 1e12 and 4e12), the query at 64:
       both one unit away, equal weights: exp(mean of ln) = 2e12 */
    struct oc_ksample two[] = {{{32, 64, 64}, 1e9, 1e-3}, {{128, 64, 64}, 4e9, 1e-3}};
    struct oc_ktable t2 = {OC_KF_GEMM, OC_DT_FLOAT, OC_MATH_FP32, NULL, 0, 2, two, 0};
    struct oc_kfeat q = {OC_KF_GEMM, {64, 64, 64}, 2e9, NULL};
    assert_true(oc_ktable_time(&t2, &q, &s, NULL));
    near(s, 2e9 / 2e12, "two samples: their geometric mean");
    /* weights 1 / (d + 0.25)^2: at 32 (d 0) and 128 (d 2), the query at 32:
       w = 16 and 1 / 5.0625; ln eff = (16 ln 1e12 + ln 4e12 / 5.0625) / (16 + 1 / 5.0625) */
    struct oc_kfeat at = {OC_KF_GEMM, {32, 64, 64}, 1e9, NULL};
    assert_true(oc_ktable_time(&t2, &at, &s, NULL));
    double w0 = 16.0, w1 = 1.0 / 5.0625;
    double eff = exp((w0 * log(1e12) + w1 * log(4e12)) / (w0 + w1));
    near(s, 1e9 / eff, "weights 1 / (d + 0.25)^2");
    /* a memory-bound table finds any math; a product's only its own */
    struct oc_ktable ts[] = {t, {OC_KF_ELTWISE, OC_DT_FLOAT16, 0, NULL, 0, 1, one, 0}};
    struct oc_ktables all = {NULL, 2, ts};
    assert_non_null(oc_ktable_find(&all, OC_KF_GEMM, OC_DT_FLOAT, OC_MATH_FP32, NULL, 0));
    assert_null(oc_ktable_find(&all, OC_KF_GEMM, OC_DT_FLOAT, OC_MATH_TF32, NULL, 0));
    assert_null(oc_ktable_find(&all, OC_KF_GEMM, OC_DT_FLOAT16, OC_MATH_FP32, NULL, 0));
    assert_non_null(oc_ktable_find(&all, OC_KF_ELTWISE, OC_DT_FLOAT16, OC_MATH_FP16, NULL, 0));
    assert_null(oc_ktable_find(&all, OC_KF_ELTWISE, OC_DT_FLOAT16, OC_MATH_FP16, "Add", 0));
}

/* Memory-bound ops: a node reads its op's own table when that holds K
 * samples and one within the radius; else every table of its family
 * together (a rare op's few samples shrink toward the family's). */
static void op_tables(void **state) {
    (void)state;
    /* Transpose at 1 GB/s over four sizes; Add at 10 GB/s over four; Gather
       one sample at 100 GB/s */
    struct oc_ksample tr[] = {{{1e3}, 1e3, 1e-6}, {{4e3}, 4e3, 4e-6}, {{16e3}, 16e3, 16e-6}, {{64e3}, 64e3, 64e-6}};
    struct oc_ksample add[] = {{{1e3}, 1e3, 1e-7}, {{4e3}, 4e3, 4e-7}, {{16e3}, 16e3, 16e-7}, {{64e3}, 64e3, 64e-7}};
    struct oc_ksample ga[] = {{{8e3}, 8e3, 8e-8}};
    char t_op[] = "Transpose", a_op[] = "Add", g_op[] = "Gather";
    struct oc_ktable ts[] = {{OC_KF_MOVE, OC_DT_FLOAT, 0, t_op, 0, 4, tr, 0},
                             {OC_KF_ELTWISE, OC_DT_FLOAT, 0, a_op, 0, 4, add, 0},
                             {OC_KF_MOVE, OC_DT_FLOAT, 0, g_op, 0, 1, ga, 0}};
    struct oc_ktables all = {NULL, 3, ts};
    double s;
    /* a Transpose of 8e3 bytes: its own table, 1 GB/s */
    struct oc_kfeat t8 = {OC_KF_MOVE, {8e3}, 8e3, "Transpose"};
    assert_true(oc_ktables_time(&all, &t8, OC_DT_FLOAT, OC_MATH_FP32, 0, NO_FIXED, &s, NULL));
    near(s, 8e-6, "the op's own table");
    /* a Gather: one sample of its own, so the move family's five samples:
       its own at d 0 (weight 16) and the Transposes at 4e3 and 16e3 (d 1,
       weight 1 / 1.5625 each) and 1e3 / 64e3 (d 3, weight 1 / 10.5625):
       the K = 4 nearest are itself, 4e3, 16e3 and one at d 3 */
    struct oc_kfeat g8 = {OC_KF_MOVE, {8e3}, 8e3, "Gather"};
    assert_true(oc_ktables_time(&all, &g8, OC_DT_FLOAT, OC_MATH_FP32, 0, NO_FIXED, &s, NULL));
    double w0 = 16.0, w1 = 1.0 / 1.5625, w3 = 1.0 / 10.5625;
    double eff = exp((w0 * log(1e11) + 2 * w1 * log(1e9) + w3 * log(1e9)) / (w0 + 2 * w1 + w3));
    near(s, 8e3 / eff, "a rare op: its family's samples together");
    /* an op with no table of its own (Concat): the family's */
    struct oc_kfeat c8 = {OC_KF_MOVE, {8e3}, 8e3, "Concat"};
    assert_true(oc_ktables_time(&all, &c8, OC_DT_FLOAT, OC_MATH_FP32, 0, NO_FIXED, &s, NULL));
    near(s, 8e3 / eff, "no table of its own: the family's");
    /* never another family's: an eltwise node of no table of its op reads Add's */
    struct oc_kfeat r8 = {OC_KF_ELTWISE, {8e3}, 8e3, "Relu"};
    assert_true(oc_ktables_time(&all, &r8, OC_DT_FLOAT, OC_MATH_FP32, 0, NO_FIXED, &s, NULL));
    near(s, 8e-7, "the eltwise family only");
}

/* A CPU's tables by thread count: a node at 2 threads reads the 2-thread
 * table (10 GB/s), one at 1 thread the 1-thread table (4 GB/s); at 3
 * threads neither speaks; a table of no thread count (a GPU's, or written
 * before) speaks at any. */
static void thread_tables(void **state) {
    (void)state;
    struct oc_ksample one[] = {{{1e3}, 1e3, 2.5e-7}, {{4e3}, 4e3, 1e-6}, {{16e3}, 16e3, 4e-6}, {{64e3}, 64e3, 16e-6}};
    struct oc_ksample two[] = {{{1e3}, 1e3, 1e-7}, {{4e3}, 4e3, 4e-7}, {{16e3}, 16e3, 16e-7}, {{64e3}, 64e3, 64e-7}};
    char a_op[] = "Add";
    struct oc_ktable ts[] = {{OC_KF_ELTWISE, OC_DT_FLOAT, 0, a_op, 1, 4, one, 0},
                             {OC_KF_ELTWISE, OC_DT_FLOAT, 0, a_op, 2, 4, two, 0}};
    struct oc_ktables all = {NULL, 2, ts};
    struct oc_kfeat f = {OC_KF_ELTWISE, {8e3}, 8e3, "Add"};
    double s;
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 2, NO_FIXED, &s, NULL));
    near(s, 8e3 / 10e9, "2 threads: the 2-thread table");
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 1, NO_FIXED, &s, NULL));
    near(s, 8e3 / 4e9, "1 thread: the 1-thread table");
    struct oc_kfeat r = {OC_KF_ELTWISE, {8e3}, 8e3, "Relu"}; /* the family's, of that count only */
    assert_true(oc_ktables_time(&all, &r, OC_DT_FLOAT, OC_MATH_FP32, 1, NO_FIXED, &s, NULL));
    near(s, 8e3 / 4e9, "1 thread, the family's: the 1-thread samples");
    assert_false(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 3, NO_FIXED, &s, NULL));
    assert_non_null(oc_ktable_find(&all, OC_KF_ELTWISE, OC_DT_FLOAT, 0, "Add", 2));
    assert_null(oc_ktable_find(&all, OC_KF_ELTWISE, OC_DT_FLOAT, 0, "Add", 3));
    ts[1].threads = 0;
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 3, NO_FIXED, &s, NULL));
    near(s, 8e3 / 10e9, "a table of no thread count: any");
}

/* A CPU table's times are whole nodes', a fixed cost in each: with 2 us of
 * it, samples of 1e3 bytes in 3 us and 4e3 in 6 us did their work at 1e3 /
 * 1e-6 = 1 GB/s and 4e3 / 4e-6 = 1 GB/s; a node of 2e3 bytes (one log2 unit
 * from each, equal weights) takes 2 us + 2e3 / 1 GB/s = 4 us, where the
 * samples' whole times would give 2e3 bytes over the geometric mean of
 * their 0.33 and 0.67 GB/s. A sample under the fixed cost keeps a tenth of
 * its time as its work's, the rest its own fixed cost, which the node takes
 * in its neighbours' mean. */
static void fixed_cost_tables(void **state) {
    (void)state;
    struct oc_ksample two[] = {{{1e3}, 1e3, 3e-6}, {{4e3}, 4e3, 6e-6}};
    char a_op[] = "Add";
    struct oc_ktable tab = {OC_KF_ELTWISE, OC_DT_FLOAT, 0, a_op, 0, 2, two, 0};
    struct oc_ktables all = {NULL, 1, &tab};
    struct oc_kfeat f = {OC_KF_ELTWISE, {2e3}, 2e3, "Add"};
    double s;
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){2e-6, 0}, &s, NULL));
    near(s, 2e-6 + 2e3 / 1e9, "the fixed cost off the samples and on the node");
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, NO_FIXED, &s, NULL));
    near(s, 2e3 / exp((log(1e3 / 3e-6) + log(4e3 / 6e-6)) / 2), "without: the whole times' efficiency");
    /* a fixed cost of 4 us: the first sample (3 us) is under it, so its own
       fixed cost is 2.7 us and its work keeps 0.3 us (a tenth); the second's
       is 4 us and its work 2 us; the node takes their mean fixed cost, 3.35 us */
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){4e-6, 0}, &s, NULL));
    near(s, (2.7e-6 + 4e-6) / 2 + 2e3 / exp((log(1e3 / 0.3e-6) + log(4e3 / 2e-6)) / 2),
         "a sample under the fixed cost");
    /* ONNX Runtime's Casts of a few elements in 2.5 us with a fitted fixed
       cost of 3.1 us: a node of their size takes 2.5 us (2.25 + 0.25), not
       3.1 us plus a sample's tenth */
    struct oc_ksample casts[] = {{{64}, 64, 2.5e-6}, {{64}, 64, 2.5e-6}};
    char c_op[] = "Cast";
    struct oc_ktable ctab = {OC_KF_ELTWISE, OC_DT_FLOAT, 0, c_op, 0, 2, casts, 0};
    struct oc_ktables call = {NULL, 1, &ctab};
    struct oc_kfeat cf = {OC_KF_ELTWISE, {64}, 64, "Cast"};
    assert_true(oc_ktables_time(&call, &cf, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){3.1e-6, 0}, &s, NULL));
    near(s, 2.5e-6, "a node as small as samples under the fixed cost: their time");
}

/* A table's samples with their runs (x[1]) on a CPU: with 2 us fixed and
 * 10 ns per run after the first, a sample of 1e3 bytes in one run and 3 us
 * did its work at 1e3 / 1e-6 = 1 GB/s, one of 4e3 bytes in 101 runs and 7
 * us at 4e3 / (7 - 2 - 1) us = 1 GB/s; a node of 2e3 bytes in 51 runs
 * takes 2 us + 50 x 10 ns + 2e3 / 1 GB/s = 4.5 us. Without the run cost
 * the second sample's efficiency is 4e3 / 5 us. */
static void run_cost_tables(void **state) {
    (void)state;
    struct oc_ksample two[] = {{{1e3, 1}, 1e3, 3e-6}, {{4e3, 101}, 4e3, 7e-6}};
    char a_op[] = "Add";
    struct oc_ktable tab = {OC_KF_ELTWISE, OC_DT_FLOAT, 0, a_op, 0, 2, two, 0};
    struct oc_ktables all = {NULL, 1, &tab};
    struct oc_kfeat f = {OC_KF_ELTWISE, {2e3, 51}, 2e3, "Add"};
    double s;
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){2e-6, 1e-8}, &s, NULL));
    near(s, 2e-6 + 50 * 1e-8 + 2e3 / 1e9, "the runs off the samples and on the node");
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){2e-6, 0}, &s, NULL));
    near(s, 2e-6 + 2e3 / exp((log(1e3 / 1e-6) + log(4e3 / 5e-6)) / 2), "without a run cost");
    /* a sample's runs take at most what its fixed cost leaves of 0.9 of its
       time: 1e4 runs at 10 ns would be 100 us of a 7 us sample; its work
       keeps 0.7 us, its runs 4.3 us (the node's own 50 runs still 0.5 us) */
    two[1].x[1] = 1e4;
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){2e-6, 1e-8}, &s, NULL));
    near(s, 2e-6 + 50 * 1e-8 + 2e3 / exp((log(1e3 / 1e-6) + log(4e3 / 0.7e-6)) / 2), "a sample's runs capped");
}

/* An op's own cost per run, from its samples of one size (oc_ktable_fit_runs):
 * a LayerNormalization whose times are 3 us + 20 ns a row after the first +
 * bytes at 1 GB/s, at 2^16 and 2^20 bytes, over 1, 64, 1024 and 16384 rows.
 * The pairs that count (the same bytes, 4x the runs or more, 1.5x the time
 * or more): at 2^16 bytes (68.5 us for 1 row, 89 us for 1024 rows) 16384
 * rows take 396 us, against 1, 64 and 1024 rows; at 2^20 bytes (1052 us)
 * 16384 rows take 1380 us, under 1.5x. Each pair gives 20 ns exactly, and
 * so their median. A table whose only pair is of sizes far apart says
 * nothing (0), nor a product's. The node's runs then cost its op's 20 ns,
 * not the fitted 10, and its samples' runs come off at 20. */
static void own_run_cost(void **state) {
    (void)state;
    struct oc_ksample ln[8];
    const double sizes[2] = {65536, 1048576}, rows[4] = {1, 64, 1024, 16384};
    for (int i = 0; i < 8; i++) {
        double b = sizes[i / 4], r = rows[i % 4];
        ln[i] = (struct oc_ksample){{b, r}, b, 3e-6 + (r - 1) * 20e-9 + b / 1e9};
    }
    char l_op[] = "LayerNormalization";
    struct oc_ktable tab = {OC_KF_REDUCE, OC_DT_FLOAT, 0, l_op, 0, 8, ln, 0};
    oc_ktable_fit_runs(&tab);
    near(tab.run_s, 20e-9, "the op's own cost per run");
    struct oc_ktable far = {OC_KF_REDUCE, OC_DT_FLOAT, 0, l_op, 0, 2, (struct oc_ksample[]){{{1e3, 1}, 1e3, 3e-6},
                                                                                          {{1e6, 1000}, 1e6, 3e-4}}, 7};
    oc_ktable_fit_runs(&far);
    assert_true(far.run_s == 0); /* the only pair's sizes 10 log2 units apart */
    struct oc_ktable gemm = {OC_KF_GEMM, OC_DT_FLOAT, 0, NULL, 0, 8, ln, 7};
    oc_ktable_fit_runs(&gemm);
    assert_true(gemm.run_s == 0); /* a product's table has no runs */
    /* a node of 2^16 bytes over 4096 rows: each sample's 3 us (the fixed cost)
       and its rows at 20 ns come off, leaving bytes / 1 GB/s for all four
       nearest (the 2^16-byte ones); the node's own 4095 runs at 20 ns */
    struct oc_ktables all = {NULL, 1, &tab};
    struct oc_kfeat f = {OC_KF_REDUCE, {65536, 4096}, 65536, "LayerNormalization"};
    double s;
    assert_true(oc_ktables_time(&all, &f, OC_DT_FLOAT, OC_MATH_FP32, 0, (struct oc_kfixed){3e-6, 10e-9}, &s, NULL));
    near(s, 3e-6 + 4095 * 20e-9 + 65536 / 1e9, "the node's runs at its op's own cost");
}

/* The runs of a kernel's inner loop in ONNX Runtime (oc_kernel_runs), by
 * hand from its broadcaster, which walks the axes from the innermost and
 * takes the output in spans as long as both inputs' first stretch of axes
 * that step through the input (> 1) or repeat it (1):
 *   [8,128,2] + [2]: the bias repeats over 128 and 8: spans of 2, 1024;
 *   [8,2,128,1] / []: the scalar starts both walks at the innermost axis,
 *     1 for both, so the dividend's first stretch is that axis alone:
 *     spans of 1, 2048 of them;
 *   [8,128,2] + [1,128,2]: the second input's stretch is 256: 8 spans;
 *   [8,128,2] + [8,128,2]: one span;
 *   [2,3,4,5] x [2,3,1,1] (a squeeze-excitation scale): spans of 4 x 5, 6;
 *   Softmax over the last axis of [4,6,8]: 24 rows; over axis 1: 4 x 8 = 32;
 *   LayerNormalization from axis -2 of [4,6,8]: 4 rows;
 *   a Relu, a Transpose: one run.
 * On a CPU each run after the first adds run_s to the node; on a GPU none. */
static void kernel_runs(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 3, TU_DIMS(8, 128, 2), NULL));
    pbm_input(&pm, pb_value_info("bias", PB_FLOAT, 1, TU_DIMS(2), NULL));
    pbm_input(&pm, pb_value_info("pos", PB_FLOAT, 3, TU_DIMS(1, 128, 2), NULL));
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 4, TU_DIMS(8, 2, 128, 1), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 3, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("se", PB_FLOAT, 4, TU_DIMS(2, 3, 1, 1), NULL));
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 3, TU_DIMS(4, 6, 8), NULL));
    pbm_input(&pm, pb_value_info("g", PB_FLOAT, 2, TU_DIMS(6, 8), NULL));
    pbm_node(&pm, pb_node("bias_add", "Add", TU_LIST("a", "bias"), TU_LIST("y1"), 0, NULL));
    pbm_node(&pm, pb_node("scale", "Div", TU_LIST("q", "s"), TU_LIST("y2"), 0, NULL));
    pbm_node(&pm, pb_node("pos_add", "Add", TU_LIST("a", "pos"), TU_LIST("y3"), 0, NULL));
    pbm_node(&pm, pb_node("same_add", "Add", TU_LIST("a", "a"), TU_LIST("y4"), 0, NULL));
    pbm_node(&pm, pb_node("se_mul", "Mul", TU_LIST("x", "se"), TU_LIST("y5"), 0, NULL));
    struct pbw last[] = {pb_attr_int("axis", -1)}, one[] = {pb_attr_int("axis", 1)}, two[] = {pb_attr_int("axis", -2)};
    pbm_node(&pm, pb_node("soft_last", "Softmax", TU_LIST("r"), TU_LIST("y6"), 1, last));
    pbm_node(&pm, pb_node("soft_1", "Softmax", TU_LIST("r"), TU_LIST("y7"), 1, one));
    pbm_node(&pm, pb_node("ln", "LayerNormalization", TU_LIST("r", "g"), TU_LIST("y8"), 1, two));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("a"), TU_LIST("y9"), 0, NULL));
    struct pbw perm[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))};
    pbm_node(&pm, pb_node("tr", "Transpose", TU_LIST("a"), TU_LIST("y10"), 1, perm));
    const char *outs[] = {"y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "y10"};
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++)
        pbm_output(&pm, pb_value_info(outs[k], PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    const char *names[] = {"bias_add", "scale", "pos_add", "same_add", "se_mul", "soft_last", "soft_1", "ln",
                           "relu", "tr"};
    const double want[] = {1024, 2048, 8, 1, 6, 24, 32, 4, 1, 1};
    runs_are(names, want, sizeof names / sizeof names[0]);
    /* the kernel features carry them, and a CPU's node takes run_s for each after the first */
    struct oc_kfeat f;
    oc_kernel_features(an->graph, node("bias_add"), false, &f);
    assert_true(f.family == OC_KF_ELTWISE && f.x[1] == 1024);
    struct oc_gpu gpu = *oc_gpu_find("h100"), cpu = gpu;
    cpu.cpu = true;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf none, with, on_gpu;
    assert_int_equal(oc_perf_estimate(an, &cpu, &o, &none), OC_OK);
    o.run_s = 1e-8;
    assert_int_equal(oc_perf_estimate(an, &cpu, &o, &with), OC_OK);
    assert_int_equal(oc_perf_estimate(an, &gpu, &o, &on_gpu), OC_OK);
    const struct oc_node *b = node("bias_add"), *same = node("same_add");
    near(with.nodes[b->index].time - none.nodes[b->index].time, 1023 * 1e-8, "1023 runs after the first");
    near(with.nodes[same->index].time, none.nodes[same->index].time, "one run: nothing added");
    near(on_gpu.nodes[b->index].t_runs + 1, 1, "a GPU: no run cost");
    oc_perf_free(&none);
    oc_perf_free(&with);
    oc_perf_free(&on_gpu);
}

/* oc_perf_estimate: a MatMul of a family the tables cover takes the table's
 * time plus one launch; the Relu, whose family they do not cover, keeps the
 * roofline's. */
static void perf_from_table(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(64, 64), NULL));
    pbm_init(&pm, pb_tensor_f32("b", 2, TU_DIMS(64, 64)));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("a", "b"), TU_LIST("m"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("m"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_ksample one[] = {{{64, 64, 64}, 1e9, 1e-3}}; /* 1e12 FLOP/s */
    struct oc_ktable tt = {OC_KF_GEMM, OC_DT_FLOAT, OC_MATH_FP32, NULL, 0, 1, one, 0};
    struct oc_ktables tables = {"a hand-written table", 1, &tt};
    struct oc_gpu g = *oc_gpu_find("h100");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf plain, with;
    assert_int_equal(oc_perf_estimate(an, &g, &o, &plain), OC_OK);
    g.tables = &tables;
    assert_int_equal(oc_perf_estimate(an, &g, &o, &with), OC_OK);
    const struct oc_node *mm = node("mm"), *relu = node("relu");
    /* MatMul: 2 x 64^3 FLOPs at 1e12 FLOP/s, plus the launch */
    near(with.nodes[mm->index].time, 2.0 * 64 * 64 * 64 / 1e12 + o.launch_s, "table time");
    assert_true(with.nodes[mm->index].from_table);
    assert_false(with.nodes[relu->index].from_table);
    near(with.nodes[relu->index].time, plain.nodes[relu->index].time, "the Relu keeps the roofline");
    assert_int_equal(with.n_from_table, 1);
    near(with.time, with.nodes[mm->index].time + with.nodes[relu->index].time, "sum");
    /* under --math tf32 the fp32 table does not apply */
    o.math = OC_MATH_TF32;
    struct oc_perf tf;
    assert_int_equal(oc_perf_estimate(an, &g, &o, &tf), OC_OK);
    assert_false(tf.nodes[mm->index].from_table);
    /* on a CPU the table's time is the whole node's: its fixed cost (the
       launch, on one thread) off the sample and on the node, no launch added */
    g.cpu = true;
    g.threads = 1;
    o.math = OC_MATH_AUTO;
    o.launch_s = 1e-4;
    struct oc_perf cpu;
    assert_int_equal(oc_perf_estimate(an, &g, &o, &cpu), OC_OK);
    assert_true(cpu.nodes[mm->index].from_table);
    near(cpu.nodes[mm->index].time, 1e-4 + 2.0 * 64 * 64 * 64 / (1e9 / (1e-3 - 1e-4)), "a CPU's table time");
    oc_perf_free(&cpu);
    oc_perf_free(&plain);
    oc_perf_free(&with);
    oc_perf_free(&tf);
}

/* The share of a Conv's taps inside its input (perf.h), by hand over x
 * [1, 8, 14, 14] and a 3x3 kernel:
 *   pads 1, dilation 1: per axis the taps of 14 outputs x 3 that land in
 *     [0, 14) are 42 - 2 (the first output's left tap, the last one's right
 *     tap), so (40 / 42)^2;
 *   pads 12, dilation 12: the left tap (o - 12) lands for o >= 12 (2
 *     outputs), the centre for all 14, the right (o + 12) for o < 2 (2):
 *     18 of 42 per axis, (18 / 42)^2;
 *   pads 24, dilation 24: only the centre tap, 14 of 42: (1 / 3)^2 = 1 / 9;
 *   no pads: every tap inside, 1; a MatMul is not a convolution: 1. */
static void conv_in_bounds(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 8, 14, 14), NULL));
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(8, 8, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("b", 2, TU_DIMS(4, 5)));
    struct pbw p1[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("pad1", "Conv", TU_LIST("x", "w"), TU_LIST("y1"), 1, p1));
    struct pbw p12[] = {pb_attr_ints("pads", 4, TU_DIMS(12, 12, 12, 12)), pb_attr_ints("dilations", 2, TU_DIMS(12, 12))};
    pbm_node(&pm, pb_node("atrous12", "Conv", TU_LIST("x", "w"), TU_LIST("y12"), 2, p12));
    struct pbw p24[] = {pb_attr_ints("pads", 4, TU_DIMS(24, 24, 24, 24)), pb_attr_ints("dilations", 2, TU_DIMS(24, 24))};
    pbm_node(&pm, pb_node("atrous24", "Conv", TU_LIST("x", "w"), TU_LIST("y24"), 2, p24));
    pbm_node(&pm, pb_node("valid", "Conv", TU_LIST("x", "w"), TU_LIST("yv"), 0, NULL));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("a", "b"), TU_LIST("m"), 0, NULL));
    const char *outs[] = {"y1", "y12", "y24", "yv", "m"};
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++)
        pbm_output(&pm, pb_value_info(outs[k], PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    near(oc_perf_conv_in_bounds(an->graph, node("pad1")), (40.0 / 42) * (40.0 / 42), "pads 1");
    near(oc_perf_conv_in_bounds(an->graph, node("atrous12")), (18.0 / 42) * (18.0 / 42), "dilation 12");
    near(oc_perf_conv_in_bounds(an->graph, node("atrous24")), 1.0 / 9, "dilation 24");
    near(oc_perf_conv_in_bounds(an->graph, node("valid")), 1, "no pads");
    near(oc_perf_conv_in_bounds(an->graph, node("mm")), 1, "MatMul");
    /* the output positions at the padding: pads 1 leave 12 of 14 per axis
       with every tap inside; at dilation 12 and 24 none; unpadded, none */
    double padded = -1;
    near(oc_perf_conv_window(an->graph, node("pad1"), &padded), (40.0 / 42) * (40.0 / 42), "pads 1, window");
    near(padded, 1 - (12.0 / 14) * (12.0 / 14), "pads 1: positions at the padding");
    oc_perf_conv_window(an->graph, node("atrous12"), &padded);
    near(padded, 1, "dilation 12: every position at the padding");
    oc_perf_conv_window(an->graph, node("valid"), &padded);
    assert_true(padded == 0);
    oc_perf_conv_window(an->graph, node("mm"), &padded);
    assert_true(padded == 0);
    near(oc_perf_conv_cpu_share(an->graph, node("pad1"), 1.5),
         (40.0 / 42) * (40.0 / 42) * (1 + 0.5 * (1 - (12.0 / 14) * (12.0 / 14))), "a CPU's share at pad_path 1.5");
    near(oc_perf_conv_cpu_share(an->graph, node("pad1"), 0), (40.0 / 42) * (40.0 / 42), "no pad_path: the taps");
    /* the compute time: a GPU prices every tap, a CPU the share of them;
       a CPU's model adds kernels x gap_s */
    struct oc_gpu gpu = *oc_gpu_find("h100"), cpu = gpu;
    cpu.cpu = true;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    o.launch_s = 0;
    struct oc_perf pg, pc, gap;
    assert_int_equal(oc_perf_estimate(an, &gpu, &o, &pg), OC_OK);
    assert_int_equal(oc_perf_estimate(an, &cpu, &o, &pc), OC_OK);
    const struct oc_node *a24 = node("atrous24"), *valid = node("valid");
    near(pc.nodes[a24->index].t_compute, pg.nodes[a24->index].t_compute / 9, "CPU compute time of dilation 24");
    near(pc.nodes[valid->index].t_compute, pg.nodes[valid->index].t_compute, "an unpadded conv: as on the GPU");
    /* pad_path 2: dilation 24's every position is at the padding, twice its taps' time */
    struct oc_perf slow;
    o.pad_path = 2;
    assert_int_equal(oc_perf_estimate(an, &cpu, &o, &slow), OC_OK);
    near(slow.nodes[a24->index].t_compute, pg.nodes[a24->index].t_compute * 2 / 9, "dilation 24 at pad_path 2");
    near(slow.nodes[valid->index].t_compute, pg.nodes[valid->index].t_compute, "unpadded: no pad_path");
    oc_perf_free(&slow);
    o.pad_path = 0;
    o.gap_s = 3e-6;
    assert_int_equal(oc_perf_estimate(an, &cpu, &o, &gap), OC_OK);
    near(gap.time, pc.time + gap.n_kernels * 3e-6, "gaps");
    assert_int_equal(gap.n_kernels, 5);
    oc_perf_free(&pg);
    oc_perf_free(&pc);
    oc_perf_free(&gap);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(families, tu_teardown),
        cmocka_unit_test_teardown(gemm_transposes, tu_teardown),
        cmocka_unit_test(depthwise_outside_nchwc),
        cmocka_unit_test(interpolation),
        cmocka_unit_test(op_tables),
        cmocka_unit_test(thread_tables),
        cmocka_unit_test(fixed_cost_tables),
        cmocka_unit_test(run_cost_tables),
        cmocka_unit_test(own_run_cost),
        cmocka_unit_test_teardown(kernel_runs, tu_teardown),
        cmocka_unit_test_teardown(kernel_runs_older_forms, tu_teardown),
        cmocka_unit_test_teardown(perf_from_table, tu_teardown),
        cmocka_unit_test_teardown(conv_in_bounds, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
