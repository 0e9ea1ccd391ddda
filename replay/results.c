/*
 * results.c — device peaks, derived per-node figures, and replay result
 * files read back (jansson) for `onnxcost merge`.
 */
#include "results.h"

#include "../analyzer/dtype.h"
#include "../views/measure.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int32_t oc_rp_fp32_lanes(int32_t major, int32_t minor) {
    /* FP32 cores per SM, CUDA C Programming Guide, "Arithmetic Instructions"
       (32-bit floating-point add, multiply, multiply-add per clock per SM) */
    switch (major) {
    case 3:
        return 192;
    case 5:
        return 128;
    case 6:
        return minor == 0 ? 64 : 128;
    case 7:
        return 64;
    case 8:
        return minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 12:
        return 128;
    default:
        return 0;
    }
}

void oc_rp_device_peaks(const struct oc_rp_device *d, struct oc_rp_peaks *out) {
    out->fp32_flops = (double)d->sm_count * oc_rp_fp32_lanes(d->cc_major, d->cc_minor) * 2.0 *
                      (double)d->sm_clock_khz * 1e3;
    out->dram_bytes = 2.0 * (double)d->mem_clock_khz * 1e3 * (double)d->mem_bus_bits / 8.0;
}

double oc_rp_model_flops(const struct oc_rp_result *r, bool half_data) {
    return r->fp32_flops + (half_data ? r->fp16_flops : 0) + r->fp64_flops + r->tensor_flops;
}

bool oc_rp_plan_half(const struct oc_rp_plan *p) {
    for (int32_t k = 0; k < p->n_in && k < OC_RP_MAX_IN; k++)
        if (p->in[k].dtype == 10 || p->in[k].dtype == 16)
            return true;
    for (int32_t k = 0; k < p->n_out && k < OC_RP_MAX_OUT; k++)
        if (p->out[k].dtype == 10 || p->out[k].dtype == 16)
            return true;
    return false;
}

void oc_rp_derive(const struct oc_rp_result *r, uint64_t est_flops, bool half_data, const struct oc_rp_peaks *pk,
                  struct oc_rp_derived *out) {
    memset(out, 0, sizeof *out);
    if (r->status != OC_RPS_MEASURED)
        return;
    double t = r->time_median_ns * 1e-9;
    if (r->has_counters) {
        out->measured_flops = oc_rp_model_flops(r, half_data);
        out->dram_bytes = r->dram_read_bytes + r->dram_write_bytes;
        if (est_flops && out->measured_flops > 0)
            out->ratio = out->measured_flops / (double)est_flops;
        if (out->dram_bytes > 0)
            out->intensity = out->measured_flops / out->dram_bytes;
    }
    if (t > 0) {
        out->flops_per_s = out->measured_flops / t;
        out->bytes_per_s = out->dram_bytes / t;
    }
    if (pk->fp32_flops > 0)
        out->pct_peak_flops = 100.0 * out->flops_per_s / pk->fp32_flops;
    if (pk->dram_bytes > 0)
        out->pct_peak_dram = 100.0 * out->bytes_per_s / pk->dram_bytes;
    if (r->has_counters && (out->pct_peak_flops > 0 || out->pct_peak_dram > 0))
        out->bound = out->pct_peak_dram >= out->pct_peak_flops ? OC_BOUND_MEMORY : OC_BOUND_COMPUTE;
}

/* ---- result files --------------------------------------------------------------- */

static char *oc_rp_dup(const char *s) {
    size_t n = strlen(s ? s : "");
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s ? s : "", n + 1);
    return d;
}

/* A count the replay writes (an estimate, a byte or FLOP counter): a number
 * from 0 to INT64_MAX, where the writer clamps; absent is 0 unless required
 * (of the estimate, only "flops" is: hand-written results give no more).
 * false with what is wrong in why. */
static bool oc_rp_count(const json_t *o, const char *key, bool required, double *out, const char **why) {
    const json_t *v = json_object_get(o, key);
    *out = 0;
    if (!v && !required)
        return true;
    if (!json_is_number(v)) {
        *why = v ? "is not a number" : "is missing";
        return false;
    }
    double x = json_number_value(v);
    if (!(x >= 0 && x <= 9.223372036854775807e18)) {
        *why = "is not a count from 0 to 2^63-1";
        return false;
    }
    *out = x;
    return true;
}

