/*
 * ops/contrib.c — the com.microsoft operators ONNX Runtime's transformer
 * optimizer and model builder emit (and SimplifiedLayerNormalization, which
 * ORT registers in the default domain). Shapes follow ORT's
 * ContribOperators.md and its shape-inference functions.
 *
 * Costs (n = numel(output 0); rows = n / last dim):
 *   Attention: MACs = B*S*Din*(Dq+Dk+Dv) (fused QKV projection)
 *              + B*N*S*T*Hq (QK^T) + B*N*S*T*Hv (AV), T = past + S;
 *              FLOPs = 2*MACs + B*S*(Dq+Dk+Dv) bias adds + 6*B*N*S*T
 *              (scale 1 + softmax 5 per score). Causal masking is not halved.
 *   MultiHeadAttention, GroupQueryAttention: the QK^T and AV terms above.
 *   SkipLayerNormalization: n (skip add) + n (bias, if given) + LayerNorm
 *     with beta, 7n + 3*rows, as LayerNormalization counts it (mean, subtract,
 *     square, variance, normalise, scale, shift per element; eps add, sqrt,
 *     reciprocal per row);
 *     SkipSimplifiedLayerNormalization / SimplifiedLayerNormalization:
 *     RMS norm as RMSNormalization counts it, 4n + 2*rows (square, mean,
 *     normalise, scale; eps add and sqrt per row).
 *   EmbedLayerNormalization: n per extra embedding add + LayerNorm.
 *   FastGelu 9n (+n bias), BiasGelu 6n, Gelu 5n, QuickGelu 6n,
 *   RotaryEmbedding 3n (two multiplies and an add per rotated element).
 *   MatMulNBits: MACs = numel(Y) * K; FLOPs = 2*MACs + 2*N*K (dequantise B).
 *   QLinearAdd / QLinearMul: 5n (dequantise both inputs, op, requantise).
 *   GatherBlockQuantized: 2n (scale and zero point per output element).
 *   FusedMatMul (ORT's fusion of MatMul with a Transpose of an input and a
 *     scaling, ContribOperators.md): alpha * op(A) @ op(B), op swapping the
 *     last two dims where transA/transB, after transBatchA/transBatchB moved
 *     the first dim behind the batch dims; MACs = numel(Y) * K, FLOPs =
 *     2*MACs + n when alpha != 1.
 *   FusedGemm (Gemm with a fused activation): Gemm's counts + n for the
 *     activation.
 */
#include "../attr.h"
#include "../dtype.h"
#include "../shape.h"
#include "contract.h"
#include "rules.h"

#include <string.h>

