/*
 * lint.c — the lint rules (see lint.h): one row and one function each.
 */
#include "lint.h"
#include "training.h"

#include "../analyzer/attr.h"
#include "../analyzer/memory.h"
#include "../analyzer/dtype.h"
#include "../analyzer/model.h"
#include "../analyzer/ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

const struct oc_lint_rule oc_lint_rules[OC_LINT_RULES] = {
    [OC_LINT_DUPLICATE] = {"weights/duplicate", OC_LINT_WARNING,
                           "an initializer byte-identical to an earlier one",
                           "the file stores, and the runtime loads and keeps, the same weights twice"},
    [OC_LINT_DUPLICATE_TRANSPOSED] = {"weights/duplicate-transposed", OC_LINT_WARNING,
                                      "a 2-D initializer that is an earlier one transposed",
                                      "a tied embedding and output head stored twice: one copy and a "
                                      "transposed read (MatMul/Gemm transB) serve both"},
    [OC_LINT_UNUSED_INITIALIZER] = {"graph/unused-initializer", OC_LINT_WARNING, "an initializer no node reads",
                                    "its bytes are stored and loaded for nothing"},
    [OC_LINT_UNUSED_INPUT] = {"graph/unused-input", OC_LINT_NOTE, "a graph input no node reads",
                              "callers must feed, and copy, a tensor nothing uses"},
    [OC_LINT_DEAD_NODE] = {"graph/dead-node", OC_LINT_WARNING, "nodes none of whose outputs reaches a graph output",
                           "they run on every inference (unless the runtime prunes them) for nothing"},
    [OC_LINT_CONSTANT_FOLDABLE] = {"graph/constant-foldable", OC_LINT_NOTE,
                                   "nodes computed from weights and constants only",
                                   "their result is the same on every run: folded at export (onnxsim, ONNX "
                                   "Runtime's constant folding) they cost nothing per run"},
    [OC_LINT_NO_OP] = {"graph/no-op", OC_LINT_WARNING, "nodes that return their input unchanged",
                       "a node to load and run (a copy, for Transpose, Pad, Slice, Expand) that changes nothing"},
    [OC_LINT_CANCELLING] = {"graph/cancelling-pair", OC_LINT_WARNING,
                            "a Transpose undone by the next, a Cast to a wider type and back, or a Reshape and one "
                            "back",
                            "two nodes, each a pass over the tensor, whose result is their input"},
    [OC_LINT_FOLD_INTO_WEIGHTS] = {"fusion/fold-into-weights", OC_LINT_WARNING,
                                   "a BatchNormalization, or a Mul or Add by a per-channel constant, right after "
                                   "the Conv, Gemm or MatMul it folds into",
                                   "a pass over the contraction's output, and its parameters, that new weights "
                                   "(and a bias) make unnecessary"},
    [OC_LINT_UNFUSED_ATTENTION] = {"fusion/unfused-attention", OC_LINT_WARNING,
                                   "attention written out as MatMul, scale, mask, Softmax, MatMul",
                                   "the score matrix, batch x heads x queries x keys, is written and read several "
                                   "times; a fused attention kernel keeps it on chip"},
    [OC_LINT_TC_ALIGNMENT] = {"perf/tensor-core-alignment", OC_LINT_WARNING,
                               "a contraction on tensor cores whose dims are not multiples of the tile",
                               "tensor cores work in tiles of 8 (16-bit), 16 (8-bit) or 4 (TF32) along each dim: the "
                               "rest of the last tile is computed for nothing, and libraries may fall back to "
                               "slower kernels"},
    [OC_LINT_CAST_WEIGHTS] = {"precision/cast-weights", OC_LINT_WARNING,
                               "float weights stored wider than the compute that reads them",
                               "each run casts the same weights again; stored narrow, the file and the load halve"},
    [OC_LINT_NARROWER_WEIGHTS] = {"precision/narrower-weights", OC_LINT_NOTE,
                                  "float32 weights, and what float16 or int8 storage would save",
                                  "weight bytes are load time, memory and, for small batches, most of the bytes "
                                  "each run reads"},
    [OC_LINT_PEAK] = {"memory/peak", OC_LINT_NOTE, "the tensors live when the peak activation memory is reached",
                      "they set what the runtime must hold at once: where to look first to lower it", true},
    [OC_LINT_PEAK_ORDER] = {"memory/peak-order", OC_LINT_WARNING,
                            "another order of the independent branches that lowers the peak activation memory",
                            "the graph's order makes independent branches' tensors live at once"},
    [OC_LINT_OLD_OPSET] = {"model/old-opset", OC_LINT_NOTE, "a default-domain opset below 13",
                           "runtimes match their fusions against recent op versions"},
    [OC_LINT_NO_COST] = {"coverage/no-cost", OC_LINT_ERROR,
                         "a node without a cost: no rule for its op, or a shape or value it needs is not known",
                         "the totals are lower bounds: every figure, budget and prediction misses it"},
};

static const char *const oc_level_names[OC_LINT_LEVELS] = {"note", "warning", "error"};

const char *oc_lint_level_name(enum oc_lint_level l) {
    return (unsigned)l < OC_LINT_LEVELS ? oc_level_names[l] : "?";
}

bool oc_lint_level_parse(const char *s, enum oc_lint_level *out) {
    for (int l = 0; l < OC_LINT_LEVELS; l++)
        if (strcmp(s, oc_level_names[l]) == 0) {
            *out = (enum oc_lint_level)l;
            return true;
        }
    return false;
}

void oc_lint_defaults(struct oc_lint_opts *o) {
    memset(o, 0, sizeof *o);
    for (int r = 0; r < OC_LINT_RULES; r++)
        o->enabled[r] = !oc_lint_rules[r].off;
    o->min_dup_bytes = 1024;
}

bool oc_lint_select(struct oc_lint_opts *o, const char *sel, bool on) {
    bool any = false;
    size_t n = strlen(sel);
    for (int r = 0; r < OC_LINT_RULES; r++) {
        const char *id = oc_lint_rules[r].id;
        if (strcmp(id, sel) == 0 || (n && strncmp(id, sel, n) == 0 && id[n] == '/')) {
            o->enabled[r] = on;
            any = true;
        }
    }
    return any;
}

/* ---- the run ---------------------------------------------------------------------- */

struct oc_lint_ctx {
    const struct oc_model *m;
    const struct oc_analysis *an;
    const struct oc_graph *g;
    const struct oc_lint_opts *o;
    struct oc_lint_result *out;
    int32_t cap;
    bool *implicit_read; /* per value: read by a subgraph of a main-graph node */
    bool *live;          /* per node: an output reaches a graph output        */
    bool *needed;        /* per value: read on the way to a graph output      */
    bool *biased;        /* per node: a contraction given a bias by a fold    */
    bool *removed;       /* per value: a weight a finding already removes or
                            shrinks: no other finding counts it again       */
    bool *folded;        /* per node: in a graph/constant-foldable region     */
    int32_t *rstart;     /* readers of each value: radj[rstart[v] .. rstart[v + 1]),
                            a node once per read (inputs and subgraph reads) */
    int32_t *radj;
    struct oc_diag *d;
};

