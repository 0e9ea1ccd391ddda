/*
 * test_sequence.c — sequence and optional values (struct oc_ntype) and
 * their ops on small graphs built byte by byte (pbw.h). Each expected
 * shape, length and byte count is worked out by hand in the comment next to
 * it from the ONNX spec and analyzer/ops/sequence.c. The analysis is the
 * shared fixture of testutil.h (freed by tu_teardown).
 */
#include "testutil.h"

#include "dtype.h"

/* TypeProto of a tensor: elem_type, and a shape when rank >= 0 (dims < 0 unnamed). */
static struct pbw tensor_type(int elem_type, int rank, const int64_t *dims) {
    struct pbw tp = {0}, tt = {0}, sh = {0};
    for (int i = 0; i < rank; i++) {
        struct pbw d = {0};
        if (dims[i] >= 0)
            pbw_int(&d, 1, dims[i]);
        pbw_msg(&sh, 1, &d);
    }
    pbw_int(&tt, 1, elem_type);
    if (rank >= 0) {
        if (!sh.n)
            pbw_bytes(&tt, 2, "", 0);
        else
            pbw_msg(&tt, 2, &sh);
    }
    pbw_free(&sh);
    pbw_msg(&tp, 1, &tt);
    return tp;
}

/* TypeProto sequence(tensor): TypeProto.sequence_type = 4, Sequence.elem_type = 1. */
static struct pbw seq_type(int elem_type, int rank, const int64_t *dims) {
    struct pbw tp = {0}, sq = {0}, el = tensor_type(elem_type, rank, dims);
    pbw_msg(&sq, 1, &el);
    pbw_msg(&tp, 4, &sq);
    return tp;
}

/* ValueInfoProto of a sequence of tensors. */
static struct pbw seq_vi(const char *name, int elem_type, int rank, const int64_t *dims) {
    struct pbw vi = {0}, tp = seq_type(elem_type, rank, dims);
    pbw_str(&vi, 1, name);
    pbw_msg(&vi, 2, &tp);
    return vi;
}

/* TYPE_PROTO attribute: AttributeProto.tp = 14, type TYPE_PROTO = 13. */
static struct pbw attr_type(const char *name, struct pbw *tp) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    pbw_msg(&a, 14, tp);
    pbw_int(&a, 20, 13);
    return a;
}

static const struct oc_ntype *nt_of(const char *node, int k) {
    const struct oc_value *v = tu_out(an, node, k);
    assert_non_null(v->nt);
    assert_int_equal(v->rank, -1); /* tensor code sees an unknown shape */
    assert_int_equal(v->dtype, 0);
    return v->nt;
}

#define NT_SHAPE(t, ...)                                                                           \
    do {                                                                                           \
        const int64_t _e[] = {__VA_ARGS__};                                                        \
        const struct oc_ntype *_t = (t);                                                           \
        assert_int_equal(_t->rank, (int)(sizeof _e / sizeof _e[0]));                               \
        for (int _i = 0; _i < _t->rank; _i++)                                                      \
            assert_int_equal(_t->dims[_i].value, _e[_i]);                                          \
    } while (0)

