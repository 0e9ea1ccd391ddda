/*
 * fits.c — the kernel classes (perf.h, enum oc_kclass) and the fits of
 * their factors the built-in GPUs carry (fits.def; docs/MODEL.md, "Fitted
 * kernel classes").
 */
#include "perf.h"

#include "../../analyzer/dtype.h"

#include <stdlib.h>
#include <string.h>

static const char *const oc_kclass_names[OC_KC_COUNT] = {
    "gemm",    "attention", "conv_3x3", "conv_kxk", "conv_1x1", "conv_grouped", "conv_depthwise",
    "eltwise", "reduce",    "pool",     "move",     "pass",         "fused"};

const char *oc_kclass_name(enum oc_kclass c) { return (unsigned)c < OC_KC_COUNT ? oc_kclass_names[c] : "?"; }

bool oc_kclass_parse(const char *s, enum oc_kclass *out) {
    for (int c = 0; s && c < OC_KC_COUNT; c++)
        if (strcmp(s, oc_kclass_names[c]) == 0) {
            *out = (enum oc_kclass)c;
            return true;
        }
    return false;
}

bool oc_kclass_values_parse(const char *s, double *out) {
    double v[OC_KC_COUNT];
    memcpy(v, out, sizeof v);
    const char *p = s;
    do {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        char name[32];
        if (!eq || (comma && comma < eq) || eq == p || (size_t)(eq - p) >= sizeof name)
            return false;
        memcpy(name, p, (size_t)(eq - p));
        name[eq - p] = 0;
        enum oc_kclass c;
        char *end;
        double x = strtod(eq + 1, &end);
        if (!oc_kclass_parse(name, &c) || end == eq + 1 || (*end && *end != ',') || !(x > 0 && x <= 100))
            return false;
        v[c] = x;
        p = *end ? end + 1 : end;
    } while (*p);
    if (p > s && p[-1] == ',')
        return false;
    memcpy(out, v, sizeof v);
    return true;
}

bool oc_kclass_contraction(enum oc_kclass c) { return c >= OC_KC_GEMM && c <= OC_KC_CONV_DEPTHWISE; }

#define OC_FIT(gpu, runtime, autocast, channels_last, source, memory, ...) \
    {gpu, runtime, autocast, channels_last, memory, {__VA_ARGS__}, source},
#define OC_TRAINING(gpu, runtime, autocast, channels_last, source, kernel_us, ...)
static const struct oc_builtin_fit oc_builtin_fits[] = {
#include "fits.def"
    {NULL, OC_RUNTIME_NODES, 0, false, 0, {0}, NULL} /* the end */
};
#undef OC_FIT
#undef OC_TRAINING

#define OC_FIT(gpu, runtime, autocast, channels_last, source, memory, ...)
#define OC_TRAINING(gpu, runtime, autocast, channels_last, source, kernel_us, ...) \
    {gpu, runtime, autocast, channels_last, (kernel_us) * 1e-6, {__VA_ARGS__}, source},
static const struct oc_builtin_training oc_builtin_trainings[] = {
#include "fits.def"
    {NULL, OC_RUNTIME_NODES, 0, false, 0, {0}, NULL} /* the end */
};
#undef OC_FIT
#undef OC_TRAINING

/* Whether a built-in row's key (gpu id, runtime, autocast, layout) is o's on gpu. */
static bool oc_fit_key(const char *gpu_id, enum oc_runtime runtime, int32_t autocast, bool channels_last,
                       const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    return runtime == o->runtime && autocast == o->autocast && channels_last == o->channels_last &&
           oc_gpu_find(gpu_id) == gpu;
}

const struct oc_builtin_fit *oc_builtin_fit_for(const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    for (size_t i = 0; gpu && oc_builtin_fits[i].gpu_id; i++) {
        const struct oc_builtin_fit *f = &oc_builtin_fits[i];
        if (oc_fit_key(f->gpu_id, f->runtime, f->autocast, f->channels_last, gpu, o))
            return f;
    }
    return NULL;
}

const struct oc_builtin_training *oc_builtin_training_for(const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    for (size_t i = 0; gpu && oc_builtin_trainings[i].gpu_id; i++) {
        const struct oc_builtin_training *f = &oc_builtin_trainings[i];
        if (oc_fit_key(f->gpu_id, f->runtime, f->autocast, f->channels_last, gpu, o))
            return f;
    }
    return NULL;
}
