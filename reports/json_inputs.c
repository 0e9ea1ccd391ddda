/*
 * json_inputs.c — the JSON files the commands read besides ONNX: a previous
 * report (--baseline), a device description (--gpu-spec) and a budget file
 * (--budget). reports/ owns onnxcost's JSON formats, in and out.
 */
#include "report_impl.h"
#include "../analyzer/dtype.h"

#include "../views/budget.h"
#include "../replay/calibrate.h"
#include "../views/measure.h"
#include "../analyzer/stats.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

static int oc_strcmp_p(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool oc_baseline_load(const char *path, struct oc_baseline *b, char *err, size_t size) {
    static const char *const keys[OC_BASE_COUNT] = {"params", "macs", "flops", "params_bytes",
                                                     "peak_activation_bytes", "activation_bytes"};
    json_error_t je;
    memset(b, 0, sizeof *b);
    json_t **doc = (json_t **)&b->doc;
    *doc = json_load_file(path, 0, &je);
    json_t *schema = *doc ? json_object_get(*doc, "schema") : NULL;
    if (!*doc || !json_is_string(schema) || strcmp(json_string_value(schema), "onnxcost/1") != 0) {
        snprintf(err, size, "not an onnxcost/1 JSON report%s%s", *doc ? "" : ": ", *doc ? "" : je.text);
        return false;
    }
    b->path = path;
    json_t *t = json_object_get(*doc, "totals");
    /* a report from before totals.complete existed counts as complete */
    b->incomplete = json_is_false(json_object_get(t, "complete"));
    for (int k = 0; k < OC_BASE_COUNT; k++) {
        json_t *v = json_object_get(t, keys[k]);
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            b->has[k] = true;
            b->totals[k] = (uint64_t)json_integer_value(v);
        }
    }
    json_t *nodes = json_object_get(*doc, "nodes"), *mods = json_object_get(*doc, "modules");
    size_t nn = json_array_size(nodes), nm = json_array_size(mods);
    const char **names = calloc(nn + 1, sizeof *names);
    struct oc_baseline_module *m = calloc(nm + 1, sizeof *m);
    if (!names || !m) {
        free(names);
        free(m);
        snprintf(err, size, "out of memory");
        return false;
    }
    for (size_t i = 0; i < nn; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(nodes, i), "name"));
        if (s && s[0])
            names[b->n_nodes++] = s;
    }
    qsort(names, (size_t)b->n_nodes, sizeof *names, oc_strcmp_p);
    for (size_t i = 0; i < nm; i++) {
        json_t *e = json_array_get(mods, i);
        const char *p = json_string_value(json_object_get(e, "path"));
        if (!p)
            continue;
        m[b->n_modules++] = (struct oc_baseline_module){p, (uint64_t)json_integer_value(json_object_get(e, "params")),
                                                        (uint64_t)json_integer_value(json_object_get(e, "macs"))};
    }
    b->node_names = names;
    b->modules = m;
    return true;
}

/* Text that would break a report line or a Markdown code block. */
static bool oc_unprintable(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '`')
            return true;
    return false;
}

const char *const oc_spec_unit_keys[OC_UNIT_COUNT] = {
    [OC_UNIT_FP64] = "fp64",       [OC_UNIT_FP64_TC] = "fp64_tc", [OC_UNIT_FP32] = "fp32",
    [OC_UNIT_FP16] = "fp16",       [OC_UNIT_TF32_TC] = "tf32_tc", [OC_UNIT_FP16_TC] = "fp16_tc",
    [OC_UNIT_BF16_TC] = "bf16_tc", [OC_UNIT_FP8_TC] = "fp8_tc",   [OC_UNIT_INT8_TC] = "int8_tc"};

const struct oc_spec_one_thread_key oc_spec_one_thread_keys[OC_SPEC_ONE_THREAD_KEYS] = {
    {"fp32_gflops", OC_UNIT_FP32},
    {"fp64_gflops", OC_UNIT_FP64},
    {"bf16_gflops", OC_UNIT_BF16_TC},
    {"int8_gflops", OC_UNIT_INT8_TC}};

const struct oc_spec_us_key oc_spec_us_keys[OC_SPEC_US_KEYS] = {
    {"launch_us", offsetof(struct oc_gpu_efficiency, launch_s), 2},
    {"host_us", offsetof(struct oc_gpu_efficiency, host_s), 2},
    {"gap_us", offsetof(struct oc_gpu_efficiency, gap_s), 2},
    {"pool_us", offsetof(struct oc_gpu_efficiency, pool_s), 2},
    {"task_us", offsetof(struct oc_gpu_efficiency, task_s), 2},
    {"split_us", offsetof(struct oc_gpu_efficiency, split_s), 2},
    {"run_us", offsetof(struct oc_gpu_efficiency, run_s), 5},
    {"light_us", offsetof(struct oc_gpu_efficiency, light_s), 2},
};

/* the unit a spec-file key names, or -1 */
static int oc_spec_unit(const char *key) {
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (strcmp(key, oc_spec_unit_keys[u]) == 0)
            return u;
    return -1;
}

static bool ok_share(const json_t *v, double *out) {
    double x = json_number_value(v);
    if (!json_is_number(v) || !(x >= 0.01 && x <= 1))
        return false;
    *out = x;
    return true;
}

/* "efficiency": {"fp32": 0.71, "conv_fp32": 0.3, "tf32_tc": 0.45, "memory": 0.93, "launch_us": 2.9}
 * (onnxcost calibrate writes it; docs/GPUS.md): "conv_" before a unit key is
 * the convolutions' own factor */
