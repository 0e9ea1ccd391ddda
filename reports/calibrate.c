/*
 * calibrate.c — `onnxcost calibrate`: the fitted efficiency factors and the
 * model's error before and after, per replay file (text, md, json
 * "onnxcost-calibration/1"), and the calibrated device as a --gpu-spec file.
 */
#include "report_impl.h"
#include "../analyzer/stats.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a factor the search left at the end of its range: the data does not pin it */
static bool oc_cal_bound(double x) { return x >= OC_CALIB_EFF_MAX * 0.999 || x <= OC_CALIB_EFF_MIN * 1.001; }

static void oc_cal_factors_text(struct oc_sbuf *b, const struct oc_calib_report *r) {
    const struct oc_calib_fit *f = r->fit;
    bool any = false;
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (f->eff.unit[u] > 0) {
            oc_sbuf_printf(b, "%s%s %.3f (%d nodes, %d compute-bound%s)", any ? ", " : "",
                           oc_unit_name((enum oc_unit)u), f->eff.unit[u], f->n_unit[u], f->n_unit_compute[u],
                           oc_cal_bound(f->eff.unit[u]) ? ", at the end of its range" : "");
            any = true;
        }
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (f->eff.conv_unit[u] > 0) {
            oc_sbuf_printf(b, "%sconvolutions %s %.3f (%d nodes, %d compute-bound%s)", any ? ", " : "",
                           oc_unit_name((enum oc_unit)u), f->eff.conv_unit[u], f->n_conv_unit[u],
                           f->n_conv_unit_compute[u], oc_cal_bound(f->eff.conv_unit[u]) ? ", at the end of its range" : "");
            any = true;
        }
    for (int u = 0; u < OC_UNIT_COUNT; u++) {
        if (f->n_unit[u] && !(f->eff.unit[u] > 0)) {
            oc_sbuf_printf(b, "%s%s not observable (%d nodes, all memory-bound)", any ? ", " : "",
                           oc_unit_name((enum oc_unit)u), f->n_unit[u]);
            any = true;
        }
        if (f->n_conv_unit[u] && !(f->eff.conv_unit[u] > 0)) {
            oc_sbuf_printf(b, "%sconvolutions %s not observable (%d nodes, all memory-bound)", any ? ", " : "",
                           oc_unit_name((enum oc_unit)u), f->n_conv_unit[u]);
            any = true;
        }
    }
    for (int k = 0; k < 2; k++)
        if (f->eff.parallel_outputs[k] > 0) {
            oc_sbuf_printf(b, "%s%s fill the device from %.0f outputs%s", any ? ", " : "",
                           k ? "convolutions" : "other contractions", f->eff.parallel_outputs[k],
                           f->eff.parallel_outputs[k] >= OC_CALIB_PARALLEL_MAX * 0.999 ? " (at the end of its range)" : "");
            any = true;
        }
    bool levels = false;
    for (int k = 0; k < 4; k++)
        levels |= f->eff.memory_cache[k] > 0;
    if (f->eff.memory > 0)
        oc_sbuf_printf(b, "%smemory %.3f%s", any ? ", " : "", f->eff.memory,
                       oc_cal_bound(f->eff.memory) ? " (at the end of its range)" : "");
    else if (!levels)
        oc_sbuf_printf(b, "%smemory not observable (every node compute-bound)", any ? ", " : "");
    else
        oc_sbuf_printf(b, "%smemory past the caches not observable (no memory-bound node there)", any ? ", " : "");
    for (int k = 0; k < 4; k++) /* a CPU's cache levels */
        if (f->eff.memory_cache[k] > 0)
            oc_sbuf_printf(b, ", memory in cache level %d of the spec %.3f (%d nodes)%s", k + 1, f->eff.memory_cache[k],
                           f->n_level_memory[k], oc_cal_bound(f->eff.memory_cache[k]) ? " (at the end of its range)" : "");
    oc_sbuf_printf(b, ", launch %.2f us%s", f->eff.launch_s * 1e6,
                   f->eff.launch_s >= OC_CALIB_LAUNCH_MAX * 0.999 ? " (at the end of its range)" : "");
    if (f->eff.pool_s > 0)
        oc_sbuf_printf(b, ", %.2f us more per node on more than one thread%s", f->eff.pool_s * 1e6,
                       f->eff.pool_s >= OC_CALIB_LAUNCH_MAX * 0.999 ? " (at the end of its range)" : "");
    if (f->eff.task_s > 0 || f->eff.split_s > 0 || f->eff.split_share > 0)
        oc_sbuf_printf(b, ", a node split over the threads from %.1f us of one thread's time, %.2f us more and %.0f %% "
                       "of the threads' speedup when split%s",
                       f->eff.task_s * 1e6, f->eff.split_s * 1e6, 100 * (f->eff.split_share > 0 ? f->eff.split_share : 1),
                       f->eff.task_s >= OC_CALIB_TASK_MAX * 0.999 || f->eff.split_s >= OC_CALIB_LAUNCH_MAX * 0.999
                           ? " (at the end of its range)"
                           : "");
    if (f->eff.pad_path > 0)
        oc_sbuf_printf(b, ", a convolution's positions at the padding %.2fx slower%s", f->eff.pad_path,
                       f->eff.pad_path >= OC_CALIB_PAD_PATH_MAX * 0.999 ? " (at the end of its range)" : "");
    if (f->eff.run_s > 0)
        oc_sbuf_printf(b, ", %.1f ns per run of a kernel's inner loop after its first (a broadcast's spans, a "
                       "softmax's rows)%s", f->eff.run_s * 1e9,
                       f->eff.run_s >= OC_CALIB_RUN_MAX * 0.999 ? " (at the end of its range)" : "");
    if (f->eff.light_s > 0)
        oc_sbuf_printf(b, ", a node without a kernel %.2f us (%d such nodes)%s", f->eff.light_s * 1e6, (int)f->n_light,
                       f->eff.light_s >= OC_CALIB_LAUNCH_MAX * 0.999 ? " (at the end of its range)" : "");
    if (f->eff.gap_s > 0)
        oc_sbuf_printf(b, ", gap between nodes %.2f us (from the records' end to end)", f->eff.gap_s * 1e6);
    for (int32_t k = 0; k < f->eff.ops.n; k++) /* a CPU's ops with a factor of their own */
        oc_sbuf_printf(b, "%s%s %.3f (%d nodes, %.1f %% of the time)%s", k ? ", " : "; ops' own factors: ",
                       f->eff.ops.at[k].op, f->eff.ops.at[k].factor, f->n_op[k], 100 * f->op_share[k],
                       oc_cal_bound(f->eff.ops.at[k].factor) ? " (at the end of its range)" : "");
}

