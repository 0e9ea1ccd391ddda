/*
 * mem_plan.c — a static memory plan of the activations (mem_plan.h).
 */
#include "mem_plan.h"

#include "../analyzer/attr.h"
#include "../analyzer/ops.h"

#include <stdlib.h>
#include <string.h>

/* Elementwise ops whose output may overwrite an input of its own shape. */
static const char *const oc_inplace_ops[] = {
    "Abs",     "Acos",     "Acosh",    "Add",     "Asin",        "Asinh",   "Atan",      "Atanh",   "BiasGelu",
    "Ceil",    "Celu",     "Clip",     "Cos",     "Cosh",        "Div",     "Elu",       "Erf",     "Exp",
    "FastGelu", "Floor",   "Gelu",     "HardSigmoid", "HardSwish", "LeakyRelu", "Log",     "Max",     "Min",
    "Mish",    "Mul",      "Neg",      "Not",     "Pow",         "PRelu",   "QuickGelu", "Reciprocal", "Relu",
    "Round",   "Selu",     "Sigmoid",  "Sign",    "Sin",         "Sinh",    "Softplus",  "Softsign", "Sqrt",
    "Sub",     "Sum",      "Tan",      "Tanh",    "ThresholdedRelu",
};

static bool oc_plan_inplace_op(const struct oc_node *n) {
    bool onnx = !n->domain[0] || strcmp(n->domain, "ai.onnx") == 0 || strcmp(n->domain, "com.microsoft") == 0;
    if (!onnx)
        return false;
    for (size_t k = 0; k < sizeof oc_inplace_ops / sizeof *oc_inplace_ops; k++)
        if (strcmp(n->op_type, oc_inplace_ops[k]) == 0)
            return true;
    return false;
}

static bool oc_plan_same_shape(const struct oc_value *a, const struct oc_value *b) {
    if (a->nt || b->nt || a->rank < 0 || a->rank != b->rank || a->dtype != b->dtype)
        return false;
    for (int32_t k = 0; k < a->rank; k++)
        if (a->dims[k].value < 0 || a->dims[k].value != b->dims[k].value)
            return false;
    return true;
}

void oc_plan_free(struct oc_plan *p) {
    free(p->buffers);
    free(p->buffer_of);
    memset(p, 0, sizeof *p);
}

static bool oc_plan_live_together(const struct oc_plan_buffer *a, const struct oc_plan_buffer *b) {
    return a->first <= b->last && b->first <= a->last;
}

static int oc_plan_by_offset(const void *x, const void *y) {
    const struct oc_plan_buffer *a = *(const struct oc_plan_buffer *const *)x, *b = *(const struct oc_plan_buffer *const *)y;
    return a->offset < b->offset ? -1 : a->offset > b->offset ? 1 : a->size < b->size ? -1 : a->size > b->size;
}

/* The lowest-waste gap among `placed` (sorted by offset) that holds size,
   else the end of the highest. */
static uint64_t oc_plan_best_fit(struct oc_plan_buffer *const *placed, int32_t n, uint64_t size) {
    uint64_t end = 0, best = 0, waste = UINT64_MAX;
    bool found = false;
    for (int32_t k = 0; k < n; k++) {
        if (placed[k]->offset > end) {
            uint64_t gap = placed[k]->offset - end;
            if (gap >= size && gap - size < waste) {
                waste = gap - size;
                best = end;
                found = true;
            }
        }
        if (placed[k]->offset + placed[k]->size > end)
            end = placed[k]->offset + placed[k]->size;
    }
    return found ? best : end;
}

static int oc_plan_by_size(const void *x, const void *y) {
    const struct oc_plan_buffer *a = *(const struct oc_plan_buffer *const *)x, *b = *(const struct oc_plan_buffer *const *)y;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return a->value < b->value ? -1 : a->value > b->value;
}

/* Greedy by size: the largest first, best fit against those placed that
   live at the same time. */
static bool oc_plan_greedy_size(struct oc_plan *p) {
    int32_t n = p->n_buffers;
    struct oc_plan_buffer **order = malloc(((size_t)n + 1) * sizeof *order);
    struct oc_plan_buffer **near = malloc(((size_t)n + 1) * sizeof *near);
    if (!order || !near) {
        free(order), free(near);
        return false;
    }
    for (int32_t i = 0; i < n; i++)
        order[i] = &p->buffers[i];
    qsort(order, (size_t)n, sizeof *order, oc_plan_by_size);
    for (int32_t i = 0; i < n; i++) {
        int32_t m = 0;
        for (int32_t j = 0; j < i; j++)
            if (oc_plan_live_together(order[i], order[j]))
                near[m++] = order[j];
        qsort(near, (size_t)m, sizeof *near, oc_plan_by_offset);
        order[i]->offset = oc_plan_best_fit(near, m, order[i]->size);
    }
    free(order), free(near);
    return true;
}

/* In execution order: each buffer at its first step, best fit among those
   live then (ONNX Runtime's memory pattern). */
