/*
 * ort_arena.c — ONNX Runtime's CPU arena replayed over a graph (ort_arena.h).
 */
#include "ort_arena.h"

#include "../analyzer/attr.h"
#include "../analyzer/dtype.h"
#include "../analyzer/ops.h"

#include <stdlib.h>
#include <string.h>

enum { OC_BFC_MIN = 256, OC_BFC_BINS = 21 };
#define OC_BFC_FIRST_REGION (1ull << 20)
#define OC_BFC_MAX_DEAD (128ull << 20)

static uint64_t oc_round_up(uint64_t n, uint64_t to) {
    return n > UINT64_MAX - to ? UINT64_MAX / to * to : (n + to - 1) / to * to;
}

/* ---- the BFC arena ------------------------------------------------------------------
 * Chunks of regions, best fit by (bin, size, address), split when the chunk is
 * at least twice the request (or wastes 128 MiB), merged with free neighbours
 * of the same region when freed. Regions are never returned. */
struct oc_bfc_chunk {
    uint64_t off, size;
    int32_t region, prev, next; /* neighbours in the region, -1 none */
    bool in_use, dead;
};

struct oc_bfc {
    struct oc_bfc_chunk *c;
    int32_t n, cap;
    int32_t *spare; /* dead slots */
    int32_t n_spare;
    int32_t n_regions;
    uint64_t next_region; /* curr_region_allocation_bytes_ */
    uint64_t in_use, run_peak, peak, held;
    int32_t node, peak_node; /* node running now, and at the peak */
    bool nomem;
};

static int32_t oc_bfc_bin(uint64_t size) {
    uint64_t q = (size < OC_BFC_MIN ? OC_BFC_MIN : size) >> 8;
    int32_t b = 63 - __builtin_clzll(q);
    return b < OC_BFC_BINS - 1 ? b : OC_BFC_BINS - 1;
}

static int32_t oc_bfc_new(struct oc_bfc *a, struct oc_bfc_chunk ch) {
    int32_t i;
    if (a->n_spare) {
        i = a->spare[--a->n_spare];
    } else {
        if (a->n == a->cap) {
            int32_t cap = a->cap ? a->cap * 2 : 256;
            struct oc_bfc_chunk *c = realloc(a->c, (size_t)cap * sizeof *c);
            int32_t *s = realloc(a->spare, (size_t)cap * sizeof *s);
            if (s)
                a->spare = s;
            if (!c || !s) {
                if (c)
                    a->c = c;
                a->nomem = true;
                return -1;
            }
            a->c = c;
            a->cap = cap;
        }
        i = a->n++;
    }
    a->c[i] = ch;
    return i;
}

static void oc_bfc_kill(struct oc_bfc *a, int32_t i) {
    a->c[i].dead = true;
    a->spare[a->n_spare++] = i; /* spare has room for every slot */
}

static int32_t oc_bfc_find(const struct oc_bfc *a, uint64_t r) {
    int32_t best = -1, bin = oc_bfc_bin(r), best_bin = 0;
    for (int32_t i = 0; i < a->n; i++) {
        const struct oc_bfc_chunk *c = &a->c[i];
        if (c->dead || c->in_use || c->size < r)
            continue;
        int32_t b = oc_bfc_bin(c->size);
        if (b < bin)
            continue;
        if (best < 0 || b < best_bin ||
            (b == best_bin &&
             (c->size < a->c[best].size ||
              (c->size == a->c[best].size &&
               (c->region < a->c[best].region || (c->region == a->c[best].region && c->off < a->c[best].off)))))) {
            best = i;
            best_bin = b;
        }
    }
    return best;
}

static void oc_bfc_count(struct oc_bfc *a, uint64_t bytes) {
    a->in_use += bytes;
    if (a->in_use > a->run_peak)
        a->run_peak = a->in_use;
    if (a->in_use > a->peak) {
        a->peak = a->in_use;
        a->peak_node = a->node;
    }
}

