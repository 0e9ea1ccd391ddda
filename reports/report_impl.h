/*
 * report_impl.h — helpers shared by the writers in reports/ (not public).
 */
#ifndef OC_REPORT_IMPL_H
#define OC_REPORT_IMPL_H

#include "report.h"

#include <stdarg.h>
#include <stddef.h>

/* Growable string buffer; on allocation failure `oom` is set and further
 * appends are ignored. */
struct oc_sbuf {
    char *p;
    size_t n, cap;
    bool oom;
};

void oc_sbuf_free(struct oc_sbuf *b);
void oc_sbuf_put(struct oc_sbuf *b, const char *s, size_t n);
void oc_sbuf_puts(struct oc_sbuf *b, const char *s);
void oc_sbuf_printf(struct oc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void oc_sbuf_vprintf(struct oc_sbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void oc_sbuf_u64(struct oc_sbuf *b, uint64_t v); /* decimal, no separators */
void oc_sbuf_pad(struct oc_sbuf *b, char c, size_t n);
#include "table.h"

/* An oc_table_flush hook that writes through a spec (st: the first error). */
struct oc_report_flush {
    const struct oc_report_spec *spec;
    struct oc_diag *d;
    enum oc_status st;
};
int oc_report_flush(void *arg, struct oc_sbuf *b);

/* Writes the buffer through the spec and empties it. */
enum oc_status oc_sbuf_flush(struct oc_sbuf *b, const struct oc_report_spec *spec, struct oc_diag *d);

/* Markdown text: '|' escaped, control bytes as '?'. */
void oc_md_text(struct oc_sbuf *b, const char *s);
/* A CSV field, quoted when it holds a comma, quote, CR or LF. */
void oc_csv_field(struct oc_sbuf *b, const char *s);
/* Sizes in MiB (2^20 bytes) and GiB (2^30) for printing. */
double oc_mib(uint64_t bytes);
double oc_gib(uint64_t bytes);
/* Columns s takes on a terminal: its UTF-8 code points. */
size_t oc_text_width(const char *s);
/* ---- totals that are lower bounds (oc_totals_exact) -------------------------------- */
/* The mark before a total that is a lower bound: ">= " (ascii) or "≥ ", and
 * "" when the totals are exact. */
const char *oc_lower_bound_mark(const struct oc_totals *t, bool ascii);
/* Why the totals are lower bounds, one sentence without a final period:
 * "2 of 3 nodes have no cost (1 without a shape or rule, 1 downstream of
 * them)" or the overflow. Nothing when they are exact. */
void oc_fmt_incomplete(struct oc_sbuf *b, const struct oc_totals *t);

/* A value's shape as "[1, 3, 224, 224]" ("?" for unknown dims or rank). */
void oc_fmt_shape(struct oc_sbuf *b, const struct oc_value *v);
/* Value `vi` of the main graph, with dims written as formulas where the
 * symbolic fit has them (s may be NULL). */
void oc_fmt_shape_sym(struct oc_sbuf *b, const struct oc_graph *g, int32_t vi, const struct oc_symbolic *s);
/* "1x64x112x112" ("?" for an unknown dim or rank): the CSV form. */
void oc_fmt_shape_compact(struct oc_sbuf *b, const struct oc_value *v);
/* The shapes of a node's outputs joined by ", " (in [...] when bracket and
 * there are several; "-" when none), with formulas where s has them. */
void oc_fmt_node_shapes(struct oc_sbuf *b, const struct oc_graph *g, const struct oc_node *n,
                        const struct oc_symbolic *s, bool bracket);
/* The same for the activations a node reads (initializers left out). */
void oc_fmt_node_input_shapes(struct oc_sbuf *b, const struct oc_graph *g, const struct oc_node *n,
                              const struct oc_symbolic *s);
/* "batch=1, sequence=1": the binding the numbers of a symbolic report use. */
void oc_fmt_sym_binding(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_symbolic *s);

/* Node indices (file order numbers) of the rows to print, per spec->sort and
 * spec->top; malloc'd, *n set. NULL on allocation failure. */
int32_t *oc_report_rows(const struct oc_analysis *an, const struct oc_report_spec *spec, int32_t *n);

/* The module table (--depth) and the node table of the Markdown and HTML
 * reports (reports/rows.c). The node table's rows follow spec->sort and
 * spec->top (*n_shown of them); false when out of memory. */
void oc_module_table(struct oc_table *t, const struct oc_report_spec *spec);
enum {
    OC_NODES_FLOPS = 1,         /* a FLOPs column                          */
    OC_NODES_SYM_SHAPES = 2,    /* shapes with formulas for unbound dims    */
    OC_NODES_DASH_UNNAMED = 4,  /* "-" for a node without a name           */
};
bool oc_node_table(struct oc_table *t, const struct oc_analysis *an, const struct oc_report_spec *spec,
                   uint32_t flags, int32_t *n_shown);

/* --measured sections (reports/measured.c). */
void oc_measured_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec);
/* --lint in analyze's reports (reports/lint.c): the findings as a JSON
 * member, a few text lines under the totals, a Markdown section, HTML rows. */
struct json_t *oc_lint_json_member(const struct oc_analysis *an, const struct oc_lint_result *r, bool timed);
void oc_lint_text_summary(struct oc_sbuf *b, const struct oc_lint_result *r);
void oc_lint_md_section(struct oc_sbuf *b, const struct oc_lint_result *r);
void oc_lint_html_rows(struct oc_sbuf *b, const struct oc_lint_result *r,
                       void (*row)(struct oc_sbuf *b, const char *k, const char *v));

/* --dim NAME=LO:HI: the totals over the ranges (reports/ranges.c). */
void oc_ranges_text(struct oc_sbuf *b, const struct oc_report_spec *spec);
struct json_t *oc_ranges_json(const struct oc_report_spec *spec);
void oc_ranges_md(struct oc_sbuf *b, const struct oc_report_spec *spec);
/* The ranges' one-line head, and figure f's cell ("[min, max] (min at ...,
 * max at ...)") with its label; false when not bounded or f is past the last. */
void oc_ranges_html_head(struct oc_sbuf *b, const struct oc_report_spec *spec);
bool oc_ranges_html_cell(struct oc_sbuf *b, const struct oc_report_spec *spec, int f, const char **label);
/* A node's MACs (0), FLOPs (1) or output bytes (2) over the ranges: a JSON
 * object of {min, max} per figure (null where the node has no cost), a
 * cell "[min, max]" (a single value when equal, "?" without a cost; false
 * when there are no per-node ranges), or the two numbers. */
bool oc_ranges_has_nodes(const struct oc_report_spec *spec);
struct json_t *oc_ranges_json_node(const struct oc_report_spec *spec, int32_t node);
bool oc_ranges_node_cell(struct oc_sbuf *b, const struct oc_report_spec *spec, int32_t node, int which);
bool oc_ranges_node_u64(const struct oc_report_spec *spec, int32_t node, int which, uint64_t *min, uint64_t *max);
/* --largest NAME: its sentence; false when not asked. */
bool oc_ranges_largest_text(struct oc_sbuf *b, const struct oc_report_spec *spec);
struct json_t *oc_measured_json(const struct oc_analysis *an, const struct oc_report_spec *spec);
struct oc_perf;
/* A node's measured figures; with perf (a prediction), its predicted time over the median too. */
struct json_t *oc_measured_json_node(const struct oc_measured *m, const struct oc_perf *perf, int32_t node);

/* --baseline sections (reports/baseline.c). */
void oc_baseline_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec);
struct json_t;
/* HTML: s escaped (control bytes as '?'), and the reports' style sheet. */
void oc_html_text(struct oc_sbuf *b, const char *s);
/* A page's start: the doctype, the title "TITLE: SUBJECT", the style sheet
 * and <h1>HEADING: SUBJECT</h1>. */
