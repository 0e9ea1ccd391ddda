/*
 * annotate.c — the model file rewritten with its analysis (annotate.h).
 *
 * Two passes over the wire format of the ModelProto. The first measures
 * the new length of the graph (its length prefix comes before its
 * fields): each node's new length, the value_info entries to add. The
 * second copies every field as bytes in 64 KiB pieces and writes the new
 * ones where a protobuf serializer would put them, in field-number order:
 * a file that was serialized canonically stays so (the same bytes as
 * onnx.load + SerializeToString of the result), which some readers need
 * (Netron 9 drops value_info shapes when a node's fields are out of order). A node is rewritten by one function in both passes (out NULL: only
 * its size), so the lengths written are the lengths measured. Only node
 * fields are looked into: doc_string and metadata_props entries, read to
 * replace an earlier annotation; attributes (subgraphs with their
 * weights) and initializers are copied without being read into memory.
 */
#include "annotate.h"

#include "../analyzer/graph.h"
#include "../analyzer/model.h"
#include "onnx.pb-c.h"
#include "../analyzer/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { OC_WT_VARINT = 0, OC_WT_I64 = 1, OC_WT_LEN = 2, OC_WT_I32 = 5 };
enum { OC_MODEL_GRAPH = 7, OC_MODEL_METADATA = 14 };
enum { OC_GRAPH_NODE = 1, OC_GRAPH_VALUE_INFO = 13 };
enum { OC_NODE_DOC = 6, OC_NODE_METADATA = 9 };

#define OC_KEY_PREFIX "onnxcost."
#define OC_DOC_PREFIX "onnxcost: "
#define OC_VI_DOC "onnxcost: inferred" /* the doc_string of the value_info we add */

/* ---- reading and writing the wire format ---------------------------------------- */

struct oc_io {
    FILE *in, *out;       /* out NULL: measuring pass                      */
    uint64_t size;        /* of the input file                             */
    bool failed;
    struct oc_diag *d;
    uint64_t written;
};

static bool oc_io_fail(struct oc_io *io, enum oc_status st, const char *what, uint64_t pos) {
    if (!io->failed)
        oc_diag_set(io->d, st, "%s at byte %" PRIu64, what, pos);
    io->failed = true;
    return false;
}

static bool oc_io_read(struct oc_io *io, uint64_t pos, void *dst, size_t n) {
    if (pos + n > io->size || fseeko(io->in, (off_t)pos, SEEK_SET) != 0 || fread(dst, 1, n, io->in) != n)
        return oc_io_fail(io, OC_ERR_IO, "cannot read the model", pos);
    return true;
}

static bool oc_io_varint(struct oc_io *io, uint64_t *pos, uint64_t end, uint64_t *v) {
    uint8_t b[10];
    size_t n = end - *pos < 10 ? (size_t)(end - *pos) : 10;
    if (!n || !oc_io_read(io, *pos, b, n))
        return oc_io_fail(io, OC_ERR_PARSE, "truncated varint", *pos);
    *v = 0;
    for (size_t i = 0; i < n; i++) {
        *v |= (uint64_t)(b[i] & 0x7f) << (7 * i);
        if (!(b[i] & 0x80)) {
            *pos += i + 1;
            return true;
        }
    }
    return oc_io_fail(io, OC_ERR_PARSE, "bad varint", *pos);
}

/* One field: its number, and where its value (for LEN: the payload) lies. */
struct oc_field {
    uint32_t num;
    uint32_t wt;
    uint64_t start, value, end; /* tag, value (payload), next field */
};

static bool oc_io_field(struct oc_io *io, uint64_t pos, uint64_t end, struct oc_field *f) {
    uint64_t tag, len;
    f->start = pos;
    if (!oc_io_varint(io, &pos, end, &tag))
        return false;
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint32_t)(tag & 7);
    switch (f->wt) {
    case OC_WT_VARINT:
        f->value = pos;
        if (!oc_io_varint(io, &pos, end, &len))
            return false;
        f->end = pos;
        return true;
    case OC_WT_I64:
    case OC_WT_I32:
        f->value = pos;
        f->end = pos + (f->wt == OC_WT_I64 ? 8 : 4);
        break;
    case OC_WT_LEN:
        if (!oc_io_varint(io, &pos, end, &len))
            return false;
        f->value = pos;
        f->end = pos + len;
        if (len > end - pos)
            return oc_io_fail(io, OC_ERR_PARSE, "field longer than its message", f->start);
        return true;
    default:
        return oc_io_fail(io, OC_ERR_PARSE, "unsupported wire type", f->start);
    }
    if (f->end > end)
        return oc_io_fail(io, OC_ERR_PARSE, "field longer than its message", f->start);
    return true;
}

