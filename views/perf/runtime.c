/*
 * runtime.c — the kernels a runtime runs for the nodes of an exported graph
 * (perf.h, enum oc_runtime; docs/MODEL.md "Runtimes"). The file is what an
 * exporter wrote; eager PyTorch, which timm's published rows measured, runs
 * some groups of its nodes as one kernel and one folded node as two:
 *   - attention, written as MatMul (Q x K^T), an optional scale (Mul or Div
 *     by a constant) and mask (Add), Softmax and MatMul (x V), runs as one
 *     scaled-dot-product kernel (flash or memory-efficient): the FLOPs of
 *     all of them, the bytes of Q, K, V, the mask and the output, never the
 *     scores;
 *   - a Linear written as MatMul and Add of a constant bias runs as one
 *     GEMM with the bias in its epilogue;
 *   - a function of one tensor written as several pointwise nodes (GELU as
 *     Div, Erf, Add, Mul, Mul; SiLU as Sigmoid and Mul; LayerNorm written
 *     out) runs as one kernel: read once, written once (the chains of
 *     training.h's oc_pointwise_chains);
 *   - GroupNorm, written as InstanceNormalization between Reshapes and its
 *     affine as Mul and Add of constants, runs as torch's one group_norm;
 *   - a permute, a slice, a split, an expand, a squeeze or an unsqueeze
 *     that only elementwise ops, torch.cat or other such views read stays
 *     a strided view, no kernel; so does a permute the memory format makes free
 *     (layout.h: NCHW and NHWC, and tokens (B, N, C) and images
 *     (B, C, H, W) through flatten and view);
 *   - addcmul, written as Mul, Mul by its value 1 and Add, is one kernel;
 *   - index arithmetic over shapes alone (the indices an export computes
 *     for a slice assignment, a parameter expanded to the batch) is no
 *     kernel, and the slice assignment (ScatterND) writes its update in
 *     place;
 *   - a BatchNorm the export folded into the convolution before it (a Conv
 *     with a bias that no BatchNormalization reads, training.h's sign) runs
 *     after it as a kernel of its own: one pass over the output, read and
 *     written. A convolution's own bias costs the same: cuDNN's
 *     convolution takes none, and PyTorch adds it in a kernel of its own.
 * Signs, not proof: a hand-written chain of two torch ops is taken as one,
 * a convolution built with a bias as one with a BatchNorm after it.
 */
#include "perf.h"
#include "layout.h"
#include "terms.h"

#include "../training.h"

#include "../../analyzer/attr.h"
#include "../../analyzer/dtype.h"
#include "../../analyzer/model.h"

#include <stdlib.h>
#include <string.h>

static const char *const oc_runtime_names[OC_RUNTIME_COUNT] = {"nodes", "torch-eager", "torch-compile"};

const char *oc_runtime_name(enum oc_runtime r) {
    return (unsigned)r < OC_RUNTIME_COUNT ? oc_runtime_names[r] : "?";
}

bool oc_runtime_parse(const char *s, enum oc_runtime *out) {
    for (int r = 0; s && r < OC_RUNTIME_COUNT; r++)
        if (strcmp(s, oc_runtime_names[r]) == 0) {
            *out = (enum oc_runtime)r;
            return true;
        }
    return false;
}

const char *oc_runtime_description(enum oc_runtime r) {
    if (r == OC_RUNTIME_TORCH_COMPILE)
        return "torch.compile (Inductor): attention, matrix products and convolutions as library kernels, every "
               "region of other nodes between them fused into one kernel";
    return r == OC_RUNTIME_TORCH_EAGER
               ? "eager PyTorch: attention as one fused kernel, a Linear's bias in its GEMM, GELU, SiLU or a "
                 "normalization written as several pointwise nodes as one kernel, GroupNorm as one, a permute, slice, "
                 "split or expand only elementwise ops or torch.cat read as a view, index arithmetic over shapes as "
                 "none, a BatchNorm the export folded as a pass of its own"
               : "one kernel per node, as the file has them";
}

/* ---- the graph's shape of things ------------------------------------------------- */

/* a weight, a Constant node's tensor or contents the analysis knows */
static bool oc_rt_constant(const struct oc_graph *g, int32_t v) {
    const struct oc_value *x = &g->values[v];
    return x->kind == OC_VALUE_INITIALIZER || x->ival || x->fval ||
           (x->producer >= 0 && oc_node_is(&g->nodes[x->producer], "Constant"));
}

/* the node that writes v, or NULL */
static const struct oc_node *oc_rt_producer(const struct oc_graph *g, int32_t v) {
    return v >= 0 && g->values[v].producer >= 0 ? &g->nodes[g->values[v].producer] : NULL;
}

/* v is read by exactly one node input and is no graph output */
static bool oc_rt_single_use(const struct oc_graph *g, int32_t v) {
    return v >= 0 && g->values[v].n_consumers == 1 && !g->values[v].is_graph_output;
}

static bool oc_rt_is(const struct oc_node *n, const char *op) { return n && oc_node_is(n, op); }

