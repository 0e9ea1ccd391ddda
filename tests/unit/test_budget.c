/*
 * test_budget.c — quantity parsing (SI and IEC suffixes) and budget checks,
 * expectations written out by hand.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "budget.h"

static void quantities(void **state) {
    (void)state;
    uint64_t v;
    assert_true(oc_quantity_parse("30M", &v));
    assert_int_equal(v, 30000000);
    assert_true(oc_quantity_parse("5G", &v));
    assert_int_equal(v, 5000000000ull);
    assert_true(oc_quantity_parse("2GiB", &v));
    assert_int_equal(v, 2147483648ull);
    assert_true(oc_quantity_parse("512MB", &v));
    assert_int_equal(v, 512000000);
    assert_true(oc_quantity_parse("1.5Ki", &v));
    assert_int_equal(v, 1536);
    assert_true(oc_quantity_parse("4089184256", &v));
    assert_int_equal(v, 4089184256ull);
    assert_true(oc_quantity_parse("1e9", &v));
    assert_int_equal(v, 1000000000);
    assert_false(oc_quantity_parse("-5G", &v));
    assert_false(oc_quantity_parse("5X", &v));
    assert_false(oc_quantity_parse("G", &v));
    assert_false(oc_quantity_parse("99P99", &v));
    assert_false(oc_quantity_parse("1e30", &v));
}

static void keys_and_check(void **state) {
    (void)state;
    enum oc_budget_key k;
    assert_true(oc_budget_key_parse("max-macs", &k));
    assert_int_equal(k, OC_BUDGET_MACS);
    assert_true(oc_budget_key_parse("max_peak_memory", &k));
    assert_int_equal(k, OC_BUDGET_PEAK_MEMORY);
    assert_false(oc_budget_key_parse("max-speed", &k));
    struct oc_budget b = {0};
    b.set[OC_BUDGET_MACS] = b.set[OC_BUDGET_PARAMS] = b.set[OC_BUDGET_PEAK_MEMORY] = true;
    b.limit[OC_BUDGET_MACS] = 4000000000ull;
    b.limit[OC_BUDGET_PARAMS] = 30000000;
    b.limit[OC_BUDGET_PEAK_MEMORY] = 9722368; /* equal is within budget */
    struct oc_totals t = {.params = 25507944, .macs = 4089184256ull, .peak_activation_bytes = 9722368};
    struct oc_budget_excess ex[OC_BUDGET_COUNT];
    assert_int_equal(oc_budget_check(&b, &t, ex), 1);
    assert_int_equal(ex[0].key, OC_BUDGET_MACS);
    assert_int_equal(ex[0].value, 4089184256ull);
    assert_int_equal(ex[0].limit, 4000000000ull);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(quantities), cmocka_unit_test(keys_and_check)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
