/* onnxcost GPU replay plugin: CUPTI Range Profiler session (user range + user
 * replay, one range per ONNX node): docs/REPLAY.md, "How it measures"
 * (phase 2).  See profiler.h. */
#include "profiler.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CUDA 13.0 CUPTI headers are not pedantic-clean C (an enumerator of
 * 0x80000000 in cupti_activity.h, no final newline in cupti_profiler_host.h). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cupti_result.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cupti_range_profiler.h>
#include <cupti_profiler_host.h>
#pragma GCC diagnostic pop

/* ranges per collect: the plugin uses 1 (one node per collect); a third-party
   report has SetConfig failing above about 2,000 ranges on CUDA 13 */
#define OC_RP_MAX_RANGES 1024

struct oc_rp_profiler {
    CUcontext ctx;
    CUdevice dev;
    struct oc_rp_metric_set set;
    const char *names[OC_RP_METRIC_MAX]; /* point into set.m[].name */

    int profiler_initialized;             /* cuptiProfilerInitialize succeeded */
    CUpti_Profiler_Host_Object *host;     /* for evaluation */
    CUpti_RangeProfiler_Object *rp;       /* enabled range profiler */

    uint8_t *avail;
    size_t avail_size;
    uint8_t *config;
    size_t config_size;
    uint8_t *counter_data;
    size_t counter_data_size;
    int32_t max_ranges;

    /* replay state */
    int in_pass;
    int32_t pass_index;
    int32_t cursor;     /* ranges pushed in the current pass */
    int32_t depth;      /* open ranges (0 or 1) */
    int push_failed;
    int broken;         /* a collect failed after Start: re-enable before the next */
    int fatal;          /* the last failure is the session's (privileges, another
                           profiler, virtualization): no later collect can work */
    char **pushed;      /* names pushed in pass 0, [max_ranges] */
    int32_t n_pushed;

    /* decoded data */
    int collected;      /* 1 after a successful collect */
    int needs_reset;    /* counter data used: re-initialize before the next collect */
    int32_t n_ranges;
    int32_t dropped;
    char **decoded;     /* range names read back from the counter data, [n_ranges] */

    char last_err[256];
};

/* ---- messages ------------------------------------------------------------ */

static const char *cupti_str(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return s;
}

static const char *cupti_hint(CUptiResult r)
{
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return " (GPU performance counters are restricted to admin users: run as root or set "
               "NVreg_RestrictProfilingToAdminUsers=0)";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return " (profiling is not enabled for this vGPU)";
    case CUPTI_ERROR_HARDWARE_BUSY:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return " (another profiler holds the counters: ncu, nsys or DCGM profiling; stop it)";
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
        return " (the legacy CUPTI profiler API is already in use in this process)";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        return " (virtualized GPU without profiling support)";
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        return " (confidential computing is on)";
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        return " (CMP device)";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        return " (MIG instance: counters need the whole GPU)";
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
        return " (SLI)";
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
        return " (WSL)";
    default:
        return "";
    }
}

static void cupti_fail(char *err, size_t errn, CUptiResult r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void cupti_fail(char *err, size_t errn, CUptiResult r, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, errn, "%s: %s%s", what, cupti_str(r), cupti_hint(r));
}

static void set_last(struct oc_rp_profiler *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_last(struct oc_rp_profiler *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->last_err, sizeof p->last_err, fmt, ap);
    va_end(ap);
}

static const char *level_str(CUpti_Profiler_Support_Level l)
{
    switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
    }
}

/* ---- driver entry points (no -lcuda) -------------------------------------- */

typedef CUresult(CUDAAPI *pfn_cuCtxGetCurrent)(CUcontext *);
typedef CUresult(CUDAAPI *pfn_cuCtxGetDevice)(CUdevice *);

static int driver_fn(const char *sym, void *fn_out, size_t fn_size, char *err, size_t errn)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion(sym, &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
        snprintf(err, errn, "cudaGetDriverEntryPointByVersion(%s): %s", sym,
                 e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found in the driver");
        return -1;
    }
    memcpy(fn_out, &fn, fn_size); /* object -> function pointer without a cast */
    return 0;
}

