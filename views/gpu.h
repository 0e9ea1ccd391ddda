/*
 * gpu.h — GPU specs and the static performance model (docs/MODEL.md).
 *
 * Specs: a built-in table of datasheet figures (views/gpus.def, sources
 * in docs/GPUS.md), dense peaks only; any other device comes as a struct
 * filled by the caller (the CLI reads --gpu-spec JSON into one).
 *
 * Per node (roofline, PALEO's "platform percent of peak"):
 *   peak     = the device's rate for the node's precision and unit
 *              (tensor cores for contractions when --math allows)
 *   AI       = FLOPs / bytes moved (bytes_read + bytes_written); 0 when
 *              nothing moves (then attainable = peak)
 *   t_comp   = FLOPs / (peak x eff_compute)
 *   t_mem    = bytes / (bandwidth x eff_memory); on a CPU spec (onnxcost
 *              probe) the bandwidth of the smallest cache level that holds
 *              the bytes, else DRAM's, and that level's factor where one
 *              was calibrated
 *   time     = max(t_comp, t_mem) + launch   (sum instead with additive)
 *   bound    = compute when t_comp >= t_mem, else memory
 * On a calibrated CPU spec, t_comp and t_mem are divided by the op's own
 * factor (oc_op_efficiencies), and on more than one thread a node runs at
 * one thread's rates below task_s, else pays split_s, and every node pays
 * pool_s (oc_perf_opts; docs/MODEL.md, "Thread counts").
 * The model's time is the sum over its nodes, or kernels x host_s when the
 * runtime's host dispatch is slower (host_s: 0 by default, calibrated from
 * end-to-end measurements of an eager runtime).
 * Nodes that move nothing and compute nothing (views, shape arithmetic
 * folded to constants) launch no kernel and take no time.
 * All rates are in SI units: FLOP/s and bytes/s (decimal, as datasheets);
 * memory sizes in bytes.
 */
#ifndef OC_GPU_H
#define OC_GPU_H

#include "../analyzer/analyze.h"
#include "kernels.h"
#include "training.h"

/* The execution unit a node's FLOPs run on. */
enum oc_unit {
    OC_UNIT_FP64,     /* FP64 SIMT                                  */
    OC_UNIT_FP64_TC,  /* FP64 tensor cores (A100, H100, H200)        */
    OC_UNIT_FP32,     /* FP32 SIMT                                  */
    OC_UNIT_FP16,     /* FP16 SIMT (vector), where the datasheet gives it */
    OC_UNIT_TF32_TC,
    OC_UNIT_FP16_TC,  /* FP16 inputs, FP32 accumulate                */
    OC_UNIT_BF16_TC,
    OC_UNIT_FP8_TC,
    OC_UNIT_INT8_TC,
    OC_UNIT_COUNT
};

/* Efficiency factors measured on one device and software stack (onnxcost
 * calibrate fits them from replay results; --gpu-spec reads them back,
 * docs/MODEL.md "Calibration"). A 0 factor is "not measured": the option's
 * value (--efficiency, --mem-efficiency) or its default applies. Factors
 * may exceed 1: they absorb what the roofline does not see (fewer FLOPs in
 * Winograd convolutions, data served from L2 instead of DRAM). */
/* An op type's own efficiency (a CPU's calibration fits them, docs/MODEL.md
 * "An op's own efficiency"): the ops whose implementation the roofline does
 * not see (ONNX Runtime's LRN computes a scalar pow per element, its
 * BiasGelu an erf) run at their own fraction of what their FLOPs and bytes
 * predict. A node of such an op has its roofline time (t_comp and t_mem,
 * not the launch) divided by the factor. The contractions (convolutions and
 * matrix products) have the unit's class factors instead, and no op factor. */
#define OC_OP_EFF_MAX 48
#define OC_OP_NAME_MAX 48
struct oc_op_efficiency {
    char op[OC_OP_NAME_MAX];    /* the op type, as the graph names it         */
    double factor;              /* OC_CALIB_EFF_MIN .. OC_CALIB_EFF_MAX        */
};
struct oc_op_efficiencies {
    int32_t n;
    struct oc_op_efficiency at[OC_OP_EFF_MAX];
};