static enum oc_status oc_attr_heads(struct oc_op_ctx *c, const char *name, int64_t *n) {
    enum oc_status st = oc_attr_int(c->node, name, 0, n, c->diag);
    if (st != OC_OK)
        return st;
    if (*n <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute '%s' must be positive", name);
    return OC_OK;
}

static struct oc_dim oc_d(int64_t v) {
    return (struct oc_dim){v, NULL};
}

static int64_t oc_dim_add(int64_t a, int64_t b) {
    int64_t r;
    if (a < 0 || b < 0 || oc_add_i64(a, b, &r))
        return OC_DIM_UNKNOWN;
    return r;
}

static int64_t oc_dim_mul(int64_t a, int64_t b) {
    int64_t r;
    if (a < 0 || b < 0 || oc_mul_i64(a, b, &r))
        return OC_DIM_UNKNOWN;
    return r;
}

static int64_t oc_dim_div(int64_t a, int64_t b) {
    return a < 0 || b <= 0 ? OC_DIM_UNKNOWN : a / b;
}

/* ---- Attention (fused QKV projection) ----------------------------------------------- */

struct oc_attn_dims {
    int64_t b, s, din, dq, dk, dv, heads, past;
};

static enum oc_status oc_attention_dims(struct oc_op_ctx *c, struct oc_attn_dims *a) {
    const struct oc_value *x = oc_in(c, 0), *w = oc_in(c, 1), *past = oc_in(c, 4);
    if (!x || !w || x->rank < 0 || w->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 3 || w->rank != 2)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input must be [B, S, D] and weights 2-D");
    enum oc_status st = oc_attr_heads(c, "num_heads", &a->heads);
    if (st != OC_OK)
        return st;
    const int64_t *qkv;
    int64_t n;
    if ((st = oc_attr_ints(c->node, "qkv_hidden_sizes", &qkv, &n, c->diag)) != OC_OK)
        return st;
    a->b = x->dims[0].value;
    a->s = x->dims[1].value;
    a->din = x->dims[2].value;
    if (n == 3) {
        a->dq = qkv[0];
        a->dk = qkv[1];
        a->dv = qkv[2];
    } else {
        a->dq = a->dk = a->dv = oc_dim_div(w->dims[1].value, 3);
    }
    a->past = 0;
    if (past) {
        if (past->rank != 5)
            return past->rank < 0 ? OC_ERR_SHAPE : OC_FAIL(c, OC_ERR_MODEL, "past must be [2, B, N, P, H]");
        a->past = past->dims[3].value;
    }
    return OC_OK;
}

OC_RULE(oc_ms_attention_infer) {
    struct oc_attn_dims a;
    enum oc_status st = oc_attention_dims(c, &a);
    if (st != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    struct oc_dim out[3] = {x->dims[0], x->dims[1], oc_d(a.dv)};
    if ((st = oc_set_out(c, 0, x->dtype, 3, out)) != OC_OK)
        return st;
    struct oc_dim present[5] = {oc_d(2), x->dims[0], oc_d(a.heads), oc_d(oc_dim_add(a.past, a.s)),
                                oc_d(oc_dim_div(a.dk, a.heads))};
    return oc_set_out(c, 1, x->dtype, 5, present);
}

OC_COST(oc_ms_attention_cost) {
    struct oc_attn_dims a;
    enum oc_status st = oc_attention_dims(c, &a);
    if (st != OC_OK)
        return st;
    uint64_t bs = (uint64_t)a.b * (uint64_t)a.s, qkv = (uint64_t)(a.dq + a.dk + a.dv);
    uint64_t t = (uint64_t)(a.past + a.s), scores;
    oc_cost_add_macs(cost, bs * (uint64_t)a.din, qkv);
    /* QK^T and AV: B*N*S*T*(Dq/N + Dv/N) = B*S*T*(Dq + Dv) */
    oc_cost_add_macs(cost, bs * t, (uint64_t)(a.dq + a.dv));
    oc_cost_add_flops(cost, cost->macs, 2);
    if (oc_in(c, 2))
        oc_cost_add_flops(cost, bs, qkv);
    if (oc_mul_u64(bs * t, (uint64_t)a.heads, &scores))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_flops(cost, scores, 6);
    return OC_OK;
}

/* ---- MultiHeadAttention -------------------------------------------------------------- */

struct oc_mha_dims {
    int64_t b, s, heads, hq, hv, total;
};

static enum oc_status oc_mha_dims(struct oc_op_ctx *c, struct oc_mha_dims *m) {
    const struct oc_value *q = oc_in(c, 0), *k = oc_in(c, 1), *v = oc_in(c, 2), *pk = oc_in(c, 6);
    enum oc_status st = oc_attr_heads(c, "num_heads", &m->heads);
    if (st != OC_OK)
        return st;
    if (!q || q->rank < 0 || (k && k->rank < 0) || (v && v->rank < 0) || (pk && pk->rank < 0))
        return OC_ERR_SHAPE;
    m->b = q->dims[0].value;
    m->s = q->dims[1].value;
    int64_t past = pk && pk->rank == 4 ? pk->dims[2].value : 0;
    if (!k && q->rank == 5) { /* packed QKV [B, S, N, 3, H] */
        m->hq = m->hv = q->dims[4].value;
        m->total = oc_dim_add(past, m->s);
        return OC_OK;
    }
    if (q->rank != 3 || !k)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "query must be [B, S, D] with a key input");
    m->hq = oc_dim_div(q->dims[2].value, m->heads);
    if (k->rank == 3 && v && v->rank == 3) {
        m->total = oc_dim_add(past, k->dims[1].value);
        m->hv = oc_dim_div(v->dims[2].value, m->heads);
    } else if (k->rank == 4 && v && v->rank == 4) { /* [B, N, L, H]: already the whole cache */
        m->total = k->dims[2].value;
        m->hv = v->dims[3].value;
    } else if (k->rank == 5 && !v) { /* packed KV [B, L, N, 2, H] */
        m->total = oc_dim_add(past, k->dims[1].value);
        m->hv = k->dims[4].value;
    } else {
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "key/value layout not modelled");
    }
    return OC_OK;
}

