/*
 * cmd_llm.c — `onnxcost llm MODEL [options]`: the generation view of a
 * decoder with a KV cache (views/llm.h, docs/LLM.md).
 */
#include "cli.h"
#include "groups.h"

#include "../views/llm.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

static const char oc_llm_usage[] = "usage: onnxcost llm MODEL.onnx [options]\n"
                                   "\n"
                                   "The generation view of a decoder exported with its KV cache (past key and\n"
                                   "value inputs, present outputs): the prefill of the prompt, one decode step\n"
                                   "at a context (FLOPs and bytes moved, with formulas in batch and\n"
                                   "context fitted to 4 analyses and checked at 2), the whole request, the KV cache per token and, with --gpu, the\n"
                                   "predicted times, the bound and the largest batch that fits. Every figure\n"
                                   "is the analysis of the graph itself at those bindings (docs/LLM.md).\n"
                                   "\n";

static const char oc_llm_footer[] = "\n"
                                    "example:\n"
                                    "  onnxcost llm model.onnx --prompt 512 --generate 128 --gpu h100\n";

struct oc_llm_args {
    int64_t batch, prompt, generate, context;
    enum oc_format format;
    bool causal_half;
};

static bool oc_opt_causal(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    bool *half = &((struct oc_llm_args *)dest)->causal_half;
    if (strcmp(v, "full") && strcmp(v, "half"))
        return false;
    *half = strcmp(v, "half") == 0;
    return true;
}

static const struct oc_opt oc_llm_opts[] = {
    OC_OPT_PARSE_ROW("--causal", "MODE",
                     "full (default: attention as the graph computes it, every query\n"
                     "against every key) or half (the papers' convention: a prefill\n"
                     "query against the keys before it; FLOPs and MACs only)",
                     0, 0, 0, "full or half", oc_opt_causal),
    OC_OPT_INT_ROW("--prompt", "N", "prompt tokens of the prefill (default 512)", offsetof(struct oc_llm_args, prompt),
                   1, 1 << 24, "an integer from 1 to 16777216"),
    OC_OPT_INT_ROW("--generate", "N", "tokens generated (default 128)", offsetof(struct oc_llm_args, generate), 1,
                   1 << 20, "an integer from 1 to 1048576"),
    OC_OPT_INT_ROW("--batch", "N", "sequences decoded together (default 1)", offsetof(struct oc_llm_args, batch), 1,
                   1 << 20, "an integer from 1 to 1048576"),
    OC_OPT_INT_ROW("--context", "N",
                   "context of the decode step shown and of the largest batch\n"
                   "(default prompt + generate)",
                   offsetof(struct oc_llm_args, context), 1, 1 << 24, "an integer from 1 to 16777216"),
    OC_OPT_PARSE_ROW("--format", "FMT",
                     "text (default), md, json (schema onnxcost-llm/1) or html (with a\n"
                     "chart of the time per token against the context; use -o)",
                     offsetof(struct oc_llm_args, format),
                     1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD | 1 << OC_FORMAT_JSON | 1 << OC_FORMAT_HTML, 0,
                     "text, md, json or html", oc_opt_format),
};
static const struct oc_opt_group oc_llm_group = {NULL, oc_llm_opts, sizeof oc_llm_opts / sizeof oc_llm_opts[0]};

int oc_cmd_llm(int argc, char **argv) {
    struct oc_llm_args a = {.batch = 1, .prompt = 512, .generate = 128, .format = OC_FORMAT_TEXT};
    struct oc_cli_gpu gg;
    struct oc_load_opts lopts = {0};
    const char *out_path = NULL;
    oc_cli_gpu_init(&gg);
    const struct oc_opt_use groups[] = {
        {&oc_llm_group, &a},      {&oc_group_output, &out_path},     {&oc_group_gpu, &gg},
        {&oc_group_reserve, &gg}, {&oc_group_limits, &lopts.limits},
    };
    const struct oc_cmd_spec cmd = {"llm",         "llm: ", oc_llm_usage,
                                    oc_llm_footer, groups,  sizeof groups / sizeof groups[0]};
    const char **args = NULL;
    int32_t n_args = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n_args);
    struct oc_model *m = NULL;
    struct oc_analysis *an = NULL;
    if (rc != OC_PARSE_GO)
        goto done;
    rc = OC_EXIT_OK;
    if (n_args != 1) {
        rc = oc_cli_usage_error(n_args ? "llm: more than one model given"
                                       : "llm: no model given (try 'onnxcost llm --help')");
        goto done;
    }
    const char *path = args[0];
    struct oc_llm_opts o = {a.batch,  a.prompt,  a.generate,  a.context ? a.context : a.prompt + a.generate,
                            gg.gpu,   gg.perf,   gg.reserve, a.causal_half};
    struct oc_llm_view v;
    struct oc_diag d = {0};
    enum oc_status st = oc_cli_model_load(path, &lopts, &m, &d);
    if (st == OC_OK)
        st = oc_analysis_prepare(m, NULL, &an, &d);
    if (st == OC_OK)
        st = oc_llm_view(an, &o, &v, &d);
    if (st != OC_OK) {
        rc = oc_cli_fail(path, st, d.msg);
        goto done;
    }
    struct oc_outfile f_out;
    if ((rc = oc_cli_open_output(&f_out, out_path)) != OC_EXIT_OK)
        goto done;
    FILE *f = f_out.f;
    struct oc_report_spec spec = {
        .version = 1, .format = a.format, .model_path = path, .write = oc_cli_write_file, .write_arg = f};
    rc = oc_cli_close_report(&f_out, out_path, oc_report_llm(&v, &o, &spec, &d));
done:
    oc_analysis_free(an);
    oc_model_free(m);
    free(args);
    return rc;
}
