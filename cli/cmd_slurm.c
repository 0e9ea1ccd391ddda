/*
 * cmd_slurm.c — `onnxcost slurm MODEL.onnx --gpu-kinds KIND,... | --cpu -o DIR`:
 * the replay (or, on CPUs, measure) of one model on a Slurm cluster as job
 * arrays, one array per GPU kind with a task per binding, and a merge job
 * that runs after them all (docs/REPLAY.md, "Many GPUs, many machines:
 * Slurm"). It writes the scripts and submits them with sbatch (--dry-run:
 * writes only). Each task writes its result JSON; the merge job lists the
 * tasks whose result is missing by name, with their log, and merges the
 * others with `onnxcost merge`.
 */
#include "cli.h"
#include "groups.h"

#include "../analyzer/exe_path.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char oc_slurm_usage[] =
    "usage: onnxcost slurm MODEL.onnx (--gpu-kinds KIND[,KIND...] | --cpu) -o DIR [options] [-- OPTIONS]\n"
    "\n"
    "Replays the model on a Slurm cluster: one job array per GPU kind (gres\n"
    "gpu:KIND:1), one task per --batch value, each running `onnxcost replay` and\n"
    "writing DIR/results/KIND-bN.json; then a merge job, run after every task\n"
    "(afterany), that names each task whose result is missing (with its log in\n"
    "DIR/logs/, and in DIR/failed.txt) and puts the kinds side by side with\n"
    "`onnxcost merge`, one table per batch: DIR/merged-bN.txt (and .json). With\n"
    "--cpu the tasks run `onnxcost measure` on\n"
    "the CPUs the task gets instead. Options after -- go to every replay or\n"
    "measure. The scripts are DIR/*.sbatch; they are submitted with sbatch\n"
    "unless --dry-run.\n"
    "\n";

static const char oc_slurm_footer[] = "\n"
                                      "examples:\n"
                                      "  onnxcost slurm resnet50.onnx --gpu-kinds a100,h100 --batch 1,32 -o runs/r50\n"
                                      "  onnxcost slurm gpt2.onnx --gpu-kinds h100 --dim sequence=128 --partition gpu "
                                      "-o runs/gpt2 -- --math tf32\n";

enum { OC_SLURM_MAX = 32 };

struct oc_slurm_args {
    const char *gpus, *batches, *partition, *account, *time, *onnxcost, *out;
    const char *dims[OC_SLURM_MAX];
    int32_t n_dims;
    int64_t cpus;
    bool cpu, dry_run;
};

static int oc_opt_slurm_dim(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_slurm_args *a = dest;
    if (!v || !strchr(v, '=') || a->n_dims == OC_SLURM_MAX)
        return oc_cli_usage_error("%s--dim takes NAME=VALUE (at most %d)", prefix, OC_SLURM_MAX);
    a->dims[a->n_dims++] = v;
    return OC_PARSE_GO;
}

static const struct oc_opt oc_slurm_opts[] = {
    OC_OPT_TEXT_ROW("--gpu-kinds", "--gpus", "KINDS",
                    "GPU kinds as the cluster's gres names them (a100,h100): one job\n"
                    "array each (--gpus, the same here, is a count in analyze)",
                    offsetof(struct oc_slurm_args, gpus), "a list of gres GPU types"),
    OC_OPT_FLAG_ROW("--cpu", NULL, "measure on CPUs (onnxcost measure) instead of replaying on GPUs",
                    offsetof(struct oc_slurm_args, cpu)),
    OC_OPT_INT_ROW("--cpus", "N", "with --cpu: CPUs per task (default 1)", offsetof(struct oc_slurm_args, cpus), 1,
                   4096, "an integer from 1 to 4096"),
    OC_OPT_TEXT_ROW("--batch", NULL, "N[,N...]", "one task per batch size (default 1)",
                    offsetof(struct oc_slurm_args, batches), "a list of batch sizes"),
    OC_OPT_CALL_ROW("--dim", "NAME=V", "bind a dim in every task (repeatable)", oc_opt_slurm_dim),
    OC_OPT_TEXT_ROW("--partition", NULL, "P", "the partition (default: the cluster's)",
                    offsetof(struct oc_slurm_args, partition), "a partition name"),
    OC_OPT_TEXT_ROW("--account", NULL, "A", "the account to charge", offsetof(struct oc_slurm_args, account),
                    "an account name"),
    OC_OPT_TEXT_ROW("--time", NULL, "T", "each task's time limit (default 00:30:00)",
                    offsetof(struct oc_slurm_args, time), "a Slurm time"),
    OC_OPT_TEXT_ROW("--onnxcost", NULL, "PATH",
                    "the onnxcost the tasks run (default: this one, by its full path)",
                    offsetof(struct oc_slurm_args, onnxcost), "a path"),
    OC_OPT_OUTPUT_ROW("--output", "-o", "DIR", "where the scripts, logs and results go (made if missing)",
                      offsetof(struct oc_slurm_args, out), "a folder"),
    OC_OPT_FLAG_ROW("--dry-run", NULL, "write the scripts, submit nothing",
                    offsetof(struct oc_slurm_args, dry_run)),
};
static const struct oc_opt_group oc_slurm_group = {NULL, oc_slurm_opts, OC_ARRAY_LEN(oc_slurm_opts)};

