/*
 * groups.c — the option groups several commands share (groups.h).
 */
#include "groups.h"

#include "../probe/probe.h"

#include "cli.h"

#include "../views/budget.h"
#include "../analyzer/dtype.h"
#include "../reports/report.h"

#include <stdlib.h>
#include <string.h>

/* ---- --format (each command its own row and formats) -------------------- */

bool oc_opt_format(const struct oc_opt *o, void *dest, const char *v) {
    enum oc_format f;
    if (!oc_format_parse(v, &f) || !((o->min >> f) & 1))
        return false;
    *(enum oc_format *)((char *)dest + o->offset) = f;
    return true;
}

/* ---- --dim, --batch ---------------------------------------------------- */

bool oc_cli_bind_init(struct oc_cli_bind *b, int argc) {
    memset(b, 0, sizeof *b);
    b->dims = calloc((size_t)argc + 1, sizeof *b->dims);
    b->ranges = calloc((size_t)argc + 1, sizeof *b->ranges);
    b->opts.dims = b->dims;
    if (b->dims && b->ranges)
        return true;
    free(b->dims), free(b->ranges);
    memset(b, 0, sizeof *b);
    oc_cli_out_of_memory();
    return false;
}

void oc_cli_bind_free(struct oc_cli_bind *b) {
    for (int32_t k = 0; k < b->opts.n_dims; k++)
        free((char *)b->dims[k].name);
    for (int32_t k = 0; k < b->n_ranges; k++)
        free((char *)b->ranges[k].name);
    free(b->dims);
    free(b->ranges);
    b->dims = NULL;
    b->ranges = NULL;
}

#define OC_RANGE_HI_MAX (1ll << 40)

/* NAME=LO:HI into b->ranges */
static int oc_opt_dim_range(struct oc_cli_bind *b, const char *v, const char *eq, const char *colon,
                            const char *prefix) {
    char lo_s[32];
    int64_t lo, hi;
    size_t n = (size_t)(colon - eq - 1);
    if (n == 0 || n >= sizeof lo_s || (memcpy(lo_s, eq + 1, n), lo_s[n] = 0, !oc_cli_parse_count(lo_s, &lo)) ||
        !oc_cli_parse_count(colon + 1, &hi) || lo < 1 || hi > OC_RANGE_HI_MAX || lo > hi)
        return oc_cli_usage_error("%s--dim takes NAME=LO:HI with integers 1 <= LO <= HI <= %lld, got '%s'", prefix,
                                  (long long)OC_RANGE_HI_MAX, v);
    if (!b->ranges_ok)
        return oc_cli_usage_error("%s--dim %s: ranges (NAME=LO:HI) are taken by analyze, plan, compare and annotate; "
                                  "give one value here",
                                  prefix, v);
    if (b->n_ranges == OC_RANGE_MAX)
        return oc_cli_usage_error("%s--dim %s: at most %d dims may be ranged", prefix, v, OC_RANGE_MAX);
    char *nm = strndup(v, (size_t)(eq - v));
    if (!nm)
        return oc_cli_out_of_memory();
    for (int32_t k = 0; k < b->n_ranges; k++)
        if (strcmp(b->ranges[k].name, nm) == 0) {
            oc_cli_usage_error("%s--dim %s given twice", prefix, nm);
            free(nm);
            return OC_EXIT_INPUT;
        }
    b->ranges[b->n_ranges++] = (struct oc_range_dim){nm, lo, hi};
    return OC_PARSE_GO;
}

static int oc_opt_dim(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_cli_bind *b = dest;
    const char *eq = v ? strrchr(v, '=') : NULL;
    int64_t val;
    const char *colon = eq ? strchr(eq, ':') : NULL;
    if (eq && eq != v && colon)
        return oc_opt_dim_range(b, v, eq, colon, prefix);
    if (!eq || eq == v || !oc_cli_parse_count(eq + 1, &val) || val < 1)
        return oc_cli_usage_error("%s--dim takes NAME=N with a positive integer N, got '%s'", prefix, v ? v : "");
    char *nm = strndup(v, (size_t)(eq - v));
    if (!nm)
        return oc_cli_out_of_memory();
    for (int32_t k = 0; k < b->opts.n_dims; k++)
        if (strcmp(b->dims[k].name, nm) == 0) {
            oc_cli_usage_error("%s--dim %s given twice", prefix, nm);
            free(nm);
            return OC_EXIT_INPUT;
        }
    b->dims[b->opts.n_dims++] = (struct oc_binding){nm, val};
    return OC_PARSE_GO;
}

