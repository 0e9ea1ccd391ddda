/*
 * training.c — training-step memory and FLOPs (see training.h).
 */
#include "training.h"

#include "../analyzer/dtype.h"
#include "../analyzer/ops.h"

#include <stdlib.h>
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

/* ---- what autograd keeps for backward, per op ------------------------------------ */
enum oc_keep { OC_KEEP_NOTHING, OC_KEEP_INPUTS, OC_KEEP_OUTPUT, OC_KEEP_ALL };

struct oc_keep_rule {
    const char *op;
    enum oc_keep keep;
};

/* The ops autograd saves a tensor for (ai.onnx names). Contractions keep
   their activation inputs (for the weight's gradient and each other's);
   activations whose derivative reads their result keep the output, the rest
   their input; normalizations their input (and statistics, not counted:
   one value per row or channel); pooling by average its input (PyTorch's
   avg_pool2d and adaptive_avg_pool2d backward read it). Movement, shape and
   mean ops and Add/Sub keep nothing: their backward needs only shapes. Mul, Div,
   Where, MaxPool and Gather have their own rules below. An op in neither
   list keeps its inputs and outputs (the most it could). */
static const struct oc_keep_rule oc_keep_rules[] = {
    {"Conv", OC_KEEP_INPUTS}, {"ConvTranspose", OC_KEEP_INPUTS}, {"Gemm", OC_KEEP_INPUTS},
    {"MatMul", OC_KEEP_INPUTS}, {"Einsum", OC_KEEP_INPUTS},
    {"Relu", OC_KEEP_OUTPUT}, {"Sigmoid", OC_KEEP_OUTPUT}, {"Tanh", OC_KEEP_OUTPUT}, {"Softmax", OC_KEEP_OUTPUT},
    {"LogSoftmax", OC_KEEP_OUTPUT}, {"Exp", OC_KEEP_OUTPUT}, {"Sqrt", OC_KEEP_OUTPUT},
    {"Reciprocal", OC_KEEP_OUTPUT},
    {"Clip", OC_KEEP_INPUTS}, {"LeakyRelu", OC_KEEP_INPUTS}, {"Elu", OC_KEEP_INPUTS}, {"Selu", OC_KEEP_INPUTS},
    {"Celu", OC_KEEP_INPUTS}, {"HardSigmoid", OC_KEEP_INPUTS}, {"HardSwish", OC_KEEP_INPUTS},
    {"Softplus", OC_KEEP_INPUTS}, {"Softsign", OC_KEEP_INPUTS}, {"Erf", OC_KEEP_INPUTS}, {"Log", OC_KEEP_INPUTS},
    {"Sin", OC_KEEP_INPUTS}, {"Cos", OC_KEEP_INPUTS}, {"Abs", OC_KEEP_INPUTS}, {"Gelu", OC_KEEP_INPUTS},
    {"Mish", OC_KEEP_INPUTS}, {"PRelu", OC_KEEP_INPUTS}, {"Pow", OC_KEEP_INPUTS}, {"Atan", OC_KEEP_INPUTS},
    {"LayerNormalization", OC_KEEP_INPUTS}, {"BatchNormalization", OC_KEEP_INPUTS},
    {"InstanceNormalization", OC_KEEP_INPUTS}, {"GroupNormalization", OC_KEEP_INPUTS},
    {"RMSNormalization", OC_KEEP_INPUTS}, {"Max", OC_KEEP_INPUTS}, {"Min", OC_KEEP_INPUTS},
    {"ReduceMax", OC_KEEP_ALL}, {"ReduceMin", OC_KEEP_ALL},
    {"Add", OC_KEEP_NOTHING}, {"Sub", OC_KEEP_NOTHING}, {"Neg", OC_KEEP_NOTHING}, {"Sum", OC_KEEP_NOTHING},
    {"Reshape", OC_KEEP_NOTHING}, {"Flatten", OC_KEEP_NOTHING}, {"Squeeze", OC_KEEP_NOTHING},
    {"Unsqueeze", OC_KEEP_NOTHING}, {"Identity", OC_KEEP_NOTHING}, {"Transpose", OC_KEEP_NOTHING},
    {"Slice", OC_KEEP_NOTHING}, {"Concat", OC_KEEP_NOTHING}, {"Split", OC_KEEP_NOTHING},
    {"Expand", OC_KEEP_NOTHING}, {"Pad", OC_KEEP_NOTHING}, {"Tile", OC_KEEP_NOTHING}, {"Resize", OC_KEEP_NOTHING},
    {"Upsample", OC_KEEP_NOTHING}, {"Cast", OC_KEEP_NOTHING}, {"Shape", OC_KEEP_NOTHING}, {"Size", OC_KEEP_NOTHING},
    {"Constant", OC_KEEP_NOTHING}, {"ConstantOfShape", OC_KEEP_NOTHING}, {"Range", OC_KEEP_NOTHING},
    {"Equal", OC_KEEP_NOTHING}, {"Less", OC_KEEP_NOTHING}, {"Greater", OC_KEEP_NOTHING},
    {"LessOrEqual", OC_KEEP_NOTHING}, {"GreaterOrEqual", OC_KEEP_NOTHING}, {"Not", OC_KEEP_NOTHING},
    {"And", OC_KEEP_NOTHING}, {"Or", OC_KEEP_NOTHING}, {"GlobalAveragePool", OC_KEEP_INPUTS},
    {"AveragePool", OC_KEEP_INPUTS}, {"ReduceMean", OC_KEEP_NOTHING}, {"ReduceSum", OC_KEEP_NOTHING},
    {"Dropout", OC_KEEP_NOTHING}, {"Mod", OC_KEEP_NOTHING}, {"Floor", OC_KEEP_NOTHING},
    {"Ceil", OC_KEEP_NOTHING}, {"Round", OC_KEEP_NOTHING}, {"Sign", OC_KEEP_NOTHING},
    {"ScatterND", OC_KEEP_NOTHING}, {"Trilu", OC_KEEP_NOTHING}, {"Gather", OC_KEEP_NOTHING},
    {"Mul", OC_KEEP_NOTHING}, {"Div", OC_KEEP_NOTHING}, {"Where", OC_KEEP_NOTHING}, {"MaxPool", OC_KEEP_NOTHING},
};

