/*
 * cmd_ops.c — `onnxcost ops`: the operators and versions in the registry.
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

int oc_cmd_ops(int argc, char **argv) {
    enum oc_format fmt = OC_FORMAT_TEXT;
    const struct oc_opt_use groups[] = {{&oc_group_listing, &fmt}};
    const struct oc_cmd_spec cmd = {"ops", "ops: ",
                                    "usage: onnxcost ops [--format text|md]\n\n"
                                    "Lists each operator with the opset versions at which its shape or cost rule\n"
                                    "changes. A model at opset N uses the latest listed version <= N.\n\n",
                                    NULL, groups, 1};
    int rc = oc_cli_parse_listing(&cmd, argc, argv);
    if (rc != OC_PARSE_GO)
        return rc;
    struct oc_report_spec spec = {.version = 1, .format = fmt, .write = oc_cli_write_file, .write_arg = stdout};
    struct oc_diag d = {0};
    return oc_cli_close_output(stdout, NULL, oc_report_ops(&spec, &d) == OC_OK);
}
