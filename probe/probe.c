/*
 * probe.c — this machine's roofs (probe.h): the CPU's description, FMA
 * peaks, triad bandwidth per memory level, the clock.
 */
#define _GNU_SOURCE
#include "probe.h"

#include "../views/perf/perf.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define OC_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#define OC_ARM 1
#endif

static double oc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the CPU's description ------------------------------------------------------------- */

static void oc_cpu_name(char *out, size_t n) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    out[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) && strncmp(line, "Model", 5))
            continue;
        const char *c = strchr(line, ':');
        if (!c)
            continue;
        c++;
        while (*c == ' ' || *c == '\t')
            c++;
        snprintf(out, n, "%.*s", (int)strcspn(c, "\n"), c);
        break;
    }
    if (f)
        fclose(f);
    struct utsname u;
    if (!out[0] && uname(&u) == 0)
        snprintf(out, n, "%s", u.machine);
}

static uint64_t oc_sysfs_size(const char *path) {
    FILE *f = fopen(path, "r");
    char buf[64] = "";
    if (!f)
        return 0;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = 0;
    fclose(f);
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : *end == 'G' ? v << 30 : v;
}

/* logical CPUs in a sysfs list "0-3,8-11" */
static int32_t oc_sysfs_count(const char *path) {
    FILE *f = fopen(path, "r");
    char buf[512] = "";
    if (!f)
        return 1;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = 0;
    fclose(f);
    int32_t n = 0;
    for (char *p = buf; *p && *p != '\n';) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        n += (int32_t)(b - a + 1);
        p = *end == ',' ? end + 1 : end;
    }
    return n > 0 ? n : 1;
}

/* data and unified caches of CPU 0, by level (a level's data cache wins) */
static void oc_caches(struct oc_machine *m) {
    for (int i = 0; i < 16; i++) {
        char base[128], path[192], type[32] = "";
        snprintf(base, sizeof base, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        snprintf(path, sizeof path, "%s/level", base);
        int32_t level = (int32_t)oc_sysfs_size(path);
        if (level <= 0)
            break;
        snprintf(path, sizeof path, "%s/type", base);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(type, sizeof type, f))
                type[0] = 0;
            fclose(f);
        }
        if (strncmp(type, "Instruction", 11) == 0)
            continue;
        snprintf(path, sizeof path, "%s/size", base);
        uint64_t bytes = oc_sysfs_size(path);
        snprintf(path, sizeof path, "%s/shared_cpu_list", base);
        int32_t shared = oc_sysfs_count(path);
        if (!bytes || m->n_levels >= OC_PROBE_MAX_LEVELS)
            continue;
        int32_t k = 0;
        while (k < m->n_levels && m->levels[k].level != level)
            k++;
        if (k == m->n_levels)
            m->n_levels++;
        m->levels[k] = (struct oc_probe_level){.level = level, .bytes = bytes, .shared_by = shared};
    }
}

/* ---- FMA peaks --------------------------------------------------------------------------- */

/* Each kernel runs `iters` iterations of 12 independent vector FMAs (enough
 * to cover two pipes' latency) and returns the FLOPs it did; the sum of its
 * accumulators goes to *sink so that nothing is optimized away. */
typedef double (*oc_fma_fn)(int64_t iters, volatile float *sink);

#define OC_REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

/* One kernel: 12 accumulators of type VEC, declared by OC_FMA_DECL_<fn>(k),
 * advanced once per iteration by OC_FMA_STEP_<fn>(k), summed into s (from
 * ZERO) by OC_FMA_SUM_<fn>(k) and reduced to a float by REDUCE; FLOPS are
 * done per iteration. */
