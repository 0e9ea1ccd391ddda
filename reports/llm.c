/*
 * llm.c — the generation view (onnxcost llm): what was recognised, the
 * prefill, one decode step with its formula in batch and context, the
 * request, the KV cache and the largest batch (text, md, json; docs/LLM.md).
 */
#include "report_impl.h"

#include "../analyzer/dtype.h"

#include <jansson.h>
#include <stdio.h>

static double oc_mib(uint64_t b) {
    return (double)b / 1048576.0;
}

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

static void oc_llm_text(struct oc_sbuf *b, const struct oc_llm_view *v, const struct oc_llm_opts *o, bool md) {
    const struct oc_llm_shape *s = &v->shape;
    char n1[48], n2[48];
    const char *bullet = md ? "- " : "  ";
    const char *ge = md ? "≥ " : ">= ";
    oc_sbuf_printf(b, "%sDecoder with a KV cache (%s)\n", md ? "### " : "", s->convention);
    oc_sbuf_printf(b, "%s%d layers, %d KV heads x %d (head size), KV cache %s, weights %d-bit\n", bullet, s->layers,
                   s->kv_heads, s->head_dim, oc_dtype_name(s->kv_dtype), s->weight_bits);
    oc_sbuf_printf(b, "%sdims: batch = %s, new tokens = %s, past = %s%s%s\n", bullet, s->batch_dim, s->new_dim,
                   s->past_dim, s->total_dim ? ", past + new = " : "", s->total_dim ? s->total_dim : "");
    if (o->gpu)
        oc_sbuf_printf(b, "%spredicted on %s (docs/MODEL.md: efficiency compute %.2f, memory %.2f)\n", bullet,
                       o->gpu->name, o->perf.eff_compute, o->perf.eff_memory);
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
        oc_sbuf_printf(b, "%stime per output token (ms): %s%.3f, %s\n", bullet, p->exact ? "" : ge, p->seconds * 1e3,
                       oc_llm_bound(p));
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
    oc_sbuf_puts(b, md ? "\n" : "");
    if (v->prefill.timed) {
        double tok = (double)o->batch * (double)o->generate;
        oc_sbuf_printf(b, "%sRequest (prompt %lld + generate %lld, batch %lld): %s%.3f ms, %.1f tokens/s\n",
                       md ? "#### " : "", (long long)o->prompt, (long long)o->generate, (long long)o->batch,
                       v->request_exact ? "" : ge, v->request_seconds * 1e3,
                       v->request_seconds > 0 ? tok / v->request_seconds : 0.0);
        oc_sbuf_puts(b, md ? "\n" : "");
    }
    oc_sbuf_printf(b, "%sKV cache and memory:\n", md ? "#### " : "");
    oc_sbuf_printf(b, "%sKV bytes per token (all layers): %s; per request at context %lld: %.2f MiB\n", bullet,
                   oc_fmt_thousands(v->kv_bytes_per_token, n1, sizeof n1), (long long)o->context,
                   oc_mib(v->kv_bytes_per_token * (uint64_t)o->context));
    oc_sbuf_printf(b, "%sweights: %.2f MiB\n", bullet, oc_mib(v->weight_bytes));
    if (v->max_batch >= 0) {
        oc_sbuf_printf(b, "%slargest batch at context %lld on %s (%.2f GiB, %.2f GiB reserve): %s%lld\n", bullet,
                       (long long)o->context, o->gpu->name, (double)o->gpu->mem_bytes / 1073741824.0,
                       (double)o->reserve / 1073741824.0, v->max_batch_capped ? ge : "", (long long)v->max_batch);
        if (v->crossover_batch > 0)
            oc_sbuf_printf(b, "%sdecode turns compute-bound from batch %lld\n", bullet, (long long)v->crossover_batch);
        else
            oc_sbuf_printf(b, "%sdecode stays memory-bound up to the largest batch\n", bullet);
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
    return o;
}

static json_t *oc_llm_jseconds(const struct oc_llm_point *p) {
    return p->timed ? json_real(p->seconds) : json_null();
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
    json_object_set_new(l, "weight_bytes", json_integer((json_int_t)v->weight_bytes));
    json_object_set_new(pre, "macs", json_integer((json_int_t)v->prefill.macs));
    json_object_set_new(pre, "flops", json_integer((json_int_t)v->prefill.flops));
    json_object_set_new(pre, "bytes", json_integer((json_int_t)v->prefill.bytes));
    json_object_set_new(pre, "seconds", oc_llm_jseconds(&v->prefill));
    json_object_set_new(pre, "complete", json_boolean(v->prefill.exact));
    json_object_set_new(l, "prefill", pre);
    json_object_set_new(dec, "macs", json_integer((json_int_t)v->decode.macs));
    json_object_set_new(dec, "flops", json_integer((json_int_t)v->decode.flops));
    json_object_set_new(dec, "bytes", json_integer((json_int_t)v->decode.bytes));
    json_object_set_new(dec, "flops_per_token", json_integer((json_int_t)(v->decode.flops / (uint64_t)o->batch)));
    json_object_set_new(dec, "bytes_per_token", json_integer((json_int_t)(v->decode.bytes / (uint64_t)o->batch)));
    json_object_set_new(dec, "seconds_per_token", oc_llm_jseconds(&v->decode));
    json_object_set_new(dec, "complete", json_boolean(v->decode.exact));
    json_object_set_new(dec, "flops_formula", oc_llm_jformula(&v->decode_flops));
    json_object_set_new(dec, "bytes_formula", oc_llm_jformula(&v->decode_bytes));
    json_object_set_new(l, "decode", dec);
    json_object_set_new(l, "request_seconds", v->prefill.timed ? json_real(v->request_seconds) : json_null());
    json_object_set_new(l, "max_batch", v->max_batch >= 0 ? json_integer(v->max_batch) : json_null());
    json_object_set_new(l, "max_batch_capped", json_boolean(v->max_batch_capped));
    json_object_set_new(l, "crossover_batch", v->crossover_batch > 0 ? json_integer(v->crossover_batch) : json_null());
    if (o->gpu)
        json_object_set_new(l, "gpu", json_string(o->gpu->id));
    json_object_set_new(doc, "llm", l);
    oc_sbuf_json(b, doc);
}

enum oc_status oc_report_llm(const struct oc_llm_view *v, const struct oc_llm_opts *o,
                             const struct oc_report_spec *spec, struct oc_diag *d) {
    struct oc_sbuf b = {0};
    if (spec->format == OC_FORMAT_JSON)
        oc_llm_json(&b, v, o, spec->model_path);
    else
        oc_llm_text(&b, v, o, spec->format == OC_FORMAT_MD);
    enum oc_status st = oc_sbuf_flush(&b, spec, d);
    oc_sbuf_free(&b);
    return st;
}
