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

#include "../analyzer/oc.h"
#include "../analyzer/outfile.h"

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
int oc_cmd_ranges(int argc, char **argv); /* analyze over --dim NAME=LO:HI, which it needs */
int oc_cmd_ops(int argc, char **argv);
int oc_cmd_gpus(int argc, char **argv);
int oc_cmd_sweep(int argc, char **argv);
int oc_cmd_compare(int argc, char **argv);
int oc_cmd_replay(int argc, char **argv);
int oc_cmd_merge(int argc, char **argv);
int oc_cmd_calibrate(int argc, char **argv);
int oc_cmd_tables(int argc, char **argv);
int oc_cmd_llm(int argc, char **argv);
int oc_cmd_annotate(int argc, char **argv);
int oc_cmd_measure(int argc, char **argv);
int oc_cmd_probe(int argc, char **argv);
/* probe's CPU bodies (probe_cpu.c): the machine's table or spec file
   (format: enum oc_format) to path (NULL: standard output); --calibrate:
   probe, sweeps, measure, calibrate and tables in turn into the spec file
   out_path, threads 0 every CPU. Exit codes. */
struct oc_machine;
struct oc_gpu;
int oc_probe_write_machine(const struct oc_machine *m, const struct oc_gpu *g, int32_t format, const char *path);
int oc_probe_calibrate(const char *out_path, int64_t threads);
int oc_cmd_plan(int argc, char **argv);
int oc_cmd_lint(int argc, char **argv);
int oc_cmd_slurm(int argc, char **argv);

/* Where a run of the tool writes: the report (out), the diagnostic lines
 * (err) and the progress of long commands. The executable runs with
 * stdout, stderr and a progress line on a terminal's standard error; the
 * Python binding (python/_core.c) runs the same commands in its process
 * with both streams in memory and progress reported to a callback. */
struct oc_cli_io {
    FILE *out;
    FILE *err;
    /* "sweep", "replay", "measure": done of total steps; NULL: a line on
     * standard error when it is a terminal */
    void (*progress)(void *arg, const char *what, int64_t done, int64_t total);
    void *progress_arg;
};
/* Runs one command line (argv[0] is the program's name) with io (NULL:
 * the process's streams) and returns its exit code. One run at a time:
 * the streams are the CLI's only state. */
int oc_cli_main(int argc, char **argv, const struct oc_cli_io *io);
/* Sets the run's streams (oc_cli_main does, around the command). */
void oc_cli_set_io(const struct oc_cli_io *io);
/* The streams set, or NULL (the process's). */
const struct oc_cli_io *oc_cli_get_io(void);
/* The run's report and diagnostic streams. */
FILE *oc_cli_out(void);
FILE *oc_cli_err(void);
/* True when the run's report goes to the process's standard output. */
bool oc_cli_out_is_stdout(void);
/* Whether progress is shown (a callback, or a terminal's stderr), and
 * showing it: "\rWHAT DONE/TOTAL", erased when done == total. */
bool oc_cli_progress_on(void);
void oc_cli_progress(const char *what, int64_t done, int64_t total);
/* the same, naming what runs next (shown in ONNXCOST_PROGRESS=lines mode) */
void oc_cli_progress_named(const char *what, int64_t done, int64_t total, const char *next);
/* The callback itself, for a driver whose progress lines the CLI relays
 * (measure): NULL when progress goes to the terminal directly. */
const struct oc_cli_io *oc_cli_io_callback(void);

/* "onnxcost: error: <fmt>\n" on the run's stderr; returns OC_EXIT_INPUT. */
int oc_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "onnxcost: error: out of memory" on stderr; returns OC_EXIT_INTERNAL. */
int oc_cli_out_of_memory(void);
/* "onnxcost: KIND: PATH: MSG\n" on stderr, path and message with every byte
 * that is not printable UTF-8 written as \xNN (names come from the file). */
void oc_cli_diag(const char *kind, const char *path, const char *msg);
/* Loads path and analyzes it with opts: OC_EXIT_OK with *m and *an set, or
 * the file's one error line printed and its exit code (*m may be set then:
 * the caller frees it). */
