/*
 * cmd_analyze.c — `onnxcost [analyze] MODEL [options]`: its option table,
 * then load, analyze, render and check the budgets.
 */
#include "cli.h"
#include "groups.h"

#include "../views/budget.h"
#include "../views/lint/lint.h"
#include "../views/measure.h"
#include "../analyzer/modules.h"
#include "../analyzer/derive.h"
#include "../analyzer/symbolic.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct oc_analyze_args {
    bool quiet, no_symbolic, allow_incomplete, lint;
    enum oc_sort sort;
    enum oc_format format;
    int64_t top, depth, samples, n_gpus, n_stages, range_points;
    uint32_t columns;
    enum oc_balance balance;
    const char *baseline_path;
    const char *measured_path;
    const char *largest;
    struct oc_budget budget;
};

static bool oc_opt_sort(const struct oc_opt *o, void *dest, const char *v) {
    return oc_sort_parse(v, (enum oc_sort *)((char *)dest + o->offset));
}

static bool oc_opt_balance(const struct oc_opt *o, void *dest, const char *v) {
    enum oc_balance *b = (enum oc_balance *)((char *)dest + o->offset);
    if (strcmp(v, "time") && strcmp(v, "memory"))
        return false;
    *b = strcmp(v, "time") == 0 ? OC_BALANCE_TIME : OC_BALANCE_MEMORY;
    return true;
}

static bool oc_opt_columns(const struct oc_opt *o, void *dest, const char *v) {
    char err[128];
    return oc_columns_parse(v, (uint32_t *)((char *)dest + o->offset), err, sizeof err);
}

/* --max-*: the budget key is the row's min */
static bool oc_opt_budget_limit(const struct oc_opt *o, void *dest, const char *v) {
    struct oc_budget *b = &((struct oc_analyze_args *)dest)->budget;
    if (!oc_quantity_parse(v, &b->limit[o->min]))
        return false;
    b->set[o->min] = true;
    b->text[o->min] = v;
    return true;
}

static int oc_opt_budget_file(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    char err[512];
    if (!oc_budget_file_load(v, &((struct oc_analyze_args *)dest)->budget, err, sizeof err))
        return oc_cli_usage_error("%s--budget %s: %s", prefix, v, err);
    return OC_PARSE_GO;
}

