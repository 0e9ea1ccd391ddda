/*
 * parallel.h — more than one device: ring all-reduce, a training step data
 * parallel over n devices, and a pipeline split of the nodes into stages
 * (docs/MODEL.md "Data parallel", "Pipeline").
 */
#ifndef OC_PERF_PARALLEL_H
#define OC_PERF_PARALLEL_H

#include "../training.h"
#include "perf.h"

/* Ring all-reduce of `bytes` over n GPUs (NCCL busbw convention):
 * 2(n-1)/n x bytes / (link_bw x eff_comm) + 2(n-1) x latency per bucket. */
double oc_allreduce_time(const struct oc_gpu *gpu, const struct oc_perf_opts *o, uint64_t bytes, int32_t n);

/* A training step on one GPU and data parallel on n (weak scaling: every
 * GPU runs the analyzed batch). Backward time = 2 x forward for
 * contractions (a node with MACs, or a runtime's Linear or attention
 * kernel: the input's and the weight's gradients), 1.5 x for the rest (a
 * memory-bound op's backward reads its output's gradient and what it saved,
 * and writes its input's gradient: three tensors where forward moved two);
 * a kernel class's own ratio instead where the options give one
 * (oc_perf_opts.backward_ratio) or a built-in GPU's backward fit does
 * (fits.def, OC_TRAINING); the optimizer update streams k x the gradient
 * bytes (SGD 3: read w and g, write w; momentum 5; Adam 7). */
struct oc_data_parallel {
    int32_t n_gpus;
    double forward, backward, update; /* seconds, one GPU                     */
    double class_backward[OC_KC_COUNT]; /* of backward, each kernel class's
                                           kernels' (launches in)            */
    double class_forward[OC_KC_COUNT];  /* their forward time (launches in) */
    const struct oc_builtin_training *training_fit; /* the built-in fit
                                           whose ratios or kernel cost the step
                                           took, or NULL                     */
    bool backward_given;              /* ratios from the options (else from
                                         training_fit where it is set)     */
    double step_kernels;              /* the forward's kernels, two backward
                                         kernels each, the optimizer's per
                                         parameter tensor (PyTorch's
                                         per-tensor loop with zero_grad: SGD
                                         2, momentum 5 with Nesterov's, Adam
                                         9; a folded BatchNorm adds one
                                         tensor, its bias standing in the
                                         export as the convolution's) and 2
                                         per folded BatchNorm               */
    double kernel_s;                  /* the fixed cost each adds (0: none)  */
    double kernels;                   /* step_kernels x kernel_s, seconds    */
    double batchnorm;                 /* with folded_bn: the BatchNorms the export
                                         folded, forward and backward: per
                                         convolution 6 passes over its output
                                         (statistics, normalize; the gradient's
                                         two reductions and dx), memory-bound at
                                         the output's level, and 2 kernels     */
    double step1;                     /* forward + backward + update + batchnorm
                                         + kernels                          */
    uint64_t grad_bytes;
    double allreduce;                 /* seconds per step                      */
    double step_serial;               /* step1 + allreduce                     */
    double step_overlap;              /* forward + max(backward, allreduce) + update */
    double speedup_serial, speedup_overlap; /* n x step1 / step                */
    double allreduce_share;           /* allreduce / step_serial               */
};
enum oc_status oc_data_parallel(const struct oc_perf *p, const struct oc_analysis *an, const struct oc_training *tr,
                                int32_t n_gpus, struct oc_data_parallel *out); /* OC_ERR_NOMEM: out of memory */

/* Pipeline split of the nodes (execution order) into n contiguous stages,
 * minimising the largest stage weight: predicted time or memory (params
 * + output bytes of the stage's nodes). Each cut sends the tensors made
 * before it and read after it over the link. */
enum oc_balance { OC_BALANCE_TIME, OC_BALANCE_MEMORY };
struct oc_stage {
    int32_t first, last;       /* positions in g->order, inclusive          */
    double time;               /* predicted seconds of its nodes            */
    uint64_t param_bytes, activation_bytes;
    uint64_t send_bytes;       /* crossing the cut after this stage         */
    double send_time;          /* send_bytes / (link_bw x eff_comm)         */
};
struct oc_pipeline {
    int32_t n_stages;          /* may be < asked when the graph has fewer nodes */
    struct oc_stage *stages;   /* malloc'd                                   */
    double bottleneck;         /* max over stages of time + send_time        */
    double samples_per_s;      /* batch / bottleneck in steady state          */
};
enum oc_status oc_pipeline_split(const struct oc_perf *p, const struct oc_analysis *an, int32_t n,
                                 enum oc_balance by, struct oc_pipeline *out);
void oc_pipeline_free(struct oc_pipeline *pl);

#endif
