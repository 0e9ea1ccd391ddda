/*
 * ops/ml.c — the ai.onnx.ml domain (traditional machine learning: the
 * operators sklearn-onnx, onnxmltools and hummingbird emit).
 *
 * Shapes follow ONNX Runtime's kernels, which the ONNX shape inference
 * functions agree with where they say anything. An input X of a model op is
 * [N, F] or [F] (one row: N = 1, as ONNX Runtime reads it). Classifiers
 * output the labels [N] (int64 from classlabels_ints / classlabels_int64s,
 * string from classlabels_strings) and the scores [N, E] float.
 *
 * Maps and sequences of maps (DictVectorizer's and CastMap's input, ZipMap's
 * output) are not tensors: those ops are OC_ERR_UNSUPPORTED.
 *
 * Costs (N rows, F features; t = FLOPs per score of post_transform: NONE 0,
 * LOGISTIC 4 as Sigmoid, SOFTMAX and SOFTMAX_ZERO 5 as Softmax, PROBIT 4,
 * √2·erfinv(2p − 1): multiply, subtract, erfinv, multiply). Choosing the
 * label from the scores (argmax, threshold, votes) is not counted.
 *   LinearClassifier: C classes of coefficients (= intercepts, else
 *     coefficients / F): MACs N·C·F; FLOPs 2·MACs + N·C intercept adds (when
 *     given) + N·E·t.
 *   LinearRegressor: T targets: MACs N·T·F; FLOPs 2·MACs + N·T (intercepts,
 *     when given) + N·T·t.
 *   SVMClassifier, SVMRegressor: with V support vectors (the SVC form) a
 *     kernel value per row and support vector: MACs N·V·F (the dot products,
 *     or for RBF the squared distances) + the decision sums (classifier:
 *     N·(C − 1)·V, each of the C(C − 1)/2 class pairs (i, j) sums V_i + V_j
 *     coefficient products; regressor N·V); FLOPs 2·MACs + N·V·k + N·P rho
 *     adds (P = C(C − 1)/2 pairs, regressor 1) + t per score (+ N for
 *     one_class's sign), k = the kernel function per value: LINEAR 0, POLY 3
 *     ((γ·d + c)^degree), SIGMOID 3 (tanh(γ·d + c)), RBF F + 2 (a subtract
 *     per feature, × −γ, exp). Without support vectors (the linear form):
 *     MACs N·C·F (regressor N·F), FLOPs 2·MACs + N·C rho adds + t per score.
 *     Platt scaling (prob_a, prob_b) is not counted.
 *   TreeEnsembleClassifier, TreeEnsembleRegressor, TreeEnsemble: a row
 *     visits at most depth(t) branch nodes of tree t, one comparison each,
 *     and adds its leaf's value: FLOPs N·Σ_t (depth(t) + 1) + N·E base value
 *     adds (when given) + N·E·t; depth(t) = branch nodes on the longest
 *     root-to-leaf path (an upper bound on the nodes a row visits). When the
 *     node ids do not resolve into trees, N × (branch nodes + trees).
 *   Normalizer: rows = N: MAX y = x / max(x) 2n − rows (comparisons, divide);
 *     L1 3n − rows (|x|, sum, divide); L2 3n (x², sum, sqrt per row, divide),
 *     as LpNormalization.
 *   Scaler (x − offset) · scale 2n; Binarizer x > threshold n; Imputer n
 *     (one comparison, the replacement a select).
 *   ArrayFeatureExtractor, CategoryMapper, FeatureVectorizer, LabelEncoder,
 *     OneHotEncoder: 0 (data movement and table look-ups, no floating-point
 *     work).
 */
#include "../attr.h"
#include "../dtype.h"
#include "../shape.h"
#include "rules.h"

#include <stdlib.h>
#include <string.h>

enum { OC_ML_MAX_RANK = 1024 };

static struct oc_dim oc_d(int64_t v) {
    return (struct oc_dim){v, NULL};
}

static uint64_t oc_u(int64_t v) {
    return v > 0 ? (uint64_t)v : 0;
}

/* a·b, saturating (oc_cost_add_* then flags the overflow) */
static uint64_t oc_mul(uint64_t a, uint64_t b) {
    uint64_t r;
    oc_mul_u64(a, b, &r);
    return r;
}

/* X as [N, F] (rank 2) or [F] (rank 1, N = 1). */
static enum oc_status oc_ml_rows(struct oc_op_ctx *c, struct oc_dim *n, int64_t *f) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 1 && x->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input X must be [N, F] or [F], it has rank %d", x->rank);
    *n = x->rank == 1 ? oc_d(1) : x->dims[0];
    *f = x->dims[x->rank - 1].value;
    return OC_OK;
}

/* FLOPs per score of a post_transform given as a string (0 for unknown names
 * after *ok = false). */
static uint64_t oc_ml_transform_rate(const char *s, bool *ok) {
    static const struct {
        const char *name;
        uint64_t rate;
    } t[] = {{"NONE", 0}, {"LOGISTIC", 4}, {"SOFTMAX", 5}, {"SOFTMAX_ZERO", 5}, {"PROBIT", 4}};
    for (size_t i = 0; i < OC_ARRAY_LEN(t); i++)
        if (strcmp(s, t[i].name) == 0) {
            *ok = true;
            return t[i].rate;
        }
    *ok = false;
    return 0;
}

