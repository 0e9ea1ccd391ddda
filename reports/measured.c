/*
 * measured.c — `--measured PROFILE.json`: ONNX Runtime's times beside the
 * analysis (views/measure.h), as a text section and JSON members.
 */
#include "report_impl.h"

#include "../views/measure.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>

/* How steady the runs were: the passes' spread, and whether --reps auto
   found the median stable or ran out of time. */
static void oc_measured_spread_text(struct oc_sbuf *b, const struct oc_profile_run *r) {
    if (!r->present || !r->passes)
        return;
    oc_sbuf_printf(b, "; %" PRId64 " pass%s, the median one %.2fx and the slowest %.2fx the fastest%s", r->passes,
                   r->passes == 1 ? "" : "es", r->pass_median_ratio, r->pass_ratio,
                   r->pass_median_ratio > OC_MEASURE_NOISY_PASSES
                       ? " (NOISY: most passes ran under another process's load; the figures are the quiet runs')"
                       : "");
    if (strcmp(r->stopped, "stable") == 0)
        oc_sbuf_printf(b, "; stable within %g %% in %.1f s", r->tolerance * 100, r->measuring_s);
    else if (strcmp(r->stopped, "time limit") == 0)
        oc_sbuf_printf(b, "; NOT STABLE within %g %% in %.1f s (another process busy, or a time that varies): "
                          "noisy figures",
                       r->tolerance * 100, r->measuring_s);
    else if (strcmp(r->stopped, "quiet runs stable") == 0)
        oc_sbuf_printf(b, "; the quiet runs' median stable within %g %% in %.1f s (every run's was not)",
                       r->tolerance * 100, r->measuring_s);
}

