/*
 * test_text.c — the text helpers every message passes through: a reason cut
 * to its buffer ends after a whole word with "..." (issue 42, D: a NOT
 * BOUNDED reason read "--dim NAM)"), expected strings written out by hand.
 */
#include "testutil.h"

#include "oc.h"

static void fits_whole(void **state) {
    (void)state;
    char out[32];
    assert_int_equal(oc_fit_words(out, sizeof out, "short enough"), 12);
    assert_string_equal(out, "short enough");
}

static void cut_after_a_word(void **state) {
    (void)state;
    char out[24];
    /* 23 characters fit: the whole words within 20, then "...", never "--dim NAM" */
    oc_fit_words(out, sizeof out, "bind it with --dim NAME=N or range it");
    assert_string_equal(out, "bind it with --dim...");
    char tiny[6];
    oc_fit_words(tiny, sizeof tiny, "averyveryverylongword");
    assert_string_equal(tiny, "...");
    char none[1];
    oc_fit_words(none, sizeof none, "x y");
    assert_string_equal(none, "");
}

static void cut_drops_trailing_punctuation(void **state) {
    (void)state;
    char out[20];
    oc_fit_words(out, sizeof out, "the model (at n=40, with --dim n");
    assert_string_equal(out, "the model (at...");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fits_whole),
        cmocka_unit_test(cut_after_a_word),
        cmocka_unit_test(cut_drops_trailing_punctuation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
