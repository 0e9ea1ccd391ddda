/*
 * training.c — training-step memory and FLOPs (see training.h).
 */
#include "training.h"

#include "../analyzer/attr.h"
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
   their input; normalizations their input (and their statistics,
   oc_norm_stats_bytes); pooling by average its input (PyTorch's
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

enum { OC_FLOW_ACT = 1, OC_FLOW_GRAD = 2 };

/* For each value: OC_FLOW_ACT when it is computed from a graph input (an
   activation, not a weight or a constant, nor a weight transposed or cast
   in the graph); OC_FLOW_GRAD when a gradient flows into it: an
   activation, or a float computed from a weight of more than one element
   (a scalar initializer is taken as a constant). NULL when out of memory. */
static uint8_t *oc_value_flow(const struct oc_graph *g) {
    uint8_t *flow = calloc((size_t)g->n_values + 1, 1);
    if (!flow)
        return NULL;
    for (int32_t v = 0; v < g->n_values; v++) {
        const struct oc_value *val = &g->values[v];
        uint64_t n;
        if (val->kind == OC_VALUE_INPUT)
            flow[v] = OC_FLOW_ACT | OC_FLOW_GRAD;
        else if (val->kind == OC_VALUE_INITIALIZER && oc_dtype_is_float(val->dtype) && oc_value_numel(val, &n) && n > 1)
            flow[v] = OC_FLOW_GRAD;
    }
    for (int32_t s = 0; s < g->n_nodes; s++) {
        const struct oc_node *n = &g->nodes[g->order[s]];
        uint8_t f = 0;
        for (int32_t j = 0; j < n->n_in; j++)
            if (n->in[j] >= 0)
                f |= flow[n->in[j]];
        for (int32_t j = 0; j < n->n_implicit; j++) /* what its subgraphs read */
            if (n->implicit[j] >= 0)
                f |= flow[n->implicit[j]];
        for (int32_t k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                flow[n->out[k]] = (uint8_t)(f & (oc_dtype_is_float(g->values[n->out[k]].dtype) ? 3 : OC_FLOW_ACT));
    }
    return flow;
}

static bool oc_is_activation(const uint8_t *flow, int32_t v) {
    return v >= 0 && (flow[v] & OC_FLOW_ACT);
}

static bool oc_needs_grad(const uint8_t *flow, int32_t v) {
    return v >= 0 && (flow[v] & OC_FLOW_GRAD);
}

bool oc_dropout_trains(const struct oc_graph *g, const struct oc_node *n) {
    if (n->n_in < 3 || n->in[2] < 0)
        return false;
    const struct oc_value *t = &g->values[n->in[2]];
    if (t->ival && t->n_ival > 0 && t->ival[0] == 0)
        return false;
    if (n->in[1] >= 0) { /* a ratio of 0 drops nothing: the framework returns its input */
        const struct oc_value *r = &g->values[n->in[1]];
        if (r->fval && r->fval[0] == 0.0)
            return false;
    }
    return true;
}

/* The statistics a normalization keeps for backward, fp32 as frameworks
   compute them: LayerNormalization its mean and inverse deviation per row
   (RMSNormalization the inverse root mean square), InstanceNormalization per
   sample and channel (with its scale repeated per sample, which PyTorch's
   affine instance norm passes to its batch norm and keeps), GroupNormalization
   per sample and group, and BatchNormalization per channel; `affine_after`:
   the norm's affine is written after it (a GroupNorm exported before opset
   18), its own scale the exporter's ones, so no scale is repeated. 0 when not a
   normalization or the size is unknown (then a few bytes under). */
static uint64_t oc_norm_stats_bytes(const struct oc_node *n, const struct oc_graph *g, bool affine_after) {
    if (n->n_in < 1 || n->in[0] < 0)
        return 0;
    const struct oc_value *x = &g->values[n->in[0]];
    if (x->rank < 1)
        return 0;
    int64_t groups = 0, axis, per = 2;
    uint64_t rows = 1;
    if (strcmp(n->op_type, "LayerNormalization") == 0 || strcmp(n->op_type, "RMSNormalization") == 0) {
        if (oc_attr_int(n, "axis", -1, &axis, NULL) != OC_OK)
            return 0;
        if (axis < 0)
            axis += x->rank;
        if (axis < 0 || axis > x->rank)
            return 0;
        per = n->op_type[0] == 'R' ? 1 : 2;
    } else if (strcmp(n->op_type, "InstanceNormalization") == 0) {
        axis = 2, per = affine_after ? 2 : 3;
    } else if (strcmp(n->op_type, "GroupNormalization") == 0) {
        if (oc_attr_int(n, "num_groups", 0, &groups, NULL) != OC_OK || groups <= 0)
            return 0;
        axis = 1;
    } else if (strcmp(n->op_type, "BatchNormalization") == 0) { /* training computes them, whatever the export says */
        uint64_t b;
        return x->rank > 1 && x->dims[1].value > 0 && !oc_mul_u64(8, (uint64_t)x->dims[1].value, &b) ? b : 0;
    } else {
        return 0;
    }
    if (axis > x->rank)
        return 0;
    for (int64_t k = 0; k < axis; k++) {
        if (x->dims[k].value < 0 || oc_mul_u64(rows, (uint64_t)x->dims[k].value, &rows))
            return 0;
    }
    if (groups > 0 && oc_mul_u64(rows, (uint64_t)groups, &rows))
        return 0;
    uint64_t bytes;
    return oc_mul_u64(rows, 4 * (uint64_t)per, &bytes) ? 0 : bytes;
}

/* The InstanceNormalization or GroupNormalization whose output value v is,
   or is a view of (through alias ops: a Reshape); -1 when none. */
static int32_t oc_norm_viewed(const struct oc_graph *g, int32_t v) {
    for (int32_t hops = 0; v >= 0 && hops < 16; hops++) {
        int32_t p = g->values[v].producer;
        if (p < 0)
            return -1;
        const struct oc_node *n = &g->nodes[p];
        if (strcmp(n->op_type, "InstanceNormalization") == 0 || strcmp(n->op_type, "GroupNormalization") == 0)
            return p;
        if (!(n->def && (n->def->flags & OC_OPF_ALIAS)) || n->n_in < 1)
            return -1;
        v = n->in[0];
    }
    return -1;
}

/* The pointwise ops a framework runs inside one op (GELU, SiLU,
   LayerNorm, as exporters write them out), and the reduction among them. */
static bool oc_fusable(const struct oc_node *n) {
    static const char *const ops[] = {"Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Reciprocal", "Neg",
                                      "Erf", "Tanh", "Sigmoid", "ReduceMean"};
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
        return false;
    for (size_t k = 0; k < OC_ARRAY_LEN(ops); k++)
        if (strcmp(ops[k], n->op_type) == 0)
            return true;
    return false;
}

/* With OC_SAVED_FUSED_POINTWISE: region[i] >= 0 for each node of a chain
   of two or more pointwise ops that reads one tensor from outside, the
   region's root root[r] (a value index): each node's activation inputs are
   the root or outputs of the chain, and only the chain's last output is
   read outside it. Nodes in no such chain get -1. Region r is numbered by
   the step of its first node. */
static void oc_pointwise_regions(const struct oc_graph *g, const uint8_t *flow, int32_t *region, int32_t *root,
                                 bool *in_region_val) {
    int32_t nn = g->n_nodes;
    int32_t *size = calloc((size_t)nn + 1, sizeof *size);
    for (int32_t i = 0; i < nn; i++)
        region[i] = -1;
    if (!size)
        return;
    /* value -> the region that produced it, via its producer */
    for (int32_t s = 0; s < nn; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (!oc_fusable(n) || n->n_out != 1 || n->out[0] < 0 || !oc_dtype_is_float(g->values[n->out[0]].dtype))
            continue;
        int32_t r = -1, outside = -1;
        bool ok = true;
        for (int32_t j = 0; j < n->n_in && ok; j++) {
            int32_t v = n->in[j];
            if (!oc_is_activation(flow, v))
                continue;
            int32_t p = g->values[v].producer;
            int32_t pr = g->values[v].kind == OC_VALUE_NODE && p >= 0 ? region[p] : -1;
            if (pr >= 0) { /* an output of a chain */
                if (r >= 0 && r != pr)
                    ok = false;
                r = pr;
            } else { /* read from outside: must be the one root */
                if (outside >= 0 && outside != v)
                    ok = false;
                outside = v;
            }
        }
        if (!ok)
            continue;
        if (r >= 0 && outside >= 0 && outside != root[r])
            continue;
        if (r < 0 && outside < 0)
            continue; /* constants only */
        if (r < 0) { /* a new chain from this node */
            r = s;
            root[r] = outside;
        }
        region[i] = r;
        size[r]++;
    }
    /* how often each value is read by a node of the chain that made it */
    int32_t *inside = calloc((size_t)g->n_values + 1, sizeof *inside);
    int32_t *exits = calloc((size_t)nn + 1, sizeof *exits);
    int32_t *pos = malloc(((size_t)nn + 1) * sizeof *pos), *cut = malloc(((size_t)nn + 1) * sizeof *cut);
    if (!inside || !exits || !pos || !cut) {
        for (int32_t i = 0; i < nn; i++)
            region[i] = -1;
        free(inside), free(exits), free(size), free(pos), free(cut);
        return;
    }
    for (int32_t s = 0; s < nn; s++)
        pos[g->order[s]] = s;
    /* a chain that hands a value it reads on to a node outside it as well
       (SiLU's output, read by a squeeze-excite's mean and by its gate) ends
       at that value: the members after it leave the chain, and the rest is
       counted again */
    for (int pass = 0; pass < 8; pass++) {
        memset(inside, 0, ((size_t)g->n_values + 1) * sizeof *inside);
        for (int32_t i = 0; i < nn; i++) {
            const struct oc_node *n = &g->nodes[i];
            for (int32_t j = 0; region[i] >= 0 && j < n->n_in; j++) {
                int32_t v = n->in[j];
                if (v >= 0 && g->values[v].kind == OC_VALUE_NODE && g->values[v].producer >= 0 &&
                    region[g->values[v].producer] == region[i])
                    inside[v]++;
            }
        }
        bool leak = false;
        for (int32_t i = 0; i < nn; i++)
            cut[i] = nn;
        for (int32_t i = 0; i < nn; i++) {
            int32_t r = region[i], y = g->nodes[i].out[0];
            if (r >= 0 && inside[y] > 0 && (inside[y] < g->values[y].n_consumers || g->values[y].is_graph_output) &&
                pos[i] < cut[r]) {
                cut[r] = pos[i];
                leak = true;
            }
        }
        if (!leak)
            break;
        for (int32_t i = 0; i < nn; i++)
            if (region[i] >= 0 && pos[i] > cut[region[i]]) {
                size[region[i]]--;
                region[i] = -1;
            }
    }
    free(pos), free(cut);
    /* each intermediate is read only inside its chain, and one output (the
       chain's result) only outside it; else the nodes keep their own rules */
    for (int32_t i = 0; i < nn; i++) {
        int32_t r = region[i];
        if (r < 0)
            continue;
        int32_t y = g->nodes[i].out[0];
        if (inside[y] == 0)
            exits[r]++;
        else if (inside[y] < g->values[y].n_consumers || g->values[y].is_graph_output)
            exits[r] = nn + 1;
    }
    for (int32_t i = 0; i < nn; i++) {
        int32_t r = region[i];
        if (r >= 0 && (size[r] < 2 || exits[r] != 1))
            region[i] = -1;
    }
    for (int32_t v = 0; v < g->n_values; v++)
        in_region_val[v] = inside[v] > 0 && region[g->values[v].producer] >= 0;
    free(inside), free(exits), free(size);
}

bool oc_pointwise_chains(const struct oc_graph *g, int32_t *region, int32_t *root) {
    uint8_t *flow = oc_value_flow(g);
    bool *in_region_val = calloc((size_t)g->n_values + 1, sizeof *in_region_val);
    if (!flow || !in_region_val) {
        free(flow), free(in_region_val);
        return false;
    }
    oc_pointwise_regions(g, flow, region, root, in_region_val);
    free(flow), free(in_region_val);
    return true;
}

bool *oc_folded_bn_convs(const struct oc_graph *g) {
    bool *bn_in = calloc((size_t)g->n_values + 1, sizeof *bn_in);
    bool *mark = calloc((size_t)g->n_nodes + 1, sizeof *mark);
    if (!bn_in || !mark) {
        free(bn_in), free(mark);
        return NULL;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (oc_node_is(n, "BatchNormalization") && n->n_in > 0 && n->in[0] >= 0)
            bn_in[n->in[0]] = true;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        mark[i] = (oc_node_is(n, "Conv") || oc_node_is(n, "ConvTranspose")) && n->n_in > 2 && n->in[2] >= 0 &&
                  n->n_out > 0 && n->out[0] >= 0 && !bn_in[n->out[0]];
    }
    free(bn_in);
    return mark;
}

/* Bytes autograd would keep for backward in the training forward of the
   model this graph was exported from: each kept tensor once, a view (an
   alias op's output, and Split, Slice, Transpose and Expand, views in
   PyTorch) as the whole tensor it views; a Dropout in training mode its
   mask, at the output's element size (PyTorch on a CPU keeps the scaled
   noise as a float tensor; on a GPU a bool mask); then the saved_rules
   (enum oc_saved_rule). 1, or 0 when a kept tensor's size is unknown (then
   a lower bound), or -1 out of memory. */
static int oc_saved_for_backward(const struct oc_graph *g, unsigned saved_rules, uint64_t *out, uint32_t *fl) {
    int32_t nv = g->n_values, nn = g->n_nodes;
    int32_t *root = malloc(((size_t)nv + 1) * sizeof *root);
    bool *keep = calloc((size_t)nv + 1, sizeof *keep);
    int32_t *region = malloc(((size_t)nn + 1) * sizeof *region);
    int32_t *region_root = malloc(((size_t)nn + 1) * sizeof *region_root);
    bool *in_region_val = calloc((size_t)nv + 1, sizeof *in_region_val);
    uint8_t *flow = oc_value_flow(g);
    bool *folded = saved_rules & OC_SAVED_FOLDED_BN ? oc_folded_bn_convs(g) : NULL;
    int32_t *affine_of = malloc(((size_t)nn + 1) * sizeof *affine_of); /* per region: the norm it is the affine of */
    bool *affine_after = calloc((size_t)nn + 1, sizeof *affine_after); /* per node: a norm with its affine after it */
    bool complete = true;
    *out = 0;
    if (!root || !keep || !region || !region_root || !in_region_val || !flow || !affine_of || !affine_after ||
        (!folded && (saved_rules & OC_SAVED_FOLDED_BN))) {
        free(root), free(keep), free(region), free(region_root), free(in_region_val), free(flow), free(folded);
        free(affine_of), free(affine_after);
        return -1;
    }
    for (int32_t v = 0; v < nv; v++)
        root[v] = v;
    for (int32_t i = 0; i < nn; i++)
        region[i] = -1;
    if (saved_rules & OC_SAVED_FUSED_POINTWISE)
        oc_pointwise_regions(g, flow, region, region_root, in_region_val);
    for (int32_t s = 0; s < nn; s++) { /* views keep the whole tensor they view */
        const struct oc_node *n = &g->nodes[g->order[s]];
        bool onnx = !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0;
        bool view = (n->def && (n->def->flags & OC_OPF_ALIAS)) ||
                    (onnx && (strcmp(n->op_type, "Split") == 0 || strcmp(n->op_type, "Slice") == 0 ||
                              strcmp(n->op_type, "Transpose") == 0 || strcmp(n->op_type, "Expand") == 0));
        if (onnx && strcmp(n->op_type, "Dropout") == 0 && oc_dropout_trains(g, n))
            view = false; /* a new tensor, the input times the mask */
        if (view && n->n_in > 0 && n->in[0] >= 0 && oc_is_activation(flow, n->in[0]))
            for (int32_t k = 0; k < n->n_out; k++)
                if (n->out[k] >= 0)
                    root[n->out[k]] = root[n->in[0]];
    }
    /* a written-out normalization's affine (GroupNorm exported before opset
       18: InstanceNormalization, Reshape, Mul by the weight, Add of the
       bias), a chain of Muls and Adds by weights whose tensor from outside
       is (a view of) a norm's output: one op with the norm, as PyTorch's
       group norm is, keeping nothing of its own */
    for (int32_t r = 0; r < nn; r++)
        affine_of[r] = -2; /* not looked at yet */
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[i];
        int32_t r = region[i];
        if (r < 0)
            continue;
        if (affine_of[r] == -2)
            affine_of[r] = oc_norm_viewed(g, region_root[r]);
        int32_t acts = 0;
        for (int32_t j = 0; j < n->n_in; j++)
            acts += oc_is_activation(flow, n->in[j]);
        if (!(strcmp(n->op_type, "Mul") == 0 || strcmp(n->op_type, "Add") == 0) || n->n_in != 2 || acts != 1)
            affine_of[r] = -1;
    }
    for (int32_t r = 0; r < nn; r++)
        if (affine_of[r] >= 0)
            affine_after[affine_of[r]] = true;
#define OC_KEEP(v)                                                                                                  \
    do {                                                                                                            \
        if (oc_is_activation(flow, (v)))                                                                            \
            keep[root[(v)]] = true;                                                                                 \
    } while (0)
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[i];
        const struct oc_keep_rule *r = oc_keep_rule_of(n);
        int32_t a = n->n_in > 0 ? n->in[0] : -1, b = n->n_in > 1 ? n->in[1] : -1;
        enum oc_keep k = r ? r->keep : OC_KEEP_ALL;
        if (region[i] >= 0) { /* one fused op: its root, and its reductions (LayerNorm's statistics) */
            if (affine_of[region[i]] < 0)
                OC_KEEP(region_root[region[i]]);
            if (strcmp(n->op_type, "ReduceMean") == 0 && n->out[0] >= 0)
                keep[root[n->out[0]]] = true;
            continue;
        }
        if (r && strcmp(n->op_type, "Mul") == 0) { /* d(ab)/da = b: each kept for the other's gradient */
            if (oc_needs_grad(flow, b))
                OC_KEEP(a);
            if (oc_needs_grad(flow, a))
                OC_KEEP(b);
        } else if (r && strcmp(n->op_type, "Div") == 0) { /* a / b: b for a's gradient, both for b's */
            if (oc_is_activation(flow, b)) {
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
        } else if (r && strcmp(n->op_type, "Dropout") == 0) { /* its mask, as wide as its output */
            uint64_t bytes;
            if (oc_dropout_trains(g, n) && n->n_out > 0 && n->out[0] >= 0) {
                if (oc_value_bytes_priced(g, &g->values[n->out[0]], &bytes))
                    oc_sum_u64(out, bytes, fl);
                else
                    complete = false;
            }
        } else if (k == OC_KEEP_INPUTS || k == OC_KEEP_ALL) {
            for (int32_t j = 0; j < n->n_in; j++)
                OC_KEEP(n->in[j]);
        }
        if (r)
            oc_sum_u64(out, oc_norm_stats_bytes(n, g, affine_after[i]), fl);
        if (k == OC_KEEP_OUTPUT || k == OC_KEEP_ALL)
            for (int32_t j = 0; j < n->n_out; j++)
                if (n->out[j] >= 0)
                    keep[root[n->out[j]]] = true;
        if (folded && folded[i]) { /* the folded BatchNorm's input */
            uint64_t bytes;
            const struct oc_value *y = &g->values[n->out[0]];
            if (oc_value_bytes_priced(g, y, &bytes))
                oc_sum_u64(out, bytes, fl);
            else
                complete = false;
            uint64_t stats;
            if (y->rank > 1 && y->dims[1].value > 0) { /* its mean and inverse deviation per channel (fp32) */
                if (oc_mul_u64(8, (uint64_t)y->dims[1].value, &stats))
                    *fl |= OC_COST_OVERFLOW;
                oc_sum_u64(out, stats, fl);
            }
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
    free(root), free(keep), free(region), free(region_root), free(in_region_val), free(flow), free(folded);
    free(affine_of), free(affine_after);
    return complete ? 1 : 0;
}

/* The signs in g of the rules saved_rules leaves out (struct
   oc_export_signs); false when out of memory. */
static bool oc_export_signs_of(const struct oc_graph *g, unsigned saved_rules, struct oc_export_signs *s) {
    int32_t nn = g->n_nodes;
    memset(s, 0, sizeof *s);
    if (!(saved_rules & OC_SAVED_FOLDED_BN)) {
        bool *folded = oc_folded_bn_convs(g);
        if (!folded)
            return false;
        for (int32_t i = 0; i < nn; i++)
            s->biased_convs += folded[i];
        free(folded);
    }
    if (s->biased_convs > 0)
        s->rules |= OC_SAVED_FOLDED_BN;
    if (saved_rules & OC_SAVED_FUSED_POINTWISE)
        return true;
    int32_t *region = malloc(((size_t)nn + 1) * sizeof *region), *root = malloc(((size_t)nn + 1) * sizeof *root);
    bool *in_region_val = calloc((size_t)g->n_values + 1, sizeof *in_region_val);
    uint8_t *kind = calloc((size_t)nn + 1, 1), *flow = oc_value_flow(g);
    bool ok = region && root && in_region_val && kind && flow;
    if (ok) {
        oc_pointwise_regions(g, flow, region, root, in_region_val);
        enum { GELU = 1, NORM = 2, SILU = 4, SEEN = 8 };
        for (int32_t i = 0; i < nn; i++) {
            const char *op = g->nodes[i].op_type;
            if (region[i] < 0)
                continue;
            kind[region[i]] |= (uint8_t)(SEEN | (strcmp(op, "Erf") == 0 || strcmp(op, "Tanh") == 0 ? GELU : 0) |
                                         (strcmp(op, "ReduceMean") == 0 || oc_norm_viewed(g, root[region[i]]) >= 0
                                              ? NORM
                                              : 0) |
                                         (strcmp(op, "Sigmoid") == 0 ? SILU : 0));
        }
        for (int32_t r = 0; r < nn; r++) {
            if (!(kind[r] & SEEN))
                continue;
            s->chains++;
            if (kind[r] & NORM)
                s->norm_chains++;
            else if (kind[r] & GELU)
                s->gelu_chains++;
            else if (kind[r] & SILU)
                s->silu_chains++;
        }
        if (s->chains)
            s->rules |= OC_SAVED_FUSED_POINTWISE;
    }
    free(region), free(root), free(in_region_val), free(kind), free(flow);
    return ok;
}

/* Parameters, gradients, optimizer state and saved activations, summed
   into *total (saturating: fl says so). */
static void oc_training_total(const struct oc_training *tr, uint64_t saved, uint64_t *total, uint32_t *fl) {
    *total = 0;
    oc_sum_u64(total, tr->param_bytes, fl);
    oc_sum_u64(total, tr->grad_bytes, fl);
    oc_sum_u64(total, tr->optimizer_bytes, fl);
    oc_sum_u64(total, saved, fl);
}

/* The estimate *out with rules in place of its own: the saved bytes and
   the total. */
static enum oc_status oc_training_alt_of(const struct oc_analysis *an, const struct oc_training *tr, unsigned rules,
                                         struct oc_training_alt *alt) {
    uint32_t fl = 0;
    alt->rules = rules;
    int saved = oc_saved_for_backward(an->graph, rules, &alt->saved_bytes, &fl);
    if (saved < 0)
        return OC_ERR_NOMEM;
    alt->complete = saved && an->totals.n_uncosted == 0;
    oc_training_total(tr, alt->saved_bytes, &alt->total_bytes, &fl);
    if (fl) /* a saturated figure is a lower bound */
        alt->complete = false;
    return OC_OK;
}

void oc_training_estimate(const struct oc_analysis *an, enum oc_optimizer opt, int64_t samples, unsigned saved_rules,
                          struct oc_training *out) {
    const struct oc_graph *g = an->graph;
    const struct oc_totals *t = &an->totals;
    uint32_t fl = 0;
    memset(out, 0, sizeof *out);
    out->optimizer = opt;
    out->saved_rules = saved_rules;
    out->complete = t->n_uncosted == 0;
    out->param_bytes = t->params_bytes;
    out->grad_bytes = t->params_bytes - t->non_trainable_bytes;
    static const uint64_t states[] = {[OC_OPT_SGD] = 0, [OC_OPT_MOMENTUM] = 1, [OC_OPT_ADAM] = 2};
    if (oc_mul_u64(out->grad_bytes, states[opt], &out->optimizer_bytes))
        fl |= OC_COST_OVERFLOW;
    uint64_t f_contract = 0, f_other = 0;
    uint32_t ffl = 0; /* the FLOPs' own overflow */
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (!(n->cost.flags & OC_COST_UNKNOWN))
            oc_sum_u64(n->cost.macs ? &f_contract : &f_other, n->cost.flops, &ffl);
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (oc_node_is(n, "Dropout") && oc_dropout_trains(g, n))
            out->training_dropouts++;
    }
    int saved = oc_saved_for_backward(g, saved_rules, &out->saved_bytes, &fl);
    if (saved <= 0)
        out->complete = false;
    out->out_of_memory = saved < 0;
    oc_training_total(out, out->saved_bytes, &out->total_bytes, &fl);
    uint64_t a, b; /* each step saturating: a product past 64 bits makes the sum 2^64 - 1, not a part of it */
    bool over = oc_mul_u64(f_contract, 3, &a);
    over |= oc_mul_u64(f_other, 2, &b);
    if (oc_add_u64(a, b, &out->step_flops) || over)
        ffl |= OC_COST_OVERFLOW;
    out->flops_complete = oc_totals_exact(t) && !ffl;
    fl |= ffl;
    out->batch = -1;
    if (g->n_inputs > 0) {
        const struct oc_value *in = &g->values[g->inputs[0]];
        if (in->rank > 0 && in->dims[0].value > 0)
            out->batch = in->dims[0].value;
    }
    out->samples = samples;
    if (samples > 0 && out->batch > 0) {
        uint64_t steps = (uint64_t)(samples / out->batch + (samples % out->batch != 0));
        if (oc_mul_u64(steps, out->step_flops, &out->epoch_flops)) {
            fl |= OC_COST_OVERFLOW;
            out->flops_complete = false;
        }
    }
    out->overflow = fl != 0;
}

enum oc_status oc_training_signs(const struct oc_analysis *an, struct oc_training *tr) {
    tr->n_alts = 0;
    if (tr->out_of_memory)
        return OC_ERR_NOMEM;
    if (!oc_export_signs_of(an->graph, tr->saved_rules, &tr->signs))
        return OC_ERR_NOMEM;
    static const unsigned bits[] = {OC_SAVED_FOLDED_BN, OC_SAVED_FUSED_POINTWISE};
    for (size_t k = 0; k < OC_ARRAY_LEN(bits); k++)
        if ((tr->signs.rules & bits[k]) &&
            oc_training_alt_of(an, tr, tr->saved_rules | bits[k], &tr->alts[tr->n_alts++]) != OC_OK)
            return OC_ERR_NOMEM;
    if (tr->n_alts > 1)
        return oc_training_alt_of(an, tr, tr->saved_rules | tr->signs.rules, &tr->alts[tr->n_alts++]);
    return OC_OK;
}
