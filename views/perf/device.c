/*
 * device.c — the built-in device table (gpus.def) and what a device spec
 * answers: its name, its units, its cache levels and their bandwidths, and
 * a probed CPU at another thread count (device.h).
 */
#include "device.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TF 1e12
#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

struct oc_gpu_row {
    struct oc_gpu gpu;
    const char *aliases;
};

static const struct oc_gpu_row oc_gpus[] = {
#define OC_GPU(id_, al, nm, f64, f64tc, f32, f16, tf32, f16tc, bf16tc, f8tc, i8tc, mem, bw, l2, sm, mhz, lk, lkname) \
    {{.id = id_,                                                                                             \
      .name = nm,                                                                                            \
      .peak = {[OC_UNIT_FP64] = (f64) * TF,                                                                  \
               [OC_UNIT_FP64_TC] = (f64tc) * TF,                                                             \
               [OC_UNIT_FP32] = (f32) * TF,                                                                  \
               [OC_UNIT_FP16] = (f16) * TF,                                                                  \
               [OC_UNIT_TF32_TC] = (tf32) * TF,                                                              \
               [OC_UNIT_FP16_TC] = (f16tc) * TF,                                                             \
               [OC_UNIT_BF16_TC] = (bf16tc) * TF,                                                            \
               [OC_UNIT_FP8_TC] = (f8tc) * TF,                                                               \
               [OC_UNIT_INT8_TC] = (i8tc) * TF},                                                             \
      .mem_bytes = (uint64_t)((mem) * GIB),                                                                  \
      .mem_bw = (bw) * 1e9,                                                                                  \
      .l2_bytes = (uint64_t)((l2) * MIB),                                                                    \
      .sms = (sm),                                                                                           \
      .boost_mhz = (mhz),                                                                                    \
      .link_bw = (lk) * 1e9,                                                                                 \
      .link = lkname},                                                                                       \
     al},
#include "gpus.def"
#undef OC_GPU
};

int32_t oc_gpu_count(void) {
    return (int32_t)(sizeof oc_gpus / sizeof oc_gpus[0]);
}

const struct oc_gpu *oc_gpu_at(int32_t i) {
    return i >= 0 && i < oc_gpu_count() ? &oc_gpus[i].gpu : NULL;
}

/* Lower case without spaces, '-', '_' and a leading "nvidia". */
static void oc_gpu_norm(const char *s, char *out, size_t size) {
    size_t n = 0;
    for (; *s && n + 1 < size; s++)
        if (*s != ' ' && *s != '-' && *s != '_')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = 0;
    if (strncmp(out, "nvidia", 6) == 0)
        memmove(out, out + 6, n - 6 + 1);
}

const struct oc_gpu *oc_gpu_find(const char *name) {
    char want[96], have[96];
    if (!name || strlen(name) >= sizeof want)
        return NULL;
    oc_gpu_norm(name, want, sizeof want);
    if (!want[0])
        return NULL;
    for (int32_t i = 0; i < oc_gpu_count(); i++) {
        oc_gpu_norm(oc_gpus[i].gpu.id, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &oc_gpus[i].gpu;
    }
    for (int32_t i = 0; i < oc_gpu_count(); i++) {
        const char *a = oc_gpus[i].aliases;
        size_t wl = strlen(want);
        while (*a) {
            size_t l = strcspn(a, "|");
            if (l == wl && strncmp(a, want, l) == 0)
                return &oc_gpus[i].gpu;
            a += l + (a[l] == '|');
        }
    }
    return NULL;
}

const char *oc_unit_name(enum oc_unit u) {
    static const char *const names[OC_UNIT_COUNT] = {
        [OC_UNIT_FP64] = "FP64",       [OC_UNIT_FP64_TC] = "FP64-TC", [OC_UNIT_FP32] = "FP32",
        [OC_UNIT_FP16] = "FP16",       [OC_UNIT_TF32_TC] = "TF32-TC", [OC_UNIT_FP16_TC] = "FP16-TC",
        [OC_UNIT_BF16_TC] = "BF16-TC", [OC_UNIT_FP8_TC] = "FP8-TC",   [OC_UNIT_INT8_TC] = "INT8-TC",
    };
    return (unsigned)u < OC_UNIT_COUNT ? names[u] : "?";
}

static const char *const oc_math_names[OC_MATH_COUNT] = {"auto", "fp32", "tf32", "fp16"};

bool oc_math_parse(const char *s, enum oc_math *out) {
    for (int m = 0; s && m < OC_MATH_COUNT; m++)
        if (strcmp(s, oc_math_names[m]) == 0) {
            *out = (enum oc_math)m;
            return true;
        }
    return false;
}

const char *oc_math_name(enum oc_math m) {
    return (unsigned)m < OC_MATH_COUNT ? oc_math_names[m] : "?";
}

bool oc_gpu_at_threads(const struct oc_gpu *g, int32_t n, struct oc_gpu *out, char *name, size_t size) {
    const struct oc_cpu_scaling *s = &g->scaling;
    if (!g->cpu || s->threads < 1 || n < 1)
        return false;
    *out = *g;
    int32_t t = s->threads, used = n < t ? n : t;
    double f = t > 1 ? (double)(used - 1) / (double)(t - 1) : 1.0; /* 0 at one thread, 1 at all */
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (g->peak[u] > 0 && s->peak_one[u] > 0)
            out->peak[u] = s->peak_one[u] + (g->peak[u] - s->peak_one[u]) * f;
    if (s->mem_one > 0)
        out->mem_bw = s->mem_one + (g->mem_bw - s->mem_one) * f;
    for (int32_t k = 0; k < g->n_caches && k < 4; k++)
        if (s->cache_one[k] && s->shared_by[k] > 0 && s->cache_bw_one[k] > 0) {
            uint64_t instances = (uint64_t)((used + s->shared_by[k] - 1) / s->shared_by[k]);
            out->cache_bytes[k] = s->cache_one[k] * instances;
            out->cache_bw[k] = s->cache_bw_one[k] + (g->cache_bw[k] - s->cache_bw_one[k]) * f;
        }
    /* "AMD EPYC, 2 threads" -> "AMD EPYC, 1 thread" */
    const char *comma = strrchr(g->name, ',');
    int len = comma && strstr(comma, "thread") ? (int)(comma - g->name) : (int)strlen(g->name);
    snprintf(name, size, "%.*s, %d thread%s", len, g->name, (int)n, n == 1 ? "" : "s");
    out->id = out->name = name;
    out->threads = n;
    out->scaling.threads = 0; /* its rates are no longer the all-thread ones: not scaled again */
    return true;
}

int32_t oc_gpu_level_for(const struct oc_gpu *gpu, uint64_t bytes) {
    for (int32_t k = 0; k < gpu->n_caches && k < 4; k++)
        if (bytes <= gpu->cache_bytes[k] && gpu->cache_bw[k] > 0)
            return k;
    return -1;
}

double oc_gpu_level_bandwidth(const struct oc_gpu *gpu, int32_t k) { return k >= 0 ? gpu->cache_bw[k] : gpu->mem_bw; }
