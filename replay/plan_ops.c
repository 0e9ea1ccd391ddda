/*
 * plan_ops.c — the per-op replay planners named in analyzer/ops.def. Each
 * reads the analyzed node (shapes, attributes, constant inputs) and says how
 * the GPU plugin runs it: which library call, with what parameters, and how
 * the inputs are filled so the op sees valid data (indices in bounds,
 * positive variances, divisors away from zero).
 *
 * The driver (plan.c) has filled p->in/p->out from the inferred shapes and
 * checked them; a planner only adds the op's parameters, or leaves
 * OC_RPK_NONE with a reason.
 */
#include "plan_host.h"

#include "../analyzer/attr.h"
#include "../analyzer/dtype.h"
#include "../analyzer/shape.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PLANNER(fn) void fn(struct oc_rp_pctx *c, struct oc_rp_plan *p)
PLANNER(oc_rp_alias); PLANNER(oc_rp_constant); PLANNER(oc_rp_conv); PLANNER(oc_rp_convt); PLANNER(oc_rp_gemm); PLANNER(oc_rp_matmul);
PLANNER(oc_rp_pool); PLANNER(oc_rp_global_pool); PLANNER(oc_rp_activation); PLANNER(oc_rp_unary);
PLANNER(oc_rp_softmax); PLANNER(oc_rp_batchnorm); PLANNER(oc_rp_lrn); PLANNER(oc_rp_binary);
PLANNER(oc_rp_reduce_attr); PLANNER(oc_rp_reduce_input); PLANNER(oc_rp_layernorm); PLANNER(oc_rp_transpose); PLANNER(oc_rp_expand);
PLANNER(oc_rp_slice); PLANNER(oc_rp_concat); PLANNER(oc_rp_split); PLANNER(oc_rp_gather); PLANNER(oc_rp_where);
PLANNER(oc_rp_cast); PLANNER(oc_rp_ort_gelu); PLANNER(oc_rp_skip_layernorm);

static void oc_rp_refuse(struct oc_rp_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void oc_rp_refuse(struct oc_rp_plan *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->reason, sizeof p->reason, fmt, ap);
    va_end(ap);
    p->kind = OC_RPK_NONE;
}

/* an attribute error the analysis let through (it validates most): the
 * node is listed with the message */
static bool oc_rp_attr_ok(struct oc_rp_pctx *c, struct oc_rp_plan *p, enum oc_status st) {
    if (st == OC_OK)
        return true;
    oc_rp_refuse(p, "attribute: %s", c->diag.msg);
    return false;
}

/* ---- pure helpers -------------------------------------------------------------- */

void oc_rp_contiguous(const int64_t *dims, int32_t rank, int64_t *stride) {
    int64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= dims[d] > 0 ? dims[d] : 1;
    }
}

bool oc_rp_broadcast_strides(const int64_t *di, int32_t ri, const int64_t *dout, int32_t ro, int64_t *stride) {
    if (ri > ro)
        return false;
    int64_t cs[OC_RP_MAX_RANK];
    oc_rp_contiguous(di, ri, cs);
    for (int32_t d = 0; d < ro; d++) {
        int32_t k = d - (ro - ri); /* the input's dim aligned with output dim d */
        if (k < 0) {
            stride[d] = 0;
        } else if (di[k] == dout[d]) {
            stride[d] = di[k] == 1 ? 0 : cs[k];
        } else if (di[k] == 1) {
            stride[d] = 0;
        } else {
            return false;
        }
    }
    return true;
}

bool oc_rp_window_axis(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe, int64_t out,
                       int64_t *pad, int64_t *crop, int64_t *ext) {
    if (stride <= 0 || k <= 0 || dil <= 0 || pb < 0 || pe < 0 || out < 0)
        return false;
    int64_t hi = pb > pe ? pb : pe;
    /* smallest pad >= max(pb, pe) with (pad - pb) on the stride grid */
    int64_t p = pb + (hi - pb + stride - 1) / stride * stride;
    for (int tries = 0; tries < 4; tries++, p += stride) {
        int64_t span = in + 2 * p - dil * (k - 1) - 1;
        if (span < 0)
            continue;
        int64_t e = span / stride + 1;
        int64_t cr = (p - pb) / stride;
        if (cr + out <= e) {
            *pad = p;
            *crop = cr;
            *ext = e;
            return true;
        }
    }
    return false;
}

bool oc_rp_window_axis_t(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t pb, int64_t pe, int64_t out,
                         int64_t *pad, int64_t *crop, int64_t *ext) {
    if (stride <= 0 || k <= 0 || dil <= 0 || pb < 0 || pe < 0 || out < 0 || in <= 0)
        return false;
    int64_t p = pb < pe ? pb : pe;
    int64_t full = stride * (in - 1) + dil * (k - 1) + 1 - 2 * p; /* cuDNN's dx with pad p */
    int64_t cr = pb - p;
    int64_t need = cr + out;
    if (full <= 0 || need > full + stride - 1)
        return false;
    *pad = p;
    *crop = cr;
    *ext = need > full ? need : full;
    return true;
}

/* ---- no kernel ------------------------------------------------------------------ */

PLANNER(oc_rp_alias) {
    (void)c;
    p->kind = OC_RPK_ALIAS;
    snprintf(p->reason, sizeof p->reason, "a view or metadata: no kernel runs");
}

/* Constant, and ConstantOfShape / Range of inputs known before running:
 * runtimes fold them into the graph's constants, so an inference runs
 * nothing */
PLANNER(oc_rp_constant) {
    int64_t n;
    for (int32_t i = 0; i < c->op.node->n_in; i++)
        if (c->op.node->in[i] >= 0 && !oc_in_ints(&c->op, i, &n) && !oc_in_floats(&c->op, i, &n)) {
            oc_rp_refuse(p, "%s of inputs known only when running", c->op.node->op_type);
            return;
        }
    p->kind = OC_RPK_ALIAS;
    p->n_in = p->n_out = 0;
    snprintf(p->reason, sizeof p->reason, "a constant: folded by runtimes, no kernel per inference");
}

/* ---- convolution and pooling ----------------------------------------------------- */

/* the window attributes of a Conv/Pool node, read by the analyzer's reader
 * (oc_window_read); auto_pad is resolved by its oc_spatial_out */
