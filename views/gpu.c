/*
 * gpu.c — the GPU table and the static performance model (gpu.h,
 * docs/MODEL.md for the formulas and the default efficiencies).
 */
#include "gpu.h"

#include "../analyzer/attr.h"
#include "../analyzer/dtype.h"
#include "../analyzer/shape.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define TF 1e12
#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

struct oc_gpu_row {
    struct oc_gpu gpu;
    const char *aliases;
};

static const struct oc_gpu_row oc_gpus[] = {
#define OC_GPU(id_, al, nm, f64, f64tc, f32, f16, tf32, f16tc, bf16tc, f8tc, i8tc, mem, bw, l2, sm, mhz, lk, lkname) \
    {{.id = id_,                                                                                             \
      .name = nm,                                                                                            \
      .peak = {[OC_UNIT_FP64] = (f64) * TF,                                                                  \
               [OC_UNIT_FP64_TC] = (f64tc) * TF,                                                             \
               [OC_UNIT_FP32] = (f32) * TF,                                                                  \
               [OC_UNIT_FP16] = (f16) * TF,                                                                  \
               [OC_UNIT_TF32_TC] = (tf32) * TF,                                                              \
               [OC_UNIT_FP16_TC] = (f16tc) * TF,                                                             \
               [OC_UNIT_BF16_TC] = (bf16tc) * TF,                                                            \
               [OC_UNIT_FP8_TC] = (f8tc) * TF,                                                               \
               [OC_UNIT_INT8_TC] = (i8tc) * TF},                                                             \
      .mem_bytes = (uint64_t)((mem) * GIB),                                                                  \
      .mem_bw = (bw) * 1e9,                                                                                  \
      .l2_bytes = (uint64_t)((l2) * MIB),                                                                    \
      .sms = (sm),                                                                                           \
      .boost_mhz = (mhz),                                                                                    \
      .link_bw = (lk) * 1e9,                                                                                 \
      .link = lkname},                                                                                       \
     al},
#include "gpus.def"
#undef OC_GPU
};

int32_t oc_gpu_count(void) {
    return (int32_t)(sizeof oc_gpus / sizeof oc_gpus[0]);
}

const struct oc_gpu *oc_gpu_at(int32_t i) {
    return i >= 0 && i < oc_gpu_count() ? &oc_gpus[i].gpu : NULL;
}

/* Lower case without spaces, '-', '_' and a leading "nvidia". */
static void oc_gpu_norm(const char *s, char *out, size_t size) {
    size_t n = 0;
    for (; *s && n + 1 < size; s++)
        if (*s != ' ' && *s != '-' && *s != '_')
            out[n++] = (char)tolower((unsigned char)*s);
    out[n] = 0;
    if (strncmp(out, "nvidia", 6) == 0)
        memmove(out, out + 6, n - 6 + 1);
}

const struct oc_gpu *oc_gpu_find(const char *name) {
    char want[96], have[96];
    if (!name || strlen(name) >= sizeof want)
        return NULL;
    oc_gpu_norm(name, want, sizeof want);
    if (!want[0])
        return NULL;
    for (int32_t i = 0; i < oc_gpu_count(); i++) {
        oc_gpu_norm(oc_gpus[i].gpu.id, have, sizeof have);
        if (strcmp(want, have) == 0)
            return &oc_gpus[i].gpu;
    }
    for (int32_t i = 0; i < oc_gpu_count(); i++) {
        const char *a = oc_gpus[i].aliases;
        size_t wl = strlen(want);
        while (*a) {
            size_t l = strcspn(a, "|");
            if (l == wl && strncmp(a, want, l) == 0)
                return &oc_gpus[i].gpu;
            a += l + (a[l] == '|');
        }
    }
    return NULL;
}

const char *oc_unit_name(enum oc_unit u) {
    static const char *const names[OC_UNIT_COUNT] = {
        [OC_UNIT_FP64] = "FP64",       [OC_UNIT_FP64_TC] = "FP64-TC", [OC_UNIT_FP32] = "FP32",
        [OC_UNIT_FP16] = "FP16",       [OC_UNIT_TF32_TC] = "TF32-TC", [OC_UNIT_FP16_TC] = "FP16-TC",
        [OC_UNIT_BF16_TC] = "BF16-TC", [OC_UNIT_FP8_TC] = "FP8-TC",   [OC_UNIT_INT8_TC] = "INT8-TC",
    };
    return (unsigned)u < OC_UNIT_COUNT ? names[u] : "?";
}

