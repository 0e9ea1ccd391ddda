/*
 * ops/control.c — If, Loop and Scan: their bodies are analyzed as subgraphs
 * (oc_subgraph_run) with the names of enclosing graphs visible.
 *
 * Outputs may be sequences or optionals (struct oc_ntype): their types are
 * merged as tensors' are (seqtype.h). A Loop-carried sequence whose length
 * changes in the body is run through the body a second time; when both runs
 * change it by the same amount d, its final length is initial + trip x d.
 *
 * Cost of the node = cost of the body that runs:
 *   If:   the branch the condition selects when its value is known; else both
 *         branches are analyzed, output dims they disagree on stay unknown, and
 *         the node is charged the more expensive branch (by FLOPs). Known
 *         output contents pass through from the selected branch, or when
 *         both branches give the same ones.
 *   Loop: body x trip count, when the trip count M is known and the loop
 *         cannot stop early (no condition, or the body passes it through or
 *         sets it to a constant true); otherwise unknown, and scan outputs'
 *         first dim stays unknown (it depends on the data).
 *   Scan: body x sequence length (the scan axis of the first scan input).
 * The body's own bytes are included; the body's nodes are not rows of the
 * report.
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "../shape.h"
#include "rules.h"
#include "seqtype.h"

#include <string.h>

enum { OC_MAX_CF_RANK = 64 };

/* The node's cost is the body's, set during inference; cost() adds nothing. */
static void oc_charge(struct oc_op_ctx *c, const struct oc_subgraph *s, uint64_t times) {
    struct oc_cost *k = &c->node->cost;
    memset(k, 0, sizeof *k);
    oc_cost_add_macs(k, s->cost.macs, times);
    oc_cost_add_flops(k, s->cost.flops, times);
    if (!s->complete)
        k->flags |= OC_COST_UNKNOWN;
}

static const struct oc_value *oc_body_out(const struct oc_subgraph *s, int32_t i) {
    if (i >= s->g->n_outputs || s->g->outputs[i] < 0)
        return NULL;
    return &s->g->values[s->g->outputs[i]];
}

/* Output k's contents from the branch outputs a and b (b NULL: the branch
 * the condition selects): a's when known and, with b, equal to b's (value
 * propagation through If, fold.h). */
static void oc_merge_known(struct oc_op_ctx *c, int32_t k, const struct oc_subgraph *sa, const struct oc_value *a,
                           const struct oc_subgraph *sb, const struct oc_value *b) {
    struct oc_value *out = oc_out(c, k);
    struct oc_known ka, kb;
    if (!out || !oc_shape_known(out) || !oc_fold_get(sa->g, (struct oc_value *)a, &ka) || ka.dtype != out->dtype)
        return;
    uint64_t n;
    if (!oc_value_numel(out, &n) || (uint64_t)ka.n != n)
        return;
    if (b) {
        if (!oc_fold_get(sb->g, (struct oc_value *)b, &kb) || kb.dtype != ka.dtype || kb.n != ka.n ||
            !oc_dims_equal(ka.dims, ka.rank, kb.dims, kb.rank))
            return;
        for (int64_t i = 0; i < ka.n; i++)
            if (ka.i ? ka.i[i] != kb.i[i] : !(ka.f[i] == kb.f[i] || (ka.f[i] != ka.f[i] && kb.f[i] != kb.f[i])))
                return;
    }
    if (ka.i) {
        out->ival = ka.i;
        out->n_ival = ka.n;
    } else {
        out->fval = ka.f;
    }
}

/* out = a, with the dims where b differs unknown (rank unknown if ranks differ) */
static enum oc_status oc_set_merged(struct oc_op_ctx *c, int32_t k, const struct oc_value *a,
                                    const struct oc_value *b) {
    if (!a)
        return OC_OK;
    if (a->nt || (b && b->nt))
        return oc_set_out_union(c, k, a, b);
    if (!b || b->rank == a->rank) {
        struct oc_dim dims[OC_MAX_CF_RANK];
        if (a->rank > OC_MAX_CF_RANK)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank over %d", OC_MAX_CF_RANK);
        for (int32_t i = 0; i < a->rank; i++) {
            dims[i] = a->dims[i];
            if (b && b->dims[i].value != a->dims[i].value)
                dims[i] = (struct oc_dim){OC_DIM_UNKNOWN, NULL};
        }
        return oc_set_out(c, k, a->dtype ? a->dtype : (b ? b->dtype : 0), a->rank, dims);
    }
    return oc_set_out(c, k, a->dtype, -1, NULL);
}

