/*
 * pbw.c — see pbw.h.
 */
#include "pbw.h"

#include <stdlib.h>
#include <string.h>

static void pbw_reserve(struct pbw *b, size_t more) {
    if (b->cap - b->n >= more)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->n < more)
        cap *= 2;
    b->p = realloc(b->p, cap);
    if (!b->p)
        abort();
    b->cap = cap;
}

void pbw_free(struct pbw *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

void pbw_raw(struct pbw *b, const void *data, size_t n) {
    pbw_reserve(b, n);
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

void pbw_varint(struct pbw *b, uint64_t v) {
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        c |= v ? 0x80 : 0;
        pbw_raw(b, &c, 1);
    } while (v);
}

void pbw_tag(struct pbw *b, uint32_t field, unsigned wt) {
    pbw_varint(b, ((uint64_t)field << 3) | wt);
}

void pbw_uint(struct pbw *b, uint32_t field, uint64_t v) {
    pbw_tag(b, field, 0);
    pbw_varint(b, v);
}

void pbw_int(struct pbw *b, uint32_t field, int64_t v) {
    pbw_uint(b, field, (uint64_t)v);
}

void pbw_float(struct pbw *b, uint32_t field, float v) {
    pbw_tag(b, field, 5);
    pbw_raw(b, &v, 4);
}

void pbw_bytes(struct pbw *b, uint32_t field, const void *data, size_t n) {
    pbw_tag(b, field, 2);
    pbw_varint(b, n);
    pbw_raw(b, data, n);
}

void pbw_str(struct pbw *b, uint32_t field, const char *s) {
    pbw_bytes(b, field, s, strlen(s));
}

void pbw_msg(struct pbw *b, uint32_t field, struct pbw *sub) {
    pbw_bytes(b, field, sub->p, sub->n);
    pbw_free(sub);
}

struct pbw pb_value_info(const char *name, int elem_type, int rank, const int64_t *dims, const char *const *syms) {
    struct pbw vi = {0}, tp = {0}, tt = {0}, sh = {0};
    for (int i = 0; i < rank; i++) {
        struct pbw d = {0};
        if (dims[i] >= 0)
            pbw_int(&d, 1, dims[i]);
        else if (syms && syms[i])
            pbw_str(&d, 2, syms[i]);
        pbw_msg(&sh, 1, &d);
    }
    pbw_int(&tt, 1, elem_type);
    if (rank >= 0) {
        if (!sh.n)
            pbw_bytes(&tt, 2, "", 0);
        else
            pbw_msg(&tt, 2, &sh);
    }
    pbw_msg(&tp, 1, &tt);
    pbw_str(&vi, 1, name);
    pbw_msg(&vi, 2, &tp);
    pbw_free(&sh);
    return vi;
}

static int64_t pb_numel(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    return n;
}

struct pbw pb_tensor_f32(const char *name, int rank, const int64_t *dims) {
    struct pbw t = {0};
    for (int i = 0; i < rank; i++)
        pbw_int(&t, 1, dims[i]);
    pbw_int(&t, 2, PB_FLOAT);
    pbw_str(&t, 8, name);
    size_t bytes = (size_t)pb_numel(rank, dims) * 4;
    void *z = calloc(1, bytes + 1);
    pbw_bytes(&t, 9, z, bytes);
    free(z);
    return t;
}

/* Float tensor with values: raw_data (packed = false) or the packed
 * float_data field (packed = true). */
struct pbw pb_tensor_f32v(const char *name, int rank, const int64_t *dims, const float *v, bool packed) {
    struct pbw t = {0};
    for (int i = 0; i < rank; i++)
        pbw_int(&t, 1, dims[i]);
    pbw_int(&t, 2, PB_FLOAT);
    if (name)
        pbw_str(&t, 8, name);
    int64_t n = pb_numel(rank, dims);
    uint8_t *raw = calloc(1, (size_t)n * 4 + 1);
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        for (int k = 0; k < 4; k++)
            raw[i * 4 + k] = (uint8_t)(u >> (8 * k));
    }
    pbw_bytes(&t, packed ? 4 : 9, raw, (size_t)n * 4);
    free(raw);
    return t;
}

struct pbw pb_tensor_i64(const char *name, int rank, const int64_t *dims, const int64_t *vals) {
    struct pbw t = {0};
    for (int i = 0; i < rank; i++)
        pbw_int(&t, 1, dims[i]);
    pbw_int(&t, 2, PB_INT64);
    pbw_str(&t, 8, name);
    int64_t n = pb_numel(rank, dims);
    uint8_t *raw = calloc(1, (size_t)n * 8 + 1);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            raw[i * 8 + k] = (uint8_t)((uint64_t)vals[i] >> (8 * k));
    pbw_bytes(&t, 9, raw, (size_t)n * 8);
    free(raw);
    return t;
}

