/*
 * cost.c — saturating, flagged accumulation of costs (see cost.h).
 */
#include "cost.h"

/* a x b added to *acc, both steps saturating: a product past 64 bits is
   added as 2^64 - 1 (the sum then saturates too), never left out */
static void oc_cost_add(uint64_t *acc, uint64_t a, uint64_t b, uint32_t *flags) {
    uint64_t p;
    bool over = oc_mul_u64(a, b, &p);
    if (oc_add_u64(*acc, p, acc) || over)
        *flags |= OC_COST_OVERFLOW;
}

void oc_cost_add_macs(struct oc_cost *c, uint64_t a, uint64_t b) { oc_cost_add(&c->macs, a, b, &c->flags); }

void oc_cost_add_flops(struct oc_cost *c, uint64_t a, uint64_t b) { oc_cost_add(&c->flops, a, b, &c->flags); }

void oc_sum_u64(uint64_t *acc, uint64_t v, uint32_t *flags) {
    if (oc_add_u64(*acc, v, acc) && flags)
        *flags |= OC_COST_OVERFLOW;
}