void oc_rp_file_free(struct oc_rp_file *f) {
    if (!f)
        return;
    for (int32_t i = 0; i < f->n_nodes; i++) {
        free(f->nodes[i].name);
        free(f->nodes[i].op);
        free(f->nodes[i].status);
    }
    free(f->nodes);
    free(f->path);
    free(f->device);
    free(f->dtype);
    free(f->bindings);
    free(f->model);
    free(f->graph);
    memset(f, 0, sizeof *f);
}

const char *const oc_rp_math_names[3] = {"fp32", "tf32", "fp16"};

/* the statuses a replay writes (reports/replay.c) */
static const char *const oc_rp_status_names[] = {"measured", "alias", "skipped", "failed"};

/* "f32" -> 1: the names oc_dtype_name writes; 0 for none or unknown */
static int32_t oc_rp_dtype_code(const char *name) {
    for (int32_t dt = 1; name && dt < OC_DT_COUNT; dt++)
        if (strcmp(name, oc_dtype_name(dt)) == 0)
            return dt;
    return 0;
}

/* A result's bound dims (a JSON object of counts) as "name=value,..." the
   way --dim takes them, in *out (NULL when binds is no object); false when
   out of memory. */
static bool oc_rp_read_bindings(const json_t *binds, char **out) {
    *out = NULL;
    if (!json_is_object(binds))
        return true;
    char list[1024] = "";
    size_t used = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)binds, k, v) {
        if (json_is_integer(v) && used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%.200s=%lld", used ? "," : "", k,
                                     (long long)json_integer_value(v));
    }
    return (*out = oc_rp_dup(list)) != NULL;
}

/* a measure result's gpu.recurrence (oc_perf_rnn_recurrence's figures);
   steps 0 where it is absent or out of range */
static void oc_rp_read_recurrence(const json_t *r, struct oc_perf_recurrence *out) {
    memset(out, 0, sizeof *out);
    double v[4];
    const char *keys[] = {"steps", "weight_bytes", "step_flops", "batch"};
    for (int32_t k = 0; k < 4; k++) {
        const json_t *x = json_object_get(r, keys[k]);
        if (!json_is_number(x) || !(json_number_value(x) > 0) || !(json_number_value(x) < 1e19))
            return;
        v[k] = json_number_value(x);
    }
    out->steps = v[0];
    out->weight_bytes = v[1];
    out->step_flops = v[2];
    out->batch = v[3];
}

/* An analysis with ONNX Runtime's times (`onnxcost measure --format json`,
 * or --measured): each node with a measured median is a measured node of
 * one kernel; the device is the CPU and threads the run records (else the
 * providers). */
