/*
 * kernels.h — the small CUDA kernels of the replay (replay/gpu/kernels.cu), for
 * the ops cuDNN and cuBLAS do not cover. Launchers are extern "C", launch
 * on the given stream, do not synchronize, and return a cudaError_t as int
 * (0 = cudaSuccess; cudaErrorNotSupported for a dtype they do not handle).
 *
 * dtypes are ONNX codes. Float kernels take 1 (float), 10 (float16) and
 * 16 (bfloat16) and compute in float; fill, copy, gather, cast, Where and
 * the comparisons also take 7 (int64), 6 (int32), 3 (int8), 2 (uint8) and
 * 9 (bool, one byte); binary arithmetic takes int64 and int32 only.
 */
#ifndef OC_REPLAY_KERNELS_H
#define OC_REPLAY_KERNELS_H

#include "plan.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *oc_stream_t; /* = cudaStream_t */

/* Fills n elements with oc_rp_* of fill.h: UNIFORM (float dtypes, and
 * integer dtypes rounded down), INDEX and MASK (any dtype). */
int oc_k_fill(void *p, int32_t dtype, int64_t n, int32_t fill, double lo, double hi, uint64_t seed,
              oc_stream_t s);
/* y[i] = f(x[i] + bias[i % bias_n]) for op < OC_EW_UNARY_END; alpha/beta as
 * in struct oc_rp_eltwise; bias may be NULL (then bias_n is ignored). NOT
 * takes and gives bool, with no bias. */
int oc_k_unary(int32_t op, int32_t dtype, const void *x, const void *bias, int64_t bias_n, void *y, int64_t n,
               double alpha, double beta, oc_stream_t s);
/* y[i] = a[off_a(i)] OP b[off_b(i)] over an output of `rank` dims with
 * broadcast strides sa/sb (elements, 0 on broadcast dims). Comparisons give
 * bool (dtype_out 9); AND/OR take and give bool. */
int oc_k_binary(int32_t op, int32_t dtype_in, int32_t dtype_out, const void *a, const void *b, void *y, int32_t rank,
                const int64_t *dims, const int64_t *sa, const int64_t *sb, oc_stream_t s);
/* out[i] = cond[off_c(i)] ? x[off_x(i)] : y[off_y(i)]; cond is bool. */
int oc_k_where(int32_t dtype, const void *cond, const void *x, const void *y, void *out, int32_t rank,
               const int64_t *dims, const int64_t *sc, const int64_t *sx, const int64_t *sy, oc_stream_t s);
/* One strided copy (struct oc_rp_piece) of elements of elem_bytes (1, 2, 4, 8). */
int oc_k_copy(int32_t elem_bytes, const void *in, void *out, const struct oc_rp_piece *p, oc_stream_t s);
/* out[o, j, i] = data[o, idx[j], i] with data [outer, axis_dim, inner] and
 * n_idx indices of idx_dtype (7 or 6); a negative index counts from the end. */
int oc_k_gather(int32_t elem_bytes, const void *data, int32_t idx_dtype, const void *idx, void *out, int64_t outer,
                int64_t axis_dim, int64_t inner, int64_t n_idx, oc_stream_t s);
/* y = (v - mean) / sqrt(var + eps) * scale + bias per row of `cols`, with
 * v = x + skip + skip_bias (ORT's SkipLayerNormalization; skip is [rows,
 * cols], skip_bias [cols]); bias, skip and skip_bias may be NULL. */
int oc_k_layernorm(int32_t dtype, const void *x, const void *skip, const void *skip_bias, const void *scale,
                   const void *bias, void *y, int64_t rows, int64_t cols, double eps, oc_stream_t s);
/* y[i] = (to)x[i] between any two supported dtypes. */
int oc_k_cast(int32_t from, int32_t to, const void *x, void *y, int64_t n, oc_stream_t s);
/* Reads bytes of buf (a multiple of 16) and writes one word to sink: evicts
 * the L2 with clean lines (a memset would leave dirty ones for the next
 * kernel to write back). */
int oc_k_l2_flush(const void *buf, int64_t bytes, unsigned long long *sink, oc_stream_t s);

#ifdef __cplusplus
}
#endif

#endif