static void oc_io_put(struct oc_io *io, const void *p, size_t n) {
    if (io->out && !io->failed && n && fwrite(p, 1, n, io->out) != n)
        oc_io_fail(io, OC_ERR_IO, "cannot write the output", io->written);
    io->written += n;
}

/* Copies input bytes [pos, end) to the output (counted only when measuring). */
static void oc_io_copy(struct oc_io *io, uint64_t pos, uint64_t end) {
    if (!io->out) {
        io->written += end - pos;
        return;
    }
    uint8_t buf[1 << 16];
    while (pos < end && !io->failed) {
        size_t n = end - pos < sizeof buf ? (size_t)(end - pos) : sizeof buf;
        if (oc_io_read(io, pos, buf, n))
            oc_io_put(io, buf, n);
        pos += n;
    }
}

/* ---- building new messages in memory ---------------------------------------------- */

struct oc_buf {
    uint8_t *p;
    size_t n, cap;
    bool oom;
};

static void oc_buf_put(struct oc_buf *b, const void *src, size_t n) {
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void oc_buf_varint(struct oc_buf *b, uint64_t v) {
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    oc_buf_put(b, t, n);
}

static void oc_buf_len_field(struct oc_buf *b, uint32_t num, const void *p, size_t n) {
    oc_buf_varint(b, (uint64_t)num << 3 | OC_WT_LEN);
    oc_buf_varint(b, n);
    oc_buf_put(b, p, n);
}

static void oc_buf_str_field(struct oc_buf *b, uint32_t num, const char *s) {
    oc_buf_len_field(b, num, s, strlen(s));
}

/* a StringStringEntryProto as field num of b */
static void oc_buf_entry(struct oc_buf *b, uint32_t num, const char *key, const char *value) {
    struct oc_buf e = {0};
    oc_buf_str_field(&e, 1, key);
    oc_buf_str_field(&e, 2, value);
    b->oom |= e.oom;
    oc_buf_len_field(b, num, e.p, e.n);
    free(e.p);
}

/* ---- what is written ---------------------------------------------------------------- */

struct oc_annot {
    struct oc_io io;
    const struct oc_analysis *an;
    const struct oc_graph *g;
    const struct oc_symbolic *sym;
    const struct oc_gpu *gpu;
    const struct oc_perf *perf;
    const struct oc_range_result *ranges; /* the box, or NULL                 */
    bool exact;          /* every dim bound: numbers are the model's numbers  */
    bool formulas;       /* some dims unbound, all of them fitted as formulas;
                            else costs are numbers at the bindings recorded
                            (unbound ones taken as 1, which onnxcost.bindings
                            says), and shapes keep only what cannot depend
                            on an unbound dim                               */
    const char **declared; /* value_info and output names, sorted             */
    size_t n_declared;
    struct oc_annotate_stats *stats;
};

static int oc_strcmp_p(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool oc_declared(const struct oc_annot *a, const char *name) {
    return a->n_declared && bsearch(&name, a->declared, a->n_declared, sizeof *a->declared, oc_strcmp_p);
}

/* A formula as text, "~" before it when it is fitted, not proven (as the
 * report marks it: symbolic.h); NULL when longer than buf, never cut. */
static const char *oc_formula_text(const struct oc_annot *a, const struct oc_poly *p, bool proven, char *buf,
                                   size_t size) {
    if (size < 3)
        return NULL;
    size_t at = proven ? 0 : 1;
    if (!proven)
        buf[0] = '~';
    return strlen(oc_poly_format(p, a->sym, false, buf + at, size - at)) < size - at - 1 ? buf : NULL;
}

/* A count as text: a formula in the unbound dims ("~" when fitted), or a
 * number (">=" when saturated); NULL for a formula longer than buf, never
 * written cut. */
static const char *oc_count_text(const struct oc_annot *a, const struct oc_poly *p, bool proven, uint64_t v,
                                 bool saturated, char *buf, size_t size) {
    int64_t k;
    if (a->formulas && p && !oc_poly_constant(p, &k)) /* NULL when too long to write whole */
        return oc_formula_text(a, p, proven, buf, size);
    if (a->formulas && p)
        v = (uint64_t)k;
    snprintf(buf, size, "%s%" PRIu64, saturated ? ">=" : "", v);
    return buf;
}

/* The metadata entries and the doc_string line of node i. */
static void oc_node_additions(const struct oc_annot *a, int32_t i, struct oc_buf *meta, struct oc_buf *line) {
    const struct oc_node *n = &a->g->nodes[i];
    const struct oc_node_poly *np = a->formulas ? &a->sym->nodes[i] : NULL;
    bool known = n->status == OC_OK && !(n->cost.flags & OC_COST_UNKNOWN);
    bool sat = (n->cost.flags & OC_COST_OVERFLOW) != 0;
    char buf[512], text[1280], num[32];
    snprintf(num, sizeof num, "%" PRIu64, n->params);
    oc_buf_entry(meta, OC_NODE_METADATA, OC_KEY_PREFIX "params", num);
    if (!known) {
        const char *why = n->reason ? n->reason : oc_status_str(n->status);
        oc_buf_entry(meta, OC_NODE_METADATA, OC_KEY_PREFIX "status", why);
        snprintf(text, sizeof text, OC_DOC_PREFIX "%s params; no cost (%s)", num, why);
        oc_buf_put(line, text, strlen(text));
        return;
    }
    static const char *const keys[] = {"macs", "flops", "activation_bytes", "bytes_read", "bytes_written"};
    const uint64_t v[] = {n->cost.macs, n->cost.flops, n->activation_bytes, n->cost.bytes_read, n->cost.bytes_written};
    const struct oc_poly *p[] = {np ? np->macs : NULL, np ? np->flops : NULL, np ? np->activation_bytes : NULL};
    char shown[2][512];
    bool missing = false; /* MACs or FLOPs without a formula to write */
    for (int k = 0; k < 5; k++) {
        if (a->formulas && (k >= 3 || !p[k])) { /* no formula: the number at 1 would mislead */
            missing |= k < 2;
            continue;
        }
        bool proven = a->formulas && a->sym->node_proven && a->sym->node_proven[i];
        if (!oc_count_text(a, k < 3 ? p[k] : NULL, proven, v[k], sat && k < 2, buf, sizeof buf)) {
            missing |= k < 2;
            continue;
        }
        if (k < 2)
            snprintf(shown[k], sizeof shown[k], "%s", buf);
        char key[64];
        snprintf(key, sizeof key, OC_KEY_PREFIX "%s", keys[k]);
        oc_buf_entry(meta, OC_NODE_METADATA, key, buf);
    }
    if (missing) {
        snprintf(text, sizeof text, OC_DOC_PREFIX "%s params; costs depend on unbound dims and are not polynomial",
                 num);
    } else {
        snprintf(text, sizeof text, OC_DOC_PREFIX "%s params, %s MACs, %s FLOPs", num, shown[0], shown[1]);
    }
    oc_buf_put(line, text, strlen(text));
    const struct oc_range_result *r = a->ranges;
    if (r && r->nodes && i < r->n_nodes && !r->nodes[i].unknown) { /* [min, max] over the box */
        static const char *const rkeys[OC_RN_COUNT] = {"macs_range", "flops_range", "activation_bytes_range"};
        for (int k = 0; k < OC_RN_COUNT; k++) {
            char key[64];
            snprintf(key, sizeof key, OC_KEY_PREFIX "%s", rkeys[k]);
            snprintf(buf, sizeof buf, "[%" PRIu64 ", %" PRIu64 "]", r->nodes[i].min[k], r->nodes[i].max[k]);
            oc_buf_entry(meta, OC_NODE_METADATA, key, buf);
        }
        snprintf(buf, sizeof buf, "; over the ranges [%" PRIu64 ", %" PRIu64 "] MACs", r->nodes[i].min[OC_RN_MACS],
                 r->nodes[i].max[OC_RN_MACS]);
        oc_buf_put(line, buf, strlen(buf));
    }
    if (a->perf && !a->formulas && a->perf->nodes[i].known) {
        const struct oc_node_perf *q = &a->perf->nodes[i];
        static const char *const bound[] = {"none", "memory", "compute"};
        snprintf(buf, sizeof buf, "%.3f", q->time * 1e6);
        oc_buf_entry(meta, OC_NODE_METADATA, OC_KEY_PREFIX "time_us", buf);
        oc_buf_entry(meta, OC_NODE_METADATA, OC_KEY_PREFIX "bound", bound[q->bound]);
        char t[96];
        snprintf(t, sizeof t, ", %.3f us on %s (%s-bound)", q->time * 1e6, a->gpu->id, bound[q->bound]);
        oc_buf_put(line, t, strlen(t));
    }
}

/* Does a metadata entry at [pos, end) have an onnxcost key? */
static bool oc_entry_is_ours(struct oc_io *io, uint64_t pos, uint64_t end) {
    struct oc_field f;
    char key[sizeof OC_KEY_PREFIX];
    bool ours = false;
    while (pos < end && oc_io_field(io, pos, end, &f)) { /* the last key field is the key */
        if (f.num == 1 && f.wt == OC_WT_LEN)
            ours = f.end - f.value >= sizeof key - 1 && oc_io_read(io, f.value, key, sizeof key - 1) &&
                   memcmp(key, OC_KEY_PREFIX, sizeof key - 1) == 0;
        pos = f.end;
    }
    return ours;
}

/* Is the ValueInfoProto at [pos, end) one an earlier annotation added (its
 * doc_string starts with OC_VI_DOC)? Then it is replaced, not kept. */
static bool oc_value_info_is_ours(struct oc_io *io, uint64_t pos, uint64_t end) {
    struct oc_field f;
    char doc[sizeof OC_VI_DOC];
    bool ours = false;
    while (pos < end && oc_io_field(io, pos, end, &f)) {
        if (f.num == 3 && f.wt == OC_WT_LEN)
            ours = f.end - f.value == sizeof doc - 1 && oc_io_read(io, f.value, doc, sizeof doc - 1) &&
                   memcmp(doc, OC_VI_DOC, sizeof doc - 1) == 0;
        pos = f.end;
    }
    return ours;
}

/* The node's doc_string at [pos, end), less an earlier line of ours, into doc. */
static void oc_node_doc(struct oc_io *io, uint64_t pos, uint64_t end, struct oc_buf *doc) {
    struct oc_field f;
    while (pos < end && !io->failed && oc_io_field(io, pos, end, &f)) {
        pos = f.end;
        if (f.num != OC_NODE_DOC || f.wt != OC_WT_LEN)
            continue;
        size_t n = (size_t)(f.end - f.value);
        char *s = malloc(n + 1);
        if (!s || !oc_io_read(io, f.value, s, n)) {
            doc->oom |= !s;
            free(s);
            return;
        }
        /* our line is the last paragraph, one line: "onnxcost: ..." at the start
         * or after "\n\n", with no newline after it */
        size_t keep = n, plen = strlen(OC_DOC_PREFIX);
        for (size_t k = n; k-- > 0;) {
            if (s[k] == '\n')
                break;
            if (n - k >= plen && memcmp(s + k, OC_DOC_PREFIX, plen) == 0 &&
                (k == 0 || (k >= 2 && s[k - 1] == '\n' && s[k - 2] == '\n'))) {
                keep = k >= 2 ? k - 2 : 0;
                break;
            }
        }
        doc->n = 0; /* the last doc_string field wins, as when parsed */
        oc_buf_put(doc, s, keep);
        free(s);
    }
}

/* Node i at [pos, end): written to the output (or measured); returns its new
 * length. The new doc_string and metadata entries go where a serializer puts
 * them, in field order (doc_string 6 before metadata_props 9): viewers such as
 * Netron 9 stop reading value_info shapes when a node's fields come out of
 * order. */
static uint64_t oc_node_rewrite(struct oc_annot *a, int32_t i, uint64_t pos, uint64_t end) {
    struct oc_io *io = &a->io;
    struct oc_buf meta = {0}, doc = {0}, line = {0}, docf = {0};
    oc_node_additions(a, i, &meta, &line);
    oc_node_doc(io, pos, end, &doc);
    if (doc.n)
        oc_buf_put(&doc, "\n\n", 2);
    oc_buf_put(&doc, line.p, line.n);
    oc_buf_len_field(&docf, OC_NODE_DOC, doc.p, doc.n);
    bool oom = meta.oom || doc.oom || line.oom || docf.oom, doc_done = false, meta_done = false;
    if (oom)
        oc_io_fail(io, OC_ERR_NOMEM, "out of memory annotating a node", pos);
    uint64_t before = io->written;
    struct oc_field f;
    while (pos < end && !io->failed && oc_io_field(io, pos, end, &f)) {
        pos = f.end;
        if (!doc_done && f.num > OC_NODE_DOC) {
            oc_io_put(io, docf.p, docf.n);
            doc_done = true;
        }
        if (!meta_done && f.num > OC_NODE_METADATA) {
            oc_io_put(io, meta.p, meta.n);
            meta_done = true;
        }
        if (f.num == OC_NODE_DOC && f.wt == OC_WT_LEN) /* replaced by ours */
            continue;
        if (f.num == OC_NODE_METADATA && f.wt == OC_WT_LEN && oc_entry_is_ours(io, f.value, f.end))
            continue;
        oc_io_copy(io, f.start, f.end);
    }
    if (!doc_done)
        oc_io_put(io, docf.p, docf.n);
    if (!meta_done)
        oc_io_put(io, meta.p, meta.n);
    free(meta.p);
    free(doc.p);
    free(line.p);
    free(docf.p);
    return io->written - before;
}

/* One dim of an added value_info, as a TensorShapeProto.Dimension. */
static void oc_dim_proto(const struct oc_annot *a, int32_t vi, int32_t axis, struct oc_buf *dim) {
    const struct oc_dim *dm = &a->g->values[vi].dims[axis];
    const struct oc_poly *p = a->formulas && a->sym->dims && a->sym->dims[vi] ? a->sym->dims[vi][axis] : NULL;
    int64_t k;
    char buf[512];
    if (a->exact && dm->value >= 0) {
        oc_buf_varint(dim, 1 << 3 | OC_WT_VARINT);
        oc_buf_varint(dim, (uint64_t)dm->value);
    } else if (a->exact ? dm->sym != NULL : p != NULL) {
        if (p && oc_poly_constant(p, &k)) {
            oc_buf_varint(dim, 1 << 3 | OC_WT_VARINT);
            oc_buf_varint(dim, (uint64_t)k);
        } else if (!p || oc_formula_text(a, p, a->sym->value_derived && a->sym->value_derived[vi], buf, sizeof buf)) {
            oc_buf_str_field(dim, 2, p ? buf : dm->sym); /* a fitted dim named "~..." */
        } /* else a formula too long for the buffer: unknown rather than cut */
    } else if (dm->sym) { /* the unbound dim itself */
        oc_buf_str_field(dim, 2, dm->sym);
    } /* else unknown: an empty Dimension */
}

/* The value_info entries to add, into b (a list of graph fields 13). */
static void oc_value_infos(struct oc_annot *a, struct oc_buf *b) {
    const struct oc_graph *g = a->g;
    for (int32_t vi = 0; vi < g->n_values; vi++) {
        const struct oc_value *v = &g->values[vi];
        if (v->kind != OC_VALUE_NODE || v->nt || v->dtype <= 0 || !v->name || !v->name[0])
            continue;
        if (oc_declared(a, v->name)) {
            a->stats->n_value_info_kept++;
            continue;
        }
        struct oc_buf shape = {0}, tensor = {0}, type = {0}, vinfo = {0};
        for (int32_t k = 0; k < v->rank; k++) {
            struct oc_buf dim = {0};
            oc_dim_proto(a, vi, k, &dim);
            shape.oom |= dim.oom;
            oc_buf_len_field(&shape, 1, dim.p, dim.n);
            free(dim.p);
        }
        oc_buf_varint(&tensor, 1 << 3 | OC_WT_VARINT);
        oc_buf_varint(&tensor, (uint64_t)v->dtype);
        if (v->rank >= 0)
            oc_buf_len_field(&tensor, 2, shape.p, shape.n);
        oc_buf_len_field(&type, 1, tensor.p, tensor.n);
        oc_buf_str_field(&vinfo, 1, v->name);
        oc_buf_len_field(&vinfo, 2, type.p, type.n);
        oc_buf_str_field(&vinfo, 3, OC_VI_DOC); /* replaced, not kept, by a later annotation */
        oc_buf_len_field(b, OC_GRAPH_VALUE_INFO, vinfo.p, vinfo.n);
        b->oom |= shape.oom || tensor.oom || type.oom || vinfo.oom;
        free(shape.p);
        free(tensor.p);
        free(type.p);
        free(vinfo.p);
        a->stats->n_value_info++;
    }
}

/* The graph at [pos, end) rewritten (or measured); returns its new length. */
static uint64_t oc_graph_rewrite(struct oc_annot *a, uint64_t pos, uint64_t end, const struct oc_buf *infos) {
    struct oc_io *io = &a->io;
    uint64_t before = io->written;
    int32_t node = 0;
    bool infos_done = false;
    struct oc_field f;
    while (pos < end && !io->failed && oc_io_field(io, pos, end, &f)) {
        pos = f.end;
        if (!infos_done && f.num > OC_GRAPH_VALUE_INFO) { /* in field order, as a serializer writes */
            oc_io_put(io, infos->p, infos->n);
            infos_done = true;
        }
        if (f.num == OC_GRAPH_VALUE_INFO && f.wt == OC_WT_LEN && oc_value_info_is_ours(io, f.value, f.end))
            continue; /* an earlier annotation's shape: the new one is in infos */
        if (f.num != OC_GRAPH_NODE || f.wt != OC_WT_LEN) {
            oc_io_copy(io, f.start, f.end);
            continue;
        }
        if (node >= a->g->n_nodes) {
            oc_io_fail(io, OC_ERR_MODEL, "more nodes in the file than in the analysis", f.start);
            break;
        }
        /* the new length prefix needs the new length: measure, then write */
        FILE *out = io->out;
        uint64_t written = io->written;
        io->out = NULL;
        uint64_t len = oc_node_rewrite(a, node, f.value, f.end);
        io->out = out;
        io->written = written;
        if (io->failed)
            break;
        uint8_t hdr[16];
        struct oc_buf h = {hdr, 0, sizeof hdr, false};
        oc_buf_varint(&h, (uint64_t)OC_GRAPH_NODE << 3 | OC_WT_LEN);
        oc_buf_varint(&h, len);
        oc_io_put(io, h.p, h.n);
        oc_node_rewrite(a, node, f.value, f.end);
        node++;
    }
    if (!io->failed && node != a->g->n_nodes)
        oc_io_fail(io, OC_ERR_MODEL, "fewer nodes in the file than in the analysis", end);
    if (!infos_done)
        oc_io_put(io, infos->p, infos->n);
    return io->written - before;
}

/* The model's metadata entries: totals, completeness, bindings, GPU. */
static void oc_model_entries(const struct oc_annot *a, struct oc_buf *b) {
    const struct oc_totals *t = &a->an->totals;
    const struct oc_symbolic *s = a->formulas ? a->sym : NULL;
    bool lower = t->n_uncosted > 0 || (t->flags & OC_COST_OVERFLOW);
    char buf[1024];
    const char *prefix = lower ? ">=" : "";
    snprintf(buf, sizeof buf, "%" PRIu64, t->params);
    oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "params", buf);
    static const char *const keys[] = {OC_KEY_PREFIX "macs", OC_KEY_PREFIX "flops", OC_KEY_PREFIX "activation_bytes"};
    const uint64_t v[] = {t->macs, t->flops, t->activation_bytes};
    const struct oc_poly *p[] = {s ? s->macs : NULL, s ? s->flops : NULL, s ? s->activation_bytes : NULL};
    for (int k = 0; k < 3; k++) {
        if (a->formulas && !p[k])
            continue;
        char num[1100];
        const char *txt = oc_count_text(a, p[k], s && s->totals_proven, v[k], false, buf, sizeof buf);
        if (!txt)
            continue;
        snprintf(num, sizeof num, "%s%s", prefix, txt);
        oc_buf_entry(b, OC_MODEL_METADATA, keys[k], num);
    }
    if (!a->formulas) {
        snprintf(buf, sizeof buf, "%s%" PRIu64, t->peak_complete && !lower ? "" : ">=", t->peak_activation_bytes);
        oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "peak_activation_bytes", buf);
    }
    if (lower)
        snprintf(buf, sizeof buf, "false: %d of %d nodes without a cost%s; MACs, FLOPs and sizes are lower bounds",
                 t->n_uncosted, t->n_nodes, t->flags & OC_COST_OVERFLOW ? ", a count saturated" : "");
    else
        snprintf(buf, sizeof buf, "true");
    oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "complete", buf);
    if (s) { /* whether the formulas written are proven, and where */
        if (s->all_proven)
            snprintf(buf, sizeof buf, "proven: derived through the ops%s%s", s->where[0] ? ", where " : "", s->where);
        else
            snprintf(buf, sizeof buf, "fitted: those marked ~ are fitted to %d analyses, not proven (%s)", s->n_runs,
                     s->why);
        oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "formulas", buf);
    }
    size_t o = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < a->an->n_bound && o < sizeof buf - 64; i++) {
        const struct oc_bound_dim *bd = &a->an->bound[i];
        const char *sep = o ? ", " : "";
        if (bd->source == OC_BIND_DEFAULT && bd->name && s)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s (a symbol in the formulas)", sep, bd->name);
        else if (bd->name)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s=%" PRId64 "%s", sep, bd->name, bd->value,
                                  bd->source == OC_BIND_DEFAULT ? " (unbound: taken as 1)" : "");
        else
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s[%d]=%" PRId64 "%s", sep, bd->input, bd->axis,
                                  bd->value, bd->source == OC_BIND_DEFAULT ? " (unbound: taken as 1)" : "");
    }
    if (o)
        oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "bindings", buf);
    const struct oc_range_result *r = a->ranges;
    if (r) { /* the box, how it was bounded, and each total's [min, max] */
        static const char *const how[] = {"each figure proven monotone", "every binding analyzed",
                                          "not bounded: not proven monotone, and more bindings than --range-points"};
        o = 0;
        for (int32_t k = 0; k < r->n && o < sizeof buf - 128; k++) {
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s=%" PRId64 "..%" PRId64, k ? ", " : "", r->dims[k].name,
                                  r->dims[k].lo, r->dims[k].hi);
            if (o >= sizeof buf) /* cut: a long dim name */
                o = sizeof buf - 1;
        }
        if (o < sizeof buf - 1)
            snprintf(buf + o, sizeof buf - o, " (%s)", how[r->method]);
        oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "ranges", buf);
        static const enum oc_range_fig figs[] = {OC_RF_MACS, OC_RF_FLOPS, OC_RF_ACTIVATION_BYTES, OC_RF_PEAK};
        bool rlower = !oc_totals_exact(&r->worst) || !r->worst.peak_complete;
        for (size_t k = 0; r->method != OC_RANGE_UNBOUNDED && k < sizeof figs / sizeof *figs; k++) {
            char key[96];
            snprintf(key, sizeof key, OC_KEY_PREFIX "%s_range", oc_range_figure_label(figs[k]));
            snprintf(buf, sizeof buf, "[%s%" PRIu64 ", %s%" PRIu64 "]", rlower ? ">=" : "", r->fig[figs[k]].min,
                     rlower ? ">=" : "", r->fig[figs[k]].max);
            oc_buf_entry(b, OC_MODEL_METADATA, key, buf);
        }
    }
    if (a->perf && !a->formulas) {
        oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "gpu", a->gpu->name);
        snprintf(buf, sizeof buf, "%s%.4f", lower ? ">=" : "", a->perf->time * 1e3);
        oc_buf_entry(b, OC_MODEL_METADATA, OC_KEY_PREFIX "latency_ms", buf);
    }
}

