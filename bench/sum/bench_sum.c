/*
 * psnrhvs: exact-sum engine against the sequential chain, on the term
 * streams of one 3840x2160 4:2:0 frame (16.2 M terms, 25 % non-zero,
 * distributed like real terms). Usage: bench_sum [threads] [reps] [seed]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/tables.h"
#include "cpu.h"
#include "dsp.h"
#include "sum/exact_sum.h"

/* The C lane kernel and the best this CPU has. */
static PsnrHvsSumLanesFn lanes_fn[2];

typedef struct Plane {
    float *t, *nz;
    size_t n, nnz, rows;
    PsnrHvsSumChunk *all, *chunks; /* per block row: all terms / non-zero terms */
    void *scratch;                 /* for the non-zero chunks, allocated once */
    size_t scratch_size;
} Plane;

static uint64_t rng_state;

static uint32_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* A term like spec 3's: 75 % zero (below the masking limit); otherwise
 * ((|dc| - lim) * csf)^2 with small integer coefficient differences. */
static float term(const int plane, const int k) {
    if (rnd() % 4) return 0.0f;
    const float lim = (float)(rnd() % 4096) * (1.0f / 512.0f);
    const float a = lim + (float)(1 + rnd() % (rnd() % 8 ? 16 : 160));
    const float err = a - lim;
    const float w = psh_csf[plane][k];
    return (err * w) * (err * w);
}