static enum oc_status oc_ml_transform(struct oc_op_ctx *c, uint64_t *rate) {
    char s[16];
    enum oc_status st = oc_attr_string(c->node, "post_transform", "NONE", s, sizeof s, c->diag);
    if (st != OC_OK)
        return st;
    bool ok;
    *rate = oc_ml_transform_rate(s, &ok);
    if (!ok)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'post_transform' is '%s', expected NONE, SOFTMAX, LOGISTIC, "
                       "SOFTMAX_ZERO or PROBIT", s);
    return OC_OK;
}

/* Label type and count from <strs> / <ints>: strings when that list is
 * non-empty. *n = 0 when neither is given. */
static enum oc_status oc_ml_labels(struct oc_op_ctx *c, const char *strs, const char *ints, int32_t *dt,
                                   int64_t *n) {
    char b[2];
    int64_t ns, ni;
    const int64_t *v;
    enum oc_status st = oc_attr_strings_at(c->node, strs, -1, b, sizeof b, &ns, c->diag);
    if (st != OC_OK || (st = oc_attr_ints(c->node, ints, &v, &ni, c->diag)) != OC_OK)
        return st;
    *dt = ns > 0 ? OC_DT_STRING : OC_DT_INT64;
    *n = ns > 0 ? ns : ni;
    return OC_OK;
}

/* Output 0 = input 0's shape with element type dt (0: input 0's). */
static enum oc_status oc_ml_same(struct oc_op_ctx *c, int32_t dt) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    return oc_set_out(c, 0, dt ? dt : x->dtype, x->rank, x->dims);
}

static enum oc_status oc_ml_per_elem(struct oc_op_ctx *c, struct oc_cost *cost, uint64_t k) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), k);
    return OC_OK;
}

/* ---- elementwise and look-up ops ---------------------------------------------------- */

/* Binarizer, Imputer: X's shape and type */
OC_RULE(oc_ml_same_infer) { return oc_ml_same(c, 0); }

/* Scaler: X's shape, float */
OC_RULE(oc_ml_float_infer) { return oc_ml_same(c, OC_DT_FLOAT); }

OC_COST(oc_ml_scaler_cost) { return oc_ml_per_elem(c, cost, 2); }

