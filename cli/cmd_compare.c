/*
 * cmd_compare.c — `onnxcost compare a.onnx b.onnx [c.onnx ...] [options]`.
 */
#include "cli.h"
#include "groups.h"

#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_compare_usage[] = "usage: onnxcost compare A.onnx B.onnx [C.onnx ...] [options]\n"
                                       "\n"
                                       "Side-by-side totals: params, MACs, FLOPs, params size, peak activation memory\n"
                                       "(and training memory with --optimizer); the best value of each column is\n"
                                       "marked *, and each value shows its ratio to the first model. With --gpu:\n"
                                       "predicted time and samples/s per model, and with --fit whether it fits and\n"
                                       "the largest batch that does. With ranges (--dim NAME=LO:HI): each total as\n"
                                       "[min, max] over the box, ranked and compared by its maximum.\n"
                                       "\n";

static const char oc_compare_footer[] = "\n"
                                        "example:\n"
                                        "  onnxcost compare resnet18.onnx resnet50.onnx --batch 32 --gpu a100 --fit\n"
        "  onnxcost compare resnet18.onnx mobilenet_v2.onnx --dim batch=1:64\n";

struct oc_compare_args {
    enum oc_format format;
    int64_t range_points;
};

static const struct oc_opt oc_compare_opts[] = {
    OC_OPT_PARSE_ROW("--format", "FMT", "text (default), json (schema onnxcost-compare/1), md, csv or html",
                     offsetof(struct oc_compare_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_JSON | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_CSV |
                         1 << OC_FORMAT_HTML,
                     0, "text, json, md, csv or html", oc_opt_format),
    OC_OPT_INT_ROW("--range-points", "N",
                   "with ranges: the most bindings analyzed one by one when a model's\n"
                   "costs are not proven monotone (default 1024)",
                   offsetof(struct oc_compare_args, range_points), 1, 1 << 24, "an integer from 1 to 16777216"),
};
static const struct oc_opt_group oc_compare_group = {NULL, oc_compare_opts, OC_ARRAY_LEN(oc_compare_opts)};

/* Loads and analyzes one model, with its training and GPU figures; with
 * ranges, its totals over the box first, then the analysis at the box's
 * upper corner. */
static int oc_compare_one(const char *path, const struct oc_load_opts *lopts, const struct oc_analyze_opts *opts,
                          const struct oc_cli_bind *bind, int64_t range_points, const struct oc_cli_train *tr,
                          const struct oc_cli_gpu *gg, struct oc_model **m, struct oc_analysis **an,
                          struct oc_training *training, struct oc_perf *perf, struct oc_fit *fit,
                          struct oc_range_result *range, struct oc_compare_entry *e) {
    struct oc_diag d = {0};
    struct oc_analyze_opts at_hi = *opts;
    struct oc_binding *range_dims = NULL;
    if (bind->n_ranges) {
        struct oc_model *rm = NULL;
        enum oc_status rst = oc_cli_model_load(path, lopts, &rm, &d);
        if (rst == OC_OK)
            rst = oc_range_analyze(rm, opts, bind->ranges, bind->n_ranges, (uint64_t)range_points, range, &d);
        oc_model_free(rm);
        if (rst != OC_OK)
            return rst == OC_ERR_USAGE ? oc_cli_usage_error("compare: %s: %s", path, d.msg)
                                       : oc_cli_fail(path, rst, rst == OC_ERR_NOMEM ? "out of memory" : d.msg);
        if (!(range_dims = oc_range_corner(opts, bind->ranges, bind->n_ranges, true, &at_hi)))
            return oc_cli_out_of_memory();
        opts = &at_hi;
    }
    enum oc_status st = oc_cli_model_load(path, lopts, m, &d);
    if (st == OC_OK)
        st = oc_analyze(*m, opts, an, &d);
    if (st == OC_OK && gg->gpu)
        st = oc_perf_estimate(*an, gg->gpu, &gg->perf, perf);
    if (st == OC_OK && tr->on) {
        oc_training_estimate(*an, tr->optimizer, 0, oc_cli_train_saved_rules(tr), training);
        st = oc_training_signs(*an, training);
    }
    if (st == OC_OK && gg->fit)
        st = oc_fit_compute(*m, opts, *an, gg->gpu, tr->on, tr->optimizer, oc_cli_train_saved_rules(tr),
                            tr->on ? training->signs.rules : 0, gg->reserve, fit, &d);
    free(range_dims);
    if (st != OC_OK) {
        return oc_cli_fail(path, st, st == OC_ERR_NOMEM ? "out of memory" : d.msg);
    }
    for (int32_t k = 0; k < (*an)->n_warnings; k++)
        oc_cli_diag("warning", path, (*an)->warnings[k]);
    *e = (struct oc_compare_entry){path,
                                   *an,
                                   tr->on ? training : NULL,
                                   gg->gpu ? perf : NULL,
                                   gg->fit ? fit : NULL,
                                   bind->n_ranges ? range : NULL};
    return OC_EXIT_OK;
}

int oc_cmd_compare(int argc, char **argv) {
    struct oc_cli_bind bind;
    struct oc_cli_price price = {0};
    struct oc_cli_train tr = {0};
    struct oc_cli_gpu gg;
    struct oc_load_opts lopts = {0};
    struct oc_compare_args ca = {.format = OC_FORMAT_TEXT, .range_points = 1024};
    const char *out_path = NULL;
    oc_cli_gpu_init(&gg);
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    bind.ranges_ok = true;
    const struct oc_opt_use groups[] = {
        {&oc_group_bind, &bind},   {&oc_group_price, &price},     {&oc_group_train, &tr},
        {&oc_compare_group, &ca}, {&oc_group_output, &out_path}, {&oc_group_gpu, &gg},
        {&oc_group_fit, &gg},      {&oc_group_reserve, &gg},      {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"compare",         "compare: ", oc_compare_usage,
                                    oc_compare_footer, groups,      sizeof groups / sizeof groups[0]};
    const char **paths = NULL;
    int32_t n = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &paths, &n);
    struct oc_model **models = NULL;
    struct oc_analysis **ans = NULL;
    struct oc_training *trs = NULL;
    struct oc_perf *perfs = NULL;
    struct oc_fit *fits = NULL;
    struct oc_range_result *ranges = NULL;
    struct oc_compare_entry *e = NULL;
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (n < 2) {
        rc = oc_cli_usage_error("compare: give at least two models");
        goto done;
    }
    if (!gg.gpu && gg.fit) {
        rc = oc_cli_usage_error("compare: --fit needs --gpu NAME or --gpu-spec FILE");
        goto done;
    }
    if (bind.n_ranges && (tr.on || gg.gpu)) {
        rc = oc_cli_usage_error("compare: ranges (--dim NAME=LO:HI) compare the totals; --optimizer and --gpu take "
                                "one binding each (analyze gives them over a box)");
        goto done;
    }
    bind.opts.price_bits = price.bits;
    gg.perf.dtype = price.name ? price.dtype : 0;
    oc_cli_train_perf(&tr, &gg.perf);
    models = calloc((size_t)n, sizeof *models);
    ans = calloc((size_t)n, sizeof *ans);
    trs = calloc((size_t)n, sizeof *trs);
    perfs = calloc((size_t)n, sizeof *perfs);
    fits = calloc((size_t)n, sizeof *fits);
    ranges = calloc((size_t)n, sizeof *ranges);
    e = calloc((size_t)n, sizeof *e);
    if (!models || !ans || !trs || !perfs || !fits || !ranges || !e) {
        rc = oc_cli_out_of_memory();
        goto done;
    }
    for (int32_t i = 0; i < n && rc == OC_EXIT_OK; i++)
        rc = oc_compare_one(paths[i], &lopts, &bind.opts, &bind, ca.range_points, &tr, &gg, &models[i], &ans[i],
                            &trs[i], &perfs[i], &fits[i], &ranges[i], &e[i]);
    if (rc != OC_EXIT_OK)
        goto done;
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, out_path)) != OC_EXIT_OK)
        goto done;
    FILE *f = f_out.f;
    struct oc_gpu_report gr = {.spec_source = gg.spec_path};
    struct oc_report_spec spec = {
        .version = 1, .format = ca.format, .write = oc_cli_write_file, .write_arg = f, .gpu = gg.gpu ? &gr : NULL};
    struct oc_diag d = {0};
    rc = oc_cli_close_report(&f_out, out_path, oc_report_compare(e, n, &spec, &d));
done:
    for (int32_t i = 0; models && ans && perfs && i < n; i++) {
        if (ranges)
            oc_range_free(&ranges[i]);
        oc_perf_free(&perfs[i]);
        oc_analysis_free(ans[i]);
        oc_model_free(models[i]);
    }
    free(models), free(ans), free(trs), free(perfs), free(fits), free(ranges), free(e), free(paths);
    oc_cli_bind_free(&bind);
    return rc;
}
