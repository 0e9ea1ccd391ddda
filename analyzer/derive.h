/*
 * derive.h — shapes derived as polynomials in the symbolic dims through the
 * ops' own semantics: the proof behind the monotone method of ranges
 * (views/range.h) and behind formulas labelled "derived" (symbolic.h).
 * docs/RANGES.md, "How the bounds are proven".
 *
 * symbolic.h fits polynomials to analyses at probe bindings; a fit that
 * matches them all can still differ in between (a dim through Mod, Min,
 * Where or a clamping Slice). This module proves instead. It walks the main
 * graph once, in topological order, from an analysis at one binding (the
 * base), keeping for every value:
 *   - each dim as a polynomial in the symbols, or "not derived";
 *   - for small integer tensors (the shape arithmetic of exported graphs),
 *     each element likewise;
 *   - whether the value depends on the symbols at all.
 * A node none of whose inputs depends on the symbols gives outputs that do
 * not either: they are the base analysis's, at every binding. A node that
 * reads a symbol-dependent value needs a derivation rule for its op
 * (derive_ops.c, one row per op). A rule states the op's shape arithmetic on
 * polynomials: dims copied, added, multiplied, divided where the division is
 * exact as polynomials; a comparison, Min, Max, Where or Slice clamp is
 * followed only where its outcome is the same over the whole region (decided
 * by bounds of polynomials over the region's box), else the output is not
 * derived. An op without a rule, Mod, a floor division, data-dependent
 * shapes: not derived, and the first such node is named with the reason.
 *
 * Every derived polynomial is checked against the base analysis's value at
 * the base binding; a mismatch (a rule wrong for some model) makes it not
 * derived rather than wrong.
 *
 * The region is a box: symbol j in [lo[j], hi[j]] (hi INT64_MAX: no upper
 * end). A derived polynomial equals the analysis at every binding of the box
 * where the model is valid. A node's cost is "monotone" when every dim and
 * content it reads is derived and its op's cost rule never falls as a dim
 * grows (the rule's row says so).
 */
#ifndef OC_DERIVE_H
#define OC_DERIVE_H

#include "poly.h"
#include "symbolic.h"

/* What an op's cost rule (analyzer/ops/) is as a function of the node's
   dims, attributes and constant contents: */
enum oc_derive_cost {
    OC_DC_NONE,  /* not claimed                                               */
    OC_DC_MONO,  /* never falls as a dim of an input or output grows (a ceil,
                    a log2 or a window count may make it no polynomial)       */
    OC_DC_ONE,   /* a polynomial: a sum of terms, each a constant times a
                    product of dims of ONE of its tensors (a numel, its rows) */
    OC_DC_TWO,   /* a polynomial: a sum of terms, each a constant times a
                    product of dims of output 0 and dims of one other tensor
                    (a contraction: the output times K)                     */
    OC_DC_CONST, /* the node reads nothing that depends on the symbols        */
    /* OC_DC_TWO where the other factor K is known (the contractions), so the
       degree bound is output 0's plus K's; every other term is of form ONE: */
    OC_DC_MATMUL, /* K = the last dim of input 0 (MatMul's A)                 */
    OC_DC_GEMM,   /* K = one dim of input 0 that is also one of input 1       */
    OC_DC_CONV,   /* K = input 0's dim 1 over a constant group, times input
                     1's dims 2.. (X's channels per group, W's kernel)       */
};

enum { OC_DERIVE_MAX_GUARDS = 16 };
/* Formulas (a region with no upper end) are claimed for each dim up to this,
   2^40 as for ranges: the integer shape arithmetic is checked to stay within
   its type there, and where it would not, a guard "x <= S" narrows it. */
#define OC_DERIVE_DIM_CAP ((int64_t)1 << 40)

struct oc_derived {
    int32_t n_values, n_nodes;
    const struct oc_poly ***dims; /* [value][axis]: NULL = not derived         */
    bool *dep;                    /* [value]: depends on the symbols            */
    bool *cost_monotone;          /* [node]: see above                          */
    uint8_t *cost_form;           /* [node]: enum oc_derive_cost of its rule
                                     when every dim it reads is derived     */
    int32_t stop_node;            /* first node (file order) whose outputs are
                                     not derived, -1 when none                 */
    int32_t n_guards;             /* conditions the derivation assumed, each
                                     "guards[i] >= 0" (a Slice end that must
                                     not pass its dim): what is derived holds
                                     where all of them do                      */
    const struct oc_poly *guards[OC_DERIVE_MAX_GUARDS];
    char why[256];                /* why, naming the node and its op            */
};

/* Derives over the box [lo, hi] of s's symbols from `base`, an analysis of
 * the same model whose symbols were bound to base_point (inside the box).
 * Polynomials live in s's arena; out's arrays are malloc'd (oc_derived_free).
 * OC_ERR_NOMEM only: what cannot be derived is said in out. */
enum oc_status oc_derive(const struct oc_analysis *base, struct oc_symbolic *s, const int64_t *base_point,
                         const int64_t *lo, const int64_t *hi, struct oc_derived *out);
void oc_derived_free(struct oc_derived *d);

/* The degree in each symbol (the largest over them) that determines every
 * derived dim, size and cost of the graph: each dim's and each value's
 * size's degree, each cost's by its form (OC_DC_ONE: the largest of its
 * tensors' sizes; OC_DC_TWO: output 0's plus the largest other's; a
 * contraction: output 0's plus K's), into deg[j] for each symbol j. False
 * when anything is not derived or its cost is no polynomial of a known
 * form: then only a fit checked at more bindings can give formulas. */
bool oc_derived_degree(const struct oc_derived *dv, const struct oc_graph *g, int32_t n_syms, int32_t *deg);

/* Formulas in base's unbound dims, fitted and proven (what analyze, annotate
 * and the Python package make): the derivation first; where it covers every
 * dim, size and cost with degree at most D in each symbol, the fit takes the
 * grid 1..D+1 (the base analysis is its first point) and no checks; else the
 * grid of oc_symbolic_fit with its checks. Then the proof. OC_ERR_UNSUPPORTED
 * as oc_symbolic_fit. */
enum oc_status oc_symbolic_derive(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                  const struct oc_analysis *base, struct oc_symbolic **out, struct oc_diag *d);

/* The proof of a fit (symbolic.h's proof members): base is the analysis the
 * fit started from (its symbols at 1). Every caller of oc_symbolic_fit calls
 * it; OC_ERR_NOMEM only. */
enum oc_status oc_symbolic_prove(struct oc_symbolic *s, const struct oc_analysis *base);

/* ---- guards ------------------------------------------------------------------------- */

/* Whether every guard holds over the box. */
bool oc_derived_guards_hold(const struct oc_derived *d, int32_t n_syms, const int64_t *lo, const int64_t *hi);
/* Whether every guard holds at one binding. */
bool oc_derived_guards_hold_at(const struct oc_derived *d, int32_t n_syms, const int64_t *at);
/* The guards as text: "sequence <= 1024, batch*sequence <= 4096" (each
   "P >= 0" in its simplest form); "" when none. */
void oc_derived_guards_text(const struct oc_derived *d, const struct oc_symbolic *s, char *buf, size_t size);

#endif
