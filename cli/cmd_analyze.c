/*
 * cmd_analyze.c — `onnxcost [analyze] MODEL [options]`.
 */
#include "cli.h"

#include "../analyzer/analyze.h"
#include "../analyzer/budget.h"
#include "../analyzer/gpu.h"
#include "../analyzer/model.h"
#include "../analyzer/modules.h"
#include "../analyzer/symbolic.h"
#include "../analyzer/training.h"
#include "../reports/report.h"

#include <jansson.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static const char oc_analyze_help[] =
    "usage: onnxcost [analyze] MODEL.onnx [options]\n"
    "\n"
    "Prints one row per node (execution order) with its output shape, parameters\n"
    "and MACs, then totals: params, MACs, FLOPs and torchsummary's memory lines.\n"
    "Weights are never read: a 500 MB model loads in milliseconds, and external\n"
    "data files are not opened.\n"
    "\n"
    "options:\n"
    "  --dim NAME=N      bind the symbolic dim NAME (e.g. --dim sequence=128); repeatable\n"
    "  --batch N         bind the first dim of every graph input whose first dim is\n"
    "                    symbolic or unnamed (a --dim for the same name wins)\n"
    "                    Unbound symbolic dims (up to 4) stay symbolic: shapes and MACs\n"
    "                    print as exact formulas in them, fitted over probe bindings\n"
    "                    and checked; sizes in MiB are given at 1.\n"
    "  --no-symbolic     take unbound dims as 1 (with a warning) instead\n"
    "  --depth N         one row per module (node-name scope) down to depth N, with\n"
    "                    subtotals, instead of one row per node\n"
    "  --sort KEY        list nodes largest first by macs, flops, params or bytes\n"
    "  --optimizer NAME  add a training-step estimate: sgd, momentum or adam\n"
    "                    (parameters, gradients, optimizer state, saved activations,\n"
    "                    FLOPs per step)\n"
    "  --train-samples N with the training estimate: FLOPs per epoch of N samples\n"
    "  --dtype NAME      price every float tensor as fp64, fp32, fp16, bf16, fp8, int8\n"
    "                    or int4 (bytes only; shapes and MACs are unchanged)\n"
    "  --top N           list only the first N nodes (after --sort)\n"
    "  --format FMT      text (default), json (schema onnxcost/1, see docs/JSON.md),\n"
    "                    csv (one row per node, raw integers), md (tables for PR comments)\n"
    "                    or html (one self-contained file with SVG charts; use -o)\n"
    "  -o, --output FILE write the report to FILE instead of standard output\n"
    "budgets (exit 1 when one is exceeded; sizes take SI or IEC suffixes: 30M, 5G, 2GiB):\n"
    "  --max-params N, --max-macs N, --max-flops N, --max-params-size BYTES,\n"
    "  --max-peak-memory BYTES\n"
    "  --budget FILE     the same limits from a JSON object, e.g. {\"max_macs\": \"5G\"}\n"
    "  --allow-incomplete  let a budget pass on a lower bound: by default a budget on\n"
    "                    MACs, FLOPs or memory fails (exit 4) when nodes have no cost\n"
    "  --baseline FILE   compare with a previous --format json report: totals with\n"
    "                    change and %, nodes added and removed, module changes\n"
    "GPU predictions (docs/MODEL.md; the table: onnxcost gpus, docs/GPUS.md):\n"
    "  --gpu NAME        roofline per node (FLOP/B, bound, time) and the model's\n"
    "                    latency and throughput on a built-in GPU (k80, v100, a100, h100, ...)\n"
    "  --gpu-spec FILE   the same for a device described in JSON (docs/GPUS.md)\n"
    "  --math MODE       auto (default), fp32 (no tensor cores), tf32 (fp32 contractions\n"
    "                    on TF32 tensor cores) or fp16 (contractions on FP16 tensor cores)\n"
    "                    precision comes from the tensors, or from --dtype\n"
    "  --efficiency X    fraction of peak FLOP/s reached, 0 < X <= 1 (default 0.6)\n"
    "  --mem-efficiency X  fraction of DRAM bandwidth reached (default 0.8)\n"
    "  --comm-efficiency X fraction of GPU-to-GPU bandwidth reached (default 0.75)\n"
    "  --launch-us X     per-kernel overhead in microseconds (default 5)\n"
    "  --additive        time = compute + memory (PALEO) instead of the maximum\n"
    "  --fit             does it fit: inference (or, with --optimizer, training) memory\n"
    "                    against the device minus --reserve, and the largest --batch that fits\n"
    "  --reserve SIZE    memory kept back for the CUDA context and workspaces (default 1GiB)\n"
    "  --gpus N          data parallel on N GPUs: training step with ring all-reduce\n"
    "                    of the gradients (weak scaling; --optimizer, default sgd)\n"
    "  --pipeline N      split the nodes into N contiguous stages on N GPUs\n"
    "  --balance KEY     pipeline stages balanced by time (default) or memory\n"
    OC_CLI_LIMITS_HELP
    "  -q, --quiet       do not print warnings on standard error\n"
    "  -h, --help        this help\n"
    "\n"
    "units: MACs = multiply-accumulates of Conv/Gemm/MatMul without bias (torchvision's\n"
    "\"GFLOPS\"); FLOPs = 2 x MACs + bias adds + elementwise work (docs/COSTS.md);\n"
    "sizes in MiB (2^20 bytes).\n"
    "\n"
    "exit codes: 0 ok, 1 a budget was exceeded, 2 bad model file or usage,\n"
    "            3 out of memory or output not writable, 4 a budget not verified:\n"
    "            the analysis is incomplete and the total is only a lower bound\n"
    "\n"
    "examples:\n"
    "  onnxcost fixtures/mnist/torchsummary_net.onnx\n"
    "  onnxcost model.onnx --batch 8 --format json -o costs.json\n";

