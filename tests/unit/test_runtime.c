/*
 * test_runtime.c — the kernels a runtime runs for an exported graph
 * (views/perf/runtime.c, --runtime). One graph holds each pattern eager
 * PyTorch runs differently from the file's nodes, fp32 (4 bytes an element):
 *   attention  qk = MatMul(q [1,2,4,8], kt [1,2,8,4]); Mul by a scalar;
 *              Softmax; att = MatMul(., v [1,2,4,8])
 *   GELU       gel = Mul(Mul(y, Add(Erf(Div(y, r2)), one)), half) after
 *              y = Add(MatMul(x [4,16], W [16,8]), b [8]): the bias Add
 *              starts the chain (training.h's oc_pointwise_chains)
 *   a Linear   lin = Add(MatMul(x, W), b) read by nothing pointwise
 *   a Conv     with a bias and no BatchNormalization after it [1,4,8,8]
 * The groups' bytes are worked out here from the shapes; their FLOPs are
 * the members' (the analysis's cost rules, checked elsewhere); the times
 * from the roofline with the default factors, written out.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "perf/perf.h"

#include <math.h>

static struct pbw graph(void) {
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
    return pbm_finish(&pm, 17);
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
    struct pbw bytes = graph();
    struct oc_model *m = NULL;
    struct oc_analysis *a = NULL;
    struct oc_diag d = {0};
    assert_int_equal(tu_analyze(&bytes, NULL, &m, &a, &d), OC_OK);
    const struct oc_graph *g = a->graph;
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(g, OC_RUNTIME_TORCH_EAGER, &p), OC_OK);
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
    /* GELU with its bias: mm's output (32), b (8) and three scalars read,
       gel (32) written: (32 + 8 + 3 + 32) x 4 = 300; the MatMul before it
       its own kernel */
    assert_int_equal(p.anchor[idx(a, "mm")], -1);
    const char *gelu[] = {"y", "d", "e", "a", "m", "gel", NULL};
    for (int i = 0; gelu[i]; i++)
        assert_int_equal(p.anchor[idx(a, gelu[i])], idx(a, "gel"));
    assert_int_equal(p.kind[idx(a, "gel")], OC_RT_POINTWISE);
    assert_true(p.bytes[idx(a, "gel")] == 300);
    assert_true(p.flops[idx(a, "gel")] == flops_of(a, gelu));
    assert_false(p.contraction[idx(a, "gel")]);
    /* the Conv: its own kernel, and a BatchNorm pass over its output
       (1 x 4 x 8 x 8 = 256 elements) read and written: 2,048 bytes */
    assert_int_equal(p.anchor[idx(a, "conv")], -1);
    assert_true(p.extra_bytes[idx(a, "conv")] == 2048);
    assert_true(p.extra_bytes[idx(a, "att")] == 0);
    oc_runtime_plan_free(&p);
    /* one kernel per node: no group */
    assert_int_equal(oc_runtime_plan(g, OC_RUNTIME_NODES, &p), OC_OK);
    for (int32_t i = 0; i < g->n_nodes; i++) {
        assert_int_equal(p.anchor[i], -1);
        assert_true(p.extra_bytes[i] == 0);
    }
    oc_runtime_plan_free(&p);

    /* the prediction: 14 kernels as the file has them; eagerly 5 (att, mm,
       gel, conv, lin) and a BatchNorm pass, the members taking no time.
       A100 SXM4 80GB (2,039 GB/s) at the default memory factor 0.8: the
       GELU kernel, memory-bound at 300 bytes, takes 300 / (2.039e12 x 0.8)
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
    assert_true(fabs(ge->t_memory - 300 / bw) <= 1e-12 * (300 / bw));
    assert_true(fabs(ge->time - (fmax(ge->t_compute, ge->t_memory) + 5e-6)) <= 1e-15);
    const struct oc_node_perf *cv = &eager.nodes[idx(a, "conv")];
    assert_true(fabs(cv->t_extra - (2048 / bw + 5e-6)) <= 1e-15);
    assert_true(fabs(cv->time - nodes.nodes[idx(a, "conv")].time - cv->t_extra) <= 1e-15);
    oc_perf_free(&nodes);
    oc_perf_free(&eager);
    tu_free(m, a, &bytes);
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
    struct pbw bytes = pbm_finish(&pm, 17);
    struct oc_model *m = NULL;
    struct oc_analysis *a = NULL;
    struct oc_diag d = {0};
    assert_int_equal(tu_analyze(&bytes, NULL, &m, &a, &d), OC_OK);
    struct oc_runtime_plan p;
    assert_int_equal(oc_runtime_plan(a->graph, OC_RUNTIME_TORCH_EAGER, &p), OC_OK);
    for (int32_t i = 0; i < a->graph->n_nodes; i++)
        assert_int_equal(p.anchor[i], -1);
    oc_runtime_plan_free(&p);
    tu_free(m, a, &bytes);
}

static void runtime_names(void **state) {
    (void)state;
    enum oc_runtime r;
    assert_true(oc_runtime_parse("torch-eager", &r) && r == OC_RUNTIME_TORCH_EAGER);
    assert_true(oc_runtime_parse("nodes", &r) && r == OC_RUNTIME_NODES);
    assert_false(oc_runtime_parse("torch-compile", &r));
    assert_false(oc_runtime_parse(NULL, &r));
    assert_string_equal(oc_runtime_name(OC_RUNTIME_TORCH_EAGER), "torch-eager");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(torch_eager_groups),
        cmocka_unit_test(groups_need_single_use),
        cmocka_unit_test(runtime_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
