/*
 * test_runtime.c — the kernels a runtime runs for an exported graph
 * (views/perf/runtime.c, --runtime). One graph holds each pattern eager
 * PyTorch runs differently from the file's nodes, fp32 (4 bytes an element):
 *   attention  qk = MatMul(q [1,2,4,8], kt [1,2,8,4]); Mul by a scalar;
 *              Softmax; att = MatMul(., v [1,2,4,8])
 *   GELU       gel = Mul(Mul(y, Add(Erf(Div(y, r2)), one)), half) after
 *              y = Add(MatMul(x [4,16], W [16,8]), b [8]): the bias Add,
 *              which training.h's oc_pointwise_chains puts first in the
 *              chain, is the Linear's (found first), the chain after it
 *   a Linear   lin = Add(MatMul(x, W), b) read by nothing pointwise
 *   a Conv     with a bias and no BatchNormalization after it [1,4,8,8]
 * The groups' bytes are worked out here from the shapes; their FLOPs are
 * the members' (the analysis's cost rules, checked elsewhere); the times
 * from the roofline with the default factors, written out.
 */
#include "testutil.h"

#include "perf/parallel.h"
#include "perf/perf.h"
#include "dtype.h"

#include <math.h>
#include <string.h>

static void graph(struct pb_model *m) {
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 4, TU_DIMS(1, 2, 4, 8), NULL));
    pbm_input(&pm, pb_value_info("kt", PB_FLOAT, 4, TU_DIMS(1, 2, 8, 4), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 4, TU_DIMS(1, 2, 4, 8), NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 16), NULL));
    pbm_input(&pm, pb_value_info("c", PB_FLOAT, 4, TU_DIMS(1, 3, 8, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("s", 0, NULL));
    pbm_init(&pm, pb_tensor_f32("W", 2, TU_DIMS(16, 8)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(8)));
    pbm_init(&pm, pb_tensor_f32("r2", 0, NULL));
    pbm_init(&pm, pb_tensor_f32("one", 0, NULL));
    pbm_init(&pm, pb_tensor_f32("half", 0, NULL));
    pbm_init(&pm, pb_tensor_f32("cw", 4, TU_DIMS(4, 3, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("cb", 1, TU_DIMS(4)));
    pbm_node(&pm, pb_node("qk", "MatMul", TU_LIST("q", "kt"), TU_LIST("qk_o"), 0, NULL));
    pbm_node(&pm, pb_node("sc", "Mul", TU_LIST("qk_o", "s"), TU_LIST("sc_o"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", -1)};
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("sc_o"), TU_LIST("sm_o"), 1, ax));
    pbm_node(&pm, pb_node("att", "MatMul", TU_LIST("sm_o", "v"), TU_LIST("att_o"), 0, NULL));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("x", "W"), TU_LIST("mm_o"), 0, NULL));
    pbm_node(&pm, pb_node("y", "Add", TU_LIST("mm_o", "b"), TU_LIST("y_o"), 0, NULL));
    pbm_node(&pm, pb_node("d", "Div", TU_LIST("y_o", "r2"), TU_LIST("d_o"), 0, NULL));
    pbm_node(&pm, pb_node("e", "Erf", TU_LIST("d_o"), TU_LIST("e_o"), 0, NULL));
    pbm_node(&pm, pb_node("a", "Add", TU_LIST("e_o", "one"), TU_LIST("a_o"), 0, NULL));
    pbm_node(&pm, pb_node("m", "Mul", TU_LIST("y_o", "a_o"), TU_LIST("m_o"), 0, NULL));
    pbm_node(&pm, pb_node("gel", "Mul", TU_LIST("m_o", "half"), TU_LIST("gel_o"), 0, NULL));
    pbm_node(&pm, pb_node("lmm", "MatMul", TU_LIST("x", "W"), TU_LIST("lmm_o"), 0, NULL));
    pbm_node(&pm, pb_node("lin", "Add", TU_LIST("lmm_o", "b"), TU_LIST("lin_o"), 0, NULL));
    struct pbw pads[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("c", "cw", "cb"), TU_LIST("conv_o"), 1, pads));
    pbm_output(&pm, pb_value_info("att_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("gel_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("conv_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("lin_o", PB_FLOAT, -1, NULL, NULL));
    *m = pm;
}

static int32_t idx(const struct oc_analysis *a, const char *name) { return tu_node(a, name)->index; }

static double flops_of(const struct oc_analysis *a, const char *const *names) {
    double f = 0;
    for (int i = 0; names[i]; i++)
        f += (double)tu_node(a, names[i])->cost.flops;
    return f;
}

static void torch_eager_groups(void **state) {
    (void)state;
    struct pb_model pm = {0};
    graph(&pm);
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    const struct oc_graph *g = a->graph;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(g, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    /* attention: one kernel at att; it reads q, kt, v (64 elements each) and
       the scale (1), writes att (64): (3 x 64 + 1 + 64) x 4 = 1,028 bytes */
    const char *attention[] = {"qk", "sc", "sm", "att", NULL};
    for (int i = 0; attention[i]; i++)
        assert_int_equal(p.anchor[idx(a, attention[i])], idx(a, "att"));
    assert_int_equal(p.kind[idx(a, "att")], OC_RT_ATTENTION);
    assert_true(p.bytes[idx(a, "att")] == 1028);
    assert_true(p.flops[idx(a, "att")] == flops_of(a, attention));
    assert_true(p.contraction[idx(a, "att")]);
    /* the Linear: x (64), W (128), b (8) read, lin (32) written: (64 +
       128 + 8 + 32) x 4 = 928 */
    assert_int_equal(p.anchor[idx(a, "lmm")], idx(a, "lin"));
    assert_int_equal(p.anchor[idx(a, "lin")], idx(a, "lin"));
    assert_int_equal(p.kind[idx(a, "lin")], OC_RT_LINEAR);
    assert_true(p.bytes[idx(a, "lin")] == 928);
    assert_true(p.contraction[idx(a, "lin")]);
    /* GELU after its Linear: the Linear (mm, y) as lin; GELU reads y (32)
       and three scalars, writes gel (32): (32 + 3 + 32) x 4 = 268 */
    assert_int_equal(p.anchor[idx(a, "mm")], idx(a, "y"));
    assert_int_equal(p.kind[idx(a, "y")], OC_RT_LINEAR);
    assert_true(p.bytes[idx(a, "y")] == 928);
    const char *gelu[] = {"d", "e", "a", "m", "gel", NULL};
    for (int i = 0; gelu[i]; i++)
        assert_int_equal(p.anchor[idx(a, gelu[i])], idx(a, "gel"));
    assert_int_equal(p.kind[idx(a, "gel")], OC_RT_POINTWISE);
    assert_true(p.bytes[idx(a, "gel")] == 268);
    assert_true(p.flops[idx(a, "gel")] == flops_of(a, gelu));
    assert_false(p.contraction[idx(a, "gel")]);
    /* the Conv: its own kernel, and a BatchNorm pass over its output
       (1 x 4 x 8 x 8 = 256 elements) read and written: 2,048 bytes */
    assert_int_equal(p.anchor[idx(a, "conv")], -1);
    assert_true(p.extra_bytes[idx(a, "conv")] == 2048);
    assert_true(p.extra_bytes[idx(a, "att")] == 0);
    oc_runtime_plan_free(&p);
    /* one kernel per node: no group */
    assert_int_equal(oc_runtime_plan(g, &(struct oc_perf_opts){.runtime = OC_RUNTIME_NODES}, &p), OC_OK);
    for (int32_t i = 0; i < g->n_nodes; i++) {
        assert_int_equal(p.anchor[i], -1);
        assert_true(p.extra_bytes[i] == 0);
    }
    oc_runtime_plan_free(&p);
    /* without a fused attention kernel (PyTorch before 2.0): eagerly its two
       MatMuls, the scale and the Softmax are kernels of their own, the
       Linears still groups; compiled, the MatMuls are library kernels and
       the scale and Softmax one fused region between them, reading qk_o
       (1 x 2 x 4 x 4 = 32 elements) and s (1), writing sm_o (32): (32 + 1 +
       32) x 4 = 260 bytes */
    assert_int_equal(oc_runtime_plan(g, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .unfused_attention = true},
                                     &p),
                     OC_OK);
    for (int i = 0; attention[i]; i++)
        assert_int_equal(p.anchor[idx(a, attention[i])], -1);
    assert_int_equal(p.kind[idx(a, "lin")], OC_RT_LINEAR);
    oc_runtime_plan_free(&p);
    assert_int_equal(oc_runtime_plan(g, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_COMPILE,
                                                                .unfused_attention = true},
                                     &p),
                     OC_OK);
    assert_int_equal(p.anchor[idx(a, "qk")], -1);
    assert_int_equal(p.anchor[idx(a, "att")], -1);
    assert_int_equal(p.anchor[idx(a, "sc")], idx(a, "sm"));
    assert_int_equal(p.anchor[idx(a, "sm")], idx(a, "sm"));
    assert_int_equal(p.kind[idx(a, "sm")], OC_RT_FUSED);
    assert_true(p.bytes[idx(a, "sm")] == 260);
    oc_runtime_plan_free(&p);

    /* the prediction: 14 kernels as the file has them; eagerly 5 (att, y,
       gel, conv, lin) and a BatchNorm pass, the members taking no time.
       A100 SXM4 80GB (2,039 GB/s) at the default memory factor 0.8: the
       GELU kernel, memory-bound at 268 bytes, takes 268 / (2.039e12 x 0.8)
       s plus the 5 us launch; the BatchNorm pass 2,048 / (2.039e12 x 0.8) s
       plus a launch */
    const struct oc_gpu *gpu = oc_gpu_find("a100-sxm4-80gb");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf nodes, eager;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &nodes), OC_OK);
    o.runtime = OC_RUNTIME_TORCH_EAGER;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &eager), OC_OK);
    assert_int_equal(nodes.n_kernels, 14);
    assert_int_equal(eager.n_kernels, 6);
    const struct oc_node_perf *ge = &eager.nodes[idx(a, "gel")], *er = &eager.nodes[idx(a, "e")];
    assert_true(er->grouped && er->group_anchor == idx(a, "gel") && er->time == 0);
    assert_true(ge->grouped && ge->group_kind == OC_RT_POINTWISE);
    double bw = 2039e9 * 0.8;
    assert_true(fabs(ge->t_memory - 268 / bw) <= 1e-12 * (268 / bw));
    assert_true(fabs(ge->time - (fmax(ge->t_compute, ge->t_memory) + 5e-6)) <= 1e-15);
    const struct oc_node_perf *cv = &eager.nodes[idx(a, "conv")], *cn = &nodes.nodes[idx(a, "conv")];
    assert_true(fabs(cv->t_extra - (2048 / bw + 5e-6)) <= 1e-15);
    /* the convolution's reduction, 3 channels x 3 x 3 = 27, is short: under
       eager PyTorch its compute time grows by (27 + 64) / 27, and its time
       by what that adds to the longer of its two terms (compiled, not:
       below) */
    double tc = cn->t_compute * (27.0 + 64) / 27;
    assert_true(fabs(cv->t_compute - tc) <= 1e-12 * tc);
    assert_true(tc > cn->t_memory);
    assert_true(fabs(cv->time - (cn->time - fmax(cn->t_compute, cn->t_memory) + tc) - cv->t_extra) <= 1e-15);
    struct oc_perf compiled;
    o.runtime = OC_RUNTIME_TORCH_COMPILE;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &compiled), OC_OK);
    assert_true(compiled.nodes[idx(a, "conv")].t_compute == cn->t_compute);
    oc_perf_free(&compiled);
    o.runtime = OC_RUNTIME_TORCH_EAGER;
    /* a training step's backward: twice the forward time of a contraction's
       kernel (the two Linears, anchored at their bias Adds, the attention
       and the convolution), 1.5 times the rest's (GELU) */
    struct oc_training tr = {0};
    struct oc_data_parallel dp;
    oc_data_parallel(&eager, a, &tr, 1, &dp);
    double t = 0;
    const char *twice[] = {"att", "y", "lin", "conv", NULL};
    for (int i = 0; twice[i]; i++)
        t += 2 * eager.nodes[idx(a, twice[i])].time;
    t += 1.5 * ge->time;
    assert_true(fabs(dp.backward - t) <= 1e-12 * t);
    oc_perf_free(&nodes);
    oc_perf_free(&eager);
}

