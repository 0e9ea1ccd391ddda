/*
 * ops/signal.c — DFT (opset 17: axis attribute; 20: axis input), STFT,
 * HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.
 *
 * DFT: the output is the input with its last dim (1 real, 2 complex) set to
 * 2 and the transformed axis set to n = dft_length (else the axis dim), or
 * floor(n / 2) + 1 when onesided. The axis value is needed only when
 * dft_length or onesided changes that axis.
 *
 * Transform cost rule: a length-n complex FFT is 5 n ceil(log2 n) FLOPs, the
 * radix-2 Cooley-Tukey count used as the FFT FLOP convention (FFTW's
 * benchmarks, the HPC Challenge FFT), and a real input transform is half of
 * it. n log n rather than the direct O(n^2) sum because every FFT library
 * (pocketfft, cuFFT, MKL, FFTW) is O(n log n) for all n, so the direct sum
 * would overstate real work by n / log n; ceil(log2 n) rounds a length that
 * is not a power of two up to the next power (mixed-radix and Bluestein
 * plans cost about that). ONNX Runtime's CPU kernel uses a direct O(n^2)
 * sum for lengths that are not powers of two, so on it such lengths cost
 * more than counted here.
 *   DFT   FLOPs = T * F(n) + (inverse ? T * 2n : 0), T = number of 1-D
 *         transforms = numel(input) / (input[axis] * input[-1]),
 *         F(n) = 5 n ceil(log2 n), halved for real input;
 *         the inverse scales the real and imaginary parts by 1/n.
 *   STFT  FLOPs = batch * frames * (F(frame_length) + w * frame_length),
 *         w = 1 (real) or 2 (complex signal) multiplies when a window is
 *         given.
 * Windows (output [size]): Hann and Hamming a0 - a1 cos(2 pi k / N) are
 *   4 FLOPs per element (argument multiply, cos, multiply, subtract);
 *   Blackman a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N) is 8.
 * MelWeightMatrix [floor(dft_length / 2) + 1, num_mel_bins]: 2 FLOPs per
 *   element, the ramp value (j - lower) / (center - lower) (an upper bound:
 *   entries outside the triangles are zero).
 * STFT frames, window sizes and MelWeightMatrix's dims need their inputs'
 * values (initializers or constant-folded values).
 */
#include "../attr.h"
#include "../dtype.h"
#include "rules.h"
#include "../shape.h"

enum { OC_MAX_RANK_DFT = 64 };

/* One scalar integer input's value; false when absent or not known. */
static bool oc_scalar_in(struct oc_op_ctx *c, int32_t i, int64_t *v) {
    int64_t n;
    const int64_t *p = oc_in_ints(c, i, &n);
    if (!p || n != 1)
        return false;
    *v = p[0];
    return true;
}

static uint64_t oc_ceil_log2(uint64_t n) {
    uint64_t l = 0;
    while (l < 64 && (UINT64_C(1) << l) < n)
        l++;
    return l;
}

/* F(n): 5 n ceil(log2 n), halved for a real transform. */
static uint64_t oc_fft_flops(uint64_t n, bool real, uint32_t *flags) {
    uint64_t f;
    if (oc_mul_u64(5 * oc_ceil_log2(n), n, &f))
        *flags |= OC_COST_OVERFLOW;
    return real ? f / 2 : f;
}

struct oc_dft {
    int32_t axis;       /* -1 when not known                */
    int64_t length;     /* dft_length, -1 when not given    */
    int64_t onesided, inverse;
};

static enum oc_status oc_dft_read(struct oc_op_ctx *c, struct oc_dft *d) {
    const struct oc_value *x = oc_in(c, 0);
    enum oc_status st;
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank < 2)
        return OC_FAIL(c, OC_ERR_MODEL, "input has rank %d, expected at least 2", x->rank);
    int64_t last = x->dims[x->rank - 1].value;
    if (last >= 0 && last != 1 && last != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "last input dim is %lld, expected 1 (real) or 2 (complex)", (long long)last);
    if ((st = oc_attr_int(c->node, "onesided", 0, &d->onesided, c->diag)) != OC_OK ||
        (st = oc_attr_int(c->node, "inverse", 0, &d->inverse, c->diag)) != OC_OK)
        return st;
    if (d->onesided && last == 2)
        return OC_FAIL(c, OC_ERR_MODEL, "onesided output is not possible for complex input");
    d->length = -1;
    if (oc_in(c, 1)) {
        if (!oc_scalar_in(c, 1, &d->length))
            return OC_FAIL(c, OC_ERR_SHAPE, "the value of dft_length is not known");
        if (d->length <= 0)
            return OC_FAIL(c, OC_ERR_MODEL, "dft_length %lld is not positive", (long long)d->length);
    }
    int64_t axis = c->node->opset >= 20 ? -2 : 1;
    bool known = true;
    if (c->node->opset >= 20) {
        if (oc_in(c, 2))
            known = oc_scalar_in(c, 2, &axis);
    } else if ((st = oc_attr_int(c->node, "axis", 1, &axis, c->diag)) != OC_OK) {
        return st;
    }
    d->axis = -1;
    if (known && (!oc_axis_norm(axis, x->rank, &d->axis) || d->axis == x->rank - 1))
        return OC_FAIL(c, OC_ERR_MODEL, "axis %lld is out of range for rank %d (the last dim holds re/im)",
                       (long long)axis, x->rank);
    return OC_OK;
}

