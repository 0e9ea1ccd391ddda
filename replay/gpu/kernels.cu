/*
 * kernels.cu — the replay's own CUDA kernels (see kernels.h): fills of the
 * inputs, elementwise unary and binary ops and Where with broadcasting,
 * strided copies, Gather, LayerNormalization, Cast and the L2 flush run
 * between timed launches.
 *
 * Element types are C++ templates; each extern "C" launcher checks its
 * arguments, picks the instantiation from the ONNX dtype code, launches on
 * the caller's stream and returns cudaGetLastError(). Half and bfloat16 are
 * computed in float. ONNX bool is one byte (struct bool8 below).
 *
 * All kernels take 256-thread blocks and walk their index space with 64-bit
 * grid-stride loops, so any size fits the capped grid. Nothing here
 * allocates, synchronizes or prints.
 */
#include "kernels.h"

#include "fill.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>

#include <type_traits>

namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxGrid = 65535 * 8;
constexpr int kNotSupported = (int)cudaErrorNotSupported;
constexpr int kInvalid = (int)cudaErrorInvalidValue;

/* Blocks for n elements, one per 256 up to kMaxGrid (the loops stride). */
unsigned grid_for(int64_t n) {
    int64_t b = n / kBlock + (n % kBlock != 0);
    return (unsigned)(b < kMaxGrid ? b : kMaxGrid);
}

/* for (i = 0; i < n; ++i) spread over the whole grid, in 64 bits. */
#define OC_GRID_LOOP(i, n)                                                                        \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x,                             \
                 i##_step = (int64_t)gridDim.x * blockDim.x;                                      \
         i < (n); i += i##_step)

/* ---------------------------------------------------------------- types */

/* ONNX bool: one byte, 0 or 1 (read as nonzero). A distinct type so that
 * templates tell it from uint8. */
struct bool8 {
    uint8_t v;
};

template <typename T> struct is_fp : std::false_type {};
template <> struct is_fp<float> : std::true_type {};
template <> struct is_fp<__half> : std::true_type {};
template <> struct is_fp<__nv_bfloat16> : std::true_type {};

template <typename T> constexpr bool is_bool = std::is_same<T, bool8>::value;

/* float types to float */
__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

/* integer types (bool included) to int64 */
__device__ __forceinline__ int64_t to_i(bool8 x) { return x.v != 0; }
template <typename T> __device__ __forceinline__ int64_t to_i(T x) { return (int64_t)x; }

/* float to a float type, rounding to nearest */
template <typename T> __device__ __forceinline__ T from_f(float f) {
    if constexpr (std::is_same<T, __half>::value)
        return __float2half_rn(f);
    else if constexpr (std::is_same<T, __nv_bfloat16>::value)
        return __float2bfloat16_rn(f);
    else
        return f;
}

/* int64 to any type: floats round, bool is != 0, narrower integers wrap */
template <typename T> __device__ __forceinline__ T from_i(int64_t v) {
    if constexpr (is_fp<T>::value)
        return from_f<T>((float)v);
    else if constexpr (is_bool<T>)
        return bool8{(uint8_t)(v != 0)};
    else
        return (T)v;
}

/* Any supported type to any other (Cast). Float to integer truncates toward
 * zero into int64 (the device conversion saturates, NaN gives 0) and then
 * wraps to the width; anything to bool is x != 0. */
template <typename To, typename From> __device__ __forceinline__ To convert(From x) {
    if constexpr (is_fp<From>::value) {
        float f = to_f(x);
        if constexpr (is_fp<To>::value)
            return from_f<To>(f);
        else if constexpr (is_bool<To>)
            return bool8{(uint8_t)(f != 0.f)};
        else
            return (To)(int64_t)f;
    } else {
        return from_i<To>(to_i(x));
    }
}

/* ------------------------------------------------------------ dispatch */

/* The launchers turn a runtime code into a template argument by calling a
 * generic lambda with a tag; the lambda returns the launcher's result. */
template <typename T> struct type_tag {
    using type = T;
};

template <typename F> int with_float_type(int32_t dtype, F &&f) {
    switch (dtype) {
    case 1: return f(type_tag<float>{});
    case 10: return f(type_tag<__half>{});
    case 16: return f(type_tag<__nv_bfloat16>{});
    default: return kNotSupported;
    }
}

