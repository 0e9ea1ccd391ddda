/*
 * device.h — device specs (docs/MODEL.md, docs/GPUS.md): a built-in table
 * of datasheet figures (views/perf/gpus.def, sources in docs/GPUS.md),
 * dense peaks only; any other device comes as a struct filled by the
 * caller (the CLI reads --gpu-spec JSON into one, onnxcost probe writes a
 * CPU's). A device spec carries the factors a calibration measured on it
 * and, optionally, measured kernel tables (kernels.h).
 * All rates are in SI units: FLOP/s and bytes/s (decimal, as datasheets);
 * memory sizes in bytes.
 */
#ifndef OC_PERF_DEVICE_H
#define OC_PERF_DEVICE_H

#include "../../analyzer/analyze.h"
#include "kernels.h"

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


/* The built-in table, in docs/GPUS.md order. */
int32_t oc_gpu_count(void);
const struct oc_gpu *oc_gpu_at(int32_t i);
/* Finds a GPU by id or alias, ignoring case, spaces, '-' and '_'
 * ("A100", "a100-80gb", "H100 SXM"); NULL if none. */
const struct oc_gpu *oc_gpu_find(const char *name);
const char *oc_unit_name(enum oc_unit u);
/* The bandwidth of level k of oc_gpu_level_for (-1: device memory). */
double oc_gpu_level_bandwidth(const struct oc_gpu *gpu, int32_t k);

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

#endif
