/*
 * ops/rnn.c — RNN, GRU, LSTM (ONNX Operators.md#LSTM and neighbours).
 *
 * Shapes, layout 0 (batch_first = layout 1, opset >= 14):
 *   X [seq, batch, input]           X [batch, seq, input]
 *   Y [seq, dirs, batch, hidden]    Y [batch, seq, dirs, hidden]
 *   Y_h, Y_c [dirs, batch, hidden]  Y_h, Y_c [batch, dirs, hidden]
 * W [dirs, G*hidden, input], R [dirs, G*hidden, hidden], B [dirs, 2*G*hidden]
 * with G gates: RNN 1, GRU 3, LSTM 4; dirs = 2 for "bidirectional".
 * hidden = the hidden_size attribute, else R's last dim.
 *
 * Costs, per time step, direction and batch row (sequence_lens is data, so
 * every sequence is counted at full length seq):
 *   MACs  = G * hidden * (input + hidden)       (X W^T and H R^T)
 *   MACs total = seq * dirs * batch * G * hidden * (input + hidden)
 *   FLOPs = 2 * MACs + seq * batch * hidden * sum over directions of e, the
 *   elementwise work per hidden unit, where a(f) is the cost of activation f
 *   at the rates of docs/COSTS.md (Sigmoid 4, Tanh 1, Relu 1, HardSigmoid 4,
 *   Affine 2, LeakyRelu 2, ThresholdedRelu 1, ScaledTanh 3, Elu 4,
 *   Softsign 3, Softplus 3):
 *   LSTM  e = 3 a(f) + a(g) + a(h)      gates i, f, o; cell candidate; h(C)
 *           + 4                         C = f*C + i*c (3), H = o*h(C) (1)
 *           + 8 if B                    Wb + Rb on 4 gates
 *           + 6 if P                    peepholes p*C + on i, f, o
 *           + 10 if clip                min and max before each activation
 *           - a(f) + 1 if input_forget  f = 1 - i replaces an activation
 *   GRU   e = 2 a(f) + a(g)             gates z, r; candidate h
 *           + 5                         r*H (1), H = (1-z)*h + z*H (4)
 *           + 1 if linear_before_reset  X Wh^T + r*(H Rh^T + Rbh) is a separate add
 *           + 6 if B, + 6 if clip
 *   RNN   e = a(f) + 2 if B + 2 if clip
 *   Defaults: LSTM e = 18 (Sigmoid, Tanh, Tanh), GRU 14, RNN 1 (Tanh).
 */
#include "../attr.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>
#include <strings.h>

enum oc_rnn_kind { OC_RNN_SIMPLE, OC_RNN_GRU, OC_RNN_LSTM };

static const int64_t oc_rnn_gates[] = {1, 3, 4};
static const int32_t oc_rnn_nact[] = {1, 2, 3};
static const char *const oc_rnn_default_act[][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};

struct oc_rnn {
    int64_t layout, dirs, hidden;
    struct oc_dim seq, batch, input;
};

static enum oc_status oc_rnn_dim_check(struct oc_op_ctx *c, const char *what, int32_t k, int64_t got, int64_t want) {
    if (got >= 0 && want >= 0 && got != want)
        return OC_FAIL(c, OC_ERR_MODEL, "%s dim %d is %lld, expected %lld", what, k, (long long)got,
                       (long long)want);
    return OC_OK;
}

