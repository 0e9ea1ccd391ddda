/*
 * limits.c — the --limit-* options of analyze, sweep and compare (cli.h).
 */
#include "cli.h"

#include "../analyzer/model.h"

#include <string.h>

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
