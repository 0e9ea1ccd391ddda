/*
 * kernels.h — measured kernel tables: a node's time read from the times a
 * device took on nodes of its own shape family (docs/MODEL.md, "Kernel
 * tables").
 *
 * A family is what a library runs one way: matrix products (cuBLAS), dense
 * 3x3 stride-1 convolutions (Winograd's ground), other dense convolutions,
 * 1x1 convolutions, grouped and depthwise ones, and the memory-bound kinds
 * (elementwise, reductions and normalizations, pooling, data movement).
 * Each node of a family has up to three shape features (a product's M, N,
 * K; a convolution's output pixels, output channels and reduction length;
 * a memory-bound node's bytes moved, and the runs of its inner loop on a
 * CPU) and its work (FLOPs, or bytes for the memory-bound kinds). A table holds measured samples of one family at one
 * precision and math mode: features, work, seconds.
 *
 * A node's time is work / efficiency, the efficiency interpolated from the
 * K nearest samples in log2 feature space (inverse squared distance weights
 * on ln efficiency). A node farther than OC_KTABLE_RADIUS from every sample,
 * of a family without a table, or of no family keeps the roofline.
 */
#ifndef OC_KERNELS_H
#define OC_KERNELS_H

#include "../../analyzer/analyze.h"

enum oc_kfamily {
    OC_KF_NONE,
    OC_KF_GEMM,          /* MatMul, Gemm: M (all batch dims), N, K                  */
    OC_KF_CONV_3X3,      /* dense 3x3, stride 1, dilation 1: pixels, C_out, C_in x 9 */
    OC_KF_CONV_KXK,      /* other dense 2-D convolutions: pixels, C_out, C_in x kh x kw */
    OC_KF_CONV_1X1,      /* pixels, C_out, C_in                                    */
    OC_KF_CONV_GROUPED,  /* 1 < groups < C_in: pixels, C_out, C_in / g x kh x kw    */
    OC_KF_CONV_DEPTHWISE,/* groups = C_in > 1: pixels, C_out, kh x kw               */
    OC_KF_ELTWISE,       /* pointwise ops (and 1x1 depthwise convolutions, a
                            per-channel scale): bytes moved                      */
    OC_KF_REDUCE,        /* reductions, softmax, normalizations: bytes moved        */
    OC_KF_POOL,          /* max and average pooling: bytes moved                    */
    OC_KF_MOVE,          /* transposes, concatenation, slicing, gathers: bytes      */
    OC_KF_COUNT
};
/* "gemm", "conv_3x3", ...: the names in spec files. */
const char *oc_kfamily_name(enum oc_kfamily f);
bool oc_kfamily_parse(const char *s, enum oc_kfamily *out);
/* Features a family's samples carry (3 for products and convolutions, 2
 * for the memory-bound kinds: bytes and runs), and those of them a
 * sample's distance to a node is measured in (the first 3, or 1: bytes;
 * a memory-bound sample's runs only price its runs, oc_ktables_time). */
int32_t oc_kfamily_features(enum oc_kfamily f);
int32_t oc_kfamily_near_features(enum oc_kfamily f);
/* A memory-bound family: its work is bytes moved, not FLOPs. */
bool oc_kfamily_memory(enum oc_kfamily f);

