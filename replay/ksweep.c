/*
 * ksweep.c — the kernel sweep as an ONNX model (see ksweep.h), written with
 * protobuf-c's generated ONNX messages, every part in one arena.
 */
#include "ksweep.h"

#include "../analyzer/arena.h"
#include "../views/perf/kernels.h"

#include "onnx.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OC_KS_MAX_NODES = 1024, OC_KS_MAX_RANK = 4, OC_KS_MAX_ATTRS = 5 };

/* Largest tensor (elements) and work (FLOPs) a sweep node may have: what a
   large model's layers reach, and a few tens of milliseconds a run. */
#define OC_KS_MAX_ELEMS (64.0 * 1024 * 1024)
#define OC_KS_MAX_FLOPS 2e12

struct oc_ksb {
    struct oc_arena a;
    Onnx__NodeProto **nodes;
    Onnx__ValueInfoProto **inputs, **outputs;
    Onnx__TensorProto **weights;
    size_t n_nodes, n_inputs, n_outputs, n_weights;
    int32_t per_family[16];
    bool nomem;
    bool as_in_a_model; /* a CPU's kernel grid: each node's weights initializers
                           (packed once, as a model's), its data read warm and
                           its output read by a ReduceMax (oc_ks_node) */
};

/* A tensor's type (elem: an ONNX element type), its dims static (rank -1:
   none given, the analysis infers them). */
static Onnx__ValueInfoProto *oc_ks_value(struct oc_ksb *b, const char *name, const int64_t *dims, int32_t rank,
                                         int32_t elem) {
    Onnx__ValueInfoProto *v = oc_arena_alloc(&b->a, sizeof *v);
    Onnx__TypeProto *t = oc_arena_alloc(&b->a, sizeof *t);
    Onnx__TypeProto__Tensor *tt = oc_arena_alloc(&b->a, sizeof *tt);
    Onnx__TensorShapeProto *sh = oc_arena_alloc(&b->a, sizeof *sh);
    Onnx__TensorShapeProto__Dimension *d = oc_arena_array(&b->a, OC_KS_MAX_RANK, sizeof *d);
    Onnx__TensorShapeProto__Dimension **dp = oc_arena_array(&b->a, OC_KS_MAX_RANK, sizeof *dp);
    char *nm = oc_arena_strdup(&b->a, name);
    if (!v || !t || !tt || !sh || !d || !dp || !nm) {
        b->nomem = true;
        return NULL;
    }
    onnx__value_info_proto__init(v);
    onnx__type_proto__init(t);
    onnx__type_proto__tensor__init(tt);
    onnx__tensor_shape_proto__init(sh);
    for (int32_t i = 0; i < rank; i++) {
        onnx__tensor_shape_proto__dimension__init(&d[i]);
        d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d[i].dim_value = dims[i];
        dp[i] = &d[i];
    }
    sh->n_dim = (size_t)rank;
    sh->dim = dp;
    tt->has_elem_type = true;
    tt->elem_type = elem;
    tt->shape = rank >= 0 ? sh : NULL;
    t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    t->tensor_type = tt;
    v->name = nm;
    v->type = t;
    return v;
}

/* A fresh attribute named name of the given type (NULL, and b->nomem, when
   out of memory) */
static Onnx__AttributeProto *oc_ks_attr(struct oc_ksb *b, const char *name, Onnx__AttributeProto__AttributeType type) {
    Onnx__AttributeProto *a = oc_arena_alloc(&b->a, sizeof *a);
    if (!a) {
        b->nomem = true;
        return NULL;
    }
    onnx__attribute_proto__init(a);
    a->name = (char *)name;
    a->has_type = true;
    a->type = type;
    return a;
}

static Onnx__AttributeProto *oc_ks_ints(struct oc_ksb *b, const char *name, const int64_t *v, int32_t n) {
    Onnx__AttributeProto *a = oc_ks_attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    int64_t *ints = a ? oc_arena_array(&b->a, (size_t)n, sizeof *ints) : NULL;
    if (!ints) {
        b->nomem = true;
        return NULL;
    }
    memcpy(ints, v, (size_t)n * sizeof *ints);
    a->n_ints = (size_t)n;
    a->ints = ints;
    return a;
}

