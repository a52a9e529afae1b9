/*
 * psnrhvs: exact parallel f32 sum, the portable pair algebra.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Reproduces `r = 0; for each t: r = fl32(r + t)` (all t >= 0, round to
 * nearest even) without running the chain: inside one binade the chain is
 * integer addition plus one parity bit, composed associatively.
 * shared/spec/exact-parallel-sum.md gives the idea, docs/exact-sum.md the proof.
 *
 * This header is part of the portable subset (src/core/): C11, CUDA, HIP and
 * OpenCL C compile it. No libm, no double, no 128-bit integers, no recursion,
 * only psh_* types, every function PSH_INLINE.
 */
#ifndef PSNRHVS_SRC_CORE_EXACT_SUM_H
#define PSNRHVS_SRC_CORE_EXACT_SUM_H

#include "portable.h"

/* n lies in [0, 2^24) for a value of binade e written as n * 2^(e-23): any
 * count at or above PSH_SUM_CROSS means the binade was left (or overflowed). */
#define PSH_SUM_CROSS ((psh_i64)1 << 24)
/* Binade of +0 and of every subnormal: all share the spacing 2^-149. */
#define PSH_SUM_BINADE_MIN (-126)
/* Binade of the largest finite f32; psh_sum_binade() gives 128 for inf/NaN. */
#define PSH_SUM_BINADE_MAX 127
/* "No map computed" marker for a candidate binade. */
#define PSH_SUM_NO_BINADE (-32768)
/* Relative margin around an approximate prefix inside which the f32 chain's
 * value may lie (the chain drifts from the exact sum by up to about 0.25 % on a
 * 4K plane, see the spec). Only speed depends on it, never the result. */
#define PSH_SUM_DRIFT 0.03125f

/* n -> n + d[n & 1], n being the count of 2^(e-23) steps of the running value.
 * Entries are saturated at PSH_SUM_CROSS. */
typedef struct PshSumMap {
    psh_i64 d[2];
} PshSumMap;

PSH_INLINE PshSumMap psh_sum_map_identity(void) {
    PshSumMap m;
    m.d[0] = 0;
    m.d[1] = 0;
    return m;
}

PSH_INLINE PshSumMap psh_sum_map_saturated(void) {
    PshSumMap m;
    m.d[0] = PSH_SUM_CROSS;
    m.d[1] = PSH_SUM_CROSS;
    return m;
}

/* r >= 0: e with r in [2^e, 2^(e+1)); -126 for +0 and subnormals; 128 for
 * inf and NaN (no map is ever valid there). The sign bit is ignored. */
PSH_INLINE int psh_sum_binade(const float r) {
    const psh_u32 be = (psh_float_as_u32(r) >> 23) & 0xffu;
    return be ? (int)be - 127 : PSH_SUM_BINADE_MIN;
}

/* The map of `r = fl32(r + t)` for r in binade e, as long as the result stays
 * in binade e. t = m * 2^(q) with an integer significand m < 2^24, so
 * t / 2^(e-23) = m * 2^s is exact: k = its integer part, and the bits shifted
 * out say whether the fraction is below, at, or above one half. A negative,
 * infinite or NaN t, or a t that alone leaves the binade, gives the saturated
 * map (the caller then adds those terms one by one). -0 acts like +0. */
PSH_INLINE PshSumMap psh_sum_map_term(const float t, const int e) {
    const psh_u32 bits = psh_float_as_u32(t);
    PshSumMap m;
    if ((bits & 0x7fffffffu) == 0) return psh_sum_map_identity();
    if ((bits >> 31) != 0 || (bits >> 23) == 0xffu || e < PSH_SUM_BINADE_MIN ||
        e > PSH_SUM_BINADE_MAX)
        return psh_sum_map_saturated();
    {
        const int be = (int)(bits >> 23);
        const psh_u32 sig = (bits & 0x7fffffu) | (be ? 0x800000u : 0u);
        /* t / u = sig * 2^s with u = 2^(e-23) and t = sig * 2^(max(be,1)-150) */
        const int s = (be ? be : 1) - 127 - e;
        psh_i64 k;
        if (s >= 0) {
            /* sig >= 1, so k >= 2^s: from s = 24 on it always crosses */
            if (s >= 24) return psh_sum_map_saturated();
            k = (psh_i64)sig << s;
            if (k >= PSH_SUM_CROSS) return psh_sum_map_saturated();
            m.d[0] = k;
            m.d[1] = k;
            return m;
        }
        if (s < -24) return psh_sum_map_identity(); /* sig < 2^24 <= half: f < 1/2, k = 0 */
        {
            const int sh = -s; /* 1..24 */
            const psh_u32 rem = sig & ((1u << sh) - 1u);
            const psh_u32 halfway = 1u << (sh - 1);
            k = (psh_i64)(sig >> sh);
            if (rem > halfway) {
                m.d[0] = k + 1;
                m.d[1] = k + 1;
            } else if (rem == halfway) {
                /* tie: round n + k up exactly when it is odd */
                m.d[0] = k + (k & 1);
                m.d[1] = k + 1 - (k & 1);
            } else {
                m.d[0] = k;
                m.d[1] = k;
            }
            return m;
        }
    }
}

