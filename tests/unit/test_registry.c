/*
 * test_registry.c — the op registry is sorted, unique, complete, and the
 * version lookup takes the latest row not newer than the model's opset.
 */
#include "testutil.h"

#include "ops.h"
#include "ops/rules.h"

static void sorted_unique(void **state) {
    (void)state;
    size_t n = oc_op_count();
    assert_true(n > 40);
    for (size_t i = 1; i < n; i++) {
        const struct oc_op_def *a = oc_op_at(i - 1), *b = oc_op_at(i);
        int c = strcmp(a->domain, b->domain);
        if (!c)
            c = strcmp(a->op_type, b->op_type);
        if (!c)
            c = a->since_version < b->since_version ? -1 : a->since_version > b->since_version;
        if (c >= 0)
            fail_msg("registry not sorted/unique at %s-%d", b->op_type, b->since_version);
    }
}

static void callbacks_and_arity(void **state) {
    (void)state;
    for (size_t i = 0; i < oc_op_count(); i++) {
        const struct oc_op_def *d = oc_op_at(i);
        assert_non_null(d->infer);
        assert_non_null(d->cost);
        assert_true(d->since_version >= 1);
        assert_true(d->n_in_min <= d->n_in_max);
        assert_true(d->n_out_min >= 1 && d->n_out_min <= d->n_out_max);
        /* views cost nothing */
        if (d->flags & OC_OPF_ALIAS)
            assert_ptr_equal(d->cost, oc_cost_zero);
    }
}

static void version_lookup(void **state) {
    (void)state;
    int32_t earliest;
    const struct oc_op_def *d = oc_op_find("", "Reshape", 4, &earliest);
    assert_non_null(d);
    assert_int_equal(d->since_version, 1); /* shape as attribute */
    d = oc_op_find("ai.onnx", "Reshape", 13, &earliest);
    assert_non_null(d);
    assert_int_equal(d->since_version, 5); /* shape as input */
    d = oc_op_find("", "Squeeze", 12, NULL);
    assert_int_equal(d->since_version, 1);
    d = oc_op_find("", "Squeeze", 13, NULL);
    assert_int_equal(d->since_version, 13);
    /* known op, opset before its first version */
    assert_null(oc_op_find("", "HardSwish", 13, &earliest));
    assert_int_equal(earliest, 14);
    /* unknown op and unknown domain */
    assert_null(oc_op_find("", "NoSuchOp", 18, &earliest));
    assert_int_equal(earliest, 0);
    assert_null(oc_op_find("com.example", "Conv", 18, &earliest));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sorted_unique),
        cmocka_unit_test(callbacks_and_arity),
        cmocka_unit_test(version_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