/* ---- counter data -------------------------------------------------------- */

/* Size (first time), initialize the counter-data image and SetConfig. */
static int setup_counter_data(struct oc_rp_profiler *p, char *err, size_t errn)
{
    CUptiResult r;
    if (!p->counter_data) {
        CUpti_RangeProfiler_GetCounterDataSize_Params cs = {
            .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
            .pRangeProfilerObject = p->rp,
            .pMetricNames = p->names,
            .numMetrics = (size_t)p->set.n,
            .maxNumOfRanges = (size_t)p->max_ranges,
            .maxNumRangeTreeNodes = (uint32_t)p->max_ranges,
        };
        r = cuptiRangeProfilerGetCounterDataSize(&cs);
        if (r != CUPTI_SUCCESS) {
            cupti_fail(err, errn, r, "cuptiRangeProfilerGetCounterDataSize(%d ranges)", (int)p->max_ranges);
            return -1;
        }
        if (cs.counterDataSize == 0) {
            snprintf(err, errn, "cuptiRangeProfilerGetCounterDataSize: size 0");
            return -1;
        }
        p->counter_data = calloc(1, cs.counterDataSize);
        if (!p->counter_data) {
            snprintf(err, errn, "out of memory (counter data image, %zu bytes)", cs.counterDataSize);
            return -1;
        }
        p->counter_data_size = cs.counterDataSize;
    }

    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
        .pRangeProfilerObject = p->rp,
        .counterDataSize = p->counter_data_size,
        .pCounterData = p->counter_data,
    };
    r = cuptiRangeProfilerCounterDataImageInitialize(&ci);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiRangeProfilerCounterDataImageInitialize");
        return -1;
    }

    CUpti_RangeProfiler_SetConfig_Params sc = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
        .pRangeProfilerObject = p->rp,
        .configSize = p->config_size,
        .pConfig = p->config,
        .counterDataImageSize = p->counter_data_size,
        .pCounterDataImage = p->counter_data,
        .range = CUPTI_UserRange,
        .replayMode = CUPTI_UserReplay,
        .maxRangesPerPass = (size_t)p->max_ranges,
        .numNestingLevels = 1,
        .minNestingLevel = 1,
        .passIndex = 0,
        .targetNestingLevel = 1,
    };
    r = cuptiRangeProfilerSetConfig(&sc);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiRangeProfilerSetConfig(user range, user replay, %d ranges)",
                   (int)p->max_ranges);
        return -1;
    }
    p->needs_reset = 0;
    return 0;
}

/* Disable and enable the range profiler again on the context: a fresh object
 * with fresh counter data, after a collect that stopped between passes. */
static int reenable(struct oc_rp_profiler *p, char *err, size_t errn)
{
    CUpti_RangeProfiler_Disable_Params d = {
        .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
        .pRangeProfilerObject = p->rp,
    };
    (void)cuptiRangeProfilerDisable(&d);
    p->rp = NULL;
    free(p->counter_data);
    p->counter_data = NULL;
    p->counter_data_size = 0;
    CUpti_RangeProfiler_Enable_Params en = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = p->ctx,
    };
    CUptiResult r = cuptiRangeProfilerEnable(&en);
    if (r != CUPTI_SUCCESS || !en.pRangeProfilerObject) {
        cupti_fail(err, errn, r, "cuptiRangeProfilerEnable (again, after a failed collect)");
        p->fatal = 1;
        return -1;
    }
    p->rp = en.pRangeProfilerObject;
    p->broken = 0;
    p->needs_reset = 1;
    return 0;
}

static void free_names(char **v, int32_t n)
{
    if (!v)
        return;
    for (int32_t i = 0; i < n; i++)
        free(v[i]);
}

