/*
 * ops/sequence.c — sequences of tensors and optionals (struct oc_ntype,
 * graph.h): SequenceConstruct, SequenceEmpty, SequenceAt, SequenceInsert,
 * SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence,
 * SequenceMap, Optional, OptionalHasElement, OptionalGetElement, and the
 * type union of seqtype.h.
 *
 * A sequence is summarized by its tensors' dtype, the shape they share (a
 * dim they do not share is unknown) and its length when known; SequenceAt
 * therefore gives the shared shape whatever the position.
 *
 * Cost: all move data, 0 FLOPs (bytes counted by the driver: a sequence's
 * bytes are those of its tensors; SequenceAt reads one tensor). SequenceMap
 * costs its body once per tensor: the body is analyzed once, with the shape
 * the tensors share, and charged x the sequence length (unknown when the
 * length is, or when the body's cost depends on dims the tensors do not
 * share).
 */
#include "../attr.h"
#include "../dtype.h"
#include "../shape.h"
#include "rules.h"
#include "seqtype.h"

#include <string.h>

enum { OC_SEQ_MAX_RANK = 1024, OC_SEQ_MAX_IO = 256 };

static struct oc_ntype *oc_nt_new(struct oc_op_ctx *c, const struct oc_ntype *init) {
    struct oc_ntype *t = oc_arena_alloc(c->arena, sizeof *t);
    if (t)
        *t = *init;
    return t;
}

#define OC_NT_NEW(var, init)                                                                       \
    struct oc_ntype *var = oc_nt_new(c, (init));                                                   \
    if (!var)                                                                                      \
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");

static const char *oc_kind_name(const struct oc_value *v) {
    if (v->nt)
        return v->nt->kind == OC_TYPE_SEQUENCE ? "a sequence" : "an optional";
    return "a tensor";
}

/* (dtype, rank, dims) := the shape of a tensor that has either shape a or b;
 * dims copied into the arena. */
static enum oc_status oc_shape_union(struct oc_op_ctx *c, int32_t *dt, int32_t *rank, struct oc_dim **dims,
                                     int32_t adt, int32_t ar, const struct oc_dim *ad, int32_t bdt, int32_t br,
                                     const struct oc_dim *bd) {
    *dt = adt ? adt : bdt;
    *rank = ar == br ? ar : -1;
    *dims = NULL;
    if (*rank < 0)
        return OC_OK;
    if (*rank > OC_SEQ_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit %d", *rank, OC_SEQ_MAX_RANK);
    struct oc_dim *d = oc_arena_array(c->arena, (size_t)*rank + 1, sizeof *d);
    if (!d)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < *rank; i++) {
        bool same = ad[i].value == bd[i].value &&
                    (ad[i].value >= 0 || (ad[i].sym && bd[i].sym && strcmp(ad[i].sym, bd[i].sym) == 0));
        d[i] = same ? ad[i] : (struct oc_dim){OC_DIM_UNKNOWN, NULL};
    }
    *dims = d;
    return OC_OK;
}

/* Bytes of one tensor of shape (dt, rank, dims); -1 when unknown. */
static int64_t oc_tensor_bytes(int32_t dt, int32_t rank, struct oc_dim *dims) {
    struct oc_value v = {.dtype = dt, .rank = rank, .dims = dims};
    uint64_t b;
    return oc_value_bytes(&v, &b) && b <= INT64_MAX ? (int64_t)b : -1;
}

/* a + b for byte counts, -1 when either is unknown or the sum overflows */
static int64_t oc_bytes_add(int64_t a, int64_t b) {
    return a < 0 || b < 0 || a > INT64_MAX - b ? -1 : a + b;
}

const struct oc_ntype *oc_seq_of(const struct oc_value *v) {
    const struct oc_ntype *t = v ? v->nt : NULL;
    if (!t || (t->kind == OC_TYPE_OPTIONAL && t->inner != OC_TYPE_SEQUENCE))
        return NULL;
    return t;
}

const struct oc_ntype *oc_seq_with_len(struct oc_op_ctx *c, const struct oc_ntype *s, int64_t len) {
    struct oc_ntype *t = oc_nt_new(c, s);
    if (!t)
        return NULL;
    t->len = len;
    int64_t one = oc_tensor_bytes(s->dtype, s->rank, s->dims);
    t->bytes = len == 0 ? 0 : len < 0 || one < 0 || (one && len > INT64_MAX / one) ? -1 : len * one;
    return t;
}