static bool oc_rp_read_window(struct oc_rp_pctx *c, struct oc_rp_plan *p, int32_t n, const int64_t *kernel,
                              struct oc_window *w) {
    if (n < 1 || n > 3) {
        oc_rp_refuse(p, "%d spatial dims (cuDNN replay handles 1 to 3)", n);
        return false;
    }
    return oc_rp_attr_ok(c, p, oc_window_read(c->op.node, n, kernel, w, &c->diag));
}

/* the cuDNN window of a forward Conv/Pool: X is in[0], Y out[0] */
static bool oc_rp_forward_window(struct oc_rp_plan *p, const struct oc_window *a, struct oc_rp_window *w) {
    memset(w, 0, sizeof *w);
    w->nsp = a->n;
    for (int32_t i = 0; i < a->n; i++) {
        int64_t in = p->in[0].dims[2 + i], want = p->out[0].dims[2 + i], o, pb, pe;
        if (oc_spatial_out(in, a->k[i], a->s[i], a->dil[i], a->pads[i], a->pads[a->n + i], a->ap, a->ceil_mode, &o, &pb,
                           &pe) !=
                OC_OK ||
            o != want) {
            oc_rp_refuse(p, "window of spatial dim %d does not match the inferred output", i);
            return false;
        }
        w->kernel[i] = a->k[i];
        w->stride[i] = a->s[i];
        w->dilation[i] = a->dil[i];
        if (!oc_rp_window_axis(in, a->k[i], a->s[i], a->dil[i], pb, pe, want, &w->pad[i], &w->crop[i], &w->ext[i])) {
            oc_rp_refuse(p, "pads %lld/%lld of spatial dim %d have no symmetric equivalent", (long long)pb,
                         (long long)pe, i);
            return false;
        }
        if (w->ext[i] != want || w->crop[i] != 0)
            w->cropped = true;
    }
    return true;
}

static void oc_rp_note_crop(struct oc_rp_plan *p, const struct oc_rp_window *w) {
    if (w->cropped)
        snprintf(p->reason, sizeof p->reason,
                 "asymmetric pads: cuDNN computes a padded output and the wanted part is copied out "
                 "(replay overhead)");
}

static bool oc_rp_float_io(struct oc_rp_plan *p) {
    if (!oc_dtype_is_float(p->in[0].dtype)) {
        oc_rp_refuse(p, "%s input (replay takes float tensors here)", oc_dtype_name(p->in[0].dtype));
        return false;
    }
    return true;
}

PLANNER(oc_rp_conv) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0], *wt = &p->in[1];
    if (x->rank < 3 || wt->rank != x->rank) {
        oc_rp_refuse(p, "Conv of rank %d", x->rank);
        return;
    }
    struct oc_window a;
    if (!oc_rp_read_window(c, p, x->rank - 2, wt->dims + 2, &a))
        return;
    int64_t group;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "group", 1, &group, &c->diag)))
        return;
    struct oc_rp_conv *cv = &p->u.conv;
    memset(cv, 0, sizeof *cv);
    if (!oc_rp_forward_window(p, &a, &cv->w))
        return;
    cv->group = group;
    cv->bias = p->n_in > 2 && p->in[2].dtype != 0;
    p->kind = OC_RPK_CONV;
    oc_rp_note_crop(p, &cv->w);
}

PLANNER(oc_rp_convt) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0], *wt = &p->in[1];
    if (x->rank < 3 || wt->rank != x->rank) {
        oc_rp_refuse(p, "ConvTranspose of rank %d", x->rank);
        return;
    }
    struct oc_window a;
    if (!oc_rp_read_window(c, p, x->rank - 2, wt->dims + 2, &a))
        return;
    int64_t group;
    const int64_t *op;
    int64_t nop;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "group", 1, &group, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_ints(c->op.node, "output_padding", &op, &nop, &c->diag)))
        return;
    struct oc_rp_conv *cv = &p->u.conv;
    memset(cv, 0, sizeof *cv);
    cv->w.nsp = a.n;
    cv->group = group;
    cv->bias = p->n_in > 2 && p->in[2].dtype != 0;
    for (int32_t i = 0; i < a.n; i++) {
        int64_t in = x->dims[2 + i], want = p->out[0].dims[2 + i];
        int64_t opad = nop == a.n ? op[i] : 0;
        /* the pads that give the inferred output (explicit, or chosen by
           auto_pad / output_shape): total split begin/end as given or evenly */
        int64_t total = a.s[i] * (in - 1) + opad + a.dil[i] * (a.k[i] - 1) + 1 - want;
        int64_t pb = a.pads[i], pe = a.pads[a.n + i];
        if (pb + pe != total) {
            pb = a.ap == OC_AUTO_PAD_SAME_LOWER ? total - total / 2 : total / 2;
            pe = total - pb;
        }
        if (total < 0) {
            oc_rp_refuse(p, "ConvTranspose output larger than its window allows");
            return;
        }
        cv->w.kernel[i] = a.k[i];
        cv->w.stride[i] = a.s[i];
        cv->w.dilation[i] = a.dil[i];
        cv->out_pad[i] = opad;
        if (!oc_rp_window_axis_t(in, a.k[i], a.s[i], a.dil[i], pb, pe, want, &cv->w.pad[i], &cv->w.crop[i],
                                 &cv->w.ext[i])) {
            oc_rp_refuse(p, "pads %lld/%lld of spatial dim %d have no cuDNN equivalent", (long long)pb,
                         (long long)pe, i);
            return;
        }
        if (cv->w.ext[i] != want || cv->w.crop[i] != 0)
            cv->w.cropped = true;
    }
    p->kind = OC_RPK_CONVT;
    oc_rp_note_crop(p, &cv->w);
}

PLANNER(oc_rp_pool) {
    if (!oc_rp_float_io(p))
        return;
    const char *op = c->op.node->op_type;
    bool is_max = strcmp(op, "MaxPool") == 0;
    if (p->in[0].rank < 3) {
        oc_rp_refuse(p, "%s of rank %d", op, p->in[0].rank);
        return;
    }
    if (is_max && p->n_out > 1 && p->out[1].dtype) {
        oc_rp_refuse(p, "MaxPool with the Indices output (cuDNN gives no indices)");
        return;
    }
    struct oc_window a;
    if (!oc_rp_read_window(c, p, p->in[0].rank - 2, NULL, &a))
        return;
    for (int32_t i = 0; i < a.n; i++)
        if (a.dil[i] != 1) {
            oc_rp_refuse(p, "%s with dilations (cuDNN pooling has none)", op);
            return;
        }
    struct oc_rp_pool *pl = &p->u.pool;
    memset(pl, 0, sizeof *pl);
    if (!oc_rp_forward_window(p, &a, &pl->w))
        return;
    int64_t cip = 0;
    if (!is_max && !oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "count_include_pad", 0, &cip, &c->diag)))
        return;
    pl->mode = is_max ? OC_POOL_MAX : cip ? OC_POOL_AVG_INCLUDE_PAD : OC_POOL_AVG_EXCLUDE_PAD;
    p->n_out = 1;
    p->kind = OC_RPK_POOL;
    oc_rp_note_crop(p, &pl->w);
}

