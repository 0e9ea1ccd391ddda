/*
 * calibrate.c — efficiency factors fitted to replay measurements (see
 * calibrate.h for the model and the loss).
 */
#include "calibrate.h"
#include "../views/perf/parallel.h"

#include "../analyzer/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The static model's --math for a replay's --math: strict FP32 is no tensor
 * cores, TF32 is fp32 contractions on TF32 tensor cores, and "fp16 (tensor
 * cores allowed)" leaves the unit to the tensors' own precision. */
static enum oc_math oc_calib_math(int32_t rp_math) {
    switch (rp_math) {
    case OC_RP_MATH_TF32:
        return OC_MATH_TF32;
    case OC_RP_MATH_FP16:
        return OC_MATH_AUTO;
    default:
        return OC_MATH_FP32;
    }
}

bool oc_calib_points(const struct oc_rp_file *f, const struct oc_gpu *gpu, struct oc_calib_point **pts, int32_t *n,
                     int32_t *skipped) {
    for (int32_t i = 0; i < f->n_nodes; i++) {
        const struct oc_rp_file_node *fn = &f->nodes[i];
        if (!fn->measured || fn->light) /* a node without a kernel: light_s's (oc_calib_fit_light) */
            continue;
        if (!(fn->time_ns > 0) || !(fn->est_flops > 0 || fn->est_bytes > 0) || fn->overhead) {
            (*skipped)++;
            continue;
        }
        if (*n == 0 || (*n >= 16 && !(*n & (*n - 1)))) { /* room for 16, then doubled at each power of two */
            size_t cap = *n ? 2 * (size_t)*n : 16;
            struct oc_calib_point *p = realloc(*pts, cap * sizeof *p);
            if (!p)
                return false;
            *pts = p;
        }
        double peak;
        struct oc_calib_point *p = &(*pts)[(*n)++];
        p->unit = oc_perf_unit(gpu, fn->dtype, fn->est_macs > 0, oc_calib_math(f->math), &peak);
        p->flops = fn->est_flops;
        p->conv = oc_perf_conv_op(fn->op);
        p->outputs = fn->est_macs > 0 ? fn->est_outputs : 0;
        p->bytes = fn->est_bytes;
        p->measured_s = fn->time_ns * 1e-9;
        p->op = fn->op;
        p->kernels = fn->kernels;
        p->gpu = NULL;
        p->expand_bytes = fn->est_expand_bytes;
        p->recurrence = fn->est_recurrence;
        p->conv_inside = fn->conv_inside > 0 ? fn->conv_inside : 1;
        p->conv_padded = fn->conv_inside > 0 ? fn->conv_padded : 0;
        p->runs = fn->runs;
        p->weight = 1;
    }
    return true;
}

/* the model's figures for a point (counts clamped into uint64_t) at the
   op's own efficiency op_eff */
static void oc_calib_node_at(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *p,
                             double op_eff, struct oc_node_perf *np) {
    const struct oc_gpu *dev = p->gpu ? p->gpu : gpu; /* the CPU at the thread count the point ran on */
    /* a CPU's convolution: the share of its FLOPs' time it takes, as a prediction has it */
    double flops = dev->cpu ? p->flops * oc_perf_conv_share_of(p->conv_inside, p->conv_padded, o->pad_path)
                            : p->flops;
    oc_perf_node_terms(dev, o, p->unit, p->conv, p->outputs, op_eff, dev->peak[p->unit], flops, p->bytes,
                       p->expand_bytes, &p->recurrence, p->runs, np);
}

static void oc_calib_node(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *p,
                          struct oc_node_perf *np) {
    oc_calib_node_at(gpu, o, p, oc_perf_op_efficiency(o, p->op), np);
}

double oc_calib_predict(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *p) {
    struct oc_node_perf np;
    oc_calib_node(gpu, o, p, &np);
    return np.time;
}

/* the cache level a point streams from (oc_gpu_level_for), -1 for memory */
static int32_t oc_calib_level(const struct oc_gpu *gpu, const struct oc_calib_point *p) {
    double bytes = p->bytes < 1.8e19 ? p->bytes : 1.8e19;
    return oc_gpu_level_for(p->gpu ? p->gpu : gpu, (uint64_t)bytes);
}

static bool oc_calib_compute_bound(const struct oc_gpu *gpu, const struct oc_perf_opts *o,
                                   const struct oc_calib_point *p) {
    struct oc_node_perf np;
    oc_calib_node(gpu, o, p, &np);
    return np.bound == OC_BOUND_COMPUTE && np.t_compute > 0;
}

/* The coordinates: a compute factor per unit present, the memory factor
 * (all in log space), the launch time (linear). */
struct oc_calib_coord {
    double *value;
    double lo, hi;
    bool log_space;
};

static void oc_calib_set(const struct oc_calib_coord *c, double x) { *c->value = c->log_space ? exp(x) : x; }

/* What a fit minimises: the loss of the factors in o over its data. */
struct oc_calib_objective {
    double (*loss)(const struct oc_perf_opts *o, const void *data);
    const void *data;
};

double oc_calib_record_weight(int32_t quiet_runs, double load_ratio) {
    double sure = quiet_runs >= OC_CALIB_SURE_RUNS ? 1 : quiet_runs > 0 ? (double)quiet_runs / OC_CALIB_SURE_RUNS : 0;
    double x = load_ratio > 1 ? log(load_ratio) / log(OC_CALIB_LOAD_HALF) : 0;
    return sure / (1 + x * x);
}

/* a point's record weight (0: not set, 1) */
static double oc_calib_weight(const struct oc_calib_point *p) { return p->weight > 0 ? p->weight : 1; }

/* Points the model cannot tell apart (the same op, unit, counts, window,
   runs and device: a transformer's repeated blocks) get the same
   prediction p, so the fit walks each such group once. Its squared log
   errors sum to count x (p - plain mean)^2 + spread_plain, and weighted by
   the measured times to their sum x (p - weighted mean)^2 +
   spread_weighted: the same losses, the spreads constant. The sum is the
   group's point's measured_s. */