/* A value's bytes as the model prices them (--dtype), 0 when unknown. */
static double oc_rt_bytes(const struct oc_graph *g, int32_t v) {
    uint64_t b = 0;
    return v >= 0 && oc_value_bytes_priced(g, &g->values[v], &b) ? (double)b : 0;
}

/* ---- the plan ----------------------------------------------------------------------- */

static void oc_rt_join(struct oc_runtime_plan *p, const struct oc_node *member, const struct oc_node *anchor) {
    p->anchor[member->index] = anchor->index;
}

/* The group's bytes (its members: m[0..n)): every value they read that no
   member writes, once, and every value a member writes that something else
   reads (a value only members read stays on chip). seen and reads: all
   false and 0 on entry, and left so. */
static double oc_rt_group_bytes(const struct oc_graph *g, const struct oc_runtime_plan *p, int32_t anchor,
                                const int32_t *m, int32_t n, bool *seen, int32_t *reads) {
    double bytes = 0;
    for (int32_t i = 0; i < n; i++) {
        const struct oc_node *x = &g->nodes[m[i]];
        for (int32_t k = 0; k < x->n_in; k++) {
            int32_t v = x->in[k];
            if (v < 0)
                continue;
            reads[v]++; /* the members' reads of it */
            const struct oc_node *w = oc_rt_producer(g, v);
            if (seen[v] || (w && p->anchor[w->index] == anchor))
                continue;
            seen[v] = true;
            bytes += oc_autocast_value_bytes(g, p, x, v, true);
        }
    }
    for (int32_t i = 0; i < n; i++) {
        const struct oc_node *x = &g->nodes[m[i]];
        for (int32_t k = 0; k < x->n_out; k++) {
            int32_t v = x->out[k];
            if (v < 0 || seen[v])
                continue;
            seen[v] = true;
            if (g->values[v].is_graph_output || g->values[v].n_consumers > reads[v])
                bytes += oc_autocast_value_bytes(g, p, x, v, false);
        }
    }
    for (int32_t i = 0; i < n; i++) { /* back to all false and 0 */
        const struct oc_node *x = &g->nodes[m[i]];
        for (int32_t k = 0; k < x->n_in + x->n_out; k++) {
            int32_t v = k < x->n_in ? x->in[k] : x->out[k - x->n_in];
            if (v >= 0)
                seen[v] = false, reads[v] = 0;
        }
    }
    return bytes;
}

static bool oc_rt_view_op(const struct oc_node *n) {
    static const char *const views[] = {"Transpose", "Split", "Reshape", "Squeeze", "Unsqueeze", "Gather", "Slice"};
    for (size_t i = 0; n && i < sizeof views / sizeof views[0]; i++)
        if (oc_node_is(n, views[i]))
            return true;
    return false;
}

/* What eager PyTorch hands the attention kernel as strided views of one
   buffer (q, k, v split from a projection and permuted; K transposed) and
   the scale it applies inside (written on a product or on one of those
   views): a node not in a group whose every output only the attention's
   members read joins it, until none does. m[0..n): the group's members so
   far (room for OC_RT_GROUP_MAX). */
enum { OC_RT_GROUP_MAX = 64 };
static void oc_rt_views(const struct oc_graph *g, struct oc_runtime_plan *p, const struct oc_node *m2, int32_t *m,
                        int32_t n) {
    for (int32_t i = 0; i < n && n < OC_RT_GROUP_MAX; i++) {
        const struct oc_node *x = &g->nodes[m[i]];
        for (int32_t k = 0; k < x->n_in && n < OC_RT_GROUP_MAX; k++) {
            const struct oc_node *w = oc_rt_producer(g, x->in[k]);
            bool scale = w && (oc_rt_is(w, "Mul") || oc_rt_is(w, "Div")) && w->n_in == 2 && w->in[1] >= 0 &&
                         oc_rt_constant(g, w->in[1]) && (oc_rt_is(x, "MatMul") || oc_rt_view_op(x));
            if (!w || p->anchor[w->index] >= 0 || (!oc_rt_view_op(w) && !scale))
                continue;
            bool only = true;
            for (int32_t o = 0; o < w->n_out && only; o++) {
                int32_t v = w->out[o], reads = 0;
                if (v < 0)
                    continue;
                for (int32_t j = 0; j < n; j++)
                    for (int32_t q = 0; q < g->nodes[m[j]].n_in; q++)
                        reads += g->nodes[m[j]].in[q] == v;
                only = !g->values[v].is_graph_output && reads == g->values[v].n_consumers;
            }
            if (only) {
                oc_rt_join(p, w, m2);
                m[n++] = w->index;
            }
        }
    }
}

/* attention ending at the MatMul m2: MatMul(A, B) whose A is Softmax's (or
   MatMul(V, B) whose B is Softmax's transposed), whose input is (Add of a
   mask)? (Mul or Div by a constant)? MatMul m1 */
