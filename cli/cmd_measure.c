/*
 * cmd_measure.c — `onnxcost measure MODEL [options]`: runs the model in ONNX
 * Runtime with its profiler on, then analyzes the graph ONNX Runtime ran
 * joined to the profile (docs/MEASURED.md).
 *
 * ONNX Runtime is reached through its Python package (the only one these
 * machines get: PyPI's onnxruntime wheel): a Python that has it runs
 * python/onnxcost/ort_measure.py, which writes the optimized graph and the
 * profile into a folder; this command then hands them to `analyze
 * --measured` with the options it did not take itself. The inputs' shapes
 * come from onnxcost's own analysis of the model at the user's bindings, so
 * that the run and the report bind every dim alike.
 */
#include "cli.h"
#include "groups.h"

#include "../analyzer/exe_path.h"
#include "../analyzer/graph.h"
#include "../analyzer/model.h"
#include "../reports/report.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef OC_DATA_RELDIR
#define OC_DATA_RELDIR "share/onnxcost"
#endif

static const char oc_measure_usage[] =
    "usage: onnxcost measure MODEL.onnx [options] [analyze options]\n"
    "\n"
    "Runs the model in ONNX Runtime with profiling on (random inputs at the\n"
    "bound dims, warm-up runs dropped, then the measured runs in passes with a\n"
    "short pause between them, until the median is stable or --max-seconds), and\n"
    "prints the cost\n"
    "table of the graph ONNX Runtime ran (after its fusions and layouts) with\n"
    "each node's measured median time and attained GFLOP/s, the end-to-end time\n"
    "and the sum of the nodes, the arena's peak beside onnxcost's replay of\n"
    "ONNX Runtime's CPU arena, and how it was measured\n"
    "(docs/MEASURED.md). With --machine FILE (from onnxcost probe) or --cpu, each\n"
    "node's predicted time and predicted / measured are beside them.\n"
    "\n"
    "ONNX Runtime comes from its Python package: --python PATH (default\n"
    "$ONNXCOST_PYTHON, else the python3 beside this executable, as in a virtual\n"
    "environment, else the .venv of the setup it was built in, else python3)\n"
    "must be a Python with onnxruntime and numpy\n"
    "(pip install onnxruntime; onnxruntime-gpu for --ep cuda). The model comes\n"
    "first; every option not listed here is an option of `onnxcost analyze`\n"
    "(--format, -o, --depth, --sort, --gpu, budgets, ...) and applies to the\n"
    "report.\n"
    "\n";

static const char oc_measure_footer[] = "\n"
                                        "examples:\n"
                                        "  onnxcost measure resnet50.onnx --batch 1 --threads 4 --machine machine.json\n"
                                        "  onnxcost measure gpt2.onnx --dim batch=1 --dim sequence=128 --format json -o "
                                        "gpt2.measured.json\n";

struct oc_measure_args {
    const char *ep, *opt_level, *save, *python;
    int64_t threads, reps, warmup; /* reps 0: auto */
    double max_seconds, tolerance_pct;
    bool force;
};

static bool oc_opt_level(const struct oc_opt *o, void *dest, const char *v) {
    static const char *const levels[] = {"none", "basic", "extended", "all"};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(v, levels[i]) == 0) {
            *(const char **)((char *)dest + o->offset) = levels[i];
            return true;
        }
    return false;
}

/* --reps: auto (0) or a count in [min, max] */
static bool oc_opt_reps(const struct oc_opt *o, void *dest, const char *v) {
    int64_t *r = (int64_t *)((char *)dest + o->offset);
    if (strcmp(v, "auto") == 0) {
        *r = 0;
        return true;
    }
    int64_t n;
    if (!oc_cli_parse_count(v, &n) || n < o->min || n > o->max)
        return false;
    *r = n;
    return true;
}