void oc_measured_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_measured *m = spec->measured;
    const struct oc_profile *p = m->profile;
    if (p->run.present && !p->run.kept)
        oc_sbuf_printf(b, "Measured by ONNX Runtime (%s), %d run%s (profile not kept; --save DIR keeps it):\n",
                       p->providers, m->runs, m->runs == 1 ? "" : "s");
    else
        oc_sbuf_printf(b, "Measured by ONNX Runtime (%s) in %s, %d run%s:\n", p->providers, p->path, m->runs,
                       m->runs == 1 ? "" : "s");
    const struct oc_profile_run *r = &p->run;
    if (r->present) {
        oc_sbuf_printf(b, "  run by onnxcost measure: ONNX Runtime %s, optimization level %s, ", r->version, r->opt_level);
        if (r->threads)
            oc_sbuf_printf(b, "%" PRId64 " intra-op thread%s", r->threads, r->threads == 1 ? "" : "s");
        else
            oc_sbuf_puts(b, "ONNX Runtime's default threads");
        oc_sbuf_printf(b, " (%" PRId64 " CPUs: %s), %" PRId64 " warm-up run%s left out; model %s\n", r->cpu_count,
                       r->cpu, r->warmup, r->warmup == 1 ? "" : "s", r->model);
    }
    if (m->runs) {
        oc_sbuf_printf(b, "  end to end (ms): %.3f median of the %d quiet run%s (p10 %.3f, p90 %.3f); every run's "
                          "median %.3f, %.2fx%s",
                       m->run_median_us / 1e3, m->quiet_runs, m->quiet_runs == 1 ? "" : "s", m->run_p10_us / 1e3,
                       m->run_p90_us / 1e3, m->all_runs_median_us / 1e3, m->load_ratio,
                       m->load_ratio > OC_MEASURE_NOISY_PASSES ? " (another process's load)" : "");
        oc_measured_spread_text(b, r);
        oc_sbuf_puts(b, "\n");
    } else
        oc_sbuf_puts(b, "  end to end: no model_run event in the profile\n");
    oc_sbuf_printf(b, "  sum of node medians (ms): %.3f over %d of %d nodes of this model\n", m->sum_median_us / 1e3,
                   m->n_matched, an->graph->n_nodes);
    if (spec->gpu) {
        double pred = 0;
        for (int32_t i = 0; i < m->n_nodes; i++)
            if (m->nodes[i].runs && spec->gpu->perf->nodes[i].known)
                pred += spec->gpu->perf->nodes[i].time;
        oc_sbuf_printf(b, "  predicted (ms): %.3f over the same nodes, %.2fx the sum of medians", pred * 1e3,
                       m->sum_median_us > 0 ? pred * 1e6 / m->sum_median_us : 0.0);
        if (m->runs && m->run_median_us > 0)
            oc_sbuf_printf(b, "; the whole model %.3f, %.2fx end to end", spec->gpu->perf->time * 1e3,
                           spec->gpu->perf->time * 1e6 / m->run_median_us);
        oc_sbuf_puts(b, "\n");
    }
    if (m->n_unmatched)
        oc_sbuf_printf(b,
                       "  %d node%s of the profile %s not in this model (first: '%s'): analyze the graph ONNX Runtime "
                       "ran, which SessionOptions.optimized_model_filepath saves\n",
                       m->n_unmatched, m->n_unmatched == 1 ? "" : "s", m->n_unmatched == 1 ? "is" : "are",
                       m->first_unmatched);
    if (m->n_unmeasured)
        oc_sbuf_printf(b, "  %d node%s of this model with a kernel %s no event in the profile\n", m->n_unmeasured,
                       m->n_unmeasured == 1 ? "" : "s", m->n_unmeasured == 1 ? "has" : "have");
    const struct oc_profile_memory *mem = &p->memory;
    const double mib = 1024.0 * 1024.0;
    double meas = (double)mem->in_use_peak;
    if (mem->in_use_peak >= 0) {
        oc_sbuf_printf(b, "  arena (MiB): %.2f peak in use", meas / mib);
        if (mem->arena_held >= 0)
            oc_sbuf_printf(b, ", %.2f held", (double)mem->arena_held / mib);
        if (mem->in_use_floor >= 0)
            oc_sbuf_printf(b, ", %.2f in use before a node", (double)mem->in_use_floor / mib);
        oc_sbuf_puts(b, "\n");
    } else {
        oc_sbuf_puts(b, "  arena: not in the profile (no mem_in_use_peak in its node events)\n");
    }
    if (m->arena_simulated) { /* ONNX Runtime's arena as onnxcost replays it */
        const struct oc_ort_arena *s = &m->arena;
        bool lower = s->n_unsized || s->n_subgraph_nodes;
        oc_sbuf_printf(b, "  arena replayed by onnxcost (MiB, %d thread%s): %.2f peak in use%s", m->arena_threads,
                       m->arena_threads == 1 ? "" : "s", (double)s->peak_bytes / mib, lower ? " (a lower bound)" : "");
        if (mem->in_use_peak > 0)
            oc_sbuf_printf(b, ", %+.1f %% of the measured", 100.0 * ((double)s->peak_bytes - meas) / meas);
        oc_sbuf_printf(b, " (4 KiB of it an allowance for small reservations), %.2f held\n", (double)s->held_bytes / mib);
        oc_sbuf_printf(b, "    of it %.2f pre-packed weights (%d kernel%s), %.2f the memory pattern's block; the peak in %s run",
                       (double)s->prepacked_bytes / mib, s->n_prepacked, s->n_prepacked == 1 ? "" : "s",
                       (double)s->pattern_bytes / mib, s->first_run_peak >= s->later_run_peak ? "the first" : "a later");
        if (s->peak_node >= 0) {
            char buf[256];
            oc_sbuf_printf(b, ", at node %s", oc_node_label(&an->graph->nodes[s->peak_node], buf, sizeof buf));
        }
        oc_sbuf_puts(b, "\n");
        if (s->n_unsized)
            oc_sbuf_printf(b, "  %d tensor%s of unknown size counted as 0 bytes in the replay\n", s->n_unsized,
                           s->n_unsized == 1 ? "" : "s");
        if (s->n_subgraph_nodes)
            oc_sbuf_printf(b, "  %d node%s with subgraphs whose bodies the replay leaves out\n", s->n_subgraph_nodes,
                           s->n_subgraph_nodes == 1 ? "" : "s");
    }
    double est = (double)an->totals.peak_activation_bytes;
    oc_sbuf_printf(b, "  onnxcost's liveness peak of activations (MiB): %.2f%s\n", est / mib,
                   an->totals.peak_complete ? "" : " (a lower bound)");
}