static const struct oc_keep_rule *oc_keep_rule_of(const struct oc_node *n) {
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
        return NULL;
    for (size_t k = 0; k < sizeof oc_keep_rules / sizeof *oc_keep_rules; k++)
        if (strcmp(oc_keep_rules[k].op, n->op_type) == 0)
            return &oc_keep_rules[k];
    return NULL;
}

/* A tensor computed in the forward pass (not a weight or a constant). */
static bool oc_is_activation(const struct oc_graph *g, int32_t v) {
    if (v < 0)
        return false;
    const struct oc_value *val = &g->values[v];
    if (val->kind == OC_VALUE_INPUT)
        return true;
    if (val->kind != OC_VALUE_NODE || val->producer < 0)
        return false;
    const struct oc_node *p = &g->nodes[val->producer];
    return !((!p->domain[0] || strcmp(p->domain, "ai.onnx") == 0) && strcmp(p->op_type, "Constant") == 0);
}

/* Whether a gradient flows into v: an activation, or a weight of more than
   one element (a scalar initializer is taken as a constant). */
static bool oc_needs_grad(const struct oc_graph *g, int32_t v) {
    if (v < 0)
        return false;
    uint64_t n;
    if (oc_is_activation(g, v))
        return true;
    return g->values[v].kind == OC_VALUE_INITIALIZER && oc_dtype_is_float(g->values[v].dtype) &&
           oc_value_numel(&g->values[v], &n) && n > 1;
}

/* Bytes autograd would keep for backward in the training forward of the
   model this graph was exported from: each kept tensor once, a view (an
   alias op's output, and Split, Slice, Transpose and Expand, views in
   PyTorch) as the whole tensor it views; with folded_bn, each Conv's output once more and
   two floats per channel (the BatchNorm the export folded keeps its input,
   mean and inverse deviation). False when a kept tensor's
   size is unknown (then a lower bound). */
