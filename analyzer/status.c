/*
 * status.c — status names, the diagnostic record, the assertion handler.
 * The assertion handler is the one place the library writes to stderr:
 * it reports a broken invariant (a bug in onnxcost, never bad input).
 */
#include "oc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

enum oc_status oc_diag_set(struct oc_diag *d, enum oc_status code, const char *fmt, ...) {
    if (!d)
        return code;
    d->n_errors++;
    if (d->code == OC_OK) {
        va_list ap;
        d->code = code;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void oc_assert_fail(const char *file, int line, const char *expr) {
    fprintf(stderr, "onnxcost: internal error: %s:%d: assertion failed: %s\n", file, line, expr);
    abort();
}