static void clear_decoded(struct oc_rp_profiler *p)
{
    if (p->decoded) {
        free_names(p->decoded, p->n_ranges);
        free(p->decoded);
        p->decoded = NULL;
    }
    p->n_ranges = 0;
    p->dropped = 0;
    p->collected = 0;
}

/* ---- begin / end ---------------------------------------------------------- */

int oc_rp_profiler_begin(struct oc_rp_profiler **out, int32_t math, int32_t max_ranges, char *err, size_t errn)
{
    char dummy[8];
    if (!err || errn == 0) {
        err = dummy;
        errn = sizeof dummy;
    }
    err[0] = '\0';
    if (!out) {
        snprintf(err, errn, "profiler: no output pointer");
        return -1;
    }
    *out = NULL;
    if (max_ranges < 1 || max_ranges > OC_RP_MAX_RANGES) {
        snprintf(err, errn, "profiler: max_ranges %d out of range 1..%d", (int)max_ranges, OC_RP_MAX_RANGES);
        return -1;
    }
    if (math < 0 || math >= OC_MATH_COUNT) {
        snprintf(err, errn, "profiler: unknown math mode %d", (int)math);
        return -1;
    }

    struct oc_rp_profiler *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errn, "profiler: out of memory");
        return -1;
    }
    p->max_ranges = max_ranges;
    CUptiResult r;

    /* context and device, through the runtime's driver entry points */
    pfn_cuCtxGetCurrent get_ctx = NULL;
    pfn_cuCtxGetDevice get_dev = NULL;
    if (driver_fn("cuCtxGetCurrent", &get_ctx, sizeof get_ctx, err, errn) != 0 ||
        driver_fn("cuCtxGetDevice", &get_dev, sizeof get_dev, err, errn) != 0)
        goto fail;
    CUresult cr = get_ctx(&p->ctx);
    if (cr != CUDA_SUCCESS || !p->ctx) {
        snprintf(err, errn, "cuCtxGetCurrent: %s (call cudaSetDevice and cudaFree(0) first)",
                 cr != CUDA_SUCCESS ? "failed" : "no current context");
        goto fail;
    }
    cr = get_dev(&p->dev);
    if (cr != CUDA_SUCCESS) {
        snprintf(err, errn, "cuCtxGetDevice failed (CUresult %d)", (int)cr);
        goto fail;
    }

    /* target side */
    CUpti_Profiler_Initialize_Params pi = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
    r = cuptiProfilerInitialize(&pi);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiProfilerInitialize");
        goto fail;
    }
    p->profiler_initialized = 1;

    CUpti_Profiler_DeviceSupported_Params ds = {
        .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
        .cuDevice = p->dev,
        .api = CUPTI_PROFILER_RANGE_PROFILING,
    };
    r = cuptiProfilerDeviceSupported(&ds);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiProfilerDeviceSupported(device %d)", (int)p->dev);
        goto fail;
    }
    if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        static const char *const what[] = { "architecture (needs compute capability 7.5+)", "sli", "vGpu",
                                            "confidentialCompute", "cmp", "wsl" };
        const CUpti_Profiler_Support_Level lv[] = { ds.architecture, ds.sli, ds.vGpu,
                                                    ds.confidentialCompute, ds.cmp, ds.wsl };
        char why[200] = "";
        size_t used = 0;
        for (size_t i = 0; i < sizeof lv / sizeof lv[0]; i++) {
            if (lv[i] == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
                continue;
            int k = snprintf(why + used, sizeof why - used, "%s%s %s", used ? ", " : "", what[i],
                             level_str(lv[i]));
            if (k < 0 || (size_t)k >= sizeof why - used)
                break;
            used += (size_t)k;
        }
        snprintf(err, errn, "range profiling not supported on device %d: %s", (int)p->dev,
                 used ? why : "no reason given");
        goto fail;
    }

    CUpti_Device_GetChipName_Params cn = {
        .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
        .deviceIndex = (size_t)p->dev,
    };
    r = cuptiDeviceGetChipName(&cn);
    if (r != CUPTI_SUCCESS || !cn.pChipName) {
        cupti_fail(err, errn, r, "cuptiDeviceGetChipName(device %d)", (int)p->dev);
        goto fail;
    }

    /* counter availability: privileges and other profilers show up here */
    CUpti_Profiler_GetCounterAvailability_Params ca = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
        .ctx = p->ctx,
    };
    r = cuptiProfilerGetCounterAvailability(&ca);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiProfilerGetCounterAvailability");
        goto fail;
    }
    if (ca.counterAvailabilityImageSize == 0) {
        snprintf(err, errn, "cuptiProfilerGetCounterAvailability: empty image");
        goto fail;
    }
    p->avail = calloc(1, ca.counterAvailabilityImageSize);
    if (!p->avail) {
        snprintf(err, errn, "profiler: out of memory");
        goto fail;
    }
    p->avail_size = ca.counterAvailabilityImageSize;
    ca.pCounterAvailabilityImage = p->avail;
    r = cuptiProfilerGetCounterAvailability(&ca);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiProfilerGetCounterAvailability");
        goto fail;
    }

    /* host side: names for this chip, config image, passes */
    if (oc_rp_metrics_for_chip(cn.pChipName, math, &p->set) != 0) {
        snprintf(err, errn,
                 "no metric table for chip %s (known: GA10x, GH100, AD10x, GB100/GB102/GB110, GB20x)",
                 cn.pChipName);
        goto fail;
    }
    if (oc_rp_metrics_configure(&p->set, p->avail, p->avail_size, &p->config, &p->config_size, err, errn) != 0)
        goto fail;
    for (int32_t i = 0; i < p->set.n; i++)
        p->names[i] = p->set.m[i].name;

    CUpti_Profiler_Host_Initialize_Params hi = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
        .profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER,
        .pChipName = p->set.chip,
        .pCounterAvailabilityImage = p->avail,
    };
    r = cuptiProfilerHostInitialize(&hi);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiProfilerHostInitialize(chip %s)", p->set.chip);
        goto fail;
    }
    p->host = hi.pHostObject;
    /* evaluate with a host object that scheduled the same metrics, as NVIDIA's
       range_profiling sample does (the header does not say whether it matters) */
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE,
        .pHostObject = p->host,
        .ppMetricNames = p->names,
        .numMetrics = (size_t)p->set.n,
    };
    r = cuptiProfilerHostConfigAddMetrics(&am);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiProfilerHostConfigAddMetrics(evaluation, %d metrics)", (int)p->set.n);
        goto fail;
    }

    /* enable on the context, counter data, config */
    CUpti_RangeProfiler_Enable_Params en = {
        .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
        .ctx = p->ctx,
    };
    r = cuptiRangeProfilerEnable(&en);
    if (r != CUPTI_SUCCESS || !en.pRangeProfilerObject) {
        cupti_fail(err, errn, r, "cuptiRangeProfilerEnable");
        goto fail;
    }
    p->rp = en.pRangeProfilerObject;

    p->pushed = calloc((size_t)max_ranges, sizeof *p->pushed);
    if (!p->pushed) {
        snprintf(err, errn, "profiler: out of memory");
        goto fail;
    }
    if (setup_counter_data(p, err, errn) != 0)
        goto fail;

    *out = p;
    return 0;