static void oc_rt_attention(const struct oc_graph *g, struct oc_runtime_plan *p, const struct oc_node *m2) {
    if (!oc_rt_is(m2, "MatMul") || p->anchor[m2->index] >= 0 || m2->n_in < 2)
        return;
    const struct oc_node *chain[5];
    int32_t n = 0, probs = m2->in[0];
    const struct oc_node *x = oc_rt_producer(g, probs), *t = oc_rt_producer(g, m2->in[1]);
    if (!oc_rt_is(x, "Softmax") && oc_layout_swaps_last_two(t) && oc_rt_single_use(g, m2->in[1]) &&
        p->anchor[t->index] < 0) { /* V @ P^T, the layout of channels-first attention (MaxViT's, CoAtNet's) */
        chain[n++] = t;
        probs = t->in[0];
        x = oc_rt_producer(g, probs);
    }
    if (!oc_rt_is(x, "Softmax") || !oc_rt_single_use(g, probs) || p->anchor[x->index] >= 0)
        return;
    chain[n++] = x;
    x = oc_rt_producer(g, x->in[0]);
    int32_t via = chain[n - 1]->in[0];
    if (oc_rt_is(x, "Add") && oc_rt_single_use(g, via) && p->anchor[x->index] < 0) { /* a mask */
        chain[n++] = x;
        const struct oc_node *a = oc_rt_producer(g, x->in[0]), *b = oc_rt_producer(g, x->in[1]);
        via = oc_rt_is(a, "MatMul") || oc_rt_is(a, "Mul") || oc_rt_is(a, "Div") ? x->in[0] : x->in[1];
        x = via == x->in[0] ? a : b;
    }
    if ((oc_rt_is(x, "Mul") || oc_rt_is(x, "Div")) && oc_rt_single_use(g, via) && p->anchor[x->index] < 0 &&
        x->n_in == 2 && x->in[1] >= 0 && oc_rt_constant(g, x->in[1])) { /* the scale */
        chain[n++] = x;
        via = x->in[0];
        x = oc_rt_producer(g, via);
    }
    if (!oc_rt_is(x, "MatMul") || !oc_rt_single_use(g, via) || p->anchor[x->index] >= 0)
        return;
    chain[n++] = x;
    int32_t m[OC_RT_GROUP_MAX];
    for (int32_t i = 0; i < n; i++) {
        oc_rt_join(p, chain[i], m2);
        m[i] = chain[i]->index;
    }
    oc_rt_join(p, m2, m2);
    m[n++] = m2->index;
    p->kind[m2->index] = OC_RT_ATTENTION;
    oc_rt_views(g, p, m2, m, n);
}

/* a Linear: Add(contraction's output, constant) with the output read only there */
static void oc_rt_bias(const struct oc_graph *g, struct oc_runtime_plan *p, const struct oc_node *add) {
    if (!oc_rt_is(add, "Add") || p->anchor[add->index] >= 0 || add->n_in != 2)
        return;
    for (int k = 0; k < 2; k++) {
        const struct oc_node *c = oc_rt_producer(g, add->in[k]);
        if (oc_rt_is(c, "MatMul") && p->anchor[c->index] < 0 && oc_rt_single_use(g, add->in[k]) &&
            add->in[1 - k] >= 0 && oc_rt_constant(g, add->in[1 - k])) {
            oc_rt_join(p, c, add);
            oc_rt_join(p, add, add);
            p->kind[add->index] = OC_RT_LINEAR;
            return;
        }
    }
}

/* v is a constant of one element equal to 1 (its folded contents, or an
   initializer's or Constant's one element, read from the file) */
static bool oc_rt_constant_one(const struct oc_graph *g, int32_t v) {
    const struct oc_value *x = v >= 0 ? &g->values[v] : NULL;
    uint64_t count = 0;
    if (!x || !oc_rt_constant(g, v) || x->overridable || !oc_value_numel(x, &count) || count != 1 ||
        !oc_dtype_is_float(x->dtype))
        return false;
    if (x->fval)
        return x->fval[0] == 1.0;
    const void *tensor = x->kind == OC_VALUE_INITIALIZER ? x->tensor : NULL;
    if (!tensor && x->producer >= 0) {
        struct oc_diag d = {0};
        bool found = false;
        int32_t dt, rank;
        const int64_t *dims;
        if (oc_attr_tensor(&g->nodes[x->producer], "value", &found, &dt, &rank, &dims, &tensor, &d) != OC_OK ||
            !found)
            tensor = NULL;
    }
    double one = 0;
    return tensor && oc_model_tensor_floats(g->model, tensor, 1, &one) == OC_OK && one == 1.0;
}

/* A node only an exporter's writing-out of one torch op has in a chain
   (GELU's Erf, or Tanh in its tanh form; SiLU's Sigmoid; a normalization's
   ReduceMean; addcmul's and addcdiv's Mul by their value, 1 by default,
   which no source writes): a chain of Pow, Mul and Add alone (StarReLU's
   x^2 s + b, a layer scale and a residual) is several torch ops, each its
   own kernel in eager PyTorch. */
