/*
 * graph.c — the graph/ rules: unused initializers and inputs, dead nodes,
 * constant-foldable nodes, no-ops, cancelling pairs (lint.h, rules.h).
 */
#include "rules.h"

/* ---- graph/unused-initializer and graph/unused-input ----------------------------- */

enum oc_status oc_rule_unused(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    for (int32_t k = 0; c->o->enabled[OC_LINT_UNUSED_INITIALIZER] && k < g->n_inits; k++) {
        int32_t v = g->inits[k];
        const struct oc_value *val = &g->values[v];
        if (val->n_consumers || val->is_graph_output || c->implicit_read[v])
            continue;
        struct oc_lint_finding *f =
            oc_lint_add(c, OC_LINT_UNUSED_INITIALIZER, "initializer '%s' is read by no node: remove it", oc_lint_vname(val));
        if (!f || !oc_lint_value(f, v))
            return OC_ERR_NOMEM;
        (void)oc_lint_saving_weight(c, f, v, +1);
    }
    for (int32_t k = 0; c->o->enabled[OC_LINT_UNUSED_INPUT] && k < g->n_inputs; k++) {
        int32_t v = g->inputs[k];
        const struct oc_value *val = &g->values[v];
        if (val->n_consumers || val->is_graph_output || c->implicit_read[v])
            continue;
        uint64_t bytes = 0;
        bool known = oc_value_bytes(val, &bytes);
        struct oc_lint_finding *f = oc_lint_add(c, OC_LINT_UNUSED_INPUT, "graph input '%s' is read by no node%s",
                                                oc_lint_vname(val), known ? ": remove it" : " (its size is not known)");
        if (!f || !oc_lint_value(f, v))
            return OC_ERR_NOMEM;
        f->saving.input_bytes = bytes;
    }
    return OC_OK;
}

/* ---- graph/dead-node --------------------------------------------------------------- */

/* Which nodes reach a graph output, and which values they read. */
void oc_lint_liveness(const struct oc_graph *g, bool *live, bool *needed) {
    for (int32_t k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] >= 0)
            needed[g->outputs[k]] = true;
    for (int32_t s = g->n_nodes - 1; s >= 0; s--) { /* reverse execution order */
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        for (int32_t k = 0; k < n->n_out && !live[i]; k++)
            live[i] = n->out[k] >= 0 && needed[n->out[k]];
        if (!live[i])
            continue;
        for (int32_t k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0)
                needed[n->in[k]] = true;
        for (int32_t k = 0; k < n->n_implicit; k++)
            if (n->implicit[k] >= 0)
                needed[n->implicit[k]] = true;
    }
}

enum oc_status oc_rule_dead(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes;
    const bool *live = c->live, *needed = c->needed;
    enum oc_status st = OC_OK;
    struct oc_lint_finding *f = NULL;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        if (live[i])
            continue;
        if (!f && !(f = oc_lint_add(c, OC_LINT_DEAD_NODE, "%s", "")))
            st = OC_ERR_NOMEM;
        if (st == OC_OK && !oc_lint_node(f, i))
            st = OC_ERR_NOMEM;
        if (st == OC_OK)
            oc_lint_node_saving(c, i, &f->saving);
    }
    if (f && st == OC_OK) { /* the weights only dead nodes read go with them */
        int32_t n_w = 0;
        for (int32_t k = 0; k < g->n_inits; k++) {
            int32_t v = g->inits[k];
            if (needed[v] || g->values[v].n_consumers == 0 || g->values[v].is_graph_output)
                continue;
            (void)oc_lint_saving_weight(c, f, v, +1);
            n_w++;
            if (!oc_lint_value(f, v))
                st = OC_ERR_NOMEM;
        }
        char lab[160];
        snprintf(f->message, sizeof f->message, "%d node%s reach%s no graph output (first %s)%s: remove %s",
                 f->n_nodes, f->n_nodes == 1 ? "" : "s", f->n_nodes == 1 ? "es" : "",
                 oc_node_label(&g->nodes[f->nodes[0]], lab, sizeof lab),
                 n_w ? ", with the weights only they read" : "", f->n_nodes == 1 ? "it" : "them");
    }
    return st;
}