/* The views eager PyTorch hands its attention kernel (q, k and v split
 * from one projection, reshaped to heads and permuted, K transposed) are
 * strided views of one buffer: members of the group, no kernels.
 * x [1, 4, 24] -> Split (sizes [8, 8, 8]) -> Reshape each to [1, 4, 2, 4]
 * -> Transpose to [1, 2, 4, 4] (K once more to [1, 2, 4, 4] transposed)
 * -> MatMul, Mul by a scalar, Softmax, MatMul. The group reads x (96 x 4 =
 * 384 bytes), the split sizes (3 int64: 24), the shape (4 int64: 32, one
 * tensor for all three) and the scale (4), and writes the output (32 x 4
 * = 128): 572 bytes; one kernel. */
static void attention_views(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(1, 4, 24), NULL));
    pbm_init(&pm, pb_tensor_i64("sizes", 1, TU_DIMS(3), TU_DIMS(8, 8, 8)));
    pbm_init(&pm, pb_tensor_i64("shp", 1, TU_DIMS(4), TU_DIMS(1, 4, 2, 4)));
    pbm_init(&pm, pb_tensor_f32("s", 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", 2)};
    pbm_node(&pm, pb_node("split", "Split", TU_LIST("x", "sizes"), TU_LIST("q", "k", "v"), 1, ax));
    pbm_node(&pm, pb_node("rq", "Reshape", TU_LIST("q", "shp"), TU_LIST("rq_o"), 0, NULL));
    pbm_node(&pm, pb_node("rk", "Reshape", TU_LIST("k", "shp"), TU_LIST("rk_o"), 0, NULL));
    pbm_node(&pm, pb_node("rv", "Reshape", TU_LIST("v", "shp"), TU_LIST("rv_o"), 0, NULL));
    struct pbw p1[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 1, 3))};
    struct pbw p2[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))};
    struct pbw p3[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 1, 3))};
    pbm_node(&pm, pb_node("tq", "Transpose", TU_LIST("rq_o"), TU_LIST("tq_o"), 1, p1));
    pbm_node(&pm, pb_node("tk", "Transpose", TU_LIST("rk_o"), TU_LIST("tk_o"), 1, p2));
    pbm_node(&pm, pb_node("tv", "Transpose", TU_LIST("rv_o"), TU_LIST("tv_o"), 1, p3));
    pbm_node(&pm, pb_node("qk", "MatMul", TU_LIST("tq_o", "tk_o"), TU_LIST("qk_o"), 0, NULL));
    pbm_node(&pm, pb_node("sc", "Mul", TU_LIST("qk_o", "s"), TU_LIST("sc_o"), 0, NULL));
    struct pbw sa[] = {pb_attr_int("axis", -1)};
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("sc_o"), TU_LIST("sm_o"), 1, sa));
    pbm_node(&pm, pb_node("att", "MatMul", TU_LIST("sm_o", "tv_o"), TU_LIST("att_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("att_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    int32_t att = idx(a, "att");
    const char *members[] = {"split", "rq", "rk", "rv", "tq", "tk", "tv", "qk", "sc", "sm", "att", NULL};
    for (int i = 0; members[i]; i++)
        assert_int_equal(p.anchor[idx(a, members[i])], att);
    assert_int_equal(p.kind[att], OC_RT_ATTENTION);
    assert_true(p.bytes[att] == 572);
    oc_runtime_plan_free(&p);
}

/* Attention with a mask, as BERT's and GPT-2's exports write it: qk =
 * MatMul(q [1,2,4,8], kt [1,2,8,4]); Div by a scalar; Add of a mask
 * [1,1,4,4] (a graph input, the mask first in the Add); Softmax; MatMul(., v).
 * One kernel at att, the mask read with the rest: q, kt, v (64 elements
 * each), the scale (1) and the mask (16) read, att (64) written: (3 x 64 +
 * 1 + 16 + 64) x 4 = 1,092 bytes; its FLOPs the five members'. */
static void attention_masked(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 4, TU_DIMS(1, 2, 4, 8), NULL));
    pbm_input(&pm, pb_value_info("kt", PB_FLOAT, 4, TU_DIMS(1, 2, 8, 4), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 4, TU_DIMS(1, 2, 4, 8), NULL));
    pbm_input(&pm, pb_value_info("mask", PB_FLOAT, 4, TU_DIMS(1, 1, 4, 4), NULL));
    pbm_init(&pm, pb_tensor_f32("s", 0, NULL));
    pbm_node(&pm, pb_node("qk", "MatMul", TU_LIST("q", "kt"), TU_LIST("qk_o"), 0, NULL));
    pbm_node(&pm, pb_node("sc", "Div", TU_LIST("qk_o", "s"), TU_LIST("sc_o"), 0, NULL));
    pbm_node(&pm, pb_node("masked", "Add", TU_LIST("mask", "sc_o"), TU_LIST("ma_o"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", -1)};
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("ma_o"), TU_LIST("sm_o"), 1, ax));
    pbm_node(&pm, pb_node("att", "MatMul", TU_LIST("sm_o", "v"), TU_LIST("att_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("att_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(an->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    const char *attention[] = {"qk", "sc", "masked", "sm", "att", NULL};
    for (int i = 0; attention[i]; i++)
        assert_int_equal(p.anchor[idx(an, attention[i])], idx(an, "att"));
    assert_int_equal(p.kind[idx(an, "att")], OC_RT_ATTENTION);
    assert_true(p.bytes[idx(an, "att")] == 1092);
    assert_true(p.flops[idx(an, "att")] == flops_of(an, attention));
    oc_runtime_plan_free(&p);
}

/* A node read outside what would be a group keeps its kernel: Softmax's
 * output also a graph output is no attention; a pointwise chain that reads
 * two tensors is no function of one. */
static void groups_need_single_use(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 2, TU_DIMS(4, 8), NULL));
    pbm_input(&pm, pb_value_info("k", PB_FLOAT, 2, TU_DIMS(8, 4), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 2, TU_DIMS(4, 8), NULL));
    pbm_input(&pm, pb_value_info("u", PB_FLOAT, 2, TU_DIMS(4, 8), NULL));
    pbm_node(&pm, pb_node("qk", "MatMul", TU_LIST("q", "k"), TU_LIST("qk_o"), 0, NULL));
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("qk_o"), TU_LIST("sm_o"), 0, NULL));
    pbm_node(&pm, pb_node("att", "MatMul", TU_LIST("sm_o", "v"), TU_LIST("att_o"), 0, NULL));
    pbm_node(&pm, pb_node("t", "Tanh", TU_LIST("att_o"), TU_LIST("t_o"), 0, NULL));
    pbm_node(&pm, pb_node("sum", "Add", TU_LIST("t_o", "u"), TU_LIST("sum_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("sm_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("sum_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    for (int32_t i = 0; i < a->graph->n_nodes; i++)
        assert_int_equal(p.anchor[i], -1);
    oc_runtime_plan_free(&p);
}

/* A chain of Pow, Mul and Add (StarReLU's s x^2 + b) has no sign of one
 * torch op written out (Erf, Tanh, Sigmoid, ReduceMean): eager PyTorch runs
 * each its own kernel. And autocast (autocast.c) on the same graph, fp32
 * in the file, 4 bytes an element, worked out by hand:
 *   y  = MatMul(x [2,4], W [4,4])    fp16 list: x cast (8 x (4 + 2) = 48 B)
 *                                    and W once (16 x 6 = 96 B), 2 kernels;
 *                                    y fp16; it moves x, W, y at 2 bytes:
 *                                    (8 + 16 + 8) x 2 = 64 of 128 priced
 *   sq = Pow(y, two)                 fp32 list: y cast up (8 x 6 = 48 B)
 *   ms = Mul(sq, s1 [1])             an fp32 rank-1 parameter: fp32
 *   o1 = Add(ms, P [4])              fp32
 *   z  = LayerNormalization(y, g, b) fp32 list: y cast again (48 B)
 *   h  = Mul(y, c0)                  a 0-d constant does not widen: fp16;
 *                                    y, c0 (its own 4 bytes), h:
 *                                    16 + 4 + 16 = 36 of 68 priced */
static void chains_and_autocast(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 4), NULL));
    pbm_init(&pm, pb_tensor_f32("W", 2, TU_DIMS(4, 4)));
    pbm_init(&pm, pb_tensor_f32("two", 0, NULL));
    pbm_init(&pm, pb_tensor_f32("s1", 1, TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_f32("P", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("g", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("c0", 0, NULL));
    pbm_node(&pm, pb_node("y", "MatMul", TU_LIST("x", "W"), TU_LIST("y_o"), 0, NULL));
    pbm_node(&pm, pb_node("sq", "Pow", TU_LIST("y_o", "two"), TU_LIST("sq_o"), 0, NULL));
    pbm_node(&pm, pb_node("ms", "Mul", TU_LIST("sq_o", "s1"), TU_LIST("ms_o"), 0, NULL));
    pbm_node(&pm, pb_node("o1", "Add", TU_LIST("ms_o", "P"), TU_LIST("o1_o"), 0, NULL));
    pbm_node(&pm, pb_node("z", "LayerNormalization", TU_LIST("y_o", "g", "b"), TU_LIST("z_o"), 0, NULL));
    pbm_node(&pm, pb_node("h", "Mul", TU_LIST("y_o", "c0"), TU_LIST("h_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("o1_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("z_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("h_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    const struct oc_graph *g = a->graph;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(g, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    for (int32_t i = 0; i < g->n_nodes; i++)
        assert_int_equal(p.anchor[i], -1);
    assert_null(p.width);
    oc_runtime_plan_free(&p);

    assert_int_equal(oc_runtime_plan(g, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .autocast = OC_DT_FLOAT16},
                                     &p),
                     OC_OK);
    const struct oc_node *y = tu_node(a, "y"), *sq = tu_node(a, "sq"), *ms = tu_node(a, "ms"),
                         *o1 = tu_node(a, "o1"), *z = tu_node(a, "z"), *h = tu_node(a, "h");
    assert_int_equal(p.width[y->out[0]], 2);
    assert_int_equal(p.width[sq->out[0]], 4);
    assert_int_equal(p.width[ms->out[0]], 4);
    assert_int_equal(p.width[o1->out[0]], 4);
    assert_int_equal(p.width[z->out[0]], 4);
    assert_int_equal(p.width[h->out[0]], 2);
    assert_true(p.extra_bytes[y->index] == 144 && p.extra_kernels[y->index] == 2);
    assert_true(p.extra_bytes[sq->index] == 48 && p.extra_kernels[sq->index] == 1);
    assert_true(p.extra_bytes[z->index] == 48 && p.extra_kernels[z->index] == 1);
    assert_true(p.extra_kernels[ms->index] == 0 && p.extra_kernels[h->index] == 0);
    assert_true(fabs(p.bytes_scale[y->index] - 64.0 / 128) < 1e-15);
    assert_true(fabs(p.bytes_scale[sq->index] - 1) < 1e-15);
    assert_true(fabs(p.bytes_scale[h->index] - 36.0 / 68) < 1e-15);
    assert_int_equal(p.dtype[y->index], OC_DT_FLOAT16);
    assert_int_equal(p.dtype[sq->index], OC_DT_FLOAT);
    assert_int_equal(p.dtype[h->index], OC_DT_FLOAT16);
    oc_runtime_plan_free(&p);

    /* the prediction: 6 kernels and 4 casts; the MatMul's casts a pass of
       144 bytes at the A100's 2,039 GB/s x 0.8 and two launches */
    const struct oc_gpu *gpu = oc_gpu_find("a100-sxm4-80gb");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    o.runtime = OC_RUNTIME_TORCH_EAGER;
    o.autocast = OC_DT_FLOAT16;
    struct oc_perf pf;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &pf), OC_OK);
    assert_int_equal(pf.n_kernels, 10);
    assert_true(fabs(pf.nodes[y->index].t_extra - (144 / (2039e9 * 0.8) + 2 * 5e-6)) <= 1e-15);
    assert_int_equal(pf.nodes[y->index].unit, OC_UNIT_FP16_TC);
    assert_int_equal(pf.nodes[y->index].kclass, OC_KC_GEMM);
    assert_int_equal(pf.nodes[z->index].kclass, OC_KC_REDUCE);
    oc_perf_free(&pf);
}

/* A permute eager PyTorch keeps a strided view: ConvNeXt's block permutes
 * to channels-last for its LayerNorm (which makes its input contiguous: a
 * copy, a kernel) and back before the residual Add (which reads the strided
 * tensor as it is: no kernel). With the model in channels-last memory
 * format both are views. */
static void permute_views(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 2, 2), NULL));
    pbm_init(&pm, pb_tensor_f32("g", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(4)));
    struct pbw to_last[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))};
    struct pbw to_first[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))};
    pbm_node(&pm, pb_node("t1", "Transpose", TU_LIST("x"), TU_LIST("t1_o"), 1, to_last));
    pbm_node(&pm, pb_node("ln", "LayerNormalization", TU_LIST("t1_o", "g", "b"), TU_LIST("ln_o"), 0, NULL));
    pbm_node(&pm, pb_node("t2", "Transpose", TU_LIST("ln_o"), TU_LIST("t2_o"), 1, to_first));
    pbm_node(&pm, pb_node("res", "Add", TU_LIST("t2_o", "x"), TU_LIST("res_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("res_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    int32_t t1 = tu_node(a, "t1")->index, t2 = tu_node(a, "t2")->index;
    assert_int_equal(p.anchor[t1], -1);
    assert_int_equal(p.anchor[t2], t2);
    assert_int_equal(p.kind[t2], OC_RT_VIEW);
    assert_true(p.bytes[t2] == 0 && p.flops[t2] == 0);
    oc_runtime_plan_free(&p);
    /* in channels-last memory format the permute to NHWC is the memory as
       it lies: a view too, though the LayerNorm reads it */
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .channels_last = true},
                                     &p),
                     OC_OK);
    assert_int_equal(p.anchor[t1], t1);
    assert_int_equal(p.kind[t1], OC_RT_VIEW);
    assert_int_equal(p.kind[t2], OC_RT_VIEW);
    oc_runtime_plan_free(&p);
    const struct oc_gpu *gpu = oc_gpu_find("a100-sxm4-80gb");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf nodes, eager;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &nodes), OC_OK);
    o.runtime = OC_RUNTIME_TORCH_EAGER;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &eager), OC_OK);
    assert_int_equal(nodes.n_kernels, 4);
    assert_int_equal(eager.n_kernels, 3);
    assert_true(eager.nodes[t2].time == 0 && eager.nodes[t2].bound == OC_BOUND_NONE);
    assert_true(fabs(eager.time - (nodes.time - nodes.nodes[t2].time)) <= 1e-15);
    oc_perf_free(&nodes);
    oc_perf_free(&eager);
}