/* Normalizer: X is [N, C] or [C]; Y float of its shape */
OC_RULE(oc_ml_normalizer_infer) {
    char norm[8];
    enum oc_status st = oc_attr_string(c->node, "norm", "MAX", norm, sizeof norm, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(norm, "MAX") != 0 && strcmp(norm, "L1") != 0 && strcmp(norm, "L2") != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'norm' is '%s', expected MAX, L1 or L2", norm);
    struct oc_dim n;
    int64_t f;
    if ((st = oc_ml_rows(c, &n, &f)) != OC_OK)
        return st;
    return oc_ml_same(c, OC_DT_FLOAT);
}

OC_COST(oc_ml_normalizer_cost) {
    char norm[8];
    enum oc_status st = oc_attr_string(c->node, "norm", "MAX", norm, sizeof norm, c->diag);
    if (st != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    uint64_t n = oc_numel(x), rows = x->rank == 2 ? oc_u(x->dims[0].value) : 1;
    if (n == 0)
        return OC_OK;
    uint64_t k = strcmp(norm, "MAX") == 0 ? 2 : 3, f;
    if (oc_mul_u64(n, k, &f)) {
        oc_cost_add_flops(cost, f, 1);
        return OC_OK;
    }
    oc_cost_add_flops(cost, strcmp(norm, "L2") == 0 ? f : f - rows, 1);
    return OC_OK;
}

/* CategoryMapper, LabelEncoder-1: string in, int64 out, and the other way */
OC_RULE(oc_ml_category_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || !x->dtype || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->dtype != OC_DT_STRING && x->dtype != OC_DT_INT64)
        return OC_FAIL(c, OC_ERR_MODEL, "input X is %s, expected string or int64", oc_dtype_name(x->dtype));
    return oc_ml_same(c, x->dtype == OC_DT_STRING ? OC_DT_INT64 : OC_DT_STRING);
}

/* LabelEncoder-2 and -4: Y has X's shape, the element type of the values_*
 * attribute that is set (values_tensor: its element type, opset 4). */
OC_RULE(oc_ml_label_encoder_infer) {
    static const struct {
        const char *name;
        int32_t dt;
    } vals[] = {{"values_strings", OC_DT_STRING}, {"values_int64s", OC_DT_INT64}, {"values_floats", OC_DT_FLOAT}};
    int32_t dt = 0;
    int n_set = 0;
    for (size_t i = 0; i < OC_ARRAY_LEN(vals); i++)
        if (oc_attr_has(c->node, vals[i].name)) {
            dt = vals[i].dt;
            n_set++;
        }
    if (c->node->def->since_version >= 4 && oc_attr_has(c->node, "values_tensor")) {
        bool found;
        int32_t tdt, rank;
        const int64_t *dims;
        const void *t;
        enum oc_status st = oc_attr_tensor(c->node, "values_tensor", &found, &tdt, &rank, &dims, &t, c->diag);
        if (st != OC_OK)
            return st;
        if (!tdt)
            return OC_FAIL(c, OC_ERR_MODEL, "attribute 'values_tensor' has no element type");
        dt = tdt;
        n_set++;
    }
    if (n_set != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "exactly one values_* attribute must be set (%d are)", n_set);
    return oc_ml_same(c, dt);
}

/* OneHotEncoder: Y = X.shape + [number of categories], float */
OC_RULE(oc_ml_one_hot_encoder_infer) {
    const struct oc_value *x = oc_in(c, 0);
    char b[2];
    int64_t ns, ni;
    const int64_t *v;
    enum oc_status st = oc_attr_strings_at(c->node, "cats_strings", -1, b, sizeof b, &ns, c->diag);
    if (st != OC_OK || (st = oc_attr_ints(c->node, "cats_int64s", &v, &ni, c->diag)) != OC_OK)
        return st;
    if ((ns > 0) == (ni > 0))
        return OC_FAIL(c, OC_ERR_MODEL, "exactly one of 'cats_strings' and 'cats_int64s' must be given");
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank >= OC_ML_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit", x->rank);
    struct oc_dim *d = oc_arena_array(c->arena, (size_t)x->rank + 1, sizeof *d);
    if (!d)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
    d[x->rank] = oc_d(ns > 0 ? ns : ni);
    return oc_set_out(c, 0, OC_DT_FLOAT, x->rank + 1, d);
}

/* ArrayFeatureExtractor: Z = X.shape[:-1] + [numel(Y)]; [1, numel(Y)] for a
 * 1-D X (ONNX Runtime's backward-compatible form) */
OC_RULE(oc_ml_array_feature_infer) {
    const struct oc_value *x = oc_in(c, 0), *y = oc_in(c, 1);
    if (!x || x->rank < 0 || !y || y->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "input X must have at least one dim");
    if (x->rank > OC_ML_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit", x->rank);
    uint64_t k;
    int64_t kd = oc_value_numel(y, &k) && k <= INT64_MAX ? (int64_t)k : OC_DIM_UNKNOWN;
    if (kd == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "input Y (the indices) is empty");
    if (x->rank == 1) {
        struct oc_dim d[2] = {oc_d(1), oc_d(kd)};
        return oc_set_out(c, 0, x->dtype, 2, d);
    }
    struct oc_dim *d = oc_arena_array(c->arena, (size_t)x->rank, sizeof *d);
    if (!d)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
    d[x->rank - 1] = oc_d(kd);
    return oc_set_out(c, 0, x->dtype, x->rank, d);
}

/* FeatureVectorizer: inputs [N, C_i] (or [C_i], N = 1) cut or zero-padded to
 * inputdimensions[i] columns and concatenated: Y = [N, Σ inputdimensions],
 * float. N is input 0's. */
OC_RULE(oc_ml_feature_vectorizer_infer) {
    const int64_t *dims;
    int64_t nd;
    enum oc_status st = oc_attr_ints(c->node, "inputdimensions", &dims, &nd, c->diag);
    if (st != OC_OK)
        return st;
    if (nd != oc_n_in(c))
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'inputdimensions' has %lld entries for %d inputs",
                       (long long)nd, oc_n_in(c));
    int64_t total = 0;
    for (int64_t i = 0; i < nd; i++)
        if (dims[i] < 0 || oc_add_i64(total, dims[i], &total))
            return OC_FAIL(c, OC_ERR_MODEL, "inputdimensions[%lld] is %lld", (long long)i, (long long)dims[i]);
    /* As ONNX Runtime runs it: N is input 0's first dim (1 for a 1-D input),
     * and each input gives its inputdimensions[i] first values per row,
     * whatever its rank (a CoreML-converted [1, 1, k] is one row of k). */
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "input 0 is a scalar: there is no row");
    struct oc_dim d[2] = {x->rank == 1 ? oc_d(1) : x->dims[0], oc_d(total)};
    return oc_set_out(c, 0, OC_DT_FLOAT, 2, d);
}

/* ---- maps ------------------------------------------------------------------------------ */

/* DictVectorizer, CastMap read a map; ZipMap writes a sequence of maps. */
OC_RULE(oc_ml_map_infer) {
    const char *op = c->node->op_type;
    if (strcmp(op, "ZipMap") == 0)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED,
                       "output Z is a sequence of maps, seq(map(key, float)); onnxcost models tensors only");
    return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input X is a map, map(key, value); onnxcost models tensors only");
}

/* ---- linear models ---------------------------------------------------------------------- */

struct oc_linear {
    struct oc_dim n;
    int64_t f;
    int64_t classes;  /* rows of coefficients                      */
    int64_t scores;   /* E: columns of Z                           */
    int64_t n_icpt;   /* intercepts given                          */
    int32_t label_dt;
    uint64_t rate;    /* post_transform FLOPs per score            */
};

