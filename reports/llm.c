/*
 * llm.c — the generation view (onnxcost llm): what was recognised, the
 * prefill, one decode step with its formula in batch and context, the
 * request, the KV cache and the largest batch (text, md, json; docs/LLM.md).
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

/* "1,234 + 56·batch·context" from the terms that are not 0 */
static void oc_llm_formula_text(struct oc_sbuf *b, const struct oc_llm_formula *f) {
    const int64_t c[4] = {f->c0, f->c_b, f->c_c, f->c_bc};
    static const char *const sym[4] = {"", "·batch", "·context", "·batch·context"};
    bool any = false;
    for (int k = 0; k < 4; k++) {
        if (!c[k])
            continue;
        char num[48];
        uint64_t m = (uint64_t)(c[k] < 0 ? -c[k] : c[k]);
        oc_sbuf_puts(b, any ? (c[k] < 0 ? " - " : " + ") : c[k] < 0 ? "-" : "");
        oc_sbuf_puts(b, oc_fmt_thousands(m, num, sizeof num));
        oc_sbuf_puts(b, sym[k]);
        any = true;
    }
    if (!any)
        oc_sbuf_puts(b, "0");
}

static const char *oc_llm_bound(const struct oc_llm_point *p) {
    return p->bound == OC_BOUND_MEMORY ? "memory-bound" : "compute-bound";
}

/* The decode step over contexts, one row per (batch, context). */
static void oc_llm_table(struct oc_sbuf *b, const struct oc_llm_view *v, bool md) {
    struct oc_table t = {0};
    bool timed = v->sweep[0][0].timed;
    char num[48];
    static const struct oc_table_col cols[] = {
        {"Batch", "batch", OC_ALIGN_RIGHT},          {"Context", "context", OC_ALIGN_RIGHT},
        {"FLOPs/token", "flops_per_token", OC_ALIGN_RIGHT}, {"Bytes/token", "bytes_per_token", OC_ALIGN_RIGHT},
        {"ms/step", "seconds_per_token", OC_ALIGN_RIGHT}, {"Bound", "bound", OC_ALIGN_LEFT},
    };
    oc_table_cols(&t, cols, timed ? 6 : 4);
    for (int bi = 0; bi < v->n_batches; bi++)
        for (int ci = 0; ci < v->n_contexts; ci++) {
            const struct oc_llm_point *p = &v->sweep[bi][ci];
            uint64_t bt = (uint64_t)v->batches[bi];
            const char *lb = p->exact ? "" : md ? "≥ " : ">= ";
            oc_table_row(&t);
            oc_table_cell(&t, "%lld", (long long)v->batches[bi]);
            oc_table_cell(&t, "%lld", (long long)v->contexts[ci]);
            oc_table_cell(&t, "%s%s", lb, oc_fmt_thousands(p->flops / bt, num, sizeof num));
            oc_table_cell(&t, "%s%s", lb, oc_fmt_thousands(p->bytes / bt, num, sizeof num));
            if (timed) {
                oc_table_cell(&t, "%s%.3f", lb, p->seconds * 1e3);
                oc_table_puts(&t, p->bound == OC_BOUND_MEMORY ? "memory" : "compute");
            }
        }
    if (md)
        oc_table_md(b, &t);
    else
        oc_table_text(b, &t, &(struct oc_text_style){.indent = "  "});
    oc_table_free(&t);
}

