/*
 * Vulkan backend bench (built with the backend, run by bench/vulkan_gpu.sh):
 *   vulkan_bench parity W H BITDEPTH FRAMES   CPU vs Vulkan, raw scores and dB
 *                                             values memcmp
 *   vulkan_bench speed W H BITDEPTH FRAMES    frames/s through the library of
 *                                             Vulkan (frames in flight, and one
 *                                             at a time), CUDA (where built and
 *                                             a GPU opens) and the CPU backend,
 *                                             in the same run, on the same
 *                                             pictures, every score compared
 *   vulkan_bench profile W H BITDEPTH FRAMES  per-stage device times of Vulkan
 *                                             (timestamps, a test hook), logged
 *                                             at close
 * PSNRHVS_VULKAN_DEVICE picks the Vulkan device (default 0, the first GPU);
 * PSNRHVS_BENCH_THREADS the CPU backend's threads (default 16).
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
                                    const enum PsnrHvsBackend b, double *const open_ms) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = w;
    s.height = h;
    s.bitdepth = bitdepth;
    s.backend = b;
    s.threads = getenv("PSNRHVS_BENCH_THREADS") ? atoi(getenv("PSNRHVS_BENCH_THREADS")) : 16;
    if (b == PSNRHVS_BACKEND_VULKAN && getenv("PSNRHVS_VULKAN_DEVICE"))
        s.device = atoi(getenv("PSNRHVS_VULKAN_DEVICE"));
    PsnrHvsContext *c;
    const double t0 = now_ms();
    const int err = psnrhvs_open(&c, &s);
    if (open_ms) *open_ms = now_ms() - t0;
    return err ? NULL : c;
}

/* Scores frames pictures (cycling pairs), keeping the queue full or one at a
 * time; returns ms. */
static double run(PsnrHvsContext *const c, const Pairs *const pairs, const int frames,
                  const int in_flight, PsnrHvsScore *const out) {
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
        if (out) out[got] = sc;
        got++;
    }
    return now_ms() - t0;
}

static int same(const PsnrHvsScore *a, const PsnrHvsScore *b, const int n) {
    for (int f = 0; f < n; f++)
        if (!scores_same_bits(&a[f], &b[f])) return 0;
    return 1;
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
    double vk_open_ms = 0, cuda_open_ms = 0;
    psh_test_set_profile(PSNRHVS_BACKEND_VULKAN, !strcmp(argv[1], "profile"));
    PsnrHvsContext *cpu = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_CPU, NULL);
    PsnrHvsContext *vk = open_backend(w, h, bitdepth, PSNRHVS_BACKEND_VULKAN, &vk_open_ms);
    if (!cpu || !vk) return 1;
    PsnrHvsScore *want = calloc((size_t)frames, sizeof(*want));
    PsnrHvsScore *got = calloc((size_t)frames, sizeof(*got));
    PsnrHvsScore *other = calloc((size_t)frames, sizeof(*other));
    if (!want || !got || !other) return 1;
    int ret = 0;

    if (!strcmp(argv[1], "profile")) {
        run(vk, &pairs, 4, 1, NULL);
        const double t = run(vk, &pairs, frames, 1, NULL);
        printf("profile %dx%d %d-bit: %.1f fps with the timestamps on (the stages' times are "
               "logged at close, over warm-up frames too)\n",
               w, h, bitdepth, frames * 1e3 / t);
    } else if (!strcmp(argv[1], "parity")) {
        run(cpu, &pairs, frames, 0, want);
        run(vk, &pairs, frames, 1, got);
        const int ok = same(want, got, frames);
        printf("parity %dx%d %d-bit %d frames, vulkan vs cpu: %s (frame 0 Y %a, psnr_hvs %.17g)\n",
               w, h, bitdepth, frames, ok ? "same bits" : "MISMATCH", (double)got[0].raw[0],
               got[0].psnr_hvs);
        ret |= !ok;
    } else {
        PsnrHvsContext *cuda =
            psnrhvs_backend_available(PSNRHVS_BACKEND_CUDA)
                ? open_backend(w, h, bitdepth, PSNRHVS_BACKEND_CUDA, &cuda_open_ms)
                : NULL;
        /* warm up (first touches, clocks), then time */
        run(cpu, &pairs, 2, 0, NULL);
        run(vk, &pairs, 8, 1, NULL);
        if (cuda) run(cuda, &pairs, 8, 1, NULL);
        const double t_cpu = run(cpu, &pairs, frames, 1, want);
        const double t_fly = run(vk, &pairs, frames, 1, got);
        const double t_one = run(vk, &pairs, frames, 0, NULL);
        const int ok = same(want, got, frames);
        ret |= !ok;
        printf("RESULT speed %dx%d %d-bit 4:2:0, %d frames: vulkan in flight %.1f fps (%.3f "
               "ms/frame), vulkan one at a time %.1f fps, cpu %.1f fps; vulkan open %.0f ms; "
               "vulkan/cpu %.2fx; bits %s\n",
               w, h, bitdepth, frames, frames * 1e3 / t_fly, t_fly / frames, frames * 1e3 / t_one,
               frames * 1e3 / t_cpu, vk_open_ms, t_cpu / t_fly, ok ? "same" : "MISMATCH");
        if (cuda) {
            const double t_cuda = run(cuda, &pairs, frames, 1, other);
            /* again, after CUDA, for the order's sake */
            const double t_fly2 = run(vk, &pairs, frames, 1, NULL);
            const int ok2 = same(want, other, frames);
            ret |= !ok2;
            printf("RESULT speed %dx%d %d-bit: cuda in flight %.1f fps (%.3f ms/frame), vulkan "
                   "in flight again %.1f fps; vulkan/cuda throughput %.2f (cuda open %.0f ms); "
                   "cuda bits %s\n",
                   w, h, bitdepth, frames * 1e3 / t_cuda, t_cuda / frames, frames * 1e3 / t_fly2,
                   t_cuda / (t_fly < t_fly2 ? t_fly : t_fly2), cuda_open_ms,
                   ok2 ? "same" : "MISMATCH");
            psnrhvs_close(&cuda);
        } else {
            printf("RESULT speed: no CUDA backend or device here, vulkan alone\n");
        }
    }
    psnrhvs_close(&cpu);
    psnrhvs_close(&vk);
    free(pairs.ref);
    free(pairs.dist);
    free(want);
    free(got);
    free(other);
    return ret;
}
