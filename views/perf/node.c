/*
 * node.c — the static performance model of one node and of a whole
 * analysis (perf.h; docs/MODEL.md for the formulas and the default
 * efficiencies): the options and their measured factors, the unit a node
 * runs on, the roofline with its fixed costs, the kernel tables where they
 * cover a node. A CPU's own terms are in cpu.c.
 */
#include "perf.h"
#include "kernels.h"
#include "terms.h"

#include "../../analyzer/attr.h"
#include "../../analyzer/dtype.h"
#include "../../analyzer/shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum oc_unit oc_perf_unit(const struct oc_gpu *gpu, int32_t dtype, bool contraction, enum oc_math math,
                          double *peak) {
    enum oc_unit want[3] = {OC_UNIT_FP32, OC_UNIT_FP32, OC_UNIT_FP32}; /* preferences, best first */
    switch (dtype) {
    case OC_DT_DOUBLE:
        want[0] = contraction ? OC_UNIT_FP64_TC : OC_UNIT_FP64;
        want[1] = OC_UNIT_FP64;
        break;
    case OC_DT_FLOAT16:
    case OC_DT_BFLOAT16:
        if (contraction && math != OC_MATH_FP32)
            want[0] = dtype == OC_DT_FLOAT16 || math == OC_MATH_FP16 ? OC_UNIT_FP16_TC : OC_UNIT_BF16_TC;
        else
            want[0] = OC_UNIT_FP16;
        want[1] = OC_UNIT_FP16;
        break;
    case OC_DT_FLOAT8E4M3FN:
    case OC_DT_FLOAT8E4M3FNUZ:
    case OC_DT_FLOAT8E5M2:
    case OC_DT_FLOAT8E5M2FNUZ:
        want[0] = contraction && math != OC_MATH_FP32 ? OC_UNIT_FP8_TC : OC_UNIT_FP16;
        want[1] = contraction && math != OC_MATH_FP32 ? OC_UNIT_FP16_TC : OC_UNIT_FP16;
        break;
    case OC_DT_INT8:
    case OC_DT_UINT8:
        want[0] = contraction && math != OC_MATH_FP32 ? OC_UNIT_INT8_TC : OC_UNIT_FP32;
        break;
    case OC_DT_FLOAT:
        if (contraction && math == OC_MATH_TF32)
            want[0] = OC_UNIT_TF32_TC;
        else if (contraction && math == OC_MATH_FP16)
            want[0] = OC_UNIT_FP16_TC;
        break;
    default:
        break;
    }
    for (int i = 0; i < 3; i++)
        if (gpu->peak[want[i]] > 0) {
            /* half precision without tensor cores: libraries compute in FP32
             * where the FP16 SIMT rate is lower (Pascal GeForce: 1/64) */
            if (want[i] == OC_UNIT_FP16 && gpu->peak[OC_UNIT_FP16] < gpu->peak[OC_UNIT_FP32])
                break;
            *peak = gpu->peak[want[i]];
            return want[i];
        }
    *peak = gpu->peak[OC_UNIT_FP32];
    return OC_UNIT_FP32;
}

void oc_perf_node(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit, double peak,
                  uint64_t flops, uint64_t bytes, struct oc_node_perf *out) {
    oc_perf_node_class(gpu, o, unit, false, 0, 1, peak, flops, bytes, out);
}

/* a node's fixed cost: the launch, and on more than one thread of a CPU the pool's */
static double oc_perf_fixed_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    return o->launch_s + (gpu->cpu && gpu->threads > 1 ? o->pool_s : 0);
}

