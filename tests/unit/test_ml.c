/*
 * test_ml.c — shape rules and cost formulas of the ai.onnx.ml operators
 * (analyzer/ops/ml.c), the ai.onnx.preview.training optimizers
 * (analyzer/ops/training.c), the string ops and TfIdfVectorizer
 * (analyzer/ops/string.c). Every expected number is worked out by hand in
 * the comment next to it from the ONNX spec, ONNX Runtime's kernels (for
 * the ML output shapes) and the conventions in docs/COSTS.md.
 */
#include "testutil.h"

enum { PB_STRING = 8, PB_DOUBLE = 11 };

/* tu_analyze_ok / tu_analyze_err with, when dom is given, an opset import
 * for that domain too (ModelProto.opset_import is repeated, so appending the
 * field to the serialized model adds one). The analysis is the shared
 * fixture of testutil.h (freed by tu_teardown). */
static enum oc_status finish(struct pb_model *pm, int64_t opset, const char *dom, int64_t version) {
    bytes = pbm_finish(pm, opset);
    if (dom) {
        struct pbw os = {0};
        pbw_str(&os, 1, dom);
        pbw_int(&os, 2, version);
        pbw_msg(&bytes, 8, &os);
    }
    return tu_analyze(&bytes, NULL, &md, &an, &dg);
}

static void analyze(struct pb_model *pm, int64_t opset, const char *dom, int64_t version) {
    if (finish(pm, opset, dom, version) != OC_OK)
        fail_msg("analysis failed: %s", dg.msg);
}

static void analyze_fails(struct pb_model *pm, int64_t opset, const char *dom, int64_t version, const char *what) {
    assert_int_equal(finish(pm, opset, dom, version), OC_ERR_MODEL);
    if (!strstr(dg.msg, what))
        fail_msg("message '%s' does not contain '%s'", dg.msg, what);
}

/* FLOATS attribute (AttributeProto.floats = 7, type FLOATS = 6) */
static struct pbw attr_floats(const char *name, int n, const float *v) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        pbw_float(&a, 7, v[i]);
    pbw_int(&a, 20, 6);
    return a;
}

#define TU_STRS(...) ((const char *const[]){__VA_ARGS__})
#define ML "ai.onnx.ml"
#define TRAINING "ai.onnx.preview.training"

/* ---- LinearClassifier --------------------------------------------------------------- */

static void linear_classifier_multiclass(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 3), NULL));
    struct pbw at[] = {attr_floats("coefficients", 9, TU_FLOATS(1, 2, 3, 4, 5, 6, 7, 8, 9)),
                       attr_floats("intercepts", 3, TU_FLOATS(0.1f, 0.2f, 0.3f)),
                       pb_attr_ints("classlabels_ints", 3, TU_DIMS(10, 20, 30)),
                       pb_attr_str("post_transform", "SOFTMAX")};
    pbm_node(&pm, pb_node_dom("lc", ML, "LinearClassifier", TU_LIST("x"), TU_LIST("label", "scores"), 4, at));
    pbm_output(&pm, pb_value_info("scores", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    /* C = 3 intercepts: labels [N] int64, scores [N, C] float */
    TU_SHAPE(tu_out(an, "lc", 0), 4);
    assert_int_equal(tu_out(an, "lc", 0)->dtype, PB_INT64);
    TU_SHAPE(tu_out(an, "lc", 1), 4, 3);
    assert_int_equal(tu_out(an, "lc", 1)->dtype, PB_FLOAT);
    /* MACs = N·C·F = 4·3·3 = 36; FLOPs = 2·36 + N·C intercepts (12)
     * + SOFTMAX 5 per score (4·3·5 = 60) = 144 */
    assert_int_equal(tu_node(an, "lc")->cost.macs, 36);
    assert_int_equal(tu_node(an, "lc")->cost.flops, 144);
}

static void linear_classifier_binary(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(6, 5), NULL));
    struct pbw at[] = {attr_floats("coefficients", 5, TU_FLOATS(1, 2, 3, 4, 5)),
                       attr_floats("intercepts", 1, TU_FLOATS(0.5f)),
                       pb_attr_strs("classlabels_strings", 2, TU_STRS("neg", "pos")),
                       pb_attr_str("post_transform", "LOGISTIC")};
    pbm_node(&pm, pb_node_dom("bin", ML, "LinearClassifier", TU_LIST("x"), TU_LIST("label", "scores"), 4, at));
    /* no intercepts: C = coefficients / F = 10 / 5 = 2 */
    struct pbw at2[] = {attr_floats("coefficients", 10, TU_FLOATS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)),
                        pb_attr_ints("classlabels_ints", 2, TU_DIMS(0, 1))};
    pbm_node(&pm, pb_node_dom("two", ML, "LinearClassifier", TU_LIST("x"), TU_LIST("l2", "s2"), 2, at2));
    pbm_output(&pm, pb_value_info("scores", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    /* one class of coefficients and two labels: the binary case, E = 2 */
    TU_SHAPE(tu_out(an, "bin", 0), 6);
    assert_int_equal(tu_out(an, "bin", 0)->dtype, PB_STRING);
    TU_SHAPE(tu_out(an, "bin", 1), 6, 2);
    /* MACs = 6·1·5 = 30; FLOPs = 60 + 6 intercept adds + LOGISTIC 4 per
     * score on 6·2 scores (48) = 114 */
    assert_int_equal(tu_node(an, "bin")->cost.macs, 30);
    assert_int_equal(tu_node(an, "bin")->cost.flops, 114);
    TU_SHAPE(tu_out(an, "two", 1), 6, 2);
    assert_int_equal(tu_out(an, "two", 0)->dtype, PB_INT64);
    /* MACs = 6·2·5 = 60; FLOPs = 120 (no intercepts, NONE) */
    assert_int_equal(tu_node(an, "two")->cost.macs, 60);
    assert_int_equal(tu_node(an, "two")->cost.flops, 120);
}

static void linear_classifier_bad_coefficients(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(6, 5), NULL));
    struct pbw at[] = {attr_floats("coefficients", 4, TU_FLOATS(1, 2, 3, 4)),
                       attr_floats("intercepts", 1, TU_FLOATS(0.5f)), pb_attr_ints("classlabels_ints", 2, TU_DIMS(0, 1))};
    pbm_node(&pm, pb_node_dom("lc", ML, "LinearClassifier", TU_LIST("x"), TU_LIST("l", "s"), 3, at));
    pbm_output(&pm, pb_value_info("s", PB_FLOAT, -1, NULL, NULL));
    /* 1 class of 5 features needs 5 coefficients */
    analyze_fails(&pm, 17, ML, 1, "coefficients");
}

