/*
 * json.c — the "onnxcost/1" JSON document (docs/JSON.md).
 *
 * Strings and numbers are encoded by jansson. The document is written
 * piecewise, one node object per line, so memory stays flat on graphs of a
 * million nodes. Strings from the file that are not valid UTF-8 are
 * repaired (each bad byte becomes U+FFFD) before encoding.
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"
#include "../analyzer/model.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define OC_JSON_SCHEMA "onnxcost/1"


static json_t *oc_jshape(const struct oc_value *v) {
    if (v->rank < 0)
        return json_null();
    json_t *a = json_array();
    for (int32_t i = 0; a && i < v->rank; i++)
        json_array_append_new(a, v->dims[i].value >= 0 ? json_integer(v->dims[i].value) : json_null());
    return a;
}

static json_t *oc_jdims(int32_t rank, const struct oc_dim *dims) {
    struct oc_value v = {.rank = rank, .dims = (struct oc_dim *)dims};
    return oc_jshape(&v);
}

/* Fields of a sequence or optional output (docs/JSON.md): its tensors' dtype
 * in "dtype", "shape" null, then kind, elem_shape, length / elem_kind,
 * has_element. */
static void oc_jnontensor(json_t *vo, const struct oc_ntype *t) {
    bool seq = t->kind == OC_TYPE_SEQUENCE || t->inner == OC_TYPE_SEQUENCE;
    json_object_set_new(vo, "kind", json_string(t->kind == OC_TYPE_SEQUENCE ? "sequence" : "optional"));
    if (t->kind == OC_TYPE_OPTIONAL) {
        json_object_set_new(vo, "elem_kind", json_string(seq ? "sequence" : "tensor"));
        json_object_set_new(vo, "has_element", t->present < 0 ? json_null() : json_boolean(t->present));
    }
    json_object_set_new(vo, "elem_shape", oc_jdims(t->rank, t->dims));
    if (seq)
        json_object_set_new(vo, "length", t->len < 0 ? json_null() : json_integer(t->len));
}

static const char *oc_node_status_name(enum oc_status s) {
    switch (s) {
    case OC_OK:
        return "ok";
    case OC_ERR_UNSUPPORTED:
        return "unsupported";
    case OC_ERR_SHAPE:
        return "shape_unknown";
    default:
        return "error";
    }
}

/* A fitted formula as a JSON value: an integer when constant, else the
 * ascii formula ("123532032*batch*sequence + 18432*batch*sequence^2"). */
static json_t *oc_jpoly(const struct oc_poly *p, const struct oc_symbolic *s) {
    int64_t k;
    char buf[1024];
    if (!p)
        return json_null();
    if (oc_poly_constant(p, &k))
        return json_integer(k);
    return json_string(oc_poly_format(p, s, false, buf, sizeof buf));
}

static json_t *oc_jshape_expr(const struct oc_value *v, const struct oc_poly *const *polys, const struct oc_symbolic *s) {
    json_t *a = json_array();
    for (int32_t i = 0; a && i < v->rank; i++)
        json_array_append_new(a, oc_jpoly(polys[i], s));
    return a;
}

