/*
 * OpenCL backend bench, driven by bench/gpu.sh:
 *   gpu_opencl parity W H BITDEPTH FRAMES   CPU (16 threads) vs OpenCL, both
 *                                           helper paths, raw scores memcmp
 *   gpu_opencl speed W H BITDEPTH FRAMES    ms/frame of the CPU backend with
 *                                           16 threads and of OpenCL (frames
 *                                           in flight, and one at a time), in
 *                                           the same run, on the same pictures
 * PSNRHVS_OPENCL_DEVICE picks the OpenCL device (default 0).
 * Pictures are generated 4:2:0 content (texture, gradients, flat areas, noise
 * of varying strength); DISTINCT of them are cycled.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psnrhvs.h"

#define DISTINCT 4

static uint32_t rng = 2463534242u;

static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

typedef struct Pair {
    void *planes[2][3];
    PsnrHvsPicture pic[2];
} Pair;

static void make_pair(Pair *const pr, const int w, const int h, const int bitdepth, const int f) {
    const int bps = bitdepth > 8 ? 2 : 1, max = (1 << bitdepth) - 1;
    const int pw[3] = {w, (w + 1) / 2, (w + 1) / 2}, ph[3] = {h, (h + 1) / 2, (h + 1) / 2};
    for (int p = 0; p < 3; p++) {
        for (int r = 0; r < 2; r++) {
            pr->planes[r][p] = malloc((size_t)pw[p] * ph[p] * bps);
            pr->pic[r].data[p] = pr->planes[r][p];
            pr->pic[r].stride[p] = (ptrdiff_t)pw[p] * bps;
        }
        for (int y = 0; y < ph[p]; y++)
            for (int x = 0; x < pw[p]; x++) {
                int v = (x + 2 * y + 37 * f) * max / (pw[p] + 2 * ph[p]) / 2;
                if (((x >> 5) + (y >> 5) + f) & 1) v += (int)(rnd() % (max / 4 + 1));
                if (y > ph[p] / 2 && x < pw[p] / 3) v = max / 3;
                v = v > max ? max : v;
                const int s = 1 + (int)((long)(f + 1) * (x ^ y) % (max / 16 + 2));
                int d = v + (int)(rnd() % (2 * s + 1)) - s;
                d = d < 0 ? 0 : d > max ? max : d;
                const size_t i = (size_t)y * pw[p] + x;
                if (bps == 1) {
                    ((uint8_t *)pr->planes[0][p])[i] = (uint8_t)v;
                    ((uint8_t *)pr->planes[1][p])[i] = (uint8_t)d;
                } else {
                    ((uint16_t *)pr->planes[0][p])[i] = (uint16_t)v;
                    ((uint16_t *)pr->planes[1][p])[i] = (uint16_t)d;
                }
            }
    }
}

static PsnrHvsContext *open_backend(const int w, const int h, const int bitdepth,
                                    const enum PsnrHvsBackend b, const int exact) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = w;
    s.height = h;
    s.bitdepth = bitdepth;
    s.backend = b;
    s.threads = 16;
    s.exact_helpers = exact;
    if (b == PSNRHVS_BACKEND_OPENCL && getenv("PSNRHVS_OPENCL_DEVICE"))
        s.device = atoi(getenv("PSNRHVS_OPENCL_DEVICE"));
    PsnrHvsContext *c;
    return psnrhvs_open(&c, &s) ? NULL : c;
}

/* Scores frames pictures (cycling pairs) keeping the queue full; returns ms. */
static double run(PsnrHvsContext *const c, const Pair *const pairs, const int frames,
                  const int in_flight, float (*raw)[3]) {
    const double t0 = now_ms();
    int sent = 0, got = 0;
    while (got < frames) {
        if (sent < frames && (in_flight || sent == got)) {
            const Pair *const pr = &pairs[sent % DISTINCT];
            if (!psnrhvs_send(c, &pr->pic[0], &pr->pic[1], (uint64_t)sent)) {
                sent++;
                continue;
            }
        }
        PsnrHvsScore sc;
        if (psnrhvs_receive(c, &sc)) {
            fprintf(stderr, "receive failed\n");
            exit(1);
        }
        if (raw) memcpy(raw[got], sc.raw, sizeof(sc.raw));
        got++;
    }
    return now_ms() - t0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s parity|speed W H BITDEPTH FRAMES\n", argv[0]);
        return 2;
    }
    const int w = atoi(argv[2]), h = atoi(argv[3]), bitdepth = atoi(argv[4]);
    const int frames = atoi(argv[5]);
    Pair pairs[DISTINCT];
    for (int f = 0; f < DISTINCT; f++) make_pair(&pairs[f], w, h, bitdepth, f);
    PsnrHvsContext *cpu = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_CPU, 0);
    PsnrHvsContext *native = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_OPENCL, 0);
    PsnrHvsContext *exact = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_OPENCL, 1);
    if (!cpu || !native || !exact) return 1;
    float(*want)[3] = calloc((size_t)frames, sizeof(*want));
    float(*got)[3] = calloc((size_t)frames, sizeof(*got));
    int ret = 0;

    if (!strcmp(argv[1], "parity")) {
        run(cpu, pairs, frames, 0, want);
        PsnrHvsContext *const devs[2] = {native, exact};
        for (int e = 0; e < 2; e++) {
            run(devs[e], pairs, frames, 1, got);
            const int same = !memcmp(want, got, (size_t)frames * sizeof(*want));
            printf("parity %dx%d %d-bit %d frames, opencl %s vs cpu: %s (frame 0 Y %a)\n", w, h,
                   bitdepth, frames, e ? "exact-helpers" : "native",
                   same ? "same bits" : "MISMATCH", (double)got[0][0]);
            ret |= !same;
        }
    } else {
        /* warm up (kernel build, first touches), then time */
        run(cpu, pairs, 2, 0, NULL);
        run(native, pairs, 4, 1, NULL);
        const double t_cpu = run(cpu, pairs, frames, 0, want);
        const double t_fly = run(native, pairs, frames, 1, got);
        const double t_one = run(native, pairs, frames, 0, NULL);
        const int same = !memcmp(want, got, (size_t)frames * sizeof(*want));
        printf("speed %dx%d %d-bit 4:2:0, %d frames: cpu (16 threads) %.3f ms/frame, "
               "opencl in flight %.3f ms/frame, opencl one at a time %.3f ms/frame; "
               "cpu/opencl %.2fx; bits %s\n",
               w, h, bitdepth, frames, t_cpu / frames, t_fly / frames, t_one / frames,
               t_cpu / t_fly, same ? "same" : "MISMATCH");
        ret |= !same;
    }
    psnrhvs_close(&cpu);
    psnrhvs_close(&native);
    psnrhvs_close(&exact);
    return ret;
}
