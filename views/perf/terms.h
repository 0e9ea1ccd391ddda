/*
 * terms.h — the node model's terms shared inside views/perf/, private to
 * this folder: terms.c's (what a node moves, the time to stream it), which
 * node.c, cpu.c and parallel.c read, and cpu.c's (a CPU's own terms), which
 * node.c adds to a node's time.
 */
#ifndef OC_PERF_TERMS_H
#define OC_PERF_TERMS_H

#include "perf.h"

/* Seconds to stream `bytes` from cache level `level` (-1: memory) at o's
   memory factor for that level. */
double oc_perf_stream_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double bytes, int32_t level);
/* A node's FLOPs and bytes as the model prices them: false when its cost
   is not known. */
bool oc_node_kernel_cost(const struct oc_graph *g, const struct oc_node *n, uint64_t *flops, uint64_t *bytes);
/* A CPU's terms (cpu.c): the thread pool's split of a node's body, a
   convolution's im2col buffer, a recurrent node's steps, a kernel's runs. */
double oc_perf_cpu_split(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit,
                         int32_t level, double bw, struct oc_node_perf *out);
void oc_perf_cpu_expand(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double expand_bytes,
                        struct oc_node_perf *np);
void oc_perf_cpu_recurrence(const struct oc_gpu *gpu, const struct oc_perf_opts *o,
                            const struct oc_perf_recurrence *r, struct oc_node_perf *np);
void oc_perf_cpu_runs(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double runs,
                      struct oc_node_perf *np);

/* autocast.c: the plan's widths, compute types and casts under autocast to
   `low` (after its groups are made); and the bytes of value v as node n
   reads (in) or writes it there (n may be NULL: as the value is held). */
enum oc_status oc_autocast_types(const struct oc_graph *g, int32_t low, struct oc_runtime_plan *p);
double oc_autocast_value_bytes(const struct oc_graph *g, const struct oc_runtime_plan *p, const struct oc_node *n,
                               int32_t v, bool in);

#endif
