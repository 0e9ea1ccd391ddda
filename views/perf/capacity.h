/*
 * capacity.h — memory against a device: what a binding needs (inference or
 * a training step), whether it fits, and the largest batch that does
 * (docs/MODEL.md "--fit").
 */
#ifndef OC_PERF_CAPACITY_H
#define OC_PERF_CAPACITY_H

#include "../training.h"
#include "device.h"

/* Memory needed at the analyzed binding: inference = every initializer
 * (float parameters and quantized weights alike) + peak activations
 * (liveness); training = training.h's total. */
uint64_t oc_fit_need_inference(const struct oc_analysis *an);
/* The memory a binding needs: training (with optimizer opt) or inference;
 * *exact (may be NULL) false when it is a lower bound (nodes without a
 * cost, tensors of unknown size: oc_totals_exact, the peak's completeness,
 * the training estimate's); in *need, OC_ERR_NOMEM (said in d, which may
 * be NULL) when out of memory. */
enum oc_status oc_fit_need(const struct oc_analysis *an, bool training, enum oc_optimizer opt, unsigned saved_rules,
                           uint64_t *need, bool *exact, struct oc_diag *d);
/* Whether a need fits in usable bytes: a need that is a lower bound proves
 * only that it does not fit. */
enum oc_fit_verdict { OC_FIT_NO, OC_FIT_YES, OC_FIT_MAYBE };
enum oc_fit_verdict oc_fit_verdict(uint64_t need, bool need_exact, uint64_t usable);
/* Largest --batch (1 .. cap) whose need is <= usable, re-analysing the
 * model per probe (doubling, then bisection; need grows with the batch).
 * *max_batch = 0 when batch 1 does not fit, -1 when the need does not
 * change with --batch (no free batch dim); *capped when cap still fits. */
enum { OC_FIT_BATCH_CAP = 1 << 20 };
enum oc_status oc_fit_max_batch(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                enum oc_optimizer opt, unsigned saved_rules, uint64_t usable, int64_t *max_batch, bool *capped,
                                struct oc_diag *d);

/* --fit: memory against the device (docs/MODEL.md). */
struct oc_fit {
    bool training;          /* the need is a training step's (--optimizer)   */
    uint64_t need;          /* bytes at the analyzed binding                 */
    bool need_exact;        /* false: need is a lower bound, so "fits" is a
                               maybe and max_batch an upper bound            */
    uint64_t reserve;       /* kept back for the CUDA context and workspaces */
    uint64_t usable;        /* device memory - reserve                       */
    int64_t max_batch;      /* largest --batch that fits; 0 none; -1 unknown
                               (the model has no free batch dim)             */
    bool max_batch_capped;  /* the search stopped at its cap: at least this  */
    /* training: the same with every rule the export's signs suggest added
       (struct oc_export_signs); alt_rules 0 when there is none */
    unsigned alt_rules;     /* the enum oc_saved_rule bits added             */
    uint64_t alt_need;
    bool alt_need_exact;
    int64_t alt_max_batch;
    bool alt_max_batch_capped;
};
/* The device's memory less reserve (0 when the reserve is larger). */
uint64_t oc_gpu_usable(const struct oc_gpu *gpu, uint64_t reserve);
/* need at the analyzed binding (training with opt, or inference) against
 * the device's memory minus reserve, and the largest batch that fits
 * (oc_fit_max_batch); training with suggested_rules (the export's signs,
 * oc_training_signs), both again with those rules added (alt_*). */
enum oc_status oc_fit_compute(const struct oc_model *m, const struct oc_analyze_opts *opts,
                              const struct oc_analysis *an, const struct oc_gpu *gpu, bool training,
                              enum oc_optimizer opt, unsigned saved_rules, unsigned suggested_rules, uint64_t reserve,
                              struct oc_fit *out, struct oc_diag *d);

#endif
