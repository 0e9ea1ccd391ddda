/*
 * test_ops.c — shape rules and cost formulas on small graphs built byte by
 * byte (pbw.h). Every expected number is worked out by hand in the comment
 * next to it from the ONNX spec and the conventions in docs/COSTS.md.
 */
#include "testutil.h"

#include "modules.h"
#include "training.h"

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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 11, NULL);
    TU_SHAPE(tu_out(an, "conv", 0), 1, 32, 112, 112);
    /* 32*112*112 = 401,408 outputs x 27 = 10,838,016 MACs, no bias: FLOPs = 2x */
    assert_int_equal(tu_node(an, "conv")->cost.macs, 10838016);
    assert_int_equal(tu_node(an, "conv")->cost.flops, 21676032);
}

/* ConvTranspose's output_shape as some exporters write it, with N and C in
 * front of the spatial sizes (ONNX Runtime refuses the form; the spec's is
 * the spatial sizes alone, checked against ONNX Runtime in
 * oracle.attr_forms): the last two entries are H and W. */
static void convtranspose_output_shape_with_n_c(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, 5, 5), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(2, 3, 3, 3)));
    struct pbw at[] = {pb_attr_ints("strides", 2, TU_DIMS(2, 2)),
                       pb_attr_ints("output_shape", 4, TU_DIMS(1, 3, 10, 11))};
    pbm_node(&pm, pb_node("ct", "ConvTranspose", TU_LIST("x", "w"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    /* N 1, C_out = W's dim 1 x group = 3, spatial from output_shape's last two */
    TU_SHAPE(tu_out(an, "ct", 0), 1, 3, 10, 11);
    /* MACs = X's elements x C_out / group x kernel: 1*2*5*5 = 50 inputs x 3 x 9 = 1,350 */
    assert_int_equal(tu_node(an, "ct")->cost.macs, 1350);
}

/* Sub-byte prices (--dtype int4): each tensor's bits rounded up to whole
 * bytes. x [1,5] (5 x 4 bits = 20 bits: 3 bytes), w [5,3] (15 x 4 = 60
 * bits: 8 bytes), y [1,3] (12 bits: 2 bytes). */
static void sub_byte_prices(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 5), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(5, 3)));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct oc_analyze_opts o = {.price_bits = 4};
    tu_analyze_ok(&pm, 13, &o);
    assert_int_equal(an->totals.input_bytes, 3);
    assert_int_equal(an->totals.params_bytes, 8);
    const struct oc_node *n = tu_node(an, "mm");
    assert_int_equal(n->cost.bytes_read, 3 + 8);
    assert_int_equal(n->cost.bytes_written, 2);
}

/* A graph output made early is held to the end (ONNX Runtime hands it back
 * after the run), though nothing reads it. x [1,100] f32 = 400 B;
 * e = Relu(x) (a graph output); f = Neg(x); g = Neg(f); h = Neg(g) (a
 * graph output). e: x + e = 800; f: x + e + f = 1,200 (x dead after); g:
 * e + f + g = 1,200; h: e + g + h = 1,200. Peak 1,200, first at f (freed
 * after its step, e would leave 800). */