/* Whether s holds a control character (a newline ends an #SBATCH line and
   starts a shell one). */
static bool oc_has_control(const char *s) {
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return true;
    return false;
}

/* A word for a shell script, single-quoted. */
static void oc_sh_word(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* A comma list's items into out (at most max, each non-empty and made of
 * [A-Za-z0-9_.-]); the count, or -1. */
static int32_t oc_slurm_list(char *list, char **out, int32_t max) {
    int32_t n = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max || !*tok || strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
                                     strlen(tok))
            return -1;
        out[n++] = tok;
    }
    return n;
}

struct oc_slurm_job {
    const struct oc_slurm_args *a;
    const char *model, *dir, *bin;
    char **kinds;
    int32_t n_kinds;
    char **batches;
    int32_t n_batches;
    char **extra; /* after -- */
    int32_t n_extra;
};

/* An #SBATCH value, double-quoted (sbatch reads quotes in its directives;
   the values were checked to hold no control character, quote or
   backslash: oc_slurm_sbatch_safe). */
static void oc_sbatch_line(FILE *f, const char *option, const char *value, const char *suffix) {
    fprintf(f, "#SBATCH %s=\"%s%s\"\n", option, value, suffix ? suffix : "");
}

/* The #SBATCH lines both scripts share: partition and account. */
static void oc_sbatch_common(FILE *f, const struct oc_slurm_args *a) {
    if (a->partition)
        oc_sbatch_line(f, "--partition", a->partition, NULL);
    if (a->account)
        oc_sbatch_line(f, "--account", a->account, NULL);
}

/* DIR/KIND.sbatch: the array of one kind, a task per batch. Every path and
   value reaches the shell single-quoted (oc_sh_word) or as a quoted
   expansion of a variable set so. */
static bool oc_slurm_array(const struct oc_slurm_job *j, const char *kind, FILE *f) {
    const struct oc_slurm_args *a = j->a;
    char suffix[160];
    fprintf(f, "#!/bin/bash\n# written by onnxcost slurm: %s on %s, one task per batch\n", j->a->cpu ? "measure" :
                                                                                             "replay", kind);
    fprintf(f, "#SBATCH --job-name=onnxcost-%s\n#SBATCH --array=0-%d\n", kind, (int)j->n_batches - 1);
    if (a->cpu)
        fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%lld\n", (long long)(a->cpus ? a->cpus : 1));
    else
        fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --gres=gpu:%s:1\n", kind);
    oc_sbatch_line(f, "--time", a->time ? a->time : "00:30:00", NULL);
    snprintf(suffix, sizeof suffix, "/logs/%s-%%a.out", kind);
    oc_sbatch_line(f, "--output", j->dir, suffix);
    oc_sbatch_common(f, a);
    fputs("set -u\ndir=", f);
    oc_sh_word(f, j->dir);
    fputs("\nbatches=(", f);
    for (int32_t i = 0; i < j->n_batches; i++)
        fprintf(f, "%s%s", i ? " " : "", j->batches[i]);
    fputs(")\nb=${batches[$SLURM_ARRAY_TASK_ID]}\n", f);
    fprintf(f, "out=\"$dir/results/%s-b$b.json\"\n", kind);
    fputs("rm -f \"$out\"  # an earlier submission's result into this -o DIR is not this one's\nexec ", f);
    oc_sh_word(f, j->bin);
    fputs(a->cpu ? " measure " : " replay ", f);
    oc_sh_word(f, j->model);
    fputs(" --batch \"$b\"", f);
    for (int32_t i = 0; i < a->n_dims; i++) {
        fputs(" --dim ", f);
        oc_sh_word(f, a->dims[i]);
    }
    if (a->cpu)
        fputs(" --threads \"${SLURM_CPUS_PER_TASK:-1}\"", f);
    for (int32_t i = 0; i < j->n_extra; i++) {
        fputc(' ', f);
        oc_sh_word(f, j->extra[i]);
    }
    fputs(" --format json -o \"$out\"\n", f);
    return !ferror(f);
}

