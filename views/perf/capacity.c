/*
 * capacity.c — does a model fit in a device's memory, and the largest
 * batch that does (capacity.h, docs/MODEL.md "--fit").
 */
#include "capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t oc_fit_need_inference(const struct oc_analysis *an) {
    /* every initializer: quantized weights are not float parameters but
       occupy the device all the same */
    uint64_t w = an->totals.initializer_bytes, s = w + an->totals.peak_activation_bytes;
    return s < w ? UINT64_MAX : s;
}

enum oc_status oc_fit_need(const struct oc_analysis *an, bool training, enum oc_optimizer opt, unsigned saved_rules,
                           uint64_t *need, bool *exact, struct oc_diag *d) {
    bool ex = oc_totals_exact(&an->totals) && an->totals.peak_complete;
    *need = oc_fit_need_inference(an);
    if (training) {
        struct oc_training tr;
        oc_training_estimate(an, opt, 0, saved_rules, &tr);
        if (tr.out_of_memory)
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        *need = tr.total_bytes;
        ex = ex && tr.complete;
    }
    if (exact)
        *exact = ex;
    return OC_OK;
}

enum oc_fit_verdict oc_fit_verdict(uint64_t need, bool need_exact, uint64_t usable) {
    return need > usable ? OC_FIT_NO : need_exact ? OC_FIT_YES : OC_FIT_MAYBE;
}

/* Need at one batch size; *work is the analysis the probes share (built by
 * the first, re-run by the others, so the graph is decoded once). */
static enum oc_status oc_fit_probe(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                   enum oc_optimizer opt, unsigned saved_rules, int64_t batch, uint64_t *need, struct oc_analysis **work,
                                   struct oc_diag *d) {
    struct oc_analyze_opts o = *base;
    o.batch = batch;
    enum oc_status st = *work ? OC_OK : oc_analysis_prepare(m, &o, work, d);
    if (st == OC_OK)
        st = oc_analysis_rerun(*work, &o, d);
    if (st == OC_OK)
        st = oc_fit_need(*work, training, opt, saved_rules, need, NULL, d);
    return st;
}

static enum oc_status oc_fit_search(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                enum oc_optimizer opt, unsigned saved_rules, uint64_t usable, int64_t *max_batch, bool *capped,
                                struct oc_analysis **w, struct oc_diag *d) {
    uint64_t n1, n2, need;
    *max_batch = 0;
    *capped = false;
    enum oc_status st = oc_fit_probe(m, base, training, opt, saved_rules, 1, &n1, w, d);
    if (st == OC_OK)
        st = oc_fit_probe(m, base, training, opt, saved_rules, 2, &n2, w, d);
    if (st != OC_OK)
        return st;
    if (n1 == n2) {
        *max_batch = -1;
        return OC_OK;
    }
    if (n1 > usable)
        return OC_OK;
    int64_t lo = 1, hi = 2; /* lo fits; hi is the next probe */
    while (hi <= OC_FIT_BATCH_CAP) {
        if ((st = oc_fit_probe(m, base, training, opt, saved_rules, hi, &need, w, d)) != OC_OK)
            return st;
        if (need > usable)
            break;
        lo = hi;
        hi *= 2;
    }
    if (hi > OC_FIT_BATCH_CAP) {
        *max_batch = lo;
        *capped = true;
        return OC_OK;
    }
    while (hi - lo > 1) { /* lo fits, hi does not */
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = oc_fit_probe(m, base, training, opt, saved_rules, mid, &need, w, d)) != OC_OK)
            return st;
        if (need > usable)
            hi = mid;
        else
            lo = mid;
    }
    *max_batch = lo;
    return OC_OK;
}

enum oc_status oc_fit_max_batch(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                enum oc_optimizer opt, unsigned saved_rules, uint64_t usable, int64_t *max_batch, bool *capped,
                                struct oc_diag *d) {
    struct oc_analysis *work = NULL;
    enum oc_status st = oc_fit_search(m, base, training, opt, saved_rules, usable, max_batch, capped, &work, d);
    oc_analysis_free(work);
    return st;
}

uint64_t oc_gpu_usable(const struct oc_gpu *gpu, uint64_t reserve) {
    return gpu->mem_bytes > reserve ? gpu->mem_bytes - reserve : 0;
}

enum oc_status oc_fit_compute(const struct oc_model *m, const struct oc_analyze_opts *opts,
                              const struct oc_analysis *an, const struct oc_gpu *gpu, bool training,
                              enum oc_optimizer opt, unsigned saved_rules, unsigned suggested_rules, uint64_t reserve,
                              struct oc_fit *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    out->training = training;
    out->reserve = reserve;
    out->usable = oc_gpu_usable(gpu, reserve);
    enum oc_status st = oc_fit_need(an, training, opt, saved_rules, &out->need, &out->need_exact, d);
    if (st != OC_OK)
        return st;
    st = oc_fit_max_batch(m, opts, training, opt, saved_rules, out->usable, &out->max_batch, &out->max_batch_capped, d);
    if (st != OC_OK || !training || !(suggested_rules & ~saved_rules))
        return st;
    unsigned rules = saved_rules | suggested_rules;
    out->alt_rules = suggested_rules & ~saved_rules;
    if ((st = oc_fit_need(an, training, opt, rules, &out->alt_need, &out->alt_need_exact, d)) != OC_OK)
        return st;
    return oc_fit_max_batch(m, opts, training, opt, rules, out->usable, &out->alt_max_batch, &out->alt_max_batch_capped,
                            d);
}