static json_t *oc_jnode(const struct oc_graph *g, const struct oc_node *n, const struct oc_symbolic *s) {
    json_t *o = json_object();
    json_t *ins = json_array(), *outs = json_array();
    if (!o || !ins || !outs) {
        json_decref(o);
        json_decref(ins);
        json_decref(outs);
        return NULL;
    }
    json_object_set_new(o, "index", json_integer(n->index));
    json_object_set_new(o, "name", oc_jstr(n->name));
    json_object_set_new(o, "op_type", oc_jstr(n->op_type));
    json_object_set_new(o, "domain", oc_jstr(n->domain));
    json_object_set_new(o, "opset", json_integer(n->opset));
    for (int32_t k = 0; k < n->n_in; k++)
        json_array_append_new(ins, n->in[k] >= 0 ? oc_jstr(g->values[n->in[k]].name) : json_null());
    json_object_set_new(o, "inputs", ins);
    for (int32_t k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0)
            continue;
        const struct oc_value *v = &g->values[n->out[k]];
        json_t *vo = json_object();
        json_object_set_new(vo, "name", oc_jstr(v->name));
        json_object_set_new(vo, "dtype", oc_jstr(oc_dtype_name(v->nt ? v->nt->dtype : v->dtype)));
        json_object_set_new(vo, "shape", oc_jshape(v));
        if (s && s->dims && s->dims[n->out[k]] && !v->nt && v->rank >= 0) {
            json_object_set_new(vo, "shape_expr", oc_jshape_expr(v, s->dims[n->out[k]], s));
            /* derived through the ops (exact), or fitted (symbolic.h) */
            json_object_set_new(vo, "shape_expr_derived",
                                json_boolean(s->value_derived && s->value_derived[n->out[k]]));
        }
        if (v->nt)
            oc_jnontensor(vo, v->nt);
        json_array_append_new(outs, vo);
    }
    json_object_set_new(o, "outputs", outs);
    bool unknown = (n->cost.flags & OC_COST_UNKNOWN) != 0;
    json_object_set_new(o, "params", oc_jint(n->params));
    json_object_set_new(o, "macs", unknown ? json_null() : oc_jint(n->cost.macs));
    json_object_set_new(o, "flops", unknown ? json_null() : oc_jint(n->cost.flops));
    json_object_set_new(o, "activation_bytes", oc_jint(n->activation_bytes));
    json_object_set_new(o, "bytes_read", unknown ? json_null() : oc_jint(n->cost.bytes_read));
    json_object_set_new(o, "bytes_written", unknown ? json_null() : oc_jint(n->cost.bytes_written));
    uint64_t moved = n->cost.bytes_read + n->cost.bytes_written;
    json_object_set_new(o, "arithmetic_intensity",
                        unknown || !moved ? json_null() : json_real((double)n->cost.flops / (double)moved));
    json_object_set_new(o, "shares_params", json_boolean(n->shares_params));
    if (n->cost.flags & OC_COST_OVERFLOW) /* a count passed 64 bits: saturated */
        json_object_set_new(o, "overflow", json_true());
    json_object_set_new(o, "status", json_string(oc_node_status_name(n->status)));
    if (n->reason)
        json_object_set_new(o, "reason", oc_jstr(n->reason));
    if (s) {
        json_object_set_new(o, "macs_expr", oc_jpoly(s->nodes[n->index].macs, s));
        json_object_set_new(o, "flops_expr", oc_jpoly(s->nodes[n->index].flops, s));
        json_object_set_new(o, "exprs_proven", json_boolean(s->node_proven && s->node_proven[n->index]));
    }
    return o;
}

static json_t *oc_jsymbolic(const struct oc_symbolic *s) {
    json_t *o = json_object(), *dims = json_array(), *t = json_object();
    if (!o || !dims || !t) {
        json_decref(o);
        json_decref(dims);
        json_decref(t);
        return NULL;
    }
    for (int32_t i = 0; i < s->n_syms; i++)
        json_array_append_new(dims, oc_jstr(s->syms[i]));
    json_object_set_new(o, "dims", dims);
    json_object_set_new(o, "probe_runs", json_integer(s->n_runs));
    json_object_set_new(t, "macs", oc_jpoly(s->macs, s));
    json_object_set_new(t, "flops", oc_jpoly(s->flops, s));
    json_object_set_new(t, "params", oc_jpoly(s->params, s));
    json_object_set_new(t, "activation_bytes", oc_jpoly(s->activation_bytes, s));
    json_object_set_new(t, "input_bytes", oc_jpoly(s->input_bytes, s));
    json_object_set_new(o, "totals", t);
    /* proven: every shape and cost formula derived through the ops (exact
       where holds_where says); else the formulas not marked derived/proven
       are fits that reproduce the probe analyses only */
    json_object_set_new(o, "proven", json_boolean(s->all_proven));
    json_object_set_new(o, "totals_proven", json_boolean(s->totals_proven));
    json_object_set_new(o, "holds_where", s->where[0] ? oc_jstr(s->where) : json_null());
    json_object_set_new(o, "not_proven", s->all_proven ? json_null() : oc_jstr(s->why));
    return o;
}

