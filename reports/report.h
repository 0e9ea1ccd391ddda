/*
 * report.h — render an analysis (text, JSON, CSV, Markdown, HTML) and the
 * tables of compare, sweep, replay, merge and the listings.
 *
 * reports/ only formats: every number comes from struct oc_analysis. Output
 * goes through the spec's write callback, so the CLI writes to a FILE and
 * tests render into memory with the same code. Output is deterministic:
 * execution order, no timestamps, no pointers, C number formatting.
 */
#ifndef OC_REPORT_H
#define OC_REPORT_H

#include "../analyzer/analyze.h"
#include "../views/perf/capacity.h"
#include "../views/perf/parallel.h"
#include "../views/perf/perf.h"
#include "../views/llm.h"
#include "../analyzer/modules.h"
#include "../views/sweep.h"
#include "../analyzer/symbolic.h"
#include "../views/training.h"
#include "../replay/calibrate.h"
#include "../replay/ktables.h"

struct oc_lint_result;

enum oc_format {
    OC_FORMAT_TEXT,
    OC_FORMAT_JSON,
    OC_FORMAT_CSV,
    OC_FORMAT_MD,
    OC_FORMAT_HTML,
    OC_FORMAT_SARIF, /* lint: SARIF 2.1.0 for code-scanning views */
    OC_FORMAT_COUNT
};

/* Returns 0 on success, non-zero when the write failed. */
typedef int (*oc_write_fn)(void *arg, const char *data, size_t n);

enum oc_sort {
    OC_SORT_NONE,   /* execution order */
    OC_SORT_MACS,
    OC_SORT_FLOPS,
    OC_SORT_PARAMS,
    OC_SORT_BYTES,  /* activation bytes of the outputs */
    OC_SORT_COUNT
};

/* Columns of the text table (--columns), after the layer or module name. A
 * mask of 1 << OC_COL_*; 0 means the defaults: output, params, macs for
 * node rows; params, macs, flops, macs_share for module rows (--depth),
 * which have no shapes. */
enum oc_column {
    OC_COL_INPUT,        /* "input": the shapes of the activations it reads */
    OC_COL_OUTPUT,       /* "output"                                        */
    OC_COL_PARAMS,       /* "params"                                        */
    OC_COL_PARAMS_SHARE, /* "params%": of the total parameters             */
    OC_COL_MACS,         /* "macs"                                          */
    OC_COL_MACS_SHARE,   /* "macs%"                                         */
    OC_COL_FLOPS,        /* "flops"                                         */
    OC_COL_BYTES,        /* "bytes": of its outputs                         */
    OC_COL_COUNT
};
enum { OC_COLS_SHAPES = 1u << OC_COL_INPUT | 1u << OC_COL_OUTPUT };
/* "output,params,macs" into a mask; false (with the bad name in err) when
 * a name is unknown. */
bool oc_columns_parse(const char *list, uint32_t *mask, char *err, size_t size);

/* A previous `--format json` report to diff against (--baseline). */
enum { OC_BASE_PARAMS, OC_BASE_MACS, OC_BASE_FLOPS, OC_BASE_PARAMS_BYTES, OC_BASE_PEAK, OC_BASE_ACT, OC_BASE_COUNT };
struct oc_baseline_module {
    const char *path;
    uint64_t params, macs;
};
struct oc_baseline {
    const char *path;                  /* the baseline file, as given        */
    bool has[OC_BASE_COUNT];
    uint64_t totals[OC_BASE_COUNT];
    bool incomplete;                   /* its totals.complete was false: MACs,
                                          FLOPs and sizes are lower bounds    */
    int32_t n_nodes;
    const char **node_names;           /* sorted, empty names left out       */
    int32_t n_modules;
    const struct oc_baseline_module *modules;
    void *doc;                         /* the parsed file, owning the strings */
};

/* ---- JSON inputs (reports/json_inputs.c) ---------------------------------- */
/* --baseline: a previous `--format json` report (schema onnxcost/1); false
 * with a reason in err. Free with oc_baseline_free (also after a failure). */
bool oc_baseline_load(const char *path, struct oc_baseline *b, char *err, size_t size);
void oc_baseline_free(struct oc_baseline *b);

/* --measured: an ONNX Runtime profile (views/measure.h); false with a reason
 * in err (nothing to free then). */
struct oc_profile;
bool oc_profile_load(const char *path, struct oc_profile *p, char *err, size_t size);
/* --gpu-spec: a device in JSON (keys in docs/GPUS.md); its strings are
 * copied into name (size bytes, kept by the caller while g is used). */
