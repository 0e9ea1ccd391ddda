/*
 * ops/attention.c — Attention (opset 23, 24), RotaryEmbedding (23),
 * TensorScatter (24): the transformer ops of the default domain.
 *
 * Attention, with B batch, Hq query heads, Hkv key/value heads, Sq query
 * length, T = past + kv length (the total sequence), Dh the Q/K head size and
 * Dv the V head size (4-D: Q [B, Hq, Sq, Dh]; 3-D: Q [B, Sq, Hq*Dh] and the
 * heads come from q_num_heads / kv_num_heads):
 *   MACs  = B*Hq*Sq*T*Dh  (Q K^T)  +  B*Hq*Sq*T*Dv  (softmax(.) V)
 *   FLOPs = 2 * MACs + S * (1 + 5 + m + 3 s), S = B*Hq*Sq*T score elements:
 *           1 scale multiply, softmax 5 (as Softmax), m = 1 when a bias is
 *           added (attn_mask, is_causal or nonpad_kv_seqlen), s = 1 when
 *           softcap > 0 (divide, tanh, multiply).
 *   Grouped-query heads (Hkv < Hq) share K and V but every query head still
 *   does its own products, so the counts use Hq. Causal masking is NOT
 *   halved: the op defines the full Sq x T score matrix, masked by adding
 *   -inf, and that is the work counted; kernels that skip the masked half do
 *   about (MACs + softmax) / 2 less. The past/present concatenation moves
 *   data only.
 * RotaryEmbedding: each rotated pair (x1, x2) becomes (cos x1 - sin x2,
 *   sin x1 + cos x2): 6 FLOPs per pair, 3 per rotated element;
 *   FLOPs = 3 * rotary_dim * numel(X) / head_size.
 * TensorScatter: 0 FLOPs (writes update into a copy of the cache).
 */
#include "../attr.h"
#include "../dtype.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

struct oc_attn {
    int32_t rank;                    /* 3 or 4                                 */
    struct oc_dim b, sq, skv, past;  /* past.value 0 when no past_key          */
    int64_t hq, hkv, dh, dv;         /* -1 when unknown                        */
    int64_t total;                   /* past + kv length, -1 when unknown      */
};

static int64_t oc_div_exact(int64_t a, int64_t b) {
    return a >= 0 && b > 0 && a % b == 0 ? a / b : -1;
}

static enum oc_status oc_attn_read(struct oc_op_ctx *c, struct oc_attn *t) {
    const struct oc_value *q = oc_in(c, 0), *k = oc_in(c, 1), *v = oc_in(c, 2), *pk = oc_in(c, 4),
                          *pv = oc_in(c, 5);
    if (!q || !k || !v || q->rank < 0 || k->rank < 0 || v->rank < 0)
        return OC_ERR_SHAPE;
    if ((q->rank != 3 && q->rank != 4) || k->rank != q->rank || v->rank != q->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "Q, K and V must all be 3-D or all 4-D (ranks %d, %d, %d)", q->rank,
                       k->rank, v->rank);
    if ((pk == NULL) != (pv == NULL))
        return OC_FAIL(c, OC_ERR_MODEL, "past_key and past_value must be given together");
    int64_t qh, kvh;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "q_num_heads", 0, &qh, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "kv_num_heads", 0, &kvh, c->diag)) != OC_OK)
        return st;
    if (qh < 0 || kvh < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "q_num_heads and kv_num_heads must be positive");
    t->rank = q->rank;
    t->b = q->dims[0];
    if (q->rank == 4) {
        t->hq = q->dims[1].value, t->sq = q->dims[2], t->dh = q->dims[3].value;
        t->hkv = k->dims[1].value, t->skv = k->dims[2], t->dv = v->dims[3].value;
        int64_t pairs[][2] = {{k->dims[3].value, t->dh}, {v->dims[1].value, t->hkv},
                              {v->dims[2].value, t->skv.value}, {k->dims[0].value, t->b.value}};
        for (size_t i = 0; i < OC_ARRAY_LEN(pairs); i++)
            if (pairs[i][0] >= 0 && pairs[i][1] >= 0 && pairs[i][0] != pairs[i][1])
                return OC_FAIL(c, OC_ERR_MODEL, "K and V shapes do not match Q: %lld vs %lld",
                               (long long)pairs[i][0], (long long)pairs[i][1]);
    } else {
        if (!qh || !kvh)
            return OC_FAIL(c, OC_ERR_MODEL, "3-D Q, K, V need the q_num_heads and kv_num_heads attributes");
        t->hq = qh, t->hkv = kvh, t->sq = q->dims[1], t->skv = k->dims[1];
        t->dh = oc_div_exact(q->dims[2].value, qh);
        t->dv = oc_div_exact(v->dims[2].value, kvh);
        int64_t dk = oc_div_exact(k->dims[2].value, kvh);
        if ((q->dims[2].value >= 0 && t->dh < 0) || (v->dims[2].value >= 0 && t->dv < 0) ||
            (k->dims[2].value >= 0 && dk < 0))
            return OC_FAIL(c, OC_ERR_MODEL, "hidden sizes %lld, %lld, %lld are not multiples of the head counts",
                           (long long)q->dims[2].value, (long long)k->dims[2].value, (long long)v->dims[2].value);
        if (dk >= 0 && t->dh >= 0 && dk != t->dh)
            return OC_FAIL(c, OC_ERR_MODEL, "Q head size %lld differs from K head size %lld", (long long)t->dh,
                           (long long)dk);
    }
    if (t->hq >= 0 && t->hkv > 0 && t->hq % t->hkv != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "q_num_heads %lld is not a multiple of kv_num_heads %lld", (long long)t->hq,
                       (long long)t->hkv);
    t->past = (struct oc_dim){0, NULL};
    if (pk) {
        if (pk->rank < 0 || pv->rank < 0)
            return OC_ERR_SHAPE;
        if (pk->rank != 4 || pv->rank != 4)
            return OC_FAIL(c, OC_ERR_MODEL, "past_key and past_value must be 4-D");
        t->past = pk->dims[2];
        if ((pk->dims[3].value >= 0 && t->dh >= 0 && pk->dims[3].value != t->dh) ||
            (pv->dims[3].value >= 0 && t->dv >= 0 && pv->dims[3].value != t->dv) ||
            (pk->dims[1].value >= 0 && t->hkv >= 0 && pk->dims[1].value != t->hkv))
            return OC_FAIL(c, OC_ERR_MODEL, "past_key/past_value do not match K/V heads and head sizes");
    }
    t->total = -1;
    if (t->past.value >= 0 && t->skv.value >= 0 && oc_add_i64(t->past.value, t->skv.value, &t->total))
        return OC_FAIL(c, OC_ERR_OVERFLOW, "total sequence length overflows");
    return OC_OK;
}

