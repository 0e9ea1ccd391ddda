/*
 * sim_core.c — ocsim's CUDA runtime and CUPTI (see sim.h).
 *
 * Runtime: one simulated device ("ocsim H100", compute capability 9.0, chip
 * GH100); cudaMalloc is host memory in a table of live allocations that every
 * call checks pointers against; streams and events are records; a clock in
 * nanoseconds advances by each kernel's duration, so CUDA events measure
 * exactly the kernels between them.
 *
 * CUPTI Activity: records are kept from each launch (a DRIVER API record, an
 * EXTERNAL_CORRELATION record per pushed id, a CONCURRENT_KERNEL record), as
 * the real library emits them, and handed over in the client's buffers on
 * cuptiActivityFlushAll. External correlation records come only with API
 * records (DRIVER or RUNTIME enabled), as in CUPTI.
 *
 * CUPTI Profiler: host objects, config images and counter-data images are
 * this file's own formats; the rules the plugin must follow are checked
 * (structSize set, Initialize before use, counter availability probed on the
 * current context, user range with user replay, ranges pushed only between
 * Start and Stop, one nesting level, every pass pushing the same ranges,
 * Decode after the last pass, no tracing while the range profiler is on).
 * Metrics are scheduled into passes as on GH100: the hardware counters in
 * one pass, the SASS instruction counters in another, the FP16 tensor path in
 * a third; a kernel inside a range adds its work to the metrics of the pass
 * being replayed.
 */
#define _POSIX_C_SOURCE 200809L
#include "sim.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_activity.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>
#pragma GCC diagnostic pop

/* ---- errors and the log ------------------------------------------------------- */

static FILE *g_log;
static bool g_log_tried;

static FILE *sim_log(void) {
    if (!g_log_tried) {
        g_log_tried = true;
        const char *p = getenv("OCSIM_LOG");
        if (p && *p) {
            g_log = fopen(p, "a");
            if (!g_log)
                fprintf(stderr, "ocsim: cannot open OCSIM_LOG %s\n", p);
        }
    }
    return g_log;
}

int sim_fail(const char *call, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ocsim: %s: %s\n", call, msg);
    FILE *f = sim_log();
    if (f) {
        fprintf(f, "E\t%s\t%s\n", call, msg);
        fflush(f);
    }
    return 1;
}

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static long env_long(const char *name) {
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : 0;
}

/* ---- allocations ---------------------------------------------------------------- */

struct sim_alloc {
    char *p;
    size_t n;
};
static struct sim_alloc *g_al;
static size_t g_nal, g_cal;

static struct sim_alloc *find_alloc(const void *p) {
    const char *c = p;
    for (size_t i = 0; i < g_nal; i++)
        if (c >= g_al[i].p && c <= g_al[i].p + g_al[i].n)
            return &g_al[i];
    return NULL;
}

int sim_span(const char *call, const char *what, const void *p, uint64_t bytes) {
    if (!p)
        return sim_fail(call, "%s is NULL (%llu bytes expected)", what, (unsigned long long)bytes);
    const char *c = p;
    for (size_t i = 0; i < g_nal; i++) {
        if (c < g_al[i].p || c > g_al[i].p + g_al[i].n)
            continue;
        uint64_t off = (uint64_t)(c - g_al[i].p);
        if (bytes <= g_al[i].n - off)
            return 0;
        return sim_fail(call, "%s: %llu bytes from offset %llu overrun its %zu-byte allocation by %llu", what,
                        (unsigned long long)bytes, (unsigned long long)off, g_al[i].n,
                        (unsigned long long)(bytes - (g_al[i].n - off)));
    }
    return sim_fail(call, "%s (%p, %llu bytes) is not in any live device allocation", what, p,
                    (unsigned long long)bytes);
}

/* ---- live objects (sim.h) ------------------------------------------------------------ */

static struct sim_obj *g_objs;

void *sim_obj_new(uint32_t kind, size_t size) {
    struct sim_obj *o = calloc(1, size);
    if (!o)
        return NULL;
    o->kind = kind;
    o->next = g_objs;
    g_objs = o;
    return o;
}

struct sim_obj *sim_obj_live(const void *p) {
    for (struct sim_obj *o = g_objs; p && o; o = o->next)
        if ((const void *)o == p)
            return o;
    return NULL;
}

void sim_obj_free(void *p) {
    for (struct sim_obj **pp = &g_objs; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = (*pp)->next;
            free(p);
            return;
        }
}

/* the live object at p of that kind, or NULL after one ocsim line */
static void *obj_of(const char *call, const char *what, const void *p, uint32_t kind) {
    struct sim_obj *o = sim_obj_live(p);
    if (!o || o->kind != kind) {
        sim_fail(call, "%s %p is not one (NULL, destroyed, never made, or of another kind)", what, p);
        return NULL;
    }
    return o;
}

/* ---- runtime state ------------------------------------------------------------------ */

static cudaError_t g_last;
static int g_device = -1;      /* current device; -1: none set */
static bool g_ctx;             /* primary context made (cudaSetDevice / cudaFree(0)) */
static uint64_t g_clock = 1000000; /* ns */

struct CUevent_st {
    struct sim_obj o;
    bool recorded;
    uint64_t t;
};
struct CUstream_st {
    struct sim_obj o;
};
struct CUctx_st {
    int dummy;
};
static struct CUctx_st g_ctx_obj;

void sim_set_last_error(cudaError_t e) {
    if (e != cudaSuccess)
        g_last = e;
}

static cudaError_t rt_err(cudaError_t e) {
    sim_set_last_error(e);
    return e;
}

static bool no_device(void) {
    return env_on("OCSIM_NO_DEVICE");
}

int sim_stream(const char *call, cudaStream_t s) {
    const struct sim_obj *o = sim_obj_live(s);
    if (!s || (o && o->kind == SIM_OBJ_STREAM))
        return 0;
    return sim_fail(call, "stream %p was not created or was destroyed", (void *)s);
}

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count)
        return rt_err(cudaErrorInvalidValue);
    *count = 0;
    if (no_device())
        return rt_err(cudaErrorInsufficientDriver);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    if (no_device())
        return rt_err(cudaErrorInsufficientDriver);
    if (device != 0)
        return rt_err(cudaErrorInvalidDevice);
    g_device = device;
    g_ctx = true; /* CUDA 12+: cudaSetDevice initializes the primary context */
    return cudaSuccess;
}