/* The memory format eager PyTorch carries (views/perf/layout.h): a stem's
 * LayerNorm2d leaves its NCHW-shaped result channels-last (t2, a view: the
 * Conv, the residual Add and the global pool behind it take it as it lies),
 * so the block's own permute to NHWC (t3) is a view of a channels-last
 * tensor, and so is its way back (t4); the first permute (t1, of the NCHW
 * input) is the LayerNorm's copy. Read by a Reshape instead, the way back
 * is a copy (t6): a reshape needs the NCHW order contiguous. */
static void memory_format_views(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 3, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("g", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(4, 1, 3, 3)));
    pbm_init(&pm, pb_tensor_i64("shape", 1, TU_DIMS(2), TU_DIMS(1, 36)));
    /* an attribute is taken by the node it is given to: one array each */
    struct pbw p1[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))}, p3[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))},
               p5[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))};
    struct pbw p2[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))}, p4[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))},
               p6[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))};
    struct pbw dw[] = {pb_attr_int("group", 4), pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("t1", "Transpose", TU_LIST("x"), TU_LIST("t1_o"), 1, p1));
    pbm_node(&pm, pb_node("ln1", "LayerNormalization", TU_LIST("t1_o", "g", "b"), TU_LIST("ln1_o"), 0, NULL));
    pbm_node(&pm, pb_node("t2", "Transpose", TU_LIST("ln1_o"), TU_LIST("stem"), 1, p2));
    pbm_node(&pm, pb_node("dw", "Conv", TU_LIST("stem", "w"), TU_LIST("dw_o"), 2, dw));
    pbm_node(&pm, pb_node("t3", "Transpose", TU_LIST("dw_o"), TU_LIST("t3_o"), 1, p3));
    pbm_node(&pm, pb_node("ln2", "LayerNormalization", TU_LIST("t3_o", "g", "b"), TU_LIST("ln2_o"), 0, NULL));
    pbm_node(&pm, pb_node("t4", "Transpose", TU_LIST("ln2_o"), TU_LIST("t4_o"), 1, p4));
    pbm_node(&pm, pb_node("res", "Add", TU_LIST("t4_o", "stem"), TU_LIST("res_o"), 0, NULL));
    pbm_node(&pm, pb_node("pool", "GlobalAveragePool", TU_LIST("res_o"), TU_LIST("pool_o"), 0, NULL));
    pbm_node(&pm, pb_node("t5", "Transpose", TU_LIST("res_o"), TU_LIST("t5_o"), 1, p5));
    pbm_node(&pm, pb_node("ln3", "LayerNormalization", TU_LIST("t5_o", "g", "b"), TU_LIST("ln3_o"), 0, NULL));
    pbm_node(&pm, pb_node("t6", "Transpose", TU_LIST("ln3_o"), TU_LIST("t6_o"), 1, p6));
    pbm_node(&pm, pb_node("flat", "Reshape", TU_LIST("t6_o", "shape"), TU_LIST("flat_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("pool_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("flat_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    const char *views[] = {"t2", "t3", "t4", "t5"}, *copies[] = {"t1", "t6"};
    for (size_t k = 0; k < 4; k++) {
        int32_t i = tu_node(a, views[k])->index;
        assert_int_equal(p.anchor[i], i);
        assert_int_equal(p.kind[i], OC_RT_VIEW);
    }
    for (size_t k = 0; k < 2; k++)
        assert_int_equal(p.anchor[tu_node(a, copies[k])->index], -1);
    oc_runtime_plan_free(&p);
    /* with --channels-last the first permute is of a channels-last input: a
       view; t6 before the Reshape stays the Reshape's copy */
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .channels_last = true},
                                     &p),
                     OC_OK);
    int32_t t1 = tu_node(a, "t1")->index, t6 = tu_node(a, "t6")->index;
    assert_int_equal(p.kind[t1], OC_RT_VIEW);
    assert_int_equal(p.anchor[t6], -1);
    oc_runtime_plan_free(&p);
}

