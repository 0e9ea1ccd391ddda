/*
 * parallel.c — more than one device (parallel.h): the all-reduce, a
 * training step data parallel, and a pipeline split of the nodes.
 */
#include "parallel.h"
#include "terms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double oc_allreduce_time(const struct oc_gpu *gpu, const struct oc_perf_opts *o, uint64_t bytes, int32_t n) {
    if (n <= 1 || !bytes || gpu->link_bw <= 0)
        return 0;
    double buckets = o->bucket_bytes ? ceil((double)bytes / (double)o->bucket_bytes) : 1;
    return 2.0 * (n - 1) / n * (double)bytes / (gpu->link_bw * o->eff_comm) +
           buckets * 2.0 * (n - 1) * o->allreduce_latency_s;
}

/* Whether node i's kernel is a contraction, whose backward computes two
   products (the input's gradient and the weight's): a node with MACs, or
   the kernel of a runtime's group that holds one (a Linear's GEMM anchored
   at its bias Add). */
static bool oc_contraction_kernel(const struct oc_graph *g, const struct oc_node_perf *np, int32_t i) {
    return g->nodes[i].cost.macs > 0 || (np->grouped && np->group_anchor == i &&
                                         (np->group_kind == OC_RT_LINEAR || np->group_kind == OC_RT_ATTENTION));
}

enum oc_status oc_data_parallel(const struct oc_perf *p, const struct oc_analysis *an, const struct oc_training *tr,
                                int32_t n_gpus, struct oc_data_parallel *out) {
    const struct oc_graph *g = an->graph;
    memset(out, 0, sizeof *out);
    out->n_gpus = n_gpus;
    out->forward = p->time;
    /* each kernel class's backward over forward: the options', else a
       built-in GPU's fit, else none (the defaults per node) */
    const double *ratio = p->opts.backward_ratio;
    for (int c = 0; c < OC_KC_COUNT; c++)
        out->backward_given |= ratio[c] > 0;
    const struct oc_builtin_training *fit = p->opts.builtin_fit ? oc_builtin_training_for(p->gpu, &p->opts) : NULL;
    if (!out->backward_given && fit) {
        ratio = fit->ratio;
        out->training_fit = fit;
    }
    double kernels = 0; /* the backward pass's, for the host floor */
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node_perf *np = &p->nodes[i];
        double times = oc_contraction_kernel(g, np, i) ? 2.0 : 1.5;
        if (np->classed && ratio[np->kclass] > 0)
            times = ratio[np->kclass];
        if (np->known)
            out->backward += times * np->time;
        if (np->known && np->classed) {
            out->class_backward[np->kclass] += times * np->time;
            out->class_forward[np->kclass] += np->time;
        }
        if (np->known && np->bound != OC_BOUND_NONE)
            kernels += times;
    }
    if (p->opts.host_s > 0 && kernels * p->opts.host_s > out->backward)
        out->backward = kernels * p->opts.host_s;
    bool *folded = p->opts.folded_bn ? oc_folded_bn_convs(g) : NULL;
    if (p->opts.folded_bn && !folded)
        return OC_ERR_NOMEM;
    int32_t n_folded = 0;
    for (int32_t i = 0; folded && i < g->n_nodes; i++) { /* the BatchNorms training runs */
        const struct oc_node *nd = &g->nodes[i];
        if (!p->nodes[i].known || !folded[i])
            continue;
        double bytes = 6.0 * (double)nd->activation_bytes;
        double t = oc_perf_stream_s(p->gpu, &p->opts, bytes, oc_gpu_level_for(p->gpu, (uint64_t)bytes));
        out->batchnorm += t + 2 * p->opts.launch_s;
        n_folded++;
    }
    free(folded);
    static const double streams[OC_OPT_COUNT] = {[OC_OPT_SGD] = 3, [OC_OPT_MOMENTUM] = 5, [OC_OPT_ADAM] = 7};
    out->grad_bytes = tr->grad_bytes;
    if (tr->grad_bytes)
        out->update = streams[tr->optimizer] * (double)tr->grad_bytes / (p->gpu->mem_bw * p->opts.eff_memory) +
                      p->opts.launch_s;
    /* every kernel's fixed cost beyond its launch: the options', else a
       built-in GPU's training fit's, else none */
    static const double per_tensor[OC_OPT_COUNT] = {[OC_OPT_SGD] = 2, [OC_OPT_MOMENTUM] = 5, [OC_OPT_ADAM] = 9};
    out->kernel_s = p->opts.step_kernel_set ? p->opts.step_kernel_s : fit ? fit->kernel_s : 0;
    if (out->kernel_s > 0 && !p->opts.step_kernel_set)
        out->training_fit = fit;
    out->step_kernels = 3.0 * p->n_kernels + per_tensor[tr->optimizer] * (an->totals.trainable_tensors + (double)n_folded) +
                        2.0 * n_folded;
    out->kernels = out->step_kernels * out->kernel_s;
    out->step1 = out->forward + out->backward + out->update + out->batchnorm + out->kernels;
    out->allreduce = oc_allreduce_time(p->gpu, &p->opts, tr->grad_bytes, n_gpus);
    out->step_serial = out->step1 + out->allreduce;
    out->step_overlap = out->forward + (out->backward > out->allreduce ? out->backward : out->allreduce) + out->update +
                        out->batchnorm + out->kernels;
    if (out->step_serial > 0) {
        out->speedup_serial = n_gpus * out->step1 / out->step_serial;
        out->speedup_overlap = n_gpus * out->step1 / out->step_overlap;
        out->allreduce_share = out->allreduce / out->step_serial;
    }
    return OC_OK;
}

