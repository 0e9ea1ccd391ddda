/*
 * budget.c — quantities and budget checks (see budget.h).
 */
#include "budget.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *option, *label;
} oc_budget_keys[] = {
    [OC_BUDGET_PARAMS] = {"max-params", "params"},
    [OC_BUDGET_MACS] = {"max-macs", "MACs"},
    [OC_BUDGET_FLOPS] = {"max-flops", "FLOPs"},
    [OC_BUDGET_PARAMS_BYTES] = {"max-params-size", "params size (bytes)"},
    [OC_BUDGET_PEAK_MEMORY] = {"max-peak-memory", "peak activation memory (bytes)"},
};
_Static_assert(OC_ARRAY_LEN(oc_budget_keys) == OC_BUDGET_COUNT, "budget keys out of sync");

bool oc_budget_key_parse(const char *name, enum oc_budget_key *out) {
    for (int k = 0; k < OC_BUDGET_COUNT; k++) {
        const char *o = oc_budget_keys[k].option;
        size_t n = strlen(o);
        bool same = strlen(name) == n;
        for (size_t i = 0; same && i < n; i++)
            same = name[i] == o[i] || (o[i] == '-' && name[i] == '_');
        if (same) {
            *out = (enum oc_budget_key)k;
            return true;
        }
    }
    return false;
}

const char *oc_budget_key_option(enum oc_budget_key k) {
    return oc_budget_keys[k].option;
}

const char *oc_budget_key_label(enum oc_budget_key k) {
    return oc_budget_keys[k].label;
}

bool oc_quantity_parse(const char *s, uint64_t *out) {
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v >= 0))
        return false;
    static const struct {
        const char *suffix;
        double mul;
    } units[] = {{"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
                 {"Pi", 1125899906842624.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
                 {"", 1.0}};
    for (size_t i = 0; i < OC_ARRAY_LEN(units); i++) {
        size_t n = strlen(units[i].suffix);
        if (strncmp(end, units[i].suffix, n) != 0)
            continue;
        const char *rest = end + n;
        if (*rest == 'B')
            rest++;
        if (*rest)
            continue;
        double r = v * units[i].mul;
        if (!(r < 1.8e19))
            return false;
        *out = (uint64_t)llround(r);
        return true;
    }
    return false;
}

static void oc_budget_values(const struct oc_totals *t, uint64_t value[OC_BUDGET_COUNT]) {
    value[OC_BUDGET_PARAMS] = t->params;
    value[OC_BUDGET_MACS] = t->macs;
    value[OC_BUDGET_FLOPS] = t->flops;
    value[OC_BUDGET_PARAMS_BYTES] = t->params_bytes;
    value[OC_BUDGET_PEAK_MEMORY] = t->peak_activation_bytes;
}

int32_t oc_budget_check(const struct oc_budget *b, const struct oc_totals *t, struct oc_budget_excess out[OC_BUDGET_COUNT]) {
    uint64_t value[OC_BUDGET_COUNT];
    oc_budget_values(t, value);
    int32_t n = 0;
    for (int k = 0; k < OC_BUDGET_COUNT; k++)
        if (b->set[k] && value[k] > b->limit[k])
            out[n++] = (struct oc_budget_excess){(enum oc_budget_key)k, value[k], b->limit[k]};
    return n;
}

int32_t oc_budget_unverified(const struct oc_budget *b, const struct oc_totals *t,
                             struct oc_budget_excess out[OC_BUDGET_COUNT]) {
    uint64_t value[OC_BUDGET_COUNT];
    oc_budget_values(t, value);
    bool saturated = (t->flags & OC_COST_OVERFLOW) != 0;
    const bool lower[OC_BUDGET_COUNT] = {
        [OC_BUDGET_PARAMS] = saturated,
        [OC_BUDGET_MACS] = !oc_totals_exact(t),
        [OC_BUDGET_FLOPS] = !oc_totals_exact(t),
        [OC_BUDGET_PARAMS_BYTES] = saturated,
        [OC_BUDGET_PEAK_MEMORY] = !oc_totals_exact(t) || !t->peak_complete,
    };
    int32_t n = 0;
    for (int k = 0; k < OC_BUDGET_COUNT; k++)
        if (b->set[k] && value[k] <= b->limit[k] && lower[k])
            out[n++] = (struct oc_budget_excess){(enum oc_budget_key)k, value[k], b->limit[k]};
    return n;
}
