/*
 * psnrhvs: the exact-sum engine on the real term streams of the fixture
 * frames (every frame, every plane; terms from core/block.h in spec order),
 * against the sequential chain, bit for bit.
 * Usage: test_sum_frames <tests/data dir>
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/block.h"
#include "cpu.h"
#include "dsp.h"
#include "sum/exact_sum.h"
#include "sum_test_util.h"

/* The C lane kernel and the best this CPU runs. */
static PsnrHvsSumLanesFn lanes_fn[2];

typedef struct Fixture {
    const char *ref, *dist;
    int w, h, bits;
    int ssx, ssy; /* chroma subsampling; -1 = no chroma (4:0:0) */
} Fixture;

static const Fixture fixtures[] = {
    {"gray_176x144_ref.yuv", "gray_176x144_dist.yuv", 176, 144, 8, -1, -1},
    {"gray10_176x144_ref.yuv", "gray10_176x144_dist.yuv", 176, 144, 10, -1, -1},
    {"identical_yuv420p_176x144.yuv", "identical_yuv420p_176x144.yuv", 176, 144, 8, 1, 1},
    {"yuv420p_176x144_ref.yuv", "yuv420p_176x144_dist.yuv", 176, 144, 8, 1, 1},
    {"yuv420p_23x17_ref.yuv", "yuv420p_23x17_dist.yuv", 23, 17, 8, 1, 1},
    {"yuv420p_97x61_ref.yuv", "yuv420p_97x61_dist.yuv", 97, 61, 8, 1, 1},
    {"yuv420p_1280x720_ref.yuv", "yuv420p_1280x720_dist.yuv", 1280, 720, 8, 1, 1},
    {"yuv420p10_176x144_ref.yuv", "yuv420p10_176x144_dist.yuv", 176, 144, 10, 1, 1},
    {"yuv420p12_176x144_ref.yuv", "yuv420p12_176x144_dist.yuv", 176, 144, 12, 1, 1},
    {"yuv422p_176x144_ref.yuv", "yuv422p_176x144_dist.yuv", 176, 144, 8, 1, 0},
    {"yuv444p_176x144_ref.yuv", "yuv444p_176x144_dist.yuv", 176, 144, 8, 0, 0},
    {"yuv444p10_176x144_ref.yuv", "yuv444p10_176x144_dist.yuv", 176, 144, 10, 0, 0},
    {"netflix/src01_hrc00_576x324.yuv420p10le.yuv", "netflix/src01_hrc01_576x324.yuv420p10le.yuv",
     576, 324, 10, 1, 1},
    {"netflix/src01_hrc00_576x324.yuv420p12le.yuv", "netflix/src01_hrc01_576x324.yuv420p12le.yuv",
     576, 324, 12, 1, 1},
    /* noise up to 64 8-bit steps: terms over a wide range of sizes */
    {"stress/stress_yuv420p_96x96_ref.yuv", "stress/stress_yuv420p_96x96_dist.yuv", 96, 96, 8, 1,
     1},
    {"stress/stress_yuv422p12_96x96_ref.yuv", "stress/stress_yuv422p12_96x96_dist.yuv", 96, 96, 12,
     1, 0},
    {"stress/stress_yuv444p10_96x96_ref.yuv", "stress/stress_yuv444p10_96x96_dist.yuv", 96, 96, 10,
     0, 0},
};

static uint64_t failures, streams, nterms;

static unsigned char *read_file(const char *const dir, const char *const name, size_t *const size) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *const f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *const buf = malloc(*size ? *size : 1);
    if (buf && fread(buf, 1, *size, f) != *size) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    return buf;
}

static int32_t sample(const unsigned char *const p, const int bytes, const size_t idx) {
    return bytes == 1 ? p[idx] : p[2 * idx] | p[2 * idx + 1] << 8;
}

/* Spec 1 and 3: blocks at y, x = 0, 7, 14, ... while < h - 7 / w - 7, in block
 * order, 64 terms each. One chunk per block row (as the CPU backend cuts
 * it). Returns the number of terms. */
static size_t plane_terms(const unsigned char *const ref, const unsigned char *const dist,
                          const int bytes, const int stride, const int w, const int h,
                          const int plane, float *const t, size_t *const row_start,
                          size_t *const nrows) {
    size_t n = 0;
    *nrows = 0;
    for (int y = 0; y < h - 7; y += 7) {
        row_start[(*nrows)++] = n;
        for (int x = 0; x < w - 7; x += 7) {
            psh_i32 s[64], d[64];
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 8; j++) {
                    const size_t idx = (size_t)(y + i) * stride + x + j;
                    s[i * 8 + j] = sample(ref, bytes, idx);
                    d[i * 8 + j] = sample(dist, bytes, idx);
                }
            psh_block_terms(s, d, plane, PSH_MASK_PRODUCT_FLOAT, t + n);
            n += 64;
        }
    }
    row_start[*nrows] = n;
    return n;
}

static double f64_sum(const float *const t, const size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += t[i];
    return s;
}

