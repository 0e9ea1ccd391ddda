/*
 * test_gpu.c — the GPU table, unit selection, the per-node roofline and the
 * ring all-reduce (views/perf/). Every expectation is worked out by hand
 * from the formulas in perf.h with the datasheet figures written here as
 * literals; none is obtained by calling the code under test.
 */
#define TU_NO_FIXTURE
#include "testutil.h"

#include "dtype.h"
#include "perf/parallel.h"
#include "perf/perf.h"

#include <math.h>

/* |got - want| <= rel x |want| (absolute 1e-300 when want is 0). */
#define TU_REL 1e-9
static void tu_near(double got, double want, const char *what) {
    double tol = fabs(want) * TU_REL;
    if (tol < 1e-300)
        tol = 1e-300;
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}
#define NEAR(got, want) tu_near((got), (want), #got)

static const struct oc_gpu *gpu(const char *name) {
    const struct oc_gpu *g = oc_gpu_find(name);
    if (!g)
        fail_msg("no GPU %s", name);
    return g;
}

/* ---- the table and name lookup ---- */

static void find_names(void **state) {
    (void)state;
    const struct oc_gpu *k80 = oc_gpu_find("k80");
    assert_non_null(k80);
    assert_string_equal(k80->id, "k80");
    /* case, an alias with a space, the "nvidia" prefix */
    assert_ptr_equal(oc_gpu_find("K80"), k80);
    assert_ptr_equal(oc_gpu_find("Tesla K80"), k80);
    assert_ptr_equal(oc_gpu_find("NVIDIA K80"), k80);
    /* the half board is a different device */
    assert_string_equal(gpu("k80-gk210")->id, "k80-gk210");
    assert_ptr_not_equal(oc_gpu_find("k80-gk210"), k80);

    /* bare "A100" is the 80 GB SXM4 by alias */
    assert_string_equal(gpu("A100")->id, "a100-sxm4-80gb");
    assert_string_equal(gpu("nvidia-a100")->id, "a100-sxm4-80gb");
    assert_string_equal(gpu("NVIDIA A100")->id, "a100-sxm4-80gb");
    assert_string_equal(gpu("a100-80gb")->id, "a100-sxm4-80gb");
    assert_string_equal(gpu("a100_sxm4_40gb")->id, "a100-sxm4-40gb");
    /* "A10" is its own device, not a prefix of A100 */
    assert_string_equal(gpu("a10")->id, "a10");

    assert_string_equal(gpu("h100 sxm")->id, "h100-sxm");
    assert_string_equal(gpu("H100 SXM")->id, "h100-sxm");
    assert_string_equal(gpu("H100")->id, "h100-sxm");
    assert_string_equal(gpu("h100-pcie")->id, "h100-pcie");
    assert_string_equal(gpu("1080ti")->id, "gtx-1080-ti");
    assert_string_equal(gpu("GeForce GTX 1080 Ti")->id, "gtx-1080-ti");
    assert_string_equal(gpu("rtx_4090")->id, "rtx-4090");
    assert_string_equal(gpu("V100")->id, "v100-sxm2-32gb");
    /* the current ones: L40 is not a prefix of L40S, nor B200 of GB200 */
    assert_string_equal(gpu("L40")->id, "l40");
    assert_string_equal(gpu("L40S")->id, "l40s");
    assert_string_equal(gpu("B200")->id, "b200");
    assert_string_equal(gpu("GB200")->id, "gb200");
    assert_string_equal(gpu("GeForce RTX 5090")->id, "rtx-5090");
    assert_string_equal(gpu("RTX 6000 Ada")->id, "rtx-6000-ada");
    assert_string_equal(gpu("RTX PRO 6000 Blackwell")->id, "rtx-pro-6000");
    assert_string_equal(gpu("RTX A6000")->id, "rtx-a6000");

    /* unknown, empty, nothing left after the prefix, NULL, too long */
    assert_null(oc_gpu_find("z200"));
    assert_null(oc_gpu_find(""));
    assert_null(oc_gpu_find("   "));
    assert_null(oc_gpu_find("nvidia"));
    assert_null(oc_gpu_find(NULL));
    assert_null(oc_gpu_find("a1000"));
    assert_null(oc_gpu_find("k8"));
    char lng[200];
    memset(lng, 'x', sizeof lng - 1);
    lng[sizeof lng - 1] = 0;
    assert_null(oc_gpu_find(lng));
}