static const struct oc_table_col oc_cal_cols[] = {
    {"File", "file", OC_ALIGN_LEFT},
    {"Role", "role", OC_ALIGN_LEFT},
    {"Weight", "weight", OC_ALIGN_RIGHT},
    {"Nodes", "nodes", OC_ALIGN_RIGHT},
    {">=1 %", "major_nodes", OC_ALIGN_RIGHT},
    {"Median |ln p/m| before", "median_abs_ln_before", OC_ALIGN_RIGHT},
    {"after", "median_abs_ln_after", OC_ALIGN_RIGHT},
    {"p90 before", "p90_abs_ln_before", OC_ALIGN_RIGHT},
    {"after", "p90_abs_ln_after", OC_ALIGN_RIGHT},
    {"Measured (ms)", "measured_ms", OC_ALIGN_RIGHT},
    {"Predicted before (ms)", "predicted_before_ms", OC_ALIGN_RIGHT},
    {"after (ms)", "predicted_after_ms", OC_ALIGN_RIGHT},
    {"Total error before", "total_error_before", OC_ALIGN_RIGHT},
    {"after", "total_error_after", OC_ALIGN_RIGHT},
};

static void oc_cal_table(const struct oc_calib_report *r, bool md, struct oc_table *t) {
    oc_table_cols(t, oc_cal_cols, (int32_t)(sizeof oc_cal_cols / sizeof oc_cal_cols[0]));
    for (int32_t k = 0; k < r->n_files; k++) {
        const struct oc_calib_file_report *fr = &r->files[k];
        char path[256];
        oc_table_row(t);
        if (md) {
            oc_table_puts(t, fr->path);
        } else {
            oc_printable(fr->path, path, sizeof path);
            oc_table_puts(t, path);
        }
        oc_table_puts(t, fr->noisy ? "noisy" : fr->slower ? "slower" : fr->fit ? "fit" : "check");
        if (fr->fit)
            oc_table_cell(t, "%.2f", fr->weight);
        else
            oc_table_puts(t, "");
        oc_table_cell(t, "%d", fr->before.n_points);
        oc_table_cell(t, "%d", fr->before.n_major);
        oc_table_cell(t, "%.3f", fr->before.median_abs_log);
        oc_table_cell(t, "%.3f", fr->after.median_abs_log);
        oc_table_cell(t, "%.3f", fr->before.p90_abs_log);
        oc_table_cell(t, "%.3f", fr->after.p90_abs_log);
        oc_table_cell(t, "%.3f", fr->before.measured_s * 1e3);
        oc_table_cell(t, "%.3f", fr->before.predicted_s * 1e3);
        oc_table_cell(t, "%.3f", fr->after.predicted_s * 1e3);
        oc_table_cell(t, "%+.1f %%", fr->before.total_error * 100);
        oc_table_cell(t, "%+.1f %%", fr->after.total_error * 100);
    }
}

