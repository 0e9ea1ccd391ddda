/*
 * plan_host.h — planning nodes of an analysis into replay plans (host side,
 * no CUDA). The per-op planners are named in the last column of
 * analyzer/ops.def and live in replay/plan_ops.c; the driver (plan.c) fills
 * the tensors every plan shares, then calls the node's planner.
 */
#ifndef OC_REPLAY_PLAN_HOST_H
#define OC_REPLAY_PLAN_HOST_H

#include "plan.h"

#include "../analyzer/analyze.h"
#include "../analyzer/ops.h"

struct oc_rp_plan_opts {
    int32_t float_dtype;  /* --dtype: every float tensor replayed in this ONNX
                             dtype (10 fp16, 16 bf16); 0 = the model's own   */
};

/* What a planner sees: the analyzed node (shapes known), its context for the
 * analyzer's helpers (oc_in_ints, oc_attr_*), and the options. */
struct oc_rp_pctx {
    struct oc_op_ctx op;
    const struct oc_rp_plan_opts *opts;
    struct oc_diag diag;  /* op.diag points here */
};

/* A planner sets p->kind and its part of p->u; when the node cannot be
 * replayed it leaves OC_RPK_NONE with p->reason. It never fails otherwise. */
typedef void (*oc_rp_plan_fn)(struct oc_rp_pctx *c, struct oc_rp_plan *p);

/* Plans node `node` (index in the main graph) of an analysis. Always gives a
 * plan: one that cannot run has kind OC_RPK_NONE and a reason. */
void oc_rp_plan_node(struct oc_analysis *an, int32_t node, const struct oc_rp_plan_opts *o, struct oc_rp_plan *p);

/* One plan per main-graph node, in execution order (*plans malloc'd, n =
 * the graph's node count). keep (may be NULL) chooses the nodes to run: a
 * node it refuses gets kind OC_RPK_NONE and the reason left_out. False
 * when out of memory. */
bool oc_rp_plan_graph(struct oc_analysis *an, const struct oc_rp_plan_opts *o,
                      bool (*keep)(void *arg, const struct oc_rp_plan *p), void *keep_arg, const char *left_out,
                      struct oc_rp_plan **plans, int32_t *n);

/* The planner of a registry row (the row's index in the ops.def table). */
oc_rp_plan_fn oc_rp_planner(const struct oc_op_def *def);

/* The library call (or kernel) a plan runs: "cudnnConvolutionForward",
 * "cublasGemmStridedBatchedEx", "oc_k_copy"; "" for an alias, "-" when none. */
const char *oc_rp_plan_call(const struct oc_rp_plan *p);
/* Short name of a plan kind ("conv", "gemm", ...). */
const char *oc_rp_kind_name(int32_t kind);

/* ---- pure helpers, exported for the tests ---------------------------------------- */

/* One spatial axis of a Conv/Pool window in cuDNN's symmetric-pad terms
 * (struct oc_rp_window): the smallest pad >= pb and pe with (pad - pb) a
 * multiple of stride that leaves `out` wanted outputs from `crop` within the
 * extent `ext`. false when no such pad exists within 4 strides. */
bool oc_rp_window_axis(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe, int64_t out,
                       int64_t *pad, int64_t *crop, int64_t *ext);
/* The same for ConvTranspose (cuDNN backward data): pad = min(pb, pe), the
 * extent grown by at most stride - 1 (cuDNN's output padding), crop in
 * output elements. */
bool oc_rp_window_axis_t(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe, int64_t out,
                         int64_t *pad, int64_t *crop, int64_t *ext);
/* Element strides of an input of rank ri and dims di broadcast to an output
 * of rank ro and dims dout (right-aligned; 0 on a broadcast dim). false when
 * not broadcastable. */
bool oc_rp_broadcast_strides(const int64_t *di, int32_t ri, const int64_t *dout, int32_t ro, int64_t *stride);
/* Row-major strides of dims. */
void oc_rp_contiguous(const int64_t *dims, int32_t rank, int64_t *stride);

#endif