/* The memory format of a model moved to channels-last, and what either
 * layout shares (layout.h). x [1,4,3,3]:
 *   c1 = Conv(x, 1x1); t1 = permute(c1, 0,2,3,1); ln1; t2 = permute back;
 *   cat = Concat(t2, c1, channels); c2 = Conv(cat); gap = GAP(c2);
 *   t4 = permute(gap, 0,2,3,1); ln4; t5 = permute back; Flatten
 *   mm = MatMul(c1, c1) (an attention's scores); t3 = permute(mm, 0,2,3,1);
 *   MatMul(t3, W) (CaiT's talking heads)
 *   c3 = Conv(mm); t6 = permute(c3, 0,2,3,1); ln6; t7 = permute back;
 *   c4 = Conv(t7); Reshape(c4)
 * NCHW: t2 a view (torch.cat and the convolution behind it take the
 * channels-last result as it lies), t4 and t5 views ((B, C, 1, 1) lies the
 * same in either order); t1, t3, t6 copies (their inputs lie NCHW), t7 a
 * copy (the Reshape behind c4 wants NCHW). Channels-last: every
 * convolution's weights are channels-last, so c1 and c3 write
 * channels-last (t1, t6 views) and c4 takes t7 as it lies whatever reads
 * c4 (a view); the scores mm are no image: t3 stays a copy. */
static void model_channels_last(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 3, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("g", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("w1", 4, TU_DIMS(4, 4, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("w3", 4, TU_DIMS(4, 4, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("w4", 4, TU_DIMS(4, 4, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("w2", 4, TU_DIMS(4, 8, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("wm", 2, TU_DIMS(4, 4)));
    pbm_init(&pm, pb_tensor_i64("shape", 1, TU_DIMS(2), TU_DIMS(1, 36)));
    struct pbw p1[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))}, p3[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))},
               p4[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))}, p6[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 2, 3, 1))};
    struct pbw p2[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))}, p5[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))},
               p7[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 3, 1, 2))};
    struct pbw axis[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("c1", "Conv", TU_LIST("x", "w1"), TU_LIST("c1_o"), 0, NULL));
    pbm_node(&pm, pb_node("t1", "Transpose", TU_LIST("c1_o"), TU_LIST("t1_o"), 1, p1));
    pbm_node(&pm, pb_node("ln1", "LayerNormalization", TU_LIST("t1_o", "g", "b"), TU_LIST("ln1_o"), 0, NULL));
    pbm_node(&pm, pb_node("t2", "Transpose", TU_LIST("ln1_o"), TU_LIST("t2_o"), 1, p2));
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("t2_o", "c1_o"), TU_LIST("cat_o"), 1, axis));
    pbm_node(&pm, pb_node("c2", "Conv", TU_LIST("cat_o", "w2"), TU_LIST("c2_o"), 0, NULL));
    pbm_node(&pm, pb_node("gap", "GlobalAveragePool", TU_LIST("c2_o"), TU_LIST("gap_o"), 0, NULL));
    pbm_node(&pm, pb_node("t4", "Transpose", TU_LIST("gap_o"), TU_LIST("t4_o"), 1, p4));
    pbm_node(&pm, pb_node("ln4", "LayerNormalization", TU_LIST("t4_o", "g", "b"), TU_LIST("ln4_o"), 0, NULL));
    pbm_node(&pm, pb_node("t5", "Transpose", TU_LIST("ln4_o"), TU_LIST("t5_o"), 1, p5));
    pbm_node(&pm, pb_node("fl", "Flatten", TU_LIST("t5_o"), TU_LIST("fl_o"), 0, NULL));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("c1_o", "c1_o"), TU_LIST("mm_o"), 0, NULL));
    pbm_node(&pm, pb_node("t3", "Transpose", TU_LIST("mm_o"), TU_LIST("t3_o"), 1, p3));
    pbm_node(&pm, pb_node("heads", "MatMul", TU_LIST("t3_o", "wm"), TU_LIST("heads_o"), 0, NULL));
    pbm_node(&pm, pb_node("c3", "Conv", TU_LIST("mm_o", "w3"), TU_LIST("c3_o"), 0, NULL));
    pbm_node(&pm, pb_node("t6", "Transpose", TU_LIST("c3_o"), TU_LIST("t6_o"), 1, p6));
    pbm_node(&pm, pb_node("ln6", "LayerNormalization", TU_LIST("t6_o", "g", "b"), TU_LIST("ln6_o"), 0, NULL));
    pbm_node(&pm, pb_node("t7", "Transpose", TU_LIST("ln6_o"), TU_LIST("t7_o"), 1, p7));
    pbm_node(&pm, pb_node("c4", "Conv", TU_LIST("t7_o", "w4"), TU_LIST("c4_o"), 0, NULL));
    pbm_node(&pm, pb_node("flat", "Reshape", TU_LIST("c4_o", "shape"), TU_LIST("flat_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("fl_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("heads_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("flat_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    const char *names[] = {"t1", "t2", "t3", "t4", "t5", "t6", "t7"};
    const bool nchw_view[] = {false, true, false, true, true, false, false};
    const bool cl_view[] = {true, true, false, true, true, true, true};
    for (int layout = 0; layout < 2; layout++) {
        struct oc_runtime_plan p;
        assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                    .channels_last = layout == 1},
                                         &p),
                         OC_OK);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            int32_t i = tu_node(a, names[k])->index;
            bool view = layout ? cl_view[k] : nchw_view[k];
            assert_int_equal(p.anchor[i], view ? i : -1);
            if (view)
                assert_int_equal(p.kind[i], OC_RT_VIEW);
        }
        oc_runtime_plan_free(&p);
    }
}

/* cuDNN's tensor-core convolutions take NHWC: eager PyTorch in NCHW runs
 * a half convolution with a transform of its input and of its output
 * beside it (two kernels), counted as the two tensors streamed once
 * (OC_PERF_NCHW_PASSES). x [1,4,3,3] under autocast fp16: c = Conv(x, 1x1,
 * 4 to 4) reads x as 36 halves (72 bytes) and writes 36 (72): 144 bytes
 * of passes, 2 kernels. A depthwise convolution (d, group 4) has NCHW
 * kernels: none; nor has the model in fp32, in channels-last or compiled. */
