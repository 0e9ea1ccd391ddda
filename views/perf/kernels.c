/*
 * kernels.c — kernel families, their features and the tables' interpolation
 * (see kernels.h).
 */
#include "kernels.h"

#include "../../analyzer/attr.h"
#include "../../analyzer/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const oc_kf_names[OC_KF_COUNT] = {
    [OC_KF_NONE] = "none",
    [OC_KF_GEMM] = "gemm",
    [OC_KF_CONV_3X3] = "conv_3x3",
    [OC_KF_CONV_KXK] = "conv_kxk",
    [OC_KF_CONV_1X1] = "conv_1x1",
    [OC_KF_CONV_GROUPED] = "conv_grouped",
    [OC_KF_CONV_DEPTHWISE] = "conv_depthwise",
    [OC_KF_ELTWISE] = "eltwise",
    [OC_KF_REDUCE] = "reduce",
    [OC_KF_POOL] = "pool",
    [OC_KF_MOVE] = "move",
};

const char *oc_kfamily_name(enum oc_kfamily f) {
    return (unsigned)f < OC_KF_COUNT ? oc_kf_names[f] : "?";
}

bool oc_kfamily_parse(const char *s, enum oc_kfamily *out) {
    for (int f = 1; f < OC_KF_COUNT; f++)
        if (strcmp(s, oc_kf_names[f]) == 0) {
            *out = (enum oc_kfamily)f;
            return true;
        }
    return false;
}

bool oc_kfamily_memory(enum oc_kfamily f) {
    return f >= OC_KF_ELTWISE && f < OC_KF_COUNT;
}

int32_t oc_kfamily_features(enum oc_kfamily f) {
    return f == OC_KF_NONE ? 0 : oc_kfamily_memory(f) ? 2 : 3;
}

int32_t oc_kfamily_near_features(enum oc_kfamily f) {
    return f == OC_KF_NONE ? 0 : oc_kfamily_memory(f) ? 1 : 3;
}

