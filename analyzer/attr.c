/*
 * attr.c — attribute getters over NodeProto (a proto-boundary file).
 */
#include "attr.h"
#include "dtype.h"

#include "onnx.pb-c.h"

#include <string.h>

static const char *const oc_attr_type_names[] = {
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED] = "UNDEFINED",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT] = "FLOAT",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT] = "INT",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING] = "STRING",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR] = "TENSOR",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH] = "GRAPH",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS] = "FLOATS",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS] = "INTS",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS] = "STRINGS",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS] = "TENSORS",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS] = "GRAPHS",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR] = "SPARSE_TENSOR",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS] = "SPARSE_TENSORS",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO] = "TYPE_PROTO",
    [ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS] = "TYPE_PROTOS",
};

static const char *oc_attr_type_name(int t) {
    if (t < 0 || (size_t)t >= OC_ARRAY_LEN(oc_attr_type_names) || !oc_attr_type_names[t])
        return "UNKNOWN";
    return oc_attr_type_names[t];
}

/* The declared type, or for files that omit it (IR < 3), the type implied
 * by the field that is set. */
static int oc_attr_implied(const Onnx__AttributeProto *a);

static int oc_attr_kind(const Onnx__AttributeProto *a) {
    if (a->has_type)
        return (int)a->type;
    return oc_attr_implied(a);
}

static int oc_attr_implied(const Onnx__AttributeProto *a) {
    if (a->n_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (a->n_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    if (a->n_strings)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    if (a->t)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (a->g)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    if (a->tp)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO;
    if (a->has_s)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (a->has_i)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (a->has_f)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

/* The attribute `name` of the node; inside a function body an attribute that
 * refers to the caller's (ref_attr_name) is looked up on the call node. */
static const Onnx__AttributeProto *oc_attr_find(const struct oc_node *n, const char *name) {
    for (int hops = 0; n && hops < 64; hops++) {
        const Onnx__NodeProto *np = n->proto;
        const Onnx__AttributeProto *found = NULL;
        for (size_t i = 0; i < np->n_attribute && !found; i++) {
            const Onnx__AttributeProto *a = np->attribute[i];
            if (a->name && strcmp(a->name, name) == 0)
                found = a;
        }
        if (!found || !found->ref_attr_name || !found->ref_attr_name[0])
            return found;
        name = found->ref_attr_name;
        n = n->caller;
    }
    return NULL;
}

static enum oc_status oc_attr_check(const struct oc_node *n, const Onnx__AttributeProto *a, int want,
                                    struct oc_diag *d) {
    int got = oc_attr_kind(a);
    if (got == want) {
        /* the declared type agrees, but the value sits in another type's field */
        int held = a->has_type ? oc_attr_implied(a) : want;
        if (held != want && held != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
            return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' has type %s but holds a %s value", a->name,
                               oc_attr_type_name(want), oc_attr_type_name(held));
        return OC_OK;
    }
    (void)n;
    return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' has type %s, expected %s", a->name,
                       oc_attr_type_name(got), oc_attr_type_name(want));
}

bool oc_attr_has(const struct oc_node *n, const char *name) {
    return oc_attr_find(n, name) != NULL;
}

enum oc_status oc_attr_int(const struct oc_node *n, const char *name, int64_t def, int64_t *out,
                           struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *out = def;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, d);
    if (st == OC_OK)
        *out = a->i;
    return st;
}

enum oc_status oc_attr_dtype(const struct oc_node *n, const char *name, int32_t def, int32_t *out,
                             struct oc_diag *d) {
    int64_t v;
    *out = def;
    enum oc_status st = oc_attr_int(n, name, def, &v, d);
    if (st != OC_OK || !oc_attr_find(n, name))
        return st;
    if (v <= 0 || v >= OC_DT_COUNT)
        return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' is %lld, not a data type", name, (long long)v);
    *out = (int32_t)v;
    return OC_OK;
}

enum oc_status oc_attr_float(const struct oc_node *n, const char *name, float def, float *out,
                             struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *out = def;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, d);
    if (st == OC_OK)
        *out = a->f;
    return st;
}