/* LinearClassifier: C = len(intercepts) (ONNX Runtime and the ONNX shape
 * function; without intercepts, coefficients / F as the reference
 * implementation reads them); E = 2 when C = 1 and two labels (the binary
 * case: the second score is derived from the first), else C. */
static enum oc_status oc_linear_classifier(struct oc_op_ctx *c, struct oc_linear *l) {
    const float *coef, *icpt;
    int64_t n_coef, n_lab;
    enum oc_status st = oc_attr_floats(c->node, "coefficients", &coef, &n_coef, c->diag);
    if (st != OC_OK || (st = oc_attr_floats(c->node, "intercepts", &icpt, &l->n_icpt, c->diag)) != OC_OK ||
        (st = oc_ml_labels(c, "classlabels_strings", "classlabels_ints", &l->label_dt, &n_lab)) != OC_OK ||
        (st = oc_ml_transform(c, &l->rate)) != OC_OK)
        return st;
    if (n_coef == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'coefficients' is missing or empty");
    if ((st = oc_ml_rows(c, &l->n, &l->f)) != OC_OK)
        return st;
    if (l->n_icpt > 0)
        l->classes = l->n_icpt;
    else if (l->f > 0 && n_coef % l->f == 0)
        l->classes = n_coef / l->f;
    else
        return OC_FAIL(c, OC_ERR_SHAPE, "the number of classes is not known (no intercepts, F = %lld)",
                       (long long)l->f);
    int64_t want;
    if (l->f >= 0 && !oc_mul_i64(l->classes, l->f, &want) && want != n_coef)
        return OC_FAIL(c, OC_ERR_MODEL, "%lld coefficients for %lld classes of %lld features", (long long)n_coef,
                       (long long)l->classes, (long long)l->f);
    l->scores = l->classes == 1 && n_lab == 2 ? 2 : l->classes;
    return OC_OK;
}

OC_RULE(oc_ml_linear_classifier_infer) {
    struct oc_linear l;
    enum oc_status st = oc_linear_classifier(c, &l);
    if (st != OC_OK)
        return st;
    struct oc_dim z[2] = {l.n, oc_d(l.scores)};
    if ((st = oc_set_out(c, 0, l.label_dt, 1, &l.n)) != OC_OK)
        return st;
    return oc_set_out(c, 1, OC_DT_FLOAT, 2, z);
}

OC_COST(oc_ml_linear_classifier_cost) {
    struct oc_linear l;
    enum oc_status st = oc_linear_classifier(c, &l);
    if (st != OC_OK)
        return st;
    uint64_t n = oc_u(l.n.value), rc;
    oc_mul_u64(n, oc_u(l.classes), &rc);
    oc_cost_add_macs(cost, rc, oc_u(l.f));
    oc_cost_add_flops(cost, cost->macs, 2);
    if (l.n_icpt > 0)
        oc_cost_add_flops(cost, rc, 1);
    oc_cost_add_flops(cost, oc_mul(n, oc_u(l.scores)), l.rate);
    return OC_OK;
}

/* LinearRegressor: Y = [N, targets], float */
static enum oc_status oc_linear_regressor(struct oc_op_ctx *c, struct oc_linear *l) {
    const float *icpt;
    int64_t targets;
    enum oc_status st = oc_attr_int(c->node, "targets", 1, &targets, c->diag);
    if (st != OC_OK || (st = oc_attr_floats(c->node, "intercepts", &icpt, &l->n_icpt, c->diag)) != OC_OK ||
        (st = oc_ml_transform(c, &l->rate)) != OC_OK)
        return st;
    if (targets < 1)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'targets' is %lld, must be >= 1", (long long)targets);
    l->classes = l->scores = targets;
    return oc_ml_rows(c, &l->n, &l->f);
}

OC_RULE(oc_ml_linear_regressor_infer) {
    struct oc_linear l;
    enum oc_status st = oc_linear_regressor(c, &l);
    if (st != OC_OK)
        return st;
    struct oc_dim y[2] = {l.n, oc_d(l.scores)};
    return oc_set_out(c, 0, OC_DT_FLOAT, 2, y);
}

OC_COST(oc_ml_linear_regressor_cost) {
    struct oc_linear l;
    enum oc_status st = oc_linear_regressor(c, &l);
    if (st != OC_OK)
        return st;
    uint64_t rt;
    oc_mul_u64(oc_u(l.n.value), oc_u(l.classes), &rt);
    oc_cost_add_macs(cost, rt, oc_u(l.f));
    oc_cost_add_flops(cost, cost->macs, 2);
    if (l.n_icpt > 0)
        oc_cost_add_flops(cost, rt, 1);
    oc_cost_add_flops(cost, rt, l.rate);
    return OC_OK;
}

/* ---- support vector machines ----------------------------------------------------------- */

struct oc_svm {
    struct oc_dim n;
    int64_t f;
    int64_t classes; /* labels (classifier), 1 (regressor)       */
    int64_t vectors; /* V: support vectors, 0 for the linear form */
    int64_t scores;  /* E                                        */
    int32_t label_dt;
    uint64_t kernel; /* FLOPs per kernel value, F excluded         */
    bool rbf;        /* one more subtract per feature              */
    bool one_class;
    uint64_t rate;
};

static enum oc_status oc_svm_common(struct oc_op_ctx *c, struct oc_svm *s) {
    char k[16];
    enum oc_status st = oc_attr_string(c->node, "kernel_type", "LINEAR", k, sizeof k, c->diag);
    if (st != OC_OK || (st = oc_ml_transform(c, &s->rate)) != OC_OK)
        return st;
    s->rbf = false;
    if (strcmp(k, "LINEAR") == 0)
        s->kernel = 0;
    else if (strcmp(k, "POLY") == 0 || strcmp(k, "SIGMOID") == 0)
        s->kernel = 3;
    else if (strcmp(k, "RBF") == 0)
        s->kernel = 2, s->rbf = true;
    else
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'kernel_type' is '%s', expected LINEAR, POLY, RBF or SIGMOID", k);
    return oc_ml_rows(c, &s->n, &s->f);
}

/* SVMClassifier: C = number of labels; V = Σ vectors_per_class. Z has C
 * columns, except in the SVC form without probabilities (prob_a): one score
 * per class pair, C(C − 1)/2, and 2 for two classes (ONNX Runtime). */
static enum oc_status oc_svm_classifier(struct oc_op_ctx *c, struct oc_svm *s) {
    const int64_t *vpc;
    const float *pa;
    int64_t n_vpc, n_pa;
    enum oc_status st = oc_ml_labels(c, "classlabels_strings", "classlabels_ints", &s->label_dt, &s->classes);
    if (st != OC_OK || (st = oc_attr_ints(c->node, "vectors_per_class", &vpc, &n_vpc, c->diag)) != OC_OK ||
        (st = oc_attr_floats(c->node, "prob_a", &pa, &n_pa, c->diag)) != OC_OK)
        return st;
    if (s->classes == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "one of 'classlabels_strings' and 'classlabels_ints' must be given");
    s->vectors = 0;
    for (int64_t i = 0; i < n_vpc; i++)
        if (vpc[i] < 0 || oc_add_i64(s->vectors, vpc[i], &s->vectors))
            return OC_FAIL(c, OC_ERR_MODEL, "vectors_per_class[%lld] is %lld", (long long)i, (long long)vpc[i]);
    if (s->vectors > 0 && n_vpc != s->classes)
        return OC_FAIL(c, OC_ERR_MODEL, "'vectors_per_class' has %lld entries for %lld classes", (long long)n_vpc,
                       (long long)s->classes);
    if (s->classes > (1 << 16))
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "%lld classes", (long long)s->classes);
    s->scores = s->classes;
    if (s->vectors > 0 && n_pa == 0)
        s->scores = s->classes > 2 ? s->classes * (s->classes - 1) / 2 : 2;
    s->one_class = false;
    return oc_svm_common(c, s);
}

