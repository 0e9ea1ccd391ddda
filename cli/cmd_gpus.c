/*
 * cmd_gpus.c — `onnxcost gpus`: the built-in GPU table (docs/GPUS.md).
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

int oc_cmd_gpus(int argc, char **argv) {
    return oc_cli_listing(argc, argv, "gpus",
                          "usage: onnxcost gpus [--format text|md]\n\n"
                          "Lists the built-in GPUs for --gpu: dense peak TFLOPS (TOPS for INT8) per unit,\n"
                          "memory in GiB, DRAM and GPU-to-GPU link bandwidth in GB/s (one direction).\n"
                          "'-' = no such unit. Sources: docs/GPUS.md. Other devices: --gpu-spec FILE.json.\n\n",
                          oc_report_gpus);
}
