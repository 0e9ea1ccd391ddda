/*
 * llm.c — the generation view of a decoder with a KV cache (see llm.h).
 */
#include "llm.h"

#include "../analyzer/attr.h"
#include "../analyzer/dtype.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- recognition ------------------------------------------------------------------ */

/* The layer number of a cache input and its naming convention, or -1. */
static int32_t oc_llm_cache_layer(const char *name, const char **convention, bool *fixed) {
    static const struct {
        const char *prefix, *suffix[2], *convention;
        bool fixed; /* a cache of fixed length (no past dim) */
    } forms[] = {
        {"past_key_values.", {".key", ".value"}, "past_key_values.N.key/value", false},
        {"past_key_values_", {"_key", "_value"}, "past_key_values_N_key/value", false},
        {"past.", {".key", ".value"}, "past.N.key/value", false},
        {"past_key_", {"", ""}, "past_key_N/past_value_N", false},
        {"past_value_", {"", ""}, "past_key_N/past_value_N", false},
        {"past_", {"", ""}, "past_N (key and value stacked)", false},
        {"key_cache.", {"", ""}, "key_cache.N/value_cache.N", true},
        {"value_cache.", {"", ""}, "key_cache.N/value_cache.N", true},
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        size_t n = strlen(forms[f].prefix);
        if (strncmp(name, forms[f].prefix, n) != 0)
            continue;
        const char *p = name + n;
        char *end;
        long layer = strtol(p, &end, 10);
        if (end == p || layer < 0 || layer > 1000000)
            continue;
        bool ok = false;
        for (int k = 0; k < 2 && !ok; k++)
            ok = strcmp(end, forms[f].suffix[k]) == 0;
        if (!ok)
            continue;
        *convention = forms[f].convention;
        *fixed = forms[f].fixed;
        return (int32_t)layer;
    }
    return -1;
}

static const char *oc_llm_sym(const struct oc_value *v, int32_t axis) {
    return v && axis < v->rank && v->dims[axis].value < 0 ? v->dims[axis].sym : NULL;
}

static const struct oc_value *oc_llm_input(const struct oc_graph *g, const char *name) {
    for (int32_t i = 0; i < g->n_inputs; i++)
        if (strcmp(g->values[g->inputs[i]].name, name) == 0)
            return &g->values[g->inputs[i]];
    return NULL;
}

static bool oc_llm_same(const char *a, const char *b) {
    return a && b && strcmp(a, b) == 0;
}