static void peak_holds_graph_outputs(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 100), NULL));
    pbm_node(&pm, pb_node("e", "Relu", TU_LIST("x"), TU_LIST("e_out"), 0, NULL));
    pbm_node(&pm, pb_node("f", "Neg", TU_LIST("x"), TU_LIST("f_out"), 0, NULL));
    pbm_node(&pm, pb_node("g", "Neg", TU_LIST("f_out"), TU_LIST("g_out"), 0, NULL));
    pbm_node(&pm, pb_node("h", "Neg", TU_LIST("g_out"), TU_LIST("h_out"), 0, NULL));
    pbm_output(&pm, pb_value_info("e_out", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("h_out", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    assert_int_equal(an->totals.peak_activation_bytes, 1200);
    assert_int_equal(an->totals.peak_node, tu_node(an, "f")->index);
}

/* --batch binds axis 0 of every graph input that leaves it free and has
 * no dim named like a batch: a model with x [n, 4] and a second input
 * y [m, 4] under --batch 3 has both at 3 (n, named like a batch, and m,
 * axis 0 of an input without such a name, bound by --batch). */
static void batch_binds_every_input(void **state) {
    (void)state;
    struct pb_model pm = {0};
    const char *sx[] = {"n", NULL}, *sy[] = {"m", NULL};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, 4), sx));
    pbm_input(&pm, pb_value_info("y", PB_FLOAT, 2, TU_DIMS(-1, 4), sy));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(4, 4)));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("x", "w"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("r", "Relu", TU_LIST("y"), TU_LIST("b"), 0, NULL));
    pbm_output(&pm, pb_value_info("a", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("b", PB_FLOAT, -1, NULL, NULL));
    struct oc_analyze_opts o = {.batch = 3};
    tu_analyze_ok(&pm, 13, &o);
    TU_SHAPE(tu_out(an, "mm", 0), 3, 4);
    TU_SHAPE(tu_out(an, "r", 0), 3, 4);
    /* MatMul 3 x 4 x 4 = 48 MACs; Relu 12 elements: 12 FLOPs */
    assert_int_equal(tu_node(an, "mm")->cost.macs, 48);
    assert_int_equal(tu_node(an, "r")->cost.flops, 12);
}

/* --batch binds the dim named like a batch, wherever it stands: a language
 * model's src [sequence, batch] under --batch 20 is [1, 20] (sequence left
 * unbound, 1, with its warning), not [20, 1]; an input with no such name
 * has its axis 0 bound, and a named axis 0 is said to be a guess. */
static void batch_by_name(void **state) {
    (void)state;
    struct pb_model pm = {0};
    const char *ss[] = {"sequence", "batch"}, *su[] = {"unk__6", NULL};
    pbm_input(&pm, pb_value_info("src", PB_FLOAT, 2, TU_DIMS(-1, -1), ss));
    pbm_input(&pm, pb_value_info("aux", PB_FLOAT, 2, TU_DIMS(-1, 3), su));
    pbm_node(&pm, pb_node("r", "Relu", TU_LIST("src"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("r2", "Relu", TU_LIST("aux"), TU_LIST("y2"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("y2", PB_FLOAT, -1, NULL, NULL));
    struct oc_analyze_opts o = {.batch = 20};
    tu_analyze_ok(&pm, 13, &o);
    TU_SHAPE(tu_out(an, "r", 0), 1, 20);
    TU_SHAPE(tu_out(an, "r2", 0), 20, 3);
    assert_true(tu_warned(an, "symbolic dim 'sequence' is unbound"));
    assert_false(tu_warned(an, "binds 'batch'"));
    assert_true(tu_warned(an, "--batch 20 binds 'unk__6' (axis 0 of input 'aux')"));
    assert_true(tu_warned(an, "a guess"));
}

/* An antialiased linear Resize (opset 18) that shrinks stretches its
 * filter by in / out, rounded up: [1,1,10,10] to [1,1,4,4], 10 / 4 = 2.5:
 * 2 x 3 = 6 taps an axis, T = 36 over the two; 2T - 1 = 71 FLOPs an
 * output x 16 = 1,136 (docs/COSTS.md). */
static void resize_antialias_taps(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 1, 10, 10), NULL));
    pbm_init(&pm, pb_tensor_i64("sizes", 1, TU_DIMS(4), TU_DIMS(1, 1, 4, 4)));
    struct pbw at[] = {pb_attr_str("mode", "linear"), pb_attr_int("antialias", 1)};
    pbm_node(&pm, pb_node("rs", "Resize", TU_LIST("x", "", "", "sizes"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    TU_SHAPE(tu_out(an, "rs", 0), 1, 1, 4, 4);
    assert_int_equal(tu_node(an, "rs")->cost.flops, 1136);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 13, &o);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 11, NULL); /* opset 11: axes are attributes */
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 15, NULL);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 13, NULL);
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
    tu_analyze_ok(&pm, 13, &o);
    /* batch unbound -> 1 with a warning; seq bound; nosuch reported */
    TU_SHAPE(tu_out(an, "relu", 0), 1, 128);
    assert_int_equal(an->n_warnings, 2);
    assert_non_null(strstr(an->warnings[0], "'batch'"));
    assert_non_null(strstr(an->warnings[1], "nosuch"));
    assert_string_equal(tu_out(an, "relu", 0)->dims[1].sym, "seq");
}