PLANNER(oc_rp_global_pool) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0];
    if (x->rank < 3 || x->rank > 5) {
        oc_rp_refuse(p, "%s of rank %d (cuDNN pooling takes 3 to 5)", c->op.node->op_type, x->rank);
        return;
    }
    struct oc_rp_pool *pl = &p->u.pool;
    memset(pl, 0, sizeof *pl);
    pl->global = true;
    pl->mode = strcmp(c->op.node->op_type, "GlobalMaxPool") == 0 ? OC_POOL_MAX : OC_POOL_AVG_INCLUDE_PAD;
    pl->w.nsp = x->rank - 2;
    for (int32_t i = 0; i < pl->w.nsp; i++) {
        pl->w.kernel[i] = x->dims[2 + i];
        pl->w.stride[i] = pl->w.dilation[i] = 1;
        pl->w.ext[i] = 1;
    }
    p->kind = OC_RPK_POOL;
}

/* ---- GEMM ------------------------------------------------------------------------ */

/* cuBLAS wants every leading dimension >= 1, also for an empty operand */
static void oc_rp_gemm_ld_min(struct oc_rp_gemm *gm) {
    gm->lda = gm->lda < 1 ? 1 : gm->lda;
    gm->ldb = gm->ldb < 1 ? 1 : gm->ldb;
    gm->ldc = gm->ldc < 1 ? 1 : gm->ldc;
}

PLANNER(oc_rp_gemm) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_node *nd = c->op.node;
    int64_t ta, tb;
    float alpha, beta;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(nd, "transA", 0, &ta, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_int(nd, "transB", 0, &tb, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(nd, "alpha", 1.0f, &alpha, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(nd, "beta", 1.0f, &beta, &c->diag)))
        return;
    const struct oc_rp_tensor *A = &p->in[0], *B = &p->in[1];
    if (A->rank != 2 || B->rank != 2) {
        oc_rp_refuse(p, "Gemm of ranks %d and %d", A->rank, B->rank);
        return;
    }
    int64_t M = ta ? A->dims[1] : A->dims[0], K = ta ? A->dims[0] : A->dims[1];
    int64_t N = tb ? B->dims[0] : B->dims[1];
    struct oc_rp_gemm *gm = &p->u.gemm;
    memset(gm, 0, sizeof *gm);
    gm->mode = OC_GEMM_SINGLE;
    gm->trans_a = tb != 0; /* cuBLAS's A is ONNX B */
    gm->trans_b = ta != 0;
    gm->m = N;
    gm->n = M;
    gm->k = K;
    gm->lda = tb ? K : N;
    gm->ldb = ta ? M : K;
    gm->ldc = N;
    gm->batch = 1;
    gm->alpha = alpha;
    gm->beta = beta;
    gm->bias = OC_BIAS_NONE;
    if (p->n_in > 2 && p->in[2].dtype) {
        const struct oc_rp_tensor *C = &p->in[2];
        int64_t yd[2] = {M, N};
        struct oc_rp_piece *bc = &gm->bias_copy;
        memset(bc, 0, sizeof *bc);
        if (!oc_rp_broadcast_strides(C->dims, C->rank, yd, 2, bc->in_stride)) {
            oc_rp_refuse(p, "Gemm's C does not broadcast to [M, N]");
            return;
        }
        bc->input = 2;
        bc->output = 0;
        bc->rank = 2;
        bc->dims[0] = M;
        bc->dims[1] = N;
        oc_rp_contiguous(yd, 2, bc->out_stride);
        bool row = bc->in_stride[0] == 0, col = bc->in_stride[1] == 0;
        gm->bias = row && col ? OC_BIAS_SCALAR : row ? OC_BIAS_ROW : col ? OC_BIAS_COL : OC_BIAS_FULL;
    } else {
        gm->beta = 0.0;
    }
    oc_rp_gemm_ld_min(gm);
    p->kind = OC_RPK_GEMM;
}

PLANNER(oc_rp_matmul) {
    (void)c;
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *A = &p->in[0], *B = &p->in[1], *Y = &p->out[0];
    if (A->rank < 1 || B->rank < 1) {
        oc_rp_refuse(p, "MatMul of a scalar");
        return;
    }
    /* 1-D operands: A [K] is [1, K], B [K] is [K, 1] */
    int64_t M = A->rank == 1 ? 1 : A->dims[A->rank - 2], K = A->dims[A->rank - 1];
    int64_t N = B->rank == 1 ? 1 : B->dims[B->rank - 1];
    int32_t ra = A->rank > 2 ? A->rank - 2 : 0, rb = B->rank > 2 ? B->rank - 2 : 0;
    int32_t rbat = ra > rb ? ra : rb;
    int64_t bd[OC_RP_MAX_RANK], sa[OC_RP_MAX_RANK], sb[OC_RP_MAX_RANK];
    /* output batch dims: Y's leading dims (Y drops the 1-D operands' dims) */
    int64_t batch = 1;
    for (int32_t d = 0; d < rbat; d++) {
        bd[d] = Y->dims[d];
        batch *= bd[d];
    }
    /* per batch dim, element strides of each operand's matrices (0: broadcast) */
    if (!oc_rp_broadcast_strides(A->dims, ra, bd, rbat, sa) || !oc_rp_broadcast_strides(B->dims, rb, bd, rbat, sb)) {
        oc_rp_refuse(p, "MatMul batch dims do not broadcast");
        return;
    }
    for (int32_t d = 0; d < rbat; d++) {
        sa[d] *= M * K;
        sb[d] *= K * N;
    }
    struct oc_rp_gemm *gm = &p->u.gemm;
    memset(gm, 0, sizeof *gm);
    gm->m = N;
    gm->n = M;
    gm->k = K;
    gm->lda = N;
    gm->ldb = K;
    gm->ldc = N;
    gm->alpha = 1.0;
    gm->beta = 0.0;
    gm->bias = OC_BIAS_NONE;
    bool a_full = true, b_none = true, b_full = true, a_none = true;
    int64_t ca[OC_RP_MAX_RANK], cb[OC_RP_MAX_RANK];
    oc_rp_contiguous(bd, rbat, ca);
    for (int32_t d = 0; d < rbat; d++) {
        cb[d] = ca[d] * K * N;
        ca[d] *= M * K;
        if (bd[d] == 1)
            continue;
        a_full = a_full && sa[d] == ca[d];
        a_none = a_none && sa[d] == 0;
        b_full = b_full && sb[d] == cb[d];
        b_none = b_none && sb[d] == 0;
    }
    if (batch == 1 || (b_none && a_full)) {
        /* one GEMM: A's batch folded into its rows */
        gm->mode = OC_GEMM_SINGLE;
        gm->n = M * batch;
        gm->batch = 1;
    } else if ((a_full || a_none) && (b_full || b_none)) {
        gm->mode = OC_GEMM_STRIDED;
        gm->batch = batch;
        gm->stride_a = b_none ? 0 : K * N; /* cuBLAS's A is ONNX B */
        gm->stride_b = a_none ? 0 : M * K;
        gm->stride_c = M * N;
    } else {
        gm->mode = OC_GEMM_POINTERS;
        gm->batch = batch;
        gm->batch_rank = rbat;
        for (int32_t d = 0; d < rbat; d++) {
            gm->bdims[d] = bd[d];
            gm->astride[d] = sb[d];
            gm->bstride[d] = sa[d];
        }
        gm->stride_c = M * N;
    }
    oc_rp_gemm_ld_min(gm);
    p->kind = OC_RPK_GEMM;
}

