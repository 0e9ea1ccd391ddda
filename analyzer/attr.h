/*
 * attr.h — typed access to a node's attributes.
 *
 * Each getter looks an attribute up by name. Absent: the default is used
 * (or, for lists, *n = 0) and OC_OK is returned. Present with another type:
 * OC_ERR_MODEL with a message in d naming the attribute and both types.
 * Returned pointers are borrowed from the model.
 */
#ifndef OC_ATTR_H
#define OC_ATTR_H

#include "graph.h"

bool oc_attr_has(const struct oc_node *n, const char *name);
enum oc_status oc_attr_int(const struct oc_node *n, const char *name, int64_t def, int64_t *out,
                           struct oc_diag *d);
/* An INT attribute holding a TensorProto.DataType code (Cast `to`, `dtype`):
 * def when absent; OC_ERR_MODEL when present and not a known code. */
enum oc_status oc_attr_dtype(const struct oc_node *n, const char *name, int32_t def, int32_t *out,
                             struct oc_diag *d);
enum oc_status oc_attr_float(const struct oc_node *n, const char *name, float def, float *out,
                             struct oc_diag *d);
/* String attribute copied NUL-terminated into buf (def when absent).
 * OC_ERR_MODEL when it holds a NUL byte or does not fit in size - 1 bytes. */
enum oc_status oc_attr_string(const struct oc_node *n, const char *name, const char *def, char *buf,
                              size_t size, struct oc_diag *d);
/* Entry i of a STRINGS attribute, copied NUL-terminated into buf as
 * oc_attr_string does; *count receives the number of entries (0 when the
 * attribute is absent: buf is then ""). i beyond the list leaves buf "". */
enum oc_status oc_attr_strings_at(const struct oc_node *n, const char *name, int64_t i, char *buf, size_t size,
                                  int64_t *count, struct oc_diag *d);
enum oc_status oc_attr_ints(const struct oc_node *n, const char *name, const int64_t **v, int64_t *count,
                            struct oc_diag *d);
enum oc_status oc_attr_floats(const struct oc_node *n, const char *name, const float **v, int64_t *count,
                              struct oc_diag *d);
/* Tensor attribute (Constant's `value`): element type, dims and the TensorProto
 * handle usable with oc_model_tensor_ints(). *found = false when absent. */
enum oc_status oc_attr_tensor(const struct oc_node *n, const char *name, bool *found, int32_t *dtype,
                              int32_t *rank, const int64_t **dims, const void **tensor,
                              struct oc_diag *d);
/* GraphProto of a GRAPH attribute (for oc_graph_build_sub), NULL when absent. */
enum oc_status oc_attr_graph(const struct oc_node *n, const char *name, const void **graph, struct oc_diag *d);
/* TypeProto of a TYPE_PROTO attribute (Optional's `type`; read it with
 * oc_type_from_proto), NULL when absent. */
enum oc_status oc_attr_type_proto(const struct oc_node *n, const char *name, const void **type_proto,
                                  struct oc_diag *d);
/* Name of the first attribute holding a subgraph, or NULL. */
const char *oc_attr_first_graph(const struct oc_node *n);

#endif
