/*
 * memory.c — memory/peak and memory/peak-order (lint.h, rules.h).
 */
#include "rules.h"

/* ---- memory/peak and memory/peak-order --------------------------------------------------- */

/* The most node-input visits the order's scan makes before it gives up. */
#define OC_ORDER_WORK 200000000ull

/* An execution order that keeps memory low: of the nodes ready, the one
   that allocates least less what it frees (ties to file order). Greedy;
   its peak is then computed exactly. NULL when out of memory or when the
   scan passes OC_ORDER_WORK (*gave_up then). */
static int32_t *oc_low_memory_order(const struct oc_lint_ctx *c, bool *gave_up) {
    const struct oc_graph *g = c->g;
    const int32_t *start = c->rstart, *adj = c->radj; /* the readers of each value */
    int32_t nn = g->n_nodes, nv = g->n_values, n_ready = 0;
    int32_t *order = malloc(((size_t)nn + 1) * sizeof *order), *missing = calloc((size_t)nn + 1, sizeof *missing);
    int32_t *readers = calloc((size_t)nv + 1, sizeof *readers), *root = malloc(((size_t)nv + 1) * sizeof *root);
    int32_t *ready = malloc(((size_t)nn + 1) * sizeof *ready);
    uint64_t *bytes = calloc((size_t)nv + 1, sizeof *bytes);
    *gave_up = false;
    if (!order || !missing || !readers || !root || !ready || !bytes) {
        free(order), free(missing), free(readers), free(root), free(ready), free(bytes);
        return NULL;
    }
    for (int32_t v = 0; v < nv; v++) {
        root[v] = v;
        uint64_t b = 0;
        if (g->values[v].kind != OC_VALUE_INITIALIZER && oc_value_bytes(&g->values[v], &b))
            bytes[v] = b;
    }
    for (int32_t s = 0; s < nn; s++) { /* an alias's output is its input's buffer */
        const struct oc_node *n = &g->nodes[g->order[s]];
        if (n->def && (n->def->flags & OC_OPF_ALIAS) && n->n_in > 0 && n->in[0] >= 0 && n->n_out > 0 &&
            n->out[0] >= 0 && g->values[n->in[0]].kind != OC_VALUE_INITIALIZER)
            root[n->out[0]] = root[n->in[0]];
    }
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[i];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v < 0)
                continue;
            readers[root[v]]++;
            if (g->values[v].kind == OC_VALUE_NODE && g->values[v].producer >= 0)
                missing[i]++;
        }
        if (!missing[i])
            ready[n_ready++] = i;
    }
    uint64_t work = 0; /* the scan's cost so far: a hostile graph (a huge ready set, wide nodes) gives up */
    for (int32_t s = 0; s < nn; s++) {
        int32_t best = -1, best_at = -1;
        double best_net = 0;
        for (int32_t r = 0; r < n_ready && order; r++) {
            int32_t i = ready[r];
            const struct oc_node *n = &g->nodes[i];
            double net = 0; /* a heuristic: doubles, no overflow */
            work += 1 + (uint64_t)n->n_out + (uint64_t)n->n_in * (uint64_t)n->n_in;
            if (work > OC_ORDER_WORK) {
                free(order), order = NULL;
                break;
            }
            for (int32_t k = 0; k < n->n_out; k++) /* what it allocates */
                if (n->out[k] >= 0 && root[n->out[k]] == n->out[k])
                    net += (double)bytes[n->out[k]];
            for (int32_t k = 0; k < n->n_in; k++) { /* what it frees: buffers it reads last */
                int32_t v = n->in[k];
                if (v < 0)
                    continue;
                int32_t b = root[v], mine = 0;
                bool first_mention = true;
                for (int32_t j = 0; j < n->n_in; j++) {
                    bool same = n->in[j] >= 0 && root[n->in[j]] == b;
                    mine += same;
                    first_mention &= !(same && j < k);
                }
                if (first_mention && readers[b] == mine && !g->values[b].is_graph_output)
                    net -= (double)bytes[b];
            }
            if (best < 0 || net < best_net || (net == best_net && i < best)) {
                best = i;
                best_at = r;
                best_net = net;
            }
        }
        if (!order)
            break;
        if (best < 0) { /* never: the graph has an order */
            free(order), order = NULL;
            break;
        }
        ready[best_at] = ready[--n_ready];
        order[s] = best;
        const struct oc_node *n = &g->nodes[best];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v >= 0)
                readers[root[v]]--;
        }
        for (int32_t k = 0; k < n->n_out; k++) { /* its readers lose one missing input per read */
            int32_t v = n->out[k];
            for (int32_t e = v >= 0 ? start[v] : 0; v >= 0 && e < start[v + 1]; e++)
                if (--missing[adj[e]] == 0)
                    ready[n_ready++] = adj[e];
        }
    }
    *gave_up = work > OC_ORDER_WORK;
    free(missing), free(readers), free(root), free(ready), free(bytes);
    return order;
}

