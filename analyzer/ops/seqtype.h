/*
 * ops/seqtype.h — type arithmetic of sequences and optionals (struct
 * oc_ntype, graph.h), shared by the sequence ops (sequence.c) and the ops
 * that pass any value through (Identity in layout.c, If and Loop in
 * control.c).
 */
#ifndef OC_OPS_SEQTYPE_H
#define OC_OPS_SEQTYPE_H

#include "../ops.h"

/* Output k := what is known of a value that is either a or b (b NULL: a),
 * for values of any kind. Dims that differ become unknown (a rank that
 * differs: the rank), as do a sequence's length and bytes and an optional's
 * presence; an empty sequence or optional does not constrain the shape of
 * the other's tensors. Values of different kinds give an untyped output. */
enum oc_status oc_set_out_union(struct oc_op_ctx *c, int32_t k, const struct oc_value *a, const struct oc_value *b);

/* The sequence a value is or holds (a sequence, or an optional holding one),
 * NULL otherwise. */
const struct oc_ntype *oc_seq_of(const struct oc_value *v);

/* A copy of sequence description s (kind and presence kept) with `len`
 * tensors: the bytes are len x a tensor's bytes when its dims are known,
 * else unknown. */
const struct oc_ntype *oc_seq_with_len(struct oc_op_ctx *c, const struct oc_ntype *s, int64_t len);

#endif
