/*
 * fusion.c — the fusion/ rules: fold-into-weights, unfused attention
 * (lint.h, rules.h).
 */
#include "rules.h"

/* ---- fusion/fold-into-weights ---------------------------------------------------------- */

/* Whether v is an initializer (or Constant) only node `reader` reads. */
static bool oc_own_constant(const struct oc_lint_ctx *c, int32_t v) {
    const struct oc_graph *g = c->g;
    return v >= 0 && oc_lint_stored(g, v) && g->values[v].n_consumers == 1 && !g->values[v].is_graph_output &&
           !c->implicit_read[v];
}

/* Elements of a constant that broadcasts per output channel of a Conv
   output [N, C, ...] (rank r): a scalar, or [C, 1, ..., 1] of rank r - 1 or
   r (with a leading 1). */
static bool oc_per_channel(const struct oc_value *k, const struct oc_value *y) {
    uint64_t n;
    if (!oc_value_numel(k, &n) || y->rank < 2 || k->rank > y->rank)
        return false;
    if (n == 1)
        return true;
    int32_t off = y->rank - k->rank; /* k's dim d lines up with y's dim d + off */
    for (int32_t d = 0; d < k->rank; d++) {
        int32_t yd = d + off;
        int64_t want = yd == 1 ? y->dims[1].value : 1;
        if (k->dims[d].value != want)
            return false;
    }
    return off <= 1;
}

enum oc_status oc_rule_fold_into_weights(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (!c->live[i] || n->n_in < 1 || n->in[0] < 0)
            continue;
        bool bn = oc_node_is(n, "BatchNormalization"), mul = oc_node_is(n, "Mul"), add = oc_node_is(n, "Add");
        if (!bn && !mul && !add)
            continue;
        /* the contraction before it, read by it alone */
        int32_t xin = n->in[0], kin = -1;
        if (mul || add) { /* either operand may be the constant */
            if (n->n_in != 2 || n->in[1] < 0)
                continue;
            kin = n->in[1];
            if (oc_lint_stored(g, xin) && !oc_lint_stored(g, kin)) {
                kin = n->in[0];
                xin = n->in[1];
            }
            if (!oc_lint_stored(g, kin))
                continue;
        }
        const struct oc_value *x = &g->values[xin];
        if (x->kind != OC_VALUE_NODE || x->producer < 0 || x->n_consumers != 1 || x->is_graph_output)
            continue;
        const struct oc_node *p = &g->nodes[x->producer];
        /* through the Muls and Adds by per-channel constants before it, themselves folded */
        for (int32_t hop = 0; hop < 16 && (oc_node_is(p, "Mul") || oc_node_is(p, "Add")) && p->n_in == 2; hop++) {
            int32_t pk = oc_lint_stored(g, p->in[1]) ? p->in[1] : p->in[0], px = pk == p->in[1] ? p->in[0] : p->in[1];
            if (px < 0 || pk < 0 || !oc_lint_stored(g, pk) || oc_lint_stored(g, px))
                break;
            const struct oc_value *pv = &g->values[px];
            if (pv->kind != OC_VALUE_NODE || pv->producer < 0 || pv->n_consumers != 1 || pv->is_graph_output ||
                !oc_per_channel(&g->values[pk], pv))
                break;
            x = pv;
            p = &g->nodes[pv->producer];
        }
        bool conv = oc_node_is(p, "Conv") || oc_node_is(p, "ConvTranspose");
        bool dense = oc_node_is(p, "Gemm") || oc_node_is(p, "MatMul");
        /* a dense layer's BatchNormalization folds when its channels are the features: [N, F] */
        if (!(conv || (bn && dense && x->rank == 2)) || p->n_in < 2 || p->in[1] < 0 || !oc_lint_stored(g, p->in[1]))
            continue;
        if (bn) { /* inference form: one output, every statistic stored */
            bool ok = n->n_in == 5;
            for (int32_t k = 1; k < n->n_in && ok; k++)
                ok = oc_lint_stored(g, n->in[k]);
            for (int32_t k = 1; k < n->n_out && ok; k++)
                ok = n->out[k] < 0 ||
                     (g->values[n->out[k]].n_consumers == 0 && !g->values[n->out[k]].is_graph_output);
            if (!ok)
                continue;
        } else if (!conv || !oc_per_channel(&g->values[kin], x)) {
            continue;
        }
        bool has_bias = p->n_in > 2 && p->in[2] >= 0;
        struct oc_lint_finding *f;
        char la[160], lp[160];
        f = oc_lint_add(c, OC_LINT_FOLD_INTO_WEIGHTS, "%s right after %s: fold it into the %s's weights%s",
                        oc_node_label(n, la, sizeof la), oc_node_label(p, lp, sizeof lp), p->op_type,
                        (bn || add) && !has_bias ? " and a new bias" : (bn || add) ? " and bias" : "");
        if (!f || !oc_lint_node(f, i) || !oc_lint_node(f, x->producer))
            return OC_ERR_NOMEM;
        oc_lint_node_saving(c, i, &f->saving);
        /* its constants go (those only it reads); a bias is added where the contraction has none */
        for (int32_t k = 1; k < n->n_in; k++) {
            int32_t v = bn ? n->in[k] : (k == 1 ? kin : -1);
            if (!oc_own_constant(c, v))
                continue;
            (void)oc_lint_saving_weight(c, f, v, +1);
            if (!oc_lint_value(f, v))
                return OC_ERR_NOMEM;
        }
        int32_t pi = (int32_t)(p - g->nodes);
        if ((bn || add) && !has_bias && !c->biased[pi] && x->rank >= 2 && x->dims[1].value > 0) {
            /* the contraction gains a bias: its elements, their reads, and an add per output element */
            int64_t ch = x->dims[1].value;
            uint64_t b = 0, numel = 0;
            c->biased[pi] = true;
            if (oc_dtype_bytes(g->values[p->in[1]].dtype, (uint64_t)ch, &b) && b <= INT64_MAX) {
                oc_lint_sat_i64(&f->saving.weight_bytes, -(int64_t)b);
                oc_lint_sat_i64(&f->saving.params, oc_dtype_is_float(g->values[p->in[1]].dtype) ? -ch : 0);
                f->saving.bytes_moved = f->saving.bytes_moved > b ? f->saving.bytes_moved - b : 0;
            }
            if (oc_value_numel(x, &numel))
                f->saving.flops = f->saving.flops > numel ? f->saving.flops - numel : 0;
        }
    }
    return OC_OK;
}

