/*
 * cpu.c — a CPU's own terms of the node model (perf.h, docs/MODEL.md
 * "Thread counts", "Convolutions on a CPU"): the thread pool's split, a
 * convolution's window at the padding and its im2col buffer, a recurrent
 * node's steps, a kernel's runs of its inner loop, and the nodes ONNX
 * Runtime runs without a kernel of the model's work.
 */
#include "perf.h"
#include "terms.h"

#include "../../analyzer/attr.h"
#include "../../analyzer/dtype.h"
#include "../../analyzer/shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CPU on more than one thread (oc_perf_opts.task_s, split_s,
 * split_share): a node of less than task_s of one thread's time is not
 * split, and runs at one thread's rates (the probe's one-thread figures); a
 * larger one gets split_share of the speedup the threads' rates give over
 * one thread's (at most the thread count: the probe's triads on two threads
 * of a shared L3 ran 2.6x one's), and pays split_s; bw is the threads' rate at
 * the node's level. Returns the added seconds. */
double oc_perf_cpu_split(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit,
                         int32_t level, double bw, struct oc_node_perf *out) {
    const struct oc_cpu_scaling *s = &gpu->scaling;
    if (!gpu->cpu || gpu->threads <= 1 || !(o->task_s > 0 || o->split_s > 0 || o->split_share > 0))
        return 0;
    double peak_one = s->peak_one[unit];
    double bw_one = level >= 0 ? s->cache_bw_one[level] : s->mem_one;
    if (!(peak_one > 0) || !(bw_one > 0) || !(out->peak > 0) || !(bw > 0))
        return 0; /* no one-thread figures: the threads' rates as they are */
    double tc_one = out->t_compute * out->peak / peak_one, tm_one = out->t_memory * bw / bw_one;
    double one = tc_one > tm_one ? tc_one : tm_one, par = out->t_compute > out->t_memory ? out->t_compute : out->t_memory;
    if (one >= o->task_s && par > 0) { /* split: a share of the threads' speedup, and the split's cost */
        double most = one / par < gpu->threads ? one / par : gpu->threads; /* a triad's may exceed the threads' */
        double share = o->split_share > 0 ? o->split_share : 1, speedup = 1 + (most - 1) * share;
        out->t_compute = tc_one / speedup;
        out->t_memory = tm_one / speedup;
        return o->split_s;
    }
    out->t_compute = tc_one;
    out->t_memory = tm_one;
    return 0;
}

double oc_perf_conv_in_bounds(const struct oc_graph *g, const struct oc_node *n) {
    double padded;
    return oc_perf_conv_window(g, n, &padded);
}

double oc_perf_conv_share_of(double inside, double padded, double pad_path) {
    return inside * (pad_path > 1 ? 1 + (pad_path - 1) * padded : 1);
}

double oc_perf_conv_cpu_share(const struct oc_graph *g, const struct oc_node *n, double pad_path) {
    double padded = 0, inside = oc_perf_conv_window(g, n, &padded);
    return oc_perf_conv_share_of(inside, padded, pad_path);
}

/* The share of a convolution's kernel taps that fall inside its input, not
 * in the padding (1 for an unpadded one): ONNX Runtime's CPU convolutions
 * (MLAS, NCHWc) skip the taps over padding, so a dilated convolution padded
 * as wide as its dilation over a small map (DeepLabV3's atrous pyramid: dilation
 * 24 over 14x14, where the outer taps never land inside) does a fraction of the
 * MACs counted by the ONNX definition. Per axis, the (output, tap) pairs whose
 * input index is in [0, in), over out x k; the product over the axes. 1 where
 * a shape or attribute is unknown. *padded: the output positions with a tap
 * outside (1 - the product over the axes of those with every tap inside),
 * which MLAS runs in its slower padded path. */