OC_RULE(oc_attention_infer) {
    struct oc_attn t;
    enum oc_status st = oc_attn_read(c, &t);
    if (st != OC_OK)
        return st;
    const struct oc_value *q = oc_in(c, 0), *k = oc_in(c, 1), *v = oc_in(c, 2);
    struct oc_dim hq = {t.hq, t.rank == 4 ? q->dims[1].sym : NULL}, hkv = {t.hkv, NULL};
    struct oc_dim dh = {t.dh, NULL}, dv = {t.dv, NULL}, total = {t.total, t.past.value == 0 ? t.skv.sym : NULL};
    struct oc_dim y[4];
    if (t.rank == 4) {
        y[0] = t.b, y[1] = hq, y[2] = t.sq, y[3] = dv;
    } else {
        int64_t hid = -1;
        if (t.dv >= 0 && oc_mul_i64(t.hq, t.dv, &hid))
            return OC_FAIL(c, OC_ERR_OVERFLOW, "output hidden size overflows");
        y[0] = t.b, y[1] = t.sq, y[2] = (struct oc_dim){hid, NULL};
    }
    if ((st = oc_set_out(c, 0, q->dtype, t.rank, y)) != OC_OK)
        return st;
    struct oc_dim pk[4] = {t.b, hkv, total, dh}, pv[4] = {t.b, hkv, total, dv}, qk[4] = {t.b, hq, t.sq, total};
    if ((st = oc_set_out(c, 1, k->dtype, 4, pk)) != OC_OK || (st = oc_set_out(c, 2, v->dtype, 4, pv)) != OC_OK)
        return st;
    return oc_set_out(c, 3, q->dtype, 4, qk);
}

/* Formula at the top: 2 * MACs + S * (6 + mask + 3 softcap). */
OC_COST(oc_attention_cost) {
    struct oc_attn t;
    enum oc_status st = oc_attn_read(c, &t);
    if (st != OC_OK)
        return st;
    int64_t causal;
    float softcap;
    if ((st = oc_attr_int(c->node, "is_causal", 0, &causal, c->diag)) != OC_OK ||
        (st = oc_attr_float(c->node, "softcap", 0.0f, &softcap, c->diag)) != OC_OK)
        return st;
    uint64_t s;
    bool of = oc_mul_u64((uint64_t)t.b.value, (uint64_t)t.hq, &s);
    of |= oc_mul_u64(s, (uint64_t)t.sq.value, &s);
    of |= oc_mul_u64(s, (uint64_t)t.total, &s);
    if (of)
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_macs(cost, s, (uint64_t)t.dh);
    oc_cost_add_macs(cost, s, (uint64_t)t.dv);
    oc_cost_add_flops(cost, cost->macs, 2);
    bool mask = oc_in(c, 3) || causal || oc_in(c, 6);
    oc_cost_add_flops(cost, s, 6 + (mask ? 1 : 0) + (softcap > 0.0f ? 3 : 0));
    return OC_OK;
}