/* ---- SVMClassifier ----------------------------------------------------------------------- */

static void svm_classifier_rbf(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(5, 3), NULL));
    float sv[12] = {0}, coef[8] = {0};
    struct pbw at[] = {pb_attr_ints("classlabels_ints", 3, TU_DIMS(0, 1, 2)),
                       pb_attr_ints("vectors_per_class", 3, TU_DIMS(1, 2, 1)),
                       attr_floats("support_vectors", 12, sv), attr_floats("coefficients", 8, coef),
                       attr_floats("rho", 3, TU_FLOATS(0.1f, 0.2f, 0.3f)), pb_attr_str("kernel_type", "RBF"),
                       attr_floats("kernel_params", 3, TU_FLOATS(0.1f, 0, 3))};
    pbm_node(&pm, pb_node_dom("svm", ML, "SVMClassifier", TU_LIST("x"), TU_LIST("l", "s"), 7, at));
    pbm_output(&pm, pb_value_info("s", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    /* SVC form without prob_a: one score per class pair, 3·2/2 = 3 */
    TU_SHAPE(tu_out(an, "svm", 0), 5);
    TU_SHAPE(tu_out(an, "svm", 1), 5, 3);
    /* V = 4, F = 3, C = 3, N = 5: MACs = N·V·F (60) + N·(C − 1)·V (40) = 100;
     * FLOPs = 200 + RBF N·V·(F + 2) (100) + rho N·3 (15) = 315 */
    assert_int_equal(tu_node(an, "svm")->cost.macs, 100);
    assert_int_equal(tu_node(an, "svm")->cost.flops, 315);
}

/* SVMRegressor, one_class, POLY kernel (docs/COSTS.md): N 2, F 3, V 4 support
 * vectors. MACs = N·V·F (24) + N·V (8) = 32; FLOPs = 64 + POLY's 3 per
 * kernel value N·V·3 (24) + one rho add per row (2) + one_class's sign per
 * row (2) = 92; Y [2, 1] */
static void svm_regressor_one_class_poly(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    float sv[12] = {0}, coef[4] = {0};
    struct pbw at[] = {pb_attr_int("n_supports", 4), attr_floats("support_vectors", 12, sv),
                       attr_floats("coefficients", 4, coef), attr_floats("rho", 1, TU_FLOATS(0.5f)),
                       pb_attr_str("kernel_type", "POLY"), attr_floats("kernel_params", 3, TU_FLOATS(0.1f, 1, 3)),
                       pb_attr_int("one_class", 1)};
    pbm_node(&pm, pb_node_dom("svr", ML, "SVMRegressor", TU_LIST("x"), TU_LIST("y"), 7, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    TU_SHAPE(tu_out(an, "svr", 0), 2, 1);
    assert_int_equal(tu_node(an, "svr")->cost.macs, 32);
    assert_int_equal(tu_node(an, "svr")->cost.flops, 92);
}

/* LinearRegressor with intercepts: N 3, F 4, T 2 targets. MACs N·T·F = 24;
 * FLOPs 2·MACs + N·T intercept adds = 54; Y [3, 2] */
static void linear_regressor_intercepts(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
    float coef[8] = {0};
    struct pbw at[] = {pb_attr_int("targets", 2), attr_floats("coefficients", 8, coef),
                       attr_floats("intercepts", 2, TU_FLOATS(1, 2))};
    pbm_node(&pm, pb_node_dom("lr", ML, "LinearRegressor", TU_LIST("x"), TU_LIST("y"), 3, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    TU_SHAPE(tu_out(an, "lr", 0), 3, 2);
    assert_int_equal(tu_node(an, "lr")->cost.macs, 24);
    assert_int_equal(tu_node(an, "lr")->cost.flops, 54);
}

/* Normalizer over x [2, 5] (n = 10 elements, N = 2 rows), docs/COSTS.md:
 * MAX 2n - N = 18, L1 3n - N = 28, L2 3n = 30 */
static void normalizer_norms(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(2, 5), NULL));
    const char *norms[] = {"MAX", "L1", "L2"}, *outs[] = {"ymax", "yl1", "yl2"};
    for (int k = 0; k < 3; k++) {
        struct pbw at[] = {pb_attr_str("norm", norms[k])};
        pbm_node(&pm, pb_node_dom(norms[k], ML, "Normalizer", TU_LIST("x"), TU_LIST(outs[k]), 1, at));
        pbm_output(&pm, pb_value_info(outs[k], PB_FLOAT, -1, NULL, NULL));
    }
    analyze(&pm, 17, ML, 1);
    assert_int_equal(tu_node(an, "MAX")->cost.flops, 18);
    assert_int_equal(tu_node(an, "L1")->cost.flops, 28);
    assert_int_equal(tu_node(an, "L2")->cost.flops, 30);
}

/* ---- tree ensembles ---------------------------------------------------------------------- */

static void tree_ensemble_classifier(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(8, 4), NULL));
    /* tree 1 is a single leaf (listed first); tree 0: node 0 -> (1, 2),
     * node 1 -> (3, 4), nodes 2, 3, 4 leaves: depth 2 */
    struct pbw at[] = {
        pb_attr_ints("nodes_treeids", 6, TU_DIMS(1, 0, 0, 0, 0, 0)),
        pb_attr_ints("nodes_nodeids", 6, TU_DIMS(0, 0, 1, 2, 3, 4)),
        pb_attr_ints("nodes_featureids", 6, TU_DIMS(0, 0, 1, 0, 0, 0)),
        attr_floats("nodes_values", 6, TU_FLOATS(0, 0.5f, 0.25f, 0, 0, 0)),
        pb_attr_strs("nodes_modes", 6, TU_STRS("LEAF", "BRANCH_LEQ", "BRANCH_LT", "LEAF", "LEAF", "LEAF")),
        pb_attr_ints("nodes_truenodeids", 6, TU_DIMS(0, 1, 3, 0, 0, 0)),
        pb_attr_ints("nodes_falsenodeids", 6, TU_DIMS(0, 2, 4, 0, 0, 0)),
        pb_attr_ints("class_treeids", 4, TU_DIMS(1, 0, 0, 0)),
        pb_attr_ints("class_nodeids", 4, TU_DIMS(0, 2, 3, 4)),
        pb_attr_ints("class_ids", 4, TU_DIMS(0, 1, 2, 0)),
        attr_floats("class_weights", 4, TU_FLOATS(1, 1, 1, 1)),
        pb_attr_ints("classlabels_int64s", 3, TU_DIMS(0, 1, 2)),
        attr_floats("base_values", 3, TU_FLOATS(0.1f, 0.2f, 0.3f)),
        pb_attr_str("post_transform", "SOFTMAX"),
    };
    pbm_node(&pm, pb_node_dom("tec", ML, "TreeEnsembleClassifier", TU_LIST("x"), TU_LIST("l", "s"), 14, at));
    pbm_output(&pm, pb_value_info("s", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 3);
    TU_SHAPE(tu_out(an, "tec", 0), 8);
    assert_int_equal(tu_out(an, "tec", 0)->dtype, PB_INT64);
    TU_SHAPE(tu_out(an, "tec", 1), 8, 3);
    /* N·Σ_t (depth(t) + 1) = 8·((2 + 1) + (0 + 1)) = 32; base values N·E =
     * 24; SOFTMAX 5 per score, 8·3·5 = 120: 176 */
    assert_int_equal(tu_node(an, "tec")->cost.flops, 176);
    assert_int_equal(tu_node(an, "tec")->cost.macs, 0);
}

static void tree_ensemble_v5(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_DOUBLE, 2, TU_DIMS(5, 3), NULL));
    /* tree A (root 0): 0 -> (node 1, leaf 0), 1 -> (node 2, leaf 1),
     * 2 -> (leaf 2, leaf 3): depth 3; tree B (root 3): 3 -> (leaf 4,
     * leaf 5): depth 1 */
    /* (nodes_modes is a uint8 tensor in the spec; only its presence matters here) */
    struct pbw splits = pb_tensor_f32("", 1, TU_DIMS(4)), modes = pb_tensor_f32("", 1, TU_DIMS(4)),
               weights = pb_tensor_f32("", 1, TU_DIMS(6));
    struct pbw at[] = {
        pb_attr_ints("tree_roots", 2, TU_DIMS(0, 3)),
        pb_attr_ints("nodes_featureids", 4, TU_DIMS(0, 1, 2, 0)),
        pb_attr_ints("nodes_truenodeids", 4, TU_DIMS(1, 2, 2, 4)),
        pb_attr_ints("nodes_trueleafs", 4, TU_DIMS(0, 0, 1, 1)),
        pb_attr_ints("nodes_falsenodeids", 4, TU_DIMS(0, 1, 3, 5)),
        pb_attr_ints("nodes_falseleafs", 4, TU_DIMS(1, 1, 1, 1)),
        pb_attr_tensor("nodes_splits", &splits),
        pb_attr_tensor("nodes_modes", &modes),
        pb_attr_ints("leaf_targetids", 6, TU_DIMS(0, 1, 0, 1, 0, 1)),
        pb_attr_tensor("leaf_weights", &weights),
        pb_attr_int("n_targets", 2),
    };
    pbm_node(&pm, pb_node_dom("te", ML, "TreeEnsemble", TU_LIST("x"), TU_LIST("y"), 11, at));
    pbm_output(&pm, pb_value_info("y", PB_DOUBLE, -1, NULL, NULL));
    analyze(&pm, 21, ML, 5);
    /* [N, n_targets] of X's type */
    TU_SHAPE(tu_out(an, "te", 0), 5, 2);
    assert_int_equal(tu_out(an, "te", 0)->dtype, PB_DOUBLE);
    /* N·Σ_t (depth(t) + 1) = 5·((3 + 1) + (1 + 1)) = 30, post_transform NONE */
    assert_int_equal(tu_node(an, "te")->cost.flops, 30);
}

