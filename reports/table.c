/*
 * table.c — the table model and its renderers (table.h).
 */
#define _GNU_SOURCE
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

/* Room for the cells up to the end of the current row. */
static bool oc_table_reserve(struct oc_table *t, int32_t need) {
    if (need <= t->cap)
        return true;
    int32_t cap = t->cap ? t->cap : 64;
    while (cap < need)
        cap *= 2;
    char **c = realloc(t->cells, (size_t)cap * sizeof *c);
    if (!c)
        return false;
    memset(c + t->cap, 0, (size_t)(cap - t->cap) * sizeof *c);
    t->cells = c;
    t->cap = cap;
    return true;
}

void oc_table_row(struct oc_table *t) {
    if (t->oom || !oc_table_reserve(t, (t->n_rows + 1) * t->n_cols)) {
        t->oom = true;
        return;
    }
    t->n_cells = t->n_rows * t->n_cols;
    t->n_rows++;
}

void oc_table_cell(struct oc_table *t, const char *fmt, ...) {
    if (t->oom || t->n_rows == 0 || t->n_cells >= t->n_rows * t->n_cols) {
        t->oom = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = true;
        return;
    }
    t->cells[t->n_cells++] = s;
}

const char *oc_table_at(const struct oc_table *t, int32_t row, int32_t col) {
    const char *s = row < t->n_rows && col < t->n_cols ? t->cells[row * t->n_cols + col] : NULL;
    return s ? s : "";
}

void oc_table_free(struct oc_table *t) {
    for (int32_t i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* The text of a cell padded to w: spaces after it (left) or before it (right). */
static void oc_table_pad(struct oc_sbuf *b, const char *s, size_t w, enum oc_align a) {
    size_t n = oc_text_width(s);
    if (a == OC_ALIGN_RIGHT)
        oc_sbuf_pad(b, ' ', w > n ? w - n : 0);
    oc_sbuf_puts(b, s);
    if (a == OC_ALIGN_LEFT)
        oc_sbuf_pad(b, ' ', w > n ? w - n : 0);
}

void oc_table_text(struct oc_sbuf *b, const struct oc_table *t) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    size_t w[OC_TABLE_MAX_COLS];
    for (int32_t c = 0; c < t->n_cols; c++) {
        w[c] = oc_text_width(t->cols[c].header);
        for (int32_t r = 0; r < t->n_rows; r++)
            if (oc_text_width(oc_table_at(t, r, c)) > w[c])
                w[c] = oc_text_width(oc_table_at(t, r, c));
    }
    for (int32_t r = -1; r < t->n_rows; r++) {
        for (int32_t c = 0; c < t->n_cols; c++) {
            oc_sbuf_puts(b, c ? "  " : "");
            oc_table_pad(b, r < 0 ? t->cols[c].header : oc_table_at(t, r, c), w[c], t->cols[c].align);
        }
        oc_sbuf_puts(b, "\n");
    }
}

static void oc_table_md_text(struct oc_sbuf *b, const char *s) {
    for (; *s; s++)
        oc_sbuf_puts(b, *s == '|' ? "\\|" : (char[2]){*s, 0});
}

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
            oc_table_md_text(b, r < 0 ? t->cols[c].header : oc_table_at(t, r, c));
            oc_sbuf_puts(b, " |");
        }
        oc_sbuf_puts(b, "\n");
    }
}

static void oc_table_csv_cell(struct oc_sbuf *b, const char *s) {
    bool quote = strpbrk(s, ",\"\r\n") != NULL;
    oc_sbuf_puts(b, quote ? "\"" : "");
    for (; *s; s++)
        oc_sbuf_puts(b, *s == '"' ? "\"\"" : (char[2]){*s, 0});
    oc_sbuf_puts(b, quote ? "\"" : "");
}

void oc_table_csv(struct oc_sbuf *b, const struct oc_table *t) {
    if (t->oom) {
        b->oom = true;
        return;
    }
    for (int32_t r = -1; r < t->n_rows; r++) {
        for (int32_t c = 0; c < t->n_cols; c++) {
            oc_sbuf_puts(b, c ? "," : "");
            oc_table_csv_cell(b, r < 0 ? t->cols[c].key : oc_table_at(t, r, c));
        }
        oc_sbuf_puts(b, "\n");
    }
}
