/*
 * cmd_lint.c — `onnxcost lint MODEL [options]`: what to change in the model
 * and what each change saves (views/lint/lint.h, docs/LINT.md).
 */
#include "cli.h"
#include "groups.h"

#include "../views/lint/lint.h"
#include "../reports/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char oc_lint_usage[] =
    "usage: onnxcost lint MODEL.onnx [--dim NAME=N]... [options]\n"
    "\n"
    "What to change in the model, and what each change saves: weights stored twice\n"
    "(byte for byte, or transposed), initializers and inputs nothing reads, nodes\n"
    "whose results reach no output, nodes computed from weights only (fold them),\n"
    "no-ops, Transposes and Casts that cancel, BatchNorms and per-channel Mul/Add\n"
    "to fold into the Conv before them, and nodes without a cost (the analysis is\n"
    "incomplete). One line per finding, `file: level: rule: message; saves ...`,\n"
    "each saving from the same cost model as the analysis (with --gpu, also\n"
    "predicted time). Exit 1 when a finding is at --fail-on's level or above.\n"
    "Rules: docs/LINT.md.\n"
    "\n";

static const char oc_lint_footer[] = "\n"
                                     "examples:\n"
                                     "  onnxcost lint gpt2.onnx\n"
                                     "  onnxcost lint model.onnx --select weights,graph/dead-node --fail-on warning\n"
                                     "  onnxcost lint model.onnx --format sarif -o lint.sarif\n";

struct oc_lint_args {
    enum oc_format format;
    struct oc_lint_opts lint;
    bool selected;                 /* a --select was given: the first clears the rest */
    enum oc_lint_level fail_on;
    bool fail_never;
    int64_t min_dup_bytes;
};

/* --select / --ignore RULE[,RULE...]: ids or their prefix before '/'. */
static int oc_lint_rules_opt(struct oc_lint_args *a, const char *v, bool on, const char *prefix) {
    if (!*v) /* --select "" would select nothing, and pass any --fail-on */
        return oc_cli_usage_error("%s--%s: expected rule ids separated by commas, got an empty list", prefix,
                                  on ? "select" : "ignore");
    if (on && !a->selected) {
        memset(a->lint.enabled, 0, sizeof a->lint.enabled);
        a->selected = true;
    }
    char buf[256];
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof buf)
            return oc_cli_usage_error("%s--%s: expected rule ids separated by commas, got '%s'", prefix,
                                      on ? "select" : "ignore", v);
        memcpy(buf, p, n);
        buf[n] = 0;
        if (!oc_lint_select(&a->lint, buf, on)) {
            char ids[512];
            size_t o = 0;
            for (int r = 0; r < OC_LINT_RULES && o < sizeof ids; r++)
                o += (size_t)snprintf(ids + o, sizeof ids - o, "%s%s", r ? ", " : "", oc_lint_rules[r].id);
            return oc_cli_usage_error("%s--%s: no rule '%s' (rules: %s)", prefix, on ? "select" : "ignore", buf, ids);
        }
        p += n + (p[n] == ',');
    }
    return OC_PARSE_GO;
}

static int oc_opt_select(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    return oc_lint_rules_opt(dest, v, true, prefix);
}

static int oc_opt_ignore(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    return oc_lint_rules_opt(dest, v, false, prefix);
}

static bool oc_opt_fail_on(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    struct oc_lint_args *a = dest;
    a->fail_never = strcmp(v, "never") == 0;
    return a->fail_never || oc_lint_level_parse(v, &a->fail_on);
}

