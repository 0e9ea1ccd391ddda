/*
 * replay.c — the tables of `onnxcost replay` (measured beside estimated,
 * per node; or, with --plan, what each node would run) and of
 * `onnxcost merge` (replays from several devices side by side).
 * Text, Markdown and JSON ("onnxcost-replay/1", "onnxcost-replay-plan/1",
 * "onnxcost-merge/1"); the replay's results also as HTML with the measured
 * roofline. Every number comes from the plans, the results and
 * replay/results.c's derivations; nothing is computed here but formatting.
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"
#include "../replay/plan_host.h"
#include "../replay/results.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *oc_rp_status_name(int32_t s) {
    switch (s) {
    case OC_RPS_MEASURED: return "measured";
    case OC_RPS_ALIAS: return "alias";
    case OC_RPS_SKIPPED: return "skipped";
    case OC_RPS_FAILED: return "failed";
    default: return "?";
    }
}

static const char *oc_rp_bound_name(enum oc_bound b) {
    return b == OC_BOUND_MEMORY ? "memory" : b == OC_BOUND_COMPUTE ? "compute" : "";
}

#define OC_RP_CELL 96

/* v with `prec` decimals, "-" for 0 (nothing measured) or a non-number */
static void oc_rp_cellf(struct oc_table *t, int prec, double v) {
    if (!isfinite(v) || v == 0)
        oc_table_puts(t, "-");
    else
        oc_table_cell(t, "%.*f", prec, v);
}

/* text from the file or the plugin, as a printable cell */
static void oc_rp_text_cell(struct oc_table *t, const char *s) {
    size_t n = 4 * strlen(s) + 1;
    char small[256], *buf = n <= sizeof small ? small : malloc(n);
    if (!buf) {
        t->oom = true;
        return;
    }
    oc_printable(s, buf, n);
    oc_table_puts(t, buf);
    if (buf != small)
        free(buf);
}

/* the table's columns: header, alignment */
static void oc_rp_cols(struct oc_table *t, const char *const *hdr, int32_t n, uint32_t left) {
    for (int32_t c = 0; c < n; c++)
        oc_table_col(t, hdr[c], hdr[c], (left >> c) & 1 ? OC_ALIGN_LEFT : OC_ALIGN_RIGHT);
}

/* ---- plan only ------------------------------------------------------------------- */

static void oc_rp_plan_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_replay_report *r,
                            bool md) {
    static const char *const hdr[] = {"#", "Node", "Op", "Replay call", "Est. FLOPs", "Note"};
    struct oc_table t = {0};
    char num[48];
    oc_rp_cols(&t, hdr, 6, 1u << 1 | 1u << 2 | 1u << 3 | 1u << 5);
    int32_t counts[OC_RPK_COUNT] = {0};
    for (int32_t i = 0; i < r->n; i++) {
        const struct oc_rp_plan *p = &r->plans[i];
        oc_table_row(&t);
        oc_table_cell(&t, "%d", i + 1);
        oc_rp_text_cell(&t, p->name && p->name[0] ? p->name : "(unnamed)");
        oc_rp_text_cell(&t, p->op_type);
        oc_table_puts(&t, p->kind == OC_RPK_ALIAS ? "(alias)" : oc_rp_plan_call(p));
        oc_table_puts(&t, oc_fmt_thousands(an->graph->nodes[p->node].cost.flops, num, sizeof num));
        oc_rp_text_cell(&t, p->reason);
        if (p->kind >= 0 && p->kind < OC_RPK_COUNT)
            counts[p->kind]++;
    }
    if (md)
        oc_table_md_aligned(b, &t);
    else
        oc_table_text(b, &t, NULL);
    oc_table_free(&t);
    int32_t runs = r->n - counts[OC_RPK_NONE] - counts[OC_RPK_ALIAS];
    oc_sbuf_printf(b, "\n%d nodes: %d replayed, %d aliases (no kernel), %d not replayed (reason listed)\n", r->n,
                   runs, counts[OC_RPK_ALIAS], counts[OC_RPK_NONE]);
}

/* ---- results ----------------------------------------------------------------------- */

enum { OC_RP_COLS = 14 };

/* The result table (one row per node, then the totals), shared by the
 * text, Markdown and HTML reports. counts: measured, alias, skipped,
 * failed. */
