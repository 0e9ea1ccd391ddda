/*
 * prediction.c — the --gpu sections: predicted time, roofline figures, fit,
 * data parallel and pipeline estimates (text and JSON). Every number
 * comes from views/perf/; this file only formats.
 */
#include "report_impl.h"

#include <jansson.h>
#include <stdio.h>

const char *oc_bound_name(enum oc_bound b) {
    return b == OC_BOUND_MEMORY ? "memory" : b == OC_BOUND_COMPUTE ? "compute" : "-";
}

const char *oc_fit_word(enum oc_fit_verdict v) {
    return v == OC_FIT_NO ? "no" : v == OC_FIT_YES ? "yes" : "maybe";
}

json_t *oc_fit_json(enum oc_fit_verdict v) {
    return v == OC_FIT_MAYBE ? json_null() : json_boolean(v == OC_FIT_YES);
}

static const char *oc_fit_verdict_words(enum oc_fit_verdict v) {
    return v == OC_FIT_NO    ? "DOES NOT FIT"
           : v == OC_FIT_YES ? "fits"
                             : "MAY NOT FIT (the need is a lower bound: nodes without a cost)";
}

/* "largest batch that fits: N" from a search over needs exact or not. */
static void oc_fit_batch_text(struct oc_sbuf *b, int64_t max_batch, bool capped, bool exact) {
    if (max_batch > 0) /* from needs that are lower bounds: at most this */
        oc_sbuf_printf(b, "largest batch that fits: %s%lld", capped ? (exact ? ">= " : "~ ") : exact ? "" : "<= ",
                       (long long)max_batch);
    else if (max_batch == 0)
        oc_sbuf_puts(b, "largest batch that fits: none (batch 1 does not fit)");
    else
        oc_sbuf_puts(b, "largest batch: the model has no free batch dim (--batch changes nothing)");
}

static void oc_gpu_text_fit(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_fit *f,
                            const struct oc_gpu *gpu) {
    enum oc_fit_verdict v = oc_fit_verdict(f->need, f->need_exact, f->usable);
    oc_sbuf_printf(b, "Fit (%s): needs %s%.2f GiB of %.2f GiB usable (%.2f GiB on the device, %.2f GiB reserve): %s\n",
                   f->training ? "training step" : "inference", f->need_exact ? "" : ">= ", oc_gib(f->need),
                   oc_gib(f->usable), oc_gib(gpu->mem_bytes), oc_gib(f->reserve), oc_fit_verdict_words(v));
    if (an->totals.peak_node >= 0) {
        char buf[256];
        oc_sbuf_printf(b, "  activation peak at node %s\n", oc_node_label(&an->graph->nodes[an->totals.peak_node], buf, sizeof buf));
    }
    oc_sbuf_puts(b, "  ");
    oc_fit_batch_text(b, f->max_batch, f->max_batch_capped, f->need_exact);
    oc_sbuf_puts(b, "\n");
    if (f->alt_rules) { /* as the export's signs suggest (the training block says which) */
        v = oc_fit_verdict(f->alt_need, f->alt_need_exact, f->usable);
        oc_sbuf_puts(b, "  with");
        oc_saved_rule_flags(b, f->alt_rules);
        oc_sbuf_printf(b, ", as the export's signs suggest: needs %s%.2f GiB: %s", f->alt_need_exact ? "" : ">= ",
                       oc_gib(f->alt_need), oc_fit_verdict_words(v));
        if (f->alt_max_batch >= 0) {
            oc_sbuf_puts(b, "; ");
            oc_fit_batch_text(b, f->alt_max_batch, f->alt_max_batch_capped, f->alt_need_exact);
        }
        oc_sbuf_puts(b, "\n");
    }
}

void oc_perf_efficiency_text(struct oc_sbuf *b, const struct oc_perf_opts *o) {
    oc_sbuf_puts(b, "efficiency compute");
    bool any = false;
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (o->eff_unit[u] > 0) {
            oc_sbuf_printf(b, "%s %s %.2f", any ? "," : " (calibrated:", oc_unit_name((enum oc_unit)u), o->eff_unit[u]);
            any = true;
        }
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (o->eff_conv_unit[u] > 0) {
            oc_sbuf_printf(b, "%s convolutions %s %.2f", any ? "," : " (calibrated:", oc_unit_name((enum oc_unit)u),
                           o->eff_conv_unit[u]);
            any = true;
        }
    for (int k = 0; k < 2; k++)
        if (o->parallel_outputs[k] > 0) {
            oc_sbuf_printf(b, "%s %s full from %.0f outputs", any ? "," : " (calibrated:",
                           k ? "convolutions" : "contractions", o->parallel_outputs[k]);
            any = true;
        }
    oc_sbuf_printf(b, "%s %.2f, memory %.2f", any ? "; other units)" : "", o->eff_compute, o->eff_memory);
    int last = 3; /* a CPU's cache levels' own factors, where calibrated ("-": memory's) */
    while (last >= 0 && !(o->eff_memory_cache[last] > 0))
        last--;
    for (int k = 0; k <= last; k++) {
        oc_sbuf_puts(b, k ? "/" : " (caches ");
        if (o->eff_memory_cache[k] > 0)
            oc_sbuf_printf(b, "%.3f", o->eff_memory_cache[k]);
        else
            oc_sbuf_puts(b, "-");
    }
    if (last >= 0)
        oc_sbuf_puts(b, ")");
}

