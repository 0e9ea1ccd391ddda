/*
 * test_derive.c — shapes derived through the ops (analyzer/derive.h): the
 * polynomial arithmetic and bounds against values worked out by hand, and
 * derivations on small graphs: what must be derived (with its polynomial),
 * what must not (Mod, a strided window, a clamp the box does not decide),
 * and the guard a Slice of a fixed-length buffer takes.
 */
#include "testutil.h"

#include "derive.h"

static struct oc_symbolic *sym;
static struct oc_derived dv;

static int dv_teardown(void **state) {
    oc_derived_free(&dv);
    oc_symbolic_free(sym);
    sym = NULL;
    return tu_teardown(state);
}

static const char *fmt(const struct oc_poly *p) {
    static char buf[256];
    return oc_poly_format(p, sym, false, buf, sizeof buf);
}

static const struct oc_poly *x(int j) {
    return oc_poly_var(sym, j);
}

static const struct oc_poly *k(int64_t c) {
    return oc_poly_const(sym, c);
}

static void arithmetic_and_bounds(void **state) {
    (void)state;
    const char *names[] = {"n", "m"};
    sym = oc_symbolic_new(names, 2);
    assert_non_null(sym);
    /* (n + 2)(m - 1) = n*m - n + 2*m - 2, printed by ascending degree */
    const struct oc_poly *p = oc_poly_mul(sym, oc_poly_add(sym, x(0), k(2)), oc_poly_sub(sym, x(1), k(1)));
    assert_string_equal(fmt(p), "-n + 2*m + n*m - 2");
    /* 6*n*m + 4*n divided by 2*n: 3*m + 2; by 4: not exact */
    const struct oc_poly *q = oc_poly_add(sym, oc_poly_mul(sym, k(6), oc_poly_mul(sym, x(0), x(1))),
                                          oc_poly_mul(sym, k(4), x(0)));
    assert_string_equal(fmt(oc_poly_div_exact(sym, q, oc_poly_mul(sym, k(2), x(0)))), "3*m + 2");
    assert_null(oc_poly_div_exact(sym, q, k(4)));
    assert_null(oc_poly_div_exact(sym, q, x(1))); /* 4*n has no m */
    assert_true(oc_poly_equal(oc_poly_sub(sym, p, p), k(0)));
    /* bounds of 1024 - n over n in 1..2048, m in 1..1: [-1024, 1023] */
    int64_t lo[2] = {1, 1}, hi[2] = {2048, 1}, mn, mx;
    assert_true(oc_poly_bounds(oc_poly_sub(sym, k(1024), x(0)), 2, lo, hi, &mn, &mx));
    assert_int_equal(mn, -1024);
    assert_int_equal(mx, 1023);
    /* unbounded above: no bounds */
    int64_t inf[2] = {INT64_MAX, INT64_MAX};
    assert_false(oc_poly_bounds(x(0), 2, lo, inf, &mn, &mx));
    /* n - 1 never falls; 10 - n does; n^2 - 3n falls at n = 1 (derivative
       2n - 3 = -1) but not from n = 2 (1) */
    assert_true(oc_poly_nondecreasing(oc_poly_sub(sym, x(0), k(1)), 2, lo, inf));
    assert_false(oc_poly_nondecreasing(oc_poly_sub(sym, k(10), x(0)), 2, lo, hi));
    const struct oc_poly *sq = oc_poly_sub(sym, oc_poly_mul(sym, x(0), x(0)), oc_poly_mul(sym, k(3), x(0)));
    int64_t hi10[2] = {10, 1}, lo2[2] = {2, 1};
    assert_false(oc_poly_nondecreasing(sq, 2, lo, hi10));
    assert_true(oc_poly_nondecreasing(sq, 2, lo2, hi10));
    /* n*m - n: derivative in n is m - 1 >= 0, in m is n >= 1 */
    assert_true(oc_poly_nondecreasing(oc_poly_sub(sym, oc_poly_mul(sym, x(0), x(1)), x(0)), 2, lo, inf));
}

