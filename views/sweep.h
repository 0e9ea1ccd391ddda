/*
 * sweep.h — the analysis over a grid of bindings (onnxcost sweep).
 *
 * The model is parsed once; each point of the cartesian product of the
 * given values is analyzed with those bindings, keeping its totals. Rows
 * come in order with the last dim varying fastest.
 */
#ifndef OC_SWEEP_H
#define OC_SWEEP_H

#include "../analyzer/analyze.h"
#include "perf/capacity.h"
#include "perf/perf.h"

enum { OC_SWEEP_MAX_DIMS = 8 };

struct oc_sweep_dim {
    const char *name;
    int32_t n_values;
    const int64_t *values;
};

/* Predictions per point (onnxcost sweep --gpu): the device, the model's
 * options, and with fit the memory each point needs against usable. */
struct oc_sweep_gpu {
    const struct oc_gpu *gpu;
    struct oc_perf_opts opts;
    bool fit;
    uint64_t reserve;                  /* kept back on the device          */
    uint64_t usable;                   /* device memory - reserve (0 when
                                          the reserve is larger)           */
};
struct oc_sweep_perf {
    double time;                       /* predicted seconds (oc_perf)      */
    double samples_per_s, tokens_per_s; /* 0 when unknown                  */
    int32_t n_untimed;                 /* nodes without a cost             */
    uint64_t need;                     /* with fit: inference memory       */
    enum oc_fit_verdict fit;           /* with fit: need against usable    */
};
struct oc_sweep_row {
    int64_t values[OC_SWEEP_MAX_DIMS]; /* the binding of each swept dim   */
    enum oc_status status;             /* OC_OK, or why this point failed */
    char reason[512];                  /* the analysis error of a failed point */
    struct oc_totals totals;
    struct oc_sweep_perf perf;         /* with an oc_sweep_gpu              */
};

/* Called after each point (the library never prints: the caller may). */
typedef void (*oc_progress_fn)(void *arg, int64_t done, int64_t total);

/* Runs the grid; rows are malloc'd (free with free()). base may bind other
 * dims (they apply to every point). A point where the model is invalid
 * gets its status and reason; the sweep goes on. gpu (or NULL) adds the
 * predictions of each point. Bit i of *absent (may be NULL) is set when
 * dims[i] names no symbolic dim of the inputs: its values change nothing.
 * progress may be NULL. */
enum oc_status oc_sweep_run(const struct oc_model *m, const struct oc_analyze_opts *base, const struct oc_sweep_gpu *gpu,
                            const struct oc_sweep_dim *dims, int32_t n_dims, struct oc_sweep_row **rows,
                            int32_t *n_rows, uint32_t *absent, oc_progress_fn progress, void *progress_arg,
                            struct oc_diag *d);

#endif