static bool oc_gpu_efficiency_load(const json_t *e, struct oc_gpu_efficiency *out, char *err, size_t esize) {
    if (!json_is_object(e)) {
        snprintf(err, esize, "bad key 'efficiency' (an object of factors expected)");
        return false;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)e, key, val) {
        double x = json_number_value(val);
        int us = 0; /* a time's index in oc_spec_us_keys, or OC_SPEC_US_KEYS */
        while (us < OC_SPEC_US_KEYS && strcmp(key, oc_spec_us_keys[us].key) != 0)
            us++;
        bool launch = us < OC_SPEC_US_KEYS, ok = json_is_number(val);
        if (strcmp(key, "pad_path") == 0) { /* a CPU convolution's padded positions' slowdown */
            if (!ok || !(x >= 1 && x <= OC_CALIB_PAD_PATH_MAX)) {
                snprintf(err, esize, "bad key 'efficiency.pad_path' (a factor from 1 to %g expected)",
                         OC_CALIB_PAD_PATH_MAX);
                return false;
            }
            out->pad_path = x;
            continue;
        }
        if (strcmp(key, "split_share") == 0) { /* a share of the threads' speedup */
            if (!ok_share(val, &out->split_share)) {
                snprintf(err, esize, "bad key 'efficiency.split_share' (a share from 0.01 to 1 expected)");
                return false;
            }
            continue;
        }
        bool conv = strncmp(key, "conv_", 5) == 0;
        if (strcmp(key + (conv ? 5 : 0), "parallel_outputs") == 0) {
            if (!ok || !(x >= 1 && x <= OC_CALIB_PARALLEL_MAX)) {
                snprintf(err, esize, "bad key 'efficiency.%s' (a number of outputs from 1 to 1e8 expected)", key);
                return false;
            }
            out->parallel_outputs[conv ? 1 : 0] = x;
            continue;
        }
        if (strcmp(key, "ops") == 0) { /* the ops' own factors: {"LRN": 0.03, ...} */
            const char *op;
            json_t *f;
            bool good = json_is_object(val) && json_object_size(val) <= OC_OP_EFF_MAX;
            out->ops.n = 0;
            json_object_foreach(good ? val : NULL, op, f) {
                double factor = json_number_value(f);
                if (!(good = json_is_number(f) && op[0] && strlen(op) < OC_OP_NAME_MAX &&
                             factor >= OC_CALIB_EFF_MIN && factor <= OC_CALIB_EFF_MAX))
                    break;
                snprintf(out->ops.at[out->ops.n].op, OC_OP_NAME_MAX, "%s", op);
                out->ops.at[out->ops.n++].factor = factor;
            }
            if (!good) {
                snprintf(err, esize, "bad key 'efficiency.ops' (an object of up to %d op types, each named in "
                                     "fewer than %d bytes, with a factor from 0.01 to 10, expected)",
                         OC_OP_EFF_MAX, OC_OP_NAME_MAX);
                return false;
            }
            continue;
        }
        if (strcmp(key, "memory_caches") == 0) { /* a CPU's per-level memory factors, 0 = memory's */
            size_t n = json_array_size(val);
            bool good = json_is_array(val) && n <= 4;
            for (size_t i = 0; good && i < n; i++) {
                double f = json_number_value(json_array_get(val, i));
                good = json_is_number(json_array_get(val, i)) &&
                       (f == 0 || (f >= OC_CALIB_EFF_MIN && f <= OC_CALIB_EFF_MAX));
                if (good)
                    out->memory_cache[i] = f;
            }
            if (!good) {
                snprintf(err, esize, "bad key 'efficiency.memory_caches' (up to 4 factors, each 0 or from 0.01 "
                                     "to 10, expected)");
                return false;
            }
            continue;
        }
        int unit = oc_spec_unit(conv ? key + 5 : key);
        double *dest = launch                       ? (double *)((char *)out + oc_spec_us_keys[us].offset)
                       : strcmp(key, "memory") == 0 ? &out->memory
                       : unit >= 0 && conv          ? &out->conv_unit[unit]
                       : unit >= 0                  ? &out->unit[unit]
                                                    : NULL;
        if (!dest || !ok || (launch ? !(x >= 0 && x <= 1e6) : !(x >= OC_CALIB_EFF_MIN && x <= OC_CALIB_EFF_MAX))) {
            snprintf(err, esize, "bad key 'efficiency.%s' (%s)", key,
                     !dest ? "a unit key as for the peaks (conv_ before it for convolutions), "
                             "\"parallel_outputs\", \"memory\", \"memory_caches\", \"ops\", \"launch_us\", \"host_us\", "
                             "\"gap_us\", \"pool_us\", \"task_us\", \"split_us\", \"run_us\" or \"light_us\" expected"
                     : launch ? "microseconds >= 0 expected"
                              : "a factor from 0.01 to 10 expected");
            return false;
        }
        *dest = launch ? x * 1e-6 : x;
        out->has_launch |= launch && us == 0;
    }
    return true;
}

/* The numeric keys of a spec file besides the peaks, each with its range
 * (docs/GPUS.md): a value outside it is refused with the range in words. */
