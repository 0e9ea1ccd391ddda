/*
 * ops/index.c — ops that select, scatter or rearrange elements: Split, Tile,
 * OneHot, TopK, GatherElements, GatherND, Scatter, ScatterElements,
 * ScatterND, Compress, NonZero, Unique, NonMaxSuppression, SpaceToDepth,
 * DepthToSpace, CenterCropPad.
 *
 * Data movement costs 0 FLOPs (bytes are counted by the driver). The
 * exceptions, each stated at its cost function: TopK and Unique compare,
 * NonZero tests every element, the Scatter family with a `reduction`
 * combines every update into its target.
 *
 * Compress, NonZero, Unique and NonMaxSuppression have output sizes that
 * depend on the input data: the size is computed when the deciding values
 * are known (small integer constants) or forced (an empty or one-element
 * input), and otherwise left OC_DIM_UNKNOWN (the registry row carries
 * OC_OPF_DATA_DEPENDENT and the report says why).
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "rules.h"
#include "../shape.h"

#include <string.h>

enum { OC_IX_MAX_RANK = 1024, OC_IX_MAX_VALS = 1 << 16 };

static struct oc_dim *oc_ix_dims(struct oc_op_ctx *c, int64_t n) {
    if (n < 0 || n > OC_IX_MAX_RANK) {
        OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %lld over the limit %d", (long long)n, OC_IX_MAX_RANK);
        return NULL;
    }
    struct oc_dim *d = oc_arena_array(c->arena, (size_t)n + 1, sizeof *d);
    if (!d)
        OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    return d;
}

#define OC_IX_DIMS(var, n)                                                                         \
    struct oc_dim *var = oc_ix_dims(c, (n));                                                       \
    if (!var)                                                                                      \
        return c->diag->code;

/* Input 0 with a known rank, or return OC_ERR_SHAPE. */
#define OC_IX_INPUT(var, i)                                                                        \
    const struct oc_value *var = oc_in(c, (i));                                                    \
    if (!var || var->rank < 0)                                                                     \
        return OC_ERR_SHAPE;

static enum oc_status oc_ix_axis(struct oc_op_ctx *c, const char *name, int64_t def, int32_t rank, int32_t *axis) {
    int64_t a;
    enum oc_status st = oc_attr_int(c->node, name, def, &a, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_axis_norm(a, rank, axis))
        return OC_FAIL(c, OC_ERR_MODEL, "%s %lld out of range for rank %d", name, (long long)a, rank);
    return OC_OK;
}

/* A scalar or one-element integer input's value; false when not known. */
static bool oc_ix_scalar(struct oc_op_ctx *c, int32_t i, int64_t *v) {
    int64_t n;
    const int64_t *p = oc_in_ints(c, i, &n);
    if (!p || n != 1)
        return false;
    *v = p[0];
    return true;
}

/* ---- Split ---------------------------------------------------------------------
 * Parts along `axis` from `split` (attribute before 13, input from 13), else
 * num_outputs (18: ceil(d / n) each, the last one smaller), else equal parts
 * (d must divide by the number of outputs). Split values that are not known
 * still give 0-sized parts of an empty axis. */
static enum oc_status oc_split_apply(struct oc_op_ctx *c, const int64_t *split, int64_t n_split, bool have_split) {
    OC_IX_INPUT(x, 0);
    int32_t axis;
    enum oc_status st = oc_ix_axis(c, "axis", 0, x->rank, &axis);
    if (st != OC_OK)
        return st;
    int32_t n_out = c->node->n_out;
    int64_t d = x->dims[axis].value;
    int64_t *parts = oc_arena_array(c->arena, (size_t)n_out + 1, sizeof *parts);
    if (!parts)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    int64_t num_outputs = 0;
    if (!have_split && c->node->opset >= 18 &&
        (st = oc_attr_int(c->node, "num_outputs", 0, &num_outputs, c->diag)) != OC_OK)
        return st;
    if (have_split && !split) {
        if (d != 0)
            return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'split' are not known");
        for (int32_t i = 0; i < n_out; i++) /* parts of an empty axis are empty */
            parts[i] = 0;
    } else if (split) {
        if (n_split != n_out)
            return OC_FAIL(c, OC_ERR_MODEL, "split has %lld entries for %d outputs", (long long)n_split, n_out);
        int64_t sum = 0;
        for (int32_t i = 0; i < n_out; i++) {
            if (split[i] < 0 || oc_add_i64(sum, split[i], &sum))
                return OC_FAIL(c, OC_ERR_MODEL, "split entry %lld is negative or the sum overflows",
                               (long long)split[i]);
            parts[i] = split[i];
        }
        if (d >= 0 && sum != d)
            return OC_FAIL(c, OC_ERR_MODEL, "split sums to %lld, the axis has %lld", (long long)sum, (long long)d);
    } else if (num_outputs > 0) {
        if (num_outputs != n_out)
            return OC_FAIL(c, OC_ERR_MODEL, "num_outputs is %lld, the node has %d outputs", (long long)num_outputs,
                           n_out);
        int64_t chunk = d >= 0 ? d / n_out + (d % n_out != 0) : -1;
        for (int32_t i = 0; i < n_out; i++)
            parts[i] = chunk < 0 ? -1 : i < n_out - 1 ? chunk : d - chunk * (n_out - 1);
        if (chunk >= 0 && parts[n_out - 1] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "%lld elements cannot be split into %d parts of %lld", (long long)d,
                           n_out, (long long)chunk);
    } else {
        if (d >= 0 && d % n_out != 0)
            return OC_FAIL(c, OC_ERR_MODEL, "axis of size %lld does not split into %d equal parts", (long long)d,
                           n_out);
        for (int32_t i = 0; i < n_out; i++)
            parts[i] = d >= 0 ? d / n_out : -1;
    }
    OC_IX_DIMS(out, x->rank);
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    for (int32_t i = 0; i < n_out; i++) {
        out[axis] = (struct oc_dim){parts[i], NULL};
        if ((st = oc_set_out(c, i, x->dtype, x->rank, out)) != OC_OK)
            return st;
    }
    return OC_OK;
}