static struct oc_lint_finding *oc_lint_add(struct oc_lint_ctx *c, enum oc_lint_rule_id rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static struct oc_lint_finding *oc_lint_add(struct oc_lint_ctx *c, enum oc_lint_rule_id rule, const char *fmt, ...) {
    struct oc_lint_result *r = c->out;
    if (r->n_findings == c->cap) {
        int32_t cap = c->cap ? 2 * c->cap : 16;
        struct oc_lint_finding *f = realloc(r->findings, (size_t)cap * sizeof *f);
        if (!f)
            return NULL;
        r->findings = f;
        c->cap = cap;
    }
    struct oc_lint_finding *f = &r->findings[r->n_findings++];
    memset(f, 0, sizeof *f);
    f->rule = rule;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return f;
}

/* Appends x to the array *a of *n entries; false when out of memory. */
static bool oc_lint_append(int32_t **a, int32_t *n, int32_t x) {
    int32_t *p = realloc(*a, ((size_t)*n + 1) * sizeof *p);
    if (!p)
        return false;
    *a = p;
    p[(*n)++] = x;
    return true;
}

/* Records value v, or node i, in f; false when out of memory. */
static bool oc_lint_value(struct oc_lint_finding *f, int32_t v) {
    return oc_lint_append(&f->values, &f->n_values, v);
}

static bool oc_lint_node(struct oc_lint_finding *f, int32_t i) {
    return oc_lint_append(&f->nodes, &f->n_nodes, i);
}

/* Bytes (priced as --dtype prices the model, as its Params size is) and
   float elements of an initializer. */
static void oc_weight_size(const struct oc_graph *g, const struct oc_value *v, int64_t *bytes, int64_t *params) {
    uint64_t b = 0, n = 0;
    *bytes = oc_value_bytes_priced(g, v, &b) && b <= INT64_MAX ? (int64_t)b : 0;
    *params = oc_dtype_is_float(v->dtype) && oc_value_numel(v, &n) && n <= INT64_MAX ? (int64_t)n : 0;
}

/* Sums that stop at the ends of their type (counts from a hostile file's
   dims can be near them). */
static void oc_sat_u64(uint64_t *a, uint64_t b) {
    *a = *a > UINT64_MAX - b ? UINT64_MAX : *a + b;
}

static void oc_sat_i64(int64_t *a, int64_t b) {
    if (b > 0 && *a > INT64_MAX - b)
        *a = INT64_MAX;
    else if (b < 0 && *a < INT64_MIN - b)
        *a = INT64_MIN;
    else
        *a += b;
}

/* Weight v's bytes and parameters, with sign (+1 removed, -1 added), into
   f's saving. A weight removed is counted once over all findings: false
   (nothing added) when another finding has it already. */
static bool oc_saving_weight(struct oc_lint_ctx *c, struct oc_lint_finding *f, int32_t v, int sign) {
    if (sign > 0 && c->removed[v])
        return false;
    int64_t bytes, params;
    oc_weight_size(c->g, &c->g->values[v], &bytes, &params);
    oc_sat_i64(&f->saving.weight_bytes, sign > 0 ? bytes : -bytes);
    oc_sat_i64(&f->saving.params, sign > 0 ? params : -params);
    if (sign > 0)
        c->removed[v] = true;
    return true;
}

/* A node's cost as what removing it saves. */
static void oc_node_saving(const struct oc_lint_ctx *c, int32_t i, struct oc_lint_saving *s) {
    const struct oc_node *n = &c->g->nodes[i];
    if (n->cost.flags & OC_COST_UNKNOWN)
        return;
    oc_sat_u64(&s->macs, n->cost.macs);
    oc_sat_u64(&s->flops, n->cost.flops);
    oc_sat_u64(&s->bytes_moved, n->cost.bytes_read);
    oc_sat_u64(&s->bytes_moved, n->cost.bytes_written);
    if (c->o->perf && i < c->o->perf->n_nodes && c->o->perf->nodes[i].known)
        s->time_s += c->o->perf->nodes[i].time;
}

static const char *oc_vname(const struct oc_value *v) {
    return v->name && v->name[0] ? v->name : "(unnamed)";
}

static void oc_shape_text(const struct oc_value *v, char *buf, size_t size) {
    size_t o = (size_t)snprintf(buf, size, "[");
    for (int32_t k = 0; k < v->rank && o < size; k++)
        o += (size_t)snprintf(buf + o, size - o, "%s%lld", k ? ", " : "", (long long)v->dims[k].value);
    if (o < size)
        snprintf(buf + o, size - o, "]");
}

/* ---- weights/duplicate and weights/duplicate-transposed --------------------------- */

/* hash and compare a chunk at a time; a transpose a block of rows at a time */
enum { OC_DUP_CHUNK = 1 << 20, OC_DUP_PREFIX = 4096, OC_DUP_BLOCK = 16 << 20 };

struct oc_dup_item {
    int32_t v;           /* value index                                       */
    uint64_t len;        /* raw_data bytes                                    */
    uint64_t prefix;     /* hash of the first OC_DUP_PREFIX bytes             */
    uint64_t full;       /* hash of the whole payload (0 until computed)      */
    bool hashed, dup;
};

static uint64_t oc_fnv(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static enum oc_status oc_dup_read(struct oc_lint_ctx *c, int32_t v, uint64_t off, size_t n, void *dst) {
    enum oc_status st = oc_model_tensor_raw_read(c->m, c->g->values[v].tensor, off, n, dst);
    if (st == OC_OK)
        c->out->weight_bytes_read += n;
    else
        oc_diag_set(c->d, st == OC_ERR_IO ? OC_ERR_IO : st, "cannot read the weights of '%s' to compare them",
                    oc_vname(&c->g->values[v]));
    return st;
}

static enum oc_status oc_dup_hash(struct oc_lint_ctx *c, struct oc_dup_item *it, uint8_t *buf, bool whole) {
    uint64_t h = 0xcbf29ce484222325ull, end = whole ? it->len : (it->len < OC_DUP_PREFIX ? it->len : OC_DUP_PREFIX);
    for (uint64_t off = 0; off < end; off += OC_DUP_CHUNK) {
        size_t n = end - off < OC_DUP_CHUNK ? (size_t)(end - off) : OC_DUP_CHUNK;
        enum oc_status st = oc_dup_read(c, it->v, off, n, buf);
        if (st != OC_OK)
            return st;
        h = oc_fnv(h, buf, n);
    }
    if (whole)
        it->full = h;
    else
        it->prefix = h;
    return OC_OK;
}

/* Whether two payloads of len bytes are equal, compared a chunk at a time. */
static enum oc_status oc_dup_equal(struct oc_lint_ctx *c, int32_t a, int32_t b, uint64_t len, uint8_t *ba,
                                   uint8_t *bb, bool *eq) {
    *eq = true;
    for (uint64_t off = 0; off < len && *eq; off += OC_DUP_CHUNK) {
        size_t n = len - off < OC_DUP_CHUNK ? (size_t)(len - off) : OC_DUP_CHUNK;
        enum oc_status st = oc_dup_read(c, a, off, n, ba);
        if (st == OC_OK)
            st = oc_dup_read(c, b, off, n, bb);
        if (st != OC_OK)
            return st;
        *eq = memcmp(ba, bb, n) == 0;
    }
    return OC_OK;
}

/* Whether B [cols, rows] is A [rows, cols] transposed (element size es):
   blocks of A's rows against the same columns of every row of B. A first
   look at a few elements rejects most pairs early. */
static enum oc_status oc_dup_transposed(struct oc_lint_ctx *c, int32_t a, int32_t b, uint64_t rows, uint64_t cols,
                                        uint64_t es, bool *eq) {
    *eq = false;
    uint64_t k = OC_DUP_BLOCK / (cols * es) ? OC_DUP_BLOCK / (cols * es) : 1; /* rows of A per block */
    if (k > rows)
        k = rows;
    /* a first look: A[0][0 .. 8) against B[0 .. 8)[0] */
    uint8_t first[8 * 16], col[16];
    uint64_t look = cols < 8 ? cols : 8;
    if (es > 16)
        return OC_OK;
    enum oc_status st = oc_dup_read(c, a, 0, (size_t)(look * es), first);
    for (uint64_t j = 0; j < look && st == OC_OK; j++) {
        if ((st = oc_dup_read(c, b, j * rows * es, (size_t)es, col)) == OC_OK && memcmp(first + j * es, col, es))
            return OC_OK;
    }
    if (st != OC_OK)
        return st;
    uint8_t *ba = malloc((size_t)(k * cols * es)), *bb = malloc((size_t)(k * cols * es));
    st = ba && bb ? OC_OK : OC_ERR_NOMEM;
    bool same = st == OC_OK;
    for (uint64_t r0 = 0; r0 < rows && same && st == OC_OK; r0 += k) {
        uint64_t kr = rows - r0 < k ? rows - r0 : k;
        st = oc_dup_read(c, a, r0 * cols * es, (size_t)(kr * cols * es), ba); /* A[r0 .. r0+kr) */
        for (uint64_t j = 0; j < cols && same && st == OC_OK; j++) {    /* B[j][r0 .. r0+kr) */
            st = oc_dup_read(c, b, (j * rows + r0) * es, (size_t)(kr * es), bb);
            for (uint64_t i = 0; i < kr && same && st == OC_OK; i++)
                same = memcmp(ba + (i * cols + j) * es, bb + i * es, (size_t)es) == 0;
        }
    }
    free(ba), free(bb);
    *eq = same && st == OC_OK;
    return st;
}

static int oc_dup_cmp(const void *x, const void *y) {
    const struct oc_dup_item *a = x, *b = y;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    if (a->prefix != b->prefix)
        return a->prefix < b->prefix ? -1 : 1;
    return a->v - b->v;
}

static bool oc_dup_saving(struct oc_lint_ctx *c, struct oc_lint_finding *f, int32_t keep, int32_t drop) {
    (void)oc_saving_weight(c, f, drop, +1);
    return oc_lint_value(f, drop) && oc_lint_value(f, keep);
}

static enum oc_status oc_rule_duplicates(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    bool same_on = c->o->enabled[OC_LINT_DUPLICATE], tr_on = c->o->enabled[OC_LINT_DUPLICATE_TRANSPOSED];
    struct oc_dup_item *items = calloc((size_t)g->n_inits + 1, sizeof *items);
    uint8_t *ba = malloc(OC_DUP_CHUNK), *bb = malloc(OC_DUP_CHUNK);
    enum oc_status st = items && ba && bb ? OC_OK : OC_ERR_NOMEM;
    int32_t n = 0;
    for (int32_t k = 0; st == OC_OK && k < g->n_inits; k++) {
        int32_t v = g->inits[k];
        const struct oc_value *val = &g->values[v];
        uint64_t bytes = 0, len = 0;
        if (!val->tensor || val->overridable || !oc_value_bytes(val, &bytes) || bytes < c->o->min_dup_bytes)
            continue; /* an overridable one may be fed other values: never merged */
        if (!oc_model_tensor_raw_len(c->m, val->tensor, &len) || len != bytes) {
            c->out->n_weights_not_compared++; /* external data or typed fields */
            continue;
        }
        items[n++] = (struct oc_dup_item){.v = v, .len = len};
    }
    /* byte-identical: prefix hash, then whole hash, then the bytes */
    for (int32_t i = 0; st == OC_OK && same_on && i < n; i++) {
        st = oc_dup_hash(c, &items[i], ba, false);
        c->out->n_weights_compared++;
    }
    if (st == OC_OK && same_on)
        qsort(items, (size_t)n, sizeof *items, oc_dup_cmp);
    for (int32_t i = 0; st == OC_OK && same_on && i < n; i++) {
        for (int32_t j = i + 1; st == OC_OK && j < n && items[j].len == items[i].len &&
                                items[j].prefix == items[i].prefix;
             j++) {
            const struct oc_value *a = &g->values[items[i].v], *b = &g->values[items[j].v];
            if (items[j].dup || items[i].dup || a->dtype != b->dtype)
                continue;
            if (!items[i].hashed && (st = oc_dup_hash(c, &items[i], ba, true)) == OC_OK)
                items[i].hashed = true;
            if (st == OC_OK && !items[j].hashed && (st = oc_dup_hash(c, &items[j], ba, true)) == OC_OK)
                items[j].hashed = true;
            bool eq = false;
            if (st == OC_OK && items[i].full == items[j].full)
                st = oc_dup_equal(c, items[i].v, items[j].v, items[i].len, ba, bb, &eq);
            if (st != OC_OK || !eq)
                continue;
            items[j].dup = true; /* kept: the first in file order of the two */
            int32_t keep = items[i].v < items[j].v ? items[i].v : items[j].v;
            int32_t drop = keep == items[i].v ? items[j].v : items[i].v;
            char sa[96], sb[96];
            oc_shape_text(&g->values[drop], sa, sizeof sa);
            oc_shape_text(&g->values[keep], sb, sizeof sb);
            struct oc_lint_finding *f =
                oc_lint_add(c, OC_LINT_DUPLICATE, "'%s' %s holds the same bytes as '%s' %s: keep one",
                            oc_vname(&g->values[drop]), sa, oc_vname(&g->values[keep]), sb);
            if (!f || !oc_dup_saving(c, f, keep, drop))
                st = OC_ERR_NOMEM;
        }
    }
    /* transposed: 2-D [r, k] against [k, r] of one element type */
    for (int32_t i = 0; st == OC_OK && tr_on && i < n; i++) {
        const struct oc_value *a = &g->values[items[i].v];
        /* a dim of 1: the transpose has the same bytes (weights/duplicate); a row past a block: not compared */
        if (a->rank != 2 || items[i].dup || a->dims[0].value == a->dims[1].value || a->dims[0].value < 2 ||
            a->dims[1].value < 2 || (uint64_t)a->dims[1].value > OC_DUP_BLOCK / 16)
            continue;
        for (int32_t j = 0; st == OC_OK && j < n; j++) {
            const struct oc_value *b = &g->values[items[j].v];
            if (j == i || items[j].dup || b->rank != 2 || b->dtype != a->dtype || items[j].len != items[i].len ||
                b->dims[0].value != a->dims[1].value || b->dims[1].value != a->dims[0].value ||
                items[j].v < items[i].v)
                continue;
            uint64_t es = (uint64_t)oc_dtype_bits(a->dtype) / 8;
            if (!es || (uint64_t)oc_dtype_bits(a->dtype) % 8)
                continue;
            bool eq = false;
            st = oc_dup_transposed(c, items[i].v, items[j].v, (uint64_t)a->dims[0].value, (uint64_t)a->dims[1].value,
                                   es, &eq);
            if (st != OC_OK || !eq)
                continue;
            items[j].dup = true;
            char sa[96], sb[96];
            oc_shape_text(b, sa, sizeof sa);
            oc_shape_text(a, sb, sizeof sb);
            struct oc_lint_finding *f = oc_lint_add(
                c, OC_LINT_DUPLICATE_TRANSPOSED, "'%s' %s is '%s' %s transposed: keep one and read it transposed",
                oc_vname(b), sa, oc_vname(a), sb);
            if (!f || !oc_dup_saving(c, f, items[i].v, items[j].v))
                st = OC_ERR_NOMEM;
        }
    }
    free(items), free(ba), free(bb);
    return st;
}

/* ---- graph/unused-initializer and graph/unused-input ----------------------------- */

static enum oc_status oc_rule_unused(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    for (int32_t k = 0; c->o->enabled[OC_LINT_UNUSED_INITIALIZER] && k < g->n_inits; k++) {
        int32_t v = g->inits[k];
        const struct oc_value *val = &g->values[v];
        if (val->n_consumers || val->is_graph_output || c->implicit_read[v])
            continue;
        struct oc_lint_finding *f =
            oc_lint_add(c, OC_LINT_UNUSED_INITIALIZER, "initializer '%s' is read by no node: remove it", oc_vname(val));
        if (!f || !oc_lint_value(f, v))
            return OC_ERR_NOMEM;
        (void)oc_saving_weight(c, f, v, +1);
    }
    for (int32_t k = 0; c->o->enabled[OC_LINT_UNUSED_INPUT] && k < g->n_inputs; k++) {
        int32_t v = g->inputs[k];
        const struct oc_value *val = &g->values[v];
        if (val->n_consumers || val->is_graph_output || c->implicit_read[v])
            continue;
        uint64_t bytes = 0;
        bool known = oc_value_bytes(val, &bytes);
        struct oc_lint_finding *f = oc_lint_add(c, OC_LINT_UNUSED_INPUT, "graph input '%s' is read by no node%s",
                                                oc_vname(val), known ? ": remove it" : " (its size is not known)");
        if (!f || !oc_lint_value(f, v))
            return OC_ERR_NOMEM;
        f->saving.input_bytes = bytes;
    }
    return OC_OK;
}

/* ---- graph/dead-node --------------------------------------------------------------- */

/* Which nodes reach a graph output, and which values they read. */
static void oc_liveness(const struct oc_graph *g, bool *live, bool *needed) {
    for (int32_t k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] >= 0)
            needed[g->outputs[k]] = true;
    for (int32_t s = g->n_nodes - 1; s >= 0; s--) { /* reverse execution order */
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        for (int32_t k = 0; k < n->n_out && !live[i]; k++)
            live[i] = n->out[k] >= 0 && needed[n->out[k]];
        if (!live[i])
            continue;
        for (int32_t k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0)
                needed[n->in[k]] = true;
        for (int32_t k = 0; k < n->n_implicit; k++)
            if (n->implicit[k] >= 0)
                needed[n->implicit[k]] = true;
    }
}

static enum oc_status oc_rule_dead(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes;
    const bool *live = c->live, *needed = c->needed;
    enum oc_status st = OC_OK;
    struct oc_lint_finding *f = NULL;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        if (live[i])
            continue;
        if (!f && !(f = oc_lint_add(c, OC_LINT_DEAD_NODE, "%s", "")))
            st = OC_ERR_NOMEM;
        if (st == OC_OK && !oc_lint_node(f, i))
            st = OC_ERR_NOMEM;
        if (st == OC_OK)
            oc_node_saving(c, i, &f->saving);
    }
    if (f && st == OC_OK) { /* the weights only dead nodes read go with them */
        int32_t n_w = 0;
        for (int32_t k = 0; k < g->n_inits; k++) {
            int32_t v = g->inits[k];
            if (needed[v] || g->values[v].n_consumers == 0 || g->values[v].is_graph_output)
                continue;
            (void)oc_saving_weight(c, f, v, +1);
            n_w++;
            if (!oc_lint_value(f, v))
                st = OC_ERR_NOMEM;
        }
        char lab[160];
        snprintf(f->message, sizeof f->message, "%d node%s reach%s no graph output (first %s)%s: remove %s",
                 f->n_nodes, f->n_nodes == 1 ? "" : "s", f->n_nodes == 1 ? "es" : "",
                 oc_node_label(&g->nodes[f->nodes[0]], lab, sizeof lab),
                 n_w ? ", with the weights only they read" : "", f->n_nodes == 1 ? "it" : "them");
    }
    return st;
}

