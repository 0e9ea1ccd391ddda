/* onnxcost GPU replay plugin: hardware counters per ONNX node with the CUPTI
 * Range Profiler (user range + user replay, one range per node).
 *
 * Usage (device already current: cudaSetDevice + cudaFree(0) done):
 *
 *     struct oc_rp_profiler *p;
 *     if (oc_rp_profiler_begin(&p, OC_MATH_FP32, 1, err, sizeof err) != 0)
 *         -> timing only, print err
 *     per node: oc_rp_profiler_collect(p, run_node, ctx, err, sizeof err);
 *         run_node() is called once per pass; it launches the node between
 *         oc_rp_profiler_push(p, node_name) and oc_rp_profiler_pop(p), the same
 *         way every pass, and must be idempotent (outputs never alias inputs).
 *         (Several ranges per collect work too, up to max_ranges <= 1024.)
 *     for (i = 0; i < oc_rp_profiler_n_ranges(p); i++)
 *         oc_rp_profiler_range(p, i, &name, &counters);
 *     oc_rp_profiler_end(p);
 *
 * Never take time from this phase: the SASS counters are collected by
 * instrumented kernels.  Do not run it while Activity tracing (trace.h) is on.
 * Not thread-safe; one profiler per process at a time.
 */
#ifndef OC_REPLAY_GPU_PROFILER_H
#define OC_REPLAY_GPU_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

struct oc_rp_profiler;

/* Gets the current context and its chip name, checks
 * cuptiProfilerDeviceSupported (the message names the failing field), reads
 * the counter-availability image (where missing privileges or another active
 * profiler show up), configures the metric set for the chip and `math`, and
 * enables the range profiler with room for max_ranges ranges (one per node).
 * Returns 0, or -1 with a one-line reason in err; *out is then NULL and the
 * caller falls back to timing only. */
int oc_rp_profiler_begin(struct oc_rp_profiler **out, int32_t math, int32_t max_ranges, char *err, size_t errn);

/* The configured metric set (chip, names, passes). */
const struct oc_rp_metric_set *oc_rp_profiler_metrics(const struct oc_rp_profiler *p);

/* Runs the user-replay loop: Start, pass(arg), Stop, until CUPTI reports all
 * passes submitted; then decodes.  pass() returns 0, or nonzero to abort (the
 * collect then fails).  May be called again: the counter data is reset.
 * Returns 0 or -1 with err. */
int oc_rp_profiler_collect(struct oc_rp_profiler *p, int (*pass)(void *arg), void *arg, char *err, size_t errn);

/* Inside pass(): one range per node.  The name is copied.  In every pass the
 * ranges must come in the same order with the same names.  0 or -1 (the reason
 * is reported by oc_rp_profiler_collect). */
int oc_rp_profiler_push(struct oc_rp_profiler *p, const char *range_name);
int oc_rp_profiler_pop(struct oc_rp_profiler *p);

/* After collect: the number of decoded ranges. */
int32_t oc_rp_profiler_n_ranges(const struct oc_rp_profiler *p);

/* Range i's name (valid until oc_rp_profiler_end or the next collect) and its
 * counters.  0, or -1 (bad index, not collected, or evaluation failed). */
int oc_rp_profiler_range(struct oc_rp_profiler *p, int32_t i, const char **name, struct oc_rp_counters *out);

/* After a failed collect: nonzero when the failure is the session's (missing
 * privileges, another profiler, a virtualized device; or the profiler could
 * not be enabled again), so that no later collect can succeed. A collect that
 * failed for its own node's reason leaves the profiler usable: the next one
 * disables and enables it again first. */
int oc_rp_profiler_fatal(const struct oc_rp_profiler *p);

/* Ranges CUPTI dropped in the last collect (counter data too small). */
int32_t oc_rp_profiler_dropped(const struct oc_rp_profiler *p);

/* The last error message of push/pop/range (empty when none). */
const char *oc_rp_profiler_last_error(const struct oc_rp_profiler *p);

/* Disable the range profiler, deinitialize, free.  Safe on NULL. */
void oc_rp_profiler_end(struct oc_rp_profiler *p);

#ifdef __cplusplus
}
#endif

#endif
