/*
 * fold_dump — test helper: analyzes a model and prints, as JSON, the
 * contents value propagation found for each graph output:
 *   {"outputs": [{"name": ..., "dtype": ..., "dims": [...], "values": [...] | null}]}
 * Floats that JSON cannot hold are written "nan", "inf", "-inf". Used by
 * tests/oracle/fold_values.py, which compares them with the ONNX backend
 * test data. Exit 2 with one line when the model cannot be analyzed.
 */
#include "analyze.h"
#include "fold.h"
#include "model.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

static json_t *oc_float_json(double x) {
    if (isnan(x))
        return json_string("nan");
    if (isinf(x))
        return json_string(x > 0 ? "inf" : "-inf");
    return json_real(x);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fold_dump MODEL.onnx\n");
        return 2;
    }
    struct oc_model *m;
    struct oc_diag d = {0};
    if (oc_model_load(argv[1], NULL, &m, &d) != OC_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], d.msg);
        return 2;
    }
    /* the backend cases' inputs are made initializers: let folding read them */
    struct oc_analyze_opts opts = {.fold_any_size = true};
    struct oc_analysis *an;
    if (oc_analyze(m, &opts, &an, &d) != OC_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], d.msg);
        oc_model_free(m);
        return 2;
    }
    struct oc_graph *g = an->graph;
    json_t *outs = json_array();
    for (int32_t i = 0; i < g->n_outputs; i++) {
        struct oc_value *v = &g->values[g->outputs[i]];
        json_t *o = json_object(), *dims = json_array(), *vals = json_null();
        for (int32_t k = 0; k < v->rank; k++)
            json_array_append_new(dims, json_integer(v->dims[k].value));
        struct oc_known kn;
        if (oc_fold_get(g, v, &kn)) {
            vals = json_array();
            for (int64_t j = 0; j < kn.n; j++)
                json_array_append_new(vals, kn.i ? json_integer(kn.i[j]) : oc_float_json(kn.f[j]));
        }
        json_object_set_new(o, "name", json_string(v->name));
        json_object_set_new(o, "dtype", json_integer(v->dtype));
        json_object_set_new(o, "dims", dims);
        json_object_set_new(o, "values", vals);
        json_array_append_new(outs, o);
    }
    json_t *doc = json_object();
    json_object_set_new(doc, "outputs", outs);
    json_dumpf(doc, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(doc);
    oc_analysis_free(an);
    oc_model_free(m);
    return 0;
}