struct oc_gpu_efficiency {
    double unit[OC_UNIT_COUNT]; /* compute, per unit                          */
    double conv_unit[OC_UNIT_COUNT]; /* convolutions' compute, per unit (cuDNN's
                                   kernels reach another fraction of the peak
                                   than cuBLAS's); 0 = unit[]                 */
    /* The outputs a contraction needs to fill the device, for the
       convolutions [1] and the other contractions [0]: one with fewer output
       elements runs at outputs / this of its efficiency (too few tiles for
       the SMs). 0 = not measured (no such penalty). */
    double parallel_outputs[2];
    double memory;
    /* A CPU's cache levels (by oc_gpu.cache_bytes index): the memory factor
       of a node whose bytes fit in that level; 0 = memory's. ONNX Runtime
       reaches a smaller share of a cache's triad rate than of DRAM's. */
    double memory_cache[4];
    double launch_s;            /* per kernel, seconds; valid when has_launch  */
    bool has_launch;
    double host_s;              /* the runtime's host time per kernel, seconds
                                   (0 = not measured): see oc_perf_opts      */
    double gap_s;               /* a CPU runtime's time between two nodes,
                                   seconds (0 = not measured): see oc_perf_opts */
    double pool_s;              /* a CPU runtime's added time per node on more
                                   than one thread (0 = not measured): see
                                   oc_perf_opts */
    double task_s, split_s;     /* a CPU runtime's least work it splits over its
                                   threads, and what a split costs (0 = not
                                   measured): see oc_perf_opts               */
    double split_share;         /* a split node's share of the threads'
                                   speedup (0 = not measured)                */
    double pad_path;            /* a CPU convolution's time over the output
                                   positions whose window crosses the padding,
                                   as a multiple of the in-bounds taps' (0 =
                                   not measured): see oc_perf_opts           */
    double run_s;               /* a CPU kernel's seconds per run of its inner
                                   loop after the first (0 = not measured):
                                   see oc_perf_opts                          */
    double light_s;             /* a CPU runtime's seconds for a node without a
                                   kernel of its own (0 = not measured): see
                                   oc_perf_opts                              */
    struct oc_op_efficiencies ops; /* the ops' own factors (n 0 = none)        */
};

/* A CPU probed on one thread and on all (onnxcost probe): what a
   prediction at another thread count scales from (oc_gpu_at_threads).
   threads 0: not known (a built-in GPU, a spec file without "probe"). */
struct oc_cpu_scaling {
    int32_t threads;              /* the all-thread figures' (oc_gpu's own)   */
    double peak_one[OC_UNIT_COUNT]; /* FLOP/s on one thread; 0: none          */
    double mem_one;               /* DRAM triad bytes/s on one thread         */
    uint64_t cache_one[4];        /* each of oc_gpu's cache levels: one
                                     instance's size                          */
    int32_t shared_by[4];         /* threads sharing one instance             */
    double cache_bw_one[4];       /* its triad rate on one thread             */
};

struct oc_gpu {
    const char *id;             /* "a100-sxm4-80gb": what --gpu matches        */
    const char *name;           /* "NVIDIA A100 SXM4 80GB"                     */
    double peak[OC_UNIT_COUNT]; /* dense FLOP/s (OPS for INT8); 0 = no path    */
    uint64_t mem_bytes;         /* device memory                               */
    double mem_bw;              /* DRAM bytes/s                                */
    uint64_t l2_bytes;
    int32_t sms;
    int32_t boost_mhz;
    double link_bw;             /* GPU-to-GPU bytes/s, one direction (NVLink if
                                   any, else PCIe): the all-reduce bus bandwidth */
    const char *link;           /* "NVLink3", "PCIe 3.0 x16"                    */
    struct oc_gpu_efficiency measured; /* all 0 in the built-in table          */
    /* A CPU measured by onnxcost probe: its cache levels, smallest first,
       with what the threads reach together and the triad rate within
       each. A node whose bytes moved fit in a level streams at that
       level's rate instead of mem_bw. n_caches 0 for a GPU. */
    bool cpu;
    int32_t n_caches;
    uint64_t cache_bytes[4];
    double cache_bw[4];
    /* Measured kernel tables (a --gpu-spec file's "kernel_tables"), or
       NULL: a node of a family they cover takes its time from them
       (kernels.h), every other node the roofline. */
    const struct oc_ktables *tables;
    struct oc_cpu_scaling scaling; /* a probed CPU's one-thread figures       */
    int32_t threads;            /* a CPU: the thread count its rates are for
                                   (the probe's, or --threads N); 0 unknown   */
};

