/*
 * fold.c — known contents of small tensors: storage, reading from the file
 * within limits, conversion between element types (fold.h).
 */
#include "fold.h"

#include "dtype.h"
#include "model.h"

#include <math.h>
#include <string.h>

bool oc_fold_dtype(int32_t dt) {
    switch (dt) {
    case OC_DT_FLOAT:
    case OC_DT_DOUBLE:
    case OC_DT_FLOAT16:
    case OC_DT_BFLOAT16:
    case OC_DT_BOOL:
    case OC_DT_INT8:
    case OC_DT_UINT8:
    case OC_DT_INT16:
    case OC_DT_UINT16:
    case OC_DT_INT32:
    case OC_DT_UINT32:
    case OC_DT_INT64:
    case OC_DT_UINT64:
        return true;
    default:
        return false;
    }
}

static bool oc_fold_is_float(int32_t dt) {
    return dt == OC_DT_FLOAT || dt == OC_DT_DOUBLE || dt == OC_DT_FLOAT16 || dt == OC_DT_BFLOAT16;
}

void oc_fold_int_range(int32_t dt, int64_t *lo, int64_t *hi) {
    switch (dt) {
    case OC_DT_BOOL:
        *lo = 0, *hi = 1;
        return;
    case OC_DT_INT8:
        *lo = INT8_MIN, *hi = INT8_MAX;
        return;
    case OC_DT_UINT8:
        *lo = 0, *hi = UINT8_MAX;
        return;
    case OC_DT_INT16:
        *lo = INT16_MIN, *hi = INT16_MAX;
        return;
    case OC_DT_UINT16:
        *lo = 0, *hi = UINT16_MAX;
        return;
    case OC_DT_INT32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        return;
    case OC_DT_UINT32:
        *lo = 0, *hi = UINT32_MAX;
        return;
    case OC_DT_UINT64:
        *lo = 0, *hi = INT64_MAX;
        return;
    default:
        *lo = INT64_MIN, *hi = INT64_MAX;
        return;
    }
}

/* x rounded to a binary format with `mant` stored mantissa bits and
 * exponents from emin to emax (normal numbers), nearest with ties to even;
 * beyond the largest finite value's rounding boundary it is infinite. */
static double oc_round_format(double x, int mant, int emin, int emax) {
    if (x == 0 || isnan(x) || isinf(x))
        return x;
    double a = fabs(x);
    double limit = ldexp(2.0 - ldexp(1.0, -(mant + 1)), emax);
    if (a >= limit)
        return copysign(INFINITY, x);
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, exp - mant); /* the format's spacing at a (subnormals: at emin) */
    return copysign(nearbyint(a / q) * q, x);
}

double oc_round_to_dtype(int32_t dt, double x) {
    switch (dt) {
    case OC_DT_FLOAT:
        return (double)(float)x;
    case OC_DT_FLOAT16:
        return oc_round_format(x, 10, -14, 15);
    case OC_DT_BFLOAT16:
        return oc_round_format(x, 7, -126, 127);
    default:
        return x;
    }
}

static bool oc_known_numel(const struct oc_value *v, int64_t *n) {
    uint64_t cnt;
    if (!v || v->nt || v->rank < 0 || !oc_value_numel(v, &cnt) || cnt > OC_FOLD_MAX_ELEMS)
        return false;
    *n = (int64_t)cnt;
    return true;
}

/* True when the file's contents of v may be read (fold.h): index types up
 * to OC_FOLD_MAX_ELEMS elements, other types up to OC_FOLD_MAX_FILE_OTHER. */
static bool oc_fold_readable(const struct oc_graph *g, const struct oc_value *v, int64_t n) {
    if (v->ival_tried || !v->tensor || v->external || !oc_fold_dtype(v->dtype))
        return false;
    bool index = v->dtype == OC_DT_INT64 || v->dtype == OC_DT_INT32 || v->dtype == OC_DT_BOOL;
    return index || n <= OC_FOLD_MAX_FILE_OTHER || g->fold_any_size;
}

bool oc_fold_available(const struct oc_graph *g, const struct oc_value *v) {
    int64_t n;
    if (!v || !oc_known_numel(v, &n))
        return false;
    if (v->ival || v->fval)
        return true;
    return oc_fold_readable(g, v, n);
}

/* Takes n elements from the analysis' folding budget; false when spent. */
static bool oc_fold_take(struct oc_graph *g, int64_t n) {
    if (!g->fold_left)
        return true;
    if (*g->fold_left < n)
        return false;
    *g->fold_left -= n;
    return true;
}

/* Reads a small initializer's or Constant tensor's contents on first use. */
static void oc_fold_read(struct oc_graph *g, struct oc_value *v, int64_t n) {
    v->ival_tried = true;
    if (!oc_fold_take(g, n))
        return;
    size_t m = n > 0 ? (size_t)n : 1;
    if (oc_fold_is_float(v->dtype)) {
        double *f = oc_arena_array(g->arena, m, sizeof *f);
        if (f && oc_model_tensor_floats(g->model, v->tensor, n, f) == OC_OK)
            v->fval = f;
    } else {
        int64_t *iv = oc_arena_array(g->arena, m, sizeof *iv);
        if (iv && oc_model_tensor_ints(g->model, v->tensor, n, iv) == OC_OK) {
            v->ival = iv;
            v->n_ival = n;
        }
    }
}

