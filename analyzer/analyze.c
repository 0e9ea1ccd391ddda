/*
 * analyze.c — the driver (see analyze.h).
 *
 * Order of work: build the graph; bind the symbolic dims of the graph
 * inputs; walk the topological order calling each node's registry rule
 * (arity checked here, once); fall back to declared value_info types for
 * nodes without a rule; cost every node whose shapes are known; attribute
 * each float initializer to its first consumer (following alias chains
 * such as the Identity nodes torch uses for deduplicated weights); sum.
 */
#include "analyze.h"

#include "attr.h"

#include "dtype.h"
#include "fold.h"
#include "memory.h"
#include "model.h"
#include "ops.h"
#include "ops/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct oc_warn_item {
    struct oc_warn_item *next;
    const char *text;
};

struct oc_run {
    struct oc_analysis *an;
    struct oc_graph *g;
    const struct oc_analyze_opts *opts;
    struct oc_diag *d;
    struct oc_warn_item *warn_head, **warn_tail;
    int32_t n_bound_cap;
    struct oc_value *inputs_built; /* keep_built: the graph inputs before binding */
};

static enum oc_status oc_nomem(struct oc_run *r) {
    return oc_diag_set(r->d, OC_ERR_NOMEM, "out of memory");
}

static enum oc_status oc_warn(struct oc_run *r, const char *text) {
    struct oc_warn_item *w = oc_arena_alloc(&r->an->arena, sizeof *w);
    if (!w || !text)
        return oc_nomem(r);
    w->text = text;
    *r->warn_tail = w;
    r->warn_tail = &w->next;
    r->an->n_warnings++;
    return OC_OK;
}

/* ---- binding ------------------------------------------------------------------ */

static const struct oc_bound_dim *oc_bound_find(const struct oc_analysis *an, const char *name) {
    for (int32_t i = 0; i < an->n_bound; i++)
        if (an->bound[i].name && strcmp(an->bound[i].name, name) == 0)
            return &an->bound[i];
    return NULL;
}

static enum oc_status oc_bound_add(struct oc_run *r, struct oc_bound_dim b) {
    struct oc_analysis *an = r->an;
    if (an->n_bound == r->n_bound_cap) {
        int32_t cap = r->n_bound_cap ? 2 * r->n_bound_cap : 16;
        struct oc_bound_dim *nb = oc_arena_array(&an->arena, (size_t)cap, sizeof *nb);
        if (!nb)
            return oc_nomem(r);
        if (an->n_bound)
            memcpy(nb, an->bound, (size_t)an->n_bound * sizeof *nb);
        an->bound = nb;
        r->n_bound_cap = cap;
    }
    an->bound[an->n_bound++] = b;
    return OC_OK;
}

/* Whether a symbolic dim's name is a batch's: it holds "batch" (batch,
 * batch_size, input_batch, ...) or is N, B, BS or NBATCH, case aside. */
static bool oc_batch_named(const char *sym) {
    static const char *const names[] = {"n", "b", "bs", "nbatch"};
    char low[64];
    size_t i = 0;
    if (!sym)
        return false;
    for (; sym[i] && i < sizeof low - 1; i++)
        low[i] = (char)(sym[i] >= 'A' && sym[i] <= 'Z' ? sym[i] - 'A' + 'a' : sym[i]);
    low[i] = '\0';
    if (strstr(low, "batch"))
        return true;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(low, names[k]) == 0)
            return true;
    return false;
}

/* Gives each unknown dim of an input's (copied) dims a value: its symbol's
 * binding, --dim, --batch (the input's dims named like a batch where it has
 * one, else its axis 0, said to be a guess when that dim's name is
 * another's), else 1 with a warning. */
static enum oc_status oc_bind_dims(struct oc_run *r, const char *input, int32_t rank, struct oc_dim *dims) {
    struct oc_analysis *an = r->an;
    const struct oc_analyze_opts *o = r->opts;
    struct oc_arena *a = &an->arena;
    enum oc_status st;
    bool named = false; /* a dim of this input named like a batch: --batch binds it, not axis 0 */
    for (int32_t k = 0; k < rank; k++)
        named = named || (dims[k].value < 0 && oc_batch_named(dims[k].sym));
    for (int32_t k = 0; k < rank; k++) {
        struct oc_dim *dm = &dims[k];
        if (dm->value >= 0)
            continue;
        const char *sym = dm->sym;
        const struct oc_bound_dim *prev = sym ? oc_bound_find(an, sym) : NULL;
        if (prev) {
            dm->value = prev->value;
            continue;
        }
        struct oc_bound_dim b = {sym, input, k, 1, OC_BIND_DEFAULT, NULL};
        bool user = false;
        for (int32_t j = 0; sym && j < o->n_dims; j++)
            if (strcmp(o->dims[j].name, sym) == 0) {
                b.value = o->dims[j].value;
                b.source = OC_BIND_USER;
                user = true;
            }
        if (!user && o->batch > 0 && (named ? oc_batch_named(sym) : k == 0)) {
            b.value = o->batch;
            b.source = OC_BIND_BATCH;
            if (sym && !oc_batch_named(sym) &&
                (st = oc_warn(r, oc_arena_printf(a, "--batch %lld binds '%s' (axis 0 of input '%s'): the input has "
                                                    "no dim named like a batch, so axis 0 is taken for it (a guess; "
                                                    "--dim %s=N binds it by name)",
                                                 (long long)o->batch, sym, input, sym))) != OC_OK)
                return st;
        }
        if (b.source == OC_BIND_DEFAULT) {
            const char *msg =
                sym ? oc_arena_printf(a, "symbolic dim '%s' is unbound; using 1 (bind it with --dim %s=N)", sym, sym)
                    : oc_arena_printf(a, "graph input '%s' axis %d has no size and no name; using 1%s", input, k,
                                      k == 0 ? " (bind it with --batch N)" : "");
            if ((st = oc_warn(r, msg)) != OC_OK)
                return st;
            b.warning = msg;
        }
        dm->value = b.value;
        if ((st = oc_bound_add(r, b)) != OC_OK)
            return st;
    }
    return OC_OK;
}

/* A copy of a sequence/optional description with its own dims, NULL when out of memory. */
static struct oc_ntype *oc_nt_dup(struct oc_run *r, const struct oc_ntype *t) {
    struct oc_ntype *nt = oc_arena_alloc(&r->an->arena, sizeof *nt);
    struct oc_dim *dims = oc_arena_array(&r->an->arena, t->rank > 0 ? (size_t)t->rank : 1, sizeof *dims);
    if (!nt || !dims)
        return NULL;
    *nt = *t;
    if (t->rank > 0)
        memcpy(dims, t->dims, (size_t)t->rank * sizeof *dims);
    nt->dims = t->rank >= 0 ? dims : NULL;
    return nt;
}

