/*
 * cmd_replay.c — `onnxcost replay MODEL [options]`: analyze, plan each node
 * (replay/plan.c), then run the plans on a GPU through the plugin
 * (libonnxcost_gpu.so) and print measured beside estimated. `--plan` stops
 * before the GPU: it says what each node would run, on any machine.
 */
#include "cli.h"
#include "groups.h"

#include "../analyzer/analyze.h"
#include "../analyzer/model.h"
#include "../replay/plan_host.h"
#include "../replay/isolated.h"
#include "../replay/replay.h"
#include "../reports/report.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char oc_replay_usage[] = "usage: onnxcost replay MODEL.onnx [options]\n"
                                      "\n"
                                      "Runs every node of the model on an NVIDIA GPU at its inferred shapes, with\n"
                                      "random inputs in valid ranges, through cuDNN, cuBLAS or onnxcost's own\n"
                                      "kernels, and prints per node the measured kernel time (CUPTI activity\n"
                                      "records, median of the repetitions), the measured FLOPs and DRAM bytes\n"
                                      "(CUPTI range profiler) beside the static estimate, with the ratio,\n"
                                      "achieved FLOP/s and GB/s, percent of the device's peak and the bound.\n"
                                      "Nodes that cannot be replayed are listed with the reason. Needs the GPU\n"
                                      "plugin (built where CMake finds CUDA, cuDNN, cuBLAS and CUPTI) and a GPU.\n"
                                      "\n";

static const char oc_replay_footer[] =
    "\n"
    "exit codes: 0 ok; 2 bad model, bad usage, or no GPU / plugin / driver\n"
    "            (one line saying which); 3 out of memory or output not writable\n"
    "\n"
    "examples:\n"
    "  onnxcost replay resnet50.onnx --batch 8 --format json -o a100.json\n"
    "  onnxcost replay gpt2.onnx --dim batch=1 --dim sequence=128 --nodes 'MatMul|Gemm'\n"
    "  onnxcost merge a100.json v100.json\n";

struct oc_replay_args {
    struct oc_rp_options ro;
    struct oc_rp_plan_opts po;
    bool plan_only, no_counters, in_process;
    double node_timeout_s;
    enum oc_format format;
    int64_t reps, device, seed;
    const char *nodes_re;
    regex_t re;
    bool have_re;
};

static bool oc_opt_ms(const struct oc_opt *o, void *dest, const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || x > 3.6e6 || (o->min > 0 && x == 0))
        return false;
    *(double *)((char *)dest + o->offset) = x;
    return true;
}

static bool oc_opt_replay_dtype(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    int32_t *dt = &((struct oc_replay_args *)dest)->po.float_dtype;
    *dt = strcmp(v, "fp32") == 0 ? 1 : strcmp(v, "fp16") == 0 ? 10 : strcmp(v, "bf16") == 0 ? 16 : 0;
    return *dt != 0;
}

static bool oc_opt_replay_math(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    int32_t *m = &((struct oc_replay_args *)dest)->ro.math;
    int32_t k = 0;
    while (k < 3 && strcmp(v, oc_rp_math_names[k]) != 0) /* by enum oc_rp_math_mode */
        k++;
    if (k == 3)
        return false;
    *m = k;
    return true;
}

static bool oc_opt_replay_conv_algo(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    static const char *const names[OC_RP_N_CONV_FWD_ALGOS] = {OC_RP_CONV_FWD_ALGOS};
    for (int32_t k = 0; k < OC_RP_N_CONV_FWD_ALGOS; k++)
        if (strcasecmp(v, names[k]) == 0) {
            ((struct oc_replay_args *)dest)->ro.conv_algo = k + 1;
            return true;
        }
    return false;
}

static int oc_opt_nodes(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_replay_args *a = dest;
    if (!v || a->have_re)
        return oc_cli_usage_error("%s--nodes takes one regular expression", prefix);
    int e = regcomp(&a->re, v, REG_EXTENDED | REG_NOSUB);
    if (e) {
        char msg[128];
        regerror(e, &a->re, msg, sizeof msg);
        return oc_cli_usage_error("%s--nodes '%s': %s", prefix, v, msg);
    }
    a->have_re = true;
    a->nodes_re = v;
    return OC_PARSE_GO;
}