/* A chunk for n bytes (-1 for none: n is 0, or no memory to simulate with). */
static int32_t oc_bfc_alloc(struct oc_bfc *a, uint64_t n) {
    if (n == 0 || a->nomem)
        return -1;
    uint64_t r = oc_round_up(n, OC_BFC_MIN);
    int32_t i = oc_bfc_find(a, r);
    if (i < 0) { /* Extend: a region of the next size, doubled after each that sufficed */
        bool grew = false;
        while (r > a->next_region && a->next_region <= UINT64_MAX / 2) {
            a->next_region *= 2;
            grew = true;
        }
        uint64_t size = a->next_region > r ? a->next_region : r;
        if (!grew && a->next_region <= UINT64_MAX / 2)
            a->next_region *= 2;
        i = oc_bfc_new(a, (struct oc_bfc_chunk){0, size, a->n_regions++, -1, -1, false, false});
        if (i < 0)
            return -1;
        a->held += size;
    }
    struct oc_bfc_chunk *c = &a->c[i];
    if (c->size >= 2 * r || c->size - r >= OC_BFC_MAX_DEAD) {
        struct oc_bfc_chunk rest = {c->off + r, c->size - r, c->region, i, c->next, false, false};
        int32_t j = oc_bfc_new(a, rest);
        if (j < 0)
            return -1;
        c = &a->c[i];
        if (c->next >= 0)
            a->c[c->next].prev = j;
        c->next = j;
        c->size = r;
    }
    c->in_use = true;
    oc_bfc_count(a, c->size);
    return i;
}

static void oc_bfc_free(struct oc_bfc *a, int32_t i) {
    if (i < 0)
        return;
    struct oc_bfc_chunk *c = &a->c[i];
    c->in_use = false;
    a->in_use -= c->size;
    int32_t nx = c->next;
    if (nx >= 0 && !a->c[nx].in_use) {
        c->size += a->c[nx].size;
        c->next = a->c[nx].next;
        if (c->next >= 0)
            a->c[c->next].prev = i;
        oc_bfc_kill(a, nx);
    }
    int32_t pv = c->prev;
    if (pv >= 0 && !a->c[pv].in_use) {
        a->c[pv].size += c->size;
        a->c[pv].next = c->next;
        if (c->next >= 0)
            a->c[c->next].prev = pv;
        oc_bfc_kill(a, i);
    }
}

/* ---- the memory pattern: offsets from the first run's trace, best fit ------------- */
struct oc_pat_block {
    uint64_t off, size;
    int32_t v;
};

struct oc_pattern {
    struct oc_pat_block *live; /* by offset */
    int32_t n_live;
    uint64_t size;
    uint64_t *block_size; /* per value: its block's size, 0 none */
};

static void oc_pattern_alloc(struct oc_pattern *p, int32_t v, uint64_t size) {
    if (size == 0)
        return;
    uint64_t cur = 0, best = 0, waste = UINT64_MAX;
    bool found = false;
    for (int32_t k = 0; k < p->n_live; k++) {
        const struct oc_pat_block *b = &p->live[k];
        if (b->off >= cur) {
            uint64_t gap = b->off - cur;
            if (gap >= size && gap - size < waste) {
                waste = gap - size;
                best = cur;
                found = true;
            }
        }
        if (b->off + b->size > cur)
            cur = b->off + b->size;
    }
    if (cur < p->size) {
        uint64_t gap = p->size - cur;
        if (gap >= size && gap - size < waste) {
            best = cur;
            found = true;
        }
    }
    if (!found)
        best = cur;
    if (best + size > p->size)
        p->size = best + size;
    p->block_size[v] = size;
    int32_t k = 0;
    while (k < p->n_live && !(p->live[k].off > best || (p->live[k].off == best && p->live[k].size >= size)))
        k++;
    memmove(&p->live[k + 1], &p->live[k], (size_t)(p->n_live - k) * sizeof *p->live);
    p->live[k] = (struct oc_pat_block){best, size, v};
    p->n_live++;
}