static bool oc_plan_exec_order(struct oc_plan *p) {
    int32_t n = p->n_buffers;
    struct oc_plan_buffer **live = calloc((size_t)n + 1, sizeof *live);
    if (!live)
        return false;
    int32_t n_live = 0;
    for (int32_t i = 0; i < n; i++) { /* buffers are sorted by first step */
        struct oc_plan_buffer *b = &p->buffers[i];
        int32_t k = 0;
        for (int32_t j = 0; j < n_live; j++) /* those dead before this step leave */
            if (live[j]->last >= b->first)
                live[k++] = live[j];
        n_live = k;
        b->offset = oc_plan_best_fit(live, n_live, b->size);
        k = 0;
        while (k < n_live && oc_plan_by_offset(&live[k], &b) <= 0)
            k++;
        memmove(&live[k + 1], &live[k], (size_t)(n_live - k) * sizeof *live);
        live[k] = b;
        n_live++;
    }
    free(live);
    return true;
}

static uint64_t oc_plan_arena(const struct oc_plan *p) {
    uint64_t end = 0;
    for (int32_t i = 0; i < p->n_buffers; i++)
        if (p->buffers[i].offset + p->buffers[i].size > end)
            end = p->buffers[i].offset + p->buffers[i].size;
    return end;
}

bool oc_plan_verify(const struct oc_plan *p, int32_t *a, int32_t *b) {
    for (int32_t i = 0; i < p->n_buffers; i++) {
        const struct oc_plan_buffer *x = &p->buffers[i];
        *a = i;
        *b = -1;
        if (p->align == 0 || x->offset % p->align || x->size < x->bytes || x->offset > p->arena_bytes ||
            x->size > p->arena_bytes - x->offset || x->first > x->last)
            return false;
        for (int32_t j = i + 1; j < p->n_buffers; j++) {
            const struct oc_plan_buffer *y = &p->buffers[j];
            if (oc_plan_live_together(x, y) && x->size && y->size && x->offset < y->offset + y->size &&
                y->offset < x->offset + x->size) {
                *b = j;
                return false;
            }
        }
    }
    *a = *b = -1;
    return true;
}

static int oc_plan_by_first(const void *x, const void *y) {
    const struct oc_plan_buffer *a = x, *b = y;
    if (a->first != b->first)
        return a->first < b->first ? -1 : 1;
    return a->value < b->value ? -1 : a->value > b->value;
}

