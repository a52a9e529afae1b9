/*
 * The CPU backend's plane sum through the exact-sum algebra (src/core/
 * exact_sum.h, the lane kernel of src/sum): the mode policy's inputs, the
 * maps each row task computes for its own terms, and the final walk. The
 * rows' scheduling stays in cpu_backend.c.
 *
 * A row's maps need the chain's binade at each of its segments, i.e. the sum
 * of the rows before it. Row tasks run out of order, so the task estimates
 * that prefix from the rows known so far (rows still running counted at the
 * mean) and computes maps for one or two candidate binades around it. Only
 * speed depends on the guess: the walk applies a map only where the chain's
 * value really is in that binade and stays there, and otherwise adds that
 * segment's terms one by one (docs/exact-sum.md).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CPU_SUM_H
#define PSNRHVS_SRC_CPU_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

enum PsnrHvsCpuSumMode {
    PSNRHVS_CPU_SUM_AUTO,   ///< the engine for a frame scored alone on many threads
    PSNRHVS_CPU_SUM_CHAIN,  ///< each plane one f32 chain, carried through the row tasks
    PSNRHVS_CPU_SUM_ENGINE, ///< row tasks compute maps, one walk per plane at the end
};

/* Auto picks the engine from this many threads on, with no other frame
 * queued: with fewer, the chain hides under the row work (bench/cpu). */
#define PSNRHVS_CPU_ENGINE_MIN_THREADS 8

/* PSNRHVS_CPU_SUM from the environment: "chain", "engine" or "auto"; unset
 * or empty is auto, anything else is logged and taken as auto. */
enum PsnrHvsCpuSumMode psnrhvs_cpu_sum_mode(const PsnrHvsContext *c);

/* A row's approximate sum for the binade guesses (f64 in 8 lanes: any order
 * will do, the result only steers speed). */
double psnrhvs_cpu_sum_approx(const float *t, int n);

/* Terms per segment: the unit of a map and of the chain fallback. */
#define PSNRHVS_CPU_SUM_SEG 256

/* One row's maps: per segment, maps for up to two binades, and the whole
 * row's composed map for each binade every segment has a map for. */
typedef struct PsnrHvsCpuRowMaps {
    int32_t re[2]; ///< binades of the row maps, PSH_SUM_NO_BINADE for none
    uint32_t rd[2][2];
    int nseg;
    int32_t (*e)[2]; ///< [segment][candidate] binade
    uint32_t (*d)[2][2];
} PsnrHvsCpuRowMaps;

/* One frame's maps: rows[p][row], segment storage for rows of nothing but
 * non-zero terms, sized at open. */
typedef struct PsnrHvsCpuSum {
    PsnrHvsCpuRowMaps *rows[3];
    void *mem;
} PsnrHvsCpuSum;

/* nbx, nby: blocks along each of the num_planes planes. 0 or ENOMEM. */
int psnrhvs_cpu_sum_init(PsnrHvsCpuSum *s, const int *nbx, const int *nby, int num_planes);
void psnrhvs_cpu_sum_free(PsnrHvsCpuSum *s);

/* The maps of a row's n terms t (approximate sum approx) for a chain whose
 * value before the row is about prefix, give or take slack. */
void psnrhvs_cpu_sum_row_maps(PsnrHvsCpuRowMaps *m, const float *t, int n, double approx,
                              double prefix, double slack);

/* The chain's value after a row (its n terms t, its maps m) from r before
 * it: exactly the bits of adding the terms one by one. */
float psnrhvs_cpu_sum_walk_row(float r, const PsnrHvsCpuRowMaps *m, const float *t, int n);

/* Whether the maps are computed by a SIMD kernel (the C one costs about 7 ns
 * per term: auto then keeps the chain). */
int psnrhvs_cpu_sum_simd(void);

/* Rows walked so far in the process (tests: did the engine run?). */
size_t psnrhvs_cpu_sum_rows_walked(void);

#endif /* PSNRHVS_SRC_CPU_SUM_H */