/* ---- elementwise ------------------------------------------------------------------ */

PLANNER(oc_rp_activation) {
    if (!oc_rp_float_io(p))
        return;
    const char *op = c->op.node->op_type;
    struct oc_rp_eltwise *e = &p->u.ew;
    memset(e, 0, sizeof *e);
    if (strcmp(op, "Relu") == 0) {
        e->op = OC_ACT_RELU;
    } else if (strcmp(op, "Sigmoid") == 0) {
        e->op = OC_ACT_SIGMOID;
    } else if (strcmp(op, "Tanh") == 0) {
        e->op = OC_ACT_TANH;
    } else {
        float alpha;
        if (!oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "alpha", 1.0f, &alpha, &c->diag)))
            return;
        e->op = OC_ACT_ELU;
        e->alpha = alpha;
    }
    p->kind = OC_RPK_ACT;
}

PLANNER(oc_rp_unary) {
    const struct oc_node *nd = c->op.node;
    static const struct {
        const char *op;    /* NULL: not an ONNX op of its own */
        int32_t code;
        float alpha, beta; /* attribute defaults */
        double lo, hi;     /* input range the op is defined on */
    } tab[] = {
#define OC_UNARY(code, onnx, alpha, beta, lo, hi, ...) {onnx, OC_EW_##code, alpha, beta, lo, hi},
#define OC_BINARY(...)
#define OC_EW_ALIAS(onnx, code)
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
    };
    _Static_assert(OC_ARRAY_LEN(tab) == (size_t)OC_EW_UNARY_END, "one row per unary code");
    size_t i = 0;
    while (i < OC_ARRAY_LEN(tab) && (!tab[i].op || strcmp(tab[i].op, nd->op_type) != 0))
        i++;
    if (i == OC_ARRAY_LEN(tab)) {
        oc_rp_refuse(p, "no replay kernel for %s", nd->op_type);
        return;
    }
    bool is_not = tab[i].code == OC_EW_NOT;
    if (!is_not && !oc_rp_float_io(p))
        return;
    struct oc_rp_eltwise *e = &p->u.ew;
    memset(e, 0, sizeof *e);
    e->op = tab[i].code;
    float a = tab[i].alpha, b = tab[i].beta;
    if (!oc_rp_attr_ok(c, p, oc_attr_float(nd, "alpha", a, &a, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(nd, "beta", b, &b, &c->diag)))
        return;
    e->alpha = a;
    e->beta = b;
    if (e->op == OC_EW_GELU) {
        char approx[16];
        if (!oc_rp_attr_ok(c, p, oc_attr_string(nd, "approximate", "none", approx, sizeof approx, &c->diag)))
            return;
        if (strcmp(approx, "tanh") == 0)
            e->op = OC_EW_GELU_TANH;
    } else if (e->op == OC_EW_CLIP) {
        /* bounds: attributes before opset 11, optional inputs from 11 */
        float lo = -INFINITY, hi = INFINITY;
        if (!oc_rp_attr_ok(c, p, oc_attr_float(nd, "min", lo, &lo, &c->diag)) ||
            !oc_rp_attr_ok(c, p, oc_attr_float(nd, "max", hi, &hi, &c->diag)))
            return;
        int64_t n;
        const double *v;
        if (p->n_in > 1 && p->in[1].dtype && (v = oc_in_floats(&c->op, 1, &n)) && n == 1)
            lo = (float)v[0];
        if (p->n_in > 2 && p->in[2].dtype && (v = oc_in_floats(&c->op, 2, &n)) && n == 1)
            hi = (float)v[0];
        e->alpha = lo;
        e->beta = hi;
        p->n_in = 1; /* the bounds are scalars read on the host */
    }
    if (!is_not) {
        p->in[0].lo = tab[i].lo;
        p->in[0].hi = tab[i].hi;
    }
    e->rank = 1;
    e->dims[0] = p->out[0].numel;
    p->kind = OC_RPK_UNARY;
}

/* ONNX Runtime's fused GELUs (com.microsoft): Gelu and BiasGelu (erf form),
 * FastGelu (tanh form), QuickGelu (x * sigmoid(alpha * x)). BiasGelu's and
 * FastGelu's second input is a bias along the last dim, added first. */
PLANNER(oc_rp_ort_gelu) {
    const struct oc_node *nd = c->op.node;
    if (!oc_rp_float_io(p))
        return;
    struct oc_rp_eltwise *e = &p->u.ew;
    memset(e, 0, sizeof *e);
    if (strcmp(nd->op_type, "FastGelu") == 0) {
        e->op = OC_EW_GELU_TANH;
    } else if (strcmp(nd->op_type, "QuickGelu") == 0) {
        float alpha;
        if (!oc_rp_attr_ok(c, p, oc_attr_float(nd, "alpha", 1.702f, &alpha, &c->diag)))
            return;
        e->op = OC_EW_QUICK_GELU;
        e->alpha = alpha;
    } else {
        e->op = OC_EW_GELU;
    }
    const struct oc_rp_tensor *x = &p->in[0], *b = &p->in[1];
    if (p->n_in > 1 && b->dtype) {
        int64_t last = x->rank > 0 ? x->dims[x->rank - 1] : 1;
        if (b->numel != last || b->dtype != x->dtype) {
            oc_rp_refuse(p, "%s bias of %lld elements for a last dim of %lld", nd->op_type, (long long)b->numel,
                         (long long)last);
            return;
        }
        e->bias_n = b->numel;
    } else {
        p->n_in = 1;
    }
    p->in[0].lo = -1;
    p->in[0].hi = 1;
    e->rank = 1;
    e->dims[0] = p->out[0].numel;
    p->kind = OC_RPK_UNARY;
}

/* broadcast strides of inputs 0..n_ops-1 over the output, into e */
static bool oc_rp_broadcast_inputs(struct oc_rp_plan *p, int32_t n_ops, struct oc_rp_eltwise *e) {
    const struct oc_rp_tensor *y = &p->out[0];
    e->rank = y->rank;
    memcpy(e->dims, y->dims, sizeof e->dims);
    for (int32_t i = 0; i < n_ops; i++)
        if (!oc_rp_broadcast_strides(p->in[i].dims, p->in[i].rank, y->dims, y->rank, e->stride[i])) {
            oc_rp_refuse(p, "input %d does not broadcast to the output", i);
            return false;
        }
    e->same_shape_a = p->in[0].rank == y->rank && memcmp(p->in[0].dims, y->dims, sizeof(int64_t) * (size_t)y->rank) == 0;
    return true;
}

PLANNER(oc_rp_binary) {
    const char *op = c->op.node->op_type;
    static const struct {
        const char *op;
        int32_t code;
    } tab[] = {
#define OC_UNARY(...)
#define OC_BINARY(code, onnx, ...) {onnx, OC_EW_##code},
#define OC_EW_ALIAS(onnx, code) {onnx, OC_EW_##code},
#include "eltwise.def"
#undef OC_UNARY
#undef OC_BINARY
#undef OC_EW_ALIAS
    };
    size_t i = 0;
    while (i < OC_ARRAY_LEN(tab) && strcmp(tab[i].op, op) != 0)
        i++;
    if (i == OC_ARRAY_LEN(tab)) {
        oc_rp_refuse(p, "no replay kernel for %s", op);
        return;
    }
    int32_t kind = oc_rp_ew_kind(tab[i].code);
    if (p->n_in != 2) {
        oc_rp_refuse(p, "%s of %d inputs (replay takes 2)", op, p->n_in);
        return;
    }
    if (kind != OC_EWK_LOGIC && p->in[0].dtype == OC_DT_BOOL) {
        oc_rp_refuse(p, "%s on bool", op);
        return;
    }
    if (kind == OC_EWK_FLOAT && !oc_dtype_is_float(p->in[0].dtype)) {
        oc_rp_refuse(p, "integer %s", op);
        return;
    }
    /* the kernel's integer arithmetic is int32 and int64 (comparisons take any type) */
    int32_t dt = p->in[0].dtype;
    if (kind == OC_EWK_ARITH && !oc_dtype_is_float(dt) && dt != OC_DT_INT32 && dt != OC_DT_INT64) {
        oc_rp_refuse(p, "%s on %s (replay's integer arithmetic takes int32 and int64)", op, oc_dtype_name(dt));
        return;
    }
    struct oc_rp_eltwise *e = &p->u.ew;
    memset(e, 0, sizeof *e);
    e->op = tab[i].code;
    if (!oc_rp_broadcast_inputs(p, 2, e))
        return;
    if (e->op == OC_EW_POW) { /* a positive base, a moderate exponent */
        p->in[0].lo = 0.5;
        p->in[0].hi = 2.0;
        p->in[1].lo = 0.5;
        p->in[1].hi = 2.0;
    } else if (e->op == OC_EW_DIV) { /* divisors away from zero */
        p->in[1].lo = oc_dtype_is_float(p->in[1].dtype) ? 0.5 : 1;
        p->in[1].hi = oc_dtype_is_float(p->in[1].dtype) ? 1.5 : 4;
    }
    p->kind = OC_RPK_BINARY;
}

PLANNER(oc_rp_where) {
    (void)c;
    struct oc_rp_eltwise *e = &p->u.ew;
    memset(e, 0, sizeof *e);
    if (p->in[0].dtype != OC_DT_BOOL) {
        oc_rp_refuse(p, "Where with a %s condition", oc_dtype_name(p->in[0].dtype));
        return;
    }
    if (!oc_rp_broadcast_inputs(p, 3, e))
        return;
    p->in[0].fill = OC_FILL_MASK;
    p->kind = OC_RPK_WHERE;
}

/* Cast, and CastLike (its second input only names the type: not read) */
PLANNER(oc_rp_cast) {
    (void)c;
    p->n_in = 1;
    p->cast_to = p->out[0].dtype;
    p->kind = OC_RPK_CAST;
}

/* ---- normalization, softmax, reductions ------------------------------------------ */

PLANNER(oc_rp_softmax) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0];
    int64_t axis;
    bool v13 = c->op.node->opset >= 13;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "axis", v13 ? -1 : 1, &axis, &c->diag)))
        return;
    int32_t ax;
    if (!oc_axis_norm(axis, x->rank > 0 ? x->rank : 1, &ax)) {
        oc_rp_refuse(p, "axis %lld out of range", (long long)axis);
        return;
    }
    struct oc_rp_softmax *s = &p->u.softmax;
    memset(s, 0, sizeof *s);
    s->outer = s->axis = s->inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d < ax)
            s->outer *= x->dims[d];
        else if (d == ax || !v13)
            s->axis *= x->dims[d]; /* before 13: the input coerced to 2-D at axis */
        else
            s->inner *= x->dims[d];
    }
    s->log = strcmp(c->op.node->op_type, "LogSoftmax") == 0;
    p->kind = OC_RPK_SOFTMAX;
}

