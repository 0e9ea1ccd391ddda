/*
 * training.h — memory and FLOPs of a training step, estimated from the
 * inference graph (docs/COSTS.md, "Training").
 *
 * Memory = parameters + gradients (one per trainable parameter) + optimizer
 * state (SGD none, momentum one buffer, Adam two moments, each the size of
 * the trainable parameters) + activations saved for backward: what autograd
 * keeps per op in the training forward of the model the graph was exported
 * from, each tensor once (docs/COSTS.md, "Training"; with folded_bn, the
 * input of each BatchNorm an eval export folded into a Conv).
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

struct oc_training {
    enum oc_optimizer optimizer;
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

bool oc_optimizer_parse(const char *s, enum oc_optimizer *out);
const char *oc_optimizer_name(enum oc_optimizer o);

/* Estimate for analysis an; samples > 0 adds the per-epoch FLOPs. */
void oc_training_estimate(const struct oc_analysis *an, enum oc_optimizer opt, int64_t samples, bool folded_bn,
                          struct oc_training *out);

#endif
