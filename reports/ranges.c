/*
 * ranges.c — totals over dim ranges (views/range.h) beside the totals of
 * one binding: a text block and the JSON member "ranges".
 */
#include "report_impl.h"

#include "../views/range.h"

#include <inttypes.h>
#include <jansson.h>

static const char *const oc_range_text_label[OC_RF_COUNT] = {
    "Total params", "Params size (bytes)", "MACs", "FLOPs", "Input size (bytes)",
    "Activations, every output once (bytes)", "Peak activations, liveness (bytes)"};

static void oc_range_point(struct oc_sbuf *b, const struct oc_range_result *r, const int64_t *p) {
    for (int32_t k = 0; k < r->n; k++)
        oc_sbuf_printf(b, "%s%s=%" PRId64, k ? ", " : "", r->dims[k].name, p[k]);
}

static const char *oc_range_method_name(enum oc_range_method m) {
    return m == OC_RANGE_MONOTONE ? "monotone" : m == OC_RANGE_ENUMERATED ? "enumerated" : "unbounded";
}

/* --largest: one sentence (no newline). */
static void oc_range_largest_text(struct oc_sbuf *b, const struct oc_range_result *r) {
    const struct oc_range_largest *L = &r->largest;
    const char *name = r->dims[L->dim].name;
    char t1[32], t2[32];
    if (r->method == OC_RANGE_UNBOUNDED) {
        oc_sbuf_printf(b, "The largest %s keeping every budget is not known: the box is not bounded", name);
        return;
    }
    if (L->found && L->at_end) {
        oc_sbuf_printf(b, "Every %s up to %s (the range's end) keeps every budget", name,
                       oc_fmt_thousands((uint64_t)L->value, t1, sizeof t1));
    } else {
        if (L->found)
            oc_sbuf_printf(b, "The largest %s keeping every budget: %s; at %s: ", name,
                           oc_fmt_thousands((uint64_t)L->value, t1, sizeof t1),
                           oc_fmt_thousands((uint64_t)L->breaks, t2, sizeof t2));
        else
            oc_sbuf_printf(b, "No %s keeps every budget; at %s: ", name,
                           oc_fmt_thousands((uint64_t)L->breaks, t2, sizeof t2));
        oc_sbuf_printf(b, "%s %s%s %s %s at ", oc_budget_key_label(L->key), L->unverified ? ">= " : "",
                       oc_fmt_thousands(L->figure, t1, sizeof t1), L->unverified ? "(a lower bound) <=" : ">",
                       oc_fmt_thousands(L->limit, t2, sizeof t2));
        oc_range_point(b, r, L->at);
    }
    oc_sbuf_printf(b, " (%d analyses)", L->analyses);
}