enum oc_status oc_annotate_write(FILE *in, const struct oc_model *m, const struct oc_analysis *an,
                                 const struct oc_annotate_opts *o, FILE *out, struct oc_annotate_stats *stats,
                                 struct oc_diag *d) {
    const struct oc_symbolic *sym = o->sym;
    memset(stats, 0, sizeof *stats);
    const Onnx__ModelProto *mp = oc_model_proto(m);
    const Onnx__GraphProto *gp = mp ? mp->graph : NULL;
    if (!gp)
        return oc_diag_set(d, OC_ERR_MODEL, "no graph to annotate");
    struct oc_annot a = {
        .an = an,
        .g = an->graph,
        .sym = sym,
        .gpu = o->gpu,
        .perf = o->gpu ? o->perf : NULL,
        .ranges = o->ranges,
        .stats = stats};
    bool unnamed_default = false;
    a.exact = true;
    for (int32_t i = 0; i < an->n_bound; i++)
        if (an->bound[i].source == OC_BIND_DEFAULT) {
            a.exact = false;
            unnamed_default |= !an->bound[i].name;
        }
    a.formulas = !a.exact && sym && !unnamed_default;
    a.n_declared = gp->n_value_info + gp->n_output;
    a.declared = malloc((a.n_declared ? a.n_declared : 1) * sizeof *a.declared);
    if (!a.declared)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    a.n_declared = 0;
    for (size_t i = 0; i < gp->n_value_info; i++) /* an earlier annotation's shapes are not declarations */
        if (!gp->value_info[i]->doc_string || strcmp(gp->value_info[i]->doc_string, OC_VI_DOC) != 0)
            a.declared[a.n_declared++] = gp->value_info[i]->name ? gp->value_info[i]->name : "";
    for (size_t i = 0; i < gp->n_output; i++)
        a.declared[a.n_declared++] = gp->output[i]->name ? gp->output[i]->name : "";
    qsort(a.declared, a.n_declared, sizeof *a.declared, oc_strcmp_p);
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (gp->initializer[i]->has_data_location &&
            gp->initializer[i]->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
            if (!stats->n_external++)
                for (size_t k = 0; k < gp->initializer[i]->n_external_data; k++)
                    if (gp->initializer[i]->external_data[k]->key &&
                        strcmp(gp->initializer[i]->external_data[k]->key, "location") == 0)
                        stats->external_location = gp->initializer[i]->external_data[k]->value;
        }

    struct oc_buf infos = {0}, entries = {0};
    if (!o->no_shapes)
        oc_value_infos(&a, &infos);
    oc_model_entries(&a, &entries);
    enum oc_status st = OC_OK;
    a.io = (struct oc_io){.in = in, .d = d};
    if (infos.oom || entries.oom) {
        st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    } else if (fseeko(a.io.in, 0, SEEK_END) != 0) {
        st = errno == ENOMEM ? oc_diag_set(d, OC_ERR_NOMEM, "out of memory")
                             : oc_diag_set(d, OC_ERR_IO, "cannot read the model again to copy it");
    } else {
        a.io.size = (uint64_t)ftello(a.io.in);
        int32_t graphs = 0;
        uint64_t pos = 0, graph_len = 0;
        struct oc_field f, graph = {0};
        while (pos < a.io.size && !a.io.failed && oc_io_field(&a.io, pos, a.io.size, &f)) {
            pos = f.end;
            if (f.num == OC_MODEL_GRAPH && f.wt == OC_WT_LEN && graphs++ == 0)
                graph = f;
        }
        /* protobuf would merge several: the file's nodes would not be the analysis' */
        if (!a.io.failed && graphs != 1)
            oc_io_fail(&a.io, OC_ERR_UNSUPPORTED, "the graph field appears more than once", graph.start);
        /* first pass: the new length of the graph */
        if (!a.io.failed)
            graph_len = oc_graph_rewrite(&a, graph.value, graph.end, &infos);
        /* second pass: the file */
        a.io.out = out;
        a.io.written = 0;
        pos = 0;
        int32_t node_count = 0;
        bool entries_done = false;
        while (pos < a.io.size && !a.io.failed && oc_io_field(&a.io, pos, a.io.size, &f)) {
            pos = f.end;
            if (!entries_done && f.num > OC_MODEL_METADATA) {
                oc_io_put(&a.io, entries.p, entries.n);
                entries_done = true;
            }
            if (f.num == OC_MODEL_GRAPH && f.wt == OC_WT_LEN) {
                struct oc_buf h = {0};
                oc_buf_varint(&h, (uint64_t)OC_MODEL_GRAPH << 3 | OC_WT_LEN);
                oc_buf_varint(&h, graph_len);
                if (h.oom)
                    oc_io_fail(&a.io, OC_ERR_NOMEM, "out of memory", f.start);
                else
                    oc_io_put(&a.io, h.p, h.n);
                free(h.p);
                uint64_t len = oc_graph_rewrite(&a, f.value, f.end, &infos);
                if (!a.io.failed && len != graph_len)
                    oc_io_fail(&a.io, OC_ERR_USAGE, "the graph length changed between passes (a bug)", f.start);
                node_count = a.g->n_nodes;
            } else if (!(f.num == OC_MODEL_METADATA && f.wt == OC_WT_LEN && oc_entry_is_ours(&a.io, f.value, f.end))) {
                oc_io_copy(&a.io, f.start, f.end);
            }
        }
        if (!entries_done)
            oc_io_put(&a.io, entries.p, entries.n);
        if (!a.io.failed && fflush(out) != 0)
            oc_io_fail(&a.io, OC_ERR_IO, "cannot write the output", a.io.written);
        st = a.io.failed ? d->code : OC_OK;
        stats->n_nodes = node_count;
        stats->bytes_in = a.io.size;
        stats->bytes_out = a.io.written;
    }
    free(infos.p);
    free(entries.p);
    free(a.declared);
    return st;
}

enum oc_status oc_annotate_file(FILE *in, const struct oc_model *m, const struct oc_analysis *an,
                                const struct oc_annotate_opts *o, const char *out_path,
                                struct oc_annotate_stats *stats, struct oc_diag *d) {
    struct oc_outfile out;
    enum oc_status st = oc_outfile_open(&out, out_path, d);
    if (st != OC_OK)
        return st;
    st = oc_annotate_write(in, m, an, o, out.f, stats, d);
    enum oc_status cst = oc_outfile_close(&out, st == OC_OK, d);
    return st != OC_OK ? st : cst;
}