void oc_html_open(struct oc_sbuf *b, const char *title, const char *heading, const char *subject);
/* text (lines) as a <pre> block, escaped, its line breaks kept; nothing
 * when it is empty. */
void oc_html_pre(struct oc_sbuf *b, const char *text);
extern const char oc_html_style[];
/* A log-log roofline chart, 700 x 320 px: x (FLOP/byte) from 10^x0 to
 * 10^x1, y (FLOP/s) from 10^y0 to 10^y1 (reports/html.c). Callers clamp
 * their points into the frame. */
struct oc_loglog {
    double x0, x1, y0, y1;
};
double oc_ll_x(const struct oc_loglog *c, double v);
double oc_ll_y(const struct oc_loglog *c, double v);
/* the <svg> element and its axes */
void oc_ll_open(struct oc_sbuf *b);
/* the roof min(peak, AI x bw) as a polyline of `color` */
void oc_ll_roof(struct oc_sbuf *b, const struct oc_loglog *c, double peak, double bw, const char *color);
/* the decade labels of both axes */
void oc_ll_ticks(struct oc_sbuf *b, const struct oc_loglog *c);
/* Appends doc as indented JSON and a newline, and releases doc (sets oom
 * when it cannot be serialized). */
/* Whether an allocation jansson asked for failed since the last call: a
   JSON document built since may be missing parts (format.c). The count
   starts again. */
bool oc_json_incomplete(void);
void oc_sbuf_json(struct oc_sbuf *b, struct json_t *doc);
/* The same with reals written to `digits` significant digits (0: jansson's default). */
void oc_sbuf_json_digits(struct oc_sbuf *b, struct json_t *doc, int digits);
/* A JSON string of s, valid UTF-8 (invalid bytes become U+FFFD). */
struct json_t *oc_jstr(const char *s);
/* The analysis's bound dims as a JSON object {name: value} ("input[axis]" for an unnamed dim). */
struct json_t *oc_json_bindings(const struct oc_analysis *an);
struct json_t *oc_baseline_json(const struct oc_analysis *an, const struct oc_report_spec *spec);