/* a then b: (a then b)[p] = a[p] + b[(p + a[p]) & 1], saturated. */
PSH_INLINE PshSumMap psh_sum_map_compose(const PshSumMap a, const PshSumMap b) {
    PshSumMap m;
    int p;
    for (p = 0; p < 2; p++) {
        const psh_i64 x = a.d[p];
        if (x >= PSH_SUM_CROSS) {
            m.d[p] = PSH_SUM_CROSS;
        } else {
            /* A select, not b.d[index]: a run-time index would put the map in
             * a GPU's local memory. */
            const psh_i64 y = x + (((p + (int)(x & 1)) & 1) ? b.d[1] : b.d[0]);
            m.d[p] = y >= PSH_SUM_CROSS ? PSH_SUM_CROSS : y;
        }
    }
    return m;
}

/* The map of one more term: psh_sum_map_compose(m, psh_sum_map_term(t, e)). */
PSH_INLINE PshSumMap psh_sum_map_push(const PshSumMap m, const float t, const int e) {
    return psh_sum_map_compose(m, psh_sum_map_term(t, e));
}

/* If *r lies in binade e and m keeps it there, store the result and return 1.
 * Otherwise leave *r alone and return 0: the caller adds that chunk's terms
 * one by one. Since no term is negative, n never decreases, so a final n
 * below 2^24 proves every intermediate value stayed in the binade. */
PSH_INLINE int psh_sum_map_apply(const PshSumMap m, const int e, float *const r) {
    const psh_u32 bits = psh_float_as_u32(*r);
    const psh_u32 be = bits >> 23; /* includes the sign bit: negative r fails */
    psh_i64 n;
    if (e < PSH_SUM_BINADE_MIN || e > PSH_SUM_BINADE_MAX) return 0;
    if ((be ? (int)be - 127 : PSH_SUM_BINADE_MIN) != e) return 0;
    /* n = r / 2^(e-23): the significand with its hidden bit (for e = -126
     * that is the raw field whether r is subnormal or not) */
    n = (psh_i64)((bits & 0x7fffffu) | (be ? 0x800000u : 0u));
    n += (n & 1) ? m.d[1] : m.d[0]; /* a select: see psh_sum_map_compose */
    if (n >= PSH_SUM_CROSS) return 0;
    /* bits = ((e + 126) << 23) + n works for normal and subnormal alike */
    *r = psh_u32_as_float(((psh_u32)(e + 126) << 23) + (psh_u32)n);
    return 1;
}

/* The map of n consecutive terms for binade e, in order (a device may
 * instead reduce with psh_sum_map_compose in any tree shape). */
PSH_INLINE PshSumMap psh_sum_reduce(const float *const t, const psh_u32 n, const int e) {
    PshSumMap m = psh_sum_map_identity();
    psh_u32 i;
    for (i = 0; i < n; i++) {
        m = psh_sum_map_push(m, t[i], e);
        if (m.d[0] >= PSH_SUM_CROSS && m.d[1] >= PSH_SUM_CROSS) break;
    }
    return m;
}

/* The reference chain over n terms, continuing from r: the exact fallback
 * for a run of terms no precomputed map fits. */
PSH_INLINE float psh_sum_chain(float r, const float *const t, const psh_u32 n) {
    psh_u32 i;
    for (i = 0; i < n; i++) r = r + t[i];
    return r;
}

/*
 * The sum plan, shared by every backend. A run of terms (a segment, a block,
 * a chunk) gets maps for up to two candidate binades, chosen here from
 * approximations only; the walk then adds the runs in order, each through
 * the map of the binade the chain is really in (psh_sum_step), or term by
 * term when none fits. The guesses steer speed, never the bits.
 */
typedef struct PshSumCandidates {
    psh_i32 e[2]; ///< binades to compute maps for, PSH_SUM_NO_BINADE where none
} PshSumCandidates;

/* The chain's value where a run starts is about `at` and, up to the f32
 * chain's drift from exact sums (PSH_SUM_DRIFT), between lo and hi. The
 * candidates are the binade of `at` and the neighbour that range reaches
 * into; where it reaches both ways, the neighbour nearer to `at` (its
 * significand against sqrt 2). Backends differ only in how they bound the
 * start: a GPU knows an approximate prefix (lo = hi = at), the CPU row tasks
 * an uncertain one, a run may reach to its own end. */
PSH_INLINE PshSumCandidates psh_sum_candidates(const float at, const float lo, const float hi) {
    PshSumCandidates c;
    const int e0 = psh_sum_binade(at);
    const int elo = psh_sum_binade(lo * (1.0f - PSH_SUM_DRIFT));
    const int ehi = psh_sum_binade(hi * (1.0f + PSH_SUM_DRIFT));
    c.e[0] = e0;
    if (elo < e0 && ehi > e0)
        c.e[1] = (psh_float_as_u32(at) & 0x7fffffu) >= 0x3504f3u ? e0 + 1 : e0 - 1;
    else if (elo < e0)
        c.e[1] = e0 - 1;
    else if (ehi > e0)
        c.e[1] = e0 + 1;
    else
        c.e[1] = PSH_SUM_NO_BINADE;
    return c;
}

/* A run's maps for its candidate binades, as the walk reads them. */
typedef struct PshSumChunkMaps {
    psh_i32 e[2];
    psh_i32 pad[2];
    PshSumMap m[2];
} PshSumChunkMaps;

/* One step of the walk: if the chain *r is in one of the run's candidate
 * binades and that map keeps it there, apply it and return 1; otherwise
 * return 0 and the caller descends to smaller runs or single terms. */
PSH_INLINE int psh_sum_step(const PshSumChunkMaps m, float *const r) {
    const int e = psh_sum_binade(*r);
    if (m.e[0] == e && psh_sum_map_apply(m.m[0], e, r)) return 1;
    return m.e[1] == e && psh_sum_map_apply(m.m[1], e, r);
}

#endif /* PSNRHVS_SRC_CORE_EXACT_SUM_H */
