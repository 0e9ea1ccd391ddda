/*
 * cmd_calibrate.c — `onnxcost calibrate FIT.json ... [--check HELD.json]
 * [-o SPEC.json]`: the performance model's efficiency factors fitted to
 * replay results or to ONNX Runtime measurements (replay/calibrate.c), the
 * error before and after per file, and the calibrated device as a spec file.
 */
#include "cli.h"
#include "groups.h"

#include "../analyzer/dtype.h"
#include "../analyzer/model.h"
#include "../replay/calibrate.h"
#include "../reports/report.h"
#include "../views/measure.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char oc_calibrate_usage[] =
    "usage: onnxcost calibrate RESULT.json ... [--check RESULT.json ...] [options]\n"
    "\n"
    "Fits the performance model's efficiency factors (docs/MODEL.md: a compute\n"
    "factor per unit, the memory factor and the per-kernel time) to replay results\n"
    "(onnxcost replay --format json) or to ONNX Runtime's times (onnxcost measure\n"
    "--format json; then give the machine with --machine FILE from onnxcost probe)\n"
    "and prints the per-node and total error of the model before and after, for the\n"
    "files fitted on and for each --check file, which the fit does not see. The\n"
    "device options give the model before the fit: the peaks (--gpu, --gpu-spec,\n"
    "--machine, else the built-in GPU whose name matches the results' device) and\n"
    "the starting factors; --math comes from each file.\n"
    "\n"
    "On a CPU a measure result is fitted at the thread count it ran with (the\n"
    "machine's rates at those threads), so one calibration on records at 1 and N\n"
    "threads serves every thread count (predict with --threads N); the fit adds a\n"
    "factor per op type that runs far from its roofline (LRN, erf-based GELUs) and\n"
    "the thread pool's costs (docs/MODEL.md, \"Thread counts\").\n"
    "\n";

static const char oc_calibrate_footer[] =
    "\n"
    "example:\n"
    "  onnxcost calibrate resnet50-h100.json --check gpt2-h100.json -o h100.json\n"
    "  onnxcost distilbert.onnx --gpu-spec h100.json\n"
    "  onnxcost calibrate resnet18.cpu.json --check vit.cpu.json --machine machine.json -o cpu.json\n"
    "  onnxcost calibrate r18-t1.json r18-t4.json --machine machine.json -o cpu.json  # then --threads N\n"
    "  onnxcost calibrate --end-to-end docs/results/dle-resnet50.csv\n";

enum { OC_CALIB_MAX_FILES = 256 };

struct oc_calibrate_args {
    enum oc_format format;
    const char *spec_out;
    const char *report_out;
    const char *check[OC_CALIB_MAX_FILES];
    int32_t n_check;
    const char *e2e;
    bool keep_noisy;
};

static int oc_opt_check(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_calibrate_args *a = dest;
    if (!v)
        return oc_cli_usage_error("%s--check takes a replay result file", prefix);
    if (a->n_check == OC_CALIB_MAX_FILES)
        return oc_cli_usage_error("%sat most %d --check files", prefix, OC_CALIB_MAX_FILES);
    a->check[a->n_check++] = v;
    return OC_PARSE_GO;
}