fail:
    oc_rp_profiler_end(p);
    return -1;
}

void oc_rp_profiler_end(struct oc_rp_profiler *p)
{
    if (!p)
        return;
    if (p->rp) {
        CUpti_RangeProfiler_Disable_Params d = {
            .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
            .pRangeProfilerObject = p->rp,
        };
        (void)cuptiRangeProfilerDisable(&d);
    }
    if (p->host) {
        CUpti_Profiler_Host_Deinitialize_Params d = {
            .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE,
            .pHostObject = p->host,
        };
        (void)cuptiProfilerHostDeinitialize(&d);
    }
    if (p->profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params d = { .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE };
        (void)cuptiProfilerDeInitialize(&d);
    }
    clear_decoded(p);
    if (p->pushed) {
        free_names(p->pushed, p->n_pushed);
        free(p->pushed);
    }
    free(p->avail);
    free(p->config);
    free(p->counter_data);
    free(p);
}

int oc_rp_profiler_fatal(const struct oc_rp_profiler *p)
{
    return p ? p->fatal : 1;
}

const struct oc_rp_metric_set *oc_rp_profiler_metrics(const struct oc_rp_profiler *p)
{
    return p ? &p->set : NULL;
}

const char *oc_rp_profiler_last_error(const struct oc_rp_profiler *p)
{
    return p ? p->last_err : "";
}

