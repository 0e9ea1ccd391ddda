/*
 * calibrate.h — the performance model's efficiency factors fitted to replay
 * measurements, and the model's error against them (`onnxcost calibrate`,
 * docs/MODEL.md "Calibration").
 *
 * A point is one measured node that the model gives a kernel: its unit (as
 * the model picks it for the node's dtype, contraction and the replay's
 * --math), whether it is a convolution, FLOPs and bytes from the static
 * analysis, and the median of its measured kernel time. The model predicts
 *     time = max(FLOPs / (peak[unit] x e[class][unit]), bytes / (bandwidth x e_mem)) + launch
 * with two classes of compute, convolutions and the rest (cuDNN's
 * convolutions and cuBLAS's products reach very different fractions of one
 * peak: on an H200 in strict FP32, 5 to 37 % against 30 to 41 %,
 * docs/results/h200.md). A contraction with fewer output elements than
 * its class's parallel_outputs S cannot fill the device: its compute time is
 * multiplied by S / outputs (ResNet-50's last convolutions at batch 1, 25 k
 * outputs, ran 8x below their batch-32 efficiency). On a CPU with cache
 * levels (onnxcost probe) a node streams from the smallest level that holds
 * its bytes, and each level some point streams from gets a memory factor of
 * its own (e_mem stays DRAM's). The fit chooses
 * e[class][unit] for every class and unit present, S per class, e_mem (and
 * the levels') and launch to
 * minimise the time-weighted squared log error
 *     sum_i  w_i (ln predicted_i - ln measured_i)^2,   w_i = r_i measured_i / sum r measured,
 * where r_i is the weight of the point's record (how sure its times are:
 * oc_calib_record_weight), so that the nodes that take the time decide, and a 2x miss costs the same
 * whether the node is predicted too fast or too slow. Coordinate descent,
 * each coordinate a grid scan then a golden-section refinement: no random
 * start, the same input gives the same factors.
 */
#ifndef OC_REPLAY_CALIBRATE_H
#define OC_REPLAY_CALIBRATE_H

#include "results.h"

#include "../views/perf/perf.h"

struct oc_calib_point {
    enum oc_unit unit;
    double flops, bytes;
    bool conv;         /* a convolution (oc_perf_conv_op)                */
    double outputs;    /* a contraction's output elements; 0 = other     */
    double measured_s; /* median kernel time, > 0                       */
    const char *op;    /* the op type (the file's string), or NULL      */
    int32_t kernels;   /* kernels per repetition in the replay          */
    const struct oc_gpu *gpu; /* the device it ran on, when not the fit's: a
                                 CPU at its record's thread count        */
    double expand_bytes; /* a CPU convolution's im2col bytes (oc_perf_node_terms) */
    struct oc_perf_recurrence recurrence; /* a CPU recurrent node's steps
                                             (oc_perf_node_terms)       */
    double conv_inside, conv_padded; /* a CPU convolution's window
                                        (oc_perf_conv_window; 1 and 0 when
                                        not known): its FLOPs' share and
                                        the fit's pad_path on it       */
    double runs;       /* a CPU kernel's runs of its inner loop
                          (oc_kernel_runs; 0: not known): the fit's run_s
                          on each after the first                      */
    double weight;     /* its record's weight in the fit, how sure its
                          time is (oc_calib_record_weight; 0 or unset: 1):
                          its term of either loss is multiplied by it  */
};

/* Points of a replay result file on a device: measured nodes with a kernel
 * in the model (FLOPs or bytes > 0) and a time > 0, unit chosen by
 * oc_perf_unit for the file's --math. Nodes where the replay ran extra
 * work (replay_overhead: asymmetric pads computed and cropped) are left
 * out: their time is not the node's. Appends to *pts (realloc'd); false
 * when out of memory. *skipped counts measured nodes left out. */
bool oc_calib_points(const struct oc_rp_file *f, const struct oc_gpu *gpu, struct oc_calib_point **pts, int32_t *n,
                     int32_t *skipped);