static bool oc_rt_one_op_sign(const struct oc_graph *g, const struct oc_node *n) {
    if (oc_rt_is(n, "Mul") && n->n_in == 2 && (oc_rt_constant_one(g, n->in[0]) || oc_rt_constant_one(g, n->in[1])))
        return true;
    return oc_rt_is(n, "Erf") || oc_rt_is(n, "Tanh") || oc_rt_is(n, "Sigmoid") || oc_rt_is(n, "ReduceMean");
}

/* the chains of pointwise nodes a framework runs as one op
   (oc_pointwise_chains, training.h) that have such a sign: each a kernel
   at its last node, the one the others lead to (last in topological
   order); a chain that meets a group already made, or has no sign, keeps
   its nodes' own kernels */
static bool oc_rt_pointwise_chains(const struct oc_graph *g, struct oc_runtime_plan *p, int32_t *region,
                                   int32_t *root, int32_t *last) {
    int32_t n = g->n_nodes;
    if (!oc_pointwise_chains(g, region, root))
        return false;
    for (int32_t i = 0; i < n; i++)
        last[i] = -1;
    for (int32_t s = 0; s < n; s++) { /* the last member of each region; a region meeting a group is dropped */
        int32_t i = g->order[s], r = region[i];
        if (r < 0)
            continue;
        if (p->anchor[i] >= 0 && p->kind[p->anchor[i]] == OC_RT_LINEAR)
            continue; /* a Linear's bias the chain began with: in the GEMM, the chain after it */
        if (p->anchor[i] >= 0 || last[r] == -2)
            last[r] = -2;
        else
            last[r] = i;
    }
    for (int32_t i = 0; i < n; i++) /* the regions with a torch op's signature, marked -3 - last */
        if (region[i] >= 0 && last[region[i]] >= 0 && oc_rt_one_op_sign(g, &g->nodes[i]))
            last[region[i]] = -3 - last[region[i]];
    for (int32_t i = 0; i < n; i++) /* and the others dropped: each of their nodes a kernel of its own */
        if (region[i] >= 0 && last[region[i]] >= 0)
            last[region[i]] = -2;
    for (int32_t i = 0; i < n; i++)
        if (region[i] >= 0 && last[region[i]] <= -3)
            last[region[i]] = -3 - last[region[i]];
    for (int32_t i = 0; i < n; i++) {
        int32_t r = region[i];
        if (r >= 0 && last[r] >= 0 && p->anchor[i] < 0) {
            p->anchor[i] = last[r];
            p->kind[last[r]] = OC_RT_POINTWISE;
        }
    }
    return true;
}

/* the nodes' bytes under autocast's widths: a group's on its anchor (every
   value it reads that no member writes, once, and every value a member
   writes that something else reads), each other node's as the ratio of its
   values' bytes at autocast's widths to their priced bytes */
static void oc_rt_own_scale(const struct oc_graph *g, struct oc_runtime_plan *p, const struct oc_node *n) {
    double priced = 0, typed = 0;
    for (int32_t k = 0; k < n->n_in + n->n_out; k++) {
        bool in = k < n->n_in;
        int32_t v = in ? n->in[k] : n->out[k - n->n_in];
        if (v < 0)
            continue;
        priced += oc_rt_bytes(g, v);
        typed += oc_autocast_value_bytes(g, p, n, v, in);
    }
    p->bytes_scale[n->index] = priced > 0 ? typed / priced : 1;
}

/* torch.compile's fusion (Inductor): the nodes that are no library kernel
   (a contraction, an attention or Linear group) fuse with the nodes they
   read from between the same library kernels: stage[i], the library
   kernels on the longest path to node i, equal along a fused edge, so that
   no region reads what a library kernel made of its own output. Each
   region of two or more nodes runs as one kernel at its last node (in
   topological order). stage, parent, last: scratch of g->n_nodes. */
static bool oc_rt_library(const struct oc_runtime_plan *p, const struct oc_node *n) {
    return p->anchor[n->index] >= 0 || oc_perf_library_contraction(n);
}

