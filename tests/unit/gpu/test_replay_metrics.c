/*
 * test_replay_metrics.c — the GPU replay plugin's metric tables
 * (replay/gpu/metrics.h), checked offline: no GPU is needed, the CUPTI
 * Profiler Host API works from a chip name.
 *
 * - pure: the per-chip name rules and the counter -> FLOP/byte arithmetic,
 *   with hand-computed expectations;
 * - CUPTI Host API: every name validates for GH100/GA100/AD102/GB100/GB202
 *   (all five, see below) in every math mode, and the GH100 pass
 *   counts match the table in docs/REPLAY.md, "How it measures".
 *
 * If the Host API itself is unavailable (cuptiProfilerHostGetSupportedChips
 * fails) or does not list every test chip, the program says which and exits
 * 77 (the whole test skipped) before any test runs: no test is skipped
 * alone, which cmocka would count as passed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA 13.0 CUPTI headers are not pedantic-clean C (an enumerator of
 * 0x80000000 in cupti_activity.h, no final newline in cupti_profiler_host.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cupti_profiler_host.h>
#pragma GCC diagnostic pop

#include "metrics.h"

static const char *const test_chips[] = { "GH100", "GA100", "AD102", "GB100", "GB202" };
#define N_TEST_CHIPS (sizeof test_chips / sizeof test_chips[0])
static int chip_supported[N_TEST_CHIPS];

static int count_role(const struct oc_rp_metric_set *s, int32_t role)
{
    int k = 0;
    for (int32_t i = 0; i < s->n; i++)
        k += s->m[i].role == role;
    return k;
}

static const char *name_of_role(const struct oc_rp_metric_set *s, int32_t role)
{
    for (int32_t i = 0; i < s->n; i++)
        if (s->m[i].role == role)
            return s->m[i].name;
    return NULL;
}

static int has_name(const struct oc_rp_metric_set *s, const char *name)
{
    for (int32_t i = 0; i < s->n; i++)
        if (strcmp(s->m[i].name, name) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* pure                                                                      */
/* ------------------------------------------------------------------------ */

