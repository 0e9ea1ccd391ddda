/*
 * finding.c — what the lint rules share to record a finding: its message,
 * its nodes and values, and what acting on it saves (rules.h).
 */
#include "rules.h"

struct oc_lint_finding *oc_lint_add(struct oc_lint_ctx *c, enum oc_lint_rule_id rule, const char *fmt, ...) {
    struct oc_lint_result *r = c->out;
    if (r->n_findings == c->cap) {
        int32_t cap = c->cap ? 2 * c->cap : 16;
        struct oc_lint_finding *f = realloc(r->findings, (size_t)cap * sizeof *f);
        if (!f)
            return NULL;
        r->findings = f;
        c->cap = cap;
    }
    struct oc_lint_finding *f = &r->findings[r->n_findings++];
    memset(f, 0, sizeof *f);
    f->rule = rule;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return f;
}

/* Appends x to the array *a of *n entries; false when out of memory. */
static bool oc_lint_append(int32_t **a, int32_t *n, int32_t x) {
    int32_t *p = realloc(*a, ((size_t)*n + 1) * sizeof *p);
    if (!p)
        return false;
    *a = p;
    p[(*n)++] = x;
    return true;
}

/* Records value v, or node i, in f; false when out of memory. */
bool oc_lint_value(struct oc_lint_finding *f, int32_t v) {
    return oc_lint_append(&f->values, &f->n_values, v);
}

bool oc_lint_node(struct oc_lint_finding *f, int32_t i) {
    return oc_lint_append(&f->nodes, &f->n_nodes, i);
}

/* Bytes (priced as --dtype prices the model, as its Params size is) and
   float elements of an initializer. */
static void oc_weight_size(const struct oc_graph *g, const struct oc_value *v, int64_t *bytes, int64_t *params) {
    uint64_t b = 0, n = 0;
    *bytes = oc_value_bytes_priced(g, v, &b) && b <= INT64_MAX ? (int64_t)b : 0;
    *params = oc_dtype_is_float(v->dtype) && oc_value_numel(v, &n) && n <= INT64_MAX ? (int64_t)n : 0;
}

/* Sums that stop at the ends of their type (counts from a hostile file's
   dims can be near them). */
static void oc_sat_u64(uint64_t *a, uint64_t b) {
    *a = *a > UINT64_MAX - b ? UINT64_MAX : *a + b;
}

void oc_lint_sat_i64(int64_t *a, int64_t b) {
    if (b > 0 && *a > INT64_MAX - b)
        *a = INT64_MAX;
    else if (b < 0 && *a < INT64_MIN - b)
        *a = INT64_MIN;
    else
        *a += b;
}

/* Weight v's bytes and parameters, with sign (+1 removed, -1 added), into
   f's saving. A weight removed is counted once over all findings: false
   (nothing added) when another finding has it already. */
bool oc_lint_saving_weight(struct oc_lint_ctx *c, struct oc_lint_finding *f, int32_t v, int sign) {
    if (sign > 0 && c->removed[v])
        return false;
    int64_t bytes, params;
    oc_weight_size(c->g, &c->g->values[v], &bytes, &params);
    oc_lint_sat_i64(&f->saving.weight_bytes, sign > 0 ? bytes : -bytes);
    oc_lint_sat_i64(&f->saving.params, sign > 0 ? params : -params);
    if (sign > 0)
        c->removed[v] = true;
    return true;
}

/* A node's cost as what removing it saves. */
void oc_lint_node_saving(const struct oc_lint_ctx *c, int32_t i, struct oc_lint_saving *s) {
    const struct oc_node *n = &c->g->nodes[i];
    if (n->cost.flags & OC_COST_UNKNOWN)
        return;
    oc_sat_u64(&s->macs, n->cost.macs);
    oc_sat_u64(&s->flops, n->cost.flops);
    oc_sat_u64(&s->bytes_moved, n->cost.bytes_read);
    oc_sat_u64(&s->bytes_moved, n->cost.bytes_written);
    if (c->o->perf && i < c->o->perf->n_nodes && c->o->perf->nodes[i].known)
        s->time_s += c->o->perf->nodes[i].time;
}

const char *oc_lint_vname(const struct oc_value *v) {
    return v->name && v->name[0] ? v->name : "(unnamed)";
}

void oc_lint_shape_text(const struct oc_value *v, char *buf, size_t size) {
    size_t o = (size_t)snprintf(buf, size, "[");
    for (int32_t k = 0; k < v->rank && o < size; k++)
        o += (size_t)snprintf(buf + o, size - o, "%s%lld", k ? ", " : "", (long long)v->dims[k].value);
    if (o < size)
        snprintf(buf + o, size - o, "]");
}

/* t += s, each figure stopping at the ends of its type. */
void oc_lint_saving_add(struct oc_lint_saving *t, const struct oc_lint_saving *s) {
    oc_lint_sat_i64(&t->params, s->params);
    oc_lint_sat_i64(&t->weight_bytes, s->weight_bytes);
    oc_sat_u64(&t->macs, s->macs);
    oc_sat_u64(&t->flops, s->flops);
    oc_sat_u64(&t->bytes_moved, s->bytes_moved);
    oc_sat_u64(&t->input_bytes, s->input_bytes);
    oc_sat_u64(&t->peak_bytes, s->peak_bytes);
    t->time_s += s->time_s;
}
