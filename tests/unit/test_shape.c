/*
 * test_shape.c — pure shape arithmetic: spatial output size (explicit pads,
 * auto_pad, ceil_mode, dilation), broadcasting, axes. Expected values are
 * worked out by hand from the ONNX spec formulas in each comment.
 */
#include "testutil.h"

#include "shape.h"

static int64_t out_of(int64_t in, int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe, enum oc_auto_pad ap,
                      bool ceil) {
    int64_t o, b, e;
    assert_int_equal(oc_spatial_out(in, k, s, dil, pb, pe, ap, ceil, &o, &b, &e), OC_OK);
    return o;
}

static void spatial_explicit(void **state) {
    (void)state;
    /* floor((224 + 3 + 3 - 7) / 2) + 1 = floor(223 / 2) + 1 = 112 (resnet stem) */
    assert_int_equal(out_of(224, 7, 2, 1, 3, 3, OC_AUTO_PAD_NOTSET, false), 112);
    /* 28 - 5 + 1 = 24 (MNIST conv1) */
    assert_int_equal(out_of(28, 5, 1, 1, 0, 0, OC_AUTO_PAD_NOTSET, false), 24);
    /* dilation 2, k 3: span 5; (10 + 0 - 5) / 1 + 1 = 6 */
    assert_int_equal(out_of(10, 3, 1, 2, 0, 0, OC_AUTO_PAD_NOTSET, false), 6);
    /* asymmetric pads 1/2: (5 + 3 - 3) / 2 + 1 = 3 */
    assert_int_equal(out_of(5, 3, 2, 1, 1, 2, OC_AUTO_PAD_NOTSET, false), 3);
}

static void spatial_ceil(void **state) {
    (void)state;
    /* googlenet pool: 112, k3 s2 ceil: ceil((112 - 3) / 2) + 1 = 55 + 1 = 56 */
    assert_int_equal(out_of(112, 3, 2, 1, 0, 0, OC_AUTO_PAD_NOTSET, true), 56);
    /* floor mode gives 54 + 1 = 55 */
    assert_int_equal(out_of(112, 3, 2, 1, 0, 0, OC_AUTO_PAD_NOTSET, false), 55);
    /* ceil drop rule: in 4, k 2, s 2, pad end 1: ceil((5 - 2) / 2) + 1 = 3, but the
     * last window would start at 4 >= in + pad_begin = 4, so 2 (PyTorch, ORT) */
    assert_int_equal(out_of(4, 2, 2, 1, 0, 1, OC_AUTO_PAD_NOTSET, true), 2);
}

static void spatial_auto_pad(void **state) {
    (void)state;
    int64_t o, b, e;
    /* SAME_UPPER, in 224, k 3, s 2: out ceil(224/2) = 112; need (112-1)*2 + 3 - 224 = 1:
     * 0 at the start, 1 at the end */
    assert_int_equal(oc_spatial_out(224, 3, 2, 1, 0, 0, OC_AUTO_PAD_SAME_UPPER, false, &o, &b, &e), OC_OK);
    assert_int_equal(o, 112);
    assert_int_equal(b, 0);
    assert_int_equal(e, 1);
    /* SAME_LOWER puts the odd one at the start */
    assert_int_equal(oc_spatial_out(224, 3, 2, 1, 0, 0, OC_AUTO_PAD_SAME_LOWER, false, &o, &b, &e), OC_OK);
    assert_int_equal(o, 112);
    assert_int_equal(b, 1);
    assert_int_equal(e, 0);
    /* SAME_UPPER, in 7, k 3, s 1, dil 2: out 7, need 6 + 5 - 7 = 4: 2 and 2 */
    assert_int_equal(oc_spatial_out(7, 3, 1, 2, 0, 0, OC_AUTO_PAD_SAME_UPPER, false, &o, &b, &e), OC_OK);
    assert_int_equal(o, 7);
    assert_int_equal(b + e, 4);
    /* VALID ignores pads: floor((32 - 5) / 3) + 1 = 10 */
    assert_int_equal(out_of(32, 5, 3, 1, 9, 9, OC_AUTO_PAD_VALID, false), 10);
}

static void spatial_errors(void **state) {
    (void)state;
    int64_t o, b, e;
    /* window 5 larger than input 3 */
    assert_int_equal(oc_spatial_out(3, 5, 1, 1, 0, 0, OC_AUTO_PAD_NOTSET, false, &o, &b, &e), OC_ERR_MODEL);
    assert_int_equal(oc_spatial_out(3, 1, 0, 1, 0, 0, OC_AUTO_PAD_NOTSET, false, &o, &b, &e), OC_ERR_MODEL);
    assert_int_equal(oc_spatial_out(INT64_MAX, INT64_MAX, 1, 2, 0, 0, OC_AUTO_PAD_NOTSET, false, &o, &b, &e),
                     OC_ERR_MODEL);
    /* unknown input stays unknown */
    assert_int_equal(oc_spatial_out(-1, 3, 1, 1, 0, 0, OC_AUTO_PAD_NOTSET, false, &o, &b, &e), OC_OK);
    assert_int_equal(o, -1);
}

static void broadcast(void **state) {
    (void)state;
    struct oc_dim a[] = {{8, NULL}, {1, NULL}, {6, NULL}, {1, NULL}};
    struct oc_dim b[] = {{7, NULL}, {1, NULL}, {5, NULL}};
    struct oc_dim o[4];
    int32_t r;
    /* numpy: (8,1,6,1) x (7,1,5) -> (8,7,6,5) */
    assert_int_equal(oc_broadcast(a, 4, b, 3, o, &r), OC_OK);
    assert_int_equal(r, 4);
    assert_int_equal(o[0].value, 8);
    assert_int_equal(o[1].value, 7);
    assert_int_equal(o[2].value, 6);
    assert_int_equal(o[3].value, 5);
    struct oc_dim c[] = {{3, NULL}}, d[] = {{4, NULL}};
    assert_int_equal(oc_broadcast(c, 1, d, 1, o, &r), OC_ERR_MODEL);
    /* scalar with anything */
    assert_int_equal(oc_broadcast(c, 1, NULL, 0, o, &r), OC_OK);
    assert_int_equal(r, 1);
    assert_int_equal(o[0].value, 3);
}

static void axes(void **state) {
    (void)state;
    int32_t a;
    assert_true(oc_axis_norm(-1, 4, &a));
    assert_int_equal(a, 3);
    assert_true(oc_axis_norm(0, 1, &a));
    assert_int_equal(a, 0);
    assert_false(oc_axis_norm(4, 4, &a));
    assert_false(oc_axis_norm(-5, 4, &a));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spatial_explicit), cmocka_unit_test(spatial_ceil), cmocka_unit_test(spatial_auto_pad),
        cmocka_unit_test(spatial_errors),   cmocka_unit_test(broadcast),    cmocka_unit_test(axes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