/* A sequence or optional graph input: its tensors' dims are bound like a
 * tensor's; its length (whether it holds a value) cannot be given. */
static enum oc_status oc_bind_nontensor_input(struct oc_run *r, struct oc_value *v) {
    struct oc_arena *a = &r->an->arena;
    const struct oc_ntype *t = v->nt;
    struct oc_ntype *nt = oc_nt_dup(r, t);
    if (!nt)
        return oc_nomem(r);
    v->nt = nt;
    enum oc_status st = oc_bind_dims(r, v->name, nt->rank, nt->dims);
    if (st != OC_OK)
        return st;
    bool seq = t->kind == OC_TYPE_SEQUENCE;
    return oc_warn(r, oc_arena_printf(a, "graph input '%s' is %s; %s is not known, what depends on it stays unknown",
                                      v->name, seq ? "a sequence" : "an optional",
                                      seq ? "its length" : "whether it holds a value"));
}

static enum oc_status oc_bind_inputs(struct oc_run *r) {
    struct oc_graph *g = r->g;
    struct oc_analysis *an = r->an;
    const struct oc_analyze_opts *o = r->opts;
    struct oc_arena *a = &an->arena;
    enum oc_status st;
    const struct oc_value *first = NULL;
    bool first_fixed = false; /* the first input's axis 0 a number in the file */
    for (int32_t i = 0; i < g->n_inputs && !first; i++) {
        const struct oc_value *v = &g->values[g->inputs[i]];
        if (!v->nt && v->rank >= 1) {
            first = v;
            first_fixed = v->dims[0].value >= 0;
        }
    }
    for (int32_t i = 0; i < g->n_inputs; i++) {
        struct oc_value *v = &g->values[g->inputs[i]];
        if (v->nt) {
            if ((st = oc_bind_nontensor_input(r, v)) != OC_OK)
                return st;
            continue;
        }
        if (v->rank < 0) {
            if ((st = oc_warn(r, oc_arena_printf(a, "graph input '%s' has no declared shape; shapes that depend "
                                                    "on it stay unknown",
                                                 v->name))) != OC_OK)
                return st;
            continue;
        }
        /* binding writes concrete values: the declared dims stay as they were */
        struct oc_dim *dims = oc_arena_array(a, (size_t)v->rank + 1, sizeof *dims);
        if (!dims)
            return oc_nomem(r);
        memcpy(dims, v->dims, (size_t)v->rank * sizeof *dims);
        v->dims = dims;
        if ((st = oc_bind_dims(r, v->name, v->rank, v->dims)) != OC_OK)
            return st;
    }
    for (int32_t j = 0; j < o->n_dims; j++) {
        if (oc_bound_find(an, o->dims[j].name))
            continue;
        if ((st = oc_warn(r, oc_arena_printf(a, "--dim %s: the model's inputs have no symbolic dim named '%s'",
                                             o->dims[j].name, o->dims[j].name))) != OC_OK)
            return st;
    }
    /* --batch with nothing to bind: the first input's first dim is fixed */
    bool batch_bound = false;
    for (int32_t k = 0; k < an->n_bound; k++)
        batch_bound = batch_bound || an->bound[k].source == OC_BIND_BATCH;
    if (o->batch > 0 && !batch_bound && first && first_fixed && first->dims[0].value != o->batch &&
        (st = oc_warn(r, oc_arena_printf(a, "--batch %lld: the model's batch is fixed at %lld (input '%s' declares "
                                            "it); the figures are at %lld",
                                         (long long)o->batch, (long long)first->dims[0].value, first->name,
                                         (long long)first->dims[0].value))) != OC_OK)
        return st;
    return OC_OK;
}

/* ---- inference ------------------------------------------------------------------- */

/* Declared type of a value, with symbolic dims resolved through the bindings. */
static enum oc_status oc_use_declared(struct oc_run *r, struct oc_value *v) {
    if (!v->declared || v->rank >= 0 || v->nt)
        return OC_OK;
    if (v->decl_nt) { /* a sequence's length / an optional's presence stay unknown */
        struct oc_ntype *nt = oc_nt_dup(r, v->decl_nt);
        if (!nt)
            return oc_nomem(r);
        for (int32_t k = 0; k < nt->rank; k++) {
            struct oc_dim *dm = &nt->dims[k];
            const struct oc_bound_dim *b = dm->value < 0 && dm->sym ? oc_bound_find(r->an, dm->sym) : NULL;
            if (b)
                dm->value = b->value;
        }
        v->nt = nt;
        return OC_OK;
    }
    v->dtype = v->decl_dtype;
    if (v->decl_rank < 0)
        return OC_OK;
    struct oc_dim *dims = oc_arena_array(&r->an->arena, (size_t)v->decl_rank + 1, sizeof *dims);
    if (!dims)
        return oc_nomem(r);
    for (int32_t k = 0; k < v->decl_rank; k++) {
        dims[k] = v->decl_dims[k];
        if (dims[k].value < 0 && dims[k].sym) {
            const struct oc_bound_dim *b = oc_bound_find(r->an, dims[k].sym);
            if (b)
                dims[k].value = b->value;
        }
    }
    v->rank = v->decl_rank;
    v->dims = dims;
    return OC_OK;
}

static bool oc_node_outputs_known(const struct oc_graph *g, const struct oc_node *n) {
    for (int32_t k = 0; k < n->n_out; k++)
        if (n->out[k] >= 0 && !oc_value_known(&g->values[n->out[k]]))
            return false;
    return true;
}

static bool oc_node_inputs_known(const struct oc_graph *g, const struct oc_node *n) {
    for (int32_t k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && !oc_value_known(&g->values[n->in[k]]))
            return false;
    return true;
}

static enum oc_status oc_run_graph(struct oc_run *r, struct oc_graph *g);
static enum oc_status oc_run_subgraph(struct oc_op_ctx *c, const char *attr, int32_t n_bind,
                                      const struct oc_value *const *bind, struct oc_subgraph *out);

/* oc_note_fn as the driver keeps it: an analysis warning naming the node. */
static enum oc_status oc_run_note(struct oc_op_ctx *c, const char *text) {
    struct oc_run *r = c->driver;
    char lab[256];
    return oc_warn(r, oc_arena_printf(&r->an->arena, "node %s: %s", oc_node_label(c->node, lab, sizeof lab), text));
}