void oc_gpu_text_header(struct oc_sbuf *b, const struct oc_perf *p, const char *spec_source) {
    const struct oc_gpu *gpu = p->gpu;
    const struct oc_perf_opts *o = &p->opts;
    oc_sbuf_printf(b, "Predicted on %s%s%s (math %s; ", gpu->name, spec_source ? " from " : "",
                   spec_source ? spec_source : "", oc_math_name(o->math));
    oc_perf_efficiency_text(b, o);
    oc_sbuf_printf(b, "; launch %.1f us", o->launch_s * 1e6);
    if (o->host_s > 0)
        oc_sbuf_printf(b, "; host %.1f us per kernel", o->host_s * 1e6);
    if (o->gap_s > 0)
        oc_sbuf_printf(b, "; gap %.1f us between %s", o->gap_s * 1e6, gpu->cpu ? "the nodes it runs" : "kernels");
    oc_sbuf_printf(b, "; %s)\n", o->additive ? "compute + memory" : "roofline max(compute, memory)");
    oc_sbuf_printf(b, "  Runtime: %s (%s)\n", oc_runtime_name(o->runtime), oc_runtime_description(o->runtime));
    if (p->fit) {
        oc_sbuf_printf(b, "  Fit: the kernel classes' factors fitted on %s (docs/MODEL.md, \"Fitted kernel classes\"):",
                       p->fit->source);
        for (int c = 0, n = 0; c < OC_KC_COUNT; c++) /* a class the fit gives no factor (0) is left out */
            if (p->fit->factor[c] > 0)
                oc_sbuf_printf(b, "%s %s %.2f", n++ ? "," : "", oc_kclass_name((enum oc_kclass)c), p->fit->factor[c]);
        if (p->fit->memory > 0)
            oc_sbuf_printf(b, "; a contraction's kernel takes compute / its class's factor + memory / %.2f",
                           p->fit->memory);
        oc_sbuf_puts(b, "\n");
    }
    if (o->channels_last)
        oc_sbuf_puts(b, "  Layout: channels-last (a permute between NCHW and NHWC is a view)\n");
    if (o->unfused_attention)
        oc_sbuf_puts(b, "  Attention: unfused (its MatMuls, scale, mask and Softmax run as the file writes them)\n");
    if (o->autocast)
        oc_sbuf_printf(b, "  Autocast: %s (contractions in %s, softmax, normalizations, pow, exp and sums in fp32, a "
                          "cast kernel where a tensor changes type, other ops in their inputs' widest type)\n",
                       oc_autocast_name(o->autocast), oc_autocast_name(o->autocast));
    oc_sbuf_printf(b, "  Peaks: FP32 %.2f TFLOPS, DRAM %.0f GB/s (ridge %.1f FLOP/B)", gpu->peak[OC_UNIT_FP32] / 1e12,
                   gpu->mem_bw / 1e9, gpu->mem_bw > 0 ? gpu->peak[OC_UNIT_FP32] / gpu->mem_bw : 0.0);
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (u != OC_UNIT_FP32 && gpu->peak[u] > 0)
            oc_sbuf_printf(b, ", %s %.2f", oc_unit_name((enum oc_unit)u), gpu->peak[u] / 1e12);
    oc_sbuf_puts(b, "\n");
    if (gpu->n_caches) { /* a CPU from onnxcost probe: where each node's bytes stream from */
        oc_sbuf_puts(b, "  Caches (a node whose bytes fit streams at that level's rate):");
        for (int32_t k = 0; k < gpu->n_caches; k++)
            oc_sbuf_printf(b, "%s %.0f KiB at %.0f GB/s", k ? "," : "", (double)gpu->cache_bytes[k] / 1024.0,
                           gpu->cache_bw[k] / 1e9);
        oc_sbuf_puts(b, "\n");
    }
}

