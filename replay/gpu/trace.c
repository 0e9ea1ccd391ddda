/* onnxcost GPU replay plugin: CUPTI Activity tracing of kernels, joined to
 * ONNX nodes through external correlation ids.  See trace.h. */
#include "trace.h"

#include <pthread.h>
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
#include <cupti_activity.h>
#pragma GCC diagnostic pop

#define OC_TRACE_BUF_SIZE ((size_t)8 << 20)
#define OC_TRACE_BUF_ALIGN 8 /* ACTIVITY_RECORD_ALIGNMENT */

struct krec {
    uint32_t corr;
    uint64_t start, end;
    const char *name; /* interned */
};

struct xrec {
    uint32_t corr;
    uint32_t age; /* takes survived without a matching kernel */
    uint64_t ext;
};

/* Everything below is guarded by g_mu; the buffer-completed callback runs on
 * a CUPTI worker thread (or inside cuptiActivityFlushAll). */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int active;
    int registered; /* callbacks stay registered for the life of the process */
    struct krec *k;
    size_t nk, ck;
    struct xrec *x;
    size_t nx, cx;
    char **names; /* open-addressing set of interned kernel names */
    size_t names_cap, names_n;
    uint64_t dropped;
    uint64_t lost; /* records we could not store (out of memory) */
} g;

/* Main-thread only (push/pop and take run on the caller's thread). */
static uint64_t g_corr_fail;

static const CUpti_ActivityKind k_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_DRIVER,  /* external-correlation records come with API records */
    CUPTI_ACTIVITY_KIND_RUNTIME, /* kernels launched through cudart correlate with the runtime call */
};
#define N_KINDS (sizeof k_kinds / sizeof k_kinds[0])

static const char *cupti_str(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    return s;
}

static const char *kind_name(CUpti_ActivityKind k)
{
    switch (k) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return "CONCURRENT_KERNEL";
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return "EXTERNAL_CORRELATION";
    case CUPTI_ACTIVITY_KIND_DRIVER: return "DRIVER";
    case CUPTI_ACTIVITY_KIND_RUNTIME: return "RUNTIME";
    default: return "?";
    }
}

/* ---- interned names (under g_mu) ------------------------------------------ */

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static int names_grow(void)
{
    size_t cap = g.names_cap ? g.names_cap * 2 : 256;
    char **t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < g.names_cap; i++) {
        char *s = g.names[i];
        if (!s)
            continue;
        size_t j = (size_t)fnv1a(s) & (cap - 1);
        while (t[j])
            j = (j + 1) & (cap - 1);
        t[j] = s;
    }
    free(g.names);
    g.names = t;
    g.names_cap = cap;
    return 0;
}

static const char *intern(const char *s)
{
    if (!s)
        s = "(unknown kernel)";
    if ((g.names_n + 1) * 2 > g.names_cap && names_grow() != 0)
        return NULL;
    size_t j = (size_t)fnv1a(s) & (g.names_cap - 1);
    while (g.names[j]) {
        if (strcmp(g.names[j], s) == 0)
            return g.names[j];
        j = (j + 1) & (g.names_cap - 1);
    }
    char *c = strdup(s);
    if (!c)
        return NULL;
    g.names[j] = c;
    g.names_n++;
    return c;
}

static void names_free(void)
{
    for (size_t i = 0; i < g.names_cap; i++)
        free(g.names[i]);
    free(g.names);
    g.names = NULL;
    g.names_cap = g.names_n = 0;
}

/* ---- records (under g_mu) -------------------------------------------------- */

static void add_kernel(uint32_t corr, uint64_t start, uint64_t end, const char *raw_name)
{
    if (g.nk == g.ck) {
        size_t cap = g.ck ? g.ck * 2 : 1024;
        struct krec *t = realloc(g.k, cap * sizeof *t);
        if (!t) {
            g.lost++;
            return;
        }
        g.k = t;
        g.ck = cap;
    }
    const char *name = intern(raw_name);
    if (!name) {
        g.lost++;
        return;
    }
    g.k[g.nk++] = (struct krec){ .corr = corr, .start = start, .end = end, .name = name };
}