static const struct {
    const char *key;
    double lo, hi;
    bool whole;
    const char *range;
} oc_spec_numbers[] = {
    {"memory_gib", 0, 1048576, false, "GiB: 0, or from 1e-6 to 1,048,576"},
    {"bandwidth_gbs", 0, 1e6, false, "GB/s: 0, or from 1e-6 to 1,000,000"},
    {"l2_mib", 0, 1048576, false, "MiB: 0, or from 1e-6 to 1,048,576"},
    {"sms", 0, 1e6, true, "a whole number from 0 to 1,000,000"},
    {"boost_mhz", 0, 1e5, true, "a whole number of MHz from 0 to 100,000"},
    {"link_gbs", 0, 1e6, false, "GB/s: 0, or from 1e-6 to 1,000,000"},
};
#define OC_SPEC_PEAK_RANGE "TFLOP/s: 0, or from 1e-6 to 1,000,000"
/* The smallest figure other than 0 a spec's number may be (a TFLOP/s, a
   GB/s, a GiB): below it, a rate is no machine's and a time divided by it
   is absurd or infinite. */
#define OC_SPEC_NUMBER_MIN 1e-6
enum { OC_KTABLE_MAX_SAMPLES = 65536 }; /* a table's samples (the H200's largest: 1,790) */
#define OC_SPEC_NAME_MAX 96 /* bytes of "name" and "link": a report header line, not a document */

/* A CPU spec's "probe" (onnxcost probe's record): its one-thread figures,
 * for predictions at another thread count (views/perf/device.h oc_cpu_scaling).
 * Left at 0 where the record lacks them or does not fit the spec. */
static void oc_spec_scaling(const json_t *pr, struct oc_gpu *g) {
    struct oc_cpu_scaling s = {0};
    json_int_t t = json_integer_value(json_object_get(pr, "threads"));
    const json_t *one = json_object_get(pr, "one_thread");
    if (t < 1 || t > 65536 || !json_is_object(one))
        return;
    for (int i = 0; i < OC_SPEC_ONE_THREAD_KEYS; i++) {
        const struct oc_spec_one_thread_key *k = &oc_spec_one_thread_keys[i];
        double v = json_number_value(json_object_get(one, k->key)) * 1e9;
        if (v >= OC_SPEC_NUMBER_MIN * 1e9 && v <= 1e18 && g->peak[k->unit] > 0)
            s.peak_one[k->unit] = v;
    }
    double dram = json_number_value(json_object_get(one, "dram_gbs")) * 1e9;
    s.mem_one = dram >= OC_SPEC_NUMBER_MIN * 1e9 && dram <= 1e18 ? dram : 0;
    const json_t *caches = json_object_get(pr, "caches");
    for (size_t i = 0; i < json_array_size(caches); i++) { /* matched to the spec's levels by size */
        const json_t *c = json_array_get(caches, i);
        double kib = json_number_value(json_object_get(c, "kib"));
        double all = json_number_value(json_object_get(c, "kib_all_threads"));
        double bw = json_number_value(json_object_get(c, "one_thread_gbs")) * 1e9;
        json_int_t by = json_integer_value(json_object_get(c, "shared_by"));
        for (int32_t k = 0; k < g->n_caches; k++)
            if (kib > 0 && bw >= OC_SPEC_NUMBER_MIN * 1e9 && bw <= 1e18 && by >= 1 && by <= 65536 &&
                (uint64_t)(all * 1024.0) == g->cache_bytes[k]) {
                s.cache_one[k] = (uint64_t)(kib * 1024.0);
                s.shared_by[k] = (int32_t)by;
                s.cache_bw_one[k] = bw;
            }
    }
    s.threads = (int32_t)t;
    g->scaling = s;
    g->threads = (int32_t)t;
}

/* A spec file (--gpu-spec, --machine) is read whole on every run: one
   larger than this is no device's description (the committed H200 kernel
   tables take 0.7 MB) and is refused before it is parsed. */
#define OC_SPEC_FILE_MAX ((off_t)32 << 20)

static bool oc_spec_file_size_ok(const char *path, char *err, size_t esize) {
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > OC_SPEC_FILE_MAX) {
        snprintf(err, esize, "a spec file of %.1f MiB, more than the 32 MiB onnxcost reads on every run",
                 (double)sb.st_size / (1 << 20));
        return false;
    }
    return true;
}