/* The CPU g at n threads (1 <= n): every rate between its one-thread and
 * its all-thread figure, linear in the thread count (the all-thread one
 * from scaling.threads on), each cache level as large as the instances n
 * threads use. The name says the threads. False when g has no one-thread
 * figures (scaling.threads 0). name: out's name's storage. */
bool oc_gpu_at_threads(const struct oc_gpu *g, int32_t n, struct oc_gpu *out, char *name, size_t size);

/* The level a node moving `bytes` streams from: the index of the smallest
 * cache level of a CPU spec that holds them, else -1 (device memory). */
int32_t oc_gpu_level_for(const struct oc_gpu *gpu, uint64_t bytes);
/* That level's bandwidth. */
double oc_gpu_bandwidth_for(const struct oc_gpu *gpu, uint64_t bytes);


/* The built-in table, in docs/GPUS.md order. */
int32_t oc_gpu_count(void);
const struct oc_gpu *oc_gpu_at(int32_t i);
/* Finds a GPU by id or alias, ignoring case, spaces, '-' and '_'
 * ("A100", "a100-80gb", "H100 SXM"); NULL if none. */
const struct oc_gpu *oc_gpu_find(const char *name);
const char *oc_unit_name(enum oc_unit u);

enum oc_math {
    OC_MATH_AUTO, /* tensor cores for contractions in fp16/bf16/fp8/int8 and fp64
                     (where FP64 TC exists); fp32 runs on FP32 SIMT, PyTorch's
                     default (allow_tf32 = False for matmul)                    */
    OC_MATH_FP32, /* no tensor cores except FP64 (fp16 tensors on FP16/FP32 SIMT) */
    OC_MATH_TF32, /* fp32 contractions on TF32 tensor cores                     */
    OC_MATH_FP16, /* every float contraction on FP16 tensor cores (autocast)    */
    OC_MATH_COUNT
};
bool oc_math_parse(const char *s, enum oc_math *out);
const char *oc_math_name(enum oc_math m);

