/*
 * cmd_probe_gpu.c — `onnxcost probe --gpu -o SPEC.json`: the kernel sweep
 * (replay/ksweep.h) replayed at each precision asked for, each measured
 * node a sample of its family's table (replay/ktables.h), written as a
 * --gpu-spec file as `onnxcost tables` writes one.
 */
#include "cli.h"
#include "groups.h"
#include "probe_gpu.h"

#include "../analyzer/analyze.h"
#include "../analyzer/dtype.h"
#include "../analyzer/model.h"
#include "../analyzer/outfile.h"
#include "../replay/isolated.h"
#include "../replay/ksweep.h"
#include "../replay/ktables.h"
#include "../replay/plan_host.h"
#include "../reports/report.h"
#include "../views/perf/perf.h"

#include <stdlib.h>
#include <string.h>

/* A precision --math names: the replay's data type and math mode. */
struct oc_probe_prec {
    const char *name;
    int32_t dtype;       /* ONNX code of the data (the tables' key)          */
    int32_t price_bits;  /* the analysis prices float tensors at this width  */
    int32_t rp_math;     /* enum oc_rp_math_mode                             */
};
static const struct oc_probe_prec oc_probe_precs[] = {
    {"fp32", OC_DT_FLOAT, 32, OC_RP_MATH_FP32},
    {"tf32", OC_DT_FLOAT, 32, OC_RP_MATH_TF32},
    {"fp16", OC_DT_FLOAT16, 16, OC_RP_MATH_FP16},
    {"bf16", OC_DT_BFLOAT16, 16, OC_RP_MATH_FP16},
};
enum { OC_PROBE_N_PRECS = 4 };

/* "fp32,fp16" as indexes into oc_probe_precs; 0 when a name is unknown. */
static int32_t oc_probe_precs_parse(const char *list, int32_t *out) {
    int32_t n = 0;
    const char *p = list;
    while (p && *p) {
        size_t len = strcspn(p, ",");
        int32_t k = 0;
        while (k < OC_PROBE_N_PRECS &&
               !(strlen(oc_probe_precs[k].name) == len && strncmp(p, oc_probe_precs[k].name, len) == 0))
            k++;
        if (k == OC_PROBE_N_PRECS)
            return 0;
        bool seen = false;
        for (int32_t i = 0; i < n; i++)
            seen |= out[i] == k;
        if (!seen)
            out[n++] = k;
        p += len + (p[len] == ',');
    }
    return n;
}

/* The sweep's progress over every precision; the node that runs next is
   named, so that a log cut short says where it stopped. */
struct oc_probe_progress {
    int32_t before, all;             /* nodes before this precision, all nodes */
    const struct oc_rp_plan *plans; /* this precision's plans                  */
    int32_t n;
    char what[48];
};

static void oc_probe_progress(void *arg, int32_t done, int32_t total) {
    const struct oc_probe_progress *p = arg;
    (void)total;
    oc_cli_progress_named(p->what, p->before + done, p->all,
                          p->plans && done >= 0 && p->n > 0 ? p->plans[done % p->n].name : NULL);
}

/* The memory-bound kinds' tables are keyed by data type alone: a second
   precision of the same data type (tf32 after fp32) runs the nodes of the
   other families only (arg: the analysis' graph). */
static bool oc_probe_compute_only(void *arg, const struct oc_rp_plan *p) {
    const struct oc_graph *g = arg;
    if (p->node < 0 || p->node >= g->n_nodes)
        return false;
    struct oc_kfeat f;
    oc_kernel_features(g, &g->nodes[p->node], false, &f); /* a GPU's sweep: no NCHWc */
    return f.family != OC_KF_NONE && !oc_kfamily_memory(f.family);
}

/* One precision: the sweep analyzed at its width, planned and replayed (the
 * products and convolutions only when compute_only), the measured nodes
 * added to t. */