enum oc_status oc_llm_recognise(const struct oc_analysis *an, struct oc_llm_shape *out, struct oc_diag *d) {
    const struct oc_graph *g = an->graph;
    memset(out, 0, sizeof *out);
    const struct oc_value *ids = oc_llm_input(g, "input_ids");
    if (!ids)
        ids = oc_llm_input(g, "inputs_embeds");
    const struct oc_value *first = NULL;
    bool fixed = false;
    uint64_t layers_seen[64] = {0}; /* a bit per layer number below 4096 */
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const struct oc_value *v = &g->values[g->inputs[i]];
        const char *conv;
        bool fx;
        int32_t layer = oc_llm_cache_layer(v->name, &conv, &fx);
        if (layer < 0)
            continue;
        fixed |= fx;
        if (!first) {
            first = v;
            out->convention = conv;
        }
        if (layer < 4096 && !(layers_seen[layer / 64] >> (layer % 64) & 1)) {
            layers_seen[layer / 64] |= 1ull << (layer % 64);
            out->layers++;
        }
    }
    if (!first)
        return oc_diag_set(d, OC_ERR_USAGE,
                           "not a decoder with a KV cache: no input is named like a cache (past_key_values.N.key, "
                           "past_N, past_key_N, key_cache.N); export it with past key values (docs/LLM.md)");
    if (fixed)
        return oc_diag_set(d, OC_ERR_USAGE,
                           "a KV cache of fixed length (%s) is not modelled yet: the generation view needs a cache "
                           "that grows with a symbolic past dim",
                           out->convention);
    if (!ids || ids->rank < 2)
        return oc_diag_set(d, OC_ERR_USAGE, "not a decoder: no input_ids (or inputs_embeds) of rank >= 2");
    out->batch_dim = oc_llm_sym(ids, 0);
    out->new_dim = oc_llm_sym(ids, 1);
    if (!out->batch_dim || !out->new_dim)
        return oc_diag_set(d, OC_ERR_USAGE, "input '%s' has no symbolic batch and sequence dims", ids->name);
    /* the cache's dims: batch, the past (its one other symbol), static heads
       and head size ([2, batch, heads, past, head] when key and value are stacked) */
    int32_t first_static = -1, last_static = -1;
    for (int32_t a = 0; a < first->rank; a++) {
        const char *s = oc_llm_sym(first, a);
        if (s && !oc_llm_same(s, out->batch_dim))
            out->past_dim = s;
        else if (!s && first->dims[a].value >= 0 && !(a == 0 && first->rank == 5 && first->dims[a].value == 2)) {
            if (first_static < 0)
                first_static = a;
            last_static = a;
        }
    }
    if (!out->past_dim)
        return oc_diag_set(d, OC_ERR_USAGE, "cache input '%s' has no symbolic past dim", first->name);
    if (first_static >= 0 && last_static > first_static) {
        out->kv_heads = (int32_t)first->dims[first_static].value;
        out->head_dim = (int32_t)first->dims[last_static].value;
    }
    out->kv_dtype = first->dtype;
    /* the KV figures from the cache inputs' declared shapes: every dim static
       but the batch and the past */
    uint64_t per_token_bits = 0, fixed_bits = 0;
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const struct oc_value *v = &g->values[g->inputs[i]];
        const char *conv;
        bool fx, grows = false, ok = v->rank >= 0 && oc_dtype_bits(v->dtype) > 0;
        if (oc_llm_cache_layer(v->name, &conv, &fx) < 0)
            continue;
        uint64_t bits = ok ? (uint64_t)oc_dtype_bits(v->dtype) : 0;
        for (int32_t a = 0; ok && a < v->rank; a++) {
            const char *sym = oc_llm_sym(v, a);
            if (oc_llm_same(sym, out->past_dim) && !grows)
                grows = true;
            else if (oc_llm_same(sym, out->batch_dim))
                continue;
            else
                ok = v->dims[a].value >= 0 && !oc_mul_u64(bits, (uint64_t)v->dims[a].value, &bits);
        }
        if (!ok)
            return oc_diag_set(d, OC_ERR_USAGE,
                               "cache input '%s' has a dim other than the batch (%s) and the past (%s) that is not a "
                               "number: the KV bytes per token cannot be read from it",
                               v->name, out->batch_dim, out->past_dim);
        if (grows) {
            per_token_bits += bits;
        } else {
            fixed_bits += bits;
            out->n_fixed_state++;
        }
    }
    out->kv_bytes_per_token = per_token_bits / 8;
    out->fixed_state_bytes = fixed_bits / 8;
    const struct oc_value *mask = oc_llm_input(g, "attention_mask");
    const char *total = oc_llm_sym(mask, 1);
    if (total && !oc_llm_same(total, out->new_dim) && !oc_llm_same(total, out->past_dim))
        out->total_dim = total;
    /* weights: MatMulNBits' bits, else the type of the largest initializer */
    for (int32_t i = 0; i < g->n_nodes && !out->weight_bits; i++)
        if (strcmp(g->nodes[i].op_type, "MatMulNBits") == 0) {
            int64_t bits = 4;
            struct oc_diag ad = {0};
            if (oc_attr_int(&g->nodes[i], "bits", 4, &bits, &ad) == OC_OK && bits > 0 && bits <= 64)
                out->weight_bits = (int32_t)bits;
        }
    uint64_t largest = 0;
    for (int32_t i = 0; i < g->n_inits && !out->weight_bits; i++) {
        const struct oc_value *v = &g->values[g->inits[i]];
        uint64_t b;
        if (oc_dtype_is_float(v->dtype) && oc_value_bytes(v, &b) && b > largest) {
            largest = b;
            out->weight_bits = oc_dtype_bits(v->dtype);
        }
    }
    return OC_OK;
}

/* ---- one binding ------------------------------------------------------------------ */

static bool oc_llm_is_present(const char *name) {
    return strncmp(name, "present", 7) == 0;
}