static void activation_costs(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 5), NULL));
    pbm_init(&pm, pb_tensor_f32("lo", 0, NULL));
    pbm_node(&pm, pb_node("sig", "Sigmoid", TU_LIST("x"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("hsig", "HardSigmoid", TU_LIST("x"), TU_LIST("b"), 0, NULL));
    pbm_node(&pm, pb_node("hswish", "HardSwish", TU_LIST("x"), TU_LIST("c"), 0, NULL));
    pbm_node(&pm, pb_node("clip", "Clip", TU_LIST("x", "lo"), TU_LIST("d"), 0, NULL)); /* max omitted */
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("x"), TU_LIST("e"), 0, NULL));
    pbm_output(&pm, pb_value_info("a", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 14, NULL);
    /* n = 15 elements: Sigmoid 4n, HardSigmoid 4n, HardSwish 5n, Clip 2n, Relu n */
    assert_int_equal(tu_node(an, "sig")->cost.flops, 60);
    assert_int_equal(tu_node(an, "hsig")->cost.flops, 60);
    assert_int_equal(tu_node(an, "hswish")->cost.flops, 75);
    assert_int_equal(tu_node(an, "clip")->cost.flops, 30);
    assert_int_equal(tu_node(an, "relu")->cost.flops, 15);
    TU_SHAPE(tu_out(an, "clip", 0), 3, 5);
    /* a scalar float initializer is a parameter too (1 element) */
    assert_int_equal(an->totals.params, 1);
}

static void binary_broadcast_costs(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 1, 4), NULL));
    pbm_input(&pm, pb_value_info("y", PB_FLOAT, 2, TU_DIMS(3, 1), NULL));
    pbm_node(&pm, pb_node("sub", "Sub", TU_LIST("x", "y"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("div", "Div", TU_LIST("s", "x"), TU_LIST("d"), 0, NULL));
    pbm_node(&pm, pb_node("eq", "Equal", TU_LIST("x", "y"), TU_LIST("e"), 0, NULL));
    pbm_output(&pm, pb_value_info("d", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* (2,1,4) with (3,1) -> (2,3,4): 24 elements, one op each */
    TU_SHAPE(tu_out(an, "sub", 0), 2, 3, 4);
    assert_int_equal(tu_node(an, "sub")->cost.flops, 24);
    TU_SHAPE(tu_out(an, "div", 0), 2, 3, 4);
    assert_int_equal(tu_out(an, "eq", 0)->dtype, PB_BOOL);
    /* bytes: read 2*4*4 + 3*4 = 44, written 24*4 = 96 */
    assert_int_equal(tu_node(an, "sub")->cost.bytes_read, 44);
    assert_int_equal(tu_node(an, "sub")->cost.bytes_written, 96);
}

static void dropout_and_mask(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 6), NULL));
    pbm_node(&pm, pb_node("drop", "Dropout", TU_LIST("x"), TU_LIST("y", "mask"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "drop", 0), 4, 6);
    TU_SHAPE(tu_out(an, "drop", 1), 4, 6);
    assert_int_equal(tu_out(an, "drop", 1)->dtype, PB_BOOL);
    assert_int_equal(tu_node(an, "drop")->cost.flops, 0);
    /* activation bytes: 24*4 + 24*1 */
    assert_int_equal(tu_node(an, "drop")->activation_bytes, 120);
}

static void reduce_mean_forms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(2, 8, 5, 5), NULL));
    struct pbw at[] = {pb_attr_ints("axes", 2, TU_DIMS(2, 3)), pb_attr_int("keepdims", 0)};
    pbm_node(&pm, pb_node("rm", "ReduceMean", TU_LIST("x"), TU_LIST("y"), 2, at));
    struct pbw at2[] = {pb_attr_ints("axes", 1, TU_DIMS(-1))};
    pbm_node(&pm, pb_node("rs", "ReduceSum", TU_LIST("x"), TU_LIST("z"), 1, at2));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL); /* ReduceSum-11: axes attribute */
    TU_SHAPE(tu_out(an, "rm", 0), 2, 8);
    /* numel(X) = 400 */
    assert_int_equal(tu_node(an, "rm")->cost.flops, 400);
    TU_SHAPE(tu_out(an, "rs", 0), 2, 8, 5, 1);
    /* 400 - 80 adds */
    assert_int_equal(tu_node(an, "rs")->cost.flops, 320);
}