/* ---- replay ---------------------------------------------------------------- */

int oc_rp_profiler_push(struct oc_rp_profiler *p, const char *range_name)
{
    if (!p)
        return -1;
    if (!p->in_pass) {
        set_last(p, "oc_rp_profiler_push outside oc_rp_profiler_collect");
        return -1;
    }
    if (!range_name)
        range_name = "";
    if (p->depth != 0) {
        set_last(p, "pass %d: range '%s' pushed inside another range (one nesting level only)",
                 (int)p->pass_index, range_name);
        p->push_failed = 1;
        return -1;
    }
    if (p->cursor >= p->max_ranges) {
        set_last(p, "pass %d: more than %d ranges (max_ranges)", (int)p->pass_index, (int)p->max_ranges);
        p->push_failed = 1;
        return -1;
    }
    if (p->pass_index == 0) {
        char *copy = strdup(range_name);
        if (!copy) {
            set_last(p, "out of memory");
            p->push_failed = 1;
            return -1;
        }
        p->pushed[p->cursor] = copy;
        if (p->cursor + 1 > p->n_pushed)
            p->n_pushed = p->cursor + 1;
    } else if (p->cursor >= p->n_pushed || strcmp(p->pushed[p->cursor], range_name) != 0) {
        set_last(p, "pass %d: range %d is '%s', pass 0 had '%s' (every pass must replay the same ranges)",
                 (int)p->pass_index, (int)p->cursor, range_name,
                 p->cursor < p->n_pushed ? p->pushed[p->cursor] : "(none)");
        p->push_failed = 1;
        return -1;
    }

    /* CUPTI sees "r<index>", never the caller's name: with CUDA 13.0's CUPTI
       on driver 580, cuptiRangeProfilerDecodeData crashed (SIGSEGV inside
       NVPW_CUDA_Profiler_DecodeCounters) on every range named with 60
       characters or more, as ONNX node names often are (issue 39,
       docs/REPLAY.md "A node that crashes"). The caller's name is kept in
       pushed[] and given back by oc_rp_profiler_range. */
    char short_name[16];
    snprintf(short_name, sizeof short_name, "r%d", (int)p->cursor);
    CUpti_RangeProfiler_PushRange_Params pr = {
        .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE,
        .pRangeProfilerObject = p->rp,
        .pRangeName = short_name,
    };
    CUptiResult r = cuptiRangeProfilerPushRange(&pr);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(p->last_err, sizeof p->last_err, r, "cuptiRangeProfilerPushRange('%.60s')", range_name);
        p->push_failed = 1;
        return -1;
    }
    p->cursor++;
    p->depth++;
    return 0;
}

int oc_rp_profiler_pop(struct oc_rp_profiler *p)
{
    if (!p)
        return -1;
    if (!p->in_pass || p->depth == 0) {
        set_last(p, "oc_rp_profiler_pop without a matching push");
        p->push_failed = p->in_pass ? 1 : p->push_failed;
        return -1;
    }
    CUpti_RangeProfiler_PopRange_Params pp = {
        .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE,
        .pRangeProfilerObject = p->rp,
    };
    CUptiResult r = cuptiRangeProfilerPopRange(&pp);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(p->last_err, sizeof p->last_err, r, "cuptiRangeProfilerPopRange");
        p->push_failed = 1;
        return -1;
    }
    p->depth--;
    return 0;
}