static void oc_rp_result_table(const struct oc_analysis *an, const struct oc_replay_report *r,
                               const struct oc_rp_peaks *pk, int32_t counts[4], struct oc_table *t) {
    static const char *const hdr[OC_RP_COLS] = {"#",          "Node",        "Op",         "Time (us)", "p10-p90 (%)",
                                                "Est. FLOPs", "Meas. FLOPs", "Meas./Est.", "DRAM (MB)", "TFLOP/s",
                                                "GB/s",       "% peak",      "Bound",      "Call / note"};
    char num[48];
    oc_rp_cols(t, hdr, OC_RP_COLS, 1u << 1 | 1u << 2 | 1u << 12 | 1u << 13);
    double tot_t = 0, tot_est = 0, tot_meas = 0, tot_dram = 0;
    memset(counts, 0, 4 * sizeof *counts);
    for (int32_t i = 0; i < r->n; i++) {
        const struct oc_rp_plan *p = &r->plans[i];
        const struct oc_rp_result *res = &r->results[i];
        uint64_t est = an->graph->nodes[p->node].cost.flops;
        struct oc_rp_derived dd;
        oc_rp_derive(res, est, oc_rp_plan_half(p), pk, &dd);
        bool measured = res->status == OC_RPS_MEASURED, counted = measured && res->has_counters;
        oc_table_row(t);
        oc_table_cell(t, "%d", i + 1);
        oc_rp_text_cell(t, p->name && p->name[0] ? p->name : "(unnamed)");
        oc_rp_text_cell(t, p->op_type);
        if (measured) {
            oc_rp_cellf(t, 2, res->time_median_ns / 1e3);
            oc_rp_cellf(t, 1,
                        res->time_median_ns > 0 ? 100.0 * (res->time_p90_ns - res->time_p10_ns) / res->time_median_ns
                                                : 0);
        } else {
            oc_table_puts(t, "-");
            oc_table_puts(t, "-");
        }
        oc_table_puts(t, oc_fmt_thousands(est, num, sizeof num));
        if (counted) {
            oc_table_puts(t, oc_fmt_thousands(
                                 (uint64_t)(dd.measured_flops > 0 && dd.measured_flops < 1.8e19 ? dd.measured_flops : 0),
                                 num, sizeof num));
            oc_rp_cellf(t, 3, dd.ratio);
            oc_rp_cellf(t, 2, dd.dram_bytes / 1e6);
            oc_rp_cellf(t, 2, dd.flops_per_s / 1e12);
            oc_rp_cellf(t, 0, dd.bytes_per_s / 1e9);
            oc_rp_cellf(t, 1, dd.bound == OC_BOUND_MEMORY ? dd.pct_peak_dram : dd.pct_peak_flops);
            oc_table_puts(t, oc_rp_bound_name(dd.bound));
        } else {
            for (int c = 6; c <= 12; c++)
                oc_table_puts(t, "-");
        }
        char note[OC_RP_CELL + OC_RP_REASON + 64];
        if (measured) {
            counts[0]++;
            tot_t += res->time_median_ns;
            tot_est += (double)est;
            if (res->has_counters) {
                tot_meas += dd.measured_flops;
                tot_dram += dd.dram_bytes;
            }
            snprintf(note, sizeof note, "%s%s%s", res->call, res->overhead ? "; " : "",
                     res->overhead ? "incl. replay overhead" : "");
        } else {
            counts[1] += res->status == OC_RPS_ALIAS;
            counts[2] += res->status == OC_RPS_SKIPPED;
            counts[3] += res->status == OC_RPS_FAILED;
            snprintf(note, sizeof note, "%s: %s", oc_rp_status_name(res->status), res->reason);
        }
        oc_rp_text_cell(t, note);
    }
    oc_table_row(t);
    oc_table_puts(t, "");
    oc_table_puts(t, "Total (measured nodes)");
    oc_table_puts(t, "");
    oc_rp_cellf(t, 2, tot_t / 1e3);
    oc_table_puts(t, "");
    oc_table_puts(t, oc_fmt_thousands((uint64_t)(tot_est < 1.8e19 ? tot_est : 0), num, sizeof num));
    oc_table_puts(t, oc_fmt_thousands((uint64_t)(tot_meas < 1.8e19 ? tot_meas : 0), num, sizeof num));
    oc_rp_cellf(t, 3, tot_est > 0 && tot_meas > 0 ? tot_meas / tot_est : 0);
    oc_rp_cellf(t, 2, tot_dram / 1e6);
}