#define OC_FMA_KERNEL(fn, attr, VEC, ZERO, REDUCE, FLOPS)                                                            \
    attr static double fn(int64_t iters, volatile float *sink) {                                                     \
        OC_REP12(OC_FMA_DECL_##fn)                                                                                   \
        for (int64_t i = 0; i < iters; i++) {                                                                        \
            OC_REP12(OC_FMA_STEP_##fn)                                                                               \
        }                                                                                                            \
        VEC s = ZERO;                                                                                                \
        OC_REP12(OC_FMA_SUM_##fn)                                                                                    \
        *sink = REDUCE(s);                                                                                           \
        return (double)iters * (FLOPS);                                                                              \
    }

#ifdef OC_X86
/* clang 18 and later split AVX-512's 512-bit registers out as "evex512"
 * (zig cc, the portable wheel's compiler, is such a clang); GCC 12 knows no
 * such feature */
#if defined(__clang__) && __clang_major__ >= 18
#define OC_AVX512F "avx512f,evex512"
#else
#define OC_AVX512F "avx512f"
#endif
__attribute__((target(OC_AVX512F))) static float oc_hsum512(__m512 s) { return _mm512_reduce_add_ps(s); }
__attribute__((target(OC_AVX512F))) static float oc_hsum512d(__m512d s) { return (float)_mm512_reduce_add_pd(s); }
/* the INT8 accumulators wrap in the hardware by design: summed as 64-bit integers, not with
   _mm512_reduce_add_epi32, whose int additions would overflow (undefined in C) */
__attribute__((target(OC_AVX512F))) static float oc_hsum512i(__m512i s) {
    int32_t v[16];
    _mm512_storeu_si512(v, s);
    int64_t sum = 0;
    for (int k = 0; k < 16; k++)
        sum += v[k];
    return (float)sum;
}
__attribute__((target("avx2,fma"))) static float oc_hsum256(__m256 s) {
    float v[8];
    _mm256_storeu_ps(v, s);
    return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}
__attribute__((target("avx2,fma"))) static float oc_hsum256d(__m256d s) {
    double v[4];
    _mm256_storeu_pd(v, s);
    return (float)(v[0] + v[1] + v[2] + v[3]);
}

/* a *= 0.9999999 then += 1e-7: converges to 1, never denormal */
#define OC_FMA_DECL_oc_fma_avx512_fp32(k) __m512 a##k = _mm512_set1_ps(1.0f + (float)(k) * 1e-3f);
#define OC_FMA_STEP_oc_fma_avx512_fp32(k) a##k = _mm512_fmadd_ps(a##k, _mm512_set1_ps(0.9999999f), _mm512_set1_ps(1e-7f));
#define OC_FMA_SUM_oc_fma_avx512_fp32(k) s = _mm512_add_ps(s, a##k);
OC_FMA_KERNEL(oc_fma_avx512_fp32, __attribute__((target(OC_AVX512F))), __m512, _mm512_setzero_ps(), oc_hsum512, 12 * 16 * 2)

#define OC_FMA_DECL_oc_fma_avx512_fp64(k) __m512d a##k = _mm512_set1_pd(1.0 + (double)(k) * 1e-3);
#define OC_FMA_STEP_oc_fma_avx512_fp64(k) a##k = _mm512_fmadd_pd(a##k, _mm512_set1_pd(0.9999999), _mm512_set1_pd(1e-7));
#define OC_FMA_SUM_oc_fma_avx512_fp64(k) s = _mm512_add_pd(s, a##k);
OC_FMA_KERNEL(oc_fma_avx512_fp64, __attribute__((target(OC_AVX512F))), __m512d, _mm512_setzero_pd(), oc_hsum512d, 12 * 8 * 2)

/* vdpbf16ps: 32 BF16 pairs multiplied and added into 16 FP32 lanes, 64 FLOP (0x3a83: about 1e-3) */
#define OC_FMA_DECL_oc_fma_avx512_bf16(k) __m512 a##k = _mm512_set1_ps((float)(k));
#define OC_FMA_STEP_oc_fma_avx512_bf16(k)                                                                            \
    a##k = _mm512_dpbf16_ps(a##k, (__m512bh)_mm512_set1_epi16(0x3a83), (__m512bh)_mm512_set1_epi16(0x3a83));
#define OC_FMA_SUM_oc_fma_avx512_bf16(k) s = _mm512_add_ps(s, a##k);
OC_FMA_KERNEL(oc_fma_avx512_bf16, __attribute__((target(OC_AVX512F ",avx512bf16"))), __m512, _mm512_setzero_ps(), oc_hsum512,
              12 * 64)

/* vpdpbusd: 64 u8 x s8 products added into 16 INT32 lanes, 128 OPs */
#define OC_FMA_DECL_oc_fma_avx512_int8(k) __m512i a##k = _mm512_set1_epi32(k);
#define OC_FMA_STEP_oc_fma_avx512_int8(k) a##k = _mm512_dpbusd_epi32(a##k, _mm512_set1_epi8(3), _mm512_set1_epi8(-2));
#define OC_FMA_SUM_oc_fma_avx512_int8(k) s = _mm512_add_epi32(s, a##k);
OC_FMA_KERNEL(oc_fma_avx512_int8, __attribute__((target(OC_AVX512F ",avx512vnni"))), __m512i, _mm512_setzero_si512(),
              oc_hsum512i, 12 * 128)

#define OC_FMA_DECL_oc_fma_avx2_fp32(k) __m256 a##k = _mm256_set1_ps(1.0f + (float)(k) * 1e-3f);
#define OC_FMA_STEP_oc_fma_avx2_fp32(k) a##k = _mm256_fmadd_ps(a##k, _mm256_set1_ps(0.9999999f), _mm256_set1_ps(1e-7f));
#define OC_FMA_SUM_oc_fma_avx2_fp32(k) s = _mm256_add_ps(s, a##k);
OC_FMA_KERNEL(oc_fma_avx2_fp32, __attribute__((target("avx2,fma"))), __m256, _mm256_setzero_ps(), oc_hsum256, 12 * 8 * 2)

#define OC_FMA_DECL_oc_fma_avx2_fp64(k) __m256d a##k = _mm256_set1_pd(1.0 + (double)(k) * 1e-3);
#define OC_FMA_STEP_oc_fma_avx2_fp64(k) a##k = _mm256_fmadd_pd(a##k, _mm256_set1_pd(0.9999999), _mm256_set1_pd(1e-7));
#define OC_FMA_SUM_oc_fma_avx2_fp64(k) s = _mm256_add_pd(s, a##k);
OC_FMA_KERNEL(oc_fma_avx2_fp64, __attribute__((target("avx2,fma"))), __m256d, _mm256_setzero_pd(), oc_hsum256d, 12 * 4 * 2)
#endif

#ifdef OC_ARM
#define OC_FMA_DECL_oc_fma_neon_fp32(k) float32x4_t a##k = vdupq_n_f32(1.0f + (float)(k) * 1e-3f);
#define OC_FMA_STEP_oc_fma_neon_fp32(k) a##k = vfmaq_f32(vdupq_n_f32(1e-7f), a##k, vdupq_n_f32(0.9999999f));
#define OC_FMA_SUM_oc_fma_neon_fp32(k) s = vaddq_f32(s, a##k);
OC_FMA_KERNEL(oc_fma_neon_fp32, , float32x4_t, vdupq_n_f32(0), vaddvq_f32, 12 * 4 * 2)

#define OC_FMA_DECL_oc_fma_neon_fp64(k) float64x2_t a##k = vdupq_n_f64(1.0 + (double)(k) * 1e-3);
#define OC_FMA_STEP_oc_fma_neon_fp64(k) a##k = vfmaq_f64(vdupq_n_f64(1e-7), a##k, vdupq_n_f64(0.9999999));
#define OC_FMA_SUM_oc_fma_neon_fp64(k) s = vaddq_f64(s, a##k);
static float oc_hsum_f64x2(float64x2_t s) { return (float)vaddvq_f64(s); }
OC_FMA_KERNEL(oc_fma_neon_fp64, , float64x2_t, vdupq_n_f64(0), oc_hsum_f64x2, 12 * 2 * 2)
#endif

/* any ISA: 12 independent scalar chains the compiler may keep in registers */
static float oc_as_float(double s) { return (float)s; }
#define OC_FMA_DECL_oc_fma_scalar_fp32(k) float a##k = 1.0f + (float)(k) * 1e-3f;
#define OC_FMA_STEP_oc_fma_scalar_fp32(k) a##k = a##k * 0.9999999f + 1e-7f;
#define OC_FMA_SUM_oc_fma_scalar_fp32(k) s += a##k;
OC_FMA_KERNEL(oc_fma_scalar_fp32, , float, 0.0f, oc_as_float, 12 * 2)

#define OC_FMA_DECL_oc_fma_scalar_fp64(k) double a##k = 1.0 + (double)(k) * 1e-3;
#define OC_FMA_STEP_oc_fma_scalar_fp64(k) a##k = a##k * 0.9999999 + 1e-7;
#define OC_FMA_SUM_oc_fma_scalar_fp64(k) s += a##k;
OC_FMA_KERNEL(oc_fma_scalar_fp64, , double, 0.0, oc_as_float, 12 * 2)

#ifdef OC_X86
/* What the CPU and the OS both enable, from CPUID and XCR0, as GCC's
 * __builtin_cpu_supports decides it but without the compiler runtime's
 * cpu model (zig cc's runtime, the portable wheel's compiler, has none):
 * AVX2 with FMA where the OS saves the YMM state, AVX-512F where it also
 * saves the opmask and ZMM state. */
enum oc_x86_isa { OC_ISA_NONE, OC_ISA_AVX2_FMA, OC_ISA_AVX512F };
static enum oc_x86_isa oc_x86_isa(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1) || !(c >> 28 & 1)) /* OSXSAVE, AVX */
        return OC_ISA_NONE;
    int fma = c >> 12 & 1;
    unsigned xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) /* SSE and AVX state */
        return OC_ISA_NONE;
    if ((b >> 16 & 1) && (xcr0_lo & 0xe0) == 0xe0) /* AVX512F; opmask, ZMM0-15 and ZMM16-31 state */
        return OC_ISA_AVX512F;
    return (b >> 5 & 1) && fma ? OC_ISA_AVX2_FMA : OC_ISA_NONE; /* AVX2 */
}
#endif