bool oc_gpu_spec_load(const char *path, struct oc_gpu *g, char *name, size_t size, char *err, size_t esize) {
    json_error_t je;
    memset(g, 0, sizeof *g);
    if (!oc_spec_file_size_ok(path, err, esize))
        return false;
    json_t *j = json_load_file(path, 0, &je);
    if (!json_is_object(j)) {
        snprintf(err, esize, "not a JSON object%s%s", j ? "" : ": ", j ? "" : je.text);
        json_decref(j);
        return false;
    }
    const char *key;
    json_t *val;
    json_object_foreach(j, key, val) {
        if (strcmp(key, "calibration") == 0 || strcmp(key, "probe") == 0) /* where it came from: informational */
            continue;
        if (strcmp(key, "kernel_tables") == 0) /* oc_gpu_spec_load_tables reads them */
            continue;
        if (strcmp(key, "kind") == 0) {
            const char *k = json_string_value(val);
            if (!k || (strcmp(k, "cpu") && strcmp(k, "gpu"))) {
                snprintf(err, esize, "bad key 'kind' (\"cpu\" or \"gpu\" expected)");
                json_decref(j);
                return false;
            }
            g->cpu = strcmp(k, "cpu") == 0;
            continue;
        }
        if (strcmp(key, "caches") == 0) {
            size_t n = json_array_size(val);
            bool good = json_is_array(val) && n <= 4;
            for (size_t i = 0; good && i < n; i++) {
                const json_t *c = json_array_get(val, i);
                double kib = json_number_value(json_object_get(c, "kib"));
                double gbs = json_number_value(json_object_get(c, "bandwidth_gbs"));
                good = json_is_object(c) && json_is_number(json_object_get(c, "kib")) &&
                       json_is_number(json_object_get(c, "bandwidth_gbs")) && kib > 0 && kib <= 1e9 &&
                       gbs >= OC_SPEC_NUMBER_MIN &&
                       gbs <= 1e6 && (i == 0 || kib * 1024.0 > (double)g->cache_bytes[i - 1]);
                if (good) {
                    g->cache_bytes[i] = (uint64_t)(kib * 1024.0);
                    g->cache_bw[i] = gbs * 1e9;
                    g->n_caches = (int32_t)i + 1;
                }
            }
            if (!good) {
                snprintf(err, esize, "bad key 'caches' (up to 4 objects {\"kib\", \"bandwidth_gbs\"} > 0, "
                                     "smallest first, expected)");
                json_decref(j);
                return false;
            }
            continue;
        }
        if (strcmp(key, "efficiency") == 0) {
            if (!oc_gpu_efficiency_load(val, &g->measured, err, esize)) {
                json_decref(j);
                return false;
            }
            continue;
        }
        const char *why = NULL;
        if (strcmp(key, "name") == 0 || strcmp(key, "link") == 0) {
            why = !json_is_string(val)                              ? "a string expected"
                  : strlen(json_string_value(val)) > OC_SPEC_NAME_MAX ? "at most 96 bytes expected"
                                                                      : NULL;
        } else {
            const char *range = oc_spec_unit(key) >= 0 ? OC_SPEC_PEAK_RANGE : NULL;
            double lo = 0, hi = 1e6, x = json_number_value(val);
            bool whole = false;
            for (size_t k = 0; !range && k < sizeof oc_spec_numbers / sizeof oc_spec_numbers[0]; k++)
                if (strcmp(key, oc_spec_numbers[k].key) == 0) {
                    range = oc_spec_numbers[k].range;
                    lo = oc_spec_numbers[k].lo;
                    hi = oc_spec_numbers[k].hi;
                    whole = oc_spec_numbers[k].whole;
                }
            if (!range)
                why = "unknown key; see docs/GPUS.md";
            else if (!json_is_number(val) || !(x >= lo && x <= hi) || (whole && x != floor(x)) ||
                     (x != 0 && x < OC_SPEC_NUMBER_MIN))
                why = range; /* a subnormal rate would make a time of inf */
        }
        if (why) {
            snprintf(err, esize, "bad key '%s' (%s%s)", key, why,
                     strchr(why, ';') || strstr(why, "expected") ? "" : " expected");
            json_decref(j);
            return false;
        }
    }
    const char *nm = json_string_value(json_object_get(j, "name"));
    double fp32 = json_number_value(json_object_get(j, "fp32")), mem = json_number_value(json_object_get(j, "memory_gib"));
    double bw = json_number_value(json_object_get(j, "bandwidth_gbs"));
    if (!nm || fp32 <= 0 || mem <= 0 || bw <= 0) {
        snprintf(err, esize, "needs \"name\", and \"fp32\", \"memory_gib\", \"bandwidth_gbs\" > 0");
        json_decref(j);
        return false;
    }
    const char *lk = json_string_value(json_object_get(j, "link"));
    const char *bad = oc_unprintable(nm) ? "name" : lk && oc_unprintable(lk) ? "link" : NULL;
    if (bad) {
        snprintf(err, esize, "\"%s\" has a control character or backquote", bad);
        json_decref(j);
        return false;
    }
    snprintf(name, size, "%s%c%s", nm, 0, lk ? lk : g->cpu ? "none" : "PCIe 3.0 x16");
    g->id = g->name = name;
    g->link = name + strlen(name) + 1;
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        g->peak[u] = json_number_value(json_object_get(j, oc_spec_unit_keys[u])) * 1e12;
    g->mem_bytes = (uint64_t)(mem * 1024.0 * 1024.0 * 1024.0);
    g->mem_bw = bw * 1e9;
    g->l2_bytes = (uint64_t)(json_number_value(json_object_get(j, "l2_mib")) * 1024.0 * 1024.0);
    g->sms = (int32_t)json_number_value(json_object_get(j, "sms"));
    g->boost_mhz = (int32_t)json_number_value(json_object_get(j, "boost_mhz"));
    json_t *lb = json_object_get(j, "link_gbs");
    g->link_bw = (lb ? json_number_value(lb) : g->cpu ? 0.0 : 16.0) * 1e9;
    if (g->cpu && json_is_object(json_object_get(j, "probe")))
        oc_spec_scaling(json_object_get(j, "probe"), g);
    json_decref(j);
    return true;
}

/* One table: {"family", "dtype", "math", "op", "threads", "samples": [[x..., work, seconds], ...]}. A
   memory-bound family's sample may leave out its runs (tables written before they were kept: one run). */