enum oc_status oc_rule_peak(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    const struct oc_totals *t = &c->an->totals;
    if (t->peak_node < 0 || !t->peak_complete || !t->peak_activation_bytes)
        return OC_OK;
    int32_t step = -1;
    for (int32_t s = 0; s < g->n_nodes && step < 0; s++)
        if (g->order[s] == t->peak_node)
            step = s;
    if (c->o->enabled[OC_LINT_PEAK] && step >= 0) {
        int32_t cap = g->n_values, n_live = 0, top[3] = {-1, -1, -1};
        int32_t *live = malloc(((size_t)cap + 1) * sizeof *live);
        if (!live || oc_memory_live_at(g, g->order, step, live, cap, &n_live) != OC_OK) {
            free(live);
            return OC_ERR_NOMEM;
        }
        uint64_t tb[3] = {0, 0, 0};
        for (int32_t k = 0; k < n_live && k < cap; k++) { /* the three largest */
            uint64_t b = 0;
            if (!oc_value_bytes(&g->values[live[k]], &b))
                continue;
            for (int32_t q = 0; q < 3; q++)
                if (top[q] < 0 || b > tb[q]) {
                    for (int32_t r = 2; r > q; r--)
                        top[r] = top[r - 1], tb[r] = tb[r - 1];
                    top[q] = live[k], tb[q] = b;
                    break;
                }
        }
        free(live);
        char lab[160], list[400] = "";
        size_t o = 0;
        for (int32_t k = 0; k < 3 && top[k] >= 0 && o < sizeof list; k++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s' %.2f MiB (%.0f %%)", k ? ", " : "",
                                  oc_lint_vname(&g->values[top[k]]), (double)tb[k] / 1048576.0,
                                  100.0 * (double)tb[k] / (double)t->peak_activation_bytes);
        struct oc_lint_finding *f =
            oc_lint_add(c, OC_LINT_PEAK,
                        "the peak activation memory, %.2f MiB, is reached at %s with %d tensors live; the largest: %s",
                        (double)t->peak_activation_bytes / 1048576.0,
                        oc_node_label(&g->nodes[t->peak_node], lab, sizeof lab), n_live, list);
        if (!f || !oc_lint_node(f, t->peak_node))
            return OC_ERR_NOMEM;
        for (int32_t k = 0; k < 3 && top[k] >= 0; k++)
            if (!oc_lint_value(f, top[k]))
                return OC_ERR_NOMEM;
    }
    if (c->o->enabled[OC_LINT_PEAK_ORDER] && g->n_nodes <= 200000) { /* the greedy scan of the ready nodes */
        bool gave_up = false;
        int32_t *order = oc_low_memory_order(c, &gave_up);
        if (!order)
            return gave_up ? OC_OK : OC_ERR_NOMEM;
        struct oc_memory m;
        enum oc_status st = oc_memory_peak_order(g, order, &m);
        if (st != OC_OK || !m.complete || m.overflow || m.peak_bytes >= t->peak_activation_bytes) {
            free(order);
            return st == OC_ERR_NOMEM ? st : OC_OK;
        }
        char lab[160];
        struct oc_lint_finding *f = oc_lint_add(
            c, OC_LINT_PEAK_ORDER,
            "running the nodes in another order (the JSON's \"order\", file indices by step) lowers the peak "
            "activation memory from %.2f to %.2f MiB, reached at %s: write the nodes in that order",
            (double)t->peak_activation_bytes / 1048576.0, (double)m.peak_bytes / 1048576.0,
            oc_node_label(&g->nodes[m.peak_node], lab, sizeof lab));
        if (!f) {
            free(order);
            return OC_ERR_NOMEM;
        }
        f->order = order;
        f->n_order = g->n_nodes;
        f->saving.peak_bytes = t->peak_activation_bytes - m.peak_bytes;
    }
    return OC_OK;
}
