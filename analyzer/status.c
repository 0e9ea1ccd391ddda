/*
 * status.c — status names, the diagnostic record, the assertion handler.
 * The assertion handler is the one place the library writes to stderr:
 * it reports a broken invariant (a bug in onnxcost, never bad input).
 */
#include "oc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const oc_status_names[] = {
    [OC_OK] = "ok",
    [OC_ERR_NOMEM] = "out of memory",
    [OC_ERR_IO] = "i/o error",
    [OC_ERR_PARSE] = "parse error",
    [OC_ERR_MODEL] = "invalid model",
    [OC_ERR_UNSUPPORTED] = "unsupported",
    [OC_ERR_SHAPE] = "shape unknown",
    [OC_ERR_OVERFLOW] = "overflow",
    [OC_ERR_USAGE] = "usage error",
    [OC_ERR_DEVICE] = "device error",
};
_Static_assert(OC_ARRAY_LEN(oc_status_names) == OC_STATUS_COUNT, "status names out of sync");

const char *oc_status_str(enum oc_status s) {
    if ((unsigned)s >= OC_STATUS_COUNT)
        return "unknown status";
    return oc_status_names[s];
}

size_t oc_utf8_len(const unsigned char *p, size_t n) {
    if (n == 0)
        return 0;
    unsigned c = p[0];
    if (c < 0x80)
        return c >= 0x20 && c != 0x7f ? 1 : 0;
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t k = 1; k < len; k++)
        if ((p[k] & 0xC0) != 0x80)
            return 0;
    if (c == 0xC2 && p[1] < 0xA0) /* U+0080..U+009F: C1 controls (0x9B is CSI on some terminals) */
        return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xF0 && p[1] < 0x90)) /* overlong */
        return 0;
    if ((c == 0xED && p[1] >= 0xA0) || (c == 0xF4 && p[1] >= 0x90)) /* surrogates, > U+10FFFF */
        return 0;
    return len;
}

size_t oc_printable(const char *in, char *out, size_t size) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)in;
    size_t n = strlen(in), o = 0;
    if (size == 0)
        return 0;
    for (size_t i = 0; i < n;) {
        size_t len = oc_utf8_len(p + i, n - i);
        if (len) {
            if (o + len >= size)
                break;
            memcpy(out + o, p + i, len);
            o += len;
            i += len;
            continue;
        }
        if (o + 4 >= size)
            break;
        out[o++] = '\\';
        out[o++] = 'x';
        out[o++] = hex[p[i] >> 4];
        out[o++] = hex[p[i] & 15];
        i++;
    }
    out[o] = 0;
    return o;
}

enum oc_status oc_diag_set(struct oc_diag *d, enum oc_status code, const char *fmt, ...) {
    if (!d)
        return code;
    d->n_errors++;
    if (d->code == OC_OK) {
        char raw[sizeof d->msg];
        va_list ap;
        d->code = code;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* names from the file may hold control bytes or invalid UTF-8: the
         * message stays one printable line */
        oc_printable(raw, d->msg, sizeof d->msg);
    }
    return code;
}

void oc_assert_fail(const char *file, int line, const char *expr) {
    fprintf(stderr, "onnxcost: internal error: %s:%d: assertion failed: %s\n", file, line, expr);
    abort();
}

size_t oc_fit_words(char *out, size_t size, const char *in) {
    if (!size)
        return 0;
    size_t n = strlen(in);
    if (n < size) {
        memcpy(out, in, n + 1);
        return n;
    }
    static const char more[] = "...";
    if (size <= sizeof more) { /* no room for a word: as many dots as fit */
        size_t d = size - 1;
        memset(out, '.', d);
        out[d] = 0;
        return d;
    }
    size_t keep = size - sizeof more;
    while (keep > 0 && in[keep] != ' ') /* back to the last whole word */
        keep--;
    while (keep > 0 && (in[keep - 1] == ' ' || in[keep - 1] == ',' || in[keep - 1] == '(' || in[keep - 1] == ':'))
        keep--;
    memcpy(out, in, keep);
    memcpy(out + keep, more, sizeof more); /* with its NUL */
    return keep + sizeof more - 1;
}
