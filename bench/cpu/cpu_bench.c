/*
 * CPU backend benchmark: ms/frame of the scalar reference against the fast
 * path (best ISA, and AVX2) at 1 thread and at N threads, side by side in
 * one run, on generated 4:2:0 content (smooth structure plus noise; the
 * distorted picture a blurred, noisy copy). "best Nt" scores one frame at a
 * time (psnrhvs_score: no copy), "Nt pipe" keeps 3 frames in flight with
 * psnrhvs_send/receive (each send copies its pictures). "Nt chain" and
 * "Nt engine" score one frame at a time with the plane sums forced to the
 * carried chain or to the exact-sum engine (the test hook, read at open; "best
 * Nt" leaves the choice to the backend), measured alternately, best of 2
 * runs each. Every path's raw plane scores are compared bit for bit with
 * the reference's.
 *
 * usage: cpu_bench [--frames=N] [--threads=N] [--sizes=WxH,...] [--bits=8,10]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dsp.h"
#include "psnrhvs.h"
#include "test_hooks.h"

static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t rnd(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 32);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct Frame {
    uint8_t *ref, *dist; ///< planar 4:2:0, tight strides
    int w[3], h[3];
    size_t off[3];
    int bps;
} Frame;

/* A plane: gradients, a few smooth waves and texture, plus noise; the
 * distorted copy is a 3x3 blur of it with a little noise. */
static void gen_plane(uint8_t *ref, uint8_t *dist, const int w, const int h, const int bits,
                      const int bps, const int seed) {
    const int max = (1 << bits) - 1;
    const double scale = max / 255.0;
    int *tmp = malloc((size_t)w * h * sizeof(int));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = 60 + 100.0 * x / w + 50.0 * y / h;
            v += 30 * sin((x + 3 * seed) * 0.05) * cos(y * 0.031);
            v += ((x / 37 + y / 23 + seed) & 1) ? 12 : -12; /* edges */
            v += (int)(rnd() % 9) - 4;
            v *= scale;
            tmp[(size_t)y * w + x] = v < 0 ? 0 : v > max ? max : (int)v;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int s = 0, n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int yy = y + dy, xx = x + dx;
                    if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                    s += tmp[(size_t)yy * w + xx], n++;
                }
            int d = (s + n / 2) / n + ((int)(rnd() % 13) - 6) * (1 << (bits - 8));
            d = d < 0 ? 0 : d > max ? max : d;
            const int r = tmp[(size_t)y * w + x];
            if (bps == 1) {
                ref[(size_t)y * w + x] = (uint8_t)r;
                dist[(size_t)y * w + x] = (uint8_t)d;
            } else {
                ((uint16_t *)(void *)ref)[(size_t)y * w + x] = (uint16_t)r;
                ((uint16_t *)(void *)dist)[(size_t)y * w + x] = (uint16_t)d;
            }
        }
    free(tmp);
}

static void gen_frame(Frame *f, const int w, const int h, const int bits, const int seed) {
    f->bps = bits > 8 ? 2 : 1;
    f->w[0] = w, f->h[0] = h;
    f->w[1] = f->w[2] = w / 2;
    f->h[1] = f->h[2] = h / 2;
    size_t total = 0;
    for (int p = 0; p < 3; p++) f->off[p] = total, total += (size_t)f->w[p] * f->h[p] * f->bps;
    f->ref = malloc(total);
    f->dist = malloc(total);
    for (int p = 0; p < 3; p++)
        gen_plane(f->ref + f->off[p], f->dist + f->off[p], f->w[p], f->h[p], bits, f->bps,
                  seed + p);
}

static void pictures(const Frame *f, PsnrHvsPicture *r, PsnrHvsPicture *d) {
    for (int p = 0; p < 3; p++) {
        r->data[p] = f->ref + f->off[p];
        d->data[p] = f->dist + f->off[p];
        r->stride[p] = d->stride[p] = (ptrdiff_t)f->w[p] * f->bps;
    }
}

/* Share of non-zero terms in the luma plane (C kernel). */
static double nonzero_share(const Frame *f, const int bits) {
    const int nbx = (f->w[0] - 8) / 7 + 1, nby = (f->h[0] - 8) / 7 + 1;
    float *t = malloc(((size_t)nbx * 64 + PSNRHVS_ROW_TERMS_PAD) * sizeof(float));
    const ptrdiff_t stride = (ptrdiff_t)f->w[0] * f->bps;
    long nz = 0;
    for (int by = 0; by < nby; by++) {
        const size_t o = (size_t)by * 7 * stride;
        nz += (bits > 8 ? psh_row_terms_16bpc_c : psh_row_terms_8bpc_c)(
            t, f->ref + o, stride, f->dist + o, stride, nbx, 0, 0, NULL);
    }
    free(t);
    return (double)nz / ((double)nbx * nby * 64);
}

