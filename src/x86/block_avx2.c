/*
 * AVX2 block rows: 8 blocks per vector (compiled with -mavx2, without FMA,
 * -ffp-contract=off).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>

#include "dsp.h"
#include "x86/transpose_avx2.h"

#define LANES 8
typedef __m256i VI;
typedef __m256 VF;

#define I_ADD(a, b)   _mm256_add_epi32(a, b)
#define I_SUB(a, b)   _mm256_sub_epi32(a, b)
#define I_SRAI(a, s)  _mm256_srai_epi32(a, s)
#define I_SRLI(a, s)  _mm256_srli_epi32(a, s)
#define I_MULLO(a, b) _mm256_mullo_epi32(a, b)
#define I_SET1(k)     _mm256_set1_epi32(k)
#define I_ABS(a)      _mm256_abs_epi32(a)
#define F_CVT(a)      _mm256_cvtepi32_ps(a)
#define F_ADD(a, b)   _mm256_add_ps(a, b)
#define F_SUB(a, b)   _mm256_sub_ps(a, b)
#define F_MUL(a, b)   _mm256_mul_ps(a, b)
#define F_DIV(a, b)   _mm256_div_ps(a, b)
#define F_SQRT(a)     _mm256_sqrt_ps(a)
#define F_SET1(f)     _mm256_set1_ps(f)
#define F_ZERO()      _mm256_setzero_ps()
#define F_STORE(p, a) _mm256_storeu_ps(p, a)
#define F_LOAD(p)     _mm256_loadu_ps(p)
/* a > b ? a : b, with b kept for NaN as the scalar comparison does. */
#define F_GT_SELECT(a, b) _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, _CMP_GT_OQ))
/* err < lim ? 0 : err - lim */
#define F_SUB_OR_ZERO(err, lim)                                                                    \
    _mm256_andnot_ps(_mm256_cmp_ps(err, lim, _CMP_LT_OQ), _mm256_sub_ps(err, lim))
/* gvar > 0 ? sum / gvar : gvar */
#define F_RATIO(sum, gvar)                                                                         \
    _mm256_blendv_ps(gvar, _mm256_div_ps(sum, gvar),                                               \
                     _mm256_cmp_ps(gvar, _mm256_setzero_ps(), _CMP_GT_OQ))

/* Block b starts 7 * b samples right; lanes past n repeat the last block. */
static inline int block_off(const int b, const int n) {
    return 7 * (b < n ? b : n - 1);
}

static inline void load_blocks_8(VI x[64], const uint8_t *p, const ptrdiff_t stride, const int n) {
    int off[8];
    for (int b = 0; b < 8; b++) off[b] = block_off(b, n);
    for (int i = 0; i < 8; i++, p += stride) {
        __m128i r[8];
        for (int b = 0; b < 8; b++) r[b] = _mm_loadl_epi64((const __m128i *)(p + off[b]));
        /* 8x8 byte transpose: d[m] holds columns 2m and 2m+1 over the blocks. */
        const __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpacklo_epi8(r[2], r[3]);
        const __m128i a2 = _mm_unpacklo_epi8(r[4], r[5]), a3 = _mm_unpacklo_epi8(r[6], r[7]);
        const __m128i c0 = _mm_unpacklo_epi16(a0, a1), c1 = _mm_unpackhi_epi16(a0, a1);
        const __m128i c2 = _mm_unpacklo_epi16(a2, a3), c3 = _mm_unpackhi_epi16(a2, a3);
        const __m128i d[4] = {_mm_unpacklo_epi32(c0, c2), _mm_unpackhi_epi32(c0, c2),
                              _mm_unpacklo_epi32(c1, c3), _mm_unpackhi_epi32(c1, c3)};
        for (int m = 0; m < 4; m++) {
            x[i * 8 + 2 * m] = _mm256_cvtepu8_epi32(d[m]);
            x[i * 8 + 2 * m + 1] = _mm256_cvtepu8_epi32(_mm_unpackhi_epi64(d[m], d[m]));
        }
    }
}

static inline void load_blocks_16(VI x[64], const uint16_t *p, const ptrdiff_t stride,
                                  const int n) {
    int off[8];
    for (int b = 0; b < 8; b++) off[b] = block_off(b, n);
    const uint8_t *row = (const uint8_t *)p;
    for (int i = 0; i < 8; i++, row += stride) {
        const uint16_t *const r16 = (const uint16_t *)(const void *)row;
        __m128i r[8];
        for (int b = 0; b < 8; b++) r[b] = _mm_loadu_si128((const __m128i *)(r16 + off[b]));
        const __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
        const __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
        const __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
        const __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
        const __m128i c0 = _mm_unpacklo_epi32(a0, a2), c1 = _mm_unpackhi_epi32(a0, a2);
        const __m128i c2 = _mm_unpacklo_epi32(a1, a3), c3 = _mm_unpackhi_epi32(a1, a3);
        const __m128i c4 = _mm_unpacklo_epi32(a4, a6), c5 = _mm_unpackhi_epi32(a4, a6);
        const __m128i c6 = _mm_unpacklo_epi32(a5, a7), c7 = _mm_unpackhi_epi32(a5, a7);
        const __m128i j[8] = {_mm_unpacklo_epi64(c0, c4), _mm_unpackhi_epi64(c0, c4),
                              _mm_unpacklo_epi64(c1, c5), _mm_unpackhi_epi64(c1, c5),
                              _mm_unpacklo_epi64(c2, c6), _mm_unpackhi_epi64(c2, c6),
                              _mm_unpacklo_epi64(c3, c7), _mm_unpackhi_epi64(c3, c7)};
        for (int k = 0; k < 8; k++) x[i * 8 + k] = _mm256_cvtepu16_epi32(j[k]);
    }
}

/* Lane indices that move the lanes set in an 8-bit mask to the front. */
static uint32_t compress_lut[256][8];
static pthread_once_t lut_once = PTHREAD_ONCE_INIT;

static void init_lut(void) {
    for (int m = 0; m < 256; m++) {
        int n = 0;
        for (int l = 0; l < 8; l++)
            if (m >> l & 1) compress_lut[m][n++] = l;
        while (n < 8) compress_lut[m][n++] = 0;
    }
}

/* The non-zero terms of blocks 0..n-1, block by block, k order inside. */
static inline int emit_terms(float *out, VF t[64], const int n) {
    /* After the transposes t[g * 8 + b] holds terms 8g..8g+7 of block b. */
    for (int g = 0; g < 8; g++) psh_transpose8_avx2(t + 8 * g);
    int count = 0;
    for (int b = 0; b < n; b++) {
        for (int g = 0; g < 8; g++) {
            const __m256 v = t[g * 8 + b];
            const int m = _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NEQ_UQ));
            const __m256i idx = _mm256_loadu_si256((const __m256i *)compress_lut[m]);
            _mm256_storeu_ps(out + count, _mm256_permutevar8x32_ps(v, idx));
            count += __builtin_popcount((unsigned)m);
        }
    }
    return count;
}

#include "block_tmpl.h"

// clang-format off
DEF_ROW_TERMS(psh_row_terms_8bpc_avx2, uint8_t, load_blocks_8)
DEF_ROW_TERMS(psh_row_terms_16bpc_avx2, uint16_t, load_blocks_16)
DEF_ROW_TERMS_LADDER(psh_row_terms_ladder_8bpc_avx2, uint8_t, load_blocks_8)
DEF_ROW_TERMS_LADDER(psh_row_terms_ladder_16bpc_avx2, uint16_t, load_blocks_16)
// clang-format on

void psh_avx2_init(void) {
    pthread_once(&lut_once, init_lut);
}
