/*
 * plugin.c — libonnxcost_gpu.so: runs replay plans on an NVIDIA GPU.
 *
 * Per node: allocate the inputs at their shapes and fill them on the device
 * (replay/fill.h), set up the library call (descriptors, algorithm search,
 * workspace) outside any measurement, then
 *   phase 1, time: warm up by time, then repetitions each between a CUPTI
 *            external correlation id push/pop; the node's time in a
 *            repetition is the sum of its kernels' durations (CUPTI Activity
 *            records, trace.c); CUDA events when tracing is unavailable;
 *   phase 2, counters: the same node again, once per profiler pass, inside
 *            one CUPTI range (profiler.c; the metric set from metrics.c).
 * The phases never overlap (tracing and the range profiler conflict): all
 * nodes are timed, tracing stops, then all nodes are profiled.
 *
 * No driver link: libcudart, cuDNN, cuBLAS and CUPTI load libcuda.so.1
 * themselves, so on a machine without a driver probe() fails with one line.
 */
#include "../replay.h"
#include "../kernels.h"
#include "../../analyzer/stats.h"
#include "metrics.h"
#include "profiler.h"
#include "trace.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <cupti.h>
#pragma GCC diagnostic pop

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#define OC_EXPORT __attribute__((visibility("default")))
#define OC_STR_(x) #x
#define OC_STR(x) OC_STR_(x)

/* ---- process state ---------------------------------------------------------------- */

static struct {
    bool open;
    int device;
    cudaStream_t stream;
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    void *blas_ws;
    size_t blas_ws_bytes;
    void *flush;            /* L2 flush buffer, 2 x L2                          */
    size_t flush_bytes;
    unsigned long long *sink;
    bool counters;
} G;

