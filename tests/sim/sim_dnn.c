/*
 * sim_dnn.c — ocsim's fake cuDNN (sim.h, tests/sim/README.md): the cuDNN 9
 * legacy-API calls replay/gpu/plugin.c makes, with the argument checks the
 * cuDNN 9 API reference documents for them.
 *
 * Handles and descriptors are ocsim objects (sim.h), kept in one list of
 * live objects: a NULL, destroyed or wrong-kind handle or
 * descriptor is reported, never dereferenced. The Set* calls check what the
 * reference lists (ranks, dims and strides >= 1, pads >= 0, conv strides and
 * dilations >= 1, group count >= 1, pooling windows, LRN ranges, enumerants).
 * Each compute call checks its descriptors against each other as cuDNN does
 * (convolution shapes, groups and output dims, AddTensor/OpTensor/
 * ReduceTensor broadcast rules, the pooling output formula, BatchNorm's
 * derived descriptor and epsilon, equal x/y descriptors, workspace sizes
 * against what Get*WorkspaceSize reported), checks that every device buffer
 * it would touch lies inside one live allocation (sim_span), then runs one
 * kernel (sim_launch) on the handle's stream with a work record; the Find
 * calls run each candidate once. A violation prints one "ocsim: CALL: ..."
 * line (sim_fail) and returns the status the reference gives; a buffer out
 * of bounds (where the real kernel would fault) returns
 * CUDNN_STATUS_EXECUTION_FAILED. Alpha and beta are host pointers (float,
 * double for double data).
 *
 * ocsim's own choices: convolutions run algorithm 0 (IMPLICIT_GEMM /
 * BWD_DATA_ALGO_0, no workspace) and 1 (IMPLICIT_PRECOMP_GEMM /
 * BWD_DATA_ALGO_1, 4096 + 4*C*prod(kernel) bytes); Find reports 1 then 0
 * with the descriptor's math type. A reduction takes 1 KiB + 8 bytes per
 * output element, in whole KiB.
 *
 * Work records (FP32 instruction counts unless the data is double; an FMA
 * is one instruction):
 *   convolution: MACs = N*K*prod(output spatial)*(C/group)*prod(kernel), for
 *     BackwardData those of the forward convolution it inverts; FMA math
 *     (CUDNN_FMA_MATH) or double data -> ffma (hfma for a HALF compute type,
 *     dfma for double) = MACs; any other math type with float/half/bf16 data
 *     (TF32 or half tensor cores on the sm_90 ocsim simulates) -> tensor =
 *     2*MACs;
 *   every call's blend y = alpha*r + beta*y: alpha != 1 adds one fmul per
 *     output element, beta != 0 one ffma per output element and a read of y;
 *   elementwise work per element: see the table by each call;
 *   DRAM: bytes of the inputs read (packed element counts) + bytes of the
 *     outputs written.
 * Single-threaded, like the plugin.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cudnn.h>
#include "sim.h"
#pragma GCC diagnostic pop

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- live objects ------------------------------------------------------------------ */

enum sd_kind { SD_HANDLE = 1, SD_TENSOR, SD_FILTER, SD_CONV, SD_POOL, SD_ACT, SD_LRN, SD_OPT, SD_RED, SD_KINDS };
static const char *const sd_kind_name[SD_KINDS] = {
    "?", "cudnnHandle_t", "tensor descriptor", "filter descriptor", "convolution descriptor",
    "pooling descriptor", "activation descriptor", "LRN descriptor", "op-tensor descriptor",
    "reduce-tensor descriptor"};

/* every handle and descriptor begins with a struct sim_obj of kind
   SIM_OBJ_CUDNN + its sd_kind, and is looked up among the live objects
   before it is read (sim.h) */

struct cudnnContext {
    struct sim_obj o;
    cudaStream_t stream;
};
struct cudnnTensorStruct {
    struct sim_obj o;
    bool set;
    cudnnDataType_t dt;
    int nb;
    int dim[CUDNN_DIM_MAX], str[CUDNN_DIM_MAX];
};
struct cudnnFilterStruct {
    struct sim_obj o;
    bool set;
    cudnnDataType_t dt;
    cudnnTensorFormat_t fmt;
    int nb;
    int dim[CUDNN_DIM_MAX];
};
struct cudnnConvolutionStruct {
    struct sim_obj o;
    bool set;
    int len;
    int pad[CUDNN_DIM_MAX - 2], str[CUDNN_DIM_MAX - 2], dil[CUDNN_DIM_MAX - 2];
    cudnnConvolutionMode_t mode;
    cudnnDataType_t ct;
    int group;
    cudnnMathType_t math;
};
struct cudnnPoolingStruct {
    struct sim_obj o;
    bool set;
    cudnnPoolingMode_t mode;
    int nb;
    int win[CUDNN_DIM_MAX - 2], pad[CUDNN_DIM_MAX - 2], str[CUDNN_DIM_MAX - 2];
};
struct cudnnActivationStruct {
    struct sim_obj o;
    bool set;
    cudnnActivationMode_t mode;
    double coef;
};
struct cudnnLRNStruct {
    struct sim_obj o;
    unsigned n;
    double alpha, beta, k;
};
struct cudnnOpTensorStruct {
    struct sim_obj o;
    bool set;
    cudnnOpTensorOp_t op;
    cudnnDataType_t ct;
};
struct cudnnReduceTensorStruct {
    struct sim_obj o;
    bool set;
    cudnnReduceTensorOp_t op;
    cudnnDataType_t ct;
    cudnnReduceTensorIndices_t ind;
    cudnnIndicesType_t itype;
};

typedef struct cudnnTensorStruct sd_tensor_t;
typedef struct cudnnFilterStruct sd_filter_t;
typedef struct cudnnConvolutionStruct sd_conv_t;

/* checks inside a function with `const char *call` in scope */
/* a device buffer the call reads or writes; out of bounds, the real kernel
   would fault: reported here, the call fails */
#define SPAN(what, p, bytes)                                                                       \
    do {                                                                                           \
        if (sim_span(call, (what), (p), (bytes)))                                                  \
            return CUDNN_STATUS_EXECUTION_FAILED;                                                  \
    } while (0)
#define BAD CUDNN_STATUS_BAD_PARAM
#define UNSUP CUDNN_STATUS_NOT_SUPPORTED

static void *sd_new(enum sd_kind kind, size_t size) {
    return sim_obj_new(SIM_OBJ_CUDNN + (uint32_t)kind, size);
}

/* the live object p of kind k, or NULL after one ocsim line */
static void *sd_get(const char *call, const char *what, const void *p, enum sd_kind k) {
    if (!p) {
        sim_fail(call, "%s is NULL", what);
        return NULL;
    }
    struct sim_obj *o = sim_obj_live(p);
    if (!o || o->kind <= SIM_OBJ_CUDNN || o->kind >= SIM_OBJ_CUDNN + SD_KINDS) {
        sim_fail(call, "%s %p is not a live cuDNN object (destroyed, or never created)", what, p);
        return NULL;
    }
    if (o->kind != SIM_OBJ_CUDNN + (uint32_t)k) {
        sim_fail(call, "%s %p is a %s, not a %s", what, p, sd_kind_name[o->kind - SIM_OBJ_CUDNN], sd_kind_name[k]);
        return NULL;
    }
    return o;
}

/* Destroy*Descriptor: NULL is a no-op; anything else must be live and of its kind */
static cudnnStatus_t sd_destroy(const char *call, const void *p, enum sd_kind k) {
    if (!p)
        return CUDNN_STATUS_SUCCESS;
    struct sim_obj *o = sd_get(call, sd_kind_name[k], p, k);
    if (!o)
        return BAD;
    sim_obj_free(o);
    return CUDNN_STATUS_SUCCESS;
}