/* The memory-bound families by op type (default domain). */
static const struct {
    const char *op;
    enum oc_kfamily family;
} oc_kf_ops[] = {
    {"Add", OC_KF_ELTWISE}, {"Sub", OC_KF_ELTWISE}, {"Mul", OC_KF_ELTWISE}, {"Div", OC_KF_ELTWISE},
    {"Pow", OC_KF_ELTWISE}, {"Relu", OC_KF_ELTWISE}, {"Sigmoid", OC_KF_ELTWISE}, {"Tanh", OC_KF_ELTWISE},
    {"Clip", OC_KF_ELTWISE}, {"HardSigmoid", OC_KF_ELTWISE}, {"HardSwish", OC_KF_ELTWISE},
    {"LeakyRelu", OC_KF_ELTWISE}, {"Erf", OC_KF_ELTWISE}, {"Exp", OC_KF_ELTWISE}, {"Log", OC_KF_ELTWISE},
    {"Sqrt", OC_KF_ELTWISE}, {"Neg", OC_KF_ELTWISE}, {"Abs", OC_KF_ELTWISE}, {"Reciprocal", OC_KF_ELTWISE},
    {"Where", OC_KF_ELTWISE}, {"Max", OC_KF_ELTWISE}, {"Min", OC_KF_ELTWISE}, {"Equal", OC_KF_ELTWISE},
    {"Less", OC_KF_ELTWISE}, {"Greater", OC_KF_ELTWISE}, {"Not", OC_KF_ELTWISE}, {"Cast", OC_KF_ELTWISE},
    {"Gelu", OC_KF_ELTWISE}, {"Softplus", OC_KF_ELTWISE}, {"Mish", OC_KF_ELTWISE}, {"Elu", OC_KF_ELTWISE},
    {"PRelu", OC_KF_ELTWISE}, {"BatchNormalization", OC_KF_ELTWISE}, {"Floor", OC_KF_ELTWISE},
    {"Ceil", OC_KF_ELTWISE}, {"Round", OC_KF_ELTWISE}, {"Sin", OC_KF_ELTWISE}, {"Cos", OC_KF_ELTWISE},
    {"ReduceMean", OC_KF_REDUCE}, {"ReduceSum", OC_KF_REDUCE}, {"ReduceMax", OC_KF_REDUCE},
    {"ReduceMin", OC_KF_REDUCE}, {"ReduceProd", OC_KF_REDUCE}, {"ReduceL2", OC_KF_REDUCE},
    {"GlobalAveragePool", OC_KF_REDUCE}, {"GlobalMaxPool", OC_KF_REDUCE}, {"Softmax", OC_KF_REDUCE},
    {"LogSoftmax", OC_KF_REDUCE}, {"LayerNormalization", OC_KF_REDUCE}, {"GroupNormalization", OC_KF_REDUCE},
    {"InstanceNormalization", OC_KF_REDUCE}, {"RMSNormalization", OC_KF_REDUCE}, {"ArgMax", OC_KF_REDUCE},
    {"LRN", OC_KF_REDUCE}, {"LpNormalization", OC_KF_REDUCE}, {"MeanVarianceNormalization", OC_KF_REDUCE},
    {"Sum", OC_KF_ELTWISE},
    {"MaxPool", OC_KF_POOL}, {"AveragePool", OC_KF_POOL},
    {"Transpose", OC_KF_MOVE}, {"Concat", OC_KF_MOVE}, {"Slice", OC_KF_MOVE}, {"Gather", OC_KF_MOVE},
    {"Pad", OC_KF_MOVE}, {"Expand", OC_KF_MOVE}, {"Tile", OC_KF_MOVE}, {"Split", OC_KF_MOVE},
    {"Resize", OC_KF_MOVE}, {"ScatterND", OC_KF_MOVE}, {"DepthToSpace", OC_KF_MOVE},
    {"SpaceToDepth", OC_KF_MOVE}, {"GatherElements", OC_KF_MOVE},
    /* ONNX Runtime's own (com.microsoft, com.microsoft.nchwc), as its
       optimized graphs hold them: the kinds they run as */
    {"BiasGelu", OC_KF_ELTWISE}, {"FastGelu", OC_KF_ELTWISE}, {"QuickGelu", OC_KF_ELTWISE},
    {"BiasAdd", OC_KF_ELTWISE}, {"BiasSoftmax", OC_KF_REDUCE}, {"SkipLayerNormalization", OC_KF_REDUCE},
    {"SimplifiedLayerNormalization", OC_KF_REDUCE}, {"SkipSimplifiedLayerNormalization", OC_KF_REDUCE},
    {"ReorderInput", OC_KF_MOVE}, {"ReorderOutput", OC_KF_MOVE},
};

/* The domains whose ops have families: ONNX's and ONNX Runtime's two. */
static bool oc_kf_domain(const char *d) {
    return !d[0] || strcmp(d, "ai.onnx") == 0 || strcmp(d, "com.microsoft") == 0 ||
           strcmp(d, "com.microsoft.nchwc") == 0;
}

static const struct oc_value *oc_kf_val(const struct oc_graph *g, const struct oc_node *n, int32_t k, bool out) {
    int32_t v = out ? (k < n->n_out ? n->out[k] : -1) : (k < n->n_in ? n->in[k] : -1);
    if (v < 0)
        return NULL;
    const struct oc_value *val = &g->values[v];
    if (val->rank < 0)
        return NULL;
    for (int32_t i = 0; i < val->rank; i++)
        if (val->dims[i].value < 0)
            return NULL;
    return val;
}

static double oc_kf_numel(const struct oc_value *v) {
    double e = 1;
    for (int32_t i = 0; i < v->rank; i++)
        e *= (double)v->dims[i].value;
    return e;
}