static const struct oc_opt oc_measure_opts[] = {
    OC_OPT_TEXT_ROW("--ep", NULL, "NAME",
                    "execution provider: cpu (default), cuda, tensorrt, openvino,\n"
                    "dml, coreml, ... or ONNX Runtime's full name",
                    offsetof(struct oc_measure_args, ep), "a provider name"),
    OC_OPT_INT_ROW("--threads", "N", "intra-op threads (default: ONNX Runtime's, one per core)",
                   offsetof(struct oc_measure_args, threads), 1, 4096, "an integer from 1 to 4096"),
    OC_OPT_PARSE_ROW("--reps", "N|auto",
                     "measured runs: auto (default) runs passes until the median is\n"
                     "stable within --tolerance (on a busy machine: the quiet runs'\n"
                     "median) or --max-seconds have passed; N runs N. The figures are\n"
                     "the quiet runs', those another process's load left alone",
                     offsetof(struct oc_measure_args, reps), 1, 100000, "auto or an integer from 1 to 100000",
                     oc_opt_reps),
    OC_OPT_PARSE_ROW("--max-seconds", "S", "with --reps auto, measure for at most S seconds (default 20)",
                     offsetof(struct oc_measure_args, max_seconds), 0, 3600, "a number of seconds above 0, up to 3600",
                     oc_opt_number),
    OC_OPT_PARSE_ROW("--tolerance", "PCT",
                     "with --reps auto, stable means the medians of the first and second\n"
                     "half of the passes within PCT % of the median of all (default 2)",
                     offsetof(struct oc_measure_args, tolerance_pct), 0, 100, "a percentage above 0, up to 100",
                     oc_opt_number),
    OC_OPT_INT_ROW("--warmup", "N", "runs before them, left out of the profile (default 3)",
                   offsetof(struct oc_measure_args, warmup), 0, 100000, "an integer from 0 to 100000"),
    OC_OPT_PARSE_ROW("--opt-level", "L",
                     "ONNX Runtime's graph optimizations: none, basic, extended or\n"
                     "all (default)",
                     offsetof(struct oc_measure_args, opt_level), 0, 0, "none, basic, extended or all", oc_opt_level),
    OC_OPT_OUTPUT_ROW("--save", NULL, "DIR",
                      "keep the graph ONNX Runtime ran (MODEL.ort.onnx, its weights in\n"
                      "MODEL.ort.data) and its profile (MODEL.profile.json) in DIR,\n"
                      "made with its parents if missing (default: a temporary folder);\n"
                      "files already there are kept unless --force",
                    offsetof(struct oc_measure_args, save), "a folder"),
    OC_OPT_FLAG_ROW("--force", NULL,
                    "let --save replace MODEL.ort.onnx, .ort.data and .profile.json\n"
                    "in DIR (never a file this run reads)",
                    offsetof(struct oc_measure_args, force)),
    OC_OPT_TEXT_ROW("--python", NULL, "PATH", "the Python that runs ONNX Runtime", offsetof(struct oc_measure_args, python),
                    "a Python interpreter"),
};
static const struct oc_opt_group oc_measure_group = {NULL, oc_measure_opts,
                                                     sizeof oc_measure_opts / sizeof oc_measure_opts[0]};

/* True when a is one of the group's options ("--name", "--name=V", or the
 * alias); *takes_value when the next argument is its value. */
static bool oc_measure_owns(const struct oc_opt_group *g, const char *a, bool *takes_value) {
    for (int32_t i = 0; i < g->n; i++) {
        const char *names[2] = {g->opts[i].name, g->opts[i].alias};
        for (int k = 0; k < 2; k++) {
            size_t n = names[k] ? strlen(names[k]) : 0;
            if (!n || strncmp(a, names[k], n) != 0 || (a[n] && a[n] != '='))
                continue;
            *takes_value = g->opts[i].arg && !a[n];
            return true;
        }
    }
    return false;
}

/* The driver: ort_measure.py in $ONNXCOST_DATADIR, beside the executable
 * (a build tree) or in the install's share/onnxcost; NULL: the installed
 * Python package's module (a wheel carries it there). */
static const char *oc_measure_script(char *buf, size_t size) {
    const char *env = getenv("ONNXCOST_DATADIR");
    if (env && *env) {
        int n = snprintf(buf, size, "%s/ort_measure.py", env);
        if (n > 0 && (size_t)n < size && access(buf, R_OK) == 0)
            return buf;
    }
    return oc_exe_find("ort_measure.py", OC_DATA_RELDIR, buf, size) ? buf : NULL;
}

