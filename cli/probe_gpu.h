/*
 * probe_gpu.h — `onnxcost probe --gpu`: the options cmd_probe.c parses and
 * the body that runs the kernel sweep (cmd_probe_gpu.c).
 */
#ifndef OC_CLI_PROBE_GPU_H
#define OC_CLI_PROBE_GPU_H

#include <stdbool.h>
#include <stdint.h>

struct oc_probe_gpu_args {
    bool gpu;                 /* --gpu: measure the GPU's kernel tables     */
    const char *maths;        /* --math fp32,tf32,fp16,bf16                 */
    const char *grid;         /* --grid full|quick                          */
    const char *like;         /* --like NAME: the built-in GPU for the rest */
    const char *report;       /* --report FILE                              */
    const char *source;       /* --source TEXT                              */
    const char *sweep_model;  /* --sweep-model FILE: write the sweep, stop  */
    int64_t device;
    double node_timeout_s, budget_ms;
    bool in_process;
};

/* The sweep replayed at each precision, the tables written as a spec file
 * to out_path and their report (format: enum oc_format) to a->report or
 * standard output. An exit code. */
int oc_probe_gpu(const struct oc_probe_gpu_args *a, int32_t format, const char *out_path);

/* A sweep (enum oc_ksweep_grid) written as an ONNX model to path, for
 * another runtime to time. An exit code. */
int oc_probe_sweep_model(int32_t grid, const char *path);

#endif
