/*
 * autocast.c — the tensor types PyTorch's autocast gives an exported fp32
 * graph's nodes (perf.h, oc_perf_opts.autocast; docs/MODEL.md "Autocast"),
 * as a runtime plan's widths, compute types and cast kernels.
 *
 * Under torch.autocast(dtype=fp16 or bf16) on CUDA:
 *   - the contractions (convolutions, matrix products, the fused attention)
 *     and PRelu run in the low type: each fp32 input is cast first, a kernel of its
 *     own (an activation at every use; a weight once per forward, which
 *     autocast's cache keeps), and they write the low type;
 *   - the ops autocast runs in fp32 (layer, group and instance
 *     normalization, pow, exp, log, reciprocal, softplus, logsumexp) cast a
 *     low-type input up, a kernel of its own, and write fp32: a model's
 *     "fp32 islands"; those it gives an fp32 result type instead (softmax,
 *     log-softmax, sum, prod, cumsum, the vector norms: its
 *     fp32_set_opt_dtype policy) read their input as it is, no cast, and
 *     write fp32;
 *   - every other op computes in the widest type among its inputs of one
 *     dimension or more (an fp32 parameter such as a layer scale, a
 *     position embedding or StarReLU's scale widens a half tensor; a
 *     0-dimensional constant, a Python number in the source, does not),
 *     a BatchNorm, a Resize, a Pad, a Clip and a Dropout in their data
 *     input's type; the widening is inside the kernel, no cast of its own.
 * Under torch.compile an activation's cast is part of the fused kernel that
 * writes it (Inductor), no kernel of its own; a weight's stays.
 * The file's own float tensors are taken as what PyTorch held: an fp32
 * tensor is fp32, an fp16 one fp16. A runtime group (perf.h,
 * oc_runtime_plan) is one op: attention and a Linear in the low type, a
 * pointwise chain (GELU, SiLU) in its inputs' widest type.
 */
#include "perf.h"
#include "terms.h"

#include "../../analyzer/dtype.h"

#include <stdlib.h>
#include <string.h>

enum oc_ac_class { OC_AC_LOW, OC_AC_FP32, OC_AC_FP32_OUT, OC_AC_FIRST, OC_AC_PROMOTE };

static bool oc_ac_in(const struct oc_node *n, const char *const *ops, size_t k) {
    for (size_t i = 0; i < k; i++)
        if (oc_node_is(n, ops[i]))
            return true;
    return false;
}

static enum oc_ac_class oc_ac_class_of(const struct oc_runtime_plan *p, const struct oc_node *n) {
    static const char *const fp32[] = {"LayerNormalization", "GroupNormalization", "InstanceNormalization",
                                       "Pow", "Exp", "Log", "Reciprocal", "Softplus", "ReduceLogSumExp"};
    static const char *const fp32_out[] = {"Softmax", "LogSoftmax", "ReduceSum", "ReduceProd", "ReduceL1",
                                           "ReduceL2", "ReduceSumSquare", "CumSum", "LpNormalization"};
    static const char *const first[] = {"BatchNormalization", "Resize", "Upsample", "Pad", "Clip", "Dropout"};
    int32_t anchor = p->anchor[n->index];
    if (anchor >= 0)
        return p->kind[anchor] == OC_RT_POINTWISE || p->kind[anchor] == OC_RT_VIEW ? OC_AC_PROMOTE
               : p->kind[anchor] == OC_RT_NORM ? OC_AC_FP32
                                               : OC_AC_LOW;
    if (oc_perf_library_contraction(n) || oc_node_is(n, "PRelu"))
        return OC_AC_LOW;
    if (oc_ac_in(n, fp32, sizeof fp32 / sizeof fp32[0]))
        return OC_AC_FP32;
    if (oc_ac_in(n, fp32_out, sizeof fp32_out / sizeof fp32_out[0]))
        return OC_AC_FP32_OUT;
    if (oc_ac_in(n, first, sizeof first / sizeof first[0]))
        return OC_AC_FIRST;
    return OC_AC_PROMOTE;
}

static bool oc_ac_float(const struct oc_graph *g, int32_t v) {
    return v >= 0 && oc_dtype_is_float(g->values[v].dtype) && !g->values[v].nt;
}

/* an input that widens the op's type: a float tensor of one dimension or more */
static bool oc_ac_widens(const struct oc_graph *g, int32_t v) { return oc_ac_float(g, v) && g->values[v].rank >= 1; }

/* a weight or a constant: a tensor autocast's cache casts once per forward */
static bool oc_ac_constant(const struct oc_graph *g, int32_t v) {
    const struct oc_value *x = &g->values[v];
    return x->kind == OC_VALUE_INITIALIZER || (x->producer >= 0 && oc_node_is(&g->nodes[x->producer], "Constant"));
}

static double oc_ac_numel(const struct oc_graph *g, int32_t v) {
    uint64_t n = 0;
    return v >= 0 && oc_value_numel(&g->values[v], &n) ? (double)n : 0;
}