/* DIR/merge.sbatch: after every task; names the missing results, merges the rest. */
static bool oc_slurm_merge(const struct oc_slurm_job *j, FILE *f) {
    fputs("#!/bin/bash\n# written by onnxcost slurm: runs after every task (afterany)\n"
          "#SBATCH --job-name=onnxcost-merge\n#SBATCH --ntasks=1\n#SBATCH --time=00:10:00\n",
          f);
    oc_sbatch_line(f, "--output", j->dir, "/logs/merge.out");
    oc_sbatch_common(f, j->a);
    fputs("set -u\ndir=", f);
    oc_sh_word(f, j->dir);
    fputs("\nrm -f \"$dir/failed.txt\"  # this submission's failures only\nmerged=0\nmissing=0\n", f);
    for (int32_t b = 0; b < j->n_batches; b++) { /* per batch, the kinds side by side */
        fputs("found=()\n", f);
        for (int32_t k = 0; k < j->n_kinds; k++)
            fprintf(f,
                    "if [ -s \"$dir/results/%s-b%s.json\" ]; then found+=(\"$dir/results/%s-b%s.json\"); else\n"
                    "  echo \"failed: %s batch %s (task %d of job onnxcost-%s): no result; its log: "
                    "$dir/logs/%s-%d.out\" | tee -a \"$dir/failed.txt\"; missing=$((missing + 1)); fi\n",
                    j->kinds[k], j->batches[b], j->kinds[k], j->batches[b], j->kinds[k], j->batches[b], (int)b,
                    j->kinds[k], j->kinds[k], (int)b);
        fputs("if [ ${#found[@]} -gt 0 ]; then\n  ", f);
        oc_sh_word(f, j->bin);
        fprintf(f, " merge \"${found[@]}\" -o \"$dir/merged-b%s.txt\" && ", j->batches[b]);
        oc_sh_word(f, j->bin);
        fprintf(f, " merge \"${found[@]}\" --format json -o \"$dir/merged-b%s.json\" &&\n"
                   "  merged=$((merged + ${#found[@]}))\nfi\n",
                j->batches[b]);
    }
    fprintf(f, "echo \"$merged of %d task results merged (one table per batch: $dir/merged-bN.txt); $missing "
               "failed\"\n[ \"$missing\" -eq 0 ]\n",
            (int)(j->n_kinds * j->n_batches));
    return !ferror(f);
}

/* One script, written as every -o is (analyzer/outfile.h: complete or not
   at all), never over a file this run reads (the model, --onnxcost) and
   never through a symlink: the folder may hold anything. kind is NULL for
   the merge script. OC_EXIT_OK or the exit code after one line. */
static int oc_slurm_write(const struct oc_slurm_job *j, const char *kind, const char *path) {
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return oc_cli_fail(path, OC_ERR_USAGE, S_ISLNK(sb.st_mode) ? "slurm: the script's path is a symlink, which "
                                                                     "onnxcost does not write through (remove it)"
                                                                   : "slurm: the script's path is not a file");
    int rc = oc_cli_output_clash(path, "the script", NULL);
    if (rc != OC_EXIT_OK)
        return rc;
    struct oc_outfile o = {0};
    struct oc_diag d = {0};
    if (oc_outfile_open(&o, path, &d) != OC_OK)
        return oc_cli_fail(path, OC_ERR_IO, d.msg);
    bool ok = kind ? oc_slurm_array(j, kind, o.f) : oc_slurm_merge(j, o.f);
    if (oc_outfile_close(&o, ok, &d) != OC_OK || !ok)
        return oc_cli_fail(path, OC_ERR_IO, "cannot write the script");
    return OC_EXIT_OK;
}

/* sbatch ARGS... (the last the script): the job id it prints (--parsable),
   or 0 with the reason in err. */
static long oc_slurm_submit(char *const *argv, const char *script, char *err, size_t n) {
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(err, n, "pipe: %s", strerror(errno));
        return 0;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    pid_t pid;
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (e != 0) {
        close(fd[0]);
        snprintf(err, n, "cannot run sbatch: %s (is Slurm's sbatch on the PATH? --dry-run writes the scripts only)",
                 strerror(e));
        return 0;
    }
    char buf[256] = "";
    ssize_t got = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    buf[got > 0 ? got : 0] = 0;
    long id = strtol(buf, NULL, 10);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || id <= 0) {
        snprintf(err, n, "sbatch %s failed (exit %d)%s%s", script, WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                 buf[0] ? ": " : "", buf);
        return 0;
    }
    return id;
}

