/*
 * cmd_merge.c — `onnxcost merge A.json B.json ...`: replay results of one
 * model from several devices (or runs) side by side, node by node.
 */
#include "cli.h"
#include "groups.h"

#include "../replay/results.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_merge_usage[] = "usage: onnxcost merge RESULT.json RESULT.json ... [options]\n"
                                     "\n"
                                     "Puts replay results (onnxcost replay --format json) side by side: per node\n"
                                     "the median kernel time on each device and the time ratio to the first file,\n"
                                     "then the totals. Nodes are matched by name; a node one file lacks is '-'.\n"
                                     "Takes 1 to 8 files (e.g. one per GPU of a Slurm job array, docs/REPLAY.md).\n"
                                     "\n";

static const char oc_merge_footer[] = "\n"
                                      "example:\n"
                                      "  onnxcost merge resnet50-a100.json resnet50-v100.json\n";

static const struct oc_opt oc_merge_opts[] = {
    OC_OPT_PARSE_ROW("--format", "FMT", "text (default), md or json (schema onnxcost-merge/1)", 0,
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_JSON, 0, "text, md or json",
                     oc_opt_format),
};
static const struct oc_opt_group oc_merge_group = {NULL, oc_merge_opts, 1};

int oc_cmd_merge(int argc, char **argv) {
    const char *out_path = NULL;
    enum oc_format fmt = OC_FORMAT_TEXT;
    const struct oc_opt_use groups[] = {{&oc_merge_group, &fmt}, {&oc_group_output, &out_path}};
    const struct oc_cmd_spec cmd = {"merge", "merge: ", oc_merge_usage, oc_merge_footer, groups, 2};
    const char **paths = NULL;
    int32_t n = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &paths, &n);
    if (rc != OC_PARSE_GO) {
        free(paths);
        return rc;
    }
    if (n == 0 || n > 8) {
        free(paths);
        return oc_cli_usage_error(n ? "merge: at most 8 result files"
                                    : "merge: no result files given (try 'onnxcost merge --help')");
    }
    struct oc_rp_file files[8];
    memset(files, 0, sizeof files);
    rc = OC_EXIT_OK;
    struct oc_diag d = {0};
    for (int32_t k = 0; k < n; k++) {
        enum oc_status st = oc_rp_file_read(paths[k], &files[k], &d);
        if (st != OC_OK) {
            rc = oc_cli_fail(paths[k], st, d.msg);
            goto done;
        }
    }
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, out_path)) != OC_EXIT_OK)
        goto done;
    FILE *f = f_out.f;
    struct oc_report_spec spec = {.version = 1, .format = fmt, .write = oc_cli_write_file, .write_arg = f};
    rc = oc_cli_close_report(&f_out, out_path, oc_report_merge(files, n, &spec, &d));
done:
    for (int32_t k = 0; k < n; k++)
        oc_rp_file_free(&files[k]);
    free(paths);
    return rc;
}