bool oc_gpu_spec_load(const char *path, struct oc_gpu *g, char *name, size_t size, char *err, size_t esize);
/* The same file's measured kernel tables ("kernel_tables", docs/GPUS.md)
 * into out (out->n 0 when it has none); false with a reason in err. Free
 * with oc_ktables_free (also after a failure). */
bool oc_gpu_spec_load_tables(const char *path, struct oc_ktables *out, char *err, size_t esize);
/* --budget: {"max_macs": "5G", ...} into budget (its text left NULL). */
struct oc_budget;
bool oc_budget_file_load(const char *path, struct oc_budget *budget, char *err, size_t size);

/* --gpu: predictions to print with the analysis, or NULL members. */
struct oc_gpu_report {
    const struct oc_perf *perf;
    const struct oc_data_parallel *dp;   /* --gpus N                  */
    const struct oc_pipeline *pipeline;  /* --pipeline N              */
    enum oc_balance balance;
    const struct oc_fit *fit;            /* --fit                     */
    const char *spec_source;             /* --gpu-spec file, or NULL  */
    const struct oc_data_parallel *train_step; /* --optimizer: the training
                                            step on one GPU, reported first */
};

struct oc_measured;
struct oc_range_result;

struct oc_report_spec {
    int32_t version;         /* 1                                          */
    enum oc_format format;
    const char *model_path;  /* as given by the user, printed in headers   */
    oc_write_fn write;
    void *write_arg;
    const struct oc_symbolic *sym; /* formulas over unbound dims, or NULL     */
    enum oc_sort sort;             /* node rows: order (largest first)        */
    int32_t top;                   /* node rows: at most this many (0 = all)  */
    const struct oc_module *modules; /* --depth: module rows instead of nodes  */
    int32_t n_modules;
    const struct oc_training *training; /* --optimizer / --train-samples, or NULL */
    const char *dtype_name;        /* --dtype re-pricing in force, or NULL       */
    const struct oc_baseline *baseline; /* --baseline, or NULL                   */
    int32_t width;                 /* text: fit rows to this many columns (0: no limit) */
    bool color;                    /* text: bold headers (a terminal without NO_COLOR) */
    const struct oc_gpu_report *gpu; /* --gpu predictions, or NULL                 */
    uint32_t columns;              /* text: --columns (1 << OC_COL_*), 0 = defaults */
    const struct oc_measured *measured; /* --measured: an ONNX Runtime profile joined, or NULL */
    const struct oc_range_result *ranges; /* --dim NAME=LO:HI: totals over the ranges, or NULL */
    const struct oc_lint_result *lint;    /* --lint: the lint findings (views/lint/lint.h), or NULL */
};

/* 1234567 -> "1,234,567" into buf (>= 32 bytes); returns buf. */
const char *oc_fmt_thousands(uint64_t v, char *buf, size_t size);

/* Parses "macs", "flops", "params", "bytes"; false if unknown. */
bool oc_sort_parse(const char *s, enum oc_sort *out);

/* Parses "text", "json", "csv", "md", "html"; false if unknown. */
bool oc_format_parse(const char *s, enum oc_format *out);
const char *oc_format_name(enum oc_format f);

/* OC_ERR_IO when the callback fails, OC_ERR_NOMEM on allocation failure. */
enum oc_status oc_report_render(const struct oc_analysis *an, const struct oc_report_spec *spec,
                                struct oc_diag *d);

/* The JSON document (schema onnxcost/1, docs/JSON.md) member by member, for
 * callers that want its values rather than its text (the Python binding):
 * fn gets each top-level key with its value in document order, "nodes" first
 * with an empty array and then once per row with index 0, 1, ... (index is
 * -1 for every other member). The value is released after the call. A status
 * other than OC_OK from fn stops the walk and is returned. only: the one
 * member wanted ("totals"), or NULL for all; the others are not built. */
struct json_t;
typedef enum oc_status (*oc_json_member_fn)(void *arg, const char *key, int32_t index, const struct json_t *value,
                                            struct oc_diag *d);
enum oc_status oc_json_members(const struct oc_analysis *an, const struct oc_report_spec *spec, const char *only,
                               oc_json_member_fn fn, void *arg, struct oc_diag *d);

