/*
 * memory.c — liveness sweep for the peak activation memory (see memory.h).
 */
#include "memory.h"

#include "ops.h"

#include <stdlib.h>

/* Buffer a value uses: an alias op's output is its input's buffer. */
static int32_t oc_buffer_of(int32_t v, const int32_t *alias_src) {
    for (int hops = 0; alias_src[v] >= 0 && hops < 1 << 20; hops++)
        v = alias_src[v];
    return v;
}

/* The sweep; with live_step >= 0 also the buffers live at that step (up
   to cap of them, *n_live how many there are). */
static enum oc_status oc_memory_sweep(const struct oc_graph *g, const int32_t *order, struct oc_memory *out,
                                      int32_t live_step, int32_t *live_bufs, int32_t cap, int32_t *n_live) {
    int32_t nv = g->n_values, nn = g->n_nodes;
    out->peak_bytes = 0;
    out->peak_node = -1;
    out->complete = true;
    out->overflow = false;
    int32_t *alias_src = malloc(((size_t)nv + 1) * sizeof *alias_src);
    int32_t *step_of = malloc(((size_t)nn + 1) * sizeof *step_of);
    int32_t *first = malloc(((size_t)nv + 1) * sizeof *first); /* step a buffer is allocated */
    int32_t *last = malloc(((size_t)nv + 1) * sizeof *last);   /* last step it is needed    */
    uint64_t *delta = calloc((size_t)nn + 2, sizeof *delta);   /* bytes freed after step i  */
    uint64_t *alloc = calloc((size_t)nn + 2, sizeof *alloc);   /* bytes allocated at step i */
    if (!alias_src || !step_of || !first || !last || !delta || !alloc) {
        free(alias_src), free(step_of), free(first), free(last), free(delta), free(alloc);
        return OC_ERR_NOMEM;
    }
    for (int32_t v = 0; v < nv; v++) {
        alias_src[v] = -1;
        first[v] = -2; /* not an activation buffer */
        last[v] = -1;
    }
    for (int32_t i = 0; i < nn; i++)
        step_of[order[i]] = i;
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[order[i]];
        if (n->def && (n->def->flags & OC_OPF_ALIAS) && n->n_in > 0 && n->in[0] >= 0 && n->n_out > 0 &&
            n->out[0] >= 0 && g->values[n->in[0]].kind != OC_VALUE_INITIALIZER)
            alias_src[n->out[0]] = n->in[0];
    }
    /* allocation step of each buffer */
    for (int32_t v = 0; v < nv; v++) {
        const struct oc_value *val = &g->values[v];
        if (alias_src[v] >= 0)
            continue;
        if (val->kind == OC_VALUE_INPUT)
            first[v] = 0;
        else if (val->kind == OC_VALUE_NODE && val->producer >= 0)
            first[v] = step_of[val->producer];
    }
    /* last use of each buffer: the latest consumer of any value sharing it */
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[order[i]];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v < 0)
                continue;
            int32_t b = oc_buffer_of(v, alias_src);
            if (first[b] >= -1 && last[b] < i)
                last[b] = i;
        }
    }
    for (int32_t v = 0; v < nv; v++)
        if (g->values[v].is_graph_output) {
            int32_t b = oc_buffer_of(v, alias_src);
            if (first[b] >= -1)
                last[b] = nn - 1;
        }
    for (int32_t b = 0; b < nv; b++) {
        if (first[b] < -1 || alias_src[b] >= 0)
            continue;
        uint64_t bytes;
        if (!oc_value_bytes_saturating(g, &g->values[b], &bytes, &out->overflow)) {
            out->complete = false;
            continue;
        }
        int32_t end = last[b] < first[b] ? first[b] : last[b]; /* unused outputs live during their step */
        /* sizes come from the file's dims: sums saturate at 2^64 - 1 */
        oc_add_u64(alloc[first[b]], bytes, &alloc[first[b]]);
        oc_add_u64(delta[end], bytes, &delta[end]);
        if (live_step >= 0 && first[b] <= live_step && live_step <= end) {
            if (*n_live < cap)
                live_bufs[*n_live] = b;
            (*n_live)++;
        }
    }
    uint64_t live = 0;
    for (int32_t i = 0; i < nn; i++) {
        oc_add_u64(live, alloc[i], &live);
        if (live > out->peak_bytes || out->peak_node < 0) {
            out->peak_bytes = live;
            out->peak_node = order[i];
        }
        live = live > delta[i] ? live - delta[i] : 0;
    }
    if (out->overflow)
        out->peak_bytes = UINT64_MAX;
    free(alias_src), free(step_of), free(first), free(last), free(delta), free(alloc);
    return OC_OK;
}

enum oc_status oc_memory_peak(const struct oc_graph *g, struct oc_memory *out) {
    return oc_memory_peak_order(g, g->order, out);
}

enum oc_status oc_memory_peak_order(const struct oc_graph *g, const int32_t *order, struct oc_memory *out) {
    int32_t n = 0;
    return oc_memory_sweep(g, order, out, -1, NULL, 0, &n);
}

enum oc_status oc_memory_live_at(const struct oc_graph *g, const int32_t *order, int32_t step, int32_t *live,
                                 int32_t cap, int32_t *n_live) {
    struct oc_memory m;
    *n_live = 0;
    return oc_memory_sweep(g, order, &m, step, live, cap, n_live);
}