void oc_ranges_text(struct oc_sbuf *b, const struct oc_report_spec *spec) {
    const struct oc_range_result *r = spec->ranges;
    char t1[32], t2[32];
    oc_sbuf_puts(b, "Over the ranges ");
    for (int32_t k = 0; k < r->n; k++)
        oc_sbuf_printf(b, "%s%s %" PRId64 "..%" PRId64, k ? ", " : "", r->dims[k].name, r->dims[k].lo, r->dims[k].hi);
    oc_sbuf_printf(b, " (%s bindings; the table and totals above are at the upper end, ",
                   oc_fmt_thousands(r->points, t1, sizeof t1));
    int64_t hi[OC_RANGE_MAX];
    for (int32_t k = 0; k < r->n; k++)
        hi[k] = r->dims[k].hi;
    oc_range_point(b, r, hi);
    oc_sbuf_puts(b, "):\n");
    if (r->method == OC_RANGE_UNBOUNDED) {
        oc_sbuf_printf(b, "  NOT BOUNDED: monotone %s; and %s bindings are more than --range-points "
                          "lets analyze one by one\n",
                       r->why, oc_fmt_thousands(r->points, t1, sizeof t1));
        if (r->largest.asked) {
            oc_sbuf_puts(b, "  ");
            oc_range_largest_text(b, r);
            oc_sbuf_puts(b, "\n");
        }
        return;
    }
    bool exact = oc_totals_exact(&r->worst);
    /* "exact" only where the figures are: a saturated count or a node
       without a cost makes them lower bounds, said on the next line */
    if (r->method == OC_RANGE_MONOTONE)
        oc_sbuf_printf(b, "  %sproven monotone: every shape derived through the ops as a polynomial in the dims "
                          "that never falls in the box, and every cost grows with its shapes, so the lower corner is "
                          "each minimum and the upper corner each maximum\n",
                       exact ? "exact, " : "");
    else
        oc_sbuf_printf(b, "  %severy binding analyzed (%d analyses; monotone %s)\n", exact ? "exact: " : "",
                       r->analyses, r->why);
    if (!exact) {
        oc_sbuf_puts(b, "  LOWER BOUNDS: ");
        oc_fmt_incomplete(b, &r->worst);
        oc_sbuf_puts(b, "\n");
    }
    for (int f = 0; f < OC_RF_COUNT; f++) {
        const struct oc_range_figure *g = &r->fig[f];
        bool lower = (f == OC_RF_MACS || f == OC_RF_FLOPS || f == OC_RF_ACTIVATION_BYTES) && !exact;
        lower |= f == OC_RF_PEAK && (!exact || !r->worst.peak_complete);
        oc_sbuf_printf(b, "  %-40s %s[%s, %s]", oc_range_text_label[f], lower ? ">= " : "",
                       oc_fmt_thousands(g->min, t1, sizeof t1), oc_fmt_thousands(g->max, t2, sizeof t2));
        if (g->min != g->max) {
            oc_sbuf_puts(b, "  min at ");
            oc_range_point(b, r, g->argmin);
            oc_sbuf_puts(b, ", max at ");
            oc_range_point(b, r, g->argmax);
        }
        oc_sbuf_puts(b, "\n");
    }
    if (r->largest.asked) {
        oc_sbuf_puts(b, "  ");
        oc_range_largest_text(b, r);
        oc_sbuf_puts(b, "\n");
    }
}

static json_t *oc_range_jpoint(const struct oc_range_result *r, const int64_t *p) {
    json_t *o = json_object();
    for (int32_t k = 0; k < r->n; k++)
        json_object_set_new(o, r->dims[k].name, json_integer(p[k]));
    return o;
}

struct json_t *oc_ranges_json(const struct oc_report_spec *spec) {
    const struct oc_range_result *r = spec->ranges;
    json_t *o = json_object(), *dims = json_object();
    for (int32_t k = 0; k < r->n; k++) {
        json_t *d = json_object();
        json_object_set_new(d, "lo", json_integer(r->dims[k].lo));
        json_object_set_new(d, "hi", json_integer(r->dims[k].hi));
        json_object_set_new(dims, r->dims[k].name, d);
    }
    json_object_set_new(o, "dims", dims);
    json_object_set_new(o, "bindings", json_integer((json_int_t)(r->points > INT64_MAX ? INT64_MAX : r->points)));
    json_object_set_new(o, "method", json_string(oc_range_method_name(r->method)));
    json_object_set_new(o, "not_monotone", r->method == OC_RANGE_MONOTONE ? json_null() : oc_jstr(r->why));
    json_object_set_new(o, "analyses", json_integer(r->analyses));
    const struct oc_range_largest *L = &r->largest;
    if (L->asked) {
        json_t *l = json_object();
        bool known = r->method != OC_RANGE_UNBOUNDED;
        json_object_set_new(l, "dim", json_string(r->dims[L->dim].name));
        json_object_set_new(l, "known", json_boolean(known));
        json_object_set_new(l, "value", known && L->found ? json_integer(L->value) : json_null());
        json_object_set_new(l, "at_range_end", json_boolean(known && L->found && L->at_end));
        bool broke = known && !(L->found && L->at_end);
        json_object_set_new(l, "breaks_at", broke ? json_integer(L->breaks) : json_null());
        json_object_set_new(l, "budget", broke ? json_string(oc_budget_key_option(L->key)) : json_null());
        json_object_set_new(l, "figure", broke ? json_integer((json_int_t)L->figure) : json_null());
        json_object_set_new(l, "limit", broke ? json_integer((json_int_t)L->limit) : json_null());
        json_object_set_new(l, "lower_bound", json_boolean(broke && L->unverified));
        json_object_set_new(l, "binding", broke ? oc_range_jpoint(r, L->at) : json_null());
        json_object_set_new(l, "analyses", json_integer(L->analyses));
        json_object_set_new(o, "largest", l);
    }
    if (r->method == OC_RANGE_UNBOUNDED) {
        json_object_set_new(o, "complete", json_false());
        json_object_set_new(o, "totals", json_null());
        return o;
    }
    json_object_set_new(o, "complete", json_boolean(oc_totals_exact(&r->worst) && r->worst.peak_complete));
    json_t *t = json_object();
    for (int f = 0; f < OC_RF_COUNT; f++) {
        const struct oc_range_figure *g = &r->fig[f];
        json_t *j = json_object();
        json_object_set_new(j, "min", json_integer((json_int_t)g->min));
        json_object_set_new(j, "max", json_integer((json_int_t)g->max));
        json_object_set_new(j, "argmin", oc_range_jpoint(r, g->argmin));
        json_object_set_new(j, "argmax", oc_range_jpoint(r, g->argmax));
        json_object_set_new(t, oc_range_figure_label((enum oc_range_fig)f), j);
    }
    json_object_set_new(o, "totals", t);
    return o;
}