/* ---- graph/constant-foldable --------------------------------------------------------- */

/* Ops whose result is not a function of their inputs. */
static bool oc_nondeterministic(const struct oc_node *n) {
    static const char *const ops[] = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                      "Multinomial", "Bernoulli"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (oc_node_is(n, ops[k]))
            return true;
    return false;
}

/* A Cast of a float initializer to a narrower float: precision/cast-weights'. */
static bool oc_narrowing_weight_cast(const struct oc_graph *g, const struct oc_node *n) {
    if (!oc_node_is(n, "Cast") || n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *w = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    return w->kind == OC_VALUE_INITIALIZER && oc_dtype_is_float(w->dtype) && oc_dtype_is_float(y->dtype) &&
           oc_dtype_bits(y->dtype) < oc_dtype_bits(w->dtype);
}

static enum oc_status oc_rule_foldable(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes, nv = g->n_values;
    bool *konst = calloc((size_t)nv + 1, 1), *fold = calloc((size_t)nn + 1, 1);
    int32_t *region = malloc(((size_t)nn + 1) * sizeof *region);
    enum oc_status st = konst && fold && region ? OC_OK : OC_ERR_NOMEM;
    for (int32_t k = 0; st == OC_OK && k < g->n_inits; k++)
        konst[g->inits[k]] = true;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        region[i] = -1;
        bool k = n->n_implicit == 0 && !oc_nondeterministic(n) && !oc_attr_first_graph(n);
        bool any_in = false;
        for (int32_t j = 0; j < n->n_in && k; j++)
            if (n->in[j] >= 0) {
                k = konst[n->in[j]];
                any_in = true;
            }
        if (!k)
            continue;
        for (int32_t j = 0; j < n->n_out; j++)
            if (n->out[j] >= 0)
                konst[n->out[j]] = true;
        /* a Constant (or a node of no input) is a constant already: folding it saves nothing; a dead node
           is graph/dead-node's */
        fold[i] = any_in && !oc_node_is(n, "Constant") && c->live[i] && !(n->def && (n->def->flags & OC_OPF_ALIAS)) &&
                  !oc_narrowing_weight_cast(g, n);
    }
    /* regions: foldable nodes joined through the values between them (union-find; the root is the
       region's first node in execution order) */
    int32_t *step = st == OC_OK ? malloc(((size_t)nn + 1) * sizeof *step) : NULL;
    if (st == OC_OK && !step)
        st = OC_ERR_NOMEM;
    for (int32_t s = 0; st == OC_OK && s < nn; s++)
        step[g->order[s]] = s;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        if (!fold[i])
            continue;
        region[i] = i;
        const struct oc_node *n = &g->nodes[i];
        for (int32_t j = 0; j < n->n_in; j++) {
            int32_t v = n->in[j];
            if (v < 0 || g->values[v].kind != OC_VALUE_NODE || g->values[v].producer < 0 ||
                !fold[g->values[v].producer])
                continue;
            int32_t a = region[i], b = g->values[v].producer;
            while (region[a] != a)
                a = region[a];
            while (region[b] != b)
                b = region[b];
            if (a != b) { /* the earlier root stays */
                if (step[a] < step[b])
                    region[b] = a;
                else
                    region[a] = b;
            }
        }
    }
    for (int32_t s = 0; st == OC_OK && s < nn; s++) { /* every node to its root */
        int32_t i = g->order[s], r = i;
        if (!fold[i])
            continue;
        while (region[r] != r)
            r = region[r];
        region[i] = r;
    }
    free(step);
    /* the values of a region read outside it: stored as weights once folded */
    bool *outside = st == OC_OK ? calloc((size_t)nv + 1, 1) : NULL;
    if (st == OC_OK && !outside)
        st = OC_ERR_NOMEM;
    for (int32_t q = 0; st == OC_OK && q < nn; q++) {
        const struct oc_node *u = &g->nodes[q];
        for (int32_t w = 0; w < u->n_in + u->n_implicit; w++) {
            int32_t v = w < u->n_in ? u->in[w] : u->implicit[w - u->n_in];
            if (v < 0 || g->values[v].kind != OC_VALUE_NODE || g->values[v].producer < 0)
                continue;
            int32_t p = g->values[v].producer;
            if (fold[p] && (!fold[q] || region[q] != region[p] || w >= u->n_in))
                outside[v] = true;
        }
    }
    for (int32_t v = 0; st == OC_OK && v < nv; v++)
        if (g->values[v].is_graph_output)
            outside[v] = true;
    /* one pass each: the regions' findings, their nodes in execution order, the initializers only one
       region reads (then no longer stored) */
    int32_t *fidx = st == OC_OK ? malloc(((size_t)nn + 1) * sizeof *fidx) : NULL; /* a region's finding */
    int32_t *only = st == OC_OK ? malloc(((size_t)nv + 1) * sizeof *only) : NULL;  /* the region reading it */
    char(*ops)[96] = st == OC_OK ? calloc((size_t)nn + 1, sizeof *ops) : NULL;
    int32_t first = c->out->n_findings;
    if (st == OC_OK && (!fidx || !only || !ops))
        st = OC_ERR_NOMEM;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        fidx[i] = -1;
        if (!fold[i])
            continue;
        if (region[i] == i) {
            if (!oc_lint_add(c, OC_LINT_CONSTANT_FOLDABLE, "%s", "")) {
                st = OC_ERR_NOMEM;
                break;
            }
            fidx[i] = c->out->n_findings - 1;
        }
        struct oc_lint_finding *f = &c->out->findings[fidx[region[i]]];
        const struct oc_node *n = &g->nodes[i];
        if (!oc_lint_node(f, i))
            st = OC_ERR_NOMEM;
        oc_node_saving(c, i, &f->saving);
        char *o = ops[region[i]];
        size_t len = strlen(o);
        if (len < 60 && !strstr(o, n->op_type))
            snprintf(o + len, 96 - len, "%s%s", len ? ", " : "", n->op_type);
        for (int32_t j = 0; j < n->n_out && st == OC_OK; j++) { /* a result read outside the region is stored */
            int32_t v = n->out[j];
            if (v >= 0 && outside[v]) {
                (void)oc_saving_weight(c, f, v, -1);
                if (!oc_lint_value(f, v))
                    st = OC_ERR_NOMEM;
            }
        }
    }
    for (int32_t v = 0; st == OC_OK && v < nv; v++)
        only[v] = -1; /* -1 unread, -2 read outside one region */
    for (int32_t q = 0; st == OC_OK && q < nn; q++) {
        const struct oc_node *u = &g->nodes[q];
        for (int32_t w = 0; w < u->n_in + u->n_implicit; w++) {
            int32_t v = w < u->n_in ? u->in[w] : u->implicit[w - u->n_in];
            if (v < 0 || g->values[v].kind != OC_VALUE_INITIALIZER)
                continue;
            int32_t r = fold[q] && w < u->n_in ? region[q] : -2;
            only[v] = only[v] == -1 || only[v] == r ? r : -2;
        }
    }
    bool *mine = st == OC_OK ? calloc((size_t)nv + 1, 1) : NULL; /* marked removed by a region here */
    if (st == OC_OK && !mine)
        st = OC_ERR_NOMEM;
    for (int32_t k = 0; st == OC_OK && k < g->n_inits; k++) {
        int32_t v = g->inits[k];
        if (only[v] < 0 || g->values[v].is_graph_output || c->implicit_read[v])
            continue;
        if (oc_saving_weight(c, &c->out->findings[fidx[only[v]]], v, +1))
            mine[v] = true;
    }
    /* not a finding: nothing per run to gain, or a generator (ConstantOfShape, Expand, Tile of a constant)
       whose result is larger than what it reads: folding would grow the file, and runtimes that fold
       constants do it at load. The weights it would remove are not removed then. */
    int32_t kept = first;
    for (int32_t k = first; st == OC_OK && k < c->out->n_findings; k++) {
        struct oc_lint_finding *f = &c->out->findings[k];
        if ((!f->saving.macs && !f->saving.flops && !f->saving.bytes_moved) || f->saving.weight_bytes < 0) {
            for (int32_t q = 0; q < f->n_nodes; q++) { /* its initializers back */
                const struct oc_node *u = &g->nodes[f->nodes[q]];
                for (int32_t w = 0; w < u->n_in; w++)
                    if (u->in[w] >= 0 && mine[u->in[w]])
                        c->removed[u->in[w]] = mine[u->in[w]] = false;
            }
            free(f->nodes), free(f->values);
            continue;
        }
        char lab[160];
        int32_t head = f->nodes[0];
        for (int32_t q = 0; q < f->n_nodes; q++)
            c->folded[f->nodes[q]] = true;
        snprintf(f->message, sizeof f->message,
                 "%d node%s (%s; first %s) compute%s from weights and constants only: fold %s at export "
                 "(runtimes that fold constants at load do it there)",
                 f->n_nodes, f->n_nodes == 1 ? "" : "s", ops[head], oc_node_label(&g->nodes[head], lab, sizeof lab),
                 f->n_nodes == 1 ? "s" : "", f->n_nodes == 1 ? "it" : "them");
        c->out->findings[kept++] = *f;
    }
    if (st == OC_OK)
        c->out->n_findings = kept;
    free(fidx), free(only), free(ops), free(mine);
    free(konst), free(fold), free(region), free(outside);
    return st;
}

