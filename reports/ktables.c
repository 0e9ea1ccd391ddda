/*
 * ktables.c — measured kernel tables as a spec file (`onnxcost tables -o`,
 * read back by --gpu-spec) and the summary of what a build took.
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"

#include <jansson.h>
#include <math.h>

static const char *oc_kt_dtype(int32_t dt) {
    return dt == OC_DT_FLOAT16 ? "f16" : dt == OC_DT_BFLOAT16 ? "bf16" : "f32";
}

static const char *const oc_kt_features[][3] = {
    {"m", "n", "k"},                  /* gemm                   */
    {"pixels", "c_out", "reduction"}, /* the convolutions       */
    {"bytes", "runs", NULL},          /* the memory-bound kinds */
};

static const char *const *oc_kt_feature_names(enum oc_kfamily f) {
    return f == OC_KF_GEMM ? oc_kt_features[0] : oc_kfamily_memory(f) ? oc_kt_features[2] : oc_kt_features[1];
}

static json_t *oc_kt_table_json(const struct oc_ktable *k) {
    json_t *o = json_object(), *names = json_array(), *samples = json_array();
    int32_t nf = oc_kfamily_features(k->family);
    json_object_set_new(o, "family", json_string(oc_kfamily_name(k->family)));
    json_object_set_new(o, "dtype", json_string(oc_kt_dtype(k->dtype)));
    if (!oc_kfamily_memory(k->family))
        json_object_set_new(o, "math", json_string(oc_math_name((enum oc_math)k->math)));
    if (k->op)
        json_object_set_new(o, "op", json_string(k->op));
    if (k->threads > 0) /* a CPU's: the thread count its samples ran at */
        json_object_set_new(o, "threads", json_integer(k->threads));
    for (int32_t j = 0; j < nf; j++)
        json_array_append_new(names, json_string(oc_kt_feature_names(k->family)[j]));
    json_array_append_new(names, json_string("work"));
    json_array_append_new(names, json_string("seconds"));
    json_object_set_new(o, "columns", names);
    for (int32_t i = 0; i < k->n; i++) {
        const struct oc_ksample *s = &k->samples[i];
        json_t *row = json_array();
        for (int32_t j = 0; j < nf; j++)
            json_array_append_new(row, json_real(s->x[j]));
        json_array_append_new(row, json_real(s->work));
        json_array_append_new(row, json_real(s->seconds));
        json_array_append_new(samples, row);
    }
    json_object_set_new(o, "samples", samples);
    return o;
}

enum oc_status oc_report_kernel_tables_spec(const struct oc_gpu *base, const struct oc_ktables *t,
                                            const struct oc_report_spec *spec, struct oc_diag *d) {
    json_t *doc = json_object(), *kt = json_object(), *tables = json_array();
    oc_spec_device_json(base, doc);
    const struct oc_gpu_efficiency *e = &base->measured;
    bool calibrated = e->memory > 0 || e->has_launch || e->host_s > 0 || e->gap_s > 0;
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        calibrated = calibrated || e->unit[u] > 0 || e->conv_unit[u] > 0;
    if (calibrated) /* the roofline's factors, for the nodes the tables do not cover */
        json_object_set_new(doc, "efficiency", oc_spec_efficiency_json(e));
    json_object_set_new(kt, "source", oc_jstr(t->source));
    for (int32_t i = 0; i < t->n; i++)
        json_array_append_new(tables, oc_kt_table_json(&t->tables[i]));
    json_object_set_new(kt, "tables", tables);
    json_object_set_new(doc, "kernel_tables", kt);
    struct oc_sbuf b = {0};
    oc_sbuf_json_digits(&b, doc, 10);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}

static const struct oc_table_col oc_kt_cols[] = {
    {"Family", "family", OC_ALIGN_LEFT},
    {"Dtype", "dtype", OC_ALIGN_LEFT},
    {"Math", "math", OC_ALIGN_LEFT},
    {"Samples", "samples", OC_ALIGN_RIGHT},
    {"Features (min..max)", "features", OC_ALIGN_LEFT},
    {"Efficiency (min..max)", "efficiency", OC_ALIGN_LEFT},
};

/* One table's ranges: each feature's and the efficiency's (work per second). */
struct oc_kt_range {
    double lo[3], hi[3], elo, ehi;
};

static struct oc_kt_range oc_kt_range_of(const struct oc_ktable *k) {
    struct oc_kt_range r = {{INFINITY, INFINITY, INFINITY}, {0, 0, 0}, INFINITY, 0};
    for (int32_t s = 0; s < k->n; s++) {
        for (int32_t j = 0; j < oc_kfamily_features(k->family); j++) {
            r.lo[j] = fmin(r.lo[j], k->samples[s].x[j]);
            r.hi[j] = fmax(r.hi[j], k->samples[s].x[j]);
        }
        double eff = k->samples[s].work / k->samples[s].seconds;
        r.elo = fmin(r.elo, eff);
        r.ehi = fmax(r.ehi, eff);
    }
    return r;
}

