/*
 * pbw.h — a tiny protobuf wire writer for building ONNX models in tests.
 *
 * Written independently of analyzer/model.c so tests can make well-formed
 * and deliberately broken files byte by byte. Field numbers are those of
 * onnx.proto. Everything is allocated with malloc and freed with pbw_free;
 * allocation failure aborts (tests only).
 */
#ifndef PBW_H
#define PBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pbw {
    uint8_t *p;
    size_t n, cap;
};

void pbw_free(struct pbw *b);
void pbw_raw(struct pbw *b, const void *data, size_t n);
void pbw_varint(struct pbw *b, uint64_t v);
void pbw_tag(struct pbw *b, uint32_t field, unsigned wire_type);
void pbw_uint(struct pbw *b, uint32_t field, uint64_t v);   /* varint field          */
void pbw_int(struct pbw *b, uint32_t field, int64_t v);     /* int64/int32 varint     */
void pbw_float(struct pbw *b, uint32_t field, float v);     /* fixed32               */
void pbw_bytes(struct pbw *b, uint32_t field, const void *data, size_t n);
void pbw_str(struct pbw *b, uint32_t field, const char *s);
/* Appends sub as a length-delimited field and frees sub. */
void pbw_msg(struct pbw *b, uint32_t field, struct pbw *sub);

/* ---- ONNX helpers (return a message body; the caller embeds it) --------- */

enum { PB_FLOAT = 1, PB_INT32 = 6, PB_INT64 = 7, PB_BOOL = 9, PB_FLOAT16 = 10 };

/* dims: n entries; a dim < 0 is written as dim_param `sym` (or unnamed if sym NULL) */
struct pbw pb_value_info(const char *name, int elem_type, int rank, const int64_t *dims, const char *const *syms);
/* Initializer with raw_data (float: zeros; int64: the given values). */
struct pbw pb_tensor_f32(const char *name, int rank, const int64_t *dims);
/* Float tensor with values v: raw_data (packed false) or the packed
   float_data field (packed true); name NULL for a Constant's value. */
struct pbw pb_tensor_f32v(const char *name, int rank, const int64_t *dims, const float *v, bool packed);
struct pbw pb_tensor_i64(const char *name, int rank, const int64_t *dims, const int64_t *vals);
/* int64 values in the packed int64_data field instead of raw_data */
struct pbw pb_tensor_i64_packed(const char *name, int rank, const int64_t *dims, const int64_t *vals);

struct pbw pb_attr_int(const char *name, int64_t v);
struct pbw pb_attr_float(const char *name, float v);
struct pbw pb_attr_ints(const char *name, int n, const int64_t *v);
struct pbw pb_attr_str(const char *name, const char *s);
struct pbw pb_attr_strs(const char *name, int n, const char *const *s);
struct pbw pb_attr_tensor(const char *name, struct pbw *tensor);
/* GRAPH attribute holding the graph built in *body (consumed). */
struct pb_model;
struct pbw pb_attr_graph(const char *name, struct pb_model *body);

/* Node: inputs/outputs NULL-terminated lists; attrs: n messages (consumed). */
struct pbw pb_node(const char *name, const char *op, const char *const *in, const char *const *out,
                   int n_attrs, struct pbw *attrs);
struct pbw pb_node_dom(const char *name, const char *domain, const char *op, const char *const *in,
                       const char *const *out, int n_attrs, struct pbw *attrs);

/* A model builder: append graph parts, then finish with an opset. */
struct pb_model {
    struct pbw graph;
};
void pbm_node(struct pb_model *m, struct pbw node);
void pbm_init(struct pb_model *m, struct pbw tensor);
void pbm_input(struct pb_model *m, struct pbw vi);
void pbm_output(struct pb_model *m, struct pbw vi);
void pbm_value_info(struct pb_model *m, struct pbw vi);
/* Serialised ModelProto (ir_version 8, default-domain opset `opset`). */
struct pbw pbm_finish(struct pb_model *m, int64_t opset);
/* The same, importing ONNX Runtime's com.microsoft domain at ms_opset too. */
struct pbw pbm_finish_ms(struct pb_model *m, int64_t opset, int64_t ms_opset);

#endif