void oc_gpu_text_fit_header(struct oc_sbuf *b, const struct oc_fit *f, const struct oc_gpu *gpu) {
    oc_sbuf_printf(b, "Fit (%s): against %.2f GiB usable (%.2f GiB on the device, %.2f GiB reserve)\n",
                   f->training ? "training step" : "inference", oc_gib(f->usable), oc_gib(gpu->mem_bytes),
                   oc_gib(f->reserve));
}

void oc_gpu_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_gpu_report *gr = spec->gpu;
    const struct oc_perf *p = gr->perf;
    const struct oc_gpu *gpu = p->gpu;
    const struct oc_perf_opts *o = &p->opts;
    oc_gpu_text_header(b, p, gr->spec_source);
    const char *lb = p->n_unknown ? ">= " : "", *ub = p->n_unknown ? "<= " : "";
    if (gr->train_step && spec->training) {
        const struct oc_data_parallel *s = gr->train_step;
        oc_sbuf_printf(b, "  Training step (ms, %s): %s%.3f = forward %.3f + backward %.3f + update %.3f",
                       oc_optimizer_name(spec->training->optimizer), lb, s->step1 * 1e3, s->forward * 1e3,
                       s->backward * 1e3, s->update * 1e3);
        if (o->folded_bn)
            oc_sbuf_printf(b, " + the folded BatchNorms %.3f", s->batchnorm * 1e3);
        if (s->kernels > 0)
            oc_sbuf_printf(b, " + the kernels' fixed cost %.3f", s->kernels * 1e3);
        oc_sbuf_puts(b, "\n");
        if (s->training_fit) /* what of the step a fit gave */
            oc_sbuf_printf(b, "  Training fit: %s (docs/MODEL.md, \"Training step\")\n", s->training_fit->source);
        if (s->training_fit || s->backward_given) { /* whose ratios the backward took */
            oc_sbuf_printf(b, "  Backward over forward per kernel class (%s):",
                           s->backward_given ? "--backward-ratio" : "fitted");
            for (int c = 0, n = 0; c < OC_KC_COUNT; c++)
                if (s->class_forward[c] > 0)
                    oc_sbuf_printf(b, "%s %s %.2f", n++ ? "," : "", oc_kclass_name((enum oc_kclass)c),
                                   s->class_backward[c] / s->class_forward[c]);
            oc_sbuf_puts(b, "\n");
        }
        if (s->kernels > 0)
            oc_sbuf_printf(b, "  Step kernels: %.0f (the forward's, two backward each, the optimizer's per parameter "
                              "tensor), %.1f us each beyond the launch (%s)\n",
                           s->step_kernels, s->kernel_s * 1e6, o->step_kernel_set ? "--step-kernel-us" : "fitted");
        if (p->samples_per_s > 0 && s->step1 > 0)
            oc_sbuf_printf(b, "  Training throughput: %s%.1f samples/s at batch %lld\n", ub,
                           (double)p->batch / s->step1, (long long)p->batch);
        oc_sbuf_puts(b, "  Inference (the forward pass alone):\n");
    }
    oc_sbuf_printf(b, "  Latency (ms): %s%.3f over %d kernels (%d compute-bound, %d memory-bound; %.1f %% of the time "
                      "memory-bound, %.3f ms launch overhead)\n",
                   lb, p->time * 1e3, p->n_kernels, p->n_compute_bound, p->n_memory_bound,
                   p->time > 0 ? 100.0 * p->time_memory / p->time : 0.0, p->launch_time * 1e3);
    if (p->n_light) /* a CPU's nodes without a kernel of the model's, which its runtime still runs */
        oc_sbuf_printf(b, "  and %d node%s the runtime runs without a kernel (a Reshape, a Shape): the fixed cost and "
                          "a gap each\n",
                       p->n_light, p->n_light == 1 ? "" : "s");
    if (p->gpu->tables) /* which times were measured, which drawn from the roofline */
        oc_sbuf_printf(b, "  Kernel tables (%s): %d of %d kernels (%.3f ms) timed from them, the other %d from the "
                          "roofline\n",
                       p->gpu->tables->source, p->n_from_table, p->n_kernels, p->time_from_table * 1e3,
                       p->n_kernels - p->n_from_table);
    if (p->host_bound)
        oc_sbuf_printf(b, "  Host-bound: %d kernels x %.1f us of the runtime's host time, above the device's %.3f ms\n",
                       p->n_kernels, p->opts.host_s * 1e6, p->device_time * 1e3);
    if (p->n_unknown)
        oc_sbuf_printf(b, "  (%d nodes without a cost are not timed: a lower bound)\n", p->n_unknown);
    oc_sbuf_printf(b, "  Ideal compute time (ms): %.3f (FLOPs / peak of each node's unit: 100 %% of peak, no memory "
                      "time, no launches)\n",
                   p->ideal_compute * 1e3);
    if (spec->sym) {
        oc_sbuf_puts(b, "  (predicted at ");
        oc_fmt_sym_binding(b, an, spec->sym);
        oc_sbuf_puts(b, ": bind the dims with --dim/--batch for real sizes)\n");
    }
    if (p->samples_per_s > 0)
        oc_sbuf_printf(b, "  Throughput: %s%.1f samples/s at batch %lld%s\n", ub, p->samples_per_s, (long long)p->batch,
                       gr->train_step ? " (inference)" : "");
    if (p->tokens_per_s > 0)
        oc_sbuf_printf(b, "  Throughput: %s%.0f tokens/s (%lld tokens per pass)%s\n", ub, p->tokens_per_s,
                       (long long)p->tokens, gr->train_step ? " (inference)" : "");
    if (gr->fit)
        oc_gpu_text_fit(b, an, gr->fit, gpu);
    if (gr->dp) {
        const struct oc_data_parallel *dp = gr->dp;
        oc_sbuf_printf(b, "Data parallel on %d x %s (weak scaling, ring all-reduce over %s at %.0f GB/s x %.2f):\n",
                       dp->n_gpus, gpu->id, gpu->link, gpu->link_bw / 1e9, o->eff_comm);
        oc_sbuf_printf(b, "  step on 1 GPU (ms): %.3f = forward %.3f + backward %.3f + update %.3f\n", dp->step1 * 1e3,
                       dp->forward * 1e3, dp->backward * 1e3, dp->update * 1e3);
        oc_sbuf_printf(b, "  all-reduce of %.2f MiB of gradients (ms): %.3f\n",
                       oc_mib(dp->grad_bytes), dp->allreduce * 1e3);
        oc_sbuf_printf(b, "  step on %d GPUs (ms): %.3f not overlapped (speedup %.2fx, all-reduce %.1f %% of the step); "
                          "%.3f overlapped with backward (speedup %.2fx)\n",
                       dp->n_gpus, dp->step_serial * 1e3, dp->speedup_serial, 100.0 * dp->allreduce_share,
                       dp->step_overlap * 1e3, dp->speedup_overlap);
    }
    if (gr->pipeline && gr->pipeline->n_stages > 0) {
        const struct oc_pipeline *pl = gr->pipeline;
        const struct oc_graph *g = an->graph;
        oc_sbuf_printf(b, "Pipeline over %d x %s (balanced by %s; cut traffic over %s):\n", pl->n_stages, gpu->id,
                       gr->balance == OC_BALANCE_TIME ? "predicted time" : "memory", gpu->link);
        for (int32_t j = 0; j < pl->n_stages; j++) {
            const struct oc_stage *s = &pl->stages[j];
            char b1[128], b2[128];
            oc_sbuf_printf(b, "  stage %d: nodes %d-%d (%s .. %s): %.3f ms, params %.2f MiB, outputs %.2f MiB", j + 1,
                           s->first + 1, s->last + 1, oc_node_label(&g->nodes[g->order[s->first]], b1, sizeof b1),
                           oc_node_label(&g->nodes[g->order[s->last]], b2, sizeof b2), s->time * 1e3,
                           oc_mib(s->param_bytes), oc_mib(s->activation_bytes));
            if (j + 1 < pl->n_stages)
                oc_sbuf_printf(b, "; sends %.2f MiB (%.3f ms)", oc_mib(s->send_bytes), s->send_time * 1e3);
            oc_sbuf_puts(b, "\n");
        }
        oc_sbuf_printf(b, "  bottleneck stage (ms): %.3f", pl->bottleneck * 1e3);
        if (pl->samples_per_s > 0)
            oc_sbuf_printf(b, "; steady-state throughput %.1f samples/s (vs %.1f on one GPU)", pl->samples_per_s,
                           p->samples_per_s);
        oc_sbuf_puts(b, "\n");
    }
}