#define OC_KTABLE_K 4          /* samples an interpolation weighs             */
#define OC_KTABLE_RADIUS 2.0   /* log2 units: beyond, the table does not speak */
#define OC_KTABLE_MIN_BODY 0.1 /* of a sample's seconds, the least its work took
                                  (oc_ktables_time's fixed cost off)          */

struct oc_kfeat {
    enum oc_kfamily family;
    double x[3];               /* the features, raw (not logged); a memory-
                                  bound node's x[1]: its runs (oc_kernel_runs,
                                  at least 1), kept but not a distance's     */
    double work;               /* FLOPs, or bytes for a memory-bound family   */
    const char *op;            /* a memory-bound node's op type (borrowed from
                                  the node): its own table's key; NULL else  */
};
/* Whether graph g holds a node of ONNX Runtime's NCHWc domain: the graph
 * ONNX Runtime ran on a CPU, after its NCHWc rewrite. */
bool oc_graph_nchwc(const struct oc_graph *g);
/* A node's family and features from its analyzed shapes; family NONE when
 * it has none or a shape is unknown. nchwc_graph: g is a graph ONNX Runtime
 * rewrote to NCHWc (oc_graph_nchwc, once per graph): there a depthwise
 * convolution (kernel over 1x1) left outside the NCHWc domain (channels no
 * multiple of its block) runs MLAS's grouped path, an im2col and a product
 * per group, and takes the grouped family. */
void oc_kernel_features(const struct oc_graph *g, const struct oc_node *n, bool nchwc_graph, struct oc_kfeat *out);

/* The runs of node n's inner loop in ONNX Runtime's CPU kernel, each a
 * call with a cost of its own beside its elements': the spans of a
 * two-input broadcast (Add, Mul, Div, ...: ONNX Runtime's broadcaster
 * takes the output in spans as long as both inputs' innermost runs of
 * stepping or repeating axes; [8,128,2] + [2] is 1024 spans of 2), the
 * rows of a softmax or a layer normalization. 1 for any other node of a
 * family; 0 when a shape is not known. */
double oc_kernel_runs(const struct oc_graph *g, const struct oc_node *n);

/* What a CPU table's node times hold beside their work (oc_ktables_time):
 * ONNX Runtime's cost per node, and per run of a memory-bound kernel's
 * inner loop after its first (oc_perf_opts.run_s). */
struct oc_kfixed {
    double node_s;
    double run_s;
};

struct oc_ksample {
    double x[3];
    double work;
    double seconds;            /* > 0 */
};
/* One family at one precision ("f32", "f16", "bf16": the node's compute
 * dtype as an ONNX code) and math mode (enum oc_math, the replay's --math;
 * ignored for the memory-bound families). A memory-bound family's samples
 * are kept by op type (op; NULL in tables written before, which hold every
 * op of the family): a Transpose and a Gather of one size are not one
 * kernel. A CPU's table holds the samples of one thread count (threads, the
 * runtime's intra-op threads they ran with): a node at another count is not
 * timed from it. threads 0: a GPU's, or a table written before, for any. */
struct oc_ktable {
    enum oc_kfamily family;
    int32_t dtype;
    int32_t math;
    char *op;
    int32_t threads;
    int32_t n;
    struct oc_ksample *samples;
    double run_s;              /* a memory-bound op's own cost per run, from
                                  its samples (oc_ktable_fit_runs); 0: not
                                  measured, the fitted run_s prices its runs */
};
struct oc_ktables {
    char *source;              /* where they were measured: device, driver and
                                  library versions, as the builder wrote them */
    int32_t n;
    struct oc_ktable *tables;
};
void oc_ktables_free(struct oc_ktables *t);

/* A memory-bound table's own cost per run of its kernel's inner loop, from
 * its samples of one size and many runs: where two samples' bytes are
 * within OC_KRUN_SAME_BYTES log2 units and the one of at least 4x the
 * other's runs took at least 1.5x its time (the runs, not the bytes, set
 * it), the time between them over the runs between them; the
 * median of at least 3 such pairs (0 else: a table of long spans alone,
 * or of one run each, does not tell). ONNX Runtime's inner calls differ
 * by op: a LayerNormalization's row of 2 costs about 20 ns where a
 * broadcast Add's span costs 10 (docs/MODEL.md). Sets t->run_s. */
#define OC_KRUN_SAME_BYTES 0.25
#define OC_KRUN_MAX_SAMPLES 4096  /* of a larger table, its first these      */
#define OC_KRUN_MAX_PAIRS 65536   /* and the first pairs: the load stays short */
void oc_ktable_fit_runs(struct oc_ktable *t);

/* The table for a family, dtype, math, op (NULL: the family's table of no
 * op) and thread count (0 for a GPU's), or NULL. */
const struct oc_ktable *oc_ktable_find(const struct oc_ktables *t, enum oc_kfamily f, int32_t dtype, int32_t math,
                                       const char *op, int32_t threads);
/* Seconds for a node of features f from table t: false when t has no
 * sample within OC_KTABLE_RADIUS or the node has no work. *extrapolated
 * (may be NULL): the nearest sample is more than one log2 unit away. */
bool oc_ktable_time(const struct oc_ktable *t, const struct oc_kfeat *f, double *seconds, bool *extrapolated);
/* A node's seconds from all of t at dtype and math: a memory-bound node
 * from its op's own table where that has OC_KTABLE_K samples and one
 * within the radius, else (and for the products and convolutions) from
 * every table of its family together: the few samples of a rare op shrink
 * toward its family's. Only tables of the node's thread count (a CPU's
 * --threads; 0 for a GPU) or of threads 0 speak. fixed: the seconds of
 * every sample that do not scale with its work (a CPU table's times are
 * whole nodes', ONNX Runtime's per-node cost and a memory-bound kernel's
 * runs included; all 0 for a GPU's kernel times): taken off each sample's
 * time (down to OC_KTABLE_MIN_BODY of it) before its efficiency, and the
 * node's own added to its time; a memory-bound sample's runs at its
 * table's own run_s where it has one (oc_ktable_fit_runs), and the node's
 * at its op's table's, else at fixed.run_s. */
bool oc_ktables_time(const struct oc_ktables *t, const struct oc_kfeat *f, int32_t dtype, int32_t math,
                     int32_t threads, struct oc_kfixed fixed, double *seconds, bool *extrapolated);

#endif
