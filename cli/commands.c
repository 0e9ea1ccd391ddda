/*
 * commands.c — the command table and dispatch (oc_cli_main): what the
 * executable (main.c) and the Python binding (python/_core.c) run.
 *
 *   onnxcost MODEL [options]        same as `onnxcost analyze MODEL`
 *   onnxcost analyze MODEL [options]
 *   onnxcost sweep MODEL --dim NAME=V1,V2,... [--dim ...]
 *   onnxcost ranges MODEL --dim NAME=LO:HI [...] (analyze over the box)
 *   onnxcost measure MODEL [options] (ONNX Runtime, through Python)
 *   onnxcost plan MODEL [--dim ...]   (a static memory plan)
 *   onnxcost probe [-o machine.json]  (this machine's roofs)
 *   onnxcost replay MODEL [options]  (GPU plugin)
 *   onnxcost annotate MODEL -o OUT
 *   onnxcost merge RESULT.json ...
 *   onnxcost calibrate RESULT.json ... [--check RESULT.json] [-o SPEC.json]
 *   onnxcost ops [--format text|md]
 *   onnxcost --version | --help
 */
#include "cli.h"

#include "../analyzer/model.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int oc_cmd_help(int argc, char **argv);
static int oc_cmd_version(int argc, char **argv);

static const struct oc_cmd oc_cmds[] = {
    {"analyze", oc_cmd_analyze, "cost table of a model (the default command)"},
    {"compare", oc_cmd_compare, "side-by-side totals of several models, with ratios"},
    {"sweep", oc_cmd_sweep, "totals over a grid of bindings (--dim batch=1,2,4,...)"},
    {"ranges", oc_cmd_ranges, "every figure's bounds over a box (--dim batch=1:64), budgets for all of it"},
    {"llm", oc_cmd_llm, "generation view of a decoder: prefill, decode per token, KV cache"},
    {"annotate", oc_cmd_annotate, "write the model with shapes and costs inside, for Netron"},
    {"measure", oc_cmd_measure, "run it in ONNX Runtime: measured time per node beside its costs"},
    {"plan", oc_cmd_plan, "a static memory plan: an offset for every activation tensor, verified"},
    {"lint", oc_cmd_lint, "what to change in the model, and what each change saves"},
    {"probe", oc_cmd_probe, "measure this machine's roofs (FLOP/s, cache and DRAM bandwidth)"},
    {"replay", oc_cmd_replay, "run each node on an NVIDIA GPU, measured beside estimated"},
    {"merge", oc_cmd_merge, "replay results from several GPUs side by side"},
    {"calibrate", oc_cmd_calibrate, "fit the model's efficiencies to replay or measure results"},
    {"tables", oc_cmd_tables, "measured kernel tables from replay results, as a --gpu-spec file"},
    {"slurm", oc_cmd_slurm, "replay (or measure) on a Slurm cluster: a job array per GPU kind, then merge"},
    {"gpus", oc_cmd_gpus, "list the built-in GPUs for --gpu (dense peaks, memory, bandwidth)"},
    {"ops", oc_cmd_ops, "list the operators and versions onnxcost has rules for"},
    {"version", oc_cmd_version, "print the version"},
    {"help", oc_cmd_help, "print this help"},
};

static const char oc_main_help[] =
    "usage: onnxcost MODEL.onnx [options]\n"
    "       onnxcost COMMAND [args]\n"
    "\n"
    "Static cost analysis of an ONNX model: per node output shape, parameters,\n"
    "MACs and FLOPs, then totals (torchsummary layout). Run `onnxcost analyze --help`\n"
    "for the options.\n"
    "\n"
    "commands:\n";

static const char oc_main_help_tail[] =
    "\n"
    "exit codes: 0 ok, 1 budget exceeded, 2 bad model file or usage,\n"
    "            3 out of memory or output not writable, 4 a budget not verified\n"
    "            (an incomplete analysis: the total is only a lower bound)\n"
    "\n"
    "examples:\n"
    "  onnxcost resnet50.onnx\n"
    "  onnxcost gpt2.onnx --dim batch=8 --dim sequence=128 --format json -o gpt2.json\n";

static int oc_cmd_help(int argc, char **argv) {
    (void)argc;
    (void)argv;
    FILE *out = oc_cli_out();
    fputs(oc_main_help, out);
    for (size_t i = 0; i < sizeof oc_cmds / sizeof oc_cmds[0]; i++)
        fprintf(out, "  %-9s %s\n", oc_cmds[i].name, oc_cmds[i].summary);
    fputs(oc_main_help_tail, out);
    return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
}

static int oc_cmd_version(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(oc_cli_out(), "onnxcost %s\n", OC_VERSION);
    return oc_cli_close_stdout() ? OC_EXIT_OK : OC_EXIT_INTERNAL;
}

static int oc_cli_dispatch(int argc, char **argv) {
    if (argc < 2)
        return oc_cli_usage_error("no model given (try 'onnxcost --help')");
    const char *a = argv[1];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
        return oc_cmd_help(argc - 1, argv + 1);
    if (strcmp(a, "--version") == 0)
        return oc_cmd_version(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof oc_cmds / sizeof oc_cmds[0]; i++)
        if (strcmp(a, oc_cmds[i].name) == 0)
            return oc_cmds[i].fn(argc - 1, argv + 1);
    if (a[0] == '-')
        return oc_cli_usage_error("unknown option '%s' before the model (try 'onnxcost --help')", a);
    /* onnxcost MODEL ...: analyze; a file named like a command needs ./ */
    return oc_cmd_analyze(argc, argv);
}

int oc_cli_main(int argc, char **argv, const struct oc_cli_io *io) {
    oc_cli_set_io(io);
    oc_cli_forget_inputs();
    int rc = oc_cli_dispatch(argc, argv);
    oc_cli_forget_inputs();
    oc_cli_release_kept();
    if (io) {
        fflush(oc_cli_out());
        fflush(oc_cli_err());
    }
    oc_cli_set_io(NULL);
    return rc;
}
