/*
 * probe.h — this machine's roofs, measured (`onnxcost probe`,
 * docs/MEASURED.md "The machine's roofs").
 *
 * The Empirical Roofline Toolkit's method, in a few seconds:
 *   - peak FLOP/s: unrolled loops of independent fused multiply-adds over
 *     the widest vector ISA the CPU reports (AVX-512, AVX2+FMA, NEON; BF16
 *     dot products with AVX512_BF16, INT8 with AVX512_VNNI), on one thread
 *     and on every thread at once;
 *   - bandwidth: the STREAM triad a[i] = b[i] + s*c[i] (12 bytes per float
 *     element: two read, one written, no write-allocate counted) over
 *     working sets from the first-level cache to several times the last,
 *     on one thread and on all; each cache level's figure is the best rate
 *     of the sizes past the level below that fit in half of it, DRAM's the median past 4x the
 *     last level;
 *   - the clock: a chain of dependent integer adds, one per cycle.
 * Every rate is the best of a few repetitions of a timed loop, SI units
 * (FLOP/s, bytes/s). Host code only: no CUDA, no printing.
 */
#ifndef OC_PROBE_H
#define OC_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum oc_probe_type { OC_PROBE_FP32, OC_PROBE_FP64, OC_PROBE_BF16, OC_PROBE_INT8, OC_PROBE_TYPES };

enum { OC_PROBE_MAX_LEVELS = 4, OC_PROBE_MAX_SWEEP = 32 };

struct oc_probe_level {
    int32_t level;            /* 1, 2, 3                                          */
    uint64_t bytes;           /* one instance's size (sysfs)                      */
    int32_t shared_by;        /* logical CPUs sharing one instance                */
    uint64_t bytes_all;       /* what the threads used reach together: private
                                 levels once per thread, a shared one once per
                                 group of threads sharing it                      */
    double bw_one, bw_all;    /* triad bytes/s within it: one thread, all threads */
};

struct oc_probe_point {
    uint64_t bytes;           /* the working set of all threads together (3 arrays) */
    double bw_all;            /* bytes/s                                          */
};

/* More tries of all threads at once (each the best of 3 runs of the same
 * length) when the first ran slower than one thread: a load that comes and
 * goes leaves quiet windows. */
#define OC_PROBE_ALL_TRIES 8

struct oc_machine {
    char cpu[128];            /* /proc/cpuinfo model name (or the machine type)   */
    char isa[48];             /* "avx512f", "avx2+fma", "neon", "scalar"          */
    bool bf16, int8;          /* AVX512_BF16 / AVX512_VNNI paths probed           */
    int32_t logical_cpus;     /* online                                           */
    int32_t threads;          /* used for the all-thread figures                  */
    double clock_hz;          /* measured on one thread; 0 when what the add chain
                                 read (clock_read_hz) cannot be the core's
                                 (oc_probe_clock_plausible)                   */
    double clock_read_hz;     /* what the add chain read                          */
    uint64_t mem_bytes;       /* MemTotal                                         */
    double peak_one[OC_PROBE_TYPES]; /* FLOP/s (OPS for INT8) of one thread; 0: no path */
    double peak_all[OC_PROBE_TYPES]; /* of all threads at once                    */
    uint32_t all_below_one;          /* bit per type: all threads measured slower
                                        than one in 1 + OC_PROBE_ALL_TRIES tries;
                                        peak_all is then the one-thread rate
                                        (the report says so)                  */
    int32_t n_levels;
    struct oc_probe_level levels[OC_PROBE_MAX_LEVELS];
    double dram_one, dram_all;       /* triad bytes/s past the last level          */
    int32_t n_sweep;
    struct oc_probe_point sweep[OC_PROBE_MAX_SWEEP];
    double seconds;                  /* the probe's own wall time                  */
};

struct oc_probe_opts {
    int32_t threads;          /* 0: every online CPU                              */
    double target_s;          /* each timed loop runs about this long (0: 0.05)   */
};

/* Whether an add chain's clock reading can be a core's: within 0.3 to 6.5
 * GHz (no CPU ships past 6.2), and leaving one thread's FP32 rate at least
 * 0.6 x 2 x lanes FLOP a cycle (a core has at least one FMA unit of the
 * ISA's width; 0.6 allows the lower clock of wide vector code), lanes the
 * FP32 lanes of the path the probe ran (16 AVX-512, 8 AVX2, 4 NEON, 1
 * scalar). A chain that retired faster than one add a cycle reads too
 * high and fails the second. */
bool oc_probe_clock_plausible(double clock_hz, double fp32_one_flops, int32_t lanes);

/* Measures this machine. False, with a reason in err, when memory or
 * threads cannot be had. */
bool oc_probe_run(const struct oc_probe_opts *o, struct oc_machine *m, char *err, size_t size);
static inline const char *oc_probe_type_name(enum oc_probe_type t) {
    static const char *const names[] = {"fp32", "fp64", "bf16", "int8"};
    return (unsigned)t < OC_PROBE_TYPES ? names[t] : "?";
}

/* The machine as a device spec for the performance model (views/perf/device.h):
 * the all-thread peaks (BF16 and INT8 dot products as the BF16 and INT8
 * contraction units), DRAM's triad rate, the cache levels; name holds its
 * name ("CPU model, N threads"). */
struct oc_gpu;
void oc_probe_spec(const struct oc_machine *m, struct oc_gpu *g, char *name, size_t size);

#endif