static void table_rows(void **state) {
    (void)state;
    /* every row is found by its own id and the ids are distinct */
    int32_t n = oc_gpu_count();
    assert_true(n >= 29);
    for (int32_t i = 0; i < n; i++) {
        const struct oc_gpu *g = oc_gpu_at(i);
        assert_non_null(g);
        assert_ptr_equal(oc_gpu_find(g->id), g);
        /* every device computes FP32 and has memory and a link */
        assert_true(g->peak[OC_UNIT_FP32] > 0);
        assert_true(g->mem_bw > 0);
        assert_true(g->mem_bytes > 0);
        assert_true(g->link_bw > 0);
    }
    assert_null(oc_gpu_at(-1));
    assert_null(oc_gpu_at(n));
    /* docs/GPUS.md order starts with the K80 board */
    assert_string_equal(oc_gpu_at(0)->id, "k80");

    /* Tesla K80 board: 8.73 TFLOPS FP32, 2.91 FP64, 24 GiB, 480 GB/s, PCIe 3.0 x16 */
    const struct oc_gpu *k80 = gpu("k80");
    NEAR(k80->peak[OC_UNIT_FP32], 8.73e12);
    NEAR(k80->peak[OC_UNIT_FP64], 2.91e12);
    assert_true(k80->peak[OC_UNIT_FP16] == 0);
    assert_true(k80->peak[OC_UNIT_FP16_TC] == 0);
    assert_true(k80->peak[OC_UNIT_FP64_TC] == 0);
    assert_int_equal(k80->mem_bytes, 25769803776ull); /* 24 x 2^30 */
    NEAR(k80->mem_bw, 480e9);
    NEAR(k80->link_bw, 16e9);
    assert_int_equal(k80->sms, 26);
    assert_int_equal(k80->boost_mhz, 875);
    assert_string_equal(k80->link, "PCIe 3.0 x16");
    /* one GK210: half of everything */
    const struct oc_gpu *half = gpu("gk210");
    NEAR(half->peak[OC_UNIT_FP32], 4.365e12);
    assert_int_equal(half->mem_bytes, 12884901888ull); /* 12 x 2^30 */
    NEAR(half->mem_bw, 240e9);

    /* H100 SXM: dense FP16-TC 989.4 TFLOPS, not the 1979 sparsity headline */
    const struct oc_gpu *h100 = gpu("h100-sxm");
    NEAR(h100->peak[OC_UNIT_FP16_TC], 989.4e12);
    NEAR(h100->peak[OC_UNIT_BF16_TC], 989.4e12);
    NEAR(h100->peak[OC_UNIT_TF32_TC], 494.7e12);
    NEAR(h100->peak[OC_UNIT_FP64_TC], 67e12);
    NEAR(h100->mem_bw, 3350e9);
    NEAR(h100->link_bw, 450e9);
    assert_int_equal(h100->mem_bytes, 85899345920ull); /* 80 x 2^30 */

    /* RTX 3090: FP16-TC with FP32 accumulate is 71 TFLOPS (142 is FP16 accumulate) */
    NEAR(gpu("rtx-3090")->peak[OC_UNIT_FP16_TC], 71e12);
    /* V100 SXM2 32GB: NVLink2 150 GB/s one direction, 32 GiB */
    const struct oc_gpu *v100 = gpu("v100-sxm2-32gb");
    NEAR(v100->link_bw, 150e9);
    assert_int_equal(v100->mem_bytes, 34359738368ull);
    NEAR(v100->peak[OC_UNIT_FP16_TC], 125e12);
    /* A100 80GB */
    const struct oc_gpu *a100 = gpu("a100-sxm4-80gb");
    NEAR(a100->peak[OC_UNIT_FP32], 19.5e12);
    NEAR(a100->peak[OC_UNIT_TF32_TC], 156e12);
    NEAR(a100->peak[OC_UNIT_FP16_TC], 312e12);
    NEAR(a100->peak[OC_UNIT_INT8_TC], 624e12);
    NEAR(a100->mem_bw, 2039e9);
    assert_int_equal(a100->l2_bytes, 41943040ull); /* 40 MiB */
    /* GTX 1080 Ti: 11 GiB, 2.75 MiB of L2 */
    const struct oc_gpu *gtx = gpu("gtx-1080-ti");
    assert_int_equal(gtx->mem_bytes, 11811160064ull);
    assert_int_equal(gtx->l2_bytes, 2883584ull);
    /* H200: 141 GiB, 4.8 TB/s */
    assert_int_equal(gpu("h200")->mem_bytes, 151397597184ull);
    NEAR(gpu("h200")->mem_bw, 4800e9);
}