static void reduce_axes_input(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(2, 3, 4), NULL));
    pbm_init(&pm, pb_tensor_i64("axes", 1, TU_DIMS(1), TU_DIMS(1)));
    pbm_node(&pm, pb_node("rm", "ReduceMean", TU_LIST("x", "axes"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("rmall", "ReduceMean", TU_LIST("x"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    TU_SHAPE(tu_out(an, "rm", 0), 2, 1, 4);
    /* no axes: all reduced, keepdims 1 */
    TU_SHAPE(tu_out(an, "rmall", 0), 1, 1, 1);
}

static void constants_and_values(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(6, 4), NULL));
    struct pbw t = pb_tensor_i64("", 1, TU_DIMS(2), TU_DIMS(3, 8));
    struct pbw ca[] = {pb_attr_tensor("value", &t)};
    pbm_node(&pm, pb_node("c", "Constant", NULL, TU_LIST("shape"), 1, ca));
    pbm_node(&pm, pb_node("r", "Reshape", TU_LIST("x", "shape"), TU_LIST("y"), 0, NULL));
    struct pbw ci[] = {pb_attr_ints("value_ints", 3, TU_DIMS(2, 1, 8))};
    pbm_node(&pm, pb_node("c2", "Constant", NULL, TU_LIST("target"), 1, ci));
    pbm_node(&pm, pb_node("cos", "ConstantOfShape", TU_LIST("target"), TU_LIST("z"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("start", 0, NULL, TU_DIMS(10)));
    pbm_init(&pm, pb_tensor_i64("limit", 0, NULL, TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_i64("delta", 0, NULL, TU_DIMS(-3)));
    pbm_node(&pm, pb_node("range", "Range", TU_LIST("start", "limit", "delta"), TU_LIST("rg"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("exp_shape", 1, TU_DIMS(3), TU_DIMS(5, 1, 4)));
    pbm_node(&pm, pb_node("exp", "Expand", TU_LIST("x", "exp_shape"), TU_LIST("ex"), 0, NULL));
    struct pbw cast_to[] = {pb_attr_int("to", PB_INT32)};
    pbm_node(&pm, pb_node("cast", "Cast", TU_LIST("x"), TU_LIST("xi"), 1, cast_to));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "c", 0), 2);
    TU_SHAPE(tu_out(an, "r", 0), 3, 8);
    TU_SHAPE(tu_out(an, "cos", 0), 2, 1, 8);
    assert_int_equal(tu_out(an, "cos", 0)->dtype, PB_FLOAT);
    /* ceil((1 - 10) / -3) = 3: 10, 7, 4 */
    TU_SHAPE(tu_out(an, "range", 0), 3);
    assert_int_equal(tu_out(an, "range", 0)->ival[2], 4);
    /* (6,4) expanded to (5,1,4) -> (5,6,4) */
    TU_SHAPE(tu_out(an, "exp", 0), 5, 6, 4);
    assert_int_equal(tu_out(an, "cast", 0)->dtype, PB_INT32);
}

static void slice_and_gather(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(10, 20, 30), NULL));
    pbm_init(&pm, pb_tensor_i64("st", 1, TU_DIMS(3), TU_DIMS(1, -1, 0)));
    pbm_init(&pm, pb_tensor_i64("en", 1, TU_DIMS(3), TU_DIMS(1000, -1000, 30)));
    pbm_init(&pm, pb_tensor_i64("ax", 1, TU_DIMS(3), TU_DIMS(0, 1, 2)));
    pbm_init(&pm, pb_tensor_i64("sp", 1, TU_DIMS(3), TU_DIMS(2, -3, 7)));
    pbm_node(&pm, pb_node("sl", "Slice", TU_LIST("x", "st", "en", "ax", "sp"), TU_LIST("y"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("idx", 2, TU_DIMS(2, 2), TU_DIMS(0, 1, 2, -1)));
    struct pbw ga[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("ga", "Gather", TU_LIST("x", "idx"), TU_LIST("g"), 1, ga));
    pbm_node(&pm, pb_node("sh", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("one", 1, TU_DIMS(1), TU_DIMS(1)));
    pbm_init(&pm, pb_tensor_i64("big", 1, TU_DIMS(1), TU_DIMS(INT64_MAX)));
    pbm_node(&pm, pb_node("tail", "Slice", TU_LIST("s", "one", "big"), TU_LIST("t"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* axis 0: 1..10 step 2 -> 1,3,5,7,9 = 5; axis 1: 19 down to 0 (end -1000 clamps to -1),
     * step -3 -> 19,16,...,1 = 7; axis 2: 0..30 step 7 -> 0,7,14,21,28 = 5 */
    TU_SHAPE(tu_out(an, "sl", 0), 5, 7, 5);
    /* data[:1] + idx.shape + data[2:] */
    TU_SHAPE(tu_out(an, "ga", 0), 10, 2, 2, 30);
    /* Shape values [10, 20, 30][1:] = [20, 30] */
    const struct oc_value *t = tu_out(an, "tail", 0);
    TU_SHAPE(t, 2);
    assert_non_null(t->ival);
    assert_int_equal(t->ival[0], 20);
    assert_int_equal(t->ival[1], 30);
}

static void if_known_and_unknown_condition(void **state) {
    (void)state;
    struct pb_model then_b = {0}, else_b = {0}, pm = {0};
    /* then: MatMul of the outer x [4, 8] with w [8, 16] -> [4, 16], 4*16*8 = 512 MACs */
    pbm_node(&then_b, pb_node("tm", "MatMul", TU_LIST("x", "w"), TU_LIST("t_out"), 0, NULL));
    pbm_output(&then_b, pb_value_info("t_out", PB_FLOAT, -1, NULL, NULL));
    /* else: Relu of x -> [4, 8], no MACs */
    pbm_node(&else_b, pb_node("er", "Relu", TU_LIST("x"), TU_LIST("e_out"), 0, NULL));
    pbm_output(&else_b, pb_value_info("e_out", PB_FLOAT, -1, NULL, NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 8), NULL));
    pbm_input(&pm, pb_value_info("flag", PB_BOOL, 0, NULL, NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(8, 16)));
    struct pbw at[] = {pb_attr_graph("then_branch", &then_b), pb_attr_graph("else_branch", &else_b)};
    pbm_node(&pm, pb_node("if", "If", TU_LIST("flag"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* condition unknown: [4, 16] vs [4, 8] -> [4, ?]; charged the costlier branch */
    const struct oc_value *y = tu_out(an, "if", 0);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->dims[0].value, 4);
    assert_int_equal(y->dims[1].value, OC_DIM_UNKNOWN);
    assert_int_equal(tu_node(an, "if")->cost.macs, 512);
}

static void loop_trip_count(void **state) {
    (void)state;
    struct pb_model body = {0}, pm = {0};
    /* body(iter, cond, acc [2, 3]): acc + x; cond passed through; scan output Relu(acc) */
    pbm_input(&body, pb_value_info("i", PB_INT64, 0, NULL, NULL));
    pbm_input(&body, pb_value_info("c_in", PB_BOOL, 0, NULL, NULL));
    pbm_input(&body, pb_value_info("acc", PB_FLOAT, -1, NULL, NULL));
    pbm_node(&body, pb_node("add", "Add", TU_LIST("acc", "x"), TU_LIST("acc_out"), 0, NULL));
    pbm_node(&body, pb_node("relu", "Relu", TU_LIST("acc"), TU_LIST("scan"), 0, NULL));
    pbm_node(&body, pb_node("id", "Identity", TU_LIST("c_in"), TU_LIST("c_out"), 0, NULL));
    pbm_output(&body, pb_value_info("c_out", PB_BOOL, -1, NULL, NULL));
    pbm_output(&body, pb_value_info("acc_out", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&body, pb_value_info("scan", PB_FLOAT, -1, NULL, NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_init(&pm, pb_tensor_i64("m", 0, NULL, TU_DIMS(7)));
    struct pbw at[] = {pb_attr_graph("body", &body)};
    pbm_node(&pm, pb_node("loop", "Loop", TU_LIST("m", "", "x"), TU_LIST("final", "scans"), 1, at));
    pbm_output(&pm, pb_value_info("final", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    TU_SHAPE(tu_out(an, "loop", 0), 2, 3);
    /* scan output stacks 7 iterations of [2, 3] */
    TU_SHAPE(tu_out(an, "loop", 1), 7, 2, 3);
    /* body FLOPs per iteration: Add 6 + Relu 6 = 12; x 7 */
    assert_int_equal(tu_node(an, "loop")->cost.flops, 84);
}

static void model_local_function(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(8, 16)));
    struct pbw at[] = {pb_attr_float("slope", 0.2f)};
    pbm_node(&pm, pb_node_dom("call", "com.test", "LinearLeaky", TU_LIST("x", "w"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    bytes = pbm_finish(&pm, 13);
    /* FunctionProto com.test::LinearLeaky(X, W) -> Y = LeakyRelu(MatMul(X, W), alpha = @slope) */
    struct pbw fn = {0}, os = {0}, ref = {0};
    pbw_str(&fn, 1, "LinearLeaky");
    pbw_str(&fn, 4, "X");
    pbw_str(&fn, 4, "W");
    pbw_str(&fn, 5, "Y");
    pbw_str(&fn, 6, "slope");
    struct pbw mm = pb_node("mm", "MatMul", TU_LIST("X", "W"), TU_LIST("T"), 0, NULL);
    pbw_msg(&fn, 7, &mm);
    pbw_str(&ref, 1, "alpha");
    pbw_int(&ref, 20, 1); /* FLOAT */
    pbw_str(&ref, 21, "slope");
    struct pbw lr = pb_node("leaky", "LeakyRelu", TU_LIST("T"), TU_LIST("Y"), 1, &ref);
    pbw_msg(&fn, 7, &lr);
    pbw_str(&fn, 10, "com.test");
    pbw_str(&os, 1, "com.test");
    pbw_int(&os, 2, 1);
    pbw_msg(&bytes, 8, &os);
    pbw_msg(&bytes, 25, &fn);
    if (tu_analyze(&bytes, NULL, &md, &an, &dg) != OC_OK)
        fail_msg("analysis failed: %s", dg.msg);
    /* the call node keeps the body's output [4, 16] and its cost:
     * MatMul 4*16*8 = 512 MACs, 1,024 FLOPs; LeakyRelu 2 per element, 128 */
    TU_SHAPE(tu_out(an, "call", 0), 4, 16);
    const struct oc_node *n = tu_node(an, "call");
    assert_true(n->is_call);
    assert_int_equal(n->status, OC_OK);
    assert_int_equal(n->cost.macs, 512);
    assert_int_equal(n->cost.flops, 1152);
    assert_int_equal(an->totals.n_no_rule, 0);
    assert_int_equal(an->totals.macs, 512);
}

static void peak_memory_liveness(void **state) {
    (void)state;
    struct pb_model pm = {0};
    /* x [1, 100] f32 = 400 B. a = Relu(x); r = Reshape(a) (a view); b = Relu(r);
     * c = Add(b, x) (x still needed); d = Sigmoid(c) (the graph output) */
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 100), NULL));
    pbm_init(&pm, pb_tensor_i64("shape", 1, TU_DIMS(2), TU_DIMS(100, 1)));
    pbm_node(&pm, pb_node("a", "Relu", TU_LIST("x"), TU_LIST("a_out"), 0, NULL));
    pbm_node(&pm, pb_node("r", "Reshape", TU_LIST("a_out", "shape"), TU_LIST("r_out"), 0, NULL));
    pbm_node(&pm, pb_node("b", "Relu", TU_LIST("r_out"), TU_LIST("b_out"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("back", 1, TU_DIMS(2), TU_DIMS(1, 100)));
    pbm_node(&pm, pb_node("rb", "Reshape", TU_LIST("b_out", "back"), TU_LIST("rb_out"), 0, NULL));
    pbm_node(&pm, pb_node("c", "Add", TU_LIST("rb_out", "x"), TU_LIST("c_out"), 0, NULL));
    pbm_node(&pm, pb_node("d", "Sigmoid", TU_LIST("c_out"), TU_LIST("d_out"), 0, NULL));
    pbm_output(&pm, pb_value_info("d_out", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* step a: x + a = 800; r: view, still 800; b: x + a (read through the view) + b = 1200;
     * after b, a is dead. rb: view of b. c: x + b + c = 1200; after c, x and b are dead.
     * d: c + d = 800. Peak 1200, first reached at node b. The plain sum of outputs
     * (torchsummary's way) would be 6 x 400 = 2,400. */
    assert_int_equal(an->totals.peak_activation_bytes, 1200);
    assert_int_equal(an->totals.peak_node, tu_node(an, "b")->index);
    assert_true(an->totals.peak_complete);
    assert_int_equal(an->totals.activation_bytes, 2400);
    /* by op type, most MACs (all 0) then most FLOPs first: Sigmoid 4 x 100, Relu 2 x 100,
     * Add 100, Reshape 0 (two nodes) */
    assert_int_equal(an->n_op_stats, 4);
    assert_string_equal(an->op_stats[0].op_type, "Sigmoid");
    assert_int_equal(an->op_stats[0].flops, 400);
    assert_string_equal(an->op_stats[1].op_type, "Relu");
    assert_int_equal(an->op_stats[1].count, 2);
    assert_int_equal(an->op_stats[1].flops, 200);
    assert_string_equal(an->op_stats[2].op_type, "Add");
    assert_string_equal(an->op_stats[3].op_type, "Reshape");
    assert_int_equal(an->op_stats[3].count, 2);
    assert_int_equal(an->op_stats[3].activation_bytes, 800);
}

static void modules_from_scopes(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 8), NULL));
    pbm_init(&pm, pb_tensor_f32("w1", 2, TU_DIMS(8, 8)));
    pbm_init(&pm, pb_tensor_f32("w2", 2, TU_DIMS(8, 4)));
    pbm_node(&pm, pb_node("Identity_0", "Identity", TU_LIST("x"), TU_LIST("x0"), 0, NULL));
    pbm_node(&pm, pb_node("/enc/fc/MatMul", "MatMul", TU_LIST("x0", "w1"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("/enc/act/Relu", "Relu", TU_LIST("h"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("/head/MatMul", "MatMul", TU_LIST("a", "w2"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    struct oc_module *m;
    int32_t n;
    assert_int_equal(oc_modules_build(an, 2, &m, &n, &dg), OC_OK);
    /* tree order, children after their parent, by first execution */
    assert_int_equal(n, 5);
    assert_string_equal(m[0].path, "(top level)");
    assert_string_equal(m[1].path, "enc");
    assert_string_equal(m[2].path, "enc/fc");
    assert_string_equal(m[3].path, "enc/act");
    assert_string_equal(m[4].path, "head");
    /* enc: MatMul 2*8*8 = 128 MACs, Relu 16 FLOPs; params 64 */
    assert_int_equal(m[1].n_nodes, 2);
    assert_int_equal(m[1].depth, 1);
    assert_int_equal(m[2].depth, 2);
    assert_int_equal(m[1].macs, 128);
    assert_int_equal(m[1].flops, 2 * 128 + 16);
    assert_int_equal(m[1].params, 64);
    /* head: 2*4*8 = 64 MACs, 32 params */
    assert_int_equal(m[4].macs, 64);
    assert_int_equal(m[4].params, 32);
    /* depth 1 keeps the top modules only */
    assert_int_equal(oc_modules_build(an, 1, &m, &n, &dg), OC_OK);
    assert_int_equal(n, 3);
}

static void training_estimate_and_dtype(void **state) {
    (void)state;
    struct pb_model pm = {0};
    /* x [4, 10] -> MatMul w [10, 6] -> Relu -> BatchNorm-free head MatMul v [6, 2] */
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 10), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(10, 6)));
    pbm_init(&pm, pb_tensor_f32("v", 2, TU_DIMS(6, 2)));
    pbm_node(&pm, pb_node("mm1", "MatMul", TU_LIST("x", "w"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("h"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("mm2", "MatMul", TU_LIST("a", "v"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct oc_analyze_opts o = {.price_bits = 16};
    tu_analyze_ok(&pm, 13, &o);
    /* priced as 16-bit: params 60 + 12 = 72 elements = 144 B; input 40 x 2 = 80 B */
    assert_int_equal(an->totals.params_bytes, 144);
    assert_int_equal(an->totals.input_bytes, 80);
    struct oc_training tr;
    oc_training_estimate(an, OC_OPT_ADAM, 10, 0, &tr);
    /* gradients 144, Adam moments 2 x 144 = 288 */
    assert_int_equal(tr.grad_bytes, 144);
    assert_int_equal(tr.optimizer_bytes, 288);
    /* saved for backward, as autograd keeps them: mm1 its input x (80 B), Relu
     * its output a (24 x 2 = 48 B), which mm2 keeps too (once); h and y not
     * (Relu's gradient reads its output, nothing reads y) = 128 */
    assert_int_equal(tr.saved_bytes, 128);
    assert_int_equal(tr.total_bytes, 144 + 144 + 288 + 128);
    /* forward: mm1 2*4*6*10 = 480 FLOPs, relu 24, mm2 2*4*2*6 = 96:
     * step = 3 * (480 + 96) + 2 * 24 = 1,776; batch 4, 10 samples = 3 steps */
    assert_int_equal(tr.step_flops, 1776);
    assert_int_equal(tr.batch, 4);
    assert_int_equal(tr.epoch_flops, 3 * 1776);
    oc_training_estimate(an, OC_OPT_SGD, 0, 0, &tr);
    assert_int_equal(tr.optimizer_bytes, 0);
    assert_int_equal(tr.epoch_flops, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(conv_groups_dilation, tu_teardown),
        cmocka_unit_test_teardown(conv_same_upper, tu_teardown),
        cmocka_unit_test_teardown(convtranspose_output_shape_with_n_c, tu_teardown),
        cmocka_unit_test_teardown(sub_byte_prices, tu_teardown),
        cmocka_unit_test_teardown(peak_holds_graph_outputs, tu_teardown),
        cmocka_unit_test_teardown(batch_binds_every_input, tu_teardown),
        cmocka_unit_test_teardown(batch_by_name, tu_teardown),
        cmocka_unit_test_teardown(resize_antialias_taps, tu_teardown),
        cmocka_unit_test_teardown(pools, tu_teardown),
        cmocka_unit_test_teardown(gemm_trans, tu_teardown),
        cmocka_unit_test_teardown(matmul_broadcast, tu_teardown),
        cmocka_unit_test_teardown(reshape_flatten, tu_teardown),
        cmocka_unit_test_teardown(shape_arithmetic_chain, tu_teardown),
        cmocka_unit_test_teardown(layout_ops, tu_teardown),
        cmocka_unit_test_teardown(unsqueeze_attr_form, tu_teardown),
        cmocka_unit_test_teardown(shared_weight_through_identity, tu_teardown),
        cmocka_unit_test_teardown(batchnorm_buffers, tu_teardown),
        cmocka_unit_test_teardown(softmax_costs, tu_teardown),
        cmocka_unit_test_teardown(unknown_op_uses_value_info, tu_teardown),
        cmocka_unit_test_teardown(bindings, tu_teardown),
        cmocka_unit_test_teardown(activation_costs, tu_teardown),
        cmocka_unit_test_teardown(binary_broadcast_costs, tu_teardown),
        cmocka_unit_test_teardown(dropout_and_mask, tu_teardown),
        cmocka_unit_test_teardown(reduce_mean_forms, tu_teardown),
        cmocka_unit_test_teardown(reduce_axes_input, tu_teardown),
        cmocka_unit_test_teardown(constants_and_values, tu_teardown),
        cmocka_unit_test_teardown(slice_and_gather, tu_teardown),
        cmocka_unit_test_teardown(if_known_and_unknown_condition, tu_teardown),
        cmocka_unit_test_teardown(loop_trip_count, tu_teardown),
        cmocka_unit_test_teardown(model_local_function, tu_teardown),
        cmocka_unit_test_teardown(peak_memory_liveness, tu_teardown),
        cmocka_unit_test_teardown(modules_from_scopes, tu_teardown),
        cmocka_unit_test_teardown(training_estimate_and_dtype, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