static const struct oc_opt oc_bind_opts[] = {
    OC_OPT_CALL_ROW("--dim", "NAME=N",
                    "bind the symbolic dim NAME (e.g. --dim sequence=128); repeatable;\n"
                    "analyze, plan, compare and annotate also take a range, NAME=LO:HI\n"
                    "(docs/RANGES.md)",
                    oc_opt_dim),
    OC_OPT_INT_ROW("--batch", "N",
                   "bind the batch: in each graph input, the symbolic dims named\n"
                   "like a batch (batch, batch_size, N, ...) wherever they stand,\n"
                   "else its first dim if symbolic or unnamed, said to be a guess\n"
                   "when named otherwise (a --dim for the same name wins)",
                   offsetof(struct oc_cli_bind, opts.batch), 1, INT64_MAX, "a positive integer"),
};
const struct oc_opt_group oc_group_bind = {NULL, oc_bind_opts, sizeof oc_bind_opts / sizeof oc_bind_opts[0]};

/* ---- --dtype ------------------------------------------------------------- */

static bool oc_opt_price(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    struct oc_cli_price *p = dest;
    if (!oc_dtype_price_parse(v, &p->bits, &p->dtype))
        return false;
    p->name = v;
    return true;
}

static const struct oc_opt oc_price_opts[] = {
    OC_OPT_PARSE_ROW("--dtype", "NAME",
                     "price every float tensor as fp64, fp32, fp16, bf16, fp8, int8\n"
                     "or int4 (bytes only; shapes and MACs are unchanged)",
                     0, 0, 0, "fp64, fp32, fp16, bf16, fp8, int8 or int4", oc_opt_price),
};
const struct oc_opt_group oc_group_price = {NULL, oc_price_opts, 1};

/* ---- --limit-* ------------------------------------------------------------ */

static bool oc_opt_int32(const struct oc_opt *o, void *dest, const char *v) {
    int64_t n;
    if (!oc_cli_parse_count(v, &n) || n < o->min || n > o->max)
        return false;
    *(int32_t *)((char *)dest + o->offset) = (int32_t)n;
    return true;
}

static const struct oc_opt oc_limit_opts[] = {
    OC_OPT_INT_ROW("--limit-nodes", "N", "nodes in all graphs and functions (default 16777216)",
                   offsetof(struct oc_limits, max_nodes), 1, OC_LIMIT_MAX_NODES, "an integer from 1 to 134217728"),
    OC_OPT_PARSE_ROW("--limit-rank", "N", "rank of any tensor, declared or inferred (default 64)",
                     offsetof(struct oc_limits, max_rank), 1, OC_LIMIT_MAX_RANK, "an integer from 1 to 65536",
                     oc_opt_int32),
    OC_OPT_PARSE_ROW("--limit-subgraph-depth", "N",
                     "If/Loop/Scan bodies and function calls nested\n(default 32, at most 512)",
                     offsetof(struct oc_limits, max_subgraph_depth), 1, OC_LIMIT_MAX_SUBGRAPH_DEPTH,
                     "an integer from 1 to 512", oc_opt_int32),
};
const struct oc_opt_group oc_group_limits = {"limits (a model beyond one is refused with exit 2; docs/ROBUSTNESS.md):",
                                             oc_limit_opts, sizeof oc_limit_opts / sizeof oc_limit_opts[0]};

/* ---- -o ------------------------------------------------------------------- */

static const struct oc_opt oc_output_opts[] = {
    OC_OPT_OUTPUT_ROW("--output", "-o", "FILE", "write to FILE instead of standard output", 0, "a file name"),
};
const struct oc_opt_group oc_group_output = {NULL, oc_output_opts, 1};

