/*
 * cmd_annotate.c — `onnxcost annotate MODEL -o OUT [options]`: the model
 * written back with its shapes in value_info and each node's costs in its
 * metadata_props (views/annotate.h), for Netron.
 */
#include "cli.h"
#include "groups.h"

#include "../analyzer/derive.h"
#include "../views/annotate.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

struct oc_annotate_args {
    const char *out_path;
    bool quiet, no_shapes;
    int64_t range_points;
};

static const struct oc_opt oc_annotate_opts[] = {
    OC_OPT_OUTPUT_ROW("--output", "-o", "FILE",
                    "the annotated model (required); it may be the input itself:\n"
                    "the new file is written beside it, then renamed over it",
                    offsetof(struct oc_annotate_args, out_path), "a file name"),
    OC_OPT_FLAG_ROW("--no-shapes", NULL,
                    "costs only, no value_info: ONNX Runtime then optimizes the file\n"
                    "exactly as the input (given the shapes, it may fuse more nodes,\n"
                    "which changes float results in the last bits)",
                    offsetof(struct oc_annotate_args, no_shapes)),
    OC_OPT_FLAG_ROW("--quiet", "-q", "do not print warnings or the summary line on standard error",
                    offsetof(struct oc_annotate_args, quiet)),
    OC_OPT_INT_ROW("--range-points", "N",
                   "with ranges: the most bindings analyzed one by one when the costs\n"
                   "are not proven monotone (default 1024)",
                   offsetof(struct oc_annotate_args, range_points), 1, 1 << 24, "an integer from 1 to 16777216"),
};
static const struct oc_opt_group oc_annotate_group = {NULL, oc_annotate_opts,
                                                      sizeof oc_annotate_opts / sizeof oc_annotate_opts[0]};

static const char oc_annotate_usage[] =
    "usage: onnxcost annotate MODEL.onnx -o OUT.onnx [options]\n"
    "\n"
    "Writes the model with its analysis inside, for Netron and other viewers:\n"
    "every inferred shape as value_info, each node's parameters, MACs, FLOPs and\n"
    "bytes (and predicted time with --gpu) in its metadata_props and a line of\n"
    "its doc_string, the totals in the model's metadata_props. Every other byte\n"
    "is copied as it is: weights are never decoded and external data stays in\n"
    "its files. Dims left unbound stay symbolic (formulas such as batch*seq).\n"
    "With ranges (--dim NAME=LO:HI) those dims stay symbolic too, and each node\n"
    "and the model also get their [min, max] over the box (docs/ANNOTATE.md).\n"
    "\n";

static const char oc_annotate_footer[] = "\n"
                                         "example:\n"
                                         "  onnxcost annotate model.onnx -o model.costs.onnx --gpu h100\n";

/* The real directory of path's file (a symlink followed), to tell whether
 * external data stays beside the output. */
static char *oc_dir_of(const char *path) {
    char *real = realpath(path, NULL);
    char *copy = real ? real : strdup(path);
    if (!copy)
        return NULL;
    char *dir = strdup(dirname(copy));
    free(copy);
    return dir;
}

