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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const struct oc_cli_io *oc_io; /* the run's streams, or NULL: the process's */

void oc_cli_set_io(const struct oc_cli_io *io) {
    oc_io = io;
}

const struct oc_cli_io *oc_cli_get_io(void) {
    return oc_io;
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

/* ONNXCOST_PROGRESS=lines: progress as a line every few seconds, for a log
   (a batch job, the device kit) where the terminal's rewritten line is lost */
static bool oc_cli_progress_lines(void) {
    const char *e = getenv("ONNXCOST_PROGRESS");
    return e && strcmp(e, "lines") == 0;
}

bool oc_cli_progress_on(void) {
    return oc_cli_io_callback() || (oc_cli_err() == stderr && (isatty(STDERR_FILENO) || oc_cli_progress_lines()));
}

void oc_cli_progress_named(const char *what, int64_t done, int64_t total, const char *next) {
    if (oc_cli_io_callback()) {
        oc_io->progress(oc_io->progress_arg, what, done, total);
        return;
    }
    if (!oc_cli_progress_on())
        return;
    if (!isatty(STDERR_FILENO)) { /* lines mode: at most one line per 5 s, and the last */
        static struct timespec first, last;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!first.tv_sec && !first.tv_nsec)
            first = last = now;
        double since = (double)(now.tv_sec - last.tv_sec) + (double)(now.tv_nsec - last.tv_nsec) * 1e-9;
        if (done != total && done != 0 && since < 5.0)
            return;
        last = now;
        double all = (double)(now.tv_sec - first.tv_sec) + (double)(now.tv_nsec - first.tv_nsec) * 1e-9;
        fprintf(stderr, "onnxcost: %s %lld/%lld at %.0f s%s%s\n", what, (long long)done, (long long)total, all,
                next && done != total ? ", next: " : "", next && done != total ? next : "");
        fflush(stderr);
        return;
    }
    fprintf(stderr, "\r%s %lld/%lld", what, (long long)done, (long long)total);
    if (done == total)
        fputs("\r\033[K", stderr);
    fflush(stderr);
}

