/*
 * test_fold.c — value propagation (analyzer/fold.h), and what an analysis
 * says when its numbers cannot be exact (sizes past 64 bits, dims left
 * unbound), on small graphs whose results are worked out by hand in the
 * comments. The ONNX backend data checks every folded op's values
 * (tests/oracle/fold_values.py); these check what the data cannot: shapes
 * that depend on a folded chain, the limits, and overflow.
 */
#include "testutil.h"

#include "fold.h"

#include <math.h>
#include <stdio.h>

/* ConstantOfShape's `value`: a one-element int64 tensor */
static struct pbw i64_value_attr(int64_t v) {
    struct pbw t = pb_tensor_i64("v", 1, TU_DIMS(1), &v);
    return pb_attr_tensor("value", &t);
}

static void i64_const(struct pb_model *pm, const char *name, int n, const int64_t *v) {
    if (n < 0) /* scalar */
        pbm_init(pm, pb_tensor_i64(name, 0, NULL, v));
    else
        pbm_init(pm, pb_tensor_i64(name, 1, TU_DIMS(n), v));
}

/* torch's F.pad lowering of Swin's window padding, as exported at opset 14:
 * pad_b = (7 - H % 7) % 7 from the shape, pads built in torch's order
 * (last axis first, begin/end pairs), then reversed into ONNX order by
 * Reshape -> Slice(step -1) -> Transpose -> Reshape, Cast and Pad. */