/* 1234567 -> "1,234,567" */
static const char *oc_fmt_count(uint64_t v, char *buf, size_t size) {
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
    return buf;
}

static int oc_strcmp_p(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reads a previous `--format json` report for --baseline. The strings stay
 * owned by *doc (json_decref it after use). */
static bool oc_baseline_load(const char *path, struct oc_baseline *b, json_t **doc, char *err, size_t size) {
    static const char *const keys[OC_BASE_COUNT] = {"params", "macs", "flops", "params_bytes",
                                                     "peak_activation_bytes", "activation_bytes"};
    json_error_t je;
    memset(b, 0, sizeof *b);
    *doc = json_load_file(path, 0, &je);
    json_t *schema = *doc ? json_object_get(*doc, "schema") : NULL;
    if (!*doc || !json_is_string(schema) || strcmp(json_string_value(schema), "onnxcost/1") != 0) {
        snprintf(err, size, "not an onnxcost/1 JSON report%s%s", *doc ? "" : ": ", *doc ? "" : je.text);
        return false;
    }
    b->path = path;
    json_t *t = json_object_get(*doc, "totals");
    /* a report from before totals.complete existed counts as complete */
    b->incomplete = json_is_false(json_object_get(t, "complete"));
    for (int k = 0; k < OC_BASE_COUNT; k++) {
        json_t *v = json_object_get(t, keys[k]);
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            b->has[k] = true;
            b->totals[k] = (uint64_t)json_integer_value(v);
        }
    }
    json_t *nodes = json_object_get(*doc, "nodes"), *mods = json_object_get(*doc, "modules");
    size_t nn = json_array_size(nodes), nm = json_array_size(mods);
    const char **names = calloc(nn + 1, sizeof *names);
    struct oc_baseline_module *m = calloc(nm + 1, sizeof *m);
    if (!names || !m) {
        free(names);
        free(m);
        snprintf(err, size, "out of memory");
        return false;
    }
    for (size_t i = 0; i < nn; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(nodes, i), "name"));
        if (s && s[0])
            names[b->n_nodes++] = s;
    }
    qsort(names, (size_t)b->n_nodes, sizeof *names, oc_strcmp_p);
    for (size_t i = 0; i < nm; i++) {
        json_t *e = json_array_get(mods, i);
        const char *p = json_string_value(json_object_get(e, "path"));
        if (!p)
            continue;
        m[b->n_modules++] = (struct oc_baseline_module){p, (uint64_t)json_integer_value(json_object_get(e, "params")),
                                                        (uint64_t)json_integer_value(json_object_get(e, "macs"))};
    }
    b->node_names = names;
    b->modules = m;
    return true;
}