/* ---- graph/no-op ------------------------------------------------------------------------ */

/* The known integer contents of value v, or NULL. */
static const int64_t *oc_lint_ints(const struct oc_graph *g, int32_t v, int64_t *n) {
    *n = 0;
    if (v < 0 || !g->values[v].ival)
        return NULL;
    *n = g->values[v].n_ival;
    return g->values[v].ival;
}

static bool oc_same_shape(const struct oc_value *a, const struct oc_value *b) {
    if (a->rank < 0 || a->rank != b->rank)
        return false;
    for (int32_t k = 0; k < a->rank; k++)
        if (a->dims[k].value < 0 || a->dims[k].value != b->dims[k].value)
            return false;
    return true;
}

/* Whether value v is stored in the file (an initializer, or a Constant's
   output): not computed at this binding. */
static bool oc_lint_stored(const struct oc_graph *g, int32_t v) {
    if (v < 0)
        return true;
    const struct oc_value *val = &g->values[v];
    if (val->kind == OC_VALUE_INITIALIZER)
        return true;
    return val->kind == OC_VALUE_NODE && val->producer >= 0 && oc_node_is(&g->nodes[val->producer], "Constant");
}

/* Whether every input of n after the first is stored in the file: then a
   no-op is one at every binding, else only at this one. */
static bool oc_no_op_everywhere(const struct oc_graph *g, const struct oc_node *n) {
    for (int32_t k = 1; k < n->n_in; k++)
        if (!oc_lint_stored(g, n->in[k]))
            return false;
    return true;
}

/* Whether node n returns its first input unchanged, from its attributes and
   the known values of its other inputs. */
static bool oc_is_no_op(const struct oc_graph *g, const struct oc_node *n) {
    if (n->domain[0] && strcmp(n->domain, "ai.onnx") != 0)
        return false;
    if (n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *x = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    int64_t k, cnt;
    if (strcmp(n->op_type, "Identity") == 0)
        return !x->nt; /* a tensor (Identity of a sequence is one too, but left alone) */
    if (strcmp(n->op_type, "Dropout") == 0) { /* inference: no training_mode, or known false */
        if (n->n_out > 1 && n->out[1] >= 0 && g->values[n->out[1]].n_consumers)
            return false; /* its mask is read */
        return !oc_dropout_trains(g, n);
    }
    if (strcmp(n->op_type, "Cast") == 0)
        return x->dtype && x->dtype == y->dtype;
    if (strcmp(n->op_type, "Transpose") == 0) {
        const int64_t *perm;
        if (oc_attr_ints(n, "perm", &perm, &cnt, NULL) != OC_OK || !perm || cnt != x->rank)
            return false;
        for (k = 0; k < cnt; k++)
            if (perm[k] != k)
                return false;
        return true;
    }
    if (strcmp(n->op_type, "Pad") == 0) {
        const int64_t *pads = NULL;
        if (n->opset >= 11)
            pads = oc_lint_ints(g, n->n_in > 1 ? n->in[1] : -1, &cnt);
        else if (oc_attr_ints(n, "pads", &pads, &cnt, NULL) != OC_OK)
            return false;
        if (!pads)
            return false;
        for (k = 0; k < cnt; k++)
            if (pads[k] != 0)
                return false;
        return true;
    }
    if (strcmp(n->op_type, "Slice") == 0 && n->opset >= 10) {
        int64_t ns, ne, na = 0, nst = 0;
        const int64_t *st = oc_lint_ints(g, n->n_in > 1 ? n->in[1] : -1, &ns);
        const int64_t *en = oc_lint_ints(g, n->n_in > 2 ? n->in[2] : -1, &ne);
        const int64_t *ax = oc_lint_ints(g, n->n_in > 3 ? n->in[3] : -1, &na);
        const int64_t *sp = oc_lint_ints(g, n->n_in > 4 ? n->in[4] : -1, &nst);
        if (!st || !en || ns != ne || (n->n_in > 3 && n->in[3] >= 0 && !ax) || (n->n_in > 4 && n->in[4] >= 0 && !sp) ||
            (ax && na != ns) || (sp && nst != ns))
            return false;
        for (k = 0; k < ns; k++) { /* from 0, by 1, to the end of any length */
            int64_t a = ax ? ax[k] : k;
            if (a < 0)
                a += x->rank;
            if (st[k] != 0 || (sp && sp[k] != 1) || a < 0 || a >= x->rank || en[k] < INT32_MAX)
                return false;
        }
        return true;
    }
    if (strcmp(n->op_type, "Expand") == 0) { /* to a shape of ones no longer than the input's */
        const int64_t *sh = oc_lint_ints(g, n->n_in > 1 ? n->in[1] : -1, &cnt);
        if (!sh || cnt > x->rank || !oc_same_shape(x, y))
            return false;
        for (k = 0; k < cnt; k++)
            if (sh[k] != 1)
                return false;
        return true;
    }
    return false;
}

static enum oc_status oc_rule_no_op(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes;
    bool *done = calloc((size_t)nn + 1, 1);
    if (!done)
        return OC_ERR_NOMEM;
    enum oc_status st = OC_OK;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (done[i] || !c->live[i] || c->folded[i] || !oc_is_no_op(g, n))
            continue;
        struct oc_lint_finding *f = oc_lint_add(c, OC_LINT_NO_OP, "%s", "");
        if (!f) {
            st = OC_ERR_NOMEM;
            break;
        }
        for (int32_t t = s; st == OC_OK && t < nn; t++) { /* every live one of this op type */
            int32_t j = g->order[t];
            const struct oc_node *u = &g->nodes[j];
            if (done[j] || !c->live[j] || c->folded[j] || strcmp(u->op_type, n->op_type) != 0 ||
                strcmp(u->domain, n->domain) != 0 || !oc_is_no_op(g, u))
                continue;
            done[j] = true;
            if (!oc_lint_node(f, j))
                st = OC_ERR_NOMEM;
            oc_node_saving(c, j, &f->saving);
        }
        int32_t here = 0; /* decided by values computed at this binding */
        for (int32_t q = 0; q < f->n_nodes; q++)
            here += !oc_no_op_everywhere(g, &g->nodes[f->nodes[q]]);
        char lab[160], at[96] = "";
        if (here)
            snprintf(at, sizeof at, " (%d of them at these bindings only: what decides it is computed from the shapes)",
                     here);
        snprintf(f->message, sizeof f->message, "%d %s node%s return%s %s input unchanged (first %s)%s: remove %s",
                 f->n_nodes, n->op_type, f->n_nodes == 1 ? "" : "s", f->n_nodes == 1 ? "s" : "",
                 f->n_nodes == 1 ? "its" : "their", oc_node_label(n, lab, sizeof lab), at,
                 f->n_nodes == 1 ? "it" : "them");
    }
    free(done);
    return st;
}

/* ---- graph/cancelling-pair ------------------------------------------------------------- */

/* The integers type dt holds exactly: [lo, hi] (floats: their exact integers). */
static bool oc_exact_ints(int32_t dt, double *lo, double *hi) {
    static const struct {
        int32_t dt;
        double lo, hi;
    } t[] = {
        {9, 0, 1},                                /* BOOL    */
        {2, 0, 255},        {3, -128, 127},       /* UINT8, INT8 */
        {4, 0, 65535},      {5, -32768, 32767},   /* UINT16, INT16 */
        {12, 0, 4294967295.0}, {6, -2147483648.0, 2147483647.0}, /* UINT32, INT32 */
        {13, 0, 18446744073709551615.0}, {7, -9223372036854775808.0, 9223372036854775807.0},
        {10, -2048, 2048},  {16, -256, 256},      /* FLOAT16, BFLOAT16 */
        {1, -16777216.0, 16777216.0}, {11, -9007199254740992.0, 9007199254740992.0}, /* FLOAT, DOUBLE */
    };
    for (size_t k = 0; k < sizeof t / sizeof *t; k++)
        if (t[k].dt == dt) {
            *lo = t[k].lo;
            *hi = t[k].hi;
            return true;
        }
    return false;
}

