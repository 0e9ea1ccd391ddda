/*
 * sim_blas.c — ocsim's fake cuBLAS (sim.h, tests/sim/README.md): the cuBLAS
 * 13 calls replay/gpu/plugin.c makes, with the argument checks the cuBLAS
 * reference documents for them.
 *
 * Handles are ocsim objects (sim.h), kept in the list of live objects: a
 * NULL or destroyed handle fails with CUBLAS_STATUS_NOT_INITIALIZED instead
 * of being dereferenced. A handle
 * holds its stream (cublasSetStream, which also drops a user workspace, as
 * the reference says), math mode and workspace (cublasSetWorkspace: 256-byte
 * aligned, inside one allocation, and still live at every GEMM).
 *
 * GEMMs (column-major, C = alpha*op(A)*op(B) + beta*C; the reference's
 * INVALID_VALUE rules): m, n, k, batchCount >= 0; trans N, T or C; lda >=
 * max(1, transa == N ? m : k), ldb >= max(1, transb == N ? k : n), ldc >=
 * max(1, m); alpha, beta non-NULL (host pointers: the pointer mode is never
 * changed), C non-NULL when beta != 0; the compute/scale/A-B/C type table of
 * cublasGemmEx (NOT_SUPPORTED outside it); a valid algo. Every matrix must
 * lie inside one live allocation: ((cols-1)*ld + rows) elements, plus
 * (batch-1)*stride for the strided batch (A and B strides may be 0 or
 * overlap); cublasGemmBatchedEx's pointer arrays are device memory, checked
 * over batchCount pointers, then read (ocsim's device memory is host memory)
 * and each matrix checked. A violation prints one "ocsim: CALL: ..." line
 * (sim_fail); a buffer out of bounds (where the real kernel would fault)
 * returns CUBLAS_STATUS_EXECUTION_FAILED.
 *
 * Work of one GEMM (one sim_launch on the handle's stream; m or n or the
 * batch 0: no kernel, as cuBLAS returns at once): MACs = m*n*k*batch (x4 for
 * complex types). Tensor cores (tensor = 2*MACs) for the _FAST_ compute types,
 * for COMPUTE_32F with 16-bit or 8-bit inputs whatever the math mode (the
 * header leaves CUBLAS_PEDANTIC_MATH's effect on them open), for COMPUTE_16F
 * unless the math mode is CUBLAS_PEDANTIC_MATH, for COMPUTE_32F with FP32 inputs under the
 * TF32 / tensor-op / BF16x9 math modes, and for the integer compute types;
 * else ffma (COMPUTE_32F[_PEDANTIC]), hfma (COMPUTE_16F[_PEDANTIC]) or dfma
 * (COMPUTE_64F*) = MACs. The blend: alpha != 1 adds one multiply per element
 * of C, beta != 0 one FMA and a read of C, in the scale type's class. DRAM:
 * each A and B matrix read once per batch entry (once for a stride of 0),
 * C written.
 * Single-threaded, like the plugin.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cublas_v2.h>
#include "sim.h"
#pragma GCC diagnostic pop

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- handles ---------------------------------------------------------------------------- */

struct cublasContext {
    struct sim_obj o;           /* a live ocsim object (sim.h) */
    cudaStream_t stream;
    cublasMath_t math;
    bool user_ws;       /* cublasSetWorkspace since the last cublasSetStream */
    void *ws;
    size_t ws_bytes;
};

#define SPAN(what, p, bytes)                                                                       \
    do {                                                                                           \
        if (sim_span(call, (what), (p), (bytes)))                                                  \
            return CUBLAS_STATUS_EXECUTION_FAILED;                                                 \
    } while (0)
#define INVAL CUBLAS_STATUS_INVALID_VALUE