json_t *oc_gpu_json_node(const struct oc_node_perf *np) {
    if (!np->known)
        return json_null();
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (np->grouped) { /* the runtime runs its work in one kernel with others (--runtime) */
        static const char *const kinds[] = {"own", "attention", "linear", "pointwise", "view", "norm", "fused"};
        json_object_set_new(o, "runtime_group", json_string(np->group_kind < 7 ? kinds[np->group_kind] : "?"));
        json_object_set_new(o, "in_kernel_of_node", json_integer(np->group_anchor));
        if (np->bound == OC_BOUND_NONE && np->time == 0) {
            json_object_set_new(o, "time_s", json_real(0));
            json_object_set_new(o, "time_source", json_string("runtime group"));
            return o;
        }
    }
    if (np->classed)
        json_object_set_new(o, "kernel_class", json_string(oc_kclass_name((enum oc_kclass)np->kclass)));
    if (np->t_extra > 0) /* a pass the runtime runs after the node (a folded BatchNorm), in time_s */
        json_object_set_new(o, "runtime_pass_s", json_real(np->t_extra));
    json_object_set_new(o, "unit", json_string(oc_unit_name(np->unit)));
    json_object_set_new(o, "peak_flops", json_real(np->peak));
    json_object_set_new(o, "intensity", json_real(np->ai));
    json_object_set_new(o, "attainable_flops", json_real(np->attainable));
    json_object_set_new(o, "bound", np->bound == OC_BOUND_NONE ? json_null() : json_string(oc_bound_name(np->bound)));
    json_object_set_new(o, "compute_s", json_real(np->t_compute));
    json_object_set_new(o, "memory_s", json_real(np->t_memory));
    json_object_set_new(o, "time_s", json_real(np->time));
    /* where time_s comes from: the device's measured kernel table for the
       node's family, or the roofline above */
    json_object_set_new(o, "time_source", json_string(np->from_table ? "table" : "roofline"));
    json_object_set_new(o, "family", np->family ? json_string(oc_kfamily_name(np->family)) : json_null());
    if (np->from_table)
        json_object_set_new(o, "table_extrapolated", json_boolean(np->table_extrapolated));
    if (np->op_eff > 0 && np->op_eff != 1) /* the op's own efficiency divided the roofline's times */
        json_object_set_new(o, "op_efficiency", json_real(np->op_eff));
    if (np->expand_bytes > 0) { /* a CPU convolution's im2col: its bytes (calibrate reads them), and in time_s
                                   its time unless the table's time is taken */
        json_object_set_new(o, "im2col_bytes", json_real(np->expand_bytes));
        json_object_set_new(o, "im2col_s", json_real(np->from_table ? 0 : np->t_expand));
    }
    if (np->runs > 1) { /* a CPU kernel's runs of its inner loop, and in time_s what those after the first add */
        json_object_set_new(o, "runs", json_real(np->runs));
        json_object_set_new(o, "runs_s", json_real(np->t_runs));
    }
    if (np->recurrence.steps > 0) { /* a CPU recurrent node's steps (calibrate reads them), and their time */
        json_t *r = json_object();
        if (!r || json_object_set_new(o, "recurrence", r) != 0) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(r, "steps", json_real(np->recurrence.steps));
        json_object_set_new(r, "weight_bytes", json_real(np->recurrence.weight_bytes));
        json_object_set_new(r, "step_flops", json_real(np->recurrence.step_flops));
        json_object_set_new(r, "batch", json_real(np->recurrence.batch));
        json_object_set_new(r, "time_s", json_real(np->from_table ? 0 : np->t_recurrence));
    }
    return o;
}