static const struct oc_opt oc_lint_opts[] = {
    OC_OPT_PARSE_ROW("--format", "FMT",
                     "text (default: one line per finding), json (schema onnxcost-lint/1),\n"
                     "md, html, or sarif (SARIF 2.1.0, for code-scanning views)",
                     offsetof(struct oc_lint_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_JSON | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_SARIF |
                         1 << OC_FORMAT_HTML,
                     0, "text, json, md, html or sarif", oc_opt_format),
    OC_OPT_CALL_ROW("--select", "RULES",
                    "only these rules (ids, or a prefix such as 'weights'; commas;\n"
                    "repeatable; 'memory/peak' is off unless selected)",
                    oc_opt_select),
    OC_OPT_CALL_ROW("--ignore", "RULES", "not these rules (as --select)", oc_opt_ignore),
    OC_OPT_PARSE_ROW("--fail-on", "LEVEL",
                     "exit 1 when a finding is at this level or above: note, warning,\n"
                     "error (default) or never",
                     0, 0, 0, "note, warning, error or never", oc_opt_fail_on),
    OC_OPT_INT_ROW("--min-duplicate-bytes", "N",
                   "initializers smaller than this are not compared for duplicates\n"
                   "(default 1024)",
                   offsetof(struct oc_lint_args, min_dup_bytes), 1, INT64_MAX, "a positive integer"),
};
static const struct oc_opt_group oc_lint_group = {NULL, oc_lint_opts, OC_ARRAY_LEN(oc_lint_opts)};

int oc_cmd_lint(int argc, char **argv) {
    struct oc_lint_args a = {.format = OC_FORMAT_TEXT, .fail_on = OC_LINT_ERROR, .min_dup_bytes = 1024};
    oc_lint_defaults(&a.lint);
    struct oc_cli_bind bind;
    struct oc_cli_price price = {0};
    struct oc_cli_gpu gg;
    struct oc_load_opts lopts = {0};
    const char *out_path = NULL;
    oc_cli_gpu_init(&gg);
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    const struct oc_opt_use groups[] = {
        {&oc_lint_group, &a},         {&oc_group_bind, &bind}, {&oc_group_price, &price},
        {&oc_group_output, &out_path}, {&oc_group_gpu, &gg},    {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"lint", "lint: ", oc_lint_usage, oc_lint_footer, groups,
                                    sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_perf perf = {0};
    struct oc_lint_result res = {0};
    if (rc != OC_PARSE_GO)
        goto done;
    if (n_args != 1) {
        rc = oc_cli_usage_error(n_args ? "lint: more than one model given"
                                       : "lint: no model given (try 'onnxcost lint --help')");
        goto done;
    }
    const char *path = args[0];
    struct oc_analyze_opts opts = bind.opts;
    struct oc_perf_opts popts = gg.perf;
    opts.price_bits = price.bits;
    popts.dtype = price.name ? price.dtype : 0;
    if ((rc = oc_cli_load_analyze(path, &lopts, &opts, &m, &an)) != OC_EXIT_OK)
        goto done;
    oc_cli_analysis_warnings(path, an, NULL);
    enum oc_status st;
    if (gg.gpu && (st = oc_perf_estimate(an, gg.gpu, &popts, &perf)) != OC_OK) {
        rc = oc_cli_fail(path, st, "out of memory");
        goto done;
    }
    a.lint.min_dup_bytes = (uint64_t)a.min_dup_bytes;
    a.lint.perf = gg.gpu ? &perf : NULL;
    struct oc_diag d = {0};
    if ((st = oc_lint_run(m, an, &a.lint, &res, &d)) != OC_OK) {
        rc = oc_cli_fail(path, st, d.msg);
        goto done;
    }
    struct oc_outfile f;
    if ((rc = oc_cli_open_output(&f, out_path)) != OC_EXIT_OK)
        goto done;
    struct oc_gpu_report gr = {.perf = gg.gpu ? &perf : NULL, .spec_source = gg.spec_path};
    struct oc_report_spec spec = {.version = 1,
                                  .format = a.format,
                                  .model_path = path,
                                  .write = oc_cli_write_file,
                                  .write_arg = f.f,
                                  .gpu = gg.gpu ? &gr : NULL};
    rc = oc_cli_close_report(&f, out_path, oc_report_lint(an, &res, &spec, &d));
    if (rc == OC_EXIT_OK && !a.fail_never)
        for (int l = a.fail_on; l < OC_LINT_LEVELS; l++)
            if (res.by_level[l])
                rc = OC_EXIT_BUDGET;
done:
    oc_lint_free(&res);
    oc_perf_free(&perf);
    oc_analysis_free(an);
    oc_model_free(m);
    oc_cli_bind_free(&bind);
    free(args);
    return rc;
}