static bool oc_ktable_load(const json_t *t, struct oc_ktable *out, char *why, size_t size) {
    const char *fam = json_string_value(json_object_get(t, "family"));
    const char *dt = json_string_value(json_object_get(t, "dtype"));
    const char *math = json_string_value(json_object_get(t, "math"));
    const json_t *samples = json_object_get(t, "samples");
    enum oc_math m = OC_MATH_FP32;
    if (!fam || !oc_kfamily_parse(fam, &out->family)) {
        snprintf(why, size, "a table's family is not one of gemm, conv_3x3, conv_kxk, conv_1x1, conv_grouped, "
                            "conv_depthwise, eltwise, reduce, pool, move");
        return false;
    }
    out->dtype = !dt ? 0 : strcmp(dt, "f32") == 0 ? OC_DT_FLOAT : strcmp(dt, "f16") == 0 ? OC_DT_FLOAT16
                           : strcmp(dt, "bf16") == 0 ? OC_DT_BFLOAT16 : 0;
    if (!out->dtype || (math && !oc_math_parse(math, &m)) || (!math && !oc_kfamily_memory(out->family)) ||
        m == OC_MATH_AUTO) {
        snprintf(why, size, "table %s: dtype f32, f16 or bf16, and (but for the memory-bound families) math fp32, "
                            "tf32 or fp16 expected", fam);
        return false;
    }
    out->math = (int32_t)m;
    const json_t *op = json_object_get(t, "op");
    if (op && (!json_is_string(op) || !json_string_length(op) || !oc_kfamily_memory(out->family))) {
        snprintf(why, size, "table %s: \"op\" is an op type's name, for the memory-bound families only", fam);
        return false;
    }
    if (op && !(out->op = strdup(json_string_value(op)))) {
        snprintf(why, size, "out of memory");
        return false;
    }
    const json_t *th = json_object_get(t, "threads");
    if (th && (!json_is_integer(th) || json_integer_value(th) < 1 || json_integer_value(th) > 65536)) {
        snprintf(why, size, "table %s: \"threads\" is a CPU's thread count, 1 to 65536", fam);
        return false;
    }
    out->threads = th ? (int32_t)json_integer_value(th) : 0;
    int32_t nf = oc_kfamily_features(out->family);
    size_t n = json_array_size(samples);
    if (!json_is_array(samples) || n == 0 || n > OC_KTABLE_MAX_SAMPLES) {
        snprintf(why, size, "table %s: \"samples\" must be a non-empty array of at most 65,536 (has %zu)", fam, n);
        return false;
    }
    out->samples = calloc(n, sizeof *out->samples);
    if (!out->samples) {
        snprintf(why, size, "out of memory");
        return false;
    }
    out->n = (int32_t)n;
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(samples, i);
        int32_t has = nf;
        if (json_is_array(s) && oc_kfamily_memory(out->family) && json_array_size(s) == (size_t)nf + 1)
            has = nf - 1; /* bytes alone */
        bool good = json_is_array(s) && json_array_size(s) == (size_t)has + 2;
        double v[5] = {0};
        for (int32_t k = 0; good && k < has + 2; k++) {
            v[k] = json_number_value(json_array_get(s, (size_t)k));
            /* sizes and work from 1e-12 to 1e18; seconds from 1e-12 (a picosecond) to 1e5 (a day) */
            good = json_is_number(json_array_get(s, (size_t)k)) && v[k] >= 1e-12 &&
                   v[k] <= (k == has + 1 ? 1e5 : 1e18);
        }
        if (!good) {
            snprintf(why, size,
                     "table %s, sample %zu: %d numbers expected (features and work from 1e-12 to 1e18, "
                     "seconds from 1e-12 to 1e5)",
                     fam, i, (int)nf + 2);
            return false;
        }
        struct oc_ksample *o = &out->samples[i];
        for (int32_t k = 0; k < nf; k++)
            o->x[k] = k < has ? v[k] : 1;
        o->work = v[has];
        o->seconds = v[has + 1];
    }
    oc_ktable_fit_runs(out);
    return true;
}

bool oc_gpu_spec_load_tables(const char *path, struct oc_ktables *out, char *err, size_t esize) {
    json_error_t je;
    memset(out, 0, sizeof *out);
    if (!oc_spec_file_size_ok(path, err, esize))
        return false;
    json_t *j = json_load_file(path, 0, &je);
    const json_t *kt = json_object_get(j, "kernel_tables");
    if (!kt) {
        json_decref(j);
        return true;
    }
    const json_t *tables = json_object_get(kt, "tables");
    const char *src = json_string_value(json_object_get(kt, "source"));
    size_t n = json_array_size(tables);
    char why[200] = "";
    if (!json_is_object(kt) || !json_is_array(tables) || !src || oc_unprintable(src))
        snprintf(why, sizeof why, "{\"source\": a printable string, \"tables\": [...]} expected");
    else if (!(out->source = strdup(src)) || !(out->tables = calloc(n + 1, sizeof *out->tables)))
        snprintf(why, sizeof why, "out of memory");
    for (size_t i = 0; !why[0] && i < n; i++) {
        out->n = (int32_t)i + 1; /* a table that fails is freed with the others */
        oc_ktable_load(json_array_get(tables, i), &out->tables[i], why, sizeof why);
    }
    json_decref(j);
    if (why[0]) {
        snprintf(err, esize, "bad key 'kernel_tables' (%s)", why);
        oc_ktables_free(out);
        return false;
    }
    return true;
}

void oc_baseline_free(struct oc_baseline *b) {
    free(b->node_names);
    free((void *)b->modules);
    json_decref((json_t *)b->doc);
    memset(b, 0, sizeof *b);
}

bool oc_budget_file_load(const char *path, struct oc_budget *budget, char *err, size_t size) {
    json_error_t je;
    json_t *bj = json_load_file(path, 0, &je);
    const char *key;
    json_t *val;
    if (!bj || !json_is_object(bj)) {
        snprintf(err, size, "not a JSON object (%s)", bj ? "" : je.text);
        json_decref(bj);
        return false;
    }
    json_object_foreach(bj, key, val) {
        enum oc_budget_key k;
        uint64_t lim;
        char num[64];
        const char *text = json_is_string(val) ? json_string_value(val) : NULL;
        if (json_is_integer(val) && json_integer_value(val) >= 0) {
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(val));
            text = num;
        }
        if (!oc_budget_key_parse(key, &k) || !text || !oc_quantity_parse(text, &lim)) {
            snprintf(err, size, "bad entry '%s' (keys: max_params, max_macs, max_flops, max_params_size, "
                                "max_peak_memory; values like \"30M\" or \"2GiB\")", key);
            json_decref(bj);
            return false;
        }
        budget->set[k] = true;
        budget->limit[k] = lim;
        budget->text[k] = NULL;
    }
    json_decref(bj);
    return true;
}

