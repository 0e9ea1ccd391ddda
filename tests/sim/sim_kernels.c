/*
 * sim_kernels.c — ocsim's CPU stand-in for replay/gpu/kernels.cu: the
 * launchers of replay/kernels.h (fill, unary, binary, Where, strided copy,
 * Gather, LayerNormalization, Cast, L2 flush) computed on the host, since
 * device memory is host memory in ocsim (tests/sim/sim.h).
 *
 * It mirrors kernels.cu launcher by launcher: the same argument checks in the
 * same order with the same codes (cudaErrorInvalidValue, cudaErrorNotSupported,
 * 0 without a launch for an empty index space), the same dtype rules (float16
 * and bfloat16 stored, float computed, with the round-to-nearest-even
 * conversions of __float2half_rn / __float2bfloat16_rn; float to integer
 * truncating and saturating into int64 then wrapping; bool one byte, read as
 * nonzero), the same broadcast strides and dim coalescing, the fill values of
 * replay/fill.h, the same block-reduction order in LayerNormalization. Libm's
 * expf, erff, tanhf etc. and 1/sqrtf for rsqrtf may differ from CUDA's by
 * an ulp or so; everything else is bit for bit what the kernels write.
 *
 * Where a kernel would be launched, each launcher then
 *   1. checks the stream (sim_stream): else cudaErrorInvalidResourceHandle;
 *   2. checks every buffer for the exact element range the kernel touches
 *      (sim_span): for strided and broadcast kernels the lowest and highest
 *      offsets over the index space, base offsets of struct oc_rp_piece
 *      included, strides of either sign; an overrun (or offsets overflowing
 *      64 bits) is a memory fault: cudaErrorIllegalAddress;
 *   3. Gather only: every index lies in [-axis_dim, axis_dim) (the planner's
 *      INDEX fill promises it; the kernel would clamp silently): else a fault;
 *   4. computes the result into the output buffers;
 *   5. reports one kernel (sim_launch) under the name CUPTI would give that
 *      template instantiation, with its work (see "work" below).
 * A failure sets the runtime's last error and returns it; nothing is written.
 */
#include "fill.h"
#include "kernels.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cuda_runtime_api.h>
#pragma GCC diagnostic pop

#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID ((int)cudaErrorInvalidValue)
#define NOT_SUPPORTED ((int)cudaErrorNotSupported)
#define MAXR OC_RP_MAX_RANK
#define CH 1024 /* elements per chunk of the chunked loops */

/* ---------------------------------------------------------------- dtypes */

enum { DT_F32 = 1, DT_U8 = 2, DT_I8 = 3, DT_I32 = 6, DT_I64 = 7, DT_BOOL = 9, DT_F16 = 10, DT_BF16 = 16 };

static int dtype_bytes(int32_t dt) {
    switch (dt) {
    case DT_I64: return 8;
    case DT_F32: case DT_I32: return 4;
    case DT_F16: case DT_BF16: return 2;
    case DT_I8: case DT_U8: case DT_BOOL: return 1;
    default: return 0;
    }
}

static int is_fp(int32_t dt) { return dt == DT_F32 || dt == DT_F16 || dt == DT_BF16; }

static float f32_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* __half2float (cuda_fp16.hpp's __internal_half2float: NaN canonical) */
static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)h >> 15 & 1u, exponent = (uint32_t)h >> 10 & 0x1fu;
    uint32_t mantissa = ((uint32_t)h & 0x3ffu) << 13;
    if (exponent == 0x1fu) {
        sign = mantissa ? sign >> 1 : sign;
        mantissa = mantissa ? 0x7fffffu : 0u;
        exponent = 0xffu;
    } else if (exponent == 0) {
        if (mantissa) {
            uint32_t msb;
            exponent = 0x71u;
            do {
                msb = mantissa & 0x400000u;
                mantissa <<= 1;
                --exponent;
            } while (!msb);
            mantissa &= 0x7fffffu;
        }
    } else {
        exponent += 0x70u;
    }
    return f32_of(sign << 31 | exponent << 23 | mantissa);
}

/* __float2half_rn: round to nearest even, overflow to inf, NaN 0x7fff */
static uint16_t float_to_half(float f) {
    const uint32_t x = bits_of(f), u = x & 0x7fffffffu, sign = x >> 16 & 0x8000u;
    uint32_t result, remainder;
    if (u >= 0x7f800000u) {
        remainder = 0;
        result = u == 0x7f800000u ? (sign | 0x7c00u) : 0x7fffu;
    } else if (u > 0x477fefffu) {
        remainder = 0x80000000u;
        result = sign | 0x7bffu;
    } else if (u >= 0x38800000u) {
        remainder = u << 19;
        result = sign | (u - 0x38000000u) >> 13;
    } else if (u < 0x33000001u) {
        remainder = u;
        result = sign;
    } else {
        const uint32_t shift = 0x7eu - (u >> 23);
        const uint32_t mantissa = (u & 0x7fffffu) | 0x800000u;
        remainder = mantissa << (32u - shift);
        result = (sign | mantissa >> shift) & 0xffffu;
    }
    if (remainder > 0x80000000u || (remainder == 0x80000000u && (result & 1u)))
        ++result;
    return (uint16_t)result;
}

static float bf16_to_float(uint16_t b) { return f32_of((uint32_t)b << 16); }

