/*
 * GLSL port of src/core/exact_sum.h: the exact parallel f32 sum's pair
 * algebra and the sum plan every backend follows (docs/exact-sum.md).
 * Same functions, same steps; C's int results used as truth values are
 * bools here, and pointers to the running value are inout floats. Only the
 * parts a device runs: no psh_sum_reduce or psh_sum_chain (CPU helpers).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_VULKAN_EXACT_SUM_GLSL
#define PSNRHVS_VULKAN_EXACT_SUM_GLSL

#include "portable.glsl"

#define PSH_SUM_CROSS      (1l << 24)
#define PSH_SUM_BINADE_MIN (-126)
#define PSH_SUM_BINADE_MAX 127
#define PSH_SUM_NO_BINADE  (-32768)
#define PSH_SUM_DRIFT      0.03125

/* n -> n + d[n & 1] (exact_sum.h); 16 bytes, as in C. */
struct PshSumMap {
    psh_i64 d[2];
};

PshSumMap psh_sum_map_identity() {
    PshSumMap m;
    m.d[0] = 0l;
    m.d[1] = 0l;
    return m;
}

PshSumMap psh_sum_map_saturated() {
    PshSumMap m;
    m.d[0] = PSH_SUM_CROSS;
    m.d[1] = PSH_SUM_CROSS;
    return m;
}

/* r >= 0: e with r in [2^e, 2^(e+1)); -126 for +0 and subnormals; 128 for
 * inf and NaN. The sign bit is ignored. */
int psh_sum_binade(const float r) {
    const psh_u32 be = (psh_float_as_u32(r) >> 23) & 0xffu;
    return be != 0u ? int(be) - 127 : PSH_SUM_BINADE_MIN;
}

/* The map of `r = fl32(r + t)` for r in binade e, as long as the result stays
 * in binade e (exact_sum.h). */
PshSumMap psh_sum_map_term(const float t, const int e) {
    const psh_u32 bits = psh_float_as_u32(t);
    PshSumMap m;
    if ((bits & 0x7fffffffu) == 0u) return psh_sum_map_identity();
    if ((bits >> 31) != 0u || (bits >> 23) == 0xffu || e < PSH_SUM_BINADE_MIN ||
        e > PSH_SUM_BINADE_MAX)
        return psh_sum_map_saturated();
    {
        const int be = int(bits >> 23);
        const psh_u32 sig = (bits & 0x7fffffu) | (be != 0 ? 0x800000u : 0u);
        /* t / u = sig * 2^s with u = 2^(e-23) and t = sig * 2^(max(be,1)-150) */
        const int s = (be != 0 ? be : 1) - 127 - e;
        psh_i64 k;
        if (s >= 0) {
            /* sig >= 1, so k >= 2^s: from s = 24 on it always crosses */
            if (s >= 24) return psh_sum_map_saturated();
            k = psh_i64(sig) << s;
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
            k = psh_i64(sig >> sh);
            if (rem > halfway) {
                m.d[0] = k + 1l;
                m.d[1] = k + 1l;
            } else if (rem == halfway) {
                /* tie: round n + k up exactly when it is odd */
                m.d[0] = k + (k & 1l);
                m.d[1] = k + 1l - (k & 1l);
            } else {
                m.d[0] = k;
                m.d[1] = k;
            }
            return m;
        }
    }
}

/* a then b: (a then b)[p] = a[p] + b[(p + a[p]) & 1], saturated. */
PshSumMap psh_sum_map_compose(const PshSumMap a, const PshSumMap b) {
    PshSumMap m;
    PSH_UNROLL
    for (int p = 0; p < 2; p++) {
        const psh_i64 x = a.d[p];
        if (x >= PSH_SUM_CROSS) {
            m.d[p] = PSH_SUM_CROSS;
        } else {
            /* A select, not b.d[index] (exact_sum.h). */
            const psh_i64 y = x + (((p + int(x & 1l)) & 1) != 0 ? b.d[1] : b.d[0]);
            m.d[p] = y >= PSH_SUM_CROSS ? PSH_SUM_CROSS : y;
        }
    }
    return m;
}

/* The map of one more term: psh_sum_map_compose(m, psh_sum_map_term(t, e)). */
PshSumMap psh_sum_map_push(const PshSumMap m, const float t, const int e) {
    return psh_sum_map_compose(m, psh_sum_map_term(t, e));
}

/* If r lies in binade e and m keeps it there, store the result and return
 * true; otherwise leave r alone and return false (exact_sum.h). */
bool psh_sum_map_apply(const PshSumMap m, const int e, inout float r) {
    const psh_u32 bits = psh_float_as_u32(r);
    const psh_u32 be = bits >> 23; /* includes the sign bit: negative r fails */
    psh_i64 n;
    if (e < PSH_SUM_BINADE_MIN || e > PSH_SUM_BINADE_MAX) return false;
    if ((be != 0u ? int(be) - 127 : PSH_SUM_BINADE_MIN) != e) return false;
    /* n = r / 2^(e-23): the significand with its hidden bit */
    n = psh_i64((bits & 0x7fffffu) | (be != 0u ? 0x800000u : 0u));
    n += (n & 1l) != 0l ? m.d[1] : m.d[0]; /* a select: see psh_sum_map_compose */
    if (n >= PSH_SUM_CROSS) return false;
    /* bits = ((e + 126) << 23) + n works for normal and subnormal alike */
    r = psh_u32_as_float((psh_u32(e + 126) << 23) + psh_u32(n));
    return true;
}

/* The sum plan (exact_sum.h): candidate binades for a run's maps. */
struct PshSumCandidates {
    psh_i32 e[2];
};

PshSumCandidates psh_sum_candidates(const float at, const float lo, const float hi) {
    PshSumCandidates c;
    const int e0 = psh_sum_binade(at);
    precise float lo_d = lo * (1.0 - PSH_SUM_DRIFT);
    precise float hi_d = hi * (1.0 + PSH_SUM_DRIFT);
    const int elo = psh_sum_binade(lo_d);
    const int ehi = psh_sum_binade(hi_d);
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

/* A run's maps for its candidate binades, as the walk reads them: 48 bytes
 * in std430, as PshSumChunkMaps in C. */
struct PshSumChunkMaps {
    psh_i32 e[2];
    psh_i32 pad[2];
    PshSumMap m[2];
};

/* One step of the walk (exact_sum.h's psh_sum_step). */
bool psh_sum_step(const PshSumChunkMaps m, inout float r) {
    const int e = psh_sum_binade(r);
    if (m.e[0] == e && psh_sum_map_apply(m.m[0], e, r)) return true;
    return m.e[1] == e && psh_sum_map_apply(m.m[1], e, r);
}

#endif