/* ---- graph/constant-foldable --------------------------------------------------------- */

/* Ops whose result is not a function of their inputs. */
static bool oc_nondeterministic(const struct oc_node *n) {
    static const char *const ops[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                      "Multinomial", "Bernoulli"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (oc_node_is(n, ops[k]))
            return true;
    return false;
}

/* A Cast of a float initializer to a narrower float: precision/cast-weights'. */
bool oc_lint_narrowing_cast(const struct oc_graph *g, const struct oc_node *n) {
    if (!oc_node_is(n, "Cast") || n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *w = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    return w->kind == OC_VALUE_INITIALIZER && oc_dtype_is_float(w->dtype) && oc_dtype_is_float(y->dtype) &&
           oc_dtype_bits(y->dtype) < oc_dtype_bits(w->dtype);
}

enum oc_status oc_rule_foldable(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes, nv = g->n_values;
    bool *konst = calloc((size_t)nv + 1, 1), *fold = calloc((size_t)nn + 1, 1);
    int32_t *region = malloc(((size_t)nn + 1) * sizeof *region);
    enum oc_status st = konst && fold && region ? OC_OK : OC_ERR_NOMEM;
    for (int32_t k = 0; st == OC_OK && k < g->n_inits; k++)
        konst[g->inits[k]] = true;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        region[i] = -1;
        bool k = n->n_implicit == 0 && !oc_nondeterministic(n) && !oc_attr_first_graph(n);
        bool any_in = false;
        for (int32_t j = 0; j < n->n_in && k; j++)
            if (n->in[j] >= 0) {
                k = konst[n->in[j]];
                any_in = true;
            }
        if (!k)
            continue;
        for (int32_t j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0)
                konst[n->out[j]] = true;
        /* a Constant (or a node of no input) is a constant already: folding it saves nothing; a dead node
           is graph/dead-node's */
        fold[i] = any_in && !oc_node_is(n, "Constant") && c->live[i] && !(n->def && (n->def->flags & OC_OPF_ALIAS)) &&
                  !oc_lint_narrowing_cast(g, n);
    }
    /* regions: foldable nodes joined through the values between them (union-find; the root is the
       region's first node in execution order) */
    int32_t *step = st == OC_OK ? malloc(((size_t)nn + 1) * sizeof *step) : NULL;
    if (st == OC_OK && !step)
        st = OC_ERR_NOMEM;
    for (int32_t s = 0; st == OC_OK && s < nn; s++)
        step[g->order[s]] = s;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        if (!fold[i])
            continue;
        region[i] = i;
        const struct oc_node *n = &g->nodes[i];
        for (int32_t j = 0; j < n->n_in; j++) {
            int32_t v = n->in[j];
            if (v < 0 || g->values[v].kind != OC_VALUE_NODE || g->values[v].producer < 0 ||
                !fold[g->values[v].producer])
                continue;
            int32_t a = region[i], b = g->values[v].producer;
            while (region[a] != a)
                a = region[a];
            while (region[b] != b)
                b = region[b];
            if (a != b) { /* the earlier root stays */
                if (step[a] < step[b])
                    region[b] = a;
                else
                    region[a] = b;
            }
        }
    }
    for (int32_t s = 0; st == OC_OK && s < nn; s++) { /* every node to its root */
        int32_t i = g->order[s], r = i;
        if (!fold[i])
            continue;
        while (region[r] != r)
            r = region[r];
        region[i] = r;
    }
    free(step);
    /* the values of a region read outside it: stored as weights once folded */
    bool *outside = st == OC_OK ? calloc((size_t)nv + 1, 1) : NULL;
    if (st == OC_OK && !outside)
        st = OC_ERR_NOMEM;
    for (int32_t q = 0; st == OC_OK && q < nn; q++) {
        const struct oc_node *u = &g->nodes[q];
        for (int32_t w = 0; w < u->n_in + u->n_implicit; w++) {
            int32_t v = w < u->n_in ? u->in[w] : u->implicit[w - u->n_in];
            if (v < 0 || g->values[v].kind != OC_VALUE_NODE || g->values[v].producer < 0)
                continue;
            int32_t p = g->values[v].producer;
            if (fold[p] && (!fold[q] || region[q] != region[p] || w >= u->n_in))
                outside[v] = true;
        }
    }
    for (int32_t v = 0; st == OC_OK && v < nv; v++)
        if (g->values[v].is_graph_output)
            outside[v] = true;
    /* one pass each: the regions' findings, their nodes in execution order, the initializers only one
       region reads (then no longer stored) */
    int32_t *fidx = st == OC_OK ? malloc(((size_t)nn + 1) * sizeof *fidx) : NULL; /* a region's finding */
    int32_t *only = st == OC_OK ? malloc(((size_t)nv + 1) * sizeof *only) : NULL;  /* the region reading it */
    char(*ops)[96] = st == OC_OK ? calloc((size_t)nn + 1, sizeof *ops) : NULL;
    int32_t first = c->out->n_findings;
    if (st == OC_OK && (!fidx || !only || !ops))
        st = OC_ERR_NOMEM;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        fidx[i] = -1;
        if (!fold[i])
            continue;
        if (region[i] == i) {
            if (!oc_lint_add(c, OC_LINT_CONSTANT_FOLDABLE, "%s", "")) {
                st = OC_ERR_NOMEM;
                break;
            }
            fidx[i] = c->out->n_findings - 1;
        }
        struct oc_lint_finding *f = &c->out->findings[fidx[region[i]]];
        const struct oc_node *n = &g->nodes[i];
        if (!oc_lint_node(f, i))
            st = OC_ERR_NOMEM;
        oc_lint_node_saving(c, i, &f->saving);
        char *o = ops[region[i]];
        size_t len = strlen(o);
        if (len < 60 && !strstr(o, n->op_type))
            snprintf(o + len, 96 - len, "%s%s", len ? ", " : "", n->op_type);
        for (int32_t j = 0; j < n->n_out && st == OC_OK; j++) { /* a result read outside the region is stored */
            int32_t v = n->out[j];
            if (v >= 0 && outside[v]) {
                (void)oc_lint_saving_weight(c, f, v, -1);
                if (!oc_lint_value(f, v))
                    st = OC_ERR_NOMEM;
            }
        }
    }
    for (int32_t v = 0; st == OC_OK && v < nv; v++)
        only[v] = -1; /* -1 unread, -2 read outside one region */
    for (int32_t q = 0; st == OC_OK && q < nn; q++) {
        const struct oc_node *u = &g->nodes[q];
        for (int32_t w = 0; w < u->n_in + u->n_implicit; w++) {
            int32_t v = w < u->n_in ? u->in[w] : u->implicit[w - u->n_in];
            if (v < 0 || g->values[v].kind != OC_VALUE_INITIALIZER)
                continue;
            int32_t r = fold[q] && w < u->n_in ? region[q] : -2;
            only[v] = only[v] == -1 || only[v] == r ? r : -2;
        }
    }
    bool *mine = st == OC_OK ? calloc((size_t)nv + 1, 1) : NULL; /* marked removed by a region here */
    if (st == OC_OK && !mine)
        st = OC_ERR_NOMEM;
    for (int32_t k = 0; st == OC_OK && k < g->n_inits; k++) {
        int32_t v = g->inits[k];
        if (only[v] < 0 || g->values[v].is_graph_output || c->implicit_read[v])
            continue;
        if (oc_lint_saving_weight(c, &c->out->findings[fidx[only[v]]], v, +1))
            mine[v] = true;
    }
    /* not a finding: nothing per run to gain, or a generator (ConstantOfShape, Expand, Tile of a constant)
       whose result is larger than what it reads: folding would grow the file, and runtimes that fold
       constants do it at load. The weights it would remove are not removed then. */
    int32_t kept = first;
    for (int32_t k = first; st == OC_OK && k < c->out->n_findings; k++) {
        struct oc_lint_finding *f = &c->out->findings[k];
        if ((!f->saving.macs && !f->saving.flops && !f->saving.bytes_moved) || f->saving.weight_bytes < 0) {
            for (int32_t q = 0; q < f->n_nodes; q++) { /* its initializers back */
                const struct oc_node *u = &g->nodes[f->nodes[q]];
                for (int32_t w = 0; w < u->n_in; w++)
                    if (u->in[w] >= 0 && mine[u->in[w]])
                        c->removed[u->in[w]] = mine[u->in[w]] = false;
            }
            free(f->nodes), free(f->values);
            continue;
        }
        char lab[160];
        int32_t head = f->nodes[0];
        for (int32_t q = 0; q < f->n_nodes; q++)
            c->folded[f->nodes[q]] = true;
        snprintf(f->message, sizeof f->message,
                 "%d node%s (%s; first %s) compute%s from weights and constants only: fold %s at export "
                 "(runtimes that fold constants at load do it there)",
                 f->n_nodes, f->n_nodes == 1 ? "" : "s", ops[head], oc_node_label(&g->nodes[head], lab, sizeof lab),
                 f->n_nodes == 1 ? "s" : "", f->n_nodes == 1 ? "it" : "them");
        c->out->findings[kept++] = *f;
    }
    if (st == OC_OK)
        c->out->n_findings = kept;
    free(fidx), free(only), free(ops), free(mine);
    free(konst), free(fold), free(region), free(outside);
    return st;
}

