/*
 * poly.c — exact polynomial arithmetic in the symbolic dims, and sound
 * bounds over a box (poly.h). derive.c derives shapes with it.
 */
#include "poly.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 oc_d128;

/* ---- polynomials ------------------------------------------------------------------------- */

static int oc_d_term_cmp(const void *pa, const void *pb) {
    const struct oc_poly_term *a = pa, *b = pb;
    int da = 0, db = 0;
    for (int j = 0; j < OC_SYM_MAX; j++) {
        da += a->exp[j];
        db += b->exp[j];
    }
    if ((da == 0) != (db == 0)) /* constant last, as symbolic.c orders them */
        return da == 0 ? 1 : -1;
    if (da != db)
        return da < db ? -1 : 1;
    for (int j = 0; j < OC_SYM_MAX; j++)
        if (a->exp[j] != b->exp[j])
            return a->exp[j] > b->exp[j] ? -1 : 1;
    return 0;
}

/* Terms merged, zeros dropped, ordered; a new polynomial in the arena, or
   NULL past OC_POLY_MAX_TERMS terms or OC_POLY_MAX_DEGREE in a symbol (poly.h:
   the derivation's cost stays bounded). */
static const struct oc_poly *oc_d_make(struct oc_symbolic *s, struct oc_poly_term *t, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        for (int j = 0; j < OC_SYM_MAX; j++)
            if (t[i].exp[j] > OC_POLY_MAX_DEGREE)
                return NULL;
    qsort(t, (size_t)n, sizeof *t, oc_d_term_cmp);
    int32_t w = 0;
    for (int32_t i = 0; i < n; i++) {
        if (w > 0 && memcmp(t[w - 1].exp, t[i].exp, sizeof t[i].exp) == 0) {
            if (__builtin_add_overflow(t[w - 1].coef, t[i].coef, &t[w - 1].coef))
                return NULL;
        } else {
            t[w++] = t[i];
        }
    }
    int32_t z = 0;
    for (int32_t i = 0; i < w; i++)
        if (t[i].coef)
            t[z++] = t[i];
    if (z > OC_POLY_MAX_TERMS)
        return NULL;
    struct oc_poly *p = oc_arena_alloc(&s->arena, sizeof *p);
    struct oc_poly_term *terms = oc_arena_array(&s->arena, (size_t)z + 1, sizeof *terms);
    if (!p || !terms)
        return NULL;
    memcpy(terms, t, (size_t)z * sizeof *terms);
    p->terms = terms;
    p->n_terms = z;
    return p;
}

const struct oc_poly *oc_poly_const(struct oc_symbolic *s, int64_t c) {
    struct oc_poly_term t = {.coef = c};
    return oc_d_make(s, &t, 1);
}

const struct oc_poly *oc_poly_var(struct oc_symbolic *s, int32_t j) {
    struct oc_poly_term t = {.coef = 1};
    if (j < 0 || j >= OC_SYM_MAX)
        return NULL;
    t.exp[j] = 1;
    return oc_d_make(s, &t, 1);
}

static const struct oc_poly *oc_d_lin(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b,
                                      int64_t sb) {
    if (!a || !b)
        return NULL;
    int32_t n = a->n_terms + b->n_terms;
    struct oc_poly_term *t = malloc(((size_t)n + 1) * sizeof *t);
    if (!t)
        return NULL;
    memcpy(t, a->terms, (size_t)a->n_terms * sizeof *t);
    for (int32_t i = 0; i < b->n_terms; i++) {
        t[a->n_terms + i] = b->terms[i];
        if (__builtin_mul_overflow(b->terms[i].coef, sb, &t[a->n_terms + i].coef)) {
            free(t);
            return NULL;
        }
    }
    const struct oc_poly *p = oc_d_make(s, t, n);
    free(t);
    return p;
}

const struct oc_poly *oc_poly_add(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b) {
    return oc_d_lin(s, a, b, 1);
}

const struct oc_poly *oc_poly_sub(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b) {
    return oc_d_lin(s, a, b, -1);
}