struct oc_perf_opts {
    enum oc_math math;
    int32_t dtype;       /* --dtype as an ONNX code: every float node computes in
                            it; 0 = each node's own tensor type              */
    double eff_compute;  /* (0, 1]: fraction of peak FLOP/s reached          */
    double eff_unit[OC_UNIT_COUNT]; /* a calibrated factor per unit; 0 = eff_compute */
    double eff_conv_unit[OC_UNIT_COUNT]; /* convolutions' own; 0 = as eff_unit   */
    double parallel_outputs[2]; /* as in oc_gpu_efficiency; 0 = none          */
    double eff_memory;   /* (0, 1]: fraction of DRAM bandwidth reached       */
    double eff_memory_cache[4]; /* a CPU's cache levels' own; 0 = eff_memory  */
    double eff_comm;     /* (0, 1]: fraction of link bandwidth (all-reduce)  */
    double launch_s;     /* per-kernel overhead, seconds                     */
    bool folded_bn;      /* training: the export folded every convolution's
                            BatchNorm (an eval export), yet training runs
                            them; the step adds each back (oc_data_parallel) */
    double host_s;       /* the runtime's host time per kernel (eager PyTorch
                            dispatches an op in ~100 us): the model takes
                            at least kernels x host_s, the device running
                            behind the host (0 = none)                      */
    double gap_s;        /* a CPU runtime's time between two kernels, which
                            no node's time holds (ONNX Runtime's executor:
                            a few microseconds): the model adds kernels x
                            gap_s (0 = none; calibrate fits it, MODEL.md)  */
    double pool_s;       /* a CPU runtime's added time per node when it runs
                            on a thread pool (the device's threads > 1):
                            splitting a node's work and joining the threads
                            (0 = none; calibrate fits it where its records
                            ran at 1 thread and at more, MODEL.md)        */
    double task_s;       /* a CPU runtime's least work it splits over its
                            threads: a node of less one-thread time runs on
                            one thread, at one thread's rates (0 = every
                            node split; calibrate fits it from records on
                            more than one thread, MODEL.md)               */
    double split_s;      /* and the time a split node adds: waking and
                            joining the threads (0 = none)               */
    double split_share;  /* (0, 1]: the share of the threads' speedup over one
                            thread (the probe's) a split node gets (0 = all) */
    double pad_path;     /* >= 1: a CPU convolution's output positions whose
                            window crosses the padding run their in-bounds
                            taps this many times slower (MLAS's padded path;
                            0 or 1 = no penalty; calibrate fits it, MODEL.md) */
    double run_s;        /* a CPU kernel's time per run of its inner loop
                            after the first (oc_kernel_runs: a broadcast's
                            spans, a softmax's rows), beside its bytes' (0 =
                            none; calibrate fits it, MODEL.md)              */
    double light_s;      /* a CPU runtime's time for a node it runs without
                            a kernel of the model's work (oc_cpu_node_light:
                            a Shape, a Reshape, shape arithmetic folded to
                            constants), on one thread (0 = launch_s, the
                            kernels' fixed cost; calibrate fits it on such
                            nodes, MODEL.md)                                 */
    const struct oc_op_efficiencies *op_eff; /* the ops' own factors, or NULL
                            (borrowed: a spec's, oc_perf_use_measured)      */
    double allreduce_latency_s; /* per ring step of an all-reduce call      */
    uint64_t bucket_bytes;      /* gradients all-reduced in buckets this big */
    bool additive;       /* time = t_comp + t_mem (PALEO) instead of the max  */
};
/* The documented defaults (docs/MODEL.md). */
void oc_perf_defaults(struct oc_perf_opts *o);
/* What the user set explicitly, which a device's measured factors do not
 * replace. */
enum { OC_PERF_SET_COMPUTE = 1, OC_PERF_SET_MEMORY = 2, OC_PERF_SET_LAUNCH = 4 };
/* Takes the device's measured efficiencies (gpu->measured) into o, except
 * those named in `set`. True when any was taken. */
bool oc_perf_use_measured(const struct oc_gpu *gpu, unsigned set, struct oc_perf_opts *o);
/* The memory factor the model uses for a level (oc_gpu_level_for). */
double oc_perf_memory_efficiency(const struct oc_perf_opts *o, int32_t level);
/* The compute efficiency the model uses for a unit. */
double oc_perf_unit_efficiency(const struct oc_perf_opts *o, enum oc_unit u);
/* ... for a unit and a kind of node: a convolution takes the convolutions'
 * factor where one was measured, else the unit's. */
double oc_perf_class_efficiency(const struct oc_perf_opts *o, enum oc_unit u, bool conv);
/* Convolutions for the model's efficiency: Conv, ConvTranspose,
 * ConvInteger, QLinearConv and ONNX Runtime's FusedConv and NhwcConv. */
bool oc_perf_conv_op(const char *op_type);
/* Matrix products: MatMul, Gemm, MatMulInteger, QLinearMatMul and ONNX
 * Runtime's FusedMatMul, FusedGemm and MatMulNBits. */
bool oc_perf_product_op(const char *op_type);
/* The factor an op's own efficiency divides its nodes' roofline time by: 1
 * for a contraction (conv or product op), for an op o holds none, or with
 * no op_eff. */
