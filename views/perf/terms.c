/*
 * terms.c — the terms every part of the node model reads (terms.h): what a
 * node moves and computes as a kernel (none where the analysis folded it),
 * the type it computes in, and the time to stream bytes from a level at the
 * memory factors.
 */
#include "terms.h"

#include "../../analyzer/dtype.h"

#include <string.h>

int32_t oc_node_compute_dtype(const struct oc_graph *g, const struct oc_node *n, int32_t override) {
    int32_t found = 0;
    if (strcmp(n->domain, "com.microsoft") == 0 &&
        (strcmp(n->op_type, "DynamicQuantizeMatMul") == 0 || strcmp(n->op_type, "MatMulIntegerToFloat") == 0)) {
        /* float in or out, the products 8-bit: B's type */
        int32_t dt = n->n_in > 1 && n->in[1] >= 0 ? g->values[n->in[1]].dtype : 0;
        if (dt == OC_DT_INT8 || dt == OC_DT_UINT8)
            return dt;
    }
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

double oc_perf_memory_efficiency(const struct oc_perf_opts *o, int32_t level) {
    return level >= 0 && level < 4 && o->eff_memory_cache[level] > 0 ? o->eff_memory_cache[level] : o->eff_memory;
}

/* seconds to stream bytes at cache level (or memory, -1) with its memory
   factor; 0 without a bandwidth or a factor */
double oc_perf_stream_s(const struct oc_gpu *gpu, const struct oc_perf_opts *o, double bytes, int32_t level) {
    double bw = oc_gpu_level_bandwidth(gpu, level), eff = oc_perf_memory_efficiency(o, level);
    return bw > 0 && eff > 0 ? bytes / (bw * eff) : 0;
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

bool oc_node_kernel_cost(const struct oc_graph *g, const struct oc_node *n, uint64_t *flops, uint64_t *bytes) {
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
