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

/* Limits on what a file may claim (docs/ROBUSTNESS.md, "Limits"). A model
 * beyond one is refused with one line naming the limit and the flag that
 * raises it. 0 in a field means its default. */
enum {
    OC_DEFAULT_MAX_NODES = 16777216,       /* nodes in all graphs and functions   */
    OC_DEFAULT_MAX_RANK = 64,              /* rank of any tensor, declared or inferred */
    OC_DEFAULT_MAX_SUBGRAPH_DEPTH = 32,    /* If/Loop/Scan bodies and function calls nested */
    OC_LIMIT_MAX_NODES = 1 << 27,          /* the most the flags accept           */
    OC_LIMIT_MAX_RANK = 1 << 16,
    OC_LIMIT_MAX_SUBGRAPH_DEPTH = 512,     /* about 3 KiB of stack per level in the analysis */
    OC_OPSET_LATEST = 24,                  /* newest ai.onnx opset with rules (ops.def) */
};

struct oc_limits {
    int64_t max_nodes;
    int32_t max_rank;
    int32_t max_subgraph_depth;
};

struct oc_load_opts {
    int64_t max_depth;       /* nesting limit of messages (0 = derived from the
                                subgraph depth: 3 per level + 48)               */
    int64_t fail_alloc_after; /* tests: make the Nth protobuf allocation fail   */
    struct oc_limits limits; /* 0 fields = defaults                            */
};

/* Loads `path`. On failure returns a status, *out = NULL and a one-line
 * message in d (without the file name: the caller adds it). */
enum oc_status oc_model_load(const char *path, const struct oc_load_opts *opts,
                             struct oc_model **out, struct oc_diag *d);
/* Same from a caller-owned buffer that must outlive the model (fuzzing, tests). */
enum oc_status oc_model_load_buffer(const void *data, size_t size, const struct oc_load_opts *opts,
                                    struct oc_model **out, struct oc_diag *d);
void oc_model_free(struct oc_model *m);

/* The limits the model was loaded with (defaults filled in). */
const struct oc_limits *oc_model_limits(const struct oc_model *m);
/* Warnings about the file found while loading: external data locations
 * outside the model's folder (never opened), zero-size graph input dims, an
 * opset newer than the rules. One line each, for the caller to print. */
int32_t oc_model_n_warnings(const struct oc_model *m);
const char *oc_model_warning(const struct oc_model *m, int32_t i);

/* The external data files the model names (data_location = EXTERNAL), as
 * paths: the model's folder prepended unless absolute, each once, at most
 * 4096; none when loaded from a buffer. Never opened here: the callers that
 * write files use them to refuse writing over a model's weights. */
int32_t oc_model_n_external_files(const struct oc_model *m);
const char *oc_model_external_file(const struct oc_model *m, int32_t i);

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
/* The length of a tensor's raw bytes (little-endian elements), into *len:
 * its raw_data in the model file, or its external data in a file of the
 * model's folder (opened on first use, one at a time; a location out of the
 * folder is never opened). False when the tensor keeps its data another way
 * (typed fields), its external file cannot be read, or it has none. */
bool oc_model_tensor_raw_len(const struct oc_model *m, const void *tensor, uint64_t *len);
/* Reads n bytes at offset off of those bytes into dst: OC_ERR_UNSUPPORTED
 * without them, OC_ERR_USAGE past their end, OC_ERR_IO when the file cannot
 * be read. For comparing weights (lint), a piece at a time. */
enum oc_status oc_model_tensor_raw_read(const struct oc_model *m, const void *tensor, uint64_t off, size_t n,
                                        void *dst);

#endif