/* How sure a measure record's times are, as its weight in the fit: its
 * quiet runs (views/measure.h) q and how much slower every run's median
 * ran than theirs, L (another process's load):
 *     min(1, q / OC_CALIB_SURE_RUNS) / (1 + (ln L / ln OC_CALIB_LOAD_HALF)^2)
 * 1 for ten quiet runs on an idle machine; one half where the load slowed
 * the median run by 1.10x (the quiet runs shared the machine with it too,
 * between its bursts), 0.13 at 1.3x. A record with fewer than
 * OC_CALIB_QUIET_MIN quiet runs is left out. */
#define OC_CALIB_SURE_RUNS 10
#define OC_CALIB_LOAD_HALF 1.10
#define OC_CALIB_QUIET_MIN 3
double oc_calib_record_weight(int32_t quiet_runs, double load_ratio);

/* Bounds of the fitted factors. */
#define OC_CALIB_EFF_MIN 0.01
#define OC_CALIB_EFF_MAX 10.0
#define OC_CALIB_LAUNCH_MAX 50e-6
#define OC_CALIB_LIGHT_MIN 0.1e-6 /* a node without a kernel's least time (light_s; 0 means launch_s's) */
#define OC_CALIB_LIGHT_NODES 8    /* the fewest such nodes light_s is fitted on (else 0: launch_s)        */
#define OC_CALIB_HOST_MAX 1e-3
#define OC_CALIB_TASK_MIN 1e-7 /* a CPU's least work per thread (task_s), seconds */
#define OC_CALIB_TASK_MAX 1e-2
#define OC_CALIB_PARALLEL_MAX 1e8
#define OC_CALIB_PAD_PATH_MAX 3.0 /* a CPU convolution's padded positions' slowdown (pad_path) */
#define OC_CALIB_RUN_MAX 1e-6     /* a CPU kernel's seconds per run of its inner loop (run_s) */
/* An op's own factor f (a CPU's fit) adds OC_CALIB_OP_SHRINK x |ln f| to the
 * time-weighted loss: an op with a share s of the measured time keeps f = 1
 * unless its nodes' log error exceeds about 0.001 / (2 s) (0.05 at 1 % of
 * the time, 0.5 at 0.1 %), and then moves by that much less: an op seen on a
 * few small nodes keeps the class and memory factors, and one op far off
 * (LRN) takes a factor of its own instead of moving them all. */
#define OC_CALIB_OP_SHRINK 0.001

struct oc_calib_fit {
    struct oc_gpu_efficiency eff; /* unit[u] > 0 where fitted                 */
    int32_t n_points;
    int32_t n_unit[OC_UNIT_COUNT];         /* points per unit                         */
    int32_t n_unit_compute[OC_UNIT_COUNT]; /* of which compute-bound at the fit */
    int32_t n_conv_unit[OC_UNIT_COUNT];    /* the same for the convolutions     */
    int32_t n_conv_unit_compute[OC_UNIT_COUNT];
    int32_t n_level_memory[4];             /* memory-bound points per cache level (a CPU) */
    int32_t n_dram_memory;                 /* memory-bound points past the caches        */
    /* a CPU's ops' own factors (eff.ops): each one's share of the measured
       time and its points, in eff.ops's order */
    double op_share[OC_OP_EFF_MAX];
    int32_t n_op[OC_OP_EFF_MAX];
    double loss_before, loss_after;        /* weighted mean squared log error          */
    int32_t n_light;                       /* nodes without a kernel eff.light_s is fitted on */
};
/* Fits the factors on pts, starting from `base` (its eff_compute, eff_memory
 * and launch_s; math and additive as the prediction will use them). A unit
 * whose points are all memory-bound at the fit keeps no factor of its own
 * (its efficiency is not observable), and e_mem is kept at base when every
 * point is compute-bound. OC_ERR_INVALID when no point. */
enum oc_status oc_calib_fit(const struct oc_gpu *gpu, const struct oc_perf_opts *base, const struct oc_calib_point *pts,
                            int32_t n, struct oc_calib_fit *out);

/* A CPU runtime's time for a node without a kernel of the model's work
 * (oc_perf_opts.light_s): fitted on n such nodes' measured seconds, each on
 * the CPU at the thread count it ran with (devs[i]), each weighing the same
 * (squared ln error), with `fitted`'s pool cost held (views/perf/perf.h
 * oc_perf_light_s). 0 with fewer than OC_CALIB_LIGHT_NODES: a few such nodes
 * after a large one (whose caches it took) are no figure for all. */