OC_RULE(oc_if_infer) {
    int64_t n;
    const int64_t *cond = oc_in_ints(c, 0, &n);
    struct oc_subgraph t, e;
    enum oc_status st;
    if (cond && n == 1) {
        if ((st = oc_subgraph_run(c, cond[0] ? "then_branch" : "else_branch", 0, NULL, &t)) != OC_OK)
            return st;
        if (t.g->n_outputs != c->node->n_out)
            return OC_FAIL(c, OC_ERR_MODEL, "the branch has %d outputs, the node %d", t.g->n_outputs, c->node->n_out);
        for (int32_t k = 0; k < c->node->n_out; k++) {
            if ((st = oc_set_merged(c, k, oc_body_out(&t, k), NULL)) != OC_OK)
                return st;
            oc_merge_known(c, k, &t, oc_body_out(&t, k), NULL, NULL);
        }
        oc_charge(c, &t, 1);
        return OC_OK;
    }
    if ((st = oc_subgraph_run(c, "then_branch", 0, NULL, &t)) != OC_OK ||
        (st = oc_subgraph_run(c, "else_branch", 0, NULL, &e)) != OC_OK)
        return st;
    if (t.g->n_outputs != c->node->n_out || e.g->n_outputs != c->node->n_out)
        return OC_FAIL(c, OC_ERR_MODEL, "the branches must have as many outputs as the node");
    for (int32_t k = 0; k < c->node->n_out; k++) {
        if ((st = oc_set_merged(c, k, oc_body_out(&t, k), oc_body_out(&e, k))) != OC_OK)
            return st;
        oc_merge_known(c, k, &t, oc_body_out(&t, k), &e, oc_body_out(&e, k));
    }
    oc_charge(c, t.cost.flops >= e.cost.flops ? &t : &e, 1);
    return OC_OK;
}

/* True when the body's condition output is its condition input, directly or
 * through Identity nodes: the loop then cannot stop early. */
static bool oc_cond_passes_through(const struct oc_subgraph *s) {
    const struct oc_value *v = oc_body_out(s, 0);
    if (!v || s->g->n_inputs < 2)
        return false;
    const struct oc_value *cin = &s->g->values[s->g->inputs[1]];
    for (int hops = 0; v && hops < 64; hops++) {
        if (v == cin)
            return true;
        if (v->kind != OC_VALUE_NODE || v->producer < 0)
            return false;
        const struct oc_node *p = &s->g->nodes[v->producer];
        if (p->domain[0] || strcmp(p->op_type, "Identity") != 0 || p->n_in < 1 || p->in[0] < 0)
            return false;
        v = &s->g->values[p->in[0]];
    }
    return false;
}

/* Length of the sequence a value is or holds, -1 when unknown or none. */
static int64_t oc_seq_len(const struct oc_value *v) {
    const struct oc_ntype *t = oc_seq_of(v);
    return t && (t->kind == OC_TYPE_SEQUENCE || t->present == 1) ? t->len : -1;
}

/* True when a loop-carried sequence/optional may change from one iteration
 * to the next in a way a second body run can tell: its length changes, or
 * the body returns another kind (an optional it unwraps). */
static bool oc_carried_changes(const struct oc_value *in, const struct oc_value *out) {
    if (!out || (!in->nt && !out->nt))
        return false;
    int64_t l0 = oc_seq_len(in), l1 = oc_seq_len(out);
    return !in->nt || !out->nt || in->nt->kind != out->nt->kind || (l0 >= 0 && l1 >= 0 && l0 != l1);
}

/* Types of the loop-carried outputs after `trip` iterations (-1: unknown)
 * from the body run s, whose inputs were bind. A carried tensor keeps the
 * dims the body does not change. A carried sequence or optional that
 * changes (oc_carried_changes) goes through the body once more, fed the
 * first run's outputs; its type is what both runs agree on, and when its
 * length goes L0 -> L1 -> L2 with L2 - L1 = L1 - L0 = d, its final length is
 * L0 + trip x d (else unknown). */