struct oc_calib_group {
    double count;                /* its points                               */
    double weight;               /* their records' weights, summed (the
                                    plain loss's count; oc_calib_point)      */
    double wtime;                /* their times x those weights, summed      */
    double log_wmean, log_mean;  /* their logs' time-weighted and plain means */
    double spread_w, spread;     /* the squares about those means, summed
                                    (the time-weighted one weighted)         */
};

/* per-node points of one device, time-weighted (oc_calib_fit), as groups:
   pts[i] stands for group grp[i]; slot[i]: its op in o->op_eff (the fit's
   own table), -1 for none */
struct oc_calib_points_data {
    const struct oc_gpu *gpu;
    const struct oc_calib_point *pts;
    const struct oc_calib_group *grp;
    int32_t n;
    double total;        /* every point's measured time x its weight        */
    double n_points;     /* the points the groups hold, weighted            */
    double spread_w, spread; /* the groups' spreads, summed                */
    const int32_t *slot;
};

/* group i's ln(predicted), its op's factor read through its slot */
static double oc_calib_group_log(const struct oc_calib_points_data *d, const struct oc_perf_opts *o, int32_t i) {
    struct oc_node_perf np;
    int32_t k = d->slot ? d->slot[i] : -1;
    oc_calib_node_at(d->gpu, o, &d->pts[i], k >= 0 ? o->op_eff->at[k].factor : 1, &np);
    return log(np.time > 0 ? np.time : 1e-12);
}

/* group i's share of the time-weighted loss, less its spread */
static double oc_calib_group_loss(const struct oc_calib_points_data *d, const struct oc_perf_opts *o, int32_t i) {
    double e = oc_calib_group_log(d, o, i) - d->grp[i].log_wmean;
    return d->grp[i].wtime / d->total * e * e;
}

static double oc_calib_points_loss(const struct oc_perf_opts *o, const void *data) {
    const struct oc_calib_points_data *d = data;
    double loss = d->spread_w / d->total;
    for (int32_t i = 0; i < d->n; i++)
        loss += oc_calib_group_loss(d, o, i);
    return loss;
}

/* the same points, each node weighing the same (a CPU's fixed cost per node) */
static double oc_calib_points_loss_per_node(const struct oc_perf_opts *o, const void *data) {
    const struct oc_calib_points_data *d = data;
    double loss = d->spread;
    for (int32_t i = 0; i < d->n; i++) {
        double e = oc_calib_group_log(d, o, i) - d->grp[i].log_mean;
        loss += d->grp[i].weight * e * e;
    }
    return d->n_points > 0 ? loss / d->n_points : 0;
}

/* Whether two points are the same to the model: every field but the time. */
static bool oc_calib_same_point(const struct oc_calib_point *a, const struct oc_calib_point *b) {
    return a->unit == b->unit && a->flops == b->flops && a->bytes == b->bytes && a->conv == b->conv &&
           a->outputs == b->outputs && a->kernels == b->kernels && a->gpu == b->gpu &&
           a->expand_bytes == b->expand_bytes && a->recurrence.steps == b->recurrence.steps &&
           a->recurrence.weight_bytes == b->recurrence.weight_bytes &&
           a->recurrence.step_flops == b->recurrence.step_flops && a->recurrence.batch == b->recurrence.batch &&
           a->conv_inside == b->conv_inside && a->conv_padded == b->conv_padded && a->runs == b->runs &&
           (a->op == b->op || (a->op && b->op && strcmp(a->op, b->op) == 0));
}

static uint32_t oc_calib_point_hash(const struct oc_calib_point *p) {
    const double f[] = {p->flops, p->bytes, p->outputs, p->expand_bytes, p->conv_inside, p->runs};
    uint32_t h = oc_fnv1a(2166136261u, (const char *)f, sizeof f);
    h = oc_fnv1a(h, (const char *)&p->unit, sizeof p->unit);
    h = oc_fnv1a(h, (const char *)&p->gpu, sizeof p->gpu);
    return p->op ? oc_fnv1a(h, p->op, strlen(p->op)) : h;
}

/* pts[0..n) as groups of points the model cannot tell apart, in the order
   of their first points: *out_pts (the first point of each, its time the
   group's sum) and *out_grp, *n_out groups. False when out of memory. */
static bool oc_calib_group_points(const struct oc_calib_point *pts, int32_t n, struct oc_calib_point **out_pts,
                                  struct oc_calib_group **out_grp, int32_t *n_out) {
    uint32_t cap = 16;
    while (cap < 2u * (uint32_t)n)
        cap *= 2;
    int32_t *table = malloc(cap * sizeof *table), *of = malloc(((size_t)n + 1) * sizeof *of), ng = 0;
    struct oc_calib_point *gp = malloc(((size_t)n + 1) * sizeof *gp);
    struct oc_calib_group *grp = calloc((size_t)n + 1, sizeof *grp);
    if (!table || !of || !gp || !grp) {
        free(table);
        free(of);
        free(gp);
        free(grp);
        return false;
    }
    for (uint32_t i = 0; i < cap; i++)
        table[i] = -1;
    for (int32_t i = 0; i < n; i++) { /* the groups; their plain and weighted sums of logs */
        uint32_t at = oc_calib_point_hash(&pts[i]) & (cap - 1);
        while (table[at] >= 0 && !oc_calib_same_point(&gp[table[at]], &pts[i]))
            at = (at + 1) & (cap - 1);
        if (table[at] < 0) {
            table[at] = ng;
            gp[ng] = pts[i];
            gp[ng++].measured_s = 0;
        }
        int32_t g = of[i] = table[at];
        double l = log(pts[i].measured_s), w = oc_calib_weight(&pts[i]);
        gp[g].measured_s += pts[i].measured_s;
        grp[g].count += 1;
        grp[g].weight += w;
        grp[g].wtime += w * pts[i].measured_s;
        grp[g].log_wmean += w * pts[i].measured_s * l;
        grp[g].log_mean += w * l;
    }
    for (int32_t g = 0; g < ng; g++) {
        grp[g].log_wmean /= grp[g].wtime;
        grp[g].log_mean /= grp[g].weight;
    }
    for (int32_t i = 0; i < n; i++) { /* the spreads about the means */
        struct oc_calib_group *q = &grp[of[i]];
        double l = log(pts[i].measured_s), ew = l - q->log_wmean, e = l - q->log_mean, w = oc_calib_weight(&pts[i]);
        q->spread_w += w * pts[i].measured_s * ew * ew;
        q->spread += w * e * e;
    }
    free(table);
    free(of);
    *out_pts = gp;
    *out_grp = grp;
    *n_out = ng;
    return true;
}

