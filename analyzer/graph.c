/*
 * graph.c — converts the unpacked ModelProto into struct oc_graph and
 * validates it. One of the three proto-boundary files (with model.c and
 * attr.c): nothing above this layer sees Onnx__* types.
 */
#include "graph.h"

#include "dtype.h"
#include "model.h"
#include "onnx.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static uint32_t oc_hash(const char *s) {
    return oc_fnv1a(OC_FNV_INIT, s, SIZE_MAX);
}

/* Each slot holds a value index and its name's hash: a probe that meets
 * another name is rejected by the hash without touching the value (on a
 * million-node graph the values and names are cache misses). */
const struct oc_node *oc_graph_node_named(const struct oc_graph *g, const char *name) {
    for (int32_t i = 0; name && i < g->n_nodes; i++)
        if (g->nodes[i].name && strcmp(g->nodes[i].name, name) == 0)
            return &g->nodes[i];
    return NULL;
}

int32_t oc_graph_find(const struct oc_graph *g, const char *name) {
    if (!g->hcap || !name)
        return -1;
    uint32_t mask = g->hcap - 1, h = oc_hash(name);
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        int32_t v = g->htab[i].v;
        if (v < 0)
            return -1;
        if (g->htab[i].hash == h && strcmp(g->values[v].name, name) == 0)
            return v;
    }
}

/* Starts loading the index slot of a name a few nodes ahead of its lookup:
 * on a big graph every lookup is a cache miss, and the misses then overlap
 * (a hint only: nothing depends on it). */
static void oc_graph_prefetch(const struct oc_graph *g, const char *name) {
    if (g->hcap && name)
        __builtin_prefetch(&g->htab[oc_hash(name) & (g->hcap - 1)]);
}

enum { OC_PREFETCH_AHEAD = 8 }; /* nodes */

static void oc_graph_index(struct oc_graph *g, int32_t v) {
    uint32_t mask = g->hcap - 1, h = oc_hash(g->values[v].name);
    uint32_t i = h & mask;
    while (g->htab[i].v >= 0)
        i = (i + 1) & mask;
    g->htab[i].v = v;
    g->htab[i].hash = h;
}

const char *oc_node_label(const struct oc_node *n, char *buf, size_t size) {
    const char *dom = n->domain && n->domain[0] ? n->domain : NULL;
    if (n->name && n->name[0])
        snprintf(buf, size, "'%s' (%s%s%s)", n->name, dom ? dom : "", dom ? "::" : "", n->op_type);
    else
        snprintf(buf, size, "#%d (%s%s%s)", n->index, dom ? dom : "", dom ? "::" : "", n->op_type);
    return buf;
}

static bool oc_is_default_domain(const char *d) {
    return !d || !d[0] || strcmp(d, "ai.onnx") == 0;
}

/* input k of node n: its inputs, then (implicit) what its subgraphs read */
static int32_t oc_read_of(const struct oc_node *n, int32_t k) {
    return k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
}

bool oc_graph_readers(const struct oc_graph *g, bool implicit, int32_t **start, int32_t **adj) {
    size_t reads = 0;
    for (int32_t i = 0; i < g->n_nodes; i++)
        reads += (size_t)g->nodes[i].n_in + (implicit ? (size_t)g->nodes[i].n_implicit : 0);
    int32_t *s = calloc((size_t)g->n_values + 2, sizeof *s), *a = malloc((reads + 1) * sizeof *a);
    int32_t *fill = calloc((size_t)g->n_values + 1, sizeof *fill);
    if (!s || !a || !fill) {
        free(s), free(a), free(fill);
        *start = *adj = NULL;
        return false;
    }
    for (int32_t i = 0; i < g->n_nodes; i++) /* the readers of each value, counted */
        for (int32_t k = 0; k < g->nodes[i].n_in + (implicit ? g->nodes[i].n_implicit : 0); k++)
            if (oc_read_of(&g->nodes[i], k) >= 0)
                s[oc_read_of(&g->nodes[i], k) + 1]++;
    for (int32_t v = 0; v < g->n_values; v++)
        s[v + 1] += s[v];
    for (int32_t i = 0; i < g->n_nodes; i++) /* then placed */
        for (int32_t k = 0; k < g->nodes[i].n_in + (implicit ? g->nodes[i].n_implicit : 0); k++) {
            int32_t v = oc_read_of(&g->nodes[i], k);
            if (v >= 0)
                a[s[v] + fill[v]++] = i;
        }
    free(fill);
    *start = s;
    *adj = a;
    return true;
}

bool oc_node_is(const struct oc_node *n, const char *op_type) {
    return oc_is_default_domain(n->domain) && strcmp(n->op_type, op_type) == 0;
}

int64_t oc_graph_opset(const struct oc_graph *g, const char *domain) {
    bool def = oc_is_default_domain(domain);
    for (int32_t i = 0; i < g->n_opsets; i++) {
        const char *d = g->opsets[i].domain;
        if (def ? oc_is_default_domain(d) : (d && strcmp(d, domain) == 0))
            return g->opsets[i].version;
    }
    return 0;
}

bool oc_value_numel(const struct oc_value *v, uint64_t *n) {
    uint64_t p = 1;
    *n = 0;
    if (v->rank < 0)
        return false;
    for (int32_t i = 0; i < v->rank; i++) {
        if (v->dims[i].value < 0)
            return false;
        if (oc_mul_u64(p, (uint64_t)v->dims[i].value, &p)) {
            *n = UINT64_MAX;
            return false;
        }
    }
    *n = p;
    return true;
}