/* The union of two descriptions of the same kind; *out NULL when the kinds
 * (or an optional's contents) differ. */
static enum oc_status oc_nt_union(struct oc_op_ctx *c, const struct oc_ntype *a, const struct oc_ntype *b,
                                  const struct oc_ntype **out) {
    *out = NULL;
    if (!b || a == b) {
        *out = a;
        return OC_OK;
    }
    if (a->kind != b->kind)
        return OC_OK;
    OC_NT_NEW(t, a);
    *out = t;
    if (a->kind == OC_TYPE_OPTIONAL) {
        t->present = a->present == b->present ? a->present : -1;
        if (a->present == 0 || b->present == 0) { /* an empty one says nothing of the contents */
            const struct oc_ntype *full = a->present == 0 ? b : a;
            t->inner = full->inner;
            t->len = full->len;
            t->bytes = full->bytes;
            t->dtype = full->dtype;
            t->rank = full->rank;
            t->dims = full->dims;
            if (a->present != 0 || b->present != 0 || a->inner == b->inner)
                return OC_OK;
            *out = NULL; /* two empty optionals of different types */
            return OC_OK;
        }
        if (a->inner != b->inner) {
            *out = NULL;
            return OC_OK;
        }
    }
    bool seq = a->kind == OC_TYPE_SEQUENCE || a->inner == OC_TYPE_SEQUENCE;
    if (seq) {
        t->len = a->len == b->len ? a->len : -1;
        t->bytes = a->bytes == b->bytes ? a->bytes : -1;
        if (a->len == 0 || b->len == 0) { /* an empty sequence has no tensors to constrain the shape */
            const struct oc_ntype *full = a->len == 0 ? b : a;
            t->dtype = full->dtype ? full->dtype : a->dtype;
            t->rank = full->rank;
            t->dims = full->dims;
            return OC_OK;
        }
    }
    return oc_shape_union(c, &t->dtype, &t->rank, &t->dims, a->dtype, a->rank, a->dims, b->dtype, b->rank, b->dims);
}

enum oc_status oc_set_out_union(struct oc_op_ctx *c, int32_t k, const struct oc_value *a, const struct oc_value *b) {
    if (!a)
        return OC_OK;
    if (!a->nt && (!b || !b->nt)) {
        int32_t dt, rank;
        struct oc_dim *dims;
        enum oc_status st = b ? oc_shape_union(c, &dt, &rank, &dims, a->dtype, a->rank, a->dims, b->dtype, b->rank,
                                               b->dims)
                              : OC_OK;
        if (!b)
            return oc_set_out(c, k, a->dtype, a->rank, a->dims);
        return st != OC_OK ? st : oc_set_out(c, k, dt, rank, dims);
    }
    const struct oc_ntype *t = NULL;
    if (a->nt && (!b || b->nt)) {
        enum oc_status st = oc_nt_union(c, a->nt, b ? b->nt : NULL, &t);
        if (st != OC_OK)
            return st;
    }
    if (!t) /* values of different kinds: nothing is known */
        return oc_set_out(c, k, 0, -1, NULL);
    return oc_set_out_nt(c, k, t);
}

/* Input i as a sequence: OC_ERR_SHAPE when its type is not known,
 * OC_ERR_UNSUPPORTED when it is something else. */
static enum oc_status oc_in_seq(struct oc_op_ctx *c, int32_t i, const char *what, const struct oc_ntype **s) {
    const struct oc_value *v = oc_in(c, i);
    *s = NULL;
    if (!v || (!v->nt && !v->dtype && v->rank < 0))
        return OC_FAIL(c, OC_ERR_SHAPE, "the type of input '%s' is not known", what);
    if (!v->nt || v->nt->kind != OC_TYPE_SEQUENCE)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input '%s' is %s, expected a sequence", what, oc_kind_name(v));
    *s = v->nt;
    return OC_OK;
}