PLANNER(oc_rp_batchnorm) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0];
    if (x->rank < 2) {
        oc_rp_refuse(p, "BatchNormalization of rank %d", x->rank);
        return;
    }
    int64_t mode = 0;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "training_mode", 0, &mode, &c->diag)))
        return;
    if (mode || (p->n_out > 1 && p->out[1].dtype)) {
        oc_rp_refuse(p, "BatchNormalization in training mode (replay runs inference)");
        return;
    }
    float eps;
    if (!oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "epsilon", 1e-5f, &eps, &c->diag)))
        return;
    struct oc_rp_norm *nm = &p->u.norm;
    memset(nm, 0, sizeof *nm);
    nm->n = x->dims[0];
    nm->c = x->dims[1];
    nm->spatial = 1;
    for (int32_t d = 2; d < x->rank; d++)
        nm->spatial *= x->dims[d];
    nm->epsilon = eps;
    p->in[4].lo = 0.5; /* running variance: positive */
    p->in[4].hi = 1.5;
    p->n_out = 1;
    p->kind = OC_RPK_BATCHNORM;
}

PLANNER(oc_rp_lrn) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0];
    int64_t size;
    float alpha, beta, bias;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "size", 1, &size, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "alpha", 1e-4f, &alpha, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "beta", 0.75f, &beta, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "bias", 1.0f, &bias, &c->diag)))
        return;
    if (x->rank < 3 || size < 1 || size > 16) {
        oc_rp_refuse(p, "LRN of rank %d, size %lld (cuDNN: size 1 to 16)", x->rank, (long long)size);
        return;
    }
    /* CUDNN_LRN_MIN_K and CUDNN_LRN_MIN_BETA are doubles, and cuDNN compares the
       doubles it is given: 1e-5f and 0.01f are below them */
    if ((double)bias < 1e-5 || (double)beta < 0.01) {
        oc_rp_refuse(p, "LRN bias %g, beta %g (cuDNN: bias >= 1e-5, beta >= 0.01)", (double)bias, (double)beta);
        return;
    }
    struct oc_rp_norm *nm = &p->u.norm;
    memset(nm, 0, sizeof *nm);
    nm->n = x->dims[0];
    nm->c = x->dims[1];
    nm->spatial = 1;
    for (int32_t d = 2; d < x->rank; d++)
        nm->spatial *= x->dims[d];
    nm->size = size;
    nm->alpha = alpha;
    nm->beta = beta;
    nm->bias = bias;
    p->kind = OC_RPK_LRN;
}

