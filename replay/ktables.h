/*
 * ktables.h — measured kernel tables (views/perf/kernels.h) built from replay
 * results (`onnxcost tables`, docs/MODEL.md "Kernel tables").
 *
 * Every node a replay measured becomes one sample of the table for its
 * kernel family, the precision it ran at and the run's --math: its shape
 * features and work from the model analyzed again at the run's bindings
 * and dtype (the node found by name), its seconds the median of its
 * kernels' time. Nodes the replay ran with extra work (replay_overhead)
 * are left out, as calibrate leaves them.
 */
#ifndef OC_REPLAY_KTABLES_H
#define OC_REPLAY_KTABLES_H

#include "replay.h"
#include "results.h"

#include "../views/perf/kernels.h"

struct oc_ktables_added {
    int32_t added;      /* samples taken                                   */
    int32_t no_family;  /* measured nodes of no family (or no float dtype) */
    int32_t not_found;  /* measured nodes the analysis has no node named so */
    int32_t overhead;   /* measured with extra work: left out              */
};

/* One sample of a node of features f at dtype and math (enum oc_math) and
 * a CPU's thread count (0 for a GPU), taking seconds, into its table of t
 * (added when t has none); false when out of memory. */
bool oc_ktables_add_sample(struct oc_ktables *t, const struct oc_kfeat *f, int32_t dtype, int32_t math,
                           int32_t threads, double seconds);

/* Adds file f's measured nodes to t, an being f's model analyzed at the
 * run's bindings and dtype; a CPU's convolutions with the share of their
 * MACs' time pad_path gives (oc_perf_conv_cpu_share; the spec's fitted
 * factor, 0 for none). OC_ERR_NOMEM when out of memory. */
enum oc_status oc_ktables_add_file(struct oc_ktables *t, const struct oc_rp_file *f, const struct oc_analysis *an,
                                   double pad_path, struct oc_ktables_added *added);

/* The same from a replay in this process: results[i] of plans[i], the
 * nodes run at dtype (an ONNX code) and the replay's math (enum
 * oc_rp_math_mode); an the analysis the plans were made from. */
enum oc_status oc_ktables_add_results(struct oc_ktables *t, const struct oc_analysis *an,
                                      const struct oc_rp_plan *plans, const struct oc_rp_result *results, int32_t n,
                                      int32_t dtype, int32_t rp_math, struct oc_ktables_added *added);

#endif
