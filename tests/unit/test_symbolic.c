/*
 * test_symbolic.c — formulas over unbound dims: fitted shapes and costs
 * must be the polynomials worked out by hand below, non-polynomial
 * quantities must be rejected, and formatting is exact.
 */
#include "testutil.h"

#include "derive.h"
#include "symbolic.h"

static struct oc_symbolic *sym;

static int sym_teardown(void **state) {
    oc_symbolic_free(sym);
    sym = NULL;
    return tu_teardown(state);
}

static const char *fmt(const struct oc_poly *p) {
    static char buf[256];
    return oc_poly_format(p, sym, false, buf, sizeof buf);
}

static void attention_like(void **state) {
    (void)state;
    const char *syms[] = {"batch", "seq", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(-1, -1, 8), syms));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(8, 4)));
    pbm_node(&pm, pb_node("proj", "MatMul", TU_LIST("x", "w"), TU_LIST("p"), 0, NULL));
    struct pbw tp[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))};
    pbm_node(&pm, pb_node("tr", "Transpose", TU_LIST("x"), TU_LIST("xt"), 1, tp));
    pbm_node(&pm, pb_node("scores", "MatMul", TU_LIST("x", "xt"), TU_LIST("s"), 0, NULL));
    pbm_output(&pm, pb_value_info("s", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    assert_int_equal(oc_symbolic_fit(md, NULL, an, &sym, &dg), OC_OK);
    assert_int_equal(oc_symbolic_prove(sym, an), OC_OK);
    assert_int_equal(sym->n_syms, 2);
    /* grid 4 x 4 probes + 2 checks */
    assert_int_equal(sym->n_runs, 18);
    const struct oc_node *proj = tu_node(an, "proj"), *sc = tu_node(an, "scores");
    /* proj: [b, s, 8] x [8, 4]: b*s*4 outputs x K=8 = 32*b*s */
    assert_string_equal(fmt(sym->nodes[proj->index].macs), "32*batch*seq");
    /* scores: [b, s, 8] x [b, 8, s] = [b, s, s], K = 8: 8*b*s^2 */
    assert_string_equal(fmt(sym->nodes[sc->index].macs), "8*batch*seq^2");
    assert_string_equal(fmt(sym->macs), "32*batch*seq + 8*batch*seq^2");
    /* FLOPs = 2 x MACs */
    assert_string_equal(fmt(sym->flops), "64*batch*seq + 16*batch*seq^2");
    /* output dims */
    const struct oc_poly *const *d = sym->dims[sc->out[0]];
    assert_string_equal(fmt(d[0]), "batch");
    assert_string_equal(fmt(d[1]), "seq");
    assert_string_equal(fmt(d[2]), "seq");
    int64_t k;
    assert_true(oc_poly_constant(sym->dims[proj->out[0]][2], &k));
    assert_int_equal(k, 4);
    /* params are constant: 8*4 weights */
    assert_true(oc_poly_constant(sym->params, &k));
    assert_int_equal(k, 32);
    /* activation bytes of scores: 4 * b * s^2 */
    assert_string_equal(fmt(sym->nodes[sc->index].activation_bytes), "4*batch*seq^2");
    /* every shape derived through the ops, every cost a polynomial the grid
       determines (MatMul: output times K, degree 2 in seq): proven */
    assert_true(sym->all_proven);
    assert_true(sym->node_proven[sc->index]);
    assert_string_equal(sym->where, "");
    char pretty[128];
    assert_string_equal(oc_poly_format(sym->macs, sym, true, pretty, sizeof pretty),
                        "32\xC2\xB7" "batch\xC2\xB7seq + 8\xC2\xB7" "batch\xC2\xB7seq\xC2\xB2");
    /* guided by the derivation (what analyze does): scores' MACs are its
       output's size (degree 1 in batch, 2 in seq) times K, A's last dim (8:
       degree 0), and no tensor is of higher degree, so the grid 1..2 in
       batch and 1..3 in seq fixes every formula, its first point the base
       analysis itself, with no checks: the same formulas from 6 analyses */
    oc_symbolic_free(sym);
    assert_int_equal(oc_symbolic_derive(md, NULL, an, &sym, &dg), OC_OK);
    assert_int_equal(sym->n_runs, 6);
    assert_int_equal(sym->grid_points[0], 2);
    assert_int_equal(sym->grid_points[1], 3);
    assert_false(sym->checked);
    assert_true(sym->grid == oc_sym_grid_derived);
    assert_true(sym->all_proven);
    assert_string_equal(fmt(sym->macs), "32*batch*seq + 8*batch*seq^2");
    assert_string_equal(fmt(sym->nodes[sc->index].activation_bytes), "4*batch*seq^2");
}

/* x [seq, seq] times itself: [seq, seq], K = seq, MACs seq^3, where every
   tensor's size is of degree 2. Three points would fit 6*seq^2 - 11*seq + 6
   (integers); the derivation's bound (output's degree plus K's) asks for
   four, and the fit is the cube. */
static void contraction_degree_from_k(void **state) {
    (void)state;
    const char *syms[] = {"seq", "seq"};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, -1), syms));
    pbm_node(&pm, pb_node("sq", "MatMul", TU_LIST("x", "x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    assert_int_equal(oc_symbolic_derive(md, NULL, an, &sym, &dg), OC_OK);
    assert_int_equal(sym->n_syms, 1);
    assert_int_equal(sym->grid_points[0], 4);
    assert_true(sym->all_proven);
    assert_string_equal(fmt(sym->macs), "seq^3");
    assert_string_equal(fmt(sym->flops), "2*seq^3");
}

static void strided_conv_is_not_polynomial(void **state) {
    (void)state;
    /* a stride-2 conv over a symbolic height: floor((h - 1) / 2) + 1 is no polynomial */
    const char *syms[] = {NULL, NULL, "h", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, -1, 8), syms));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(3, 2, 1, 1)));
    struct pbw at[] = {pb_attr_ints("strides", 2, TU_DIMS(2, 1))};
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    assert_int_equal(oc_symbolic_fit(md, NULL, an, &sym, &dg), OC_OK);
    assert_int_equal(oc_symbolic_prove(sym, an), OC_OK);
    const struct oc_node *n = tu_node(an, "conv");
    /* probes h = 2, 3, 5, 7 give 1, 2, 3, 4 — fitted, then refuted at h = 11 (6) */
    assert_null(sym->dims[n->out[0]][2]);
    assert_null(sym->nodes[n->index].macs);
    assert_string_equal(fmt(sym->dims[n->out[0]][1]), "3");
    /* and nothing about it is proven; the reason names the conv */
    assert_false(sym->all_proven);
    assert_false(sym->node_proven[n->index]);
    assert_non_null(strstr(sym->why, "conv"));
}

static void nothing_unbound(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    assert_int_equal(oc_symbolic_fit(md, NULL, an, &sym, &dg), OC_ERR_UNSUPPORTED);
    assert_null(sym);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(attention_like, sym_teardown),
        cmocka_unit_test_teardown(contraction_degree_from_k, sym_teardown),
        cmocka_unit_test_teardown(strided_conv_is_not_polynomial, sym_teardown),
        cmocka_unit_test_teardown(nothing_unbound, sym_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
