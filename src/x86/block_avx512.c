/*
 * AVX-512 block rows: 16 blocks per vector (compiled with -mavx512f
 * -mavx512bw -mavx512dq -mavx512vl and -ffp-contract=off: those flags make
 * FMA available, and no mul/add pair may be fused).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <immintrin.h>
#include <stdint.h>

#include "dsp.h"

#define LANES 16
typedef __m512i VI;
typedef __m512 VF;

#define I_ADD(a, b)   _mm512_add_epi32(a, b)
#define I_SUB(a, b)   _mm512_sub_epi32(a, b)
#define I_SRAI(a, s)  _mm512_srai_epi32(a, s)
#define I_SRLI(a, s)  _mm512_srli_epi32(a, s)
#define I_MULLO(a, b) _mm512_mullo_epi32(a, b)
#define I_SET1(k)     _mm512_set1_epi32(k)
#define I_ABS(a)      _mm512_abs_epi32(a)
#define F_CVT(a)      _mm512_cvtepi32_ps(a)
#define F_ADD(a, b)   _mm512_add_ps(a, b)
#define F_SUB(a, b)   _mm512_sub_ps(a, b)
#define F_MUL(a, b)   _mm512_mul_ps(a, b)
#define F_DIV(a, b)   _mm512_div_ps(a, b)
#define F_SQRT(a)     _mm512_sqrt_ps(a)
#define F_SET1(f)     _mm512_set1_ps(f)
#define F_ZERO()      _mm512_setzero_ps()
#define F_STORE(p, a) _mm512_storeu_ps(p, a)
#define F_LOAD(p)     _mm512_loadu_ps(p)
/* a > b ? a : b, with b kept for NaN as the scalar comparison does. */
#define F_GT_SELECT(a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ), b, a)
/* err < lim ? 0 : err - lim */
#define F_SUB_OR_ZERO(err, lim)                                                                    \
    _mm512_maskz_sub_ps(_mm512_cmp_ps_mask(err, lim, _CMP_NLT_UQ), err, lim)
/* gvar > 0 ? sum / gvar : gvar */
#define F_RATIO(sum, gvar)                                                                         \
    _mm512_mask_div_ps(gvar, _mm512_cmp_ps_mask(gvar, _mm512_setzero_ps(), _CMP_GT_OQ), sum, gvar)

/* Block b starts 7 * b samples right; lanes past n repeat the last block. */
static inline int block_off(const int b, const int n) {
    return 7 * (b < n ? b : n - 1);
}

/* Two rows in one register: block b in the low half, block b + 8 high. */
static inline __m256i load2_64(const uint8_t *p, const int lo, const int hi) {
    return _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)(p + lo))),
        _mm_loadl_epi64((const __m128i *)(p + hi)), 1);
}

static inline void load_blocks_8(VI x[64], const uint8_t *p, const ptrdiff_t stride, const int n) {
    int off[16];
    for (int b = 0; b < 16; b++) off[b] = block_off(b, n);
    for (int i = 0; i < 8; i++, p += stride) {
        __m256i r[8];
        for (int b = 0; b < 8; b++) r[b] = load2_64(p, off[b], off[b + 8]);
        /* The 8x8 byte transpose in each half; d[m] = columns 2m, 2m+1. */
        const __m256i a0 = _mm256_unpacklo_epi8(r[0], r[1]), a1 = _mm256_unpacklo_epi8(r[2], r[3]);
        const __m256i a2 = _mm256_unpacklo_epi8(r[4], r[5]), a3 = _mm256_unpacklo_epi8(r[6], r[7]);
        const __m256i c0 = _mm256_unpacklo_epi16(a0, a1), c1 = _mm256_unpackhi_epi16(a0, a1);
        const __m256i c2 = _mm256_unpacklo_epi16(a2, a3), c3 = _mm256_unpackhi_epi16(a2, a3);
        const __m256i d[4] = {_mm256_unpacklo_epi32(c0, c2), _mm256_unpackhi_epi32(c0, c2),
                              _mm256_unpacklo_epi32(c1, c3), _mm256_unpackhi_epi32(c1, c3)};
        for (int m = 0; m < 4; m++) {
            /* qwords (col 2m lo, col 2m+1 lo, col 2m hi, col 2m+1 hi) -> (0, 2, 1, 3) */
            const __m256i e = _mm256_permute4x64_epi64(d[m], 0xd8);
            x[i * 8 + 2 * m] = _mm512_cvtepu8_epi32(_mm256_castsi256_si128(e));
            x[i * 8 + 2 * m + 1] = _mm512_cvtepu8_epi32(_mm256_extracti128_si256(e, 1));
        }
    }
}

static inline __m256i load2_128(const uint16_t *p, const int lo, const int hi) {
    return _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p + lo))),
        _mm_loadu_si128((const __m128i *)(p + hi)), 1);
}