OC_RULE(oc_ms_mha_infer) {
    struct oc_mha_dims m;
    enum oc_status st = oc_mha_dims(c, &m);
    if (st != OC_OK)
        return st;
    const struct oc_value *q = oc_in(c, 0);
    struct oc_dim out[3] = {q->dims[0], q->dims[1], oc_d(oc_dim_mul(m.heads, m.hv))};
    if ((st = oc_set_out(c, 0, q->dtype, 3, out)) != OC_OK)
        return st;
    struct oc_dim pk[4] = {q->dims[0], oc_d(m.heads), oc_d(m.total), oc_d(m.hq)};
    struct oc_dim pv[4] = {q->dims[0], oc_d(m.heads), oc_d(m.total), oc_d(m.hv)};
    if ((st = oc_set_out(c, 1, q->dtype, 4, pk)) != OC_OK)
        return st;
    return oc_set_out(c, 2, q->dtype, 4, pv);
}

static void oc_attn_core_cost(struct oc_cost *cost, int64_t b, int64_t heads, int64_t s, int64_t t, int64_t hq,
                              int64_t hv) {
    uint64_t scores;
    if (oc_mul_u64((uint64_t)b * (uint64_t)heads, (uint64_t)s * (uint64_t)t, &scores))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_macs(cost, scores, (uint64_t)(hq + hv));
    oc_cost_add_flops(cost, cost->macs, 2);
    oc_cost_add_flops(cost, scores, 6);
}

OC_COST(oc_ms_mha_cost) {
    struct oc_mha_dims m;
    enum oc_status st = oc_mha_dims(c, &m);
    if (st == OC_OK)
        oc_attn_core_cost(cost, m.b, m.heads, m.s, m.total, m.hq, m.hv);
    return st;
}

/* ---- GroupQueryAttention ------------------------------------------------------------- */

struct oc_gqa_dims {
    int64_t b, s, heads, kv_heads, h, past, total;
    bool assumed; /* total taken as past + s without its value */
};

static enum oc_status oc_gqa_dims(struct oc_op_ctx *c, struct oc_gqa_dims *g) {
    const struct oc_value *q = oc_in(c, 0), *k = oc_in(c, 1), *pk = oc_in(c, 3);
    enum oc_status st;
    if ((st = oc_attr_heads(c, "num_heads", &g->heads)) != OC_OK ||
        (st = oc_attr_heads(c, "kv_num_heads", &g->kv_heads)) != OC_OK)
        return st;
    if (!q || q->rank < 0 || (pk && pk->rank < 0))
        return OC_ERR_SHAPE;
    if (q->rank != 3)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "query must be [B, S, D]");
    g->b = q->dims[0].value;
    g->s = q->dims[1].value;
    g->h = oc_dim_div(q->dims[2].value, k ? g->heads : g->heads + 2 * g->kv_heads);
    g->past = pk && pk->rank == 4 ? pk->dims[2].value : 0;
    /* ORT: present length = max(past length, total_sequence_length). When
     * total_sequence_length is a graph input fed at run time (as generation
     * loops do), its value is past + new tokens by the convention of
     * onnxruntime-genai and the model builders: present = past + S. (With a
     * shared past/present buffer the run-time present is the buffer, `past`:
     * S more than that, never less.) */
    /* When it is computed from data instead (onnxruntime-genai's builders
     * take it from a ReduceSum of the attention mask), the same holds for
     * the all-ones mask a generation runtime feeds: assumed, and said
     * (g->assumed; the rule's caller notes it). */
    int64_t n;
    const int64_t *tv = oc_in_ints(c, 6, &n);
    const struct oc_value *tin = oc_in(c, 6);
    g->assumed = false;
    if (tv && n == 1 && g->past >= 0)
        g->total = tv[0] > g->past ? tv[0] : g->past;
    else if (!tv && tin && g->past >= 0 && g->s >= 0) {
        g->total = oc_dim_add(g->past, g->s);
        g->assumed = tin->kind != OC_VALUE_INPUT;
    } else
        g->total = OC_DIM_UNKNOWN;
    return OC_OK;
}