static int32_t oc_rt_find(int32_t *parent, int32_t i) {
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static void oc_rt_compile_regions(const struct oc_graph *g, struct oc_runtime_plan *p, int32_t *stage,
                                  int32_t *parent, int32_t *last) {
    int32_t n = g->n_nodes;
    for (int32_t i = 0; i < n; i++)
        stage[i] = 0, parent[i] = i, last[i] = -1;
    for (int32_t s = 0; s < n; s++) {
        const struct oc_node *b = &g->nodes[g->order[s]];
        bool fuses = !oc_rt_library(p, b) && !oc_node_folded(g, b);
        for (int32_t k = 0; k < b->n_in; k++) {
            const struct oc_node *a = oc_rt_producer(g, b->in[k]);
            if (!a)
                continue;
            bool lib = oc_rt_library(p, a);
            if (stage[a->index] + lib > stage[b->index])
                stage[b->index] = stage[a->index] + lib;
        }
        for (int32_t k = 0; fuses && k < b->n_in; k++) {
            const struct oc_node *a = oc_rt_producer(g, b->in[k]);
            if (a && !oc_rt_library(p, a) && !oc_node_folded(g, a) && stage[a->index] == stage[b->index])
                parent[oc_rt_find(parent, a->index)] = oc_rt_find(parent, b->index);
        }
    }
    for (int32_t s = 0; s < n; s++) { /* each region's last node, and its size in stage[] after */
        int32_t i = g->order[s];
        last[oc_rt_find(parent, i)] = i;
    }
    for (int32_t i = 0; i < n; i++)
        stage[i] = 0;
    for (int32_t i = 0; i < n; i++)
        stage[oc_rt_find(parent, i)]++;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = oc_rt_find(parent, i);
        if (stage[r] < 2 || oc_rt_library(p, &g->nodes[i]) || oc_node_folded(g, &g->nodes[i]))
            continue;
        p->anchor[i] = last[r];
        p->kind[last[r]] = OC_RT_FUSED;
    }
}

/* the values a fused region reads (or a node a region would take): read[v]
   true; read: g->n_values, all false on entry */
static void oc_rt_region_reads(const struct oc_graph *g, const struct oc_runtime_plan *p, bool *read) {
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *x = &g->nodes[i];
        bool region = p->anchor[i] < 0 ? !oc_rt_library(p, x) : p->kind[p->anchor[i]] == OC_RT_FUSED;
        for (int32_t k = 0; region && k < x->n_in; k++)
            if (x->in[k] >= 0)
                read[x->in[k]] = true;
    }
}

static void oc_rt_free_scratch(int32_t *members, int32_t *head, int32_t *next, bool *seen, int32_t *reads) {
    free(members), free(head), free(next), free(seen), free(reads);
}

/* GroupNorm as the exporter writes it (a Reshape to [N, G, -1], an
   InstanceNormalization over each group, a Reshape back, the affine as Mul
   and Add of constants) is torch's one group_norm op: its affine inside its
   kernel. consumer[v]: the node reading v where v has one reader, -1 else. */
static const struct oc_node *oc_rt_only_reader(const struct oc_graph *g, const int32_t *consumer, int32_t v) {
    return v >= 0 && g->values[v].n_consumers == 1 && !g->values[v].is_graph_output && consumer[v] >= 0
               ? &g->nodes[consumer[v]]
               : NULL;
}

static void oc_rt_norm_affine(const struct oc_graph *g, struct oc_runtime_plan *p, const int32_t *consumer,
                              const struct oc_node *norm) {
    if (!(oc_rt_is(norm, "InstanceNormalization") || oc_rt_is(norm, "GroupNormalization")) ||
        p->anchor[norm->index] >= 0 || norm->n_out < 1)
        return;
    const struct oc_node *m[4] = {norm};
    int32_t k = 1, affine = 0;
    const struct oc_node *x = oc_rt_only_reader(g, consumer, norm->out[0]);
    if (oc_rt_is(x, "Reshape") && p->anchor[x->index] < 0) {
        m[k++] = x;
        x = oc_rt_only_reader(g, consumer, x->out[0]);
    }
    for (const char *op = "Mul"; op && x; op = op[0] == 'M' ? "Add" : NULL) {
        if (!oc_rt_is(x, op) || p->anchor[x->index] >= 0 || x->n_in != 2 || x->n_out < 1)
            break;
        int32_t from = m[k - 1]->out[0], other = x->in[0] == from ? x->in[1] : x->in[0];
        if (other < 0 || !oc_rt_constant(g, other))
            break;
        m[k++] = x, affine++;
        x = oc_rt_only_reader(g, consumer, x->out[0]);
    }
    if (!affine)
        return;
    for (int32_t i = 0; i < k; i++)
        p->anchor[m[i]->index] = m[k - 1]->index;
    p->kind[m[k - 1]->index] = OC_RT_NORM;
}

static void oc_rt_norms(const struct oc_graph *g, struct oc_runtime_plan *p, int32_t *consumer) {
    for (int32_t v = 0; v < g->n_values; v++)
        consumer[v] = -1;
    for (int32_t i = 0; i < g->n_nodes; i++)
        for (int32_t k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] >= 0)
                consumer[g->nodes[i].in[k]] = i;
    for (int32_t i = 0; i < g->n_nodes; i++)
        oc_rt_norm_affine(g, p, consumer, &g->nodes[i]);
    memset(consumer, 0, (size_t)g->n_values * sizeof *consumer);
}

/* A node eager PyTorch runs as a view of its input, no kernel: a permute
   (Transpose), a slice with positive steps, a split (split, chunk,
   unbind), a squeeze or unsqueeze, an expand (a stride of 0). It stays a
   view where every reader takes strided input as it lies: an elementwise
   op (layout.h, oc_layout_elementwise), torch.cat (Concat), or a view that
   stays one in turn. A LayerNorm, a matrix product, a convolution or a
   reshape after it makes it contiguous first: a copy, the view's own
   kernel. */
