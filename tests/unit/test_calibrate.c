/*
 * test_calibrate.c — the efficiency fit (replay/calibrate.c): factors
 * recovered from times made by the roofline formula written out here, a
 * factor left unset when nothing depends on it, the error figures worked
 * out by hand, the factors taken into the options (and not over the
 * user's), and the calibrated spec file read back by --gpu-spec's reader.
 */
#include "testutil.h"

#include "../../replay/calibrate.h"
#include "../../reports/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define REL(a, b, tol) assert_true(fabs((a) / (b)-1) <= (tol))

/* 10 TFLOP/s FP32, 100 TFLOP/s TF32, 1 TB/s */
static struct oc_gpu test_gpu(void) {
    struct oc_gpu g = {
        .id = "t", .name = "Test GPU", .mem_bw = 1e12, .mem_bytes = 16ull << 30, .link_bw = 16e9, .link = "PCIe"};
    g.peak[OC_UNIT_FP32] = 10e12;
    g.peak[OC_UNIT_TF32_TC] = 100e12;
    return g;
}

/* the roofline with factors, as docs/MODEL.md writes it */
static double roofline(double flops, double peak, double e, double moved, double m, double launch) {
    double tc = flops / (peak * e), tm = moved / (1e12 * m);
    return (tc > tm ? tc : tm) + launch;
}

