/*
 * perf.c — perf/tensor-core-alignment (lint.h, rules.h).
 */
#include "rules.h"

/* ---- perf/tensor-core-alignment -------------------------------------------------------- */

/* The GEMM a contraction is, M x N x K (a convolution as implicit GEMM:
   M = batch x output positions, N = output channels per group, K = input
   channels per group x kernel); false when not one or not known. */
static bool oc_gemm_dims(const struct oc_graph *g, const struct oc_node *n, uint64_t *m, uint64_t *nn, uint64_t *k) {
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *a = &g->values[n->in[0]], *b = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    uint64_t ny;
    if (a->rank < 1 || b->rank < 1 || y->rank < 1 || !oc_value_numel(y, &ny))
        return false;
    if (oc_node_is(n, "MatMul") || oc_node_is(n, "Gemm")) {
        int64_t ta = 0;
        if (oc_node_is(n, "Gemm") && oc_attr_int(n, "transA", 0, &ta, NULL) != OC_OK)
            return false;
        int64_t kk = a->rank >= 2 && ta ? a->dims[a->rank - 2].value : a->dims[a->rank - 1].value;
        int64_t cols = y->dims[y->rank - 1].value;
        if (kk <= 0 || cols <= 0)
            return false;
        *k = (uint64_t)kk;
        *nn = (uint64_t)cols;
        *m = ny / (uint64_t)cols;
        return true;
    }
    if (oc_node_is(n, "Conv") && b->rank >= 3 && y->rank >= 3) {
        int64_t groups = 1;
        if (oc_attr_int(n, "group", 1, &groups, NULL) != OC_OK || groups < 1 || b->dims[0].value <= 0)
            return false;
        uint64_t kk = 1;
        for (int32_t d = 1; d < b->rank; d++) { /* C_in / group x kernel */
            if (b->dims[d].value <= 0)
                return false;
            kk *= (uint64_t)b->dims[d].value;
        }
        *k = kk;
        *nn = (uint64_t)b->dims[0].value / (uint64_t)groups;
        *m = ny / (uint64_t)b->dims[0].value; /* batch x output positions */
        return *nn > 0;
    }
    return false;
}

enum oc_status oc_rule_tc_alignment(struct oc_lint_ctx *c) {
    const struct oc_perf *perf = c->o->perf;
    const struct oc_graph *g = c->g;
    if (!perf)
        return OC_OK;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (i >= perf->n_nodes || !perf->nodes[i].known || !c->live[i])
            continue;
        enum oc_unit u = perf->nodes[i].unit;
        uint64_t tile = u == OC_UNIT_FP16_TC || u == OC_UNIT_BF16_TC ? 8
                        : u == OC_UNIT_INT8_TC || u == OC_UNIT_FP8_TC ? 16
                        : u == OC_UNIT_TF32_TC                         ? 4
                                                                       : 0;
        uint64_t m, nn, k;
        if (!tile || !oc_gemm_dims(g, n, &m, &nn, &k) || (nn % tile == 0 && k % tile == 0))
            continue;
        /* the tiles along N and K (M, batch x positions, is large and left as it is) */
        uint64_t np = (nn + tile - 1) / tile * tile, kp = (k + tile - 1) / tile * tile;
        double extra = (double)np * (double)kp / ((double)nn * (double)k) - 1.0;
        double t_extra = perf->nodes[i].t_compute * extra;
        char lab[160];
        struct oc_lint_finding *f = oc_lint_add(
            c, OC_LINT_TC_ALIGNMENT,
            "%s on %s: N %llu and K %llu (M %llu) are not all multiples of %llu: the tiles compute %.2f %% more "
            "MACs than the %llu it needs, about %.3f us more than the prediction; make them multiples of %llu "
            "(pad the dim: %llu and %llu)",
            oc_node_label(n, lab, sizeof lab), oc_unit_name(u), (unsigned long long)nn, (unsigned long long)k,
            (unsigned long long)m, (unsigned long long)tile, 100.0 * extra, (unsigned long long)(m * nn * k),
            t_extra * 1e6, (unsigned long long)tile, (unsigned long long)np, (unsigned long long)kp);
        if (!f || !oc_lint_node(f, i))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}
