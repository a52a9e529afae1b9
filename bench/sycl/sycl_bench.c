/*
 * SYCL backend benchmark and parity check on generated frames (run by
 * bench/sycl_gpu.sh), in one process beside the CPU and CUDA backends:
 *   parity W H BITS FRAMES     cpu vs sycl (native and integer-helper
 *                              kernels) vs cuda where it opens: every raw
 *                              score and dB value bit for bit
 *   speed W H BITS FRAMES [CPU_THREADS]
 *                              sycl: kernels with the frame resident (wall
 *                              time per frame over FRAMES runs), per-kernel
 *                              device times (profiling queues), end-to-end
 *                              fps through psnrhvs_send/receive; the same
 *                              end-to-end fps for cuda and the CPU
 *   gen W H BITS FRAMES REF DIST   raw 4:2:0 files of the same frames
 * Frames: 8 distinct generated pairs (tests/common), cycled. The SYCL device
 * is PSNRHVS_SYCL_DEVICE (default 0: a GPU where there is one). Every result
 * line starts with RESULT; exit 1 on any difference.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "test_hooks.h"

#define NFRAMES 8

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void logger(void *cookie, const char *msg) {
    printf("%s%s\n", cookie ? (const char *)cookie : "", msg);
}

typedef struct Frames {
    FrameLayout l;
    unsigned char *ref[NFRAMES], *dist[NFRAMES];
    char tag[64];
} Frames;

static void frames_make(Frames *fr, int w, int h, int bd) {
    frame_layout(&fr->l, w, h, bd, PSNRHVS_PIXEL_LAYOUT_I420);
    for (int f = 0; f < NFRAMES; f++) {
        fr->ref[f] = malloc(fr->l.frame_bytes);
        fr->dist[f] = malloc(fr->l.frame_bytes);
        if (!fr->ref[f] || !fr->dist[f]) exit(1);
        uint32_t x = (uint32_t)(f + 11) * 2654435761u + 1; /* cuda_bench's frames */
        frame_generate(&fr->l, f, &x, fr->ref[f], fr->dist[f]);
    }
    snprintf(fr->tag, sizeof(fr->tag), "%dx%d %d-bit 4:2:0", w, h, bd);
}

static PsnrHvsSettings settings(const Frames *fr, enum PsnrHvsBackend b) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = fr->l.w[0], s.height = fr->l.h[0], s.bitdepth = fr->l.bitdepth;
    s.backend = b;
    s.module_dir = PSNRHVS_BENCH_MODULE_DIR; /* the static core: the build tree's modules */
    s.logger.callback = logger;
    s.logger.cookie = (void *)"  library: ";
    if (b == PSNRHVS_BACKEND_SYCL && getenv("PSNRHVS_SYCL_DEVICE"))
        s.device = atoi(getenv("PSNRHVS_SYCL_DEVICE"));
    return s;
}

/* Scores frames 0..n-1 (cycling the set) with frames in flight; out gets
 * the first NFRAMES scores. Returns fps, or -1. */
static double run(PsnrHvsContext *c, const Frames *fr, int n, PsnrHvsScore *out) {
    int sent = 0, got = 0;
    const double t0 = now();
    while (got < n) {
        while (sent < n) {
            const PsnrHvsPicture r = frame_picture(&fr->l, fr->ref[sent % NFRAMES], 0);
            const PsnrHvsPicture d = frame_picture(&fr->l, fr->dist[sent % NFRAMES], 0);
            const int err = psnrhvs_send(c, &r, &d, (uint64_t)sent);
            if (err == PSNRHVS_ERR(EAGAIN)) break;
            if (err) return -1;
            sent++;
        }
        PsnrHvsScore sc;
        if (psnrhvs_receive(c, &sc) || sc.tag != (uint64_t)got) return -1;
        if (out && got < NFRAMES) out[got] = sc;
        got++;
    }
    return n / (now() - t0);
}