static enum oc_status oc_loop_carried(struct oc_op_ctx *c, const struct oc_subgraph *s, int32_t n_carried,
                                      const struct oc_value **bind, int64_t trip) {
    enum oc_status st;
    struct oc_subgraph s2;
    bool again = false;
    for (int32_t i = 0; i < n_carried && trip >= 2; i++)
        again = again || oc_carried_changes(oc_in(c, 2 + i), oc_body_out(s, 1 + i));
    if (again) {
        const struct oc_value *bind2[2 + 256];
        memcpy(bind2, bind, 2 * sizeof *bind2);
        for (int32_t i = 0; i < n_carried; i++) {
            bind2[2 + i] = oc_body_out(s, 1 + i);
            if (!bind2[2 + i])
                return OC_FAIL(c, OC_ERR_MODEL, "the body has no output for loop-carried value %d", i);
        }
        if ((st = oc_subgraph_run(c, "body", 2 + n_carried, bind2, &s2)) != OC_OK)
            return st;
    }
    for (int32_t i = 0; i < n_carried; i++) {
        const struct oc_value *in = oc_in(c, 2 + i), *out = oc_body_out(s, 1 + i);
        if (!out || (!out->nt && !in->nt)) { /* tensors */
            if ((st = oc_set_merged(c, i, out, trip == 1 ? NULL : in)) != OC_OK)
                return st;
            continue;
        }
        if (trip == 0) {
            if ((st = oc_set_out_like(c, i, in)) != OC_OK)
                return st;
            continue;
        }
        bool changes = oc_carried_changes(in, out);
        const struct oc_value *out2 = again ? oc_body_out(&s2, 1 + i) : NULL;
        /* trip 1: the body's output; a change: both runs'; else: the body's and the input's */
        if ((st = oc_set_merged(c, i, out, trip == 1 ? NULL : changes && again ? out2 : in)) != OC_OK)
            return st;
        int64_t l0 = oc_seq_len(in), l1 = oc_seq_len(out), l2 = oc_seq_len(out2);
        const struct oc_value *y = oc_out(c, i);
        const struct oc_ntype *t = y ? oc_seq_of(y) : NULL;
        if (!t || trip == 1 || l0 < 0 || l1 < 0 || l0 == l1)
            continue;
        int64_t d = l1 - l0, len = -1, step;
        bool linear = l2 >= 0 && l2 - l1 == d && trip >= 0;
        if (linear && !oc_mul_i64(trip, d, &step) && !oc_add_i64(l0, step, &len) && len < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "loop-carried sequence %d would have %lld tensors", i, (long long)len);
        if ((t = oc_seq_with_len(c, t, linear ? len : -1)) == NULL)
            return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
        if ((st = oc_set_out_nt(c, i, t)) != OC_OK)
            return st;
    }
    return OC_OK;
}

OC_RULE(oc_loop_infer) {
    int32_t n_carried = oc_n_in(c) - 2;
    if (n_carried < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "Loop takes M and cond (either may be empty) then the carried values");
    struct oc_value iter = {.dtype = OC_DT_INT64, .rank = 0}, cond = {.dtype = OC_DT_BOOL, .rank = 0};
    const struct oc_value *bind[2 + 256];
    if (n_carried > 256)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "more than 256 loop-carried values");
    bind[0] = &iter;
    bind[1] = &cond;
    for (int32_t i = 0; i < n_carried; i++) {
        bind[2 + i] = oc_in(c, 2 + i);
        if (!bind[2 + i] || (bind[2 + i]->rank < 0 && !bind[2 + i]->nt))
            return OC_ERR_SHAPE;
    }
    struct oc_subgraph s;
    enum oc_status st = oc_subgraph_run(c, "body", 2 + n_carried, bind, &s);
    if (st != OC_OK)
        return st;
    int32_t n_scan = s.g->n_outputs - 1 - n_carried;
    if (n_scan < 0 || c->node->n_out != n_carried + n_scan)
        return OC_FAIL(c, OC_ERR_MODEL, "the body's outputs do not match the node's carried and scan outputs");
    /* trip count: M, when the loop cannot stop early */
    int64_t nm;
    const int64_t *m = oc_in_ints(c, 0, &nm);
    int64_t trip = OC_DIM_UNKNOWN;
    int64_t nc;
    const int64_t *cond0 = oc_in_ints(c, 1, &nc);
    if (cond0 && nc == 1 && !cond0[0]) {
        trip = 0; /* the condition is false before the first iteration */
    } else if (m && nm == 1 && m[0] >= 0) {
        const struct oc_value *cond_out = oc_body_out(&s, 0);
        bool starts = !oc_in(c, 1) || (cond0 && nc == 1);
        bool full = !oc_in(c, 1) || oc_cond_passes_through(&s) ||
                    (cond_out && cond_out->ival && cond_out->n_ival == 1 && cond_out->ival[0]);
        if (starts && full)
            trip = m[0];
    } else if (!oc_in(c, 0) && !oc_in(c, 1)) {
        return OC_FAIL(c, OC_ERR_MODEL, "a Loop without M and cond never ends");
    }
    if ((st = oc_loop_carried(c, &s, n_carried, bind, trip)) != OC_OK)
        return st;
    for (int32_t k = 0; k < n_scan; k++) {
        const struct oc_value *v = oc_body_out(&s, 1 + n_carried + k);
        if (!v || v->rank < 0 || v->rank >= OC_MAX_CF_RANK)
            continue;
        struct oc_dim dims[OC_MAX_CF_RANK];
        dims[0] = (struct oc_dim){trip, NULL};
        memcpy(dims + 1, v->dims, (size_t)v->rank * sizeof *dims);
        if ((st = oc_set_out(c, n_carried + k, v->dtype, v->rank + 1, dims)) != OC_OK)
            return st;
    }
    if (trip < 0) {
        oc_charge(c, &s, 1);
        c->node->cost.flags |= OC_COST_UNKNOWN;
        return OC_FAIL(c, OC_ERR_SHAPE, "trip count not known (it depends on the data)");
    }
    oc_charge(c, &s, (uint64_t)trip);
    return OC_OK;
}