static void names_per_chip(void **state)
{
    (void)state;
    struct oc_rp_metric_set s;

    /* GH100, fp16: one tensor name, no dst split */
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_FP16, &s), 0);
    assert_string_equal(s.chip, "GH100");
    assert_int_equal(s.math, OC_MATH_FP16);
    assert_int_equal(s.passes, 0);
    assert_int_equal(count_role(&s, OC_M_TENSOR), 1);
    assert_true(has_name(&s, "sm__ops_path_tensor_src_fp16.sum"));
    assert_true(has_name(&s, "dram__bytes_read.sum"));
    assert_true(has_name(&s, "dram__bytes_write.sum"));
    /* 9 SASS + 1 tensor + 2 dram + time + 2 clocks */
    assert_int_equal(s.n, 15);

    /* the SASS names are the ones `ncu --metrics smsp__sass_thread_inst_executed_op_*` reports */
    assert_string_equal(name_of_role(&s, OC_M_FADD), "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_FMUL), "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_FFMA), "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_HADD), "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_HMUL), "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_HFMA), "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_DADD), "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_DMUL), "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_DFMA), "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum");
    assert_string_equal(name_of_role(&s, OC_M_TIME), "gpu__time_duration.sum");
    assert_string_equal(name_of_role(&s, OC_M_SM_HZ), "sm__cycles_elapsed.avg.per_second");
    assert_string_equal(name_of_role(&s, OC_M_DRAM_HZ), "dram__cycles_elapsed.avg.per_second");
    for (int32_t r = 0; r < OC_M_ROLE_COUNT; r++)
        if (r != OC_M_TENSOR)
            assert_int_equal(count_role(&s, r), 1);

    /* fp32: no tensor path at all */
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_FP32, &s), 0);
    assert_int_equal(count_role(&s, OC_M_TENSOR), 0);
    assert_int_equal(s.n, 14);

    /* tf32 / bf16 */
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_TF32, &s), 0);
    assert_int_equal(count_role(&s, OC_M_TENSOR), 1);
    assert_true(has_name(&s, "sm__ops_path_tensor_src_tf32_dst_fp32.sum"));
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_BF16, &s), 0);
    assert_int_equal(count_role(&s, OC_M_TENSOR), 1);
    assert_true(has_name(&s, "sm__ops_path_tensor_src_bf16_dst_fp32.sum"));

    /* GA100 / AD102 / GB100: fp16 dst split, dram__bytes_read/write */
    static const char *const split[] = { "GA100", "AD102", "GB100" };
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(oc_rp_metrics_for_chip(split[i], OC_MATH_FP16, &s), 0);
        assert_int_equal(count_role(&s, OC_M_TENSOR), 2);
        assert_true(has_name(&s, "sm__ops_path_tensor_src_fp16_dst_fp16.sum"));
        assert_true(has_name(&s, "sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
        assert_false(has_name(&s, "sm__ops_path_tensor_src_fp16.sum"));
        assert_true(has_name(&s, "dram__bytes_read.sum"));
        assert_true(has_name(&s, "dram__bytes_write.sum"));
    }

    /* GB202: dram__bytes_op_read/write, fp16 dst split */
    assert_int_equal(oc_rp_metrics_for_chip("GB202", OC_MATH_FP16, &s), 0);
    assert_string_equal(name_of_role(&s, OC_M_DRAM_READ), "dram__bytes_op_read.sum");
    assert_string_equal(name_of_role(&s, OC_M_DRAM_WRITE), "dram__bytes_op_write.sum");
    assert_false(has_name(&s, "dram__bytes_read.sum"));
    assert_int_equal(count_role(&s, OC_M_TENSOR), 2);
    assert_int_equal(s.n, 16);

    /* unknown chip, bad math, NULLs */
    assert_int_equal(oc_rp_metrics_for_chip("XX999", OC_MATH_FP32, &s), -1);
    assert_int_equal(s.n, 0);
    assert_int_equal(oc_rp_metrics_for_chip("GV100", OC_MATH_FP32, &s), -1); /* no TF32/BF16 path: not in the table */
    assert_int_equal(oc_rp_metrics_for_chip(NULL, OC_MATH_FP32, &s), -1);
    assert_int_equal(oc_rp_metrics_for_chip("GH100", -1, &s), -1);
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_COUNT, &s), -1);
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_FP32, NULL), -1);

    assert_string_equal(oc_rp_math_name(OC_MATH_FP32), "fp32");
    assert_string_equal(oc_rp_math_name(OC_MATH_TF32), "tf32");
    assert_string_equal(oc_rp_math_name(OC_MATH_FP16), "fp16");
    assert_string_equal(oc_rp_math_name(OC_MATH_BF16), "bf16");
    assert_string_equal(oc_rp_math_name(42), "?");
}

/* Values by role, laid out in the set's own order. */
static void fill_values(const struct oc_rp_metric_set *s, const double by_role[OC_M_ROLE_COUNT],
                        const double *tensor, size_t n_tensor, double *values)
{
    size_t t = 0;
    for (int32_t i = 0; i < s->n; i++) {
        if (s->m[i].role == OC_M_TENSOR) {
            assert_true(t < n_tensor);
            values[i] = tensor[t++];
        } else {
            values[i] = by_role[s->m[i].role];
        }
    }
    assert_int_equal(t, n_tensor);
}

