/*
 * table.c — the table model and its renderers (table.h).
 */
#include "report_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void oc_table_col(struct oc_table *t, const char *header, const char *key, enum oc_align align) {
    if (t->n_cols == OC_TABLE_MAX_COLS || t->n_rows) {
        t->oom = true;
        return;
    }
    t->cols[t->n_cols++] = (struct oc_table_col){header, key, align};
}

void oc_table_cols(struct oc_table *t, const struct oc_table_col *cols, int32_t n) {
    for (int32_t c = 0; c < n; c++)
        oc_table_col(t, cols[c].header, cols[c].key, cols[c].align);
}

/* Ends the cell being written (its NUL). */
static void oc_table_close(struct oc_table *t) {
    if (t->open)
        oc_sbuf_put(&t->text, "", 1);
    t->open = false;
    t->oom |= t->text.oom;
}

/* Room for rows up to n. */
static bool oc_table_grow(struct oc_table *t, int32_t n) {
    if (n <= t->cap_rows)
        return true;
    int32_t cap = t->cap_rows ? t->cap_rows : 64;
    while (cap < n)
        cap = cap > INT32_MAX / 2 ? n : 2 * cap;
    size_t *off = realloc(t->off, (size_t)cap * (size_t)(t->n_cols ? t->n_cols : 1) * sizeof *off);
    if (off)
        t->off = off;
    int32_t *level = off ? realloc(t->level, (size_t)cap * sizeof *level) : NULL;
    if (!off || !level) {
        t->oom = true;
        return false;
    }
    t->level = level;
    t->cap_rows = cap;
    return true;
}

void oc_table_reserve(struct oc_table *t, int32_t n) {
    oc_table_grow(t, n);
}

void oc_table_clear_rows(struct oc_table *t) {
    oc_table_close(t);
    t->n_rows = 0;
    t->next_col = 0;
    t->text.n = 0;
}

void oc_table_row(struct oc_table *t) {
    oc_table_close(t);
    if (t->oom || !oc_table_grow(t, t->n_rows + 1))
        return;
    for (int32_t c = 0; c < t->n_cols; c++)
        t->off[(size_t)t->n_rows * (size_t)t->n_cols + (size_t)c] = SIZE_MAX;
    t->level[t->n_rows++] = 0;
    t->next_col = 0;
}

void oc_table_level(struct oc_table *t, int32_t level) {
    if (!t->oom && t->n_rows)
        t->level[t->n_rows - 1] = level;
    t->leveled = true;
}

struct oc_sbuf *oc_table_next(struct oc_table *t) {
    oc_table_close(t);
    if (t->oom || t->n_rows == 0 || t->next_col >= t->n_cols) {
        t->oom = true;
        t->text.oom = true; /* what the caller appends is dropped */
        return &t->text;
    }
    t->off[(size_t)(t->n_rows - 1) * (size_t)t->n_cols + (size_t)t->next_col++] = t->text.n;
    t->open = true;
    return &t->text;
}

