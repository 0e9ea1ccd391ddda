/*
 * ops/layout.c — ops that move, view or describe data without arithmetic:
 * Identity (of any value, sequences and optionals too), Reshape, Flatten, Transpose, Concat, Squeeze, Unsqueeze, Pad,
 * Shape, Gather, Slice, Constant, ConstantOfShape, Expand, Range.
 * All cost 0 FLOPs (bytes moved are counted by the driver; views move none).
 *
 * These are also the ops of exported shape arithmetic (Shape -> Gather ->
 * Unsqueeze -> Concat -> Reshape), so each propagates small integer
 * tensors' values where it can. Float weights are never read.
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "../model.h"
#include "rules.h"
#include "../shape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OC_MAX_RANK = 1024 };

static struct oc_dim *oc_dims_new(struct oc_op_ctx *c, int64_t n) {
    if (n < 0 || n > OC_MAX_RANK)
        return NULL;
    return oc_arena_array(c->arena, (size_t)n + 1, sizeof(struct oc_dim));
}

#define OC_NEW_DIMS(var, n)                                                                        \
    struct oc_dim *var = oc_dims_new(c, (n));                                                      \
    if (!var)                                                                                      \
        return (n) > OC_MAX_RANK ? OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %lld over the limit %d",   \
                                           (long long)(n), OC_MAX_RANK)                            \
                                 : OC_FAIL(c, OC_ERR_NOMEM, "out of memory");

OC_RULE(oc_identity_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (x && x->nt) /* a sequence or optional passes through as well */
        return oc_set_out_nt(c, 0, x->nt);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_set_out(c, 0, x->dtype, x->rank, x->dims);
    return st;
}

/* Reshape target -> output dims (0 copies, -1 inferred) */
static enum oc_status oc_reshape_to(struct oc_op_ctx *c, const int64_t *t, int64_t n, bool allowzero) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    OC_NEW_DIMS(out, n);
    int32_t infer_at = -1;
    uint64_t known = 1;
    bool all_known = true;
    for (int64_t i = 0; i < n; i++) {
        if (t[i] == -1) {
            if (infer_at >= 0)
                return OC_FAIL(c, OC_ERR_MODEL, "target shape has more than one -1");
            infer_at = (int32_t)i;
            continue;
        }
        if (t[i] < -1)
            return OC_FAIL(c, OC_ERR_MODEL, "target shape has invalid dim %lld", (long long)t[i]);
        if (t[i] == 0 && !allowzero) {
            if (i >= x->rank)
                return OC_FAIL(c, OC_ERR_MODEL, "target dim %lld is 0 but the input has rank %d", (long long)i,
                               x->rank);
            out[i] = x->dims[i];
        } else {
            out[i] = (struct oc_dim){t[i], NULL};
        }
        if (out[i].value < 0)
            all_known = false;
        else if (oc_mul_u64(known, (uint64_t)out[i].value, &known))
            return OC_FAIL(c, OC_ERR_OVERFLOW, "target shape overflows 64 bits");
    }
    uint64_t total;
    bool have_total = oc_value_numel(x, &total);
    if (infer_at >= 0) {
        out[infer_at] = (struct oc_dim){OC_DIM_UNKNOWN, NULL};
        if (have_total && all_known) {
            if (known == 0 || total % known != 0)
                return OC_FAIL(c, OC_ERR_MODEL, "cannot reshape %llu elements with -1 into a multiple of %llu",
                               (unsigned long long)total, (unsigned long long)known);
            out[infer_at].value = (int64_t)(total / known);
        }
    } else if (have_total && all_known && known != total) {
        return OC_FAIL(c, OC_ERR_MODEL, "cannot reshape %llu elements into %llu", (unsigned long long)total,
                       (unsigned long long)known);
    }
    enum oc_status st = oc_set_out(c, 0, x->dtype, (int32_t)n, out);
    return st;
}

OC_RULE(oc_reshape_infer) {
    int64_t n, allowzero;
    enum oc_status st = oc_attr_int(c->node, "allowzero", 0, &allowzero, c->diag);
    if (st != OC_OK)
        return st;
    const int64_t *t = oc_in_ints(c, 1, &n);
    if (!t)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'shape' are not known");
    return oc_reshape_to(c, t, n, allowzero != 0);
}

OC_RULE(oc_reshape1_infer) {
    const int64_t *t;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "shape", &t, &n, c->diag);
    if (st != OC_OK)
        return st;
    return oc_reshape_to(c, t, n, false);
}

OC_RULE(oc_flatten_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t axis;
    enum oc_status st = oc_attr_int(c->node, "axis", 1, &axis, c->diag);
    if (st != OC_OK)
        return st;
    if (axis < 0)
        axis += x->rank;
    if (axis < 0 || axis > x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "axis out of range for rank %d", x->rank);
    struct oc_dim out[2] = {{1, NULL}, {1, NULL}};
    for (int32_t i = 0; i < x->rank; i++) {
        struct oc_dim *o = &out[i < axis ? 0 : 1];
        if (o->value < 0 || x->dims[i].value < 0)
            o->value = OC_DIM_UNKNOWN;
        else if (oc_mul_i64(o->value, x->dims[i].value, &o->value))
            return OC_FAIL(c, OC_ERR_OVERFLOW, "flattened size overflows 64 bits");
    }
    if (axis == 1 && x->rank >= 1)
        out[0].sym = x->dims[0].sym;
    return oc_set_out(c, 0, x->dtype, 2, out);
}