/* the widest kernels this CPU runs, and the ISA's name */
static void oc_fma_kernels(struct oc_machine *m, oc_fma_fn fn[OC_PROBE_TYPES]) {
    memset(fn, 0, OC_PROBE_TYPES * sizeof fn[0]);
    fn[OC_PROBE_FP32] = oc_fma_scalar_fp32;
    fn[OC_PROBE_FP64] = oc_fma_scalar_fp64;
    snprintf(m->isa, sizeof m->isa, "scalar");
#ifdef OC_X86
    enum oc_x86_isa isa = oc_x86_isa();
    if (isa == OC_ISA_AVX512F) {
        fn[OC_PROBE_FP32] = oc_fma_avx512_fp32;
        fn[OC_PROBE_FP64] = oc_fma_avx512_fp64;
        snprintf(m->isa, sizeof m->isa, "avx512f");
        unsigned a, b, c, d;
        /* AVX512_BF16: CPUID leaf 7 subleaf 1, EAX bit 5; VNNI: leaf 7, ECX bit 11 */
        if (__get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 5 & 1))
            fn[OC_PROBE_BF16] = oc_fma_avx512_bf16;
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (c >> 11 & 1))
            fn[OC_PROBE_INT8] = oc_fma_avx512_int8;
    } else if (isa == OC_ISA_AVX2_FMA) {
        fn[OC_PROBE_FP32] = oc_fma_avx2_fp32;
        fn[OC_PROBE_FP64] = oc_fma_avx2_fp64;
        snprintf(m->isa, sizeof m->isa, "avx2+fma");
    }