static const struct oc_opt oc_calibrate_opts[] = {
    OC_OPT_TEXT_ROW("--end-to-end", NULL, "TABLE.csv",
                    "fit to whole-model measurements instead (a CSV: model,bindings,\n"
                    "device,precision,mode,measured,unit,role,source; docs/MEASURED.md):\n"
                    "the compute factor of each unit, memory, launch and the runtime's\n"
                    "host time per kernel, on the rows marked fit, checked on the others",
                    offsetof(struct oc_calibrate_args, e2e), "a CSV file"),
    OC_OPT_CALL_ROW("--check", "FILE", "a replay result to check the fitted factors on, not fitted on (repeatable)",
                    oc_opt_check),
    OC_OPT_FLAG_ROW("--keep-noisy", NULL,
                    "fit every measure result at weight 1, and every session of a run\n"
                    "measured more than once; by default a result is weighed by how sure\n"
                    "its quiet runs are (fewer than 3: left out), each below 1 named,\n"
                    "and of the sessions of one run (model, bound dims, threads) only\n"
                    "the fastest end to end is fitted",
                    offsetof(struct oc_calibrate_args, keep_noisy)),
    OC_OPT_OUTPUT_ROW("--output", "-o", "FILE", "write the calibrated device, a --gpu-spec file (docs/GPUS.md), to FILE",
                    offsetof(struct oc_calibrate_args, spec_out), "a file name"),
    OC_OPT_OUTPUT_ROW("--report", NULL, "FILE", "write the report to FILE instead of standard output",
                    offsetof(struct oc_calibrate_args, report_out), "a file name"),
    OC_OPT_PARSE_ROW("--format", "FMT", "report as text (default), md or json (schema onnxcost-calibration/1)",
                     offsetof(struct oc_calibrate_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_JSON, 0, "text, md or json",
                     oc_opt_format),
};
static const struct oc_opt_group oc_calibrate_group = {NULL, oc_calibrate_opts,
                                                       sizeof oc_calibrate_opts / sizeof oc_calibrate_opts[0]};

/* One row of an end-to-end table into an analysis and a calibration row;
 * false after one error line naming the table and the line. */
struct oc_e2e_item {
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_binding dims[16];
    char names[512];
    struct oc_gpu custom;
    char custom_name[512];
};

/* "line N: <what> '<value>' <why>" on the table */
static bool oc_e2e_fail(const char *table, int32_t line, const char *what, const char *value, const char *why) {
    char msg[1400];
    snprintf(msg, sizeof msg, "line %d: %s '%.600s' %s", line, what, value, why);
    oc_cli_diag("error", table, msg);
    return false;
}

static bool oc_e2e_row(const char *table, const char *dir, const struct oc_e2e_row *er, struct oc_e2e_item *it,
                       struct oc_calib_row *row, struct oc_calib_e2e_line *line) {
    char path[8200];
    const char *model = er->field[OC_E2E_MODEL];
    snprintf(path, sizeof path, "%s%s%.4000s", model[0] == '/' ? "" : dir, model[0] == '/' ? "" : "/", model);
    /* bindings: NAME=N;NAME=N (or "-" for none) */
    struct oc_analyze_opts opts = {0};
    snprintf(it->names, sizeof it->names, "%s", er->field[OC_E2E_BINDINGS]);
    for (char *tok = strcmp(it->names, "-") ? strtok(it->names, ";") : NULL; tok; tok = strtok(NULL, ";")) {
        char *eq = strchr(tok, '=');
        int64_t v;
        if (!eq || eq == tok || !oc_cli_parse_count(eq + 1, &v) || opts.n_dims == 16)
            return oc_e2e_fail(table, er->line, "bindings", er->field[OC_E2E_BINDINGS], "are not NAME=N;NAME=N");
        *eq = 0;
        it->dims[opts.n_dims++] = (struct oc_binding){tok, v};
    }
    opts.dims = it->dims;
    const char *prec = er->field[OC_E2E_PRECISION];
    bool half = strcmp(prec, "fp16") == 0 || strcmp(prec, "amp") == 0;
    if (!half && strcmp(prec, "fp32") && strcmp(prec, "tf32"))
        return oc_e2e_fail(table, er->line, "precision", prec, "is not fp32, tf32, fp16 or amp");
    row->math = half ? OC_MATH_FP16 : strcmp(prec, "tf32") == 0 ? OC_MATH_TF32 : OC_MATH_FP32;
    row->dtype = half ? OC_DT_FLOAT16 : 0;
    opts.price_bits = half ? 16 : 0;
    /* inference, or training[:OPTIMIZER][+bn] */
    const char *mode = er->field[OC_E2E_MODE];
    char opt[32] = "";
    size_t ml = strlen(mode);
    row->training = strncmp(mode, "training", 8) == 0;
    row->folded_bn = row->training && ml >= 11 && strcmp(mode + ml - 3, "+bn") == 0;
    row->optimizer = OC_OPT_MOMENTUM;
    size_t rest = row->training ? ml - 8 - (row->folded_bn ? 3 : 0) : 0;
    if (rest > 0 && rest < sizeof opt)
        snprintf(opt, sizeof opt, "%.*s", (int)rest, mode + 8);
    if (row->training ? rest && (rest >= sizeof opt || opt[0] != ':' || !oc_optimizer_parse(opt + 1, &row->optimizer))
                      : strcmp(mode, "inference") != 0)
        return oc_e2e_fail(table, er->line, "mode", mode, "is not inference or training[:OPTIMIZER][+bn]");
    const char *dev = er->field[OC_E2E_DEVICE];
    size_t dl = strlen(dev);
    if (dl > 5 && strcmp(dev + dl - 5, ".json") == 0) {
        char spec[8200], err[256];
        snprintf(spec, sizeof spec, "%s%s%.4000s", dev[0] == '/' ? "" : dir, dev[0] == '/' ? "" : "/", dev);
        if (!oc_gpu_spec_load(spec, &it->custom, it->custom_name, sizeof it->custom_name, err, sizeof err)) {
            oc_cli_diag("error", spec, err);
            return false;
        }
        row->gpu = &it->custom;
    } else if (!(row->gpu = oc_gpu_find(dev))) {
        return oc_e2e_fail(table, er->line, "device", dev, "is no built-in GPU (onnxcost gpus lists them) nor a .json spec");
    }
    struct oc_load_opts lopts = {0};
    if (oc_cli_load_analyze(path, &lopts, &opts, &it->m, &it->an) != OC_EXIT_OK)
        return false;
    const struct oc_graph *g = it->an->graph;
    /* every binding names a dim of the model's inputs, every such dim is bound,
       and the totals are whole: a fit on anything else fits the wrong figure */
    for (int32_t j = 0; j < opts.n_dims; j++) {
        bool found = false;
        for (int32_t i = 0; i < g->n_inputs && !found; i++) {
            const struct oc_value *in = &g->values[g->inputs[i]];
            for (int32_t a = 0; a < in->rank && !found; a++)
                found = in->dims[a].sym && strcmp(in->dims[a].sym, opts.dims[j].name) == 0;
        }
        if (!found)
            return oc_e2e_fail(table, er->line, "bindings", er->field[OC_E2E_BINDINGS],
                               "name a dim no input of the model has (a misspelling?)");
    }
    for (int32_t j = 0; j < it->an->n_bound; j++)
        if (it->an->bound[j].source == OC_BIND_DEFAULT)
            return oc_e2e_fail(table, er->line, "bindings", er->field[OC_E2E_BINDINGS],
                               "leave a dim of the model unbound: give every one (NAME=N;NAME=N)");
    if (it->an->totals.flags & OC_COST_OVERFLOW)
        return oc_e2e_fail(table, er->line, "model", model, "has a count past 64 bits at these bindings");
    if (it->an->totals.n_uncosted)
        return oc_e2e_fail(table, er->line, "model", model,
                           "has nodes without a cost: its totals are lower bounds, no row to fit on");
    int64_t batch = 1;
    if (g->n_inputs > 0 && g->values[g->inputs[0]].rank > 0 && g->values[g->inputs[0]].dims[0].value > 0)
        batch = g->values[g->inputs[0]].dims[0].value;
    row->an = it->an;
    row->measured_s = strcmp(er->field[OC_E2E_UNIT], "ms") == 0 ? er->measured / 1e3 : (double)batch / er->measured;
    row->fit = strcmp(er->field[OC_E2E_ROLE], "fit") == 0;
    const char *base = strrchr(model, '/');
    *line = (struct oc_calib_e2e_line){base ? base + 1 : model, row->gpu->id, prec, mode, batch, row->measured_s, 0, 0,
                                       row->fit};
    return true;
}

static int oc_calibrate_e2e(const struct oc_calibrate_args *a, const struct oc_cli_gpu *g) {
    struct oc_e2e_table t;
    char err[256];
    if (!oc_e2e_table_load(a->e2e, &t, err, sizeof err)) {
        oc_cli_diag("error", a->e2e, err);
        return OC_EXIT_INPUT;
    }
    char dir[4096];
    const char *slash = strrchr(a->e2e, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a->e2e) : 1, slash ? a->e2e : ".");
    struct oc_e2e_item *items = calloc((size_t)t.n_rows, sizeof *items);
    struct oc_calib_row *rows = calloc((size_t)t.n_rows, sizeof *rows);
    struct oc_calib_e2e_line *lines = calloc((size_t)t.n_rows, sizeof *lines);
    int rc = OC_EXIT_INTERNAL;
    if (!items || !rows || !lines)
        goto done;
    rc = OC_EXIT_INPUT;
    for (int32_t i = 0; i < t.n_rows; i++)
        if (!oc_e2e_row(a->e2e, dir, &t.rows[i], &items[i], &rows[i], &lines[i]))
            goto done;
    struct oc_calib_rows_fit fit;
    enum oc_status st = oc_calib_fit_rows(&g->perf, rows, t.n_rows, &fit);
    if (st != OC_OK) {
        rc = oc_cli_fail(a->e2e, st, st == OC_ERR_NOMEM ? "out of memory" : "no row has role fit");
        goto done;
    }
    struct oc_perf_opts after = g->perf;
    memcpy(after.eff_unit, fit.eff.unit, sizeof after.eff_unit);
    after.eff_memory = fit.eff.memory;
    after.launch_s = fit.eff.launch_s;
    after.host_s = fit.eff.host_s;
    for (int32_t i = 0; i < t.n_rows; i++) {
        lines[i].before_s = oc_calib_row_predict(&g->perf, &rows[i]);
        lines[i].after_s = oc_calib_row_predict(&after, &rows[i]);
    }
    struct oc_calib_e2e_report rep = {a->e2e, &fit, &g->perf, lines, t.n_rows};
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, a->report_out)) != OC_EXIT_OK)
        goto done;
    struct oc_diag d = {0};
    struct oc_report_spec spec = {.version = 1, .format = a->format, .write = oc_cli_write_file, .write_arg = f_out.f};
    rc = oc_cli_close_report(&f_out, a->report_out, oc_report_calibration_e2e(&rep, &spec, &d));
