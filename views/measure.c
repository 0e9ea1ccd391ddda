/*
 * measure.c — an ONNX Runtime profile joined to an analysis (measure.h).
 */
#include "measure.h"

#include "../analyzer/stats.h"

#include <stdlib.h>
#include <string.h>

void oc_profile_free(struct oc_profile *p) {
    for (int32_t i = 0; i < p->n_nodes; i++) {
        free(p->nodes[i].name);
        free(p->nodes[i].op);
        free(p->nodes[i].provider);
        free(p->nodes[i].dur_us);
        free(p->nodes[i].ts_us);
    }
    free(p->nodes);
    free(p->run_us);
    free(p->run_ts_us);
    free(p->providers);
    free(p->path);
    free(p->run.version);
    free(p->run.opt_level);
    free(p->run.cpu);
    free(p->run.model);
    free(p->run.stopped);
    memset(p, 0, sizeof *p);
}

/* median, p10 and p90 of one node's durations (copied: the profile stays in
   file order) */
static bool oc_measure_stats(const double *d, int32_t n, double *median, double *p10, double *p90) {
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    if (!x)
        return false;
    memcpy(x, d, (size_t)n * sizeof *x);
    double min;
    oc_summarize(x, n, median, p10, p90, &min);
    free(x);
    return true;
}

int32_t oc_measure_quiet_runs(const double *run_us, int32_t n, bool *quiet) {
    if (n < 1)
        return 0;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return -1;
    memcpy(s, run_us, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, oc_cmp_double);
    double level = s[n / 8] * (1 + OC_MEASURE_QUIET_BAND);
    free(s);
    int32_t q = 0;
    for (int32_t i = 0; i < n; i++)
        q += quiet[i] = run_us[i] <= level;
    return q;
}

/* The quiet runs' spans in time, sorted by start, for placing node events. */
struct oc_quiet_spans {
    struct oc_span {
        double start, end;
        bool quiet;
    } *at;
    int32_t n;
};

static int oc_cmp_span(const void *a, const void *b) {
    return oc_cmp_double(&((const struct oc_span *)a)->start, &((const struct oc_span *)b)->start);
}

/* whether an event starting at ts lies in a quiet run: 1, in another run: 0,
   in none (or no time): -1 */
static int oc_quiet_at(const struct oc_quiet_spans *q, double ts) {
    if (ts < 0 || q->n == 0)
        return -1;
    int32_t lo = 0, hi = q->n - 1, at = -1;
    while (lo <= hi) { /* the last run starting at or before ts */
        int32_t mid = lo + (hi - lo) / 2;
        if (q->at[mid].start <= ts)
            at = mid, lo = mid + 1;
        else
            hi = mid - 1;
    }
    return at >= 0 && ts <= q->at[at].end ? q->at[at].quiet : -1;
}

struct oc_named {
    const char *name;
    int32_t node;
};

static int oc_cmp_named(const void *a, const void *b) {
    return strcmp(((const struct oc_named *)a)->name, ((const struct oc_named *)b)->name);
}

/* the profile's events of p into graph node `at`: those of the quiet runs
   (all of them where none lies in a run) */
static bool oc_measure_take(struct oc_measured *out, const struct oc_quiet_spans *q, int32_t at,
                            const struct oc_profile_node *pn) {
    struct oc_measured_node *m = &out->nodes[at];
    double *d = malloc((size_t)(pn->n > 0 ? pn->n : 1) * sizeof *d);
    if (!d)
        return false;
    int32_t k = 0;
    for (int32_t i = 0; i < pn->n; i++)
        if (oc_quiet_at(q, pn->ts_us ? pn->ts_us[i] : -1) == 1)
            d[k++] = pn->dur_us[i];
    if (k == 0) {
        memcpy(d, pn->dur_us, (size_t)pn->n * sizeof *d);
        k = pn->n;
    }
    m->runs = k;
    bool ok = oc_measure_stats(d, k, &m->median_us, &m->p10_us, &m->p90_us);
    free(d);
    if (!ok)
        return false;
    out->n_matched++;
    out->sum_median_us += m->median_us;
    return true;
}

static bool oc_measure_unnamed(const struct oc_node *nd) { return !nd->name || !nd->name[0]; }

