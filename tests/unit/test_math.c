/*
 * test_math.c — shape rules, value propagation and cost formulas of the
 * math, logical, variadic, normalization and random ops (analyzer/ops/
 * eltwise.c, normalize.c, norm.c, math.c, random.c). Every expected number
 * is worked out by hand in the comment next to it from the ONNX spec and
 * the conventions in docs/COSTS.md.
 */
#include "testutil.h"

/* analyzer/cost.c: a product past 64 bits is added as 2^64 - 1, flagged, never
 * left out: 5 MACs, then 2^40 x 2^30 more, read 2^64 - 1; FLOPs under 2^64
 * stay exact beside them */
static void cost_product_saturates(void **state) {
    (void)state;
    struct oc_cost c = {0};
    oc_cost_add_macs(&c, 5, 1);
    oc_cost_add_flops(&c, 3, 7);
    assert_true(c.macs == 5 && c.flops == 21 && !(c.flags & OC_COST_OVERFLOW));
    oc_cost_add_macs(&c, (uint64_t)1 << 40, (uint64_t)1 << 30);
    assert_true(c.macs == UINT64_MAX);
    assert_true(c.flags & OC_COST_OVERFLOW);
    assert_true(c.flops == 21);
}

static void layer_normalization(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT16, 3, TU_DIMS(2, 3, 8), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT16, 2, TU_DIMS(3, 8), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT16, 1, TU_DIMS(8), NULL));
    struct pbw at[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("ln", "LayerNormalization", TU_LIST("x", "s", "b"), TU_LIST("y", "mean", "inv"), 1, at));
    pbm_node(&pm, pb_node("ln_nob", "LayerNormalization", TU_LIST("x", "b"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT16, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    TU_SHAPE(tu_out(an, "ln", 0), 2, 3, 8);
    assert_int_equal(tu_out(an, "ln", 0)->dtype, PB_FLOAT16);
    /* Mean, InvStdDev: X.shape[:1] + [1, 1], of stash_type (default float) */
    TU_SHAPE(tu_out(an, "ln", 1), 2, 1, 1);
    TU_SHAPE(tu_out(an, "ln", 2), 2, 1, 1);
    assert_int_equal(tu_out(an, "ln", 1)->dtype, PB_FLOAT);
    assert_int_equal(tu_out(an, "ln", 2)->dtype, PB_FLOAT);
    /* n = 48, rows = 2 (axis 1): mean n, X - Mean n, D*D n, Var n, + eps, sqrt,
     * reciprocal once per row (3 * 2), * InvStdDev n, * Scale n, + B n:
     * 7 * 48 + 6 = 342 */
    assert_int_equal(tu_node(an, "ln")->cost.flops, 342);
    assert_int_equal(tu_node(an, "ln")->cost.macs, 0);
    /* default axis -1: rows = 6; no B: 6 * 48 + 3 * 6 = 306 */
    assert_int_equal(tu_node(an, "ln_nob")->cost.flops, 306);
}

static void layer_normalization_bad_scale(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 8), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&pm, pb_node("ln", "LayerNormalization", TU_LIST("x", "s"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    /* (4) is not unidirectionally broadcastable to (4, 8) */
    tu_analyze_err(&pm, 17, OC_ERR_MODEL, "Scale");
}

static void rms_normalization(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT16, 3, TU_DIMS(2, 5, 6), NULL));
    pbm_init(&pm, pb_tensor_f32("s", 1, TU_DIMS(6)));
    pbm_node(&pm, pb_node("rms", "RMSNormalization", TU_LIST("x", "s"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 23, NULL);
    TU_SHAPE(tu_out(an, "rms", 0), 2, 5, 6);
    /* Y has scale's type (V), not X's */
    assert_int_equal(tu_out(an, "rms", 0)->dtype, PB_FLOAT);
    /* n = 60, rows = 10: X*X n, mean n, + eps and sqrt per row, X / RMS n,
     * * scale n: 4 * 60 + 2 * 10 = 260 */
    assert_int_equal(tu_node(an, "rms")->cost.flops, 260);
}

static void group_normalization_21(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 6, 3, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("scale", 1, TU_DIMS(6)));
    pbm_init(&pm, pb_tensor_f32("bias", 1, TU_DIMS(6)));
    struct pbw at[] = {pb_attr_int("num_groups", 2)};
    pbm_node(&pm, pb_node("gn", "GroupNormalization", TU_LIST("x", "scale", "bias"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 21, NULL);
    TU_SHAPE(tu_out(an, "gn", 0), 2, 6, 3, 3);
    /* n = 108, rows = N * groups = 4: mean n, x - mean n, square n, variance n,
     * + eps and sqrt per row, divide n, * scale n, + bias n: 7 * 108 + 2 * 4 = 764 */
    assert_int_equal(tu_node(an, "gn")->cost.flops, 764);
    assert_int_equal(an->totals.params, 12);
}

static void group_normalization_18(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(1, 6, 10), NULL));
    /* opset 18: scale and bias per group */
    pbm_init(&pm, pb_tensor_f32("scale", 1, TU_DIMS(3)));
    pbm_init(&pm, pb_tensor_f32("bias", 1, TU_DIMS(3)));
    struct pbw at[] = {pb_attr_int("num_groups", 3)};
    pbm_node(&pm, pb_node("gn", "GroupNormalization", TU_LIST("x", "scale", "bias"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    TU_SHAPE(tu_out(an, "gn", 0), 1, 6, 10);
    /* n = 60, rows = 1 * 3: 7 * 60 + 2 * 3 = 426 */
    assert_int_equal(tu_node(an, "gn")->cost.flops, 426);
}

static void group_normalization_21_rejects_per_group_scale(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(1, 6, 10), NULL));
    pbm_init(&pm, pb_tensor_f32("scale", 1, TU_DIMS(3)));
    pbm_init(&pm, pb_tensor_f32("bias", 1, TU_DIMS(3)));
    struct pbw at[] = {pb_attr_int("num_groups", 3)};
    pbm_node(&pm, pb_node("gn", "GroupNormalization", TU_LIST("x", "scale", "bias"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    /* opset 21: scale and bias have C = 6 elements */
    tu_analyze_err(&pm, 21, OC_ERR_MODEL, "6 elements");
}

static void other_normalizations(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 4, 3, 5), NULL));
    pbm_init(&pm, pb_tensor_f32("s", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(4)));
    pbm_node(&pm, pb_node("in", "InstanceNormalization", TU_LIST("x", "s", "b"), TU_LIST("y1"), 0, NULL));
    struct pbw lrn[] = {pb_attr_int("size", 3)};
    pbm_node(&pm, pb_node("lrn", "LRN", TU_LIST("x"), TU_LIST("y2"), 1, lrn));
    pbm_node(&pm, pb_node("mvn", "MeanVarianceNormalization", TU_LIST("x"), TU_LIST("y3"), 0, NULL));
    struct pbw lp[] = {pb_attr_int("p", 1), pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("lp1", "LpNormalization", TU_LIST("x"), TU_LIST("y4"), 2, lp));
    pbm_node(&pm, pb_node("lp2", "LpNormalization", TU_LIST("x"), TU_LIST("y5"), 0, NULL));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "in", 0), 2, 4, 3, 5);
    TU_SHAPE(tu_out(an, "lrn", 0), 2, 4, 3, 5);
    TU_SHAPE(tu_out(an, "mvn", 0), 2, 4, 3, 5);
    /* n = 120. InstanceNormalization: rows = N * C = 8: 7 * 120 + 2 * 8 = 856 */
    assert_int_equal(tu_node(an, "in")->cost.flops, 856);
    /* LRN size 3 over C = 4: windows [0,1] [0,2] [1,3] [2,3] -> w = 2, 3, 3, 2;
     * 2w + 3 per element = 7 + 9 + 9 + 7 = 32 per (n, h, w) position, 30 positions: 960 */
    assert_int_equal(tu_node(an, "lrn")->cost.flops, 960);
    /* MVN default axes [0, 2, 3]: rows = C = 4: 5 * 120 + 4 * 4 = 616 */
    assert_int_equal(tu_node(an, "mvn")->cost.flops, 616);
    /* L1 along axis 1: rows = 120 / 4 = 30: |x| n, sum n - rows, divide n = 330 */
    assert_int_equal(tu_node(an, "lp1")->cost.flops, 330);
    /* L2 along the last axis: x^2 n, sum n - 24, sqrt 24, divide n = 3n = 360 */
    assert_int_equal(tu_node(an, "lp2")->cost.flops, 360);
}

static void gelu_and_activations(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 5), NULL));
    pbm_input(&pm, pb_value_info("slope", PB_FLOAT, 1, TU_DIMS(5), NULL));
    pbm_node(&pm, pb_node("gelu", "Gelu", TU_LIST("x"), TU_LIST("g"), 0, NULL));
    struct pbw tanh_at[] = {pb_attr_str("approximate", "tanh")};
    pbm_node(&pm, pb_node("gelu_tanh", "Gelu", TU_LIST("x"), TU_LIST("gt"), 1, tanh_at));
    pbm_node(&pm, pb_node("celu", "Celu", TU_LIST("x"), TU_LIST("c"), 0, NULL));
    pbm_node(&pm, pb_node("selu", "Selu", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("softplus", "Softplus", TU_LIST("x"), TU_LIST("sp"), 0, NULL));
    pbm_node(&pm, pb_node("mish", "Mish", TU_LIST("x"), TU_LIST("m"), 0, NULL));
    pbm_node(&pm, pb_node("prelu", "PRelu", TU_LIST("x", "slope"), TU_LIST("p"), 0, NULL));
    pbm_node(&pm, pb_node("acosh", "Acosh", TU_LIST("x"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("isinf", "IsInf", TU_LIST("x"), TU_LIST("inf"), 0, NULL));
    struct pbw pos_only[] = {pb_attr_int("detect_negative", 0)};
    pbm_node(&pm, pb_node("isposinf", "IsInf", TU_LIST("x"), TU_LIST("pinf"), 1, pos_only));
    pbm_output(&pm, pb_value_info("g", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 20, NULL);
    TU_SHAPE(tu_out(an, "gelu", 0), 4, 5);
    /* n = 20. Gelu 0.5 * x * (1 + erf(x / sqrt(2))): divide, erf, add, 2 multiplies = 5n */
    assert_int_equal(tu_node(an, "gelu")->cost.flops, 100);
    /* tanh form: x^3, * 0.044715, + x, * sqrt(2/pi), tanh, + 1, * 0.5, * x = 8n */
    assert_int_equal(tu_node(an, "gelu_tanh")->cost.flops, 160);
    /* Celu: max, divide, exp, subtract, multiply, min, add = 7n */
    assert_int_equal(tu_node(an, "celu")->cost.flops, 140);
    /* Selu: compare, exp, multiply, subtract, multiply = 5n */
    assert_int_equal(tu_node(an, "selu")->cost.flops, 100);
    /* Softplus: exp, add, log = 3n; Mish: x * tanh(softplus(x)) = 5n */
    assert_int_equal(tu_node(an, "softplus")->cost.flops, 60);
    assert_int_equal(tu_node(an, "mish")->cost.flops, 100);
    /* PRelu: compare, multiply = 2n, Y has X's shape */
    TU_SHAPE(tu_out(an, "prelu", 0), 4, 5);
    assert_int_equal(tu_node(an, "prelu")->cost.flops, 40);
    assert_int_equal(tu_node(an, "acosh")->cost.flops, 20);
    /* IsInf: bool; one comparison per detected sign */
    assert_int_equal(tu_out(an, "isinf", 0)->dtype, PB_BOOL);
    assert_int_equal(tu_node(an, "isinf")->cost.flops, 40);
    assert_int_equal(tu_node(an, "isposinf")->cost.flops, 20);
}

static void gelu_bad_approximate(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(4), NULL));
    struct pbw at[] = {pb_attr_str("approximate", "erf")};
    pbm_node(&pm, pb_node("gelu", "Gelu", TU_LIST("x"), TU_LIST("g"), 1, at));
    pbm_output(&pm, pb_value_info("g", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_err(&pm, 20, OC_ERR_MODEL, "approximate");
}

static void variadic_mean_sum_max(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 3, TU_DIMS(2, 1, 4), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 2, TU_DIMS(3, 1), NULL));
    pbm_input(&pm, pb_value_info("c", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&pm, pb_node("mean", "Mean", TU_LIST("a", "b", "c"), TU_LIST("m"), 0, NULL));
    pbm_node(&pm, pb_node("sum", "Sum", TU_LIST("a", "b", "c"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("max1", "Max", TU_LIST("b"), TU_LIST("x1"), 0, NULL));
    pbm_node(&pm, pb_node("mean1", "Mean", TU_LIST("b"), TU_LIST("m1"), 0, NULL));
    pbm_output(&pm, pb_value_info("m", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* (2,1,4), (3,1), (4) -> (2,3,4) = 24 elements */
    TU_SHAPE(tu_out(an, "mean", 0), 2, 3, 4);
    TU_SHAPE(tu_out(an, "sum", 0), 2, 3, 4);
    /* Mean of 3: 2 adds + 1 divide per element = 3 * 24 = 72; Sum: 2 * 24 = 48 */
    assert_int_equal(tu_node(an, "mean")->cost.flops, 72);
    assert_int_equal(tu_node(an, "sum")->cost.flops, 48);
    /* one input: Max copies (0), Mean divides by 1 (1 per element, 3 elements) */
    TU_SHAPE(tu_out(an, "max1", 0), 3, 1);
    assert_int_equal(tu_node(an, "max1")->cost.flops, 0);
    assert_int_equal(tu_node(an, "mean1")->cost.flops, 3);
}

static void variadic_before_opset_8_needs_equal_shapes(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&pm, pb_node("sum", "Sum", TU_LIST("a", "b"), TU_LIST("s"), 0, NULL));
    pbm_output(&pm, pb_value_info("s", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_err(&pm, 6, OC_ERR_MODEL, "no broadcasting");
}

static void integer_values(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 7, 3), NULL));
    pbm_init(&pm, pb_tensor_i64("lim", 1, TU_DIMS(3), TU_DIMS(4, 4, 4)));
    pbm_init(&pm, pb_tensor_i64("three", 0, NULL, TU_DIMS(3)));
    pbm_init(&pm, pb_tensor_i64("one", 1, TU_DIMS(1), TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_i64("neg", 1, TU_DIMS(3), TU_DIMS(-7, 7, 8)));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("min", "Min", TU_LIST("s", "lim"), TU_LIST("mn"), 0, NULL));
    pbm_node(&pm, pb_node("max", "Max", TU_LIST("s", "lim", "one"), TU_LIST("mx"), 0, NULL));
    pbm_node(&pm, pb_node("size", "Size", TU_LIST("x"), TU_LIST("n"), 0, NULL));
    pbm_node(&pm, pb_node("eq", "Equal", TU_LIST("s", "three"), TU_LIST("e"), 0, NULL));
    pbm_node(&pm, pb_node("not", "Not", TU_LIST("e"), TU_LIST("ne"), 0, NULL));
    pbm_node(&pm, pb_node("ge", "GreaterOrEqual", TU_LIST("s", "three"), TU_LIST("g"), 0, NULL));
    pbm_node(&pm, pb_node("and", "And", TU_LIST("ne", "g"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("mod", "Mod", TU_LIST("neg", "three"), TU_LIST("md"), 0, NULL));
    pbm_node(&pm, pb_node("cl", "CastLike", TU_LIST("s", "e"), TU_LIST("sb"), 0, NULL));
    pbm_output(&pm, pb_value_info("mn", PB_INT64, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    const struct oc_value *v = tu_out(an, "min", 0);
    /* min([2, 7, 3], [4, 4, 4]) = [2, 4, 3] */
    assert_non_null(v->ival);
    assert_int_equal(v->ival[0], 2);
    assert_int_equal(v->ival[1], 4);
    assert_int_equal(v->ival[2], 3);
    /* max of three inputs, [1] broadcast: [4, 7, 4] */
    v = tu_out(an, "max", 0);
    assert_non_null(v->ival);
    assert_int_equal(v->ival[0], 4);
    assert_int_equal(v->ival[1], 7);
    assert_int_equal(v->ival[2], 4);
    /* Size: int64 scalar 2 * 7 * 3 = 42 */
    v = tu_out(an, "size", 0);
    assert_int_equal(v->rank, 0);
    assert_int_equal(v->dtype, PB_INT64);
    assert_non_null(v->ival);
    assert_int_equal(v->ival[0], 42);
    assert_int_equal(tu_node(an, "size")->cost.bytes_read, 0); /* reads metadata only */
    /* Equal [2,7,3] == 3: [0,0,1]; Not: [1,1,0]; >= 3: [0,1,1]; And: [0,1,0] */
    v = tu_out(an, "and", 0);
    assert_int_equal(v->dtype, PB_BOOL);
    assert_non_null(v->ival);
    assert_int_equal(v->ival[0], 0);
    assert_int_equal(v->ival[1], 1);
    assert_int_equal(v->ival[2], 0);
    /* Mod (fmod = 0) has the divisor's sign: -7 % 3 = 2, 7 % 3 = 1, 8 % 3 = 2 */
    v = tu_out(an, "mod", 0);
    assert_non_null(v->ival);
    assert_int_equal(v->ival[0], 2);
    assert_int_equal(v->ival[1], 1);
    assert_int_equal(v->ival[2], 2);
    /* CastLike to bool: [2, 7, 3] -> [1, 1, 1] */
    v = tu_out(an, "cl", 0);
    assert_int_equal(v->dtype, PB_BOOL);
    TU_SHAPE(v, 3);
    assert_non_null(v->ival);
    assert_int_equal(v->ival[1], 1);
    assert_int_equal(tu_node(an, "cl")->cost.flops, 0);
}

static void legacy_logical_broadcast(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_BOOL, 4, TU_DIMS(2, 3, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("b", PB_BOOL, 2, TU_DIMS(3, 4), NULL));
    struct pbw at[] = {pb_attr_int("broadcast", 1), pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("and", "And", TU_LIST("a", "b"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_BOOL, -1, NULL, NULL));
    tu_analyze_ok(&pm, 6, NULL);
    /* And-1: B (3, 4) matches A's dims 1..2; the output has A's shape
     * (numpy broadcasting would have failed: (4, 5) vs (3, 4)) */
    TU_SHAPE(tu_out(an, "and", 0), 2, 3, 4, 5);
    assert_int_equal(tu_out(an, "and", 0)->dtype, PB_BOOL);
    assert_int_equal(tu_node(an, "and")->cost.flops, 120);
}

static void softmax_family_rows(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    pbm_node(&pm, pb_node("hm", "Hardmax", TU_LIST("x"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("lsm", "LogSoftmax", TU_LIST("x"), TU_LIST("l"), 0, NULL));
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_output(&pm, pb_value_info("h", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* opset 11: default axis 1, the input coerced to 2-D (2, 12): 2 rows of 12 */
    TU_SHAPE(tu_out(an, "hm", 0), 2, 3, 4);
    /* Hardmax: 12 - 1 comparisons per row = 24 - 2 = 22 */
    assert_int_equal(tu_node(an, "hm")->cost.flops, 22);
    /* LogSoftmax: 5 * 24 + one log per row (2) = 122; Softmax 5 * 24 */
    assert_int_equal(tu_node(an, "lsm")->cost.flops, 122);
    assert_int_equal(tu_node(an, "sm")->cost.flops, 120);
}

static void softmax_family_rows_13(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    struct pbw at[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("hm", "Hardmax", TU_LIST("x"), TU_LIST("h"), 1, at));
    pbm_node(&pm, pb_node("hm_last", "Hardmax", TU_LIST("x"), TU_LIST("h2"), 0, NULL));
    pbm_output(&pm, pb_value_info("h", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* opset 13: a row is the axis alone. axis 1: 8 rows of 3: 24 - 8 = 16 */
    assert_int_equal(tu_node(an, "hm")->cost.flops, 16);
    /* default axis -1: 6 rows of 4: 24 - 6 = 18 */
    assert_int_equal(tu_node(an, "hm_last")->cost.flops, 18);
}

static void cumsum_det_trilu(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 4, 4), NULL));
    pbm_input(&pm, pb_value_info("dyn_axis", PB_INT64, 0, NULL, NULL));
    pbm_init(&pm, pb_tensor_i64("axis", 0, NULL, TU_DIMS(-1)));
    pbm_node(&pm, pb_node("cs", "CumSum", TU_LIST("x", "axis"), TU_LIST("c"), 0, NULL));
    struct pbw ex[] = {pb_attr_int("exclusive", 1), pb_attr_int("reverse", 1)};
    pbm_node(&pm, pb_node("cs_ex", "CumSum", TU_LIST("x", "axis"), TU_LIST("ce"), 2, ex));
    pbm_node(&pm, pb_node("cs_dyn", "CumSum", TU_LIST("x", "dyn_axis"), TU_LIST("cd"), 0, NULL));
    struct pbw only_rev[] = {pb_attr_int("reverse", 1)}, only_ex[] = {pb_attr_int("exclusive", 1)};
    pbm_node(&pm, pb_node("cs_rev", "CumSum", TU_LIST("x", "axis"), TU_LIST("cr"), 1, only_rev));
    pbm_node(&pm, pb_node("cs_ex1", "CumSum", TU_LIST("x", "axis"), TU_LIST("cx"), 1, only_ex));
    pbm_node(&pm, pb_node("det", "Det", TU_LIST("x"), TU_LIST("d"), 0, NULL));
    pbm_node(&pm, pb_node("tri", "Trilu", TU_LIST("x"), TU_LIST("t"), 0, NULL));
    pbm_output(&pm, pb_value_info("c", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 14, NULL);
    TU_SHAPE(tu_out(an, "cs", 0), 2, 4, 4);
    /* 8 rows of 4 along the last axis: 3 adds per row (inclusive) = 24; exclusive 2 = 16 */
    assert_int_equal(tu_node(an, "cs")->cost.flops, 24);
    assert_int_equal(tu_node(an, "cs_ex")->cost.flops, 16);
    /* the two attributes apart: reverse alone is still inclusive (24),
       exclusive alone 16 */
    assert_int_equal(tu_node(an, "cs_rev")->cost.flops, 24);
    assert_int_equal(tu_node(an, "cs_ex1")->cost.flops, 16);
    /* axis value unknown: shape known, cost unknown (not 0) */
    TU_SHAPE(tu_out(an, "cs_dyn", 0), 2, 4, 4);
    assert_true(tu_node(an, "cs_dyn")->cost.flags & OC_COST_UNKNOWN);
    /* Det: [2, 4, 4] -> [2]; per 4x4 matrix: M(M-1) = 12 pivot compares and
     * divides, (M-1)M(2M-1)/3 = 3*4*7/3 = 28 multiply-subtracts, M-1 = 3 for
     * the diagonal product: 43; 2 matrices = 86 */
    TU_SHAPE(tu_out(an, "det", 0), 2);
    assert_int_equal(tu_node(an, "det")->cost.flops, 86);
    TU_SHAPE(tu_out(an, "tri", 0), 2, 4, 4);
    assert_int_equal(tu_node(an, "tri")->cost.flops, 0);
}

static void random_ops(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("p", PB_FLOAT, 2, TU_DIMS(3, 5), NULL));
    pbm_input(&pm, pb_value_info("m", PB_FLOAT, 2, TU_DIMS(4, 10), NULL));
    struct pbw rn[] = {pb_attr_ints("shape", 2, TU_DIMS(6, 7))};
    pbm_node(&pm, pb_node("rn", "RandomNormal", NULL, TU_LIST("r"), 1, rn));
    struct pbw rul[] = {pb_attr_int("dtype", 11)};
    pbm_node(&pm, pb_node("rul", "RandomUniformLike", TU_LIST("p"), TU_LIST("u"), 1, rul));
    pbm_node(&pm, pb_node("be", "Bernoulli", TU_LIST("p"), TU_LIST("b"), 0, NULL));
    struct pbw mn[] = {pb_attr_int("sample_size", 3)};
    pbm_node(&pm, pb_node("mn", "Multinomial", TU_LIST("m"), TU_LIST("s"), 1, mn));
    pbm_node(&pm, pb_node("eye", "EyeLike", TU_LIST("p"), TU_LIST("e"), 0, NULL));
    pbm_output(&pm, pb_value_info("r", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 15, NULL);
    /* RandomNormal: shape attribute, float; one draw per element */
    TU_SHAPE(tu_out(an, "rn", 0), 6, 7);
    assert_int_equal(tu_out(an, "rn", 0)->dtype, PB_FLOAT);
    assert_int_equal(tu_node(an, "rn")->cost.flops, 42);
    /* RandomUniformLike: input's shape, dtype 11 = double; reads no data */
    TU_SHAPE(tu_out(an, "rul", 0), 3, 5);
    assert_int_equal(tu_out(an, "rul", 0)->dtype, 11);
    assert_int_equal(tu_node(an, "rul")->cost.flops, 15);
    assert_int_equal(tu_node(an, "rul")->cost.bytes_read, 0);
    /* Bernoulli: draw and compare, 2 * 15 */
    assert_int_equal(tu_node(an, "be")->cost.flops, 30);
    /* Multinomial [4, 10] -> [4, 3] int32: per row 10 exps + 9 adds (19),
     * per sample draw + scale + 10 compares (12): 4 * 19 + 12 * 12 = 220 */
    TU_SHAPE(tu_out(an, "mn", 0), 4, 3);
    assert_int_equal(tu_out(an, "mn", 0)->dtype, PB_INT32);
    assert_int_equal(tu_node(an, "mn")->cost.flops, 220);
    TU_SHAPE(tu_out(an, "eye", 0), 3, 5);
    assert_int_equal(tu_node(an, "eye")->cost.flops, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_product_saturates),
        cmocka_unit_test_teardown(layer_normalization, tu_teardown),
        cmocka_unit_test_teardown(layer_normalization_bad_scale, tu_teardown),
        cmocka_unit_test_teardown(rms_normalization, tu_teardown),
        cmocka_unit_test_teardown(group_normalization_21, tu_teardown),
        cmocka_unit_test_teardown(group_normalization_18, tu_teardown),
        cmocka_unit_test_teardown(group_normalization_21_rejects_per_group_scale, tu_teardown),
        cmocka_unit_test_teardown(other_normalizations, tu_teardown),
        cmocka_unit_test_teardown(gelu_and_activations, tu_teardown),
        cmocka_unit_test_teardown(gelu_bad_approximate, tu_teardown),
        cmocka_unit_test_teardown(variadic_mean_sum_max, tu_teardown),
        cmocka_unit_test_teardown(variadic_before_opset_8_needs_equal_shapes, tu_teardown),
        cmocka_unit_test_teardown(integer_values, tu_teardown),
        cmocka_unit_test_teardown(legacy_logical_broadcast, tu_teardown),
        cmocka_unit_test_teardown(softmax_family_rows, tu_teardown),
        cmocka_unit_test_teardown(softmax_family_rows_13, tu_teardown),
        cmocka_unit_test_teardown(cumsum_det_trilu, tu_teardown),
        cmocka_unit_test_teardown(random_ops, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
