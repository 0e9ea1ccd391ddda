/*
 * sweep.c — the table of `onnxcost sweep`: one row per binding.
 */
#include "report_impl.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void oc_sweep_text(struct oc_sbuf *b, const struct oc_sweep_row *rows, int32_t n,
                          const struct oc_sweep_dim *dims, int32_t nd) {
    enum { FIXED = 6 };
    static const char *const hdr[FIXED] = {"MACs", "FLOPs", "Params", "Activations (MiB)", "Peak (MiB)", "Input (MiB)"};
    int32_t ncol = nd + FIXED;
    size_t w[OC_SWEEP_MAX_DIMS + FIXED];
    char(*cell)[OC_SWEEP_MAX_DIMS + FIXED][64] = calloc((size_t)n + 1, sizeof *cell);
    if (!cell) {
        b->oom = true;
        return;
    }
    for (int32_t c = 0; c < ncol; c++)
        w[c] = strlen(c < nd ? dims[c].name : hdr[c - nd]);
    for (int32_t r = 0; r < n; r++) {
        const struct oc_sweep_row *row = &rows[r];
        const struct oc_totals *t = &row->totals;
        for (int32_t c = 0; c < nd; c++)
            snprintf(cell[r][c], 64, "%lld", (long long)row->values[c]);
        if (row->status != OC_OK) {
            snprintf(cell[r][nd], 64, "error");
        } else {
            const char *lb = oc_lower_bound_mark(t, true);
            char num[48];
            snprintf(cell[r][nd], 64, "%s%s", lb, oc_fmt_thousands(t->macs, num, sizeof num));
            snprintf(cell[r][nd + 1], 64, "%s%s", lb, oc_fmt_thousands(t->flops, num, sizeof num));
            oc_fmt_thousands(t->params, cell[r][nd + 2], 64);
            snprintf(cell[r][nd + 3], 64, "%s%.2f", lb, (double)t->activation_bytes / 1048576.0);
            snprintf(cell[r][nd + 4], 64, "%s%.2f", t->peak_complete && !*lb ? "" : ">= ",
                     (double)t->peak_activation_bytes / 1048576.0);
            snprintf(cell[r][nd + 5], 64, "%.2f", (double)t->input_bytes / 1048576.0);
        }
        for (int32_t c = 0; c < ncol; c++)
            if (strlen(cell[r][c]) > w[c])
                w[c] = strlen(cell[r][c]);
    }
    for (int32_t c = 0; c < ncol; c++) {
        const char *h = c < nd ? dims[c].name : hdr[c - nd];
        oc_sbuf_puts(b, c ? "  " : "");
        oc_sbuf_pad(b, ' ', w[c] - strlen(h));
        oc_sbuf_puts(b, h);
    }
    oc_sbuf_puts(b, "\n");
    for (int32_t r = 0; r < n; r++) {
        for (int32_t c = 0; c < ncol; c++) {
            oc_sbuf_puts(b, c ? "  " : "");
            oc_sbuf_pad(b, ' ', w[c] - strlen(cell[r][c]));
            oc_sbuf_puts(b, cell[r][c]);
        }
        oc_sbuf_puts(b, "\n");
    }
    for (int32_t r = 0; r < n; r++) /* where a row's values are lower bounds, why */
        if (rows[r].status == OC_OK && !oc_totals_exact(&rows[r].totals)) {
            for (int32_t c = 0; c < nd; c++)
                oc_sbuf_printf(b, "%s%s=%lld", c ? ", " : "WARNING: incomplete at ", dims[c].name,
                               (long long)rows[r].values[c]);
            oc_sbuf_puts(b, ": ");
            oc_fmt_incomplete(b, &rows[r].totals);
            oc_sbuf_puts(b, "; values marked >= are lower bounds\n");
        }
    for (int32_t r = 0; r < n; r++)
        if (rows[r].status != OC_OK) {
            for (int32_t c = 0; c < nd; c++)
                oc_sbuf_printf(b, "%s%s=%lld", c ? ", " : "error at ", dims[c].name, (long long)rows[r].values[c]);
            oc_sbuf_printf(b, ": %s\n", rows[r].reason);
        }
    free(cell);
}

static void oc_sweep_json(struct oc_sbuf *b, const struct oc_sweep_row *rows, int32_t n,
                          const struct oc_sweep_dim *dims, int32_t nd, const char *path) {
    json_t *doc = json_object(), *jd = json_array(), *jr = json_array();
    for (int32_t c = 0; jd && c < nd; c++)
        json_array_append_new(jd, json_string(dims[c].name));
    for (int32_t r = 0; jr && r < n; r++) {
        const struct oc_sweep_row *row = &rows[r];
        const struct oc_totals *t = &row->totals;
        json_t *o = json_object(), *bind = json_object();
        for (int32_t c = 0; c < nd; c++)
            json_object_set_new(bind, dims[c].name, json_integer(row->values[c]));
        json_object_set_new(o, "bindings", bind);
        if (row->status != OC_OK) {
            json_object_set_new(o, "error", json_string(row->reason));
        } else {
            json_object_set_new(o, "macs", json_integer((json_int_t)t->macs));
            json_object_set_new(o, "flops", json_integer((json_int_t)t->flops));
            json_object_set_new(o, "params", json_integer((json_int_t)t->params));
            json_object_set_new(o, "activation_bytes", json_integer((json_int_t)t->activation_bytes));
            json_object_set_new(o, "peak_activation_bytes", json_integer((json_int_t)t->peak_activation_bytes));
            json_object_set_new(o, "input_bytes", json_integer((json_int_t)t->input_bytes));
            /* false: macs, flops and the activation sizes are lower bounds */
            json_object_set_new(o, "complete", json_boolean(oc_totals_exact(t)));
            json_object_set_new(o, "nodes_without_cost", json_integer(t->n_uncosted));
        }
        json_array_append_new(jr, o);
    }
    json_object_set_new(doc, "schema", json_string("onnxcost-sweep/1"));
    json_object_set_new(doc, "model", json_string(path ? path : ""));
    json_object_set_new(doc, "dims", jd);
    json_object_set_new(doc, "rows", jr);
    oc_sbuf_json(b, doc);
}

enum oc_status oc_report_sweep(const struct oc_sweep_row *rows, int32_t n, const struct oc_sweep_dim *dims,
                               int32_t n_dims, const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON)
        oc_sweep_json(&b, rows, n, dims, n_dims, spec->model_path);
    else
        oc_sweep_text(&b, rows, n, dims, n_dims);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