/* ---- graph/no-op ------------------------------------------------------------------------ */

/* The known integer contents of value v, or NULL. */
static const int64_t *oc_lint_ints(const struct oc_graph *g, int32_t v, int64_t *n) {
    *n = 0;
    if (v < 0 || !g->values[v].ival)
        return NULL;
    *n = g->values[v].n_ival;
    return g->values[v].ival;
}

bool oc_lint_same_shape(const struct oc_value *a, const struct oc_value *b) {
    if (a->rank < 0 || a->rank != b->rank)
        return false;
    for (int32_t k = 0; k < a->rank; k++)
        if (a->dims[k].value < 0 || a->dims[k].value != b->dims[k].value)
            return false;
    return true;
}

/* Whether value v is stored in the file (an initializer, or a Constant's
   output): not computed at this binding. */
bool oc_lint_stored(const struct oc_graph *g, int32_t v) {
    if (v < 0)
        return true;
    const struct oc_value *val = &g->values[v];
    if (val->kind == OC_VALUE_INITIALIZER)
        return true;
    return val->kind == OC_VALUE_NODE && val->producer >= 0 && oc_node_is(&g->nodes[val->producer], "Constant");
}

/* Whether every input of n after the first is stored in the file: then a
   no-op is one at every binding, else only at this one. */