/* A node can be folded: every output's shape and every present input's
 * contents it reads are known (or readable from a small tensor in the file). */
static bool oc_fold_ready(const struct oc_graph *g, const struct oc_node *n) {
    for (int32_t k = 0; k < n->n_out; k++)
        if (n->out[k] >= 0 && !oc_shape_known(&g->values[n->out[k]]))
            return false;
    int32_t need = n->def->flags & OC_OPF_FOLD_INPUT0 ? (n->n_in > 0 ? 1 : 0) : n->n_in;
    for (int32_t k = 0; k < need; k++)
        if (n->in[k] >= 0 && !oc_fold_available(g, &g->values[n->in[k]]))
            return false;
    return true;
}

/* A node that calls a model-local function: its body is analyzed with the
 * call's input types; the call node keeps the body's outputs and total cost. */
static enum oc_status oc_call_function(struct oc_run *r, struct oc_graph *g, struct oc_node *n, const void *fn) {
    struct oc_arena *a = &r->an->arena;
    char lab[300];
    struct oc_diag d = {0};
    struct oc_graph *body;
    n->def = NULL;
    n->is_call = true;
    enum oc_status st = oc_graph_build_function(g, fn, n, a, &body, &d);
    if (st != OC_OK)
        return oc_diag_set(r->d, st, "node %s: its function: %s", oc_node_label(n, lab, sizeof lab), d.msg);
    oc_op_resolve(body);
    for (int32_t i = 0; i < body->n_inputs && i < n->n_in; i++) {
        if (n->in[i] < 0)
            continue;
        const struct oc_value *src = &g->values[n->in[i]];
        struct oc_value *v = &body->values[body->inputs[i]];
        v->dtype = src->dtype;
        v->rank = src->rank;
        v->dims = src->dims;
        v->ival = src->ival;
        v->n_ival = src->n_ival;
        v->fval = src->fval;
        v->nt = src->nt;
    }
    struct oc_diag *saved = r->d;
    r->d = &d;
    st = oc_run_graph(r, body);
    r->d = saved;
    if (st != OC_OK)
        return oc_diag_set(r->d, st, "node %s: in its function: %s", oc_node_label(n, lab, sizeof lab), d.msg);
    for (int32_t k = 0; k < n->n_out && k < body->n_outputs; k++) {
        if (n->out[k] < 0 || body->outputs[k] < 0)
            continue;
        const struct oc_value *src = &body->values[body->outputs[k]];
        struct oc_value *v = &g->values[n->out[k]];
        v->dtype = src->dtype;
        v->rank = src->rank;
        v->dims = src->dims;
        v->ival = src->ival;
        v->n_ival = src->n_ival;
        v->fval = src->fval;
        v->nt = src->nt;
    }
    bool complete = true;
    for (int32_t i = 0; i < body->n_nodes; i++) {
        const struct oc_node *b = &body->nodes[i];
        if (b->cost.flags & OC_COST_UNKNOWN) {
            complete = false;
            continue;
        }
        oc_sum_u64(&n->cost.macs, b->cost.macs, &n->cost.flags);
        oc_sum_u64(&n->cost.flops, b->cost.flops, &n->cost.flags);
    }
    if (!complete) {
        n->cost.flags |= OC_COST_UNKNOWN;
        n->status = OC_ERR_SHAPE;
        n->reason = "some nodes of its function body have unknown shapes or costs";
    }
    return OC_OK;
}

static enum oc_status oc_infer_node(struct oc_run *r, struct oc_graph *g, struct oc_node *n) {
    struct oc_arena *a = &r->an->arena;
    char lab[300];
    int32_t earliest = n->def_earliest; /* n->def was looked up by oc_op_resolve */
    if (n->domain[0] || !n->def) { /* a model-local function defines the op */
        const void *fn = oc_graph_find_function(g, n->domain, n->op_type);
        if (fn)
            return oc_call_function(r, g, n, fn);
    }
    if (!n->def) {
        n->status = OC_ERR_UNSUPPORTED;
        if (earliest)
            n->reason = oc_arena_printf(a, "model opset %lld predates the earliest registered version %d of %s",
                                        (long long)n->opset, earliest, n->op_type);
        else if (!n->opset)
            n->reason = oc_arena_printf(a, "the model imports no opset for domain '%s'", n->domain);
        else
            n->reason = oc_arena_printf(a, "no shape rule for %s%s%s", n->domain, n->domain[0] ? "::" : "",
                                        n->op_type);
        return n->reason ? OC_OK : oc_nomem(r);
    }
    const struct oc_op_def *def = n->def;
    if (n->n_in < def->n_in_min || n->n_in > def->n_in_max || n->n_out < def->n_out_min ||
        n->n_out > def->n_out_max) {
        char in_range[64], out_range[64];
        if (def->n_in_max == OC_VARIADIC)
            snprintf(in_range, sizeof in_range, "at least %d", def->n_in_min);
        else
            snprintf(in_range, sizeof in_range, "%d to %d", def->n_in_min, def->n_in_max);
        snprintf(out_range, sizeof out_range, "%d to %d", def->n_out_min, def->n_out_max);
        return oc_diag_set(r->d, OC_ERR_MODEL, "node %s: %s-%d takes %s inputs and %s outputs, the node has %d and %d",
                           oc_node_label(n, lab, sizeof lab), n->op_type, def->since_version, in_range, out_range,
                           n->n_in, n->n_out);
    }
    /* rules written for tensors are not handed sequences or optionals */
    for (int32_t k = 0; k < n->n_in && !(def->flags & OC_OPF_NONTENSOR); k++) {
        const struct oc_value *v = n->in[k] >= 0 ? &g->values[n->in[k]] : NULL;
        if (!v || !v->nt)
            continue;
        n->status = OC_ERR_UNSUPPORTED;
        n->reason = oc_arena_printf(a, "input '%s' is %s, not a tensor", v->name,
                                    v->nt->kind == OC_TYPE_SEQUENCE ? "a sequence" : "an optional");
        return n->reason ? OC_OK : oc_nomem(r);
    }
    struct oc_diag nd = {0};
    struct oc_op_ctx ctx = {g, n, a, &nd, r, oc_run_subgraph, oc_run_note};
    enum oc_status st = def->infer(&ctx);
    switch (st) {
    case OC_OK:
        break;
    case OC_ERR_SHAPE:
    case OC_ERR_UNSUPPORTED:
        n->status = st;
        n->reason = oc_arena_strdup(a, nd.code != OC_OK ? nd.msg
                                                        : (st == OC_ERR_SHAPE ? "an input's shape is unknown"
                                                                              : "this form of the op is not modelled"));
        if (!n->reason)
            return oc_nomem(r);
        break;
    default:
        return oc_diag_set(r->d, st, "node %s: %s", oc_node_label(n, lab, sizeof lab),
                           nd.code != OC_OK ? nd.msg : oc_status_str(st));
    }
    /* value propagation: the outputs' contents from known input contents */
    if (st == OC_OK && def->fold != oc_fold_none && oc_fold_ready(g, n)) {
        nd = (struct oc_diag){0};
        if ((st = def->fold(&ctx)) != OC_OK)
            return oc_diag_set(r->d, st, "node %s: %s", oc_node_label(n, lab, sizeof lab),
                               nd.code != OC_OK ? nd.msg : oc_status_str(st));
    }
    /* alias ops pass their input's parameter identity through */
    if ((def->flags & OC_OPF_ALIAS) && n->n_in > 0 && n->in[0] >= 0 && n->n_out > 0 && n->out[0] >= 0) {
        const struct oc_value *src = &g->values[n->in[0]];
        g->values[n->out[0]].param_of = src->kind == OC_VALUE_INITIALIZER ? n->in[0] : src->param_of;
    }
    return OC_OK;
}