/* One model of `onnxcost compare`. */
struct oc_compare_entry {
    const char *path;
    const struct oc_analysis *an;
    const struct oc_training *training; /* NULL without --optimizer */
    const struct oc_perf *perf;         /* NULL without --gpu       */
    const struct oc_fit *fit;           /* NULL without --fit       */
    const struct oc_range_result *range; /* --dim NAME=LO:HI: the totals over
                                            the box (an: at its upper corner),
                                            or NULL */
};
/* Side-by-side totals (text, json "onnxcost-compare/1", md, csv). */
enum oc_status oc_report_compare(const struct oc_compare_entry *e, int32_t n, const struct oc_report_spec *spec,
                                 struct oc_diag *d);

/* `onnxcost replay`: per node the plan (results NULL: --plan) or the
 * measurements beside the estimate (text, md, json "onnxcost-replay/1"). */
struct oc_rp_plan;
struct oc_rp_result;
struct oc_rp_device;
struct oc_rp_options;
struct oc_rp_file;
struct oc_replay_report {
    const struct oc_rp_plan *plans;      /* one per replayed node, graph order */
    const struct oc_rp_result *results;  /* NULL: the plan only                */
    int32_t n;
    const struct oc_rp_device *device;   /* with results                       */
    const struct oc_rp_options *opts;
    const char *plugin_build;
    int32_t float_dtype;                 /* replay --dtype (ONNX code), 0 = the model's */
};
enum oc_status oc_report_replay(const struct oc_analysis *an, const struct oc_replay_report *r,
                                const struct oc_report_spec *spec, struct oc_diag *d);
/* `onnxcost merge`: replay result files side by side (text, md, json
 * "onnxcost-merge/1"). */
enum oc_status oc_report_merge(const struct oc_rp_file *files, int32_t n, const struct oc_report_spec *spec,
                               struct oc_diag *d);

/* `onnxcost calibrate`: efficiency factors fitted to replay results, and
 * the model's error before and after, per file (text, md, json
 * "onnxcost-calibration/1"). */
struct oc_calib_file_report {
    const char *path, *model, *device;
    bool fit;                            /* fitted on (else checked on)        */
    bool noisy;                          /* a fit file left out: its measured
                                            runs were noisy (calibrate
                                            --keep-noisy fits it)             */
    bool slower;                         /* a fit file left out: another of the
                                            same run (model, bindings, threads)
                                            ran faster end to end             */
    int32_t skipped;                     /* measured nodes without a model kernel */
    double weight;                       /* a fitted file's weight in the fit
                                            (replay/calibrate.h
                                            oc_calib_record_weight)         */
    struct oc_calib_error before, after;
};
struct oc_calib_report {
    const char *measured_device;         /* the first file's device            */
    const struct oc_gpu *base;           /* the peaks the factors multiply     */
    const char *base_source;             /* --gpu-spec FILE, NULL: built-in    */
    const struct oc_perf_opts *before;
    const struct oc_calib_fit *fit;
    const struct oc_calib_file_report *files;
    int32_t n_files;
    const char *spec_out;                /* -o FILE written, or NULL           */
    const struct oc_calib_op_error *by_op; /* after the fit, worst first       */
    int32_t n_by_op;
    bool by_op_checked;                  /* over the --check files (else the fit files) */
};
enum oc_status oc_report_calibration(const struct oc_calib_report *r, const struct oc_report_spec *spec,
                                     struct oc_diag *d);
/* The base device with the fitted factors, as a --gpu-spec file
 * (docs/GPUS.md), its provenance under "calibration". */
enum oc_status oc_report_gpu_spec(const struct oc_gpu *gpu, const struct oc_calib_report *r,
                                  const struct oc_report_spec *spec, struct oc_diag *d);

/* calibrate --end-to-end: a CSV of whole-model measurements (docs/MEASURED.md,
 * "End-to-end measurements"): a header line
 *   model,bindings,device,precision,mode,measured,unit,role,source
 * then one row per measurement; lines starting with '#' are comments.
 * Fields are as written (the caller interprets them); measured is checked
 * to be a number > 0, unit samples/s or ms, role fit or check. False with
 * "line N: why" in err. */
enum { OC_E2E_MODEL, OC_E2E_BINDINGS, OC_E2E_DEVICE, OC_E2E_PRECISION, OC_E2E_MODE, OC_E2E_MEASURED, OC_E2E_UNIT,
       OC_E2E_ROLE, OC_E2E_SOURCE, OC_E2E_COLS };
