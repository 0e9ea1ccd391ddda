/*
 * lint.c — `onnxcost lint` findings as text (one line each, `file: rule:
 * message`, clang-tidy and ruff style), JSON (onnxcost-lint/1), Markdown
 * and SARIF 2.1.0; each with its saving, and the totals.
 */
#include "report_impl.h"
#include "../views/lint/lint.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *oc_node_name(const struct oc_graph *g, int32_t i, char *buf, size_t size) {
    return oc_node_label(&g->nodes[i], buf, size);
}

/* "38,597,376 params, 147.24 MiB of weights, 1,234 MACs ..." of what is
   set; nothing when nothing is. */
static void oc_saving_text(struct oc_sbuf *b, const struct oc_lint_saving *s, bool md) {
    char t[48];
    const char *sep = "";
#define OC_SEP() (oc_sbuf_puts(b, sep), sep = ", ")
    if (s->params) {
        OC_SEP();
        bool neg = s->params < 0;
        oc_sbuf_printf(b, "%s%s params", neg ? "-" : "",
                       oc_fmt_thousands(neg ? (uint64_t)-s->params : (uint64_t)s->params, t, sizeof t));
    }
    if (s->weight_bytes) {
        OC_SEP();
        bool neg = s->weight_bytes < 0;
        uint64_t v = neg ? (uint64_t)-s->weight_bytes : (uint64_t)s->weight_bytes;
        if (v < (1u << 20))
            oc_sbuf_printf(b, "%s%s B of weights", neg ? "-" : "", oc_fmt_thousands(v, t, sizeof t));
        else
            oc_sbuf_printf(b, "%s%.2f MiB of weights (%s%s B)", neg ? "-" : "", oc_mib(v), neg ? "-" : "",
                           oc_fmt_thousands(v, t, sizeof t));
    }
    if (s->macs) {
        OC_SEP();
        oc_sbuf_printf(b, "%s MACs", oc_fmt_thousands(s->macs, t, sizeof t));
    }
    if (s->flops) {
        OC_SEP();
        oc_sbuf_printf(b, "%s FLOPs", oc_fmt_thousands(s->flops, t, sizeof t));
    }
    if (s->bytes_moved) {
        OC_SEP();
        if (s->bytes_moved < (1u << 20))
            oc_sbuf_printf(b, "%s B moved", oc_fmt_thousands(s->bytes_moved, t, sizeof t));
        else
            oc_sbuf_printf(b, "%.2f MiB moved", oc_mib(s->bytes_moved));
    }
    if (s->peak_bytes) {
        OC_SEP();
        oc_sbuf_printf(b, "%.2f MiB of peak activation memory", oc_mib(s->peak_bytes));
    }
    if (s->input_bytes) {
        OC_SEP();
        oc_sbuf_printf(b, "%s B of input", oc_fmt_thousands(s->input_bytes, t, sizeof t));
    }
    if (s->time_s > 0) {
        OC_SEP();
        oc_sbuf_printf(b, "%.3f %s predicted", s->time_s * 1e3, md ? "ms" : "ms");
    }
#undef OC_SEP
    if (!*sep)
        oc_sbuf_puts(b, "nothing per run");
}

static bool oc_saving_any(const struct oc_lint_saving *s) {
    return s->params || s->weight_bytes || s->macs || s->flops || s->bytes_moved || s->input_bytes || s->peak_bytes ||
           s->time_s > 0;
}

static json_t *oc_saving_json(const struct oc_lint_saving *s, bool timed) {
    json_t *o = json_object();
    json_object_set_new(o, "params", json_integer(s->params));
    json_object_set_new(o, "weight_bytes", json_integer(s->weight_bytes));
    json_object_set_new(o, "macs", json_integer((json_int_t)s->macs));
    json_object_set_new(o, "flops", json_integer((json_int_t)s->flops));
    json_object_set_new(o, "bytes_moved", json_integer((json_int_t)s->bytes_moved));
    json_object_set_new(o, "input_bytes", json_integer((json_int_t)s->input_bytes));
    json_object_set_new(o, "peak_bytes", json_integer((json_int_t)s->peak_bytes));
    json_object_set_new(o, "time_s", timed ? json_real(s->time_s) : json_null());
    return o;
}