OC_RULE(oc_dft_infer) {
    struct oc_dft d;
    enum oc_status st = oc_dft_read(c, &d);
    if (st != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    if (x->rank > OC_MAX_RANK_DFT)
        return OC_FAIL(c, OC_ERR_UNSUPPORTED, "rank %d over %d", x->rank, OC_MAX_RANK_DFT);
    struct oc_dim out[OC_MAX_RANK_DFT];
    for (int32_t i = 0; i < x->rank; i++)
        out[i] = x->dims[i];
    out[x->rank - 1] = (struct oc_dim){2, NULL};
    if (d.axis < 0) {
        if (d.length >= 0 || d.onesided) {
            /* the changed dim is not known: keep the rank, fail the shape */
            if ((st = oc_set_out(c, 0, x->dtype, x->rank, out)) != OC_OK)
                return st;
            return OC_FAIL(c, OC_ERR_SHAPE, "the value of axis is not known");
        }
        return oc_set_out(c, 0, x->dtype, x->rank, out);
    }
    int64_t n = d.length >= 0 ? d.length : x->dims[d.axis].value;
    if (d.length >= 0 || d.onesided)
        out[d.axis] = (struct oc_dim){n < 0 ? -1 : d.onesided ? n / 2 + 1 : n, NULL};
    return oc_set_out(c, 0, x->dtype, x->rank, out);
}

/* T * F(n) (+ T * 2n if inverse), formula at the top. */
OC_COST(oc_dft_cost) {
    struct oc_dft d;
    enum oc_status st = oc_dft_read(c, &d);
    if (st != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    int64_t ax = d.axis;
    if (ax < 0) {
        /* axis not known: the count is still exact when every candidate
         * signal axis has the same length */
        int32_t first = c->node->opset >= 20 ? 0 : 1;
        for (int32_t i = first; i < x->rank - 1; i++) {
            if (ax >= 0 && x->dims[i].value != x->dims[ax].value)
                return OC_FAIL(c, OC_ERR_SHAPE, "the value of axis is not known");
            if (ax < 0)
                ax = i;
        }
        if (ax < 0)
            return OC_FAIL(c, OC_ERR_SHAPE, "the value of axis is not known");
    }
    uint64_t along = (uint64_t)x->dims[ax].value, last = (uint64_t)x->dims[x->rank - 1].value;
    uint64_t n = d.length >= 0 ? (uint64_t)d.length : along;
    uint64_t t = along && last ? oc_numel(x) / (along * last) : 0;
    oc_cost_add_flops(cost, t, oc_fft_flops(n, last == 1, &cost->flags));
    if (d.inverse)
        oc_cost_add_flops(cost, t, 2 * n);
    return OC_OK;
}

struct oc_stft {
    int64_t step, frame, onesided;  /* -1 when not known */
};

static enum oc_status oc_stft_read(struct oc_op_ctx *c, struct oc_stft *s) {
    const struct oc_value *x = oc_in(c, 0), *win = oc_in(c, 2);
    enum oc_status st;
    if (!x || x->rank < 0)
        return OC_ERR_SHAPE;
    if (x->rank != 3)
        return OC_FAIL(c, OC_ERR_MODEL, "signal has rank %d, expected 3 [batch, length, 1 or 2]", x->rank);
    int64_t last = x->dims[2].value;
    if (last >= 0 && last != 1 && last != 2)
        return OC_FAIL(c, OC_ERR_MODEL, "last signal dim is %lld, expected 1 (real) or 2 (complex)", (long long)last);
    if ((st = oc_attr_int(c->node, "onesided", 1, &s->onesided, c->diag)) != OC_OK)
        return st;
    if (s->onesided && last == 2)
        return OC_FAIL(c, OC_ERR_MODEL, "onesided output is not possible for a complex signal");
    if (!oc_scalar_in(c, 1, &s->step))
        s->step = -1;
    else if (s->step <= 0)
        return OC_FAIL(c, OC_ERR_MODEL, "frame_step %lld is not positive", (long long)s->step);
    int64_t wlen = -1;
    if (win && win->rank >= 0) {
        if (win->rank != 1)
            return OC_FAIL(c, OC_ERR_MODEL, "window has rank %d, expected 1", win->rank);
        wlen = win->dims[0].value;
    }
    s->frame = -1;
    if (oc_in(c, 3)) {
        if (oc_scalar_in(c, 3, &s->frame) && s->frame <= 0)
            return OC_FAIL(c, OC_ERR_MODEL, "frame_length %lld is not positive", (long long)s->frame);
        if (s->frame > 0 && wlen >= 0 && wlen != s->frame)
            return OC_FAIL(c, OC_ERR_MODEL, "window length %lld differs from frame_length %lld", (long long)wlen,
                           (long long)s->frame);
    } else if (win) {
        s->frame = wlen;
    } else {
        return OC_FAIL(c, OC_ERR_MODEL, "neither window nor frame_length is given");
    }
    if (s->frame >= 0 && x->dims[1].value >= 0 && s->frame > x->dims[1].value)
        return OC_FAIL(c, OC_ERR_MODEL, "frame_length %lld exceeds the signal length %lld", (long long)s->frame,
                       (long long)x->dims[1].value);
    return OC_OK;
}

OC_RULE(oc_stft_infer) {
    struct oc_stft s;
    enum oc_status st = oc_stft_read(c, &s);
    if (st != OC_OK)
        return st;
    const struct oc_value *x = oc_in(c, 0);
    int64_t len = x->dims[1].value;
    int64_t frames = s.step > 0 && s.frame > 0 && len >= 0 ? (len - s.frame) / s.step + 1 : -1;
    int64_t bins = s.frame < 0 ? -1 : s.onesided ? s.frame / 2 + 1 : s.frame;
    struct oc_dim out[4] = {x->dims[0], {frames, NULL}, {bins, NULL}, {2, NULL}};
    if ((st = oc_set_out(c, 0, x->dtype, 4, out)) != OC_OK)
        return st;
    if (s.step < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of frame_step is not known");
    if (s.frame < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of frame_length is not known");
    return OC_OK;
}

/* batch * frames * (F(frame_length) + window multiplies). */
OC_COST(oc_stft_cost) {
    const struct oc_value *x = oc_in(c, 0), *y = oc_out(c, 0);
    struct oc_stft s;
    enum oc_status st = oc_stft_read(c, &s);
    if (st != OC_OK)
        return st;
    if (s.frame < 0)
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of frame_length is not known");
    bool real = x->dims[2].value == 1;
    uint64_t per = oc_fft_flops((uint64_t)s.frame, real, &cost->flags);
    if (oc_in(c, 2))
        per += (uint64_t)s.frame * (real ? 1 : 2);
    uint64_t t;
    if (oc_mul_u64((uint64_t)y->dims[0].value, (uint64_t)y->dims[1].value, &t))
        cost->flags |= OC_COST_OVERFLOW;
    oc_cost_add_flops(cost, t, per);
    return OC_OK;
}

static enum oc_status oc_output_datatype(struct oc_op_ctx *c, int32_t *dt) {
    int64_t v;
    enum oc_status st = oc_attr_int(c->node, "output_datatype", OC_DT_FLOAT, &v, c->diag);
    if (st != OC_OK)
        return st;
    if (v <= 0 || v >= OC_DT_COUNT || v == OC_DT_STRING)
        return OC_FAIL(c, OC_ERR_MODEL, "output_datatype %lld is not a numeric data type", (long long)v);
    *dt = (int32_t)v;
    return OC_OK;
}

OC_RULE(oc_window_infer) {
    int32_t dt;
    enum oc_status st = oc_output_datatype(c, &dt);
    if (st != OC_OK)
        return st;
    int64_t size;
    if (!oc_scalar_in(c, 0, &size)) {
        int64_t unknown = OC_DIM_UNKNOWN;
        if ((st = oc_set_out_i64(c, 0, dt, 1, &unknown)) != OC_OK)
            return st;
        return OC_FAIL(c, OC_ERR_SHAPE, "the value of size is not known");
    }
    if (size < 0)
        return OC_FAIL(c, OC_ERR_MODEL, "window size %lld is negative", (long long)size);
    return oc_set_out_i64(c, 0, dt, 1, &size);
}

/* Hann, Hamming: 4 per element; Blackman: 8 per element. */
OC_COST(oc_window_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 4);
    return OC_OK;
}

OC_COST(oc_blackman_window_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 8);
    return OC_OK;
}

OC_RULE(oc_mel_weight_matrix_infer) {
    int32_t dt;
    enum oc_status st = oc_output_datatype(c, &dt);
    if (st != OC_OK)
        return st;
    int64_t mel, len, dims[2] = {OC_DIM_UNKNOWN, OC_DIM_UNKNOWN};
    bool have_mel = oc_scalar_in(c, 0, &mel), have_len = oc_scalar_in(c, 1, &len);
    if ((have_mel && mel <= 0) || (have_len && len <= 0))
        return OC_FAIL(c, OC_ERR_MODEL, "num_mel_bins and dft_length must be positive");
    if (have_len)
        dims[0] = len / 2 + 1;
    if (have_mel)
        dims[1] = mel;
    if ((st = oc_set_out_i64(c, 0, dt, 2, dims)) != OC_OK)
        return st;
    if (!have_mel || !have_len)
        return OC_FAIL(c, OC_ERR_SHAPE, "the values of num_mel_bins and dft_length are not known");
    return OC_OK;
}

/* 2 per output element. */
OC_COST(oc_mel_weight_matrix_cost) {
    oc_cost_add_flops(cost, oc_numel(oc_out(c, 0)), 2);
    return OC_OK;
}
