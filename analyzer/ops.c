/*
 * ops.c — the registry table built from ops.def and the version lookup. The
 * helpers the rules call are rule_io.c.
 */
#include "ops.h"
#include "ops/rules.h"

#include <string.h>

static const struct oc_op_def oc_op_table[] = {
#define OC_OP(dom, name, since, imin, imax, omin, omax, fl, buf, inf, cst, fld, rp)                     \
    {dom, name, since, imin, imax, omin, omax, fl, buf, inf, cst, fld},
#include "ops.def"
#undef OC_OP
};

void oc_op_resolve(struct oc_graph *g) {
    for (int32_t i = 0; i < g->n_nodes; i++) {
        struct oc_node *n = &g->nodes[i];
        n->def = oc_op_find(n->domain, n->op_type, n->opset, &n->def_earliest);
    }
}

size_t oc_op_count(void) {
    return OC_ARRAY_LEN(oc_op_table);
}

const struct oc_op_def *oc_op_at(size_t i) {
    return i < OC_ARRAY_LEN(oc_op_table) ? &oc_op_table[i] : NULL;
}

static int oc_op_key_cmp(const char *dom, const char *op, const struct oc_op_def *r) {
    int c = strcmp(dom, r->domain);
    return c ? c : strcmp(op, r->op_type);
}

const struct oc_op_def *oc_op_find(const char *domain, const char *op_type, int64_t opset,
                                   int32_t *earliest) {
    if (earliest)
        *earliest = 0;
    if (!domain || strcmp(domain, "ai.onnx") == 0)
        domain = "";
    /* binary search for the first row of (domain, op_type) */
    size_t lo = 0, hi = OC_ARRAY_LEN(oc_op_table);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (oc_op_key_cmp(domain, op_type, &oc_op_table[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct oc_op_def *best = NULL;
    for (size_t i = lo; i < OC_ARRAY_LEN(oc_op_table) && oc_op_key_cmp(domain, op_type, &oc_op_table[i]) == 0;
         i++) {
        if (oc_op_table[i].since_version <= opset)
            best = &oc_op_table[i];
        else if (!best && earliest)
            *earliest = oc_op_table[i].since_version;
    }
    if (best && earliest)
        *earliest = 0;
    return best;
}

/* ---- helpers ------------------------------------------------------------------- */
