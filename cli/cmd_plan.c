/*
 * cmd_plan.c — `onnxcost plan MODEL [options]`: a static memory plan of the
 * activations at bound dims (views/mem_plan.h, docs/MEMORY.md).
 */
#include "cli.h"
#include "groups.h"

#include "../views/mem_plan.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_plan_usage[] =
    "usage: onnxcost plan MODEL.onnx [--dim NAME=N]... [options]\n"
    "\n"
    "Assigns every activation tensor an offset in one arena, from the tensors'\n"
    "lifetimes in execution order: alias ops (Reshape, Flatten, ...) share their\n"
    "input's buffer, elementwise ops may write over an input nothing reads\n"
    "after them, graph inputs and outputs are in the arena, weights are not.\n"
    "The plan is verified (no two buffers live at once overlap, offsets\n"
    "aligned) and its arena is shown against the lower bound, the most bytes\n"
    "live at one step. --format json writes the plan (buffer, offset, size,\n"
    "first and last step, values) for a code generator (docs/MEMORY.md).\n"
    "Unbound dims are taken as 1, with a warning. With ranges (--dim NAME=LO:HI)\n"
    "one plan holds for every binding of the box: sized at its upper corner where\n"
    "every tensor's size is proven to grow with the dims, else each buffer at its\n"
    "largest over the box's bindings, each analyzed (at most --range-points).\n"
    "\n";

static const char oc_plan_footer[] = "\n"
                                     "examples:\n"
                                     "  onnxcost plan model.onnx --batch 1\n"
                                     "  onnxcost plan model.onnx --dim batch=1 --dim sequence=128 --format json -o plan.json\n";

struct oc_plan_args {
    enum oc_planner planner;
    int64_t align;
    bool no_inplace;
    enum oc_format format;
    int64_t range_points;
};

static bool oc_opt_planner(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    enum oc_planner *p = &((struct oc_plan_args *)dest)->planner;
    if (strcmp(v, "size") == 0)
        *p = OC_PLANNER_SIZE;
    else if (strcmp(v, "order") == 0)
        *p = OC_PLANNER_ORDER;
    else
        return false;
    return true;
}

