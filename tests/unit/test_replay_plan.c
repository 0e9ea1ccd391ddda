/*
 * test_replay_plan.c — the host side of the GPU replay, no GPU needed:
 * the cuDNN window mapping of asymmetric pads, broadcast strides, the
 * cuBLAS mapping of Gemm and every MatMul batch case, the strided copies of
 * layout ops, input fills in valid ranges (replay/fill.h: what the device
 * writes), repetition statistics, device peaks, derived figures and result
 * files read back for `onnxcost merge`. Every expectation is worked out by
 * hand in the comment beside it.
 */
#include "testutil.h"

#include "../../replay/fill.h"
#include "../../replay/plan_host.h"
#include "../../replay/results.h"
#include "../../analyzer/stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

static struct oc_rp_plan plan;

static const struct oc_rp_plan *plan_of(const char *name) {
    const struct oc_node *n = tu_node(an, name);
    assert_non_null(n);
    oc_rp_plan_node(an, (int32_t)(n - an->graph->nodes), NULL, &plan);
    return &plan;
}

/* ---- pure helpers ---------------------------------------------------------------- */

static void window_axis(void **state) {
    (void)state;
    int64_t pad, crop, ext;
    /* ResNet stem: in 224, k 7, s 2, pads 3/3 -> out 112, symmetric as is */
    assert_true(oc_rp_window_axis(224, 7, 2, 1, 3, 3, 112, &pad, &crop, &ext));
    assert_int_equal(pad, 3);
    assert_int_equal(crop, 0);
    assert_int_equal(ext, 112);
    /* SAME_UPPER k 3 s 2 on 224: pads 0/1, out 112. pad 2 (>= 1, 2 - 0 on the
       stride grid): extent (224 + 4 - 3) / 2 + 1 = 113, wanted from 1 */
    assert_true(oc_rp_window_axis(224, 3, 2, 1, 0, 1, 112, &pad, &crop, &ext));
    assert_int_equal(pad, 2);
    assert_int_equal(crop, 1);
    assert_int_equal(ext, 113);
    /* ceil_mode pool: in 112, k 3, s 2, no pads, out ceil(109/2) + 1 = 56.
       pad 0 gives 55; pad 2 gives (112 + 4 - 3) / 2 + 1 = 57 from 1 */
    assert_true(oc_rp_window_axis(112, 3, 2, 1, 0, 0, 56, &pad, &crop, &ext));
    assert_int_equal(pad, 2);
    assert_int_equal(crop, 1);
    assert_int_equal(ext, 57);
    /* pads 1/0, stride 1: pad 1, extent in + 2 - 2 = 8 for k 3, from 0 */
    assert_true(oc_rp_window_axis(8, 3, 1, 1, 1, 0, 7, &pad, &crop, &ext));
    assert_int_equal(pad, 1);
    assert_int_equal(crop, 0);
    assert_int_equal(ext, 8);
    assert_false(oc_rp_window_axis(8, 3, 0, 1, 0, 0, 6, &pad, &crop, &ext));
}

static void window_axis_transposed(void **state) {
    (void)state;
    int64_t pad, crop, ext;
    /* in 4, k 3, s 2, pads 1/1: out 2*3 + 3 - 2 = 7; cuDNN with pad 1 gives 7 */
    assert_true(oc_rp_window_axis_t(4, 3, 2, 1, 1, 1, 7, &pad, &crop, &ext));
    assert_int_equal(pad, 1);
    assert_int_equal(crop, 0);
    assert_int_equal(ext, 7);
    /* pads 0/1 with output_padding 1: out 6 + 1 + 3 - 1 = 9; pad 0 gives
       2*3 + 3 = 9 */
    assert_true(oc_rp_window_axis_t(4, 3, 2, 1, 0, 1, 9, &pad, &crop, &ext));
    assert_int_equal(pad, 0);
    assert_int_equal(ext, 9);
    /* pads 1/0: out 6 + 3 - 1 = 8; pad 0 gives 9, the wanted 8 from 1 */
    assert_true(oc_rp_window_axis_t(4, 3, 2, 1, 1, 0, 8, &pad, &crop, &ext));
    assert_int_equal(pad, 0);
    assert_int_equal(crop, 1);
    assert_int_equal(ext, 9);
}

static void broadcast_strides(void **state) {
    (void)state;
    int64_t s[3];
    assert_true(oc_rp_broadcast_strides(TU_DIMS(3, 1), 2, TU_DIMS(2, 3, 4), 3, s));
    assert_int_equal(s[0], 0);
    assert_int_equal(s[1], 1);
    assert_int_equal(s[2], 0);
    assert_true(oc_rp_broadcast_strides(TU_DIMS(4), 1, TU_DIMS(2, 3, 4), 3, s));
    assert_int_equal(s[0], 0);
    assert_int_equal(s[1], 0);
    assert_int_equal(s[2], 1);
    assert_true(oc_rp_broadcast_strides(TU_DIMS(2, 3, 4), 3, TU_DIMS(2, 3, 4), 3, s));
    assert_int_equal(s[0], 12);
    assert_int_equal(s[1], 4);
    assert_int_equal(s[2], 1);
    assert_false(oc_rp_broadcast_strides(TU_DIMS(2, 3), 2, TU_DIMS(2, 4), 2, s));
}

