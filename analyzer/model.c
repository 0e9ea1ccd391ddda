/*
 * model.c — windowed reads + wire-level structure pass + protobuf-c unpack.
 *
 * protobuf-c's unpack copies every bytes field, weights included. To keep
 * the cost of loading independent of weight bytes, a first pass walks the
 * protobuf wire format of the file and writes a compact copy in
 * which every TensorProto loses its payload fields (float_data, int32_data,
 * int64_data, raw_data, double_data, uint64_data). In their place it
 * appends one unknown varint field (OC_MARK_FIELD) holding the index of a
 * span record {offset, length, field} that points back into the file.
 * The file is read through a 64 KiB window with pread(): skipping a payload
 * moves the window past it, so payload bytes are never read or mapped (an
 * mmap would not do: the kernel maps whole page-cache folios around each
 * touched byte, tens of MiB for a large model). The compact buffer is
 * unpacked by protobuf-c and freed.
 *
 * TrainingInfoProto (field 20 of ModelProto) is dropped: it can hold whole
 * training graphs and onnxcost analyzes inference graphs.
 *
 * Submessage lengths in the compact copy are written as 5-byte padded
 * varints and patched afterwards (valid protobuf: non-minimal varints are
 * accepted by every decoder), so the pass is single and linear.
 */
#include "model.h"
#include "arena.h"

#include "onnx.pb-c.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Highest legal field number is 2^29-1; this one is not in onnx.proto. */
#define OC_MARK_FIELD 536870000u

enum oc_wire_kind {
    OC_WK_COPY = 0,
    OC_WK_MODEL,
    OC_WK_GRAPH,
    OC_WK_NODE,
    OC_WK_ATTR,
    OC_WK_TENSOR,
    OC_WK_SPARSE,
    OC_WK_FUNCTION,
    OC_WK_DROP,
    OC_WK_VALUEINFO,
    OC_WK_TYPE,      /* TypeProto: may nest (sequence of optional of ...)   */
    OC_WK_TYPE_ELEM, /* TypeProto.Sequence / .Optional: elem_type = 1       */
    OC_WK_TYPE_MAP,  /* TypeProto.Map: value_type = 2                       */
};

static const char *const oc_wk_names[] = {"message", "ModelProto", "GraphProto", "NodeProto", "AttributeProto",
                                          "TensorProto", "SparseTensorProto", "FunctionProto", "TrainingInfoProto",
                                          "ValueInfoProto", "TypeProto", "TypeProto.Sequence", "TypeProto.Map"};

struct oc_span {
    uint64_t off;   /* offset of the payload in the file    */
    uint64_t len;   /* payload bytes                        */
    uint32_t field; /* TensorProto field number             */
};

/* The unpacked protobuf lives in chunks handed out by a bump allocator:
 * protobuf-c makes many small allocations per node (the message, its
 * strings, its arrays) and frees them one by one; here they cost a pointer
 * increment and the whole structure is released at once with the model. */
struct oc_pb_chunk {
    struct oc_pb_chunk *next;
    size_t cap, off;
    _Alignas(16) unsigned char data[];
};

struct oc_alloc_state {
    struct oc_pb_chunk *head;
    uint64_t live;
    uint64_t peak;
    int64_t fail_after;
    bool failed;
};

/* Where the bytes come from: a caller's buffer, or a file read through a window. */
struct oc_src {
    const uint8_t *mem; /* whole input in memory, or NULL          */
    int fd;             /* file descriptor when mem is NULL        */
    uint64_t size;
    uint8_t *win;       /* window buffer (OC_WIN bytes)            */
    uint64_t win_off;
    size_t win_len;
};

enum { OC_WIN = 64 * 1024 };

struct oc_model {
    struct oc_src src;
    Onnx__ModelProto *proto;
    struct oc_span *spans;
    size_t n_spans, cap_spans;
    struct oc_alloc_state alloc_state;
    ProtobufCAllocator alloc;
    struct oc_model_stats stats;
    struct oc_limits limits;
    char **warnings;
    int32_t n_warnings, cap_warnings;
    char *dir;          /* the model file's folder ("" for the current one);
                           NULL when loaded from a buffer                 */
    char *ext_location; /* the external data file open in ext_fd          */
    int ext_fd;
    char **ext_files;   /* every external data location named, as a path
                           (the folder prepended unless absolute), distinct */
    int32_t n_ext_files, cap_ext_files;
    int32_t *ext_index; /* open addressing over ext_files by path, -1 free */
    int32_t cap_ext_index;
};

/* ---- bump allocator for protobuf-c ----------------------------------------- */

enum { OC_PB_CHUNK = 256 * 1024 };

static void *oc_pb_alloc(void *ud, size_t size) {
    struct oc_alloc_state *s = ud;
    if (s->fail_after > 0 && --s->fail_after == 0) {
        s->failed = true;
        return NULL;
    }
    size_t need = (size + 7) & ~(size_t)7; /* protobuf-c fields need 8-byte alignment */
    if (need < size || need > SIZE_MAX / 2) {
        s->failed = true;
        return NULL;
    }
    struct oc_pb_chunk *c = s->head;
    if (!c || c->cap - c->off < need) {
        /* chunks grow with the structure (a quarter of it, 256 KiB to 8 MiB) */
        size_t grow = s->live / 4;
        grow = grow < OC_PB_CHUNK ? OC_PB_CHUNK : grow > 8 * 1024 * 1024 ? 8 * 1024 * 1024 : grow;
        size_t cap = need > grow / 4 ? need : grow;
        c = oc_block_alloc(sizeof *c + cap);
        if (!c) {
            s->failed = true;
            return NULL;
        }
        c->cap = cap;
        c->off = 0;
        if (cap > grow && s->head) { /* a large one-off chunk: the head keeps its space */
            c->next = s->head->next;
            s->head->next = c;
        } else {
            c->next = s->head;
            s->head = c;
        }
    }
    void *p = c->data + c->off;
    c->off += need;
    s->live += need;
    if (s->live > s->peak)
        s->peak = s->live;
    return p;
}

/* protobuf-c frees piecewise (after a failed unpack, or a message at a time);
 * the chunks go all together in oc_model_free() */
static void oc_pb_free(void *ud, void *p) {
    (void)ud;
    (void)p;
}