static void names_and_math(void **state) {
    (void)state;
    assert_string_equal(oc_unit_name(OC_UNIT_FP64), "FP64");
    assert_string_equal(oc_unit_name(OC_UNIT_FP64_TC), "FP64-TC");
    assert_string_equal(oc_unit_name(OC_UNIT_FP32), "FP32");
    assert_string_equal(oc_unit_name(OC_UNIT_FP16), "FP16");
    assert_string_equal(oc_unit_name(OC_UNIT_TF32_TC), "TF32-TC");
    assert_string_equal(oc_unit_name(OC_UNIT_FP16_TC), "FP16-TC");
    assert_string_equal(oc_unit_name(OC_UNIT_BF16_TC), "BF16-TC");
    assert_string_equal(oc_unit_name(OC_UNIT_FP8_TC), "FP8-TC");
    assert_string_equal(oc_unit_name(OC_UNIT_INT8_TC), "INT8-TC");
    assert_string_equal(oc_unit_name(OC_UNIT_COUNT), "?");

    enum oc_math m = OC_MATH_COUNT;
    assert_true(oc_math_parse("auto", &m));
    assert_int_equal(m, OC_MATH_AUTO);
    assert_true(oc_math_parse("fp32", &m));
    assert_int_equal(m, OC_MATH_FP32);
    assert_true(oc_math_parse("tf32", &m));
    assert_int_equal(m, OC_MATH_TF32);
    assert_true(oc_math_parse("fp16", &m));
    assert_int_equal(m, OC_MATH_FP16);
    assert_false(oc_math_parse("bf16", &m));
    assert_false(oc_math_parse("", &m));
    assert_false(oc_math_parse(NULL, &m));
    assert_int_equal(m, OC_MATH_FP16); /* untouched on failure */
    assert_string_equal(oc_math_name(OC_MATH_TF32), "tf32");
    assert_string_equal(oc_math_name(OC_MATH_COUNT), "?");

    /* defaults: only the structural parts here (the numbers live in docs/MODEL.md) */
    struct oc_perf_opts o;
    memset(&o, 0x5a, sizeof o);
    oc_perf_defaults(&o);
    assert_int_equal(o.math, OC_MATH_AUTO);
    assert_int_equal(o.dtype, 0);
    assert_false(o.additive);
    assert_true(o.eff_compute > 0 && o.eff_compute <= 1);
    assert_true(o.eff_memory > 0 && o.eff_memory <= 1);
    assert_true(o.eff_comm > 0 && o.eff_comm <= 1);
    assert_true(o.launch_s >= 0 && o.launch_s < 1e-3);
    assert_true(o.allreduce_latency_s >= 0);
    assert_true(o.bucket_bytes > 0);
}

/* ---- unit selection ---- */

#define UNIT(g, dt, contr, math, want_unit, want_peak)                                             \
    do {                                                                                           \
        double _pk = -1;                                                                           \
        enum oc_unit _u = oc_perf_unit(gpu(g), (dt), (contr), (math), &_pk);                       \
        if (_u != (want_unit))                                                                     \
            fail_msg("%s dt %d contr %d math %d: unit %s, want %s", g, (int)(dt), (int)(contr),    \
                     (int)(math), oc_unit_name(_u), oc_unit_name(want_unit));                      \
        tu_near(_pk, (want_peak), g);                                                              \
    } while (0)

