/*
 * layout.h — the memory format eager PyTorch gives each tensor of an
 * exported graph (docs/MODEL.md, "Runtimes"), for the runtime plan
 * (runtime.c): which of the graph's permutes between NCHW and NHWC are
 * views of memory as it lies.
 *
 * A permute is a view in PyTorch; what it costs is the copy a later kernel
 * makes when it needs the logical order contiguous. A LayerNorm over
 * channels written as permute(0,2,3,1), layer_norm, permute(0,3,1,2)
 * (ConvNeXt's, and timm's LayerNorm2d) leaves an NCHW-shaped tensor stored
 * NHWC, channels last. cuDNN's convolutions, pooling, BatchNorm and every
 * elementwise op take such a tensor as it lies and write their output the
 * same way, so the next block's permute(0,2,3,1) is a view as well: once a
 * network turns channels-last after its stem it stays so, though its input
 * was NCHW (timm's rows measure ConvNeXt-T at 4,797 images/s in NCHW and
 * 4,845 in channels-last on an RTX 4090).
 */
#ifndef OC_PERF_LAYOUT_H
#define OC_PERF_LAYOUT_H

#include "../../analyzer/graph.h"

#include <stdbool.h>

/* A Transpose between NCHW and NHWC of a 4-D tensor: 1 for
 * permute(0,2,3,1) (to NHWC), 2 for permute(0,3,1,2) (back), else 0. */
int oc_layout_permute_kind(const struct oc_node *n);

/* A Transpose that swaps a tensor's last two axes, the others in place
 * (K^T, P^T; perm (0, 2, 1) of tokens (B, N, C)): its rank, else 0 (and
 * for NULL). */
int64_t oc_layout_swaps_last_two(const struct oc_node *n);

/* An elementwise op eager PyTorch runs through TensorIterator: it reads
 * strided inputs as they lie (no copy before it) and writes its output in
 * the memory format of its inputs. */
bool oc_layout_elementwise(const struct oc_node *n);

/* For every node of g, view[i] true when it is a permute between NCHW and
 * NHWC that eager PyTorch leaves a view by the memory format of its input:
 *   - permute(0,2,3,1) of a channels-last tensor (contiguous NHWC then);
 *   - permute(0,3,1,2) of a contiguous NHWC tensor whose every reader, and
 *     their readers in turn, takes the channels-last result as it lies (the
 *     ops above, a permute back to NHWC, a global pool or a reduction, a
 *     graph output; with channels_last a convolution, which writes
 *     channels-last whatever it reads);
 *   - either, of a tensor of one position ((B, C, 1, 1) or (B, 1, 1, C)).
 * channels_last: the model is channels-last (--channels-last): the graph's
 * 4-D inputs and every convolution's output lie so.
 * anchor[i] >= 0: node i is already part of one of the runtime plan's
 * groups (priced there), not a view. False when out of memory. */
bool oc_layout_permute_views(const struct oc_graph *g, const int32_t *anchor, bool channels_last, bool *view);

#endif
