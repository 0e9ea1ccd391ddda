/*
 * options.c — the one option parser and help printer (options.h).
 */
#include "options.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The help column: option labels up to this wide share the line with
 * their text; longer ones are followed by two spaces. */
enum { OC_HELP_LABEL = 18 };

static void oc_print_opt(const struct oc_opt *o, FILE *f) {
    char label[96];
    snprintf(label, sizeof label, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
             o->arg ? " " : "", o->arg ? o->arg : "");
    size_t n = strlen(label);
    fprintf(f, "  %s", label);
    if (n < OC_HELP_LABEL)
        fprintf(f, "%*s", (int)(OC_HELP_LABEL - n), "");
    else
        fputs("  ", f);
    for (const char *p = o->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fprintf(f, "%*s", OC_HELP_LABEL + 2, "");
    }
    fputc('\n', f);
}

void oc_cli_print_help(const struct oc_cmd_spec *cmd, FILE *f) {
    fputs(cmd->usage, f);
    bool titled = false; /* untitled groups share one "options:" heading */
    for (int32_t g = 0; g < cmd->n_groups; g++) {
        const struct oc_opt_group *grp = cmd->groups[g].group;
        if (grp->title)
            fprintf(f, "%s\n", grp->title);
        else if (!titled)
            fputs("options:\n", f);
        titled |= !grp->title;
        for (int32_t i = 0; i < grp->n; i++)
            oc_print_opt(&grp->opts[i], f);
    }
    fputs("  -h, --help        this help\n", f);
    if (cmd->footer)
        fputs(cmd->footer, f);
}

/* "--name=V" or "--name V" (or the alias): true with *value (NULL when the
 * argument is missing); advances *i past the value. */
static bool oc_match(const struct oc_opt *o, int argc, char **argv, int *i, const char **value) {
    const char *a = argv[*i];
    const char *names[2] = {o->name, o->alias};
    for (int k = 0; k < 2; k++) {
        if (!names[k])
            continue;
        size_t n = strlen(names[k]);
        if (strncmp(a, names[k], n) != 0)
            continue;
        if (a[n] == '=' && o->arg) {
            *value = a + n + 1;
            return true;
        }
        if (a[n] != 0)
            continue;
        *value = !o->arg ? "" : *i + 1 < argc ? argv[++*i] : NULL;
        return true;
    }
    return false;
}

static int oc_apply(const struct oc_cmd_spec *cmd, const struct oc_opt *o, void *dest, const char *v) {
    char *at = (char *)dest + o->offset;
    int64_t n;
    switch (o->kind) {
    case OC_OPT_FLAG:
        *(bool *)at = true;
        return OC_PARSE_GO;
    case OC_OPT_INT:
        if (!oc_cli_parse_count(v, &n) || n < o->min || n > o->max)
            break;
        *(int64_t *)at = n;
        return OC_PARSE_GO;
    case OC_OPT_TEXT:
        if (!v || !v[0])
            break;
        *(const char **)at = v;
        return OC_PARSE_GO;
    case OC_OPT_PARSE:
        if (!v || !o->parse(o, dest, v))
            break;
        return OC_PARSE_GO;
    case OC_OPT_CALL:
        return o->call(o, dest, v, cmd->prefix);
    }
    return oc_cli_usage_error("%s%s takes %s, got '%s'", cmd->prefix, o->name, o->expects, v ? v : "");
}

int oc_cli_parse(const struct oc_cmd_spec *cmd, int argc, char **argv, const char ***args_out, int32_t *n_args) {
    *n_args = 0;
    const char **args = *args_out = calloc((size_t)argc + 1, sizeof *args);
    if (!args)
        return oc_cli_out_of_memory();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            oc_cli_print_help(cmd, oc_cli_out());
            return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
        }
        bool found = false;
        for (int32_t g = 0; g < cmd->n_groups && !found; g++) {
            const struct oc_opt_group *grp = cmd->groups[g].group;
            for (int32_t k = 0; k < grp->n && !found; k++) {
                if (!oc_match(&grp->opts[k], argc, argv, &i, &v))
                    continue;
                found = true;
                int rc = oc_apply(cmd, &grp->opts[k], cmd->groups[g].dest, v);
                if (rc != OC_PARSE_GO)
                    return rc;
                if (v && !grp->opts[k].output && oc_cli_note_input(v) != OC_EXIT_OK)
                    return OC_EXIT_INPUT;
            }
        }
        if (found)
            continue;
        if (a[0] == '-' && a[1])
            return oc_cli_usage_error("%sunknown option '%s' (try 'onnxcost %s --help')", cmd->prefix, a, cmd->name);
        if (oc_cli_note_input(a) != OC_EXIT_OK)
            return OC_EXIT_INPUT;
        args[(*n_args)++] = a;
    }
    return OC_PARSE_GO;
}