OC_RULE(oc_ml_svm_classifier_infer) {
    struct oc_svm s;
    enum oc_status st = oc_svm_classifier(c, &s);
    if (st != OC_OK)
        return st;
    struct oc_dim z[2] = {s.n, oc_d(s.scores)};
    if ((st = oc_set_out(c, 0, s.label_dt, 1, &s.n)) != OC_OK)
        return st;
    return oc_set_out(c, 1, OC_DT_FLOAT, 2, z);
}

/* SVMRegressor: Y = [N, 1] float (one target); V = n_supports */
static enum oc_status oc_svm_regressor(struct oc_op_ctx *c, struct oc_svm *s) {
    int64_t one_class;
    enum oc_status st = oc_attr_int(c->node, "n_supports", 0, &s->vectors, c->diag);
    if (st != OC_OK || (st = oc_attr_int(c->node, "one_class", 0, &one_class, c->diag)) != OC_OK)
        return st;
    if (s->vectors < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'n_supports' is %lld", (long long)s->vectors);
    s->classes = s->scores = 1;
    s->one_class = one_class != 0;
    s->label_dt = 0;
    return oc_svm_common(c, s);
}

OC_RULE(oc_ml_svm_regressor_infer) {
    struct oc_svm s;
    enum oc_status st = oc_svm_regressor(c, &s);
    if (st != OC_OK)
        return st;
    struct oc_dim y[2] = {s.n, oc_d(1)};
    return oc_set_out(c, 0, OC_DT_FLOAT, 2, y);
}

static void oc_svm_cost(const struct oc_svm *s, bool classifier, struct oc_cost *cost) {
    uint64_t n = oc_u(s->n.value), f = oc_u(s->f), v = oc_u(s->vectors), cl = oc_u(s->classes);
    uint64_t nv, nc, pairs = classifier ? cl * (cl - 1) / 2 : 1;
    oc_mul_u64(n, v, &nv);
    oc_mul_u64(n, cl, &nc);
    if (v > 0) {
        oc_cost_add_macs(cost, nv, f);                         /* kernel dot products  */
        oc_cost_add_macs(cost, nv, classifier ? cl - 1 : 1);   /* decision sums        */
        oc_cost_add_flops(cost, cost->macs, 2);
        oc_cost_add_flops(cost, nv, s->kernel + (s->rbf ? f : 0));
        oc_cost_add_flops(cost, n, pairs);                     /* rho                  */
    } else {
        oc_cost_add_macs(cost, nc, f);
        oc_cost_add_flops(cost, cost->macs, 2);
        oc_cost_add_flops(cost, n, cl);                        /* rho                  */
    }
    oc_cost_add_flops(cost, oc_mul(n, oc_u(s->scores)), s->rate);
    if (s->one_class)
        oc_cost_add_flops(cost, n, 1);
}

OC_COST(oc_ml_svm_classifier_cost) {
    struct oc_svm s;
    enum oc_status st = oc_svm_classifier(c, &s);
    if (st != OC_OK)
        return st;
    oc_svm_cost(&s, true, cost);
    return OC_OK;
}

OC_COST(oc_ml_svm_regressor_cost) {
    struct oc_svm s;
    enum oc_status st = oc_svm_regressor(c, &s);
    if (st != OC_OK)
        return st;
    oc_svm_cost(&s, false, cost);
    return OC_OK;
}

/* ---- tree ensembles ---------------------------------------------------------------------- */

/* Depth (branch nodes on the longest path down) of every node of a forest
 * given as child links: ct[i] / cf[i] = the node index of the true / false
 * child, -1 for a leaf; leaf[i] marks a node that is itself a leaf (depth
 * 0). False when a link is out of range or the links have a cycle. */
static bool oc_tree_depths(struct oc_op_ctx *c, int64_t n, const int64_t *ct, const int64_t *cf, const bool *leaf,
                           int64_t *depth) {
    int64_t *stack = oc_arena_array(c->arena, (size_t)n + 1, sizeof *stack);
    if (!stack)
        return false;
    for (int64_t i = 0; i < n; i++)
        depth[i] = -1; /* -1 unvisited, -2 on the stack */
    for (int64_t r = 0; r < n; r++) {
        if (depth[r] != -1)
            continue;
        int64_t sp = 0;
        stack[sp++] = r;
        depth[r] = -2;
        while (sp > 0) {
            int64_t i = stack[sp - 1];
            if (leaf[i]) {
                depth[i] = 0;
                sp--;
                continue;
            }
            int64_t ch[2] = {ct[i], cf[i]}, d = 0;
            bool pushed = false;
            for (int k = 0; k < 2 && !pushed; k++) {
                int64_t j = ch[k];
                if (j < -1 || j >= n)
                    return false;
                if (j < 0)
                    continue;
                if (depth[j] == -2)
                    return false; /* cycle */
                if (depth[j] == -1) {
                    depth[j] = -2;
                    stack[sp++] = j;
                    pushed = true;
                } else if (depth[j] > d) {
                    d = depth[j];
                }
            }
            if (pushed)
                continue;
            depth[i] = d + 1;
            sp--;
        }
    }
    return true;
}

struct oc_tree_key {
    int64_t tree, id, index;
};

static int oc_tree_key_cmp(const void *pa, const void *pb) {
    const struct oc_tree_key *a = pa, *b = pb;
    if (a->tree != b->tree)
        return a->tree < b->tree ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int64_t oc_tree_find(const struct oc_tree_key *k, int64_t n, int64_t tree, int64_t id) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (k[mid].tree < tree || (k[mid].tree == tree && k[mid].id < id))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && k[lo].tree == tree && k[lo].id == id ? k[lo].index : -1;
}

struct oc_forest {
    uint64_t comparisons; /* Σ_t depth(t), or the branch nodes        */
    uint64_t trees;
};

/* TreeEnsembleClassifier / TreeEnsembleRegressor: nodes named by (tree id,
 * node id), children by node id in the same tree, a node whose mode is
 * LEAF is a leaf. */
static enum oc_status oc_forest_v1(struct oc_op_ctx *c, struct oc_forest *fo) {
    const int64_t *tree, *id, *ct, *cf;
    int64_t n, n2, n3, n4, n_modes;
    char mode[16];
    enum oc_status st = oc_attr_ints(c->node, "nodes_treeids", &tree, &n, c->diag);
    if (st != OC_OK || (st = oc_attr_ints(c->node, "nodes_nodeids", &id, &n2, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "nodes_truenodeids", &ct, &n3, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "nodes_falsenodeids", &cf, &n4, c->diag)) != OC_OK ||
        (st = oc_attr_strings_at(c->node, "nodes_modes", -1, mode, sizeof mode, &n_modes, c->diag)) != OC_OK)
        return st;
    if (n2 != n || n3 != n || n4 != n || n_modes != n)
        return OC_FAIL(c, OC_ERR_MODEL, "the nodes_* attributes have different lengths");
    struct oc_tree_key *k = oc_arena_array(c->arena, (size_t)n + 1, sizeof *k);
    int64_t *lt = oc_arena_array(c->arena, (size_t)n + 1, sizeof *lt);
    int64_t *lf = oc_arena_array(c->arena, (size_t)n + 1, sizeof *lf);
    int64_t *depth = oc_arena_array(c->arena, (size_t)n + 1, sizeof *depth);
    bool *leaf = oc_arena_array(c->arena, (size_t)n + 1, sizeof *leaf);
    if (!k || !lt || !lf || !depth || !leaf)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    uint64_t branches = 0;
    for (int64_t i = 0; i < n; i++) {
        k[i] = (struct oc_tree_key){tree[i], id[i], i};
        if ((st = oc_attr_strings_at(c->node, "nodes_modes", i, mode, sizeof mode, &n_modes, c->diag)) != OC_OK)
            return st;
        leaf[i] = strcmp(mode, "LEAF") == 0;
        branches += !leaf[i];
    }
    qsort(k, (size_t)n, sizeof *k, oc_tree_key_cmp);
    fo->trees = 0;
    for (int64_t i = 0; i < n; i++)
        fo->trees += i == 0 || k[i].tree != k[i - 1].tree;
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) {
        lt[i] = leaf[i] ? -1 : oc_tree_find(k, n, tree[i], ct[i]);
        lf[i] = leaf[i] ? -1 : oc_tree_find(k, n, tree[i], cf[i]);
        ok = leaf[i] || (lt[i] >= 0 && lf[i] >= 0);
    }
    if (!ok || !oc_tree_depths(c, n, lt, lf, leaf, depth)) {
        fo->comparisons = branches;
        return OC_OK;
    }
    /* a tree's depth is its root's: the largest of its nodes' */
    fo->comparisons = 0;
    for (int64_t i = 0, best = 0; i < n; i++) {
        int64_t d = depth[k[i].index];
        best = i == 0 || k[i].tree != k[i - 1].tree ? d : (d > best ? d : best);
        if (i == n - 1 || k[i + 1].tree != k[i].tree)
            fo->comparisons += oc_u(best);
    }
    return OC_OK;
}