/* ---- fusion/unfused-attention ----------------------------------------------------------- */

/* Ops between the two MatMuls of attention: the scale, the mask, a Cast. */
static bool oc_attention_between(const struct oc_node *n) {
    static const char *const ops[] = {"Div", "Mul", "Add", "Where", "Cast", "Sub"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (oc_node_is(n, ops[k]))
            return true;
    return false;
}

/* Readers of v that use its values (not Shape or Size, which read only its
   shape). */
static int32_t oc_value_readers(const struct oc_lint_ctx *c, int32_t v) {
    int32_t n = 0;
    for (int32_t e = c->rstart[v]; e < c->rstart[v + 1]; e++) {
        const struct oc_node *u = &c->g->nodes[c->radj[e]];
        n += !(oc_node_is(u, "Shape") || oc_node_is(u, "Size"));
    }
    return n + c->g->values[v].is_graph_output;
}

/* Every place attention is written out is one finding: a transformer's
   layers repeat it, and one line per layer says the same thing each time
   (the nodes are all listed; the figures are summed). */
enum oc_status oc_rule_attention(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    uint64_t peak = c->an->totals.peak_activation_bytes;
    struct oc_lint_finding *f = NULL;
    int32_t places = 0, first = -1;
    uint64_t sb_max = 0, sb_sum = 0;
    double per_token = 0; /* bytes a query token moves, summed over the places */
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *sm = &g->nodes[i];
        if (!oc_node_is(sm, "Softmax") || !c->live[i] || sm->n_in < 1 || sm->in[0] < 0 || sm->out[0] < 0)
            continue;
        /* forward: the Softmax's only reader (through an inference Dropout or an Identity) is a MatMul
           with an activation on its other side */
        int32_t probs = sm->out[0], m2 = oc_lint_only_reader(c, probs);
        while (m2 >= 0 && (oc_node_is(&g->nodes[m2], "Dropout") || oc_node_is(&g->nodes[m2], "Identity")) &&
               oc_lint_is_no_op(g, &g->nodes[m2])) {
            probs = g->nodes[m2].out[0];
            m2 = oc_lint_only_reader(c, probs);
        }
        if (m2 < 0 || !oc_node_is(&g->nodes[m2], "MatMul") || g->nodes[m2].n_in != 2 ||
            g->nodes[m2].in[0] != probs || oc_lint_stored(g, g->nodes[m2].in[1]))
            continue;
        /* back: through the scale and mask (each result read once) to a MatMul of two activations */
        int32_t chain[16], nch = 0, v = sm->in[0], m1 = -1;
        while (nch < 16) {
            const struct oc_value *val = &g->values[v];
            if (val->kind != OC_VALUE_NODE || val->producer < 0 || oc_value_readers(c, v) != 1)
                break;
            const struct oc_node *p = &g->nodes[val->producer];
            if (oc_node_is(p, "MatMul")) {
                if (p->n_in == 2 && !oc_lint_stored(g, p->in[0]) && !oc_lint_stored(g, p->in[1]))
                    m1 = val->producer;
                break;
            }
            bool view = p->def && (p->def->flags & OC_OPF_ALIAS); /* a Reshape of the scores (Swin's mask) */
            if ((!oc_attention_between(p) && !view) || p->n_in < 1)
                break;
            chain[nch++] = val->producer;
            if (view) {
                if (p->in[0] < 0 || g->values[p->in[0]].kind != OC_VALUE_NODE || oc_value_readers(c, p->in[0]) != 1)
                    break;
                v = p->in[0];
                continue;
            }
            /* the score side: the operand that is a node output of the score's shape */
            int32_t next = -1;
            for (int32_t k = 0; k < p->n_in && next < 0; k++) {
                int32_t u = p->in[k];
                if (u >= 0 && g->values[u].kind == OC_VALUE_NODE && g->values[u].dtype == val->dtype &&
                    oc_lint_same_shape(&g->values[u], val) && oc_value_readers(c, u) == 1)
                    next = u;
            }
            if (next < 0)
                break;
            v = next;
        }
        if (m1 < 0)
            continue;
        const struct oc_value *score = &g->values[g->nodes[m1].out[0]];
        uint64_t sb = 0;
        if (score->rank < 2 || !oc_value_bytes(score, &sb))
            continue;
        if (!f && !(f = oc_lint_add(c, OC_LINT_UNFUSED_ATTENTION, "%s", "")))
            return OC_ERR_NOMEM;
        if (!oc_lint_node(f, m1))
            return OC_ERR_NOMEM;
        /* what a fused kernel does not move: the scores written, each step between read and written,
           the probabilities read; the FLOPs stay */
        uint64_t moved_before = f->saving.bytes_moved;
        f->saving.bytes_moved += sb;
        for (int32_t k = nch - 1; k >= 0; k--) {
            const struct oc_node *p = &g->nodes[chain[k]];
            if (!oc_lint_node(f, chain[k]))
                return OC_ERR_NOMEM;
            if (!(p->cost.flags & OC_COST_UNKNOWN))
                f->saving.bytes_moved += p->cost.bytes_read + p->cost.bytes_written;
            if (c->o->perf && chain[k] < c->o->perf->n_nodes && c->o->perf->nodes[chain[k]].known)
                f->saving.time_s += c->o->perf->nodes[chain[k]].time;
        }
        if (!oc_lint_node(f, i) || !oc_lint_node(f, m2))
            return OC_ERR_NOMEM;
        if (!(sm->cost.flags & OC_COST_UNKNOWN))
            f->saving.bytes_moved += sm->cost.bytes_read + sm->cost.bytes_written;
        if (c->o->perf && i < c->o->perf->n_nodes && c->o->perf->nodes[i].known)
            f->saving.time_s += c->o->perf->nodes[i].time;
        uint64_t pb = 0;
        if (oc_value_bytes(&g->values[sm->out[0]], &pb))
            f->saving.bytes_moved += pb;
        /* per query token: the score's dims but the last (keys) are batch x heads x queries */
        uint64_t rows = 1;
        for (int32_t k = 0; k < score->rank - 1; k++)
            rows *= score->dims[k].value > 0 ? (uint64_t)score->dims[k].value : 1;
        uint64_t heads = score->rank >= 4 && score->dims[1].value > 0 ? (uint64_t)score->dims[1].value : 1;
        uint64_t tokens = rows / heads ? rows / heads : 1;
        per_token += (double)(f->saving.bytes_moved - moved_before) / (double)tokens;
        sb_max = sb > sb_max ? sb : sb_max;
        sb_sum += sb;
        if (first < 0)
            first = m1;
        places++;
    }
    if (!f)
        return OC_OK;
    char lab[160], share[64] = "", where[224];
    if (peak)
        snprintf(share, sizeof share, " (%.1f %% of the peak activation memory)", 100.0 * (double)sb_max / (double)peak);
    oc_node_label(&g->nodes[first], lab, sizeof lab);
    if (places == 1)
        snprintf(where, sizeof where, "from %s: a", lab);
    else
        snprintf(where, sizeof where, "in %d places (first from %s): each a score tensor of up to", (int)places, lab);
    snprintf(f->message, sizeof f->message,
             "attention written out %s %.2f MiB%s%s moved %llu times, %llu B per query token%s: use a fused "
             "attention op (ONNX Runtime's Attention or MultiHeadAttention, the target's FlashAttention)",
             where, (double)sb_max / 1048576.0, places == 1 ? " score tensor" : "", share,
             (unsigned long long)(sb_sum ? f->saving.bytes_moved / sb_sum : 0), (unsigned long long)floor(per_token),
             places == 1 ? "" : " in all");
    return OC_OK;
}