static void oc_pb_release(struct oc_alloc_state *s) {
    for (struct oc_pb_chunk *c = s->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    s->head = NULL;
    s->live = 0;
}

/* ---- source ---------------------------------------------------------------- */

/* Copies [pos, pos + n) of the input into dst; false on a read error. */
static bool oc_src_read(struct oc_src *s, uint64_t pos, size_t n, uint8_t *dst) {
    if (pos > s->size || n > s->size - pos)
        return false;
    if (s->mem) {
        memcpy(dst, s->mem + pos, n);
        return true;
    }
    if (n >= OC_WIN) { /* a large read (weights compared): straight into dst, the window kept */
        size_t got = 0;
        while (got < n) {
            ssize_t r = pread(s->fd, dst + got, n - got, (off_t)(pos + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return false;
            got += (size_t)r;
        }
        return true;
    }
    while (n > 0) {
        if (pos < s->win_off || pos >= s->win_off + s->win_len) {
            uint64_t off = pos & ~(uint64_t)(OC_WIN - 1);
            size_t want = s->size - off < OC_WIN ? (size_t)(s->size - off) : OC_WIN;
            size_t got = 0;
            while (got < want) {
                ssize_t r = pread(s->fd, s->win + got, want - got, (off_t)(off + got));
                if (r < 0 && errno == EINTR)
                    continue;
                if (r <= 0)
                    return false;
                got += (size_t)r;
            }
            s->win_off = off;
            s->win_len = want;
        }
        size_t at = (size_t)(pos - s->win_off), take = s->win_len - at;
        if (take > n)
            take = n;
        memcpy(dst, s->win + at, take);
        dst += take;
        pos += take;
        n -= take;
    }
    return true;
}

/* Varint at *pos (< end) from the source. */
static bool oc_src_varint(struct oc_src *s, uint64_t end, uint64_t *pos, uint64_t *v) {
    /* fast path: the bytes up to end (at most 10) are in memory already */
    uint64_t avail = end - *pos < 10 ? end - *pos : 10;
    const uint8_t *p = NULL;
    if (*pos < end && end <= s->size) {
        if (s->mem)
            p = s->mem + *pos;
        else if (*pos >= s->win_off && *pos + avail <= s->win_off + s->win_len)
            p = s->win + (*pos - s->win_off);
    }
    if (p) {
        uint64_t r = 0;
        for (unsigned i = 0; i < avail; i++) {
            r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
            if (!(p[i] & 0x80)) {
                if (i == 9 && p[i] > 1)
                    return false; /* bits beyond 64 */
                *pos += i + 1;
                *v = r;
                return true;
            }
        }
        if (avail == 10)
            return false; /* more than 10 bytes: not a varint */
        /* ran into end: the slow path below says so */
    }
    uint64_t r = 0;
    for (unsigned i = 0; i < 10; i++) {
        uint8_t c;
        if (*pos >= end || !oc_src_read(s, *pos, 1, &c))
            return false;
        (*pos)++;
        r |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            if (i == 9 && c > 1)
                return false; /* bits beyond 64 */
            *v = r;
            return true;
        }
    }
    return false;
}

/* Why the varint at pos did not read (for the error message). */
static const char *oc_src_varint_why(struct oc_src *s, uint64_t end, uint64_t pos) {
    for (unsigned i = 0; i < 10; i++) {
        uint8_t c;
        if (pos + i >= end || !oc_src_read(s, pos + i, 1, &c))
            return "truncated varint";
        if (!(c & 0x80))
            return i == 9 && c > 1 ? "varint over 64 bits" : "bad varint";
    }
    return "varint longer than 10 bytes";
}

/* ---- wire pass ----------------------------------------------------------- */

struct oc_wbuf {
    uint8_t *p;
    size_t n, cap;
};

struct oc_wire {
    struct oc_model *m;
    struct oc_src *in;
    struct oc_wbuf out;
    int64_t max_depth;
    int64_t n_nodes;     /* NodeProto messages seen (all graphs, functions)  */
    bool name_node;      /* an error below wants the enclosing node's label  */
    struct oc_diag *d;
};

static bool oc_wbuf_reserve(struct oc_wbuf *b, size_t more) {
    if (b->cap - b->n >= more)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->n < more) {
        if (cap > SIZE_MAX / 2)
            return false;
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p)
        return false;
    b->p = p;
    b->cap = cap;
    return true;
}

static bool oc_wbuf_put(struct oc_wbuf *b, const void *src, size_t n) {
    if (!oc_wbuf_reserve(b, n))
        return false;
    memcpy(b->p + b->n, src, n);
    b->n += n;
    return true;
}

static bool oc_wbuf_varint(struct oc_wbuf *b, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        tmp[n++] = (uint8_t)(c | (v ? 0x80 : 0));
    } while (v);
    return oc_wbuf_put(b, tmp, n);
}