const struct oc_poly *oc_poly_mul(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b) {
    if (!a || !b)
        return NULL;
    size_t n = (size_t)a->n_terms * (size_t)b->n_terms;
    if (n > (size_t)OC_POLY_MAX_TERMS * OC_POLY_MAX_TERMS)
        return NULL;
    struct oc_poly_term *t = malloc((n + 1) * sizeof *t);
    if (!t)
        return NULL;
    size_t w = 0;
    for (int32_t i = 0; i < a->n_terms; i++)
        for (int32_t k = 0; k < b->n_terms; k++, w++) {
            if (__builtin_mul_overflow(a->terms[i].coef, b->terms[k].coef, &t[w].coef)) {
                free(t);
                return NULL;
            }
            for (int j = 0; j < OC_SYM_MAX; j++) {
                unsigned e = (unsigned)a->terms[i].exp[j] + b->terms[k].exp[j];
                if (e > 255) {
                    free(t);
                    return NULL;
                }
                t[w].exp[j] = (uint8_t)e;
            }
        }
    const struct oc_poly *p = oc_d_make(s, t, (int32_t)n);
    free(t);
    return p;
}

const struct oc_poly *oc_poly_div_exact(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b) {
    if (!a || !b || b->n_terms != 1 || b->terms[0].coef == 0)
        return NULL;
    const struct oc_poly_term *d = &b->terms[0];
    struct oc_poly_term *t = malloc(((size_t)a->n_terms + 1) * sizeof *t);
    if (!t)
        return NULL;
    for (int32_t i = 0; i < a->n_terms; i++) {
        t[i] = a->terms[i];
        if (d->coef == -1 && t[i].coef == INT64_MIN) {
            free(t);
            return NULL;
        }
        if (t[i].coef % d->coef != 0) {
            free(t);
            return NULL;
        }
        t[i].coef /= d->coef;
        for (int j = 0; j < OC_SYM_MAX; j++) {
            if (t[i].exp[j] < d->exp[j]) {
                free(t);
                return NULL;
            }
            t[i].exp[j] = (uint8_t)(t[i].exp[j] - d->exp[j]);
        }
    }
    const struct oc_poly *p = oc_d_make(s, t, a->n_terms);
    free(t);
    return p;
}

bool oc_poly_equal(const struct oc_poly *a, const struct oc_poly *b) {
    if (!a || !b || a->n_terms != b->n_terms)
        return false;
    for (int32_t i = 0; i < a->n_terms; i++)
        if (a->terms[i].coef != b->terms[i].coef || memcmp(a->terms[i].exp, b->terms[i].exp, sizeof a->terms[i].exp))
            return false;
    return true;
}

/* ---- bounds over the box ----------------------------------------------------------------- */

/* Beyond this a bound is treated as unbounded (products stay in 128 bits). */
static const oc_d128 OC_D_BIG = (oc_d128)1 << 100;

struct oc_d_iv {
    oc_d128 lo, hi;
    bool lo_inf, hi_inf; /* -inf / +inf */
};

/* a * b, or false when |a * b| passes OC_D_BIG (no 128-bit wrap: each
   operand is checked before it is used). */
static bool oc_d_mul(oc_d128 a, oc_d128 b, oc_d128 *out) {
    oc_d128 r;
    if (__builtin_mul_overflow(a, b, &r) || r > OC_D_BIG || r < -OC_D_BIG)
        return false;
    *out = r;
    return true;
}

/* a + b, or false when |a + b| passes OC_D_BIG (a and b within 2^126). */
static bool oc_d_add(oc_d128 a, oc_d128 b, oc_d128 *out) {
    oc_d128 r;
    if (__builtin_add_overflow(a, b, &r) || r > OC_D_BIG || r < -OC_D_BIG)
        return false;
    *out = r;
    return true;
}

/* The monomial of t over [lo, hi] (lo >= 1): [lo^e, hi^e]; each end
   flagged infinite past OC_D_BIG, hi INT64_MAX is +inf. */
static void oc_d_mono(const struct oc_poly_term *t, int32_t k, const int64_t *lo, const int64_t *hi, oc_d128 *mlo,
                      bool *mlo_inf, oc_d128 *mhi, bool *mhi_inf) {
    *mlo = 1;
    *mhi = 1;
    *mlo_inf = false;
    *mhi_inf = false;
    for (int32_t j = 0; j < k; j++)
        for (int e = 0; e < t->exp[j]; e++) {
            if (!*mlo_inf && !oc_d_mul(*mlo, lo[j], mlo))
                *mlo_inf = true;
            if (hi[j] == INT64_MAX)
                *mhi_inf = true;
            else if (!*mhi_inf && !oc_d_mul(*mhi, hi[j], mhi))
                *mhi_inf = true;
        }
}

/* Adds c * m to one end of an interval: +-inf when m is (c's sign says
   which), or when the product or the sum passes OC_D_BIG. */
