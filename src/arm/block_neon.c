/*
 * NEON (AArch64 Advanced SIMD) block rows: 4 blocks per vector, the SIMD
 * kernels' template (src/block_tmpl.h: every lane runs the scalar
 * sequence of operations) over 128-bit vectors. Compiled with
 * -ffp-contract=off: GCC's arm_neon.h writes vmulq_f32 and vaddq_f32 as plain
 * C operators, which GNU C would otherwise fuse into fmla. AArch64's vector
 * division, square root and int-to-float conversion are IEEE (correctly
 * rounded, FPCR's round-to-nearest), and subnormals are kept (FPCR.FZ = 0,
 * the Linux default; psnrhvs never sets it).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <arm_neon.h>
#include <stdint.h>

#include "dsp.h"

#define LANES 4
#if defined(__GNUC__) && !defined(__clang__)
#define TMPL_DCT_UNROLL _Pragma("GCC unroll 1")
#else
#define TMPL_DCT_UNROLL _Pragma("nounroll")
#endif
typedef int32x4_t VI;
typedef float32x4_t VF;

/* Mutation testing only (tests/run_arm64.sh, PSNRHVS_NEON_MUTATION in
 * src/arm/CMakeLists.txt): 1 puts lane 3 of every division one ulp up, 2
 * adds one to lane 0 of every integer product (the DCT's and the energy's);
 * checkasm must then fail. 0 (the only value of a real build): none. */
#ifndef PSNRHVS_NEON_MUTATION
#define PSNRHVS_NEON_MUTATION 0
#endif
#define MUTATE_LANE(v, m, l0, l1, l2, l3)                                                          \
    (PSNRHVS_NEON_MUTATION == (m) ? vaddq_u32(v, (uint32x4_t){l0, l1, l2, l3}) : (v))

#define I_ADD(a, b)  vaddq_s32(a, b)
#define I_SUB(a, b)  vsubq_s32(a, b)
#define I_SRAI(a, s) vshrq_n_s32(a, s)
#define I_SRLI(a, s) vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(a), s))
/* the low 32 bits: wraps as the C code's u32 product */
#define I_MULLO(a, b)                                                                              \
    vreinterpretq_s32_u32(MUTATE_LANE(vreinterpretq_u32_s32(vmulq_s32(a, b)), 2, 1, 0, 0, 0))
#define I_SET1(k)   vdupq_n_s32(k)
#define I_ABS(a)    vabsq_s32(a)
#define F_CVT(a)    vcvtq_f32_s32(a)
#define F_ADD(a, b) vaddq_f32(a, b)
#define F_SUB(a, b) vsubq_f32(a, b)
#define F_MUL(a, b) vmulq_f32(a, b)
#define F_DIV(a, b)                                                                                \
    vreinterpretq_f32_u32(MUTATE_LANE(vreinterpretq_u32_f32(vdivq_f32(a, b)), 1, 0, 0, 0, 1))
#define F_SQRT(a)     vsqrtq_f32(a)
#define F_SET1(f)     vdupq_n_f32(f)
#define F_ZERO()      vdupq_n_f32(0.0f)
#define F_STORE(p, a) vst1q_f32(p, a)
#define F_LOAD(p)     vld1q_f32(p)
/* a > b ? a : b, with b kept for NaN as the scalar comparison does (not
 * vmaxq_f32, which returns the NaN). */
#define F_GT_SELECT(a, b) vbslq_f32(vcgtq_f32(a, b), a, b)
/* err < lim ? 0 : err - lim (an ordered comparison: NaN keeps err - lim) */
#define F_SUB_OR_ZERO(err, lim)                                                                    \
    vreinterpretq_f32_u32(                                                                         \
        vbicq_u32(vreinterpretq_u32_f32(vsubq_f32(err, lim)), vcltq_f32(err, lim)))
/* gvar > 0 ? sum / gvar : gvar */
#define F_RATIO(sum, gvar) vbslq_f32(vcgtq_f32(gvar, vdupq_n_f32(0.0f)), vdivq_f32(sum, gvar), gvar)

/* Block b starts 7 * b samples right; lanes past n repeat the last block. */
static inline int block_off(const int b, const int n) {
    return 7 * (b < n ? b : n - 1);
}

/* Byte indices of sample j of blocks 0..3 in {row of block 0, 1} {2, 3}, each
 * followed by three out-of-range indices: TBL writes zeros there, so one
 * lookup widens the four samples to u32. */
static const uint8_t widen8_idx[8][16] = {
#define W8(j)                                                                                      \
    { j, 255, 255, 255, 8 + j, 255, 255, 255, 16 + j, 255, 255, 255, 24 + j, 255, 255, 255 }
    W8(0), W8(1), W8(2), W8(3), W8(4), W8(5), W8(6), W8(7),
#undef W8
};

static inline void load_blocks_8(VI x[64], const uint8_t *p, const ptrdiff_t stride, const int n) {
    int off[4];
    for (int b = 0; b < 4; b++) off[b] = block_off(b, n);
    uint8x16_t idx[8];
    for (int j = 0; j < 8; j++) idx[j] = vld1q_u8(widen8_idx[j]);
    for (int i = 0; i < 8; i++, p += stride) {
        /* 8 bytes of each block: exactly its samples */
        const uint8x16x2_t r = {{vcombine_u8(vld1_u8(p + off[0]), vld1_u8(p + off[1])),
                                 vcombine_u8(vld1_u8(p + off[2]), vld1_u8(p + off[3]))}};
        for (int j = 0; j < 8; j++) x[i * 8 + j] = vreinterpretq_s32_u8(vqtbl2q_u8(r, idx[j]));
    }
}