static void fit_recovers_factors(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    /* true factors: FP32 0.7, TF32-TC 0.4, memory 0.85, 3 us per kernel */
    struct oc_calib_point p[12];
    int n = 0;
    for (int k = 1; k <= 4; k++) { /* compute-bound FP32: 1-4 GFLOP over 1 MB */
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, k * 1e9, 1e6, false, 0, 0, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(k * 1e9, 10e12, 0.7, 1e6, 0.85, 3e-6);
        n++;
    }
    for (int k = 1; k <= 4; k++) { /* compute-bound TF32: 5-20 GFLOP over 2 MB */
        p[n] = (struct oc_calib_point){OC_UNIT_TF32_TC, k * 5e9, 2e6, false, 0, 0, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(k * 5e9, 100e12, 0.4, 2e6, 0.85, 3e-6);
        n++;
    }
    for (int k = 1; k <= 4; k++) { /* memory-bound FP32: 1 MFLOP over 10-40 MB */
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, 1e6, k * 1e7, false, 0, 0, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(1e6, 10e12, 0.7, k * 1e7, 0.85, 3e-6);
        n++;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    assert_int_equal(fit.n_points, 12);
    assert_int_equal(fit.n_unit[OC_UNIT_FP32], 8);
    assert_int_equal(fit.n_unit[OC_UNIT_TF32_TC], 4);
    assert_int_equal(fit.n_unit_compute[OC_UNIT_FP32], 4);
    REL(fit.eff.unit[OC_UNIT_FP32], 0.7, 1e-3);
    REL(fit.eff.unit[OC_UNIT_TF32_TC], 0.4, 1e-3);
    REL(fit.eff.memory, 0.85, 1e-3);
    assert_true(fit.eff.has_launch);
    REL(fit.eff.launch_s, 3e-6, 1e-2);
    assert_true(fit.loss_after < 1e-6 && fit.loss_before > 0.01);
    assert_true(fit.eff.unit[OC_UNIT_FP16_TC] == 0);
}

/* Points the model cannot tell apart, measured apart: four memory-bound
 * nodes (10-40 MB), each twice, at r = 1.2 times and 1 / r times its
 * roofline time q at memory factor 0.85. The time-weighted loss puts a
 * pair's prediction at the time-weighted mean of its logs, ln q + delta with
 * delta = ln r (r - 1/r) / (r + 1/r), the same shift for every pair, so the
 * memory factor is 0.85 e^-delta (0.8225; the plain mean would give 0.85)
 * and what remains of the loss is the pairs' spread about that mean,
 * (sum over points of m (ln m - ln q - delta)^2) / (sum of m). */
static void fit_repeated_points(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    const double r = 1.2, delta = log(r) * (r - 1 / r) / (r + 1 / r);
    struct oc_calib_point p[8];
    double total = 0, spread = 0;
    for (int k = 0; k < 8; k++) { /* the second of each pair four points later */
        double moved = (k % 4 + 1) * 1e7, q = roofline(1e6, 10e12, 0.7, moved, 0.85, 0);
        p[k] = (struct oc_calib_point){OC_UNIT_FP32, 1e6, moved, false, 0, 0, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[k].measured_s = k < 4 ? q * r : q / r;
        double e = log(p[k].measured_s) - log(q) - delta;
        total += p[k].measured_s;
        spread += p[k].measured_s * e * e;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, 8, &fit), OC_OK);
    assert_int_equal(fit.n_points, 8);
    assert_int_equal(fit.n_unit[OC_UNIT_FP32], 8);
    REL(fit.eff.memory, 0.85 * exp(-delta), 1e-3);
    assert_true(fit.eff.launch_s < 1e-8);
    REL(fit.loss_after, spread / total, 1e-3);
}

/* A CPU's fixed cost per node: 20 nodes of a few flops and bytes take 3 us
 * each (ONNX Runtime's small nodes, 60 us in all), 8 large compute-bound ones
 * (0.07 ms to 0.23 s) their roofline time at 0.7 plus 2 ms that no per-node
 * term explains. Weighted by time, the small nodes weigh nothing and the
 * large ones push the fixed cost to tens of microseconds (50 before the
 * per-node refit); each node weighing the same, the small ones set it near
 * their 3 us, and FP32 takes up what the large nodes need. */
static void cpu_fixed_cost(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    g.cpu = true;
    struct oc_calib_point p[28];
    int n = 0;
    for (int k = 0; k < 20; k++, n++) {
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, 1e3, 1e3, false, 0, 0, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = 3e-6;
    }
    for (int k = 0; k < 8; k++, n++) { /* 5e8 to 1.6e12 FLOPs: 0.07 ms to 0.23 s */
        double flops = 5e8 * pow(10, k / 2.0);
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, flops, 1e6, false, 0, 0, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(flops, 10e12, 0.7, 1e6, 1, 0) + 2e-3;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    if (!(fit.eff.launch_s > 2.5e-6 && fit.eff.launch_s < 4e-6))
        fail_msg("CPU fixed cost %.2f us, want about 3", fit.eff.launch_s * 1e6);
    if (!(fit.eff.unit[OC_UNIT_FP32] > 0.4 && fit.eff.unit[OC_UNIT_FP32] < 0.7))
        fail_msg("FP32 %.3f, want under 0.7 (the 2 ms taken up)", fit.eff.unit[OC_UNIT_FP32]);
}

/* A CPU's convolutions with output positions at the padding: their times
   made with the in-bounds taps' FLOPs, those positions 1.4x slower (time
   = flops x inside x (1 + 0.4 x padded) / (peak x 0.5)); the fit takes
   each point's window and recovers pad_path = 1.4 and the factor 0.5.
   Without padded points it fits no pad_path. */
static void fit_pad_path(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    g.cpu = true;
    struct oc_calib_point p[16];
    int n = 0;
    for (int k = 0; k < 12; k++, n++) {
        double inside = 1 - 0.05 * (k % 4), padded = 0.25 * (k % 4), flops = 1e9 * (1 + k);
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, flops, 1e6, true, 0, 0, "Conv", 1, NULL, 0, {0, 0, 0, 0},
                                       inside, padded, 0, 1};
        p[n].measured_s = roofline(flops * inside * (1 + 0.4 * padded), 10e12, 0.5, 1e6, 1, 3e-6);
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    if (!(fabs(fit.eff.pad_path - 1.4) < 0.02))
        fail_msg("pad_path %.3f, want 1.4", fit.eff.pad_path);
    REL(fit.eff.conv_unit[OC_UNIT_FP32], 0.5, 2e-2);
    for (int k = 0; k < n; k++)
        p[k].conv_padded = 0, p[k].conv_inside = 1, p[k].measured_s = roofline(p[k].flops, 10e12, 0.5, 1e6, 1, 3e-6);
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    assert_true(fit.eff.pad_path == 0);
}

/* A CPU's memory-bound kernels of many runs (a broadcast's short spans):
   their times made as 1 to 3 MB at the memory factor 0.5, 3 us fixed, and
   8 ns per run after the first (time = bytes / (1e12 x 0.5) + 3e-6 +
   (runs - 1) x 8e-9, runs from 1 to 65536); the fit takes each point's runs
   and recovers run_s = 8 ns and the factor. With every point of one run it
   fits none. */
static void fit_run_cost(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    g.cpu = true;
    struct oc_calib_point p[12];
    int n = 0;
    for (int k = 0; k < 12; k++, n++) {
        double runs = k < 4 ? 1 : pow(4, k - 3), moved = 1e6 * (1 + k % 3);
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, 0, moved, false, 0, 0, NULL, 1, NULL, 0, {0, 0, 0, 0}, 1, 0,
                                       runs, 1};
        p[n].measured_s = roofline(0, 10e12, 1, moved, 0.5, 3e-6) + (runs - 1) * 8e-9;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    if (!(fabs(fit.eff.run_s / 8e-9 - 1) < 0.02))
        fail_msg("run_s %.3g, want 8e-9", fit.eff.run_s);
    if (!(fabs(fit.eff.memory / 0.5 - 1) < 0.02))
        fail_msg("memory %.4f, launch %.3g", fit.eff.memory, fit.eff.launch_s);
    for (int k = 0; k < n; k++)
        p[k].runs = 1, p[k].measured_s = roofline(0, 10e12, 1, p[k].bytes, 0.5, 3e-6);
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    assert_true(fit.eff.run_s == 0);
}

/* A CPU's cache levels stream no slower than the levels below them: nodes
   whose bytes fit the first level (64 KiB at 800 GB/s) timed at 40 GB/s
   (a factor of 0.05, the cost per node of small nodes taken into their
   bytes), the second's (4 MiB at 200 GB/s) at 100 GB/s (0.5), memory's (50
   GB/s) at 40 (0.8); 2 us a node. The fit raises the first level's factor
   until it streams at least as fast as the second: 0.125 or more. */
static void fit_levels_in_order(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    g.cpu = true;
    g.threads = 1;
    g.mem_bw = 50e9;
    g.n_caches = 2;
    g.cache_bytes[0] = 64 << 10;
    g.cache_bytes[1] = 4 << 20;
    g.cache_bw[0] = 800e9;
    g.cache_bw[1] = 200e9;
    const double moved[9] = {16e3, 32e3, 48e3, 1e6, 2e6, 3e6, 10e6, 40e6, 100e6}, bw[3] = {40e9, 100e9, 40e9};
    struct oc_calib_point p[9];
    for (int k = 0; k < 9; k++) {
        p[k] = (struct oc_calib_point){OC_UNIT_FP32, 0, moved[k], false, 0, 0, NULL, 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 1, 1};
        p[k].measured_s = 2e-6 + moved[k] / bw[k / 3];
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, 9, &fit), OC_OK);
    double l1 = fit.eff.memory_cache[0] * 800e9, l2 = fit.eff.memory_cache[1] * 200e9, mem = fit.eff.memory * 50e9;
    if (!(l1 >= 0.999 * l2 && l2 >= 0.999 * mem && fit.eff.memory_cache[0] >= 0.1249))
        fail_msg("levels out of order: %.3g, %.3g, %.3g GB/s (first level's factor %.4f)", l1 / 1e9, l2 / 1e9,
                 mem / 1e9, fit.eff.memory_cache[0]);
}

/* convolutions and products on one unit at different fractions of its peak
   (as cuDNN's and cuBLAS's strict-FP32 kernels on an H200): each class gets
   its own factor, and the prediction uses the node's */
static void fit_conv_class(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    struct oc_calib_point p[12];
    int n = 0;
    for (int k = 1; k <= 4; k++) { /* MatMul at 0.6 */
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, k * 1e9, 1e6, false, 0, 0, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(k * 1e9, 10e12, 0.6, 1e6, 0.8, 2e-6);
        n++;
    }
    for (int k = 1; k <= 4; k++) { /* Conv at 0.15 */
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, k * 2e9, 1e6, true, 0, 0, "Conv", 2, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(k * 2e9, 10e12, 0.15, 1e6, 0.8, 2e-6);
        n++;
    }
    for (int k = 1; k <= 4; k++) { /* Add, memory-bound */
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, 1e6, k * 1e7, false, 0, 0, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(1e6, 10e12, 0.6, k * 1e7, 0.8, 2e-6);
        n++;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    assert_int_equal(fit.n_unit[OC_UNIT_FP32], 8);
    assert_int_equal(fit.n_conv_unit[OC_UNIT_FP32], 4);
    assert_int_equal(fit.n_conv_unit_compute[OC_UNIT_FP32], 4);
    REL(fit.eff.unit[OC_UNIT_FP32], 0.6, 1e-3);
    REL(fit.eff.conv_unit[OC_UNIT_FP32], 0.15, 1e-3);
    REL(fit.eff.memory, 0.8, 1e-3);
    assert_true(fit.eff.conv_unit[OC_UNIT_TF32_TC] == 0);
    /* the fitted device predicts each class with its own factor */
    struct oc_gpu cal = g;
    cal.measured = fit.eff;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    assert_true(oc_perf_use_measured(&cal, 0, &o));
    REL(oc_perf_class_efficiency(&o, OC_UNIT_FP32, true), 0.15, 1e-3);
    REL(oc_perf_class_efficiency(&o, OC_UNIT_FP32, false), 0.6, 1e-3);
    /* a unit without a convolution factor: a convolution takes the unit's */
    o.eff_unit[OC_UNIT_TF32_TC] = 0.45;
    assert_true(oc_perf_class_efficiency(&o, OC_UNIT_TF32_TC, true) == 0.45);
    REL(oc_calib_predict(&cal, &o, &p[4]), p[4].measured_s, 1e-3);
    REL(oc_calib_predict(&cal, &o, &p[0]), p[0].measured_s, 1e-3);
    assert_true(oc_perf_conv_op("Conv") && oc_perf_conv_op("QLinearConv") && !oc_perf_conv_op("MatMul") &&
                !oc_perf_conv_op(NULL));
}

/* convolutions too small to fill the device (batch-1 maps): below S output
   elements a convolution runs at outputs / S of its efficiency; the fit
   recovers S with the factor, and reports no term for a class it never
   slows */
static void fit_parallel_outputs(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    struct oc_calib_point p[12];
    const double outs[6] = {1e4, 3e4, 6e4, 2e5, 1e6, 4e6}, S = 1.5e5;
    int n = 0;
    for (int k = 0; k < 6; k++) { /* Conv at 0.3, S = 150,000 outputs */
        double f = (k + 1) * 1e9, slow = S > outs[k] ? S / outs[k] : 1;
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, f, 1e6, true, outs[k], 0, "Conv", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = 2e-6 + f / (10e12 * 0.3) * slow;
        n++;
    }
    for (int k = 0; k < 3; k++) { /* large MatMuls (1, 10, 100 M outputs) at 0.6: no penalty */
        double f = (k + 1) * 4e9;
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, f, 1e6, false, k == 0 ? 1e6 : k == 1 ? 1e7 : 1e8, 0, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = 2e-6 + f / (10e12 * 0.6);
        n++;
    }
    for (int k = 0; k < 3; k++) { /* memory-bound Adds at 0.8 */
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, 1e6, (k + 1) * 1e7, false, 0, 0, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(1e6, 10e12, 0.6, (k + 1) * 1e7, 0.8, 2e-6);
        n++;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    REL(fit.eff.conv_unit[OC_UNIT_FP32], 0.3, 1e-2);
    REL(fit.eff.parallel_outputs[1], S, 1e-2);
    REL(fit.eff.unit[OC_UNIT_FP32], 0.6, 1e-2);
    assert_true(fit.eff.parallel_outputs[0] == 0); /* the MatMuls are never slowed */
    assert_true(fit.loss_after < 1e-5);
    /* the calibrated model: 1 GFLOP over 10,000 outputs, 15x slower than at full size */
    struct oc_gpu cal = g;
    cal.measured = fit.eff;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    oc_perf_use_measured(&cal, 0, &o);
    struct oc_node_perf np;
    oc_perf_node_class(&cal, &o, OC_UNIT_FP32, true, 1e4, 1, 10e12, 1000000000, 1000, &np);
    REL(np.t_compute, 1e9 / (10e12 * 0.3) * 15, 2e-2);
    oc_perf_node_class(&cal, &o, OC_UNIT_FP32, true, 0, 1, 10e12, 1000000000, 1000, &np); /* size unknown: no term */
    REL(np.t_compute, 1e9 / (10e12 * 0.3), 2e-2);
}

static void fit_unobservable(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    /* every point memory-bound: no compute factor can be read from them */
    struct oc_calib_point p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = (struct oc_calib_point){OC_UNIT_FP32, 1e3, (k + 1) * 1e8, false, 0, 0, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[k].measured_s = (k + 1) * 1e8 / (1e12 * 0.5) + 2e-6;
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, 3, &fit), OC_OK);
    assert_true(fit.eff.unit[OC_UNIT_FP32] == 0);
    assert_int_equal(fit.n_unit_compute[OC_UNIT_FP32], 0);
    REL(fit.eff.memory, 0.5, 1e-3);
    assert_int_equal(oc_calib_fit(&g, &base, p, 0, &fit), OC_ERR_USAGE);
}

static void error_figures(void **state) {
    (void)state;
    struct oc_gpu g = {.id = "e", .name = "E", .mem_bw = 1e12};
    g.peak[OC_UNIT_FP32] = 1e12;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    o.eff_compute = 1;
    o.eff_memory = 1;
    o.launch_s = 0;
    /* predicted 1 ms each (1 GFLOP at 1 TFLOP/s, bytes negligible); measured
       1, 2, 0.5 and 1.25 ms, and a node of 0.002 ms predicted 0.001 ms, below
       1 % of the 4.752 ms measured. |ln|: 0, ln 2, ln 2, ln 1.25 =
       0, 0.22314, 0.69315, 0.69315 sorted: median (0.22314 + 0.69315) / 2 =
       0.45815, p90 at rank 0.9 x 3 = 2.7: 0.69315. Total 4.001 / 4.752 - 1 */
    struct oc_calib_point p[5] = {{OC_UNIT_FP32, 1e9, 1, false, 0, 1e-3, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1},
                                  {OC_UNIT_FP32, 1e9, 1, true, 0, 2e-3, "Conv", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1},
                                  {OC_UNIT_FP32, 1e9, 1, false, 0, 0.5e-3, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1},
                                  {OC_UNIT_FP32, 1e9, 1, true, 0, 1.25e-3, "Conv", 3, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1},
                                  {OC_UNIT_FP32, 1e6, 1, false, 0, 2e-6, "Add", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1}};
    struct oc_calib_error e;
    oc_calib_error(&g, &o, p, 5, &e);
    assert_int_equal(e.n_points, 5);
    assert_int_equal(e.n_major, 4);
    REL(e.median_abs_log, (log(1.25) + log(2)) / 2, 1e-6);
    REL(e.p90_abs_log, log(2), 1e-6);
    REL(e.measured_s, 4.752e-3, 1e-9);
    REL(e.predicted_s, 4.001e-3, 1e-6);
    REL(e.total_error, 4.001 / 4.752 - 1, 1e-5);
    /* by op type: Conv 3.25 of 4.752 ms, |ln| ln 2 and ln 1.25 (median their
       mean), 2 kernels per node, predicted 2 / 3.25 - 1; MatMul 1.5 ms, |ln|
       0 and ln 2; Add 0.002 ms. Worst first by share x median error:
       Conv 0.684 x 0.458, MatMul 0.316 x 0.347, Add */
    struct oc_calib_op_error *ops;
    int32_t n_ops;
    assert_true(oc_calib_by_op(&g, &o, p, 5, &ops, &n_ops));
    assert_int_equal(n_ops, 3);
    assert_string_equal(ops[0].op, "Conv");
    assert_string_equal(ops[1].op, "MatMul");
    assert_string_equal(ops[2].op, "Add");
    assert_int_equal(ops[0].n_points, 2);
    REL(ops[0].time_share, 3.25 / 4.752, 1e-9);
    REL(ops[0].kernels_per_node, 2, 1e-12);
    REL(ops[0].median_abs_log, (log(2) + log(1.25)) / 2, 1e-6);
    REL(ops[0].total_error, 2 / 3.25 - 1, 1e-6);
    REL(ops[1].median_abs_log, log(2) / 2, 1e-6);
    REL(ops[2].median_abs_log, log(2), 1e-6);
    free(ops);
}

static void measured_into_options(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    g.measured.unit[OC_UNIT_FP32] = 0.8;
    g.measured.memory = 0.9;
    g.measured.launch_s = 1e-6;
    g.measured.has_launch = true;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    assert_true(oc_perf_use_measured(&g, 0, &o));
    assert_true(oc_perf_unit_efficiency(&o, OC_UNIT_FP32) == 0.8);
    assert_true(oc_perf_unit_efficiency(&o, OC_UNIT_TF32_TC) == 0.6); /* not measured: --efficiency's default */
    assert_true(o.eff_memory == 0.9 && o.launch_s == 1e-6);
    /* 1 GFLOP FP32 over 1 MB: 1e9 / (10e12 x 0.8) = 125 us + 1 us */
    struct oc_node_perf np;
    oc_perf_node(&g, &o, OC_UNIT_FP32, 10e12, 1000000000, 1000000, &np);
    REL(np.time, 126e-6, 1e-12);
    /* what the user set stays */
    oc_perf_defaults(&o);
    o.eff_memory = 0.5;
    o.launch_s = 7e-6;
    assert_true(oc_perf_use_measured(&g, OC_PERF_SET_MEMORY | OC_PERF_SET_LAUNCH, &o));
    assert_true(o.eff_memory == 0.5 && o.launch_s == 7e-6 && o.eff_unit[OC_UNIT_FP32] == 0.8);
    oc_perf_defaults(&o);
    assert_false(oc_perf_use_measured(&g, OC_PERF_SET_COMPUTE | OC_PERF_SET_MEMORY | OC_PERF_SET_LAUNCH, &o));
}

static int file_write(void *arg, const char *data, size_t n) { return fwrite(data, 1, n, arg) == n ? 0 : -1; }

/* A CPU's op of its own (ONNX Runtime's LRN: a scalar pow per element, 20x
   slower than its bytes stream) among elementwise nodes at the memory
   factor and products at the FP32 one: the LRN takes a factor of its own,
   1/20, and the memory factor stays the elementwise nodes' 0.5 (one shared
   memory factor would land between them). The prediction divides the LRN's
   roofline time, not its fixed cost, and a product keeps no op factor. */
static void fit_op_efficiency(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    g.cpu = true;
    struct oc_calib_point p[40];
    int n = 0;
    const double launch = 3e-6;
    for (int k = 0; k < 16; k++, n++) { /* 10 MB to 320 MB: 20 us to 0.64 ms at 0.5 of 1 TB/s */
        double moved = 1e7 * pow(2, k / 3.0);
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, moved / 8, moved, false, 0, 0, k % 2 ? "Add" : "Mul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(moved / 8, 10e12, 1, moved, 0.5, launch);
    }
    for (int k = 0; k < 8; k++, n++) { /* 1 MB to 11 MB: 40 us to 0.45 ms, a quarter of the time */
        double moved = 1e6 * pow(2, k / 2.0);
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, moved / 4, moved, false, 0, 0, "LRN", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(moved / 4, 10e12, 1, moved, 0.5 / 20, launch);
    }
    for (int k = 0; k < 8; k++, n++) {
        double flops = 1e9 * pow(2, k);
        p[n] = (struct oc_calib_point){OC_UNIT_FP32, flops, 1e6, false, 0, 0, "MatMul", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
        p[n].measured_s = roofline(flops, 10e12, 0.7, 1e6, 0.5, launch);
    }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    if (!(fabs(fit.eff.memory / 0.5 - 1) < 0.05))
        fail_msg("memory %.3f, want 0.5 (the elementwise nodes')", fit.eff.memory);
    REL(fit.eff.unit[OC_UNIT_FP32], 0.7, 0.05);
    double lrn = 0;
    for (int32_t k = 0; k < fit.eff.ops.n; k++) {
        if (strcmp(fit.eff.ops.at[k].op, "LRN") == 0)
            lrn = fit.eff.ops.at[k].factor;
        else if (fabs(log(fit.eff.ops.at[k].factor)) > 0.05)
            fail_msg("op %s given %.3f, want about 1", fit.eff.ops.at[k].op, fit.eff.ops.at[k].factor);
        assert_string_not_equal(fit.eff.ops.at[k].op, "MatMul"); /* a product has the unit's class factor */
    }
    if (!(fabs(lrn * 20 - 1) < 0.1))
        fail_msg("LRN's own factor %.4f, want 1/20", lrn);
    /* the prediction, by hand: 8 MB at 0.5 x 1 TB/s x 0.05, plus the fixed cost */
    struct oc_gpu cal = g;
    cal.measured = fit.eff;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    assert_true(oc_perf_use_measured(&cal, 0, &o));
    struct oc_calib_point q = {OC_UNIT_FP32, 1e6, 8e6, false, 0, 1, "LRN", 1, NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
    REL(oc_calib_predict(&cal, &o, &q), 8e6 / (1e12 * fit.eff.memory * lrn) + fit.eff.launch_s, 1e-9);
    REL(oc_perf_op_efficiency(&o, "LRN"), lrn, 1e-12);
    REL(oc_perf_op_efficiency(&o, "FusedGemm"), 1, 0); /* a product: none */
    REL(oc_perf_op_efficiency(&o, "Softmax"), 1, 0);   /* none fitted */
    /* an explicit memory factor (--mem-efficiency) keeps the ops' off too */
    struct oc_perf_opts kept;
    oc_perf_defaults(&kept);
    oc_perf_use_measured(&cal, OC_PERF_SET_MEMORY, &kept);
    REL(oc_perf_op_efficiency(&kept, "LRN"), 1, 0);
}

/* A CPU measured at 1 and 2 threads (each record fitted on the CPU at its
   own thread count, oc_gpu_at_threads): 2 threads double the rates, but
   the runtime splits a node only from 30 us of one thread's time, a split
   node gets 90 % of that speedup (1.9x) and costs 10 us more, and every
   node on the thread pool 2 us. Times made by that
   model, written out here; the fit recovers the shared factors, the costs
   and where the split starts, and the prediction at 2 threads follows them
   by hand. */
static double two_threads(double one, double task, double split, double share, double fixed) {
    return (one < task ? one : one / (1 + share) + split) + fixed;
}

static void fit_threads(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu(); /* as 2 threads: 10 TFLOP/s, 1 TB/s; one thread half */
    g.cpu = true;
    g.threads = 2;
    g.scaling.threads = 2;
    g.scaling.peak_one[OC_UNIT_FP32] = 5e12;
    g.scaling.mem_one = 0.5e12;
    struct oc_gpu one;
    char name[64];
    assert_true(oc_gpu_at_threads(&g, 1, &one, name, sizeof name));
    assert_true(one.peak[OC_UNIT_FP32] == 5e12 && one.mem_bw == 0.5e12 && one.threads == 1);
    const double launch = 3e-6, pool = 2e-6, task = 30e-6, split = 10e-6;
    struct oc_calib_point p[48];
    int n = 0;
    for (int t = 1; t <= 2; t++)
        for (int k = 0; k < 12; k++) { /* one thread's time 5 us to 10 ms, products and elementwise nodes */
            double flops = 2e7 * pow(2, k), moved = 2e6 * pow(2, k);
            double tc = flops / (5e12 * 0.8), tm = moved / (0.5e12 * 0.6);
            p[n] = (struct oc_calib_point){OC_UNIT_FP32, flops, 1e3, false, 0, 0, "MatMul", 1, t == 1 ? &one : &g, 0,
                                           {0, 0, 0, 0}, 1, 0, 0, 1};
            p[n++].measured_s = t == 1 ? tc + launch : two_threads(tc, task, split, 0.9, launch + pool);
            p[n] = (struct oc_calib_point){OC_UNIT_FP32, moved / 8, moved, false, 0, 0, "Add", 1, t == 1 ? &one : &g, 0,
                                           {0, 0, 0, 0}, 1, 0, 0, 1};
            p[n++].measured_s = t == 1 ? tm + launch : two_threads(tm, task, split, 0.9, launch + pool);
        }
    struct oc_perf_opts base;
    oc_perf_defaults(&base);
    struct oc_calib_fit fit;
    assert_int_equal(oc_calib_fit(&g, &base, p, n, &fit), OC_OK);
    if (!(fabs(fit.eff.unit[OC_UNIT_FP32] / 0.8 - 1) < 0.05 && fabs(fit.eff.memory / 0.6 - 1) < 0.05))
        fail_msg("FP32 %.3f, memory %.3f: want 0.8 and 0.6, the same at both thread counts",
                 fit.eff.unit[OC_UNIT_FP32], fit.eff.memory);
    if (!(fabs(fit.eff.launch_s / launch - 1) < 0.15 && fabs(fit.eff.pool_s / pool - 1) < 0.25))
        fail_msg("launch %.2f us, pool %.2f us: want 3 and 2", fit.eff.launch_s * 1e6, fit.eff.pool_s * 1e6);
    /* the split starts between the nodes of 26.7 us (elementwise, not split)
       and 40 us (a product, split): any point there fits the times */
    if (!(fit.eff.task_s > 26.6e-6 && fit.eff.task_s <= 40e-6 && fabs(fit.eff.split_s / split - 1) < 0.2))
        fail_msg("split from %.1f us, costing %.2f us: want between 26.7 and 40, and 10", fit.eff.task_s * 1e6,
                 fit.eff.split_s * 1e6);
    REL(fit.eff.split_share, 0.9, 0.02);
    /* the prediction at 2 threads, by hand with the fitted figures: a product
       of 60 us on one thread is split */
    struct oc_gpu cal = g;
    cal.measured = fit.eff;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    assert_true(oc_perf_use_measured(&cal, 0, &o));
    struct oc_calib_point q = {OC_UNIT_FP32, 60e-6 * 5e12 * fit.eff.unit[OC_UNIT_FP32], 1e3, false, 0, 1, "MatMul", 1,
                               NULL, 0, {0, 0, 0, 0}, 1, 0, 0, 1};
    REL(oc_calib_predict(&cal, &o, &q),
        two_threads(60e-6, fit.eff.task_s, fit.eff.split_s, fit.eff.split_share, fit.eff.launch_s + fit.eff.pool_s),
        1e-6);
    q.flops /= 10; /* 6 us: not split, one thread's rate */
    REL(oc_calib_predict(&cal, &o, &q), 6e-6 + fit.eff.launch_s + fit.eff.pool_s, 1e-6);
    q.flops *= 10;
    /* on one thread: no pool cost, no pieces */
    q.gpu = &one;
    REL(oc_calib_predict(&cal, &o, &q), 60e-6 + fit.eff.launch_s, 1e-6); /* FLOPs a whole number */
    /* a recurrent node's 100 steps (oc_perf_node_terms, by hand): each
       reads 1 MB of weights at one thread's 0.5 TB/s (2 us) and computes 4
       MFLOP at one thread's 5 TFLOP/s and the FP32 factor; its other FLOPs,
       the 60 us product, as before; on one thread */
    double eff = fit.eff.unit[OC_UNIT_FP32], mac = 4e6 / (5e12 * eff);
    q.recurrence = (struct oc_perf_recurrence){100, 1e6, 4e6, 4};
    q.flops += 100 * 4e6;
    REL(oc_calib_predict(&cal, &o, &q), 60e-6 + fit.eff.launch_s + 100 * (2e-6 + mac), 1e-6); /* 4 rows: the sum */
    q.recurrence.batch = 1;
    REL(oc_calib_predict(&cal, &o, &q), 60e-6 + fit.eff.launch_s + 100 * (2e-6 > mac ? 2e-6 : mac), 1e-6);
    /* on 2 threads the 60 us product splits as before; the steps of 4 rows
       over 2 threads, each its rows' (the threads' speedup at the share);
       at batch 1, one thread's */
    q.gpu = &g;
    q.recurrence.batch = 4;
    double two = two_threads(60e-6, fit.eff.task_s, fit.eff.split_s, fit.eff.split_share,
                             fit.eff.launch_s + fit.eff.pool_s);
    REL(oc_calib_predict(&cal, &o, &q), two + 100 * (2e-6 + mac) / (1 + fit.eff.split_share), 1e-6);
    q.recurrence.batch = 1;
    REL(oc_calib_predict(&cal, &o, &q), two + 100 * (2e-6 > mac ? 2e-6 : mac), 1e-6);
    /* fitted on one thread count only, the pool cost is not separable from the launch, nor the piece seen */
    struct oc_calib_fit single;
    assert_int_equal(oc_calib_fit(&g, &base, p, 24, &single), OC_OK);
    assert_true(single.eff.pool_s == 0 && single.eff.task_s == 0 && single.eff.split_s == 0 &&
                single.eff.split_share == 0);
}

static void spec_round_trip(void **state) {
    (void)state;
    struct oc_gpu g = test_gpu();
    struct oc_calib_fit fit = {.n_points = 12};
    fit.eff.unit[OC_UNIT_FP32] = 0.71234;
    fit.eff.unit[OC_UNIT_TF32_TC] = 1.5; /* above 1: Winograd, L2 */
    fit.eff.memory = 0.93;
    fit.eff.launch_s = 2.5e-6;
    fit.eff.gap_s = 4.5e-6;
    fit.eff.pool_s = 1.5e-6;
    fit.eff.task_s = 40e-6;
    fit.eff.split_s = 12e-6;
    fit.eff.split_share = 0.85;
    fit.eff.pad_path = 1.37;
    fit.eff.run_s = 9.84e-9; /* written to 1e-5 us: 9.84 ns, not 0.01 us */
    fit.eff.has_launch = true;
    fit.eff.ops.n = 2;
    fit.eff.ops.at[0] = (struct oc_op_efficiency){"LRN", 0.031234};
    fit.eff.ops.at[1] = (struct oc_op_efficiency){"BiasGelu", 1.7};
    struct oc_calib_file_report fr = {.path = "fit.json", .fit = true};
    struct oc_perf_opts before;
    oc_perf_defaults(&before);
    struct oc_calib_report r = {
        .measured_device = "NVIDIA Test", .base = &g, .before = &before, .fit = &fit, .files = &fr, .n_files = 1};
    char path[] = "/tmp/oc_calib_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    struct oc_report_spec spec = {.version = 1, .format = OC_FORMAT_JSON, .write = file_write, .write_arg = f};
    struct oc_diag d = {0};
    assert_int_equal(oc_report_gpu_spec(&g, &r, &spec, &d), OC_OK);
    fclose(f);
    struct oc_gpu back;
    char names[512], err[256];
    assert_true(oc_gpu_spec_load(path, &back, names, sizeof names, err, sizeof err));
    assert_string_equal(back.name, "Test GPU");
    assert_true(back.peak[OC_UNIT_FP32] == 10e12 && back.peak[OC_UNIT_TF32_TC] == 100e12 && back.mem_bw == 1e12);
    REL(back.measured.unit[OC_UNIT_FP32], 0.7123, 1e-9); /* four decimals */
    REL(back.measured.unit[OC_UNIT_TF32_TC], 1.5, 1e-12);
    REL(back.measured.memory, 0.93, 1e-12);
    assert_true(back.measured.has_launch);
    REL(back.measured.launch_s, 2.5e-6, 1e-9);
    REL(back.measured.gap_s, 4.5e-6, 1e-9);
    REL(back.measured.pool_s, 1.5e-6, 1e-9);
    REL(back.measured.task_s, 40e-6, 1e-9);
    REL(back.measured.split_s, 12e-6, 1e-9);
    REL(back.measured.split_share, 0.85, 1e-12);
    REL(back.measured.pad_path, 1.37, 1e-12);
    REL(back.measured.run_s, 9.84e-9, 1e-9);
    assert_int_equal(back.measured.ops.n, 2);
    for (int k = 0; k < 2; k++) { /* in either order */
        const struct oc_op_efficiency *e = &back.measured.ops.at[k];
        if (strcmp(e->op, "LRN") == 0)
            REL(e->factor, 0.0312, 1e-9); /* four decimals */
        else if (strcmp(e->op, "BiasGelu") == 0)
            REL(e->factor, 1.7, 1e-12);
        else
            fail_msg("op '%s' read back", e->op);
    }
    assert_true(back.measured.unit[OC_UNIT_FP16_TC] == 0);
    unlink(path);
    /* bad factors are refused, naming the key */
    static const struct {
        const char *json, *msg;
    } bad[] = {
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":{\"fp33\":0.5}}",
         "bad key 'efficiency.fp33'"},
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":{\"fp32\":0}}",
         "bad key 'efficiency.fp32' (a factor from 0.01 to 10 expected)"},
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":{\"memory\":11}}",
         "bad key 'efficiency.memory' (a factor from 0.01 to 10 expected)"},
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":{\"launch_us\":-1}}",
         "bad key 'efficiency.launch_us' (microseconds >= 0 expected)"},
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":0.5}",
         "bad key 'efficiency' (an object of factors expected)"},
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":{\"ops\":{\"LRN\":0}}}",
         "bad key 'efficiency.ops'"},
        {"{\"name\":\"x\",\"fp32\":1,\"memory_gib\":1,\"bandwidth_gbs\":1,\"efficiency\":{\"ops\":[0.5]}}",
         "bad key 'efficiency.ops'"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char p2[] = "/tmp/oc_calib_XXXXXX";
        int fd2 = mkstemp(p2);
        assert_true(fd2 >= 0);
        assert_true(write(fd2, bad[k].json, strlen(bad[k].json)) == (ssize_t)strlen(bad[k].json));
        close(fd2);
        assert_false(oc_gpu_spec_load(p2, &back, names, sizeof names, err, sizeof err));
        assert_non_null(strstr(err, bad[k].msg));
        unlink(p2);
    }
}

