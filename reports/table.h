/*
 * table.h — the one table model of reports/ (internal). A writer declares
 * columns (header, machine key, alignment) and fills rows of cells; one
 * renderer per format draws any table: text (padded columns, optional
 * rules, indent and a column that shrinks to the terminal), Markdown (pipe
 * table), CSV (RFC 4180, keys as header) and HTML (<table>). A new column
 * is one oc_table_col call in its writer; a new format is one renderer.
 *
 * Cells hold the text the reader sees; each renderer applies only its
 * format's escaping ('|' and control bytes in Markdown, <>&" in HTML,
 * quoting in CSV). Text writers make names printable themselves
 * (\xNN for control bytes) before they reach a cell. Numbers, sizes and
 * shapes are formatted with the helpers of format.c.
 */
#ifndef OC_TABLE_H
#define OC_TABLE_H

/* included by report_impl.h after struct oc_sbuf */

enum oc_align { OC_ALIGN_LEFT, OC_ALIGN_RIGHT };

enum { OC_TABLE_MAX_COLS = 32 };

struct oc_table_col {
    const char *header; /* text, Markdown and HTML: "Peak act. (MiB)"     */
    const char *key;    /* CSV header: "peak_activation_bytes"           */
    enum oc_align align;
};

struct oc_table {
    struct oc_table_col cols[OC_TABLE_MAX_COLS];
    int32_t n_cols;
    int32_t n_rows;
    bool oom;           /* a cell could not be stored: renderers set oom */
    struct oc_sbuf text; /* the cells' text, each NUL-terminated         */
    size_t *off;        /* n_rows x n_cols; SIZE_MAX: no cell (empty)   */
    int32_t *level;     /* per row: indent of its first cell            */
    bool leveled;       /* oc_table_level was called: rows are a tree    */
    int32_t cap_rows, next_col;
    bool open;          /* the last cell is still being written          */
};

/* A column (before the first row); past OC_TABLE_MAX_COLS sets oom. */
void oc_table_col(struct oc_table *t, const char *header, const char *key, enum oc_align align);
/* Columns from a static list. */
void oc_table_cols(struct oc_table *t, const struct oc_table_col *cols, int32_t n);
/* Room for n rows in advance (a table of known length grows no more). */
void oc_table_reserve(struct oc_table *t, int32_t n);
/* Drops the rows drawn so far, keeping the columns and the storage (a
 * CSV table drawn in batches of rows holds only one batch). */
void oc_table_clear_rows(struct oc_table *t);
/* Starts a row; its cells follow in column order (missing ones are ""). */
void oc_table_row(struct oc_table *t);
/* Indent level of the current row's first cell (--depth module rows). */
void oc_table_level(struct oc_table *t, int32_t level);
/* The next cell of the current row, as formatted text. */
void oc_table_cell(struct oc_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void oc_table_puts(struct oc_table *t, const char *s);
/* Starts the next cell and returns the buffer its text is appended to (for
 * the format.c helpers that write into a buffer); the cell ends with the
 * next cell, row or rendering. */
struct oc_sbuf *oc_table_next(struct oc_table *t);
/* Cell (row, col), "" when absent. */
const char *oc_table_at(const struct oc_table *t, int32_t row, int32_t col);
void oc_table_free(struct oc_table *t);

/* Called between rows once the output passes 64 KiB (large tables go out
 * as they are drawn); non-zero stops the rendering. */
struct oc_table_flush {
    int (*fn)(void *arg, struct oc_sbuf *b);
    void *arg;
};

/* Text layout. */
struct oc_text_style {
    const char *indent;   /* before every line (header, rows): "  " or ""  */
    bool rules;           /* '-' above the header and '=' below, as wide as
                             the table (with its indent)                  */
    bool bold_header;     /* ANSI bold header (a terminal)                 */
    int32_t fit_width;    /* > 0: shrink shrink_col (down to 16 columns,
                             cut cells end in "…") so a line fits           */
    int32_t shrink_col;
    const struct oc_table_flush *flush; /* or NULL                         */
};
/* Draws the table; returns the width of a line (indent included), which
 * the text report uses for its other rules; 0 when flush failed. */
size_t oc_table_text(struct oc_sbuf *b, const struct oc_table *t, const struct oc_text_style *style);
/* Markdown: a pipe table, '|' escaped and control bytes as '?', right-
 * aligned columns marked "---:"; indent levels as "&nbsp;&nbsp;" each. */
void oc_table_md(struct oc_sbuf *b, const struct oc_table *t);
/* The same with the columns padded to one width, so the source reads as a
 * table too (replay and merge reports). */
void oc_table_md_aligned(struct oc_sbuf *b, const struct oc_table *t);
/* CSV (RFC 4180): the keys as header, cells with , " CR or LF quoted.
 * oc_table_csv_rows draws the rows only (a table drawn in batches). */
void oc_table_csv(struct oc_sbuf *b, const struct oc_table *t, const struct oc_table_flush *flush);
void oc_table_csv_rows(struct oc_sbuf *b, const struct oc_table *t);
/* The renderer of a format: CSV, Markdown, HTML, or plain text for any
 * other (JSON has no tables). */
void oc_table_draw(struct oc_sbuf *b, const struct oc_table *t, int format);
/* HTML: <table>, a header row of <th>, right-aligned cells class "n";
 * in a table of levels (oc_table_level) the first cell pads (level + 1) em. */
void oc_table_html(struct oc_sbuf *b, const struct oc_table *t);

#endif
