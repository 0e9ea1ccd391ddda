/*
 * test_tensor.c — shape rules and costs of the tensor ops added with
 * ops/index.c, ops/sample.c, ops/einsum.c and the ConvTranspose /
 * DeformConv / pooling / reduction additions. Every expected number is
 * worked out by hand in the comment next to it, from the ONNX spec and the
 * formula in the op's cost function comment (docs/COSTS.md).
 */
#include <math.h>
#include "testutil.h"

#include <stdlib.h>

static int64_t numel(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    return n;
}


/* BOOL tensor, one raw byte per element. */
static struct pbw tensor_bool(const char *name, int rank, const int64_t *dims, const uint8_t *v) {
    struct pbw t = {0};
    for (int i = 0; i < rank; i++)
        pbw_int(&t, 1, dims[i]);
    pbw_int(&t, 2, PB_BOOL);
    pbw_str(&t, 8, name);
    pbw_bytes(&t, 9, v, (size_t)numel(rank, dims));
    return t;
}


static void conv_transpose(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 5, 5), NULL));
    /* W [C = 4, M/group = 3, 3, 3]: group 2 gives M = 6 output channels */
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(4, 3, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(6)));
    pbm_init(&pm, pb_tensor_f32("w1", 4, TU_DIMS(4, 1, 3, 3)));
    struct pbw a1[] = {pb_attr_int("group", 2), pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                       pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1)),
                       pb_attr_ints("output_padding", 2, TU_DIMS(1, 1))};
    pbm_node(&pm, pb_node("ct", "ConvTranspose", TU_LIST("x", "w", "b"), TU_LIST("y"), 4, a1));
    struct pbw a2[] = {pb_attr_ints("strides", 2, TU_DIMS(2, 2)), pb_attr_str("auto_pad", "SAME_UPPER")};
    pbm_node(&pm, pb_node("same", "ConvTranspose", TU_LIST("x", "w1"), TU_LIST("y2"), 2, a2));
    struct pbw a3[] = {pb_attr_ints("strides", 2, TU_DIMS(3, 2)), pb_attr_ints("output_shape", 2, TU_DIMS(16, 11))};
    pbm_node(&pm, pb_node("oshape", "ConvTranspose", TU_LIST("x", "w1"), TU_LIST("y3"), 2, a3));
    struct pbw a4[] = {pb_attr_ints("dilations", 2, TU_DIMS(2, 2))};
    pbm_node(&pm, pb_node("dil", "ConvTranspose", TU_LIST("x", "w1"), TU_LIST("y4"), 1, a4));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 22, NULL);
    /* stride * (in - 1) + output_padding + k - pb - pe = 2*4 + 1 + 3 - 1 - 1 = 10; M = 3 * 2 = 6 */
    TU_SHAPE(tu_out(an, "ct", 0), 1, 6, 10, 10);
    const struct oc_node *n = tu_node(an, "ct");
    /* input side: numel(X) * (M/group) * prod(k) = 100 * 3 * 9 = 2,700 MACs.
     * (The output-side count numel(Y) * (C/group) * prod(k) = 600 * 2 * 9 = 10,800
     * would be 4x: most outputs meet only a quarter of the kernel at stride 2.) */
    assert_int_equal(n->cost.macs, 2700);
    /* FLOPs = 2 * 2,700 + numel(Y) = 600 bias adds = 6,000 */
    assert_int_equal(n->cost.flops, 6000);
    /* params = 4*3*3*3 + 6 = 114 */
    assert_int_equal(n->params, 114);
    /* SAME_UPPER: in * stride = 10; W [4, 1, 3, 3], group 1: M = 1 */
    TU_SHAPE(tu_out(an, "same", 0), 1, 1, 10, 10);
    /* 100 * 1 * 9 = 900 MACs, no bias */
    assert_int_equal(tu_node(an, "same")->cost.macs, 900);
    assert_int_equal(tu_node(an, "same")->cost.flops, 1800);
    /* output_shape wins */
    TU_SHAPE(tu_out(an, "oshape", 0), 1, 1, 16, 11);
    /* 1 * (5 - 1) + (3 - 1) * 2 + 1 = 9 */
    TU_SHAPE(tu_out(an, "dil", 0), 1, 1, 9, 9);
}

