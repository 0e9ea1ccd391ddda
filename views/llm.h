/*
 * llm.h — the generation view of a decoder with a KV cache (onnxcost llm,
 * docs/LLM.md): recognise the cache in the exported graph, then analyze the
 * graph at the bindings of a prefill (prompt tokens, empty past) and of one
 * decode step (one new token over a past of context - 1), and derive the
 * request, the KV cache and the largest batch from them.
 *
 * Everything comes from the real graph: FLOPs and bytes are the analysis'
 * totals at those bindings, the KV bytes are the sizes of its present
 * outputs, and times are the GPU model's (docs/MODEL.md).
 */
#ifndef OC_LLM_H
#define OC_LLM_H

#include "../analyzer/analyze.h"
#include "perf/capacity.h"
#include "perf/perf.h"

/* What recognition found in the graph's inputs and outputs. */
struct oc_llm_shape {
    const char *convention; /* how the cache is named: "past_key_values.N.key/value" */
    int32_t layers;         /* distinct layer numbers of the cache inputs        */
    int32_t kv_heads;       /* the cache's head count (0 when not static)         */
    int32_t head_dim;       /* its last dim (0 when not static)                   */
    int32_t kv_dtype;       /* ONNX code of the cache tensors                     */
    int32_t weight_bits;    /* MatMulNBits' bits when the graph has it, else the
                               width of the largest initializer's type           */
    const char *batch_dim;  /* the symbols to bind: batch, new tokens, past       */
    const char *new_dim;
    const char *past_dim;
    const char *total_dim;  /* past + new (attention mask), or NULL               */
    /* The cache as its inputs declare it, the one source of the KV figures:
       bytes per position of one sequence summed over the cache inputs that
       grow with the past dim (their static dims x dtype), and the bytes of
       one sequence's cache inputs that do not (a fixed-size state). */
    uint64_t kv_bytes_per_token;
    uint64_t fixed_state_bytes;
    int32_t n_fixed_state;       /* cache inputs without the past dim          */
};

/* Reads the cache from a prepared analysis (oc_analysis_prepare). A graph
 * without one (no past/present key-value inputs with a symbolic sequence
 * dim) is OC_ERR_USAGE with the reason in d. */
enum oc_status oc_llm_recognise(const struct oc_analysis *an, struct oc_llm_shape *out, struct oc_diag *d);

/* The graph at one binding. */
struct oc_llm_point {
    uint64_t macs, flops;    /* the analysis' totals                        */
    uint64_t bytes;          /* bytes moved: every node's reads and writes   */
    uint64_t kv_bytes;       /* the present (cache) outputs                  */
    int32_t n_presents;      /* outputs named present*                       */
    bool presents_known;     /* every one of them has a known size           */
    uint64_t need_bytes;     /* parameters + liveness peak (docs/MODEL.md)   */
    bool exact;              /* oc_totals_exact: else the counts are lower bounds */
    bool need_exact;         /* need_bytes too (the liveness peak complete)  */
    bool timed;              /* a GPU was given                              */
    double seconds;          /* predicted                                   */
    enum oc_bound bound;     /* memory when the memory-bound nodes take most of it */
};

/* Runs the analysis at batch, `tokens` new tokens and a past of `past`
 * (the total dim, when the graph has one, is past + tokens); gpu may be
 * NULL. The analysis is re-run (oc_analysis_rerun) and left at that binding. */
enum oc_status oc_llm_point(struct oc_analysis *an, const struct oc_llm_shape *s, int64_t batch, int64_t tokens,
                            int64_t past, const struct oc_gpu *gpu, const struct oc_perf_opts *po,
                            struct oc_llm_point *out, struct oc_diag *d);

/* f(batch, context) = c0 + c_b·batch + c_c·context + c_bc·batch·context,
 * fitted on four decode points and checked on two more; valid false when
 * the quantity is not of that form (then only the table is exact). */
struct oc_llm_formula {
    bool valid;
    int64_t c0, c_b, c_c, c_bc;
};

struct oc_llm_opts {
    int64_t batch, prompt, generate, context;   /* context: of the decode step */
    const struct oc_gpu *gpu;                   /* NULL: no times, no fit       */
    struct oc_perf_opts perf;
    uint64_t reserve;                           /* kept back on the device      */
    bool causal_half;                           /* count the prefill's attention
                                                   over the causal half only    */
};

/* The decode step over contexts (context / 8 ... 4 x context) for up to
 * three batches (1, 8, 64, those within the largest batch): the table and
 * the chart of time per token. */
enum { OC_LLM_CONTEXTS = 6, OC_LLM_BATCHES = 3 };

struct oc_llm_view {
    struct oc_llm_shape shape;
    struct oc_llm_point prefill;                /* batch x prompt tokens        */
    struct oc_llm_point decode;                 /* one token at `context`       */
    struct oc_llm_formula decode_flops, decode_bytes, decode_macs;
    bool causal_applied;                        /* causal_half took effect: the
                                                   prefill counts less by the
                                                   amounts below               */
    uint64_t causal_macs, causal_flops;
    double request_seconds;                     /* prefill + every decode step  */
    bool request_exact;
    uint64_t weight_bytes;                      /* every initializer (packed low-bit
                                                   weights, scales, zero points)  */
    uint64_t kv_bytes_per_token;                /* all layers, one sequence: the
                                                   cache inputs' (shape above)  */
    uint64_t present_growth;                    /* the present outputs' bytes per
                                                   new token and sequence, when
                                                   known (presents_checked)     */
    bool presents_checked;
    bool need_exact;                            /* the decode need is exact: else
                                                   max_batch is an upper bound  */
    int32_t n_warnings;                         /* where the figures disagree or
                                                   rest on an assumption        */
    char warnings[4][384];
    int64_t max_batch;                          /* at `context`; -1 without a GPU,
                                                   0 when batch 1 does not fit  */
    bool max_batch_capped;
    int64_t crossover_batch;                    /* smallest batch whose decode step
                                                   is compute-bound; 0 none up to
                                                   the cap or the max batch     */
    int32_t n_contexts, n_batches;
    int64_t contexts[OC_LLM_CONTEXTS];
    int64_t batches[OC_LLM_BATCHES];
    struct oc_llm_point sweep[OC_LLM_BATCHES][OC_LLM_CONTEXTS];
};

/* The whole view; an->model must be the analysis' model, prepared. */
enum oc_status oc_llm_view(struct oc_analysis *an, const struct oc_llm_opts *o, struct oc_llm_view *v,
                           struct oc_diag *d);

#endif
