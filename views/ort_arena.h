/*
 * ort_arena.h — ONNX Runtime's CPU memory arena, simulated for one graph
 * (docs/MEASURED.md, "Memory").
 *
 * What ONNX Runtime's profiler reports as mem_in_use_peak on the CPU
 * execution provider is the high-water mark of its BFC arena: the sizes of
 * the chunks in use, not of the tensors. A chunk is a whole region or a piece
 * of one; a request smaller than half a free chunk gets the whole chunk, and
 * regions grow by powers of two from 1 MiB, so a 1.15 MiB tensor can hold
 * 2 MiB. This module replays, for the graph ONNX Runtime ran (the optimized
 * graph `onnxcost measure` saves, with its shapes bound), what the runtime
 * allocates and frees, with its rules:
 *
 *   session start  the weights MatMul, Gemm, FusedMatMul, FusedGemm and
 *                  Attention kernels pre-pack (MLAS's packed size: N rounded
 *                  up to 16, times K, 4-byte floats, 64-byte aligned), outside
 *                  the regions but counted in use;
 *   plan           execution order (a depth-first post-order from the graph's
 *                  last nodes, the highest-indexed input first); an alias op's
 *                  output (Reshape, Flatten, Squeeze, Unsqueeze, Identity)
 *                  shares its input; an activation or Softmax, and the Sum
 *                  input of a fused NCHWc Conv, is overwritten in place when
 *                  this node is its last reader and the shapes agree; an
 *                  output takes a freed buffer of exactly its shape when both
 *                  shapes are known when the session is made (not computed
 *                  from tensor contents, as by a Reshape whose shape input is
 *                  not a weight); a buffer is freed after its last reader;
 *   first run      every tensor a chunk of its own (rounded to 256 bytes),
 *                  kernels' scratch (Conv's MLAS working buffer, BiasGelu's
 *                  temporary, Attention's, Softmax off the last axis) freed
 *                  when the node ends, graph outputs kept to the end;
 *   later runs     one block for all planned tensors (the memory pattern,
 *                  placed best-fit by the first run's trace), allocated in the
 *                  arena the first run left.
 *
 * Checked against ONNX Runtime 1.31.1 on 20 models (docs/results/cpu-*.json):
 * without the allowance below, within 2 KiB of the measured peak on 19 and
 * 2.2 % above on one. No printing, no JSON.
 */
#ifndef OC_ORT_ARENA_H
#define OC_ORT_ARENA_H

#include "../analyzer/graph.h"

/* Small allocations ONNX Runtime reserves when a session is made that the
 * replay does not model: 0 to 1,980 bytes on the 20 models checked; the
 * peak includes this much for them, so that it is not below the measured. */
#define OC_ORT_ARENA_ALLOWANCE 4096u

struct oc_ort_arena {
    uint64_t peak_bytes;       /* the arena's bytes in use at most (mem_in_use_peak),
                                  with OC_ORT_ARENA_ALLOWANCE                         */
    uint64_t held_bytes;       /* regions obtained plus pre-packed weights           */
    uint64_t prepacked_bytes;  /* weights pre-packed when the session is made        */
    int32_t n_prepacked;       /* kernels that pre-pack one                          */
    uint64_t first_run_peak;   /* in the first run (a chunk per tensor)              */
    uint64_t later_run_peak;   /* in the later runs (the memory pattern's block)     */
    uint64_t pattern_bytes;    /* that block                                         */
    int32_t peak_node;         /* node (file index) running at the peak, -1: none    */
    int32_t n_unsized;         /* tensors of unknown size, counted as 0 bytes        */
    int32_t n_subgraph_nodes;  /* nodes with subgraphs, whose bodies are not replayed */
};

/* Simulates ONNX Runtime's CPU execution provider with `threads` intra-op
 * threads (MLAS sizes a Conv's working buffer by them) over g's main graph.
 * The peak is a lower bound when n_unsized or n_subgraph_nodes is not 0.
 * OC_ERR_NOMEM only. */
enum oc_status oc_ort_arena_simulate(const struct oc_graph *g, int32_t threads, struct oc_ort_arena *out);

#endif