/* Text that would break a report line or a Markdown code block. */
static bool oc_unprintable(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '`')
            return true;
    return false;
}

/* --gpu-spec: a device in JSON (keys in docs/GPUS.md). Strings are copied
 * into names (kept by the caller until the report is written). */
static bool oc_gpu_spec_load(const char *path, struct oc_gpu *g, char *name, size_t size, char *err, size_t esize) {
    static const struct {
        const char *key;
        enum oc_unit unit;
    } units[] = {{"fp64", OC_UNIT_FP64},       {"fp64_tc", OC_UNIT_FP64_TC}, {"fp32", OC_UNIT_FP32},
                 {"fp16", OC_UNIT_FP16},       {"tf32_tc", OC_UNIT_TF32_TC}, {"fp16_tc", OC_UNIT_FP16_TC},
                 {"bf16_tc", OC_UNIT_BF16_TC}, {"fp8_tc", OC_UNIT_FP8_TC},   {"int8_tc", OC_UNIT_INT8_TC}};
    static const char *const other[] = {"name", "memory_gib", "bandwidth_gbs", "l2_mib", "sms", "boost_mhz", "link_gbs", "link"};
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    memset(g, 0, sizeof *g);
    if (!json_is_object(j)) {
        snprintf(err, esize, "not a JSON object%s%s", j ? "" : ": ", j ? "" : je.text);
        json_decref(j);
        return false;
    }
    const char *key;
    json_t *val;
    json_object_foreach(j, key, val) {
        bool known = false;
        for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
            known |= strcmp(key, units[k].key) == 0;
        for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
            known |= strcmp(key, other[k]) == 0;
        bool is_str = strcmp(key, "name") == 0 || strcmp(key, "link") == 0;
        if (!known || (is_str ? !json_is_string(val) : !json_is_number(val) || json_number_value(val) < 0 ||
                                                            json_number_value(val) > 1e9)) {
            snprintf(err, esize, "bad key '%s' (%s)", key, known ? (is_str ? "a string expected" : "a number >= 0 expected")
                                                                 : "unknown key; see docs/GPUS.md");
            json_decref(j);
            return false;
        }
    }
    const char *nm = json_string_value(json_object_get(j, "name"));
    double fp32 = json_number_value(json_object_get(j, "fp32")), mem = json_number_value(json_object_get(j, "memory_gib"));
    double bw = json_number_value(json_object_get(j, "bandwidth_gbs"));
    if (!nm || fp32 <= 0 || mem <= 0 || bw <= 0) {
        snprintf(err, esize, "needs \"name\", and \"fp32\", \"memory_gib\", \"bandwidth_gbs\" > 0");
        json_decref(j);
        return false;
    }
    const char *lk = json_string_value(json_object_get(j, "link"));
    const char *bad = oc_unprintable(nm) ? "name" : lk && oc_unprintable(lk) ? "link" : NULL;
    if (bad) {
        snprintf(err, esize, "\"%s\" has a control character or backquote", bad);
        json_decref(j);
        return false;
    }
    snprintf(name, size, "%s%c%s", nm, 0, lk ? lk : "PCIe 3.0 x16");
    g->id = g->name = name;
    g->link = name + strlen(name) + 1;
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        g->peak[units[k].unit] = json_number_value(json_object_get(j, units[k].key)) * 1e12;
    g->mem_bytes = (uint64_t)(mem * 1024.0 * 1024.0 * 1024.0);
    g->mem_bw = bw * 1e9;
    g->l2_bytes = (uint64_t)(json_number_value(json_object_get(j, "l2_mib")) * 1024.0 * 1024.0);
    g->sms = (int32_t)json_number_value(json_object_get(j, "sms"));
    g->boost_mhz = (int32_t)json_number_value(json_object_get(j, "boost_mhz"));
    json_t *lb = json_object_get(j, "link_gbs");
    g->link_bw = (lb ? json_number_value(lb) : 16.0) * 1e9;
    json_decref(j);
    return true;
}

