/*
 * shape.h — pure shape arithmetic shared by every rule: broadcasting, the
 * one implementation of the convolution/pooling output size, axis
 * normalisation. No graph access, no allocation.
 */
#ifndef OC_SHAPE_H
#define OC_SHAPE_H

#include "graph.h"

/* Multidirectional (numpy) broadcasting of a and b into out (capacity
 * max(ra, rb)). Unknown dims stay unknown unless the other side fixes them.
 * Returns OC_ERR_MODEL when two known dims differ and neither is 1. */
enum oc_status oc_broadcast(const struct oc_dim *a, int32_t ra, const struct oc_dim *b, int32_t rb,
                            struct oc_dim *out, int32_t *rout);

enum oc_auto_pad {
    OC_AUTO_PAD_NOTSET,
    OC_AUTO_PAD_SAME_UPPER,
    OC_AUTO_PAD_SAME_LOWER,
    OC_AUTO_PAD_VALID,
};
/* Unidirectional broadcasting: true when `from` (rank rf) can be broadcast
 * to `to` (rank rt) without changing `to`'s shape (rf <= rt, each aligned dim
 * 1 or equal). Unknown dims on either side are taken as compatible. */
bool oc_broadcastable_to(const struct oc_dim *from, int32_t rf, const struct oc_dim *to, int32_t rt);

/* True when both shapes are known and equal. */
bool oc_dims_equal(const struct oc_dim *a, int32_t ra, const struct oc_dim *b, int32_t rb);

/* Parses an auto_pad string; false if not one of the four. */
bool oc_auto_pad_parse(const char *s, enum oc_auto_pad *out);

/* Output size of one spatial axis of Conv/Pool:
 *   NOTSET: floor_or_ceil((in + pb + pe - ((k-1)*dil + 1)) / stride) + 1,
 *           in ceil mode a last window starting inside the end padding is
 *           dropped (PyTorch and ONNX Runtime behaviour);
 *   SAME_*: ceil(in / stride), pads chosen as the spec says (the extra one at
 *           the end for SAME_UPPER, at the beginning for SAME_LOWER);
 *   VALID:  floor((in - ((k-1)*dil + 1)) / stride) + 1, no padding.
 * in < 0 (unknown) gives *out = -1. The pads actually used are returned in
 * *pb_used / *pe_used. OC_ERR_MODEL when the window does not fit. */
enum oc_status oc_spatial_out(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe,
                              enum oc_auto_pad ap, bool ceil_mode, int64_t *out, int64_t *pb_used,
                              int64_t *pe_used);

/* Output size of one spatial axis of ConvTranspose, the inverse of
 * oc_spatial_out (MaxUnpool uses it with dil = 1 and out_pad = 0):
 *   NOTSET: stride * (in - 1) + out_pad + ((k-1)*dil + 1) - pb - pe;
 *   VALID:  the same with pb = pe = 0;
 *   SAME_*: in * stride (the spec chooses the pads to give exactly that).
 * in < 0 (unknown) gives *out = -1. OC_ERR_MODEL when the result is
 * negative, an argument is out of range or the arithmetic overflows. */
enum oc_status oc_spatial_out_transposed(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb,
                                         int64_t pe, int64_t out_pad, enum oc_auto_pad ap, int64_t *out);

/* Normalises axis in [-rank, rank) to [0, rank); false when out of range. */
bool oc_axis_norm(int64_t axis, int32_t rank, int32_t *out);

/* The window of a Conv, ConvTranspose or pooling node (pads: all begins,
 * then all ends, as in ONNX). */
enum { OC_MAX_SPATIAL = 16 };

struct oc_window {
    int32_t n;                      /* spatial rank                 */
    int64_t k[OC_MAX_SPATIAL];      /* kernel                       */
    int64_t s[OC_MAX_SPATIAL];      /* strides                      */
    int64_t dil[OC_MAX_SPATIAL];    /* dilations                    */
    int64_t pads[2 * OC_MAX_SPATIAL];
    enum oc_auto_pad ap;
    bool ceil_mode;
};
/* Reads kernel_shape (or takes `kernel` when given), strides, dilations,
 * pads, auto_pad and ceil_mode, each checked against the spatial rank n;
 * the shape rules and the replay's planner read windows with it. */
enum oc_status oc_window_read(const struct oc_node *node, int32_t n, const int64_t *kernel, struct oc_window *w,
                              struct oc_diag *d);

#endif