static void oc_set_err(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void oc_set_err(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static double oc_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void oc_close(void) {
    if (!G.open)
        return;
    cudaStreamSynchronize(G.stream);
    cudaFree(G.flush);
    cudaFree(G.sink);
    cudaFree(G.blas_ws);
    if (G.blas)
        cublasDestroy(G.blas);
    if (G.dnn)
        cudnnDestroy(G.dnn);
    if (G.stream)
        cudaStreamDestroy(G.stream);
    memset(&G, 0, sizeof G);
}

static int oc_probe(const struct oc_rp_options *o, struct oc_rp_device *dev, char *err, size_t n) {
    memset(dev, 0, sizeof *dev);
    int count = 0;
    cudaError_t ce = cudaGetDeviceCount(&count);
    if (ce == cudaErrorInsufficientDriver || ce == cudaErrorNoDevice || ce == cudaErrorInitializationError) {
        /* CUDA says "driver version is insufficient" where there is no
           driver at all: the kernel module's file tells the two apart */
        bool driver = access("/proc/driver/nvidia/version", R_OK) == 0;
        oc_set_err(err, n, "no usable NVIDIA GPU: %s (replay needs a GPU and its driver; --plan shows the plan "
                   "without one)", driver ? cudaGetErrorString(ce) : "no NVIDIA driver on this machine");
        return -1;
    }
    if (ce != cudaSuccess) {
        oc_set_err(err, n, "CUDA cannot list devices: %s", cudaGetErrorString(ce));
        return -1;
    }
    if (o->device >= count) {
        oc_set_err(err, n, "--device %d: this machine has %d CUDA device%s", o->device, count, count == 1 ? "" : "s");
        return -1;
    }
    oc_close();
    G.device = o->device;
    struct cudaDeviceProp prop;
    if ((ce = cudaSetDevice(o->device)) != cudaSuccess || (ce = cudaFree(0)) != cudaSuccess ||
        (ce = cudaGetDeviceProperties(&prop, o->device)) != cudaSuccess) {
        oc_set_err(err, n, "cannot open CUDA device %d: %s", o->device, cudaGetErrorString(ce));
        return -1;
    }
    snprintf(dev->name, sizeof dev->name, "%s", prop.name);
    cudaDeviceGetPCIBusId(dev->pci_bus_id, (int)sizeof dev->pci_bus_id, o->device);
    dev->cc_major = prop.major;
    dev->cc_minor = prop.minor;
    dev->sm_count = prop.multiProcessorCount;
    dev->mem_bytes = (int64_t)prop.totalGlobalMem;
    dev->l2_bytes = prop.l2CacheSize;
    cudaDeviceGetAttribute(&dev->sm_clock_khz, cudaDevAttrClockRate, o->device);
    cudaDeviceGetAttribute(&dev->mem_clock_khz, cudaDevAttrMemoryClockRate, o->device);
    cudaDeviceGetAttribute(&dev->mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, o->device);
    cudaDriverGetVersion(&dev->driver_version);
    cudaRuntimeGetVersion(&dev->runtime_version);
    dev->cudnn_version = (int64_t)cudnnGetVersion();
    int maj = 0, min = 0, pat = 0;
    cublasGetProperty(MAJOR_VERSION, &maj);
    cublasGetProperty(MINOR_VERSION, &min);
    cublasGetProperty(PATCH_LEVEL, &pat);
    dev->cublas_version = (int64_t)maj * 10000 + min * 100 + pat;
    uint32_t cv = 0;
    cuptiGetVersion(&cv);
    dev->cupti_version = (int32_t)cv;

    cudnnStatus_t ds;
    cublasStatus_t bs;
    if ((ce = cudaStreamCreateWithFlags(&G.stream, cudaStreamNonBlocking)) != cudaSuccess) {
        oc_set_err(err, n, "cudaStreamCreate: %s", cudaGetErrorString(ce));
        return -1;
    }
    G.open = true;
    if ((ds = cudnnCreate(&G.dnn)) != CUDNN_STATUS_SUCCESS || (ds = cudnnSetStream(G.dnn, G.stream)) != CUDNN_STATUS_SUCCESS) {
        oc_set_err(err, n, "cuDNN: %s", cudnnGetErrorString(ds));
        oc_close();
        return -1;
    }
    if ((bs = cublasCreate(&G.blas)) != CUBLAS_STATUS_SUCCESS || (bs = cublasSetStream(G.blas, G.stream)) != CUBLAS_STATUS_SUCCESS) {
        oc_set_err(err, n, "cuBLAS: %s", cublasGetStatusString(bs));
        oc_close();
        return -1;
    }
    /* one workspace for cuBLAS, allocated outside every measurement */
    G.blas_ws_bytes = 32u << 20;
    G.flush_bytes = (size_t)(dev->l2_bytes > 0 ? dev->l2_bytes : 64 << 20) * 2;
    G.flush_bytes = (G.flush_bytes + 15) & ~(size_t)15;
    if (cudaMalloc(&G.blas_ws, G.blas_ws_bytes) != cudaSuccess || cudaMalloc(&G.flush, G.flush_bytes) != cudaSuccess ||
        cudaMalloc((void **)&G.sink, sizeof *G.sink) != cudaSuccess ||
        cudaMemsetAsync(G.flush, 0x5a, G.flush_bytes, G.stream) != cudaSuccess) {
        oc_set_err(err, n, "cannot allocate the replay's workspaces on the device");
        oc_close();
        return -1;
    }
    if ((bs = cublasSetWorkspace(G.blas, G.blas_ws, G.blas_ws_bytes)) != CUBLAS_STATUS_SUCCESS) {
        oc_set_err(err, n, "cublasSetWorkspace: %s", cublasGetStatusString(bs));
        oc_close();
        return -1;
    }
    cudaStreamSynchronize(G.stream);

    /* counters: does a profiler session start here (privileges, another
       profiler, an unsupported chip)? */
    G.counters = false;
    if (o->counters) {
        struct oc_rp_profiler *p = NULL;
        char why[256] = "";
        if (oc_rp_profiler_begin(&p, OC_MATH_FP32, 1, why, sizeof why) == 0) {
            const struct oc_rp_metric_set *ms = oc_rp_profiler_metrics(p);
            snprintf(dev->chip, sizeof dev->chip, "%s", ms ? ms->chip : "");
            G.counters = dev->counters = true;
        } else {
            snprintf(dev->counters_reason, sizeof dev->counters_reason, "%s", why);
        }
        oc_rp_profiler_end(p);
    } else {
        snprintf(dev->counters_reason, sizeof dev->counters_reason, "--no-counters");
    }
    return 0;
}

/* ---- one node's runtime ------------------------------------------------------------- */

struct oc_node_rt {
    const struct oc_rp_plan *p;
    const struct oc_rp_options *o;
    void *in[OC_RP_MAX_IN];
    void *out[OC_RP_MAX_OUT];
    void *ext;                 /* cuDNN's padded output when the window crops  */
    void *ws;
    size_t ws_bytes;
    cudnnTensorDescriptor_t t[4];
    cudnnFilterDescriptor_t filt;
    cudnnConvolutionDescriptor_t conv;
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t act;
    cudnnOpTensorDescriptor_t optd;
    cudnnReduceTensorDescriptor_t red;
    cudnnLRNDescriptor_t lrn;
    int algo;                  /* conv: the algorithm found                    */
    int algo_math;             /* conv: the cudnnMathType_t Find paired with it */
    bool algo_fixed;           /* phase 2: reuse phase 1's                      */
    void **ptrs;               /* GEMM pointer arrays on the device (A, B, C)   */
    struct oc_rp_piece crop;   /* ext -> out[0]                                */
    char call[64], algo_name[64];
};

static int32_t oc_elem_bytes(int32_t dt) {
    switch (dt) {
    case 1: case 6: return 4;
    case 10: case 16: return 2;
    case 7: case 11: return 8;
    case 2: case 3: case 9: return 1;
    default: return 0;
    }
}

static cudnnDataType_t oc_dnn_type(int32_t dt) {
    return dt == 10 ? CUDNN_DATA_HALF : dt == 16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

static cudaDataType_t oc_blas_type(int32_t dt) {
    return dt == 10 ? CUDA_R_16F : dt == 16 ? CUDA_R_16BF : CUDA_R_32F;
}

static bool oc_fits_int(const int64_t *d, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (d[i] < 0 || d[i] > INT_MAX)
            return false;
    return true;
}

/* an Nd tensor descriptor of dims (padded with trailing 1s to 4), packed */
static bool oc_tdesc(cudnnTensorDescriptor_t *t, int32_t dt, const int64_t *dims, int32_t rank, char *err, size_t n) {
    int d[OC_RP_MAX_RANK], s[OC_RP_MAX_RANK];
    int r = rank < 4 ? 4 : rank;
    if (rank > OC_RP_MAX_RANK || !oc_fits_int(dims, rank)) {
        oc_set_err(err, n, "tensor dims beyond cuDNN's int range");
        return false;
    }
    for (int i = 0; i < r; i++)
        d[i] = i < rank ? (int)dims[i] : 1;
    int64_t st64 = 1; /* packed strides; the element count within cuDNN's int */
    for (int i = r - 1; i >= 0; i--) {
        s[i] = (int)st64;
        st64 *= d[i];
        if (st64 > INT_MAX) {
            oc_set_err(err, n, "tensor of more than 2^31 elements (cuDNN's limit)");
            return false;
        }
    }
    cudnnStatus_t st;
    if ((st = cudnnCreateTensorDescriptor(t)) != CUDNN_STATUS_SUCCESS ||
        (st = cudnnSetTensorNdDescriptor(*t, oc_dnn_type(dt), r, d, s)) != CUDNN_STATUS_SUCCESS) {
        oc_set_err(err, n, "cudnnSetTensorNdDescriptor: %s", cudnnGetErrorString(st));
        return false;
    }
    return true;
}

/* a conv/pool tensor: [N, C, spatial...] with 1-D made 2-D (H = 1) */
static void oc_nc_dims(const int64_t *dims, int32_t nsp, int64_t *out, int32_t *rank) {
    out[0] = dims[0];
    out[1] = dims[1];
    if (nsp == 1) {
        out[2] = 1;
        out[3] = dims[2];
        *rank = 4;
    } else {
        for (int32_t i = 0; i < nsp; i++)
            out[2 + i] = dims[2 + i];
        *rank = 2 + nsp;
    }
}

static void oc_rt_free(struct oc_node_rt *rt) {
    /* a failed launch leaves earlier work queued, and cudaFree "may" not wait for it */
    (void)cudaStreamSynchronize(G.stream);
    for (int i = 0; i < OC_RP_MAX_IN; i++)
        cudaFree(rt->in[i]);
    for (int i = 0; i < OC_RP_MAX_OUT; i++)
        cudaFree(rt->out[i]);
    cudaFree(rt->ext);
    cudaFree(rt->ws);
    cudaFree(rt->ptrs);
    for (int i = 0; i < 4; i++)
        if (rt->t[i])
            cudnnDestroyTensorDescriptor(rt->t[i]);
    if (rt->filt)
        cudnnDestroyFilterDescriptor(rt->filt);
    if (rt->conv)
        cudnnDestroyConvolutionDescriptor(rt->conv);
    if (rt->pool)
        cudnnDestroyPoolingDescriptor(rt->pool);
    if (rt->act)
        cudnnDestroyActivationDescriptor(rt->act);
    if (rt->optd)
        cudnnDestroyOpTensorDescriptor(rt->optd);
    if (rt->red)
        cudnnDestroyReduceTensorDescriptor(rt->red);
    if (rt->lrn)
        cudnnDestroyLRNDescriptor(rt->lrn);
    int algo = rt->algo, algo_math = rt->algo_math;
    bool fixed = rt->algo_fixed;
    memset(rt, 0, sizeof *rt);
    rt->algo = algo;
    rt->algo_math = algo_math;
    rt->algo_fixed = fixed;
}

static bool oc_alloc(void **p, int64_t numel, int32_t dt, char *err, size_t n) {
    size_t bytes = (size_t)(numel > 0 ? numel : 1) * (size_t)oc_elem_bytes(dt);
    cudaError_t ce = cudaMalloc(p, bytes);
    if (ce != cudaSuccess) {
        *p = NULL;
        (void)cudaGetLastError(); /* not sticky: keep it from the next launcher's cudaGetLastError */
        oc_set_err(err, n, "cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString(ce));
        return false;
    }
    return true;
}

#define DNN(call)                                                                                  \
    do {                                                                                           \
        cudnnStatus_t st_ = (call);                                                                \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                         \
            oc_set_err(err, n, "%s: %s", #call, cudnnGetErrorString(st_));                         \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* FP32: no tensor cores. TF32: the default math (TF32 allowed for fp32 data);
 * 16-bit data gets CUDNN_TENSOR_OP_MATH, which PyTorch and ONNX Runtime set
 * before the algorithm search (without it Find may skip tensor-core
 * algorithms). FP16: conversion allowed for fp32 data. */
static cudnnMathType_t oc_dnn_math(const struct oc_rp_options *o, int32_t dtype) {
    bool half = dtype == 10 || dtype == 16;
    return o->math == OC_RP_MATH_FP32   ? CUDNN_FMA_MATH
           : half                       ? CUDNN_TENSOR_OP_MATH
           : o->math == OC_RP_MATH_TF32 ? CUDNN_DEFAULT_MATH
                                        : CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

/* conv, convT and pool share the padded-output handling */
static bool oc_setup_ext(struct oc_node_rt *rt, const struct oc_rp_window *w, int64_t *ext_dims, int32_t *ext_rank,
                         char *err, size_t n) {
    const struct oc_rp_plan *p = rt->p;
    const struct oc_rp_tensor *y = &p->out[0];
    int64_t dims[OC_RP_MAX_RANK];
    dims[0] = y->dims[0];
    dims[1] = y->dims[1];
    int64_t numel = dims[0] * dims[1];
    for (int32_t i = 0; i < w->nsp; i++) {
        dims[2 + i] = w->cropped ? w->ext[i] : y->dims[2 + i];
        numel *= dims[2 + i];
    }
    oc_nc_dims(dims, w->nsp, ext_dims, ext_rank);
    if (!w->cropped)
        return true;
    if (!oc_alloc(&rt->ext, numel, y->dtype, err, n))
        return false;
    /* the wanted outputs: from crop[i] on along each spatial dim */
    struct oc_rp_piece *c = &rt->crop;
    memset(c, 0, sizeof *c);
    c->rank = y->rank;
    int64_t es[OC_RP_MAX_RANK], ys[OC_RP_MAX_RANK];
    es[y->rank - 1] = ys[y->rank - 1] = 1;
    for (int32_t d = y->rank - 2; d >= 0; d--) {
        es[d] = es[d + 1] * dims[d + 1];
        ys[d] = ys[d + 1] * y->dims[d + 1];
    }
    for (int32_t d = 0; d < y->rank; d++) {
        c->dims[d] = y->dims[d];
        c->in_stride[d] = es[d];
        c->out_stride[d] = ys[d];
        if (d >= 2)
            c->in_offset += w->crop[d - 2] * es[d];
    }
    return true;
}

static bool oc_setup_conv(struct oc_node_rt *rt, char *err, size_t n) {
    const struct oc_rp_plan *p = rt->p;
    const struct oc_rp_conv *cv = &p->u.conv;
    const struct oc_rp_window *w = &cv->w;
    bool tr = p->kind == OC_RPK_CONVT;
    int64_t xd[OC_RP_MAX_RANK], wd[OC_RP_MAX_RANK], yd[OC_RP_MAX_RANK];
    int32_t xr, wr, yr;
    oc_nc_dims(p->in[0].dims, w->nsp, xd, &xr);
    oc_nc_dims(p->in[1].dims, w->nsp, wd, &wr);
    if (!oc_setup_ext(rt, w, yd, &yr, err, n))
        return false;
    int32_t dt = p->in[0].dtype;
    if (!oc_tdesc(&rt->t[0], dt, xd, xr, err, n) || !oc_tdesc(&rt->t[1], dt, yd, yr, err, n))
        return false;
    int wdi[OC_RP_MAX_RANK];
    if (!oc_fits_int(wd, wr)) {
        oc_set_err(err, n, "filter dims beyond cuDNN's int range");
        return false;
    }
    for (int i = 0; i < wr; i++)
        wdi[i] = (int)wd[i];
    DNN(cudnnCreateFilterDescriptor(&rt->filt));
    DNN(cudnnSetFilterNdDescriptor(rt->filt, oc_dnn_type(dt), CUDNN_TENSOR_NCHW, wr, wdi));
    int ns = w->nsp == 1 ? 2 : w->nsp, pad[3], str[3], dil[3];
    for (int i = 0; i < ns; i++) {
        int k = w->nsp == 1 ? i - 1 : i; /* 1-D: H is a dummy axis */
        pad[i] = k < 0 ? 0 : (int)w->pad[k];
        str[i] = k < 0 ? 1 : (int)w->stride[k];
        dil[i] = k < 0 ? 1 : (int)w->dilation[k];
    }
    DNN(cudnnCreateConvolutionDescriptor(&rt->conv));
    DNN(cudnnSetConvolutionNdDescriptor(rt->conv, ns, pad, str, dil, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    DNN(cudnnSetConvolutionGroupCount(rt->conv, (int)cv->group));
    DNN(cudnnSetConvolutionMathType(rt->conv, oc_dnn_math(rt->o, dt)));
    if (!tr) {
        /* cuDNN's own output shape must be the one we planned */
        int od[OC_RP_MAX_RANK];
        DNN(cudnnGetConvolutionNdForwardOutputDim(rt->conv, rt->t[0], rt->filt, yr, od));
        for (int i = 0; i < yr; i++)
            if (od[i] != yd[i]) {
                oc_set_err(err, n, "cuDNN's output dim %d is %d, the plan's %lld", i, od[i], (long long)yd[i]);
                return false;
            }
    }
    void *y = rt->ext ? rt->ext : rt->out[0];
    size_t ws_cap = 256u << 20;
    void *ws = NULL;
    if (!rt->algo_fixed && !tr && rt->o->conv_algo > 0) {
        /* --conv-algo: the named algorithm with the math of --math; one cuDNN
           cannot run for this convolution fails the node (the workspace query
           below says CUDNN_STATUS_NOT_SUPPORTED) */
        static const char *const names[OC_RP_N_CONV_FWD_ALGOS] = {OC_RP_CONV_FWD_ALGOS};
        rt->algo = rt->o->conv_algo - 1;
        rt->algo_math = (int)oc_dnn_math(rt->o, p->in[0].dtype);
        size_t probe = 0;
        cudnnStatus_t ps = cudnnGetConvolutionForwardWorkspaceSize(G.dnn, rt->t[0], rt->filt, rt->conv, rt->t[1],
                                                                   (cudnnConvolutionFwdAlgo_t)rt->algo, &probe);
        if (ps != CUDNN_STATUS_SUCCESS) {
            oc_set_err(err, n, "cuDNN cannot run %s for this convolution (--conv-algo): %s",
                       rt->algo < OC_RP_N_CONV_FWD_ALGOS ? names[rt->algo] : "?", cudnnGetErrorString(ps));
            return false;
        }
    } else if (!rt->algo_fixed) {
        if (cudaMalloc(&ws, ws_cap) != cudaSuccess)
            ws = NULL;
        int got = 0, k = 0;
        cudnnStatus_t fs;
        cudnnConvolutionFwdAlgoPerf_t fperf[8];
        cudnnConvolutionBwdDataAlgoPerf_t bperf[8];
        if (!tr)
            fs = cudnnFindConvolutionForwardAlgorithmEx(G.dnn, rt->t[0], rt->in[0], rt->filt, rt->in[1], rt->conv,
                                                        rt->t[1], y, 8, &got, fperf, ws, ws ? ws_cap : 0);
        else
            fs = cudnnFindConvolutionBackwardDataAlgorithmEx(G.dnn, rt->filt, rt->in[1], rt->t[0], rt->in[0],
                                                             rt->conv, rt->t[1], y, 8, &got, bperf, ws,
                                                             ws ? ws_cap : 0);
        cudaFree(ws);
        /* a failed cudaMalloc, or a candidate cuDNN could not launch, leaves a
           non-sticky error that our launchers' cudaGetLastError would report */
        (void)cudaGetLastError();
        if (fs != CUDNN_STATUS_SUCCESS) {
            oc_set_err(err, n, "%s: %s", tr ? "cudnnFindConvolutionBackwardDataAlgorithmEx"
                                            : "cudnnFindConvolutionForwardAlgorithmEx", cudnnGetErrorString(fs));
            return false;
        }
        while (k < got && (tr ? bperf[k].status : fperf[k].status) != CUDNN_STATUS_SUCCESS)
            k++;
        if (k == got) {
            oc_set_err(err, n, "cuDNN found no %s algorithm for this %sconvolution", tr ? "backward-data" : "forward",
                       tr ? "transposed " : "");
            return false;
        }
        rt->algo = tr ? (int)bperf[k].algo : (int)fperf[k].algo;
        rt->algo_math = tr ? (int)bperf[k].mathType : (int)fperf[k].mathType;
    }
    /* an algorithm is found as an (algo, mathType) pair: run it with that math */
    DNN(cudnnSetConvolutionMathType(rt->conv, (cudnnMathType_t)rt->algo_math));
    size_t need = 0;
    if (!tr)
        DNN(cudnnGetConvolutionForwardWorkspaceSize(G.dnn, rt->t[0], rt->filt, rt->conv, rt->t[1],
                                                    (cudnnConvolutionFwdAlgo_t)rt->algo, &need));
    else
        DNN(cudnnGetConvolutionBackwardDataWorkspaceSize(G.dnn, rt->filt, rt->t[0], rt->conv, rt->t[1],
                                                         (cudnnConvolutionBwdDataAlgo_t)rt->algo, &need));
    if (need && cudaMalloc(&rt->ws, need) != cudaSuccess) {
        oc_set_err(err, n, "cannot allocate a %zu-byte cuDNN workspace", need);
        return false;
    }
    rt->ws_bytes = need;
    if (cv->bias) {
        int64_t bd[OC_RP_MAX_RANK];
        for (int i = 0; i < yr; i++)
            bd[i] = i == 1 ? yd[1] : 1;
        if (!oc_tdesc(&rt->t[2], dt, bd, yr, err, n))
            return false;
    }
    snprintf(rt->call, sizeof rt->call, "%s%s", tr ? "cudnnConvolutionBackwardData" : "cudnnConvolutionForward",
             cv->bias ? " + cudnnAddTensor" : "");
    /* cudnnConvolutionFwdAlgo_t / cudnnConvolutionBwdDataAlgo_t (cudnn_ops.h), named:
       a Winograd or FFT algorithm legitimately counts fewer FLOPs than the estimate */
    static const char *const fwd[OC_RP_N_CONV_FWD_ALGOS] = {OC_RP_CONV_FWD_ALGOS};
    static const char *const bwd[] = {"ALGO_0",     "ALGO_1",   "FFT", "FFT_TILING",
                                      "WINOGRAD", "WINOGRAD_NONFUSED"};
    const char *an = tr ? (rt->algo >= 0 && rt->algo < 6 ? bwd[rt->algo] : "?")
                        : (rt->algo >= 0 && rt->algo < 8 ? fwd[rt->algo] : "?");
    snprintf(rt->algo_name, sizeof rt->algo_name, "%s %s (%d), %s", tr ? "bwd-data" : "fwd", an, rt->algo,
             rt->algo_math == CUDNN_FMA_MATH                          ? "FMA math"
             : rt->algo_math == CUDNN_DEFAULT_MATH                    ? "default math"
             : rt->algo_math == CUDNN_TENSOR_OP_MATH                  ? "tensor-op math"
                                                                      : "tensor-op math, conversion allowed");
    return true;
}

static bool oc_setup_pool(struct oc_node_rt *rt, char *err, size_t n) {
    const struct oc_rp_plan *p = rt->p;
    const struct oc_rp_pool *pl = &p->u.pool;
    const struct oc_rp_window *w = &pl->w;
    int64_t xd[OC_RP_MAX_RANK], yd[OC_RP_MAX_RANK];
    int32_t xr, yr;
    oc_nc_dims(p->in[0].dims, w->nsp, xd, &xr);
    if (!oc_setup_ext(rt, w, yd, &yr, err, n))
        return false;
    if (!oc_tdesc(&rt->t[0], p->in[0].dtype, xd, xr, err, n) || !oc_tdesc(&rt->t[1], p->in[0].dtype, yd, yr, err, n))
        return false;
    int ns = w->nsp == 1 ? 2 : w->nsp, win[3], pad[3], str[3];
    for (int i = 0; i < ns; i++) {
        int k = w->nsp == 1 ? i - 1 : i;
        win[i] = k < 0 ? 1 : (int)w->kernel[k];
        pad[i] = k < 0 ? 0 : (int)w->pad[k];
        str[i] = k < 0 ? 1 : (int)w->stride[k];
    }
    cudnnPoolingMode_t mode = pl->mode == OC_POOL_MAX                ? CUDNN_POOLING_MAX
                              : pl->mode == OC_POOL_AVG_INCLUDE_PAD ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                                                    : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    DNN(cudnnCreatePoolingDescriptor(&rt->pool));
    DNN(cudnnSetPoolingNdDescriptor(rt->pool, mode, CUDNN_PROPAGATE_NAN, ns, win, pad, str));
    /* cuDNN's own output shape must be the one we planned (as for Conv) */
    int od[OC_RP_MAX_RANK];
    DNN(cudnnGetPoolingNdForwardOutputDim(rt->pool, rt->t[0], yr, od));
    for (int i = 0; i < yr; i++)
        if (od[i] != yd[i]) {
            oc_set_err(err, n, "cuDNN's pooling output dim %d is %d, the plan's %lld", i, od[i], (long long)yd[i]);
            return false;
        }
    snprintf(rt->call, sizeof rt->call, "cudnnPoolingForward");
    snprintf(rt->algo_name, sizeof rt->algo_name, "%s", pl->global ? "global window" : "");
    return true;
}

static bool oc_setup_gemm(struct oc_node_rt *rt, char *err, size_t n) {
    const struct oc_rp_gemm *g = &rt->p->u.gemm;
    int64_t dims[3] = {g->m, g->n, g->k};
    int64_t ld[3] = {g->lda, g->ldb, g->ldc};
    if (!oc_fits_int(dims, 3) || !oc_fits_int(ld, 3) || g->batch > INT_MAX) {
        oc_set_err(err, n, "GEMM sizes beyond cuBLAS's int range");
        return false;
    }
    if (g->mode == OC_GEMM_POINTERS) {
        size_t b = (size_t)g->batch;
        void **h = malloc(3 * b * sizeof *h);
        if (!h) {
            oc_set_err(err, n, "out of host memory");
            return false;
        }
        int32_t es = oc_elem_bytes(rt->p->in[0].dtype);
        for (size_t i = 0; i < b; i++) {
            /* batch index -> coordinates over bdims -> element offsets */
            int64_t rem = (int64_t)i, oa = 0, ob = 0;
            for (int32_t d = g->batch_rank - 1; d >= 0; d--) {
                int64_t c = rem % g->bdims[d];
                rem /= g->bdims[d];
                oa += c * g->astride[d];
                ob += c * g->bstride[d];
            }
            h[i] = (char *)rt->in[1] + oa * es;          /* cuBLAS A = ONNX B */
            h[b + i] = (char *)rt->in[0] + ob * es;      /* cuBLAS B = ONNX A */
            h[2 * b + i] = (char *)rt->out[0] + (int64_t)i * g->stride_c * es;
        }
        /* on the replay's stream, then waited for: cudaMemcpy from pageable memory
           goes on the legacy stream, which a non-blocking stream does not wait for,
           and may return before the copy lands */
        cudaError_t ce = cudaMalloc((void **)&rt->ptrs, 3 * b * sizeof *h);
        if (ce == cudaSuccess)
            ce = cudaMemcpyAsync(rt->ptrs, h, 3 * b * sizeof *h, cudaMemcpyHostToDevice, G.stream);
        if (ce == cudaSuccess)
            ce = cudaStreamSynchronize(G.stream);
        free(h);
        if (ce != cudaSuccess) {
            oc_set_err(err, n, "GEMM pointer arrays: %s", cudaGetErrorString(ce));
            return false;
        }
    }
    cublasStatus_t ms = cublasSetMathMode(G.blas, rt->o->math == OC_RP_MATH_FP32 ? CUBLAS_PEDANTIC_MATH
                                                                                 : CUBLAS_DEFAULT_MATH);
    if (ms != CUBLAS_STATUS_SUCCESS) {
        oc_set_err(err, n, "cublasSetMathMode: %s", cublasGetStatusString(ms));
        return false;
    }
    snprintf(rt->call, sizeof rt->call, "%s%s",
             g->mode == OC_GEMM_SINGLE ? "cublasGemmEx" : g->mode == OC_GEMM_STRIDED ? "cublasGemmStridedBatchedEx"
                                                                                      : "cublasGemmBatchedEx",
             g->bias != OC_BIAS_NONE ? " + C copy" : "");
    snprintf(rt->algo_name, sizeof rt->algo_name, "%s",
             rt->o->math == OC_RP_MATH_FP32   ? "COMPUTE_32F_PEDANTIC"
             : rt->p->in[0].dtype != 1        ? "COMPUTE_32F"
             : rt->o->math == OC_RP_MATH_TF32 ? "COMPUTE_32F_FAST_TF32"
                                              : "COMPUTE_32F_FAST_16F");
    return true;
}

static bool oc_setup_dnn_misc(struct oc_node_rt *rt, char *err, size_t n) {
    const struct oc_rp_plan *p = rt->p;
    int32_t dt = p->in[0].dtype;
    switch (p->kind) {
    case OC_RPK_ACT: {
        int64_t d[1] = {p->in[0].numel};
        if (!oc_tdesc(&rt->t[0], dt, d, 1, err, n))
            return false;
        static const cudnnActivationMode_t modes[] = {[OC_ACT_RELU] = CUDNN_ACTIVATION_RELU,
                                                      [OC_ACT_SIGMOID] = CUDNN_ACTIVATION_SIGMOID,
                                                      [OC_ACT_TANH] = CUDNN_ACTIVATION_TANH,
                                                      [OC_ACT_ELU] = CUDNN_ACTIVATION_ELU,
                                                      [OC_ACT_CLIPPED_RELU] = CUDNN_ACTIVATION_CLIPPED_RELU};
        DNN(cudnnCreateActivationDescriptor(&rt->act));
        DNN(cudnnSetActivationDescriptor(rt->act, modes[p->u.ew.op], CUDNN_PROPAGATE_NAN, p->u.ew.alpha));
        snprintf(rt->call, sizeof rt->call, "cudnnActivationForward");
        return true;
    }
    case OC_RPK_SOFTMAX: {
        int64_t d[4] = {p->u.softmax.outer, p->u.softmax.axis, p->u.softmax.inner, 1};
        if (!oc_tdesc(&rt->t[0], dt, d, 4, err, n))
            return false;
        snprintf(rt->call, sizeof rt->call, "cudnnSoftmaxForward");
        snprintf(rt->algo_name, sizeof rt->algo_name, "%s", p->u.softmax.log ? "LOG" : "ACCURATE");
        return true;
    }
    case OC_RPK_BATCHNORM: {
        int64_t d[4] = {p->u.norm.n, p->u.norm.c, p->u.norm.spatial, 1};
        if (!oc_tdesc(&rt->t[0], dt, d, 4, err, n))
            return false;
        DNN(cudnnCreateTensorDescriptor(&rt->t[1]));
        DNN(cudnnDeriveBNTensorDescriptor(rt->t[1], rt->t[0], CUDNN_BATCHNORM_SPATIAL));
        snprintf(rt->call, sizeof rt->call, "cudnnBatchNormalizationForwardInference");
        return true;
    }
    case OC_RPK_LRN: {
        int64_t d[4] = {p->u.norm.n, p->u.norm.c, p->u.norm.spatial, 1};
        if (!oc_tdesc(&rt->t[0], dt, d, 4, err, n))
            return false;
        DNN(cudnnCreateLRNDescriptor(&rt->lrn));
        DNN(cudnnSetLRNDescriptor(rt->lrn, (unsigned)p->u.norm.size, p->u.norm.alpha, p->u.norm.beta,
                                  p->u.norm.bias));
        snprintf(rt->call, sizeof rt->call, "cudnnLRNCrossChannelForward");
        return true;
    }
    case OC_RPK_REDUCE: {
        const struct oc_rp_reduce *r = &p->u.reduce;
        if (!oc_tdesc(&rt->t[0], dt, r->in_dims, r->rank, err, n) ||
            !oc_tdesc(&rt->t[1], dt, r->out_dims, r->rank, err, n))
            return false;
        static const cudnnReduceTensorOp_t ops[] = {
            [OC_RED_SUM] = CUDNN_REDUCE_TENSOR_ADD, [OC_RED_MEAN] = CUDNN_REDUCE_TENSOR_AVG,
            [OC_RED_MAX] = CUDNN_REDUCE_TENSOR_MAX, [OC_RED_MIN] = CUDNN_REDUCE_TENSOR_MIN,
            [OC_RED_PROD] = CUDNN_REDUCE_TENSOR_MUL, [OC_RED_L1] = CUDNN_REDUCE_TENSOR_NORM1,
            [OC_RED_L2] = CUDNN_REDUCE_TENSOR_NORM2};
        DNN(cudnnCreateReduceTensorDescriptor(&rt->red));
        DNN(cudnnSetReduceTensorDescriptor(rt->red, ops[r->op], CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                           CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
        size_t need = 0;
        DNN(cudnnGetReductionWorkspaceSize(G.dnn, rt->red, rt->t[0], rt->t[1], &need));
        if (need && cudaMalloc(&rt->ws, need) != cudaSuccess) {
            oc_set_err(err, n, "cannot allocate a %zu-byte reduction workspace", need);
            return false;
        }
        rt->ws_bytes = need;
        snprintf(rt->call, sizeof rt->call, "cudnnReduceTensor");
        return true;
    }
    case OC_RPK_BINARY: {
        if (!oc_rp_binary_uses_cudnn(p)) {
            snprintf(rt->call, sizeof rt->call, "oc_k_binary");
            return true;
        }
        const struct oc_rp_eltwise *e = &p->u.ew;
        int64_t cd[OC_RP_MAX_RANK], bd[OC_RP_MAX_RANK];
        bool bb[OC_RP_MAX_RANK];
        int32_t r = oc_rp_binary_merge(p, cd, bb); /* <= 5: oc_rp_binary_uses_cudnn */
        for (int32_t d = 0; d < r; d++) /* input 1: 1 where it broadcasts */
            bd[d] = bb[d] ? 1 : cd[d];
        if (!oc_tdesc(&rt->t[0], dt, cd, r, err, n) || !oc_tdesc(&rt->t[1], dt, bd, r, err, n))
            return false;
        cudnnOpTensorOp_t op = e->op == OC_EW_MUL   ? CUDNN_OP_TENSOR_MUL
                               : e->op == OC_EW_MAX ? CUDNN_OP_TENSOR_MAX
                               : e->op == OC_EW_MIN ? CUDNN_OP_TENSOR_MIN
                                                    : CUDNN_OP_TENSOR_ADD;
        DNN(cudnnCreateOpTensorDescriptor(&rt->optd));
        DNN(cudnnSetOpTensorDescriptor(rt->optd, op, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN));
        snprintf(rt->call, sizeof rt->call, "cudnnOpTensor");
        return true;
    }
    default:
        return true;
    }
}

/* allocate and fill the node's tensors, set its call up */
static bool oc_setup(struct oc_node_rt *rt, uint64_t seed, char *err, size_t n) {
    const struct oc_rp_plan *p = rt->p;
    /* a non-sticky error left by an earlier node (a failed cudaMalloc, an
       invalid cudaFree) would come back from our launchers' cudaGetLastError */
    (void)cudaGetLastError();
    for (int32_t i = 0; i < p->n_in; i++) {
        const struct oc_rp_tensor *t = &p->in[i];
        if (!t->dtype)
            continue;
        /* cuDNN takes BatchNormalization's scale, bias, mean and var in float */
        int32_t dt = p->kind == OC_RPK_BATCHNORM && i > 0 ? 1 : t->dtype;
        if (!oc_alloc(&rt->in[i], t->numel, dt, err, n))
            return false;
        int rc = oc_k_fill(rt->in[i], dt, t->numel, t->fill, t->lo, t->hi, seed * 1000003u + (uint64_t)i,
                           (oc_stream_t)G.stream);
        if (rc) {
            oc_set_err(err, n, "filling input %d: %s", i, cudaGetErrorString((cudaError_t)rc));
            return false;
        }
    }
    for (int32_t i = 0; i < p->n_out; i++) {
        const struct oc_rp_tensor *t = &p->out[i];
        if (!t->dtype)
            continue;
        if (!oc_alloc(&rt->out[i], t->numel, t->dtype, err, n))
            return false;
        cudaMemsetAsync(rt->out[i], 0xff, (size_t)(t->numel ? t->numel : 1) * (size_t)oc_elem_bytes(t->dtype),
                        G.stream); /* poisoned: a kernel that writes nothing shows */
    }
    cudaStreamSynchronize(G.stream);
    switch (p->kind) {
    case OC_RPK_CONV:
    case OC_RPK_CONVT:
        return oc_setup_conv(rt, err, n);
    case OC_RPK_POOL:
        return oc_setup_pool(rt, err, n);
    case OC_RPK_GEMM:
        return oc_setup_gemm(rt, err, n);
    case OC_RPK_ACT: case OC_RPK_SOFTMAX: case OC_RPK_BATCHNORM: case OC_RPK_LRN: case OC_RPK_REDUCE:
    case OC_RPK_BINARY:
        return oc_setup_dnn_misc(rt, err, n);
    default:
        snprintf(rt->call, sizeof rt->call, "%s",
                 p->kind == OC_RPK_UNARY ? "oc_k_unary" : p->kind == OC_RPK_WHERE ? "oc_k_where"
                 : p->kind == OC_RPK_COPY ? "oc_k_copy" : p->kind == OC_RPK_GATHER ? "oc_k_gather"
                 : p->kind == OC_RPK_LAYERNORM ? "oc_k_layernorm" : "oc_k_cast");
        return true;
    }
}

#define CU(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_) {                                                                                 \
            oc_set_err(err, n, "%s: %s", #call, cudaGetErrorString((cudaError_t)rc_));              \
            return false;                                                                          \
        }                                                                                          \
    } while (0)
#define BLAS(call)                                                                                 \
    do {                                                                                           \
        cublasStatus_t st_ = (call);                                                               \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            oc_set_err(err, n, "%s: %s", #call, cublasGetStatusString(st_));                       \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* enqueue the node once on G.stream (no synchronization) */
static bool oc_launch(struct oc_node_rt *rt, char *err, size_t n) {
    const struct oc_rp_plan *p = rt->p;
    oc_stream_t s = (oc_stream_t)G.stream;
    const float one = 1.0f, zero = 0.0f;
    switch (p->kind) {
    case OC_RPK_CONV:
    case OC_RPK_CONVT: {
        void *y = rt->ext ? rt->ext : rt->out[0];
        if (p->kind == OC_RPK_CONV)
            DNN(cudnnConvolutionForward(G.dnn, &one, rt->t[0], rt->in[0], rt->filt, rt->in[1], rt->conv,
                                        (cudnnConvolutionFwdAlgo_t)rt->algo, rt->ws, rt->ws_bytes, &zero, rt->t[1], y));
        else
            DNN(cudnnConvolutionBackwardData(G.dnn, &one, rt->filt, rt->in[1], rt->t[0], rt->in[0], rt->conv,
                                             (cudnnConvolutionBwdDataAlgo_t)rt->algo, rt->ws, rt->ws_bytes, &zero,
                                             rt->t[1], y));
        if (p->u.conv.bias)
            DNN(cudnnAddTensor(G.dnn, &one, rt->t[2], rt->in[2], &one, rt->t[1], y));
        if (rt->ext)
            CU(oc_k_copy(oc_elem_bytes(p->out[0].dtype), rt->ext, rt->out[0], &rt->crop, s));
        return true;
    }
    case OC_RPK_POOL:
        DNN(cudnnPoolingForward(G.dnn, rt->pool, &one, rt->t[0], rt->in[0], &zero, rt->t[1],
                                rt->ext ? rt->ext : rt->out[0]));
        if (rt->ext)
            CU(oc_k_copy(oc_elem_bytes(p->out[0].dtype), rt->ext, rt->out[0], &rt->crop, s));
        return true;
    case OC_RPK_GEMM: {
        const struct oc_rp_gemm *g = &p->u.gemm;
        cudaDataType_t dt = oc_blas_type(p->in[0].dtype);
        /* strict FP32 asks for it in the compute type itself: the header ties
           CUBLAS_PEDANTIC_MATH to the pedantic compute types only for the legacy
           calls, so the handle's math mode alone may leave 16-bit data on tensor
           cores. The _FAST_ types down-convert FP32 inputs (CUDA_R_32F A/B/C
           only); 16-bit data otherwise runs COMPUTE_32F (tensor cores) */
        cublasComputeType_t ct = rt->o->math == OC_RP_MATH_FP32 ? CUBLAS_COMPUTE_32F_PEDANTIC
                                 : dt != CUDA_R_32F             ? CUBLAS_COMPUTE_32F
                                 : rt->o->math == OC_RP_MATH_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                  : CUBLAS_COMPUTE_32F_FAST_16F;
        float alpha = (float)g->alpha, beta = (float)g->beta;
        if (g->bias != OC_BIAS_NONE)
            CU(oc_k_copy(oc_elem_bytes(p->out[0].dtype), rt->in[2], rt->out[0], &g->bias_copy, s));
        cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
        if (g->mode == OC_GEMM_SINGLE)
            BLAS(cublasGemmEx(G.blas, ta, tb, (int)g->m, (int)g->n, (int)g->k, &alpha, rt->in[1], dt, (int)g->lda,
                              rt->in[0], dt, (int)g->ldb, &beta, rt->out[0], dt, (int)g->ldc, ct, CUBLAS_GEMM_DEFAULT));
        else if (g->mode == OC_GEMM_STRIDED)
            BLAS(cublasGemmStridedBatchedEx(G.blas, ta, tb, (int)g->m, (int)g->n, (int)g->k, &alpha, rt->in[1], dt,
                                            (int)g->lda, g->stride_a, rt->in[0], dt, (int)g->ldb, g->stride_b, &beta,
                                            rt->out[0], dt, (int)g->ldc, g->stride_c, (int)g->batch, ct,
                                            CUBLAS_GEMM_DEFAULT));
        else
            BLAS(cublasGemmBatchedEx(G.blas, ta, tb, (int)g->m, (int)g->n, (int)g->k, &alpha,
                                     (const void *const *)rt->ptrs, dt, (int)g->lda,
                                     (const void *const *)(rt->ptrs + g->batch), dt, (int)g->ldb, &beta,
                                     rt->ptrs + 2 * g->batch, dt, (int)g->ldc, (int)g->batch, ct,
                                     CUBLAS_GEMM_DEFAULT));
        return true;
    }
    case OC_RPK_ACT:
        DNN(cudnnActivationForward(G.dnn, rt->act, &one, rt->t[0], rt->in[0], &zero, rt->t[0], rt->out[0]));
        return true;
    case OC_RPK_SOFTMAX:
        DNN(cudnnSoftmaxForward(G.dnn, p->u.softmax.log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                CUDNN_SOFTMAX_MODE_CHANNEL, &one, rt->t[0], rt->in[0], &zero, rt->t[0], rt->out[0]));
        return true;
    case OC_RPK_BATCHNORM: {
        double eps = p->u.norm.epsilon < CUDNN_BN_MIN_EPSILON ? CUDNN_BN_MIN_EPSILON : p->u.norm.epsilon;
        DNN(cudnnBatchNormalizationForwardInference(G.dnn, CUDNN_BATCHNORM_SPATIAL, &one, &zero, rt->t[0], rt->in[0],
                                                    rt->t[0], rt->out[0], rt->t[1], rt->in[1], rt->in[2], rt->in[3],
                                                    rt->in[4], eps));
        return true;
    }
    case OC_RPK_LRN:
        DNN(cudnnLRNCrossChannelForward(G.dnn, rt->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, rt->t[0], rt->in[0], &zero,
                                        rt->t[0], rt->out[0]));
        return true;
    case OC_RPK_REDUCE:
        DNN(cudnnReduceTensor(G.dnn, rt->red, NULL, 0, rt->ws, rt->ws_bytes, &one, rt->t[0], rt->in[0], &zero,
                              rt->t[1], rt->out[0]));
        return true;
    case OC_RPK_BINARY: {
        const struct oc_rp_eltwise *e = &p->u.ew;
        if (rt->optd) {
            float a2 = e->op == OC_EW_SUB ? -1.0f : 1.0f;
            DNN(cudnnOpTensor(G.dnn, rt->optd, &one, rt->t[0], rt->in[0], &a2, rt->t[1], rt->in[1], &zero, rt->t[0],
                              rt->out[0]));
        } else {
            CU(oc_k_binary(e->op, p->in[0].dtype, p->out[0].dtype, rt->in[0], rt->in[1], rt->out[0], e->rank, e->dims,
                           e->stride[0], e->stride[1], s));
        }
        return true;
    }
    case OC_RPK_UNARY:
        CU(oc_k_unary(p->u.ew.op, p->in[0].dtype, rt->in[0], p->u.ew.bias_n ? rt->in[1] : NULL, p->u.ew.bias_n,
                      rt->out[0], p->out[0].numel, p->u.ew.alpha, p->u.ew.beta, s));
        return true;
    case OC_RPK_WHERE: {
        const struct oc_rp_eltwise *e = &p->u.ew;
        CU(oc_k_where(p->in[1].dtype, rt->in[0], rt->in[1], rt->in[2], rt->out[0], e->rank, e->dims, e->stride[0],
                      e->stride[1], e->stride[2], s));
        return true;
    }
    case OC_RPK_COPY:
        for (int32_t k = 0; k < p->u.copy.n_pieces; k++) {
            const struct oc_rp_piece *pc = &p->u.copy.piece[k];
            CU(oc_k_copy(oc_elem_bytes(p->in[pc->input].dtype), rt->in[pc->input], rt->out[pc->output], pc, s));
        }
        return true;
    case OC_RPK_GATHER: {
        const struct oc_rp_gather *g = &p->u.gather;
        CU(oc_k_gather(oc_elem_bytes(p->in[0].dtype), rt->in[0], p->in[1].dtype, rt->in[1], rt->out[0], g->outer,
                       g->axis_dim, g->inner, g->n_idx, s));
        return true;
    }
    case OC_RPK_LAYERNORM:
        CU(oc_k_layernorm(p->in[0].dtype, rt->in[0], p->u.norm.has_skip ? rt->in[3] : NULL,
                          p->u.norm.has_skip_bias ? rt->in[4] : NULL, rt->in[1], p->u.norm.has_bias ? rt->in[2] : NULL,
                          rt->out[0], p->u.norm.rows, p->u.norm.cols, p->u.norm.epsilon, s));
        return true;
    case OC_RPK_CAST:
        CU(oc_k_cast(p->in[0].dtype, p->cast_to, rt->in[0], rt->out[0], p->out[0].numel, s));
        return true;
    default:
        oc_set_err(err, n, "plan kind %d has no launcher", p->kind);
        return false;
    }
}

/* ---- timing -------------------------------------------------------------------------- */

struct oc_timing {
    bool traced;               /* CUPTI activity records; else CUDA events */
};

static void oc_fail(struct oc_rp_result *r, const char *msg) {
    r->status = OC_RPS_FAILED;
    snprintf(r->reason, sizeof r->reason, "%s", msg);
}

/* phase 1 for one node: warm-up by time, then the repetitions */
static void oc_time_node(const struct oc_rp_options *o, struct oc_node_rt *rt, int32_t idx, struct oc_timing *tm,
                         struct oc_rp_result *r) {
    char err[256] = "";
    /* warm-up: module loading, heuristics, clock ramp; at least 3 runs */
    double t0 = oc_now_ms();
    int32_t runs = 0;
    while (runs < 3 || oc_now_ms() - t0 < o->warmup_ms) {
        if (!oc_launch(rt, err, sizeof err)) {
            oc_fail(r, err);
            return;
        }
        if (cudaStreamSynchronize(G.stream) != cudaSuccess) {
            oc_fail(r, cudaGetErrorString(cudaGetLastError()));
            return;
        }
        runs++;
        if (runs > 100000)
            break;
    }
    double per = (oc_now_ms() - t0) / runs;
    int32_t reps = o->reps;
    if (reps <= 0) {
        double k = per > 0 ? o->budget_ms / per : 1000;
        reps = k < 10 ? 10 : k > 1000 ? 1000 : (int32_t)k;
    }
    double *times = calloc((size_t)reps, sizeof *times);
    cudaEvent_t *ev = NULL;
    if (!times) {
        oc_fail(r, "out of host memory");
        return;
    }
    if (!tm->traced) {
        ev = calloc((size_t)reps * 2, sizeof *ev);
        if (!ev) {
            free(times);
            oc_fail(r, "out of host memory");
            return;
        }
        for (int32_t k = 0; k < 2 * reps; k++)
            cudaEventCreate(&ev[k]);
    }
    for (int32_t k = 0; k < reps; k++) {
        if (o->flush_l2 && oc_k_l2_flush(G.flush, (int64_t)G.flush_bytes, G.sink, (oc_stream_t)G.stream) != 0) {
            oc_fail(r, "the L2 flush kernel failed (--cold)");
            goto out;
        }
        uint64_t id = ((uint64_t)(idx + 1) << 32) | (uint64_t)k;
        if (tm->traced)
            oc_rp_trace_push(id);
        else if (ev)
            cudaEventRecord(ev[2 * k], G.stream);
        bool ok = oc_launch(rt, err, sizeof err);
        if (tm->traced)
            oc_rp_trace_pop();
        else if (ev)
            cudaEventRecord(ev[2 * k + 1], G.stream);
        if (!ok) {
            oc_fail(r, err);
            goto out;
        }
    }
    if (cudaStreamSynchronize(G.stream) != cudaSuccess) {
        oc_fail(r, cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    r->n_kernels = 0;
    if (tm->traced) {
        struct oc_rp_kernel *ks = NULL;
        uint64_t dropped = 0;
        int64_t nk = oc_rp_trace_take(&ks, &dropped, err, sizeof err);
        if (nk < 0) {
            oc_fail(r, err);
            goto out;
        }
        size_t used = 0;
        /* a kernel record with 0/0 (or reversed) timestamps: CUPTI could not time
           it ("for lack of device memory", cupti_activity.h). Its repetition is
           left out rather than counted short. */
        int32_t untimed = 0;
        for (int64_t j = 0; j < nk; j++) {
            if ((ks[j].id >> 32) != (uint64_t)(idx + 1))
                continue; /* the L2 flush and anything outside the node */
            uint32_t rep = (uint32_t)ks[j].id;
            if (rep >= (uint32_t)reps)
                continue;
            if ((ks[j].start_ns == 0 && ks[j].end_ns == 0) || ks[j].end_ns < ks[j].start_ns) {
                if (!isnan(times[rep]))
                    untimed++;
                times[rep] = NAN;
            } else if (!isnan(times[rep])) {
                times[rep] += (double)(ks[j].end_ns - ks[j].start_ns);
            }
            if (rep == 0) {
                r->n_kernels++;
                int w = snprintf(r->kernels + used, sizeof r->kernels - used, "%s%s", used ? "; " : "",
                                 ks[j].name ? ks[j].name : "?");
                if (w > 0)
                    used = used + (size_t)w < sizeof r->kernels ? used + (size_t)w : sizeof r->kernels - 1;
            }
        }
        free(ks);
        int32_t kept = 0;
        for (int32_t k = 0; k < reps; k++)
            if (!isnan(times[k]))
                times[kept++] = times[k];
        if (kept == 0) {
            oc_fail(r, "CUPTI gave no timestamps for the node's kernels (0/0 records: CUPTI lacked device memory?)");
            goto out;
        }
        if (untimed)
            snprintf(r->reason, sizeof r->reason,
                     "%d of %d repetitions left out: CUPTI gave kernel records without timestamps", (int)(reps - kept),
                     (int)reps);
        else if (dropped)
            snprintf(r->reason, sizeof r->reason, "%llu activity records dropped", (unsigned long long)dropped);
        reps = kept;
    } else if (ev) {
        for (int32_t k = 0; k < reps; k++) {
            float ms = 0;
            cudaError_t ee = cudaEventElapsedTime(&ms, ev[2 * k], ev[2 * k + 1]);
            if (ee != cudaSuccess) {
                oc_fail(r, cudaGetErrorString(ee));
                goto out;
            }
            times[k] = (double)ms * 1e6;
        }
        snprintf(r->kernels, sizeof r->kernels, "(CUDA events: kernel names need CUPTI tracing)");
    }
    r->reps = reps;
    oc_summarize(times, reps, &r->time_median_ns, &r->time_p10_ns, &r->time_p90_ns, &r->time_min_ns);
    r->status = OC_RPS_MEASURED;
out:
    if (ev) {
        for (int32_t k = 0; k < 2 * reps; k++)
            cudaEventDestroy(ev[k]);
        free(ev);
    }
    free(times);
}

/* phase 2: the node in one profiler range per pass */
struct oc_pass_arg {
    struct oc_node_rt *rt;
    struct oc_rp_profiler *prof;
    bool ok;
    char err[256];
};

static int oc_profile_pass(void *arg) {
    struct oc_pass_arg *a = arg;
    const char *name = a->rt->p->name && a->rt->p->name[0] ? a->rt->p->name : a->rt->p->op_type;
    /* --cold: every pass (the DRAM counters' one included) starts from a flushed
       L2, as the timed repetitions did; the flush runs outside the range */
    if (a->rt->o->flush_l2 &&
        (oc_k_l2_flush(G.flush, (int64_t)G.flush_bytes, G.sink, (oc_stream_t)G.stream) != 0 ||
         cudaStreamSynchronize(G.stream) != cudaSuccess)) {
        a->ok = false;
        snprintf(a->err, sizeof a->err, "the L2 flush kernel failed (--cold)");
        return -1;
    }
    if (oc_rp_profiler_push(a->prof, name) != 0)
        return -1;
    bool ok = oc_launch(a->rt, a->err, sizeof a->err);
    oc_rp_profiler_pop(a->prof);
    if (!ok) {
        a->ok = false;
        return -1;
    }
    return cudaStreamSynchronize(G.stream) == cudaSuccess ? 0 : -1;
}

/* A node's stage, written where the supervising process reads it after a
   crash (replay/isolated.c): volatile, so that the store is not moved past
   the library call that may crash. */
static void oc_stage(struct oc_rp_result *r, int32_t stage) {
    *(volatile int32_t *)&r->stage = stage;
}

/* phase 1 for node i: set up, time, keep the algorithm for phase 2 */
static void oc_phase1(const struct oc_rp_options *o, const struct oc_rp_plan *p, int32_t i, struct oc_timing *tm,
                      struct oc_rp_result *r) {
    memset(r, 0, sizeof *r);
    oc_stage(r, OC_RPG_TIMING);
    if (p->kind == OC_RPK_NONE || p->kind == OC_RPK_ALIAS) {
        r->status = p->kind == OC_RPK_NONE ? OC_RPS_SKIPPED : OC_RPS_ALIAS;
        snprintf(r->reason, sizeof r->reason, "%s", p->reason);
        oc_stage(r, OC_RPG_DONE);
        return;
    }
    struct oc_node_rt rt = {.p = p, .o = o};
    char e[256] = "";
    if (!oc_setup(&rt, o->seed + (uint64_t)i, e, sizeof e)) {
        oc_fail(r, e);
    } else {
        oc_time_node(o, &rt, i, tm, r);
        snprintf(r->call, sizeof r->call, "%s", rt.call);
        snprintf(r->algo, sizeof r->algo, "%s", rt.algo_name);
        r->overhead = rt.ext != NULL;
        if (r->overhead && !r->reason[0])
            snprintf(r->reason, sizeof r->reason, "%s", p->reason);
        if (!tm->traced && r->status == OC_RPS_MEASURED && !r->reason[0])
            snprintf(r->reason, sizeof r->reason, "timed with CUDA events (CUPTI tracing unavailable)");
    }
    r->algo_id = rt.algo;
    r->algo_math = rt.algo_math;
    oc_rt_free(&rt);
    oc_stage(r, r->status == OC_RPS_MEASURED ? OC_RPG_TIMED : OC_RPG_DONE);
}

/* phase 2 for node i: its counters in one profiler range per pass. Returns
   false when the failure is the session's (no later node can be counted). */
static bool oc_phase2(const struct oc_rp_options *o, const struct oc_rp_plan *p, int32_t i,
                      struct oc_rp_profiler *prof, struct oc_rp_result *r, char *why, size_t whyn) {
    oc_stage(r, OC_RPG_COUNTING);
    struct oc_node_rt rt = {.p = p, .o = o, .algo = r->algo_id, .algo_math = r->algo_math, .algo_fixed = true};
    struct oc_pass_arg a = {.rt = &rt, .prof = prof, .ok = true};
    char e[256] = "";
    struct oc_rp_counters c;
    const char *nm;
    bool session_ok = true;
    if (!oc_setup(&rt, o->seed + (uint64_t)i, e, sizeof e)) {
        snprintf(r->reason, sizeof r->reason, "no counters: %.140s", e);
    } else if (oc_rp_profiler_collect(prof, oc_profile_pass, &a, e, sizeof e) != 0 || !a.ok) {
        snprintf(r->reason, sizeof r->reason, "no counters: %.140s", a.ok ? e : a.err);
        if (a.ok && oc_rp_profiler_fatal(prof)) {
            snprintf(why, whyn, "%s", e);
            session_ok = false;
        }
    } else if (oc_rp_profiler_range(prof, 0, &nm, &c) == 0) {
        r->has_counters = (c.have & (OC_RP_HAVE_FP32 | OC_RP_HAVE_DRAM_READ)) == (OC_RP_HAVE_FP32 | OC_RP_HAVE_DRAM_READ);
        r->fp32_flops = c.fp32_flops;
        r->fp16_flops = c.fp16_flops;
        r->fp64_flops = c.fp64_flops;
        r->tensor_flops = c.tensor_ops;
        r->dram_read_bytes = c.dram_read;
        r->dram_write_bytes = c.dram_write;
        r->sm_hz = c.sm_hz;
    } else {
        snprintf(r->reason, sizeof r->reason, "no counters: %.140s", oc_rp_profiler_last_error(prof));
    }
    oc_rt_free(&rt);
    oc_stage(r, OC_RPG_DONE);
    return session_ok;
}

/* the nodes phase 2 has left: their reason says why they have no counters */
static void oc_no_counters(struct oc_rp_result *results, int32_t n, const char *why) {
    for (int32_t j = 0; j < n; j++) {
        struct oc_rp_result *r = &results[j];
        if (r->stage == OC_RPG_DONE)
            continue;
        if (r->status == OC_RPS_MEASURED && !r->reason[0] && why)
            snprintf(r->reason, sizeof r->reason, "no counters: %.140s", why);
        oc_stage(r, OC_RPG_DONE);
    }
}

static int oc_run(const struct oc_rp_options *o, const struct oc_rp_plan *plans, int32_t n,
                  struct oc_rp_result *results, void (*progress)(void *, int32_t, int32_t), void *parg, char *err,
                  size_t errn) {
    if (!G.open) {
        oc_set_err(err, errn, "the device is not open (probe first)");
        return -1;
    }
    cudaSetDevice(G.device);
    bool counters = G.counters && o->counters;
    int32_t total = counters ? 2 * n : n;
    /* phase 1: time every node (a resumed run: those not timed yet) */
    bool todo = false;
    for (int32_t i = 0; i < n && !todo; i++)
        todo = !o->resume || results[i].stage < OC_RPG_TIMED;
    struct oc_timing tm = {.traced = todo && oc_rp_trace_begin(err, errn) == 0};
    err[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        if (!o->resume || results[i].stage < OC_RPG_TIMED)
            oc_phase1(o, &plans[i], i, &tm, &results[i]);
        if (progress)
            progress(parg, i + 1, total);
    }
    if (tm.traced)
        oc_rp_trace_end();
    if (!counters) {
        oc_no_counters(results, n, NULL);
        return 0;
    }
    /* phase 2: counters, node by node, with phase 1's algorithms */
    todo = false;
    for (int32_t i = 0; i < n && !todo; i++)
        todo = results[i].stage != OC_RPG_DONE;
    if (!todo)
        return 0;
    struct oc_rp_profiler *prof = NULL;
    char why[256] = "";
    int32_t math = o->math == OC_RP_MATH_TF32 ? OC_MATH_TF32 : o->math == OC_RP_MATH_FP16 ? OC_MATH_FP16 : OC_MATH_FP32;
    /* with tensor cores allowed, 16-bit data takes its own tensor path
       (cuBLAS runs it with COMPUTE_32F): ask for that path's counter */
    for (int32_t i = 0; math != OC_MATH_FP32 && i < n; i++) {
        int32_t k = plans[i].kind;
        if (k == OC_RPK_CONV || k == OC_RPK_CONVT || k == OC_RPK_GEMM) {
            int32_t dt = plans[i].in[0].dtype;
            math = dt == 16 ? OC_MATH_BF16 : dt == 10 ? OC_MATH_FP16 : math;
            break;
        }
    }
    if (oc_rp_profiler_begin(&prof, math, 1, why, sizeof why) != 0) {
        oc_no_counters(results, n, why);
        return 0;
    }
    for (int32_t i = 0; i < n; i++) {
        struct oc_rp_result *r = &results[i];
        if (r->stage != OC_RPG_DONE) {
            if (r->status != OC_RPS_MEASURED) {
                oc_stage(r, OC_RPG_DONE);
            } else if (!oc_phase2(o, &plans[i], i, prof, r, why, sizeof why)) {
                /* the session's, not the node's: the same for every node left */
                oc_no_counters(results, n, why);
                break;
            }
        }
        if (progress)
            progress(parg, n + i + 1, total);
    }
    oc_rp_profiler_end(prof);
    return 0;
}

static const struct oc_replay_api oc_api = {
    .abi = OC_REPLAY_ABI,
    .build = "CUDA " OC_STR(CUDART_VERSION) ", cuDNN " OC_STR(CUDNN_MAJOR) "." OC_STR(CUDNN_MINOR) "."
             OC_STR(CUDNN_PATCHLEVEL) ", cuBLAS " OC_STR(CUBLAS_VER_MAJOR) "." OC_STR(CUBLAS_VER_MINOR),
    .probe = oc_probe,
    .run = oc_run,
    .close = oc_close,
};

OC_EXPORT const struct oc_replay_api *onnxcost_replay_api_v1(void);
OC_EXPORT const struct oc_replay_api *onnxcost_replay_api_v1(void) {
    return &oc_api;
}
