/*
 * results.h — what a replay's numbers mean beside the estimate (host side):
 * device peaks from its attributes, the derived per-node figures, and
 * reading replay result files back for `onnxcost merge`.
 */
#ifndef OC_REPLAY_RESULTS_H
#define OC_REPLAY_RESULTS_H

#include "replay.h"

#include "../views/perf/perf.h"
#include "../analyzer/oc.h"

/* Peaks of a device from its CUDA attributes: FP32 = SMs x FP32 lanes per
 * SM (oc_rp_fp32_lanes) x 2 (an FMA is two FLOPs) x the maximum SM clock;
 * DRAM = 2 (double data rate) x memory clock x bus width / 8. */
struct oc_rp_peaks {
    double fp32_flops;        /* FLOP/s, 0 when unknown */
    double dram_bytes;        /* bytes/s, 0 when unknown */
};
/* FP32 lanes per SM for a compute capability, 0 when not known. */
int32_t oc_rp_fp32_lanes(int32_t cc_major, int32_t cc_minor);
void oc_rp_device_peaks(const struct oc_rp_device *d, struct oc_rp_peaks *out);

struct oc_rp_derived {
    double measured_flops;    /* oc_rp_model_flops                            */
    double ratio;             /* measured / estimated FLOPs; 0 when either is 0 */
    double dram_bytes;        /* read + write                                 */
    double flops_per_s;       /* measured FLOPs / median time                 */
    double bytes_per_s;       /* DRAM bytes / median time                     */
    double pct_peak_flops;    /* of the FP32 peak (tensor work above 100 % is
                                 possible: it is not FP32)                    */
    double pct_peak_dram;
    double intensity;         /* measured FLOPs / DRAM byte (0 when no bytes) */
    enum oc_bound bound;      /* which roof is nearer (the estimate's enum)    */
};
/* Derived figures of one node's result; est_flops is the analyzer's. */
void oc_rp_derive(const struct oc_rp_result *r, uint64_t est_flops, bool half_data, const struct oc_rp_peaks *pk,
                  struct oc_rp_derived *out);
/* The FLOPs measured for the node's own arithmetic: FP32 + FP64 + tensor,
 * and FP16 only when the node computes on 16-bit floats (half_data). On
 * 32-bit data the FP16 instruction counters see register idioms, not
 * arithmetic: on an H200 a plain copy counted 4 "FP16 FLOPs" per element,
 * cuDNN's Add 3 (docs/REPLAY.md, "Results"). */
double oc_rp_model_flops(const struct oc_rp_result *r, bool half_data);
/* A plan whose float tensors are 16-bit (FP16 or BF16). */
bool oc_rp_plan_half(const struct oc_rp_plan *p);

/* ---- result files (`onnxcost replay --format json`, "onnxcost-replay/1") --------- */

struct oc_rp_file_node {
    char *name, *op, *status;
    double est_flops;
    double est_macs;          /* > 0: a contraction (the model's tensor-core rule) */
    double est_bytes;         /* bytes_read + bytes_written                   */
    double est_expand_bytes;  /* a measure result's CPU convolution: its im2col
                                 bytes as the analysis priced them (its
                                 gpu.im2col_bytes); 0: none                 */
    struct oc_perf_recurrence est_recurrence; /* a measure result's recurrent
                                 node: its steps (gpu.recurrence); steps 0: none */
    double conv_inside, conv_padded; /* a convolution's window from its model
                                 analyzed again (oc_perf_conv_window; calibrate
                                 fills it for a CPU's results): the share of
                                 its taps inside the input and of its outputs
                                 at the padding; 0 and 0: not known         */
    double runs;              /* the runs of its kernel's inner loop, from the
                                 same analysis (oc_kernel_runs; calibrate
                                 fills it for a CPU's results); 0: not known */
    bool light;               /* the same analysis finds no kernel of the
                                 model's work in it (views/perf/perf.h
                                 oc_cpu_node_light: a Shape, a Reshape, shape
                                 arithmetic): not a roofline point; calibrate
                                 fits a CPU's light_s on such nodes          */
    double est_outputs;       /* output elements: bytes_written / the dtype's
                                 size; 0 when the dtype is not given         */
    int32_t dtype;            /* the model's compute dtype (ONNX code), 0 = none */
    double time_ns;           /* median; 0 when not measured                  */
    double flops;             /* measured: counters.model_flops (the node's own
                                 arithmetic), else counters.flops in files
                                 written before it; 0 when no counters        */
    double dram_bytes;
    int32_t kernels;          /* kernels per repetition                       */
    bool measured, has_counters;
    bool overhead;            /* the replay ran extra work (replay_overhead)  */
};
struct oc_rp_file {
    char *path;
    char *device;             /* the device's name                            */
    char *model;
    char *graph;              /* the graph the nodes are named in, when not the
                                 model: a measure result's, ONNX Runtime's
                                 optimized graph (NULL for a replay)         */
    int32_t math;             /* enum oc_rp_math_mode of the run (--math)      */
    char *dtype;              /* the run's --dtype ("fp16"), or NULL          */
    char *bindings;           /* its bound dims, "batch=32,sequence=128", or
                                 NULL in a file written before they were kept */
    int32_t n_nodes;
    struct oc_rp_file_node *nodes;
    /* a measure result's runs (onnxcost measure's record): the passes'
       spread, 0 when not recorded; unstable: --reps auto ran out of time */
    double pass_median_ratio; /* the median pass over the fastest              */
    bool unstable;
    /* its quiet runs (views/measure.h) and every run's median over theirs;
       quiet_runs -1: not recorded (a replay, or a file written before) */
    int32_t quiet_runs;
    double load_ratio;
    /* a measure result's end-to-end median and the sum of its nodes'
       medians, seconds (0 when not recorded): their difference is the time
       between the nodes, which no node's own time holds */
    double end_to_end_s, sum_of_nodes_s;
    int32_t threads;          /* a measure result's intra-op threads (0: not
                                 recorded, or a replay)                    */
};
/* --math names by enum oc_rp_math_mode: "fp32", "tf32", "fp16". */
extern const char *const oc_rp_math_names[3];
/* Reads a replay JSON file. OC_ERR_IO / OC_ERR_PARSE (not JSON, or not a
 * replay result) with one line in d. */
enum oc_status oc_rp_file_read(const char *path, struct oc_rp_file *out, struct oc_diag *d);
void oc_rp_file_free(struct oc_rp_file *f);

#endif