OC_RULE(oc_ms_gqa_infer) {
    struct oc_gqa_dims g;
    enum oc_status st = oc_gqa_dims(c, &g);
    if (st != OC_OK)
        return st;
    const struct oc_value *q = oc_in(c, 0);
    struct oc_dim out[3] = {q->dims[0], q->dims[1], oc_d(oc_dim_mul(g.heads, g.h))};
    struct oc_dim pres[4] = {q->dims[0], oc_d(g.kv_heads), oc_d(g.total), oc_d(g.h)};
    if ((st = oc_set_out(c, 0, q->dtype, 3, out)) != OC_OK || (st = oc_set_out(c, 1, q->dtype, 4, pres)) != OC_OK ||
        (st = oc_set_out(c, 2, q->dtype, 4, pres)) != OC_OK)
        return st;
    if (g.total < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "present length needs the value of input 'total_sequence_length'");
    if (g.assumed && c->note)
        return c->note(c, "assumed: total_sequence_length, computed from data (as from the attention mask), is past + "
                          "new tokens, as for the all-ones mask generation runtimes feed (docs/LLM.md)");
    return OC_OK;
}

OC_COST(oc_ms_gqa_cost) {
    struct oc_gqa_dims g;
    enum oc_status st = oc_gqa_dims(c, &g);
    if (st == OC_OK)
        oc_attn_core_cost(cost, g.b, g.heads, g.s, g.total, g.h, g.h);
    return st;
}

/* ---- normalisations ------------------------------------------------------------------ */

/* Output 0 (and the last output for the Skip* ops) like input 0; mean /
 * inv_std_var outputs like input 0 with the last dim 1. */
static enum oc_status oc_norm_outputs(struct oc_op_ctx *c, int32_t sum_output) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 1)
        return x && x->rank == 0 ? OC_FAIL(c, OC_ERR_MODEL, "input must have rank >= 1") : OC_ERR_SHAPE;
    enum oc_status st = oc_set_out(c, 0, x->dtype, x->rank, x->dims);
    if (st != OC_OK)
        return st;
    struct oc_dim red[64];
    if (x->rank > 64)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over 64");
    memcpy(red, x->dims, (size_t)x->rank * sizeof *red);
    red[x->rank - 1] = oc_d(1);
    for (int32_t i = 1; i < c->node->n_out; i++) {
        if (i == sum_output)
            st = oc_set_out(c, i, x->dtype, x->rank, x->dims);
        else
            st = oc_set_out(c, i, OC_DT_FLOAT, x->rank, red);
        if (st != OC_OK)
            return st;
    }
    return OC_OK;
}

OC_RULE(oc_ms_skip_ln_infer) {
    return oc_norm_outputs(c, 3);
}

OC_RULE(oc_simplified_ln_infer) {
    return oc_norm_outputs(c, -1);
}

static uint64_t oc_rows(const struct oc_value *v) {
    uint64_t n = oc_numel(v), last = v->rank > 0 ? (uint64_t)v->dims[v->rank - 1].value : 1;
    return last ? n / last : 0;
}

OC_COST(oc_ms_skip_ln_cost) {
    const struct oc_value *x = oc_in(c, 0);
    uint64_t n = oc_numel(x);
    oc_cost_add_flops(cost, n, oc_in(c, 4) ? 2 : 1); /* skip add (+ bias add) */
    oc_cost_add_flops(cost, n, 7);
    oc_cost_add_flops(cost, oc_rows(x), 3);
    return OC_OK;
}

