/*
 * layout.c — which permutes eager PyTorch leaves as views by the memory
 * format of their input (layout.h).
 */
#include "layout.h"

#include "../../analyzer/attr.h"

#include <stdlib.h>
#include <string.h>

int oc_layout_permute_kind(const struct oc_node *n) {
    const int64_t *perm = NULL;
    int64_t k = 0;
    struct oc_diag d = {0};
    if (!oc_node_is(n, "Transpose") || oc_attr_ints(n, "perm", &perm, &k, &d) != OC_OK || k != 4 || !perm ||
        perm[0] != 0)
        return 0;
    if (perm[1] == 2 && perm[2] == 3 && perm[3] == 1)
        return 1;
    return perm[1] == 3 && perm[2] == 1 && perm[3] == 2 ? 2 : 0;
}

bool oc_layout_elementwise(const struct oc_node *n) {
    static const char *const ops[] = {"Add",  "Sub",  "Mul", "Div",  "Relu", "LeakyRelu", "Sigmoid", "Tanh",
                                      "Erf",  "Pow",  "Sqrt", "Clip", "Neg", "Abs",       "Exp",     "Log",
                                      "Where", "HardSigmoid", "HardSwish", "Gelu", "Mish", "Softplus", "Cast"};
    for (size_t i = 0; n && i < sizeof ops / sizeof ops[0]; i++)
        if (oc_node_is(n, ops[i]))
            return true;
    return false;
}

/* a kernel that takes a channels-last tensor as it lies and writes its
   output channels-last too: cuDNN's convolutions, pooling and BatchNorm,
   the elementwise ops, torch.cat and F.pad of channels-last images, a view */
