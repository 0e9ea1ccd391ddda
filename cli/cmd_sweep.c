/*
 * cmd_sweep.c — `onnxcost sweep MODEL --dim NAME=V1,V2,... [--dim ...]`.
 */
#include "cli.h"
#include "groups.h"

#include "../views/sweep.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char oc_sweep_usage[] =
    "usage: onnxcost sweep MODEL.onnx --dim NAME=V1,V2,... [--dim NAME=...] [options]\n"
    "\n"
    "Analyzes the model at every combination of the listed values (the model is\n"
    "parsed once) and prints one row per binding: MACs, FLOPs, params, the sum of\n"
    "activations, the peak activation memory and the input size. With --gpu: the\n"
    "predicted time and samples/s (tokens/s for token inputs) of each binding, and\n"
    "with --fit the inference memory it needs and whether it fits.\n"
    "\n";

static const char oc_sweep_footer[] = "\n"
                                      "examples:\n"
                                      "  onnxcost sweep gpt2.onnx --dim batch=1,2,4,8 --dim sequence=128,512\n"
                                      "  onnxcost sweep resnet50.onnx --dim batch=1,8,64,256 --gpu v100 --fit\n";

struct oc_sweep_args {
    struct oc_sweep_dim dims[OC_SWEEP_MAX_DIMS];
    int32_t n_dims;
    enum oc_format format;
};

/* s as positive integers V1,V2,... into *out and *n: 1, or 0 when it is
   not one, or -1 out of memory */
static int oc_parse_list(const char *s, int64_t **out, int32_t *n) {
    int32_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    int64_t *v = malloc((size_t)cap * sizeof *v);
    char *copy = strdup(s);
    if (!v || !copy) {
        free(v), free(copy);
        return -1;
    }
    bool ok = true;
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save))
        ok = oc_cli_parse_count(tok, &v[*n]) && v[(*n)++] >= 1;
    free(copy);
    if (!ok || *n == 0 || *n != cap) {
        free(v);
        return 0;
    }
    *out = v;
    return 1;
}

static int oc_opt_sweep_dim(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_sweep_args *a = dest;
    const char *eq = v ? strchr(v, '=') : NULL;
    int64_t *vals = NULL;
    int32_t n = 0;
    int parsed = eq && eq != v ? oc_parse_list(eq + 1, &vals, &n) : 0;
    if (parsed < 0)
        return oc_cli_out_of_memory();
    if (!parsed)
        return oc_cli_usage_error("%s--dim takes NAME=V1,V2,... with positive integers, got '%s'", prefix, v ? v : "");
    if (a->n_dims == OC_SWEEP_MAX_DIMS) {
        free(vals);
        return oc_cli_usage_error("%sat most %d dims", prefix, OC_SWEEP_MAX_DIMS);
    }
    char *name = strndup(v, (size_t)(eq - v));
    if (!name) {
        free(vals);
        return oc_cli_out_of_memory();
    }
    a->dims[a->n_dims++] = (struct oc_sweep_dim){name, n, vals};
    return OC_PARSE_GO;
}

static const struct oc_opt oc_sweep_opts[] = {
    OC_OPT_CALL_ROW("--dim", "NAME=V1,...", "values of a symbolic dim (up to 8 dims); a single value binds it",
                    oc_opt_sweep_dim),
    OC_OPT_PARSE_ROW("--format", "FMT",
                     "text (default), json (schema onnxcost-sweep/1), md, csv or html\n"
                     "(the table and charts of each figure against the first dim; use -o)",
                     offsetof(struct oc_sweep_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_JSON | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_CSV |
                         1 << OC_FORMAT_HTML,
                     0, "text, json, md, csv or html", oc_opt_format),
};
static const struct oc_opt_group oc_sweep_group = {NULL, oc_sweep_opts, sizeof oc_sweep_opts / sizeof oc_sweep_opts[0]};

/* "sweep 3/12" on a terminal's standard error, erased at the end (or the
 * run's progress callback). */
static void oc_sweep_progress(void *arg, int64_t done, int64_t total) {
    (void)arg;
    oc_cli_progress("sweep", done, total);
}

int oc_cmd_sweep(int argc, char **argv) {
    struct oc_sweep_args a = {.format = OC_FORMAT_TEXT};
    struct oc_cli_price price = {0};
    struct oc_cli_gpu gg;
    struct oc_load_opts lopts = {0};
    const char *out_path = NULL;
    oc_cli_gpu_init(&gg);
    const struct oc_opt_use groups[] = {
        {&oc_sweep_group, &a}, {&oc_group_price, &price}, {&oc_group_output, &out_path},     {&oc_group_gpu, &gg},
        {&oc_group_fit, &gg},  {&oc_group_reserve, &gg},  {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"sweep",         "sweep: ", oc_sweep_usage,
                                    oc_sweep_footer, groups,    sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    struct oc_model *m = NULL;
    struct oc_sweep_row *rows = NULL;
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (n_args > 1) {
        rc = oc_cli_usage_error("sweep: more than one model given");
        goto done;
    }
    if (n_args == 0 || a.n_dims == 0) {
        rc = oc_cli_usage_error("sweep: give a model and at least one --dim NAME=V1,V2,...");
        goto done;
    }
    if (!gg.gpu && gg.fit) {
        rc = oc_cli_usage_error("sweep: --fit needs --gpu NAME or --gpu-spec FILE");
        goto done;
    }
    const char *path = args[0];
    struct oc_analyze_opts opts = {.price_bits = price.bits};
    gg.perf.dtype = price.name ? price.dtype : 0;
    struct oc_sweep_gpu sg = {gg.gpu, gg.perf, gg.fit, gg.reserve, 0};
    if (gg.gpu)
        sg.usable = oc_gpu_usable(gg.gpu, gg.reserve);
    struct oc_diag d = {0};
    int32_t n_rows = 0;
    uint32_t absent = 0;
    enum oc_status st = oc_cli_model_load(path, &lopts, &m, &d);
    if (st == OC_OK)
        st = oc_sweep_run(m, &opts, gg.gpu ? &sg : NULL, a.dims, a.n_dims, &rows, &n_rows, &absent,
                          oc_cli_progress_on() ? oc_sweep_progress : NULL, NULL, &d);
    if (st != OC_OK) {
        rc = oc_cli_fail(path, st, d.msg);
        goto done;
    }
    for (int32_t i = 0; i < a.n_dims; i++)
        if (absent >> i & 1) {
            char msg[600];
            snprintf(msg, sizeof msg,
                     "--dim %s: the model's inputs have no symbolic dim named '%s' (its values change "
                     "nothing)",
                     a.dims[i].name, a.dims[i].name);
            oc_cli_diag("warning", path, msg);
        }
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, out_path)) != OC_EXIT_OK)
        goto done;
    FILE *f = f_out.f;
    struct oc_gpu_report gr = {.spec_source = gg.spec_path};
    struct oc_report_spec spec = {.version = 1,
                                  .format = a.format,
                                  .model_path = path,
                                  .write = oc_cli_write_file,
                                  .write_arg = f,
                                  .gpu = gg.gpu ? &gr : NULL};
    rc = oc_cli_close_report(&f_out, out_path,
                             oc_report_sweep(rows, n_rows, a.dims, a.n_dims, gg.gpu ? &sg : NULL, &spec, &d));
done:
    free(rows);
    oc_model_free(m);
    for (int32_t i = 0; i < a.n_dims; i++) {
        free((char *)a.dims[i].name);
        free((void *)a.dims[i].values);
    }
    free(args);
    return rc;
}