/* A fraction in (0, 1]. */
static bool oc_parse_fraction(const char *v, double *out) {
    char *end;
    double x = v ? strtod(v, &end) : 0;
    if (!v || end == v || *end || !(x > 0 && x <= 1))
        return false;
    *out = x;
    return true;
}

static int oc_status_exit(enum oc_status st) {
    return st == OC_ERR_NOMEM ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
}

int oc_cmd_analyze(int argc, char **argv) {
    const char *path = NULL, *out_path = NULL, *v;
    enum oc_format fmt = OC_FORMAT_TEXT;
    bool quiet = false, symbolic = true, allow_incomplete = false;
    enum oc_sort sort = OC_SORT_NONE;
    int64_t top = 0, depth = 0, samples = 0;
    bool train = false;
    enum oc_optimizer optimizer = OC_OPT_SGD;
    const char *dtype_name = NULL;
    struct oc_budget budget = {0};
    const char *baseline_path = NULL;
    struct oc_baseline baseline = {0};
    json_t *baseline_doc = NULL;
    struct oc_binding *dims = calloc((size_t)argc + 1, sizeof *dims);
    struct oc_analyze_opts opts = {0};
    struct oc_load_opts lopts = {0};
    const struct oc_gpu *gpu = NULL;
    struct oc_gpu custom_gpu;
    char custom_name[512];
    const char *gpu_spec_path = NULL;
    struct oc_perf_opts popts;
    oc_perf_defaults(&popts);
    bool fit = false;
    uint64_t reserve = 1ull << 30;
    int64_t n_gpus = 0, n_stages = 0;
    enum oc_balance balance = OC_BALANCE_TIME;
    int rc = OC_EXIT_OK;
    if (!dims)
        return OC_EXIT_INTERNAL;
    opts.dims = dims;
    for (int i = 1, limit_opt, bind_opt; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            free(dims);
            fputs(oc_analyze_help, stdout);
            return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--no-symbolic") == 0) {
            symbolic = false;
        } else if (strcmp(a, "--allow-incomplete") == 0) {
            allow_incomplete = true;
        } else if (strcmp(a, "--fit") == 0) {
            fit = true;
        } else if (strcmp(a, "--additive") == 0) {
            popts.additive = true;
        } else if (oc_cli_option(argc, argv, &i, "--gpu", &v)) {
            if (!(gpu = oc_gpu_find(v))) {
                rc = oc_cli_usage_error("--gpu: unknown GPU '%s' (onnxcost gpus lists them; --gpu-spec FILE for others)",
                                        v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--gpu-spec", &v)) {
            char err[256];
            if (!v || !oc_gpu_spec_load(v, &custom_gpu, custom_name, sizeof custom_name, err, sizeof err)) {
                fprintf(stderr, "onnxcost: error: %s: %s\n", v ? v : "--gpu-spec", v ? err : "takes a JSON file");
                rc = OC_EXIT_INPUT;
                goto done;
            }
            gpu = &custom_gpu;
            gpu_spec_path = v;
        } else if (oc_cli_option(argc, argv, &i, "--math", &v)) {
            if (!oc_math_parse(v, &popts.math)) {
                rc = oc_cli_usage_error("--math takes auto, fp32, tf32 or fp16");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--efficiency", &v) ||
                   oc_cli_option(argc, argv, &i, "--mem-efficiency", &v) ||
                   oc_cli_option(argc, argv, &i, "--comm-efficiency", &v)) {
            double *dst = strcmp(a, "--efficiency") == 0 || strncmp(a, "--efficiency=", 13) == 0 ? &popts.eff_compute
                          : strncmp(a, "--mem-", 6) == 0                                        ? &popts.eff_memory
                                                                                                 : &popts.eff_comm;
            if (!oc_parse_fraction(v, dst)) {
                rc = oc_cli_usage_error("%.*s takes a fraction 0 < X <= 1, got '%s'", (int)strcspn(a, "="), a, v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--launch-us", &v)) {
            char *end;
            double x = v ? strtod(v, &end) : -1;
            if (!v || end == v || *end || !(x >= 0 && x <= 1e6)) {
                rc = oc_cli_usage_error("--launch-us takes microseconds >= 0, got '%s'", v ? v : "");
                goto done;
            }
            popts.launch_s = x * 1e-6;
        } else if (oc_cli_option(argc, argv, &i, "--reserve", &v)) {
            if (!v || !oc_quantity_parse(v, &reserve)) {
                rc = oc_cli_usage_error("--reserve takes a size (512MiB, 1GiB), got '%s'", v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--gpus", &v)) {
            if (!oc_cli_parse_count(v, &n_gpus) || n_gpus < 1 || n_gpus > 65536) {
                rc = oc_cli_usage_error("--gpus takes an integer from 1 to 65536, got '%s'", v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--pipeline", &v)) {
            if (!oc_cli_parse_count(v, &n_stages) || n_stages < 1 || n_stages > 65536) {
                rc = oc_cli_usage_error("--pipeline takes an integer from 1 to 65536, got '%s'", v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--balance", &v)) {
            if (!v || (strcmp(v, "time") && strcmp(v, "memory"))) {
                rc = oc_cli_usage_error("--balance takes time or memory");
                goto done;
            }
            balance = strcmp(v, "time") == 0 ? OC_BALANCE_TIME : OC_BALANCE_MEMORY;
        } else if (oc_cli_option(argc, argv, &i, "--format", &v)) {
            if (!v || !oc_format_parse(v, &fmt)) {
                rc = oc_cli_usage_error("--format takes text, json, csv, md or html");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--output", &v) || oc_cli_option(argc, argv, &i, "-o", &v)) {
            if (!v || !v[0]) {
                rc = oc_cli_usage_error("--output takes a file name");
                goto done;
            }
            out_path = v;
        } else if (oc_cli_option(argc, argv, &i, "--sort", &v)) {
            if (!v || !oc_sort_parse(v, &sort)) {
                rc = oc_cli_usage_error("--sort takes macs, flops, params or bytes");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--baseline", &v)) {
            if (!v || !v[0]) {
                rc = oc_cli_usage_error("--baseline takes a JSON report file");
                goto done;
            }
            baseline_path = v;
        } else if (oc_cli_option(argc, argv, &i, "--budget", &v)) {
            json_error_t je;
            json_t *bj = v ? json_load_file(v, 0, &je) : NULL;
            const char *key;
            json_t *val;
            if (!bj || !json_is_object(bj)) {
                rc = oc_cli_usage_error("--budget %s: not a JSON object (%s)", v ? v : "", bj ? "" : je.text);
                json_decref(bj);
                goto done;
            }
            json_object_foreach(bj, key, val) {
                enum oc_budget_key k;
                uint64_t lim;
                char num[64];
                const char *text = json_is_string(val) ? json_string_value(val) : NULL;
                if (json_is_integer(val) && json_integer_value(val) >= 0) {
                    snprintf(num, sizeof num, "%lld", (long long)json_integer_value(val));
                    text = num;
                }
                if (!oc_budget_key_parse(key, &k) || !text || !oc_quantity_parse(text, &lim)) {
                    rc = oc_cli_usage_error("--budget %s: bad entry '%s' (keys: max_params, max_macs, max_flops, "
                                            "max_params_size, max_peak_memory; values like \"30M\" or \"2GiB\")",
                                            v, key);
                    json_decref(bj);
                    goto done;
                }
                budget.set[k] = true;
                budget.limit[k] = lim;
                budget.text[k] = NULL;
            }
            json_decref(bj);
        } else if (strncmp(a, "--max-", 6) == 0) {
            enum oc_budget_key k;
            const char *eq = strchr(a, '=');
            char name[32];
            size_t len = eq ? (size_t)(eq - a) : strlen(a);
            if (len - 2 >= sizeof name) {
                rc = oc_cli_usage_error("unknown option '%s' (try 'onnxcost analyze --help')", a);
                goto done;
            }
            memcpy(name, a + 2, len - 2);
            name[len - 2] = 0;
            if (!oc_budget_key_parse(name, &k)) {
                rc = oc_cli_usage_error("unknown option '%s' (try 'onnxcost analyze --help')", a);
                goto done;
            }
            v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || !oc_quantity_parse(v, &budget.limit[k])) {
                rc = oc_cli_usage_error("--%s takes a number with an optional SI or IEC suffix (30M, 5G, 2GiB), "
                                        "got '%s'", name, v ? v : "");
                goto done;
            }
            budget.set[k] = true;
            budget.text[k] = v;
        } else if ((limit_opt = oc_cli_limit_option(argc, argv, &i, &lopts.limits)) != 0) {
            if (limit_opt < 0) {
                rc = OC_EXIT_INPUT;
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--optimizer", &v)) {
            if (!v || !oc_optimizer_parse(v, &optimizer)) {
                rc = oc_cli_usage_error("--optimizer takes sgd, momentum or adam");
                goto done;
            }
            train = true;
        } else if (oc_cli_option(argc, argv, &i, "--train-samples", &v)) {
            if (!oc_cli_parse_count(v, &samples) || samples < 1) {
                rc = oc_cli_usage_error("--train-samples takes a positive integer, got '%s'", v ? v : "");
                goto done;
            }
            train = true;
        } else if (oc_cli_option(argc, argv, &i, "--dtype", &v)) {
            static const struct {
                const char *name;
                int32_t bits;
            } dts[] = {{"fp64", 64}, {"fp32", 32}, {"fp16", 16}, {"bf16", 16}, {"fp8", 8}, {"int8", 8}, {"int4", 4}};
            opts.price_bits = 0;
            for (size_t k = 0; v && k < sizeof dts / sizeof dts[0]; k++)
                if (strcmp(v, dts[k].name) == 0) {
                    opts.price_bits = dts[k].bits;
                    dtype_name = dts[k].name;
                }
            if (!opts.price_bits) {
                rc = oc_cli_usage_error("--dtype takes fp64, fp32, fp16, bf16, fp8, int8 or int4");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--depth", &v)) {
            if (!oc_cli_parse_count(v, &depth) || depth < 1 || depth > 64) {
                rc = oc_cli_usage_error("--depth takes an integer from 1 to 64, got '%s'", v ? v : "");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--top", &v)) {
            if (!oc_cli_parse_count(v, &top) || top < 1 || top > INT32_MAX) {
                rc = oc_cli_usage_error("--top takes a positive integer, got '%s'", v ? v : "");
                goto done;
            }
        } else if ((bind_opt = oc_cli_bind_option(argc, argv, &i, "", &opts, dims)) != 0) {
            if (bind_opt < 0) {
                rc = bind_opt == -1 ? OC_EXIT_INPUT : OC_EXIT_INTERNAL;
                goto done;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = oc_cli_usage_error("unknown option '%s' (try 'onnxcost analyze --help')", a);
            goto done;
        } else if (!path) {
            path = a;
        } else {
            rc = oc_cli_usage_error("more than one model given ('%s' and '%s')", path, a);
            goto done;
        }
    }
    if (!path) {
        rc = oc_cli_usage_error("no model given (try 'onnxcost analyze --help')");
        goto done;
    }
    if (!gpu && (fit || n_gpus || n_stages)) {
        rc = oc_cli_usage_error("--fit, --gpus and --pipeline need --gpu NAME or --gpu-spec FILE");
        goto done;
    }
    if (dtype_name) {
        static const struct {
            const char *name;
            int32_t dt;
        } map[] = {{"fp64", 11}, {"fp32", 1}, {"fp16", 10}, {"bf16", 16}, {"fp8", 17}, {"int8", 3}, {"int4", 22}};
        for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
            if (strcmp(map[k].name, dtype_name) == 0)
                popts.dtype = map[k].dt;
    }
    if (n_gpus)
        train = true;

    struct oc_diag d = {0};
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_symbolic *sym = NULL;
    enum oc_status st = oc_model_load(path, &lopts, &m, &d);
    if (st == OC_OK)
        st = oc_analyze(m, &opts, &an, &d);
    if (st != OC_OK) {
        oc_cli_diag("error", path, d.msg);
        rc = oc_status_exit(st);
        goto free_model;
    }
    for (int32_t i = 0; !quiet && i < oc_model_n_warnings(m); i++)
        oc_cli_diag("warning", path, oc_model_warning(m, i));
    if (symbolic) {
        struct oc_diag sd = {0};
        bool unbound = false;
        for (int32_t i = 0; i < an->n_bound; i++)
            unbound |= an->bound[i].source == OC_BIND_DEFAULT && an->bound[i].name;
        if (unbound && oc_symbolic_fit(m, &opts, an, &sym, &sd) != OC_OK && !quiet)
            fprintf(stderr, "onnxcost: note: %s: no symbolic formulas (%s)\n", path, sd.msg);
    }
    if (!quiet)
        for (int32_t i = 0; i < an->n_warnings; i++) {
            bool covered = false; /* an unbound dim the formulas keep symbolic */
            for (int32_t j = 0; sym && j < an->n_bound; j++)
                covered |= an->bound[j].warning == an->warnings[i] && an->bound[j].name;
            if (!covered)
                oc_cli_diag("warning", path, an->warnings[i]);
        }

    FILE *f = stdout;
    if (out_path && !(f = fopen(out_path, "w"))) {
        oc_cli_usage_error("%s: cannot open for writing", out_path);
        rc = OC_EXIT_INTERNAL;
        goto free_model;
    }
    struct oc_module *mods = NULL;
    int32_t n_mods = 0;
    if (depth > 0) {
        st = oc_modules_build(an, (int32_t)depth, &mods, &n_mods, &d);
        if (st == OC_OK && sym)
            st = oc_modules_symbolic(sym, mods, n_mods);
        if (st != OC_OK) {
            fprintf(stderr, "onnxcost: error: %s: %s\n", path, st == OC_ERR_NOMEM ? "out of memory" : d.msg);
            rc = OC_EXIT_INTERNAL;
            if (f != stdout)
                fclose(f);
            goto free_model;
        }
    }
    if (baseline_path) {
        char err[256];
        if (!oc_baseline_load(baseline_path, &baseline, &baseline_doc, err, sizeof err)) {
            fprintf(stderr, "onnxcost: error: %s: %s\n", baseline_path, err);
            rc = OC_EXIT_INPUT;
            if (f != stdout)
                fclose(f);
            goto free_model;
        }
    }
    struct oc_training training;
    if (train)
        oc_training_estimate(an, optimizer, samples, &training);
    struct oc_perf perf = {0};
    struct oc_data_parallel dp;
    struct oc_pipeline pipe = {0};
    struct oc_fit fitr = {0};
    struct oc_gpu_report gr = {&perf, NULL, NULL, balance, NULL, gpu_spec_path};
    if (gpu) {
        st = oc_perf_estimate(an, gpu, &popts, &perf);
        if (st == OC_OK && n_stages)
            st = oc_pipeline_split(&perf, an, (int32_t)n_stages, balance, &pipe);
        if (st == OC_OK && fit) {
            fitr.training = train;
            fitr.need = oc_fit_need(an, train, optimizer);
            fitr.reserve = reserve;
            fitr.usable = gpu->mem_bytes > reserve ? gpu->mem_bytes - reserve : 0;
            st = oc_fit_max_batch(m, &opts, train, optimizer, fitr.usable, &fitr.max_batch, &fitr.max_batch_capped, &d);
            gr.fit = &fitr;
        }
        if (st != OC_OK) {
            fprintf(stderr, "onnxcost: error: %s: %s\n", path, st == OC_ERR_NOMEM ? "out of memory" : d.msg);
            rc = oc_status_exit(st);
            if (f != stdout)
                fclose(f);
            oc_perf_free(&perf);
            oc_pipeline_free(&pipe);
            goto free_model;
        }
        if (n_gpus) {
            oc_data_parallel(&perf, an, &training, (int32_t)n_gpus, &dp);
            gr.dp = &dp;
        }
        if (n_stages)
            gr.pipeline = &pipe;
    }
    struct oc_report_spec spec = {1,    fmt,  path, oc_cli_write_file, f, sym, sort, (int32_t)top, mods, n_mods,
                                  train ? &training : NULL, dtype_name, baseline_path ? &baseline : NULL,
                                  f == stdout ? oc_cli_terminal_width() : 0,
                                  f == stdout && oc_cli_terminal_width() > 0 && !getenv("NO_COLOR"),
                                  gpu ? &gr : NULL};
    st = oc_report_render(an, &spec, &d);
    oc_perf_free(&perf);
    oc_pipeline_free(&pipe);
    bool ok = st == OC_OK;
    if (f != stdout)
        ok = (fclose(f) == 0) && ok;
    else
        ok = oc_cli_close_stdout() && ok;
    if (!ok) {
        fprintf(stderr, "onnxcost: error: %s: cannot write the report\n", out_path ? out_path : "standard output");
        rc = OC_EXIT_INTERNAL;
    }
    struct oc_budget_excess ex[OC_BUDGET_COUNT];
    int32_t n_ex = oc_budget_check(&budget, &an->totals, ex);
    for (int32_t k = 0; k < n_ex; k++) {
        char b1[48], b2[48];
        double over = 100.0 * ((double)ex[k].value - (double)ex[k].limit) / (double)(ex[k].limit ? ex[k].limit : 1);
        fprintf(stderr, "onnxcost: budget exceeded: %s: %s %s > %s (--%s%s%s), over by %.1f %%\n", path,
                oc_budget_key_label(ex[k].key), oc_fmt_count(ex[k].value, b1, sizeof b1),
                oc_fmt_count(ex[k].limit, b2, sizeof b2), oc_budget_key_option(ex[k].key),
                budget.text[ex[k].key] ? " " : "", budget.text[ex[k].key] ? budget.text[ex[k].key] : "", over);
    }
    if (n_ex && rc == OC_EXIT_OK)
        rc = OC_EXIT_BUDGET;
    /* a budget kept only by a lower bound is not kept */
    n_ex = oc_budget_unverified(&budget, &an->totals, ex);
    for (int32_t k = 0; k < n_ex; k++) {
        char b1[48], b2[48];
        struct oc_budget_excess *e = &ex[k];
        if (allow_incomplete && quiet)
            continue;
        fprintf(stderr, "onnxcost: %s: %s: %s >= %s, within --%s %s, but only a lower bound (%d of %d nodes without "
                        "a cost%s)%s\n",
                allow_incomplete ? "warning: budget checked against a lower bound" : "budget not verified", path,
                oc_budget_key_label(e->key), oc_fmt_count(e->value, b1, sizeof b1), oc_budget_key_option(e->key),
                budget.text[e->key] ? budget.text[e->key] : oc_fmt_count(e->limit, b2, sizeof b2), an->totals.n_uncosted,
                an->totals.n_nodes, an->totals.flags & OC_COST_OVERFLOW ? ", a count saturated" : "",
                allow_incomplete ? "" : "; --allow-incomplete accepts it");
    }
    if (n_ex && !allow_incomplete && rc == OC_EXIT_OK)
        rc = OC_EXIT_INCOMPLETE;
free_model:
    free(baseline.node_names);
    free((void *)baseline.modules);
    json_decref(baseline_doc);
    oc_symbolic_free(sym);
    oc_analysis_free(an);
    oc_model_free(m);
done:
    for (int32_t k = 0; k < opts.n_dims; k++)
        free((char *)dims[k].name);
    free(dims);
    return rc;
}
