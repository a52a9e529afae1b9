/*
 * psnrhvs_bd, the library's Bjøntegaard deltas (the CLI's bdrate and report
 * call it; tests/bdrate checks its values against SciPy): a curve against
 * itself is no change, exactly; a test at half the rate is -50 %; a curve
 * one dB up is +1 dB; bad curves and arguments are refused with one line.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "psnrhvs.h"

static const double rate[] = {1000, 2000, 4000, 8000, 16000};
static const double metric[] = {30.0, 33.5, 36.25, 38.5, 40.0};

int main(void) {
    const PsnrHvsRdCurve a = {"a.csv", 5, rate, metric, NULL};
    double half[5], up[5];
    for (int i = 0; i < 5; i++) half[i] = rate[i] / 2, up[i] = metric[i] + 1;
    for (int m = PSNRHVS_BD_PCHIP; m <= PSNRHVS_BD_CUBIC; m++) {
        const char *const name = psnrhvs_bd_method_string((enum PsnrHvsBdMethod)m);
        PsnrHvsBd r;
        PsnrHvsFileStatus st;
        CHECK(!psnrhvs_bd((enum PsnrHvsBdMethod)m, &a, &a, NULL, &r, &st) && r.rate == 0 &&
                  r.metric == 0 && r.lo == 30.0 && r.hi == 40.0,
              "%s: a curve against itself: %a %% %a dB", name, r.rate, r.metric);
        const PsnrHvsRdCurve h = {"h.csv", 5, half, metric, NULL};
        CHECK(!psnrhvs_bd((enum PsnrHvsBdMethod)m, &a, &h, NULL, &r, &st) &&
                  fabs(r.rate + 50) < 1e-9 && fabs(r.metric) > 0,
              "%s: half the rate: %.17g %%", name, r.rate);
        const PsnrHvsRdCurve u = {"u.csv", 5, rate, up, NULL};
        CHECK(!psnrhvs_bd((enum PsnrHvsBdMethod)m, &a, &u, NULL, &r, &st) &&
                  fabs(r.metric - 1) < 1e-9 && r.rate < 0,
              "%s: one dB up: %.17g dB", name, r.metric);
    }
    PsnrHvsBd r;
    PsnrHvsFileStatus st;
    const double flat[] = {30.0, 33.5, 33.5, 38.5, 40.0};
    const PsnrHvsRdCurve f = {"f.csv", 5, rate, flat, NULL};
    CHECK(psnrhvs_bd(PSNRHVS_BD_PCHIP, &a, &f, "psnr_hvs_y", &r, &st) == PSNRHVS_ERR(EINVAL) &&
              strstr(st.message, "f.csv: the psnr_hvs_y curve is not monotonic") &&
              strstr(st.message, "(point 2)") && strstr(st.message, "(point 3)"),
          "a flat step: %s", st.message);
    const PsnrHvsRdCurve short3 = {"s.csv", 3, rate, metric, NULL};
    CHECK(psnrhvs_bd(PSNRHVS_BD_CUBIC, &a, &short3, NULL, &r, &st) == PSNRHVS_ERR(EINVAL) &&
              !strcmp(st.message, "s.csv has 3 rungs: a BD-rate needs at least 4"),
          "three points: %s", st.message);
    CHECK(psnrhvs_bd((enum PsnrHvsBdMethod)2, &a, &a, NULL, &r, &st) == PSNRHVS_ERR(EINVAL) &&
              psnrhvs_bd(PSNRHVS_BD_PCHIP, NULL, &a, NULL, &r, &st) == PSNRHVS_ERR(EINVAL) &&
              psnrhvs_bd(PSNRHVS_BD_PCHIP, &a, &a, NULL, NULL, &st) == PSNRHVS_ERR(EINVAL) &&
              !psnrhvs_bd_method_string((enum PsnrHvsBdMethod)2),
          "bad arguments accepted");
    printf("bd: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
