/*
 * ops/einsum.c — Einsum (opset 12): Einstein summation over an equation
 * such as "bij,bjk->bik", with "..." standing for broadcast leading dims.
 *
 * Shape: each letter has one size across the operands (a size 1 broadcasts);
 * the "..." dims of all operands broadcast together (numpy rules, right
 * aligned). Output: the explicit right-hand side, else (implicit form) the
 * "..." dims followed by the letters that occur exactly once, in ASCII
 * order. "..." dims missing from an explicit output are summed.
 *
 * Cost. A label is a letter or one of the broadcast "..." dims; P(S) is the
 * product of the sizes of the labels in a set S.
 *   1 operand:  no products. FLOPs = P(labels of the operand) - numel(Y):
 *               the adds of the summed labels (a transpose or a diagonal
 *               costs 0, a trace of n x n costs n - 1).
 *   2 operands: MACs = P(all distinct labels), FLOPs = 2 * MACs (MatMul's
 *               convention: "bij,bjk->bik" counts as the batched MatMul).
 *   n > 2:      contracted pairwise, left to right (ONNX Runtime's order):
 *               step t joins the running result with operand t,
 *               MACs_t = P(labels of both), and the result keeps the labels
 *               still needed by a later operand or the output.
 *               MACs = sum of MACs_t, FLOPs = 2 * MACs. Other contraction
 *               orders can be much cheaper; this is the order the runtimes
 *               that do not optimise the path use.
 *
 * Known operands are folded when the label space is small (oc_einsum_fold).
 */
#include "../attr.h"
#include "../fold.h"
#include "rules.h"
#include "../shape.h"

#include <stdlib.h>
#include <string.h>

enum {
    OC_EIN_LETTERS = 52,       /* 'A'..'Z' = 0..25, 'a'..'z' = 26..51: ASCII order */
    OC_EIN_MAX_ELL = 64,       /* "..." dims                                        */
    OC_EIN_LABELS = OC_EIN_LETTERS + OC_EIN_MAX_ELL,
    OC_EIN_MAX_OPS = 64,
    OC_EIN_MAX_TERM = 128,     /* tokens per term                                   */
    OC_EIN_ELL = -1,           /* token for "..."                                   */
};

struct oc_einsum {
    int32_t n_ops;
    int32_t n_tok[OC_EIN_MAX_OPS + 1]; /* [n_ops] is the output */
    int8_t tok[OC_EIN_MAX_OPS + 1][OC_EIN_MAX_TERM];
    bool explicit_out;
    /* resolved */
    int32_t ell_rank;
    int64_t size[OC_EIN_LABELS];       /* -1 unknown                         */
    int32_t count[OC_EIN_LETTERS];     /* terms (inputs) each letter occurs in */
    /* labels of each operand: size per label, -2 = absent */
    int64_t op_size[OC_EIN_MAX_OPS][OC_EIN_LABELS];
};

static int oc_ein_letter(char ch) {
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return 26 + ch - 'a';
    return -1;
}

static enum oc_status oc_ein_parse(struct oc_op_ctx *c, struct oc_einsum *e) {
    char eq[1024];
    enum oc_status st = oc_attr_string(c->node, "equation", "", eq, sizeof eq, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "equation"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'equation' is missing");
    memset(e, 0, sizeof *e);
    int32_t term = 0;
    bool in_out = false;
    for (const char *p = eq; *p; p++) {
        if (*p == ' ' || *p == '\t')
            continue;
        if (*p == ',') {
            if (in_out)
                return OC_FAIL(c, OC_ERR_MODEL, "equation '%s': ',' after '->'", eq);
            if (++term >= OC_EIN_MAX_OPS)
                return OC_FAIL(c, OC_ERR_UNSUPPORTED, "more than %d operands", OC_EIN_MAX_OPS);
            continue;
        }
        if (p[0] == '-' && p[1] == '>') {
            if (in_out)
                return OC_FAIL(c, OC_ERR_MODEL, "equation '%s' has two '->'", eq);
            in_out = true;
            e->explicit_out = true;
            e->n_ops = term + 1;
            p++;
            continue;
        }
        int32_t t = in_out ? OC_EIN_MAX_OPS : term;
        int8_t tk;
        if (p[0] == '.') {
            if (p[1] != '.' || p[2] != '.')
                return OC_FAIL(c, OC_ERR_MODEL, "equation '%s': '.' outside '...'", eq);
            for (int32_t k = 0; k < e->n_tok[t]; k++)
                if (e->tok[t][k] == OC_EIN_ELL)
                    return OC_FAIL(c, OC_ERR_MODEL, "equation '%s': '...' twice in a term", eq);
            tk = OC_EIN_ELL;
            p += 2;
        } else {
            int l = oc_ein_letter(*p);
            if (l < 0)
                return OC_FAIL(c, OC_ERR_MODEL, "equation '%s': unexpected character '%c'", eq, *p);
            tk = (int8_t)l;
        }
        if (e->n_tok[t] >= OC_EIN_MAX_TERM)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "a term of more than %d labels", OC_EIN_MAX_TERM);
        e->tok[t][e->n_tok[t]++] = tk;
    }
    if (!in_out)
        e->n_ops = term + 1;
    if (e->n_ops != oc_n_in(c))
        return OC_FAIL(c, OC_ERR_MODEL, "equation '%s' has %d operands, the node %d inputs", eq, e->n_ops,
                       oc_n_in(c));
    return OC_OK;
}