/* Input i as a tensor of known rank (OC_ERR_SHAPE / OC_ERR_UNSUPPORTED as above). */
static enum oc_status oc_in_tensor(struct oc_op_ctx *c, int32_t i, const char *what, const struct oc_value **t) {
    const struct oc_value *v = oc_in(c, i);
    *t = v;
    if (v && v->nt)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input '%s' is %s, expected a tensor", what, oc_kind_name(v));
    if (!v || v->rank < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the shape of input '%s' is not known", what);
    return OC_OK;
}

/* The known value of a scalar (or one-element) integer input, when known. */
static bool oc_in_scalar(const struct oc_op_ctx *c, int32_t i, int64_t *out) {
    int64_t n;
    const int64_t *v = oc_in_ints(c, i, &n);
    if (!v || n != 1)
        return false;
    *out = v[0];
    return true;
}

/* A position input checked against the length n when both are known:
 * [-n, n - 1], or [-n, n] when `end_ok` (SequenceInsert). */
static enum oc_status oc_check_position(struct oc_op_ctx *c, int32_t i, int64_t n, bool end_ok) {
    const struct oc_value *p = oc_in(c, i);
    if (p && p->nt)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input 'position' is %s, expected a tensor", oc_kind_name(p));
    if (p && p->rank > 1)
        return OC_FAIL(c, OC_ERR_MODEL, "input 'position' has rank %d, expected a scalar", p->rank);
    int64_t pos;
    if (n < 0 || !oc_in_scalar(c, i, &pos))
        return OC_OK;
    if (pos < -n || pos > (end_ok ? n : n - 1))
        return OC_FAIL(c, OC_ERR_MODEL, "position %lld is out of range for a sequence of %lld tensors",
                       (long long)pos, (long long)n);
    return OC_OK;
}

/* ---- sequences ------------------------------------------------------------------ */

/* SequenceConstruct: the inputs, in order; all of one dtype. */
OC_RULE(oc_seq_construct_infer) {
    int32_t n = oc_n_in(c);
    struct oc_ntype s = {.kind = OC_TYPE_SEQUENCE, .present = -1, .len = n, .bytes = 0, .rank = -1};
    bool known = true;
    for (int32_t i = 0; i < n; i++) {
        const struct oc_value *x = oc_in(c, i);
        if (!x)
            return OC_FAIL(c, OC_ERR_MODEL, "input %d is omitted", i);
        if (x->nt)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input %d is %s, expected a tensor", i, oc_kind_name(x));
        if (s.dtype && x->dtype && x->dtype != s.dtype)
            return OC_FAIL(c, OC_ERR_MODEL, "input %d is %s, input 0 %s: a sequence has one element type", i,
                           oc_dtype_name(x->dtype), oc_dtype_name(s.dtype));
        /* the first input's shape (copied), then what every input shares */
        const struct oc_value *y = i == 0 ? x : NULL;
        enum oc_status st = oc_shape_union(c, &s.dtype, &s.rank, &s.dims, y ? x->dtype : s.dtype,
                                           y ? x->rank : s.rank, y ? x->dims : s.dims, x->dtype, x->rank, x->dims);
        if (st != OC_OK)
            return st;
        uint64_t b;
        known = known && oc_value_bytes(x, &b) && b <= INT64_MAX;
        s.bytes = known ? oc_bytes_add(s.bytes, (int64_t)b) : -1;
    }
    OC_NT_NEW(t, &s);
    return oc_set_out_nt(c, 0, t);
}

/* SequenceEmpty: no tensors, of type `dtype` (default float). */
OC_RULE(oc_seq_empty_infer) {
    int32_t dt;
    enum oc_status st = oc_attr_dtype(c->node, "dtype", OC_DT_FLOAT, &dt, c->diag);
    if (st != OC_OK)
        return st;
    struct oc_ntype s = {.kind = OC_TYPE_SEQUENCE, .present = -1, .len = 0, .bytes = 0, .dtype = dt, .rank = -1};
    OC_NT_NEW(t, &s);
    return oc_set_out_nt(c, 0, t);
}

/* SequenceAt: one tensor, of the shape the sequence's tensors share. */
OC_RULE(oc_seq_at_infer) {
    const struct oc_ntype *s;
    enum oc_status st = oc_in_seq(c, 0, "input_sequence", &s);
    if (st != OC_OK)
        return st;
    if (s->len == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "the sequence is empty");
    if ((st = oc_check_position(c, 1, s->len, false)) != OC_OK ||
        (st = oc_set_out(c, 0, s->dtype, s->rank, s->dims)) != OC_OK)
        return st;
    if (s->rank < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the sequence's tensors have no common rank");
    return OC_OK;
}

/* SequenceAt reads the one tensor it returns. */
OC_COST(oc_seq_at_cost) {
    uint64_t b;
    const struct oc_value *y = oc_out(c, 0);
    if (y && oc_value_bytes(y, &b))
        oc_sum_u64(&cost->bytes_read, b, &cost->flags);
    return OC_OK;
}

/* SequenceInsert: one more tensor, at `position` (default: the back). */
OC_RULE(oc_seq_insert_infer) {
    const struct oc_ntype *s;
    const struct oc_value *x = oc_in(c, 1);
    enum oc_status st = oc_in_seq(c, 0, "input_sequence", &s);
    if (st != OC_OK)
        return st;
    if (!x)
        return OC_FAIL(c, OC_ERR_MODEL, "input 'tensor' is required but empty");
    if (x->nt) /* a tensor of unknown shape still makes the sequence one longer */
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input 'tensor' is %s, expected a tensor", oc_kind_name(x));
    if (s->dtype && x->dtype && s->dtype != x->dtype)
        return OC_FAIL(c, OC_ERR_MODEL, "inserting a %s tensor into a sequence of %s", oc_dtype_name(x->dtype),
                       oc_dtype_name(s->dtype));
    if ((st = oc_check_position(c, 2, s->len, true)) != OC_OK)
        return st;
    OC_NT_NEW(t, s);
    t->len = s->len < 0 || s->len == INT64_MAX ? -1 : s->len + 1;
    t->bytes = oc_bytes_add(s->bytes, oc_tensor_bytes(x->dtype, x->rank, x->dims));
    if (s->len == 0) {
        t->dtype = x->dtype;
        t->rank = x->rank;
        t->dims = x->dims;
    } else if ((st = oc_shape_union(c, &t->dtype, &t->rank, &t->dims, s->dtype, s->rank, s->dims, x->dtype, x->rank,
                                    x->dims)) != OC_OK) {
        return st;
    }
    return oc_set_out_nt(c, 0, t);
}

/* SequenceErase: one tensor less, at `position` (default: the back). */
OC_RULE(oc_seq_erase_infer) {
    const struct oc_ntype *s;
    enum oc_status st = oc_in_seq(c, 0, "input_sequence", &s);
    if (st != OC_OK)
        return st;
    if (s->len == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "erasing from an empty sequence");
    if ((st = oc_check_position(c, 1, s->len, false)) != OC_OK)
        return st;
    OC_NT_NEW(t, s);
    t->len = s->len < 0 ? -1 : s->len - 1;
    /* the erased tensor's bytes are known when every tensor has the shared, known shape */
    int64_t one = oc_tensor_bytes(s->dtype, s->rank, s->dims);
    t->bytes = t->len == 0 ? 0 : s->bytes < 0 || one < 0 ? -1 : s->bytes - one;
    return oc_set_out_nt(c, 0, t);
}

/* SequenceLength: an int64 scalar, its value the length when known. */
OC_RULE(oc_seq_length_infer) {
    const struct oc_ntype *s;
    enum oc_status st = oc_in_seq(c, 0, "input_sequence", &s);
    if (st != OC_OK || (st = oc_set_out(c, 0, OC_DT_INT64, 0, NULL)) != OC_OK)
        return st;
    return s->len >= 0 ? oc_set_ints(c, 0, &s->len, 1) : OC_OK;
}

/* SplitToSequence: `input` cut along `axis` into pieces of `split` (a scalar:
 * pieces of that size, the last one smaller; a 1-D tensor: the sizes); without
 * `split`, pieces of 1, the axis dropped when keepdims = 0. */
OC_RULE(oc_split_to_seq_infer) {
    const struct oc_value *x;
    enum oc_status st = oc_in_tensor(c, 0, "input", &x);
    if (st != OC_OK)
        return st;
    int64_t axis_attr, keepdims;
    int32_t axis;
    if ((st = oc_attr_int(c->node, "axis", 0, &axis_attr, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "keepdims", 1, &keepdims, c->diag)) != OC_OK)
        return st;
    if (!oc_axis_norm(axis_attr, x->rank, &axis))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld is out of range for rank %d", (long long)axis_attr, x->rank);
    if (x->rank > OC_SEQ_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit %d", x->rank, OC_SEQ_MAX_RANK);
    int64_t d = x->dims[axis].value;
    struct oc_ntype s = {.kind = OC_TYPE_SEQUENCE, .present = -1, .len = -1, .bytes = -1, .dtype = x->dtype,
                         .rank = x->rank};
    s.dims = oc_arena_array(c->arena, (size_t)x->rank + 1, sizeof *s.dims);
    if (!s.dims)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    memcpy(s.dims, x->dims, (size_t)x->rank * sizeof *s.dims);
    uint64_t xb;
    if (oc_value_bytes(x, &xb) && xb <= INT64_MAX)
        s.bytes = (int64_t)xb; /* the pieces hold the input, once */
    const struct oc_value *sp = oc_in(c, 1);
    int64_t piece = OC_DIM_UNKNOWN;
    if (!sp) {
        s.len = d;
        piece = 1;
        if (!keepdims) {
            memmove(s.dims + axis, s.dims + axis + 1, (size_t)(x->rank - axis - 1) * sizeof *s.dims);
            s.rank--;
        }
    } else {
        if (sp->nt)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input 'split' is %s, expected a tensor", oc_kind_name(sp));
        if (sp->rank > 1)
            return OC_FAIL(c, OC_ERR_MODEL, "input 'split' has rank %d, expected 0 or 1", sp->rank);
        int64_t n;
        const int64_t *v = oc_in_ints(c, 1, &n);
        if (sp->rank == 1 && sp->dims[0].value >= 0)
            s.len = sp->dims[0].value;
        if (v && sp->rank == 0 && n == 1) { /* pieces of v[0], the last one smaller */
            if (v[0] <= 0)
                return OC_FAIL(c, OC_ERR_MODEL, "split %lld is not positive", (long long)v[0]);
            if (d >= 0) {
                s.len = d / v[0] + (d % v[0] != 0);
                piece = s.len == 1 ? d : d % v[0] == 0 ? v[0] : OC_DIM_UNKNOWN;
            }
        } else if (v && sp->rank == 1) {
            int64_t sum = 0;
            s.len = n;
            piece = n > 0 ? v[0] : OC_DIM_UNKNOWN;
            for (int64_t i = 0; i < n; i++) {
                if (v[i] < 0 || sum > INT64_MAX - v[i])
                    return OC_FAIL(c, OC_ERR_MODEL, "split entry %lld is %lld", (long long)i, (long long)v[i]);
                sum += v[i];
                if (v[i] != piece)
                    piece = OC_DIM_UNKNOWN;
            }
            if (d >= 0 && sum != d)
                return OC_FAIL(c, OC_ERR_MODEL, "split sums to %lld, the axis has %lld", (long long)sum,
                               (long long)d);
        }
    }
    if (sp || keepdims)
        s.dims[axis] = (struct oc_dim){piece, NULL};
    if (s.len == 0)
        s.bytes = 0;
    OC_NT_NEW(t, &s);
    return oc_set_out_nt(c, 0, t);
}

/* ConcatFromSequence: the tensors joined along `axis` (new_axis = 0), or
 * stacked on a new axis at `axis` (new_axis = 1). */
OC_RULE(oc_concat_from_seq_infer) {
    const struct oc_ntype *s;
    enum oc_status st = oc_in_seq(c, 0, "input_sequence", &s);
    if (st != OC_OK)
        return st;
    int64_t axis_attr, new_axis;
    if (!oc_attr_has(c->node, "axis"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'axis' is missing");
    if ((st = oc_attr_int(c->node, "axis", 0, &axis_attr, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "new_axis", 0, &new_axis, c->diag)) != OC_OK)
        return st;
    if (new_axis != 0 && new_axis != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "attribute 'new_axis' is %lld, expected 0 or 1", (long long)new_axis);
    if (s->len == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "concatenating an empty sequence");
    if (s->rank < 0) {
        if ((st = oc_set_out(c, 0, s->dtype, -1, NULL)) != OC_OK)
            return st;
        return OC_FAIL(c, OC_ERR_SHAPE, "the sequence's tensors have no common rank");
    }
    int32_t rank = s->rank + (int32_t)new_axis, axis;
    if (rank < 1 || !oc_axis_norm(axis_attr, rank, &axis))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld is out of range for rank %d", (long long)axis_attr, rank);
    if (rank > OC_SEQ_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over the limit %d", rank, OC_SEQ_MAX_RANK);
    struct oc_dim *dims = oc_arena_array(c->arena, (size_t)rank + 1, sizeof *dims);
    if (!dims)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    for (int32_t i = 0, o = 0; i < rank; i++) {
        if (new_axis && i == axis) {
            dims[i] = (struct oc_dim){s->len, NULL};
            continue;
        }
        dims[i] = s->dims[o++];
        if (!new_axis && i == axis) { /* the sum of the tensors' sizes: len x the shared size */
            int64_t each = dims[i].value, total;
            dims[i] = (struct oc_dim){OC_DIM_UNKNOWN, NULL};
            if (each >= 0 && s->len >= 0 && !oc_mul_i64(each, s->len, &total))
                dims[i].value = total;
        }
    }
    return oc_set_out(c, 0, s->dtype, rank, dims);
}

/* SequenceMap: `body` applied to each tensor of the sequence input(s) (tensor
 * inputs go to every application); each output collects one tensor per
 * application. */
OC_RULE(oc_seq_map_infer) {
    const struct oc_ntype *s0;
    enum oc_status st = oc_in_seq(c, 0, "input_sequence", &s0);
    if (st != OC_OK)
        return st;
    int32_t n_in = oc_n_in(c);
    if (n_in > OC_SEQ_MAX_IO)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "more than %d inputs", OC_SEQ_MAX_IO);
    struct oc_value elems[OC_SEQ_MAX_IO];
    const struct oc_value *bind[OC_SEQ_MAX_IO];
    int64_t len = s0->len;
    for (int32_t i = 0; i < n_in; i++) {
        const struct oc_value *v = oc_in(c, i);
        if (!v)
            return OC_FAIL(c, OC_ERR_MODEL, "input %d is omitted", i);
        if (v->nt && v->nt->kind != OC_TYPE_SEQUENCE)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input %d is an optional, expected a sequence or a tensor", i);
        bind[i] = v;
        if (!v->nt)
            continue;
        const struct oc_ntype *s = v->nt;
        if (s->len >= 0 && len >= 0 && s->len != len)
            return OC_FAIL(c, OC_ERR_MODEL, "input %d holds %lld tensors, input 0 %lld", i, (long long)s->len,
                           (long long)len);
        if (len < 0)
            len = s->len;
        elems[i] = (struct oc_value){.dtype = s->dtype, .rank = s->rank, .dims = s->dims, .producer = -1,
                                     .param_of = -1};
        bind[i] = &elems[i];
    }
    struct oc_subgraph b;
    if ((st = oc_subgraph_run(c, "body", n_in, bind, &b)) != OC_OK)
        return st;
    if (b.g->n_inputs != n_in || b.g->n_outputs != c->node->n_out)
        return OC_FAIL(c, OC_ERR_MODEL, "the body has %d inputs and %d outputs, the node %d and %d", b.g->n_inputs,
                       b.g->n_outputs, n_in, c->node->n_out);
    for (int32_t k = 0; k < c->node->n_out; k++) {
        const struct oc_value *y = b.g->outputs[k] >= 0 ? &b.g->values[b.g->outputs[k]] : NULL;
        if (y && y->nt)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "body output %d is %s, expected a tensor", k, oc_kind_name(y));
        struct oc_ntype s = {.kind = OC_TYPE_SEQUENCE, .present = -1, .len = -1, .bytes = -1, .rank = -1};
        if (y) {
            s.dtype = y->dtype;
            s.rank = y->rank;
            s.dims = y->dims;
        }
        const struct oc_ntype *t = oc_seq_with_len(c, &s, len);
        if (!t)
            return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
        if ((st = oc_set_out_nt(c, k, t)) != OC_OK)
            return st;
    }
    /* cost: the body once per tensor */
    struct oc_cost *k = &c->node->cost;
    memset(k, 0, sizeof *k);
    if (len >= 0) {
        oc_cost_add_macs(k, b.cost.macs, (uint64_t)len);
        oc_cost_add_flops(k, b.cost.flops, (uint64_t)len);
    }
    if (!b.complete || len < 0)
        k->flags |= OC_COST_UNKNOWN;
    return OC_OK;
}

/* ---- optionals ------------------------------------------------------------------ */

/* Optional: holds `input`; without one, an empty optional of type `type`. */
OC_RULE(oc_optional_infer) {
    const struct oc_value *x = oc_in(c, 0);
    struct oc_ntype o = {.kind = OC_TYPE_OPTIONAL, .inner = OC_TYPE_TENSOR, .present = 1, .len = -1, .bytes = -1,
                         .rank = -1};
    enum oc_status st;
    if (x) {
        if (x->nt && x->nt->kind != OC_TYPE_SEQUENCE)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "input 'input' is an optional: optionals do not nest");
        if (!x->nt && !x->dtype && x->rank < 0)
            return OC_FAIL(c, OC_ERR_SHAPE, "the type of input 'input' is not known");
        if (x->nt) {
            o = *x->nt;
            o.inner = OC_TYPE_SEQUENCE;
        } else {
            o.dtype = x->dtype;
            o.rank = x->rank;
            o.dims = x->dims;
        }
        o.kind = OC_TYPE_OPTIONAL;
        o.present = 1;
    } else {
        const void *tp;
        int32_t dt, rank;
        struct oc_dim *dims;
        const struct oc_ntype *nt;
        if ((st = oc_attr_type_proto(c->node, "type", &tp, c->diag)) != OC_OK)
            return st;
        if (!tp)
            return OC_FAIL(c, OC_ERR_MODEL, "an Optional without input needs attribute 'type'");
        if ((st = oc_type_from_proto(c->arena, tp, "attribute", "type", &dt, &rank, &dims, &nt, c->diag)) != OC_OK)
            return st;
        if (nt && nt->kind != OC_TYPE_SEQUENCE)
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "attribute 'type' is an optional: optionals do not nest");
        if (nt) {
            o = *nt;
            o.inner = OC_TYPE_SEQUENCE;
        } else if (!dt && rank < 0) {
            return OC_FAIL(c, OC_ERR_UNSUPPORTED, "attribute 'type' is not a tensor or sequence type");
        } else {
            o.dtype = dt;
            o.rank = rank;
            o.dims = dims;
        }
        o.kind = OC_TYPE_OPTIONAL;
        o.present = 0;
        o.len = -1;
        o.bytes = -1;
    }
    OC_NT_NEW(t, &o);
    return oc_set_out_nt(c, 0, t);
}

/* OptionalHasElement: a bool scalar, known when the input's presence is (no
 * input: false; a tensor or sequence, allowed from version 18: true). */
OC_RULE(oc_optional_has_infer) {
    const struct oc_value *x = oc_in(c, 0);
    enum oc_status st = oc_set_out(c, 0, OC_DT_BOOL, 0, NULL);
    if (st != OC_OK)
        return st;
    int64_t v = -1;
    if (!x)
        v = 0;
    else if (x->nt && x->nt->kind == OC_TYPE_OPTIONAL)
        v = x->nt->present;
    else if (x->nt || x->dtype || x->rank >= 0)
        v = 1;
    return v >= 0 ? oc_set_ints(c, 0, &v, 1) : OC_OK;
}

/* OptionalGetElement: what the optional holds (from version 18 a tensor or
 * sequence input is returned as is). */
OC_RULE(oc_optional_get_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || (!x->nt && !x->dtype && x->rank < 0))
        return OC_FAIL(c, OC_ERR_SHAPE, "the type of input 'input' is not known");
    if (!x->nt || x->nt->kind != OC_TYPE_OPTIONAL)
        return oc_set_out_like(c, 0, x);
    const struct oc_ntype *o = x->nt;
    if (o->present == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "the optional is empty");
    if (o->inner == OC_TYPE_TENSOR)
        return oc_set_out(c, 0, o->dtype, o->rank, o->dims);
    OC_NT_NEW(t, o);
    t->kind = OC_TYPE_SEQUENCE;
    t->inner = OC_TYPE_TENSOR;
    t->present = -1;
    return oc_set_out_nt(c, 0, t);
}
