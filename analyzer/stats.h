/*
 * stats.h — order statistics of repeated times (medians and percentiles),
 * shared by the GPU replay's plugin, its calibration and the ONNX Runtime
 * profile join (views/measure.c). Header only: plain C, valid CUDA C++ host
 * code.
 */
#ifndef OC_STATS_H
#define OC_STATS_H

#include <stdint.h>
#include <stdlib.h>

static inline int oc_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* q-quantile (0..1) of v[0..n) sorted ascending, linear interpolation
 * between closest ranks (numpy's default); 0 for n = 0. */
static inline double oc_quantile(const double *v, int64_t n, double q) {
    if (n <= 0)
        return 0;
    double pos = q * (double)(n - 1);
    int64_t i = (int64_t)pos;
    if (i >= n - 1)
        return v[n - 1];
    double f = pos - (double)i;
    return v[i] + (v[i + 1] - v[i]) * f;
}

/* Sorts v in place and gives median, p10, p90 and min. */
static inline void oc_summarize(double *v, int64_t n, double *median, double *p10, double *p90, double *min) {
    qsort(v, (size_t)n, sizeof *v, oc_cmp_double);
    *median = oc_quantile(v, n, 0.5);
    *p10 = oc_quantile(v, n, 0.1);
    *p90 = oc_quantile(v, n, 0.9);
    *min = n > 0 ? v[0] : 0;
}

#endif