static const struct oc_table_col oc_cal_op_cols[] = {
    {"Op", "op", OC_ALIGN_LEFT},
    {"Nodes", "nodes", OC_ALIGN_RIGHT},
    {"Time share", "time_share", OC_ALIGN_RIGHT},
    {"Kernels/node", "kernels_per_node", OC_ALIGN_RIGHT},
    {"Median |ln p/m|", "median_abs_ln", OC_ALIGN_RIGHT},
    {"Total error", "total_error", OC_ALIGN_RIGHT},
};

static void oc_cal_op_table(const struct oc_calib_report *r, int32_t max_rows, struct oc_table *t) {
    oc_table_cols(t, oc_cal_op_cols, (int32_t)(sizeof oc_cal_op_cols / sizeof oc_cal_op_cols[0]));
    for (int32_t k = 0; k < r->n_by_op && k < max_rows; k++) {
        const struct oc_calib_op_error *e = &r->by_op[k];
        char op[128];
        oc_printable(e->op, op, sizeof op);
        oc_table_row(t);
        oc_table_puts(t, op);
        oc_table_cell(t, "%d", e->n_points);
        oc_table_cell(t, "%.1f %%", e->time_share * 100);
        oc_table_cell(t, "%.2f", e->kernels_per_node);
        oc_table_cell(t, "%.3f", e->median_abs_log);
        oc_table_cell(t, "%+.1f %%", e->total_error * 100);
    }
}

static json_t *oc_cal_jerror(const struct oc_calib_error *e) {
    json_t *o = json_object();
    json_object_set_new(o, "median_abs_ln", json_real(e->median_abs_log));
    json_object_set_new(o, "p90_abs_ln", json_real(e->p90_abs_log));
    json_object_set_new(o, "predicted_s", json_real(e->predicted_s));
    json_object_set_new(o, "total_error", json_real(e->total_error));
    return o;
}