int oc_rp_profiler_collect(struct oc_rp_profiler *p, int (*pass)(void *arg), void *arg, char *err, size_t errn)
{
    char dummy[8];
    if (!err || errn == 0) {
        err = dummy;
        errn = sizeof dummy;
    }
    err[0] = '\0';
    if (!p || !pass) {
        snprintf(err, errn, "profiler: collect without a profiler or a pass function");
        return -1;
    }
    if (p->in_pass) {
        snprintf(err, errn, "profiler: collect called from inside a pass");
        return -1;
    }
    clear_decoded(p);
    p->last_err[0] = '\0';
    if (p->broken && reenable(p, err, errn) != 0)
        return -1;
    if (p->needs_reset && setup_counter_data(p, err, errn) != 0)
        return -1;
    p->needs_reset = 1;
    /* from the first Start on, a failure leaves passes pending and no decode:
       the next collect re-enables the profiler rather than re-configure it */
    p->broken = 1;

    /* CUPTI decides the number of passes; this only guards against a loop */
    const int32_t max_passes = 2 * (p->set.passes > 0 ? p->set.passes : 1) + 8;
    CUptiResult r;
    for (int32_t k = 0;; k++) {
        if (k >= max_passes) {
            snprintf(err, errn, "profiler: CUPTI still wants passes after %d (expected %d)", (int)k,
                     (int)p->set.passes);
            return -1;
        }
        CUpti_RangeProfiler_Start_Params st = {
            .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE,
            .pRangeProfilerObject = p->rp,
        };
        r = cuptiRangeProfilerStart(&st);
        if (r != CUPTI_SUCCESS) {
            cupti_fail(err, errn, r, "cuptiRangeProfilerStart(pass %d)", (int)k);
            p->fatal = cupti_hint(r)[0] != '\0';
            return -1;
        }

        if (k == 0) {
            free_names(p->pushed, p->n_pushed);
            memset(p->pushed, 0, (size_t)p->max_ranges * sizeof *p->pushed);
            p->n_pushed = 0;
        }
        p->in_pass = 1;
        p->pass_index = k;
        p->cursor = 0;
        p->depth = 0;
        p->push_failed = 0;
        int prc = pass(arg);
        p->in_pass = 0;

        /* close what the pass left open so that Stop is legal */
        while (p->depth > 0) {
            CUpti_RangeProfiler_PopRange_Params pp = {
                .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE,
                .pRangeProfilerObject = p->rp,
            };
            (void)cuptiRangeProfilerPopRange(&pp);
            p->depth--;
            if (!p->push_failed && prc == 0) {
                set_last(p, "pass %d: a range was left open", (int)k);
                p->push_failed = 1;
            }
        }

        CUpti_RangeProfiler_Stop_Params sp = {
            .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
            .pRangeProfilerObject = p->rp,
        };
        r = cuptiRangeProfilerStop(&sp);
        if (r != CUPTI_SUCCESS) {
            cupti_fail(err, errn, r, "cuptiRangeProfilerStop(pass %d)", (int)k);
            p->fatal = cupti_hint(r)[0] != '\0';
            return -1;
        }
        if (prc != 0) {
            snprintf(err, errn, "profiler: pass %d failed%s%s", (int)k, p->last_err[0] ? ": " : "", p->last_err);
            return -1;
        }
        if (p->push_failed) {
            snprintf(err, errn, "profiler: %s", p->last_err);
            return -1;
        }
        if (k == 0 && p->cursor == 0) {
            snprintf(err, errn, "profiler: pass 0 pushed no range");
            return -1;
        }
        if (k > 0 && p->cursor != p->n_pushed) {
            snprintf(err, errn, "profiler: pass %d pushed %d ranges, pass 0 pushed %d", (int)k, (int)p->cursor,
                     (int)p->n_pushed);
            return -1;
        }
        if (sp.isAllPassSubmitted)
            break;
    }

    CUpti_RangeProfiler_DecodeData_Params dd = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
        .pRangeProfilerObject = p->rp,
    };
    r = cuptiRangeProfilerDecodeData(&dd);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiRangeProfilerDecodeData");
        return -1;
    }
    p->dropped = dd.numOfRangeDropped > INT32_MAX ? INT32_MAX : (int32_t)dd.numOfRangeDropped;

    CUpti_RangeProfiler_GetCounterDataInfo_Params di = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
        .pCounterDataImage = p->counter_data,
        .counterDataImageSize = p->counter_data_size,
    };
    r = cuptiRangeProfilerGetCounterDataInfo(&di);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(err, errn, r, "cuptiRangeProfilerGetCounterDataInfo");
        return -1;
    }
    if (di.numTotalRanges > (size_t)p->max_ranges) {
        snprintf(err, errn, "profiler: counter data holds %zu ranges, more than the %d asked for",
                 di.numTotalRanges, (int)p->max_ranges);
        return -1;
    }
    p->n_ranges = (int32_t)di.numTotalRanges;
    if (p->n_ranges > 0) {
        p->decoded = calloc((size_t)p->n_ranges, sizeof *p->decoded);
        if (!p->decoded) {
            p->n_ranges = 0;
            snprintf(err, errn, "profiler: out of memory");
            return -1;
        }
    }
    p->collected = 1;
    p->broken = 0;
    return 0;
}