static bool oc_rt_view_kind(const struct oc_graph *g, const struct oc_node *n) {
    if (oc_rt_is(n, "Slice")) {
        if (n->n_in < 5 || n->in[4] < 0)
            return true;
        const struct oc_value *steps = &g->values[n->in[4]];
        if (!steps->ival)
            return false;
        for (int64_t k = 0; k < steps->n_ival; k++)
            if (steps->ival[k] <= 0)
                return false;
        return true;
    }
    return oc_rt_is(n, "Transpose") || oc_rt_is(n, "Split") || oc_rt_is(n, "Squeeze") || oc_rt_is(n, "Unsqueeze") ||
           oc_rt_is(n, "Expand");
}

/* squeeze and unsqueeze are never kernels: views only pass through them */
static bool oc_rt_view_passes(const struct oc_node *n) { return oc_rt_is(n, "Squeeze") || oc_rt_is(n, "Unsqueeze"); }

/* the views left without a kernel (channels_last: the layout permutes too;
   layout.h: those the memory format makes views), from the last node
   back, so that a view's readers are settled before it; strided: scratch
   of g->n_values, all false on entry and left so. False when out of
   memory. */
static bool oc_rt_strided_views(const struct oc_graph *g, struct oc_runtime_plan *p, bool channels_last,
                                bool *strided_no) {
    bool *by_layout = malloc(((size_t)g->n_nodes + 1) * sizeof *by_layout);
    if (!by_layout || !oc_layout_permute_views(g, p->anchor, channels_last, by_layout)) {
        free(by_layout);
        return false;
    }
    for (int32_t r = g->n_nodes - 1; r >= 0; r--) {
        const struct oc_node *t = &g->nodes[g->order[r]];
        int32_t i = t->index;
        bool read = t->n_out > 0 && t->out[0] >= 0 && !g->values[t->out[0]].is_graph_output &&
                    g->values[t->out[0]].n_consumers > 0; /* its output read, and not the graph's */
        bool view = read && oc_rt_view_kind(g, t) && (p->anchor[i] < 0 || p->kind[i] == OC_RT_VIEW);
        for (int32_t k = 0; view && k < t->n_out; k++) {
            int32_t v = t->out[k];
            if (v >= 0 && (g->values[v].is_graph_output || strided_no[v]))
                view = false;
        }
        if (read && oc_rt_is(t, "Transpose") && p->anchor[i] < 0 && by_layout[i])
            view = true;
        if (view && !oc_rt_view_passes(t) && p->anchor[i] < 0) {
            p->anchor[i] = i;
            p->kind[i] = OC_RT_VIEW;
        }
        bool strided = view || oc_layout_elementwise(t) || oc_rt_is(t, "Concat");
        for (int32_t k = 0; !strided && k < t->n_in; k++)
            if (t->in[k] >= 0)
                strided_no[t->in[k]] = true;
    }
    memset(strided_no, 0, (size_t)g->n_values * sizeof *strided_no);
    free(by_layout);
    return true;
}

/* Index arithmetic eager PyTorch never runs as kernels: a node that reads
   no activation, only shapes (Shape, Size) and constants or weights, with
   a shape among them: the index tensors an export writes for a slice
   assignment (index_put as ScatterND: Range's positions expanded to the
   batch and concatenated), a parameter expanded to the batch (a class
   token: a view). In eager they are Python arithmetic or views. What makes
   a tensor stays a kernel (ConstantOfShape, torch.zeros' fill; Range,
   torch.arange), and so does a weight computed from weights alone (a
   standardized convolution's weight). data: g->n_values entries, filled:
   1 for a value computed from the graph's inputs, 2 for one computed from
   their shapes alone, 0 for constants and weights. */
static void oc_rt_index_math(const struct oc_graph *g, struct oc_runtime_plan *p, uint8_t *data) {
    for (int32_t v = 0; v < g->n_values; v++)
        data[v] = g->values[v].kind == OC_VALUE_INPUT ? 1 : 0;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        const struct oc_node *n = &g->nodes[g->order[s]];
        uint8_t f = 0;
        for (int32_t j = 0; j < n->n_in && f != 1; j++)
            if (n->in[j] >= 0 && data[n->in[j]])
                f = data[n->in[j]];
        if (n->n_implicit > 0) /* a subgraph's reads: taken as data */
            f = 1;
        if (oc_rt_is(n, "Shape") || oc_rt_is(n, "Size"))
            f = 2;
        for (int32_t k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                data[n->out[k]] = f;
        if (f == 2 && p->anchor[n->index] < 0 && !oc_rt_is(n, "Shape") && !oc_rt_is(n, "Size") &&
            !oc_rt_is(n, "ConstantOfShape") && !oc_rt_is(n, "Range")) {
            p->anchor[n->index] = n->index;
            p->kind[n->index] = OC_RT_VIEW;
        }
    }
}

/* A slice assignment (x[..., a:, b:] = y, exported as ScatterND with index
   arithmetic for its indices) runs in eager PyTorch in place: y read and
   written into x's slice, not x copied and the indices read. The node's
   bytes scaled to that. */