static bool oc_no_op_everywhere(const struct oc_graph *g, const struct oc_node *n) {
    for (int32_t k = 1; k < n->n_in; k++)
        if (!oc_lint_stored(g, n->in[k]))
            return false;
    return true;
}

/* Whether node n returns its first input unchanged, from its attributes and
   the known values of its other inputs. */
bool oc_lint_is_no_op(const struct oc_graph *g, const struct oc_node *n) {
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
        return false;
    if (n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *x = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    int64_t k, cnt;
    if (strcmp(n->op_type, "Identity") == 0)
        return !x->nt; /* a tensor (Identity of a sequence is one too, but left alone) */
    if (strcmp(n->op_type, "Dropout") == 0) { /* inference: no training_mode, or known false */
        if (n->n_out > 1 && n->out[1] >= 0 &&
            (g->values[n->out[1]].n_consumers || g->values[n->out[1]].is_graph_output))
            return false; /* its mask is read, or a graph output */
        return !oc_dropout_trains(g, n);
    }
    if (strcmp(n->op_type, "Cast") == 0)
        return x->dtype && x->dtype == y->dtype;
    if (strcmp(n->op_type, "Transpose") == 0) {
        const int64_t *perm;
        if (oc_attr_ints(n, "perm", &perm, &cnt, NULL) != OC_OK || !perm || cnt != x->rank)
            return false;
        for (k = 0; k < cnt; k++)
            if (perm[k] != k)
                return false;
        return true;
    }
    if (strcmp(n->op_type, "Pad") == 0) {
        const int64_t *pads = NULL;
        if (n->opset >= 11)
            pads = oc_lint_ints(g, n->n_in > 1 ? n->in[1] : -1, &cnt);
        else if (oc_attr_ints(n, "pads", &pads, &cnt, NULL) != OC_OK)
            return false;
        if (!pads)
            return false;
        for (k = 0; k < cnt; k++)
            if (pads[k] != 0)
                return false;
        return true;
    }
    if (strcmp(n->op_type, "Slice") == 0 && n->opset >= 10) {
        int64_t ns, ne, na = 0, nst = 0;
        const int64_t *st = oc_lint_ints(g, n->n_in > 1 ? n->in[1] : -1, &ns);
        const int64_t *en = oc_lint_ints(g, n->n_in > 2 ? n->in[2] : -1, &ne);
        const int64_t *ax = oc_lint_ints(g, n->n_in > 3 ? n->in[3] : -1, &na);
        const int64_t *sp = oc_lint_ints(g, n->n_in > 4 ? n->in[4] : -1, &nst);
        if (!st || !en || ns != ne || (n->n_in > 3 && n->in[3] >= 0 && !ax) || (n->n_in > 4 && n->in[4] >= 0 && !sp) ||
            (ax && na != ns) || (sp && nst != ns))
            return false;
        for (k = 0; k < ns; k++) { /* from 0, by 1, to the end of any length */
            int64_t a = ax ? ax[k] : k;
            if (a < 0)
                a += x->rank;
            if (st[k] != 0 || (sp && sp[k] != 1) || a < 0 || a >= x->rank || en[k] < INT32_MAX)
                return false;
        }
        return true;
    }
    if (strcmp(n->op_type, "Expand") == 0) { /* to a shape of ones no longer than the input's */
        const int64_t *sh = oc_lint_ints(g, n->n_in > 1 ? n->in[1] : -1, &cnt);
        if (!sh || cnt > x->rank || !oc_lint_same_shape(x, y))
            return false;
        for (k = 0; k < cnt; k++)
            if (sh[k] != 1)
                return false;
        return true;
    }
    return false;
}

enum oc_status oc_rule_no_op(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes;
    bool *done = calloc((size_t)nn + 1, 1);
    if (!done)
        return OC_ERR_NOMEM;
    enum oc_status st = OC_OK;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (done[i] || !c->live[i] || c->folded[i] || !oc_lint_is_no_op(g, n))
            continue;
        struct oc_lint_finding *f = oc_lint_add(c, OC_LINT_NO_OP, "%s", "");
        if (!f) {
            st = OC_ERR_NOMEM;
            break;
        }
        for (int32_t t = s; st == OC_OK && t < nn; t++) { /* every live one of this op type */
            int32_t j = g->order[t];
            const struct oc_node *u = &g->nodes[j];
            if (done[j] || !c->live[j] || c->folded[j] || strcmp(u->op_type, n->op_type) != 0 ||
                strcmp(u->domain, n->domain) != 0 || !oc_lint_is_no_op(g, u))
                continue;
            done[j] = true;
            if (!oc_lint_node(f, j))
                st = OC_ERR_NOMEM;
            oc_lint_node_saving(c, j, &f->saving);
        }
        int32_t here = 0; /* decided by values computed at this binding */
        for (int32_t q = 0; q < f->n_nodes; q++)
            here += !oc_no_op_everywhere(g, &g->nodes[f->nodes[q]]);
        char lab[160], at[96] = "";
        if (here)
            snprintf(at, sizeof at, " (%d of them at these bindings only: what decides it is computed from the shapes)",
                     here);
        snprintf(f->message, sizeof f->message, "%d %s node%s return%s %s input unchanged (first %s)%s: remove %s",
                 f->n_nodes, n->op_type, f->n_nodes == 1 ? "" : "s", f->n_nodes == 1 ? "s" : "",
                 f->n_nodes == 1 ? "its" : "their", oc_node_label(n, lab, sizeof lab), at,
                 f->n_nodes == 1 ? "it" : "them");
    }
    free(done);
    return st;
}

