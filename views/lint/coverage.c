/*
 * coverage.c — coverage/no-cost (lint.h, rules.h).
 */
#include "rules.h"

/* ---- coverage/no-cost ---------------------------------------------------------------- */

/* One finding per node that has no cost of its own making (no rule, no
   shape); the nodes without a cost only because of it are counted in its
   message: they follow once it has a rule. */
enum oc_status oc_rule_no_cost(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t downstream = 0;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        const struct oc_node *n = &g->nodes[g->order[s]];
        downstream += (n->cost.flags & OC_COST_UNKNOWN || n->status != OC_OK) && n->upstream;
    }
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if ((!(n->cost.flags & OC_COST_UNKNOWN) && n->status == OC_OK) || n->upstream)
            continue;
        char lab[160], more[96] = "";
        if (downstream)
            snprintf(more, sizeof more, " (%d node%s downstream of such nodes ha%s none either)", downstream,
                     downstream == 1 ? "" : "s", downstream == 1 ? "s" : "ve");
        struct oc_lint_finding *f =
            oc_lint_add(c, OC_LINT_NO_COST, "node %s has no cost%s%s%s: the totals are lower bounds",
                        oc_node_label(n, lab, sizeof lab), n->reason ? ": " : "", n->reason ? n->reason : "", more);
        if (!f || !oc_lint_node(f, i))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}
