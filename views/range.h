/*
 * range.h — a model's totals over a box of dim ranges (`--dim batch=1:64
 * --dim sequence=1:2048`), with the binding that reaches each end
 * (docs/RANGES.md).
 *
 * Two ways, both exact on the integer box:
 *   monotone    every dim of every tensor, every node's costs and the totals, fitted as
 *               polynomials in the dims (symbolic.h) with no negative
 *               coefficient: each figure then never falls when a dim grows
 *               (the liveness peak too: its steps are fixed, each a sum of
 *               such sizes), so the lower corner of the box is every
 *               minimum and the upper corner every maximum; both corners
 *               are analyzed, and the polynomials must give the same totals
 *               there;
 *   enumerated  otherwise (a window padded through Mod, a shape that is not
 *               a polynomial, a coefficient below zero), every binding of
 *               the box is analyzed, up to max_points of them.
 * A box larger than that without the monotone proof is not bounded, and
 * says so. An analysis with nodes without a cost makes its figures lower
 * bounds, as at one binding.
 */
#ifndef OC_RANGE_H
#define OC_RANGE_H

#include "../analyzer/symbolic.h"
#include "budget.h"

enum { OC_RANGE_MAX = OC_SYM_MAX };

struct oc_range_dim {
    const char *name;
    int64_t lo, hi; /* 1 <= lo <= hi */
};

enum oc_range_fig {
    OC_RF_PARAMS,
    OC_RF_PARAMS_BYTES,
    OC_RF_MACS,
    OC_RF_FLOPS,
    OC_RF_INPUT_BYTES,
    OC_RF_ACTIVATION_BYTES,
    OC_RF_PEAK,
    OC_RF_COUNT
};

enum oc_range_method { OC_RANGE_MONOTONE, OC_RANGE_ENUMERATED, OC_RANGE_UNBOUNDED };

struct oc_range_figure {
    uint64_t min, max;
    int64_t argmin[OC_RANGE_MAX], argmax[OC_RANGE_MAX]; /* the ranged dims' values there */
};

/* The largest value of one ranged dim that keeps every budget, with every
 * smaller value of it and every binding of the other ranges. */
struct oc_range_largest {
    bool asked;
    int32_t dim;              /* index into the ranges                          */
    bool found;               /* lo keeps them: value is the answer             */
    int64_t value;            /* the largest kept, with all below it            */
    bool at_end;              /* value is the range's hi: a larger one may keep  */
    int64_t breaks;           /* the first value that does not (when !at_end)   */
    enum oc_budget_key key;   /* a budget it breaks there                       */
    uint64_t figure;          /* that total at the binding `at`                   */
    uint64_t limit;           /* and its limit                                    */
    bool unverified;          /* only a lower bound there, within the limit     */
    int64_t at[OC_SYM_MAX];   /* the binding where it breaks                    */
    int32_t analyses;
};

/* A node's MACs, FLOPs and output bytes over the box. */
enum { OC_RN_MACS, OC_RN_FLOPS, OC_RN_BYTES, OC_RN_COUNT };
struct oc_range_node {
    uint64_t min[OC_RN_COUNT], max[OC_RN_COUNT];
    bool unknown; /* no cost at some binding */
};

struct oc_range_result {
    int32_t n;
    struct oc_range_dim dims[OC_RANGE_MAX];
    enum oc_range_method method;
    uint64_t points;      /* bindings in the box (saturating)           */
    int32_t analyses;     /* analyses made                               */
    char why[256];        /* monotone not proven: why                    */
    struct oc_range_figure fig[OC_RF_COUNT];
    struct oc_totals worst; /* each figure's maximum, flags of every analysis
                               made (a lower bound anywhere makes the
                               maximum one): what budgets check           */
    struct oc_range_largest largest; /* --largest NAME                          */
    struct oc_range_node *nodes;     /* by main-graph node (file order); NULL
                                        when not bounded. oc_range_free.    */
    int32_t n_nodes;
};
void oc_range_free(struct oc_range_result *r);

/* The figure's value in a struct oc_totals. */
uint64_t oc_range_figure_of(const struct oc_totals *t, enum oc_range_fig f);
const char *oc_range_figure_label(enum oc_range_fig f);

/* Totals of m over the box `r` (n <= OC_RANGE_MAX dims) with the other
 * bindings in opts. OC_ERR_USAGE when a ranged name is no input's dim or is
 * also bound in opts; a model invalid at some binding of the box stops with
 * its error (the binding named); OC_ERR_NOMEM. */
enum oc_status oc_range_analyze(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                const struct oc_range_dim *r, int32_t n, uint64_t max_points,
                                struct oc_range_result *out, struct oc_diag *d);

/* out->largest for ranged dim `which` (r as given to oc_range_analyze,
 * which filled out): a bisection on the upper corner's figures when they
 * are monotone, else each value in turn over every binding of the others
 * (the box's points counted against max_points again). Nothing when the
 * box is not bounded. */
enum oc_status oc_range_largest(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                const struct oc_range_dim *r, int32_t n, int32_t which, const struct oc_budget *b,
                                struct oc_range_result *out, struct oc_diag *d);

/* Each main-graph value's largest bytes over the box, every binding
 * analyzed (the box has at most max_points, else OC_ERR_UNSUPPORTED): what
 * one memory plan for every binding must hold. *bytes is malloc'd, one per
 * value (*n_values), UINT64_MAX where a size is not known at some binding.
 * A model invalid at some binding stops with its error (the binding named). */
enum oc_status oc_range_value_bytes(const struct oc_model *m, const struct oc_analyze_opts *opts,
                                    const struct oc_range_dim *r, int32_t n, uint64_t max_points, uint64_t **bytes,
                                    int32_t *n_values, struct oc_diag *d);

/* opts with every ranged dim at its upper (else lower) end, into *out; the
 * bindings it points to are returned, to free() after; NULL when out of
 * memory. */
struct oc_binding *oc_range_corner(const struct oc_analyze_opts *opts, const struct oc_range_dim *r, int32_t n,
                                   bool upper, struct oc_analyze_opts *out);

/* opts with the ranged dims bound at `point` (values in r's order), into
 * `dims` (room for opts->n_dims + n). */
void oc_range_bind(const struct oc_analyze_opts *opts, const struct oc_range_dim *r, int32_t n,
                   const int64_t *point, struct oc_binding *dims, struct oc_analyze_opts *out);

#endif
