/*
 * ops/nchwc.c — the com.microsoft.nchwc domain: what ONNX Runtime's CPU
 * optimizer (the NCHWc transformer, ORT_ENABLE_ALL on an x86 CPU with AVX2
 * or AVX-512) writes into a model it saves with optimized_model_filepath.
 *
 * An NCHWc tensor is [N, Cb, H, W] with its channels Cb padded up to the
 * block size of the machine's kernels (8 with AVX2, 16 with AVX-512): an
 * ONNX Runtime run on such a file gives those shapes. The weights in the
 * saved file already carry the padded channel counts, and `group` the padded
 * group count, so:
 *
 * Conv (X, W, B?, Sum?; attrs as Conv plus activation, activation_params),
 * and com.microsoft FusedConv, the same op on plain NCHW data that ONNX
 * Runtime's extended level writes (where the NCHWc transformer does not run):
 *   shapes as ONNX Conv (X's channels = W's dim 1 x group; the first Conv of
 *   a chain reads plain NCHW data);
 *   MACs  = numel(Y) * (Cb / group) * prod(k), the padded channels included,
 *           since the kernels compute them;
 *   FLOPs = 2 * MACs + numel(Y) for B + numel(Y) for Sum + numel(Y) for an
 *           activation (one operation per output, as for an elementwise op).
 * MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool: as their ONNX ops,
 *   on the padded channels.
 * ReorderInput (X; channels_last): NCHW (or NHWC) -> NCHWc. The block size
 *   is not in the file: it is read off the nchwc Conv that consumes the
 *   result, directly or through nchwc pooling ops (its W's dim 1 x group is
 *   the padded channel count). Without such a consumer the shape stays
 *   unknown and the node says why.
 * ReorderOutput (X; channels, channels_last): NCHWc -> NCHW (or NHWC) with
 *   `channels` channels.
 * Upsample (X; scales as integers per dim, mode nearest or linear): Y's dim
 *   i = X's dim i x scales[i]; costs as ONNX Resize (ops/sample.c).
 */
#include "../attr.h"
#include "contract.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

OC_RULE(oc_fused_conv_infer) {
    const struct oc_value *x = oc_in(c, 0), *sum = oc_in(c, 3);
    enum oc_status st = oc_conv_shape(c, x, oc_in(c, 1), oc_in(c, 2), x ? x->dtype : 0);
    if (st != OC_OK)
        return st;
    const struct oc_value *y = oc_out(c, 0);
    if (sum && sum->rank >= 0 && y && y->rank >= 0) {
        bool same = sum->rank == y->rank;
        for (int32_t i = 0; same && i < y->rank; i++)
            same = sum->dims[i].value < 0 || y->dims[i].value < 0 || sum->dims[i].value == y->dims[i].value;
        if (!same)
            return OC_FAIL(c, OC_ERR_MODEL, "input Sum must have the output's shape");
    }
    return OC_OK;
}

enum oc_status oc_fused_activation_cost(struct oc_op_ctx *c, struct oc_cost *cost) {
    char act[32];
    enum oc_status st = oc_attr_string(c->node, "activation", "", act, sizeof act, c->diag);
    if (st == OC_OK && act[0])
        oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return st;
}

/* Conv's count (MACs, 2 MACs, the bias) + the Sum input + the activation */
OC_COST(oc_fused_conv_cost) {
    enum oc_status st = oc_conv_cost(c, cost);
    if (st != OC_OK)
        return st;
    if (oc_in(c, 3))
        oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return oc_fused_activation_cost(c, cost);
}

/* An nchwc pooling op: its output keeps its input's padded channels. */
static bool oc_nchwc_pool(const struct oc_node *n) {
    static const char *const pools[] = {"MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool"};
    if (strcmp(n->domain, "com.microsoft.nchwc") != 0)
        return false;
    for (size_t i = 0; i < sizeof pools / sizeof pools[0]; i++)
        if (strcmp(n->op_type, pools[i]) == 0)
            return true;
    return false;
}

/* The padded channel count of the NCHWc tensor value v: from an nchwc Conv
 * of graph g that reads it (W's dim 1 x group), directly or through nchwc
 * pooling ops, which keep the channels (ReorderInput -> MaxPool -> Conv in
 * AlexNet's exports); -1 when none says. hops bounds the search. */