/* The gap between nodes (oc_calib_fit_gap), by hand: a record of 100
 * kernels whose nodes sum to 1 ms in 1.5 ms end to end has 5 us between
 * each; a second record with the same gap (0.3 ms of nodes, 0.8 ms end to
 * end, 100 kernels) leaves it at 5 us, and a record whose kernels are 0 is
 * not used. Two records that disagree: 100 kernels, 1 ms in 1.2 ms (2 us)
 * and 10 kernels, 1 ms in 1.1 ms (10 us): the log loss (ln(1 + 0.1 g) -
 * ln 1.2)^2 + (ln(1 + 0.01 g) - ln 1.1)^2 (g in us) has its minimum where its
 * derivative 0.1 (ln(1 + 0.1 g) - ln 1.2) / (1 + 0.1 g) + 0.01 (ln(1 + 0.01 g)
 * - ln 1.1) / (1 + 0.01 g) is 0, between the two: the first record, whose
 * end to end moves ten times as much with g, nearly sets it. */
static void gap_fit(void **state) {
    (void)state;
    double nodes[] = {1e-3, 0.3e-3, 2e-3}, e2e[] = {1.5e-3, 0.8e-3, 9e-3};
    int32_t kernels[] = {100, 100, 0};
    assert_true(fabs(oc_calib_fit_gap(nodes, e2e, kernels, 1) - 5e-6) < 1e-10);
    assert_true(fabs(oc_calib_fit_gap(nodes, e2e, kernels, 3) - 5e-6) < 1e-10);
    int32_t none[] = {0, 0, 0};
    assert_true(oc_calib_fit_gap(nodes, e2e, none, 3) == 0);
    double n2[] = {1e-3, 1e-3}, e2[] = {1.2e-3, 1.1e-3};
    int32_t k2[] = {100, 10};
    double g = oc_calib_fit_gap(n2, e2, k2, 2) * 1e6; /* us */
    double d = 0.1 * (log(1 + 0.1 * g) - log(1.2)) / (1 + 0.1 * g) + 0.01 * (log(1 + 0.01 * g) - log(1.1)) / (1 + 0.01 * g);
    if (!(g > 2 && g < 10 && fabs(d) < 1e-6))
        fail_msg("two records: gap %.6f us, derivative %.3g", g, d);
    assert_true(g < 3); /* nearer the first record's 2 us */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_recovers_factors), cmocka_unit_test(fit_repeated_points), cmocka_unit_test(fit_conv_class), cmocka_unit_test(fit_pad_path), cmocka_unit_test(fit_run_cost), cmocka_unit_test(fit_levels_in_order), cmocka_unit_test(fit_parallel_outputs), cmocka_unit_test(fit_unobservable), cmocka_unit_test(error_figures),
        cmocka_unit_test(measured_into_options), cmocka_unit_test(spec_round_trip), cmocka_unit_test(gap_fit),
        cmocka_unit_test(cpu_fixed_cost), cmocka_unit_test(fit_op_efficiency), cmocka_unit_test(fit_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