static const struct oc_opt oc_plan_opts[] = {
    OC_OPT_PARSE_ROW("--planner", "NAME",
                     "size (default: greedy by size, the largest buffer first into the\n"
                     "best-fitting gap) or order (in execution order, best fit among\n"
                     "the live buffers: ONNX Runtime's memory pattern)",
                     0, 0, 0, "size or order", oc_opt_planner),
    OC_OPT_INT_ROW("--align", "N", "bytes every offset and size is a multiple of (default 64; a\npower of two)",
                   offsetof(struct oc_plan_args, align), 1, 4096, "a power of two from 1 to 4096"),
    OC_OPT_FLAG_ROW("--no-inplace", NULL, "no elementwise op writes over its input",
                    offsetof(struct oc_plan_args, no_inplace)),
    OC_OPT_PARSE_ROW("--format", "FMT",
                     "text (default), md, csv, json (schema onnxcost-plan/1) or html\n"
                     "(the lifetimes and offsets drawn; use -o)",
                     offsetof(struct oc_plan_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_CSV | 1 << OC_FORMAT_JSON |
                         1 << OC_FORMAT_HTML,
                     0, "text, md, csv, json or html", oc_opt_format),
    OC_OPT_INT_ROW("--range-points", "N",
                   "with ranges whose sizes are not proven to grow: the most bindings\n"
                   "analyzed one by one (default 1024)",
                   offsetof(struct oc_plan_args, range_points), 1, 1 << 24, "an integer from 1 to 16777216"),
};
static const struct oc_opt_group oc_plan_group = {NULL, oc_plan_opts, sizeof oc_plan_opts / sizeof oc_plan_opts[0]};

int oc_cmd_plan(int argc, char **argv) {
    struct oc_plan_args a = {.planner = OC_PLANNER_SIZE, .align = 64, .format = OC_FORMAT_TEXT, .range_points = 1024};
    struct oc_cli_bind bind;
    struct oc_load_opts lopts = {0};
    const char *out_path = NULL;
    if (!oc_cli_bind_init(&bind, argc))
        return OC_EXIT_INTERNAL;
    bind.ranges_ok = true;
    const struct oc_opt_use groups[] = {
        {&oc_plan_group, &a},
        {&oc_group_bind, &bind},
        {&oc_group_output, &out_path},
        {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"plan", "plan: ", oc_plan_usage, oc_plan_footer, groups,
                                    sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    struct oc_plan p = {0};
    struct oc_binding *range_dims = NULL;
    struct oc_range_result ranges = {0};
    uint64_t *value_bytes = NULL; /* a box without the proof: each value's largest */
    int32_t value_bytes_n = 0;
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (n_args != 1) {
        rc = oc_cli_usage_error(n_args ? "plan: more than one model given"
                                       : "plan: no model given (try 'onnxcost plan --help')");
        goto done;
    }
    if (a.align & (a.align - 1)) {
        rc = oc_cli_usage_error("plan: --align takes a power of two from 1 to 4096, got %lld", (long long)a.align);
        goto done;
    }
    const char *path = args[0];
    struct oc_analyze_opts opts = bind.opts;
    if (bind.n_ranges) { /* one plan for the whole box: sized at its upper corner, where every tensor is largest */
        struct oc_model *rm = NULL;
        struct oc_diag rd = {0};
        enum oc_status rst = oc_cli_model_load(path, &lopts, &rm, &rd);
        if (rst == OC_OK)
            rst = oc_range_analyze(rm, &opts, bind.ranges, bind.n_ranges, 1, &ranges, &rd);
        if (rst == OC_OK && ranges.method != OC_RANGE_MONOTONE) { /* else each value's largest, binding by binding */
            if (ranges.points > (uint64_t)a.range_points) {
                oc_model_free(rm);
                oc_cli_diag("error", path, "a plan over ranges needs every tensor's size proven to grow with the "
                                           "dims, or a box of at most --range-points bindings to analyze one by one");
                rc = OC_EXIT_INPUT;
                goto done;
            }
            rst = oc_range_value_bytes(rm, &opts, bind.ranges, bind.n_ranges, (uint64_t)a.range_points, &value_bytes,
                                       &value_bytes_n, &rd);
            ranges.method = OC_RANGE_ENUMERATED;
        }
        oc_model_free(rm);
        if (rst != OC_OK) {
            rc = rst == OC_ERR_USAGE ? oc_cli_usage_error("plan: %s", rd.msg) : oc_cli_fail(path, rst, rd.msg);
            goto done;
        }
        struct oc_analyze_opts at_hi;
        range_dims = oc_range_corner(&opts, bind.ranges, bind.n_ranges, true, &at_hi);
        if (!range_dims) {
            rc = oc_cli_out_of_memory();
            goto done;
        }
        opts = at_hi;
    }
    rc = oc_cli_load_analyze(path, &lopts, &opts, &m, &an);
    if (rc != OC_EXIT_OK)
        goto done;
    oc_cli_analysis_warnings(path, an, NULL);
    struct oc_diag d = {0};
    bool inplace = !a.no_inplace;
    if (value_bytes && inplace) { /* shapes that match at one binding may not at another */
        inplace = false;
        oc_cli_diag("warning", path, "in-place reuse is off: the sizes are not proven to grow with the dims");
    }
    if (bind.n_ranges && inplace) { /* in place only where the lower corner shares the same buffers */
        struct oc_analyze_opts at_lo;
        struct oc_binding *lo_dims = oc_range_corner(&bind.opts, bind.ranges, bind.n_ranges, false, &at_lo);
        struct oc_model *lm = NULL;
        struct oc_analysis *la = NULL;
        struct oc_plan lp = {0}, hp = {0};
        bool same = false;
        if (lo_dims) {
            struct oc_diag ld = {0};
            if (oc_cli_model_load(path, &lopts, &lm, &ld) == OC_OK && oc_analyze(lm, &at_lo, &la, &ld) == OC_OK &&
                oc_plan_make(la->graph, NULL, a.planner, (uint64_t)a.align, true, &lp, &ld) == OC_OK &&
                oc_plan_make(an->graph, NULL, a.planner, (uint64_t)a.align, true, &hp, &ld) == OC_OK &&
                lp.n_buffers == hp.n_buffers && lp.n_values == hp.n_values) {
                same = true;
                for (int32_t v = 0; v < hp.n_values && same; v++)
                    same = (lp.buffer_of[v] < 0) == (hp.buffer_of[v] < 0) &&
                           (hp.buffer_of[v] < 0 || lp.buffers[lp.buffer_of[v]].value == hp.buffers[hp.buffer_of[v]].value);
            }
        }
        oc_plan_free(&lp);
        oc_plan_free(&hp);
        oc_analysis_free(la);
        oc_model_free(lm);
        free(lo_dims);
        if (!same) {
            inplace = false;
            oc_cli_diag("warning", path, "in-place reuse is off: it would share other buffers at the lower end of "
                                         "the ranges");
        }
    }
    if (value_bytes && value_bytes_n != an->graph->n_values) { /* never: one file, one graph */
        rc = oc_cli_fail(path, OC_ERR_UNSUPPORTED, "the graph differs between bindings");
        goto done;
    }
    enum oc_status st = oc_plan_make(an->graph, value_bytes, a.planner, (uint64_t)a.align, inplace, &p, &d);
    if (st != OC_OK) {
        rc = oc_cli_fail(path, st, d.msg);
        goto done;
    }
    struct oc_outfile f;
    if ((rc = oc_cli_open_output(&f, out_path)) != OC_EXIT_OK)
        goto done;
    struct oc_report_spec spec = {.version = 1,
                                  .format = a.format,
                                  .model_path = path,
                                  .write = oc_cli_write_file,
                                  .write_arg = f.f,
                                  .ranges = bind.n_ranges ? &ranges : NULL};
    rc = oc_cli_close_report(&f, out_path, oc_report_plan(an, &p, &spec, &d));
    int32_t x, y;
    if (rc == OC_EXIT_OK && !oc_plan_verify(&p, &x, &y)) { /* never: the planners' bug */
        oc_cli_diag("error", path, "the plan failed its own check (a bug; please report it)");
        rc = OC_EXIT_INTERNAL;
    }
done:
    free(value_bytes);
    oc_range_free(&ranges);
    free(range_dims);
    oc_plan_free(&p);
    oc_analysis_free(an);
    oc_model_free(m);
    oc_cli_bind_free(&bind);
    free(args);
    return rc;
}