/* ---- --measured: an ONNX Runtime profile (views/measure.h) ------------------------------ */

static char *oc_prof_dup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static bool oc_prof_push(double **v, int32_t *n, double x) {
    if (*n == 0 || (*n >= 8 && !(*n & (*n - 1)))) { /* room for 8, then doubled at each power of two */
        double *g = realloc(*v, (size_t)(*n ? 2 * *n : 8) * sizeof *g);
        if (!g)
            return false;
        *v = g;
    }
    (*v)[(*n)++] = x;
    return true;
}

/* a node event's memory figure (a string of bytes, or a number); -1 if none */
static int64_t oc_prof_bytes(const json_t *args, const char *key) {
    const json_t *v = json_object_get(args, key);
    if (json_is_integer(v))
        return json_integer_value(v);
    const char *s = json_string_value(v);
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    return errno || *end ? -1 : (int64_t)x;
}

static void oc_prof_memory(struct oc_profile_memory *m, const json_t *args) {
    int64_t peak = oc_prof_bytes(args, "mem_in_use_peak"), held = oc_prof_bytes(args, "mem_arena_held");
    int64_t in_use = oc_prof_bytes(args, "mem_bytes_in_use"), delta = oc_prof_bytes(args, "mem_in_use_delta");
    if (peak > m->in_use_peak)
        m->in_use_peak = peak;
    if (held > m->arena_held)
        m->arena_held = held;
    if (in_use >= 0 && json_object_get(args, "mem_in_use_delta") && in_use - delta >= 0 &&
        (m->in_use_floor < 0 || in_use - delta < m->in_use_floor))
        m->in_use_floor = in_use - delta;
}

/* `onnxcost measure`'s record (views/measure.h struct oc_profile_run) */
static bool oc_prof_run(struct oc_profile_run *r, const json_t *args) {
    const char *keys[] = {"version", "opt_level", "cpu", "model", "stopped"};
    char **dst[] = {&r->version, &r->opt_level, &r->cpu, &r->model, &r->stopped};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = json_string_value(json_object_get(args, keys[k]));
        free(*dst[k]);
        *dst[k] = oc_prof_dup(v ? v : "");
        if (!*dst[k])
            return false;
    }
    const json_t *t = json_object_get(args, "intra_op_threads"), *c = json_object_get(args, "cpu_count"),
                 *w = json_object_get(args, "warmup_runs_dropped");
    /* counts out of any machine's range are not taken: not recorded (0) */
    r->threads = json_is_integer(t) && json_integer_value(t) >= 0 && json_integer_value(t) <= 65536
                     ? json_integer_value(t)
                     : 0;
    r->cpu_count = json_is_integer(c) && json_integer_value(c) >= 0 && json_integer_value(c) <= 65536
                       ? json_integer_value(c)
                       : 0;
    r->warmup = json_is_integer(w) && json_integer_value(w) >= 0 && json_integer_value(w) <= INT32_MAX
                    ? json_integer_value(w)
                    : 0;
    const json_t *k = json_object_get(args, "kept");
    r->kept = !json_is_false(k);
    /* the passes: their medians' spread (ms, all > 0, else not recorded) */
    const json_t *pm = json_object_get(args, "pass_median_ms");
    size_t np = json_array_size(pm);
    double *v = np ? malloc(np * sizeof *v) : NULL;
    if (np && !v)
        return false;
    for (size_t i = 0; i < np; i++) {
        v[i] = json_number_value(json_array_get(pm, i));
        if (!(v[i] > 0) || !isfinite(v[i])) {
            np = 0;
            break;
        }
    }
    r->passes = (int64_t)np;
    if (np) {
        double med, p10, p90, lo;
        oc_summarize(v, (int32_t)np, &med, &p10, &p90, &lo);
        r->pass_ratio = v[np - 1] / lo; /* sorted */
        r->pass_median_ratio = med / lo;
    }
    free(v);
    r->tolerance = json_number_value(json_object_get(args, "tolerance"));
    r->measuring_s = json_number_value(json_object_get(args, "measuring_s"));
    r->present = true;
    return true;
}

static uint64_t oc_prof_hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The name table at twice its size, every node placed again. */
static bool oc_prof_rehash(const struct oc_profile *p, int32_t **htab, size_t *hcap) {
    size_t cap = *hcap ? 2 * *hcap : 256;
    while (cap < (size_t)p->n_nodes * 2 + 2)
        cap *= 2;
    int32_t *t = malloc(cap * sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < cap; i++)
        t[i] = -1;
    for (int32_t k = 0; k < p->n_nodes; k++) {
        size_t slot = (size_t)oc_prof_hash(p->nodes[k].name, strlen(p->nodes[k].name)) & (cap - 1);
        while (t[slot] >= 0)
            slot = (slot + 1) & (cap - 1);
        t[slot] = k;
    }
    free(*htab);
    *htab = t;
    *hcap = cap;
    return true;
}