/* Merges a dim into a label's size: equal, or a 1 broadcasts. */
static bool oc_ein_merge(int64_t *have, int64_t d) {
    if (*have == -2) { /* first sighting */
        *have = d;
        return true;
    }
    if (d < 0) { /* unknown: a known size other than 1 stays */
        if (*have == 1)
            *have = -1;
        return true;
    }
    if (*have < 0 || *have == 1) {
        *have = d;
        return true;
    }
    return d == 1 || d == *have;
}

/* Resolves label sizes from the operands' shapes. */
static enum oc_status oc_ein_resolve(struct oc_op_ctx *c, struct oc_einsum *e) {
    int32_t ell[OC_EIN_MAX_OPS];
    e->ell_rank = 0;
    for (int32_t i = 0; i < e->n_ops; i++) {
        const struct oc_value *v = oc_in(c, i);
        if (!v || v->rank < 0)
            return OC_ERR_SHAPE;
        int32_t letters = 0;
        bool has_ell = false;
        for (int32_t k = 0; k < e->n_tok[i]; k++)
            if (e->tok[i][k] == OC_EIN_ELL)
                has_ell = true;
            else
                letters++;
        ell[i] = v->rank - letters;
        if (ell[i] < 0 || (!has_ell && ell[i] != 0))
            return OC_FAIL(c, OC_ERR_MODEL, "operand %d has rank %d for %d labels", i, v->rank, letters);
        if (ell[i] > OC_EIN_MAX_ELL)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "more than %d dims under '...'", OC_EIN_MAX_ELL);
        if (ell[i] > e->ell_rank)
            e->ell_rank = ell[i];
    }
    for (int32_t l = 0; l < OC_EIN_LABELS; l++)
        e->size[l] = -2;
    for (int32_t i = 0; i < e->n_ops; i++) {
        const struct oc_value *v = oc_in(c, i);
        bool seen[OC_EIN_LETTERS] = {false};
        for (int32_t l = 0; l < OC_EIN_LABELS; l++)
            e->op_size[i][l] = -2;
        int32_t d = 0;
        for (int32_t k = 0; k < e->n_tok[i]; k++) {
            int8_t t = e->tok[i][k];
            if (t == OC_EIN_ELL) {
                for (int32_t j = 0; j < ell[i]; j++, d++) {
                    int32_t l = OC_EIN_LETTERS + e->ell_rank - ell[i] + j;
                    if (!oc_ein_merge(&e->size[l], v->dims[d].value))
                        return OC_FAIL(c, OC_ERR_MODEL, "operand %d: '...' dims do not broadcast", i);
                    oc_ein_merge(&e->op_size[i][l], v->dims[d].value);
                }
                continue;
            }
            if (!oc_ein_merge(&e->size[t], v->dims[d].value) || !oc_ein_merge(&e->op_size[i][t], v->dims[d].value))
                return OC_FAIL(c, OC_ERR_MODEL, "label '%c' has size %lld in operand %d, %lld elsewhere",
                               t < 26 ? 'A' + t : 'a' + t - 26, (long long)v->dims[d].value, i,
                               (long long)e->size[t]);
            if (!seen[t])
                e->count[t]++;
            seen[t] = true;
            d++;
        }
    }
    return OC_OK;
}

/* Output labels in order; returns their number. */
static int32_t oc_ein_out_labels(const struct oc_einsum *e, int32_t *lab) {
    int32_t n = 0;
    if (!e->explicit_out) {
        for (int32_t j = 0; j < e->ell_rank; j++)
            lab[n++] = OC_EIN_LETTERS + j;
        for (int32_t l = 0; l < OC_EIN_LETTERS; l++)
            if (e->count[l] == 1 && e->size[l] != -2) {
                /* a letter repeated inside its one term is summed (trace) */
                int32_t occ = 0;
                for (int32_t i = 0; i < e->n_ops; i++)
                    for (int32_t k = 0; k < e->n_tok[i]; k++)
                        occ += e->tok[i][k] == l;
                if (occ == 1)
                    lab[n++] = l;
            }
        return n;
    }
    const int8_t *t = e->tok[OC_EIN_MAX_OPS];
    for (int32_t k = 0; k < e->n_tok[OC_EIN_MAX_OPS]; k++) {
        if (t[k] == OC_EIN_ELL)
            for (int32_t j = 0; j < e->ell_rank; j++)
                lab[n++] = OC_EIN_LETTERS + j;
        else
            lab[n++] = t[k];
    }
    return n;
}

