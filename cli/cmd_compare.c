/*
 * cmd_compare.c — `onnxcost compare a.onnx b.onnx [c.onnx ...] [options]`.
 */
#include "cli.h"

#include "../analyzer/model.h"
#include "../analyzer/training.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_compare_help[] =
    "usage: onnxcost compare A.onnx B.onnx [C.onnx ...] [options]\n"
    "\n"
    "Side-by-side totals: params, MACs, FLOPs, params size, peak activation memory\n"
    "(and training memory with --optimizer); the smallest value of each column is\n"
    "marked *, and each value shows its ratio to the first model.\n"
    "\n"
    "options:\n"
    "  --dim NAME=N       bind a symbolic dim in every model (repeatable)\n"
    "  --batch N          bind the first dim of every graph input\n"
    "  --optimizer NAME   add training memory (sgd, momentum, adam)\n"
    "  --format FMT       text (default), json, md or csv\n"
    "  -o, --output FILE  write to FILE\n"
    OC_CLI_LIMITS_HELP;

int oc_cmd_compare(int argc, char **argv) {
    const char *out_path = NULL, *v;
    enum oc_format fmt = OC_FORMAT_TEXT;
    bool train = false;
    enum oc_optimizer opt = OC_OPT_SGD;
    int rc = OC_EXIT_OK;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    struct oc_binding *dims = calloc((size_t)argc + 1, sizeof *dims);
    int32_t n_paths = 0;
    struct oc_analyze_opts opts = {0};
    struct oc_load_opts lopts = {0};
    if (!paths || !dims) {
        free(paths), free(dims);
        return OC_EXIT_INTERNAL;
    }
    opts.dims = dims;
    for (int i = 1, limit_opt, bind_opt; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(oc_compare_help, stdout);
            rc = oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
            goto done;
        } else if (oc_cli_option(argc, argv, &i, "--format", &v)) {
            if (!v || !oc_format_parse(v, &fmt)) {
                rc = oc_cli_usage_error("compare: --format takes text, json, csv or md");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--output", &v) || oc_cli_option(argc, argv, &i, "-o", &v)) {
            out_path = v;
        } else if (oc_cli_option(argc, argv, &i, "--optimizer", &v)) {
            if (!v || !oc_optimizer_parse(v, &opt)) {
                rc = oc_cli_usage_error("compare: --optimizer takes sgd, momentum or adam");
                goto done;
            }
            train = true;
        } else if ((bind_opt = oc_cli_bind_option(argc, argv, &i, "compare: ", &opts, dims)) != 0) {
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
            rc = oc_cli_usage_error("compare: unknown option '%s' (try 'onnxcost compare --help')", a);
            goto done;
        } else {
            paths[n_paths++] = a;
        }
    }
    if (n_paths < 2) {
        rc = oc_cli_usage_error("compare: give at least two models");
        goto done;
    }
    struct oc_model **models = calloc((size_t)n_paths, sizeof *models);
    struct oc_analysis **ans = calloc((size_t)n_paths, sizeof *ans);
    struct oc_training *tr = calloc((size_t)n_paths, sizeof *tr);
    struct oc_compare_entry *e = calloc((size_t)n_paths, sizeof *e);
    if (!models || !ans || !tr || !e) {
        rc = OC_EXIT_INTERNAL;
        goto free_all;
    }
    for (int32_t i = 0; i < n_paths; i++) {
        struct oc_diag d = {0};
        enum oc_status st = oc_model_load(paths[i], &lopts, &models[i], &d);
        if (st == OC_OK)
            st = oc_analyze(models[i], &opts, &ans[i], &d);
        if (st != OC_OK) {
            oc_cli_diag("error", paths[i], d.msg);
            rc = st == OC_ERR_NOMEM ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
            goto free_all;
        }
        for (int32_t k = 0; k < ans[i]->n_warnings; k++)
            oc_cli_diag("warning", paths[i], ans[i]->warnings[k]);
        if (train)
            oc_training_estimate(ans[i], opt, 0, &tr[i]);
        e[i] = (struct oc_compare_entry){paths[i], ans[i], train ? &tr[i] : NULL};
    }
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
        oc_cli_usage_error("%s: cannot open for writing", out_path);
        rc = OC_EXIT_INTERNAL;
        goto free_all;
    }
    struct oc_report_spec spec = {.version = 1, .format = fmt, .write = oc_cli_write_file, .write_arg = f};
    struct oc_diag d = {0};
    bool ok = oc_report_compare(e, n_paths, &spec, &d) == OC_OK;
    ok = (f == stdout ? oc_cli_close_stdout() : fclose(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "onnxcost: error: %s: cannot write the report\n", out_path ? out_path : "standard output");
        rc = OC_EXIT_INTERNAL;
    }
free_all:
    for (int32_t i = 0; models && ans && i < n_paths; i++) {
        oc_analysis_free(ans[i]);
        oc_model_free(models[i]);
    }
    free(models), free(ans), free(tr), free(e);
done:
    for (int32_t i = 0; i < opts.n_dims; i++)
        free((void *)dims[i].name);
    free(paths), free(dims);
    return rc;
}
