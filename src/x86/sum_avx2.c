/*
 * psnrhvs: AVX2 lane kernel of the exact-sum engine (dsp.h). Compiled with -mavx2
 * (never -mfma); called only when the CPU reports AVX2.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Each of the 8 lanes reduces its own contiguous run of terms: 8x8 blocks are
 * loaded row by row (one row per lane) and transposed, so one vector holds
 * the next term of every lane. Per term and lane (docs/exact-sum.md):
 *   y = t * 2^(23-e)                 exact (power-of-two scaling); y < 2^-126
 *                                    may round, but stays far below 1/2
 *   k = trunc(y), f = y - k          both exact for y < 2^23
 *   y >= 2^23, NaN or t < 0          the lane crosses: sticky flag
 *   for both starting parities (tracks a0 from 0, a1 from 1):
 *   a = a + k + (f > 1/2 | (f == 1/2 & (a + k) odd))
 * Non-crossing terms add less than 2^23, so the tracks are clamped at 2^25
 * only every 256 steps and never wrap in 32 bits.
 */
#include <immintrin.h>
#include <stdint.h>

#include "dsp.h"
#include "x86/transpose_avx2.h"

#ifndef PREFETCH
#define PREFETCH 32
#endif

typedef struct LaneState {
    __m256i a0, a1, sat;
} LaneState;

static inline void step(LaneState *const s, const __m256 t, const __m256 scale) {
    const __m256 y = _mm256_mul_ps(t, scale);
    const __m256 big = _mm256_cmp_ps(y, _mm256_set1_ps(0x1p23f), _CMP_NLT_UQ);
    const __m256 neg = _mm256_cmp_ps(t, _mm256_setzero_ps(), _CMP_LT_OQ);
    const __m256i sat = _mm256_castps_si256(_mm256_or_ps(big, neg));
    const __m256i ki = _mm256_cvttps_epi32(y);
    const __m256 f = _mm256_sub_ps(y, _mm256_cvtepi32_ps(ki));
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i up = _mm256_and_si256(
        _mm256_castps_si256(_mm256_cmp_ps(f, _mm256_set1_ps(0.5f), _CMP_GT_OQ)), one);
    const __m256i tie = _mm256_and_si256(
        _mm256_castps_si256(_mm256_cmp_ps(f, _mm256_set1_ps(0.5f), _CMP_EQ_OQ)), one);
    const __m256i k = _mm256_andnot_si256(sat, ki);
    const __m256i ak0 = _mm256_add_epi32(s->a0, k);
    const __m256i ak1 = _mm256_add_epi32(s->a1, k);
    s->sat = _mm256_or_si256(s->sat, sat);
    s->a0 = _mm256_add_epi32(ak0, _mm256_or_si256(_mm256_and_si256(ak0, tie), up));
    s->a1 = _mm256_add_epi32(ak1, _mm256_or_si256(_mm256_and_si256(ak1, tie), up));
}

static inline void block(LaneState *const s, __m256 r[8], const __m256 scale) {
    psh_transpose8_avx2(r);
    for (int c = 0; c < 8; c++) step(s, r[c], scale);
}

void psh_sum_lanes_avx2(const float *const terms, const uint32_t count, const uint32_t stride,
                        const int32_t e[PSNRHVS_SUM_LANES], uint32_t d[PSNRHVS_SUM_LANES][2]) {
    uint32_t len[PSNRHVS_SUM_LANES];
    const float *p[PSNRHVS_SUM_LANES];
    for (int j = 0; j < PSNRHVS_SUM_LANES; j++) {
        const uint64_t start = (uint64_t)j * stride;
        len[j] = start >= count ? 0 : count - start < stride ? (uint32_t)(count - start) : stride;
        p[j] = len[j] ? terms + start : terms;
    }
    const uint32_t maxlen = len[0], minlen = len[PSNRHVS_SUM_LANES - 1];
    /* 2^(23-e) = bits (150 - e) << 23, normal for e in [-101, 127] */
    const __m256i ev = _mm256_loadu_si256((const __m256i *)e);
    const __m256 scale =
        _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(_mm256_set1_epi32(150), ev), 23));
    const __m256i clamp = _mm256_set1_epi32(1 << 25);
    LaneState s = {_mm256_setzero_si256(), _mm256_set1_epi32(1), _mm256_setzero_si256()};
    __m256 r[8];
    uint32_t i = 0;

    for (; i + 8 <= minlen; i += 8) {
        /* 8 streams 1 KiB apart defeat the hardware prefetcher: ask for the
         * line after next of every lane */
        if (!(i & 8) && i + PREFETCH < minlen)
            for (int j = 0; j < 8; j++)
                _mm_prefetch((const char *)(p[j] + i + PREFETCH), _MM_HINT_T0);
        for (int j = 0; j < 8; j++) r[j] = _mm256_loadu_ps(p[j] + i);
        block(&s, r, scale);
        if ((i & 0xf8) == 0xf8) {
            s.a0 = _mm256_min_epu32(s.a0, clamp);
            s.a1 = _mm256_min_epu32(s.a1, clamp);
        }
    }
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (; i < maxlen; i += 8) {
        for (int j = 0; j < 8; j++) {
            const int32_t rem = len[j] > i ? (int32_t)(len[j] - i) : 0;
            const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem), iota);
            r[j] = rem ? _mm256_maskload_ps(p[j] + i, m) : _mm256_setzero_ps();
        }
        block(&s, r, scale);
        if ((i & 0xf8) == 0xf8) {
            s.a0 = _mm256_min_epu32(s.a0, clamp);
            s.a1 = _mm256_min_epu32(s.a1, clamp);
        }
    }

    const __m256i cross = _mm256_set1_epi32((int)PSNRHVS_SUM_KERNEL_CROSS);
    const __m256i lim = _mm256_set1_epi32((1 << 23) - 1);
    __m256i d0 = _mm256_min_epu32(s.a0, clamp);
    __m256i d1 = _mm256_sub_epi32(_mm256_min_epu32(s.a1, clamp), _mm256_set1_epi32(1));
    d0 = _mm256_blendv_epi8(d0, cross, _mm256_or_si256(s.sat, _mm256_cmpgt_epi32(d0, lim)));
    d1 = _mm256_blendv_epi8(d1, cross, _mm256_or_si256(s.sat, _mm256_cmpgt_epi32(d1, lim)));
    uint32_t o0[8], o1[8];
    _mm256_storeu_si256((__m256i *)o0, d0);
    _mm256_storeu_si256((__m256i *)o1, d1);
    for (int j = 0; j < PSNRHVS_SUM_LANES; j++) {
        d[j][0] = o0[j];
        d[j][1] = o1[j];
    }
}