void oc_perf_node_class(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit, bool conv,
                        double outputs, double op_eff, double peak, uint64_t flops, uint64_t bytes,
                        struct oc_node_perf *out) {
    memset(out, 0, sizeof *out);
    out->known = true;
    out->op_eff = 1;
    out->unit = unit;
    out->peak = peak;
    if (!flops && !bytes)
        return; /* no kernel */
    out->ai = bytes ? (double)flops / (double)bytes : 0;
    int32_t level = oc_gpu_level_for(gpu, bytes);
    double bw = oc_gpu_level_bandwidth(gpu, level);
    double roof = out->ai * bw;
    out->attainable = bytes ? (roof < peak ? roof : peak) : peak;
    out->t_compute = peak > 0 ? (double)flops / (peak * oc_perf_class_efficiency(o, unit, conv)) : 0;
    double fill = o->parallel_outputs[conv ? 1 : 0];
    if (outputs > 0 && fill > outputs)
        out->t_compute *= fill / outputs;
    out->t_memory = bw > 0 ? (double)bytes / (bw * oc_perf_memory_efficiency(o, level)) : 0;
    if (op_eff > 0 && op_eff != 1) { /* the op's own efficiency */
        out->t_compute /= op_eff;
        out->t_memory /= op_eff;
        out->op_eff = op_eff;
    }
    double split = oc_perf_cpu_split(gpu, o, unit, level, bw, out);
    double body = o->additive ? out->t_compute + out->t_memory
                              : (out->t_compute > out->t_memory ? out->t_compute : out->t_memory);
    body += split;
    out->time = body + oc_perf_fixed_s(gpu, o);
    out->bound = out->t_compute >= out->t_memory ? OC_BOUND_COMPUTE : OC_BOUND_MEMORY;
}

void oc_perf_node_terms(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit, bool conv,
                        double outputs, double op_eff, double peak, double flops, double bytes, double expand_bytes,
                        const struct oc_perf_recurrence *r, double runs, struct oc_node_perf *out) {
    bool steps = gpu->cpu && r && r->steps > 0 && r->step_flops > 0;
    if (steps) /* the steps' products apart from the input's */
        flops -= r->steps * r->step_flops;
    flops = flops < 0 ? 0 : flops < 1.8e19 ? flops : 1.8e19;
    bytes = bytes < 1.8e19 ? bytes : 1.8e19;
    oc_perf_node_class(gpu, o, unit, conv, outputs, op_eff, peak, (uint64_t)flops, (uint64_t)bytes, out);
    oc_perf_cpu_expand(gpu, o, expand_bytes, out);
    if (steps)
        oc_perf_cpu_recurrence(gpu, o, r, out);
    oc_perf_cpu_runs(gpu, o, runs, out);
}

enum oc_math oc_perf_effective_math(enum oc_math math, int32_t dtype) {
    if (math != OC_MATH_AUTO)
        return math;
    return dtype == OC_DT_FLOAT16 || dtype == OC_DT_BFLOAT16 ? OC_MATH_FP16 : OC_MATH_FP32;
}

/* A node's time from the kernel tables where they cover its family,
   precision and math. On a GPU the tables hold kernels' own times (the
   replay's) and the node gets one launch as the roofline's time has; on a
   CPU they hold ONNX Runtime's node times, its per-node cost included.
   conv_share: the share of its work a CPU's convolution takes
   (oc_perf_conv_cpu_share; 1 otherwise), as the samples were keyed. */
static void oc_perf_from_table(const struct oc_gpu *gpu, const struct oc_graph *g, const struct oc_node *n,
                               bool nchwc_graph, int32_t dtype, double conv_share, const struct oc_perf_opts *o,
                               struct oc_node_perf *np) {
    const struct oc_ktables *tables = gpu->tables;
    struct oc_kfeat f;
    double s;
    oc_kernel_features(g, n, nchwc_graph, &f);
    np->family = f.family;
    if (f.family == OC_KF_NONE)
        return;
    f.work *= conv_share;
    const struct oc_kfixed fixed = {gpu->cpu ? oc_perf_fixed_s(gpu, o) : 0, gpu->cpu ? o->run_s : 0};
    if (!oc_ktables_time(tables, &f, dtype, (int32_t)oc_perf_effective_math(o->math, dtype),
                         gpu->cpu ? gpu->threads : 0, fixed, &s, &np->table_extrapolated))
        return;
    np->from_table = true;
    np->t_runs = oc_kfamily_memory(f.family) && f.x[1] > 1 ? (f.x[1] - 1) * fixed.run_s : 0; /* within s */
    np->op_eff = 1; /* the table's time, not the roofline's */
    np->time = s + (gpu->cpu ? 0 : o->launch_s);
    np->bound = oc_kfamily_memory(f.family) ? OC_BOUND_MEMORY : OC_BOUND_COMPUTE;
}