OC_RULE(oc_transpose_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *perm;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "perm", &perm, &n, c->diag);
    if (st != OC_OK)
        return st;
    if (n && n != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "perm has %lld entries for rank %d", (long long)n, x->rank);
    OC_NEW_DIMS(out, x->rank);
    bool seen[OC_MAX_RANK] = {false};
    for (int32_t i = 0; i < x->rank; i++) {
        int64_t p = n ? perm[i] : x->rank - 1 - i;
        if (p < 0 || p >= x->rank || seen[p])
            return OC_FAIL(c, OC_ERR_MODEL, "perm is not a permutation of 0..%d", x->rank - 1);
        seen[p] = true;
        out[i] = x->dims[p];
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_RULE(oc_concat_infer) {
    int64_t axis;
    enum oc_status st = oc_attr_int(c->node, "axis", 0, &axis, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "axis") && c->node->opset >= 4)
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'axis' is missing");
    const struct oc_value *first = NULL;
    for (int32_t i = 0; i < oc_n_in(c); i++) {
        const struct oc_value *v = oc_in(c, i);
        if (!v || v->rank < 0)
            return OC_ERR_SHAPE;
        if (!first)
            first = v;
        else if (v->rank != first->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "input %d has rank %d, input 0 rank %d", i, v->rank, first->rank);
    }
    if (!first)
        return OC_ERR_SHAPE;
    int32_t a;
    if (!oc_axis_norm(axis, first->rank, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, first->rank);
    OC_NEW_DIMS(out, first->rank);
    memcpy(out, first->dims, (size_t)first->rank * sizeof *out);
    out[a] = (struct oc_dim){0, NULL};
    for (int32_t i = 0; i < oc_n_in(c); i++) {
        const struct oc_value *v = oc_in(c, i);
        for (int32_t k = 0; k < first->rank; k++) {
            if (k == a)
                continue;
            if (out[k].value < 0)
                out[k] = v->dims[k];
            else if (v->dims[k].value >= 0 && v->dims[k].value != out[k].value)
                return OC_FAIL(c, OC_ERR_MODEL, "input %d dim %d is %lld, expected %lld", i, k,
                               (long long)v->dims[k].value, (long long)out[k].value);
        }
        if (out[a].value >= 0 && v->dims[a].value >= 0) {
            if (oc_add_i64(out[a].value, v->dims[a].value, &out[a].value))
                return OC_FAIL(c, OC_ERR_OVERFLOW, "concatenated size overflows 64 bits");
        } else {
            out[a].value = OC_DIM_UNKNOWN;
        }
    }
    return oc_set_out(c, 0, first->dtype, first->rank, out);
}

static enum oc_status oc_squeeze_apply(struct oc_op_ctx *c, const int64_t *axes, int64_t n) {
    const struct oc_value *x = oc_in(c, 0);
    OC_NEW_DIMS(out, x->rank);
    bool drop[OC_MAX_RANK] = {false};
    for (int64_t i = 0; i < n; i++) {
        int32_t a;
        if (!oc_axis_norm(axes[i], x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axes[i], x->rank);
        if (x->dims[a].value >= 0 && x->dims[a].value != 1)
            return OC_FAIL(c, OC_ERR_MODEL, "cannot squeeze axis %d of size %lld", a, (long long)x->dims[a].value);
        drop[a] = true;
    }
    if (n == 0) {
        for (int32_t i = 0; i < x->rank; i++) {
            if (x->dims[i].value < 0)
                return OC_FAIL(c, OC_ERR_SHAPE, "squeeze without axes needs every dim known");
            drop[i] = x->dims[i].value == 1;
        }
    }
    int32_t r = 0;
    for (int32_t i = 0; i < x->rank; i++)
        if (!drop[i])
            out[r++] = x->dims[i];
    enum oc_status st = oc_set_out(c, 0, x->dtype, r, out);
    return st;
}

OC_RULE(oc_squeeze_attr_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *axes;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "axes", &axes, &n, c->diag);
    return st != OC_OK ? st : oc_squeeze_apply(c, axes, n);
}

OC_RULE(oc_squeeze_input_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t n = 0;
    const int64_t *axes = NULL;
    if (oc_in(c, 1) && !(axes = oc_in_ints(c, 1, &n)))
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'axes' are not known");
    return oc_squeeze_apply(c, axes, n);
}

static enum oc_status oc_unsqueeze_apply(struct oc_op_ctx *c, const int64_t *axes, int64_t n) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t r = x->rank + n;
    OC_NEW_DIMS(out, r);
    bool ins[OC_MAX_RANK] = {false};
    for (int64_t i = 0; i < n; i++) {
        int32_t a;
        if (!oc_axis_norm(axes[i], (int32_t)r, &a) || ins[a])
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range or repeated for output rank %lld",
                           (long long)axes[i], (long long)r);
        ins[a] = true;
    }
    for (int32_t i = 0, k = 0; i < r; i++)
        out[i] = ins[i] ? (struct oc_dim){1, NULL} : x->dims[k++];
    enum oc_status st = oc_set_out(c, 0, x->dtype, (int32_t)r, out);
    return st;
}