/* Elements of the tensor an optional holds, or of one tensor of a sequence. */
static bool oc_ntype_numel(const struct oc_ntype *t, uint64_t *n) {
    struct oc_value e = {.dtype = t->dtype, .rank = t->rank, .dims = t->dims};
    return oc_value_numel(&e, n);
}

bool oc_value_bytes(const struct oc_value *v, uint64_t *bytes) {
    uint64_t n;
    *bytes = 0;
    const struct oc_ntype *t = v->nt;
    if (t) {
        if (t->kind == OC_TYPE_OPTIONAL && t->present != 1)
            return t->present == 0; /* empty: 0 bytes */
        if (t->kind == OC_TYPE_OPTIONAL && t->inner == OC_TYPE_TENSOR)
            return oc_ntype_numel(t, &n) && oc_dtype_bytes(t->dtype, n, bytes);
        if (t->bytes < 0)
            return false;
        *bytes = (uint64_t)t->bytes;
        return true;
    }
    if (!oc_value_numel(v, &n))
        return false;
    return oc_dtype_bytes(v->dtype, n, bytes);
}

static bool oc_dims_known(int32_t rank, const struct oc_dim *dims) {
    if (rank < 0)
        return false;
    for (int32_t i = 0; i < rank; i++)
        if (dims[i].value < 0)
            return false;
    return true;
}

bool oc_value_known(const struct oc_value *v) {
    const struct oc_ntype *t = v->nt;
    if (!t)
        return oc_dims_known(v->rank, v->dims);
    if (t->kind == OC_TYPE_OPTIONAL) {
        if (t->present != 1)
            return t->present == 0;
        if (t->inner == OC_TYPE_TENSOR)
            return oc_dims_known(t->rank, t->dims);
    }
    return t->len >= 0;
}

bool oc_value_bytes_saturating(const struct oc_graph *g, const struct oc_value *v, uint64_t *bytes,
                               bool *saturated) {
    if (oc_value_bytes_priced(g, v, bytes))
        return true;
    if (v->nt || !oc_dims_known(v->rank, v->dims) || oc_dtype_bits(v->dtype) <= 0)
        return false;
    *bytes = UINT64_MAX;
    *saturated = true;
    return true;
}

bool oc_value_bytes_priced(const struct oc_graph *g, const struct oc_value *v, uint64_t *bytes) {
    if (!g || !g->price_bits || !oc_dtype_is_float(v->dtype) || v->nt)
        return oc_value_bytes(v, bytes);
    uint64_t n, bits;
    *bytes = 0;
    if (!oc_value_numel(v, &n) || oc_mul_u64(n, (uint64_t)g->price_bits, &bits))
        return false;
    *bytes = bits / 8 + (bits % 8 != 0);
    return true;
}

/* ---- names read from enclosing scopes ------------------------------------------ */

struct oc_nameset {
    const char **tab;
    uint32_t cap, n;
};

static void oc_nameset_free(struct oc_nameset *s) {
    free((void *)s->tab);
    memset(s, 0, sizeof *s);
}

static bool oc_nameset_has(const struct oc_nameset *s, const char *name) {
    if (!s->cap)
        return false;
    for (uint32_t i = oc_hash(name) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->tab[i])
            return false;
        if (strcmp(s->tab[i], name) == 0)
            return true;
    }
}

/* Adds name (borrowed); false on allocation failure. */
static bool oc_nameset_add(struct oc_nameset *s, const char *name) {
    if (oc_nameset_has(s, name))
        return true;
    if (2 * (s->n + 1) > s->cap) {
        struct oc_nameset t = {calloc(s->cap ? 2 * s->cap : 16, sizeof *t.tab), s->cap ? 2 * s->cap : 16, 0};
        if (!t.tab)
            return false;
        for (uint32_t i = 0; i < s->cap; i++)
            if (s->tab[i])
                oc_nameset_add(&t, s->tab[i]);
        free((void *)s->tab);
        *s = t;
    }
    uint32_t i = oc_hash(name) & (s->cap - 1);
    while (s->tab[i])
        i = (i + 1) & (s->cap - 1);
    s->tab[i] = name;
    s->n++;
    return true;
}

/* --limit-subgraph-depth of the model (the wire pass refuses files nested
 * deeper; function calls can nest deeper than the file, so it is checked
 * again wherever a body is built or walked). */
static int32_t oc_max_sub(const struct oc_graph *g) {
    return oc_model_limits(g->model)->max_subgraph_depth;
}

static enum oc_status oc_depth_error(struct oc_diag *d, const char *what, int32_t max) {
    return oc_diag_set(d, OC_ERR_UNSUPPORTED, "%s nested deeper than %d levels (--limit-subgraph-depth N raises the limit)",
                       what, (int)max);
}

static enum oc_status oc_free_names(const Onnx__GraphProto *gp, struct oc_nameset *out, int depth, int max,
                                    struct oc_diag *d);

/* Names the subgraphs of node np read from outside themselves. */
static enum oc_status oc_node_free_names(const Onnx__NodeProto *np, struct oc_nameset *out, int depth, int max,
                                         struct oc_diag *d) {
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *a = np->attribute[i];
        enum oc_status st;
        if (a->g && (st = oc_free_names(a->g, out, depth + 1, max, d)) != OC_OK)
            return st;
        for (size_t k = 0; k < a->n_graphs; k++)
            if ((st = oc_free_names(a->graphs[k], out, depth + 1, max, d)) != OC_OK)
                return st;
    }
    return OC_OK;
}

