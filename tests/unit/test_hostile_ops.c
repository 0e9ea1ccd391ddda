/*
 * test_hostile_ops.c — every registry row against degenerate inputs.
 *
 * Each op version of analyzer/ops.def gets one node, fed in turn with: every
 * input omitted (""), inputs of unknown type, float scalars, empty int64
 * vectors, 4-D floats with zero and symbolic dims, int64 constants holding
 * the extremes of int64, and int64 constants holding -1 and 0. Whatever the
 * op, the analysis must end in OC_OK or in an error with a message, never a
 * crash; under the sanitizer build (-DONNXCOST_SANITIZE=ON) also never
 * undefined behaviour (signed overflow, a NULL member access, a division by
 * zero). The fuzzer found the first of these (SequenceInsert with its
 * required tensor input omitted) and this sweeps the whole table for the
 * same class of bug.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "ops.h"

#include <stdio.h>

enum variant {
    V_OMITTED,   /* every input ""                                       */
    V_UNTYPED,   /* graph inputs without a type                          */
    V_SCALAR,    /* float scalars                                        */
    V_EMPTY_I64, /* int64 [0]                                            */
    V_ZERO_4D,   /* float [1, 0, sym, 3]                                 */
    V_EXTREME,   /* int64 initializers {INT64_MAX, INT64_MIN, 0}        */
    V_MINUS_ONE, /* int64 initializers {-1, 0}                           */
    V_FIRST_ONLY,/* input 0 a float [2, 3, 4, 5], the others ""          */
    V_SEQ_FIRST, /* input 0 a sequence of float [2, 3], the others ""     */
    V_SEQ_ALL,   /* every input a sequence of float [2, 3]               */
    V_COUNT
};

static const char *const variant_name[V_COUNT] = {"omitted", "untyped", "scalar", "empty-int64",
                                                  "zero-4d", "int64-extremes", "minus-one", "first-only",
                                                  "sequence-first", "sequences"};

/* ValueInfo of a sequence of float [2, 3] tensors (field numbers of onnx.proto:
 * TypeProto.tensor_type 1 / sequence_type 4, Tensor.elem_type 1 / shape 2,
 * TensorShapeProto.dim 1, Dimension.dim_value 1, Sequence.elem_type 1). */
static struct pbw seq_value_info(const char *name) {
    struct pbw vi = {0}, tp = {0}, seq = {0}, elem = {0}, tt = {0}, sh = {0};
    for (int k = 0; k < 2; k++) {
        struct pbw dim = {0};
        pbw_int(&dim, 1, k == 0 ? 2 : 3);
        pbw_msg(&sh, 1, &dim);
    }
    pbw_int(&tt, 1, PB_FLOAT);
    pbw_msg(&tt, 2, &sh);
    pbw_msg(&elem, 1, &tt);
    pbw_msg(&seq, 1, &elem);
    pbw_msg(&tp, 4, &seq);
    pbw_str(&vi, 1, name);
    pbw_msg(&vi, 2, &tp);
    return vi;
}

/* Builds and analyzes one node of row d fed as variant v; fails the test on
 * a status without a message. Returns the status. */
static enum oc_status run_case(const struct oc_op_def *d, enum variant v, int32_t n_in) {
    struct pb_model pm = {0};
    char in_names[8][16], out_names[4][16];
    const char *ins[9] = {0}, *outs[5] = {0};
    for (int32_t i = 0; i < n_in; i++) {
        snprintf(in_names[i], sizeof in_names[i], "x%d", (int)i);
        bool omit = v == V_OMITTED || ((v == V_FIRST_ONLY || v == V_SEQ_FIRST) && i > 0);
        ins[i] = omit ? "" : in_names[i];
        if (omit)
            continue;
        switch (v) {
        case V_UNTYPED: {
            struct pbw vi = {0};
            pbw_str(&vi, 1, in_names[i]);
            pbm_input(&pm, vi);
            break;
        }
        case V_SCALAR:
            pbm_input(&pm, pb_value_info(in_names[i], PB_FLOAT, 0, NULL, NULL));
            break;
        case V_EMPTY_I64:
            pbm_input(&pm, pb_value_info(in_names[i], PB_INT64, 1, TU_DIMS(0), NULL));
            break;
        case V_ZERO_4D:
            pbm_input(&pm, pb_value_info(in_names[i], PB_FLOAT, 4, TU_DIMS(1, 0, -1, 3),
                                         TU_LIST(NULL, NULL, "sym", NULL)));
            break;
        case V_EXTREME:
            pbm_init(&pm, pb_tensor_i64(in_names[i], 1, TU_DIMS(3), TU_DIMS(INT64_MAX, INT64_MIN, 0)));
            break;
        case V_MINUS_ONE:
            pbm_init(&pm, pb_tensor_i64(in_names[i], 1, TU_DIMS(2), TU_DIMS(-1, 0)));
            break;
        case V_FIRST_ONLY:
            pbm_input(&pm, pb_value_info(in_names[i], PB_FLOAT, 4, TU_DIMS(2, 3, 4, 5), NULL));
            break;
        case V_SEQ_FIRST:
        case V_SEQ_ALL:
            pbm_input(&pm, seq_value_info(in_names[i]));
            break;
        default:
            break;
        }
    }
    int32_t n_out = d->n_out_max < 4 ? d->n_out_max : 4;
    for (int32_t k = 0; k < n_out; k++) {
        snprintf(out_names[k], sizeof out_names[k], "y%d", (int)k);
        outs[k] = out_names[k];
    }
    pbm_node(&pm, pb_node_dom("n", d->domain, d->op_type, ins, outs, 0, NULL));
    pbm_output(&pm, pb_value_info("y0", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, d->domain[0] ? 21 : d->since_version);
    if (d->domain[0]) { /* the row's own domain at its version */
        struct pbw os = {0};
        pbw_str(&os, 1, d->domain);
        pbw_int(&os, 2, d->since_version);
        pbw_msg(&bytes, 8, &os);
    }
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_diag dg;
    struct oc_analyze_opts o = {.batch = 2};
    enum oc_status st = tu_analyze(&bytes, &o, &m, &an, &dg);
    if (st != OC_OK && !dg.msg[0])
        fail_msg("%s%s%s-%d fed %s: status %d without a message", d->domain, d->domain[0] ? "::" : "", d->op_type,
                 d->since_version, variant_name[v], (int)st);
    tu_free(m, an, &bytes);
    return st;
}

static void every_row_every_variant(void **state) {
    (void)state;
    int32_t ok = 0, errors = 0;
    for (size_t i = 0; i < oc_op_count(); i++) {
        const struct oc_op_def *d = oc_op_at(i);
        int32_t most = d->n_in_max == OC_VARIADIC ? d->n_in_min + 2 : d->n_in_max;
        if (most > 8)
            most = 8;
        int32_t least = d->n_in_min > 0 ? d->n_in_min : 0;
        if (least > most)
            least = most;
        for (int v = 0; v < V_COUNT; v++) {
            /* the fewest inputs the row takes, and the most (capped) */
            if (run_case(d, (enum variant)v, least) == OC_OK)
                ok++;
            else
                errors++;
            if (most != least) {
                if (run_case(d, (enum variant)v, most) == OC_OK)
                    ok++;
                else
                    errors++;
            }
        }
    }
    /* every row ran every variant; most end in a report with unknown shapes */
    assert_true(ok + errors >= (int32_t)oc_op_count() * V_COUNT);
    assert_true(ok > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_every_variant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