struct pbw pb_tensor_i64_packed(const char *name, int rank, const int64_t *dims, const int64_t *vals) {
    struct pbw t = {0}, packed = {0};
    for (int i = 0; i < rank; i++)
        pbw_int(&t, 1, dims[i]);
    pbw_int(&t, 2, PB_INT64);
    int64_t n = pb_numel(rank, dims);
    for (int64_t i = 0; i < n; i++)
        pbw_varint(&packed, (uint64_t)vals[i]);
    pbw_msg(&t, 7, &packed);
    pbw_str(&t, 8, name);
    return t;
}

struct pbw pb_attr_int(const char *name, int64_t v) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    pbw_int(&a, 3, v);
    pbw_int(&a, 20, 2);
    return a;
}

struct pbw pb_attr_float(const char *name, float v) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    pbw_float(&a, 2, v);
    pbw_int(&a, 20, 1);
    return a;
}

struct pbw pb_attr_ints(const char *name, int n, const int64_t *v) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        pbw_int(&a, 8, v[i]);
    pbw_int(&a, 20, 7);
    return a;
}

struct pbw pb_attr_str(const char *name, const char *s) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    pbw_str(&a, 4, s);
    pbw_int(&a, 20, 3);
    return a;
}

struct pbw pb_attr_strs(const char *name, int n, const char *const *s) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    for (int i = 0; i < n; i++)
        pbw_str(&a, 9, s[i]);
    pbw_int(&a, 20, 8);
    return a;
}

struct pbw pb_attr_tensor(const char *name, struct pbw *tensor) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    pbw_msg(&a, 5, tensor);
    pbw_int(&a, 20, 4);
    return a;
}

struct pbw pb_node_dom(const char *name, const char *domain, const char *op, const char *const *in,
                       const char *const *out, int n_attrs, struct pbw *attrs) {
    struct pbw nd = {0};
    for (int i = 0; in && in[i]; i++)
        pbw_str(&nd, 1, in[i]);
    for (int i = 0; out && out[i]; i++)
        pbw_str(&nd, 2, out[i]);
    pbw_str(&nd, 3, name);
    pbw_str(&nd, 4, op);
    for (int i = 0; i < n_attrs; i++)
        pbw_msg(&nd, 5, &attrs[i]);
    if (domain)
        pbw_str(&nd, 7, domain);
    return nd;
}

struct pbw pb_node(const char *name, const char *op, const char *const *in, const char *const *out, int n_attrs,
                   struct pbw *attrs) {
    return pb_node_dom(name, NULL, op, in, out, n_attrs, attrs);
}

void pbm_node(struct pb_model *m, struct pbw node) { pbw_msg(&m->graph, 1, &node); }
void pbm_init(struct pb_model *m, struct pbw t) { pbw_msg(&m->graph, 5, &t); }
void pbm_input(struct pb_model *m, struct pbw vi) { pbw_msg(&m->graph, 11, &vi); }
void pbm_output(struct pb_model *m, struct pbw vi) { pbw_msg(&m->graph, 12, &vi); }
void pbm_value_info(struct pb_model *m, struct pbw vi) { pbw_msg(&m->graph, 13, &vi); }

struct pbw pbm_finish(struct pb_model *m, int64_t opset) {
    struct pbw model = {0}, os = {0};
    pbw_int(&model, 1, 8);
    pbw_str(&model, 2, "pbw-test");
    pbw_str(&m->graph, 2, "g");
    pbw_msg(&model, 7, &m->graph);
    pbw_str(&os, 1, "");
    pbw_int(&os, 2, opset);
    pbw_msg(&model, 8, &os);
    return model;
}

struct pbw pbm_finish_ms(struct pb_model *m, int64_t opset, int64_t ms_opset) {
    struct pbw model = pbm_finish(m, opset), os = {0};
    pbw_str(&os, 1, "com.microsoft");
    pbw_int(&os, 2, ms_opset);
    pbw_msg(&model, 8, &os);
    return model;
}

struct pbw pb_attr_graph(const char *name, struct pb_model *body) {
    struct pbw a = {0};
    pbw_str(&a, 1, name);
    pbw_str(&body->graph, 2, name);
    pbw_msg(&a, 6, &body->graph);
    pbw_int(&a, 20, 5);
    return a;
}