static void tree_ensemble_regressor_cycle(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(10, 2), NULL));
    /* nodes 0 and 1 of tree 7 point at each other: no depth, so the cost
     * falls back to the branch nodes: 2 comparisons + 1 leaf add per row */
    struct pbw at[] = {
        pb_attr_ints("nodes_treeids", 2, TU_DIMS(7, 7)),
        pb_attr_ints("nodes_nodeids", 2, TU_DIMS(0, 1)),
        pb_attr_ints("nodes_featureids", 2, TU_DIMS(0, 1)),
        attr_floats("nodes_values", 2, TU_FLOATS(0.5f, 0.5f)),
        pb_attr_strs("nodes_modes", 2, TU_STRS("BRANCH_LEQ", "BRANCH_GT")),
        pb_attr_ints("nodes_truenodeids", 2, TU_DIMS(1, 0)),
        pb_attr_ints("nodes_falsenodeids", 2, TU_DIMS(1, 0)),
        pb_attr_ints("target_treeids", 1, TU_DIMS(7)),
        pb_attr_ints("target_nodeids", 1, TU_DIMS(1)),
        pb_attr_ints("target_ids", 1, TU_DIMS(2)),
        attr_floats("target_weights", 1, TU_FLOATS(1)),
    };
    pbm_node(&pm, pb_node_dom("ter", ML, "TreeEnsembleRegressor", TU_LIST("x"), TU_LIST("y"), 11, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    /* no n_targets: 1 + the largest target id = 3 */
    TU_SHAPE(tu_out(an, "ter", 0), 10, 3);
    assert_int_equal(tu_out(an, "ter", 0)->dtype, PB_FLOAT);
    /* N·(branch nodes + trees) = 10·(2 + 1) = 30 */
    assert_int_equal(tu_node(an, "ter")->cost.flops, 30);
}

/* ---- LabelEncoder ------------------------------------------------------------------------ */

static void label_encoder_v2(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_STRING, 2, TU_DIMS(2, 3), NULL));
    struct pbw at[] = {pb_attr_strs("keys_strings", 2, TU_STRS("a", "b")),
                       pb_attr_ints("values_int64s", 2, TU_DIMS(5, 6)), pb_attr_int("default_int64", -1)};
    pbm_node(&pm, pb_node_dom("le", ML, "LabelEncoder", TU_LIST("x"), TU_LIST("y"), 3, at));
    pbm_output(&pm, pb_value_info("y", PB_INT64, -1, NULL, NULL));
    analyze(&pm, 17, ML, 2);
    /* X's shape, the type of values_int64s; a table look-up: 0 FLOPs */
    TU_SHAPE(tu_out(an, "le", 0), 2, 3);
    assert_int_equal(tu_out(an, "le", 0)->dtype, PB_INT64);
    assert_int_equal(tu_node(an, "le")->cost.flops, 0);
    assert_int_equal(tu_node(an, "le")->status, OC_OK);
}