static const struct oc_opt oc_replay_opts[] = {
    OC_OPT_FLAG_ROW("--plan", NULL, "print what each node would run and stop (no GPU needed)",
                    offsetof(struct oc_replay_args, plan_only)),
    OC_OPT_CALL_ROW("--nodes", "REGEX", "replay only nodes whose name or op type matches (POSIX ERE)", oc_opt_nodes),
    OC_OPT_PARSE_ROW("--warmup", "MS", "warm-up per node, by time (default 50)",
                     offsetof(struct oc_replay_args, ro.warmup_ms), 0, 0, "milliseconds", oc_opt_ms),
    OC_OPT_INT_ROW("--reps", "N",
                   "timed repetitions per node (default: as many as fit in\n"
                   "--budget MS, at least 10, at most 1000)",
                   offsetof(struct oc_replay_args, reps), 1, 100000, "an integer from 1 to 100000"),
    OC_OPT_PARSE_ROW("--budget", "MS", "time budget per node when --reps is not given (default 100)",
                     offsetof(struct oc_replay_args, ro.budget_ms), 1, 0, "milliseconds", oc_opt_ms),
    OC_OPT_PARSE_ROW("--dtype", "NAME", "replay float tensors as fp32 (default: the model's), fp16 or bf16", 0, 0, 0,
                     "fp32, fp16 or bf16", oc_opt_replay_dtype),
    OC_OPT_PARSE_ROW("--math", "MODE",
                     "fp32 (strict FP32 FMA, default), tf32 (TF32 tensor cores for\n"
                     "Conv/Gemm/MatMul) or fp16 (tensor cores allowed)",
                     0, 0, 0, "fp32, tf32 or fp16", oc_opt_replay_math),
    OC_OPT_PARSE_ROW("--conv-algo", "NAME",
                     "run every Conv with this cuDNN forward algorithm instead of\n"
                     "the fastest Find reports (IMPLICIT_GEMM, IMPLICIT_PRECOMP_GEMM,\n"
                     "GEMM, DIRECT, FFT, FFT_TILING, WINOGRAD, WINOGRAD_NONFUSED);\n"
                     "a Conv it cannot run fails with the reason",
                     0, 0, 0, "a cuDNN forward algorithm name", oc_opt_replay_conv_algo),
    OC_OPT_INT_ROW("--device", "N", "CUDA device ordinal (default 0)", offsetof(struct oc_replay_args, device), 0, 1023,
                   "a device ordinal"),
    OC_OPT_FLAG_ROW("--no-counters", NULL, "timing only (no CUPTI profiler session)",
                    offsetof(struct oc_replay_args, no_counters)),
    OC_OPT_PARSE_ROW("--node-timeout", "S",
                     "a node that makes no progress for S seconds is killed and\n"
                     "reported as failed; the replay goes on (default 300, 0 = none)",
                     offsetof(struct oc_replay_args, node_timeout_s), 0, 0, "seconds", oc_opt_ms),
    OC_OPT_FLAG_ROW("--in-process", NULL,
                    "run the plugin in this process, not in a worker that may\n"
                    "crash without losing the run (for debuggers)",
                    offsetof(struct oc_replay_args, in_process)),
    OC_OPT_FLAG_ROW("--cold", NULL, "flush the L2 before every repetition (default: warm L2)",
                    offsetof(struct oc_replay_args, ro.flush_l2)),
    OC_OPT_INT_ROW("--seed", "N", "input data seed (default 1)", offsetof(struct oc_replay_args, seed), 0, INT64_MAX,
                   "a non-negative integer"),
    OC_OPT_PARSE_ROW("--format", "FMT",
                     "text (default), md, json (schema onnxcost-replay/1) or html\n"
                     "(the table and a roofline of the measured points)",
                     offsetof(struct oc_replay_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_JSON | 1 << OC_FORMAT_HTML, 0,
                     "text, md, json or html", oc_opt_format),
};
static const struct oc_opt_group oc_replay_group = {NULL, oc_replay_opts,
                                                    sizeof oc_replay_opts / sizeof oc_replay_opts[0]};

static void oc_replay_progress(void *arg, int32_t done, int32_t total) {
    /* the node that runs next is named in lines mode; with counters the
       nodes are run twice (times, then counters): done counts to 2 n */
    const struct oc_replay_report *rep = arg;
    oc_cli_progress_named("replay", done, total,
                          done >= 0 && done < total && rep->n > 0 ? rep->plans[done % rep->n].name : NULL);
}

/* --nodes: a node runs when its name or op type matches */
static bool oc_replay_keep(void *arg, const struct oc_rp_plan *p) {
    const regex_t *re = arg;
    return regexec(re, p->name ? p->name : "", 0, NULL, 0) == 0 || regexec(re, p->op_type, 0, NULL, 0) == 0;
}

int oc_cmd_replay(int argc, char **argv) {
    struct oc_replay_args a = {.ro = {.device = 0,
                                      .warmup_ms = 50,
                                      .reps = 0,
                                      .budget_ms = 100,
                                      .flush_l2 = false,
                                      .math = OC_RP_MATH_FP32,
                                      .counters = true,
                                      .seed = 1},
                               .format = OC_FORMAT_TEXT,
                               .node_timeout_s = 300,
                               .seed = 1};
    struct oc_cli_bind bind;
    struct oc_load_opts lopts = {0};
    const char *out_path = NULL;
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_rp_plan *plans = NULL;
    struct oc_rp_result *results = NULL;
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    const struct oc_opt_use groups[] = {
        {&oc_group_bind, &bind},
        {&oc_replay_group, &a},
        {&oc_group_output, &out_path},
        {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"replay",         "replay: ", oc_replay_usage,
                                    oc_replay_footer, groups,     sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (n_args == 0) {
        rc = oc_cli_usage_error("replay: no model given (try 'onnxcost replay --help')");
        goto done;
    }
    if (n_args > 1) {
        rc = oc_cli_usage_error("replay: more than one model given");
        goto done;
    }
    const char *path = args[0];
    struct oc_rp_options ro = a.ro;
    ro.reps = (int32_t)a.reps;
    ro.device = (int32_t)a.device;
    ro.seed = (uint64_t)a.seed;
    ro.counters = !a.no_counters;
    enum oc_format fmt = a.format;
    bool plan_only = a.plan_only, have_re = a.have_re;
    const char *nodes_re = a.nodes_re;
    struct oc_rp_plan_opts po = a.po;
    struct oc_analyze_opts opts = bind.opts;
    if (plan_only && fmt == OC_FORMAT_HTML) {
        rc = oc_cli_usage_error("replay: --plan prints as text, md or json (html shows measurements)");
        goto done;
    }
    struct oc_diag d = {0};
    if ((rc = oc_cli_load_analyze(path, &lopts, &opts, &m, &an)) != OC_EXIT_OK)
        goto done;
    char left_out[600];
    snprintf(left_out, sizeof left_out, "left out by --nodes '%s'", nodes_re ? nodes_re : "");
    int32_t n_plans = 0;
    if (!oc_rp_plan_graph(an, &po, have_re ? oc_replay_keep : NULL, &a.re, left_out, &plans, &n_plans) ||
        !(results = calloc((size_t)(n_plans ? n_plans : 1), sizeof *results))) {
        oc_cli_diag("error", path, "out of memory planning the replay");
        rc = OC_EXIT_INTERNAL;
        goto done;
    }
    struct oc_replay_report rep = {.plans = plans, .n = n_plans, .opts = &ro, .float_dtype = po.float_dtype};
    struct oc_replay_outcome outcome;
    if (!plan_only) {
        char err[512] = "";
        struct oc_replay_job job = {.opts = &ro,
                                    .plans = plans,
                                    .n = n_plans,
                                    .node_timeout_s = a.node_timeout_s,
                                    .in_process = a.in_process,
                                    .progress = oc_cli_progress_on() ? oc_replay_progress : NULL,
                                    .progress_arg = &rep};
        if (oc_replay_run_isolated(&job, results, &outcome, err, sizeof err) != 0) {
            oc_cli_diag("error", path, err);
            rc = OC_EXIT_INPUT;
            goto done;
        }
        for (int32_t i = 0; i < n_plans; i++)
            if (results[i].crash[0]) {
                char msg[OC_RP_REASON + OC_RP_CRASH + 300];
                snprintf(msg, sizeof msg, "node '%s' (%s): %s [%s]; the nodes after it ran in a new worker",
                         plans[i].name ? plans[i].name : "", plans[i].op_type, results[i].reason, results[i].crash);
                oc_cli_diag("warning", path, msg);
            }
        rep.results = results;
        rep.device = &outcome.device;
        rep.plugin_build = outcome.build;
    }
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, out_path)) != OC_EXIT_OK)
        goto done;
    FILE *f = f_out.f;
    struct oc_report_spec spec = {
        .version = 1, .format = fmt, .model_path = path, .write = oc_cli_write_file, .write_arg = f};
    rc = oc_cli_close_report(&f_out, out_path, oc_report_replay(an, &rep, &spec, &d));
done:
    if (a.have_re)
        regfree(&a.re);
    free(plans);
    free(results);
    oc_analysis_free(an);
    oc_model_free(m);
    oc_cli_bind_free(&bind);
    free(args);
    return rc;
}