static void oc_kf_gemm(const struct oc_graph *g, const struct oc_node *n, struct oc_kfeat *out) {
    const struct oc_value *a = oc_kf_val(g, n, 0, false), *y = oc_kf_val(g, n, 0, true);
    if (!a || !y || a->rank < 1 || y->rank < 1)
        return;
    double nn = y->dims[y->rank - 1].value, k;
    if (strcmp(n->op_type, "Gemm") == 0 || strcmp(n->op_type, "FusedGemm") == 0) {
        int64_t ta = 0;
        if (a->rank != 2 || oc_attr_int(n, "transA", 0, &ta, NULL) != OC_OK)
            return;
        k = (double)a->dims[ta ? 0 : 1].value;
    } else if (strcmp(n->op_type, "FusedMatMul") == 0) { /* com.microsoft: MatMul with transposes */
        int64_t ta = 0;
        if (a->rank < 2 || oc_attr_int(n, "transA", 0, &ta, NULL) != OC_OK)
            return;
        k = (double)a->dims[a->rank - (ta ? 2 : 1)].value;
    } else {
        k = (double)a->dims[a->rank - 1].value;
    }
    if (nn <= 0 || k <= 0)
        return;
    out->family = OC_KF_GEMM;
    out->x[0] = oc_kf_numel(y) / nn;
    out->x[1] = nn;
    out->x[2] = k;
}

bool oc_graph_nchwc(const struct oc_graph *g) {
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (strcmp(g->nodes[i].domain, "com.microsoft.nchwc") == 0)
            return true;
    return false;
}

static void oc_kf_conv(const struct oc_graph *g, const struct oc_node *n, bool nchwc_graph, struct oc_kfeat *out) {
    const struct oc_value *x = oc_kf_val(g, n, 0, false), *w = oc_kf_val(g, n, 1, false),
                          *y = oc_kf_val(g, n, 0, true);
    if (!x || !w || !y || x->rank != 4 || w->rank != 4 || y->rank != 4)
        return;
    int64_t group = 1, ns = 0, nd = 0;
    const int64_t *strides = NULL, *dil = NULL;
    if (oc_attr_int(n, "group", 1, &group, NULL) != OC_OK || group < 1 ||
        oc_attr_ints(n, "strides", &strides, &ns, NULL) != OC_OK ||
        oc_attr_ints(n, "dilations", &dil, &nd, NULL) != OC_OK)
        return;
    double c_in = (double)x->dims[1].value, c_out = (double)y->dims[1].value;
    double kh = (double)w->dims[2].value, kw = (double)w->dims[3].value;
    double pixels = (double)y->dims[0].value * (double)y->dims[2].value * (double)y->dims[3].value;
    out->x[0] = pixels;
    out->x[1] = c_out;
    if (group > 1 && (double)group == c_in && kh * kw == 1 && c_out == c_in) {
        /* a 1x1 depthwise convolution is a per-channel scale and shift (ONNX
           Runtime's NCHWc rewrite of a BatchNormalization it cannot fold,
           DenseNet's): elementwise work, its bytes its feature */
        out->family = OC_KF_ELTWISE;
        out->op = n->op_type;
        out->x[0] = (double)n->cost.bytes_read + (double)n->cost.bytes_written;
        out->x[1] = 1;
    } else if (group > 1 && (double)group == c_in &&
               (!nchwc_graph || strcmp(n->domain, "com.microsoft.nchwc") == 0)) {
        out->family = OC_KF_CONV_DEPTHWISE;
        out->x[2] = kh * kw;
    } else if (group > 1) { /* grouped, or depthwise outside a rewritten graph's NCHWc domain: im2col per group */
        out->family = OC_KF_CONV_GROUPED;
        out->x[2] = c_in / (double)group * kh * kw;
    } else if (kh == 1 && kw == 1) {
        out->family = OC_KF_CONV_1X1;
        out->x[2] = c_in;
    } else {
        bool s1 = true;
        for (int64_t i = 0; i < ns; i++)
            s1 = s1 && strides[i] == 1;
        for (int64_t i = 0; i < nd; i++)
            s1 = s1 && dil[i] == 1;
        out->family = kh == 3 && kw == 3 && s1 ? OC_KF_CONV_3X3 : OC_KF_CONV_KXK;
        out->x[2] = c_in * kh * kw;
    }
}

/* One input's walk in ONNX Runtime's CPU broadcast (its Broadcaster, one
   per input, over the output's axes from the innermost out): runs of axes
   where the input steps through its own elements or holds one still. Only
   the first run's length matters here: the span each inner call takes. */
