/*
 * cmd_ops.c — `onnxcost ops`: the operators and versions in the registry.
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

#include "../analyzer/ops.h"

#include <string.h>

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
    bool md = fmt == OC_FORMAT_MD;
    if (md)
        puts("| domain | operator | versions |\n|---|---|---|");
    else
        printf("%-16s %-24s %s\n", "domain", "operator", "versions");
    size_t n = oc_op_count();
    for (size_t i = 0; i < n;) {
        const struct oc_op_def *d = oc_op_at(i);
        const char *dom = d->domain[0] ? d->domain : "ai.onnx";
        printf(md ? "| %s | %s | " : "%-16s %-24s ", dom, d->op_type);
        size_t j = i;
        for (; j < n && strcmp(oc_op_at(j)->domain, d->domain) == 0 && strcmp(oc_op_at(j)->op_type, d->op_type) == 0;
             j++)
            printf("%s%d", j > i ? ", " : "", oc_op_at(j)->since_version);
        puts(md ? " |" : "");
        i = j;
    }
    return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
}
