/*
 * training.h — memory and FLOPs of a training step, estimated from the
 * inference graph (docs/COSTS.md, "Training").
 *
 * Memory = parameters + gradients (one per trainable parameter) + optimizer
 * state (SGD none, momentum one buffer, Adam two moments, each the size of
 * the trainable parameters) + activations saved for backward: what autograd
 * keeps per op in the training forward of the model the graph was exported
 * from, each tensor once (docs/COSTS.md, "Training"; the rules the user
 * chose, enum oc_saved_rule, add what the export left out or fused away).
 * FLOPs per step = forward + backward, with backward = 2 x forward for
 * contractions (the gradient of the input and of the weight are each a
 * contraction of the same size) and 1 x forward for everything else:
 *   step = 3 F_c + 2 F_o,  F_c = FLOPs of nodes with MACs, F_o = the rest.
 * Per epoch = step x ceil(samples / batch), batch = dim 0 of the first graph
 * input as analyzed.
 */
#ifndef OC_TRAINING_H
#define OC_TRAINING_H

#include "../analyzer/analyze.h"

enum oc_optimizer {
    OC_OPT_SGD,
    OC_OPT_MOMENTUM,
    OC_OPT_ADAM,
    OC_OPT_COUNT
};

/* What the user says about the export, for the activations saved for
 * backward (docs/MEMORY.md, "Training memory"). */
enum oc_saved_rule {
    /* the export folded each convolution's BatchNorm (an eval export):
       the output of each Conv with a bias (a folded BatchNorm leaves one)
       that no BatchNormalization reads, and its statistics, count once
       more (oc_folded_bn_convs) */
    OC_SAVED_FOLDED_BN = 1u << 0,
    /* a chain of pointwise ops reading one tensor (GELU, SiLU, LayerNorm
       as exported) is one op in the framework: it keeps that tensor and
       its reductions, not its intermediates */
    OC_SAVED_FUSED_POINTWISE = 1u << 1,
};

/* What the graph suggests about its export that the rules given do not
 * say (docs/MEMORY.md, "Training memory"): Convs with a bias that no
 * BatchNormalization reads (an eval export folds each BatchNorm that
 * follows a Conv into it), or chains of pointwise ops as exporters write out one framework
 * op (GELU, SiLU, LayerNorm). Signs, not proof: a model built without
 * BatchNorms, or one that writes GELU out by hand, shows them too; so the
 * report gives the figure with each rule beside the figure without. */
struct oc_export_signs {
    unsigned rules;         /* enum oc_saved_rule bits suggested, not given */
    int32_t biased_convs;   /* OC_SAVED_FOLDED_BN: oc_folded_bn_convs' count */
    int32_t chains;         /* OC_SAVED_FUSED_POINTWISE: the chains, and of
                               them those with an Erf or Tanh (GELU), a
                               ReduceMean (LayerNorm, RMSNorm) or a Sigmoid */
    int32_t gelu_chains, norm_chains, silu_chains;
};

/* The estimate with suggested rules added to the given ones. */
struct oc_training_alt {
    unsigned rules;         /* all rules applied                          */
    uint64_t saved_bytes;
    uint64_t total_bytes;
    bool complete;
};

struct oc_training {
    enum oc_optimizer optimizer;
    unsigned saved_rules;       /* enum oc_saved_rule bits applied          */
    int32_t training_dropouts;  /* Dropout nodes in training mode (an eval
                                   export has none: its dropouts are gone) */
    uint64_t param_bytes;       /* all parameters                          */
    uint64_t grad_bytes;        /* trainable parameters                    */
    uint64_t optimizer_bytes;
    uint64_t saved_bytes;       /* activations kept for backward           */
    uint64_t total_bytes;
    uint64_t step_flops;
    int64_t batch;              /* -1 when the first input has no dim 0     */
    int64_t samples;            /* 0: no epoch figure                      */
    uint64_t epoch_flops;
    bool complete;              /* false: some sizes or costs unknown      */
    bool flops_complete;        /* false: step_flops (and epoch_flops) a
                                   lower bound: nodes without a cost, or a
                                   count past 64 bits                      */
    bool overflow;
    bool out_of_memory;         /* the saved bytes could not be worked out:
                                   oc_training_signs says OC_ERR_NOMEM     */
    /* filled by oc_training_signs, zero before: */
    struct oc_export_signs signs;
    /* each suggested rule alone, then (two suggested) both: the last is
       the estimate with every sign taken; n_alts 0 when there is none */
    int32_t n_alts;
    struct oc_training_alt alts[3];
};

/* Whether a Dropout runs in training mode: its training_mode input is
 * present and not known to be false, and its ratio not known to be 0
 * (opset 12 on; otherwise a Dropout is the identity in the graph). */
bool oc_dropout_trains(const struct oc_graph *g, const struct oc_node *n);

/* The chains a framework runs as one op, as exporters write them out
 * (GELU, SiLU, LayerNorm): region[i] >= 0 for each node of a chain of two
 * or more pointwise ops (Add, Sub, Mul, Div, Pow, Sqrt, Reciprocal, Neg,
 * Erf, Tanh, Sigmoid, ReduceMean) that reads one activation from outside,
 * root[region] (a value index), and whose only output read outside it is
 * its last (a chain that hands a value on outside as well ends there);
 * -1 for every other node. region and root have room for
 * g->n_nodes entries; a region is numbered by its first node's step. False
 * when out of memory. What OC_SAVED_FUSED_POINTWISE keeps, and what eager
 * PyTorch runs as one kernel (perf/runtime.c). */
bool oc_pointwise_chains(const struct oc_graph *g, int32_t *region, int32_t *root);

/* Per node: a Conv or ConvTranspose with a bias whose output no
 * BatchNormalization reads, where an eval export leaves a BatchNorm folded
 * in (OC_SAVED_FOLDED_BN, and --folded-bn's passes in a training step's
 * time). Freed by the caller; NULL when out of memory. */
bool *oc_folded_bn_convs(const struct oc_graph *g);

bool oc_optimizer_parse(const char *s, enum oc_optimizer *out);
const char *oc_optimizer_name(enum oc_optimizer o);

/* Estimate for analysis an; samples > 0 adds the per-epoch FLOPs;
 * saved_rules: enum oc_saved_rule bits. */
void oc_training_estimate(const struct oc_analysis *an, enum oc_optimizer opt, int64_t samples, unsigned saved_rules,
                          struct oc_training *out);
/* The export's signs in an's graph and tr's figures under the rules they
 * suggest (tr->signs, tr->alts), for the reports: tr from
 * oc_training_estimate on the same analysis. OC_ERR_NOMEM when out of
 * memory. */
enum oc_status oc_training_signs(const struct oc_analysis *an, struct oc_training *tr);

#endif