static enum oc_status oc_free_names(const Onnx__GraphProto *gp, struct oc_nameset *out, int depth, int max,
                                    struct oc_diag *d) {
    if (depth > max)
        return oc_depth_error(d, "subgraphs", max);
    struct oc_nameset def = {0}, inner = {0};
    enum oc_status st = OC_OK;
    bool ok = true;
    for (size_t i = 0; i < gp->n_input && ok; i++)
        ok = !gp->input[i]->name || oc_nameset_add(&def, gp->input[i]->name);
    for (size_t i = 0; i < gp->n_initializer && ok; i++)
        ok = !gp->initializer[i]->name || oc_nameset_add(&def, gp->initializer[i]->name);
    for (size_t i = 0; i < gp->n_node && ok; i++)
        for (size_t k = 0; k < gp->node[i]->n_output && ok; k++)
            ok = !gp->node[i]->output[k] || oc_nameset_add(&def, gp->node[i]->output[k]);
    for (size_t i = 0; i < gp->n_node && ok && st == OC_OK; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        for (size_t k = 0; k < np->n_input && ok; k++) {
            const char *nm = np->input[k];
            if (nm && nm[0] && !oc_nameset_has(&def, nm))
                ok = oc_nameset_add(out, nm);
        }
        st = oc_node_free_names(np, &inner, depth, max, d);
    }
    for (uint32_t i = 0; i < inner.cap && ok; i++)
        if (inner.tab[i] && !oc_nameset_has(&def, inner.tab[i]))
            ok = oc_nameset_add(out, inner.tab[i]);
    oc_nameset_free(&def);
    oc_nameset_free(&inner);
    if (!ok)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    return st;
}

/* ---- building --------------------------------------------------------------- */

struct oc_build {
    struct oc_graph *g;
    struct oc_arena *a;
    struct oc_diag *d;
};

static enum oc_status oc_nomem(struct oc_build *b) {
    return oc_diag_set(b->d, OC_ERR_NOMEM, "out of memory");
}

/* Reads a tensor TypeProto into dtype/rank/dims. */
static enum oc_status oc_read_tensor_type(struct oc_arena *a, struct oc_diag *d, const Onnx__TypeProto__Tensor *tt,
                                          const char *what, const char *name, int32_t *dtype, int32_t *rank,
                                          struct oc_dim **dims) {
    *dtype = tt->has_elem_type ? tt->elem_type : 0;
    if (!tt->shape)
        return OC_OK;
    size_t r = tt->shape->n_dim;
    if (r > OC_LIMIT_MAX_RANK) /* the model's --limit-rank is checked by the caller */
        return oc_diag_set(d, OC_ERR_UNSUPPORTED, "%s '%s' has rank %zu (more than %d)", what, name, r,
                           (int)OC_LIMIT_MAX_RANK);
    struct oc_dim *dd = oc_arena_array(a, r ? r : 1, sizeof *dd);
    if (!dd)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < r; i++) {
        const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
        dd[i].value = OC_DIM_UNKNOWN;
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            /* -1 is what several exporters (tf2onnx, tract) write for "unknown":
             * read as an unnamed dim; any other negative size is an error */
            if (dm->dim_value == -1)
                continue;
            if (dm->dim_value < 0)
                return oc_diag_set(d, OC_ERR_MODEL, "%s '%s' has negative dim %lld at axis %zu", what, name,
                                   (long long)dm->dim_value, i);
            dd[i].value = dm->dim_value;
        } else if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dm->dim_param &&
                   dm->dim_param[0]) {
            dd[i].sym = dm->dim_param;
        }
    }
    *rank = (int32_t)r;
    *dims = dd;
    return OC_OK;
}

/* The tensor type of a sequence TypeProto's elements, NULL when they are not tensors. */
static const Onnx__TypeProto__Tensor *oc_seq_elem(const Onnx__TypeProto *tp) {
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE || !tp->sequence_type)
        return NULL;
    const Onnx__TypeProto *e = tp->sequence_type->elem_type;
    if (!e || e->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return NULL;
    return e->tensor_type;
}

enum oc_status oc_type_from_proto(struct oc_arena *a, const void *type_proto, const char *what, const char *name,
                                  int32_t *dtype, int32_t *rank, struct oc_dim **dims,
                                  const struct oc_ntype **nt, struct oc_diag *d) {
    const Onnx__TypeProto *tp = type_proto;
    *dtype = 0;
    *rank = -1;
    *dims = NULL;
    *nt = NULL;
    if (!tp)
        return OC_OK;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return tp->tensor_type ? oc_read_tensor_type(a, d, tp->tensor_type, what, name, dtype, rank, dims) : OC_OK;
    /* sequence(tensor), optional(tensor), optional(sequence(tensor)) */
    struct oc_ntype t = {.kind = OC_TYPE_SEQUENCE, .present = -1, .len = -1, .bytes = -1, .rank = -1};
    const Onnx__TypeProto__Tensor *tt = oc_seq_elem(tp);
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE && tp->optional_type) {
        const Onnx__TypeProto *e = tp->optional_type->elem_type;
        t.kind = OC_TYPE_OPTIONAL;
        t.inner = OC_TYPE_SEQUENCE;
        tt = oc_seq_elem(e);
        if (e && e->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
            t.inner = OC_TYPE_TENSOR;
            tt = e->tensor_type;
        }
    }
    if (!tt)
        return OC_OK; /* maps, sparse tensors, sequences of non-tensors: not modelled */
    enum oc_status st = oc_read_tensor_type(a, d, tt, what, name, &t.dtype, &t.rank, &t.dims);
    if (st != OC_OK)
        return st;
    struct oc_ntype *p = oc_arena_alloc(a, sizeof *p);
    if (!p)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    *p = t;
    *nt = p;
    return OC_OK;
}