static void counters_from_values(void **state)
{
    (void)state;
    struct oc_rp_metric_set s;
    double by_role[OC_M_ROLE_COUNT] = { 0 };
    by_role[OC_M_FADD] = 3;
    by_role[OC_M_FMUL] = 5;
    by_role[OC_M_FFMA] = 7;
    by_role[OC_M_HADD] = 1;
    by_role[OC_M_HMUL] = 2;
    by_role[OC_M_HFMA] = 3;
    by_role[OC_M_DADD] = 4;
    by_role[OC_M_DMUL] = 6;
    by_role[OC_M_DFMA] = 8;
    by_role[OC_M_DRAM_READ] = 4096;
    by_role[OC_M_DRAM_WRITE] = 1024;
    by_role[OC_M_TIME] = 12345;
    by_role[OC_M_SM_HZ] = 1.98e9;
    by_role[OC_M_DRAM_HZ] = 2.619e9;
    double values[OC_RP_METRIC_MAX];
    struct oc_rp_counters c;

    const uint32_t all = OC_RP_HAVE_FP32 | OC_RP_HAVE_FP16 | OC_RP_HAVE_FP64 | OC_RP_HAVE_TENSOR |
                         OC_RP_HAVE_DRAM_READ | OC_RP_HAVE_DRAM_WRITE | OC_RP_HAVE_TIME | OC_RP_HAVE_SM_HZ |
                         OC_RP_HAVE_DRAM_HZ;

    /* GH100 fp16: one tensor counter */
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_FP16, &s), 0);
    const double t1[] = { 1000 };
    fill_values(&s, by_role, t1, 1, values);
    oc_rp_counters_from_values(&s, values, &c);
    assert_true(c.fp32_flops == 22.0); /* 3 + 5 + 2*7 */
    assert_true(c.fp16_flops == 18.0); /* 2*1 + 2*2 + 4*3 */
    assert_true(c.fp64_flops == 26.0); /* 4 + 6 + 2*8 */
    assert_true(c.tensor_ops == 1000.0);
    assert_true(c.dram_read == 4096.0);
    assert_true(c.dram_write == 1024.0);
    assert_true(c.gpu_time_ns == 12345.0);
    assert_true(c.sm_hz == 1.98e9);
    assert_true(c.dram_hz == 2.619e9);
    assert_int_equal(c.have, all);

    /* GA100 fp16: the dst split is summed */
    assert_int_equal(oc_rp_metrics_for_chip("GA100", OC_MATH_FP16, &s), 0);
    const double t2[] = { 10, 20 };
    fill_values(&s, by_role, t2, 2, values);
    oc_rp_counters_from_values(&s, values, &c);
    assert_true(c.tensor_ops == 30.0);
    assert_true(c.fp32_flops == 22.0);
    assert_int_equal(c.have, all);

    /* fp32 math: no tensor metric, so no tensor value */
    assert_int_equal(oc_rp_metrics_for_chip("GH100", OC_MATH_FP32, &s), 0);
    fill_values(&s, by_role, NULL, 0, values);
    oc_rp_counters_from_values(&s, values, &c);
    assert_true(c.tensor_ops == 0.0);
    assert_int_equal(c.have, all & ~(uint32_t)OC_RP_HAVE_TENSOR);

    /* a NaN member voids its group only */
    by_role[OC_M_HMUL] = NAN;
    by_role[OC_M_DRAM_WRITE] = -1;
    fill_values(&s, by_role, NULL, 0, values);
    oc_rp_counters_from_values(&s, values, &c);
    assert_true(c.fp16_flops == 0.0);
    assert_true(c.dram_write == 0.0);
    assert_true(c.fp32_flops == 22.0);
    assert_int_equal(c.have, all & ~(uint32_t)(OC_RP_HAVE_TENSOR | OC_RP_HAVE_FP16 | OC_RP_HAVE_DRAM_WRITE));

    /* a set missing a trio member: that group is absent */
    struct oc_rp_metric_set part = { .n = 2 };
    part.m[0].role = OC_M_FADD;
    part.m[1].role = OC_M_FFMA;
    const double pv[] = { 3, 7 };
    oc_rp_counters_from_values(&part, pv, &c);
    assert_int_equal(c.have, 0);
    assert_true(c.fp32_flops == 0.0);

    /* NULL-safe */
    oc_rp_counters_from_values(NULL, pv, &c);
    assert_int_equal(c.have, 0);
    oc_rp_counters_from_values(&part, NULL, &c);
    assert_int_equal(c.have, 0);
    oc_rp_counters_from_values(&part, pv, NULL);
}