void oc_cli_progress(const char *what, int64_t done, int64_t total) {
    oc_cli_progress_named(what, done, total, NULL);
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

int oc_cli_out_of_memory(void) {
    fputs("onnxcost: error: out of memory\n", oc_cli_err());
    return OC_EXIT_INTERNAL;
}

void oc_cli_diag(const char *kind, const char *path, const char *msg) {
    char p[1024], m[2048];
    oc_printable(path ? path : "", p, sizeof p);
    oc_printable(msg ? msg : "", m, sizeof m);
    fprintf(oc_cli_err(), "onnxcost: %s: %s: %s\n", kind, p, m);
}

/* ---- the run's inputs: never an output --------------------------------------- */

struct oc_cli_input {
    dev_t dev;
    ino_t ino;
    bool lazy; /* a model's external data: stat'ed only when an output is
                  checked, so that an analysis touches none of them */
    char *path;
};
static struct oc_cli_input *oc_inputs;
static int32_t oc_n_inputs, oc_cap_inputs;

/* What one run of oc_cli_main keeps until it returns (a --gpu-spec file's
   kernel tables): freed there, so that a process running many (the Python
   package) keeps none. */
struct oc_cli_kept {
    void *p;
    void (*free_fn)(void *);
};
static struct oc_cli_kept *oc_kept;
static int32_t oc_n_kept;

bool oc_cli_keep(void *p, void (*free_fn)(void *)) {
    struct oc_cli_kept *t = realloc(oc_kept, ((size_t)oc_n_kept + 1) * sizeof *t);
    if (!t)
        return false;
    oc_kept = t;
    oc_kept[oc_n_kept++] = (struct oc_cli_kept){p, free_fn};
    return true;
}

void oc_cli_release_kept(void) {
    for (int32_t i = oc_n_kept - 1; i >= 0; i--)
        oc_kept[i].free_fn(oc_kept[i].p);
    free(oc_kept);
    oc_kept = NULL;
    oc_n_kept = 0;
}

void oc_cli_forget_inputs(void) {
    for (int32_t i = 0; i < oc_n_inputs; i++)
        free(oc_inputs[i].path);
    free(oc_inputs);
    oc_inputs = NULL;
    oc_n_inputs = oc_cap_inputs = 0;
}

#define OC_FIFO_WHY "is a FIFO (a named pipe), not a file: onnxcost reads files (write it to one first)"

static bool oc_add_input(const char *path, const struct stat *sb);

/* Records path; false when it is a FIFO (not recorded, nothing printed). */
static bool oc_note(const char *path) {
    struct stat sb;
    if (!path || !*path || stat(path, &sb) != 0)
        return true;
    if (S_ISFIFO(sb.st_mode))
        return false;
    for (int32_t i = 0; i < oc_n_inputs; i++)
        if (!oc_inputs[i].lazy && oc_inputs[i].dev == sb.st_dev && oc_inputs[i].ino == sb.st_ino)
            return true;
    return oc_add_input(path, &sb);
}

/* A recorded input: stat'ed (sb) or lazy (sb NULL). */
static bool oc_add_input(const char *path, const struct stat *sb) {
    if (oc_n_inputs == oc_cap_inputs) {
        int32_t cap = oc_cap_inputs ? 2 * oc_cap_inputs : 16;
        struct oc_cli_input *t = realloc(oc_inputs, (size_t)cap * sizeof *t);
        if (!t)
            return true; /* unrecorded: the clash check is then weaker, not wrong */
        oc_inputs = t;
        oc_cap_inputs = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return true;
    oc_inputs[oc_n_inputs++] = sb ? (struct oc_cli_input){sb->st_dev, sb->st_ino, false, copy}
                                  : (struct oc_cli_input){0, 0, true, copy};
    return true;
}

int oc_cli_note_input(const char *path) {
    if (oc_note(path))
        return OC_EXIT_OK;
    oc_cli_diag("error", path, OC_FIFO_WHY);
    return OC_EXIT_INPUT;
}

int oc_cli_output_clash(const char *path, const char *what, const char *except) {
    struct stat sb, ex;
    if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return OC_EXIT_OK; /* nothing there yet, or a device or FIFO written through */
    bool has_ex = except && stat(except, &ex) == 0;
    if (has_ex && ex.st_dev == sb.st_dev && ex.st_ino == sb.st_ino)
        return OC_EXIT_OK;
    for (int32_t i = 0; i < oc_n_inputs; i++) {
        struct oc_cli_input *in = &oc_inputs[i];
        if (in->lazy) {
            struct stat lb;
            if (stat(in->path, &lb) != 0)
                continue;
            in->dev = lb.st_dev;
            in->ino = lb.st_ino;
            in->lazy = false;
        }
        if (in->dev == sb.st_dev && in->ino == sb.st_ino) {
            char msg[1400], name[1024];
            oc_printable(in->path, name, sizeof name);
            snprintf(msg, sizeof msg, "%s would be written over %s, which this run reads%s; onnxcost never writes "
                     "over its inputs (give another path)", what, name,
                     strcmp(name, path) == 0 ? "" : " (the same file)");
            oc_cli_diag("error", path, msg);
            return OC_EXIT_INPUT;
        }
    }
    return OC_EXIT_OK;
}

enum oc_status oc_cli_model_load(const char *path, const struct oc_load_opts *lopts, struct oc_model **m,
                                 struct oc_diag *d) {
    *m = NULL;
    if (!oc_note(path))
        return oc_diag_set(d, OC_ERR_USAGE, OC_FIFO_WHY);
    enum oc_status st = oc_model_load(path, lopts, m, d);
    for (int32_t i = 0; st == OC_OK && i < oc_model_n_external_files(*m); i++)
        (void)oc_add_input(oc_model_external_file(*m, i), NULL);
    return st;
}

int oc_cli_load_analyze(const char *path, const struct oc_load_opts *lopts, const struct oc_analyze_opts *opts,
                        struct oc_model **m, struct oc_analysis **an) {
    struct oc_diag d = {0};
    enum oc_status st = oc_cli_model_load(path, lopts, m, &d);
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

int oc_cli_open_output(struct oc_outfile *o, const char *path) {
    if (!path) {
        *o = (struct oc_outfile){oc_cli_out(), NULL, NULL};
        return OC_EXIT_OK;
    }
    *o = (struct oc_outfile){0};
    int rc = oc_cli_output_clash(path, "the report", NULL);
    if (rc != OC_EXIT_OK)
        return rc;
    struct oc_diag d = {0};
    if (oc_outfile_open(o, path, &d) == OC_OK)
        return OC_EXIT_OK;
    oc_cli_diag("error", path, d.msg);
    return OC_EXIT_INTERNAL;
}

/* closes o (its file replaced only when ok); on failure one line: why,
   where the report itself failed and says why, else a write error */
static int oc_cli_close(struct oc_outfile *o, const char *path, bool ok, const char *why) {
    bool written;
    if (o->f == oc_cli_out()) {
        written = oc_cli_close_stdout();
        o->f = NULL;
    } else {
        written = oc_outfile_close(o, ok, NULL) == OC_OK;
    }
    if (ok && written)
        return OC_EXIT_OK;
    fprintf(oc_cli_err(), "onnxcost: error: %s: %s\n", path ? path : "standard output",
            !ok && why ? why : "cannot write the report");
    return OC_EXIT_INTERNAL;
}

int oc_cli_close_output(struct oc_outfile *o, const char *path, bool ok) { return oc_cli_close(o, path, ok, NULL); }

int oc_cli_close_report(struct oc_outfile *o, const char *path, enum oc_status st) {
    return oc_cli_close(o, path, st == OC_OK, st == OC_ERR_NOMEM ? "out of memory formatting the report" : NULL);
}

void oc_cli_discard_output(struct oc_outfile *o) {
    if (o->f == oc_cli_out())
        o->f = NULL; /* what was printed stays printed */
    oc_outfile_close(o, false, NULL);
}

bool oc_cli_mkdirs(const char *dir, const char *option) {
    char buf[4096];
    size_t n = strlen(dir);
    if (n >= sizeof buf) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: the path is too long", option);
        oc_cli_diag("error", dir, msg);
        return false;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != 0)
            continue;
        char c = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            char msg[300];
            snprintf(msg, sizeof msg, "%s: cannot make the folder: %s", option, strerror(errno));
            oc_cli_diag("error", buf, msg);
            return false;
        }
        buf[i] = c;
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s takes a folder, and this is a file", option);
        oc_cli_diag("error", dir, msg);
        return false;
    }
    return true;
}