bool oc_profile_load(const char *path, struct oc_profile *p, char *err, size_t size) {
    static const char suffix[] = "_kernel_time";
    if (size)
        err[0] = '\0';
    const size_t ns = sizeof suffix - 1;
    memset(p, 0, sizeof *p);
    p->memory = (struct oc_profile_memory){-1, -1, -1};
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc || !json_is_array(doc)) {
        snprintf(err, size, "not an ONNX Runtime profile (a JSON array of trace events expected)%s%s",
                 doc ? "" : ": ", doc ? "" : je.text);
        json_decref(doc);
        return false;
    }
    bool ok = true;
    size_t n = json_array_size(doc), cap = 0, hcap = 0;
    int32_t *htab = NULL; /* node index by name (open addressing), -1 free */
    for (size_t i = 0; ok && i < n; i++) {
        const json_t *e = json_array_get(doc, i);
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        const json_t *dur = json_object_get(e, "dur");
        if (!cat || !name)
            continue;
        if (strcmp(cat, "onnxcost") == 0 && strcmp(name, "measure_run") == 0 &&
            json_is_object(json_object_get(e, "args"))) {
            ok = oc_prof_run(&p->run, json_object_get(e, "args"));
            continue;
        }
        bool node = strcmp(cat, "Node") == 0, run = strcmp(cat, "Session") == 0 && strcmp(name, "model_run") == 0;
        size_t len = strlen(name);
        if (node && (len <= ns || strcmp(name + len - ns, suffix) != 0))
            continue; /* fence and other node events */
        if (!node && !run)
            continue;
        if (!json_is_number(dur) || !(json_number_value(dur) >= 0 && json_number_value(dur) < 1e15)) {
            snprintf(err, size, "event %zu (%s): 'dur' is not a time in microseconds", i, name);
            ok = false;
            break;
        }
        double us = json_number_value(dur);
        if (us == floor(us)) /* ONNX Runtime truncates each duration to whole microseconds: its middle */
            us += OC_PROFILE_TRUNCATION_US;
        /* its start: which run a node event belongs to (no "ts": -1, none) */
        const json_t *tsj = json_object_get(e, "ts");
        double ts = json_is_number(tsj) && json_number_value(tsj) >= 0 && json_number_value(tsj) < 1e18
                        ? json_number_value(tsj)
                        : -1;
        if (run) {
            int32_t at = p->n_runs;
            ok = oc_prof_push(&p->run_us, &p->n_runs, us) && oc_prof_push(&p->run_ts_us, &at, ts);
            continue;
        }
        const json_t *args = json_object_get(e, "args");
        const char *op = json_string_value(json_object_get(args, "op_name"));
        const char *prov = json_string_value(json_object_get(args, "provider"));
        if (!op || !prov) {
            snprintf(err, size, "event %zu (%s): args.op_name and args.provider are not both strings", i, name);
            ok = false;
            break;
        }
        oc_prof_memory(&p->memory, args);
        /* the node of this name, through a hash of the names (a scan per
           event was quadratic in the profile's distinct nodes) */
        if ((size_t)p->n_nodes * 2 + 2 > hcap && !oc_prof_rehash(p, &htab, &hcap)) {
            ok = false;
            break;
        }
        uint64_t hv = oc_prof_hash(name, len - ns);
        size_t slot = (size_t)hv & (hcap - 1);
        int32_t k = -1;
        for (; htab[slot] >= 0; slot = (slot + 1) & (hcap - 1))
            if (strncmp(p->nodes[htab[slot]].name, name, len - ns) == 0 && !p->nodes[htab[slot]].name[len - ns]) {
                k = htab[slot];
                break;
            }
        if (k < 0) {
            if ((size_t)p->n_nodes == cap) {
                size_t c = cap ? 2 * cap : 64;
                struct oc_profile_node *g = realloc(p->nodes, c * sizeof *g);
                if (!g) {
                    ok = false;
                    break;
                }
                p->nodes = g;
                cap = c;
            }
            struct oc_profile_node *pn = &p->nodes[p->n_nodes];
            memset(pn, 0, sizeof *pn);
            pn->name = malloc(len - ns + 1);
            pn->op = oc_prof_dup(op);
            pn->provider = oc_prof_dup(prov);
            if (!pn->name || !pn->op || !pn->provider) {
                free(pn->name);
                free(pn->op);
                free(pn->provider);
                ok = false;
                break;
            }
            memcpy(pn->name, name, len - ns);
            pn->name[len - ns] = '\0';
            k = p->n_nodes++;
            htab[slot] = k;
        }
        int32_t at = p->nodes[k].n;
        ok = oc_prof_push(&p->nodes[k].dur_us, &p->nodes[k].n, us) && oc_prof_push(&p->nodes[k].ts_us, &at, ts);
    }
    json_decref(doc);
    free(htab);
    if (ok && !p->n_nodes && p->n_runs) /* runs, and not one node in them */
        snprintf(err, size, "ONNX Runtime ran no node: its optimizer folded the whole graph into constants (the "
                            "outputs do not depend on the inputs), so there is nothing to time");
    else if (ok && !p->n_nodes)
        snprintf(err, size, "no node events: was the session made with SessionOptions.enable_profiling?");
    if (ok && !p->n_nodes) {
        ok = false;
    }
    if (ok) { /* the distinct providers, in order of appearance */
        size_t len = 1;
        for (int32_t k = 0; k < p->n_nodes; k++)
            len += strlen(p->nodes[k].provider) + 2;
        p->providers = calloc(len, 1);
        p->path = oc_prof_dup(path);
        ok = p->providers && p->path;
        for (int32_t k = 0; ok && k < p->n_nodes; k++) {
            const char *pv = p->nodes[k].provider, *at = strstr(p->providers, pv);
            size_t pl = strlen(pv);
            if (at && (at == p->providers || at[-1] == ' ') && (at[pl] == ',' || !at[pl]))
                continue;
            if (p->providers[0])
                strcat(p->providers, ", ");
            strcat(p->providers, pv);
        }
        if (!ok)
            snprintf(err, size, "out of memory");
    } else if (!err[0]) {
        snprintf(err, size, "out of memory");
    }
    if (!ok)
        oc_profile_free(p);
    return ok;
}