PLANNER(oc_rp_layernorm) {
    if (!oc_rp_float_io(p))
        return;
    const struct oc_rp_tensor *x = &p->in[0];
    int64_t axis;
    float eps;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "axis", -1, &axis, &c->diag)) ||
        !oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "epsilon", 1e-5f, &eps, &c->diag)))
        return;
    int32_t ax;
    if (!oc_axis_norm(axis, x->rank, &ax)) {
        oc_rp_refuse(p, "axis %lld out of range", (long long)axis);
        return;
    }
    struct oc_rp_norm *nm = &p->u.norm;
    memset(nm, 0, sizeof *nm);
    nm->rows = nm->cols = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d < ax)
            nm->rows *= x->dims[d];
        else
            nm->cols *= x->dims[d];
    }
    if (p->in[1].numel != nm->cols || (p->n_in > 2 && p->in[2].dtype && p->in[2].numel != nm->cols)) {
        oc_rp_refuse(p, "LayerNormalization with broadcast scale or bias");
        return;
    }
    nm->epsilon = eps;
    nm->has_bias = p->n_in > 2 && p->in[2].dtype != 0;
    if (p->n_out > 1 && (p->out[1].dtype || (p->n_out > 2 && p->out[2].dtype)))
        snprintf(p->reason, sizeof p->reason, "Mean and InvStdDev outputs not written (inference kernel)");
    p->n_out = 1;
    p->kind = OC_RPK_LAYERNORM;
}

/* ONNX Runtime's SkipLayerNormalization (com.microsoft): LayerNormalization
 * over the last dim of input + skip (+ bias). Its inputs (input, skip, gamma,
 * beta?, bias?) are laid out as the kernel takes them: x, scale, bias, skip,
 * skip bias. */
PLANNER(oc_rp_skip_layernorm) {
    if (!oc_rp_float_io(p))
        return;
    float eps;
    if (!oc_rp_attr_ok(c, p, oc_attr_float(c->op.node, "epsilon", 1e-12f, &eps, &c->diag)))
        return;
    struct oc_rp_tensor t[5];
    memcpy(t, p->in, sizeof t);
    const struct oc_rp_tensor *x = &t[0];
    int64_t cols = x->rank > 0 ? x->dims[x->rank - 1] : 1;
    if (t[1].numel != x->numel) {
        oc_rp_refuse(p, "SkipLayerNormalization with a broadcast skip");
        return;
    }
    for (int32_t i = 2; i < 5 && i < p->n_in; i++)
        if (t[i].dtype && t[i].numel != cols) {
            oc_rp_refuse(p, "SkipLayerNormalization input %d of %lld elements for rows of %lld", i,
                         (long long)t[i].numel, (long long)cols);
            return;
        }
    memset(&p->in[1], 0, 4 * sizeof p->in[1]);
    p->in[1] = t[2];                    /* gamma */
    if (p->n_in > 3)
        p->in[2] = t[3];                /* beta  */
    p->in[3] = t[1];                    /* skip  */
    if (p->n_in > 4)
        p->in[4] = t[4];                /* bias  */
    struct oc_rp_norm *nm = &p->u.norm;
    memset(nm, 0, sizeof *nm);
    nm->cols = cols;
    nm->rows = cols > 0 ? x->numel / cols : 0;
    nm->epsilon = eps;
    nm->has_bias = p->in[2].dtype != 0;
    nm->has_skip = true;
    nm->has_skip_bias = p->in[4].dtype != 0;
    p->n_in = 5;
    for (int32_t i = 1; i < p->n_out; i++)
        if (p->out[i].dtype) {
            snprintf(p->reason, sizeof p->reason, "only the normalized output is written (inference kernel)");
            break;
        }
    p->n_out = 1;
    p->kind = OC_RPK_LAYERNORM;
}

static struct oc_rp_piece *oc_rp_piece_add(struct oc_rp_plan *p, int32_t input, int32_t output);

/* Reduce* of either registry row: axes (n_axes 0: all, unless noop) picked
 * by the row's own rule, as the analyzer's oc_reduce_attr_infer and
 * oc_reduce_input_infer pick them. A reduction over nothing (only size-1
 * axes, or noop_with_empty_axes) is a copy (|x| for L1 and L2): cuDNN's
 * cudnnReduceTensor refuses one whose input and output dims all match. */