static void oc_pattern_free(struct oc_pattern *p, int32_t v) {
    for (int32_t k = 0; k < p->n_live; k++)
        if (p->live[k].v == v) {
            memmove(&p->live[k], &p->live[k + 1], (size_t)(p->n_live - k - 1) * sizeof *p->live);
            p->n_live--;
            return;
        }
}

/* ---- ops -------------------------------------------------------------------------- */
static bool oc_is(const struct oc_node *n, const char *domain, const char *op) {
    const char *d = n->domain[0] ? n->domain : "";
    if (strcmp(d, "ai.onnx") == 0)
        d = "";
    return strcmp(d, domain) == 0 && strcmp(n->op_type, op) == 0;
}

static const char *const oc_inplace_unary[] = {"Relu",     "LeakyRelu", "Elu",   "Selu",        "Sigmoid",
                                               "Tanh",     "HardSigmoid", "Softplus", "Softsign", "ThresholdedRelu",
                                               "Celu",     "Softmax",   "LogSoftmax"};

/* The input an output may overwrite in place (MayInplace), -1 none. */
static int32_t oc_inplace_input(const struct oc_node *n) {
    if (oc_is(n, "com.microsoft.nchwc", "Conv") || oc_is(n, "com.microsoft", "FusedConv"))
        return 3;
    for (size_t k = 0; k < sizeof oc_inplace_unary / sizeof *oc_inplace_unary; k++)
        if (oc_is(n, "", oc_inplace_unary[k]))
            return 0;
    return -1;
}

static bool oc_elem_bytes(const struct oc_value *v, uint64_t *b) {
    return v->dtype > 0 && oc_dtype_bytes(v->dtype, 1, b);
}

static bool oc_dims_known(const struct oc_value *v) {
    if (v->nt || v->rank < 0)
        return false;
    for (int32_t k = 0; k < v->rank; k++)
        if (v->dims[k].value < 0)
            return false;
    return true;
}

static bool oc_same_shape(const struct oc_value *a, const struct oc_value *b) {
    uint64_t ea, eb;
    if (!oc_dims_known(a) || !oc_dims_known(b) || a->rank != b->rank || !oc_elem_bytes(a, &ea) ||
        !oc_elem_bytes(b, &eb) || ea != eb)
        return false;
    for (int32_t k = 0; k < a->rank; k++)
        if (a->dims[k].value != b->dims[k].value)
            return false;
    return true;
}

static uint64_t oc_mlas_packb(uint64_t n, uint64_t k) {
    uint64_t r = oc_round_up(n, 16), bytes;
    if (__builtin_mul_overflow(r, k, &bytes) || __builtin_mul_overflow(bytes, 4, &bytes))
        return UINT64_MAX;
    return oc_round_up(bytes, 64);
}

static int64_t oc_int(const struct oc_node *n, const char *name, int64_t def) {
    int64_t v = def;
    if (oc_attr_int(n, name, def, &v, NULL) != OC_OK)
        return def;
    return v;
}

static const struct oc_value *oc_arg(const struct oc_graph *g, const struct oc_node *n, int32_t k) {
    return k < n->n_in && n->in[k] >= 0 ? &g->values[n->in[k]] : NULL;
}

static bool oc_float_weight2d(const struct oc_value *w) {
    return w && w->kind == OC_VALUE_INITIALIZER && w->rank == 2 && w->dtype == 1 && oc_dims_known(w);
}

