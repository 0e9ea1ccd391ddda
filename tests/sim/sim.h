/*
 * sim.h — ocsim, a simulated CUDA stack for testing the GPU replay plugin on
 * machines without a GPU (tests/sim/README.md).
 *
 * The plugin's own sources (replay/gpu/plugin.c, trace.c, profiler.c,
 * metrics.c) are compiled a second time into libonnxcost_gpu_sim.so against
 * this library instead of cudart, cuDNN, cuBLAS, CUPTI and kernels.cu. Device
 * memory is host memory; every library call and kernel checks its arguments
 * the way the real library documents (descriptor ranks, leading dimensions,
 * broadcast rules, workspace sizes) and that every buffer it would touch lies
 * inside one live allocation. A violation prints one "ocsim: CALL: what" line
 * on stderr and makes the call fail as the real one would (a BAD_PARAM status,
 * or cudaErrorIllegalAddress for a kernel), so the node shows as failed.
 *
 * Each launch is a "kernel" with a deterministic duration and a work record
 * (FP32/FP16/FP64 instructions, tensor ops, DRAM bytes). The fake CUPTI turns
 * those into Activity records (phase 1) and range-profiler metric values
 * (phase 2), so the plugin's joins and derivations run end to end. With
 * $OCSIM_LOG set, every kernel and every profiled range is also written to
 * that file, for the test to compare with the plugin's JSON.
 *
 * Environment switches for the error paths: OCSIM_NO_DEVICE=1 (no driver),
 * OCSIM_NO_TRACE=1 (Activity API unavailable: CUDA events),
 * OCSIM_NO_PROFILER=1 (counters not permitted), OCSIM_MALLOC_LIMIT=BYTES
 * (cudaMalloc beyond that size fails with cudaErrorMemoryAllocation),
 * OCSIM_FAULT=WHAT:KERNEL[:PHASE] (a crash or hang at a kernel's launch).
 */
#ifndef OCSIM_H
#define OCSIM_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

/* What one kernel does, for the fake counters. Instruction counts are thread
 * instructions as `smsp__sass_thread_inst_executed_op_*` counts them (an FMA
 * is one instruction, two FLOPs); tensor is math ops; dram bytes are what the
 * kernel's inputs and outputs would move. */
struct sim_work {
    double fadd, fmul, ffma;
    double hadd, hmul, hfma;
    double dadd, dmul, dfma;
    double tensor;
    double dram_read, dram_write;
};

/* Prints "ocsim: CALL: message" on stderr and counts the error. Returns 1. */
int sim_fail(const char *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 0 when [p, p + bytes) lies inside one live allocation (bytes 0: p inside
 * or one past the end); else sim_fail naming `what` and returns 1. */
int sim_span(const char *call, const char *what, const void *p, uint64_t bytes);

/* The usable stream: 0 when s is NULL (the legacy stream) or a stream made by
 * cudaStreamCreateWithFlags and not destroyed; else sim_fail, 1. */
int sim_stream(const char *call, cudaStream_t s);

/* One kernel on stream s: correlation id, Activity records when tracing,
 * work added to the open profiler range when profiling, a log line. The name
 * is the kernel name CUPTI would report. */
void sim_launch(const char *kernel, cudaStream_t s, const struct sim_work *w);

/* Sets the runtime's last error (cudaGetLastError returns and clears it). */
void sim_set_last_error(cudaError_t e);

/* Handles and descriptors of the fake libraries begin with a struct sim_obj
 * and are kept in one list while live, so that a call given a NULL,
 * destroyed or foreign one is reported instead of reading freed memory. */
struct sim_obj {
    struct sim_obj *next;
    uint32_t kind;
};
enum { SIM_OBJ_STREAM = 1, SIM_OBJ_EVENT, SIM_OBJ_PROFILER_HOST, SIM_OBJ_CUBLAS, SIM_OBJ_CUDNN = 16 /* + cuDNN's own kinds */ };
/* A zeroed object of `size` bytes (a struct beginning with struct sim_obj),
 * registered as live; NULL when out of host memory. */
void *sim_obj_new(uint32_t kind, size_t size);
/* The live object at p, or NULL. */
struct sim_obj *sim_obj_live(const void *p);
/* Unregisters and frees a live object. */
void sim_obj_free(void *p);

/* In a function with `const char *call` in scope: unless cond, one ocsim
 * line (sim_fail) and return status. */
#define SIM_REQ(cond, status, ...)                                                                 \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            sim_fail(call, __VA_ARGS__);                                                           \
            return (status);                                                                       \
        }                                                                                          \
    } while (0)

#endif