static void deform_conv(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 6, 6), NULL));
    pbm_input(&pm, pb_value_info("off", PB_FLOAT, 4, TU_DIMS(1, 18, 4, 4), NULL));
    pbm_input(&pm, pb_value_info("mask", PB_FLOAT, 4, TU_DIMS(1, 9, 4, 4), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(8, 2, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(8)));
    struct pbw at[] = {pb_attr_int("group", 2)};
    pbm_node(&pm, pb_node("dc", "DeformConv", TU_LIST("x", "w", "off", "b", "mask"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 19, NULL);
    /* (6 - 3) / 1 + 1 = 4 */
    TU_SHAPE(tu_out(an, "dc", 0), 1, 8, 4, 4);
    const struct oc_node *n = tu_node(an, "dc");
    /* as Conv: numel(Y) = 128 * (C/group = 2) * 9 = 2,304 MACs */
    assert_int_equal(n->cost.macs, 2304);
    /* samples S = N*C*prod(k)*prod(O) = 4*9*16 = 576; bilinear 7 each = 4,032;
     * mask 576; bias 128: 4,608 + 4,032 + 576 + 128 = 9,344 */
    assert_int_equal(n->cost.flops, 9344);
}

static void einsum_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 3, TU_DIMS(2, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("sq", PB_FLOAT, 2, TU_DIMS(6, 6), NULL));
    pbm_input(&pm, pb_value_info("u", PB_FLOAT, 1, TU_DIMS(3), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_input(&pm, pb_value_info("e1", PB_FLOAT, 4, TU_DIMS(2, 1, 3, 4), NULL));
    pbm_input(&pm, pb_value_info("e2", PB_FLOAT, 3, TU_DIMS(5, 4, 6), NULL));
    pbm_input(&pm, pb_value_info("m1", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("m2", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    pbm_input(&pm, pb_value_info("m3", PB_FLOAT, 2, TU_DIMS(4, 5), NULL));
    struct pbw q1[] = {pb_attr_str("equation", "bij, bjk -> bik")};
    pbm_node(&pm, pb_node("bmm", "Einsum", TU_LIST("a", "b"), TU_LIST("y1"), 1, q1));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("a", "b"), TU_LIST("y1m"), 0, NULL));
    struct pbw q2[] = {pb_attr_str("equation", "ii->")};
    pbm_node(&pm, pb_node("trace", "Einsum", TU_LIST("sq"), TU_LIST("y2"), 1, q2));
    struct pbw q3[] = {pb_attr_str("equation", "i,j->ij")};
    pbm_node(&pm, pb_node("outer", "Einsum", TU_LIST("u", "v"), TU_LIST("y3"), 1, q3));
    struct pbw q4[] = {pb_attr_str("equation", "...ij,...jk")};
    pbm_node(&pm, pb_node("ell", "Einsum", TU_LIST("e1", "e2"), TU_LIST("y4"), 1, q4));
    struct pbw q5[] = {pb_attr_str("equation", "ij,jk,kl->il")};
    pbm_node(&pm, pb_node("chain", "Einsum", TU_LIST("m1", "m2", "m3"), TU_LIST("y5"), 1, q5));
    struct pbw q6[] = {pb_attr_str("equation", "ij->i")};
    pbm_node(&pm, pb_node("sum", "Einsum", TU_LIST("m2"), TU_LIST("y6"), 1, q6));
    struct pbw q7[] = {pb_attr_str("equation", "ij->ji")};
    pbm_node(&pm, pb_node("tr", "Einsum", TU_LIST("m2"), TU_LIST("y7"), 1, q7));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 12, NULL);
    /* batched matmul: [2, 3, 5]; MACs = b*i*j*k = 2*3*4*5 = 120, as MatMul */
    TU_SHAPE(tu_out(an, "bmm", 0), 2, 3, 5);
    assert_int_equal(tu_node(an, "bmm")->cost.macs, 120);
    assert_int_equal(tu_node(an, "bmm")->cost.flops, 240);
    assert_int_equal(tu_node(an, "mm")->cost.macs, tu_node(an, "bmm")->cost.macs);
    /* trace of 6 x 6: a scalar; one operand: P = 6 (the diagonal) - numel(Y) 1 = 5 adds */
    assert_int_equal(tu_out(an, "trace", 0)->rank, 0);
    assert_int_equal(tu_node(an, "trace")->cost.macs, 0);
    assert_int_equal(tu_node(an, "trace")->cost.flops, 5);
    /* outer product [3, 4]: MACs = i*j = 12 */
    TU_SHAPE(tu_out(an, "outer", 0), 3, 4);
    assert_int_equal(tu_node(an, "outer")->cost.macs, 12);
    assert_int_equal(tu_node(an, "outer")->cost.flops, 24);
    /* implicit output: "..." = broadcast of (2, 1) and (5) = (2, 5), then the letters
     * used once, i and k: [2, 5, 3, 6]; MACs = 2*5 * i*j*k = 10 * 3*4*6 = 720 */
    TU_SHAPE(tu_out(an, "ell", 0), 2, 5, 3, 6);
    assert_int_equal(tu_node(an, "ell")->cost.macs, 720);
    /* three operands, pairwise left to right: (ij, jk) -> i*j*k = 24, keeps i, k;
     * (ik, kl) -> i*k*l = 40: MACs 64, FLOPs 128 */
    TU_SHAPE(tu_out(an, "chain", 0), 2, 5);
    assert_int_equal(tu_node(an, "chain")->cost.macs, 64);
    assert_int_equal(tu_node(an, "chain")->cost.flops, 128);
    /* row sums of [3, 4]: 12 - 3 = 9 adds; a transpose costs 0 */
    TU_SHAPE(tu_out(an, "sum", 0), 3);
    assert_int_equal(tu_node(an, "sum")->cost.flops, 9);
    TU_SHAPE(tu_out(an, "tr", 0), 4, 3);
    assert_int_equal(tu_node(an, "tr")->cost.flops, 0);
}

static void split_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 7), NULL));
    pbm_init(&pm, pb_tensor_i64("parts", 1, TU_DIMS(2), TU_DIMS(3, 4)));
    struct pbw a1[] = {pb_attr_int("axis", 1), pb_attr_int("num_outputs", 4)};
    pbm_node(&pm, pb_node("uneven", "Split", TU_LIST("x"), TU_LIST("s0", "s1", "s2", "s3"), 2, a1));
    struct pbw a2[] = {pb_attr_int("axis", -1)};
    pbm_node(&pm, pb_node("given", "Split", TU_LIST("x", "parts"), TU_LIST("g0", "g1"), 1, a2));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("shp"), 0, NULL));
    struct pbw a3[] = {pb_attr_int("num_outputs", 2)};
    pbm_node(&pm, pb_node("vec", "Split", TU_LIST("shp"), TU_LIST("d0", "d1"), 1, a3));
    pbm_output(&pm, pb_value_info("s3", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* 7 into 4: ceil(7/4) = 2 each, the last 7 - 3*2 = 1 */
    TU_SHAPE(tu_out(an, "uneven", 0), 2, 2);
    TU_SHAPE(tu_out(an, "uneven", 1), 2, 2);
    TU_SHAPE(tu_out(an, "uneven", 2), 2, 2);
    TU_SHAPE(tu_out(an, "uneven", 3), 2, 1);
    assert_int_equal(tu_node(an, "uneven")->cost.flops, 0);
    /* split input [3, 4] */
    TU_SHAPE(tu_out(an, "given", 0), 2, 3);
    TU_SHAPE(tu_out(an, "given", 1), 2, 4);
    /* a shape vector [2, 7] splits into [2] and [7], values kept */
    const struct oc_value *d1 = tu_out(an, "vec", 1);
    TU_SHAPE(d1, 1);
    assert_non_null(d1->ival);
    assert_int_equal(d1->ival[0], 7);
}

static void split_old_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(6), NULL));
    struct pbw a1[] = {pb_attr_ints("split", 2, TU_DIMS(1, 5))};
    pbm_node(&pm, pb_node("attr", "Split", TU_LIST("x"), TU_LIST("a0", "a1"), 1, a1));
    pbm_node(&pm, pb_node("equal", "Split", TU_LIST("x"), TU_LIST("e0", "e1", "e2"), 0, NULL));
    pbm_output(&pm, pb_value_info("a0", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    TU_SHAPE(tu_out(an, "attr", 0), 1);
    TU_SHAPE(tu_out(an, "attr", 1), 5);
    /* 6 into 3 equal parts */
    TU_SHAPE(tu_out(an, "equal", 2), 2);
}

static void resize_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 3, 20, 30), NULL));
    pbm_input(&pm, pb_value_info("s", PB_FLOAT, 4, TU_DIMS(1, 1, 8, 8), NULL));
    pbm_init(&pm, pb_tensor_i64("sizes", 1, TU_DIMS(4), TU_DIMS(1, 3, 40, 45)));
    pbm_init(&pm, pb_tensor_f32v("scales", 1, TU_DIMS(4), TU_FLOATS(1.0f, 1.0f, 2.5f, 0.5f), false));
    pbm_init(&pm, pb_tensor_i64("hw", 1, TU_DIMS(2), TU_DIMS(32, 32)));
    pbm_init(&pm, pb_tensor_f32v("half", 1, TU_DIMS(4), TU_FLOATS(1.0f, 1.0f, 0.5f, 0.5f), true));
    struct pbw m1[] = {pb_attr_str("mode", "linear")};
    pbm_node(&pm, pb_node("by_sizes", "Resize", TU_LIST("x", "", "", "sizes"), TU_LIST("y1"), 1, m1));
    pbm_node(&pm, pb_node("by_scales", "Resize", TU_LIST("x", "", "scales"), TU_LIST("y2"), 0, NULL));
    struct pbw t2 = pb_tensor_f32v(NULL, 1, TU_DIMS(4), TU_FLOATS(1.0f, 1.0f, 2.0f, 2.0f), false);
    struct pbw ca[] = {pb_attr_tensor("value", &t2)};
    pbm_node(&pm, pb_node("k", "Constant", NULL, TU_LIST("kscales"), 1, ca));
    struct pbw m3[] = {pb_attr_str("mode", "cubic")};
    pbm_node(&pm, pb_node("by_const", "Resize", TU_LIST("x", "", "kscales"), TU_LIST("y3"), 1, m3));
    struct pbw m4[] = {pb_attr_ints("axes", 2, TU_DIMS(2, 3)), pb_attr_str("keep_aspect_ratio_policy", "not_larger")};
    pbm_node(&pm, pb_node("not_larger", "Resize", TU_LIST("x", "", "", "hw"), TU_LIST("y4"), 2, m4));
    struct pbw m5[] = {pb_attr_ints("axes", 2, TU_DIMS(2, 3)), pb_attr_str("keep_aspect_ratio_policy", "not_smaller")};
    pbm_node(&pm, pb_node("not_smaller", "Resize", TU_LIST("x", "", "", "hw"), TU_LIST("y5"), 2, m5));
    struct pbw m6[] = {pb_attr_str("mode", "linear"), pb_attr_int("antialias", 1)};
    pbm_node(&pm, pb_node("aa", "Resize", TU_LIST("s", "", "half"), TU_LIST("y6"), 2, m6));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* sizes taken as given; linear on the 2 resized axes: T = 2*2 = 4 taps,
     * 2T - 1 = 7 per output: 3*40*45 = 5,400 outputs -> 37,800 */
    TU_SHAPE(tu_out(an, "by_sizes", 0), 1, 3, 40, 45);
    assert_int_equal(tu_node(an, "by_sizes")->cost.flops, 37800);
    /* floor(20 * 2.5) = 50, floor(30 * 0.5) = 15; nearest (default): 0 FLOPs */
    TU_SHAPE(tu_out(an, "by_scales", 0), 1, 3, 50, 15);
    assert_int_equal(tu_node(an, "by_scales")->cost.flops, 0);
    /* scales from a Constant node: [1, 3, 40, 60]; cubic T = 4*4 = 16, 31 per output:
     * 3*40*60 = 7,200 outputs -> 223,200 */
    TU_SHAPE(tu_out(an, "by_const", 0), 1, 3, 40, 60);
    assert_int_equal(tu_node(an, "by_const")->cost.flops, 223200);
    /* not_larger: s = min(32/20, 32/30) = 1.0667: round(21.33) = 21, round(32.0) = 32 */
    TU_SHAPE(tu_out(an, "not_larger", 0), 1, 3, 21, 32);
    /* not_smaller: s = max(1.6, 1.0667) = 1.6: 32, 48 */
    TU_SHAPE(tu_out(an, "not_smaller", 0), 1, 3, 32, 48);
    /* scales in packed float_data: 8 * 0.5 = 4; antialias linear downscale 2x: taps per
     * axis 2 * ceil(8/4) = 4, T = 16, 31 per output: 16 outputs -> 496 */
    TU_SHAPE(tu_out(an, "aa", 0), 1, 1, 4, 4);
    assert_int_equal(tu_node(an, "aa")->cost.flops, 496);
}

