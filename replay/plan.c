/*
 * plan.c — the replay planner's driver: the registry's replay column, the
 * tensors every plan shares, and the checks that hold for all ops (shapes
 * known, dtypes the plugin handles, ranks within cuDNN's 8).
 */
#include "plan_host.h"

#include "../analyzer/dtype.h"
#include "../views/perf/perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the planners named in ops.def, declared and tabled in registry order */
#define OC_OP(dom, name, since, imin, imax, omin, omax, fl, buf, inf, cst, fld, rp) \
    void rp(struct oc_rp_pctx *c, struct oc_rp_plan *p);
#include "../analyzer/ops.def"
#undef OC_OP

static const oc_rp_plan_fn oc_rp_table[] = {
#define OC_OP(dom, name, since, imin, imax, omin, omax, fl, buf, inf, cst, fld, rp) rp,
#include "../analyzer/ops.def"
#undef OC_OP
};

oc_rp_plan_fn oc_rp_planner(const struct oc_op_def *def) {
    const struct oc_op_def *first = oc_op_at(0);
    if (!def || !first || def < first)
        return NULL;
    size_t i = (size_t)(def - first);
    _Static_assert(sizeof oc_rp_table / sizeof oc_rp_table[0] > 0, "empty registry");
    return i < OC_ARRAY_LEN(oc_rp_table) && i < oc_op_count() ? oc_rp_table[i] : NULL;
}

void oc_rp_none(struct oc_rp_pctx *c, struct oc_rp_plan *p) {
    snprintf(p->reason, sizeof p->reason, "no replay rule for %s", c->op.node->op_type);
}

/* dtypes the plugin's libraries and kernels take */
static bool oc_rp_dtype_ok(int32_t dt) {
    switch (dt) {
    case OC_DT_FLOAT: case OC_DT_FLOAT16: case OC_DT_BFLOAT16: case OC_DT_INT64: case OC_DT_INT32:
    case OC_DT_INT8: case OC_DT_UINT8: case OC_DT_BOOL:
        return true;
    default:
        return false;
    }
}

static bool oc_rp_tensor_from(struct oc_rp_plan *p, const struct oc_value *v, const struct oc_rp_plan_opts *o,
                              const char *what, int32_t i, struct oc_rp_tensor *t) {
    memset(t, 0, sizeof *t);
    if (!v) /* an omitted optional input: dtype 0 */
        return true;
    if (v->nt || v->rank < 0 || !oc_shape_known(v)) {
        snprintf(p->reason, sizeof p->reason, "%s %d ('%s') has no known shape", what, i, v->name);
        return false;
    }
    if (v->rank > OC_RP_MAX_RANK) {
        snprintf(p->reason, sizeof p->reason, "%s %d has rank %d (replay handles up to %d)", what, i, v->rank,
                 OC_RP_MAX_RANK);
        return false;
    }
    int32_t dt = v->dtype;
    if (o && o->float_dtype && oc_dtype_is_float(dt))
        dt = o->float_dtype;
    if (!oc_rp_dtype_ok(dt)) {
        snprintf(p->reason, sizeof p->reason, "%s %d is %s (replay takes f32, f16, bf16 and integer types)", what,
                 i, oc_dtype_name(dt));
        return false;
    }
    t->dtype = dt;
    t->rank = v->rank;
    uint64_t n = 1;
    for (int32_t d = 0; d < v->rank; d++) {
        t->dims[d] = v->dims[d].value;
        if (oc_mul_u64(n, (uint64_t)t->dims[d], &n) || n > (uint64_t)INT64_MAX) {
            snprintf(p->reason, sizeof p->reason, "%s %d has more than 2^63 elements", what, i);
            return false;
        }
    }
    t->numel = (int64_t)n;
    t->weight = v->kind == OC_VALUE_INITIALIZER;
    if (oc_dtype_is_float(dt)) {
        t->fill = OC_FILL_UNIFORM;
        t->lo = -1.0;
        t->hi = 1.0;
    } else if (dt == OC_DT_BOOL) {
        t->fill = OC_FILL_MASK;
    } else {
        t->fill = OC_FILL_INDEX; /* small non-negative integers; planners that
                                    read them as indices set the bounds */
        t->lo = 0;
        t->hi = 4;
    }
    return true;
}

