/*
 * testutil.h — cmocka includes and helpers shared by the unit tests.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analyze.h"
#include "model.h"
#include "pbw.h"

#include <string.h>

/* Loads a serialized model and analyzes it. Returns the status; on success
 * *an and *m must be freed with tu_free. The pbw is freed. */
static inline enum oc_status tu_analyze(struct pbw *bytes, const struct oc_analyze_opts *o, struct oc_model **m,
                                        struct oc_analysis **an, struct oc_diag *d) {
    *m = NULL;
    *an = NULL;
    memset(d, 0, sizeof *d);
    /* the model borrows the buffer: keep it alive by leaking into the model's lifetime */
    enum oc_status st = oc_model_load_buffer(bytes->p, bytes->n, NULL, m, d);
    if (st == OC_OK)
        st = oc_analyze(*m, o, an, d);
    return st;
}

static inline void tu_free(struct oc_model *m, struct oc_analysis *an, struct pbw *bytes) {
    oc_analysis_free(an);
    oc_model_free(m);
    pbw_free(bytes);
}

/* Node by name. */
/* Whether one of the analysis' warnings holds text. */
static inline bool tu_warned(const struct oc_analysis *an, const char *text) {
    for (int32_t i = 0; i < an->n_warnings; i++)
        if (strstr(an->warnings[i], text))
            return true;
    return false;
}

static inline const struct oc_node *tu_node(const struct oc_analysis *an, const char *name) {
    for (int32_t i = 0; i < an->graph->n_nodes; i++)
        if (strcmp(an->graph->nodes[i].name, name) == 0)
            return &an->graph->nodes[i];
    fail_msg("no node %s", name);
    return NULL;
}

/* Output k of a node. */
static inline const struct oc_value *tu_out(const struct oc_analysis *an, const char *node, int k) {
    const struct oc_node *n = tu_node(an, node);
    assert_true(k < n->n_out && n->out[k] >= 0);
    return &an->graph->values[n->out[k]];
}

/* Asserts a value's concrete shape. */
#define TU_SHAPE(v, ...)                                                                           \
    do {                                                                                           \
        const int64_t _e[] = {__VA_ARGS__};                                                        \
        const struct oc_value *_v = (v);                                                           \
        assert_int_equal(_v->rank, (int)(sizeof _e / sizeof _e[0]));                               \
        for (int _i = 0; _i < _v->rank; _i++)                                                      \
            assert_int_equal(_v->dims[_i].value, _e[_i]);                                          \
    } while (0)

/* ---- one analysis per test case (a copy of this state per test file) ----
 * Files that manage their own analyses define TU_NO_FIXTURE first. */
#ifndef TU_NO_FIXTURE
__attribute__((unused)) static struct oc_analysis *an;
__attribute__((unused)) static struct oc_model *md;
__attribute__((unused)) static struct pbw bytes;
__attribute__((unused)) static struct oc_diag dg;

/* Analyzes a serialized model (pbm_finish or pbm_finish_ms); the analysis
 * must succeed. */
static inline void tu_analyze_bytes_ok(struct pbw file, const struct oc_analyze_opts *o) {
    bytes = file;
    if (tu_analyze(&bytes, o, &md, &an, &dg) != OC_OK)
        fail_msg("analysis failed: %s", dg.msg);
}

/* Serializes pm at `opset`, analyzes it; the analysis must succeed. */
static inline void tu_analyze_ok(struct pb_model *pm, int64_t opset, const struct oc_analyze_opts *o) {
    tu_analyze_bytes_ok(pbm_finish(pm, opset), o);
}

/* The analysis must stop with `want` and a message containing `text`. */
static inline void tu_analyze_err(struct pb_model *pm, int64_t opset, enum oc_status want, const char *text) {
    bytes = pbm_finish(pm, opset);
    enum oc_status st = tu_analyze(&bytes, NULL, &md, &an, &dg);
    assert_int_equal(st, want);
    if (!strstr(dg.msg, text))
        fail_msg("message '%s' lacks '%s'", dg.msg, text);
}

/* cmocka teardown: frees the case's analysis, model and bytes. */
static inline int tu_teardown(void **state) {
    (void)state;
    tu_free(md, an, &bytes);
    md = NULL;
    an = NULL;
    return 0;
}
#endif

#define TU_LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define TU_DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define TU_FLOATS(...) ((const float[]){__VA_ARGS__})

#endif