/* the bytes per element of a float value as the file holds it */
static uint8_t oc_ac_own_width(const struct oc_graph *g, int32_t v) {
    int32_t bits = oc_dtype_bits(g->values[v].dtype);
    return (uint8_t)(bits >= 8 ? bits / 8 : 1);
}

enum oc_status oc_autocast_types(const struct oc_graph *g, int32_t low, struct oc_runtime_plan *p) {
    const uint8_t lw = (uint8_t)(oc_dtype_bits(low) / 8);
    bool *cast_once = calloc((size_t)g->n_values + 1, sizeof *cast_once);
    if (!cast_once)
        return OC_ERR_NOMEM;
    for (int32_t v = 0; v < g->n_values; v++) /* the graph's inputs and weights: as the file holds them */
        if (oc_ac_float(g, v) && g->values[v].producer < 0)
            p->width[v] = oc_ac_own_width(g, v);
    for (int32_t s = 0; s < g->n_nodes; s++) {
        const struct oc_node *n = &g->nodes[g->order[s]];
        enum oc_ac_class c = oc_ac_class_of(p, n);
        int32_t anchor = p->anchor[n->index];
        int32_t at = anchor >= 0 ? anchor : n->index; /* the kernel a cast is charged to */
        uint8_t out = 0;
        if (c == OC_AC_LOW || c == OC_AC_FP32) {
            uint8_t want = c == OC_AC_LOW ? lw : 4;
            for (int32_t k = 0; k < n->n_in; k++) {
                int32_t v = n->in[k];
                const struct oc_node *w =
                    v >= 0 && g->values[v].producer >= 0 ? &g->nodes[g->values[v].producer] : NULL;
                if (!oc_ac_float(g, v) || p->width[v] == want || (w && anchor >= 0 && p->anchor[w->index] == anchor))
                    continue; /* not a float, already the type, or made inside the same group */
                if (c == OC_AC_FP32 && k > 0)
                    continue; /* a normalization's scale and bias: its fp32 parameters, read as they are */
                if (oc_ac_constant(g, v)) {
                    if (cast_once[v])
                        continue;
                    cast_once[v] = true;
                } else if (p->runtime == OC_RUNTIME_TORCH_COMPILE) {
                    continue; /* Inductor casts an activation in the kernel that writes it */
                }
                if (g->values[v].rank < 1)
                    continue; /* a number: no kernel */
                p->extra_bytes[at] += oc_ac_numel(g, v) * (double)(p->width[v] + want);
                p->extra_kernels[at]++;
            }
            out = want;
        } else if (c == OC_AC_FP32_OUT) {
            out = 4; /* computed in fp32 from its input as it is: no cast */
        } else if (c == OC_AC_FIRST) {
            out = n->n_in > 0 && oc_ac_float(g, n->in[0]) ? p->width[n->in[0]] : 0;
        } else {
            for (int32_t k = 0; k < n->n_in; k++)
                if (oc_ac_widens(g, n->in[k]) && p->width[n->in[k]] > out)
                    out = p->width[n->in[k]];
        }
        for (int32_t k = 0; k < n->n_out; k++) {
            int32_t v = n->out[k];
            if (!oc_ac_float(g, v))
                continue;
            /* a Cast names its type; an op of no float input keeps the file's */
            p->width[v] = oc_node_is(n, "Cast") || !out ? oc_ac_own_width(g, v) : out;
        }
        if (n->n_out > 0 && oc_ac_float(g, n->out[0]))
            p->dtype[n->index] = p->width[n->out[0]] == lw ? low : OC_DT_FLOAT;
        if (c == OC_AC_LOW)
            p->dtype[n->index] = low;
    }
    free(cast_once);
    return OC_OK;
}

/* The bytes of value v as node n reads it (in: true) or writes it, in a
   plan with widths: a contraction reads its inputs cast to the low type, an
   fp32 op its data input cast up; 0 when unknown. */
double oc_autocast_value_bytes(const struct oc_graph *g, const struct oc_runtime_plan *p, const struct oc_node *n,
                               int32_t v, bool in) {
    if (v < 0)
        return 0;
    if (!p->width || !oc_ac_float(g, v) || !p->width[v]) {
        uint64_t b = 0;
        return oc_value_bytes_priced(g, &g->values[v], &b) ? (double)b : 0;
    }
    uint8_t w = p->width[v];
    if (in && n) {
        enum oc_ac_class c = oc_ac_class_of(p, n);
        if (c == OC_AC_LOW)
            w = (uint8_t)(oc_dtype_bits(p->autocast) / 8);
        else if (c == OC_AC_FP32 && n->n_in > 0 && n->in[0] == v)
            w = 4;
    }
    return oc_ac_numel(g, v) * w;
}

const char *oc_autocast_name(int32_t low) { return low == OC_DT_BFLOAT16 ? "bf16" : low == OC_DT_FLOAT16 ? "fp16" : "?"; }