static void label_encoder_v4_tensor(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_INT64, 1, TU_DIMS(7), NULL));
    struct pbw vals = pb_tensor_f32("", 1, TU_DIMS(2)), keys = pb_tensor_i64("", 1, TU_DIMS(2), TU_DIMS(1, 2));
    struct pbw at[] = {pb_attr_tensor("keys_tensor", &keys), pb_attr_tensor("values_tensor", &vals)};
    pbm_node(&pm, pb_node_dom("le", ML, "LabelEncoder", TU_LIST("x"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, ML, 4);
    /* values_tensor is float: Y float of X's shape */
    TU_SHAPE(tu_out(an, "le", 0), 7);
    assert_int_equal(tu_out(an, "le", 0)->dtype, PB_FLOAT);
}

static void label_encoder_v1(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_INT64, 1, TU_DIMS(4), NULL));
    struct pbw at[] = {pb_attr_strs("classes_strings", 2, TU_STRS("a", "b")), pb_attr_str("default_string", "?")};
    pbm_node(&pm, pb_node_dom("le", ML, "LabelEncoder", TU_LIST("x"), TU_LIST("y"), 2, at));
    pbm_output(&pm, pb_value_info("y", PB_STRING, -1, NULL, NULL));
    analyze(&pm, 17, ML, 1);
    /* opset 1: integers in, strings out */
    TU_SHAPE(tu_out(an, "le", 0), 4);
    assert_int_equal(tu_out(an, "le", 0)->dtype, PB_STRING);
}