/* Whether every value of type a survives a Cast to b and back. */
static bool oc_cast_lossless(int32_t a, int32_t b) {
    static const int32_t widen[][2] = {{10, 1}, {10, 11}, {16, 1}, {16, 11}, {1, 11}}; /* float to wider float */
    if (a == b)
        return true;
    if (a == 9) /* bool: 0 and 1, back by != 0 */
        return oc_dtype_is_int(b) || oc_dtype_is_float(b);
    for (size_t k = 0; k < sizeof widen / sizeof *widen; k++)
        if (widen[k][0] == a && widen[k][1] == b)
            return true;
    double alo, ahi, blo, bhi;
    return oc_dtype_is_int(a) && oc_exact_ints(a, &alo, &ahi) && oc_exact_ints(b, &blo, &bhi) && blo <= alo &&
           ahi <= bhi;
}

/* The node reading value v, when it is the only reader (and reads it as an
   input, not from a subgraph) and v no graph output. */
static int32_t oc_only_reader(const struct oc_lint_ctx *c, int32_t v) {
    const struct oc_graph *g = c->g;
    if (v < 0 || g->values[v].n_consumers != 1 || g->values[v].is_graph_output ||
        c->rstart[v + 1] - c->rstart[v] != 1)
        return -1;
    int32_t i = c->radj[c->rstart[v]];
    return g->nodes[i].n_implicit ? -1 : i;
}

/* The node the pair starting at node i ends with (its only reader, undoing
   it), or -1; *mid the type in between for a Cast. */
static int32_t oc_cancelling_pair(const struct oc_lint_ctx *c, int32_t i, int32_t *mid) {
    const struct oc_graph *g = c->g;
    const struct oc_node *a = &g->nodes[i];
    bool tr = oc_node_is(a, "Transpose"), cast = oc_node_is(a, "Cast"), rs = oc_node_is(a, "Reshape");
    if ((!tr && !cast && !rs) || !c->live[i] || c->folded[i] || a->n_in < 1 || a->in[0] < 0 || a->n_out != 1 ||
        oc_is_no_op(g, a)) /* a no-op is graph/no-op's */
        return -1;
    int32_t j = oc_only_reader(c, a->out[0]);
    if (j < 0 || strcmp(g->nodes[j].op_type, a->op_type) != 0 || strcmp(g->nodes[j].domain, a->domain) != 0)
        return -1;
    const struct oc_node *b = &g->nodes[j];
    const struct oc_value *x = &g->values[a->in[0]], *m = &g->values[a->out[0]];
    if (b->n_out < 1 || b->out[0] < 0)
        return -1;
    const struct oc_value *y = &g->values[b->out[0]];
    *mid = m->dtype;
    if (rs) /* back to the input's shape, both targets stored in the file: at every binding */
        return oc_same_shape(x, y) && !oc_same_shape(x, m) && oc_no_op_everywhere(g, a) && oc_no_op_everywhere(g, b)
                   ? j
                   : -1;
    if (cast)
        return x->dtype && x->dtype == y->dtype && x->dtype != m->dtype && oc_cast_lossless(x->dtype, m->dtype) ? j
                                                                                                           : -1;
    /* out[k] = in[perm[k]]: the second undoes the first when p1[p2[k]] == k */
    const int64_t *p1, *p2;
    int64_t n1, n2;
    if (x->rank < 1 || oc_attr_ints(a, "perm", &p1, &n1, NULL) != OC_OK ||
        oc_attr_ints(b, "perm", &p2, &n2, NULL) != OC_OK || !p1 || !p2 || n1 != x->rank || n2 != n1)
        return -1;
    for (int64_t k = 0; k < n1; k++)
        if (p2[k] < 0 || p2[k] >= n1 || p1[p2[k]] != k)
            return -1;
    return j;
}

/* One finding per kind of pair: Transposes, and Casts through each type. */
static enum oc_status oc_rule_cancelling(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t nn = g->n_nodes;
    bool *done = calloc((size_t)nn + 1, 1);
    if (!done)
        return OC_ERR_NOMEM;
    enum oc_status st = OC_OK;
    for (int32_t s = 0; st == OC_OK && s < nn; s++) {
        int32_t i = g->order[s], mid = 0, j;
        if (done[i] || (j = oc_cancelling_pair(c, i, &mid)) < 0)
            continue;
        const struct oc_node *a = &g->nodes[i];
        bool cast = oc_node_is(a, "Cast");
        struct oc_lint_finding *f = oc_lint_add(c, OC_LINT_CANCELLING, "%s", "");
        if (!f) {
            st = OC_ERR_NOMEM;
            break;
        }
        int32_t pairs = 0;
        for (int32_t t = s; st == OC_OK && t < nn; t++) {
            int32_t u = g->order[t], umid = 0, v;
            if (done[u] || strcmp(g->nodes[u].op_type, a->op_type) != 0 || (v = oc_cancelling_pair(c, u, &umid)) < 0 ||
                (cast && umid != mid))
                continue;
            done[u] = done[v] = true;
            pairs++;
            if (!oc_lint_node(f, u) || !oc_lint_node(f, v))
                st = OC_ERR_NOMEM;
            oc_node_saving(c, u, &f->saving);
            oc_node_saving(c, v, &f->saving);
        }
        char la[160], lb[160];
        oc_node_label(a, la, sizeof la);
        oc_node_label(&g->nodes[j], lb, sizeof lb);
        if (cast)
            snprintf(f->message, sizeof f->message,
                     "%d pair%s of Casts to %s and back, which loses nothing (first %s and %s): read the input "
                     "directly",
                     pairs, pairs == 1 ? "" : "s", oc_dtype_name(mid), la, lb);
        else if (oc_node_is(a, "Reshape"))
            snprintf(f->message, sizeof f->message,
                     "%d pair%s of Reshapes back to the input's shape (first %s and %s): read the input directly",
                     pairs, pairs == 1 ? "" : "s", la, lb);
        else
            snprintf(f->message, sizeof f->message,
                     "%d pair%s of Transposes, the second undoing the first (first %s and %s): read the input "
                     "directly",
                     pairs, pairs == 1 ? "" : "s", la, lb);
    }
    free(done);
    return st;
}

/* ---- fusion/fold-into-weights ---------------------------------------------------------- */

/* Whether v is an initializer (or Constant) only node `reader` reads. */
static bool oc_own_constant(const struct oc_lint_ctx *c, int32_t v) {
    const struct oc_graph *g = c->g;
    return v >= 0 && oc_lint_stored(g, v) && g->values[v].n_consumers == 1 && !g->values[v].is_graph_output &&
           !c->implicit_read[v];
}

/* Elements of a constant that broadcasts per output channel of a Conv
   output [N, C, ...] (rank r): a scalar, or [C, 1, ..., 1] of rank r - 1 or
   r (with a leading 1). */
static bool oc_per_channel(const struct oc_value *k, const struct oc_value *y) {
    uint64_t n;
    if (!oc_value_numel(k, &n) || y->rank < 2 || k->rank > y->rank)
        return false;
    if (n == 1)
        return true;
    int32_t off = y->rank - k->rank; /* k's dim d lines up with y's dim d + off */
    for (int32_t d = 0; d < k->rank; d++) {
        int32_t yd = d + off;
        int64_t want = yd == 1 ? y->dims[1].value : 1;
        if (k->dims[d].value != want)
            return false;
    }
    return off <= 1;
}

static enum oc_status oc_rule_fold_into_weights(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (!c->live[i] || n->n_in < 1 || n->in[0] < 0)
            continue;
        bool bn = oc_node_is(n, "BatchNormalization"), mul = oc_node_is(n, "Mul"), add = oc_node_is(n, "Add");
        if (!bn && !mul && !add)
            continue;
        /* the contraction before it, read by it alone */
        int32_t xin = n->in[0], kin = -1;
        if (mul || add) { /* either operand may be the constant */
            if (n->n_in != 2 || n->in[1] < 0)
                continue;
            kin = n->in[1];
            if (oc_lint_stored(g, xin) && !oc_lint_stored(g, kin)) {
                kin = n->in[0];
                xin = n->in[1];
            }
            if (!oc_lint_stored(g, kin))
                continue;
        }
        const struct oc_value *x = &g->values[xin];
        if (x->kind != OC_VALUE_NODE || x->producer < 0 || x->n_consumers != 1 || x->is_graph_output)
            continue;
        const struct oc_node *p = &g->nodes[x->producer];
        /* through the Muls and Adds by per-channel constants before it, themselves folded */
        for (int32_t hop = 0; hop < 16 && (oc_node_is(p, "Mul") || oc_node_is(p, "Add")) && p->n_in == 2; hop++) {
            int32_t pk = oc_lint_stored(g, p->in[1]) ? p->in[1] : p->in[0], px = pk == p->in[1] ? p->in[0] : p->in[1];
            if (px < 0 || pk < 0 || !oc_lint_stored(g, pk) || oc_lint_stored(g, px))
                break;
            const struct oc_value *pv = &g->values[px];
            if (pv->kind != OC_VALUE_NODE || pv->producer < 0 || pv->n_consumers != 1 || pv->is_graph_output ||
                !oc_per_channel(&g->values[pk], pv))
                break;
            x = pv;
            p = &g->nodes[pv->producer];
        }
        bool conv = oc_node_is(p, "Conv") || oc_node_is(p, "ConvTranspose");
        bool dense = oc_node_is(p, "Gemm") || oc_node_is(p, "MatMul");
        /* a dense layer's BatchNormalization folds when its channels are the features: [N, F] */
        if (!(conv || (bn && dense && x->rank == 2)) || p->n_in < 2 || p->in[1] < 0 || !oc_lint_stored(g, p->in[1]))
            continue;
        if (bn) { /* inference form: one output, every statistic stored */
            bool ok = n->n_in == 5;
            for (int32_t k = 1; k < n->n_in && ok; k++)
                ok = oc_lint_stored(g, n->in[k]);
            for (int32_t k = 1; k < n->n_out && ok; k++)
                ok = n->out[k] < 0 || g->values[n->out[k]].n_consumers == 0;
            if (!ok)
                continue;
        } else if (!conv || !oc_per_channel(&g->values[kin], x)) {
            continue;
        }
        bool has_bias = p->n_in > 2 && p->in[2] >= 0;
        struct oc_lint_finding *f;
        char la[160], lp[160];
        f = oc_lint_add(c, OC_LINT_FOLD_INTO_WEIGHTS, "%s right after %s: fold it into the %s's weights%s",
                        oc_node_label(n, la, sizeof la), oc_node_label(p, lp, sizeof lp), p->op_type,
                        (bn || add) && !has_bias ? " and a new bias" : (bn || add) ? " and bias" : "");
        if (!f || !oc_lint_node(f, i) || !oc_lint_node(f, x->producer))
            return OC_ERR_NOMEM;
        oc_node_saving(c, i, &f->saving);
        /* its constants go (those only it reads); a bias is added where the contraction has none */
        for (int32_t k = 1; k < n->n_in; k++) {
            int32_t v = bn ? n->in[k] : (k == 1 ? kin : -1);
            if (!oc_own_constant(c, v))
                continue;
            (void)oc_saving_weight(c, f, v, +1);
            if (!oc_lint_value(f, v))
                return OC_ERR_NOMEM;
        }
        int32_t pi = (int32_t)(p - g->nodes);
        if ((bn || add) && !has_bias && !c->biased[pi] && x->rank >= 2 && x->dims[1].value > 0) {
            /* the contraction gains a bias: its elements, their reads, and an add per output element */
            int64_t ch = x->dims[1].value;
            uint64_t b = 0, numel = 0;
            c->biased[pi] = true;
            if (oc_dtype_bytes(g->values[p->in[1]].dtype, (uint64_t)ch, &b) && b <= INT64_MAX) {
                oc_sat_i64(&f->saving.weight_bytes, -(int64_t)b);
                oc_sat_i64(&f->saving.params, oc_dtype_is_float(g->values[p->in[1]].dtype) ? -ch : 0);
                f->saving.bytes_moved = f->saving.bytes_moved > b ? f->saving.bytes_moved - b : 0;
            }
            if (oc_value_numel(x, &numel))
                f->saving.flops = f->saving.flops > numel ? f->saving.flops - numel : 0;
        }
    }
    return OC_OK;
}