done:
    for (int32_t i = 0; items && i < t.n_rows; i++) {
        oc_analysis_free(items[i].an);
        oc_model_free(items[i].m);
    }
    free(items);
    free(rows);
    free(lines);
    oc_e2e_table_free(&t);
    return rc;
}

/* A CPU measure result's nodes as a prediction prices them, from the graph
   ONNX Runtime ran, analyzed again at the run's bindings: a convolution's
   share of its taps inside the input and of its outputs at the padding
   (oc_perf_conv_window), every node's runs of its kernel's inner loop
   (oc_kernel_runs). Where ONNX Runtime's graph is not there (a measure
   run without --save), the model it ran from is taken, its nodes matched by
   name (a node the runtime fused keeps none), with one warning line; where
   neither is, they stay unknown (the whole window, no padding, one run),
   with one warning line. */
static int oc_calib_node_shapes(struct oc_rp_file *f) {
    struct oc_rp_file from = *f; /* the graph analyzed: the file's, or its model's */
    const char *graph = f->graph ? f->graph : f->model;
    struct stat st;
    if (!graph)
        return OC_EXIT_OK;
    if (stat(graph, &st) != 0) {
        bool model = f->graph && f->model && stat(f->model, &st) == 0;
        char msg[1200];
        if (model)
            snprintf(msg, sizeof msg,
                     "its graph %.500s is not there (measure --save keeps it): its nodes' windows and runs are "
                     "taken from its model %.500s by name, a node ONNX Runtime fused keeping none",
                     graph, f->model);
        else
            snprintf(msg, sizeof msg,
                     "its graph %.500s is not there: its convolutions are fitted without their padding and its "
                     "kernels with one run each",
                     graph);
        oc_cli_diag("warning", f->path, msg);
        if (!model)
            return OC_EXIT_OK;
        from.graph = NULL;
    }
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    int rc = oc_cli_result_analyze(&from, NULL, NULL, 0, &m, &an);
    for (int32_t i = 0; rc == OC_EXIT_OK && i < f->n_nodes; i++) {
        struct oc_rp_file_node *fn = &f->nodes[i];
        const struct oc_node *node = fn->measured ? oc_graph_node_named(an->graph, fn->name) : NULL;
        if (node && oc_perf_conv_op(fn->op))
            fn->conv_inside = oc_perf_conv_window(an->graph, node, &fn->conv_padded);
        if (node) {
            fn->runs = oc_kernel_runs(an->graph, node);
            fn->light = oc_cpu_node_light(an->graph, node);
        }
    }
    oc_analysis_free(an);
    oc_model_free(m);
    return rc;
}