/* The findings, counts and totals (what onnxcost-lint/1 has besides its
   schema, model and rules). */
static void oc_lint_json_fill(json_t *doc, const struct oc_analysis *an, const struct oc_lint_result *r, bool timed) {
    const struct oc_graph *g = an->graph;
    json_t *fs = json_array();
    for (int32_t k = 0; k < r->n_findings; k++) {
        const struct oc_lint_finding *f = &r->findings[k];
        json_t *o = json_object(), *nodes = json_array(), *values = json_array();
        json_object_set_new(o, "rule", json_string(oc_lint_rules[f->rule].id));
        json_object_set_new(o, "level", json_string(oc_lint_level_name(oc_lint_rules[f->rule].level)));
        json_object_set_new(o, "message", oc_jstr(f->message));
        for (int32_t i = 0; i < f->n_nodes; i++) {
            json_t *n = json_object();
            char lab[160];
            json_object_set_new(n, "index", json_integer(f->nodes[i]));
            json_object_set_new(n, "name", oc_jstr(g->nodes[f->nodes[i]].name));
            json_object_set_new(n, "label", oc_jstr(oc_node_name(g, f->nodes[i], lab, sizeof lab)));
            json_object_set_new(n, "op_type", oc_jstr(g->nodes[f->nodes[i]].op_type));
            json_array_append_new(nodes, n);
        }
        for (int32_t i = 0; i < f->n_values; i++)
            json_array_append_new(values, oc_jstr(g->values[f->values[i]].name));
        json_object_set_new(o, "nodes", nodes);
        json_object_set_new(o, "tensors", values);
        json_object_set_new(o, "saving", oc_saving_json(&f->saving, timed));
        if (f->order) { /* memory/peak-order: the node (file index) at each step */
            json_t *ord = json_array();
            for (int32_t i = 0; i < f->n_order; i++)
                json_array_append_new(ord, json_integer(f->order[i]));
            json_object_set_new(o, "order", ord);
        }
        json_array_append_new(fs, o);
    }
    json_object_set_new(doc, "findings", fs);
    json_t *lv = json_object();
    for (int l = 0; l < OC_LINT_LEVELS; l++)
        json_object_set_new(lv, oc_lint_level_name((enum oc_lint_level)l), json_integer(r->by_level[l]));
    json_object_set_new(doc, "counts", lv);
    json_object_set_new(doc, "total_saving", oc_saving_json(&r->total, timed));
    json_object_set_new(doc, "weight_bytes_read", json_integer((json_int_t)r->weight_bytes_read));
    json_object_set_new(doc, "weights_compared", json_integer(r->n_weights_compared));
    json_object_set_new(doc, "weights_not_compared", json_integer(r->n_weights_not_compared));
    json_object_set_new(doc, "analysis_complete", json_boolean(oc_totals_exact(&an->totals)));
}

json_t *oc_lint_json_member(const struct oc_analysis *an, const struct oc_lint_result *r, bool timed) {
    json_t *o = json_object();
    if (o)
        oc_lint_json_fill(o, an, r, timed);
    return o;
}

static void oc_lint_json(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_lint_result *r,
                         const struct oc_report_spec *spec, bool timed) {
    json_t *doc = json_object(), *rules = json_array();
    json_object_set_new(doc, "schema", json_string("onnxcost-lint/1"));
    json_object_set_new(doc, "model", oc_jstr(spec->model_path ? spec->model_path : ""));
    for (int k = 0; k < OC_LINT_RULES; k++) {
        json_t *o = json_object();
        json_object_set_new(o, "id", json_string(oc_lint_rules[k].id));
        json_object_set_new(o, "level", json_string(oc_lint_level_name(oc_lint_rules[k].level)));
        json_object_set_new(o, "summary", json_string(oc_lint_rules[k].summary));
        json_array_append_new(rules, o);
    }
    json_object_set_new(doc, "rules", rules);
    oc_lint_json_fill(doc, an, r, timed);
    oc_sbuf_json(b, doc);
}

/* SARIF 2.1.0: one run, the rules as the driver's, each finding a result at
   the model file with its nodes as logical locations. */
/* A path as a SARIF artifactLocation.uri: a URI reference (RFC 3986), every
   byte but the unreserved ones and '/' percent-encoded ("my model.onnx" is
   "my%20model.onnx"). */