static int64_t oc_nchwc_block_channels(struct oc_op_ctx *c, int32_t v, int hops) {
    const struct oc_graph *g = c->g;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (n->n_in < 1 || n->in[0] != v)
            continue;
        if (hops > 0 && n->n_out >= 1 && n->out[0] >= 0 && n->out[0] != v && oc_nchwc_pool(n)) {
            int64_t through = oc_nchwc_block_channels(c, n->out[0], hops - 1);
            if (through >= 0)
                return through;
            continue;
        }
        if (n->n_in < 2 || strcmp(n->op_type, "Conv") != 0 || strcmp(n->domain, "com.microsoft.nchwc") != 0 ||
            n->in[1] < 0)
            continue;
        const struct oc_value *w = &g->values[n->in[1]];
        int64_t group, padded;
        if (w->rank < 2 || w->dims[1].value < 0 || oc_attr_int(n, "group", 1, &group, NULL) != OC_OK || group <= 0 ||
            oc_mul_i64(w->dims[1].value, group, &padded))
            continue;
        return padded;
    }
    return -1;
}

OC_RULE(oc_nchwc_reorder_input_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 3 || x->rank > OC_MAX_SPATIAL + 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected 3 to %d", x->rank, OC_MAX_SPATIAL + 2);
    int64_t last;
    enum oc_status st = oc_attr_int(c->node, "channels_last", 0, &last, c->diag);
    if (st != OC_OK)
        return st;
    const struct oc_dim *ch = &x->dims[last ? x->rank - 1 : 1];
    int64_t padded = oc_nchwc_block_channels(c, c->node->out[0], 8);
    if (padded < 0)
        return OC_FAIL(c, OC_ERR_SHAPE,
                       "the NCHWc block size is not in the file and no nchwc Conv reads this tensor (directly or through nchwc pooling) to show it");
    if (ch->value >= 0 && padded < ch->value)
        return OC_FAIL(c, OC_ERR_MODEL, "the nchwc Conv reading it takes %lld channels, fewer than the %lld here",
                       (long long)padded, (long long)ch->value);
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    out[0] = x->dims[0];
    out[1] = (struct oc_dim){padded, padded == ch->value ? ch->sym : NULL};
    for (int32_t i = 2; i < x->rank; i++)
        out[i] = x->dims[last ? i - 1 : i];
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_RULE(oc_nchwc_reorder_output_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 3 || x->rank > OC_MAX_SPATIAL + 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected 3 to %d", x->rank, OC_MAX_SPATIAL + 2);
    int64_t channels, last;
    enum oc_status st = oc_attr_int(c->node, "channels", -1, &channels, c->diag);
    if (st == OC_OK)
        st = oc_attr_int(c->node, "channels_last", 0, &last, c->diag);
    if (st != OC_OK)
        return st;
    if (channels <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'channels' is missing or not positive");
    if (x->dims[1].value >= 0 && channels > x->dims[1].value)
        return OC_FAIL(c, OC_ERR_MODEL, "channels %lld exceed the input's %lld", (long long)channels,
                       (long long)x->dims[1].value);
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    out[0] = x->dims[0];
    struct oc_dim cd = {channels, channels == x->dims[1].value ? x->dims[1].sym : NULL};
    if (last) {
        for (int32_t i = 1; i < x->rank - 1; i++)
            out[i] = x->dims[i + 1];
        out[x->rank - 1] = cd;
    } else {
        out[1] = cd;
        for (int32_t i = 2; i < x->rank; i++)
            out[i] = x->dims[i];
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_RULE(oc_nchwc_upsample_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank > OC_MAX_SPATIAL + 2)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit %d", x->rank, OC_MAX_SPATIAL + 2);
    char mode[16];
    const int64_t *sc;
    int64_t n;
    enum oc_status st = oc_attr_string(c->node, "mode", "nearest", mode, sizeof mode, c->diag);
    if (st == OC_OK)
        st = oc_attr_ints(c->node, "scales", &sc, &n, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(mode, "nearest") != 0 && strcmp(mode, "linear") != 0)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "mode '%s' (nearest or linear expected)", mode);
    if (n != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "scales has %lld entries for rank %d", (long long)n, x->rank);
    struct oc_dim out[OC_MAX_SPATIAL + 2];
    for (int32_t i = 0; i < x->rank; i++) {
        if (sc[i] <= 0)
            return OC_FAIL(c, OC_ERR_MODEL, "scale %lld of dim %d is not positive", (long long)sc[i], i);
        out[i] = sc[i] == 1 ? x->dims[i] : (struct oc_dim){OC_DIM_UNKNOWN, NULL};
        if (sc[i] != 1 && x->dims[i].value >= 0 && oc_mul_i64(x->dims[i].value, sc[i], &out[i].value))
            return OC_FAIL(c, OC_ERR_MODEL, "dim %d times its scale overflows", i);
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}
