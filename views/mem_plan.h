/*
 * mem_plan.h — a static memory plan: an offset in one arena for every activation
 * tensor of a graph at bound dims (`onnxcost plan`, docs/MEMORY.md).
 *
 * Buffers: a node output gets a buffer of its own, except that an alias op's
 * output (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) is its
 * input's buffer, and, with in-place reuse on, an elementwise op's output
 * takes the buffer of an input of its shape that nothing reads after it.
 * Graph inputs have buffers from the first step, graph outputs to the last;
 * weights are not in the arena. A buffer lives from the step of its producer
 * to the step of the last node that reads any value in it (steps in the
 * analyzer's execution order).
 *
 * Two planners (both over the same buffers):
 *   size   greedy by size (TFLite's arena planner; Pisarchyk and Lee, 2020):
 *          the largest buffer first, each into the best-fitting gap between
 *          the buffers already placed that are live at the same time;
 *   order  in execution order, best fit among the buffers live at birth
 *          (ONNX Runtime's memory pattern).
 * Sizes and offsets are rounded up to the alignment. The lower bound is the
 * largest sum of the sizes of the buffers live at one step: no plan of these
 * buffers is smaller. oc_plan_verify checks a plan independently of how it
 * was made. No printing, no JSON.
 */
#ifndef OC_MEM_PLAN_H
#define OC_MEM_PLAN_H

#include "../analyzer/graph.h"

enum oc_planner { OC_PLANNER_SIZE, OC_PLANNER_ORDER };
enum oc_plan_role { OC_PLAN_ACTIVATION, OC_PLAN_INPUT, OC_PLAN_OUTPUT };

struct oc_plan_buffer {
    int32_t value;          /* the value that creates it                     */
    int32_t n_values;       /* values that use it (aliases, in place)        */
    enum oc_plan_role role; /* an input or output of the graph is among them */
    uint64_t bytes;         /* the largest of its values' bytes              */
    uint64_t size;          /* bytes rounded up to the alignment             */
    uint64_t offset;
    int32_t first, last;    /* steps: written first, read last               */
};

struct oc_plan {
    enum oc_planner planner;
    uint64_t align;
    bool inplace;
    struct oc_plan_buffer *buffers; /* by first step, then value          */
    int32_t n_buffers;
    int32_t *buffer_of;             /* per value of the main graph, -1: none */
    int32_t n_values;
    int32_t n_steps;
    uint64_t arena_bytes;           /* the end of the highest buffer        */
    uint64_t lower_bound_bytes;     /* the largest live sum at a step       */
    int32_t lower_bound_step;
    uint64_t other_arena_bytes;     /* the other planner's arena            */
    int32_t n_subgraph_nodes;       /* nodes whose bodies are not planned   */
};

/* Plans g's main graph. value_bytes, when not NULL, gives each value's
 * bytes (one plan for several bindings: each value's largest; UINT64_MAX
 * for not known) in place of g's. OC_ERR_UNSUPPORTED, with the tensor named
 * in d, when a tensor's size is not known (bind its dims) or passes 64
 * bits; OC_ERR_NOMEM. align is a power of two from 1 to 4096. */
enum oc_status oc_plan_make(const struct oc_graph *g, const uint64_t *value_bytes, enum oc_planner planner,
                            uint64_t align, bool inplace, struct oc_plan *out, struct oc_diag *d);
void oc_plan_free(struct oc_plan *p);

/* True when no two buffers live at a common step overlap in the arena, every
 * offset is aligned and every buffer ends within arena_bytes; otherwise
 * *a and *b name a pair at fault (*b -1: buffer *a alone). */
bool oc_plan_verify(const struct oc_plan *p, int32_t *a, int32_t *b);

#endif
