/*
 * compare.c — side-by-side totals of several models (onnxcost compare):
 * one row per model, the smallest value of each column marked "*", and each
 * value's ratio to the first model's.
 */
#include "report_impl.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OC_CMP_PARAMS, OC_CMP_MACS, OC_CMP_FLOPS, OC_CMP_PARAMS_BYTES, OC_CMP_PEAK, OC_CMP_TRAIN, OC_CMP_COUNT };

static const char *const oc_cmp_names[OC_CMP_COUNT] = {"params", "macs", "flops", "params_bytes",
                                                        "peak_activation_bytes", "training_bytes"};
static const char *const oc_cmp_headers[OC_CMP_COUNT] = {"Params", "MACs", "FLOPs", "Params (MiB)",
                                                          "Peak act. (MiB)", "Training (MiB)"};

static uint64_t oc_cmp_value(const struct oc_compare_entry *e, int c) {
    const struct oc_totals *t = &e->an->totals;
    switch (c) {
    case OC_CMP_PARAMS:
        return t->params;
    case OC_CMP_MACS:
        return t->macs;
    case OC_CMP_FLOPS:
        return t->flops;
    case OC_CMP_PARAMS_BYTES:
        return t->params_bytes;
    case OC_CMP_PEAK:
        return t->peak_activation_bytes;
    default:
        return e->training ? e->training->total_bytes : 0;
    }
}

/* True when column c of a model is only a lower bound (oc_totals_exact). */
static bool oc_cmp_lower(const struct oc_compare_entry *e, int c) {
    const struct oc_totals *t = &e->an->totals;
    bool saturated = (t->flags & OC_COST_OVERFLOW) != 0;
    switch (c) {
    case OC_CMP_PARAMS:
    case OC_CMP_PARAMS_BYTES:
        return saturated;
    case OC_CMP_PEAK:
        return !oc_totals_exact(t) || !t->peak_complete;
    case OC_CMP_TRAIN:
        return !oc_totals_exact(t) || (e->training && !e->training->complete);
    default:
        return !oc_totals_exact(t);
    }
}