/* TreeEnsemble (opset 5): nodes by index, a child is a leaf when
 * nodes_trueleafs / nodes_falseleafs says so, trees start at tree_roots. */
static enum oc_status oc_forest_v5(struct oc_op_ctx *c, struct oc_forest *fo) {
    const int64_t *roots, *ct, *cf, *tl, *fl;
    int64_t nr, n, n2, n3, n4;
    enum oc_status st = oc_attr_ints(c->node, "tree_roots", &roots, &nr, c->diag);
    if (st != OC_OK || (st = oc_attr_ints(c->node, "nodes_truenodeids", &ct, &n, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "nodes_falsenodeids", &cf, &n2, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "nodes_trueleafs", &tl, &n3, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "nodes_falseleafs", &fl, &n4, c->diag)) != OC_OK)
        return st;
    if (nr == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'tree_roots' is missing or empty");
    if (n2 != n || n3 != n || n4 != n)
        return OC_FAIL(c, OC_ERR_MODEL, "the nodes_* attributes have different lengths");
    int64_t *lt = oc_arena_array(c->arena, (size_t)n + 1, sizeof *lt);
    int64_t *lf = oc_arena_array(c->arena, (size_t)n + 1, sizeof *lf);
    int64_t *depth = oc_arena_array(c->arena, (size_t)n + 1, sizeof *depth);
    bool *leaf = oc_arena_array(c->arena, (size_t)n + 1, sizeof *leaf);
    if (!lt || !lf || !depth || !leaf)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        lt[i] = tl[i] ? -1 : ct[i];
        lf[i] = fl[i] ? -1 : cf[i];
        leaf[i] = false;
    }
    fo->trees = (uint64_t)nr;
    bool ok = oc_tree_depths(c, n, lt, lf, leaf, depth);
    for (int64_t i = 0; i < nr && ok; i++)
        ok = roots[i] >= 0 && roots[i] < n;
    fo->comparisons = 0;
    for (int64_t i = 0; i < nr && ok; i++)
        fo->comparisons += oc_u(depth[roots[i]]);
    if (!ok)
        fo->comparisons = (uint64_t)n;
    return OC_OK;
}