double oc_perf_op_efficiency(const struct oc_perf_opts *o, const char *op_type);
/* The bytes a CPU convolution moves expanding its input (im2col): ONNX
 * Runtime's NCHWc rewrite leaves a grouped or depthwise convolution out
 * when its channels do not fit the block (RegNet's 8 channels a group on an
 * AVX-512 block of 16), and MLAS then writes each group's input out as a
 * K x (H_out W_out) matrix (K = C_in / group x kernel taps) and reads it
 * back for the product. 8 bytes per element of N x C_in x taps x H_out x
 * W_out (FP32, written and read) for a Conv or FusedConv outside the
 * com.microsoft.nchwc domain with group > 1 and a kernel over 1x1, in a
 * graph that shows the rewrite (nchwc_graph: it has an nchwc node; in a
 * graph before ONNX Runtime's optimizer, the convolutions the rewrite will
 * take are not told apart); 0 otherwise or where a shape is unknown. */
double oc_perf_conv_expand_bytes(const struct oc_graph *g, const struct oc_node *n, bool nchwc_graph);
/* A recurrent node's (RNN, GRU, LSTM) product with its recurrence weights
 * R, one per time step and direction (ONNX Runtime computes the input's
 * product for every step at once, then steps): */
struct oc_perf_recurrence {
    double steps;        /* time steps x directions; 0: not a recurrent node */
    double weight_bytes; /* R of one direction (G hidden x hidden), read whole
                            at every step                                    */
    double step_flops;   /* one step's product: 2 x batch x G hidden x hidden */
    double batch;        /* the batch rows: at 1 a step is a matrix-vector
                            product, its arithmetic hidden under R's stream
                            (MLAS's GEMV); above, MLAS packs R before each
                            step's product, and ONNX Runtime splits the rows
                            over its threads, each running its rows' steps */
};
/* Fills r for an RNN, GRU or LSTM of the default domain with known shapes;
 * r->steps 0 otherwise. */
void oc_perf_rnn_recurrence(const struct oc_graph *g, const struct oc_node *n, struct oc_perf_recurrence *r);
/* Whether a CPU runtime runs node n as a node of its own, kernel or not:
 * every node but a Constant (ONNX Runtime folds those into initializers;
 * a Reshape or a Shape still runs, at its fixed cost and a gap). */
bool oc_cpu_runs(const struct oc_node *n);
/* Whether a CPU runtime runs node n without a kernel of the model's work:
   it runs (oc_cpu_runs), and its work is none (oc_node_folded, or no FLOPs
   and no bytes: a Shape, a Reshape). Such a node takes oc_perf_light_s. */
bool oc_cpu_node_light(const struct oc_graph *g, const struct oc_node *n);
/* The time a CPU takes for such a node: light_s (launch_s where it is 0),
   and on more than one thread the pool's cost (pool_s). */
double oc_perf_light_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o);
/* The share of a Conv's (or FusedConv's) kernel taps inside its input, not
 * over the padding: what a CPU's convolution computes of the MACs (gpu.c;
 * docs/MODEL.md). 1 for an unpadded one or an unknown shape. */
double oc_perf_conv_in_bounds(const struct oc_graph *g, const struct oc_node *n);
/* The same, and in *padded the share of its output positions whose window
 * crosses the padding (some tap outside the input): 0 for an unpadded one
 * or an unknown shape. */
double oc_perf_conv_window(const struct oc_graph *g, const struct oc_node *n, double *padded);
/* The share of its full MACs' time a CPU's convolution takes: the in-bounds
 * taps, those of padded output positions pad_path times slower
 * (oc_perf_opts.pad_path; 0 or 1: none). 1 for any other node. */
double oc_perf_conv_cpu_share(const struct oc_graph *g, const struct oc_node *n, double pad_path);
/* The same from a window's shares: inside x (1 + (pad_path - 1) x padded). */
double oc_perf_conv_share_of(double inside, double padded, double pad_path);

enum oc_bound { OC_BOUND_NONE, OC_BOUND_MEMORY, OC_BOUND_COMPUTE };