/* Bounds whose products pass 128 bits: never a decided sign from a wrapped
   product. 2^62*n*m - 2^62*m^2 over n, m in 1..2^40 is negative where
   n < m, zero where n = m, positive where n > m: its sign is not decided,
   its bounds are not known; 2^62*n*m is positive everywhere. */
static void bounds_never_wrap(void **state) {
    (void)state;
    const char *names[] = {"n", "m"};
    sym = oc_symbolic_new(names, 2);
    assert_non_null(sym);
    const struct oc_poly *big = k((int64_t)1 << 62);
    const struct oc_poly *nm = oc_poly_mul(sym, big, oc_poly_mul(sym, x(0), x(1)));
    const struct oc_poly *mm = oc_poly_mul(sym, big, oc_poly_mul(sym, x(1), x(1)));
    const struct oc_poly *d = oc_poly_sub(sym, nm, mm);
    assert_non_null(d);
    int64_t lo[2] = {1, 1}, hi[2] = {(int64_t)1 << 40, (int64_t)1 << 40}, mn, mx, v;
    assert_int_equal(oc_poly_sign(d, 2, lo, hi), 2);
    assert_int_equal(oc_poly_sign(nm, 2, lo, hi), 1);
    assert_false(oc_poly_bounds(d, 2, lo, hi, &mn, &mx));
    /* -2^62*n*m falls in n; its derivative's bound passes 2^100 */
    assert_false(oc_poly_nondecreasing(oc_poly_sub(sym, k(0), nm), 2, lo, hi));
    /* at one binding: 2^62 * 2^40 * 2^40 is no 64-bit number */
    assert_false(oc_poly_eval_at(nm, 2, hi, &v));
    int64_t one_two[2] = {1, 2};
    assert_true(oc_poly_eval_at(d, 2, one_two, &v));
    assert_true(v == -((int64_t)1 << 62) * 2);
}

/* Derives `an` with symbols `names` over [lo, hi] from the base at lo. */
static void derive(const char *const *names, int32_t n, const int64_t *lo, const int64_t *hi) {
    sym = oc_symbolic_new(names, n);
    assert_non_null(sym);
    assert_int_equal(oc_derive(an, sym, lo, lo, hi, &dv), OC_OK);
}

/* A derived dim, NULL when not derived. */
static const struct oc_poly *dim(const char *node, int out, int axis) {
    const struct oc_node *nd = tu_node(an, node);
    return dv.dims[nd->out[out]] ? dv.dims[nd->out[out]][axis] : NULL;
}

