/*
 * perf.h — the static performance model (docs/MODEL.md) on a device
 * (device.h): per node, then over an analysis.
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
#ifndef OC_PERF_PERF_H
#define OC_PERF_PERF_H

#include "../../analyzer/analyze.h"
#include "device.h"
#include "kernels.h"

/* The runtime whose kernels the model prices (runtime.c; docs/MODEL.md
 * "Runtimes"): one kernel per node of the file, or what eager PyTorch runs
 * for the nodes an exporter wrote (attention as one kernel, a Linear's bias
 * in its GEMM, a function of one tensor as one kernel, a folded BatchNorm
 * as a pass of its own). */
enum oc_runtime { OC_RUNTIME_NODES, OC_RUNTIME_TORCH_EAGER, OC_RUNTIME_TORCH_COMPILE, OC_RUNTIME_COUNT };
const char *oc_runtime_name(enum oc_runtime r);
bool oc_runtime_parse(const char *s, enum oc_runtime *out);
/* One line: what the runtime runs, for a report's header. */
const char *oc_runtime_description(enum oc_runtime r);
/* Under eager PyTorch, the reduction length at which a contraction
 * computes at half its rate (node.c, oc_perf_short_reduction): chosen from
 * 24, 48, 64 and 128 by a ten-fold check of the fit on timm's four eager
 * tables (docs/MODEL.md, "Short reductions"). */
enum { OC_PERF_K_HALF = 64 };
/* Under eager PyTorch in NCHW, the passes over a half convolution's input
 * and output its layout transforms are counted as (runtime.c,
 * oc_rt_nchw_transforms): 1, chosen over 2 (the full count) by a ten-fold
 * check of the fit on timm's NCHW eager tables (docs/MODEL.md,
 * "Runtimes"). */
enum { OC_PERF_NCHW_PASSES = 1 };

/* The kernel classes a fit from end-to-end times gives factors to
 * (docs/MODEL.md, "Fitted kernel classes"): a node's kernel by its kernel
 * family (kernels.h), a runtime group's by its kind (attention, a Linear as
 * a GEMM, a pointwise chain as elementwise), and the passes a runtime runs
 * beside the nodes (a folded BatchNorm, autocast's casts). */
enum oc_kclass {
    OC_KC_GEMM, OC_KC_ATTENTION, OC_KC_CONV_3X3, OC_KC_CONV_KXK, OC_KC_CONV_1X1, OC_KC_CONV_GROUPED,
    OC_KC_CONV_DEPTHWISE, OC_KC_ELTWISE, OC_KC_REDUCE, OC_KC_POOL, OC_KC_MOVE, OC_KC_PASS, OC_KC_FUSED, OC_KC_COUNT
};
/* "gemm", "attention", "conv_3x3", ..., "pass", "fused" (a torch.compile
 * region, runtime.c) */
const char *oc_kclass_name(enum oc_kclass c);
bool oc_kclass_parse(const char *s, enum oc_kclass *out);
/* "CLASS=X[,CLASS=X...]" (a class by oc_kclass_name, 0 < X <= 100) into
 * out[OC_KC_COUNT], the classes named set, the others kept; false, out
 * unchanged, on anything else. */
bool oc_kclass_values_parse(const char *s, double *out);

struct oc_perf_opts;
/* A fit of the kernel classes' factors a built-in GPU carries (fits.def):
 * for one runtime and autocast type, from published end-to-end rows. */
struct oc_builtin_fit {
    const char *gpu_id;
    enum oc_runtime runtime;
    int32_t autocast;
    bool channels_last;
    double memory;              /* > 0: a contraction class's kernel takes
                                   its compute term over its class's factor
                                   plus its memory term over this one; 0:
                                   the longer of the two over the class's */
    double factor[OC_KC_COUNT]; /* > 0: a class's time divided by it     */
    const char *source;         /* what it was fitted on, one line        */
};
/* A class of contractions (gemm to conv_depthwise): the classes whose
 * kernels an additive fit (oc_builtin_fit.memory) prices as compute plus
 * memory. */
bool oc_kclass_contraction(enum oc_kclass c);
/* The fit for gpu (a built-in row) under o's runtime, autocast and layout,
 * or NULL. */
const struct oc_builtin_fit *oc_builtin_fit_for(const struct oc_gpu *gpu, const struct oc_perf_opts *o);

/* A training step's fit a built-in GPU carries (fits.def, OC_TRAINING): its
 * kernels' fixed cost and each kernel class's backward, for one runtime,
 * autocast type and layout, fitted on published training rows
 * (docs/MODEL.md, "Training step"). */
struct oc_builtin_training {
    const char *gpu_id;
    enum oc_runtime runtime;
    int32_t autocast;
    bool channels_last;
    double kernel_s;           /* seconds each kernel of the step adds
                                  (oc_perf_opts.step_kernel_s)             */
    double ratio[OC_KC_COUNT]; /* > 0: a class's kernels' backward time over
                                  their forward time; 0: the default       */
    const char *source;        /* what it was fitted on, one line          */
};
/* The training fit for gpu (a built-in row) under o's runtime, autocast and
 * layout, or NULL. */
const struct oc_builtin_training *oc_builtin_training_for(const struct oc_gpu *gpu, const struct oc_perf_opts *o);

/* An autocast type's name (oc_perf_opts.autocast): "fp16", "bf16". */
const char *oc_autocast_name(int32_t low);