static void resize10_upsample(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, 3, 4), NULL));
    pbm_init(&pm, pb_tensor_f32v("sc", 1, TU_DIMS(4), TU_FLOATS(1.0f, 1.0f, 2.0f, 3.0f), false));
    struct pbw m1[] = {pb_attr_str("mode", "linear")};
    pbm_node(&pm, pb_node("r10", "Resize", TU_LIST("x", "sc"), TU_LIST("y1"), 1, m1));
    pbm_node(&pm, pb_node("up9", "Upsample", TU_LIST("x", "sc"), TU_LIST("y2"), 0, NULL));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 10, NULL);
    /* [1, 2, 3*2, 4*3]; linear on 2 axes: 7 per output, 2*6*12 = 144 outputs -> 1,008 */
    TU_SHAPE(tu_out(an, "r10", 0), 1, 2, 6, 12);
    assert_int_equal(tu_node(an, "r10")->cost.flops, 1008);
    TU_SHAPE(tu_out(an, "up9", 0), 1, 2, 6, 12);
    assert_int_equal(tu_node(an, "up9")->cost.flops, 0);
}

static void upsample7(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, 3, 4), NULL));
    struct pbw sc = {0}; /* AttributeProto: name, floats (field 7), type FLOATS */
    pbw_str(&sc, 1, "scales");
    for (int i = 0; i < 4; i++)
        pbw_float(&sc, 7, i < 2 ? 1.0f : 2.0f);
    pbw_int(&sc, 20, 6);
    struct pbw at[] = {sc, pb_attr_str("mode", "linear")};
    pbm_node(&pm, pb_node("up7", "Upsample", TU_LIST("x"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 7, NULL);
    /* [1, 2, 6, 8]; linear on 2 axes: 7 per output, 96 outputs -> 672 */
    TU_SHAPE(tu_out(an, "up7", 0), 1, 2, 6, 8);
    assert_int_equal(tu_node(an, "up7")->cost.flops, 672);
}

static void topk_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 10), NULL));
    pbm_init(&pm, pb_tensor_i64("k", 1, TU_DIMS(1), TU_DIMS(3)));
    pbm_node(&pm, pb_node("topk", "TopK", TU_LIST("x", "k"), TU_LIST("vals", "idx"), 0, NULL));
    pbm_output(&pm, pb_value_info("vals", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* axis -1: [4, 3] values (f32) and indices (i64) */
    TU_SHAPE(tu_out(an, "topk", 0), 4, 3);
    TU_SHAPE(tu_out(an, "topk", 1), 4, 3);
    assert_int_equal(tu_out(an, "topk", 0)->dtype, 1);
    assert_int_equal(tu_out(an, "topk", 1)->dtype, 7);
    /* numel(X) * ceil(log2 3) = 40 * 2 = 80 */
    assert_int_equal(tu_node(an, "topk")->cost.flops, 80);
}

static void topk_attr(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(5, 2), NULL));
    struct pbw at[] = {pb_attr_int("k", 1), pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("top1", "TopK", TU_LIST("x"), TU_LIST("v", "i"), 2, at));
    pbm_input(&pm, pb_value_info("x8", PB_FLOAT, 2, TU_DIMS(8, 2), NULL));
    struct pbw at4[] = {pb_attr_int("k", 4), pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("top4", "TopK", TU_LIST("x8"), TU_LIST("v4", "i4"), 2, at4));
    pbm_output(&pm, pb_value_info("v", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 9, NULL);
    TU_SHAPE(tu_out(an, "top1", 1), 1, 2);
    /* k = 1: one comparison per element, 10 */
    assert_int_equal(tu_node(an, "top1")->cost.flops, 10);
    /* k = 4 along axis 0 of [8, 2] (the last dim is 2, not k): 16 elements
       x ceil(log2 4) = 2 levels = 32 */
    TU_SHAPE(tu_out(an, "top4", 0), 4, 2);
    assert_int_equal(tu_node(an, "top4")->cost.flops, 32);
}