#define SIM_L2 (50u << 20)

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    if (!prop || device != 0)
        return rt_err(device != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "ocsim H100 (simulated, no GPU)");
    prop->major = 9;
    prop->minor = 0;
    prop->multiProcessorCount = 132;
    prop->totalGlobalMem = (size_t)80 << 30;
    prop->l2CacheSize = (int)SIM_L2;
    prop->warpSize = 32;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    if (!value || device != 0)
        return rt_err(cudaErrorInvalidValue);
    switch (attr) {
    case cudaDevAttrClockRate: *value = 1980000; break;          /* kHz */
    case cudaDevAttrMemoryClockRate: *value = 2619000; break;    /* kHz */
    case cudaDevAttrGlobalMemoryBusWidth: *value = 5120; break;  /* bits */
    case cudaDevAttrMultiProcessorCount: *value = 132; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    default: *value = 0; break;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    if (!pciBusId || len <= 0 || device != 0)
        return rt_err(cudaErrorInvalidValue);
    snprintf(pciBusId, (size_t)len, "0000:0e:00.0");
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v) {
    if (!v)
        return rt_err(cudaErrorInvalidValue);
    *v = no_device() ? 0 : 13000;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) {
    if (!v)
        return rt_err(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

static cudaError_t need_ctx(void) {
    if (no_device())
        return rt_err(cudaErrorInsufficientDriver);
    if (g_device < 0) { /* the runtime would pick device 0 implicitly */
        g_device = 0;
        g_ctx = true;
    }
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t size) {
    cudaError_t e = need_ctx();
    if (e != cudaSuccess)
        return e;
    if (!p)
        return rt_err(cudaErrorInvalidValue);
    *p = NULL;
    const char *lim = getenv("OCSIM_MALLOC_LIMIT");
    if (lim && *lim && size > strtoull(lim, NULL, 10))
        return rt_err(cudaErrorMemoryAllocation);
    if (size == 0) /* the runtime returns NULL and success for 0 bytes */
        return cudaSuccess;
    size_t rounded = (size + 255) & ~(size_t)255;
    void *m = aligned_alloc(256, rounded);
    if (!m)
        return rt_err(cudaErrorMemoryAllocation);
    if (g_nal == g_cal) {
        size_t c = g_cal ? 2 * g_cal : 64;
        struct sim_alloc *t = realloc(g_al, c * sizeof *t);
        if (!t) {
            free(m);
            return rt_err(cudaErrorMemoryAllocation);
        }
        g_al = t;
        g_cal = c;
    }
    /* the exact size is recorded: the rounding is not the caller's to use */
    g_al[g_nal++] = (struct sim_alloc){.p = m, .n = size};
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
    cudaError_t e = need_ctx();
    if (e != cudaSuccess)
        return e;
    if (!p)
        return cudaSuccess;
    for (size_t i = 0; i < g_nal; i++) {
        if (g_al[i].p == p) {
            free(p);
            g_al[i] = g_al[--g_nal];
            return cudaSuccess;
        }
    }
    sim_fail("cudaFree", "%p is not the start of a live allocation", p);
    return rt_err(cudaErrorInvalidValue);
}

static cudaError_t sim_memcpy(const char *call, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    (void)call;
    if (count == 0)
        return cudaSuccess;
    bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                   (kind == cudaMemcpyDefault && find_alloc(dst));
    bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                   (kind == cudaMemcpyDefault && find_alloc(src));
    if ((dst_dev && sim_span(call, "dst", dst, count)) || (src_dev && sim_span(call, "src", src, count)))
        return rt_err(cudaErrorInvalidValue);
    memmove(dst, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    cudaError_t e = need_ctx();
    return e != cudaSuccess ? e : sim_memcpy("cudaMemcpy", dst, src, count, kind);
}

/* synchronous here: ocsim's streams run every call when it is made */
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t s) {
    cudaError_t e = need_ctx();
    if (e != cudaSuccess)
        return e;
    if (sim_stream("cudaMemcpyAsync", s))
        return rt_err(cudaErrorInvalidResourceHandle);
    return sim_memcpy("cudaMemcpyAsync", dst, src, count, kind);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t count, cudaStream_t s) {
    cudaError_t e = need_ctx();
    if (e != cudaSuccess)
        return e;
    if (sim_stream("cudaMemsetAsync", s))
        return rt_err(cudaErrorInvalidResourceHandle);
    if (count == 0)
        return cudaSuccess;
    if (sim_span("cudaMemsetAsync", "dst", p, count))
        return rt_err(cudaErrorInvalidValue);
    memset(p, value, count);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
    cudaError_t e = need_ctx();
    if (e != cudaSuccess)
        return e;
    if (!s || (flags & ~(unsigned)cudaStreamNonBlocking))
        return rt_err(cudaErrorInvalidValue);
    struct CUstream_st *st = sim_obj_new(SIM_OBJ_STREAM, sizeof *st);
    if (!st)
        return rt_err(cudaErrorMemoryAllocation);
    *s = st;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!obj_of("cudaStreamDestroy", "stream", s, SIM_OBJ_STREAM))
        return rt_err(cudaErrorInvalidResourceHandle);
    sim_obj_free(s);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    if (sim_stream("cudaStreamSynchronize", s))
        return rt_err(cudaErrorInvalidResourceHandle);
    return need_ctx();
}

cudaError_t cudaDeviceSynchronize(void) {
    return need_ctx();
}

cudaError_t cudaGetLastError(void) {
    cudaError_t e = g_last;
    g_last = cudaSuccess;
    return e;
}

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    default: return "unknown error";
    }
}

cudaError_t cudaEventCreate(cudaEvent_t *ev) {
    cudaError_t e = need_ctx();
    if (e != cudaSuccess)
        return e;
    if (!ev)
        return rt_err(cudaErrorInvalidValue);
    struct CUevent_st *x = sim_obj_new(SIM_OBJ_EVENT, sizeof *x);
    if (!x)
        return rt_err(cudaErrorMemoryAllocation);
    *ev = x;
    return cudaSuccess;
}

static bool event_ok(const char *call, cudaEvent_t ev) {
    return obj_of(call, "event", ev, SIM_OBJ_EVENT) != NULL;
}

cudaError_t cudaEventDestroy(cudaEvent_t ev) {
    if (!event_ok("cudaEventDestroy", ev))
        return rt_err(cudaErrorInvalidResourceHandle);
    sim_obj_free(ev);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t s) {
    if (!event_ok("cudaEventRecord", ev) || sim_stream("cudaEventRecord", s))
        return rt_err(cudaErrorInvalidResourceHandle);
    ev->recorded = true;
    ev->t = g_clock;
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    if (!ms || !event_ok("cudaEventElapsedTime", a) || !event_ok("cudaEventElapsedTime", b))
        return rt_err(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded) {
        sim_fail("cudaEventElapsedTime", "an event was never recorded");
        return rt_err(cudaErrorInvalidResourceHandle);
    }
    *ms = (float)((double)(b->t - a->t) / 1e6);
    return cudaSuccess;
}