/* A CPU's time for a node without a kernel of the model's work (light_s),
   fitted on the fitted files' such nodes, each on the CPU at the thread
   count its file ran with, the fit's fixed costs held: false when out of
   memory. */
static bool oc_calib_light(const struct oc_rp_file *files, const struct oc_calib_file_report *fr,
                           const struct oc_gpu *devs, const struct oc_gpu *base, int32_t n_fit,
                           struct oc_calib_fit *fit) {
    int32_t cap = 0, n = 0;
    for (int32_t k = 0; k < n_fit; k++)
        cap += files[k].n_nodes;
    double *secs = malloc((size_t)(cap ? cap : 1) * sizeof *secs);
    const struct oc_gpu **dev = malloc((size_t)(cap ? cap : 1) * sizeof *dev);
    if (!secs || !dev) {
        free(secs);
        free(dev);
        return false;
    }
    for (int32_t k = 0; k < n_fit; k++)
        for (int32_t i = 0; !fr[k].noisy && !fr[k].slower && i < files[k].n_nodes; i++) {
            const struct oc_rp_file_node *fn = &files[k].nodes[i];
            if (fn->measured && fn->light && fn->time_ns > 0 && !fn->overhead) {
                secs[n] = fn->time_ns * 1e-9;
                dev[n++] = devs[k].cpu ? &devs[k] : base;
            }
        }
    struct oc_perf_opts held = {.launch_s = fit->eff.launch_s, .pool_s = fit->eff.pool_s};
    fit->eff.light_s = oc_calib_fit_light(&held, secs, dev, n);
    fit->n_light = n;
    free(secs);
    free(dev);
    return true;
}