/* Reads a declared TypeProto; values of types not modelled stay untyped. */
static enum oc_status oc_read_type(struct oc_build *b, const Onnx__TypeProto *tp, const char *what,
                                   const char *name, int32_t *dtype, int32_t *rank,
                                   struct oc_dim **dims, const struct oc_ntype **nt) {
    return oc_type_from_proto(b->a, tp, what, name, dtype, rank, dims, nt, b->d);
}

static enum oc_status oc_add_value(struct oc_build *b, const char *name, enum oc_value_kind kind,
                                   int32_t *idx) {
    struct oc_graph *g = b->g;
    struct oc_value *v = &g->values[g->n_values];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = kind;
    v->rank = -1;
    v->producer = -1;
    v->param_of = -1;
    *idx = g->n_values++;
    oc_graph_index(g, *idx);
    return OC_OK;
}

/* Local value of a name: a value of this graph, or an OC_VALUE_OUTER value
 * standing for one of an enclosing graph (created on first use). -1 if no
 * scope defines it. */
static int32_t oc_resolve_name(struct oc_build *b, const char *name) {
    struct oc_graph *g = b->g;
    int32_t idx = oc_graph_find(g, name);
    if (idx >= 0)
        return idx;
    for (const struct oc_graph *p = g->parent; p; p = p->parent) {
        int32_t o = oc_graph_find(p, name);
        if (o < 0)
            continue;
        oc_add_value(b, name, OC_VALUE_OUTER, &idx);
        g->values[idx].outer = &((struct oc_graph *)p)->values[o];
        return idx;
    }
    return -1;
}

static enum oc_status oc_rank_error(struct oc_build *b, const char *what, const char *name, size_t rank) {
    return oc_diag_set(b->d, OC_ERR_UNSUPPORTED, "%s '%s' has rank %zu (limit %d; --limit-rank N raises it)", what,
                       name, rank, (int)oc_model_limits(b->g->model)->max_rank);
}

/* A declared type's rank against --limit-rank, and a tensor's element count
 * against 64 bits (known dims only). */
static enum oc_status oc_check_declared(struct oc_build *b, const char *what, const char *name, int32_t rank,
                                        const struct oc_dim *dims, const struct oc_ntype *nt) {
    if (nt) {
        rank = nt->rank;
        dims = nt->dims;
    }
    if (rank > oc_model_limits(b->g->model)->max_rank)
        return oc_rank_error(b, what, name, (size_t)rank);
    uint64_t p = 1;
    for (int32_t k = 0; k < rank; k++)
        if (dims[k].value > 0 && oc_mul_u64(p, (uint64_t)dims[k].value, &p))
            return oc_diag_set(b->d, OC_ERR_OVERFLOW, "%s '%s': element count overflows 64 bits", what, name);
    return OC_OK;
}

static enum oc_status oc_build_initializers(struct oc_build *b, const Onnx__GraphProto *gp) {
    struct oc_graph *g = b->g;
    g->inits = oc_arena_array(b->a, gp->n_initializer + 1, sizeof *g->inits);
    if (!g->inits)
        return oc_nomem(b);
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        const char *name = t->name ? t->name : "";
        if (!name[0])
            return oc_diag_set(b->d, OC_ERR_MODEL, "initializer #%zu has no name", i);
        if (oc_graph_find(g, name) >= 0)
            return oc_diag_set(b->d, OC_ERR_MODEL, "duplicate initializer name '%s'", name);
        if (t->n_dims > (size_t)oc_model_limits(g->model)->max_rank)
            return oc_rank_error(b, "initializer", name, t->n_dims);
        int32_t idx;
        oc_add_value(b, name, OC_VALUE_INITIALIZER, &idx);
        struct oc_value *v = &g->values[idx];
        v->dtype = t->has_data_type ? t->data_type : 0;
        v->rank = (int32_t)t->n_dims;
        v->dims = oc_arena_array(b->a, t->n_dims ? t->n_dims : 1, sizeof *v->dims);
        if (!v->dims)
            return oc_nomem(b);
        for (size_t k = 0; k < t->n_dims; k++) {
            if (t->dims[k] < 0)
                return oc_diag_set(b->d, OC_ERR_MODEL, "initializer '%s' has negative dim %lld at axis %zu",
                                   name, (long long)t->dims[k], k);
            v->dims[k].value = t->dims[k];
        }
        uint64_t n;
        if (!oc_value_numel(v, &n))
            return oc_diag_set(b->d, OC_ERR_OVERFLOW, "initializer '%s': element count overflows 64 bits",
                               name);
        v->tensor = t;
        v->external = t->has_data_location &&
                      t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
        g->inits[g->n_inits++] = idx;
    }
    return OC_OK;
}