static const struct oc_opt oc_analyze_opts[] = {
    OC_OPT_FLAG_ROW("--no-symbolic", NULL,
                    "take unbound dims as 1 (with a warning) instead of keeping them\n"
                    "symbolic: unbound dims (up to 4) print as formulas in them, exact\n"
                    "where derived through the ops, else fitted and marked ~; sizes in\n"
                    "MiB are at 1",
                    offsetof(struct oc_analyze_args, no_symbolic)),
    OC_OPT_INT_ROW("--range-points", "N",
                   "with --dim NAME=LO:HI: bindings of the box analyzed one by one\n"
                   "where the figures are not proven monotone (default 1024)",
                   offsetof(struct oc_analyze_args, range_points), 1, 1 << 24, "an integer from 1 to 16777216"),
    OC_OPT_TEXT_ROW("--largest", NULL, "NAME",
                    "with ranges and budgets: the largest NAME that keeps every budget,\n"
                    "with every smaller NAME and every binding of the other ranges",
                    offsetof(struct oc_analyze_args, largest), "a ranged dim's name"),
    OC_OPT_INT_ROW("--depth", "N",
                   "one row per module (node-name scope) down to depth N, with\n"
                   "subtotals, instead of one row per node",
                   offsetof(struct oc_analyze_args, depth), 1, 64, "an integer from 1 to 64"),
    OC_OPT_PARSE_ROW("--sort", "KEY", "list nodes largest first by macs, flops, params or bytes",
                     offsetof(struct oc_analyze_args, sort), 0, 0, "macs, flops, params or bytes", oc_opt_sort),
    OC_OPT_PARSE_ROW("--columns", "LIST",
                     "the text table's columns after the name, shown in this order:\n"
                     "input, output, params, params%, macs, macs%, flops, bytes (of\n"
                     "the outputs); default output,params,macs, and with --depth\n"
                     "params,macs,flops,macs% (module rows have no shapes)",
                     offsetof(struct oc_analyze_args, columns), 0, 0,
                     "a comma list of input, output, params, params%, macs, macs%, flops, bytes", oc_opt_columns),
    OC_OPT_INT_ROW("--top", "N", "list only the first N nodes (after --sort)", offsetof(struct oc_analyze_args, top), 1,
                   INT32_MAX, "a positive integer"),
    OC_OPT_INT_ROW("--train-samples", "N", "with the training estimate: FLOPs per epoch of N samples",
                   offsetof(struct oc_analyze_args, samples), 1, INT64_MAX, "a positive integer"),
    OC_OPT_PARSE_ROW("--format", "FMT",
                     "text (default), json (schema onnxcost/1, see docs/JSON.md),\n"
                     "csv (one row per node, raw integers), md (tables for PR comments)\n"
                     "or html (one self-contained file with SVG charts; use -o)",
                     offsetof(struct oc_analyze_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_JSON | 1 << OC_FORMAT_CSV | 1 << OC_FORMAT_MD |
                         1 << OC_FORMAT_HTML,
                     0, "text, json, csv, md or html", oc_opt_format),
    OC_OPT_TEXT_ROW("--measured", NULL, "FILE",
                    "an ONNX Runtime profile (SessionOptions.enable_profiling) of\n"
                    "this model: each node's measured median time beside its costs,\n"
                    "end to end and the sum of nodes (analyze the file ONNX Runtime\n"
                    "saves with optimized_model_filepath: the graph it ran)",
                    offsetof(struct oc_analyze_args, measured_path), "a profile JSON file"),
    OC_OPT_FLAG_ROW("--lint", NULL,
                    "also run onnxcost lint's rules: what to change and what it\n"
                    "saves, under the totals (and in JSON, Markdown, HTML)",
                    offsetof(struct oc_analyze_args, lint)),
    OC_OPT_FLAG_ROW("--quiet", "-q", "do not print warnings on standard error",
                    offsetof(struct oc_analyze_args, quiet)),
};
static const struct oc_opt_group oc_analyze_group = {NULL, oc_analyze_opts,
                                                     sizeof oc_analyze_opts / sizeof oc_analyze_opts[0]};

#define OC_BUDGET_ROW(opt, key, what)                                                                                  \
    OC_OPT_PARSE_ROW(opt, "N", what, 0, key, 0, "a number with an optional SI or IEC suffix (30M, 5G, 2GiB)",          \
                     oc_opt_budget_limit)
static const struct oc_opt oc_budget_opts[] = {
    OC_BUDGET_ROW("--max-params", OC_BUDGET_PARAMS, "parameters"),
    OC_BUDGET_ROW("--max-macs", OC_BUDGET_MACS, "MACs"),
    OC_BUDGET_ROW("--max-flops", OC_BUDGET_FLOPS, "FLOPs"),
    OC_BUDGET_ROW("--max-params-size", OC_BUDGET_PARAMS_BYTES, "bytes of the parameters"),
    OC_BUDGET_ROW("--max-peak-memory", OC_BUDGET_PEAK_MEMORY, "bytes of the peak activation memory"),
    OC_OPT_CALL_ROW("--budget", "FILE", "the same limits from a JSON object, e.g. {\"max_macs\": \"5G\"}",
                    oc_opt_budget_file),
    OC_OPT_FLAG_ROW("--allow-incomplete", NULL,
                    "let a budget pass on a lower bound: by default a budget on\n"
                    "MACs, FLOPs or memory fails (exit 4) when nodes have no cost",
                    offsetof(struct oc_analyze_args, allow_incomplete)),
    OC_OPT_TEXT_ROW("--baseline", NULL, "FILE",
                    "compare with a previous --format json report: totals with\n"
                    "change and %, nodes added and removed, module changes",
                    offsetof(struct oc_analyze_args, baseline_path), "a JSON report file"),
};
static const struct oc_opt_group oc_budget_group = {
    "budgets (exit 1 when one is exceeded; sizes take SI or IEC suffixes: 30M, 5G, 2GiB):", oc_budget_opts,
    sizeof oc_budget_opts / sizeof oc_budget_opts[0]};

/* multi-GPU options, listed under the GPU group's heading */
static const struct oc_opt oc_multi_gpu_opts[] = {
    OC_OPT_PARSE_ROW("--comm-efficiency", "X", "fraction of GPU-to-GPU bandwidth reached (default 0.75)",
                     offsetof(struct oc_cli_gpu, perf.eff_comm), 0, 0, "a fraction 0 < X <= 1", oc_opt_fraction),
};
static const struct oc_opt oc_parallel_opts[] = {
    OC_OPT_INT_ROW("--gpus", "N",
                   "data parallel on N GPUs: training step with ring all-reduce\n"
                   "of the gradients (weak scaling; --optimizer, default sgd)",
                   offsetof(struct oc_analyze_args, n_gpus), 1, 65536, "an integer from 1 to 65536"),
    OC_OPT_INT_ROW("--pipeline", "N", "split the nodes into N contiguous stages on N GPUs",
                   offsetof(struct oc_analyze_args, n_stages), 1, 65536, "an integer from 1 to 65536"),
    OC_OPT_PARSE_ROW("--balance", "KEY", "pipeline stages balanced by time (default) or memory",
                     offsetof(struct oc_analyze_args, balance), 0, 0, "time or memory", oc_opt_balance),
};
static const struct oc_opt_group oc_multi_gpu_group = {NULL, oc_multi_gpu_opts, 1};
static const struct oc_opt_group oc_parallel_group = {NULL, oc_parallel_opts,
                                                      sizeof oc_parallel_opts / sizeof oc_parallel_opts[0]};

static const char oc_analyze_usage[] = "usage: onnxcost [analyze] MODEL.onnx [options]\n"
                                       "\n"
                                       "Prints one row per node (execution order) with its output shape, parameters\n"
                                       "and MACs, then totals: params, MACs, FLOPs and torchsummary's memory lines.\n"
                                       "Weights are never read: a 500 MB model loads in milliseconds, and external\n"
                                       "data files are not opened.\n"
                                       "\n";

static const char oc_analyze_footer[] =
    "\n"
    "units: MACs = multiply-accumulates of Conv/Gemm/MatMul without bias (torchvision's\n"
    "\"GFLOPS\"); FLOPs = 2 x MACs + bias adds + elementwise work (docs/COSTS.md);\n"
    "sizes in MiB (2^20 bytes).\n"
    "\n"
    "exit codes: 0 ok, 1 a budget was exceeded, 2 bad model file or usage,\n"
    "            3 out of memory or output not writable, 4 a budget not verified:\n"
    "            the analysis is incomplete and the total is only a lower bound,\n"
    "            or a dim the total grows with is unbound (taken as 1)\n"
    "\n"
    "examples:\n"
    "  onnxcost fixtures/mnist/torchsummary_net.onnx\n"
    "  onnxcost model.onnx --batch 8 --format json -o costs.json\n";

/* Whether a budgeted total may grow with the dims left unbound: parameters
   never do; MACs and FLOPs not where their formula is proven constant. */
static bool oc_budget_grows(enum oc_budget_key k, const struct oc_symbolic *sym) {
    int64_t v;
    switch (k) {
    case OC_BUDGET_PARAMS:
    case OC_BUDGET_PARAMS_BYTES: return false;
    case OC_BUDGET_MACS: return !(sym && sym->totals_proven && oc_poly_constant(sym->macs, &v));
    case OC_BUDGET_FLOPS: return !(sym && sym->totals_proven && oc_poly_constant(sym->flops, &v));
    default: return true;
    }
}

/* How a budget line writes a total that broke its limit: "MACs 12,345",
   or where the total is only a lower bound (a count saturated at 2^64 - 1,
   nodes without a cost) "MACs >= 18,446,...,615 (saturated at 2^64 - 1)":
   exceeded all the same, but never shown as the exact figure. */
static const char *oc_budget_value_text(const struct oc_budget_excess *e, const struct oc_totals *t, char *buf,
                                        size_t size) {
    char num[48];
    bool saturated = (t->flags & OC_COST_OVERFLOW) || e->value == UINT64_MAX;
    bool lower = saturated || (e->key != OC_BUDGET_PARAMS && e->key != OC_BUDGET_PARAMS_BYTES && !oc_totals_exact(t));
    snprintf(buf, size, "%s%s%s", lower ? ">= " : "", oc_fmt_thousands(e->value, num, sizeof num),
             saturated ? " (a count saturated at 2^64 - 1)" : lower ? " (a lower bound)" : "");
    return buf;
}

/* Budget lines on stderr; the exit code they call for (OC_EXIT_OK when none). */
static int oc_budget_report(const struct oc_budget *budget, const struct oc_analysis *an, const char *path,
                            bool allow_incomplete, bool quiet) {
    int rc = OC_EXIT_OK;
    struct oc_budget_excess ex[OC_BUDGET_COUNT];
    int32_t n_ex = oc_budget_check(budget, &an->totals, ex);
    for (int32_t k = 0; k < n_ex; k++) {
        char b1[96], b2[48];
        double over = 100.0 * ((double)ex[k].value - (double)ex[k].limit) / (double)(ex[k].limit ? ex[k].limit : 1);
        fprintf(oc_cli_err(), "onnxcost: budget exceeded: %s: %s %s > %s (--%s%s%s), over by %.1f %%\n", path,
                oc_budget_key_label(ex[k].key), oc_budget_value_text(&ex[k], &an->totals, b1, sizeof b1),
                oc_fmt_thousands(ex[k].limit, b2, sizeof b2), oc_budget_key_option(ex[k].key),
                budget->text[ex[k].key] ? " " : "", budget->text[ex[k].key] ? budget->text[ex[k].key] : "", over);
    }
    if (n_ex)
        rc = OC_EXIT_BUDGET;
    /* a budget kept only by a lower bound is not kept */
    n_ex = oc_budget_unverified(budget, &an->totals, ex);
    for (int32_t k = 0; k < n_ex; k++) {
        char b1[48], b2[48];
        struct oc_budget_excess *e = &ex[k];
        if (allow_incomplete && quiet)
            continue;
        fprintf(oc_cli_err(),
                "onnxcost: %s: %s: %s >= %s, within --%s %s, but only a lower bound (%d of %d nodes without "
                "a cost%s)%s\n",
                allow_incomplete ? "warning: budget checked against a lower bound" : "budget not verified", path,
                oc_budget_key_label(e->key), oc_fmt_thousands(e->value, b1, sizeof b1), oc_budget_key_option(e->key),
                budget->text[e->key] ? budget->text[e->key] : oc_fmt_thousands(e->limit, b2, sizeof b2),
                an->totals.n_uncosted, an->totals.n_nodes,
                an->totals.flags & OC_COST_OVERFLOW ? ", a count saturated" : "",
                allow_incomplete ? "" : "; --allow-incomplete accepts it");
    }
    if (n_ex && !allow_incomplete && rc == OC_EXIT_OK)
        rc = OC_EXIT_INCOMPLETE;
    return rc;
}

/* Budgets over a total that may grow with a dim left unbound (taken as 1):
   kept there is kept at one binding only, not for the sizes the model
   takes. The exit code they call for (OC_EXIT_OK when none). */
static int oc_budget_report_unbound(const struct oc_budget *budget, const struct oc_analysis *an, const char *path,
                                    const struct oc_symbolic *sym) {
    int rc = OC_EXIT_OK;
    const struct oc_bound_dim *free_dim = NULL;
    for (int32_t i = 0; i < an->n_bound && !free_dim; i++)
        if (an->bound[i].source == OC_BIND_DEFAULT)
            free_dim = &an->bound[i];
    struct oc_budget_excess over[OC_BUDGET_COUNT];
    int32_t n_over = oc_budget_check(budget, &an->totals, over);
    for (int k = 0; free_dim && k < OC_BUDGET_COUNT; k++) {
        bool exceeded = false;
        for (int32_t j = 0; j < n_over; j++)
            exceeded |= over[j].key == (enum oc_budget_key)k;
        if (!budget->set[k] || exceeded || !oc_budget_grows((enum oc_budget_key)k, sym))
            continue;
        char what[160];
        if (free_dim->name)
            snprintf(what, sizeof what, "dim '%s'", free_dim->name);
        else
            snprintf(what, sizeof what, "axis %d of input '%s'", (int)free_dim->axis,
                     free_dim->input ? free_dim->input : "");
        fprintf(oc_cli_err(),
                "onnxcost: budget not verified: %s: --%s %s holds with %s unbound, taken as %lld; bind it (%s) or "
                "range it (--dim NAME=LO:HI) to check the sizes the model takes\n",
                path, oc_budget_key_option((enum oc_budget_key)k), budget->text[k] ? budget->text[k] : "", what,
                (long long)free_dim->value, free_dim->name ? "--dim NAME=N" : "--batch N for axis 0");
        if (rc == OC_EXIT_OK)
            rc = OC_EXIT_INCOMPLETE;
    }
    return rc;
}

/* Budgets over ranges: each limit against its figure's maximum over the box,
   naming the binding there; a box not bounded keeps none (exit 4). */
static int oc_budget_report_ranges(const struct oc_budget *budget, const struct oc_range_result *r, const char *path,
                                   bool allow_incomplete, bool quiet) {
    bool any = false;
    for (int k = 0; k < OC_BUDGET_COUNT; k++)
        any |= budget->set[k];
    if (!any)
        return OC_EXIT_OK;
    if (r->method == OC_RANGE_UNBOUNDED) {
        fprintf(oc_cli_err(), "onnxcost: budget not verified: %s: the figures over the ranges are not bounded (%s; %llu "
                        "bindings, more than --range-points)\n",
                path, r->why, (unsigned long long)r->points);
        return OC_EXIT_INCOMPLETE;
    }
    static const enum oc_range_fig fig_of[OC_BUDGET_COUNT] = {
        [OC_BUDGET_PARAMS] = OC_RF_PARAMS, [OC_BUDGET_MACS] = OC_RF_MACS, [OC_BUDGET_FLOPS] = OC_RF_FLOPS,
        [OC_BUDGET_PARAMS_BYTES] = OC_RF_PARAMS_BYTES, [OC_BUDGET_PEAK_MEMORY] = OC_RF_PEAK};
    int rc = OC_EXIT_OK;
    struct oc_budget_excess ex[OC_BUDGET_COUNT];
    int32_t n_ex = oc_budget_check(budget, &r->worst, ex);
    for (int32_t k = 0; k < n_ex; k++) {
        char b1[96], b2[48], at[256] = "";
        const struct oc_range_figure *g = &r->fig[fig_of[ex[k].key]];
        size_t len = 0;
        for (int32_t j = 0; j < r->n && len < sizeof at; j++)
            len += (size_t)snprintf(at + len, sizeof at - len, "%s%s=%lld", j ? ", " : "", r->dims[j].name,
                                    (long long)g->argmax[j]);
        double over = 100.0 * ((double)ex[k].value - (double)ex[k].limit) / (double)(ex[k].limit ? ex[k].limit : 1);
        fprintf(oc_cli_err(), "onnxcost: budget exceeded: %s: %s %s > %s (--%s%s%s) at %s, over by %.1f %%\n", path,
                oc_budget_key_label(ex[k].key), oc_budget_value_text(&ex[k], &r->worst, b1, sizeof b1),
                oc_fmt_thousands(ex[k].limit, b2, sizeof b2), oc_budget_key_option(ex[k].key),
                budget->text[ex[k].key] ? " " : "", budget->text[ex[k].key] ? budget->text[ex[k].key] : "", at, over);
    }
    if (n_ex)
        rc = OC_EXIT_BUDGET;
    n_ex = oc_budget_unverified(budget, &r->worst, ex);
    for (int32_t k = 0; k < n_ex; k++) {
        char b1[48];
        if (allow_incomplete && quiet)
            continue;
        fprintf(oc_cli_err(), "onnxcost: %s: %s: %s >= %s over the ranges, within --%s, but only a lower bound%s\n",
                allow_incomplete ? "warning: budget checked against a lower bound" : "budget not verified", path,
                oc_budget_key_label(ex[k].key), oc_fmt_thousands(ex[k].value, b1, sizeof b1),
                oc_budget_key_option(ex[k].key), allow_incomplete ? "" : "; --allow-incomplete accepts it");
    }
    if (n_ex && !allow_incomplete && rc == OC_EXIT_OK)
        rc = OC_EXIT_INCOMPLETE;
    return rc;
}

/* analyze, or `ranges` (as): the same, needing a range to bound */
static int oc_analyze_as(int argc, char **argv, const char *as);

int oc_cmd_analyze(int argc, char **argv) { return oc_analyze_as(argc, argv, NULL); }

int oc_cmd_ranges(int argc, char **argv) { return oc_analyze_as(argc, argv, "ranges"); }

/* "onnxcost WORD MODEL": WORD no file and named like no command */
static bool oc_analyze_not_a_command(const char *word) {
    return word && !strchr(word, '/') && !strchr(word, '.') && access(word, F_OK) != 0;
}

static int oc_analyze_as(int argc, char **argv, const char *as) {
    struct oc_analyze_args a = {
        .sort = OC_SORT_NONE, .format = OC_FORMAT_TEXT, .balance = OC_BALANCE_TIME, .range_points = 1024};
    struct oc_cli_bind bind;
    struct oc_cli_price price = {0};
    struct oc_cli_train tr = {0};
    struct oc_cli_gpu gg;
    struct oc_load_opts lopts = {0};
    const char *out_path = NULL;
    oc_cli_gpu_init(&gg);
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    bind.ranges_ok = true;
    const struct oc_opt_use groups[] = {
        {&oc_group_bind, &bind},    {&oc_group_price, &price},     {&oc_group_train, &tr},
        {&oc_analyze_group, &a},    {&oc_group_output, &out_path}, {&oc_budget_group, &a},
        {&oc_group_gpu, &gg},       {&oc_group_fit, &gg},          {&oc_group_reserve, &gg},
        {&oc_multi_gpu_group, &gg}, {&oc_parallel_group, &a},      {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"analyze",         "",     oc_analyze_usage,
                                    oc_analyze_footer, groups, sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    const char *path = n_args ? args[0] : NULL;
    struct oc_baseline baseline = {0};
    struct oc_profile profile = {0};
    struct oc_measured measured = {0};
    struct oc_lint_result lint = {0};
    struct oc_analyze_opts opts = bind.opts;
    struct oc_range_result ranges = {0};
    struct oc_binding *range_dims = NULL;
    struct oc_perf_opts popts = gg.perf;
    const struct oc_gpu *gpu = gg.gpu;
    bool train = tr.on || a.samples || a.n_gpus;
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (n_args == 0) {
        rc = oc_cli_usage_error("no model given (try 'onnxcost analyze --help')");
        goto done;
    }
    if (n_args > 1 && !as && oc_analyze_not_a_command(args[0])) {
        rc = oc_cli_usage_error("'%s' is neither a command nor a model file (the commands: 'onnxcost --help')",
                                args[0]);
        goto done;
    }
    if (n_args > 1) {
        rc = oc_cli_usage_error("%s%smore than one model given ('%s' and '%s')", as ? as : "", as ? ": " : "",
                                args[0], args[1]);
        goto done;
    }
    if (as && !bind.n_ranges) {
        rc = oc_cli_usage_error("ranges: give a range to bound every figure over, --dim NAME=LO:HI (--dim "
                                "batch=1:64); docs/RANGES.md");
        goto done;
    }
    if (a.columns && a.format != OC_FORMAT_TEXT) {
        rc = oc_cli_usage_error("--columns sets the text table's columns (--format %s has its own)",
                                oc_format_name(a.format));
        goto done;
    }
    if (a.columns & OC_COLS_SHAPES && a.depth > 0) {
        rc = oc_cli_usage_error("--columns input/output: module rows (--depth) have no shapes");
        goto done;
    }
    if (!gpu && (gg.fit || a.n_gpus || a.n_stages)) {
        rc = oc_cli_usage_error("--fit, --gpus and --pipeline need --gpu NAME or --gpu-spec FILE");
        goto done;
    }
    int32_t largest = -1;
    if (a.largest) {
        for (int32_t k = 0; k < bind.n_ranges; k++)
            if (strcmp(bind.ranges[k].name, a.largest) == 0)
                largest = k;
        bool any = false;
        for (int k = 0; k < OC_BUDGET_COUNT; k++)
            any |= a.budget.set[k];
        if (largest < 0 || !any) {
            rc = oc_cli_usage_error("--largest %s needs --dim %s=LO:HI (the values to search) and a budget "
                                    "(--max-macs, --max-peak-memory, ... or --budget FILE)",
                                    a.largest, a.largest);
            goto done;
        }
    }
    if (bind.n_ranges && (a.baseline_path || a.measured_path)) {
        rc = oc_cli_usage_error("ranges (--dim NAME=LO:HI) do not go with --baseline or --measured (one binding each)");
        goto done;
    }
    if (popts.autocast && price.name) {
        rc = oc_cli_usage_error("--autocast sets each tensor's type as PyTorch's autocast does; leave --dtype %s out",
                                price.name);
        goto done;
    }
    opts.price_bits = price.bits;
    popts.dtype = price.name ? price.dtype : 0;
    if (bind.n_ranges) { /* the box first: the table is then at its upper end */
        struct oc_model *rm = NULL;
        struct oc_diag rd = {0};
        enum oc_status rst = oc_cli_model_load(path, &lopts, &rm, &rd);
        if (rst == OC_OK)
            rst = oc_range_analyze(rm, &opts, bind.ranges, bind.n_ranges, (uint64_t)a.range_points, &ranges, &rd);
        if (rst == OC_OK && largest >= 0)
            rst = oc_range_largest(rm, &opts, bind.ranges, bind.n_ranges, largest, &a.budget, &ranges, &rd);
        oc_model_free(rm);
        if (rst != OC_OK) {
            rc = rst == OC_ERR_USAGE ? oc_cli_usage_error("%s", rd.msg) : oc_cli_fail(path, rst, rd.msg);
            goto done;
        }
        struct oc_analyze_opts at_hi;
        range_dims = oc_range_corner(&opts, bind.ranges, bind.n_ranges, true, &at_hi);
        if (!range_dims) {
            rc = oc_cli_out_of_memory();
            goto done;
        }
        opts = at_hi;
    }
    oc_cli_train_perf(&tr, &popts);

    struct oc_diag d = {0};
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_symbolic *sym = NULL;
    struct oc_module *mods = NULL;
    int32_t n_mods = 0;
    struct oc_perf perf = {0};
    struct oc_pipeline pipe = {0};
    enum oc_status st = OC_OK;
    opts.keep_built = !a.no_symbolic; /* the formulas' probes fork the graph as built */
    if ((rc = oc_cli_load_analyze(path, &lopts, &opts, &m, &an)) != OC_EXIT_OK)
        goto free_model;
    for (int32_t i = 0; !a.quiet && i < oc_model_n_warnings(m); i++)
        oc_cli_diag("warning", path, oc_model_warning(m, i));
    if (!a.no_symbolic) {
        struct oc_diag sd = {0};
        /* the formulas, and which are exact, which only fitted */
        enum oc_status sst = oc_symbolic_wanted(an) ? oc_symbolic_derive(m, &opts, an, &sym, &sd) : OC_OK;
        if (sst == OC_ERR_NOMEM) {
            rc = oc_cli_fail(path, OC_ERR_NOMEM, "out of memory");
            goto free_model;
        }
        if (sst != OC_OK && !a.quiet)
            fprintf(oc_cli_err(), "onnxcost: note: %s: no symbolic formulas (%s)\n", path, sd.msg);
    }
    if (!a.quiet)
        oc_cli_analysis_warnings(path, an, sym);

    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, out_path)) != OC_EXIT_OK)
        goto free_model;
    FILE *f = f_out.f;
    if (a.depth > 0) {
        st = oc_modules_build(an, (int32_t)a.depth, &mods, &n_mods, &d);
        if (st == OC_OK && sym)
            st = oc_modules_symbolic(sym, mods, n_mods);
        if (st != OC_OK) {
            oc_cli_diag("error", path, st == OC_ERR_NOMEM ? "out of memory" : d.msg);
            rc = OC_EXIT_INTERNAL;
            oc_cli_discard_output(&f_out);
            goto free_model;
        }
    }
    if (a.baseline_path) {
        char err[256];
        if (!oc_baseline_load(a.baseline_path, &baseline, err, sizeof err)) {
            oc_cli_diag("error", a.baseline_path, err);
            rc = OC_EXIT_INPUT;
            oc_cli_discard_output(&f_out);
            goto free_model;
        }
    }
    if (a.measured_path) {
        char err[256];
        if (!oc_profile_load(a.measured_path, &profile, err, sizeof err)) {
            oc_cli_diag("error", a.measured_path, err);
            rc = OC_EXIT_INPUT;
            oc_cli_discard_output(&f_out);
            goto free_model;
        }
        if (oc_measure_join(an, &profile, &measured) != OC_OK) {
            oc_cli_diag("error", path, "out of memory");
            rc = OC_EXIT_INTERNAL;
            oc_cli_discard_output(&f_out);
            goto free_model;
        }
    }
    struct oc_training training = {0};
    if (train) {
        oc_training_estimate(an, tr.optimizer, a.samples, oc_cli_train_saved_rules(&tr), &training);
        if (oc_training_signs(an, &training) != OC_OK) {
            oc_cli_diag("error", path, "out of memory");
            rc = OC_EXIT_INTERNAL;
            oc_cli_discard_output(&f_out);
            goto free_model;
        }
    }
    struct oc_data_parallel dp, step;
    struct oc_fit fitr = {0};
    struct oc_gpu_report gr = {&perf, NULL, NULL, a.balance, NULL, gg.spec_path, NULL};
    if (gpu) {
        st = oc_perf_estimate(an, gpu, &popts, &perf);
        if (st == OC_OK && a.n_stages)
            st = oc_pipeline_split(&perf, an, (int32_t)a.n_stages, a.balance, &pipe);
        if (st == OC_OK && gg.fit) {
            st = oc_fit_compute(m, &opts, an, gpu, train, tr.optimizer, oc_cli_train_saved_rules(&tr),
                                training.signs.rules, gg.reserve, &fitr, &d);
            gr.fit = &fitr;
        }
        if (a.n_gpus && st == OC_OK) {
            st = oc_data_parallel(&perf, an, &training, (int32_t)a.n_gpus, &dp);
            gr.dp = &dp;
        }
        if (train && st == OC_OK) { /* what a user training reads first: the step, not the forward pass */
            st = oc_data_parallel(&perf, an, &training, 1, &step);
            gr.train_step = &step;
        }
        if (a.n_stages)
            gr.pipeline = &pipe;
    }
    struct oc_lint_opts lo;
    oc_lint_defaults(&lo);
    lo.perf = gpu ? &perf : NULL;
    if (st == OC_OK && a.lint)
        st = oc_lint_run(m, an, &lo, &lint, &d);
    if (st != OC_OK) {
        rc = oc_cli_fail(path, st, st == OC_ERR_NOMEM ? "out of memory" : d.msg);
        oc_cli_discard_output(&f_out);
        goto free_model;
    }
    struct oc_report_spec spec = {1,
                                  a.format,
                                  path,
                                  oc_cli_write_file,
                                  f,
                                  sym,
                                  a.sort,
                                  (int32_t)a.top,
                                  mods,
                                  n_mods,
                                  train ? &training : NULL,
                                  price.name,
                                  a.baseline_path ? &baseline : NULL,
                                  f == oc_cli_out() ? oc_cli_terminal_width() : 0,
                                  f == oc_cli_out() && oc_cli_terminal_width() > 0 && !getenv("NO_COLOR"),
                                  gpu ? &gr : NULL,
                                  a.columns,
                                  a.measured_path ? &measured : NULL,
                                  bind.n_ranges ? &ranges : NULL,
                                  a.lint ? &lint : NULL};
    st = oc_report_render(an, &spec, &d);
    rc = oc_cli_close_report(&f_out, out_path, st);
    int budget_rc = bind.n_ranges ? oc_budget_report_ranges(&a.budget, &ranges, path, a.allow_incomplete, a.quiet)
                                  : oc_budget_report(&a.budget, an, path, a.allow_incomplete, a.quiet);
    int unbound_rc = oc_budget_report_unbound(&a.budget, an, path, sym);
    if (budget_rc == OC_EXIT_OK)
        budget_rc = unbound_rc;
    if (rc == OC_EXIT_OK)
        rc = budget_rc;
free_model:
    oc_lint_free(&lint);
    oc_perf_free(&perf);
    oc_pipeline_free(&pipe);
    oc_baseline_free(&baseline);
    oc_measured_free(&measured);
    oc_profile_free(&profile);
    oc_symbolic_free(sym);
    oc_analysis_free(an);
    oc_model_free(m);
done:
    if (bind.n_ranges)
        oc_range_free(&ranges);
    free(range_dims);
    oc_cli_bind_free(&bind);
    free(args);
    return rc;
}