struct oc_e2e_row {
    char *field[OC_E2E_COLS];
    double measured;
    int32_t line;
};
struct oc_e2e_table {
    struct oc_e2e_row *rows;
    int32_t n_rows;
};
bool oc_e2e_table_load(const char *path, struct oc_e2e_table *t, char *err, size_t size);
void oc_e2e_table_free(struct oc_e2e_table *t);

/* calibrate --end-to-end's report: each row's measured and predicted
 * throughput before and after the fit (text, md, json
 * "onnxcost-calibration-e2e/1"). */
struct oc_calib_e2e_line {
    const char *model, *device, *precision, *mode;
    int64_t batch;            /* samples per step (1 when the model has none) */
    double measured_s, before_s, after_s; /* time per batch                */
    bool fit;
};
struct oc_calib_e2e_report {
    const char *table;        /* the CSV file                              */
    const struct oc_calib_rows_fit *fit;
    const struct oc_perf_opts *before;
    const struct oc_calib_e2e_line *lines;
    int32_t n;
};
enum oc_status oc_report_calibration_e2e(const struct oc_calib_e2e_report *r, const struct oc_report_spec *spec,
                                         struct oc_diag *d);

/* `onnxcost probe`: the measured roofs as a table (text) or as a spec file
 * (json) that --machine and --gpu-spec read; gpu is the spec made of them
 * (oc_probe_spec). */
struct oc_machine;
enum oc_status oc_report_machine(const struct oc_machine *m, const struct oc_gpu *gpu,
                                 const struct oc_report_spec *spec, struct oc_diag *d);
/* The device keys of a spec file into a JSON object (docs/GPUS.md). */
struct json_t;
void oc_spec_device_json(const struct oc_gpu *gpu, struct json_t *doc);
/* A spec file's "efficiency" object from measured factors (machine.c). */
struct json_t *oc_spec_efficiency_json(const struct oc_gpu_efficiency *e);

/* `onnxcost llm`: the generation view (text, md, json "onnxcost-llm/1"). */
enum oc_status oc_report_llm(const struct oc_llm_view *v, const struct oc_llm_opts *o,
                             const struct oc_report_spec *spec, struct oc_diag *d);

/* `onnxcost plan`: a static memory plan (text, md, csv; json "onnxcost-plan/1"). */
struct oc_plan;
enum oc_status oc_report_plan(const struct oc_analysis *an, const struct oc_plan *p,
                              const struct oc_report_spec *spec, struct oc_diag *d);

/* `onnxcost lint`: the findings (text: one line each, `file: rule: message`;
 * json "onnxcost-lint/1"; md; sarif: SARIF 2.1.0), with their savings and
 * the totals. */
enum oc_status oc_report_lint(const struct oc_analysis *an, const struct oc_lint_result *r,
                              const struct oc_report_spec *spec, struct oc_diag *d);

/* `onnxcost gpus` and `onnxcost ops`: the built-in devices and the
 * operators with a rule (text or md). */
enum oc_status oc_report_gpus(const struct oc_report_spec *spec, struct oc_diag *d);
enum oc_status oc_report_ops(const struct oc_report_spec *spec, struct oc_diag *d);

/* The table of a sweep (text, md, csv or JSON "onnxcost-sweep/1"), with
 * the predictions of each row when gpu is not NULL (spec->gpu may name
 * the --gpu-spec file). */
enum oc_status oc_report_sweep(const struct oc_sweep_row *rows, int32_t n, const struct oc_sweep_dim *dims,
                               int32_t n_dims, const struct oc_sweep_gpu *gpu, const struct oc_report_spec *spec,
                               struct oc_diag *d);

/* ---- onnxcost tables (reports/ktables.c) ------------------------------------ */
struct oc_ktables_file {
    const char *path, *model;
    struct oc_ktables_added added;
};
struct oc_ktables_report {
    const struct oc_ktables *tables;
    const struct oc_ktables_file *files;
    int32_t n_files;
    const char *spec_out;  /* -o, or NULL */
};
/* What a build took: each table (family, dtype, math, samples, feature and
 * efficiency ranges) and each file's samples (text, md, csv, html, json
 * "onnxcost-tables/1"). */
enum oc_status oc_report_kernel_tables(const struct oc_ktables_report *r, const struct oc_report_spec *spec,
                                       struct oc_diag *d);
/* The spec file: base's device keys (and its measured factors, the
 * roofline's for nodes the tables do not cover) with "kernel_tables". */
enum oc_status oc_report_kernel_tables_spec(const struct oc_gpu *base, const struct oc_ktables *t,
                                            const struct oc_report_spec *spec, struct oc_diag *d);

#endif