OC_RULE(oc_unsqueeze_attr_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *axes;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "axes", &axes, &n, c->diag);
    if (st != OC_OK)
        return st;
    if (n == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'axes' is missing");
    return oc_unsqueeze_apply(c, axes, n);
}

OC_RULE(oc_unsqueeze_input_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t n;
    const int64_t *axes = oc_in_ints(c, 1, &n);
    if (!axes)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'axes' are not known");
    return oc_unsqueeze_apply(c, axes, n);
}

/* pads = [b_0..b_{k-1}, e_0..e_{k-1}] over `axes` (all axes when NULL) */
static enum oc_status oc_pad_apply(struct oc_op_ctx *c, const int64_t *pads, int64_t n, const int64_t *axes,
                                   int64_t n_axes) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t k = axes ? n_axes : x->rank;
    if (n != 2 * k)
        return OC_FAIL(c, OC_ERR_MODEL, "pads has %lld entries, expected %lld", (long long)n, (long long)(2 * k));
    OC_NEW_DIMS(out, x->rank);
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    for (int64_t i = 0; i < k; i++) {
        int32_t a = (int32_t)i;
        if (axes && !oc_axis_norm(axes[i], x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axes[i], x->rank);
        if (out[a].value < 0)
            continue;
        int64_t d;
        if (oc_add_i64(out[a].value, pads[i], &d) || oc_add_i64(d, pads[k + i], &d) || d < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "padding makes axis %d negative or overflows", a);
        out[a] = (struct oc_dim){d, NULL};
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_RULE(oc_pad_attr_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *pads;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, c->node->opset < 2 ? "paddings" : "pads", &pads, &n, c->diag);
    return st != OC_OK ? st : oc_pad_apply(c, pads, n, NULL, 0);
}

OC_RULE(oc_pad_input_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t n, n_axes = 0;
    const int64_t *pads = oc_in_ints(c, 1, &n), *axes = NULL;
    if (!pads)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'pads' are not known");
    if (oc_in(c, 3) && !(axes = oc_in_ints(c, 3, &n_axes)))
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'axes' are not known");
    return oc_pad_apply(c, pads, n, axes, n_axes);
}

OC_RULE(oc_shape_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t start, end;
    enum oc_status st;
    if ((st = oc_attr_int(c->node, "start", 0, &start, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "end", x->rank, &end, c->diag)) != OC_OK)
        return st;
    if (start < 0)
        start += x->rank;
    if (end < 0)
        end += x->rank;
    start = start < 0 ? 0 : start > x->rank ? x->rank : start;
    end = end < 0 ? 0 : end > x->rank ? x->rank : end;
    int64_t n = end > start ? end - start : 0;
    if ((st = oc_set_out_i64(c, 0, OC_DT_INT64, 1, &n)) != OC_OK)
        return st;
    int64_t vals[OC_MAX_RANK];
    for (int64_t i = 0; i < n; i++) {
        vals[i] = x->dims[start + i].value;
        if (vals[i] < 0)
            return OC_OK; /* shape known only in part: values unknown */
    }
    return oc_set_ints(c, 0, vals, n);
}

OC_RULE(oc_gather_infer) {
    const struct oc_value *x = oc_in(c, 0), *idx = oc_in(c, 1);
    if (!x || !idx || x->rank < 0 || idx->rank < 0)
        return OC_ERR_SHAPE;
    int64_t axis;
    enum oc_status st = oc_attr_int(c->node, "axis", 0, &axis, c->diag);
    if (st != OC_OK)
        return st;
    int32_t a;
    if (!oc_axis_norm(axis, x->rank, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    int32_t r = x->rank - 1 + idx->rank;
    OC_NEW_DIMS(out, r);
    int32_t k = 0;
    for (int32_t i = 0; i < a; i++)
        out[k++] = x->dims[i];
    for (int32_t i = 0; i < idx->rank; i++)
        out[k++] = idx->dims[i];
    for (int32_t i = a + 1; i < x->rank; i++)
        out[k++] = x->dims[i];
    return oc_set_out(c, 0, x->dtype, r, out);
}

/* One axis of Slice: clamps start/end and returns the output length. */
static int64_t oc_slice_len(int64_t d, int64_t *s, int64_t e, int64_t step) {
    if (*s < 0)
        *s = *s < -d ? 0 : *s + d;
    if (e < 0)
        e = e < -d ? -1 : e + d;
    if (step > 0) {
        *s = *s > d ? d : *s;
        e = e > d ? d : e < 0 ? 0 : e;
        return e > *s ? (e - *s + step - 1) / step : 0;
    }
    *s = *s > d - 1 ? d - 1 : *s;
    e = e > d - 1 ? d - 1 : e;
    return *s > e ? (*s - e + (-step) - 1) / (-step) : 0;
}

static enum oc_status oc_slice_apply(struct oc_op_ctx *c, const int64_t *starts, const int64_t *ends, int64_t n,
                                     const int64_t *axes, const int64_t *steps) {
    const struct oc_value *x = oc_in(c, 0);
    OC_NEW_DIMS(out, x->rank);
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    bool touched[OC_MAX_RANK] = {false};
    for (int64_t i = 0; i < n; i++) {
        int32_t a = (int32_t)i;
        if (axes && !oc_axis_norm(axes[i], x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axes[i], x->rank);
        if (!axes && i >= x->rank)
            return OC_FAIL(c, OC_ERR_MODEL, "more starts than input dims");
        if (touched[a])
            return OC_FAIL(c, OC_ERR_MODEL, "axis %d sliced twice", a);
        touched[a] = true;
        int64_t step = steps ? steps[i] : 1;
        if (step == 0)
            return OC_FAIL(c, OC_ERR_MODEL, "step is 0");
        int64_t s = starts[i];
        if (out[a].value < 0) {
            out[a].sym = NULL;
            continue;
        }
        out[a] = (struct oc_dim){oc_slice_len(out[a].value, &s, ends[i], step), NULL};
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_RULE(oc_slice_attr_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    const int64_t *s, *e, *ax;
    int64_t ns, ne, na;
    enum oc_status st;
    if ((st = oc_attr_ints(c->node, "starts", &s, &ns, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "ends", &e, &ne, c->diag)) != OC_OK ||
        (st = oc_attr_ints(c->node, "axes", &ax, &na, c->diag)) != OC_OK)
        return st;
    if (ns != ne || (na && na != ns))
        return OC_FAIL(c, OC_ERR_MODEL, "starts, ends and axes differ in length");
    return oc_slice_apply(c, s, e, ns, na ? ax : NULL, NULL);
}

OC_RULE(oc_slice_input_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t ns, ne, na = 0, nst = 0;
    const int64_t *s = oc_in_ints(c, 1, &ns), *e = oc_in_ints(c, 2, &ne), *ax = NULL, *steps = NULL;
    if (!s || !e) { /* the rank is kept; the sliced axes' sizes are not known */
        OC_NEW_DIMS(d, x->rank);
        memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
        const int64_t *axes = oc_in(c, 3) ? oc_in_ints(c, 3, &na) : NULL;
        for (int32_t i = 0; i < x->rank; i++) {
            bool sliced = !axes;
            for (int64_t k = 0; axes && k < na; k++)
                sliced = sliced || axes[k] == i || axes[k] + x->rank == i;
            if (sliced)
                d[i] = (struct oc_dim){OC_DIM_UNKNOWN, NULL};
        }
        enum oc_status st = oc_set_out(c, 0, x->dtype, x->rank, d);
        return st != OC_OK ? st : OC_FAIL(c, OC_ERR_SHAPE, "the values of inputs 'starts'/'ends' are not known");
    }
    if (oc_in(c, 3) && !(ax = oc_in_ints(c, 3, &na)))
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'axes' are not known");
    if (oc_in(c, 4) && !(steps = oc_in_ints(c, 4, &nst)))
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'steps' are not known");
    if (ns != ne || (ax && na != ns) || (steps && nst != ns))
        return OC_FAIL(c, OC_ERR_MODEL, "starts, ends, axes and steps differ in length");
    return oc_slice_apply(c, s, e, ns, ax, steps);
}

/* A Constant's tensor: its type and shape; the contents are read only when
 * a fold asks for them (fold.h), like an initializer's. */
static enum oc_status oc_tensor_attr_out(struct oc_op_ctx *c, int32_t dtype, int32_t rank, const int64_t *dims,
                                         const void *tensor) {
    enum oc_status st = oc_set_out_i64(c, 0, dtype, rank, dims);
    if (st == OC_OK && oc_out(c, 0))
        oc_out(c, 0)->tensor = tensor;
    return st;
}

OC_RULE(oc_constant_infer) {
    bool found;
    int32_t dt, rank;
    const int64_t *dims, *iv;
    const float *fv;
    const void *tensor;
    int64_t n, one;
    float f;
    enum oc_status st = oc_attr_tensor(c->node, "value", &found, &dt, &rank, &dims, &tensor, c->diag);
    if (st != OC_OK)
        return st;
    if (found)
        return oc_tensor_attr_out(c, dt, rank, dims, tensor);
    if (oc_attr_has(c->node, "value_int")) {
        if ((st = oc_attr_int(c->node, "value_int", 0, &one, c->diag)) != OC_OK ||
            (st = oc_set_out_i64(c, 0, OC_DT_INT64, 0, NULL)) != OC_OK)
            return st;
        return oc_set_ints(c, 0, &one, 1);
    }
    if (oc_attr_has(c->node, "value_ints")) {
        if ((st = oc_attr_ints(c->node, "value_ints", &iv, &n, c->diag)) != OC_OK ||
            (st = oc_set_out_i64(c, 0, OC_DT_INT64, 1, &n)) != OC_OK)
            return st;
        return oc_set_ints(c, 0, iv, n);
    }
    if (oc_attr_has(c->node, "value_float")) {
        if ((st = oc_attr_float(c->node, "value_float", 0, &f, c->diag)) != OC_OK)
            return st;
        return oc_set_out_i64(c, 0, OC_DT_FLOAT, 0, NULL);
    }
    if (oc_attr_has(c->node, "value_floats")) {
        if ((st = oc_attr_floats(c->node, "value_floats", &fv, &n, c->diag)) != OC_OK)
            return st;
        return oc_set_out_i64(c, 0, OC_DT_FLOAT, 1, &n);
    }
    if (oc_attr_has(c->node, "value_string")) {
        return oc_set_out_i64(c, 0, OC_DT_STRING, 0, NULL);
    }
    if (oc_attr_has(c->node, "value_strings")) { /* a 1-D string tensor, one element per entry */
        char none[1];
        if ((st = oc_attr_strings_at(c->node, "value_strings", -1, none, sizeof none, &n, c->diag)) != OC_OK)
            return st;
        return oc_set_out_i64(c, 0, OC_DT_STRING, 1, &n);
    }
    if (oc_attr_has(c->node, "sparse_value"))
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "Constant with a sparse value");
    return OC_FAIL(c, OC_ERR_MODEL, "Constant has no value attribute");
}

OC_RULE(oc_constant_of_shape_infer) {
    int64_t n;
    const int64_t *shape = oc_in_ints(c, 0, &n);
    if (!shape)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'input' (the shape) are not known");
    for (int64_t i = 0; i < n; i++)
        if (shape[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative dim %lld in the requested shape", (long long)shape[i]);
    bool found;
    int32_t dt = OC_DT_FLOAT, rank;
    const int64_t *dims;
    const void *tensor;
    enum oc_status st = oc_attr_tensor(c->node, "value", &found, &dt, &rank, &dims, &tensor, c->diag);
    if (st != OC_OK)
        return st;
    if (!found)
        dt = OC_DT_FLOAT;
    if (n > OC_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %lld over the limit", (long long)n);
    return oc_set_out_i64(c, 0, dt, (int32_t)n, shape);
}

OC_RULE(oc_expand_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    int64_t n;
    const int64_t *shape = oc_in_ints(c, 1, &n);
    if (!shape)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'shape' are not known");
    if (n > OC_MAX_RANK)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %lld over the limit", (long long)n);
    OC_NEW_DIMS(sd, n);
    for (int64_t i = 0; i < n; i++)
        sd[i].value = shape[i];
    int32_t r = x->rank > n ? x->rank : (int32_t)n;
    OC_NEW_DIMS(out, r);
    if (oc_broadcast(x->dims, x->rank, sd, (int32_t)n, out, &r) != OC_OK)
        return OC_FAIL(c, OC_ERR_MODEL, "input cannot be expanded to the requested shape");
    return oc_set_out(c, 0, x->dtype, r, out);
}

/* Range: n = max(ceil((limit - start) / delta), 0). Integer operands give
 * exact values; known float operands (constants, or integers cast to float)
 * give the length by the same formula in double precision. */
OC_RULE(oc_range_infer) {
    int64_t n0, n1, n2;
    const int64_t *s = oc_in_ints(c, 0, &n0), *l = oc_in_ints(c, 1, &n1), *d = oc_in_ints(c, 2, &n2);
    const struct oc_value *x = oc_in(c, 0);
    if (!x)
        return OC_ERR_SHAPE;
    if (!oc_dtype_is_int(x->dtype) || !s || !l || !d) {
        const double *fs = oc_in_floats(c, 0, &n0), *fl = oc_in_floats(c, 1, &n1), *fd = oc_in_floats(c, 2, &n2);
        int64_t unknown = OC_DIM_UNKNOWN;
        if (!fs || !fl || !fd || n0 != 1 || n1 != 1 || n2 != 1) {
            enum oc_status st = oc_set_out_i64(c, 0, x->dtype, 1, &unknown);
            if (st != OC_OK)
                return st;
            return OC_FAIL(c, OC_ERR_SHAPE, "start, limit and delta are not all known");
        }
        if (fd[0] == 0)
            return OC_FAIL(c, OC_ERR_MODEL, "delta is 0");
        double len = ceil((fl[0] - fs[0]) / fd[0]);
        if (!(len < 9.0e15))
            return OC_FAIL(c, OC_ERR_OVERFLOW, "range length overflows");
        int64_t nf = len > 0 ? (int64_t)len : 0;
        return oc_set_out_i64(c, 0, x->dtype, 1, &nf);
    }
    if (n0 != 1 || n1 != 1 || n2 != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "start, limit and delta must be scalars");
    if (d[0] == 0)
        return OC_FAIL(c, OC_ERR_MODEL, "delta is 0");
    int64_t span;
    if (__builtin_sub_overflow(l[0], s[0], &span))
        return OC_FAIL(c, OC_ERR_OVERFLOW, "range length overflows 64 bits");
    int64_t n = span / d[0] + ((span % d[0]) != 0 && ((span > 0) == (d[0] > 0)) ? 1 : 0);
    if (n < 0)
        n = 0;
    return oc_set_out_i64(c, 0, x->dtype, 1, &n);
}

/* ---- value propagation (fold.h) --------------------------------------------------
 * Each fold maps every output element to the input element it copies, so
 * integer and float contents move alike. */

/* Identity, Reshape, Flatten, Squeeze, Unsqueeze: the same elements in the
 * same order; Cast and CastLike too, each converted to the output type as
 * oc_fold_copy converts (floats rounded to the type, truncated toward zero
 * to an integer type; a value the type cannot hold leaves it unknown). */
OC_FOLD(oc_same_order_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    if (!oc_fold_in(c, 0, &x) || !oc_fold_out(c, 0, &o) || o.n != x.n)
        return OC_OK;
    for (int64_t i = 0; i < o.n; i++)
        if (!oc_fold_copy(&o, i, &x, i))
            return OC_OK;
    oc_fold_commit(&o);
    return OC_OK;
}

/* Scratch of `rank` int64 per use (coordinates, strides). */
#define OC_FOLD_SCRATCH(var, rank)                                                                  \
    int64_t *var = oc_arena_array(c->arena, (size_t)(rank) + 1, sizeof *var);                       \
    if (!var)                                                                                       \
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");

OC_FOLD(oc_transpose_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    const int64_t *perm;
    int64_t np;
    struct oc_diag d = {0};
    struct oc_value *y = oc_out(c, 0);
    if (!oc_fold_in(c, 0, &x) || oc_attr_ints(c->node, "perm", &perm, &np, &d) != OC_OK ||
        (np && np != x.rank) || !oc_fold_out(c, 0, &o))
        return OC_OK;
    OC_FOLD_SCRATCH(xs, x.rank);
    OC_FOLD_SCRATCH(co, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    for (int64_t f = 0; f < o.n; f++) {
        oc_fold_coords(f, y->dims, y->rank, co);
        int64_t src = 0;
        for (int32_t k = 0; k < x.rank; k++)
            src += co[k] * xs[np ? perm[k] : x.rank - 1 - k];
        if (!oc_fold_copy(&o, f, &x, src))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* Concat: for each block of the axes before `axis`, each input's run. */
OC_FOLD(oc_concat_fold) {
    struct oc_fold_out o;
    int64_t axis;
    int32_t a;
    struct oc_diag d = {0};
    struct oc_value *y = oc_out(c, 0);
    if (oc_attr_int(c->node, "axis", 0, &axis, &d) != OC_OK || !oc_axis_norm(axis, y->rank, &a))
        return OC_OK;
    int32_t n_in = oc_n_in(c);
    struct oc_known *k = oc_arena_array(c->arena, (size_t)n_in + 1, sizeof *k);
    if (!k)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < n_in; i++)
        if (!oc_fold_in(c, i, &k[i]) || k[i].rank != y->rank)
            return OC_OK;
    if (!oc_fold_out(c, 0, &o))
        return OC_OK;
    int64_t outer = 1;
    for (int32_t j = 0; j < a; j++)
        outer *= y->dims[j].value;
    int64_t at = 0;
    for (int64_t b = 0; b < outer; b++)
        for (int32_t i = 0; i < n_in; i++) {
            int64_t run = outer ? k[i].n / outer : 0;
            for (int64_t e = 0; e < run; e++, at++)
                if (at >= o.n || !oc_fold_copy(&o, at, &k[i], b * run + e))
                    return OC_OK;
        }
    if (at == o.n)
        oc_fold_commit(&o);
    return OC_OK;
}

/* Slice's starts, ends, axes (NULL: 0, 1, ...) and steps (NULL: all 1), from
 * attributes (Slice-1) or inputs (Slice-10); false when not known. */
static bool oc_slice_args(struct oc_op_ctx *c, const int64_t **s, const int64_t **e, int64_t *n, const int64_t **ax,
                          const int64_t **steps) {
    int64_t ne, na = 0, nst = 0;
    struct oc_diag d = {0};
    *ax = *steps = NULL;
    if (c->node->opset < 10 && strcmp(c->node->op_type, "Slice") == 0) { /* DynamicSlice: inputs */
        if (oc_attr_ints(c->node, "starts", s, n, &d) != OC_OK || oc_attr_ints(c->node, "ends", e, &ne, &d) != OC_OK ||
            oc_attr_ints(c->node, "axes", ax, &na, &d) != OC_OK)
            return false;
        if (!na)
            *ax = NULL;
    } else {
        if (!(*s = oc_in_ints(c, 1, n)) || !(*e = oc_in_ints(c, 2, &ne)) ||
            (oc_in(c, 3) && !(*ax = oc_in_ints(c, 3, &na))) || (oc_in(c, 4) && !(*steps = oc_in_ints(c, 4, &nst))))
            return false;
    }
    return ne == *n && (!*ax || na == *n) && (!*steps || nst == *n);
}

/* Slice, any rank and any steps (negative ones walk backwards). */
OC_FOLD(oc_slice_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    const int64_t *s, *e, *ax, *steps;
    int64_t n;
    struct oc_value *y = oc_out(c, 0);
    if (!oc_fold_in(c, 0, &x) || !oc_slice_args(c, &s, &e, &n, &ax, &steps))
        return OC_OK;
    OC_FOLD_SCRATCH(start, x.rank);
    OC_FOLD_SCRATCH(step, x.rank);
    OC_FOLD_SCRATCH(xs, x.rank);
    OC_FOLD_SCRATCH(co, x.rank);
    for (int32_t k = 0; k < x.rank; k++)
        start[k] = 0, step[k] = 1;
    for (int64_t i = 0; i < n; i++) {
        int32_t a = (int32_t)i;
        if ((ax && !oc_axis_norm(ax[i], x.rank, &a)) || a >= x.rank)
            return OC_OK;
        int64_t st = steps ? steps[i] : 1, b = s[i];
        if (st == 0)
            return OC_OK;
        if (oc_slice_len(x.dims[a].value, &b, e[i], st) != y->dims[a].value)
            return OC_OK;
        start[a] = b;
        step[a] = st;
    }
    if (!oc_fold_out(c, 0, &o))
        return OC_OK;
    oc_fold_strides(x.dims, x.rank, xs);
    for (int64_t f = 0; f < o.n; f++) {
        oc_fold_coords(f, y->dims, y->rank, co);
        int64_t src = 0;
        for (int32_t k = 0; k < x.rank; k++)
            src += (start[k] + co[k] * step[k]) * xs[k];
        if (src < 0 || src >= x.n || !oc_fold_copy(&o, f, &x, src))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* Gather: output [outer, indices, inner] from input [outer, axis, inner]. */
OC_FOLD(oc_gather_fold) {
    struct oc_known x, idx;
    struct oc_fold_out o;
    int64_t axis;
    int32_t a;
    struct oc_diag d = {0};
    if (!oc_fold_in(c, 0, &x) || !oc_fold_in(c, 1, &idx) || !idx.i ||
        oc_attr_int(c->node, "axis", 0, &axis, &d) != OC_OK || !oc_axis_norm(axis, x.rank, &a) ||
        !oc_fold_out(c, 0, &o))
        return OC_OK;
    int64_t outer = 1, inner = 1, dim = x.dims[a].value;
    for (int32_t i = 0; i < a; i++)
        outer *= x.dims[i].value;
    for (int32_t i = a + 1; i < x.rank; i++)
        inner *= x.dims[i].value;
    int64_t at = 0;
    for (int64_t b = 0; b < outer; b++)
        for (int64_t j = 0; j < idx.n; j++) {
            int64_t ix = idx.i[j] < 0 ? idx.i[j] + dim : idx.i[j];
            if (ix < 0 || ix >= dim)
                return OC_OK; /* out of range: ONNX Runtime fails at run time */
            for (int64_t e = 0; e < inner; e++, at++)
                if (at >= o.n || !oc_fold_copy(&o, at, &x, (b * dim + ix) * inner + e))
                    return OC_OK;
        }
    if (at == o.n)
        oc_fold_commit(&o);
    return OC_OK;
}

/* Constant: value_float(s) here; value_int(s) are set by the rule and a
 * tensor value is read on demand. */
OC_FOLD(oc_constant_fold) {
    struct oc_fold_out o;
    struct oc_diag d = {0};
    float f;
    if (oc_attr_has(c->node, "value_float")) {
        if (oc_attr_float(c->node, "value_float", 0, &f, &d) == OC_OK && oc_fold_out(c, 0, &o) && o.n == 1 &&
            oc_fold_put_f(&o, 0, f))
            oc_fold_commit(&o);
    } else {
        oc_fold_attr_floats(c, 0, "value_floats");
    }
    return OC_OK;
}

/* ConstantOfShape: every element the one element of `value` (float 0 when
 * absent). */
OC_FOLD(oc_constant_of_shape_fold) {
    struct oc_fold_out o;
    struct oc_diag d = {0};
    bool found;
    int32_t dt, rank;
    const int64_t *dims;
    const void *tensor;
    if (oc_attr_tensor(c->node, "value", &found, &dt, &rank, &dims, &tensor, &d) != OC_OK || !oc_fold_out(c, 0, &o))
        return OC_OK;
    int64_t iv = 0;
    double fv = 0;
    bool is_int = found && oc_dtype_is_int(dt);
    if (found && (is_int ? oc_model_tensor_ints(c->g->model, tensor, 1, &iv)
                         : oc_model_tensor_floats(c->g->model, tensor, 1, &fv)) != OC_OK)
        return OC_OK;
    for (int64_t i = 0; i < o.n; i++)
        if (!(is_int ? oc_fold_put_i(&o, i, iv) : oc_fold_put_f(&o, i, fv)))
            return OC_OK;
    oc_fold_commit(&o);
    return OC_OK;
}

/* Expand: input 0 broadcast to the output. */
OC_FOLD(oc_expand_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    struct oc_value *y = oc_out(c, 0);
    if (!oc_fold_in(c, 0, &x) || x.rank > y->rank || !oc_fold_out(c, 0, &o))
        return OC_OK;
    for (int64_t f = 0; f < o.n; f++)
        if (!oc_fold_copy(&o, f, &x, oc_fold_bcast_index(x.dims, x.rank, y->dims, y->rank, f)))
            return OC_OK;
    oc_fold_commit(&o);
    return OC_OK;
}

/* Range: out[i] = start + i * delta for integers; for floats each element
 * adds delta to the previous one in the output type, as ONNX Runtime's loop
 * does. */
OC_FOLD(oc_range_fold) {
    struct oc_known s, l, d;
    struct oc_fold_out o;
    if (!oc_fold_in(c, 0, &s) || !oc_fold_in(c, 2, &d) || !oc_fold_in(c, 1, &l) || s.n != 1 || d.n != 1 ||
        !oc_fold_out(c, 0, &o))
        return OC_OK;
    if (s.i && d.i) {
        for (int64_t i = 0; i < o.n; i++) {
            int64_t v;
            if (oc_mul_i64(i, d.i[0], &v) || oc_add_i64(v, s.i[0], &v) || !oc_fold_put_i(&o, i, v))
                return OC_OK;
        }
    } else {
        double v = oc_round_to_dtype(o.dtype, oc_known_f(&s, 0)), step = oc_known_f(&d, 0);
        for (int64_t i = 0; i < o.n; i++) {
            if (!oc_fold_put_f(&o, i, v))
                return OC_OK;
            v = oc_round_to_dtype(o.dtype, v + step);
        }
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* Where coordinate x of an axis of size d reads from in Pad's modes
 * (x outside [0, d)): edge clamps, reflect mirrors without repeating the
 * edge, wrap repeats the axis. -1 when it cannot (an empty axis). */
static int64_t oc_pad_source(int64_t x, int64_t d, char mode) {
    if (x >= 0 && x < d)
        return x;
    if (d <= 0)
        return -1;
    if (mode == 'e')
        return x < 0 ? 0 : d - 1;
    if (mode == 'w')
        return ((x % d) + d) % d;
    if (d == 1)
        return 0;
    int64_t period = 2 * (d - 1), m = ((x % period) + period) % period;
    return m < d ? m : period - m;
}

/* Pad: the input placed at its begin pads; the rest the constant value (0
 * by default), or read from the input by the edge, reflect or wrap mode. */
OC_FOLD(oc_pad_fold) {
    struct oc_known x, pk, vk;
    struct oc_fold_out o;
    struct oc_diag d = {0};
    char mode[16];
    struct oc_value *y = oc_out(c, 0);
    if (!oc_fold_in(c, 0, &x) || oc_attr_string(c->node, "mode", "constant", mode, sizeof mode, &d) != OC_OK ||
        (strcmp(mode, "constant") != 0 && strcmp(mode, "edge") != 0 && strcmp(mode, "reflect") != 0 &&
         strcmp(mode, "wrap") != 0))
        return OC_OK;
    const int64_t *pads, *axes = NULL;
    int64_t np, na = 0;
    double value = 0;
    if (c->node->opset < 11) {
        float f;
        if (oc_attr_ints(c->node, c->node->opset < 2 ? "paddings" : "pads", &pads, &np, &d) != OC_OK ||
            oc_attr_float(c->node, "value", 0, &f, &d) != OC_OK)
            return OC_OK;
        value = f;
    } else {
        if (!oc_fold_in(c, 1, &pk) || !pk.i || (oc_in(c, 3) && !(axes = oc_in_ints(c, 3, &na))))
            return OC_OK;
        pads = pk.i;
        np = pk.n;
        if (oc_in(c, 2)) {
            if (!oc_fold_in(c, 2, &vk) || vk.n != 1)
                return OC_OK;
            value = oc_known_f(&vk, 0);
        }
    }
    int64_t k = axes ? na : x.rank;
    if (np != 2 * k)
        return OC_OK;
    OC_FOLD_SCRATCH(begin, x.rank);
    OC_FOLD_SCRATCH(xs, x.rank);
    OC_FOLD_SCRATCH(co, x.rank);
    for (int32_t j = 0; j < x.rank; j++)
        begin[j] = 0;
    for (int64_t i = 0; i < k; i++) {
        int32_t a = (int32_t)i;
        if (axes && !oc_axis_norm(axes[i], x.rank, &a))
            return OC_OK;
        begin[a] = pads[i];
    }
    if (!oc_fold_out(c, 0, &o))
        return OC_OK;
    oc_fold_strides(x.dims, x.rank, xs);
    for (int64_t f = 0; f < o.n; f++) {
        oc_fold_coords(f, y->dims, y->rank, co);
        int64_t src = 0;
        bool inside = true;
        for (int32_t j = 0; j < x.rank && inside; j++) {
            int64_t cx;
            if (__builtin_sub_overflow(co[j], begin[j], &cx))
                return OC_OK; /* pads near the int64 limits: left unknown */
            if (mode[0] != 'c')
                cx = oc_pad_source(cx, x.dims[j].value, mode[0]);
            inside = cx >= 0 && cx < x.dims[j].value;
            if (inside) /* pads come from the file: only an in-range index is multiplied */
                src += cx * xs[j];
        }
        if (!inside && mode[0] != 'c')
            return OC_OK;
        if (!(inside ? oc_fold_copy(&o, f, &x, src) : oc_fold_put_f(&o, f, value)))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}