struct oc_node_perf {
    bool known;          /* cost known: the fields below mean something      */
    enum oc_unit unit;
    double peak;         /* FLOP/s of that unit (0: no path; FP32 used)       */
    double ai;           /* FLOP per byte; 0 when nothing moves              */
    double attainable;   /* min(peak, ai x bandwidth)                         */
    double t_compute, t_memory, time; /* seconds                              */
    enum oc_bound bound; /* NONE: no kernel (nothing moved or computed)       */
    /* time is the kernel table's (plus launch), not the roofline's; the
       roofline's figures above stay for the report's other columns */
    bool from_table;
    bool table_extrapolated; /* the nearest sample over one log2 unit away  */
    enum oc_kfamily family;  /* the node's kernel family (NONE: no family)   */
    double op_eff;           /* the op's own efficiency its roofline time was
                                divided by (1: none)                         */
    double expand_bytes;     /* a CPU convolution's im2col traffic (its
                                expanded input written and read), and its
                                time, in time (oc_perf_node_terms); 0: none  */
    double t_expand;
    struct oc_perf_recurrence recurrence; /* a CPU recurrent node's steps (or
                                steps 0), and the time they add, in time
                                (oc_perf_node_terms); 0: none                */
    double t_recurrence;
    double runs;             /* a CPU node's runs of its inner loop
                                (oc_kernel_runs), and the time those after
                                the first add, in time; 0: none              */
    double t_runs;
};

struct oc_perf {
    const struct oc_gpu *gpu;
    struct oc_perf_opts opts;
    int32_t n_nodes;
    struct oc_node_perf *nodes; /* by node index (file order), malloc'd       */
    double time;             /* sum over known nodes, seconds                */
    double time_memory;      /* of which in memory-bound nodes               */
    double launch_time;      /* of which launch overhead                     */
    double gap_time;         /* of which the gaps between kernels (kernels x
                                gap_s)                                        */
    double device_time;      /* the sum over the nodes, before the host floor */
    bool host_bound;         /* time is kernels x host_s, above device_time   */
    double ideal_compute;    /* sum of FLOPs / peak: every unit at 100 %, no
                                memory time, no launches (pen-and-paper)     */
    int32_t n_kernels, n_memory_bound, n_compute_bound, n_unknown;
    int32_t n_light;         /* a CPU's nodes without a kernel of the model's
                                that the runtime still runs (Reshape, Shape,
                                shape arithmetic over dims bound here): each
                                its fixed cost and a gap (oc_cpu_runs)     */
    int32_t n_from_table;    /* kernels timed from the kernel tables          */
    double time_from_table;  /* their seconds                                 */
    int64_t batch;           /* dim 0 of the first graph input, -1 if none    */
    int64_t tokens;          /* batch x dim 1 when the first input is a rank-2
                                integer tensor (token ids), else -1          */
    double samples_per_s;    /* batch / time, 0 when unknown                  */
    double tokens_per_s;
};

/* Nodes that run no kernel per inference, a rule the model and the replay
 * share: a constant (Constant, and ConstantOfShape or Range of inputs known
 * before running), which runtimes fold into the graph's constants; and shape
 * arithmetic whose every output is a known integer tensor (Shape, Gather on
 * shapes, Concat of dims, ...), which runtimes fold or compute on the host. */
bool oc_node_folded(const struct oc_graph *g, const struct oc_node *n);
/* The first kind alone. */
bool oc_node_constant(const struct oc_graph *g, const struct oc_node *n);

/* Node precision: --dtype if set, else the first float output's type, else
 * the first float input's; 0 when the node has no float tensor. */
int32_t oc_node_compute_dtype(const struct oc_graph *g, const struct oc_node *n, int32_t override);
/* The unit a node runs on, and its peak (falls back to FP32 when the
 * device has no path for the preferred unit). */
enum oc_unit oc_perf_unit(const struct oc_gpu *gpu, int32_t dtype, bool contraction, enum oc_math math,
                          double *peak);
/* One node's roofline figures from its FLOPs and bytes. */
void oc_perf_node(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit, double peak,
                  uint64_t flops, uint64_t bytes, struct oc_node_perf *out);
/* The same for one kind of node: conv true for a convolution
 * (oc_perf_class_efficiency); outputs > 0, a contraction's output elements,
 * slows it by parallel_outputs / outputs where that is above 1; op_eff > 0,
 * the op's own efficiency (oc_perf_op_efficiency), divides t_comp and t_mem. */
void oc_perf_node_class(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit, bool conv,
                        double outputs, double op_eff, double peak, uint64_t flops, uint64_t bytes,
                        struct oc_node_perf *out);