/* Reads layout, direction, hidden size and X's dims; checks W, R and B. */
static enum oc_status oc_rnn_read(struct oc_op_ctx *c, enum oc_rnn_kind kind, struct oc_rnn *r) {
    const struct oc_value *x = oc_in(c, 0), *w = oc_in(c, 1), *rw = oc_in(c, 2), *b = oc_in(c, 3);
    int64_t g = oc_rnn_gates[kind];
    enum oc_status st;
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 3)
        return OC_FAIL(c, OC_ERR_MODEL, "input X has rank %d, expected 3", x->rank);
    r->layout = 0;
    if (c->node->opset >= 14 && (st = oc_attr_int(c->node, "layout", 0, &r->layout, c->diag)) != OC_OK)
        return st;
    if (r->layout != 0 && r->layout != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "layout %lld is not 0 or 1", (long long)r->layout);
    char dir[32];
    if ((st = oc_attr_string(c->node, "direction", "forward", dir, sizeof dir, c->diag)) != OC_OK)
        return st;
    /* GRU-1 spells its default "foward" */
    if (!strcmp(dir, "forward") || !strcmp(dir, "reverse") || !strcmp(dir, "foward"))
        r->dirs = 1;
    else if (!strcmp(dir, "bidirectional"))
        r->dirs = 2;
    else
        return OC_FAIL(c, OC_ERR_MODEL, "direction '%s' is not forward, reverse or bidirectional", dir);
    r->seq = x->dims[r->layout ? 1 : 0];
    r->batch = x->dims[r->layout ? 0 : 1];
    r->input = x->dims[2];
    if (oc_attr_has(c->node, "hidden_size")) {
        if ((st = oc_attr_int(c->node, "hidden_size", 0, &r->hidden, c->diag)) != OC_OK)
            return st;
        if (r->hidden <= 0)
            return OC_FAIL(c, OC_ERR_MODEL, "hidden_size %lld is not positive", (long long)r->hidden);
    } else if (rw && rw->rank == 3 && rw->dims[2].value >= 0) {
        r->hidden = rw->dims[2].value;
    } else {
        return OC_FAIL(c, OC_ERR_SHAPE, "hidden_size is not set and the shape of R is not known");
    }
    int64_t gh = g * r->hidden;
    const int64_t want_w[3] = {r->dirs, gh, r->input.value}, want_r[3] = {r->dirs, gh, r->hidden};
    const struct oc_value *wr[2] = {w, rw};
    const int64_t *want[2] = {want_w, want_r};
    static const char *const names[2] = {"W", "R"};
    for (int j = 0; j < 2; j++) {
        if (!wr[j] || wr[j]->rank < 0)
            continue;
        if (wr[j]->rank != 3)
            return OC_FAIL(c, OC_ERR_MODEL, "%s has rank %d, expected 3", names[j], wr[j]->rank);
        for (int32_t k = 0; k < 3; k++)
            if ((st = oc_rnn_dim_check(c, names[j], k, wr[j]->dims[k].value, want[j][k])) != OC_OK)
                return st;
    }
    if (b && b->rank >= 0) {
        if (b->rank != 2)
            return OC_FAIL(c, OC_ERR_MODEL, "B has rank %d, expected 2", b->rank);
        if ((st = oc_rnn_dim_check(c, "B", 0, b->dims[0].value, r->dirs)) != OC_OK ||
            (st = oc_rnn_dim_check(c, "B", 1, b->dims[1].value, 2 * gh)) != OC_OK)
            return st;
    }
    return OC_OK;
}

static enum oc_status oc_rnn_infer_kind(struct oc_op_ctx *c, enum oc_rnn_kind kind) {
    struct oc_rnn r;
    enum oc_status st = oc_rnn_read(c, kind, &r);
    if (st != OC_OK)
        return st;
    int32_t dt = oc_in(c, 0)->dtype;
    struct oc_dim dirs = {r.dirs, NULL}, hid = {r.hidden, NULL};
    struct oc_dim y[4], yh[3];
    if (r.layout == 0) {
        y[0] = r.seq, y[1] = dirs, y[2] = r.batch, y[3] = hid;
        yh[0] = dirs, yh[1] = r.batch, yh[2] = hid;
    } else {
        y[0] = r.batch, y[1] = r.seq, y[2] = dirs, y[3] = hid;
        yh[0] = r.batch, yh[1] = dirs, yh[2] = hid;
    }
    if ((st = oc_set_out(c, 0, dt, 4, y)) != OC_OK || (st = oc_set_out(c, 1, dt, 3, yh)) != OC_OK)
        return st;
    return kind == OC_RNN_LSTM ? oc_set_out(c, 2, dt, 3, yh) : OC_OK;
}

OC_RULE(oc_rnn_infer) { return oc_rnn_infer_kind(c, OC_RNN_SIMPLE); }
OC_RULE(oc_gru_infer) { return oc_rnn_infer_kind(c, OC_RNN_GRU); }
OC_RULE(oc_lstm_infer) { return oc_rnn_infer_kind(c, OC_RNN_LSTM); }