static void oc_cal_json(struct oc_sbuf *b, const struct oc_calib_report *r) {
    json_t *doc = json_object(), *files = json_array(), *before = json_object();
    json_object_set_new(doc, "schema", json_string("onnxcost-calibration/1"));
    json_object_set_new(doc, "measured_device", oc_jstr(r->measured_device));
    json_object_set_new(doc, "base_device", oc_jstr(r->base->name));
    json_object_set_new(doc, "base_spec", r->base_source ? oc_jstr(r->base_source) : json_null());
    json_object_set_new(before, "efficiency_compute", json_real(r->before->eff_compute));
    json_object_set_new(before, "efficiency_memory", json_real(r->before->eff_memory));
    json_object_set_new(before, "launch_s", json_real(r->before->launch_s));
    json_object_set_new(doc, "before", before);
    json_object_set_new(doc, "efficiency", oc_spec_efficiency_json(&r->fit->eff));
    json_t *edge = json_array(); /* factors the search left at the end of their range */
    for (int u = 0; u < OC_UNIT_COUNT; u++) {
        if (r->fit->eff.unit[u] > 0 && oc_cal_bound(r->fit->eff.unit[u]))
            json_array_append_new(edge, json_string(oc_unit_name((enum oc_unit)u)));
        if (r->fit->eff.conv_unit[u] > 0 && oc_cal_bound(r->fit->eff.conv_unit[u])) {
            char key[64];
            snprintf(key, sizeof key, "conv_%s", oc_unit_name((enum oc_unit)u));
            json_array_append_new(edge, json_string(key));
        }
    }
    if (r->fit->eff.memory > 0 && oc_cal_bound(r->fit->eff.memory))
        json_array_append_new(edge, json_string("memory"));
    if (r->fit->eff.launch_s >= OC_CALIB_LAUNCH_MAX * 0.999)
        json_array_append_new(edge, json_string("launch"));
    if (r->fit->eff.pool_s >= OC_CALIB_LAUNCH_MAX * 0.999)
        json_array_append_new(edge, json_string("pool"));
    if (r->fit->eff.task_s >= OC_CALIB_TASK_MAX * 0.999)
        json_array_append_new(edge, json_string("task"));
    if (r->fit->eff.split_s >= OC_CALIB_LAUNCH_MAX * 0.999)
        json_array_append_new(edge, json_string("split"));
    for (int32_t k = 0; k < r->fit->eff.ops.n; k++)
        if (oc_cal_bound(r->fit->eff.ops.at[k].factor)) {
            char key[80];
            snprintf(key, sizeof key, "ops.%s", r->fit->eff.ops.at[k].op);
            json_array_append_new(edge, json_string(key));
        }
    json_object_set_new(doc, "at_range_end", edge);
    json_object_set_new(doc, "points", json_integer(r->fit->n_points));
    json_object_set_new(doc, "loss_before", json_real(r->fit->loss_before));
    json_object_set_new(doc, "loss_after", json_real(r->fit->loss_after));
    for (int32_t k = 0; k < r->n_files; k++) {
        const struct oc_calib_file_report *fr = &r->files[k];
        json_t *o = json_object();
        json_object_set_new(o, "path", oc_jstr(fr->path));
        json_object_set_new(o, "model", oc_jstr(fr->model));
        json_object_set_new(o, "device", oc_jstr(fr->device));
        json_object_set_new(o, "role", json_string(fr->noisy ? "noisy" : fr->slower ? "slower" : fr->fit ? "fit" : "check"));
        json_object_set_new(o, "weight", fr->fit ? json_real(fr->weight) : json_null());
        json_object_set_new(o, "nodes", json_integer(fr->before.n_points));
        json_object_set_new(o, "nodes_left_out", json_integer(fr->skipped));
        json_object_set_new(o, "major_nodes", json_integer(fr->before.n_major));
        json_object_set_new(o, "measured_s", json_real(fr->before.measured_s));
        json_object_set_new(o, "before", oc_cal_jerror(&fr->before));
        json_object_set_new(o, "after", oc_cal_jerror(&fr->after));
        json_array_append_new(files, o);
    }
    json_object_set_new(doc, "files", files);
    json_t *ops = json_array();
    for (int32_t k = 0; k < r->n_by_op; k++) {
        const struct oc_calib_op_error *e = &r->by_op[k];
        json_t *o = json_object();
        json_object_set_new(o, "op", oc_jstr(e->op));
        json_object_set_new(o, "nodes", json_integer(e->n_points));
        json_object_set_new(o, "time_share", json_real(e->time_share));
        json_object_set_new(o, "kernels_per_node", json_real(e->kernels_per_node));
        json_object_set_new(o, "median_abs_ln", json_real(e->median_abs_log));
        json_object_set_new(o, "total_error", json_real(e->total_error));
        json_array_append_new(ops, o);
    }
    json_object_set_new(doc, "by_op_after", ops);
    json_object_set_new(doc, "by_op_over", json_string(r->by_op_checked ? "check" : "fit"));
    json_object_set_new(doc, "spec_written", r->spec_out ? oc_jstr(r->spec_out) : json_null());
    oc_sbuf_json(b, doc);
}