/* "[min, max]" with ">= " for a lower bound, and the bindings at each end. */
static void oc_range_cell(struct oc_sbuf *b, const struct oc_range_result *r, int f, bool markdown) {
    const struct oc_range_figure *g = &r->fig[f];
    char t1[32], t2[32];
    bool exact = oc_totals_exact(&r->worst);
    bool lower = ((f == OC_RF_MACS || f == OC_RF_FLOPS || f == OC_RF_ACTIVATION_BYTES) && !exact) ||
                 (f == OC_RF_PEAK && (!exact || !r->worst.peak_complete));
    oc_sbuf_printf(b, "%s[%s, %s]", lower ? "≥ " : "", oc_fmt_thousands(g->min, t1, sizeof t1),
                   oc_fmt_thousands(g->max, t2, sizeof t2));
    if (g->min == g->max)
        return;
    oc_sbuf_puts(b, markdown ? " | " : " (min at ");
    oc_range_point(b, r, g->argmin);
    oc_sbuf_puts(b, markdown ? " | " : ", max at ");
    oc_range_point(b, r, g->argmax);
    if (!markdown)
        oc_sbuf_puts(b, ")");
}

static void oc_range_head(struct oc_sbuf *b, const struct oc_range_result *r) {
    char t1[32];
    for (int32_t k = 0; k < r->n; k++)
        oc_sbuf_printf(b, "%s%s %" PRId64 "..%" PRId64, k ? ", " : "", r->dims[k].name, r->dims[k].lo, r->dims[k].hi);
    oc_sbuf_printf(b, " (%s bindings; %s", oc_fmt_thousands(r->points, t1, sizeof t1),
                   r->method == OC_RANGE_MONOTONE
                       ? (oc_totals_exact(&r->worst) ? "exact, proven monotone" : "proven monotone, LOWER BOUNDS")
                   : r->method == OC_RANGE_ENUMERATED
                       ? (oc_totals_exact(&r->worst) ? "exact, every binding analyzed"
                                                     : "every binding analyzed, LOWER BOUNDS")
                       : "NOT BOUNDED");
    oc_sbuf_puts(b, "; the figures above are at ");
    int64_t hi[OC_RANGE_MAX];
    for (int32_t k = 0; k < r->n; k++)
        hi[k] = r->dims[k].hi;
    oc_range_point(b, r, hi);
    oc_sbuf_puts(b, ")");
}

