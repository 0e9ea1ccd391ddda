/*
 * model.h — load an .onnx file without touching its weights.
 *
 * The file is read through a small window (pread). A wire-level pass copies
 * the protobuf structure (graph, nodes, attributes, tensor headers) into a
 * compact buffer and leaves every tensor payload (raw_data, float_data,
 * int64_data, ...) in the file, recording where it lies. protobuf-c then
 * unpacks only the compact buffer. Loading cost therefore follows the
 * graph's structure, not its weight bytes: payload bytes are never read
 * unless a small integer tensor's values are asked for
 * (oc_model_tensor_ints). Not thread-safe: the read window is shared.
 *
 * Owns: the open file, the unpacked ModelProto, the payload table.
 * Borrowed by: struct oc_graph (names and attributes point into it), so
 * the model must outlive every graph built from it.
 * External data (data_location = EXTERNAL) is never opened.
 */
#ifndef OC_MODEL_H
#define OC_MODEL_H

#include "oc.h"

struct oc_model;

/* Memory accounting of the protobuf structure (the counting allocator). */
struct oc_model_stats {
    uint64_t file_bytes;        /* size of the .onnx file                        */
    uint64_t payload_bytes;     /* tensor payload bytes left unread in the file  */
    uint64_t n_payloads;        /* tensor payload fields left unread in the file */
    uint64_t structure_bytes;   /* bytes of protobuf structure that were unpacked */
    uint64_t heap_peak_bytes;   /* peak heap held by the unpacked structure      */
};

struct oc_load_opts {
    int64_t max_depth;       /* nesting limit of messages (0 = default 64)       */
    int64_t fail_alloc_after; /* tests: make the Nth protobuf allocation fail   */
};

/* Loads `path`. On failure returns a status, *out = NULL and a one-line
 * message in d (without the file name: the caller adds it). */
enum oc_status oc_model_load(const char *path, const struct oc_load_opts *opts,
                             struct oc_model **out, struct oc_diag *d);
/* Same from a caller-owned buffer that must outlive the model (fuzzing, tests). */
enum oc_status oc_model_load_buffer(const void *data, size_t size, const struct oc_load_opts *opts,
                                    struct oc_model **out, struct oc_diag *d);
void oc_model_free(struct oc_model *m);

/* The unpacked Onnx__ModelProto (only the proto boundary files use it). */
const void *oc_model_proto(const struct oc_model *m);
const struct oc_model_stats *oc_model_stats(const struct oc_model *m);

/* Reads the integer elements of a TensorProto (given as const Onnx__TensorProto *)
 * into out[0..n). Supports INT8..UINT64 and BOOL stored as raw_data or in the
 * typed fields. Returns OC_ERR_UNSUPPORTED for external or non-integer data,
 * OC_ERR_MODEL when the payload holds fewer than n elements. */
enum oc_status oc_model_tensor_ints(const struct oc_model *m, const void *tensor, int64_t n,
                                    int64_t *out);
/* Reads the elements of a floating-point TensorProto (FLOAT, DOUBLE, FLOAT16,
 * BFLOAT16 as raw_data or packed typed fields; integer types through
 * oc_model_tensor_ints) into out[0..n) as doubles. Same errors as
 * oc_model_tensor_ints. Used for small float inputs shapes depend on
 * (Resize scales), never for weights. */
enum oc_status oc_model_tensor_floats(const struct oc_model *m, const void *tensor, int64_t n,
                                      double *out);
/* Payload bytes of a tensor left in the file (0 if none). */
uint64_t oc_model_tensor_payload_bytes(const struct oc_model *m, const void *tensor);

#endif