bool oc_fold_get(struct oc_graph *g, struct oc_value *v, struct oc_known *k) {
    int64_t n;
    memset(k, 0, sizeof *k);
    if (!v || !oc_known_numel(v, &n))
        return false;
    if (!v->ival && !v->fval && oc_fold_readable(g, v, n))
        oc_fold_read(g, v, n);
    if (v->ival && v->n_ival == n)
        k->i = v->ival;
    else if (v->fval)
        k->f = v->fval;
    else
        return false;
    k->dtype = v->dtype;
    k->rank = v->rank;
    k->dims = v->dims;
    k->n = n;
    return true;
}

const int64_t *oc_value_ints(struct oc_graph *g, struct oc_value *v, int64_t *n) {
    struct oc_known k;
    *n = 0;
    if (!oc_fold_get(g, v, &k) || !k.i)
        return NULL;
    *n = k.n;
    return k.i;
}

bool oc_fold_begin(struct oc_graph *g, struct oc_arena *a, struct oc_value *v, struct oc_fold_out *o) {
    memset(o, 0, sizeof *o);
    int64_t n;
    if (!v || !oc_fold_dtype(v->dtype) || !oc_known_numel(v, &n) || !oc_fold_take(g, n))
        return false;
    size_t m = n > 0 ? (size_t)n : 1;
    o->v = v;
    o->dtype = v->dtype;
    o->n = n;
    if (oc_fold_is_float(v->dtype))
        o->f = oc_arena_array(a, m, sizeof *o->f);
    else
        o->i = oc_arena_array(a, m, sizeof *o->i);
    return o->f || o->i;
}

void oc_fold_commit(struct oc_fold_out *o) {
    if (o->i) {
        o->v->ival = o->i;
        o->v->n_ival = o->n;
    } else {
        o->v->fval = o->f;
    }
}

double oc_known_f(const struct oc_known *k, int64_t at) {
    return k->i ? (double)k->i[at] : k->f[at];
}

bool oc_known_int(const struct oc_known *k, int64_t at, int64_t *out) {
    if (k->i) {
        *out = k->i[at];
        return true;
    }
    double x = k->f[at];
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0) || x != trunc(x))
        return false;
    *out = (int64_t)x;
    return true;
}

bool oc_fold_put_f(struct oc_fold_out *o, int64_t at, double x) {
    if (o->f) {
        o->f[at] = oc_round_to_dtype(o->dtype, x);
        return true;
    }
    if (o->dtype == OC_DT_BOOL) {
        if (isnan(x))
            return false;
        o->i[at] = x != 0;
        return true;
    }
    double t = trunc(x);
    int64_t lo, hi;
    oc_fold_int_range(o->dtype, &lo, &hi);
    if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0) || (int64_t)t < lo || (int64_t)t > hi)
        return false; /* a float out of the type's range: undefined, not wrapped */
    o->i[at] = (int64_t)t;
    return true;
}

bool oc_fold_put_i(struct oc_fold_out *o, int64_t at, int64_t x) {
    if (o->f) {
        o->f[at] = oc_round_to_dtype(o->dtype, (double)x);
        return true;
    }
    if (o->dtype == OC_DT_BOOL) {
        o->i[at] = x != 0;
        return true;
    }
    int64_t lo, hi;
    oc_fold_int_range(o->dtype, &lo, &hi);
    if ((x < lo || x > hi) && hi < INT64_MAX) {
        /* an integer into a narrower type wraps, as a runtime's static_cast
           does (Cast to int8 of 200 is -56): the value mod 2^bits, in the
           type's range */
        uint64_t span = (uint64_t)hi - (uint64_t)lo + 1, u = (uint64_t)x - (uint64_t)lo;
        x = (int64_t)((u % span) + (uint64_t)lo);
    }
    if (x < lo || x > hi)
        return false; /* a negative into uint64 (kept up to INT64_MAX here) */
    o->i[at] = x;
    return true;
}

bool oc_fold_copy(struct oc_fold_out *o, int64_t at, const struct oc_known *src, int64_t from) {
    if (src->i)
        return oc_fold_put_i(o, at, src->i[from]);
    return oc_fold_put_f(o, at, src->f[from]);
}

void oc_fold_strides(const struct oc_dim *dims, int32_t rank, int64_t *st) {
    int64_t s = 1;
    for (int32_t k = rank - 1; k >= 0; k--) {
        st[k] = s;
        s *= dims[k].value;
    }
}

void oc_fold_coords(int64_t flat, const struct oc_dim *dims, int32_t rank, int64_t *coord) {
    for (int32_t k = rank - 1; k >= 0; k--) {
        int64_t d = dims[k].value;
        coord[k] = d > 0 ? flat % d : 0;
        flat = d > 0 ? flat / d : 0;
    }
}

int64_t oc_fold_bcast_index(const struct oc_dim *dims, int32_t rank, const struct oc_dim *odims, int32_t orank,
                            int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (int32_t k = orank - 1; k >= 0; k--) {
        int64_t od = odims[k].value;
        int64_t coord = od > 0 ? flat % od : 0;
        flat = od > 0 ? flat / od : 0;
        int32_t vk = k - (orank - rank);
        if (vk < 0)
            continue;
        int64_t vd = dims[vk].value;
        idx += (vd == 1 ? 0 : coord) * stride;
        stride *= vd;
    }
    return idx;
}
