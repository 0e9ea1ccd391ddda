/*
 * cmd_tables.c — `onnxcost tables RESULT.json ... --models DIR -o SPEC.json`:
 * measured kernel tables from replay results (replay/ktables.c), written as
 * a --gpu-spec file whose nodes of a measured family take their time from
 * the tables (docs/MODEL.md, "Kernel tables").
 */
#include "cli.h"
#include "groups.h"

#include "../analyzer/dtype.h"
#include "../analyzer/model.h"
#include "../replay/ktables.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_tables_usage[] =
    "usage: onnxcost tables RESULT.json ... --models DIR [options] -o SPEC.json\n"
    "\n"
    "Builds measured kernel tables from replay results (onnxcost replay --format\n"
    "json) or measure results (onnxcost measure --format json): every measured node\n"
    "becomes a sample of its kernel family (matrix products; dense 3x3, other dense,\n"
    "1x1, grouped and depthwise convolutions; elementwise, reduction, pooling and\n"
    "data-movement kernels) at the precision and --math it ran, with its shape from\n"
    "the model analyzed again at the run's bindings. The spec file (-o) holds the\n"
    "device and the tables (and the fitted factors of a calibrated --gpu-spec); with\n"
    "--gpu-spec it, a node of a family the tables cover takes its time from the\n"
    "nearest measured shapes, every other node from the roofline (docs/MODEL.md).\n"
    "\n";

static const char oc_tables_footer[] =
    "\n"
    "example:\n"
    "  onnxcost tables zoo/*.json --models zoo/ --gpu h200 -o h200-tables.json\n"
    "  onnxcost resnet50.onnx --batch 32 --gpu-spec h200-tables.json --dtype fp16 --math fp16\n"
    "  onnxcost calibrate runs/*.json --machine machine.json -o cal.json\n"
    "  onnxcost tables runs/*.json --gpu-spec cal.json -o cpu.json   # a CPU's measure results\n";

enum { OC_TABLES_MAX_FILES = 256 };

struct oc_tables_args {
    enum oc_format format;
    const char *spec_out;
    const char *report_out;
    const char *models;
    const char *source;
};

