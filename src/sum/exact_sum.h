/*
 * psnrhvs: the CPU exact-sum engine, over the sum plan of core/exact_sum.h.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * The term stream (numerics spec section 3) comes in chunks, in stream order.
 * Each chunk gets a plan: the maps of its segments (256 terms, one SIMD lane
 * each), of its groups (8 segments) and of the whole chunk, for the
 * candidate binades of the sum plan. Plans can be made on any thread as soon
 * as a chunk's terms exist; the walk then adds the chunks in order from
 * r = 0, each through the largest map that fits the binade r is really in,
 * and term by term where none does. Same bits as the chain, always
 * (docs/exact-sum.md); the approximations only steer speed.
 */
#ifndef PSNRHVS_SRC_SUM_EXACT_SUM_H
#define PSNRHVS_SRC_SUM_EXACT_SUM_H

#include <stddef.h>

#include "dsp.h"
#include "thread_pool.h"

/* The reference chain: r = 0; r = fl32(r + t[i]) for i = 0 .. n-1. */
float psh_sum_sequential(const float *t, size_t n);

/* Where the chain is expected as a chunk starts: about `at`, between lo and
 * hi (f64 approximations of the sum of the terms before it). */
typedef struct PsnrHvsSumStart {
    double at, lo, hi;
} PsnrHvsSumStart;

/* How a walk got its result: terms seen, maps applied at each level, terms
 * added one by one (tests and benchmarks check the share of each). */
typedef struct PsnrHvsSumStats {
    size_t terms, chunk_maps, group_maps, lane_maps, chain_terms;
} PsnrHvsSumStats;

/* The plan of one chunk: psh_sum_plan_size(count) bytes, malloc-aligned. */
typedef struct PsnrHvsSumPlan PsnrHvsSumPlan;

size_t psh_sum_plan_size(size_t count);

/* The plan of count terms t (count < 2^32) whose approximate sum is approx,
 * for a chain expected at start before them. */
void psh_sum_plan(PsnrHvsSumPlan *plan, const float *t, size_t count, double approx,
                  PsnrHvsSumStart start, PsnrHvsSumLanesFn lanes);

/* The chain's value after the planned chunk t, from r before it: exactly the
 * bits of adding its terms one by one. stats (may be NULL) is added to. */
float psh_sum_walk(float r, const PsnrHvsSumPlan *plan, const float *t, PsnrHvsSumStats *stats);

/* One piece of a stream, in stream order. approx is the piece's sum computed
 * any way the producer likes (f64 in any order is plenty). Zero terms may be
 * left out of a piece (r + 0 = r). */
typedef struct PsnrHvsSumChunk {
    const float *terms;
    size_t count;
    double approx;
} PsnrHvsSumChunk;

/* Scratch bytes psh_sum_chunks needs for these chunks. */
size_t psh_sum_scratch_size(const PsnrHvsSumChunk *chunks, size_t nchunks);

/* The chain's exact result over the concatenated chunks: plans made on the
 * pool's threads (NULL: the caller's), then one walk. scratch (malloc-aligned,
 * psh_sum_scratch_size bytes) may be NULL: it is then allocated, and if
 * that fails the chain runs term by term (same bits). stats may be NULL. */
float psh_sum_chunks(const PsnrHvsSumChunk *chunks, size_t nchunks, PsnrHvsThreadPool *pool,
                     PsnrHvsSumLanesFn lanes, void *scratch, size_t scratch_size,
                     PsnrHvsSumStats *stats);

/* The same over one array, cut into chunks whose approximate sums are made
 * in a first parallel pass (a second read of the terms: producers that know
 * their chunks' sums should call psh_sum_chunks). */
float psh_sum_exact(const float *t, size_t n, PsnrHvsThreadPool *pool, PsnrHvsSumLanesFn lanes,
                    PsnrHvsSumStats *stats);

/* An f64 sum in 8 lanes (vectorises without reassociation): the approximate
 * sum of a chunk, good enough for any guess. */
double psh_sum_approx(const float *t, size_t n);

#endif /* PSNRHVS_SRC_SUM_EXACT_SUM_H */
