/*
 * arena.h — bump allocator for one analysis.
 *
 * Every object of an analysis (values, nodes, dims, costs, strings made by
 * the analyzer) comes from one arena and is released at once with
 * oc_arena_free(). Memory is zeroed. Allocation returns NULL on failure;
 * an optional failure point lets tests inject out-of-memory.
 * Not thread-safe: one arena per thread.
 */
#ifndef OC_ARENA_H
#define OC_ARENA_H

#include "oc.h"

struct oc_arena_block;

struct oc_arena {
    struct oc_arena_block *head; /* newest block                         */
    size_t used;                 /* bytes handed out, all blocks          */
    size_t reserved;             /* bytes obtained from malloc            */
    int64_t fail_after;          /* tests: fail the Nth next call (0=never) */
};

void oc_arena_init(struct oc_arena *a);
void oc_arena_free(struct oc_arena *a);

/* malloc for big buffers (free() releases it): from 2 MiB up, aligned to and
 * advised for transparent huge pages. */
void *oc_block_alloc(size_t size);

/* Zeroed, 16-byte aligned. NULL on failure or size overflow. */
void *oc_arena_alloc(struct oc_arena *a, size_t size);
/* n * size bytes with overflow check. */
void *oc_arena_array(struct oc_arena *a, size_t n, size_t size);
/* Copy of a NUL-terminated string (NULL in, NULL out). */
char *oc_arena_strdup(struct oc_arena *a, const char *s);
/* printf into the arena. */
char *oc_arena_printf(struct oc_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