static json_t *oc_jmodel(const struct oc_analysis *an, const struct oc_report_spec *spec) {
    const struct oc_graph *g = an->graph;
    json_t *m = json_object(), *ops = json_object();
    if (!m || !ops) {
        json_decref(m);
        json_decref(ops);
        return NULL;
    }
    json_object_set_new(m, "path", oc_jstr(spec->model_path));
    json_object_set_new(m, "file_bytes", oc_jint(oc_model_stats(an->model)->file_bytes));
    json_object_set_new(m, "ir_version", json_integer(g->ir_version));
    json_object_set_new(m, "producer_name", oc_jstr(g->producer_name));
    json_object_set_new(m, "producer_version", oc_jstr(g->producer_version));
    json_object_set_new(m, "graph_name", oc_jstr(g->graph_name));
    for (int32_t i = 0; i < g->n_opsets; i++) {
        json_t *key = oc_jstr(g->opsets[i].domain); /* repaired key */
        if (key)
            json_object_set_new(ops, json_string_value(key), json_integer(g->opsets[i].version));
        json_decref(key);
    }
    json_object_set_new(m, "opset_import", ops);
    json_object_set_new(m, "n_nodes", json_integer(g->n_nodes));
    json_object_set_new(m, "n_initializers", json_integer(g->n_inits));
    return m;
}

json_t *oc_json_bindings(const struct oc_analysis *an) {
    json_t *b = json_object();
    for (int32_t i = 0; b && i < an->n_bound; i++) {
        const struct oc_bound_dim *d = &an->bound[i];
        char key[512];
        if (d->name)
            snprintf(key, sizeof key, "%s", d->name);
        else
            snprintf(key, sizeof key, "%s[%d]", d->input, d->axis);
        json_t *k = oc_jstr(key);
        if (k)
            json_object_set_new(b, json_string_value(k), json_integer(d->value));
        json_decref(k);
    }
    return b;
}

static json_t *oc_jtotals(const struct oc_analysis *an) {
    const struct oc_totals *t = &an->totals;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "params", oc_jint(t->params));
    json_object_set_new(o, "trainable_params", oc_jint(t->trainable_params));
    json_object_set_new(o, "non_trainable_params", oc_jint(t->non_trainable_params));
    json_object_set_new(o, "macs", oc_jint(t->macs));
    json_object_set_new(o, "flops", oc_jint(t->flops));
    json_object_set_new(o, "params_bytes", oc_jint(t->params_bytes));
    json_object_set_new(o, "input_bytes", oc_jint(t->input_bytes));
    json_object_set_new(o, "activation_bytes", oc_jint(t->activation_bytes));
    json_object_set_new(o, "bytes_read", oc_jint(t->bytes_read));
    json_object_set_new(o, "bytes_written", oc_jint(t->bytes_written));
    json_object_set_new(o, "peak_activation_bytes", oc_jint(t->peak_activation_bytes));
    json_object_set_new(o, "peak_node", t->peak_node >= 0 ? oc_jstr(an->graph->nodes[t->peak_node].name) : json_null());
    json_object_set_new(o, "peak_complete", json_boolean(t->peak_complete));
    json_object_set_new(o, "overflow", json_boolean(t->flags & OC_COST_OVERFLOW));
    /* false: macs, flops and the activation sizes are lower bounds
     * (coverage.uncosted_nodes lists the nodes without a cost) */
    json_object_set_new(o, "complete", json_boolean(oc_totals_exact(t)));
    return o;
}