/* Bytes a kernel pre-packs when the session is made (0: none). */
static uint64_t oc_prepack_bytes(const struct oc_graph *g, const struct oc_node *n) {
    const struct oc_value *w = oc_arg(g, n, 1);
    if (!oc_float_weight2d(w))
        return 0;
    uint64_t d0 = (uint64_t)w->dims[0].value, d1 = (uint64_t)w->dims[1].value;
    if (oc_is(n, "", "MatMul"))
        return oc_mlas_packb(d1, d0);
    if (oc_is(n, "", "Gemm") || oc_is(n, "com.microsoft", "FusedGemm") || oc_is(n, "com.microsoft", "FusedMatMul"))
        return oc_int(n, "transB", 0) ? oc_mlas_packb(d0, d1) : oc_mlas_packb(d1, d0);
    if (oc_is(n, "com.microsoft", "Attention")) { /* Q, K and V, per head */
        int64_t heads = oc_int(n, "num_heads", 0);
        if (heads <= 0 || d1 % 3 || (d1 / 3) % (uint64_t)heads)
            return 0;
        uint64_t per = oc_mlas_packb(d1 / 3 / (uint64_t)heads, d0), all;
        if (__builtin_mul_overflow(per, 3 * (uint64_t)heads, &all))
            return UINT64_MAX;
        return all;
    }
    return 0;
}

static uint64_t oc_bytes_or0(const struct oc_value *v, int32_t *n_unsized) {
    uint64_t b = 0;
    if (!v)
        return 0;
    if (!oc_value_bytes(v, &b)) {
        (*n_unsized)++;
        return 0;
    }
    return b;
}

static uint64_t oc_prod(const struct oc_dim *d, int32_t from, int32_t to) {
    uint64_t p = 1;
    for (int32_t k = from; k < to; k++)
        if (d[k].value < 0 || __builtin_mul_overflow(p, (uint64_t)d[k].value, &p))
            return 0;
    return p;
}

/* MLAS's working buffer of a float Conv (MlasConvPrepare), in bytes. */
static uint64_t oc_conv_scratch(const struct oc_graph *g, const struct oc_node *n, int32_t threads) {
    const struct oc_value *x = oc_arg(g, n, 0), *w = oc_arg(g, n, 1);
    const struct oc_value *y = n->n_out > 0 && n->out[0] >= 0 ? &g->values[n->out[0]] : NULL;
    if (!x || !w || !y || x->dtype != 1 || !oc_dims_known(x) || !oc_dims_known(w) || !oc_dims_known(y) ||
        x->rank < 3 || w->rank != x->rank || y->rank != x->rank)
        return 0;
    int32_t sp = x->rank - 2;
    int64_t group = oc_int(n, "group", 1);
    if (group <= 0)
        return 0;
    uint64_t cg = (uint64_t)x->dims[1].value / (uint64_t)group, m = (uint64_t)w->dims[0].value;
    uint64_t k = cg * oc_prod(w->dims, 2, w->rank), out = oc_prod(y->dims, 2, y->rank), f = m / (uint64_t)group;
    if (sp > 3)
        return 4 * k * out; /* im2col */
    const int64_t *v;
    int64_t cnt;
    bool unit = true, nopad = true, nodil = true;
    if (oc_attr_ints(n, "strides", &v, &cnt, NULL) == OC_OK)
        for (int64_t i = 0; i < cnt; i++)
            unit &= v[i] == 1;
    if (oc_attr_ints(n, "pads", &v, &cnt, NULL) == OC_OK)
        for (int64_t i = 0; i < cnt; i++)
            nopad &= v[i] == 0;
    if (oc_attr_ints(n, "dilations", &v, &cnt, NULL) == OC_OK)
        for (int64_t i = 0; i < cnt; i++)
            nodil &= v[i] == 1;
    char pad[16];
    if (oc_attr_string(n, "auto_pad", "NOTSET", pad, sizeof pad, NULL) == OC_OK && strcmp(pad, "NOTSET") != 0 &&
        strcmp(pad, "VALID") != 0 && k != cg)
        nopad = false;
    if (unit && nopad) {
        if (k == cg)
            return 0; /* pointwise: a GEMM on the input */
        if (sp == 2 && nodil && cg == 1 &&
            (w->dims[3].value == x->dims[3].value || (w->dims[2].value == x->dims[2].value && w->dims[3].value == 1)))
            return 0;
    }
    uint64_t wbs;
    if (f > out) {
        wbs = out * k;
    } else {
        uint64_t cx = f * out * k, t = cx < 65536u * 16 ? cx / 65536 + 1 : 16;
        if (t > (uint64_t)threads)
            t = (uint64_t)threads;
        uint64_t stride = (out + t - 1) / t;
        if (t > 1) {
            stride = oc_round_up(stride, 16);
            if (stride >= out)
                t = 1;
            else if (stride * (t - 1) >= out)
                t--;
        }
        wbs = t * 128 * 128;
        uint64_t batch = (uint64_t)x->dims[0].value;
        if (batch > 1 || group > 1) {
            uint64_t par = batch * (uint64_t)group, each = out * k;
            if (par > (uint64_t)threads)
                par = (uint64_t)threads;
            if (f * out > each)
                each = f * out;
            if (each < 16384)
                each = 16384;
            wbs = par * each;
        }
    }
    return 4 * wbs;
}

