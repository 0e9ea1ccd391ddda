/*
 * rule_io.c — what shape, cost and fold rules use to read their node's
 * inputs and set its outputs (declared in ops.h). The registry table that
 * names the rules is ops.c; the rules call only these, so neither depends on
 * the other's file.
 */
#include "ops.h"

#include "attr.h"
#include "fold.h"
#include "model.h"

#include <string.h>

int32_t oc_n_in(const struct oc_op_ctx *c) {
    return c->node->n_in;
}

struct oc_value *oc_in(const struct oc_op_ctx *c, int32_t i) {
    if (i < 0 || i >= c->node->n_in || c->node->in[i] < 0)
        return NULL;
    return &c->g->values[c->node->in[i]];
}

struct oc_value *oc_out(const struct oc_op_ctx *c, int32_t i) {
    if (i < 0 || i >= c->node->n_out || c->node->out[i] < 0)
        return NULL;
    return &c->g->values[c->node->out[i]];
}

/* --limit-rank: an inferred rank is refused like a declared one (fatal). */
static enum oc_status oc_check_rank(struct oc_op_ctx *c, int32_t i, int32_t rank) {
    int32_t max = oc_model_limits(c->g->model)->max_rank;
    if (rank <= max)
        return OC_OK;
    return OC_FAIL(c, OC_ERR_OVERFLOW, "output %d would have rank %d (limit %d; --limit-rank N raises it)", i, rank,
                   max);
}

/* Output i made a tensor of `dtype` and `rank` with room for its dims in
 * *d (NULL, and OC_OK, for an omitted output): the caller fills them. */
static enum oc_status oc_out_tensor(struct oc_op_ctx *c, int32_t i, int32_t dtype, int32_t rank, struct oc_dim **d) {
    struct oc_value *v = oc_out(c, i);
    *d = NULL;
    if (!v)
        return OC_OK;
    if (oc_check_rank(c, i, rank) != OC_OK)
        return OC_ERR_OVERFLOW;
    if (!(*d = oc_arena_array(c->arena, rank > 0 ? (size_t)rank : 1, sizeof **d)))
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    v->dtype = dtype;
    v->rank = rank;
    v->dims = *d;
    v->nt = NULL;
    return OC_OK;
}

enum oc_status oc_set_out(struct oc_op_ctx *c, int32_t i, int32_t dtype, int32_t rank,
                          const struct oc_dim *dims) {
    struct oc_dim *d;
    enum oc_status st = oc_out_tensor(c, i, dtype, rank, &d);
    if (st == OC_OK && d && rank > 0)
        memcpy(d, dims, (size_t)rank * sizeof *d);
    return st;
}

enum oc_status oc_set_out_nt(struct oc_op_ctx *c, int32_t i, const struct oc_ntype *nt) {
    struct oc_value *v = oc_out(c, i);
    if (!v)
        return OC_OK;
    v->dtype = 0;
    v->rank = -1;
    v->dims = NULL;
    v->nt = nt;
    return OC_OK;
}

enum oc_status oc_set_out_like(struct oc_op_ctx *c, int32_t i, const struct oc_value *v) {
    if (v->nt)
        return oc_set_out_nt(c, i, v->nt);
    return oc_set_out(c, i, v->dtype, v->rank, v->dims);
}

enum oc_status oc_set_out_i64(struct oc_op_ctx *c, int32_t i, int32_t dtype, int32_t rank,
                              const int64_t *dims) {
    struct oc_dim *d;
    enum oc_status st = oc_out_tensor(c, i, dtype, rank, &d);
    for (int32_t k = 0; st == OC_OK && d && k < rank; k++)
        d[k] = (struct oc_dim){dims[k], NULL};
    return st;
}

enum oc_status oc_set_ints(struct oc_op_ctx *c, int32_t i, const int64_t *vals, int64_t n) {
    struct oc_value *v = oc_out(c, i);
    if (!v || !vals)
        return OC_OK;
    int64_t *p = oc_arena_array(c->arena, n > 0 ? (size_t)n : 1, sizeof *p);
    if (!p)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    if (n > 0)
        memcpy(p, vals, (size_t)n * sizeof *p);
    v->ival = p;
    v->n_ival = n;
    return OC_OK;
}

static const int64_t oc_no_ints[1];

const int64_t *oc_in_ints(const struct oc_op_ctx *c, int32_t i, int64_t *n) {
    struct oc_value *v = oc_in(c, i);
    *n = 0;
    if (!v)
        return NULL;
    uint64_t cnt;
    if (oc_value_numel(v, &cnt) && cnt == 0)
        return oc_no_ints; /* an empty tensor's contents are known: none */
    return oc_value_ints(c->g, v, n);
}

const double *oc_in_floats(const struct oc_op_ctx *c, int32_t i, int64_t *n) {
    struct oc_known k;
    *n = 0;
    if (!oc_fold_in(c, i, &k))
        return NULL;
    if (k.f) {
        *n = k.n;
        return k.f;
    }
    double *out = oc_arena_array(c->arena, k.n > 0 ? (size_t)k.n : 1, sizeof *out);
    if (!out)
        return NULL;
    for (int64_t j = 0; j < k.n; j++)
        out[j] = (double)k.i[j];
    *n = k.n;
    return out;
}

bool oc_fold_in(const struct oc_op_ctx *c, int32_t i, struct oc_known *k) {
    struct oc_value *v = oc_in(c, i);
    if (!v) {
        memset(k, 0, sizeof *k);
        return false;
    }
    return oc_fold_get(c->g, v, k);
}

bool oc_fold_out(struct oc_op_ctx *c, int32_t i, struct oc_fold_out *o) {
    struct oc_value *v = oc_out(c, i);
    if (!v) {
        memset(o, 0, sizeof *o);
        return false;
    }
    return oc_fold_begin(c->g, c->arena, v, o);
}

void oc_fold_attr_floats(struct oc_op_ctx *c, int32_t i, const char *name) {
    struct oc_fold_out o;
    struct oc_diag d = {0};
    const float *v;
    int64_t n;
    if (!oc_attr_has(c->node, name) || oc_attr_floats(c->node, name, &v, &n, &d) != OC_OK || !oc_fold_out(c, i, &o) ||
        o.n != n)
        return;
    for (int64_t k = 0; k < n; k++)
        oc_fold_put_f(&o, k, v[k]);
    oc_fold_commit(&o);
}

OC_FOLD(oc_fold_none) {
    (void)c;
    return OC_OK;
}

bool oc_shape_known(const struct oc_value *v) {
    uint64_t n;
    if (!v || v->rank < 0)
        return false;
    for (int32_t i = 0; i < v->rank; i++)
        if (v->dims[i].value < 0)
            return false;
    (void)n;
    return true;
}

uint64_t oc_numel(const struct oc_value *v) {
    uint64_t n;
    if (!v || !oc_value_numel(v, &n))
        return 0;
    return n;
}
