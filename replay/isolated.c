/*
 * isolated.c — the GPU replay in a worker process that may crash or hang
 * without losing the run (isolated.h).
 */
#define _GNU_SOURCE
#include "isolated.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* What the worker tells the parent besides the results. */
struct oc_shared {
    int32_t probed;           /* the worker opened the device                  */
    int32_t failed;           /* the run failed as a whole: err                */
    char err[512];
    struct oc_rp_device device;
    char build[160];
    volatile sig_atomic_t sig; /* the signal the crash handler caught          */
    char report[OC_RP_CRASH]; /* its description and frames                    */
};

/* ---- the worker's crash handler (async-signal-safe formatting) ---------------- */

static struct oc_shared *g_shared;

struct oc_sbuf {
    char *s;
    size_t n, used;
};

static void oc_sput(struct oc_sbuf *b, const char *t) {
    while (t && *t && b->used + 1 < b->n)
        b->s[b->used++] = *t++;
    b->s[b->used] = 0;
}

static void oc_shex(struct oc_sbuf *b, uintptr_t v) {
    char t[2 + 2 * sizeof v + 1], *p = t + sizeof t - 1;
    *p = 0;
    do {
        *--p = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    oc_sput(b, p);
}

static const char *oc_signal_name(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "a signal";
    }
}

