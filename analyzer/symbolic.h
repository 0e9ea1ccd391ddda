/*
 * symbolic.h — shapes and costs as exact polynomials in unbound dims.
 *
 * When a model's symbolic input dims (batch, sequence, ...) are left
 * unbound, the analysis is run at a grid of probe bindings (distinct primes
 * for each symbol) and every output dim, every node's MACs/FLOPs/bytes and
 * the totals are interpolated as polynomials with integer coefficients, of
 * degree <= OC_SYM_DEGREE in each symbol. A polynomial is kept only when it
 * reproduces the analysis exactly at further probe points it was not fitted
 * on; anything else (e.g. a conv output floor((H - 1) / 2) + 1 in a symbolic
 * H) is reported as not polynomial and shown at the default binding. A fit
 * is only samples agreeing: the proof that a formula is the function comes
 * from derive.h, and the struct says which are proven. Where the derivation
 * bounds every degree beforehand (derive.h, oc_symbolic_derive), the grid is
 * 1..D_j+1 in each symbol j instead, the base analysis its first point, and
 * no further point is needed: D + 1 values fix a polynomial of degree D.
 *
 * Ownership: one struct oc_symbolic owns its arena; it refers to values and
 * nodes of the analysis it was made with by index, so keep that analysis.
 */
#ifndef OC_SYMBOLIC_H
#define OC_SYMBOLIC_H

#include "analyze.h"

enum { OC_SYM_MAX = 4, OC_SYM_DEGREE = 3 };

struct oc_poly_term {
    int64_t coef;
    uint8_t exp[OC_SYM_MAX]; /* exponent of each symbol */
};

/* NULL pointer = not a polynomial (or not known). n_terms == 0 is zero. */
struct oc_poly {
    int32_t n_terms;
    struct oc_poly_term *terms; /* ascending total degree, constant last */
};

struct oc_node_poly {
    const struct oc_poly *macs, *flops, *activation_bytes;
};

struct oc_symbolic {
    struct oc_arena arena;
    int32_t n_syms;
    const char *syms[OC_SYM_MAX];
    int32_t n_runs;                     /* analyses made (grid + checks)   */
    int32_t grid_points[OC_SYM_MAX];    /* probe values of each symbol      */
    const int64_t *grid;                /* their values: oc_sym_grid, or
                                           oc_sym_grid_derived            */
    bool checked;                       /* the fit was checked at the two
                                           points past the grid (not needed
                                           where the derivation fixed the
                                           degree beforehand)              */
    const struct oc_poly ***dims;       /* [value][axis] of the main graph */
    struct oc_node_poly *nodes;         /* [node] in file order            */
    const struct oc_poly *macs, *flops, *params, *activation_bytes, *input_bytes;
    /* The proof (derive.h, oc_symbolic_prove: until it is called, nothing is
     * proven), over every binding with each symbol >= 1: a dim
     * derived through the ops replaces its fit; a node's MACs, FLOPs and
     * bytes formulas are proven when every dim it reads and writes is
     * derived and its op's cost is a polynomial of a form (derive.h, enum
     * oc_derive_cost) whose degree in each symbol the probe grid determines.
     * Anything else is a fit: it reproduces every probe analysis, and may
     * differ between them. */
    bool *value_derived;                /* [value]: every dim derived       */
    bool *node_proven;                  /* [node]: output dims derived and
                                           cost formulas proven            */
    bool totals_proven;                 /* every total's formula            */
    bool all_proven;                    /* every dim and every formula      */
    char why[256];                      /* the first thing not proven       */
    char where[160];                    /* "" or the guards (derive.h) the
                                           derivation holds under:
                                           "sequence <= 1024"              */
};

/* Fits the analysis `base` (made with opts, whose unbound symbols were bound
 * to 1) as polynomials in those symbols. Returns OC_ERR_UNSUPPORTED (and no
 * result) when there are none, more than OC_SYM_MAX, or the model is
 * invalid at a probe binding; the caller then keeps the plain analysis. */
enum oc_status oc_symbolic_fit(const struct oc_model *m, const struct oc_analyze_opts *opts,
                               const struct oc_analysis *base, struct oc_symbolic **out, struct oc_diag *d);
/* The pieces of a fit, for derive.h's oc_symbolic_derive: an empty one over
 * base's unbound symbols (OC_ERR_UNSUPPORTED as above); whether base bound
 * each of them to 1; and s fitted on the grid's first npts[j] values of
 * symbol j (checked: also at oc_sym_checks; a grid starting at 1 takes the
 * base analysis as its first point). On failure s is the caller's to free. */
enum oc_status oc_symbolic_for(const struct oc_analysis *base, struct oc_symbolic **out, struct oc_diag *d);
bool oc_symbolic_base_at_one(const struct oc_analysis *base);
enum oc_status oc_symbolic_fit_grid(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                    const struct oc_analysis *base, struct oc_symbolic *s, const int64_t *grid,
                                    const int32_t *npts, bool checked, struct oc_diag *d);
void oc_symbolic_free(struct oc_symbolic *s);
/* A fit of more than OC_SYM_FIT_FREE analyses (two to four symbols the
 * derivation does not fix the degrees of: 18, 29 or 83) is made only while
 * analyses x nodes stays within OC_SYM_FIT_WORK (83 analyses of 3,000
 * nodes, 18 of 13,000); past it, no formulas, and the reason says so. */
enum { OC_SYM_FIT_FREE = 6, OC_SYM_FIT_WORK = 250000 };
/* The probe bindings of a fit: the grid's values for each symbol (the first
 * grid_points[j] of them for symbol j) and the two points it is checked at. */
extern const int64_t oc_sym_grid[OC_SYM_DEGREE + 1];
/* The grid where the derivation bounded every degree beforehand (no checks):
 * 1 (the base analysis itself), 2, 3, 4. */
extern const int64_t oc_sym_grid_derived[OC_SYM_DEGREE + 1];
extern const int64_t oc_sym_checks[2][OC_SYM_MAX];
/* Point r (0 .. the product of npts[0..k)) of the grid whose symbol j takes
 * grid[0 .. npts[j]), symbol 0 varying fastest (the order a fit samples and
 * its proof checks): into at[0..k). */
void oc_sym_grid_point(const int64_t *grid, const int32_t *npts, int32_t k, int32_t r, int64_t *at);
/* An empty one over the given symbol names (borrowed; at most OC_SYM_MAX):
 * its arena for derive.h's polynomials, no fit. NULL when out of memory. */
struct oc_symbolic *oc_symbolic_new(const char *const *names, int32_t n);
/* True when named dims were left unbound (taken as 1): what a fit keeps
 * symbolic. */
bool oc_symbolic_wanted(const struct oc_analysis *an);

/* Writes p into buf: "12*batch*sequence + 768" (ascii) or with "·" and
 * superscripts and thousands separators (pretty). Returns buf. */
const char *oc_poly_format(const struct oc_poly *p, const struct oc_symbolic *s, bool pretty, char *buf,
                           size_t size);
/* Sum of n polynomials (NULL if any is NULL), in s's arena. */
const struct oc_poly *oc_poly_sum(struct oc_symbolic *s, const struct oc_poly *const *ps, int32_t n);
/* Exact value of p at point[0..n_syms); false when it overflows 64 bits. */
bool oc_poly_value(const struct oc_poly *p, const struct oc_symbolic *s, const int64_t *point, int64_t *out);
/* True when p is a constant (then *v holds it). */
bool oc_poly_constant(const struct oc_poly *p, int64_t *v);

#endif