/* dir/name, made absolute from the working folder (the tasks run elsewhere) */
static bool oc_slurm_abs(const char *p, char *out, size_t n) {
    if (p[0] == '/')
        return (size_t)snprintf(out, n, "%s", p) < n;
    char cwd[2048];
    return getcwd(cwd, sizeof cwd) && (size_t)snprintf(out, n, "%s/%s", cwd, p) < n;
}

static bool oc_slurm_mkdir(const char *dir, const char *sub) {
    char p[4200];
    snprintf(p, sizeof p, "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");
    return oc_cli_mkdirs(p, "-o");
}

/* The scripts written, then submitted: one array per kind, the merge after
   them all. */
static int oc_slurm_run(const struct oc_slurm_job *j) {
    char path[4300], err[600];
    if (!oc_slurm_mkdir(j->dir, NULL) || !oc_slurm_mkdir(j->dir, "logs") || !oc_slurm_mkdir(j->dir, "results"))
        return OC_EXIT_INPUT;
    for (int32_t k = 0; k <= j->n_kinds; k++) { /* each kind's array, then the merge */
        snprintf(path, sizeof path, "%s/%s.sbatch", j->dir, k < j->n_kinds ? j->kinds[k] : "merge");
        int rc = oc_slurm_write(j, k < j->n_kinds ? j->kinds[k] : NULL, path);
        if (rc != OC_EXIT_OK)
            return rc;
    }
    FILE *o = oc_cli_out();
    if (j->a->dry_run) {
        fprintf(o, "Wrote %d job array%s and the merge job in %s (not submitted: --dry-run):\n", (int)j->n_kinds,
                j->n_kinds == 1 ? "" : "s", j->dir);
        for (int32_t k = 0; k < j->n_kinds; k++)
            fprintf(o, "  sbatch %s/%s.sbatch\n", j->dir, j->kinds[k]);
        fprintf(o, "  sbatch --dependency=afterany:<the jobs above> %s/merge.sbatch\n", j->dir);
        return OC_EXIT_OK;
    }
    char deps[1024] = "--dependency=afterany";
    for (int32_t k = 0; k < j->n_kinds; k++) {
        snprintf(path, sizeof path, "%s/%s.sbatch", j->dir, j->kinds[k]);
        char *argv[] = {"sbatch", "--parsable", path, NULL};
        long id = oc_slurm_submit(argv, path, err, sizeof err);
        if (!id)
            return oc_cli_fail(j->model, OC_ERR_USAGE, err);
        size_t len = strlen(deps);
        snprintf(deps + len, sizeof deps - len, ":%ld", id);
        fprintf(o, "Submitted %s: job %ld (%d task%s)\n", path, id, (int)j->n_batches, j->n_batches == 1 ? "" : "s");
    }
    snprintf(path, sizeof path, "%s/merge.sbatch", j->dir);
    char *argv[] = {"sbatch", "--parsable", deps, path, NULL};
    long id = oc_slurm_submit(argv, path, err, sizeof err);
    if (!id)
        return oc_cli_fail(j->model, OC_ERR_USAGE, err);
    fprintf(o, "Submitted %s: job %ld, after them all; the tables will be %s/merged-bN.txt, failed tasks in "
               "%s/failed.txt\n",
            path, id, j->dir, j->dir);
    return OC_EXIT_OK;
}