static json_t *oc_jop_types(const struct oc_analysis *an) {
    json_t *a = json_array();
    for (int32_t i = 0; a && i < an->n_op_stats; i++) {
        const struct oc_op_stat *s = &an->op_stats[i];
        json_t *e = json_object();
        json_object_set_new(e, "domain", oc_jstr(s->domain));
        json_object_set_new(e, "op_type", oc_jstr(s->op_type));
        json_object_set_new(e, "count", json_integer(s->count));
        json_object_set_new(e, "uncosted", json_integer(s->uncosted));
        json_object_set_new(e, "macs", oc_jint(s->macs));
        json_object_set_new(e, "flops", oc_jint(s->flops));
        json_object_set_new(e, "params", oc_jint(s->params));
        json_object_set_new(e, "activation_bytes", oc_jint(s->activation_bytes));
        json_array_append_new(a, e);
    }
    return a;
}

static json_t *oc_jmodules(const struct oc_report_spec *spec) {
    json_t *a = json_array();
    for (int32_t i = 0; a && i < spec->n_modules; i++) {
        const struct oc_module *m = &spec->modules[i];
        json_t *e = json_object();
        json_object_set_new(e, "path", oc_jstr(m->path));
        json_object_set_new(e, "depth", json_integer(m->depth));
        json_object_set_new(e, "nodes", json_integer(m->n_nodes));
        json_object_set_new(e, "uncosted", json_integer(m->n_uncosted));
        json_object_set_new(e, "params", oc_jint(m->params));
        json_object_set_new(e, "macs", oc_jint(m->macs));
        json_object_set_new(e, "flops", oc_jint(m->flops));
        json_object_set_new(e, "activation_bytes", oc_jint(m->activation_bytes));
        if (spec->sym) {
            json_object_set_new(e, "macs_expr", oc_jpoly(m->macs_poly, spec->sym));
            json_object_set_new(e, "flops_expr", oc_jpoly(m->flops_poly, spec->sym));
        }
        json_array_append_new(a, e);
    }
    return a;
}

static json_t *oc_jtraining(const struct oc_training *tr) {
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "optimizer", json_string(oc_optimizer_name(tr->optimizer)));
    json_object_set_new(o, "batch", tr->batch > 0 ? json_integer(tr->batch) : json_null());
    json_object_set_new(o, "param_bytes", oc_jint(tr->param_bytes));
    json_object_set_new(o, "grad_bytes", oc_jint(tr->grad_bytes));
    json_object_set_new(o, "optimizer_bytes", oc_jint(tr->optimizer_bytes));
    json_object_set_new(o, "saved_activation_bytes", oc_jint(tr->saved_bytes));
    json_object_set_new(o, "saved_rules", oc_saved_rules_json(tr->saved_rules));
    json_object_set_new(o, "export_signs", oc_export_signs_json(&tr->signs));
    json_object_set_new(o, "with_signs", oc_training_alts_json(tr));
    json_object_set_new(o, "training_dropouts", json_integer(tr->training_dropouts));
    json_object_set_new(o, "total_bytes", oc_jint(tr->total_bytes));
    json_object_set_new(o, "step_flops", oc_jint(tr->step_flops));
    json_object_set_new(o, "samples", tr->samples > 0 ? json_integer(tr->samples) : json_null());
    json_object_set_new(o, "epoch_flops", tr->samples > 0 && tr->batch > 0 ? oc_jint(tr->epoch_flops) : json_null());
    json_object_set_new(o, "complete", json_boolean(tr->complete));
    return o;
}

