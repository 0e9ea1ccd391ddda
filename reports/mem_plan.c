/*
 * mem_plan.c — `onnxcost plan`: the static memory plan (views/mem_plan.h) as a text,
 * Markdown or CSV table of the buffers, or a JSON document a code generator
 * reads (schema onnxcost-plan/1, docs/JSON.md).
 */
#include "report_impl.h"

#include "../views/mem_plan.h"
#include "../views/range.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <jansson.h>

/* buffers holding more than one value (in place, or a view) */
static int32_t oc_plan_shared(const struct oc_plan *p) {
    int32_t n = 0;
    for (int32_t i = 0; i < p->n_buffers; i++)
        n += p->buffers[i].n_values > 1;
    return n;
}

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
        json_object_set_new(doc, "sized",
                            json_string(spec->ranges->method == OC_RANGE_MONOTONE ? "upper_corner" : "each_binding"));
    } else {
        json_object_set_new(doc, "holds_for", json_null());
        json_object_set_new(doc, "sized", json_null());
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
    /* beside analyze's liveness peak, which gives every tensor a buffer of its own */
    json_object_set_new(doc, "liveness_peak_bytes", an->totals.peak_complete && !spec->ranges
                                                        ? json_integer((json_int_t)an->totals.peak_activation_bytes)
                                                        : json_null());
    json_object_set_new(doc, "shared_buffers", json_integer(oc_plan_shared(p)));
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


/* Why the arena is not analyze's peak activation memory (its liveness peak,
   every tensor a buffer of its own): in-place reuse, alignment. One line,
   where they differ by more than 1 %. */
static void oc_plan_against_peak(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_plan *p,
                                 const struct oc_report_spec *spec) {
    double peak = (double)an->totals.peak_activation_bytes, arena = (double)p->arena_bytes;
    if (!an->totals.peak_complete || spec->ranges || !(peak > 0) || fabs(arena - peak) <= 0.01 * peak)
        return;
    oc_sbuf_printf(b, "Against analyze's peak activation memory, %.2f MiB (the liveness peak: every tensor a buffer "
                      "of its own, an op's input and output live together): ",
                   oc_mib(an->totals.peak_activation_bytes));
    if (arena < peak)
        oc_sbuf_printf(b, "%d buffer%s here hold more than one value (an elementwise op writing over its input, a "
                          "view); --no-inplace plans without\n",
                       (int)oc_plan_shared(p), oc_plan_shared(p) == 1 ? "" : "s");
    else
        oc_sbuf_printf(b, "the arena is larger by the %" PRIu64 "-byte alignment and the gaps the placement leaves\n",
                       p->align);
}

/* The plan's summary lines: what was planned, the arena against the lower
   bound and the other planner, the check's verdict. */
static void oc_plan_summary(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_plan *p, bool verified,
                            int32_t fa, int32_t fb, const struct oc_report_spec *spec, bool md) {
    const struct oc_graph *g = an->graph;
    char t1[32], t2[32];
    oc_sbuf_printf(b, "%sStatic memory plan of %s: %d buffers over %d steps, %s, %" PRIu64 "-byte alignment%s\n",
                   md ? "## " : "", spec->model_path ? spec->model_path : "",
                   p->n_buffers, p->n_steps, oc_planner_words(p->planner), p->align,
                   p->inplace ? ", in-place reuse on" : "");
    if (md)
        oc_sbuf_puts(b, "\n");
    if (spec->ranges) {
        oc_sbuf_puts(b, "Holds for every binding of ");
        for (int32_t k = 0; k < spec->ranges->n; k++)
            oc_sbuf_printf(b, "%s%s %" PRId64 "..%" PRId64, k ? ", " : "", spec->ranges->dims[k].name,
                           spec->ranges->dims[k].lo, spec->ranges->dims[k].hi);
        if (spec->ranges->method == OC_RANGE_MONOTONE)
            oc_sbuf_puts(b, ": sized at the upper end, where every tensor is largest (each size proven to grow "
                            "with the dims); a smaller binding uses the same offsets\n");
        else
            oc_sbuf_printf(b, ": each buffer sized at its largest over the %llu bindings, each analyzed (the sizes "
                              "are not proven to grow with the dims); every binding uses the same offsets\n",
                           (unsigned long long)spec->ranges->points);
    }
    oc_sbuf_printf(b, "Arena: %.2f MiB (%s bytes); lower bound %.2f MiB (%s bytes, the live buffers at step %d): "
                       "%.3fx\n",
                   oc_mib(p->arena_bytes), oc_fmt_thousands(p->arena_bytes, t1, sizeof t1),
                   oc_mib(p->lower_bound_bytes), oc_fmt_thousands(p->lower_bound_bytes, t2, sizeof t2),
                   p->lower_bound_step,
                   p->lower_bound_bytes ? (double)p->arena_bytes / (double)p->lower_bound_bytes : 1.0);
    oc_plan_against_peak(b, an, p, spec);
    oc_sbuf_printf(b, "The other planner, %s: %.2f MiB (%s bytes)\n",
                   oc_planner_words(p->planner == OC_PLANNER_SIZE ? OC_PLANNER_ORDER : OC_PLANNER_SIZE),
                   oc_mib(p->other_arena_bytes), oc_fmt_thousands(p->other_arena_bytes, t1, sizeof t1));
    if (verified) {
        oc_sbuf_puts(b, "Verified: no two buffers live at the same step overlap; every offset aligned\n");
    } else {
        oc_sbuf_printf(b, "NOT VERIFIED: buffer '%s'%s%s%s\n", g->values[p->buffers[fa].value].name,
                       fb >= 0 ? " overlaps '" : " is misplaced", fb >= 0 ? g->values[p->buffers[fb].value].name : "",
                       fb >= 0 ? "'" : "");
    }
    if (p->n_subgraph_nodes)
        oc_sbuf_printf(b, "Not planned: the bodies of %d node%s with subgraphs (their tensors are not in the arena)\n",
                       p->n_subgraph_nodes, p->n_subgraph_nodes == 1 ? "" : "s");
    oc_sbuf_puts(b, "\n");
}

/* The lifetime/offset picture: steps across, arena offsets down, one box per
   buffer (its first to last step, its offset and size), coloured by role. */
static void oc_plan_svg(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_plan *p) {
    const double W = 860, H = 420, X0 = 20, Y0 = 24;
    double steps = p->n_steps > 0 ? p->n_steps : 1, arena = p->arena_bytes ? (double)p->arena_bytes : 1;
    static const char *const fill[] = {[OC_PLAN_ACTIVATION] = "#4e79a7", [OC_PLAN_INPUT] = "#59a14f",
                                       [OC_PLAN_OUTPUT] = "#e15759"};
    oc_sbuf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "class=\"plan\" data-steps=\"%d\" data-arena=\"%" PRIu64 "\">\n",
                   X0 + W + 20, Y0 + H + 40, p->n_steps, p->arena_bytes);
    oc_sbuf_printf(b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\" "
                      "stroke=\"#999\"/>\n",
                   X0, Y0, W, H);
    for (int32_t i = 0; i < p->n_buffers; i++) {
        const struct oc_plan_buffer *x = &p->buffers[i];
        double bx = X0 + W * x->first / steps, bw = W * (x->last - x->first + 1) / steps;
        double by = Y0 + H * (double)x->offset / arena, bh = H * (double)x->size / arena;
        oc_sbuf_printf(b, "<rect class=\"buffer\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                          "fill=\"%s\" fill-opacity=\"0.75\" stroke=\"#222\" stroke-width=\"0.3\" "
                          "data-offset=\"%" PRIu64 "\" data-size=\"%" PRIu64 "\" data-first=\"%d\" "
                          "data-last=\"%d\"><title>",
                       bx, by, bw > 0.5 ? bw : 0.5, bh > 0.5 ? bh : 0.5, fill[x->role], x->offset, x->size,
                       x->first, x->last);
        oc_html_text(b, an->graph->values[x->value].name);
        oc_sbuf_printf(b, ": %" PRIu64 " bytes at offset %" PRIu64 ", steps %d to %d</title></rect>\n", x->size,
                       x->offset, x->first, x->last);
    }
    double ly = Y0 + H * (double)p->lower_bound_bytes / arena;
    oc_sbuf_printf(b, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#000\" "
                      "stroke-dasharray=\"4 3\"/><text x=\"%.0f\" y=\"%.2f\" font-size=\"11\">lower bound</text>\n",
                   X0, X0 + W, ly, ly, X0 + W - 70, ly - 3);
    oc_sbuf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">step (execution order), 0 to %d</text>\n",
                   X0, Y0 + H + 18, p->n_steps > 0 ? p->n_steps - 1 : 0);
    oc_sbuf_printf(b, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">offset: 0 at the top, %.2f MiB at the bottom"
                      "</text>\n",
                   X0, Y0 - 6, oc_mib(p->arena_bytes));
    oc_sbuf_puts(b, "</svg>\n");
}

