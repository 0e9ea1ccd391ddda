/*
 * ops/gemm.c — Gemm and MatMul.
 *
 * Gemm (Operators.md#Gemm): Y[M,N] = alpha * A'[M,K] B'[K,N] + beta * C
 *   MACs  = M * N * K
 *   FLOPs = 2 * MACs, + M*N if alpha != 1, + M*N if C is given (the add),
 *           + M*N more if C is given and beta != 1.
 * MatMul (numpy matmul semantics, batch dims broadcast):
 *   MACs  = prod(batch dims of Y) * M * N * K,  FLOPs = 2 * MACs.
 */
#include "../attr.h"
#include "contract.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

static enum oc_status oc_gemm_dims(struct oc_op_ctx *c, int64_t *m, int64_t *n, int64_t *k) {
    const struct oc_value *a = oc_in(c, 0), *b = oc_in(c, 1);
    int64_t ta, tb;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "transA", 0, &ta, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "transB", 0, &tb, c->diag)) != OC_OK)
        return st;
    if (!a || !b || a->rank < 0 || b->rank < 0)
        return OC_ERR_SHAPE;
    if (a->rank != 2 || b->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "A and B must be 2-D (got ranks %d and %d)", a->rank, b->rank);
    *m = a->dims[ta ? 1 : 0].value;
    *k = a->dims[ta ? 0 : 1].value;
    int64_t kb = b->dims[tb ? 1 : 0].value;
    *n = b->dims[tb ? 0 : 1].value;
    if (*k >= 0 && kb >= 0 && *k != kb)
        return OC_FAIL(c, OC_ERR_MODEL, "inner dimensions differ: A gives K=%lld, B gives K=%lld", (long long)*k,
                       (long long)kb);
    if (*k < 0)
        *k = kb;
    return OC_OK;
}

OC_RULE(oc_gemm_infer) {
    int64_t m, n, k;
    enum oc_status st = oc_gemm_dims(c, &m, &n, &k);
    if (st != OC_OK)
        return st;
    const struct oc_value *a = oc_in(c, 0), *b = oc_in(c, 1), *cc = oc_in(c, 2);
    int64_t ta, tb;
    oc_attr_int(c->node, "transA", 0, &ta, c->diag); /* types checked by oc_gemm_dims */
    oc_attr_int(c->node, "transB", 0, &tb, c->diag);
    struct oc_dim out[2] = {a->dims[ta ? 1 : 0], b->dims[tb ? 0 : 1]};
    (void)m;
    (void)n;
    (void)k;
    if (cc && cc->rank >= 0) {
        struct oc_dim tmp[2];
        int32_t r;
        if (cc->rank > 2 || oc_broadcast(out, 2, cc->dims, cc->rank, tmp, &r) != OC_OK ||
            (tmp[0].value != out[0].value && out[0].value >= 0) ||
            (tmp[1].value != out[1].value && out[1].value >= 0))
            return OC_FAIL(c, OC_ERR_MODEL, "C cannot be broadcast to [M, N]");
    }
    return oc_set_out(c, 0, a->dtype, 2, out);
}

OC_COST(oc_gemm_cost) {
    int64_t m, n, k;
    enum oc_status st = oc_gemm_dims(c, &m, &n, &k);
    if (st != OC_OK)
        return st;
    float alpha, beta;
    if ((st = oc_attr_float(c->node, "alpha", 1.0f, &alpha, c->diag)) != OC_OK ||
        (st = oc_attr_float(c->node, "beta", 1.0f, &beta, c->diag)) != OC_OK)
        return st;
    uint64_t mn;
    if (oc_mul_u64((uint64_t)m, (uint64_t)n, &mn))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_macs(cost, mn, (uint64_t)k);
    oc_cost_add_flops(cost, cost->macs, 2);
    if (alpha != 1.0f)
        oc_cost_add_flops(cost, mn, 1);
    if (oc_in(c, 2)) {
        oc_cost_add_flops(cost, mn, 1);
        if (beta != 1.0f)
            oc_cost_add_flops(cost, mn, 1);
    }
    return OC_OK;
}

enum { OC_MAX_RANK_MM = 64 };

enum oc_status oc_matmul_shape(struct oc_op_ctx *c, const struct oc_value *a, const struct oc_value *b,
                               int32_t dtype) {
    if (!a || !b || a->rank < 0 || b->rank < 0)
        return OC_ERR_SHAPE;
    if (a->rank == 0 || b->rank == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "MatMul inputs must have rank >= 1");
    if (a->rank > OC_MAX_RANK_MM || b->rank > OC_MAX_RANK_MM)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_MAX_RANK_MM);
    /* 1-D operands are promoted: A [K] -> [1, K], B [K] -> [K, 1], then removed */
    const struct oc_dim *ad = a->dims, *bd = b->dims;
    int32_t ar = a->rank, br = b->rank;
    struct oc_dim ka = ad[ar - 1], kb = br == 1 ? bd[0] : bd[br - 2];
    if (ka.value >= 0 && kb.value >= 0 && ka.value != kb.value)
        return OC_FAIL(c, OC_ERR_MODEL, "inner dimensions differ: %lld vs %lld", (long long)ka.value,
                       (long long)kb.value);
    struct oc_dim batch[OC_MAX_RANK_MM];
    int32_t nb = 0;
    if (ar > 2 || br > 2) {
        if (oc_broadcast(ad, ar > 2 ? ar - 2 : 0, bd, br > 2 ? br - 2 : 0, batch, &nb) != OC_OK)
            return OC_FAIL(c, OC_ERR_MODEL, "batch dimensions cannot be broadcast");
    }
    struct oc_dim out[OC_MAX_RANK_MM + 2];
    int32_t r = 0;
    for (int32_t i = 0; i < nb; i++)
        out[r++] = batch[i];
    if (ar >= 2)
        out[r++] = ad[ar - 2];
    if (br >= 2)
        out[r++] = bd[br - 1];
    return oc_set_out(c, 0, dtype, r, out);
}

void oc_matmul_macs(const struct oc_value *a, const struct oc_value *y, struct oc_cost *cost) {
    /* numel(Y) = batch * M * N; MACs = numel(Y) * K */
    oc_cost_add_macs(cost, oc_numel(y), (uint64_t)a->dims[a->rank - 1].value);
}

OC_RULE(oc_matmul_infer) {
    const struct oc_value *a = oc_in(c, 0);
    return oc_matmul_shape(c, a, oc_in(c, 1), a ? a->dtype : 0);
}

OC_COST(oc_matmul_cost) {
    oc_matmul_macs(oc_in(c, 0), oc_out(c, 0), cost);
    oc_cost_add_flops(cost, cost->macs, 2);
    return OC_OK;
}
