/* onnxcost GPU replay plugin: per-chip metric names, Host API validation,
 * counter values -> FLOPs/bytes.  See metrics.h. */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA 13.0 CUPTI headers are not pedantic-clean C (an enumerator of
 * 0x80000000 in cupti_activity.h, no final newline in cupti_profiler_host.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cupti_result.h>
#include <cupti_profiler_host.h>
#pragma GCC diagnostic pop

/* ---- per-chip rules ------------------------------------------------------ */

/* FP16 tensor-path naming. */
enum { FP16_SINGLE, /* sm__ops_path_tensor_src_fp16 (GH100: no dst split) */
       FP16_SPLIT   /* sm__ops_path_tensor_src_fp16_dst_fp16 + _dst_fp32 */ };
/* DRAM byte counters. */
enum { DRAM_BYTES_RW,   /* dram__bytes_read / dram__bytes_write */
       DRAM_BYTES_OP_RW /* dram__bytes_op_read / dram__bytes_op_write (GB20x, GDDR7) */ };

struct chip_rule {
    const char *chip;
    unsigned char fp16;
    unsigned char dram;
};

/* Checked offline with cuptiProfilerHostGetMetricProperties (CUPTI 13.0.85)
 * for every chip below, every math mode.  Left out on purpose: Volta/Turing
 * (no TF32/BF16 path, Turing has no _dst_fp32 split) and the integrated chips
 * GA10B/GB10B/GB20B (no dram__bytes_* / dram__cycles_elapsed). */
static const struct chip_rule chip_rules[] = {
    { "GA100", FP16_SPLIT, DRAM_BYTES_RW },
    { "GA102", FP16_SPLIT, DRAM_BYTES_RW },
    { "GA103", FP16_SPLIT, DRAM_BYTES_RW },
    { "GA104", FP16_SPLIT, DRAM_BYTES_RW },
    { "GA106", FP16_SPLIT, DRAM_BYTES_RW },
    { "GA107", FP16_SPLIT, DRAM_BYTES_RW },
    { "GH100", FP16_SINGLE, DRAM_BYTES_RW },
    { "AD102", FP16_SPLIT, DRAM_BYTES_RW },
    { "AD103", FP16_SPLIT, DRAM_BYTES_RW },
    { "AD104", FP16_SPLIT, DRAM_BYTES_RW },
    { "AD106", FP16_SPLIT, DRAM_BYTES_RW },
    { "AD107", FP16_SPLIT, DRAM_BYTES_RW },
    { "GB100", FP16_SPLIT, DRAM_BYTES_RW },
    { "GB102", FP16_SPLIT, DRAM_BYTES_RW },
    { "GB110", FP16_SPLIT, DRAM_BYTES_RW },
    { "GB202", FP16_SPLIT, DRAM_BYTES_OP_RW },
    { "GB203", FP16_SPLIT, DRAM_BYTES_OP_RW },
    { "GB205", FP16_SPLIT, DRAM_BYTES_OP_RW },
    { "GB206", FP16_SPLIT, DRAM_BYTES_OP_RW },
    { "GB207", FP16_SPLIT, DRAM_BYTES_OP_RW },
};

/* smsp__ (not sm__): the prefix `ncu --metrics smsp__sass_thread_inst_executed_op_*`
 * reports; the .sum rollup is the same count either way. */
#define SASS(op) "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum"

static const struct {
    int32_t role;
    const char *name;
} sass_metrics[] = {
    { OC_M_FADD, SASS("fadd") }, { OC_M_FMUL, SASS("fmul") }, { OC_M_FFMA, SASS("ffma") },
    { OC_M_HADD, SASS("hadd") }, { OC_M_HMUL, SASS("hmul") }, { OC_M_HFMA, SASS("hfma") },
    { OC_M_DADD, SASS("dadd") }, { OC_M_DMUL, SASS("dmul") }, { OC_M_DFMA, SASS("dfma") },
};

static const struct chip_rule *find_rule(const char *chip)
{
    if (!chip)
        return NULL;
    for (size_t i = 0; i < sizeof chip_rules / sizeof chip_rules[0]; i++)
        if (strcmp(chip_rules[i].chip, chip) == 0)
            return &chip_rules[i];
    return NULL;
}

static void add(struct oc_rp_metric_set *s, int32_t role, const char *name)
{
    if (s->n >= OC_RP_METRIC_MAX)
        return; /* cannot happen with the fixed lists here (max 16) */
    struct oc_rp_metric *m = &s->m[s->n++];
    m->role = role;
    snprintf(m->name, sizeof m->name, "%s", name);
}

const char *oc_rp_math_name(int32_t math)
{
    switch (math) {
    case OC_MATH_FP32: return "fp32";
    case OC_MATH_TF32: return "tf32";
    case OC_MATH_FP16: return "fp16";
    case OC_MATH_BF16: return "bf16";
    default: return "?";
    }
}

int oc_rp_metrics_for_chip(const char *chip, int32_t math, struct oc_rp_metric_set *out)
{
    if (!out)
        return -1;
    memset(out, 0, sizeof *out);
    if (chip)
        snprintf(out->chip, sizeof out->chip, "%s", chip);
    out->math = math;
    const struct chip_rule *r = find_rule(chip);
    if (!r || math < 0 || math >= OC_MATH_COUNT)
        return -1;

    for (size_t i = 0; i < sizeof sass_metrics / sizeof sass_metrics[0]; i++)
        add(out, sass_metrics[i].role, sass_metrics[i].name);

    switch (math) {
    case OC_MATH_TF32:
        add(out, OC_M_TENSOR, "sm__ops_path_tensor_src_tf32_dst_fp32.sum");
        break;
    case OC_MATH_FP16:
        if (r->fp16 == FP16_SINGLE) {
            add(out, OC_M_TENSOR, "sm__ops_path_tensor_src_fp16.sum");
        } else {
            add(out, OC_M_TENSOR, "sm__ops_path_tensor_src_fp16_dst_fp16.sum");
            add(out, OC_M_TENSOR, "sm__ops_path_tensor_src_fp16_dst_fp32.sum");
        }
        break;
    case OC_MATH_BF16:
        add(out, OC_M_TENSOR, "sm__ops_path_tensor_src_bf16_dst_fp32.sum");
        break;
    default: /* OC_MATH_FP32: strict FP32 stays on FFMA, no tensor path */
        break;
    }

    if (r->dram == DRAM_BYTES_OP_RW) {
        add(out, OC_M_DRAM_READ, "dram__bytes_op_read.sum");
        add(out, OC_M_DRAM_WRITE, "dram__bytes_op_write.sum");
    } else {
        add(out, OC_M_DRAM_READ, "dram__bytes_read.sum");
        add(out, OC_M_DRAM_WRITE, "dram__bytes_write.sum");
    }
    add(out, OC_M_TIME, "gpu__time_duration.sum");
    add(out, OC_M_SM_HZ, "sm__cycles_elapsed.avg.per_second");
    add(out, OC_M_DRAM_HZ, "dram__cycles_elapsed.avg.per_second");
    return 0;
}

/* ---- Host API ------------------------------------------------------------ */

static const char *cupti_str(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return s;
}

int oc_rp_metrics_configure(struct oc_rp_metric_set *set, const uint8_t *counter_avail, size_t avail_size,
                            uint8_t **config, size_t *config_size, char *err, size_t errn)
{
    char dummy[8];
    if (!err || errn == 0) {
        err = dummy;
        errn = sizeof dummy;
    }
    err[0] = '\0';
    if (config)
        *config = NULL;
    if (config_size)
        *config_size = 0;
    if (!set || set->n <= 0 || set->n > OC_RP_METRIC_MAX || set->chip[0] == '\0') {
        snprintf(err, errn, "metrics: empty or invalid metric set");
        return -1;
    }
    if (counter_avail && avail_size == 0) {
        snprintf(err, errn, "metrics: counter-availability image has size 0");
        return -1;
    }
    set->passes = 0;

    const char *names[OC_RP_METRIC_MAX];
    for (int32_t i = 0; i < set->n; i++) {
        set->m[i].name[OC_RP_METRIC_NAME_MAX - 1] = '\0';
        names[i] = set->m[i].name;
    }

    CUpti_Profiler_Host_Initialize_Params ip = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = set->chip,
        .pCounterAvailabilityImage = counter_avail,
    };
    CUptiResult r = cuptiProfilerHostInitialize(&ip);
    if (r != CUPTI_SUCCESS) {
        snprintf(err, errn, "cuptiProfilerHostInitialize(chip %s): %s", set->chip, cupti_str(r));
        return -1;
    }

    int rc = -1;
    uint8_t *image = NULL;

    for (int32_t i = 0; i < set->n; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params mp = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE,
            .pHostObject = ip.pHostObject,
            .pMetricName = names[i],
        };
        r = cuptiProfilerHostGetMetricProperties(&mp);
        if (r != CUPTI_SUCCESS) {
            snprintf(err, errn, "metric %s not available on chip %s: %s", names[i], set->chip, cupti_str(r));
            goto out;
        }
    }

    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = ip.pHostObject,
        .ppMetricNames = names,
        .numMetrics = (size_t)set->n,
    };
    r = cuptiProfilerHostConfigAddMetrics(&am);
    if (r != CUPTI_SUCCESS) {
        snprintf(err, errn, "cuptiProfilerHostConfigAddMetrics(chip %s, %d metrics): %s", set->chip, (int)set->n,
                 cupti_str(r));
        goto out;
    }

    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
        .pHostObject = ip.pHostObject,
    };
    r = cuptiProfilerHostGetConfigImageSize(&sz);
    if (r != CUPTI_SUCCESS || sz.configImageSize == 0) {
        snprintf(err, errn, "cuptiProfilerHostGetConfigImageSize: %s",
                 r != CUPTI_SUCCESS ? cupti_str(r) : "size 0");
        goto out;
    }
    image = malloc(sz.configImageSize);
    if (!image) {
        snprintf(err, errn, "metrics: out of memory (config image, %zu bytes)", sz.configImageSize);
        goto out;
    }
    CUpti_Profiler_Host_GetConfigImage_Params gi = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE,
        .pHostObject = ip.pHostObject,
        .configImageSize = sz.configImageSize,
        .pConfigImage = image,
    };
    r = cuptiProfilerHostGetConfigImage(&gi);
    if (r != CUPTI_SUCCESS) {
        snprintf(err, errn, "cuptiProfilerHostGetConfigImage: %s", cupti_str(r));
        goto out;
    }

    CUpti_Profiler_Host_GetNumOfPasses_Params np = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE,
        .configImageSize = sz.configImageSize,
        .pConfigImage = image,
    };
    r = cuptiProfilerHostGetNumOfPasses(&np);
    if (r != CUPTI_SUCCESS || np.numOfPasses == 0 || np.numOfPasses > INT32_MAX) {
        snprintf(err, errn, "cuptiProfilerHostGetNumOfPasses: %s",
                 r != CUPTI_SUCCESS ? cupti_str(r) : "implausible pass count");
        goto out;
    }
    set->passes = (int32_t)np.numOfPasses;

    if (config) {
        *config = image;
        image = NULL;
        if (config_size)
            *config_size = sz.configImageSize;
    }
    rc = 0;