#define SD_CREATE(type, kind, out)                                                                 \
    do {                                                                                           \
        SIM_REQ((out) != NULL, BAD, "NULL output pointer");                                            \
        type *o_ = sd_new((kind), sizeof *o_);                                                     \
        SIM_REQ(o_ != NULL, CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of host memory"); \
        *(out) = o_;                                                                               \
    } while (0)

static struct cudnnContext *sd_handle(const char *call, cudnnHandle_t h) {
    return sd_get(call, "handle", h, SD_HANDLE);
}

static sd_tensor_t *sd_tensor(const char *call, const char *what, cudnnTensorDescriptor_t t) {
    sd_tensor_t *d = sd_get(call, what, t, SD_TENSOR);
    if (d && !d->set) {
        sim_fail(call, "%s %p was never set (cudnnSetTensorNdDescriptor)", what, (void *)t);
        return NULL;
    }
    return d;
}

static sd_filter_t *sd_filter(const char *call, const char *what, cudnnFilterDescriptor_t f) {
    sd_filter_t *d = sd_get(call, what, f, SD_FILTER);
    if (d && !d->set) {
        sim_fail(call, "%s %p was never set (cudnnSetFilterNdDescriptor)", what, (void *)f);
        return NULL;
    }
    return d;
}

static sd_conv_t *sd_conv(const char *call, cudnnConvolutionDescriptor_t c) {
    sd_conv_t *d = sd_get(call, "convDesc", c, SD_CONV);
    if (d && !d->set) {
        sim_fail(call, "convDesc %p was never set (cudnnSetConvolutionNdDescriptor)", (void *)c);
        return NULL;
    }
    return d;
}

/* ---- tensors ----------------------------------------------------------------------- */

/* bits of one element; 0 for what is no storage type */
static int sd_dt_bits(cudnnDataType_t dt) {
    switch ((int)dt) {
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_INT32: case CUDNN_DATA_UINT32: return 32;
    case CUDNN_DATA_DOUBLE: case CUDNN_DATA_INT64: case CUDNN_DATA_COMPLEX_FP32: return 64;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 16;
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_BOOLEAN: case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2: case CUDNN_DATA_FP8_E8M0: return 8;
    case CUDNN_DATA_FP4_E2M1: case CUDNN_DATA_INT4: case CUDNN_DATA_UINT4: return 4;
    case CUDNN_DATA_COMPLEX_FP64: return 128;
    case 5: case 7: return 32; /* INT8x4, UINT8x4 (deprecated enumerants) */
    case 8: return 256;        /* INT8x32 */
    default: return 0;         /* FAST_FLOAT_FOR_FP8 is a compute type only */
    }
}

static bool sd_dt_enum(cudnnDataType_t dt) {
    return (int)dt >= CUDNN_DATA_FLOAT && (int)dt <= CUDNN_DATA_COMPLEX_FP64;
}

static uint64_t sd_bytes(uint64_t elems, cudnnDataType_t dt) {
    return (elems * (uint64_t)sd_dt_bits(dt) + 7) / 8;
}

static double sd_numel(int nb, const int *dim) {
    double n = 1;
    for (int i = 0; i < nb; i++)
        n *= dim[i];
    return n;
}

static double sd_t_numel(const sd_tensor_t *t) {
    return sd_numel(t->nb, t->dim);
}

/* elements from the first to one past the last addressed: 1 + sum (d-1)*s */
static uint64_t sd_t_span_elems(const sd_tensor_t *t) {
    uint64_t e = 1;
    for (int i = 0; i < t->nb; i++)
        e += (uint64_t)(t->dim[i] - 1) * (uint64_t)t->str[i];
    return e;
}

static uint64_t sd_t_extent(const sd_tensor_t *t) {
    return sd_bytes(sd_t_span_elems(t), t->dt);
}

static double sd_t_bytes(const sd_tensor_t *t) {
    return sd_t_numel(t) * sd_dt_bits(t->dt) / 8;
}

/* filters are packed */
static double sd_f_numel(const sd_filter_t *f) {
    return sd_numel(f->nb, f->dim);
}

static bool sd_same_dims(const sd_tensor_t *a, const sd_tensor_t *b) {
    if (a->nb != b->nb)
        return false;
    for (int i = 0; i < a->nb; i++)
        if (a->dim[i] != b->dim[i])
            return false;
    return true;
}

static bool sd_same_strides(const sd_tensor_t *a, const sd_tensor_t *b) {
    for (int i = 0; i < a->nb && i < b->nb; i++)
        if (a->str[i] != b->str[i])
            return false;
    return true;
}

static const char *sd_dims(char *b, size_t n, int nb, const int *d) {
    int u = snprintf(b, n, "[");
    for (int i = 0; i < nb && u > 0 && (size_t)u < n; i++)
        u += snprintf(b + u, n - (size_t)u, "%s%d", i ? "," : "", d[i]);
    if (u > 0 && (size_t)u < n)
        snprintf(b + u, n - (size_t)u, "]");
    return b;
}

static double sd_scal(const void *p, bool dbl) {
    return dbl ? *(const double *)p : (double)*(const float *)p;
}

/* y = alpha*r + beta*y over n output elements */
static void sd_blend(struct sim_work *w, bool dbl, double n, double alpha, double beta) {
    if (alpha != 1.0)
        *(dbl ? &w->dmul : &w->fmul) += n;
    if (beta != 0.0)
        *(dbl ? &w->dfma : &w->ffma) += n;
}

/* elementwise flops into the class of the data (double: d*, else f*) */
static void sd_flops(struct sim_work *w, bool dbl, double add, double mul, double fma) {
    if (dbl) {
        w->dadd += add;
        w->dmul += mul;
        w->dfma += fma;
    } else {
        w->fadd += add;
        w->fmul += mul;
        w->ffma += fma;
    }
}

static cudnnStatus_t sd_run(const char *call, const struct cudnnContext *h, const char *kernel,
                            const struct sim_work *w) {
    if (sim_stream(call, h->stream))
        return CUDNN_STATUS_EXECUTION_FAILED;
    sim_launch(kernel, h->stream, w);
    return CUDNN_STATUS_SUCCESS;
}

/* ---- version, errors, handle ------------------------------------------------------- */

size_t cudnnGetVersion(void) {
    return CUDNN_VERSION;
}

const char *cudnnGetErrorString(cudnnStatus_t status) {
    switch ((int)status) {
#define SD_NAME(s) case s: return #s;
    SD_NAME(CUDNN_STATUS_SUCCESS)
    SD_NAME(CUDNN_STATUS_NOT_INITIALIZED)
    SD_NAME(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    SD_NAME(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    SD_NAME(CUDNN_STATUS_DEPRECATED)
    SD_NAME(CUDNN_STATUS_LICENSE_ERROR)
    SD_NAME(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    SD_NAME(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    SD_NAME(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    SD_NAME(CUDNN_STATUS_BAD_PARAM)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    SD_NAME(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    SD_NAME(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    SD_NAME(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    SD_NAME(CUDNN_STATUS_EXECUTION_FAILED)
    SD_NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    SD_NAME(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    SD_NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    SD_NAME(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
#undef SD_NAME
    case 2001: return "CUDNN_STATUS_INVALID_VALUE"; /* deprecated enumerant */
    default: return "CUDNN_UNKNOWN_STATUS_FOUND";
    }
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
    const char *call = __func__;
    SD_CREATE(struct cudnnContext, SD_HANDLE, handle);
    return CUDNN_STATUS_SUCCESS; /* the legacy stream until cudnnSetStream */
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
    const char *call = __func__;
    struct cudnnContext *h = sd_handle(call, handle); /* NULL: BAD_PARAM */
    if (!h)
        return BAD;
    sim_obj_free(h);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
    const char *call = __func__;
    struct cudnnContext *h = sd_handle(call, handle);
    if (!h)
        return BAD;
    if (sim_stream(call, streamId))
        return BAD;
    h->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- tensor and filter descriptors -------------------------------------------------- */

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc) {
    const char *call = __func__;
    SD_CREATE(sd_tensor_t, SD_TENSOR, tensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
    return sd_destroy(__func__, tensorDesc, SD_TENSOR);
}

/* Reference: nbDims "do not use 2 dimensions"; the minimum is three (lower
 * data is described as 4-D with unit dims); at most CUDNN_DIM_MAX
 * (NOT_SUPPORTED); BAD_PARAM for a dim <= 0, a stride <= 0 or an invalid data
 * type; NOT_SUPPORTED beyond 2 Giga-elements including the padding between
 * dims (strides are ints). */
cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnDataType_t dataType, int nbDims,
                                         const int dimA[], const int strideA[]) {
    const char *call = __func__;
    sd_tensor_t *t = sd_get(call, "tensorDesc", tensorDesc, SD_TENSOR);
    if (!t)
        return BAD;
    SIM_REQ(nbDims <= CUDNN_DIM_MAX, UNSUP, "nbDims %d > CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    SIM_REQ(nbDims >= 3, BAD, "nbDims %d (cuDNN tensors have at least 3 dims; pad lower ranks with 1s)", nbDims);
    SIM_REQ(dimA && strideA, BAD, "dimA or strideA is NULL");
    SIM_REQ(sd_dt_bits(dataType) > 0, BAD, "dataType %d is not a tensor data type", (int)dataType);
    char b1[128], b2[128];
    for (int i = 0; i < nbDims; i++) {
        SIM_REQ(dimA[i] >= 1, BAD, "dimA %s: dim %d is %d (each must be >= 1)", sd_dims(b1, sizeof b1, nbDims, dimA), i,
            dimA[i]);
        SIM_REQ(strideA[i] >= 1, BAD, "strideA %s: stride %d is %d (each must be >= 1)",
            sd_dims(b2, sizeof b2, nbDims, strideA), i, strideA[i]);
    }
    sd_tensor_t n = {.nb = nbDims, .dt = dataType};
    memcpy(n.dim, dimA, (size_t)nbDims * sizeof *dimA);
    memcpy(n.str, strideA, (size_t)nbDims * sizeof *strideA);
    uint64_t span = sd_t_span_elems(&n);
    double numel = sd_t_numel(&n);
    SIM_REQ(span <= INT32_MAX && numel <= INT32_MAX, UNSUP,
        "dims %s strides %s address %llu elements (%.0f in all): beyond cuDNN's 2 Giga-element limit",
        sd_dims(b1, sizeof b1, nbDims, dimA), sd_dims(b2, sizeof b2, nbDims, strideA), (unsigned long long)span,
        numel);
    t->dt = dataType;
    t->nb = nbDims;
    memcpy(t->dim, dimA, (size_t)nbDims * sizeof *dimA);
    memcpy(t->str, strideA, (size_t)nbDims * sizeof *strideA);
    t->set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc) {
    const char *call = __func__;
    SD_CREATE(sd_filter_t, SD_FILTER, filterDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
    return sd_destroy(__func__, filterDesc, SD_FILTER);
}

/* Reference: BAD_PARAM for a negative filter dim or an invalid data type or
 * format; NOT_SUPPORTED when nbDims exceeds CUDNN_DIM_MAX; a filter has at
 * least three dims. The convolutions take 4 or 5. */
cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType,
                                         cudnnTensorFormat_t format, int nbDims, const int filterDimA[]) {
    const char *call = __func__;
    sd_filter_t *f = sd_get(call, "filterDesc", filterDesc, SD_FILTER);
    if (!f)
        return BAD;
    SIM_REQ(nbDims <= CUDNN_DIM_MAX, UNSUP, "nbDims %d > CUDNN_DIM_MAX (%d)", nbDims, CUDNN_DIM_MAX);
    SIM_REQ(nbDims >= 3, BAD, "nbDims %d (a filter has at least 3 dims)", nbDims);
    SIM_REQ(filterDimA, BAD, "filterDimA is NULL");
    SIM_REQ(sd_dt_bits(dataType) > 0, BAD, "dataType %d is not a tensor data type", (int)dataType);
    SIM_REQ(format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC || format == CUDNN_TENSOR_NCHW_VECT_C, BAD,
        "format %d is not a cudnnTensorFormat_t", (int)format);
    char b[128];
    for (int i = 0; i < nbDims; i++)
        SIM_REQ(filterDimA[i] >= 0, BAD, "filterDimA %s: dim %d is negative", sd_dims(b, sizeof b, nbDims, filterDimA), i);
    f->dt = dataType;
    f->fmt = format;
    f->nb = nbDims;
    memcpy(f->dim, filterDimA, (size_t)nbDims * sizeof *filterDimA);
    f->set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- convolution descriptor ------------------------------------------------------------ */

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc) {
    const char *call = __func__;
    SD_CREATE(sd_conv_t, SD_CONV, convDesc);
    (*convDesc)->group = 1;
    (*convDesc)->math = CUDNN_DEFAULT_MATH;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
    return sd_destroy(__func__, convDesc, SD_CONV);
}

/* Reference: BAD_PARAM for a negative arrayLength, an invalid mode or data
 * type, a pad < 0, a stride <= 0 or a dilation <= 0; NOT_SUPPORTED when
 * arrayLength > CUDNN_DIM_MAX - 2. */
cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc, int arrayLength,
                                              const int padA[], const int filterStrideA[], const int dilationA[],
                                              cudnnConvolutionMode_t mode, cudnnDataType_t computeType) {
    const char *call = __func__;
    sd_conv_t *c = sd_get(call, "convDesc", convDesc, SD_CONV);
    if (!c)
        return BAD;
    SIM_REQ(arrayLength >= 0, BAD, "arrayLength %d is negative", arrayLength);
    SIM_REQ(arrayLength <= CUDNN_DIM_MAX - 2, UNSUP, "arrayLength %d > CUDNN_DIM_MAX - 2", arrayLength);
    SIM_REQ(arrayLength == 0 || (padA && filterStrideA && dilationA), BAD, "padA, filterStrideA or dilationA is NULL");
    SIM_REQ(mode == CUDNN_CONVOLUTION || mode == CUDNN_CROSS_CORRELATION, BAD, "mode %d is not a cudnnConvolutionMode_t",
        (int)mode);
    SIM_REQ(sd_dt_enum(computeType), BAD, "computeType %d is not a cudnnDataType_t", (int)computeType);
    char b[128];
    for (int i = 0; i < arrayLength; i++) {
        SIM_REQ(padA[i] >= 0, BAD, "padA %s: pad %d is negative", sd_dims(b, sizeof b, arrayLength, padA), i);
        SIM_REQ(filterStrideA[i] >= 1, BAD, "filterStrideA %s: stride %d is not positive",
            sd_dims(b, sizeof b, arrayLength, filterStrideA), i);
        SIM_REQ(dilationA[i] >= 1, BAD, "dilationA %s: dilation %d is not positive",
            sd_dims(b, sizeof b, arrayLength, dilationA), i);
    }
    c->len = arrayLength;
    for (int i = 0; i < arrayLength; i++) {
        c->pad[i] = padA[i];
        c->str[i] = filterStrideA[i];
        c->dil[i] = dilationA[i];
    }
    c->mode = mode;
    c->ct = computeType;
    c->set = true;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
    const char *call = __func__;
    sd_conv_t *c = sd_get(call, "convDesc", convDesc, SD_CONV);
    if (!c)
        return BAD;
    SIM_REQ(groupCount >= 1, BAD, "groupCount %d (must be >= 1)", groupCount);
    c->group = groupCount;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType) {
    const char *call = __func__;
    sd_conv_t *c = sd_get(call, "convDesc", convDesc, SD_CONV);
    if (!c)
        return BAD;
    SIM_REQ(mathType >= CUDNN_DEFAULT_MATH && mathType <= CUDNN_FMA_MATH, BAD, "mathType %d is not a cudnnMathType_t",
        (int)mathType);
    c->math = mathType;
    return CUDNN_STATUS_SUCCESS;
}

/* ---- convolution ---------------------------------------------------------------------------- */

/* the data/compute type pairs of the reference's "supported configurations"
   (x, w, y of the first type; convDesc's type second) */
static bool sd_conv_config(cudnnDataType_t dt, cudnnDataType_t ct) {
    switch (dt) {
    case CUDNN_DATA_FLOAT: return ct == CUDNN_DATA_FLOAT;                         /* FLOAT_CONFIG */
    case CUDNN_DATA_HALF: return ct == CUDNN_DATA_HALF || ct == CUDNN_DATA_FLOAT; /* TRUE_/PSEUDO_HALF */
    case CUDNN_DATA_BFLOAT16: return ct == CUDNN_DATA_FLOAT;                      /* PSEUDO_BFLOAT16 */
    case CUDNN_DATA_DOUBLE: return ct == CUDNN_DATA_DOUBLE;                       /* DOUBLE_CONFIG */
    case CUDNN_DATA_INT8: return ct == CUDNN_DATA_INT32;                          /* INT8(_EXT)_CONFIG */
    default: return false;
    }
}

struct sd_conv_geom {
    double macs;
};

/* The checks cudnnConvolutionForward / cudnnConvolutionBackwardData (and the
 * Find and workspace-size calls) document, in the forward convolution's
 * terms: x its input (dx for backward data), y its output (dy). BAD_PARAM:
 * ranks of x, w, y differ; x's rank is not arrayLength + 2; data types
 * differ; x and w disagree on input channels per group; w's output channels
 * are not a multiple of the group count; a dilated filter larger than the
 * padded input; (backward data) dy's dims are not the forward output dims.
 * NOT_SUPPORTED: a rank other than 4 or 5; (forward) y's dims are not the
 * ones cudnnGetConvolutionNdForwardOutputDim gives. */
static cudnnStatus_t sd_conv_check(const char *call, bool bwd, const sd_tensor_t *x, const sd_filter_t *w,
                                   const sd_conv_t *c, const sd_tensor_t *y, struct sd_conv_geom *g) {
    const char *xn = bwd ? "dxDesc" : "xDesc", *yn = bwd ? "dyDesc" : "yDesc";
    char b1[128], b2[128], b3[128];
    sd_dims(b1, sizeof b1, x->nb, x->dim);
    sd_dims(b2, sizeof b2, w->nb, w->dim);
    sd_dims(b3, sizeof b3, y->nb, y->dim);
    SIM_REQ(x->nb == w->nb && x->nb == y->nb, BAD, "%s %s, wDesc %s and %s %s differ in rank", xn, b1, b2, yn, b3);
    SIM_REQ(x->nb == 4 || x->nb == 5, UNSUP, "%d-D convolution tensors (cuDNN takes 4-D and 5-D)", x->nb);
    SIM_REQ(c->len == x->nb - 2, BAD, "convDesc has %d spatial dims, %s %s has %d", c->len, xn, b1, x->nb - 2);
    SIM_REQ(x->dt == w->dt && (y->dt == x->dt || (x->dt == CUDNN_DATA_INT8 && y->dt == CUDNN_DATA_FLOAT)), BAD,
        "data types differ: %s %d, wDesc %d, %s %d", xn, (int)x->dt, (int)w->dt, yn, (int)y->dt);
    SIM_REQ(sd_conv_config(x->dt, c->ct), UNSUP, "data type %d with convDesc compute type %d is no supported configuration",
        (int)x->dt, (int)c->ct);
    for (int i = 0; i < w->nb; i++)
        SIM_REQ(w->dim[i] >= 1, BAD, "wDesc %s: dim %d is 0", b2, i);
    SIM_REQ((int64_t)w->dim[1] * c->group == x->dim[1], BAD,
        "%s %s has %d input channels; wDesc %s has %d per group x %d groups", xn, b1, x->dim[1], b2, w->dim[1],
        c->group);
    SIM_REQ(w->dim[0] % c->group == 0, BAD, "wDesc %s: %d output channels are not a multiple of the group count %d", b2,
        w->dim[0], c->group);
    SIM_REQ(y->dim[0] == x->dim[0], BAD, "%s %s and %s %s differ in batch", xn, b1, yn, b3);
    SIM_REQ(y->dim[1] == w->dim[0], BAD, "%s %s has %d channels; wDesc %s has %d output channels", yn, b3, y->dim[1], b2,
        w->dim[0]);
    double sp = 1, ks = 1;
    for (int i = 0; i < c->len; i++) {
        int64_t eff = (int64_t)c->dil[i] * (w->dim[2 + i] - 1) + 1;
        int64_t padded = (int64_t)x->dim[2 + i] + 2 * (int64_t)c->pad[i];
        SIM_REQ(eff <= padded, BAD, "spatial dim %d: the dilated filter (%lld) is larger than the padded %s (%lld)", i,
            (long long)eff, xn, (long long)padded);
        int64_t o = (padded - eff) / c->str[i] + 1;
        SIM_REQ(y->dim[2 + i] == o, bwd ? BAD : UNSUP,
            "%s %s: spatial dim %d is %d; %s %s with pad %d, stride %d, dilation %d and filter %d gives %lld "
            "(out = (in + 2*pad - (dil*(k-1)+1))/stride + 1)",
            yn, b3, i, y->dim[2 + i], xn, b1, c->pad[i], c->str[i], c->dil[i], w->dim[2 + i], (long long)o);
        sp *= (double)o;
        ks *= w->dim[2 + i];
    }
    g->macs = (double)x->dim[0] * w->dim[0] * sp * w->dim[1] * ks;
    return CUDNN_STATUS_SUCCESS;
}

/* ocsim implements algorithm 0 (IMPLICIT_GEMM / BWD_DATA_ALGO_0) and 1
   (IMPLICIT_PRECOMP_GEMM / BWD_DATA_ALGO_1), the ones its Find reports */
static cudnnStatus_t sd_conv_algo(const char *call, bool bwd, int algo) {
    int count = bwd ? (int)CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT : (int)CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    SIM_REQ(algo >= 0 && algo < count, BAD, "algo %d is not a %s", algo,
        bwd ? "cudnnConvolutionBwdDataAlgo_t" : "cudnnConvolutionFwdAlgo_t");
    SIM_REQ(algo <= 1, UNSUP, "algo %d does not support these parameters (ocsim runs algos 0 and 1)", algo);
    return CUDNN_STATUS_SUCCESS;
}

/* algo 1 precomputes indices: 4096 bytes + 4 per input channel and filter tap */
static size_t sd_conv_ws(int algo, const sd_tensor_t *x, const sd_filter_t *w) {
    if (algo != 1)
        return 0;
    size_t taps = 1;
    for (int i = 2; i < w->nb; i++)
        taps *= (size_t)w->dim[i];
    return 4096 + 4 * (size_t)x->dim[1] * taps;
}

/* tensor cores: every math type but FMA, for float (TF32), half and bf16 data */
static bool sd_conv_tensor(const sd_conv_t *c, cudnnDataType_t dt) {
    return c->math != CUDNN_FMA_MATH && dt != CUDNN_DATA_DOUBLE;
}

#define SD_CK(dir, alg, t)                                                                         \
    {"sm90_xmma_" dir "_implicit_" alg "gemm_" t "_nchwkcrs_nchw_ffma",                            \
     "sm90_xmma_" dir "_implicit_" alg "gemm_" t "_nchwkcrs_nchw_tensor"}
#define SD_CT(dir, alg)                                                                            \
    {SD_CK(dir, alg, "f32f32_f32f32_f32"), SD_CK(dir, alg, "f16f16_f16f32_f16"),                   \
     SD_CK(dir, alg, "bf16bf16_bf16f32_bf16"), SD_CK(dir, alg, "f64f64_f64f64_f64"),               \
     SD_CK(dir, alg, "s8s8_s8s32_f32")}
static const char *const sd_conv_kernels[2][2][5][2] = {
    {SD_CT("fprop", ""), SD_CT("fprop", "precomp_")},
    {SD_CT("dgrad", ""), SD_CT("dgrad", "precomp_")},
};

static const char *sd_conv_kernel(bool bwd, int algo, const sd_conv_t *c, cudnnDataType_t dt) {
    int t = dt == CUDNN_DATA_FLOAT ? 0 : dt == CUDNN_DATA_HALF ? 1 : dt == CUDNN_DATA_BFLOAT16 ? 2
            : dt == CUDNN_DATA_DOUBLE ? 3 : 4;
    return sd_conv_kernels[bwd][algo][t][sd_conv_tensor(c, dt)];
}

/* in: the tensor read besides w (x forward, dy backward); out: the one written */
static void sd_conv_work(const sd_tensor_t *in, const sd_filter_t *w, const sd_conv_t *c, const sd_tensor_t *out,
                         double macs, double alpha, double beta, struct sim_work *wk) {
    memset(wk, 0, sizeof *wk);
    bool dbl = out->dt == CUDNN_DATA_DOUBLE;
    if (sd_conv_tensor(c, in->dt))
        wk->tensor = 2 * macs;
    else if (dbl)
        wk->dfma = macs;
    else if (c->ct == CUDNN_DATA_HALF)
        wk->hfma = macs;
    else
        wk->ffma = macs;
    sd_blend(wk, dbl, sd_t_numel(out), alpha, beta);
    wk->dram_read = sd_t_bytes(in) + sd_f_numel(w) * sd_dt_bits(w->dt) / 8 + (beta != 0.0 ? sd_t_bytes(out) : 0);
    wk->dram_write = sd_t_bytes(out);
}

/* Reference: outputDim = 1 + (inputDim + 2*pad - (((filterDim-1)*dilation)+1))
 * / convolutionStride; BAD_PARAM when the filter's and the input's ranks
 * differ, the convolution's rank is not the input's - 2, the filter's input
 * feature maps (x the group count) are not the input's, the dilated filter is
 * larger than the padded input, or nbDims is negative or above the input's. */
cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc, int nbDims,
                                                    int tensorOuputDimA[]) {
    const char *call = __func__;
    const sd_conv_t *c = sd_conv(call, convDesc);
    const sd_tensor_t *x = c ? sd_tensor(call, "inputTensorDesc", inputTensorDesc) : NULL;
    const sd_filter_t *w = x ? sd_filter(call, "filterDesc", filterDesc) : NULL;
    if (!w)
        return BAD;
    char b1[128], b2[128];
    sd_dims(b1, sizeof b1, x->nb, x->dim);
    sd_dims(b2, sizeof b2, w->nb, w->dim);
    SIM_REQ(w->nb == x->nb, BAD, "filterDesc %s and inputTensorDesc %s differ in rank", b2, b1);
    SIM_REQ(c->len == x->nb - 2, BAD, "convDesc has %d spatial dims, inputTensorDesc %s has %d", c->len, b1, x->nb - 2);
    SIM_REQ((int64_t)w->dim[1] * c->group == x->dim[1], BAD,
        "inputTensorDesc %s has %d feature maps; filterDesc %s has %d per group x %d groups", b1, x->dim[1], b2,
        w->dim[1], c->group);
    SIM_REQ(nbDims >= 0 && nbDims <= x->nb, BAD, "nbDims %d (0 to the input's %d)", nbDims, x->nb);
    SIM_REQ(nbDims == 0 || tensorOuputDimA, BAD, "tensorOuputDimA is NULL");
    int out[CUDNN_DIM_MAX];
    out[0] = x->dim[0];
    out[1] = w->dim[0];
    for (int i = 0; i < c->len; i++) {
        int64_t eff = (int64_t)c->dil[i] * (w->dim[2 + i] - 1) + 1;
        int64_t padded = (int64_t)x->dim[2 + i] + 2 * (int64_t)c->pad[i];
        SIM_REQ(eff <= padded, BAD, "spatial dim %d: the dilated filter (%lld) is larger than the padded input (%lld)", i,
            (long long)eff, (long long)padded);
        out[2 + i] = (int)((padded - eff) / c->str[i] + 1);
    }
    for (int i = 0; i < nbDims; i++)
        tensorOuputDimA[i] = out[i];
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_tensor_t *x = h ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_filter_t *w = x ? sd_filter(call, "wDesc", wDesc) : NULL;
    const sd_conv_t *c = w ? sd_conv(call, convDesc) : NULL;
    const sd_tensor_t *y = c ? sd_tensor(call, "yDesc", yDesc) : NULL;
    if (!y)
        return BAD;
    SIM_REQ(sizeInBytes, BAD, "sizeInBytes is NULL");
    struct sd_conv_geom g;
    cudnnStatus_t st;
    if ((st = sd_conv_check(call, false, x, w, c, y, &g)) != CUDNN_STATUS_SUCCESS ||
        (st = sd_conv_algo(call, false, (int)algo)) != CUDNN_STATUS_SUCCESS)
        return st;
    *sizeInBytes = sd_conv_ws((int)algo, x, w);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                           const cudnnTensorDescriptor_t dyDesc,
                                                           const cudnnConvolutionDescriptor_t convDesc,
                                                           const cudnnTensorDescriptor_t dxDesc,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_filter_t *w = h ? sd_filter(call, "wDesc", wDesc) : NULL;
    const sd_tensor_t *dy = w ? sd_tensor(call, "dyDesc", dyDesc) : NULL;
    const sd_conv_t *c = dy ? sd_conv(call, convDesc) : NULL;
    const sd_tensor_t *dx = c ? sd_tensor(call, "dxDesc", dxDesc) : NULL;
    if (!dx)
        return BAD;
    SIM_REQ(sizeInBytes, BAD, "sizeInBytes is NULL");
    struct sd_conv_geom g;
    cudnnStatus_t st;
    if ((st = sd_conv_check(call, true, dx, w, c, dy, &g)) != CUDNN_STATUS_SUCCESS ||
        (st = sd_conv_algo(call, true, (int)algo)) != CUDNN_STATUS_SUCCESS)
        return st;
    *sizeInBytes = sd_conv_ws((int)algo, dx, w);
    return CUDNN_STATUS_SUCCESS;
}

/* the given workspace: at least what Get*WorkspaceSize reports for the
   algorithm, and inside one allocation over the size given */
static cudnnStatus_t sd_conv_wspace(const char *call, int algo, const sd_tensor_t *x, const sd_filter_t *w,
                                    const void *ws, size_t wsb) {
    size_t need = sd_conv_ws(algo, x, w);
    SIM_REQ(wsb >= need, BAD, "workSpaceSizeInBytes %zu < %zu, the workspace algo %d needs", wsb, need, algo);
    if (wsb)
        SPAN("workSpace", ws, wsb);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
                                      const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                      void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
                                      const cudnnTensorDescriptor_t yDesc, void *y) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_tensor_t *xd = h ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_filter_t *wd = xd ? sd_filter(call, "wDesc", wDesc) : NULL;
    const sd_conv_t *c = wd ? sd_conv(call, convDesc) : NULL;
    const sd_tensor_t *yd = c ? sd_tensor(call, "yDesc", yDesc) : NULL;
    if (!yd)
        return BAD;
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(x && w && y, BAD, "x, w or y is NULL");
    struct sd_conv_geom g;
    cudnnStatus_t st;
    if ((st = sd_conv_algo(call, false, (int)algo)) != CUDNN_STATUS_SUCCESS ||
        (st = sd_conv_check(call, false, xd, wd, c, yd, &g)) != CUDNN_STATUS_SUCCESS ||
        (st = sd_conv_wspace(call, (int)algo, xd, wd, workSpace, workSpaceSizeInBytes)) != CUDNN_STATUS_SUCCESS)
        return st;
    SPAN("x", x, sd_t_extent(xd));
    SPAN("w", w, sd_bytes((uint64_t)sd_f_numel(wd), wd->dt));
    SPAN("y", y, sd_t_extent(yd));
    bool dbl = yd->dt == CUDNN_DATA_DOUBLE;
    struct sim_work wk;
    sd_conv_work(xd, wd, c, yd, g.macs, sd_scal(alpha, dbl), sd_scal(beta, dbl), &wk);
    return sd_run(call, h, sd_conv_kernel(false, (int)algo, c, xd->dt), &wk);
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc,
                                           const void *w, const cudnnTensorDescriptor_t dyDesc, const void *dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                           size_t workSpaceSizeInBytes, const void *beta,
                                           const cudnnTensorDescriptor_t dxDesc, void *dx) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_filter_t *wd = h ? sd_filter(call, "wDesc", wDesc) : NULL;
    const sd_tensor_t *dyd = wd ? sd_tensor(call, "dyDesc", dyDesc) : NULL;
    const sd_conv_t *c = dyd ? sd_conv(call, convDesc) : NULL;
    const sd_tensor_t *dxd = c ? sd_tensor(call, "dxDesc", dxDesc) : NULL;
    if (!dxd)
        return BAD;
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(w && dy && dx, BAD, "w, dy or dx is NULL");
    struct sd_conv_geom g;
    cudnnStatus_t st;
    if ((st = sd_conv_algo(call, true, (int)algo)) != CUDNN_STATUS_SUCCESS ||
        (st = sd_conv_check(call, true, dxd, wd, c, dyd, &g)) != CUDNN_STATUS_SUCCESS ||
        (st = sd_conv_wspace(call, (int)algo, dxd, wd, workSpace, workSpaceSizeInBytes)) != CUDNN_STATUS_SUCCESS)
        return st;
    SPAN("w", w, sd_bytes((uint64_t)sd_f_numel(wd), wd->dt));
    SPAN("dy", dy, sd_t_extent(dyd));
    SPAN("dx", dx, sd_t_extent(dxd));
    bool dbl = dxd->dt == CUDNN_DATA_DOUBLE;
    struct sim_work wk;
    sd_conv_work(dyd, wd, c, dxd, g.macs, sd_scal(alpha, dbl), sd_scal(beta, dbl), &wk);
    return sd_run(call, h, sd_conv_kernel(true, (int)algo, c, dxd->dt), &wk);
}

/* one benchmarked candidate of a Find call */
struct sd_perf {
    int algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    cudnnDeterminism_t determinism;
    cudnnMathType_t math;
};

/* Find*AlgorithmEx: the checks of the compute call, then algo 1 and algo 0,
 * each run once on the caller's buffers (Find overwrites y / dx) when the
 * workspace given holds what it needs, else reported with the allocation
 * failure status (CUDNN_STATUS_ALLOC_FAILED in the reference, the enumerant
 * now named ..._HOST_ALLOCATION_FAILED); successes first, fastest first.
 * Reference: BAD_PARAM when returnedAlgoCount or perfResults is NULL or
 * requestedAlgoCount < 1. */
static cudnnStatus_t sd_find_algos(const char *call, bool bwd, cudnnHandle_t handle, cudnnTensorDescriptor_t inDesc,
                                   const void *in, cudnnFilterDescriptor_t wDesc, const void *w,
                                   cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t outDesc, void *out,
                                   int requested, bool outs, int *returned, struct sd_perf *res, void *ws,
                                   size_t wsb) {
    const char *inn = bwd ? "dyDesc" : "xDesc", *outn = bwd ? "dxDesc" : "yDesc";
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_tensor_t *ind = h ? sd_tensor(call, inn, inDesc) : NULL;
    const sd_filter_t *wd = ind ? sd_filter(call, "wDesc", wDesc) : NULL;
    const sd_conv_t *c = wd ? sd_conv(call, convDesc) : NULL;
    const sd_tensor_t *outd = c ? sd_tensor(call, outn, outDesc) : NULL;
    if (!outd)
        return BAD;
    SIM_REQ(outs, BAD, "returnedAlgoCount or perfResults is NULL");
    SIM_REQ(requested >= 1, BAD, "requestedAlgoCount %d (must be >= 1)", requested);
    SIM_REQ(in && w && out, BAD, "%s, w or %s is NULL", bwd ? "dy" : "x", bwd ? "dx" : "y");
    SIM_REQ(ws || !wsb, BAD, "workSpace is NULL with workSpaceSizeInBytes %zu", wsb);
    const sd_tensor_t *xd = bwd ? outd : ind, *yd = bwd ? ind : outd; /* the forward convolution's */
    struct sd_conv_geom g;
    cudnnStatus_t st = sd_conv_check(call, bwd, xd, wd, c, yd, &g);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    SPAN(bwd ? "dy" : "x", in, sd_t_extent(ind));
    SPAN("w", w, sd_bytes((uint64_t)sd_f_numel(wd), wd->dt));
    SPAN(bwd ? "dx" : "y", out, sd_t_extent(outd));
    if (wsb)
        SPAN("workSpace", ws, wsb);
    if (sim_stream(call, h->stream))
        return CUDNN_STATUS_EXECUTION_FAILED;
    int n = 0;
    struct sd_perf failed[2];
    int nf = 0;
    for (int algo = 1; algo >= 0; algo--) {
        struct sd_perf p = {.algo = algo,
                            .memory = sd_conv_ws(algo, xd, wd),
                            .determinism = bwd && algo == 0 ? CUDNN_NON_DETERMINISTIC : CUDNN_DETERMINISTIC,
                            .math = c->math};
        if (p.memory > wsb) {
            p.status = CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
            p.time = -1.0f;
            failed[nf++] = p;
            continue;
        }
        p.status = CUDNN_STATUS_SUCCESS;
        p.time = (float)(0.004 + g.macs * (algo == 1 ? 2.0e-11 : 2.5e-11)); /* ms: algo 1 is the faster */
        struct sim_work wk;
        sd_conv_work(ind, wd, c, outd, g.macs, 1.0, 0.0, &wk);
        sim_launch(sd_conv_kernel(bwd, algo, c, xd->dt), h->stream, &wk);
        if (n < requested)
            res[n++] = p;
    }
    for (int i = 0; i < nf && n < requested; i++)
        res[n++] = failed[i];
    *returned = n;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, void *y,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace,
                                                     size_t workSpaceSizeInBytes) {
    struct sd_perf res[2];
    int n = 0;
    cudnnStatus_t st = sd_find_algos(__func__, false, handle, xDesc, x, wDesc, w, convDesc, yDesc, y,
                                     requestedAlgoCount < 2 ? requestedAlgoCount : 2,
                                     returnedAlgoCount && perfResults, &n, res, workSpace, workSpaceSizeInBytes);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    for (int i = 0; i < n; i++) {
        memset(&perfResults[i], 0, sizeof perfResults[i]);
        perfResults[i].algo = (cudnnConvolutionFwdAlgo_t)res[i].algo;
        perfResults[i].status = res[i].status;
        perfResults[i].time = res[i].time;
        perfResults[i].memory = res[i].memory;
        perfResults[i].determinism = res[i].determinism;
        perfResults[i].mathType = res[i].math;
    }
    *returnedAlgoCount = n;
    return st;
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                          const void *w, const cudnnTensorDescriptor_t dyDesc,
                                                          const void *dy, const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnTensorDescriptor_t dxDesc, void *dx,
                                                          const int requestedAlgoCount, int *returnedAlgoCount,
                                                          cudnnConvolutionBwdDataAlgoPerf_t *perfResults,
                                                          void *workSpace, size_t workSpaceSizeInBytes) {
    struct sd_perf res[2];
    int n = 0;
    cudnnStatus_t st = sd_find_algos(__func__, true, handle, dyDesc, dy, wDesc, w, convDesc, dxDesc, dx,
                                     requestedAlgoCount < 2 ? requestedAlgoCount : 2,
                                     returnedAlgoCount && perfResults, &n, res, workSpace, workSpaceSizeInBytes);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    for (int i = 0; i < n; i++) {
        memset(&perfResults[i], 0, sizeof perfResults[i]);
        perfResults[i].algo = (cudnnConvolutionBwdDataAlgo_t)res[i].algo;
        perfResults[i].status = res[i].status;
        perfResults[i].time = res[i].time;
        perfResults[i].memory = res[i].memory;
        perfResults[i].determinism = res[i].determinism;
        perfResults[i].mathType = res[i].math;
    }
    *returnedAlgoCount = n;
    return st;
}

/* ---- AddTensor, OpTensor ---------------------------------------------------------------- */

/* Reference: each dimension of A must match C's or be 1; only 4-D and 5-D
 * tensors (NOT_SUPPORTED above 5); BAD_PARAM for incompatible dims or
 * differing data types. Work: the blend only (C = alpha*A + beta*C). */
cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t aDesc,
                             const void *A, const void *beta, const cudnnTensorDescriptor_t cDesc, void *C) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_tensor_t *a = h ? sd_tensor(call, "aDesc", aDesc) : NULL;
    const sd_tensor_t *c = a ? sd_tensor(call, "cDesc", cDesc) : NULL;
    if (!c)
        return BAD;
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(A && C, BAD, "A or C is NULL");
    char b1[128], b2[128];
    sd_dims(b1, sizeof b1, a->nb, a->dim);
    sd_dims(b2, sizeof b2, c->nb, c->dim);
    SIM_REQ(c->nb == 4 || c->nb == 5, UNSUP, "cDesc %s: cudnnAddTensor takes 4-D and 5-D tensors", b2);
    SIM_REQ(a->nb == c->nb, BAD, "aDesc %s and cDesc %s differ in rank", b1, b2);
    SIM_REQ(a->dt == c->dt, BAD, "aDesc and cDesc differ in data type (%d, %d)", (int)a->dt, (int)c->dt);
    for (int i = 0; i < c->nb; i++)
        SIM_REQ(a->dim[i] == 1 || a->dim[i] == c->dim[i], BAD,
            "aDesc %s does not broadcast to cDesc %s: dim %d must be 1 or %d", b1, b2, i, c->dim[i]);
    SPAN("A", A, sd_t_extent(a));
    SPAN("C", C, sd_t_extent(c));
    bool dbl = c->dt == CUDNN_DATA_DOUBLE;
    double al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    sd_blend(&wk, dbl, sd_t_numel(c), al, be);
    wk.dram_read = sd_t_bytes(a) + (be != 0.0 ? sd_t_bytes(c) : 0);
    wk.dram_write = sd_t_bytes(c);
    return sd_run(call, h, "cudnn::ops::add_tensor_kernel", &wk);
}

cudnnStatus_t cudnnCreateOpTensorDescriptor(cudnnOpTensorDescriptor_t *opTensorDesc) {
    const char *call = __func__;
    SD_CREATE(struct cudnnOpTensorStruct, SD_OPT, opTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc) {
    return sd_destroy(__func__, opTensorDesc, SD_OPT);
}

cudnnStatus_t cudnnSetOpTensorDescriptor(cudnnOpTensorDescriptor_t opTensorDesc, cudnnOpTensorOp_t opTensorOp,
                                         cudnnDataType_t opTensorCompType, cudnnNanPropagation_t opTensorNanOpt) {
    const char *call = __func__;
    struct cudnnOpTensorStruct *d = sd_get(call, "opTensorDesc", opTensorDesc, SD_OPT);
    if (!d)
        return BAD;
    SIM_REQ(opTensorOp >= CUDNN_OP_TENSOR_ADD && opTensorOp <= CUDNN_OP_TENSOR_NOT, BAD,
        "opTensorOp %d is not a cudnnOpTensorOp_t", (int)opTensorOp);
    SIM_REQ(sd_dt_enum(opTensorCompType), BAD, "opTensorCompType %d is not a cudnnDataType_t", (int)opTensorCompType);
    SIM_REQ((int)opTensorNanOpt == 0 || (int)opTensorNanOpt == 1, BAD, "opTensorNanOpt %d is not a cudnnNanPropagation_t",
        (int)opTensorNanOpt);
    d->op = opTensorOp;
    d->ct = opTensorCompType;
    d->set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* the reference's table of A/B and C data types (A and B alike); the
   compute type is DOUBLE for double data, else FLOAT */
static bool sd_optensor_types(cudnnDataType_t ab, cudnnDataType_t c) {
    switch (ab) {
    case CUDNN_DATA_FLOAT:
        return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF || c == CUDNN_DATA_INT8 || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_HALF: return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_HALF;
    case CUDNN_DATA_INT8: return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_INT8;
    case CUDNN_DATA_BFLOAT16: return c == CUDNN_DATA_FLOAT || c == CUDNN_DATA_BFLOAT16;
    case CUDNN_DATA_DOUBLE: return c == CUDNN_DATA_DOUBLE;
    default: return false;
    }
}

/* Reference: C = op(alpha1*A, alpha2*B) + beta*C; A's dims must be C's, each
 * of B's C's or 1; up to 5 dims (BAD_PARAM above); BAD_PARAM when the compute
 * type is not as the table says. B is ignored for SQRT and NOT. Work per C
 * element: ADD one fadd, MUL one fmul, MIN/MAX/SQRT/NOT none; alpha1 != 1 and
 * alpha2 != 1 one fmul each; then the blend's beta. */
cudnnStatus_t cudnnOpTensor(cudnnHandle_t handle, const cudnnOpTensorDescriptor_t opTensorDesc, const void *alpha1,
                            const cudnnTensorDescriptor_t aDesc, const void *A, const void *alpha2,
                            const cudnnTensorDescriptor_t bDesc, const void *B, const void *beta,
                            const cudnnTensorDescriptor_t cDesc, void *C) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const struct cudnnOpTensorStruct *op = h ? sd_get(call, "opTensorDesc", opTensorDesc, SD_OPT) : NULL;
    if (op && !op->set) {
        sim_fail(call, "opTensorDesc %p was never set", (void *)opTensorDesc);
        return BAD;
    }
    bool unary = op && (op->op == CUDNN_OP_TENSOR_SQRT || op->op == CUDNN_OP_TENSOR_NOT);
    const sd_tensor_t *a = op ? sd_tensor(call, "aDesc", aDesc) : NULL;
    const sd_tensor_t *b = a && !unary ? sd_tensor(call, "bDesc", bDesc) : NULL;
    const sd_tensor_t *c = a && (unary || b) ? sd_tensor(call, "cDesc", cDesc) : NULL;
    if (!c)
        return BAD;
    SIM_REQ(alpha1 && beta && (unary || alpha2), BAD, "alpha1, alpha2 or beta is NULL");
    SIM_REQ(A && C && (unary || B), BAD, "A, B or C is NULL");
    char b1[128], b2[128], b3[128];
    sd_dims(b1, sizeof b1, a->nb, a->dim);
    sd_dims(b3, sizeof b3, c->nb, c->dim);
    if (b)
        sd_dims(b2, sizeof b2, b->nb, b->dim);
    else
        snprintf(b2, sizeof b2, "(ignored)");
    SIM_REQ(c->nb <= 5, BAD, "cDesc %s: cudnnOpTensor takes tensors of up to 5 dims", b3);
    SIM_REQ(a->nb == c->nb && (unary || b->nb == c->nb), BAD, "aDesc %s, bDesc %s and cDesc %s differ in rank", b1, b2,
        b3);
    SIM_REQ(sd_same_dims(a, c), BAD, "aDesc %s differs from cDesc %s (A must have C's dims)", b1, b3);
    for (int i = 0; !unary && i < c->nb; i++)
        SIM_REQ(b->dim[i] == 1 || b->dim[i] == c->dim[i], BAD,
            "bDesc %s does not broadcast to cDesc %s: dim %d must be 1 or %d", b2, b3, i, c->dim[i]);
    bool dbl = a->dt == CUDNN_DATA_DOUBLE;
    SIM_REQ(op->ct == (dbl ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT), BAD,
        "opTensorCompType %d with %s data (must be %s)", (int)op->ct, dbl ? "double" : "non-double",
        dbl ? "CUDNN_DATA_DOUBLE" : "CUDNN_DATA_FLOAT");
    SIM_REQ((unary || b->dt == a->dt) && sd_optensor_types(a->dt, c->dt), UNSUP,
        "data types A %d, B %d, C %d are no supported combination", (int)a->dt, b ? (int)b->dt : -1, (int)c->dt);
    SPAN("A", A, sd_t_extent(a));
    if (!unary)
        SPAN("B", B, sd_t_extent(b));
    SPAN("C", C, sd_t_extent(c));
    double n = sd_t_numel(c), a1 = sd_scal(alpha1, dbl), be = sd_scal(beta, dbl);
    double a2 = unary ? 1.0 : sd_scal(alpha2, dbl);
    struct sim_work wk = {0};
    sd_flops(&wk, dbl, op->op == CUDNN_OP_TENSOR_ADD ? n : 0,
             (op->op == CUDNN_OP_TENSOR_MUL ? n : 0) + (a1 != 1.0 ? n : 0) + (a2 != 1.0 ? n : 0), 0);
    sd_blend(&wk, dbl, n, 1.0, be);
    wk.dram_read = sd_t_bytes(a) + (b ? sd_t_bytes(b) : 0) + (be != 0.0 ? sd_t_bytes(c) : 0);
    wk.dram_write = sd_t_bytes(c);
    return sd_run(call, h, "cudnn::ops::op_tensor_kernel", &wk);
}

/* ---- ReduceTensor ------------------------------------------------------------------------- */

cudnnStatus_t cudnnCreateReduceTensorDescriptor(cudnnReduceTensorDescriptor_t *reduceTensorDesc) {
    const char *call = __func__;
    SD_CREATE(struct cudnnReduceTensorStruct, SD_RED, reduceTensorDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc) {
    return sd_destroy(__func__, reduceTensorDesc, SD_RED);
}

cudnnStatus_t cudnnSetReduceTensorDescriptor(cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                             cudnnReduceTensorOp_t reduceTensorOp, cudnnDataType_t reduceTensorCompType,
                                             cudnnNanPropagation_t reduceTensorNanOpt,
                                             cudnnReduceTensorIndices_t reduceTensorIndices,
                                             cudnnIndicesType_t reduceTensorIndicesType) {
    const char *call = __func__;
    struct cudnnReduceTensorStruct *d = sd_get(call, "reduceTensorDesc", reduceTensorDesc, SD_RED);
    if (!d)
        return BAD;
    SIM_REQ(reduceTensorOp >= CUDNN_REDUCE_TENSOR_ADD && reduceTensorOp <= CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS, BAD,
        "reduceTensorOp %d is not a cudnnReduceTensorOp_t", (int)reduceTensorOp);
    SIM_REQ(sd_dt_enum(reduceTensorCompType), BAD, "reduceTensorCompType %d is not a cudnnDataType_t",
        (int)reduceTensorCompType);
    SIM_REQ((int)reduceTensorNanOpt == 0 || (int)reduceTensorNanOpt == 1, BAD,
        "reduceTensorNanOpt %d is not a cudnnNanPropagation_t", (int)reduceTensorNanOpt);
    SIM_REQ(reduceTensorIndices == CUDNN_REDUCE_TENSOR_NO_INDICES ||
            reduceTensorIndices == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES,
        BAD, "reduceTensorIndices %d is not a cudnnReduceTensorIndices_t", (int)reduceTensorIndices);
    SIM_REQ(reduceTensorIndicesType >= CUDNN_32BIT_INDICES && reduceTensorIndicesType <= CUDNN_8BIT_INDICES, BAD,
        "reduceTensorIndicesType %d is not a cudnnIndicesType_t", (int)reduceTensorIndicesType);
    d->op = reduceTensorOp;
    d->ct = reduceTensorCompType;
    d->ind = reduceTensorIndices;
    d->itype = reduceTensorIndicesType;
    d->set = true;
    return CUDNN_STATUS_SUCCESS;
}

static const struct cudnnReduceTensorStruct *sd_red(const char *call, cudnnReduceTensorDescriptor_t r) {
    const struct cudnnReduceTensorStruct *d = sd_get(call, "reduceTensorDesc", r, SD_RED);
    if (d && !d->set) {
        sim_fail(call, "reduceTensorDesc %p was never set", (void *)r);
        return NULL;
    }
    return d;
}

/* Reference: each dim of C must match A's or be 1 (the reduced dims); up to
 * CUDNN_DIM_MAX dims; double A and C go together with a DOUBLE compute type,
 * half/int8 (and bf16) mix with float under a FLOAT compute type. */
static cudnnStatus_t sd_reduce_check(const char *call, const struct cudnnReduceTensorStruct *r, const sd_tensor_t *a,
                                     const sd_tensor_t *c) {
    char b1[128], b2[128];
    sd_dims(b1, sizeof b1, a->nb, a->dim);
    sd_dims(b2, sizeof b2, c->nb, c->dim);
    SIM_REQ(a->nb == c->nb, BAD, "aDesc %s and cDesc %s differ in rank", b1, b2);
    for (int i = 0; i < a->nb; i++)
        SIM_REQ(c->dim[i] == 1 || c->dim[i] == a->dim[i], BAD,
            "cDesc %s: dim %d is %d; each must be 1 (reduced) or aDesc %s's %d", b2, i, c->dim[i], b1, a->dim[i]);
    if (a->dt == CUDNN_DATA_DOUBLE || c->dt == CUDNN_DATA_DOUBLE) {
        SIM_REQ(a->dt == c->dt && r->ct == CUDNN_DATA_DOUBLE, BAD,
            "double data: A, C and the compute type must all be double (A %d, C %d, compute %d)", (int)a->dt,
            (int)c->dt, (int)r->ct);
    } else {
        SIM_REQ(r->ct == CUDNN_DATA_FLOAT, BAD, "reduceTensorCompType %d (CUDNN_DATA_FLOAT for non-double data)",
            (int)r->ct);
        bool ok = true;
        for (int k = 0; k < 2; k++) {
            cudnnDataType_t dt = k ? c->dt : a->dt;
            ok = ok && (dt == CUDNN_DATA_FLOAT || dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_INT8 ||
                        dt == CUDNN_DATA_BFLOAT16);
        }
        SIM_REQ(ok, UNSUP, "data types A %d, C %d are not supported by cudnnReduceTensor", (int)a->dt, (int)c->dt);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ocsim's workspace: 1 KiB + 8 bytes per output element, in whole KiB */
static size_t sd_reduce_ws(const sd_tensor_t *c) {
    return 1024 + (((size_t)sd_t_numel(c) * 8 + 1023) & ~(size_t)1023);
}

cudnnStatus_t cudnnGetReductionWorkspaceSize(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                             const cudnnTensorDescriptor_t aDesc, const cudnnTensorDescriptor_t cDesc,
                                             size_t *sizeInBytes) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const struct cudnnReduceTensorStruct *r = h ? sd_red(call, reduceTensorDesc) : NULL;
    const sd_tensor_t *a = r ? sd_tensor(call, "aDesc", aDesc) : NULL;
    const sd_tensor_t *c = a ? sd_tensor(call, "cDesc", cDesc) : NULL;
    if (!c)
        return BAD;
    SIM_REQ(sizeInBytes, BAD, "sizeInBytes is NULL");
    cudnnStatus_t st = sd_reduce_check(call, r, a, c);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    *sizeInBytes = sd_reduce_ws(c);
    return CUDNN_STATUS_SUCCESS;
}

/* Reference, besides sd_reduce_check: BAD_PARAM when the corresponding dims
 * of A and C all match (nothing to reduce), or indices are asked of an op
 * other than MIN/MAX; only 32-bit indices; the indices and workspace given
 * must hold what cudnnGetReductionIndicesSize / cudnnGetReductionWorkspaceSize
 * report (CUDNN_STATUS_INVALID_VALUE in the reference, the deprecated
 * enumerant BAD_PARAM replaces). Work per A element: ADD/NORM1 one fadd,
 * MUL/MUL_NO_ZEROS one fmul, NORM2 one ffma, MIN/MAX/AMAX none; AVG one fadd
 * per A element and one fmul per C element; then the blend. */
cudnnStatus_t cudnnReduceTensor(cudnnHandle_t handle, const cudnnReduceTensorDescriptor_t reduceTensorDesc,
                                void *indices, size_t indicesSizeInBytes, void *workspace, size_t workspaceSizeInBytes,
                                const void *alpha, const cudnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                                const cudnnTensorDescriptor_t cDesc, void *C) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const struct cudnnReduceTensorStruct *r = h ? sd_red(call, reduceTensorDesc) : NULL;
    const sd_tensor_t *a = r ? sd_tensor(call, "aDesc", aDesc) : NULL;
    const sd_tensor_t *c = a ? sd_tensor(call, "cDesc", cDesc) : NULL;
    if (!c)
        return BAD;
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(A && C, BAD, "A or C is NULL");
    cudnnStatus_t st = sd_reduce_check(call, r, a, c);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    char b1[128];
    SIM_REQ(!sd_same_dims(a, c), BAD, "aDesc and cDesc are both %s: no dim is reduced",
        sd_dims(b1, sizeof b1, a->nb, a->dim));
    bool minmax = r->op == CUDNN_REDUCE_TENSOR_MIN || r->op == CUDNN_REDUCE_TENSOR_MAX ||
                  r->op == CUDNN_REDUCE_TENSOR_AMAX;
    if (r->ind == CUDNN_REDUCE_TENSOR_FLATTENED_INDICES) {
        SIM_REQ(minmax, BAD, "indices requested for reduce op %d (MIN and MAX only)", (int)r->op);
        SIM_REQ(r->itype == CUDNN_32BIT_INDICES, UNSUP, "indices type %d (only 32-bit indices)", (int)r->itype);
        size_t need = (size_t)sd_t_numel(c) * 4;
        SIM_REQ(indicesSizeInBytes >= need, BAD, "indicesSizeInBytes %zu < %zu", indicesSizeInBytes, need);
        SPAN("indices", indices, indicesSizeInBytes);
    }
    size_t need = sd_reduce_ws(c);
    SIM_REQ(workspaceSizeInBytes >= need, BAD,
        "workspaceSizeInBytes %zu < %zu, what cudnnGetReductionWorkspaceSize reports", workspaceSizeInBytes, need);
    SPAN("workspace", workspace, workspaceSizeInBytes);
    SPAN("A", A, sd_t_extent(a));
    SPAN("C", C, sd_t_extent(c));
    bool dbl = c->dt == CUDNN_DATA_DOUBLE;
    double na = sd_t_numel(a), nc = sd_t_numel(c);
    double al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    switch (r->op) {
    case CUDNN_REDUCE_TENSOR_ADD: case CUDNN_REDUCE_TENSOR_NORM1: sd_flops(&wk, dbl, na, 0, 0); break;
    case CUDNN_REDUCE_TENSOR_MUL: case CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS: sd_flops(&wk, dbl, 0, na, 0); break;
    case CUDNN_REDUCE_TENSOR_NORM2: sd_flops(&wk, dbl, 0, 0, na); break;
    case CUDNN_REDUCE_TENSOR_AVG: sd_flops(&wk, dbl, na, nc, 0); break;
    default: break;
    }
    sd_blend(&wk, dbl, nc, al, be);
    wk.dram_read = sd_t_bytes(a) + (be != 0.0 ? sd_t_bytes(c) : 0);
    wk.dram_write = sd_t_bytes(c);
    return sd_run(call, h, "cudnn::ops::reduce_tensor_kernel", &wk);
}

/* ---- pooling ------------------------------------------------------------------------------ */

cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *poolingDesc) {
    const char *call = __func__;
    SD_CREATE(struct cudnnPoolingStruct, SD_POOL, poolingDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t poolingDesc) {
    return sd_destroy(__func__, poolingDesc, SD_POOL);
}

/* Reference: nbDims > 0 (NOT_SUPPORTED above CUDNN_DIM_MAX - 2); window and
 * stride elements > 0, padding >= 0; BAD_PARAM for those and for an invalid
 * mode or NaN option. */
cudnnStatus_t cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t poolingDesc, const cudnnPoolingMode_t mode,
                                          const cudnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                          const int windowDimA[], const int paddingA[], const int strideA[]) {
    const char *call = __func__;
    struct cudnnPoolingStruct *p = sd_get(call, "poolingDesc", poolingDesc, SD_POOL);
    if (!p)
        return BAD;
    SIM_REQ(mode >= CUDNN_POOLING_MAX && mode <= CUDNN_POOLING_MAX_DETERMINISTIC, BAD,
        "mode %d is not a cudnnPoolingMode_t", (int)mode);
    SIM_REQ((int)maxpoolingNanOpt == 0 || (int)maxpoolingNanOpt == 1, BAD,
        "maxpoolingNanOpt %d is not a cudnnNanPropagation_t", (int)maxpoolingNanOpt);
    SIM_REQ(nbDims >= 1, BAD, "nbDims %d (must be > 0)", nbDims);
    SIM_REQ(nbDims <= CUDNN_DIM_MAX - 2, UNSUP, "nbDims %d > CUDNN_DIM_MAX - 2", nbDims);
    SIM_REQ(windowDimA && paddingA && strideA, BAD, "windowDimA, paddingA or strideA is NULL");
    char b[128];
    for (int i = 0; i < nbDims; i++) {
        SIM_REQ(windowDimA[i] >= 1, BAD, "windowDimA %s: window %d is not positive",
            sd_dims(b, sizeof b, nbDims, windowDimA), i);
        SIM_REQ(paddingA[i] >= 0, BAD, "paddingA %s: padding %d is negative", sd_dims(b, sizeof b, nbDims, paddingA), i);
        SIM_REQ(strideA[i] >= 1, BAD, "strideA %s: stride %d is not positive", sd_dims(b, sizeof b, nbDims, strideA), i);
    }
    p->mode = mode;
    p->nb = nbDims;
    for (int i = 0; i < nbDims; i++) {
        p->win[i] = windowDimA[i];
        p->pad[i] = paddingA[i];
        p->str[i] = strideA[i];
    }
    p->set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Reference: out = 1 + (in + 2*pad - window)/stride per spatial dim, N and C
 * the input's; BAD_PARAM when nbDims is not the input's rank, the descriptor
 * was never set, or the window is larger than the padded input. */
cudnnStatus_t cudnnGetPoolingNdForwardOutputDim(const cudnnPoolingDescriptor_t poolingDesc,
                                                const cudnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                int outputTensorDimA[]) {
    const char *call = __func__;
    const struct cudnnPoolingStruct *p = sd_get(call, "poolingDesc", poolingDesc, SD_POOL);
    if (p && !p->set) {
        sim_fail(call, "poolingDesc %p was never set", (void *)poolingDesc);
        return BAD;
    }
    const sd_tensor_t *x = p ? sd_tensor(call, "inputTensorDesc", inputTensorDesc) : NULL;
    if (!x)
        return BAD;
    SIM_REQ(outputTensorDimA, BAD, "outputTensorDimA is NULL");
    SIM_REQ(nbDims == x->nb && p->nb == x->nb - 2, BAD, "nbDims %d, the input has %d dims, the descriptor %d spatial",
        nbDims, x->nb, p->nb);
    outputTensorDimA[0] = x->dim[0];
    outputTensorDimA[1] = x->dim[1];
    for (int i = 0; i < p->nb; i++) {
        int64_t padded = (int64_t)x->dim[2 + i] + 2 * (int64_t)p->pad[i];
        SIM_REQ(padded >= p->win[i], BAD, "spatial dim %d: window %d is larger than the padded input (%lld)", i,
            p->win[i], (long long)padded);
        outputTensorDimA[2 + i] = (int)((padded - p->win[i]) / p->str[i] + 1);
    }
    return CUDNN_STATUS_SUCCESS;
}

/* Reference: 2 or 3 spatial dims; BAD_PARAM when x's and y's N or C or data
 * types differ; NOT_SUPPORTED when the innermost stride of x or y is not 1;
 * y's spatial dims are cudnnGetPoolingNdForwardOutputDim's
 * 1 + (in + 2*pad - window)/stride. Work: MAX none; AVG one fadd per window
 * element and one fmul per output; then the blend. */
cudnnStatus_t cudnnPoolingForward(cudnnHandle_t handle, const cudnnPoolingDescriptor_t poolingDesc, const void *alpha,
                                  const cudnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                  const cudnnTensorDescriptor_t yDesc, void *y) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const struct cudnnPoolingStruct *p = h ? sd_get(call, "poolingDesc", poolingDesc, SD_POOL) : NULL;
    if (p && !p->set) {
        sim_fail(call, "poolingDesc %p was never set", (void *)poolingDesc);
        return BAD;
    }
    const sd_tensor_t *xd = p ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_tensor_t *yd = xd ? sd_tensor(call, "yDesc", yDesc) : NULL;
    if (!yd)
        return BAD;
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(x && y, BAD, "x or y is NULL");
    char b1[128], b2[128];
    sd_dims(b1, sizeof b1, xd->nb, xd->dim);
    sd_dims(b2, sizeof b2, yd->nb, yd->dim);
    SIM_REQ(xd->nb == 4 || xd->nb == 5, UNSUP, "xDesc %s: pooling takes 2 or 3 spatial dims", b1);
    SIM_REQ(yd->nb == xd->nb, BAD, "xDesc %s and yDesc %s differ in rank", b1, b2);
    SIM_REQ(p->nb == xd->nb - 2, BAD, "poolingDesc has %d dims, xDesc %s has %d spatial dims", p->nb, b1, xd->nb - 2);
    SIM_REQ(xd->dt == yd->dt, BAD, "xDesc and yDesc differ in data type (%d, %d)", (int)xd->dt, (int)yd->dt);
    SIM_REQ(xd->dim[0] == yd->dim[0] && xd->dim[1] == yd->dim[1], BAD, "xDesc %s and yDesc %s differ in N or C", b1, b2);
    SIM_REQ(xd->str[xd->nb - 1] == 1 && yd->str[yd->nb - 1] == 1, UNSUP, "the innermost stride of x or y is not 1");
    double win = 1;
    for (int i = 0; i < p->nb; i++) {
        int64_t padded = (int64_t)xd->dim[2 + i] + 2 * (int64_t)p->pad[i];
        SIM_REQ(padded >= p->win[i], BAD, "spatial dim %d: window %d is larger than the padded input (%lld)", i, p->win[i],
            (long long)padded);
        int64_t o = (padded - p->win[i]) / p->str[i] + 1;
        SIM_REQ(yd->dim[2 + i] == o, BAD,
            "yDesc %s: spatial dim %d is %d; xDesc %s with window %d, pad %d and stride %d gives %lld "
            "(out = 1 + (in + 2*pad - window)/stride)",
            b2, i, yd->dim[2 + i], b1, p->win[i], p->pad[i], p->str[i], (long long)o);
        win *= p->win[i];
    }
    SPAN("x", x, sd_t_extent(xd));
    SPAN("y", y, sd_t_extent(yd));
    bool dbl = yd->dt == CUDNN_DATA_DOUBLE;
    double n = sd_t_numel(yd), al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    bool avg = p->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ||
               p->mode == CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    if (avg)
        sd_flops(&wk, dbl, n * win, n, 0);
    sd_blend(&wk, dbl, n, al, be);
    wk.dram_read = sd_t_bytes(xd) + (be != 0.0 ? sd_t_bytes(yd) : 0);
    wk.dram_write = sd_t_bytes(yd);
    return sd_run(call, h, xd->nb == 4 ? "cudnn::ops::pooling_fw_4d_kernel" : "cudnn::ops::pooling_fw_5d_kernel",
                  &wk);
}

/* ---- activation, softmax ------------------------------------------------------------------ */

cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *activationDesc) {
    const char *call = __func__;
    SD_CREATE(struct cudnnActivationStruct, SD_ACT, activationDesc);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc) {
    return sd_destroy(__func__, activationDesc, SD_ACT);
}

/* Reference: BAD_PARAM when mode or reluNanOpt is no valid enumerant; coef
   (clipped-ReLU ceiling, ELU alpha) is unconstrained */
cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc, cudnnActivationMode_t mode,
                                           cudnnNanPropagation_t reluNanOpt, double coef) {
    const char *call = __func__;
    struct cudnnActivationStruct *d = sd_get(call, "activationDesc", activationDesc, SD_ACT);
    if (!d)
        return BAD;
    SIM_REQ(mode >= CUDNN_ACTIVATION_SIGMOID && mode <= CUDNN_ACTIVATION_SWISH, BAD,
        "mode %d is not a cudnnActivationMode_t", (int)mode);
    SIM_REQ((int)reluNanOpt == 0 || (int)reluNanOpt == 1, BAD, "reluNanOpt %d is not a cudnnNanPropagation_t",
        (int)reluNanOpt);
    d->mode = mode;
    d->coef = coef;
    d->set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* x and y of an elementwise call: same dims and data type (BAD_PARAM in the
   Activation and Softmax references) */
static cudnnStatus_t sd_same_xy(const char *call, const sd_tensor_t *x, const sd_tensor_t *y, cudnnStatus_t st) {
    char b1[128], b2[128];
    SIM_REQ(sd_same_dims(x, y), st, "xDesc %s and yDesc %s differ", sd_dims(b1, sizeof b1, x->nb, x->dim),
        sd_dims(b2, sizeof b2, y->nb, y->dim));
    SIM_REQ(x->dt == y->dt, st, "xDesc and yDesc differ in data type (%d, %d)", (int)x->dt, (int)y->dt);
    return CUDNN_STATUS_SUCCESS;
}

/* Reference: BAD_PARAM for differing x/y dims or data types, or differing
 * strides in place (x == y). Work per element (fadd, fmul): SIGMOID (1, 1),
 * TANH and ELU and SWISH (1, 2), RELU, CLIPPED_RELU and IDENTITY none; then
 * the blend. */
cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle, cudnnActivationDescriptor_t activationDesc,
                                     const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                     const void *beta, const cudnnTensorDescriptor_t yDesc, void *y) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const struct cudnnActivationStruct *a = h ? sd_get(call, "activationDesc", activationDesc, SD_ACT) : NULL;
    if (a && !a->set) {
        sim_fail(call, "activationDesc %p was never set", (void *)activationDesc);
        return BAD;
    }
    const sd_tensor_t *xd = a ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_tensor_t *yd = xd ? sd_tensor(call, "yDesc", yDesc) : NULL;
    if (!yd)
        return BAD;
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(x && y, BAD, "x or y is NULL");
    cudnnStatus_t st = sd_same_xy(call, xd, yd, BAD);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    SIM_REQ(x != y || sd_same_strides(xd, yd), BAD, "in place (x == y) with differing x and y strides");
    SPAN("x", x, sd_t_extent(xd));
    SPAN("y", y, sd_t_extent(yd));
    bool dbl = yd->dt == CUDNN_DATA_DOUBLE;
    double n = sd_t_numel(yd), al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    switch (a->mode) {
    case CUDNN_ACTIVATION_SIGMOID: sd_flops(&wk, dbl, n, n, 0); break;
    case CUDNN_ACTIVATION_TANH: case CUDNN_ACTIVATION_ELU: case CUDNN_ACTIVATION_SWISH:
        sd_flops(&wk, dbl, n, 2 * n, 0);
        break;
    default: break;
    }
    sd_blend(&wk, dbl, n, al, be);
    wk.dram_read = sd_t_bytes(xd) + (be != 0.0 ? sd_t_bytes(yd) : 0);
    wk.dram_write = sd_t_bytes(yd);
    return sd_run(call, h, "cudnn::ops::activation_fw_4d_kernel", &wk);
}

/* Reference: BAD_PARAM for differing x/y dims or data types, or an invalid
 * algorithm or mode. Work per element (fadd, fmul): FAST (1, 2), ACCURATE
 * (2, 2), LOG (3, 1); then the blend. */
cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode,
                                  const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                  const void *beta, const cudnnTensorDescriptor_t yDesc, void *y) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_tensor_t *xd = h ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_tensor_t *yd = xd ? sd_tensor(call, "yDesc", yDesc) : NULL;
    if (!yd)
        return BAD;
    SIM_REQ(algo >= CUDNN_SOFTMAX_FAST && algo <= CUDNN_SOFTMAX_LOG, BAD, "algo %d is not a cudnnSoftmaxAlgorithm_t",
        (int)algo);
    SIM_REQ(mode == CUDNN_SOFTMAX_MODE_INSTANCE || mode == CUDNN_SOFTMAX_MODE_CHANNEL, BAD,
        "mode %d is not a cudnnSoftmaxMode_t", (int)mode);
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(x && y, BAD, "x or y is NULL");
    cudnnStatus_t st = sd_same_xy(call, xd, yd, BAD);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    SPAN("x", x, sd_t_extent(xd));
    SPAN("y", y, sd_t_extent(yd));
    bool dbl = yd->dt == CUDNN_DATA_DOUBLE;
    double n = sd_t_numel(yd), al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    sd_flops(&wk, dbl, algo == CUDNN_SOFTMAX_FAST ? n : algo == CUDNN_SOFTMAX_ACCURATE ? 2 * n : 3 * n,
             algo == CUDNN_SOFTMAX_LOG ? n : 2 * n, 0);
    sd_blend(&wk, dbl, n, al, be);
    wk.dram_read = sd_t_bytes(xd) + (be != 0.0 ? sd_t_bytes(yd) : 0);
    wk.dram_write = sd_t_bytes(yd);
    return sd_run(call, h, "cudnn::ops::softmax_fw_kernel", &wk);
}

/* ---- batch normalization ---------------------------------------------------------------- */

/* the data type of the derived descriptor: float for half and bf16 data */
static cudnnDataType_t sd_bn_type(cudnnDataType_t dt) {
    return dt == CUDNN_DATA_HALF || dt == CUDNN_DATA_BFLOAT16 ? CUDNN_DATA_FLOAT : dt;
}

/* the derived shape: [1, C, 1, ...] (spatial), [1, C, D.., H, W] (per activation) */
static void sd_bn_dims(const sd_tensor_t *x, cudnnBatchNormMode_t mode, int *dims) {
    for (int i = 0; i < x->nb; i++)
        dims[i] = i == 0 ? 1 : i == 1 || mode == CUDNN_BATCHNORM_PER_ACTIVATION ? x->dim[i] : 1;
}

/* Reference: BAD_PARAM for an invalid mode */
cudnnStatus_t cudnnDeriveBNTensorDescriptor(cudnnTensorDescriptor_t derivedBnDesc, const cudnnTensorDescriptor_t xDesc,
                                            cudnnBatchNormMode_t mode) {
    const char *call = __func__;
    sd_tensor_t *d = sd_get(call, "derivedBnDesc", derivedBnDesc, SD_TENSOR);
    const sd_tensor_t *x = d ? sd_tensor(call, "xDesc", xDesc) : NULL;
    if (!x)
        return BAD;
    SIM_REQ(mode >= CUDNN_BATCHNORM_PER_ACTIVATION && mode <= CUDNN_BATCHNORM_SPATIAL_PERSISTENT, BAD,
        "mode %d is not a cudnnBatchNormMode_t", (int)mode);
    d->nb = x->nb;
    d->dt = sd_bn_type(x->dt);
    sd_bn_dims(x, mode, d->dim);
    d->str[d->nb - 1] = 1;
    for (int i = d->nb - 2; i >= 0; i--)
        d->str[i] = d->str[i + 1] * d->dim[i + 1];
    d->set = true;
    return CUDNN_STATUS_SUCCESS;
}

/* Reference: BAD_PARAM when a pointer is NULL, x or y is not 4-D or 5-D,
 * bnScaleBiasMeanVarDesc is not 1xCx1x1(x1) (spatial) or 1xCxHxW (per
 * activation), epsilon < CUDNN_BN_MIN_EPSILON, or x and y differ in dims or
 * data type. The replay fills running variances positive: ocsim reads them
 * (device memory is host memory) and fails on one <= 0. Work: one ffma per
 * element; then the blend. */
cudnnStatus_t cudnnBatchNormalizationForwardInference(cudnnHandle_t handle, cudnnBatchNormMode_t mode,
                                                      const void *alpha, const void *beta,
                                                      const cudnnTensorDescriptor_t xDesc, const void *x,
                                                      const cudnnTensorDescriptor_t yDesc, void *y,
                                                      const cudnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
                                                      const void *bnScale, const void *bnBias,
                                                      const void *estimatedMean, const void *estimatedVariance,
                                                      double epsilon) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const sd_tensor_t *xd = h ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_tensor_t *yd = xd ? sd_tensor(call, "yDesc", yDesc) : NULL;
    const sd_tensor_t *bd = yd ? sd_tensor(call, "bnScaleBiasMeanVarDesc", bnScaleBiasMeanVarDesc) : NULL;
    if (!bd)
        return BAD;
    SIM_REQ(mode >= CUDNN_BATCHNORM_PER_ACTIVATION && mode <= CUDNN_BATCHNORM_SPATIAL_PERSISTENT, BAD,
        "mode %d is not a cudnnBatchNormMode_t", (int)mode);
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(x && y && bnScale && bnBias && estimatedMean && estimatedVariance, BAD,
        "x, y, bnScale, bnBias, estimatedMean or estimatedVariance is NULL");
    char b1[128], b2[128], b3[128];
    sd_dims(b1, sizeof b1, xd->nb, xd->dim);
    SIM_REQ(xd->nb == 4 || xd->nb == 5, BAD, "xDesc %s: batch normalization takes 4-D and 5-D tensors", b1);
    cudnnStatus_t st = sd_same_xy(call, xd, yd, BAD);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    int want[CUDNN_DIM_MAX];
    sd_bn_dims(xd, mode, want);
    bool ok = bd->nb == xd->nb;
    for (int i = 0; ok && i < xd->nb; i++)
        ok = bd->dim[i] == want[i];
    SIM_REQ(ok, BAD, "bnScaleBiasMeanVarDesc %s is not %s, what cudnnDeriveBNTensorDescriptor gives for xDesc %s",
        sd_dims(b2, sizeof b2, bd->nb, bd->dim), sd_dims(b3, sizeof b3, xd->nb, want), b1);
    SIM_REQ(bd->dt == sd_bn_type(xd->dt), BAD, "bnScaleBiasMeanVarDesc data type %d (the derived type is %d)", (int)bd->dt,
        (int)sd_bn_type(xd->dt));
    SIM_REQ(epsilon >= CUDNN_BN_MIN_EPSILON, BAD, "epsilon %g < CUDNN_BN_MIN_EPSILON (%g)", epsilon,
        (double)CUDNN_BN_MIN_EPSILON);
    uint64_t pb = sd_t_extent(bd);
    SPAN("x", x, sd_t_extent(xd));
    SPAN("y", y, sd_t_extent(yd));
    SPAN("bnScale", bnScale, pb);
    SPAN("bnBias", bnBias, pb);
    SPAN("estimatedMean", estimatedMean, pb);
    SPAN("estimatedVariance", estimatedVariance, pb);
    if (bd->dt == CUDNN_DATA_FLOAT || bd->dt == CUDNN_DATA_DOUBLE) {
        int idx[CUDNN_DIM_MAX] = {0};
        uint64_t count = (uint64_t)sd_t_numel(bd);
        for (uint64_t k = 0; k < count; k++) {
            uint64_t off = 0;
            for (int i = 0; i < bd->nb; i++)
                off += (uint64_t)idx[i] * (uint64_t)bd->str[i];
            double v = bd->dt == CUDNN_DATA_FLOAT ? (double)((const float *)estimatedVariance)[off]
                                                  : ((const double *)estimatedVariance)[off];
            SIM_REQ(v > 0, BAD, "estimatedVariance[%llu] is %g: the running variances must be positive",
                (unsigned long long)off, v);
            for (int i = bd->nb - 1; i >= 0 && ++idx[i] == bd->dim[i]; i--)
                idx[i] = 0;
        }
    }
    bool dbl = yd->dt == CUDNN_DATA_DOUBLE;
    double n = sd_t_numel(yd), al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    sd_flops(&wk, dbl, 0, 0, n);
    sd_blend(&wk, dbl, n, al, be);
    wk.dram_read = sd_t_bytes(xd) + 4 * sd_t_bytes(bd) + (be != 0.0 ? sd_t_bytes(yd) : 0);
    wk.dram_write = sd_t_bytes(yd);
    return sd_run(call, h, "cudnn::bn_fw_inf_1C11_kernel_NCHW", &wk);
}

/* ---- LRN ------------------------------------------------------------------------------------ */

/* created with the reference's defaults: lrnN 5, alpha 1e-4, beta 0.75, k 2 */
cudnnStatus_t cudnnCreateLRNDescriptor(cudnnLRNDescriptor_t *normDesc) {
    const char *call = __func__;
    SD_CREATE(struct cudnnLRNStruct, SD_LRN, normDesc);
    (*normDesc)->n = 5;
    (*normDesc)->alpha = 1e-4;
    (*normDesc)->beta = 0.75;
    (*normDesc)->k = 2.0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyLRNDescriptor(cudnnLRNDescriptor_t lrnDesc) {
    return sd_destroy(__func__, lrnDesc, SD_LRN);
}

/* Reference: CUDNN_LRN_MIN_N <= lrnN <= CUDNN_LRN_MAX_N, lrnK >=
   CUDNN_LRN_MIN_K, lrnBeta >= CUDNN_LRN_MIN_BETA; BAD_PARAM otherwise */
cudnnStatus_t cudnnSetLRNDescriptor(cudnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha, double lrnBeta,
                                    double lrnK) {
    const char *call = __func__;
    struct cudnnLRNStruct *d = sd_get(call, "normDesc", normDesc, SD_LRN);
    if (!d)
        return BAD;
    SIM_REQ(lrnN >= CUDNN_LRN_MIN_N && lrnN <= CUDNN_LRN_MAX_N, BAD, "lrnN %u outside [%d, %d]", lrnN, CUDNN_LRN_MIN_N,
        CUDNN_LRN_MAX_N);
    SIM_REQ(lrnK >= CUDNN_LRN_MIN_K, BAD, "lrnK %g < CUDNN_LRN_MIN_K (%g)", lrnK, CUDNN_LRN_MIN_K);
    SIM_REQ(lrnBeta >= CUDNN_LRN_MIN_BETA, BAD, "lrnBeta %g < CUDNN_LRN_MIN_BETA (%g)", lrnBeta, CUDNN_LRN_MIN_BETA);
    d->n = lrnN;
    d->alpha = lrnAlpha;
    d->beta = lrnBeta;
    d->k = lrnK;
    return CUDNN_STATUS_SUCCESS;
}

/* Reference: BAD_PARAM when x or y is NULL, the tensors have 2 dims or fewer,
 * the mode is invalid, or a 5-D tensor is not NCDHW with DHW packed;
 * NOT_SUPPORTED when x and y differ in dims or data type. Work per element:
 * lrnN + 1 ffma (the window's squares and k + alpha/n*sum), 2 fmul (the power
 * and the product); then the blend. */
cudnnStatus_t cudnnLRNCrossChannelForward(cudnnHandle_t handle, cudnnLRNDescriptor_t normDesc, cudnnLRNMode_t lrnMode,
                                          const void *alpha, const cudnnTensorDescriptor_t xDesc, const void *x,
                                          const void *beta, const cudnnTensorDescriptor_t yDesc, void *y) {
    const char *call = __func__;
    const struct cudnnContext *h = sd_handle(call, handle);
    const struct cudnnLRNStruct *l = h ? sd_get(call, "normDesc", normDesc, SD_LRN) : NULL;
    const sd_tensor_t *xd = l ? sd_tensor(call, "xDesc", xDesc) : NULL;
    const sd_tensor_t *yd = xd ? sd_tensor(call, "yDesc", yDesc) : NULL;
    if (!yd)
        return BAD;
    SIM_REQ(lrnMode == CUDNN_LRN_CROSS_CHANNEL_DIM1, BAD, "lrnMode %d is not CUDNN_LRN_CROSS_CHANNEL_DIM1", (int)lrnMode);
    SIM_REQ(alpha && beta, BAD, "alpha or beta is NULL");
    SIM_REQ(x && y, BAD, "x or y is NULL");
    SIM_REQ(xd->nb > 2, BAD, "xDesc has %d dims (LRN needs more than 2)", xd->nb);
    cudnnStatus_t st = sd_same_xy(call, xd, yd, UNSUP);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    for (int k = 0; xd->nb == 5 && k < 2; k++) {
        const sd_tensor_t *t = k ? yd : xd;
        SIM_REQ(t->str[4] == 1 && t->str[3] == t->dim[4] && t->str[2] == t->dim[3] * t->dim[4], BAD,
            "%s: a 5-D LRN tensor must be NCDHW with DHW packed", k ? "yDesc" : "xDesc");
    }
    SPAN("x", x, sd_t_extent(xd));
    SPAN("y", y, sd_t_extent(yd));
    bool dbl = yd->dt == CUDNN_DATA_DOUBLE;
    double n = sd_t_numel(yd), al = sd_scal(alpha, dbl), be = sd_scal(beta, dbl);
    struct sim_work wk = {0};
    sd_flops(&wk, dbl, 0, 2 * n, (l->n + 1.0) * n);
    sd_blend(&wk, dbl, n, al, be);
    wk.dram_read = sd_t_bytes(xd) + (be != 0.0 ? sd_t_bytes(yd) : 0);
    wk.dram_write = sd_t_bytes(yd);
    return sd_run(call, h, "cudnn::ops::lrn_cross_channel_fw_kernel", &wk);
}
