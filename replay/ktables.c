/*
 * ktables.c — kernel tables from replay results (see ktables.h).
 */
#include "ktables.h"

#include "../analyzer/dtype.h"
#include "../views/perf/perf.h"

#include <stdlib.h>
#include <string.h>

/* The table of t for (family, dtype, math, op), added empty when t has none. */
static struct oc_ktable *oc_ktables_slot(struct oc_ktables *t, enum oc_kfamily f, int32_t dtype, int32_t math,
                                         const char *op, int32_t threads) {
    const struct oc_ktable *found = oc_ktable_find(t, f, dtype, math, op, threads);
    if (found)
        return (struct oc_ktable *)found;
    char *op_copy = op ? strdup(op) : NULL;
    struct oc_ktable *grown = op && !op_copy ? NULL : realloc(t->tables, ((size_t)t->n + 1) * sizeof *grown);
    if (!grown) {
        free(op_copy);
        return NULL;
    }
    t->tables = grown;
    grown[t->n] = (struct oc_ktable){f, dtype, oc_kfamily_memory(f) ? 0 : math, op_copy, threads, 0, NULL, 0};
    return &grown[t->n++];
}

bool oc_ktables_add_sample(struct oc_ktables *t, const struct oc_kfeat *f, int32_t dtype, int32_t math,
                           int32_t threads, double seconds) {
    struct oc_ktable *k =
        oc_ktables_slot(t, f->family, dtype, math, oc_kfamily_memory(f->family) ? f->op : NULL, threads);
    struct oc_ksample *s = k ? realloc(k->samples, ((size_t)k->n + 1) * sizeof *s) : NULL;
    if (!s)
        return false;
    k->samples = s;
    s[k->n] = (struct oc_ksample){{f->x[0], f->x[1], f->x[2]}, f->work, seconds};
    k->n++;
    return true;
}

/* the replay's --math (enum oc_rp_math_mode) as the performance model's */
static int32_t oc_ktables_math(int32_t rp_math) {
    static const enum oc_math maths[3] = {OC_MATH_FP32, OC_MATH_TF32, OC_MATH_FP16};
    return (int32_t)maths[rp_math >= 0 && rp_math < 3 ? rp_math : 0];
}

/* One measured node n (NULL: not in the analysis) as a sample. On a CPU
   (threads > 0) a convolution's work is the share of its MACs the CPU's
   kernel runs (oc_perf_conv_cpu_share at pad_path), as a prediction takes it. */
static bool oc_ktables_add_node(struct oc_ktables *t, const struct oc_graph *g, bool nchwc_graph,
                                const struct oc_node *n, bool overhead, int32_t dt, int32_t math, int32_t threads,
                                double pad_path, double seconds, struct oc_ktables_added *added) {
    if (overhead) {
        added->overhead++;
        return true;
    }
    if (!n) {
        added->not_found++;
        return true;
    }
    struct oc_kfeat feat;
    oc_kernel_features(g, n, nchwc_graph, &feat);
    if (feat.family == OC_KF_NONE || (dt != OC_DT_FLOAT && dt != OC_DT_FLOAT16 && dt != OC_DT_BFLOAT16)) {
        added->no_family++;
        return true;
    }
    if (threads > 0)
        feat.work *= oc_perf_conv_cpu_share(g, n, pad_path);
    if (!oc_ktables_add_sample(t, &feat, dt, math, threads, seconds))
        return false;
    added->added++;
    return true;
}

enum oc_status oc_ktables_add_file(struct oc_ktables *t, const struct oc_rp_file *f, const struct oc_analysis *an,
                                   double pad_path, struct oc_ktables_added *added) {
    int32_t math = oc_ktables_math(f->math);
    const bool nchwc = oc_graph_nchwc(an->graph);
    for (int32_t i = 0; i < f->n_nodes; i++) {
        const struct oc_rp_file_node *rn = &f->nodes[i];
        if (rn->measured && rn->time_ns > 0 &&
            !oc_ktables_add_node(t, an->graph, nchwc, oc_graph_node_named(an->graph, rn->name), rn->overhead, rn->dtype,
                                 math, f->threads, pad_path, rn->time_ns * 1e-9, added))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}

enum oc_status oc_ktables_add_results(struct oc_ktables *t, const struct oc_analysis *an,
                                      const struct oc_rp_plan *plans, const struct oc_rp_result *results, int32_t n,
                                      int32_t dtype, int32_t rp_math, struct oc_ktables_added *added) {
    const struct oc_graph *g = an->graph;
    const bool nchwc = oc_graph_nchwc(g);
    for (int32_t i = 0; i < n; i++) {
        const struct oc_rp_result *r = &results[i];
        const struct oc_node *node = plans[i].node >= 0 && plans[i].node < g->n_nodes ? &g->nodes[plans[i].node]
                                                                                       : NULL;
        if (r->status == OC_RPS_MEASURED && r->time_median_ns > 0 &&
            !oc_ktables_add_node(t, g, nchwc, node, r->overhead, dtype, oc_ktables_math(rp_math), 0, 0,
                                 r->time_median_ns * 1e-9, added))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}
