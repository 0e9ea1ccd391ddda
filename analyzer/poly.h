/*
 * poly.h — exact polynomial arithmetic in the symbolic dims (struct
 * oc_poly of symbolic.h, terms in its arena) and sound bounds over a box of
 * bindings: what derive.h proves shapes with.
 */
#ifndef OC_POLY_H
#define OC_POLY_H

#include "symbolic.h"

/* The derivation's polynomials stay small, so that its time and memory grow
 * with the graph, not with its shape arithmetic: an operation whose result
 * would have more terms, or a higher power of one symbol, gives NULL (not
 * derived). Shapes of real models take a handful of terms of degree 1 to 3
 * (GPT-2's attention: batch*sequence^2). */
enum { OC_POLY_MAX_TERMS = 64, OC_POLY_MAX_DEGREE = 8 };

/* Sound bounds of p over the box (lo[j] >= 1): false when they pass 2^100
 * or are unbounded (a symbol with hi INT64_MAX in a term of the sign that
 * grows). */
bool oc_poly_bounds(const struct oc_poly *p, int32_t n_syms, const int64_t *lo, const int64_t *hi, int64_t *min,
                    int64_t *max);
/* True when p never falls as any symbol grows within the box (each partial
 * derivative's lower bound over the box is >= 0). */
bool oc_poly_nondecreasing(const struct oc_poly *p, int32_t n_syms, const int64_t *lo, const int64_t *hi);
/* Exact polynomial arithmetic in s's arena; NULL (not derived) on a NULL
 * operand, 64-bit overflow of a coefficient, a division that is not exact,
 * or a result past the bounds above. */
const struct oc_poly *oc_poly_const(struct oc_symbolic *s, int64_t c);
const struct oc_poly *oc_poly_var(struct oc_symbolic *s, int32_t j);
const struct oc_poly *oc_poly_add(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b);
const struct oc_poly *oc_poly_sub(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b);
const struct oc_poly *oc_poly_mul(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b);
/* a / b when b is one term (c * monomial) dividing every term of a. */
const struct oc_poly *oc_poly_div_exact(struct oc_symbolic *s, const struct oc_poly *a, const struct oc_poly *b);
bool oc_poly_equal(const struct oc_poly *a, const struct oc_poly *b);
/* p at one binding, exactly; false when it passes 2^100 or 64 bits. */
bool oc_poly_eval_at(const struct oc_poly *p, int32_t n_syms, const int64_t *at, int64_t *out);
/* The sign of p over the whole box: -1, 0 or 1 when every binding gives
   that sign; 2 when it is not decided (or p is NULL). */
int oc_poly_sign(const struct oc_poly *p, int32_t n_syms, const int64_t *lo, const int64_t *hi);

#endif