/* Reads a varint at *pos (< end). Returns false when truncated or over 10 bytes. */
static bool oc_read_varint(const uint8_t *in, size_t end, size_t *pos, uint64_t *v) {
    uint64_t r = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (*pos >= end)
            return false;
        uint8_t c = in[(*pos)++];
        r |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

static enum oc_wire_kind oc_child_kind(enum oc_wire_kind k, uint32_t field) {
    switch (k) {
    case OC_WK_MODEL:
        if (field == 7)
            return OC_WK_GRAPH;
        if (field == 25)
            return OC_WK_FUNCTION;
        if (field == 20)
            return OC_WK_DROP;
        return OC_WK_COPY;
    case OC_WK_GRAPH:
        if (field == 1)
            return OC_WK_NODE;
        if (field == 5)
            return OC_WK_TENSOR;
        if (field == 15)
            return OC_WK_SPARSE;
        if (field == 11 || field == 12 || field == 13)
            return OC_WK_VALUEINFO;
        return OC_WK_COPY;
    case OC_WK_NODE:
        return field == 5 ? OC_WK_ATTR : OC_WK_COPY;
    case OC_WK_ATTR:
        if (field == 5 || field == 10)
            return OC_WK_TENSOR;
        if (field == 6 || field == 11)
            return OC_WK_GRAPH;
        if (field == 22 || field == 23)
            return OC_WK_SPARSE;
        if (field == 14 || field == 15)
            return OC_WK_TYPE;
        return OC_WK_COPY;
    case OC_WK_SPARSE:
        return (field == 1 || field == 2) ? OC_WK_TENSOR : OC_WK_COPY;
    case OC_WK_FUNCTION:
        return field == 7 ? OC_WK_NODE : field == 12 ? OC_WK_VALUEINFO : OC_WK_COPY;
    case OC_WK_VALUEINFO:
        return field == 2 ? OC_WK_TYPE : OC_WK_COPY;
    case OC_WK_TYPE: /* sequence_type = 4, optional_type = 9, map_type = 5 */
        return field == 4 || field == 9 ? OC_WK_TYPE_ELEM : field == 5 ? OC_WK_TYPE_MAP : OC_WK_COPY;
    case OC_WK_TYPE_ELEM:
        return field == 1 ? OC_WK_TYPE : OC_WK_COPY;
    case OC_WK_TYPE_MAP:
        return field == 2 ? OC_WK_TYPE : OC_WK_COPY;
    default:
        return OC_WK_COPY;
    }
}

static bool oc_is_payload_field(uint32_t f) {
    return f == 4 || f == 5 || f == 7 || f == 9 || f == 10 || f == 11;
}

/* Puts "node 'name' (Op): " before the error message when an error inside
 * the NodeProto at [pos, end) asked for it (w->name_node): the name and
 * op_type fields are read from the file, at most 200 bytes of each. */
static void oc_wire_name_node(struct oc_wire *w, uint64_t pos, uint64_t end) {
    if (!w->name_node)
        return;
    w->name_node = false;
    char name[201] = "", op[201] = "";
    while (pos < end) {
        uint64_t tag, v;
        if (!oc_src_varint(w->in, end, &pos, &tag))
            break;
        unsigned wt = (unsigned)(tag & 7);
        uint64_t field = tag >> 3;
        if (wt == 0) {
            if (!oc_src_varint(w->in, end, &pos, &v))
                break;
        } else if (wt == 1 || wt == 5) {
            pos += wt == 1 ? 8 : 4;
        } else if (wt == 2) {
            if (!oc_src_varint(w->in, end, &pos, &v) || v > end - pos)
                break;
            char *dst = field == 3 ? name : field == 4 ? op : NULL;
            size_t n = v < 200 ? (size_t)v : 200;
            if (dst && oc_src_read(w->in, pos, n, (uint8_t *)dst))
                dst[strnlen(dst, n) < n ? strnlen(dst, n) : n] = 0;
            pos += v;
        } else {
            break;
        }
    }
    char msg[sizeof w->d->msg];
    memcpy(msg, w->d->msg, sizeof msg);
    enum oc_status code = w->d->code;
    w->d->code = OC_OK;
    w->d->n_errors--;
    if (name[0])
        oc_diag_set(w->d, code, "node '%s' (%s): %s", name, op, msg);
    else
        oc_diag_set(w->d, code, "unnamed node (%s): %s", op, msg);
}

static enum oc_status oc_wire_msg(struct oc_wire *w, enum oc_wire_kind kind, uint64_t pos, uint64_t end,
                                  int64_t depth, int64_t gdepth) {
    if (depth > w->max_depth)
        return oc_diag_set(w->d, OC_ERR_PARSE, "not a valid ONNX protobuf: messages nested deeper than %lld levels "
                           "at byte %llu", (long long)w->max_depth, (unsigned long long)pos);
    size_t first_span = w->m->n_spans;
    while (pos < end) {
        uint64_t tag_start = pos;
        uint64_t tag;
        if (!oc_src_varint(w->in, end, &pos, &tag))
            return oc_diag_set(w->d, OC_ERR_PARSE,
                               "not a valid ONNX protobuf: truncated field tag at byte %llu", (unsigned long long)tag_start);
        uint64_t field64 = tag >> 3;
        unsigned wt = (unsigned)(tag & 7);
        if (field64 == 0 || field64 > 536870911u)
            return oc_diag_set(w->d, OC_ERR_PARSE,
                               "not a valid ONNX protobuf: bad field number at byte %llu", (unsigned long long)tag_start);
        uint32_t field = (uint32_t)field64;
        uint64_t data_start = pos, data_end;
        uint64_t v;
        switch (wt) {
        case 0:
            if (!oc_src_varint(w->in, end, &pos, &v))
                return oc_diag_set(w->d, OC_ERR_PARSE, "not a valid ONNX protobuf: %s at byte %llu",
                                   oc_src_varint_why(w->in, end, data_start), (unsigned long long)data_start);
            data_end = pos;
            break;
        case 1:
        case 5: {
            uint64_t n = wt == 1 ? 8 : 4;
            if (end - pos < n)
                return oc_diag_set(w->d, OC_ERR_PARSE,
                                   "not a valid ONNX protobuf: truncated fixed field at byte %llu",
                                   (unsigned long long)data_start);
            pos += n;
            data_end = pos;
            break;
        }
        case 2: {
            bool ok = oc_src_varint(w->in, end, &pos, &v);
            const char *why = ok ? "" : oc_src_varint_why(w->in, end, data_start);
            if (!ok && why[0] != 't') /* not truncated: overlong or over 64 bits */
                return oc_diag_set(w->d, OC_ERR_PARSE, "not a valid ONNX protobuf: length at byte %llu is a %s",
                                   (unsigned long long)data_start, why);
            if (!ok || v > end - pos)
                return oc_diag_set(w->d, OC_ERR_PARSE,
                                   "not a valid ONNX protobuf: length at byte %llu runs past the end "
                                   "(truncated file?)",
                                   (unsigned long long)data_start);
            data_start = pos;
            pos += v;
            data_end = pos;
            break;
        }
        default:
            return oc_diag_set(w->d, OC_ERR_PARSE,
                               "not a valid ONNX protobuf: unsupported wire type %u at byte %llu", wt,
                               (unsigned long long)tag_start);
        }

        if (kind == OC_WK_TENSOR && oc_is_payload_field(field)) {
            if (wt == 2) {
                struct oc_model *m = w->m;
                if (m->n_spans == m->cap_spans) {
                    size_t cap = m->cap_spans ? 2 * m->cap_spans : 64;
                    struct oc_span *s = realloc(m->spans, cap * sizeof *s);
                    if (!s)
                        return oc_diag_set(w->d, OC_ERR_NOMEM, "out of memory");
                    m->spans = s;
                    m->cap_spans = cap;
                }
                m->spans[m->n_spans++] = (struct oc_span){data_start, data_end - data_start, field};
                m->stats.payload_bytes += data_end - data_start;
                m->stats.n_payloads++;
                continue;
            }
            if (wt == 1 || wt == 5) /* unpacked float/double elements: weights, dropped */
                continue;
            /* unpacked integer varints are kept: protobuf-c decodes them */
        }

        enum oc_wire_kind child = oc_child_kind(kind, field);
        if (child != OC_WK_COPY && child != OC_WK_DROP && wt != 2)
            return oc_diag_set(w->d, OC_ERR_PARSE,
                               "not a valid ONNX protobuf: field %u of %s at byte %llu has wire type %u, not a "
                               "length-delimited message",
                               field, oc_wk_names[kind], (unsigned long long)tag_start, wt);
        if (child == OC_WK_DROP)
            continue;
        if (child == OC_WK_NODE && ++w->n_nodes > w->m->limits.max_nodes) {
            w->name_node = true;
            enum oc_status st = oc_diag_set(w->d, OC_ERR_UNSUPPORTED,
                                            "the model has more than %lld nodes (--limit-nodes N raises the limit)",
                                            (long long)w->m->limits.max_nodes);
            oc_wire_name_node(w, data_start, data_end);
            return st;
        }
        if (child == OC_WK_GRAPH && kind == OC_WK_ATTR && gdepth + 1 > w->m->limits.max_subgraph_depth) {
            w->name_node = true;
            return oc_diag_set(w->d, OC_ERR_UNSUPPORTED,
                               "subgraphs nested deeper than %d levels (--limit-subgraph-depth N raises the limit)",
                               (int)w->m->limits.max_subgraph_depth);
        }
        if (child == OC_WK_COPY) {
            uint64_t n = data_end - tag_start;
            if (n > SIZE_MAX || !oc_wbuf_reserve(&w->out, (size_t)n))
                return oc_diag_set(w->d, OC_ERR_NOMEM, "out of memory");
            if (!oc_src_read(w->in, tag_start, (size_t)n, w->out.p + w->out.n))
                return oc_diag_set(w->d, OC_ERR_IO, "read error at byte %llu", (unsigned long long)tag_start);
            w->out.n += (size_t)n;
            continue;
        }
        if (!oc_wbuf_varint(&w->out, tag) || !oc_wbuf_reserve(&w->out, 5))
            return oc_diag_set(w->d, OC_ERR_NOMEM, "out of memory");
        size_t len_at = w->out.n;
        w->out.n += 5;
        enum oc_status st = oc_wire_msg(w, child, data_start, data_end, depth + 1,
                                        gdepth + (child == OC_WK_GRAPH && kind == OC_WK_ATTR));
        if (st != OC_OK) {
            if (child == OC_WK_NODE)
                oc_wire_name_node(w, data_start, data_end);
            return st;
        }
        size_t len = w->out.n - len_at - 5;
        if (len > 0x7FFFFFFFu)
            return oc_diag_set(w->d, OC_ERR_UNSUPPORTED, "model structure over 2 GiB");
        uint8_t *lp = w->out.p + len_at;
        for (int i = 0; i < 5; i++) {
            lp[i] = (uint8_t)((len >> (7 * i)) & 0x7f);
            if (i < 4)
                lp[i] |= 0x80;
        }
    }
    if (kind == OC_WK_TENSOR) {
        for (size_t i = first_span; i < w->m->n_spans; i++) {
            if (!oc_wbuf_varint(&w->out, (uint64_t)OC_MARK_FIELD << 3) || !oc_wbuf_varint(&w->out, i))
                return oc_diag_set(w->d, OC_ERR_NOMEM, "out of memory");
        }
    }
    return OC_OK;
}

/* ---- checks after decoding: warnings and a few errors ----------------------- */

enum {
    OC_MAX_EXTERNAL_WARNINGS = 8,
    OC_MAX_OPSET_IMPORTS = 1024,
    OC_MAX_OPSET_VERSION = 10000
};

static bool oc_model_warn(struct oc_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool oc_model_warn(struct oc_model *m, const char *fmt, ...) {
    if (m->n_warnings == m->cap_warnings) {
        int32_t cap = m->cap_warnings ? 2 * m->cap_warnings : 8;
        char **w = realloc(m->warnings, (size_t)cap * sizeof *w);
        if (!w)
            return false;
        m->warnings = w;
        m->cap_warnings = cap;
    }
    char *line = malloc(512);
    if (!line)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, 512, fmt, ap);
    va_end(ap);
    m->warnings[m->n_warnings++] = line;
    return true;
}

/* An external data location that leads out of the model's folder: absolute
 * (/x, \x, C:x) or with a ".." component. */
static const char *oc_location_outside(const char *loc) {
    if (loc[0] == '/' || loc[0] == '\\' || (loc[0] && loc[1] == ':'))
        return "an absolute path";
    for (const char *p = loc; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return "outside the model's folder ('..')";
        p += n;
        if (*p)
            p++;
    }
    return NULL;
}

struct oc_lint {
    struct oc_model *m;
    int64_t n_outside; /* external locations outside the folder */
};

/* The hash of dir[0..nd) followed by loc: a path's, whole or in its two parts. */
static uint32_t oc_path_hash(const char *dir, size_t nd, const char *loc) {
    return oc_fnv1a(oc_fnv1a(OC_FNV_INIT, dir, nd), loc, SIZE_MAX);
}

/* The index of ext_files kept at most half full; false when out of memory. */
static bool oc_ext_index_grow(struct oc_model *m) {
    if (2 * (int64_t)(m->n_ext_files + 1) <= m->cap_ext_index)
        return true;
    if (m->cap_ext_index > INT32_MAX / 4)
        return false;
    int32_t cap = m->cap_ext_index ? 2 * m->cap_ext_index : 64;
    int32_t *ix = malloc((size_t)cap * sizeof *ix);
    if (!ix)
        return false;
    for (int32_t i = 0; i < cap; i++)
        ix[i] = -1;
    for (int32_t k = 0; k < m->n_ext_files; k++) {
        uint32_t h = oc_path_hash("", 0, m->ext_files[k]);
        for (uint32_t at = h % (uint32_t)cap;; at = (at + 1) % (uint32_t)cap)
            if (ix[at] < 0) {
                ix[at] = k;
                break;
            }
    }
    free(m->ext_index);
    m->ext_index = ix;
    m->cap_ext_index = cap;
    return true;
}

/* Records an external data location as a path (for the callers that must
   never write over it): every distinct one, found again through a hash
   index (a file may name a million). */
static bool oc_note_external(struct oc_model *m, const char *loc) {
    if (!m->dir)
        return true;
    bool abs = loc[0] == '/';
    size_t dl = abs ? 0 : strlen(m->dir), ll = strlen(loc);
    if (!oc_ext_index_grow(m))
        return false;
    uint32_t at = oc_path_hash(m->dir, dl, loc) % (uint32_t)m->cap_ext_index;
    for (; m->ext_index[at] >= 0; at = (at + 1) % (uint32_t)m->cap_ext_index) {
        const char *p = m->ext_files[m->ext_index[at]];
        if (strncmp(p, m->dir, dl) == 0 && strcmp(p + dl, loc) == 0)
            return true;
    }
    if (m->n_ext_files == INT32_MAX)
        return false;
    if (m->n_ext_files == m->cap_ext_files) {
        int32_t cap = m->cap_ext_files ? 2 * m->cap_ext_files : 8;
        char **t = realloc(m->ext_files, (size_t)cap * sizeof *t);
        if (!t)
            return false;
        m->ext_files = t;
        m->cap_ext_files = cap;
    }
    char *path = malloc(dl + ll + 1);
    if (!path)
        return false;
    memcpy(path, m->dir, dl);
    memcpy(path + dl, loc, ll + 1);
    m->ext_index[at] = m->n_ext_files;
    m->ext_files[m->n_ext_files++] = path;
    return true;
}

static bool oc_lint_tensor(struct oc_lint *l, const Onnx__TensorProto *t, const char *what) {
    if (!t || !t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return true;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (e->key && strcmp(e->key, "location") == 0 && e->value && e->value[0] && !oc_note_external(l->m, e->value))
            return false;
        const char *why = e->key && strcmp(e->key, "location") == 0 && e->value ? oc_location_outside(e->value) : NULL;
        if (!why)
            continue;
        if (++l->n_outside <= OC_MAX_EXTERNAL_WARNINGS &&
            !oc_model_warn(l->m, "%s '%s': external data location '%s' is %s; it is not opened (onnxcost never "
                           "reads weights)", what, t->name ? t->name : "", e->value, why))
            return false;
    }
    return true;
}

static bool oc_lint_graph(struct oc_lint *l, const Onnx__GraphProto *gp, int32_t depth);

static bool oc_lint_nodes(struct oc_lint *l, Onnx__NodeProto *const *nodes, size_t n, int32_t depth) {
    for (size_t i = 0; i < n; i++) {
        const Onnx__NodeProto *np = nodes[i];
        for (size_t k = 0; k < np->n_attribute; k++) {
            const Onnx__AttributeProto *a = np->attribute[k];
            if (!oc_lint_tensor(l, a->t, "attribute tensor"))
                return false;
            for (size_t j = 0; j < a->n_tensors; j++)
                if (!oc_lint_tensor(l, a->tensors[j], "attribute tensor"))
                    return false;
            if (a->g && !oc_lint_graph(l, a->g, depth + 1))
                return false;
            for (size_t j = 0; j < a->n_graphs; j++)
                if (!oc_lint_graph(l, a->graphs[j], depth + 1))
                    return false;
        }
    }
    return true;
}

/* depth is bounded: the wire pass refused subgraphs nested deeper than the limit */
static bool oc_lint_graph(struct oc_lint *l, const Onnx__GraphProto *gp, int32_t depth) {
    if (depth > l->m->limits.max_subgraph_depth)
        return true;
    for (size_t i = 0; i < gp->n_initializer; i++)
        if (!oc_lint_tensor(l, gp->initializer[i], "initializer"))
            return false;
    for (size_t i = 0; i < gp->n_sparse_initializer; i++) {
        const Onnx__SparseTensorProto *sp = gp->sparse_initializer[i];
        if (!oc_lint_tensor(l, sp->values, "initializer") || !oc_lint_tensor(l, sp->indices, "initializer"))
            return false;
    }
    return oc_lint_nodes(l, gp->node, gp->n_node, depth);
}

static bool oc_is_onnx_domain(const char *d) {
    return !d || !d[0] || strcmp(d, "ai.onnx") == 0;
}

static enum oc_status oc_model_lint(struct oc_model *m, struct oc_diag *d) {
    const Onnx__ModelProto *mp = m->proto;
    if (!mp->graph) /* not a model at all: the graph builder says so */
        return OC_OK;
    /* opset imports */
    int64_t ir = mp->has_ir_version ? mp->ir_version : 0;
    if (mp->n_opset_import == 0 && ir >= 3)
        return oc_diag_set(d, OC_ERR_MODEL, "opset_import is empty: the model imports no operator set "
                                            "(required from IR version 3; this file says %lld)", (long long)ir);
    if (mp->n_opset_import > OC_MAX_OPSET_IMPORTS)
        return oc_diag_set(d, OC_ERR_MODEL, "opset_import lists %zu operator sets (more than %d)", mp->n_opset_import,
                           OC_MAX_OPSET_IMPORTS);
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *os = mp->opset_import[i];
        bool onnx = oc_is_onnx_domain(os->domain);
        const char *dom = onnx ? "ai.onnx" : os->domain;
        int64_t ver = os->has_version ? os->version : 0;
        if (ver > OC_MAX_OPSET_VERSION)
            return oc_diag_set(d, OC_ERR_MODEL, "opset_import: domain '%s' has version %lld, not a real opset version",
                               dom, (long long)ver);
        for (size_t k = 0; k < i; k++) {
            const Onnx__OperatorSetIdProto *o2 = mp->opset_import[k];
            int64_t v2 = o2->has_version ? o2->version : 0;
            if (!(onnx ? oc_is_onnx_domain(o2->domain) : (o2->domain && strcmp(o2->domain, os->domain) == 0)))
                continue;
            if (v2 != ver) /* which version the nodes mean is not known */
                return oc_diag_set(d, OC_ERR_MODEL, "opset_import lists domain '%s' twice (versions %lld and %lld)",
                                   dom, (long long)v2, (long long)ver);
            /* the same version twice (the ONNX checker and ONNX Runtime accept it) */
            if (!oc_model_warn(m, "opset_import lists domain '%s' version %lld twice", dom, (long long)ver))
                return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
            break;
        }
        if (onnx && ver > OC_OPSET_LATEST &&
            !oc_model_warn(m, "opset_import: ai.onnx version %lld is newer than onnxcost's rules (opset %d); "
                              "ops are analyzed with their latest rules", (long long)ver, OC_OPSET_LATEST))
            return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    const Onnx__GraphProto *gp = mp->graph;
    if (gp->n_node == 0 && !oc_model_warn(m, "the graph has no nodes: every count is 0"))
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    /* zero-size dims of the graph inputs */
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        const Onnx__TypeProto *tp = vi->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type || !tp->tensor_type->shape)
            continue;
        const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
        for (size_t k = 0; k < sh->n_dim; k++) {
            const Onnx__TensorShapeProto__Dimension *dm = sh->dim[k];
            if (dm->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE || dm->dim_value != 0)
                continue;
            if (!oc_model_warn(m, "graph input '%s' has size 0 at axis %zu: an empty tensor, so what depends on it "
                                  "costs nothing (some exporters write 0 for an unknown size)",
                               vi->name ? vi->name : "", k))
                return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
            break;
        }
    }
    /* external data that points out of the model's folder (never opened) */
    struct oc_lint l = {m, 0};
    bool ok = oc_lint_graph(&l, gp, 0);
    for (size_t i = 0; ok && i < mp->n_functions; i++)
        ok = oc_lint_nodes(&l, mp->functions[i]->node, mp->functions[i]->n_node, 1);
    if (ok && l.n_outside > OC_MAX_EXTERNAL_WARNINGS)
        ok = oc_model_warn(m, "%lld more tensors have external data locations outside the model's folder (not opened)",
                           (long long)(l.n_outside - OC_MAX_EXTERNAL_WARNINGS));
    return ok ? OC_OK : oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
}