/* one op's own factor: its points' share of the time-weighted loss, plus
   the shrinkage OC_CALIB_OP_SHRINK x |ln factor| toward 1 */
struct oc_calib_op_data {
    const struct oc_calib_points_data *points;
    const int32_t *idx; /* its points */
    int32_t n, slot;
};

static double oc_calib_op_loss(const struct oc_perf_opts *o, const void *data) {
    const struct oc_calib_op_data *d = data;
    double loss = 0, lf = log(o->op_eff->at[d->slot].factor);
    for (int32_t j = 0; j < d->n; j++)
        loss += (d->points->grp[d->idx[j]].spread_w / d->points->total) +
                oc_calib_group_loss(d->points, o, d->idx[j]);
    return loss + OC_CALIB_OP_SHRINK * fabs(lf);
}

/* One coordinate: a grid scan over its whole range, then golden section
 * around the best grid point. Keeps the current value unless a candidate is
 * strictly better. */
static void oc_calib_descend(const struct oc_calib_objective *f, struct oc_perf_opts *o,
                             const struct oc_calib_coord *c, double *best) {
    double x0 = c->log_space ? log(*c->value) : *c->value, bx = x0;
    enum { GRID = 48 };
    double step = (c->hi - c->lo) / GRID;
    for (int k = 0; k <= GRID; k++) {
        double x = c->lo + step * k;
        oc_calib_set(c, x);
        double l = f->loss(o, f->data);
        if (l < *best) {
            *best = l;
            bx = x;
        }
    }
    double a = bx - step > c->lo ? bx - step : c->lo, b = bx + step < c->hi ? bx + step : c->hi;
    const double g = 0.6180339887498949;
    for (int it = 0; it < 40; it++) {
        double x1 = b - g * (b - a), x2 = a + g * (b - a);
        oc_calib_set(c, x1);
        double l1 = f->loss(o, f->data);
        oc_calib_set(c, x2);
        double l2 = f->loss(o, f->data);
        if (l1 < *best) {
            *best = l1;
            bx = x1;
        }
        if (l2 < *best) {
            *best = l2;
            bx = x2;
        }
        if (l1 < l2)
            b = x2;
        else
            a = x1;
    }
    oc_calib_set(c, bx);
}

/* The ops' factors and the memory factors trade one for the other: for the
   memory-bound nodes of ops with a factor, every op slower and every memory
   level faster predicts the same (the other nodes and the shrinkage decide
   where along it the fit stops). One coordinate
   moves along that valley, which coordinate descent cannot: the memory
   factors times e^shift, every op's factor over it, at the loss plus every
   op's shrinkage (the shrinkage decides where along the valley). */
struct oc_calib_shift_data {
    const struct oc_calib_points_data *points;
    const struct oc_perf_opts *o;
    double shift;
};

/* a factor x held in the fit's range */
static double oc_calib_eff_range(double x) { return fmin(fmax(x, OC_CALIB_EFF_MIN), OC_CALIB_EFF_MAX); }

/* A CPU's cache levels stream no slower than the level below them: each
   fitted level's factor raised, where needed, until its bandwidth times
   its factor is at least the next larger level's (memory's below the
   last), on one thread's rates and on all the threads' both. Only the
   levels where some point is memory-bound take part (memory where some
   point is, at o): another's factor no point sees, not a fit. A level
   that came out slower had taken in the cost per node of the small nodes
   it holds (the wide check's first cache level fitted 0.015 of its 640
   GB/s, slower than memory), which the fixed costs, refitted after this,
   are for. */
static void oc_calib_levels_in_order(const struct oc_gpu *gpu, struct oc_perf_opts *o, const struct oc_calib_point *pts,
                                     int32_t n) {
    const struct oc_cpu_scaling *s = &gpu->scaling;
    bool bound[5] = {false}; /* memory-bound points at each level; [4]: at memory */
    for (int32_t i = 0; i < n; i++)
        if (!oc_calib_compute_bound(gpu, o, &pts[i])) {
            int32_t k = oc_calib_level(gpu, &pts[i]);
            bound[k >= 0 && k < 4 ? k : 4] = true;
        }
    double below_all = bound[4] ? gpu->mem_bw * o->eff_memory : 0;
    double below_one = bound[4] ? (s->mem_one > 0 ? s->mem_one : gpu->mem_bw) * o->eff_memory : 0;
    for (int32_t k = (gpu->n_caches < 4 ? gpu->n_caches : 4) - 1; k >= 0; k--) {
        double bw_all = gpu->cache_bw[k], bw_one = s->cache_bw_one[k] > 0 ? s->cache_bw_one[k] : bw_all;
        if (!(bw_all > 0) || !(o->eff_memory_cache[k] > 0) || !bound[k])
            continue;
        double need = fmax(below_all / bw_all, below_one / bw_one);
        if (o->eff_memory_cache[k] < need)
            o->eff_memory_cache[k] = oc_calib_eff_range(need);
        below_all = bw_all * o->eff_memory_cache[k];
        below_one = bw_one * o->eff_memory_cache[k];
    }
}

/* The levels in order (oc_calib_levels_in_order), then the fixed costs
   fixed[0 .. n_fixed) fitted with each node weighing the same. */
