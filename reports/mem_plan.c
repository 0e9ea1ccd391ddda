/*
 * mem_plan.c — `onnxcost plan`: the static memory plan (views/mem_plan.h) as a text,
 * Markdown or CSV table of the buffers, or a JSON document a code generator
 * reads (schema onnxcost-plan/1, docs/JSON.md).
 */
#include "report_impl.h"

#include "../views/mem_plan.h"
#include "../views/range.h"

#include <inttypes.h>
#include <jansson.h>

static const char *oc_plan_role_name(enum oc_plan_role r) {
    return r == OC_PLAN_INPUT ? "input" : r == OC_PLAN_OUTPUT ? "output" : "activation";
}

static const char *oc_planner_name(enum oc_planner p) {
    return p == OC_PLANNER_SIZE ? "size" : "order";
}

static const char *oc_planner_words(enum oc_planner p) {
    return p == OC_PLANNER_SIZE ? "greedy by size" : "in execution order (ONNX Runtime's memory pattern)";
}

static json_t *oc_plan_json(const struct oc_analysis *an, const struct oc_plan *p, bool verified,
                            const struct oc_report_spec *spec) {
    const struct oc_graph *g = an->graph;
    json_t *doc = json_object();
    json_object_set_new(doc, "schema", json_string("onnxcost-plan/1"));
    json_object_set_new(doc, "model", oc_jstr(spec->model_path ? spec->model_path : ""));
    json_object_set_new(doc, "bindings", oc_json_bindings(an));
    if (spec->ranges) { /* the box the plan holds for: sized at its upper corner */
        json_t *r = json_object();
        for (int32_t k = 0; k < spec->ranges->n; k++) {
            json_t *d = json_object();
            json_object_set_new(d, "lo", json_integer(spec->ranges->dims[k].lo));
            json_object_set_new(d, "hi", json_integer(spec->ranges->dims[k].hi));
            json_object_set_new(r, spec->ranges->dims[k].name, d);
        }
        json_object_set_new(doc, "holds_for", r);
    } else {
        json_object_set_new(doc, "holds_for", json_null());
    }
    json_object_set_new(doc, "planner", json_string(oc_planner_name(p->planner)));
    json_object_set_new(doc, "alignment", json_integer((json_int_t)p->align));
    json_object_set_new(doc, "inplace", json_boolean(p->inplace));
    json_object_set_new(doc, "arena_bytes", json_integer((json_int_t)p->arena_bytes));
    json_object_set_new(doc, "lower_bound_bytes", json_integer((json_int_t)p->lower_bound_bytes));
    json_object_set_new(doc, "lower_bound_step", json_integer(p->lower_bound_step));
    json_object_set_new(doc, "other_planner", json_string(oc_planner_name(p->planner == OC_PLANNER_SIZE
                                                                             ? OC_PLANNER_ORDER
                                                                             : OC_PLANNER_SIZE)));
    json_object_set_new(doc, "other_arena_bytes", json_integer((json_int_t)p->other_arena_bytes));
    json_object_set_new(doc, "verified", json_boolean(verified));
    json_object_set_new(doc, "steps", json_integer(p->n_steps));
    json_object_set_new(doc, "subgraph_nodes_not_planned", json_integer(p->n_subgraph_nodes));
    json_t *order = json_array();
    for (int32_t s = 0; s < p->n_steps; s++)
        json_array_append_new(order, json_integer(g->order[s]));
    json_object_set_new(doc, "order", order);
    json_t *bufs = json_array();
    for (int32_t i = 0; i < p->n_buffers; i++) {
        const struct oc_plan_buffer *b = &p->buffers[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", oc_jstr(g->values[b->value].name));
        json_object_set_new(o, "role", json_string(oc_plan_role_name(b->role)));
        json_object_set_new(o, "offset", json_integer((json_int_t)b->offset));
        json_object_set_new(o, "size", json_integer((json_int_t)b->size));
        json_object_set_new(o, "bytes", json_integer((json_int_t)b->bytes));
        json_object_set_new(o, "first", json_integer(b->first));
        json_object_set_new(o, "last", json_integer(b->last));
        json_t *vals = json_array();
        for (int32_t v = 0; v < p->n_values; v++)
            if (p->buffer_of[v] == i)
                json_array_append_new(vals, oc_jstr(g->values[v].name));
        json_object_set_new(o, "values", vals);
        json_array_append_new(bufs, o);
    }
    json_object_set_new(doc, "buffers", bufs);
    return doc;
}

enum oc_status oc_report_plan(const struct oc_analysis *an, const struct oc_plan *p,
                              const struct oc_report_spec *spec, struct oc_diag *d) {
    int32_t fa, fb;
    bool verified = oc_plan_verify(p, &fa, &fb);
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON) {
        oc_sbuf_json(&b, oc_plan_json(an, p, verified, spec));
        return oc_sbuf_flush(&b, spec, d);
    }
    const struct oc_graph *g = an->graph;
    char t1[32], t2[32];
    if (spec->format == OC_FORMAT_TEXT || spec->format == OC_FORMAT_MD) {
        oc_sbuf_printf(&b, "%sStatic memory plan of %s: %d buffers over %d steps, %s, %" PRIu64 "-byte alignment%s\n",
                       spec->format == OC_FORMAT_MD ? "## " : "", spec->model_path ? spec->model_path : "",
                       p->n_buffers, p->n_steps, oc_planner_words(p->planner), p->align,
                       p->inplace ? ", in-place reuse on" : "");
        if (spec->format == OC_FORMAT_MD)
            oc_sbuf_puts(&b, "\n");
        if (spec->ranges) {
            oc_sbuf_puts(&b, "Holds for every binding of ");
            for (int32_t k = 0; k < spec->ranges->n; k++)
                oc_sbuf_printf(&b, "%s%s %" PRId64 "..%" PRId64, k ? ", " : "", spec->ranges->dims[k].name,
                               spec->ranges->dims[k].lo, spec->ranges->dims[k].hi);
            oc_sbuf_puts(&b, ": sized at the upper end, where every tensor is largest (each size proven to grow "
                             "with the dims); a smaller binding uses the same offsets\n");
        }
        oc_sbuf_printf(&b, "Arena: %.2f MiB (%s bytes); lower bound %.2f MiB (%s bytes, the live buffers at step %d): "
                           "%.3fx\n",
                       oc_mib(p->arena_bytes), oc_fmt_thousands(p->arena_bytes, t1, sizeof t1),
                       oc_mib(p->lower_bound_bytes), oc_fmt_thousands(p->lower_bound_bytes, t2, sizeof t2),
                       p->lower_bound_step,
                       p->lower_bound_bytes ? (double)p->arena_bytes / (double)p->lower_bound_bytes : 1.0);
        oc_sbuf_printf(&b, "The other planner, %s: %.2f MiB (%s bytes)\n",
                       oc_planner_words(p->planner == OC_PLANNER_SIZE ? OC_PLANNER_ORDER : OC_PLANNER_SIZE),
                       oc_mib(p->other_arena_bytes), oc_fmt_thousands(p->other_arena_bytes, t1, sizeof t1));
        if (verified) {
            oc_sbuf_puts(&b, "Verified: no two buffers live at the same step overlap; every offset aligned\n");
        } else {
            oc_sbuf_printf(&b, "NOT VERIFIED: buffer '%s'%s%s%s\n", g->values[p->buffers[fa].value].name,
                           fb >= 0 ? " overlaps '" : " is misplaced", fb >= 0 ? g->values[p->buffers[fb].value].name : "",
                           fb >= 0 ? "'" : "");
        }
        if (p->n_subgraph_nodes)
            oc_sbuf_printf(&b, "Not planned: the bodies of %d node%s with subgraphs (their tensors are not in the arena)\n",
                           p->n_subgraph_nodes, p->n_subgraph_nodes == 1 ? "" : "s");
        oc_sbuf_puts(&b, "\n");
    }
    struct oc_table t = {0};
    oc_table_col(&t, "Buffer", "buffer", OC_ALIGN_LEFT);
    oc_table_col(&t, "Role", "role", OC_ALIGN_LEFT);
    oc_table_col(&t, "Offset (B)", "offset", OC_ALIGN_RIGHT);
    oc_table_col(&t, "Size (B)", "size", OC_ALIGN_RIGHT);
    oc_table_col(&t, "First step", "first", OC_ALIGN_RIGHT);
    oc_table_col(&t, "Last step", "last", OC_ALIGN_RIGHT);
    oc_table_col(&t, "Values", "values", OC_ALIGN_RIGHT);
    for (int32_t i = 0; i < p->n_buffers; i++) {
        const struct oc_plan_buffer *x = &p->buffers[i];
        oc_table_row(&t);
        oc_table_cell(&t, "%s", g->values[x->value].name);
        oc_table_cell(&t, "%s", oc_plan_role_name(x->role));
        oc_table_cell(&t, "%s", oc_fmt_thousands(x->offset, t1, sizeof t1));
        oc_table_cell(&t, "%s", oc_fmt_thousands(x->size, t2, sizeof t2));
        oc_table_cell(&t, "%d", x->first);
        oc_table_cell(&t, "%d", x->last);
        oc_table_cell(&t, "%d", x->n_values);
    }
    oc_table_draw(&b, &t, spec->format);
    if (t.oom)
        b.oom = true;
    oc_table_free(&t);
    return oc_sbuf_flush(&b, spec, d);
}