static void unit_choice(void **state) {
    (void)state;
    /* fp32 on A100: SIMT by default (PyTorch's allow_tf32 = False for matmul) */
    UNIT("a100", OC_DT_FLOAT, true, OC_MATH_AUTO, OC_UNIT_FP32, 19.5e12);
    UNIT("a100", OC_DT_FLOAT, true, OC_MATH_FP32, OC_UNIT_FP32, 19.5e12);
    UNIT("a100", OC_DT_FLOAT, true, OC_MATH_TF32, OC_UNIT_TF32_TC, 156e12);
    UNIT("a100", OC_DT_FLOAT, true, OC_MATH_FP16, OC_UNIT_FP16_TC, 312e12);
    /* --math applies to contractions only */
    UNIT("a100", OC_DT_FLOAT, false, OC_MATH_TF32, OC_UNIT_FP32, 19.5e12);
    UNIT("a100", OC_DT_FLOAT, false, OC_MATH_FP16, OC_UNIT_FP32, 19.5e12);
    /* fp16 contractions on tensor cores by default */
    UNIT("a100", OC_DT_FLOAT16, true, OC_MATH_AUTO, OC_UNIT_FP16_TC, 312e12);
    /* fp16 elementwise: A100's row has no FP16 SIMT figure -> FP32 19.5 */
    UNIT("a100", OC_DT_FLOAT16, false, OC_MATH_AUTO, OC_UNIT_FP32, 19.5e12);
    /* --math fp32 keeps fp16 contractions off the tensor cores; no FP16 SIMT -> FP32 */
    UNIT("a100", OC_DT_FLOAT16, true, OC_MATH_FP32, OC_UNIT_FP32, 19.5e12);
    /* bf16 on A100: BF16-TC 312; with --math fp16 every float contraction is FP16-TC */
    UNIT("a100", OC_DT_BFLOAT16, true, OC_MATH_AUTO, OC_UNIT_BF16_TC, 312e12);
    UNIT("a100", OC_DT_BFLOAT16, true, OC_MATH_FP16, OC_UNIT_FP16_TC, 312e12);
    /* fp64: tensor cores for contractions where they exist (even under --math fp32),
     * FP64 SIMT otherwise */
    UNIT("a100", OC_DT_DOUBLE, true, OC_MATH_AUTO, OC_UNIT_FP64_TC, 19.5e12);
    UNIT("a100", OC_DT_DOUBLE, true, OC_MATH_FP32, OC_UNIT_FP64_TC, 19.5e12);
    UNIT("a100", OC_DT_DOUBLE, false, OC_MATH_AUTO, OC_UNIT_FP64, 9.7e12);
    UNIT("k80", OC_DT_DOUBLE, true, OC_MATH_AUTO, OC_UNIT_FP64, 2.91e12);
    UNIT("k80", OC_DT_DOUBLE, false, OC_MATH_AUTO, OC_UNIT_FP64, 2.91e12);
    UNIT("h100", OC_DT_DOUBLE, true, OC_MATH_AUTO, OC_UNIT_FP64_TC, 67e12);
    /* bf16 contraction on V100: the preference is BF16-TC (V100 row: 0, Volta has
     * no bf16 tensor cores), then FP16 SIMT (V100 row: 0, no figure given), then
     * FP32 SIMT 15.7. It must NOT land on the fp16 tensor cores (125): bf16 is not
     * fp16 and Volta's tensor cores cannot take it. */
    UNIT("v100", OC_DT_BFLOAT16, true, OC_MATH_AUTO, OC_UNIT_FP32, 15.7e12);
    /* ... while fp16 on V100 does use them */
    UNIT("v100", OC_DT_FLOAT16, true, OC_MATH_AUTO, OC_UNIT_FP16_TC, 125e12);
    /* TF32 requested on a device without it: FP32 */
    UNIT("v100", OC_DT_FLOAT, true, OC_MATH_TF32, OC_UNIT_FP32, 15.7e12);
    /* --math fp16 on a K80 (no tensor cores at all): FP32 */
    UNIT("k80", OC_DT_FLOAT, true, OC_MATH_FP16, OC_UNIT_FP32, 8.73e12);
    /* int8 contraction on T4: INT8-TC 130 TOPS; elementwise int8: FP32 8.1 */
    UNIT("t4", OC_DT_INT8, true, OC_MATH_AUTO, OC_UNIT_INT8_TC, 130e12);
    UNIT("t4", OC_DT_UINT8, true, OC_MATH_AUTO, OC_UNIT_INT8_TC, 130e12);
    UNIT("t4", OC_DT_INT8, false, OC_MATH_AUTO, OC_UNIT_FP32, 8.1e12);
    /* half precision on Pascal GeForce (GTX 1080 Ti: FP16 SIMT 0.177, 1/64 of FP32's 11.34, no tensor cores):
     * libraries compute in FP32, elementwise and contractions alike; where FP16 SIMT is faster (P100 SXM2:
     * 21.2 against 10.6) an fp16 kernel runs on it */
    UNIT("gtx-1080-ti", OC_DT_FLOAT16, false, OC_MATH_AUTO, OC_UNIT_FP32, 11.34e12);
    UNIT("gtx-1080-ti", OC_DT_FLOAT16, true, OC_MATH_AUTO, OC_UNIT_FP32, 11.34e12);
    UNIT("p100-sxm2", OC_DT_FLOAT16, false, OC_MATH_AUTO, OC_UNIT_FP16, 21.2e12);
    UNIT("t4", OC_DT_INT8, true, OC_MATH_FP32, OC_UNIT_FP32, 8.1e12);
    /* int8 contraction without INT8 tensor cores (V100 row: 0): FP32 */
    UNIT("v100", OC_DT_INT8, true, OC_MATH_AUTO, OC_UNIT_FP32, 15.7e12);
    /* P100 has FP16 SIMT at 2x FP32: --math fp32 puts an fp16 contraction there */
    UNIT("p100", OC_DT_FLOAT16, true, OC_MATH_FP32, OC_UNIT_FP16, 21.2e12);
    UNIT("p100", OC_DT_FLOAT16, false, OC_MATH_AUTO, OC_UNIT_FP16, 21.2e12);
    /* fp8: FP8-TC on H100 (1979 dense), FP16-TC on A100 (no FP8 path) */
    UNIT("h100", OC_DT_FLOAT8E4M3FN, true, OC_MATH_AUTO, OC_UNIT_FP8_TC, 1979e12);
    UNIT("a100", OC_DT_FLOAT8E5M2, true, OC_MATH_AUTO, OC_UNIT_FP16_TC, 312e12);
    /* no float tensor (dtype 0) or an integer type: FP32 */
    UNIT("h100", 0, true, OC_MATH_AUTO, OC_UNIT_FP32, 67e12);
    UNIT("h100", OC_DT_INT64, false, OC_MATH_AUTO, OC_UNIT_FP32, 67e12);
    UNIT("rtx-4090", OC_DT_FLOAT16, true, OC_MATH_AUTO, OC_UNIT_FP16_TC, 165.2e12);
}

