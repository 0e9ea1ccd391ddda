/*
 * baseline.c — the diff of this report against a previous JSON report:
 * totals (old, new, change, %), nodes added and removed (by name), and per
 * module changes when both reports have modules (--depth).
 */
#include "report_impl.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const oc_base_keys[OC_BASE_COUNT] = {"params", "macs", "flops", "params_bytes",
                                                         "peak_activation_bytes", "activation_bytes"};

static uint64_t oc_base_now(const struct oc_totals *t, int k) {
    switch (k) {
    case OC_BASE_PARAMS:
        return t->params;
    case OC_BASE_MACS:
        return t->macs;
    case OC_BASE_FLOPS:
        return t->flops;
    case OC_BASE_PARAMS_BYTES:
        return t->params_bytes;
    case OC_BASE_PEAK:
        return t->peak_activation_bytes;
    default:
        return t->activation_bytes;
    }
}

static int oc_strcmp_p(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool oc_sorted_has(const char **v, int32_t n, const char *s) {
    return bsearch(&s, v, (size_t)n, sizeof *v, oc_strcmp_p) != NULL;
}

/* Names of this report's nodes, sorted (malloc'd; *n set). */
static const char **oc_now_names(const struct oc_analysis *an, int32_t *n) {
    const struct oc_graph *g = an->graph;
    const char **v = malloc(((size_t)g->n_nodes + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (int32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].name[0])
            v[(*n)++] = g->nodes[i].name;
    qsort(v, (size_t)*n, sizeof *v, oc_strcmp_p);
    return v;
}

static void oc_delta(struct oc_sbuf *b, uint64_t old, uint64_t now) {
    char buf[48];
    oc_sbuf_puts(b, now >= old ? "+" : "-");
    oc_sbuf_puts(b, oc_fmt_thousands(now >= old ? now - old : old - now, buf, sizeof buf));
    if (old)
        oc_sbuf_printf(b, " (%+.1f %%)", 100.0 * ((double)now - (double)old) / (double)old);
}

void oc_baseline_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_baseline *base = spec->baseline;
    char b1[48], b2[48];
    oc_sbuf_puts(b, "Against baseline ");
    oc_sbuf_puts(b, base->path);
    oc_sbuf_puts(b, ":\n");
    bool now_lb = !oc_totals_exact(&an->totals);
    for (int k = 0; k < OC_BASE_COUNT; k++) {
        if (!base->has[k])
            continue;
        uint64_t now = oc_base_now(&an->totals, k);
        bool exact_key = k == OC_BASE_PARAMS || k == OC_BASE_PARAMS_BYTES; /* from the initializers */
        bool lb_old = base->incomplete && !exact_key, lb_now = now_lb && !exact_key;
        oc_sbuf_printf(b, "  %-22s %s%s -> %s%s  ", oc_base_keys[k], lb_old ? ">= " : "",
                       oc_fmt_thousands(base->totals[k], b1, sizeof b1), lb_now ? ">= " : "",
                       oc_fmt_thousands(now, b2, sizeof b2));
        if (lb_old || lb_now)
            oc_sbuf_puts(b, "(a lower bound: the change is not known)");
        else if (now == base->totals[k])
            oc_sbuf_puts(b, "unchanged");
        else
            oc_delta(b, base->totals[k], now);
        oc_sbuf_puts(b, "\n");
    }
    int32_t n_now;
    const char **now = oc_now_names(an, &n_now);
    if (!now) {
        b->oom = true;
        return;
    }
    for (int pass = 0; pass < 2; pass++) { /* 0: added, 1: removed */
        const char **src = pass ? base->node_names : now, **other = pass ? now : base->node_names;
        int32_t n_src = pass ? base->n_nodes : n_now, n_other = pass ? n_now : base->n_nodes, count = 0;
        for (int32_t i = 0; i < n_src; i++)
            count += !oc_sorted_has(other, n_other, src[i]);
        oc_sbuf_printf(b, "  nodes %s: %d", pass ? "removed" : "added", count);
        for (int32_t i = 0, shown = 0; i < n_src && shown < 10; i++)
            if (!oc_sorted_has(other, n_other, src[i])) {
                oc_sbuf_puts(b, shown++ ? ", " : " (");
                oc_sbuf_puts(b, src[i]);
            }
        oc_sbuf_puts(b, count > 10 ? ", ...)\n" : count ? ")\n" : "\n");
    }
    free(now);
    for (int32_t i = 0; spec->modules && i < base->n_modules; i++)
        for (int32_t j = 0; j < spec->n_modules; j++) {
            const struct oc_module *m = &spec->modules[j];
            if (strcmp(m->path, base->modules[i].path) || m->macs == base->modules[i].macs)
                continue;
            oc_sbuf_printf(b, "  module %s MACs %s -> %s  ", m->path,
                           oc_fmt_thousands(base->modules[i].macs, b1, sizeof b1), oc_fmt_thousands(m->macs, b2, sizeof b2));
            oc_delta(b, base->modules[i].macs, m->macs);
            oc_sbuf_puts(b, "\n");
        }
}

struct json_t *oc_baseline_json(const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_baseline *base = spec->baseline;
    json_t *o = json_object(), *tot = json_object(), *added = json_array(), *removed = json_array();
    if (!o || !tot || !added || !removed) {
        json_decref(o), json_decref(tot), json_decref(added), json_decref(removed);
        return NULL;
    }
    json_object_set_new(o, "path", json_string(base->path));
    json_object_set_new(o, "baseline_complete", json_boolean(!base->incomplete));
    for (int k = 0; k < OC_BASE_COUNT; k++) {
        if (!base->has[k])
            continue;
        uint64_t now = oc_base_now(&an->totals, k);
        json_t *e = json_object();
        json_object_set_new(e, "baseline", json_integer((json_int_t)base->totals[k]));
        json_object_set_new(e, "now", json_integer((json_int_t)now));
        json_object_set_new(e, "delta", json_integer((json_int_t)now - (json_int_t)base->totals[k]));
        json_object_set_new(tot, oc_base_keys[k], e);
    }
    json_object_set_new(o, "totals", tot);
    int32_t n_now;
    const char **now = oc_now_names(an, &n_now);
    for (int32_t i = 0; now && i < n_now; i++)
        if (!oc_sorted_has(base->node_names, base->n_nodes, now[i]))
            json_array_append_new(added, json_string(now[i]));
    for (int32_t i = 0; now && i < base->n_nodes; i++)
        if (!oc_sorted_has(now, n_now, base->node_names[i]))
            json_array_append_new(removed, json_string(base->node_names[i]));
    free(now);
    json_object_set_new(o, "nodes_added", added);
    json_object_set_new(o, "nodes_removed", removed);
    return o;
}