static enum oc_status oc_build_inputs(struct oc_build *b, const Onnx__GraphProto *gp) {
    struct oc_graph *g = b->g;
    g->inputs = oc_arena_array(b->a, gp->n_input + 1, sizeof *g->inputs);
    if (!g->inputs)
        return oc_nomem(b);
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        const char *name = vi->name ? vi->name : "";
        if (!name[0])
            return oc_diag_set(b->d, OC_ERR_MODEL, "graph input #%zu has no name", i);
        int32_t idx = oc_graph_find(g, name);
        if (idx >= 0 && g->values[idx].kind == OC_VALUE_INITIALIZER) {
            g->values[idx].overridable = true; /* IR < 4 lists initializers among the inputs; later, a default */
            continue;
        }
        if (idx >= 0)
            return oc_diag_set(b->d, OC_ERR_MODEL, "duplicate graph input '%s'", name);
        oc_add_value(b, name, OC_VALUE_INPUT, &idx);
        struct oc_value *v = &g->values[idx];
        enum oc_status st =
            oc_read_type(b, vi->type, "graph input", name, &v->dtype, &v->rank, &v->dims, &v->nt);
        if (st == OC_OK)
            st = oc_check_declared(b, "graph input", name, v->rank, v->dims, v->nt);
        if (st != OC_OK)
            return st;
        v->declared = true;
        v->decl_dtype = v->dtype;
        v->decl_rank = v->rank;
        v->decl_dims = v->dims;
        v->decl_nt = v->nt;
        g->inputs[g->n_inputs++] = idx;
    }
    return OC_OK;
}

static enum oc_status oc_build_nodes(struct oc_build *b, const Onnx__GraphProto *gp) {
    struct oc_graph *g = b->g;
    char lab[300];
    g->n_nodes = (int32_t)gp->n_node;
    g->nodes = oc_arena_array(b->a, gp->n_node + 1, sizeof *g->nodes);
    if (!g->nodes)
        return oc_nomem(b);
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        struct oc_node *n = &g->nodes[i];
        n->index = (int32_t)i;
        n->name = np->name ? np->name : "";
        n->op_type = np->op_type ? np->op_type : "";
        n->domain = oc_is_default_domain(np->domain) ? "" : np->domain;
        n->proto = np;
        n->opset = oc_graph_opset(g, n->domain); /* the registry row: oc_op_resolve (ops.h) */
        if (!n->op_type[0])
            return oc_diag_set(b->d, OC_ERR_MODEL, "node %s has no op_type", oc_node_label(n, lab, sizeof lab));
        if (np->n_input > INT32_MAX / 2 || np->n_output > INT32_MAX / 2)
            return oc_diag_set(b->d, OC_ERR_UNSUPPORTED, "node %s has too many inputs or outputs",
                               oc_node_label(n, lab, sizeof lab));
        n->n_in = (int32_t)np->n_input;
        n->n_out = (int32_t)np->n_output;
        n->in = oc_arena_array(b->a, np->n_input + 1, sizeof *n->in);
        n->out = oc_arena_array(b->a, np->n_output + 1, sizeof *n->out);
        if (!n->in || !n->out)
            return oc_nomem(b);
        if (i + OC_PREFETCH_AHEAD < gp->n_node)
            for (size_t k = 0; k < gp->node[i + OC_PREFETCH_AHEAD]->n_output; k++)
                oc_graph_prefetch(g, gp->node[i + OC_PREFETCH_AHEAD]->output[k]);
        for (size_t k = 0; k < np->n_output; k++) {
            const char *on = np->output[k] ? np->output[k] : "";
            n->out[k] = -1;
            if (!on[0])
                continue; /* omitted optional output */
            int32_t prev = oc_graph_find(g, on);
            if (prev >= 0) {
                const struct oc_value *pv = &g->values[prev];
                char lab2[300];
                if (pv->kind == OC_VALUE_NODE)
                    return oc_diag_set(b->d, OC_ERR_MODEL,
                                       "node %s: output '%s' is also produced by node %s",
                                       oc_node_label(n, lab, sizeof lab), on,
                                       oc_node_label(&g->nodes[pv->producer], lab2, sizeof lab2));
                return oc_diag_set(b->d, OC_ERR_MODEL, "node %s: output '%s' is also a graph %s",
                                   oc_node_label(n, lab, sizeof lab), on,
                                   pv->kind == OC_VALUE_INPUT ? "input" : "initializer");
            }
            int32_t idx;
            oc_add_value(b, on, OC_VALUE_NODE, &idx);
            g->values[idx].producer = (int32_t)i;
            n->out[k] = idx;
        }
    }
    /* inputs are resolved once every output is known: the file need not be sorted */
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        struct oc_node *n = &g->nodes[i];
        if (i + OC_PREFETCH_AHEAD < gp->n_node)
            for (size_t k = 0; k < gp->node[i + OC_PREFETCH_AHEAD]->n_input; k++)
                oc_graph_prefetch(g, gp->node[i + OC_PREFETCH_AHEAD]->input[k]);
        for (size_t k = 0; k < np->n_input; k++) {
            const char *in = np->input[k] ? np->input[k] : "";
            n->in[k] = -1;
            if (!in[0])
                continue; /* omitted optional input */
            int32_t idx = oc_resolve_name(b, in);
            if (idx < 0)
                return oc_diag_set(b->d, OC_ERR_MODEL,
                                   "node %s: input '%s' is not produced by any node, graph input or "
                                   "initializer",
                                   oc_node_label(n, lab, sizeof lab), in);
            if (g->values[idx].kind == OC_VALUE_NODE && g->values[idx].producer == (int32_t)i)
                return oc_diag_set(b->d, OC_ERR_MODEL, "cycle in graph: node %s reads its own output '%s'",
                                   oc_node_label(n, lab, sizeof lab), in);
            n->in[k] = idx;
            g->values[idx].n_consumers++;
        }
        /* names its subgraphs read from this graph or above: implicit inputs */
        struct oc_nameset fn = {0};
        enum oc_status st = oc_node_free_names(np, &fn, g->depth, oc_max_sub(g), b->d);
        if (st == OC_OK && fn.n) {
            n->implicit = oc_arena_array(b->a, fn.n, sizeof *n->implicit);
            if (!n->implicit)
                st = oc_nomem(b);
            for (uint32_t k = 0; st == OC_OK && k < fn.cap; k++) {
                if (!fn.tab[k])
                    continue;
                int32_t idx = oc_resolve_name(b, fn.tab[k]);
                if (idx < 0)
                    st = oc_diag_set(b->d, OC_ERR_MODEL,
                                     "node %s: a subgraph reads '%s', which no enclosing graph defines",
                                     oc_node_label(n, lab, sizeof lab), fn.tab[k]);
                else
                    n->implicit[n->n_implicit++] = idx;
            }
        }
        oc_nameset_free(&fn);
        if (st != OC_OK)
            return st;
    }
    return OC_OK;
}