static const char *name_of(enum PsnrHvsBackend b) {
    return b == PSNRHVS_BACKEND_CPU ? "cpu" : b == PSNRHVS_BACKEND_CUDA ? "cuda" : "sycl";
}

static int parity(const Frames *fr, int n) {
    PsnrHvsScore want[NFRAMES], got[NFRAMES];
    PsnrHvsSettings s = settings(fr, PSNRHVS_BACKEND_CPU);
    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s) || run(c, fr, NFRAMES, want) < 0) return 1;
    psnrhvs_close(&c);
    static const struct {
        enum PsnrHvsBackend b;
        int exact, required;
        const char *label;
    } cfg[] = {
        {PSNRHVS_BACKEND_SYCL, 0, 1, "sycl"},
        {PSNRHVS_BACKEND_SYCL, 1, 1, "sycl:exact_helpers=1"},
        {PSNRHVS_BACKEND_CUDA, 0, 0, "cuda"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
        s = settings(fr, cfg[i].b);
        s.exact_helpers = cfg[i].exact;
        if (psnrhvs_open(&c, &s)) {
            printf("RESULT %s parity cpu vs %s: %s\n", fr->tag, cfg[i].label,
                   cfg[i].required ? "FAILED TO OPEN" : "not available");
            bad += cfg[i].required;
            continue;
        }
        const double fps = run(c, fr, n, got);
        psnrhvs_close(&c);
        int differ = fps < 0;
        for (int f = 0; f < NFRAMES && f < n && !differ; f++)
            if (!scores_same_bits(&got[f], &want[f])) {
                printf("  frame %d: %s %a %a %a, cpu %a %a %a\n", f, cfg[i].label,
                       (double)got[f].raw[0], (double)got[f].raw[1], (double)got[f].raw[2],
                       (double)want[f].raw[0], (double)want[f].raw[1], (double)want[f].raw[2]);
                differ++;
            }
        printf("RESULT %s parity cpu vs %s: %d frames (%d distinct), %s\n", fr->tag, cfg[i].label,
               n, n < NFRAMES ? n : NFRAMES, differ ? "DIFFER" : "identical");
        bad += differ != 0;
    }
    return bad != 0;
}

static double lib_fps(const Frames *fr, enum PsnrHvsBackend b, int threads, int n,
                      PsnrHvsScore *scores, double *open_ms) {
    PsnrHvsSettings s = settings(fr, b);
    s.threads = threads;
    PsnrHvsContext *c;
    const double t0 = now();
    if (psnrhvs_open(&c, &s)) return -1;
    PsnrHvsScore sc;
    const PsnrHvsPicture r = frame_picture(&fr->l, fr->ref[0], 0);
    const PsnrHvsPicture d = frame_picture(&fr->l, fr->dist[0], 0);
    if (psnrhvs_score(c, &r, &d, &sc)) return -1;
    *open_ms = (now() - t0) * 1e3;
    const double fps = run(c, fr, n, scores);
    psnrhvs_close(&c);
    return fps;
}