static void label_encoder_two_values(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_STRING, 1, TU_DIMS(3), NULL));
    struct pbw at[] = {pb_attr_strs("keys_strings", 1, TU_STRS("a")), pb_attr_ints("values_int64s", 1, TU_DIMS(5)),
                       attr_floats("values_floats", 1, TU_FLOATS(5))};
    pbm_node(&pm, pb_node_dom("le", ML, "LabelEncoder", TU_LIST("x"), TU_LIST("y"), 3, at));
    pbm_output(&pm, pb_value_info("y", PB_INT64, -1, NULL, NULL));
    analyze_fails(&pm, 17, ML, 3, "values_");
}

/* ---- maps ------------------------------------------------------------------------------- */

static void zip_map_unsupported(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(4, 3), NULL));
    struct pbw at[] = {pb_attr_ints("classlabels_int64s", 3, TU_DIMS(1, 2, 3))};
    pbm_node(&pm, pb_node_dom("zm", ML, "ZipMap", TU_LIST("x"), TU_LIST("z"), 1, at));
    analyze(&pm, 17, ML, 1);
    const struct oc_node *n = tu_node(an, "zm");
    assert_int_equal(n->status, OC_ERR_UNSUPPORTED);
    assert_non_null(strstr(n->reason, "sequence of maps"));
    assert_true(n->cost.flags & OC_COST_UNKNOWN);
}

/* ---- TfIdfVectorizer ---------------------------------------------------------------------- */