/* --python, else $ONNXCOST_PYTHON, else the python3 beside the executable
 * (a virtual environment's bin/, where pip put onnxcost), else the one of
 * the setup this onnxcost was built in (.ci/install-deps's .venv), else
 * python3 on the PATH. */
static const char *oc_measure_python(const char *opt, char *buf, size_t size) {
    const char *env = getenv("ONNXCOST_PYTHON");
    if (opt)
        return opt;
    if (env && *env)
        return env;
    char dir[4096];
    if (oc_exe_dir(dir, sizeof dir)) {
        int n = snprintf(buf, size, "%s/python3", dir);
        if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
            return buf;
    }
#ifdef OC_SETUP_PYTHON
    if (access(OC_SETUP_PYTHON, X_OK) == 0)
        return OC_SETUP_PYTHON;
#endif
    return "python3";
}

/* "NAME=D0,D1,..." for each graph input of the analysis; false (after one
 * error line) when an input's shape is not known. */
static bool oc_measure_inputs(const char *path, const struct oc_analysis *an, char ***out, int32_t *n) {
    const struct oc_graph *g = an->graph;
    char **v = calloc((size_t)g->n_inputs + 1, sizeof *v);
    if (!v) {
        oc_cli_diag("error", path, "out of memory");
        return false;
    }
    *out = v;
    *n = 0;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const struct oc_value *x = &g->values[g->inputs[i]];
        if (x->nt) { /* a sequence or an optional: its element's shape may be known, yet no tensor to feed */
            char msg[512];
            snprintf(msg, sizeof msg,
                     "input '%s' is %s, not a tensor: onnxcost measure feeds each input one tensor of its shape",
                     x->name, x->nt->kind == OC_TYPE_SEQUENCE ? "a sequence of tensors" : "an optional value");
            oc_cli_diag("error", path, msg);
            return false;
        }
        bool known = x->rank >= 0;
        for (int32_t k = 0; known && k < x->rank; k++)
            known = x->dims[k].value >= 0;
        if (!known) {
            char msg[512];
            snprintf(msg, sizeof msg, "input '%s' has no known shape: bind its dims (--dim NAME=N, --batch N)",
                     x->name);
            oc_cli_diag("error", path, msg);
            return false;
        }
        size_t len = strlen(x->name) + 2 + (size_t)x->rank * 21;
        char *s = v[(*n)++] = malloc(len);
        if (!s) {
            oc_cli_diag("error", path, "out of memory");
            return false;
        }
        size_t at = (size_t)snprintf(s, len, "%s=", x->name);
        for (int32_t k = 0; k < x->rank; k++)
            at += (size_t)snprintf(s + at, len - at, "%s%" PRId64, k ? "," : "", x->dims[k].value);
    }
    return true;
}

/* Runs argv; its exit status, or -1 (after one line) when it could not start. */
/* Relays what the driver writes on its stderr into the run's streams:
 * "\rmeasure RUN/RUNS" to the progress callback (or nowhere), the rest,
 * its one error line, to the run's stderr. */
static void oc_measure_relay(int fd) {
    char buf[4096], seg[256];
    size_t n_seg = 0;
    enum { TEXT, PROGRESS, ESCAPE } state = TEXT;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            char c = buf[i];
            if (state == ESCAPE) { /* "\033[K": up to its final letter */
                if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
                    state = TEXT;
                continue;
            }
            if (c == '\r' || c == '\033' || (state == PROGRESS && (c == '\n' || n_seg + 1 >= sizeof seg))) {
                if (state == PROGRESS && n_seg) { /* a segment ends */
                    seg[n_seg] = 0;
                    long long done, total;
                    if (sscanf(seg, "measure %lld/%lld", &done, &total) == 2)
                        oc_cli_progress("measure", done, total);
                }
                n_seg = 0;
                state = c == '\r' ? PROGRESS : c == '\033' ? ESCAPE : TEXT;
                continue;
            }
            if (state == PROGRESS)
                seg[n_seg++] = c;
            else
                fputc(c, oc_cli_err());
        }
    }
}

/* A SIGINT, SIGTERM or SIGHUP while the driver runs goes on to it: it stops
   its repetitions, this process waits for it, removes the temporary folder
   and then dies of the same signal (oc_cmd_measure's end). */