out:
    free(image);
    {
        CUpti_Profiler_Host_Deinitialize_Params dp = {
            .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
            .pHostObject = ip.pHostObject,
        };
        r = cuptiProfilerHostDeinitialize(&dp);
        if (r != CUPTI_SUCCESS && rc == 0) {
            snprintf(err, errn, "cuptiProfilerHostDeinitialize: %s", cupti_str(r));
            if (config) {
                free(*config);
                *config = NULL;
                if (config_size)
                    *config_size = 0;
            }
            rc = -1;
        }
    }
    return rc;
}

/* ---- values -> FLOPs/bytes ----------------------------------------------- */

void oc_rp_counters_from_values(const struct oc_rp_metric_set *set, const double *values,
                                struct oc_rp_counters *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!set || !values)
        return;

    double v[OC_M_ROLE_COUNT] = { 0 };
    int seen[OC_M_ROLE_COUNT] = { 0 };
    int bad[OC_M_ROLE_COUNT] = { 0 };
    int32_t n = set->n < 0 ? 0 : set->n > OC_RP_METRIC_MAX ? OC_RP_METRIC_MAX : set->n;
    for (int32_t i = 0; i < n; i++) {
        int32_t role = set->m[i].role;
        if (role < 0 || role >= OC_M_ROLE_COUNT)
            continue;
        seen[role]++;
        if (!isfinite(values[i]) || values[i] < 0)
            bad[role] = 1;
        else
            v[role] += values[i];
    }