/* ---- load / free ---------------------------------------------------------- */

static enum oc_status oc_model_parse(struct oc_model *m, const struct oc_load_opts *opts,
                                     struct oc_diag *d) {
    struct oc_wire w = {.m = m, .in = &m->src, .d = d};
    struct oc_limits lim = opts ? opts->limits : (struct oc_limits){0};
    m->limits.max_nodes = lim.max_nodes > 0 ? lim.max_nodes : OC_DEFAULT_MAX_NODES;
    m->limits.max_rank = lim.max_rank > 0 ? lim.max_rank : OC_DEFAULT_MAX_RANK;
    m->limits.max_subgraph_depth = lim.max_subgraph_depth > 0 ? lim.max_subgraph_depth : OC_DEFAULT_MAX_SUBGRAPH_DEPTH;
    /* a subgraph level is three messages (AttributeProto, GraphProto, NodeProto);
     * 48 more leave room for tensors, sparse tensors and nested types */
    w.max_depth = opts && opts->max_depth > 0 ? opts->max_depth : 3 * (int64_t)m->limits.max_subgraph_depth + 48;
    m->stats.file_bytes = m->src.size;
    m->alloc_state.fail_after = opts ? opts->fail_alloc_after : 0;
    m->alloc = (ProtobufCAllocator){oc_pb_alloc, oc_pb_free, &m->alloc_state};

    enum oc_status st = oc_wire_msg(&w, OC_WK_MODEL, 0, m->src.size, 0, 0);
    if (st == OC_OK) {
        m->stats.structure_bytes = w.out.n;
        m->proto = (Onnx__ModelProto *)protobuf_c_message_unpack(&onnx__model_proto__descriptor,
                                                                  &m->alloc, w.out.n, w.out.p);
        if (!m->proto) {
            if (m->alloc_state.failed)
                st = oc_diag_set(d, OC_ERR_NOMEM, "out of memory while decoding the protobuf");
            else
                st = oc_diag_set(d, OC_ERR_PARSE,
                                 "not a valid ONNX protobuf: a field has the wrong type or an "
                                 "invalid value");
        }
    }
    free(w.out.p);
    m->stats.heap_peak_bytes = m->alloc_state.peak;
    if (st == OC_OK)
        st = oc_model_lint(m, d);
    return st;
}