static void oc_calib_fixed_in_order(const struct oc_gpu *gpu, struct oc_perf_opts *o,
                                    const struct oc_calib_points_data *d, const struct oc_calib_coord *fixed,
                                    int n_fixed) {
    oc_calib_levels_in_order(gpu, o, d->pts, d->n);
    const struct oc_calib_objective per_node = {oc_calib_points_loss_per_node, d};
    double pn = oc_calib_points_loss_per_node(o, d);
    for (int k = 0; k < 3 * n_fixed; k++)
        oc_calib_descend(&per_node, o, &fixed[k % n_fixed], &pn);
}

static void oc_calib_shift(struct oc_perf_opts *o, struct oc_op_efficiencies *ops, double shift) {
    double f = exp(shift);
    o->eff_memory = oc_calib_eff_range(o->eff_memory * f);
    for (int k = 0; k < 4; k++)
        if (o->eff_memory_cache[k] > 0)
            o->eff_memory_cache[k] = oc_calib_eff_range(o->eff_memory_cache[k] * f);
    for (int32_t k = 0; k < ops->n; k++)
        ops->at[k].factor = oc_calib_eff_range(ops->at[k].factor / f);
    o->op_eff = ops;
}

static double oc_calib_shift_loss(const struct oc_perf_opts *unused, const void *data) {
    (void)unused;
    const struct oc_calib_shift_data *d = data;
    struct oc_perf_opts o = *d->o;
    struct oc_op_efficiencies ops = *d->o->op_eff;
    oc_calib_shift(&o, &ops, d->shift);
    double loss = oc_calib_points_loss(&o, d->points);
    for (int32_t k = 0; k < ops.n; k++)
        loss += OC_CALIB_OP_SHRINK * fabs(log(ops.at[k].factor));
    return loss;
}

/* Coordinate descent over c[0..nc) from the current values (loss `best`),
   up to 30 sweeps; the loss reached. */
static double oc_calib_sweeps(const struct oc_calib_objective *f, struct oc_perf_opts *o,
                              const struct oc_calib_coord *c, int nc, double best) {
    for (int sweep = 0; sweep < 30; sweep++) {
        double before = best;
        for (int k = 0; k < nc; k++)
            oc_calib_descend(f, o, &c[k], &best);
        if (before - best <= 1e-12 * (before > 1 ? before : 1))
            break;
    }
    return best;
}

/* A CPU fit's ops with a factor of their own: every op type of the points
   that is not a contraction, the OC_OP_EFF_MAX that take the most time,
   most first (ties by name). slot[i]: point i's index in ops, -1 for none;
   share[k], count[k]: op k's share of the measured time and its points.
   Each factor starts at base's for the op (1 where it has none). */
static void oc_calib_op_table(const struct oc_perf_opts *base, const struct oc_calib_point *pts,
                              const struct oc_calib_group *grp, int32_t n, double total,
                              struct oc_op_efficiencies *ops, int32_t *slot, double *share, int32_t *count) {
    struct oc_calib_op_seen {
        const char *op;
        double time;
        int32_t points;
    } seen[4 * OC_OP_EFF_MAX];
    int32_t n_seen = 0;
    for (int32_t i = 0; i < n; i++) {
        slot[i] = -1;
        const char *op = pts[i].op;
        if (!op || !op[0] || strlen(op) >= OC_OP_NAME_MAX || oc_perf_conv_op(op) || oc_perf_product_op(op))
            continue;
        int32_t k = 0;
        while (k < n_seen && strcmp(seen[k].op, op) != 0)
            k++;
        if (k == n_seen) {
            if (n_seen == (int32_t)(sizeof seen / sizeof seen[0]))
                continue; /* more op types than any graph has: the rest keep none */
            seen[n_seen++] = (struct oc_calib_op_seen){op, 0, 0};
        }
        seen[k].time += pts[i].measured_s;
        seen[k].points += (int32_t)grp[i].count;
    }
    for (int32_t a = 1; a < n_seen; a++) /* most time first, ties by name: the same input, the same table */
        for (int32_t b = a; b > 0 && (seen[b].time > seen[b - 1].time ||
                                      (seen[b].time == seen[b - 1].time && strcmp(seen[b].op, seen[b - 1].op) < 0));
             b--) {
            struct oc_calib_op_seen t = seen[b];
            seen[b] = seen[b - 1];
            seen[b - 1] = t;
        }
    memset(ops, 0, sizeof *ops);
    ops->n = n_seen < OC_OP_EFF_MAX ? n_seen : OC_OP_EFF_MAX;
    for (int32_t k = 0; k < ops->n; k++) {
        snprintf(ops->at[k].op, sizeof ops->at[k].op, "%s", seen[k].op);
        ops->at[k].factor = oc_perf_op_efficiency(base, seen[k].op);
        share[k] = seen[k].time / total;
        count[k] = seen[k].points;
    }
    for (int32_t i = 0; i < n; i++)
        for (int32_t k = 0; pts[i].op && k < ops->n && slot[i] < 0; k++)
            if (strcmp(pts[i].op, ops->at[k].op) == 0)
                slot[i] = k;
}