OC_COST(oc_ms_skip_sln_cost) {
    const struct oc_value *x = oc_in(c, 0);
    uint64_t n = oc_numel(x);
    oc_cost_add_flops(cost, n, oc_in(c, 3) ? 2 : 1);
    oc_cost_add_flops(cost, n, 4);
    oc_cost_add_flops(cost, oc_rows(x), 2);
    return OC_OK;
}

OC_COST(oc_simplified_ln_cost) {
    const struct oc_value *x = oc_in(c, 0);
    oc_cost_add_flops(cost, oc_numel(x), 4);
    oc_cost_add_flops(cost, oc_rows(x), 2);
    return OC_OK;
}

OC_RULE(oc_ms_embed_ln_infer) {
    const struct oc_value *ids = oc_in(c, 0), *word = oc_in(c, 2);
    if (!ids || !word || ids->rank < 0 || word->rank < 0)
        return OC_ERR_SHAPE;
    if (ids->rank != 2 || word->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input_ids must be [B, S] and word_embedding [V, H]");
    struct oc_dim out[3] = {ids->dims[0], ids->dims[1], word->dims[1]};
    enum oc_status st = oc_set_out(c, 0, word->dtype, 3, out);
    if (st != OC_OK || (st = oc_set_out(c, 1, OC_DT_INT32, 1, ids->dims)) != OC_OK)
        return st;
    return oc_set_out(c, 2, word->dtype, 3, out);
}

OC_COST(oc_ms_embed_ln_cost) {
    const struct oc_value *y = oc_out(c, 0);
    uint64_t n = oc_numel(y);
    oc_cost_add_flops(cost, n, oc_in(c, 4) ? 2 : 1);
    oc_cost_add_flops(cost, n, 7);
    oc_cost_add_flops(cost, oc_rows(y), 3);
    return OC_OK;
}

/* ---- elementwise --------------------------------------------------------------------- */

OC_COST(oc_ms_fastgelu_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), oc_in(c, 1) ? 10 : 9);
    return OC_OK;
}

OC_COST(oc_ms_gelu_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 5);
    return OC_OK;
}

/* 6 per element: BiasGelu (bias add + erf GELU 5), QuickGelu x·sigmoid(1.702x),
 * and the default domain's Swish-24 x·sigmoid(alpha·x): multiply, Sigmoid 4,
 * multiply. */
OC_COST(oc_cost_6_flops_per_elem) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 6);
    return OC_OK;
}

/* QLinearAdd/QLinearMul: A (0) and B (3) broadcast. */
OC_RULE(oc_ms_qlinear_binary_infer) {
    const struct oc_value *a = oc_in(c, 0), *b = oc_in(c, 3);
    if (!a || !b || a->rank < 0 || b->rank < 0)
        return OC_ERR_SHAPE;
    int32_t r = a->rank > b->rank ? a->rank : b->rank;
    struct oc_dim out[64];
    if (r > 64)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over 64");
    if (oc_broadcast(a->dims, a->rank, b->dims, b->rank, out, &r) != OC_OK)
        return OC_FAIL(c, OC_ERR_MODEL, "A and B cannot be broadcast together");
    return oc_set_out(c, 0, a->dtype, r, out);
}

OC_COST(oc_ms_qlinear_binary_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 5);
    return OC_OK;
}

/* ---- quantized weights --------------------------------------------------------------- */

static enum oc_status oc_nbits_kn(struct oc_op_ctx *c, int64_t *k, int64_t *n) {
    enum oc_status st;
    if ((st = oc_attr_heads(c, "K", k)) != OC_OK || (st = oc_attr_heads(c, "N", n)) != OC_OK)
        return st;
    return OC_OK;
}

OC_RULE(oc_ms_matmul_nbits_infer) {
    const struct oc_value *a = oc_in(c, 0);
    int64_t k, n;
    enum oc_status st = oc_nbits_kn(c, &k, &n);
    if (st != OC_OK)
        return st;
    if (!a || a->rank < 0)
        return OC_ERR_SHAPE;
    if (a->rank < 1 || a->rank > 64)
        return OC_FAIL(c, OC_ERR_MODEL, "A must have rank 1 to 64");
    if (a->dims[a->rank - 1].value >= 0 && a->dims[a->rank - 1].value != k)
        return OC_FAIL(c, OC_ERR_MODEL, "A's last dim %lld differs from K=%lld", (long long)a->dims[a->rank - 1].value,
                       (long long)k);
    struct oc_dim out[64];
    memcpy(out, a->dims, (size_t)a->rank * sizeof *out);
    out[a->rank - 1] = oc_d(n);
    return oc_set_out(c, 0, a->dtype, a->rank, out);
}