struct oc_kr_walk {
    bool stepping; /* the last run's: the input's axes there are > 1 */
    bool one_run;  /* still in the first run                       */
    double first;  /* the first run's elements                     */
};

static void oc_kr_start(struct oc_kr_walk *w, int64_t axis, int64_t largest) {
    *w = (struct oc_kr_walk){axis > 1, true, (double)largest};
}

static void oc_kr_append(struct oc_kr_walk *w, int64_t axis, int64_t largest) {
    if ((axis > 1) != w->stepping) { /* the input starts or stops repeating: a new run */
        w->stepping = axis > 1;
        w->one_run = false;
    }
    if (w->one_run)
        w->first *= (double)largest;
}

/* The span of two input shapes' broadcast: the output elements each call
   of ONNX Runtime's broadcast loop takes, its walk's first run for each
   input, the shorter (a trailing axis of 1 in a broadcast makes spans of
   one element: [8,2,128,1] / [] runs 2048 of them). 0 when a shape is not
   known. */
static double oc_kr_span(const struct oc_value *a, const struct oc_value *b) {
    int32_t ra = a->rank, rb = b->rank, lo = ra < rb ? ra : rb, hi = ra < rb ? rb : ra, ia = ra, ib = rb, k = 0;
    struct oc_kr_walk wa = {false, true, 1}, wb = {false, true, 1};
    if (lo == 0) { /* a scalar: the other's innermost axis starts both walks */
        int64_t axis = ra ? a->dims[--ia].value : rb ? b->dims[--ib].value : 1;
        oc_kr_start(&wa, ra ? axis : 1, axis);
        oc_kr_start(&wb, rb ? axis : 1, axis);
        k = 1;
    }
    for (; k < lo; k++) { /* the innermost axis either has over 1 starts the walks (else the last shared one) */
        int64_t x = a->dims[--ia].value, y = b->dims[--ib].value, largest = x > y ? x : y;
        if (largest == 1 && k + 1 < lo)
            continue;
        oc_kr_start(&wa, x, largest);
        oc_kr_start(&wb, y, largest);
        k++;
        break;
    }
    for (; k < lo; k++) {
        int64_t x = a->dims[--ia].value, y = b->dims[--ib].value, largest = x > y ? x : y;
        if (largest == 1)
            continue;
        oc_kr_append(&wa, x, largest);
        oc_kr_append(&wb, y, largest);
    }
    for (; k < hi; k++) { /* the longer shape's outer axes: the shorter one repeats over them */
        int64_t axis = ra > rb ? a->dims[--ia].value : b->dims[--ib].value;
        oc_kr_append(&wa, ra > rb ? axis : 1, axis);
        oc_kr_append(&wb, ra > rb ? 1 : axis, axis);
    }
    return wa.first < wb.first ? wa.first : wb.first;
}

/* ops ONNX Runtime's CPU provider runs through its two-input broadcast loop */
static const char *const oc_kr_broadcast_ops[] = {
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "And", "Or", "Xor", "PRelu", "Mod", "Sum", "Mean",
};

/* the rows of a normalization over the axes from `axis` on (negative: from
   the end): the product of the axes before it */
static double oc_kr_rows(const struct oc_value *x, int64_t axis) {
    if (axis < 0)
        axis += x->rank;
    if (axis < 0 || axis >= x->rank)
        return 0;
    double rows = 1;
    for (int64_t i = 0; i < axis; i++)
        rows *= (double)x->dims[i].value;
    return rows;
}