enum oc_status oc_calib_fit(const struct oc_gpu *gpu, const struct oc_perf_opts *base, const struct oc_calib_point *pts,
                            int32_t n, struct oc_calib_fit *out) {
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return OC_ERR_USAGE;
    double total = 0;
    for (int32_t i = 0; i < n; i++) {
        total += pts[i].measured_s;
        if (pts[i].conv)
            out->n_conv_unit[pts[i].unit]++;
        else
            out->n_unit[pts[i].unit]++;
    }
    out->n_points = n;
    struct oc_perf_opts o = *base;
    for (int u = 0; u < OC_UNIT_COUNT; u++) {
        o.eff_conv_unit[u] = oc_perf_class_efficiency(base, (enum oc_unit)u, true);
        o.eff_unit[u] = oc_perf_unit_efficiency(base, (enum oc_unit)u);
    }
    /* a CPU's cache levels: a memory factor of its own for each level some
       point streams from */
    int32_t n_level[4] = {0};
    for (int32_t i = 0; i < n; i++) {
        int32_t k = oc_calib_level(gpu, &pts[i]);
        if (k >= 0)
            n_level[k]++;
    }
    for (int k = 0; k < 4; k++)
        o.eff_memory_cache[k] = n_level[k] ? oc_perf_memory_efficiency(base, k) : 0;
    /* the fit walks the groups of points the model cannot tell apart: all
       = the points, pts = the groups' first points from here on */
    const struct oc_calib_point *all = pts;
    const int32_t n_all = n;
    struct oc_calib_point *gp = NULL;
    struct oc_calib_group *grp = NULL;
    if (!oc_calib_group_points(all, n_all, &gp, &grp, &n))
        return OC_ERR_NOMEM;
    pts = gp;
    /* a CPU's ops' own factors (none on a GPU: its kernels are the
       libraries', and the classes hold them) */
    struct oc_op_efficiencies ops = {.n = 0};
    int32_t *slot = NULL, *idx = NULL;
    if (gpu->cpu) {
        slot = malloc((size_t)n * sizeof *slot);
        idx = malloc((size_t)n * sizeof *idx);
        if (!slot || !idx) {
            free(slot);
            free(idx);
            free(gp);
            free(grp);
            return OC_ERR_NOMEM;
        }
        oc_calib_op_table(base, pts, grp, n, total, &ops, slot, out->op_share, out->n_op);
    }
    o.op_eff = &ops;
    double spread_w = 0, spread = 0, wtime = 0, weight = 0;
    for (int32_t g = 0; g < n; g++) {
        spread_w += grp[g].spread_w;
        spread += grp[g].spread;
    }
    for (int32_t i = 0; i < n_all; i++) { /* in the points' order, as total */
        wtime += oc_calib_weight(&all[i]) * all[i].measured_s;
        weight += oc_calib_weight(&all[i]);
    }
    const struct oc_calib_points_data data = {gpu, pts, grp, n, wtime, weight, spread_w, spread, slot};
    out->loss_before = oc_calib_points_loss(&o, &data); /* the model the fit starts from */
    /* every coordinate: a factor per unit and class, memory and 4 levels, the
       thread pool's 3 shared terms, launch and pool, the 2 parallelism terms */
    struct oc_calib_coord c[2 * OC_UNIT_COUNT + 1 + 4 + 3 + 1 + 2 + 2], par[2];
    int nc = 0, np = 0;
    /* the parallelism term of a class, where its contractions of known size
       span at least 10x (else it and the efficiency trade one for the other):
       from 1 (no penalty) up */
    double lo[2] = {0, 0}, hi[2] = {0, 0};
    for (int32_t i = 0; i < n; i++) {
        int k = pts[i].conv ? 1 : 0;
        double x = pts[i].outputs;
        if (x > 0) {
            lo[k] = lo[k] > 0 && lo[k] < x ? lo[k] : x;
            hi[k] = hi[k] > x ? hi[k] : x;
        }
    }
    for (int k = 0; k < 2; k++)
        if (lo[k] > 0 && hi[k] >= 10 * lo[k]) {
            if (!(o.parallel_outputs[k] >= 1))
                o.parallel_outputs[k] = 1;
            par[np++] = (struct oc_calib_coord){&o.parallel_outputs[k], 0, log(OC_CALIB_PARALLEL_MAX), true};
        }
    for (int u = 0; u < OC_UNIT_COUNT; u++) {
        if (out->n_unit[u])
            c[nc++] = (struct oc_calib_coord){&o.eff_unit[u], log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX), true};
        if (out->n_conv_unit[u])
            c[nc++] = (struct oc_calib_coord){&o.eff_conv_unit[u], log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX), true};
    }
    c[nc++] = (struct oc_calib_coord){&o.eff_memory, log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX), true};
    for (int k = 0; k < 4; k++)
        if (n_level[k])
            c[nc++] = (struct oc_calib_coord){&o.eff_memory_cache[k], log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX), true};
    /* a CPU's thread pool, where points ran on more than one thread of a CPU
       with one-thread figures: the least work the runtime splits over its
       threads (from 0.1 us: every node split), what a split adds (in the
       fixed costs' range) and the share of the threads' speedup a split
       node gets; time-weighted, with the shared factors */
    bool one = false, more = false;
    for (int32_t i = 0; gpu->cpu && i < n; i++) {
        const struct oc_gpu *dev = pts[i].gpu ? pts[i].gpu : gpu;
        one |= dev->threads == 1;
        more |= dev->threads > 1 && dev->scaling.mem_one > 0;
    }
    if (more) {
        if (!(o.task_s >= OC_CALIB_TASK_MIN))
            o.task_s = OC_CALIB_TASK_MIN;
        if (!(o.split_share > 0))
            o.split_share = 1;
        c[nc++] = (struct oc_calib_coord){&o.task_s, log(OC_CALIB_TASK_MIN), log(OC_CALIB_TASK_MAX), true};
        c[nc++] = (struct oc_calib_coord){&o.split_s, 0, OC_CALIB_LAUNCH_MAX, false};
        c[nc++] = (struct oc_calib_coord){&o.split_share, 0.01, 1, false};
    } else {
        o.task_s = o.split_s = o.split_share = 0;
    }
    /* a CPU's convolutions with output positions at the padding: how much
       slower those run their in-bounds taps (MLAS's padded path), from 1 */
    bool at_padding = false;
    for (int32_t i = 0; gpu->cpu && i < n; i++)
        at_padding |= pts[i].conv && pts[i].conv_padded > 0;
    if (at_padding) {
        if (!(o.pad_path >= 1))
            o.pad_path = 1;
        c[nc++] = (struct oc_calib_coord){&o.pad_path, 1, OC_CALIB_PAD_PATH_MAX, false};
    } else {
        o.pad_path = 0;
    }
    /* the shared factors are c[0 .. fixed); the fixed costs follow: launch,
       a CPU's pool cost where points ran both on one thread and on more
       (else the two are one number), and its cost per run */
    const int fixed = nc;
    c[nc++] = (struct oc_calib_coord){&o.launch_s, 0, OC_CALIB_LAUNCH_MAX, false};
    if (one && more)
        c[nc++] = (struct oc_calib_coord){&o.pool_s, 0, OC_CALIB_LAUNCH_MAX, false};
    else
        o.pool_s = 0;
    /* and a CPU's cost per run of a kernel's inner loop (a broadcast's short
       spans, a softmax's rows), where some point has more than one: a fixed
       cost too, which the small nodes of many runs decide, from 0 */
    bool runs = false;
    for (int32_t i = 0; gpu->cpu && i < n; i++)
        runs |= pts[i].runs > 1;
    if (runs)
        c[nc++] = (struct oc_calib_coord){&o.run_s, 0, OC_CALIB_RUN_MAX, false};
    else
        o.run_s = 0;
    const int n_fixed = nc - fixed;
    /* two fits from the same start, without the parallelism terms and with
       them; theirs is kept only when it cuts the loss by more than 10 %
       (else it fits noise: on ocsim, which has no such effect, a free term
       shifts the other factors) */
    struct oc_perf_opts start = o;
    const struct oc_calib_objective obj = {oc_calib_points_loss, &data};
    double best = oc_calib_sweeps(&obj, &o, c, nc, out->loss_before);
    if (np) {
        struct oc_perf_opts plain = o;
        o = start;
        for (int k = 0; k < np; k++)
            c[nc++] = par[k];
        double with = oc_calib_sweeps(&obj, &o, c, nc, out->loss_before);
        if (with < 0.9 * best)
            best = with;
        else
            o = plain;
    }
    /* A CPU's fixed cost per node: the time-weighted fit sets it where the
       mid-sized nodes need it, and a model of microsecond nodes (a decode
       step, a small encoder: ONNX Runtime runs such a node in 1-4 us) then
       takes it on every node. It is fitted again with each node weighing
       the same, which the small nodes decide (a large node's time barely
       moves with it), and the factors after it, time-weighted, with it
       held. */
    if (gpu->cpu) {
        /* the ops' own factors, each on its own points with the shrinkage,
           then along the valley they share with the memory factors, then
           the fixed cost and the class and memory factors with them held:
           three rounds after the first, which has no op factor */
        int32_t at = 0, first[OC_OP_EFF_MAX + 1];
        for (int32_t k = 0; k < ops.n; k++) { /* idx: the points by op, op k's from first[k] */
            first[k] = at;
            for (int32_t i = 0; i < n; i++)
                if (slot[i] == k)
                    idx[at++] = i;
        }
        first[ops.n] = at;
        for (int round = 0; round < (ops.n ? 4 : 1); round++) {
            for (int32_t k = 0; round > 0 && k < ops.n; k++) {
                const struct oc_calib_op_data od = {&data, idx + first[k], first[k + 1] - first[k], k};
                const struct oc_calib_objective op_obj = {oc_calib_op_loss, &od};
                const struct oc_calib_coord f = {&ops.at[k].factor, log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX),
                                                 true};
                double l = oc_calib_op_loss(&o, &od);
                oc_calib_descend(&op_obj, &o, &f, &l);
            }
            if (round > 0) {
                struct oc_calib_shift_data sd = {&data, &o, 0};
                const struct oc_calib_objective shift_obj = {oc_calib_shift_loss, &sd};
                const struct oc_calib_coord shift = {&sd.shift, -3, 3, false};
                double l = oc_calib_shift_loss(&o, &sd);
                oc_calib_descend(&shift_obj, &o, &shift, &l);
                oc_calib_shift(&o, &ops, sd.shift);
            }
            oc_calib_fixed_in_order(gpu, &o, &data, c + fixed, n_fixed);
            best = oc_calib_sweeps(&obj, &o, c, fixed, oc_calib_points_loss(&o, &data));
        }
        /* the sweeps after the fixed costs may undo the levels' order: once
           more in order, and the fixed costs again for it */
        oc_calib_fixed_in_order(gpu, &o, &data, c + fixed, n_fixed);
        best = oc_calib_points_loss(&o, &data);
    }
    free(slot);
    free(idx);
    free(gp);
    free(grp);
    pts = all; /* the report counts points */
    n = n_all;
    out->loss_after = best;
    /* a factor is reported only where some point depends on it */
    bool unit_seen[OC_UNIT_COUNT] = {false}, conv_seen[OC_UNIT_COUNT] = {false};
    int32_t memory_bound = 0, level_bound[4] = {0}; /* memory-bound at DRAM; at each cache level */
    for (int32_t i = 0; i < n; i++) {
        if (oc_calib_compute_bound(gpu, &o, &pts[i])) {
            (pts[i].conv ? conv_seen : unit_seen)[pts[i].unit] = true;
            (pts[i].conv ? out->n_conv_unit_compute : out->n_unit_compute)[pts[i].unit]++;
        } else {
            int32_t k = oc_calib_level(gpu, &pts[i]);
            if (k >= 0)
                level_bound[k]++;
            else
                memory_bound++;
        }
    }
    for (int k = 0; k < 4; k++) {
        out->eff.memory_cache[k] = level_bound[k] ? o.eff_memory_cache[k] : 0;
        out->n_level_memory[k] = level_bound[k];
    }
    out->n_dram_memory = memory_bound;
    for (int u = 0; u < OC_UNIT_COUNT; u++) {
        out->eff.unit[u] = unit_seen[u] ? o.eff_unit[u] : 0;
        out->eff.conv_unit[u] = conv_seen[u] ? o.eff_conv_unit[u] : 0;
    }
    /* a parallelism term is reported where it slows some point down */
    for (int k = 0; k < 2; k++) {
        bool bites = false;
        for (int32_t i = 0; i < n && !bites; i++)
            bites = (pts[i].conv ? 1 : 0) == k && pts[i].outputs > 0 && pts[i].outputs < o.parallel_outputs[k];
        out->eff.parallel_outputs[k] = bites ? o.parallel_outputs[k] : 0;
    }
    out->eff.memory = memory_bound ? o.eff_memory : 0;
    /* an op's factor is reported where it moved from 1 (by 0.5 % or more) */
    for (int32_t k = 0; k < ops.n; k++)
        if (fabs(log(ops.at[k].factor)) >= 0.005) {
            int32_t j = out->eff.ops.n++;
            out->eff.ops.at[j] = ops.at[k];
            out->op_share[j] = out->op_share[k];
            out->n_op[j] = out->n_op[k];
        }
    out->eff.launch_s = o.launch_s;
    out->eff.pool_s = o.pool_s;
    out->eff.task_s = more && o.task_s > OC_CALIB_TASK_MIN * 1.001 ? o.task_s : 0; /* at the floor: every node split */
    out->eff.split_s = more ? o.split_s : 0;
    out->eff.split_share = more ? o.split_share : 0;
    out->eff.pad_path = at_padding ? o.pad_path : 0;
    out->eff.run_s = runs ? o.run_s : 0;
    out->eff.has_launch = true;
    return OC_OK;
}