json_t *oc_gpu_json_setup(const struct oc_perf *p) {
    const struct oc_gpu *gpu = p->gpu;
    json_t *o = json_object(), *dev = json_object(), *peaks = json_object(), *opts = json_object();
    if (!o || !dev || !peaks || !opts) {
        json_decref(o), json_decref(dev), json_decref(peaks), json_decref(opts);
        return NULL;
    }
    json_object_set_new(dev, "id", json_string(gpu->id));
    json_object_set_new(dev, "name", json_string(gpu->name));
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (gpu->peak[u] > 0)
            json_object_set_new(peaks, oc_unit_name((enum oc_unit)u), json_real(gpu->peak[u]));
    json_object_set_new(dev, "peak_flops", peaks);
    json_object_set_new(dev, "memory_bytes", json_integer((json_int_t)gpu->mem_bytes));
    json_object_set_new(dev, "bandwidth_bytes_per_s", json_real(gpu->mem_bw));
    json_object_set_new(dev, "kind", json_string(gpu->cpu ? "cpu" : "gpu"));
    if (gpu->n_caches) {
        json_t *c = json_array();
        for (int32_t k = 0; k < gpu->n_caches; k++) {
            json_t *l = json_object();
            json_object_set_new(l, "bytes", json_integer((json_int_t)gpu->cache_bytes[k]));
            json_object_set_new(l, "bandwidth_bytes_per_s", json_real(gpu->cache_bw[k]));
            json_array_append_new(c, l);
        }
        json_object_set_new(dev, "caches", c);
    }
    json_object_set_new(dev, "link_bytes_per_s", json_real(gpu->link_bw));
    json_object_set_new(dev, "link", json_string(gpu->link));
    json_object_set_new(o, "device", dev);
    json_object_set_new(opts, "math", json_string(oc_math_name(p->opts.math)));
    json_object_set_new(opts, "runtime", json_string(oc_runtime_name(p->opts.runtime)));
    json_object_set_new(opts, "channels_last", json_boolean(p->opts.channels_last));
    json_object_set_new(opts, "unfused_attention", json_boolean(p->opts.unfused_attention));
    json_object_set_new(opts, "autocast",
                        p->opts.autocast ? json_string(oc_autocast_name(p->opts.autocast)) : json_null());
    if (!p->gpu->cpu) { /* the kernel classes: each one's seconds (launches out), and the fit taken */
        json_t *cs = json_object(), *fit = p->fit ? json_object() : json_null(), *ff = p->fit ? json_object() : NULL;
        json_t *cc = json_object(), *cm = json_object();
        for (int c = 0; c < OC_KC_COUNT; c++) {
            const char *name = oc_kclass_name((enum oc_kclass)c);
            json_object_set_new(cs, name, json_real(p->class_time[c]));
            if (oc_kclass_contraction((enum oc_kclass)c)) {
                json_object_set_new(cc, name, json_real(p->class_compute[c]));
                json_object_set_new(cm, name, json_real(p->class_memory[c]));
            }
            if (ff && p->fit->factor[c] > 0)
                json_object_set_new(ff, name, json_real(p->fit->factor[c]));
        }
        if (p->fit) {
            json_object_set_new(fit, "source", json_string(p->fit->source));
            json_object_set_new(fit, "factors", ff);
            json_object_set_new(fit, "combine", json_string(p->fit->memory > 0 ? "compute + memory" : "max"));
            json_object_set_new(fit, "memory", p->fit->memory > 0 ? json_real(p->fit->memory) : json_null());
        }
        json_object_set_new(o, "class_s", cs);
        json_object_set_new(o, "class_compute_s", cc);
        json_object_set_new(o, "class_memory_s", cm);
        json_object_set_new(opts, "fit", fit);
    }
    json_object_set_new(opts, "efficiency_compute", json_real(p->opts.eff_compute));
    json_t *units = json_object();
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (p->opts.eff_unit[u] > 0)
            json_object_set_new(units, oc_unit_name((enum oc_unit)u), json_real(p->opts.eff_unit[u]));
    if (json_object_size(units))
        json_object_set_new(opts, "efficiency_units", units);
    else
        json_decref(units);
    if (p->opts.parallel_outputs[0] > 0)
        json_object_set_new(opts, "parallel_outputs", json_real(p->opts.parallel_outputs[0]));
    if (p->opts.parallel_outputs[1] > 0)
        json_object_set_new(opts, "conv_parallel_outputs", json_real(p->opts.parallel_outputs[1]));
    json_t *conv_units = json_object();
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (p->opts.eff_conv_unit[u] > 0)
            json_object_set_new(conv_units, oc_unit_name((enum oc_unit)u), json_real(p->opts.eff_conv_unit[u]));
    if (json_object_size(conv_units))
        json_object_set_new(opts, "efficiency_conv_units", conv_units);
    else
        json_decref(conv_units);
    json_object_set_new(opts, "efficiency_memory", json_real(p->opts.eff_memory));
    if (p->gpu->n_caches) { /* a CPU: the factor each cache level uses */
        json_t *mc = json_array();
        for (int32_t k = 0; k < p->gpu->n_caches; k++)
            json_array_append_new(mc, json_real(oc_perf_memory_efficiency(&p->opts, k)));
        json_object_set_new(opts, "efficiency_memory_caches", mc);
    }
    json_object_set_new(opts, "efficiency_comm", json_real(p->opts.eff_comm));
    json_object_set_new(opts, "launch_s", json_real(p->opts.launch_s));
    json_object_set_new(opts, "host_s", json_real(p->opts.host_s));
    json_object_set_new(opts, "gap_s", json_real(p->opts.gap_s));
    if (p->opts.pool_s > 0)
        json_object_set_new(opts, "pool_s", json_real(p->opts.pool_s));
    if (p->opts.task_s > 0)
        json_object_set_new(opts, "task_s", json_real(p->opts.task_s));
    if (p->opts.split_s > 0)
        json_object_set_new(opts, "split_s", json_real(p->opts.split_s));
    if (p->opts.split_share > 0)
        json_object_set_new(opts, "split_share", json_real(p->opts.split_share));
    if (p->opts.pad_path > 0)
        json_object_set_new(opts, "pad_path", json_real(p->opts.pad_path));
    if (p->opts.run_s > 0)
        json_object_set_new(opts, "run_s", json_real(p->opts.run_s));
    if (p->opts.light_s > 0)
        json_object_set_new(opts, "light_s", json_real(p->opts.light_s));
    if (p->opts.op_eff && p->opts.op_eff->n > 0) { /* the ops' own factors a calibrated spec gave */
        json_t *ops = json_object();
        for (int32_t k = 0; k < p->opts.op_eff->n; k++)
            json_object_set_new(ops, p->opts.op_eff->at[k].op, json_real(p->opts.op_eff->at[k].factor));
        json_object_set_new(opts, "efficiency_ops", ops);
    }
    json_object_set_new(opts, "additive", json_boolean(p->opts.additive));
    json_object_set_new(o, "options", opts);
    return o;
}