/* ---- --optimizer ------------------------------------------------------------ */

static bool oc_opt_optimizer(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    struct oc_cli_train *t = dest;
    return (t->on = oc_optimizer_parse(v, &t->optimizer));
}

static bool oc_opt_backward_ratio(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    return oc_kclass_values_parse(v, ((struct oc_cli_train *)dest)->backward_ratio);
}

/* microseconds from 0 to 1e6, as seconds */
static bool oc_parse_us(const char *v, double *seconds) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x >= 0 && x <= 1e6))
        return false;
    *seconds = x * 1e-6;
    return true;
}

static bool oc_opt_step_kernel_us(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    struct oc_cli_train *t = dest;
    return (t->step_kernel_set = oc_parse_us(v, &t->step_kernel_s));
}

static const struct oc_opt oc_train_opts[] = {
    OC_OPT_PARSE_ROW("--optimizer", "NAME",
                     "add a training-step estimate: sgd, momentum or adam\n"
                     "(parameters, gradients, optimizer state, saved activations,\n"
                     "FLOPs per step)",
                     0, 0, 0, "sgd, momentum or adam", oc_opt_optimizer),
    OC_OPT_FLAG_ROW("--folded-bn", NULL,
                    "the export folded each convolution's BatchNorm (an eval export),\n"
                    "yet training runs them: the training step adds them back\n"
                    "(memory-bound passes over the output of each convolution with\n"
                    "a bias, and their inputs kept for backward); without it, a graph\n"
                    "that looks so gets the figures with it beside its own",
                    offsetof(struct oc_cli_train, folded_bn)),
    OC_OPT_FLAG_ROW("--fused-pointwise", NULL,
                    "the framework runs each exported chain of pointwise ops that\n"
                    "reads one tensor (GELU, SiLU, LayerNorm written out) as one op:\n"
                    "it keeps that tensor for backward, not the intermediates;\n"
                    "without it, a graph with such chains gets both figures",
                    offsetof(struct oc_cli_train, fused_pointwise)),
    OC_OPT_PARSE_ROW("--backward-ratio", "CLASS=X,...",
                     "with --optimizer: a kernel class's backward time over its forward\n"
                     "time in the training step (classes as in the JSON's class_s:\n"
                     "gemm, attention, conv_3x3, ..., pass); default: the built-in\n"
                     "GPU's fit where it has one, else 2 for a contraction and 1.5\n"
                     "for the rest (docs/MODEL.md, \"Training step\")",
                     0, 0, 0, "CLASS=X pairs, 0 < X <= 100", oc_opt_backward_ratio),
    OC_OPT_PARSE_ROW("--step-kernel-us", "X",
                     "with --optimizer: microseconds every kernel of the training step\n"
                     "adds beyond its launch (the forward's kernels, two backward\n"
                     "kernels each, the optimizer's per parameter tensor); default:\n"
                     "the built-in GPU's training fit where it has one, else 0",
                     0, 0, 0, "microseconds >= 0", oc_opt_step_kernel_us),
};
const struct oc_opt_group oc_group_train = {NULL, oc_train_opts, OC_ARRAY_LEN(oc_train_opts)};

unsigned oc_cli_train_saved_rules(const struct oc_cli_train *t) {
    return (t->folded_bn ? OC_SAVED_FOLDED_BN : 0u) | (t->fused_pointwise ? OC_SAVED_FUSED_POINTWISE : 0u);
}

void oc_cli_train_perf(const struct oc_cli_train *t, struct oc_perf_opts *o) {
    o->folded_bn = t->folded_bn;
    memcpy(o->backward_ratio, t->backward_ratio, sizeof o->backward_ratio);
    o->step_kernel_s = t->step_kernel_s;
    o->step_kernel_set = t->step_kernel_set;
}

/* ---- the GPU model ------------------------------------------------------------ */

void oc_cli_gpu_init(struct oc_cli_gpu *g) {
    memset(g, 0, sizeof *g);
    oc_perf_defaults(&g->perf);
    g->reserve = 1ull << 30;
}

/* The factors an earlier --gpu-spec took from its file go back to their
 * defaults, except those the user set. */