static enum oc_status oc_einsum_shape(struct oc_op_ctx *c, struct oc_einsum *e) {
    enum oc_status st = oc_ein_parse(c, e);
    if (st != OC_OK)
        return st;
    if ((st = oc_ein_resolve(c, e)) != OC_OK)
        return st;
    int32_t lab[OC_EIN_LABELS + OC_EIN_MAX_TERM];
    int32_t r = oc_ein_out_labels(e, lab);
    if (r > OC_EIN_LABELS)
        return OC_FAIL(c, OC_ERR_MODEL, "the output repeats a label");
    struct oc_dim out[OC_EIN_LABELS];
    bool used[OC_EIN_LABELS] = {false};
    for (int32_t k = 0; k < r; k++) {
        int32_t l = lab[k];
        if (l < OC_EIN_LETTERS && e->size[l] == -2)
            return OC_FAIL(c, OC_ERR_MODEL, "output label '%c' is in no input", l < 26 ? 'A' + l : 'a' + l - 26);
        if (used[l])
            return OC_FAIL(c, OC_ERR_MODEL, "the output repeats a label");
        used[l] = true;
        out[k] = (struct oc_dim){e->size[l] < 0 ? OC_DIM_UNKNOWN : e->size[l], NULL};
    }
    return oc_set_out(c, 0, oc_in(c, 0)->dtype, r, out);
}

OC_RULE(oc_einsum_infer) {
    struct oc_einsum *e = malloc(sizeof *e); /* ~60 KiB: not kept in the arena */
    if (!e)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    enum oc_status st = oc_einsum_shape(c, e);
    free(e);
    return st;
}

/* Product of the sizes of the labels set in sz (-2 = absent). */
static uint64_t oc_ein_space(const int64_t *sz, uint32_t *flags) {
    uint64_t p = 1;
    for (int32_t l = 0; l < OC_EIN_LABELS; l++)
        if (sz[l] >= 0 && oc_mul_u64(p, (uint64_t)sz[l], &p))
            *flags |= OC_COST_OVERFLOW;
    return p;
}

static enum oc_status oc_einsum_count(struct oc_op_ctx *c, struct oc_einsum *e, struct oc_cost *cost) {
    enum oc_status st = oc_ein_parse(c, e);
    if (st != OC_OK || (st = oc_ein_resolve(c, e)) != OC_OK)
        return st;
    uint64_t y = oc_numel(oc_out(c, 0));
    if (e->n_ops == 1) {
        uint64_t p = oc_ein_space(e->op_size[0], &cost->flags);
        oc_cost_add_flops(cost, p > y ? p - y : 0, 1);
        return OC_OK;
    }
    int32_t lab[OC_EIN_LABELS + OC_EIN_MAX_TERM];
    int32_t r = oc_ein_out_labels(e, lab);
    bool in_out[OC_EIN_LABELS] = {false};
    for (int32_t k = 0; k < r && k < OC_EIN_LABELS; k++)
        in_out[lab[k]] = true;
    int64_t cur[OC_EIN_LABELS], both[OC_EIN_LABELS];
    memcpy(cur, e->op_size[0], sizeof cur);
    for (int32_t t = 1; t < e->n_ops; t++) {
        for (int32_t l = 0; l < OC_EIN_LABELS; l++) {
            int64_t a = cur[l], b = e->op_size[t][l];
            both[l] = a == -2 ? b : b == -2 ? a : a > b ? a : b; /* a size 1 broadcasts */
        }
        oc_cost_add_macs(cost, oc_ein_space(both, &cost->flags), 1);
        for (int32_t l = 0; l < OC_EIN_LABELS; l++) {
            bool needed = in_out[l];
            for (int32_t u = t + 1; u < e->n_ops && !needed; u++)
                needed = e->op_size[u][l] != -2;
            cur[l] = needed ? both[l] : -2;
        }
    }
    oc_cost_add_flops(cost, cost->macs, 2);
    return OC_OK;
}

/* 1 operand: FLOPs = P(operand labels) - numel(Y). 2 operands: MACs = P(all
 * labels). n > 2: MACs = sum over the pairwise left-to-right steps of
 * P(labels of both sides). FLOPs = 2 * MACs from 2 operands (file comment). */
OC_COST(oc_einsum_cost) {
    struct oc_einsum *e = malloc(sizeof *e);
    if (!e)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    enum oc_status st = oc_einsum_count(c, e, cost);
    free(e);
    return st;
}

