/*
 * The final step from a plane's f32 sum to its raw score (docs/numerics.md,
 * "The final normalisation"): psh_frame_finish against libvmaf's two f32
 * divisions, written out as libvmaf does them, with libvmaf's block loop
 * counting the terms, on sizes from CIF to the largest accepted. Where the
 * term count is not an f32 (65536x65536), the division by the converted
 * count must also differ from the one by the exact count for some sums, so
 * the conversion is shown to matter; where it is exact, it must not.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "frame.h"

static int failures;

static uint32_t bits(const float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

/* libvmaf's loop over block positions, along one side. */
static int64_t libvmaf_blocks(const int n) {
    int64_t b = 0;
    for (int x = 0; x < n - 7; x += 7) b++;
    return b;
}

/* calc_psnrhvs's last lines: `ret /= pixels; ret /= samplemax * samplemax;`
 * with float ret and int pixels (here int64_t where libvmaf's int would
 * overflow; the conversion to float is the same). */
static float libvmaf_finish(float ret, const int64_t pixels, const int depth) {
    const int32_t samplemax = (1 << depth) - 1;
    if (pixels <= INT32_MAX)
        ret /= (int32_t)pixels;
    else
        ret /= pixels;
    ret /= samplemax * samplemax;
    return ret;
}

static uint64_t state = 0x2545f4914f6cdd1dULL;
static float rnd_sum(void) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    uint32_t u = (uint32_t)(state >> 32);
    /* positive finite, exponents from 2^-40 to 2^80 */
    u = ((87u + (u >> 24) % 120u) << 23) | (u & 0x7fffffu);
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static void check(const int w, const int h, const enum PsnrHvsPixelLayout layout, const int depth) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = w, s.height = h, s.layout = layout, s.bitdepth = depth;
    PsnrHvsFrameGeometry g;
    if (psh_frame_geometry(&g, &s)) {
        printf("FAIL %dx%d: no geometry\n", w, h);
        failures++;
        return;
    }
    int differs_from_exact = 0, inexact_count = 0;
    const int max = (1 << depth) - 1;
    for (int p = 0; p < g.num_planes; p++) {
        const int pw = p && layout != PSNRHVS_PIXEL_LAYOUT_I444 ? w >> 1 : w;
        const int ph = p && layout == PSNRHVS_PIXEL_LAYOUT_I420 ? h >> 1 : h;
        const int64_t count = libvmaf_blocks(pw) * libvmaf_blocks(ph) * 64;
        inexact_count |= (int64_t)(float)count != count;
        for (int i = 0; i < 2000; i++) {
            const float sum = rnd_sum();
            const float got = psh_frame_finish(&g, p, sum);
            const float want = libvmaf_finish(sum, count, depth);
            if (bits(got) != bits(want) && failures++ < 10)
                printf("FAIL %dx%d plane %d sum %a: %a, libvmaf %a\n", w, h, p, (double)sum,
                       (double)got, (double)want);
            /* the first division in f64 by the exact count, rounded once */
            const float exact = (float)((double)sum / (double)count) / (float)(max * max);
            differs_from_exact += bits(exact) != bits(want);
        }
    }
    printf(
        "%5dx%-5d %d-bit: count %s in f32, %d of %d sums differ when divided by the exact count\n",
        w, h, depth, inexact_count ? "not exact" : "exact", differs_from_exact,
        2000 * g.num_planes);
    /* An exact count leaves no room for a difference (an f64 quotient of f32
     * values rounds to the f32 quotient); a rounded one must show. */
    if (inexact_count ? !differs_from_exact : differs_from_exact != 0) {
        printf("FAIL %dx%d: count %s, %d sums differ\n", w, h, inexact_count ? "rounded" : "exact",
               differs_from_exact);
        failures++;
    }
}

int main(void) {
    check(176, 144, PSNRHVS_PIXEL_LAYOUT_I420, 8);
    check(3840, 2160, PSNRHVS_PIXEL_LAYOUT_I420, 10);
    check(7680, 4320, PSNRHVS_PIXEL_LAYOUT_I444, 12);  /* 43318336 terms: > 2^24, exact */
    check(28680, 28680, PSNRHVS_PIXEL_LAYOUT_I420, 8); /* first square size with an inexact count */
    check(65536, 65536, PSNRHVS_PIXEL_LAYOUT_I422, 12); /* past libvmaf's int */
    printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
