/*
 * budget.h — CI budgets: limits on the totals of an analysis.
 *
 * Quantities are parsed from "30M", "5G", "2GiB", "512MB", "1.5e9" or a
 * plain integer: SI suffixes k/K, M, G, T, P are powers of 1000, IEC
 * suffixes Ki, Mi, Gi, Ti, Pi powers of 1024, an optional trailing "B" is
 * ignored. Checking compares each set limit with the totals.
 */
#ifndef OC_BUDGET_H
#define OC_BUDGET_H

#include "../analyzer/analyze.h"

enum oc_budget_key {
    OC_BUDGET_PARAMS,
    OC_BUDGET_MACS,
    OC_BUDGET_FLOPS,
    OC_BUDGET_PARAMS_BYTES,
    OC_BUDGET_PEAK_MEMORY,
    OC_BUDGET_COUNT
};

struct oc_budget {
    bool set[OC_BUDGET_COUNT];
    uint64_t limit[OC_BUDGET_COUNT];
    const char *text[OC_BUDGET_COUNT]; /* the limit as the user wrote it */
};

struct oc_budget_excess {
    enum oc_budget_key key;
    uint64_t value, limit;
};

/* "max-macs" / "max_macs" -> key; false if unknown. */
bool oc_budget_key_parse(const char *name, enum oc_budget_key *out);
/* CLI spelling "--max-macs" of a key, and what it measures ("MACs"). */
const char *oc_budget_key_option(enum oc_budget_key k);
const char *oc_budget_key_label(enum oc_budget_key k);
/* Parses a quantity (see above); false on junk or overflow. */
bool oc_quantity_parse(const char *s, uint64_t *out);
/* The limits exceeded by the totals, in key order; returns how many. */
int32_t oc_budget_check(const struct oc_budget *b, const struct oc_totals *t, struct oc_budget_excess out[OC_BUDGET_COUNT]);
/* The set limits that the totals do not exceed but cannot prove kept,
 * because what they limit is a lower bound (oc_totals_exact: MACs and FLOPs
 * of an analysis with nodes without a cost, a peak with unknown sizes, any
 * total once a count saturated); in key order, returns how many. Parameter
 * counts come from the initializers and are exact otherwise. */
int32_t oc_budget_unverified(const struct oc_budget *b, const struct oc_totals *t,
                             struct oc_budget_excess out[OC_BUDGET_COUNT]);

#endif