static enum oc_status oc_rp_measure_read(const json_t *root, const char *path, struct oc_rp_file *out,
                                         struct oc_diag *d) {
    const json_t *m = json_object_get(root, "measured"), *nodes = json_object_get(root, "nodes");
    const json_t *run = json_object_get(m, "run");
    if (!json_is_object(m) || !json_is_array(nodes))
        return oc_diag_set(d, OC_ERR_PARSE, "an analysis without measured times: not a replay result (schema "
                                            "\"onnxcost-replay/1\") nor a measured one (onnxcost measure --format "
                                            "json, or --measured PROFILE.json)");
    /* a result written before whole-microsecond durations were taken at the
       middle of their microsecond (no measured.duration_offset_us): its
       times the same way here */
    const double late_us = json_object_get(m, "duration_offset_us") ? 0 : OC_PROFILE_TRUNCATION_US;
    int32_t n_late = 0;
    const json_t *e2e = json_object_get(json_object_get(m, "end_to_end_ms"), "median");
    const json_t *sum = json_object_get(m, "sum_of_node_medians_ms");
    if (json_is_number(e2e) && json_is_number(sum) && json_number_value(e2e) >= 1e-9 && json_number_value(e2e) < 1e12 &&
        json_number_value(sum) >= 1e-9 && json_number_value(sum) < 1e12) {
        out->end_to_end_s = (json_number_value(e2e) * 1e3 + late_us) * 1e-6;
        out->sum_of_nodes_s = json_number_value(sum) * 1e-3;
    }
    char device[256];
    if (json_is_object(run)) {
        json_int_t th = json_integer_value(json_object_get(run, "intra_op_threads"));
        if (th <= 0)
            th = json_integer_value(json_object_get(run, "cpu_count"));
        out->threads = th > 0 && th <= 65536 ? (int32_t)th : 0;
        const char *cpu = json_string_value(json_object_get(run, "cpu"));
        snprintf(device, sizeof device, "%s, %lld thread%s", cpu ? cpu : "CPU", (long long)th, th == 1 ? "" : "s");
        const json_t *pr = json_object_get(run, "pass_median_ratio");
        const char *stopped = json_string_value(json_object_get(run, "stopped"));
        out->pass_median_ratio = json_is_number(pr) && json_number_value(pr) >= 1 ? json_number_value(pr) : 0;
        out->unstable = stopped && strcmp(stopped, "time limit") == 0;
    }
    const json_t *qr = json_object_get(m, "quiet_runs"), *lr = json_object_get(m, "load_ratio");
    out->quiet_runs = -1;
    if (json_is_integer(qr) && json_integer_value(qr) >= 0 && json_integer_value(qr) <= INT32_MAX &&
        json_is_number(lr) && json_number_value(lr) >= 1 && json_number_value(lr) < 1e6) {
        out->quiet_runs = (int32_t)json_integer_value(qr);
        out->load_ratio = json_number_value(lr);
    }
    if (!json_is_object(run)) {
        const char *pv = json_string_value(json_object_get(m, "providers"));
        snprintf(device, sizeof device, "%s", pv ? pv : "ONNX Runtime");
    }
    size_t n = json_array_size(nodes);
    const char *model = json_string_value(json_object_get(json_object_get(root, "model"), "path"));
    const char *orig = json_string_value(json_object_get(run, "model"));
    out->path = oc_rp_dup(path);
    out->device = oc_rp_dup(device);
    out->model = oc_rp_dup(orig ? orig : model ? model : path);
    out->graph = model ? oc_rp_dup(model) : NULL;
    out->math = OC_RP_MATH_FP32;
    out->nodes = calloc(n ? n : 1, sizeof *out->nodes);
    if (!out->path || !out->device || !out->model || !out->nodes || (model && !out->graph) ||
        !oc_rp_read_bindings(json_object_get(root, "bindings"), &out->bindings)) /* the dims it ran at */
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(nodes, i), *me = json_object_get(o, "measured");
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *op = json_string_value(json_object_get(o, "op_type"));
        const char *status = json_string_value(json_object_get(o, "status"));
        if (!name || !op || !status)
            return oc_diag_set(d, OC_ERR_PARSE, "node %zu has no name, op_type or status", i);
        struct oc_rp_file_node *fn = &out->nodes[out->n_nodes++];
        fn->name = oc_rp_dup(name);
        fn->op = oc_rp_dup(op);
        bool costed = strcmp(status, "ok") == 0; /* else no cost: nothing to compare */
        fn->status = oc_rp_dup(json_is_object(me) && costed ? "measured" : "skipped");
        if (!fn->name || !fn->op || !fn->status)
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        n_late += json_is_object(me); /* in the sum of the medians, cost or not */
        if (!costed)
            continue;
        const char *field = NULL, *why = NULL;
        double rd = 0, wr = 0;
        if (!oc_rp_count(o, "flops", true, &fn->est_flops, &why))
            field = "flops";
        else if (!oc_rp_count(o, "macs", true, &fn->est_macs, &why))
            field = "macs";
        else if (!oc_rp_count(o, "bytes_read", true, &rd, &why))
            field = "bytes_read";
        else if (!oc_rp_count(o, "bytes_written", true, &wr, &why))
            field = "bytes_written";
        fn->measured = json_is_object(me);
        const json_t *med = json_object_get(me, "median_us");
        if (!field && fn->measured &&
            !(json_is_number(med) && (json_number_value(med) == 0 || json_number_value(med) >= 1e-6) &&
              json_number_value(med) < 1e12))
            field = "measured.median_us", why = "is not a time of 0 or from 1e-6 to 1e12 us";
        if (field)
            return oc_diag_set(d, OC_ERR_PARSE, "node %zu '%.200s' (%.64s): %s %s", i, fn->name, fn->op, field, why);
        fn->est_bytes = rd + wr;
        const json_t *im2col = json_object_get(json_object_get(o, "gpu"), "im2col_bytes");
        if (json_is_number(im2col) && json_number_value(im2col) > 0 && json_number_value(im2col) < 1e19)
            fn->est_expand_bytes = json_number_value(im2col);
        oc_rp_read_recurrence(json_object_get(json_object_get(o, "gpu"), "recurrence"), &fn->est_recurrence);
        /* the compute dtype as the model picks it: the first float output's */
        const json_t *outs = json_object_get(o, "outputs");
        for (size_t k = 0; !fn->dtype && k < json_array_size(outs); k++) {
            int32_t dt = oc_rp_dtype_code(json_string_value(json_object_get(json_array_get(outs, k), "dtype")));
            if (oc_dtype_is_float(dt))
                fn->dtype = dt;
        }
        uint64_t elem = 0;
        fn->est_outputs = fn->dtype && oc_dtype_bytes(fn->dtype, 1, &elem) && elem ? wr / (double)elem : 0;
        fn->time_ns = fn->measured ? (json_number_value(med) + late_us) * 1e3 : 0;
        fn->kernels = 1;
    }
    if (out->sum_of_nodes_s > 0)
        out->sum_of_nodes_s += n_late * late_us * 1e-6;
    return OC_OK;
}