/* ---- fusion/unfused-attention ----------------------------------------------------------- */

/* Ops between the two MatMuls of attention: the scale, the mask, a Cast. */
static bool oc_attention_between(const struct oc_node *n) {
    static const char *const ops[] = {"Div", "Mul", "Add", "Where", "Cast", "Sub"};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (oc_node_is(n, ops[k]))
            return true;
    return false;
}

/* Readers of v that use its values (not Shape or Size, which read only its
   shape). */
static int32_t oc_value_readers(const struct oc_lint_ctx *c, int32_t v) {
    int32_t n = 0;
    for (int32_t e = c->rstart[v]; e < c->rstart[v + 1]; e++) {
        const struct oc_node *u = &c->g->nodes[c->radj[e]];
        n += !(oc_node_is(u, "Shape") || oc_node_is(u, "Size"));
    }
    return n + c->g->values[v].is_graph_output;
}

/* Every place attention is written out is one finding: a transformer's
   layers repeat it, and one line per layer says the same thing each time
   (the nodes are all listed; the figures are summed). */
static enum oc_status oc_rule_attention(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    uint64_t peak = c->an->totals.peak_activation_bytes;
    struct oc_lint_finding *f = NULL;
    int32_t places = 0, first = -1;
    uint64_t sb_max = 0, sb_sum = 0;
    double per_token = 0; /* bytes a query token moves, summed over the places */
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *sm = &g->nodes[i];
        if (!oc_node_is(sm, "Softmax") || !c->live[i] || sm->n_in < 1 || sm->in[0] < 0 || sm->out[0] < 0)
            continue;
        /* forward: the Softmax's only reader (through an inference Dropout or an Identity) is a MatMul
           with an activation on its other side */
        int32_t probs = sm->out[0], m2 = oc_only_reader(c, probs);
        while (m2 >= 0 && (oc_node_is(&g->nodes[m2], "Dropout") || oc_node_is(&g->nodes[m2], "Identity")) &&
               oc_is_no_op(g, &g->nodes[m2])) {
            probs = g->nodes[m2].out[0];
            m2 = oc_only_reader(c, probs);
        }
        if (m2 < 0 || !oc_node_is(&g->nodes[m2], "MatMul") || g->nodes[m2].n_in != 2 ||
            g->nodes[m2].in[0] != probs || oc_lint_stored(g, g->nodes[m2].in[1]))
            continue;
        /* back: through the scale and mask (each result read once) to a MatMul of two activations */
        int32_t chain[16], nch = 0, v = sm->in[0], m1 = -1;
        while (nch < 16) {
            const struct oc_value *val = &g->values[v];
            if (val->kind != OC_VALUE_NODE || val->producer < 0 || oc_value_readers(c, v) != 1)
                break;
            const struct oc_node *p = &g->nodes[val->producer];
            if (oc_node_is(p, "MatMul")) {
                if (p->n_in == 2 && !oc_lint_stored(g, p->in[0]) && !oc_lint_stored(g, p->in[1]))
                    m1 = val->producer;
                break;
            }
            bool view = p->def && (p->def->flags & OC_OPF_ALIAS); /* a Reshape of the scores (Swin's mask) */
            if ((!oc_attention_between(p) && !view) || p->n_in < 1)
                break;
            chain[nch++] = val->producer;
            if (view) {
                if (p->in[0] < 0 || g->values[p->in[0]].kind != OC_VALUE_NODE || oc_value_readers(c, p->in[0]) != 1)
                    break;
                v = p->in[0];
                continue;
            }
            /* the score side: the operand that is a node output of the score's shape */
            int32_t next = -1;
            for (int32_t k = 0; k < p->n_in && next < 0; k++) {
                int32_t u = p->in[k];
                if (u >= 0 && g->values[u].kind == OC_VALUE_NODE && g->values[u].dtype == val->dtype &&
                    oc_same_shape(&g->values[u], val) && oc_value_readers(c, u) == 1)
                    next = u;
            }
            if (next < 0)
                break;
            v = next;
        }
        if (m1 < 0)
            continue;
        const struct oc_value *score = &g->values[g->nodes[m1].out[0]];
        uint64_t sb = 0;
        if (score->rank < 2 || !oc_value_bytes(score, &sb))
            continue;
        if (!f && !(f = oc_lint_add(c, OC_LINT_UNFUSED_ATTENTION, "%s", "")))
            return OC_ERR_NOMEM;
        if (!oc_lint_node(f, m1))
            return OC_ERR_NOMEM;
        /* what a fused kernel does not move: the scores written, each step between read and written,
           the probabilities read; the FLOPs stay */
        uint64_t moved_before = f->saving.bytes_moved;
        f->saving.bytes_moved += sb;
        for (int32_t k = nch - 1; k >= 0; k--) {
            const struct oc_node *p = &g->nodes[chain[k]];
            if (!oc_lint_node(f, chain[k]))
                return OC_ERR_NOMEM;
            if (!(p->cost.flags & OC_COST_UNKNOWN))
                f->saving.bytes_moved += p->cost.bytes_read + p->cost.bytes_written;
            if (c->o->perf && chain[k] < c->o->perf->n_nodes && c->o->perf->nodes[chain[k]].known)
                f->saving.time_s += c->o->perf->nodes[chain[k]].time;
        }
        if (!oc_lint_node(f, i) || !oc_lint_node(f, m2))
            return OC_ERR_NOMEM;
        if (!(sm->cost.flags & OC_COST_UNKNOWN))
            f->saving.bytes_moved += sm->cost.bytes_read + sm->cost.bytes_written;
        if (c->o->perf && i < c->o->perf->n_nodes && c->o->perf->nodes[i].known)
            f->saving.time_s += c->o->perf->nodes[i].time;
        uint64_t pb = 0;
        if (oc_value_bytes(&g->values[sm->out[0]], &pb))
            f->saving.bytes_moved += pb;
        /* per query token: the score's dims but the last (keys) are batch x heads x queries */
        uint64_t rows = 1;
        for (int32_t k = 0; k < score->rank - 1; k++)
            rows *= score->dims[k].value > 0 ? (uint64_t)score->dims[k].value : 1;
        uint64_t heads = score->rank >= 4 && score->dims[1].value > 0 ? (uint64_t)score->dims[1].value : 1;
        uint64_t tokens = rows / heads ? rows / heads : 1;
        per_token += (double)(f->saving.bytes_moved - moved_before) / (double)tokens;
        sb_max = sb > sb_max ? sb : sb_max;
        sb_sum += sb;
        if (first < 0)
            first = m1;
        places++;
    }
    if (!f)
        return OC_OK;
    char lab[160], share[64] = "", where[224];
    if (peak)
        snprintf(share, sizeof share, " (%.1f %% of the peak activation memory)", 100.0 * (double)sb_max / (double)peak);
    oc_node_label(&g->nodes[first], lab, sizeof lab);
    if (places == 1)
        snprintf(where, sizeof where, "from %s: a", lab);
    else
        snprintf(where, sizeof where, "in %d places (first from %s): each a score tensor of up to", (int)places, lab);
    snprintf(f->message, sizeof f->message,
             "attention written out %s %.2f MiB%s%s moved %llu times, %llu B per query token%s: use a fused "
             "attention op (ONNX Runtime's Attention or MultiHeadAttention, the target's FlashAttention)",
             where, (double)sb_max / 1048576.0, places == 1 ? " score tensor" : "", share,
             (unsigned long long)(sb_sum ? f->saving.bytes_moved / sb_sum : 0), (unsigned long long)floor(per_token),
             places == 1 ? "" : " in all");
    return OC_OK;
}

/* ---- perf/tensor-core-alignment -------------------------------------------------------- */

/* The GEMM a contraction is, M x N x K (a convolution as implicit GEMM:
   M = batch x output positions, N = output channels per group, K = input
   channels per group x kernel); false when not one or not known. */
static bool oc_gemm_dims(const struct oc_graph *g, const struct oc_node *n, uint64_t *m, uint64_t *nn, uint64_t *k) {
    if (n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0 || n->n_out < 1 || n->out[0] < 0)
        return false;
    const struct oc_value *a = &g->values[n->in[0]], *b = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    uint64_t ny;
    if (a->rank < 1 || b->rank < 1 || y->rank < 1 || !oc_value_numel(y, &ny))
        return false;
    if (oc_node_is(n, "MatMul") || oc_node_is(n, "Gemm")) {
        int64_t ta = 0;
        if (oc_node_is(n, "Gemm") && oc_attr_int(n, "transA", 0, &ta, NULL) != OC_OK)
            return false;
        int64_t kk = a->rank >= 2 && ta ? a->dims[a->rank - 2].value : a->dims[a->rank - 1].value;
        int64_t cols = y->dims[y->rank - 1].value;
        if (kk <= 0 || cols <= 0)
            return false;
        *k = (uint64_t)kk;
        *nn = (uint64_t)cols;
        *m = ny / (uint64_t)cols;
        return true;
    }
    if (oc_node_is(n, "Conv") && b->rank >= 3 && y->rank >= 3) {
        int64_t groups = 1;
        if (oc_attr_int(n, "group", 1, &groups, NULL) != OC_OK || groups < 1 || b->dims[0].value <= 0)
            return false;
        uint64_t kk = 1;
        for (int32_t d = 1; d < b->rank; d++) { /* C_in / group x kernel */
            if (b->dims[d].value <= 0)
                return false;
            kk *= (uint64_t)b->dims[d].value;
        }
        *k = kk;
        *nn = (uint64_t)b->dims[0].value / (uint64_t)groups;
        *m = ny / (uint64_t)b->dims[0].value; /* batch x output positions */
        return *nn > 0;
    }
    return false;
}

