/*
 * fold.h — known contents of small tensors (value propagation).
 *
 * Exported graphs compute shapes with tensor arithmetic: Shape -> Gather ->
 * Mod -> Concat -> Reshape -> Slice -> Cast -> Pad. The analyzer follows that
 * arithmetic by folding: a node whose every input has known contents and
 * whose outputs are small gets its outputs' contents computed by the fold
 * function of its registry row (ops.def), so the next rule can read pads,
 * shapes, axes or scales as numbers.
 *
 * Contents are kept per value in one of two forms, by element type:
 *   integer and bool types: int64 (ival), each within the type's range;
 *   FLOAT, DOUBLE, FLOAT16, BFLOAT16: double (fval), already rounded to the
 *   type (so float32 arithmetic folds as a float32 device computes it).
 * Other types (strings, float8, 4-bit) are never folded.
 *
 * Limits, so that no file can make folding expensive: a tensor of more than
 * OC_FOLD_MAX_ELEMS elements is not folded, and one analysis folds at most
 * OC_FOLD_BUDGET elements in all (subgraphs included); past either, values
 * stay unknown and whatever depends on them is reported as unknown.
 * Initializers and Constant tensors are read only when a fold asks for them:
 * int64, int32 and bool ones (shapes, indices, masks) up to
 * OC_FOLD_MAX_ELEMS elements, any other type (float scales and steps, 8-bit
 * values) only up to OC_FOLD_MAX_FILE_OTHER, so that weights are never read —
 * not even a LayerNorm gain an exporter passes through an Identity.
 */
#ifndef OC_FOLD_H
#define OC_FOLD_H

#include "graph.h"

enum {
    OC_FOLD_MAX_ELEMS = 1 << 16, /* elements of one folded tensor            */
    OC_FOLD_BUDGET = 1 << 22,    /* elements folded by one analysis, in all  */
    OC_FOLD_MAX_FILE_OTHER = 64, /* elements of a non-index tensor read from
                                    the file (float, 8/16-bit integers)      */
};

/* The known contents of one value: exactly one of i and f is set. */
struct oc_known {
    int32_t dtype;
    int32_t rank;
    const struct oc_dim *dims; /* all known */
    int64_t n;                 /* elements  */
    const int64_t *i;          /* integer and bool types */
    const double *f;           /* float types            */
};

/* One output being filled by a fold function: exactly one of i and f. */
struct oc_fold_out {
    struct oc_value *v;
    int32_t dtype;
    int64_t n;
    int64_t *i;
    double *f;
};

/* The values an integer or bool type holds (uint64: only up to INT64_MAX). */
void oc_fold_int_range(int32_t dtype, int64_t *lo, int64_t *hi);
/* True for element types whose contents can be folded. */
bool oc_fold_dtype(int32_t dtype);
/* True when v's contents are known, or could be read from a small
 * initializer or Constant tensor, without reading anything. */
bool oc_fold_available(const struct oc_graph *g, const struct oc_value *v);
/* v's known contents (read from the file on first use, within the limits).
 * False when not known. */
bool oc_fold_get(struct oc_graph *g, struct oc_value *v, struct oc_known *k);
/* Integer contents of an integer or bool value (fold_get); NULL when not
 * known. */
const int64_t *oc_value_ints(struct oc_graph *g, struct oc_value *v, int64_t *n);
/* Starts filling v: its shape must be known, its type foldable, its size
 * within OC_FOLD_MAX_ELEMS and what is left of the analysis' budget (taken
 * here). False (nothing allocated) when it cannot be folded. */
bool oc_fold_begin(struct oc_graph *g, struct oc_arena *a, struct oc_value *v, struct oc_fold_out *o);
/* Attaches the filled contents to the value. */
void oc_fold_commit(struct oc_fold_out *o);

/* Element k of a known tensor, as a double / as an integer (floats must be
 * integral and in range for the latter, else false). */
double oc_known_f(const struct oc_known *k, int64_t at);
bool oc_known_int(const struct oc_known *k, int64_t at, int64_t *out);

/* Stores x at o[at], converted to o's type as Cast does: to a float type
 * rounded to it; to an integer type truncated toward zero, to bool x != 0.
 * False when x is not representable (NaN, infinite or out of range for an
 * integer type: undefined in a runtime): the output must then stay unknown. */
bool oc_fold_put_f(struct oc_fold_out *o, int64_t at, double x);
/* Same for an integer (to a float type: rounded to it); into a narrower
 * integer type it wraps, as a runtime's conversion does (int8 of 200 is
 * -56; bool: x != 0); false only for a negative into uint64. */
bool oc_fold_put_i(struct oc_fold_out *o, int64_t at, int64_t x);
/* o[at] = src[from], converted like the two above. */
bool oc_fold_copy(struct oc_fold_out *o, int64_t at, const struct oc_known *src, int64_t from);

/* x rounded to a float type (FLOAT, FLOAT16, BFLOAT16: nearest, ties to
 * even; DOUBLE: unchanged). */
double oc_round_to_dtype(int32_t dtype, double x);

/* Row-major strides of dims[0..rank) into st (in elements). */
void oc_fold_strides(const struct oc_dim *dims, int32_t rank, int64_t *st);
/* Flat index into a tensor of dims[0..rank) broadcast (numpy rules) to an
 * output of odims[0..orank), of the output's flat index `flat`. */
int64_t oc_fold_bcast_index(const struct oc_dim *dims, int32_t rank, const struct oc_dim *odims, int32_t orank,
                            int64_t flat);
/* Coordinates of flat index `flat` in dims[0..rank) into coord. */
void oc_fold_coords(int64_t flat, const struct oc_dim *dims, int32_t rank, int64_t *coord);

#endif