static void check_stream(const float *const t, const size_t n, const size_t *const row_start,
                         const size_t nrows, PsnrHvsThreadPool *const pool, const char *const what,
                         double *const raw) {
    const float want = psh_sum_sequential(t, n);
    PsnrHvsSumChunk *const all = malloc(sizeof(*all) * (nrows + 1));
    PsnrHvsSumChunk *const nz = malloc(sizeof(*nz) * (nrows + 1));
    float *const compact = malloc(sizeof(float) * (n + 1));
    size_t w = 0;
    for (size_t r = 0; r < nrows; r++) {
        const size_t a = row_start[r], b = row_start[r + 1];
        all[r] = (PsnrHvsSumChunk){t + a, b - a, f64_sum(t + a, b - a)};
        nz[r].terms = compact + w;
        for (size_t i = a; i < b; i++)
            if (t[i] != 0.0f) compact[w++] = t[i];
        nz[r].count = (size_t)(compact + w - nz[r].terms);
        nz[r].approx = all[r].approx;
    }
    for (int isa = 0; isa < 2; isa++) {
        const PsnrHvsSumLanesFn lanes = lanes_fn[isa];
        for (int threads = 0; threads < 2; threads++) {
            PsnrHvsThreadPool *const p = threads ? pool : NULL;
            const float got[3] = {psh_sum_chunks(all, nrows, p, lanes, NULL, 0, NULL),
                                  psh_sum_chunks(nz, nrows, p, lanes, NULL, 0, NULL),
                                  psh_sum_exact(t, n, p, lanes, NULL)};
            for (int k = 0; k < 3; k++)
                if (!same_bits(got[k], want)) {
                    failures++;
                    fprintf(stderr, "FAIL %s (%s, isa %d, %d threads): want %a got %a\n", what,
                            k == 0   ? "all terms"
                            : k == 1 ? "non-zero terms"
                                     : "exact",
                            isa, psh_thread_pool_size(p), want, got[k]);
                }
            streams += 3;
        }
    }
    nterms += n;
    *raw = want;
    free(all);
    free(nz);
    free(compact);
}

int main(int argc, char **argv) {
    const char *const dir = argc > 1 ? argv[1] : "tests/data";
    PsnrHvsThreadPool *const pool = psh_thread_pool_create(2);
    PsnrHvsDspContext dsp;
    psh_dsp_init(&dsp, 0);
    lanes_fn[0] = dsp.sum_lanes;
    psh_dsp_init(&dsp, psh_get_cpu_flags());
    lanes_fn[1] = dsp.sum_lanes;
    int files = 0;
    for (size_t f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
        const Fixture *const fx = &fixtures[f];
        size_t rsize, dsize;
        unsigned char *const ref = read_file(dir, fx->ref, &rsize);
        unsigned char *const dist = read_file(dir, fx->dist, &dsize);
        if (!ref || !dist || rsize != dsize) {
            fprintf(stderr, "FAIL cannot read %s / %s in %s\n", fx->ref, fx->dist, dir);
            failures++;
            free(ref);
            free(dist);
            continue;
        }
        const int bytes = fx->bits > 8 ? 2 : 1;
        /* stored sizes round up, scored sizes round down (spec 1) */
        const int cw = fx->ssx < 0 ? 0 : (fx->w + fx->ssx) >> fx->ssx;
        const int ch = fx->ssy < 0 ? 0 : (fx->h + fx->ssy) >> fx->ssy;
        const size_t frame = ((size_t)fx->w * fx->h + 2 * (size_t)cw * ch) * bytes;
        const size_t nframes = rsize / frame;
        if (!nframes || rsize % frame) {
            /* a file too short or of another geometry would check nothing */
            fprintf(stderr, "FAIL %s: %zu bytes, not whole frames of %zu\n", fx->ref, rsize, frame);
            failures++;
            free(ref);
            free(dist);
            continue;
        }
        float *const t = malloc(sizeof(float) * ((size_t)fx->w * fx->h * 2 + 64));
        size_t *const rows = malloc(sizeof(size_t) * (size_t)(fx->h + 2));
        for (size_t fr = 0; fr < nframes; fr++) {
            size_t off = fr * frame;
            const int nplanes = fx->ssx < 0 ? 1 : 3;
            double raw[3] = {0};
            for (int pl = 0; pl < nplanes; pl++) {
                const int sw = pl ? cw : fx->w, sh = pl ? ch : fx->h;
                const int w = pl ? fx->w >> fx->ssx : fx->w, h = pl ? fx->h >> fx->ssy : fx->h;
                size_t nrows;
                const size_t n =
                    plane_terms(ref + off, dist + off, bytes, sw, w, h, pl, t, rows, &nrows);
                char what[256];
                snprintf(what, sizeof(what), "%s frame %zu plane %d", fx->ref, fr, pl);
                check_stream(t, n, rows, nrows, pool, what, &raw[pl]);
                off += (size_t)sw * sh * bytes;
            }
            if (fr == 0)
                printf("  %-44s %zu frames, frame 0 sums %a %a %a\n", fx->ref, nframes, raw[0],
                       raw[1], raw[2]);
        }
        files++;
        free(t);
        free(rows);
        free(ref);
        free(dist);
    }
    printf("test_sum_frames: %d fixtures, %" PRIu64 " sums over %" PRIu64 " terms, %" PRIu64
           " differences\n",
           files, streams, nterms, failures);
    psh_thread_pool_destroy(pool);
    return failures != 0;
}