static struct oc_model *oc_model_new(void) {
    struct oc_model *m = calloc(1, sizeof(struct oc_model));
    if (m)
        m->ext_fd = -1;
    return m;
}

enum oc_status oc_model_load_buffer(const void *data, size_t size, const struct oc_load_opts *opts,
                                    struct oc_model **out, struct oc_diag *d) {
    *out = NULL;
    struct oc_model *m = oc_model_new();
    if (!m)
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    m->src.mem = data;
    m->src.fd = -1;
    m->src.size = size;
    enum oc_status st = oc_model_parse(m, opts, d);
    if (st != OC_OK) {
        oc_model_free(m);
        return st;
    }
    *out = m;
    return OC_OK;
}

enum oc_status oc_model_load(const char *path, const struct oc_load_opts *opts, struct oc_model **out,
                             struct oc_diag *d) {
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return oc_diag_set(d, OC_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return oc_diag_set(d, OC_ERR_IO, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return oc_diag_set(d, OC_ERR_IO, "not a regular file");
    }
    if (sb.st_size == 0) {
        close(fd);
        return oc_diag_set(d, OC_ERR_PARSE, "empty file, not an ONNX model");
    }
    struct oc_model *m = oc_model_new();
    uint8_t *win = malloc(OC_WIN);
    if (!m || !win) {
        close(fd);
        free(m);
        free(win);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    m->src.fd = fd;
    m->src.size = (uint64_t)sb.st_size;
    m->src.win = win;
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0; /* with its '/' */
    if (!(m->dir = malloc(dl + 1))) {
        oc_model_free(m);
        return oc_diag_set(d, OC_ERR_NOMEM, "out of memory");
    }
    memcpy(m->dir, path, dl);
    m->dir[dl] = 0;
    enum oc_status st = oc_model_parse(m, opts, d);
    if (st != OC_OK) {
        oc_model_free(m);
        return st;
    }
    *out = m;
    return OC_OK;
}

void oc_model_free(struct oc_model *m) {
    if (!m)
        return;
    oc_pb_release(&m->alloc_state); /* the unpacked structure (m->proto) */
    if (!m->src.mem && m->src.fd >= 0)
        close(m->src.fd);
    free(m->src.win);
    free(m->spans);
    for (int32_t i = 0; i < m->n_warnings; i++)
        free(m->warnings[i]);
    free(m->warnings);
    if (m->ext_fd >= 0)
        close(m->ext_fd);
    free(m->ext_location);
    for (int32_t i = 0; i < m->n_ext_files; i++)
        free(m->ext_files[i]);
    free(m->ext_files);
    free(m->ext_index);
    free(m->dir);
    free(m);
}

int32_t oc_model_n_external_files(const struct oc_model *m) {
    return m->n_ext_files;
}

const char *oc_model_external_file(const struct oc_model *m, int32_t i) {
    return i >= 0 && i < m->n_ext_files ? m->ext_files[i] : NULL;
}

const struct oc_limits *oc_model_limits(const struct oc_model *m) {
    return &m->limits;
}

int32_t oc_model_n_warnings(const struct oc_model *m) {
    return m->n_warnings;
}

const char *oc_model_warning(const struct oc_model *m, int32_t i) {
    return i >= 0 && i < m->n_warnings ? m->warnings[i] : NULL;
}

const void *oc_model_proto(const struct oc_model *m) {
    return m->proto;
}

const struct oc_model_stats *oc_model_stats(const struct oc_model *m) {
    return &m->stats;
}

/* ---- payload access --------------------------------------------------------- */

static const struct oc_span *oc_tensor_span(const struct oc_model *m, const ProtobufCMessageUnknownField *u) {
    if (u->tag != OC_MARK_FIELD || u->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT)
        return NULL;
    size_t pos = 0;
    uint64_t idx;
    if (!oc_read_varint(u->data, u->len, &pos, &idx) || idx >= m->n_spans)
        return NULL;
    return &m->spans[idx];
}

uint64_t oc_model_tensor_payload_bytes(const struct oc_model *m, const void *tensor) {
    const Onnx__TensorProto *t = tensor;
    uint64_t total = 0;
    for (unsigned i = 0; i < t->base.n_unknown_fields; i++) {
        const struct oc_span *s = oc_tensor_span(m, &t->base.unknown_fields[i]);
        if (s)
            total += s->len;
    }
    return total;
}

/* A tensor's external data: its location inside the model's folder, offset
   and length (the rest of the file when not given). False when it has none,
   or its location leads out of the folder (never opened), or the model was
   loaded from a buffer. */
static bool oc_tensor_external(const struct oc_model *m, const Onnx__TensorProto *t, const char **loc, uint64_t *off,
                               uint64_t *len, bool *has_len) {
    if (!m->dir || !t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return false;
    *loc = NULL;
    *off = *len = 0;
    *has_len = false;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (!e->key || !e->value)
            continue;
        char *end = NULL;
        if (strcmp(e->key, "location") == 0)
            *loc = e->value;
        else if (strcmp(e->key, "offset") == 0 && (*off = strtoull(e->value, &end, 10), !end || *end))
            return false;
        else if (strcmp(e->key, "length") == 0 && (*len = strtoull(e->value, &end, 10), *has_len = true, !end || *end))
            return false;
    }
    return *loc && **loc && !oc_location_outside(*loc);
}

/* The external data file `loc`, opened on first use and kept (one at a
   time); -1 when it cannot be. */
static int oc_external_fd(struct oc_model *m, const char *loc) {
    if (m->ext_location && strcmp(m->ext_location, loc) == 0)
        return m->ext_fd;
    if (m->ext_fd >= 0)
        close(m->ext_fd);
    free(m->ext_location);
    m->ext_fd = -1;
    m->ext_location = NULL;
    size_t n = strlen(m->dir) + strlen(loc) + 1;
    char *path = malloc(n);
    if (!path)
        return -1;
    snprintf(path, n, "%s%s", m->dir, loc);
    /* inside the model's folder once links are followed too; never blocking (a FIFO) */
    char *real = realpath(path, NULL), *rdir = realpath(m->dir[0] ? m->dir : ".", NULL);
    size_t dl = rdir ? strlen(rdir) : 0;
    int fd = -1;
    if (real && rdir && strncmp(real, rdir, dl) == 0 && (real[dl] == '/' || (dl == 1 && rdir[0] == '/')))
        fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    free(real), free(rdir), free(path);
    struct stat sb;
    if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0 && !(m->ext_location = strdup(loc))) {
        close(fd);
        fd = -1;
    }
    m->ext_fd = fd;
    return fd;
}

static const struct oc_span *oc_tensor_raw_span(const struct oc_model *m, const Onnx__TensorProto *t) {
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return NULL;
    for (unsigned i = 0; i < t->base.n_unknown_fields; i++) {
        const struct oc_span *s = oc_tensor_span(m, &t->base.unknown_fields[i]);
        if (s && s->field == 9)
            return s;
    }
    return NULL;
}

bool oc_model_tensor_raw_len(const struct oc_model *m, const void *tensor, uint64_t *len) {
    const char *loc;
    uint64_t eoff, elen;
    bool has_len;
    if (oc_tensor_external(m, tensor, &loc, &eoff, &elen, &has_len)) {
        int fd = oc_external_fd((struct oc_model *)m, loc);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb) != 0 || (uint64_t)sb.st_size < eoff)
            return false;
        uint64_t rest = (uint64_t)sb.st_size - eoff;
        *len = has_len ? elen : rest;
        return *len <= rest;
    }
    const struct oc_span *s = oc_tensor_raw_span(m, tensor);
    *len = s ? s->len : 0;
    return s != NULL;
}