typedef struct Result {
    double ms;
    float raw[3];
    const char *isa;
} Result;

/* ms/frame over nframes (cycling through the frames): psnrhvs_score one at a
 * time (sync), or send/receive with up to 3 frames in flight. */
static int run(Result *res, Frame *frames, const int nfr, const int nframes, const int bits,
               const enum PsnrHvsIsa isa, const int threads, const int sync, const char *sum) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = frames[0].w[0];
    s.height = frames[0].h[0];
    s.bitdepth = bits;
    s.isa = isa;
    s.threads = threads;
    /* sum: the plane sum forced for this context (test hook, read at open) */
    psh_test_set_cpu_sum(!sum                     ? PSNRHVS_TEST_CPU_SUM_AUTO
                         : !strcmp(sum, "chain")  ? PSNRHVS_TEST_CPU_SUM_CHAIN
                         : !strcmp(sum, "engine") ? PSNRHVS_TEST_CPU_SUM_ENGINE
                                                  : PSNRHVS_TEST_CPU_SUM_AUTO);
    PsnrHvsContext *c;
    const int err = psnrhvs_open(&c, &s);
    psh_test_set_cpu_sum(PSNRHVS_TEST_CPU_SUM_AUTO);
    if (err) return err;
    res->isa = psnrhvs_isa_name(c);
    int sent = 0, got = 0;
    const double t0 = now_ms();
    while (sync && got < nframes) {
        PsnrHvsPicture r, d;
        PsnrHvsScore sc;
        pictures(&frames[got % nfr], &r, &d);
        const int e = psnrhvs_score(c, &r, &d, &sc);
        if (e) return e;
        if (got++ == 0) memcpy(res->raw, sc.raw, sizeof(res->raw));
    }
    while (got < nframes) {
        if (sent < nframes) {
            PsnrHvsPicture r, d;
            pictures(&frames[sent % nfr], &r, &d);
            const int e = psnrhvs_send(c, &r, &d, (uint64_t)sent);
            if (!e) {
                sent++;
                continue;
            }
            if (e != PSNRHVS_ERR(EAGAIN)) return e;
        }
        PsnrHvsScore sc;
        const int e = psnrhvs_receive(c, &sc);
        if (e) return e;
        if (sc.tag == 0) memcpy(res->raw, sc.raw, sizeof(res->raw));
        got++;
    }
    res->ms = (now_ms() - t0) / nframes;
    psnrhvs_close(&c);
    return 0;
}