static const char *const oc_math_names[OC_MATH_COUNT] = {"auto", "fp32", "tf32", "fp16"};

bool oc_math_parse(const char *s, enum oc_math *out) {
    for (int m = 0; s && m < OC_MATH_COUNT; m++)
        if (strcmp(s, oc_math_names[m]) == 0) {
            *out = (enum oc_math)m;
            return true;
        }
    return false;
}

const char *oc_math_name(enum oc_math m) {
    return (unsigned)m < OC_MATH_COUNT ? oc_math_names[m] : "?";
}

void oc_perf_defaults(struct oc_perf_opts *o) {
    memset(o, 0, sizeof *o);
    o->math = OC_MATH_AUTO;
    o->eff_compute = 0.6;
    o->eff_memory = 0.8;
    o->eff_comm = 0.75;
    o->launch_s = 5e-6;
    o->allreduce_latency_s = 10e-6;
    o->bucket_bytes = 25u << 20;
}

bool oc_perf_use_measured(const struct oc_gpu *gpu, unsigned set, struct oc_perf_opts *o) {
    const struct oc_gpu_efficiency *m = &gpu->measured;
    bool took = false;
    if (!(set & OC_PERF_SET_COMPUTE))
        for (int u = 0; u < OC_UNIT_COUNT; u++) {
            if (m->unit[u] > 0) {
                o->eff_unit[u] = m->unit[u];
                took = true;
            }
            if (m->conv_unit[u] > 0) {
                o->eff_conv_unit[u] = m->conv_unit[u];
                took = true;
            }
        }
    for (int k = 0; !(set & OC_PERF_SET_COMPUTE) && k < 2; k++)
        if (m->parallel_outputs[k] > 0) {
            o->parallel_outputs[k] = m->parallel_outputs[k];
            took = true;
        }
    if (!(set & OC_PERF_SET_MEMORY) && m->memory > 0) {
        o->eff_memory = m->memory;
        took = true;
    }
    for (int k = 0; !(set & OC_PERF_SET_MEMORY) && k < 4; k++)
        if (m->memory_cache[k] > 0) {
            o->eff_memory_cache[k] = m->memory_cache[k];
            took = true;
        }
    if (!(set & OC_PERF_SET_LAUNCH) && m->has_launch) {
        o->launch_s = m->launch_s;
        took = true;
    }
    if (!(set & OC_PERF_SET_LAUNCH) && m->host_s > 0) {
        o->host_s = m->host_s;
        took = true;
    }
    if (!(set & OC_PERF_SET_LAUNCH) && m->gap_s > 0) {
        o->gap_s = m->gap_s;
        took = true;
    }
    if (!(set & OC_PERF_SET_LAUNCH) && m->pool_s > 0) {
        o->pool_s = m->pool_s;
        took = true;
    }
    if (!(set & OC_PERF_SET_COMPUTE) && m->pad_path > 0) {
        o->pad_path = m->pad_path;
        took = true;
    }
    if (!(set & OC_PERF_SET_LAUNCH) && m->run_s > 0) {
        o->run_s = m->run_s;
        took = true;
    }
    if (!(set & OC_PERF_SET_LAUNCH) && m->light_s > 0) {
        o->light_s = m->light_s;
        took = true;
    }
    if (!(set & OC_PERF_SET_COMPUTE) && (m->task_s > 0 || m->split_s > 0 || m->split_share > 0)) {
        o->task_s = m->task_s;
        o->split_s = m->split_s;
        o->split_share = m->split_share;
        took = true;
    }
    if (!(set & (OC_PERF_SET_COMPUTE | OC_PERF_SET_MEMORY)) && m->ops.n > 0) {
        o->op_eff = &m->ops;
        took = true;
    }
    return took;
}

double oc_perf_unit_efficiency(const struct oc_perf_opts *o, enum oc_unit u) {
    return (unsigned)u < OC_UNIT_COUNT && o->eff_unit[u] > 0 ? o->eff_unit[u] : o->eff_compute;
}

double oc_perf_class_efficiency(const struct oc_perf_opts *o, enum oc_unit u, bool conv) {
    if (conv && (unsigned)u < OC_UNIT_COUNT && o->eff_conv_unit[u] > 0)
        return o->eff_conv_unit[u];
    return oc_perf_unit_efficiency(o, u);
}

