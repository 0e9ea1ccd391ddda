/*
 * csv.c — one row per node, raw integers, RFC 4180 quoting.
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"

#include <stdlib.h>
#include <string.h>

/* Quotes a field when it holds a comma, quote, CR or LF (quotes doubled). */
static void oc_csv_field(struct oc_sbuf *b, const char *s) {
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

static void oc_csv_u64(struct oc_sbuf *b, uint64_t v, bool known) {
    if (known)
        oc_sbuf_printf(b, ",%llu", (unsigned long long)v);
    else
        oc_sbuf_puts(b, ",");
}

enum oc_status oc_render_csv(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    const struct oc_graph *g = an->graph;
    struct oc_sbuf b = {0}, cell = {0};
    int32_t n;
    int32_t *rows = oc_report_rows(an, spec, &n);
    if (!rows)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory while formatting the report");
    oc_sbuf_puts(&b, "index,name,op_type,domain,output_shapes,output_dtypes,params,macs,flops,activation_bytes,"
                     "bytes_read,bytes_written,status");
    oc_sbuf_puts(&b, spec->gpu ? ",gpu_unit,intensity,bound,time_s\n" : "\n");
    enum oc_status st = OC_OK;
    for (int32_t r = 0; r < n && st == OC_OK; r++) {
        const struct oc_node *nd = &g->nodes[rows[r]];
        bool known = !(nd->cost.flags & OC_COST_UNKNOWN);
        oc_sbuf_printf(&b, "%d,", nd->index);
        oc_csv_field(&b, nd->name);
        oc_sbuf_puts(&b, ",");
        oc_csv_field(&b, nd->op_type);
        oc_sbuf_puts(&b, ",");
        oc_csv_field(&b, nd->domain);
        /* shapes "1x64x112x112;1x64" and dtypes "f32;i64", one per output */
        cell.n = 0;
        struct oc_sbuf types = {0};
        for (int32_t k = 0; k < nd->n_out; k++) {
            if (nd->out[k] < 0)
                continue;
            const struct oc_value *v = &g->values[nd->out[k]];
            if (cell.n)
                oc_sbuf_puts(&cell, ";");
            if (types.n)
                oc_sbuf_puts(&types, ";");
            oc_sbuf_puts(&types, oc_dtype_name(v->dtype));
            if (v->rank < 0) {
                oc_sbuf_puts(&cell, "?");
                continue;
            }
            for (int32_t i = 0; i < v->rank; i++) {
                if (i)
                    oc_sbuf_puts(&cell, "x");
                if (v->dims[i].value >= 0)
                    oc_sbuf_printf(&cell, "%lld", (long long)v->dims[i].value);
                else
                    oc_sbuf_puts(&cell, "?");
            }
        }
        oc_sbuf_puts(&b, ",");
        oc_csv_field(&b, cell.p ? cell.p : "");
        oc_sbuf_puts(&b, ",");
        oc_csv_field(&b, types.p ? types.p : "");
        oc_sbuf_free(&types);
        oc_csv_u64(&b, nd->params, true);
        oc_csv_u64(&b, nd->cost.macs, known);
        oc_csv_u64(&b, nd->cost.flops, known);
        oc_csv_u64(&b, nd->activation_bytes, true);
        oc_csv_u64(&b, nd->cost.bytes_read, known);
        oc_csv_u64(&b, nd->cost.bytes_written, known);
        /* overflow: a count passed 64 bits and is saturated at 2^64 - 1 */
        oc_sbuf_puts(&b, nd->status != OC_OK                 ? (nd->status == OC_ERR_UNSUPPORTED ? ",unsupported"
                                                                                                  : ",shape_unknown")
                         : nd->cost.flags & OC_COST_OVERFLOW ? ",overflow"
                                                             : ",ok");
        if (spec->gpu) { /* docs/MODEL.md; empty cells when the node is not timed */
            const struct oc_node_perf *np = &spec->gpu->perf->nodes[nd->index];
            if (!np->known)
                oc_sbuf_puts(&b, ",,,,");
            else if (np->bound == OC_BOUND_NONE)
                oc_sbuf_printf(&b, ",%s,,,0", oc_unit_name(np->unit));
            else
                oc_sbuf_printf(&b, ",%s,%.17g,%s,%.17g", oc_unit_name(np->unit), np->ai, oc_bound_name(np->bound),
                               np->time);
        }
        oc_sbuf_puts(&b, "\n");
        if (b.n > 1 << 16)
            st = oc_sbuf_flush(&b, spec, d);
    }
    if (st == OC_OK)
        st = oc_sbuf_flush(&b, spec, d);
    free(rows);
    oc_sbuf_free(&cell);
    oc_sbuf_free(&b);
    return st;
}
