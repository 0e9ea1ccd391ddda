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
       each Conv's output and its statistics count once more */
    OC_SAVED_FOLDED_BN = 1u << 0,
    /* a chain of pointwise ops reading one tensor (GELU, SiLU, LayerNorm
       as exported) is one op in the framework: it keeps that tensor and
       its reductions, not its intermediates */
    OC_SAVED_FUSED_POINTWISE = 1u << 1,
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
    bool overflow;
};

/* Whether a Dropout runs in training mode: its training_mode input is
 * present and not known to be false, and its ratio not known to be 0
 * (opset 12 on; otherwise a Dropout is the identity in the graph). */
bool oc_dropout_trains(const struct oc_graph *g, const struct oc_node *n);

bool oc_optimizer_parse(const char *s, enum oc_optimizer *out);
const char *oc_optimizer_name(enum oc_optimizer o);

/* Estimate for analysis an; samples > 0 adds the per-epoch FLOPs;
 * saved_rules: enum oc_saved_rule bits. */
void oc_training_estimate(const struct oc_analysis *an, enum oc_optimizer opt, int64_t samples, unsigned saved_rules,
                          struct oc_training *out);

#endif
