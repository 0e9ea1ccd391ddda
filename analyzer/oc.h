/*
 * oc.h — shared vocabulary of the onnxcost analyzer library.
 *
 * Status codes, the caller-owned diagnostic record, always-on invariant
 * checks and overflow-checked 64-bit arithmetic. Every analyzer module
 * includes this header and nothing from reports/, replay/ or cli/.
 *
 * Error classes:
 *   - bad or unsupported input: functions return enum oc_status and write a
 *     one-line message into a caller-owned struct oc_diag;
 *   - programmer invariants: OC_ASSERT (kept in release builds);
 *   - the library never prints and never exits.
 */
#ifndef OC_H
#define OC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum oc_status {
    OC_OK = 0,
    OC_ERR_NOMEM,       /* an allocation failed                              */
    OC_ERR_IO,          /* the file could not be opened or read              */
    OC_ERR_PARSE,       /* not a protobuf, truncated or corrupt              */
    OC_ERR_MODEL,       /* a well-formed protobuf that is not a valid model  */
    OC_ERR_UNSUPPORTED, /* valid, but beyond what onnxcost models            */
    OC_ERR_SHAPE,       /* a shape could not be inferred (inputs unknown)    */
    OC_ERR_OVERFLOW,    /* a count does not fit in 64 bits                   */
    OC_ERR_USAGE,       /* the caller asked for something inconsistent       */
    OC_ERR_DEVICE,      /* GPU / driver / vendor library failure             */
    OC_STATUS_COUNT
};

/* Short constant name of a status ("parse error", ...). Never NULL. */
const char *oc_status_str(enum oc_status s);

/* Caller-owned diagnostic: keeps the first error's code and message and
 * counts the later ones. Zero-initialise before use. */
struct oc_diag {
    enum oc_status code; /* first error, OC_OK if none                      */
    int32_t n_errors;    /* how many errors were reported in total          */
    char msg[512];       /* first error's message, one line, no newline     */
};

/* Records an error (the first one wins the message) and returns `code`. */
enum oc_status oc_diag_set(struct oc_diag *d, enum oc_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Length of the printable UTF-8 character at p (n bytes left): 1 to 4, or 0
 * for a control byte (C0, DEL, C1) or invalid UTF-8. */
size_t oc_utf8_len(const unsigned char *p, size_t n);
/* Copies `in` into out (size bytes, NUL-terminated, cut at a character),
 * writing every byte that is not printable UTF-8 as \xNN. Returns the length.
 * Diagnostics pass through it, so names from a file never put raw escape
 * sequences on a terminal. */
size_t oc_printable(const char *in, char *out, size_t size);
/* Copies `in` into out (size bytes, NUL-terminated); when it does not fit,
 * cuts it after its last whole word and ends it with "...", never in the
 * middle of a word or an option ("--dim NAM"). Returns the length. */
size_t oc_fit_words(char *out, size_t size, const char *in);

void oc_assert_fail(const char *file, int line, const char *expr) __attribute__((noreturn));

#define OC_ASSERT(x)                                                                               \
    do {                                                                                           \
        if (!(x))                                                                                  \
            oc_assert_fail(__FILE__, __LINE__, #x);                                                \
    } while (0)

#define OC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Overflow-checked arithmetic. Each returns true on overflow and then
 * leaves UINT64_MAX / INT64_MAX in *out. */
/* FNV-1a hash of the string s (up to its NUL, or n bytes when n is not
 * SIZE_MAX), continuing from h: start with OC_FNV_INIT. The name indexes
 * (values, op types, module paths) all hash with it. */
#define OC_FNV_INIT 2166136261u
static inline uint32_t oc_fnv1a(uint32_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n && s[i]; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static inline bool oc_mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (__builtin_mul_overflow(a, b, out)) {
        *out = UINT64_MAX;
        return true;
    }
    return false;
}
static inline bool oc_add_u64(uint64_t a, uint64_t b, uint64_t *out) {
    if (__builtin_add_overflow(a, b, out)) {
        *out = UINT64_MAX;
        return true;
    }
    return false;
}
static inline bool oc_mul_i64(int64_t a, int64_t b, int64_t *out) {
    if (__builtin_mul_overflow(a, b, out)) {
        *out = INT64_MAX;
        return true;
    }
    return false;
}
static inline bool oc_add_i64(int64_t a, int64_t b, int64_t *out) {
    if (__builtin_add_overflow(a, b, out)) {
        *out = INT64_MAX;
        return true;
    }
    return false;
}

#endif /* OC_H */