/* ------------------------------------------------------------------------ */
/* CUPTI Profiler Host API, offline                                          */
/* ------------------------------------------------------------------------ */

static void all_sets_validate(void **state)
{
    (void)state;
    int tested = 0;
    for (size_t c = 0; c < N_TEST_CHIPS; c++) {
        if (!chip_supported[c])
            fail_msg("CUPTI does not list %s", test_chips[c]); /* main() exits 77 before this */
        for (int32_t math = 0; math < OC_MATH_COUNT; math++) {
            struct oc_rp_metric_set s;
            char err[256] = "";
            uint8_t *cfg = NULL;
            size_t cfg_size = 0;
            assert_int_equal(oc_rp_metrics_for_chip(test_chips[c], math, &s), 0);
            int rc = oc_rp_metrics_configure(&s, NULL, 0, &cfg, &cfg_size, err, sizeof err);
            if (rc != 0)
                fail_msg("%s/%s: %s", test_chips[c], oc_rp_math_name(math), err);
            assert_string_equal(err, "");
            assert_non_null(cfg);
            assert_true(cfg_size > 0);
            assert_true(s.passes >= 1 && s.passes <= 8);
            print_message("%s %s: %d metrics, %d passes, config %zu bytes\n", test_chips[c],
                          oc_rp_math_name(math), (int)s.n, (int)s.passes, cfg_size);
            free(cfg);

            /* without the image out-parameter too */
            int32_t passes = s.passes;
            assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err), 0);
            assert_int_equal(s.passes, passes);
            tested++;
        }
    }
    assert_int_equal(tested, (int)N_TEST_CHIPS * OC_MATH_COUNT);
}

static struct oc_rp_metric_set hand_set(const char *chip, const char *const *names, int32_t n)
{
    struct oc_rp_metric_set s;
    memset(&s, 0, sizeof s);
    snprintf(s.chip, sizeof s.chip, "%s", chip);
    s.n = n;
    for (int32_t i = 0; i < n; i++) {
        s.m[i].role = OC_M_TIME; /* roles do not matter to the Host API */
        snprintf(s.m[i].name, sizeof s.m[i].name, "%s", names[i]);
    }
    return s;
}

static int32_t passes_of(const char *chip, const char *const *names, int32_t n)
{
    struct oc_rp_metric_set s = hand_set(chip, names, n);
    char err[256] = "";
    if (oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err) != 0)
        fail_msg("%s: %s", chip, err);
    return s.passes;
}

#define BASE5                                                                                                   \
    "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",                                  \
        "sm__cycles_elapsed.avg.per_second", "dram__cycles_elapsed.avg.per_second"
#define TRIO(pfx, a, b, c)                                                                                      \
    pfx "__sass_thread_inst_executed_op_" a "_pred_on.sum", pfx "__sass_thread_inst_executed_op_" b "_pred_on.sum", \
        pfx "__sass_thread_inst_executed_op_" c "_pred_on.sum"
#define N(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

/* GH100 pass counts, expectations copied from the table in
 * gpu_replay_apis.md 2.4 (measured there with cuptiProfilerHostGetNumOfPasses). */