#elif defined(OC_ARM)
    fn[OC_PROBE_FP32] = oc_fma_neon_fp32;
    fn[OC_PROBE_FP64] = oc_fma_neon_fp64;
    snprintf(m->isa, sizeof m->isa, "neon");
#endif
    m->bf16 = fn[OC_PROBE_BF16] != NULL;
    m->int8 = fn[OC_PROBE_INT8] != NULL;
}

/* ---- threads: every one runs the same work at once ----------------------------------------- */

struct oc_team;
struct oc_worker {
    struct oc_team *team;
    int32_t id;
    double work;             /* FLOPs or bytes done        */
    double t0, t1;           /* when this one began and ended */
    float *buf;              /* triad: 3 arrays of n each  */
    size_t n;
    volatile float sink;
};

struct oc_team {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool go, cancel;         /* set together, under lock   */
    int32_t n;
    int kind;                /* 0: FMA, 1: triad          */
    oc_fma_fn fma;
    int64_t iters;           /* FMA iterations or triad passes */
    double min_kernel_s;     /* the last run: the shortest thread's own time */
    struct oc_worker *w;
};

static void oc_triad(float *a, const float *b, const float *c, size_t n, int64_t passes) {
    for (int64_t p = 0; p < passes; p++) {
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] + 0.5f * c[i];
        __asm__ volatile("" ::"r"(a) : "memory"); /* each pass is done */
    }
}