static void make_plane(Plane *const p, const int plane, const int w, const int h) {
    const size_t bx = (size_t)(w - 1) / 7, by = (size_t)(h - 1) / 7; /* blocks per row, rows */
    p->rows = by;
    p->n = bx * by * 64;
    p->t = malloc(sizeof(float) * p->n);
    p->nz = malloc(sizeof(float) * p->n);
    p->all = malloc(sizeof(*p->all) * by);
    p->chunks = malloc(sizeof(*p->chunks) * by);
    size_t i = 0, j = 0;
    for (size_t r = 0; r < by; r++) {
        const size_t a = i, aj = j;
        double s = 0.0;
        for (size_t b = 0; b < bx * 64; b++) {
            const float t = term(plane, (int)(b & 63));
            p->t[i++] = t;
            if (t != 0.0f) p->nz[j++] = t;
            s += t;
        }
        p->all[r] = (PsnrHvsSumChunk){p->t + a, i - a, s};
        p->chunks[r] = (PsnrHvsSumChunk){p->nz + aj, j - aj, s};
    }
    p->nnz = j;
    p->scratch_size = psh_sum_scratch_size(p->chunks, p->rows);
    p->scratch = malloc(p->scratch_size);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { SEQ_ALL, SEQ_NZ, ENG_NZ, ENG_ALL, ENG_EXACT, NMODES };
static const char *const mode_name[NMODES] = {
    "sequential chain, all terms (libvmaf loop)",
    "sequential chain, non-zero terms only",
    "engine, block-row chunks of non-zero terms*",
    "engine, block-row chunks of all terms",
    "engine, psh_sum_exact(all terms)",
};

static double run(const int mode, Plane *const planes, PsnrHvsThreadPool *const pool,
                  const PsnrHvsSumLanesFn lanes, float out[3]) {
    const double t0 = now();
    for (int p = 0; p < 3; p++) {
        Plane *const pl = &planes[p];
        switch (mode) {
        case SEQ_ALL:
            out[p] = psh_sum_sequential(pl->t, pl->n);
            break;
        case SEQ_NZ:
            out[p] = psh_sum_sequential(pl->nz, pl->nnz);
            break;
        case ENG_NZ:
            out[p] = psh_sum_chunks(pl->chunks, pl->rows, pool, lanes, pl->scratch,
                                    pl->scratch_size, NULL);
            break;
        case ENG_ALL:
            out[p] = psh_sum_chunks(pl->all, pl->rows, pool, lanes, NULL, 0, NULL);
            break;
        case ENG_EXACT:
            out[p] = psh_sum_exact(pl->t, pl->n, pool, lanes, NULL);
            break;
        }
    }
    return now() - t0;
}

int main(int argc, char **argv) {
    const int nthreads = argc > 1 ? atoi(argv[1]) : 0;
    const int reps = argc > 2 ? atoi(argv[2]) : 15;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 42;
    Plane planes[3];
    make_plane(&planes[0], 0, 3840, 2160);
    make_plane(&planes[1], 1, 1920, 1080);
    make_plane(&planes[2], 2, 1920, 1080);
    const size_t n = planes[0].n + planes[1].n + planes[2].n;
    const size_t nnz = planes[0].nnz + planes[1].nnz + planes[2].nnz;
    PsnrHvsThreadPool *const pool = psh_thread_pool_create(nthreads);
    const int all_threads = psh_thread_pool_size(pool);
    printf("bench_sum: 3840x2160 4:2:0 frame, %zu terms (%.1f %% non-zero), seed %" PRIu64
           ", best of %d\n",
           n, 100.0 * (double)nnz / (double)n,
           (uint64_t)(argc > 3 ? strtoull(argv[3], NULL, 0) : 42), reps);

    PsnrHvsDspContext dsp;
    psh_dsp_init(&dsp, 0);
    lanes_fn[0] = dsp.sum_lanes;
    psh_dsp_init(&dsp, psh_get_cpu_flags());
    lanes_fn[1] = dsp.sum_lanes;
    const int simd = lanes_fn[1] != lanes_fn[0];
    float want[3];
    const double seq = run(SEQ_ALL, planes, NULL, lanes_fn[0], want);
    (void)seq;
    double best[NMODES][3][2]; /* mode, isa slot (0 C, 1 SIMD, 2 -), threads (1, all) */
    for (int m = 0; m < NMODES; m++)
        for (int a = 0; a < 3; a++) best[m][a][0] = best[m][a][1] = 1e30;
    int bad = 0;
    for (int rep = 0; rep < reps; rep++) {
        for (int m = 0; m < NMODES; m++) {
            const int isas = m <= SEQ_NZ ? 1 : 2;
            for (int a = 0; a < isas; a++) {
                for (int th = 0; th < (m <= SEQ_NZ ? 1 : 2); th++) {
                    float got[3];
                    const double dt = run(m, planes, th ? pool : NULL, lanes_fn[a], got);
                    for (int p = 0; p < 3; p++) bad |= got[p] != want[p];
                    const int slot = m <= SEQ_NZ ? 2 : a;
                    if (dt < best[m][slot][th]) best[m][slot][th] = dt;
                }
            }
        }
    }
    const double base = best[SEQ_ALL][2][0], base_nz = best[SEQ_NZ][2][0];
    printf("%-44s %-5s %7s %10s %8s %8s\n", "", "isa", "threads", "ms/frame", "Mterm/s", "x seq");
    for (int m = 0; m < NMODES; m++)
        for (int a = 0; a < 3; a++)
            for (int th = 0; th < 2; th++) {
                const double dt = best[m][a][th];
                if (dt >= 1e30) continue;
                if (a == 0 && m > SEQ_NZ && !simd) continue;
                printf("%-44s %-5s %7d %10.3f %8.0f %8.2f\n", mode_name[m],
                       a == 2 ? "-"
                       : a    ? "simd"
                              : "c",
                       th ? all_threads : 1, dt * 1e3, (double)n / dt * 1e-6, base / dt);
            }
    printf("speed-up of the engine (non-zero chunks, %s, %d threads): %.2fx the all-terms "
           "chain, %.2fx the non-zero chain\n",
           dsp.isa, all_threads, base / best[ENG_NZ][1][1], base_nz / best[ENG_NZ][1][1]);
    PsnrHvsSumStats st = {0};
    for (int p = 0; p < 3; p++)
        psh_sum_chunks(planes[p].chunks, planes[p].rows, pool, lanes_fn[1], planes[p].scratch,
                       planes[p].scratch_size, &st);
    const size_t chain = st.chain_terms, total = st.terms;
    printf("terms the engine added one by one (non-zero chunks): %zu of %zu (%.2f %%)\n", chain,
           total, 100.0 * (double)chain / (double)total);
    printf("* with caller-owned scratch; the others allocate\n");
    printf("results: %s\n", bad ? "DIFFERENT (bug)" : "all bit-identical to the sequential chain");
    psh_thread_pool_destroy(pool);
    for (int p = 0; p < 3; p++) {
        free(planes[p].t);
        free(planes[p].nz);
        free(planes[p].all);
        free(planes[p].chunks);
        free(planes[p].scratch);
    }
    return bad;
}