static void nchw_transforms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 3, 3), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(4, 4, 1, 1)));
    pbm_init(&pm, pb_tensor_f32("wd", 4, TU_DIMS(4, 1, 3, 3)));
    struct pbw dw[] = {pb_attr_int("group", 4), pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("c", "Conv", TU_LIST("x", "w"), TU_LIST("c_o"), 0, NULL));
    pbm_node(&pm, pb_node("d", "Conv", TU_LIST("c_o", "wd"), TU_LIST("d_o"), 2, dw));
    pbm_output(&pm, pb_value_info("d_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    int32_t c = tu_node(a, "c")->index, d = tu_node(a, "d")->index;
    /* autocast's casts are passes beside the nodes too: the same in every
       layout, so each figure is taken against the channels-last plan's */
    struct oc_runtime_plan p, base;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .autocast = OC_DT_FLOAT16, .channels_last = true},
                                     &base),
                     OC_OK);
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .autocast = OC_DT_FLOAT16},
                                     &p),
                     OC_OK);
    assert_int_equal(p.extra_kernels[c] - base.extra_kernels[c], 2);
    assert_true(p.extra_bytes[c] - base.extra_bytes[c] == 144);
    assert_int_equal(p.extra_kernels[d], base.extra_kernels[d]);
    assert_true(p.extra_bytes[d] == base.extra_bytes[d]);
    oc_runtime_plan_free(&p);
    oc_runtime_plan_free(&base);
    /* fp32, and compiled: no transforms, no casts */
    const struct oc_perf_opts others[] = {
        {.runtime = OC_RUNTIME_TORCH_EAGER},
        {.runtime = OC_RUNTIME_TORCH_COMPILE},
    };
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        assert_int_equal(oc_runtime_plan(a->graph, &others[k], &p), OC_OK);
        assert_int_equal(p.extra_kernels[c], 0);
        assert_true(p.extra_bytes[c] == 0);
        oc_runtime_plan_free(&p);
    }
}

/* GroupNorm as exported (Reshape, InstanceNormalization, Reshape, Mul and
 * Add of its affine) is one torch group_norm; under autocast an fp32 op
 * with a cast of its half input. Softmax takes autocast's fp32 result type
 * without a cast. Worked out by hand, 4 bytes an element in the file:
 *   y  = MatMul(x [2,16], W [16,16])  fp16; casts x (32 x 6) and W (256 x 6)
 *   r1 = Reshape(y, [2,2,8]); in = InstanceNormalization(r1, s [2], b [2]);
 *   r2 = Reshape(in, [2,16]); gm = Mul(r2, w [16]); ga = Add(gm, c [16]):
 *        one kernel at ga reading r1 (32 x 4, cast up), s, b (8 each), the
 *        shape (2 int64: 16), w, c (64 each), writing ga (128): 416 bytes;
 *        the cast of r1: 32 x (2 + 4) = 192 bytes, one kernel
 *   sm = Softmax(y)  no cast: y at 2 bytes (64) and sm at 4 (128) of 256 */
static void groupnorm_and_softmax(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 16), NULL));
    pbm_init(&pm, pb_tensor_f32("W", 2, TU_DIMS(16, 16)));
    pbm_init(&pm, pb_tensor_i64("shape1", 1, TU_DIMS(3), TU_DIMS(2, 2, 8)));
    pbm_init(&pm, pb_tensor_i64("shape2", 1, TU_DIMS(2), TU_DIMS(2, 16)));
    pbm_init(&pm, pb_tensor_f32("s", 1, TU_DIMS(2)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(2)));
    pbm_init(&pm, pb_tensor_f32("w", 1, TU_DIMS(16)));
    pbm_init(&pm, pb_tensor_f32("c", 1, TU_DIMS(16)));
    pbm_node(&pm, pb_node("y", "MatMul", TU_LIST("x", "W"), TU_LIST("y_o"), 0, NULL));
    pbm_node(&pm, pb_node("r1", "Reshape", TU_LIST("y_o", "shape1"), TU_LIST("r1_o"), 0, NULL));
    pbm_node(&pm, pb_node("in", "InstanceNormalization", TU_LIST("r1_o", "s", "b"), TU_LIST("in_o"), 0, NULL));
    pbm_node(&pm, pb_node("r2", "Reshape", TU_LIST("in_o", "shape2"), TU_LIST("r2_o"), 0, NULL));
    pbm_node(&pm, pb_node("gm", "Mul", TU_LIST("r2_o", "w"), TU_LIST("gm_o"), 0, NULL));
    pbm_node(&pm, pb_node("ga", "Add", TU_LIST("gm_o", "c"), TU_LIST("ga_o"), 0, NULL));
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("y_o"), TU_LIST("sm_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("ga_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("sm_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER,
                                                                .autocast = OC_DT_FLOAT16},
                                     &p),
                     OC_OK);
    int32_t ga = tu_node(a, "ga")->index;
    const char *gn[] = {"in", "r2", "gm", "ga", NULL};
    for (int i = 0; gn[i]; i++)
        assert_int_equal(p.anchor[tu_node(a, gn[i])->index], ga);
    assert_int_equal(p.anchor[tu_node(a, "r1")->index], -1);
    assert_int_equal(p.kind[ga], OC_RT_NORM);
    assert_true(p.bytes[ga] == 416);
    assert_true(p.extra_bytes[ga] == 192 && p.extra_kernels[ga] == 1);
    assert_int_equal(p.width[tu_node(a, "ga")->out[0]], 4);
    const struct oc_node *y = tu_node(a, "y"), *sm = tu_node(a, "sm");
    assert_true(p.extra_bytes[y->index] == 192 + 1536 && p.extra_kernels[y->index] == 2);
    assert_int_equal(p.extra_kernels[sm->index], 0);
    assert_int_equal(p.width[sm->out[0]], 4);
    assert_true(fabs(p.bytes_scale[sm->index] - 192.0 / 256) < 1e-15);
    oc_runtime_plan_free(&p);
}

/* torch.compile's regions on a residual block, 4 bytes an element, every
 * tensor [1,4,8,8] (256 elements, 1,024 bytes):
 *   r0 = Relu(x); c1 = Conv(r0); r1 = Relu(c1); c2 = Conv(r1);
 *   a = Add(c2, r0); r2 = Relu(a)
 * The convolutions are library kernels. r0 lies before both (stage 0), r1
 * between them (1), a and r2 after (2): a reads r0, yet fusing them would
 * make a region that waits on c2, which reads it. So a and r2 are one
 * kernel reading c2 and r0 and writing r2: 3,072 bytes; r0 and r1 are
 * kernels of their own. The convolutions' folded BatchNorms fuse into r1
 * and the region: no pass (eager PyTorch runs two). */