#define OK(r) (seen[r] && !bad[r])

    if (OK(OC_M_FADD) && OK(OC_M_FMUL) && OK(OC_M_FFMA)) {
        out->fp32_flops = v[OC_M_FADD] + v[OC_M_FMUL] + 2.0 * v[OC_M_FFMA];
        out->have |= OC_RP_HAVE_FP32;
    }
    if (OK(OC_M_HADD) && OK(OC_M_HMUL) && OK(OC_M_HFMA)) {
        /* HADD2/HMUL2/HFMA2 are packed half2: x2, x2, x4 (current ncu roofline) */
        out->fp16_flops = 2.0 * v[OC_M_HADD] + 2.0 * v[OC_M_HMUL] + 4.0 * v[OC_M_HFMA];
        out->have |= OC_RP_HAVE_FP16;
    }
    if (OK(OC_M_DADD) && OK(OC_M_DMUL) && OK(OC_M_DFMA)) {
        out->fp64_flops = v[OC_M_DADD] + v[OC_M_DMUL] + 2.0 * v[OC_M_DFMA];
        out->have |= OC_RP_HAVE_FP64;
    }
    if (OK(OC_M_TENSOR)) {
        out->tensor_ops = v[OC_M_TENSOR];
        out->have |= OC_RP_HAVE_TENSOR;
    }
    if (OK(OC_M_DRAM_READ)) {
        out->dram_read = v[OC_M_DRAM_READ];
        out->have |= OC_RP_HAVE_DRAM_READ;
    }
    if (OK(OC_M_DRAM_WRITE)) {
        out->dram_write = v[OC_M_DRAM_WRITE];
        out->have |= OC_RP_HAVE_DRAM_WRITE;
    }
    if (OK(OC_M_TIME)) {
        out->gpu_time_ns = v[OC_M_TIME];
        out->have |= OC_RP_HAVE_TIME;
    }
    if (OK(OC_M_SM_HZ)) {
        out->sm_hz = v[OC_M_SM_HZ];
        out->have |= OC_RP_HAVE_SM_HZ;
    }
    if (OK(OC_M_DRAM_HZ)) {
        out->dram_hz = v[OC_M_DRAM_HZ];
        out->have |= OC_RP_HAVE_DRAM_HZ;
    }
#undef OK
}
