/*
 * plan.h — what replaying one ONNX node on a GPU means, decided on the host.
 *
 * The planner (replay/plan.c and the per-op planners in replay/plan_ops.c,
 * named in the last column of analyzer/ops.def) turns an analyzed node into
 * a plan: plain data — the tensors at their inferred shapes, how to fill
 * them, which library call runs the node and its parameters, already mapped
 * to what cuDNN/cuBLAS/our kernels take. The GPU plugin (libonnxcost_gpu.so)
 * executes plans and needs nothing from the analyzer; planning needs no GPU
 * and is unit-tested here.
 *
 * This header is shared with the plugin (C and CUDA C++): plain C, no
 * analyzer types. Changing a struct changes OC_REPLAY_ABI in replay.h.
 */
#ifndef OC_REPLAY_PLAN_H
#define OC_REPLAY_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#define OC_RP_MAX_RANK 8      /* cuDNN's CUDNN_DIM_MAX; our kernels' limit too   */
#define OC_RP_MAX_IN 16       /* Concat inputs and the like                      */
#define OC_RP_MAX_OUT 4
#define OC_RP_MAX_PIECES 16   /* strided copies of one node (Concat, Split)       */
#define OC_RP_REASON 160

/* How an input is filled before the node runs: random data in a range the
 * op accepts (never zeros: some kernels run faster on zeros). */
enum oc_rp_fill {
    OC_FILL_NONE = 0,   /* an output: poisoned, not filled                   */
    OC_FILL_UNIFORM,    /* floats uniform in [lo, hi)                        */
    OC_FILL_INDEX,      /* integers uniform in [lo, hi) (indices in bounds)  */
    OC_FILL_MASK,       /* 0 or 1 (bool masks, Where's condition)            */
};

struct oc_rp_tensor {
    int32_t dtype;                 /* ONNX TensorProto.DataType code          */
    int32_t rank;
    int64_t dims[OC_RP_MAX_RANK];
    int64_t numel;
    int32_t fill;                  /* enum oc_rp_fill                         */
    double lo, hi;
    bool weight;                   /* an initializer (parameters, constants)  */
};

enum oc_rp_kind {
    OC_RPK_NONE = 0,    /* cannot be replayed: see the plan's reason         */
    OC_RPK_ALIAS,       /* a view or a pure metadata op: no kernel runs      */
    OC_RPK_CONV,        /* cudnnConvolutionForward (+ cudnnAddTensor bias)   */
    OC_RPK_CONVT,       /* cudnnConvolutionBackwardData                      */
    OC_RPK_GEMM,        /* cublasGemmEx / cublasGemmStridedBatchedEx / Batched */
    OC_RPK_POOL,        /* cudnnPoolingForward                               */
    OC_RPK_ACT,         /* cudnnActivationForward                            */
    OC_RPK_SOFTMAX,     /* cudnnSoftmaxForward                               */
    OC_RPK_BATCHNORM,   /* cudnnBatchNormalizationForwardInference           */
    OC_RPK_LRN,         /* cudnnLRNCrossChannelForward                       */
    OC_RPK_REDUCE,      /* cudnnReduceTensor                                 */
    OC_RPK_UNARY,       /* oc kernel: y = f(x)                               */
    OC_RPK_BINARY,      /* cudnnOpTensor where it fits, else oc kernel       */
    OC_RPK_WHERE,       /* oc kernel                                         */
    OC_RPK_COPY,        /* oc kernel: strided copies (Transpose, Expand,
                           Slice, Concat, Split, Tile-free layout ops)        */
    OC_RPK_GATHER,      /* oc kernel                                         */
    OC_RPK_LAYERNORM,   /* oc kernel                                         */
    OC_RPK_CAST,        /* oc kernel                                         */
    OC_RPK_COUNT
};