static void oc_cli_gpu_forget_measured(struct oc_cli_gpu *g) {
    struct oc_perf_opts def;
    oc_perf_defaults(&def);
    if (!(g->set & OC_PERF_SET_COMPUTE)) {
        g->perf.task_s = def.task_s;
        g->perf.split_s = def.split_s;
        g->perf.split_share = def.split_share;
        g->perf.pad_path = def.pad_path;
        memset(g->perf.eff_unit, 0, sizeof g->perf.eff_unit);
        memset(g->perf.eff_conv_unit, 0, sizeof g->perf.eff_conv_unit);
    }
    if (!(g->set & OC_PERF_SET_MEMORY)) {
        g->perf.eff_memory = def.eff_memory;
        memset(g->perf.eff_memory_cache, 0, sizeof g->perf.eff_memory_cache);
    }
    if (!(g->set & OC_PERF_SET_LAUNCH)) {
        g->perf.launch_s = def.launch_s;
        g->perf.host_s = def.host_s;
        g->perf.gap_s = def.gap_s;
        g->perf.pool_s = def.pool_s;
        g->perf.run_s = def.run_s;
        g->perf.light_s = def.light_s;
    }
    g->perf.op_eff = NULL; /* the previous device's */
}

/* --threads N over the CPU the device options named, whichever came last:
 * the device becomes that CPU at N threads (views/perf/device.h oc_gpu_at_threads). */
static int oc_cli_gpu_threads(struct oc_cli_gpu *g, const char *prefix) {
    if (!g->threads || !g->gpu)
        return OC_PARSE_GO;
    if (!g->gpu->cpu)
        return oc_cli_usage_error("%s--threads is for a CPU (--machine FILE or --cpu), not the GPU '%s'", prefix,
                                  g->gpu->name);
    const struct oc_gpu *base = g->gpu == &g->scaled ? &g->custom : g->gpu;
    if (!oc_gpu_at_threads(base, (int32_t)g->threads, &g->scaled, g->scaled_name, sizeof g->scaled_name))
        return oc_cli_usage_error("%s--threads: '%s' has no one-thread figures to scale from (a spec file from "
                                  "onnxcost probe -o has them, or --cpu)",
                                  prefix, base->name);
    g->gpu = &g->scaled;
    return OC_PARSE_GO;
}

static int oc_opt_gpu(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_cli_gpu *g = dest;
    oc_cli_gpu_forget_measured(g);
    if (!(g->gpu = oc_gpu_find(v)))
        return oc_cli_usage_error("%s--gpu: unknown GPU '%s' (onnxcost gpus lists them; --gpu-spec FILE for others)",
                                  prefix, v ? v : "");
    g->spec_path = NULL;
    return oc_cli_gpu_threads(g, prefix);
}

static int oc_opt_threads(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_cli_gpu *g = dest;
    int64_t n;
    if (!oc_cli_parse_count(v, &n) || n < 1 || n > 65536)
        return oc_cli_usage_error("%s--threads takes an integer from 1 to 65536, got '%s'", prefix, v ? v : "");
    g->threads = n;
    return oc_cli_gpu_threads(g, prefix);
}

static void oc_cli_free_tables(void *p) {
    oc_ktables_free(p);
    free(p);
}

static int oc_opt_gpu_spec(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    struct oc_cli_gpu *g = dest;
    char err[256];
    if (!v || !oc_gpu_spec_load(v, &g->custom, g->custom_name, sizeof g->custom_name, err, sizeof err)) {
        oc_cli_diag("error", v ? v : "--gpu-spec", v ? err : "takes a JSON file");
        return OC_EXIT_INPUT;
    }
    struct oc_ktables *tables = calloc(1, sizeof *tables);
    bool loaded = tables && oc_gpu_spec_load_tables(v, tables, err, sizeof err);
    if (!loaded || !oc_cli_keep(tables, oc_cli_free_tables)) {
        oc_cli_diag("error", v, loaded || !tables ? "out of memory" : err);
        oc_cli_free_tables(tables);
        return loaded || !tables ? OC_EXIT_INTERNAL : OC_EXIT_INPUT;
    }
    g->custom.tables = tables->n ? tables : NULL;
    g->gpu = &g->custom;
    g->spec_path = v;
    oc_cli_gpu_forget_measured(g);
    oc_perf_use_measured(&g->custom, g->set, &g->perf);
    return oc_cli_gpu_threads(g, prefix);
}