/* ---- roofline per node ---- */

static struct oc_perf_opts opts(double effc, double effm, double launch, bool additive) {
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    o.eff_compute = effc;
    o.eff_memory = effm;
    o.launch_s = launch;
    o.additive = additive;
    return o;
}

static void node_compute_bound(void **state) {
    (void)state;
    const struct oc_gpu *k80 = gpu("k80");
    struct oc_perf_opts o = opts(0.5, 0.8, 0, false);
    struct oc_node_perf np;
    /* 1e12 FLOPs, 1e6 bytes, K80 FP32 8.73e12 x 0.5, 480e9 x 0.8:
     * t_comp = 1e12 / 4.365e12 = 0.2290950744558992 s
     * t_mem  = 1e6 / 384e9     = 2.6041666666666666e-06 s
     * AI = 1e6 FLOP/B; AI x bw = 4.8e17 > 8.73e12 -> attainable = 8.73e12 */
    oc_perf_node(k80, &o, OC_UNIT_FP32, 8.73e12, 1000000000000ull, 1000000ull, &np);
    assert_true(np.known);
    assert_int_equal(np.unit, OC_UNIT_FP32);
    NEAR(np.peak, 8.73e12);
    NEAR(np.ai, 1e6);
    NEAR(np.attainable, 8.73e12);
    NEAR(np.t_compute, 0.2290950744558992);
    NEAR(np.t_memory, 2.6041666666666666e-06);
    NEAR(np.time, 0.2290950744558992);
    assert_int_equal(np.bound, OC_BOUND_COMPUTE);

    /* launch 5 us added; additive sums both */
    o = opts(0.5, 0.8, 5e-6, true);
    oc_perf_node(k80, &o, OC_UNIT_FP32, 8.73e12, 1000000000000ull, 1000000ull, &np);
    NEAR(np.time, 0.2290950744558992 + 2.6041666666666666e-06 + 5e-6); /* 0.22910267862256586 */
    assert_int_equal(np.bound, OC_BOUND_COMPUTE);
    o = opts(0.5, 0.8, 5e-6, false);
    oc_perf_node(k80, &o, OC_UNIT_FP32, 8.73e12, 1000000000000ull, 1000000ull, &np);
    NEAR(np.time, 0.2290950744558992 + 5e-6);
}

static void node_memory_bound(void **state) {
    (void)state;
    const struct oc_gpu *k80 = gpu("k80");
    struct oc_perf_opts o = opts(0.5, 0.8, 5e-6, false);
    struct oc_node_perf np;
    /* 1e9 FLOPs, 4e9 bytes on K80 FP32:
     * t_comp = 1e9 / 4.365e12 = 2.290950744558992e-4 s
     * t_mem  = 4e9 / 384e9    = 0.010416666666666666 s
     * AI = 0.25; AI x 480e9 = 120e9 < 8.73e12 -> attainable 120e9 */
    oc_perf_node(k80, &o, OC_UNIT_FP32, 8.73e12, 1000000000ull, 4000000000ull, &np);
    NEAR(np.ai, 0.25);
    NEAR(np.attainable, 120e9);
    NEAR(np.t_compute, 2.290950744558992e-4);
    NEAR(np.t_memory, 0.010416666666666666);
    NEAR(np.time, 0.010421666666666666);
    assert_int_equal(np.bound, OC_BOUND_MEMORY);
    /* additive: 2.290950744558992e-4 + 0.010416666666666666 + 5e-6 */
    o.additive = true;
    oc_perf_node(k80, &o, OC_UNIT_FP32, 8.73e12, 1000000000ull, 4000000000ull, &np);
    NEAR(np.time, 0.010650761741122564);
    assert_int_equal(np.bound, OC_BOUND_MEMORY);

    /* a pure copy: no FLOPs, 1 GB moved on A100 80GB (2039e9 x 0.8) */
    o = opts(0.6, 0.8, 0, false);
    oc_perf_node(gpu("a100"), &o, OC_UNIT_FP32, 19.5e12, 0, 1000000000ull, &np);
    NEAR(np.ai, 0);
    NEAR(np.attainable, 0); /* min(19.5e12, 0 x bw) */
    NEAR(np.t_compute, 0);
    NEAR(np.t_memory, 1e9 / (2039e9 * 0.8)); /* 6.130456105934281e-4 */
    NEAR(np.t_memory, 6.130456105934281e-4);
    NEAR(np.time, 6.130456105934281e-4);
    assert_int_equal(np.bound, OC_BOUND_MEMORY);
}