static enum oc_status oc_rule_tc_alignment(struct oc_lint_ctx *c) {
    const struct oc_perf *perf = c->o->perf;
    const struct oc_graph *g = c->g;
    if (!perf)
        return OC_OK;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if (i >= perf->n_nodes || !perf->nodes[i].known || !c->live[i])
            continue;
        enum oc_unit u = perf->nodes[i].unit;
        uint64_t tile = u == OC_UNIT_FP16_TC || u == OC_UNIT_BF16_TC ? 8
                        : u == OC_UNIT_INT8_TC || u == OC_UNIT_FP8_TC ? 16
                        : u == OC_UNIT_TF32_TC                         ? 4
                                                                       : 0;
        uint64_t m, nn, k;
        if (!tile || !oc_gemm_dims(g, n, &m, &nn, &k) || (nn % tile == 0 && k % tile == 0))
            continue;
        /* the tiles along N and K (M, batch x positions, is large and left as it is) */
        uint64_t np = (nn + tile - 1) / tile * tile, kp = (k + tile - 1) / tile * tile;
        double extra = (double)np * (double)kp / ((double)nn * (double)k) - 1.0;
        double t_extra = perf->nodes[i].t_compute * extra;
        char lab[160];
        struct oc_lint_finding *f = oc_lint_add(
            c, OC_LINT_TC_ALIGNMENT,
            "%s on %s: N %llu and K %llu (M %llu) are not all multiples of %llu: the tiles compute %.2f %% more "
            "MACs than the %llu it needs, about %.3f us more than the prediction; make them multiples of %llu "
            "(pad the dim: %llu and %llu)",
            oc_node_label(n, lab, sizeof lab), oc_unit_name(u), (unsigned long long)nn, (unsigned long long)k,
            (unsigned long long)m, (unsigned long long)tile, 100.0 * extra, (unsigned long long)(m * nn * k),
            t_extra * 1e6, (unsigned long long)tile, (unsigned long long)np, (unsigned long long)kp);
        if (!f || !oc_lint_node(f, i))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}

/* ---- precision/cast-weights, precision/narrower-weights, model/old-opset ------------------ */

static enum oc_status oc_rule_precision(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    if (c->o->enabled[OC_LINT_CAST_WEIGHTS]) { /* Cast(float weight) to a narrower float, live */
        struct oc_lint_finding *f = NULL;
        for (int32_t s = 0; s < g->n_nodes; s++) {
            int32_t i = g->order[s];
            const struct oc_node *n = &g->nodes[i];
            if (!c->live[i] || !oc_narrowing_weight_cast(g, n))
                continue;
            const struct oc_value *w = &g->values[n->in[0]], *y = &g->values[n->out[0]];
            if (!f && !(f = oc_lint_add(c, OC_LINT_CAST_WEIGHTS, "%s", "")))
                return OC_ERR_NOMEM;
            if (!oc_lint_node(f, i) || !oc_lint_value(f, n->in[0]))
                return OC_ERR_NOMEM;
            oc_node_saving(c, i, &f->saving);
            uint64_t wb = 0, yb = 0;
            if (w->n_consumers == 1 && !c->removed[n->in[0]] && oc_value_bytes_priced(g, w, &wb) &&
                oc_value_bytes_priced(g, y, &yb) &&
                wb > yb && wb - yb <= INT64_MAX) { /* stored as the compute reads it */
                oc_sat_i64(&f->saving.weight_bytes, (int64_t)(wb - yb));
                c->removed[n->in[0]] = true;
            }
        }
        if (f) {
            char lab[160];
            snprintf(f->message, sizeof f->message,
                     "%d weight%s stored as %s and cast to %s on every run (first %s): store %s as %s",
                     f->n_values, f->n_values == 1 ? "" : "s", oc_dtype_name(g->values[f->values[0]].dtype),
                     oc_dtype_name(g->values[g->nodes[f->nodes[0]].out[0]].dtype),
                     oc_node_label(&g->nodes[f->nodes[0]], lab, sizeof lab), f->n_values == 1 ? "it" : "them",
                     oc_dtype_name(g->values[g->nodes[f->nodes[0]].out[0]].dtype));
        }
    }
    if (c->o->enabled[OC_LINT_NARROWER_WEIGHTS]) { /* float32 weights: what 16 and 8 bits would take */
        uint64_t n32 = 0, b32 = 0;
        int32_t count = 0;
        for (int32_t k = 0; k < g->n_inits; k++) {
            const struct oc_value *w = &g->values[g->inits[k]];
            uint64_t n = 0;
            if (w->dtype != 1 || !c->needed[g->inits[k]] || c->removed[g->inits[k]] || !oc_value_numel(w, &n) ||
                n < 2 || n > (UINT64_MAX >> 3) - n32)
                continue;
            n32 += n;
            b32 += 4 * n;
            count++;
        }
        /* --dtype prices every float at its bits: the weights are then
           already that wide, and only what is narrower still is offered */
        int32_t bits = g->price_bits > 0 ? g->price_bits : 32;
        uint64_t priced = n32 * (uint64_t)bits / 8;
        if (bits == 32 && b32 >= (1u << 20)) { /* below a MiB it is not worth a line */
            struct oc_lint_finding *f = oc_lint_add(
                c, OC_LINT_NARROWER_WEIGHTS,
                "%d float32 weights, %.2f MiB: as float16 or bfloat16 they would take %.2f MiB, as int8 %.2f MiB "
                "(quantized, with a scale per channel)",
                count, (double)b32 / 1048576.0, (double)(2 * n32) / 1048576.0, (double)n32 / 1048576.0);
            if (!f)
                return OC_ERR_NOMEM;
            f->saving.weight_bytes = 2 * n32 <= INT64_MAX ? (int64_t)(2 * n32) : INT64_MAX; /* the float16 step */
        } else if (bits > 8 && bits < 32 && priced >= (1u << 20)) {
            struct oc_lint_finding *f = oc_lint_add(
                c, OC_LINT_NARROWER_WEIGHTS,
                "%d float32 weights priced at %d bits (--dtype), %.2f MiB: as int8 they would take %.2f MiB "
                "(quantized, with a scale per channel)",
                count, (int)bits, (double)priced / 1048576.0, (double)n32 / 1048576.0);
            if (!f)
                return OC_ERR_NOMEM;
            uint64_t save = priced - n32;
            f->saving.weight_bytes = save <= INT64_MAX ? (int64_t)save : INT64_MAX;
        }
    }
    if (c->o->enabled[OC_LINT_OLD_OPSET]) {
        int64_t v = oc_graph_opset(g, "");
        if (v > 0 && v < 13 &&
            !oc_lint_add(c, OC_LINT_OLD_OPSET,
                         "the model imports the default domain at opset %lld: export at 13 or later (17 is what "
                         "current exporters write), where runtimes' fusions apply",
                         (long long)v))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}

/* ---- memory/peak and memory/peak-order --------------------------------------------------- */

/* The most node-input visits the order's scan makes before it gives up. */
#define OC_ORDER_WORK 200000000ull

/* An execution order that keeps memory low: of the nodes ready, the one
   that allocates least less what it frees (ties to file order). Greedy;
   its peak is then computed exactly. NULL when out of memory or when the
   scan passes OC_ORDER_WORK (*gave_up then). */
static int32_t *oc_low_memory_order(const struct oc_lint_ctx *c, bool *gave_up) {
    const struct oc_graph *g = c->g;
    const int32_t *start = c->rstart, *adj = c->radj; /* the readers of each value */
    int32_t nn = g->n_nodes, nv = g->n_values, n_ready = 0;
    int32_t *order = malloc(((size_t)nn + 1) * sizeof *order), *missing = calloc((size_t)nn + 1, sizeof *missing);
    int32_t *readers = calloc((size_t)nv + 1, sizeof *readers), *root = malloc(((size_t)nv + 1) * sizeof *root);
    int32_t *ready = malloc(((size_t)nn + 1) * sizeof *ready);
    uint64_t *bytes = calloc((size_t)nv + 1, sizeof *bytes);
    *gave_up = false;
    if (!order || !missing || !readers || !root || !ready || !bytes) {
        free(order), free(missing), free(readers), free(root), free(ready), free(bytes);
        return NULL;
    }
    for (int32_t v = 0; v < nv; v++) {
        root[v] = v;
        uint64_t b = 0;
        if (g->values[v].kind != OC_VALUE_INITIALIZER && oc_value_bytes(&g->values[v], &b))
            bytes[v] = b;
    }
    for (int32_t s = 0; s < nn; s++) { /* an alias's output is its input's buffer */
        const struct oc_node *n = &g->nodes[g->order[s]];
        if (n->def && (n->def->flags & OC_OPF_ALIAS) && n->n_in > 0 && n->in[0] >= 0 && n->n_out > 0 &&
            n->out[0] >= 0 && g->values[n->in[0]].kind != OC_VALUE_INITIALIZER)
            root[n->out[0]] = root[n->in[0]];
    }
    for (int32_t i = 0; i < nn; i++) {
        const struct oc_node *n = &g->nodes[i];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v < 0)
                continue;
            readers[root[v]]++;
            if (g->values[v].kind == OC_VALUE_NODE && g->values[v].producer >= 0)
                missing[i]++;
        }
        if (!missing[i])
            ready[n_ready++] = i;
    }
    uint64_t work = 0; /* the scan's cost so far: a hostile graph (a huge ready set, wide nodes) gives up */
    for (int32_t s = 0; s < nn; s++) {
        int32_t best = -1, best_at = -1;
        double best_net = 0;
        for (int32_t r = 0; r < n_ready && order; r++) {
            int32_t i = ready[r];
            const struct oc_node *n = &g->nodes[i];
            double net = 0; /* a heuristic: doubles, no overflow */
            work += 1 + (uint64_t)n->n_out + (uint64_t)n->n_in * (uint64_t)n->n_in;
            if (work > OC_ORDER_WORK) {
                free(order), order = NULL;
                break;
            }
            for (int32_t k = 0; k < n->n_out; k++) /* what it allocates */
                if (n->out[k] >= 0 && root[n->out[k]] == n->out[k])
                    net += (double)bytes[n->out[k]];
            for (int32_t k = 0; k < n->n_in; k++) { /* what it frees: buffers it reads last */
                int32_t v = n->in[k];
                if (v < 0)
                    continue;
                int32_t b = root[v], mine = 0;
                bool first_mention = true;
                for (int32_t j = 0; j < n->n_in; j++) {
                    bool same = n->in[j] >= 0 && root[n->in[j]] == b;
                    mine += same;
                    first_mention &= !(same && j < k);
                }
                if (first_mention && readers[b] == mine && !g->values[b].is_graph_output)
                    net -= (double)bytes[b];
            }
            if (best < 0 || net < best_net || (net == best_net && i < best)) {
                best = i;
                best_at = r;
                best_net = net;
            }
        }
        if (!order)
            break;
        if (best < 0) { /* never: the graph has an order */
            free(order), order = NULL;
            break;
        }
        ready[best_at] = ready[--n_ready];
        order[s] = best;
        const struct oc_node *n = &g->nodes[best];
        for (int32_t k = 0; k < n->n_in + n->n_implicit; k++) {
            int32_t v = k < n->n_in ? n->in[k] : n->implicit[k - n->n_in];
            if (v >= 0)
                readers[root[v]]--;
        }
        for (int32_t k = 0; k < n->n_out; k++) { /* its readers lose one missing input per read */
            int32_t v = n->out[k];
            for (int32_t e = v >= 0 ? start[v] : 0; v >= 0 && e < start[v + 1]; e++)
                if (--missing[adj[e]] == 0)
                    ready[n_ready++] = adj[e];
        }
    }
    *gave_up = work > OC_ORDER_WORK;
    free(missing), free(readers), free(root), free(ready), free(bytes);
    return order;
}

