/*
 * psnrhvs: libvmaf's pooling, the one copy the tools and Python use. Its own
 * file, libc only, so fuzz targets of the tools' writers compile it alone.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <string.h>

#include "psnrhvs.h"

void psnrhvs_pool(const double *const values, const size_t n, const size_t stride,
                  PsnrHvsPool *const out) {
    *out = (PsnrHvsPool){NAN, NAN, NAN, NAN};
    if (!values || !n) return;
    const size_t step = stride ? stride : sizeof(double);
    double sum = 0.0, inv_sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v;
        memcpy(&v, (const char *)values + i * step, sizeof(v));
        if (!i || v < out->min) out->min = v;
        if (!i || v > out->max) out->max = v;
        sum += v;
        inv_sum += 1.0 / (v + 1.0);
    }
    out->mean = sum / (double)n;
    out->harmonic_mean = (double)n / inv_sum - 1.0;
}
