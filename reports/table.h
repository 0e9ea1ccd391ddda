/*
 * table.h — the one table model of reports/ (internal): columns with a
 * header, a machine key and an alignment; rows of text cells. A writer
 * fills a table and one renderer per format draws it (text, Markdown,
 * CSV), so a new column is one oc_table_col call and a new format one
 * renderer. Cells are formatted by the writer with the helpers of
 * format.c (numbers, sizes, shapes).
 */
#ifndef OC_TABLE_H
#define OC_TABLE_H

#include <stdbool.h>
#include <stdint.h>

struct oc_sbuf;

enum oc_align { OC_ALIGN_LEFT, OC_ALIGN_RIGHT };

enum { OC_TABLE_MAX_COLS = 32 };

struct oc_table_col {
    const char *header; /* text and Markdown: "Peak act. (MiB)"         */
    const char *key;    /* CSV header: "peak_activation_bytes"         */
    enum oc_align align;
};

struct oc_table {
    struct oc_table_col cols[OC_TABLE_MAX_COLS];
    int32_t n_cols;
    char **cells; /* row-major, n_cols per row, malloc'd strings   */
    int32_t n_rows, n_cells, cap;
    bool oom; /* a cell could not be stored: render nothing    */
};

/* A column (before the first row); beyond OC_TABLE_MAX_COLS sets oom. */
void oc_table_col(struct oc_table *t, const char *header, const char *key, enum oc_align align);
/* Starts a row; its cells follow in column order (missing ones are ""). */
void oc_table_row(struct oc_table *t);
/* The next cell of the current row. */
void oc_table_cell(struct oc_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Cell (row, col), "" when absent. */
const char *oc_table_at(const struct oc_table *t, int32_t row, int32_t col);
void oc_table_free(struct oc_table *t);

/* Text: columns padded to their widest cell, two spaces apart, the header
 * row first. */
void oc_table_text(struct oc_sbuf *b, const struct oc_table *t);
/* Markdown: a pipe table, '|' in cells escaped, right-aligned columns
 * marked "---:". */
void oc_table_md(struct oc_sbuf *b, const struct oc_table *t);
/* CSV (RFC 4180): the keys as header, cells with , " CR or LF quoted. */
void oc_table_csv(struct oc_sbuf *b, const struct oc_table *t);

#endif