void oc_ranges_md(struct oc_sbuf *b, const struct oc_report_spec *spec) {
    const struct oc_range_result *r = spec->ranges;
    oc_sbuf_puts(b, "\n**Over the ranges** ");
    struct oc_sbuf h = {0};
    oc_range_head(&h, r);
    oc_md_text(b, h.p ? h.p : "");
    oc_sbuf_free(&h);
    oc_sbuf_puts(b, "\n\n");
    if (r->method == OC_RANGE_UNBOUNDED) {
        oc_sbuf_puts(b, "> **Not bounded:** monotone ");
        oc_md_text(b, r->why);
        oc_sbuf_puts(b, "; and the box has more bindings than --range-points lets analyze one by one.\n");
        if (r->largest.asked)
            oc_sbuf_printf(b, "\nThe largest %s keeping every budget is not known.\n", r->dims[r->largest.dim].name);
        return;
    }
    if (r->largest.asked) {
        struct oc_sbuf l = {0};
        oc_range_largest_text(&l, r);
        oc_md_text(b, l.p ? l.p : "");
        oc_sbuf_free(&l);
        oc_sbuf_puts(b, ".\n\n");
    }
    oc_sbuf_puts(b, "| total | [min, max] | min at | max at |\n|---|---:|---|---|\n");
    for (int f = 0; f < OC_RF_COUNT; f++) {
        oc_sbuf_printf(b, "| %s | ", oc_range_text_label[f]);
        oc_range_cell(b, r, f, true);
        if (r->fig[f].min == r->fig[f].max)
            oc_sbuf_puts(b, " | | ");
        oc_sbuf_puts(b, " |\n");
    }
}

void oc_ranges_html_head(struct oc_sbuf *b, const struct oc_report_spec *spec) {
    oc_range_head(b, spec->ranges);
}

bool oc_ranges_html_cell(struct oc_sbuf *b, const struct oc_report_spec *spec, int f, const char **label) {
    const struct oc_range_result *r = spec->ranges;
    if (r->method == OC_RANGE_UNBOUNDED || f < 0 || f >= OC_RF_COUNT)
        return false;
    *label = oc_range_text_label[f];
    oc_range_cell(b, r, f, false);
    return true;
}

bool oc_ranges_largest_text(struct oc_sbuf *b, const struct oc_report_spec *spec) {
    if (!spec->ranges->largest.asked)
        return false;
    oc_range_largest_text(b, spec->ranges);
    return true;
}

static const char *const oc_rn_key[OC_RN_COUNT] = {"macs", "flops", "activation_bytes"};

struct json_t *oc_ranges_json_node(const struct oc_report_spec *spec, int32_t node) {
    const struct oc_range_result *r = spec->ranges;
    if (!r->nodes || node < 0 || node >= r->n_nodes)
        return json_null();
    const struct oc_range_node *rn = &r->nodes[node];
    json_t *o = json_object();
    for (int k = 0; k < OC_RN_COUNT; k++) {
        if (rn->unknown && k != OC_RN_BYTES) {
            json_object_set_new(o, oc_rn_key[k], json_null());
            continue;
        }
        json_t *j = json_object();
        json_object_set_new(j, "min", json_integer((json_int_t)rn->min[k]));
        json_object_set_new(j, "max", json_integer((json_int_t)rn->max[k]));
        json_object_set_new(o, oc_rn_key[k], j);
    }
    return o;
}

bool oc_ranges_node_cell(struct oc_sbuf *b, const struct oc_report_spec *spec, int32_t node, int which) {
    const struct oc_range_result *r = spec->ranges;
    if (!r->nodes || node < 0 || node >= r->n_nodes || which < 0 || which >= OC_RN_COUNT)
        return false;
    const struct oc_range_node *rn = &r->nodes[node];
    char t1[32], t2[32];
    if (rn->unknown && which != OC_RN_BYTES)
        oc_sbuf_puts(b, "?");
    else if (rn->min[which] == rn->max[which])
        oc_sbuf_puts(b, oc_fmt_thousands(rn->min[which], t1, sizeof t1));
    else
        oc_sbuf_printf(b, "[%s, %s]", oc_fmt_thousands(rn->min[which], t1, sizeof t1),
                       oc_fmt_thousands(rn->max[which], t2, sizeof t2));
    return true;
}

bool oc_ranges_node_u64(const struct oc_report_spec *spec, int32_t node, int which, uint64_t *min, uint64_t *max) {
    const struct oc_range_result *r = spec->ranges;
    if (!r || !r->nodes || node < 0 || node >= r->n_nodes || which < 0 || which >= OC_RN_COUNT)
        return false;
    const struct oc_range_node *rn = &r->nodes[node];
    if (rn->unknown && which != OC_RN_BYTES)
        return false;
    *min = rn->min[which];
    *max = rn->max[which];
    return true;
}

bool oc_ranges_has_nodes(const struct oc_report_spec *spec) {
    return spec->ranges && spec->ranges->nodes;
}
