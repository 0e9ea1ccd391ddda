/*
 * analyze.h — the analysis driver: bind symbolic dims, infer every node's
 * output shapes in topological order, cost each node, attribute parameters,
 * sum the totals.
 *
 * One struct oc_analysis owns one arena holding the graph and every result.
 * It borrows the model: free the analysis before the model. The library
 * never prints: warnings are collected as strings for the caller.
 */
#ifndef OC_ANALYZE_H
#define OC_ANALYZE_H

#include "graph.h"

struct oc_model;

struct oc_binding {
    const char *name; /* symbolic dim name as written in the model */
    int64_t value;    /* >= 0                                       */
};

struct oc_analyze_opts {
    const struct oc_binding *dims; /* --dim NAME=VALUE                                  */
    int32_t n_dims;
    int64_t batch;                 /* --batch N (> 0): first dim of every graph input
                                      whose first dim is symbolic or unnamed            */
    int32_t price_bits;            /* --dtype: price float tensors at this many bits (0 =
                                      their own type); shapes and dtypes are unchanged  */
    int64_t fail_alloc_after;      /* tests: make the Nth arena allocation fail          */
    bool fold_any_size;            /* tests: value propagation may read initializers and
                                      Constant tensors of any type up to the per-tensor
                                      limit (fold.h); normally non-index tensors are read
                                      only when tiny, so weights are never read          */
    bool keep_built;               /* oc_analyze: where dims are left unbound (taken as
                                      1), keep a copy of the graph as built, so that the
                                      formulas' probe analyses (symbolic.h) fork it
                                      (oc_analysis_fork) instead of building it again:
                                      a copy of its values and nodes                   */
};

enum oc_bind_source {
    OC_BIND_USER,    /* --dim                            */
    OC_BIND_BATCH,   /* --batch                          */
    OC_BIND_DEFAULT, /* unbound: 1, with a warning       */
};

struct oc_bound_dim {
    const char *name; /* NULL for an unnamed dim (then input/axis say where) */
    const char *input;
    int32_t axis;
    int64_t value;
    enum oc_bind_source source;
    const char *warning;  /* the warning issued for a default binding, or NULL */
};

struct oc_totals {
    uint64_t params;               /* unique float initializer elements          */
    uint64_t trainable_params;
    uint64_t non_trainable_params; /* initializers read only as buffers (BN mean/var) */
    int32_t trainable_tensors;     /* float initializers of more than one element
                                      read as weights, not buffers: the tensors
                                      an optimizer updates one by one          */
    uint64_t params_bytes;
    uint64_t non_trainable_bytes;
    uint64_t initializer_bytes;    /* every initializer, of any type: what the
                                      weights occupy (packed low-bit weights,
                                      scales and zero points included)          */
    uint64_t macs;
    uint64_t flops;
    uint64_t input_bytes;          /* graph inputs that are not initializers     */
    uint64_t activation_bytes;     /* every node output, summed                  */
    uint64_t bytes_read;
    uint64_t bytes_written;
    uint64_t peak_activation_bytes; /* liveness peak of an inference pass (memory.h) */
    int32_t peak_node;             /* node index running at the peak, -1 if none  */
    bool peak_complete;            /* false: some sizes unknown, a lower bound     */
    int32_t n_nodes;
    int32_t n_shaped;              /* nodes whose outputs all have known shapes  */
    int32_t n_no_rule;             /* nodes of ops without a shape rule          */
    int32_t n_uncosted;            /* nodes whose cost is unknown                */
    int32_t n_downstream;          /* of those, unknown only because an input's
                                      shape is (a node before them is the cause) */
    uint32_t flags;                /* OC_COST_OVERFLOW when a sum saturated      */
};

/* True when MACs, FLOPs and the activation sizes are exact: every node has a
 * known cost and no count passed 64 bits. Otherwise they are lower bounds
 * (the nodes without a cost add nothing; a saturated count stands at
 * UINT64_MAX), and every report says so next to them. Parameter counts are
 * always exact: they come from the initializers. */
static inline bool oc_totals_exact(const struct oc_totals *t) {
    return t->n_uncosted == 0 && !(t->flags & OC_COST_OVERFLOW);
}

struct oc_op_count {
    const char *domain;
    const char *op_type;
    int32_t count;
};

/* Totals of the nodes of one op type (nodes with an unknown cost add to
 * `count` and `uncosted` only). */
struct oc_op_stat {
    const char *domain;
    const char *op_type;
    int32_t count;
    int32_t uncosted;
    uint64_t macs, flops, params, activation_bytes;
};

struct oc_analysis {
    struct oc_arena arena;           /* this run's results (bindings, shapes, costs,
                                        subgraphs, warnings); emptied by a re-run */
    struct oc_arena graph_arena;     /* the graph as built from the model, kept
                                        across re-runs                          */
    const struct oc_model *model;
    struct oc_graph *graph;
    struct oc_totals totals;
    int32_t n_bound;
    struct oc_bound_dim *bound;
    int32_t n_warnings;
    const char **warnings;
    int32_t n_unsupported;           /* distinct ops without a rule, by count */
    struct oc_op_count *unsupported;
    int64_t fold_left;               /* elements value folding may still produce
                                        in this run (fold.h)                    */
    int32_t n_op_stats;              /* per (domain, op_type), most MACs first,
                                        then most FLOPs, then name            */
    struct oc_op_stat *op_stats;
    /* the main graph right after oc_graph_build(), before any binding: a
     * re-run starts from it (private to analyze.c) */
    struct oc_graph pristine;
    struct oc_value *pristine_values;
    struct oc_node *pristine_nodes;
};

/* Runs the analysis. On an invalid model returns OC_ERR_MODEL (or PARSE,
 * NOMEM, OVERFLOW) with one line in d naming the node; *out is NULL then.
 * Unknown ops and shapes that cannot be inferred are not errors: they are
 * recorded on the node (status, reason) and counted in the totals. */
enum oc_status oc_analyze(const struct oc_model *m, const struct oc_analyze_opts *opts,
                          struct oc_analysis **out, struct oc_diag *d);
/* Runs an analysis again with other options (other --dim/--batch bindings,
 * --dtype) on the graph it has already built: the result is the one
 * oc_analyze(an->model, opts) would give, without decoding and validating
 * the graph again. Everything the previous run produced is released first,
 * so pointers into it (nodes' shapes, warnings, modules) become invalid.
 * On error the analysis holds no result but can be re-run again. The
 * analysis must come from oc_analysis_prepare() (not oc_analyze()), else
 * OC_ERR_USAGE. */
enum oc_status oc_analysis_rerun(struct oc_analysis *an, const struct oc_analyze_opts *opts, struct oc_diag *d);
/* A new analysis, to be run with oc_analysis_rerun, of the graph `base` was
 * built with, without decoding it again: base must come from
 * oc_analysis_prepare(), or from oc_analyze() with keep_built where it left
 * dims unbound (else OC_ERR_USAGE). The fork borrows base's graph as built
 * (names, edges, attributes) and owns only its values, nodes and results:
 * free it before base. */
enum oc_status oc_analysis_fork(const struct oc_analysis *base, struct oc_analysis **out, struct oc_diag *d);
/* The graph of a model decoded and validated once, for runs to come:
 * oc_analysis_rerun() then gives each binding's result. Fails only where the
 * file itself is invalid whatever the bindings (a cycle, a dangling input, a
 * rank over the limit); no run has been made, so the analysis holds no
 * result yet. */
enum oc_status oc_analysis_prepare(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                   struct oc_analysis **out, struct oc_diag *d);
void oc_analysis_free(struct oc_analysis *a);

#endif
