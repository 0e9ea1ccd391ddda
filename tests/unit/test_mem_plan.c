/*
 * test_mem_plan.c — the static memory plan (views/mem_plan.h): its check refuses
 * hand-made plans that overlap, are misaligned or pass the arena's end; the
 * planner's buffers, lifetimes, offsets and lower bound on a small graph,
 * worked out by hand; a tensor of unknown size named.
 */
#include "testutil.h"

#include "mem_plan.h"
#include "ort_arena.h"

#include <stdlib.h>

/* Two 1 KiB buffers live at steps [0, 1] and [1, 2]. */
static void check_refuses_bad_plans(void **state) {
    (void)state;
    struct oc_plan_buffer b[2] = {{.value = 0, .bytes = 1024, .size = 1024, .offset = 0, .first = 0, .last = 1},
                                  {.value = 1, .bytes = 1024, .size = 1024, .offset = 1024, .first = 1, .last = 2}};
    struct oc_plan p = {.align = 64, .buffers = b, .n_buffers = 2, .arena_bytes = 2048};
    int32_t x, y;
    assert_true(oc_plan_verify(&p, &x, &y));
    assert_int_equal(x, -1);
    b[1].offset = 512; /* overlaps the first while both live at step 1 */
    assert_false(oc_plan_verify(&p, &x, &y));
    assert_int_equal(x, 0);
    assert_int_equal(y, 1);
    b[1].first = 2; /* no longer live together: the same bytes may be shared */
    b[1].offset = 0;
    p.arena_bytes = 1024;
    assert_true(oc_plan_verify(&p, &x, &y));
    b[1].offset = 32; /* not a multiple of 64 */
    p.arena_bytes = 2048;
    assert_false(oc_plan_verify(&p, &x, &y));
    assert_int_equal(x, 1);
    assert_int_equal(y, -1);
    b[1].offset = 1024; /* ends past the arena */
    p.arena_bytes = 1536;
    assert_false(oc_plan_verify(&p, &x, &y));
    assert_int_equal(x, 1);
    b[1].offset = 0; /* smaller than its tensor */
    b[1].size = 512;
    assert_false(oc_plan_verify(&p, &x, &y));
}

/* x[1,256] -> a = MatMul(x, w) -> r = Relu(a) -> b = MatMul(r, w) -> y = Add(b, x):
 * every tensor 1,024 bytes; steps 0 to 3. */
