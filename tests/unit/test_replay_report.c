/*
 * test_replay_report.c — the replay report (reports/replay.c) rendered from
 * results made up here, as the plugin would return them: the derived
 * figures in the JSON against hand-computed values, the text table's rows,
 * and the JSON read back by the merge reader (replay/results.c). Runs
 * without a GPU; the numbers are invented, the arithmetic on them is not.
 */
#include "testutil.h"

#include "../../replay/plan_host.h"
#include "../../replay/replay.h"
#include "../../replay/results.h"
#include "../../reports/report.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct mem {
    char *p;
    size_t n;
};

static int mem_write(void *arg, const char *data, size_t n) {
    struct mem *m = arg;
    char *q = realloc(m->p, m->n + n + 1);
    if (!q)
        return -1;
    memcpy(q + m->n, data, n);
    m->p = q;
    m->n += n;
    m->p[m->n] = 0;
    return 0;
}

static void replay_report(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(64, 128), NULL));
    pbm_init(&pm, pb_tensor_f32("w", 2, TU_DIMS(128, 256)));
    pbm_node(&pm, pb_node("mm", "MatMul", TU_LIST("x", "w"), TU_LIST("y"), 0, NULL));
    pbm_node(&pm, pb_node("r", "Reshape", TU_LIST("y", "shape"), TU_LIST("z"), 0, NULL));
    pbm_init(&pm, pb_tensor_i64("shape", 1, TU_DIMS(1), TU_DIMS(-1)));
    pbm_output(&pm, pb_value_info("z", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* MatMul 64x128 @ 128x256: 2,097,152 MACs, 4,194,304 FLOPs */
    assert_int_equal(tu_node(an, "mm")->cost.flops, 4194304);
    struct oc_rp_plan plans[2];
    for (int i = 0; i < 2; i++)
        oc_rp_plan_node(an, an->graph->order[i], NULL, &plans[i]);
    assert_int_equal(plans[0].kind, OC_RPK_GEMM);
    assert_int_equal(plans[1].kind, OC_RPK_ALIAS);
    /* 4,194,304 FP32 FLOPs counted (ratio 1), 8 us, 131,072 + 65,536 DRAM
       bytes: 524.288 GFLOP/s, 24.576 GB/s, intensity 4194304 / 196608 =
       21.33 FLOP/B. Device: 100 SMs x 64 lanes x 2 x 1 GHz = 12.8 TFLOP/s;
       2 x 1 GHz x 4096 bits / 8 = 1024 GB/s. 524.288e9 / 12.8e12 = 4.096 %
       of FP32 peak, 24.576 / 1024 = 2.4 % of DRAM: compute bound */
    struct oc_rp_result res[2] = {
        {.status = OC_RPS_MEASURED, .call = "cublasGemmEx", .algo = "COMPUTE_32F pedantic", .reps = 50,
         .time_median_ns = 8000, .time_p10_ns = 7900, .time_p90_ns = 8100, .time_min_ns = 7800, .n_kernels = 1,
         .kernels = "sgemm_128x64_nn", .has_counters = true, .fp32_flops = 4194304, .dram_read_bytes = 131072,
         .dram_write_bytes = 65536},
        {.status = OC_RPS_ALIAS, .reason = "a view or metadata: no kernel runs"},
    };
    struct oc_rp_device dev = {.name = "Test GPU", .chip = "GX100", .cc_major = 8, .cc_minor = 0, .sm_count = 100,
                               .sm_clock_khz = 1000000, .mem_clock_khz = 1000000, .mem_bus_bits = 4096,
                               .counters = true};
    struct oc_rp_options o = {.warmup_ms = 50, .reps = 50, .counters = true, .seed = 1};
    struct oc_replay_report r = {.plans = plans, .results = res, .n = 2, .device = &dev, .opts = &o,
                                 .plugin_build = "test"};
    struct mem m = {0};
    struct oc_report_spec spec = {.version = 1, .format = OC_FORMAT_JSON, .model_path = "t.onnx",
                                  .write = mem_write, .write_arg = &m};
    struct oc_diag d = {0};
    assert_int_equal(oc_report_replay(an, &r, &spec, &d), OC_OK);
    json_error_t je;
    json_t *doc = json_loads(m.p, 0, &je);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), "onnxcost-replay/1");
    json_t *n0 = json_array_get(json_object_get(doc, "nodes"), 0);
    json_t *dv = json_object_get(n0, "derived");
    assert_true(fabs(json_real_value(json_object_get(dv, "flops_ratio")) - 1.0) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(dv, "flops_per_s")) - 524.288e9) < 1);
    assert_true(fabs(json_real_value(json_object_get(dv, "dram_bytes_per_s")) - 24.576e9) < 1);
    assert_true(fabs(json_real_value(json_object_get(dv, "intensity")) - 4194304.0 / 196608.0) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(dv, "pct_peak_fp32")) - 4.096) < 1e-9);
    assert_true(fabs(json_real_value(json_object_get(dv, "pct_peak_dram")) - 2.4) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(dv, "bound")), "compute");
    assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "nodes"), 1), "status")),
                        "alias");
    json_decref(doc);

    /* the JSON reads back for merge */
    char path[] = "/tmp/oc_rp_report_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, m.p, m.n), (ssize_t)m.n);
    close(fd);
    struct oc_rp_file f;
    assert_int_equal(oc_rp_file_read(path, &f, &d), OC_OK);
    assert_int_equal(f.n_nodes, 2);
    assert_true(f.nodes[0].time_ns == 8000 && f.nodes[0].flops == 4194304 && f.nodes[0].dram_bytes == 196608);
    assert_string_equal(f.device, "Test GPU");
    oc_rp_file_free(&f);
    unlink(path);

    /* the text table: the row, the totals line and the counts */
    free(m.p);
    memset(&m, 0, sizeof m);
    spec.format = OC_FORMAT_TEXT;
    assert_int_equal(oc_report_replay(an, &r, &spec, &d), OC_OK);
    assert_non_null(strstr(m.p, "Peaks from the device's attributes: FP32 12.8 TFLOP/s, DRAM 1024 GB/s"));
    /* 8.00 us, spread (8100 - 7900) / 8000 = 2.5 %, 4,194,304 both, ratio
       1.000, 0.20 MB, 0.52 TFLOP/s, 25 GB/s, 4.1 % */
    assert_non_null(strstr(m.p, "8.00          2.5   4,194,304    4,194,304       1.000       0.20     0.52"));
    assert_non_null(strstr(m.p, "2 nodes: 1 measured, 1 aliases (no kernel), 0 not replayed, 0 failed"));
    free(m.p);

    /* HTML: the measured point at 21.3 FLOP/B and 5.24e+11 FLOP/s,
       compute-bound; the estimate's point at 4,194,304 FLOPs over its
       bytes (x 64x128 + w 128x256 + y 64x256 floats = 229,376 B: 18.3
       FLOP/B) and the same time; one document */
    memset(&m, 0, sizeof m);
    spec.format = OC_FORMAT_HTML;
    assert_int_equal(oc_report_replay(an, &r, &spec, &d), OC_OK);
    assert_non_null(strstr(m.p, "<title>mm (measured): 21.3 FLOP/B, 5.24e+11 FLOP/s, compute-bound</title>"));
    assert_non_null(strstr(m.p, "<title>mm (estimate): 18.3 FLOP/B, 5.24e+11 FLOP/s</title>"));
    assert_non_null(strstr(m.p, "FP32 12.8 TFLOP/s, ridge 12.5 FLOP/B"));
    assert_int_equal(strstr(m.p, "<html") - m.p, strlen("<!DOCTYPE html>\n"));
    assert_null(strstr(strstr(m.p, "</html>") + 1, "<html"));
    free(m.p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(replay_report, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