static void add_ext(uint32_t corr, uint64_t ext)
{
    if (g.nx == g.cx) {
        size_t cap = g.cx ? g.cx * 2 : 1024;
        struct xrec *t = realloc(g.x, cap * sizeof *t);
        if (!t) {
            g.lost++;
            return;
        }
        g.x = t;
        g.cx = cap;
    }
    g.x[g.nx++] = (struct xrec){ .corr = corr, .age = 0, .ext = ext };
}

/* ---- CUPTI buffer callbacks ------------------------------------------------ */

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = NULL;
    if (posix_memalign(&p, OC_TRACE_BUF_ALIGN, OC_TRACE_BUF_SIZE) != 0)
        p = NULL;
    *buffer = p;
    *size = p ? OC_TRACE_BUF_SIZE : 0; /* CUPTI drops records when given no buffer */
    *max_records = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
                                   size_t valid_size)
{
    (void)size;
    if (buffer && valid_size > 0) {
        pthread_mutex_lock(&g_mu);
        if (g.active) {
            CUpti_Activity *rec = NULL;
            while (cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS) {
                switch (rec->kind) {
                case CUPTI_ACTIVITY_KIND_KERNEL:
                case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
                    const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)(const void *)rec;
                    add_kernel(k->correlationId, k->start, k->end, k->name);
                    break;
                }
                case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
                    const CUpti_ActivityExternalCorrelation *e =
                        (const CUpti_ActivityExternalCorrelation *)(const void *)rec;
                    if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
                        add_ext(e->correlationId, e->externalId);
                    break;
                }
                default: /* API records: only needed so that the external ones are emitted */
                    break;
                }
            }
        }
        pthread_mutex_unlock(&g_mu);
    }
    /* outside g_mu: CUPTI may take its own locks here */
    size_t d = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &d) == CUPTI_SUCCESS && d > 0) {
        pthread_mutex_lock(&g_mu);
        g.dropped += d;
        pthread_mutex_unlock(&g_mu);
    }
    free(buffer);
}

/* ---- API ------------------------------------------------------------------- */

int oc_rp_trace_begin(char *err, size_t errn)
{
    char dummy[8];
    if (!err || errn == 0) {
        err = dummy;
        errn = sizeof dummy;
    }
    err[0] = '\0';

    pthread_mutex_lock(&g_mu);
    int active = g.active, registered = g.registered;
    pthread_mutex_unlock(&g_mu);
    if (active)
        return 0;

    CUptiResult r;
    if (!registered) {
        r = cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
        if (r != CUPTI_SUCCESS) {
            snprintf(err, errn, "cuptiActivityRegisterCallbacks: %s", cupti_str(r));
            return -1;
        }
        pthread_mutex_lock(&g_mu);
        g.registered = 1;
        pthread_mutex_unlock(&g_mu);
    }

    pthread_mutex_lock(&g_mu);
    g.active = 1; /* before enabling: the first buffers may complete at once */
    g.dropped = g.lost = 0;
    pthread_mutex_unlock(&g_mu);
    g_corr_fail = 0;

    for (size_t i = 0; i < N_KINDS; i++) {
        r = cuptiActivityEnable(k_kinds[i]);
        if (r != CUPTI_SUCCESS) {
            snprintf(err, errn, "cuptiActivityEnable(%s): %s%s", kind_name(k_kinds[i]), cupti_str(r),
                     r == CUPTI_ERROR_UNKNOWN ? " (no usable CUDA driver/GPU?)" : "");
            while (i-- > 0)
                (void)cuptiActivityDisable(k_kinds[i]);
            pthread_mutex_lock(&g_mu);
            g.active = 0;
            pthread_mutex_unlock(&g_mu);
            return -1;
        }
    }
    return 0;
}

void oc_rp_trace_push(uint64_t id)
{
    if (cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) != CUPTI_SUCCESS)
        g_corr_fail++;
}

void oc_rp_trace_pop(void)
{
    uint64_t last = 0;
    if (cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last) != CUPTI_SUCCESS)
        g_corr_fail++;
}

