/*
 * lint.c — the lint rules (see lint.h): one row each in the table below, one
 * function each in the file of its family (rules.h), and the run.
 */
#include "rules.h"

const struct oc_lint_rule oc_lint_rules[OC_LINT_RULES] = {
    [OC_LINT_DUPLICATE] = {"weights/duplicate", OC_LINT_WARNING,
                           "an initializer byte-identical to an earlier one",
                           "the file stores, and the runtime loads and keeps, the same weights twice"},
    [OC_LINT_DUPLICATE_TRANSPOSED] = {"weights/duplicate-transposed", OC_LINT_WARNING,
                                      "a 2-D initializer that is an earlier one transposed",
                                      "a tied embedding and output head stored twice: one copy and a "
                                      "transposed read (MatMul/Gemm transB) serve both"},
    [OC_LINT_UNUSED_INITIALIZER] = {"graph/unused-initializer", OC_LINT_WARNING, "an initializer no node reads",
                                    "its bytes are stored and loaded for nothing"},
    [OC_LINT_UNUSED_INPUT] = {"graph/unused-input", OC_LINT_NOTE, "a graph input no node reads",
                              "callers must feed, and copy, a tensor nothing uses"},
    [OC_LINT_DEAD_NODE] = {"graph/dead-node", OC_LINT_WARNING, "nodes none of whose outputs reaches a graph output",
                           "they run on every inference (unless the runtime prunes them) for nothing"},
    [OC_LINT_CONSTANT_FOLDABLE] = {"graph/constant-foldable", OC_LINT_NOTE,
                                   "nodes computed from weights and constants only",
                                   "their result is the same on every run: folded at export (onnxsim, ONNX "
                                   "Runtime's constant folding) they cost nothing per run"},
    [OC_LINT_NO_OP] = {"graph/no-op", OC_LINT_WARNING, "nodes that return their input unchanged",
                       "a node to load and run (a copy, for Transpose, Pad, Slice, Expand) that changes nothing"},
    [OC_LINT_CANCELLING] = {"graph/cancelling-pair", OC_LINT_WARNING,
                            "a Transpose undone by the next, a Cast to a wider type and back, or a Reshape and one "
                            "back",
                            "two nodes, each a pass over the tensor, whose result is their input"},
    [OC_LINT_FOLD_INTO_WEIGHTS] = {"fusion/fold-into-weights", OC_LINT_WARNING,
                                   "a BatchNormalization, or a Mul or Add by a per-channel constant, right after "
                                   "the Conv, Gemm or MatMul it folds into",
                                   "a pass over the contraction's output, and its parameters, that new weights "
                                   "(and a bias) make unnecessary"},
    [OC_LINT_UNFUSED_ATTENTION] = {"fusion/unfused-attention", OC_LINT_WARNING,
                                   "attention written out as MatMul, scale, mask, Softmax, MatMul",
                                   "the score matrix, batch x heads x queries x keys, is written and read several "
                                   "times; a fused attention kernel keeps it on chip"},
    [OC_LINT_TC_ALIGNMENT] = {"perf/tensor-core-alignment", OC_LINT_WARNING,
                               "a contraction on tensor cores whose dims are not multiples of the tile",
                               "tensor cores work in tiles of 8 (16-bit), 16 (8-bit) or 4 (TF32) along each dim: the "
                               "rest of the last tile is computed for nothing, and libraries may fall back to "
                               "slower kernels"},
    [OC_LINT_CAST_WEIGHTS] = {"precision/cast-weights", OC_LINT_WARNING,
                               "float weights stored wider than the compute that reads them",
                               "each run casts the same weights again; stored narrow, the file and the load halve"},
    [OC_LINT_NARROWER_WEIGHTS] = {"precision/narrower-weights", OC_LINT_NOTE,
                                  "float32 weights, and what float16 or int8 storage would save",
                                  "weight bytes are load time, memory and, for small batches, most of the bytes "
                                  "each run reads"},
    [OC_LINT_PEAK] = {"memory/peak", OC_LINT_NOTE, "the tensors live when the peak activation memory is reached",
                      "they set what the runtime must hold at once: where to look first to lower it", true},
    [OC_LINT_PEAK_ORDER] = {"memory/peak-order", OC_LINT_WARNING,
                            "another order of the independent branches that lowers the peak activation memory",
                            "the graph's order makes independent branches' tensors live at once"},
    [OC_LINT_OLD_OPSET] = {"model/old-opset", OC_LINT_NOTE, "a default-domain opset below 13",
                           "runtimes match their fusions against recent op versions"},
    [OC_LINT_NO_COST] = {"coverage/no-cost", OC_LINT_ERROR,
                         "a node without a cost: no rule for its op, or a shape or value it needs is not known",
                         "the totals are lower bounds: every figure, budget and prediction misses it"},
};

static const char *const oc_level_names[OC_LINT_LEVELS] = {"note", "warning", "error"};

const char *oc_lint_level_name(enum oc_lint_level l) {
    return (unsigned)l < OC_LINT_LEVELS ? oc_level_names[l] : "?";
}

bool oc_lint_level_parse(const char *s, enum oc_lint_level *out) {
    for (int l = 0; l < OC_LINT_LEVELS; l++)
        if (strcmp(s, oc_level_names[l]) == 0) {
            *out = (enum oc_lint_level)l;
            return true;
        }
    return false;
}