bool oc_perf_conv_op(const char *op_type) {
    static const char *const conv[] = {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "FusedConv", "NhwcConv"};
    for (size_t i = 0; op_type && i < sizeof conv / sizeof conv[0]; i++)
        if (strcmp(op_type, conv[i]) == 0)
            return true;
    return false;
}

bool oc_perf_product_op(const char *op_type) {
    static const char *const product[] = {"MatMul",      "Gemm",      "MatMulInteger", "QLinearMatMul",
                                          "FusedMatMul", "FusedGemm", "MatMulNBits"};
    for (size_t i = 0; op_type && i < sizeof product / sizeof product[0]; i++)
        if (strcmp(op_type, product[i]) == 0)
            return true;
    return false;
}

double oc_perf_op_efficiency(const struct oc_perf_opts *o, const char *op_type) {
    if (!o->op_eff || !op_type || oc_perf_conv_op(op_type) || oc_perf_product_op(op_type))
        return 1;
    for (int32_t i = 0; i < o->op_eff->n; i++)
        if (strcmp(o->op_eff->at[i].op, op_type) == 0)
            return o->op_eff->at[i].factor > 0 ? o->op_eff->at[i].factor : 1;
    return 1;
}

int32_t oc_node_compute_dtype(const struct oc_graph *g, const struct oc_node *n, int32_t override) {
    int32_t found = 0;
    for (int32_t k = 0; k < n->n_out && !found; k++)
        if (n->out[k] >= 0 && (oc_dtype_is_float(g->values[n->out[k]].dtype)))
            found = g->values[n->out[k]].dtype;
    for (int32_t k = 0; k < n->n_in && !found; k++)
        if (n->in[k] >= 0 && oc_dtype_is_float(g->values[n->in[k]].dtype))
            found = g->values[n->in[k]].dtype;
    if (!found && n->n_in > 0 && n->in[0] >= 0) { /* integer contractions (MatMulInteger, QLinearConv) */
        int32_t dt = g->values[n->in[0]].dtype;
        if (dt == OC_DT_INT8 || dt == OC_DT_UINT8)
            found = dt;
    }
    if (found && override && oc_dtype_is_float(found))
        return override;
    return found;
}

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

bool oc_gpu_at_threads(const struct oc_gpu *g, int32_t n, struct oc_gpu *out, char *name, size_t size) {
    const struct oc_cpu_scaling *s = &g->scaling;
    if (!g->cpu || s->threads < 1 || n < 1)
        return false;
    *out = *g;
    int32_t t = s->threads, used = n < t ? n : t;
    double f = t > 1 ? (double)(used - 1) / (double)(t - 1) : 1.0; /* 0 at one thread, 1 at all */
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (g->peak[u] > 0 && s->peak_one[u] > 0)
            out->peak[u] = s->peak_one[u] + (g->peak[u] - s->peak_one[u]) * f;
    if (s->mem_one > 0)
        out->mem_bw = s->mem_one + (g->mem_bw - s->mem_one) * f;
    for (int32_t k = 0; k < g->n_caches && k < 4; k++)
        if (s->cache_one[k] && s->shared_by[k] > 0 && s->cache_bw_one[k] > 0) {
            uint64_t instances = (uint64_t)((used + s->shared_by[k] - 1) / s->shared_by[k]);
            out->cache_bytes[k] = s->cache_one[k] * instances;
            out->cache_bw[k] = s->cache_bw_one[k] + (g->cache_bw[k] - s->cache_bw_one[k]) * f;
        }
    /* "AMD EPYC, 2 threads" -> "AMD EPYC, 1 thread" */
    const char *comma = strrchr(g->name, ',');
    int len = comma && strstr(comma, "thread") ? (int)(comma - g->name) : (int)strlen(g->name);
    snprintf(name, size, "%.*s, %d thread%s", len, g->name, (int)n, n == 1 ? "" : "s");
    out->id = out->name = name;
    out->threads = n;
    out->scaling.threads = 0; /* its rates are no longer the all-thread ones: not scaled again */
    return true;
}

int32_t oc_gpu_level_for(const struct oc_gpu *gpu, uint64_t bytes) {
    for (int32_t k = 0; k < gpu->n_caches && k < 4; k++)
        if (bytes <= gpu->cache_bytes[k] && gpu->cache_bw[k] > 0)
            return k;
    return -1;
}