/* FLOPs of one activation function, at the rates of docs/COSTS.md; -1 when unknown. */
static int64_t oc_activation_rate(const char *name) {
    static const struct {
        const char *name;
        int64_t rate;
    } t[] = {
        {"Relu", 1},            {"Tanh", 1},       {"Sigmoid", 4}, {"HardSigmoid", 4},
        {"Affine", 2},          {"LeakyRelu", 2},  {"Elu", 4},     {"ThresholdedRelu", 1},
        {"ScaledTanh", 3},      {"Softsign", 3},   {"Softplus", 3},
    };
    for (size_t i = 0; i < OC_ARRAY_LEN(t); i++)
        if (strcasecmp(name, t[i].name) == 0)
            return t[i].rate;
    return -1;
}

/* Sum over directions of the elementwise FLOPs per hidden unit (e above). */
static enum oc_status oc_rnn_elementwise(struct oc_op_ctx *c, enum oc_rnn_kind kind, int64_t dirs, int64_t *sum) {
    int32_t nact = oc_rnn_nact[kind];
    bool bias = oc_in(c, 3) != NULL, clip = oc_attr_has(c->node, "clip");
    int64_t lbr = 0, input_forget = 0;
    enum oc_status st;
    if (kind == OC_RNN_GRU && c->node->opset >= 3 &&
        (st = oc_attr_int(c->node, "linear_before_reset", 0, &lbr, c->diag)) != OC_OK)
        return st;
    if (kind == OC_RNN_LSTM && (st = oc_attr_int(c->node, "input_forget", 0, &input_forget, c->diag)) != OC_OK)
        return st;
    *sum = 0;
    for (int64_t d = 0; d < dirs; d++) {
        int64_t a[3];
        for (int32_t j = 0; j < nact; j++) {
            char name[64];
            int64_t n;
            if ((st = oc_attr_strings_at(c->node, "activations", d * nact + j, name, sizeof name, &n, c->diag)) !=
                OC_OK)
                return st;
            if (!name[0] && n > 0 && (st = oc_attr_strings_at(c->node, "activations", j, name, sizeof name, &n,
                                                              c->diag)) != OC_OK)
                return st;
            if (!name[0])
                strcpy(name, oc_rnn_default_act[kind][j]);
            if ((a[j] = oc_activation_rate(name)) < 0)
                return OC_FAIL(c, OC_ERR_UNSUPPORTED, "activation '%s' is not modelled", name);
        }
        int64_t e;
        switch (kind) {
        case OC_RNN_LSTM:
            e = 3 * a[0] + a[1] + a[2] + 4 + (bias ? 8 : 0) + (oc_in(c, 7) ? 6 : 0) + (clip ? 10 : 0);
            if (input_forget)
                e += 1 - a[0];
            break;
        case OC_RNN_GRU:
            e = 2 * a[0] + a[1] + 5 + (lbr ? 1 : 0) + (bias ? 6 : 0) + (clip ? 6 : 0);
            break;
        default:
            e = a[0] + (bias ? 2 : 0) + (clip ? 2 : 0);
            break;
        }
        *sum += e;
    }
    return OC_OK;
}

static enum oc_status oc_rnn_cost_kind(struct oc_op_ctx *c, enum oc_rnn_kind kind, struct oc_cost *cost) {
    struct oc_rnn r;
    enum oc_status st = oc_rnn_read(c, kind, &r);
    if (st != OC_OK)
        return st;
    int64_t e;
    if ((st = oc_rnn_elementwise(c, kind, r.dirs, &e)) != OC_OK)
        return st;
    uint64_t rows, per_row, units;
    bool of = oc_mul_u64((uint64_t)r.seq.value, (uint64_t)r.batch.value, &rows);
    of |= oc_mul_u64(rows, (uint64_t)r.hidden, &units);
    /* per row and direction: G * hidden * (input + hidden) */
    of |= oc_mul_u64((uint64_t)(oc_rnn_gates[kind] * r.hidden), (uint64_t)(r.input.value + r.hidden), &per_row);
    of |= oc_mul_u64(per_row, (uint64_t)r.dirs, &per_row);
    if (of)
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_macs(cost, rows, per_row);
    oc_cost_add_flops(cost, cost->macs, 2);
    oc_cost_add_flops(cost, units, (uint64_t)e);
    return OC_OK;
}

OC_COST(oc_rnn_cost) { return oc_rnn_cost_kind(c, OC_RNN_SIMPLE, cost); }
OC_COST(oc_gru_cost) { return oc_rnn_cost_kind(c, OC_RNN_GRU, cost); }
OC_COST(oc_lstm_cost) { return oc_rnn_cost_kind(c, OC_RNN_LSTM, cost); }
