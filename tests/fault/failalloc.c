/*
 * failalloc.c — a preload library that makes one allocation fail, for
 * tests/cli/oom_check.py (cli.out_of_memory). With FAIL_AT=N in the
 * environment, the Nth call to malloc, calloc, realloc or aligned_alloc
 * from the process's start returns NULL (errno ENOMEM), once; every other
 * call goes to the C library. With FAIL_COUNT set, the number of calls is
 * written to standard error at exit ("ALLOCS N"), which tells the test how
 * many runs make every allocation fail in turn. Calls after main returns
 * or exit is called (a coverage build's gcov writing its counts) are
 * neither counted nor failed.
 *
 * dlsym itself may allocate before the real functions are known: those
 * first requests come from a small static pool, never freed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void (*real_free)(void *);
static long fail_at = -1, calls;
static int armed, report;

static _Alignas(16) char pool[1 << 16];
static size_t pool_used;

static int from_pool(const void *p) { return (const char *)p >= pool && (const char *)p < pool + sizeof pool; }

static void *pool_alloc(size_t n) {
    size_t at = (pool_used + 15) & ~(size_t)15;
    if (n > sizeof pool - at)
        return NULL;
    pool_used = at + n;
    return pool + at;
}

/* whether this call is the one to fail */
static int fails(void) {
    if (!armed)
        return 0;
    calls++;
    return calls == fail_at;
}

/* when the program is done (main returned, or it called exit): what runs
   after, a coverage build's gcov writing its counts, is not the program's
   and is neither counted nor failed */
static void failalloc_done(void) {
    if (!armed)
        return;
    armed = 0;
    if (!report)
        return;
    char line[48];
    int n = snprintf(line, sizeof line, "ALLOCS %ld\n", calls);
    if (n > 0 && write(2, line, (size_t)n) < 0)
        return;
}

static int (*real_main)(int, char **, char **);

static int failalloc_main(int argc, char **argv, char **envp) {
    int rc = real_main(argc, argv, envp);
    failalloc_done();
    return rc;
}

/* the C library's start, with main wrapped */
int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end) {
    int (*start)(int (*)(int, char **, char **), int, char **, void (*)(void), void (*)(void), void (*)(void),
                 void *);
    *(void **)&start = dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return start(failalloc_main, argc, argv, init, fini, rtld_fini, stack_end);
}

void exit(int status) {
    void (*real_exit)(int);
    failalloc_done();
    *(void **)&real_exit = dlsym(RTLD_NEXT, "exit");
    real_exit(status);
    for (;;) /* never: exit does not return */
        ;
}

__attribute__((constructor)) static void failalloc_init(void) {
    *(void **)&real_malloc = dlsym(RTLD_NEXT, "malloc"); /* POSIX's way to a function from dlsym */
    *(void **)&real_calloc = dlsym(RTLD_NEXT, "calloc");
    *(void **)&real_realloc = dlsym(RTLD_NEXT, "realloc");
    *(void **)&real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    *(void **)&real_free = dlsym(RTLD_NEXT, "free");
    const char *at = getenv("FAIL_AT");
    fail_at = at ? atol(at) : -1;
    report = getenv("FAIL_COUNT") != NULL;
    armed = 1;
}

void *malloc(size_t n) {
    if (!real_malloc)
        return pool_alloc(n);
    if (fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return real_malloc(n);
}

void *calloc(size_t count, size_t size) {
    if (!real_calloc) {
        if (size && count > SIZE_MAX / size)
            return NULL;
        void *p = pool_alloc(count * size);
        if (p)
            memset(p, 0, count * size);
        return p;
    }
    if (fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return real_calloc(count, size);
}

void *realloc(void *p, size_t n) {
    if (from_pool(p)) { /* out of the pool: a fresh block, the old bytes copied (never more than the pool) */
        void *q = malloc(n);
        if (q)
            memcpy(q, p, n < (size_t)(pool + sizeof pool - (char *)p) ? n : (size_t)(pool + sizeof pool - (char *)p));
        return q;
    }
    if (fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return real_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n) {
    if (fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return real_aligned_alloc(align, n);
}

void free(void *p) {
    if (!p || from_pool(p))
        return;
    if (!real_free)
        *(void **)&real_free = dlsym(RTLD_NEXT, "free");
    real_free(p);
}