/* A contraction's reduction length (kernels.h's features: a GEMM's K, a
   convolution's input channels per group times its window): of the node,
   or, for a group's kernel on a node that is no contraction itself (a
   Linear at its bias Add), of the contraction it reads; 0 when unknown. */
static double oc_perf_reduction(const struct oc_graph *g, const struct oc_node *n) {
    const struct oc_node *c = n;
    for (int32_t k = 0; c->cost.macs == 0 && k < n->n_in; k++) {
        int32_t v = n->in[k];
        if (v >= 0 && g->values[v].producer >= 0 && g->nodes[g->values[v].producer].cost.macs > 0)
            c = &g->nodes[g->values[v].producer];
    }
    struct oc_kfeat f;
    oc_kernel_features(g, c, false, &f);
    return f.family != OC_KF_NONE && oc_kfamily_memory(f.family) == false ? f.x[2] : 0;
}

/* Under eager PyTorch a contraction of reduction length K computes at
   K / (K + OC_PERF_K_HALF) of its rate: each output tile's prologue and
   epilogue (its first operands loaded, the tile and its bias written) take
   about as long as OC_PERF_K_HALF steps of the reduction, which a short
   one does not amortize. Its compute time grows so, and the node's time
   with it where that makes it the longer term. */
static void oc_perf_short_reduction(const struct oc_graph *g, const struct oc_node *n, struct oc_node_perf *np) {
    double k = oc_perf_reduction(g, n);
    if (k <= 0 || np->from_table)
        return;
    double before = np->t_compute > np->t_memory ? np->t_compute : np->t_memory;
    np->t_compute *= (k + OC_PERF_K_HALF) / k;
    double after = np->t_compute > np->t_memory ? np->t_compute : np->t_memory;
    np->time += after - before;
    if (np->t_compute >= np->t_memory)
        np->bound = OC_BOUND_COMPUTE;
}

/* A count the model holds as a double, as the node terms take it: at most
   1.8e19 (a saturated count stays below UINT64_MAX) */
static uint64_t oc_perf_count(double x) { return x < 1.8e19 ? (uint64_t)x : (uint64_t)1.8e19; }

/* A GPU kernel's class (enum oc_kclass): a runtime group's by its kind, a
   node's own by its kernel family */
static enum oc_kclass oc_perf_kclass(const struct oc_graph *g, const struct oc_node *n, uint8_t kind,
                                     bool contraction) {
    if (kind == OC_RT_ATTENTION)
        return OC_KC_ATTENTION;
    if (kind == OC_RT_LINEAR)
        return OC_KC_GEMM;
    if (kind == OC_RT_POINTWISE)
        return OC_KC_ELTWISE;
    if (kind == OC_RT_NORM)
        return OC_KC_REDUCE;
    if (kind == OC_RT_FUSED)
        return OC_KC_FUSED;
    struct oc_kfeat f;
    oc_kernel_features(g, n, false, &f);
    switch (f.family) {
    case OC_KF_GEMM: return OC_KC_GEMM;
    case OC_KF_CONV_3X3: return OC_KC_CONV_3X3;
    case OC_KF_CONV_KXK: return OC_KC_CONV_KXK;
    case OC_KF_CONV_1X1: return OC_KC_CONV_1X1;
    case OC_KF_CONV_GROUPED: return OC_KC_CONV_GROUPED;
    case OC_KF_CONV_DEPTHWISE: return OC_KC_CONV_DEPTHWISE;
    case OC_KF_REDUCE: return OC_KC_REDUCE;
    case OC_KF_POOL: return OC_KC_POOL;
    case OC_KF_MOVE: return OC_KC_MOVE;
    case OC_KF_ELTWISE: return OC_KC_ELTWISE;
    default: return contraction ? OC_KC_GEMM : OC_KC_ELTWISE;
    }
}