static void swin_window_pads(void **state) {
    (void)state;
    struct pb_model pm = {0};
    /* x: [1, 10, 12, 4] (N, H, W, C) */
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 10, 12, 4), NULL));
    i64_const(&pm, "i1", -1, TU_DIMS(1));
    i64_const(&pm, "i2", -1, TU_DIMS(2));
    i64_const(&pm, "w7", -1, TU_DIMS(7));
    i64_const(&pm, "zero1", 1, TU_DIMS(0));
    i64_const(&pm, "ax0", 1, TU_DIMS(0));
    i64_const(&pm, "eight", -1, TU_DIMS(8));
    i64_const(&pm, "rs", 2, TU_DIMS(-1, 2));
    i64_const(&pm, "st", 1, TU_DIMS(-1));
    i64_const(&pm, "en", 1, TU_DIMS(INT64_MIN + 1));
    i64_const(&pm, "sax", 1, TU_DIMS(0));
    i64_const(&pm, "step", 1, TU_DIMS(-1));
    i64_const(&pm, "flat", 1, TU_DIMS(-1));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("gh", "Gather", TU_LIST("s", "i1"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("gw", "Gather", TU_LIST("s", "i2"), TU_LIST("w"), 0, NULL));
    /* pad = (7 - d % 7) % 7: H = 10 -> 4, W = 12 -> 2 */
    struct pbw fm[] = {pb_attr_int("fmod", 0)};
    pbm_node(&pm, pb_node("hm", "Mod", TU_LIST("h", "w7"), TU_LIST("hm"), 1, fm));
    pbm_node(&pm, pb_node("hs", "Sub", TU_LIST("w7", "hm"), TU_LIST("hs"), 0, NULL));
    pbm_node(&pm, pb_node("hp", "Mod", TU_LIST("hs", "w7"), TU_LIST("hp"), 0, NULL));
    pbm_node(&pm, pb_node("wm", "Mod", TU_LIST("w", "w7"), TU_LIST("wm"), 0, NULL));
    pbm_node(&pm, pb_node("ws", "Sub", TU_LIST("w7", "wm"), TU_LIST("ws"), 0, NULL));
    pbm_node(&pm, pb_node("wp", "Mod", TU_LIST("ws", "w7"), TU_LIST("wp"), 0, NULL));
    pbm_node(&pm, pb_node("uh", "Unsqueeze", TU_LIST("hp", "ax0"), TU_LIST("uh"), 0, NULL));
    pbm_node(&pm, pb_node("uw", "Unsqueeze", TU_LIST("wp", "ax0"), TU_LIST("uw"), 0, NULL));
    /* torch order: (C: 0, 0, W: 0, wp, H: 0, hp) */
    struct pbw ca[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("zero1", "zero1", "zero1", "uw", "zero1", "uh"), TU_LIST("p6"), 1,
                          ca));
    /* padded to 8 entries with ConstantOfShape(8 - Size) zeros */
    pbm_node(&pm, pb_node("ps", "Shape", TU_LIST("p6"), TU_LIST("p6s"), 0, NULL));
    pbm_node(&pm, pb_node("rest", "Sub", TU_LIST("eight", "p6s"), TU_LIST("rest"), 0, NULL));
    pbm_node(&pm, pb_node("zeros", "ConstantOfShape", TU_LIST("rest"), TU_LIST("z2"), 1,
                          (struct pbw[]){i64_value_attr(0)}));
    struct pbw ca2[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat8", "Concat", TU_LIST("p6", "z2"), TU_LIST("p8"), 1, ca2));
    /* [[0,0],[0,2],[0,4],[0,0]] reversed by rows -> [[0,0],[0,4],[0,2],[0,0]],
     * transposed -> [[0,0,0,0],[0,4,2,0]]: begins 0 0 0 0, ends 0 4 2 0 */
    pbm_node(&pm, pb_node("r2", "Reshape", TU_LIST("p8", "rs"), TU_LIST("p42"), 0, NULL));
    pbm_node(&pm, pb_node("rev", "Slice", TU_LIST("p42", "st", "en", "sax", "step"), TU_LIST("p42r"), 0, NULL));
    pbm_node(&pm, pb_node("tr", "Transpose", TU_LIST("p42r"), TU_LIST("p24"), 1,
                          (struct pbw[]){pb_attr_ints("perm", 2, TU_DIMS(1, 0))}));
    pbm_node(&pm, pb_node("r8", "Reshape", TU_LIST("p24", "flat"), TU_LIST("pads"), 0, NULL));
    pbm_node(&pm, pb_node("cast", "Cast", TU_LIST("pads"), TU_LIST("pads64"), 1,
                          (struct pbw[]){pb_attr_int("to", PB_INT64)}));
    pbm_node(&pm, pb_node("pad", "Pad", TU_LIST("x", "pads64"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 14, NULL);
    const struct oc_value *pads = tu_out(an, "cast", 0);
    const int64_t want[8] = {0, 0, 0, 0, 0, 4, 2, 0};
    assert_non_null(pads->ival);
    assert_int_equal(pads->n_ival, 8);
    for (int k = 0; k < 8; k++)
        assert_int_equal(pads->ival[k], want[k]);
    /* [1, 10 + 4, 12 + 2, 4] */
    TU_SHAPE(tu_out(an, "pad", 0), 1, 14, 14, 4);
    assert_true(oc_totals_exact(&an->totals));
}

/* Float shape arithmetic (Resize-style): floor(float(H) * 0.5) cast back to
 * int64 and used in a Reshape target. H = 9: 4.5 -> 4. */
static void float_arithmetic_to_shape(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(9, 8), NULL));
    i64_const(&pm, "i0", 1, TU_DIMS(0));
    i64_const(&pm, "m1", 1, TU_DIMS(-1));
    struct pbw half = {0};
    const uint8_t le_half[4] = {0x00, 0x00, 0x00, 0x3f}; /* 0.5f, little-endian */
    pbw_str(&half, 8, "half");
    pbw_int(&half, 2, PB_FLOAT);
    pbw_bytes(&half, 4, le_half, sizeof le_half); /* float_data (packed), a scalar */
    pbm_init(&pm, half);
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("g", "Gather", TU_LIST("s", "i0"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("tf", "Cast", TU_LIST("h"), TU_LIST("hf"), 1, (struct pbw[]){pb_attr_int("to", PB_FLOAT)}));
    pbm_node(&pm, pb_node("mul", "Mul", TU_LIST("hf", "half"), TU_LIST("hh"), 0, NULL));
    pbm_node(&pm, pb_node("fl", "Floor", TU_LIST("hh"), TU_LIST("hfl"), 0, NULL));
    pbm_node(&pm, pb_node("ti", "Cast", TU_LIST("hfl"), TU_LIST("hi"), 1, (struct pbw[]){pb_attr_int("to", PB_INT64)}));
    struct pbw ca[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("hi", "m1"), TU_LIST("target"), 1, ca));
    pbm_node(&pm, pb_node("fx", "Reshape", TU_LIST("x", "target"), TU_LIST("xs"), 0, NULL));
    pbm_output(&pm, pb_value_info("xs", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const struct oc_value *hh = tu_out(an, "mul", 0);
    assert_non_null(hh->fval);
    assert_true(hh->fval[0] == 4.5);
    const struct oc_value *t = tu_out(an, "cat", 0);
    assert_non_null(t->ival);
    assert_int_equal(t->ival[0], 4);
    assert_int_equal(t->ival[1], -1);
    /* 9 * 8 = 72 elements as [4, -1]: [4, 18] */
    TU_SHAPE(tu_out(an, "fx", 0), 4, 18);
}

/* A tensor over OC_FOLD_MAX_ELEMS elements is not folded: its consumer's
 * shape stays unknown and the analysis says it is incomplete. */
static void fold_size_limit(void **state) {
    (void)state;
    struct pb_model pm = {0};
    int64_t n = (int64_t)OC_FOLD_MAX_ELEMS + 1;
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(4), NULL));
    i64_const(&pm, "len", 1, &n);
    pbm_node(&pm, pb_node("big", "ConstantOfShape", TU_LIST("len"), TU_LIST("ones"), 1,
                          (struct pbw[]){i64_value_attr(1)}));
    /* the sum would be the new length, if it were folded */
    pbm_node(&pm, pb_node("sum", "ReduceSum", TU_LIST("ones"), TU_LIST("total"), 1,
                          (struct pbw[]){pb_attr_int("keepdims", 1)}));
    pbm_node(&pm, pb_node("cos", "ConstantOfShape", TU_LIST("total"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "big", 0), OC_FOLD_MAX_ELEMS + 1);
    assert_null(tu_out(an, "big", 0)->ival);
    assert_null(tu_out(an, "sum", 0)->ival);
    assert_int_equal(tu_out(an, "cos", 0)->rank, -1);
    assert_false(oc_totals_exact(&an->totals));
    assert_int_equal(an->totals.n_uncosted, 1);
    assert_true(tu_warned(an, "incomplete analysis: 1 of 3 nodes have no cost"));
}

/* The whole analysis folds at most OC_FOLD_BUDGET elements: 70 Range nodes
 * of 60,000 elements each (4.2 M > 2^22 = 4,194,304) fold the first 69
 * (4,140,000) and not the 70th. */
static void fold_budget(void **state) {
    (void)state;
    struct pb_model pm = {0};
    i64_const(&pm, "s", -1, TU_DIMS(0));
    i64_const(&pm, "l", -1, TU_DIMS(60000));
    i64_const(&pm, "d", -1, TU_DIMS(1));
    char names[70][2][16];
    for (int k = 0; k < 70; k++) {
        snprintf(names[k][0], 16, "r%d", k);
        snprintf(names[k][1], 16, "v%d", k);
        pbm_node(&pm, pb_node(names[k][0], "Range", TU_LIST("s", "l", "d"), TU_LIST(names[k][1]), 0, NULL));
        pbm_output(&pm, pb_value_info(names[k][1], PB_INT64, -1, NULL, NULL));
    }
    tu_analyze_ok(&pm, 13, NULL);
    /* the 3 scalars read from the file count too: 3 + 69 * 60,000 <= 2^22 */
    for (int k = 0; k < 69; k++)
        assert_non_null(tu_out(an, names[k][0], 0)->ival);
    assert_null(tu_out(an, "r69", 0)->ival);
    TU_SHAPE(tu_out(an, "r69", 0), 60000);
}

/* An output of 2^62 float elements is 2^64 bytes: its size saturates at
 * 2^64 - 1 with the overflow flag, never 0; its consumer's 2^62 FLOPs are
 * counted; the totals are not exact. */
static void size_overflow_saturates(void **state) {
    (void)state;
    struct pb_model pm = {0};
    i64_const(&pm, "shape", 2, TU_DIMS((int64_t)1 << 31, (int64_t)1 << 31));
    pbm_node(&pm, pb_node("big", "ConstantOfShape", TU_LIST("shape"), TU_LIST("z"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("z"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const struct oc_node *big = tu_node(an, "big"), *relu = tu_node(an, "relu");
    assert_true(big->activation_bytes == UINT64_MAX);
    assert_true(big->cost.flags & OC_COST_OVERFLOW);
    assert_true(relu->cost.flops == (uint64_t)1 << 62);
    assert_true(an->totals.flags & OC_COST_OVERFLOW);
    assert_true(an->totals.activation_bytes == UINT64_MAX);
    assert_true(an->totals.peak_activation_bytes == UINT64_MAX);
    assert_false(oc_totals_exact(&an->totals));
}

/* Tile to 2^40 x 2^40 elements: the element count itself passes 64 bits;
 * the Tile moves data (0 FLOPs), the Relu after it has a saturated count. */
static void element_overflow_saturates(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 2), NULL));
    i64_const(&pm, "rep", 2, TU_DIMS((int64_t)1 << 39, (int64_t)1 << 39));
    pbm_node(&pm, pb_node("tile", "Tile", TU_LIST("x", "rep"), TU_LIST("t"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("t"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "tile", 0), (int64_t)1 << 40, (int64_t)1 << 40);
    const struct oc_node *tile = tu_node(an, "tile"), *relu = tu_node(an, "relu");
    assert_true(tile->cost.flops == 0);
    assert_true(tile->activation_bytes == UINT64_MAX);
    assert_true(relu->cost.flops == UINT64_MAX);
    assert_true(relu->cost.flags & OC_COST_OVERFLOW);
    assert_true(an->totals.flops == UINT64_MAX);
    assert_false(oc_totals_exact(&an->totals));
}

/* Weights are never read: a float initializer of 768 elements through an
 * Identity (as exporters pass a LayerNorm gain) is not folded, an int64 one
 * of the same size (an index table) is, and so is a float scalar. */
static void weights_not_read(void **state) {
    (void)state;
    struct pb_model pm = {0};
    int64_t idx[768];
    for (int k = 0; k < 768; k++)
        idx[k] = k;
    pbm_init(&pm, pb_tensor_f32("gain", 1, TU_DIMS(768)));
    pbm_init(&pm, pb_tensor_i64("index", 1, TU_DIMS(768), idx));
    pbm_init(&pm, pb_tensor_f32("eps", 0, NULL));
    pbm_node(&pm, pb_node("id_gain", "Identity", TU_LIST("gain"), TU_LIST("g2"), 0, NULL));
    pbm_node(&pm, pb_node("id_index", "Identity", TU_LIST("index"), TU_LIST("i2"), 0, NULL));
    pbm_node(&pm, pb_node("id_eps", "Identity", TU_LIST("eps"), TU_LIST("e2"), 0, NULL));
    pbm_output(&pm, pb_value_info("g2", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("i2", PB_INT64, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("e2", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    assert_null(tu_out(an, "id_gain", 0)->fval);
    assert_non_null(tu_out(an, "id_index", 0)->ival);
    assert_int_equal(tu_out(an, "id_index", 0)->ival[767], 767);
    assert_non_null(tu_out(an, "id_eps", 0)->fval);
    assert_true(tu_out(an, "id_eps", 0)->fval[0] == 0.0);
}

/* A model that is invalid only because its unbound dims were taken as 1
 * says so: a 3x3 convolution over [1, 1, H, W] with H, W unbound. */
static void unbound_dims_named_in_error(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 1, -1, -1), (const char *const[]){NULL, NULL, "H", "W"}));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(1, 1, 3, 3)));
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    bytes = pbm_finish(&pm, 13);
    assert_int_equal(tu_analyze(&bytes, NULL, &md, &an, &dg), OC_ERR_MODEL);
    if (!strstr(dg.msg, "(with the unbound dims H, W taken as 1; bind them with --dim NAME=N)"))
        fail_msg("message '%s' does not name the unbound dims", dg.msg);
    /* bound, it is valid: [1, 1, 6, 6] */
    tu_free(md, an, &bytes);
    struct pb_model pm2 = {0};
    pbm_input(&pm2, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 1, -1, -1), (const char *const[]){NULL, NULL, "H", "W"}));
    pbm_init(&pm2, pb_tensor_f32("w", 4, TU_DIMS(1, 1, 3, 3)));
    pbm_node(&pm2, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm2, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    const struct oc_binding b[] = {{"H", 8}, {"W", 8}};
    struct oc_analyze_opts o = {.dims = b, .n_dims = 2};
    tu_analyze_ok(&pm2, 13, &o);
    TU_SHAPE(tu_out(an, "conv", 0), 1, 1, 6, 6);
}

/* Rounding to the narrow float types, nearest with ties to even. */
static void rounding(void **state) {
    (void)state;
    /* f16: 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1) */
    assert_true(oc_round_to_dtype(10, 1.0 + ldexp(1, -11)) == 1.0);
    assert_true(oc_round_to_dtype(10, 1.0 + 3 * ldexp(1, -11)) == 1.0 + ldexp(1, -9));
    assert_true(oc_round_to_dtype(10, 65504.0) == 65504.0);
    assert_true(isinf(oc_round_to_dtype(10, 65520.0)));
    assert_true(oc_round_to_dtype(10, 65519.0) == 65504.0);
    assert_true(oc_round_to_dtype(10, ldexp(1, -25)) == 0.0); /* half the smallest subnormal: to even 0 */
    assert_true(oc_round_to_dtype(10, ldexp(3, -26)) == ldexp(1, -24));
    /* bf16: 8 significant bits; 1 + 2^-8 halfway: to even (1) */
    assert_true(oc_round_to_dtype(16, 1.0 + ldexp(1, -8)) == 1.0);
    assert_true(oc_round_to_dtype(16, 257.0) == 256.0);
    assert_true(oc_round_to_dtype(16, 259.0) == 260.0);
    /* f32: 2^24 + 1 is not representable: to even */
    assert_true(oc_round_to_dtype(1, 16777217.0) == 16777216.0);
    assert_true(oc_round_to_dtype(11, 16777217.0) == 16777217.0);
}

/* An integer into a narrower type wraps as ONNX Runtime's Cast does (a
   static_cast: the value mod 2^bits, worked out by hand); a float out of
   range stays unknown; to bool, x != 0 */
static void integer_casts_wrap(void **state) {
    (void)state;
    int64_t i[1];
    struct oc_fold_out o = {.n = 1, .i = i};
    const struct {
        int32_t dt;
        int64_t x, want;
    } cases[] = {
        {3, 127, 127},      {3, 128, -128},     {3, 200, -56},   {3, -129, 127}, {3, 300, 44},
        {2, 256, 0},        {2, -1, 255},       {5, 40000, -25536}, {4, 70000, 4464},
        {6, 2147483648, -2147483648}, {12, -1, 4294967295}, {9, 256, 1}, {9, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        o.dtype = cases[k].dt;
        assert_true(oc_fold_put_i(&o, 0, cases[k].x));
        assert_int_equal(i[0], cases[k].want);
    }
    o.dtype = 13; /* uint64, kept up to INT64_MAX: a negative is not held */
    assert_false(oc_fold_put_i(&o, 0, -1));
    o.dtype = 3; /* a float out of int8's range: undefined in a runtime, unknown here */
    assert_false(oc_fold_put_f(&o, 0, 200.0));
    assert_true(oc_fold_put_f(&o, 0, -7.9));
    assert_int_equal(i[0], -7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(swin_window_pads, tu_teardown),
        cmocka_unit_test_teardown(float_arithmetic_to_shape, tu_teardown),
        cmocka_unit_test_teardown(fold_size_limit, tu_teardown),
        cmocka_unit_test_teardown(fold_budget, tu_teardown),
        cmocka_unit_test_teardown(size_overflow_saturates, tu_teardown),
        cmocka_unit_test_teardown(element_overflow_saturates, tu_teardown),
        cmocka_unit_test_teardown(weights_not_read, tu_teardown),
        cmocka_unit_test_teardown(unbound_dims_named_in_error, tu_teardown),
        cmocka_unit_test(rounding),
        cmocka_unit_test(integer_casts_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