double oc_perf_conv_window(const struct oc_graph *g, const struct oc_node *n, double *padded) {
    *padded = 0;
    if (!n->op_type || (strcmp(n->op_type, "Conv") != 0 && strcmp(n->op_type, "FusedConv") != 0) || n->n_in < 2 ||
        n->in[0] < 0 || n->in[1] < 0)
        return 1;
    const struct oc_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]];
    if (x->rank < 3 || w->rank != x->rank)
        return 1;
    int32_t sp = x->rank - 2;
    int64_t kernel[OC_MAX_SPATIAL];
    for (int32_t i = 0; i < sp; i++)
        if ((kernel[i] = w->dims[2 + i].value) <= 0 || x->dims[2 + i].value <= 0)
            return 1;
    struct oc_window win;
    if (oc_window_read(n, sp, kernel, &win, NULL) != OC_OK)
        return 1;
    double share = 1, clear = 1; /* taps inside; output positions with every tap inside */
    for (int32_t i = 0; i < sp; i++) {
        int64_t in = x->dims[2 + i].value, out, pb, pe;
        if (oc_spatial_out(in, win.k[i], win.s[i], win.dil[i], win.pads[i], win.pads[sp + i], win.ap, false, &out, &pb,
                           &pe) != OC_OK ||
            out <= 0 || out > (INT64_C(1) << 24) || win.k[i] > 4096)
            return 1;
        int64_t inside = 0, whole = 0;
        for (int64_t o = 0; o < out; o++) {
            int64_t here = 0;
            for (int64_t k = 0; k < win.k[i]; k++) {
                int64_t at = o * win.s[i] - pb + k * win.dil[i];
                here += at >= 0 && at < in;
            }
            inside += here;
            whole += here == win.k[i];
        }
        share *= (double)inside / ((double)out * (double)win.k[i]);
        clear *= (double)whole / (double)out;
    }
    *padded = 1 - clear;
    return share;
}

bool oc_cpu_runs(const struct oc_node *n) {
    return !oc_node_is(n, "Constant");
}

bool oc_cpu_node_light(const struct oc_graph *g, const struct oc_node *n) {
    uint64_t flops, bytes;
    return oc_cpu_runs(n) && oc_node_kernel_cost(g, n, &flops, &bytes) && !flops && !bytes;
}

double oc_perf_light_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    return (o->light_s > 0 ? o->light_s : o->launch_s) + (gpu->cpu && gpu->threads > 1 ? o->pool_s : 0);
}

double oc_perf_conv_expand_bytes(const struct oc_graph *g, const struct oc_node *n, bool nchwc_graph) {
    int64_t group = 1;
    if (!nchwc_graph || !n->op_type || (strcmp(n->op_type, "Conv") != 0 && strcmp(n->op_type, "FusedConv") != 0) ||
        strcmp(n->domain, "com.microsoft.nchwc") == 0 || n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 ||
        n->in[1] < 0 || n->out[0] < 0 || oc_attr_int(n, "group", 1, &group, NULL) != OC_OK || group <= 1)
        return 0;
    const struct oc_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    if (x->rank < 3 || w->rank != x->rank || y->rank != x->rank || x->dims[1].value <= 0 || y->dims[0].value <= 0)
        return 0;
    double elems = (double)y->dims[0].value * (double)x->dims[1].value, taps = 1;
    for (int32_t i = 2; i < x->rank; i++) {
        if (w->dims[i].value <= 0 || y->dims[i].value <= 0)
            return 0;
        taps *= (double)w->dims[i].value;
        elems *= (double)w->dims[i].value * (double)y->dims[i].value;
    }
    return taps > 1 ? 8 * elems : 0; /* a 1x1 kernel reads its input as it is */
}

/* a CPU convolution's im2col time added to np (oc_perf_node_terms) */
void oc_perf_cpu_expand(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double expand_bytes,
                        struct oc_node_perf *np) {
    if (!gpu->cpu || !(expand_bytes > 0))
        return;
    double half = expand_bytes / 2 < 1.8e19 ? expand_bytes / 2 : 1.8e19;
    int32_t level = oc_gpu_level_for(gpu, (uint64_t)half);
    if (level == 0 && gpu->n_caches > 1)
        level = 1;
    double t = oc_perf_stream_s(gpu, o, expand_bytes, level);
    if (!(t > 0))
        return;
    np->expand_bytes = expand_bytes;
    np->t_expand = t;
    np->time += t;
}