/* the nodes a measure result timed: each one the runtime ran, and a gap
   before it (views/perf/perf.h oc_cpu_runs) */
static int32_t oc_calib_ran_nodes(const struct oc_rp_file *f) {
    int32_t ran = 0;
    for (int32_t i = 0; i < f->n_nodes; i++)
        ran += f->nodes[i].measured && f->nodes[i].time_ns > 0;
    return ran;
}

static bool oc_same_str(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* Of the fit files that are sessions of fit file k's run (a measure result
   of the same model, bound dims, thread count, device and precision, not
   noisy), the fastest end to end where it is faster than k (ties: the
   first named); -1 for none. Another process's load only adds time, so the
   fastest session is the machine's own speed. */
static int32_t oc_calib_faster_session(const struct oc_rp_file *files, const struct oc_calib_file_report *fr,
                                       int32_t n_fit, int32_t k) {
    const struct oc_rp_file *f = &files[k];
    int32_t best = -1;
    if (!(f->end_to_end_s > 0) || f->threads <= 0)
        return -1;
    for (int32_t j = 0; j < n_fit; j++) {
        const struct oc_rp_file *g = &files[j];
        if (j == k || fr[j].noisy || !(g->end_to_end_s > 0) || g->threads != f->threads || g->math != f->math ||
            !oc_same_str(g->model, f->model) || !oc_same_str(g->bindings, f->bindings) ||
            !oc_same_str(g->device, f->device) || !oc_same_str(g->dtype, f->dtype))
            continue;
        bool before = g->end_to_end_s < f->end_to_end_s || (g->end_to_end_s == f->end_to_end_s && j < k);
        if (before && (best < 0 || g->end_to_end_s < files[best].end_to_end_s))
            best = j;
    }
    return best;
}