/* the light nodes' mean squared ln error at o.light_s */
struct oc_calib_light_data {
    const double *seconds;
    const struct oc_gpu *const *devs;
    int32_t n;
};

static double oc_calib_light_loss(const struct oc_perf_opts *o, const void *data) {
    const struct oc_calib_light_data *d = data;
    double loss = 0;
    for (int32_t i = 0; i < d->n; i++) {
        double e = log(oc_perf_light_s(d->devs[i], o)) - log(d->seconds[i]);
        loss += e * e;
    }
    return loss / d->n;
}

double oc_calib_fit_light(const struct oc_perf_opts *fitted, const double *seconds,
                          const struct oc_gpu *const *devs, int32_t n) {
    if (n < OC_CALIB_LIGHT_NODES)
        return 0;
    struct oc_perf_opts o = *fitted;
    const struct oc_calib_light_data d = {seconds, devs, n};
    const struct oc_calib_objective obj = {oc_calib_light_loss, &d};
    const struct oc_calib_coord c = {&o.light_s, OC_CALIB_LIGHT_MIN, OC_CALIB_LAUNCH_MAX, false};
    o.light_s = fitted->launch_s > OC_CALIB_LIGHT_MIN ? fitted->launch_s : OC_CALIB_LIGHT_MIN;
    double loss = oc_calib_light_loss(&o, &d);
    oc_calib_descend(&obj, &o, &c, &loss);
    return o.light_s;
}