int oc_cmd_slurm(int argc, char **argv) {
    /* options after -- belong to every task */
    int split = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            split = i;
            break;
        }
    struct oc_slurm_args a = {0};
    const struct oc_opt_use groups[] = {{&oc_slurm_group, &a}};
    const struct oc_cmd_spec cmd = {"slurm", "slurm: ", oc_slurm_usage, oc_slurm_footer, groups, 1};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, split, argv, &args, &n_args);
    char gpus[1024] = "cpu", batches[1024] = "1", model[4096], dir[4096], bin[4096], bin_abs[4096];
    char *kinds[OC_SLURM_MAX], *bs[OC_SLURM_MAX];
    if (rc != OC_PARSE_GO)
        goto done;
    if (n_args != 1) {
        rc = oc_cli_usage_error(n_args ? "slurm: one model at a time" : "slurm: no model given (try 'onnxcost slurm "
                                                                        "--help')");
        goto done;
    }
    if (!a.gpus == !a.cpu) {
        rc = oc_cli_usage_error("slurm: give the GPU kinds with --gpu-kinds KIND[,KIND...], or --cpu");
        goto done;
    }
    if (a.cpus && !a.cpu) {
        rc = oc_cli_usage_error("slurm: --cpus is for --cpu tasks");
        goto done;
    }
    if (!a.out) {
        rc = oc_cli_usage_error("slurm: give the folder for the scripts, logs and results with -o DIR");
        goto done;
    }
    if (a.gpus)
        snprintf(gpus, sizeof gpus, "%s", a.gpus);
    if (a.batches)
        snprintf(batches, sizeof batches, "%s", a.batches);
    int32_t nk = oc_slurm_list(gpus, kinds, OC_SLURM_MAX), nb = oc_slurm_list(batches, bs, OC_SLURM_MAX);
    bool numbers = nb > 0;
    for (int32_t i = 0; i < nb; i++) {
        int64_t v;
        numbers = numbers && oc_cli_parse_count(bs[i], &v) && v >= 1;
    }
    if (nk < 1 || nk > 8 || !numbers) {
        rc = oc_cli_usage_error(nk < 1 || nk > 8 ? "slurm: --gpu-kinds takes up to 8 gres names (letters, digits, _ . -), "
                                                   "comma-separated (merge puts up to 8 side by side)"
                                                 : "slurm: --batch takes up to %d whole numbers >= 1, comma-separated",
                                OC_SLURM_MAX);
        goto done;
    }
    char here[4096];
    if (a.onnxcost)
        snprintf(bin, sizeof bin, "%s", a.onnxcost);
    else if (!oc_exe_dir(here, sizeof here) || (size_t)snprintf(bin, sizeof bin, "%s/onnxcost", here) >= sizeof bin ||
             access(bin, X_OK) != 0)
        snprintf(bin, sizeof bin, "onnxcost"); /* the one on the tasks' PATH */
    /* paths made absolute first (the tasks run elsewhere), then checked as
       they will be written: --onnxcost with a slash is a path too */
    if (!oc_slurm_abs(args[0], model, sizeof model) || !oc_slurm_abs(a.out, dir, sizeof dir) ||
        (strchr(bin, '/') && !oc_slurm_abs(bin, bin_abs, sizeof bin_abs))) {
        rc = oc_cli_usage_error("slurm: the path is too long");
        goto done;
    }
    if (strchr(bin, '/'))
        snprintf(bin, sizeof bin, "%s", bin_abs);
    const struct {
        const char *option, *value, *refused;
    } checks[] = {
        /* values in #SBATCH lines, double-quoted there: no quote, backslash
           or control character (a newline would start a shell line) */
        {"--partition", a.partition, "\"\\"},
        {"--account", a.account, "\"\\"},
        {"--time", a.time, "\"\\"},
        /* the folder is in #SBATCH --output too, where % starts a pattern */
        {"-o", dir, "\"\\%"},
        /* single-quoted in shell lines only */
        {"the model path", model, ""},
        {"--onnxcost", bin, ""},
    };
    for (size_t i = 0; i < sizeof checks / sizeof *checks; i++) {
        const char *v = checks[i].value;
        bool control = v && oc_has_control(v);
        if (v && (control || strpbrk(v, checks[i].refused))) {
            rc = oc_cli_usage_error("slurm: %s may not hold %s (it is written into the job scripts%s)",
                                    checks[i].option,
                                    control ? "a control character (a newline, a tab, ...)"
                                            : strchr(checks[i].refused, '%') ? "a double quote, a backslash or %"
                                                                             : "a double quote or a backslash",
                                    checks[i].refused[0] ? " as an #SBATCH value" : "");
            goto done;
        }
    }
    for (int32_t i = 0; i < a.n_dims; i++)
        if (oc_has_control(a.dims[i])) {
            rc = oc_cli_usage_error("slurm: --dim may not hold a control character");
            goto done;
        }
    if (access(args[0], R_OK) != 0) {
        rc = oc_cli_fail(args[0], OC_ERR_IO, strerror(errno));
        goto done;
    }
    struct oc_slurm_job j = {&a, model, dir, bin, kinds, nk, bs, nb, argv + split + (split < argc),
                             argc - split - (split < argc)};
    rc = oc_slurm_run(&j);
done:
    free(args);
    return rc;
}