static enum oc_status oc_attach_declared(struct oc_build *b, const Onnx__ValueInfoProto *vi,
                                         bool is_output) {
    struct oc_graph *g = b->g;
    const char *name = vi->name ? vi->name : "";
    int32_t idx = is_output ? oc_resolve_name(b, name) : oc_graph_find(g, name);
    if (idx < 0) {
        if (is_output)
            return oc_diag_set(b->d, OC_ERR_MODEL,
                               "graph output '%s' is not produced by any node, input or initializer",
                               name);
        return OC_OK; /* value_info about a name the graph does not use */
    }
    struct oc_value *v = &g->values[idx];
    if (is_output)
        v->is_graph_output = true;
    if (v->kind != OC_VALUE_NODE)
        return OC_OK;
    int32_t dt, rank;
    struct oc_dim *dims;
    const struct oc_ntype *nt;
    enum oc_status st = oc_read_type(b, vi->type, is_output ? "graph output" : "value_info", name, &dt,
                                     &rank, &dims, &nt);
    if (st == OC_OK)
        st = oc_check_declared(b, is_output ? "graph output" : "value_info", name, rank, dims, nt);
    if (st != OC_OK)
        return st;
    if (!dt && rank < 0 && !nt)
        return OC_OK;
    v->declared = true;
    v->decl_dtype = dt;
    v->decl_rank = rank;
    v->decl_dims = dims;
    v->decl_nt = nt;
    return OC_OK;
}

/* Kahn's algorithm, stable with respect to file order. */
static enum oc_status oc_build_order(struct oc_build *b) {
    struct oc_graph *g = b->g;
    int32_t n = g->n_nodes;
    int32_t *indeg = oc_arena_array(b->a, (size_t)n + 1, sizeof *indeg);
    int32_t *cnt = oc_arena_array(b->a, (size_t)n + 1, sizeof *cnt);
    g->order = oc_arena_array(b->a, (size_t)n + 1, sizeof *g->order);
    if (!indeg || !cnt || !g->order)
        return oc_nomem(b);
    /* consumer lists in CSR form */
    int32_t total = 0;
    for (int32_t i = 0; i < n; i++) {
        const struct oc_node *nd = &g->nodes[i];
        for (int32_t k = 0; k < nd->n_in + nd->n_implicit; k++) {
            int32_t v = k < nd->n_in ? nd->in[k] : nd->implicit[k - nd->n_in];
            if (v < 0)
                continue;
            int32_t p = g->values[v].producer;
            if (p >= 0) {
                indeg[i]++;
                cnt[p]++;
                total++;
            }
        }
    }
    int32_t *start = oc_arena_array(b->a, (size_t)n + 1, sizeof *start);
    int32_t *adj = oc_arena_array(b->a, (size_t)total + 1, sizeof *adj);
    if (!start || !adj)
        return oc_nomem(b);
    for (int32_t i = 0; i < n; i++)
        start[i + 1] = start[i] + cnt[i];
    for (int32_t i = 0; i < n; i++)
        cnt[i] = 0;
    for (int32_t i = 0; i < n; i++) {
        const struct oc_node *nd = &g->nodes[i];
        for (int32_t k = 0; k < nd->n_in + nd->n_implicit; k++) {
            int32_t v = k < nd->n_in ? nd->in[k] : nd->implicit[k - nd->n_in];
            if (v < 0)
                continue;
            int32_t p = g->values[v].producer;
            if (p >= 0)
                adj[start[p] + cnt[p]++] = i;
        }
    }
    /* a min-heap on node index keeps file order where the file is sorted */
    int32_t *heap = oc_arena_array(b->a, (size_t)n + 1, sizeof *heap);
    if (!heap)
        return oc_nomem(b);
    int32_t hn = 0, done = 0;
#define OC_HEAP_PUSH(x)                                                                            \
    do {                                                                                           \
        int32_t _i = hn++;                                                                         \
        heap[_i] = (x);                                                                            \
        while (_i > 0 && heap[(_i - 1) / 2] > heap[_i]) {                                          \
            int32_t _t = heap[_i];                                                                 \
            heap[_i] = heap[(_i - 1) / 2];                                                         \
            heap[(_i - 1) / 2] = _t;                                                               \
            _i = (_i - 1) / 2;                                                                     \
        }                                                                                          \
    } while (0)
    for (int32_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            OC_HEAP_PUSH(i);
    while (hn > 0) {
        int32_t top = heap[0];
        heap[0] = heap[--hn];
        for (int32_t i = 0;;) {
            int32_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < hn && heap[l] < heap[m])
                m = l;
            if (r < hn && heap[r] < heap[m])
                m = r;
            if (m == i)
                break;
            int32_t t = heap[i];
            heap[i] = heap[m];
            heap[m] = t;
            i = m;
        }
        g->order[done++] = top;
        for (int32_t e = start[top]; e < start[top + 1]; e++)
            if (--indeg[adj[e]] == 0)
                OC_HEAP_PUSH(adj[e]);
    }
#undef OC_HEAP_PUSH
    if (done < n) {
        char lab[300];
        for (int32_t i = 0; i < n; i++)
            if (indeg[i] > 0)
                return oc_diag_set(b->d, OC_ERR_MODEL, "cycle in graph: node %s depends on its own output",
                                   oc_node_label(&g->nodes[i], lab, sizeof lab));
    }
    return OC_OK;
}