static void tfidf_vectorizer(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_INT32, 2, TU_DIMS(2, 6), NULL));
    pbm_input(&pm, pb_value_info("v", PB_INT32, 1, TU_DIMS(12), NULL));
    struct pbw at[] = {pb_attr_str("mode", "TFIDF"),       pb_attr_int("min_gram_length", 2),
                       pb_attr_int("max_gram_length", 2),   pb_attr_int("max_skip_count", 0),
                       pb_attr_ints("ngram_counts", 2, TU_DIMS(0, 4)),
                       pb_attr_ints("ngram_indexes", 7, TU_DIMS(0, 1, 2, 3, 4, 5, 6)),
                       pb_attr_ints("pool_int64s", 10, TU_DIMS(2, 3, 5, 4, 5, 6, 7, 8, 6, 7))};
    pbm_node(&pm, pb_node("batch", "TfIdfVectorizer", TU_LIST("x"), TU_LIST("y"), 7, at));
    struct pbw at2[] = {pb_attr_str("mode", "TF"), pb_attr_int("min_gram_length", 1),
                        pb_attr_int("max_gram_length", 1), pb_attr_int("max_skip_count", 0),
                        pb_attr_ints("ngram_counts", 1, TU_DIMS(0)), pb_attr_ints("ngram_indexes", 3, TU_DIMS(3, 9, 1)),
                        pb_attr_ints("pool_int64s", 3, TU_DIMS(2, 3, 5))};
    pbm_node(&pm, pb_node("vec", "TfIdfVectorizer", TU_LIST("v"), TU_LIST("w"), 7, at2));
    pbm_output(&pm, pb_value_info("y", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 20, NULL, 0);
    /* [N, max(ngram_indexes) + 1] = [2, 7], float */
    TU_SHAPE(tu_out(an, "batch", 0), 2, 7);
    assert_int_equal(tu_out(an, "batch", 0)->dtype, PB_FLOAT);
    /* TFIDF: count × weight per output element, 14; the n-gram matching is
     * not floating-point work */
    assert_int_equal(tu_node(an, "batch")->cost.flops, 14);
    /* 1-D input: [max + 1] = [10]; TF: 0 */
    TU_SHAPE(tu_out(an, "vec", 0), 10);
    assert_int_equal(tu_node(an, "vec")->cost.flops, 0);
    assert_int_equal(tu_node(an, "vec")->status, OC_OK);
}

/* ---- optimizers ---------------------------------------------------------------------------- */

static void adam(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("t", PB_INT64, 0, NULL, NULL));
    const char *names[] = {"x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"};
    for (int i = 0; i < 8; i += 2) {
        pbm_input(&pm, pb_value_info(names[i], PB_FLOAT, 2, TU_DIMS(3, 4), NULL));
        pbm_input(&pm, pb_value_info(names[i + 1], PB_FLOAT, 1, TU_DIMS(5), NULL));
    }
    struct pbw at[] = {pb_attr_float("alpha", 0.9f), pb_attr_float("beta", 0.999f)};
    pbm_node(&pm, pb_node_dom("adam", TRAINING, "Adam", TU_LIST("r", "t", "x1", "x2", "g1", "g2", "v1", "v2", "h1", "h2"),
                              TU_LIST("x1n", "x2n", "v1n", "v2n", "h1n", "h2n"), 2, at));
    pbm_output(&pm, pb_value_info("x1n", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, TRAINING, 1);
    /* outputs mirror X1, X2, V1, V2, H1, H2 */
    TU_SHAPE(tu_out(an, "adam", 0), 3, 4);
    TU_SHAPE(tu_out(an, "adam", 1), 5);
    TU_SHAPE(tu_out(an, "adam", 2), 3, 4);
    TU_SHAPE(tu_out(an, "adam", 5), 5);
    assert_int_equal(tu_out(an, "adam", 5)->dtype, PB_FLOAT);
    /* n = 12 + 5 = 17 elements at 15 each (G_reg 2, V_new 3, H_new 4, H_sqrt
     * 2, X_new 3, X_final 1) = 255, + R_adjusted 8 per tensor (16): 271 */
    assert_int_equal(tu_node(an, "adam")->cost.flops, 271);
    assert_int_equal(tu_node(an, "adam")->cost.macs, 0);
}

static void momentum_and_adagrad(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("t", PB_INT64, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(10), NULL));
    pbm_input(&pm, pb_value_info("g", PB_FLOAT, 1, TU_DIMS(10), NULL));
    pbm_input(&pm, pb_value_info("v", PB_FLOAT, 1, TU_DIMS(10), NULL));
    struct pbw at[] = {pb_attr_float("alpha", 0.9f), pb_attr_float("beta", 0.1f), pb_attr_float("norm_coefficient", 0),
                       pb_attr_str("mode", "nesterov")};
    pbm_node(&pm, pb_node_dom("mom", TRAINING, "Momentum", TU_LIST("r", "t", "x", "g", "v"), TU_LIST("xn", "vn"), 4, at));
    pbm_node(&pm, pb_node_dom("ada", TRAINING, "Adagrad", TU_LIST("r", "t", "x", "g", "v"), TU_LIST("xa", "ha"), 0, NULL));
    pbm_output(&pm, pb_value_info("xn", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, TRAINING, 1);
    TU_SHAPE(tu_out(an, "mom", 0), 10);
    TU_SHAPE(tu_out(an, "mom", 1), 10);
    /* nesterov: 9 per element (G_reg 2, V_new 3, X_new 4) + beta_adjusted
     * once: 91 */
    assert_int_equal(tu_node(an, "mom")->cost.flops, 91);
    /* Adagrad: 9 per element + r = R / (1 + T·decay) once (3): 93 */
    TU_SHAPE(tu_out(an, "ada", 1), 10);
    assert_int_equal(tu_node(an, "ada")->cost.flops, 93);
}