static void node_edges(void **state) {
    (void)state;
    struct oc_node_perf np;
    /* nothing moved, nothing computed: no kernel, no launch, no time */
    struct oc_perf_opts o = opts(0.6, 0.8, 5e-6, false);
    memset(&np, 0x5a, sizeof np);
    oc_perf_node(gpu("k80"), &o, OC_UNIT_FP32, 8.73e12, 0, 0, &np);
    assert_true(np.known);
    assert_int_equal(np.bound, OC_BOUND_NONE);
    assert_true(np.time == 0);
    assert_true(np.t_compute == 0);
    assert_true(np.t_memory == 0);
    assert_true(np.ai == 0);
    o.additive = true;
    oc_perf_node(gpu("k80"), &o, OC_UNIT_FP32, 8.73e12, 0, 0, &np);
    assert_int_equal(np.bound, OC_BOUND_NONE);
    assert_true(np.time == 0);

    /* a caller-filled device with binary-exact figures: peak 1024 FLOP/s,
     * 64 B/s; 1024 FLOPs over 64 B take 1 s each way -> the tie is compute */
    struct oc_gpu toy = {.id = "toy", .name = "toy", .mem_bw = 64, .link_bw = 8};
    toy.peak[OC_UNIT_FP32] = 1024;
    o = opts(1, 1, 0, false);
    oc_perf_node(&toy, &o, OC_UNIT_FP32, 1024, 1024, 64, &np);
    assert_true(np.t_compute == 1.0);
    assert_true(np.t_memory == 1.0);
    assert_true(np.time == 1.0);
    assert_true(np.ai == 16.0);
    assert_true(np.attainable == 1024.0); /* min(1024, 16 x 64) */
    assert_int_equal(np.bound, OC_BOUND_COMPUTE);
    /* one more byte tips it to memory: t_mem = 65/64 */
    oc_perf_node(&toy, &o, OC_UNIT_FP32, 1024, 1024, 65, &np);
    assert_true(np.time == 65.0 / 64.0);
    assert_int_equal(np.bound, OC_BOUND_MEMORY);
    NEAR(np.attainable, 1024.0 / 65.0 * 64.0); /* AI x bw = 1008.246... < 1024 */
    /* additive on the toy: 1 + 1 + launch 0.5 */
    o = opts(1, 1, 0.5, true);
    oc_perf_node(&toy, &o, OC_UNIT_FP32, 1024, 1024, 64, &np);
    assert_true(np.time == 2.5);
    /* efficiencies scale the roofs: 0.5 and 0.25 -> t_comp 2, t_mem 4 */
    o = opts(0.5, 0.25, 0, false);
    oc_perf_node(&toy, &o, OC_UNIT_FP32, 1024, 1024, 64, &np);
    assert_true(np.t_compute == 2.0);
    assert_true(np.t_memory == 4.0);
    assert_true(np.time == 4.0);
    assert_int_equal(np.bound, OC_BOUND_MEMORY);

    /* FLOPs but no bytes: AI 0, no memory time, compute-bound. attainable is
     * then the peak (the code's choice: with nothing to move the memory roof
     * does not apply; perf.h's "min(peak, ai x bandwidth)" read literally would
     * give 0) */
    o = opts(1, 1, 0, false);
    oc_perf_node(&toy, &o, OC_UNIT_FP32, 1024, 2048, 0, &np);
    assert_true(np.ai == 0);
    assert_true(np.t_memory == 0);
    assert_true(np.t_compute == 2.0);
    assert_true(np.time == 2.0);
    assert_int_equal(np.bound, OC_BOUND_COMPUTE);
    assert_true(np.attainable == 1024.0);
}

