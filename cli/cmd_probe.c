/*
 * cmd_probe.c — `onnxcost probe [-o machine.json]`: this machine's roofs,
 * measured (probe/probe.h), as a table or as the spec file that --machine
 * reads; `onnxcost probe --gpu -o SPEC.json`: the GPU's kernel tables
 * (cmd_probe_gpu.c).
 */
#include "cli.h"
#include "groups.h"
#include "probe_gpu.h"

#include "../probe/probe.h"
#include "../replay/ksweep.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_probe_usage[] =
    "usage: onnxcost probe [-o machine.json] [options]\n"
    "\n"
    "Measures this machine's roofs in a few seconds, as the Empirical Roofline\n"
    "Toolkit does: peak FP32 and FP64 FLOP/s (BF16 and INT8 where the CPU has\n"
    "AVX512_BF16 and AVX512_VNNI) with FMA loops over the widest vector ISA it\n"
    "reports, on one thread and on all; the STREAM triad's bandwidth in each cache\n"
    "level and in DRAM; the clock. The table goes to standard output; -o FILE\n"
    "writes the machine as a spec file (JSON) that --machine FILE reads for time\n"
    "predictions, and --format json prints that file (docs/MEASURED.md). Run it on\n"
    "an idle machine: another busy process lowers every figure.\n"
    "\n"
    "With --sweep-model FILE it writes the runs sweep instead and measures\n"
    "nothing: 72 broadcasts and normalizations over short spans and rows, which\n"
    "onnxcost measure times and calibrate fits a kernel's cost per run on, 6\n"
    "chains of 17 small ops and 69 small products (N and K under 64), the\n"
    "kernel tables' samples of each op's cost.\n"
    "\n"
    "With --calibrate -o SPEC.json it calibrates the CPU in one command: the\n"
    "probe, then the runs sweep and the kernel sweep's quick grid timed through\n"
    "ONNX Runtime (onnxcost measure), the model's factors fitted on them\n"
    "(calibrate) and the kernel tables built beside them (tables) into SPEC.json,\n"
    "which --gpu-spec reads; each step's report as that command gives it.\n"
    "\n"
    "With --gpu it measures the GPU instead: a sweep of about 600 kernels (matrix\n"
    "products over M, N and K; 3x3, 1x1, other dense, grouped and depthwise\n"
    "convolutions over pixels and channels; elementwise, reduction, pooling and\n"
    "data-movement kernels over size) replayed with cuDNN and cuBLAS at each\n"
    "precision --math names, in a few minutes. -o writes the spec file: the device's\n"
    "roofs with measured kernel tables, which --gpu-spec reads (docs/MODEL.md,\n"
    "\"Kernel tables\"); the tables' report goes to standard output.\n"
    "\n";

static const char oc_probe_footer[] = "\n"
                                      "examples:\n"
                                      "  onnxcost probe -o machine.json\n"
                                      "  onnxcost probe --calibrate -o cpu.json && onnxcost resnet50.onnx --gpu-spec cpu.json\n"
                                      "  onnxcost probe --sweep-model runs.onnx && onnxcost measure runs.onnx --save runs --format json -o runs.json\n"
                                      "  onnxcost resnet50.onnx --machine machine.json\n"
                                      "  onnxcost probe --gpu --math tf32,fp16 -o h100-tables.json\n"
                                      "  onnxcost resnet50.onnx --batch 32 --gpu-spec h100-tables.json --dtype fp16\n";

struct oc_probe_args {
    int64_t threads;
    const char *seconds;
    enum oc_format format;
    const char *sweep_model;
    bool calibrate;
};