/* ---- results ---------------------------------------------------------------- */

int32_t oc_rp_profiler_n_ranges(const struct oc_rp_profiler *p)
{
    return p && p->collected ? p->n_ranges : 0;
}

int32_t oc_rp_profiler_dropped(const struct oc_rp_profiler *p)
{
    return p && p->collected ? p->dropped : 0;
}

int oc_rp_profiler_range(struct oc_rp_profiler *p, int32_t i, const char **name, struct oc_rp_counters *out)
{
    if (name)
        *name = NULL;
    if (out)
        memset(out, 0, sizeof *out);
    if (!p)
        return -1;
    if (!p->collected || i < 0 || i >= p->n_ranges) {
        set_last(p, "range %d: no such range (%d decoded)", (int)i, (int)(p->collected ? p->n_ranges : 0));
        return -1;
    }

    if (!p->decoded[i]) {
        /* CUPTI's name of the range is "r<k>", k the push index (see push) */
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
            .structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE,
            .pCounterDataImage = p->counter_data,
            .counterDataImageSize = p->counter_data_size,
            .rangeIndex = (size_t)i,
            .rangeDelimiter = "/",
        };
        CUptiResult r = cuptiRangeProfilerCounterDataGetRangeInfo(&ri);
        int k = i; /* ranges are stored in push order */
        if (r == CUPTI_SUCCESS && ri.rangeName && ri.rangeName[0] == 'r')
            k = atoi(ri.rangeName + 1);
        if (k < 0 || k >= p->n_pushed) {
            cupti_fail(p->last_err, sizeof p->last_err, r, "cuptiRangeProfilerCounterDataGetRangeInfo(%d)", (int)i);
            return -1;
        }
        const char *nm = p->pushed[k];
        p->decoded[i] = strdup(nm);
        if (!p->decoded[i]) {
            set_last(p, "out of memory");
            return -1;
        }
    }

    double values[OC_RP_METRIC_MAX];
    for (int32_t k = 0; k < OC_RP_METRIC_MAX; k++)
        values[k] = 0.0;
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE,
        .pHostObject = p->host,
        .pCounterDataImage = p->counter_data,
        .counterDataImageSize = p->counter_data_size,
        .rangeIndex = (size_t)i,
        .ppMetricNames = p->names,
        .numMetrics = (size_t)p->set.n,
        .pMetricValues = values,
    };
    CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&ev);
    if (r != CUPTI_SUCCESS) {
        cupti_fail(p->last_err, sizeof p->last_err, r, "cuptiProfilerHostEvaluateToGpuValues(range %d)", (int)i);
        return -1;
    }
    if (name)
        *name = p->decoded[i];
    if (out)
        oc_rp_counters_from_values(&p->set, values, out);
    return 0;
}