static const struct oc_opt oc_tables_opts[] = {
    OC_OPT_TEXT_ROW("--models", NULL, "DIR",
                    "where the results' models are: each file's model by its base name\n"
                    "(default: the path the result names)",
                    offsetof(struct oc_tables_args, models), "a folder"),
    OC_OPT_TEXT_ROW("--source", NULL, "TEXT",
                    "what the tables were measured on, for the reports (default: the\n"
                    "device, driver, CUDA and library versions the first result names)",
                    offsetof(struct oc_tables_args, source), "a text"),
    OC_OPT_OUTPUT_ROW("--output", "-o", "FILE", "write the spec file (device and kernel tables) to FILE",
                      offsetof(struct oc_tables_args, spec_out), "a file name"),
    OC_OPT_OUTPUT_ROW("--report", NULL, "FILE", "write the report to FILE instead of standard output",
                      offsetof(struct oc_tables_args, report_out), "a file name"),
    OC_OPT_PARSE_ROW("--format", "FMT", "report as text (default), md or json (schema onnxcost-tables/1)",
                     offsetof(struct oc_tables_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_JSON, 0, "text, md or json",
                     oc_opt_format),
};
static const struct oc_opt_group oc_tables_group = {NULL, oc_tables_opts, OC_ARRAY_LEN(oc_tables_opts)};

int oc_cli_result_analyze(const struct oc_rp_file *f, const char *models, const struct oc_analyze_opts *given,
                          int32_t price_bits, struct oc_model **m, struct oc_analysis **an) {
    char path[4200], names[1024];
    const char *graph = f->graph ? f->graph : f->model; /* a measure result's: ONNX Runtime's optimized graph */
    const char *base = graph ? strrchr(graph, '/') : NULL;
    base = base ? base + 1 : graph ? graph : "";
    if (models)
        snprintf(path, sizeof path, "%.2000s/%.2000s", models, base);
    else
        snprintf(path, sizeof path, "%.4000s", graph ? graph : "");
    struct oc_analyze_opts opts = given ? *given : (struct oc_analyze_opts){0};
    struct oc_binding dims[32];
    if (f->bindings) { /* "name=value,...": the run's own */
        opts.n_dims = 0;
        opts.batch = 0;
        snprintf(names, sizeof names, "%s", f->bindings);
        for (char *tok = strtok(names, ","); tok && opts.n_dims < 32; tok = strtok(NULL, ",")) {
            char *eq = strchr(tok, '=');
            int64_t v;
            if (eq && eq != tok && oc_cli_parse_count(eq + 1, &v)) {
                *eq = 0;
                dims[opts.n_dims++] = (struct oc_binding){tok, v};
            }
        }
        opts.dims = dims;
    }
    int32_t bits = price_bits, dt = 0;
    if (f->dtype && !oc_dtype_price_parse(f->dtype, &bits, &dt))
        bits = price_bits;
    opts.price_bits = bits;
    struct oc_load_opts lopts = {0};
    *m = NULL;
    *an = NULL;
    int rc = oc_cli_load_analyze(path, &lopts, &opts, m, an);
    for (int32_t i = 0; rc == OC_EXIT_OK && i < (*an)->n_bound; i++)
        if ((*an)->bound[i].source == OC_BIND_DEFAULT) { /* a shape at 1 would key times taken at another size */
            char msg[400];
            const char *nm = (*an)->bound[i].name;
            snprintf(msg, sizeof msg, "the model's dim '%.100s' is bound by neither the result nor --dim: give the "
                     "size it ran at (--dim %.100s=SIZE)", nm ? nm : "?", nm ? nm : "NAME");
            rc = oc_cli_fail(f->path, OC_ERR_USAGE, msg);
        }
    return rc;
}

/* One result's model analyzed at its bindings and dtype (the result's own,
 * else --dim/--batch/--dtype), its samples added to t. */
static int oc_tables_file(const struct oc_tables_args *a, const struct oc_cli_bind *bind,
                          const struct oc_cli_price *price, const struct oc_rp_file *f, double pad_path,
                          struct oc_ktables *t, struct oc_ktables_file *fr) {
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    int rc = oc_cli_result_analyze(f, a->models, &bind->opts, price->bits, &m, &an);
    if (rc == OC_EXIT_OK && oc_ktables_add_file(t, f, an, pad_path, &fr->added) != OC_OK)
        rc = oc_cli_fail(f->path, OC_ERR_NOMEM, "out of memory");
    if (rc == OC_EXIT_OK && fr->added.not_found > fr->added.added)
        oc_cli_diag("warning", f->path, "most measured nodes are not in the model found: is it the model replayed?");
    oc_analysis_free(an);
    oc_model_free(m);
    return rc;
}

int oc_cli_write_kernel_tables(const struct oc_gpu *base, const struct oc_ktables *t,
                               const struct oc_ktables_file *files, int32_t n, const char *spec_out,
                               const char *report_out, int32_t format) {
    struct oc_diag d = {0};
    int rc;
    if (spec_out) {
        struct oc_outfile sf;
        if ((rc = oc_cli_open_output(&sf, spec_out)) != OC_EXIT_OK)
            return rc;
        struct oc_report_spec ss = {.version = 1, .format = OC_FORMAT_JSON, .write = oc_cli_write_file,
                                    .write_arg = sf.f};
        if ((rc = oc_cli_close_report(&sf, spec_out, oc_report_kernel_tables_spec(base, t, &ss, &d))) !=
            OC_EXIT_OK)
            return rc;
    }
    struct oc_ktables_report rep = {t, files, n, spec_out};
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, report_out)) != OC_EXIT_OK)
        return rc;
    struct oc_report_spec spec = {.version = 1, .format = (enum oc_format)format, .write = oc_cli_write_file,
                                  .write_arg = f_out.f};
    return oc_cli_close_report(&f_out, report_out, oc_report_kernel_tables(&rep, &spec, &d));
}