static void oc_kt_json(struct oc_sbuf *b, const struct oc_ktables_report *r) {
    json_t *doc = json_object(), *tables = json_array(), *files = json_array();
    json_object_set_new(doc, "schema", json_string("onnxcost-tables/1"));
    json_object_set_new(doc, "source", oc_jstr(r->tables->source));
    for (int32_t i = 0; i < r->tables->n; i++) {
        const struct oc_ktable *k = &r->tables->tables[i];
        struct oc_kt_range rg = oc_kt_range_of(k);
        json_t *o = json_object(), *fr = json_object();
        json_object_set_new(o, "family", json_string(oc_kfamily_name(k->family)));
        json_object_set_new(o, "dtype", json_string(oc_kt_dtype(k->dtype)));
        json_object_set_new(o, "math", oc_kfamily_memory(k->family) ? json_null()
                                                                    : json_string(oc_math_name((enum oc_math)k->math)));
        json_object_set_new(o, "op", oc_jstr(k->op));
        json_object_set_new(o, "threads", k->threads > 0 ? json_integer(k->threads) : json_null());
        json_object_set_new(o, "samples", json_integer(k->n));
        for (int32_t j = 0; j < oc_kfamily_features(k->family); j++) {
            json_t *mm = json_array();
            json_array_append_new(mm, json_real(rg.lo[j]));
            json_array_append_new(mm, json_real(rg.hi[j]));
            json_object_set_new(fr, oc_kt_feature_names(k->family)[j], mm);
        }
        json_object_set_new(o, "feature_ranges", fr);
        json_object_set_new(o, "min_work_per_s", json_real(rg.elo));
        json_object_set_new(o, "max_work_per_s", json_real(rg.ehi));
        json_array_append_new(tables, o);
    }
    json_object_set_new(doc, "tables", tables);
    for (int32_t i = 0; i < r->n_files; i++) {
        const struct oc_ktables_file *f = &r->files[i];
        json_t *o = json_object();
        json_object_set_new(o, "path", oc_jstr(f->path));
        json_object_set_new(o, "model", oc_jstr(f->model));
        json_object_set_new(o, "samples", json_integer(f->added.added));
        json_object_set_new(o, "no_family", json_integer(f->added.no_family));
        json_object_set_new(o, "not_found", json_integer(f->added.not_found));
        json_object_set_new(o, "replay_overhead", json_integer(f->added.overhead));
        json_array_append_new(files, o);
    }
    json_object_set_new(doc, "files", files);
    json_object_set_new(doc, "spec_file", oc_jstr(r->spec_out));
    oc_sbuf_json(b, doc);
}

enum oc_status oc_report_kernel_tables(const struct oc_ktables_report *r, const struct oc_report_spec *spec,
                                       struct oc_diag *d) {
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON) {
        oc_kt_json(&b, r);
    } else {
        struct oc_table tb = {0};
        oc_table_cols(&tb, oc_kt_cols, (int32_t)(sizeof oc_kt_cols / sizeof oc_kt_cols[0]));
        for (int32_t i = 0; i < r->tables->n; i++) {
            const struct oc_ktable *k = &r->tables->tables[i];
            struct oc_kt_range rg = oc_kt_range_of(k);
            bool mem = oc_kfamily_memory(k->family);
            oc_table_row(&tb);
            struct oc_sbuf *name = oc_table_next(&tb);
            oc_sbuf_printf(name, "%s%s%s", oc_kfamily_name(k->family), k->op ? " " : "", k->op ? k->op : "");
            if (k->threads > 0)
                oc_sbuf_printf(name, " (%d thread%s)", (int)k->threads, k->threads == 1 ? "" : "s");
            oc_table_puts(&tb, oc_kt_dtype(k->dtype));
            oc_table_puts(&tb, mem ? "-" : oc_math_name((enum oc_math)k->math));
            oc_table_cell(&tb, "%d", (int)k->n);
            struct oc_sbuf *f = oc_table_next(&tb);
            for (int32_t j = 0; j < oc_kfamily_features(k->family); j++)
                oc_sbuf_printf(f, "%s%s %.0f..%.0f", j ? ", " : "", oc_kt_feature_names(k->family)[j], rg.lo[j],
                               rg.hi[j]);
            oc_table_cell(&tb, mem ? "%.1f..%.1f GB/s" : "%.3f..%.2f TFLOP/s", mem ? rg.elo / 1e9 : rg.elo / 1e12,
                          mem ? rg.ehi / 1e9 : rg.ehi / 1e12);
        }
        oc_sbuf_printf(&b, "Kernel tables measured on %s\n", r->tables->source ? r->tables->source : "?");
        oc_table_draw(&b, &tb, spec->format);
        oc_table_free(&tb);
        for (int32_t i = 0; i < r->n_files; i++) {
            const struct oc_ktables_file *f = &r->files[i];
            oc_sbuf_printf(&b, "%s: %d samples; measured nodes left out: %d of no family, %d not in the model, "
                               "%d with replay overhead\n",
                           f->path, (int)f->added.added, (int)f->added.no_family, (int)f->added.not_found,
                           (int)f->added.overhead);
        }
        if (r->spec_out)
            oc_sbuf_printf(&b, "Spec file: %s (read it with --gpu-spec %s)\n", r->spec_out, r->spec_out);
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
