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

/* "onnxcost: error: <fmt>\n" on stderr; returns OC_EXIT_INPUT. */
int oc_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "onnxcost: KIND: PATH: MSG\n" on stderr, path and message with every byte
 * that is not printable UTF-8 written as \xNN (names come from the file). */
void oc_cli_diag(const char *kind, const char *path, const char *msg);
struct oc_limits;
/* --limit-nodes / --limit-rank / --limit-subgraph-depth (option as given in
 * arg, value v) into lim; prints the usage error and returns false when v is
 * not an integer in range. */
bool oc_cli_parse_limit(const char *arg, const char *v, struct oc_limits *lim);
/* Strict non-negative integer; false on junk, sign or overflow. */
bool oc_cli_parse_count(const char *s, int64_t *out);
/* Value of option `name` given as "--name=V" or "--name V"; advances *i. */
bool oc_cli_option(int argc, char **argv, int *i, const char *name, const char **value);
/* Columns of the terminal standard output is, or 0 when it is not one. */
int32_t oc_cli_terminal_width(void);
/* Flushes and closes stdout; false when anything written was lost. */
bool oc_cli_close_stdout(void);

#define OC_VERSION "0.1.0"

#endif