/* Bytes of v (priced by --dtype) when its size is known. A tensor of known
 * shape whose element or byte count passes 64 bits saturates at UINT64_MAX
 * with OC_COST_OVERFLOW in *flags: never 0, never silently dropped. */
static bool oc_sized_bytes(const struct oc_graph *g, const struct oc_value *v, uint64_t *bytes, uint32_t *flags) {
    bool saturated = false;
    bool known = oc_value_bytes_saturating(g, v, bytes, &saturated);
    if (saturated)
        *flags |= OC_COST_OVERFLOW;
    return known;
}

/* Elements of v, saturated as above (0 when its shape is not known). */
static uint64_t oc_sized_numel(const struct oc_value *v, uint32_t *flags) {
    uint64_t n;
    if (oc_value_numel(v, &n))
        return n;
    if (v->nt || !oc_shape_known(v))
        return 0;
    *flags |= OC_COST_OVERFLOW;
    return UINT64_MAX;
}

/* True when a tensor the node reads or writes has more than 2^64 elements:
 * its cost rule cannot count them. */
static bool oc_node_oversized(const struct oc_graph *g, const struct oc_node *n) {
    uint32_t fl = 0;
    for (int32_t k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0)
            oc_sized_numel(&g->values[n->in[k]], &fl);
    for (int32_t k = 0; k < n->n_out; k++)
        if (n->out[k] >= 0)
            oc_sized_numel(&g->values[n->out[k]], &fl);
    return fl != 0;
}

static void oc_cost_node(struct oc_run *r, struct oc_graph *g, struct oc_node *n) {
    uint32_t tflags = 0;
    for (int32_t k = 0; k < n->n_out; k++) {
        uint64_t b;
        if (n->out[k] >= 0 && oc_sized_bytes(g, &g->values[n->out[k]], &b, &tflags))
            oc_sum_u64(&n->activation_bytes, b, &tflags);
    }
    if (n->is_call) { /* cost set from the function body */
        if (n->status != OC_OK || !oc_node_inputs_known(g, n) || !oc_node_outputs_known(g, n)) {
            n->cost.flags |= OC_COST_UNKNOWN;
            return;
        }
        for (int32_t k = 0; k < n->n_in; k++) {
            uint64_t b;
            if (n->in[k] >= 0 && oc_sized_bytes(g, &g->values[n->in[k]], &b, &n->cost.flags))
                oc_sum_u64(&n->cost.bytes_read, b, &n->cost.flags);
        }
        n->cost.bytes_written = n->activation_bytes;
        n->cost.flags |= tflags;
        return;
    }
    if (!n->def || n->status != OC_OK || !oc_node_inputs_known(g, n) || !oc_node_outputs_known(g, n)) {
        n->cost.flags |= OC_COST_UNKNOWN;
        n->upstream = n->status != OC_OK && n->def && !oc_node_inputs_known(g, n);
        if (n->status == OC_OK) {
            n->upstream = !oc_node_inputs_known(g, n);
            n->status = OC_ERR_SHAPE;
            n->reason = !oc_node_inputs_known(g, n) ? "an input's shape is unknown"
                        : (n->def->flags & OC_OPF_DATA_DEPENDENT)
                            ? "output size depends on the input data (kept unknown)"
                            : "an output dim could not be inferred";
        }
        return;
    }
    struct oc_diag nd = {0};
    struct oc_op_ctx ctx = {g, n, &r->an->arena, &nd, r, oc_run_subgraph, oc_run_note};
    if (n->def->cost(&ctx, &n->cost) != OC_OK) { /* a malformed attribute the shape rule does not read */
        n->cost.flags |= OC_COST_UNKNOWN;
        n->reason = oc_arena_printf(&r->an->arena, "its cost rule refused it: %s",
                                    nd.msg[0] ? nd.msg : "an attribute out of its range");
        return;
    }
    if (n->def->cost != oc_cost_zero && oc_node_oversized(g, n)) { /* counted from sizes past 64 bits */
        n->cost.macs = n->cost.macs ? UINT64_MAX : 0;
        n->cost.flops = UINT64_MAX;
        n->cost.flags |= OC_COST_OVERFLOW;
    }
    uint32_t fl = n->def->flags;
    if (!(fl & OC_OPF_ALIAS)) {
        if (!(fl & OC_OPF_META_ONLY))
            for (int32_t k = 0; k < n->n_in; k++) {
                uint64_t b;
                if (n->in[k] >= 0 && oc_sized_bytes(g, &g->values[n->in[k]], &b, &n->cost.flags))
                    oc_sum_u64(&n->cost.bytes_read, b, &n->cost.flags);
            }
        n->cost.bytes_written = n->activation_bytes;
    }
    n->cost.flags |= tflags;
}

/* Infers and costs every node of g in topological order. Values standing for
 * an enclosing graph's values take their current types first. */