/* an op type and where its entry is (an index), ordered by op then index */
struct oc_opkey {
    const char *op;
    int32_t at;
};

static int oc_cmp_opkey(const void *pa, const void *pb) {
    const struct oc_opkey *a = pa, *b = pb;
    int c = strcmp(a->op, b->op);
    return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* "<op_type>_<digits>": the name ONNX Runtime gives a node without one */
static bool oc_measure_index_name(const struct oc_profile_node *pn) {
    size_t n = strlen(pn->op);
    if (strncmp(pn->name, pn->op, n) != 0 || pn->name[n] != '_' || !pn->name[n + 1])
        return false;
    for (const char *c = pn->name + n + 1; *c; c++)
        if (*c < '0' || *c > '9')
            return false;
    return true;
}

static enum oc_status oc_measure_join_in(const struct oc_analysis *an, const struct oc_profile *p,
                                         const struct oc_quiet_spans spans, struct oc_measured *out) {
    const struct oc_graph *g = an->graph;
    out->profile = p;
    out->n_nodes = g->n_nodes;
    out->nodes = calloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1), sizeof *out->nodes);
    struct oc_named *by_name = malloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1) * sizeof *by_name);
    int32_t *unmatched = malloc((size_t)(p->n_nodes > 0 ? p->n_nodes : 1) * sizeof *unmatched), n_unmatched = 0;
    if (!out->nodes || !by_name || !unmatched) {
        free(unmatched);
        free(by_name);
        oc_measured_free(out);
        return OC_ERR_NOMEM;
    }
    for (int32_t i = 0; i < g->n_nodes; i++)
        by_name[i] = (struct oc_named){g->nodes[i].name ? g->nodes[i].name : "", i};
    qsort(by_name, (size_t)g->n_nodes, sizeof *by_name, oc_cmp_named);
    for (int32_t k = 0; k < p->n_nodes; k++) {
        const struct oc_profile_node *pn = &p->nodes[k];
        int32_t lo = 0, hi = g->n_nodes - 1, at = -1;
        while (lo <= hi) {
            int32_t mid = lo + (hi - lo) / 2;
            int c = strcmp(by_name[mid].name, pn->name);
            if (c == 0) {
                at = by_name[mid].node;
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        if (at < 0 || !pn->name[0]) {
            unmatched[n_unmatched++] = k;
            continue;
        }
        if (out->nodes[at].runs) /* two profile entries for one name: not the graph ONNX Runtime named */
            continue;
        if (!oc_measure_take(out, &spans, at, pn)) {
            free(by_name);
            free(unmatched);
            oc_measured_free(out);
            return OC_ERR_NOMEM;
        }
    }
    free(by_name);
    /* Nodes without a name: ONNX Runtime's profile calls them <op_type>_<its
       node index>, which the saved file does not keep. Per op type, when the
       profile has exactly as many such names left over as the graph has
       unnamed nodes, they pair in order (the profile lists nodes in execution
       order, the saved graph is in topological order). Both sides are
       sorted by op type once, so a profile of many names the model lacks
       costs n log n, not n^2 (400,000 once ran for 14 minutes). */
    struct oc_opkey *pk = malloc((size_t)(n_unmatched > 0 ? n_unmatched : 1) * sizeof *pk);
    struct oc_opkey *gk = malloc((size_t)(g->n_nodes > 0 ? g->n_nodes : 1) * sizeof *gk);
    int32_t np = 0, ng = 0;
    if (!pk || !gk) {
        free(pk);
        free(gk);
        free(unmatched);
        oc_measured_free(out);
        return OC_ERR_NOMEM;
    }
    for (int32_t u = 0; u < n_unmatched; u++)
        if (oc_measure_index_name(&p->nodes[unmatched[u]]))
            pk[np++] = (struct oc_opkey){p->nodes[unmatched[u]].op, u};
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (oc_measure_unnamed(&g->nodes[i]) && !out->nodes[i].runs)
            gk[ng++] = (struct oc_opkey){g->nodes[i].op_type, i};
    qsort(pk, (size_t)np, sizeof *pk, oc_cmp_opkey);
    qsort(gk, (size_t)ng, sizeof *gk, oc_cmp_opkey);
    for (int32_t a = 0, b = 0; a < np;) {
        int32_t a1 = a, b1;
        while (a1 < np && strcmp(pk[a1].op, pk[a].op) == 0)
            a1++;
        while (b < ng && strcmp(gk[b].op, pk[a].op) < 0)
            b++;
        for (b1 = b; b1 < ng && strcmp(gk[b1].op, pk[a].op) == 0;)
            b1++;
        if (a1 - a == b1 - b) /* as many of this op on each side: in order */
            for (int32_t k = 0; k < a1 - a; k++) {
                if (!oc_measure_take(out, &spans, gk[b + k].at, &p->nodes[unmatched[pk[a + k].at]])) {
                    free(pk);
                    free(gk);
                    free(unmatched);
                    oc_measured_free(out);
                    return OC_ERR_NOMEM;
                }
                unmatched[pk[a + k].at] = -1;
            }
        a = a1;
        b = b1;
    }
    free(pk);
    free(gk);
    for (int32_t u = 0; u < n_unmatched; u++)
        if (unmatched[u] >= 0 && !out->n_unmatched++)
            out->first_unmatched = p->nodes[unmatched[u]].name;
    free(unmatched);
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node *nd = &g->nodes[i];
        if (!out->nodes[i].runs && (nd->cost.flops > 0 || nd->cost.bytes_read + nd->cost.bytes_written > 0))
            out->n_unmeasured++;
    }
    /* the arena, where the profile is the CPU execution provider's alone */
    if (p->providers && strcmp(p->providers, "CPUExecutionProvider") == 0) {
        int64_t t = p->run.threads > 0 ? p->run.threads : p->run.cpu_count > 0 ? p->run.cpu_count : 1;
        out->arena_threads = t > 1024 ? 1024 : (int32_t)t;
        if (oc_ort_arena_simulate(g, out->arena_threads, &out->arena) != OC_OK) {
            oc_measured_free(out);
            return OC_ERR_NOMEM;
        }
        out->arena_simulated = true;
    }
    return OC_OK;
}