static void momentum_bad_inputs(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("r", PB_FLOAT, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("t", PB_INT64, 0, NULL, NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(10), NULL));
    pbm_input(&pm, pb_value_info("g", PB_FLOAT, 1, TU_DIMS(10), NULL));
    struct pbw at[] = {pb_attr_str("mode", "standard")};
    pbm_node(&pm, pb_node_dom("mom", TRAINING, "Momentum", TU_LIST("r", "t", "x", "g"), TU_LIST("xn"), 1, at));
    pbm_output(&pm, pb_value_info("xn", PB_FLOAT, -1, NULL, NULL));
    /* X, G without V: not groups of 3 */
    analyze_fails(&pm, 17, TRAINING, 1, "groups");
}

static void gradient(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_input(&pm, pb_value_info("c", PB_INT64, 1, TU_DIMS(7), NULL));
    struct pbw at[] = {pb_attr_strs("xs", 2, TU_STRS("a", "b")), pb_attr_strs("zs", 1, TU_STRS("c")),
                       pb_attr_str("y", "loss")};
    pbm_node(&pm, pb_node_dom("grad", TRAINING, "Gradient", TU_LIST("a", "b", "c"), TU_LIST("da", "db"), 3, at));
    pbm_output(&pm, pb_value_info("da", PB_FLOAT, -1, NULL, NULL));
    analyze(&pm, 17, TRAINING, 1);
    /* dy/dxs[i] has xs[i]'s shape; the backward pass is not costed */
    TU_SHAPE(tu_out(an, "grad", 0), 2, 3);
    TU_SHAPE(tu_out(an, "grad", 1), 4);
    assert_true(tu_node(an, "grad")->cost.flags & OC_COST_UNKNOWN);
}

/* ---- string ops -------------------------------------------------------------------------------- */

static void string_concat(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_STRING, 3, TU_DIMS(2, 1, 3), NULL));
    pbm_input(&pm, pb_value_info("y", PB_STRING, 2, TU_DIMS(4, 1), NULL));
    pbm_node(&pm, pb_node("cat", "StringConcat", TU_LIST("x", "y"), TU_LIST("z"), 0, NULL));
    pbm_node(&pm, pb_node("re", "RegexFullMatch", TU_LIST("z"), TU_LIST("m"), 0, NULL));
    pbm_output(&pm, pb_value_info("m", PB_BOOL, -1, NULL, NULL));
    analyze(&pm, 20, NULL, 0);
    /* broadcast [2, 1, 3] with [4, 1]: [2, 4, 3]; no floating-point work */
    TU_SHAPE(tu_out(an, "cat", 0), 2, 4, 3);
    assert_int_equal(tu_out(an, "cat", 0)->dtype, PB_STRING);
    assert_int_equal(tu_node(an, "cat")->cost.flops, 0);
    assert_int_equal(tu_node(an, "cat")->status, OC_OK);
    TU_SHAPE(tu_out(an, "re", 0), 2, 4, 3);
    assert_int_equal(tu_out(an, "re", 0)->dtype, PB_BOOL);
}

static void string_concat_mismatch(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_STRING, 1, TU_DIMS(2), NULL));
    pbm_input(&pm, pb_value_info("y", PB_STRING, 1, TU_DIMS(3), NULL));
    pbm_node(&pm, pb_node("cat", "StringConcat", TU_LIST("x", "y"), TU_LIST("z"), 0, NULL));
    pbm_output(&pm, pb_value_info("z", PB_STRING, -1, NULL, NULL));
    analyze_fails(&pm, 20, NULL, 0, "broadcast");
}