struct json_t *oc_measured_json_node(const struct oc_measured *m, const struct oc_perf *perf, int32_t node) {
    const struct oc_measured_node *mn = &m->nodes[node];
    if (!mn->runs)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "median_us", json_real(mn->median_us));
    json_object_set_new(o, "p10_us", json_real(mn->p10_us));
    json_object_set_new(o, "p90_us", json_real(mn->p90_us));
    json_object_set_new(o, "runs", json_integer(mn->runs));
    if (perf) { /* the prediction for the same node, over the measured median */
        const struct oc_node_perf *np = &perf->nodes[node];
        bool has = np->known && np->time > 0 && mn->median_us > 0; /* a CPU's node without a kernel too */
        json_object_set_new(o, "predicted_over_measured", has ? json_real(np->time * 1e6 / mn->median_us) : json_null());
    }
    return o;
}

struct json_t *oc_measured_json(const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_measured *m = spec->measured;
    const struct oc_profile *p = m->profile;
    json_t *o = json_object();
    json_object_set_new(o, "profile", p->run.present && !p->run.kept ? json_null() : oc_jstr(p->path));
    json_object_set_new(o, "providers", oc_jstr(p->providers));
    json_object_set_new(o, "runs", json_integer(m->runs));
    json_object_set_new(o, "quiet_runs", json_integer(m->quiet_runs));
    json_object_set_new(o, "load_ratio", m->runs ? json_real(m->load_ratio) : json_null());
    if (m->runs) {
        json_t *e = json_object();
        json_object_set_new(e, "median", json_real(m->run_median_us / 1e3));
        json_object_set_new(e, "p10", json_real(m->run_p10_us / 1e3));
        json_object_set_new(e, "p90", json_real(m->run_p90_us / 1e3));
        json_object_set_new(e, "all_runs_median", json_real(m->all_runs_median_us / 1e3));
        json_object_set_new(o, "end_to_end_ms", e);
    } else {
        json_object_set_new(o, "end_to_end_ms", json_null());
    }
    json_object_set_new(o, "sum_of_node_medians_ms", json_real(m->sum_median_us / 1e3));
    /* the profile's whole-microsecond durations were each taken this much later (views/measure.h) */
    json_object_set_new(o, "duration_offset_us", json_real(OC_PROFILE_TRUNCATION_US));
    json_object_set_new(o, "nodes", json_integer(an->graph->n_nodes));
    json_object_set_new(o, "nodes_matched", json_integer(m->n_matched));
    json_object_set_new(o, "profile_nodes_not_in_model", json_integer(m->n_unmatched));
    json_object_set_new(o, "first_not_in_model", m->n_unmatched ? oc_jstr(m->first_unmatched) : json_null());
    json_object_set_new(o, "nodes_with_kernel_not_measured", json_integer(m->n_unmeasured));
    if (spec->gpu) {
        double pred = 0;
        for (int32_t i = 0; i < m->n_nodes; i++)
            if (m->nodes[i].runs && spec->gpu->perf->nodes[i].known)
                pred += spec->gpu->perf->nodes[i].time;
        json_object_set_new(o, "predicted_matched_ms", json_real(pred * 1e3));
        json_object_set_new(o, "predicted_ms", json_real(spec->gpu->perf->time * 1e3));
    }
    const struct oc_profile_run *r = &p->run;
    if (r->present) {
        json_t *j = json_object();
        json_object_set_new(j, "runtime", json_string("onnxruntime"));
        json_object_set_new(j, "version", oc_jstr(r->version));
        json_object_set_new(j, "opt_level", oc_jstr(r->opt_level));
        json_object_set_new(j, "intra_op_threads", json_integer(r->threads));
        json_object_set_new(j, "cpu_count", json_integer(r->cpu_count));
        json_object_set_new(j, "cpu", oc_jstr(r->cpu));
        json_object_set_new(j, "warmup_runs_left_out", json_integer(r->warmup));
        json_object_set_new(j, "model", oc_jstr(r->model));
        if (r->passes) {
            json_object_set_new(j, "passes", json_integer(r->passes));
            json_object_set_new(j, "pass_ratio", json_real(r->pass_ratio));
            json_object_set_new(j, "pass_median_ratio", json_real(r->pass_median_ratio));
            json_object_set_new(j, "stopped", oc_jstr(r->stopped));
            json_object_set_new(j, "tolerance", json_real(r->tolerance));
            json_object_set_new(j, "measuring_s", json_real(r->measuring_s));
        }
        json_object_set_new(o, "run", j);
    } else {
        json_object_set_new(o, "run", json_null());
    }
    const struct oc_profile_memory *mem = &p->memory;
    json_t *j = json_object();
    json_object_set_new(j, "in_use_peak_bytes", mem->in_use_peak >= 0 ? json_integer(mem->in_use_peak) : json_null());
    json_object_set_new(j, "arena_held_bytes", mem->arena_held >= 0 ? json_integer(mem->arena_held) : json_null());
    json_object_set_new(j, "in_use_before_node_min_bytes",
                        mem->in_use_floor >= 0 ? json_integer(mem->in_use_floor) : json_null());
    json_object_set_new(j, "estimated_peak_activation_bytes",
                        json_integer((json_int_t)an->totals.peak_activation_bytes));
    json_object_set_new(j, "estimate_complete", json_boolean(an->totals.peak_complete));
    if (m->arena_simulated) {
        const struct oc_ort_arena *s = &m->arena;
        json_t *k = json_object();
        json_object_set_new(k, "peak_bytes", json_integer((json_int_t)s->peak_bytes));
        json_object_set_new(k, "complete", json_boolean(!s->n_unsized && !s->n_subgraph_nodes));
        json_object_set_new(k, "over_measured", mem->in_use_peak > 0
                                                    ? json_real((double)s->peak_bytes / (double)mem->in_use_peak)
                                                    : json_null());
        json_object_set_new(k, "allowance_bytes", json_integer(OC_ORT_ARENA_ALLOWANCE));
        json_object_set_new(k, "held_bytes", json_integer((json_int_t)s->held_bytes));
        json_object_set_new(k, "prepacked_weight_bytes", json_integer((json_int_t)s->prepacked_bytes));
        json_object_set_new(k, "prepacked_kernels", json_integer(s->n_prepacked));
        json_object_set_new(k, "pattern_bytes", json_integer((json_int_t)s->pattern_bytes));
        json_object_set_new(k, "first_run_peak_bytes", json_integer((json_int_t)s->first_run_peak));
        json_object_set_new(k, "later_run_peak_bytes", json_integer((json_int_t)s->later_run_peak));
        json_object_set_new(k, "peak_node",
                            s->peak_node >= 0 ? oc_jstr(an->graph->nodes[s->peak_node].name) : json_null());
        json_object_set_new(k, "threads", json_integer(m->arena_threads));
        json_object_set_new(k, "unsized_tensors", json_integer(s->n_unsized));
        json_object_set_new(k, "subgraph_nodes_left_out", json_integer(s->n_subgraph_nodes));
        json_object_set_new(j, "replayed", k);
    } else {
        json_object_set_new(j, "replayed", json_null());
    }
    json_object_set_new(o, "arena", j);
    return o;
}