/* ---- calibrate --end-to-end: a table of whole-model measurements ---------------------- */

void oc_e2e_table_free(struct oc_e2e_table *t) {
    for (int32_t i = 0; i < t->n_rows; i++)
        for (int k = 0; k < OC_E2E_COLS; k++)
            free(t->rows[i].field[k]);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* the next CSV field of line at *p (RFC 4180 quoting), malloc'd; NULL when
   out of memory. *bad is set for a quote left open or text after a closing
   quote. */
static char *oc_csv_read_field(const char **p, bool *end, bool *bad) {
    const char *s = *p;
    size_t cap = strlen(s) + 1, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    if (*s == '"') {
        bool closed = false;
        for (s++; *s; s++) {
            if (*s == '"' && s[1] == '"') {
                out[n++] = '"';
                s++;
            } else if (*s == '"') {
                s++;
                closed = true;
                break;
            } else {
                out[n++] = *s;
            }
        }
        if (!closed || (*s && *s != ',' && *s != '\n' && *s != '\r'))
            *bad = true;
    }
    while (*s && *s != ',' && *s != '\n' && *s != '\r')
        out[n++] = *s++;
    out[n] = 0;
    *end = *s != ',';
    *p = *s == ',' ? s + 1 : s;
    return out;
}

/* A plain decimal number ("12", "3.5", "1e3"): not hex, inf or nan, which
   strtod also reads. */
static bool oc_csv_decimal(const char *s) {
    if (!*s)
        return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'e' || *c == 'E' || *c == '+' || *c == '-'))
            return false;
    return (s[0] >= '0' && s[0] <= '9') || s[0] == '.';
}

bool oc_e2e_table_load(const char *path, struct oc_e2e_table *t, char *err, size_t size) {
    static const char *const cols[OC_E2E_COLS] = {"model", "bindings", "device",  "precision",
                                                  "mode",  "measured", "unit",    "role", "source"};
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, size, "cannot read: %s", strerror(errno));
        return false;
    }
    char line[4096];
    int32_t lineno = 0, cap = 0;
    bool ok = true, header = false;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, size, "line %d: longer than %zu bytes", lineno, sizeof line - 2);
            ok = false;
            break;
        }
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
            continue;
        char *field[OC_E2E_COLS] = {0};
        const char *p = line;
        if (!header && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
            p += 3; /* a UTF-8 byte order mark, as spreadsheets write it */
        bool end = false, bad = false;
        int k = 0;
        for (; k < OC_E2E_COLS && !end; k++)
            if (!(field[k] = oc_csv_read_field(&p, &end, &bad)))
                break;
        if (bad) {
            snprintf(err, size, "line %d: a quoted field is not closed, or text follows its closing quote", lineno);
            for (int c = 0; c < OC_E2E_COLS; c++)
                free(field[c]);
            ok = false;
            break;
        }
        bool complete = k == OC_E2E_COLS && end && field[OC_E2E_COLS - 1];
        if (!header) { /* the header names the columns in this order */
            for (int c = 0; complete && c < OC_E2E_COLS; c++)
                complete = strcmp(field[c], cols[c]) == 0;
            for (int c = 0; c < OC_E2E_COLS; c++)
                free(field[c]);
            if (!complete) {
                snprintf(err, size, "line %d: the header must be model,bindings,device,precision,mode,measured,"
                                    "unit,role,source", lineno);
                ok = false;
            }
            header = true;
            continue;
        }
        char *endp = NULL;
        double v = complete ? strtod(field[5], &endp) : 0;
        const char *why = !complete                                    ? "not 9 fields"
                          : endp == field[5] || *endp || !oc_csv_decimal(field[5]) || !(v > 0 && v < 1e12)
                              ? "measured is not a decimal number > 0"
                          : strcmp(field[6], "samples/s") && strcmp(field[6], "ms")
                              ? "unit is not samples/s or ms"
                          : strcmp(field[7], "fit") && strcmp(field[7], "check") ? "role is not fit or check"
                                                                                   : NULL;
        if (why) {
            snprintf(err, size, "line %d: %s", lineno, why);
            for (int c = 0; c < OC_E2E_COLS; c++)
                free(field[c]);
            ok = false;
            break;
        }
        if (t->n_rows == cap) {
            int32_t c2 = cap ? 2 * cap : 16;
            struct oc_e2e_row *g = realloc(t->rows, (size_t)c2 * sizeof *g);
            if (!g) {
                for (int c = 0; c < OC_E2E_COLS; c++)
                    free(field[c]);
                snprintf(err, size, "out of memory");
                ok = false;
                break;
            }
            t->rows = g;
            cap = c2;
        }
        struct oc_e2e_row *r = &t->rows[t->n_rows++];
        memcpy(r->field, field, sizeof field);
        r->measured = v;
        r->line = lineno;
    }
    fclose(f);
    if (ok && !t->n_rows) {
        snprintf(err, size, "no rows");
        ok = false;
    }
    if (!ok)
        oc_e2e_table_free(t);
    return ok;
}