/* A node as oc_perf_estimate prices it: oc_perf_node_class (counts above
 * 1.8e19 held there), with the terms a CPU adds beside it (nothing on a
 * GPU):
 *  - expand_bytes, a convolution's im2col traffic (oc_perf_conv_expand_bytes;
 *    0: none), streamed at the level a tensor of half those bytes sits in
 *    (never the first: a level-1 factor holds the fixed costs of tiny nodes)
 *    with that level's memory factor;
 *  - r, a recurrent node's steps (oc_perf_rnn_recurrence; steps 0: none),
 *    their FLOPs taken out of flops and priced apart: each step reads R whole
 *    from the level one instance of it fits in, at one thread's triad rate
 *    (nothing fitted: a product streams as the probe's loop does), and
 *    computes its product at one thread's peak and the unit's factor; a GEMV
 *    step (batch 1) takes the larger of the two (the stream hides the
 *    arithmetic), a packed one their sum. ONNX Runtime splits the batch rows
 *    over its threads, each running its rows' steps: min(threads, batch)
 *    parts, at split_share of their speedup;
 *  - runs, the runs of the node's inner loop (oc_kernel_runs; 0 or 1:
 *    none): each after the first adds run_s, on one thread (ONNX Runtime
 *    calls its span or row function once per run). */
void oc_perf_node_terms(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit, bool conv,
                        double outputs, double op_eff, double peak, double flops, double bytes, double expand_bytes,
                        const struct oc_perf_recurrence *r, double runs, struct oc_node_perf *out);

/* The math mode a node's contraction runs in: o->math, or under auto
 * fp16 for 16-bit floats and fp32 otherwise (the kernel tables' key). */
enum oc_math oc_perf_effective_math(enum oc_math math, int32_t dtype);

/* Every node of an analysis; OC_ERR_NOMEM on allocation failure. */
enum oc_status oc_perf_estimate(const struct oc_analysis *an, const struct oc_gpu *gpu, const struct oc_perf_opts *o,
                                struct oc_perf *out);
void oc_perf_free(struct oc_perf *p);

/* Ring all-reduce of `bytes` over n GPUs (NCCL busbw convention):
 * 2(n-1)/n x bytes / (link_bw x eff_comm) + 2(n-1) x latency per bucket. */
double oc_allreduce_time(const struct oc_gpu *gpu, const struct oc_perf_opts *o, uint64_t bytes, int32_t n);

/* A training step on one GPU and data parallel on n (weak scaling: every
 * GPU runs the analyzed batch). Backward time = 2 x forward for
 * contractions, 1 x for the rest (the FLOP convention of training.h);
 * the optimizer update streams k x the gradient bytes (SGD 3: read w and g,
 * write w; momentum 5; Adam 7). */
struct oc_data_parallel {
    int32_t n_gpus;
    double forward, backward, update; /* seconds, one GPU                     */
    double batchnorm;                 /* with folded_bn: the BatchNorms the export
                                         folded, forward and backward: per
                                         convolution 6 passes over its output
                                         (statistics, normalize; the gradient's
                                         two reductions and dx), memory-bound at
                                         the output's level, and 2 kernels     */
    double step1;                     /* forward + backward + update + batchnorm */
    uint64_t grad_bytes;
    double allreduce;                 /* seconds per step                      */
    double step_serial;               /* step1 + allreduce                     */
    double step_overlap;              /* forward + max(backward, allreduce) + update */
    double speedup_serial, speedup_overlap; /* n x step1 / step                */
    double allreduce_share;           /* allreduce / step_serial               */
};
void oc_data_parallel(const struct oc_perf *p, const struct oc_analysis *an, const struct oc_training *tr,
                      int32_t n_gpus, struct oc_data_parallel *out);

/* Pipeline split of the nodes (execution order) into n contiguous stages,
 * minimising the largest stage weight: predicted time or memory (params
 * + output bytes of the stage's nodes). Each cut sends the tensors made
 * before it and read after it over the link. */
