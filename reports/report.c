/*
 * report.c — the format and sort names, and dispatch to the writer of each
 * format. What the writers share is format.c: they never call back here.
 */
#include "report_impl.h"

#include <stdio.h>
#include <string.h>

static const char *const oc_format_names[] = {
    [OC_FORMAT_TEXT] = "text",
    [OC_FORMAT_JSON] = "json",
    [OC_FORMAT_CSV] = "csv",
    [OC_FORMAT_MD] = "md",
    [OC_FORMAT_HTML] = "html",
    [OC_FORMAT_SARIF] = "sarif",
};
_Static_assert(OC_ARRAY_LEN(oc_format_names) == OC_FORMAT_COUNT, "format names out of sync");

bool oc_format_parse(const char *s, enum oc_format *out) {
    for (int i = 0; i < OC_FORMAT_COUNT; i++)
        if (strcmp(s, oc_format_names[i]) == 0) {
            *out = (enum oc_format)i;
            return true;
        }
    return false;
}

const char *oc_format_name(enum oc_format f) {
    return (unsigned)f < OC_FORMAT_COUNT ? oc_format_names[f] : "?";
}

enum oc_status oc_report_render(const struct oc_analysis *an, const struct oc_report_spec *spec, struct oc_diag *d) {
    switch (spec->format) {
    case OC_FORMAT_TEXT:
        return oc_render_text(an, spec, d);
    case OC_FORMAT_JSON:
        return oc_render_json(an, spec, d);
    case OC_FORMAT_CSV:
        return oc_render_csv(an, spec, d);
    case OC_FORMAT_MD:
        return oc_render_md(an, spec, d);
    case OC_FORMAT_HTML:
        return oc_render_html(an, spec, d);
    default:
        return oc_diag_set(d, OC_ERR_USAGE, "unknown output format");
    }
}

bool oc_columns_parse(const char *list, uint32_t *mask, char *err, size_t size) {
    static const char *const names[OC_COL_COUNT] = {
        [OC_COL_INPUT] = "input", [OC_COL_OUTPUT] = "output", [OC_COL_PARAMS] = "params",
        [OC_COL_PARAMS_SHARE] = "params%", [OC_COL_MACS] = "macs", [OC_COL_MACS_SHARE] = "macs%",
        [OC_COL_FLOPS] = "flops", [OC_COL_BYTES] = "bytes"};
    *mask = 0;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        int c = 0;
        while (c < OC_COL_COUNT && (strlen(names[c]) != n || strncmp(p, names[c], n) != 0))
            c++;
        if (c == OC_COL_COUNT) {
            snprintf(err, size, "unknown column '%.*s'", (int)(n < 64 ? n : 64), p);
            return false;
        }
        *mask |= 1u << c;
        p += n + (p[n] == ',');
    }
    if (!*mask)
        snprintf(err, size, "no column named");
    return *mask != 0;
}

bool oc_sort_parse(const char *s, enum oc_sort *out) {
    static const char *const names[] = {[OC_SORT_MACS] = "macs", [OC_SORT_FLOPS] = "flops",
                                        [OC_SORT_PARAMS] = "params", [OC_SORT_BYTES] = "bytes"};
    for (int i = OC_SORT_MACS; i < OC_SORT_COUNT; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum oc_sort)i;
            return true;
        }
    return false;
}