#ifdef OC_X86
/* The triad over one vector ISA: VEC lanes at a time, aligned loads and
 * stores, the tail in scalar code. */
#define OC_TRIAD_KERNEL(fn, attr, VEC, LANES, SET1, LOAD, STORE, FMADD)                                              \
    attr static void fn(float *a, const float *b, const float *c, size_t n, int64_t passes) {                         \
        const VEC s = SET1(0.5f);                                                                                    \
        for (int64_t p = 0; p < passes; p++) {                                                                       \
            size_t i = 0;                                                                                            \
            for (; i + (LANES) <= n; i += (LANES))                                                                   \
                STORE(a + i, FMADD(LOAD(c + i), s, LOAD(b + i)));                                                    \
            for (; i < n; i++)                                                                                       \
                a[i] = b[i] + 0.5f * c[i];                                                                           \
            __asm__ volatile("" ::"r"(a) : "memory");                                                                \
        }                                                                                                            \
    }
OC_TRIAD_KERNEL(oc_triad_avx512, __attribute__((target(OC_AVX512F))), __m512, 16, _mm512_set1_ps, _mm512_load_ps,
                _mm512_store_ps, _mm512_fmadd_ps)
OC_TRIAD_KERNEL(oc_triad_avx2, __attribute__((target("avx2,fma"))), __m256, 8, _mm256_set1_ps, _mm256_load_ps,
                _mm256_store_ps, _mm256_fmadd_ps)
#endif

static void oc_triad_best(float *a, const float *b, const float *c, size_t n, int64_t passes) {
#ifdef OC_X86
    enum oc_x86_isa isa = oc_x86_isa();
    if (isa == OC_ISA_AVX512F)
        oc_triad_avx512(a, b, c, n, passes);
    else if (isa == OC_ISA_AVX2_FMA)
        oc_triad_avx2(a, b, c, n, passes);
    else
        oc_triad(a, b, c, n, passes);
#else
    oc_triad(a, b, c, n, passes);
#endif
}

static void oc_worker_do(struct oc_worker *w) {
    struct oc_team *t = w->team;
    w->t0 = oc_now();
    if (t->kind == 0) {
        w->work = t->fma(t->iters, &w->sink);
    } else {
        oc_triad_best(w->buf, w->buf + w->n, w->buf + 2 * w->n, w->n, t->iters);
        w->work = 12.0 * (double)w->n * (double)t->iters;
    }
    w->t1 = oc_now();
}

static void *oc_worker_main(void *arg) {
    struct oc_worker *w = arg;
    struct oc_team *t = w->team;
    pthread_mutex_lock(&t->lock);
    while (!t->go)
        pthread_cond_wait(&t->cond, &t->lock);
    bool cancel = t->cancel;
    pthread_mutex_unlock(&t->lock);
    if (!cancel)
        oc_worker_do(w);
    return NULL;
}

/* Runs the team's work once on its threads (the caller is worker 0): all
 * the work over the time from the first one's start to the last one's end
 * (threads that wake late do not count their wait); 0 when the threads
 * cannot all be had. */