static int cmp_xrec(const void *a, const void *b)
{
    const struct xrec *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_kernel(const void *a, const void *b)
{
    const struct oc_rp_kernel *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns < y->end_ns ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* index of the first xrec with .corr == corr in the sorted g.x, or -1 */
static ptrdiff_t find_ext(uint32_t corr)
{
    size_t lo = 0, hi = g.nx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g.x[mid].corr < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g.nx && g.x[lo].corr == corr ? (ptrdiff_t)lo : -1;
}

int64_t oc_rp_trace_take(struct oc_rp_kernel **out, uint64_t *dropped, char *err, size_t errn)
{
    char dummy[8];
    if (!err || errn == 0) {
        err = dummy;
        errn = sizeof dummy;
    }
    err[0] = '\0';
    if (dropped)
        *dropped = 0;
    if (!out) {
        snprintf(err, errn, "trace: no output pointer");
        return -1;
    }
    *out = NULL;

    pthread_mutex_lock(&g_mu);
    int active = g.active;
    pthread_mutex_unlock(&g_mu);
    if (!active) {
        snprintf(err, errn, "trace: not active (oc_rp_trace_begin first)");
        return -1;
    }

    cudaError_t ce = cudaDeviceSynchronize();
    if (ce != cudaSuccess) {
        snprintf(err, errn, "cudaDeviceSynchronize: %s", cudaGetErrorString(ce));
        return -1;
    }
    /* not under g_mu: the flush runs buf_completed, which locks it */
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS) {
        snprintf(err, errn, "cuptiActivityFlushAll: %s", cupti_str(r));
        return -1;
    }
    size_t global_dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &global_dropped) != CUPTI_SUCCESS)
        global_dropped = 0;

    int64_t rc;
    pthread_mutex_lock(&g_mu);
    uint64_t lost = g.lost;
    uint64_t drop = g.dropped + global_dropped;
    g.lost = 0;
    g.dropped = 0;

    struct oc_rp_kernel *v = NULL;
    if (g.nk > 0) {
        v = malloc(g.nk * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&g_mu);
            snprintf(err, errn, "trace: out of memory (%zu kernel records)", g.nk);
            return -1;
        }
    }
    if (g.nx > 1)
        qsort(g.x, g.nx, sizeof *g.x, cmp_xrec);
    for (size_t i = 0; i < g.nx; i++)
        g.x[i].age++;
    for (size_t i = 0; i < g.nk; i++) {
        ptrdiff_t e = find_ext(g.k[i].corr);
        v[i] = (struct oc_rp_kernel){
            .id = e >= 0 ? g.x[e].ext : 0,
            .start_ns = g.k[i].start,
            .end_ns = g.k[i].end,
            .name = g.k[i].name,
        };
        if (e >= 0)
            g.x[e].age = 0; /* used: dropped below unless it matches later kernels too */
    }
    /* Keep an external record that matched nothing for one more take, in case
     * its kernel record comes in a later buffer; drop used or stale ones. */
    size_t keep = 0;
    for (size_t i = 0; i < g.nx; i++)
        if (g.x[i].age == 1)
            g.x[keep++] = g.x[i];
    g.nx = keep;
    rc = (int64_t)g.nk;
    g.nk = 0;
    pthread_mutex_unlock(&g_mu);

    if (rc > 1)
        qsort(v, (size_t)rc, sizeof *v, cmp_kernel);
    if (dropped)
        *dropped = drop + lost;

    if (g_corr_fail) {
        snprintf(err, errn, "cuptiActivityPush/PopExternalCorrelationId failed %llu times: kernels not attributed",
                 (unsigned long long)g_corr_fail);
        g_corr_fail = 0;
        free(v);
        return -1;
    }
    *out = v;
    return rc;
}

void oc_rp_trace_end(void)
{
    pthread_mutex_lock(&g_mu);
    int active = g.active;
    g.active = 0; /* from here the callback only frees buffers */
    pthread_mutex_unlock(&g_mu);
    if (!active)
        return;

    for (size_t i = 0; i < N_KINDS; i++)
        (void)cuptiActivityDisable(k_kinds[i]);
    (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);

    pthread_mutex_lock(&g_mu);
    free(g.k);
    g.k = NULL;
    g.nk = g.ck = 0;
    free(g.x);
    g.x = NULL;
    g.nx = g.cx = 0;
    names_free();
    g.dropped = g.lost = 0;
    pthread_mutex_unlock(&g_mu);
    g_corr_fail = 0;
}
