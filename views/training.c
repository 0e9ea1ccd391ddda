/*
 * training.c — training-step memory and FLOPs (see training.h).
 */
#include "training.h"

#include "../analyzer/dtype.h"
#include "../analyzer/ops.h"

#include <string.h>

static const char *const oc_opt_names[] = {
    [OC_OPT_SGD] = "sgd",
    [OC_OPT_MOMENTUM] = "momentum",
    [OC_OPT_ADAM] = "adam",
};
_Static_assert(OC_ARRAY_LEN(oc_opt_names) == OC_OPT_COUNT, "optimizer names out of sync");

bool oc_optimizer_parse(const char *s, enum oc_optimizer *out) {
    for (int i = 0; i < OC_OPT_COUNT; i++)
        if (strcmp(s, oc_opt_names[i]) == 0) {
            *out = (enum oc_optimizer)i;
            return true;
        }
    return false;
}

const char *oc_optimizer_name(enum oc_optimizer o) {
    return (unsigned)o < OC_OPT_COUNT ? oc_opt_names[o] : "?";
}

void oc_training_estimate(const struct oc_analysis *an, enum oc_optimizer opt, int64_t samples,
                          struct oc_training *out) {
    const struct oc_graph *g = an->graph;
    const struct oc_totals *t = &an->totals;
    uint32_t fl = 0;
    memset(out, 0, sizeof *out);
    out->optimizer = opt;
    out->complete = t->n_uncosted == 0;
    out->param_bytes = t->params_bytes;
    out->grad_bytes = t->params_bytes - t->non_trainable_bytes;
    static const uint64_t states[] = {[OC_OPT_SGD] = 0, [OC_OPT_MOMENTUM] = 1, [OC_OPT_ADAM] = 2};
    if (oc_mul_u64(out->grad_bytes, states[opt], &out->optimizer_bytes))
        fl |= OC_COST_OVERFLOW;
    out->saved_bytes = t->input_bytes;
    uint64_t f_contract = 0, f_other = 0;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (!(n->cost.flags & OC_COST_UNKNOWN))
            oc_sum_u64(n->cost.macs ? &f_contract : &f_other, n->cost.flops, &fl);
        if (n->def && (n->def->flags & OC_OPF_ALIAS))
            continue;
        for (int32_t k = 0; k < n->n_out; k++) {
            uint64_t b;
            if (n->out[k] < 0 || !oc_dtype_is_float(g->values[n->out[k]].dtype))
                continue;
            if (oc_value_bytes_priced(g, &g->values[n->out[k]], &b))
                oc_sum_u64(&out->saved_bytes, b, &fl);
            else
                out->complete = false;
        }
    }
    oc_sum_u64(&out->total_bytes, out->param_bytes, &fl);
    oc_sum_u64(&out->total_bytes, out->grad_bytes, &fl);
    oc_sum_u64(&out->total_bytes, out->optimizer_bytes, &fl);
    oc_sum_u64(&out->total_bytes, out->saved_bytes, &fl);
    uint64_t a, b;
    if (oc_mul_u64(f_contract, 3, &a) || oc_mul_u64(f_other, 2, &b) || oc_add_u64(a, b, &out->step_flops))
        fl |= OC_COST_OVERFLOW;
    out->batch = -1;
    if (g->n_inputs > 0) {
        const struct oc_value *in = &g->values[g->inputs[0]];
        if (in->rank > 0 && in->dims[0].value > 0)
            out->batch = in->dims[0].value;
    }
    out->samples = samples;
    if (samples > 0 && out->batch > 0) {
        uint64_t steps = (uint64_t)(samples / out->batch + (samples % out->batch != 0));
        if (oc_mul_u64(steps, out->step_flops, &out->epoch_flops))
            fl |= OC_COST_OVERFLOW;
    }
    out->overflow = fl != 0;
}