/* --cpu: this machine, probed now (a shorter probe than onnxcost probe's) */
static int oc_opt_cpu(const struct oc_opt *o, void *dest, const char *v, const char *prefix) {
    (void)o;
    (void)v;
    struct oc_cli_gpu *g = dest;
    struct oc_probe_opts po = {.target_s = 0.02};
    struct oc_machine *m = malloc(sizeof *m);
    char err[256];
    if (!m || !oc_probe_run(&po, m, err, sizeof err)) {
        fprintf(oc_cli_err(), "onnxcost: error: %s--cpu: %s\n", prefix, m ? err : "out of memory");
        free(m);
        return OC_EXIT_INTERNAL;
    }
    oc_probe_spec(m, &g->custom, g->custom_name, sizeof g->custom_name);
    free(m);
    g->gpu = &g->custom;
    g->spec_path = NULL;
    oc_cli_gpu_forget_measured(g);
    return oc_cli_gpu_threads(g, prefix);
}

static bool oc_opt_math(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    return oc_math_parse(v, &((struct oc_cli_gpu *)dest)->perf.math);
}

static bool oc_opt_runtime(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    return oc_runtime_parse(v, &((struct oc_cli_gpu *)dest)->perf.runtime);
}

static bool oc_opt_autocast(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    int32_t *to = &((struct oc_cli_gpu *)dest)->perf.autocast;
    *to = strcmp(v, "fp16") == 0 ? OC_DT_FLOAT16 : strcmp(v, "bf16") == 0 ? OC_DT_BFLOAT16 : 0;
    return *to != 0;
}

/* a double in (0, 1] at the option's offset: the efficiencies */
bool oc_opt_fraction(const struct oc_opt *o, void *dest, const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0 && x <= 1))
        return false;
    *(double *)((char *)dest + o->offset) = x;
    return true;
}

bool oc_opt_number(const struct oc_opt *o, void *dest, const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > (double)o->min && x <= (double)o->max))
        return false;
    *(double *)((char *)dest + o->offset) = x;
    return true;
}

/* --launch-us and --host-us (min 1): microseconds into launch_s or host_s */
static bool oc_opt_launch_us(const struct oc_opt *o, void *dest, const char *v) {
    double s;
    if (!oc_parse_us(v, &s))
        return false;
    struct oc_cli_gpu *g = dest;
    *(o->min ? &g->perf.host_s : &g->perf.launch_s) = s;
    g->set |= OC_PERF_SET_LAUNCH;
    g->perf.gap_s = g->perf.pool_s = 0; /* a spec's fixed costs go with it, in whichever order */
    return true;
}

/* --efficiency sets every unit's (a calibrated file's per-unit factors
 * included); --mem-efficiency the memory factor */
static bool oc_opt_gpu_efficiency(const struct oc_opt *o, void *dest, const char *v) {
    struct oc_cli_gpu *g = dest;
    if (!oc_opt_fraction(o, dest, v))
        return false;
    g->perf.builtin_fit = false; /* a factor given: the built-in fit (fits.def) would hide it */
    if (o->offset == offsetof(struct oc_cli_gpu, perf.eff_compute)) {
        g->set |= OC_PERF_SET_COMPUTE;
        memset(g->perf.eff_unit, 0, sizeof g->perf.eff_unit);
        memset(g->perf.eff_conv_unit, 0, sizeof g->perf.eff_conv_unit);
        memset(g->perf.parallel_outputs, 0, sizeof g->perf.parallel_outputs);
        g->perf.task_s = g->perf.split_s = g->perf.split_share = g->perf.pad_path = 0;
    } else { /* every level's: a calibrated file's per-level factors too */
        g->set |= OC_PERF_SET_MEMORY;
        memset(g->perf.eff_memory_cache, 0, sizeof g->perf.eff_memory_cache);
    }
    g->perf.op_eff = NULL; /* the ops' own factors are relative to the spec's, in whichever order */
    return true;
}

