/*
 * lint.h — what to change in a model, and what each change would save
 * (`onnxcost lint`, docs/LINT.md).
 *
 * Each rule is one row of oc_lint_rules (a stable id, a level, what it
 * finds) and one function. A finding names the nodes or tensors it concerns
 * and its saving, computed from the analysis (the same cost model as every
 * other figure) and, for duplicate weights, from the weight bytes compared:
 *
 *   weights/duplicate             an initializer byte-identical to an earlier one
 *   weights/duplicate-transposed  a 2-D initializer that is an earlier one
 *                                 transposed (a tied embedding stored again
 *                                 for the output head)
 *   graph/unused-initializer      an initializer no node reads
 *   graph/unused-input            a graph input no node reads
 *   graph/dead-node               nodes none of whose outputs reach a graph output
 *   graph/constant-foldable       nodes computed from weights and constants only
 *   graph/no-op                   nodes that return their input unchanged
 *                                 (Identity, an inference Dropout, Cast to its
 *                                 own type, Transpose by the identity, Pad by
 *                                 zeros, Slice of everything, Expand to its
 *                                 own shape), one finding per op type
 *   graph/cancelling-pair         a Transpose undone by the next one, a Cast to
 *                                 a wider type and back, a Reshape and one back
 *                                 to the input's shape
 *   fusion/fold-into-weights      a BatchNormalization, or a Mul or Add by a
 *                                 per-channel constant, right after the Conv
 *                                 (BatchNormalization also Gemm/MatMul) it
 *                                 could be folded into
 *   fusion/unfused-attention      MatMul, scale, mask, Softmax, MatMul written out:
 *                                 the score tensors a fused attention kernel
 *                                 never writes
 *   perf/tensor-core-alignment    with a device: a contraction on tensor cores
 *                                 whose dims are not multiples of the tile
 *                                 (8 for 16-bit, 16 for 8-bit, 4 for TF32): the
 *                                 padded work, and the time it adds
 *   precision/cast-weights        float weights stored wider than the compute
 *                                 that reads them (a Cast of a weight to float16
 *                                 on every run)
 *   precision/narrower-weights    what float16/bfloat16 and int8 storage of the
 *                                 float32 weights would save (a note)
 *   memory/peak                   the tensors live when the peak activation
 *                                 memory is reached (a note, no saving; off
 *                                 unless selected)
 *   memory/peak-order             another order of the independent branches
 *                                 that lowers the peak (the order is given)
 *   model/old-opset               a default-domain opset below 13, which
 *                                 runtimes' fusions cover less (no saving)
 *   coverage/no-cost              a node without a cost: no rule for its op, or
 *                                 a shape or value it needs not known (the
 *                                 analysis is incomplete)
 *
 * Duplicates are found among initializers whose bytes are raw_data in the
 * model file or external data in its folder, of one element type and count,
 * at least min_dup_bytes long:
 * a hash of the first 4 KiB, then of the whole payload, then a byte-for-byte
 * comparison (a transpose compared block by block), so only candidates are
 * read; weight_bytes_read says how much. No printing.
 */
#ifndef OC_LINT_H
#define OC_LINT_H

#include "../../analyzer/analyze.h"
#include "../perf/perf.h"

enum oc_lint_level { OC_LINT_NOTE, OC_LINT_WARNING, OC_LINT_ERROR, OC_LINT_LEVELS };

enum oc_lint_rule_id {
    OC_LINT_DUPLICATE,
    OC_LINT_DUPLICATE_TRANSPOSED,
    OC_LINT_UNUSED_INITIALIZER,
    OC_LINT_UNUSED_INPUT,
    OC_LINT_DEAD_NODE,
    OC_LINT_CONSTANT_FOLDABLE,
    OC_LINT_NO_OP,
    OC_LINT_CANCELLING,
    OC_LINT_FOLD_INTO_WEIGHTS,
    OC_LINT_UNFUSED_ATTENTION,
    OC_LINT_TC_ALIGNMENT,
    OC_LINT_CAST_WEIGHTS,
    OC_LINT_NARROWER_WEIGHTS,
    OC_LINT_OLD_OPSET,
    OC_LINT_PEAK,
    OC_LINT_PEAK_ORDER,
    OC_LINT_NO_COST,
    OC_LINT_RULES
};

struct oc_lint_rule {
    const char *id;            /* "weights/duplicate": stable, for --select    */
    enum oc_lint_level level;
    const char *summary;       /* what it finds, one line                      */
    const char *why;           /* why it costs                                 */
    bool off;                  /* off unless selected (--select): informative,
                                  on every model                               */
};
extern const struct oc_lint_rule oc_lint_rules[OC_LINT_RULES];

/* What applying a finding's change saves. Weights and parameters are
 * signed: folding a constant subgraph can store more than it removes. */
struct oc_lint_saving {
    int64_t params;          /* float weight elements                        */
    int64_t weight_bytes;    /* bytes of weights in the file                 */
    uint64_t macs, flops;    /* per run                                      */
    uint64_t bytes_moved;    /* read + written per run                       */
    uint64_t input_bytes;    /* graph input bytes fed per run                */
    uint64_t peak_bytes;     /* peak activation memory                       */
    double time_s;           /* predicted on the device (with perf), else 0  */
};

struct oc_lint_finding {
    enum oc_lint_rule_id rule;
    char message[512];
    int32_t *nodes;          /* main-graph nodes (file order) it concerns    */
    int32_t n_nodes;
    int32_t *values;         /* tensors it concerns (value indices)          */
    int32_t n_values;
    int32_t *order;          /* memory/peak-order: the order, node file     
                                indices by step (n_order), else NULL       */
    int32_t n_order;
    struct oc_lint_saving saving;
};

struct oc_lint_opts {
    bool enabled[OC_LINT_RULES];
    uint64_t min_dup_bytes;   /* smaller initializers are not compared       */
    const struct oc_perf *perf; /* per-node predicted times, or NULL        */
};

struct oc_lint_result {
    struct oc_lint_finding *findings;
    int32_t n_findings;
    int32_t by_level[OC_LINT_LEVELS];
    struct oc_lint_saving total;     /* over every finding                    */
    uint64_t weight_bytes_read;      /* payload bytes read to compare weights */
    int32_t n_weights_compared;      /* initializers hashed                   */
    int32_t n_weights_not_compared;  /* large enough, but external or typed   */
};

/* Every rule enabled but those off by default, min_dup_bytes 1 KiB, no
 * perf. */
void oc_lint_defaults(struct oc_lint_opts *o);
/* Enables (on) or disables the rules whose id is `sel` or starts with
 * "sel/" ("weights" selects both duplicate rules); false when none does. */
bool oc_lint_select(struct oc_lint_opts *o, const char *sel, bool on);
const char *oc_lint_level_name(enum oc_lint_level l);
bool oc_lint_level_parse(const char *s, enum oc_lint_level *out);

/* Runs the enabled rules on the analysis an of m. OC_ERR_IO when the file
 * cannot be read to compare weights; OC_ERR_NOMEM. */
enum oc_status oc_lint_run(const struct oc_model *m, const struct oc_analysis *an, const struct oc_lint_opts *o,
                           struct oc_lint_result *out, struct oc_diag *d);
void oc_lint_free(struct oc_lint_result *r);

#endif