double oc_kernel_runs(const struct oc_graph *g, const struct oc_node *n) {
    if (n->cost.flags & OC_COST_UNKNOWN || !oc_kf_domain(n->domain))
        return 0;
    const struct oc_value *x = oc_kf_val(g, n, 0, false), *y = oc_kf_val(g, n, 0, true);
    if (!x || !y)
        return 0;
    const char *op = n->op_type;
    for (size_t k = 0; k < sizeof oc_kr_broadcast_ops / sizeof oc_kr_broadcast_ops[0]; k++)
        if (strcmp(op, oc_kr_broadcast_ops[k]) == 0) {
            if (n->n_in != 2) /* a variadic Sum, Max, ... of one or of three and more: not that loop */
                return 1;
            const struct oc_value *b = oc_kf_val(g, n, 1, false);
            if (!b)
                return 0;
            double span = oc_kr_span(x, b), numel = oc_kf_numel(y);
            return span >= 1 && numel >= span ? numel / span : 0;
        }
    int64_t axis = -1;
    if (strcmp(op, "Softmax") == 0 || strcmp(op, "LogSoftmax") == 0) {
        if (oc_attr_int(n, "axis", n->opset >= 13 ? -1 : 1, &axis, NULL) != OC_OK)
            return 0;
        if (n->opset < 13) /* the axes from `axis` on, as one row */
            return oc_kr_rows(x, axis);
        axis += axis < 0 ? x->rank : 0; /* one axis: a row for every position of the others */
        double len = axis >= 0 && axis < x->rank ? (double)x->dims[axis].value : 0;
        return len >= 1 ? oc_kf_numel(x) / len : 0;
    }
    if (strcmp(op, "LayerNormalization") == 0 || strcmp(op, "SimplifiedLayerNormalization") == 0 ||
        strcmp(op, "RMSNormalization") == 0)
        return oc_attr_int(n, "axis", -1, &axis, NULL) == OC_OK ? oc_kr_rows(x, axis) : 0;
    if (strcmp(op, "SkipLayerNormalization") == 0 || strcmp(op, "SkipSimplifiedLayerNormalization") == 0)
        return oc_kr_rows(x, -1);
    return 1; /* every other node, a global pooling too (one Eigen reduction over its rows) */
}

void oc_kernel_features(const struct oc_graph *g, const struct oc_node *n, bool nchwc_graph, struct oc_kfeat *out) {
    memset(out, 0, sizeof *out);
    if (n->cost.flags & OC_COST_UNKNOWN || !oc_kf_domain(n->domain))
        return;
    const char *op = n->op_type;
    if (strcmp(op, "MatMul") == 0 || strcmp(op, "Gemm") == 0 || strcmp(op, "FusedMatMul") == 0 ||
        strcmp(op, "FusedGemm") == 0)
        oc_kf_gemm(g, n, out);
    else if (strcmp(op, "Conv") == 0 || strcmp(op, "FusedConv") == 0)
        oc_kf_conv(g, n, nchwc_graph, out);
    else
        for (size_t k = 0; k < sizeof oc_kf_ops / sizeof oc_kf_ops[0]; k++)
            if (strcmp(oc_kf_ops[k].op, n->op_type) == 0) {
                out->family = oc_kf_ops[k].family;
                out->op = n->op_type;
                out->x[0] = (double)n->cost.bytes_read + (double)n->cost.bytes_written;
                out->x[1] = oc_kernel_runs(g, n);
                break;
            }
    if (out->family == OC_KF_NONE)
        return;
    out->work = oc_kfamily_memory(out->family) ? out->x[0] : (double)n->cost.flops;
    for (int32_t i = 0; i < oc_kfamily_features(out->family); i++)
        if (!(out->x[i] >= 1) || !(out->work > 0)) {
            memset(out, 0, sizeof *out); /* nothing to run, or a feature of 0: no family */
            return;
        }
}

void oc_ktables_free(struct oc_ktables *t) {
    if (!t)
        return;
    for (int32_t i = 0; i < t->n; i++) {
        free(t->tables[i].samples);
        free(t->tables[i].op);
    }
    free(t->tables);
    free(t->source);
    memset(t, 0, sizeof *t);
}