static void oc_rp_device_lines(struct oc_sbuf *b, const struct oc_replay_report *r, const struct oc_rp_peaks *pk,
                               const char *eol) {
    const struct oc_rp_device *dv = r->device;
    oc_sbuf_printf(b, "Device: %s (%s, sm_%d%d, %d SMs, %.1f GiB), driver %d.%d, runtime %d.%d%s", dv->name,
                   dv->chip[0] ? dv->chip : "chip ?", dv->cc_major, dv->cc_minor, dv->sm_count,
                   (double)dv->mem_bytes / 1073741824.0, dv->driver_version / 1000, dv->driver_version % 1000 / 10,
                   dv->runtime_version / 1000, dv->runtime_version % 1000 / 10, eol);
    oc_sbuf_printf(b, "Peaks from the device's attributes: FP32 %.1f TFLOP/s, DRAM %.0f GB/s%s", pk->fp32_flops / 1e12,
                   pk->dram_bytes / 1e9, eol);
    oc_sbuf_printf(b, "Counters: %s%s%s%s", dv->counters ? "yes" : "no (timing only: ",
                   dv->counters ? "" : dv->counters_reason, dv->counters ? "" : ")", eol);
    oc_sbuf_printf(b, "Timing: CUPTI kernel records, median of the repetitions%s%s",
                   r->opts && r->opts->flush_l2 ? ", L2 flushed before each" : ", L2 warm", eol);
    static const char *const conv_algos[OC_RP_N_CONV_FWD_ALGOS] = {OC_RP_CONV_FWD_ALGOS};
    if (r->opts && r->opts->conv_algo > 0 && r->opts->conv_algo <= OC_RP_N_CONV_FWD_ALGOS)
        oc_sbuf_printf(b, "Conv algorithm: %s for every Conv (--conv-algo), not Find's fastest%s",
                       conv_algos[r->opts->conv_algo - 1], eol);
}

static const char oc_rp_footer[] = "FLOPs measured = FP32 (fadd + fmul + 2 ffma) + FP64 + tensor-core ops, + FP16 on "
                                   "16-bit data only (on 32-bit data FP16 instructions are register idioms); "
                                   "MB = 1e6 bytes, us = microseconds, % peak of the nearer roof (Bound)";

static void oc_rp_results_text(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_replay_report *r,
                               bool md) {
    struct oc_rp_peaks pk;
    oc_rp_device_peaks(r->device, &pk);
    oc_rp_device_lines(b, r, &pk, "\n");
    oc_sbuf_puts(b, "\n");
    int32_t counts[4];
    struct oc_table t = {0};
    oc_rp_result_table(an, r, &pk, counts, &t);
    if (md)
        oc_table_md_aligned(b, &t);
    else
        oc_table_text(b, &t, NULL);
    oc_table_free(&t);
    oc_sbuf_printf(b, "\n%d nodes: %d measured, %d aliases (no kernel), %d not replayed, %d failed\n", r->n, counts[0],
                   counts[1], counts[2], counts[3]);
    oc_sbuf_printf(b, "%s\n", oc_rp_footer);
}