static enum oc_status oc_run_graph(struct oc_run *r, struct oc_graph *g) {
    enum oc_status st;
    g->fold_left = &r->an->fold_left;
    g->fold_any_size = r->opts->fold_any_size;
    for (int32_t i = 0; i < g->n_values; i++) {
        struct oc_value *v = &g->values[i];
        if (v->kind != OC_VALUE_OUTER)
            continue;
        v->dtype = v->outer->dtype;
        v->rank = v->outer->rank;
        v->dims = v->outer->dims;
        v->ival = v->outer->ival;
        v->n_ival = v->outer->n_ival;
        v->fval = v->outer->fval;
        v->ival_tried = v->outer->ival_tried;
        v->tensor = v->outer->tensor;
        v->external = v->outer->external;
        v->nt = v->outer->nt;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        struct oc_node *n = &g->nodes[g->order[i]];
        if ((st = oc_infer_node(r, g, n)) != OC_OK)
            return st;
        for (int32_t k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0 && (st = oc_use_declared(r, &g->values[n->out[k]])) != OC_OK)
                return st;
        oc_cost_node(r, g, n);
    }
    return OC_OK;
}

/* Binds a subgraph's formal input v to b where either is a sequence or an
 * optional: a value passed to a formal declared optional becomes an optional
 * holding it (a Loop-carried optional the body returns unwrapped). */
static enum oc_status oc_bind_nontensor(struct oc_op_ctx *c, struct oc_value *v, const struct oc_value *b) {
    v->dtype = 0;
    v->rank = -1;
    v->dims = NULL;
    v->ival = NULL;
    v->n_ival = 0;
    v->fval = NULL;
    v->nt = b->nt;
    const struct oc_ntype *d = v->decl_nt;
    if (!d || d->kind != OC_TYPE_OPTIONAL || (b->nt && b->nt->kind == OC_TYPE_OPTIONAL))
        return OC_OK;
    struct oc_ntype *w = oc_arena_alloc(c->arena, sizeof *w);
    if (!w)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    if (b->nt) {
        *w = *b->nt;
        w->inner = OC_TYPE_SEQUENCE;
    } else {
        *w = (struct oc_ntype){.inner = OC_TYPE_TENSOR, .len = -1, .bytes = -1, .dtype = b->dtype, .rank = b->rank,
                               .dims = b->dims};
    }
    w->kind = OC_TYPE_OPTIONAL;
    w->present = 1;
    v->nt = w;
    return OC_OK;
}

/* oc_subgraph_run (ops.h) as the driver runs it: rules reach it through
 * their context. */
static enum oc_status oc_run_subgraph(struct oc_op_ctx *c, const char *attr, int32_t n_bind,
                                      const struct oc_value *const *bind, struct oc_subgraph *out) {
    struct oc_run *r = c->driver;
    const void *gp;
    memset(out, 0, sizeof *out);
    enum oc_status st = oc_attr_graph(c->node, attr, &gp, c->diag);
    if (st != OC_OK)
        return st;
    if (!gp)
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute '%s' is missing", attr);
    struct oc_diag d = {0};
    if ((st = oc_graph_build_sub(c->g, gp, c->arena, &out->g, &d)) != OC_OK)
        return OC_FAIL(c, st, "subgraph '%s': %s", attr, d.msg);
    oc_op_resolve(out->g);
    struct oc_graph *g = out->g;
    if (n_bind > g->n_inputs)
        n_bind = g->n_inputs;
    for (int32_t i = 0; i < n_bind; i++) {
        struct oc_value *v = &g->values[g->inputs[i]];
        if (!bind[i])
            continue;
        if (bind[i]->nt || (v->decl_nt && v->decl_nt->kind == OC_TYPE_OPTIONAL)) {
            if ((st = oc_bind_nontensor(c, v, bind[i])) != OC_OK)
                return st;
            continue;
        }
        v->dtype = bind[i]->dtype ? bind[i]->dtype : v->dtype;
        v->rank = bind[i]->rank;
        v->dims = bind[i]->dims;
        v->ival = bind[i]->ival;
        v->n_ival = bind[i]->n_ival;
        v->fval = bind[i]->fval;
    }
    /* errors inside the body are reported against the control-flow node */
    struct oc_diag *saved = r->d;
    r->d = &d;
    st = oc_run_graph(r, g);
    r->d = saved;
    if (st != OC_OK)
        return OC_FAIL(c, st, "subgraph '%s': %s", attr, d.msg);
    out->complete = true;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (n->cost.flags & OC_COST_UNKNOWN) {
            out->complete = false;
            continue;
        }
        oc_sum_u64(&out->cost.macs, n->cost.macs, &out->cost.flags);
        oc_sum_u64(&out->cost.flops, n->cost.flops, &out->cost.flags);
        oc_sum_u64(&out->cost.bytes_read, n->cost.bytes_read, &out->cost.flags);
        oc_sum_u64(&out->cost.bytes_written, n->cost.bytes_written, &out->cost.flags);
    }
    return OC_OK;
}

/* ---- parameters ------------------------------------------------------------------- */

static enum oc_status oc_attribute_params(struct oc_run *r) {
    struct oc_graph *g = r->g;
    int32_t *owner = calloc((size_t)g->n_values + 1, sizeof *owner); /* node index + 1 */
    bool *buffer = calloc((size_t)g->n_values + 1, sizeof *buffer);
    if (!owner || !buffer) {
        free(owner);
        free(buffer);
        return oc_nomem(r);
    }
    /* pass 0: nodes that compute with the parameter; pass 1: anything (alias-only uses) */
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t oi = 0; oi < g->n_nodes; oi++) {
            struct oc_node *n = &g->nodes[g->order[oi]];
            bool alias = n->def && (n->def->flags & OC_OPF_ALIAS);
            if (pass == 0 && alias)
                continue;
            for (int32_t k = 0; k < n->n_in; k++) {
                if (n->in[k] < 0)
                    continue;
                const struct oc_value *v = &g->values[n->in[k]];
                int32_t src = v->kind == OC_VALUE_INITIALIZER ? n->in[k] : v->param_of;
                if (src < 0 || !oc_dtype_is_float(g->values[src].dtype))
                    continue;
                bool is_buf = n->def && k < 32 && ((n->def->buffers >> k) & 1u);
                if (pass == 0 && is_buf)
                    buffer[src] = true;
                if (owner[src] == 0) {
                    owner[src] = n->index + 1;
                    uint64_t e = oc_sized_numel(&g->values[src], &n->cost.flags), b = 0;
                    oc_sized_bytes(g, &g->values[src], &b, &n->cost.flags);
                    oc_sum_u64(&n->params, e, &n->cost.flags);
                    oc_sum_u64(&n->param_bytes, b, &n->cost.flags);
                } else if (owner[src] != n->index + 1 && pass == 0) {
                    n->shares_params = true;
                }
            }
        }
    }
    struct oc_totals *t = &r->an->totals;
    for (int32_t i = 0; i < g->n_inits; i++) {
        const struct oc_value *v = &g->values[g->inits[i]];
        uint64_t e, b = 0;
        oc_sized_bytes(g, v, &b, &t->flags);
        oc_sum_u64(&t->initializer_bytes, b, &t->flags);
        if (!oc_dtype_is_float(v->dtype))
            continue;
        e = oc_sized_numel(v, &t->flags);
        oc_sum_u64(&t->params, e, &t->flags);
        oc_sum_u64(&t->params_bytes, b, &t->flags);
        if (!buffer[g->inits[i]] && e > 1 && t->trainable_tensors < INT32_MAX)
            t->trainable_tensors++;
        if (buffer[g->inits[i]]) {
            oc_sum_u64(&t->non_trainable_params, e, &t->flags);
            oc_sum_u64(&t->non_trainable_bytes, b, &t->flags);
            if (owner[g->inits[i]] > 0)
                oc_sum_u64(&g->nodes[owner[g->inits[i]] - 1].nontrainable_params, e, &t->flags);
        }
    }
    t->trainable_params = t->params - t->non_trainable_params;
    free(owner);
    free(buffer);
    return OC_OK;
}