/* ---- planners on analyzed models -------------------------------------------------- */

static void gemm_mapping(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(6, 4), NULL)); /* transA: A' is [4, 6] */
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(5, 6)));                  /* transB: B' is [6, 5] */
    pbm_init(&pm, pb_tensor_f32("c", 1, TU_DIMS(5)));
    struct pbw at[] = {pb_attr_int("transA", 1), pb_attr_int("transB", 1), pb_attr_float("beta", 0.5f)};
    pbm_node(&pm, pb_node("g", "Gemm", TU_LIST("a", "w", "c"), TU_LIST("y"), 3, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const struct oc_rp_plan *p = plan_of("g");
    assert_int_equal(p->kind, OC_RPK_GEMM);
    const struct oc_rp_gemm *g = &p->u.gemm;
    /* Y [M=4, N=5] row-major = Y^T column-major: cuBLAS m = N = 5, n = M = 4,
       k = 6; its A is ONNX B stored [5, 6] row-major = [6, 5] col-major, so
       op T with lda 6; its B is ONNX A stored [6, 4] = [4, 6] col-major, op T,
       ldb 4; ldc = 5 */
    assert_int_equal(g->mode, OC_GEMM_SINGLE);
    assert_int_equal(g->m, 5);
    assert_int_equal(g->n, 4);
    assert_int_equal(g->k, 6);
    assert_true(g->trans_a);
    assert_true(g->trans_b);
    assert_int_equal(g->lda, 6);
    assert_int_equal(g->ldb, 4);
    assert_int_equal(g->ldc, 5);
    assert_true(fabs(g->beta - 0.5) < 1e-9);
    /* C [5] broadcast along rows of Y [4, 5]: strides (0, 1) */
    assert_int_equal(g->bias, OC_BIAS_ROW);
    assert_int_equal(g->bias_copy.in_stride[0], 0);
    assert_int_equal(g->bias_copy.in_stride[1], 1);
    assert_int_equal(g->bias_copy.out_stride[0], 5);
    assert_string_equal(oc_rp_plan_call(p), "cublasGemmEx");
}

static void matmul_batches(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 3, TU_DIMS(8, 3, 4), NULL));
    pbm_input(&pm, pb_value_info("w", PB_FLOAT, 2, TU_DIMS(4, 5), NULL));
    pbm_input(&pm, pb_value_info("m", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    pbm_input(&pm, pb_value_info("bw", PB_FLOAT, 3, TU_DIMS(8, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("a4", PB_FLOAT, 4, TU_DIMS(2, 1, 3, 4), NULL));
    pbm_input(&pm, pb_value_info("b4", PB_FLOAT, 4, TU_DIMS(1, 6, 4, 5), NULL));
    pbm_node(&pm, pb_node("fold", "MatMul", TU_LIST("a", "w"), TU_LIST("y1"), 0, NULL));
    pbm_node(&pm, pb_node("bcast_a", "MatMul", TU_LIST("m", "bw"), TU_LIST("y2"), 0, NULL));
    pbm_node(&pm, pb_node("same", "MatMul", TU_LIST("a", "bw"), TU_LIST("y3"), 0, NULL));
    pbm_node(&pm, pb_node("general", "MatMul", TU_LIST("a4", "b4"), TU_LIST("y4"), 0, NULL));
    for (int i = 1; i <= 4; i++) {
        char nm[4];
        snprintf(nm, sizeof nm, "y%d", i);
        pbm_output(&pm, pb_value_info(nm, PB_FLOAT, -1, NULL, NULL));
    }
    tu_analyze_ok(&pm, 13, NULL);
    /* [8,3,4] x [4,5]: one GEMM with the batch folded into the rows: 24 x 4 x 5 */
    const struct oc_rp_gemm *g = &plan_of("fold")->u.gemm;
    assert_int_equal(g->mode, OC_GEMM_SINGLE);
    assert_int_equal(g->n, 24);
    assert_int_equal(g->m, 5);
    assert_int_equal(g->k, 4);
    /* [3,4] x [8,4,5]: 8 GEMMs, ONNX A shared (stride 0), ONNX B 20 apart,
       outputs 15 apart */
    g = &plan_of("bcast_a")->u.gemm;
    assert_int_equal(g->mode, OC_GEMM_STRIDED);
    assert_int_equal(g->batch, 8);
    assert_int_equal(g->stride_a, 20);
    assert_int_equal(g->stride_b, 0);
    assert_int_equal(g->stride_c, 15);
    /* [8,3,4] x [8,4,5]: strides 20 (B), 12 (A), 15 (Y) */
    g = &plan_of("same")->u.gemm;
    assert_int_equal(g->mode, OC_GEMM_STRIDED);
    assert_int_equal(g->stride_a, 20);
    assert_int_equal(g->stride_b, 12);
    /* [2,1,3,4] x [1,6,4,5] -> [2,6,3,5]: no single stride; per batch dim,
       ONNX A moves 12 along dim 0 and 0 along dim 1, ONNX B 0 and 20 */
    g = &plan_of("general")->u.gemm;
    assert_int_equal(g->mode, OC_GEMM_POINTERS);
    assert_int_equal(g->batch, 12);
    assert_int_equal(g->batch_rank, 2);
    assert_int_equal(g->bstride[0], 12);
    assert_int_equal(g->bstride[1], 0);
    assert_int_equal(g->astride[0], 0);
    assert_int_equal(g->astride[1], 20);
    assert_int_equal(g->stride_c, 15);
    assert_string_equal(oc_rp_plan_call(&plan), "cublasGemmBatchedEx");
}

static void conv_asymmetric(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 3, 224, 224), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(8, 3, 3, 3)));
    struct pbw at[] = {pb_attr_ints("strides", 2, TU_DIMS(2, 2)), pb_attr_str("auto_pad", "SAME_UPPER")};
    pbm_node(&pm, pb_node("c", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    const struct oc_rp_plan *p = plan_of("c");
    assert_int_equal(p->kind, OC_RPK_CONV);
    /* as window_axis's SAME_UPPER case, on both spatial dims */
    assert_true(p->u.conv.w.cropped);
    assert_int_equal(p->u.conv.w.pad[0], 2);
    assert_int_equal(p->u.conv.w.crop[1], 1);
    assert_int_equal(p->u.conv.w.ext[1], 113);
    assert_int_equal(p->u.conv.group, 1);
    assert_false(p->u.conv.bias);
    assert_non_null(strstr(p->reason, "asymmetric"));
}

static void layout_copies(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    pbm_input(&pm, pb_value_info("z", PB_FLOAT, 3, TU_DIMS(2, 5, 4), NULL));
    struct pbw tp[] = {pb_attr_ints("perm", 3, TU_DIMS(2, 0, 1))};
    pbm_node(&pm, pb_node("t", "Transpose", TU_LIST("x"), TU_LIST("xt"), 1, tp));
    struct pbw ca[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("x", "z"), TU_LIST("xz"), 1, ca));
    pbm_init(&pm, pb_tensor_i64("st", 1, TU_DIMS(1), TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_i64("en", 1, TU_DIMS(1), TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_i64("ax", 1, TU_DIMS(1), TU_DIMS(2)));
    pbm_init(&pm, pb_tensor_i64("sp", 1, TU_DIMS(1), TU_DIMS(2)));
    pbm_node(&pm, pb_node("sl", "Slice", TU_LIST("x", "st", "en", "ax", "sp"), TU_LIST("xs"), 0, NULL));
    pbm_output(&pm, pb_value_info("xt", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("xz", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("xs", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* Transpose perm (2,0,1): out [4,2,3]; x strides (12,4,1) permuted: (1,12,4) */
    const struct oc_rp_piece *pc = &plan_of("t")->u.copy.piece[0];
    assert_int_equal(plan.kind, OC_RPK_COPY);
    assert_int_equal(pc->dims[0], 4);
    assert_int_equal(pc->in_stride[0], 1);
    assert_int_equal(pc->in_stride[1], 12);
    assert_int_equal(pc->in_stride[2], 4);
    assert_int_equal(pc->out_stride[0], 6);
    /* Concat on axis 1 of [2,3,4] and [2,5,4] into [2,8,4] (strides 32,4,1):
       z lands 3 rows in, offset 12 */
    plan_of("cat");
    assert_int_equal(plan.u.copy.n_pieces, 2);
    assert_int_equal(plan.u.copy.piece[1].input, 1);
    assert_int_equal(plan.u.copy.piece[1].out_offset, 12);
    assert_int_equal(plan.u.copy.piece[1].out_stride[0], 32);
    /* Slice axis 2 from 1 to 4 step 2: elements 1 and 3; offset 1, stride 2 */
    pc = &plan_of("sl")->u.copy.piece[0];
    assert_int_equal(pc->dims[2], 2);
    assert_int_equal(pc->in_offset, 1);
    assert_int_equal(pc->in_stride[2], 2);
    assert_int_equal(plan.n_in, 1);
}

static void fills_and_reasons(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_init(&pm, pb_tensor_f32("emb", 2, TU_DIMS(50, 8)));
    pbm_input(&pm, pb_value_info("ids", PB_INT64, 2, TU_DIMS(2, 7), NULL));
    pbm_node(&pm, pb_node("g", "Gather", TU_LIST("emb", "ids"), TU_LIST("e"), 0, NULL));
    pbm_node(&pm, pb_node("s", "Sqrt", TU_LIST("e"), TU_LIST("r"), 0, NULL));
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("r"), TU_LIST("p"), 0, NULL));
    pbm_node(&pm, pb_node("hm", "Hardmax", TU_LIST("p"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("f", "Flatten", TU_LIST("h"), TU_LIST("fl"), 0, NULL));
    pbm_output(&pm, pb_value_info("fl", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* Gather: data [50, 8] on axis 0, indices within [0, 50) */
    const struct oc_rp_plan *p = plan_of("g");
    assert_int_equal(p->kind, OC_RPK_GATHER);
    assert_int_equal(p->in[1].fill, OC_FILL_INDEX);
    assert_true(p->in[1].lo == 0 && p->in[1].hi == 50);
    assert_int_equal(p->u.gather.outer, 1);
    assert_int_equal(p->u.gather.inner, 8);
    assert_int_equal(p->u.gather.n_idx, 14);
    /* Sqrt: a positive input range */
    p = plan_of("s");
    assert_int_equal(p->kind, OC_RPK_UNARY);
    assert_true(p->in[0].lo > 0);
    /* Softmax-13 over the last axis of [2, 7, 8]: outer 14, axis 8, inner 1 */
    p = plan_of("sm");
    assert_int_equal(p->u.softmax.outer, 14);
    assert_int_equal(p->u.softmax.axis, 8);
    assert_int_equal(p->u.softmax.inner, 1);
    /* no rule: listed with the reason; Flatten: an alias */
    p = plan_of("hm");
    assert_int_equal(p->kind, OC_RPK_NONE);
    assert_string_equal(p->reason, "no replay rule for Hardmax");
    assert_int_equal(plan_of("f")->kind, OC_RPK_ALIAS);
}

/* What ocsim (tests/sim) found: each node is planned as cuDNN and our kernels
 * accept it, or refused with the reason. Opset 18. */
static void reductions_and_refusals(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 3, TU_DIMS(3, 1, 4), NULL));
    pbm_input(&pm, pb_value_info("r2", PB_FLOAT, 4, TU_DIMS(2, 3, 4, 5), NULL));
    pbm_input(&pm, pb_value_info("z", PB_FLOAT, 2, TU_DIMS(0, 3), NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 5, 5), NULL));
    pbm_input(&pm, pb_value_info("i8", 3 /* int8 */, 2, TU_DIMS(4, 5), NULL));
    pbm_init(&pm, pb_tensor_i64("ax1", 1, TU_DIMS(1), TU_DIMS(1)));
    struct pbw keep[] = {pb_attr_int("keepdims", 1)};
    struct pbw noop[] = {pb_attr_int("noop_with_empty_axes", 1)};
    /* a stray axes attribute: ReduceL2-18 takes axes as an input only */
    struct pbw stray[] = {pb_attr_ints("axes", 2, TU_DIMS(1, 3)), pb_attr_int("keepdims", 0)};
    struct pbw lrn[] = {pb_attr_int("size", 3), pb_attr_float("bias", 1e-6f)};
    /* cuDNN compares its double limits 1e-5 and 0.01: the floats 1e-5f and
       0.01f are just below them and are refused; 2e-5f and 0.011f pass */
    struct pbw lrn_k[] = {pb_attr_int("size", 3), pb_attr_float("bias", 1e-5f)};
    struct pbw lrn_beta[] = {pb_attr_int("size", 3), pb_attr_float("beta", 0.01f)};
    struct pbw lrn_ok[] = {pb_attr_int("size", 3), pb_attr_float("bias", 2e-5f), pb_attr_float("beta", 0.011f)};
    pbm_node(&pm, pb_node("lrn_k", "LRN", TU_LIST("x"), TU_LIST("lrn_k_y"), 2, lrn_k));
    pbm_node(&pm, pb_node("lrn_beta", "LRN", TU_LIST("x"), TU_LIST("lrn_beta_y"), 2, lrn_beta));
    pbm_node(&pm, pb_node("lrn_ok", "LRN", TU_LIST("x"), TU_LIST("lrn_ok_y"), 3, lrn_ok));
    /* cudnnOpTensor takes 5 dims: a 6-d Add whose broadcast alternates merges
       to nothing fewer (our kernel); one of equal shapes merges to 1 dim */
    pbm_input(&pm, pb_value_info("a6", PB_FLOAT, 6, TU_DIMS(2, 3, 2, 3, 2, 3), NULL));
    pbm_input(&pm, pb_value_info("b6", PB_FLOAT, 6, TU_DIMS(2, 1, 2, 1, 2, 1), NULL));
    pbm_node(&pm, pb_node("add6_alt", "Add", TU_LIST("a6", "b6"), TU_LIST("add6_alt_y"), 0, NULL));
    pbm_node(&pm, pb_node("add6_same", "Add", TU_LIST("a6", "a6"), TU_LIST("add6_same_y"), 0, NULL));
    pbm_output(&pm, pb_value_info("lrn_k_y", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("lrn_beta_y", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("lrn_ok_y", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("add6_alt_y", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("add6_same_y", PB_FLOAT, -1, NULL, NULL));
    pbm_node(&pm, pb_node("rs", "ReduceSum", TU_LIST("r", "ax1"), TU_LIST("rs_y"), 1, keep));
    pbm_node(&pm, pb_node("rl1", "ReduceL1", TU_LIST("r"), TU_LIST("rl1_y"), 1, noop));
    pbm_node(&pm, pb_node("rl2", "ReduceL2", TU_LIST("r2"), TU_LIST("rl2_y"), 2, stray));
    pbm_node(&pm, pb_node("lrn", "LRN", TU_LIST("x"), TU_LIST("lrn_y"), 2, lrn));
    pbm_node(&pm, pb_node("add8", "Add", TU_LIST("i8", "i8"), TU_LIST("add8_y"), 0, NULL));
    pbm_node(&pm, pb_node("relu0", "Relu", TU_LIST("z"), TU_LIST("relu0_y"), 0, NULL));
    const char *outs[] = {"rs_y", "rl1_y", "rl2_y", "lrn_y", "add8_y", "relu0_y"};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        pbm_output(&pm, pb_value_info(outs[i], PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* over a size-1 axis: nothing is reduced, one copy of all 12 elements */
    const struct oc_rp_plan *p = plan_of("rs");
    assert_int_equal(p->kind, OC_RPK_COPY);
    assert_int_equal(p->u.copy.n_pieces, 1);
    assert_int_equal(p->u.copy.piece[0].dims[0], 12);
    assert_string_equal(p->reason, "reduces nothing: run as a copy");
    /* no axes with noop_with_empty_axes: L1 of each element alone is |x| */
    p = plan_of("rl1");
    assert_int_equal(p->kind, OC_RPK_UNARY);
    assert_int_equal(p->u.ew.op, OC_EW_ABS);
    /* ReduceL2-18 reduces everything (no axes input), whatever the attribute */
    p = plan_of("rl2");
    assert_int_equal(p->kind, OC_RPK_REDUCE);
    for (int d = 0; d < 4; d++)
        assert_int_equal(p->u.reduce.out_dims[d], 1);
    /* cuDNN's LRN takes bias >= 1e-5 */
    p = plan_of("lrn");
    assert_int_equal(p->kind, OC_RPK_NONE);
    assert_non_null(strstr(p->reason, "bias"));
    p = plan_of("lrn_k");
    assert_int_equal(p->kind, OC_RPK_NONE);
    assert_non_null(strstr(p->reason, "bias"));
    p = plan_of("lrn_beta");
    assert_int_equal(p->kind, OC_RPK_NONE);
    assert_non_null(strstr(p->reason, "beta"));
    assert_int_equal(plan_of("lrn_ok")->kind, OC_RPK_LRN);
    p = plan_of("add6_alt");
    assert_int_equal(p->kind, OC_RPK_BINARY);
    assert_string_equal(oc_rp_plan_call(p), "oc_k_binary");
    assert_string_equal(oc_rp_plan_call(plan_of("add6_same")), "cudnnOpTensor");
    /* our binary kernel's integer arithmetic is int32 and int64 */
    p = plan_of("add8");
    assert_int_equal(p->kind, OC_RPK_NONE);
    assert_non_null(strstr(p->reason, "int32 and int64"));
    /* an empty output: no kernel */
    p = plan_of("relu0");
    assert_int_equal(p->kind, OC_RPK_ALIAS);
    assert_string_equal(p->reason, "output 0 is empty: no work, no kernel");
}

/* The rule the GPU model and the replay share (oc_node_folded): constants
 * (Constant, ConstantOfShape of a known shape) and shape arithmetic whose
 * outputs are known integers run no kernel; here only the two Adds do, in
 * the plan and in the model's kernel count alike. */
static void folded_like_the_model(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    struct pbw cv = pb_tensor_f32("cv", 1, TU_DIMS(3));
    struct pbw c_attr[] = {pb_attr_tensor("value", &cv)};
    pbm_node(&pm, pb_node("c", "Constant", NULL, TU_LIST("c_y"), 1, c_attr));
    pbm_node(&pm, pb_node("add1", "Add", TU_LIST("x", "c_y"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("y"), TU_LIST("s"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("i0", 0, NULL, TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("ax0", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("minus1", 1, TU_DIMS(1), TU_DIMS(-1)));
    pbm_init(&pm, pb_tensor_i64("dims23", 1, TU_DIMS(2), TU_DIMS(2, 3)));
    pbm_node(&pm, pb_node("gather", "Gather", TU_LIST("s", "i0"), TU_LIST("g"), 0, NULL));
    pbm_node(&pm, pb_node("unsq", "Unsqueeze", TU_LIST("g", "ax0"), TU_LIST("u"), 0, NULL));
    struct pbw axis0[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("u", "minus1"), TU_LIST("newshape"), 1, axis0));
    pbm_node(&pm, pb_node("reshape", "Reshape", TU_LIST("y", "newshape"), TU_LIST("z"), 0, NULL));
    pbm_node(&pm, pb_node("zeros", "ConstantOfShape", TU_LIST("dims23"), TU_LIST("k"), 0, NULL));
    pbm_node(&pm, pb_node("add2", "Add", TU_LIST("z", "k"), TU_LIST("out"), 0, NULL));
    pbm_output(&pm, pb_value_info("out", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const char *constants[] = {"c", "zeros"}, *shapes[] = {"gather", "unsq", "cat"};
    for (int i = 0; i < 2; i++) {
        const struct oc_rp_plan *p = plan_of(constants[i]);
        assert_int_equal(p->kind, OC_RPK_ALIAS);
        assert_string_equal(p->reason, "a constant: folded by runtimes, no kernel per inference");
    }
    for (int i = 0; i < 3; i++) {
        const struct oc_rp_plan *p = plan_of(shapes[i]);
        assert_int_equal(p->kind, OC_RPK_ALIAS);
        assert_non_null(strstr(p->reason, "shape arithmetic known before running"));
    }
    assert_int_equal(plan_of("add1")->kind, OC_RPK_BINARY);
    assert_int_equal(plan_of("add2")->kind, OC_RPK_BINARY);
    struct oc_perf perf;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    assert_int_equal(oc_perf_estimate(an, oc_gpu_find("h100"), &o, &perf), OC_OK);
    assert_int_equal(perf.n_kernels, 2);
    oc_perf_free(&perf);
}

/* CastLike: a cast to the second input's type, which is not read */
static void castlike(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("like", PB_FLOAT16, 1, TU_DIMS(7), NULL));
    pbm_node(&pm, pb_node("cl", "CastLike", TU_LIST("x", "like"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT16, -1, NULL, NULL));
    tu_analyze_ok(&pm, 15, NULL);
    const struct oc_rp_plan *p = plan_of("cl");
    assert_int_equal(p->kind, OC_RPK_CAST);
    assert_int_equal(p->cast_to, PB_FLOAT16);
    assert_int_equal(p->n_in, 1);
    assert_int_equal(p->in[0].numel, 6);
}

/* ONNX Runtime's fused ops (com.microsoft, version 1): SkipLayerNormalization
 * laid out as the kernel takes it, FastGelu's bias along the last dim,
 * QuickGelu's alpha */
static void ort_fused_ops(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 5, 8), NULL));
    pbm_input(&pm, pb_value_info("skip", PB_FLOAT, 3, TU_DIMS(2, 5, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("gamma", 1, TU_DIMS(8)));
    pbm_init(&pm, pb_tensor_f32("beta", 1, TU_DIMS(8)));
    pbm_init(&pm, pb_tensor_f32("bias", 1, TU_DIMS(8)));
    struct pbw eps[] = {pb_attr_float("epsilon", 1e-5f)};
    struct pbw qa[] = {pb_attr_float("alpha", 1.5f)};
    pbm_node(&pm, pb_node_dom("sln", "com.microsoft", "SkipLayerNormalization",
                              TU_LIST("x", "skip", "gamma", "beta", "bias"), TU_LIST("y"), 1, eps));
    pbm_node(&pm, pb_node_dom("fg", "com.microsoft", "FastGelu", TU_LIST("y", "bias"), TU_LIST("g"), 0, NULL));
    pbm_node(&pm, pb_node_dom("qg", "com.microsoft", "QuickGelu", TU_LIST("g"), TU_LIST("q"), 1, qa));
    pbm_output(&pm, pb_value_info("q", PB_FLOAT, -1, NULL, NULL));
    bytes = pbm_finish(&pm, 17);
    struct pbw os = {0};
    pbw_str(&os, 1, "com.microsoft");
    pbw_int(&os, 2, 1);
    pbw_msg(&bytes, 8, &os);
    if (tu_analyze(&bytes, NULL, &md, &an, &dg) != OC_OK)
        fail_msg("analysis failed: %s", dg.msg);
    /* rows of 8 over [2, 5]: x, gamma, beta, skip, bias */
    const struct oc_rp_plan *p = plan_of("sln");
    assert_int_equal(p->kind, OC_RPK_LAYERNORM);
    assert_int_equal(p->u.norm.rows, 10);
    assert_int_equal(p->u.norm.cols, 8);
    assert_true(p->u.norm.has_bias && p->u.norm.has_skip && p->u.norm.has_skip_bias);
    assert_int_equal(p->n_in, 5);
    assert_int_equal(p->in[1].numel, 8);  /* gamma */
    assert_int_equal(p->in[3].numel, 80); /* skip  */
    assert_int_equal(p->in[4].numel, 8);  /* bias  */
    assert_true(fabs(p->u.norm.epsilon - 1e-5) < 1e-12);
    /* FastGelu: tanh form, input 1 added along rows of 8 */
    p = plan_of("fg");
    assert_int_equal(p->kind, OC_RPK_UNARY);
    assert_int_equal(p->u.ew.op, OC_EW_GELU_TANH);
    assert_int_equal(p->u.ew.bias_n, 8);
    assert_int_equal(p->n_in, 2);
    /* QuickGelu: x * sigmoid(1.5 x), no bias */
    p = plan_of("qg");
    assert_int_equal(p->u.ew.op, OC_EW_QUICK_GELU);
    assert_true(p->u.ew.alpha == 1.5);
    assert_int_equal(p->u.ew.bias_n, 0);
    assert_int_equal(p->n_in, 1);
}

/* Mish-18 runs on the unary kernel, and eltwise.def's expression (the one
 * CUDA and ocsim compile) is x * tanh(ln(1 + e^x)), here in double */
static float oc_test_mish(float x) {
    const float alpha = 0, beta = 0;
    (void)alpha;
    (void)beta;
    return
#define OC_UNARY(code, onnx, a, b, lo, hi, fadd, fmul, ffma, expr) OC_EW_##code == OC_EW_MISH ? (expr):
#define OC_BINARY(...)
#define OC_EW_ALIAS(onnx, code)
#include "../../replay/eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
        0.f;
}

static void mish(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    pbm_node(&pm, pb_node("m", "Mish", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    const struct oc_rp_plan *p = plan_of("m");
    assert_int_equal(p->kind, OC_RPK_UNARY);
    assert_int_equal(p->u.ew.op, OC_EW_MISH);
    assert_int_equal(p->u.ew.dims[0], 12);
    assert_true(p->in[0].lo == -1 && p->in[0].hi == 1);
    static const double xs[] = {-30, -3, -1, -0.25, 0, 0.5, 2, 20, 100};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double want = xs[i] * tanh(log1p(exp(xs[i])));
        assert_true(fabs(oc_test_mish((float)xs[i]) - want) <= 1e-5 * fmax(1.0, fabs(want)));
    }
}

/* ReduceMax-13 takes axes as an attribute */
static void reduce_axes_attribute(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("r2", PB_FLOAT, 4, TU_DIMS(2, 3, 4, 5), NULL));
    struct pbw at[] = {pb_attr_ints("axes", 2, TU_DIMS(0, -1)), pb_attr_int("keepdims", 0)};
    pbm_node(&pm, pb_node("rm", "ReduceMax", TU_LIST("r2"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const struct oc_rp_plan *p = plan_of("rm");
    assert_int_equal(p->kind, OC_RPK_REDUCE);
    assert_int_equal(p->u.reduce.rank, 4);
    int64_t want[] = {1, 3, 4, 1};
    for (int d = 0; d < 4; d++)
        assert_int_equal(p->u.reduce.out_dims[d], want[d]);
}

/* ---- fills, statistics, peaks, derived figures, files ------------------------------- */

static void fill_ranges(void **state) {
    (void)state;
    double sum = 0;
    int hits[10] = {0}, ones = 0;
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        float u = oc_rp_uniform(42, (uint64_t)i, -1.0, 1.0);
        assert_true(u >= -1.0f && u < 1.0f);
        sum += u;
        int64_t k = oc_rp_index(42, (uint64_t)i, 0, 10);
        assert_true(k >= 0 && k < 10);
        hits[k]++;
        ones += oc_rp_mask(42, (uint64_t)i);
    }
    /* mean of U(-1, 1) is 0, its standard error over 1e5 draws 0.0018 */
    assert_true(fabs(sum / n) < 0.01);
    for (int k = 0; k < 10; k++) /* 10,000 each, 3 sigma = 285 */
        assert_true(abs(hits[k] - n / 10) < 400);
    assert_true(abs(ones - n / 2) < 600); /* sigma 158 */
    /* the same (seed, index) gives the same value; another seed another */
    assert_true(oc_rp_uniform(42, 7, 0, 1) == oc_rp_uniform(42, 7, 0, 1));
    assert_true(oc_rp_uniform(42, 7, 0, 1) != oc_rp_uniform(43, 7, 0, 1));
}

static void stats_quantiles(void **state) {
    (void)state;
    double v[10] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    double med, p10, p90, mn;
    oc_summarize(v, 10, &med, &p10, &p90, &mn);
    /* numpy.percentile([1..10], (50, 10, 90)) = 5.5, 1.9, 9.1 */
    assert_true(fabs(med - 5.5) < 1e-12);
    assert_true(fabs(p10 - 1.9) < 1e-12);
    assert_true(fabs(p90 - 9.1) < 1e-12);
    assert_true(mn == 1);
}

static void device_peaks(void **state) {
    (void)state;
    /* H100 SXM: 132 SMs x 128 FP32 lanes x 2 x 1.98 GHz = 66.9 TFLOP/s;
       HBM3 2.619 GHz x 2 x 5120 bits / 8 = 3.352 TB/s */
    struct oc_rp_device d = {.cc_major = 9, .cc_minor = 0, .sm_count = 132, .sm_clock_khz = 1980000,
                             .mem_clock_khz = 2619000, .mem_bus_bits = 5120};
    struct oc_rp_peaks pk;
    oc_rp_device_peaks(&d, &pk);
    assert_true(fabs(pk.fp32_flops - 132.0 * 128 * 2 * 1.98e9) < 1e6);
    assert_true(fabs(pk.dram_bytes - 2.0 * 2.619e9 * 640) < 1e3);
    /* V100 SXM2: 80 SMs x 64 lanes x 2 x 1.53 GHz = 15.67 TFLOP/s; A100 64
       lanes; T4 (7.5) 64; RTX 3090 (8.6) 128 */
    assert_int_equal(oc_rp_fp32_lanes(7, 0), 64);
    assert_int_equal(oc_rp_fp32_lanes(8, 0), 64);
    assert_int_equal(oc_rp_fp32_lanes(7, 5), 64);
    assert_int_equal(oc_rp_fp32_lanes(8, 6), 128);

    /* a node of 2e9 estimated FLOPs measured at 1.9e9 FP32 + 0.1e9 tensor in
       1 ms, with 3e6 + 1e6 DRAM bytes: ratio 1.0, 2 TFLOP/s, 4 GB/s,
       intensity 500 FLOP/B; 2e12 / 66.9e12 = 2.99 % of peak vs 0.12 % of
       DRAM: compute bound */
    struct oc_rp_result r = {.status = OC_RPS_MEASURED, .time_median_ns = 1e6, .has_counters = true,
                             .fp32_flops = 1.9e9, .tensor_flops = 0.1e9, .dram_read_bytes = 3e6,
                             .dram_write_bytes = 1e6};
    struct oc_rp_derived dd;
    oc_rp_derive(&r, 2000000000u, false, &pk, &dd);
    assert_true(fabs(dd.ratio - 1.0) < 1e-12);
    /* FP16 instructions on 32-bit data are register idioms, not the node's
       FLOPs (an H200 counted 4 per element in a plain copy); on 16-bit data
       they are its arithmetic */
    struct oc_rp_result h = r;
    h.fp16_flops = 0.5e9;
    struct oc_rp_derived dh;
    oc_rp_derive(&h, 2000000000u, false, &pk, &dh);
    assert_true(fabs(dh.ratio - 1.0) < 1e-12);
    oc_rp_derive(&h, 2000000000u, true, &pk, &dh);
    assert_true(fabs(dh.ratio - 1.25) < 1e-12);
    struct oc_rp_plan hp = {.n_in = 1, .n_out = 1};
    hp.in[0].dtype = 1;
    hp.out[0].dtype = 1;
    assert_false(oc_rp_plan_half(&hp));
    hp.out[0].dtype = 16;
    assert_true(oc_rp_plan_half(&hp));
    assert_true(fabs(dd.flops_per_s - 2e12) < 1);
    assert_true(fabs(dd.bytes_per_s - 4e9) < 1e-3);
    assert_true(fabs(dd.intensity - 500) < 1e-9);
    assert_true(fabs(dd.pct_peak_flops - 100.0 * 2e12 / (132.0 * 128 * 2 * 1.98e9)) < 1e-9);
    assert_int_equal(dd.bound, OC_BOUND_COMPUTE);
}

static void result_files(void **state) {
    (void)state;
    char path[] = "/tmp/oc_rp_test_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *doc = "{\"schema\": \"onnxcost-replay/1\", \"model\": \"m.onnx\",\n"
                      " \"device\": {\"name\": \"NVIDIA H100 80GB HBM3\"},\n"
                      " \"nodes\": [\n"
                      "  {\"name\": \"conv\", \"op\": \"Conv\", \"status\": \"measured\", \"estimate\": {\"flops\": 100},\n"
                      "   \"time_ns\": {\"median\": 1500.5}, \"counters\": {\"flops\": 98,\n"
                      "   \"dram_read_bytes\": 10, \"dram_write_bytes\": 5}},\n"
                      "  {\"name\": \"r\", \"op\": \"Reshape\", \"status\": \"alias\", \"estimate\": {\"flops\": 0}}]}\n";
    assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
    close(fd);
    struct oc_rp_file f;
    struct oc_diag d = {0};
    assert_int_equal(oc_rp_file_read(path, &f, &d), OC_OK);
    assert_int_equal(f.n_nodes, 2);
    assert_string_equal(f.device, "NVIDIA H100 80GB HBM3");
    assert_true(f.nodes[0].measured && f.nodes[0].has_counters);
    assert_true(f.nodes[0].time_ns == 1500.5);
    assert_true(f.nodes[0].dram_bytes == 15);
    assert_false(f.nodes[1].measured);
    oc_rp_file_free(&f);
    /* an analysis report without measured times is not a result */
    fd = open(path, O_WRONLY | O_TRUNC);
    const char *other = "{\"schema\": \"onnxcost/1\", \"nodes\": []}";
    assert_int_equal(write(fd, other, strlen(other)), (ssize_t)strlen(other));
    close(fd);
    memset(&d, 0, sizeof d);
    assert_int_equal(oc_rp_file_read(path, &f, &d), OC_ERR_PARSE);
    assert_non_null(strstr(d.msg, "onnxcost-replay/1"));
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_axis),
        cmocka_unit_test(window_axis_transposed),
        cmocka_unit_test(broadcast_strides),
        cmocka_unit_test_teardown(gemm_mapping, tu_teardown),
        cmocka_unit_test_teardown(matmul_batches, tu_teardown),
        cmocka_unit_test_teardown(conv_asymmetric, tu_teardown),
        cmocka_unit_test_teardown(layout_copies, tu_teardown),
        cmocka_unit_test_teardown(fills_and_reasons, tu_teardown),
        cmocka_unit_test_teardown(reductions_and_refusals, tu_teardown),
        cmocka_unit_test_teardown(reduce_axes_attribute, tu_teardown),
        cmocka_unit_test_teardown(castlike, tu_teardown),
        cmocka_unit_test_teardown(folded_like_the_model, tu_teardown),
        cmocka_unit_test_teardown(ort_fused_ops, tu_teardown),
        cmocka_unit_test_teardown(mish, tu_teardown),
        cmocka_unit_test(fill_ranges),
        cmocka_unit_test(stats_quantiles),
        cmocka_unit_test(device_peaks),
        cmocka_unit_test(result_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