/* ---- graph/cancelling-pair ------------------------------------------------------------- */

/* The integers type dt holds exactly: [lo, hi] (floats: their exact integers). */
static bool oc_exact_ints(int32_t dt, double *lo, double *hi) {
    static const struct {
        int32_t dt;
        double lo, hi;
    } t[] = {
        {9, 0, 1},                                /* BOOL    */
        {2, 0, 255},        {3, -128, 127},       /* UINT8, INT8 */
        {4, 0, 65535},      {5, -32768, 32767},   /* UINT16, INT16 */
        {12, 0, 4294967295.0}, {6, -2147483648.0, 2147483647.0}, /* UINT32, INT32 */
        {13, 0, 18446744073709551615.0}, {7, -9223372036854775808.0, 9223372036854775807.0},
        {10, -2048, 2048},  {16, -256, 256},      /* FLOAT16, BFLOAT16 */
        {1, -16777216.0, 16777216.0}, {11, -9007199254740992.0, 9007199254740992.0}, /* FLOAT, DOUBLE */
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        if (t[k].dt == dt) {
            *lo = t[k].lo;
            *hi = t[k].hi;
            return true;
        }
    return false;
}

/* Whether every value of type a survives a Cast to b and back. */
static bool oc_cast_lossless(int32_t a, int32_t b) {
    static const int32_t widen[][2] = {{10, 1}, {10, 11}, {16, 1}, {16, 11}, {1, 11}}; /* float to wider float */
    if (a == b)
        return true;
    if (a == 9) /* bool: 0 and 1, back by != 0 */
        return oc_dtype_is_int(b) || oc_dtype_is_float(b);
    for (size_t k = 0; k < sizeof widen / sizeof *widen; k++)
        if (widen[k][0] == a && widen[k][1] == b)
            return true;
    double alo, ahi, blo, bhi;
    return oc_dtype_is_int(a) && oc_exact_ints(a, &alo, &ahi) && oc_exact_ints(b, &blo, &bhi) && blo <= alo &&
           ahi <= bhi;
}

/* The node reading value v, when it is the only reader (and reads it as an
   input, not from a subgraph) and v no graph output. */
int32_t oc_lint_only_reader(const struct oc_lint_ctx *c, int32_t v) {
    const struct oc_graph *g = c->g;
    if (v < 0 || g->values[v].n_consumers != 1 || g->values[v].is_graph_output ||
        c->rstart[v + 1] - c->rstart[v] != 1)
        return -1;
    int32_t i = c->radj[c->rstart[v]];
    return g->nodes[i].n_implicit ? -1 : i;
}

/* The node the pair starting at node i ends with (its only reader, undoing
   it), or -1; *mid the type in between for a Cast. */
static int32_t oc_cancelling_pair(const struct oc_lint_ctx *c, int32_t i, int32_t *mid) {
    const struct oc_graph *g = c->g;
    const struct oc_node *a = &g->nodes[i];
    bool tr = oc_node_is(a, "Transpose"), cast = oc_node_is(a, "Cast"), rs = oc_node_is(a, "Reshape");
    if ((!tr && !cast && !rs) || !c->live[i] || c->folded[i] || a->n_in < 1 || a->in[0] < 0 || a->n_out != 1 ||
        oc_lint_is_no_op(g, a)) /* a no-op is graph/no-op's */
        return -1;
    int32_t j = oc_lint_only_reader(c, a->out[0]);
    if (j < 0 || strcmp(g->nodes[j].op_type, a->op_type) != 0 || strcmp(g->nodes[j].domain, a->domain) != 0)
        return -1;
    const struct oc_node *b = &g->nodes[j];
    const struct oc_value *x = &g->values[a->in[0]], *m = &g->values[a->out[0]];
    if (b->n_out < 1 || b->out[0] < 0)
        return -1;
    const struct oc_value *y = &g->values[b->out[0]];
    *mid = m->dtype;
    if (rs) /* back to the input's shape, both targets stored in the file: at every binding */
        return oc_lint_same_shape(x, y) && !oc_lint_same_shape(x, m) && oc_no_op_everywhere(g, a) && oc_no_op_everywhere(g, b)
                   ? j
                   : -1;
    if (cast)
        return x->dtype && x->dtype == y->dtype && x->dtype != m->dtype && oc_cast_lossless(x->dtype, m->dtype) ? j
                                                                                                           : -1;
    /* out[k] = in[perm[k]]: the second undoes the first when p1[p2[k]] == k */
    const int64_t *p1, *p2;
    int64_t n1, n2;
    if (x->rank < 1 || oc_attr_ints(a, "perm", &p1, &n1, NULL) != OC_OK ||
        oc_attr_ints(b, "perm", &p2, &n2, NULL) != OC_OK || !p1 || !p2 || n1 != x->rank || n2 != n1)
        return -1;
    for (int64_t k = 0; k < n1; k++)
        if (p2[k] < 0 || p2[k] >= n1 || p1[p2[k]] != k)
            return -1;
    return j;
}

/* One finding per kind of pair: Transposes, and Casts through each type. */
enum oc_status oc_rule_cancelling(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes;
    bool *done = calloc((size_t)nn + 1, 1);
    if (!done)
        return OC_ERR_NOMEM;
    enum oc_status st = OC_OK;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s], mid = 0, j;
        if (done[i] || (j = oc_cancelling_pair(c, i, &mid)) < 0)
            continue;
        const struct oc_node *a = &g->nodes[i];
        bool cast = oc_node_is(a, "Cast");
        struct oc_lint_finding *f = oc_lint_add(c, OC_LINT_CANCELLING, "%s", "");
        if (!f) {
            st = OC_ERR_NOMEM;
            break;
        }
        int32_t pairs = 0;
        for (int32_t t = s; st == OC_OK && t < nn; t++) {
            int32_t u = g->order[t], umid = 0, v;
            if (done[u] || strcmp(g->nodes[u].op_type, a->op_type) != 0 || (v = oc_cancelling_pair(c, u, &umid)) < 0 ||
                (cast && umid != mid))
                continue;
            done[u] = done[v] = true;
            pairs++;
            if (!oc_lint_node(f, u) || !oc_lint_node(f, v))
                st = OC_ERR_NOMEM;
            oc_lint_node_saving(c, u, &f->saving);
            oc_lint_node_saving(c, v, &f->saving);
        }
        char la[160], lb[160];
        oc_node_label(a, la, sizeof la);
        oc_node_label(&g->nodes[j], lb, sizeof lb);
        if (cast)
            snprintf(f->message, sizeof f->message,
                     "%d pair%s of Casts to %s and back, which loses nothing (first %s and %s): read the input "
                     "directly",
                     pairs, pairs == 1 ? "" : "s", oc_dtype_name(mid), la, lb);
        else if (oc_node_is(a, "Reshape"))
            snprintf(f->message, sizeof f->message,
                     "%d pair%s of Reshapes back to the input's shape (first %s and %s): read the input directly",
                     pairs, pairs == 1 ? "" : "s", la, lb);
        else
            snprintf(f->message, sizeof f->message,
                     "%d pair%s of Transposes, the second undoing the first (first %s and %s): read the input "
                     "directly",
                     pairs, pairs == 1 ? "" : "s", la, lb);
    }
    free(done);
    return st;
}
