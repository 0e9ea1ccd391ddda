/*
 * shape.c — broadcasting, spatial output size, axes (see shape.h).
 */
#include "shape.h"

#include "attr.h"

#include <string.h>

enum oc_status oc_broadcast(const struct oc_dim *a, int32_t ra, const struct oc_dim *b, int32_t rb,
                            struct oc_dim *out, int32_t *rout) {
    int32_t r = ra > rb ? ra : rb;
    for (int32_t i = 0; i < r; i++) {
        int32_t ia = i - (r - ra), ib = i - (r - rb);
        struct oc_dim da = ia >= 0 ? a[ia] : (struct oc_dim){1, NULL};
        struct oc_dim db = ib >= 0 ? b[ib] : (struct oc_dim){1, NULL};
        struct oc_dim o;
        if (da.value == 1)
            o = db;
        else if (db.value == 1)
            o = da;
        else if (da.value < 0)
            o = db.value >= 0 ? db : da;
        else if (db.value < 0)
            o = da;
        else if (da.value == db.value)
            o = da;
        else
            return OC_ERR_MODEL;
        out[i] = o;
    }
    *rout = r;
    return OC_OK;
}

bool oc_dims_equal(const struct oc_dim *a, int32_t ra, const struct oc_dim *b, int32_t rb) {
    if (ra != rb || ra < 0)
        return false;
    for (int32_t i = 0; i < ra; i++)
        if (a[i].value < 0 || a[i].value != b[i].value)
            return false;
    return true;
}

bool oc_broadcastable_to(const struct oc_dim *from, int32_t rf, const struct oc_dim *to, int32_t rt) {
    if (rf > rt)
        return false;
    for (int32_t i = 0; i < rf; i++) {
        int64_t f = from[i].value, t = to[i + (rt - rf)].value;
        if (f != 1 && f >= 0 && t >= 0 && f != t)
            return false;
    }
    return true;
}

bool oc_auto_pad_parse(const char *s, enum oc_auto_pad *out) {
    static const struct {
        const char *name;
        enum oc_auto_pad v;
    } t[] = {{"NOTSET", OC_AUTO_PAD_NOTSET},
             {"", OC_AUTO_PAD_NOTSET},
             {"SAME_UPPER", OC_AUTO_PAD_SAME_UPPER},
             {"SAME_LOWER", OC_AUTO_PAD_SAME_LOWER},
             {"VALID", OC_AUTO_PAD_VALID}};
    for (size_t i = 0; i < OC_ARRAY_LEN(t); i++)
        if (strcmp(s, t[i].name) == 0) {
            *out = t[i].v;
            return true;
        }
    return false;
}

enum oc_status oc_spatial_out(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe,
                              enum oc_auto_pad ap, bool ceil_mode, int64_t *out, int64_t *pb_used,
                              int64_t *pe_used) {
    *out = -1;
    *pb_used = pb;
    *pe_used = pe;
    if (k <= 0 || stride <= 0 || dil <= 0 || pb < 0 || pe < 0)
        return OC_ERR_MODEL;
    int64_t span; /* (k - 1) * dil + 1 */
    if (oc_mul_i64(k - 1, dil, &span) || oc_add_i64(span, 1, &span))
        return OC_ERR_MODEL;
    if (in < 0)
        return OC_OK;
    if (ap == OC_AUTO_PAD_SAME_UPPER || ap == OC_AUTO_PAD_SAME_LOWER) {
        int64_t o = in / stride + (in % stride != 0);
        int64_t need; /* (o - 1) * stride + span - in */
        if (oc_mul_i64(o > 0 ? o - 1 : 0, stride, &need) || oc_add_i64(need, span, &need))
            return OC_ERR_MODEL;
        int64_t total = need - in > 0 ? need - in : 0;
        int64_t small = total / 2, big = total - small;
        *pb_used = ap == OC_AUTO_PAD_SAME_UPPER ? small : big;
        *pe_used = ap == OC_AUTO_PAD_SAME_UPPER ? big : small;
        *out = o;
        return OC_OK;
    }
    if (ap == OC_AUTO_PAD_VALID)
        pb = pe = *pb_used = *pe_used = 0;
    int64_t padded;
    if (oc_add_i64(in, pb, &padded) || oc_add_i64(padded, pe, &padded))
        return OC_ERR_MODEL;
    if (padded < span)
        return OC_ERR_MODEL;
    int64_t num = padded - span;
    int64_t o = num / stride + ((ceil_mode && num % stride) ? 1 : 0) + 1;
    /* a last window that would start in the end padding is dropped */
    int64_t last_start;
    if (ceil_mode && o > 1 && (oc_mul_i64(o - 1, stride, &last_start) || last_start >= in + pb))
        o--;
    *out = o;
    return OC_OK;
}