enum oc_status oc_llm_point(struct oc_analysis *an, const struct oc_llm_shape *s, int64_t batch, int64_t tokens,
                            int64_t past, const struct oc_gpu *gpu, const struct oc_perf_opts *po,
                            struct oc_llm_point *out, struct oc_diag *d) {
    struct oc_binding b[4] = {{s->batch_dim, batch}, {s->new_dim, tokens}, {s->past_dim, past}, {s->total_dim, 0}};
    int32_t nb = 3;
    if (s->total_dim)
        b[nb++] = (struct oc_binding){s->total_dim, past + tokens};
    struct oc_analyze_opts o = {.dims = b, .n_dims = nb};
    memset(out, 0, sizeof *out);
    enum oc_status st = oc_analysis_rerun(an, &o, d);
    if (st != OC_OK)
        return st;
    const struct oc_totals *t = &an->totals;
    const struct oc_graph *g = an->graph;
    out->macs = t->macs;
    out->flops = t->flops;
    out->bytes = t->bytes_read + t->bytes_written < t->bytes_read ? UINT64_MAX : t->bytes_read + t->bytes_written;
    out->exact = oc_totals_exact(t);
    out->need_exact = out->exact && t->peak_complete;
    out->need_bytes = oc_fit_need_inference(an);
    out->presents_known = true;
    for (int32_t i = 0; i < g->n_outputs; i++) {
        const struct oc_value *v = &g->values[g->outputs[i]];
        uint64_t n;
        if (!oc_llm_is_present(v->name))
            continue;
        out->n_presents++;
        if (oc_value_bytes(v, &n))
            out->kv_bytes += n;
        else
            out->presents_known = false;
    }
    if (!gpu)
        return OC_OK;
    struct oc_perf p;
    if ((st = oc_perf_estimate(an, gpu, po, &p)) != OC_OK)
        return oc_diag_set(d, st, "out of memory");
    out->timed = true;
    out->seconds = p.time;
    out->bound = 2 * p.time_memory >= p.time ? OC_BOUND_MEMORY : OC_BOUND_COMPUTE;
    oc_perf_free(&p);
    return OC_OK;
}

/* ---- the view ------------------------------------------------------------------------ */

/* Fits f = c0 + c_b·b + c_c·c + c_bc·b·c on (1, c1), (2, c1), (1, c2), (2, c2)
 * and checks it at two more points. which: 0 FLOPs, 1 bytes, 2 MACs. */
static enum oc_status oc_llm_fit(struct oc_analysis *an, const struct oc_llm_shape *s, int which,
                                 struct oc_llm_formula *f, struct oc_diag *d) {
    static const int64_t c1 = 8, c2 = 24; /* small: within any model's positions */
    static const int64_t check[2][2] = {{3, 13}, {5, 40}};
    int64_t v[2][2];
    struct oc_llm_point p;
    enum oc_status st;
    memset(f, 0, sizeof *f);
    for (int bi = 0; bi < 2; bi++)
        for (int ci = 0; ci < 2; ci++) {
            if ((st = oc_llm_point(an, s, bi + 1, 1, (ci ? c2 : c1) - 1, NULL, NULL, &p, d)) != OC_OK)
                return st == OC_ERR_NOMEM ? st : OC_OK; /* a model refusing the point: no formula */
            uint64_t x = which == 1 ? p.bytes : which == 2 ? p.macs : p.flops;
            if (!p.exact || x > (uint64_t)INT64_MAX / 4)
                return OC_OK; /* not exact or too large: no formula */
            v[bi][ci] = (int64_t)x;
        }
    int64_t db1 = v[1][0] - v[0][0], db2 = v[1][1] - v[0][1];
    if ((db2 - db1) % (c2 - c1))
        return OC_OK;
    f->c_bc = (db2 - db1) / (c2 - c1);
    f->c_b = db1 - f->c_bc * c1;
    int64_t r1 = v[0][0] - f->c_b - f->c_bc * c1, r2 = v[0][1] - f->c_b - f->c_bc * c2;
    if ((r2 - r1) % (c2 - c1))
        return OC_OK;
    f->c_c = (r2 - r1) / (c2 - c1);
    f->c0 = r1 - f->c_c * c1;
    for (int k = 0; k < 2; k++) {
        int64_t bb = check[k][0], cc = check[k][1];
        if ((st = oc_llm_point(an, s, bb, 1, cc - 1, NULL, NULL, &p, d)) != OC_OK)
            return st == OC_ERR_NOMEM ? st : OC_OK;
        uint64_t x = which == 1 ? p.bytes : which == 2 ? p.macs : p.flops;
        if ((int64_t)x != f->c0 + f->c_b * bb + f->c_c * cc + f->c_bc * bb * cc)
            return OC_OK;
    }
    f->valid = true;
    return OC_OK;
}