static int oc_probe_gpu_one(const struct oc_probe_gpu_args *a, const struct oc_model *m,
                            const struct oc_probe_prec *pr, bool compute_only, struct oc_probe_progress *progress,
                            struct oc_ktables *t, struct oc_ktables_file *fr, struct oc_replay_outcome *outcome) {
    const char *what = "the kernel sweep";
    struct oc_analyze_opts opts = {.price_bits = pr->price_bits};
    struct oc_analysis *an = NULL;
    struct oc_rp_plan *plans = NULL;
    struct oc_rp_result *results = NULL;
    struct oc_diag d = {0};
    int32_t n = 0;
    int rc = OC_EXIT_OK;
    enum oc_status st = oc_analyze(m, &opts, &an, &d);
    if (st != OC_OK) {
        rc = oc_cli_fail(what, st, d.msg);
        goto done;
    }
    struct oc_rp_plan_opts po = {.float_dtype = pr->dtype};
    if (!oc_rp_plan_graph(an, &po, compute_only ? oc_probe_compute_only : NULL, an->graph,
                          "measured at an earlier precision of this data type", &plans, &n) ||
        !(results = calloc((size_t)n + 1, sizeof *results))) {
        rc = oc_cli_fail(what, OC_ERR_NOMEM, "out of memory planning the sweep");
        goto done;
    }
    progress->plans = plans;
    progress->n = n;
    snprintf(progress->what, sizeof progress->what, "probe --gpu (%s)", pr->name);
    struct oc_rp_options ro = {.device = (int32_t)a->device,
                               .warmup_ms = 10,
                               .budget_ms = a->budget_ms,
                               .math = pr->rp_math,
                               .counters = false,
                               .seed = 1};
    struct oc_replay_job job = {.opts = &ro,
                                .plans = plans,
                                .n = n,
                                .node_timeout_s = a->node_timeout_s,
                                .in_process = a->in_process,
                                .progress = oc_cli_progress_on() ? oc_probe_progress : NULL,
                                .progress_arg = progress};
    char err[512] = "";
    if (oc_replay_run_isolated(&job, results, outcome, err, sizeof err) != 0) {
        rc = oc_cli_fail(what, OC_ERR_USAGE, err);
        goto done;
    }
    progress->before += n;
    progress->plans = NULL;
    int32_t lost = 0, first = -1, ran = 0;
    for (int32_t i = 0; i < n; i++)
        if (!compute_only || oc_probe_compute_only(an->graph, &plans[i])) {
            ran++;
            if (results[i].status == OC_RPS_MEASURED)
                continue;
            lost++;
            first = first < 0 ? i : first;
        }
    if (lost) { /* every sweep node has a plan: one not measured is news */
        char msg[OC_RP_REASON + 300];
        snprintf(msg, sizeof msg, "%s: %d of %d sweep nodes not measured (the first, '%s': %s); their shapes keep "
                 "the neighbours' samples", pr->name, (int)lost, (int)ran, plans[first].name ? plans[first].name : "",
                 results[first].reason[0] ? results[first].reason : plans[first].reason);
        oc_cli_diag("warning", what, msg);
    }
    if (oc_ktables_add_results(t, an, plans, results, n, pr->dtype, pr->rp_math, &fr->added) != OC_OK)
        rc = oc_cli_fail(what, OC_ERR_NOMEM, "out of memory");
done:
    free(plans);
    free(results);
    oc_analysis_free(an);
    return rc;
}

/* The device's name and versions, for the tables' source line. */
/* The libraries as the worker loaded them (cudnnGetVersion, the runtime's),
   not the headers the plugin was built with: an H200 image had cuDNN 9.14
   where the plugin was built against 9.19, and the tables are 9.14's. */
static void oc_probe_source(const struct oc_replay_outcome *o, const char *grid, char *out, size_t n) {
    const struct oc_rp_device *d = &o->device;
    snprintf(out, n,
             "%s (sm_%d%d), driver %d.%d, CUDA %d.%d, cuDNN %d.%d.%d, cuBLAS %d.%d.%d (at run time; the plugin: %s): "
             "onnxcost probe --gpu, %s grid",
             d->name, (int)d->cc_major, (int)d->cc_minor, (int)(d->driver_version / 1000),
             (int)(d->driver_version % 1000 / 10), (int)(d->runtime_version / 1000),
             (int)(d->runtime_version % 1000 / 10), (int)(d->cudnn_version / 10000),
             (int)(d->cudnn_version % 10000 / 100), (int)(d->cudnn_version % 100), (int)(d->cublas_version / 10000),
             (int)(d->cublas_version % 10000 / 100), (int)(d->cublas_version % 100), o->build, grid);
}

static int oc_probe_sweep_write(const struct oc_ksweep *sw, const char *path) {
    struct oc_outfile f;
    int rc = oc_cli_open_output(&f, path);
    return rc == OC_EXIT_OK ? oc_cli_close_output(&f, path, fwrite(sw->bytes, 1, sw->len, f.f) == sw->len) : rc;
}