struct oc_perf_opts {
    enum oc_math math;
    enum oc_runtime runtime; /* --runtime: whose kernels (OC_RUNTIME_NODES default) */
    bool channels_last;  /* --channels-last: the model and input in PyTorch's
                            channels-last memory format: a permute between
                            NCHW and NHWC is a view (runtime.c), and the
                            built-in fits are the channels-last rows'     */
    bool unfused_attention; /* --unfused-attention: no fused attention kernel
                            (PyTorch before 2.0 had no scaled_dot_product_
                            attention): attention's MatMuls, scale, mask and
                            Softmax run as the runtime runs other nodes    */
    int32_t autocast;    /* --autocast: PyTorch's autocast to this low type
                            (OC_DT_FLOAT16 or OC_DT_BFLOAT16) over the
                            file's types (autocast.c); 0 = none             */
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
    double eff_class[OC_KC_COUNT]; /* a kernel class's own factor: its kernels'
                            roofline time (not their launch) divided by it;
                            0 = none                                      */
    double backward_ratio[OC_KC_COUNT]; /* --backward-ratio: a kernel class's
                            backward time over its forward time in a
                            training step (oc_data_parallel); where none is
                            given, a built-in GPU's backward fit
                            (oc_builtin_training_for, with builtin_fit),
                            else 2 for a contraction, 1.5 for the rest    */
    double step_kernel_s; /* --step-kernel-us: seconds every kernel of a
                            training step adds beyond launch_s, counted as
                            the forward's kernels, two backward kernels
                            each, and the optimizer's per parameter tensor
                            (oc_data_parallel); with step_kernel_set, else
                            a built-in GPU's training fit's, else none     */
    bool step_kernel_set;
    bool builtin_fit;    /* take a built-in GPU's fit for the runtime and
                            autocast (oc_builtin_fit_for) where eff_class
                            holds none (default true; the CLI clears it
                            when a factor is given as an option)           */
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
 * Runtime's FusedMatMul, FusedGemm, MatMulNBits, DynamicQuantizeMatMul and
 * MatMulIntegerToFloat. */
bool oc_perf_product_op(const char *op_type);
/* A node a framework hands to a library kernel (cuDNN, cuBLAS): one with
 * MACs of a convolution, a matrix product or an Einsum. Autocast runs it in
 * the low type; torch.compile does not fuse it. */
bool oc_perf_library_contraction(const struct oc_node *n);
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
 * over the padding: what a CPU's convolution computes of the MACs (cpu.c;
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
    /* the runtime's kernels (oc_runtime_plan): grouped, this node's work
       runs in the kernel of node group_anchor (itself for the group's last
       node, whose figures above are the group's; 0 time for the others);
       t_extra: a pass the runtime runs after it (a folded BatchNorm), in
       time */
    bool grouped;
    int32_t group_anchor;
    uint8_t group_kind;      /* enum oc_rt_kind                               */
    double t_extra;
    double runs;             /* a CPU node's runs of its inner loop
                                (oc_kernel_runs), and the time those after
                                the first add, in time; 0: none              */
    double t_runs;
    bool classed;            /* a GPU's kernel: kclass is its class           */
    uint8_t kclass;          /* enum oc_kclass                                */
};

/* A runtime's kernels for a graph's nodes: anchor[i] -1 where node i runs
 * as a kernel of its own; else the node whose kernel runs its work (the
 * group's last node: anchor[i] == i for that one, whose flops[] and bytes[]
 * are the group's: every member's FLOPs, the bytes of what the group reads
 * and of what it writes that is read elsewhere; a group of one Transpose of
 * kind OC_RT_VIEW, a strided view, has none). extra_bytes[i]: the memory
 * passes the runtime runs beside node i, extra_kernels[i] of them (a folded
 * BatchNorm after it; autocast's casts of its inputs), 0 for none.
 * Under autocast (autocast.c): width[v] the bytes per element of each float
 * value, dtype[i] the type node i computes in (0: its own), and
 * bytes_scale[i] what a node of its own moves over its priced bytes (1
 * without autocast). */
enum oc_rt_kind { OC_RT_OWN, OC_RT_ATTENTION, OC_RT_LINEAR, OC_RT_POINTWISE, OC_RT_VIEW, OC_RT_NORM, OC_RT_FUSED };
struct oc_runtime_plan {
    enum oc_runtime runtime;
    int32_t autocast;     /* the low type as an ONNX code; 0: none        */
    int32_t *anchor;
    uint8_t *kind;        /* enum oc_rt_kind of each anchor               */
    bool *contraction;    /* an anchor whose group has MACs (tensor cores) */
    double *flops, *bytes, *extra_bytes;
    int32_t *extra_kernels;
    double *bytes_scale;
    int32_t *dtype;
    uint8_t *width;       /* NULL without autocast                        */
};
/* The kernels o's runtime runs for g's nodes, from o's runtime, autocast,
 * channels_last and unfused_attention. */
enum oc_status oc_runtime_plan(const struct oc_graph *g, const struct oc_perf_opts *o,
                               struct oc_runtime_plan *out);
void oc_runtime_plan_free(struct oc_runtime_plan *p);

struct oc_perf {
    const struct oc_gpu *gpu;
    struct oc_perf_opts opts;
    const struct oc_builtin_fit *fit; /* the built-in fit the estimate took, or NULL */
    double class_time[OC_KC_COUNT];   /* seconds per kernel class (a GPU's), launches out */
    double class_compute[OC_KC_COUNT], class_memory[OC_KC_COUNT]; /* of the contraction classes'
                                         kernels: their compute and memory terms (an
                                         additive fit's unknowns, bench/timm_published.py) */
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

/* Node precision: ONNX Runtime's quantized MatMul fusions (DynamicQuantizeMatMul,
 * MatMulIntegerToFloat) their 8-bit B's type; else --dtype if set, else the
 * first float output's type, else the first float input's, else an 8-bit
 * input 0's (MatMulInteger, QLinearConv); 0 when none. */
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

#endif
