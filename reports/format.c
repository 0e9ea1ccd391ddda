/*
 * format.c — what every writer in reports/ shares: the growable buffer and
 * its output filter, number, size and shape formatting, the marks of lower
 * bounds, the order of the rows, JSON into the buffer (report_impl.h).
 */
#include "report_impl.h"

#include <jansson.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void oc_sbuf_free(struct oc_sbuf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

static bool oc_sbuf_grow(struct oc_sbuf *b, size_t more) {
    if (b->oom)
        return false;
    if (b->cap - b->n > more)
        return true;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->n <= more) {
        if (cap > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void oc_sbuf_put(struct oc_sbuf *b, const char *s, size_t n) {
    if (!oc_sbuf_grow(b, n))
        return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

void oc_sbuf_puts(struct oc_sbuf *b, const char *s) {
    oc_sbuf_put(b, s, strlen(s));
}

void oc_sbuf_vprintf(struct oc_sbuf *b, const char *fmt, va_list ap) {
    if (b->oom)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    /* format straight into the free space; only when it does not fit, grow
     * and format again */
    size_t room = b->cap - b->n;
    int n = vsnprintf(room ? b->p + b->n : NULL, room, fmt, ap);
    if (n > 0 && (size_t)n >= room && oc_sbuf_grow(b, (size_t)n))
        vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap2);
    if (n > 0 && !b->oom)
        b->n += (size_t)n;
    else if (room)
        b->p[b->n] = 0; /* a truncated attempt leaves the buffer as it was */
    va_end(ap2);
}

void oc_sbuf_printf(struct oc_sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    oc_sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void oc_sbuf_pad(struct oc_sbuf *b, char c, size_t n) {
    if (!oc_sbuf_grow(b, n))
        return;
    memset(b->p + b->n, c, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* The last line of defence for names from the file (the writers escape what
 * their format needs: CSV quoting, Markdown pipes, HTML entities, JSON by
 * jansson): a byte that is not printable UTF-8 never reaches the output. Text
 * shows it as \xNN, the other formats as U+FFFD; line breaks stay, and so do
 * TAB and CR outside text, and the two SGR sequences of the coloured text
 * header. Returns true when it wrote everything. */
static bool oc_write_clean(const struct oc_sbuf *b, const struct oc_report_spec *spec) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)b->p;
    bool text = spec->format == OC_FORMAT_TEXT;
    size_t start = 0, i = 0;
    if (spec->format == OC_FORMAT_JSON || spec->format == OC_FORMAT_SARIF) {
        /* jansson escaped C0 and the strings were repaired to UTF-8; DEL and
         * the C1 controls (U+0080..U+009F) it leaves raw, and they can only
         * be inside strings: written as \u00XX */
        while (i < b->n) {
            size_t c1 = p[i] == 0xC2 && i + 1 < b->n && p[i + 1] >= 0x80 && p[i + 1] < 0xA0 ? 2 : 0;
            if (p[i] != 0x7f && !c1) {
                i++;
                continue;
            }
            unsigned c = c1 ? p[i + 1] : 0x7f;
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            if ((i > start && spec->write(spec->write_arg, b->p + start, i - start) != 0) ||
                spec->write(spec->write_arg, esc, 6) != 0)
                return false;
            i += c1 ? 2 : 1;
            start = i;
        }
        return i == start || spec->write(spec->write_arg, b->p + start, i - start) == 0;
    }
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    while (i < b->n) {
        /* printable ASCII, the common case, eight bytes at a time: no byte
         * below 0x20, none at 0x7f or above */
        while (b->n - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (((w - 0x20 * ones) & ~w & highs) || ((w + ones) | w) & highs)
                break;
            i += 8;
        }
        if (i >= b->n)
            break;
        if (p[i] >= 0x20 && p[i] < 0x7f) {
            i++;
            continue;
        }
        size_t len = oc_utf8_len(p + i, b->n - i);
        if (len) {
            i += len;
            continue;
        }
        unsigned c = p[i];
        if (c == '\n' || (!text && (c == '\t' || c == '\r'))) {
            i++;
            continue;
        }
        if (text && spec->color && c == 0x1b && b->n - i >= 4 && p[i + 1] == '[' && (p[i + 2] == '0' || p[i + 2] == '1') &&
            p[i + 3] == 'm') {
            i += 4;
            continue;
        }
        char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
        if ((i > start && spec->write(spec->write_arg, b->p + start, i - start) != 0) ||
            spec->write(spec->write_arg, text ? esc : "\xEF\xBF\xBD", text ? 4 : 3) != 0)
            return false;
        start = ++i;
    }
    return i == start || spec->write(spec->write_arg, b->p + start, i - start) == 0;
}

enum oc_status oc_sbuf_flush(struct oc_sbuf *b, const struct oc_report_spec *spec, struct oc_diag *d) {
    if (b->oom)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    if (b->n && !oc_write_clean(b, spec))
        return oc_diag_set(d, OC_ERR_IO, "cannot write the report");
    b->n = 0;
    return OC_OK;
}

/* Decimal digits of v into tmp (no NUL); returns how many. */
/* ---- escaping for each format ---------------------------------------------------- */

/* the style sheet of every HTML page the reports write */
const char oc_html_style[] =
    "body{font-family:sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#eee}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:1.5em}.chart text{font-size:11px;fill:#222}"
    ".bar{fill:#4e79a7}.bar2{fill:#f28e2b}.axis{stroke:#888}"
    ".warn{background:#fde8e8;border:1px solid #c0392b;padding:6px 10px}";

/* s escaped for HTML; control bytes as '?', line breaks too unless kept */
static void oc_html_escape(struct oc_sbuf *b, const char *s, bool keep_newlines) {
    for (; *s; s++) {
        switch (*s) {
        case '&':
            oc_sbuf_puts(b, "&amp;");
            break;
        case '<':
            oc_sbuf_puts(b, "&lt;");
            break;
        case '>':
            oc_sbuf_puts(b, "&gt;");
            break;
        case '"':
            oc_sbuf_puts(b, "&quot;");
            break;
        case '\'':
            oc_sbuf_puts(b, "&#39;");
            break;
        default:
            if (((unsigned char)*s < 0x20 && !(keep_newlines && *s == '\n')) || *s == 0x7f)
                oc_sbuf_puts(b, "?");
            else
                oc_sbuf_put(b, s, 1);
        }
    }
}

void oc_html_text(struct oc_sbuf *b, const char *s) {
    oc_html_escape(b, s, false);
}

void oc_html_pre(struct oc_sbuf *b, const char *text) {
    if (!text || !*text)
        return;
    oc_sbuf_puts(b, "<pre>");
    oc_html_escape(b, text, true);
    oc_sbuf_puts(b, text[strlen(text) - 1] == '\n' ? "</pre>\n" : "\n</pre>\n");
}

void oc_html_open(struct oc_sbuf *b, const char *title, const char *heading, const char *subject) {
    oc_sbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    oc_html_text(b, title);
    oc_sbuf_puts(b, ": ");
    oc_html_text(b, subject ? subject : "");
    oc_sbuf_printf(b, "</title><style>%s</style></head>\n<body>\n<h1>", oc_html_style);
    oc_html_text(b, heading);
    oc_sbuf_puts(b, ": ");
    oc_html_text(b, subject ? subject : "");
    oc_sbuf_puts(b, "</h1>\n");
}

/* Table cells: '|' escaped, control bytes shown as '?'. */
void oc_md_text(struct oc_sbuf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '|')
            oc_sbuf_puts(b, "\\|");
        else if ((unsigned char)*s < 0x20 || *s == 0x7f)
            oc_sbuf_puts(b, "?");
        else
            oc_sbuf_put(b, s, 1);
    }
}

/* Quotes a field when it holds a comma, quote, CR or LF (quotes doubled). */
void oc_csv_field(struct oc_sbuf *b, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        oc_sbuf_puts(b, s);
        return;
    }
    oc_sbuf_puts(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            oc_sbuf_puts(b, "\"");
        oc_sbuf_put(b, p, 1);
    }
    oc_sbuf_puts(b, "\"");
}