static bool oc_saved_for_backward(const struct oc_graph *g, bool folded_bn, uint64_t *out, uint32_t *fl) {
    int32_t nv = g->n_values;
    int32_t *root = malloc(((size_t)nv + 1) * sizeof *root);
    bool *keep = calloc((size_t)nv + 1, sizeof *keep);
    bool complete = true;
    *out = 0;
    if (!root || !keep) {
        free(root), free(keep);
        return false;
    }
    for (int32_t v = 0; v < nv; v++)
        root[v] = v;
    for (int32_t s = 0; s < g->n_nodes; s++) { /* views keep the whole tensor they view */
        const struct oc_node *n = &g->nodes[g->order[s]];
        bool onnx = !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0;
        bool view = (n->def && (n->def->flags & OC_OPF_ALIAS)) ||
                    (onnx && (strcmp(n->op_type, "Split") == 0 || strcmp(n->op_type, "Slice") == 0 ||
                              strcmp(n->op_type, "Transpose") == 0 || strcmp(n->op_type, "Expand") == 0));
        if (view && n->n_in > 0 && n->in[0] >= 0 && oc_is_activation(g, n->in[0]))
            for (int32_t k = 0; k < n->n_out; k++)
                if (n->out[k] >= 0)
                    root[n->out[k]] = root[n->in[0]];
    }
#define OC_KEEP(v)                                                                                                   \
    do {                                                                                                             \
        if (oc_is_activation(g, (v)))                                                                                \
            keep[root[(v)]] = true;                                                                                  \
    } while (0)
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        const struct oc_keep_rule *r = oc_keep_rule_of(n);
        int32_t a = n->n_in > 0 ? n->in[0] : -1, b = n->n_in > 1 ? n->in[1] : -1;
        enum oc_keep k = r ? r->keep : OC_KEEP_ALL;
        if (r && strcmp(n->op_type, "Mul") == 0) { /* d(ab)/da = b: each kept for the other's gradient */
            if (oc_needs_grad(g, b))
                OC_KEEP(a);
            if (oc_needs_grad(g, a))
                OC_KEEP(b);
        } else if (r && strcmp(n->op_type, "Div") == 0) { /* a / b: b for a's gradient, both for b's */
            if (oc_is_activation(g, b)) {
                OC_KEEP(a);
                OC_KEEP(b);
            }
        } else if (r && strcmp(n->op_type, "Where") == 0) { /* the condition */
            OC_KEEP(a);
        } else if (r && strcmp(n->op_type, "MaxPool") == 0) { /* the input and the argmax indices */
            OC_KEEP(a);
            uint64_t elems, idx;
            if (n->n_out > 0 && n->out[0] >= 0 && oc_value_numel(&g->values[n->out[0]], &elems)) {
                if (oc_mul_u64(elems, 8, &idx))
                    *fl |= OC_COST_OVERFLOW;
                oc_sum_u64(out, idx, fl);
            } else {
                complete = false;
            }
        } else if (r && strcmp(n->op_type, "Gather") == 0) { /* the indices */
            OC_KEEP(b);
        } else if (k == OC_KEEP_INPUTS || k == OC_KEEP_ALL) {
            for (int32_t j = 0; j < n->n_in; j++)
                OC_KEEP(n->in[j]);
        }
        if (k == OC_KEEP_OUTPUT || k == OC_KEEP_ALL)
            for (int32_t j = 0; j < n->n_out; j++)
                if (n->out[j] >= 0)
                    keep[root[n->out[j]]] = true;
        if (folded_bn && r && (strcmp(n->op_type, "Conv") == 0 || strcmp(n->op_type, "ConvTranspose") == 0) &&
            n->n_out > 0 && n->out[0] >= 0) { /* the folded BatchNorm's input */
            uint64_t bytes;
            const struct oc_value *y = &g->values[n->out[0]];
            if (oc_value_bytes_priced(g, y, &bytes))
                oc_sum_u64(out, bytes, fl);
            else
                complete = false;
            if (y->rank > 1 && y->dims[1].value > 0) /* its mean and inverse deviation per channel (fp32) */
                oc_sum_u64(out, 8 * (uint64_t)y->dims[1].value, fl);
        }
    }
#undef OC_KEEP
    for (int32_t v = 0; v < nv; v++) {
        if (!keep[v])
            continue;
        uint64_t bytes;
        if (oc_value_bytes_priced(g, &g->values[v], &bytes))
            oc_sum_u64(out, bytes, fl);
        else
            complete = false;
    }
    free(root), free(keep);
    return complete;
}

void oc_training_estimate(const struct oc_analysis *an, enum oc_optimizer opt, int64_t samples, bool folded_bn,
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
    uint64_t f_contract = 0, f_other = 0;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (!(n->cost.flags & OC_COST_UNKNOWN))
            oc_sum_u64(n->cost.macs ? &f_contract : &f_other, n->cost.flops, &fl);
    }
    if (!oc_saved_for_backward(g, folded_bn, &out->saved_bytes, &fl))
        out->complete = false;
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