/* Seed 003: VGG-16's 15.503 GFLOPs ("FLOPs" as the homework counted them) on
 * the K80 board at datasheet peak, no launch, no memory time to speak of
 * (1 byte: 2.1e-12 s). */
static void node_vgg16_k80(void **state) {
    (void)state;
    const struct oc_gpu *k80 = gpu("k80");
    struct oc_perf_opts o = opts(1, 1, 0, false);
    struct oc_node_perf np;
    oc_perf_node(k80, &o, OC_UNIT_FP32, 8.73e12, 15503000000ull, 1, &np);
    NEAR(np.t_compute, 0.0017758304696449026); /* 15.503e9 / 8.73e12 = 1.7758 ms */
    NEAR(np.time, 0.0017758304696449026);
    NEAR(np.t_memory, 2.0833333333333334e-12); /* 1 / 480e9 */
    assert_int_equal(np.bound, OC_BOUND_COMPUTE);
    oc_perf_node(k80, &o, OC_UNIT_FP64, 2.91e12, 15503000000ull, 1, &np);
    NEAR(np.time, 0.005327491408934708); /* 15.503e9 / 2.91e12 = 5.3275 ms */
    assert_int_equal(np.unit, OC_UNIT_FP64);
}

/* ---- ring all-reduce ---- */

static void allreduce(void **state) {
    (void)state;
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    o.eff_comm = 0.75;
    o.allreduce_latency_s = 10e-6;
    o.bucket_bytes = 26214400; /* 25 MiB */
    const struct oc_gpu *gtx = gpu("gtx-1080-ti");
    const uint64_t vgg = 553432736ull; /* VGG-16 fp32 gradients: 138,357,544 x 4 */

    /* one GPU (or none): nothing to reduce */
    assert_true(oc_allreduce_time(gtx, &o, vgg, 1) == 0);
    assert_true(oc_allreduce_time(gtx, &o, vgg, 0) == 0);
    assert_true(oc_allreduce_time(gtx, &o, 0, 8) == 0);

    /* n = 2: 2(n-1)/n = 1; 553432736 / (16e9 x 0.75) = 0.046119394666... s;
     * buckets = ceil(553432736 / 26214400) = ceil(21.11) = 22;
     * latency 22 x 2(n-1) x 10e-6 = 4.4e-4 s; total 0.04655939466666667 s */
    NEAR(oc_allreduce_time(gtx, &o, vgg, 2), 0.04655939466666667);
    /* n = 8: 2 x 7 / 8 = 1.75; 1.75 x 0.046119394666... = 0.0807089406666...;
     * latency 22 x 14 x 10e-6 = 3.08e-3; total 0.08378894066666667 s */
    NEAR(oc_allreduce_time(gtx, &o, vgg, 8), 0.08378894066666667);

    /* exactly two buckets: 2 x 26214400 B over n = 2:
     * 52428800 / 12e9 + 2 x 2 x 10e-6 = 0.004369066666... + 4e-5 */
    NEAR(oc_allreduce_time(gtx, &o, 52428800ull, 2), 0.004409066666666667);
    /* one byte past: three buckets, 2e-5 more latency */
    NEAR(oc_allreduce_time(gtx, &o, 52428801ull, 2), 52428801.0 / 12e9 + 3 * 2 * 10e-6);

    /* no bucketing (0): one call for the lot: 1 x 2 x 10e-6 */
    o.bucket_bytes = 0;
    NEAR(oc_allreduce_time(gtx, &o, vgg, 2), 553432736.0 / 12e9 + 2e-5);

    /* NVLink on V100 SXM2: 150e9 x 0.75 = 112.5e9 B/s; n = 4: 2 x 3 / 4 = 1.5,
     * bucket 25 MiB -> 22 buckets x 6 x 10e-6 = 1.32e-3 */
    o.bucket_bytes = 26214400;
    NEAR(oc_allreduce_time(gpu("v100"), &o, vgg, 4), 1.5 * 553432736.0 / 112.5e9 + 1.32e-3);

    /* a device with no link figure cannot all-reduce: 0 */
    struct oc_gpu nolink = {.id = "x", .name = "x", .mem_bw = 1e9};
    nolink.peak[OC_UNIT_FP32] = 1e12;
    assert_true(oc_allreduce_time(&nolink, &o, vgg, 2) == 0);
}

/* A CPU at n threads: each rate linear in the thread count between its
 * one-thread and all-thread figures, the all-thread one from the probed
 * count on; a private cache level n instances, a shared one as many as n
 * threads need; a spec without one-thread figures does not scale. */