struct oc_model;
struct oc_load_opts;
struct oc_analyze_opts;
struct oc_analysis;
int oc_cli_load_analyze(const char *path, const struct oc_load_opts *lopts, const struct oc_analyze_opts *opts,
                        struct oc_model **m, struct oc_analysis **an);
/* The analysis' warnings, less those about unbound dims that sym (formulas,
 * or NULL) keeps symbolic. */
struct oc_symbolic;
void oc_cli_analysis_warnings(const char *path, const struct oc_analysis *an, const struct oc_symbolic *sym);
/* oc_cli_diag("error", path, msg), and the exit code of st: OC_EXIT_INTERNAL
 * when out of memory, else OC_EXIT_INPUT. */
int oc_cli_fail(const char *path, enum oc_status st, const char *msg);
/* Strict non-negative integer; false on junk, sign or overflow. */
bool oc_cli_parse_count(const char *s, int64_t *out);
/* mkdir -p DIR (for the option named option: "--save", "-o"): true when DIR
 * is (now) a folder; else one line naming it. */
bool oc_cli_mkdirs(const char *dir, const char *option);
/* Columns of the terminal standard output is, or 0 when it is not one. */
int32_t oc_cli_terminal_width(void);
/* A report's write callback over a FILE * (arg): 0, or -1 on a short write. */
int oc_cli_write_file(void *arg, const char *data, size_t n);
/* Flushes the report stream (and closes it when it is the process's
 * stdout); false when anything written was lost. */
bool oc_cli_close_stdout(void);
/* The report's destination: path opened as outfile.h writes every output
 * (a temporary file renamed into place, a device or FIFO written through),
 * or stdout when path is NULL. OC_EXIT_OK, or the exit code after printing
 * why it cannot be written: OC_EXIT_INPUT when path is a file the run reads
 * (oc_cli_note_input; through a symlink or a hard link too), else
 * OC_EXIT_INTERNAL. */
int oc_cli_open_output(struct oc_outfile *o, const char *path);

/* The files a run reads, so that no output of it is one of them: every
 * argument of an option that is not an output, every positional argument,
 * each model loaded (oc_cli_model_load) with its external data files (those
 * recorded by name, looked at only by oc_cli_output_clash). A path that
 * names nothing is not recorded. OC_EXIT_OK, or OC_EXIT_INPUT
 * after one line when path is a FIFO: onnxcost reads files, and a pipe
 * with no writer would wait forever. Cleared by oc_cli_main. */
int oc_cli_note_input(const char *path);
void oc_cli_forget_inputs(void);
/* Keeps p until oc_cli_main returns, then free_fn(p) (oc_cli_release_kept);
 * false when out of memory (p is then the caller's to free). */
bool oc_cli_keep(void *p, void (*free_fn)(void *));
void oc_cli_release_kept(void);
/* OC_EXIT_OK when writing `path` would not touch a file the run reads
 * (other than `except`, which may be NULL: annotate may rewrite its own
 * model in place); else OC_EXIT_INPUT after one line naming both ("what"
 * names the output: "the report", "--save"). The model's external data
 * files are stat'ed here, never by the analysis. */
int oc_cli_output_clash(const char *path, const char *what, const char *except);
/* oc_model_load, the path and the model's external data files noted as
 * inputs first (a FIFO refused): OC_OK, or a status with d's message. */
struct oc_diag;
enum oc_status oc_cli_model_load(const char *path, const struct oc_load_opts *lopts, struct oc_model **m,
                                 struct oc_diag *d);
/* Closes what oc_cli_open_output gave; `ok` says the report was rendered,
 * and only then does the file take its place. Prints "cannot write the
 * report" and returns OC_EXIT_INTERNAL when anything failed, else
 * OC_EXIT_OK. */
int oc_cli_close_output(struct oc_outfile *o, const char *path, bool ok);
/* The same for a report that returned st: out of memory said as such. */
int oc_cli_close_report(struct oc_outfile *o, const char *path, enum oc_status st);
/* Closes it after an error was printed: the target stays as it was. */
void oc_cli_discard_output(struct oc_outfile *o);

#define OC_VERSION "0.1.0"

#endif
