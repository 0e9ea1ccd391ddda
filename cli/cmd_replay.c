/*
 * cmd_replay.c — `onnxcost replay MODEL [options]`: analyze, plan each node
 * (replay/plan.c), then run the plans on a GPU through the plugin
 * (libonnxcost_gpu.so) and print measured beside estimated. `--plan` stops
 * before the GPU: it says what each node would run, on any machine.
 */
#include "cli.h"

#include "../analyzer/analyze.h"
#include "../analyzer/model.h"
#include "../replay/plan_host.h"
#include "../replay/replay.h"
#include "../reports/report.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char oc_replay_help[] =
    "usage: onnxcost replay MODEL.onnx [options]\n"
    "\n"
    "Runs every node of the model on an NVIDIA GPU at its inferred shapes, with\n"
    "random inputs in valid ranges, through cuDNN, cuBLAS or onnxcost's own\n"
    "kernels, and prints per node the measured kernel time (CUPTI activity\n"
    "records, median of the repetitions), the measured FLOPs and DRAM bytes\n"
    "(CUPTI range profiler) beside the static estimate, with the ratio,\n"
    "achieved FLOP/s and GB/s, percent of the device's peak and the bound.\n"
    "Nodes that cannot be replayed are listed with the reason. Needs the GPU\n"
    "plugin (built where CMake finds CUDA, cuDNN, cuBLAS and CUPTI) and a GPU.\n"
    "\n"
    "options:\n"
    "  --dim NAME=N      bind a symbolic dim (repeatable); --batch N the batch dim\n"
    "  --plan            print what each node would run and stop (no GPU needed)\n"
    "  --nodes REGEX     replay only nodes whose name or op type matches (POSIX ERE)\n"
    "  --warmup MS       warm-up per node, by time (default 50)\n"
    "  --reps N          timed repetitions per node (default: as many as fit in\n"
    "                    --budget MS, at least 10, at most 1000)\n"
    "  --budget MS       time budget per node when --reps is not given (default 100)\n"
    "  --dtype NAME      replay float tensors as fp32 (default: the model's), fp16 or bf16\n"
    "  --math MODE       fp32 (strict FP32 FMA, default), tf32 (TF32 tensor cores for\n"
    "                    Conv/Gemm/MatMul) or fp16 (tensor cores allowed)\n"
    "  --device N        CUDA device ordinal (default 0)\n"
    "  --no-counters     timing only (no CUPTI profiler session)\n"
    "  --cold            flush the L2 before every repetition (default: warm L2)\n"
    "  --seed N          input data seed (default 1)\n"
    "  --format FMT      text (default), md, json (schema onnxcost-replay/1) or html\n"
    "                    (the table and a roofline of the measured points)\n"
    "  -o, --output FILE write to FILE\n"
    "\n"
    "exit codes: 0 ok; 2 bad model, bad usage, or no GPU / plugin / driver\n"
    "            (one line saying which); 3 out of memory or output not writable\n"
    "\n"
    "examples:\n"
    "  onnxcost replay resnet50.onnx --batch 8 --format json -o a100.json\n"
    "  onnxcost replay gpt2.onnx --dim batch=1 --dim sequence=128 --nodes 'MatMul|Gemm'\n"
    "  onnxcost merge a100.json v100.json\n";