void oc_ktable_fit_runs(struct oc_ktable *t) {
    t->run_s = 0;
    if (!oc_kfamily_memory(t->family) || t->n < 2)
        return;
    int32_t n = t->n < OC_KRUN_MAX_SAMPLES ? t->n : OC_KRUN_MAX_SAMPLES;
    size_t n_pairs = 0, cap = (size_t)n * (size_t)n < OC_KRUN_MAX_PAIRS ? (size_t)n * (size_t)n : OC_KRUN_MAX_PAIRS;
    double *c = malloc(cap * sizeof *c);
    if (!c) /* out of memory: not measured, the fitted cost prices the runs */
        return;
    for (int32_t i = 0; i < n && n_pairs < cap; i++)
        for (int32_t j = 0; j < n && n_pairs < cap; j++) {
            const struct oc_ksample *lo = &t->samples[i], *hi = &t->samples[j];
            if (hi->x[1] >= 4 * lo->x[1] && hi->seconds >= 1.5 * lo->seconds &&
                fabs(log2(hi->x[0] / lo->x[0])) <= OC_KRUN_SAME_BYTES)
                c[n_pairs++] = (hi->seconds - lo->seconds) / (hi->x[1] - lo->x[1]);
        }
    if (n_pairs >= 3) {
        qsort(c, n_pairs, sizeof *c, oc_cmp_double);
        t->run_s = oc_quantile(c, (int64_t)n_pairs, 0.5);
    }
    free(c);
}