enum { OC_LLM_BATCH_CAP = 1 << 20 };

/* Largest batch whose decode step at `context` needs at most usable bytes. */
static enum oc_status oc_llm_max_batch(struct oc_analysis *an, const struct oc_llm_shape *s, int64_t context,
                                       uint64_t usable, int64_t *max, bool *capped, struct oc_diag *d) {
    struct oc_llm_point p;
    enum oc_status st;
    int64_t lo = 0, hi = 1; /* lo fits (0: none yet), hi is the next to try */
    *capped = false;
    for (;;) {
        if ((st = oc_llm_point(an, s, hi, 1, context - 1, NULL, NULL, &p, d)) != OC_OK)
            return st;
        if (p.need_bytes > usable)
            break;
        lo = hi;
        if (hi == OC_LLM_BATCH_CAP) {
            *capped = true;
            *max = lo;
            return OC_OK;
        }
        hi *= 2;
    }
    while (hi - lo > 1) { /* lo fits, hi does not */
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = oc_llm_point(an, s, mid, 1, context - 1, NULL, NULL, &p, d)) != OC_OK)
            return st;
        if (p.need_bytes <= usable)
            lo = mid;
        else
            hi = mid;
    }
    *max = lo;
    return OC_OK;
}

/* Smallest batch (up to limit) whose decode step is compute-bound, 0 if none. */
static enum oc_status oc_llm_crossover(struct oc_analysis *an, const struct oc_llm_opts *o, const struct oc_llm_shape *s,
                                       int64_t limit, int64_t *out, struct oc_diag *d) {
    struct oc_llm_point p;
    enum oc_status st;
    int64_t lo = 0, hi = 1; /* lo memory-bound (0: none tried), hi next to try */
    *out = 0;
    for (;;) {
        if (hi > limit)
            return OC_OK;
        if ((st = oc_llm_point(an, s, hi, 1, o->context - 1, o->gpu, &o->perf, &p, d)) != OC_OK)
            return st;
        if (p.bound == OC_BOUND_COMPUTE)
            break;
        lo = hi;
        hi = hi > limit / 2 && hi < limit ? limit : hi * 2;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((st = oc_llm_point(an, s, mid, 1, o->context - 1, o->gpu, &o->perf, &p, d)) != OC_OK)
            return st;
        if (p.bound == OC_BOUND_COMPUTE)
            hi = mid;
        else
            lo = mid;
    }
    *out = hi;
    return OC_OK;
}