static void string_data_dependent(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_STRING, 2, TU_DIMS(1, 5), NULL));
    pbm_input(&pm, pb_value_info("w", PB_STRING, 2, TU_DIMS(3, 2), NULL));
    struct pbw at[] = {pb_attr_strs("stopwords", 1, TU_STRS("the")), pb_attr_str("case_change_action", "LOWER")};
    pbm_node(&pm, pb_node("stop", "StringNormalizer", TU_LIST("x"), TU_LIST("y"), 2, at));
    struct pbw at2[] = {pb_attr_str("case_change_action", "UPPER")};
    pbm_node(&pm, pb_node("upper", "StringNormalizer", TU_LIST("x"), TU_LIST("u"), 1, at2));
    struct pbw at3[] = {pb_attr_str("delimiter", ",")};
    pbm_node(&pm, pb_node("split", "StringSplit", TU_LIST("w"), TU_LIST("parts", "counts"), 1, at3));
    pbm_output(&pm, pb_value_info("y", PB_STRING, -1, NULL, NULL));
    analyze(&pm, 20, NULL, 0);
    /* stopwords: [1, C'] with C' known only at run time */
    const struct oc_value *y = tu_out(an, "stop", 0);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->dims[0].value, 1);
    assert_int_equal(y->dims[1].value, OC_DIM_UNKNOWN);
    assert_int_equal(tu_node(an, "stop")->status, OC_ERR_SHAPE);
    assert_non_null(strstr(tu_node(an, "stop")->reason, "depends on the input data"));
    /* no stopwords: X's shape */
    TU_SHAPE(tu_out(an, "upper", 0), 1, 5);
    /* StringSplit: [3, 2, K], K data dependent; the counts [3, 2] int64 */
    const struct oc_value *p = tu_out(an, "split", 0);
    assert_int_equal(p->rank, 3);
    assert_int_equal(p->dims[2].value, OC_DIM_UNKNOWN);
    TU_SHAPE(tu_out(an, "split", 1), 3, 2);
    assert_int_equal(tu_out(an, "split", 1)->dtype, PB_INT64);
}

/* StringSplit with a delimiter and maxsplit 0 splits nothing (the ONNX
 * spec: at most maxsplit splits): each string one part, Y [3, 2, 1]; an
 * empty input has no parts, Y [0, 0] (K, the most parts of any string, 0) */
static void string_split_known_parts(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("w", PB_STRING, 2, TU_DIMS(3, 2), NULL));
    pbm_input(&pm, pb_value_info("none", PB_STRING, 1, TU_DIMS(0), NULL));
    struct pbw at[] = {pb_attr_str("delimiter", ","), pb_attr_int("maxsplit", 0)};
    pbm_node(&pm, pb_node("whole", "StringSplit", TU_LIST("w"), TU_LIST("parts", "counts"), 2, at));
    struct pbw at2[] = {pb_attr_str("delimiter", ",")};
    pbm_node(&pm, pb_node("empty", "StringSplit", TU_LIST("none"), TU_LIST("eparts", "ecounts"), 1, at2));
    pbm_output(&pm, pb_value_info("parts", PB_STRING, -1, NULL, NULL));
    pbm_output(&pm, pb_value_info("eparts", PB_STRING, -1, NULL, NULL));
    analyze(&pm, 20, NULL, 0);
    TU_SHAPE(tu_out(an, "whole", 0), 3, 2, 1);
    TU_SHAPE(tu_out(an, "whole", 1), 3, 2);
    TU_SHAPE(tu_out(an, "empty", 0), 0, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(linear_classifier_multiclass, tu_teardown),
        cmocka_unit_test_teardown(string_split_known_parts, tu_teardown),
        cmocka_unit_test_teardown(linear_classifier_binary, tu_teardown),
        cmocka_unit_test_teardown(linear_classifier_bad_coefficients, tu_teardown),
        cmocka_unit_test_teardown(svm_classifier_rbf, tu_teardown),
        cmocka_unit_test_teardown(svm_regressor_one_class_poly, tu_teardown),
        cmocka_unit_test_teardown(linear_regressor_intercepts, tu_teardown),
        cmocka_unit_test_teardown(normalizer_norms, tu_teardown),
        cmocka_unit_test_teardown(tree_ensemble_classifier, tu_teardown),
        cmocka_unit_test_teardown(tree_ensemble_v5, tu_teardown),
        cmocka_unit_test_teardown(tree_ensemble_regressor_cycle, tu_teardown),
        cmocka_unit_test_teardown(label_encoder_v2, tu_teardown),
        cmocka_unit_test_teardown(label_encoder_v4_tensor, tu_teardown),
        cmocka_unit_test_teardown(label_encoder_v1, tu_teardown),
        cmocka_unit_test_teardown(label_encoder_two_values, tu_teardown),
        cmocka_unit_test_teardown(zip_map_unsupported, tu_teardown),
        cmocka_unit_test_teardown(tfidf_vectorizer, tu_teardown),
        cmocka_unit_test_teardown(adam, tu_teardown),
        cmocka_unit_test_teardown(momentum_and_adagrad, tu_teardown),
        cmocka_unit_test_teardown(momentum_bad_inputs, tu_teardown),
        cmocka_unit_test_teardown(gradient, tu_teardown),
        cmocka_unit_test_teardown(string_concat, tu_teardown),
        cmocka_unit_test_teardown(string_concat_mismatch, tu_teardown),
        cmocka_unit_test_teardown(string_data_dependent, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