static void oc_llm_text(struct oc_sbuf *b, const struct oc_llm_view *v, const struct oc_llm_opts *o, bool md) {
    const struct oc_llm_shape *s = &v->shape;
    char n1[48], n2[48];
    const char *bullet = md ? "- " : "  ";
    const char *ge = md ? "≥ " : ">= ", *le = md ? "≤ " : "<= ";
    oc_sbuf_printf(b, "%sDecoder with a KV cache (%s)\n", md ? "### " : "", s->convention);
    oc_sbuf_printf(b, "%s%d layers, %d KV heads x %d (head size), KV cache %s, weights %d-bit\n", bullet, s->layers,
                   s->kv_heads, s->head_dim, oc_dtype_name(s->kv_dtype), s->weight_bits);
    oc_sbuf_printf(b, "%sdims: batch = %s, new tokens = %s, past = %s%s%s\n", bullet, s->batch_dim, s->new_dim,
                   s->past_dim, s->total_dim ? ", past + new = " : "", s->total_dim ? s->total_dim : "");
    if (o->gpu) {
        oc_sbuf_printf(b, "%spredicted on %s (docs/MODEL.md: ", bullet, o->gpu->name);
        oc_perf_efficiency_text(b, &o->perf);
        oc_sbuf_printf(b, "; runtime %s)\n", oc_runtime_name(o->perf.runtime));
    }
    oc_sbuf_puts(b, md ? "\n" : "");
    oc_sbuf_printf(b, "%sPrefill (batch %lld, prompt %lld tokens):\n", md ? "#### " : "", (long long)o->batch,
                   (long long)o->prompt);
    const struct oc_llm_point *p = &v->prefill;
    oc_sbuf_printf(b, "%sFLOPs %s%s, bytes moved %s%s (MiB %.2f)\n", bullet, p->exact ? "" : ge,
                   oc_fmt_thousands(p->flops, n1, sizeof n1), p->exact ? "" : ge,
                   oc_fmt_thousands(p->bytes, n2, sizeof n2), oc_mib(p->bytes));
    if (p->timed)
        oc_sbuf_printf(b, "%stime to first token (ms): %s%.3f, %s\n", bullet, p->exact ? "" : ge, p->seconds * 1e3,
                       oc_llm_bound(p));
    if (v->causal_applied)
        oc_sbuf_printf(b, "%sattention counted over the causal half (--causal half): %s MACs and %s FLOPs less than "
                          "the graph computes; the time is the graph's\n",
                       bullet, oc_fmt_thousands(v->causal_macs, n1, sizeof n1),
                       oc_fmt_thousands(v->causal_flops, n2, sizeof n2));
    else if (o->causal_half)
        oc_sbuf_printf(b, "%s--causal half not applied: the decode step has no fitted formula to take the attention "
                          "part from\n",
                       bullet);
    oc_sbuf_puts(b, md ? "\n" : "");
    oc_sbuf_printf(b, "%sDecode step at context %lld (batch %lld, one new token each):\n", md ? "#### " : "",
                   (long long)o->context, (long long)o->batch);
    p = &v->decode;
    char n3[48];
    oc_sbuf_printf(b, "%sFLOPs %s%s (%s per token), bytes moved %s%s (MiB %.2f)\n", bullet, p->exact ? "" : ge,
                   oc_fmt_thousands(p->flops, n1, sizeof n1),
                   oc_fmt_thousands(p->flops / (uint64_t)o->batch, n2, sizeof n2), p->exact ? "" : ge,
                   oc_fmt_thousands(p->bytes, n3, sizeof n3), oc_mib(p->bytes));
    if (p->timed)
        oc_sbuf_printf(b, "%stime per output token (ms): %s%.3f, the step: each of the %lld sequences' next token, "
                          "%s\n",
                       bullet, p->exact ? "" : ge, p->seconds * 1e3, (long long)o->batch, oc_llm_bound(p));
    oc_sbuf_printf(b, "%sFLOPs per step = ", bullet);
    if (v->decode_flops.valid)
        oc_llm_formula_text(b, &v->decode_flops);
    else
        oc_sbuf_puts(b, "(no formula of the form a + b·batch + c·context + d·batch·context)");
    oc_sbuf_printf(b, "\n%sbytes moved per step = ", bullet);
    if (v->decode_bytes.valid)
        oc_llm_formula_text(b, &v->decode_bytes);
    else
        oc_sbuf_puts(b, "(no formula of the form a + b·batch + c·context + d·batch·context)");
    oc_sbuf_puts(b, "\n");
    if (v->decode_flops.valid || v->decode_bytes.valid)
        oc_sbuf_printf(b, "%s(formulas fitted to the analyses at 4 bindings and checked at 2 more, not proven "
                          "between them; each figure above is the graph's own analysis)\n",
                       bullet);
    oc_sbuf_puts(b, md ? "\n" : "");
    oc_sbuf_printf(b, "%s/token: the step's figures over its tokens, one per sequence of the batch%s\n", bullet,
                   v->sweep[0][0].timed ? "; ms/step: the step's time, each sequence's time per output token" : "");
    oc_llm_table(b, v, md);
    oc_sbuf_puts(b, md ? "\n" : "");
    if (v->prefill.timed) {
        double tok = (double)o->batch * (double)o->generate;
        oc_sbuf_printf(b, "%sRequest (prompt %lld + generate %lld, batch %lld): %s%.3f ms, ", md ? "#### " : "",
                       (long long)o->prompt, (long long)o->generate, (long long)o->batch, v->request_exact ? "" : ge,
                       v->request_seconds * 1e3);
        if (v->request_seconds > 0) /* from a lower-bound time: at most this */
            oc_sbuf_printf(b, "%s%.1f tokens/s\n", v->request_exact ? "" : le, tok / v->request_seconds);
        else
            oc_sbuf_puts(b, "tokens/s unknown (no node has a time)\n");
        oc_sbuf_puts(b, md ? "\n" : "");
    }
    oc_sbuf_printf(b, "%sKV cache and memory:\n", md ? "#### " : "");
    oc_sbuf_printf(b, "%sKV bytes per token (all layers): %s, from the cache inputs' shapes (%s); per request at "
                      "context %lld: %.2f MiB\n",
                   bullet, oc_fmt_thousands(v->kv_bytes_per_token, n1, sizeof n1),
                   !v->presents_checked ? "the present outputs unchecked"
                   : v->present_growth == v->kv_bytes_per_token ? "the present outputs agree"
                                                                : "the present outputs disagree",
                   (long long)o->context, oc_mib(v->kv_bytes_per_token * (uint64_t)o->context));
    if (s->n_fixed_state)
        oc_sbuf_printf(b, "%splus %s bytes per sequence of fixed-size state (%d cache inputs without the past dim)\n",
                       bullet, oc_fmt_thousands(s->fixed_state_bytes, n1, sizeof n1), s->n_fixed_state);
    for (int32_t k = 0; k < v->n_warnings; k++)
        oc_sbuf_printf(b, md ? "\n> **Warning:** %s\n\n" : "WARNING: %s\n", v->warnings[k]);
    oc_sbuf_printf(b, "%sweights: %.2f MiB\n", bullet, oc_mib(v->weight_bytes));
    if (v->max_batch >= 0) {
        oc_sbuf_printf(b, "%slargest batch at context %lld on %s (%.2f GiB, %.2f GiB reserve): %s%lld\n", bullet,
                       (long long)o->context, o->gpu->name, (double)o->gpu->mem_bytes / 1073741824.0,
                       (double)o->reserve / 1073741824.0,
                       v->max_batch_capped ? (v->need_exact ? ge : "~ ") : v->need_exact ? "" : le,
                       (long long)v->max_batch);
        const char *from_lb = v->decode.exact ? "" : " (from lower-bound costs)";
        if (v->crossover_batch > 0)
            oc_sbuf_printf(b, "%sdecode turns compute-bound from batch %lld%s\n", bullet, (long long)v->crossover_batch,
                           from_lb);
        else
            oc_sbuf_printf(b, "%sdecode stays memory-bound up to the largest batch%s\n", bullet, from_lb);
    }
    if (!v->prefill.exact || !v->decode.exact)
        oc_sbuf_puts(b, md ? "\n> **Incomplete:** some nodes have no cost; values marked ≥ are lower bounds.\n"
                           : "WARNING: some nodes have no cost; values marked >= are lower bounds\n");
}