/* Builds g's values, nodes and order from gp; g->model, parent, depth, opsets set. */
static enum oc_status oc_graph_fill(struct oc_build *b, const Onnx__GraphProto *gp) {
    struct oc_graph *g = b->g;
    struct oc_arena *a = b->a;
    g->graph_name = gp->name ? gp->name : "";
    size_t nv = gp->n_initializer + gp->n_input, n_reads = 0;
    for (size_t i = 0; i < gp->n_node; i++) {
        nv += gp->node[i]->n_output;
        n_reads += gp->node[i]->n_input;
    }
    if (nv > (size_t)INT32_MAX / 8 || n_reads > (size_t)INT32_MAX / 8 || gp->n_node > (size_t)INT32_MAX / 4)
        return oc_diag_set(b->d, OC_ERR_UNSUPPORTED, "graph too large (%zu values)", nv);
    if (g->parent) { /* room for the enclosing values a subgraph reads */
        struct oc_nameset fn = {0};
        enum oc_status st = oc_free_names(gp, &fn, g->depth, oc_max_sub(g), b->d);
        nv += fn.n;
        oc_nameset_free(&fn);
        if (st != OC_OK)
            return st;
    }
    for (size_t i = 0; i < gp->n_node; i++) { /* implicit inputs of nested control flow */
        struct oc_nameset fn = {0};
        enum oc_status st = oc_node_free_names(gp->node[i], &fn, g->depth, oc_max_sub(g), b->d);
        nv += fn.n;
        oc_nameset_free(&fn);
        if (st != OC_OK)
            return st;
    }
    g->values = oc_arena_array(a, nv + 1, sizeof *g->values);
    uint32_t hcap = 16;
    while (hcap < 2 * nv + 2)
        hcap *= 2;
    g->hcap = hcap;
    g->htab = oc_arena_array(a, hcap, sizeof *g->htab);
    if (!g->values || !g->htab)
        return oc_nomem(b);
    memset(g->htab, 0xff, hcap * sizeof *g->htab);

    enum oc_status st;
    if ((st = oc_build_initializers(b, gp)) != OC_OK || (st = oc_build_inputs(b, gp)) != OC_OK ||
        (st = oc_build_nodes(b, gp)) != OC_OK)
        return st;
    for (size_t i = 0; i < gp->n_value_info; i++)
        if ((st = oc_attach_declared(b, gp->value_info[i], false)) != OC_OK)
            return st;
    g->outputs = oc_arena_array(a, gp->n_output + 1, sizeof *g->outputs);
    if (!g->outputs)
        return oc_nomem(b);
    for (size_t i = 0; i < gp->n_output; i++) {
        if ((st = oc_attach_declared(b, gp->output[i], true)) != OC_OK)
            return st;
        g->outputs[g->n_outputs++] = oc_resolve_name(b, gp->output[i]->name ? gp->output[i]->name : "");
    }
    return oc_build_order(b);
}

enum oc_status oc_graph_build(const struct oc_model *m, struct oc_arena *a, struct oc_graph **out,
                              struct oc_diag *d) {
    *out = NULL;
    const Onnx__ModelProto *mp = oc_model_proto(m);
    if (!mp->graph)
        return oc_diag_set(d, OC_ERR_MODEL, "the model has no graph (not an ONNX model?)");
    struct oc_graph *g = oc_arena_alloc(a, sizeof *g);
    if (!g)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    struct oc_build b = {g, a, d};
    g->model = m;
    g->arena = a;
    g->ir_version = mp->has_ir_version ? mp->ir_version : 0;
    g->producer_name = mp->producer_name ? mp->producer_name : "";
    g->producer_version = mp->producer_version ? mp->producer_version : "";

    g->opsets = oc_arena_array(a, mp->n_opset_import + 1, sizeof *g->opsets);
    if (!g->opsets)
        return oc_nomem(&b);
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *os = mp->opset_import[i];
        g->opsets[i].domain = oc_is_default_domain(os->domain) ? "" : os->domain;
        g->opsets[i].version = os->has_version ? os->version : 0;
        if (g->opsets[i].version < 0)
            return oc_diag_set(d, OC_ERR_MODEL, "opset_import for domain '%s' has negative version",
                               g->opsets[i].domain);
    }
    g->n_opsets = (int32_t)mp->n_opset_import;
    if (g->n_opsets == 0) { /* IR < 3: the default domain at opset 1 */
        g->opsets[0] = (struct oc_opset){"", 1};
        g->n_opsets = 1;
    }
    enum oc_status st = oc_graph_fill(&b, mp->graph);
    if (st == OC_OK)
        *out = g;
    return st;
}