static void chain(bool inplace, struct oc_plan *p) {
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 256), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(256, 256)));
    pbm_node(&pm, pb_node("mm1", "MatMul", TU_LIST("x", "w"), TU_LIST("a"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("a"), TU_LIST("r"), 0, NULL));
    pbm_node(&pm, pb_node("mm2", "MatMul", TU_LIST("r", "w"), TU_LIST("b"), 0, NULL));
    pbm_node(&pm, pb_node("add", "Add", TU_LIST("b", "x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_diag d = {0};
    assert_int_equal(oc_plan_make(an->graph, NULL, OC_PLANNER_SIZE, 64, inplace, p, &d), OC_OK);
    int32_t x, y;
    assert_true(oc_plan_verify(p, &x, &y));
}

static const struct oc_plan_buffer *buf(const struct oc_plan *p, const char *value) {
    int32_t v = oc_graph_find(an->graph, value);
    assert_true(v >= 0 && p->buffer_of[v] >= 0);
    return &p->buffers[p->buffer_of[v]];
}

static void in_place(void **state) {
    (void)state;
    struct oc_plan p;
    chain(true, &p);
    /* Relu writes over a (read last by it), Add over b: x, a|r, b|y */
    assert_int_equal(p.n_buffers, 3);
    assert_ptr_equal(buf(&p, "a"), buf(&p, "r"));
    assert_ptr_equal(buf(&p, "b"), buf(&p, "y"));
    assert_int_equal(buf(&p, "x")->first, 0);
    assert_int_equal(buf(&p, "x")->last, 3);
    assert_int_equal(buf(&p, "a")->last, 2);
    assert_int_equal(buf(&p, "b")->first, 2);
    assert_int_equal(buf(&p, "y")->last, 3);
    assert_int_equal(buf(&p, "y")->role, OC_PLAN_OUTPUT);
    /* at step 2, x, a|r and b live: 3 KiB, and the plan needs no more */
    assert_int_equal(p.lower_bound_bytes, 3072);
    assert_int_equal(p.lower_bound_step, 2);
    assert_int_equal(p.arena_bytes, 3072);
    oc_plan_free(&p);
}

static void no_in_place(void **state) {
    (void)state;
    struct oc_plan p;
    chain(false, &p);
    assert_int_equal(p.n_buffers, 5);
    /* greedy by size, ties by first step: x at 0, a at 1,024, r (live with
     * x and a at step 1) at 2,048, b (live with x and r) in the gap a left
     * at 1,024, y (live with x and b at step 3) at 2,048 */
    assert_int_equal(buf(&p, "x")->offset, 0);
    assert_int_equal(buf(&p, "a")->offset, 1024);
    assert_int_equal(buf(&p, "r")->offset, 2048);
    assert_int_equal(buf(&p, "b")->offset, 1024);
    assert_int_equal(buf(&p, "y")->offset, 2048);
    assert_int_equal(p.arena_bytes, 3072);
    assert_int_equal(p.lower_bound_bytes, 3072);
    oc_plan_free(&p);
}

/* A tensor whose size only running it tells (NonZero's count) is named. */
static void unknown_size_named(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&pm, pb_node("nz", "NonZero", TU_LIST("x"), TU_LIST("y"), 0, NULL));
    pbm_output(&pm, pb_value_info("y", PB_INT64, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_plan p;
    struct oc_diag d = {0};
    assert_int_equal(oc_plan_make(an->graph, NULL, OC_PLANNER_SIZE, 64, true, &p, &d), OC_ERR_UNSUPPORTED);
    if (!strstr(d.msg, "tensor 'y' has no known size at these bindings"))
        fail_msg("message: %s", d.msg);
}

/* ONNX Runtime's BFC arena hands out chunks in multiples of 256 bytes
 * (its kMinAllocationSize, BFCArena::RoundedBytes). x, z [1, 10] f32 (40 B,
 * fed by the caller, not in the arena); t = Add(x, z); y = Mul(t, z) (the
 * graph output). First run: t takes a 256-byte chunk, y another, t is freed
 * after Mul: 512 bytes in use at most; later runs: the memory pattern's
 * block for t (256) and y's chunk: 512. The peak reported adds the
 * allowance for ONNX Runtime's small session allocations
 * (OC_ORT_ARENA_ALLOWANCE). */
static void arena_rounds_to_256(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(1, 10), NULL));
    pbm_input(&pm, pb_value_info("z", PB_FLOAT, 2, TU_DIMS(1, 10), NULL));
    pbm_node(&pm, pb_node("t", "Add", TU_LIST("x", "z"), TU_LIST("t_o"), 0, NULL));
    pbm_node(&pm, pb_node("y", "Mul", TU_LIST("t_o", "z"), TU_LIST("y_o"), 0, NULL));
    pbm_output(&pm, pb_value_info("y_o", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    struct oc_ort_arena r;
    assert_int_equal(oc_ort_arena_simulate(an->graph, 1, &r), OC_OK);
    assert_int_equal(r.first_run_peak, 512);
    assert_int_equal(r.later_run_peak, 512);
    assert_int_equal(r.peak_bytes, 512 + OC_ORT_ARENA_ALLOWANCE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_refuses_bad_plans),
        cmocka_unit_test_teardown(in_place, tu_teardown),
        cmocka_unit_test_teardown(no_in_place, tu_teardown),
        cmocka_unit_test_teardown(unknown_size_named, tu_teardown),
        cmocka_unit_test_teardown(arena_rounds_to_256, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
