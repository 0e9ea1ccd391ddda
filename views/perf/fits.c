/*
 * fits.c — the kernel classes (perf.h, enum oc_kclass) and the fits of
 * their factors the built-in GPUs carry (fits.def; docs/MODEL.md, "Fitted
 * kernel classes").
 */
#include "perf.h"

#include "../../analyzer/dtype.h"

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

bool oc_kclass_contraction(enum oc_kclass c) { return c >= OC_KC_GEMM && c <= OC_KC_CONV_DEPTHWISE; }

#define OC_FIT(gpu, runtime, autocast, channels_last, source, memory, ...) \
    {gpu, runtime, autocast, channels_last, memory, {__VA_ARGS__}, source},
static const struct oc_builtin_fit oc_builtin_fits[] = {
#include "fits.def"
    {NULL, OC_RUNTIME_NODES, 0, false, 0, {0}, NULL} /* the end */
};
#undef OC_FIT

const struct oc_builtin_fit *oc_builtin_fit_for(const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    for (size_t i = 0; gpu && oc_builtin_fits[i].gpu_id; i++) {
        const struct oc_builtin_fit *f = &oc_builtin_fits[i];
        if (f->runtime == o->runtime && f->autocast == o->autocast && f->channels_last == o->channels_last &&
            oc_gpu_find(f->gpu_id) == gpu)
            return f;
    }
    return NULL;
}
