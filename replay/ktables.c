/*
 * ktables.c — kernel tables from replay results (see ktables.h).
 */
#include "ktables.h"

#include "../analyzer/dtype.h"
#include "../views/gpu.h"

#include <stdlib.h>
#include <string.h>

/* The table of t for (family, dtype, math), added empty when t has none. */
static struct oc_ktable *oc_ktables_slot(struct oc_ktables *t, enum oc_kfamily f, int32_t dtype, int32_t math) {
    const struct oc_ktable *found = oc_ktable_find(t, f, dtype, math);
    if (found)
        return (struct oc_ktable *)found;
    struct oc_ktable *grown = realloc(t->tables, ((size_t)t->n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    t->tables = grown;
    grown[t->n] = (struct oc_ktable){f, dtype, oc_kfamily_memory(f) ? 0 : math, 0, NULL};
    return &grown[t->n++];
}

bool oc_ktables_add_sample(struct oc_ktables *t, const struct oc_kfeat *f, int32_t dtype, int32_t math,
                           double seconds) {
    struct oc_ktable *k = oc_ktables_slot(t, f->family, dtype, math);
    struct oc_ksample *s = k ? realloc(k->samples, ((size_t)k->n + 1) * sizeof *s) : NULL;
    if (!s)
        return false;
    k->samples = s;
    s[k->n] = (struct oc_ksample){{f->x[0], f->x[1], f->x[2]}, f->work, seconds};
    k->n++;
    return true;
}

static const struct oc_node *oc_ktables_node(const struct oc_graph *g, const char *name) {
    for (int32_t i = 0; name && i < g->n_nodes; i++)
        if (g->nodes[i].name && strcmp(g->nodes[i].name, name) == 0)
            return &g->nodes[i];
    return NULL;
}

enum oc_status oc_ktables_add_file(struct oc_ktables *t, const struct oc_rp_file *f, const struct oc_analysis *an,
                                   struct oc_ktables_added *added) {
    /* the replay's --math (fp32, tf32, fp16) as the performance model's */
    static const enum oc_math maths[3] = {OC_MATH_FP32, OC_MATH_TF32, OC_MATH_FP16};
    int32_t math = (int32_t)maths[f->math >= 0 && f->math < 3 ? f->math : 0];
    for (int32_t i = 0; i < f->n_nodes; i++) {
        const struct oc_rp_file_node *rn = &f->nodes[i];
        if (!rn->measured || !(rn->time_ns > 0))
            continue;
        if (rn->overhead) {
            added->overhead++;
            continue;
        }
        const struct oc_node *n = oc_ktables_node(an->graph, rn->name);
        if (!n) {
            added->not_found++;
            continue;
        }
        struct oc_kfeat feat;
        oc_kernel_features(an->graph, n, &feat);
        int32_t dt = rn->dtype;
        if (feat.family == OC_KF_NONE || (dt != OC_DT_FLOAT && dt != OC_DT_FLOAT16 && dt != OC_DT_BFLOAT16)) {
            added->no_family++;
            continue;
        }
        if (!oc_ktables_add_sample(t, &feat, dt, math, rn->time_ns * 1e-9))
            return OC_ERR_NOMEM;
        added->added++;
    }
    return OC_OK;
}
