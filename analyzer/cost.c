/*
 * cost.c — saturating, flagged accumulation of costs (see cost.h).
 */
#include "cost.h"

void oc_cost_add_macs(struct oc_cost *c, uint64_t a, uint64_t b) {
    uint64_t p;
    if (oc_mul_u64(a, b, &p) || oc_add_u64(c->macs, p, &c->macs))
        c->flags |= OC_COST_OVERFLOW;
}

void oc_cost_add_flops(struct oc_cost *c, uint64_t a, uint64_t b) {
    uint64_t p;
    if (oc_mul_u64(a, b, &p) || oc_add_u64(c->flops, p, &c->flops))
        c->flags |= OC_COST_OVERFLOW;
}

void oc_sum_u64(uint64_t *acc, uint64_t v, uint32_t *flags) {
    if (oc_add_u64(*acc, v, acc) && flags)
        *flags |= OC_COST_OVERFLOW;
}