static json_t *oc_llm_jformula(const struct oc_llm_formula *f) {
    if (!f->valid)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "constant", json_integer(f->c0));
    json_object_set_new(o, "batch", json_integer(f->c_b));
    json_object_set_new(o, "context", json_integer(f->c_c));
    json_object_set_new(o, "batch_context", json_integer(f->c_bc));
    /* fitted to 4 analyses, checked at 2 more: not proven between them */
    json_object_set_new(o, "method", json_string("fitted"));
    return o;
}

static json_t *oc_llm_jseconds(const struct oc_llm_point *p) {
    return p->timed ? json_real(p->seconds) : json_null();
}

/* "memory" or "compute" (the text's Bound), null without --gpu */
static json_t *oc_llm_jbound(const struct oc_llm_point *p) {
    return p->timed ? json_string(p->bound == OC_BOUND_MEMORY ? "memory" : "compute") : json_null();
}

static void oc_llm_json(struct oc_sbuf *b, const struct oc_llm_view *v, const struct oc_llm_opts *o,
                        const char *path) {
    const struct oc_llm_shape *s = &v->shape;
    json_t *doc = json_object(), *l = json_object(), *pre = json_object(), *dec = json_object();
    json_object_set_new(doc, "schema", json_string("onnxcost-llm/1"));
    json_object_set_new(doc, "model", oc_jstr(path ? path : ""));
    json_object_set_new(l, "convention", json_string(s->convention));
    json_object_set_new(l, "layers", json_integer(s->layers));
    json_object_set_new(l, "kv_heads", json_integer(s->kv_heads));
    json_object_set_new(l, "head_dim", json_integer(s->head_dim));
    json_object_set_new(l, "kv_dtype", json_string(oc_dtype_name(s->kv_dtype)));
    json_object_set_new(l, "weight_bits", json_integer(s->weight_bits));
    json_object_set_new(l, "batch", json_integer(o->batch));
    json_object_set_new(l, "prompt", json_integer(o->prompt));
    json_object_set_new(l, "generate", json_integer(o->generate));
    json_object_set_new(l, "context", json_integer(o->context));
    json_object_set_new(l, "kv_bytes_per_token", json_integer((json_int_t)v->kv_bytes_per_token));
    json_object_set_new(l, "kv_source", json_string("cache_inputs"));
    json_object_set_new(l, "present_growth_per_token",
                        v->presents_checked ? json_integer((json_int_t)v->present_growth) : json_null());
    json_object_set_new(l, "fixed_state_bytes", json_integer((json_int_t)s->fixed_state_bytes));
    json_t *warns = json_array();
    for (int32_t k = 0; k < v->n_warnings; k++)
        json_array_append_new(warns, json_string(v->warnings[k]));
    json_object_set_new(l, "warnings", warns);
    json_object_set_new(l, "weight_bytes", json_integer((json_int_t)v->weight_bytes));
    json_object_set_new(pre, "macs", json_integer((json_int_t)v->prefill.macs));
    json_object_set_new(pre, "flops", json_integer((json_int_t)v->prefill.flops));
    json_object_set_new(pre, "bytes", json_integer((json_int_t)v->prefill.bytes));
    json_object_set_new(pre, "seconds", oc_llm_jseconds(&v->prefill));
    json_object_set_new(pre, "bound", oc_llm_jbound(&v->prefill));
    json_object_set_new(pre, "complete", json_boolean(v->prefill.exact));
    json_object_set_new(pre, "attention", json_string(v->causal_applied ? "causal_half" : "full"));
    json_object_set_new(l, "prefill", pre);
    json_object_set_new(dec, "macs", json_integer((json_int_t)v->decode.macs));
    json_object_set_new(dec, "flops", json_integer((json_int_t)v->decode.flops));
    json_object_set_new(dec, "bytes", json_integer((json_int_t)v->decode.bytes));
    json_object_set_new(dec, "flops_per_token", json_integer((json_int_t)(v->decode.flops / (uint64_t)o->batch)));
    json_object_set_new(dec, "bytes_per_token", json_integer((json_int_t)(v->decode.bytes / (uint64_t)o->batch)));
    json_object_set_new(dec, "seconds_per_token", oc_llm_jseconds(&v->decode));
    json_object_set_new(dec, "bound", oc_llm_jbound(&v->decode));
    json_object_set_new(dec, "complete", json_boolean(v->decode.exact));
    json_object_set_new(dec, "need_bytes", json_integer((json_int_t)v->decode.need_bytes)); /* what --fit weighs */
    json_object_set_new(dec, "need_exact", json_boolean(v->decode.need_exact));
    json_object_set_new(dec, "flops_formula", oc_llm_jformula(&v->decode_flops));
    json_object_set_new(dec, "bytes_formula", oc_llm_jformula(&v->decode_bytes));
    json_object_set_new(dec, "macs_formula", oc_llm_jformula(&v->decode_macs));
    json_object_set_new(l, "decode", dec);
    json_object_set_new(l, "request_seconds", v->prefill.timed ? json_real(v->request_seconds) : json_null());
    json_object_set_new(l, "request_complete", json_boolean(v->request_exact));
    json_object_set_new(l, "max_batch", v->max_batch >= 0 ? json_integer(v->max_batch) : json_null());
    json_object_set_new(l, "max_batch_capped", json_boolean(v->max_batch_capped));
    json_object_set_new(l, "need_exact", json_boolean(v->need_exact)); /* false: max_batch is at most that */
    json_object_set_new(l, "crossover_batch", v->crossover_batch > 0 ? json_integer(v->crossover_batch) : json_null());
    if (o->gpu)
        json_object_set_new(l, "gpu", json_string(o->gpu->id));
    json_t *rows = json_array();
    for (int bi = 0; bi < v->n_batches; bi++)
        for (int ci = 0; ci < v->n_contexts; ci++) {
            const struct oc_llm_point *p = &v->sweep[bi][ci];
            json_t *r = json_object();
            json_object_set_new(r, "batch", json_integer(v->batches[bi]));
            json_object_set_new(r, "context", json_integer(v->contexts[ci]));
            json_object_set_new(r, "flops", json_integer((json_int_t)p->flops));
            json_object_set_new(r, "bytes", json_integer((json_int_t)p->bytes));
            json_object_set_new(r, "seconds", oc_llm_jseconds(p));
            json_object_set_new(r, "bound", oc_llm_jbound(p));
            json_object_set_new(r, "complete", json_boolean(p->exact));
            json_array_append_new(rows, r);
        }
    json_object_set_new(l, "decode_table", rows);
    json_object_set_new(doc, "llm", l);
    oc_sbuf_json(b, doc);
}

