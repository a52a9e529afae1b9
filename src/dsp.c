/*
 * The C versions of the DSP functions (the per-block core of src/core/ over
 * one block row) and the context init.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "dsp.h"

#include <stdint.h>

#include "core/block.h"
#include "cpu.h"
#include "x86/dsp_init.h"
#include "arm/dsp_init.h"

#define DEF_ROW_TERMS_C(name, pixel)                                                               \
    decl_row_terms_fn(name) {                                                                      \
        const uint8_t *rrow = ref, *drow = dist;                                                   \
        int count = 0;                                                                             \
        if (chain) {                                                                               \
            for (; chain->count; chain->count--) chain->sum += *chain->terms++;                    \
        }                                                                                          \
        for (int b = 0; b < nblocks; b++) {                                                        \
            psh_i32 s[64], d[64];                                                                  \
            float t[64];                                                                           \
            for (int i = 0; i < 8; i++) {                                                          \
                const pixel *rp = (const pixel *)(const void *)(rrow + i * ref_stride) + 7 * b;    \
                const pixel *dp = (const pixel *)(const void *)(drow + i * dist_stride) + 7 * b;   \
                for (int j = 0; j < 8; j++) s[i * 8 + j] = rp[j], d[i * 8 + j] = dp[j];            \
            }                                                                                      \
            psh_block_terms(s, d, plane, mask_product, t);                                         \
            for (int k = 0; k < 64; k++) {                                                         \
                terms[count] = t[k];                                                               \
                count += t[k] != 0.0f; /* NaN stays: it would reach the chain too */               \
            }                                                                                      \
        }                                                                                          \
        return count;                                                                              \
    }

DEF_ROW_TERMS_C(psh_row_terms_8bpc_c, uint8_t)
DEF_ROW_TERMS_C(psh_row_terms_16bpc_c, uint16_t)

/* psh_block_terms split at its seam: the reference block's transform (pure)
 * once, then each distorted block's, the limit and the terms. */
#define DEF_ROW_TERMS_LADDER_C(name, pixel)                                                        \
    decl_row_terms_ladder_fn(name) {                                                               \
        for (int r = 0; r < ndist; r++) count[r] = 0;                                              \
        for (int b = 0; b < nblocks; b++) {                                                        \
            psh_i32 s[64];                                                                         \
            for (int i = 0; i < 8; i++) {                                                          \
                const pixel *rp =                                                                  \
                    (const pixel *)(const void *)((const uint8_t *)ref + i * ref_stride) + 7 * b;  \
                for (int j = 0; j < 8; j++) s[i * 8 + j] = rp[j];                                  \
            }                                                                                      \
            const float thr_s = psh_block_transform(s, plane, mask_product);                       \
            for (int r = 0; r < ndist; r++) {                                                      \
                psh_i32 d[64];                                                                     \
                for (int i = 0; i < 8; i++) {                                                      \
                    const pixel *dp = (const pixel *)(const void *)((const uint8_t *)dist[r] +     \
                                                                    i * dist_stride[r]) +          \
                                      7 * b;                                                       \
                    for (int j = 0; j < 8; j++) d[i * 8 + j] = dp[j];                              \
                }                                                                                  \
                const float t =                                                                    \
                    psh_block_limit(thr_s, psh_block_transform(d, plane, mask_product));           \
                for (int k = 0; k < 64; k++) {                                                     \
                    const float term = psh_block_term(s[k], d[k], k, plane, t);                    \
                    terms[r][count[r]] = term;                                                     \
                    count[r] += term != 0.0f;                                                      \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

DEF_ROW_TERMS_LADDER_C(psh_row_terms_ladder_8bpc_c, uint8_t)
DEF_ROW_TERMS_LADDER_C(psh_row_terms_ladder_16bpc_c, uint16_t)

void psh_dsp_init(PsnrHvsDspContext *const dsp, const unsigned flags) {
    dsp->row_terms[0] = psh_row_terms_8bpc_c;
    dsp->row_terms[1] = psh_row_terms_16bpc_c;
    dsp->row_terms_ladder[0] = psh_row_terms_ladder_8bpc_c;
    dsp->row_terms_ladder[1] = psh_row_terms_ladder_16bpc_c;
    dsp->sum_lanes = psh_sum_lanes_c;
    dsp->isa = "c";
#if HAVE_AVX2 || HAVE_AVX512
    psh_dsp_init_x86(dsp, flags);
#endif
#if HAVE_NEON
    psh_dsp_init_arm(dsp, flags);
#endif
}