static double oc_rp_clamp(double v, double lo, double hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* HTML: the measured roofline (one point per node with counters at its
 * measured intensity and FLOP/s; a hollow point at the estimate's intensity
 * and FLOPs over the same time) above the table */
static void oc_rp_results_html(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_replay_report *r,
                               const char *model) {
    struct oc_rp_peaks pk;
    oc_rp_device_peaks(r->device, &pk);
    oc_html_open(b, "onnxcost replay", "GPU replay", model);
    oc_sbuf_puts(b, "<p>");
    struct oc_sbuf lines = {0};
    oc_rp_device_lines(&lines, r, &pk, "\n");
    oc_html_text(b, lines.p ? lines.p : "");
    oc_sbuf_free(&lines);
    oc_sbuf_puts(b, "</p>\n");
    if (pk.fp32_flops > 0 && pk.dram_bytes > 0) {
        double top = ceil(log10(pk.fp32_flops)) + 1;
        const struct oc_loglog ll = {.x0 = -2, .x1 = 4, .y0 = top - 7, .y1 = top};
        double xlo = pow(10, ll.x0), xhi = pow(10, ll.x1), ylo = pow(10, ll.y0), yhi = pow(10, ll.y1);
        oc_sbuf_puts(b, "<h2>Measured roofline (log-log; FLOP/s against FLOP per DRAM byte; filled: measured, "
                        "hollow: the estimate's FLOPs and bytes over the measured time)</h2>\n");
        oc_ll_open(b);
        oc_ll_roof(b, &ll, pk.fp32_flops, pk.dram_bytes, "#4e79a7");
        oc_sbuf_printf(b, "<text x=\"655\" y=\"%.1f\" text-anchor=\"end\">FP32 %.3g TFLOP/s, ridge %.1f FLOP/B</text>\n",
                       oc_ll_y(&ll, pk.fp32_flops) - 5, pk.fp32_flops / 1e12, pk.fp32_flops / pk.dram_bytes);
        for (int32_t i = 0; i < r->n; i++) {
            const struct oc_rp_result *res = &r->results[i];
            if (res->status != OC_RPS_MEASURED || res->time_median_ns <= 0)
                continue;
            const struct oc_node *nd = &an->graph->nodes[r->plans[i].node];
            struct oc_rp_derived dd;
            oc_rp_derive(res, nd->cost.flops, oc_rp_plan_half(&r->plans[i]), &pk, &dd);
            const char *label = nd->name[0] ? nd->name : nd->op_type;
            double t = res->time_median_ns * 1e-9;
            double eb = (double)nd->cost.bytes_read + (double)nd->cost.bytes_written;
            if (nd->cost.flops > 0 && eb > 0) {
                double ai = oc_rp_clamp((double)nd->cost.flops / eb, xlo, xhi);
                double f = oc_rp_clamp((double)nd->cost.flops / t, ylo, yhi);
                oc_sbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"none\" stroke=\"#888\"><title>",
                               oc_ll_x(&ll, ai), oc_ll_y(&ll, f));
                oc_html_text(b, label);
                oc_sbuf_printf(b, " (estimate): %.3g FLOP/B, %.3g FLOP/s</title></circle>", ai, f);
            }
            if (res->has_counters && dd.intensity > 0 && dd.flops_per_s > 0) {
                double ai = oc_rp_clamp(dd.intensity, xlo, xhi), f = oc_rp_clamp(dd.flops_per_s, ylo, yhi);
                oc_sbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.7\"><title>",
                               oc_ll_x(&ll, ai), oc_ll_y(&ll, f), dd.bound == OC_BOUND_MEMORY ? "#f28e2b" : "#59a14f");
                oc_html_text(b, label);
                oc_sbuf_printf(b, " (measured): %.3g FLOP/B, %.3g FLOP/s, %s-bound</title></circle>", dd.intensity,
                               dd.flops_per_s, oc_rp_bound_name(dd.bound));
            }
        }
        oc_ll_ticks(b, &ll);
        oc_sbuf_puts(b, "\n</svg>\n");
    }
    int32_t counts[4];
    struct oc_table t = {0};
    oc_rp_result_table(an, r, &pk, counts, &t);
    oc_table_html(b, &t);
    oc_table_free(&t);
    oc_sbuf_printf(b, "<p>%d nodes: %d measured, %d aliases (no kernel), %d not replayed, %d failed. ", r->n,
                   counts[0], counts[1], counts[2], counts[3]);
    oc_html_text(b, oc_rp_footer);
    oc_sbuf_puts(b, "</p>\n</body></html>\n");
}