enum oc_status oc_perf_estimate(const struct oc_analysis *an, const struct oc_gpu *gpu, const struct oc_perf_opts *o,
                                struct oc_perf *out) {
    const struct oc_graph *g = an->graph;
    memset(out, 0, sizeof *out);
    out->gpu = gpu;
    out->opts = *o;
    out->n_nodes = g->n_nodes;
    out->nodes = calloc((size_t)g->n_nodes + 1, sizeof *out->nodes);
    if (!out->nodes)
        return OC_ERR_NOMEM;
    const bool nchwc_graph = gpu->cpu && oc_graph_nchwc(g);
    struct oc_runtime_plan plan = {0};
    if ((o->runtime != OC_RUNTIME_NODES || o->autocast) &&
        oc_runtime_plan(g, o, &plan) != OC_OK) {
        oc_perf_free(out);
        return OC_ERR_NOMEM;
    }
    /* the kernel classes' factors: the options' where they hold any, else a
       built-in GPU's fit for this runtime and autocast */
    double class_factor[OC_KC_COUNT];
    bool own = false;
    for (int c = 0; c < OC_KC_COUNT; c++)
        own |= o->eff_class[c] > 0;
    out->fit = !own && o->builtin_fit ? oc_builtin_fit_for(gpu, o) : NULL;
    for (int c = 0; c < OC_KC_COUNT; c++)
        class_factor[c] = out->fit ? out->fit->factor[c] : o->eff_class[c];
    for (int32_t r = 0; r < g->n_nodes; r++) {
        const struct oc_node *n = &g->nodes[g->order[r]];
        struct oc_node_perf *np = &out->nodes[n->index];
        uint64_t flops, bytes;
        if (!oc_node_kernel_cost(g, n, &flops, &bytes)) {
            out->n_unknown++;
            continue;
        }
        int32_t anchor = plan.anchor ? plan.anchor[n->index] : -1;
        if (anchor >= 0) { /* the runtime runs it in a group's kernel: the group's work on its last node */
            if (anchor != n->index) {
                np->known = np->grouped = true; /* no kernel of its own: no time */
                np->group_anchor = anchor;
                np->group_kind = plan.kind[anchor];
                continue;
            }
            flops = oc_perf_count(plan.flops[n->index]);
            bytes = oc_perf_count(plan.bytes[n->index]);
        } else if (plan.bytes_scale && plan.bytes_scale[n->index] != 1) { /* autocast's types */
            bytes = oc_perf_count((double)bytes * plan.bytes_scale[n->index]);
        }
        double peak;
        int32_t dt = plan.dtype && plan.dtype[n->index] ? plan.dtype[n->index] : oc_node_compute_dtype(g, n, o->dtype);
        bool contraction = n->cost.macs > 0 || (anchor == n->index && plan.contraction[anchor]);
        enum oc_unit u = oc_perf_unit(gpu, dt, contraction, o->math, &peak);
        uint64_t outputs = 0;
        if (!contraction || n->n_out < 1 || n->out[0] < 0 || !oc_value_numel(&g->values[n->out[0]], &outputs))
            outputs = 0; /* not a contraction, or its output's size unknown: no parallelism term */
        /* a CPU skips the taps over padding, and runs the positions near it slower */
        double inside = gpu->cpu ? oc_perf_conv_cpu_share(g, n, o->pad_path) : 1;
        if (inside != 1) {
            double scaled = (double)flops * inside;
            flops = scaled < 1.8e19 ? (uint64_t)scaled : (uint64_t)1.8e19;
        }
        struct oc_perf_recurrence rec = {0, 0, 0, 0};
        if (gpu->cpu)
            oc_perf_rnn_recurrence(g, n, &rec);
        oc_perf_node_terms(gpu, o, u, oc_perf_conv_op(n->op_type), (double)outputs,
                           oc_perf_op_efficiency(o, n->op_type), peak, (double)flops, (double)bytes,
                           oc_perf_conv_expand_bytes(g, n, nchwc_graph), &rec, gpu->cpu ? oc_kernel_runs(g, n) : 0,
                           np); /* 0 bytes off a CPU */
        if (gpu->cpu && np->bound == OC_BOUND_NONE && oc_cpu_runs(n)) {
            /* a node the runtime runs without a kernel of the model's: its own cost */
            np->time = oc_perf_light_s(gpu, o);
            out->n_light++;
            out->launch_time += o->launch_s;
        }
        if (gpu->tables && np->bound != OC_BOUND_NONE) {
            oc_perf_from_table(gpu, g, n, nchwc_graph, dt, inside, o, np);
        }
        if (!gpu->cpu && o->runtime == OC_RUNTIME_TORCH_EAGER && contraction && np->bound != OC_BOUND_NONE)
            oc_perf_short_reduction(g, n, np);
        if (np->from_table) {
            out->n_from_table++;
            out->time_from_table += np->time;
        }
        if (anchor == n->index) { /* the group's kernel (set after the terms, which fill np whole) */
            np->grouped = true;
            np->group_anchor = anchor;
            np->group_kind = plan.kind[anchor];
        }
        if (!gpu->cpu && np->bound != OC_BOUND_NONE) { /* its kernel class, and that class's factor */
            np->classed = true;
            np->kclass = (uint8_t)oc_perf_kclass(g, n, anchor == n->index ? plan.kind[anchor] : OC_RT_OWN, contraction);
            double f = class_factor[np->kclass], body = np->time - o->launch_s;
            bool additive = out->fit && out->fit->memory > 0 && oc_kclass_contraction(np->kclass) &&
                            !np->from_table;
            if (additive && f > 0) { /* compute and memory in turn (oc_builtin_fit.memory) */
                np->t_compute /= f, np->t_memory /= out->fit->memory;
                np->time = np->t_compute + np->t_memory + o->launch_s;
            } else if (f > 0 && body > 0) {
                np->time = body / f + o->launch_s;
                np->t_compute /= f, np->t_memory /= f;
            }
            out->class_time[np->kclass] += np->time - o->launch_s;
            if (oc_kclass_contraction(np->kclass) && !np->from_table) {
                out->class_compute[np->kclass] += np->t_compute;
                out->class_memory[np->kclass] += np->t_memory;
            }
        }
        if (plan.extra_kernels && plan.extra_kernels[n->index] > 0) { /* passes of their own beside the node */
            int32_t k = plan.extra_kernels[n->index];
            double pass = oc_perf_stream_s(gpu, o, plan.extra_bytes[n->index], -1);
            if (class_factor[OC_KC_PASS] > 0)
                pass /= class_factor[OC_KC_PASS];
            out->class_time[OC_KC_PASS] += pass;
            np->t_extra = pass + k * o->launch_s;
            np->time += np->t_extra;
            out->n_kernels += k;
            out->launch_time += k * o->launch_s;
            out->time_memory += np->t_extra;
        }
        out->time += np->time;
        if (peak > 0)
            out->ideal_compute += (double)flops / peak;
        if (np->bound == OC_BOUND_NONE)
            continue;
        out->n_kernels++;
        out->launch_time += o->launch_s;
        if (np->bound == OC_BOUND_MEMORY) {
            out->n_memory_bound++;
            out->time_memory += np->time;
        } else {
            out->n_compute_bound++;
        }
    }
    if (o->gap_s > 0) { /* the runtime's time between kernels (on a CPU, between every node it runs) */
        out->gap_time = (out->n_kernels + out->n_light) * o->gap_s;
        out->time += out->gap_time;
    }
    out->device_time = out->time;
    if (o->host_s > 0 && out->n_kernels * o->host_s > out->time) { /* the device waits for the host */
        out->time = out->n_kernels * o->host_s;
        out->host_bound = true;
    }
    out->batch = out->tokens = -1;
    if (g->n_inputs > 0) {
        const struct oc_value *in = &g->values[g->inputs[0]];
        if (in->rank > 0 && in->dims[0].value > 0)
            out->batch = in->dims[0].value;
        if (in->rank == 2 && oc_dtype_is_int(in->dtype) && out->batch > 0 && in->dims[1].value > 0 &&
            in->dims[1].value <= INT64_MAX / out->batch)
            out->tokens = out->batch * in->dims[1].value;
    }
    if (out->time > 0 && out->batch > 0)
        out->samples_per_s = (double)out->batch / out->time;
    if (out->time > 0 && out->tokens > 0)
        out->tokens_per_s = (double)out->tokens / out->time;
    oc_runtime_plan_free(&plan);
    return OC_OK;
}

void oc_perf_free(struct oc_perf *p) {
    free(p->nodes);
    p->nodes = NULL;
}