void oc_lint_defaults(struct oc_lint_opts *o) {
    memset(o, 0, sizeof *o);
    for (int r = 0; r < OC_LINT_RULES; r++)
        o->enabled[r] = !oc_lint_rules[r].off;
    o->min_dup_bytes = 1024;
}

bool oc_lint_select(struct oc_lint_opts *o, const char *sel, bool on) {
    bool any = false;
    size_t n = strlen(sel);
    for (int r = 0; r < OC_LINT_RULES; r++) {
        const char *id = oc_lint_rules[r].id;
        if (strcmp(id, sel) == 0 || (n && strncmp(id, sel, n) == 0 && id[n] == '/')) {
            o->enabled[r] = on;
            any = true;
        }
    }
    return any;
}

/* ---- the run --------------------------------------------------------------------------- */

/* Each family's rule function, in the order they run (a weight one finding
   removes is not counted again by a later one), and the rules it finds: it
   runs when any of them is enabled. */
static const struct {
    enum oc_status (*run)(struct oc_lint_ctx *c);
    enum oc_lint_rule_id rules[3];
    int32_t n;
} oc_lint_passes[] = {
    {oc_rule_duplicates, {OC_LINT_DUPLICATE, OC_LINT_DUPLICATE_TRANSPOSED}, 2},
    {oc_rule_unused, {OC_LINT_UNUSED_INITIALIZER, OC_LINT_UNUSED_INPUT}, 2},
    {oc_rule_dead, {OC_LINT_DEAD_NODE}, 1},
    {oc_rule_foldable, {OC_LINT_CONSTANT_FOLDABLE}, 1},
    {oc_rule_no_op, {OC_LINT_NO_OP}, 1},
    {oc_rule_cancelling, {OC_LINT_CANCELLING}, 1},
    {oc_rule_fold_into_weights, {OC_LINT_FOLD_INTO_WEIGHTS}, 1},
    {oc_rule_tc_alignment, {OC_LINT_TC_ALIGNMENT}, 1},
    {oc_rule_attention, {OC_LINT_UNFUSED_ATTENTION}, 1},
    {oc_rule_precision, {OC_LINT_CAST_WEIGHTS, OC_LINT_NARROWER_WEIGHTS, OC_LINT_OLD_OPSET}, 3},
    {oc_rule_peak, {OC_LINT_PEAK, OC_LINT_PEAK_ORDER}, 2},
    {oc_rule_no_cost, {OC_LINT_NO_COST}, 1},
};

enum oc_status oc_lint_run(const struct oc_model *m, const struct oc_analysis *an, const struct oc_lint_opts *o,
                           struct oc_lint_result *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    struct oc_lint_ctx c = {.m = m, .an = an, .g = an->graph, .o = o, .out = out, .d = d};
    const struct oc_graph *g = an->graph;
    c.implicit_read = calloc((size_t)g->n_values + 1, 1);
    c.needed = calloc((size_t)g->n_values + 1, 1);
    c.live = calloc((size_t)g->n_nodes + 1, 1);
    c.biased = calloc((size_t)g->n_nodes + 1, 1);
    c.removed = calloc((size_t)g->n_values + 1, 1);
    c.folded = calloc((size_t)g->n_nodes + 1, 1);
    if (!c.implicit_read || !c.needed || !c.live || !c.biased || !c.removed || !c.folded) {
        free(c.implicit_read), free(c.needed), free(c.live), free(c.biased), free(c.removed), free(c.folded);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    oc_lint_liveness(g, c.live, c.needed);
    if (!oc_graph_readers(g, true, &c.rstart, &c.radj)) { /* subgraphs' reads too */
        free(c.implicit_read), free(c.needed), free(c.live), free(c.biased), free(c.removed), free(c.folded);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < g->n_nodes; i++)
        for (int32_t k = 0; k < g->nodes[i].n_implicit; k++)
            if (g->nodes[i].implicit[k] >= 0)
                c.implicit_read[g->nodes[i].implicit[k]] = true;
    enum oc_status st = OC_OK;
    for (size_t k = 0; st == OC_OK && k < sizeof oc_lint_passes / sizeof *oc_lint_passes; k++) {
        bool on = false;
        for (int32_t r = 0; r < oc_lint_passes[k].n; r++)
            on |= o->enabled[oc_lint_passes[k].rules[r]];
        if (on)
            st = oc_lint_passes[k].run(&c);
    }
    free(c.implicit_read), free(c.needed), free(c.live), free(c.biased), free(c.removed), free(c.folded);
    free(c.rstart), free(c.radj);
    if (st != OC_OK) {
        if (st == OC_ERR_NOMEM)
            oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        oc_lint_free(out);
        return st;
    }
    for (int32_t k = 0; k < out->n_findings; k++) {
        out->by_level[oc_lint_rules[out->findings[k].rule].level]++;
        oc_lint_saving_add(&out->total, &out->findings[k].saving);
    }
    return OC_OK;
}

void oc_lint_free(struct oc_lint_result *r) {
    for (int32_t k = 0; k < r->n_findings; k++) {
        free(r->findings[k].nodes);
        free(r->findings[k].values);
        free(r->findings[k].order);
    }
    free(r->findings);
    memset(r, 0, sizeof *r);
}