static double oc_team_run(struct oc_team *t) {
    pthread_t th[1024];
    int32_t started = 1;
    t->go = t->cancel = false;
    for (int32_t i = 1; i < t->n; i++) {
        if (pthread_create(&th[i], NULL, oc_worker_main, &t->w[i]) != 0)
            break;
        started++;
    }
    pthread_mutex_lock(&t->lock);
    t->go = true;
    t->cancel = started < t->n;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    if (!t->cancel)
        oc_worker_do(&t->w[0]);
    for (int32_t i = 1; i < started; i++)
        pthread_join(th[i], NULL);
    if (t->cancel)
        return 0;
    double work = 0, first = t->w[0].t0, last = t->w[0].t1;
    t->min_kernel_s = t->w[0].t1 - t->w[0].t0;
    for (int32_t i = 0; i < t->n; i++) {
        work += t->w[i].work;
        first = t->w[i].t0 < first ? t->w[i].t0 : first;
        last = t->w[i].t1 > last ? t->w[i].t1 : last;
        if (t->w[i].t1 - t->w[i].t0 < t->min_kernel_s)
            t->min_kernel_s = t->w[i].t1 - t->w[i].t0;
    }
    return last > first ? work / (last - first) : 0;
}

/* Grows iters until every thread's own kernel time (not the threads'
   start, which a short --seconds once let dominate: all-thread peaks below
   one thread's) reaches a quarter of target_s, then keeps the best of
   three. */
static double oc_team_rate(struct oc_team *t, double target_s) {
    double rate = 0;
    t->iters = 1;
    for (;;) {
        if (oc_team_run(t) <= 0)
            return 0;
        double dt = t->min_kernel_s;
        if (dt >= target_s / 4 || t->iters > ((int64_t)1 << 40))
            break;
        t->iters *= dt > 1e-4 ? (int64_t)fmax(2, ceil(target_s / dt)) : 16;
    }
    for (int rep = 0; rep < 3; rep++) {
        double r = oc_team_run(t);
        if (r > rate)
            rate = r;
    }
    return rate;
}

/* ---- the clock --------------------------------------------------------------------------- */

/* A chain of dependent register-register adds, one a cycle. Not adds of an
   immediate: recent x86 cores (Golden Cove and later: Sapphire Rapids Xeons)
   fold those at rename, several a cycle, and the chain read 4 to 11.5 GHz
   on a 2.1 GHz Xeon. */
static double oc_clock(double target_s) {
    int64_t iters = 1 << 16;
    volatile uint64_t one_v = 1;
    uint64_t one = one_v; /* a register the compiler cannot see is 1 */
    for (;;) {
        uint64_t x = 0;
        double t0 = oc_now();
        for (int64_t i = 0; i < iters; i++) {
#if defined(OC_X86)
            __asm__ volatile("add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
                             "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
                             : "+r"(x)
                             : "r"(one));
#elif defined(OC_ARM)
            __asm__ volatile("add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
                             "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1"
                             : "+r"(x)
                             : "r"(one));
#else
            (void)one;
            return 0;
#endif
        }
        double dt = oc_now() - t0;
        if (dt >= target_s)
            return 8.0 * (double)iters / dt;
        iters *= 2;
    }
}

bool oc_probe_clock_plausible(double clock_hz, double fp32_one_flops, int32_t lanes) {
    if (!(clock_hz >= 0.3e9 && clock_hz <= 6.5e9))
        return false;
    return !(fp32_one_flops > 0 && lanes > 0) || fp32_one_flops / clock_hz >= 0.6 * 2 * lanes;
}

/* FP32 lanes of the path named by isa */
static int32_t oc_isa_lanes(const char *isa) {
    return strcmp(isa, "avx512f") == 0 ? 16 : strcmp(isa, "avx2+fma") == 0 ? 8 : strcmp(isa, "neon") == 0 ? 4 : 1;
}

/* ---- the probe --------------------------------------------------------------------------- */

static bool oc_team_alloc(struct oc_team *t, int32_t n, size_t per_thread, char *err, size_t size) {
    for (int32_t i = 0; i < n; i++) {
        t->w[i].n = per_thread;
        t->w[i].buf = aligned_alloc(64, ((3 * per_thread * sizeof(float)) + 63) & ~(size_t)63);
        if (!t->w[i].buf) {
            snprintf(err, size, "out of memory for %zu bytes of triad arrays", 3 * per_thread * sizeof(float));
            return false;
        }
        for (size_t k = 0; k < 3 * per_thread; k++)
            t->w[i].buf[k] = 1.0f;
    }
    return true;
}

