/*
 * cmd_ops.c — `onnxcost ops`: the operators and versions in the registry.
 */
#include "cli.h"

#include "../analyzer/ops.h"

#include <string.h>

int oc_cmd_ops(int argc, char **argv) {
    bool md = false;
    const char *v;
    for (int i = 1; i < argc; i++) {
        if (oc_cli_option(argc, argv, &i, "--format", &v)) {
            if (!v || (strcmp(v, "text") && strcmp(v, "md")))
                return oc_cli_usage_error("ops: --format takes text or md");
            md = strcmp(v, "md") == 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            puts("usage: onnxcost ops [--format text|md]\n\n"
                 "Lists each operator with the opset versions at which its shape or cost rule changes.\n"
                 "A model at opset N uses the latest listed version <= N.");
            return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
        } else {
            return oc_cli_usage_error("ops: unknown argument '%s'", argv[i]);
        }
    }
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