static void oc_rp_reduce_plan(struct oc_rp_pctx *c, struct oc_rp_plan *p, const int64_t *axes, int64_t n_axes,
                              bool noop) {
    if (!oc_rp_float_io(p))
        return;
    const char *op = c->op.node->op_type;
    static const struct {
        const char *op;
        int32_t code;
    } tab[] = {{"ReduceSum", OC_RED_SUM}, {"ReduceMean", OC_RED_MEAN}, {"ReduceMax", OC_RED_MAX},
               {"ReduceMin", OC_RED_MIN}, {"ReduceProd", OC_RED_PROD}, {"ReduceL1", OC_RED_L1},
               {"ReduceL2", OC_RED_L2}};
    size_t i = 0;
    while (i < OC_ARRAY_LEN(tab) && strcmp(tab[i].op, op) != 0)
        i++;
    if (i == OC_ARRAY_LEN(tab)) {
        oc_rp_refuse(p, "no replay call for %s", op);
        return;
    }
    const struct oc_rp_tensor *x = &p->in[0];
    if (x->rank < 1) {
        oc_rp_refuse(p, "reduction of a scalar");
        return;
    }
    struct oc_rp_reduce *r = &p->u.reduce;
    memset(r, 0, sizeof *r);
    r->op = tab[i].code;
    r->rank = x->rank;
    for (int32_t d = 0; d < x->rank; d++) {
        r->in_dims[d] = x->dims[d];
        r->out_dims[d] = n_axes == 0 && !noop ? 1 : x->dims[d];
    }
    for (int64_t j = 0; j < n_axes; j++) {
        int32_t ax;
        if (!oc_axis_norm(axes[j], x->rank, &ax)) {
            oc_rp_refuse(p, "axis %lld out of range", (long long)axes[j]);
            return;
        }
        r->out_dims[ax] = 1;
    }
    int64_t out_n = 1;
    bool same = true;
    for (int32_t d = 0; d < x->rank; d++) {
        out_n *= r->out_dims[d];
        same = same && r->out_dims[d] == r->in_dims[d];
    }
    if (out_n != p->out[0].numel) { /* never written past the output */
        oc_rp_refuse(p, "reduced shape of %lld elements, the output has %lld", (long long)out_n,
                     (long long)p->out[0].numel);
        return;
    }
    if (!same) {
        p->kind = OC_RPK_REDUCE;
        return;
    }
    if (r->op == OC_RED_L1 || r->op == OC_RED_L2) {
        memset(&p->u.ew, 0, sizeof p->u.ew);
        p->u.ew.op = OC_EW_ABS;
        p->kind = OC_RPK_UNARY;
    } else {
        memset(&p->u.copy, 0, sizeof p->u.copy);
        struct oc_rp_piece *pc = oc_rp_piece_add(p, 0, 0);
        pc->rank = 1;
        pc->dims[0] = x->numel;
        pc->in_stride[0] = pc->out_stride[0] = 1;
        p->kind = OC_RPK_COPY;
    }
    snprintf(p->reason, sizeof p->reason, "reduces nothing: run as a %s", p->kind == OC_RPK_COPY ? "copy" : "|x|");
}

/* the opset-1 rows: axes is an attribute */
PLANNER(oc_rp_reduce_attr) {
    const int64_t *axes;
    int64_t n_axes = 0;
    if (!oc_rp_attr_ok(c, p, oc_attr_ints(c->op.node, "axes", &axes, &n_axes, &c->diag)))
        return;
    oc_rp_reduce_plan(c, p, axes, n_axes, false);
}

/* ReduceSum-13 and the others from 18: axes is an optional input, read on
 * the host */
PLANNER(oc_rp_reduce_input) {
    const int64_t *axes = NULL;
    int64_t n_axes = 0, noop = 0;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "noop_with_empty_axes", 0, &noop, &c->diag)))
        return;
    if (p->n_in > 1 && p->in[1].dtype) {
        axes = oc_in_ints(&c->op, 1, &n_axes);
        if (!axes) {
            oc_rp_refuse(p, "axes not known before running");
            return;
        }
    }
    p->n_in = 1;
    oc_rp_reduce_plan(c, p, axes, n_axes, noop != 0);
}

/* ---- layout: strided copies -------------------------------------------------------- */

static struct oc_rp_piece *oc_rp_piece_add(struct oc_rp_plan *p, int32_t input, int32_t output) {
    struct oc_rp_copy *cp = &p->u.copy;
    if (cp->n_pieces >= OC_RP_MAX_PIECES) {
        oc_rp_refuse(p, "more than %d copies", OC_RP_MAX_PIECES);
        return NULL;
    }
    struct oc_rp_piece *pc = &cp->piece[cp->n_pieces++];
    memset(pc, 0, sizeof *pc);
    pc->input = input;
    pc->output = output;
    return pc;
}

PLANNER(oc_rp_transpose) {
    const struct oc_rp_tensor *x = &p->in[0], *y = &p->out[0];
    const int64_t *perm;
    int64_t n;
    if (!oc_rp_attr_ok(c, p, oc_attr_ints(c->op.node, "perm", &perm, &n, &c->diag)))
        return;
    if (n && n != x->rank) {
        oc_rp_refuse(p, "perm of %lld entries for rank %d", (long long)n, x->rank);
        return;
    }
    memset(&p->u.copy, 0, sizeof p->u.copy);
    struct oc_rp_piece *pc = oc_rp_piece_add(p, 0, 0);
    int64_t xs[OC_RP_MAX_RANK];
    oc_rp_contiguous(x->dims, x->rank, xs);
    pc->rank = y->rank;
    for (int32_t d = 0; d < y->rank; d++) {
        int64_t src = n ? perm[d] : y->rank - 1 - d;
        if (src < 0 || src >= x->rank) {
            oc_rp_refuse(p, "perm entry %lld out of range", (long long)src);
            return;
        }
        pc->dims[d] = y->dims[d];
        pc->in_stride[d] = xs[src];
    }
    oc_rp_contiguous(y->dims, y->rank, pc->out_stride);
    p->kind = OC_RPK_COPY;
}

PLANNER(oc_rp_expand) {
    (void)c;
    const struct oc_rp_tensor *x = &p->in[0], *y = &p->out[0];
    memset(&p->u.copy, 0, sizeof p->u.copy);
    struct oc_rp_piece *pc = oc_rp_piece_add(p, 0, 0);
    pc->rank = y->rank;
    memcpy(pc->dims, y->dims, sizeof pc->dims);
    if (!oc_rp_broadcast_strides(x->dims, x->rank, y->dims, y->rank, pc->in_stride)) {
        oc_rp_refuse(p, "input does not broadcast to the output");
        return;
    }
    oc_rp_contiguous(y->dims, y->rank, pc->out_stride);
    p->n_in = 1; /* the shape input is read on the host */
    p->kind = OC_RPK_COPY;
}

