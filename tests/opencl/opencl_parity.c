/*
 * CPU vs OpenCL parity on generated pictures: raw plane scores compared with
 * memcmp over geometries, layouts, bit depths, both threshold products, luma
 * only, padded strides, identical frames and several frames in flight.
 * usage: opencl_parity <exact_helpers 0|1>
 * Exits 77 (skip) when no OpenCL device is present. PSNRHVS_OPENCL_DEVICE
 * picks the device (default 0).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

typedef struct Case {
    int w, h, bitdepth;
    enum PsnrHvsPixelLayout layout;
    int chroma, mask_product, frames, frames_in_flight, pad;
} Case;

static uint32_t rng = 12345;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* A plane of content: gradient, texture and flat areas; dist adds noise of a
 * strength that changes across the frame (so terms vary widely in size),
 * and frame 0 of each case is scored against itself (all terms zero). */
static void fill(uint8_t *ref, uint8_t *dist, const int w, const int h, const ptrdiff_t stride,
                 const int bitdepth, const int frame) {
    const int max = (1 << bitdepth) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v = (x * max) / (w + 1) / 2 + ((x / 16 + y / 16) & 1 ? (int)(rnd() % 64) : 0);
            if (y > h / 2 && x < w / 3) v = max / 3; /* flat */
            v = v > max ? max : v;
            int n = frame ? (int)(rnd() % (1 + (frame * 7 * (x + y)) / (w + h))) : 0;
            if (rnd() % 97 == 0 && frame) n = (int)(rnd() % (max + 1)) - v; /* outliers */
            int d = v + (rnd() & 1 ? n : -n);
            d = d < 0 ? 0 : d > max ? max : d;
            if (bitdepth == 8) {
                ref[y * stride + x] = (uint8_t)v;
                dist[y * stride + x] = (uint8_t)d;
            } else {
                ((uint16_t *)(ref + y * stride))[x] = (uint16_t)v;
                ((uint16_t *)(dist + y * stride))[x] = (uint16_t)d;
            }
        }
}

static int run_case(const Case *const t, const int exact) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = t->w;
    s.height = t->h;
    s.bitdepth = t->bitdepth;
    s.layout = t->layout;
    s.enable_chroma = t->chroma;
    s.mask_product = t->mask_product ? PSNRHVS_MASK_PRODUCT_EXACT : PSNRHVS_MASK_PRODUCT_FLOAT;
    PsnrHvsContext *cpu, *dev;
    if (psnrhvs_open(&cpu, &s)) return 1;
    s.backend = PSNRHVS_BACKEND_OPENCL;
    s.exact_helpers = exact;
    s.frames_in_flight = t->frames_in_flight;
    if (getenv("PSNRHVS_OPENCL_DEVICE")) s.device = atoi(getenv("PSNRHVS_OPENCL_DEVICE"));
    const int err = psnrhvs_open(&dev, &s);
    if (err == PSNRHVS_ERR(ENODEV) && !getenv("PSNRHVS_OPENCL_DEVICE")) {
        psnrhvs_close(&cpu);
        return 77;
    }
    if (err) return 1;

    const int bps = t->bitdepth > 8 ? 2 : 1;
    const int cw = t->layout == PSNRHVS_PIXEL_LAYOUT_I444 ? t->w : (t->w + 1) / 2;
    const int ch = t->layout == PSNRHVS_PIXEL_LAYOUT_I420 ? (t->h + 1) / 2 : t->h;
    const int pw[3] = {t->w, cw, cw}, ph[3] = {t->h, ch, ch};
    uint8_t *planes[64][2][3] = {{{0}}};
    PsnrHvsPicture pics[64][2];
    float want[64][3];
    int failures = 0;
    for (int f = 0; f < t->frames; f++) {
        for (int p = 0; p < 3; p++) {
            const ptrdiff_t stride = (ptrdiff_t)(pw[p] + t->pad) * bps;
            for (int r = 0; r < 2; r++) {
                planes[f][r][p] = calloc((size_t)stride * ph[p], 1);
                pics[f][r].data[p] = planes[f][r][p];
                pics[f][r].stride[p] = stride;
            }
            fill(planes[f][0][p], planes[f][1][p], pw[p], ph[p], stride, t->bitdepth, f);
        }
        PsnrHvsScore sc;
        if (psnrhvs_score(cpu, &pics[f][0], &pics[f][1], &sc)) return 1;
        memcpy(want[f], sc.raw, sizeof(want[f]));
    }
    /* Fill the device queue, then drain it as frames come back. */
    int sent = 0, got = 0;
    while (got < t->frames) {
        if (sent < t->frames) {
            const int r = psnrhvs_send(dev, &pics[sent][0], &pics[sent][1], (uint64_t)sent);
            if (!r) {
                sent++;
                continue;
            }
            if (r != PSNRHVS_ERR(EAGAIN)) return 1;
            if (sent - got != (t->frames_in_flight ? t->frames_in_flight : sent - got)) {
                printf("EAGAIN with %d frames queued\n", sent - got);
                failures++;
            }
        }
        PsnrHvsScore sc;
        if (psnrhvs_receive(dev, &sc) || sc.tag != (uint64_t)got) return 1;
        const int planes_scored = sc.num_planes;
        if (memcmp(sc.raw, want[got], planes_scored * sizeof(float))) {
            printf("%dx%d %d-bit layout %d frame %d: opencl %a %a %a, cpu %a %a %a\n", t->w, t->h,
                   t->bitdepth, (int)t->layout, got, (double)sc.raw[0], (double)sc.raw[1],
                   (double)sc.raw[2], (double)want[got][0], (double)want[got][1],
                   (double)want[got][2]);
            failures++;
        }
        got++;
    }
    psnrhvs_close(&dev);
    psnrhvs_close(&cpu);
    for (int f = 0; f < t->frames; f++)
        for (int r = 0; r < 2; r++)
            for (int p = 0; p < 3; p++) free(planes[f][r][p]);
    printf("%5dx%-5d %2d-bit layout %d chroma %d product %d, %d frames (%d in flight): %s\n", t->w,
           t->h, t->bitdepth, (int)t->layout, t->chroma, t->mask_product, t->frames,
           t->frames_in_flight, failures ? "MISMATCH" : "same bits");
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s exact_helpers\n", argv[0]);
        return 2;
    }
    const int exact = atoi(argv[1]);
    const Case cases[] = {
        {64, 64, 8, PSNRHVS_PIXEL_LAYOUT_I420, 1, 0, 3, 1, 0},
        {333, 217, 10, PSNRHVS_PIXEL_LAYOUT_I422, 1, 0, 4, 2, 5},
        {200, 120, 12, PSNRHVS_PIXEL_LAYOUT_I444, 1, 1, 3, 3, 0},
        {1000, 562, 8, PSNRHVS_PIXEL_LAYOUT_I400, 1, 0, 3, 0, 3},
        {731, 409, 10, PSNRHVS_PIXEL_LAYOUT_I420, 0, 1, 2, 2, 0},
        {1920, 1080, 8, PSNRHVS_PIXEL_LAYOUT_I420, 1, 0, 2, 2, 0},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const int r = run_case(&cases[i], exact);
        if (r == 77) {
            printf("SKIP: no OpenCL device\n");
            return 77;
        }
        failures += r != 0;
    }
    return failures != 0;
}