template <typename F> int with_int_type(int32_t dtype, F &&f) {
    switch (dtype) {
    case 7: return f(type_tag<int64_t>{});
    case 6: return f(type_tag<int32_t>{});
    case 3: return f(type_tag<int8_t>{});
    case 2: return f(type_tag<uint8_t>{});
    case 9: return f(type_tag<bool8>{});
    default: return kNotSupported;
    }
}

template <typename F> int with_any_type(int32_t dtype, F &&f) {
    if (dtype == 1 || dtype == 10 || dtype == 16)
        return with_float_type(dtype, f);
    return with_int_type(dtype, f);
}

/* An unsigned word of `bytes` bytes: kernels that only move data. */
template <typename F> int with_word(int32_t bytes, F &&f) {
    switch (bytes) {
    case 1: return f(type_tag<uint8_t>{});
    case 2: return f(type_tag<uint16_t>{});
    case 4: return f(type_tag<uint32_t>{});
    case 8: return f(type_tag<unsigned long long>{});
    default: return kNotSupported;
    }
}

/* The byte size of an ONNX dtype the kernels handle, 0 for others. */
int dtype_bytes(int32_t dtype) {
    switch (dtype) {
    case 7: return 8;
    case 1: case 6: return 4;
    case 10: case 16: return 2;
    case 3: case 2: case 9: return 1;
    default: return 0;
    }
}

/* Calls f(std::integral_constant<int, op>) for op in [OP, END). */
template <int OP, int END, typename F> int with_op(int32_t op, F &&f) {
    if constexpr (OP >= END) {
        (void)op;
        (void)f;
        return kNotSupported;
    } else {
        if (op == OP)
            return f(std::integral_constant<int, OP>{});
        return with_op<OP + 1, END>(op, f);
    }
}

/* ---------------------------------------------------------- broadcasting */

/* An index space of `rank` dims and K stride arrays over it (elements; 0 on
 * a broadcast dim). Passed to kernels by value. */
template <int K> struct Bcast {
    int32_t rank;
    int64_t dims[OC_RP_MAX_RANK];
    int64_t st[K][OC_RP_MAX_RANK];
};

/* Fills b from the caller's arrays and counts the elements in *n. */
template <int K>
int bcast_init(Bcast<K> *b, int32_t rank, const int64_t *dims, const int64_t *const st[K], int64_t *n) {
    if (rank < 0 || rank > OC_RP_MAX_RANK)
        return kInvalid;
    if (rank > 0 && !dims)
        return kInvalid;
    for (int k = 0; k < K; ++k)
        if (rank > 0 && !st[k])
            return kInvalid;
    *b = Bcast<K>{};
    b->rank = rank;
    *n = 1;
    for (int d = 0; d < rank; ++d) {
        if (dims[d] < 0)
            return kInvalid;
        b->dims[d] = dims[d];
        *n *= dims[d];
        for (int k = 0; k < K; ++k)
            b->st[k][d] = st[k][d];
    }
    return 0;
}

/* Drops dims of size 1 and merges a dim into the one outside it wherever
 * every stride array walks the pair as one run (outer stride = inner
 * stride * inner size; broadcast dims, stride 0, merge with each other).
 * A contiguous tensor becomes rank 1, a scalar rank 0. The output of
 * binary/Where is contiguous and always merges, so only the inputs'
 * strides are checked there; a copy lists its output strides too. */
template <int K> void bcast_coalesce(Bcast<K> *b) {
    int r = 0;
    for (int d = 0; d < b->rank; ++d) {
        int64_t n = b->dims[d];
        if (n == 1)
            continue;
        bool merge = r > 0;
        for (int k = 0; k < K && merge; ++k)
            merge = b->st[k][r - 1] == b->st[k][d] * n;
        if (merge) {
            b->dims[r - 1] *= n;
            for (int k = 0; k < K; ++k)
                b->st[k][r - 1] = b->st[k][d];
        } else {
            b->dims[r] = n;
            for (int k = 0; k < K; ++k)
                b->st[k][r] = b->st[k][d];
            ++r;
        }
    }
    b->rank = r;
}