OC_COST(oc_ms_matmul_nbits_cost) {
    int64_t k, n;
    enum oc_status st = oc_nbits_kn(c, &k, &n);
    if (st != OC_OK)
        return st;
    oc_cost_add_macs(cost, oc_numel(oc_out(c, 0)), (uint64_t)k);
    oc_cost_add_flops(cost, cost->macs, 2);
    oc_cost_add_flops(cost, (uint64_t)k * (uint64_t)n, 2);
    return OC_OK;
}

OC_RULE(oc_ms_gather_block_quantized_infer) {
    const struct oc_value *data = oc_in(c, 0), *idx = oc_in(c, 1), *scales = oc_in(c, 2);
    if (!data || !idx || !scales || data->rank < 0 || idx->rank < 0)
        return OC_ERR_SHAPE;
    int64_t axis, bits;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "gather_axis", 0, &axis, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "bits", 4, &bits, c->diag)) != OC_OK)
        return st;
    int32_t a;
    if (!oc_axis_norm(axis, data->rank, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "gather_axis out of range");
    if (bits <= 0 || bits > 8)
        return OC_FAIL(c, OC_ERR_MODEL, "bits must be 1 to 8");
    int32_t r = data->rank - 1 + idx->rank;
    struct oc_dim out[128];
    if (r > 128)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over 128");
    int32_t k = 0;
    for (int32_t i = 0; i < a; i++)
        out[k++] = data->dims[i];
    for (int32_t i = 0; i < idx->rank; i++)
        out[k++] = idx->dims[i];
    for (int32_t i = a + 1; i < data->rank; i++)
        out[k++] = data->dims[i];
    /* uint8 data packs 8/bits values per byte along the last axis */
    if (data->dtype == OC_DT_UINT8 && bits < 8 && r > 0 && a != data->rank - 1)
        out[r - 1] = oc_d(oc_dim_mul(out[r - 1].value, 8 / bits));
    return oc_set_out(c, 0, scales->dtype, r, out);
}

OC_COST(oc_ms_dequant_gather_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 2);
    return OC_OK;
}

/* ---- FusedMatMul ---------------------------------------------------------------------- */

enum { OC_FMM_MAX_RANK = 64 };

/* FusedMatMul's operands as the product sees them: A and B, each with its
 * first dim moved behind the batch dims where transBatchA/transBatchB
 * (permutation [1, ..., r-2, 0, r-1]: ONNX Runtime's run-time shapes agree,
 * oracle.ort_optimized) and then its last two dims swapped where
 * transA/transB (a rank-1 operand is left as is) */
struct oc_fmm {
    const struct oc_value *a, *b;
    struct oc_value view[2];
    struct oc_dim dims[2][OC_FMM_MAX_RANK];
};

static const struct oc_value *oc_fmm_view(const struct oc_value *v, int64_t batch, int64_t t, struct oc_value *view,
                                          struct oc_dim *dims) {
    int32_t r = v->rank;
    if ((!t && !(batch && r >= 3)) || r < 2)
        return v;
    *view = *v;
    memcpy(dims, v->dims, (size_t)r * sizeof *dims);
    if (batch && r >= 3) { /* [d0, d1, ..., d(r-2), d(r-1)] -> [d1, ..., d(r-2), d0, d(r-1)] */
        memmove(dims, v->dims + 1, (size_t)(r - 2) * sizeof *dims);
        dims[r - 2] = v->dims[0];
    }
    if (t) {
        struct oc_dim x = dims[r - 2];
        dims[r - 2] = dims[r - 1];
        dims[r - 1] = x;
    }
    view->dims = dims;
    return view;
}

