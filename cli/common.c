/*
 * common.c — what every command shares (cli.h): one-line usage errors and
 * diagnostics, integer parsing, the terminal's width, the report's output
 * file and writer callback, the final check of standard output, and the
 * run's streams (oc_cli_main sets them: the process's, or the
 * Python binding's in memory). commands.c only dispatches to the commands;
 * they call these, never commands.c.
 */
#include "cli.h"

#include "../analyzer/analyze.h"
#include "../analyzer/model.h"
#include "../analyzer/oc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const struct oc_cli_io *oc_io; /* the run's streams, or NULL: the process's */

void oc_cli_set_io(const struct oc_cli_io *io) {
    oc_io = io;
}

FILE *oc_cli_out(void) {
    return oc_io && oc_io->out ? oc_io->out : stdout;
}

FILE *oc_cli_err(void) {
    return oc_io && oc_io->err ? oc_io->err : stderr;
}

bool oc_cli_out_is_stdout(void) {
    return oc_cli_out() == stdout;
}

const struct oc_cli_io *oc_cli_io_callback(void) {
    return oc_io && oc_io->progress ? oc_io : NULL;
}

bool oc_cli_progress_on(void) {
    return oc_cli_io_callback() || (oc_cli_err() == stderr && isatty(STDERR_FILENO));
}

void oc_cli_progress(const char *what, int64_t done, int64_t total) {
    if (oc_cli_io_callback()) {
        oc_io->progress(oc_io->progress_arg, what, done, total);
        return;
    }
    if (!oc_cli_progress_on())
        return;
    fprintf(stderr, "\r%s %lld/%lld", what, (long long)done, (long long)total);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

int oc_cli_usage_error(const char *fmt, ...) {
    va_list ap;
    FILE *err = oc_cli_err();
    fputs("onnxcost: error: ", err);
    va_start(ap, fmt);
    vfprintf(err, fmt, ap);
    va_end(ap);
    fputc('\n', err);
    return OC_EXIT_INPUT;
}

void oc_cli_diag(const char *kind, const char *path, const char *msg) {
    char p[1024], m[2048];
    oc_printable(path ? path : "", p, sizeof p);
    oc_printable(msg ? msg : "", m, sizeof m);
    fprintf(oc_cli_err(), "onnxcost: %s: %s: %s\n", kind, p, m);
}

int oc_cli_load_analyze(const char *path, const struct oc_load_opts *lopts, const struct oc_analyze_opts *opts,
                        struct oc_model **m, struct oc_analysis **an) {
    struct oc_diag d = {0};
    enum oc_status st = oc_model_load(path, lopts, m, &d);
    if (st == OC_OK)
        st = oc_analyze(*m, opts, an, &d);
    return st == OC_OK ? OC_EXIT_OK : oc_cli_fail(path, st, d.msg);
}

void oc_cli_analysis_warnings(const char *path, const struct oc_analysis *an, const struct oc_symbolic *sym) {
    for (int32_t i = 0; i < an->n_warnings; i++) {
        bool covered = false; /* an unbound dim the formulas keep symbolic */
        for (int32_t j = 0; sym && j < an->n_bound; j++)
            covered |= an->bound[j].warning == an->warnings[i] && an->bound[j].name;
        if (!covered)
            oc_cli_diag("warning", path, an->warnings[i]);
    }
}

int oc_cli_fail(const char *path, enum oc_status st, const char *msg) {
    oc_cli_diag("error", path, msg);
    return st == OC_ERR_NOMEM ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
}

bool oc_cli_parse_count(const char *s, int64_t *out) {
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > (unsigned long long)INT64_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

int32_t oc_cli_terminal_width(void) {
    if (!oc_cli_out_is_stdout() || !isatty(STDOUT_FILENO))
        return 0;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *cols = getenv("COLUMNS");
    int64_t n;
    return cols && oc_cli_parse_count(cols, &n) && n > 0 && n < 10000 ? (int32_t)n : 80;
}

int oc_cli_write_file(void *arg, const char *data, size_t n) {
    return fwrite(data, 1, n, (FILE *)arg) == n ? 0 : -1;
}

bool oc_cli_close_stdout(void) {
    FILE *out = oc_cli_out();
    bool ok = fflush(out) == 0 && !ferror(out);
    if (!oc_io && fclose(stdout) != 0) /* the executable's; a stream given to oc_cli_main stays its owner's */
        ok = false;
    return ok;
}

bool oc_cli_open_output(struct oc_outfile *o, const char *path) {
    if (!path) {
        *o = (struct oc_outfile){oc_cli_out(), NULL, NULL};
        return true;
    }
    struct oc_diag d = {0};
    if (oc_outfile_open(o, path, &d) == OC_OK)
        return true;
    oc_cli_diag("error", path, d.msg);
    return false;
}

int oc_cli_close_output(struct oc_outfile *o, const char *path, bool ok) {
    if (o->f == oc_cli_out()) {
        ok = oc_cli_close_stdout() && ok;
        o->f = NULL;
    } else {
        ok = oc_outfile_close(o, ok, NULL) == OC_OK && ok;
    }
    if (ok)
        return OC_EXIT_OK;
    fprintf(oc_cli_err(), "onnxcost: error: %s: cannot write the report\n", path ? path : "standard output");
    return OC_EXIT_INTERNAL;
}

void oc_cli_discard_output(struct oc_outfile *o) {
    if (o->f == oc_cli_out())
        o->f = NULL; /* what was printed stays printed */
    oc_outfile_close(o, false, NULL);
}