static json_t *oc_rp_jnum(double v) {
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *oc_rp_jdevice(const struct oc_rp_device *dv) {
    struct oc_rp_peaks pk;
    oc_rp_device_peaks(dv, &pk);
    json_t *o = json_object();
    json_object_set_new(o, "name", oc_jstr(dv->name));
    json_object_set_new(o, "chip", oc_jstr(dv->chip));
    json_object_set_new(o, "pci_bus_id", oc_jstr(dv->pci_bus_id));
    json_object_set_new(o, "compute_capability", json_sprintf("%d.%d", dv->cc_major, dv->cc_minor));
    json_object_set_new(o, "sm_count", json_integer(dv->sm_count));
    json_object_set_new(o, "memory_bytes", json_integer(dv->mem_bytes));
    json_object_set_new(o, "l2_bytes", json_integer(dv->l2_bytes));
    json_object_set_new(o, "sm_clock_max_khz", json_integer(dv->sm_clock_khz));
    json_object_set_new(o, "memory_clock_khz", json_integer(dv->mem_clock_khz));
    json_object_set_new(o, "memory_bus_bits", json_integer(dv->mem_bus_bits));
    json_object_set_new(o, "driver_version", json_integer(dv->driver_version));
    json_object_set_new(o, "runtime_version", json_integer(dv->runtime_version));
    json_object_set_new(o, "cudnn_version", json_integer(dv->cudnn_version));
    json_object_set_new(o, "cublas_version", json_integer(dv->cublas_version));
    json_object_set_new(o, "cupti_version", json_integer(dv->cupti_version));
    json_object_set_new(o, "counters", json_boolean(dv->counters));
    if (!dv->counters)
        json_object_set_new(o, "counters_reason", oc_jstr(dv->counters_reason));
    json_object_set_new(o, "peak_fp32_flops", oc_rp_jnum(pk.fp32_flops));
    json_object_set_new(o, "peak_dram_bytes_per_s", oc_rp_jnum(pk.dram_bytes));
    return o;
}

static void oc_rp_json(struct oc_sbuf *b, const struct oc_analysis *an, const struct oc_replay_report *r,
                       const struct oc_report_spec *spec) {
    json_t *doc = json_object(), *nodes = json_array();
    json_object_set_new(doc, "schema", json_string(r->results ? "onnxcost-replay/1" : "onnxcost-replay-plan/1"));
    json_object_set_new(doc, "model", oc_jstr(spec->model_path));
    struct oc_rp_peaks pk = {0};
    if (r->results && r->device) {
        json_object_set_new(doc, "device", oc_rp_jdevice(r->device));
        oc_rp_device_peaks(r->device, &pk);
        json_object_set_new(doc, "plugin", oc_jstr(r->plugin_build));
    }
    if (r->opts) {
        json_t *o = json_object();
        json_object_set_new(o, "warmup_ms", json_real(r->opts->warmup_ms));
        json_object_set_new(o, "reps", json_integer(r->opts->reps));
        json_object_set_new(o, "flush_l2", json_boolean(r->opts->flush_l2));
        json_object_set_new(o, "math", json_string(oc_rp_math_names[r->opts->math % 3]));
        json_object_set_new(o, "counters", json_boolean(r->opts->counters));
        json_object_set_new(o, "seed", json_integer((json_int_t)r->opts->seed));
        static const char *const conv_algos[OC_RP_N_CONV_FWD_ALGOS] = {OC_RP_CONV_FWD_ALGOS};
        int32_t ca = r->opts->conv_algo - 1;
        json_object_set_new(o, "conv_algo", ca >= 0 && ca < OC_RP_N_CONV_FWD_ALGOS ? json_string(conv_algos[ca])
                                                                                  : json_null());
        /* what the model was analyzed at, so that the run can be analyzed again (onnxcost tables) */
        int32_t fd = r->float_dtype;
        json_object_set_new(o, "dtype", fd == OC_DT_FLOAT16    ? json_string("fp16")
                                        : fd == OC_DT_BFLOAT16 ? json_string("bf16")
                                        : fd == OC_DT_FLOAT    ? json_string("fp32")
                                                               : json_null());
        json_t *binds = json_object();
        for (int32_t i = 0; i < an->n_bound; i++)
            if (an->bound[i].name)
                json_object_set_new(binds, an->bound[i].name, json_integer(an->bound[i].value));
        json_object_set_new(o, "bindings", binds);
        json_object_set_new(doc, "options", o);
    }
    for (int32_t i = 0; i < r->n; i++) {
        const struct oc_rp_plan *p = &r->plans[i];
        const struct oc_node *nd = &an->graph->nodes[p->node];
        json_t *o = json_object(), *est = json_object();
        json_object_set_new(o, "name", oc_jstr(p->name));
        json_object_set_new(o, "op", oc_jstr(p->op_type));
        json_object_set_new(o, "kind", json_string(oc_rp_kind_name(p->kind)));
        json_object_set_new(o, "call", json_string(oc_rp_plan_call(p)));
        json_object_set_new(est, "macs", json_integer((json_int_t)(nd->cost.macs > INT64_MAX ? INT64_MAX : nd->cost.macs)));
        json_object_set_new(est, "flops", json_integer((json_int_t)(nd->cost.flops > INT64_MAX ? INT64_MAX : nd->cost.flops)));
        json_object_set_new(est, "bytes_read", json_integer((json_int_t)(nd->cost.bytes_read > INT64_MAX ? INT64_MAX : nd->cost.bytes_read)));
        json_object_set_new(est, "bytes_written", json_integer((json_int_t)(nd->cost.bytes_written > INT64_MAX ? INT64_MAX : nd->cost.bytes_written)));
        int32_t cdt = oc_node_compute_dtype(an->graph, nd, r->float_dtype);
        json_object_set_new(est, "dtype", cdt ? json_string(oc_dtype_name(cdt)) : json_null());
        json_object_set_new(o, "estimate", est);
        if (!r->results) {
            json_object_set_new(o, "note", oc_jstr(p->reason));
            json_array_append_new(nodes, o);
            continue;
        }
        const struct oc_rp_result *res = &r->results[i];
        if (p->reason[0]) /* what the plan says of the node ("reduces nothing: run as a copy") */
            json_object_set_new(o, "note", oc_jstr(p->reason));
        json_object_set_new(o, "status", json_string(oc_rp_status_name(res->status)));
        if (res->reason[0])
            json_object_set_new(o, "reason", oc_jstr(res->reason));
        if (res->crash[0]) /* the replay worker died in this node: the signal and its frames */
            json_object_set_new(o, "crash", oc_jstr(res->crash));
        if (res->status == OC_RPS_MEASURED) {
            json_object_set_new(o, "call", oc_jstr(res->call));
            json_object_set_new(o, "algo", oc_jstr(res->algo));
            json_object_set_new(o, "replay_overhead", json_boolean(res->overhead));
            json_t *t = json_object();
            json_object_set_new(t, "median", oc_rp_jnum(res->time_median_ns));
            json_object_set_new(t, "p10", oc_rp_jnum(res->time_p10_ns));
            json_object_set_new(t, "p90", oc_rp_jnum(res->time_p90_ns));
            json_object_set_new(t, "min", oc_rp_jnum(res->time_min_ns));
            json_object_set_new(t, "reps", json_integer(res->reps));
            json_object_set_new(o, "time_ns", t);
            json_object_set_new(o, "kernels_per_rep", json_integer(res->n_kernels));
            json_object_set_new(o, "kernels", oc_jstr(res->kernels));
            if (res->has_counters) {
                struct oc_rp_derived dd;
                bool half = oc_rp_plan_half(p);
                oc_rp_derive(res, nd->cost.flops, half, &pk, &dd);
                json_t *c = json_object();
                /* flops: every counted class; model_flops: the node's own
                   arithmetic (FP16 only on 16-bit data), which the ratio uses */
                json_object_set_new(c, "flops", oc_rp_jnum(res->fp32_flops + res->fp16_flops + res->fp64_flops +
                                                           res->tensor_flops));
                json_object_set_new(c, "model_flops", oc_rp_jnum(dd.measured_flops));
                json_object_set_new(c, "fp32_flops", oc_rp_jnum(res->fp32_flops));
                json_object_set_new(c, "fp16_flops", oc_rp_jnum(res->fp16_flops));
                json_object_set_new(c, "fp64_flops", oc_rp_jnum(res->fp64_flops));
                json_object_set_new(c, "tensor_flops", oc_rp_jnum(res->tensor_flops));
                json_object_set_new(c, "dram_read_bytes", oc_rp_jnum(res->dram_read_bytes));
                json_object_set_new(c, "dram_write_bytes", oc_rp_jnum(res->dram_write_bytes));
                json_object_set_new(c, "sm_hz", oc_rp_jnum(res->sm_hz));
                json_object_set_new(o, "counters", c);
                json_t *dj = json_object();
                json_object_set_new(dj, "flops_ratio", oc_rp_jnum(dd.ratio));
                json_object_set_new(dj, "flops_per_s", oc_rp_jnum(dd.flops_per_s));
                json_object_set_new(dj, "dram_bytes_per_s", oc_rp_jnum(dd.bytes_per_s));
                json_object_set_new(dj, "pct_peak_fp32", oc_rp_jnum(dd.pct_peak_flops));
                json_object_set_new(dj, "pct_peak_dram", oc_rp_jnum(dd.pct_peak_dram));
                json_object_set_new(dj, "intensity", oc_rp_jnum(dd.intensity));
                json_object_set_new(dj, "bound", json_string(oc_rp_bound_name(dd.bound)));
                json_object_set_new(o, "derived", dj);
            }
        }
        json_array_append_new(nodes, o);
    }
    json_object_set_new(doc, "nodes", nodes);
    oc_sbuf_json(b, doc);
}

enum oc_status oc_report_replay(const struct oc_analysis *an, const struct oc_replay_report *r,
                                const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    bool md = spec->format == OC_FORMAT_MD;
    if (spec->format == OC_FORMAT_JSON) {
        oc_rp_json(&b, an, r, spec);
    } else if (spec->format == OC_FORMAT_HTML && r->results) {
        oc_rp_results_html(&b, an, r, spec->model_path ? spec->model_path : "");
    } else if (spec->format == OC_FORMAT_TEXT || md) {
        char path[512];
        oc_printable(spec->model_path ? spec->model_path : "", path, sizeof path);
        oc_sbuf_printf(&b, "%s%s: %s\n\n", md ? "## " : "", r->results ? "GPU replay" : "GPU replay plan", path);
        if (r->results)
            oc_rp_results_text(&b, an, r, md);
        else
            oc_rp_plan_text(&b, an, r, md);
    } else {
        return oc_diag_set(d, OC_ERR_USAGE, "replay reports come as text, md, json or html (html with results)");
    }
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}

/* ---- merge ------------------------------------------------------------------------- */

/* rows: the union of node names in first-seen order; -1 where a file lacks one */
enum oc_status oc_report_merge(const struct oc_rp_file *f, int32_t n, const struct oc_report_spec *spec,
                               struct oc_diag *d) {
    if (n < 1 || n > 8)
        return oc_diag_set(d, OC_ERR_USAGE, "merge takes 1 to 8 result files");
    int64_t cap = 0;
    for (int32_t k = 0; k < n; k++)
        cap += f[k].n_nodes;
    struct row {
        const char *name, *op;
        double est;
        int32_t at[8];
    } *rows = calloc((size_t)(cap ? cap : 1), sizeof *rows);
    if (!rows)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    int32_t nr = 0;
    /* names are looked up linearly: result files have thousands of nodes at most */
    for (int32_t k = 0; k < n; k++)
        for (int32_t i = 0; i < f[k].n_nodes; i++) {
            const struct oc_rp_file_node *fn = &f[k].nodes[i];
            int32_t r = 0;
            while (r < nr && strcmp(rows[r].name, fn->name) != 0)
                r++;
            if (r == nr) {
                rows[nr].name = fn->name;
                rows[nr].op = fn->op;
                rows[nr].est = fn->est_flops;
                for (int32_t j = 0; j < 8; j++)
                    rows[nr].at[j] = -1;
                nr++;
            }
            rows[r].at[k] = i;
        }
    struct oc_sbuf b = {0};
    /* totals over the nodes measured in every file, so they compare */
    double tot[8] = {0};
    int32_t n_common = 0;
    for (int32_t r = 0; r < nr; r++) {
        bool all = true;
        for (int32_t k = 0; k < n; k++)
            all = all && rows[r].at[k] >= 0 && f[k].nodes[rows[r].at[k]].measured;
        if (!all)
            continue;
        n_common++;
        for (int32_t k = 0; k < n; k++)
            tot[k] += f[k].nodes[rows[r].at[k]].time_ns;
    }
    if (spec->format == OC_FORMAT_JSON) {
        json_t *doc = json_object(), *files = json_array(), *jr = json_array();
        for (int32_t k = 0; k < n; k++) {
            json_t *o = json_object();
            json_object_set_new(o, "path", oc_jstr(f[k].path));
            json_object_set_new(o, "device", oc_jstr(f[k].device));
            json_object_set_new(o, "model", oc_jstr(f[k].model));
            json_object_set_new(o, "total_time_ns", json_real(tot[k]));
            json_array_append_new(files, o);
        }
        for (int32_t r = 0; r < nr; r++) {
            json_t *o = json_object(), *per = json_array();
            json_object_set_new(o, "name", oc_jstr(rows[r].name));
            json_object_set_new(o, "op", oc_jstr(rows[r].op));
            json_object_set_new(o, "est_flops", json_real(rows[r].est));
            for (int32_t k = 0; k < n; k++) {
                if (rows[r].at[k] < 0) {
                    json_array_append_new(per, json_null());
                    continue;
                }
                const struct oc_rp_file_node *fn = &f[k].nodes[rows[r].at[k]];
                json_t *e = json_object();
                json_object_set_new(e, "status", oc_jstr(fn->status));
                if (fn->measured)
                    json_object_set_new(e, "time_ns", json_real(fn->time_ns));
                if (fn->has_counters) {
                    json_object_set_new(e, "flops", json_real(fn->flops));
                    json_object_set_new(e, "dram_bytes", json_real(fn->dram_bytes));
                }
                json_array_append_new(per, e);
            }
            json_object_set_new(o, "devices", per);
            json_array_append_new(jr, o);
        }
        json_object_set_new(doc, "schema", json_string("onnxcost-merge/1"));
        json_object_set_new(doc, "nodes_in_totals", json_integer(n_common));
        json_object_set_new(doc, "files", files);
        json_object_set_new(doc, "nodes", jr);
        oc_sbuf_json(&b, doc);
    } else {
        bool md = spec->format == OC_FORMAT_MD;
        for (int32_t k = 0; k < n; k++) {
            char dev[160], path[512];
            oc_printable(f[k].device, dev, sizeof dev);
            oc_printable(f[k].path, path, sizeof path);
            oc_sbuf_printf(&b, "%s[%d] %s: %s\n", md ? "- " : "", k + 1, dev, path);
        }
        oc_sbuf_puts(&b, "\n");
        /* per file: time (us) and, after the first, the time ratio to the first */
        char hdr[16][16];
        struct oc_table t = {0};
        char num[48];
        static const char *const fixed[] = {"#", "Node", "Op", "Est. FLOPs"};
        oc_rp_cols(&t, fixed, 4, 1u << 1 | 1u << 2);
        for (int32_t k = 0; k < n; k++) {
            snprintf(hdr[k], sizeof hdr[k], "[%d] us", k + 1);
            oc_table_col(&t, hdr[k], hdr[k], OC_ALIGN_RIGHT);
        }
        for (int32_t k = 1; k < n; k++) {
            snprintf(hdr[8 + k], sizeof hdr[8 + k], "[1]/[%d]", k + 1);
            oc_table_col(&t, hdr[8 + k], hdr[8 + k], OC_ALIGN_RIGHT);
        }
        for (int32_t r = 0; r <= nr; r++) {
            bool total = r == nr;
            oc_table_row(&t);
            if (total) {
                oc_table_puts(&t, "");
                oc_table_cell(&t, "Total (%d nodes measured on all)", n_common);
                oc_table_puts(&t, "");
                oc_table_puts(&t, "");
            } else {
                oc_table_cell(&t, "%d", r + 1);
                oc_rp_text_cell(&t, rows[r].name);
                oc_rp_text_cell(&t, rows[r].op);
                oc_table_puts(&t, oc_fmt_thousands(rows[r].est > 0 && rows[r].est < 1.8e19 ? (uint64_t)rows[r].est : 0,
                                                   num, sizeof num));
            }
            double tk[8];
            for (int32_t k = 0; k < n; k++) {
                tk[k] = total ? tot[k]
                        : rows[r].at[k] >= 0 && f[k].nodes[rows[r].at[k]].measured ? f[k].nodes[rows[r].at[k]].time_ns
                                                                                   : 0;
                oc_rp_cellf(&t, 2, tk[k] / 1e3);
            }
            for (int32_t k = 1; k < n; k++)
                oc_rp_cellf(&t, 2, tk[0] > 0 && tk[k] > 0 ? tk[0] / tk[k] : 0);
        }
        if (md)
            oc_table_md_aligned(&b, &t);
        else
            oc_table_text(&b, &t, NULL);
        oc_table_free(&t);
        oc_sbuf_puts(&b, "\nus = microseconds (median kernel time per node); [1]/[k] > 1: device k is faster\n");
    }
    free(rows);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