/* ---- totals --------------------------------------------------------------------- */

static int oc_op_count_cmp(const void *pa, const void *pb) {
    const struct oc_op_count *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    int c = strcmp(a->domain, b->domain);
    return c ? c : strcmp(a->op_type, b->op_type);
}

static int oc_op_stat_cmp(const void *pa, const void *pb) {
    const struct oc_op_stat *a = pa, *b = pb;
    if (a->macs != b->macs)
        return a->macs > b->macs ? -1 : 1;
    if (a->flops != b->flops)
        return a->flops > b->flops ? -1 : 1;
    int c = strcmp(a->domain, b->domain);
    return c ? c : strcmp(a->op_type, b->op_type);
}

/* Per-op-type totals and the ops without a rule, in one linear scan with an
 * open-addressed index that grows with the number of distinct op types (not
 * with the nodes: a million nodes of ten op types touch ten entries). */
struct oc_op_tally {
    struct oc_op_stat *stats; /* malloc'd while counting                 */
    int32_t *no_rule;         /* per stat: nodes of it without a rule     */
    int32_t n, cap;
    int32_t *idx;             /* open addressing over stats, -1 free      */
    uint32_t icap;
};

static uint32_t oc_op_hash(const char *domain, const char *op_type) {
    return oc_fnv1a(oc_fnv1a(oc_fnv1a(OC_FNV_INIT, domain, SIZE_MAX), ":", 1), op_type, SIZE_MAX);
}

static bool oc_tally_index(struct oc_op_tally *t, uint32_t icap) {
    int32_t *idx = malloc((size_t)icap * sizeof *idx);
    if (!idx)
        return false;
    memset(idx, 0xff, (size_t)icap * sizeof *idx);
    for (int32_t m = 0; m < t->n; m++) {
        uint32_t k = oc_op_hash(t->stats[m].domain, t->stats[m].op_type) & (icap - 1);
        while (idx[k] >= 0)
            k = (k + 1) & (icap - 1);
        idx[k] = m;
    }
    free(t->idx);
    t->idx = idx;
    t->icap = icap;
    return true;
}

/* The stat of (domain, op_type), added when new; NULL when out of memory. */
static int32_t oc_tally_find(struct oc_op_tally *t, const char *domain, const char *op_type) {
    uint32_t h = oc_op_hash(domain, op_type), k = h & (t->icap - 1);
    while (t->idx[k] >= 0 &&
           (strcmp(t->stats[t->idx[k]].domain, domain) || strcmp(t->stats[t->idx[k]].op_type, op_type)))
        k = (k + 1) & (t->icap - 1);
    if (t->idx[k] >= 0)
        return t->idx[k];
    if (t->n == t->cap) {
        int32_t cap = 2 * t->cap;
        struct oc_op_stat *ns = realloc(t->stats, (size_t)cap * sizeof *ns);
        if (ns)
            t->stats = ns;
        int32_t *nr = realloc(t->no_rule, (size_t)cap * sizeof *nr);
        if (nr)
            t->no_rule = nr;
        if (!ns || !nr)
            return -1;
        t->cap = cap;
    }
    int32_t m = t->n++;
    t->stats[m] = (struct oc_op_stat){.domain = domain, .op_type = op_type};
    t->no_rule[m] = 0;
    if ((uint32_t)t->n * 2 > t->icap)
        return oc_tally_index(t, 2 * t->icap) ? m : -1;
    t->idx[k] = m;
    return m;
}

static enum oc_status oc_sum_op_stats(struct oc_run *r) {
    struct oc_graph *g = r->g;
    struct oc_analysis *an = r->an;
    struct oc_op_tally t = {.cap = 64};
    t.stats = malloc((size_t)t.cap * sizeof *t.stats);
    t.no_rule = malloc((size_t)t.cap * sizeof *t.no_rule);
    enum oc_status st = OC_OK;
    if (!t.stats || !t.no_rule || !oc_tally_index(&t, 128))
        st = oc_nomem(r);
    for (int32_t i = 0; i < g->n_nodes && st == OC_OK; i++) {
        const struct oc_node *n = &g->nodes[i];
        int32_t m = oc_tally_find(&t, n->domain, n->op_type);
        if (m < 0) {
            st = oc_nomem(r);
            break;
        }
        struct oc_op_stat *s = &t.stats[m];
        uint32_t fl = 0;
        s->count++;
        if (!n->def && !n->is_call)
            t.no_rule[m]++;
        oc_sum_u64(&s->params, n->params, &fl);
        oc_sum_u64(&s->activation_bytes, n->activation_bytes, &fl);
        if (n->cost.flags & OC_COST_UNKNOWN) {
            s->uncosted++;
            continue;
        }
        oc_sum_u64(&s->macs, n->cost.macs, &fl);
        oc_sum_u64(&s->flops, n->cost.flops, &fl);
    }
    if (st == OC_OK) {
        int32_t n_unsup = 0;
        for (int32_t m = 0; m < t.n; m++)
            n_unsup += t.no_rule[m] > 0;
        an->op_stats = oc_arena_array(&an->arena, (size_t)t.n + 1, sizeof *an->op_stats);
        an->unsupported = oc_arena_array(&an->arena, (size_t)n_unsup + 1, sizeof *an->unsupported);
        if (!an->op_stats || !an->unsupported) {
            st = oc_nomem(r);
        } else {
            memcpy(an->op_stats, t.stats, (size_t)t.n * sizeof *an->op_stats);
            an->n_op_stats = t.n;
            for (int32_t m = 0; m < t.n; m++)
                if (t.no_rule[m])
                    an->unsupported[an->n_unsupported++] =
                        (struct oc_op_count){t.stats[m].domain, t.stats[m].op_type, t.no_rule[m]};
            qsort(an->op_stats, (size_t)an->n_op_stats, sizeof *an->op_stats, oc_op_stat_cmp);
            qsort(an->unsupported, (size_t)an->n_unsupported, sizeof *an->unsupported, oc_op_count_cmp);
        }
    }
    free(t.stats);
    free(t.no_rule);
    free(t.idx);
    return st;
}

