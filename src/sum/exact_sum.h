/*
 * psnrhvs: the CPU exact-sum engine (threads and SIMD lanes over the portable
 * pair algebra of core/exact_sum.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_SUM_EXACT_SUM_H
#define PSNRHVS_SRC_SUM_EXACT_SUM_H

#include <stddef.h>

#include "thread_pool.h"

/* The reference chain: r = 0; r = fl32(r + t[i]) for i = 0 .. n-1. */
float psnrhvs_sum_sequential(const float *t, size_t n);

/* One piece of the term stream, in stream order. approx is the piece's sum
 * computed any way the producer likes (f64 in any order is plenty): it only
 * steers which binade is guessed, so a poor value costs time, never bits.
 * Zero terms may be left out of a piece (r + 0 = r). */
typedef struct PsnrHvsSumChunk {
    const float *terms;
    size_t count;
    double approx;
} PsnrHvsSumChunk;

/* The chain's exact result over the concatenated chunks (every term >= 0 and
 * finite is the contract; other values still give the chain's result, slowly).
 * pool may be NULL: the calling thread does all the work. Needs a little heap
 * scratch; if that allocation fails it runs the chain itself. */
float psnrhvs_sum_chunks(const PsnrHvsSumChunk *chunks, size_t nchunks, PsnrHvsThreadPool *pool);

/* The same with caller-owned scratch memory (no allocation: the CPU backend
 * keeps one buffer per plane size). psnrhvs_sum_scratch_size() gives the bytes
 * needed for these chunks (0 if none are). Scratch must be malloc-aligned; if
 * it is NULL or too small, the chain runs sequentially (still exact). */
size_t psnrhvs_sum_scratch_size(const PsnrHvsSumChunk *chunks, size_t nchunks);
float psnrhvs_sum_chunks_scratch(const PsnrHvsSumChunk *chunks, size_t nchunks,
                                 PsnrHvsThreadPool *pool, void *scratch, size_t scratch_size);

/* The same over one array: splits it into chunks and computes their approx in
 * a first parallel pass (a second read of the terms; producers that can fill
 * approx while writing the terms should call psnrhvs_sum_chunks instead). */
float psnrhvs_sum_exact(const float *t, size_t n, PsnrHvsThreadPool *pool);

/* Instruction sets of the lane kernel, for tests and benchmarks. */
enum PsnrHvsSumIsa {
    PSNRHVS_SUM_ISA_C = 0,
    PSNRHVS_SUM_ISA_AVX2 = 1,
};

/* Caps the kernel at max_isa (still only what the CPU supports); returns the
 * level in use afterwards. Not thread-safe: call before summing. */
int psnrhvs_sum_set_max_isa(int max_isa);

/* How the last psnrhvs_sum_chunks() call (on any thread) got its result:
 * groups of up to 8 x 256 terms applied as one map, segments applied as one
 * map, terms added one by one. For tests and benchmarks. */
typedef struct PsnrHvsSumStats {
    size_t terms, groups, group_maps, lane_maps, chain_terms;
} PsnrHvsSumStats;

void psnrhvs_sum_last_stats(PsnrHvsSumStats *stats);

#endif /* PSNRHVS_SRC_SUM_EXACT_SUM_H */