enum oc_status oc_model_tensor_raw_read(const struct oc_model *m, const void *tensor, uint64_t off, size_t n,
                                        void *dst) {
    const char *loc;
    uint64_t eoff, elen, len;
    bool has_len;
    if (oc_tensor_external(m, tensor, &loc, &eoff, &elen, &has_len)) {
        if (!oc_model_tensor_raw_len(m, tensor, &len))
            return OC_ERR_UNSUPPORTED;
        if (off > len || n > len - off)
            return OC_ERR_USAGE;
        int fd = oc_external_fd((struct oc_model *)m, loc);
        size_t got = 0;
        while (fd >= 0 && got < n) {
            ssize_t r = pread(fd, (uint8_t *)dst + got, n - got, (off_t)(eoff + off + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return OC_ERR_IO;
            got += (size_t)r;
        }
        return fd >= 0 ? OC_OK : OC_ERR_IO;
    }
    const struct oc_span *s = oc_tensor_raw_span(m, tensor);
    if (!s)
        return OC_ERR_UNSUPPORTED;
    if (off > s->len || n > s->len - off)
        return OC_ERR_USAGE;
    return oc_src_read((struct oc_src *)&m->src, s->off + off, n, dst) ? OC_OK : OC_ERR_IO;
}

static int oc_raw_elem_size(int32_t dtype) {
    switch (dtype) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        return 1;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
        return 2;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
        return 4;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
        return 8;
    default:
        return 0;
    }
}

/* Narrows a decoded element to the tensor's type (sign of int8/16/32). */
static int64_t oc_int_cast(int32_t dtype, uint64_t u) {
    switch (dtype) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
        return (int8_t)u;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
        return (uint8_t)u;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        return u != 0;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
        return (int16_t)u;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
        return (uint16_t)u;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
        return (int32_t)u;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
        return (uint32_t)u;
    default:
        return (int64_t)u;
    }
}