static inline void load_blocks_16(VI x[64], const uint16_t *p, const ptrdiff_t stride,
                                  const int n) {
    int off[4];
    for (int b = 0; b < 4; b++) off[b] = block_off(b, n);
    const uint8_t *row = (const uint8_t *)p;
    for (int i = 0; i < 8; i++, row += stride) {
        const uint16_t *const r16 = (const uint16_t *)(const void *)row;
        const uint16x8_t r0 = vld1q_u16(r16 + off[0]), r1 = vld1q_u16(r16 + off[1]);
        const uint16x8_t r2 = vld1q_u16(r16 + off[2]), r3 = vld1q_u16(r16 + off[3]);
        /* 4x8 transpose of u16: a* pair blocks 0,1 and 2,3 sample by sample,
         * c[m] holds samples 2m and 2m+1 of the four blocks. */
        const uint32x4_t a0 = vreinterpretq_u32_u16(vzip1q_u16(r0, r1));
        const uint32x4_t a1 = vreinterpretq_u32_u16(vzip2q_u16(r0, r1));
        const uint32x4_t a2 = vreinterpretq_u32_u16(vzip1q_u16(r2, r3));
        const uint32x4_t a3 = vreinterpretq_u32_u16(vzip2q_u16(r2, r3));
        const uint16x8_t c[4] = {
            vreinterpretq_u16_u32(vzip1q_u32(a0, a2)), vreinterpretq_u16_u32(vzip2q_u32(a0, a2)),
            vreinterpretq_u16_u32(vzip1q_u32(a1, a3)), vreinterpretq_u16_u32(vzip2q_u32(a1, a3))};
        for (int m = 0; m < 4; m++) {
            x[i * 8 + 2 * m] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(c[m])));
            x[i * 8 + 2 * m + 1] = vreinterpretq_s32_u32(vmovl_high_u16(c[m]));
        }
    }
}

/* 4x4 transpose of f32: v[r] lane c becomes v[c] lane r. */
static inline void transpose4(VF v[4]) {
    const float32x4_t t0 = vtrn1q_f32(v[0], v[1]), t1 = vtrn2q_f32(v[0], v[1]);
    const float32x4_t t2 = vtrn1q_f32(v[2], v[3]), t3 = vtrn2q_f32(v[2], v[3]);
    v[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    v[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    v[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

/* Byte shuffles that move the lanes set in a 4-bit mask to the front
 * (the rest is never counted, its bytes do not matter). */
static const uint8_t compress_idx[16][16] = {
#define L(l) 4 * (l), 4 * (l) + 1, 4 * (l) + 2, 4 * (l) + 3
    {L(0), L(0), L(0), L(0)}, {L(0), L(0), L(0), L(0)}, {L(1), L(0), L(0), L(0)},
    {L(0), L(1), L(0), L(0)}, {L(2), L(0), L(0), L(0)}, {L(0), L(2), L(0), L(0)},
    {L(1), L(2), L(0), L(0)}, {L(0), L(1), L(2), L(0)}, {L(3), L(0), L(0), L(0)},
    {L(0), L(3), L(0), L(0)}, {L(1), L(3), L(0), L(0)}, {L(0), L(1), L(3), L(0)},
    {L(2), L(3), L(0), L(0)}, {L(0), L(2), L(3), L(0)}, {L(1), L(2), L(3), L(0)},
    {L(0), L(1), L(2), L(3)},
#undef L
};

/* The non-zero terms of blocks 0..n-1, block by block, k order inside. */
static inline int emit_terms(float *out, VF t[64], const int n) {
    /* After the transposes t[g * 4 + b] holds terms 4g..4g+3 of block b. */
    for (int g = 0; g < 16; g++) transpose4(t + 4 * g);
    const uint32x4_t bit = {1, 2, 4, 8};
    int count = 0;
    for (int b = 0; b < n; b++) {
        for (int g = 0; g < 16; g++) {
            const float32x4_t v = t[g * 4 + b];
            /* kept: != 0, NaN included (an ordered equality is false for it) */
            const uint32x4_t keep = vmvnq_u32(vceqq_f32(v, vdupq_n_f32(0.0f)));
            const unsigned m = vaddvq_u32(vandq_u32(keep, bit));
            const uint8x16_t idx = vld1q_u8(compress_idx[m]);
            vst1q_f32(out + count, vreinterpretq_f32_u8(vqtbl1q_u8(vreinterpretq_u8_f32(v), idx)));
            count += __builtin_popcount(m);
        }
    }
    return count;
}

#include "block_tmpl.h"

// clang-format off
DEF_ROW_TERMS(psh_row_terms_8bpc_neon, uint8_t, load_blocks_8)
DEF_ROW_TERMS(psh_row_terms_16bpc_neon, uint16_t, load_blocks_16)
DEF_ROW_TERMS_LADDER(psh_row_terms_ladder_8bpc_neon, uint8_t, load_blocks_8)
DEF_ROW_TERMS_LADDER(psh_row_terms_ladder_16bpc_neon, uint16_t, load_blocks_16)
// clang-format on