static Onnx__AttributeProto *oc_ks_int(struct oc_ksb *b, const char *name, int64_t v) {
    Onnx__AttributeProto *a = oc_ks_attr(b, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    if (a) {
        a->has_i = true;
        a->i = v;
    }
    return a;
}

struct oc_ks_in {
    int64_t dims[OC_KS_MAX_RANK];
    int32_t rank;
};

/* A fresh graph input of the given shape and element type: its name, or
   NULL (b->nomem) when out of memory. */
static const char *oc_ks_input(struct oc_ksb *b, const struct oc_ks_in *in, int32_t elem) {
    char x[32];
    snprintf(x, sizeof x, "x%zu", b->n_inputs);
    Onnx__ValueInfoProto *v = b->nomem ? NULL : oc_ks_value(b, x, in->dims, in->rank, elem);
    if (!v)
        return NULL;
    b->inputs[b->n_inputs++] = v;
    return v->name;
}

/* A fresh FLOAT initializer of the given shape, every element 1 / dims[0]
   (a product's or a convolution's weights, which ONNX Runtime packs once
   as a model's): its name, or NULL (b->nomem) when out of memory. */
static const char *oc_ks_weight_of(struct oc_ksb *b, const struct oc_ks_in *in) {
    char w[32];
    snprintf(w, sizeof w, "w%zu", b->n_weights);
    size_t n = 1;
    for (int32_t d = 0; d < in->rank; d++)
        n *= (size_t)in->dims[d];
    Onnx__TensorProto *t = b->nomem || b->n_weights >= OC_KS_MAX_NODES ? NULL : oc_arena_alloc(&b->a, sizeof *t);
    int64_t *dims = t ? oc_arena_array(&b->a, (size_t)in->rank, sizeof *dims) : NULL;
    float *data = dims ? oc_arena_array(&b->a, n, sizeof *data) : NULL;
    char *nm = data ? oc_arena_strdup(&b->a, w) : NULL;
    if (!nm) {
        b->nomem = true;
        return NULL;
    }
    onnx__tensor_proto__init(t);
    memcpy(dims, in->dims, (size_t)in->rank * sizeof *dims);
    for (size_t i = 0; i < n; i++)
        data[i] = 1.0f / (float)in->dims[0];
    t->n_dims = (size_t)in->rank;
    t->dims = dims;
    t->has_data_type = true;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->n_float_data = n;
    t->float_data = data;
    t->name = nm;
    b->weights[b->n_weights++] = t;
    return nm;
}

/* One node, named name, of op over the named values ins (graph inputs or
   earlier nodes' outputs), counted for its family. Its output (element
   type out_elem) is a graph output when last, else a value inside the
   graph for a later node to read: its name, or NULL when out of memory. */
static const char *oc_ks_link(struct oc_ksb *b, enum oc_kfamily fam, const char *op, const char *name,
                              const char *const *in, int32_t n_in, Onnx__AttributeProto *const *attrs,
                              int32_t n_attrs, int32_t out_elem, bool last) {
    if (b->nomem || b->n_nodes >= OC_KS_MAX_NODES)
        return NULL;
    Onnx__NodeProto *n = oc_arena_alloc(&b->a, sizeof *n);
    char **ins = oc_arena_array(&b->a, (size_t)n_in, sizeof *ins);
    char **outs = oc_arena_array(&b->a, 1, sizeof *outs);
    Onnx__AttributeProto **at = oc_arena_array(&b->a, OC_KS_MAX_ATTRS, sizeof *at);
    char y[32];
    snprintf(y, sizeof y, "y%zu", b->n_nodes);
    char *out = oc_arena_strdup(&b->a, y);
    bool ok = n && ins && outs && at && out;
    for (int32_t i = 0; ok && i < n_in; i++)
        ok = in[i] != NULL;
    for (int32_t i = 0; ok && i < n_attrs; i++)
        ok = attrs[i] != NULL;
    if (!ok) {
        b->nomem = true;
        return NULL;
    }
    onnx__node_proto__init(n);
    Onnx__ValueInfoProto *v = last ? oc_ks_value(b, y, NULL, -1, out_elem) : NULL; /* its shape inferred */
    if ((last && !v) || !(n->name = oc_arena_strdup(&b->a, name))) {
        b->nomem = true;
        return NULL;
    }
    for (int32_t i = 0; i < n_in; i++)
        ins[i] = (char *)in[i];
    if (n_attrs)
        memcpy(at, attrs, (size_t)n_attrs * sizeof *at);
    outs[0] = last ? v->name : out;
    n->op_type = (char *)op;
    n->n_input = (size_t)n_in;
    n->input = ins;
    n->n_output = 1;
    n->output = outs;
    n->n_attribute = (size_t)n_attrs;
    n->attribute = at;
    if (last)
        b->outputs[b->n_outputs++] = v;
    b->nodes[b->n_nodes++] = n;
    b->per_family[fam]++;
    return outs[0];
}

static const char *oc_ks_warm_input(struct oc_ksb *b, const struct oc_ks_in *in, const char *name, int32_t i);
static void oc_ks_link_read(struct oc_ksb *b, enum oc_kfamily fam, const char *op, const char *name,
                            const char *const *ins, int32_t n_in, Onnx__AttributeProto *const *attrs, int32_t n_attrs);

/* One node, named name, of op over fresh FLOAT graph inputs of the given
   shapes, counted for its family; its output a FLOAT graph output. In a
   CPU's kernel grid (b->as_in_a_model), as a model's node instead: a
   convolution's weights and a product's matrix of weights initializers,
   the other inputs read warm (oc_ks_warm_input), the output read by a
   ReduceMax (oc_ks_max). */
static void oc_ks_node(struct oc_ksb *b, enum oc_kfamily fam, const char *op, const char *name,
                       const struct oc_ks_in *in, int32_t n_in, Onnx__AttributeProto *const *attrs,
                       int32_t n_attrs) {
    const char *ins[3] = {NULL, NULL, NULL};
    for (int32_t i = 0; i < n_in && i < 3; i++) {
        bool weights = i > 0 && (strcmp(op, "Conv") == 0 || (strcmp(op, "MatMul") == 0 && in[i].rank == 2));
        ins[i] = !b->as_in_a_model ? oc_ks_input(b, &in[i], ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
                 : weights         ? oc_ks_weight_of(b, &in[i])
                                   : oc_ks_warm_input(b, &in[i], name, i);
    }
    if (b->as_in_a_model)
        oc_ks_link_read(b, fam, op, name, ins, n_in, attrs, n_attrs);
    else
        oc_ks_link(b, fam, op, name, ins, n_in, attrs, n_attrs, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, true);
}

static double oc_ks_elems(const struct oc_ks_in *in, int32_t n) {
    double most = 0;
    for (int32_t i = 0; i < n; i++) {
        double e = 1;
        for (int32_t d = 0; d < in[i].rank; d++)
            e *= (double)in[i].dims[d];
        most = e > most ? e : most;
    }
    return most;
}

/* A ReduceMax, named name, over all of value y: its scalar a graph output.
   ONNX Runtime allocates a graph output afresh each run, outside its
   arena: about 1 us more a node, more for a large one. The sweep's nodes
   write inside the graph, as a model's, and one of these reads each. */
static void oc_ks_max(struct oc_ksb *b, const char *name, const char *y) {
    Onnx__AttributeProto *flat[1] = {oc_ks_int(b, "keepdims", 0)};
    oc_ks_link(b, OC_KF_REDUCE, "ReduceMax", name, &y, 1, flat, 1, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, true);
}

/* A fresh FLOAT graph input of the given shape, read through an Abs (named
   name/in<i>) when of OC_KS_WARM elements or more: a graph input is read
   cold, from memory (the sweep's other nodes have run since its last
   run), where a model's node reads what the node before it wrote, still in
   cache; a sweep node reading a graph input of 4 MiB took 2.9x its time
   inside a graph. The Abs takes the cold read, a node apart (an op models
   rarely hold). Returns the value's name, or NULL when out of memory. */
#define OC_KS_WARM 1024
static const char *oc_ks_warm_input(struct oc_ksb *b, const struct oc_ks_in *in, const char *name, int32_t i) {
    const char *x = oc_ks_input(b, in, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
    if (oc_ks_elems(in, 1) < OC_KS_WARM)
        return x;
    char abs[112];
    snprintf(abs, sizeof abs, "%s/in%d", name, (int)i);
    return oc_ks_link(b, OC_KF_ELTWISE, "Abs", abs, &x, 1, NULL, 0, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, false);
}

/* One node as oc_ks_node, its inputs warm (oc_ks_warm_input) and its
   output read by a ReduceMax (oc_ks_max). */
static void oc_ks_kept(struct oc_ksb *b, enum oc_kfamily fam, const char *op, const char *name,
                       const struct oc_ks_in *in, int32_t n_in, Onnx__AttributeProto *const *attrs, int32_t n_attrs) {
    const char *ins[3] = {NULL, NULL, NULL};
    for (int32_t i = 0; i < n_in && i < 3; i++)
        ins[i] = oc_ks_warm_input(b, &in[i], name, i);
    oc_ks_link_read(b, fam, op, name, ins, n_in, attrs, n_attrs);
}

/* One node over the named values ins, its output inside the graph and read
   by a ReduceMax (oc_ks_max) named name/max. */
static void oc_ks_link_read(struct oc_ksb *b, enum oc_kfamily fam, const char *op, const char *name,
                            const char *const *ins, int32_t n_in, Onnx__AttributeProto *const *attrs, int32_t n_attrs) {
    char max[112];
    snprintf(max, sizeof max, "%s/max", name);
    oc_ks_max(b, max, oc_ks_link(b, fam, op, name, ins, n_in, attrs, n_attrs, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
                                 false));
}

/* ---- the grid ---------------------------------------------------------------------- */

#define OC_KS_LEN(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

struct oc_ks_grid {
    const int64_t *m;  int32_t n_m;   /* GEMM rows                          */
    const int64_t *nk; int32_t n_nk;  /* GEMM columns and reduction          */
    const int64_t (*px)[2]; int32_t n_px; /* convolutions: (batch, side)     */
    const int64_t *ch; int32_t n_ch;  /* channels in and out                 */
    const int64_t *bytes; int32_t n_bytes; /* memory-bound: elements          */
};

static const int64_t oc_ks_full_m[] = {1, 4, 16, 64, 256, 1024, 4096, 16384};
static const int64_t oc_ks_full_nk[] = {64, 256, 1024, 4096};
static const int64_t oc_ks_full_px[][2] = {{1, 7}, {1, 14}, {1, 28}, {1, 56}, {8, 56}, {32, 56}, {32, 112}};
static const int64_t oc_ks_full_ch[] = {16, 64, 256, 1024};
static const int64_t oc_ks_full_bytes[] = {1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18,
                                           1 << 20, 1 << 22, 1 << 24, 1 << 26};
static const int64_t oc_ks_quick_m[] = {1, 256};
static const int64_t oc_ks_quick_nk[] = {64, 1024};
static const int64_t oc_ks_quick_px[][2] = {{1, 14}, {8, 56}};
static const int64_t oc_ks_quick_ch[] = {16, 256};
static const int64_t oc_ks_quick_bytes[] = {1 << 12, 1 << 18, 1 << 24};

static void oc_ks_gemms(struct oc_ksb *b, const struct oc_ks_grid *g) {
    char name[96];
    for (int32_t i = 0; i < g->n_m; i++)
        for (int32_t j = 0; j < g->n_nk; j++)
            for (int32_t k = 0; k < g->n_nk; k++) {
                int64_t m = g->m[i], n = g->nk[j], kk = g->nk[k];
                struct oc_ks_in in[2] = {{{m, kk}, 2}, {{kk, n}, 2}};
                snprintf(name, sizeof name, "gemm/m%lld_n%lld_k%lld", (long long)m, (long long)n, (long long)kk);
                oc_ks_node(b, OC_KF_GEMM, "MatMul", name, in, 2, NULL, 0);
            }
    /* attention's batched products: scores (K = 64) and their use (K = S) */
    static const int64_t heads[] = {12, 96}, seqs[] = {128, 512};
    for (int32_t h = 0; h < OC_KS_LEN(heads); h++)
        for (int32_t s = 0; s < OC_KS_LEN(seqs); s++) {
            int64_t bh = heads[h], sq = seqs[s];
            struct oc_ks_in qk[2] = {{{bh, sq, 64}, 3}, {{bh, 64, sq}, 3}};
            struct oc_ks_in pv[2] = {{{bh, sq, sq}, 3}, {{bh, sq, 64}, 3}};
            snprintf(name, sizeof name, "gemm/batched_qk_b%lld_s%lld", (long long)bh, (long long)sq);
            oc_ks_node(b, OC_KF_GEMM, "MatMul", name, qk, 2, NULL, 0);
            snprintf(name, sizeof name, "gemm/batched_pv_b%lld_s%lld", (long long)bh, (long long)sq);
            oc_ks_node(b, OC_KF_GEMM, "MatMul", name, pv, 2, NULL, 0);
            if (g->n_m < 3)
                return; /* quick: one of each */
        }
}

/* One Conv: N x C_in x side x side in, C_out x C_in/groups x k x k weights. */
static void oc_ks_conv(struct oc_ksb *b, enum oc_kfamily fam, int64_t n, int64_t side, int64_t c_in, int64_t c_out,
                       int64_t k, int64_t stride, int64_t groups) {
    int64_t pad = k / 2, out_side = (side + 2 * pad - k) / stride + 1;
    double flops = 2.0 * (double)n * (double)(out_side * out_side) * (double)c_out * (double)(c_in / groups) *
                   (double)(k * k);
    struct oc_ks_in in[2] = {{{n, c_in, side, side}, 4}, {{c_out, c_in / groups, k, k}, 4}};
    double y_elems = (double)n * (double)c_out * (double)(out_side * out_side);
    if (flops > OC_KS_MAX_FLOPS || oc_ks_elems(in, 2) > OC_KS_MAX_ELEMS || y_elems > OC_KS_MAX_ELEMS)
        return;
    char name[128];
    snprintf(name, sizeof name, "%s/n%lld_s%lld_cin%lld_cout%lld_k%lld_st%lld_g%lld", oc_kfamily_name(fam),
             (long long)n, (long long)side, (long long)c_in, (long long)c_out, (long long)k, (long long)stride,
             (long long)groups);
    int64_t ks[2] = {k, k}, st[2] = {stride, stride}, pads[4] = {pad, pad, pad, pad};
    Onnx__AttributeProto *at[4] = {oc_ks_ints(b, "kernel_shape", ks, 2), oc_ks_ints(b, "strides", st, 2),
                                   oc_ks_ints(b, "pads", pads, 4), oc_ks_int(b, "group", groups)};
    oc_ks_node(b, fam, "Conv", name, in, 2, at, 4);
}

static void oc_ks_convs(struct oc_ksb *b, const struct oc_ks_grid *g) {
    for (int32_t p = 0; p < g->n_px; p++) {
        int64_t n = g->px[p][0], side = g->px[p][1];
        for (int32_t i = 0; i < g->n_ch; i++)
            for (int32_t o = 0; o < g->n_ch; o++) {
                oc_ks_conv(b, OC_KF_CONV_3X3, n, side, g->ch[i], g->ch[o], 3, 1, 1);
                oc_ks_conv(b, OC_KF_CONV_1X1, n, side, g->ch[i], g->ch[o], 1, 1, 1);
            }
        /* other dense kernels: strided 3x3, 5x5, the 7x7 stem, C_out = C_in or 4 C_in */
        static const int64_t kk[][2] = {{3, 2}, {5, 1}, {7, 2}};
        for (int32_t k = 0; k < OC_KS_LEN(kk); k++) {
            oc_ks_conv(b, OC_KF_CONV_KXK, n, side * kk[k][1], 3, 64, kk[k][0], kk[k][1], 1);
            for (int32_t i = 0; i + 1 < g->n_ch; i++)
                oc_ks_conv(b, OC_KF_CONV_KXK, n, side * kk[k][1], g->ch[i], g->ch[i + (k == 1)], kk[k][0], kk[k][1],
                           1);
        }
        /* grouped (ResNeXt, RegNet): C / groups of 4, 16 and 64; depthwise 3x3, 5x5, strided 3x3 */
        for (int32_t i = 0; i < g->n_ch; i++) {
            int64_t c = g->ch[i] * 4;
            for (int64_t per = 4; per <= 64 && per < c; per *= 4)
                oc_ks_conv(b, OC_KF_CONV_GROUPED, n, side, c, c, 3, 1, c / per);
            oc_ks_conv(b, OC_KF_CONV_DEPTHWISE, n, side, c, c, 3, 1, c);
            oc_ks_conv(b, OC_KF_CONV_DEPTHWISE, n, side, c, c, 5, 1, c);
            oc_ks_conv(b, OC_KF_CONV_DEPTHWISE, n, side * 2, c, c, 3, 2, c);
        }
    }
}

static void oc_ks_memory(struct oc_ksb *b, const struct oc_ks_grid *g) {
    char name[96];
    for (int32_t i = 0; i < g->n_bytes; i++) {
        int64_t e = g->bytes[i];
        struct oc_ks_in flat = {{e / 256, 256}, 2}, two[2] = {flat, flat};
        static const char *const unary[] = {"Relu", "Sigmoid"};
        for (int32_t u = 0; u < OC_KS_LEN(unary); u++) {
            snprintf(name, sizeof name, "eltwise/%s_%lld", unary[u], (long long)e);
            oc_ks_node(b, OC_KF_ELTWISE, unary[u], name, &flat, 1, NULL, 0);
        }
        snprintf(name, sizeof name, "eltwise/Add_%lld", (long long)e);
        oc_ks_node(b, OC_KF_ELTWISE, "Add", name, two, 2, NULL, 0);
        /* reductions over the last axis of 256 or 1024 (a row of a transformer) */
        for (int64_t cols = 256; cols <= 1024; cols *= 4) {
            struct oc_ks_in rows = {{e / cols, cols}, 2};
            int64_t axes[1] = {-1};
            Onnx__AttributeProto *soft[1] = {oc_ks_int(b, "axis", -1)};
            Onnx__AttributeProto *mean[2] = {oc_ks_ints(b, "axes", axes, 1), oc_ks_int(b, "keepdims", 1)};
            snprintf(name, sizeof name, "reduce/Softmax_%lld_c%lld", (long long)e, (long long)cols);
            oc_ks_node(b, OC_KF_REDUCE, "Softmax", name, &rows, 1, soft, 1);
            snprintf(name, sizeof name, "reduce/ReduceMean_%lld_c%lld", (long long)e, (long long)cols);
            oc_ks_node(b, OC_KF_REDUCE, "ReduceMean", name, &rows, 1, mean, 2);
            struct oc_ks_in ln[3] = {rows, {{cols}, 1}, {{cols}, 1}};
            Onnx__AttributeProto *lna[1] = {oc_ks_int(b, "axis", -1)};
            snprintf(name, sizeof name, "reduce/LayerNormalization_%lld_c%lld", (long long)e, (long long)cols);
            oc_ks_node(b, OC_KF_REDUCE, "LayerNormalization", name, ln, 3, lna, 1);
        }
        /* pooling over 64 channels of side x side maps, as many as e makes */
        if (e >= 64 * 16 * 16) {
            int64_t maps = e / (64 * 16 * 16);
            struct oc_ks_in x = {{maps, 64, 16, 16}, 4};
            int64_t k3[2] = {3, 3}, k2[2] = {2, 2}, s2[2] = {2, 2}, p1[4] = {1, 1, 1, 1};
            Onnx__AttributeProto *mp[3] = {oc_ks_ints(b, "kernel_shape", k3, 2), oc_ks_ints(b, "strides", s2, 2),
                                           oc_ks_ints(b, "pads", p1, 4)};
            Onnx__AttributeProto *ap[2] = {oc_ks_ints(b, "kernel_shape", k2, 2), oc_ks_ints(b, "strides", s2, 2)};
            snprintf(name, sizeof name, "pool/MaxPool_%lld", (long long)e);
            oc_ks_node(b, OC_KF_POOL, "MaxPool", name, &x, 1, mp, 3);
            snprintf(name, sizeof name, "pool/AveragePool_%lld", (long long)e);
            oc_ks_node(b, OC_KF_POOL, "AveragePool", name, &x, 1, ap, 2);
            snprintf(name, sizeof name, "pool/GlobalAveragePool_%lld", (long long)e);
            oc_ks_node(b, OC_KF_POOL, "GlobalAveragePool", name, &x, 1, NULL, 0);
        }
        /* data movement: a head split's transpose, a channel concatenation */
        if (e >= 64 * 64) {
            struct oc_ks_in t = {{e / (64 * 64), 64, 64}, 3}, c[2] = {{{64, e / 128}, 2}, {{64, e / 128}, 2}};
            int64_t perm[3] = {0, 2, 1};
            Onnx__AttributeProto *tp[1] = {oc_ks_ints(b, "perm", perm, 3)};
            Onnx__AttributeProto *ca[1] = {oc_ks_int(b, "axis", 1)};
            snprintf(name, sizeof name, "move/Transpose_%lld", (long long)e);
            oc_ks_node(b, OC_KF_MOVE, "Transpose", name, &t, 1, tp, 1);
            snprintf(name, sizeof name, "move/Concat_%lld", (long long)e);
            oc_ks_node(b, OC_KF_MOVE, "Concat", name, c, 2, ca, 1);
        }
    }
}

/* The runs grid (OC_KSWEEP_RUNS): at each size, a broadcast Add over spans
   of 1 to all the elements ([e / s, s] + [s]; s = 1 is [e, 1] + [1], a
   span of one element each), the same Add without a broadcast (one run),
   and a LayerNormalization and a Softmax over rows of 2 to 4096; each read
   by a ReduceMax (oc_ks_kept). */
static void oc_ks_runs(struct oc_ksb *b) {
    static const int64_t sizes[] = {1 << 14, 1 << 16, 1 << 20};
    static const int64_t spans[] = {1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 1 << 14};
    static const int64_t rows[] = {2, 8, 32, 128, 512, 4096};
    char name[96];
    for (int32_t i = 0; i < OC_KS_LEN(sizes); i++) {
        int64_t e = sizes[i];
        struct oc_ks_in same[2] = {{{e / 256, 256}, 2}, {{e / 256, 256}, 2}};
        snprintf(name, sizeof name, "runs/Add_%lld_same", (long long)e);
        oc_ks_kept(b, OC_KF_ELTWISE, "Add", name, same, 2, NULL, 0);
        for (int32_t k = 0; k < OC_KS_LEN(spans) && spans[k] <= e; k++) {
            struct oc_ks_in in[2] = {{{e / spans[k], spans[k]}, 2}, {{spans[k]}, 1}};
            snprintf(name, sizeof name, "runs/Add_%lld_s%lld", (long long)e, (long long)spans[k]);
            oc_ks_kept(b, OC_KF_ELTWISE, "Add", name, in, 2, NULL, 0);
        }
        for (int32_t k = 0; k < OC_KS_LEN(rows); k++) {
            struct oc_ks_in x = {{e / rows[k], rows[k]}, 2}, ln[3] = {x, {{rows[k]}, 1}, {{rows[k]}, 1}};
            Onnx__AttributeProto *last[1] = {oc_ks_int(b, "axis", -1)};
            snprintf(name, sizeof name, "runs/LayerNormalization_%lld_r%lld", (long long)e, (long long)rows[k]);
            oc_ks_kept(b, OC_KF_REDUCE, "LayerNormalization", name, ln, 3, last, 1);
            Onnx__AttributeProto *soft[1] = {oc_ks_int(b, "axis", -1)};
            snprintf(name, sizeof name, "runs/Softmax_%lld_r%lld", (long long)e, (long long)rows[k]);
            oc_ks_kept(b, OC_KF_REDUCE, "Softmax", name, &x, 1, soft, 1);
        }
    }
}

/* One link of a chain at e elements: node "small/LABEL_e" of op over in,
   its output (element type elem) read by the next; its name, or NULL. */
static const char *oc_ks_step(struct oc_ksb *b, enum oc_kfamily fam, const char *op, const char *label, int64_t e,
                              const char *const *in, int32_t n_in, Onnx__AttributeProto *const *attrs, int32_t n_attrs,
                              int32_t elem) {
    char name[96];
    snprintf(name, sizeof name, "small/%s_%lld", label, (long long)e);
    return oc_ks_link(b, fam, op, name, in, n_in, attrs, n_attrs, elem, false);
}

/* The runs grid's chains: the ops a decoder step or a small encoder is made
   of, each node reading the one before (as a model's read what its last
   node wrote, still in cache; a graph input is read cold, from memory), at
   16 to 1024 elements (64 bytes to 4 KiB), where ONNX Runtime's time is
   its cost per node and little else, which varies with the op (here a Cast
   of 64 elements 2.5 us, a FastGelu 3.5), and at 16K and 256K elements:
   unary ops, binary ones against the chain's Sigmoid, a comparison and the
   select it masks (Where, as attention's), a softmax and a layer
   normalization over rows of 16, a transpose, a cast to FP16 that a
   concatenation reads (a cast pair alone ONNX Runtime drops) and one back,
   a Neg; a ReduceMax (oc_ks_max) ends it, the graph's output. */
static void oc_ks_small(struct oc_ksb *b) {
    static const char *const unary[] = {"Relu", "Sigmoid", "Tanh", "Erf"}, *const binary[] = {"Add", "Mul", "Sub", "Div"};
    static const int64_t sizes[] = {16, 64, 256, 1024, 1 << 14, 1 << 18};
    const int32_t f32 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, f16 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
    for (int32_t i = 0; i < OC_KS_LEN(sizes); i++) {
        const int64_t e = sizes[i];
        const struct oc_ks_in xs = {{e / 16, 16}, 2}, vs = {{16}, 1}, scalar = {{0}, 0};
        char chain[32];
        snprintf(chain, sizeof chain, "small/chain_%lld", (long long)e);
        const char *v = oc_ks_warm_input(b, &xs, chain, 0), *sig = NULL;
        const char *ln[3] = {NULL, oc_ks_input(b, &vs, f32), oc_ks_input(b, &vs, f32)};
        for (int32_t u = 0; u < OC_KS_LEN(unary); u++) {
            v = oc_ks_step(b, OC_KF_ELTWISE, unary[u], unary[u], e, &v, 1, NULL, 0, f32);
            sig = u == 1 ? v : sig; /* in (0, 1): the binary ops' other side, a divisor */
        }
        for (int32_t u = 0; u < OC_KS_LEN(binary); u++) {
            const char *two[2] = {v, sig};
            v = oc_ks_step(b, OC_KF_ELTWISE, binary[u], binary[u], e, two, 2, NULL, 0, f32);
        }
        const char *cmp[2] = {v, sig};
        const char *sel[3] = {oc_ks_step(b, OC_KF_ELTWISE, "Greater", "Greater", e, cmp, 2, NULL, 0,
                                         ONNX__TENSOR_PROTO__DATA_TYPE__BOOL),
                              oc_ks_input(b, &scalar, f32), v};
        v = oc_ks_step(b, OC_KF_ELTWISE, "Where", "Where", e, sel, 3, NULL, 0, f32);
        int64_t perm[2] = {1, 0};
        Onnx__AttributeProto *last[1] = {oc_ks_int(b, "axis", -1)}, *lna[1] = {oc_ks_int(b, "axis", -1)};
        Onnx__AttributeProto *tp[1] = {oc_ks_ints(b, "perm", perm, 2)}, *cat[1] = {oc_ks_int(b, "axis", 0)};
        Onnx__AttributeProto *to16[1] = {oc_ks_int(b, "to", f16)}, *to32[1] = {oc_ks_int(b, "to", f32)};
        v = oc_ks_step(b, OC_KF_REDUCE, "Softmax", "Softmax", e, &v, 1, last, 1, f32);
        ln[0] = v;
        v = oc_ks_step(b, OC_KF_REDUCE, "LayerNormalization", "LayerNormalization", e, ln, 3, lna, 1, f32);
        v = oc_ks_step(b, OC_KF_MOVE, "Transpose", "Transpose", e, &v, 1, tp, 1, f32);
        v = oc_ks_step(b, OC_KF_ELTWISE, "Cast", "Cast_f16", e, &v, 1, to16, 1, f16);
        const char *pair[2] = {v, v};
        v = oc_ks_step(b, OC_KF_MOVE, "Concat", "Concat", e, pair, 2, cat, 1, f16);
        v = oc_ks_step(b, OC_KF_ELTWISE, "Cast", "Cast_f32", e, &v, 1, to32, 1, f32);
        v = oc_ks_step(b, OC_KF_ELTWISE, "Neg", "Neg", e, &v, 1, NULL, 0, f32);
        char name[96];
        snprintf(name, sizeof name, "small/ReduceMax_%lld", (long long)e);
        oc_ks_max(b, name, v);
    }
}

/* The runs grid's small products, where a decoder step's or a small
   encoder's products are (their N and K under the models' 64 and more):
   at each M, one chain of MatMuls by packed weights through every (K, N)
   of 2, 8 and 32 (2x2, 2x8, 8x8, 8x32, 32x32, 32x2, 2x32, 32x8, 8x2), and
   attention's batched products over heads of 1 to 16 elements: scores
   [bh,S,d] x [bh,d,S], then [bh,S,S] x [bh,S,d]. A ReduceMax (oc_ks_max)
   ends each chain. */
static void oc_ks_products(struct oc_ksb *b) {
    static const int64_t ms[] = {1, 8, 64, 512, 4096}, path[] = {2, 2, 8, 8, 32, 32, 2, 32, 8, 2};
    static const int64_t heads[] = {2, 16}, seqs[] = {32, 128}, sizes[] = {1, 4, 16};
    const int32_t f32 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    char name[96];
    for (int32_t i = 0; i < OC_KS_LEN(ms); i++) {
        const struct oc_ks_in xs = {{ms[i], path[0]}, 2};
        const char *v = oc_ks_input(b, &xs, f32);
        for (int32_t k = 0; k + 1 < OC_KS_LEN(path); k++) {
            struct oc_ks_in w = {{path[k], path[k + 1]}, 2};
            const char *two[2] = {v, oc_ks_weight_of(b, &w)};
            snprintf(name, sizeof name, "products/MatMul_m%lld_k%lld_n%lld", (long long)ms[i], (long long)path[k],
                     (long long)path[k + 1]);
            v = oc_ks_link(b, OC_KF_GEMM, "MatMul", name, two, 2, NULL, 0, f32, false);
        }
        snprintf(name, sizeof name, "products/ReduceMax_m%lld", (long long)ms[i]);
        oc_ks_max(b, name, v);
    }
    for (int32_t h = 0; h < OC_KS_LEN(heads); h++)
        for (int32_t q = 0; q < OC_KS_LEN(seqs); q++)
            for (int32_t d = 0; d < OC_KS_LEN(sizes); d++) {
                int64_t bh = heads[h], sq = seqs[q], hd = sizes[d];
                const struct oc_ks_in qs = {{bh, sq, hd}, 3}, ks = {{bh, hd, sq}, 3};
                const char *qk[2] = {oc_ks_input(b, &qs, f32), oc_ks_input(b, &ks, f32)};
                snprintf(name, sizeof name, "products/scores_b%lld_s%lld_d%lld", (long long)bh, (long long)sq,
                         (long long)hd);
                const char *pv[2] = {oc_ks_link(b, OC_KF_GEMM, "MatMul", name, qk, 2, NULL, 0, f32, false),
                                     oc_ks_input(b, &qs, f32)};
                snprintf(name, sizeof name, "products/mix_b%lld_s%lld_d%lld", (long long)bh, (long long)sq,
                         (long long)hd);
                const char *y = oc_ks_link(b, OC_KF_GEMM, "MatMul", name, pv, 2, NULL, 0, f32, false);
                snprintf(name, sizeof name, "products/ReduceMax_b%lld_s%lld_d%lld", (long long)bh, (long long)sq,
                         (long long)hd);
                oc_ks_max(b, name, y);
            }
}

enum oc_status oc_ksweep_build(enum oc_ksweep_grid grid, struct oc_ksweep *out) {
    memset(out, 0, sizeof *out);
    struct oc_ks_grid g = grid == OC_KSWEEP_QUICK || grid == OC_KSWEEP_CPU
                              ? (struct oc_ks_grid){oc_ks_quick_m, OC_KS_LEN(oc_ks_quick_m), oc_ks_quick_nk,
                                                    OC_KS_LEN(oc_ks_quick_nk), oc_ks_quick_px,
                                                    OC_KS_LEN(oc_ks_quick_px), oc_ks_quick_ch,
                                                    OC_KS_LEN(oc_ks_quick_ch), oc_ks_quick_bytes,
                                                    OC_KS_LEN(oc_ks_quick_bytes)}
                              : (struct oc_ks_grid){oc_ks_full_m, OC_KS_LEN(oc_ks_full_m), oc_ks_full_nk,
                                                    OC_KS_LEN(oc_ks_full_nk), oc_ks_full_px,
                                                    OC_KS_LEN(oc_ks_full_px), oc_ks_full_ch,
                                                    OC_KS_LEN(oc_ks_full_ch), oc_ks_full_bytes,
                                                    OC_KS_LEN(oc_ks_full_bytes)};
    struct oc_ksb b = {0};
    oc_arena_init(&b.a);
    b.nodes = oc_arena_array(&b.a, OC_KS_MAX_NODES, sizeof *b.nodes);
    b.outputs = oc_arena_array(&b.a, OC_KS_MAX_NODES, sizeof *b.outputs);
    b.inputs = oc_arena_array(&b.a, 3 * OC_KS_MAX_NODES, sizeof *b.inputs);
    b.weights = oc_arena_array(&b.a, OC_KS_MAX_NODES, sizeof *b.weights);
    b.nomem = !b.nodes || !b.outputs || !b.inputs || !b.weights;
    b.as_in_a_model = grid == OC_KSWEEP_CPU;
    if (grid == OC_KSWEEP_RUNS) {
        oc_ks_runs(&b);
        oc_ks_small(&b);
        oc_ks_products(&b);
    } else {
        oc_ks_gemms(&b, &g);
        oc_ks_convs(&b, &g);
        oc_ks_memory(&b, &g);
    }
    Onnx__GraphProto gr;
    Onnx__ModelProto m;
    Onnx__OperatorSetIdProto ops, *opsp = &ops;
    onnx__graph_proto__init(&gr);
    onnx__model_proto__init(&m);
    onnx__operator_set_id_proto__init(&ops);
    ops.domain = (char *)"";
    ops.has_version = true;
    ops.version = 17;
    gr.name = (char *)(grid == OC_KSWEEP_RUNS ? "onnxcost_runs_sweep" : "onnxcost_kernel_sweep");
    gr.n_node = b.n_nodes;
    gr.node = b.nodes;
    gr.n_input = b.n_inputs;
    gr.input = b.inputs;
    gr.n_output = b.n_outputs;
    gr.output = b.outputs;
    gr.n_initializer = b.n_weights;
    gr.initializer = b.weights;
    m.has_ir_version = true;
    m.ir_version = 8;
    m.producer_name = (char *)(grid == OC_KSWEEP_RUNS  ? "onnxcost probe --sweep-model"
                               : grid == OC_KSWEEP_CPU ? "onnxcost probe --calibrate"
                                                       : "onnxcost probe --gpu");
    m.n_opset_import = 1;
    m.opset_import = &opsp;
    m.graph = &gr;
    size_t len = b.nomem ? 0 : onnx__model_proto__get_packed_size(&m);
    if (!b.nomem && (out->bytes = malloc(len ? len : 1))) {
        out->len = onnx__model_proto__pack(&m, out->bytes);
        out->n_nodes = (int32_t)b.n_nodes;
        memcpy(out->per_family, b.per_family, sizeof out->per_family);
    }
    oc_arena_free(&b.a);
    return out->bytes ? OC_OK : OC_ERR_NOMEM;
}

void oc_ksweep_free(struct oc_ksweep *s) {
    free(s->bytes);
    memset(s, 0, sizeof *s);
}