static enum oc_status oc_fmm_operands(struct oc_op_ctx *c, struct oc_fmm *m) {
    int64_t ta, tb, tba, tbb;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "transA", 0, &ta, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "transB", 0, &tb, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "transBatchA", 0, &tba, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "transBatchB", 0, &tbb, c->diag)) != OC_OK)
        return st;
    const struct oc_value *a = oc_in(c, 0), *b = oc_in(c, 1);
    if (!a || !b || a->rank < 0 || b->rank < 0)
        return OC_ERR_SHAPE;
    if (a->rank > OC_FMM_MAX_RANK || b->rank > OC_FMM_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_FMM_MAX_RANK);
    m->a = oc_fmm_view(a, tba, ta, &m->view[0], m->dims[0]);
    m->b = oc_fmm_view(b, tbb, tb, &m->view[1], m->dims[1]);
    return OC_OK;
}

/* DynamicQuantizeMatMul (A float, B 8-bit, b_scale, b_zero_point?, bias?)
 * and MatMulIntegerToFloat (A and B 8-bit, a_scale, b_scale, a_zero_point?,
 * b_zero_point?, bias?), ONNX Runtime's fusions of a quantized MatMul: Y is
 * MatMul(A, B) in the scale's float type. */
static const struct oc_value *oc_ms_qmm_scale(struct oc_op_ctx *c) {
    return oc_in(c, strcmp(c->node->op_type, "DynamicQuantizeMatMul") == 0 ? 2 : 3);
}

OC_RULE(oc_ms_quantized_matmul_infer) {
    const struct oc_value *scale = oc_ms_qmm_scale(c);
    if (!scale || !scale->dtype)
        return OC_ERR_SHAPE;
    return oc_matmul_shape(c, oc_in(c, 0), oc_in(c, 1), scale->dtype);
}

/* 2 x MACs, as MatMulInteger's, with its zero points (A's always for
 * DynamicQuantizeMatMul, which quantizes A itself: DynamicQuantizeLinear's
 * 4 numel(A) + 8 first); then numel(Y) to scale the integer sums and
 * numel(Y) for a bias. */
OC_COST(oc_ms_quantized_matmul_cost) {
    const struct oc_value *a = oc_in(c, 0), *y = oc_out(c, 0);
    bool dynamic = strcmp(c->node->op_type, "DynamicQuantizeMatMul") == 0;
    oc_matmul_macs(a, y, cost);
    oc_cost_add_flops(cost, cost->macs, 2);
    if (dynamic) {
        oc_cost_add_flops(cost, oc_numel(a), 5); /* min, max, divide, add; the zero point subtracted */
        oc_cost_add_flops(cost, 8, 1);
    } else if (oc_in(c, 4)) {
        oc_cost_add_flops(cost, oc_numel(a), 1);
    }
    if (oc_in(c, dynamic ? 3 : 5))
        oc_cost_add_flops(cost, oc_numel(oc_in(c, 1)), 1);
    oc_cost_add_flops(cost, oc_numel(y), oc_in(c, dynamic ? 4 : 6) ? 2 : 1);
    return OC_OK;
}

OC_RULE(oc_ms_fused_matmul_infer) {
    struct oc_fmm m;
    enum oc_status st = oc_fmm_operands(c, &m);
    return st != OC_OK ? st : oc_matmul_shape(c, m.a, m.b, m.a->dtype);
}

OC_COST(oc_ms_fused_matmul_cost) {
    struct oc_fmm m;
    float alpha;
    enum oc_status st = oc_fmm_operands(c, &m);
    if (st == OC_OK)
        st = oc_attr_float(c->node, "alpha", 1.0f, &alpha, c->diag);
    if (st != OC_OK)
        return st;
    oc_matmul_macs(m.a, oc_out(c, 0), cost);
    oc_cost_add_flops(cost, cost->macs, 2);
    if (alpha != 1.0f)
        oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 1);
    return OC_OK;
}

/* ---- FusedGemm ------------------------------------------------------------------------ */

OC_COST(oc_ms_fused_gemm_cost) {
    enum oc_status st = oc_gemm_cost(c, cost);
    return st != OC_OK ? st : oc_fused_activation_cost(c, cost);
}