static const struct oc_opt oc_probe_opts[] = {
    OC_OPT_INT_ROW("--threads", "N", "threads for the all-thread figures (default: every online CPU)",
                   offsetof(struct oc_probe_args, threads), 1, 1024, "an integer from 1 to 1024"),
    OC_OPT_TEXT_ROW("--seconds", NULL, "X",
                    "how long each timed loop runs (default 0.05; each figure is the\n"
                    "best of three)",
                    offsetof(struct oc_probe_args, seconds), "a number of seconds"),
    OC_OPT_PARSE_ROW("--format", "FMT", "text (default: the table) or json (the spec file; with --gpu,\n"
                     "the tables' report)",
                     offsetof(struct oc_probe_args, format), 1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_JSON, 0,
                     "text or json", oc_opt_format),
    OC_OPT_OUTPUT_ROW("--sweep-model", NULL, "FILE",
                      "write a sweep as an ONNX model to FILE and stop (nothing is\n"
                      "measured): the CPU's runs sweep, for onnxcost measure to time and\n"
                      "calibrate to fit the cost per run on; with --gpu the GPU's kernel\n"
                      "sweep, to time with another runtime (tests/gpu/torch_sweep.py)",
                      offsetof(struct oc_probe_args, sweep_model), "a file name"),
    OC_OPT_FLAG_ROW("--calibrate", NULL,
                    "calibrate this CPU in one command (needs -o SPEC.json): probe it,\n"
                    "time the runs sweep and the kernel sweep's quick grid through\n"
                    "ONNX Runtime, fit the model's factors and build the kernel\n"
                    "tables into SPEC.json, which --gpu-spec reads (docs/MEASURED.md)",
                    offsetof(struct oc_probe_args, calibrate)),
};
static const struct oc_opt_group oc_probe_group = {NULL, oc_probe_opts, sizeof oc_probe_opts / sizeof oc_probe_opts[0]};

static const struct oc_opt oc_probe_gpu_opts[] = {
    OC_OPT_FLAG_ROW("--gpu", NULL, "measure the GPU's kernel tables (needs -o SPEC.json)",
                    offsetof(struct oc_probe_gpu_args, gpu)),
    OC_OPT_TEXT_ROW("--math", NULL, "LIST",
                    "precisions to measure: fp32, tf32, fp16, bf16, comma-separated\n"
                    "(default: all four)",
                    offsetof(struct oc_probe_gpu_args, maths), "a list of precisions"),
    OC_OPT_TEXT_ROW("--grid", NULL, "G", "full (default, about 600 kernels) or quick (a few per family)",
                    offsetof(struct oc_probe_gpu_args, grid), "full or quick"),
    OC_OPT_INT_ROW("--device", "N", "CUDA device ordinal (default 0)", offsetof(struct oc_probe_gpu_args, device), 0,
                   1024, "an integer from 0 to 1024"),
    OC_OPT_TEXT_ROW("--like", NULL, "NAME",
                    "the built-in GPU whose roofs serve the kernels the tables do not\n"
                    "cover (default: the one the device's name matches)",
                    offsetof(struct oc_probe_gpu_args, like), "a GPU name"),
    OC_OPT_PARSE_ROW("--budget", "MS", "timed milliseconds per kernel (default 20)",
                     offsetof(struct oc_probe_gpu_args, budget_ms), 0, 3600000, "milliseconds", oc_opt_number),
    OC_OPT_PARSE_ROW("--node-timeout", "S",
                     "a kernel that makes no progress for S seconds is killed and\n"
                     "listed (default 300)",
                     offsetof(struct oc_probe_gpu_args, node_timeout_s), 0, 3600000, "seconds",
                     oc_opt_number),
    OC_OPT_FLAG_ROW("--in-process", NULL, "run the GPU in this process, not in a worker",
                    offsetof(struct oc_probe_gpu_args, in_process)),
    OC_OPT_OUTPUT_ROW("--report", NULL, "FILE", "write the tables' report to FILE instead of standard output",
                      offsetof(struct oc_probe_gpu_args, report), "a file name"),
    OC_OPT_TEXT_ROW("--source", NULL, "TEXT",
                    "what the tables were measured on, for the reports (default: the\n"
                    "device, driver and library versions)",
                    offsetof(struct oc_probe_gpu_args, source), "a text"),
};
static const struct oc_opt_group oc_probe_gpu_group = {"GPU kernel tables (--gpu):", oc_probe_gpu_opts,
                                                       sizeof oc_probe_gpu_opts / sizeof oc_probe_gpu_opts[0]};