/* the bandwidth of cache level k (oc_gpu_level_for), or of memory for -1 */
static double oc_gpu_level_bw(const struct oc_gpu *gpu, int32_t k) { return k >= 0 ? gpu->cache_bw[k] : gpu->mem_bw; }

double oc_gpu_bandwidth_for(const struct oc_gpu *gpu, uint64_t bytes) {
    return oc_gpu_level_bw(gpu, oc_gpu_level_for(gpu, bytes));
}

double oc_perf_memory_efficiency(const struct oc_perf_opts *o, int32_t level) {
    return level >= 0 && level < 4 && o->eff_memory_cache[level] > 0 ? o->eff_memory_cache[level] : o->eff_memory;
}

/* seconds to stream bytes at cache level (or memory, -1) with its memory
   factor; 0 without a bandwidth or a factor */
static double oc_perf_stream_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double bytes, int32_t level) {
    double bw = oc_gpu_level_bw(gpu, level), eff = oc_perf_memory_efficiency(o, level);
    return bw > 0 && eff > 0 ? bytes / (bw * eff) : 0;
}

/* a node's fixed cost: the launch, and on more than one thread of a CPU the pool's */
static double oc_perf_fixed_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o) {
    return o->launch_s + (gpu->cpu && gpu->threads > 1 ? o->pool_s : 0);
}

/* A CPU on more than one thread (oc_perf_opts.task_s, split_s,
 * split_share): a node of less than task_s of one thread's time is not
 * split, and runs at one thread's rates (the probe's one-thread figures); a
 * larger one gets split_share of the speedup the threads' rates give over
 * one thread's (at most the thread count: the probe's triads on two threads
 * of a shared L3 ran 2.6x one's), and pays split_s; bw is the threads' rate at
 * the node's level. Returns the added seconds. */
static double oc_perf_cpu_split(const struct oc_gpu *gpu, const struct oc_perf_opts *o, enum oc_unit unit,
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
    double bw = oc_gpu_level_bw(gpu, level);
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

bool oc_node_constant(const struct oc_graph *g, const struct oc_node *n) {
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
        return false;
    if (strcmp(n->op_type, "Constant") == 0)
        return true;
    if (strcmp(n->op_type, "ConstantOfShape") != 0 && strcmp(n->op_type, "Range") != 0)
        return false;
    for (int32_t k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && !g->values[n->in[k]].ival && !g->values[n->in[k]].fval)
            return false;
    return true;
}

bool oc_node_folded(const struct oc_graph *g, const struct oc_node *n) {
    if (oc_node_constant(g, n))
        return true;
    int32_t outs = 0;
    for (int32_t k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0)
            continue;
        if (!g->values[n->out[k]].ival)
            return false;
        outs++;
    }
    return outs > 0;
}

