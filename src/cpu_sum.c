/*
 * The CPU backend's plane sum through the exact-sum engine (see cpu_sum.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cpu_sum.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum PsnrHvsCpuSumMode psnrhvs_cpu_sum_mode(const PsnrHvsContext *c) {
    const char *const v = getenv("PSNRHVS_CPU_SUM");
    if (!v || !*v || !strcmp(v, "auto")) return PSNRHVS_CPU_SUM_AUTO;
    if (!strcmp(v, "chain")) return PSNRHVS_CPU_SUM_CHAIN;
    if (!strcmp(v, "engine")) return PSNRHVS_CPU_SUM_ENGINE;
    psnrhvs_log(c, "PSNRHVS_CPU_SUM=%s: not chain, engine or auto; using auto", v);
    return PSNRHVS_CPU_SUM_AUTO;
}

double psnrhvs_cpu_sum_approx(const float *const t, const int n) {
    double acc[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += t[i + j];
    for (; i < n; i++) acc[0] += t[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

int psnrhvs_cpu_sum_init(PsnrHvsCpuSum *const s, const int *const nbx, const int *const nby,
                         const int num_planes) {
    int rows = 0;
    for (int p = 0; p < num_planes; p++) rows = nby[p] > rows ? nby[p] : rows;
    s->chunks = calloc(rows ? (size_t)rows : 1, sizeof(*s->chunks));
    if (!s->chunks) return PSNRHVS_ERR(ENOMEM);
    /* The engine's scratch grows with the terms per row: size it for rows of
     * nothing but non-zero terms. */
    for (int p = 0; p < num_planes; p++) {
        for (int r = 0; r < nby[p]; r++) s->chunks[r].count = (size_t)nbx[p] * 64;
        const size_t size = psnrhvs_sum_scratch_size(s->chunks, (size_t)nby[p]);
        if (size > s->scratch_size) s->scratch_size = size;
    }
    memset(s->chunks, 0, (size_t)rows * sizeof(*s->chunks));
    if (s->scratch_size && !(s->scratch = malloc(s->scratch_size))) return PSNRHVS_ERR(ENOMEM);
    return 0;
}

void psnrhvs_cpu_sum_free(PsnrHvsCpuSum *const s) {
    free(s->chunks);
    free(s->scratch);
    memset(s, 0, sizeof(*s));
}

/* The engine keeps process-wide state (its statistics for
 * psnrhvs_sum_last_stats, the lazily chosen kernel), so one call runs at a
 * time. A plane that finds it busy (frames in flight with the engine forced,
 * or another context) is added as the plain chain: the same bits. */
static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;

float psnrhvs_cpu_sum_plane(PsnrHvsCpuSum *const s, const int nrows, PsnrHvsThreadPool *pool) {
    if (pthread_mutex_trylock(&engine_lock)) {
        float r = 0.0f;
        for (int c = 0; c < nrows; c++)
            for (size_t i = 0; i < s->chunks[c].count; i++) r += s->chunks[c].terms[i];
        return r;
    }
    const float r =
        psnrhvs_sum_chunks_scratch(s->chunks, (size_t)nrows, pool, s->scratch, s->scratch_size);
    pthread_mutex_unlock(&engine_lock);
    return r;
}
