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

/* Candidate binades of the chain's value where an approximation of it (for
 * example an f64 prefix sum rounded to f32) is `approx`: the chain lies within
 * PSH_SUM_DRIFT of it, so it is in binade lo or hi (usually the same one). */
PSH_INLINE int psh_sum_binade_lo(const float approx) {
    return psh_sum_binade(approx * (1.0f - PSH_SUM_DRIFT));
}

PSH_INLINE int psh_sum_binade_hi(const float approx) {
    return psh_sum_binade(approx * (1.0f + PSH_SUM_DRIFT));
}

/* The binade the map of a chunk should be computed for, and the neighbour to
 * compute as well (PSH_SUM_NO_BINADE if the approximation is unambiguous). */
PSH_INLINE int psh_sum_binade_guess(const float approx) {
    return psh_sum_binade(approx);
}

PSH_INLINE int psh_sum_binade_alt(const float approx) {
    const int e = psh_sum_binade(approx);
    const int lo = psh_sum_binade_lo(approx), hi = psh_sum_binade_hi(approx);
    if (lo != e) return lo;
    if (hi != e) return hi;
    return PSH_SUM_NO_BINADE;
}

/* The reference chain over n terms, continuing from r. Used as the exact
 * fallback for a chunk no precomputed map fits. */
#define PSH_SUM_DEFINE_CHAIN(name, QUAL)                                                           \
    PSH_INLINE float name(float r, const QUAL float *const t, const psh_u32 n) {                   \
        psh_u32 i;                                                                                 \
        for (i = 0; i < n; i++) r = r + t[i];                                                      \
        return r;                                                                                  \
    }

/* The map of n consecutive terms for binade e (a chunk reduction, in order;
 * a device may instead reduce with psh_sum_map_compose in any tree shape). */
#define PSH_SUM_DEFINE_REDUCE(name, QUAL)                                                          \
    PSH_INLINE PshSumMap name(const QUAL float *const t, const psh_u32 n, const int e) {           \
        PshSumMap m = psh_sum_map_identity();                                                      \
        psh_u32 i;                                                                                 \
        for (i = 0; i < n; i++) {                                                                  \
            m = psh_sum_map_push(m, t[i], e);                                                      \
            if (m.d[0] >= PSH_SUM_CROSS && m.d[1] >= PSH_SUM_CROSS) break;                         \
        }                                                                                          \
        return m;                                                                                  \
    }

/* The final in-order pass over one chunk: the chunk's precomputed maps for up
 * to two candidate binades (PSH_SUM_NO_BINADE where none), and its terms for
 * the exact fallback. Returns the chain's value after the chunk. */
typedef struct PshSumChunkMaps {
    psh_i32 e[2];
    psh_i32 pad[2];
    PshSumMap m[2];
} PshSumChunkMaps;

#define PSH_SUM_DEFINE_WALK_CHUNK(name, chain, QUAL)                                               \
    PSH_INLINE float name(float r, const QUAL PshSumChunkMaps *const c, const QUAL float *const t, \
                          const psh_u32 n) {                                                       \
        const int e = psh_sum_binade(r);                                                           \
        if (c->e[0] == e && psh_sum_map_apply(c->m[0], e, &r)) return r;                           \
        if (c->e[1] == e && psh_sum_map_apply(c->m[1], e, &r)) return r;                           \
        return chain(r, t, n);                                                                     \
    }

PSH_SUM_DEFINE_CHAIN(psh_sum_chain, )
PSH_SUM_DEFINE_REDUCE(psh_sum_reduce, )
PSH_SUM_DEFINE_WALK_CHUNK(psh_sum_walk_chunk, psh_sum_chain, )
/* OpenCL C 1.2 has no generic address space: global-memory variants. */
#if PSH_OPENCL
PSH_SUM_DEFINE_CHAIN(psh_sum_chain_global, PSH_GLOBAL)
PSH_SUM_DEFINE_REDUCE(psh_sum_reduce_global, PSH_GLOBAL)
PSH_SUM_DEFINE_WALK_CHUNK(psh_sum_walk_chunk_global, psh_sum_chain_global, PSH_GLOBAL)
#else
#define psh_sum_chain_global      psh_sum_chain
#define psh_sum_reduce_global     psh_sum_reduce
#define psh_sum_walk_chunk_global psh_sum_walk_chunk
#endif

#endif /* PSNRHVS_SRC_CORE_EXACT_SUM_H */