static void attention_and_reshape(void **state) {
    (void)state;
    const char *syms[] = {"batch", "seq", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 3, TU_DIMS(-1, -1, 8), syms));
    struct pbw tp[] = {pb_attr_ints("perm", 3, TU_DIMS(0, 2, 1))};
    pbm_node(&pm, pb_node("tr", "Transpose", TU_LIST("x"), TU_LIST("xt"), 1, tp));
    pbm_node(&pm, pb_node("scores", "MatMul", TU_LIST("x", "xt"), TU_LIST("s"), 0, NULL));
    /* Reshape(x, [0, -1]): [batch, 8 * seq] */
    pbm_init(&pm, pb_tensor_i64("shape", 1, TU_DIMS(2), TU_DIMS(0, -1)));
    pbm_node(&pm, pb_node("flat", "Reshape", TU_LIST("x", "shape"), TU_LIST("f"), 0, NULL));
    pbm_output(&pm, pb_value_info("s", PB_FLOAT, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("f", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const char *names[] = {"batch", "seq"};
    int64_t lo[2] = {1, 1}, hi[2] = {INT64_MAX, INT64_MAX};
    derive(names, 2, lo, hi);
    assert_int_equal(dv.stop_node, -1);
    assert_int_equal(dv.n_guards, 0);
    assert_string_equal(fmt(dim("scores", 0, 0)), "batch");
    assert_string_equal(fmt(dim("scores", 0, 1)), "seq");
    assert_string_equal(fmt(dim("scores", 0, 2)), "seq");
    assert_string_equal(fmt(dim("flat", 0, 1)), "8*seq");
    assert_true(dv.cost_monotone[tu_node(an, "scores")->index]);
    assert_int_equal(dv.cost_form[tu_node(an, "scores")->index], OC_DC_MATMUL);
}

/* x[n, 8]; k = op(n, 5) through Shape/Gather; ConstantOfShape([k, 8]) */
static void shape_through(const char *op) {
    const char *syms[] = {"n", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, 8), syms));
    pbm_init(&pm, pb_tensor_i64("zero", 0, NULL, TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("five", 0, NULL, TU_DIMS(5)));
    pbm_init(&pm, pb_tensor_i64("axes", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("eight", 1, TU_DIMS(1), TU_DIMS(8)));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("gather", "Gather", TU_LIST("s", "zero"), TU_LIST("n"), 1, ax));
    pbm_node(&pm, pb_node("op", op, TU_LIST("n", "five"), TU_LIST("k"), 0, NULL));
    pbm_node(&pm, pb_node("unsq", "Unsqueeze", TU_LIST("k", "axes"), TU_LIST("k1"), 0, NULL));
    struct pbw cx[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("k1", "eight"), TU_LIST("shp"), 1, cx));
    pbm_node(&pm, pb_node("cos", "ConstantOfShape", TU_LIST("shp"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("z", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const char *names[] = {"n"};
    int64_t lo[1] = {1}, hi[1] = {64};
    derive(names, 1, lo, hi);
}

/* x[n, 8]; rows = 100 + 100 * Cast(Cast(n - c -> to) -> int64) - n through
   ConstantOfShape([rows, 8]), over n in lo..hi */
static void cast_through(int32_t to, int64_t c, int64_t lo_n, int64_t hi_n) {
    const char *syms[] = {"n", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, 8), syms));
    pbm_init(&pm, pb_tensor_i64("zero", 0, NULL, TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("c", 0, NULL, TU_DIMS(c)));
    pbm_init(&pm, pb_tensor_i64("hundred", 0, NULL, TU_DIMS(100)));
    pbm_init(&pm, pb_tensor_i64("axes", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("eight", 1, TU_DIMS(1), TU_DIMS(8)));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("gather", "Gather", TU_LIST("s", "zero"), TU_LIST("n"), 1, ax));
    pbm_node(&pm, pb_node("sub", "Sub", TU_LIST("n", "c"), TU_LIST("d"), 0, NULL));
    struct pbw t1[] = {pb_attr_int("to", to)}, t2[] = {pb_attr_int("to", 7)};
    pbm_node(&pm, pb_node("cast", "Cast", TU_LIST("d"), TU_LIST("b"), 1, t1));
    pbm_node(&pm, pb_node("back", "Cast", TU_LIST("b"), TU_LIST("bi"), 1, t2));
    pbm_node(&pm, pb_node("mul", "Mul", TU_LIST("bi", "hundred"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("add", "Add", TU_LIST("h", "hundred"), TU_LIST("h2"), 0, NULL));
    pbm_node(&pm, pb_node("rows", "Sub", TU_LIST("h2", "n"), TU_LIST("k"), 0, NULL));
    pbm_node(&pm, pb_node("unsq", "Unsqueeze", TU_LIST("k", "axes"), TU_LIST("k1"), 0, NULL));
    struct pbw cx[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat", "Concat", TU_LIST("k1", "eight"), TU_LIST("shp"), 1, cx));
    pbm_node(&pm, pb_node("cos", "ConstantOfShape", TU_LIST("shp"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("z", PB_FLOAT, -1, NULL, NULL));
    struct oc_binding bind = {"n", lo_n};
    struct oc_analyze_opts o = {.dims = &bind, .n_dims = 1};
    tu_analyze_ok(&pm, 13, &o);
    const char *names[] = {"n"};
    int64_t lo[1] = {lo_n}, hi[1] = {hi_n};
    derive(names, 1, lo, hi);
}

/* Cast to bool is x != 0, never the identity on [0, 255]: n - 1 over
   1..64 is 0 at n = 1 and 1 past it, no polynomial (100 + 100*(n-1) - n
   = 99n was claimed, where n = 2 gives 198 rows, n = 64 gives 136); n - 1
   over 2..64 is never 0: 1, so rows = 200 - n; a value of [0, 1] passes */
static void cast_to_bool(void **state) {
    (void)state;
    cast_through(9, 1, 1, 64);
    assert_int_equal(dv.stop_node, tu_node(an, "cos")->index);
    assert_null(dim("cos", 0, 0));
    dv_teardown(NULL); /* the next graph */
    cast_through(9, 1, 2, 64);
    assert_int_equal(dv.stop_node, -1);
    assert_string_equal(fmt(dim("cos", 0, 0)), "-n + 200");
    dv_teardown(NULL); /* the next graph */
    cast_through(9, 1, 1, 2); /* n - 1 in [0, 1]: itself */
    assert_int_equal(dv.stop_node, -1);
    assert_string_equal(fmt(dim("cos", 0, 0)), "99*n");
}

/* Cast to int8 holds -128..127, not 0..255: n + 100 (c = -100) passes
   over n in 1..27 and wraps past it (n = 28 is 128 -> -128) */
static void cast_to_int8(void **state) {
    (void)state;
    cast_through(3, -100, 1, 27);
    assert_int_equal(dv.stop_node, -1);
    assert_string_equal(fmt(dim("cos", 0, 0)), "99*n + 10100");
    dv_teardown(NULL); /* the next graph */
    cast_through(3, -100, 1, 28);
    assert_int_equal(dv.stop_node, tu_node(an, "cos")->index);
    dv_teardown(NULL); /* the next graph */
    cast_through(2, -100, 1, 155); /* uint8: up to 255 */
    assert_int_equal(dv.stop_node, -1);
    dv_teardown(NULL); /* the next graph */
    cast_through(2, -100, 1, 156);
    assert_int_equal(dv.stop_node, tu_node(an, "cos")->index);
}

static void shape_arithmetic_followed(void **state) {
    (void)state;
    shape_through("Mul"); /* k = 5n: ConstantOfShape [5n, 8] */
    assert_int_equal(dv.stop_node, -1);
    assert_string_equal(fmt(dim("cos", 0, 0)), "5*n");
    assert_string_equal(fmt(dim("cos", 0, 1)), "8");
}

static void mod_is_not_derived(void **state) {
    (void)state;
    shape_through("Mod"); /* n % 5: no polynomial; the proof stops where the shape needs it */
    assert_int_equal(dv.stop_node, tu_node(an, "cos")->index);
    assert_non_null(strstr(dv.why, "ConstantOfShape"));
    assert_non_null(strstr(dv.why, "from Concat"));
    assert_null(dim("cos", 0, 0));
}

static void min_decided_over_the_box(void **state) {
    (void)state;
    /* Min(n, 5) over n in 1..64 is not decided: not derived */
    shape_through("Min");
    assert_int_equal(dv.stop_node, tu_node(an, "cos")->index);
}

/* a 1024-row buffer sliced to the first n rows */
static void slice_of_a_buffer(const int64_t *hi) {
    const char *syms[] = {"n", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(-1, 8), syms));
    pbm_init(&pm, pb_tensor_f32("buf", 2, TU_DIMS(1024, 8)));
    pbm_init(&pm, pb_tensor_i64("zero", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_init(&pm, pb_tensor_i64("idx", 0, NULL, TU_DIMS(0)));
    pbm_node(&pm, pb_node("shape", "Shape", TU_LIST("x"), TU_LIST("s"), 0, NULL));
    struct pbw ax[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("gather", "Gather", TU_LIST("s", "idx"), TU_LIST("n"), 1, ax));
    pbm_init(&pm, pb_tensor_i64("axes", 1, TU_DIMS(1), TU_DIMS(0)));
    pbm_node(&pm, pb_node("unsq", "Unsqueeze", TU_LIST("n", "axes"), TU_LIST("end"), 0, NULL));
    pbm_node(&pm, pb_node("slice", "Slice", TU_LIST("buf", "zero", "end", "zero"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("add", "Add", TU_LIST("x", "y"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("z", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    const char *names[] = {"n"};
    int64_t lo[1] = {1};
    derive(names, 1, lo, hi);
}

static void slice_guarded(void **state) {
    (void)state;
    int64_t hi[1] = {INT64_MAX};
    slice_of_a_buffer(hi); /* every n >= 1: n rows where n <= 1024 */
    assert_int_equal(dv.stop_node, -1);
    assert_string_equal(fmt(dim("slice", 0, 0)), "n");
    assert_int_equal(dv.n_guards, 1);
    char where[64];
    oc_derived_guards_text(&dv, sym, where, sizeof where);
    assert_string_equal(where, "n <= 1024");
    int64_t lo[1] = {1}, in[1] = {1024}, out[1] = {1025};
    assert_true(oc_derived_guards_hold(&dv, 1, lo, in));
    assert_false(oc_derived_guards_hold(&dv, 1, lo, out));
}

static void slice_decided_by_the_box(void **state) {
    (void)state;
    int64_t hi[1] = {100};
    slice_of_a_buffer(hi); /* n <= 100 < 1024 in the whole box: no guard */
    assert_int_equal(dv.stop_node, -1);
    assert_int_equal(dv.n_guards, 0);
    assert_string_equal(fmt(dim("slice", 0, 0)), "n");
}

/* Conv over a symbolic height with a 3-tall kernel, no pad */
static void conv(int64_t stride) {
    const char *syms[] = {NULL, NULL, "h", NULL};
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 4, TU_DIMS(1, 2, -1, 8), syms));
    pbm_init(&pm, pb_tensor_f32("w", 4, TU_DIMS(3, 2, 3, 1)));
    struct pbw at[] = {pb_attr_ints("strides", 2, TU_DIMS(stride, 1))};
    pbm_node(&pm, pb_node("conv", "Conv", TU_LIST("x", "w"), TU_LIST("y"), 1, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    struct oc_binding b = {"h", 8};
    struct oc_analyze_opts o = {.dims = &b, .n_dims = 1};
    tu_analyze_ok(&pm, 13, &o);
    const char *names[] = {"h"};
    int64_t lo[1] = {8}, hi[1] = {64};
    derive(names, 1, lo, hi);
}

static void windows(void **state) {
    (void)state;
    conv(1); /* h - 2 */
    assert_int_equal(dv.stop_node, -1);
    assert_string_equal(fmt(dim("conv", 0, 2)), "h - 2");
    assert_true(oc_poly_nondecreasing(dim("conv", 0, 2), 1, (int64_t[]){8}, (int64_t[]){64}));
}

static void strided_window_is_not_derived(void **state) {
    (void)state;
    conv(2); /* floor((h - 3) / 2) + 1 */
    assert_int_equal(dv.stop_node, tu_node(an, "conv")->index);
    assert_non_null(strstr(dv.why, "floor"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(arithmetic_and_bounds, dv_teardown),
        cmocka_unit_test_teardown(bounds_never_wrap, dv_teardown),
        cmocka_unit_test_teardown(cast_to_bool, dv_teardown),
        cmocka_unit_test_teardown(cast_to_int8, dv_teardown),
        cmocka_unit_test_teardown(attention_and_reshape, dv_teardown),
        cmocka_unit_test_teardown(shape_arithmetic_followed, dv_teardown),
        cmocka_unit_test_teardown(mod_is_not_derived, dv_teardown),
        cmocka_unit_test_teardown(min_decided_over_the_box, dv_teardown),
        cmocka_unit_test_teardown(slice_guarded, dv_teardown),
        cmocka_unit_test_teardown(slice_decided_by_the_box, dv_teardown),
        cmocka_unit_test_teardown(windows, dv_teardown),
        cmocka_unit_test_teardown(strided_window_is_not_derived, dv_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