static void gh100_pass_counts(void **state)
{
    (void)state;
    if (!chip_supported[0])
        fail_msg("CUPTI does not list GH100");
    static const char *const pfx[] = { "sm", "smsp" }; /* the note names both; the code uses smsp */
    {
        static const char *const row[] = { BASE5 };
        assert_int_equal(passes_of("GH100", row, N(row)), 1);
    }
    {
        static const char *const row[] = { BASE5, "lts__t_bytes.sum", "l1tex__t_bytes.sum" };
        assert_int_equal(passes_of("GH100", row, N(row)), 1);
    }
    for (int p = 0; p < 2; p++) {
        if (p == 0) {
            static const char *const row8[] = { BASE5, TRIO("sm", "fadd", "fmul", "ffma") };
            static const char *const row9[] = { BASE5, TRIO("sm", "fadd", "fmul", "ffma"),
                                                "sm__ops_path_tensor_src_tf32_dst_fp32.sum" };
            static const char *const h16[] = { BASE5, TRIO("sm", "hadd", "hmul", "hfma"),
                                               "sm__ops_path_tensor_src_fp16.sum" };
            static const char *const hbf[] = { BASE5, TRIO("sm", "hadd", "hmul", "hfma"),
                                               "sm__ops_path_tensor_src_bf16_dst_fp32.sum" };
            static const char *const all9[] = { TRIO("sm", "fadd", "fmul", "ffma"), TRIO("sm", "hadd", "hmul", "hfma"),
                                                TRIO("sm", "dadd", "dmul", "dfma") };
            assert_int_equal(passes_of("GH100", row8, N(row8)), 2);
            assert_int_equal(passes_of("GH100", row9, N(row9)), 2);
            assert_int_equal(passes_of("GH100", h16, N(h16)), 3);
            assert_int_equal(passes_of("GH100", hbf, N(hbf)), 2);
            assert_int_equal(passes_of("GH100", all9, N(all9)), 1);
        } else {
            static const char *const row8[] = { BASE5, TRIO("smsp", "fadd", "fmul", "ffma") };
            static const char *const row9[] = { BASE5, TRIO("smsp", "fadd", "fmul", "ffma"),
                                                "sm__ops_path_tensor_src_tf32_dst_fp32.sum" };
            static const char *const h16[] = { BASE5, TRIO("smsp", "hadd", "hmul", "hfma"),
                                               "sm__ops_path_tensor_src_fp16.sum" };
            static const char *const hbf[] = { BASE5, TRIO("smsp", "hadd", "hmul", "hfma"),
                                               "sm__ops_path_tensor_src_bf16_dst_fp32.sum" };
            static const char *const all9[] = { TRIO("smsp", "fadd", "fmul", "ffma"),
                                                TRIO("smsp", "hadd", "hmul", "hfma"),
                                                TRIO("smsp", "dadd", "dmul", "dfma") };
            assert_int_equal(passes_of("GH100", row8, N(row8)), 2);
            assert_int_equal(passes_of("GH100", row9, N(row9)), 2);
            assert_int_equal(passes_of("GH100", h16, N(h16)), 3);
            assert_int_equal(passes_of("GH100", hbf, N(hbf)), 2);
            assert_int_equal(passes_of("GH100", all9, N(all9)), 1);
        }
        print_message("GH100 table rows with %s__ SASS names: as in the note\n", pfx[p]);
    }
    {
        /* "individually, src_fp16 needs 2 passes; the other tensor paths need 1" */
        static const char *const f16[] = { "sm__ops_path_tensor_src_fp16.sum" };
        static const char *const bf[] = { "sm__ops_path_tensor_src_bf16_dst_fp32.sum" };
        static const char *const tf[] = { "sm__ops_path_tensor_src_tf32_dst_fp32.sum" };
        assert_int_equal(passes_of("GH100", f16, 1), 2);
        assert_int_equal(passes_of("GH100", bf, 1), 1);
        assert_int_equal(passes_of("GH100", tf, 1), 1);
    }

    /* The production sets are unions of those rows: base 5 (1 pass) + all 9
     * SASS counters (1 pass of their own) + the tensor path, which rides in
     * the hardware pass except src_fp16 (2 passes by itself, 3 with the FP16
     * trio + base 5 per the table).  So fp32: 2, tf32: 2, fp16: 3, bf16: 2. */
    static const int32_t want[OC_MATH_COUNT] = { [OC_MATH_FP32] = 2, [OC_MATH_TF32] = 2, [OC_MATH_FP16] = 3,
                                                 [OC_MATH_BF16] = 2 };
    for (int32_t math = 0; math < OC_MATH_COUNT; math++) {
        struct oc_rp_metric_set s;
        char err[256];
        assert_int_equal(oc_rp_metrics_for_chip("GH100", math, &s), 0);
        assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err), 0);
        assert_int_equal(s.passes, want[math]);
    }
}

