/*
 * An encoding ladder through the library: one reference and N renditions,
 * scored as N separate pairs (N contexts, one after the other, as N runs of
 * a tool would) and as one ladder (psnrhvs_send_ladder: the reference's side
 * of every block computed once), on one backend, side by side in one run.
 * Every rendition's raw scores must have the same bits both ways.
 * usage: ladder_bench <cpu|cuda|opencl|hip> <w> <h> <bitdepth> <renditions> <frames> [threads]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "test_hooks.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr,
                "usage: %s <cpu|cuda|opencl|hip> <w> <h> <bitdepth> <renditions> <frames> "
                "[threads]\n",
                argv[0]);
        return 2;
    }
    static const char *const names[] = {"auto", "cpu", "cuda", "opencl", "hip"};
    enum PsnrHvsBackend backend = PSNRHVS_BACKEND_CPU;
    for (int i = 0; i < 5; i++)
        if (!strcmp(argv[1], names[i])) backend = (enum PsnrHvsBackend)i;
    const int w = atoi(argv[2]), h = atoi(argv[3]), bits = atoi(argv[4]);
    const int nr = atoi(argv[5]), frames = atoi(argv[6]), threads = argc > 7 ? atoi(argv[7]) : 0;
    if (nr < 1 || nr > PSNRHVS_MAX_RENDITIONS || frames < 1) return 2;
    /* Rendition r: the generator's distorted frames of seed r + 1; the
     * reference is rendition 0's (distinct frames cycle, DISTINCT of them). */
    enum { DISTINCT = 4 };
    if (nr < 1 || nr > PSNRHVS_MAX_RENDITIONS) return 2;
    Fixture *fx = calloc((size_t)nr, sizeof(*fx));
    for (int r = 0; r < nr; r++)
        fixture_generate(&fx[r], "ladder", w, h, bits, PSNRHVS_PIXEL_LAYOUT_I420, DISTINCT,
                         (uint32_t)(r + 1));
    const size_t total = (size_t)nr * (size_t)(frames > 0 ? frames : 1);
    PsnrHvsScore *alone = calloc(total, sizeof(*alone));
    PsnrHvsScore *ladder = calloc(total, sizeof(*ladder));
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = w, s.height = h, s.bitdepth = bits, s.backend = backend, s.threads = threads;

    /* N separate runs, each a context of its own. */
    const double t0 = now();
    for (int r = 0; r < nr; r++) {
        PsnrHvsContext *c;
        if (psnrhvs_open(&c, &s)) return 1;
        int sent = 0, got = 0;
        while (got < frames) {
            if (sent < frames) {
                const PsnrHvsPicture ref = fixture_ref(&fx[0], sent % DISTINCT);
                const PsnrHvsPicture dist = fixture_dist(&fx[r], sent % DISTINCT);
                const int err = psnrhvs_send(c, &ref, &dist, (uint64_t)sent);
                if (!err) {
                    sent++;
                    continue;
                }
                if (err != PSNRHVS_ERR(EAGAIN)) return 1;
            }
            if (psnrhvs_receive(c, &alone[(size_t)got * nr + r])) return 1;
            got++;
        }
        psnrhvs_close(&c);
    }
    const double t_alone = now() - t0;

    /* One ladder context. */
    s.renditions = nr;
    const double t1 = now();
    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s)) return 1;
    int sent = 0, got = 0;
    PsnrHvsPicture dist[PSNRHVS_MAX_RENDITIONS];
    while (got < frames) {
        if (sent < frames) {
            const PsnrHvsPicture ref = fixture_ref(&fx[0], sent % DISTINCT);
            for (int r = 0; r < nr; r++) dist[r] = fixture_dist(&fx[r], sent % DISTINCT);
            const int err = psnrhvs_send_ladder(c, &ref, dist, (uint64_t)sent);
            if (!err) {
                sent++;
                continue;
            }
            if (err != PSNRHVS_ERR(EAGAIN)) return 1;
        }
        if (psnrhvs_receive_ladder(c, &ladder[(size_t)got * nr])) return 1;
        got++;
    }
    psnrhvs_close(&c);
    const double t_ladder = now() - t1;

    int same = 1;
    for (size_t i = 0; i < (size_t)nr * frames; i++)
        same &= !memcmp(alone[i].raw, ladder[i].raw, sizeof(alone[i].raw));
    printf("rows that waited for a buffer: %zu\n", psh_test_cpu_unbuffered_rows());
    printf("RESULT ladder %s %dx%d %d-bit, %d renditions x %d frames: %d separate runs %.3f s, one "
           "ladder %.3f s (%.2fx); raw scores %s\n",
           names[backend], w, h, bits, nr, frames, nr, t_alone, t_ladder, t_alone / t_ladder,
           same ? "identical" : "DIFFERENT");
    for (int r = 0; r < nr; r++) fixture_free(&fx[r]);
    free(fx);
    free(alone);
    free(ladder);
    return !same;
}