/* __float2bfloat16_rn: round to nearest even, NaN 0x7fff */
static uint16_t float_to_bf16(float f) {
    const uint32_t x = bits_of(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return 0x7fffu;
    uint32_t r = x >> 16;
    const uint32_t remainder = x << 16;
    if (remainder > 0x80000000u || (remainder == 0x80000000u && (r & 1u)))
        ++r;
    return (uint16_t)r;
}

/* (int64_t)f on the device: truncation toward zero, saturating, NaN 0 */
static int64_t f2i64(float f) {
    if (f != f)
        return 0;
    if (f >= 0x1p63f)
        return INT64_MAX;
    if (f <= -0x1p63f)
        return INT64_MIN;
    return (int64_t)f;
}

/* dst[j] = element off + j*st of p (float dtype dt) as float, j < m */
static void load_f(int32_t dt, const void *p, int64_t off, int64_t st, float *dst, int64_t m) {
    switch (dt) {
    case DT_F32: {
        const float *q = (const float *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = q[j * st];
        break;
    }
    case DT_F16: {
        const uint16_t *q = (const uint16_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = half_to_float(q[j * st]);
        break;
    }
    default: {
        const uint16_t *q = (const uint16_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = bf16_to_float(q[j * st]);
        break;
    }
    }
}

/* dst[j] = element off + j*st of p (integer or bool dtype dt) as int64 */
static void load_i(int32_t dt, const void *p, int64_t off, int64_t st, int64_t *dst, int64_t m) {
    switch (dt) {
    case DT_I64: {
        const int64_t *q = (const int64_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = q[j * st];
        break;
    }
    case DT_I32: {
        const int32_t *q = (const int32_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = q[j * st];
        break;
    }
    case DT_I8: {
        const int8_t *q = (const int8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = q[j * st];
        break;
    }
    case DT_U8: {
        const uint8_t *q = (const uint8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = q[j * st];
        break;
    }
    default: {
        const uint8_t *q = (const uint8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            dst[j] = q[j * st] != 0;
        break;
    }
    }
}

/* p[off + j] = src[j] converted from float to dtype dt (convert<To, float>:
 * float types round, bool is != 0, integers truncate, saturate, wrap) */
static void store_f(int32_t dt, void *p, int64_t off, const float *src, int64_t m) {
    switch (dt) {
    case DT_F32: memcpy((float *)p + off, src, (size_t)m * sizeof *src); break;
    case DT_F16: {
        uint16_t *q = (uint16_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = float_to_half(src[j]);
        break;
    }
    case DT_BF16: {
        uint16_t *q = (uint16_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = float_to_bf16(src[j]);
        break;
    }
    case DT_BOOL: {
        uint8_t *q = (uint8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = src[j] != 0.f;
        break;
    }
    case DT_I64: {
        int64_t *q = (int64_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = f2i64(src[j]);
        break;
    }
    case DT_I32: {
        int32_t *q = (int32_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (int32_t)f2i64(src[j]);
        break;
    }
    case DT_I8: {
        int8_t *q = (int8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (int8_t)f2i64(src[j]);
        break;
    }
    default: {
        uint8_t *q = (uint8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (uint8_t)f2i64(src[j]);
        break;
    }
    }
}

/* p[off + j] = src[j] converted from int64 to dtype dt (from_i: float types
 * via float, bool is != 0, narrower integers wrap) */
static void store_i(int32_t dt, void *p, int64_t off, const int64_t *src, int64_t m) {
    switch (dt) {
    case DT_F32: {
        float *q = (float *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (float)src[j];
        break;
    }
    case DT_F16: {
        uint16_t *q = (uint16_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = float_to_half((float)src[j]);
        break;
    }
    case DT_BF16: {
        uint16_t *q = (uint16_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = float_to_bf16((float)src[j]);
        break;
    }
    case DT_BOOL: {
        uint8_t *q = (uint8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = src[j] != 0;
        break;
    }
    case DT_I64: memcpy((int64_t *)p + off, src, (size_t)m * sizeof *src); break;
    case DT_I32: {
        int32_t *q = (int32_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (int32_t)src[j];
        break;
    }
    case DT_I8: {
        int8_t *q = (int8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (int8_t)src[j];
        break;
    }
    default: {
        uint8_t *q = (uint8_t *)p + off;
        for (int64_t j = 0; j < m; ++j)
            q[j] = (uint8_t)src[j];
        break;
    }
    }
}

/* ------------------------------------------------------- kernel names */

/* Type names as the demangled kernel names spell them. */
static const char *tname(int32_t dt) {
    switch (dt) {
    case DT_F32: return "float";
    case DT_F16: return "__half";
    case DT_BF16: return "__nv_bfloat16";
    case DT_I64: return "long";
    case DT_I32: return "int";
    case DT_I8: return "signed char";
    case DT_U8: return "unsigned char";
    default: return "bool8";
    }
}

static const char *wname(int32_t bytes) {
    return bytes == 1   ? "unsigned char"
           : bytes == 2 ? "unsigned short"
           : bytes == 4 ? "unsigned int"
                        : "unsigned long long";
}

/* sim_launch with the kernel name formatted (sim_core interns it) */
static void launch(oc_stream_t s, const struct sim_work *w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void launch(oc_stream_t s, const struct sim_work *w, const char *fmt, ...) {
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    sim_launch(name, (cudaStream_t)s, w);
}

/* ------------------------------------------------------------- checks */

static int fault(cudaError_t e) {
    sim_set_last_error(e);
    return (int)e;
}

#define CHECK_STREAM(call, s)                                                                      \
    do {                                                                                           \
        if (sim_stream(call, (cudaStream_t)(s)))                                                   \
            return fault(cudaErrorInvalidResourceHandle);                                          \
    } while (0)

/* sim_span on elements [lo, hi) of esz bytes from p; 1 on a fault */
static int span(const char *call, const char *what, const void *p, int64_t lo, int64_t hi, int64_t esz) {
    int64_t a, n, bytes;
    if (__builtin_mul_overflow(lo, esz, &a) || __builtin_sub_overflow(hi, lo, &n) ||
        __builtin_mul_overflow(n, esz, &bytes))
        return sim_fail(call, "%s: element offsets [%lld, %lld) overflow 64-bit byte offsets", what, (long long)lo,
                        (long long)hi);
    char desc[96];
    snprintf(desc, sizeof desc, "%s (elements %lld to %lld of %lld bytes)", what, (long long)lo, (long long)hi - 1,
             (long long)esz);
    return sim_span(call, desc, (const void *)((uintptr_t)p + (uintptr_t)a), (uint64_t)bytes);
}

/* ------------------------------------------------------- broadcasting */

/* kernels.cu's Bcast<K>: an index space and K stride arrays over it */
struct bc {
    int k;
    int32_t rank;
    int64_t dims[MAXR];
    int64_t st[3][MAXR];
};

/* bcast_init: the same checks in the same order. *n is the element count;
 * *ovf is set when it overflows int64 (kernels.cu does not check). */
static int bc_init(struct bc *b, int k, int32_t rank, const int64_t *dims, const int64_t *const *st, int64_t *n,
                   int *ovf) {
    if (rank < 0 || rank > MAXR)
        return INVALID;
    if (rank > 0 && !dims)
        return INVALID;
    for (int j = 0; j < k; ++j)
        if (rank > 0 && !st[j])
            return INVALID;
    memset(b, 0, sizeof *b);
    b->k = k;
    b->rank = rank;
    *n = 1;
    *ovf = 0;
    int zero = 0;
    for (int d = 0; d < rank; ++d) {
        if (dims[d] < 0)
            return INVALID;
        b->dims[d] = dims[d];
        zero |= dims[d] == 0;
        if (__builtin_mul_overflow(*n, dims[d], n))
            *ovf = 1;
        for (int j = 0; j < k; ++j)
            b->st[j][d] = st[j][d];
    }
    if (zero) {
        *n = 0;
        *ovf = 0;
    }
    return 0;
}

/* bcast_coalesce, verbatim */
static void bc_coalesce(struct bc *b) {
    int r = 0;
    for (int d = 0; d < b->rank; ++d) {
        int64_t n = b->dims[d];
        if (n == 1)
            continue;
        int merge = r > 0;
        for (int k = 0; k < b->k && merge; ++k)
            merge = b->st[k][r - 1] == b->st[k][d] * n;
        if (merge) {
            b->dims[r - 1] *= n;
            for (int k = 0; k < b->k; ++k)
                b->st[k][r - 1] = b->st[k][d];
        } else {
            b->dims[r] = n;
            for (int k = 0; k < b->k; ++k)
                b->st[k][r] = b->st[k][d];
            ++r;
        }
    }
    b->rank = r;
}

/* Elements [*lo, *hi) that array k touches from base over a nonempty index
 * space (strides of either sign); 1 when an offset overflows int64. */
static int bc_extent(const struct bc *b, int k, int64_t base, int64_t *lo, int64_t *hi) {
    int64_t l = base, h = base;
    for (int d = 0; d < b->rank; ++d) {
        int64_t t;
        if (__builtin_mul_overflow(b->dims[d] - 1, b->st[k][d], &t))
            return 1;
        if (t < 0 ? __builtin_add_overflow(l, t, &l) : __builtin_add_overflow(h, t, &h))
            return 1;
    }
    if (__builtin_add_overflow(h, 1, &h))
        return 1;
    *lo = l;
    *hi = h;
    return 0;
}

/* span() of array k of b from base */
static int bc_span(const char *call, const char *what, const struct bc *b, int k, const void *p, int64_t base,
                   int64_t esz) {
    int64_t lo, hi;
    if (bc_extent(b, k, base, &lo, &hi))
        return sim_fail(call, "%s: offset %lld plus strides overflow int64", what, (long long)base);
    return span(call, what, p, lo, hi, esz);
}

/* Distinct elements array k reads (dims with a nonzero stride): its DRAM traffic. */
static double bc_footprint(const struct bc *b, int k) {
    double f = 1;
    for (int d = 0; d < b->rank; ++d)
        if (b->st[k][d] != 0)
            f *= (double)b->dims[d];
    return f;
}

/* Walks the index space row by row: a row is the innermost (coalesced) dim,
 * len elements, array k at off[k] + j*ist[k]; the output of binary/Where is
 * contiguous, row r at r*len. */
struct walk {
    const struct bc *b;
    int64_t idx[MAXR];
    int64_t off[3];
    int64_t len, ist[3];
    int64_t rows;
};

static void walk_init(struct walk *w, const struct bc *b, int64_t n, const int64_t *base) {
    memset(w, 0, sizeof *w);
    w->b = b;
    for (int k = 0; k < b->k; ++k) {
        w->off[k] = base ? base[k] : 0;
        w->ist[k] = b->rank ? b->st[k][b->rank - 1] : 0;
    }
    w->len = b->rank ? b->dims[b->rank - 1] : 1;
    w->rows = n / w->len;
}

/* to the next row (only between rows: offsets stay inside the extent) */
static void walk_next(struct walk *w) {
    const struct bc *b = w->b;
    for (int d = b->rank - 2; d >= 0; --d) {
        ++w->idx[d];
        for (int k = 0; k < b->k; ++k)
            w->off[k] += b->st[k][d];
        if (w->idx[d] < b->dims[d])
            return;
        for (int k = 0; k < b->k; ++k)
            w->off[k] -= b->dims[d] * b->st[k][d];
        w->idx[d] = 0;
    }
}

/* --------------------------------------------------------------- work */

/*
 * Work accounting (struct sim_work), per element unless noted; FP32
 * instruction classes only (fadd, fmul, ffma; an FMA counts once), with
 * float16/bfloat16 data counted there too since the kernels compute them in
 * float. Min/max, comparisons, rounding, conversions and MUFU ops (ex2, lg2,
 * rsq, rcp, sin, cos) are no fadd/fmul/ffma and count 0. Library functions
 * are rough fixed estimates of their fast paths:
 *   fill, NOT, Where, copy, Gather, Cast, L2 flush: none;
 *   unary: the table below;
 *   binary float: add/sub 1 fadd, mul 1 fmul, div 1 fmul + 4 ffma (rcp and
 *     Newton), pow 2 fmul + 12 ffma, max/min and comparisons 0; integer and
 *     logic ops 0;
 *   LayerNormalization: 3 fadd (sum, x - mean twice) + 1 ffma (sum of
 *     squares) + 2 fmul (times rstd, times scale; with a bias the second is
 *     an ffma); per row two block sums over 256 threads, 2 x (256 + 32) x 5
 *     fadd, and the per-thread mean and rstd, 256 fmul + 256 ffma.
 * dram_read: each input's distinct elements (a broadcast dim reads once),
 * Gather's gathered rows plus its indices, the flush's buffer; dram_write:
 * every output element once, 8 bytes for the flush's sink.
 */
struct fwork {
    double fadd, fmul, ffma;
};

#define OC_BINARY(...)
#define OC_EW_ALIAS(onnx, code)
static const struct fwork k_unary_work[] = {
#define OC_UNARY(code, onnx, alpha, beta, lo, hi, fadd, fmul, ffma, expr) [OC_EW_##code] = {fadd, fmul, ffma},
#include "eltwise.def"
#undef OC_UNARY
};
_Static_assert(sizeof k_unary_work / sizeof k_unary_work[0] == (size_t)OC_EW_UNARY_END, "one row per unary code");
#undef OC_BINARY

#define OC_UNARY(...)
static struct fwork binary_work(int32_t op) {
    switch (op) {
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, ...)                                                          \
    case OC_EW_##code:                                                                                               \
        return (struct fwork){fadd, fmul, ffma};
#include "eltwise.def"
#undef OC_BINARY
    default:
        return (struct fwork){0, 0, 0};
    }
}
#undef OC_UNARY
#undef OC_EW_ALIAS

/* ---------------------------------------------------------------- fill */

int oc_k_fill(void *p, int32_t dtype, int64_t n, int32_t fill, double lo, double hi, uint64_t seed, oc_stream_t s) {
    static const char *const call = "oc_k_fill";
    if (n < 0 || (n > 0 && !p))
        return INVALID;
    if (fill != OC_FILL_UNIFORM && fill != OC_FILL_INDEX && fill != OC_FILL_MASK)
        return INVALID;
    const int sz = dtype_bytes(dtype);
    if (!sz)
        return NOT_SUPPORTED;
    int64_t ilo = 0, ihi = 0;
    if (fill == OC_FILL_INDEX) {
        const double lim = 9.2e18;
        if (!(lo >= -lim && lo <= lim && hi >= -lim && hi <= lim))
            return INVALID;
        ilo = (int64_t)lo;
        ihi = (int64_t)hi;
    }
    if (n == 0)
        return 0;
    CHECK_STREAM(call, s);
    if (span(call, "p", p, 0, n, sz))
        return fault(cudaErrorIllegalAddress);

    float fv[CH];
    int64_t iv[CH];
    for (int64_t i0 = 0; i0 < n; i0 += CH) {
        const int64_t m = n - i0 < CH ? n - i0 : CH;
        if (fill == OC_FILL_UNIFORM) {
            for (int64_t j = 0; j < m; ++j)
                fv[j] = oc_rp_uniform(seed, (uint64_t)(i0 + j), lo, hi);
            if (is_fp(dtype)) {
                store_f(dtype, p, i0, fv, m);
                continue;
            }
            for (int64_t j = 0; j < m; ++j)
                iv[j] = f2i64(floorf(fv[j]));
        } else if (fill == OC_FILL_INDEX) {
            for (int64_t j = 0; j < m; ++j)
                iv[j] = oc_rp_index(seed, (uint64_t)(i0 + j), ilo, ihi);
        } else {
            for (int64_t j = 0; j < m; ++j)
                iv[j] = oc_rp_mask(seed, (uint64_t)(i0 + j));
        }
        store_i(dtype, p, i0, iv, m);
    }
    struct sim_work w = {0};
    w.dram_write = (double)n * sz;
    launch(s, &w, "void k_fill<%s>(%s*, long, int, double, double, long, long, unsigned long)", tname(dtype),
           tname(dtype));
    return 0;
}

/* --------------------------------------------------------------- unary */

/* v[j] = unary_op<op>(v[j], alpha, beta) */
static void unary_chunk(int32_t op, float *v, int64_t m, float alpha, float beta) {
#define EACH(expr)                                                                                 \
    for (int64_t j = 0; j < m; ++j) {                                                              \
        const float x = v[j];                                                                      \
        v[j] = (expr);                                                                             \
    }                                                                                              \
    break
    (void)alpha;
    (void)beta;
    switch (op) {
#define OC_UNARY(code, onnx, a, b, lo, hi, fadd, fmul, ffma, expr)                                                 \
    case OC_EW_##code:                                                                                               \
        EACH(expr);
#define OC_BINARY(...)
#define OC_EW_ALIAS(onnx, code)
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
    default:
        break;
    }
#undef EACH
}

int oc_k_unary(int32_t op, int32_t dtype, const void *x, const void *bias, int64_t bias_n, void *y, int64_t n,
               double alpha, double beta, oc_stream_t s) {
    static const char *const call = "oc_k_unary";
    if (n < 0 || (n > 0 && (!x || !y)) || (bias && bias_n <= 0))
        return INVALID;
    if (op == OC_EW_NOT) {
        if (dtype != DT_BOOL || bias)
            return NOT_SUPPORTED;
        if (n == 0)
            return 0;
        CHECK_STREAM(call, s);
        if (span(call, "x", x, 0, n, 1) || span(call, "y", y, 0, n, 1))
            return fault(cudaErrorIllegalAddress);
        const uint8_t *xb = x;
        uint8_t *yb = y;
        for (int64_t i = 0; i < n; ++i)
            yb[i] = xb[i] == 0;
        struct sim_work w = {0};
        w.dram_read = w.dram_write = (double)n;
        launch(s, &w, "void k_not(const bool8*, bool8*, long)");
        return 0;
    }
    if (op < 0 || op >= OC_EW_UNARY_END || !is_fp(dtype))
        return NOT_SUPPORTED;
    if (n == 0)
        return 0;
    const int sz = dtype_bytes(dtype);
    CHECK_STREAM(call, s);
    if (span(call, "x", x, 0, n, sz) || span(call, "y", y, 0, n, sz) ||
        (bias && span(call, "bias", bias, 0, bias_n < n ? bias_n : n, sz)))
        return fault(cudaErrorIllegalAddress);
    const float a = (float)alpha, b = (float)beta;
    const int64_t nb = bias ? (bias_n < n ? bias_n : n) : 0; /* the bias elements k_unary reads */
    float v[CH], *bf = nb ? malloc((size_t)nb * sizeof *bf) : NULL;
    if (nb && !bf) {
        sim_fail(call, "out of host memory for a %lld-element bias", (long long)nb);
        return fault(cudaErrorMemoryAllocation);
    }
    if (nb)
        load_f(dtype, bias, 0, 1, bf, nb);
    for (int64_t i0 = 0; i0 < n; i0 += CH) {
        const int64_t m = n - i0 < CH ? n - i0 : CH;
        load_f(dtype, x, i0, 1, v, m);
        for (int64_t j = 0; nb && j < m; ++j) /* v += bias[i % bias_n], as k_unary adds it */
            v[j] += bf[(i0 + j) % bias_n];
        unary_chunk(op, v, m, a, b);
        store_f(dtype, y, i0, v, m);
    }
    free(bf);
    const struct fwork f = k_unary_work[op];
    struct sim_work w = {0};
    w.fadd = (f.fadd + (bias ? 1 : 0)) * (double)n;
    w.fmul = f.fmul * (double)n;
    w.ffma = f.ffma * (double)n;
    w.dram_read = (double)(n + nb) * sz;
    w.dram_write = (double)n * sz;
    const char *t = tname(dtype);
    launch(s, &w, "void k_unary<%d, %s>(const %s*, const %s*, long, %s*, long, float, float)", (int)op, t, t, t, t);
    return 0;
}

/* -------------------------------------------------------------- binary */

static int is_cmp(int32_t op) { return oc_rp_ew_kind(op) == OC_EWK_CMP; }
static int is_logic(int32_t op) { return oc_rp_ew_kind(op) == OC_EWK_LOGIC; }

#define OC_UNARY(...)
#define OC_EW_ALIAS(onnx, code)

/* x[j] = x[j] OP z[j] in float (replay/eltwise.def) */
static void fbin_chunk(int32_t op, float *xs, const float *zs, int64_t m) {
#define EACH(expr)                                                                                 \
    for (int64_t j = 0; j < m; ++j) {                                                              \
        const float x = xs[j], y = zs[j];                                                          \
        xs[j] = (float)(expr);                                                                     \
    }                                                                                              \
    break
    switch (op) {
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    case OC_EW_##code:                                                                                               \
        EACH(fexpr);
#include "eltwise.def"
#undef OC_BINARY
    default:
        break;
    }
#undef EACH
}

/* x[j] = x[j] OP z[j] in wrapping int64; division by 0 gives 0 */
static void ibin_chunk(int32_t op, int64_t *xs, const int64_t *zs, int64_t m) {
#define EACH(expr)                                                                                 \
    for (int64_t j = 0; j < m; ++j) {                                                              \
        const int64_t x = xs[j], y = zs[j];                                                        \
        const uint64_t ux = (uint64_t)x, uy = (uint64_t)y;                                         \
        (void)ux;                                                                                  \
        (void)uy;                                                                                  \
        xs[j] = (int64_t)(expr);                                                                   \
    }                                                                                              \
    break
    switch (op) {
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    case OC_EW_##code:                                                                                               \
        EACH(iexpr);
#include "eltwise.def"
#undef OC_BINARY
    default:
        break;
    }
#undef EACH
}

/* x CMP y (or x LOGIC y) as 0 or 1; long double holds every float and
 * every int64 exactly. Only the comparison and logic rows are evaluated. */
static int cmp_eval(int32_t op, long double x, long double y) {
    switch (op) {
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    case OC_EW_##code:                                                                                               \
        return kind == OC_EWK_CMP || kind == OC_EWK_LOGIC ? (int)(fexpr) : 0;
#include "eltwise.def"
#undef OC_BINARY
    default:
        return 0;
    }
}
#undef OC_UNARY
#undef OC_EW_ALIAS

int oc_k_binary(int32_t op, int32_t dtype_in, int32_t dtype_out, const void *a, const void *b, void *y, int32_t rank,
                const int64_t *dims, const int64_t *sa, const int64_t *sb, oc_stream_t s) {
    static const char *const call = "oc_k_binary";
    struct bc bc;
    int64_t n = 0;
    int ovf;
    const int64_t *const st[2] = {sa, sb};
    int rc = bc_init(&bc, 2, rank, dims, st, &n, &ovf);
    if (rc)
        return rc;
    if (n > 0 && (!a || !b || !y))
        return INVALID;
    bc_coalesce(&bc);
    if (op < OC_EW_ADD || op >= OC_EW_BINARY_END)
        return NOT_SUPPORTED;
    /* the dispatch of kernels.cu: logic bool -> bool; comparisons any -> bool;
       arithmetic float, or int64/int32 except Pow, same dtype out */
    const int logic = is_logic(op), cmp = is_cmp(op);
    const int int_arith = oc_rp_ew_kind(op) == OC_EWK_ARITH && (dtype_in == DT_I64 || dtype_in == DT_I32);
    if (logic) {
        if (dtype_in != DT_BOOL || dtype_out != DT_BOOL)
            return NOT_SUPPORTED;
    } else if (cmp) {
        if (dtype_out != DT_BOOL || !dtype_bytes(dtype_in))
            return NOT_SUPPORTED;
    } else {
        if (dtype_out != dtype_in || (!int_arith && !is_fp(dtype_in)))
            return NOT_SUPPORTED;
    }
    if (n == 0)
        return 0;
    CHECK_STREAM(call, s);
    const int szi = dtype_bytes(dtype_in), szo = dtype_bytes(dtype_out);
    if (ovf) {
        sim_fail(call, "the output's element count overflows int64");
        return fault(cudaErrorIllegalAddress);
    }
    if (bc_span(call, "a", &bc, 0, a, 0, szi) || bc_span(call, "b", &bc, 1, b, 0, szi) ||
        span(call, "y", y, 0, n, szo))
        return fault(cudaErrorIllegalAddress);

    struct walk wk;
    walk_init(&wk, &bc, n, NULL);
    const int fp = is_fp(dtype_in);
    for (int64_t r = 0; r < wk.rows; ++r) {
        if (r)
            walk_next(&wk);
        const int64_t oa = wk.off[0], ob = wk.off[1], ia = wk.ist[0], ib = wk.ist[1];
        const int64_t oy = r * wk.len;
        if (logic) {
            const uint8_t *pa = (const uint8_t *)a + oa, *pb = (const uint8_t *)b + ob;
            uint8_t *py = (uint8_t *)y + oy;
            for (int64_t j = 0; j < wk.len; ++j)
                py[j] = (uint8_t)cmp_eval(op, pa[j * ia] != 0, pb[j * ib] != 0);
            continue;
        }
        for (int64_t j0 = 0; j0 < wk.len; j0 += CH) {
            const int64_t m = wk.len - j0 < CH ? wk.len - j0 : CH;
            if (fp) {
                float fa[CH], fb[CH];
                load_f(dtype_in, a, oa + j0 * ia, ia, fa, m);
                load_f(dtype_in, b, ob + j0 * ib, ib, fb, m);
                if (cmp) {
                    uint8_t *py = (uint8_t *)y + oy + j0;
                    for (int64_t j = 0; j < m; ++j)
                        py[j] = (uint8_t)cmp_eval(op, fa[j], fb[j]);
                } else {
                    fbin_chunk(op, fa, fb, m);
                    store_f(dtype_out, y, oy + j0, fa, m);
                }
            } else {
                int64_t xa[CH], xb[CH];
                load_i(dtype_in, a, oa + j0 * ia, ia, xa, m);
                load_i(dtype_in, b, ob + j0 * ib, ib, xb, m);
                if (cmp) {
                    uint8_t *py = (uint8_t *)y + oy + j0;
                    for (int64_t j = 0; j < m; ++j)
                        py[j] = (uint8_t)cmp_eval(op, (long double)xa[j], (long double)xb[j]);
                } else {
                    ibin_chunk(op, xa, xb, m);
                    store_i(dtype_out, y, oy + j0, xa, m);
                }
            }
        }
    }
    struct sim_work w = {0};
    if (fp && !cmp) {
        const struct fwork f = binary_work(op);
        w.fadd = f.fadd * (double)n;
        w.fmul = f.fmul * (double)n;
        w.ffma = f.ffma * (double)n;
    }
    w.dram_read = (bc_footprint(&bc, 0) + bc_footprint(&bc, 1)) * szi;
    w.dram_write = (double)n * szo;
    launch(s, &w, "void k_binary<%d, %s, %s>(const %s*, const %s*, %s*, Bcast<2>, long)", (int)op, tname(dtype_in),
           tname(dtype_out), tname(dtype_in), tname(dtype_in), tname(dtype_out));
    return 0;
}

/* --------------------------------------------------------------- where */

int oc_k_where(int32_t dtype, const void *cond, const void *x, const void *y, void *out, int32_t rank,
               const int64_t *dims, const int64_t *sc, const int64_t *sx, const int64_t *sy, oc_stream_t s) {
    static const char *const call = "oc_k_where";
    struct bc bc;
    int64_t n = 0;
    int ovf;
    const int64_t *const st[3] = {sc, sx, sy};
    int rc = bc_init(&bc, 3, rank, dims, st, &n, &ovf);
    if (rc)
        return rc;
    if (n > 0 && (!cond || !x || !y || !out))
        return INVALID;
    const int sz = dtype_bytes(dtype);
    if (!sz)
        return NOT_SUPPORTED;
    if (n == 0)
        return 0;
    bc_coalesce(&bc);
    CHECK_STREAM(call, s);
    if (ovf) {
        sim_fail(call, "the output's element count overflows int64");
        return fault(cudaErrorIllegalAddress);
    }
    if (bc_span(call, "cond", &bc, 0, cond, 0, 1) || bc_span(call, "x", &bc, 1, x, 0, sz) ||
        bc_span(call, "y", &bc, 2, y, 0, sz) || span(call, "out", out, 0, n, sz))
        return fault(cudaErrorIllegalAddress);

    struct walk wk;
    walk_init(&wk, &bc, n, NULL);
    for (int64_t r = 0; r < wk.rows; ++r) {
        if (r)
            walk_next(&wk);
        const uint8_t *pc = (const uint8_t *)cond + wk.off[0];
        const int64_t ic = wk.ist[0], ix = wk.ist[1], iy = wk.ist[2], len = wk.len;
#define WHERE_ROW(W)                                                                               \
    do {                                                                                           \
        const W *px = (const W *)x + wk.off[1], *py = (const W *)y + wk.off[2];                    \
        W *po = (W *)out + r * len;                                                                \
        for (int64_t j = 0; j < len; ++j)                                                          \
            po[j] = pc[j * ic] ? px[j * ix] : py[j * iy];                                          \
    } while (0)
        switch (sz) {
        case 1: WHERE_ROW(uint8_t); break;
        case 2: WHERE_ROW(uint16_t); break;
        case 4: WHERE_ROW(uint32_t); break;
        default: WHERE_ROW(uint64_t); break;
        }
#undef WHERE_ROW
    }
    struct sim_work w = {0};
    w.dram_read = bc_footprint(&bc, 0) + (bc_footprint(&bc, 1) + bc_footprint(&bc, 2)) * sz;
    w.dram_write = (double)n * sz;
    const char *wn = wname(sz);
    launch(s, &w, "void k_where<%s>(const bool8*, const %s*, const %s*, %s*, Bcast<3>, long)", wn, wn, wn, wn);
    return 0;
}

/* ---------------------------------------------------------------- copy */

int oc_k_copy(int32_t elem_bytes, const void *in, void *out, const struct oc_rp_piece *p, oc_stream_t s) {
    static const char *const call = "oc_k_copy";
    if (!p)
        return INVALID;
    struct bc bc;
    int64_t n = 0;
    int ovf;
    const int64_t *const st[2] = {p->in_stride, p->out_stride};
    int rc = bc_init(&bc, 2, p->rank, p->dims, st, &n, &ovf);
    if (rc)
        return rc;
    if (n > 0 && (!in || !out))
        return INVALID;
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
        return NOT_SUPPORTED;
    if (n == 0)
        return 0;
    bc_coalesce(&bc);
    CHECK_STREAM(call, s);
    if (ovf) {
        sim_fail(call, "the piece's element count overflows int64");
        return fault(cudaErrorIllegalAddress);
    }
    if (bc_span(call, "in", &bc, 0, in, p->in_offset, elem_bytes) ||
        bc_span(call, "out", &bc, 1, out, p->out_offset, elem_bytes))
        return fault(cudaErrorIllegalAddress);

    struct walk wk;
    const int64_t base[2] = {p->in_offset, p->out_offset};
    walk_init(&wk, &bc, n, base);
    for (int64_t r = 0; r < wk.rows; ++r) {
        if (r)
            walk_next(&wk);
        const int64_t si = wk.ist[0], so = wk.ist[1], len = wk.len;
        if (si == 1 && so == 1) {
            memmove((char *)out + wk.off[1] * elem_bytes, (const char *)in + wk.off[0] * elem_bytes,
                    (size_t)(len * elem_bytes));
            continue;
        }
#define COPY_ROW(W)                                                                                \
    do {                                                                                           \
        const W *pi = (const W *)in + wk.off[0];                                                   \
        W *po = (W *)out + wk.off[1];                                                              \
        for (int64_t j = 0; j < len; ++j)                                                          \
            po[j * so] = pi[j * si];                                                               \
    } while (0)
        switch (elem_bytes) {
        case 1: COPY_ROW(uint8_t); break;
        case 2: COPY_ROW(uint16_t); break;
        case 4: COPY_ROW(uint32_t); break;
        default: COPY_ROW(uint64_t); break;
        }
#undef COPY_ROW
    }
    struct sim_work w = {0};
    w.dram_read = bc_footprint(&bc, 0) * elem_bytes;
    w.dram_write = (double)n * elem_bytes;
    /* no arithmetic, yet the FP16 instruction counters see register idioms
       (HADD2.F32 Rx, -RZ, RZ.H0_H0 zeroing a register): an H200 counted 2
       HADD per element of k_copy<unsigned int>. The replay must not take
       them for the node's FLOPs (model_flops) */
    w.hadd = 2.0 * (double)n;
    const char *wn = wname(elem_bytes);
    launch(s, &w, "void k_copy<%s>(const %s*, %s*, long, long, Bcast<2>, long)", wn, wn, wn);
    return 0;
}

/* -------------------------------------------------------------- gather */

int oc_k_gather(int32_t elem_bytes, const void *data, int32_t idx_dtype, const void *idx, void *out, int64_t outer,
                int64_t axis_dim, int64_t inner, int64_t n_idx, oc_stream_t s) {
    static const char *const call = "oc_k_gather";
    if (outer < 0 || axis_dim < 0 || inner < 0 || n_idx < 0)
        return INVALID;
    if (idx_dtype != DT_I64 && idx_dtype != DT_I32)
        return NOT_SUPPORTED;
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
        return NOT_SUPPORTED;
    int64_t n, nd;
    const int ovf = __builtin_mul_overflow(outer, n_idx, &n) || __builtin_mul_overflow(n, inner, &n);
    if (!ovf && n == 0)
        return 0;
    if (axis_dim == 0 || !data || !idx || !out)
        return INVALID;
    CHECK_STREAM(call, s);
    /* data is checked whole, [outer, axis_dim, inner]: the clamp makes
       every row of it reachable */
    if (ovf || __builtin_mul_overflow(outer, axis_dim, &nd) || __builtin_mul_overflow(nd, inner, &nd)) {
        sim_fail(call, "[%lld, %lld, %lld] with %lld indices overflows int64", (long long)outer, (long long)axis_dim,
                 (long long)inner, (long long)n_idx);
        return fault(cudaErrorIllegalAddress);
    }
    const int isz = idx_dtype == DT_I64 ? 8 : 4;
    if (span(call, "data", data, 0, nd, elem_bytes) || span(call, "idx", idx, 0, n_idx, isz) ||
        span(call, "out", out, 0, n, elem_bytes))
        return fault(cudaErrorIllegalAddress);
    for (int64_t j = 0; j < n_idx; ++j) {
        const int64_t k = isz == 8 ? ((const int64_t *)idx)[j] : ((const int32_t *)idx)[j];
        if (k < -axis_dim || k >= axis_dim) {
            sim_fail(call, "index %lld (idx[%lld]) is outside [-%lld, %lld)", (long long)k, (long long)j,
                     (long long)axis_dim, (long long)axis_dim);
            return fault(cudaErrorIllegalAddress);
        }
    }
    const size_t row = (size_t)(inner * elem_bytes);
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < n_idx; ++j) {
            int64_t k = isz == 8 ? ((const int64_t *)idx)[j] : ((const int32_t *)idx)[j];
            if (k < 0)
                k += axis_dim;
            memcpy((char *)out + (size_t)(o * n_idx + j) * row, (const char *)data + (size_t)(o * axis_dim + k) * row,
                   row);
        }
    struct sim_work w = {0};
    w.dram_read = (double)n * elem_bytes + (double)n_idx * isz;
    w.dram_write = (double)n * elem_bytes;
    const char *wn = wname(elem_bytes), *in = tname(idx_dtype);
    launch(s, &w, "void k_gather<%s, %s>(const %s*, const %s*, %s*, long, long, long, long)", wn, in, wn, in, wn);
    return 0;
}

/* ----------------------------------------------------------- layernorm */

/* warp_sum's butterfly over 32 lanes: lane l and l ^ o hold the same sum
 * (float addition commutes), so halving in place gives lane 0's value. */
static float warp_sum(float *v) {
    for (int o = 16; o > 0; o >>= 1)
        for (int l = 0; l < o; ++l)
            v[l] = v[l] + v[l + o];
    return v[0];
}

/* block_sum over 256 threads' partial sums (8 warps, then warp 0 over the
 * 8 warp sums and 24 zeros) */
static float block_sum(const float *part) {
    float v[32], top[32] = {0};
    for (int w = 0; w < 8; ++w) {
        memcpy(v, part + 32 * w, sizeof v);
        top[w] = warp_sum(v);
    }
    return warp_sum(top);
}

/* xv[0..m) += skip[row + c0 ..] + skip_bias[c0 ..], in k_layernorm's order */
static void skip_add(int32_t dtype, const void *skip, const void *sbias, int64_t row, int64_t c0, float *xv,
                     int64_t m) {
    float kv[CH];
    if (skip) {
        load_f(dtype, skip, row + c0, 1, kv, m);
        for (int64_t j = 0; j < m; ++j)
            xv[j] += kv[j];
    }
    if (sbias) {
        load_f(dtype, sbias, c0, 1, kv, m);
        for (int64_t j = 0; j < m; ++j)
            xv[j] += kv[j];
    }
}

int oc_k_layernorm(int32_t dtype, const void *x, const void *skip, const void *skip_bias, const void *scale,
                   const void *bias, void *y, int64_t rows, int64_t cols, double eps, oc_stream_t s) {
    static const char *const call = "oc_k_layernorm";
    if (rows < 0 || cols < 0)
        return INVALID;
    if (rows > 0 && cols > 0 && (!x || !scale || !y))
        return INVALID;
    if (!is_fp(dtype))
        return NOT_SUPPORTED;
    if (rows == 0 || cols == 0)
        return 0;
    const int sz = dtype_bytes(dtype);
    int64_t n;
    CHECK_STREAM(call, s);
    if (__builtin_mul_overflow(rows, cols, &n)) {
        sim_fail(call, "%lld rows of %lld overflow int64", (long long)rows, (long long)cols);
        return fault(cudaErrorIllegalAddress);
    }
    if (span(call, "x", x, 0, n, sz) || span(call, "scale", scale, 0, cols, sz) ||
        (bias && span(call, "bias", bias, 0, cols, sz)) || span(call, "y", y, 0, n, sz) ||
        (skip && span(call, "skip", skip, 0, n, sz)) || (skip_bias && span(call, "skip_bias", skip_bias, 0, cols, sz)))
        return fault(cudaErrorIllegalAddress);

    /* k_layernorm, one 256-thread block per row: thread t sums columns
       t, t + 256, ... in order; nvcc contracts s += d * d and the biased
       output into FMAs */
    const float inv_cols = 1.f / (float)cols, e = (float)eps;
    float part[256], xv[CH], sv[CH], bv[CH];
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t row = r * cols;
        memset(part, 0, sizeof part);
        for (int64_t c0 = 0; c0 < cols; c0 += CH) {
            const int64_t m = cols - c0 < CH ? cols - c0 : CH;
            load_f(dtype, x, row + c0, 1, xv, m);
            skip_add(dtype, skip, skip_bias, row, c0, xv, m);
            for (int64_t j = 0; j < m; ++j)
                part[(c0 + j) & 255] += xv[j];
        }
        const float mean = block_sum(part) * inv_cols;
        memset(part, 0, sizeof part);
        for (int64_t c0 = 0; c0 < cols; c0 += CH) {
            const int64_t m = cols - c0 < CH ? cols - c0 : CH;
            load_f(dtype, x, row + c0, 1, xv, m);
            skip_add(dtype, skip, skip_bias, row, c0, xv, m);
            for (int64_t j = 0; j < m; ++j) {
                const float d = xv[j] - mean;
                float *ps = &part[(c0 + j) & 255];
                *ps = fmaf(d, d, *ps);
            }
        }
        const float rstd = 1.f / sqrtf(fmaf(block_sum(part), inv_cols, e));
        for (int64_t c0 = 0; c0 < cols; c0 += CH) {
            const int64_t m = cols - c0 < CH ? cols - c0 : CH;
            load_f(dtype, x, row + c0, 1, xv, m);
            skip_add(dtype, skip, skip_bias, row, c0, xv, m);
            load_f(dtype, scale, c0, 1, sv, m);
            if (bias) {
                load_f(dtype, bias, c0, 1, bv, m);
                for (int64_t j = 0; j < m; ++j)
                    xv[j] = fmaf((xv[j] - mean) * rstd, sv[j], bv[j]);
            } else {
                for (int64_t j = 0; j < m; ++j)
                    xv[j] = (xv[j] - mean) * rstd * sv[j];
            }
            store_f(dtype, y, row + c0, xv, m);
        }
    }
    struct sim_work w = {0};
    const double dn = (double)n, dr = (double)rows;
    const int adds = (skip ? 1 : 0) + (skip_bias ? 1 : 0); /* per element, in each of the three passes */
    w.fadd = (3 + 3 * adds) * dn + dr * 2 * (256 + 32) * 5;
    w.fmul = (bias ? 1 : 2) * dn + dr * 256;
    w.ffma = (bias ? 2 : 1) * dn + dr * 256;
    w.dram_read = (dn * (skip ? 2 : 1) + (double)cols * ((bias ? 2 : 1) + (skip_bias ? 1 : 0))) * sz;
    w.dram_write = dn * sz;
    const char *t = tname(dtype);
    launch(s, &w, "void k_layernorm<%s>(const %s*, const %s*, const %s*, const %s*, const %s*, %s*, long, long, float)",
           t, t, t, t, t, t, t);
    return 0;
}

/* ---------------------------------------------------------------- cast */

int oc_k_cast(int32_t from, int32_t to, const void *x, void *y, int64_t n, oc_stream_t s) {
    static const char *const call = "oc_k_cast";
    if (n < 0 || (n > 0 && (!x || !y)))
        return INVALID;
    const int szf = dtype_bytes(from), szt = dtype_bytes(to);
    if (!szf || !szt)
        return NOT_SUPPORTED;
    if (n == 0)
        return 0;
    CHECK_STREAM(call, s);
    if (span(call, "x", x, 0, n, szf) || span(call, "y", y, 0, n, szt))
        return fault(cudaErrorIllegalAddress);
    /* convert<To, From>: from a float type through float, from an integer
       or bool through int64 */
    float fv[CH];
    int64_t iv[CH];
    for (int64_t i0 = 0; i0 < n; i0 += CH) {
        const int64_t m = n - i0 < CH ? n - i0 : CH;
        if (is_fp(from)) {
            load_f(from, x, i0, 1, fv, m);
            store_f(to, y, i0, fv, m);
        } else {
            load_i(from, x, i0, 1, iv, m);
            store_i(to, y, i0, iv, m);
        }
    }
    struct sim_work w = {0};
    w.dram_read = (double)n * szf;
    w.dram_write = (double)n * szt;
    launch(s, &w, "void k_cast<%s, %s>(const %s*, %s*, long)", tname(from), tname(to), tname(from), tname(to));
    return 0;
}

/* ------------------------------------------------------------ L2 flush */

int oc_k_l2_flush(const void *buf, int64_t bytes, unsigned long long *sink, oc_stream_t s) {
    static const char *const call = "oc_k_l2_flush";
    if (bytes < 0 || bytes % 16 != 0)
        return INVALID;
    if (bytes == 0)
        return 0;
    if (!buf || !sink || ((uintptr_t)buf & 15))
        return INVALID;
    CHECK_STREAM(call, s);
    if (span(call, "buf", buf, 0, bytes, 1) || span(call, "sink", sink, 0, 1, 8))
        return fault(cudaErrorIllegalAddress);
    /* k_l2_flush xors every 32-bit word of buf into one word and atomically
       xors that into *sink: the same as xoring the 64-bit words and folding */
    uint64_t tmp[512], acc = 0;
    for (int64_t o = 0; o < bytes; o += (int64_t)sizeof tmp) {
        const int64_t m = bytes - o < (int64_t)sizeof tmp ? bytes - o : (int64_t)sizeof tmp;
        memcpy(tmp, (const char *)buf + o, (size_t)m);
        for (int64_t j = 0; j < m / 8; ++j)
            acc ^= tmp[j];
    }
    *sink ^= (unsigned long long)(uint32_t)(acc ^ acc >> 32);
    struct sim_work w = {0};
    w.dram_read = (double)bytes;
    w.dram_write = 8;
    sim_launch("k_l2_flush", (cudaStream_t)s, &w);
    return 0;
}