/* Convolution and pooling windows. cuDNN's legacy descriptors take one pad
 * per side pair; asymmetric ONNX pads are replayed as ORT does: pad both
 * sides by `pad` (>= both ONNX pads, chosen so the wanted outputs lie on the
 * stride grid), compute the extended output `ext` and keep the outputs from
 * `crop` on. The extra outputs are replay overhead (flagged in results). */
struct oc_rp_window {
    int32_t nsp;                   /* spatial dims, 1..3 (1-D runs as 2-D)    */
    int64_t kernel[3];
    int64_t stride[3];
    int64_t dilation[3];
    int64_t pad[3];                /* symmetric pad given to cuDNN            */
    int64_t crop[3];               /* first wanted output along each dim      */
    int64_t ext[3];                /* cuDNN's output extent with `pad`        */
    bool cropped;                  /* ext differs from the ONNX output        */
};

struct oc_rp_conv {
    struct oc_rp_window w;
    int64_t group;
    bool bias;
    int64_t out_pad[3];            /* ConvTranspose output_padding            */
};

enum oc_rp_pool_mode { OC_POOL_MAX, OC_POOL_AVG_INCLUDE_PAD, OC_POOL_AVG_EXCLUDE_PAD };
struct oc_rp_pool {
    struct oc_rp_window w;
    int32_t mode;                  /* enum oc_rp_pool_mode                    */
    bool global;
};

/* One strided copy: out[out_offset + sum i_d*out_stride[d]] =
 * in[in_offset + sum i_d*in_stride[d]] over the index space dims. */
struct oc_rp_piece {
    int32_t input, output;
    int32_t rank;
    int64_t dims[OC_RP_MAX_RANK];
    int64_t in_offset, out_offset;
    int64_t in_stride[OC_RP_MAX_RANK];
    int64_t out_stride[OC_RP_MAX_RANK];
};
/* ONNX Gemm/MatMul in cuBLAS's column-major view: C' = op(A') op(B') with
 * A' = the ONNX B operand and B' = the ONNX A operand (row-major trick:
 * Y^T = B^T A^T). Everything below is already in that view. */
enum oc_rp_gemm_mode {
    OC_GEMM_SINGLE,     /* one cublasGemmEx (batch folded into M when possible) */
    OC_GEMM_STRIDED,    /* cublasGemmStridedBatchedEx: one stride per operand   */
    OC_GEMM_POINTERS,   /* cublasGemmBatchedEx with per-batch offsets computed
                           from bdims/astride/bstride (general broadcast)        */
};
enum oc_rp_bias { OC_BIAS_NONE, OC_BIAS_FULL, OC_BIAS_ROW, OC_BIAS_COL, OC_BIAS_SCALAR };
struct oc_rp_gemm {
    int32_t mode;                  /* enum oc_rp_gemm_mode                     */
    bool trans_a, trans_b;         /* cuBLAS opA (on A' = ONNX B), opB (on ONNX A) */
    int64_t m, n, k;               /* cuBLAS m = ONNX N, n = ONNX M (rows), k */
    int64_t lda, ldb, ldc;
    int64_t batch;                 /* 1 for SINGLE                            */
    int64_t stride_a, stride_b, stride_c; /* elements; 0 = broadcast          */
    int32_t batch_rank;            /* POINTERS: output batch dims            */
    int64_t bdims[OC_RP_MAX_RANK];
    int64_t astride[OC_RP_MAX_RANK];  /* per batch dim, elements of ONNX B (A') */
    int64_t bstride[OC_RP_MAX_RANK];  /* per batch dim, elements of ONNX A (B') */
    double alpha, beta;
    int32_t bias;                  /* enum oc_rp_bias (Gemm's C)              */
    struct oc_rp_piece bias_copy;  /* C broadcast into Y before the GEMM runs
                                      with beta (input 2 -> output 0)          */
};

enum oc_rp_act { OC_ACT_RELU, OC_ACT_SIGMOID, OC_ACT_TANH, OC_ACT_ELU, OC_ACT_CLIPPED_RELU };

