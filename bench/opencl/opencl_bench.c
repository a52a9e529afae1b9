/*
 * OpenCL backend bench (built with the backend, run by bench/gpu.sh):
 *   opencl_bench parity W H BITDEPTH FRAMES   CPU (16 threads) vs OpenCL, both
 *                                             helper paths, raw scores memcmp
 *   opencl_bench speed W H BITDEPTH FRAMES    ms/frame of the CPU backend with
 *                                             16 threads and of OpenCL (frames
 *                                             in flight, and one at a time), in
 *                                             the same run, on the same pictures
 *   opencl_bench profile W H BITDEPTH FRAMES  per-stage device times (test hook)
 * PSNRHVS_OPENCL_DEVICE picks the OpenCL device (default 0).
 * Pictures are tests/common's generated 4:2:0 content; DISTINCT are cycled.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "test_hooks.h"

#define DISTINCT 4

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* DISTINCT generated pairs (tests/common, as the CUDA bench uses). */
typedef struct Pairs {
    FrameLayout l;
    unsigned char *ref, *dist;
    PsnrHvsPicture pic[DISTINCT][2];
} Pairs;

static void make_pairs(Pairs *const p, const int w, const int h, const int bitdepth) {
    frame_layout(&p->l, w, h, bitdepth, PSNRHVS_PIXEL_LAYOUT_I420);
    p->ref = malloc(p->l.frame_bytes * DISTINCT);
    p->dist = malloc(p->l.frame_bytes * DISTINCT);
    if (!p->ref || !p->dist) exit(1);
    uint32_t state = 2463534242u;
    for (int f = 0; f < DISTINCT; f++) {
        frame_generate(&p->l, f, &state, p->ref + f * p->l.frame_bytes,
                       p->dist + f * p->l.frame_bytes);
        p->pic[f][0] = frame_picture(&p->l, p->ref, f);
        p->pic[f][1] = frame_picture(&p->l, p->dist, f);
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
static double run(PsnrHvsContext *const c, const Pairs *const pairs, const int frames,
                  const int in_flight, float (*raw)[3]) {
    const double t0 = now_ms();
    int sent = 0, got = 0;
    while (got < frames) {
        if (sent < frames && (in_flight || sent == got)) {
            const PsnrHvsPicture *const pr = pairs->pic[sent % DISTINCT];
            if (!psnrhvs_send(c, &pr[0], &pr[1], (uint64_t)sent)) {
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
        fprintf(stderr, "usage: %s parity|speed|profile W H BITDEPTH FRAMES\n", argv[0]);
        return 2;
    }
    const int w = atoi(argv[2]), h = atoi(argv[3]), bitdepth = atoi(argv[4]);
    const int frames = atoi(argv[5]);
    Pairs pairs;
    make_pairs(&pairs, w, h, bitdepth);
    /* profile: the OpenCL contexts log per-stage device times at close */
    psh_test_set_profile(PSNRHVS_BACKEND_OPENCL, !strcmp(argv[1], "profile"));
    PsnrHvsContext *cpu = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_CPU, 0);
    PsnrHvsContext *native = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_OPENCL, 0);
    PsnrHvsContext *exact = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_OPENCL, 1);
    if (!cpu || !native || !exact) return 1;
    float(*want)[3] = calloc((size_t)frames, sizeof(*want));
    float(*got)[3] = calloc((size_t)frames, sizeof(*got));
    int ret = 0;

    if (!strcmp(argv[1], "parity")) {
        run(cpu, &pairs, frames, 0, want);
        PsnrHvsContext *const devs[2] = {native, exact};
        for (int e = 0; e < 2; e++) {
            run(devs[e], &pairs, frames, 1, got);
            const int same = !memcmp(want, got, (size_t)frames * sizeof(*want));
            printf("parity %dx%d %d-bit %d frames, opencl %s vs cpu: %s (frame 0 Y %a)\n", w, h,
                   bitdepth, frames, e ? "exact-helpers" : "native",
                   same ? "same bits" : "MISMATCH", (double)got[0][0]);
            ret |= !same;
        }
    } else {
        /* warm up (kernel build, first touches), then time */
        run(cpu, &pairs, 2, 0, NULL);
        run(native, &pairs, 4, 1, NULL);
        const double t_cpu = run(cpu, &pairs, frames, 0, want);
        const double t_fly = run(native, &pairs, frames, 1, got);
        const double t_one = run(native, &pairs, frames, 0, NULL);
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
    free(pairs.ref);
    free(pairs.dist);
    free(want);
    free(got);
    return ret;
}
