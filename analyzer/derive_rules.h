/*
 * derive_rules.h — what a derivation rule (derive_ops.c) sees: the private
 * contract between the engine (derive.c) and the rules. See derive.h.
 *
 * A rule derives one node's outputs from its inputs' derived dims and
 * contents. It sets them with oc_d_out_dims / oc_d_out_cont and returns
 * true; or returns false after oc_d_fail (the outputs are then not derived).
 * An output it leaves alone stays not derived. Rules never read the base
 * analysis's values of symbol-dependent quantities except through the
 * derived polynomials: those values hold at one binding only.
 */
#ifndef OC_DERIVE_RULES_H
#define OC_DERIVE_RULES_H

#include "derive.h"

/* Contents are followed for integer tensors of at most this many elements
   (shape vectors, axes, pads, sizes). */
enum { OC_D_MAX_CONT = 64 };
/* int64 contents recorded where the box has no upper end and they may pass
   64 bits (derive.c bounds the dims to where none does). */
enum { OC_D_MAX_WIDE = 256 };

struct oc_dctx {
    struct oc_symbolic *s;
    const struct oc_graph *g;
    int32_t k;                              /* symbols                         */
    int64_t lo[OC_SYM_MAX], hi[OC_SYM_MAX]; /* the region                      */
    struct oc_derived *out;
    int32_t *n_cont;              /* [value]: elements derived, -1   */
    const struct oc_poly ***cont; /* [value][element]                */
    char why[200];                /* the failing rule's reason       */
    const struct oc_poly *wide[OC_D_MAX_WIDE]; /* see OC_D_MAX_WIDE       */
    bool wide_unsigned[OC_D_MAX_WIDE];
    int32_t n_wide;
    int32_t node;      /* the node being derived                        */
    int32_t wide_node; /* the node that recorded the first wide content */
};

typedef bool (*oc_derive_fn)(struct oc_dctx *c, const struct oc_node *n);

struct oc_derive_rule {
    const char *domain; /* "" = ai.onnx                                     */
    const char *op_type;
    oc_derive_fn fn;
    enum oc_derive_cost cost;
};
/* The rule for an op, or NULL. */
const struct oc_derive_rule *oc_derive_rule_for(const char *domain, const char *op_type);

/* ---- for rules ------------------------------------------------------------------------ */

/* Records why the rule cannot derive the node; returns false. */
bool oc_d_fail(struct oc_dctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Input i's value index, -1 when omitted or out of range. */
int32_t oc_d_in(const struct oc_node *n, int32_t i);
/* A value's rank in the base analysis (-1 unknown) and derived dims. */
int32_t oc_d_rank(const struct oc_dctx *c, int32_t v);
const struct oc_poly *oc_d_dim(const struct oc_dctx *c, int32_t v, int32_t axis);
/* A value's derived contents: true with *n elements (each non-NULL). */
bool oc_d_cont(const struct oc_dctx *c, int32_t v, const struct oc_poly *const **p, int32_t *n);
/* Fails naming value v's values as not derived: "WHAT ('name', from Op)". */
bool oc_d_fail_values(struct oc_dctx *c, int32_t v, const char *what);
/* Contents that do not depend on the symbols, as integers: true with *n
   elements (at most cap). */
bool oc_d_const_ints(const struct oc_dctx *c, int32_t v, int64_t *buf, int32_t cap, int32_t *n);
/* The same for a float tensor (Resize scales): true with *n elements. */
bool oc_d_const_floats(const struct oc_dctx *c, int32_t v, double *buf, int32_t cap, int32_t *n);

/* Sets a value's dims (rank entries, NULL entries not derived) or contents. */
void oc_d_out_dims(struct oc_dctx *c, int32_t v, const struct oc_poly *const *dims, int32_t rank);
void oc_d_out_cont(struct oc_dctx *c, int32_t v, const struct oc_poly *const *elems, int32_t n);

/* The sign of p over the whole region: -1, 0 or 1 when every binding gives
   that sign; 2 when it is not decided. */
int oc_d_sign(const struct oc_dctx *c, const struct oc_poly *p);
/* p >= 0 over the region: true when decided so, or when undecided and
   recorded as a guard (derive.h); false when decided otherwise or no room
   for another guard. */
bool oc_d_assume_nonneg(struct oc_dctx *c, const struct oc_poly *p);
/* The polynomial's constant value, when it has no symbol. */
bool oc_d_is_const(const struct oc_poly *p, int64_t *v);

#endif