static bool oc_layout_keeps(const struct oc_node *n) {
    static const char *const ops[] = {"Conv",     "MaxPool", "AveragePool", "BatchNormalization",
                                      "Resize",   "Identity", "Dropout",    "Concat",             "Pad"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (oc_node_is(n, ops[i]))
            return true;
    return oc_layout_elementwise(n);
}

/* a reader for which the layout ends: it reads any strides and leaves no
   spatial layout (a global pool, a reduction), or reads no data (Shape) */
static bool oc_layout_ends(const struct oc_node *n) {
    static const char *const ops[] = {"GlobalAveragePool", "GlobalMaxPool", "ReduceMean", "ReduceMax", "ReduceSum",
                                      "ReduceMin", "Shape", "Size"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (oc_node_is(n, ops[i]))
            return true;
    return false;
}

int64_t oc_layout_swaps_last_two(const struct oc_node *n) {
    const int64_t *perm = NULL;
    int64_t k = 0;
    struct oc_diag d = {0};
    if (!n || !oc_node_is(n, "Transpose") || oc_attr_ints(n, "perm", &perm, &k, &d) != OC_OK || !perm || k < 2)
        return 0;
    for (int64_t i = 0; i < k - 2; i++)
        if (perm[i] != i)
            return 0;
    return perm[k - 2] == k - 1 && perm[k - 1] == k - 2 ? k : 0;
}

static bool oc_layout_4d(const struct oc_graph *g, int32_t v) { return v >= 0 && g->values[v].rank == 4; }

/* A 4-D tensor of one position, (B, C, 1, 1), or of one channel set over
   one position, (B, 1, 1, C): its NCHW and NHWC orders are the same
   memory (a pooled feature's permute moves nothing) */
static bool oc_layout_pixel(const struct oc_graph *g, int32_t v) {
    if (!oc_layout_4d(g, v))
        return false;
    const struct oc_dim *d = g->values[v].dims;
    return (d[2].value == 1 && d[3].value == 1) || (d[1].value == 1 && d[2].value == 1);
}

static bool oc_layout_dim_same(const struct oc_dim *a, const struct oc_dim *b) {
    return (a->value >= 0 && a->value == b->value) || (a->value < 0 && a->sym && b->sym && strcmp(a->sym, b->sym) == 0);
}

/* A Reshape between an image (B, C, H, W) and its C channels over the H*W
   positions (B, C, H*W): from rank 4 to 3 (flatten(2)) when merge, from 3
   to 4 when not; B and C the same, the positions' count known and equal */
static bool oc_layout_spatial_reshape(const struct oc_graph *g, const struct oc_node *n, bool merge) {
    if (!oc_node_is(n, "Reshape") || n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *img = &g->values[merge ? n->in[0] : n->out[0]];
    const struct oc_value *tok = &g->values[merge ? n->out[0] : n->in[0]];
    if (img->rank != 4 || tok->rank != 3 || !oc_layout_dim_same(&img->dims[0], &tok->dims[0]) ||
        !oc_layout_dim_same(&img->dims[1], &tok->dims[1]))
        return false;
    const struct oc_dim *h = &img->dims[2], *w = &img->dims[3], *hw = &tok->dims[2];
    return h->value > 0 && w->value > 0 && hw->value == h->value * w->value;
}

/* The readers of each value (analyzer/graph.h oc_graph_readers). */
struct oc_layout_readers {
    int32_t *start, *adj;
};

/* The most values one permute's readers are followed through: past it the
   permute is left a copy (a bound on the work, n permutes x this). */
#define OC_LAYOUT_WALK_MAX 8192

/* flatten(2) of an image read only by a transpose to tokens: (B, C, H, W)
   to (B, H*W, C), a view of a channels-last image */
static bool oc_layout_to_tokens(const struct oc_graph *g, const struct oc_layout_readers *r, const struct oc_node *n) {
    if (!oc_layout_spatial_reshape(g, n, true) || g->values[n->out[0]].is_graph_output ||
        r->start[n->out[0]] == r->start[n->out[0] + 1])
        return false;
    for (int32_t e = r->start[n->out[0]]; e < r->start[n->out[0] + 1]; e++)
        if (oc_layout_swaps_last_two(&g->nodes[r->adj[e]]) != 3)
            return false;
    return true;
}

/* Whether every reader of v, and theirs in turn through the kernels that
   keep the layout, takes a channels-last v as it lies. A model moved to
   channels-last (model_cl) has its convolutions' weights channels-last:
   a convolution writes channels-last whatever it reads, and the walk ends
   there. stamp/mark: the values walked in this call (stamp[v] == mark);
   stack: scratch. */
static bool oc_layout_carried(const struct oc_graph *g, const struct oc_layout_readers *r, int32_t v, bool model_cl,
                              int32_t *stamp, int32_t mark, int32_t *stack) {
    int32_t top = 0, walked = 0;
    stack[top++] = v;
    stamp[v] = mark;
    while (top > 0) {
        int32_t u = stack[--top];
        if (++walked > OC_LAYOUT_WALK_MAX)
            return false;
        for (int32_t e = r->start[u]; e < r->start[u + 1]; e++) {
            const struct oc_node *n = &g->nodes[r->adj[e]];
            if (oc_layout_permute_kind(n) == 1 || oc_layout_ends(n) || oc_layout_to_tokens(g, r, n) ||
                (model_cl && oc_node_is(n, "Conv")))
                continue;
            if (!oc_layout_keeps(n) || n->n_out < 1 || !oc_layout_4d(g, n->out[0]))
                return false;
            int32_t w = n->out[0];
            if (stamp[w] != mark) {
                stamp[w] = mark;
                stack[top++] = w;
            }
        }
    }
    return true;
}

bool oc_layout_permute_views(const struct oc_graph *g, const int32_t *anchor, bool channels_last, bool *view) {
    struct oc_layout_readers r = {NULL, NULL};
    bool *cl = calloc((size_t)g->n_values + 1, sizeof *cl);
    int32_t *stamp = calloc((size_t)g->n_values + 1, sizeof *stamp);
    int32_t *stack = malloc(((size_t)g->n_values + 1) * sizeof *stack);
    bool ok = cl && stamp && stack && oc_graph_readers(g, false, &r.start, &r.adj);
    for (int32_t i = 0; ok && i < g->n_inputs; i++) /* the graph's inputs as given */
        cl[g->inputs[i]] = channels_last && oc_layout_4d(g, g->inputs[i]);
    for (int32_t s = 0; ok && s < g->n_nodes; s++) { /* each value's format, in execution order */
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        view[i] = false;
        if (n->n_out < 1 || n->out[0] < 0 || n->n_in < 1 || n->in[0] < 0)
            continue;
        int32_t in = n->in[0], out = n->out[0], perm = oc_layout_permute_kind(n);
        if (oc_layout_swaps_last_two(n) == 3 && anchor[i] < 0) {
            const struct oc_node *from = g->values[in].producer >= 0 ? &g->nodes[g->values[in].producer] : NULL;
            if (from && oc_layout_spatial_reshape(g, from, true)) { /* to tokens: free from a channels-last image */
                view[i] = cl[from->in[0]];
                continue;
            }
            /* to an image: free when every reader splits it into one that is
               carried channels-last */
            bool all = r.start[out] < r.start[out + 1] && !g->values[out].is_graph_output;
            for (int32_t e = r.start[out]; all && e < r.start[out + 1]; e++) {
                const struct oc_node *x = &g->nodes[r.adj[e]];
                all = oc_layout_spatial_reshape(g, x, false) && !g->values[x->out[0]].is_graph_output &&
                      oc_layout_carried(g, &r, x->out[0], channels_last, stamp, s + 1, stack);
            }
            if (all) {
                view[i] = true;
                for (int32_t e = r.start[out]; e < r.start[out + 1]; e++)
                    cl[g->nodes[r.adj[e]].out[0]] = true;
            }
            continue;
        }
        if (perm && anchor[i] < 0) {
            if (oc_layout_pixel(g, in)) { /* (B, C, 1, 1) and (B, 1, 1, C) lie alike */
                view[i] = true;
                cl[out] = perm == 2;
            } else if (perm == 1) { /* NCHW to NHWC: free when the input lies NHWC */
                view[i] = cl[in];
            } else if (!cl[in] && oc_layout_carried(g, &r, out, channels_last, stamp, s + 1, stack)) {
                view[i] = true; /* back to NCHW shape, channels-last in memory */
                cl[out] = true;
            }
            continue;
        }
        if (channels_last && oc_node_is(n, "Conv") && oc_layout_4d(g, out)) /* its weights channels-last */
            cl[out] = true;
        if (oc_layout_keeps(n) && oc_layout_4d(g, out)) /* the output follows a same-shaped channels-last input */
            for (int32_t k = 0; k < n->n_in && !cl[out]; k++)
                cl[out] = n->in[k] >= 0 && cl[n->in[k]] && g->values[n->in[k]].rank == 4 &&
                          (k == 0 || !oc_node_is(n, "Conv"));
    }
    free(cl);
    free(stamp);
    free(stack);
    free(r.start);
    free(r.adj);
    return ok;
}