/* The K offsets of linear index i (row-major over b.dims). The loop is
 * unrolled over the fixed maximum rank so the struct stays in parameter
 * space; the outermost dim takes what is left of i, without a division. */
template <int K> __device__ __forceinline__ void bcast_offsets(const Bcast<K> &b, int64_t i, int64_t (&off)[K]) {
#pragma unroll
    for (int k = 0; k < K; ++k)
        off[k] = 0;
#pragma unroll
    for (int d = OC_RP_MAX_RANK - 1; d >= 0; --d) {
        if (d < b.rank) {
            int64_t c = i;
            if (d > 0) {
                c = i % b.dims[d];
                i /= b.dims[d];
            }
#pragma unroll
            for (int k = 0; k < K; ++k)
                off[k] += c * b.st[k][d];
        }
    }
}

/* ----------------------------------------------------------- reductions */

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ unsigned warp_xor(unsigned v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v ^= __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Sum over the block (whole warps), returned to every thread; sh holds 33
 * floats. Ends with a barrier so sh can be reused at once. */
__device__ float block_sum(float v, float *sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    v = warp_sum(v);
    if (lane == 0)
        sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? sh[lane] : 0.f;
        v = warp_sum(v);
        if (lane == 0)
            sh[32] = v;
    }
    __syncthreads();
    v = sh[32];
    __syncthreads();
    return v;
}

/* --------------------------------------------------------------- kernels */

template <typename T>
__global__ void k_fill(T *p, int64_t n, int32_t fill, double lo, double hi, int64_t ilo, int64_t ihi, uint64_t seed) {
    OC_GRID_LOOP(i, n) {
        const uint64_t u = (uint64_t)i;
        if (fill == OC_FILL_UNIFORM) {
            const float f = oc_rp_uniform(seed, u, lo, hi);
            if constexpr (is_fp<T>::value)
                p[i] = from_f<T>(f);
            else
                p[i] = from_i<T>((int64_t)floorf(f));
        } else if (fill == OC_FILL_INDEX) {
            p[i] = from_i<T>(oc_rp_index(seed, u, ilo, ihi));
        } else {
            p[i] = from_i<T>(oc_rp_mask(seed, u));
        }
    }
}

/* The float unary ops of replay/eltwise.def; alpha and beta as in struct
 * oc_rp_eltwise. */