static struct cublasContext *sb_handle(const char *call, cublasHandle_t h) {
    if (!h) {
        sim_fail(call, "handle is NULL");
        return NULL;
    }
    struct sim_obj *o = sim_obj_live(h);
    if (o && o->kind == SIM_OBJ_CUBLAS)
        return (struct cublasContext *)o;
    sim_fail(call, "handle %p is not a live cuBLAS handle (destroyed, or never created)", (void *)h);
    return NULL;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
    const char *call = "cublasCreate";
    SIM_REQ(handle, INVAL, "handle is NULL");
    struct cublasContext *c = sim_obj_new(SIM_OBJ_CUBLAS, sizeof *c);
    SIM_REQ(c, CUBLAS_STATUS_ALLOC_FAILED, "out of host memory");
    c->math = CUBLAS_DEFAULT_MATH;
    *handle = c;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    struct cublasContext *c = sb_handle("cublasDestroy", handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    sim_obj_free(c);
    return CUBLAS_STATUS_SUCCESS;
}

/* Reference: "unconditionally resets the cuBLAS library workspace back to
   the default workspace pool" */
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
    const char *call = "cublasSetStream";
    struct cublasContext *c = sb_handle(call, handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (sim_stream(call, streamId))
        return INVAL;
    c->stream = streamId;
    c->user_ws = false;
    c->ws = NULL;
    c->ws_bytes = 0;
    return CUBLAS_STATUS_SUCCESS;
}

/* Reference: INVALID_VALUE when the workspace is not aligned to 256 bytes */
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes) {
    const char *call = "cublasSetWorkspace";
    struct cublasContext *c = sb_handle(call, handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    SIM_REQ((uintptr_t)workspace % 256 == 0, INVAL, "workspace %p is not aligned to 256 bytes", workspace);
    if (workspaceSizeInBytes && sim_span(call, "workspace", workspace, workspaceSizeInBytes))
        return INVAL;
    c->user_ws = true;
    c->ws = workspace;
    c->ws_bytes = workspaceSizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

/* Reference: a cublasMath_t, optionally | CUBLAS_MATH_DISALLOW_REDUCED_
   PRECISION_REDUCTION (not with the deprecated CUBLAS_TENSOR_OP_MATH) */
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    const char *call = __func__;
    struct cublasContext *c = sb_handle(call, handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    int flag = (int)mode & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, base = (int)mode & ~flag;
    bool ok = base == CUBLAS_DEFAULT_MATH || base == CUBLAS_PEDANTIC_MATH || base == CUBLAS_TF32_TENSOR_OP_MATH ||
              base == CUBLAS_FP32_EMULATED_BF16X9_MATH || base == CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH ||
              (base == CUBLAS_TENSOR_OP_MATH && !flag);
    SIM_REQ(ok, INVAL, "mode %d is not a valid cublasMath_t", (int)mode);
    c->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value) {
    const char *call = __func__;
    SIM_REQ(value, INVAL, "value is NULL");
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    default: break;
    }
    sim_fail(call, "type %d is not a libraryPropertyType", (int)type);
    return INVAL;
}

/* the status names (the real call returns a description, "the library was
   not initialized"; cublasGetStatusName the name) */
const char *cublasGetStatusString(cublasStatus_t status) {
    switch (status) {
#define SB_NAME(s) case s: return #s;
    SB_NAME(CUBLAS_STATUS_SUCCESS)
    SB_NAME(CUBLAS_STATUS_NOT_INITIALIZED)
    SB_NAME(CUBLAS_STATUS_ALLOC_FAILED)
    SB_NAME(CUBLAS_STATUS_INVALID_VALUE)
    SB_NAME(CUBLAS_STATUS_ARCH_MISMATCH)
    SB_NAME(CUBLAS_STATUS_MAPPING_ERROR)
    SB_NAME(CUBLAS_STATUS_EXECUTION_FAILED)
    SB_NAME(CUBLAS_STATUS_INTERNAL_ERROR)
    SB_NAME(CUBLAS_STATUS_NOT_SUPPORTED)
    SB_NAME(CUBLAS_STATUS_LICENSE_ERROR)
#undef SB_NAME
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

/* ---- GEMM ------------------------------------------------------------------------------------ */

struct sb_gemm {
    cublasOperation_t ta, tb;
    int m, n, k;
    const void *alpha, *beta;
    cudaDataType at, bt, ct;
    int lda, ldb, ldc;
    int batch;
    cublasComputeType_t comp;
    cublasGemmAlgo_t algo;
};

/* bytes of one element of the matrix types the GEMMs take; 0 otherwise */
static unsigned sb_esize(cudaDataType t) {
    switch (t) {
    case CUDA_R_8I: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: case CUDA_C_8I: return 2;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

static bool sb_complex(cudaDataType t) {
    return t == CUDA_C_8I || t == CUDA_C_32F || t == CUDA_C_64F;
}

/* the reference's cublasGemmEx table (also the batched calls'): the scale
   type (alpha, beta) of a compute type and A/B and C types, or -1 when the
   combination is not supported */
static int sb_scale_type(cublasComputeType_t comp, cudaDataType ab, cudaDataType c) {
    switch (comp) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
        return ab == CUDA_R_16F && c == CUDA_R_16F ? CUDA_R_16F : -1;
    case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC:
        return ab == CUDA_R_8I && c == CUDA_R_32I ? CUDA_R_32I : -1;
    case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC:
        if ((ab == CUDA_R_16BF && (c == CUDA_R_16BF || c == CUDA_R_32F)) ||
            (ab == CUDA_R_16F && (c == CUDA_R_16F || c == CUDA_R_32F)) || (ab == CUDA_R_8I && c == CUDA_R_32F) ||
            (ab == CUDA_R_32F && c == CUDA_R_32F))
            return CUDA_R_32F;
        return (ab == CUDA_C_8I || ab == CUDA_C_32F) && c == CUDA_C_32F ? CUDA_C_32F : -1;
    case CUBLAS_COMPUTE_32F_FAST_16F: case CUBLAS_COMPUTE_32F_FAST_16BF: case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9:
        return ab == CUDA_R_32F && c == CUDA_R_32F ? CUDA_R_32F : ab == CUDA_C_32F && c == CUDA_C_32F ? CUDA_C_32F : -1;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
        return ab == CUDA_R_64F && c == CUDA_R_64F ? CUDA_R_64F : ab == CUDA_C_64F && c == CUDA_C_64F ? CUDA_C_64F : -1;
    default: return -1;
    }
}

static bool sb_comp_valid(cublasComputeType_t comp) {
    switch (comp) {
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC: case CUBLAS_COMPUTE_32F_FAST_16F: case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32: case CUBLAS_COMPUTE_32F_EMULATED_16BFX9: case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC: case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT: case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
        return true;
    default:
        return false;
    }
}

static bool sb_algo_valid(cublasGemmAlgo_t a) {
    int v = (int)a;
    return v == CUBLAS_GEMM_DEFAULT || (v >= CUBLAS_GEMM_ALGO0 && v <= CUBLAS_GEMM_ALGO23) ||
           (v >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && v <= CUBLAS_GEMM_ALGO15_TENSOR_OP) || v == CUBLAS_GEMM_AUTOTUNE;
}

/* the scale value: is it 1, is it 0 */
static void sb_scal(const void *p, int scale, bool *one, bool *zero) {
    switch (scale) {
    case CUDA_R_16F: {
        uint16_t h;
        memcpy(&h, p, sizeof h);
        *one = h == 0x3c00;
        *zero = (h & 0x7fff) == 0;
        return;
    }
    case CUDA_R_32I: {
        int32_t v = *(const int32_t *)p;
        *one = v == 1;
        *zero = v == 0;
        return;
    }
    case CUDA_R_64F: case CUDA_C_64F: {
        const double *d = p;
        double im = scale == CUDA_C_64F ? d[1] : 0.0;
        *one = d[0] == 1.0 && im == 0.0;
        *zero = d[0] == 0.0 && im == 0.0;
        return;
    }
    default: { /* CUDA_R_32F, CUDA_C_32F */
        const float *f = p;
        float im = scale == CUDA_C_32F ? f[1] : 0.0f;
        *one = f[0] == 1.0f && im == 0.0f;
        *zero = f[0] == 0.0f && im == 0.0f;
        return;
    }
    }
}

/* rows and columns of the stored A, B, C (column-major) */
static void sb_shape(const struct sb_gemm *g, int which, int *rows, int *cols) {
    if (which == 0) {
        *rows = g->ta == CUBLAS_OP_N ? g->m : g->k;
        *cols = g->ta == CUBLAS_OP_N ? g->k : g->m;
    } else if (which == 1) {
        *rows = g->tb == CUBLAS_OP_N ? g->k : g->n;
        *cols = g->tb == CUBLAS_OP_N ? g->n : g->k;
    } else {
        *rows = g->m;
        *cols = g->n;
    }
}

/* elements from a matrix's first to one past its last: (cols-1)*ld + rows */
static uint64_t sb_mat_elems(const struct sb_gemm *g, int which) {
    int rows, cols;
    sb_shape(g, which, &rows, &cols);
    int ld = which == 0 ? g->lda : which == 1 ? g->ldb : g->ldc;
    return rows == 0 || cols == 0 ? 0 : (uint64_t)(cols - 1) * (uint64_t)ld + (uint64_t)rows;
}

static double sb_mat_bytes(const struct sb_gemm *g, int which) {
    int rows, cols;
    sb_shape(g, which, &rows, &cols);
    cudaDataType t = which == 0 ? g->at : which == 1 ? g->bt : g->ct;
    return (double)rows * cols * sb_esize(t);
}

/* the reference's checks of every GEMM call; *scale: the alpha/beta type */
static cublasStatus_t sb_check(const char *call, const struct sb_gemm *g, int *scale) {
    SIM_REQ(g->m >= 0 && g->n >= 0 && g->k >= 0, INVAL, "m %d, n %d, k %d (each must be >= 0)", g->m, g->n, g->k);
    SIM_REQ(g->batch >= 0, INVAL, "batchCount %d is negative", g->batch);
    for (int i = 0; i < 2; i++) {
        cublasOperation_t t = i ? g->tb : g->ta;
        SIM_REQ(t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C, INVAL, "trans%c %d is not N, T or C",
            i ? 'b' : 'a', (int)t);
    }
    int ra = g->ta == CUBLAS_OP_N ? g->m : g->k, rb = g->tb == CUBLAS_OP_N ? g->k : g->n;
    SIM_REQ(g->lda >= (ra > 1 ? ra : 1), INVAL, "lda %d < max(1, %s) = %d", g->lda, g->ta == CUBLAS_OP_N ? "m" : "k",
        ra > 1 ? ra : 1);
    SIM_REQ(g->ldb >= (rb > 1 ? rb : 1), INVAL, "ldb %d < max(1, %s) = %d", g->ldb, g->tb == CUBLAS_OP_N ? "k" : "n",
        rb > 1 ? rb : 1);
    SIM_REQ(g->ldc >= (g->m > 1 ? g->m : 1), INVAL, "ldc %d < max(1, m) = %d", g->ldc, g->m > 1 ? g->m : 1);
    SIM_REQ(g->alpha && g->beta, INVAL, "alpha or beta is NULL");
    SIM_REQ(sb_comp_valid(g->comp), INVAL, "computeType %d is not a cublasComputeType_t", (int)g->comp);
    SIM_REQ(sb_algo_valid(g->algo), INVAL, "algo %d is not a cublasGemmAlgo_t", (int)g->algo);
    *scale = g->at == g->bt ? sb_scale_type(g->comp, g->at, g->ct) : -1;
    SIM_REQ(*scale >= 0, CUBLAS_STATUS_NOT_SUPPORTED,
        "computeType %d with Atype %d, Btype %d, Ctype %d is not a supported combination", (int)g->comp, (int)g->at,
        (int)g->bt, (int)g->ct);
    return CUBLAS_STATUS_SUCCESS;
}

enum sb_path { SB_TENSOR, SB_FFMA, SB_HFMA, SB_DFMA };

static enum sb_path sb_path(const struct sb_gemm *g, cublasMath_t math) {
    int base = (int)math & ~(int)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    switch (g->comp) {
    case CUBLAS_COMPUTE_32F_FAST_16F: case CUBLAS_COMPUTE_32F_FAST_16BF: case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9: case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC:
        return SB_TENSOR;
    case CUBLAS_COMPUTE_32F:
        if (g->at == CUDA_R_32F || g->at == CUDA_C_32F)
            return base == CUBLAS_TF32_TENSOR_OP_MATH || base == CUBLAS_TENSOR_OP_MATH ||
                           base == CUBLAS_FP32_EMULATED_BF16X9_MATH
                       ? SB_TENSOR
                       : SB_FFMA;
        /* 16-bit inputs: cublas_api.h ties CUBLAS_PEDANTIC_MATH to the pedantic
           compute types only for the legacy calls, so ocsim takes the reading a
           GPU may give: tensor cores whatever the math mode (strict FP32 must ask
           for CUBLAS_COMPUTE_32F_PEDANTIC) */
        return SB_TENSOR;
    case CUBLAS_COMPUTE_16F:
        return base == CUBLAS_PEDANTIC_MATH ? SB_HFMA : SB_TENSOR;
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        return SB_HFMA;
    case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT:
        return SB_DFMA;
    default:
        return SB_FFMA; /* COMPUTE_32F_PEDANTIC */
    }
}

#define SB_K4(pre, post) {pre "nn" post, pre "nt" post, pre "tn" post, pre "tt" post}
static const char *const sb_kernels[12][4] = {
    SB_K4("sm90_xmma_gemm_f32f32_f32f32_f32_", "_n_ffma"),         /* 0: FP32 FMA        */
    SB_K4("sm90_xmma_gemm_f32f32_tf32f32_f32_", "_n_tensor"),      /* 1: TF32            */
    SB_K4("sm90_xmma_gemm_f32f32_f16f32_f32_", "_n_tensor"),       /* 2: FP32 as FP16    */
    SB_K4("sm90_xmma_gemm_f32f32_bf16f32_f32_", "_n_tensor"),      /* 3: FP32 as BF16    */
    SB_K4("sm90_xmma_gemm_f16f16_f16f32_f32_", "_n_tensor"),       /* 4: FP16 data       */
    SB_K4("sm90_xmma_gemm_bf16bf16_bf16f32_f32_", "_n_tensor"),    /* 5: BF16 data       */
    SB_K4("sm90_xmma_gemm_f16f16_f32f32_f32_", "_n_ffma"),         /* 6: FP16 pedantic   */
    SB_K4("sm90_xmma_gemm_bf16bf16_f32f32_f32_", "_n_ffma"),       /* 7: BF16 pedantic   */
    SB_K4("sm90_xmma_gemm_f16f16_f16f16_f16_", "_n_tensor"),       /* 8: COMPUTE_16F     */
    SB_K4("sm90_xmma_gemm_f16f16_f16f16_f16_", "_n_hfma"),         /* 9: 16F pedantic    */
    SB_K4("sm90_xmma_gemm_f64f64_f64f64_f64_", "_n_dfma"),         /* 10: FP64           */
    SB_K4("sm90_xmma_gemm_generic_", "_n"),                        /* 11: the others     */
};

static const char *sb_kernel(const struct sb_gemm *g, enum sb_path p, cublasMath_t math) {
    int t = (g->ta != CUBLAS_OP_N) * 2 + (g->tb != CUBLAS_OP_N), c = 11;
    int base = (int)math & ~(int)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (g->at == CUDA_R_32F)
        c = p != SB_TENSOR ? 0
            : g->comp == CUBLAS_COMPUTE_32F_FAST_16F || (g->comp == CUBLAS_COMPUTE_32F && base == CUBLAS_TENSOR_OP_MATH)
                ? 2
            : g->comp == CUBLAS_COMPUTE_32F_FAST_16BF ? 3
                                                      : 1;
    else if (g->at == CUDA_R_16F && (g->comp == CUBLAS_COMPUTE_16F || g->comp == CUBLAS_COMPUTE_16F_PEDANTIC))
        c = p == SB_TENSOR ? 8 : 9;
    else if (g->at == CUDA_R_16F)
        c = p == SB_TENSOR ? 4 : 6;
    else if (g->at == CUDA_R_16BF)
        c = p == SB_TENSOR ? 5 : 7;
    else if (g->at == CUDA_R_64F)
        c = 10;
    return sb_kernels[c][t];
}

/* the work of the whole call; reads_a/reads_b: the A and B matrices read */
static void sb_work(const struct sb_gemm *g, const struct cublasContext *h, int scale, double reads_a,
                    double reads_b, struct sim_work *w, const char **kernel) {
    memset(w, 0, sizeof *w);
    enum sb_path p = sb_path(g, h->math);
    double macs = (double)g->m * g->n * g->k * g->batch * (sb_complex(g->at) ? 4 : 1);
    double outs = (double)g->m * g->n * g->batch;
    switch (p) {
    case SB_TENSOR: w->tensor = 2 * macs; break;
    case SB_FFMA: w->ffma = macs; break;
    case SB_HFMA: w->hfma = macs; break;
    case SB_DFMA: w->dfma = macs; break;
    }
    bool one, zero;
    sb_scal(g->alpha, scale, &one, &zero);
    bool alpha_one = one;
    sb_scal(g->beta, scale, &one, &zero);
    double *mul = scale == CUDA_R_16F ? &w->hmul : scale == CUDA_R_64F || scale == CUDA_C_64F ? &w->dmul : &w->fmul;
    double *fma = scale == CUDA_R_16F ? &w->hfma : scale == CUDA_R_64F || scale == CUDA_C_64F ? &w->dfma : &w->ffma;
    if (scale != CUDA_R_32I) {
        if (!alpha_one)
            *mul += outs;
        if (!zero)
            *fma += outs;
    }
    w->dram_read = reads_a * sb_mat_bytes(g, 0) + reads_b * sb_mat_bytes(g, 1) +
                   (zero ? 0 : g->batch * sb_mat_bytes(g, 2));
    w->dram_write = g->batch * sb_mat_bytes(g, 2);
    *kernel = g->k == 0 ? "cublasLt::epilogue::scale_c_kernel" : sb_kernel(g, p, h->math);
}

/* the stream and the user workspace at launch time */
static cublasStatus_t sb_launch(const char *call, const struct cublasContext *h, const char *kernel,
                                const struct sim_work *w) {
    if (sim_stream(call, h->stream))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    if (h->user_ws && h->ws_bytes)
        SPAN("workspace (cublasSetWorkspace)", h->ws, h->ws_bytes);
    sim_launch(kernel, h->stream, w);
    return CUBLAS_STATUS_SUCCESS;
}

static bool sb_beta_zero(const struct sb_gemm *g, int scale) {
    bool one, zero;
    sb_scal(g->beta, scale, &one, &zero);
    return zero;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
    const char *call = __func__;
    const struct cublasContext *h = sb_handle(call, handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct sb_gemm g = {transa, transb, m, n, k, alpha, beta, Atype, Btype, Ctype, lda, ldb, ldc, 1, computeType,
                        algo};
    int scale;
    cublasStatus_t st = sb_check(call, &g, &scale);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    SIM_REQ(C || sb_beta_zero(&g, scale), INVAL, "C is NULL with a nonzero beta");
    if (m == 0 || n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (k) {
        SPAN("A", A, sb_mat_elems(&g, 0) * sb_esize(Atype));
        SPAN("B", B, sb_mat_elems(&g, 1) * sb_esize(Btype));
    }
    SPAN("C", C, sb_mat_elems(&g, 2) * sb_esize(Ctype));
    struct sim_work w;
    const char *kernel;
    sb_work(&g, h, scale, 1, 1, &w, &kernel);
    return sb_launch(call, h, kernel, &w);
}

/* [p + lo*es, p + (hi + elems)*es): batch entries at p + i*stride, i < batch */
static cublasStatus_t sb_span_strided(const char *call, const char *what, const void *p, long long stride,
                                      int batch, uint64_t elems, unsigned es) {
    if (!elems || !batch)
        return CUBLAS_STATUS_SUCCESS;
    uint64_t reach, total, start = (uintptr_t)p;
    uint64_t mag = (uint64_t)(stride < 0 ? -(stride + 1) + 1ull : (unsigned long long)stride);
    bool over = __builtin_mul_overflow(mag, (uint64_t)(batch - 1), &reach) ||
                __builtin_add_overflow(reach, elems, &total) || __builtin_mul_overflow(total, (uint64_t)es, &total) ||
                __builtin_mul_overflow(reach, (uint64_t)es, &reach);
    SIM_REQ(!over, CUBLAS_STATUS_EXECUTION_FAILED,
        "%s: %d matrices %lld elements apart pass the end of the address space", what, batch, stride);
    if (stride < 0) {
        SIM_REQ(reach <= start, CUBLAS_STATUS_EXECUTION_FAILED, "%s: the last of %d matrices lies below address 0", what,
            batch);
        start -= reach;
    }
    SPAN(what, (const void *)(uintptr_t)start, total);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long int strideB, const void *beta, void *C, cudaDataType Ctype,
                                          int ldc, long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
    const char *call = __func__;
    const struct cublasContext *h = sb_handle(call, handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct sb_gemm g = {transa, transb, m, n, k, alpha, beta, Atype, Btype, Ctype, lda, ldb, ldc, batchCount,
                        computeType, algo};
    int scale;
    cublasStatus_t st = sb_check(call, &g, &scale);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    SIM_REQ(C || sb_beta_zero(&g, scale), INVAL, "C is NULL with a nonzero beta");
    if (m == 0 || n == 0 || batchCount == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (k && ((st = sb_span_strided(call, "A", A, strideA, batchCount, sb_mat_elems(&g, 0), sb_esize(Atype))) ||
              (st = sb_span_strided(call, "B", B, strideB, batchCount, sb_mat_elems(&g, 1), sb_esize(Btype)))))
        return st;
    if ((st = sb_span_strided(call, "C", C, strideC, batchCount, sb_mat_elems(&g, 2), sb_esize(Ctype))))
        return st;
    struct sim_work w;
    const char *kernel;
    sb_work(&g, h, scale, strideA ? batchCount : 1, strideB ? batchCount : 1, &w, &kernel);
    return sb_launch(call, h, kernel, &w);
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                   int n, int k, const void *alpha, const void *const Aarray[], cudaDataType Atype,
                                   int lda, const void *const Barray[], cudaDataType Btype, int ldb, const void *beta,
                                   void *const Carray[], cudaDataType Ctype, int ldc, int batchCount,
                                   cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
    const char *call = __func__;
    const struct cublasContext *h = sb_handle(call, handle);
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct sb_gemm g = {transa, transb, m, n, k, alpha, beta, Atype, Btype, Ctype, lda, ldb, ldc, batchCount,
                        computeType, algo};
    int scale;
    cublasStatus_t st = sb_check(call, &g, &scale);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (m == 0 || n == 0 || batchCount == 0)
        return CUBLAS_STATUS_SUCCESS;
    /* the arrays of pointers live in device memory */
    uint64_t arr = (uint64_t)batchCount * sizeof(void *);
    if (k) {
        SPAN("Aarray", Aarray, arr);
        SPAN("Barray", Barray, arr);
    }
    SPAN("Carray", Carray, arr);
    uint64_t ea = sb_mat_elems(&g, 0) * sb_esize(Atype), eb = sb_mat_elems(&g, 1) * sb_esize(Btype);
    uint64_t ec = sb_mat_elems(&g, 2) * sb_esize(Ctype);
    bool beta_zero = sb_beta_zero(&g, scale);
    char what[48];
    for (int i = 0; i < batchCount; i++) {
        if (k) {
            snprintf(what, sizeof what, "Aarray[%d]", i);
            SPAN(what, Aarray[i], ea);
            snprintf(what, sizeof what, "Barray[%d]", i);
            SPAN(what, Barray[i], eb);
        }
        SIM_REQ(Carray[i] || beta_zero, INVAL, "Carray[%d] is NULL with a nonzero beta", i);
        snprintf(what, sizeof what, "Carray[%d]", i);
        SPAN(what, Carray[i], ec);
    }
    struct sim_work w;
    const char *kernel;
    sb_work(&g, h, scale, batchCount, batchCount, &w, &kernel);
    w.dram_read += (k ? 3.0 : 1.0) * (double)arr; /* the pointer arrays */
    return sb_launch(call, h, kernel, &w);
}