static enum oc_status oc_sum_totals(struct oc_run *r) {
    struct oc_graph *g = r->g;
    struct oc_analysis *an = r->an;
    struct oc_totals *t = &an->totals;
    t->n_nodes = g->n_nodes;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        uint64_t b;
        if (oc_sized_bytes(g, &g->values[g->inputs[i]], &b, &t->flags))
            oc_sum_u64(&t->input_bytes, b, &t->flags);
    }
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[i];
        if (!(n->cost.flags & OC_COST_UNKNOWN)) {
            oc_sum_u64(&t->macs, n->cost.macs, &t->flags);
            oc_sum_u64(&t->flops, n->cost.flops, &t->flags);
            oc_sum_u64(&t->bytes_read, n->cost.bytes_read, &t->flags);
            oc_sum_u64(&t->bytes_written, n->cost.bytes_written, &t->flags);
        }
        oc_sum_u64(&t->activation_bytes, n->activation_bytes, &t->flags);
        t->flags |= n->cost.flags & OC_COST_OVERFLOW;
        if (oc_node_outputs_known(g, n))
            t->n_shaped++;
        if (n->cost.flags & OC_COST_UNKNOWN) {
            t->n_uncosted++;
            t->n_downstream += n->upstream;
        }
        if (!n->def && !n->is_call)
            t->n_no_rule++;
    }
    return oc_sum_op_stats(r);
}

/* An invalid model under dims the user did not bind (taken as 1) may be
 * valid at its real sizes: the message says which dims were defaulted. */
static void oc_note_default_bindings(const struct oc_analysis *an, struct oc_diag *d, enum oc_status st) {
    if (st != OC_ERR_MODEL && st != OC_ERR_OVERFLOW)
        return;
    size_t len = strlen(d->msg);
    int32_t n = 0, total = 0;
    for (int32_t i = 0; i < an->n_bound; i++)
        total += an->bound[i].source == OC_BIND_DEFAULT;
    for (int32_t i = 0; i < an->n_bound; i++) {
        const struct oc_bound_dim *b = &an->bound[i];
        if (b->source != OC_BIND_DEFAULT || len + 64 >= sizeof d->msg)
            continue;
        int w = snprintf(d->msg + len, sizeof d->msg - len, "%s%s%s", n ? ", " : total > 1 ? " (with the unbound dims "
                                                                                       : " (with the unbound dim ",
                         b->name ? b->name : b->input, b->name ? "" : " (unnamed)");
        if (w > 0)
            len += (size_t)w < sizeof d->msg - len ? (size_t)w : sizeof d->msg - len - 1;
        n++;
    }
    if (n && len + 48 < sizeof d->msg)
        snprintf(d->msg + len, sizeof d->msg - len, " taken as 1; bind %s with --dim NAME=N)", total > 1 ? "them" : "it");
}

/* The warning of an analysis whose totals are lower bounds (oc_totals_exact). */
static enum oc_status oc_warn_incomplete(struct oc_run *r) {
    const struct oc_totals *t = &r->an->totals;
    struct oc_arena *a = &r->an->arena;
    if (t->n_uncosted)
        return oc_warn(r, oc_arena_printf(a, "incomplete analysis: %d of %d nodes have no cost (%d without a shape "
                                             "or rule, %d downstream of them); MACs, FLOPs and activation memory "
                                             "are lower bounds",
                                          t->n_uncosted, t->n_nodes, t->n_uncosted - t->n_downstream,
                                          t->n_downstream));
    if (t->flags & OC_COST_OVERFLOW)
        return oc_warn(r, oc_arena_strdup(a, "a count passed 64 bits and is saturated at 2^64 - 1: the totals "
                                             "that hold it are lower bounds"));
    return OC_OK;
}

/* ---- entry ---------------------------------------------------------------------- */

/* One run over the graph restored to its pristine state; fail_after counts
 * this run's arena allocations down to an injected failure (tests). */
/* A copy of the graph's values and nodes as they stand, in the graph arena:
   where every run starts from (pristine_values, pristine_nodes). False when
   out of memory. */
static bool oc_snapshot(struct oc_analysis *an) {
    const struct oc_graph *g = an->graph;
    struct oc_value *values = oc_arena_array(&an->graph_arena, (size_t)g->n_values + 1, sizeof *values);
    struct oc_node *nodes = oc_arena_array(&an->graph_arena, (size_t)g->n_nodes + 1, sizeof *nodes);
    if (!values || !nodes)
        return false;
    memcpy(values, g->values, (size_t)g->n_values * sizeof *values);
    memcpy(nodes, g->nodes, (size_t)g->n_nodes * sizeof *nodes);
    an->pristine_values = values;
    an->pristine_nodes = nodes;
    return true;
}

/* keep_built: after the inputs are bound, where a dim was left unbound, a
   copy of the graph as built (what oc_analysis_prepare keeps): binding
   changed only the graph inputs' values, which are put back as built. */
static enum oc_status oc_keep_built(struct oc_run *r) {
    struct oc_analysis *an = r->an;
    struct oc_graph *g = r->g;
    bool unbound = false;
    for (int32_t i = 0; i < an->n_bound && !unbound; i++)
        unbound = an->bound[i].source == OC_BIND_DEFAULT;
    if (!unbound)
        return OC_OK;
    if (!oc_snapshot(an))
        return oc_nomem(r);
    for (int32_t i = 0; i < g->n_inputs; i++)
        an->pristine_values[g->inputs[i]] = r->inputs_built[i];
    return OC_OK;
}