enum oc_status oc_plan_make(const struct oc_graph *g, const uint64_t *value_bytes, enum oc_planner planner,
                            uint64_t align, bool inplace, struct oc_plan *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    out->planner = planner;
    out->align = align;
    out->inplace = inplace;
    int32_t nv = g->n_values, nn = g->n_nodes;
    out->n_values = nv;
    out->n_steps = nn;
    int32_t *step = malloc(((size_t)nn + 1) * sizeof *step);
    int32_t *last_read = malloc(((size_t)nv + 1) * sizeof *last_read);
    int32_t *cur_last = malloc(((size_t)nv + 1) * sizeof *cur_last); /* per buffer, so far */
    out->buffer_of = malloc(((size_t)nv + 1) * sizeof *out->buffer_of);
    out->buffers = calloc((size_t)nv + 1, sizeof *out->buffers);
    uint64_t *delta = calloc((size_t)nn + 2, sizeof *delta), *add = calloc((size_t)nn + 2, sizeof *add);
    enum oc_status st = OC_ERR_NOMEM;
    if (!step || !last_read || !cur_last || !out->buffer_of || !out->buffers || !delta || !add)
        goto fail;
    for (int32_t s = 0; s < nn; s++)
        step[g->order[s]] = s;
    for (int32_t v = 0; v < nv; v++) {
        out->buffer_of[v] = -1;
        const struct oc_value *val = &g->values[v];
        last_read[v] = val->producer >= 0 ? step[val->producer] : 0;
        if (val->is_graph_output)
            last_read[v] = nn > 0 ? nn - 1 : 0;
    }
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[i];
        out->n_subgraph_nodes += n->n_implicit > 0 || oc_attr_first_graph(n) != NULL;
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v >= 0 && step[i] > last_read[v])
                last_read[v] = step[i];
        }
    }
    int32_t nb = 0;
    /* a buffer per graph input, then per output in execution order */
    for (int32_t k = 0; k < g->n_inputs; k++) {
        int32_t v = g->inputs[k];
        out->buffers[nb] = (struct oc_plan_buffer){.value = v, .n_values = 1, .role = OC_PLAN_INPUT};
        cur_last[nb] = last_read[v];
        out->buffer_of[v] = nb++;
    }
    for (int32_t s = 0; s < nn; s++) {
        const struct oc_node *n = &g->nodes[g->order[s]];
        bool constant = (!n->domain[0] || strcmp(n->domain, "ai.onnx") == 0) && strcmp(n->op_type, "Constant") == 0;
        for (int32_t o = 0; o < n->n_out; o++) {
            int32_t v = n->out[o];
            if (v < 0 || constant)
                continue;
            int32_t b = -1;
            if (o == 0 && n->def && (n->def->flags & OC_OPF_ALIAS) && n->n_in > 0 && n->in[0] >= 0) {
                if (g->values[n->in[0]].kind == OC_VALUE_INITIALIZER || out->buffer_of[n->in[0]] < 0)
                    continue; /* a view of a weight: not in the arena */
                b = out->buffer_of[n->in[0]];
            } else if (o == 0 && inplace && oc_plan_inplace_op(n)) {
                for (int32_t k = 0; k < n->n_in && b < 0; k++) {
                    int32_t u = n->in[k];
                    int32_t c = u >= 0 ? out->buffer_of[u] : -1;
                    if (c >= 0 && out->buffers[c].role == OC_PLAN_ACTIVATION && cur_last[c] == s &&
                        oc_plan_same_shape(&g->values[u], &g->values[v]))
                        b = c;
                }
            }
            if (b < 0) {
                b = nb++;
                out->buffers[b] = (struct oc_plan_buffer){.value = v, .first = s};
                cur_last[b] = s;
            }
            out->buffer_of[v] = b;
            out->buffers[b].n_values++;
            if (g->values[v].is_graph_output) /* never overwritten in place */
                out->buffers[b].role = OC_PLAN_OUTPUT;
            if (last_read[v] > cur_last[b])
                cur_last[b] = last_read[v];
        }
    }
    out->n_buffers = nb;
    for (int32_t v = 0; v < nv; v++) {
        int32_t b = out->buffer_of[v];
        if (b < 0)
            continue;
        struct oc_plan_buffer *buf = &out->buffers[b];
        uint64_t bytes = value_bytes ? value_bytes[v] : UINT64_MAX;
        if (value_bytes ? bytes == UINT64_MAX : !oc_value_bytes(&g->values[v], &bytes)) {
            st = oc_diag_set(d, OC_ERR_UNSUPPORTED,
                             "%s '%s' has no known size at these bindings (%s): no static plan",
                             g->values[v].nt ? "value" : "tensor", g->values[v].name,
                             g->values[v].nt ? "a sequence or optional"
                                             : "a dim is unbound, or its shape depends on the data");
            goto fail;
        }
        if (bytes > UINT64_MAX / 4) {
            st = oc_diag_set(d, OC_ERR_UNSUPPORTED, "tensor '%s' is too large to plan (%llu bytes)", g->values[v].name,
                             (unsigned long long)bytes);
            goto fail;
        }
        if (bytes > buf->bytes)
            buf->bytes = bytes;
        if (g->values[v].is_graph_output)
            buf->role = OC_PLAN_OUTPUT;
        else if (g->values[v].kind == OC_VALUE_INPUT)
            buf->role = OC_PLAN_INPUT;
    }
    for (int32_t b = 0; b < nb; b++) {
        struct oc_plan_buffer *buf = &out->buffers[b];
        buf->last = cur_last[b] > buf->first ? cur_last[b] : buf->first;
        buf->size = (buf->bytes + align - 1) / align * align;
        delta[buf->first] += buf->size;
        add[buf->last + 1] += buf->size;
    }
    uint64_t live = 0;
    for (int32_t s = 0; s < (nn > 0 ? nn : 1); s++) {
        live = live + delta[s] - add[s];
        if (live > out->lower_bound_bytes) {
            out->lower_bound_bytes = live;
            out->lower_bound_step = s;
        }
    }
    /* buffers by first step; buffer_of follows them */
    for (int32_t b = 0; b < nb; b++)
        out->buffers[b].offset = (uint64_t)b; /* its index before the sort (offsets are set below) */
    qsort(out->buffers, (size_t)nb, sizeof *out->buffers, oc_plan_by_first);
    int32_t *moved_to = cur_last; /* no longer needed as last steps: reused as the new index of each old one */
    for (int32_t b = 0; b < nb; b++)
        moved_to[out->buffers[b].offset] = b;
    for (int32_t v = 0; v < nv; v++)
        if (out->buffer_of[v] >= 0)
            out->buffer_of[v] = moved_to[out->buffer_of[v]];
    /* both planners; the chosen one's offsets stay */
    enum oc_planner other = planner == OC_PLANNER_SIZE ? OC_PLANNER_ORDER : OC_PLANNER_SIZE;
    if (!(other == OC_PLANNER_SIZE ? oc_plan_greedy_size(out) : oc_plan_exec_order(out)))
        goto fail;
    out->other_arena_bytes = oc_plan_arena(out);
    if (!(planner == OC_PLANNER_SIZE ? oc_plan_greedy_size(out) : oc_plan_exec_order(out)))
        goto fail;
    out->arena_bytes = oc_plan_arena(out);
    free(step), free(last_read), free(cur_last), free(delta), free(add);
    return OC_OK;
fail:
    free(step), free(last_read), free(cur_last), free(delta), free(add);
    oc_plan_free(out);
    return st == OC_ERR_NOMEM ? oc_diag_set(d, st, "out of memory") : st;
}
