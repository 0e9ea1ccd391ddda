/*
 * options.c — the model's options (perf.h, struct oc_perf_opts): their
 * defaults, the factors a calibrated device spec carries taken into them,
 * and the factor each node reads: its unit's, its class's (convolutions or
 * the other contractions), its op's own (docs/MODEL.md "Calibration").
 */
#include "perf.h"

#include <math.h>
#include <string.h>

void oc_perf_defaults(struct oc_perf_opts *o) {
    memset(o, 0, sizeof *o);
    o->math = OC_MATH_AUTO;
    o->eff_compute = 0.6;
    o->eff_memory = 0.8;
    o->eff_comm = 0.75;
    o->launch_s = 5e-6;
    o->allreduce_latency_s = 10e-6;
    o->bucket_bytes = 25u << 20;
    o->builtin_fit = true;
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
                                          "FusedMatMul", "FusedGemm", "MatMulNBits",   "DynamicQuantizeMatMul",
                                          "MatMulIntegerToFloat"};
    for (size_t i = 0; op_type && i < sizeof product / sizeof product[0]; i++)
        if (strcmp(op_type, product[i]) == 0)
            return true;
    return false;
}

bool oc_perf_library_contraction(const struct oc_node *n) {
    return n->cost.macs > 0 &&
           (oc_perf_conv_op(n->op_type) || oc_perf_product_op(n->op_type) || oc_node_is(n, "Einsum"));
}

double oc_perf_op_efficiency(const struct oc_perf_opts *o, const char *op_type) {
    if (!o->op_eff || !op_type || oc_perf_conv_op(op_type) || oc_perf_product_op(op_type))
        return 1;
    for (int32_t i = 0; i < o->op_eff->n; i++)
        if (strcmp(o->op_eff->at[i].op, op_type) == 0)
            return o->op_eff->at[i].factor > 0 ? o->op_eff->at[i].factor : 1;
    return 1;
}
