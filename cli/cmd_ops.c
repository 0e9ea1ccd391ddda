/*
 * cmd_ops.c — `onnxcost ops`: the operators and versions in the registry.
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

int oc_cmd_ops(int argc, char **argv) {
    return oc_cli_listing(argc, argv, "ops",
                          "usage: onnxcost ops [--format text|md]\n\n"
                          "Lists each operator with the opset versions at which its shape or cost rule\n"
                          "changes. A model at opset N uses the latest listed version <= N.\n\n",
                          oc_report_ops);
}