PLANNER(oc_rp_slice) {
    const struct oc_rp_tensor *x = &p->in[0], *y = &p->out[0];
    const int64_t *starts = NULL, *axes = NULL, *steps = NULL;
    int64_t ns = 0, na = 0, nst = 0;
    if (c->op.node->opset < 10) {
        if (!oc_rp_attr_ok(c, p, oc_attr_ints(c->op.node, "starts", &starts, &ns, &c->diag)) ||
            !oc_rp_attr_ok(c, p, oc_attr_ints(c->op.node, "axes", &axes, &na, &c->diag)))
            return;
    } else {
        starts = oc_in_ints(&c->op, 1, &ns);
        if (p->n_in > 3 && p->in[3].dtype)
            axes = oc_in_ints(&c->op, 3, &na);
        if (p->n_in > 4 && p->in[4].dtype)
            steps = oc_in_ints(&c->op, 4, &nst);
        if (!starts || (p->n_in > 3 && p->in[3].dtype && !axes) || (p->n_in > 4 && p->in[4].dtype && !steps)) {
            oc_rp_refuse(p, "starts, axes or steps not known before running");
            return;
        }
    }
    int64_t xs[OC_RP_MAX_RANK], start[OC_RP_MAX_RANK] = {0}, step[OC_RP_MAX_RANK];
    for (int32_t d = 0; d < OC_RP_MAX_RANK; d++)
        step[d] = 1;
    oc_rp_contiguous(x->dims, x->rank, xs);
    for (int64_t j = 0; j < ns; j++) {
        int32_t ax;
        if (!oc_axis_norm(na ? axes[j] : j, x->rank, &ax)) {
            oc_rp_refuse(p, "axis out of range");
            return;
        }
        int64_t st = nst ? steps[j] : 1, dim = x->dims[ax], s = starts[j];
        if (st == 0) {
            oc_rp_refuse(p, "step 0");
            return;
        }
        if (s < 0)
            s += dim;
        /* the spec's clamping: [0, dim] going forward, [0, dim - 1] backward */
        if (s < 0)
            s = 0;
        if (st > 0 && s > dim)
            s = dim;
        if (st < 0 && s > dim - 1)
            s = dim - 1;
        start[ax] = s;
        step[ax] = st;
    }
    memset(&p->u.copy, 0, sizeof p->u.copy);
    struct oc_rp_piece *pc = oc_rp_piece_add(p, 0, 0);
    pc->rank = y->rank;
    for (int32_t d = 0; d < y->rank; d++) {
        pc->dims[d] = y->dims[d];
        pc->in_offset += start[d] * xs[d];
        pc->in_stride[d] = step[d] * xs[d];
    }
    oc_rp_contiguous(y->dims, y->rank, pc->out_stride);
    p->n_in = 1;
    p->kind = OC_RPK_COPY;
}

/* Concat and Split: parts laid one after another along `axis` of the whole
 * tensor (Concat's output, Split's input); each part is one strided copy,
 * into the whole (Concat) or out of it (Split). */
static void oc_rp_axis_parts(struct oc_rp_pctx *c, struct oc_rp_plan *p, bool split) {
    const struct oc_rp_tensor *whole = split ? &p->in[0] : &p->out[0];
    int64_t axis;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "axis", 0, &axis, &c->diag)))
        return;
    int32_t ax;
    if (!oc_axis_norm(axis, whole->rank, &ax)) {
        oc_rp_refuse(p, "axis %lld out of range", (long long)axis);
        return;
    }
    memset(&p->u.copy, 0, sizeof p->u.copy);
    int64_t ws[OC_RP_MAX_RANK], at = 0;
    oc_rp_contiguous(whole->dims, whole->rank, ws);
    for (int32_t k = 0; k < (split ? p->n_out : p->n_in); k++) {
        const struct oc_rp_tensor *part = split ? &p->out[k] : &p->in[k];
        if (!part->dtype)
            continue;
        struct oc_rp_piece *pc = oc_rp_piece_add(p, split ? 0 : k, split ? k : 0);
        if (!pc)
            return;
        pc->rank = part->rank;
        memcpy(pc->dims, part->dims, sizeof pc->dims);
        oc_rp_contiguous(part->dims, part->rank, split ? pc->out_stride : pc->in_stride);
        memcpy(split ? pc->in_stride : pc->out_stride, ws, sizeof ws);
        *(split ? &pc->in_offset : &pc->out_offset) = at * ws[ax];
        at += part->dims[ax];
    }
    if (split)
        p->n_in = 1; /* `split` input read on the host */
    p->kind = OC_RPK_COPY;
}

PLANNER(oc_rp_concat) {
    oc_rp_axis_parts(c, p, false);
}

PLANNER(oc_rp_split) {
    oc_rp_axis_parts(c, p, true);
}

PLANNER(oc_rp_gather) {
    const struct oc_rp_tensor *x = &p->in[0], *idx = &p->in[1];
    int64_t axis;
    if (!oc_rp_attr_ok(c, p, oc_attr_int(c->op.node, "axis", 0, &axis, &c->diag)))
        return;
    int32_t ax;
    if (!oc_axis_norm(axis, x->rank, &ax)) {
        oc_rp_refuse(p, "axis %lld out of range", (long long)axis);
        return;
    }
    if (idx->dtype != OC_DT_INT64 && idx->dtype != OC_DT_INT32) {
        oc_rp_refuse(p, "%s indices", oc_dtype_name(idx->dtype));
        return;
    }
    struct oc_rp_gather *ga = &p->u.gather;
    ga->outer = ga->inner = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d < ax)
            ga->outer *= x->dims[d];
        else if (d > ax)
            ga->inner *= x->dims[d];
    }
    ga->axis_dim = x->dims[ax];
    ga->n_idx = idx->numel;
    if (ga->axis_dim <= 0 && ga->n_idx > 0) {
        oc_rp_refuse(p, "Gather from an empty axis");
        return;
    }
    p->in[1].fill = OC_FILL_INDEX; /* indices within the axis */
    p->in[1].lo = 0;
    p->in[1].hi = (double)ga->axis_dim;
    p->kind = OC_RPK_GATHER;
}