enum oc_status oc_attr_string(const struct oc_node *n, const char *name, const char *def, char *buf,
                              size_t size, struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    OC_ASSERT(size > 0 && strlen(def) < size);
    strcpy(buf, def);
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, d);
    if (st != OC_OK)
        return st;
    /* protobuf bytes are not NUL-terminated */
    if (a->s.len >= size || (a->s.len && memchr(a->s.data, 0, a->s.len)))
        return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' has an invalid or overlong string value",
                           a->name);
    if (a->s.len)
        memcpy(buf, a->s.data, a->s.len);
    buf[a->s.len] = 0;
    return OC_OK;
}

enum oc_status oc_attr_strings_at(const struct oc_node *n, const char *name, int64_t i, char *buf, size_t size,
                                  int64_t *count, struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    OC_ASSERT(size > 0);
    buf[0] = 0;
    *count = 0;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS, d);
    if (st != OC_OK)
        return st;
    *count = (int64_t)a->n_strings;
    if (i < 0 || (size_t)i >= a->n_strings)
        return OC_OK;
    const ProtobufCBinaryData *s = &a->strings[i];
    if (s->len >= size || (s->len && memchr(s->data, 0, s->len)))
        return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' has an invalid or overlong string value", a->name);
    if (s->len)
        memcpy(buf, s->data, s->len);
    buf[s->len] = 0;
    return OC_OK;
}

enum oc_status oc_attr_ints(const struct oc_node *n, const char *name, const int64_t **v, int64_t *count,
                            struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *v = NULL;
    *count = 0;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, d);
    if (st == OC_OK) {
        *v = a->ints;
        *count = (int64_t)a->n_ints;
    }
    return st;
}

enum oc_status oc_attr_floats(const struct oc_node *n, const char *name, const float **v, int64_t *count,
                              struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *v = NULL;
    *count = 0;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, d);
    if (st == OC_OK) {
        *v = a->floats;
        *count = (int64_t)a->n_floats;
    }
    return st;
}

enum oc_status oc_attr_tensor(const struct oc_node *n, const char *name, bool *found, int32_t *dtype,
                              int32_t *rank, const int64_t **dims, const void **tensor,
                              struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *found = false;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR, d);
    if (st != OC_OK)
        return st;
    if (!a->t)
        return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' holds no tensor", a->name);
    for (size_t i = 0; i < a->t->n_dims; i++)
        if (a->t->dims[i] < 0)
            return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s': tensor has negative dim", a->name);
    if (a->t->n_dims > 1024)
        return oc_diag_set(d, OC_ERR_UNSUPPORTED, "attribute '%s': tensor rank over 1024", a->name);
    *found = true;
    *dtype = a->t->has_data_type ? a->t->data_type : 0;
    *rank = (int32_t)a->t->n_dims;
    *dims = a->t->dims;
    *tensor = a->t;
    return OC_OK;
}

enum oc_status oc_attr_graph(const struct oc_node *n, const char *name, const void **graph, struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *graph = NULL;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH, d);
    if (st == OC_OK) {
        if (!a->g)
            return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' holds no graph", a->name);
        *graph = a->g;
    }
    return st;
}

enum oc_status oc_attr_type_proto(const struct oc_node *n, const char *name, const void **type_proto,
                                  struct oc_diag *d) {
    const Onnx__AttributeProto *a = oc_attr_find(n, name);
    *type_proto = NULL;
    if (!a)
        return OC_OK;
    enum oc_status st = oc_attr_check(n, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO, d);
    if (st == OC_OK) {
        if (!a->tp)
            return oc_diag_set(d, OC_ERR_MODEL, "attribute '%s' holds no type", a->name);
        *type_proto = a->tp;
    }
    return st;
}

const char *oc_attr_first_graph(const struct oc_node *n) {
    const Onnx__NodeProto *np = n->proto;
    for (size_t i = 0; i < np->n_attribute; i++) {
        int k = oc_attr_kind(np->attribute[i]);
        if (k == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH || k == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS)
            return np->attribute[i]->name;
    }
    return NULL;
}