static void construct_and_at(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 2, TU_DIMS(2, 3), NULL));
    pbm_input(&pm, pb_value_info("c", PB_FLOAT, 2, TU_DIMS(4, 3), NULL));
    pbm_init(&pm, pb_tensor_i64("last", 0, NULL, TU_DIMS(-1)));
    pbm_node(&pm, pb_node("sc", "SequenceConstruct", TU_LIST("a", "b"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("at", "SequenceAt", TU_LIST("s", "last"), TU_LIST("t"), 0, NULL));
    pbm_node(&pm, pb_node("len", "SequenceLength", TU_LIST("s"), TU_LIST("n"), 0, NULL));
    pbm_node(&pm, pb_node("sc2", "SequenceConstruct", TU_LIST("a", "c"), TU_LIST("s2"), 0, NULL));
    pbm_node(&pm, pb_node("at2", "SequenceAt", TU_LIST("s2", "last"), TU_LIST("t2"), 0, NULL));
    pbm_node(&pm, pb_node("relu", "Relu", TU_LIST("s"), TU_LIST("r"), 0, NULL));
    pbm_output(&pm, seq_vi("s", PB_FLOAT, -1, NULL));
    pbm_output(&pm, pb_value_info("t", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* two f32 [2, 3] tensors: length 2, shared shape [2, 3], 2 x 24 = 48 bytes */
    const struct oc_ntype *s = nt_of("sc", 0);
    assert_int_equal(s->kind, OC_TYPE_SEQUENCE);
    assert_int_equal(s->dtype, OC_DT_FLOAT);
    assert_int_equal(s->len, 2);
    assert_int_equal(s->bytes, 48);
    NT_SHAPE(s, 2, 3);
    const struct oc_node *sc = tu_node(an, "sc");
    assert_int_equal(sc->status, OC_OK);
    assert_int_equal(sc->cost.flops, 0);
    assert_int_equal(sc->cost.bytes_read, 48);
    assert_int_equal(sc->cost.bytes_written, 48);
    /* SequenceAt(-1): a tensor [2, 3]; it reads that one tensor, 24 bytes */
    const struct oc_value *t = tu_out(an, "at", 0);
    assert_null(t->nt);
    assert_int_equal(t->dtype, OC_DT_FLOAT);
    TU_SHAPE(t, 2, 3);
    assert_int_equal(tu_node(an, "at")->status, OC_OK);
    assert_int_equal(tu_node(an, "at")->cost.bytes_read, 24);
    /* SequenceLength: an int64 scalar holding 2 */
    const struct oc_value *n = tu_out(an, "len", 0);
    assert_int_equal(n->rank, 0);
    assert_non_null(n->ival);
    assert_int_equal(n->ival[0], 2);
    /* [2, 3] and [4, 3] share only the last dim: [?, 3]; bytes 24 + 48 = 72 */
    const struct oc_ntype *s2 = nt_of("sc2", 0);
    assert_int_equal(s2->rank, 2);
    assert_int_equal(s2->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(s2->dims[1].value, 3);
    assert_int_equal(s2->bytes, 72);
    assert_int_equal(tu_node(an, "sc2")->status, OC_OK);
    /* SequenceAt cannot say which: [?, 3], not concrete */
    const struct oc_value *t2 = tu_out(an, "at2", 0);
    assert_int_equal(t2->rank, 2);
    assert_int_equal(t2->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(t2->dims[1].value, 3);
    assert_int_not_equal(tu_node(an, "at2")->status, OC_OK);
    /* a tensor op handed a sequence is not run: listed as unsupported */
    const struct oc_node *relu = tu_node(an, "relu");
    assert_int_equal(relu->status, OC_ERR_UNSUPPORTED);
    assert_non_null(strstr(relu->reason, "is a sequence"));
    assert_false(relu->upstream);
}

static void split_to_sequence(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 6), NULL));
    pbm_init(&pm, pb_tensor_i64("two", 0, NULL, TU_DIMS(2)));
    pbm_init(&pm, pb_tensor_i64("four", 0, NULL, TU_DIMS(4)));
    pbm_init(&pm, pb_tensor_i64("parts", 1, TU_DIMS(2), TU_DIMS(1, 2)));
    pbm_init(&pm, pb_tensor_i64("halves", 1, TU_DIMS(2), TU_DIMS(3, 3)));
    struct pbw a1[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("ones", "SplitToSequence", TU_LIST("x"), TU_LIST("s1"), 1, a1));
    struct pbw a2[] = {pb_attr_int("axis", 1), pb_attr_int("keepdims", 0)};
    pbm_node(&pm, pb_node("ones_nokeep", "SplitToSequence", TU_LIST("x"), TU_LIST("s2"), 2, a2));
    struct pbw a3[] = {pb_attr_int("axis", -1)};
    pbm_node(&pm, pb_node("by2", "SplitToSequence", TU_LIST("x", "two"), TU_LIST("s3"), 1, a3));
    struct pbw a4[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("by4", "SplitToSequence", TU_LIST("x", "four"), TU_LIST("s4"), 1, a4));
    pbm_node(&pm, pb_node("parts", "SplitToSequence", TU_LIST("x", "parts"), TU_LIST("s5"), 0, NULL));
    struct pbw a6[] = {pb_attr_int("axis", 1), pb_attr_int("keepdims", 0)};
    pbm_node(&pm, pb_node("halves", "SplitToSequence", TU_LIST("x", "halves"), TU_LIST("s6"), 2, a6));
    pbm_output(&pm, seq_vi("s1", PB_FLOAT, -1, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* no split: 6 pieces of 1 along axis 1, kept: [3, 1] x 6; they hold x, 72 bytes */
    const struct oc_ntype *s = nt_of("ones", 0);
    assert_int_equal(s->len, 6);
    NT_SHAPE(s, 3, 1);
    assert_int_equal(s->bytes, 72);
    /* keepdims 0 drops the axis: [3] x 6 */
    s = nt_of("ones_nokeep", 0);
    assert_int_equal(s->len, 6);
    NT_SHAPE(s, 3);
    /* scalar split 2 on 6: 3 pieces [3, 2] */
    s = nt_of("by2", 0);
    assert_int_equal(s->len, 3);
    NT_SHAPE(s, 3, 2);
    /* scalar split 4 on 6: pieces 4 and 2, ceil(6 / 4) = 2; the axis is not shared: [3, ?] */
    s = nt_of("by4", 0);
    assert_int_equal(s->len, 2);
    assert_int_equal(s->rank, 2);
    assert_int_equal(s->dims[0].value, 3);
    assert_int_equal(s->dims[1].value, OC_DIM_UNKNOWN);
    /* split [1, 2] on axis 0 (3 rows): [1, 6] and [2, 6] -> [?, 6] x 2 */
    s = nt_of("parts", 0);
    assert_int_equal(s->len, 2);
    assert_int_equal(s->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(s->dims[1].value, 6);
    /* split [3, 3] on axis 1: keepdims is ignored when split is given -> [3, 3] x 2 */
    s = nt_of("halves", 0);
    assert_int_equal(s->len, 2);
    NT_SHAPE(s, 3, 3);
    for (int32_t i = 0; i < an->graph->n_nodes; i++)
        assert_int_equal(an->graph->nodes[i].status, OC_OK);
}

static void split_to_sequence_bad_split(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 2, TU_DIMS(3, 6), NULL));
    pbm_init(&pm, pb_tensor_i64("parts", 1, TU_DIMS(2), TU_DIMS(2, 2)));
    pbm_node(&pm, pb_node("bad", "SplitToSequence", TU_LIST("x", "parts"), TU_LIST("s"), 0, NULL));
    pbm_output(&pm, seq_vi("s", PB_FLOAT, -1, NULL));
    /* 2 + 2 != 3 rows */
    tu_analyze_err(&pm, 11, OC_ERR_MODEL, "split sums to 4, the axis has 3");
}

static void concat_from_sequence(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 2, TU_DIMS(2, 4), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 2, TU_DIMS(5, 4), NULL));
    pbm_node(&pm, pb_node("sc", "SequenceConstruct", TU_LIST("a", "a", "a"), TU_LIST("s"), 0, NULL));
    struct pbw c0[] = {pb_attr_int("axis", 0)};
    pbm_node(&pm, pb_node("cat0", "ConcatFromSequence", TU_LIST("s"), TU_LIST("y0"), 1, c0));
    struct pbw c1[] = {pb_attr_int("axis", 1), pb_attr_int("new_axis", 1)};
    pbm_node(&pm, pb_node("stack1", "ConcatFromSequence", TU_LIST("s"), TU_LIST("y1"), 2, c1));
    struct pbw c2[] = {pb_attr_int("axis", -1), pb_attr_int("new_axis", 1)};
    pbm_node(&pm, pb_node("stack_last", "ConcatFromSequence", TU_LIST("s"), TU_LIST("y2"), 2, c2));
    pbm_node(&pm, pb_node("sc2", "SequenceConstruct", TU_LIST("a", "b"), TU_LIST("s2"), 0, NULL));
    struct pbw c3[] = {pb_attr_int("axis", 1)};
    pbm_node(&pm, pb_node("cat_mixed", "ConcatFromSequence", TU_LIST("s2"), TU_LIST("y3"), 1, c3));
    pbm_output(&pm, pb_value_info("y0", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* three [2, 4]: joined on axis 0 -> [6, 4]; 0 FLOPs, reads 3 x 32 = 96 bytes, writes 96 */
    TU_SHAPE(tu_out(an, "cat0", 0), 6, 4);
    const struct oc_node *cat = tu_node(an, "cat0");
    assert_int_equal(cat->status, OC_OK);
    assert_int_equal(cat->cost.flops, 0);
    assert_int_equal(cat->cost.bytes_read, 96);
    assert_int_equal(cat->cost.bytes_written, 96);
    /* stacked on a new axis 1 -> [2, 3, 4]; at axis -1 of rank 3 -> [2, 4, 3] */
    TU_SHAPE(tu_out(an, "stack1", 0), 2, 3, 4);
    TU_SHAPE(tu_out(an, "stack_last", 0), 2, 4, 3);
    /* [2, 4] and [5, 4] share [?, 4]: joined on axis 1 -> [?, 8] */
    const struct oc_value *y3 = tu_out(an, "cat_mixed", 0);
    assert_int_equal(y3->rank, 2);
    assert_int_equal(y3->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(y3->dims[1].value, 8);
}

static void insert_erase_length(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 1, TU_DIMS(2), NULL));
    pbm_input(&pm, pb_value_info("b", PB_FLOAT, 1, TU_DIMS(3), NULL));
    pbm_init(&pm, pb_tensor_i64("front", 0, NULL, TU_DIMS(0)));
    struct pbw dt[] = {pb_attr_int("dtype", PB_FLOAT)};
    pbm_node(&pm, pb_node("empty", "SequenceEmpty", TU_LIST(NULL), TU_LIST("s0"), 1, dt));
    pbm_node(&pm, pb_node("ins1", "SequenceInsert", TU_LIST("s0", "a"), TU_LIST("s1"), 0, NULL));
    pbm_node(&pm, pb_node("ins2", "SequenceInsert", TU_LIST("s1", "b", "front"), TU_LIST("s2"), 0, NULL));
    pbm_node(&pm, pb_node("ins3", "SequenceInsert", TU_LIST("s1", "a"), TU_LIST("s3"), 0, NULL));
    pbm_node(&pm, pb_node("era", "SequenceErase", TU_LIST("s2"), TU_LIST("s4"), 0, NULL));
    pbm_node(&pm, pb_node("era3", "SequenceErase", TU_LIST("s3", "front"), TU_LIST("s5"), 0, NULL));
    pbm_node(&pm, pb_node("len", "SequenceLength", TU_LIST("s4"), TU_LIST("n"), 0, NULL));
    pbm_output(&pm, pb_value_info("n", PB_INT64, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    /* SequenceEmpty: f32, no tensors, 0 bytes, no shape */
    const struct oc_ntype *s = nt_of("empty", 0);
    assert_int_equal(s->len, 0);
    assert_int_equal(s->bytes, 0);
    assert_int_equal(s->dtype, OC_DT_FLOAT);
    assert_int_equal(s->rank, -1);
    /* + a [2]: one tensor [2], 8 bytes (the empty sequence does not constrain the shape) */
    s = nt_of("ins1", 0);
    assert_int_equal(s->len, 1);
    NT_SHAPE(s, 2);
    assert_int_equal(s->bytes, 8);
    /* + b [3] at the front: 2 tensors, [2] and [3] -> [?]; 8 + 12 = 20 bytes */
    s = nt_of("ins2", 0);
    assert_int_equal(s->len, 2);
    assert_int_equal(s->rank, 1);
    assert_int_equal(s->dims[0].value, OC_DIM_UNKNOWN);
    assert_int_equal(s->bytes, 20);
    /* erase the back: 1 tensor; which one's bytes leave is not known */
    s = nt_of("era", 0);
    assert_int_equal(s->len, 1);
    assert_int_equal(s->bytes, -1);
    /* [2] x 2 minus one: [2] x 1, 16 - 8 = 8 bytes */
    s = nt_of("era3", 0);
    assert_int_equal(s->len, 1);
    NT_SHAPE(s, 2);
    assert_int_equal(s->bytes, 8);
    const struct oc_value *n = tu_out(an, "len", 0);
    assert_non_null(n->ival);
    assert_int_equal(n->ival[0], 1);
}

static void insert_position_out_of_range(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 1, TU_DIMS(2), NULL));
    pbm_init(&pm, pb_tensor_i64("pos", 0, NULL, TU_DIMS(3)));
    pbm_node(&pm, pb_node("sc", "SequenceConstruct", TU_LIST("a", "a"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("ins", "SequenceInsert", TU_LIST("s", "a", "pos"), TU_LIST("s2"), 0, NULL));
    pbm_output(&pm, seq_vi("s2", PB_FLOAT, -1, NULL));
    /* a sequence of 2 accepts positions -2 to 2 */
    tu_analyze_err(&pm, 11, OC_ERR_MODEL, "position 3 is out of range for a sequence of 2 tensors");
}

static void optionals(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&pm, pb_node("opt", "Optional", TU_LIST("x"), TU_LIST("o"), 0, NULL));
    pbm_node(&pm, pb_node("has", "OptionalHasElement", TU_LIST("o"), TU_LIST("h"), 0, NULL));
    pbm_node(&pm, pb_node("get", "OptionalGetElement", TU_LIST("o"), TU_LIST("g"), 0, NULL));
    struct pbw st = seq_type(PB_FLOAT, 1, TU_DIMS(5));
    struct pbw at[] = {attr_type("type", &st)};
    pbm_node(&pm, pb_node("none", "Optional", TU_LIST(NULL), TU_LIST("e"), 1, at));
    pbm_node(&pm, pb_node("has_none", "OptionalHasElement", TU_LIST("e"), TU_LIST("he"), 0, NULL));
    pbm_node(&pm, pb_node("no_input", "OptionalHasElement", TU_LIST(NULL), TU_LIST("hn"), 0, NULL));
    pbm_node(&pm, pb_node("tensor_in", "OptionalHasElement", TU_LIST("x"), TU_LIST("ht"), 0, NULL));
    pbm_node(&pm, pb_node("sc", "SequenceConstruct", TU_LIST("x", "x"), TU_LIST("s"), 0, NULL));
    pbm_node(&pm, pb_node("opt_seq", "Optional", TU_LIST("s"), TU_LIST("os"), 0, NULL));
    pbm_node(&pm, pb_node("get_seq", "OptionalGetElement", TU_LIST("os"), TU_LIST("gs"), 0, NULL));
    pbm_output(&pm, pb_value_info("g", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 18, NULL);
    /* Optional(x [4]): holds an f32 [4], 16 bytes */
    const struct oc_ntype *o = nt_of("opt", 0);
    assert_int_equal(o->kind, OC_TYPE_OPTIONAL);
    assert_int_equal(o->inner, OC_TYPE_TENSOR);
    assert_int_equal(o->present, 1);
    NT_SHAPE(o, 4);
    uint64_t b;
    assert_true(oc_value_bytes(tu_out(an, "opt", 0), &b));
    assert_int_equal(b, 16);
    /* has an element: a bool scalar holding 1; getting it gives the tensor back */
    const struct oc_value *h = tu_out(an, "has", 0);
    assert_int_equal(h->dtype, OC_DT_BOOL);
    assert_int_equal(h->rank, 0);
    assert_non_null(h->ival);
    assert_int_equal(h->ival[0], 1);
    const struct oc_value *g = tu_out(an, "get", 0);
    assert_null(g->nt);
    TU_SHAPE(g, 4);
    assert_int_equal(tu_node(an, "get")->status, OC_OK);
    /* Optional(type = seq(f32 [5])): empty, 0 bytes; has no element */
    o = nt_of("none", 0);
    assert_int_equal(o->present, 0);
    assert_int_equal(o->inner, OC_TYPE_SEQUENCE);
    assert_int_equal(o->dtype, OC_DT_FLOAT);
    NT_SHAPE(o, 5);
    assert_true(oc_value_bytes(tu_out(an, "none", 0), &b));
    assert_int_equal(b, 0);
    assert_int_equal(tu_node(an, "none")->status, OC_OK);
    assert_int_equal(tu_out(an, "has_none", 0)->ival[0], 0);
    /* version 18: no input -> false; a plain tensor -> true */
    assert_int_equal(tu_out(an, "no_input", 0)->ival[0], 0);
    assert_int_equal(tu_out(an, "tensor_in", 0)->ival[0], 1);
    /* an optional sequence of 2 x [4] gives back that sequence */
    o = nt_of("opt_seq", 0);
    assert_int_equal(o->inner, OC_TYPE_SEQUENCE);
    assert_int_equal(o->len, 2);
    const struct oc_ntype *s = nt_of("get_seq", 0);
    assert_int_equal(s->kind, OC_TYPE_SEQUENCE);
    assert_int_equal(s->len, 2);
    NT_SHAPE(s, 4);
}

static void get_from_empty_optional(void **state) {
    (void)state;
    struct pb_model pm = {0};
    struct pbw tt = tensor_type(PB_FLOAT, 1, TU_DIMS(3));
    struct pbw at[] = {attr_type("type", &tt)};
    pbm_node(&pm, pb_node("none", "Optional", TU_LIST(NULL), TU_LIST("e"), 1, at));
    pbm_node(&pm, pb_node("get", "OptionalGetElement", TU_LIST("e"), TU_LIST("g"), 0, NULL));
    pbm_output(&pm, pb_value_info("g", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_err(&pm, 18, OC_ERR_MODEL, "the optional is empty");
}

static void declared_sequence_input(void **state) {
    (void)state;
    struct pb_model pm = {0};
    /* seq(f32 [?, 3]) graph input: its tensors' unnamed dim is bound to 1, its length is not known */
    pbm_input(&pm, seq_vi("s", PB_FLOAT, 2, TU_DIMS(-1, 3)));
    pbm_init(&pm, pb_tensor_i64("zero", 0, NULL, TU_DIMS(0)));
    pbm_node(&pm, pb_node("at", "SequenceAt", TU_LIST("s", "zero"), TU_LIST("t"), 0, NULL));
    pbm_output(&pm, pb_value_info("t", PB_FLOAT, -1, NULL, NULL));
    tu_analyze_ok(&pm, 11, NULL);
    const struct oc_value *s = &an->graph->values[an->graph->inputs[0]];
    assert_non_null(s->nt);
    assert_int_equal(s->nt->len, -1);
    NT_SHAPE(s->nt, 1, 3);
    TU_SHAPE(tu_out(an, "at", 0), 1, 3);
    /* the input's length is unknown: the node depends on an unknown value */
    assert_true(tu_node(an, "at")->upstream);
    assert_true(tu_warned(an, "graph input 's' is a sequence; its length is not known"));
}

static void sequence_map_cost(void **state) {
    (void)state;
    struct pb_model body = {0}, pm = {0};
    /* body(e [4], y [4]) = e + y: 4 FLOPs */
    pbm_input(&body, pb_value_info("e", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_input(&body, pb_value_info("y", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&body, pb_node("add", "Add", TU_LIST("e", "y"), TU_LIST("z"), 0, NULL));
    pbm_output(&body, pb_value_info("z", PB_FLOAT, -1, NULL, NULL));
    pbm_input(&pm, pb_value_info("x", PB_FLOAT, 1, TU_DIMS(4), NULL));
    pbm_node(&pm, pb_node("sc", "SequenceConstruct", TU_LIST("x", "x", "x"), TU_LIST("s"), 0, NULL));
    struct pbw at[] = {pb_attr_graph("body", &body)};
    pbm_node(&pm, pb_node("map", "SequenceMap", TU_LIST("s", "x"), TU_LIST("out"), 1, at));
    pbm_output(&pm, seq_vi("out", PB_FLOAT, -1, NULL));
    tu_analyze_ok(&pm, 17, NULL);
    /* one [4] per tensor of the 3: [4] x 3, 48 bytes; body 4 FLOPs x 3 = 12 */
    const struct oc_ntype *s = nt_of("map", 0);
    assert_int_equal(s->len, 3);
    NT_SHAPE(s, 4);
    assert_int_equal(s->bytes, 48);
    const struct oc_node *n = tu_node(an, "map");
    assert_int_equal(n->status, OC_OK);
    assert_false(n->cost.flags & OC_COST_UNKNOWN);
    assert_int_equal(n->cost.flops, 12);
}

static void loop_grows_sequence(void **state) {
    (void)state;
    struct pb_model body = {0}, pm = {0};
    /* body(i, c, seq) -> (c, SequenceInsert(seq, k [2])): one tensor more per iteration */
    pbm_input(&body, pb_value_info("i", PB_INT64, 0, NULL, NULL));
    pbm_input(&body, pb_value_info("c_in", PB_BOOL, 0, NULL, NULL));
    pbm_input(&body, seq_vi("s_in", PB_FLOAT, -1, NULL));
    pbm_node(&body, pb_node("id", "Identity", TU_LIST("c_in"), TU_LIST("c_out"), 0, NULL));
    pbm_node(&body, pb_node("ins", "SequenceInsert", TU_LIST("s_in", "k"), TU_LIST("s_out"), 0, NULL));
    pbm_output(&body, pb_value_info("c_out", PB_BOOL, -1, NULL, NULL));
    pbm_output(&body, seq_vi("s_out", PB_FLOAT, -1, NULL));
    pbm_input(&pm, pb_value_info("k", PB_FLOAT, 1, TU_DIMS(2), NULL));
    pbm_init(&pm, pb_tensor_i64("m", 0, NULL, TU_DIMS(4)));
    struct pbw dt[] = {pb_attr_int("dtype", PB_FLOAT)};
    pbm_node(&pm, pb_node("empty", "SequenceEmpty", TU_LIST(NULL), TU_LIST("s0"), 1, dt));
    struct pbw at[] = {pb_attr_graph("body", &body)};
    pbm_node(&pm, pb_node("loop", "Loop", TU_LIST("m", "", "s0"), TU_LIST("s"), 1, at));
    pbm_node(&pm, pb_node("id2", "Identity", TU_LIST("s"), TU_LIST("s_copy"), 0, NULL));
    pbm_output(&pm, seq_vi("s_copy", PB_FLOAT, -1, NULL));
    tu_analyze_ok(&pm, 13, NULL);
    /* 0 tensors, +1 in each of 4 iterations: [2] x 4, 32 bytes */
    const struct oc_ntype *s = nt_of("loop", 0);
    assert_int_equal(s->len, 4);
    NT_SHAPE(s, 2);
    assert_int_equal(s->bytes, 32);
    assert_int_equal(tu_node(an, "loop")->status, OC_OK);
    /* Identity passes the sequence through */
    assert_ptr_equal(nt_of("id2", 0), s);
}

static void if_unknown_condition_merges(void **state) {
    (void)state;
    struct pb_model then_b = {0}, else_b = {0}, pm = {0};
    /* then: ([2] x 1, an optional holding a [2]); else: ([2] x 2, an empty optional of f32 [2]) */
    pbm_node(&then_b, pb_node("t1", "SequenceConstruct", TU_LIST("a"), TU_LIST("ts"), 0, NULL));
    pbm_node(&then_b, pb_node("t2", "Optional", TU_LIST("a"), TU_LIST("to"), 0, NULL));
    pbm_output(&then_b, seq_vi("ts", PB_FLOAT, -1, NULL));
    pbm_output(&then_b, pb_value_info("to", PB_FLOAT, -1, NULL, NULL));
    pbm_node(&else_b, pb_node("e1", "SequenceConstruct", TU_LIST("a", "a"), TU_LIST("es"), 0, NULL));
    struct pbw tt = tensor_type(PB_FLOAT, 1, TU_DIMS(2));
    struct pbw at_e[] = {attr_type("type", &tt)};
    pbm_node(&else_b, pb_node("e2", "Optional", TU_LIST(NULL), TU_LIST("eo"), 1, at_e));
    pbm_output(&else_b, seq_vi("es", PB_FLOAT, -1, NULL));
    pbm_output(&else_b, pb_value_info("eo", PB_FLOAT, -1, NULL, NULL));
    pbm_input(&pm, pb_value_info("a", PB_FLOAT, 1, TU_DIMS(2), NULL));
    pbm_input(&pm, pb_value_info("flag", PB_BOOL, 0, NULL, NULL));
    struct pbw at[] = {pb_attr_graph("then_branch", &then_b), pb_attr_graph("else_branch", &else_b)};
    pbm_node(&pm, pb_node("if", "If", TU_LIST("flag"), TU_LIST("s", "o"), 2, at));
    pbm_output(&pm, seq_vi("s", PB_FLOAT, -1, NULL));
    tu_analyze_ok(&pm, 16, NULL);
    /* condition unknown: [2] x 1 or [2] x 2 -> [2] x ?; holds a [2] or nothing -> presence unknown */
    const struct oc_ntype *s = nt_of("if", 0);
    assert_int_equal(s->kind, OC_TYPE_SEQUENCE);
    assert_int_equal(s->len, -1);
    NT_SHAPE(s, 2);
    const struct oc_ntype *o = nt_of("if", 1);
    assert_int_equal(o->kind, OC_TYPE_OPTIONAL);
    assert_int_equal(o->present, -1);
    NT_SHAPE(o, 2);
    /* the length is not known: the node's outputs are not concrete */
    assert_int_not_equal(tu_node(an, "if")->status, OC_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(construct_and_at, tu_teardown),
        cmocka_unit_test_teardown(split_to_sequence, tu_teardown),
        cmocka_unit_test_teardown(split_to_sequence_bad_split, tu_teardown),
        cmocka_unit_test_teardown(concat_from_sequence, tu_teardown),
        cmocka_unit_test_teardown(insert_erase_length, tu_teardown),
        cmocka_unit_test_teardown(insert_position_out_of_range, tu_teardown),
        cmocka_unit_test_teardown(optionals, tu_teardown),
        cmocka_unit_test_teardown(get_from_empty_optional, tu_teardown),
        cmocka_unit_test_teardown(declared_sequence_input, tu_teardown),
        cmocka_unit_test_teardown(sequence_map_cost, tu_teardown),
        cmocka_unit_test_teardown(loop_grows_sequence, tu_teardown),
        cmocka_unit_test_teardown(if_unknown_condition_merges, tu_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