static void oc_rt_slice_assign(const struct oc_graph *g, struct oc_runtime_plan *p, const struct oc_node *n,
                               const uint8_t *data) {
    if (!oc_rt_is(n, "ScatterND") || p->anchor[n->index] >= 0 || n->n_in < 3 || n->in[1] < 0 || n->in[2] < 0 ||
        data[n->in[1]] == 1)
        return;
    double priced = 0;
    for (int32_t k = 0; k < n->n_in + n->n_out; k++) {
        int32_t v = k < n->n_in ? n->in[k] : n->out[k - n->n_in];
        priced += oc_rt_bytes(g, v);
    }
    double y = oc_autocast_value_bytes(g, p, n, n->in[2], true);
    if (priced > 0 && y > 0)
        p->bytes_scale[n->index] = 2 * y / priced;
}

/* cuDNN's tensor-core convolutions take NHWC: eager PyTorch's NCHW
   convolution in half precision (not a depthwise one, which has NCHW
   kernels of its own) runs beside it a transform of its input to NHWC and
   of its output back, two kernels (nchwToNhwcKernel, nhwcToNchwKernel in
   a profile). Their traffic is counted as the input and the output
   streamed once (OC_PERF_NCHW_PASSES; each transform reads and writes its
   tensor, so twice that is the full count), at the pass class's factor. */
static void oc_rt_nchw_transforms(const struct oc_graph *g, struct oc_runtime_plan *p, const struct oc_node *n,
                                  int32_t dtype_override) {
    int64_t group = 1;
    if (!oc_rt_is(n, "Conv") || n->n_in < 2 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0 ||
        g->values[n->in[0]].rank != 4 || oc_attr_int(n, "group", 1, &group, NULL) != OC_OK)
        return;
    int32_t dt = p->dtype[n->index] ? p->dtype[n->index] : oc_node_compute_dtype(g, n, dtype_override);
    int64_t c_in = g->values[n->in[0]].dims[1].value;
    if ((dt != OC_DT_FLOAT16 && dt != OC_DT_BFLOAT16) || (group > 1 && group == c_in))
        return;
    p->extra_kernels[n->index] += 2;
    p->extra_bytes[n->index] += OC_PERF_NCHW_PASSES * (oc_autocast_value_bytes(g, p, n, n->in[0], true) +
                                                       oc_autocast_value_bytes(g, p, NULL, n->out[0], false));
}