/* --gpu sections (reports/prediction.c). */
void oc_gpu_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_report_spec *spec);
/* training.c — the training block (--optimizer): memory by part, the
 * export's signs each with the figure under the rule it suggests, FLOPs. */
void oc_training_text(struct oc_sbuf *b, const struct oc_training *tr);
/* What alternative a adds to tr's rules, in words, then ':' and its flags. */
void oc_training_alt_text(struct oc_sbuf *b, const struct oc_training *tr, const struct oc_training_alt *a);
/* The sign of one rule (enum oc_saved_rule) in words: "if the 52 Convs
 * with a bias carried folded BatchNorms (...)". */
void oc_training_signs_text(struct oc_sbuf *b, const struct oc_export_signs *s, unsigned rule);
/* The flags that say rules (enum oc_saved_rule), each after a space. */
void oc_saved_rule_flags(struct oc_sbuf *b, unsigned rules);
/* A count as a JSON integer, INT64_MAX when it saturated (format.c). */
struct json_t *oc_jint(uint64_t v);
/* enum oc_saved_rule bits as a JSON array of names ("folded_bn", ...). */
struct json_t *oc_saved_rules_json(unsigned rules);
/* tr's figures under the rules its export's signs suggest. */
struct json_t *oc_training_alts_json(const struct oc_training *tr);
/* The signs themselves: {folded_bn, fused_pointwise}, each null when none. */
struct json_t *oc_export_signs_json(const struct oc_export_signs *s);
struct json_t *oc_gpu_json(const struct oc_analysis *an, const struct oc_report_spec *spec);
/* The "Predicted on ..." and "Peaks" lines; compare and sweep print them
 * above their tables. "Fit (...): against N GiB usable" for a table of fits. */
void oc_gpu_text_header(struct oc_sbuf *b, const struct oc_perf *p, const char *spec_source);
/* A unit's key in a --gpu-spec file ("fp32", "tf32_tc", ...; docs/GPUS.md),
 * by enum oc_unit: what the reader takes and the calibrated spec writes. */
extern const char *const oc_spec_unit_keys[OC_UNIT_COUNT];
/* An "efficiency" object's times, in microseconds in the file and seconds
 * in struct oc_gpu_efficiency (docs/GPUS.md): what the reader takes and the
 * calibrated spec writes. The first, launch_us, also sets has_launch. */
struct oc_spec_us_key {
    const char *key;
    size_t offset; /* of the double in struct oc_gpu_efficiency */
    int decimals;  /* the calibrated spec writes it to this many (a run's
                      cost is some nanoseconds)                          */
};
#define OC_SPEC_US_KEYS 8
extern const struct oc_spec_us_key oc_spec_us_keys[OC_SPEC_US_KEYS];
/* A CPU spec's "probe"."one_thread" keys: the units --threads scales */
struct oc_spec_one_thread_key {
    const char *key;
    enum oc_unit unit;
};
#define OC_SPEC_ONE_THREAD_KEYS 4
extern const struct oc_spec_one_thread_key oc_spec_one_thread_keys[OC_SPEC_ONE_THREAD_KEYS];
/* "efficiency compute 0.60, memory 0.80", naming per-unit calibrated factors:
 * "efficiency compute (calibrated: FP32 0.71; other units) 0.60, memory 0.93" */
void oc_perf_efficiency_text(struct oc_sbuf *b, const struct oc_perf_opts *o);
void oc_gpu_text_fit_header(struct oc_sbuf *b, const struct oc_fit *f, const struct oc_gpu *gpu);
/* {"device", "options"} of a prediction, and {"mode", "reserve_bytes",
 * "usable_bytes"} of a fit: what a table of models or bindings shares. */
struct json_t *oc_gpu_json_setup(const struct oc_perf *p);
struct json_t *oc_gpu_json_fit_setup(const struct oc_fit *f);
/* "yes" when need fits in usable, "no" when it does not, "maybe" when
 * need is only a lower bound that fits (an incomplete analysis). */
/* "yes", "no" or "maybe" (a need that is a lower bound within the usable
 * memory); in JSON true, false or null. */
const char *oc_fit_word(enum oc_fit_verdict v);
struct json_t *oc_fit_json(enum oc_fit_verdict v);
struct json_t *oc_gpu_json_node(const struct oc_node_perf *np);
const char *oc_bound_name(enum oc_bound b);

enum oc_status oc_render_text(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d);
enum oc_status oc_render_json(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d);
enum oc_status oc_render_csv(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d);
enum oc_status oc_render_html(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d);
enum oc_status oc_render_md(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d);

#endif