/* Split-1 (split as attribute or input 1), Split-2 and -11 (attribute). */
OC_RULE(oc_split_attr_infer) {
    const int64_t *s;
    int64_t n;
    enum oc_status st = oc_attr_ints(c->node, "split", &s, &n, c->diag);
    if (st != OC_OK)
        return st;
    if (n)
        return oc_split_apply(c, s, n, true);
    if (oc_in(c, 1)) {
        s = oc_in_ints(c, 1, &n);
        return oc_split_apply(c, s, n, true);
    }
    return oc_split_apply(c, NULL, 0, false);
}

/* Split-13 and -18: split as input 1 (18: or num_outputs). */
OC_RULE(oc_split_input_infer) {
    int64_t n = 0;
    const int64_t *s = oc_in(c, 1) ? oc_in_ints(c, 1, &n) : NULL;
    return oc_split_apply(c, s, n, oc_in(c, 1) != NULL);
}

/* ---- Tile ------------------------------------------------------------------------
 * Tile-6: out[i] = in[i] * repeats[i]. Tile-1: inputs (input, tiles, axis):
 * out[axis] = in[axis] * tiles. */
static enum oc_status oc_tile_apply(struct oc_op_ctx *c, const int64_t *rep) {
    const struct oc_value *x = oc_in(c, 0);
    OC_IX_DIMS(out, x->rank);
    for (int32_t i = 0; i < x->rank; i++) {
        if (rep[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative repeat %lld", (long long)rep[i]);
        out[i] = rep[i] == 1 ? x->dims[i] : (struct oc_dim){OC_DIM_UNKNOWN, NULL};
        if (rep[i] != 1 && x->dims[i].value >= 0 && oc_mul_i64(x->dims[i].value, rep[i], &out[i].value))
            return OC_FAIL(c, OC_ERR_OVERFLOW, "tiled size overflows 64 bits");
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

OC_RULE(oc_tile_infer) {
    OC_IX_INPUT(x, 0);
    int64_t n;
    const int64_t *rep = oc_in_ints(c, 1, &n);
    if (!rep)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'repeats' are not known");
    if (n != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "repeats has %lld entries for rank %d", (long long)n, x->rank);
    return oc_tile_apply(c, rep);
}

OC_RULE(oc_tile1_infer) {
    OC_IX_INPUT(x, 0);
    int64_t tiles, axis;
    if (!oc_ix_scalar(c, 1, &tiles) || !oc_ix_scalar(c, 2, &axis))
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of inputs 'tiles'/'axis' are not known");
    int32_t a;
    if (!oc_axis_norm(axis, x->rank, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, x->rank);
    int64_t *rep = oc_arena_array(c->arena, (size_t)x->rank + 1, sizeof *rep);
    if (!rep)
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < x->rank; i++)
        rep[i] = i == a ? tiles : 1;
    return oc_tile_apply(c, rep);
}

/* ---- OneHot (9) ------------------------------------------------------------------
 * indices [d...] -> output with a `depth`-sized axis inserted at `axis`
 * (default -1, range [-r-1, r]); element type of `values`. */
OC_RULE(oc_onehot_infer) {
    OC_IX_INPUT(idx, 0);
    const struct oc_value *vals = oc_in(c, 2);
    int64_t nd;
    const double *dv = oc_in_floats(c, 1, &nd);
    if (!dv || nd != 1)
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of input 'depth' is not known");
    if (!(dv[0] >= 0 && dv[0] < 9.2e18))
        return OC_FAIL(c, OC_ERR_MODEL, "depth %g is negative or too large", dv[0]);
    int64_t depth = (int64_t)dv[0]; /* non-integer depth is cast to int64 */
    int64_t axis;
    enum oc_status st = oc_attr_int(c->node, "axis", -1, &axis, c->diag);
    if (st != OC_OK)
        return st;
    int32_t r = idx->rank + 1, a;
    if (!oc_axis_norm(axis, r, &a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axis, r);
    OC_IX_DIMS(out, r);
    for (int32_t i = 0, k = 0; i < r; i++)
        out[i] = i == a ? (struct oc_dim){depth, NULL} : idx->dims[k++];
    return oc_set_out(c, 0, vals ? vals->dtype : OC_DT_UNDEFINED, r, out);
}

/* ---- TopK ------------------------------------------------------------------------
 * Values and int64 Indices: X's shape with dim `axis` (default -1) = k;
 * k from the attribute (TopK-1) or input K (from 10). */
static enum oc_status oc_topk_apply(struct oc_op_ctx *c, int64_t k) {
    OC_IX_INPUT(x, 0);
    int32_t axis;
    enum oc_status st = oc_ix_axis(c, "axis", -1, x->rank, &axis);
    if (st != OC_OK)
        return st;
    if (k < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "k is negative (%lld)", (long long)k);
    if (x->dims[axis].value >= 0 && k > x->dims[axis].value)
        return OC_FAIL(c, OC_ERR_MODEL, "k = %lld is larger than the axis (%lld)", (long long)k,
                       (long long)x->dims[axis].value);
    OC_IX_DIMS(out, x->rank);
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    out[axis] = (struct oc_dim){k, NULL};
    if ((st = oc_set_out(c, 0, x->dtype, x->rank, out)) != OC_OK)
        return st;
    return oc_set_out(c, 1, OC_DT_INT64, x->rank, out);
}

OC_RULE(oc_topk_attr_infer) {
    int64_t k;
    enum oc_status st = oc_attr_int(c->node, "k", -1, &k, c->diag);
    if (st != OC_OK)
        return st;
    if (!oc_attr_has(c->node, "k"))
        return OC_FAIL(c, OC_ERR_MODEL, "required attribute 'k' is missing");
    return oc_topk_apply(c, k);
}

OC_RULE(oc_topk_input_infer) {
    int64_t k;
    if (!oc_ix_scalar(c, 1, &k))
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of input 'K' is not known");
    return oc_topk_apply(c, k);
}

/* TopK: selection with a size-k heap, worst case one comparison per element
 * per heap level: FLOPs = numel(X) * max(1, ceil(log2 k)). */
OC_COST(oc_topk_cost) {
    const struct oc_value *y = oc_out(c, 0) ? oc_out(c, 0) : oc_out(c, 1);
    const struct oc_value *x = oc_in(c, 0);
    int32_t axis = x->rank - 1;
    int64_t a;
    if (oc_attr_int(c->node, "axis", -1, &a, c->diag) == OC_OK)
        oc_axis_norm(a, x->rank, &axis);
    uint64_t k = y ? (uint64_t)y->dims[axis].value : 1, levels = 0;
    while (((uint64_t)1 << levels) < k && levels < 63)
        levels++;
    oc_cost_add_flops(cost, oc_numel(x), levels ? levels : 1);
    return OC_OK;
}

/* ---- GatherElements, GatherND, Scatter* --------------------------------------------- */

/* GatherElements (11): output has the shape of `indices`, the type of `data`. */
OC_RULE(oc_gather_elements_infer) {
    OC_IX_INPUT(x, 0);
    OC_IX_INPUT(idx, 1);
    if (idx->rank != x->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "indices has rank %d, data rank %d", idx->rank, x->rank);
    int32_t axis;
    enum oc_status st = oc_ix_axis(c, "axis", 0, x->rank > 0 ? x->rank : 1, &axis);
    if (st != OC_OK)
        return st;
    return oc_set_out(c, 0, x->dtype, idx->rank, idx->dims);
}

/* GatherND (11; batch_dims from 12): data rank r, indices rank q, m =
 * indices.shape[-1], b = batch_dims: output indices.shape[:-1] ++
 * data.shape[b + m:], rank q + r - m - 1 - b. */
OC_RULE(oc_gather_nd_infer) {
    OC_IX_INPUT(x, 0);
    OC_IX_INPUT(idx, 1);
    int64_t b;
    enum oc_status st = oc_attr_int(c->node, "batch_dims", 0, &b, c->diag);
    if (st != OC_OK)
        return st;
    if (x->rank < 1 || idx->rank < 1)
        return OC_FAIL(c, OC_ERR_MODEL, "data and indices must have rank >= 1 (got %d and %d)", x->rank, idx->rank);
    if (b < 0 || b >= x->rank || b >= idx->rank)
        return OC_FAIL(c, OC_ERR_MODEL, "batch_dims %lld must be below both ranks (%d, %d)", (long long)b, x->rank,
                       idx->rank);
    int64_t m = idx->dims[idx->rank - 1].value;
    if (m < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the last dim of 'indices' (the index depth) is not known");
    if (m < 1 || m > x->rank - b)
        return OC_FAIL(c, OC_ERR_MODEL, "index depth %lld out of range 1..%lld", (long long)m,
                       (long long)(x->rank - b));
    for (int64_t i = 0; i < b; i++)
        if (x->dims[i].value >= 0 && idx->dims[i].value >= 0 && x->dims[i].value != idx->dims[i].value)
            return OC_FAIL(c, OC_ERR_MODEL, "batch dim %lld differs: data %lld, indices %lld", (long long)i,
                           (long long)x->dims[i].value, (long long)idx->dims[i].value);
    int32_t r = (int32_t)(idx->rank - 1 + x->rank - b - m);
    OC_IX_DIMS(out, r);
    int32_t k = 0;
    for (int32_t i = 0; i < idx->rank - 1; i++)
        out[k++] = idx->dims[i];
    for (int64_t i = b + m; i < x->rank; i++)
        out[k++] = x->dims[i];
    return oc_set_out(c, 0, x->dtype, r, out);
}

/* Scatter (9), ScatterElements (11), ScatterND (11): output = data. */
OC_RULE(oc_scatter_infer) {
    OC_IX_INPUT(x, 0);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* Scatter family: reduction "none" (default) copies: 0 FLOPs; "add", "mul",
 * "max", "min" (ScatterND / ScatterElements 16+) combine each update with
 * its target: FLOPs = numel(updates). */
OC_COST(oc_scatter_cost) {
    char red[16];
    enum oc_status st = oc_attr_string(c->node, "reduction", "none", red, sizeof red, c->diag);
    if (st != OC_OK)
        return st;
    if (strcmp(red, "none") != 0)
        oc_cost_add_flops(cost, oc_numel(oc_in(c, 2)), 1);
    return OC_OK;
}

/* ---- data-dependent sizes ---------------------------------------------------------- */

/* Compress (9): the slices of `input` along `axis` (flattened input when no
 * axis) whose `condition` entry is true; a condition shorter than the axis
 * drops the rest. Size known only from a known condition. */
OC_RULE(oc_compress_infer) {
    OC_IX_INPUT(x, 0);
    OC_IX_INPUT(cond, 1);
    if (cond->rank != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "condition has rank %d, expected 1", cond->rank);
    bool has_axis = oc_attr_has(c->node, "axis");
    int32_t axis = 0;
    enum oc_status st;
    if (has_axis && (st = oc_ix_axis(c, "axis", 0, x->rank, &axis)) != OC_OK)
        return st;
    int64_t len = OC_DIM_UNKNOWN; /* the selected axis' length */
    uint64_t total;
    if (has_axis)
        len = x->dims[axis].value;
    else if (oc_value_numel(x, &total))
        len = (int64_t)total;
    int64_t nc, sel = OC_DIM_UNKNOWN;
    const int64_t *cv = oc_in_ints(c, 1, &nc);
    if (cv && len >= 0) {
        if (nc > len && len >= 0)
            return OC_FAIL(c, OC_ERR_MODEL, "condition has %lld entries, the axis %lld", (long long)nc,
                           (long long)len);
        sel = 0;
        for (int64_t i = 0; i < nc; i++)
            sel += cv[i] != 0;
    } else if (len == 0) {
        sel = 0;
    }
    if (!has_axis)
        return oc_set_out_i64(c, 0, x->dtype, 1, &sel);
    OC_IX_DIMS(out, x->rank);
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    out[axis] = (struct oc_dim){sel, NULL};
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* NonZero (9): int64 [rank(X), number of non-zero elements]. */
OC_RULE(oc_nonzero_infer) {
    OC_IX_INPUT(x, 0);
    int64_t nz = OC_DIM_UNKNOWN;
    struct oc_known k;
    if (oc_fold_in(c, 0, &k)) {
        nz = 0;
        for (int64_t i = 0; i < k.n; i++)
            nz += oc_known_f(&k, i) != 0;
    }
    int64_t dims[2] = {x->rank, nz};
    return oc_set_out_i64(c, 0, OC_DT_INT64, 2, dims);
}

/* NonZero: one comparison with zero per element: FLOPs = numel(X). */
OC_COST(oc_nonzero_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_in(c, 0)), 1);
    return OC_OK;
}

/* Slices j of X seen as [outer, n, inner], integer (v) or float (fv) data. */
struct oc_slices {
    const int64_t *v;
    const double *fv;
    int64_t n, outer, inner;
};

/* Total order on slices (lexicographic; float data holds no NaN: Unique
 * leaves a count over NaNs unknown, oc_unique_infer). */
static int oc_slice_cmp(const struct oc_slices *s, int64_t a, int64_t b) {
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            int64_t ka = (o * s->n + a) * s->inner + i, kb = (o * s->n + b) * s->inner + i;
            if (s->v) {
                if (s->v[ka] != s->v[kb])
                    return s->v[ka] < s->v[kb] ? -1 : 1;
            } else if (s->fv[ka] != s->fv[kb]) {
                return s->fv[ka] < s->fv[kb] ? -1 : 1;
            }
        }
    return 0;
}

/* Whether float data holds a NaN. */
static bool oc_floats_have_nan(const double *fv, int64_t n) {
    for (int64_t i = 0; fv && i < n; i++)
        if (fv[i] != fv[i])
            return true;
    return false;
}

/* Heap sort of slice indices (no recursion, O(n log n) comparisons). */
static void oc_slices_sift(const struct oc_slices *s, int64_t *a, int64_t i, int64_t n) {
    for (;;) {
        int64_t l = 2 * i + 1, m = i;
        if (l < n && oc_slice_cmp(s, a[l], a[m]) > 0)
            m = l;
        if (l + 1 < n && oc_slice_cmp(s, a[l + 1], a[m]) > 0)
            m = l + 1;
        if (m == i)
            return;
        int64_t t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
}

static void oc_slices_sort(const struct oc_slices *s, int64_t *a, int64_t n) {
    for (int64_t i = n / 2 - 1; i >= 0; i--)
        oc_slices_sift(s, a, i, n);
    for (int64_t k = n - 1; k > 0; k--) {
        int64_t t = a[0];
        a[0] = a[k];
        a[k] = t;
        oc_slices_sift(s, a, 0, k);
    }
}

/* Unique (11): U unique elements (no axis; X flattened) or unique slices
 * along `axis`. Y [U] or X's shape with dim axis = U; indices and counts [U],
 * int64; inverse_indices [numel(X)] or [X.dims[axis]], int64 (never data
 * dependent). U is known when at most one element/slice is compared, or from
 * X's known integer values. */
OC_RULE(oc_unique_infer) {
    OC_IX_INPUT(x, 0);
    bool has_axis = oc_attr_has(c->node, "axis");
    int32_t axis = 0;
    enum oc_status st;
    if (has_axis && (st = oc_ix_axis(c, "axis", 0, x->rank, &axis)) != OC_OK)
        return st;
    uint64_t total;
    int64_t n = OC_DIM_UNKNOWN, u = OC_DIM_UNKNOWN; /* slices compared, unique ones */
    if (has_axis)
        n = x->dims[axis].value;
    else if (oc_value_numel(x, &total))
        n = (int64_t)total;
    int64_t nv;
    const int64_t *v = oc_in_ints(c, 0, &nv);
    const double *fv = v ? NULL : oc_in_floats(c, 0, &nv); /* constant float data */
    /* a NaN is unique to none of the runtimes alike (ONNX Runtime 1.31 merges
       NaNs with numbers, numpy's reference merges them together, PyTorch
       keeps each): the count over data with one stays unknown */
    if (n >= 0 && n <= 1) {
        u = n;
    } else if ((v || fv) && nv > 0 && n > 0 && oc_value_numel(x, &total) && (int64_t)total == nv &&
               nv <= OC_IX_MAX_VALS && !oc_floats_have_nan(fv, nv)) {
        /* view X as [outer, n, inner]; count slices j unequal to every earlier one */
        int64_t inner = 1, outer = 1;
        if (has_axis) {
            for (int32_t i = axis + 1; i < x->rank; i++)
                inner *= x->dims[i].value;
            outer = nv / (n * inner);
        }
        /* sort the slice indices, then count the distinct neighbours:
         * O(n log n) slice comparisons (pairwise, 2^16 distinct values once
         * cost 2^31 comparisons per node) */
        int64_t *idx = oc_arena_array(c->arena, (size_t)n, sizeof *idx);
        if (!idx)
            return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");
        for (int64_t j = 0; j < n; j++)
            idx[j] = j;
        struct oc_slices sl = {v, fv, n, outer, inner};
        oc_slices_sort(&sl, idx, n);
        u = n > 0;
        for (int64_t j = 1; j < n; j++)
            u += oc_slice_cmp(&sl, idx[j - 1], idx[j]) != 0;
    }
    if (has_axis) {
        OC_IX_DIMS(out, x->rank);
        memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
        out[axis] = (struct oc_dim){u, NULL};
        st = oc_set_out(c, 0, x->dtype, x->rank, out);
    } else {
        st = oc_set_out_i64(c, 0, x->dtype, 1, &u);
    }
    if (st != OC_OK || (st = oc_set_out_i64(c, 1, OC_DT_INT64, 1, &u)) != OC_OK ||
        (st = oc_set_out_i64(c, 2, OC_DT_INT64, 1, &n)) != OC_OK)
        return st;
    return oc_set_out_i64(c, 3, OC_DT_INT64, 1, &u);
}

/* Unique: a sort of the n compared elements or slices, each comparison
 * reading a whole slice: FLOPs = numel(X) * ceil(log2 n) (0 for n <= 1). */
OC_COST(oc_unique_cost) {
    const struct oc_value *x = oc_in(c, 0);
    uint64_t n = oc_numel(x);
    int64_t a;
    int32_t axis;
    if (oc_attr_has(c->node, "axis") && oc_attr_int(c->node, "axis", 0, &a, c->diag) == OC_OK &&
        oc_axis_norm(a, x->rank, &axis))
        n = (uint64_t)x->dims[axis].value;
    uint64_t levels = 0;
    while (((uint64_t)1 << levels) < n && levels < 63)
        levels++;
    oc_cost_add_flops(cost, oc_numel(x), levels);
    return OC_OK;
}

/* NonMaxSuppression (10): selected_indices int64 [?, 3] (batch, class, box).
 * The count is data dependent; it is 0 when max_output_boxes_per_class is
 * absent or 0 (the spec's "no output") or there are no boxes. */
OC_RULE(oc_nms_infer) {
    OC_IX_INPUT(boxes, 0);
    OC_IX_INPUT(scores, 1);
    if (boxes->rank != 3 || scores->rank != 3)
        return OC_FAIL(c, OC_ERR_MODEL, "boxes and scores must have rank 3 (got %d and %d)", boxes->rank,
                       scores->rank);
    int64_t max_out = -1, sel = OC_DIM_UNKNOWN;
    if (!oc_in(c, 2))
        max_out = 0;
    else if (!oc_ix_scalar(c, 2, &max_out))
        max_out = -1;
    uint64_t nb;
    if (max_out == 0 || (oc_value_numel(scores, &nb) && nb == 0))
        sel = 0;
    int64_t dims[2] = {sel, 3};
    return oc_set_out_i64(c, 0, OC_DT_INT64, 2, dims);
}

/* NonMaxSuppression: reached only when nothing is selected (the count is
 * otherwise unknown and so is the IoU work): 0 FLOPs. */
OC_COST(oc_nms_cost) {
    (void)c;
    (void)cost;
    return OC_OK;
}

/* ---- SpaceToDepth, DepthToSpace, CenterCropPad -------------------------------------- */

static enum oc_status oc_blocks(struct oc_op_ctx *c, bool to_depth) {
    OC_IX_INPUT(x, 0);
    if (x->rank != 4)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected 4 (N, C, H, W)", x->rank);
    int64_t b;
    enum oc_status st = oc_attr_int(c->node, "blocksize", 0, &b, c->diag);
    if (st != OC_OK)
        return st;
    if (b <= 0 || b > (1 << 20))
        return OC_FAIL(c, OC_ERR_MODEL, "blocksize %lld is missing or out of range", (long long)b);
    struct oc_dim out[4] = {x->dims[0], {OC_DIM_UNKNOWN, NULL}, {OC_DIM_UNKNOWN, NULL}, {OC_DIM_UNKNOWN, NULL}};
    int64_t C = x->dims[1].value;
    if (to_depth) { /* [N, C * b * b, H / b, W / b] */
        if (C >= 0 && oc_mul_i64(C, b * b, &out[1].value))
            return OC_FAIL(c, OC_ERR_OVERFLOW, "channels overflow 64 bits");
        for (int i = 2; i < 4; i++) {
            int64_t d = x->dims[i].value;
            if (d >= 0 && d % b != 0)
                return OC_FAIL(c, OC_ERR_MODEL, "dim %d (%lld) is not a multiple of blocksize %lld", i,
                               (long long)d, (long long)b);
            out[i].value = d >= 0 ? d / b : OC_DIM_UNKNOWN;
        }
    } else { /* [N, C / (b * b), H * b, W * b] */
        if (C >= 0 && C % (b * b) != 0)
            return OC_FAIL(c, OC_ERR_MODEL, "%lld channels are not a multiple of blocksize^2 = %lld", (long long)C,
                           (long long)(b * b));
        out[1].value = C >= 0 ? C / (b * b) : OC_DIM_UNKNOWN;
        for (int i = 2; i < 4; i++)
            if (x->dims[i].value >= 0 && oc_mul_i64(x->dims[i].value, b, &out[i].value))
                return OC_FAIL(c, OC_ERR_OVERFLOW, "spatial size overflows 64 bits");
    }
    return oc_set_out(c, 0, x->dtype, 4, out);
}

OC_RULE(oc_space_to_depth_infer) {
    return oc_blocks(c, true);
}

OC_RULE(oc_depth_to_space_infer) {
    return oc_blocks(c, false);
}

/* CenterCropPad (18): dims `axes` (default all) take the values of `shape`. */
OC_RULE(oc_center_crop_pad_infer) {
    OC_IX_INPUT(x, 0);
    int64_t n, na;
    const int64_t *shape = oc_in_ints(c, 1, &n), *axes;
    if (!shape)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of input 'shape' are not known");
    enum oc_status st = oc_attr_ints(c->node, "axes", &axes, &na, c->diag);
    if (st != OC_OK)
        return st;
    if (n != (na ? na : x->rank))
        return OC_FAIL(c, OC_ERR_MODEL, "shape has %lld entries, expected %lld", (long long)n,
                       (long long)(na ? na : x->rank));
    OC_IX_DIMS(out, x->rank);
    memcpy(out, x->dims, (size_t)x->rank * sizeof *out);
    for (int64_t i = 0; i < n; i++) {
        int32_t a = (int32_t)i;
        if (na && !oc_axis_norm(axes[i], x->rank, &a))
            return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)axes[i], x->rank);
        if (shape[i] < 0)
            return OC_FAIL(c, OC_ERR_MODEL, "negative target size %lld", (long long)shape[i]);
        out[a] = (struct oc_dim){shape[i], NULL};
    }
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* ---- value propagation (fold.h) -------------------------------------------------- */

#define OC_IX_SCRATCH(var, rank)                                                                    \
    int64_t *var = oc_arena_array(c->arena, (size_t)(rank) + 1, sizeof *var);                       \
    if (!var)                                                                                       \
        return OC_FAIL(c, OC_ERR_NOMEM, "out of memory");

/* Split: output i is the run of the axis after outputs 0..i-1. */
OC_FOLD(oc_split_fold) {
    struct oc_known x;
    int32_t axis;
    struct oc_diag d = {0};
    int64_t a;
    if (!oc_fold_in(c, 0, &x) || oc_attr_int(c->node, "axis", 0, &a, &d) != OC_OK || !oc_axis_norm(a, x.rank, &axis))
        return OC_OK;
    OC_IX_SCRATCH(xs, x.rank);
    OC_IX_SCRATCH(co, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    int64_t offset = 0;
    for (int32_t i = 0; i < c->node->n_out; i++) {
        struct oc_value *y = oc_out(c, i);
        struct oc_fold_out o;
        if (!y)
            continue;
        int64_t part = y->dims[axis].value;
        if (oc_fold_out(c, i, &o)) {
            bool ok = true;
            for (int64_t f = 0; f < o.n && ok; f++) {
                oc_fold_coords(f, y->dims, y->rank, co);
                co[axis] += offset;
                int64_t src = 0;
                for (int32_t k = 0; k < x.rank; k++)
                    src += co[k] * xs[k];
                ok = src < x.n && oc_fold_copy(&o, f, &x, src);
            }
            if (ok)
                oc_fold_commit(&o);
        }
        offset += part;
    }
    return OC_OK;
}

/* Tile: each output coordinate modulo the input's dim. */
OC_FOLD(oc_tile_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    struct oc_value *y = oc_out(c, 0);
    if (!oc_fold_in(c, 0, &x) || x.rank != y->rank || !oc_fold_out(c, 0, &o))
        return OC_OK;
    OC_IX_SCRATCH(xs, x.rank);
    OC_IX_SCRATCH(co, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    for (int64_t f = 0; f < o.n; f++) {
        oc_fold_coords(f, y->dims, y->rank, co);
        int64_t src = 0;
        for (int32_t k = 0; k < x.rank; k++)
            src += (x.dims[k].value ? co[k] % x.dims[k].value : 0) * xs[k];
        if (!oc_fold_copy(&o, f, &x, src))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* Flat index into x (strides xs) of element f of `idx` (same rank) with its
 * `axis` coordinate replaced by idx's value there (negative counts from the
 * end; co: rank scratch). False when out of range. */
static bool oc_ix_element_at(const struct oc_known *x, const int64_t *xs, const struct oc_known *idx, int64_t f,
                             int32_t axis, int64_t *co, int64_t *at) {
    int64_t dim = x->dims[axis].value, ix = idx->i[f] < 0 ? idx->i[f] + dim : idx->i[f];
    if (ix < 0 || ix >= dim)
        return false;
    oc_fold_coords(f, idx->dims, idx->rank, co);
    co[axis] = ix;
    *at = 0;
    for (int32_t k = 0; k < x->rank; k++) {
        if (co[k] >= x->dims[k].value)
            return false;
        *at += co[k] * xs[k];
    }
    return true;
}

/* Flat offset in x (strides xs) of the m-tuple of indices tup over the axes
 * from `first` (negative counts from the end). False when out of range. */
static bool oc_ix_tuple_at(const struct oc_known *x, const int64_t *xs, const int64_t *tup, int64_t m, int64_t first,
                           int64_t *at) {
    *at = 0;
    for (int64_t j = 0; j < m; j++) {
        int64_t dim = x->dims[first + j].value, ix = tup[j] < 0 ? tup[j] + dim : tup[j];
        if (ix < 0 || ix >= dim)
            return false;
        *at += ix * xs[first + j];
    }
    return true;
}

/* GatherElements: out[c] = data[c with c[axis] = indices[c]]. */
OC_FOLD(oc_gather_elements_fold) {
    struct oc_known x, idx;
    struct oc_fold_out o;
    struct oc_diag d = {0};
    int64_t a;
    int32_t axis;
    if (!oc_fold_in(c, 0, &x) || !oc_fold_in(c, 1, &idx) || !idx.i || idx.rank != x.rank ||
        oc_attr_int(c->node, "axis", 0, &a, &d) != OC_OK || !oc_axis_norm(a, x.rank, &axis) ||
        !oc_fold_out(c, 0, &o))
        return OC_OK;
    OC_IX_SCRATCH(xs, x.rank);
    OC_IX_SCRATCH(co, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    for (int64_t f = 0; f < o.n; f++) {
        int64_t src;
        if (!oc_ix_element_at(&x, xs, &idx, f, axis, co, &src) || !oc_fold_copy(&o, f, &x, src))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* GatherND: each index tuple (after batch_dims b) selects a slice of data. */
OC_FOLD(oc_gather_nd_fold) {
    struct oc_known x, idx;
    struct oc_fold_out o;
    struct oc_diag d = {0};
    int64_t b;
    if (!oc_fold_in(c, 0, &x) || !oc_fold_in(c, 1, &idx) || !idx.i ||
        oc_attr_int(c->node, "batch_dims", 0, &b, &d) != OC_OK || !oc_fold_out(c, 0, &o))
        return OC_OK;
    int64_t m = idx.dims[idx.rank - 1].value, batch = 1, slice = 1;
    for (int64_t i = 0; i < b; i++)
        batch *= x.dims[i].value;
    for (int64_t i = b + m; i < x.rank; i++)
        slice *= x.dims[i].value;
    OC_IX_SCRATCH(xs, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    int64_t tuples = m ? idx.n / m : 0, per_batch = batch ? tuples / batch : 0, at = 0;
    int64_t batch_stride = b > 0 ? xs[b - 1] : x.n;
    for (int64_t t = 0; t < tuples; t++) {
        int64_t base;
        if (!oc_ix_tuple_at(&x, xs, idx.i + t * m, m, b, &base))
            return OC_OK;
        base += (per_batch ? t / per_batch : 0) * batch_stride;
        for (int64_t e = 0; e < slice; e++, at++)
            if (at >= o.n || base + e >= x.n || !oc_fold_copy(&o, at, &x, base + e))
                return OC_OK;
    }
    if (at == o.n)
        oc_fold_commit(&o);
    return OC_OK;
}

/* Combines an update u into the target t by the Scatter `reduction`. */
static bool oc_scatter_combine(const char *red, const struct oc_known *u, int64_t ui, struct oc_fold_out *o,
                               int64_t at) {
    if (strcmp(red, "none") == 0)
        return oc_fold_copy(o, at, u, ui);
    double t = o->i ? (double)o->i[at] : o->f[at], v = oc_known_f(u, ui);
    if (o->i && u->i) {
        int64_t ti = o->i[at], vi = u->i[ui], r;
        if (strcmp(red, "add") == 0 ? oc_add_i64(ti, vi, &r)
            : strcmp(red, "mul") == 0 ? oc_mul_i64(ti, vi, &r)
            : (r = strcmp(red, "max") == 0 ? (ti > vi ? ti : vi) : (ti < vi ? ti : vi), false))
            return false;
        return oc_fold_put_i(o, at, r);
    }
    double r = strcmp(red, "add") == 0 ? t + v : strcmp(red, "mul") == 0 ? t * v
             : strcmp(red, "max") == 0 ? (t > v ? t : v) : (t < v ? t : v);
    return oc_fold_put_f(o, at, r);
}

/* Starts a Scatter fold: the output is a copy of data; *red the reduction. */
static bool oc_scatter_begin(struct oc_op_ctx *c, struct oc_known *x, struct oc_known *idx, struct oc_known *u,
                             struct oc_fold_out *o, char *red, size_t size) {
    struct oc_diag d = {0};
    if (!oc_fold_in(c, 0, x) || !oc_fold_in(c, 1, idx) || !idx->i || !oc_fold_in(c, 2, u) ||
        oc_attr_string(c->node, "reduction", "none", red, size, &d) != OC_OK || !oc_fold_out(c, 0, o) ||
        o->n != x->n)
        return false;
    for (int64_t i = 0; i < o->n; i++)
        if (!oc_fold_copy(o, i, x, i))
            return false;
    return true;
}

/* ScatterND: each index tuple names a slice of the output that the matching
 * slice of updates replaces (or combines into). */
OC_FOLD(oc_scatter_nd_fold) {
    struct oc_known x, idx, u;
    struct oc_fold_out o;
    char red[16];
    if (!oc_scatter_begin(c, &x, &idx, &u, &o, red, sizeof red))
        return OC_OK;
    int64_t m = idx.rank ? idx.dims[idx.rank - 1].value : 0, slice = 1;
    if (m < 1 || m > x.rank)
        return OC_OK;
    for (int32_t i = (int32_t)m; i < x.rank; i++)
        slice *= x.dims[i].value;
    OC_IX_SCRATCH(xs, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    int64_t tuples = idx.n / m;
    if (tuples * slice != u.n)
        return OC_OK;
    for (int64_t t = 0; t < tuples; t++) {
        int64_t base;
        if (!oc_ix_tuple_at(&x, xs, idx.i + t * m, m, 0, &base))
            return OC_OK;
        for (int64_t e = 0; e < slice; e++)
            if (!oc_scatter_combine(red, &u, t * slice + e, &o, base + e))
                return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* Scatter, ScatterElements: updates[c] goes to c with c[axis] =
 * indices[c]. */
OC_FOLD(oc_scatter_elements_fold) {
    struct oc_known x, idx, u;
    struct oc_fold_out o;
    char red[16];
    struct oc_diag d = {0};
    int64_t a;
    int32_t axis;
    if (!oc_scatter_begin(c, &x, &idx, &u, &o, red, sizeof red) || idx.n != u.n || idx.rank != x.rank ||
        oc_attr_int(c->node, "axis", 0, &a, &d) != OC_OK || !oc_axis_norm(a, x.rank, &axis))
        return OC_OK;
    OC_IX_SCRATCH(xs, x.rank);
    OC_IX_SCRATCH(co, x.rank);
    oc_fold_strides(x.dims, x.rank, xs);
    for (int64_t f = 0; f < idx.n; f++) {
        int64_t at;
        if (!oc_ix_element_at(&x, xs, &idx, f, axis, co, &at) || !oc_scatter_combine(red, &u, f, &o, at))
            return OC_OK;
    }
    oc_fold_commit(&o);
    return OC_OK;
}

/* NonZero: the coordinates of the non-zero elements, one row per axis, in
 * row-major order. */
OC_FOLD(oc_nonzero_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    if (!oc_fold_in(c, 0, &x) || !oc_fold_out(c, 0, &o))
        return OC_OK;
    int64_t nz = 0;
    for (int64_t i = 0; i < x.n; i++)
        nz += oc_known_f(&x, i) != 0;
    if (nz * (x.rank > 0 ? x.rank : 1) != o.n && !(x.rank == 0 && o.n == 0))
        return OC_OK;
    OC_IX_SCRATCH(co, x.rank);
    int64_t j = 0;
    for (int64_t i = 0; i < x.n; i++) {
        if (oc_known_f(&x, i) == 0)
            continue;
        oc_fold_coords(i, x.dims, x.rank, co);
        for (int32_t k = 0; k < x.rank; k++)
            o.i[k * nz + j] = co[k];
        j++;
    }
    oc_fold_commit(&o);
    return OC_OK;
}