static enum oc_status oc_rule_peak(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    const struct oc_totals *t = &c->an->totals;
    if (t->peak_node < 0 || !t->peak_complete || !t->peak_activation_bytes)
        return OC_OK;
    int32_t step = -1;
    for (int32_t s = 0; s < g->n_nodes && step < 0; s++)
        if (g->order[s] == t->peak_node)
            step = s;
    if (c->o->enabled[OC_LINT_PEAK] && step >= 0) {
        int32_t cap = g->n_values, n_live = 0, top[3] = {-1, -1, -1};
        int32_t *live = malloc(((size_t)cap + 1) * sizeof *live);
        if (!live || oc_memory_live_at(g, g->order, step, live, cap, &n_live) != OC_OK) {
            free(live);
            return OC_ERR_NOMEM;
        }
        uint64_t tb[3] = {0, 0, 0};
        for (int32_t k = 0; k < n_live && k < cap; k++) { /* the three largest */
            uint64_t b = 0;
            if (!oc_value_bytes(&g->values[live[k]], &b))
                continue;
            for (int32_t q = 0; q < 3; q++)
                if (top[q] < 0 || b > tb[q]) {
                    for (int32_t r = 2; r > q; r--)
                        top[r] = top[r - 1], tb[r] = tb[r - 1];
                    top[q] = live[k], tb[q] = b;
                    break;
                }
        }
        free(live);
        char lab[160], list[400] = "";
        size_t o = 0;
        for (int32_t k = 0; k < 3 && top[k] >= 0 && o < sizeof list; k++)
            o += (size_t)snprintf(list + o, sizeof list - o, "%s'%s' %.2f MiB (%.0f %%)", k ? ", " : "",
                                  oc_vname(&g->values[top[k]]), (double)tb[k] / 1048576.0,
                                  100.0 * (double)tb[k] / (double)t->peak_activation_bytes);
        struct oc_lint_finding *f =
            oc_lint_add(c, OC_LINT_PEAK,
                        "the peak activation memory, %.2f MiB, is reached at %s with %d tensors live; the largest: %s",
                        (double)t->peak_activation_bytes / 1048576.0,
                        oc_node_label(&g->nodes[t->peak_node], lab, sizeof lab), n_live, list);
        if (!f || !oc_lint_node(f, t->peak_node))
            return OC_ERR_NOMEM;
        for (int32_t k = 0; k < 3 && top[k] >= 0; k++)
            if (!oc_lint_value(f, top[k]))
                return OC_ERR_NOMEM;
    }
    if (c->o->enabled[OC_LINT_PEAK_ORDER] && g->n_nodes <= 200000) { /* the greedy scan of the ready nodes */
        bool gave_up = false;
        int32_t *order = oc_low_memory_order(c, &gave_up);
        if (!order)
            return gave_up ? OC_OK : OC_ERR_NOMEM;
        struct oc_memory m;
        enum oc_status st = oc_memory_peak_order(g, order, &m);
        if (st != OC_OK || !m.complete || m.overflow || m.peak_bytes >= t->peak_activation_bytes) {
            free(order);
            return st == OC_ERR_NOMEM ? st : OC_OK;
        }
        char lab[160];
        struct oc_lint_finding *f = oc_lint_add(
            c, OC_LINT_PEAK_ORDER,
            "running the nodes in another order (the JSON's \"order\", file indices by step) lowers the peak "
            "activation memory from %.2f to %.2f MiB, reached at %s: write the nodes in that order",
            (double)t->peak_activation_bytes / 1048576.0, (double)m.peak_bytes / 1048576.0,
            oc_node_label(&g->nodes[m.peak_node], lab, sizeof lab));
        if (!f) {
            free(order);
            return OC_ERR_NOMEM;
        }
        f->order = order;
        f->n_order = g->n_nodes;
        f->saving.peak_bytes = t->peak_activation_bytes - m.peak_bytes;
    }
    return OC_OK;
}

/* ---- coverage/no-cost ---------------------------------------------------------------- */

/* One finding per node that has no cost of its own making (no rule, no
   shape); the nodes without a cost only because of it are counted in its
   message: they follow once it has a rule. */
static enum oc_status oc_rule_no_cost(struct oc_lint_ctx *c) {
    const struct oc_graph *g = c->g;
    int32_t downstream = 0;
    for (int32_t s = 0; s < g->n_nodes; s++) {
        const struct oc_node *n = &g->nodes[g->order[s]];
        downstream += (n->cost.flags & OC_COST_UNKNOWN || n->status != OC_OK) && n->upstream;
    }
    for (int32_t s = 0; s < g->n_nodes; s++) {
        int32_t i = g->order[s];
        const struct oc_node *n = &g->nodes[i];
        if ((!(n->cost.flags & OC_COST_UNKNOWN) && n->status == OC_OK) || n->upstream)
            continue;
        char lab[160], more[96] = "";
        if (downstream)
            snprintf(more, sizeof more, " (%d node%s downstream of such nodes ha%s none either)", downstream,
                     downstream == 1 ? "" : "s", downstream == 1 ? "s" : "ve");
        struct oc_lint_finding *f =
            oc_lint_add(c, OC_LINT_NO_COST, "node %s has no cost%s%s%s: the totals are lower bounds",
                        oc_node_label(n, lab, sizeof lab), n->reason ? ": " : "", n->reason ? n->reason : "", more);
        if (!f || !oc_lint_node(f, i))
            return OC_ERR_NOMEM;
    }
    return OC_OK;
}

/* ---- the run --------------------------------------------------------------------------- */

static void oc_saving_add(struct oc_lint_saving *t, const struct oc_lint_saving *s) {
    oc_sat_i64(&t->params, s->params);
    oc_sat_i64(&t->weight_bytes, s->weight_bytes);
    oc_sat_u64(&t->macs, s->macs);
    oc_sat_u64(&t->flops, s->flops);
    oc_sat_u64(&t->bytes_moved, s->bytes_moved);
    oc_sat_u64(&t->input_bytes, s->input_bytes);
    oc_sat_u64(&t->peak_bytes, s->peak_bytes);
    t->time_s += s->time_s;
}

enum oc_status oc_lint_run(const struct oc_model *m, const struct oc_analysis *an, const struct oc_lint_opts *o,
                           struct oc_lint_result *out, struct oc_diag *d) {
    memset(out, 0, sizeof *out);
    struct oc_lint_ctx c = {.m = m, .an = an, .g = an->graph, .o = o, .out = out, .d = d};
    const struct oc_graph *g = an->graph;
    c.implicit_read = calloc((size_t)g->n_values + 1, 1);
    c.needed = calloc((size_t)g->n_values + 1, 1);
    c.live = calloc((size_t)g->n_nodes + 1, 1);
    c.biased = calloc((size_t)g->n_nodes + 1, 1);
    c.removed = calloc((size_t)g->n_values + 1, 1);
    c.folded = calloc((size_t)g->n_nodes + 1, 1);
    if (!c.implicit_read || !c.needed || !c.live || !c.biased || !c.removed || !c.folded) {
        free(c.implicit_read), free(c.needed), free(c.live), free(c.biased), free(c.removed), free(c.folded);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    oc_liveness(g, c.live, c.needed);
    if (!oc_graph_readers(g, true, &c.rstart, &c.radj)) { /* subgraphs' reads too */
        free(c.implicit_read), free(c.needed), free(c.live), free(c.biased), free(c.removed), free(c.folded);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < g->n_nodes; i++)
        for (int32_t k = 0; k < g->nodes[i].n_implicit; k++)
            if (g->nodes[i].implicit[k] >= 0)
                c.implicit_read[g->nodes[i].implicit[k]] = true;
    enum oc_status st = OC_OK;
    if (o->enabled[OC_LINT_DUPLICATE] || o->enabled[OC_LINT_DUPLICATE_TRANSPOSED])
        st = oc_rule_duplicates(&c);
    if (st == OC_OK && (o->enabled[OC_LINT_UNUSED_INITIALIZER] || o->enabled[OC_LINT_UNUSED_INPUT]))
        st = oc_rule_unused(&c);
    if (st == OC_OK && o->enabled[OC_LINT_DEAD_NODE])
        st = oc_rule_dead(&c);
    if (st == OC_OK && o->enabled[OC_LINT_CONSTANT_FOLDABLE])
        st = oc_rule_foldable(&c);
    if (st == OC_OK && o->enabled[OC_LINT_NO_OP])
        st = oc_rule_no_op(&c);
    if (st == OC_OK && o->enabled[OC_LINT_CANCELLING])
        st = oc_rule_cancelling(&c);
    if (st == OC_OK && o->enabled[OC_LINT_FOLD_INTO_WEIGHTS])
        st = oc_rule_fold_into_weights(&c);
    if (st == OC_OK && o->enabled[OC_LINT_TC_ALIGNMENT])
        st = oc_rule_tc_alignment(&c);
    if (st == OC_OK && o->enabled[OC_LINT_UNFUSED_ATTENTION])
        st = oc_rule_attention(&c);
    if (st == OC_OK &&
        (o->enabled[OC_LINT_CAST_WEIGHTS] || o->enabled[OC_LINT_NARROWER_WEIGHTS] || o->enabled[OC_LINT_OLD_OPSET]))
        st = oc_rule_precision(&c);
    if (st == OC_OK && (o->enabled[OC_LINT_PEAK] || o->enabled[OC_LINT_PEAK_ORDER]))
        st = oc_rule_peak(&c);
    if (st == OC_OK && o->enabled[OC_LINT_NO_COST])
        st = oc_rule_no_cost(&c);
    free(c.implicit_read), free(c.needed), free(c.live), free(c.biased), free(c.removed), free(c.folded);
    free(c.rstart), free(c.radj);
    if (st != OC_OK) {
        if (st == OC_ERR_NOMEM)
            oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
        oc_lint_free(out);
        return st;
    }
    for (int32_t k = 0; k < out->n_findings; k++) {
        out->by_level[oc_lint_rules[out->findings[k].rule].level]++;
        oc_saving_add(&out->total, &out->findings[k].saving);
    }
    return OC_OK;
}

void oc_lint_free(struct oc_lint_result *r) {
    for (int32_t k = 0; k < r->n_findings; k++) {
        free(r->findings[k].nodes);
        free(r->findings[k].values);
        free(r->findings[k].order);
    }
    free(r->findings);
    memset(r, 0, sizeof *r);
}