int oc_cmd_annotate(int argc, char **argv) {
    struct oc_annotate_args a = {.range_points = 1024};
    struct oc_cli_bind bind;
    struct oc_cli_price price = {0};
    struct oc_cli_gpu gg;
    struct oc_load_opts lopts = {0};
    oc_cli_gpu_init(&gg);
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    const struct oc_opt_use groups[] = {
        {&oc_annotate_group, &a}, {&oc_group_bind, &bind}, {&oc_group_price, &price},
        {&oc_group_gpu, &gg},     {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"annotate",         "annotate: ", oc_annotate_usage,
                                    oc_annotate_footer, groups,       sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_symbolic *sym = NULL;
    struct oc_perf perf = {0};
    struct oc_range_result ranges = {0};
    bind.ranges_ok = true;

    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    if (rc != OC_PARSE_GO)
        goto done;
    if (n_args != 1 || !a.out_path) {
        rc = oc_cli_usage_error(n_args > 1 ? "annotate: more than one model given"
                                : n_args   ? "annotate: no output given (-o OUT.onnx)"
                                           : "annotate: no model given (try 'onnxcost annotate --help')");
        goto done;
    }
    const char *path = args[0];
    struct oc_analyze_opts opts = bind.opts;
    struct oc_perf_opts popts = gg.perf;
    opts.price_bits = price.bits;
    popts.dtype = price.name ? price.dtype : 0;
    struct oc_diag d = {0};
    enum oc_status st;
    if (bind.n_ranges && gg.gpu) {
        rc = oc_cli_usage_error("annotate: ranges (--dim NAME=LO:HI) go without --gpu (a prediction is for one "
                                "binding)");
        goto done;
    }
    if (bind.n_ranges) { /* the box's [min, max]; the ranged dims stay unbound: formulas beside them */
        struct oc_model *rm = NULL;
        struct oc_diag rd = {0};
        st = oc_cli_model_load(path, &lopts, &rm, &rd);
        if (st == OC_OK)
            st = oc_range_analyze(rm, &opts, bind.ranges, bind.n_ranges, (uint64_t)a.range_points, &ranges, &rd);
        oc_model_free(rm);
        if (st != OC_OK) {
            rc = st == OC_ERR_USAGE ? oc_cli_usage_error("annotate: %s", rd.msg) : oc_cli_fail(path, st, rd.msg);
            goto done;
        }
    }
    opts.keep_built = true; /* the formulas' probes fork the graph as built */
    if ((rc = oc_cli_load_analyze(path, &lopts, &opts, &m, &an)) != OC_EXIT_OK)
        goto done;
    struct oc_diag sd = {0};
    enum oc_status sst = oc_symbolic_wanted(an) ? oc_symbolic_derive(m, &opts, an, &sym, &sd) : OC_OK;
    if (sst == OC_ERR_NOMEM) {
        rc = oc_cli_fail(path, OC_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (sst != OC_OK && !a.quiet)
        fprintf(oc_cli_err(), "onnxcost: note: %s: no symbolic formulas (%s): dims that depend on unbound dims are "
                "written unknown\n", path, sd.msg);
    if (!a.quiet) {
        for (int32_t i = 0; i < oc_model_n_warnings(m); i++)
            oc_cli_diag("warning", path, oc_model_warning(m, i));
        oc_cli_analysis_warnings(path, an, sym);
    }
    if (gg.gpu && (st = oc_perf_estimate(an, gg.gpu, &popts, &perf)) != OC_OK) {
        rc = oc_cli_fail(path, st, "out of memory");
        goto done;
    }

    if ((rc = oc_cli_output_clash(a.out_path, "the annotated model", path)) != OC_EXIT_OK)
        goto done;
    FILE *in = fopen(path, "rb");
    if (!in) {
        rc = errno == ENOMEM ? oc_cli_fail(path, OC_ERR_NOMEM, "out of memory")
                             : oc_cli_fail(path, OC_ERR_IO, "cannot read the model again to copy it");
        goto done;
    }
    struct oc_annotate_stats stats;
    const struct oc_annotate_opts ao = {.sym = sym,
                                        .gpu = gg.gpu,
                                        .perf = gg.gpu ? &perf : NULL,
                                        .ranges = bind.n_ranges ? &ranges : NULL,
                                        .no_shapes = a.no_shapes};
    st = oc_annotate_file(in, m, an, &ao, a.out_path, &stats, &d);
    fclose(in);
    if (st != OC_OK) {
        bool model = st == OC_ERR_MODEL || st == OC_ERR_PARSE || st == OC_ERR_UNSUPPORTED;
        oc_cli_diag("error", model ? path : a.out_path, d.msg);
        rc = model ? OC_EXIT_INPUT : OC_EXIT_INTERNAL;
        goto done;
    }
    if (!a.quiet) {
        fprintf(oc_cli_err(),
                "onnxcost: %s: %d nodes annotated, %d shapes added to value_info (%d declared already), "
                "%llu bytes\n",
                a.out_path, stats.n_nodes, stats.n_value_info, stats.n_value_info_kept,
                (unsigned long long)stats.bytes_out);
        char *in_dir = oc_dir_of(path), *out_dir = oc_dir_of(a.out_path);
        if (stats.n_external && in_dir && out_dir && strcmp(in_dir, out_dir) != 0) {
            char msg[1024];
            snprintf(msg, sizeof msg,
                     "%d weights stay in external data (%.200s) beside %.200s; copy the data file(s) beside it for "
                     "the model to load",
                     stats.n_external, stats.external_location ? stats.external_location : "?", path);
            oc_cli_diag("warning", a.out_path, msg); /* names from the file, made printable */
        }
        free(in_dir);
        free(out_dir);
    }
    if (an->totals.n_uncosted && !a.quiet)
        fprintf(oc_cli_err(), "onnxcost: warning: %s: %d of %d nodes without a cost: the totals written are lower bounds "
                "(onnxcost.complete says so)\n", path, an->totals.n_uncosted, an->totals.n_nodes);
    rc = OC_EXIT_OK;
done:
    oc_range_free(&ranges);
    oc_perf_free(&perf);
    oc_symbolic_free(sym);
    oc_analysis_free(an);
    oc_model_free(m);
    oc_cli_bind_free(&bind);
    free(args);
    return rc;
}