static void oc_llm_warn(struct oc_llm_view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void oc_llm_warn(struct oc_llm_view *v, const char *fmt, ...) {
    if (v->n_warnings == (int32_t)(sizeof v->warnings / sizeof v->warnings[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->warnings[v->n_warnings++], sizeof v->warnings[0], fmt, ap);
    va_end(ap);
}

/* The KV figure is the cache inputs' (recognise). The present outputs are
 * checked against it at the decode step and 8 tokens further: a cache that
 * does not grow is refused as a fixed-length one; a present that holds or
 * grows by other than the inputs declare (a Cast of the cache, a Tile of
 * heads, presents that copy the pasts) is a warning naming both figures, as
 * is a header (layers x KV heads x head size x dtype x 2) that is not the
 * inputs' sum; presents without a size, or none, are said to be unchecked. */
static enum oc_status oc_llm_presents(struct oc_analysis *an, const struct oc_llm_opts *o, struct oc_llm_view *v,
                                      struct oc_diag *d) {
    const struct oc_llm_shape *s = &v->shape;
    v->kv_bytes_per_token = s->kv_bytes_per_token;
    uint64_t header = (uint64_t)s->layers * (uint64_t)s->kv_heads * (uint64_t)s->head_dim * 2 *
                      (uint64_t)oc_dtype_bits(s->kv_dtype) / 8;
    if (s->kv_heads > 0 && header != s->kv_bytes_per_token)
        oc_llm_warn(v, "the header's %d layers x %d KV heads x %d x %s x 2 = %llu bytes per token, the cache inputs "
                       "declare %llu: the figures below use the cache inputs'",
                    s->layers, s->kv_heads, s->head_dim, oc_dtype_name(s->kv_dtype), (unsigned long long)header,
                    (unsigned long long)s->kv_bytes_per_token);
    if (v->decode.n_presents == 0) {
        oc_llm_warn(v, "no output is named present*: the cache's growth is not checked against the outputs");
        return OC_OK;
    }
    if (!v->decode.presents_known) {
        oc_llm_warn(v, "the present outputs have no known size (a length taken from data?): the KV figures are "
                       "the cache inputs', unchecked");
        return OC_OK;
    }
    /* 8 tokens earlier (later for a short context, within the model's positions) */
    int64_t step = o->context > 8 ? -8 : 8;
    struct oc_llm_point other;
    enum oc_status st = oc_llm_point(an, s, o->batch, 1, o->context - 1 + step, NULL, NULL, &other, d);
    if (st == OC_ERR_NOMEM)
        return st;
    if (st != OC_OK || !other.presents_known) {
        oc_llm_warn(v, "the present outputs could not be sized at a second context: the cache's growth is not "
                       "checked against them");
        return OC_OK;
    }
    const struct oc_llm_point *lo = step < 0 ? &other : &v->decode, *hi = step < 0 ? &v->decode : &other;
    if (hi->kv_bytes == lo->kv_bytes)
        return oc_diag_set(d, OC_ERR_USAGE,
                           "the present outputs do not grow with the context (%llu bytes at contexts %lld and %lld): "
                           "a KV cache of fixed length is not modelled yet",
                           (unsigned long long)hi->kv_bytes, (long long)o->context, (long long)(o->context + step));
    v->presents_checked = true;
    v->present_growth = hi->kv_bytes > lo->kv_bytes ? (hi->kv_bytes - lo->kv_bytes) / ((uint64_t)o->batch * 8) : 0;
    uint64_t want = s->kv_bytes_per_token * (uint64_t)o->batch * (uint64_t)o->context;
    if (v->present_growth != s->kv_bytes_per_token || v->decode.kv_bytes != want) {
        oc_llm_warn(v, "the present outputs grow by %llu bytes per token and hold %llu bytes at context %lld, batch "
                       "%lld; the cache inputs declare %llu bytes per token (%llu at that context): the figures below "
                       "use the cache inputs'",
                    (unsigned long long)v->present_growth, (unsigned long long)v->decode.kv_bytes,
                    (long long)o->context, (long long)o->batch, (unsigned long long)s->kv_bytes_per_token,
                    (unsigned long long)want);
    }
    return OC_OK;
}

enum oc_status oc_llm_view(struct oc_analysis *an, const struct oc_llm_opts *o, struct oc_llm_view *v,
                           struct oc_diag *d) {
    memset(v, 0, sizeof *v);
    enum oc_status st = oc_llm_recognise(an, &v->shape, d);
    if (st != OC_OK)
        return st;
    const struct oc_llm_shape *s = &v->shape;
    if ((st = oc_llm_point(an, s, o->batch, o->prompt, 0, o->gpu, &o->perf, &v->prefill, d)) != OC_OK)
        return st;
    v->weight_bytes = an->totals.initializer_bytes;
    if ((st = oc_llm_point(an, s, o->batch, 1, o->context - 1, o->gpu, &o->perf, &v->decode, d)) != OC_OK)
        return st;
    v->need_exact = v->decode.need_exact;
    int32_t n_assumed = 0, first_assumed = -1; /* assumptions the rules made, at the decode step */
    for (int32_t k = 0; k < an->n_warnings; k++)
        if (strstr(an->warnings[k], ": assumed: ") && n_assumed++ == 0)
            first_assumed = k;
    if (n_assumed)
        oc_llm_warn(v, "%s%s", an->warnings[first_assumed],
                    n_assumed > 1 ? " (the same for the other attention nodes)" : "");
    if ((st = oc_llm_presents(an, o, v, d)) != OC_OK)
        return st;
    /* the request: the prefill gives the first token, each further token one
       decode step over a past of prompt + k - 1 */
    v->request_seconds = v->prefill.seconds;
    v->request_exact = v->prefill.exact;
    for (int64_t k = 1; k < o->generate; k++) {
        struct oc_llm_point p;
        if ((st = oc_llm_point(an, s, o->batch, 1, o->prompt + k - 1, o->gpu, &o->perf, &p, d)) != OC_OK)
            return st;
        v->request_seconds += p.seconds;
        v->request_exact = v->request_exact && p.exact;
    }
    if ((st = oc_llm_fit(an, s, 0, &v->decode_flops, d)) != OC_OK ||
        (st = oc_llm_fit(an, s, 1, &v->decode_bytes, d)) != OC_OK ||
        (st = oc_llm_fit(an, s, 2, &v->decode_macs, d)) != OC_OK)
        return st;
    /* the papers' convention: a causal prefill attends to the keys before
       each query only. The part of a token's work that grows with the
       context is the batch·context term of the decode formulas; the prefill
       counts it for S x S pairs, the causal half for S(S+1)/2. */
    if (o->causal_half && v->decode_macs.valid && v->decode_flops.valid && v->decode_macs.c_bc >= 0 &&
        v->decode_flops.c_bc >= 0) {
        uint64_t pairs = (uint64_t)o->prompt * (uint64_t)(o->prompt - 1) / 2 * (uint64_t)o->batch;
        v->causal_macs = pairs * (uint64_t)v->decode_macs.c_bc;
        v->causal_flops = pairs * (uint64_t)v->decode_flops.c_bc;
        if (v->causal_macs <= v->prefill.macs && v->causal_flops <= v->prefill.flops) {
            v->prefill.macs -= v->causal_macs;
            v->prefill.flops -= v->causal_flops;
            v->causal_applied = true;
        }
    }
    /* the decode step over contexts, for batch 1 and the asked batch (and 8 and
       64 with a GPU, where they fit) */
    static const int64_t scale[OC_LLM_CONTEXTS][2] = {{1, 8}, {1, 4}, {1, 2}, {1, 1}, {2, 1}, {4, 1}};
    for (int k = 0; k < OC_LLM_CONTEXTS; k++) {
        int64_t c = o->context * scale[k][0] / scale[k][1];
        if (c >= 1 && (v->n_contexts == 0 || c > v->contexts[v->n_contexts - 1]))
            v->contexts[v->n_contexts++] = c;
    }
    v->max_batch = -1;
    if (o->gpu) {
        uint64_t usable = oc_gpu_usable(o->gpu, o->reserve);
        if ((st = oc_llm_max_batch(an, s, o->context, usable, &v->max_batch, &v->max_batch_capped, d)) != OC_OK ||
            (st = oc_llm_crossover(an, o, s, v->max_batch > 0 ? v->max_batch : OC_LLM_BATCH_CAP, &v->crossover_batch,
                                   d)) != OC_OK)
            return st;
    }
    const int64_t want[OC_LLM_BATCHES] = {1, o->batch > 1 ? o->batch : 8, o->batch > 1 ? 8 * o->batch : 64};
    for (int k = 0; k < OC_LLM_BATCHES; k++)
        if (k == 0 || (want[k] > v->batches[v->n_batches - 1] && (v->max_batch < 0 || want[k] <= v->max_batch)))
            v->batches[v->n_batches++] = want[k];
    /* contexts past what the model takes (its position table) end the table */
    for (int ci = 0; ci < v->n_contexts; ci++)
        for (int bi = 0; bi < v->n_batches; bi++)
            if ((st = oc_llm_point(an, s, v->batches[bi], 1, v->contexts[ci] - 1, o->gpu, &o->perf, &v->sweep[bi][ci],
                                   d)) != OC_OK) {
                if (st == OC_ERR_NOMEM)
                    return st;
                v->n_contexts = ci;
                break;
            }
    return OC_OK;
}
