/*
 * cli.h — commands of the onnxcost executable. cli/ only parses arguments,
 * calls the analyzer and the reports, prints diagnostics and owns the exit
 * codes; it computes nothing itself.
 */
#ifndef OC_CLI_H
#define OC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum oc_exit {
    OC_EXIT_OK = 0,       /* success                                        */
    OC_EXIT_BUDGET = 1,   /* a budget was exceeded (reserved for --max-*)   */
    OC_EXIT_INPUT = 2,    /* bad model file or bad usage                    */
    OC_EXIT_INTERNAL = 3, /* out of memory, or the output could not be written */
    OC_EXIT_INCOMPLETE = 4, /* a budget cannot be verified: what it limits is a
                               lower bound (nodes without a cost; see
                               --allow-incomplete)                          */
};

struct oc_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

int oc_cmd_analyze(int argc, char **argv);
int oc_cmd_ops(int argc, char **argv);
int oc_cmd_gpus(int argc, char **argv);
int oc_cmd_sweep(int argc, char **argv);
int oc_cmd_compare(int argc, char **argv);
int oc_cmd_replay(int argc, char **argv);
int oc_cmd_merge(int argc, char **argv);

/* "onnxcost: error: <fmt>\n" on stderr; returns OC_EXIT_INPUT. */
int oc_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "onnxcost: KIND: PATH: MSG\n" on stderr, path and message with every byte
 * that is not printable UTF-8 written as \xNN (names come from the file). */
void oc_cli_diag(const char *kind, const char *path, const char *msg);
struct oc_limits;
/* The --limit-nodes / --limit-rank / --limit-subgraph-depth options shared by
 * analyze, sweep and compare (cli/limits.c). When argv[*i] is one of them
 * ("--limit-rank 65" or "--limit-rank=65") its value goes into lim, *i is
 * advanced past it and the result is 1; a value that is not an integer in
 * range prints the usage error and gives -1 (exit OC_EXIT_INPUT); any other
 * argument gives 0 and changes nothing. */
int oc_cli_limit_option(int argc, char **argv, int *i, struct oc_limits *lim);
/* --dim NAME=N and --batch N (analyze, replay). When argv[*i] is one of them
 * its binding goes into opts (dims[opts->n_dims++], dims having room for one
 * per argument; each name is malloc'd: the caller frees dims[k].name for
 * k < opts->n_dims) and the result is 1; a bad value or a name given twice
 * prints the usage error, prefixed by `cmd` ("" or "replay: "), and gives -1
 * (exit OC_EXIT_INPUT), no memory -2 (OC_EXIT_INTERNAL); any other argument
 * gives 0. */
struct oc_analyze_opts;
struct oc_binding;
int oc_cli_bind_option(int argc, char **argv, int *i, const char *cmd, struct oc_analyze_opts *opts,
                       struct oc_binding *dims);
/* Their lines in each command's --help. */
#define OC_CLI_LIMITS_HELP                                                       \
    "limits (a model beyond one is refused with exit 2; docs/ROBUSTNESS.md):\n" \
    "  --limit-nodes N   nodes in all graphs and functions (default 16777216)\n" \
    "  --limit-rank N    rank of any tensor, declared or inferred (default 64)\n" \
    "  --limit-subgraph-depth N  If/Loop/Scan bodies and function calls nested\n" \
    "                    (default 32, at most 512)\n"
/* Strict non-negative integer; false on junk, sign or overflow. */
bool oc_cli_parse_count(const char *s, int64_t *out);
/* Value of option `name` given as "--name=V" or "--name V"; advances *i. */
bool oc_cli_option(int argc, char **argv, int *i, const char *name, const char **value);
/* Columns of the terminal standard output is, or 0 when it is not one. */
int32_t oc_cli_terminal_width(void);
/* A report's write callback over a FILE * (arg): 0, or -1 on a short write. */
int oc_cli_write_file(void *arg, const char *data, size_t n);
/* Flushes and closes stdout; false when anything written was lost. */
bool oc_cli_close_stdout(void);

#define OC_VERSION "0.1.0"

#endif
