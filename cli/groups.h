/*
 * groups.h — option groups several commands share (cli/groups.c), and the
 * structs their values go into. A command lists the groups it takes in its
 * table (struct oc_cmd_spec), so an option shared by analyze, compare and
 * sweep parses, checks and helps the same in all three.
 */
#ifndef OC_CLI_GROUPS_H
#define OC_CLI_GROUPS_H

#include "options.h"

#include "../analyzer/analyze.h"
#include "../views/perf/perf.h"
#include "../analyzer/model.h"
#include "../views/training.h"
#include "../views/range.h"

/* --dim NAME=N, --batch N (analyze, compare, replay); --dim NAME=LO:HI
 * where the command sets ranges_ok before parsing (analyze) */
struct oc_cli_bind {
    struct oc_analyze_opts opts; /* opts.dims = dims                          */
    struct oc_binding *dims;     /* room for argc bindings; names malloc'd    */
    struct oc_range_dim *ranges; /* room for argc ranges; names malloc'd      */
    int32_t n_ranges;
    bool ranges_ok;
};
extern const struct oc_opt_group oc_group_bind;
/* dims with room for argc; false when out of memory */
bool oc_cli_bind_init(struct oc_cli_bind *b, int argc);
void oc_cli_bind_free(struct oc_cli_bind *b);

/* --dtype NAME: price float tensors at that width (analyze, compare, sweep) */
struct oc_cli_price {
    const char *name; /* NULL: each tensor's own type                        */
    int32_t bits;     /* for oc_analyze_opts.price_bits                       */
    int32_t dtype;    /* the ONNX code, for oc_perf_opts.dtype                */
};
extern const struct oc_opt_group oc_group_price;

/* --limit-nodes, --limit-rank, --limit-subgraph-depth (into struct oc_limits) */
extern const struct oc_opt_group oc_group_limits;

/* -o, --output FILE (into a const char *) */
extern const struct oc_opt_group oc_group_output;

/* --optimizer NAME (analyze, compare) */
struct oc_cli_train {
    bool on; /* --optimizer given                         */
    bool folded_bn; /* --folded-bn                        */
    bool fused_pointwise; /* --fused-pointwise            */
    enum oc_optimizer optimizer;
    double backward_ratio[OC_KC_COUNT]; /* --backward-ratio (0 = none given) */
    double step_kernel_s;   /* --step-kernel-us, in seconds          */
    bool step_kernel_set;
};
/* The enum oc_saved_rule bits the flags ask for. */
unsigned oc_cli_train_saved_rules(const struct oc_cli_train *t);
/* What the flags ask of the performance model's training step (the folded
 * BatchNorms, the backward ratios) into o. */
void oc_cli_train_perf(const struct oc_cli_train *t, struct oc_perf_opts *o);
extern const struct oc_opt_group oc_group_train;

/* The GPU model (analyze, compare, sweep, llm): --gpu, --gpu-spec, --math,
 * the efficiencies, --launch-us, --additive; then --fit (analyze, compare,
 * sweep) and --reserve (with --fit, and llm's largest batch), two groups of
 * their own listed under the same heading, all into struct oc_cli_gpu. */
struct oc_cli_gpu {
    const struct oc_gpu *gpu; /* NULL: no predictions                     */
    const char *spec_path;    /* --gpu-spec FILE                          */
    struct oc_gpu custom;     /* the --gpu-spec device                    */
    char custom_name[512];    /* its strings                              */
    struct oc_perf_opts perf; /* call oc_cli_gpu_init first               */
    unsigned set;             /* OC_PERF_SET_*: factors given as options  */
    bool fit;
    uint64_t reserve;
    int64_t threads;          /* --threads N: a CPU at N threads (0: as probed) */
    struct oc_gpu scaled;     /* that CPU (gpu points here then)          */
    char scaled_name[600];
};
extern const struct oc_opt_group oc_group_gpu;
extern const struct oc_opt_group oc_group_fit;
extern const struct oc_opt_group oc_group_reserve;
void oc_cli_gpu_init(struct oc_cli_gpu *g);

/* Measured kernel tables (cmd_tables.c; `tables` and `probe --gpu`): the
 * spec file (base's device with t) to spec_out when given, then the build's
 * report in format (enum oc_format) to report_out or standard output; files
 * say what each source added. An exit code. */
struct oc_ktables_file;
int oc_cli_write_kernel_tables(const struct oc_gpu *base, const struct oc_ktables *t,
                               const struct oc_ktables_file *files, int32_t n, const char *spec_out,
                               const char *report_out, int32_t format);
/* The model a replay or measure result ran (a measure result's: ONNX
 * Runtime's optimized graph), analyzed at the result's own bindings and
 * dtype, else given's and price_bits; found by its base name under models
 * when that is given (cmd_tables.c; `tables` and `calibrate`). A dim bound
 * by neither is refused: a shape at 1 would key times taken at another
 * size. An exit code, after one line naming the result. */
struct oc_rp_file;
struct oc_analysis;
struct oc_model;
int oc_cli_result_analyze(const struct oc_rp_file *f, const char *models, const struct oc_analyze_opts *given,
                          int32_t price_bits, struct oc_model **m, struct oc_analysis **an);
/* OC_OPT_PARSE: a double in (0, 1] at the option's offset */
bool oc_opt_fraction(const struct oc_opt *o, void *dest, const char *v);
/* OC_OPT_PARSE: a double in (min, max] (the row's) at the option's offset */
bool oc_opt_number(const struct oc_opt *o, void *dest, const char *v);

/* OC_OPT_PARSE of a command's --format row: one of the formats whose bit
 * is set in the row's min (1 << OC_FORMAT_...), into the enum at its offset. */
bool oc_opt_format(const struct oc_opt *o, void *dest, const char *v);

/* --format text|md of the listings (ops, gpus) into an enum oc_format */
extern const struct oc_opt_group oc_group_listing;
/* A listing command (ops, gpus): takes --format text|md and no argument
 * ("NAME: unknown argument 'X'", exit 2), renders to stdout. */
struct oc_report_spec;
int oc_cli_listing(int argc, char **argv, const char *name, const char *usage,
                   enum oc_status (*render)(const struct oc_report_spec *spec, struct oc_diag *d));

#endif