static void gb202_dram_names(void **state)
{
    (void)state;
    if (!chip_supported[4])
        fail_msg("CUPTI does not list GB202");
    /* the reason for the rule: dram__bytes_read does not exist on GB202 */
    static const char *const old[] = { "dram__bytes_read.sum" };
    struct oc_rp_metric_set s = hand_set("GB202", old, 1);
    char err[256] = "";
    assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "dram__bytes_read.sum"));
    assert_non_null(strstr(err, "GB202"));

    assert_int_equal(oc_rp_metrics_for_chip("GB202", OC_MATH_BF16, &s), 0);
    assert_string_equal(name_of_role(&s, OC_M_DRAM_READ), "dram__bytes_op_read.sum");
    assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err), 0);
}

static void configure_errors(void **state)
{
    (void)state;
    if (!chip_supported[0])
        fail_msg("CUPTI does not list GH100");
    char err[256];
    uint8_t *cfg = (uint8_t *)&err; /* must be reset to NULL on failure */
    size_t cfg_size = 123;

    /* an unknown metric name is reported by name */
    static const char *const bad[] = { "gpu__time_duration.sum", "smsp__no_such_counter.sum" };
    struct oc_rp_metric_set s = hand_set("GH100", bad, 2);
    assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, &cfg, &cfg_size, err, sizeof err), -1);
    assert_null(cfg);
    assert_int_equal(cfg_size, 0);
    assert_non_null(strstr(err, "smsp__no_such_counter.sum"));
    assert_null(strchr(err, '\n'));

    /* an unknown chip */
    s = hand_set("XX999", bad, 1);
    assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "XX999"));

    /* empty set, NULL set, image with no size */
    s = hand_set("GH100", bad, 0);
    assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, err, sizeof err), -1);
    assert_int_equal(oc_rp_metrics_configure(NULL, NULL, 0, NULL, NULL, err, sizeof err), -1);
    s = hand_set("GH100", bad, 1);
    static const uint8_t img[8];
    assert_int_equal(oc_rp_metrics_configure(&s, img, 0, NULL, NULL, err, sizeof err), -1);
    /* NULL err is allowed */
    assert_int_equal(oc_rp_metrics_configure(&s, NULL, 0, NULL, NULL, NULL, 0), 0);
    assert_int_equal(s.passes, 1);
}

/* ------------------------------------------------------------------------ */

/* 1 when the Host API lists every test chip; else says what is missing */
static int host_api_available(void)
{
    CUpti_Profiler_Host_GetSupportedChips_Params sc = {
        .structSize = CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE,
    };
    CUptiResult r = cuptiProfilerHostGetSupportedChips(&sc);
    if (r != CUPTI_SUCCESS || sc.numChips == 0 || !sc.ppChipNames) {
        const char *s = NULL;
        cuptiGetResultString(r, &s);
        printf("skipped: the CUPTI Profiler Host API is unavailable (%s)\n", s ? s : "?");
        return 0;
    }
    int all = 1;
    for (size_t c = 0; c < N_TEST_CHIPS; c++) {
        for (size_t i = 0; i < sc.numChips; i++)
            if (sc.ppChipNames[i] && strcmp(sc.ppChipNames[i], test_chips[c]) == 0)
                chip_supported[c] = 1;
        if (!chip_supported[c]) {
            printf("skipped: the installed CUPTI does not list %s\n", test_chips[c]);
            all = 0;
        }
    }
    return all;
}

int main(void)
{
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(names_per_chip),
        cmocka_unit_test(counters_from_values),
    };
    const struct CMUnitTest host[] = {
        cmocka_unit_test(all_sets_validate),
        cmocka_unit_test(gh100_pass_counts),
        cmocka_unit_test(gb202_dram_names),
        cmocka_unit_test(configure_errors),
    };
    if (!host_api_available())
        return 77; /* before any test: the whole test is skipped, none alone */
    int failed = cmocka_run_group_tests_name("replay_metrics_pure", pure, NULL, NULL);
    failed += cmocka_run_group_tests_name("replay_metrics_cupti_host", host, NULL, NULL);
    return failed ? 1 : 0;
}