void oc_perf_rnn_recurrence(const struct oc_graph *g, const struct oc_node *n, struct oc_perf_recurrence *r) {
    memset(r, 0, sizeof *r);
    if (!(oc_node_is(n, "LSTM") || oc_node_is(n, "GRU") || oc_node_is(n, "RNN")) || n->n_in < 3 || n->in[0] < 0 ||
        n->in[2] < 0)
        return;
    const struct oc_value *x = &g->values[n->in[0]], *w = &g->values[n->in[2]];
    int64_t layout = 0;
    uint64_t elem = 0;
    if (x->rank != 3 || w->rank != 3 || (n->opset >= 14 && oc_attr_int(n, "layout", 0, &layout, NULL) != OC_OK) ||
        !oc_dtype_bytes(w->dtype, 1, &elem) || !elem)
        return;
    double seq = (double)x->dims[layout ? 1 : 0].value, batch = (double)x->dims[layout ? 0 : 1].value;
    double dirs = (double)w->dims[0].value, gates = (double)w->dims[1].value, hidden = (double)w->dims[2].value;
    if (!(seq > 0 && batch > 0 && dirs > 0 && gates > 0 && hidden > 0))
        return;
    r->steps = seq * dirs;
    r->weight_bytes = gates * hidden * (double)elem;
    r->step_flops = 2 * batch * gates * hidden;
    r->batch = batch;
}

/* a CPU recurrent node's steps added to np (oc_perf_node_terms) */
void oc_perf_cpu_recurrence(const struct oc_gpu *gpu, const struct oc_perf_opts *o,
                            const struct oc_perf_recurrence *r, struct oc_node_perf *np) {
    const struct oc_cpu_scaling *s = &gpu->scaling;
    if (!gpu->cpu || !(r->steps > 0) || !(r->weight_bytes > 0))
        return;
    /* one thread's level for R (one instance's size) and its rate there */
    double bw = s->mem_one > 0 ? s->mem_one : gpu->mem_bw;
    for (int32_t k = (gpu->n_caches < 4 ? gpu->n_caches : 4) - 1; k >= 0; k--) {
        double size = (double)(s->cache_one[k] ? s->cache_one[k] : gpu->cache_bytes[k]);
        double rate = s->cache_bw_one[k] > 0 ? s->cache_bw_one[k] : gpu->cache_bw[k];
        if (r->weight_bytes <= size && rate > 0)
            bw = rate;
    }
    double peak = (s->peak_one[np->unit] > 0 ? s->peak_one[np->unit] : np->peak) *
                  oc_perf_class_efficiency(o, np->unit, false);
    if (!(bw > 0) || !(peak > 0))
        return;
    double stream = r->weight_bytes / bw, compute = r->step_flops / peak;
    double step = r->batch == 1 ? (stream > compute ? stream : compute) : stream + compute;
    double t = r->steps * step;
    double parts = r->batch < gpu->threads ? r->batch : gpu->threads; /* a thread's rows run their own steps */
    if (parts > 1)
        t /= 1 + (parts - 1) * (o->split_share > 0 ? o->split_share : 1);
    np->recurrence = *r;
    np->t_recurrence = t;
    np->time += t;
}

/* a CPU node's runs of its inner loop after the first, added to np
   (oc_perf_node_terms) */
void oc_perf_cpu_runs(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double runs,
                      struct oc_node_perf *np) {
    if (!gpu->cpu || !(runs > 1) || np->bound == OC_BOUND_NONE)
        return;
    np->runs = runs;
    np->t_runs = (runs - 1) * (o->run_s > 0 ? o->run_s : 0);
    np->time += np->t_runs;
}