template <int OP> __device__ __forceinline__ float unary_op(float x, float alpha, float beta) {
    (void)alpha;
    (void)beta;
    if constexpr (OP < 0) {
        return x;
    }
#define OC_UNARY(code, onnx, a, b, lo, hi, fadd, fmul, ffma, expr)                                                 \
    else if constexpr (OP == OC_EW_##code) return (expr);
#define OC_BINARY(...)
#define OC_EW_ALIAS(onnx, code)
#include "../eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
    else {
        static_assert(OP < 0, "not a float unary op");
        return x;
    }
}

/* bias (bn elements, may be NULL) is added first, along the last dim */
template <int OP, typename T>
__global__ void k_unary(const T *x, const T *bias, int64_t bn, T *y, int64_t n, float alpha, float beta) {
    OC_GRID_LOOP(i, n) {
        float v = to_f(x[i]);
        if (bias)
            v += to_f(bias[i % bn]);
        y[i] = from_f<T>(unary_op<OP>(v, alpha, beta));
    }
}

__global__ void k_not(const bool8 *x, bool8 *y, int64_t n) {
    OC_GRID_LOOP(i, n) y[i] = bool8{(uint8_t)(x[i].v == 0)};
}

__host__ __device__ constexpr bool is_cmp(int op) { return oc_rp_ew_kind(op) == OC_EWK_CMP; }
__host__ __device__ constexpr bool is_logic(int op) { return oc_rp_ew_kind(op) == OC_EWK_LOGIC; }

/* One binary op of replay/eltwise.def: logic on bool; comparisons of any
 * type to bool; arithmetic in float for float types, in wrapping int64 for
 * int64/int32 (division by zero gives 0 instead of the hardware's garbage). */
template <int OP, typename TI, typename TO> __device__ __forceinline__ TO binary_op(TI a, TI b) {
#define OC_UNARY(...)
#define OC_EW_ALIAS(onnx, code)
    if constexpr (is_logic(OP)) {
        static_assert(is_bool<TI> && is_bool<TO>, "logic ops are on bool");
        const bool x = a.v != 0, y = b.v != 0;
        bool r = false;
        if constexpr (OP < 0) {
        }
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    else if constexpr (OP == OC_EW_##code) r = (fexpr);
#include "../eltwise.def"
#undef OC_BINARY
        return bool8{(uint8_t)r};
    } else if constexpr (is_cmp(OP)) {
        bool r = false;
        if constexpr (is_fp<TI>::value) {
            const float x = to_f(a), y = to_f(b);
            if constexpr (OP < 0) {
            }
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    else if constexpr (OP == OC_EW_##code) r = (fexpr);
#include "../eltwise.def"
#undef OC_BINARY
        } else {
            const int64_t x = to_i(a), y = to_i(b);
            if constexpr (OP < 0) {
            }
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    else if constexpr (OP == OC_EW_##code) r = (fexpr);
#include "../eltwise.def"
#undef OC_BINARY
        }
        return bool8{(uint8_t)r};
    } else if constexpr (is_fp<TI>::value) {
        const float x = to_f(a), y = to_f(b);
        float r = 0.f;
        if constexpr (OP < 0) {
        }
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    else if constexpr (OP == OC_EW_##code) r = (fexpr);
#include "../eltwise.def"
#undef OC_BINARY
        else static_assert(OP < 0, "not a float binary op");
        return from_f<TO>(r);
    } else {
        const int64_t x = to_i(a), y = to_i(b);
        /* +, -, * in unsigned: two's complement wrap without signed overflow */
        const uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        (void)ux;
        (void)uy;
        int64_t r = 0;
        if constexpr (OP < 0) {
        }
#define OC_BINARY(code, onnx, kind, fadd, fmul, ffma, fexpr, iexpr)                                                \
    else if constexpr (OP == OC_EW_##code && kind == OC_EWK_ARITH) r = (iexpr);
#include "../eltwise.def"
#undef OC_BINARY
        else static_assert(OP < 0, "not an integer binary op");
        return (TO)r;
    }
#undef OC_UNARY
#undef OC_EW_ALIAS
}

template <int OP, typename TI, typename TO>
__global__ void k_binary(const TI *a, const TI *b, TO *y, Bcast<2> bc, int64_t n) {
    OC_GRID_LOOP(i, n) {
        int64_t off[2];
        bcast_offsets(bc, i, off);
        y[i] = binary_op<OP, TI, TO>(a[off[0]], b[off[1]]);
    }
}

/* Where moves words: the dtype only sets their size. */
template <typename W>
__global__ void k_where(const bool8 *c, const W *x, const W *y, W *out, Bcast<3> bc, int64_t n) {
    OC_GRID_LOOP(i, n) {
        int64_t off[3];
        bcast_offsets(bc, i, off);
        out[i] = c[off[0]].v ? x[off[1]] : y[off[2]];
    }
}

/* st[0] is the input's strides, st[1] the output's; either may be negative. */
template <typename W>
__global__ void k_copy(const W *in, W *out, int64_t in_off, int64_t out_off, Bcast<2> bc, int64_t n) {
    OC_GRID_LOOP(i, n) {
        int64_t off[2];
        bcast_offsets(bc, i, off);
        out[out_off + off[1]] = in[in_off + off[0]];
    }
}

/* out [outer, n_idx, inner] from data [outer, axis_dim, inner]; indices
 * outside [-axis_dim, axis_dim) are clamped into range. */
template <typename W, typename I>
__global__ void k_gather(const W *data, const I *idx, W *out, int64_t axis_dim, int64_t inner, int64_t n_idx,
                         int64_t n) {
    OC_GRID_LOOP(o, n) {
        const int64_t i = o % inner, t = o / inner;
        const int64_t j = t % n_idx, outer = t / n_idx;
        int64_t k = (int64_t)idx[j];
        if (k < 0)
            k += axis_dim;
        k = k < 0 ? 0 : k >= axis_dim ? axis_dim - 1 : k;
        out[o] = data[(outer * axis_dim + k) * inner + i];
    }
}

/* One block per row (the grid strides over rows). Two passes over the row
 * for mean and variance (float sums), a third to write; the row is usually
 * still in L1/L2 for the second and third. */
template <typename T>
__global__ void k_layernorm(const T *x, const T *skip, const T *sbias, const T *scale, const T *bias, T *y,
                            int64_t rows, int64_t cols, float eps) {
    __shared__ float sh[33];
    const float inv_cols = 1.f / (float)cols;
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T *xr = x + r * cols;
        const T *kr = skip ? skip + r * cols : nullptr;
        T *yr = y + r * cols;
        /* the normalized value: x, plus SkipLayerNormalization's skip and bias */
        auto in = [&](int64_t c) {
            float v = to_f(xr[c]);
            if (kr)
                v += to_f(kr[c]);
            if (sbias)
                v += to_f(sbias[c]);
            return v;
        };
        float s = 0.f;
        for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
            s += in(c);
        const float mean = block_sum(s, sh) * inv_cols;
        s = 0.f;
        for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            const float d = in(c) - mean;
            s += d * d;
        }
        const float rstd = rsqrtf(block_sum(s, sh) * inv_cols + eps);
        for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
            float v = (in(c) - mean) * rstd * to_f(scale[c]);
            if (bias)
                v += to_f(bias[c]);
            yr[c] = from_f<T>(v);
        }
    }
}

template <typename From, typename To> __global__ void k_cast(const From *x, To *y, int64_t n) {
    OC_GRID_LOOP(i, n) y[i] = convert<To>(x[i]);
}

/* Reads n uint4 through L2 only (ld.global.cg: L1 bypassed), xor-folds them
 * and xors one word per block into *sink: the result depends on every load,
 * so none can be dropped, and the only store is the sink. */
__global__ void k_l2_flush(const uint4 *buf, int64_t n, unsigned long long *sink) {
    __shared__ unsigned sh[32];
    unsigned acc = 0;
    OC_GRID_LOOP(i, n) {
        const uint4 v = __ldcg(buf + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    acc = warp_xor(acc);
    if ((threadIdx.x & 31) == 0)
        sh[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned r = 0;
        for (unsigned w = 0; w < (blockDim.x + 31) / 32; ++w)
            r ^= sh[w];
        atomicXor(sink, (unsigned long long)r);
    }
}

/* Blocks of the L2 flush: enough to saturate memory on any current GPU,
 * few enough that the per-block atomics on one word stay negligible. */
constexpr int64_t kFlushGrid = 4096;

/* ------------------------------------------------------------ launchers */

template <int OP, typename TI, typename TO>
int launch_binary(const void *a, const void *b, void *y, const Bcast<2> &bc, int64_t n, cudaStream_t s) {
    k_binary<OP, TI, TO><<<grid_for(n), kBlock, 0, s>>>((const TI *)a, (const TI *)b, (TO *)y, bc, n);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int oc_k_fill(void *p, int32_t dtype, int64_t n, int32_t fill, double lo, double hi, uint64_t seed,
                         oc_stream_t s) {
    if (n < 0 || (n > 0 && !p))
        return kInvalid;
    if (fill != OC_FILL_UNIFORM && fill != OC_FILL_INDEX && fill != OC_FILL_MASK)
        return kInvalid;
    if (!dtype_bytes(dtype))
        return kNotSupported;
    /* INDEX's bounds become int64 here, as the host tests convert them */
    int64_t ilo = 0, ihi = 0;
    if (fill == OC_FILL_INDEX) {
        const double lim = 9.2e18;
        if (!(lo >= -lim && lo <= lim && hi >= -lim && hi <= lim))
            return kInvalid;
        ilo = (int64_t)lo;
        ihi = (int64_t)hi;
    }
    if (n == 0)
        return 0;
    return with_any_type(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        k_fill<T><<<grid_for(n), kBlock, 0, s>>>((T *)p, n, fill, lo, hi, ilo, ihi, seed);
        return (int)cudaGetLastError();
    });
}

extern "C" int oc_k_unary(int32_t op, int32_t dtype, const void *x, const void *bias, int64_t bias_n, void *y,
                          int64_t n, double alpha, double beta, oc_stream_t s) {
    if (n < 0 || (n > 0 && (!x || !y)) || (bias && bias_n <= 0))
        return kInvalid;
    if (op == OC_EW_NOT) {
        if (dtype != 9 || bias)
            return kNotSupported;
        if (n == 0)
            return 0;
        k_not<<<grid_for(n), kBlock, 0, s>>>((const bool8 *)x, (bool8 *)y, n);
        return (int)cudaGetLastError();
    }
    if (op < 0 || op >= OC_EW_UNARY_END || (dtype != 1 && dtype != 10 && dtype != 16))
        return kNotSupported;
    if (n == 0)
        return 0;
    const float a = (float)alpha, b = (float)beta;
    return with_float_type(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        return with_op<OC_EW_IDENTITY, OC_EW_UNARY_END>(op, [&](auto o) {
            constexpr int OP = decltype(o)::value;
            if constexpr (OP == OC_EW_NOT) {
                return kNotSupported; /* handled above; bool only */
            } else {
                k_unary<OP, T><<<grid_for(n), kBlock, 0, s>>>((const T *)x, (const T *)bias, bias_n, (T *)y, n, a,
                                                              b);
                return (int)cudaGetLastError();
            }
        });
    });
}

extern "C" int oc_k_binary(int32_t op, int32_t dtype_in, int32_t dtype_out, const void *a, const void *b, void *y,
                           int32_t rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, oc_stream_t s) {
    Bcast<2> bc;
    int64_t n = 0;
    const int64_t *const st[2] = {sa, sb};
    int rc = bcast_init<2>(&bc, rank, dims, st, &n);
    if (rc)
        return rc;
    if (n > 0 && (!a || !b || !y))
        return kInvalid;
    bcast_coalesce(&bc);
    return with_op<OC_EW_ADD, OC_EW_BINARY_END>(op, [&](auto o) -> int {
        constexpr int OP = decltype(o)::value;
        if constexpr (is_logic(OP)) {
            if (dtype_in != 9 || dtype_out != 9)
                return kNotSupported;
            return n ? launch_binary<OP, bool8, bool8>(a, b, y, bc, n, s) : 0;
        } else if constexpr (is_cmp(OP)) {
            if (dtype_out != 9)
                return kNotSupported;
            return with_any_type(dtype_in, [&](auto t) {
                using T = typename decltype(t)::type;
                return n ? launch_binary<decltype(o)::value, T, bool8>(a, b, y, bc, n, s) : 0;
            });
        } else {
            if (dtype_out != dtype_in)
                return kNotSupported;
            if constexpr (oc_rp_ew_kind(OP) == OC_EWK_ARITH) {
                if (dtype_in == 7)
                    return n ? launch_binary<OP, int64_t, int64_t>(a, b, y, bc, n, s) : 0;
                if (dtype_in == 6)
                    return n ? launch_binary<OP, int32_t, int32_t>(a, b, y, bc, n, s) : 0;
            }
            return with_float_type(dtype_in, [&](auto t) {
                using T = typename decltype(t)::type;
                return n ? launch_binary<decltype(o)::value, T, T>(a, b, y, bc, n, s) : 0;
            });
        }
    });
}

extern "C" int oc_k_where(int32_t dtype, const void *cond, const void *x, const void *y, void *out, int32_t rank,
                          const int64_t *dims, const int64_t *sc, const int64_t *sx, const int64_t *sy,
                          oc_stream_t s) {
    Bcast<3> bc;
    int64_t n = 0;
    const int64_t *const st[3] = {sc, sx, sy};
    int rc = bcast_init<3>(&bc, rank, dims, st, &n);
    if (rc)
        return rc;
    if (n > 0 && (!cond || !x || !y || !out))
        return kInvalid;
    const int bytes = dtype_bytes(dtype);
    if (!bytes)
        return kNotSupported;
    if (n == 0)
        return 0;
    bcast_coalesce(&bc);
    return with_word(bytes, [&](auto t) {
        using W = typename decltype(t)::type;
        k_where<W><<<grid_for(n), kBlock, 0, s>>>((const bool8 *)cond, (const W *)x, (const W *)y, (W *)out, bc, n);
        return (int)cudaGetLastError();
    });
}

extern "C" int oc_k_copy(int32_t elem_bytes, const void *in, void *out, const struct oc_rp_piece *p, oc_stream_t s) {
    if (!p)
        return kInvalid;
    Bcast<2> bc;
    int64_t n = 0;
    const int64_t *const st[2] = {p->in_stride, p->out_stride};
    int rc = bcast_init<2>(&bc, p->rank, p->dims, st, &n);
    if (rc)
        return rc;
    if (n > 0 && (!in || !out))
        return kInvalid;
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
        return kNotSupported;
    if (n == 0)
        return 0;
    bcast_coalesce(&bc);
    return with_word(elem_bytes, [&](auto t) {
        using W = typename decltype(t)::type;
        k_copy<W><<<grid_for(n), kBlock, 0, s>>>((const W *)in, (W *)out, p->in_offset, p->out_offset, bc, n);
        return (int)cudaGetLastError();
    });
}

extern "C" int oc_k_gather(int32_t elem_bytes, const void *data, int32_t idx_dtype, const void *idx, void *out,
                           int64_t outer, int64_t axis_dim, int64_t inner, int64_t n_idx, oc_stream_t s) {
    if (outer < 0 || axis_dim < 0 || inner < 0 || n_idx < 0)
        return kInvalid;
    if (idx_dtype != 7 && idx_dtype != 6)
        return kNotSupported;
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8)
        return kNotSupported;
    const int64_t n = outer * n_idx * inner;
    if (n == 0)
        return 0;
    /* an index into an empty axis has nothing to clamp to */
    if (axis_dim == 0 || !data || !idx || !out)
        return kInvalid;
    return with_word(elem_bytes, [&](auto t) {
        using W = typename decltype(t)::type;
        if (idx_dtype == 7)
            k_gather<W, int64_t><<<grid_for(n), kBlock, 0, s>>>((const W *)data, (const int64_t *)idx, (W *)out,
                                                                axis_dim, inner, n_idx, n);
        else
            k_gather<W, int32_t><<<grid_for(n), kBlock, 0, s>>>((const W *)data, (const int32_t *)idx, (W *)out,
                                                                axis_dim, inner, n_idx, n);
        return (int)cudaGetLastError();
    });
}

extern "C" int oc_k_layernorm(int32_t dtype, const void *x, const void *skip, const void *skip_bias,
                              const void *scale, const void *bias, void *y, int64_t rows, int64_t cols, double eps,
                              oc_stream_t s) {
    if (rows < 0 || cols < 0)
        return kInvalid;
    if (rows > 0 && cols > 0 && (!x || !scale || !y))
        return kInvalid;
    return with_float_type(dtype, [&](auto t) {
        using T = typename decltype(t)::type;
        if (rows == 0 || cols == 0)
            return 0;
        const unsigned grid = (unsigned)(rows < kMaxGrid ? rows : kMaxGrid);
        k_layernorm<T><<<grid, kBlock, 0, s>>>((const T *)x, (const T *)skip, (const T *)skip_bias,
                                               (const T *)scale, (const T *)bias, (T *)y, rows, cols, (float)eps);
        return (int)cudaGetLastError();
    });
}

extern "C" int oc_k_cast(int32_t from, int32_t to, const void *x, void *y, int64_t n, oc_stream_t s) {
    if (n < 0 || (n > 0 && (!x || !y)))
        return kInvalid;
    if (!dtype_bytes(from) || !dtype_bytes(to))
        return kNotSupported;
    if (n == 0)
        return 0;
    return with_any_type(from, [&](auto tf) {
        using From = typename decltype(tf)::type;
        return with_any_type(to, [&](auto tt) {
            using To = typename decltype(tt)::type;
            k_cast<From, To><<<grid_for(n), kBlock, 0, s>>>((const From *)x, (To *)y, n);
            return (int)cudaGetLastError();
        });
    });
}

extern "C" int oc_k_l2_flush(const void *buf, int64_t bytes, unsigned long long *sink, oc_stream_t s) {
    if (bytes < 0 || bytes % 16 != 0)
        return kInvalid;
    if (bytes == 0)
        return 0;
    if (!buf || !sink || ((uintptr_t)buf & 15))
        return kInvalid;
    const int64_t n = bytes / 16;
    const unsigned grid = (unsigned)(grid_for(n) < kFlushGrid ? grid_for(n) : kFlushGrid);
    k_l2_flush<<<grid, kBlock, 0, s>>>((const uint4 *)buf, n, sink);
    return (int)cudaGetLastError();
}