/* head_size and rotary_dim of a RotaryEmbedding node; -1 when unknown. */
static enum oc_status oc_rope_read(struct oc_op_ctx *c, int64_t *head, int64_t *rot) {
    const struct oc_value *x = oc_in(c, 0), *cs = oc_in(c, 1), *sn = oc_in(c, 2), *pos = oc_in(c, 3);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 3 && x->rank != 4)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected 3 or 4", x->rank);
    int64_t nh, rd;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "num_heads", 0, &nh, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "rotary_embedding_dim", 0, &rd, c->diag)) != OC_OK)
        return st;
    if (nh < 0 || rd < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "num_heads and rotary_embedding_dim must not be negative");
    if (x->rank == 4) {
        *head = x->dims[3].value;
    } else {
        if (!nh)
            return OC_FAIL(c, OC_ERR_MODEL, "3-D input needs the num_heads attribute");
        *head = oc_div_exact(x->dims[2].value, nh);
        if (x->dims[2].value >= 0 && *head < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "hidden size %lld is not a multiple of num_heads %lld",
                           (long long)x->dims[2].value, (long long)nh);
    }
    *rot = rd ? rd : *head;
    if (*rot >= 0 && (*rot % 2 || (*head >= 0 && *rot > *head)))
        return OC_FAIL(c, OC_ERR_MODEL, "rotary dim %lld must be even and at most the head size %lld",
                       (long long)*rot, (long long)*head);
    const struct oc_value *caches[2] = {cs, sn};
    for (int i = 0; i < 2; i++) {
        const struct oc_value *cc = caches[i];
        if (!cc || cc->rank < 0)
            continue;
        if (cc->rank != (pos ? 2 : 3))
            return OC_FAIL(c, OC_ERR_MODEL, "cos/sin cache has rank %d, expected %d", cc->rank, pos ? 2 : 3);
        int64_t last = cc->dims[cc->rank - 1].value;
        if (last >= 0 && *rot >= 0 && last * 2 != *rot)
            return OC_FAIL(c, OC_ERR_MODEL, "cos/sin cache last dim %lld is not rotary dim / 2 = %lld",
                           (long long)last, (long long)(*rot / 2));
    }
    return OC_OK;
}

OC_RULE(oc_rotary_embedding_infer) {
    int64_t head, rot;
    enum oc_status st = oc_rope_read(c, &head, &rot);
    if (st != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* 3 * rotary_dim per (token, head): numel(X) / head_size * rotary_dim * 3. */
OC_COST(oc_rotary_embedding_cost) {
    int64_t head, rot;
    enum oc_status st = oc_rope_read(c, &head, &rot);
    if (st != OC_OK)
        return st;
    if (head <= 0)
        return OC_OK;
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)) / (uint64_t)head, (uint64_t)rot * 3);
    return OC_OK;
}

OC_RULE(oc_tensor_scatter_infer) {
    const struct oc_value *past = oc_in(c, 0), *upd = oc_in(c, 1);
    if (!past || past->rank < 0)
        return OC_ERR_SHAPE;
    char mode[16];
    int64_t axis;
    enum oc_status st;
    if ((st = oc_attr_string(c->node, "mode", "linear", mode, sizeof mode, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "axis", -2, &axis, c->diag)) != OC_OK)
        return st;
    if (strcmp(mode, "linear") && strcmp(mode, "circular"))
        return OC_FAIL(c, OC_ERR_MODEL, "mode '%s' is not linear or circular", mode);
    int32_t a;
    if (!oc_axis_norm(axis, past->rank, &a) || a == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld is out of range or the batch axis (rank %d)", (long long)axis,
                       past->rank);
    if (upd && upd->rank >= 0) {
        if (upd->rank != past->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "update has rank %d, past_cache rank %d", upd->rank, past->rank);
        for (int32_t i = 0; i < past->rank; i++) {
            int64_t p = past->dims[i].value, u = upd->dims[i].value;
            if (p >= 0 && u >= 0 && (i == a ? u > p : u != p))
                return OC_FAIL(c, OC_ERR_MODEL, "update dim %d is %lld, past_cache dim %lld", i, (long long)u,
                               (long long)p);
        }
    }
    return oc_set_out(c, 0, past->dtype, past->rank, past->dims);
}