/* N·Σ_t (depth(t) + 1) + N·E if base values + N·E·t */
static enum oc_status oc_forest_cost(struct oc_op_ctx *c, struct oc_cost *cost, const struct oc_forest *fo,
                                     uint64_t rate, bool base) {
    const struct oc_value *z = oc_out(c, c->node->n_out - 1);
    if (!z || z->rank != 2)
        return OC_ERR_SHAPE;
    uint64_t n = oc_u(z->dims[0].value), e = oc_u(z->dims[1].value);
    oc_cost_add_flops(cost, n, fo->comparisons + fo->trees);
    if (base)
        oc_cost_add_flops(cost, n, e);
    oc_cost_add_flops(cost, oc_mul(n, e), rate);
    return OC_OK;
}

static bool oc_ml_base_values(const struct oc_op_ctx *c) {
    return oc_attr_has(c->node, "base_values") || oc_attr_has(c->node, "base_values_as_tensor");
}

/* TreeEnsembleClassifier: labels [N], scores [N, number of labels] */
OC_RULE(oc_ml_tree_classifier_infer) {
    int32_t dt;
    int64_t classes;
    uint64_t rate;
    enum oc_status st = oc_ml_labels(c, "classlabels_strings", "classlabels_int64s", &dt, &classes);
    if (st != OC_OK || (st = oc_ml_transform(c, &rate)) != OC_OK)
        return st;
    if (classes == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "one of 'classlabels_strings' and 'classlabels_int64s' must be given");
    struct oc_dim n;
    int64_t f;
    if ((st = oc_ml_rows(c, &n, &f)) != OC_OK)
        return st;
    struct oc_dim z[2] = {n, oc_d(classes)};
    if ((st = oc_set_out(c, 0, dt, 1, &n)) != OC_OK)
        return st;
    return oc_set_out(c, 1, OC_DT_FLOAT, 2, z);
}

