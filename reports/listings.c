/*
 * listings.c — the tables of `onnxcost gpus` (the built-in devices) and
 * `onnxcost ops` (the operators and versions with a rule), text or md.
 */
#include "report_impl.h"

#include "../analyzer/ops.h"

#include <stdio.h>
#include <string.h>

static enum oc_status oc_listing_render(struct oc_table *t, const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    oc_table_draw(&b, t, spec->format);
    if (t->oom)
        b.oom = true;
    oc_table_free(t);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}

enum oc_status oc_report_gpus(const struct oc_report_spec *spec, struct oc_diag *d) {
    static const enum oc_unit units[] = {OC_UNIT_FP64,    OC_UNIT_FP64_TC, OC_UNIT_FP32,   OC_UNIT_TF32_TC,
                                         OC_UNIT_FP16_TC, OC_UNIT_BF16_TC, OC_UNIT_FP8_TC, OC_UNIT_INT8_TC};
    enum { NU = sizeof units / sizeof units[0] };
    char hdr[NU][32];
    struct oc_table t = {0};
    oc_table_col(&t, "id", "id", OC_ALIGN_LEFT);
    oc_table_col(&t, "name", "name", OC_ALIGN_LEFT);
    for (int c = 0; c < NU; c++) {
        snprintf(hdr[c], sizeof hdr[c], "%s (%s)", oc_unit_name(units[c]),
                 units[c] == OC_UNIT_INT8_TC ? "TOPS" : "TFLOPS");
        oc_table_col(&t, hdr[c], hdr[c], OC_ALIGN_RIGHT);
    }
    oc_table_col(&t, "memory (GiB)", "memory_gib", OC_ALIGN_RIGHT);
    oc_table_col(&t, "DRAM (GB/s)", "dram_gbs", OC_ALIGN_RIGHT);
    oc_table_col(&t, "link (GB/s)", "link_gbs", OC_ALIGN_RIGHT);
    for (int32_t i = 0; i < oc_gpu_count(); i++) {
        const struct oc_gpu *g = oc_gpu_at(i);
        oc_table_row(&t);
        oc_table_puts(&t, g->id);
        oc_table_puts(&t, g->name);
        for (int c = 0; c < NU; c++) {
            if (g->peak[units[c]] > 0)
                oc_table_cell(&t, "%g", g->peak[units[c]] / 1e12);
            else
                oc_table_puts(&t, "-");
        }
        oc_table_cell(&t, "%g", oc_gib(g->mem_bytes));
        oc_table_cell(&t, "%g", g->mem_bw / 1e9);
        oc_table_cell(&t, "%g", g->link_bw / 1e9);
    }
    return oc_listing_render(&t, spec, d);
}

enum oc_status oc_report_ops(const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_table t = {0};
    oc_table_col(&t, "domain", "domain", OC_ALIGN_LEFT);
    oc_table_col(&t, "operator", "operator", OC_ALIGN_LEFT);
    oc_table_col(&t, "versions", "versions", OC_ALIGN_LEFT);
    size_t n = oc_op_count();
    for (size_t i = 0; i < n;) {
        const struct oc_op_def *def = oc_op_at(i);
        oc_table_row(&t);
        oc_table_puts(&t, def->domain[0] ? def->domain : "ai.onnx");
        oc_table_puts(&t, def->op_type);
        struct oc_sbuf *v = oc_table_next(&t);
        size_t j = i;
        for (; j < n && strcmp(oc_op_at(j)->domain, def->domain) == 0 && strcmp(oc_op_at(j)->op_type, def->op_type) == 0;
             j++)
            oc_sbuf_printf(v, "%s%d", j > i ? ", " : "", oc_op_at(j)->since_version);
        i = j;
    }
    return oc_listing_render(&t, spec, d);
}