enum oc_status oc_runtime_plan(const struct oc_graph *g, const struct oc_perf_opts *o,
                               struct oc_runtime_plan *out) {
    const enum oc_runtime rt = o->runtime;
    const int32_t autocast = o->autocast;
    const bool channels_last = o->channels_last, fused_attention = !o->unfused_attention;
    memset(out, 0, sizeof *out);
    out->runtime = rt;
    out->autocast = autocast;
    int32_t n = g->n_nodes;
    out->anchor = malloc(((size_t)n + 1) * sizeof *out->anchor);
    out->kind = calloc((size_t)n + 1, sizeof *out->kind);
    out->contraction = calloc((size_t)n + 1, sizeof *out->contraction);
    out->flops = calloc((size_t)n + 1, sizeof *out->flops);
    out->bytes = calloc((size_t)n + 1, sizeof *out->bytes);
    out->extra_bytes = calloc((size_t)n + 1, sizeof *out->extra_bytes);
    out->extra_kernels = calloc((size_t)n + 1, sizeof *out->extra_kernels);
    out->bytes_scale = malloc(((size_t)n + 1) * sizeof *out->bytes_scale);
    out->dtype = calloc((size_t)n + 1, sizeof *out->dtype);
    if (autocast)
        out->width = calloc((size_t)g->n_values + 1, sizeof *out->width);
    int32_t *members = malloc(((size_t)n + 1) * sizeof *members), *head = malloc(((size_t)n + 1) * sizeof *head),
            *next = malloc(((size_t)n + 1) * sizeof *next);
    bool *seen = calloc((size_t)g->n_values + 1, sizeof *seen);
    int32_t *reads = calloc((size_t)g->n_values + 1, sizeof *reads);
    uint8_t *data = NULL; /* torch-eager: what carries the inputs' data (oc_rt_index_math) */
    if (!reads || !out->anchor || !out->kind || !out->contraction || !out->flops || !out->bytes || !out->extra_bytes ||
        !out->extra_kernels || !out->bytes_scale || !out->dtype || (autocast && !out->width) || !members || !head ||
        !next || !seen) {
        oc_rt_free_scratch(members, head, next, seen, reads);
        oc_runtime_plan_free(out);
        return OC_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++)
        out->anchor[i] = -1, out->bytes_scale[i] = 1;
    if (rt == OC_RUNTIME_TORCH_EAGER) {
        for (int32_t r = n - 1; fused_attention && r >= 0; r--) /* last first: a group is found from its end */
            oc_rt_attention(g, out, &g->nodes[g->order[r]]);
        /* the three index arrays serve as the chains' scratch first (region,
           root, last member), then as the groups' member lists */
        for (int32_t r = n - 1; r >= 0; r--) /* a Linear before the chain its output may begin */
            oc_rt_bias(g, out, &g->nodes[g->order[r]]);
        oc_rt_norms(g, out, reads); /* a GroupNorm's affine, before the chains would take it */
        if (!oc_rt_pointwise_chains(g, out, members, head, next)) {
            oc_rt_free_scratch(members, head, next, seen, reads);
            oc_runtime_plan_free(out);
            return OC_ERR_NOMEM;
        }
        if (!oc_rt_strided_views(g, out, channels_last, seen)) {
            oc_rt_free_scratch(members, head, next, seen, reads);
            oc_runtime_plan_free(out);
            return OC_ERR_NOMEM;
        }
        data = calloc((size_t)g->n_values + 1, 1);
        if (!data) {
            oc_rt_free_scratch(members, head, next, seen, reads);
            oc_runtime_plan_free(out);
            return OC_ERR_NOMEM;
        }
        oc_rt_index_math(g, out, data);
    }
    if (rt == OC_RUNTIME_TORCH_COMPILE) {
        for (int32_t r = n - 1; fused_attention && r >= 0; r--) /* flash attention, library kernels */
            oc_rt_attention(g, out, &g->nodes[g->order[r]]);
        for (int32_t r = n - 1; r >= 0; r--)
            oc_rt_bias(g, out, &g->nodes[g->order[r]]);
        oc_rt_compile_regions(g, out, members, head, next);
    }
    if (autocast && oc_autocast_types(g, autocast, out) != OC_OK) { /* the groups' types: after they are made */
        oc_rt_free_scratch(members, head, next, seen, reads);
        oc_runtime_plan_free(out);
        return OC_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++) /* each group's members, listed from its anchor */
        head[i] = -1;
    for (int32_t j = n - 1; j >= 0; j--)
        if (out->anchor[j] >= 0) {
            next[j] = head[out->anchor[j]];
            head[out->anchor[j]] = j;
        }
    for (int32_t i = 0; i < n; i++) { /* each group's work, on its anchor */
        if (out->anchor[i] != i)
            continue;
        int32_t m = 0;
        double flops = 0;
        bool known = true;
        for (int32_t j = head[i]; j >= 0; j = next[j]) {
            uint64_t f = 0, b = 0;
            known &= oc_node_kernel_cost(g, &g->nodes[j], &f, &b);
            flops += (double)f;
            out->contraction[i] |= g->nodes[j].cost.macs > 0;
            members[m++] = j;
        }
        if (out->kind[i] == OC_RT_VIEW) /* a strided view: no kernel, no work */
            continue;
        out->flops[i] = flops;
        out->bytes[i] = oc_rt_group_bytes(g, out, i, members, m, seen, reads);
        if (!known) /* a member without a cost: the group is not priced as one */
            for (int32_t j = 0; j < m; j++)
                out->anchor[members[j]] = -1, out->kind[members[j]] = OC_RT_OWN;
    }
    for (int32_t i = 0; autocast && i < n; i++)
        if (out->anchor[i] < 0)
            oc_rt_own_scale(g, out, &g->nodes[i]);
    for (int32_t i = 0; data && i < n; i++)
        oc_rt_slice_assign(g, out, &g->nodes[i], data);
    free(data);
    if (rt != OC_RUNTIME_NODES) {
        bool *folded = oc_folded_bn_convs(g);
        if (!folded) {
            oc_rt_free_scratch(members, head, next, seen, reads);
            oc_runtime_plan_free(out);
            return OC_ERR_NOMEM;
        }
        if (rt == OC_RUNTIME_TORCH_COMPILE) /* compiled, it fuses into the region that reads the output */
            oc_rt_region_reads(g, out, seen);
        for (int32_t i = 0; i < n; i++) /* a folded BatchNorm's pass: the output read and written */
            if (folded[i] && g->nodes[i].n_out > 0 && g->nodes[i].out[0] >= 0 && !seen[g->nodes[i].out[0]]) {
                out->extra_bytes[i] += 2 * oc_autocast_value_bytes(g, out, NULL, g->nodes[i].out[0], false);
                out->extra_kernels[i]++;
            }
        free(folded);
        for (int32_t i = 0; rt == OC_RUNTIME_TORCH_EAGER && !channels_last && i < n; i++)
            oc_rt_nchw_transforms(g, out, &g->nodes[i], o->dtype);
    }
    oc_rt_free_scratch(members, head, next, seen, reads);
    return OC_OK;
}

void oc_runtime_plan_free(struct oc_runtime_plan *p) {
    free(p->anchor);
    free(p->kind);
    free(p->contraction);
    free(p->flops);
    free(p->bytes);
    free(p->extra_bytes);
    free(p->extra_kernels);
    free(p->bytes_scale);
    free(p->dtype);
    free(p->width);
    memset(p, 0, sizeof *p);
}
