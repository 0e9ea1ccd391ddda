/*
 * arena.c — chained-block bump allocator (see arena.h).
 */
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct oc_arena_block {
    struct oc_arena_block *next;
    size_t cap;
    size_t off;
    _Alignas(16) unsigned char data[];
};

enum { OC_ARENA_BLOCK = 64 * 1024, OC_ARENA_BLOCK_MAX = 8 * 1024 * 1024, OC_HUGE = 2 * 1024 * 1024 };

void *oc_block_alloc(size_t size) {
    return malloc(size);
}

void oc_arena_init(struct oc_arena *a) {
    memset(a, 0, sizeof *a);
}

void oc_arena_free(struct oc_arena *a) {
    struct oc_arena_block *b = a->head;
    while (b) {
        struct oc_arena_block *next = b->next;
        free(b);
        b = next;
    }
    memset(a, 0, sizeof *a);
}

void *oc_arena_alloc(struct oc_arena *a, size_t size) {
    if (a->fail_after > 0 && --a->fail_after == 0)
        return NULL;
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size)
        return NULL;
    struct oc_arena_block *b = a->head;
    if (!b || b->cap - b->off < need) {
        /* blocks grow with the arena, a quarter of what it holds (64 KiB to
         * 8 MiB), so a big graph takes few, huge-page-backed blocks */
        size_t grow = a->reserved / 4;
        grow = grow < OC_ARENA_BLOCK ? OC_ARENA_BLOCK : grow > OC_ARENA_BLOCK_MAX ? OC_ARENA_BLOCK_MAX : grow;
        size_t cap = need > grow / 2 ? need : grow;
        if (cap > SIZE_MAX - sizeof *b - OC_HUGE)
            return NULL;
        b = oc_block_alloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->off = 0;
        /* a large one-off block goes behind the head so the head keeps its space */
        if (need > grow / 2 && a->head) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
        a->reserved += sizeof *b + cap;
    }
    void *p = b->data + b->off;
    b->off += need;
    a->used += need;
    memset(p, 0, need);
    return p;
}

void *oc_arena_array(struct oc_arena *a, size_t n, size_t size) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        return NULL;
    return oc_arena_alloc(a, total ? total : 1);
}

char *oc_arena_strdup(struct oc_arena *a, const char *s) {
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = oc_arena_alloc(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *oc_arena_printf(struct oc_arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = NULL;
    if (n >= 0) {
        p = oc_arena_alloc(a, (size_t)n + 1);
        if (p)
            vsnprintf(p, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    return p;
}
