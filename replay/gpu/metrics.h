/* onnxcost GPU replay plugin: which hardware counters a replay asks for, per
 * chip, and how their values become FLOPs and bytes.
 *
 * Names are picked from a per-chip table (the tensor-core and DRAM counter
 * names differ between chips) and checked with the CUPTI Profiler Host API,
 * which works offline from a chip name, without a GPU.  See
 * docs/REPLAY.md, "How it measures" (the per-chip table).
 */
#ifndef OC_REPLAY_GPU_METRICS_H
#define OC_REPLAY_GPU_METRICS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which tensor-core path the node's math is expected to use. */
enum oc_rp_math {
    OC_MATH_FP32 = 0, /* strict FP32: no tensor metric is requested */
    OC_MATH_TF32 = 1, /* sm__ops_path_tensor_src_tf32_dst_fp32 */
    OC_MATH_FP16 = 2, /* sm__ops_path_tensor_src_fp16 (GH100) or the _dst_fp16 + _dst_fp32 pair */
    OC_MATH_BF16 = 3, /* sm__ops_path_tensor_src_bf16_dst_fp32 */
    OC_MATH_COUNT
};

enum oc_rp_metric_role {
    OC_M_FADD, OC_M_FMUL, OC_M_FFMA,
    OC_M_HADD, OC_M_HMUL, OC_M_HFMA,
    OC_M_DADD, OC_M_DMUL, OC_M_DFMA,
    OC_M_TENSOR,        /* may occur twice (fp16 dst split on GA100/AD102/GB100/GB202); summed */
    OC_M_DRAM_READ, OC_M_DRAM_WRITE,
    OC_M_TIME,          /* gpu__time_duration.sum, ns; diagnostic only (SASS passes are instrumented) */
    OC_M_SM_HZ,         /* sm__cycles_elapsed.avg.per_second */
    OC_M_DRAM_HZ,       /* dram__cycles_elapsed.avg.per_second */
    OC_M_ROLE_COUNT
};

#define OC_RP_METRIC_NAME_MAX 112
#define OC_RP_METRIC_MAX 24

struct oc_rp_metric {
    int32_t role;                       /* enum oc_rp_metric_role */
    char name[OC_RP_METRIC_NAME_MAX];   /* full name with rollup, e.g. "dram__bytes_read.sum" */
};

struct oc_rp_metric_set {
    char chip[32];        /* CUPTI chip name, e.g. "GH100" (H100 and H200) */
    int32_t math;         /* enum oc_rp_math */
    int32_t n;            /* entries used in m[] */
    struct oc_rp_metric m[OC_RP_METRIC_MAX];
    int32_t passes;       /* replay passes CUPTI needs; 0 until oc_rp_metrics_configure */
};

/* Pure (no CUPTI call).  Fills *out with the metric names for a chip and math
 * mode: the FP32, FP16 and FP64 SASS trios (smsp__sass_thread_inst_executed_op_
 * {f,h,d}{add,mul,fma}_pred_on.sum, the names `ncu --metrics` reports), the
 * tensor path for `math` (none for FP32), DRAM read/write bytes,
 * gpu__time_duration.sum and the SM and DRAM clocks.
 * Known chips: GA100, GA102..GA107, GH100, AD102..AD107, GB100, GB102, GB110,
 * GB202..GB207.  Returns 0, or -1 for an unknown chip or math mode (then *out
 * is zeroed but for chip and math). */
int oc_rp_metrics_for_chip(const char *chip, int32_t math, struct oc_rp_metric_set *out);

/* CUPTI Profiler Host API (works offline with a chip name).  Checks that every
 * name in `set` exists for set->chip, builds the config image and sets
 * set->passes.  counter_avail/avail_size: the counter-availability image from
 * cuptiProfilerGetCounterAvailability, or NULL/0 offline.  When config is not
 * NULL, *config receives the malloc'd config image (caller frees) and
 * *config_size its size.  Returns 0, or -1 with a one-line message in err. */
int oc_rp_metrics_configure(struct oc_rp_metric_set *set, const uint8_t *counter_avail, size_t avail_size,
                            uint8_t **config, size_t *config_size, char *err, size_t errn);

/* Bits of oc_rp_counters.have: set when every metric of the group was in the
 * set and evaluated to a finite, non-negative value. */
enum {
    OC_RP_HAVE_FP32 = 1u << 0,
    OC_RP_HAVE_FP16 = 1u << 1,
    OC_RP_HAVE_FP64 = 1u << 2,
    OC_RP_HAVE_TENSOR = 1u << 3,
    OC_RP_HAVE_DRAM_READ = 1u << 4,
    OC_RP_HAVE_DRAM_WRITE = 1u << 5,
    OC_RP_HAVE_TIME = 1u << 6,
    OC_RP_HAVE_SM_HZ = 1u << 7,
    OC_RP_HAVE_DRAM_HZ = 1u << 8
};

struct oc_rp_counters {
    double fp32_flops;   /* fadd + fmul + 2*ffma */
    double fp16_flops;   /* 2*hadd + 2*hmul + 4*hfma (packed half2, current Nsight Compute factors) */
    double fp64_flops;   /* dadd + dmul + 2*dfma */
    double tensor_ops;   /* sum of the OC_M_TENSOR values (math ops; factor 1 until calibrated on a GPU) */
    double dram_read;    /* bytes */
    double dram_write;   /* bytes */
    double gpu_time_ns;
    double sm_hz;
    double dram_hz;
    uint32_t have;       /* OC_RP_HAVE_* */
};

/* Pure: values[i] is the evaluated value of set->m[i].  Groups with a missing
 * or non-finite/negative member stay 0 and their `have` bit stays clear. */
void oc_rp_counters_from_values(const struct oc_rp_metric_set *set, const double *values,
                                struct oc_rp_counters *out);

/* "fp32", "tf32", "fp16", "bf16", or "?" */
const char *oc_rp_math_name(int32_t math);

#ifdef __cplusplus
}
#endif

#endif