void oc_rp_plan_node(struct oc_analysis *an, int32_t node, const struct oc_rp_plan_opts *o, struct oc_rp_plan *p) {
    memset(p, 0, sizeof *p);
    struct oc_graph *g = an->graph;
    struct oc_node *n = &g->nodes[node];
    p->node = node;
    p->name = n->name;
    p->op_type = n->op_type;
    p->kind = OC_RPK_NONE;
    if (n->status != OC_OK) {
        snprintf(p->reason, sizeof p->reason, "not analyzed: %s", n->reason ? n->reason : "shapes unknown");
        return;
    }
    /* the GPU model's rule (oc_node_folded): constants and known shape arithmetic run no kernel */
    if (oc_node_folded(g, n)) {
        p->kind = OC_RPK_ALIAS;
        snprintf(p->reason, sizeof p->reason, "%s",
                 oc_node_constant(g, n)
                     ? "a constant: folded by runtimes, no kernel per inference"
                     : "shape arithmetic known before running: runtimes fold it or compute it on the host, no kernel");
        return;
    }
    oc_rp_plan_fn fn = oc_rp_planner(n->def);
    if (!fn) {
        snprintf(p->reason, sizeof p->reason, "no replay rule for %s%s%s", n->domain[0] ? n->domain : "",
                 n->domain[0] ? "." : "", n->op_type);
        return;
    }
    if (n->n_in > OC_RP_MAX_IN || n->n_out > OC_RP_MAX_OUT) {
        snprintf(p->reason, sizeof p->reason, "%d inputs and %d outputs (replay handles up to %d and %d)", n->n_in,
                 n->n_out, OC_RP_MAX_IN, OC_RP_MAX_OUT);
        return;
    }
    struct oc_rp_pctx c = {.op = {.g = g, .node = n, .arena = &an->arena}, .opts = o};
    c.op.diag = &c.diag;
    /* an alias needs no tensors: it runs nothing */
    if (fn != oc_rp_alias) {
        p->n_in = n->n_in;
        p->n_out = n->n_out;
        for (int32_t i = 0; i < n->n_in; i++)
            if (!oc_rp_tensor_from(p, n->in[i] >= 0 ? &g->values[n->in[i]] : NULL, o, "input", i, &p->in[i]))
                return;
        for (int32_t i = 0; i < n->n_out; i++) {
            if (!oc_rp_tensor_from(p, n->out[i] >= 0 ? &g->values[n->out[i]] : NULL, o, "output", i, &p->out[i]))
                return;
            p->out[i].fill = OC_FILL_NONE;
        }
    }
    fn(&c, p);
    if (p->kind <= OC_RPK_ALIAS)
        return;
    /* nothing to compute: no kernel (cuDNN's descriptors take dims >= 1) */
    for (int32_t i = 0; i < p->n_out; i++)
        if (p->out[i].dtype && p->out[i].numel == 0) {
            p->kind = OC_RPK_ALIAS;
            snprintf(p->reason, sizeof p->reason, "output %d is empty: no work, no kernel", i);
            return;
        }
    bool dnn = strncmp(oc_rp_plan_call(p), "cudnn", 5) == 0;
    for (int32_t i = 0; dnn && i < p->n_in; i++)
        if (p->in[i].dtype && p->in[i].numel == 0) {
            p->kind = OC_RPK_NONE;
            snprintf(p->reason, sizeof p->reason, "input %d is empty (cuDNN takes dims >= 1)", i);
            return;
        }
}

const char *oc_rp_kind_name(int32_t kind) {
    static const char *const names[OC_RPK_COUNT] = {
        [OC_RPK_NONE] = "none",       [OC_RPK_ALIAS] = "alias",     [OC_RPK_CONV] = "conv",
        [OC_RPK_CONVT] = "convt",     [OC_RPK_GEMM] = "gemm",       [OC_RPK_POOL] = "pool",
        [OC_RPK_ACT] = "activation",  [OC_RPK_SOFTMAX] = "softmax", [OC_RPK_BATCHNORM] = "batchnorm",
        [OC_RPK_LRN] = "lrn",         [OC_RPK_REDUCE] = "reduce",   [OC_RPK_UNARY] = "unary",
        [OC_RPK_BINARY] = "binary",   [OC_RPK_WHERE] = "where",     [OC_RPK_COPY] = "copy",
        [OC_RPK_GATHER] = "gather",   [OC_RPK_LAYERNORM] = "layernorm", [OC_RPK_CAST] = "cast",
    };
    return kind >= 0 && kind < OC_RPK_COUNT && names[kind] ? names[kind] : "?";
}

const char *oc_rp_plan_call(const struct oc_rp_plan *p) {
    switch (p->kind) {
    case OC_RPK_ALIAS: return "";
    case OC_RPK_CONV: return "cudnnConvolutionForward";
    case OC_RPK_CONVT: return "cudnnConvolutionBackwardData";
    case OC_RPK_GEMM:
        return p->u.gemm.mode == OC_GEMM_SINGLE    ? "cublasGemmEx"
               : p->u.gemm.mode == OC_GEMM_STRIDED ? "cublasGemmStridedBatchedEx"
                                                   : "cublasGemmBatchedEx";
    case OC_RPK_POOL: return "cudnnPoolingForward";
    case OC_RPK_ACT: return "cudnnActivationForward";
    case OC_RPK_SOFTMAX: return "cudnnSoftmaxForward";
    case OC_RPK_BATCHNORM: return "cudnnBatchNormalizationForwardInference";
    case OC_RPK_LRN: return "cudnnLRNCrossChannelForward";
    case OC_RPK_REDUCE: return "cudnnReduceTensor";
    case OC_RPK_UNARY: return "oc_k_unary";
    case OC_RPK_BINARY: return oc_rp_binary_uses_cudnn(p) ? "cudnnOpTensor" : "oc_k_binary";
    case OC_RPK_WHERE: return "oc_k_where";
    case OC_RPK_COPY: return "oc_k_copy";
    case OC_RPK_GATHER: return "oc_k_gather";
    case OC_RPK_LAYERNORM: return "oc_k_layernorm";
    case OC_RPK_CAST: return "oc_k_cast";
    default: return "-";
    }
}

bool oc_rp_plan_graph(struct oc_analysis *an, const struct oc_rp_plan_opts *o,
                      bool (*keep)(void *arg, const struct oc_rp_plan *p), void *keep_arg, const char *left_out,
                      struct oc_rp_plan **plans, int32_t *n) {
    const struct oc_graph *g = an->graph;
    *n = g->n_nodes;
    *plans = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof **plans);
    if (!*plans)
        return false;
    for (int32_t k = 0; k < g->n_nodes; k++) {
        struct oc_rp_plan *p = &(*plans)[k];
        oc_rp_plan_node(an, g->order[k], o, p);
        if (keep && !keep(keep_arg, p)) {
            if (p->kind != OC_RPK_NONE)
                snprintf(p->reason, sizeof p->reason, "%s", left_out);
            p->kind = OC_RPK_NONE;
        }
    }
    return true;
}