int main(int argc, char **argv) {
    int frames_arg = 0, threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int sizes[8][2] = {{576, 324}, {1920, 1080}, {3840, 2160}}, nsizes = 3;
    int bitlist[4] = {8, 10}, nbits = 2;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--frames=", 9))
            frames_arg = atoi(argv[i] + 9);
        else if (!strncmp(argv[i], "--threads=", 10))
            threads = atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--sizes=", 8)) {
            nsizes = 0;
            for (const char *p = argv[i] + 8; *p && nsizes < 8;) {
                if (sscanf(p, "%dx%d", &sizes[nsizes][0], &sizes[nsizes][1]) == 2) nsizes++;
                p = strchr(p, ',');
                if (!p) break;
                p++;
            }
        } else if (!strncmp(argv[i], "--bits=", 7)) {
            nbits = 0;
            for (const char *p = argv[i] + 7; *p && nbits < 4;) {
                bitlist[nbits++] = atoi(p);
                p = strchr(p, ',');
                if (!p) break;
                p++;
            }
        } else {
            fprintf(stderr,
                    "usage: %s [--frames=N] [--threads=N] [--sizes=WxH,...] [--bits=8,10]\n",
                    argv[0]);
            return 1;
        }
    }
    if (threads < 1) threads = 1;
    printf("psnrhvs cpu_bench: ms/frame, 4:2:0, %d threads for the N-thread columns\n", threads);
    printf("%-10s %4s %5s %8s %8s %8s %8s %8s %8s %9s %7s %7s %7s %7s %7s %7s %s\n", "size", "bits",
           "nz%", "scalar", "avx2 1t", "best 1t", "best Nt", "Nt pipe", "Nt chain", "Nt engine",
           "isa", "1t/ref", "Nt/ref", "Nt/1t", "pipe/1t", "chn/eng", "bits");
    int status = 0;
    for (int si = 0; si < nsizes; si++)
        for (int bi = 0; bi < nbits; bi++) {
            const int w = sizes[si][0], h = sizes[si][1], bits = bitlist[bi];
            const double mpix = (double)w * h / 1e6;
            /* A few frames: about 2 Mpixel of scalar work, at least 2. */
            const int nframes = frames_arg > 0 ? frames_arg : mpix > 4 ? 2 : mpix > 1 ? 3 : 12;
            Frame fr[2];
            for (int k = 0; k < 2; k++) gen_frame(&fr[k], w, h, bits, 7 * k + bits);
            const double nz = nonzero_share(&fr[0], bits);
            Result ref, avx2 = {0}, one, many, pipe, chain[2], engine[2];
            const int fast = 4 * nframes, nt = fast * threads;
            int e = run(&ref, fr, 2, nframes, bits, PSNRHVS_ISA_SCALAR, 1, 1, NULL);
            const int have_avx2 = !run(&avx2, fr, 2, fast, bits, PSNRHVS_ISA_AVX2, 1, 1, NULL);
            e = e ? e : run(&one, fr, 2, fast, bits, PSNRHVS_ISA_AUTO, 1, 1, NULL);
            e = e ? e : run(&many, fr, 2, nt, bits, PSNRHVS_ISA_AUTO, threads, 1, NULL);
            e = e ? e : run(&pipe, fr, 2, nt, bits, PSNRHVS_ISA_AUTO, threads, 0, NULL);
            for (int k = 0; k < 2 && !e; k++) {
                e = run(&chain[k], fr, 2, nt, bits, PSNRHVS_ISA_AUTO, threads, 1, "chain");
                e = e ? e
                      : run(&engine[k], fr, 2, nt, bits, PSNRHVS_ISA_AUTO, threads, 1, "engine");
            }
            if (e) {
                fprintf(stderr, "%dx%d %d-bit: error %d\n", w, h, bits, e);
                return 1;
            }
            const int same = !memcmp(ref.raw, one.raw, sizeof(ref.raw)) &&
                             !memcmp(ref.raw, many.raw, sizeof(ref.raw)) &&
                             !memcmp(ref.raw, pipe.raw, sizeof(ref.raw)) &&
                             !memcmp(ref.raw, chain[0].raw, sizeof(ref.raw)) &&
                             !memcmp(ref.raw, chain[1].raw, sizeof(ref.raw)) &&
                             !memcmp(ref.raw, engine[0].raw, sizeof(ref.raw)) &&
                             !memcmp(ref.raw, engine[1].raw, sizeof(ref.raw)) &&
                             (!have_avx2 || !memcmp(ref.raw, avx2.raw, sizeof(ref.raw)));
            char sz[32], a2[16];
            snprintf(sz, sizeof(sz), "%dx%d", w, h);
            if (have_avx2)
                snprintf(a2, sizeof(a2), "%.2f", avx2.ms);
            else
                snprintf(a2, sizeof(a2), "n/a");
            const double chn = chain[0].ms < chain[1].ms ? chain[0].ms : chain[1].ms;
            const double eng = engine[0].ms < engine[1].ms ? engine[0].ms : engine[1].ms;
            printf("%-10s %4d %5.1f %8.2f %8s %8.2f %8.2f %8.2f %8.2f %9.2f %7s %6.1fx %6.1fx "
                   "%6.2fx %6.2fx %6.2fx %s\n",
                   sz, bits, 100 * nz, ref.ms, a2, one.ms, many.ms, pipe.ms, chn, eng, one.isa,
                   ref.ms / one.ms, ref.ms / many.ms, one.ms / many.ms, one.ms / pipe.ms, chn / eng,
                   same ? "same" : "DIFFERENT");
            fflush(stdout);
            status |= !same;
            for (int k = 0; k < 2; k++) free(fr[k].ref), free(fr[k].dist);
        }
    /* Rows whose task found every row buffer taken and waited for the chain:
     * the buffers made at open should keep this near zero. */
    printf("rows that waited for a row buffer: %zu\n", psh_test_cpu_unbuffered_rows());
    return status;
}
