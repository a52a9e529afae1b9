/*
 * The CPU backend's plane sum through the exact-sum engine (src/sum): the
 * mode policy's inputs and the per-frame scratch. The rows' scheduling stays
 * in cpu_backend.c.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CPU_SUM_H
#define PSNRHVS_SRC_CPU_SUM_H

#include <stddef.h>

#include "internal.h"
#include "sum/exact_sum.h"

enum PsnrHvsCpuSumMode {
    PSNRHVS_CPU_SUM_AUTO,   ///< the engine for a frame scored alone on many threads
    PSNRHVS_CPU_SUM_CHAIN,  ///< each plane one f32 chain, carried through the row tasks
    PSNRHVS_CPU_SUM_ENGINE, ///< each plane through the engine once its rows are done
};

/* Auto picks the engine from this many threads on, with no other frame
 * queued: with fewer, the chain hides under the row work (bench/cpu). */
#define PSNRHVS_CPU_ENGINE_MIN_THREADS 8

/* A plane with fewer non-zero terms is summed on one thread: waking the
 * pool's threads costs more (about 50 us per plane on the 2-core machine,
 * 576x324's luma; the engine does about 2 terms per ns per thread). */
#define PSNRHVS_CPU_ENGINE_POOL_TERMS (1 << 17)

/* PSNRHVS_CPU_SUM from the environment: "chain", "engine" or "auto"; unset
 * or empty is auto, anything else is logged and taken as auto. */
enum PsnrHvsCpuSumMode psnrhvs_cpu_sum_mode(const PsnrHvsContext *c);

/* A row's approximate sum for the engine's binade guesses (f64 in 8 lanes:
 * any order will do, the result only steers speed). */
double psnrhvs_cpu_sum_approx(const float *t, int n);

/* One frame's engine state: a chunk per block row and the engine's scratch,
 * sized at open for the largest plane with every term non-zero. */
typedef struct PsnrHvsCpuSum {
    PsnrHvsSumChunk *chunks;
    void *scratch;
    size_t scratch_size;
} PsnrHvsCpuSum;

/* nbx, nby: blocks along each of the num_planes planes. 0 or ENOMEM. */
int psnrhvs_cpu_sum_init(PsnrHvsCpuSum *s, const int *nbx, const int *nby, int num_planes);
void psnrhvs_cpu_sum_free(PsnrHvsCpuSum *s);

/* The plane's f32 chain over s->chunks[0 .. nrows), filled by the caller;
 * pool may be NULL (the calling thread does all the work). Thread-safe: one
 * engine call runs at a time in the process (it uses pool then); a call that
 * finds another running adds the chain itself. */
float psnrhvs_cpu_sum_plane(PsnrHvsCpuSum *s, int nrows, PsnrHvsThreadPool *pool);

#endif /* PSNRHVS_SRC_CPU_SUM_H */