static enum oc_status oc_run(struct oc_analysis *an, const struct oc_analyze_opts *opts, int64_t fail_after,
                             struct oc_diag *d) {
    static const struct oc_analyze_opts no_opts;
    oc_arena_free(&an->arena);
    an->arena.fail_after = fail_after;
    memset(&an->totals, 0, sizeof an->totals);
    an->n_bound = an->n_warnings = an->n_unsupported = an->n_op_stats = 0;
    an->bound = NULL;
    an->warnings = NULL;
    an->unsupported = NULL;
    an->op_stats = NULL;
    struct oc_graph *g = an->graph;
    *g = an->pristine;
    if (an->pristine_values) { /* prepared: every run starts from the copy as built */
        memcpy(g->values, an->pristine_values, (size_t)g->n_values * sizeof *g->values);
        memcpy(g->nodes, an->pristine_nodes, (size_t)g->n_nodes * sizeof *g->nodes);
    }

    struct oc_run r = {an, g, opts ? opts : &no_opts, d, NULL, NULL, 0, NULL};
    an->fold_left = OC_FOLD_BUDGET;
    r.warn_tail = &r.warn_head;
    g->price_bits = r.opts->price_bits;
    enum oc_status st;
    if (r.opts->keep_built && !an->pristine_values) {
        r.inputs_built = oc_arena_array(&an->arena, (size_t)g->n_inputs + 1, sizeof *r.inputs_built);
        if (!r.inputs_built)
            return oc_nomem(&r);
        for (int32_t i = 0; i < g->n_inputs; i++)
            r.inputs_built[i] = g->values[g->inputs[i]];
    }
    if ((st = oc_bind_inputs(&r)) != OC_OK)
        return st;
    if (r.opts->keep_built && !an->pristine_values && (st = oc_keep_built(&r)) != OC_OK)
        return st;
    if ((st = oc_run_graph(&r, g)) != OC_OK) {
        oc_note_default_bindings(an, d, st);
        return st;
    }
    if ((st = oc_attribute_params(&r)) != OC_OK || (st = oc_sum_totals(&r)) != OC_OK)
        return st;
    struct oc_memory mem;
    if (oc_memory_peak(g, &mem) != OC_OK)
        return oc_nomem(&r);
    an->totals.peak_activation_bytes = mem.peak_bytes;
    an->totals.peak_node = mem.peak_node;
    an->totals.peak_complete = mem.complete;
    if (mem.overflow)
        an->totals.flags |= OC_COST_OVERFLOW;
    if ((st = oc_warn_incomplete(&r)) != OC_OK)
        return st;
    an->warnings = oc_arena_array(&an->arena, (size_t)an->n_warnings + 1, sizeof *an->warnings);
    if (!an->warnings)
        return oc_nomem(&r);
    int32_t k = 0;
    for (struct oc_warn_item *w = r.warn_head; w; w = w->next)
        an->warnings[k++] = w->text;
    return OC_OK;
}

/* Decodes and validates the graph into a new analysis, without running it;
 * with `snapshot`, keeps a copy of its values and nodes as built so that
 * every run can start from the same state. */
static enum oc_status oc_build(const struct oc_model *m, const struct oc_analyze_opts *opts, bool snapshot,
                               struct oc_analysis **out, struct oc_diag *d) {
    *out = NULL;
    struct oc_analysis *an = calloc(1, sizeof *an);
    if (!an)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    oc_arena_init(&an->arena);
    oc_arena_init(&an->graph_arena);
    an->model = m;
    an->graph_arena.fail_after = opts ? opts->fail_alloc_after : 0;
    enum oc_status st = oc_graph_build(m, &an->graph_arena, &an->graph, d);
    if (st == OC_OK)
        oc_op_resolve(an->graph);
    if (st != OC_OK) {
        oc_analysis_free(an);
        return st;
    }
    struct oc_graph *g = an->graph;
    g->arena = &an->arena; /* what runs allocate goes to the run arena */
    an->pristine = *g;
    if (snapshot && !oc_snapshot(an)) {
        oc_analysis_free(an);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    *out = an;
    return OC_OK;
}

enum oc_status oc_analysis_prepare(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                   struct oc_analysis **out, struct oc_diag *d) {
    return oc_build(m, opts, true, out, d);
}

enum oc_status oc_analyze(const struct oc_model *m, const struct oc_analyze_opts *opts, struct oc_analysis **out,
                          struct oc_diag *d) {
    struct oc_analysis *an;
    enum oc_status st = oc_build(m, opts, false, &an, d);
    if (st == OC_OK && (st = oc_run(an, opts, an->graph_arena.fail_after, d)) != OC_OK) {
        oc_analysis_free(an);
        an = NULL;
    }
    *out = an;
    return st;
}

enum oc_status oc_analysis_fork(const struct oc_analysis *base, struct oc_analysis **out, struct oc_diag *d) {
    *out = NULL;
    if (!base->pristine_values)
        return oc_diag_set(d, OC_ERR_USAGE, "the analysis keeps no copy of its graph as built");
    struct oc_analysis *an = calloc(1, sizeof *an);
    if (!an)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    oc_arena_init(&an->arena);
    oc_arena_init(&an->graph_arena);
    an->model = base->model;
    const struct oc_graph *bg = &base->pristine;
    struct oc_graph *g = oc_arena_alloc(&an->graph_arena, sizeof *g);
    struct oc_value *values = g ? oc_arena_array(&an->graph_arena, (size_t)bg->n_values + 1, sizeof *values) : NULL;
    struct oc_node *nodes = values ? oc_arena_array(&an->graph_arena, (size_t)bg->n_nodes + 1, sizeof *nodes) : NULL;
    if (!nodes) {
        oc_analysis_free(an);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    *g = *bg; /* names, edges, order, index: base's, read only */
    g->values = values;
    g->nodes = nodes;
    g->arena = &an->arena;
    an->graph = g;
    an->pristine = *g;
    an->pristine_values = base->pristine_values;
    an->pristine_nodes = base->pristine_nodes;
    *out = an;
    return OC_OK;
}

enum oc_status oc_analysis_rerun(struct oc_analysis *an, const struct oc_analyze_opts *opts, struct oc_diag *d) {
    if (!an->pristine_values)
        return oc_diag_set(d, OC_ERR_USAGE, "the analysis was not made with oc_analysis_prepare");
    return oc_run(an, opts, opts ? opts->fail_alloc_after : 0, d);
}

void oc_analysis_free(struct oc_analysis *a) {
    if (!a)
        return;
    oc_arena_free(&a->arena);
    oc_arena_free(&a->graph_arena);
    free(a);
}