int oc_report_flush(void *arg, struct oc_sbuf *b) {
    struct oc_report_flush *f = arg;
    f->st = oc_sbuf_flush(b, f->spec, f->d);
    return f->st != OC_OK;
}

static int oc_u64_digits(uint64_t v, char tmp[24]) {
    char rev[24];
    int n = 0;
    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++)
        tmp[i] = rev[n - 1 - i];
    return n;
}

void oc_sbuf_u64(struct oc_sbuf *b, uint64_t v) {
    char tmp[24];
    oc_sbuf_put(b, tmp, (size_t)oc_u64_digits(v, tmp));
}

const char *oc_lower_bound_mark(const struct oc_totals *t, bool ascii) {
    return oc_totals_exact(t) ? "" : ascii ? ">= " : "≥ ";
}

void oc_fmt_incomplete(struct oc_sbuf *b, const struct oc_totals *t) {
    if (t->n_uncosted) {
        oc_sbuf_printf(b, "%d of %d node%s ha%s no cost (%d without a shape or rule, %d downstream of them)",
                       t->n_uncosted, t->n_nodes, t->n_nodes == 1 ? "" : "s", t->n_uncosted == 1 ? "s" : "ve",
                       t->n_uncosted - t->n_downstream, t->n_downstream);
        if (t->flags & OC_COST_OVERFLOW)
            oc_sbuf_puts(b, ", and a count passed 64 bits (saturated at 2^64 - 1)");
    } else if (t->flags & OC_COST_OVERFLOW) {
        oc_sbuf_puts(b, "a count passed 64 bits and is saturated at 2^64 - 1");
    }
}