static json_t *oc_sarif_uri(const char *path) {
    struct oc_sbuf u = {0};
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' ||
            *c == '.' || *c == '_' || *c == '~' || *c == '/')
            oc_sbuf_put(&u, (const char *)c, 1);
        else
            oc_sbuf_printf(&u, "%%%02X", *c);
    }
    oc_sbuf_put(&u, "", 1);
    json_t *j = u.oom ? json_string("") : json_string(u.p);
    oc_sbuf_free(&u);
    return j;
}

static void oc_lint_sarif(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_lint_result *r,
                          const struct oc_report_spec *spec, bool timed) {
    static const char *const level[OC_LINT_LEVELS] = {"note", "warning", "error"};
    const struct oc_graph *g = an->graph;
    json_t *doc = json_object(), *runs = json_array(), *run = json_object(), *tool = json_object(),
           *driver = json_object(), *rules = json_array(), *results = json_array();
    json_object_set_new(doc, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
    json_object_set_new(doc, "version", json_string("2.1.0"));
    json_object_set_new(driver, "name", json_string("onnxcost"));
    json_object_set_new(driver, "informationUri", json_string("https://github.com/onnxcost/onnxcost"));
    for (int k = 0; k < OC_LINT_RULES; k++) {
        json_t *o = json_object(), *sd = json_object(), *fd = json_object(), *dc = json_object();
        json_object_set_new(o, "id", json_string(oc_lint_rules[k].id));
        json_object_set_new(sd, "text", json_string(oc_lint_rules[k].summary));
        json_object_set_new(o, "shortDescription", sd);
        json_object_set_new(fd, "text", json_string(oc_lint_rules[k].why));
        json_object_set_new(o, "fullDescription", fd);
        json_object_set_new(dc, "level", json_string(level[oc_lint_rules[k].level]));
        json_object_set_new(o, "defaultConfiguration", dc);
        json_array_append_new(rules, o);
    }
    json_object_set_new(driver, "rules", rules);
    json_object_set_new(tool, "driver", driver);
    json_object_set_new(run, "tool", tool);
    for (int32_t k = 0; k < r->n_findings; k++) {
        const struct oc_lint_finding *f = &r->findings[k];
        json_t *o = json_object(), *msg = json_object(), *locs = json_array(), *loc = json_object(),
               *phys = json_object(), *art = json_object(), *logical = json_array(), *props = json_object();
        struct oc_sbuf m = {0};
        oc_sbuf_puts(&m, f->message);
        if (oc_saving_any(&f->saving)) {
            oc_sbuf_puts(&m, ". Saves ");
            oc_saving_text(&m, &f->saving, false);
        }
        oc_sbuf_put(&m, "", 1);
        json_object_set_new(o, "ruleId", json_string(oc_lint_rules[f->rule].id));
        json_object_set_new(o, "ruleIndex", json_integer(f->rule));
        json_object_set_new(o, "level", json_string(level[oc_lint_rules[f->rule].level]));
        json_object_set_new(msg, "text", oc_jstr(m.oom ? f->message : m.p));
        oc_sbuf_free(&m);
        json_object_set_new(o, "message", msg);
        json_object_set_new(art, "uri", oc_sarif_uri(spec->model_path ? spec->model_path : ""));
        json_object_set_new(phys, "artifactLocation", art);
        json_object_set_new(loc, "physicalLocation", phys);
        for (int32_t i = 0; i < f->n_nodes && i < 32; i++) {
            json_t *l = json_object();
            char lab[160];
            json_object_set_new(l, "name", oc_jstr(oc_node_name(g, f->nodes[i], lab, sizeof lab)));
            json_object_set_new(l, "kind", json_string("function"));
            json_array_append_new(logical, l);
        }
        for (int32_t i = 0; i < f->n_values && json_array_size(logical) < 32; i++) {
            json_t *l = json_object();
            json_object_set_new(l, "name", oc_jstr(g->values[f->values[i]].name));
            json_object_set_new(l, "kind", json_string("variable"));
            json_array_append_new(logical, l);
        }
        json_object_set_new(loc, "logicalLocations", logical);
        json_array_append_new(locs, loc);
        json_object_set_new(o, "locations", locs);
        json_object_set_new(props, "saving", oc_saving_json(&f->saving, timed));
        json_object_set_new(o, "properties", props);
        json_array_append_new(results, o);
    }
    json_object_set_new(run, "results", results);
    json_array_append_new(runs, run);
    json_object_set_new(doc, "runs", runs);
    oc_sbuf_json(b, doc);
}

static void oc_lint_counts(struct oc_sbuf *b, const struct oc_lint_result *r) {
    oc_sbuf_printf(b, "%d error%s, %d warning%s, %d note%s", r->by_level[OC_LINT_ERROR],
                   r->by_level[OC_LINT_ERROR] == 1 ? "" : "s", r->by_level[OC_LINT_WARNING],
                   r->by_level[OC_LINT_WARNING] == 1 ? "" : "s", r->by_level[OC_LINT_NOTE],
                   r->by_level[OC_LINT_NOTE] == 1 ? "" : "s");
    if (r->n_findings) {
        oc_sbuf_puts(b, "; all together they save ");
        oc_saving_text(b, &r->total, false);
    }
}

void oc_lint_text_summary(struct oc_sbuf *b, const struct oc_lint_result *r) {
    oc_sbuf_puts(b, "Lint: ");
    oc_lint_counts(b, r);
    oc_sbuf_puts(b, "\n");
    for (int32_t k = 0; k < r->n_findings; k++) {
        const struct oc_lint_finding *f = &r->findings[k];
        char msg[4 * sizeof f->message];
        oc_printable(f->message, msg, sizeof msg);
        oc_sbuf_printf(b, "  %s: %s: %s\n", oc_lint_level_name(oc_lint_rules[f->rule].level), oc_lint_rules[f->rule].id,
                       msg);
    }
}

static void oc_lint_md_table(struct oc_sbuf *b, const struct oc_lint_result *r) {
    oc_sbuf_puts(b, "| Rule | Level | Finding | Saves |\n|---|---|---|---|\n");
    for (int32_t k = 0; k < r->n_findings; k++) {
        const struct oc_lint_finding *f = &r->findings[k];
        oc_sbuf_printf(b, "| `%s` | %s | ", oc_lint_rules[f->rule].id,
                       oc_lint_level_name(oc_lint_rules[f->rule].level));
        oc_md_text(b, f->message);
        oc_sbuf_puts(b, " | ");
        if (oc_saving_any(&f->saving))
            oc_saving_text(b, &f->saving, true);
        oc_sbuf_puts(b, " |\n");
    }
    oc_sbuf_puts(b, "\n");
    oc_lint_counts(b, r);
    oc_sbuf_puts(b, ".\n");
}

void oc_lint_html_rows(struct oc_sbuf *b, const struct oc_lint_result *r,
                       void (*row)(struct oc_sbuf *b, const char *k, const char *v)) {
    struct oc_sbuf v = {0};
    oc_lint_counts(&v, r);
    oc_sbuf_put(&v, "", 1);
    row(b, "lint (onnxcost lint)", v.oom ? "" : v.p);
    for (int32_t k = 0; k < r->n_findings; k++) {
        const struct oc_lint_finding *f = &r->findings[k];
        char key[96];
        snprintf(key, sizeof key, "%s (%s)", oc_lint_rules[f->rule].id,
                 oc_lint_level_name(oc_lint_rules[f->rule].level));
        v.n = 0;
        oc_sbuf_puts(&v, f->message);
        if (oc_saving_any(&f->saving)) {
            oc_sbuf_puts(&v, "; saves ");
            oc_saving_text(&v, &f->saving, false);
        }
        oc_sbuf_put(&v, "", 1);
        row(b, key, v.oom ? "" : v.p);
    }
    oc_sbuf_free(&v);
}

/* The HTML page of `onnxcost lint --format html`: the findings as a table
 * (the table model), then the counts and, when incomplete, why. */
static void oc_lint_html(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_lint_result *r,
                         const char *path) {
    oc_html_open(b, "onnxcost lint", "Lint", path);
    struct oc_table t = {0};
    static const struct oc_table_col cols[] = {{"Rule", "rule", OC_ALIGN_LEFT},
                                               {"Level", "level", OC_ALIGN_LEFT},
                                               {"Finding", "message", OC_ALIGN_LEFT},
                                               {"Saves", "saves", OC_ALIGN_LEFT}};
    oc_table_cols(&t, cols, 4);
    oc_table_reserve(&t, r->n_findings);
    struct oc_sbuf v = {0};
    for (int32_t k = 0; k < r->n_findings; k++) {
        const struct oc_lint_finding *f = &r->findings[k];
        oc_table_row(&t);
        oc_table_puts(&t, oc_lint_rules[f->rule].id);
        oc_table_puts(&t, oc_lint_level_name(oc_lint_rules[f->rule].level));
        oc_table_puts(&t, f->message);
        v.n = 0;
        if (oc_saving_any(&f->saving))
            oc_saving_text(&v, &f->saving, false);
        oc_sbuf_put(&v, "", 1);
        oc_table_puts(&t, v.oom ? "" : v.p);
    }
    oc_table_draw(b, &t, OC_FORMAT_HTML);
    oc_table_free(&t);
    v.n = 0;
    oc_lint_counts(&v, r);
    oc_sbuf_puts(&v, ".");
    if (!oc_totals_exact(&an->totals)) {
        oc_sbuf_puts(&v, " The analysis is incomplete: ");
        oc_fmt_incomplete(&v, &an->totals);
        oc_sbuf_puts(&v, "; the savings of nodes without a cost are not counted.");
    }
    oc_sbuf_put(&v, "", 1);
    oc_sbuf_puts(b, "<p>");
    oc_html_text(b, v.oom ? "" : v.p);
    oc_sbuf_puts(b, "</p>\n</body></html>\n");
    if (v.oom)
        b->oom = true;
    oc_sbuf_free(&v);
}

void oc_lint_md_section(struct oc_sbuf *b, const struct oc_lint_result *r) {
    oc_sbuf_puts(b, "\n### Lint\n\n");
    oc_lint_md_table(b, r);
}

enum oc_status oc_report_lint(const struct oc_analysis *an, const struct oc_lint_result *r,
                              const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    bool timed = spec->gpu && spec->gpu->perf;
    const char *path = spec->model_path ? spec->model_path : "";
    if (spec->format == OC_FORMAT_JSON) {
        oc_lint_json(&b, an, r, spec, timed);
    } else if (spec->format == OC_FORMAT_SARIF) {
        oc_lint_sarif(&b, an, r, spec, timed);
    } else if (spec->format == OC_FORMAT_MD) {
        oc_lint_md_table(&b, r);
    } else if (spec->format == OC_FORMAT_HTML) {
        oc_lint_html(&b, an, r, path);
    } else {
        char pp[1024], msg[4 * sizeof r->findings[0].message];
        oc_printable(path, pp, sizeof pp); /* one line per finding, whatever the names hold */
        for (int32_t k = 0; k < r->n_findings; k++) {
            const struct oc_lint_finding *f = &r->findings[k];
            oc_printable(f->message, msg, sizeof msg);
            oc_sbuf_printf(&b, "%s: %s: %s: %s", pp, oc_lint_level_name(oc_lint_rules[f->rule].level),
                           oc_lint_rules[f->rule].id, msg);
            if (oc_saving_any(&f->saving)) {
                oc_sbuf_puts(&b, "; saves ");
                oc_saving_text(&b, &f->saving, false);
            }
            oc_sbuf_puts(&b, "\n");
        }
        char t[48];
        oc_sbuf_printf(&b, "%s: ", pp);
        oc_lint_counts(&b, r);
        oc_sbuf_printf(&b, " (weights compared: %d, %s bytes read", r->n_weights_compared,
                       oc_fmt_thousands(r->weight_bytes_read, t, sizeof t));
        if (r->n_weights_not_compared)
            oc_sbuf_printf(&b, "; %d in typed fields or unreadable external data not compared",
                           r->n_weights_not_compared);
        oc_sbuf_puts(&b, ")\n");
        if (!oc_totals_exact(&an->totals)) {
            oc_sbuf_printf(&b, "%s: the analysis is incomplete: ", pp);
            oc_fmt_incomplete(&b, &an->totals);
            oc_sbuf_puts(&b, "; the savings of nodes without a cost are not counted\n");
        }
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