static json_t *oc_jcoverage(const struct oc_analysis *an) {
    const struct oc_totals *t = &an->totals;
    json_t *o = json_object(), *u = json_array();
    if (!o || !u) {
        json_decref(o);
        json_decref(u);
        return NULL;
    }
    json_object_set_new(o, "nodes", json_integer(t->n_nodes));
    json_object_set_new(o, "shaped_nodes", json_integer(t->n_shaped));
    json_object_set_new(o, "nodes_without_rule", json_integer(t->n_no_rule));
    json_object_set_new(o, "nodes_without_cost", json_integer(t->n_uncosted));
    for (int32_t i = 0; i < an->n_unsupported; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "domain", oc_jstr(an->unsupported[i].domain));
        json_object_set_new(e, "op_type", oc_jstr(an->unsupported[i].op_type));
        json_object_set_new(e, "count", json_integer(an->unsupported[i].count));
        json_array_append_new(u, e);
    }
    json_object_set_new(o, "unsupported_ops", u);
    /* every node without a cost, in topological order, with why */
    json_t *nc = json_array();
    const struct oc_graph *g = an->graph;
    for (int32_t r = 0; nc && r < g->n_nodes; r++) {
        const struct oc_node *nd = &g->nodes[g->order[r]];
        if (!(nd->cost.flags & OC_COST_UNKNOWN))
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "index", json_integer(nd->index));
        json_object_set_new(e, "name", oc_jstr(nd->name));
        json_object_set_new(e, "op_type", oc_jstr(nd->op_type));
        json_object_set_new(e, "domain", oc_jstr(nd->domain));
        json_object_set_new(e, "reason", oc_jstr(nd->reason ? nd->reason : oc_status_str(nd->status)));
        json_object_set_new(e, "downstream", json_boolean(nd->upstream));
        json_array_append_new(nc, e);
    }
    json_object_set_new(o, "uncosted_nodes", nc);
    return o;
}

/* Hands one member to fn and releases it; a NULL value is out of memory. */
static enum oc_status oc_member(oc_json_member_fn fn, void *arg, const char *key, int32_t index, json_t *j,
                                struct oc_diag *d) {
    if (!j)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    enum oc_status st = fn(arg, key, index, j, d);
    json_decref(j);
    return st;
}

enum oc_status oc_json_members(const struct oc_analysis *an, const struct oc_report_spec *spec, const char *only,
                               oc_json_member_fn fn, void *arg, struct oc_diag *d) {
    const struct oc_graph *g = an->graph;
#define OC_WANT(key) (!only || strcmp(only, key) == 0)
    enum oc_status st = OC_OK;
    if (OC_WANT("schema"))
        st = oc_member(fn, arg, "schema", -1, json_string(OC_JSON_SCHEMA), d);
    if (st == OC_OK && OC_WANT("model"))
        st = oc_member(fn, arg, "model", -1, oc_jmodel(an, spec), d);
    if (st == OC_OK && OC_WANT("bindings"))
        st = oc_member(fn, arg, "bindings", -1, oc_json_bindings(an), d);
    if (st == OC_OK && spec->sym && OC_WANT("symbolic"))
        st = oc_member(fn, arg, "symbolic", -1, oc_jsymbolic(spec->sym), d);
    if (st == OC_OK && OC_WANT("nodes")) {
        int32_t n_rows;
        int32_t *rows = oc_report_rows(an, spec, &n_rows);
        if (!rows)
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
        st = oc_member(fn, arg, "nodes", -1, json_array(), d);
        for (int32_t i = 0; i < n_rows && st == OC_OK; i++) {
            json_t *jn = oc_jnode(g, &g->nodes[rows[i]], spec->sym);
            if (jn && spec->gpu && json_object_set_new(jn, "gpu", oc_gpu_json_node(&spec->gpu->perf->nodes[rows[i]])))
                jn = (json_decref(jn), NULL);
            if (jn && spec->measured && json_object_set_new(jn, "measured", oc_measured_json_node(spec->measured, spec->gpu ? spec->gpu->perf : NULL, rows[i])))
                jn = (json_decref(jn), NULL);
            if (jn && spec->ranges && json_object_set_new(jn, "range", oc_ranges_json_node(spec, rows[i])))
                jn = (json_decref(jn), NULL);
            st = oc_member(fn, arg, "nodes", i, jn, d);
        }
        free(rows);
    }
    if (st == OC_OK && OC_WANT("totals"))
        st = oc_member(fn, arg, "totals", -1, oc_jtotals(an), d);
    if (st == OC_OK && OC_WANT("op_types"))
        st = oc_member(fn, arg, "op_types", -1, oc_jop_types(an), d);
    if (st == OC_OK && spec->modules && OC_WANT("modules"))
        st = oc_member(fn, arg, "modules", -1, oc_jmodules(spec), d);
    if (st == OC_OK && spec->training && OC_WANT("training"))
        st = oc_member(fn, arg, "training", -1, oc_jtraining(spec->training), d);
    if (st == OC_OK && spec->baseline && OC_WANT("baseline"))
        st = oc_member(fn, arg, "baseline", -1, oc_baseline_json(an, spec), d);
    if (st == OC_OK && spec->gpu && OC_WANT("gpu"))
        st = oc_member(fn, arg, "gpu", -1, oc_gpu_json(an, spec), d);
    if (st == OC_OK && spec->ranges && OC_WANT("ranges"))
        st = oc_member(fn, arg, "ranges", -1, oc_ranges_json(spec), d);
    if (st == OC_OK && spec->lint && OC_WANT("lint"))
        st = oc_member(fn, arg, "lint", -1, oc_lint_json_member(an, spec->lint, spec->gpu && spec->gpu->perf), d);
    if (st == OC_OK && spec->measured && OC_WANT("measured"))
        st = oc_member(fn, arg, "measured", -1, oc_measured_json(an, spec), d);
    if (st == OC_OK && OC_WANT("coverage"))
        st = oc_member(fn, arg, "coverage", -1, oc_jcoverage(an), d);
    if (st != OC_OK || !OC_WANT("warnings"))
        return st;
#undef OC_WANT
    json_t *w = json_array();
    for (int32_t i = 0; w && an->model && i < oc_model_n_warnings(an->model); i++) /* about the file */
        json_array_append_new(w, oc_jstr(oc_model_warning(an->model, i)));
    for (int32_t i = 0; w && i < an->n_warnings; i++)
        json_array_append_new(w, oc_jstr(an->warnings[i]));
    return oc_member(fn, arg, "warnings", -1, w, d);
}