/* The scratch buffers a kernel allocates after its outputs, in order (freed
 * when it ends); returns how many (at most 4). */
static int32_t oc_scratch(const struct oc_graph *g, const struct oc_node *n, int32_t threads, uint64_t s[4],
                          int32_t *n_unsized) {
    const struct oc_value *x = oc_arg(g, n, 0);
    if (oc_is(n, "", "Conv") || oc_is(n, "com.microsoft", "FusedConv")) {
        s[0] = oc_conv_scratch(g, n, threads);
        return s[0] > 0;
    }
    if ((oc_is(n, "com.microsoft", "BiasGelu") || oc_is(n, "com.microsoft", "FastGelu")) && oc_arg(g, n, 1)) {
        s[0] = oc_bytes_or0(x, n_unsized);
        return 1;
    }
    if ((oc_is(n, "", "Softmax") || oc_is(n, "", "LogSoftmax")) && n->opset >= 13 && x && x->rank > 0) {
        int64_t axis = oc_int(n, "axis", -1);
        if (axis < 0)
            axis += x->rank;
        if (axis == x->rank - 1)
            return 0;
        s[0] = s[1] = oc_bytes_or0(x, n_unsized);
        return 2;
    }
    if (oc_is(n, "", "ConvTranspose")) {
        const struct oc_value *w = oc_arg(g, n, 1);
        int64_t group = oc_int(n, "group", 1);
        if (!x || !w || !oc_dims_known(x) || !oc_dims_known(w) || x->rank < 3 || group <= 0)
            return 0;
        uint64_t mg = (uint64_t)w->dims[1].value; /* W is [C, M/group, k...] */
        s[0] = 4 * mg * oc_prod(w->dims, 2, w->rank) * oc_prod(x->dims, 2, x->rank);
        return 1;
    }
    if (oc_is(n, "com.microsoft", "Attention")) {
        const struct oc_value *w = oc_arg(g, n, 1), *mask = oc_arg(g, n, 3), *past = oc_arg(g, n, 4);
        int64_t heads = oc_int(n, "num_heads", 0);
        if (!x || !w || !oc_dims_known(x) || !oc_dims_known(w) || x->rank != 3 || w->rank != 2 || heads <= 0)
            return 0;
        uint64_t b = (uint64_t)x->dims[0].value, sq = (uint64_t)x->dims[1].value, d = (uint64_t)w->dims[1].value;
        uint64_t hv = d / 3 / (uint64_t)heads, past_len = 0;
        if (past && oc_dims_known(past) && past->rank == 5)
            past_len = (uint64_t)past->dims[3].value;
        uint64_t t = past_len + sq;
        int32_t k = 0;
        s[k++] = b * sq * d * 4;
        if (mask || (oc_int(n, "unidirectional", 0) && sq > 1))
            s[k++] = b * sq * t * 4;
        s[k++] = b * (uint64_t)heads * sq * t * 4;
        s[k++] = b * (uint64_t)heads * sq * hv * 4;
        return k;
    }
    return 0;
}