enum oc_status oc_measure_join(const struct oc_analysis *an, const struct oc_profile *p, struct oc_measured *out) {
    memset(out, 0, sizeof *out);
    int32_t n = p->n_runs;
    bool *quiet = malloc((size_t)(n > 0 ? n : 1) * sizeof *quiet);
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    struct oc_quiet_spans spans = {malloc((size_t)(n > 0 ? n : 1) * sizeof *spans.at), 0};
    int32_t q = quiet && d && spans.at ? oc_measure_quiet_runs(p->run_us, n, quiet) : -1;
    enum oc_status st = q < 0 ? OC_ERR_NOMEM : OC_OK;
    for (int32_t i = 0; st == OC_OK && i < n; i++) /* the runs with a start, for placing node events */
        if (p->run_ts_us && p->run_ts_us[i] >= 0)
            spans.at[spans.n++] = (struct oc_span){p->run_ts_us[i], p->run_ts_us[i] + p->run_us[i], quiet[i]};
    qsort(spans.at, (size_t)spans.n, sizeof *spans.at, oc_cmp_span);
    if (st == OC_OK)
        st = oc_measure_join_in(an, p, spans, out);
    if (st == OC_OK && n) { /* end to end: the quiet runs', and every run's median beside it */
        double p10, p90;
        int32_t k = 0;
        for (int32_t i = 0; i < n; i++)
            if (quiet[i])
                d[k++] = p->run_us[i];
        out->runs = n;
        out->quiet_runs = k;
        if (!oc_measure_stats(d, k, &out->run_median_us, &out->run_p10_us, &out->run_p90_us) ||
            !oc_measure_stats(p->run_us, n, &out->all_runs_median_us, &p10, &p90))
            st = OC_ERR_NOMEM;
        out->load_ratio = out->run_median_us > 0 ? out->all_runs_median_us / out->run_median_us : 1;
        if (st != OC_OK)
            oc_measured_free(out);
    }
    free(quiet);
    free(d);
    free(spans.at);
    return st;
}

void oc_measured_free(struct oc_measured *m) {
    free(m->nodes);
    memset(m, 0, sizeof *m);
}