/* Writes b through the spec and releases it. */
static enum oc_status oc_plan_flush(struct oc_sbuf *b, const struct oc_report_spec *spec, struct oc_diag *d) {
    enum oc_status st = oc_sbuf_flush(b, spec, d);
    oc_sbuf_free(b);
    return st;
}

enum oc_status oc_report_plan(const struct oc_analysis *an, const struct oc_plan *p,
                              const struct oc_report_spec *spec, struct oc_diag *d) {
    int32_t fa, fb;
    bool verified = oc_plan_verify(p, &fa, &fb);
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON) {
        oc_sbuf_json(&b, oc_plan_json(an, p, verified, spec));
        return oc_plan_flush(&b, spec, d);
    }
    if (spec->format == OC_FORMAT_HTML) { /* the summary as text, then the picture */
        struct oc_sbuf text = {0};
        oc_plan_summary(&text, an, p, verified, fa, fb, spec, false);
        oc_html_open(&b, "onnxcost plan", "Static memory plan", spec->model_path);
        oc_sbuf_put(&text, "", 1);
        oc_html_pre(&b, text.oom ? "" : text.p);
        if (text.oom)
            b.oom = true;
        oc_sbuf_free(&text);
        oc_sbuf_puts(&b, "<h2>Buffers: lifetime across, offset down (green: graph inputs, red: outputs)</h2>\n");
        oc_plan_svg(&b, an, p);
        oc_sbuf_puts(&b, "<p>Generated by onnxcost; how the plan is made: docs/MEMORY.md.</p>\n</body></html>\n");
        return oc_plan_flush(&b, spec, d);
    }
    const struct oc_graph *g = an->graph;
    char t1[32], t2[32];
    if (spec->format == OC_FORMAT_TEXT || spec->format == OC_FORMAT_MD)
        oc_plan_summary(&b, an, p, verified, fa, fb, spec, spec->format == OC_FORMAT_MD);
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
        if (spec->format == OC_FORMAT_CSV) { /* raw integers, as every other CSV onnxcost writes */
            oc_table_cell(&t, "%llu", (unsigned long long)x->offset);
            oc_table_cell(&t, "%llu", (unsigned long long)x->size);
        } else {
            oc_table_cell(&t, "%s", oc_fmt_thousands(x->offset, t1, sizeof t1));
            oc_table_cell(&t, "%s", oc_fmt_thousands(x->size, t2, sizeof t2));
        }
        oc_table_cell(&t, "%d", x->first);
        oc_table_cell(&t, "%d", x->last);
        oc_table_cell(&t, "%d", x->n_values);
    }
    oc_table_draw(&b, &t, spec->format);
    if (t.oom)
        b.oom = true;
    oc_table_free(&t);
    return oc_plan_flush(&b, spec, d);
}