/* ---- the simulation ----------------------------------------------------------------- */
enum { OC_K_NONE, OC_K_ALLOC, OC_K_OUTPUT, OC_K_REUSE };

struct oc_sim {
    const struct oc_graph *g;
    int32_t *order, *origin, *last, *use, *kind, *chunk, *freelist;
    bool *known, *is_const, *seen;
    uint64_t *bytes;
};

static int32_t oc_origin(const struct oc_sim *s, int32_t v) {
    return s->origin[v] >= 0 ? s->origin[v] : v;
}

/* Execution order. ONNX Runtime saves the graph it optimized in the order it
   runs it (its default: a depth-first post-order from the nodes nobody
   reads), so the file's order is the run's when it is topological;
   otherwise (a graph not saved by ONNX Runtime) the analyzer's order. */
static void oc_exec_order(const struct oc_graph *g, int32_t *order) {
    bool file = true;
    for (int32_t i = 0; i < g->n_nodes && file; i++) {
        const struct oc_node *n = &g->nodes[i];
        for (int32_t k = 0; k < n->n_in + n->n_implicit && file; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            file = v < 0 || g->values[v].producer < i;
        }
    }
    for (int32_t i = 0; i < g->n_nodes; i++)
        order[i] = file ? i : g->order[i];
}

/* Whether ONNX Runtime knows a value's shape when the session is made: not
   when it follows from a computed tensor's contents. */
static void oc_static_shapes(struct oc_sim *s) {
    const struct oc_graph *g = s->g;
    for (int32_t v = 0; v < g->n_values; v++)
        s->known[v] = g->values[v].kind == OC_VALUE_INPUT || g->values[v].kind == OC_VALUE_INITIALIZER ||
                      g->values[v].kind == OC_VALUE_OUTER;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *n = &g->nodes[g->order[i]];
        bool ok = !(n->def && (n->def->flags & OC_OPF_DATA_DEPENDENT));
        bool needs = n->def && (n->def->flags & OC_OPF_NEEDS_CONST);
        bool all = oc_is(n, "", "Range") || oc_is(n, "", "ConstantOfShape");
        for (int32_t k = 0; k < n->n_in && ok; k++) {
            int32_t v = n->in[k];
            if (v < 0)
                continue;
            ok = s->known[v] && (!needs || (k == 0 && !all) || s->is_const[v]);
        }
        for (int32_t k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                s->known[n->out[k]] = ok;
    }
}

static void oc_release(struct oc_sim *s, struct oc_bfc *a, struct oc_pattern *trace, int32_t b) {
    oc_bfc_free(a, s->chunk[b]);
    s->chunk[b] = -1;
    if (trace)
        oc_pattern_free(trace, b);
}