int oc_cmd_tables(int argc, char **argv) {
    struct oc_tables_args a = {.format = OC_FORMAT_TEXT};
    struct oc_cli_gpu g;
    struct oc_cli_bind bind;
    struct oc_cli_price price = {0};
    oc_cli_gpu_init(&g);
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    const struct oc_opt_use groups[] = {
        {&oc_tables_group, &a}, {&oc_group_bind, &bind}, {&oc_group_price, &price}, {&oc_group_gpu, &g}};
    const struct oc_cmd_spec cmd = {"tables", "tables: ", oc_tables_usage, oc_tables_footer, groups,
                                    OC_ARRAY_LEN(groups)};
    const char **paths = NULL;
    int32_t n = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &paths, &n);
    struct oc_rp_file *files = NULL;
    struct oc_ktables_file *fr = NULL;
    struct oc_ktables t = {0};
    struct oc_diag d = {0};
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (g.set || g.perf.math != OC_MATH_AUTO || g.perf.additive) {
        rc = oc_cli_usage_error("tables: of the device options only --gpu NAME, --gpu-spec FILE or --machine FILE "
                                "(the device the results were measured on) apply; the roofline's options do not");
        goto done;
    }
    if (n == 0 || n > OC_TABLES_MAX_FILES) {
        rc = oc_cli_usage_error(n ? "tables: at most %d result files" : "tables: no result files given (try "
                                                                         "'onnxcost tables --help')",
                                OC_TABLES_MAX_FILES);
        goto done;
    }
    files = calloc((size_t)n, sizeof *files);
    fr = calloc((size_t)n, sizeof *fr);
    if (!files || !fr) {
        rc = oc_cli_out_of_memory();
        goto done;
    }
    for (int32_t k = 0; k < n; k++) {
        enum oc_status st = oc_rp_file_read(paths[k], &files[k], &d);
        if (st != OC_OK) {
            rc = oc_cli_fail(paths[k], st, d.msg);
            goto done;
        }
        if (files[k].n_nodes && files[k].math < 0) {
            rc = oc_cli_fail(paths[k], OC_ERR_PARSE, "not a replay result (no --math): the tables need one");
            goto done;
        }
    }
    const struct oc_gpu *base = g.gpu ? g.gpu : oc_gpu_find(files[0].device);
    if (!base) {
        char msg[512];
        snprintf(msg, sizeof msg, "no built-in GPU is named '%s': give the device with --gpu NAME or --gpu-spec FILE",
                 files[0].device);
        rc = oc_cli_fail(files[0].path, OC_ERR_USAGE, msg);
        goto done;
    }
    char source[600];
    snprintf(source, sizeof source, "%s", a.source ? a.source : files[0].device ? files[0].device : "?");
    if (base->tables) /* --gpu-spec with tables: the new samples join them */
        for (int32_t i = 0; i < base->tables->n; i++)
            for (int32_t s = 0; s < base->tables->tables[i].n; s++) {
                const struct oc_ktable *k = &base->tables->tables[i];
                struct oc_kfeat f = {k->family, {k->samples[s].x[0], k->samples[s].x[1], k->samples[s].x[2]},
                                     k->samples[s].work, k->op};
                if (!oc_ktables_add_sample(&t, &f, k->dtype, k->math, k->threads, k->samples[s].seconds)) {
                    rc = oc_cli_out_of_memory();
                    goto done;
                }
            }
    if (!(t.source = strdup(base->tables && !a.source ? base->tables->source : source))) {
        rc = oc_cli_out_of_memory();
        goto done;
    }
    for (int32_t k = 0; k < n && rc == OC_EXIT_OK; k++) {
        fr[k].path = files[k].path;
        fr[k].model = files[k].model;
        rc = oc_tables_file(&a, &bind, &price, &files[k], base->cpu ? base->measured.pad_path : 0, &t, &fr[k]);
    }
    if (rc != OC_EXIT_OK)
        goto done;
    rc = oc_cli_write_kernel_tables(base, &t, fr, n, a.spec_out, a.report_out, (int32_t)a.format);
done:
    for (int32_t k = 0; files && k < n; k++)
        oc_rp_file_free(&files[k]);
    free(files);
    free(fr);
    oc_ktables_free(&t);
    oc_cli_bind_free(&bind);
    free(paths);
    return rc;
}