int oc_probe_sweep_model(int32_t grid, const char *path) {
    struct oc_ksweep sw;
    if (oc_ksweep_build((enum oc_ksweep_grid)grid, &sw) != OC_OK)
        return oc_cli_fail("the sweep", OC_ERR_NOMEM, "out of memory");
    int rc = oc_probe_sweep_write(&sw, path);
    oc_ksweep_free(&sw);
    return rc;
}

int oc_probe_gpu(const struct oc_probe_gpu_args *a, int32_t format, const char *out_path) {
    int32_t precs[OC_PROBE_N_PRECS];
    int32_t n_precs = oc_probe_precs_parse(a->maths ? a->maths : "fp32,tf32,fp16,bf16", precs);
    if (!n_precs)
        return oc_cli_usage_error("probe: --math takes a list of fp32, tf32, fp16 and bf16, got '%s'", a->maths);
    bool quick = a->grid && strcmp(a->grid, "quick") == 0;
    if (a->grid && !quick && strcmp(a->grid, "full") != 0)
        return oc_cli_usage_error("probe: --grid takes full or quick, got '%s'", a->grid);
    const struct oc_gpu *like = a->like ? oc_gpu_find(a->like) : NULL;
    if (a->like && (!like || like->cpu))
        return oc_cli_usage_error("probe: --like '%s' is not a built-in GPU (onnxcost gpus lists them)", a->like);
    if (!out_path && !a->sweep_model)
        return oc_cli_usage_error("probe: --gpu writes a spec file: give it with -o SPEC.json");
    struct oc_ksweep sw;
    struct oc_model *m = NULL;
    struct oc_ktables t = {0};
    struct oc_ktables_file fr[OC_PROBE_N_PRECS];
    char labels[OC_PROBE_N_PRECS][64], model[96], source[700];
    struct oc_diag d = {0};
    int rc = OC_EXIT_OK;
    memset(fr, 0, sizeof fr);
    if (oc_ksweep_build(quick ? OC_KSWEEP_QUICK : OC_KSWEEP_FULL, &sw) != OC_OK)
        return oc_cli_fail("the kernel sweep", OC_ERR_NOMEM, "out of memory");
    if (a->sweep_model) { /* the sweep's model itself, for another runtime to time */
        rc = oc_probe_sweep_write(&sw, a->sweep_model);
        goto done;
    }
    struct oc_load_opts lopts = {0};
    enum oc_status st = oc_model_load_buffer(sw.bytes, sw.len, &lopts, &m, &d);
    if (st != OC_OK) {
        rc = oc_cli_fail("the kernel sweep", st, d.msg);
        goto done;
    }
    snprintf(model, sizeof model, "the kernel sweep (%d nodes, %s grid)", (int)sw.n_nodes, quick ? "quick" : "full");
    struct oc_replay_outcome outcome;
    const struct oc_gpu *base = like;
    struct oc_probe_progress progress = {.all = sw.n_nodes * n_precs};
    for (int32_t k = 0; k < n_precs && rc == OC_EXIT_OK; k++) {
        const struct oc_probe_prec *pr = &oc_probe_precs[precs[k]];
        snprintf(labels[k], sizeof labels[k], "--math %s", pr->name);
        fr[k].path = labels[k];
        fr[k].model = model;
        bool seen = false; /* this data type at an earlier precision */
        for (int32_t j = 0; j < k; j++)
            seen |= oc_probe_precs[precs[j]].dtype == pr->dtype;
        rc = oc_probe_gpu_one(a, m, pr, seen, &progress, &t, &fr[k], &outcome);
        if (rc == OC_EXIT_OK && k == 0 && !base && !(base = oc_gpu_find(outcome.device.name))) {
            char msg[512];
            snprintf(msg, sizeof msg, "no built-in GPU is named '%s': give the nearest with --like NAME (onnxcost "
                     "gpus lists them) for the roofs the tables do not cover", outcome.device.name);
            rc = oc_cli_fail("probe", OC_ERR_USAGE, msg);
        }
    }
    if (rc != OC_EXIT_OK)
        goto done;
    oc_probe_source(&outcome, quick ? "quick" : "full", source, sizeof source);
    if (!(t.source = strdup(a->source ? a->source : source))) {
        rc = OC_EXIT_INTERNAL;
        goto done;
    }
    rc = oc_cli_write_kernel_tables(base, &t, fr, n_precs, out_path, a->report, format);
done:
    oc_ktables_free(&t);
    oc_model_free(m);
    oc_ksweep_free(&sw);
    return rc;
}