static void oc_replay_progress(void *arg, int32_t done, int32_t total) {
    (void)arg;
    fprintf(stderr, "\rreplay %d/%d", done, total);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

static bool oc_parse_ms(const char *s, double *out) {
    if (!s || !*s)
        return false;
    char *end;
    double v = strtod(s, &end);
    if (*end || !(v >= 0) || v > 3.6e6)
        return false;
    *out = v;
    return true;
}

int oc_cmd_replay(int argc, char **argv) {
    const char *path = NULL, *out_path = NULL, *nodes_re = NULL, *v;
    enum oc_format fmt = OC_FORMAT_TEXT;
    struct oc_rp_options ro = {.device = 0, .warmup_ms = 50, .reps = 0, .budget_ms = 100, .flush_l2 = false,
                               .math = OC_RP_MATH_FP32, .counters = true, .seed = 1};
    struct oc_rp_plan_opts po = {0};
    struct oc_analyze_opts opts = {0};
    struct oc_load_opts lopts = {0};
    bool plan_only = false;
    int rc = OC_EXIT_OK;
    struct oc_binding *dims = calloc((size_t)argc + 1, sizeof *dims);
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_rp_plan *plans = NULL;
    struct oc_rp_result *results = NULL;
    regex_t re;
    bool have_re = false;
    if (!dims)
        return OC_EXIT_INTERNAL;
    opts.dims = dims;
    for (int i = 1, limit_opt, bind_opt; i < argc; i++) {
        const char *a = argv[i];
        int64_t n;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(oc_replay_help, stdout);
            rc = oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
            goto done;
        } else if (strcmp(a, "--plan") == 0) {
            plan_only = true;
        } else if (strcmp(a, "--no-counters") == 0) {
            ro.counters = false;
        } else if (strcmp(a, "--cold") == 0) {
            ro.flush_l2 = true;
        } else if (oc_cli_option(argc, argv, &i, "--format", &v)) {
            if (!v || !oc_format_parse(v, &fmt) || fmt == OC_FORMAT_CSV) {
                rc = oc_cli_usage_error("replay: --format takes text, md, json or html");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--output", &v) || oc_cli_option(argc, argv, &i, "-o", &v)) {
            if (!v || !v[0]) {
                rc = oc_cli_usage_error("replay: --output takes a file name");
                goto done;
            }
            out_path = v;
        } else if (oc_cli_option(argc, argv, &i, "--nodes", &v)) {
            if (!v || have_re) {
                rc = oc_cli_usage_error("replay: --nodes takes one regular expression");
                goto done;
            }
            int e = regcomp(&re, v, REG_EXTENDED | REG_NOSUB);
            if (e) {
                char msg[128];
                regerror(e, &re, msg, sizeof msg);
                rc = oc_cli_usage_error("replay: --nodes '%s': %s", v, msg);
                goto done;
            }
            have_re = true;
            nodes_re = v;
        } else if (oc_cli_option(argc, argv, &i, "--warmup", &v)) {
            if (!oc_parse_ms(v, &ro.warmup_ms)) {
                rc = oc_cli_usage_error("replay: --warmup takes milliseconds, got '%s'", v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--budget", &v)) {
            if (!oc_parse_ms(v, &ro.budget_ms) || ro.budget_ms <= 0) {
                rc = oc_cli_usage_error("replay: --budget takes milliseconds, got '%s'", v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--reps", &v)) {
            if (!oc_cli_parse_count(v, &n) || n < 1 || n > 100000) {
                rc = oc_cli_usage_error("replay: --reps takes 1 to 100000, got '%s'", v ? v : "");
                goto done;
            }
            ro.reps = (int32_t)n;
        } else if (oc_cli_option(argc, argv, &i, "--device", &v)) {
            if (!oc_cli_parse_count(v, &n) || n > 1023) {
                rc = oc_cli_usage_error("replay: --device takes a device ordinal, got '%s'", v ? v : "");
                goto done;
            }
            ro.device = (int32_t)n;
        } else if (oc_cli_option(argc, argv, &i, "--seed", &v)) {
            if (!oc_cli_parse_count(v, &n)) {
                rc = oc_cli_usage_error("replay: --seed takes a non-negative integer, got '%s'", v ? v : "");
                goto done;
            }
            ro.seed = (uint64_t)n;
        } else if (oc_cli_option(argc, argv, &i, "--dtype", &v)) {
            if (v && strcmp(v, "fp32") == 0)
                po.float_dtype = 1;
            else if (v && strcmp(v, "fp16") == 0)
                po.float_dtype = 10;
            else if (v && strcmp(v, "bf16") == 0)
                po.float_dtype = 16;
            else {
                rc = oc_cli_usage_error("replay: --dtype takes fp32, fp16 or bf16");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--math", &v)) {
            if (v && strcmp(v, "fp32") == 0)
                ro.math = OC_RP_MATH_FP32;
            else if (v && strcmp(v, "tf32") == 0)
                ro.math = OC_RP_MATH_TF32;
            else if (v && strcmp(v, "fp16") == 0)
                ro.math = OC_RP_MATH_FP16;
            else {
                rc = oc_cli_usage_error("replay: --math takes fp32, tf32 or fp16");
                goto done;
            }
        } else if ((bind_opt = oc_cli_bind_option(argc, argv, &i, "replay: ", &opts, dims)) != 0) {
            if (bind_opt < 0) {
                rc = bind_opt == -1 ? OC_EXIT_INPUT : OC_EXIT_INTERNAL;
                goto done;
            }
        } else if ((limit_opt = oc_cli_limit_option(argc, argv, &i, &lopts.limits)) != 0) {
            if (limit_opt < 0) {
                rc = OC_EXIT_INPUT;
                goto done;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = oc_cli_usage_error("replay: unknown option '%s' (try 'onnxcost replay --help')", a);
            goto done;
        } else if (!path) {
            path = a;
        } else {
            rc = oc_cli_usage_error("replay: more than one model given");
            goto done;
        }
    }
    if (!path) {
        rc = oc_cli_usage_error("replay: no model given (try 'onnxcost replay --help')");
        goto done;
    }
    if (plan_only && fmt == OC_FORMAT_HTML) {
        rc = oc_cli_usage_error("replay: --plan prints as text, md or json (html shows measurements)");
        goto done;
    }
    struct oc_diag d = {0};
    enum oc_status st = oc_model_load(path, &lopts, &m, &d);
    if (st == OC_OK)
        st = oc_analyze(m, &opts, &an, &d);
    if (st != OC_OK) {
        oc_cli_diag("error", path, d.msg);
        rc = st == OC_ERR_NOMEM ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
        goto done;
    }
    /* one plan per main-graph node, in execution order */
    const struct oc_graph *g = an->graph;
    plans = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *plans);
    results = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *results);
    if (!plans || !results) {
        oc_cli_diag("error", path, "out of memory planning the replay");
        rc = OC_EXIT_INTERNAL;
        goto done;
    }
    int32_t n_plans = g->n_nodes;
    for (int32_t k = 0; k < n_plans; k++) {
        struct oc_rp_plan *p = &plans[k];
        oc_rp_plan_node(an, g->order[k], &po, p);
        if (have_re && regexec(&re, p->name ? p->name : "", 0, NULL, 0) != 0 &&
            regexec(&re, p->op_type, 0, NULL, 0) != 0) {
            if (p->kind != OC_RPK_NONE)
                snprintf(p->reason, sizeof p->reason, "left out by --nodes '%s'", nodes_re);
            p->kind = OC_RPK_NONE;
        }
    }
    struct oc_replay_report rep = {.plans = plans, .n = n_plans, .opts = &ro};
    struct oc_rp_device dev = {0};
    if (!plan_only) {
        char err[512] = "";
        const struct oc_replay_api *api = oc_replay_load(err, sizeof err);
        if (!api || api->probe(&ro, &dev, err, sizeof err) != 0) {
            oc_cli_diag("error", path, err);
            rc = OC_EXIT_INPUT;
            goto done;
        }
        if (api->run(&ro, plans, n_plans, results, isatty(STDERR_FILENO) ? oc_replay_progress : NULL, NULL, err,
                     sizeof err) != 0) {
            oc_cli_diag("error", path, err);
            api->close();
            rc = OC_EXIT_INPUT;
            goto done;
        }
        api->close();
        rep.results = results;
        rep.device = &dev;
        rep.plugin_build = api->build;
    }
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
        oc_cli_usage_error("%s: cannot open for writing", out_path);
        rc = OC_EXIT_INTERNAL;
        goto done;
    }
    struct oc_report_spec spec = {.version = 1, .format = fmt, .model_path = path, .write = oc_cli_write_file,
                                  .write_arg = f};
    bool ok = oc_report_replay(an, &rep, &spec, &d) == OC_OK;
    ok = (f == stdout ? oc_cli_close_stdout() : fclose(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "onnxcost: error: %s: cannot write the report\n", out_path ? out_path : "standard output");
        rc = OC_EXIT_INTERNAL;
    }
done:
    if (have_re)
        regfree(&re);
    free(plans);
    free(results);
    oc_analysis_free(an);
    oc_model_free(m);
    for (int32_t k = 0; k < opts.n_dims; k++)
        free((void *)dims[k].name);
    free(dims);
    return rc;
}
