/*
 * cmd_sweep.c — `onnxcost sweep MODEL --dim NAME=V1,V2,... [--dim ...]`.
 */
#include "cli.h"

#include "../analyzer/model.h"
#include "../analyzer/sweep.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char oc_sweep_help[] =
    "usage: onnxcost sweep MODEL.onnx --dim NAME=V1,V2,... [--dim NAME=...] [options]\n"
    "\n"
    "Analyzes the model at every combination of the listed values (the model is\n"
    "parsed once) and prints one row per binding: MACs, FLOPs, params, the sum of\n"
    "activations, the peak activation memory and the input size.\n"
    "\n"
    "options:\n"
    "  --dim NAME=V1,...  values of a symbolic dim (up to 8 dims); a single value binds it\n"
    "  --format FMT       text (default) or json (schema onnxcost-sweep/1)\n"
    "  -o, --output FILE  write to FILE\n"
    OC_CLI_LIMITS_HELP
    "\n"
    "example:\n"
    "  onnxcost sweep gpt2.onnx --dim batch=1,2,4,8 --dim sequence=128,512\n";

/* "sweep 3/12" on a terminal's standard error, erased at the end. */
static void oc_sweep_progress(void *arg, int64_t done, int64_t total) {
    (void)arg;
    fprintf(stderr, "\rsweep %lld/%lld", (long long)done, (long long)total);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

/* "V1,V2,..." -> values; false on junk. */
static bool oc_parse_list(const char *s, int64_t **out, int32_t *n) {
    int32_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int64_t *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return false;
    *n = 0;
    char *copy = strdup(s);
    if (!copy) {
        free(v);
        return false;
    }
    bool ok = true;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save))
        ok = oc_cli_parse_count(tok, &v[*n]) && v[(*n)++] >= 1;
    free(copy);
    if (!ok || *n == 0 || *n != cap) {
        free(v);
        return false;
    }
    *out = v;
    return true;
}

int oc_cmd_sweep(int argc, char **argv) {
    const char *path = NULL, *out_path = NULL, *v;
    enum oc_format fmt = OC_FORMAT_TEXT;
    struct oc_sweep_dim dims[OC_SWEEP_MAX_DIMS];
    char *names[OC_SWEEP_MAX_DIMS];
    int32_t nd = 0;
    struct oc_load_opts lopts = {0};
    int rc = OC_EXIT_OK;
    for (int i = 1, limit_opt; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(oc_sweep_help, stdout);
            rc = oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
            goto done;
        } else if (oc_cli_option(argc, argv, &i, "--format", &v)) {
            if (!v || !oc_format_parse(v, &fmt)) {
                rc = oc_cli_usage_error("sweep: --format takes text or json");
                goto done;
            }
        } else if (oc_cli_option(argc, argv, &i, "--output", &v) || oc_cli_option(argc, argv, &i, "-o", &v)) {
            if (!v || !v[0]) {
                rc = oc_cli_usage_error("sweep: --output takes a file name");
                goto done;
            }
            out_path = v;
        } else if (oc_cli_option(argc, argv, &i, "--dim", &v)) {
            const char *eq = v ? strchr(v, '=') : NULL;
            int64_t *vals;
            int32_t n;
            if (!eq || eq == v || !oc_parse_list(eq + 1, &vals, &n)) {
                rc = oc_cli_usage_error("sweep: --dim takes NAME=V1,V2,... with positive integers, got '%s'",
                                        v ? v : "");
                goto done;
            }
            if (nd == OC_SWEEP_MAX_DIMS) {
                free(vals);
                rc = oc_cli_usage_error("sweep: at most %d dims", OC_SWEEP_MAX_DIMS);
                goto done;
            }
            names[nd] = strndup(v, (size_t)(eq - v));
            dims[nd] = (struct oc_sweep_dim){names[nd], n, vals};
            nd++;
        } else if ((limit_opt = oc_cli_limit_option(argc, argv, &i, &lopts.limits)) != 0) {
            if (limit_opt < 0) {
                rc = OC_EXIT_INPUT;
                goto done;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = oc_cli_usage_error("sweep: unknown option '%s' (try 'onnxcost sweep --help')", a);
            goto done;
        } else if (!path) {
            path = a;
        } else {
            rc = oc_cli_usage_error("sweep: more than one model given");
            goto done;
        }
    }
    if (!path || nd == 0) {
        rc = oc_cli_usage_error("sweep: give a model and at least one --dim NAME=V1,V2,...");
        goto done;
    }
    struct oc_diag d = {0};
    struct oc_model *m = NULL;
    struct oc_sweep_row *rows = NULL;
    int32_t n_rows = 0;
    enum oc_status st = oc_model_load(path, &lopts, &m, &d);
    if (st == OC_OK)
        st = oc_sweep_run(m, NULL, dims, nd, &rows, &n_rows, isatty(STDERR_FILENO) ? oc_sweep_progress : NULL, NULL,
                          &d);
    if (st != OC_OK) {
        oc_cli_diag("error", path, d.msg);
        rc = st == OC_ERR_NOMEM ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
    } else {
        FILE *f = out_path ? fopen(out_path, "w") : stdout;
        if (!f) {
            oc_cli_usage_error("%s: cannot open for writing", out_path);
            rc = OC_EXIT_INTERNAL;
        } else {
            struct oc_report_spec spec = {.version = 1, .format = fmt, .model_path = path,
                                          .write = oc_cli_write_file, .write_arg = f};
            bool ok = oc_report_sweep(rows, n_rows, dims, nd, &spec, &d) == OC_OK;
            ok = (f == stdout ? oc_cli_close_stdout() : fclose(f) == 0) && ok;
            if (!ok) {
                fprintf(stderr, "onnxcost: error: %s: cannot write the report\n",
                        out_path ? out_path : "standard output");
                rc = OC_EXIT_INTERNAL;
            }
        }
    }
    free(rows);
    oc_model_free(m);
done:
    for (int32_t i = 0; i < nd; i++) {
        free(names[i]);
        free((void *)dims[i].values);
    }
    return rc;
}