/* The text of the document: one member per line, one node per line inside
 * "nodes", flushed every 64 KiB. */
struct oc_json_writer {
    const struct oc_report_spec *spec;
    struct oc_sbuf b;
    int32_t n_nodes;   /* node rows written                  */
    bool in_nodes;     /* the "nodes" array is open           */
};

static enum oc_status oc_json_write_member(void *arg, const char *key, int32_t index, const json_t *value,
                                           struct oc_diag *d) {
    struct oc_json_writer *w = arg;
    bool node = index >= 0;
    if (w->in_nodes && !node) {
        oc_sbuf_puts(&w->b, w->n_nodes ? "\n  ]" : "]");
        w->in_nodes = false;
    }
    if (node) {
        oc_sbuf_puts(&w->b, w->n_nodes++ ? ",\n    " : "\n    ");
    } else {
        oc_sbuf_printf(&w->b, "%s  \"%s\": ", strcmp(key, "schema") ? ",\n" : "{\n", key);
        if (strcmp(key, "nodes") == 0) { /* the rows follow one by one */
            oc_sbuf_puts(&w->b, "[");
            w->in_nodes = true;
            return OC_OK;
        }
    }
    char *s = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s || oc_json_incomplete()) {
        free(s);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    }
    oc_sbuf_puts(&w->b, s);
    free(s);
    if (w->b.oom)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    return w->b.n > 1 << 16 ? oc_sbuf_flush(&w->b, w->spec, d) : OC_OK;
}

enum oc_status oc_render_json(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_json_writer w = {spec, {0}, 0, false};
    enum oc_status st = oc_json_members(an, spec, NULL, oc_json_write_member, &w, d);
    if (st == OC_OK) {
        oc_sbuf_puts(&w.b, "\n}\n");
        st = oc_sbuf_flush(&w.b, spec, d);
    }
    oc_sbuf_free(&w.b);
    return st;
}