double oc_calib_fit_light(const struct oc_perf_opts *fitted, const double *seconds,
                          const struct oc_gpu *const *devs, int32_t n);

/* A CPU runtime's time between the nodes it runs, from measure results:
 * record k timed ran[k] nodes whose own medians sum to nodes_s[k] in an
 * end-to-end median of e2e_s[k]. The gap g minimises the sum over the
 * records of (ln(nodes_s + ran x g) - ln(e2e_s))^2, so the small models,
 * where the gaps are a large share, set it (a large model's end to end
 * barely moves with it). Both sides are measured: the fit needs no
 * prediction. 0 when no record ran a node; at most OC_CALIB_GAP_MAX. */
#define OC_CALIB_GAP_MAX 1e-3
double oc_calib_fit_gap(const double *nodes_s, const double *e2e_s, const int32_t *ran, int32_t n);

/* How far the model's per-node predictions are from the measurements. */
struct oc_calib_error {
    int32_t n_points;
    int32_t n_major;       /* points with >= 1 % of the measured time       */
    double median_abs_log; /* over the major points: |ln(predicted/measured)| */
    double p90_abs_log;
    double measured_s; /* sums over all points                          */
    double predicted_s;
    double total_error; /* predicted_s / measured_s - 1                  */
};
void oc_calib_error(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *pts, int32_t n,
                    struct oc_calib_error *out);
/* The error by op type, over the points of several files pooled: the
 * worst-predicted kinds of node first (by their share of the time x their
 * median error). *out is malloc'd; false when out of memory. */
struct oc_calib_op_error {
    const char *op;
    int32_t n_points;
    double time_share;       /* of the measured time of all points          */
    double kernels_per_node; /* mean kernels per repetition                  */
    double median_abs_log;   /* over all its points                          */
    double total_error;      /* its predicted / measured - 1                 */
};
bool oc_calib_by_op(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *pts, int32_t n,
                    struct oc_calib_op_error **out, int32_t *n_out);
/* The model's time for one point. */
double oc_calib_predict(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *p);

/* ---- end-to-end measurements ------------------------------------------------------------
 * What most users have of their own GPUs, and what vendors publish: a
 * whole model's time on a device (NVIDIA's DeepLearningExamples tables).
 * A row's prediction is the analysis' latency (oc_perf_estimate) or, for
 * training, the one-device step (forward + backward + update,
 * oc_data_parallel). The fit chooses a compute factor for each unit the
 * fitted rows' nodes run on, the memory factor, the launch time and the
 * runtime's host time per kernel (oc_perf_opts.host_s: an eager runtime
 * dispatches each op from Python, and at small batches the device waits)
 * to minimise the mean squared ln error over the fitted rows. */
#include "../views/training.h"

struct oc_calib_row {
    const struct oc_analysis *an;
    const struct oc_gpu *gpu;
    enum oc_math math;
    int32_t dtype;           /* oc_perf_opts.dtype: 0, or FLOAT16 for AMP */
    bool training;
    bool folded_bn;          /* training: add the BatchNorms the export folded */
    enum oc_optimizer optimizer;
    double measured_s;       /* time per batch, > 0                       */
    bool fit;                /* fitted on; else only checked              */
};

struct oc_calib_rows_fit {
    struct oc_gpu_efficiency eff; /* unit[u] > 0 where fitted; host_s      */
    int32_t n_fit, n_check;
    double loss_before, loss_after; /* mean squared ln error over the fitted rows */
};

/* The model's time for one row with factors o; 0 when out of memory. */
double oc_calib_row_predict(const struct oc_perf_opts *o, const struct oc_calib_row *r);
/* Fits the factors on the rows marked fit, from `base`. OC_ERR_USAGE when
 * none is; OC_ERR_NOMEM. */
enum oc_status oc_calib_fit_rows(const struct oc_perf_opts *base, const struct oc_calib_row *rows, int32_t n,
                                 struct oc_calib_rows_fit *out);

#endif