enum oc_status oc_ort_arena_simulate(const struct oc_graph *g, int32_t threads, struct oc_ort_arena *out) {
    memset(out, 0, sizeof *out);
    out->peak_node = -1;
    if (threads < 1)
        threads = 1;
    int32_t nv = g->n_values, nn = g->n_nodes;
    size_t zv = (size_t)nv + 1, zn = (size_t)nn + 1;
    struct oc_sim s = {.g = g};
    s.order = malloc(zn * sizeof *s.order);
    s.origin = malloc(zv * sizeof *s.origin);
    s.last = malloc(zv * sizeof *s.last);
    s.use = calloc(zv, sizeof *s.use);
    s.kind = calloc(zv, sizeof *s.kind);
    s.chunk = malloc(zv * sizeof *s.chunk);
    s.freelist = malloc(zv * sizeof *s.freelist);
    s.known = calloc(zv, sizeof *s.known);
    s.is_const = calloc(zv, sizeof *s.is_const);
    s.seen = calloc(zv, sizeof *s.seen);
    s.bytes = calloc(zv, sizeof *s.bytes);
    struct oc_pattern pat = {malloc(zv * sizeof *pat.live), 0, 0, calloc(zv, sizeof *pat.block_size)};
    struct oc_bfc a = {.next_region = OC_BFC_FIRST_REGION, .node = -1, .peak_node = -1};
    enum oc_status st = OC_ERR_NOMEM;
    if (!s.order || !s.origin || !s.last || !s.use || !s.kind || !s.chunk || !s.freelist || !s.known ||
        !s.is_const || !s.seen || !s.bytes || !pat.live || !pat.block_size)
        goto done;
    oc_exec_order(g, s.order);
    for (int32_t v = 0; v < nv; v++) {
        s.origin[v] = -1;
        s.last[v] = -1;
        s.chunk[v] = -1;
        const struct oc_value *val = &g->values[v];
        s.is_const[v] = val->kind == OC_VALUE_INITIALIZER ||
                        (val->producer >= 0 && oc_is(&g->nodes[val->producer], "", "Constant"));
        if (val->kind == OC_VALUE_NODE && !s.is_const[v])
            s.bytes[v] = oc_bytes_or0(val, &out->n_unsized);
    }
    oc_static_shapes(&s);
    /* use counts: a graph input, weight or output is held by the caller */
    for (int32_t v = 0; v < nv; v++)
        s.use[v] = (g->values[v].kind != OC_VALUE_NODE || s.is_const[v]) + g->values[v].is_graph_output;
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[i];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v >= 0)
                s.use[v]++;
        }
        for (int32_t k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                s.use[n->out[k]]++;
        out->n_subgraph_nodes += oc_attr_first_graph(n) != NULL;
    }
    /* the plan: each output allocated, an alias or in place, or a freed buffer */
    int32_t n_free = 0;
    for (int32_t p = 0; p < nn; p++) {
        const struct oc_node *n = &g->nodes[s.order[p]];
        for (int32_t o = 0; o < n->n_out; o++) {
            int32_t v = n->out[o];
            if (v < 0 || s.is_const[v])
                continue;
            if (g->values[v].is_graph_output) {
                s.kind[v] = OC_K_OUTPUT;
                continue;
            }
            int32_t cand = -1;
            if (o == 0 && n->def && (n->def->flags & OC_OPF_ALIAS) && n->n_in > 0 && n->in[0] >= 0) {
                cand = n->in[0];
            } else if (o == 0) {
                int32_t k = oc_inplace_input(n);
                if (k >= 0 && k < n->n_in && n->in[k] >= 0 && s.use[oc_origin(&s, n->in[k])] == 1 &&
                    oc_same_shape(&g->values[n->in[k]], &g->values[v]))
                    cand = n->in[k];
            }
            if (cand < 0 && s.known[v] && g->values[v].rank > 0) {
                for (int32_t f = n_free - 1; f >= 0; f--) { /* the latest freed first */
                    int32_t b = s.freelist[f];
                    if (s.known[b] && oc_same_shape(&g->values[b], &g->values[v])) {
                        memmove(&s.freelist[f], &s.freelist[f + 1], (size_t)(n_free - f - 1) * sizeof *s.freelist);
                        n_free--;
                        cand = b;
                        break;
                    }
                }
            }
            if (cand >= 0) {
                int32_t b = oc_origin(&s, cand);
                s.origin[v] = b;
                s.use[b] += s.use[v];
                s.kind[v] = OC_K_REUSE;
            } else {
                s.kind[v] = OC_K_ALLOC;
            }
        }
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v >= 0 && --s.use[oc_origin(&s, v)] == 0)
                s.freelist[n_free++] = oc_origin(&s, v);
        }
        for (int32_t k = 0; k < n->n_out; k++) {
            int32_t v = n->out[k];
            if (v >= 0 && !s.is_const[v] && --s.use[oc_origin(&s, v)] == 0)
                s.freelist[n_free++] = oc_origin(&s, v);
        }
    }
    /* a buffer is freed after the last reader of any value sharing it */
    for (int32_t p = 0; p < nn; p++) {
        const struct oc_node *n = &g->nodes[s.order[p]];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v >= 0 && s.kind[oc_origin(&s, v)] == OC_K_ALLOC)
                s.last[oc_origin(&s, v)] = p;
        }
    }
    /* session start: pre-packed weights, outside the regions */
    for (int32_t i = 0; i < nn; i++) {
        uint64_t b = oc_prepack_bytes(g, &g->nodes[i]);
        if (b) {
            out->prepacked_bytes = out->prepacked_bytes > UINT64_MAX - b ? UINT64_MAX : out->prepacked_bytes + b;
            out->n_prepacked++;
        }
    }
    oc_bfc_count(&a, out->prepacked_bytes);
    a.held = out->prepacked_bytes;
    /* runs: the first traces the pattern, the later ones use it */
    for (int32_t run = 0; run < 3 && !a.nomem; run++) {
        struct oc_pattern *trace = run == 0 ? &pat : NULL;
        a.run_peak = a.in_use;
        a.node = s.order[0];
        int32_t block = run > 0 ? oc_bfc_alloc(&a, pat.size) : -1;
        for (int32_t p = 0; p < nn; p++) {
            const struct oc_node *n = &g->nodes[s.order[p]];
            a.node = s.order[p];
            for (int32_t o = 0; o < n->n_out; o++) {
                int32_t v = n->out[o];
                if (v < 0)
                    continue;
                uint64_t r = oc_round_up(s.bytes[v], OC_BFC_MIN);
                if (s.kind[v] == OC_K_ALLOC) {
                    if (run > 0 && pat.block_size[v] && pat.block_size[v] == r)
                        continue;
                    s.chunk[v] = oc_bfc_alloc(&a, s.bytes[v]);
                    if (trace)
                        oc_pattern_alloc(trace, v, s.bytes[v] ? r : 0);
                } else if (s.kind[v] == OC_K_OUTPUT) {
                    s.chunk[v] = oc_bfc_alloc(&a, s.bytes[v]);
                }
            }
            uint64_t sz[4];
            int32_t ns = oc_scratch(g, n, threads, sz, &out->n_unsized), ids[4];
            for (int32_t k = 0; k < ns; k++)
                ids[k] = oc_bfc_alloc(&a, sz[k]);
            for (int32_t k = ns - 1; k >= 0; k--)
                oc_bfc_free(&a, ids[k]);
            for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
                int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
                if (v < 0)
                    continue;
                int32_t b = oc_origin(&s, v);
                if (s.kind[b] == OC_K_ALLOC && s.last[b] == p && !s.seen[b]) {
                    s.seen[b] = true;
                    oc_release(&s, &a, trace, b);
                }
            }
        }
        for (int32_t v = 0; v < nv; v++) { /* outputs, and tensors nobody read */
            oc_bfc_free(&a, s.chunk[v]);
            s.chunk[v] = -1;
            s.seen[v] = false;
        }
        oc_bfc_free(&a, block);
        if (run == 0)
            out->first_run_peak = a.run_peak;
        else if (a.run_peak > out->later_run_peak)
            out->later_run_peak = a.run_peak;
    }
    if (!a.nomem) {
        out->peak_bytes = a.peak > UINT64_MAX - OC_ORT_ARENA_ALLOWANCE ? UINT64_MAX : a.peak + OC_ORT_ARENA_ALLOWANCE;
        out->held_bytes = a.held;
        out->pattern_bytes = pat.size;
        out->peak_node = a.peak_node;
        st = OC_OK;
    }
done:
    free(s.order), free(s.origin), free(s.last), free(s.use), free(s.kind), free(s.chunk), free(s.freelist);
    free(s.known), free(s.is_const), free(s.seen), free(s.bytes), free(pat.live), free(pat.block_size);
    free(a.c), free(a.spare);
    return st;
}