json_t *oc_gpu_json_fit_setup(const struct oc_fit *f) {
    json_t *fj = json_object();
    json_object_set_new(fj, "mode", json_string(f->training ? "training" : "inference"));
    json_object_set_new(fj, "reserve_bytes", json_integer((json_int_t)f->reserve));
    json_object_set_new(fj, "usable_bytes", json_integer((json_int_t)f->usable));
    return fj;
}

json_t *oc_gpu_json(const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_gpu_report *gr = spec->gpu;
    const struct oc_perf *p = gr->perf;
    json_t *o = oc_gpu_json_setup(p);
    if (!o)
        return NULL;
    json_object_set_new(o, "latency_s", json_real(p->time));
    json_object_set_new(o, "device_s", json_real(p->device_time));
    json_object_set_new(o, "host_bound", json_boolean(p->host_bound));
    json_object_set_new(o, "memory_bound_s", json_real(p->time_memory));
    json_object_set_new(o, "launch_s", json_real(p->launch_time));
    json_object_set_new(o, "gaps_s", json_real(p->gap_time));
    json_object_set_new(o, "ideal_compute_s", json_real(p->ideal_compute));
    json_object_set_new(o, "kernels", json_integer(p->n_kernels));
    json_object_set_new(o, "nodes_run_without_kernel", json_integer(p->n_light));
    json_object_set_new(o, "compute_bound_nodes", json_integer(p->n_compute_bound));
    json_object_set_new(o, "memory_bound_nodes", json_integer(p->n_memory_bound));
    json_object_set_new(o, "untimed_nodes", json_integer(p->n_unknown));
    json_object_set_new(o, "table_kernels", json_integer(p->n_from_table));
    json_object_set_new(o, "table_s", json_real(p->time_from_table));
    json_object_set_new(o, "tables_source", p->gpu->tables ? json_string(p->gpu->tables->source) : json_null());
    json_object_set_new(o, "samples_per_s", p->samples_per_s > 0 ? json_real(p->samples_per_s) : json_null());
    json_object_set_new(o, "tokens_per_s", p->tokens_per_s > 0 ? json_real(p->tokens_per_s) : json_null());
    if (gr->train_step && spec->training) { /* the step of --optimizer on one GPU; the above is inference */
        const struct oc_data_parallel *s = gr->train_step;
        json_t *tj = json_object();
        json_object_set_new(tj, "optimizer", json_string(oc_optimizer_name(spec->training->optimizer)));
        json_object_set_new(tj, "step_s", json_real(s->step1));
        json_object_set_new(tj, "forward_s", json_real(s->forward));
        json_object_set_new(tj, "backward_s", json_real(s->backward));
        json_object_set_new(tj, "update_s", json_real(s->update));
        json_object_set_new(tj, "batchnorm_s", json_real(s->batchnorm));
        json_t *cb = json_object(), *cr = json_object(); /* per kernel class: backward, and its ratio to forward */
        for (int c = 0; c < OC_KC_COUNT; c++)
            if (s->class_forward[c] > 0) {
                json_object_set_new(cb, oc_kclass_name((enum oc_kclass)c), json_real(s->class_backward[c]));
                json_object_set_new(cr, oc_kclass_name((enum oc_kclass)c),
                                    json_real(s->class_backward[c] / s->class_forward[c]));
            }
        json_object_set_new(tj, "class_backward_s", cb);
        json_object_set_new(tj, "backward_ratio", cr);
        json_object_set_new(tj, "backward_from", json_string(s->backward_given    ? "options"
                                                             : s->training_fit    ? "fit"
                                                                                  : "defaults"));
        json_object_set_new(tj, "step_kernels", json_real(s->step_kernels));
        json_object_set_new(tj, "kernel_s", json_real(s->kernel_s));
        json_object_set_new(tj, "kernels_s", json_real(s->kernels));
        json_object_set_new(tj, "training_fit", s->training_fit ? json_string(s->training_fit->source) : json_null());
        json_object_set_new(tj, "samples_per_s", p->samples_per_s > 0 && s->step1 > 0
                                                     ? json_real((double)p->batch / s->step1)
                                                     : json_null());
        json_object_set_new(o, "training_step", tj);
    }
    if (gr->fit) {
        const struct oc_fit *f = gr->fit;
        json_t *fj = json_object();
        json_object_set_new(fj, "mode", json_string(f->training ? "training" : "inference"));
        json_object_set_new(fj, "need_bytes", json_integer((json_int_t)f->need));
        json_object_set_new(fj, "reserve_bytes", json_integer((json_int_t)f->reserve));
        json_object_set_new(fj, "usable_bytes", json_integer((json_int_t)f->usable));
        json_object_set_new(fj, "fits", oc_fit_json(oc_fit_verdict(f->need, f->need_exact, f->usable)));
        json_object_set_new(fj, "need_exact", json_boolean(f->need_exact));
        json_object_set_new(fj, "max_batch", f->max_batch >= 0 ? json_integer(f->max_batch) : json_null());
        json_object_set_new(fj, "max_batch_capped", json_boolean(f->max_batch_capped));
        json_t *alt = json_null();
        if (f->alt_rules) { /* the same with the rules the export's signs suggest added */
            alt = json_object();
            json_object_set_new(alt, "added_rules", oc_saved_rules_json(f->alt_rules));
            json_object_set_new(alt, "need_bytes", json_integer((json_int_t)f->alt_need));
            json_object_set_new(alt, "need_exact", json_boolean(f->alt_need_exact));
            json_object_set_new(alt, "fits", oc_fit_json(oc_fit_verdict(f->alt_need, f->alt_need_exact, f->usable)));
            json_object_set_new(alt, "max_batch", f->alt_max_batch >= 0 ? json_integer(f->alt_max_batch) : json_null());
            json_object_set_new(alt, "max_batch_capped", json_boolean(f->alt_max_batch_capped));
        }
        json_object_set_new(fj, "with_signs", alt);
        json_object_set_new(fj, "peak_node", an->totals.peak_node >= 0
                                                 ? json_string(an->graph->nodes[an->totals.peak_node].name)
                                                 : json_null());
        json_object_set_new(o, "fit", fj);
    }
    if (gr->dp) {
        const struct oc_data_parallel *dp = gr->dp;
        json_t *d = json_object();
        json_object_set_new(d, "gpus", json_integer(dp->n_gpus));
        json_object_set_new(d, "forward_s", json_real(dp->forward));
        json_object_set_new(d, "backward_s", json_real(dp->backward));
        json_object_set_new(d, "update_s", json_real(dp->update));
        json_object_set_new(d, "step_1gpu_s", json_real(dp->step1));
        json_object_set_new(d, "grad_bytes", json_integer((json_int_t)dp->grad_bytes));
        json_object_set_new(d, "allreduce_s", json_real(dp->allreduce));
        json_object_set_new(d, "step_serial_s", json_real(dp->step_serial));
        json_object_set_new(d, "step_overlap_s", json_real(dp->step_overlap));
        json_object_set_new(d, "speedup_serial", json_real(dp->speedup_serial));
        json_object_set_new(d, "speedup_overlap", json_real(dp->speedup_overlap));
        json_object_set_new(o, "data_parallel", d);
    }
    if (gr->pipeline) {
        json_t *a = json_array();
        for (int32_t j = 0; j < gr->pipeline->n_stages; j++) {
            const struct oc_stage *s = &gr->pipeline->stages[j];
            json_t *e = json_object();
            json_object_set_new(e, "first", json_integer(s->first));
            json_object_set_new(e, "last", json_integer(s->last));
            json_object_set_new(e, "time_s", json_real(s->time));
            json_object_set_new(e, "param_bytes", json_integer((json_int_t)s->param_bytes));
            json_object_set_new(e, "activation_bytes", json_integer((json_int_t)s->activation_bytes));
            json_object_set_new(e, "send_bytes", json_integer((json_int_t)s->send_bytes));
            json_object_set_new(e, "send_s", json_real(s->send_time));
            json_array_append_new(a, e);
        }
        json_t *pj = json_object();
        json_object_set_new(pj, "balance", json_string(gr->balance == OC_BALANCE_TIME ? "time" : "memory"));
        json_object_set_new(pj, "stages", a);
        json_object_set_new(pj, "bottleneck_s", json_real(gr->pipeline->bottleneck));
        json_object_set_new(o, "pipeline", pj);
    }
    return o;
}
