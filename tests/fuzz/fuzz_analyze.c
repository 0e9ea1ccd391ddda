/*
 * fuzz_analyze.c — libFuzzer target over the whole static path: load a
 * model from bytes, analyze it (every shape and cost rule it reaches),
 * the memory, training and GPU estimates, the lint rules (weights compared
 * from the bytes), and every report format into a discarding writer. Built with -DONNXCOST_FUZZ=ON and clang
 * (docs/ROBUSTNESS.md); seeds: fixtures/ (fixtures/corpus: real-world files).
 */
#include "../../analyzer/analyze.h"
#include "../../views/perf/perf.h"
#include "../../analyzer/model.h"
#include "../../views/lint/lint.h"
#include "../../views/training.h"
#include "../../reports/report.h"

#include <stddef.h>
#include <stdint.h>

static int oc_discard(void *arg, const char *data, size_t n) {
    (void)arg;
    (void)data;
    (void)n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct oc_diag d = {0};
    struct oc_model *m = NULL;
    if (oc_model_load_buffer(data, size, NULL, &m, &d) != OC_OK)
        return 0;
    struct oc_analyze_opts opts = {0};
    opts.batch = 2;
    struct oc_analysis *an = NULL;
    if (oc_analyze(m, &opts, &an, &d) == OC_OK) {
        struct oc_training tr;
        oc_training_estimate(an, OC_OPT_ADAM, 1000, OC_SAVED_FOLDED_BN | OC_SAVED_FUSED_POINTWISE, &tr);
        struct oc_lint_opts lo;
        oc_lint_defaults(&lo);
        lo.min_dup_bytes = 1;
        struct oc_lint_result lr;
        if (oc_lint_run(m, an, &lo, &lr, &d) == OC_OK) {
            static const enum oc_format lf[] = {OC_FORMAT_TEXT, OC_FORMAT_JSON, OC_FORMAT_MD, OC_FORMAT_SARIF};
            for (size_t f = 0; f < sizeof lf / sizeof *lf; f++) {
                struct oc_report_spec spec = {.version = 1, .format = lf[f], .model_path = "fuzz.onnx",
                                              .write = oc_discard};
                struct oc_diag rd = {0};
                (void)oc_report_lint(an, &lr, &spec, &rd);
            }
            oc_lint_free(&lr);
        }
        struct oc_perf_opts po;
        oc_perf_defaults(&po);
        struct oc_perf perf = {0};
        struct oc_pipeline pl = {0};
        struct oc_data_parallel dp;
        const struct oc_gpu *gpu = oc_gpu_find("a100");
        if (oc_perf_estimate(an, gpu, &po, &perf) == OC_OK) {
            oc_data_parallel(&perf, an, &tr, 4, &dp);
            (void)oc_pipeline_split(&perf, an, 3, OC_BALANCE_TIME, &pl);
            struct oc_gpu_report gr = {&perf, &dp, &pl, OC_BALANCE_TIME, NULL, NULL, NULL};
            for (int f = 0; f < OC_FORMAT_COUNT; f++) {
                struct oc_report_spec spec = {.version = 1, .format = (enum oc_format)f, .model_path = "fuzz.onnx",
                                              .write = oc_discard, .training = &tr, .gpu = &gr};
                struct oc_diag rd = {0};
                (void)oc_report_render(an, &spec, &rd);
            }
        }
        oc_pipeline_free(&pl);
        oc_perf_free(&perf);
    }
    oc_analysis_free(an);
    oc_model_free(m);
    return 0;
}