void oc_table_cell(struct oc_table *t, const char *fmt, ...) {
    struct oc_sbuf *b = oc_table_next(t);
    if (t->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    oc_sbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void oc_table_puts(struct oc_table *t, const char *s) {
    struct oc_sbuf *b = oc_table_next(t);
    if (!t->oom)
        oc_sbuf_puts(b, s);
}

const char *oc_table_at(const struct oc_table *t, int32_t row, int32_t col) {
    if (row >= t->n_rows || col >= t->n_cols)
        return "";
    size_t o = t->off[(size_t)row * (size_t)t->n_cols + (size_t)col];
    return o == SIZE_MAX || !t->text.p ? "" : t->text.p + o;
}

void oc_table_free(struct oc_table *t) {
    oc_sbuf_free(&t->text);
    free(t->off);
    free(t->level);
    memset(t, 0, sizeof *t);
}

/* ---- text ------------------------------------------------------------------------ */

/* A cell padded to `width` columns, after `lead` spaces of indent; text
 * wider than that is cut and ends in "…" (the terminal-width fit). The
 * last cell of a line is not padded after its text. */
static void oc_text_cell(struct oc_sbuf *out, const char *s, size_t s_cols, size_t lead, size_t width, bool right,
                         bool last) {
    size_t len = lead + s_cols;
    if (len > width && width >= 2) {
        size_t keep = 0, cols = lead < width - 1 ? lead : width - 1;
        oc_sbuf_pad(out, ' ', cols);
        while (s[keep] && cols < width - 1) { /* whole UTF-8 characters */
            keep++;
            while (((unsigned char)s[keep] & 0xC0) == 0x80)
                keep++;
            cols++;
        }
        oc_sbuf_put(out, s, keep);
        oc_sbuf_puts(out, "\xE2\x80\xA6");
        return;
    }
    if (right)
        oc_sbuf_pad(out, ' ', width - len);
    oc_sbuf_pad(out, ' ', lead);
    oc_sbuf_puts(out, s);
    if (!right && !last)
        oc_sbuf_pad(out, ' ', width - len);
}

size_t oc_table_text(struct oc_sbuf *b, const struct oc_table *t, const struct oc_text_style *style) {
    static const struct oc_text_style plain = {0};
    if (!style)
        style = &plain;
    if (t->oom) {
        b->oom = true;
        return 0;
    }
    const char *indent = style->indent ? style->indent : "";
    size_t w[OC_TABLE_MAX_COLS];
    /* each cell's width, measured once */
    uint32_t *cw = malloc(((size_t)t->n_rows * (size_t)t->n_cols + 1) * sizeof *cw);
    if (!cw) {
        b->oom = true;
        return 0;
    }
    for (int32_t c = 0; c < t->n_cols; c++)
        w[c] = oc_text_width(t->cols[c].header);
    for (int32_t r = 0, i = 0; r < t->n_rows; r++)
        for (int32_t c = 0; c < t->n_cols; c++, i++) {
            size_t n = oc_text_width(oc_table_at(t, r, c));
            cw[i] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
            n += c == 0 ? 2 * (size_t)t->level[r] : 0;
            if (n > w[c])
                w[c] = n;
        }
    size_t line = strlen(indent);
    for (int32_t c = 0; c < t->n_cols; c++)
        line += w[c] + (c ? 2 : 0);
    if (style->fit_width > 0 && line > (size_t)style->fit_width) { /* narrow one column first */
        size_t *sw = &w[style->shrink_col];
        size_t excess = line - (size_t)style->fit_width, room = *sw > 16 ? *sw - 16 : 0;
        size_t cut = excess < room ? excess : room;
        *sw -= cut;
        line -= cut;
    }
    if (style->rules) {
        oc_sbuf_pad(b, '-', line);
        oc_sbuf_puts(b, "\n");
    }
    oc_sbuf_puts(b, style->bold_header ? "\033[1m" : "");
    oc_sbuf_puts(b, indent);
    for (int32_t c = 0; c < t->n_cols; c++) {
        oc_sbuf_puts(b, c ? "  " : "");
        oc_text_cell(b, t->cols[c].header, oc_text_width(t->cols[c].header), 0, w[c], t->cols[c].align == OC_ALIGN_RIGHT,
                     c + 1 == t->n_cols);
    }
    oc_sbuf_puts(b, style->bold_header ? "\033[0m\n" : "\n");
    if (style->rules) {
        oc_sbuf_pad(b, '=', line);
        oc_sbuf_puts(b, "\n");
    }
    for (int32_t r = 0, i = 0; r < t->n_rows; r++) {
        oc_sbuf_puts(b, indent);
        for (int32_t c = 0; c < t->n_cols; c++, i++) {
            oc_sbuf_puts(b, c ? "  " : "");
            oc_text_cell(b, oc_table_at(t, r, c), cw[i], c == 0 ? 2 * (size_t)t->level[r] : 0, w[c],
                         t->cols[c].align == OC_ALIGN_RIGHT, c + 1 == t->n_cols);
        }
        oc_sbuf_puts(b, "\n");
        if (style->flush && b->n > 1 << 16 && style->flush->fn(style->flush->arg, b) != 0) {
            line = 0;
            break;
        }
    }
    free(cw);
    return line;
}

/* ---- Markdown ---------------------------------------------------------------------- */


void oc_table_md(struct oc_sbuf *b, const struct oc_table *t) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    for (int32_t r = -2; r < t->n_rows; r++) {
        oc_sbuf_puts(b, "|");
        for (int32_t c = 0; c < t->n_cols; c++) {
            if (r == -1) {
                oc_sbuf_puts(b, t->cols[c].align == OC_ALIGN_RIGHT ? "---:|" : "---|");
                continue;
            }
            oc_sbuf_puts(b, " ");
            for (int32_t k = 0; c == 0 && r >= 0 && k < t->level[r]; k++)
                oc_sbuf_puts(b, "&nbsp;&nbsp;");
            oc_md_text(b, r < 0 ? t->cols[c].header : oc_table_at(t, r, c));
            oc_sbuf_puts(b, " |");
        }
        oc_sbuf_puts(b, "\n");
    }
}

/* Columns of s as oc_md_text writes it. */
static size_t oc_md_width(const char *s) {
    size_t n = oc_text_width(s);
    for (; *s; s++)
        n += *s == '|';
    return n;
}

void oc_table_md_aligned(struct oc_sbuf *b, const struct oc_table *t) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    size_t w[OC_TABLE_MAX_COLS];
    for (int32_t c = 0; c < t->n_cols; c++) {
        w[c] = oc_md_width(t->cols[c].header);
        for (int32_t r = 0; r < t->n_rows; r++)
            if (oc_md_width(oc_table_at(t, r, c)) > w[c])
                w[c] = oc_md_width(oc_table_at(t, r, c));
    }
    for (int32_t r = -2; r < t->n_rows; r++) {
        for (int32_t c = 0; c < t->n_cols; c++) {
            bool right = t->cols[c].align == OC_ALIGN_RIGHT;
            oc_sbuf_puts(b, c ? " | " : "| ");
            if (r == -1) {
                oc_sbuf_pad(b, '-', w[c] > 3 ? w[c] - 1 : 2);
                oc_sbuf_puts(b, right ? ":" : "-");
                continue;
            }
            const char *s = r < 0 ? t->cols[c].header : oc_table_at(t, r, c);
            size_t n = oc_md_width(s);
            if (right)
                oc_sbuf_pad(b, ' ', w[c] - n);
            oc_md_text(b, s);
            if (!right)
                oc_sbuf_pad(b, ' ', w[c] - n);
        }
        oc_sbuf_puts(b, " |\n");
    }
}

