/*
 * psnrhvs: the number formatter shared by every writer.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>

#include "output/output.h"

const char *psnrhvs_numfmt(char *const buf, const double v, const int precision, const int json) {
    if (!isfinite(v)) {
        /* libvmaf's JSON writer turns every non-finite value into null. */
        if (json) return "null";
        if (isnan(v)) return "nan";
        return v > 0 ? "inf" : "-inf";
    }
    if (precision < 0)
        snprintf(buf, NUMFMT_SIZE, "%.17g", v); /* round-trips every double */
    else
        snprintf(buf, NUMFMT_SIZE, "%.*f", precision, v);
    return buf;
}

const char *psnrhvs_rawfmt(char *const buf, const float raw) {
    snprintf(buf, NUMFMT_SIZE, "%a", (double)raw);
    return buf;
}
