/*
 * ksweep.h — the kernel sweep `onnxcost probe --gpu` replays to measure a
 * device's kernel tables (views/perf/kernels.h; docs/MODEL.md "Kernel tables").
 *
 * The sweep is an ONNX model (opset 17, FP32, static shapes) of independent
 * nodes, each reading graph inputs of its own: one node per grid point of
 * every kernel family, over the shapes real models use (docs/REPLAY.md,
 * "Measuring a device's tables"). The replay runs it like any model, at the
 * precision asked for, and every measured node becomes a sample of its
 * family's table. The grid steps by 4x (2 log2 units) per feature, so every
 * shape inside the grid has a sample within the tables' radius.
 *
 * The runs grid (OC_KSWEEP_RUNS) is a CPU's, for ONNX Runtime to time
 * (`onnxcost probe --sweep-model`, then `measure`): memory-bound nodes
 * whose runs of their kernel's inner loop (views/perf/kernels.h oc_kernel_runs)
 * go from one to every element, at a few fixed sizes; chains of small
 * nodes; small products. Its nodes read and write as a model's do: what
 * they read of a graph input of 1024 elements or more comes through an
 * Abs (a graph input is read cold: 2.9x an Add's time at 4 MiB), and a
 * ReduceMax reads what they write (a graph output is allocated afresh each
 * run, outside ONNX Runtime's arena: about 1 us more a node).
 */
#ifndef OC_REPLAY_KSWEEP_H
#define OC_REPLAY_KSWEEP_H

#include "../analyzer/oc.h"

#include <stddef.h>
#include <stdint.h>

enum oc_ksweep_grid {
    OC_KSWEEP_FULL,   /* the tables' grid: about 600 nodes             */
    OC_KSWEEP_QUICK,  /* a few points per family: a check of the sweep  */
    OC_KSWEEP_RUNS,   /* a CPU's: the memory-bound kernels at a few fixed
                         sizes over their runs (oc_kernel_runs: a
                         broadcast's spans from 1 element to the whole
                         tensor, a normalization's rows from 2 elements
                         long), what calibrate fits a CPU's cost per run
                         on and the tables each op's own, 72 nodes of at
                         most 4 MiB; 6 chains of 17 ops (16 to 256K
                         elements), samples of each op's cost per node;
                         and 69 products of N and K under 64, by packed
                         weights and batched as attention's, 431 nodes
                         with the Abs and ReduceMax nodes around them   */
    OC_KSWEEP_CPU,    /* the quick grid's kernels as a model's nodes, for
                         ONNX Runtime on a CPU (probe --calibrate): the
                         weights initializers, packed once; the data
                         read warm and the output read inside the graph */
};

struct oc_ksweep {
    uint8_t *bytes;    /* the serialized ModelProto (free())            */
    size_t len;
    int32_t n_nodes;
    int32_t per_family[16]; /* nodes by enum oc_kfamily                 */
};

/* Builds the sweep; OC_ERR_NOMEM when out of memory. */
enum oc_status oc_ksweep_build(enum oc_ksweep_grid grid, struct oc_ksweep *out);
void oc_ksweep_free(struct oc_ksweep *s);

#endif
