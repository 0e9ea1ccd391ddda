/*
 * cost.h — per-node cost record and the counting conventions.
 *
 * Conventions (docs/COSTS.md has the per-op table):
 *   - 1 MAC = one multiply plus one accumulate, counted for contractions
 *     only (Conv, ConvTranspose, Gemm, MatMul, ...), bias excluded: the
 *     convention of torchvision's published "GFLOPS".
 *   - FLOPs = 2 x MACs + bias adds + the elementwise work of every other op
 *     at its documented per-element rate.
 *   - bytes_read / bytes_written: tensor bytes in their dtypes; ops that only
 *     alias their input (Reshape, Identity, ...) move no bytes.
 * All counts are unsigned 64-bit and saturate with OC_COST_OVERFLOW set.
 */
#ifndef OC_COST_H
#define OC_COST_H

#include "oc.h"

enum oc_cost_flag {
    OC_COST_UNKNOWN = 1u << 0,  /* not modelled (no rule, or shapes unknown): not 0 */
    OC_COST_OVERFLOW = 1u << 1, /* a count saturated at UINT64_MAX                  */
};

struct oc_cost {
    uint64_t macs;
    uint64_t flops;
    uint64_t bytes_read;
    uint64_t bytes_written;
    uint32_t flags;
};

/* c->macs += a*b, saturating at 2^64 - 1 with OC_COST_OVERFLOW in c->flags
 * (a product past 64 bits is added as 2^64 - 1, never dropped); same for
 * flops. */
void oc_cost_add_macs(struct oc_cost *c, uint64_t a, uint64_t b);
void oc_cost_add_flops(struct oc_cost *c, uint64_t a, uint64_t b);
/* Saturating sum helper for totals. */
void oc_sum_u64(uint64_t *acc, uint64_t v, uint32_t *flags);

#endif
