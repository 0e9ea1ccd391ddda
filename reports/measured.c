/*
 * measured.c — `--measured PROFILE.json`: ONNX Runtime's times beside the
 * analysis (views/measure.h), as a text section and JSON members.
 */
#include "report_impl.h"

#include "../views/measure.h"

#include <jansson.h>

void oc_measured_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_measured *m = spec->measured;
    const struct oc_profile *p = m->profile;
    oc_sbuf_printf(b, "Measured by ONNX Runtime (%s) in %s, %d run%s:\n", p->providers, p->path, m->runs,
                   m->runs == 1 ? "" : "s");
    if (m->runs)
        oc_sbuf_printf(b, "  end to end (ms): %.3f median (p10 %.3f, p90 %.3f)\n", m->run_median_us / 1e3,
                       m->run_p10_us / 1e3, m->run_p90_us / 1e3);
    else
        oc_sbuf_puts(b, "  end to end: no model_run event in the profile\n");
    oc_sbuf_printf(b, "  sum of node medians (ms): %.3f over %d of %d nodes of this model\n", m->sum_median_us / 1e3,
                   m->n_matched, an->graph->n_nodes);
    if (m->n_unmatched)
        oc_sbuf_printf(b,
                       "  %d node%s of the profile %s not in this model (first: '%s'): analyze the graph ONNX Runtime "
                       "ran, which SessionOptions.optimized_model_filepath saves\n",
                       m->n_unmatched, m->n_unmatched == 1 ? "" : "s", m->n_unmatched == 1 ? "is" : "are",
                       m->first_unmatched);
    if (m->n_unmeasured)
        oc_sbuf_printf(b, "  %d node%s of this model with a kernel %s no event in the profile\n", m->n_unmeasured,
                       m->n_unmeasured == 1 ? "" : "s", m->n_unmeasured == 1 ? "has" : "have");
}

struct json_t *oc_measured_json_node(const struct oc_measured *m, int32_t node) {
    const struct oc_measured_node *mn = &m->nodes[node];
    if (!mn->runs)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "median_us", json_real(mn->median_us));
    json_object_set_new(o, "p10_us", json_real(mn->p10_us));
    json_object_set_new(o, "p90_us", json_real(mn->p90_us));
    json_object_set_new(o, "runs", json_integer(mn->runs));
    return o;
}

struct json_t *oc_measured_json(const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_measured *m = spec->measured;
    const struct oc_profile *p = m->profile;
    json_t *o = json_object();
    json_object_set_new(o, "profile", oc_jstr(p->path));
    json_object_set_new(o, "providers", oc_jstr(p->providers));
    json_object_set_new(o, "runs", json_integer(m->runs));
    if (m->runs) {
        json_t *e = json_object();
        json_object_set_new(e, "median", json_real(m->run_median_us / 1e3));
        json_object_set_new(e, "p10", json_real(m->run_p10_us / 1e3));
        json_object_set_new(e, "p90", json_real(m->run_p90_us / 1e3));
        json_object_set_new(o, "end_to_end_ms", e);
    } else {
        json_object_set_new(o, "end_to_end_ms", json_null());
    }
    json_object_set_new(o, "sum_of_node_medians_ms", json_real(m->sum_median_us / 1e3));
    json_object_set_new(o, "nodes", json_integer(an->graph->n_nodes));
    json_object_set_new(o, "nodes_matched", json_integer(m->n_matched));
    json_object_set_new(o, "profile_nodes_not_in_model", json_integer(m->n_unmatched));
    json_object_set_new(o, "first_not_in_model", m->n_unmatched ? oc_jstr(m->first_unmatched) : json_null());
    json_object_set_new(o, "nodes_with_kernel_not_measured", json_integer(m->n_unmeasured));
    return o;
}
