/*
 * psnrhvs: NEON lane kernel of the exact-sum engine (dsp.h), the AVX2
 * kernel's steps (src/x86/sum_avx2.c) on two 4-lane halves: lanes 0-3 and
 * 4-7 of PSNRHVS_SUM_LANES each in a vector of their own.
 * SPDX-License-Identifier: BSD-2-Clause
 *
 * Each of the 8 lanes reduces its own contiguous run of terms: 4x4 blocks
 * (4 terms of 4 lanes) are loaded row by row and transposed, so one vector
 * holds the next term of 4 lanes. Per term and lane (docs/exact-sum.md):
 *   y = t * 2^(23-e)                 exact (power-of-two scaling); y < 2^-126
 *                                    may round, but stays far below 1/2
 *   k = trunc(y), f = y - k          both exact for y < 2^23
 *   y >= 2^23, NaN or t < 0          the lane crosses: sticky flag (FCVTZS
 *                                    saturates where cvttps gives INT_MIN;
 *                                    either way k is masked off)
 *   for both starting parities (tracks a0 from 0, a1 from 1):
 *   a = a + k + (f > 1/2 | (f == 1/2 & (a + k) odd))
 * Non-crossing terms add less than 2^23, so the tracks are clamped at 2^25
 * at least every 256 steps and never wrap in 32 bits; where exactly they are
 * clamped changes nothing (any track above 2^23 - 1 is written as crossing).
 */
#include <arm_neon.h>
#include <stdint.h>

#include "dsp.h"

#ifndef PREFETCH
#define PREFETCH 32
#endif

/* Mutation testing only (tests/run_arm64.sh, src/arm/CMakeLists.txt): 3
 * rounds ties up instead of to even in lane 6 (lane 2 of the upper half);
 * checkasm must then fail. 0 (the only value of a real build): none. */
#ifndef PSNRHVS_NEON_MUTATION
#define PSNRHVS_NEON_MUTATION 0
#endif

typedef struct LaneState {
    uint32x4_t a0, a1, sat;
} LaneState;

static inline void step(LaneState *const s, const float32x4_t t, const float32x4_t scale,
                        const int upper) {
    const float32x4_t y = vmulq_f32(t, scale);
    /* !(y < 2^23): NaN included, as _CMP_NLT_UQ */
    const uint32x4_t big = vmvnq_u32(vcltq_f32(y, vdupq_n_f32(0x1p23f)));
    const uint32x4_t neg = vcltq_f32(t, vdupq_n_f32(0.0f));
    const uint32x4_t sat = vorrq_u32(big, neg);
    const int32x4_t ki = vcvtq_s32_f32(y); /* toward zero */
    const float32x4_t f = vsubq_f32(y, vcvtq_f32_s32(ki));
    const uint32x4_t one = vdupq_n_u32(1);
    uint32x4_t up = vandq_u32(vcgtq_f32(f, vdupq_n_f32(0.5f)), one);
    const uint32x4_t tie = vandq_u32(vceqq_f32(f, vdupq_n_f32(0.5f)), one);
    if (PSNRHVS_NEON_MUTATION == 3 && upper)
        up = vorrq_u32(up, vandq_u32(tie, (uint32x4_t){0, 0, 1, 0}));
    const uint32x4_t k = vbicq_u32(vreinterpretq_u32_s32(ki), sat);
    const uint32x4_t ak0 = vaddq_u32(s->a0, k);
    const uint32x4_t ak1 = vaddq_u32(s->a1, k);
    s->sat = vorrq_u32(s->sat, sat);
    s->a0 = vaddq_u32(ak0, vorrq_u32(vandq_u32(ak0, tie), up));
    s->a1 = vaddq_u32(ak1, vorrq_u32(vandq_u32(ak1, tie), up));
}

/* r[j] holds terms i..i+3 of lane j: transposed, r[c] holds term i + c of
 * lanes 0..3. */
static inline void transpose4(float32x4_t r[4]) {
    const float32x4_t t0 = vtrn1q_f32(r[0], r[1]), t1 = vtrn2q_f32(r[0], r[1]);
    const float32x4_t t2 = vtrn1q_f32(r[2], r[3]), t3 = vtrn2q_f32(r[2], r[3]);
    r[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    r[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    r[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    r[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

/* Terms i..i+3 of the 8 lanes (r[0..3]: lanes 0-3, r[4..7]: lanes 4-7). */
static inline void block(LaneState s[2], float32x4_t r[8], const float32x4_t scale[2]) {
    for (int h = 0; h < 2; h++) {
        transpose4(r + 4 * h);
        for (int c = 0; c < 4; c++) step(&s[h], r[4 * h + c], scale[h], h);
    }
}

static inline void clamp(LaneState s[2], const uint32x4_t lim) {
    for (int h = 0; h < 2; h++) {
        s[h].a0 = vminq_u32(s[h].a0, lim);
        s[h].a1 = vminq_u32(s[h].a1, lim);
    }
}

void psh_sum_lanes_neon(const float *const terms, const uint32_t count, const uint32_t stride,
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
    float32x4_t scale[2];
    for (int h = 0; h < 2; h++)
        scale[h] = vreinterpretq_f32_s32(
            vshlq_n_s32(vsubq_s32(vdupq_n_s32(150), vld1q_s32(e + 4 * h)), 23));
    const uint32x4_t lim25 = vdupq_n_u32(1u << 25);
    LaneState s[2];
    for (int h = 0; h < 2; h++) s[h] = (LaneState){vdupq_n_u32(0), vdupq_n_u32(1), vdupq_n_u32(0)};
    float32x4_t r[8];
    uint32_t i = 0;

    for (; i + 4 <= minlen; i += 4) {
        /* 8 streams 1 KiB apart: ask for the line after next of every lane */
        if (!(i & 12) && i + PREFETCH < minlen)
            for (int j = 0; j < 8; j++) __builtin_prefetch(p[j] + i + PREFETCH);
        for (int j = 0; j < 8; j++) r[j] = vld1q_f32(p[j] + i);
        block(s, r, scale);
        if ((i & 0xfc) == 0xfc) clamp(s, lim25);
    }
    for (; i < maxlen; i += 4) {
        for (int j = 0; j < 8; j++) {
            /* the lane's last terms, zeros after them (a zero changes no track) */
            float tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            const uint32_t rem = len[j] > i ? len[j] - i : 0;
            for (uint32_t c = 0; c < rem && c < 4; c++) tail[c] = p[j][i + c];
            r[j] = vld1q_f32(tail);
        }
        block(s, r, scale);
        if ((i & 0xfc) == 0xfc) clamp(s, lim25);
    }

    const uint32x4_t cross = vdupq_n_u32(PSNRHVS_SUM_KERNEL_CROSS);
    const uint32x4_t lim = vdupq_n_u32((1u << 23) - 1);
    for (int h = 0; h < 2; h++) {
        uint32x4_t d0 = vminq_u32(s[h].a0, lim25);
        uint32x4_t d1 = vsubq_u32(vminq_u32(s[h].a1, lim25), vdupq_n_u32(1));
        d0 = vbslq_u32(vorrq_u32(s[h].sat, vcgtq_u32(d0, lim)), cross, d0);
        d1 = vbslq_u32(vorrq_u32(s[h].sat, vcgtq_u32(d1, lim)), cross, d1);
        uint32_t o0[4], o1[4];
        vst1q_u32(o0, d0);
        vst1q_u32(o1, d1);
        for (int j = 0; j < 4; j++) {
            d[4 * h + j][0] = o0[j];
            d[4 * h + j][1] = o1[j];
        }
    }
}