/* Reads a payload span into `small` when it fits, else into a malloc'd block
 * (*p; the caller frees it when *p != small). Spans over max_len bytes (far
 * more than the elements asked for) are refused. */
static enum oc_status oc_span_read(const struct oc_model *m, const struct oc_span *s, uint64_t max_len,
                                   uint8_t *small, size_t small_size, uint8_t **p) {
    if (s->len > max_len)
        return OC_ERR_UNSUPPORTED;
    *p = s->len <= small_size ? small : malloc((size_t)s->len);
    if (!*p)
        return OC_ERR_NOMEM;
    if (!oc_src_read((struct oc_src *)&m->src, s->off, (size_t)s->len, *p)) {
        if (*p != small)
            free(*p);
        return OC_ERR_IO;
    }
    return OC_OK;
}

enum oc_status oc_model_tensor_ints(const struct oc_model *m, const void *tensor, int64_t n, int64_t *out) {
    const Onnx__TensorProto *t = tensor;
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return OC_ERR_UNSUPPORTED;
    int esize = oc_raw_elem_size(t->data_type);
    if (!esize || n < 0)
        return OC_ERR_UNSUPPORTED;
    int64_t got = 0;
    for (unsigned i = 0; i < t->base.n_unknown_fields && got < n; i++) {
        const struct oc_span *s = oc_tensor_span(m, &t->base.unknown_fields[i]);
        if (!s)
            continue;
        uint8_t small[256], *p;
        enum oc_status rs = oc_span_read(m, s, (uint64_t)n * 10 + 16, small, sizeof small, &p);
        if (rs != OC_OK)
            return rs;
        enum oc_status bad = OC_OK;
        if (s->field == 9) { /* raw_data: little-endian fixed width */
            uint64_t avail = s->len / (uint64_t)esize;
            for (uint64_t k = 0; k < avail && got < n; k++) {
                uint64_t u = 0;
                for (int b = 0; b < esize; b++)
                    u |= (uint64_t)p[k * (uint64_t)esize + (uint64_t)b] << (8 * b);
                out[got++] = oc_int_cast(t->data_type, u);
            }
        } else if (s->field == 5 || s->field == 7 || s->field == 11) { /* packed varints */
            size_t pos = 0;
            while (pos < s->len && got < n) {
                uint64_t u;
                if (!oc_read_varint(p, (size_t)s->len, &pos, &u)) {
                    bad = OC_ERR_MODEL;
                    break;
                }
                out[got++] = oc_int_cast(t->data_type, u);
            }
        }
        if (p != small)
            free(p);
        if (bad != OC_OK)
            return bad;
    }
    /* unpacked integer elements kept in the structure */
    for (size_t k = 0; k < t->n_int64_data && got < n; k++)
        out[got++] = t->int64_data[k];
    for (size_t k = 0; k < t->n_int32_data && got < n; k++)
        out[got++] = oc_int_cast(t->data_type, (uint64_t)(int64_t)t->int32_data[k]);
    for (size_t k = 0; k < t->n_uint64_data && got < n; k++)
        out[got++] = (int64_t)t->uint64_data[k];
    return got == n ? OC_OK : OC_ERR_MODEL;
}