static bool oc_kt_same_op(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

const struct oc_ktable *oc_ktable_find(const struct oc_ktables *t, enum oc_kfamily f, int32_t dtype, int32_t math,
                                       const char *op, int32_t threads) {
    for (int32_t i = 0; t && i < t->n; i++) {
        const struct oc_ktable *k = &t->tables[i];
        if (k->family == f && k->dtype == dtype && (oc_kfamily_memory(f) || k->math == math) &&
            oc_kt_same_op(k->op, op) && k->threads == threads)
            return k;
    }
    return NULL;
}

/* whether table k speaks for a node at that thread count */
static bool oc_kt_threads(const struct oc_ktable *k, int32_t threads) {
    return k->threads == 0 || k->threads == threads;
}

/* The K nearest samples seen so far, in log2 feature space; fixed: the
   seconds of every sample and node that do not scale with its work. */
struct oc_knn {
    double d[OC_KTABLE_K], e[OC_KTABLE_K]; /* distance, ln efficiency */
    double f[OC_KTABLE_K];                 /* the sample's own fixed cost */
    int32_t n;
    struct oc_kfixed fixed;
    double node_run_s;                     /* the node's cost per run */
};

/* the runs of a memory-bound sample or node after its first (x[1]; 0 in
   tables written before it was kept: one run) */
static double oc_kruns_after_first(enum oc_kfamily f, const double *x) {
    return oc_kfamily_memory(f) && x[1] > 1 ? x[1] - 1 : 0;
}

/* A sample's own fixed cost: the node's, but at most 1 - OC_KTABLE_MIN_BODY
   of the sample's seconds. A sample under the fitted fixed cost says its op
   costs less than that to run at all (ONNX Runtime's Cast of a few elements
   takes 2.5 us where the fitted cost per node is 3.1): the node near it
   takes that lower cost too, not the fitted one plus the sample's time. */
static double oc_knn_fixed(const struct oc_knn *nn, const struct oc_ksample *s) {
    double cap = (1 - OC_KTABLE_MIN_BODY) * s->seconds;
    return nn->fixed.node_s < cap ? nn->fixed.node_s : cap;
}

/* a table's cost per run: its own where it has one, else the fitted one */
static double oc_kt_run_s(const struct oc_ktable *t, const struct oc_kfixed *fixed) {
    return t && t->run_s > 0 ? t->run_s : fixed->run_s;
}

/* The seconds a sample's runs after its first took (oc_kernel_runs x
   run_s), within what its fixed cost leaves of the cap: its own, which
   the node does not take. */
static double oc_knn_runs(enum oc_kfamily fam, const struct oc_ksample *s, double fixed, double run_s) {
    double cap = (1 - OC_KTABLE_MIN_BODY) * s->seconds - fixed, t = oc_kruns_after_first(fam, s->x) * run_s;
    return t < cap ? t : cap > 0 ? cap : 0;
}

static void oc_knn_add(struct oc_knn *nn, const struct oc_ktable *t, const struct oc_kfeat *f) {
    int32_t nf = oc_kfamily_near_features(f->family);
    double run_s = oc_kt_run_s(t, &nn->fixed);
    for (int32_t i = 0; i < t->n; i++) {
        const struct oc_ksample *s = &t->samples[i];
        double d2 = 0;
        for (int32_t j = 0; j < nf; j++) {
            double dx = log2(f->x[j]) - log2(s->x[j]);
            d2 += dx * dx;
        }
        double fx = oc_knn_fixed(nn, s), d = sqrt(d2);
        double e = log(s->work / (s->seconds - fx - oc_knn_runs(f->family, s, fx, run_s)));
        int32_t at = nn->n < OC_KTABLE_K ? nn->n++ : OC_KTABLE_K;
        if (at == OC_KTABLE_K) { /* full: replace the farthest if this one is nearer */
            int32_t far = 0;
            for (int32_t j = 1; j < OC_KTABLE_K; j++)
                if (nn->d[j] > nn->d[far])
                    far = j;
            if (d >= nn->d[far])
                continue;
            at = far;
        }
        nn->d[at] = d;
        nn->e[at] = e;
        nn->f[at] = fx;
    }
}

/* the neighbours' fixed cost and work / their efficiency (each weighted by
   1 / (d + 0.25)^2; the efficiency as its ln) */
static bool oc_knn_time(const struct oc_knn *nn, const struct oc_kfeat *f, double *seconds, bool *extrapolated) {
    double nearest = INFINITY;
    for (int32_t j = 0; j < nn->n; j++)
        nearest = fmin(nearest, nn->d[j]);
    if (nn->n == 0 || nearest > OC_KTABLE_RADIUS)
        return false;
    double sw = 0, se = 0, sf = 0;
    for (int32_t j = 0; j < nn->n; j++) {
        double w = 1.0 / ((nn->d[j] + 0.25) * (nn->d[j] + 0.25));
        sw += w;
        se += w * nn->e[j];
        sf += w * nn->f[j];
    }
    *seconds = sf / sw + oc_kruns_after_first(f->family, f->x) * nn->node_run_s + f->work / exp(se / sw);
    if (extrapolated)
        *extrapolated = nearest > 1.0;
    return *seconds > 0 && isfinite(*seconds);
}

static bool oc_ktable_time_fixed(const struct oc_ktable *t, const struct oc_kfeat *f, struct oc_kfixed fixed,
                                 double *seconds, bool *extrapolated) {
    if (!t || t->family != f->family || !(f->work > 0) || oc_kfamily_features(f->family) == 0)
        return false;
    struct oc_knn nn = {.n = 0, .fixed = fixed, .node_run_s = oc_kt_run_s(t, &fixed)};
    oc_knn_add(&nn, t, f);
    return oc_knn_time(&nn, f, seconds, extrapolated);
}

bool oc_ktable_time(const struct oc_ktable *t, const struct oc_kfeat *f, double *seconds, bool *extrapolated) {
    return oc_ktable_time_fixed(t, f, (struct oc_kfixed){0, 0}, seconds, extrapolated);
}

bool oc_ktables_time(const struct oc_ktables *t, const struct oc_kfeat *f, int32_t dtype, int32_t math,
                     int32_t threads, struct oc_kfixed fixed, double *seconds, bool *extrapolated) {
    if (!t || !(f->work > 0) || oc_kfamily_features(f->family) == 0)
        return false;
    bool memory = oc_kfamily_memory(f->family);
    const struct oc_ktable *own = NULL;
    if (memory && f->op) { /* the op's own table, when it speaks with K samples */
        own = oc_ktable_find(t, f->family, dtype, math, f->op, threads);
        if (!own)
            own = oc_ktable_find(t, f->family, dtype, math, f->op, 0);
        if (own && own->n >= OC_KTABLE_K && oc_ktable_time_fixed(own, f, fixed, seconds, extrapolated))
            return true;
    }
    struct oc_knn nn = {.n = 0, .fixed = fixed, .node_run_s = oc_kt_run_s(own, &fixed)};
    for (int32_t i = 0; i < t->n; i++) {
        const struct oc_ktable *k = &t->tables[i];
        if (k->family == f->family && k->dtype == dtype && (memory || k->math == math) && oc_kt_threads(k, threads))
            oc_knn_add(&nn, k, f);
    }
    return oc_knn_time(&nn, f, seconds, extrapolated);
}
