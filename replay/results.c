/*
 * results.c — device peaks, derived per-node figures, and replay result
 * files read back (jansson) for `onnxcost merge`.
 */
#include "results.h"

#include "../analyzer/dtype.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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

void oc_rp_derive(const struct oc_rp_result *r, uint64_t est_flops, const struct oc_rp_peaks *pk,
                  struct oc_rp_derived *out) {
    memset(out, 0, sizeof *out);
    if (r->status != OC_RPS_MEASURED)
        return;
    double t = r->time_median_ns * 1e-9;
    if (r->has_counters) {
        out->measured_flops = r->fp32_flops + r->fp16_flops + r->fp64_flops + r->tensor_flops;
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

static double oc_rp_num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
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
    free(f->model);
    memset(f, 0, sizeof *f);
}

const char *const oc_rp_math_names[3] = {"fp32", "tf32", "fp16"};

/* "f32" -> 1: the names oc_dtype_name writes; 0 for none or unknown */
static int32_t oc_rp_dtype_code(const char *name) {
    for (int32_t dt = 1; name && dt < OC_DT_COUNT; dt++)
        if (strcmp(name, oc_dtype_name(dt)) == 0)
            return dt;
    return 0;
}

enum oc_status oc_rp_file_read(const char *path, struct oc_rp_file *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (je.line <= 0 && errno)
            return oc_diag_set(d, OC_ERR_IO, "cannot read: %s", strerror(errno));
        return oc_diag_set(d, OC_ERR_PARSE, "not JSON: %s (line %d)", je.text, je.line);
    }
    enum oc_status st = OC_OK;
    const json_t *schema = json_object_get(root, "schema");
    const json_t *nodes = json_object_get(root, "nodes");
    const json_t *dev = json_object_get(root, "device");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), "onnxcost-replay/1") != 0 ||
        !json_is_array(nodes) || !json_is_object(dev)) {
        st = oc_diag_set(d, OC_ERR_PARSE, "not an onnxcost replay result (schema \"onnxcost-replay/1\" with "
                                          "\"device\" and \"nodes\")");
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
    out->math = OC_RP_MATH_FP32;
    const char *math = json_string_value(json_object_get(json_object_get(root, "options"), "math"));
    for (int32_t k = 0; math && k < 3; k++)
        if (strcmp(math, oc_rp_math_names[k]) == 0)
            out->math = k;
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
        const json_t *est = json_object_get(o, "estimate");
        fn->est_flops = oc_rp_num(est, "flops");
        fn->est_macs = oc_rp_num(est, "macs");
        fn->est_bytes = oc_rp_num(est, "bytes_read") + oc_rp_num(est, "bytes_written");
        fn->dtype = oc_rp_dtype_code(json_string_value(json_object_get(est, "dtype")));
        fn->measured = strcmp(fn->status, "measured") == 0;
        fn->overhead = json_is_true(json_object_get(o, "replay_overhead"));
        fn->kernels = (int32_t)json_integer_value(json_object_get(o, "kernels_per_rep"));
        const json_t *tm = json_object_get(o, "time_ns");
        fn->time_ns = oc_rp_num(tm, "median");
        const json_t *ct = json_object_get(o, "counters");
        if (json_is_object(ct)) {
            fn->has_counters = true;
            fn->flops = oc_rp_num(ct, "flops");
            fn->dram_bytes = oc_rp_num(ct, "dram_read_bytes") + oc_rp_num(ct, "dram_write_bytes");
        }
    }
done:
    json_decref(root);
    if (st != OC_OK)
        oc_rp_file_free(out);
    return st;
}