static void compile_regions(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 8, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("w1", 4, TU_DIMS(4, 4, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("b1", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("w2", 4, TU_DIMS(4, 4, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("b2", 1, TU_DIMS(4)));
    struct pbw pads[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    struct pbw pads2[] = {pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("r0", "Relu", TU_LIST("x"), TU_LIST("r0_o"), 0, NULL));
    pbm_node(&pm, pb_node("c1", "Conv", TU_LIST("r0_o", "w1", "b1"), TU_LIST("c1_o"), 1, pads));
    pbm_node(&pm, pb_node("r1", "Relu", TU_LIST("c1_o"), TU_LIST("r1_o"), 0, NULL));
    pbm_node(&pm, pb_node("c2", "Conv", TU_LIST("r1_o", "w2", "b2"), TU_LIST("c2_o"), 1, pads2));
    pbm_node(&pm, pb_node("a", "Add", TU_LIST("c2_o", "r0_o"), TU_LIST("a_o"), 0, NULL));
    pbm_node(&pm, pb_node("r2", "Relu", TU_LIST("a_o"), TU_LIST("r2_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("r2_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_COMPILE}, &p), OC_OK);
    int32_t r0 = tu_node(a, "r0")->index, r1 = tu_node(a, "r1")->index, c1 = tu_node(a, "c1")->index,
            c2 = tu_node(a, "c2")->index, ad = tu_node(a, "a")->index, r2 = tu_node(a, "r2")->index;
    assert_int_equal(p.anchor[r0], -1);
    assert_int_equal(p.anchor[r1], -1);
    assert_int_equal(p.anchor[c1], -1);
    assert_int_equal(p.anchor[c2], -1);
    assert_int_equal(p.anchor[ad], r2);
    assert_int_equal(p.anchor[r2], r2);
    assert_int_equal(p.kind[r2], OC_RT_FUSED);
    assert_true(p.bytes[r2] == 3072);
    assert_int_equal(p.extra_kernels[c1], 0);
    assert_int_equal(p.extra_kernels[c2], 0);
    oc_runtime_plan_free(&p);
    const struct oc_gpu *gpu = oc_gpu_find("a100-sxm4-80gb");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf eager, compiled;
    o.runtime = OC_RUNTIME_TORCH_EAGER;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &eager), OC_OK);
    o.runtime = OC_RUNTIME_TORCH_COMPILE;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &compiled), OC_OK);
    assert_int_equal(eager.n_kernels, 8); /* 6 nodes, 2 BatchNorm passes */
    assert_int_equal(compiled.n_kernels, 5);
    assert_int_equal(compiled.nodes[r2].kclass, OC_KC_FUSED);
    oc_perf_free(&eager);
    oc_perf_free(&compiled);
}

static void matmul_relu(struct pb_model *m) {
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(64, 64), NULL));
    pbm_init(&pm, pb_tensor_f32("W", 2, TU_DIMS(64, 64)));
    pbm_node(&pm, pb_node("y", "MatMul", TU_LIST("x", "W"), TU_LIST("y_o"), 0, NULL));
    pbm_node(&pm, pb_node("r", "Relu", TU_LIST("y_o"), TU_LIST("r_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("r_o", PB_FLOAT, -1, NULL, NULL));
    *m = pm;
}

/* The kernel classes' factors: a class's roofline time divided by its
 * factor, its launch unchanged; the built-in fits only for their GPU,
 * runtime, autocast and layout. */
static void class_factors(void **state) {
    (void)state;
    struct pb_model pm = {0};
    matmul_relu(&pm);
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    const struct oc_gpu *gpu = oc_gpu_find("a100-sxm4-80gb");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf base, fitted;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &base), OC_OK);
    o.eff_class[OC_KC_GEMM] = 2;
    o.eff_class[OC_KC_ELTWISE] = 0.5;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &fitted), OC_OK);
    int32_t yi = tu_node(a, "y")->index, ri = tu_node(a, "r")->index;
    assert_int_equal(base.nodes[yi].kclass, OC_KC_GEMM);
    assert_int_equal(base.nodes[ri].kclass, OC_KC_ELTWISE);
    assert_true(fabs(fitted.nodes[yi].time - ((base.nodes[yi].time - 5e-6) / 2 + 5e-6)) <= 1e-18);
    assert_true(fabs(fitted.nodes[ri].time - ((base.nodes[ri].time - 5e-6) * 2 + 5e-6)) <= 1e-18);
    assert_true(fabs(fitted.class_time[OC_KC_GEMM] - (base.nodes[yi].time - 5e-6) / 2) <= 1e-18);
    assert_null(fitted.fit);
    oc_perf_free(&base);
    oc_perf_free(&fitted);
    /* the built-in fits: for their GPU, runtime, autocast and layout only */
    struct oc_perf_opts f;
    oc_perf_defaults(&f);
    f.runtime = OC_RUNTIME_TORCH_EAGER;
    f.autocast = OC_DT_FLOAT16;
    const struct oc_builtin_fit *nchw = oc_builtin_fit_for(oc_gpu_find("rtx-4090"), &f);
    assert_non_null(nchw);
    assert_false(nchw->channels_last);
    assert_non_null(strstr(nchw->source, "RTX 4090"));
    f.channels_last = true;
    const struct oc_builtin_fit *nhwc = oc_builtin_fit_for(oc_gpu_find("rtx-4090"), &f);
    assert_non_null(nhwc);
    assert_true(nhwc->channels_last && nhwc != nchw);
    assert_null(oc_builtin_fit_for(oc_gpu_find("a100-sxm4-80gb"), &f));
    f.autocast = 0;
    assert_null(oc_builtin_fit_for(oc_gpu_find("rtx-4090"), &f));
    f.autocast = OC_DT_FLOAT16;
    f.runtime = OC_RUNTIME_NODES;
    assert_null(oc_builtin_fit_for(oc_gpu_find("rtx-4090"), &f));
    /* the estimate takes it, and a factor of the options' own keeps it out */
    f.runtime = OC_RUNTIME_TORCH_EAGER;
    f.channels_last = false;
    struct oc_perf took, kept;
    assert_int_equal(oc_perf_estimate(a, oc_gpu_find("rtx-4090"), &f, &took), OC_OK);
    assert_true(took.fit == nchw);
    /* an additive fit (memory > 0): the GEMM's compute term over gemm's
       factor plus its memory term over the memory factor; the Relu, no
       contraction, its longer term over eltwise's (autocast's casts beside
       them, t_extra, apart) */
    assert_true(nchw->memory > 0);
    struct oc_perf plain;
    f.builtin_fit = false;
    assert_int_equal(oc_perf_estimate(a, oc_gpu_find("rtx-4090"), &f, &plain), OC_OK);
    f.builtin_fit = true;
    const struct oc_node_perf *py = &plain.nodes[yi], *pr = &plain.nodes[ri];
    double gemm = py->t_compute / nchw->factor[OC_KC_GEMM] + py->t_memory / nchw->memory;
    assert_true(fabs(took.nodes[yi].time - took.nodes[yi].t_extra - (gemm + 5e-6)) <= 1e-15);
    assert_true(fabs(took.class_compute[OC_KC_GEMM] - py->t_compute / nchw->factor[OC_KC_GEMM]) <= 1e-15);
    assert_true(fabs(took.class_memory[OC_KC_GEMM] - py->t_memory / nchw->memory) <= 1e-15);
    double relu = (pr->t_compute > pr->t_memory ? pr->t_compute : pr->t_memory) / nchw->factor[OC_KC_ELTWISE];
    assert_true(fabs(took.nodes[ri].time - took.nodes[ri].t_extra - (relu + 5e-6)) <= 1e-15);
    assert_true(took.class_memory[OC_KC_ELTWISE] == 0);
    oc_perf_free(&plain);
    f.eff_class[OC_KC_GEMM] = 1;
    assert_int_equal(oc_perf_estimate(a, oc_gpu_find("rtx-4090"), &f, &kept), OC_OK);
    assert_null(kept.fit);
    f.eff_class[OC_KC_GEMM] = 0;
    f.builtin_fit = false;
    oc_perf_free(&kept);
    assert_int_equal(oc_perf_estimate(a, oc_gpu_find("rtx-4090"), &f, &kept), OC_OK);
    assert_null(kept.fit);
    oc_perf_free(&took);
    oc_perf_free(&kept);
    enum oc_kclass c;
    assert_true(oc_kclass_parse("conv_depthwise", &c) && c == OC_KC_CONV_DEPTHWISE);
    assert_false(oc_kclass_parse("conv", &c));
    assert_string_equal(oc_kclass_name(OC_KC_PASS), "pass");
}

/* Views eager PyTorch takes without a kernel where the reader takes
 * strides (a rotary embedding's halves, a chunk): x [1,2,4,8]
 *   ev = x[..., 0::2], od = x[..., 1::2]    Slice, steps 2: views
 *   st = cat(unsqueeze(-od), unsqueeze(ev))  Neg and Concat read strided;
 *                                            Unsqueeze passes the view on
 *   a, b = split(x, 4, -1); m = a * b        Split: a view
 *   sm = x[..., 0:4] @ W                     a MatMul needs it contiguous:
 *                                            the Slice is a copy
 *   fl = -(x[..., ::-1])                     a negative step: torch.flip, a
 *                                            copy of its own
 *   me = x * x.sum(-1, keepdim).expand_as(x) Expand: a view (stride 0)
 * With one kernel per node the views are kernels of their own: eager runs
 * 4 fewer (ev, od, the Split, the Expand; none for the Unsqueezes either
 * way). */