/* Targets of a regressor: n_targets, else 1 + the largest target id. */
static enum oc_status oc_ml_targets(struct oc_op_ctx *c, const char *ids_name, int64_t *e) {
    const int64_t *ids;
    int64_t n;
    enum oc_status st = oc_attr_int(c->node, "n_targets", 0, e, c->diag);
    if (st != OC_OK || (st = oc_attr_ints(c->node, ids_name, &ids, &n, c->diag)) != OC_OK)
        return st;
    if (oc_attr_has(c->node, "n_targets")) {
        if (*e < 1)
            return OC_FAIL(c, OC_ERR_MODEL, "attribute 'n_targets' is %lld, must be >= 1", (long long)*e);
        return OC_OK;
    }
    *e = 1;
    for (int64_t i = 0; i < n; i++)
        if (ids[i] >= *e && ids[i] < INT64_MAX)
            *e = ids[i] + 1;
    return OC_OK;
}

/* TreeEnsembleRegressor: Y = [N, n_targets] float */
OC_RULE(oc_ml_tree_regressor_infer) {
    int64_t e;
    uint64_t rate;
    enum oc_status st = oc_ml_targets(c, "target_ids", &e);
    if (st != OC_OK || (st = oc_ml_transform(c, &rate)) != OC_OK)
        return st;
    char agg[16];
    if ((st = oc_attr_string(c->node, "aggregate_function", "SUM", agg, sizeof agg, c->diag)) != OC_OK)
        return st;
    if (strcmp(agg, "SUM") != 0 && strcmp(agg, "AVERAGE") != 0 && strcmp(agg, "MIN") != 0 && strcmp(agg, "MAX") != 0)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'aggregate_function' is '%s', expected AVERAGE, SUM, MIN or MAX",
                       agg);
    struct oc_dim n;
    int64_t f;
    if ((st = oc_ml_rows(c, &n, &f)) != OC_OK)
        return st;
    struct oc_dim y[2] = {n, oc_d(e)};
    return oc_set_out(c, 0, OC_DT_FLOAT, 2, y);
}

OC_COST(oc_ml_tree_v1_cost) {
    struct oc_forest fo;
    uint64_t rate;
    enum oc_status st = oc_ml_transform(c, &rate);
    if (st != OC_OK || (st = oc_forest_v1(c, &fo)) != OC_OK)
        return st;
    return oc_forest_cost(c, cost, &fo, rate, oc_ml_base_values(c));
}

/* TreeEnsemble: Y = [N, n_targets] of X's type; post_transform and
 * aggregate_function are integers here */
static enum oc_status oc_tree_ensemble_attrs(struct oc_op_ctx *c, uint64_t *rate) {
    static const uint64_t rates[] = {0, 5, 4, 5, 4}; /* NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT */
    int64_t pt, agg;
    enum oc_status st = oc_attr_int(c->node, "post_transform", 0, &pt, c->diag);
    if (st != OC_OK || (st = oc_attr_int(c->node, "aggregate_function", 1, &agg, c->diag)) != OC_OK)
        return st;
    if (pt < 0 || pt > 4)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'post_transform' is %lld, expected 0 to 4", (long long)pt);
    if (agg < 0 || agg > 3)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'aggregate_function' is %lld, expected 0 to 3", (long long)agg);
    *rate = rates[pt];
    return OC_OK;
}

OC_RULE(oc_ml_tree_ensemble_infer) {
    int64_t e;
    uint64_t rate;
    enum oc_status st = oc_tree_ensemble_attrs(c, &rate);
    if (st != OC_OK || (st = oc_ml_targets(c, "leaf_targetids", &e)) != OC_OK)
        return st;
    struct oc_dim n;
    int64_t f;
    if ((st = oc_ml_rows(c, &n, &f)) != OC_OK)
        return st;
    struct oc_dim y[2] = {n, oc_d(e)};
    return oc_set_out(c, 0, oc_in(c, 0)->dtype, 2, y);
}

OC_COST(oc_ml_tree_ensemble_cost) {
    struct oc_forest fo;
    uint64_t rate;
    enum oc_status st = oc_tree_ensemble_attrs(c, &rate);
    if (st != OC_OK || (st = oc_forest_v5(c, &fo)) != OC_OK)
        return st;
    return oc_forest_cost(c, cost, &fo, rate, false);
}