static void gather_scatter(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("d4", PB_FLOAT, 4, TU_DIMS(2, 3, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("i3", PB_INT64, 3, TU_DIMS(2, 6, 2), NULL));
    pbm_input(&pm, pb_value_info("d3", PB_FLOAT, 3, TU_DIMS(3, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("i2", PB_INT64, 2, TU_DIMS(7, 1), NULL));
    pbm_input(&pm, pb_value_info("ie", PB_INT64, 3, TU_DIMS(3, 2, 5), NULL));
    pbm_input(&pm, pb_value_info("dd", PB_FLOAT, 2, TU_DIMS(4, 5), NULL));
    pbm_input(&pm, pb_value_info("si", PB_INT64, 2, TU_DIMS(3, 1), NULL));
    pbm_input(&pm, pb_value_info("su", PB_FLOAT, 2, TU_DIMS(3, 5), NULL));
    struct pbw b1[] = {pb_attr_int("batch_dims", 1)};
    pbm_node(&pm, pb_node("gnd1", "GatherND", TU_LIST("d4", "i3"), TU_LIST("y1"), 1, b1));
    pbm_node(&pm, pb_node("gnd0", "GatherND", TU_LIST("d3", "i2"), TU_LIST("y2"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("ge", "GatherElements", TU_LIST("d3", "ie"), TU_LIST("y3"), 1, ax));
    struct pbw red[] = {pb_attr_str("reduction", "add")};
    pbm_node(&pm, pb_node("snd", "ScatterND", TU_LIST("dd", "si", "su"), TU_LIST("y4"), 1, red));
    pbm_node(&pm, pb_node("snd0", "ScatterND", TU_LIST("dd", "si", "su"), TU_LIST("y5"), 0, NULL));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* b = 1, m = 2: indices.shape[:-1] + data.shape[1+2:] = [2, 6] + [5] */
    TU_SHAPE(tu_out(an, "gnd1", 0), 2, 6, 5);
    /* b = 0, m = 1: [7] + [4, 5] */
    TU_SHAPE(tu_out(an, "gnd0", 0), 7, 4, 5);
    assert_int_equal(tu_node(an, "gnd0")->cost.flops, 0);
    /* GatherElements: the indices' shape */
    TU_SHAPE(tu_out(an, "ge", 0), 3, 2, 5);
    /* ScatterND: data's shape; reduction add: one add per update element, 3*5 = 15 */
    TU_SHAPE(tu_out(an, "snd", 0), 4, 5);
    assert_int_equal(tu_node(an, "snd")->cost.flops, 15);
    assert_int_equal(tu_node(an, "snd0")->cost.flops, 0);
}

static void reductions(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    pbm_init(&pm, pb_tensor_i64("ax", 1, TU_DIMS(1), TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_i64("none", 1, TU_DIMS(0), NULL));
    const char *ops[] = {"ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"};
    for (int i = 0; i < 5; i++) {
        struct pbw a[] = {pb_attr_int("keepdims", 0)};
        pbm_node(&pm, pb_node(ops[i], ops[i], TU_LIST("x", "ax"), TU_LIST(ops[i]), 1, a));
    }
    pbm_node(&pm, pb_node("all", "ReduceL2", TU_LIST("x", "none"), TU_LIST("yall"), 0, NULL));
    struct pbw am[] = {pb_attr_int("axis", 2), pb_attr_int("select_last_index", 1)};
    pbm_node(&pm, pb_node("argmax", "ArgMax", TU_LIST("x"), TU_LIST("am"), 2, am));
    struct pbw an0[] = {pb_attr_int("axis", -3), pb_attr_int("keepdims", 0)};
    pbm_node(&pm, pb_node("argmin", "ArgMin", TU_LIST("x"), TU_LIST("an"), 2, an0));
    pbm_output(&pm, pb_value_info("am", PB_INT64, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* X = 24 elements, axis 1 folded, Y [2, 4] = 8, fold = 16 */
    for (int i = 0; i < 5; i++)
        TU_SHAPE(tu_out(an, ops[i], 0), 2, 4);
    /* L1: 24 |x| + 16 adds = 40; SumSquare: 24 squares + 16 adds = 40 */
    assert_int_equal(tu_node(an, "ReduceL1")->cost.flops, 40);
    assert_int_equal(tu_node(an, "ReduceSumSquare")->cost.flops, 40);
    /* L2: 24 squares + 16 adds + 8 sqrt = 48; LogSumExp: 24 exp + 16 adds + 8 log = 48 */
    assert_int_equal(tu_node(an, "ReduceL2")->cost.flops, 48);
    assert_int_equal(tu_node(an, "ReduceLogSumExp")->cost.flops, 48);
    /* LogSum: 16 adds + 8 log = 24 */
    assert_int_equal(tu_node(an, "ReduceLogSum")->cost.flops, 24);
    /* empty axes input: reduce everything, keepdims 1 -> [1, 1, 1]; 24 + 23 + 1 = 48 */
    TU_SHAPE(tu_out(an, "all", 0), 1, 1, 1);
    assert_int_equal(tu_node(an, "all")->cost.flops, 48);
    /* ArgMax axis 2, keepdims: [2, 3, 1] int64; 24 - 6 = 18 comparisons */
    TU_SHAPE(tu_out(an, "argmax", 0), 2, 3, 1);
    assert_int_equal(tu_out(an, "argmax", 0)->dtype, 7);
    assert_int_equal(tu_node(an, "argmax")->cost.flops, 18);
    /* ArgMin axis -3 = 0, no keepdims: [3, 4]; 24 - 12 = 12 */
    TU_SHAPE(tu_out(an, "argmin", 0), 3, 4);
    assert_int_equal(tu_node(an, "argmin")->cost.flops, 12);
}

static void pools_and_resampling(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, 8, 8), NULL));
    pbm_input(&pm, pb_value_info("f", PB_FLOAT, 4, TU_DIMS(1, 16, 32, 32), NULL));
    pbm_input(&pm, pb_value_info("rois", PB_FLOAT, 2, TU_DIMS(5, 4), NULL));
    pbm_input(&pm, pb_value_info("bi", PB_INT64, 1, TU_DIMS(5), NULL));
    pbm_input(&pm, pb_value_info("rois5", PB_FLOAT, 2, TU_DIMS(5, 5), NULL));
    pbm_input(&pm, pb_value_info("g", PB_FLOAT, 4, TU_DIMS(1, 6, 7, 2), NULL));
    pbm_input(&pm, pb_value_info("theta", PB_FLOAT, 3, TU_DIMS(2, 2, 3), NULL));
    pbm_init(&pm, pb_tensor_i64("size", 1, TU_DIMS(4), TU_DIMS(2, 3, 4, 5)));
    struct pbw lp[] = {pb_attr_ints("kernel_shape", 2, TU_DIMS(2, 2)), pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                       pb_attr_int("p", 2)};
    pbm_node(&pm, pb_node("lp", "LpPool", TU_LIST("x"), TU_LIST("y1"), 3, lp));
    pbm_node(&pm, pb_node("glp", "GlobalLpPool", TU_LIST("x"), TU_LIST("y2"), 0, NULL));
    struct pbw ra[] = {pb_attr_int("output_height", 7), pb_attr_int("output_width", 7),
                       pb_attr_int("sampling_ratio", 2)};
    pbm_node(&pm, pb_node("roi", "RoiAlign", TU_LIST("f", "rois", "bi"), TU_LIST("y3"), 3, ra));
    struct pbw ra0[] = {pb_attr_int("output_height", 7), pb_attr_int("output_width", 7)};
    pbm_node(&pm, pb_node("roi0", "RoiAlign", TU_LIST("f", "rois", "bi"), TU_LIST("y3b"), 2, ra0));
    struct pbw mr[] = {pb_attr_ints("pooled_shape", 2, TU_DIMS(2, 2))};
    pbm_node(&pm, pb_node("mrp", "MaxRoiPool", TU_LIST("f", "rois5"), TU_LIST("y4"), 1, mr));
    pbm_node(&pm, pb_node("gs", "GridSample", TU_LIST("f", "g"), TU_LIST("y5"), 0, NULL));
    pbm_node(&pm, pb_node("ag", "AffineGrid", TU_LIST("theta", "size"), TU_LIST("y6"), 0, NULL));
    struct pbw mu[] = {pb_attr_ints("kernel_shape", 2, TU_DIMS(2, 2)), pb_attr_ints("strides", 2, TU_DIMS(2, 2))};
    pbm_node(&pm, pb_node("unpool", "MaxUnpool", TU_LIST("y1", "y1"), TU_LIST("y7"), 2, mu));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 20, NULL);
    /* (8 - 2)/2 + 1 = 4: [1, 2, 4, 4]; 32 outputs * 3 * prod(k) 4 = 384 */
    TU_SHAPE(tu_out(an, "lp", 0), 1, 2, 4, 4);
    assert_int_equal(tu_node(an, "lp")->cost.flops, 384);
    /* 3 * numel(X) = 3 * 128 = 384 */
    TU_SHAPE(tu_out(an, "glp", 0), 1, 2, 1, 1);
    assert_int_equal(tu_node(an, "glp")->cost.flops, 384);
    /* [5 rois, 16, 7, 7] = 3,920 outputs; S = 2*2 samples, avg: 8S = 32 each -> 125,440 */
    TU_SHAPE(tu_out(an, "roi", 0), 5, 16, 7, 7);
    assert_int_equal(tu_node(an, "roi")->cost.flops, 125440);
    /* sampling_ratio 0: samples depend on the rois, cost unknown */
    assert_true(tu_node(an, "roi0")->cost.flags & OC_COST_UNKNOWN);
    TU_SHAPE(tu_out(an, "mrp", 0), 5, 16, 2, 2);
    assert_true(tu_node(an, "mrp")->cost.flags & OC_COST_UNKNOWN);
    /* [1, 16, 6, 7] = 672 outputs, bilinear 7 each -> 4,704 */
    TU_SHAPE(tu_out(an, "gs", 0), 1, 16, 6, 7);
    assert_int_equal(tu_node(an, "gs")->cost.flops, 4704);
    /* grid [N=2, H=4, W=5, 2]: 80 elements * (r + 1 = 3) = 240 MACs */
    TU_SHAPE(tu_out(an, "ag", 0), 2, 4, 5, 2);
    assert_int_equal(tu_node(an, "ag")->cost.macs, 240);
    assert_int_equal(tu_node(an, "ag")->cost.flops, 480);
    /* (4 - 1) * 2 + 2 = 8 */
    TU_SHAPE(tu_out(an, "unpool", 0), 1, 2, 8, 8);
}

static void layout_and_blocks(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("img", PB_FLOAT, 4, TU_DIMS(1, 2, 4, 6), NULL));
    pbm_input(&pm, pb_value_info("hwc", PB_FLOAT, 3, TU_DIMS(10, 7, 3), NULL));
    pbm_input(&pm, pb_value_info("ind", PB_INT64, 1, TU_DIMS(4), NULL));
    pbm_input(&pm, pb_value_info("cols", PB_FLOAT, 3, TU_DIMS(1, 8, 16), NULL));
    pbm_init(&pm, pb_tensor_i64("rep", 1, TU_DIMS(2), TU_DIMS(3, 2)));
    pbm_init(&pm, pb_tensor_f32v("onoff", 1, TU_DIMS(2), TU_FLOATS(0.0f, 1.0f), false));
    pbm_init(&pm, pb_tensor_i64("crop", 1, TU_DIMS(2), TU_DIMS(8, 9)));
    pbm_init(&pm, pb_tensor_i64("image", 1, TU_DIMS(2), TU_DIMS(5, 5)));
    pbm_init(&pm, pb_tensor_i64("block", 1, TU_DIMS(2), TU_DIMS(2, 2)));
    pbm_node(&pm, pb_node("tile", "Tile", TU_LIST("x", "rep"), TU_LIST("y1"), 0, NULL));
    struct pbw dv[] = {pb_attr_int("value_int", 10)};
    pbm_node(&pm, pb_node("depth", "Constant", NULL, TU_LIST("dep"), 1, dv));
    pbm_node(&pm, pb_node("onehot", "OneHot", TU_LIST("ind", "dep", "onoff"), TU_LIST("y2"), 0, NULL));
    struct pbw b2[] = {pb_attr_int("blocksize", 2)};
    pbm_node(&pm, pb_node("s2d", "SpaceToDepth", TU_LIST("img"), TU_LIST("y3"), 1, b2));
    struct pbw b2b[] = {pb_attr_int("blocksize", 2)};
    pbm_node(&pm, pb_node("d2s", "DepthToSpace", TU_LIST("y3"), TU_LIST("y4"), 1, b2b));
    struct pbw ax[] = {pb_attr_ints("axes", 2, TU_DIMS(0, 1))};
    pbm_node(&pm, pb_node("ccp", "CenterCropPad", TU_LIST("hwc", "crop"), TU_LIST("y5"), 1, ax));
    pbm_node(&pm, pb_node("c2i", "Col2Im", TU_LIST("cols", "image", "block"), TU_LIST("y6"), 0, NULL));
    pbm_output(&pm, pb_value_info("y1", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* [2*3, 3*2] */
    TU_SHAPE(tu_out(an, "tile", 0), 6, 6);
    /* depth 10 inserted last; element type of values (f32) */
    TU_SHAPE(tu_out(an, "onehot", 0), 4, 10);
    assert_int_equal(tu_out(an, "onehot", 0)->dtype, 1);
    /* [1, 2*4, 4/2, 6/2] and back */
    TU_SHAPE(tu_out(an, "s2d", 0), 1, 8, 2, 3);
    TU_SHAPE(tu_out(an, "d2s", 0), 1, 2, 4, 6);
    /* axes 0, 1 take 8 and 9 */
    TU_SHAPE(tu_out(an, "ccp", 0), 8, 9, 3);
    /* 8 = C * 2*2 -> C = 2; blocks (5 - 2 + 1)^2 = 16 = L; [1, 2, 5, 5]; 128 adds */
    TU_SHAPE(tu_out(an, "c2i", 0), 1, 2, 5, 5);
    assert_int_equal(tu_node(an, "c2i")->cost.flops, 128);
}

static void data_dependent(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    pbm_input(&pm, pb_value_info("one", PB_FLOAT, 1, TU_DIMS(1), NULL));
    pbm_input(&pm, pb_value_info("boxes", PB_FLOAT, 3, TU_DIMS(1, 6, 4), NULL));
    pbm_input(&pm, pb_value_info("scores", PB_FLOAT, 3, TU_DIMS(1, 1, 6), NULL));
    pbm_init(&pm, pb_tensor_i64("vals", 1, TU_DIMS(6), TU_DIMS(2, 1, 1, 3, 4, 3)));
    pbm_init(&pm, pb_tensor_i64("sparse", 2, TU_DIMS(2, 3), TU_DIMS(0, 1, 0, 2, 0, 3)));
    pbm_init(&pm, tensor_bool("cond", 1, TU_DIMS(3), (const uint8_t[]){1, 0, 1}));
    pbm_init(&pm, pb_tensor_i64("maxb", 1, TU_DIMS(1), TU_DIMS(2)));
    pbm_node(&pm, pb_node("nz", "NonZero", TU_LIST("x"), TU_LIST("y1"), 0, NULL));
    pbm_node(&pm, pb_node("nzk", "NonZero", TU_LIST("sparse"), TU_LIST("y2"), 0, NULL));
    pbm_node(&pm, pb_node("uq", "Unique", TU_LIST("vals"), TU_LIST("u", "ui", "uinv", "uc"), 0, NULL));
    pbm_node(&pm, pb_node("uq1", "Unique", TU_LIST("one"), TU_LIST("v"), 0, NULL));
    pbm_node(&pm, pb_node("uqx", "Unique", TU_LIST("x"), TU_LIST("w", "wi", "winv"), 0, NULL));
    /* float constants with a NaN: ONNX Runtime 1.31 counts 3 unique in
       {3, NaN, 1, NaN, 3, 2}, numpy 4, PyTorch 5: no count to claim */
    pbm_init(&pm, pb_tensor_f32v("fnan", 1, TU_DIMS(6), (const float[]){3, NAN, 1, NAN, 3, 2}, true));
    pbm_node(&pm, pb_node("uqn", "Unique", TU_LIST("fnan"), TU_LIST("n1", "n2", "n3", "n4"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cmp", "Compress", TU_LIST("x", "cond"), TU_LIST("y3"), 1, ax));
    pbm_node(&pm, pb_node("nms", "NonMaxSuppression", TU_LIST("boxes", "scores", "maxb"), TU_LIST("sel"), 0, NULL));
    pbm_node(&pm, pb_node("nms0", "NonMaxSuppression", TU_LIST("boxes", "scores"), TU_LIST("sel0"), 0, NULL));
    pbm_output(&pm, pb_value_info("y1", PB_INT64, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* [rank 2, ?]: the count of non-zero elements is data: unknown, flagged */
    const struct oc_value *y1 = tu_out(an, "nz", 0);
    assert_int_equal(y1->rank, 2);
    assert_int_equal(y1->dims[0].value, 2);
    assert_int_equal(y1->dims[1].value, OC_DIM_UNKNOWN);
    const struct oc_node *nz = tu_node(an, "nz");
    assert_int_equal(nz->status, OC_ERR_SHAPE);
    assert_non_null(strstr(nz->reason, "depends on the input data"));
    assert_true(nz->cost.flags & OC_COST_UNKNOWN);
    /* known integer input: 3 non-zeros -> [2, 3]; 6 comparisons */
    TU_SHAPE(tu_out(an, "nzk", 0), 2, 3);
    assert_int_equal(tu_node(an, "nzk")->cost.flops, 6);
    /* known values {2, 1, 1, 3, 4, 3}: 4 unique; inverse_indices has one per element */
    TU_SHAPE(tu_out(an, "uq", 0), 4);
    TU_SHAPE(tu_out(an, "uq", 1), 4);
    TU_SHAPE(tu_out(an, "uq", 2), 6);
    TU_SHAPE(tu_out(an, "uq", 3), 4);
    /* a sort of 6: 6 * ceil(log2 6) = 18 comparisons */
    assert_int_equal(tu_node(an, "uq")->cost.flops, 18);
    /* one element: exactly one unique value */
    TU_SHAPE(tu_out(an, "uq1", 0), 1);
    /* float data: unknown count, inverse_indices still [12] */
    assert_int_equal(tu_out(an, "uqx", 0)->dims[0].value, OC_DIM_UNKNOWN);
    TU_SHAPE(tu_out(an, "uqx", 2), 12);
    assert_int_equal(tu_out(an, "uqn", 0)->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(tu_out(an, "uqn", 3)->dims[0].value, OC_DIM_UNKNOWN);
    TU_SHAPE(tu_out(an, "uqn", 2), 6);
    /* condition {1, 0, 1} keeps 2 rows */
    TU_SHAPE(tu_out(an, "cmp", 0), 2, 4);
    /* selected boxes: data; without max_output_boxes_per_class nothing is selected */
    assert_int_equal(tu_out(an, "nms", 0)->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(tu_out(an, "nms", 0)->dims[1].value, 3);
    TU_SHAPE(tu_out(an, "nms0", 0), 0, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(conv_transpose, tu_teardown),
        cmocka_unit_test_teardown(deform_conv, tu_teardown),
        cmocka_unit_test_teardown(einsum_forms, tu_teardown),
        cmocka_unit_test_teardown(split_forms, tu_teardown),
        cmocka_unit_test_teardown(split_old_forms, tu_teardown),
        cmocka_unit_test_teardown(resize_forms, tu_teardown),
        cmocka_unit_test_teardown(resize10_upsample, tu_teardown),
        cmocka_unit_test_teardown(upsample7, tu_teardown),
        cmocka_unit_test_teardown(topk_forms, tu_teardown),
        cmocka_unit_test_teardown(topk_attr, tu_teardown),
        cmocka_unit_test_teardown(gather_scatter, tu_teardown),
        cmocka_unit_test_teardown(reductions, tu_teardown),
        cmocka_unit_test_teardown(pools_and_resampling, tu_teardown),
        cmocka_unit_test_teardown(layout_and_blocks, tu_teardown),
        cmocka_unit_test_teardown(data_dependent, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