OC_RULE(oc_scan_infer) {
    int64_t n_scan_in;
    enum oc_status st = oc_attr_int(c->node, "num_scan_inputs", 0, &n_scan_in, c->diag);
    if (st != OC_OK)
        return st;
    int32_t n_in = oc_n_in(c);
    if (n_scan_in <= 0 || n_scan_in > n_in)
        return OC_FAIL(c, OC_ERR_MODEL, "num_scan_inputs must be 1 to the number of inputs");
    int32_t n_state = n_in - (int32_t)n_scan_in;
    const int64_t *in_axes, *out_axes;
    int64_t n_in_axes, n_out_axes;
    if ((st = oc_attr_ints(c->node, "scan_input_axes", &in_axes, &n_in_axes, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "scan_output_axes", &out_axes, &n_out_axes, c->diag)) != OC_OK)
        return st;
    if (n_in > 256)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "more than 256 inputs");
    const struct oc_value *bind[256];
    struct oc_value slices[256];
    int64_t seq = OC_DIM_UNKNOWN;
    for (int32_t i = 0; i < n_in; i++) {
        const struct oc_value *v = oc_in(c, i);
        if (!v || v->rank < 0)
            return OC_ERR_SHAPE;
        bind[i] = v;
        if (i < n_state)
            continue;
        int32_t j = i - n_state, axis;
        int64_t ax = n_in_axes ? in_axes[j] : 0;
        if (v->rank < 1 || !oc_axis_norm(ax, v->rank, &axis))
            return OC_FAIL(c, OC_ERR_MODEL, "scan input %d has no axis %lld", j, (long long)ax);
        if (j == 0)
            seq = v->dims[axis].value;
        struct oc_dim *d = oc_arena_array(c->arena, (size_t)v->rank, sizeof *d);
        if (!d)
            return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
        for (int32_t k = 0, o = 0; k < v->rank; k++)
            if (k != axis)
                d[o++] = v->dims[k];
        slices[j] = (struct oc_value){.dtype = v->dtype, .rank = v->rank - 1, .dims = d};
        bind[i] = &slices[j];
    }
    struct oc_subgraph s;
    if ((st = oc_subgraph_run(c, "body", n_in, bind, &s)) != OC_OK)
        return st;
    int32_t n_scan_out = s.g->n_outputs - n_state;
    if (n_scan_out < 0 || c->node->n_out != s.g->n_outputs)
        return OC_FAIL(c, OC_ERR_MODEL, "the body's outputs do not match the node's outputs");
    for (int32_t i = 0; i < n_state; i++)
        if ((st = oc_set_merged(c, i, oc_body_out(&s, i), NULL)) != OC_OK)
            return st;
    for (int32_t k = 0; k < n_scan_out; k++) {
        const struct oc_value *v = oc_body_out(&s, n_state + k);
        if (!v || v->rank < 0 || v->rank >= OC_MAX_CF_RANK)
            continue;
        int32_t axis;
        int64_t ax = n_out_axes ? out_axes[k] : 0;
        if (!oc_axis_norm(ax, v->rank + 1, &axis))
            return OC_FAIL(c, OC_ERR_MODEL, "scan output %d has no axis %lld", k, (long long)ax);
        struct oc_dim dims[OC_MAX_CF_RANK];
        for (int32_t i = 0, o = 0; i <= v->rank; i++)
            dims[i] = i == axis ? (struct oc_dim){seq, NULL} : v->dims[o++];
        if ((st = oc_set_out(c, n_state + k, v->dtype, v->rank + 1, dims)) != OC_OK)
            return st;
    }
    if (seq < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the sequence length is not known");
    oc_charge(c, &s, (uint64_t)seq);
    return OC_OK;
}