/* IEEE half / bfloat16 bits to double. */
static double oc_half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    double m = h & 0x3ff, v;
    if (e == 0)
        v = m / 16777216.0; /* subnormal: m * 2^-24 */
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else /* (1024 + m) * 2^(e - 25) */
        v = e >= 25 ? (1024.0 + m) * (double)(1u << (e - 25)) : (1024.0 + m) / (double)(1u << (25 - e));
    return (h & 0x8000) ? -v : v;
}

static double oc_fp_bits(int32_t dtype, uint64_t u) {
    switch (dtype) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: {
        uint32_t b = (uint32_t)u;
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
        return oc_half_to_double((uint16_t)u);
    default: { /* BFLOAT16: the upper half of a float */
        uint32_t b = (uint32_t)(u & 0xffff) << 16;
        float f;
        memcpy(&f, &b, sizeof f);
        return f;
    }
    }
}

enum oc_status oc_model_tensor_floats(const struct oc_model *m, const void *tensor, int64_t n, double *out) {
    const Onnx__TensorProto *t = tensor;
    int esize;
    switch (t->data_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
        esize = 4;
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
        esize = 8;
        break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
        esize = 2;
        break;
    default: {
        if (!oc_raw_elem_size(t->data_type) || n < 0)
            return OC_ERR_UNSUPPORTED;
        int64_t *iv = malloc((size_t)n * sizeof *iv + 1);
        if (!iv)
            return OC_ERR_NOMEM;
        enum oc_status st = oc_model_tensor_ints(m, tensor, n, iv);
        for (int64_t k = 0; st == OC_OK && k < n; k++)
            out[k] = (double)iv[k];
        free(iv);
        return st;
    }
    }
    if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return OC_ERR_UNSUPPORTED;
    if (n < 0)
        return OC_ERR_UNSUPPORTED;
    int64_t got = 0;
    for (unsigned i = 0; i < t->base.n_unknown_fields && got < n; i++) {
        const struct oc_span *s = oc_tensor_span(m, &t->base.unknown_fields[i]);
        if (!s)
            continue;
        uint8_t small[256], *p;
        enum oc_status rs = oc_span_read(m, s, (uint64_t)n * 10 + 16, small, sizeof small, &p);
        if (rs != OC_OK)
            return rs;
        enum oc_status bad = OC_OK;
        /* raw_data and the packed fixed-width fields are little-endian elements */
        int w = s->field == 9 ? esize : s->field == 4 ? 4 : s->field == 10 ? 8 : 0;
        if (w) {
            uint64_t avail = s->len / (uint64_t)w;
            for (uint64_t k = 0; k < avail && got < n; k++) {
                uint64_t u = 0;
                for (int b = 0; b < w; b++)
                    u |= (uint64_t)p[k * (uint64_t)w + (uint64_t)b] << (8 * b);
                out[got++] = oc_fp_bits(s->field == 4 ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
                                        : s->field == 10 ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
                                                         : t->data_type,
                                        u);
            }
        } else if (s->field == 5) { /* float16 / bfloat16 bits as packed int32 varints */
            size_t pos = 0;
            while (pos < s->len && got < n) {
                uint64_t u;
                if (!oc_read_varint(p, (size_t)s->len, &pos, &u)) {
                    bad = OC_ERR_MODEL;
                    break;
                }
                out[got++] = oc_fp_bits(t->data_type, u);
            }
        }
        if (p != small)
            free(p);
        if (bad != OC_OK)
            return bad;
    }
    for (size_t k = 0; k < t->n_int32_data && got < n; k++)
        out[got++] = oc_fp_bits(t->data_type, (uint64_t)(uint32_t)t->int32_data[k]);
    return got == n ? OC_OK : OC_ERR_MODEL;
}
