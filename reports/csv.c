/*
 * csv.c — one row per node, raw integers, RFC 4180 quoting.
 */
#include "report_impl.h"

#include "../views/measure.h"

#include "../analyzer/dtype.h"

#include <stdlib.h>
#include <string.h>

/* A count, or an empty cell when it is unknown. */
static void oc_csv_u64(struct oc_table *t, uint64_t v, bool known) {
    struct oc_sbuf *b = oc_table_next(t);
    if (known)
        oc_sbuf_u64(b, v);
}

/* shapes "1x64x112x112;1x64" and dtypes "f32;i64", one per output */
static void oc_csv_outputs(struct oc_table *t, const struct oc_graph *g, const struct oc_node *nd) {
    struct oc_sbuf *shapes = oc_table_next(t);
    for (int32_t k = 0, shown = 0; k < nd->n_out; k++)
        if (nd->out[k] >= 0) {
            oc_sbuf_puts(shapes, shown++ ? ";" : "");
            oc_fmt_shape_compact(shapes, &g->values[nd->out[k]]);
        }
    struct oc_sbuf *types = oc_table_next(t);
    for (int32_t k = 0, shown = 0; k < nd->n_out; k++)
        if (nd->out[k] >= 0) {
            oc_sbuf_puts(types, shown++ ? ";" : "");
            oc_sbuf_puts(types, oc_dtype_name(g->values[nd->out[k]].dtype));
        }
}

enum oc_status oc_render_csv(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    static const char *const keys[] = {"index",      "name",     "op_type",          "domain",
                                       "output_shapes", "output_dtypes", "params",   "macs",
                                       "flops",      "activation_bytes", "bytes_read", "bytes_written",
                                       "status"};
    static const char *const gpu_keys[] = {"gpu_unit", "intensity", "bound", "time_s", "time_source"};
    const struct oc_graph *g = an->graph;
    int32_t n;
    int32_t *rows = oc_report_rows(an, spec, &n);
    if (!rows)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    struct oc_table t = {0};
    for (size_t c = 0; c < sizeof keys / sizeof keys[0]; c++)
        oc_table_col(&t, keys[c], keys[c], OC_ALIGN_LEFT);
    for (size_t c = 0; spec->gpu && c < sizeof gpu_keys / sizeof gpu_keys[0]; c++)
        oc_table_col(&t, gpu_keys[c], gpu_keys[c], OC_ALIGN_LEFT);
    if (spec->measured) /* --measured: ONNX Runtime's median, empty without an event */
        oc_table_col(&t, "measured_median_us", "measured_median_us", OC_ALIGN_LEFT);
    static const char *const range_keys[] = {"macs_min", "macs_max", "flops_min", "flops_max",
                                             "activation_bytes_min", "activation_bytes_max"};
    for (size_t c = 0; spec->ranges && c < sizeof range_keys / sizeof range_keys[0]; c++)
        oc_table_col(&t, range_keys[c], range_keys[c], OC_ALIGN_LEFT); /* --dim NAME=LO:HI: over the box */
    struct oc_sbuf b = {0};
    enum oc_status st = OC_OK;
    oc_table_row(&t); /* the header: the keys, drawn as a row of cells */
    for (int32_t c = 0; c < t.n_cols; c++)
        oc_table_puts(&t, t.cols[c].key);
    /* drawn in batches of 1024 rows: the table never holds the whole file */
    for (int32_t r = 0; r < n && !t.oom && st == OC_OK; r++) {
        const struct oc_node *nd = &g->nodes[rows[r]];
        bool known = !(nd->cost.flags & OC_COST_UNKNOWN);
        if (t.n_rows == 1024) {
            oc_table_csv_rows(&b, &t);
            oc_table_clear_rows(&t);
            if (b.n > 1 << 16)
                st = oc_sbuf_flush(&b, spec, d);
        }
        oc_table_row(&t);
        oc_table_cell(&t, "%d", nd->index);
        oc_table_puts(&t, nd->name);
        oc_table_puts(&t, nd->op_type);
        oc_table_puts(&t, nd->domain);
        oc_csv_outputs(&t, g, nd);
        oc_csv_u64(&t, nd->params, true);
        oc_csv_u64(&t, nd->cost.macs, known);
        oc_csv_u64(&t, nd->cost.flops, known);
        oc_csv_u64(&t, nd->activation_bytes, true);
        oc_csv_u64(&t, nd->cost.bytes_read, known);
        oc_csv_u64(&t, nd->cost.bytes_written, known);
        /* overflow: a count passed 64 bits and is saturated at 2^64 - 1 */
        oc_table_puts(&t, nd->status != OC_OK ? (nd->status == OC_ERR_UNSUPPORTED ? "unsupported" : "shape_unknown")
                          : nd->cost.flags & OC_COST_OVERFLOW ? "overflow"
                                                              : "ok");
        /* docs/MODEL.md; empty cells when the node is not timed */
        const struct oc_node_perf *np = spec->gpu ? &spec->gpu->perf->nodes[nd->index] : NULL;
        if (np && !np->known) {
            for (int k = 0; k < 5; k++)
                oc_table_puts(&t, "");
        } else if (np) {
            oc_table_puts(&t, oc_unit_name(np->unit));
            if (np->bound == OC_BOUND_NONE) { /* no kernel: 0, or a CPU node's fixed cost */
                oc_table_puts(&t, "");
                oc_table_puts(&t, "");
                oc_table_cell(&t, "%.17g", np->time);
                oc_table_puts(&t, "");
            } else {
                oc_table_cell(&t, "%.17g", np->ai);
                oc_table_puts(&t, oc_bound_name(np->bound));
                oc_table_cell(&t, "%.17g", np->time);
                oc_table_puts(&t, np->from_table ? "table" : "roofline");
            }
        }
        if (spec->measured) {
            const struct oc_measured_node *m = &spec->measured->nodes[nd->index];
            if (m->runs)
                oc_table_cell(&t, "%.17g", m->median_us);
            else
                oc_table_puts(&t, "");
        }
        for (int k = 0; spec->ranges && k < 3; k++) {
            uint64_t lo, hi;
            bool has = oc_ranges_node_u64(spec, nd->index, k, &lo, &hi);
            oc_csv_u64(&t, lo, has);
            oc_csv_u64(&t, hi, has);
        }
    }
    free(rows);
    oc_table_csv_rows(&b, &t);
    if (t.oom)
        b.oom = true;
    oc_table_free(&t);
    if (st == OC_OK)
        st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