/* Splits w[0..n) into at most k contiguous parts each <= limit, at least
 * one element per part; returns the parts used (bounds[j] = last index). */
static int32_t oc_split(const double *w, int32_t n, int32_t k, double limit, int32_t *bounds) {
    int32_t parts = 0;
    double acc = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t left_parts = k - parts - 1;
        bool must_cut = n - i <= left_parts; /* keep one node for each later part */
        if (i > 0 && (acc + w[i] > limit || must_cut) && parts < k - 1) {
            bounds[parts++] = i - 1;
            acc = 0;
        }
        acc += w[i];
    }
    bounds[parts++] = n - 1;
    return parts;
}

static double oc_max_part(const double *w, int32_t parts, const int32_t *bounds) {
    double worst = 0;
    for (int32_t j = 0, i = 0; j < parts; j++) {
        double s = 0;
        for (; i <= bounds[j]; i++)
            s += w[i];
        worst = s > worst ? s : worst;
    }
    return worst;
}

enum oc_status oc_pipeline_split(const struct oc_perf *p, const struct oc_analysis *an, int32_t n,
                                 enum oc_balance by, struct oc_pipeline *out) {
    const struct oc_graph *g = an->graph;
    int32_t m = g->n_nodes;
    memset(out, 0, sizeof *out);
    if (n < 1 || m < 1)
        return OC_OK;
    if (n > m)
        n = m;
    double *w = calloc((size_t)m, sizeof *w);
    int32_t *bounds = calloc((size_t)n, sizeof *bounds), *pos = calloc((size_t)m, sizeof *pos);
    int32_t *last = malloc((size_t)g->n_values * sizeof *last + 1);
    out->stages = calloc((size_t)n, sizeof *out->stages);
    if (!w || !bounds || !pos || !last || !out->stages) {
        free(w), free(bounds), free(pos), free(last), free(out->stages);
        out->stages = NULL;
        return OC_ERR_NOMEM;
    }
    double total = 0, biggest = 0;
    for (int32_t r = 0; r < m; r++) {
        const struct oc_node *nd = &g->nodes[g->order[r]];
        pos[nd->index] = r;
        if (by == OC_BALANCE_TIME)
            w[r] = p->nodes[nd->index].time;
        else
            w[r] = (double)nd->param_bytes + (double)nd->activation_bytes;
        total += w[r];
        biggest = w[r] > biggest ? w[r] : biggest;
    }
    /* bisection on the largest stage weight; the greedy split is feasible
     * for any limit >= the optimum */
    double lo = biggest > total / n ? biggest : total / n, hi = total;
    for (int it = 0; it < 100 && hi - lo > 1e-12 * (hi > 1 ? hi : 1); it++) {
        double mid = 0.5 * (lo + hi);
        int32_t parts = oc_split(w, m, n, mid, bounds);
        if (oc_max_part(w, parts, bounds) <= mid)
            hi = mid;
        else
            lo = mid;
    }
    int32_t parts = oc_split(w, m, n, hi, bounds);
    /* the last consumer of each value, as a position in the order */
    for (int32_t v = 0; v < g->n_values; v++)
        last[v] = -1;
    for (int32_t r = 0; r < m; r++) {
        const struct oc_node *nd = &g->nodes[g->order[r]];
        for (int32_t k = 0; k < nd->n_in + nd->n_implicit; k++) {
            int32_t v = k < nd->n_in ? nd->in[k] : nd->implicit[k - nd->n_in];
            if (v >= 0 && r > last[v])
                last[v] = r;
        }
    }
    out->n_stages = parts;
    for (int32_t j = 0, r = 0; j < parts; j++) {
        struct oc_stage *s = &out->stages[j];
        s->first = r;
        s->last = bounds[j];
        for (; r <= bounds[j]; r++) {
            const struct oc_node *nd = &g->nodes[g->order[r]];
            s->time += p->nodes[nd->index].time;
            s->param_bytes += nd->param_bytes;
            s->activation_bytes += nd->activation_bytes;
        }
        if (j + 1 < parts) {
            for (int32_t v = 0; v < g->n_values; v++) {
                const struct oc_value *val = &g->values[v];
                uint64_t b;
                if (val->producer < 0 || pos[val->producer] > s->last || last[v] <= s->last)
                    continue;
                if (oc_value_bytes_priced(g, val, &b))
                    s->send_bytes = s->send_bytes + b < s->send_bytes ? UINT64_MAX : s->send_bytes + b;
            }
            s->send_time = p->gpu->link_bw > 0 ? (double)s->send_bytes / (p->gpu->link_bw * p->opts.eff_comm) : 0;
        }
        double t = s->time + s->send_time;
        out->bottleneck = t > out->bottleneck ? t : out->bottleneck;
    }
    if (out->bottleneck > 0 && p->batch > 0)
        out->samples_per_s = (double)p->batch / out->bottleneck;
    free(w), free(bounds), free(pos), free(last);
    return OC_OK;
}

void oc_pipeline_free(struct oc_pipeline *pl) {
    free(pl->stages);
    pl->stages = NULL;
}
