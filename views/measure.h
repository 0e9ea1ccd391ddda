/*
 * measure.h — an ONNX Runtime profile joined to the analysis of the model it
 * ran (`onnxcost MODEL.onnx --measured PROFILE.json`, docs/MEASURED.md).
 *
 * ONNX Runtime's profiler (SessionOptions.enable_profiling) writes a Chrome
 * trace: one "Node" event per node and run, named "<node>_kernel_time", with
 * its duration in microseconds and args.op_name and args.provider; one
 * "Session" event "model_run" per run. The node names are those of the graph
 * ONNX Runtime ran, after its optimizations: analyze the file it saves with
 * SessionOptions.optimized_model_filepath, so that every measured node has a
 * row. reports/json_inputs.c reads the file into struct oc_profile; this
 * module joins it by node name. No printing, no JSON.
 */
#ifndef OC_MEASURE_H
#define OC_MEASURE_H

#include "../analyzer/analyze.h"
#include "ort_arena.h"

/* One node of a profile: its durations, one per run, in the file's order. */
struct oc_profile_node {
    char *name;     /* the node's name ("<name>_kernel_time" without the suffix) */
    char *op;       /* args.op_name                                              */
    char *provider; /* args.provider ("CPUExecutionProvider", ...)               */
    double *dur_us;
    double *ts_us;  /* each event's start ("ts"), -1 where the file has none */
    int32_t n;
};

/* How `onnxcost measure` ran it: the args of its event of category
 * "onnxcost" (python/onnxcost/ort_measure.py); present is false for a
 * profile made elsewhere. */
struct oc_profile_run {
    bool present;
    char *version;     /* ONNX Runtime's                                   */
    char *opt_level;   /* none, basic, extended, all                       */
    char *cpu;         /* the CPU's model name                             */
    char *model;       /* the file given, before ONNX Runtime optimized it */
    int64_t threads;   /* intra-op threads set; 0: ONNX Runtime's default  */
    int64_t cpu_count;
    int64_t warmup;    /* runs left out of the profile                     */
    bool kept;         /* false: the profile was in a temporary folder     */
    /* the measured runs' passes (ort_measure.py; 0 passes: not recorded) */
    int64_t passes;
    double pass_ratio;  /* the slowest pass's median over the fastest's    */
    double pass_median_ratio; /* the median pass's over the fastest's: above
                                 OC_MEASURE_NOISY_PASSES, most passes ran
                                 slower than the best one could            */
    char *stopped;      /* "stable", "time limit" (--reps auto), "fixed"    */
    double tolerance;   /* --reps auto's, a fraction                       */
    double measuring_s; /* seconds the passes took                         */
};

/* The arena as the node events' args report it (strings of bytes), over
 * every event; -1 where no event has the field (a CUDA-EP profile, or an
 * ONNX Runtime that does not record it). */
struct oc_profile_memory {
    int64_t in_use_peak;   /* max mem_in_use_peak                          */
    int64_t arena_held;    /* max mem_arena_held                           */
    int64_t in_use_floor;  /* min of mem_bytes_in_use - mem_in_use_delta:
                              in use before a node ran (the planned block
                              of activations, initializers in the arena)  */
};

/* A median pass slower than the fastest by more than this ratio: most passes
 * ran under another process's load (one disturbed pass does not count).
 * The reports say so; calibrate leaves such a run out unless told
 * otherwise. */
#define OC_MEASURE_NOISY_PASSES 1.10

/* ONNX Runtime's profiler writes each duration truncated to whole
 * microseconds (a cast of the clock's difference), so a node of 2.7 us reads
 * 2: the loader takes a whole-microsecond duration at the middle of its
 * microsecond, this much later. Unbiased where the true times' fractions
 * spread evenly; a 2-us node then reads 2.5, not 2 (25 % on the decode
 * steps' nodes, the fixed cost per node on every model). */
#define OC_PROFILE_TRUNCATION_US 0.5

struct oc_profile {
    char *path;
    struct oc_profile_run run;
    struct oc_profile_memory memory;
    struct oc_profile_node *nodes; /* in order of first appearance */
    int32_t n_nodes;
    double *run_us;                /* model_run events' durations  */
    double *run_ts_us;             /* and starts (-1: not in the file) */
    int32_t n_runs;
    char *providers;               /* the distinct providers, ", "-joined */
};
void oc_profile_free(struct oc_profile *p);

/* The quiet runs. Another process's load only adds time, so on a busy
 * machine the runs it left alone are the fastest, and they tell the
 * machine's own speed: the figures are taken over the runs whose end to end
 * is within OC_MEASURE_QUIET_BAND of the fastest eighth's slowest (the
 * run at rank n/8 of n, fastest first: one freak fast run does not set the
 * level). On an idle machine that is most runs (the figures a few per cent
 * under the median of all); under a load that comes and goes, the runs
 * between its bursts. A node's figures are over its events inside quiet
 * runs (by their start times); a profile without run events, or events
 * without times, keeps all. */
#define OC_MEASURE_QUIET_BAND 0.05
/* Marks quiet[i] for the quiet runs of run_us[0..n) (all when n < 1);
 * returns how many. */
int32_t oc_measure_quiet_runs(const double *run_us, int32_t n, bool *quiet);

struct oc_measured_node {
    int32_t runs;                  /* events the figures are over (the
                                      quiet runs'); 0: no event in the
                                      profile */
    double median_us, p10_us, p90_us;
};

struct oc_measured {
    const struct oc_profile *profile;
    struct oc_measured_node *nodes; /* by main-graph node index */
    int32_t n_nodes;
    int32_t n_matched;              /* graph nodes with events          */
    int32_t n_unmatched;            /* profile nodes not in the graph   */
    const char *first_unmatched;    /* one of them, for the message     */
    int32_t n_unmeasured;           /* graph nodes with a kernel (FLOPs or
                                       bytes) and no event              */
    double sum_median_us;           /* over the matched nodes           */
    int32_t runs;                   /* model_run events                 */
    int32_t quiet_runs;             /* of them quiet (OC_MEASURE_QUIET_BAND) */
    double run_median_us, run_p10_us, run_p90_us; /* over the quiet runs */
    double all_runs_median_us;      /* over every run                   */
    double load_ratio;              /* all_runs_median_us over run_median_us:
                                       how much another load slowed the
                                       median run (1: none)              */
    /* ONNX Runtime's CPU arena replayed over the graph (ort_arena.h), for a
       profile of the CPU execution provider only; threads: those the run
       record names (else the CPUs it names, else 1). */
    bool arena_simulated;
    int32_t arena_threads;
    struct oc_ort_arena arena;
};

/* Joins p to an's main graph by node name. OC_ERR_NOMEM only. */
enum oc_status oc_measure_join(const struct oc_analysis *an, const struct oc_profile *p, struct oc_measured *out);
void oc_measured_free(struct oc_measured *m);

#endif