static bool oc_node_kernel_cost(const struct oc_graph *g, const struct oc_node *n, uint64_t *flops, uint64_t *bytes) {
    if (oc_node_folded(g, n)) {
        *flops = *bytes = 0;
        return true;
    }
    if (n->cost.flags & OC_COST_UNKNOWN)
        return false;
    *flops = n->cost.flops;
    *bytes = n->cost.bytes_read + n->cost.bytes_written;
    if (*bytes < n->cost.bytes_read)
        *bytes = UINT64_MAX;
    return true;
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
static void oc_perf_cpu_expand(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double expand_bytes,
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
static void oc_perf_cpu_recurrence(const struct oc_gpu *gpu, const struct oc_perf_opts *o,
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
static void oc_perf_cpu_runs(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double runs,
                             struct oc_node_perf *np) {
    if (!gpu->cpu || !(runs > 1) || np->bound == OC_BOUND_NONE)
        return;
    np->runs = runs;
    np->t_runs = (runs - 1) * (o->run_s > 0 ? o->run_s : 0);
    np->time += np->t_runs;
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
    for (int32_t r = 0; r < g->n_nodes; r++) {
        const struct oc_node *n = &g->nodes[g->order[r]];
        struct oc_node_perf *np = &out->nodes[n->index];
        uint64_t flops, bytes;
        if (!oc_node_kernel_cost(g, n, &flops, &bytes)) {
            out->n_unknown++;
            continue;
        }
        double peak;
        int32_t dt = oc_node_compute_dtype(g, n, o->dtype);
        enum oc_unit u = oc_perf_unit(gpu, dt, n->cost.macs > 0, o->math, &peak);
        uint64_t outputs = 0;
        if (n->cost.macs == 0 || n->n_out < 1 || n->out[0] < 0 || !oc_value_numel(&g->values[n->out[0]], &outputs))
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
        if (np->from_table) {
            out->n_from_table++;
            out->time_from_table += np->time;
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
    return OC_OK;
}

void oc_perf_free(struct oc_perf *p) {
    free(p->nodes);
    p->nodes = NULL;
}

double oc_allreduce_time(const struct oc_gpu *gpu, const struct oc_perf_opts *o, uint64_t bytes, int32_t n) {
    if (n <= 1 || !bytes || gpu->link_bw <= 0)
        return 0;
    double buckets = o->bucket_bytes ? ceil((double)bytes / (double)o->bucket_bytes) : 1;
    return 2.0 * (n - 1) / n * (double)bytes / (gpu->link_bw * o->eff_comm) +
           buckets * 2.0 * (n - 1) * o->allreduce_latency_s;
}

void oc_data_parallel(const struct oc_perf *p, const struct oc_analysis *an, const struct oc_training *tr,
                      int32_t n_gpus, struct oc_data_parallel *out) {
    const struct oc_graph *g = an->graph;
    memset(out, 0, sizeof *out);
    out->n_gpus = n_gpus;
    out->forward = p->time;
    double kernels = 0; /* the backward pass's, for the host floor */
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const struct oc_node_perf *np = &p->nodes[i];
        if (np->known)
            out->backward += (g->nodes[i].cost.macs > 0 ? 2.0 : 1.0) * np->time;
        if (np->known && np->bound != OC_BOUND_NONE)
            kernels += g->nodes[i].cost.macs > 0 ? 2.0 : 1.0;
    }
    if (p->opts.host_s > 0 && kernels * p->opts.host_s > out->backward)
        out->backward = kernels * p->opts.host_s;
    bool *folded = p->opts.folded_bn ? oc_folded_bn_convs(g) : NULL;
    if (p->opts.folded_bn && !folded) /* out of memory: the passes are unknown, not none */
        out->batchnorm = NAN;
    for (int32_t i = 0; folded && i < g->n_nodes; i++) { /* the BatchNorms training runs */
        const struct oc_node *nd = &g->nodes[i];
        if (!p->nodes[i].known || !folded[i])
            continue;
        double bytes = 6.0 * (double)nd->activation_bytes;
        double t = oc_perf_stream_s(p->gpu, &p->opts, bytes, oc_gpu_level_for(p->gpu, (uint64_t)bytes));
        out->batchnorm += t + 2 * p->opts.launch_s;
    }
    free(folded);
    static const double streams[OC_OPT_COUNT] = {[OC_OPT_SGD] = 3, [OC_OPT_MOMENTUM] = 5, [OC_OPT_ADAM] = 7};
    out->grad_bytes = tr->grad_bytes;
    if (tr->grad_bytes)
        out->update = streams[tr->optimizer] * (double)tr->grad_bytes / (p->gpu->mem_bw * p->opts.eff_memory) +
                      p->opts.launch_s;
    out->step1 = out->forward + out->backward + out->update + out->batchnorm;
    out->allreduce = oc_allreduce_time(p->gpu, &p->opts, tr->grad_bytes, n_gpus);
    out->step_serial = out->step1 + out->allreduce;
    out->step_overlap = out->forward + (out->backward > out->allreduce ? out->backward : out->allreduce) + out->update +
                        out->batchnorm;
    if (out->step_serial > 0) {
        out->speedup_serial = n_gpus * out->step1 / out->step_serial;
        out->speedup_overlap = n_gpus * out->step1 / out->step_overlap;
        out->allreduce_share = out->allreduce / out->step_serial;
    }
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

uint64_t oc_fit_need_inference(const struct oc_analysis *an) {
    /* every initializer: quantized weights are not float parameters but
       occupy the device all the same */
    uint64_t w = an->totals.initializer_bytes, s = w + an->totals.peak_activation_bytes;
    return s < w ? UINT64_MAX : s;
}

uint64_t oc_fit_need(const struct oc_analysis *an, bool training, enum oc_optimizer opt, unsigned saved_rules, bool *exact) {
    bool ex = oc_totals_exact(&an->totals) && an->totals.peak_complete;
    uint64_t need = oc_fit_need_inference(an);
    if (training) {
        struct oc_training tr;
        oc_training_estimate(an, opt, 0, saved_rules, &tr);
        need = tr.total_bytes;
        ex = ex && tr.complete;
    }
    if (exact)
        *exact = ex;
    return need;
}

enum oc_fit_verdict oc_fit_verdict(uint64_t need, bool need_exact, uint64_t usable) {
    return need > usable ? OC_FIT_NO : need_exact ? OC_FIT_YES : OC_FIT_MAYBE;
}

/* Need at one batch size; *work is the analysis the probes share (built by
 * the first, re-run by the others, so the graph is decoded once). */
static enum oc_status oc_fit_probe(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                   enum oc_optimizer opt, unsigned saved_rules, int64_t batch, uint64_t *need, struct oc_analysis **work,
                                   struct oc_diag *d) {
    struct oc_analyze_opts o = *base;
    o.batch = batch;
    enum oc_status st = *work ? OC_OK : oc_analysis_prepare(m, &o, work, d);
    if (st == OC_OK)
        st = oc_analysis_rerun(*work, &o, d);
    if (st == OC_OK)
        *need = oc_fit_need(*work, training, opt, saved_rules, NULL);
    return st;
}

static enum oc_status oc_fit_search(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                enum oc_optimizer opt, unsigned saved_rules, uint64_t usable, int64_t *max_batch, bool *capped,
                                struct oc_analysis **w, struct oc_diag *d) {
    uint64_t n1, n2, need;
    *max_batch = 0;
    *capped = false;
    enum oc_status st = oc_fit_probe(m, base, training, opt, saved_rules, 1, &n1, w, d);
    if (st == OC_OK)
        st = oc_fit_probe(m, base, training, opt, saved_rules, 2, &n2, w, d);
    if (st != OC_OK)
        return st;
    if (n1 == n2) {
        *max_batch = -1;
        return OC_OK;
    }
    if (n1 > usable)
        return OC_OK;
    int64_t lo = 1, hi = 2; /* lo fits; hi is the next probe */
    while (hi <= OC_FIT_BATCH_CAP) {
        if ((st = oc_fit_probe(m, base, training, opt, saved_rules, hi, &need, w, d)) != OC_OK)
            return st;
        if (need > usable)
            break;
        lo = hi;
        hi *= 2;
    }
    if (hi > OC_FIT_BATCH_CAP) {
        *max_batch = lo;
        *capped = true;
        return OC_OK;
    }
    while (hi - lo > 1) { /* lo fits, hi does not */
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = oc_fit_probe(m, base, training, opt, saved_rules, mid, &need, w, d)) != OC_OK)
            return st;
        if (need > usable)
            hi = mid;
        else
            lo = mid;
    }
    *max_batch = lo;
    return OC_OK;
}

enum oc_status oc_fit_max_batch(const struct oc_model *m, const struct oc_analyze_opts *base, bool training,
                                enum oc_optimizer opt, unsigned saved_rules, uint64_t usable, int64_t *max_batch, bool *capped,
                                struct oc_diag *d) {
    struct oc_analysis *work = NULL;
    enum oc_status st = oc_fit_search(m, base, training, opt, saved_rules, usable, max_batch, capped, &work, d);
    oc_analysis_free(work);
    return st;
}

uint64_t oc_gpu_usable(const struct oc_gpu *gpu, uint64_t reserve) {
    return gpu->mem_bytes > reserve ? gpu->mem_bytes - reserve : 0;
}

enum oc_status oc_fit_compute(const struct oc_model *m, const struct oc_analyze_opts *opts,
                              const struct oc_analysis *an, const struct oc_gpu *gpu, bool training,
                              enum oc_optimizer opt, unsigned saved_rules, unsigned suggested_rules, uint64_t reserve,
                              struct oc_fit *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    out->training = training;
    out->need = oc_fit_need(an, training, opt, saved_rules, &out->need_exact);
    out->reserve = reserve;
    out->usable = oc_gpu_usable(gpu, reserve);
    enum oc_status st =
        oc_fit_max_batch(m, opts, training, opt, saved_rules, out->usable, &out->max_batch, &out->max_batch_capped, d);
    if (st != OC_OK || !training || !(suggested_rules & ~saved_rules))
        return st;
    unsigned rules = saved_rules | suggested_rules;
    out->alt_rules = suggested_rules & ~saved_rules;
    out->alt_need = oc_fit_need(an, training, opt, rules, &out->alt_need_exact);
    return oc_fit_max_batch(m, opts, training, opt, rules, out->usable, &out->alt_max_batch, &out->alt_max_batch_capped,
                            d);
}