int oc_cmd_probe(int argc, char **argv) {
    struct oc_probe_args a = {.format = OC_FORMAT_TEXT};
    static const struct oc_probe_gpu_args gpu_defaults = {.node_timeout_s = 300, .budget_ms = 20};
    struct oc_probe_gpu_args ga = gpu_defaults;
    const char *out_path = NULL;
    const struct oc_opt_use groups[] = {
        {&oc_probe_group, &a}, {&oc_probe_gpu_group, &ga}, {&oc_group_output, &out_path}};
    const struct oc_cmd_spec cmd = {"probe", "probe: ", oc_probe_usage, oc_probe_footer, groups, 3};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    if (rc != OC_PARSE_GO)
        goto done;
    if (n_args) {
        rc = oc_cli_usage_error("probe: unknown argument '%s' (it measures this machine; no model)", args[0]);
        goto done;
    }
    bool gpu_only = ga.maths || ga.grid || ga.device || ga.like || ga.report || ga.source || ga.in_process ||
                    ga.node_timeout_s != gpu_defaults.node_timeout_s || ga.budget_ms != gpu_defaults.budget_ms;
    if (ga.gpu && (a.threads || a.seconds)) {
        rc = oc_cli_usage_error("probe: --threads and --seconds are the CPU's; --gpu takes the options under "
                                "\"GPU kernel tables\"");
        goto done;
    }
    if (!ga.gpu && gpu_only) {
        rc = oc_cli_usage_error("probe: the options under \"GPU kernel tables\" need --gpu");
        goto done;
    }
    if (ga.gpu) {
        ga.sweep_model = a.sweep_model;
        rc = oc_probe_gpu(&ga, (int32_t)a.format, out_path); /* json: the report's (onnxcost-tables/1) */
        goto done;
    }
    if (a.calibrate) { /* the whole calibration, step by step */
        rc = a.sweep_model || a.seconds || a.format != OC_FORMAT_TEXT
                 ? oc_cli_usage_error("probe: --calibrate takes -o and --threads only")
                 : oc_probe_calibrate(out_path, a.threads);
        goto done;
    }
    if (a.sweep_model) { /* the CPU's runs sweep, for onnxcost measure to time */
        rc = a.threads || a.seconds || out_path
                 ? oc_cli_usage_error("probe: --sweep-model writes the sweep and measures nothing: no --threads, "
                                      "--seconds or -o with it")
                 : oc_probe_sweep_model(OC_KSWEEP_RUNS, a.sweep_model);
        goto done;
    }
    struct oc_probe_opts o = {.threads = (int32_t)a.threads};
    if (a.seconds) {
        char *end;
        o.target_s = strtod(a.seconds, &end);
        if (*end || !(o.target_s >= 0.001 && o.target_s <= 10)) {
            rc = oc_cli_usage_error("probe: --seconds takes a number of seconds from 0.001 to 10, got '%s'",
                                    a.seconds);
            goto done;
        }
    }
    struct oc_machine m;
    char err[256];
    if (!oc_probe_run(&o, &m, err, sizeof err)) {
        fprintf(oc_cli_err(), "onnxcost: error: probe: %s\n", err);
        rc = OC_EXIT_INTERNAL;
        goto done;
    }
    struct oc_gpu g;
    char name[256];
    oc_probe_spec(&m, &g, name, sizeof name);
    if (out_path) { /* the file, and the table on the terminal */
        rc = oc_probe_write_machine(&m, &g, OC_FORMAT_JSON, out_path);
        if (rc == OC_EXIT_OK && a.format == OC_FORMAT_TEXT)
            rc = oc_probe_write_machine(&m, &g, OC_FORMAT_TEXT, NULL);
    } else {
        rc = oc_probe_write_machine(&m, &g, a.format, NULL);
    }
done:
    free(args);
    return rc;
}