static bool oc_opt_reserve(const struct oc_opt *o, void *dest, const char *v) {
    (void)o;
    return oc_quantity_parse(v, &((struct oc_cli_gpu *)dest)->reserve);
}

static const struct oc_opt oc_gpu_opts[] = {
    OC_OPT_CALL_ROW("--gpu", "NAME",
                    "roofline per node (FLOP/B, bound, time) and the model's\n"
                    "latency and throughput on a built-in GPU (k80, v100, a100, h100, ...)",
                    oc_opt_gpu),
    OC_OPT_CALL_ROW("--gpu-spec", "FILE", "the same for a device described in JSON (docs/GPUS.md)", oc_opt_gpu_spec),
    OC_OPT_CALL_ROW("--machine", "FILE",
                    "the same for a CPU measured by onnxcost probe -o FILE: its\n"
                    "roofs and the bandwidth of the cache level each node fits in",
                    oc_opt_gpu_spec),
    OC_OPT_CALL_ROW("--cpu", NULL, "the same for this machine, probed now (about 2 s; docs/MEASURED.md)", oc_opt_cpu),
    OC_OPT_CALL_ROW("--threads", "N",
                    "with --machine, --cpu or a CPU's --gpu-spec: predict at N threads,\n"
                    "each rate between the probed one-thread and all-thread figures\n"
                    "(default: all)",
                    oc_opt_threads),
    OC_OPT_PARSE_ROW("--math", "MODE",
                     "auto (default), fp32 (no tensor cores), tf32 (fp32 contractions\n"
                     "on TF32 tensor cores) or fp16 (contractions on FP16 tensor cores)\n"
                     "precision comes from the tensors, or from --dtype",
                     0, 0, 0, "auto, fp32, tf32 or fp16", oc_opt_math),
    OC_OPT_PARSE_ROW("--runtime", "NAME",
                     "whose kernels to price: nodes (default: one kernel per node of\n"
                     "the file) or torch-eager (eager PyTorch: attention as one fused\n"
                     "kernel, a Linear's bias in its GEMM, GELU, SiLU or a norm written\n"
                     "as several pointwise nodes as one kernel, GroupNorm as one, a\n"
                     "permute, slice, split or expand only elementwise ops or cat read\n"
                     "as a view, index arithmetic over shapes as none, a BatchNorm the\n"
                     "export folded as a pass of its own) or torch-compile\n"
                     "(torch.compile's Inductor: attention, matrix products and\n"
                     "convolutions as library kernels, each region of other nodes\n"
                     "between them one fused kernel)",
                     0, 0, 0, "nodes, torch-eager or torch-compile", oc_opt_runtime),
    OC_OPT_FLAG_ROW("--channels-last", NULL,
                    "the model and input in PyTorch's channels-last memory format:\n"
                    "a permute between NCHW and NHWC is a view, and the built-in\n"
                    "fits are those of the channels-last rows (docs/MODEL.md)",
                    offsetof(struct oc_cli_gpu, perf.channels_last)),
    OC_OPT_FLAG_ROW("--unfused-attention", NULL,
                    "with a torch runtime: no fused attention kernel (PyTorch before\n"
                    "2.0, or a model that calls matmul and softmax itself): its\n"
                    "MatMuls, scale, mask and Softmax run as other nodes do",
                    offsetof(struct oc_cli_gpu, perf.unfused_attention)),
    OC_OPT_PARSE_ROW("--autocast", "TYPE",
                     "price as PyTorch's torch.autocast to fp16 or bf16 (AMP) over the\n"
                     "file's fp32: contractions in TYPE on tensor cores, softmax,\n"
                     "normalizations, pow, exp and sums in fp32, a cast kernel where\n"
                     "a tensor changes type, other ops in their inputs' widest type\n"
                     "(docs/MODEL.md, \"Autocast\"); instead of --dtype",
                     0, 0, 0, "fp16 or bf16", oc_opt_autocast),
    OC_OPT_PARSE_ROW("--efficiency", "X",
                     "fraction of peak FLOP/s reached, 0 < X <= 1 (default 0.6, or\n"
                     "the factors a calibrated --gpu-spec file gives)",
                     offsetof(struct oc_cli_gpu, perf.eff_compute), 0, 0, "a fraction 0 < X <= 1",
                     oc_opt_gpu_efficiency),
    OC_OPT_PARSE_ROW("--mem-efficiency", "X", "fraction of DRAM bandwidth reached (default 0.8)",
                     offsetof(struct oc_cli_gpu, perf.eff_memory), 0, 0, "a fraction 0 < X <= 1",
                     oc_opt_gpu_efficiency),
    OC_OPT_PARSE_ROW("--launch-us", "X", "per-kernel overhead in microseconds (default 5)", 0, 0, 0,
                     "microseconds >= 0", oc_opt_launch_us),
    OC_OPT_PARSE_ROW("--host-us", "X",
                     "the runtime's host time per kernel in microseconds: the model\n"
                     "takes at least kernels x X (eager PyTorch inference: about 30;\n"
                     "default 0)",
                     0, 1, 0, "microseconds >= 0", oc_opt_launch_us),
    OC_OPT_FLAG_ROW("--additive", NULL, "time = compute + memory (PALEO) instead of the maximum",
                    offsetof(struct oc_cli_gpu, perf.additive)),
};
const struct oc_opt_group oc_group_gpu = {"GPU predictions (docs/MODEL.md; the table: onnxcost gpus, docs/GPUS.md):",
                                          oc_gpu_opts, sizeof oc_gpu_opts / sizeof oc_gpu_opts[0]};