/* HTML: the text report in a page, the table, and a chart of the time per
 * token against the context (log-log), one line per batch. */
static void oc_llm_html(struct oc_sbuf *b, const struct oc_llm_view *v, const struct oc_llm_opts *o,
                        const char *path) {
    oc_html_open(b, "onnxcost llm", "Generation view", path);
    struct oc_sbuf text = {0};
    oc_llm_text(&text, v, o, false);
    oc_sbuf_put(&text, "", 1);
    oc_html_pre(b, text.oom ? "" : text.p);
    if (text.oom)
        b->oom = true;
    oc_sbuf_free(&text);
    if (v->sweep[0][0].timed && v->n_contexts > 1) {
        static const char *const color[OC_LLM_BATCHES] = {"#4e79a7", "#f28e2b", "#59a14f"};
        double tmin = 1e300, tmax = 0;
        for (int bi = 0; bi < v->n_batches; bi++)
            for (int ci = 0; ci < v->n_contexts; ci++) {
                double t = v->sweep[bi][ci].seconds;
                tmin = t > 0 && t < tmin ? t : tmin;
                tmax = t > tmax ? t : tmax;
            }
        if (tmax > 0) {
            struct oc_loglog ll = {.x0 = floor(log10((double)v->contexts[0])),
                                   .x1 = ceil(log10((double)v->contexts[v->n_contexts - 1])),
                                   .y0 = floor(log10(tmin)), .y1 = ceil(log10(tmax))};
            if (ll.x1 <= ll.x0)
                ll.x1 = ll.x0 + 1;
            if (ll.y1 <= ll.y0)
                ll.y1 = ll.y0 + 1;
            oc_sbuf_puts(b, "<h2>Predicted time per output token (s) against the context (tokens), log-log</h2>\n");
            oc_ll_open(b);
            for (int bi = 0; bi < v->n_batches; bi++) {
                oc_sbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color[bi]);
                for (int ci = 0; ci < v->n_contexts; ci++)
                    oc_sbuf_printf(b, "%s%.1f,%.1f", ci ? " " : "", oc_ll_x(&ll, (double)v->contexts[ci]),
                                   oc_ll_y(&ll, v->sweep[bi][ci].seconds));
                oc_sbuf_printf(b, "\"><title>batch %lld</title></polyline>", (long long)v->batches[bi]);
                oc_sbuf_printf(b, "<text x=\"665\" y=\"%.1f\" fill=\"%s\">batch %lld</text>",
                               oc_ll_y(&ll, v->sweep[bi][v->n_contexts - 1].seconds) + 4, color[bi],
                               (long long)v->batches[bi]);
            }
            oc_ll_ticks(b, &ll);
            oc_sbuf_puts(b, "\n</svg>\n");
        }
    }
    oc_sbuf_puts(b, "<p>Generated by onnxcost; how each figure is computed: docs/LLM.md.</p>\n</body></html>\n");
}

enum oc_status oc_report_llm(const struct oc_llm_view *v, const struct oc_llm_opts *o,
                             const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON)
        oc_llm_json(&b, v, o, spec->model_path);
    else if (spec->format == OC_FORMAT_HTML)
        oc_llm_html(&b, v, o, spec->model_path);
    else
        oc_llm_text(&b, v, o, spec->format == OC_FORMAT_MD);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
