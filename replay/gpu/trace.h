/* onnxcost GPU replay plugin: kernel timing with the CUPTI Activity API.
 *
 * Each node's launches are wrapped in oc_rp_trace_push(node_id) /
 * oc_rp_trace_pop(); every kernel record is joined to that id through the
 * external-correlation records (externalId -> correlationId -> kernel).
 * Activity state is process-wide: one trace at a time, driven from one
 * thread (the buffer callbacks run on a CUPTI thread and are locked).
 * Do not run this while the range profiler (profiler.h) is enabled.
 * See docs/REPLAY.md, "How it measures" (phase 1).
 */
#ifndef OC_REPLAY_GPU_TRACE_H
#define OC_REPLAY_GPU_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the buffer callbacks (8 MiB buffers, 8-byte aligned) and enables
 * CONCURRENT_KERNEL, EXTERNAL_CORRELATION, DRIVER and RUNTIME records.
 * 0 (also when already active), or -1 with a one-line message in err. */
int oc_rp_trace_begin(char *err, size_t errn);

/* cuptiActivityPushExternalCorrelationId(CUSTOM0, id) / Pop.  Use ids >= 1:
 * 0 means "launched outside any push".  A failure is reported by the next
 * oc_rp_trace_take. */
void oc_rp_trace_push(uint64_t id);
void oc_rp_trace_pop(void);

struct oc_rp_kernel {
    uint64_t id;        /* external id pushed around the launch, 0 when none */
    uint64_t start_ns;  /* GPU timestamps (cuptiGetTimestamp clock); 0/0 if CUPTI could not time it */
    uint64_t end_ns;
    const char *name;   /* kernel (mangled) name, interned: valid until oc_rp_trace_end */
};

/* cudaDeviceSynchronize + cuptiActivityFlushAll(forced), then hands over every
 * kernel record seen since the last take, sorted by start time, with its
 * external id.  *out is malloc'd (NULL when the count is 0); the caller frees
 * it.  *dropped (may be NULL) receives the records CUPTI dropped since the
 * last take.  Returns the count, or -1 with err. */
int64_t oc_rp_trace_take(struct oc_rp_kernel **out, uint64_t *dropped, char *err, size_t errn);

/* Disables the record kinds, flushes and frees everything (the interned names
 * too).  Safe when not active. */
void oc_rp_trace_end(void);

#ifdef __cplusplus
}
#endif

#endif