static void strided_views(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, 4, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("W", 2, TU_DIMS(4, 4)));
    pbm_init(&pm, pb_tensor_i64("z", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("one", 1, TU_DIMS(1), TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_i64("four", 1, TU_DIMS(1), TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_i64("end", 1, TU_DIMS(1), TU_DIMS(8)));
    pbm_init(&pm, pb_tensor_i64("last", 1, TU_DIMS(1), TU_DIMS(3)));
    pbm_init(&pm, pb_tensor_i64("two", 1, TU_DIMS(1), TU_DIMS(2)));
    pbm_init(&pm, pb_tensor_i64("m1", 1, TU_DIMS(1), TU_DIMS(-1)));
    pbm_init(&pm, pb_tensor_i64("m9", 1, TU_DIMS(1), TU_DIMS(-9)));
    pbm_init(&pm, pb_tensor_i64("halves", 1, TU_DIMS(2), TU_DIMS(4, 4)));
    pbm_init(&pm, pb_tensor_i64("xs", 1, TU_DIMS(4), TU_DIMS(1, 2, 4, 8)));
    pbm_node(&pm, pb_node("ev", "Slice", TU_LIST("x", "z", "end", "last", "two"), TU_LIST("ev_o"), 0, NULL));
    pbm_node(&pm, pb_node("od", "Slice", TU_LIST("x", "one", "end", "last", "two"), TU_LIST("od_o"), 0, NULL));
    pbm_node(&pm, pb_node("neg", "Neg", TU_LIST("od_o"), TU_LIST("neg_o"), 0, NULL));
    pbm_node(&pm, pb_node("u1", "Unsqueeze", TU_LIST("neg_o", "m1"), TU_LIST("u1_o"), 0, NULL));
    pbm_node(&pm, pb_node("u2", "Unsqueeze", TU_LIST("ev_o", "m1"), TU_LIST("u2_o"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", -1)}, sx[] = {pb_attr_int("axis", 3)};
    pbm_node(&pm, pb_node("st", "Concat", TU_LIST("u1_o", "u2_o"), TU_LIST("st_o"), 1, ax));
    pbm_node(&pm, pb_node("sp", "Split", TU_LIST("x", "halves"), TU_LIST("a", "b"), 1, sx));
    pbm_node(&pm, pb_node("m", "Mul", TU_LIST("a", "b"), TU_LIST("m_o"), 0, NULL));
    pbm_node(&pm, pb_node("sl", "Slice", TU_LIST("x", "z", "four", "last"), TU_LIST("sl_o"), 0, NULL));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("sl_o", "W"), TU_LIST("mm_o"), 0, NULL));
    pbm_node(&pm, pb_node("fl", "Slice", TU_LIST("x", "m1", "m9", "last", "m1"), TU_LIST("fl_o"), 0, NULL));
    pbm_node(&pm, pb_node("nf", "Neg", TU_LIST("fl_o"), TU_LIST("nf_o"), 0, NULL));
    struct pbw keep[] = {pb_attr_int("keepdims", 1)};
    pbm_node(&pm, pb_node("rs", "ReduceSum", TU_LIST("x", "m1"), TU_LIST("rs_o"), 1, keep));
    pbm_node(&pm, pb_node("ex", "Expand", TU_LIST("rs_o", "xs"), TU_LIST("ex_o"), 0, NULL));
    pbm_node(&pm, pb_node("me", "Mul", TU_LIST("x", "ex_o"), TU_LIST("me_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("st_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("me_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("m_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("mm_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("nf_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    const char *views[] = {"ev", "od", "sp", "ex"},
               *kernels[] = {"sl", "fl", "u1", "u2", "neg", "st", "m", "mm", "nf", "rs", "me"};
    for (size_t k = 0; k < 4; k++) {
        int32_t i = idx(a, views[k]);
        assert_int_equal(p.anchor[i], i);
        assert_int_equal(p.kind[i], OC_RT_VIEW);
        assert_true(p.bytes[i] == 0 && p.flops[i] == 0);
    }
    for (size_t k = 0; k < 11; k++)
        assert_int_equal(p.anchor[idx(a, kernels[k])], -1);
    oc_runtime_plan_free(&p);
    const struct oc_gpu *gpu = oc_gpu_find("a100-sxm4-80gb");
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf nodes, eager;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &nodes), OC_OK);
    o.runtime = OC_RUNTIME_TORCH_EAGER;
    assert_int_equal(oc_perf_estimate(a, gpu, &o, &eager), OC_OK);
    assert_int_equal(nodes.n_kernels - eager.n_kernels, 4);
    oc_perf_free(&nodes);
    oc_perf_free(&eager);
}

/* addcmul(bias, w, t) as exported: Mul(t, w), Mul by its value 1, Add of
 * the bias: one torch op, one kernel at the Add reading t, w, the value and
 * the bias once and writing [2,8]: 64 + 32 + 4 + 32 + 64 = 196 bytes. The
 * same chain with a value of 2 (t * w * 2 + bias written in the source)
 * and a layer scale and shift alone (t * w + bias) are several torch ops:
 * each node a kernel. */
static void addcmul_chain(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("t", PB_FLOAT, 2, TU_DIMS(2, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 1, TU_DIMS(8)));
    pbm_init(&pm, pb_tensor_f32("bias", 1, TU_DIMS(8)));
    pbm_init(&pm, pb_tensor_f32v("two", 0, NULL, TU_FLOATS(2.0f), false));
    struct pbw one_t = pb_tensor_f32v(NULL, 0, NULL, TU_FLOATS(1.0f), false);
    struct pbw one[] = {pb_attr_tensor("value", &one_t)};
    pbm_node(&pm, pb_node("value", "Constant", NULL, TU_LIST("one"), 1, one));
    pbm_node(&pm, pb_node("m1", "Mul", TU_LIST("t", "w"), TU_LIST("m1_o"), 0, NULL));
    pbm_node(&pm, pb_node("m2", "Mul", TU_LIST("m1_o", "one"), TU_LIST("m2_o"), 0, NULL));
    pbm_node(&pm, pb_node("a1", "Add", TU_LIST("m2_o", "bias"), TU_LIST("a1_o"), 0, NULL));
    pbm_node(&pm, pb_node("n1", "Mul", TU_LIST("t", "w"), TU_LIST("n1_o"), 0, NULL));
    pbm_node(&pm, pb_node("n2", "Mul", TU_LIST("n1_o", "two"), TU_LIST("n2_o"), 0, NULL));
    pbm_node(&pm, pb_node("n3", "Add", TU_LIST("n2_o", "bias"), TU_LIST("n3_o"), 0, NULL));
    pbm_node(&pm, pb_node("l1", "Mul", TU_LIST("t", "w"), TU_LIST("l1_o"), 0, NULL));
    pbm_node(&pm, pb_node("l2", "Add", TU_LIST("l1_o", "bias"), TU_LIST("l2_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("a1_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("n3_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("l2_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    int32_t a1 = idx(a, "a1");
    assert_int_equal(p.anchor[idx(a, "m1")], a1);
    assert_int_equal(p.anchor[idx(a, "m2")], a1);
    assert_int_equal(p.anchor[a1], a1);
    assert_int_equal(p.kind[a1], OC_RT_POINTWISE);
    assert_true(p.bytes[a1] == 196);
    const char *own[] = {"n1", "n2", "n3", "l1", "l2"};
    for (size_t k = 0; k < 5; k++)
        assert_int_equal(p.anchor[idx(a, own[k])], -1);
    oc_runtime_plan_free(&p);
}

/* Tokens and images (DaViT's, CoaT's and PVT's convolutional position
 * encoding): tok [1,16,4] as (B, N, C); tok.transpose(1, 2).view(1,4,4,4)
 * is an image stored channels-last, a view; the depthwise Conv and the
 * residual Add take it as it lies (a Shape of it reads no data); flatten(2)
 * and transpose(1, 2) of the channels-last sum are contiguous tokens again,
 * a view. Read by a Reshape that needs the image order (flat), the same
 * transpose (t3) is a copy. */
static void token_views(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("tok", PB_FLOAT, 3, TU_DIMS(1, 16, 4), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(4, 1, 3, 3)));
    pbm_init(&pm, pb_tensor_f32("g", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_f32("b", 1, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_i64("img", 1, TU_DIMS(4), TU_DIMS(1, 4, 4, 4)));
    pbm_init(&pm, pb_tensor_i64("tks", 1, TU_DIMS(3), TU_DIMS(1, 4, 16)));
    pbm_init(&pm, pb_tensor_i64("flat", 1, TU_DIMS(2), TU_DIMS(1, 64)));
    struct pbw p1[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))}, p2[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))},
               p3[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))};
    struct pbw dw[] = {pb_attr_int("group", 4), pb_attr_ints("pads", 4, TU_DIMS(1, 1, 1, 1))};
    pbm_node(&pm, pb_node("t1", "Transpose", TU_LIST("tok"), TU_LIST("t1_o"), 1, p1));
    pbm_node(&pm, pb_node("r1", "Reshape", TU_LIST("t1_o", "img"), TU_LIST("r1_o"), 0, NULL));
    pbm_node(&pm, pb_node("dw", "Conv", TU_LIST("r1_o", "w"), TU_LIST("dw_o"), 2, dw));
    pbm_node(&pm, pb_node("res", "Add", TU_LIST("dw_o", "r1_o"), TU_LIST("res_o"), 0, NULL));
    pbm_node(&pm, pb_node("shp", "Shape", TU_LIST("res_o"), TU_LIST("shp_o"), 0, NULL));
    pbm_node(&pm, pb_node("r2", "Reshape", TU_LIST("res_o", "tks"), TU_LIST("r2_o"), 0, NULL));
    pbm_node(&pm, pb_node("t2", "Transpose", TU_LIST("r2_o"), TU_LIST("t2_o"), 1, p2));
    pbm_node(&pm, pb_node("ln", "LayerNormalization", TU_LIST("t2_o", "g", "b"), TU_LIST("ln_o"), 0, NULL));
    pbm_node(&pm, pb_node("t3", "Transpose", TU_LIST("tok"), TU_LIST("t3_o"), 1, p3));
    pbm_node(&pm, pb_node("r3", "Reshape", TU_LIST("t3_o", "img"), TU_LIST("r3_o"), 0, NULL));
    pbm_node(&pm, pb_node("fl", "Reshape", TU_LIST("r3_o", "flat"), TU_LIST("fl_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("ln_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("shp_o", PB_INT64, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("fl_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    int32_t t1 = idx(a, "t1"), t2 = idx(a, "t2");
    assert_int_equal(p.anchor[t1], t1);
    assert_int_equal(p.kind[t1], OC_RT_VIEW);
    assert_int_equal(p.anchor[t2], t2);
    assert_int_equal(p.kind[t2], OC_RT_VIEW);
    assert_int_equal(p.anchor[idx(a, "t3")], -1);
    oc_runtime_plan_free(&p);
}

/* Index arithmetic over shapes (views/perf/runtime.c): x [2,3,128,128]
 * (98,304 elements, past what the analysis folds), s = Shape(x);
 *   ex = Expand(cls [1,3,1,1], s); y = x + ex     cls.expand(x.shape): a view
 *   n = ReduceProd(s) (folded: 98,304); is = Concat(n, [4]) = [98304, 4];
 *   ix = Expand(i0 [1,4], is)                     indices an export computes
 *   sc = ScatterND(x, ix, u = Reshape(x, [98304])) a slice assignment
 * Eager runs neither Expand; the ScatterND writes u in place: 2 x 98,304 x
 * 4 bytes of the 3 x 393,216 (x, u, the output) + 98,304 x 4 x 8 (the
 * indices) = 4,325,376 bytes the node reads and writes, a scale of
 * 786,432 / 4,325,376 = 2/11.
 * An Expand of a constant by a constant shape (kx) keeps its kernel, and
 * so does z = ConstantOfShape(s), zeros of x's shape (torch.zeros: a fill
 * kernel in eager PyTorch too). */
static void index_math(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 3, 128, 128), NULL));
    pbm_init(&pm, pb_tensor_f32("cls", 4, TU_DIMS(1, 3, 1, 1)));
    pbm_init(&pm, pb_tensor_i64("i0", 2, TU_DIMS(1, 4), TU_DIMS(0, 0, 0, 0)));
    pbm_init(&pm, pb_tensor_i64("four", 1, TU_DIMS(1), TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_i64("len", 1, TU_DIMS(1), TU_DIMS(98304)));
    pbm_init(&pm, pb_tensor_i64("big", 1, TU_DIMS(4), TU_DIMS(2, 3, 128, 128)));
    pbm_node(&pm, pb_node("s", "Shape", TU_LIST("x"), TU_LIST("s_o"), 0, NULL));
    pbm_node(&pm, pb_node("ex", "Expand", TU_LIST("cls", "s_o"), TU_LIST("ex_o"), 0, NULL));
    pbm_node(&pm, pb_node("y", "Add", TU_LIST("x", "ex_o"), TU_LIST("y_o"), 0, NULL));
    struct pbw keep[] = {pb_attr_int("keepdims", 1)}, ax[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("n", "ReduceProd", TU_LIST("s_o"), TU_LIST("n_o"), 1, keep));
    pbm_node(&pm, pb_node("is", "Concat", TU_LIST("n_o", "four"), TU_LIST("is_o"), 1, ax));
    pbm_node(&pm, pb_node("ix", "Expand", TU_LIST("i0", "is_o"), TU_LIST("ix_o"), 0, NULL));
    pbm_node(&pm, pb_node("u", "Reshape", TU_LIST("x", "len"), TU_LIST("u_o"), 0, NULL));
    pbm_node(&pm, pb_node("sc", "ScatterND", TU_LIST("x", "ix_o", "u_o"), TU_LIST("sc_o"), 0, NULL));
    pbm_node(&pm, pb_node("kx", "Expand", TU_LIST("cls", "big"), TU_LIST("kx_o"), 0, NULL));
    pbm_node(&pm, pb_node("z", "ConstantOfShape", TU_LIST("s_o"), TU_LIST("z_o"), 0, NULL));
    pbm_node(&pm, pb_node("yz", "Add", TU_LIST("y_o", "z_o"), TU_LIST("yz_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("yz_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("sc_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("kx_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    const char *views[] = {"ex", "ix"};
    for (size_t k = 0; k < 2; k++) {
        int32_t i = idx(a, views[k]);
        assert_int_equal(p.anchor[i], i);
        assert_int_equal(p.kind[i], OC_RT_VIEW);
    }
    int32_t sc = idx(a, "sc");
    assert_int_equal(p.anchor[sc], -1);
    assert_true(fabs(p.bytes_scale[sc] - 2.0 / 11) < 1e-12);
    assert_int_equal(p.anchor[idx(a, "kx")], -1);
    assert_int_equal(p.anchor[idx(a, "z")], -1);
    assert_int_equal(p.anchor[idx(a, "y")], -1);
    oc_runtime_plan_free(&p);
    /* one kernel per node: the node's bytes as the file has them */
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_NODES}, &p), OC_OK);
    assert_true(p.bytes_scale[sc] == 1);
    oc_runtime_plan_free(&p);
}

/* Channels-first attention (MaxViT's, CoAtNet's Attention2d), q, k, v
 * [1,2,8,16] (heads 2, head size 8, 16 positions), and a SiLU whose output
 * a squeeze-excite reads twice:
 *   qs = q * s; qt = qs^T (last two axes); a = qt @ k; sm = Softmax(a);
 *   pt = sm^T; o = v @ pt                   one attention kernel: the
 *                                           scale written before the
 *                                           transpose, the probabilities
 *                                           transposed for V @ P^T
 *   sg = Sigmoid(x); si = x * sg            SiLU: one kernel, though si is
 *   mu = ReduceMean(si); gc = Conv(mu);     read by the squeeze-excite's
 *   y = si * gc                             mean and its gate, each a kernel
 *                                           of its own */
static void transposed_attention(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("q", PB_FLOAT, 4, TU_DIMS(1, 2, 8, 16), NULL));
    pbm_input(&pm, pb_value_info("k", PB_FLOAT, 4, TU_DIMS(1, 2, 8, 16), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 4, TU_DIMS(1, 2, 8, 16), NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 4, 8, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("s", 0, NULL));
    pbm_init(&pm, pb_tensor_i64("hw", 1, TU_DIMS(2), TU_DIMS(2, 3)));
    pbm_init(&pm, pb_tensor_f32("wg", 4, TU_DIMS(4, 4, 1, 1)));
    struct pbw t1[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 1, 3, 2))}, t2[] = {pb_attr_ints("perm", 4, TU_DIMS(0, 1, 3, 2))};
    struct pbw ax[] = {pb_attr_int("axis", -1)}, keep[] = {pb_attr_int("keepdims", 1)};
    pbm_node(&pm, pb_node("qs", "Mul", TU_LIST("q", "s"), TU_LIST("qs_o"), 0, NULL));
    pbm_node(&pm, pb_node("qt", "Transpose", TU_LIST("qs_o"), TU_LIST("qt_o"), 1, t1));
    pbm_node(&pm, pb_node("a", "MatMul", TU_LIST("qt_o", "k"), TU_LIST("a_o"), 0, NULL));
    pbm_node(&pm, pb_node("sm", "Softmax", TU_LIST("a_o"), TU_LIST("sm_o"), 1, ax));
    pbm_node(&pm, pb_node("pt", "Transpose", TU_LIST("sm_o"), TU_LIST("pt_o"), 1, t2));
    pbm_node(&pm, pb_node("o", "MatMul", TU_LIST("v", "pt_o"), TU_LIST("o_o"), 0, NULL));
    pbm_node(&pm, pb_node("sg", "Sigmoid", TU_LIST("x"), TU_LIST("sg_o"), 0, NULL));
    pbm_node(&pm, pb_node("si", "Mul", TU_LIST("x", "sg_o"), TU_LIST("si_o"), 0, NULL));
    pbm_node(&pm, pb_node("mu", "ReduceMean", TU_LIST("si_o", "hw"), TU_LIST("mu_o"), 1, keep));
    pbm_node(&pm, pb_node("gc", "Conv", TU_LIST("mu_o", "wg"), TU_LIST("gc_o"), 0, NULL));
    pbm_node(&pm, pb_node("y", "Mul", TU_LIST("si_o", "gc_o"), TU_LIST("y_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("o_o", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("y_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    struct oc_analysis *a = an;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, &(struct oc_perf_opts){.runtime = OC_RUNTIME_TORCH_EAGER}, &p), OC_OK);
    int32_t o = idx(a, "o");
    const char *members[] = {"qs", "qt", "a", "sm", "pt", "o"};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(p.anchor[idx(a, members[i])], o);
    assert_int_equal(p.kind[o], OC_RT_ATTENTION);
    int32_t si = idx(a, "si");
    assert_int_equal(p.anchor[idx(a, "sg")], si);
    assert_int_equal(p.anchor[si], si);
    assert_int_equal(p.kind[si], OC_RT_POINTWISE);
    assert_int_equal(p.anchor[idx(a, "mu")], -1);
    assert_int_equal(p.anchor[idx(a, "y")], -1);
    oc_runtime_plan_free(&p);
}

static void runtime_names(void **state) {
    (void)state;
    enum oc_runtime r;
    assert_true(oc_runtime_parse("torch-eager", &r) && r == OC_RUNTIME_TORCH_EAGER);
    assert_true(oc_runtime_parse("nodes", &r) && r == OC_RUNTIME_NODES);
    assert_true(oc_runtime_parse("torch-compile", &r) && r == OC_RUNTIME_TORCH_COMPILE);
    assert_false(oc_runtime_parse("torch-jit", &r));
    assert_false(oc_runtime_parse(NULL, &r));
    assert_string_equal(oc_runtime_name(OC_RUNTIME_TORCH_EAGER), "torch-eager");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(torch_eager_groups, tu_teardown),
        cmocka_unit_test_teardown(attention_masked, tu_teardown),
        cmocka_unit_test_teardown(groups_need_single_use, tu_teardown),
        cmocka_unit_test_teardown(attention_views, tu_teardown),
        cmocka_unit_test_teardown(chains_and_autocast, tu_teardown),
        cmocka_unit_test_teardown(permute_views, tu_teardown),
        cmocka_unit_test_teardown(memory_format_views, tu_teardown),
        cmocka_unit_test_teardown(model_channels_last, tu_teardown),
        cmocka_unit_test_teardown(nchw_transforms, tu_teardown),
        cmocka_unit_test_teardown(groupnorm_and_softmax, tu_teardown),
        cmocka_unit_test_teardown(compile_regions, tu_teardown),
        cmocka_unit_test_teardown(class_factors, tu_teardown),
        cmocka_unit_test_teardown(strided_views, tu_teardown),
        cmocka_unit_test_teardown(addcmul_chain, tu_teardown),
        cmocka_unit_test_teardown(token_views, tu_teardown),
        cmocka_unit_test_teardown(index_math, tu_teardown),
        cmocka_unit_test_teardown(transposed_attention, tu_teardown),
        cmocka_unit_test(runtime_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