void oc_calib_error(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *pts, int32_t n,
                    struct oc_calib_error *out) {
    memset(out, 0, sizeof *out);
    out->n_points = n;
    for (int32_t i = 0; i < n; i++) {
        out->measured_s += pts[i].measured_s;
        out->predicted_s += oc_calib_predict(gpu, o, &pts[i]);
    }
    double *err = malloc((size_t)(n > 0 ? n : 1) * sizeof *err);
    if (err) {
        for (int32_t i = 0; i < n; i++) {
            if (pts[i].measured_s < 0.01 * out->measured_s)
                continue;
            double pred = oc_calib_predict(gpu, o, &pts[i]);
            err[out->n_major++] = fabs(log(pred > 0 ? pred : 1e-12) - log(pts[i].measured_s));
        }
        qsort(err, (size_t)out->n_major, sizeof *err, oc_cmp_double);
        out->median_abs_log = oc_quantile(err, out->n_major, 0.5);
        out->p90_abs_log = oc_quantile(err, out->n_major, 0.9);
        free(err);
    } else {
        out->n_major = -1; /* out of memory: no per-node figures */
    }
    out->total_error = out->measured_s > 0 ? out->predicted_s / out->measured_s - 1 : 0;
}

static int oc_calib_cmp_op(const void *a, const void *b) {
    const struct oc_calib_op_error *x = a, *y = b;
    double kx = x->time_share * x->median_abs_log, ky = y->time_share * y->median_abs_log;
    return kx > ky ? -1 : kx < ky ? 1 : strcmp(x->op, y->op);
}

bool oc_calib_by_op(const struct oc_gpu *gpu, const struct oc_perf_opts *o, const struct oc_calib_point *pts, int32_t n,
                    struct oc_calib_op_error **out, int32_t *n_out) {
    *out = NULL;
    *n_out = 0;
    struct oc_calib_op_error *e = calloc((size_t)(n > 0 ? n : 1), sizeof *e);
    double *err = malloc((size_t)(n > 0 ? n : 1) * sizeof *err);
    double *pred = malloc((size_t)(n > 0 ? n : 1) * sizeof *pred);
    if (!e || !err || !pred) {
        free(e);
        free(err);
        free(pred);
        return false;
    }
    double total = 0;
    for (int32_t i = 0; i < n; i++) {
        total += pts[i].measured_s;
        pred[i] = oc_calib_predict(gpu, o, &pts[i]);
    }
    int32_t ne = 0;
    /* op types are few (tens): grouped by linear search */
    for (int32_t i = 0; i < n; i++) {
        const char *op = pts[i].op ? pts[i].op : "?";
        int32_t k = 0;
        while (k < ne && strcmp(e[k].op, op) != 0)
            k++;
        if (k < ne)
            continue;
        struct oc_calib_op_error *g = &e[ne++];
        g->op = op;
        double meas = 0, pr = 0, kern = 0;
        int32_t m = 0;
        for (int32_t j = i; j < n; j++) {
            if (strcmp(pts[j].op ? pts[j].op : "?", op) != 0)
                continue;
            meas += pts[j].measured_s;
            pr += pred[j];
            kern += pts[j].kernels;
            err[m++] = fabs(log(pred[j] > 0 ? pred[j] : 1e-12) - log(pts[j].measured_s));
        }
        qsort(err, (size_t)m, sizeof *err, oc_cmp_double);
        g->n_points = m;
        g->time_share = total > 0 ? meas / total : 0;
        g->kernels_per_node = kern / m;
        g->median_abs_log = oc_quantile(err, m, 0.5);
        g->total_error = meas > 0 ? pr / meas - 1 : 0;
    }
    qsort(e, (size_t)ne, sizeof *e, oc_calib_cmp_op);
    free(err);
    free(pred);
    *out = e;
    *n_out = ne;
    return true;
}