static void cpu_threads(void **state) {
    (void)state;
    struct oc_gpu g = {0};
    g.name = "Some CPU, 4 threads";
    g.cpu = true;
    g.peak[OC_UNIT_FP32] = 400e9;
    g.mem_bw = 40e9;
    g.n_caches = 2;
    g.cache_bytes[0] = 4 * 1024 * 1024;   /* L2: 1 MiB private, 4 threads */
    g.cache_bw[0] = 400e9;
    g.cache_bytes[1] = 32 * 1024 * 1024;  /* L3: 32 MiB shared by 8 */
    g.cache_bw[1] = 200e9;
    g.scaling = (struct oc_cpu_scaling){.threads = 4, .mem_one = 16e9, .cache_one = {1024 * 1024, 32 * 1024 * 1024},
                                        .shared_by = {1, 8}, .cache_bw_one = {100e9, 80e9}};
    g.scaling.peak_one[OC_UNIT_FP32] = 100e9;
    struct oc_gpu t;
    char name[64];
    assert_true(oc_gpu_at_threads(&g, 2, &t, name, sizeof name));
    tu_near(t.peak[OC_UNIT_FP32], 100e9 + 300e9 / 3, "fp32 at 2 of 4: a third of the way");
    tu_near(t.mem_bw, 16e9 + 24e9 / 3, "DRAM at 2 of 4");
    assert_int_equal(t.cache_bytes[0], 2 * 1024 * 1024);
    tu_near(t.cache_bw[0], 100e9 + 300e9 / 3, "L2 rate at 2 of 4");
    assert_int_equal(t.cache_bytes[1], 32 * 1024 * 1024); /* one instance serves 2 threads */
    assert_string_equal(t.name, "Some CPU, 2 threads");
    assert_int_equal(t.scaling.threads, 0); /* not scaled again */
    assert_true(oc_gpu_at_threads(&g, 1, &t, name, sizeof name));
    tu_near(t.peak[OC_UNIT_FP32], 100e9, "one thread: the one-thread figure");
    assert_string_equal(t.name, "Some CPU, 1 thread");
    assert_true(oc_gpu_at_threads(&g, 16, &t, name, sizeof name));
    tu_near(t.peak[OC_UNIT_FP32], 400e9, "past the probed threads: the all-thread figure");
    assert_int_equal(t.cache_bytes[0], 4 * 1024 * 1024);
    g.scaling.threads = 0;
    assert_false(oc_gpu_at_threads(&g, 2, &t, name, sizeof name));
    g.scaling.threads = 4;
    g.cpu = false;
    assert_false(oc_gpu_at_threads(&g, 2, &t, name, sizeof name));
}

/* Tokens a second: a rank-2 integer first input is token ids [batch,
 * sequence]; every id is a token. ids [2, 7] -> Gather from emb [100, 8]:
 * 14 tokens, samples (sequences) 2, over the same predicted time. */
static void tokens_per_second(void **state) {
    (void)state;
    struct pb_model pm = {0};
    pbm_input(&pm, pb_value_info("ids", PB_INT64, 2, TU_DIMS(2, 7), NULL));
    pbm_init(&pm, pb_tensor_f32("emb", 2, TU_DIMS(100, 8)));
    pbm_node(&pm, pb_node("g", "Gather", TU_LIST("emb", "ids"), TU_LIST("h"), 0, NULL));
    pbm_output(&pm, pb_value_info("h", PB_FLOAT, -1, NULL, NULL));
    struct pbw bytes = pbm_finish(&pm, 17);
    struct oc_model *m = NULL;
    struct oc_analysis *a = NULL;
    struct oc_diag d = {0};
    assert_int_equal(tu_analyze(&bytes, NULL, &m, &a, &d), OC_OK);
    struct oc_perf_opts o;
    oc_perf_defaults(&o);
    struct oc_perf p;
    assert_int_equal(oc_perf_estimate(a, oc_gpu_find("a100-sxm4-80gb"), &o, &p), OC_OK);
    assert_true(p.time > 0);
    assert_int_equal(p.batch, 2);
    assert_int_equal(p.tokens, 14);
    tu_near(p.samples_per_s, 2 / p.time, "sequences a second");
    tu_near(p.tokens_per_s, 14 / p.time, "tokens a second");
    oc_perf_free(&p);
    tu_free(m, a, &bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(find_names),         cmocka_unit_test(table_rows),
        cmocka_unit_test(tokens_per_second),
        cmocka_unit_test(names_and_math),     cmocka_unit_test(unit_choice),
        cmocka_unit_test(node_compute_bound), cmocka_unit_test(node_memory_bound),
        cmocka_unit_test(node_edges),         cmocka_unit_test(node_vgg16_k80),
        cmocka_unit_test(allreduce),
        cmocka_unit_test(cpu_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
