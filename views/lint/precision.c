/*
 * precision.c — precision/cast-weights, precision/narrower-weights,
 * model/old-opset (lint.h, rules.h).
 */
#include "rules.h"

/* ---- precision/cast-weights, precision/narrower-weights, model/old-opset ------------------ */

enum oc_status oc_rule_precision(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    if (c->o->enabled[OC_LINT_CAST_WEIGHTS]) { /* Cast(float weight) to a narrower float, live */
        struct oc_lint_finding *f = NULL;
        for (int32_t s = 0; s < g->n_nodes; s++) {
            int32_t i = g->order[s];
            const struct oc_node *n = &g->nodes[i];
            if (!c->live[i] || !oc_lint_narrowing_cast(g, n))
                continue;
            const struct oc_value *w = &g->values[n->in[0]], *y = &g->values[n->out[0]];
            if (!f && !(f = oc_lint_add(c, OC_LINT_CAST_WEIGHTS, "%s", "")))
                return OC_ERR_NOMEM;
            if (!oc_lint_node(f, i) || !oc_lint_value(f, n->in[0]))
                return OC_ERR_NOMEM;
            oc_lint_node_saving(c, i, &f->saving);
            uint64_t wb = 0, yb = 0;
            if (w->n_consumers == 1 && !c->removed[n->in[0]] && oc_value_bytes_priced(g, w, &wb) &&
                oc_value_bytes_priced(g, y, &yb) &&
                wb > yb && wb - yb <= INT64_MAX) { /* stored as the compute reads it */
                oc_lint_sat_i64(&f->saving.weight_bytes, (int64_t)(wb - yb));
                c->removed[n->in[0]] = true;
            }
        }
        if (f) {
            char lab[160];
            snprintf(f->message, sizeof f->message,
                     "%d weight%s stored as %s and cast to %s on every run (first %s): store %s as %s",
                     f->n_values, f->n_values == 1 ? "" : "s", oc_dtype_name(g->values[f->values[0]].dtype),
                     oc_dtype_name(g->values[g->nodes[f->nodes[0]].out[0]].dtype),
                     oc_node_label(&g->nodes[f->nodes[0]], lab, sizeof lab), f->n_values == 1 ? "it" : "them",
                     oc_dtype_name(g->values[g->nodes[f->nodes[0]].out[0]].dtype));
        }
    }
    if (c->o->enabled[OC_LINT_NARROWER_WEIGHTS]) { /* float32 weights: what 16 and 8 bits would take */
        uint64_t n32 = 0, b32 = 0;
        int32_t count = 0;
        for (int32_t k = 0; k < g->n_inits; k++) {
            const struct oc_value *w = &g->values[g->inits[k]];
            uint64_t n = 0;
            if (w->dtype != 1 || !c->needed[g->inits[k]] || c->removed[g->inits[k]] || !oc_value_numel(w, &n) ||
                n < 2 || n > (UINT64_MAX >> 3) - n32)
                continue;
            n32 += n;
            b32 += 4 * n;
            count++;
        }
        /* --dtype prices every float at its bits: the weights are then
           already that wide, and only what is narrower still is offered */
        int32_t bits = g->price_bits > 0 ? g->price_bits : 32;
        uint64_t priced = n32 * (uint64_t)bits / 8;
        if (bits == 32 && b32 >= (1u << 20)) { /* below a MiB it is not worth a line */
            struct oc_lint_finding *f = oc_lint_add(
                c, OC_LINT_NARROWER_WEIGHTS,
                "%d float32 weights, %.2f MiB: as float16 or bfloat16 they would take %.2f MiB, as int8 %.2f MiB "
                "(quantized, with a scale per channel)",
                count, (double)b32 / 1048576.0, (double)(2 * n32) / 1048576.0, (double)n32 / 1048576.0);
            if (!f)
                return OC_ERR_NOMEM;
            f->saving.weight_bytes = 2 * n32 <= INT64_MAX ? (int64_t)(2 * n32) : INT64_MAX; /* the float16 step */
        } else if (bits > 8 && bits < 32 && priced >= (1u << 20)) {
            struct oc_lint_finding *f = oc_lint_add(
                c, OC_LINT_NARROWER_WEIGHTS,
                "%d float32 weights priced at %d bits (--dtype), %.2f MiB: as int8 they would take %.2f MiB "
                "(quantized, with a scale per channel)",
                count, (int)bits, (double)priced / 1048576.0, (double)n32 / 1048576.0);
            if (!f)
                return OC_ERR_NOMEM;
            uint64_t save = priced - n32;
            f->saving.weight_bytes = save <= INT64_MAX ? (int64_t)save : INT64_MAX;
        }
    }
    if (c->o->enabled[OC_LINT_OLD_OPSET]) {
        int64_t v = oc_graph_opset(g, "");
        if (v > 0 && v < 13 &&
            !oc_lint_add(c, OC_LINT_OLD_OPSET,
                         "the model imports the default domain at opset %lld: export at 13 or later (17 is what "
                         "current exporters write), where runtimes' fusions apply",
                         (long long)v))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}
