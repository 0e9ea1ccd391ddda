/*
 * cmd_gpus.c — `onnxcost gpus`: the built-in GPU table (docs/GPUS.md).
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

#include "../analyzer/gpu.h"

#include <string.h>

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
    bool md = fmt == OC_FORMAT_MD;
    static const enum oc_unit cols[] = {OC_UNIT_FP64, OC_UNIT_FP64_TC, OC_UNIT_FP32, OC_UNIT_TF32_TC,
                                        OC_UNIT_FP16_TC, OC_UNIT_BF16_TC, OC_UNIT_FP8_TC, OC_UNIT_INT8_TC};
    enum { NC = sizeof cols / sizeof cols[0] };
    if (md) {
        fputs("| id | name |", stdout);
        for (int c = 0; c < NC; c++)
            printf(" %s (TFLOPS) |", oc_unit_name(cols[c]));
        puts(" memory (GiB) | DRAM (GB/s) | link (GB/s) |");
        fputs("|---|---|", stdout);
        for (int c = 0; c < NC + 3; c++)
            fputs("---:|", stdout);
        puts("");
    } else {
        printf("%-15s", "id");
        for (int c = 0; c < NC; c++)
            printf(" %8s", oc_unit_name(cols[c]));
        printf(" %8s %8s %8s  %s\n", "mem GiB", "DRAM GB/s", "link GB/s", "name");
        printf("%-15s %8s %8s %8s %8s %8s %8s %8s %8s\n", "", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS",
               "TFLOPS", "TFLOPS", "TOPS");
    }
    for (int32_t i = 0; i < oc_gpu_count(); i++) {
        const struct oc_gpu *g = oc_gpu_at(i);
        printf(md ? "| %s | %s |" : "%-15s", g->id, md ? g->name : "");
        for (int c = 0; c < NC; c++) {
            if (g->peak[cols[c]] > 0)
                printf(md ? " %g |" : " %8g", g->peak[cols[c]] / 1e12);
            else
                printf(md ? " - |" : " %8s", "-");
        }
        double gib = (double)g->mem_bytes / (1024.0 * 1024.0 * 1024.0);
        if (md)
            printf(" %g | %g | %g |\n", gib, g->mem_bw / 1e9, g->link_bw / 1e9);
        else
            printf(" %8g %8g %8g  %s\n", gib, g->mem_bw / 1e9, g->link_bw / 1e9, g->name);
    }
    return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
}