/* The largest result file read (replay, measure, merge, tables, calibrate). */
#define OC_RESULT_FILE_MAX ((off_t)64 << 20)

enum oc_status oc_rp_file_read(const char *path, struct oc_rp_file *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    out->quiet_runs = -1;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) /* json_load_file reads a folder as an empty file */
        return oc_diag_set(d, OC_ERR_IO, "a folder, not a result file (give the JSON files in it)");
    /* the largest result committed (a Swin-T measured on CPU) is 2 MB; a file
       of hundreds had calibrate run for minutes at gigabytes */
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > OC_RESULT_FILE_MAX)
        return oc_diag_set(d, OC_ERR_PARSE, "a result file of %.1f MiB, more than the %d MiB onnxcost reads",
                           (double)sb.st_size / (1 << 20), (int)(OC_RESULT_FILE_MAX >> 20));
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (je.line <= 0 && errno)
            return oc_diag_set(d, OC_ERR_IO, "cannot read: %s", strerror(errno));
        return oc_diag_set(d, OC_ERR_PARSE, "not JSON: %s (line %d)", je.text, je.line);
    }
    enum oc_status st = OC_OK;
    const json_t *sch = json_object_get(root, "schema");
    if (json_is_string(sch) && strcmp(json_string_value(sch), "onnxcost/1") == 0) {
        st = oc_rp_measure_read(root, path, out, d);
        goto done;
    }
    const json_t *schema = json_object_get(root, "schema");
    const json_t *nodes = json_object_get(root, "nodes");
    const json_t *dev = json_object_get(root, "device");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), "onnxcost-replay/1") != 0 ||
        !json_is_array(nodes) || !json_is_object(dev)) {
        st = oc_diag_set(d, OC_ERR_PARSE, "not an onnxcost replay result (schema \"onnxcost-replay/1\" with "
                                          "\"device\" and \"nodes\") nor a measured one (schema \"onnxcost/1\" "
                                          "with \"measured\")");
        goto done;
    }
    size_t n = json_array_size(nodes);
    if (n > INT32_MAX) {
        st = oc_diag_set(d, OC_ERR_PARSE, "too many nodes");
        goto done;
    }
    out->path = oc_rp_dup(path);
    out->device = oc_rp_dup(json_string_value(json_object_get(dev, "name")));
    out->model = oc_rp_dup(json_string_value(json_object_get(root, "model")));
    out->math = -1;
    const json_t *jmath = json_object_get(json_object_get(root, "options"), "math");
    const char *math = json_string_value(jmath);
    for (int32_t k = 0; math && k < 3; k++)
        if (strcmp(math, oc_rp_math_names[k]) == 0)
            out->math = k;
    if (!jmath) /* a result without options: the replay's default */
        out->math = OC_RP_MATH_FP32;
    const json_t *opts = json_object_get(root, "options");
    out->dtype = oc_rp_dup(json_string_value(json_object_get(opts, "dtype")));
    if (!oc_rp_read_bindings(json_object_get(opts, "bindings"), &out->bindings)) {
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (out->math < 0) {
        st = oc_diag_set(d, OC_ERR_PARSE, "options.math is not \"fp32\", \"tf32\" or \"fp16\"");
        goto done;
    }
    out->nodes = calloc(n ? n : 1, sizeof *out->nodes);
    if (!out->path || !out->device || !out->model || !out->nodes) {
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(nodes, i);
        const json_t *name = json_object_get(o, "name"), *op = json_object_get(o, "op");
        const json_t *status = json_object_get(o, "status");
        if (!json_is_object(o) || !json_is_string(name) || !json_is_string(op) || !json_is_string(status)) {
            st = oc_diag_set(d, OC_ERR_PARSE, "node %zu has no name, op or status", i);
            goto done;
        }
        struct oc_rp_file_node *fn = &out->nodes[out->n_nodes++];
        fn->name = oc_rp_dup(json_string_value(name));
        fn->op = oc_rp_dup(json_string_value(op));
        fn->status = oc_rp_dup(json_string_value(status));
        if (!fn->name || !fn->op || !fn->status) {
            st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
            goto done;
        }
        /* every field a reader uses, checked: a record that cannot be used is
           an error naming the node, never a node dropped without a word */
        const char *field = NULL, *why = NULL;
        const json_t *est = json_object_get(o, "estimate"), *jdt = json_object_get(est, "dtype");
        double rd = 0, wr = 0, dr = 0, dw = 0;
        bool known_status = false;
        for (size_t k = 0; k < sizeof oc_rp_status_names / sizeof oc_rp_status_names[0]; k++)
            known_status |= strcmp(fn->status, oc_rp_status_names[k]) == 0;
        fn->measured = strcmp(fn->status, "measured") == 0;
        if (!known_status) {
            field = "status", why = "is not measured, alias, skipped or failed";
        } else if (!json_is_object(est)) {
            field = "estimate", why = "is missing";
        } else if (!oc_rp_count(est, "flops", true, &fn->est_flops, &why)) {
            field = "estimate.flops";
        } else if (!oc_rp_count(est, "macs", false, &fn->est_macs, &why)) {
            field = "estimate.macs";
        } else if (!oc_rp_count(est, "bytes_read", false, &rd, &why)) {
            field = "estimate.bytes_read";
        } else if (!oc_rp_count(est, "bytes_written", false, &wr, &why)) {
            field = "estimate.bytes_written";
        } else if (jdt && !json_is_null(jdt) && !oc_rp_dtype_code(json_string_value(jdt))) {
            field = "estimate.dtype", why = "is not a dtype name (f32, f16, bf16, ...)";
        }
        fn->est_bytes = rd + wr;
        fn->dtype = oc_rp_dtype_code(json_string_value(jdt));
        uint64_t elem = 0;
        fn->est_outputs = fn->dtype && oc_dtype_bytes(fn->dtype, 1, &elem) && elem ? wr / (double)elem : 0;
        const json_t *tm = json_object_get(o, "time_ns"), *med = json_object_get(tm, "median");
        const json_t *kern = json_object_get(o, "kernels_per_rep"), *ovh = json_object_get(o, "replay_overhead");
        if (!field && fn->measured) {
            if (!json_is_number(med))
                field = "time_ns.median", why = med ? "is not a number" : "is missing";
            else if (!(json_number_value(med) >= 1e-3 && json_number_value(med) < 1e15))
                field = "time_ns.median", why = "is not a time from 1e-3 to 1e15 ns (a measured node took some time)";
            else if (kern && (!json_is_integer(kern) || json_integer_value(kern) < 0 || json_integer_value(kern) > INT32_MAX))
                field = "kernels_per_rep", why = "is not a whole number from 0 to 2^31-1";
            else if (ovh && !json_is_boolean(ovh))
                field = "replay_overhead", why = "is not true or false";
        }
        const json_t *ct = json_object_get(o, "counters");
        if (!field && ct && !json_is_null(ct)) {
            if (!json_is_object(ct))
                field = "counters", why = "is not an object";
            else if (!oc_rp_count(ct, "flops", false, &fn->flops, &why))
                field = "counters.flops";
            else if (json_object_get(ct, "model_flops") &&
                     !oc_rp_count(ct, "model_flops", false, &fn->flops, &why)) /* the node's own, where given */
                field = "counters.model_flops";
            else if (!oc_rp_count(ct, "dram_read_bytes", false, &dr, &why))
                field = "counters.dram_read_bytes";
            else if (!oc_rp_count(ct, "dram_write_bytes", false, &dw, &why))
                field = "counters.dram_write_bytes";
            fn->has_counters = true;
            fn->dram_bytes = dr + dw;
        }
        if (field) {
            st = oc_diag_set(d, OC_ERR_PARSE, "node %zu '%.200s' (%.64s): %s %s", i, fn->name, fn->op, field, why);
            goto done;
        }
        fn->time_ns = fn->measured ? json_number_value(med) : 0;
        fn->kernels = fn->measured ? (int32_t)json_integer_value(kern) : 0;
        fn->overhead = json_is_true(ovh);
    }
done:
    json_decref(root);
    if (st != OC_OK)
        oc_rp_file_free(out);
    return st;
}