int oc_cmd_calibrate(int argc, char **argv) {
    struct oc_calibrate_args a = {.format = OC_FORMAT_TEXT};
    struct oc_cli_gpu g;
    oc_cli_gpu_init(&g);
    const struct oc_opt_use groups[] = {{&oc_calibrate_group, &a}, {&oc_group_gpu, &g}};
    const struct oc_cmd_spec cmd = {"calibrate", "calibrate: ", oc_calibrate_usage, oc_calibrate_footer, groups, 2};
    const char **paths = NULL;
    int32_t n_fit = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &paths, &n_fit);
    if (rc != OC_PARSE_GO) {
        free(paths);
        return rc;
    }
    if (a.e2e) {
        free(paths);
        if (n_fit || a.n_check || a.spec_out)
            return oc_cli_usage_error("calibrate: --end-to-end takes its rows from the table (role fit or check); no "
                                      "result files, --check or -o with it");
        return oc_calibrate_e2e(&a, &g);
    }
    if (n_fit == 0 || n_fit + a.n_check > OC_CALIB_MAX_FILES) {
        free(paths);
        return oc_cli_usage_error(n_fit ? "calibrate: at most %d result files in all"
                                        : "calibrate: no result files given (try 'onnxcost calibrate --help')",
                                  OC_CALIB_MAX_FILES);
    }
    if (g.perf.math != OC_MATH_AUTO) {
        free(paths);
        return oc_cli_usage_error("calibrate: --math comes from each result file (its replay --math)");
    }
    int32_t n = n_fit + a.n_check;
    struct oc_rp_file files[OC_CALIB_MAX_FILES];
    struct oc_calib_file_report fr[OC_CALIB_MAX_FILES];
    memset(files, 0, sizeof files);
    memset(fr, 0, sizeof fr);
    /* every file's points in one array, the fitted files' first: file k's are
       all[off[k] .. off[k + 1]) */
    struct oc_calib_point *all = NULL;
    int32_t off[OC_CALIB_MAX_FILES + 1] = {0};
    struct oc_calib_op_error *by_op = NULL;
    struct oc_gpu *devs = NULL;   /* each file's CPU at its thread count */
    char(*dev_names)[128] = NULL; /* their names' storage              */
    int32_t n_by_op = 0;
    struct oc_diag d = {0};
    rc = OC_EXIT_OK;
    for (int32_t k = 0; k < n; k++) {
        const char *path = k < n_fit ? paths[k] : a.check[k - n_fit];
        enum oc_status st = oc_rp_file_read(path, &files[k], &d);
        if (st != OC_OK) {
            rc = oc_cli_fail(path, st, d.msg);
            goto done;
        }
    }
    const struct oc_gpu *base = g.gpu;
    if (!base && !(base = oc_gpu_find(files[0].device))) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "no built-in GPU is named '%s': give the peaks with --gpu NAME, --gpu-spec FILE or, for a CPU, "
                 "--machine FILE from onnxcost probe",
                 files[0].device);
        rc = oc_cli_fail(files[0].path, OC_ERR_USAGE, msg);
        goto done;
    }
    for (int32_t k = 1; k < n; k++)
        if (strcmp(files[k].device, files[0].device) != 0) {
            char msg[640];
            snprintf(msg, sizeof msg, "measured on '%s', the first file on '%s': one calibration is for one device",
                     files[k].device, files[0].device);
            oc_cli_diag("warning", files[k].path, msg);
        }
    for (int32_t k = 0; base->cpu && k < n && rc == OC_EXIT_OK; k++)
        rc = oc_calib_node_shapes(&files[k]);
    if (rc != OC_EXIT_OK)
        goto done;
    /* a measure result on a probed CPU is fitted on that CPU at the thread
       count it ran with (views/perf/device.h oc_gpu_at_threads): the factors are then
       the same at every thread count, and a prediction's --threads N uses them */
    if (!(devs = calloc((size_t)n, sizeof *devs)) || !(dev_names = calloc((size_t)n, sizeof *dev_names))) {
        rc = oc_cli_fail(paths[0], OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* a record with its quiet runs is fitted at a weight for how sure they
       are (replay/calibrate.h oc_calib_record_weight), and left out only
       with too few of them; one written before quiet runs were kept is
       left out when its passes were noisy; --keep-noisy fits all at 1 */
    for (int32_t k = 0; k < n_fit; k++) {
        const struct oc_rp_file *f = &files[k];
        fr[k].weight = 1;
        if (a.keep_noisy)
            continue;
        if (f->quiet_runs >= 0) {
            fr[k].noisy = f->quiet_runs < OC_CALIB_QUIET_MIN;
            fr[k].weight = oc_calib_record_weight(f->quiet_runs, f->load_ratio);
        } else {
            fr[k].noisy = f->unstable || f->pass_median_ratio > OC_MEASURE_NOISY_PASSES;
        }
    }
    for (int32_t k = 0; k < n; k++) {
        off[k + 1] = off[k];
        int32_t faster = k < n_fit && !fr[k].noisy && !a.keep_noisy ? oc_calib_faster_session(files, fr, n_fit, k) : -1;
        if (fr[k].noisy) {
            char msg[256];
            if (files[k].quiet_runs >= 0)
                snprintf(msg, sizeof msg, "left out of the fit: %d quiet run%s (fewer than %d; another process's "
                         "load slowed the rest); measure it again, or --keep-noisy fits it",
                         (int)files[k].quiet_runs, files[k].quiet_runs == 1 ? "" : "s", OC_CALIB_QUIET_MIN);
            else
                snprintf(msg, sizeof msg, "left out of the fit: its runs were noisy (%s, its median pass %.2fx the "
                         "fastest); measure it again on a quieter machine, or --keep-noisy fits it",
                         files[k].unstable ? "the median not stable by --max-seconds" : "most passes under another load",
                         files[k].pass_median_ratio);
            oc_cli_diag("warning", files[k].path, msg);
            continue;
        }
        if (faster >= 0) {
            char msg[1024];
            fr[k].slower = true;
            snprintf(msg, sizeof msg, "left out of the fit: %s is the same run (model, bound dims, threads) measured "
                     "%.2fx faster end to end, and another process's load only adds time; --keep-noisy fits both",
                     files[faster].path, files[k].end_to_end_s / files[faster].end_to_end_s);
            oc_cli_diag("warning", files[k].path, msg);
            continue;
        }
        if (!oc_calib_points(&files[k], base, &all, &off[k + 1], &fr[k].skipped)) {
            rc = oc_cli_fail(files[k].path, OC_ERR_NOMEM, "out of memory");
            goto done;
        }
        if (off[k + 1] == off[k])
            oc_cli_diag("warning", files[k].path, "no measured node with a kernel in the model: nothing to compare");
        for (int32_t i = off[k]; k < n_fit && i < off[k + 1]; i++)
            all[i].weight = fr[k].weight;
        if (k < n_fit && fr[k].weight < 0.995) {
            char msg[320];
            snprintf(msg, sizeof msg, "fitted at weight %.2f of 1: its figures are its %d quiet run%s, and every "
                     "run's median ran %.2fx theirs (another process's load, or a time that varies); --keep-noisy fits it "
                     "at 1",
                     fr[k].weight, (int)files[k].quiet_runs, files[k].quiet_runs == 1 ? "" : "s", files[k].load_ratio);
            oc_cli_diag("note", files[k].path, msg);
        }
        /* from the probed machine, not from --threads N's copy of it (which
           scales no further) */
        const struct oc_gpu *probed = base == &g.scaled ? &g.custom : base;
        if (base->cpu && files[k].threads > 0) {
            if (oc_gpu_at_threads(probed, files[k].threads, &devs[k], dev_names[k], sizeof dev_names[k]))
                for (int32_t i = off[k]; i < off[k + 1]; i++)
                    all[i].gpu = &devs[k];
            else
                oc_cli_diag("warning", files[k].path,
                            "the machine has no one-thread figures (an onnxcost probe record): fitted at its own "
                            "thread count, not at the record's");
        }
    }
    struct oc_calib_fit fit;
    if (oc_calib_fit(base, &g.perf, all, off[n_fit], &fit) != OC_OK) {
        int32_t left = 0; /* the records the loop above left out, each with its warning */
        for (int32_t k = 0; k < n_fit; k++)
            left += fr[k].noisy || fr[k].slower;
        char msg[256];
        if (left == n_fit)
            snprintf(msg, sizeof msg, "no record to fit on: all %d were left out (the warnings above say why); "
                     "--keep-noisy fits them", (int)n_fit);
        else
            snprintf(msg, sizeof msg, "no measured node to fit on: the records kept hold no node with a kernel "
                     "and a measured time%s", base->cpu ? "" : " (replays without counters, or on no GPU?)");
        rc = oc_cli_fail(paths[0], OC_ERR_USAGE, msg);
        goto done;
    }
    /* a CPU runtime's time between the nodes: from the fitted measure
       results' end-to-end and node medians (replays have none) */
    {
        double nodes_s[OC_CALIB_MAX_FILES], e2e_s[OC_CALIB_MAX_FILES];
        int32_t ran[OC_CALIB_MAX_FILES];
        for (int32_t k = 0; k < n_fit; k++) {
            bool use = base->cpu && !fr[k].noisy && !fr[k].slower && files[k].end_to_end_s > 0;
            nodes_s[k] = files[k].sum_of_nodes_s;
            e2e_s[k] = files[k].end_to_end_s;
            ran[k] = use ? oc_calib_ran_nodes(&files[k]) : 0;
        }
        fit.eff.gap_s = oc_calib_fit_gap(nodes_s, e2e_s, ran, n_fit);
    }
    if (base->cpu && !oc_calib_light(files, fr, devs, base, n_fit, &fit)) {
        rc = oc_cli_fail(paths[0], OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    struct oc_gpu calibrated = *base;
    calibrated.measured = fit.eff;
    struct oc_perf_opts after = g.perf; /* the fit's factors only, as the spec written holds them */
    memset(after.eff_unit, 0, sizeof after.eff_unit);
    memset(after.eff_conv_unit, 0, sizeof after.eff_conv_unit);
    memset(after.parallel_outputs, 0, sizeof after.parallel_outputs);
    after.pool_s = after.task_s = after.split_s = after.split_share = after.pad_path = after.run_s = after.light_s = 0;
    after.op_eff = NULL;
    oc_perf_use_measured(&calibrated, 0, &after);
    for (int32_t k = 0; k < n; k++) {
        fr[k].path = files[k].path;
        fr[k].model = files[k].model;
        fr[k].device = files[k].device;
        fr[k].fit = k < n_fit && !fr[k].noisy && !fr[k].slower;
        oc_calib_error(base, &g.perf, all + off[k], off[k + 1] - off[k], &fr[k].before);
        oc_calib_error(base, &after, all + off[k], off[k + 1] - off[k], &fr[k].after);
    }
    /* by op type after the fit, over the files the fit did not see (else those it did) */
    int32_t from = a.n_check ? off[n_fit] : 0, to = a.n_check ? off[n] : off[n_fit];
    if (!oc_calib_by_op(base, &after, all + from, to - from, &by_op, &n_by_op)) {
        rc = oc_cli_fail(paths[0], OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    struct oc_calib_report rep = {.measured_device = files[0].device,
                                  .base = base,
                                  .base_source = g.spec_path,
                                  .before = &g.perf,
                                  .fit = &fit,
                                  .files = fr,
                                  .n_files = n,
                                  .spec_out = a.spec_out,
                                  .by_op = by_op,
                                  .n_by_op = n_by_op,
                                  .by_op_checked = a.n_check > 0};
    if (a.spec_out) {
        struct oc_outfile sf_out;
        if ((rc = oc_cli_open_output(&sf_out, a.spec_out)) != OC_EXIT_OK)
            goto done;
        FILE *sf = sf_out.f;
        struct oc_report_spec ss = {
            .version = 1, .format = OC_FORMAT_JSON, .write = oc_cli_write_file, .write_arg = sf};
        if ((rc = oc_cli_close_report(&sf_out, a.spec_out, oc_report_gpu_spec(base, &rep, &ss, &d))) != OC_EXIT_OK)
            goto done;
    }
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, a.report_out)) != OC_EXIT_OK)
        goto done;
    FILE *f = f_out.f;
    struct oc_report_spec spec = {.version = 1, .format = a.format, .write = oc_cli_write_file, .write_arg = f};
    rc = oc_cli_close_report(&f_out, a.report_out, oc_report_calibration(&rep, &spec, &d));
done:
    free(devs);
    free(dev_names);
    free(by_op);
    for (int32_t k = 0; k < n; k++)
        oc_rp_file_free(&files[k]);
    free(all);
    free(paths);
    return rc;
}