/* Elementwise ops of our kernels (unary and binary share the code space),
 * listed once in eltwise.def. */
enum oc_rp_ew_kind { OC_EWK_ARITH, OC_EWK_FLOAT, OC_EWK_CMP, OC_EWK_LOGIC };
enum oc_rp_ew {
#define OC_UNARY(code, ...) OC_EW_##code,
#define OC_BINARY(code, ...)
#define OC_EW_ALIAS(onnx, code)
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
    OC_EW_UNARY_END,
    OC_EW_BINARY_BEFORE = 63, /* binary codes from 64 */
#define OC_UNARY(code, ...)
#define OC_BINARY(code, ...) OC_EW_##code,
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
    OC_EW_BINARY_END
};
/* the rows of eltwise.def, counted */
enum {
#define OC_UNARY(...) +1
#define OC_BINARY(...)
#define OC_EW_ALIAS(onnx, code)
    OC_EW_N_UNARY = 0
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
    ,
#define OC_UNARY(...)
#define OC_BINARY(...) +1
    OC_EW_N_BINARY = 0
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
};
#ifdef __cplusplus
static_assert((int)OC_EW_UNARY_END == (int)OC_EW_N_UNARY && OC_EW_UNARY_END <= 64, "unary codes out of range");
static_assert(OC_EW_ADD == 64 && (int)OC_EW_BINARY_END == 64 + (int)OC_EW_N_BINARY, "binary codes out of range");
#define OC_RP_CONSTEXPR constexpr
#else
_Static_assert((int)OC_EW_UNARY_END == (int)OC_EW_N_UNARY && OC_EW_UNARY_END <= 64, "unary codes out of range");
_Static_assert(OC_EW_ADD == 64 && (int)OC_EW_BINARY_END == 64 + (int)OC_EW_N_BINARY, "binary codes out of range");
#define OC_RP_CONSTEXPR
#endif
#ifdef __CUDACC__
#define OC_RP_HD __host__ __device__
#else
#define OC_RP_HD
#endif
/* enum oc_rp_ew_kind of a binary code, -1 for any other */
static inline OC_RP_CONSTEXPR OC_RP_HD int32_t oc_rp_ew_kind(int32_t code) {
    switch (code) {
#define OC_UNARY(...)
#define OC_BINARY(code, onnx, kind, ...)                                                                             \
    case OC_EW_##code:                                                                                               \
        return kind;
#define OC_EW_ALIAS(onnx, code)
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
    default:
        return -1;
    }
}

struct oc_rp_eltwise {
    int32_t op;                    /* enum oc_rp_ew, or enum oc_rp_act for ACT */
    double alpha, beta;            /* LeakyRelu/Elu alpha, HardSigmoid a/b,
                                      Clip min/max                            */
    /* broadcasting: output dims and, per input, element strides over them
       (0 on a broadcast dim); rank <= OC_RP_MAX_RANK */
    int32_t rank;
    int64_t dims[OC_RP_MAX_RANK];
    int64_t stride[3][OC_RP_MAX_RANK];
    bool same_shape_a;             /* input 0 has the output's shape (cudnnOpTensor
                                      needs that; input 1 may broadcast)      */
    int64_t bias_n;                /* UNARY: input 1, of bias_n elements, is
                                      added along the last dim first (ORT's
                                      BiasGelu, FastGelu); 0: none            */
};

struct oc_rp_softmax {
    int64_t outer, axis, inner;    /* the tensor seen as [outer, axis, inner] */
    bool log;
};

struct oc_rp_norm {
    int64_t n, c, spatial;         /* BatchNormalization / LRN: N, C, H*W     */
    int64_t rows, cols;            /* LayerNormalization: rows x normalized   */
    double epsilon;
    int64_t size;                  /* LRN                                     */
    double alpha, beta, bias;      /* LRN                                     */
    bool has_bias;                 /* LayerNormalization's B (input 2)         */
    bool has_skip, has_skip_bias;  /* ORT's SkipLayerNormalization: input 3 is
                                      added to x, input 4 along the row, first */
};