static const struct oc_opt oc_fit_opts[] = {
    OC_OPT_FLAG_ROW("--fit", NULL,
                    "does it fit: inference (or, with --optimizer, training) memory\n"
                    "against the device minus --reserve; analyze and compare also give\n"
                    "the largest --batch that fits",
                    offsetof(struct oc_cli_gpu, fit)),
};
const struct oc_opt_group oc_group_fit = {NULL, oc_fit_opts, 1};

static const struct oc_opt oc_reserve_opts[] = {
    OC_OPT_PARSE_ROW("--reserve", "SIZE", "memory kept back for the CUDA context and workspaces (default 1GiB)", 0, 0,
                     0, "a size (512MiB, 1GiB)", oc_opt_reserve),
};
const struct oc_opt_group oc_group_reserve = {NULL, oc_reserve_opts, 1};

/* ---- listings ---------------------------------------------------------------- */

static const struct oc_opt oc_listing_opts[] = {
    OC_OPT_PARSE_ROW("--format", "FMT", "text (default) or md", 0, 1 << OC_FORMAT_TEXT | 1 << OC_FORMAT_MD, 0,
                     "text or md", oc_opt_format),
};
const struct oc_opt_group oc_group_listing = {NULL, oc_listing_opts, 1};

int oc_cli_listing(int argc, char **argv, const char *name, const char *usage,
                   enum oc_status (*render)(const struct oc_report_spec *spec, struct oc_diag *d)) {
    enum oc_format fmt = OC_FORMAT_TEXT;
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s: ", name);
    const struct oc_opt_use groups[] = {{&oc_group_listing, &fmt}};
    const struct oc_cmd_spec cmd = {name, prefix, usage, NULL, groups, 1};
    const char **args = NULL;
    int32_t n = 0;
    int rc = oc_cli_parse(&cmd, argc, argv, &args, &n);
    if (rc == OC_PARSE_GO && n)
        rc = oc_cli_usage_error("%sunknown argument '%s'", prefix, args[0]);
    free(args);
    if (rc != OC_PARSE_GO)
        return rc;
    struct oc_report_spec spec = {.version = 1, .format = fmt, .write = oc_cli_write_file, .write_arg = oc_cli_out()};
    struct oc_diag d = {0};
    struct oc_outfile out;
    oc_cli_open_output(&out, NULL);
    return oc_cli_close_report(&out, NULL, render(&spec, &d));
}
