/*
 * options.h — one declarative option table per command, read by one parser
 * (cli/options.c) that also prints the command's --help. An option is one
 * row: its name, argument, help text, kind and destination. Options that
 * several commands take are shared groups (cli/groups.c): the dims, the
 * limits, -o and the GPU model, so that each works the same wherever it is
 * accepted, with the same range and the same error line.
 */
#ifndef OC_CLI_OPTIONS_H
#define OC_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum oc_opt_kind {
    OC_OPT_FLAG,  /* no argument: the bool at the offset becomes true         */
    OC_OPT_INT,   /* int64_t at the offset, an integer from min to max        */
    OC_OPT_TEXT,  /* const char * at the offset, a non-empty argument         */
    OC_OPT_PARSE, /* parse(o, dest, value) stores it; false: "NAME takes
                     EXPECTS, got 'VALUE'"                                    */
    OC_OPT_CALL,  /* call(o, dest, value) prints its own error line; returns
                     OC_PARSE_GO or the exit code                             */
};

struct oc_opt;
typedef bool (*oc_opt_parse_fn)(const struct oc_opt *o, void *dest, const char *value);
typedef int (*oc_opt_call_fn)(const struct oc_opt *o, void *dest, const char *value, const char *prefix);

struct oc_opt {
    const char *name;  /* "--gpu"                                          */
    const char *alias; /* "-o", or NULL                                    */
    const char *arg;   /* the argument's name in the help ("NAME"); NULL
                          for a flag                                       */
    const char *help;  /* help text; "\n" continues under the help column  */
    enum oc_opt_kind kind;
    size_t offset;       /* destination inside the group's struct            */
    int64_t min, max;    /* OC_OPT_INT range; free for PARSE/CALL use         */
    const char *expects; /* OC_OPT_INT, OC_OPT_PARSE: what the error line
                            says the option takes ("an integer from 1 to 64") */
    oc_opt_parse_fn parse;
    oc_opt_call_fn call;
    bool output;         /* its argument is a path the command writes: never
                            noted as an input (oc_cli_note_input)            */
};

/* Rows, one macro per kind (offsetof of a member of the group's struct). */
#define OC_OPT_FLAG_ROW(name_, alias_, help_, off)                                                                     \
    { .name = (name_), .alias = (alias_), .help = (help_), .kind = OC_OPT_FLAG, .offset = (off) }
#define OC_OPT_INT_ROW(name_, arg_, help_, off, lo, hi, expects_)                                                      \
    {                                                                                                                  \
        .name = (name_), .arg = (arg_), .help = (help_), .kind = OC_OPT_INT, .offset = (off), .min = (lo),             \
        .max = (hi), .expects = (expects_)                                                                             \
    }
#define OC_OPT_TEXT_ROW(name_, alias_, arg_, help_, off, expects_)                                                     \
    {                                                                                                                  \
        .name = (name_), .alias = (alias_), .arg = (arg_), .help = (help_), .kind = OC_OPT_TEXT, .offset = (off),      \
        .expects = (expects_)                                                                                          \
    }
/* An output path (-o FILE, --save DIR): a TEXT row the input check skips */
#define OC_OPT_OUTPUT_ROW(name_, alias_, arg_, help_, off, expects_)                                                   \
    {                                                                                                                  \
        .name = (name_), .alias = (alias_), .arg = (arg_), .help = (help_), .kind = OC_OPT_TEXT, .offset = (off),      \
        .expects = (expects_), .output = true                                                                          \
    }
/* lo and hi are the parser's to use (a range, a key, a mask of formats) */
#define OC_OPT_PARSE_ROW(name_, arg_, help_, off, lo, hi, expects_, fn)                                                \
    {                                                                                                                  \
        .name = (name_), .arg = (arg_), .help = (help_), .kind = OC_OPT_PARSE, .offset = (off), .min = (lo),           \
        .max = (hi), .expects = (expects_), .parse = (fn)                                                              \
    }
#define OC_OPT_CALL_ROW(name_, arg_, help_, fn)                                                                        \
    { .name = (name_), .arg = (arg_), .help = (help_), .kind = OC_OPT_CALL, .call = (fn) }

/* Options listed together under one heading of the help. */
struct oc_opt_group {
    const char *title; /* "GPU predictions (...):"; NULL: under "options:" */
    const struct oc_opt *opts;
    int32_t n;
};

/* A group as one command uses it: where its values go. */
struct oc_opt_use {
    const struct oc_opt_group *group;
    void *dest;
};

struct oc_cmd_spec {
    const char *name;   /* "compare": the help hint 'onnxcost compare --help' */
    const char *prefix; /* before every error line: "compare: " or ""        */
    const char *usage;  /* the help above the options (usage and what it does) */
    const char *footer; /* the help below them (units, exit codes, examples), or NULL */
    const struct oc_opt_use *groups;
    int32_t n_groups;
};

/* oc_cli_parse's "no exit yet: run the command". */
enum { OC_PARSE_GO = -1 };

/* Parses argv[1..argc-1] ("--name V", "--name=V", "-o V"): options into
 * their groups, other arguments (and "-") into (*args)[*n_args++], an
 * array it allocates (the caller frees it, whatever the result; NULL and
 * OC_EXIT_INTERNAL when out of memory). -h/--help prints the help and returns OC_EXIT_OK (or
 * OC_EXIT_INTERNAL when stdout fails); a bad option or value prints one
 * error line and returns OC_EXIT_INPUT (CALL options may return another
 * code); otherwise OC_PARSE_GO. Every positional argument and every
 * argument of an option that is not an output is noted as a possible input
 * (oc_cli_note_input: a FIFO is refused there). */
int oc_cli_parse(const struct oc_cmd_spec *cmd, int argc, char **argv, const char ***args, int32_t *n_args);
/* The help text of a command, as --help prints it, on f. */
void oc_cli_print_help(const struct oc_cmd_spec *cmd, FILE *f);

#endif