static volatile sig_atomic_t oc_measure_child, oc_measure_signal;

static void oc_measure_forward(int sig) {
    oc_measure_signal = sig;
    if (oc_measure_child > 0)
        kill((pid_t)oc_measure_child, sig);
}

static const int oc_measure_signals[] = {SIGINT, SIGTERM, SIGHUP};

static int oc_measure_spawn(char **argv, bool relay) {
    pid_t pid;
    int pipefd[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    bool fa_on = false;
    if (relay && pipe(pipefd) == 0 && posix_spawn_file_actions_init(&fa) == 0) {
        fa_on = true;
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
        posix_spawn_file_actions_addclose(&fa, pipefd[0]);
        posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    }
    struct sigaction fwd, old[3];
    memset(&fwd, 0, sizeof fwd);
    fwd.sa_handler = oc_measure_forward; /* no SA_RESTART: waitpid and read see EINTR */
    sigemptyset(&fwd.sa_mask);
    oc_measure_signal = 0;
    oc_measure_child = 0;
    for (int k = 0; k < 3; k++)
        sigaction(oc_measure_signals[k], &fwd, &old[k]);
    int err = posix_spawnp(&pid, argv[0], fa_on ? &fa : NULL, NULL, argv, environ);
    if (!err) {
        oc_measure_child = (sig_atomic_t)pid;
        if (oc_measure_signal) /* one that came before the pid was known */
            kill(pid, oc_measure_signal);
    }
    if (fa_on)
        posix_spawn_file_actions_destroy(&fa);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    if (err) {
        for (int k = 0; k < 3; k++)
            sigaction(oc_measure_signals[k], &old[k], NULL);
        if (pipefd[0] >= 0)
            close(pipefd[0]);
        fprintf(oc_cli_err(),
                "onnxcost: error: cannot run Python '%s' (%s): measure needs a Python with onnxruntime "
                "(give it with --python PATH or ONNXCOST_PYTHON)\n",
                argv[0], strerror(err));
        return -1;
    }
    if (pipefd[0] >= 0) {
        oc_measure_relay(pipefd[0]);
        close(pipefd[0]);
    }
    int status;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    oc_measure_child = 0;
    for (int k = 0; k < 3; k++)
        sigaction(oc_measure_signals[k], &old[k], NULL);
    if (w < 0)
        return -1;
    if (oc_measure_signal)
        return 128 + oc_measure_signal;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(oc_cli_err(),
                "onnxcost: error: cannot run Python '%s': measure needs a Python with onnxruntime "
                "(give it with --python PATH or ONNXCOST_PYTHON)\n",
                argv[0]);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}


/* Writes text to f with every occurrence of `from` replaced by `to`. */
static void oc_measure_put_replaced(FILE *f, const char *text, size_t n, const char *from, const char *to) {
    size_t fl = strlen(from);
    for (size_t i = 0; i < n;) {
        if (fl && i + fl <= n && memcmp(text + i, from, fl) == 0) {
            fputs(to, f);
            i += fl;
        } else {
            fputc(text[i++], f);
        }
    }
}

/* analyze on the temporary graph, its diagnostics relayed with the
   temporary paths (gone once measure returns) named after the model */
static int oc_measure_analyze_renamed(int argc, char **argv, const char *optimized, const char *profile,
                                      const char *model) {
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    if (!mem)
        return oc_cmd_analyze(argc, argv);
    const struct oc_cli_io *old = oc_cli_get_io();
    struct oc_cli_io io = {oc_cli_out(), mem, old ? old->progress : NULL, old ? old->progress_arg : NULL};
    FILE *err = oc_cli_err();
    oc_cli_set_io(&io);
    int rc = oc_cmd_analyze(argc, argv);
    oc_cli_set_io(old);
    fclose(mem);
    char graph[4400], prof[4400];
    snprintf(graph, sizeof graph, "%s (as ONNX Runtime optimized it)", model);
    snprintf(prof, sizeof prof, "%s (ONNX Runtime's profile)", model);
    /* the profile first: its path is the graph's with another ending */
    char *once = NULL;
    size_t on = 0;
    FILE *step = open_memstream(&once, &on);
    if (step) {
        oc_measure_put_replaced(step, buf ? buf : "", n, profile, prof);
        fclose(step);
        oc_measure_put_replaced(err, once ? once : "", on, optimized, graph);
    } else {
        fwrite(buf ? buf : "", 1, n, err);
    }
    free(once);
    free(buf);
    return rc;
}

static char *oc_measure_join(const char *dir, const char *stem, const char *suffix) {
    size_t n = strlen(dir) + strlen(stem) + strlen(suffix) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s%s", dir, stem, suffix);
    return s;
}

int oc_cmd_measure(int argc, char **argv) {
    struct oc_measure_args a = {
        .reps = 0, .max_seconds = 20, .tolerance_pct = 2, .warmup = 3, .opt_level = "all", .ep = "cpu"};
    struct oc_cli_bind bind;
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    const struct oc_opt_use groups[] = {{&oc_measure_group, &a}, {&oc_group_bind, &bind}};
    const struct oc_cmd_spec cmd = {"measure", "measure: ", oc_measure_usage, oc_measure_footer, groups, 2};
    /* this command's options and the bindings for it; the rest for analyze */
    char **mine = calloc((size_t)argc + 1, sizeof *mine);
    char **rest = calloc((size_t)argc + 2 * (size_t)argc + 8, sizeof *rest);
    char **binds = calloc((size_t)argc + 1, sizeof *binds);
    char **inputs = NULL;
    int32_t n_inputs = 0, n_mine = 0, n_rest = 0, n_binds = 0;
    char *tmp = NULL, *optimized = NULL, *profile = NULL, *weights = NULL;
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = OC_EXIT_INTERNAL;
    if (!mine || !rest || !binds)
        goto done;
    mine[n_mine++] = argv[0];
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        bool value = false;
        if (oc_measure_owns(&oc_group_bind, argv[i], &value)) { /* for the run and for the report */
            mine[n_mine++] = binds[n_binds++] = argv[i];
            if (value && i + 1 < argc)
                mine[n_mine++] = binds[n_binds++] = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0 ||
                   oc_measure_owns(&oc_measure_group, argv[i], &value)) {
            mine[n_mine++] = argv[i];
            if (value && i + 1 < argc)
                mine[n_mine++] = argv[++i];
        } else if (i == 1 && argv[i][0] != '-') {
            path = argv[i];
        } else {
            rest[n_rest++] = argv[i];
        }
    }
    rc = oc_cli_parse(&cmd, n_mine, mine, &args, &n_args);
    if (rc != OC_PARSE_GO)
        goto done;
    if (!path) {
        rc = oc_cli_usage_error("measure: give the model first: onnxcost measure MODEL.onnx [options]");
        goto done;
    }
    /* the inputs' shapes at these bindings, as the report will bind them */
    struct oc_load_opts lopts = {0};
    if ((rc = oc_cli_load_analyze(path, &lopts, &bind.opts, &m, &an)) != OC_EXIT_OK)
        goto done;
    rc = OC_EXIT_INPUT;
    if (!oc_measure_inputs(path, an, &inputs, &n_inputs))
        goto done;
    bool quiet = false;
    for (int32_t i = 0; i < n_rest; i++)
        quiet |= strcmp(rest[i], "-q") == 0 || strcmp(rest[i], "--quiet") == 0;
    for (int32_t i = 0; i < an->n_bound && !quiet; i++)
        if (an->bound[i].source == OC_BIND_DEFAULT)
            fprintf(oc_cli_err(), "onnxcost: note: %s: %s%s%s unbound: measured at %" PRId64 " (--dim NAME=N binds it)\n",
                    path, an->bound[i].name ? "dim '" : "a dim of input '",
                    an->bound[i].name ? an->bound[i].name : an->bound[i].input, "'", an->bound[i].value);

    const char *dir = a.save;
    char tmpl[4096];
    if (!dir) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/onnxcost-measure-XXXXXX", t && *t ? t : "/tmp");
        if (!(tmp = mkdtemp(tmpl))) {
            fprintf(oc_cli_err(), "onnxcost: error: cannot make a temporary folder in %s: %s\n", t && *t ? t : "/tmp",
                    strerror(errno));
            rc = OC_EXIT_INTERNAL;
            goto done;
        }
        dir = tmp;
    } else if (!oc_cli_mkdirs(dir, "--save")) {
        goto done;
    }

    /* what the driver writes: DIR/STEM.ort.onnx and DIR/STEM.profile.json */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t bl = strlen(base);
    char stem[1024];
    snprintf(stem, sizeof stem, "%.*s", (int)(bl > 5 && strcmp(base + bl - 5, ".onnx") == 0 ? bl - 5 : bl), base);
    optimized = oc_measure_join(dir, stem, ".ort.onnx");
    profile = oc_measure_join(dir, stem, ".profile.json");
    weights = oc_measure_join(dir, stem, ".ort.data");
    if (!optimized || !profile || !weights) {
        rc = oc_cli_out_of_memory();
        goto done;
    }
    /* --save never writes over what the run reads, nor over earlier files
       without --force */
    const char *const outs[] = {optimized, weights, profile};
    for (size_t i = 0; a.save && i < sizeof outs / sizeof outs[0]; i++) {
        if ((rc = oc_cli_output_clash(outs[i], "--save", NULL)) != OC_EXIT_OK)
            goto done;
        struct stat sb;
        if (!a.force && lstat(outs[i], &sb) == 0) {
            oc_cli_diag("error", outs[i], "is already there: --save keeps what is in its folder (add --force to "
                                          "replace it, or give another folder)");
            rc = OC_EXIT_INPUT;
            goto done;
        }
    }

    /* python ort_measure.py MODEL DIR --input ... --ep ... */
    char script_buf[4096], py_buf[4096], threads[24], reps[24], warmup[24], max_s[32], tol[32];
    const char *script = oc_measure_script(script_buf, sizeof script_buf);
    const char *py = oc_measure_python(a.python, py_buf, sizeof py_buf);
    snprintf(threads, sizeof threads, "%" PRId64, a.threads);
    if (a.reps)
        snprintf(reps, sizeof reps, "%" PRId64, a.reps);
    else
        snprintf(reps, sizeof reps, "auto");
    snprintf(max_s, sizeof max_s, "%.17g", a.max_seconds);
    snprintf(tol, sizeof tol, "%.17g", a.tolerance_pct / 100.0);
    snprintf(warmup, sizeof warmup, "%" PRId64, a.warmup);
    char **pargv = calloc(2 * (size_t)n_inputs + 24, sizeof *pargv);
    if (!pargv) {
        rc = oc_cli_out_of_memory();
        goto done;
    }
    int32_t np = 0;
    pargv[np++] = (char *)py;
    if (script) {
        pargv[np++] = (char *)script;
    } else {
        pargv[np++] = "-m";
        pargv[np++] = "onnxcost.ort_measure";
    }
    pargv[np++] = (char *)path;
    pargv[np++] = (char *)dir;
    for (int32_t i = 0; i < n_inputs; i++) {
        pargv[np++] = "--input";
        pargv[np++] = inputs[i];
    }
    const char *kv[][2] = {{"--ep", a.ep},           {"--threads", threads}, {"--reps", reps},
                           {"--max-seconds", max_s}, {"--tolerance", tol},   {"--warmup", warmup},
                           {"--opt-level", a.opt_level}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
        pargv[np++] = (char *)kv[i][0];
        pargv[np++] = (char *)kv[i][1];
    }
    if (tmp)
        pargv[np++] = "--temporary";
    /* progress: on a terminal the driver writes it there itself; a run in
     * memory (the Python binding) relays it and the driver's error line */
    bool relay = oc_cli_err() != stderr || oc_cli_io_callback();
    if (oc_cli_progress_on())
        pargv[np++] = "--progress";
    fflush(oc_cli_out());
    fflush(oc_cli_err());
    int st = oc_measure_spawn(pargv, relay);
    free(pargv);
    if (st != 0) {
        if (oc_measure_signal)
            fprintf(oc_cli_err(), "onnxcost: error: %s: interrupted (signal %d): the ONNX Runtime driver was stopped\n",
                    path, (int)oc_measure_signal);
        else if (st > 0 && st != OC_EXIT_INPUT)
            fprintf(oc_cli_err(), "onnxcost: error: %s: the ONNX Runtime driver (%s) failed (exit %d)\n", path,
                    script ? script : "onnxcost.ort_measure", st);
        rc = OC_EXIT_INPUT;
        goto done;
    }

    /* analyze DIR/STEM.ort.onnx --measured DIR/STEM.profile.json, bound alike */
    char **aargv = calloc((size_t)argc + 2 * (size_t)an->n_bound + 8, sizeof *aargv);
    char **dims = calloc((size_t)an->n_bound + 1, sizeof *dims);
    if (!aargv || !dims) {
        free(aargv);
        free(dims);
        rc = oc_cli_out_of_memory();
        goto done;
    }
    int32_t na = 0, nd = 0;
    aargv[na++] = "analyze";
    aargv[na++] = optimized;
    aargv[na++] = "--measured";
    aargv[na++] = profile;
    for (int32_t i = 0; i < n_binds; i++) /* the bindings as given */
        aargv[na++] = binds[i];
    for (int32_t i = 0; i < an->n_bound; i++) /* and those measured at a default */
        if (an->bound[i].source == OC_BIND_DEFAULT && an->bound[i].name) {
            size_t len = strlen(an->bound[i].name) + 32;
            if (!(dims[nd] = malloc(len)))
                break;
            snprintf(dims[nd], len, "--dim=%s=%" PRId64, an->bound[i].name, an->bound[i].value);
            aargv[na++] = dims[nd++];
        }
    /* --machine FILE, --cpu or a CPU's --gpu-spec FILE (a calibrated one, fitted
       at each record's threads): predicted at the threads it ran with */
    bool cpu_device = false;
    for (int32_t i = 0; i < n_rest; i++) {
        aargv[na++] = rest[i];
        cpu_device |= strcmp(rest[i], "--cpu") == 0 || strncmp(rest[i], "--machine", 9) == 0;
        const char *spec = strncmp(rest[i], "--gpu-spec=", 11) == 0                       ? rest[i] + 11
                           : strcmp(rest[i], "--gpu-spec") == 0 && i + 1 < n_rest ? rest[i + 1]
                                                                                        : NULL;
        if (spec) {
            struct oc_gpu g;
            char name[128], err[256];
            cpu_device |= oc_gpu_spec_load(spec, &g, name, sizeof name, err, sizeof err) && g.cpu &&
                          g.scaling.threads > 0; /* one it can scale: --threads takes it */
        }
    }
    if (cpu_device && a.threads) {
        aargv[na++] = "--threads";
        aargv[na++] = threads;
    }
    if (tmp) {
        /* the graph and profile live in a folder removed at the end: the
           analysis's lines name the user's model instead */
        rc = oc_measure_analyze_renamed(na, aargv, optimized, profile, path);
    } else {
        rc = oc_cmd_analyze(na, aargv);
    }
    for (int32_t i = 0; i < nd; i++)
        free(dims[i]);
    free(dims);
    free(aargv);
done:
    if (tmp) { /* the temporary folder is this run's own: everything in it goes
                  (the driver's files, and ONNX Runtime's profile of a stopped run) */
        DIR *dp = opendir(tmp);
        for (struct dirent *e; dp && (e = readdir(dp));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *f = oc_measure_join(tmp, e->d_name, "");
            if (f)
                unlink(f);
            free(f);
        }
        if (dp)
            closedir(dp);
        if (rmdir(tmp) != 0)
            fprintf(oc_cli_err(), "onnxcost: warning: left files in %s\n", tmp);
    }
    for (int32_t i = 0; inputs && i < n_inputs; i++)
        free(inputs[i]);
    free(inputs);
    free(optimized);
    free(profile);
    free(weights);
    oc_analysis_free(an);
    oc_model_free(m);
    oc_cli_bind_free(&bind);
    free(args);
    free(mine);
    free(rest);
    free(binds);
    if (oc_measure_signal) { /* the driver was stopped and the folder cleaned: now this process */
        int sig = oc_measure_signal;
        oc_measure_signal = 0;
        fflush(oc_cli_out());
        fflush(oc_cli_err());
        raise(sig);
        return 128 + sig; /* a handler that returns (the Python binding's) */
    }
    return rc;
}