/* the driver entry points the profiler fetches through the runtime */
static CUresult CUDAAPI sim_cuCtxGetCurrent(CUcontext *c) {
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    *c = g_ctx ? (CUcontext)&g_ctx_obj : NULL;
    return CUDA_SUCCESS;
}

static CUresult CUDAAPI sim_cuCtxGetDevice(CUdevice *d) {
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    if (!g_ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = g_device;
    return CUDA_SUCCESS;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                             unsigned long long flags, enum cudaDriverEntryPointQueryResult *st) {
    (void)flags;
    if (!symbol || !funcPtr)
        return rt_err(cudaErrorInvalidValue);
    if (no_device())
        return rt_err(cudaErrorInsufficientDriver);
    *funcPtr = NULL;
    CUresult (*fn)(void *) = NULL;
    if (strcmp(symbol, "cuCtxGetCurrent") == 0)
        fn = (CUresult(*)(void *))sim_cuCtxGetCurrent;
    else if (strcmp(symbol, "cuCtxGetDevice") == 0)
        fn = (CUresult(*)(void *))sim_cuCtxGetDevice;
    if (fn && cudaVersion >= 2000)
        memcpy(funcPtr, &fn, sizeof fn);
    if (st)
        *st = fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
}

/* ---- CUPTI: results, version ------------------------------------------------------ */

CUptiResult cuptiGetResultString(CUptiResult r, const char **s) {
    if (!s)
        return CUPTI_ERROR_INVALID_PARAMETER;
    switch (r) {
    case CUPTI_SUCCESS: *s = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *s = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_INVALID_OPERATION: *s = "CUPTI_ERROR_INVALID_OPERATION"; break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: *s = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"; break;
    case CUPTI_ERROR_INVALID_METRIC_NAME: *s = "CUPTI_ERROR_INVALID_METRIC_NAME"; break;
    case CUPTI_ERROR_QUEUE_EMPTY: *s = "CUPTI_ERROR_QUEUE_EMPTY"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *s = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_NOT_INITIALIZED: *s = "CUPTI_ERROR_NOT_INITIALIZED"; break;
    case CUPTI_ERROR_UNKNOWN: *s = "CUPTI_ERROR_UNKNOWN"; break;
    default: *s = "CUPTI_ERROR_(other)"; break;
    }
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetVersion(uint32_t *v) {
    if (!v)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *v = CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

/* ---- CUPTI Activity ------------------------------------------------------------------ */

static struct {
    CUpti_BuffersCallbackRequestFunc req;
    CUpti_BuffersCallbackCompleteFunc done;
    bool kernel, ext, driver, runtime;
    uint64_t ext_stack[64];
    int ext_n;
    uint32_t corr;
    /* records not yet handed over, in this file's own layout (one union each) */
    struct rec {
        int kind; /* 0 api, 1 ext, 2 kernel */
        uint32_t corr;
        uint64_t ext, start, end;
        const char *name; /* interned until the process ends */
    } *r;
    size_t nr, cr;
} A;

static bool tracing(void) {
    return A.kernel || A.ext || A.driver || A.runtime;
}

static bool g_rp_enabled; /* a range profiler object exists */

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done) {
    if (!req || !done)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (no_device())
        return CUPTI_ERROR_UNKNOWN;
    A.req = req;
    A.done = done;
    return CUPTI_SUCCESS;
}

static bool *kind_flag(CUpti_ActivityKind k) {
    switch (k) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: return &A.kernel;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return &A.ext;
    case CUPTI_ACTIVITY_KIND_DRIVER: return &A.driver;
    case CUPTI_ACTIVITY_KIND_RUNTIME: return &A.runtime;
    default: return NULL;
    }
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) {
    if (env_on("OCSIM_NO_TRACE") || no_device())
        return CUPTI_ERROR_UNKNOWN;
    bool *f = kind_flag(k);
    if (!f)
        return CUPTI_ERROR_NOT_COMPATIBLE;
    if (!A.req) {
        sim_fail("cuptiActivityEnable", "no buffer callbacks registered (cuptiActivityRegisterCallbacks first)");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    if (g_rp_enabled)
        sim_fail("cuptiActivityEnable", "tracing enabled while the range profiler is enabled (they conflict)");
    *f = true;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) {
    bool *f = kind_flag(k);
    if (!f)
        return CUPTI_ERROR_NOT_COMPATIBLE;
    *f = false;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
    if (kind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        return CUPTI_ERROR_INVALID_PARAMETER; /* the only kind this simulation models */
    if (A.ext_n == (int)(sizeof A.ext_stack / sizeof A.ext_stack[0]))
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    A.ext_stack[A.ext_n++] = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t *last) {
    if (kind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (A.ext_n == 0)
        return CUPTI_ERROR_QUEUE_EMPTY;
    uint64_t v = A.ext_stack[--A.ext_n];
    if (last)
        *last = v;
    return CUPTI_SUCCESS;
}

static void add_rec(struct rec r) {
    if (A.nr == A.cr) {
        size_t c = A.cr ? 2 * A.cr : 1024;
        struct rec *t = realloc(A.r, c * sizeof *t);
        if (!t) {
            sim_fail("ocsim", "out of host memory for activity records");
            return;
        }
        A.r = t;
        A.cr = c;
    }
    A.r[A.nr++] = r;
}

static size_t rec_size(int kind) {
    return kind == 0 ? sizeof(CUpti_ActivityAPI)
           : kind == 1 ? sizeof(CUpti_ActivityExternalCorrelation)
                       : sizeof(CUpti_ActivityKernel10);
}

static size_t align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    size_t i = 0;
    while (i < A.nr) {
        if (!A.req || !A.done)
            return CUPTI_ERROR_INVALID_OPERATION;
        uint8_t *buf = NULL;
        size_t size = 0, maxrec = 0;
        A.req(&buf, &size, &maxrec);
        if (!buf || size < 1024) {
            /* CUPTI drops what it cannot store */
            A.nr = 0;
            return CUPTI_SUCCESS;
        }
        if (((uintptr_t)buf & 7) != 0)
            sim_fail("cuptiActivityFlushAll", "activity buffer %p is not 8-byte aligned", (void *)buf);
        size_t used = 0, nrec = 0;
        while (i < A.nr && used + align8(rec_size(A.r[i].kind)) <= size && (maxrec == 0 || nrec < maxrec)) {
            const struct rec *r = &A.r[i++];
            uint8_t *at = buf + used;
            if (r->kind == 0) {
                CUpti_ActivityAPI a;
                memset(&a, 0, sizeof a);
                a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
                a.cbid = 1;
                a.start = r->start;
                a.end = r->start;
                a.correlationId = r->corr;
                memcpy(at, &a, sizeof a);
            } else if (r->kind == 1) {
                CUpti_ActivityExternalCorrelation x;
                memset(&x, 0, sizeof x);
                x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
                x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
                x.externalId = r->ext;
                x.correlationId = r->corr;
                memcpy(at, &x, sizeof x);
            } else {
                /* OCSIM_ZERO_TS=N: every Nth kernel record without timestamps (0/0), as
                   CUPTI gives them when it cannot time a kernel (cupti_activity.h) */
                static long kernel_records;
                long zero_every = env_long("OCSIM_ZERO_TS");
                bool untimed = zero_every > 0 && ++kernel_records % zero_every == 0;
                CUpti_ActivityKernel10 k;
                memset(&k, 0, sizeof k);
                k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
                k.start = untimed ? 0 : r->start;
                k.end = untimed ? 0 : r->end;
                k.correlationId = r->corr;
                k.name = r->name;
                k.deviceId = 0;
                k.streamId = 13;
                memcpy(at, &k, sizeof k);
            }
            used += align8(rec_size(r->kind));
            nrec++;
        }
        A.done((CUcontext)&g_ctx_obj, 0, buf, size, used);
    }
    A.nr = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record) {
    if (!buffer || !record)
        return CUPTI_ERROR_INVALID_PARAMETER;
    size_t off;
    if (!*record) {
        off = 0;
    } else {
        uint8_t *cur = (uint8_t *)*record;
        if (cur < buffer || cur >= buffer + valid)
            return CUPTI_ERROR_INVALID_PARAMETER;
        CUpti_ActivityKind k = (*record)->kind;
        int kind = k == CUPTI_ACTIVITY_KIND_DRIVER ? 0 : k == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION ? 1 : 2;
        off = (size_t)(cur - buffer) + align8(rec_size(kind));
    }
    if (off >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)(void *)(buffer + off);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *dropped) {
    (void)ctx;
    (void)stream;
    if (!dropped)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *dropped = 0;
    return CUPTI_SUCCESS;
}

/* interned kernel names: records keep pointers until the process ends */
static const char *intern(const char *s) {
    static char **names;
    static size_t n, c;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return names[i];
    if (n == c) {
        size_t nc = c ? 2 * c : 64;
        char **t = realloc(names, nc * sizeof *t);
        if (!t)
            return "(out of memory)";
        names = t;
        c = nc;
    }
    char *d = strdup(s);
    if (!d)
        return "(out of memory)";
    names[n++] = d;
    return d;
}

/* ---- CUPTI profiler ------------------------------------------------------------------ */

#define SIM_MAX_METRICS 32
#define SIM_NAME 128
#define SIM_RANGE_NAME 256

enum { CLS_HW, CLS_SASS, CLS_TENSOR_FP16 };

/* which work a metric counts; -1: not a metric of this simulation */
enum { M_FADD, M_FMUL, M_FFMA, M_HADD, M_HMUL, M_HFMA, M_DADD, M_DMUL, M_DFMA, M_TENSOR, M_DREAD, M_DWRITE,
       M_TIME, M_SMHZ, M_DRAMHZ };

static int metric_of(const char *name, int *cls) {
    static const struct {
        const char *name;
        int m, cls;
    } t[] = {
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", M_FADD, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", M_FMUL, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", M_FFMA, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", M_HADD, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", M_HMUL, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", M_HFMA, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", M_DADD, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", M_DMUL, CLS_SASS},
        {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", M_DFMA, CLS_SASS},
        {"sm__ops_path_tensor_src_tf32_dst_fp32.sum", M_TENSOR, CLS_HW},
        {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", M_TENSOR, CLS_HW},
        {"sm__ops_path_tensor_src_fp16.sum", M_TENSOR, CLS_TENSOR_FP16},
        {"dram__bytes_read.sum", M_DREAD, CLS_HW},
        {"dram__bytes_write.sum", M_DWRITE, CLS_HW},
        {"gpu__time_duration.sum", M_TIME, CLS_HW},
        {"sm__cycles_elapsed.avg.per_second", M_SMHZ, CLS_HW},
        {"dram__cycles_elapsed.avg.per_second", M_DRAMHZ, CLS_HW},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].name, name) == 0) {
            if (cls)
                *cls = t[i].cls;
            return t[i].m;
        }
    return -1;
}

static bool size_ok(const char *call, size_t got, size_t want) {
    if (got < want) {
        sim_fail(call, "structSize %zu, want %zu (set it to the _STRUCT_SIZE macro)", got, want);
        return false;
    }
    return true;
}
#define CHECK_SIZE(call, prm, T)                                                                   \
    do {                                                                                           \
        if (!(prm) || !size_ok(call, (prm)->structSize, T##_STRUCT_SIZE))                          \
            return CUPTI_ERROR_INVALID_PARAMETER;                                                  \
    } while (0)

static int g_prof_init;  /* cuptiProfilerInitialize count */
static bool g_avail_probed;

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p) {
    CHECK_SIZE("cuptiProfilerInitialize", p, CUpti_Profiler_Initialize_Params);
    if (no_device())
        return CUPTI_ERROR_UNKNOWN;
    g_prof_init++;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p) {
    CHECK_SIZE("cuptiProfilerDeInitialize", p, CUpti_Profiler_DeInitialize_Params);
    if (g_prof_init <= 0) {
        sim_fail("cuptiProfilerDeInitialize", "without cuptiProfilerInitialize");
        return CUPTI_ERROR_NOT_INITIALIZED;
    }
    g_prof_init--;
    return CUPTI_SUCCESS;
}

static bool prof_ready(const char *call) {
    if (g_prof_init <= 0) {
        sim_fail(call, "the profiler is not initialized (cuptiProfilerInitialize first)");
        return false;
    }
    return true;
}

CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p) {
    CHECK_SIZE("cuptiProfilerDeviceSupported", p, CUpti_Profiler_DeviceSupported_Params);
    if (!prof_ready("cuptiProfilerDeviceSupported"))
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (p->cuDevice != 0)
        return CUPTI_ERROR_INVALID_DEVICE;
    p->isSupported = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    p->architecture = p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl =
        CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p) {
    CHECK_SIZE("cuptiDeviceGetChipName", p, CUpti_Device_GetChipName_Params);
    if (p->deviceIndex != 0)
        return CUPTI_ERROR_INVALID_DEVICE;
    p->pChipName = "GH100";
    return CUPTI_SUCCESS;
}

#define AVAIL_SIZE 64

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p) {
    CHECK_SIZE("cuptiProfilerGetCounterAvailability", p, CUpti_Profiler_GetCounterAvailability_Params);
    if (!prof_ready("cuptiProfilerGetCounterAvailability"))
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!g_ctx || p->ctx != (CUcontext)&g_ctx_obj) {
        sim_fail("cuptiProfilerGetCounterAvailability", "ctx is not the current context");
        return CUPTI_ERROR_INVALID_CONTEXT;
    }
    /* where missing privileges show up (research note 2.6); OCSIM_NO_PROFILER=start
       moves them to cuptiRangeProfilerStart, where a third-party report saw them */
    if (env_on("OCSIM_NO_PROFILER") && strcmp(getenv("OCSIM_NO_PROFILER"), "start") != 0)
        return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    if (!p->pCounterAvailabilityImage) {
        p->counterAvailabilityImageSize = AVAIL_SIZE;
        return CUPTI_SUCCESS;
    }
    if (p->counterAvailabilityImageSize < AVAIL_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    memset(p->pCounterAvailabilityImage, 0, AVAIL_SIZE);
    memcpy(p->pCounterAvailabilityImage, "OCSIMAVL", 8);
    g_avail_probed = true;
    return CUPTI_SUCCESS;
}

/* host objects */
struct CUpti_Profiler_Host_Object {
    struct sim_obj o;
    char chip[32];
    int n;
    char names[SIM_MAX_METRICS][SIM_NAME];
};
static struct CUpti_Profiler_Host_Object *host_of(const char *call, CUpti_Profiler_Host_Object *h) {
    return obj_of(call, "host object", h, SIM_OBJ_PROFILER_HOST);
}

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p) {
    CHECK_SIZE("cuptiProfilerHostInitialize", p, CUpti_Profiler_Host_Initialize_Params);
    if (p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || !p->pChipName)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (strcmp(p->pChipName, "GH100") != 0)
        return CUPTI_ERROR_NOT_SUPPORTED;
    if (p->pCounterAvailabilityImage && memcmp(p->pCounterAvailabilityImage, "OCSIMAVL", 8) != 0) {
        sim_fail("cuptiProfilerHostInitialize", "the counter availability image is not one CUPTI filled");
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    struct CUpti_Profiler_Host_Object *h = sim_obj_new(SIM_OBJ_PROFILER_HOST, sizeof *h);
    if (!h)
        return CUPTI_ERROR_OUT_OF_MEMORY;
    snprintf(h->chip, sizeof h->chip, "%s", p->pChipName);
    p->pHostObject = h;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p) {
    CHECK_SIZE("cuptiProfilerHostDeinitialize", p, CUpti_Profiler_Host_Deinitialize_Params);
    struct CUpti_Profiler_Host_Object *h = host_of("cuptiProfilerHostDeinitialize", p->pHostObject);
    if (!h)
        return CUPTI_ERROR_INVALID_PARAMETER;
    sim_obj_free(h);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params *p) {
    CHECK_SIZE("cuptiProfilerHostGetMetricProperties", p, CUpti_Profiler_Host_GetMetricProperties_Params);
    if (!host_of("cuptiProfilerHostGetMetricProperties", p->pHostObject) || !p->pMetricName)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (metric_of(p->pMetricName, NULL) < 0)
        return CUPTI_ERROR_INVALID_METRIC_NAME;
    p->pDescription = "ocsim metric";
    p->pHwUnit = "ocsim";
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p) {
    CHECK_SIZE("cuptiProfilerHostConfigAddMetrics", p, CUpti_Profiler_Host_ConfigAddMetrics_Params);
    struct CUpti_Profiler_Host_Object *h = host_of("cuptiProfilerHostConfigAddMetrics", p->pHostObject);
    if (!h || !p->ppMetricNames || p->numMetrics == 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (size_t i = 0; i < p->numMetrics; i++) {
        if (!p->ppMetricNames[i] || metric_of(p->ppMetricNames[i], NULL) < 0)
            return CUPTI_ERROR_INVALID_METRIC_NAME;
        if (h->n == SIM_MAX_METRICS)
            return CUPTI_ERROR_MAX_LIMIT_REACHED;
        snprintf(h->names[h->n++], SIM_NAME, "%s", p->ppMetricNames[i]);
    }
    return CUPTI_SUCCESS;
}

/* config image: "OCSIMCFG", uint32 n, then n names of SIM_NAME bytes */
static size_t config_size(int n) {
    return 12 + (size_t)n * SIM_NAME;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p) {
    CHECK_SIZE("cuptiProfilerHostGetConfigImageSize", p, CUpti_Profiler_Host_GetConfigImageSize_Params);
    struct CUpti_Profiler_Host_Object *h = host_of("cuptiProfilerHostGetConfigImageSize", p->pHostObject);
    if (!h)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->configImageSize = config_size(h->n);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p) {
    CHECK_SIZE("cuptiProfilerHostGetConfigImage", p, CUpti_Profiler_Host_GetConfigImage_Params);
    struct CUpti_Profiler_Host_Object *h = host_of("cuptiProfilerHostGetConfigImage", p->pHostObject);
    if (!h || !p->pConfigImage || p->configImageSize < config_size(h->n))
        return CUPTI_ERROR_INVALID_PARAMETER;
    memcpy(p->pConfigImage, "OCSIMCFG", 8);
    uint32_t n = (uint32_t)h->n;
    memcpy(p->pConfigImage + 8, &n, 4);
    memcpy(p->pConfigImage + 12, h->names, (size_t)h->n * SIM_NAME);
    return CUPTI_SUCCESS;
}

/* the metrics of a config image, and the pass each is collected in */
struct sim_config {
    int n;
    const char *names[SIM_MAX_METRICS];
    int m[SIM_MAX_METRICS];
    int pass[SIM_MAX_METRICS];
    int passes;
};

static bool parse_config(const char *call, const uint8_t *img, size_t size, struct sim_config *c) {
    uint32_t n = 0;
    if (!img || size < 12 || memcmp(img, "OCSIMCFG", 8) != 0) {
        sim_fail(call, "not a config image from cuptiProfilerHostGetConfigImage");
        return false;
    }
    memcpy(&n, img + 8, 4);
    if (n == 0 || n > SIM_MAX_METRICS || size < config_size((int)n)) {
        sim_fail(call, "config image truncated");
        return false;
    }
    memset(c, 0, sizeof *c);
    c->n = (int)n;
    bool used[3] = {false, false, false};
    int cls[SIM_MAX_METRICS];
    for (int i = 0; i < c->n; i++) {
        c->names[i] = (const char *)img + 12 + (size_t)i * SIM_NAME;
        cls[i] = CLS_HW;
        c->m[i] = metric_of(c->names[i], &cls[i]);
        if (c->m[i] < 0) {
            sim_fail(call, "config image names unknown metric %s", c->names[i]);
            return false;
        }
        used[cls[i]] = true;
    }
    int pass_of_cls[3], k = 0;
    for (int j = 0; j < 3; j++)
        pass_of_cls[j] = used[j] ? k++ : -1;
    for (int i = 0; i < c->n; i++)
        c->pass[i] = pass_of_cls[cls[i]];
    c->passes = k;
    return true;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p) {
    CHECK_SIZE("cuptiProfilerHostGetNumOfPasses", p, CUpti_Profiler_Host_GetNumOfPasses_Params);
    struct sim_config c;
    if (!parse_config("cuptiProfilerHostGetNumOfPasses", p->pConfigImage, p->configImageSize, &c))
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->numOfPasses = (size_t)c.passes;
    return CUPTI_SUCCESS;
}

/* counter-data image: header, then max_ranges slots of {name, values[n]} */
struct cd_header {
    char magic[8];
    uint32_t max_ranges, n_metrics, n_ranges, initialized;
    char names[SIM_MAX_METRICS][SIM_NAME];
};
struct cd_slot {
    char name[SIM_RANGE_NAME];
    size_t name_len;          /* strlen of the pushed name (not cut)          */
    double v[SIM_MAX_METRICS];
};

static size_t cd_size(size_t ranges) {
    return sizeof(struct cd_header) + ranges * sizeof(struct cd_slot);
}

static struct cd_header *cd_of(const char *call, const void *img, size_t size) {
    struct cd_header *h = (struct cd_header *)(uintptr_t)img;
    if (!img || size < sizeof *h || memcmp(h->magic, "OCSIMCD", 8) != 0 || !h->initialized ||
        size < cd_size(h->max_ranges)) {
        sim_fail(call, "not an initialized counter-data image");
        return NULL;
    }
    return h;
}

static struct cd_slot *cd_slot(struct cd_header *h, uint32_t i) {
    return (struct cd_slot *)(void *)((uint8_t *)h + sizeof *h) + i;
}

struct CUpti_RangeProfiler_Object {
    /* from GetCounterDataSize */
    size_t cd_bytes;
    uint32_t max_ranges, n_metrics;
    char names[SIM_MAX_METRICS][SIM_NAME];
    /* from SetConfig */
    bool configured;
    struct sim_config cfg;
    uint8_t *cfg_copy;
    struct cd_header *cd;
    size_t max_per_pass;
    /* passes */
    bool started, all_submitted;
    int pass;
    uint32_t cursor, pass0_ranges, dropped;
    int open; /* slot of the open range, -1 none */
};
static struct CUpti_RangeProfiler_Object *g_rp;

static struct CUpti_RangeProfiler_Object *rp_of(const char *call, CUpti_RangeProfiler_Object *o) {
    if (!o || o != g_rp) {
        sim_fail(call, "not the enabled range profiler object");
        return NULL;
    }
    return o;
}

CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerEnable", p, CUpti_RangeProfiler_Enable_Params);
    if (!prof_ready("cuptiRangeProfilerEnable"))
        return CUPTI_ERROR_NOT_INITIALIZED;
    if (!g_ctx || p->ctx != (CUcontext)&g_ctx_obj) {
        sim_fail("cuptiRangeProfilerEnable", "ctx is not the current context");
        return CUPTI_ERROR_INVALID_CONTEXT;
    }
    if (g_rp) {
        sim_fail("cuptiRangeProfilerEnable", "already enabled on this context");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    if (tracing())
        sim_fail("cuptiRangeProfilerEnable", "enabled while Activity tracing is on (they conflict)");
    struct CUpti_RangeProfiler_Object *o = calloc(1, sizeof *o);
    if (!o)
        return CUPTI_ERROR_OUT_OF_MEMORY;
    o->open = -1;
    g_rp = o;
    g_rp_enabled = true;
    p->pRangeProfilerObject = o;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerDisable", p, CUpti_RangeProfiler_Disable_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of("cuptiRangeProfilerDisable", p->pRangeProfilerObject);
    if (!o)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (o->started)
        sim_fail("cuptiRangeProfilerDisable", "disabled between Start and Stop");
    free(o->cfg_copy);
    free(o);
    g_rp = NULL;
    g_rp_enabled = false;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerGetCounterDataSize", p, CUpti_RangeProfiler_GetCounterDataSize_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of("cuptiRangeProfilerGetCounterDataSize", p->pRangeProfilerObject);
    if (!o || !p->pMetricNames || p->numMetrics == 0 || p->numMetrics > SIM_MAX_METRICS || p->maxNumOfRanges == 0)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (p->maxNumRangeTreeNodes < p->maxNumOfRanges) {
        sim_fail("cuptiRangeProfilerGetCounterDataSize", "maxNumRangeTreeNodes %u < maxNumOfRanges %zu",
                 p->maxNumRangeTreeNodes, p->maxNumOfRanges);
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    for (size_t i = 0; i < p->numMetrics; i++) {
        if (!p->pMetricNames[i] || metric_of(p->pMetricNames[i], NULL) < 0)
            return CUPTI_ERROR_INVALID_METRIC_NAME;
        snprintf(o->names[i], SIM_NAME, "%s", p->pMetricNames[i]);
    }
    o->n_metrics = (uint32_t)p->numMetrics;
    o->max_ranges = (uint32_t)p->maxNumOfRanges;
    o->cd_bytes = cd_size(p->maxNumOfRanges);
    p->counterDataSize = o->cd_bytes;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerCounterDataImageInitialize", p,
               CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    struct CUpti_RangeProfiler_Object *o =
        rp_of("cuptiRangeProfilerCounterDataImageInitialize", p->pRangeProfilerObject);
    if (!o || !p->pCounterData)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!o->cd_bytes || p->counterDataSize != o->cd_bytes) {
        sim_fail("cuptiRangeProfilerCounterDataImageInitialize", "counterDataSize %zu, GetCounterDataSize gave %zu",
                 p->counterDataSize, o->cd_bytes);
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    if (o->started || (o->configured && o->pass > 0)) {
        /* the headers document no re-initialisation while passes are pending:
           ocsim refuses it (Disable and Enable again instead) */
        sim_fail("cuptiRangeProfilerCounterDataImageInitialize", "%s",
                 o->started ? "between Start and Stop" : "while the session has passes left");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    memset(p->pCounterData, 0, p->counterDataSize);
    struct cd_header *h = (struct cd_header *)(void *)p->pCounterData;
    memcpy(h->magic, "OCSIMCD", 8);
    h->max_ranges = o->max_ranges;
    h->n_metrics = o->n_metrics;
    memcpy(h->names, o->names, sizeof h->names);
    h->initialized = 1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p) {
    static const char *call = "cuptiRangeProfilerSetConfig";
    CHECK_SIZE(call, p, CUpti_RangeProfiler_SetConfig_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of(call, p->pRangeProfilerObject);
    if (!o)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (o->started || (o->configured && o->pass > 0)) {
        sim_fail(call, "%s", o->started ? "between Start and Stop" : "while the session has passes left");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    struct sim_config c;
    if (!parse_config(call, p->pConfig, p->configSize, &c))
        return CUPTI_ERROR_INVALID_PARAMETER;
    struct cd_header *h = cd_of(call, p->pCounterDataImage, p->counterDataImageSize);
    if (!h)
        return CUPTI_ERROR_INVALID_PARAMETER;
    /* the counter data was sized for the same metrics */
    if ((int)h->n_metrics != c.n) {
        sim_fail(call, "the counter data has %u metrics, the config %d", h->n_metrics, c.n);
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    for (int i = 0; i < c.n; i++)
        if (strcmp(h->names[i], c.names[i]) != 0) {
            sim_fail(call, "metric %d is %s in the counter data, %s in the config", i, h->names[i], c.names[i]);
            return CUPTI_ERROR_INVALID_PARAMETER;
        }
    if (p->range == CUPTI_UserRange && p->replayMode == CUPTI_KernelReplay) {
        /* research note 2.3: user range + kernel replay fails */
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    if (p->range != CUPTI_UserRange || p->replayMode != CUPTI_UserReplay) {
        sim_fail(call, "ocsim models user range with user replay only");
        return CUPTI_ERROR_NOT_SUPPORTED;
    }
    if (p->numNestingLevels < 1 || p->minNestingLevel < 1 || p->targetNestingLevel < p->minNestingLevel ||
        p->maxRangesPerPass == 0 || p->maxRangesPerPass > h->max_ranges) {
        sim_fail(call, "nesting %d/%d/%d, maxRangesPerPass %zu for %u ranges", (int)p->numNestingLevels,
                 (int)p->minNestingLevel, (int)p->targetNestingLevel, p->maxRangesPerPass, h->max_ranges);
        return CUPTI_ERROR_INVALID_PARAMETER;
    }
    /* CUPTI keeps its own copy of the configuration */
    uint8_t *copy = malloc(p->configSize);
    if (!copy)
        return CUPTI_ERROR_OUT_OF_MEMORY;
    memcpy(copy, p->pConfig, p->configSize);
    free(o->cfg_copy);
    o->cfg_copy = copy;
    parse_config(call, copy, p->configSize, &o->cfg);
    o->cd = h;
    o->max_per_pass = p->maxRangesPerPass;
    o->configured = true;
    o->pass = 0;
    o->all_submitted = false;
    o->pass0_ranges = 0;
    o->dropped = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerStart", p, CUpti_RangeProfiler_Start_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of("cuptiRangeProfilerStart", p->pRangeProfilerObject);
    if (!o)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!o->configured || o->started || o->all_submitted) {
        sim_fail("cuptiRangeProfilerStart", "%s", !o->configured ? "before SetConfig"
                                                  : o->started    ? "twice without Stop"
                                                                  : "after the last pass (Decode, then set up again)");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    /* OCSIM_NO_PROFILER=start: privileges refused here; OCSIM_FAIL_START=N: the Nth
       Start of the process fails with an error of its own (a node's, not the session's) */
    static long starts;
    long fail_at = env_long("OCSIM_FAIL_START");
    if (getenv("OCSIM_NO_PROFILER") && strcmp(getenv("OCSIM_NO_PROFILER"), "start") == 0)
        return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
    if (fail_at > 0 && ++starts == fail_at)
        return CUPTI_ERROR_UNKNOWN;
    o->started = true;
    o->cursor = 0;
    o->open = -1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params *p) {
    static const char *call = "cuptiRangeProfilerPushRange";
    CHECK_SIZE(call, p, CUpti_RangeProfiler_PushRange_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of(call, p->pRangeProfilerObject);
    if (!o || !p->pRangeName)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!o->started || o->open >= 0) {
        sim_fail(call, "%s", !o->started ? "outside Start/Stop" : "nested (one nesting level configured)");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    uint32_t slot = o->cursor++;
    if (o->pass == 0) {
        if (slot >= o->cd->max_ranges || slot >= o->max_per_pass) {
            o->dropped++;
            return CUPTI_SUCCESS;
        }
        snprintf(cd_slot(o->cd, slot)->name, SIM_RANGE_NAME, "%s", p->pRangeName);
        cd_slot(o->cd, slot)->name_len = strlen(p->pRangeName);
        o->pass0_ranges = slot + 1;
        o->cd->n_ranges = slot + 1;
    } else if (slot >= o->pass0_ranges || strcmp(cd_slot(o->cd, slot)->name, p->pRangeName) != 0) {
        sim_fail(call, "pass %d range %u is '%s', pass 0 had '%s'", o->pass, slot, p->pRangeName,
                 slot < o->pass0_ranges ? cd_slot(o->cd, slot)->name : "(none)");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    o->open = (int)slot;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerPopRange", p, CUpti_RangeProfiler_PopRange_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of("cuptiRangeProfilerPopRange", p->pRangeProfilerObject);
    if (!o)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!o->started || o->open < 0) {
        sim_fail("cuptiRangeProfilerPopRange", "no open range");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    o->open = -1;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerStop", p, CUpti_RangeProfiler_Stop_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of("cuptiRangeProfilerStop", p->pRangeProfilerObject);
    if (!o)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!o->started || o->open >= 0) {
        sim_fail("cuptiRangeProfilerStop", "%s", !o->started ? "without Start" : "with a range still open");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    if (o->pass > 0 && o->cursor != o->pass0_ranges)
        sim_fail("cuptiRangeProfilerStop", "pass %d pushed %u ranges, pass 0 %u", o->pass, o->cursor, o->pass0_ranges);
    o->started = false;
    o->pass++;
    o->all_submitted = o->pass >= o->cfg.passes;
    p->passIndex = (size_t)o->pass;
    p->targetNestingLevel = 1;
    p->isAllPassSubmitted = o->all_submitted ? 1 : 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerDecodeData", p, CUpti_RangeProfiler_DecodeData_Params);
    struct CUpti_RangeProfiler_Object *o = rp_of("cuptiRangeProfilerDecodeData", p->pRangeProfilerObject);
    if (!o)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (!o->all_submitted || o->started) {
        sim_fail("cuptiRangeProfilerDecodeData", "before the last pass was stopped");
        return CUPTI_ERROR_INVALID_OPERATION;
    }
    /* CUDA 13.0's CUPTI on driver 580.159 crashes here (SIGSEGV at address
       0x4 inside NVPW_CUDA_Profiler_DecodeCounters) when a range's name has
       60 characters or more: seen on an H200 on every such range, never on a
       shorter one (issue 39; docs/REPLAY.md, "A node that crashes"). The
       same here, so that a plugin that hands CUPTI long names fails on ocsim
       too; the length is what the pushes gave, before SIM_RANGE_NAME cut it. */
    for (uint32_t k = 0; k < o->cd->n_ranges; k++)
        if (cd_slot(o->cd, k)->name_len >= 60) {
            volatile int *volatile nvpw = (volatile int *)(uintptr_t)0x4;
            *nvpw = 1;
        }
    p->numOfRangeDropped = o->dropped;
    /* the image is now complete; the next collection initializes it again */
    o->configured = false;
    o->all_submitted = false;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerGetCounterDataInfo", p, CUpti_RangeProfiler_GetCounterDataInfo_Params);
    struct cd_header *h = cd_of("cuptiRangeProfilerGetCounterDataInfo", p->pCounterDataImage, p->counterDataImageSize);
    if (!h)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->numTotalRanges = h->n_ranges;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerCounterDataGetRangeInfo(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params *p) {
    CHECK_SIZE("cuptiRangeProfilerCounterDataGetRangeInfo", p, CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
    struct cd_header *h =
        cd_of("cuptiRangeProfilerCounterDataGetRangeInfo", p->pCounterDataImage, p->counterDataImageSize);
    if (!h || p->rangeIndex >= h->n_ranges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    p->rangeName = cd_slot(h, (uint32_t)p->rangeIndex)->name;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p) {
    static const char *call = "cuptiProfilerHostEvaluateToGpuValues";
    CHECK_SIZE(call, p, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
    if (!host_of(call, p->pHostObject) || !p->ppMetricNames || !p->pMetricValues)
        return CUPTI_ERROR_INVALID_PARAMETER;
    struct cd_header *h = cd_of(call, p->pCounterDataImage, p->counterDataImageSize);
    if (!h || p->rangeIndex >= h->n_ranges)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const struct cd_slot *s = cd_slot(h, (uint32_t)p->rangeIndex);
    for (size_t i = 0; i < p->numMetrics; i++) {
        uint32_t j = 0;
        while (j < h->n_metrics && strcmp(h->names[j], p->ppMetricNames[i]) != 0)
            j++;
        if (j == h->n_metrics)
            return CUPTI_ERROR_INVALID_METRIC_NAME; /* not collected */
        p->pMetricValues[i] = s->v[j];
    }
    return CUPTI_SUCCESS;
}

/* ---- kernels ---------------------------------------------------------------------------- */

static uint64_t duration_ns(const struct sim_work *w) {
    double flops = w->fadd + w->fmul + 2 * w->ffma + w->hadd + w->hmul + 2 * w->hfma + w->dadd + w->dmul +
                   2 * w->dfma + w->tensor;
    /* 2 us launch-bound floor; 2 TB/s; 50 TFLOP/s: only needs to be deterministic */
    return 2000 + (uint64_t)((w->dram_read + w->dram_write) / 2000.0) + (uint64_t)(flops / 50000.0);
}

static double metric_value(int m, const struct sim_work *w, uint64_t dur) {
    switch (m) {
    case M_FADD: return w->fadd;
    case M_FMUL: return w->fmul;
    case M_FFMA: return w->ffma;
    case M_HADD: return w->hadd;
    case M_HMUL: return w->hmul;
    case M_HFMA: return w->hfma;
    case M_DADD: return w->dadd;
    case M_DMUL: return w->dmul;
    case M_DFMA: return w->dfma;
    case M_TENSOR: return w->tensor;
    case M_DREAD: return w->dram_read;
    case M_DWRITE: return w->dram_write;
    case M_TIME: return (double)dur;
    default: return 0;
    }
}

/* OCSIM_FAULT=WHAT:KERNEL[:PHASE]: the first launch of a kernel whose name
   contains KERNEL (in PHASE: "time" outside a profiler range, "count" inside
   one; both when omitted) crashes (WHAT = segv, abort) or hangs (hang), as a
   vendor library that fails inside a call would: for the replay's worker
   isolation (replay/isolated.c). The store through NULL is the crash itself:
   kept from UBSan's null check, which would turn it into an abort. */
#if defined(__GNUC__)
__attribute__((no_sanitize_undefined))
#endif
static void sim_fault(const char *kernel, bool in_range) {
    const char *v = getenv("OCSIM_FAULT");
    if (!v || !*v)
        return;
    char what[16] = "", name[128] = "", phase[16] = "";
    if (sscanf(v, "%15[^:]:%127[^:]:%15s", what, name, phase) < 2 || !strstr(kernel, name))
        return;
    if ((strcmp(phase, "time") == 0 && in_range) || (strcmp(phase, "count") == 0 && !in_range))
        return;
    if (strcmp(what, "hang") == 0)
        for (;;)
            pause();
    if (strcmp(what, "abort") == 0)
        abort();
    volatile int *volatile nowhere = NULL;
    *nowhere = 1;
}

void sim_launch(const char *kernel, cudaStream_t s, const struct sim_work *w) {
    static const struct sim_work none;
    if (!w)
        w = &none;
    if (sim_stream(kernel, s))
        return;
    sim_fault(kernel, g_rp && g_rp->started && g_rp->open >= 0);
    uint64_t dur = duration_ns(w);
    uint64_t start = g_clock;
    g_clock += dur;
    FILE *f = sim_log();
    uint64_t ext = A.ext_n ? A.ext_stack[A.ext_n - 1] : 0;
    if (tracing()) {
        uint32_t corr = ++A.corr;
        const char *name = intern(kernel);
        if (A.driver || A.runtime) {
            add_rec((struct rec){.kind = 0, .corr = corr, .start = start});
            /* one external record per API call made under a pushed id */
            if (A.ext && A.ext_n)
                add_rec((struct rec){.kind = 1, .corr = corr, .ext = ext});
        }
        if (A.kernel)
            add_rec((struct rec){.kind = 2, .corr = corr, .start = start, .end = start + dur, .name = name});
    }
    struct CUpti_RangeProfiler_Object *o = g_rp;
    bool in_range = o && o->started && o->open >= 0;
    if (in_range) {
        struct cd_slot *slot = cd_slot(o->cd, (uint32_t)o->open);
        for (int j = 0; j < o->cfg.n; j++) {
            if (o->cfg.pass[j] != o->pass)
                continue;
            if (o->cfg.m[j] == M_SMHZ)
                slot->v[j] = 1.755e9;
            else if (o->cfg.m[j] == M_DRAMHZ)
                slot->v[j] = 2.619e9;
            else
                slot->v[j] += metric_value(o->cfg.m[j], w, dur);
        }
    }
    if (f) {
        if (in_range)
            fprintf(f, "P\t%d\t%s\t%s", o->pass, cd_slot(o->cd, (uint32_t)o->open)->name, kernel);
        else
            fprintf(f, "T\t%llu\t%s", (unsigned long long)(tracing() ? ext : 0), kernel);
        fprintf(f, "\t%llu\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\n",
                (unsigned long long)dur, w->fadd, w->fmul, w->ffma, w->hadd, w->hmul, w->hfma, w->dadd, w->dmul,
                w->dfma, w->tensor, w->dram_read, w->dram_write);
    }
}
