/*
 * fill.h — the deterministic data an input is filled with, as a function of
 * (seed, element index). Shared by the GPU kernel that fills device buffers
 * (replay/kernels.cu) and the host tests (tests/unit/test_replay_plan.c), so
 * what the tests check is what the GPU writes. Plain C, also valid CUDA C++.
 */
#ifndef OC_REPLAY_FILL_H
#define OC_REPLAY_FILL_H

#include <stdint.h>

#ifdef __CUDACC__
#define OC_HD __host__ __device__
#else
#define OC_HD
#endif

/* splitmix64 finalizer: a bijection on 64 bits with good avalanche. */
static inline OC_HD uint64_t oc_rp_mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline OC_HD double oc_rp_unit(uint64_t seed, uint64_t i) {
    return (double)(oc_rp_mix(seed ^ oc_rp_mix(i)) >> 11) * (1.0 / 9007199254740992.0);
}

/* Float uniform in [lo, hi); when rounding to float would give hi, lo.
 * On the device the multiply and add are rounded separately, as on the host:
 * nvcc would otherwise contract them into one FMA and the GPU's values could
 * differ from the host tests' in the last bit. */
static inline OC_HD float oc_rp_uniform(uint64_t seed, uint64_t i, double lo, double hi) {
#ifdef __CUDA_ARCH__
    float v = (float)__dadd_rn(lo, __dmul_rn(hi - lo, oc_rp_unit(seed, i)));
#else
    float v = (float)(lo + (hi - lo) * oc_rp_unit(seed, i));
#endif
    return (double)v >= hi ? (float)lo : v;
}

/* Integer uniform in [lo, hi) (hi > lo; the modulo bias is below 2^-40 for
 * ranges under 2^24, immaterial for indices). */
static inline OC_HD int64_t oc_rp_index(uint64_t seed, uint64_t i, int64_t lo, int64_t hi) {
    uint64_t span = (uint64_t)(hi - lo);
    return lo + (int64_t)(oc_rp_mix(seed ^ oc_rp_mix(i)) % (span ? span : 1));
}

/* 0 or 1. */
static inline OC_HD int oc_rp_mask(uint64_t seed, uint64_t i) {
    return (int)(oc_rp_mix(seed ^ oc_rp_mix(i)) >> 63);
}

#endif