/* ---- value propagation (fold.h) ----------------------------------------------------
 * Einsum of known operands, when cheap: every combination of the labels
 * (at most OC_EIN_FOLD_STEPS) multiplies one element of each operand into
 * the output element its output labels name. Integers exactly (overflow
 * leaves the output unknown), floats in double rounded to the type once. */
enum { OC_EIN_FOLD_STEPS = 1 << 20 };

OC_FOLD(oc_einsum_fold) {
    struct oc_einsum *e = calloc(1, sizeof *e);
    if (!e)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    struct oc_diag d = {0}, *saved = c->diag;
    c->diag = &d; /* a fold reports nothing: what it cannot do stays unknown */
    struct oc_known k[OC_EIN_MAX_OPS];
    struct oc_fold_out o;
    int32_t lab_out[OC_EIN_LABELS + OC_EIN_MAX_TERM], used[OC_EIN_LABELS], n_used = 0;
    int32_t n_out = 0, n_ops = 0;
    bool ok = oc_ein_parse(c, e) == OC_OK && oc_ein_resolve(c, e) == OC_OK;
    uint64_t steps = 1;
    if (ok) {
        n_ops = e->n_ops;
        n_out = oc_ein_out_labels(e, lab_out);
        for (int32_t l = 0; l < OC_EIN_LABELS && ok; l++) {
            if (e->size[l] == -2)
                continue;
            used[n_used++] = l;
            ok = e->size[l] >= 0 && !oc_mul_u64(steps, (uint64_t)e->size[l], &steps) && steps <= OC_EIN_FOLD_STEPS;
        }
    }
    for (int32_t i = 0; ok && i < n_ops; i++)
        ok = oc_fold_in(c, i, &k[i]);
    ok = ok && oc_fold_out(c, 0, &o);
    c->diag = saved;
    if (!ok) {
        free(e);
        return OC_OK;
    }
    /* each operand dim's label (a letter, or one of the "..." dims) */
    int32_t dim_lab[OC_EIN_MAX_OPS][OC_EIN_MAX_TERM + OC_EIN_MAX_ELL];
    for (int32_t i = 0; i < n_ops; i++) {
        int32_t letters = 0, dd = 0;
        for (int32_t t = 0; t < e->n_tok[i]; t++)
            letters += e->tok[i][t] != OC_EIN_ELL;
        int32_t ell = k[i].rank - letters;
        for (int32_t t = 0; t < e->n_tok[i]; t++) {
            if (e->tok[i][t] != OC_EIN_ELL) {
                dim_lab[i][dd++] = e->tok[i][t];
                continue;
            }
            for (int32_t j = 0; j < ell; j++)
                dim_lab[i][dd++] = OC_EIN_LETTERS + e->ell_rank - ell + j;
        }
    }
    bool as_int = o.i != NULL;
    for (int32_t i = 0; i < n_ops; i++)
        as_int = as_int && k[i].i;
    double *facc = as_int ? NULL : calloc((size_t)o.n + 1, sizeof *facc);
    int64_t *iacc = as_int ? calloc((size_t)o.n + 1, sizeof *iacc) : NULL;
    if (!facc && !iacc) {
        free(e);
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    }
    int64_t coord[OC_EIN_LABELS] = {0};
    for (uint64_t s = 0; ok && s < steps; s++) {
        uint64_t rest = s; /* the combination's coordinate of every label */
        for (int32_t u = n_used - 1; u >= 0; u--) {
            uint64_t size = (uint64_t)e->size[used[u]];
            coord[used[u]] = size ? (int64_t)(rest % size) : 0;
            rest = size ? rest / size : 0;
        }
        int64_t at = 0;
        for (int32_t j = 0; j < n_out; j++)
            at = at * e->size[lab_out[j]] + coord[lab_out[j]];
        double fp = 1;
        int64_t ip = 1;
        for (int32_t i = 0; ok && i < n_ops; i++) {
            int64_t flat = 0;
            for (int32_t dd = 0; dd < k[i].rank; dd++) {
                int64_t size = k[i].dims[dd].value; /* 1: broadcast over the label */
                flat = flat * size + (size == 1 ? 0 : coord[dim_lab[i][dd]]);
            }
            if (as_int)
                ok = !oc_mul_i64(ip, k[i].i[flat], &ip);
            else
                fp *= oc_known_f(&k[i], flat);
        }
        if (as_int)
            ok = ok && !oc_add_i64(iacc[at], ip, &iacc[at]);
        else
            facc[at] += fp;
    }
    for (int64_t j = 0; ok && j < o.n; j++)
        ok = as_int ? oc_fold_put_i(&o, j, iacc[j]) : oc_fold_put_f(&o, j, facc[j]);
    if (ok)
        oc_fold_commit(&o);
    free(facc);
    free(iacc);
    free(e);
    return OC_OK;
}