static void oc_d_acc(oc_d128 *end, bool *end_inf, oc_d128 c, oc_d128 m, bool m_inf) {
    oc_d128 cm;
    if (*end_inf)
        return;
    if (m_inf || !oc_d_mul(c, m, &cm) || !oc_d_add(*end, cm, end))
        *end_inf = true;
}

static struct oc_d_iv oc_d_bounds(const struct oc_poly *p, int32_t k, const int64_t *lo, const int64_t *hi) {
    struct oc_d_iv r = {0, 0, false, false};
    for (int32_t i = 0; i < p->n_terms; i++) {
        const struct oc_poly_term *t = &p->terms[i];
        oc_d128 mlo, mhi;
        bool lo_inf, hi_inf;
        oc_d_mono(t, k, lo, hi, &mlo, &lo_inf, &mhi, &hi_inf);
        oc_d128 c = t->coef;
        if (c >= 0) { /* c * [mlo, mhi]: the low end with mlo, the high with mhi */
            oc_d_acc(&r.lo, &r.lo_inf, c, mlo, lo_inf);
            oc_d_acc(&r.hi, &r.hi_inf, c, mhi, hi_inf);
        } else {
            oc_d_acc(&r.hi, &r.hi_inf, c, mlo, lo_inf);
            oc_d_acc(&r.lo, &r.lo_inf, c, mhi, hi_inf);
        }
    }
    return r;
}

bool oc_poly_bounds(const struct oc_poly *p, int32_t n_syms, const int64_t *lo, const int64_t *hi, int64_t *min,
                    int64_t *max) {
    if (!p)
        return false;
    struct oc_d_iv r = oc_d_bounds(p, n_syms, lo, hi);
    if (r.lo_inf || r.hi_inf || r.lo < INT64_MIN || r.hi > INT64_MAX)
        return false;
    *min = (int64_t)r.lo;
    *max = (int64_t)r.hi;
    return true;
}

bool oc_poly_nondecreasing(const struct oc_poly *p, int32_t n_syms, const int64_t *lo, const int64_t *hi) {
    if (!p)
        return false;
    for (int32_t j = 0; j < n_syms; j++) {
        /* the partial derivative in symbol j: its lower bound over the box */
        oc_d128 lo_j = 0;
        bool lo_inf = false;
        for (int32_t i = 0; i < p->n_terms; i++) {
            const struct oc_poly_term *t = &p->terms[i];
            if (!t->exp[j])
                continue;
            struct oc_poly_term d = *t;
            d.exp[j]--;
            oc_d128 mlo, mhi;
            bool mlo_inf, mhi_inf;
            oc_d_mono(&d, n_syms, lo, hi, &mlo, &mlo_inf, &mhi, &mhi_inf);
            oc_d128 c = (oc_d128)t->coef * t->exp[j]; /* |c| < 2^71 */
            if (c >= 0)
                oc_d_acc(&lo_j, &lo_inf, c, mlo, mlo_inf);
            else
                oc_d_acc(&lo_j, &lo_inf, c, mhi, mhi_inf);
        }
        /* an infinite low end is -inf only where a negative term made it:
           either way the derivative is not proven >= 0 */
        if (lo_inf || lo_j < 0)
            return false;
    }
    return true;
}

bool oc_poly_eval_at(const struct oc_poly *p, int32_t k, const int64_t *at, int64_t *out) {
    oc_d128 sum = 0;
    for (int32_t i = 0; i < p->n_terms; i++) {
        oc_d128 v = p->terms[i].coef;
        for (int32_t j = 0; j < k; j++)
            for (int e = 0; e < p->terms[i].exp[j]; e++)
                if (!oc_d_mul(v, at[j], &v))
                    return false;
        if (!oc_d_add(sum, v, &sum))
            return false;
    }
    if (sum > INT64_MAX || sum < INT64_MIN)
        return false;
    *out = (int64_t)sum;
    return true;
}

int oc_poly_sign(const struct oc_poly *p, int32_t n_syms, const int64_t *lo, const int64_t *hi) {
    if (!p)
        return 2;
    struct oc_d_iv r = oc_d_bounds(p, n_syms, lo, hi);
    if (!r.lo_inf && r.lo > 0)
        return 1;
    if (!r.hi_inf && r.hi < 0)
        return -1;
    if (!r.lo_inf && !r.hi_inf && r.lo == 0 && r.hi == 0)
        return 0;
    return 2;
}
