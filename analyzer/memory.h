/*
 * memory.h — peak activation memory of an inference pass, from tensor
 * liveness in execution order.
 *
 * A tensor lives from the step of its producer (graph inputs: from the
 * start) to the step of its last consumer (graph outputs: to the end).
 * Ops that alias their input (Reshape, Identity, Flatten, Squeeze,
 * Unsqueeze, Dropout) allocate nothing: their output is the input's buffer,
 * which then lives until the alias's last consumer. Initializers (weights)
 * are not activations and are not counted. At each step the live buffers,
 * including the node's own outputs, are summed; the peak is the largest sum.
 * Unlike torchsummary's "Forward/backward pass size" (a plain sum of all
 * outputs) this is what an inference runtime without in-place reuse must
 * hold at once.
 */
#ifndef OC_MEMORY_H
#define OC_MEMORY_H

#include "graph.h"

struct oc_memory {
    uint64_t peak_bytes;  /* largest sum of live activation bytes          */
    int32_t peak_node;    /* node index (file order) running at the peak, -1 */
    bool complete;        /* false: some tensor sizes are unknown, so the
                             peak is a lower bound                         */
    bool overflow;        /* a tensor's size passes 64 bits: the peak is
                             saturated at UINT64_MAX                       */
};

/* Computes the peak for g's main nodes (subgraph bodies are not expanded). */
enum oc_status oc_memory_peak(const struct oc_graph *g, struct oc_memory *out);
/* The same in another execution order: order[s] the node (file index) run
 * at step s, a topological order of all g's main nodes. */
enum oc_status oc_memory_peak_order(const struct oc_graph *g, const int32_t *order, struct oc_memory *out);
/* The buffers (value indices: a graph input or a node output, not an alias
 * of one) live at step `step` of that order, of known size: up to cap into
 * live, *n_live how many there are. */
enum oc_status oc_memory_live_at(const struct oc_graph *g, const int32_t *order, int32_t step, int32_t *live,
                                 int32_t cap, int32_t *n_live);

#endif
