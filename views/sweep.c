/*
 * sweep.c — analysis over a grid of bindings (see sweep.h).
 */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum oc_status oc_sweep_predict(const struct oc_analysis *an, const struct oc_sweep_gpu *gpu,
                                       struct oc_sweep_perf *out) {
    struct oc_perf p;
    if (oc_perf_estimate(an, gpu->gpu, &gpu->opts, &p) != OC_OK)
        return OC_ERR_NOMEM;
    *out = (struct oc_sweep_perf){p.time, p.samples_per_s, p.tokens_per_s, p.n_unknown, 0, OC_FIT_NO};
    if (gpu->fit) {
        bool exact;
        if (oc_fit_need(an, false, OC_OPT_SGD, 0, &out->need, &exact, NULL) != OC_OK) {
            oc_perf_free(&p);
            return OC_ERR_NOMEM;
        }
        out->fit = oc_fit_verdict(out->need, exact, gpu->usable);
    }
    oc_perf_free(&p);
    return OC_OK;
}

enum oc_status oc_sweep_run(const struct oc_model *m, const struct oc_analyze_opts *base, const struct oc_sweep_gpu *gpu,
                            const struct oc_sweep_dim *dims, int32_t n_dims, struct oc_sweep_row **rows,
                            int32_t *n_rows, uint32_t *absent, oc_progress_fn progress, void *progress_arg,
                            struct oc_diag *d) {
    static const struct oc_analyze_opts none;
    if (!base)
        base = &none;
    *rows = NULL;
    *n_rows = 0;
    if (absent)
        *absent = 0;
    if (n_dims < 1 || n_dims > OC_SWEEP_MAX_DIMS)
        return oc_diag_set(d, OC_ERR_USAGE, "sweep 1 to %d dims", OC_SWEEP_MAX_DIMS);
    int64_t total = 1;
    for (int32_t i = 0; i < n_dims; i++) {
        if (dims[i].n_values < 1 || oc_mul_i64(total, dims[i].n_values, &total) || total > 100000)
            return oc_diag_set(d, OC_ERR_USAGE, "a sweep takes 1 to 100,000 points");
    }
    struct oc_sweep_row *out = calloc((size_t)total, sizeof *out);
    struct oc_binding *b = calloc((size_t)base->n_dims + (size_t)n_dims + 1, sizeof *b);
    if (!out || !b) {
        free(out);
        free(b);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    /* the graph is decoded and validated once, and each point re-runs it; a
     * file invalid whatever the bindings is an error, not a table of them */
    struct oc_analysis *an = NULL;
    enum oc_status st = oc_analysis_prepare(m, base, &an, d);
    if (st != OC_OK) {
        free(out);
        free(b);
        return st;
    }
    for (int64_t p = 0; p < total; p++) {
        struct oc_sweep_row *row = &out[p];
        int32_t nb = 0;
        for (int32_t i = 0; i < base->n_dims; i++)
            b[nb++] = base->dims[i];
        for (int32_t i = n_dims - 1, q = (int32_t)p; i >= 0; i--) { /* last dim fastest */
            row->values[i] = dims[i].values[q % dims[i].n_values];
            q /= dims[i].n_values;
        }
        for (int32_t i = 0; i < n_dims; i++)
            b[nb++] = (struct oc_binding){dims[i].name, row->values[i]};
        struct oc_analyze_opts o = *base;
        o.dims = b;
        o.n_dims = nb;
        struct oc_diag pd = {0};
        row->status = oc_analysis_rerun(an, &o, &pd);
        for (int32_t i = 0; row->status == OC_OK && p == 0 && absent && i < n_dims; i++) {
            bool found = false; /* a dim no input has gives equal rows */
            for (int32_t k = 0; k < an->n_bound && !found; k++)
                found = an->bound[k].name && strcmp(an->bound[k].name, dims[i].name) == 0;
            *absent |= found ? 0u : 1u << i;
        }
        if (row->status == OC_OK) {
            row->totals = an->totals;
            if (gpu)
                row->status = oc_sweep_predict(an, gpu, &row->perf);
        } else
            snprintf(row->reason, sizeof row->reason, "%s", pd.msg);
        if (progress)
            progress(progress_arg, p + 1, total);
        if (row->status == OC_ERR_NOMEM) {
            oc_analysis_free(an);
            free(out);
            free(b);
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        }
    }
    oc_analysis_free(an);
    free(b);
    *rows = out;
    *n_rows = (int32_t)total;
    return OC_OK;
}