/* measure results' node sums, end to end and nodes run (oc_calib_fit_gap) */
struct oc_calib_gap_data {
    const double *nodes_s, *e2e_s;
    const int32_t *ran;
    int32_t n;
};

static double oc_calib_gap_loss(const struct oc_perf_opts *o, const void *data) {
    const struct oc_calib_gap_data *d = data;
    double loss = 0;
    for (int32_t k = 0; k < d->n; k++) {
        if (d->ran[k] <= 0 || !(d->nodes_s[k] > 0) || !(d->e2e_s[k] > 0))
            continue;
        double e = log(d->nodes_s[k] + d->ran[k] * o->gap_s) - log(d->e2e_s[k]);
        loss += e * e;
    }
    return loss;
}

double oc_calib_fit_gap(const double *nodes_s, const double *e2e_s, const int32_t *ran, int32_t n) {
    bool any = false;
    for (int32_t k = 0; k < n; k++)
        any |= ran[k] > 0 && nodes_s[k] > 0 && e2e_s[k] > 0;
    if (!any)
        return 0;
    const struct oc_calib_gap_data data = {nodes_s, e2e_s, ran, n};
    const struct oc_calib_objective obj = {oc_calib_gap_loss, &data};
    struct oc_perf_opts o = {0};
    const struct oc_calib_coord c = {&o.gap_s, 0, OC_CALIB_GAP_MAX, false};
    double best = oc_calib_gap_loss(&o, &data);
    oc_calib_descend(&obj, &o, &c, &best); /* a grid over [0, max], then golden section */
    return o.gap_s;
}

/* ---- end-to-end measurements ------------------------------------------------------------ */

double oc_calib_row_predict(const struct oc_perf_opts *o, const struct oc_calib_row *r) {
    struct oc_perf_opts ro = *o;
    ro.math = r->math;
    ro.dtype = r->dtype;
    ro.folded_bn = r->training && r->folded_bn;
    struct oc_perf perf;
    if (oc_perf_estimate(r->an, r->gpu, &ro, &perf) != OC_OK)
        return 0;
    double t = perf.time;
    if (r->training) {
        struct oc_training tr;
        struct oc_data_parallel dp;
        oc_training_estimate(r->an, r->optimizer, 0, ro.folded_bn, &tr);
        if (tr.out_of_memory || oc_data_parallel(&perf, r->an, &tr, 1, &dp) != OC_OK) { /* as an estimate that failed */
            oc_perf_free(&perf);
            return 0;
        }
        t = dp.step1;
    }
    oc_perf_free(&perf);
    return t;
}

struct oc_calib_rows_data {
    const struct oc_calib_row *rows;
    int32_t n;
};

static double oc_calib_rows_loss(const struct oc_perf_opts *o, const void *data) {
    const struct oc_calib_rows_data *d = data;
    double loss = 0;
    int32_t m = 0;
    for (int32_t i = 0; i < d->n; i++) {
        if (!d->rows[i].fit)
            continue;
        double p = oc_calib_row_predict(o, &d->rows[i]);
        double e = log(p > 0 ? p : 1e-12) - log(d->rows[i].measured_s);
        loss += e * e;
        m++;
    }
    return m ? loss / m : 0;
}

enum oc_status oc_calib_fit_rows(const struct oc_perf_opts *base, const struct oc_calib_row *rows, int32_t n,
                                 struct oc_calib_rows_fit *out) {
    memset(out, 0, sizeof *out);
    /* the units the fitted rows' nodes compute on, as the model picks them */
    bool used[OC_UNIT_COUNT] = {false};
    for (int32_t i = 0; i < n; i++) {
        if (!rows[i].fit) {
            out->n_check++;
            continue;
        }
        out->n_fit++;
        struct oc_perf_opts ro = *base;
        ro.math = rows[i].math;
        ro.dtype = rows[i].dtype;
        struct oc_perf perf;
        if (oc_perf_estimate(rows[i].an, rows[i].gpu, &ro, &perf) != OC_OK)
            return OC_ERR_NOMEM;
        for (int32_t k = 0; k < perf.n_nodes; k++)
            if (perf.nodes[k].known && perf.nodes[k].bound == OC_BOUND_COMPUTE)
                used[perf.nodes[k].unit] = true;
        oc_perf_free(&perf);
    }
    if (!out->n_fit)
        return OC_ERR_USAGE;
    struct oc_perf_opts o = *base;
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        o.eff_unit[u] = used[u] ? oc_perf_unit_efficiency(base, (enum oc_unit)u) : 0;
    memset(o.eff_conv_unit, 0, sizeof o.eff_conv_unit);
    const struct oc_calib_rows_data data = {rows, n};
    const struct oc_calib_objective obj = {oc_calib_rows_loss, &data};
    out->loss_before = oc_calib_rows_loss(&o, &data);
    struct oc_calib_coord c[OC_UNIT_COUNT + 3];
    int nc = 0;
    /* the host time first: the small rows, where the device waits for the
       host, fix it; else the launch time mimics it there and the descent
       stays in that valley (launch adds to every kernel at large batches too,
       the host time does not) */
    c[nc++] = (struct oc_calib_coord){&o.host_s, 0, OC_CALIB_HOST_MAX, false};
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        if (used[u])
            c[nc++] = (struct oc_calib_coord){&o.eff_unit[u], log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX), true};
    c[nc++] = (struct oc_calib_coord){&o.eff_memory, log(OC_CALIB_EFF_MIN), log(OC_CALIB_EFF_MAX), true};
    c[nc++] = (struct oc_calib_coord){&o.launch_s, 0, OC_CALIB_LAUNCH_MAX, false};
    out->loss_after = oc_calib_sweeps(&obj, &o, c, nc, out->loss_before);
    for (int u = 0; u < OC_UNIT_COUNT; u++)
        out->eff.unit[u] = used[u] ? o.eff_unit[u] : 0;
    out->eff.memory = o.eff_memory;
    out->eff.launch_s = o.launch_s;
    out->eff.has_launch = true;
    out->eff.host_s = o.host_s;
    return OC_OK;
}
