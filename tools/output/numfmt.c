/*
 * psnrhvs: the number formatter shared by every writer.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>

#include "output/output.h"

int vmaf_fraction_zeros(double x) {
    x = fabs(x);
    /* libvmaf takes the integer part with (int)x, undefined for NaN, infinities
     * and |x| >= 2^31; x86-64 gives INT_MIN (ARM saturates), so the fraction it
     * goes on with is at least 1 (or NaN) and it counts no zeros either way. */
    if (!(x < 2147483648.0)) return 0;
    const int int_part = (int)x;
    double fraction = x - int_part;
    int zeros = 0;
    /* The same double steps as libvmaf's loop, so the boundary cases agree. */
    while (fraction < 1.0 && fraction != 0) {
        fraction *= 10;
        zeros++;
    }
    return zeros;
}

const char *numfmt(char *const buf, const double v, const int precision, const int json) {
    /* libvmaf's JSON writer turns every non-finite value into null; elsewhere
     * printf writes them ("inf", "-inf", "nan", "-nan"), as it does for libvmaf. */
    if (json && !isfinite(v)) return "null";
    if (precision == NUMFMT_VMAF) {
        /* libvmaf's rule (output.c): %.16f when the fraction has more than six
         * leading zeros, so such values do not print as N.000000. */
        snprintf(buf, NUMFMT_SIZE, vmaf_fraction_zeros(v) > 6 ? "%.16f" : "%.6f", v);
    } else if (precision < 0) {
        snprintf(buf, NUMFMT_SIZE, "%.17g", v); /* round-trips every double */
    } else {
        snprintf(buf, NUMFMT_SIZE, "%.*f", precision, v);
    }
    return buf;
}

const char *rawfmt(char *const buf, const float raw) {
    snprintf(buf, NUMFMT_SIZE, "%a", (double)raw);
    return buf;
}
