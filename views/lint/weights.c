/*
 * weights.c — weights/duplicate and weights/duplicate-transposed (lint.h,
 * rules.h).
 */
#include "rules.h"

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
                    oc_lint_vname(&c->g->values[v]));
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
    (void)oc_lint_saving_weight(c, f, drop, +1);
    return oc_lint_value(f, drop) && oc_lint_value(f, keep);
}

enum oc_status oc_rule_duplicates(struct oc_lint_ctx *c) {
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
            oc_lint_shape_text(&g->values[drop], sa, sizeof sa);
            oc_lint_shape_text(&g->values[keep], sb, sizeof sb);
            struct oc_lint_finding *f =
                oc_lint_add(c, OC_LINT_DUPLICATE, "'%s' %s holds the same bytes as '%s' %s: keep one",
                            oc_lint_vname(&g->values[drop]), sa, oc_lint_vname(&g->values[keep]), sb);
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
            oc_lint_shape_text(b, sa, sizeof sa);
            oc_lint_shape_text(a, sb, sizeof sb);
            struct oc_lint_finding *f = oc_lint_add(
                c, OC_LINT_DUPLICATE_TRANSPOSED, "'%s' %s is '%s' %s transposed: keep one and read it transposed",
                oc_lint_vname(b), sa, oc_lint_vname(a), sb);
            if (!f || !oc_dup_saving(c, f, items[i].v, items[j].v))
                st = OC_ERR_NOMEM;
        }
    }
    free(items), free(ba), free(bb);
    return st;
}