double oc_mib(uint64_t bytes) {
    return (double)bytes / 1048576.0;
}

double oc_gib(uint64_t bytes) {
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

size_t oc_text_width(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

const char *oc_fmt_thousands(uint64_t v, char *buf, size_t size) {
    char tmp[24];
    int n = oc_u64_digits(v, tmp);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o + 2 < size)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
    return buf;
}

static void oc_fmt_dims(struct oc_sbuf *b, int32_t rank, const struct oc_dim *dims) {
    struct oc_value v = {.rank = rank, .dims = (struct oc_dim *)dims};
    oc_fmt_shape(b, &v);
}

/* seq<[3, 4]> x 2 (x ? when the length is unknown); opt<[3, 4]>, opt<seq<[3]> x 2>;
 * opt<none> when empty, opt?<...> when that is not known. */
static void oc_fmt_nontensor(struct oc_sbuf *b, const struct oc_ntype *t) {
    bool seq = t->kind == OC_TYPE_SEQUENCE || t->inner == OC_TYPE_SEQUENCE;
    if (t->kind == OC_TYPE_OPTIONAL) {
        if (t->present == 0) {
            oc_sbuf_puts(b, "opt<none>");
            return;
        }
        oc_sbuf_puts(b, t->present < 0 ? "opt?<" : "opt<");
    }
    if (seq)
        oc_sbuf_puts(b, "seq<");
    oc_fmt_dims(b, t->rank, t->dims);
    if (seq) {
        oc_sbuf_puts(b, "> x ");
        if (t->len >= 0)
            oc_sbuf_printf(b, "%lld", (long long)t->len);
        else
            oc_sbuf_puts(b, "?");
    }
    if (t->kind == OC_TYPE_OPTIONAL)
        oc_sbuf_puts(b, ">");
}

void oc_fmt_shape(struct oc_sbuf *b, const struct oc_value *v) {
    if (v->nt) {
        oc_fmt_nontensor(b, v->nt);
        return;
    }
    if (v->rank < 0) {
        oc_sbuf_puts(b, "?");
        return;
    }
    oc_sbuf_puts(b, "[");
    for (int32_t i = 0; i < v->rank; i++) {
        if (i)
            oc_sbuf_puts(b, ", ");
        if (v->dims[i].value >= 0)
            oc_sbuf_u64(b, (uint64_t)v->dims[i].value);
        else
            oc_sbuf_puts(b, v->dims[i].sym ? v->dims[i].sym : "?");
    }
    oc_sbuf_puts(b, "]");
}

void oc_fmt_shape_sym(struct oc_sbuf *b, const struct oc_graph *g, int32_t vi, const struct oc_symbolic *s) {
    const struct oc_value *v = &g->values[vi];
    const struct oc_poly *const *polys = s && s->dims ? s->dims[vi] : NULL;
    if (!polys || v->nt || v->rank < 0) {
        oc_fmt_shape(b, v);
        return;
    }
    oc_sbuf_puts(b, "[");
    for (int32_t i = 0; i < v->rank; i++) {
        char buf[256];
        int64_t k;
        if (i)
            oc_sbuf_puts(b, ", ");
        if (polys[i] && !oc_poly_constant(polys[i], &k)) {
            if (s->value_derived && !s->value_derived[vi])
                oc_sbuf_puts(b, "~"); /* fitted, not derived (symbolic.h) */
            oc_sbuf_puts(b, oc_poly_format(polys[i], s, true, buf, sizeof buf));
        }
        else if (v->dims[i].value >= 0)
            oc_sbuf_u64(b, (uint64_t)v->dims[i].value);
        else
            oc_sbuf_puts(b, "?");
    }
    oc_sbuf_puts(b, "]");
}

void oc_fmt_shape_compact(struct oc_sbuf *b, const struct oc_value *v) {
    if (v->rank < 0) {
        oc_sbuf_puts(b, "?");
        return;
    }
    for (int32_t i = 0; i < v->rank; i++) {
        if (i)
            oc_sbuf_puts(b, "x");
        if (v->dims[i].value >= 0)
            oc_sbuf_u64(b, (uint64_t)v->dims[i].value);
        else
            oc_sbuf_puts(b, "?");
    }
}

/* The shapes of values vals[0..n), omitted ones (-1) and, with
 * activations_only, initializers left out. */
static void oc_fmt_value_shapes(struct oc_sbuf *b, const struct oc_graph *g, const int32_t *vals, int32_t n,
                                const struct oc_symbolic *s, bool bracket, bool activations_only) {
    int32_t shown = 0;
    for (int32_t k = 0; k < n; k++)
        shown += vals[k] >= 0 && !(activations_only && g->values[vals[k]].kind == OC_VALUE_INITIALIZER);
    if (bracket && shown > 1)
        oc_sbuf_puts(b, "[");
    for (int32_t k = 0, i = 0; k < n; k++) {
        if (vals[k] < 0 || (activations_only && g->values[vals[k]].kind == OC_VALUE_INITIALIZER))
            continue;
        oc_sbuf_puts(b, i++ ? ", " : "");
        oc_fmt_shape_sym(b, g, vals[k], s);
    }
    if (bracket && shown > 1)
        oc_sbuf_puts(b, "]");
    if (!shown)
        oc_sbuf_puts(b, "-");
}

void oc_fmt_node_shapes(struct oc_sbuf *b, const struct oc_graph *g, const struct oc_node *n,
                        const struct oc_symbolic *s, bool bracket) {
    oc_fmt_value_shapes(b, g, n->out, n->n_out, s, bracket, false);
}

void oc_fmt_node_input_shapes(struct oc_sbuf *b, const struct oc_graph *g, const struct oc_node *n,
                              const struct oc_symbolic *s) {
    oc_fmt_value_shapes(b, g, n->in, n->n_in, s, true, true);
}

void oc_fmt_sym_binding(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_symbolic *s) {
    for (int32_t i = 0; i < s->n_syms; i++) {
        int64_t v = 1;
        for (int32_t j = 0; j < an->n_bound; j++)
            if (an->bound[j].name && strcmp(an->bound[j].name, s->syms[i]) == 0)
                v = an->bound[j].value;
        oc_sbuf_printf(b, "%s%s=%lld", i ? ", " : "", s->syms[i], (long long)v);
    }
}

static uint64_t oc_sort_key(const struct oc_node *n, enum oc_sort s) {
    bool unknown = (n->cost.flags & OC_COST_UNKNOWN) != 0;
    switch (s) {
    case OC_SORT_MACS:
        return unknown ? 0 : n->cost.macs;
    case OC_SORT_FLOPS:
        return unknown ? 0 : n->cost.flops;
    case OC_SORT_PARAMS:
        return n->params;
    case OC_SORT_BYTES:
        return n->activation_bytes;
    default:
        return 0;
    }
}

struct oc_row_key {
    uint64_t key;
    int32_t pos, node;
};

static int oc_row_cmp(const void *pa, const void *pb) {
    const struct oc_row_key *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

int32_t *oc_report_rows(const struct oc_analysis *an, const struct oc_report_spec *spec, int32_t *n) {
    const struct oc_graph *g = an->graph;
    int32_t *rows = malloc(((size_t)g->n_nodes + 1) * sizeof *rows);
    if (!rows)
        return NULL;
    memcpy(rows, g->order, (size_t)g->n_nodes * sizeof *rows);
    *n = g->n_nodes;
    if (spec->sort != OC_SORT_NONE && g->n_nodes > 1) { /* largest first, ties in execution order */
        struct oc_row_key *k = malloc((size_t)g->n_nodes * sizeof *k);
        if (!k) {
            free(rows);
            return NULL;
        }
        for (int32_t i = 0; i < g->n_nodes; i++)
            k[i] = (struct oc_row_key){oc_sort_key(&g->nodes[rows[i]], spec->sort), i, rows[i]};
        qsort(k, (size_t)g->n_nodes, sizeof *k, oc_row_cmp);
        for (int32_t i = 0; i < g->n_nodes; i++)
            rows[i] = k[i].node;
        free(k);
    }
    if (spec->top > 0 && spec->top < *n)
        *n = spec->top;
    return rows;
}

/* Allocations jansson asked for and did not get since the last JSON was
   written. A JSON document built while one failed may lack a key or a value
   without a word (json_object_set_new drops what it cannot hold), so a
   report that sees one says out of memory rather than write what is left;
   the count starts again with each (a long-lived process, the Python
   package's, is not marked for good by one failure). jansson allocates
   through oc_json_malloc from the library's load on (json_set_alloc_funcs,
   below). */
static unsigned long oc_json_failed;

static void *oc_json_malloc(size_t n) {
    void *p = malloc(n);
    if (!p)
        oc_json_failed++;
    return p;
}

__attribute__((constructor)) static void oc_json_track_allocations(void) { json_set_alloc_funcs(oc_json_malloc, free); }

bool oc_json_incomplete(void) {
    bool failed = oc_json_failed != 0;
    oc_json_failed = 0;
    return failed;
}

void oc_sbuf_json(struct oc_sbuf *b, json_t *doc) { oc_sbuf_json_digits(b, doc, 0); }

void oc_sbuf_json_digits(struct oc_sbuf *b, json_t *doc, int digits) {
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | (digits > 0 ? JSON_REAL_PRECISION(digits) : 0);
    char *s = doc ? json_dumps(doc, flags) : NULL;
    json_decref(doc);
    if (!s || oc_json_incomplete()) {
        free(s);
        b->oom = true;
        return;
    }
    oc_sbuf_puts(b, s);
    oc_sbuf_puts(b, "\n");
    free(s);
}

/* s as a JSON string; bytes that are not UTF-8 become U+FFFD (jansson refuses them) */
json_t *oc_jstr(const char *s) {
    if (!s)
        s = "";
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *fixed = malloc(3 * n + 1);
    if (!fixed)
        return NULL;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = p[i] < 0x80 ? 1 : (p[i] >> 5) == 6 ? 2 : (p[i] >> 4) == 14 ? 3 : (p[i] >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (p[i + k] & 0xC0) == 0x80;
        if (ok && len > 1) {
            json_t *probe = json_stringn((const char *)p + i, len);
            ok = probe != NULL;
            json_decref(probe);
        }
        if (ok) {
            memcpy(fixed + o, p + i, len);
            o += len;
            i += len;
        } else {
            memcpy(fixed + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    j = json_stringn(fixed, o);
    free(fixed);
    return j;
}

/* Counts are unsigned 64-bit; JSON integers are signed 64-bit. A saturated
 * count is written as INT64_MAX and the totals flag it. */
json_t *oc_jint(uint64_t v) {
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}