/* "libcupti.so.13+0x2d1f0(cuptiFoo+0x12)" */
static void oc_sframe(struct oc_sbuf *b, void *pc) {
    Dl_info di;
    if (dladdr(pc, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        oc_sput(b, base ? base + 1 : di.dli_fname);
        oc_sput(b, "+");
        oc_shex(b, (uintptr_t)pc - (uintptr_t)di.dli_fbase);
        if (di.dli_sname && di.dli_saddr) {
            oc_sput(b, "(");
            oc_sput(b, di.dli_sname);
            oc_sput(b, "+");
            oc_shex(b, (uintptr_t)pc - (uintptr_t)di.dli_saddr);
            oc_sput(b, ")");
        }
    } else {
        oc_shex(b, (uintptr_t)pc);
    }
}

static void oc_crash_handler(int sig, siginfo_t *si, void *ctx) {
    struct oc_shared *sh = g_shared;
    if (sh) {
        struct oc_sbuf b = {sh->report, sizeof sh->report, 0};
        oc_sput(&b, oc_signal_name(sig));
        if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) {
            oc_sput(&b, " at address ");
            oc_shex(&b, (uintptr_t)si->si_addr);
        }
        void *pc = NULL;
        const ucontext_t *uc = ctx;
#if defined(__x86_64__)
        pc = (void *)(uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
        pc = (void *)(uintptr_t)uc->uc_mcontext.pc;
#else
        (void)uc;
#endif
        void *frames[32];
        int nf = backtrace(frames, 32), k = 0;
        /* the frames from the faulting one out: skip the handler's own */
        if (pc) {
            while (k < nf && frames[k] != pc)
                k++;
            oc_sput(&b, " in ");
            oc_sframe(&b, pc);
            k = k < nf ? k + 1 : 2;
        } else {
            k = 2;
        }
        for (; k < nf; k++) {
            oc_sput(&b, " <- ");
            oc_sframe(&b, frames[k]);
        }
        sh->sig = sig;
    }
    /* SA_RESETHAND: the default action, so that the parent sees the signal */
    raise(sig);
}

static void oc_crash_handlers(void) {
    static char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    void *warm[2];
    (void)backtrace(warm, 2); /* loads the unwinder now, not in the handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = oc_crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* ---- the worker ---------------------------------------------------------------- */

struct oc_pipe_msg {
    int32_t done, total;
};

static void oc_worker_progress(void *arg, int32_t done, int32_t total) {
    int fd = *(int *)arg;
    struct oc_pipe_msg m = {done, total};
    ssize_t w;
    do
        w = write(fd, &m, sizeof m);
    while (w < 0 && errno == EINTR);
}

/* Load, probe, run: the whole replay, in this process. The progress goes to
   progress (in process) or down the pipe fd (a worker). */
static void oc_replay_here(const struct oc_replay_job *job, struct oc_rp_result *results, struct oc_shared *sh,
                           bool resume, void (*progress)(void *, int32_t, int32_t), void *parg) {
    const struct oc_replay_api *api = oc_replay_load(sh->err, sizeof sh->err);
    if (!api) {
        sh->failed = 1;
        return;
    }
    snprintf(sh->build, sizeof sh->build, "%s", api->build ? api->build : "");
    struct oc_rp_options o = *job->opts;
    o.resume = resume;
    if (api->probe(&o, &sh->device, sh->err, sizeof sh->err) != 0) {
        sh->failed = 1;
        return;
    }
    sh->probed = 1;
    if (api->run(&o, job->plans, job->n, results, progress, parg, sh->err, sizeof sh->err) != 0)
        sh->failed = 1;
    api->close();
}

/* ---- the parent ------------------------------------------------------------------ */

void oc_replay_mark_lost(struct oc_rp_result *r, const char *what, const char *report) {
    if (r->stage == OC_RPG_COUNTING && r->status == OC_RPS_MEASURED) {
        snprintf(r->reason, sizeof r->reason, "no counters: the replay worker %s while collecting them", what);
        r->has_counters = false;
        r->fp32_flops = r->fp16_flops = r->fp64_flops = r->tensor_flops = 0;
        r->dram_read_bytes = r->dram_write_bytes = r->sm_hz = 0;
    } else {
        r->status = OC_RPS_FAILED;
        snprintf(r->reason, sizeof r->reason, "the replay worker %s while running this node", what);
        r->reps = 0;
        r->time_median_ns = r->time_p10_ns = r->time_p90_ns = r->time_min_ns = 0;
        r->has_counters = false;
    }
    snprintf(r->crash, sizeof r->crash, "%s", report && report[0] ? report : what);
    r->stage = OC_RPG_DONE;
}

/* After a worker was lost: charge the node it was in; 0, or -1 when no node
   can be charged and the run cannot go on. */
static int oc_charge(struct oc_rp_result *results, int32_t n, const struct oc_shared *sh, const char *what) {
    for (int32_t i = 0; i < n; i++)
        if (results[i].stage == OC_RPG_TIMING || results[i].stage == OC_RPG_COUNTING) {
            oc_replay_mark_lost(&results[i], what, sh->report);
            return 0;
        }
    /* between nodes: phase 1 over, the counter session starting or ending */
    int32_t left = 0;
    for (int32_t i = 0; i < n; i++)
        left += results[i].stage < OC_RPG_TIMED;
    if (left > 0) /* in phase 1 every node is marked first: should not happen */
        return -1;
    char why[OC_RP_REASON];
    snprintf(why, sizeof why, "no counters: the replay worker %s outside any node's counters", what);
    for (int32_t i = 0; i < n; i++) {
        struct oc_rp_result *r = &results[i];
        if (r->stage == OC_RPG_DONE)
            continue;
        if (r->status == OC_RPS_MEASURED && !r->reason[0])
            snprintf(r->reason, sizeof r->reason, "%s", why);
        r->stage = OC_RPG_DONE;
    }
    return 0;
}

static void oc_describe_end(int status, bool hung, double timeout_s, char *what, size_t n) {
    if (hung)
        snprintf(what, n, "made no progress for %.0f s and was killed", timeout_s);
    else if (WIFSIGNALED(status))
        snprintf(what, n, "died of %s (%d)", oc_signal_name(WTERMSIG(status)), WTERMSIG(status));
    else
        snprintf(what, n, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int oc_replay_run_isolated(const struct oc_replay_job *job, struct oc_rp_result *results,
                           struct oc_replay_outcome *out, char *err, size_t errn) {
    memset(out, 0, sizeof *out);
    err[0] = 0;
    int32_t n = job->n;
    memset(results, 0, (size_t)n * sizeof *results);
    if (job->in_process) {
        struct oc_shared *sh = calloc(1, sizeof *sh);
        if (!sh) {
            snprintf(err, errn, "out of memory");
            return -1;
        }
        oc_replay_here(job, results, sh, false, job->progress, job->progress_arg);
        out->device = sh->device;
        snprintf(out->build, sizeof out->build, "%s", sh->build);
        int rc = sh->failed ? -1 : 0;
        if (rc)
            snprintf(err, errn, "%s", sh->err);
        free(sh);
        return rc;
    }

    size_t bytes = sizeof(struct oc_shared) + (size_t)n * sizeof *results;
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        snprintf(err, errn, "cannot map %zu bytes shared with the replay worker: %s", bytes, strerror(errno));
        return -1;
    }
    struct oc_shared *sh = mem;
    struct oc_rp_result *shared_results = (struct oc_rp_result *)(void *)(sh + 1);
    memset(mem, 0, bytes);
    int rc = -1;
    for (int32_t attempt = 0;; attempt++) {
        if (attempt > n + 2) {
            snprintf(err, errn, "the replay worker was lost %d times without finishing", (int)attempt);
            break;
        }
        int pfd[2];
        if (pipe(pfd) != 0) {
            snprintf(err, errn, "pipe: %s", strerror(errno));
            break;
        }
        fflush(NULL); /* nothing buffered is written twice */
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(err, errn, "cannot start the replay worker: %s", strerror(errno));
            close(pfd[0]);
            close(pfd[1]);
            break;
        }
        if (pid == 0) {
            close(pfd[0]);
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the parent */
#endif
            signal(SIGPIPE, SIG_DFL);
            g_shared = sh;
            oc_crash_handlers();
            oc_replay_here(job, shared_results, sh, attempt > 0, oc_worker_progress, &pfd[1]);
            fflush(NULL); /* what the libraries wrote (logs); no atexit handler of the parent's runs */
            _exit(0);
        }
        close(pfd[1]);
        bool hung = false;
        int timeout_ms = job->node_timeout_s > 0 && job->node_timeout_s < 2e6 ? (int)(job->node_timeout_s * 1000) : -1;
        for (;;) {
            struct pollfd p = {.fd = pfd[0], .events = POLLIN};
            int k = poll(&p, 1, timeout_ms);
            if (k < 0 && errno == EINTR)
                continue;
            if (k == 0) {
                hung = true;
                kill(pid, SIGKILL);
                break;
            }
            struct oc_pipe_msg m;
            ssize_t r = read(pfd[0], &m, sizeof m);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break; /* the worker is gone */
            if (r == (ssize_t)sizeof m && job->progress)
                job->progress(job->progress_arg, m.done, m.total);
        }
        close(pfd[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!hung && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            if (sh->failed)
                snprintf(err, errn, "%s", sh->err);
            else
                rc = 0;
            break;
        }
        char what[96];
        oc_describe_end(status, hung, job->node_timeout_s, what, sizeof what);
        if (!hung && WIFSIGNALED(status) &&
            (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGHUP)) {
            snprintf(err, errn, "interrupted: the replay worker %s", what);
            break;
        }
        if (!sh->probed) {
            snprintf(err, errn, "the replay worker %s while opening the device%s%s", what, sh->report[0] ? ": " : "",
                     sh->report);
            break;
        }
        if (oc_charge(shared_results, n, sh, what) != 0) {
            snprintf(err, errn, "the replay worker %s between nodes of phase 1%s%s", what, sh->report[0] ? ": " : "",
                     sh->report);
            break;
        }
        out->restarts++;
        sh->sig = 0;
        sh->report[0] = 0;
        sh->probed = 0;
    }
    out->device = sh->device;
    snprintf(out->build, sizeof out->build, "%s", sh->build);
    memcpy(results, shared_results, (size_t)n * sizeof *results);
    munmap(mem, bytes);
    return rc;
}