enum oc_status oc_graph_build_sub(const struct oc_graph *parent, const void *graph_proto, struct oc_arena *a,
                                  struct oc_graph **out, struct oc_diag *d) {
    *out = NULL;
    if (parent->depth >= oc_max_sub(parent))
        return oc_depth_error(d, "subgraphs", oc_max_sub(parent));
    struct oc_graph *g = oc_arena_alloc(a, sizeof *g);
    if (!g)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    *g = (struct oc_graph){.model = parent->model, .parent = parent, .depth = parent->depth + 1, .arena = a,
                           .price_bits = parent->price_bits};
    g->ir_version = parent->ir_version;
    g->producer_name = parent->producer_name;
    g->producer_version = parent->producer_version;
    g->opsets = parent->opsets;
    g->n_opsets = parent->n_opsets;
    struct oc_build b = {g, a, d};
    enum oc_status st = oc_graph_fill(&b, graph_proto);
    if (st == OC_OK)
        *out = g;
    return st;
}

/* ---- model-local functions ------------------------------------------------------ */

const void *oc_graph_find_function(const struct oc_graph *g, const char *domain, const char *op_type) {
    const Onnx__ModelProto *mp = oc_model_proto(g->model);
    for (size_t i = 0; i < mp->n_functions; i++) {
        const Onnx__FunctionProto *f = mp->functions[i];
        const char *fd = oc_is_default_domain(f->domain) ? "" : f->domain;
        if (f->name && strcmp(f->name, op_type) == 0 && strcmp(fd, domain) == 0)
            return f;
    }
    return NULL;
}

enum oc_status oc_graph_build_function(const struct oc_graph *parent, const void *function_proto,
                                       const struct oc_node *call, struct oc_arena *a, struct oc_graph **out,
                                       struct oc_diag *d) {
    const Onnx__FunctionProto *f = function_proto;
    *out = NULL;
    if (parent->depth >= oc_max_sub(parent))
        return oc_depth_error(d, "function calls and subgraphs", oc_max_sub(parent));
    struct oc_graph *g = oc_arena_alloc(a, sizeof *g);
    if (!g)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    *g = (struct oc_graph){.model = parent->model, .depth = parent->depth + 1, .arena = a,
                           .price_bits = parent->price_bits};
    g->ir_version = parent->ir_version;
    g->producer_name = parent->producer_name;
    g->producer_version = parent->producer_version;
    struct oc_build b = {g, a, d};
    if (f->n_opset_import) {
        g->opsets = oc_arena_array(a, f->n_opset_import, sizeof *g->opsets);
        if (!g->opsets)
            return oc_nomem(&b);
        for (size_t i = 0; i < f->n_opset_import; i++) {
            const Onnx__OperatorSetIdProto *os = f->opset_import[i];
            g->opsets[i].domain = oc_is_default_domain(os->domain) ? "" : os->domain;
            g->opsets[i].version = os->has_version ? os->version : 0;
        }
        g->n_opsets = (int32_t)f->n_opset_import;
    } else {
        g->opsets = parent->opsets;
        g->n_opsets = parent->n_opsets;
    }
    /* a GraphProto view of the function: untyped inputs and outputs by name */
    Onnx__GraphProto gp = ONNX__GRAPH_PROTO__INIT;
    Onnx__ValueInfoProto *vis = oc_arena_array(a, f->n_input + f->n_output + 1, sizeof *vis);
    Onnx__ValueInfoProto **ins = oc_arena_array(a, f->n_input + 1, sizeof *ins);
    Onnx__ValueInfoProto **outs = oc_arena_array(a, f->n_output + 1, sizeof *outs);
    if (!vis || !ins || !outs)
        return oc_nomem(&b);
    for (size_t i = 0; i < f->n_input + f->n_output; i++) {
        Onnx__ValueInfoProto init = ONNX__VALUE_INFO_PROTO__INIT;
        vis[i] = init;
        vis[i].name = i < f->n_input ? f->input[i] : f->output[i - f->n_input];
    }
    for (size_t i = 0; i < f->n_input; i++)
        ins[i] = &vis[i];
    for (size_t i = 0; i < f->n_output; i++)
        outs[i] = &vis[f->n_input + i];
    gp.name = f->name;
    gp.n_node = f->n_node;
    gp.node = f->node;
    gp.n_input = f->n_input;
    gp.input = ins;
    gp.n_output = f->n_output;
    gp.output = outs;
    enum oc_status st = oc_graph_fill(&b, &gp);
    if (st != OC_OK)
        return st;
    for (int32_t i = 0; i < g->n_nodes; i++)
        g->nodes[i].caller = call;
    *out = g;
    return OC_OK;
}
