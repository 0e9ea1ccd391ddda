/*
 * replay.h — `onnxcost replay`: run each node of an analyzed model on an
 * NVIDIA GPU and set measured time, FLOPs and DRAM bytes beside the estimate.
 *
 * Two halves:
 *   - host (this header's functions, library oc_replay_host, no CUDA):
 *     planning (plan.h), loading the plugin, the results model, reading
 *     and merging result files;
 *   - the plugin libonnxcost_gpu.so (replay/gpu/, CUDA + cuDNN + cuBLAS +
 *     CUPTI), loaded with dlopen, so the onnxcost binary starts and analyzes
 *     on machines without CUDA. Its one entry point returns struct
 *     oc_replay_api; plans in, results out.
 */
#ifndef OC_REPLAY_H
#define OC_REPLAY_H

#include "plan.h"

#include <stddef.h>

#define OC_REPLAY_ABI 4 /* 3: --conv-algo in the options; 4: resume, stages */
#define OC_REPLAY_ENTRY "onnxcost_replay_api_v1"

enum oc_rp_math_mode { OC_RP_MATH_FP32, OC_RP_MATH_TF32, OC_RP_MATH_FP16 };

/* cuDNN's forward convolution algorithms, by cudnnConvolutionFwdAlgo_t value
   (cudnn_ops.h): the names --conv-algo takes and the results print */
#define OC_RP_CONV_FWD_ALGOS                                                                               \
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD",           \
        "WINOGRAD_NONFUSED"
#define OC_RP_N_CONV_FWD_ALGOS 8

struct oc_rp_options {
    int32_t device;           /* CUDA device ordinal (--device)                  */
    double warmup_ms;         /* per node, warm-up by time (--warmup, ms)        */
    int32_t reps;             /* timed repetitions (--reps); 0 = by time budget  */
    double budget_ms;         /* time budget per node when reps = 0              */
    bool flush_l2;            /* read-only L2 flush before every repetition      */
    int32_t math;             /* enum oc_rp_math_mode (--math)                   */
    bool counters;            /* collect CUPTI counters (off: timing only)       */
    uint64_t seed;            /* input data                                      */
    int32_t conv_algo;        /* Conv: 0 = the fastest Find reports; k + 1 = the
                                 cudnnConvolutionFwdAlgo_t k (--conv-algo)     */
    bool resume;              /* results[] holds an earlier worker's results
                                 (replay/isolated.h): a node at OC_RPG_TIMED or
                                 later is not timed again (Conv keeps its
                                 algo_id), one at OC_RPG_DONE is left alone    */
};

struct oc_rp_device {
    char name[256];           /* "NVIDIA H100 80GB HBM3" (cudaDeviceProp.name)   */
    char chip[32];            /* CUPTI chip name ("GH100"), "" if unknown        */
    char pci_bus_id[32];
    int32_t cc_major, cc_minor;
    int32_t sm_count;
    int64_t mem_bytes;
    int64_t l2_bytes;
    int32_t sm_clock_khz;     /* maximum SM clock (cudaDevAttrClockRate)         */
    int32_t mem_clock_khz;
    int32_t mem_bus_bits;
    int32_t driver_version, runtime_version; /* 13000 = 13.0                    */
    int64_t cudnn_version, cublas_version;
    int32_t cupti_version;
    bool counters;            /* CUPTI counters can be collected                 */
    char counters_reason[256];/* why not, when not                               */
};

enum oc_rp_status {
    OC_RPS_MEASURED = 0,      /* ran; time (and counters when available) set      */
    OC_RPS_ALIAS,             /* no kernel: a view or metadata                    */
    OC_RPS_SKIPPED,           /* not replayed: reason (no plan, filtered out)     */
    OC_RPS_FAILED,            /* the library call failed: reason                  */
};

/* Where the plugin is with a node, written before and after each phase, so
   that the process that started it can tell which node a crash was in. */
enum oc_rp_stage {
    OC_RPG_NONE = 0,          /* not reached                                      */
    OC_RPG_TIMING,            /* phase 1 (set up, warm up, time) under way        */
    OC_RPG_TIMED,             /* phase 1 over (whatever its outcome)              */
    OC_RPG_COUNTING,          /* phase 2 (the counters) under way                 */
    OC_RPG_DONE,              /* nothing more to do for this node                 */
};

#define OC_RP_KERNEL_NAMES 512
#define OC_RP_CRASH 384
struct oc_rp_result {
    int32_t status;           /* enum oc_rp_status                               */
    int32_t stage;            /* enum oc_rp_stage                                */
    int32_t algo_id, algo_math; /* Conv: the algorithm and math phase 1 chose,
                                 reused by phase 2 (and by a resumed worker)   */
    char crash[OC_RP_CRASH];  /* the worker died in this node: the signal and
                                 the innermost frames ("" when it did not)     */
    char reason[OC_RP_REASON];
    char call[64];            /* library call ("cudnnConvolutionForward")        */
    char algo[64];            /* algorithm / math ("IMPLICIT_PRECOMP_GEMM fma")   */
    /* time: per repetition, the sum of the node's kernel durations (CUPTI
       Activity records), in ns */
    int32_t reps;
    double time_median_ns, time_p10_ns, time_p90_ns, time_min_ns;
    int32_t n_kernels;        /* kernels per repetition                          */
    char kernels[OC_RP_KERNEL_NAMES]; /* their names, "; "-joined, cut            */
    bool overhead;            /* the replay runs extra work (asymmetric pads
                                 cropped, a broadcast copy): see reason          */
    /* counters (CUPTI range profiler, one range per node), when has_counters */
    bool has_counters;
    double fp32_flops, fp16_flops, fp64_flops, tensor_flops;
    double dram_read_bytes, dram_write_bytes;
    double sm_hz;             /* SM clock measured during the profiled range     */
};

struct oc_replay_api {
    int32_t abi;              /* OC_REPLAY_ABI                                   */
    const char *build;        /* "CUDA 13.0, cuDNN 9.19.0, cuBLAS 13.1" as built */
    /* Opens the device: 0, or -1 with one line in err ("no NVIDIA driver:
       CUDA driver version is insufficient ..."). */
    int (*probe)(const struct oc_rp_options *o, struct oc_rp_device *dev, char *err, size_t n);
    /* Replays plans[0..n) on the probed device; results[i] for plans[i].
       progress (may be NULL) is called after each node. 0, or -1 with err when
       the run as a whole failed (a node's failure is its result's). */
    int (*run)(const struct oc_rp_options *o, const struct oc_rp_plan *plans, int32_t n,
               struct oc_rp_result *results, void (*progress)(void *arg, int32_t done, int32_t total),
               void *progress_arg, char *err, size_t errn);
    void (*close)(void);
};

typedef const struct oc_replay_api *(*oc_replay_entry_fn)(void);

/* ---- host side ---------------------------------------------------------------- */

/* Loads the plugin: $ONNXCOST_GPU_PLUGIN, else libonnxcost_gpu.so beside the
 * executable, else ../lib/onnxcost/ from it (the install layout). NULL with a
 * one-line reason (dlerror names the missing library) in err. */
const struct oc_replay_api *oc_replay_load(char *err, size_t n);

#endif
