/*
 * test_probe.c — the probe's check of its own clock reading
 * (oc_probe_clock_plausible), on readings worked out by hand.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "../../probe/probe.h"

/* A 2.1 GHz Xeon with two AVX-512 FMA units makes 2.1e9 x 64 = 134.4
   GFLOP/s of FP32 on one thread. Its true clock leaves 64 FLOP a cycle; the
   7.74 GHz an immediate-add chain once read leaves 17.4, under the 0.6 x 2
   x 16 = 19.2 the narrowest AVX-512 core allows: ruled out. */
static void clock_against_fp32_rate(void **state) {
    (void)state;
    assert_true(oc_probe_clock_plausible(2.1e9, 134.4e9, 16));
    assert_false(oc_probe_clock_plausible(7.74e9, 134.4e9, 16));
    /* one FMA unit of AVX-512 at a clock 25 % down under wide code: 0.75 x
       32 = 24 FLOP a cycle at the chain's clock, above 19.2 */
    assert_true(oc_probe_clock_plausible(3.0e9, 3.0e9 * 24, 16));
    /* AVX2 (8 lanes): at least 0.6 x 16 = 9.6 a cycle; 9 is not */
    assert_false(oc_probe_clock_plausible(3.0e9, 3.0e9 * 9, 8));
    assert_true(oc_probe_clock_plausible(3.0e9, 3.0e9 * 10, 8));
}

/* Past 6.5 GHz or under 0.3 GHz no reading is a core's, whatever the rate;
   without a rate, only those bounds. */
static void clock_bounds(void **state) {
    (void)state;
    assert_false(oc_probe_clock_plausible(6.6e9, 1e15, 16));
    assert_false(oc_probe_clock_plausible(0.25e9, 1e12, 1));
    assert_false(oc_probe_clock_plausible(0, 0, 16));
    assert_true(oc_probe_clock_plausible(6.4e9, 0, 16));
    assert_true(oc_probe_clock_plausible(1.0e9, 0, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clock_against_fp32_rate),
        cmocka_unit_test(clock_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
