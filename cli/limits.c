/*
 * limits.c — options several commands share (cli.h): the --limit-* options
 * of analyze, sweep, compare and replay, and the --dim/--batch bindings of
 * analyze, compare and replay.
 */
#include "cli.h"

#include "../analyzer/analyze.h"
#include "../analyzer/model.h"

#include <stdlib.h>
#include <string.h>

int oc_cli_bind_option(int argc, char **argv, int *i, const char *cmd, struct oc_analyze_opts *opts,
                       struct oc_binding *dims) {
    const char *v;
    if (oc_cli_option(argc, argv, i, "--batch", &v)) {
        if (!oc_cli_parse_count(v, &opts->batch) || opts->batch < 1) {
            oc_cli_usage_error("%s--batch takes a positive integer, got '%s'", cmd, v ? v : "");
            return -1;
        }
        return 1;
    }
    if (!oc_cli_option(argc, argv, i, "--dim", &v))
        return 0;
    const char *eq = v ? strrchr(v, '=') : NULL;
    int64_t val;
    if (!eq || eq == v || !oc_cli_parse_count(eq + 1, &val) || val < 1) {
        oc_cli_usage_error("%s--dim takes NAME=N with a positive integer N, got '%s'", cmd, v ? v : "");
        return -1;
    }
    char *nm = strndup(v, (size_t)(eq - v));
    if (!nm)
        return -2;
    for (int32_t k = 0; k < opts->n_dims; k++)
        if (strcmp(dims[k].name, nm) == 0) {
            oc_cli_usage_error("%s--dim %s given twice", cmd, nm);
            free(nm);
            return -1;
        }
    dims[opts->n_dims++] = (struct oc_binding){nm, val};
    return 1;
}

int oc_cli_limit_option(int argc, char **argv, int *i, struct oc_limits *lim) {
    static const struct {
        const char *name;
        int64_t max;
    } opts[] = {{"--limit-nodes", OC_LIMIT_MAX_NODES},
                {"--limit-rank", OC_LIMIT_MAX_RANK},
                {"--limit-subgraph-depth", OC_LIMIT_MAX_SUBGRAPH_DEPTH}};
    const char *v;
    size_t k = 0;
    while (k < sizeof opts / sizeof opts[0] && !oc_cli_option(argc, argv, i, opts[k].name, &v))
        k++;
    if (k == sizeof opts / sizeof opts[0])
        return 0;
    int64_t n;
    if (!oc_cli_parse_count(v, &n) || n < 1 || n > opts[k].max) {
        oc_cli_usage_error("%s takes an integer from 1 to %lld, got '%s'", opts[k].name, (long long)opts[k].max,
                           v ? v : "");
        return -1;
    }
    if (k == 0)
        lim->max_nodes = n;
    else if (k == 1)
        lim->max_rank = (int32_t)n;
    else
        lim->max_subgraph_depth = (int32_t)n;
    return 1;
}