enum oc_status oc_spatial_out_transposed(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb,
                                         int64_t pe, int64_t out_pad, enum oc_auto_pad ap, int64_t *out) {
    *out = -1;
    if (k <= 0 || stride <= 0 || dil <= 0 || pb < 0 || pe < 0 || out_pad < 0)
        return OC_ERR_MODEL;
    if (in < 0)
        return OC_OK;
    int64_t o;
    if (ap == OC_AUTO_PAD_SAME_UPPER || ap == OC_AUTO_PAD_SAME_LOWER) {
        if (oc_mul_i64(in, stride, &o))
            return OC_ERR_MODEL;
        *out = o;
        return OC_OK;
    }
    if (ap == OC_AUTO_PAD_VALID)
        pb = pe = 0;
    int64_t span; /* (k - 1) * dil + 1 */
    if (oc_mul_i64(k - 1, dil, &span) || oc_add_i64(span, 1, &span))
        return OC_ERR_MODEL;
    if (oc_mul_i64(in - 1, stride, &o) || oc_add_i64(o, out_pad, &o) || oc_add_i64(o, span, &o))
        return OC_ERR_MODEL;
    o -= pb;
    o -= pe;
    if (o < 0)
        return OC_ERR_MODEL;
    *out = o;
    return OC_OK;
}

bool oc_axis_norm(int64_t axis, int32_t rank, int32_t *out) {
    if (axis < -(int64_t)rank || axis >= rank)
        return false;
    *out = (int32_t)(axis < 0 ? axis + rank : axis);
    return true;
}

enum oc_status oc_window_read(const struct oc_node *node, int32_t n, const int64_t *kernel, struct oc_window *w,
                              struct oc_diag *d) {
    const int64_t *v;
    int64_t cnt;
    enum oc_status st;
    if (n > OC_MAX_SPATIAL)
        return oc_diag_set(d, OC_ERR_UNSUPPORTED, "%d spatial dims (limit %d)", n, OC_MAX_SPATIAL);
    memset(w, 0, sizeof *w);
    w->n = n;
    if ((st = oc_attr_ints(node, "kernel_shape", &v, &cnt, d)) != OC_OK)
        return st;
    if (cnt) {
        if (cnt != n)
            return oc_diag_set(d, OC_ERR_MODEL, "kernel_shape has %lld entries, expected %d", (long long)cnt, n);
        memcpy(w->k, v, (size_t)n * sizeof *v);
    } else if (kernel) {
        memcpy(w->k, kernel, (size_t)n * sizeof *kernel);
    } else {
        return oc_diag_set(d, OC_ERR_MODEL, "required attribute 'kernel_shape' is missing");
    }
    for (int32_t i = 0; i < n; i++) {
        if (w->k[i] <= 0)
            return oc_diag_set(d, OC_ERR_MODEL, "kernel size %lld is not positive", (long long)w->k[i]);
        w->s[i] = w->dil[i] = 1;
    }
    static const char *const names[] = {"strides", "dilations"};
    int64_t *dst[] = {w->s, w->dil};
    for (int j = 0; j < 2; j++) {
        if ((st = oc_attr_ints(node, names[j], &v, &cnt, d)) != OC_OK)
            return st;
        if (!cnt)
            continue;
        if (cnt != n)
            return oc_diag_set(d, OC_ERR_MODEL, "%s has %lld entries, expected %d", names[j], (long long)cnt, n);
        for (int32_t i = 0; i < n; i++) {
            if (v[i] <= 0)
                return oc_diag_set(d, OC_ERR_MODEL, "%s entry %lld is not positive", names[j], (long long)v[i]);
            dst[j][i] = v[i];
        }
    }
    if ((st = oc_attr_ints(node, "pads", &v, &cnt, d)) != OC_OK)
        return st;
    if (cnt) {
        if (cnt != 2 * n)
            return oc_diag_set(d, OC_ERR_MODEL, "pads has %lld entries, expected %d", (long long)cnt, 2 * n);
        for (int32_t i = 0; i < 2 * n; i++) {
            if (v[i] < 0)
                return oc_diag_set(d, OC_ERR_MODEL, "negative pad %lld", (long long)v[i]);
            w->pads[i] = v[i];
        }
    }
    char ap[32];
    if ((st = oc_attr_string(node, "auto_pad", "NOTSET", ap, sizeof ap, d)) != OC_OK)
        return st;
    if (!oc_auto_pad_parse(ap, &w->ap))
        return oc_diag_set(d, OC_ERR_MODEL, "auto_pad '%s' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID", ap);
    int64_t ceil_mode;
    if ((st = oc_attr_int(node, "ceil_mode", 0, &ceil_mode, d)) != OC_OK)
        return st;
    w->ceil_mode = ceil_mode != 0;
    return OC_OK;
}