/* ---- CSV ------------------------------------------------------------------------- */


static void oc_table_csv_row(struct oc_sbuf *b, const struct oc_table *t, int32_t r) {
    for (int32_t c = 0; c < t->n_cols; c++) {
        oc_sbuf_puts(b, c ? "," : "");
        oc_csv_field(b, r < 0 ? t->cols[c].key : oc_table_at(t, r, c));
    }
    oc_sbuf_puts(b, "\n");
}

void oc_table_csv_rows(struct oc_sbuf *b, const struct oc_table *t) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    for (int32_t r = 0; r < t->n_rows; r++)
        oc_table_csv_row(b, t, r);
}

void oc_table_csv(struct oc_sbuf *b, const struct oc_table *t, const struct oc_table_flush *flush) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    for (int32_t r = -1; r < t->n_rows; r++) {
        oc_table_csv_row(b, t, r);
        if (flush && b->n > 1 << 16 && flush->fn(flush->arg, b) != 0)
            return;
    }
}

void oc_table_draw(struct oc_sbuf *b, const struct oc_table *t, int format) {
    if (format == OC_FORMAT_CSV)
        oc_table_csv(b, t, NULL);
    else if (format == OC_FORMAT_MD)
        oc_table_md(b, t);
    else if (format == OC_FORMAT_HTML)
        oc_table_html(b, t);
    else
        oc_table_text(b, t, NULL);
}

/* ---- HTML ------------------------------------------------------------------------ */

void oc_table_html(struct oc_sbuf *b, const struct oc_table *t) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    bool indented = t->leveled;
    oc_sbuf_puts(b, "<table><tr>");
    for (int32_t c = 0; c < t->n_cols; c++) {
        oc_sbuf_puts(b, "<th>");
        oc_html_text(b, t->cols[c].header);
        oc_sbuf_puts(b, "</th>");
    }
    oc_sbuf_puts(b, "</tr>\n");
    for (int32_t r = 0; r < t->n_rows; r++) {
        oc_sbuf_puts(b, "<tr>");
        for (int32_t c = 0; c < t->n_cols; c++) {
            if (c == 0 && indented)
                oc_sbuf_printf(b, "<td style=\"padding-left:%dem\">", t->level[r] + 1);
            else
                oc_sbuf_puts(b, t->cols[c].align == OC_ALIGN_RIGHT ? "<td class=\"n\">" : "<td>");
            oc_html_text(b, oc_table_at(t, r, c));
            oc_sbuf_puts(b, "</td>");
        }
        oc_sbuf_puts(b, "</tr>\n");
    }
    oc_sbuf_puts(b, "</table>\n");
}