enum oc_rp_reduce_op { OC_RED_SUM, OC_RED_MEAN, OC_RED_MAX, OC_RED_MIN, OC_RED_PROD, OC_RED_L1, OC_RED_L2 };
struct oc_rp_reduce {
    int32_t op;                    /* enum oc_rp_reduce_op                     */
    int32_t rank;
    int64_t in_dims[OC_RP_MAX_RANK];
    int64_t out_dims[OC_RP_MAX_RANK]; /* 1 on every reduced axis (keepdims view) */
};

struct oc_rp_copy {
    int32_t n_pieces;
    struct oc_rp_piece piece[OC_RP_MAX_PIECES];
};

struct oc_rp_gather {
    int64_t outer, axis_dim, inner, n_idx; /* data [outer, axis_dim, inner]   */
};

struct oc_rp_plan {
    int32_t node;                  /* index in the analysis' main graph       */
    const char *name;              /* node name (borrowed; may be "")         */
    const char *op_type;
    int32_t kind;                  /* enum oc_rp_kind                         */
    char reason[OC_RP_REASON];     /* OC_RPK_NONE: why not; else notes ("" )  */
    int32_t n_in, n_out;
    struct oc_rp_tensor in[OC_RP_MAX_IN];
    struct oc_rp_tensor out[OC_RP_MAX_OUT];
    union {
        struct oc_rp_conv conv;
        struct oc_rp_pool pool;
        struct oc_rp_gemm gemm;
        struct oc_rp_eltwise ew;
        struct oc_rp_softmax softmax;
        struct oc_rp_norm norm;
        struct oc_rp_reduce reduce;
        struct oc_rp_copy copy;
        struct oc_rp_gather gather;
    } u;
    int32_t cast_to;               /* OC_RPK_CAST: output dtype                */
};

/* A binary op's output dims for cudnnOpTensor, which takes at most 5:
 * neighbouring dims where input 1 is full on both or broadcast on both merge
 * (size-1 dims dropped), the same data in fewer dims. Returns the merged rank;
 * dims[] and bcast[] (input 1 broadcast along that dim) get that many. */
static inline int32_t oc_rp_binary_merge(const struct oc_rp_plan *p, int64_t *dims, bool *bcast) {
    const struct oc_rp_eltwise *e = &p->u.ew;
    int32_t r = 0;
    for (int32_t d = 0; d < e->rank; d++) {
        if (e->dims[d] == 1)
            continue;
        bool b = e->stride[1][d] == 0;
        if (r > 0 && bcast[r - 1] == b) {
            dims[r - 1] *= e->dims[d];
        } else {
            dims[r] = e->dims[d];
            bcast[r++] = b;
        }
    }
    return r;
}

/* A binary op runs as cudnnOpTensor when cuDNN can take it: a float op it
 * has, input 0 of the output's shape (only input 1 may broadcast), at most 5
 * dims once merged (the plugin and the planner's call names both ask this). */
static inline bool oc_rp_binary_uses_cudnn(const struct oc_rp_plan *p) {
    int32_t dt = p->in[0].dtype, op = p->u.ew.op;
    bool fl = dt == 1 || dt == 10 || dt == 16;
    bool has = op == OC_EW_ADD || op == OC_EW_SUB || op == OC_EW_MUL || op == OC_EW_MAX || op == OC_EW_MIN;
    int64_t dims[OC_RP_MAX_RANK];
    bool bcast[OC_RP_MAX_RANK];
    return p->kind == OC_RPK_BINARY && fl && has && p->u.ew.same_shape_a && p->in[1].dtype == dt &&
           p->out[0].dtype == dt && p->u.ew.rank >= 1 && oc_rp_binary_merge(p, dims, bcast) <= 5;
}

#endif