static inline void load_blocks_16(VI x[64], const uint16_t *p, const ptrdiff_t stride,
                                  const int n) {
    int off[16];
    for (int b = 0; b < 16; b++) off[b] = block_off(b, n);
    const uint8_t *row = (const uint8_t *)p;
    for (int i = 0; i < 8; i++, row += stride) {
        const uint16_t *const r16 = (const uint16_t *)(const void *)row;
        __m256i r[8];
        for (int b = 0; b < 8; b++) r[b] = load2_128(r16, off[b], off[b + 8]);
        const __m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]),
                      a1 = _mm256_unpackhi_epi16(r[0], r[1]);
        const __m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]),
                      a3 = _mm256_unpackhi_epi16(r[2], r[3]);
        const __m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]),
                      a5 = _mm256_unpackhi_epi16(r[4], r[5]);
        const __m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]),
                      a7 = _mm256_unpackhi_epi16(r[6], r[7]);
        const __m256i c0 = _mm256_unpacklo_epi32(a0, a2), c1 = _mm256_unpackhi_epi32(a0, a2);
        const __m256i c2 = _mm256_unpacklo_epi32(a1, a3), c3 = _mm256_unpackhi_epi32(a1, a3);
        const __m256i c4 = _mm256_unpacklo_epi32(a4, a6), c5 = _mm256_unpackhi_epi32(a4, a6);
        const __m256i c6 = _mm256_unpacklo_epi32(a5, a7), c7 = _mm256_unpackhi_epi32(a5, a7);
        const __m256i j[8] = {_mm256_unpacklo_epi64(c0, c4), _mm256_unpackhi_epi64(c0, c4),
                              _mm256_unpacklo_epi64(c1, c5), _mm256_unpackhi_epi64(c1, c5),
                              _mm256_unpacklo_epi64(c2, c6), _mm256_unpackhi_epi64(c2, c6),
                              _mm256_unpacklo_epi64(c3, c7), _mm256_unpackhi_epi64(c3, c7)};
        for (int k = 0; k < 8; k++) x[i * 8 + k] = _mm512_cvtepu16_epi32(j[k]);
    }
}

/* 16x16 transpose of f32: v[r] lane c becomes v[c] lane r. */
static inline void transpose16(__m512 v[16]) {
    __m512 t[16], u[16];
    for (int r = 0; r < 16; r += 2) {
        t[r] = _mm512_unpacklo_ps(v[r], v[r + 1]);
        t[r + 1] = _mm512_unpackhi_ps(v[r], v[r + 1]);
    }
    /* u: 4x4 blocks of rows 4q..4q+3 within each 128-bit lane */
    for (int q = 0; q < 16; q += 4) {
        u[q + 0] = _mm512_castpd_ps(
            _mm512_unpacklo_pd(_mm512_castps_pd(t[q]), _mm512_castps_pd(t[q + 2])));
        u[q + 1] = _mm512_castpd_ps(
            _mm512_unpackhi_pd(_mm512_castps_pd(t[q]), _mm512_castps_pd(t[q + 2])));
        u[q + 2] = _mm512_castpd_ps(
            _mm512_unpacklo_pd(_mm512_castps_pd(t[q + 1]), _mm512_castps_pd(t[q + 3])));
        u[q + 3] = _mm512_castpd_ps(
            _mm512_unpackhi_pd(_mm512_castps_pd(t[q + 1]), _mm512_castps_pd(t[q + 3])));
    }
    /* u[4q + c] lane 4L + r = v[4q + r][4L + c]: now move the 128-bit lanes. */
    for (int c = 0; c < 4; c++) {
        const __m512 a = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88); /* L0,L2 of q0 | L0,L2 of q1 */
        const __m512 b = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xdd); /* L1,L3 */
        const __m512 e = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        const __m512 f = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xdd);
        v[0 + c] = _mm512_shuffle_f32x4(a, e, 0x88);  /* L0 of q0..q3 */
        v[8 + c] = _mm512_shuffle_f32x4(a, e, 0xdd);  /* L2 */
        v[4 + c] = _mm512_shuffle_f32x4(b, f, 0x88);  /* L1 */
        v[12 + c] = _mm512_shuffle_f32x4(b, f, 0xdd); /* L3 */
    }
}

/* The non-zero terms of blocks 0..n-1, block by block, k order inside. */
static inline int emit_terms(float *out, VF t[64], const int n) {
    /* After the transposes t[g * 16 + b] holds terms 16g..16g+15 of block b. */
    for (int g = 0; g < 4; g++) transpose16(t + 16 * g);
    int count = 0;
    for (int b = 0; b < n; b++) {
        for (int g = 0; g < 4; g++) {
            const __m512 v = t[g * 16 + b];
            const __mmask16 m = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_UQ);
            _mm512_storeu_ps(out + count, _mm512_maskz_compress_ps(m, v));
            count += __builtin_popcount((unsigned)m);
        }
    }
    return count;
}

#include "block_tmpl.h"

// clang-format off
DEF_ROW_TERMS(psh_row_terms_8bpc_avx512, uint8_t, load_blocks_8)
DEF_ROW_TERMS(psh_row_terms_16bpc_avx512, uint16_t, load_blocks_16)
DEF_ROW_TERMS_LADDER(psh_row_terms_ladder_8bpc_avx512, uint8_t, load_blocks_8)
DEF_ROW_TERMS_LADDER(psh_row_terms_ladder_16bpc_avx512, uint16_t, load_blocks_16)
// clang-format on
