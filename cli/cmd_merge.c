/*
 * cmd_merge.c — `onnxcost merge A.json B.json ...`: replay results of one
 * model from several devices (or runs) side by side, node by node.
 */
#include "cli.h"

#include "../replay/results.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_merge_help[] =
    "usage: onnxcost merge RESULT.json RESULT.json ... [options]\n"
    "\n"
    "Puts replay results (onnxcost replay --format json) side by side: per node\n"
    "the median kernel time on each device and the time ratio to the first file,\n"
    "then the totals. Nodes are matched by name; a node one file lacks is '-'.\n"
    "Takes 1 to 8 files (e.g. one per GPU of a Slurm job array, docs/REPLAY.md).\n"
    "\n"
    "options:\n"
    "  --format FMT       text (default), md or json (schema onnxcost-merge/1)\n"
    "  -o, --output FILE  write to FILE\n"
    "\n"
    "example:\n"
    "  onnxcost merge resnet50-a100.json resnet50-v100.json\n";

int oc_cmd_merge(int argc, char **argv) {
    const char *out_path = NULL, *v;
    const char *paths[8];
    int32_t n = 0;
    enum oc_format fmt = OC_FORMAT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(oc_merge_help, stdout);
            return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
        } else if (oc_cli_option(argc, argv, &i, "--format", &v)) {
            if (!v || !oc_format_parse(v, &fmt) || (fmt != OC_FORMAT_TEXT && fmt != OC_FORMAT_JSON && fmt != OC_FORMAT_MD))
                return oc_cli_usage_error("merge: --format takes text, md or json");
        } else if (oc_cli_option(argc, argv, &i, "--output", &v) || oc_cli_option(argc, argv, &i, "-o", &v)) {
            if (!v || !v[0])
                return oc_cli_usage_error("merge: --output takes a file name");
            out_path = v;
        } else if (a[0] == '-' && a[1]) {
            return oc_cli_usage_error("merge: unknown option '%s' (try 'onnxcost merge --help')", a);
        } else if (n == 8) {
            return oc_cli_usage_error("merge: at most 8 result files");
        } else {
            paths[n++] = a;
        }
    }
    if (n == 0)
        return oc_cli_usage_error("merge: no result files given (try 'onnxcost merge --help')");
    struct oc_rp_file files[8];
    memset(files, 0, sizeof files);
    int rc = OC_EXIT_OK;
    struct oc_diag d = {0};
    for (int32_t k = 0; k < n; k++) {
        enum oc_status st = oc_rp_file_read(paths[k], &files[k], &d);
        if (st != OC_OK) {
            oc_cli_diag("error", paths[k], d.msg);
            rc = st == OC_ERR_NOMEM ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
            goto done;
        }
    }
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
        oc_cli_usage_error("%s: cannot open for writing", out_path);
        rc = OC_EXIT_INTERNAL;
        goto done;
    }
    struct oc_report_spec spec = {.version = 1, .format = fmt, .write = oc_cli_write_file, .write_arg = f};
    bool ok = oc_report_merge(files, n, &spec, &d) == OC_OK;
    ok = (f == stdout ? oc_cli_close_stdout() : fclose(f) == 0) && ok;
    if (!ok) {
        fprintf(stderr, "onnxcost: error: %s: cannot write the report\n", out_path ? out_path : "standard output");
        rc = OC_EXIT_INTERNAL;
    }
done:
    for (int32_t k = 0; k < n; k++)
        oc_rp_file_free(&files[k]);
    return rc;
}
