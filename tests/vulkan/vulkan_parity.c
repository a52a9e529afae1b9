/*
 * CPU vs Vulkan parity on generated pictures: every raw plane score (all
 * three, unused ones included), the plane count and every dB value compared
 * bit for bit over geometries, layouts, bit depths, both threshold products,
 * luma only, padded strides, identical frames and several frames in flight
 * (the backend's default depth included, whose EAGAIN point is checked). The
 * CPU's scores come first, from a scalar single-thread context scoring each
 * frame synchronously, before the device context exists.
 * usage: vulkan_parity (the Vulkan kernels always use the integer division
 * and root: settings.exact_helpers changes nothing there)
 * Exits 77 (skip) when no Vulkan device is present. PSNRHVS_VULKAN_DEVICE
 * picks the device (default 0).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "parity_content.h"

typedef struct Case {
    int w, h, bitdepth;
    enum PsnrHvsPixelLayout layout;
    int chroma, mask_product, frames, frames_in_flight, pad;
} Case;

/* Vulkan's queue depth for frames_in_flight = 0 (psnrhvs.h). */
#define VULKAN_DEFAULT_IN_FLIGHT 3

static int run_case(const Case *const t) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = t->w;
    s.height = t->h;
    s.bitdepth = t->bitdepth;
    s.layout = t->layout;
    s.enable_chroma = t->chroma;
    s.mask_product = t->mask_product ? PSNRHVS_MASK_PRODUCT_EXACT : PSNRHVS_MASK_PRODUCT_FLOAT;
    s.isa = PSNRHVS_ISA_SCALAR;
    s.threads = 1;
    PsnrHvsContext *cpu, *dev;
    if (psnrhvs_open(&cpu, &s)) return 1;

    const int bps = t->bitdepth > 8 ? 2 : 1;
    const int cw = t->layout == PSNRHVS_PIXEL_LAYOUT_I444 ? t->w : (t->w + 1) / 2;
    const int ch = t->layout == PSNRHVS_PIXEL_LAYOUT_I420 ? (t->h + 1) / 2 : t->h;
    const int pw[3] = {t->w, cw, cw}, ph[3] = {t->h, ch, ch};
    uint8_t *planes[64][2][3] = {{{0}}};
    PsnrHvsPicture pics[64][2];
    PsnrHvsScore want[64];
    int failures = 0;
    for (int f = 0; f < t->frames; f++) {
        for (int p = 0; p < 3; p++) {
            const ptrdiff_t stride = (ptrdiff_t)(pw[p] + t->pad) * bps;
            for (int r = 0; r < 2; r++) {
                planes[f][r][p] = calloc((size_t)stride * ph[p], 1);
                pics[f][r].data[p] = planes[f][r][p];
                pics[f][r].stride[p] = stride;
            }
            psnrhvs_parity_fill(planes[f][0][p], planes[f][1][p], pw[p], ph[p], stride, t->bitdepth,
                                f);
        }
        if (psnrhvs_score(cpu, &pics[f][0], &pics[f][1], &want[f])) return 1;
    }
    psnrhvs_close(&cpu);

    s.backend = PSNRHVS_BACKEND_VULKAN;
    s.isa = PSNRHVS_ISA_AUTO;
    s.threads = 0;
    s.frames_in_flight = t->frames_in_flight;
    if (getenv("PSNRHVS_VULKAN_DEVICE")) s.device = atoi(getenv("PSNRHVS_VULKAN_DEVICE"));
    const int err = psnrhvs_open(&dev, &s);
    if (err == PSNRHVS_ERR(ENODEV) && !getenv("PSNRHVS_VULKAN_DEVICE")) return 77;
    if (err) return 1;
    /* Fill the device queue, then drain it as frames come back: EAGAIN must
     * come exactly at the depth asked for, or at the default depth for 0. */
    const int depth = t->frames_in_flight ? t->frames_in_flight : VULKAN_DEFAULT_IN_FLIGHT;
    int sent = 0, got = 0, full = 0;
    while (got < t->frames) {
        if (sent < t->frames) {
            const int r = psnrhvs_send(dev, &pics[sent][0], &pics[sent][1], (uint64_t)sent);
            if (!r) {
                sent++;
                if (sent - got > depth) {
                    printf("%d frames queued, the depth is %d\n", sent - got, depth);
                    failures++;
                }
                continue;
            }
            if (r != PSNRHVS_ERR(EAGAIN)) return 1;
            full++;
            if (sent - got != depth) {
                printf("EAGAIN with %d frames queued, the depth is %d\n", sent - got, depth);
                failures++;
            }
        }
        PsnrHvsScore sc;
        if (psnrhvs_receive(dev, &sc) || sc.tag != (uint64_t)got) return 1;
        if (sc.num_planes != want[got].num_planes || !scores_same_bits(&sc, &want[got])) {
            printf("%dx%d %d-bit layout %d frame %d: vulkan %d planes %a %a %a (%.17g %.17g %.17g "
                   "%.17g), cpu %d planes %a %a %a (%.17g %.17g %.17g %.17g)\n",
                   t->w, t->h, t->bitdepth, (int)t->layout, got, sc.num_planes, (double)sc.raw[0],
                   (double)sc.raw[1], (double)sc.raw[2], sc.psnr_hvs_y, sc.psnr_hvs_cb,
                   sc.psnr_hvs_cr, sc.psnr_hvs, want[got].num_planes, (double)want[got].raw[0],
                   (double)want[got].raw[1], (double)want[got].raw[2], want[got].psnr_hvs_y,
                   want[got].psnr_hvs_cb, want[got].psnr_hvs_cr, want[got].psnr_hvs);
            failures++;
        }
        got++;
    }
    if (t->frames > depth && !full) {
        printf("%d frames sent at depth %d and never EAGAIN\n", t->frames, depth);
        failures++;
    }
    psnrhvs_close(&dev);
    for (int f = 0; f < t->frames; f++)
        for (int r = 0; r < 2; r++)
            for (int p = 0; p < 3; p++) free(planes[f][r][p]);
    printf("%5dx%-5d %2d-bit layout %d chroma %d product %d, %d frames (%d in flight): %s\n", t->w,
           t->h, t->bitdepth, (int)t->layout, t->chroma, t->mask_product, t->frames,
           t->frames_in_flight, failures ? "MISMATCH" : "same bits");
    return failures != 0;
}

int main(void) {
    const Case cases[] = {
        {64, 64, 8, PSNRHVS_PIXEL_LAYOUT_I420, 1, 0, 3, 1, 0},
        {333, 217, 10, PSNRHVS_PIXEL_LAYOUT_I422, 1, 0, 4, 2, 5},
        {200, 120, 12, PSNRHVS_PIXEL_LAYOUT_I444, 1, 1, 3, 3, 0},
        {1000, 562, 8, PSNRHVS_PIXEL_LAYOUT_I400, 1, 0, 5, 0, 3},
        {176, 144, 10, PSNRHVS_PIXEL_LAYOUT_I420, 1, 1, 6, 0, 0},
        {731, 409, 10, PSNRHVS_PIXEL_LAYOUT_I420, 0, 1, 2, 2, 0},
        {1920, 1080, 8, PSNRHVS_PIXEL_LAYOUT_I420, 1, 0, 2, 2, 0},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const int r = run_case(&cases[i]);
        if (r == 77) {
            printf("SKIP: no Vulkan device\n");
            return 77;
        }
        failures += r != 0;
    }
    return failures != 0;
}
