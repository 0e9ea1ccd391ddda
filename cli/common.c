/*
 * common.c — what every command shares (cli.h): one-line usage errors and
 * diagnostics, integer parsing, the terminal's width, the report's output
 * file and writer callback, and the final check of standard output.
 * main.c only dispatches to the commands; they call these, never main.c.
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

int oc_cli_usage_error(const char *fmt, ...) {
    va_list ap;
    fputs("onnxcost: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return OC_EXIT_INPUT;
}

void oc_cli_diag(const char *kind, const char *path, const char *msg) {
    char p[1024], m[2048];
    oc_printable(path ? path : "", p, sizeof p);
    oc_printable(msg ? msg : "", m, sizeof m);
    fprintf(stderr, "onnxcost: %s: %s: %s\n", kind, p, m);
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
    if (!isatty(STDOUT_FILENO))
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
    bool ok = fflush(stdout) == 0 && !ferror(stdout);
    if (fclose(stdout) != 0)
        ok = false;
    return ok;
}

bool oc_cli_open_output(struct oc_outfile *o, const char *path) {
    if (!path) {
        *o = (struct oc_outfile){stdout, NULL, NULL};
        return true;
    }
    struct oc_diag d = {0};
    if (oc_outfile_open(o, path, &d) == OC_OK)
        return true;
    oc_cli_diag("error", path, d.msg);
    return false;
}

int oc_cli_close_output(struct oc_outfile *o, const char *path, bool ok) {
    if (o->f == stdout) {
        ok = oc_cli_close_stdout() && ok;
        o->f = NULL;
    } else {
        ok = oc_outfile_close(o, ok, NULL) == OC_OK && ok;
    }
    if (ok)
        return OC_EXIT_OK;
    fprintf(stderr, "onnxcost: error: %s: cannot write the report\n", path ? path : "standard output");
    return OC_EXIT_INTERNAL;
}

void oc_cli_discard_output(struct oc_outfile *o) {
    if (o->f == stdout)
        o->f = NULL; /* what was printed stays printed */
    oc_outfile_close(o, false, NULL);
}
