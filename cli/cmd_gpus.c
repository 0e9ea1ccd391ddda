/*
 * cmd_gpus.c — `onnxcost gpus`: the built-in GPU table (docs/GPUS.md).
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

int oc_cmd_gpus(int argc, char **argv) {
    enum oc_format fmt = OC_FORMAT_TEXT;
    const struct oc_opt_use groups[] = {{&oc_group_listing, &fmt}};
    const struct oc_cmd_spec cmd = {"gpus", "gpus: ",
                                    "usage: onnxcost gpus [--format text|md]\n\n"
                                    "Lists the built-in GPUs for --gpu: dense peak TFLOPS (TOPS for INT8) per unit,\n"
                                    "memory in GiB, DRAM and GPU-to-GPU link bandwidth in GB/s (one direction).\n"
                                    "'-' = no such unit. Sources: docs/GPUS.md. Other devices: --gpu-spec FILE.json.\n\n",
                                    NULL, groups, 1};
    int rc = oc_cli_parse_listing(&cmd, argc, argv);
    if (rc != OC_PARSE_GO)
        return rc;
    struct oc_report_spec spec = {.version = 1, .format = fmt, .write = oc_cli_write_file, .write_arg = stdout};
    struct oc_diag d = {0};
    return oc_cli_close_output(stdout, NULL, oc_report_gpus(&spec, &d) == OC_OK);
}