static int speed(const Frames *fr, int n, int cpu_threads) {
    PsnrHvsSettings s = settings(fr, PSNRHVS_BACKEND_SYCL);
    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s)) return 1;
    char devices[4096] = "";
    psnrhvs_list_devices(PSNRHVS_BACKEND_SYCL, 0, devices, sizeof(devices));
    printf("sycl devices:\n%ssycl device used: %d\n", devices, s.device);
    PsnrHvsScore sc;
    const PsnrHvsPicture r = frame_picture(&fr->l, fr->ref[0], 0);
    const PsnrHvsPicture d = frame_picture(&fr->l, fr->dist[0], 0);
    if (psnrhvs_score(c, &r, &d, &sc)) return 1;
    const double resident = psh_test_sycl_resident_ms(c, n);
    psnrhvs_close(&c);
    printf("RESULT %s sycl resident kernels: %.4f ms/frame (%d runs, wall time, 1 queue)\n",
           fr->tag, resident, n);

    /* Per-kernel device times: profiling queues, logged at close. */
    psh_test_set_profile(PSNRHVS_BACKEND_SYCL, 1);
    if (!psnrhvs_open(&c, &s)) {
        if (run(c, fr, n / 4 > 8 ? n / 4 : 8, NULL) < 0)
            printf("RESULT %s sycl profile: FAILED\n", fr->tag);
        psnrhvs_close(&c);
    }
    psh_test_set_profile(PSNRHVS_BACKEND_SYCL, 0);

    PsnrHvsScore ss[NFRAMES], cs[NFRAMES], gs[NFRAMES];
    double open_ms[3];
    const double sfps = lib_fps(fr, PSNRHVS_BACKEND_SYCL, 0, n, ss, &open_ms[0]);
    const double gfps = lib_fps(fr, PSNRHVS_BACKEND_CUDA, 0, n, gs, &open_ms[1]);
    const int cn = n / 8 > NFRAMES ? n / 8 : NFRAMES;
    const double cfps = lib_fps(fr, PSNRHVS_BACKEND_CPU, cpu_threads, cn, cs, &open_ms[2]);
    int same = sfps > 0 && cfps > 0;
    for (int f = 0; f < NFRAMES && same; f++) same = scores_same_bits(&ss[f], &cs[f]);
    if (gfps > 0)
        for (int f = 0; f < NFRAMES && same; f++) same = scores_same_bits(&gs[f], &cs[f]);
    const enum PsnrHvsBackend bs[3] = {PSNRHVS_BACKEND_SYCL, PSNRHVS_BACKEND_CUDA,
                                       PSNRHVS_BACKEND_CPU};
    const double fps[3] = {sfps, gfps, cfps};
    for (int i = 0; i < 3; i++)
        if (fps[i] > 0)
            printf("RESULT %s library %s%s: %.1f fps (%.3f ms/frame; open + first frame %.1f ms)\n",
                   fr->tag, name_of(bs[i]), i == 2 ? " (threads as given)" : "", fps[i],
                   1e3 / fps[i], open_ms[i]);
        else
            printf("RESULT %s library %s: not available\n", fr->tag, name_of(bs[i]));
    printf("RESULT %s raw scores identical (sycl, cuda, cpu) on %d frames: %s\n", fr->tag, NFRAMES,
           same ? "yes" : "NO");
    printf("SUMMARY | %s | sycl resident %.4f ms | sycl %.1f fps | cuda %.1f fps | sycl/cuda %.2f "
           "| cpu(%d threads) %.1f fps |\n",
           fr->tag, resident, sfps, gfps, gfps > 0 ? sfps / gfps : 0.0, cpu_threads, cfps);
    return same ? 0 : 1;
}

static int gen(const Frames *fr, int n, const char *rp, const char *dp) {
    FILE *fref = fopen(rp, "wb"), *fdist = fopen(dp, "wb");
    if (!fref || !fdist) return 1;
    for (int f = 0; f < n; f++)
        if (fwrite(fr->ref[f % NFRAMES], 1, fr->l.frame_bytes, fref) != fr->l.frame_bytes ||
            fwrite(fr->dist[f % NFRAMES], 1, fr->l.frame_bytes, fdist) != fr->l.frame_bytes)
            return 1;
    return fclose(fref) | fclose(fdist);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr,
                "usage: %s parity|speed W H BITS FRAMES [CPU_THREADS]\n"
                "       %s gen W H BITS FRAMES REF.yuv DIST.yuv\n",
                argv[0], argv[0]);
        return 2;
    }
    Frames fr;
    const int n = atoi(argv[5]);
    frames_make(&fr, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    if (!strcmp(argv[1], "parity")) return parity(&fr, n);
    if (!strcmp(argv[1], "speed")) return speed(&fr, n, argc > 6 ? atoi(argv[6]) : 16);
    if (!strcmp(argv[1], "gen") && argc > 7) return gen(&fr, n, argv[6], argv[7]);
    return 2;
}