enum oc_balance { OC_BALANCE_TIME, OC_BALANCE_MEMORY };
struct oc_stage {
    int32_t first, last;       /* positions in g->order, inclusive          */
    double time;               /* predicted seconds of its nodes            */
    uint64_t param_bytes, activation_bytes;
    uint64_t send_bytes;       /* crossing the cut after this stage         */
    double send_time;          /* send_bytes / (link_bw x eff_comm)         */
};
struct oc_pipeline {
    int32_t n_stages;          /* may be < asked when the graph has fewer nodes */
    struct oc_stage *stages;   /* malloc'd                                   */
    double bottleneck;         /* max over stages of time + send_time        */
    double samples_per_s;      /* batch / bottleneck in steady state          */
};
enum oc_status oc_pipeline_split(const struct oc_perf *p, const struct oc_analysis *an, int32_t n,
                                 enum oc_balance by, struct oc_pipeline *out);
void oc_pipeline_free(struct oc_pipeline *pl);

/* Memory needed at the analyzed binding: inference = every initializer
 * (float parameters and quantized weights alike) + peak activations
 * (liveness); training = training.h's total. */
uint64_t oc_fit_need_inference(const struct oc_analysis *an);
/* The memory a binding needs: training (with optimizer opt) or inference;
 * *exact (may be NULL) false when it is a lower bound (nodes without a
 * cost, tensors of unknown size: oc_totals_exact, the peak's completeness,
 * the training estimate's). */
uint64_t oc_fit_need(const struct oc_analysis *an, bool training, enum oc_optimizer opt, unsigned saved_rules, bool *exact);
/* Whether a need fits in usable bytes: a need that is a lower bound proves
 * only that it does not fit. */
enum oc_fit_verdict { OC_FIT_NO, OC_FIT_YES, OC_FIT_MAYBE };
enum oc_fit_verdict oc_fit_verdict(uint64_t need, bool need_exact, uint64_t usable);
/* Largest --batch (1 .. cap) whose need is <= usable, re-analysing the
 * model per probe (doubling, then bisection; need grows with the batch).
 * *max_batch = 0 when batch 1 does not fit, -1 when the need does not
 * change with --batch (no free batch dim); *capped when cap still fits. */
enum { OC_FIT_BATCH_CAP = 1 << 20 };
enum oc_status oc_fit_max_batch(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                enum oc_optimizer opt, unsigned saved_rules, uint64_t usable, int64_t *max_batch, bool *capped,
                                struct oc_diag *d);

/* --fit: memory against the device (docs/MODEL.md). */
struct oc_fit {
    bool training;          /* the need is a training step's (--optimizer)   */
    uint64_t need;          /* bytes at the analyzed binding                 */
    bool need_exact;        /* false: need is a lower bound, so "fits" is a
                               maybe and max_batch an upper bound            */
    uint64_t reserve;       /* kept back for the CUDA context and workspaces */
    uint64_t usable;        /* device memory - reserve                       */
    int64_t max_batch;      /* largest --batch that fits; 0 none; -1 unknown
                               (the model has no free batch dim)             */
    bool max_batch_capped;  /* the search stopped at its cap: at least this  */
    /* training: the same with every rule the export's signs suggest added
       (struct oc_export_signs); alt_rules 0 when there is none */
    unsigned alt_rules;     /* the enum oc_saved_rule bits added             */
    uint64_t alt_need;
    bool alt_need_exact;
    int64_t alt_max_batch;
    bool alt_max_batch_capped;
};
/* The device's memory less reserve (0 when the reserve is larger). */
uint64_t oc_gpu_usable(const struct oc_gpu *gpu, uint64_t reserve);
/* need at the analyzed binding (training with opt, or inference) against
 * the device's memory minus reserve, and the largest batch that fits
 * (oc_fit_max_batch); training with suggested_rules (the export's signs,
 * oc_training_signs), both again with those rules added (alt_*). */
enum oc_status oc_fit_compute(const struct oc_model *m, const struct oc_analyze_opts *opts,
                              const struct oc_analysis *an, const struct oc_gpu *gpu, bool training,
                              enum oc_optimizer opt, unsigned saved_rules, unsigned suggested_rules, uint64_t reserve,
                              struct oc_fit *out, struct oc_diag *d);

#endif