enum oc_status oc_report_calibration(const struct oc_calib_report *r, const struct oc_report_spec *spec,
                                     struct oc_diag *d) {
    struct oc_sbuf b = {0};
    bool md = spec->format == OC_FORMAT_MD;
    if (spec->format == OC_FORMAT_JSON) {
        oc_cal_json(&b, r);
    } else if (spec->format == OC_FORMAT_TEXT || md) {
        char dev[256], base[256], src[256];
        oc_printable(r->measured_device ? r->measured_device : "", dev, sizeof dev);
        oc_printable(r->base->name, base, sizeof base);
        oc_printable(r->base_source ? r->base_source : "", src, sizeof src);
        oc_sbuf_printf(&b, "%sCalibration of the performance model (docs/MODEL.md) on %s\n\n", md ? "## " : "", dev);
        oc_sbuf_printf(&b, "%sbase device: %s%s%s; before: efficiency compute %.2f, memory %.2f, launch %.2f us\n",
                       md ? "- " : "  ", base, r->base_source ? " from " : " (built-in)", src, r->before->eff_compute,
                       r->before->eff_memory, r->before->launch_s * 1e6);
        oc_sbuf_printf(&b, "%sfitted on %d nodes: ", md ? "- " : "  ", r->fit->n_points);
        oc_cal_factors_text(&b, r);
        oc_sbuf_printf(&b, "\n%stime-weighted mean squared ln error %.4f -> %.4f\n", md ? "- " : "  ",
                       r->fit->loss_before, r->fit->loss_after);
        if (r->spec_out) {
            oc_printable(r->spec_out, src, sizeof src);
            oc_sbuf_printf(&b, "%swritten to %s: use it with --gpu-spec %s\n", md ? "- " : "  ", src, src);
        }
        oc_sbuf_puts(&b, "\n");
        struct oc_table t = {0};
        oc_cal_table(r, md, &t);
        if (md) {
            oc_table_md(&b, &t);
        } else {
            struct oc_text_style st = {.indent = "", .rules = true};
            oc_table_text(&b, &t, &st);
        }
        oc_table_free(&t);
        if (r->n_by_op) {
            oc_sbuf_printf(&b,
                           "\n%sAfter the fit, by op type over the %s files, worst first (time share x median "
                           "error):\n\n",
                           md ? "" : "", r->by_op_checked ? "--check" : "fitted");
            struct oc_table ot = {0};
            oc_cal_op_table(r, md ? 20 : 10, &ot);
            if (md) {
                oc_table_md(&b, &ot);
            } else {
                struct oc_text_style st = {.indent = "  "};
                oc_table_text(&b, &ot, &st);
            }
            oc_table_free(&ot);
        }
        oc_sbuf_printf(&b,
                       "\n%sPer node: |ln(predicted/measured)| over the nodes with at least 1 %% of the file's "
                       "measured time (0.095 is 10 %%, 0.693 is 2x). Total: predicted / measured - 1 over the "
                       "nodes measured (the kernels' or ONNX Runtime's node times; gaps between them are not in "
                       "the measurement). The model counts one kernel per node; a node the replay ran as several "
                       "kernels (Kernels/node) carries their fixed costs.\n",
                       md ? "" : "");
    } else {
        return oc_diag_set(d, OC_ERR_USAGE, "calibrate reports come as text, md or json");
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}

enum oc_status oc_report_gpu_spec(const struct oc_gpu *gpu, const struct oc_calib_report *r,
                                  const struct oc_report_spec *spec, struct oc_diag *d) {
    json_t *doc = json_object(), *cal = json_object(), *fitted = json_array(), *checked = json_array();
    oc_spec_device_json(gpu, doc);
    json_object_set_new(doc, "efficiency", oc_spec_efficiency_json(&r->fit->eff));
    json_object_set_new(cal, "measured_device", oc_jstr(r->measured_device));
    for (int32_t k = 0; k < r->n_files; k++)
        json_array_append_new(r->files[k].fit ? fitted : checked, oc_jstr(r->files[k].path));
    json_object_set_new(cal, "fitted_on", fitted);
    json_object_set_new(cal, "checked_on", checked);
    json_object_set_new(cal, "points", json_integer(r->fit->n_points));
    json_object_set_new(cal, "additive", json_boolean(r->before->additive));
    json_object_set_new(doc, "calibration", cal);
    struct oc_sbuf b = {0};
    /* 10 significant digits: datasheet figures read back as written (494.7, not 494.69999999999999) */
    oc_sbuf_json_digits(&b, doc, 10);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}

/* ---- calibrate --end-to-end ---------------------------------------------------------------- */

static const struct oc_table_col oc_e2e_cols[] = {
    {"Model", "model", OC_ALIGN_LEFT},
    {"Device", "device", OC_ALIGN_LEFT},
    {"Precision", "precision", OC_ALIGN_LEFT},
    {"Mode", "mode", OC_ALIGN_LEFT},
    {"Batch", "batch", OC_ALIGN_RIGHT},
    {"Role", "role", OC_ALIGN_LEFT},
    {"Measured (samples/s)", "measured_samples_per_s", OC_ALIGN_RIGHT},
    {"Before (samples/s)", "before_samples_per_s", OC_ALIGN_RIGHT},
    {"After (samples/s)", "after_samples_per_s", OC_ALIGN_RIGHT},
    {"Error before", "error_before", OC_ALIGN_RIGHT},
    {"Error after", "error_after", OC_ALIGN_RIGHT},
};

/* predicted / measured throughput - 1 (= measured / predicted time - 1) */
static double oc_e2e_error(double measured_s, double predicted_s) {
    return predicted_s > 0 ? measured_s / predicted_s - 1 : 0;
}

/* the median |error| of the rows of one role */
static double oc_e2e_median(const struct oc_calib_e2e_report *r, bool fit, bool after) {
    double *e = malloc((size_t)(r->n > 0 ? r->n : 1) * sizeof *e);
    int32_t m = 0;
    for (int32_t i = 0; e && i < r->n; i++)
        if (r->lines[i].fit == fit)
            e[m++] = fabs(oc_e2e_error(r->lines[i].measured_s, after ? r->lines[i].after_s : r->lines[i].before_s));
    if (!e)
        return 0;
    qsort(e, (size_t)m, sizeof *e, oc_cmp_double);
    double q = oc_quantile(e, m, 0.5);
    free(e);
    return q;
}

enum oc_status oc_report_calibration_e2e(const struct oc_calib_e2e_report *r, const struct oc_report_spec *spec,
                                         struct oc_diag *d) {
    struct oc_sbuf b = {0};
    const struct oc_gpu_efficiency *e = &r->fit->eff;
    if (spec->format == OC_FORMAT_JSON) {
        json_t *doc = json_object(), *rows = json_array();
        json_object_set_new(doc, "schema", json_string("onnxcost-calibration-e2e/1"));
        json_object_set_new(doc, "table", oc_jstr(r->table));
        json_object_set_new(doc, "efficiency", oc_spec_efficiency_json(e));
        json_object_set_new(doc, "loss_before", json_real(r->fit->loss_before));
        json_object_set_new(doc, "loss_after", json_real(r->fit->loss_after));
        for (int32_t i = 0; i < r->n; i++) {
            const struct oc_calib_e2e_line *l = &r->lines[i];
            json_t *o = json_object();
            json_object_set_new(o, "model", oc_jstr(l->model));
            json_object_set_new(o, "device", oc_jstr(l->device));
            json_object_set_new(o, "precision", oc_jstr(l->precision));
            json_object_set_new(o, "mode", oc_jstr(l->mode));
            json_object_set_new(o, "batch", json_integer(l->batch));
            json_object_set_new(o, "role", json_string(l->fit ? "fit" : "check"));
            json_object_set_new(o, "measured_s", json_real(l->measured_s));
            json_object_set_new(o, "before_s", json_real(l->before_s));
            json_object_set_new(o, "after_s", json_real(l->after_s));
            json_object_set_new(o, "error_before", json_real(oc_e2e_error(l->measured_s, l->before_s)));
            json_object_set_new(o, "error_after", json_real(oc_e2e_error(l->measured_s, l->after_s)));
            json_array_append_new(rows, o);
        }
        json_object_set_new(doc, "rows", rows);
        oc_sbuf_json(&b, doc);
    } else {
        bool md = spec->format == OC_FORMAT_MD;
        oc_sbuf_printf(&b, "%sCalibration on end-to-end measurements (%s): fitted on %d rows, checked on %d\n\n",
                       md ? "## " : "", r->table, r->fit->n_fit, r->fit->n_check);
        oc_sbuf_printf(&b, "%sbefore: efficiency compute %.2f, memory %.2f, launch %.2f us, host %.2f us per kernel\n",
                       md ? "" : "  ", r->before->eff_compute, r->before->eff_memory, r->before->launch_s * 1e6,
                       r->before->host_s * 1e6);
        oc_sbuf_printf(&b, "%sfitted:", md ? "\n" : "  ");
        for (int u = 0; u < OC_UNIT_COUNT; u++)
            if (e->unit[u] > 0)
                oc_sbuf_printf(&b, " %s %.3f%s,", oc_unit_name((enum oc_unit)u), e->unit[u],
                               oc_cal_bound(e->unit[u]) ? " (at the end of its range)" : "");
        oc_sbuf_printf(&b, " memory %.3f, launch %.2f us, host %.2f us per kernel\n", e->memory, e->launch_s * 1e6,
                       e->host_s * 1e6);
        oc_sbuf_printf(&b, "%smean squared ln error over the fitted rows %.4f -> %.4f\n\n", md ? "\n" : "  ",
                       r->fit->loss_before, r->fit->loss_after);
        struct oc_table t = {0};
        oc_table_cols(&t, oc_e2e_cols, sizeof oc_e2e_cols / sizeof oc_e2e_cols[0]);
        for (int32_t i = 0; i < r->n; i++) {
            const struct oc_calib_e2e_line *l = &r->lines[i];
            double bt = (double)l->batch;
            oc_table_row(&t);
            oc_table_puts(&t, l->model);
            oc_table_puts(&t, l->device);
            oc_table_puts(&t, l->precision);
            oc_table_puts(&t, l->mode);
            oc_table_cell(&t, "%lld", (long long)l->batch);
            oc_table_puts(&t, l->fit ? "fit" : "check");
            oc_table_cell(&t, "%.1f", bt / l->measured_s);
            oc_table_cell(&t, "%.1f", l->before_s > 0 ? bt / l->before_s : 0.0);
            oc_table_cell(&t, "%.1f", l->after_s > 0 ? bt / l->after_s : 0.0);
            oc_table_cell(&t, "%+.1f %%", 100 * oc_e2e_error(l->measured_s, l->before_s));
            oc_table_cell(&t, "%+.1f %%", 100 * oc_e2e_error(l->measured_s, l->after_s));
        }
        oc_table_draw(&b, &t, spec->format);
        if (t.oom)
            b.oom = true;
        oc_table_free(&t);
        oc_sbuf_printf(&b, "\nMedian |error| of the predicted throughput: fitted rows %.1f %% before, %.1f %% after; ",
                       100 * oc_e2e_median(r, true, false), 100 * oc_e2e_median(r, true, true));
        if (r->fit->n_check)
            oc_sbuf_printf(&b, "checked rows %.1f %% before, %.1f %% after",
                           100 * oc_e2e_median(r, false, false), 100 * oc_e2e_median(r, false, true));
        else /* no median of nothing: the fit is not checked */
            oc_sbuf_puts(&b, "NO CHECK ROWS: the fit is not checked on rows it was not fitted on (role check)");
        oc_sbuf_puts(&b, ". Error: predicted / measured throughput - 1.\n");
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
