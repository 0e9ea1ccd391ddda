/*
 * ops/math.c — CumSum, Trilu, EyeLike, Size, Det, ReverseSequence.
 *
 * CumSum: one add per output element that sums two or more inputs.
 * Det: LU decomposition with partial pivoting per matrix.
 * Trilu, EyeLike, ReverseSequence, Size: 0 FLOPs (masked copy, constant
 * fill, data movement, metadata).
 */
#include "../attr.h"
#include "../dtype.h"
#include "../fold.h"
#include "rules.h"
#include "../shape.h"

/* The axis of CumSum (input 1) normalised, when its value is known. */
static enum oc_status oc_cumsum_axis(struct oc_op_ctx *c, int32_t *a) {
    const struct oc_value *x = oc_in(c, 0);
    int64_t n;
    const int64_t *v = oc_in_ints(c, 1, &n);
    if (!v)
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of input 'axis' is not known");
    if (n != 1)
        return OC_FAIL(c, OC_ERR_MODEL, "input 'axis' has %lld values, expected one", (long long)n);
    if (!oc_axis_norm(v[0], x->rank, a))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld out of range for rank %d", (long long)v[0], x->rank);
    return OC_OK;
}

OC_RULE(oc_cumsum_infer) {
    const struct oc_value *x = oc_in(c, 0), *ax = oc_in(c, 1);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (ax && ax->rank > 1)
        return OC_FAIL(c, OC_ERR_MODEL, "input 'axis' has rank %d, expected a scalar", ax->rank);
    int32_t a;
    int64_t n;
    if (oc_in_ints(c, 1, &n)) { /* the output shape does not need it: only checked */
        enum oc_status st = oc_cumsum_axis(c, &a);
        if (st != OC_OK)
            return st;
    }
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* CumSum along an axis of length L, rows = numel / L: an inclusive sum
 * takes L - 1 adds per row, an exclusive one (first output 0) L - 2.
 * Unknown (not 0) when the axis value is not known. */
OC_COST(oc_cumsum_cost) {
    const struct oc_value *x = oc_in(c, 0);
    int32_t a;
    int64_t excl;
    if (oc_cumsum_axis(c, &a) != OC_OK || oc_attr_int(c->node, "exclusive", 0, &excl, c->diag) != OC_OK)
        return OC_ERR_SHAPE;
    uint64_t n = oc_numel(x), len = (uint64_t)x->dims[a].value, per = excl ? 2 : 1;
    if (len > per)
        oc_cost_add_flops(cost, n / len, len - per);
    return OC_OK;
}

/* Trilu: Y like X of rank >= 2; k (optional) a scalar. */
OC_RULE(oc_trilu_infer) {
    const struct oc_value *x = oc_in(c, 0), *k = oc_in(c, 1);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected at least 2", x->rank);
    if (k && k->rank > 0)
        return OC_FAIL(c, OC_ERR_MODEL, "input 'k' has rank %d, expected a scalar", k->rank);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* EyeLike: a 2-D input's shape, `dtype` or the input's type. */
OC_RULE(oc_eyelike_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected 2", x->rank);
    int32_t dt;
    enum oc_status st = oc_attr_dtype(c->node, "dtype", x->dtype, &dt, c->diag);
    if (st != OC_OK)
        return st;
    return oc_set_out(c, 0, dt, 2, x->dims);
}

/* Size: an int64 scalar, its value numel(X) when X's dims are known. */
OC_RULE(oc_size_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    enum oc_status st = oc_set_out(c, 0, OC_DT_INT64, 0, NULL);
    uint64_t n;
    if (st != OC_OK || !oc_value_numel(x, &n) || n > INT64_MAX)
        return st;
    int64_t v = (int64_t)n;
    return oc_set_ints(c, 0, &v, 1);
}

/* Det: [*, M, M] -> [*]. */
OC_RULE(oc_det_infer) {
    const struct oc_value *x = oc_in(c, 0);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected at least 2", x->rank);
    int64_t m = x->dims[x->rank - 2].value, m2 = x->dims[x->rank - 1].value;
    if (m >= 0 && m2 >= 0 && m != m2)
        return OC_FAIL(c, OC_ERR_MODEL, "matrices are %lld x %lld, expected square", (long long)m, (long long)m2);
    return oc_set_out(c, 0, x->dtype, x->rank - 2, x->dims);
}

/* Det of each M x M matrix by LU decomposition with partial pivoting: for
 * column k (k = 0 .. M-2) M-1-k pivot comparisons, M-1-k divides (the
 * multipliers), (M-1-k)^2 multiply-subtract updates (2 each); then M-1
 * multiplies for the product of the diagonal:
 *   M(M-1)/2 + M(M-1)/2 + 2 · (M-1)M(2M-1)/6 + (M-1)
 *   = M(M-1) + (M-1)M(2M-1)/3 + M - 1 per matrix. */
OC_COST(oc_det_cost) {
    const struct oc_value *x = oc_in(c, 0);
    uint64_t m = (uint64_t)x->dims[x->rank - 1].value, mats = oc_numel(oc_out(c, 0));
    if (m == 0)
        return OC_OK;
    uint64_t per = m * (m - 1) + (m - 1) * m * (2 * m - 1) / 3 + (m - 1);
    oc_cost_add_flops(cost, mats, per);
    return OC_OK;
}

/* ReverseSequence: Y like X (rank >= 2); batch_axis and time_axis are 0 and 1
 * in either order; sequence_lens is 1-D of the batch size. */
OC_RULE(oc_reverse_sequence_infer) {
    const struct oc_value *x = oc_in(c, 0), *len = oc_in(c, 1);
    int64_t ba, ta;
    enum oc_status st = oc_attr_int(c->node, "batch_axis", 1, &ba, c->diag);
    if (st != OC_OK || (st = oc_attr_int(c->node, "time_axis", 0, &ta, c->diag)) != OC_OK)
        return st;
    if ((ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta)
        return OC_FAIL(c, OC_ERR_MODEL, "batch_axis %lld and time_axis %lld must be 0 and 1", (long long)ba,
                       (long long)ta);
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected at least 2", x->rank);
    if (len && len->rank >= 0 &&
        (len->rank != 1 || (len->dims[0].value >= 0 && x->dims[ba].value >= 0 &&
                            len->dims[0].value != x->dims[ba].value)))
        return OC_FAIL(c, OC_ERR_MODEL, "sequence_lens must be 1-D with the batch size %lld",
                       (long long)x->dims[ba].value);
    return oc_set_out(c, 0, x->dtype, x->rank, x->dims);
}

/* CumSum of known contents along the axis: inclusive or `exclusive` (first
 * element 0), forward or `reverse`. */
OC_FOLD(oc_cumsum_fold) {
    struct oc_known x;
    struct oc_fold_out o;
    struct oc_diag d = {0};
    int32_t a;
    int64_t excl, rev;
    if (!oc_fold_in(c, 0, &x) || oc_cumsum_axis(c, &a) != OC_OK ||
        oc_attr_int(c->node, "exclusive", 0, &excl, &d) != OC_OK || oc_attr_int(c->node, "reverse", 0, &rev, &d) != OC_OK ||
        !oc_fold_out(c, 0, &o) || o.n != x.n)
        return OC_OK;
    int64_t len = x.dims[a].value, inner = 1;
    for (int32_t k = a + 1; k < x.rank; k++)
        inner *= x.dims[k].value;
    int64_t rows = len && inner ? x.n / (len * inner) : 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t e = 0; e < inner; e++) {
            int64_t isum = 0;
            double fsum = 0;
            for (int64_t s = 0; s < len; s++) {
                int64_t t = rev ? len - 1 - s : s, at = (r * len + t) * inner + e;
                bool ok;
                if (x.i) {
                    ok = !excl ? !oc_add_i64(isum, x.i[at], &isum) && oc_fold_put_i(&o, at, isum)
                               : oc_fold_put_i(&o, at, isum) && !oc_add_i64(isum, x.i[at], &isum);
                } else {
                    if (!excl)
                        fsum = oc_round_to_dtype(x.dtype, fsum + x.f[at]);
                    ok = oc_fold_put_f(&o, at, fsum);
                    if (excl)
                        fsum = oc_round_to_dtype(x.dtype, fsum + x.f[at]);
                }
                if (!ok)
                    return OC_OK;
            }
        }
    oc_fold_commit(&o);
    return OC_OK;
}