static void oc_team_release(struct oc_team *t, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        free(t->w[i].buf);
        t->w[i].buf = NULL;
    }
}

/* triad bytes/s on n threads, each with a working set of ws bytes (3 arrays) */
static double oc_bandwidth(struct oc_team *t, int32_t n, uint64_t ws, double target_s, char *err, size_t size,
                           bool *ok) {
    size_t per = (size_t)(ws / 3 / sizeof(float)) & ~(size_t)15;
    if (per < 16)
        per = 16;
    t->n = n;
    t->kind = 1;
    if (!oc_team_alloc(t, n, per, err, size)) {
        oc_team_release(t, n);
        *ok = false;
        return 0;
    }
    double r = oc_team_rate(t, target_s);
    oc_team_release(t, n);
    return r;
}

static int oc_cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bool oc_probe_run(const struct oc_probe_opts *o, struct oc_machine *m, char *err, size_t size) {
    double t_start = oc_now();
    double target = o->target_s > 0 ? o->target_s : 0.05;
    memset(m, 0, sizeof *m);
    oc_cpu_name(m->cpu, sizeof m->cpu);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    m->logical_cpus = online > 0 ? (int32_t)online : 1;
    m->threads = o->threads > 0 ? o->threads : m->logical_cpus;
    if (m->threads > 1024)
        m->threads = 1024;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    m->mem_bytes = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
    oc_caches(m);
    for (int32_t k = 0; k < m->n_levels; k++) { /* what the threads reach together */
        struct oc_probe_level *l = &m->levels[k];
        int32_t groups = (m->threads + l->shared_by - 1) / l->shared_by;
        l->bytes_all = l->bytes * (uint64_t)groups;
    }

    struct oc_worker *w = calloc((size_t)m->threads, sizeof *w);
    if (!w) {
        snprintf(err, size, "out of memory");
        return false;
    }
    struct oc_team team = {.w = w, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    for (int32_t i = 0; i < m->threads; i++) {
        w[i].team = &team;
        w[i].id = i;
    }
    oc_fma_fn fn[OC_PROBE_TYPES];
    oc_fma_kernels(m, fn);
    m->clock_hz = m->clock_read_hz = oc_clock(target);
    for (int ty = 0; ty < OC_PROBE_TYPES; ty++) {
        if (!fn[ty])
            continue;
        team.kind = 0;
        team.fma = fn[ty];
        team.n = 1;
        m->peak_one[ty] = oc_team_rate(&team, target);
        team.n = m->threads;
        m->peak_all[ty] = m->threads == 1 ? m->peak_one[ty] : oc_team_rate(&team, target);
        /* all threads at once slower than one: another tenant, or threads
           started late. A load that comes and goes leaves quiet windows,
           and it only adds time: the best of more tries of the same
           length (a longer try would span a burst); then the one-thread
           rate, said so */
        for (int k = 0; m->threads > 1 && m->peak_all[ty] < m->peak_one[ty] && k < OC_PROBE_ALL_TRIES; k++)
            m->peak_all[ty] = fmax(m->peak_all[ty], oc_team_rate(&team, target));
        if (m->threads > 1 && m->peak_all[ty] < m->peak_one[ty]) {
            m->peak_all[ty] = m->peak_one[ty];
            m->all_below_one |= 1u << ty;
        }
    }

    /* the sweep on all threads: working sets (all threads together) from a
       quarter of the first level to 8x the last, doubling */
    bool ok = true;
    uint64_t first = m->n_levels ? m->levels[0].bytes_all / 4 : 16384;
    uint64_t last = m->n_levels ? m->levels[m->n_levels - 1].bytes_all : (uint64_t)32 << 20;
    uint64_t top = 8 * last < ((uint64_t)256 << 20) ? (uint64_t)256 << 20 : 8 * last;
    if (m->mem_bytes && top > m->mem_bytes / 4)
        top = m->mem_bytes / 4;
    for (uint64_t ws = first; ok && ws <= top && m->n_sweep < OC_PROBE_MAX_SWEEP; ws *= 2) {
        double bw = oc_bandwidth(&team, m->threads, ws / (uint64_t)m->threads, target, err, size, &ok);
        m->sweep[m->n_sweep++] = (struct oc_probe_point){ws, bw};
    }
    /* per level: the best rate of the sizes within (previous level, half of it] */
    for (int32_t k = 0; ok && k < m->n_levels; k++) {
        struct oc_probe_level *l = &m->levels[k];
        uint64_t lo = k ? m->levels[k - 1].bytes_all : 0;
        for (int32_t i = 0; i < m->n_sweep; i++)
            if (m->sweep[i].bytes > lo && m->sweep[i].bytes <= l->bytes_all / 2 && m->sweep[i].bw_all > l->bw_all)
                l->bw_all = m->sweep[i].bw_all;
        /* one thread, at half of one instance (a shared level: of its share) */
        l->bw_one = oc_bandwidth(&team, 1, l->bytes / 2, target, err, size, &ok);
    }
    double past[OC_PROBE_MAX_SWEEP];
    int32_t n_past = 0;
    for (int32_t i = 0; i < m->n_sweep; i++)
        if (m->sweep[i].bytes >= 4 * last)
            past[n_past++] = m->sweep[i].bw_all;
    if (n_past) {
        qsort(past, (size_t)n_past, sizeof past[0], oc_cmp_d);
        m->dram_all = n_past % 2 ? past[n_past / 2] : 0.5 * (past[n_past / 2 - 1] + past[n_past / 2]);
    } else if (m->n_sweep) {
        m->dram_all = m->sweep[m->n_sweep - 1].bw_all;
    }
    if (ok)
        m->dram_one = oc_bandwidth(&team, 1, top / 2 < 4 * last ? top / 2 : 4 * last, target, err, size, &ok);
    if (!oc_probe_clock_plausible(m->clock_read_hz, m->peak_one[OC_PROBE_FP32], oc_isa_lanes(m->isa)))
        m->clock_hz = 0; /* left out, the report says what was read */
    free(w);
    m->seconds = oc_now() - t_start;
    return ok;
}

void oc_probe_spec(const struct oc_machine *m, struct oc_gpu *g, char *name, size_t size) {
    memset(g, 0, sizeof *g);
    snprintf(name, size, "%s, %d thread%s", m->cpu, m->threads, m->threads == 1 ? "" : "s");
    g->id = g->name = name;
    g->link = "none";
    g->cpu = true;
    g->peak[OC_UNIT_FP32] = m->peak_all[OC_PROBE_FP32];
    g->peak[OC_UNIT_FP64] = m->peak_all[OC_PROBE_FP64];
    g->peak[OC_UNIT_BF16_TC] = m->peak_all[OC_PROBE_BF16];
    g->peak[OC_UNIT_INT8_TC] = m->peak_all[OC_PROBE_INT8];
    g->mem_bytes = m->mem_bytes;
    g->mem_bw = m->dram_all;
    for (int32_t k = 0; k < m->n_levels && g->n_caches < 4; k++)
        if (m->levels[k].bw_all > 0 && m->levels[k].bytes_all > (g->n_caches ? g->cache_bytes[g->n_caches - 1] : 0)) {
            g->scaling.cache_one[g->n_caches] = m->levels[k].bytes;
            g->scaling.shared_by[g->n_caches] = m->levels[k].shared_by;
            g->scaling.cache_bw_one[g->n_caches] = m->levels[k].bw_one;
            g->cache_bytes[g->n_caches] = m->levels[k].bytes_all;
            g->cache_bw[g->n_caches++] = m->levels[k].bw_all;
        }
    /* the one-thread figures, for predictions at another thread count */
    g->scaling.threads = m->threads;
    g->threads = m->threads;
    g->scaling.peak_one[OC_UNIT_FP32] = m->peak_one[OC_PROBE_FP32];
    g->scaling.peak_one[OC_UNIT_FP64] = m->peak_one[OC_PROBE_FP64];
    g->scaling.peak_one[OC_UNIT_BF16_TC] = m->peak_one[OC_PROBE_BF16];
    g->scaling.peak_one[OC_UNIT_INT8_TC] = m->peak_one[OC_PROBE_INT8];
    g->scaling.mem_one = m->dram_one;
}