enum oc_status oc_report_compare(const struct oc_compare_entry *e, int32_t n, const struct oc_report_spec *spec,
                                 struct oc_diag *d) {
    int ncol = e[0].training ? OC_CMP_COUNT : OC_CMP_COUNT - 1;
    uint64_t best[OC_CMP_COUNT];
    for (int c = 0; c < ncol; c++) {
        best[c] = UINT64_MAX;
        for (int32_t i = 0; i < n; i++) /* a lower bound is never the smallest */
            if (!oc_cmp_lower(&e[i], c) && oc_cmp_value(&e[i], c) < best[c])
                best[c] = oc_cmp_value(&e[i], c);
    }
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON) {
        json_t *doc = json_object(), *models = json_array();
        for (int32_t i = 0; i < n; i++) {
            json_t *o = json_object();
            json_object_set_new(o, "path", json_string(e[i].path));
            for (int c = 0; c < ncol; c++) {
                uint64_t v = oc_cmp_value(&e[i], c), v0 = oc_cmp_value(&e[0], c);
                char key[64];
                json_object_set_new(o, oc_cmp_names[c], json_integer((json_int_t)v));
                snprintf(key, sizeof key, "%s_ratio", oc_cmp_names[c]);
                json_object_set_new(o, key, v0 ? json_real((double)v / (double)v0) : json_null());
            }
            /* false: macs, flops and memory are lower bounds (nodes without a cost) */
            json_object_set_new(o, "complete", json_boolean(oc_totals_exact(&e[i].an->totals)));
            json_object_set_new(o, "nodes_without_cost", json_integer(e[i].an->totals.n_uncosted));
            json_array_append_new(models, o);
        }
        json_object_set_new(doc, "schema", json_string("onnxcost-compare/1"));
        json_object_set_new(doc, "models", models);
        oc_sbuf_json(&b, doc);
    } else {
        bool md = spec->format == OC_FORMAT_MD, csv = spec->format == OC_FORMAT_CSV;
        /* cells: model + per column "value (ratio)" */
        char(*cell)[OC_CMP_COUNT + 1][96] = calloc((size_t)n + 1, sizeof *cell);
        size_t w[OC_CMP_COUNT + 1];
        if (!cell)
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        w[0] = strlen("Model");
        for (int c = 0; c < ncol; c++)
            w[c + 1] = strlen(oc_cmp_headers[c]);
        for (int32_t i = 0; i < n; i++) {
            snprintf(cell[i][0], 96, "%s", e[i].path);
            for (int c = 0; c < ncol; c++) {
                uint64_t v = oc_cmp_value(&e[i], c), v0 = oc_cmp_value(&e[0], c);
                char num[48];
                if (csv)
                    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
                else if (c >= OC_CMP_PARAMS_BYTES)
                    snprintf(num, sizeof num, "%.2f", (double)v / 1048576.0);
                else
                    oc_fmt_thousands(v, num, sizeof num);
                const char *lb = csv || !oc_cmp_lower(&e[i], c) ? "" : md ? "≥ " : ">= ";
                if (csv)
                    snprintf(cell[i][c + 1], 96, "%s", num);
                else if (i == 0 || !v0)
                    snprintf(cell[i][c + 1], 96, "%s%s%s", lb, num, v == best[c] && !*lb && n > 1 ? " *" : "");
                else
                    snprintf(cell[i][c + 1], 96, "%s%s (%.2fx)%s", lb, num, (double)v / (double)v0,
                             v == best[c] && !*lb ? " *" : "");
            }
            for (int c = 0; c <= ncol; c++)
                if (strlen(cell[i][c]) > w[c])
                    w[c] = strlen(cell[i][c]);
        }
        if (csv) {
            oc_sbuf_puts(&b, "model");
            for (int c = 0; c < ncol; c++)
                oc_sbuf_printf(&b, ",%s", oc_cmp_names[c]);
            oc_sbuf_puts(&b, ",complete\n");
            for (int32_t i = 0; i < n; i++) {
                bool quote = strpbrk(cell[i][0], ",\"\r\n") != NULL;
                oc_sbuf_puts(&b, quote ? "\"" : "");
                for (const char *p = cell[i][0]; *p; p++) {
                    if (*p == '"')
                        oc_sbuf_puts(&b, "\"");
                    oc_sbuf_put(&b, p, 1);
                }
                oc_sbuf_puts(&b, quote ? "\"" : "");
                for (int c = 0; c < ncol; c++)
                    oc_sbuf_printf(&b, ",%s", cell[i][c + 1]);
                oc_sbuf_puts(&b, oc_totals_exact(&e[i].an->totals) ? ",true\n" : ",false\n");
            }
        } else {
            oc_sbuf_puts(&b, md ? "| " : "");
            for (int c = 0; c <= ncol; c++) {
                const char *h = c ? oc_cmp_headers[c - 1] : "Model";
                if (md) {
                    oc_sbuf_printf(&b, "%s%s", h, c < ncol ? " | " : " |\n");
                    continue;
                }
                oc_sbuf_puts(&b, c ? "  " : "");
                if (c)
                    oc_sbuf_pad(&b, ' ', w[c] - strlen(h));
                oc_sbuf_puts(&b, h);
                if (!c)
                    oc_sbuf_pad(&b, ' ', w[c] - strlen(h));
            }
            if (md) {
                oc_sbuf_puts(&b, "|---|");
                for (int c = 0; c < ncol; c++)
                    oc_sbuf_puts(&b, "---:|");
            }
            oc_sbuf_puts(&b, "\n");
            for (int32_t i = 0; i < n; i++) {
                oc_sbuf_puts(&b, md ? "| " : "");
                for (int c = 0; c <= ncol; c++) {
                    if (md) {
                        for (const char *p = cell[i][c]; *p; p++)
                            oc_sbuf_puts(&b, *p == '|' ? "\\\\|" : (char[2]){*p, 0});
                        oc_sbuf_puts(&b, c < ncol ? " | " : " |");
                        continue;
                    }
                    oc_sbuf_puts(&b, c ? "  " : "");
                    if (c)
                        oc_sbuf_pad(&b, ' ', w[c] - strlen(cell[i][c]));
                    oc_sbuf_puts(&b, cell[i][c]);
                    if (!c)
                        oc_sbuf_pad(&b, ' ', w[c] - strlen(cell[i][c]));
                }
                oc_sbuf_puts(&b, "\n");
            }
            oc_sbuf_puts(&b, md ? "\n" : "");
            oc_sbuf_puts(&b, "* = smallest in its column; (Nx) = ratio to the first model\n");
            for (int32_t i = 0; i < n; i++) {
                const struct oc_totals *t = &e[i].an->totals;
                if (oc_totals_exact(t))
                    continue;
                oc_sbuf_puts(&b, md ? "\n> **Incomplete:** " : "WARNING: incomplete: ");
                for (const char *p = e[i].path; *p; p++)
                    oc_sbuf_puts(&b, md && *p == '|' ? "\\|" : (char[2]){*p, 0});
                oc_sbuf_puts(&b, ": ");
                oc_fmt_incomplete(&b, t);
                oc_sbuf_puts(&b, md ? "; its values marked ≥ are lower bounds\n" : "; its values marked >= are lower bounds\n");
            }
        }
        free(cell);
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
