/*
 * The CPU DSP context: the per-block work of the fast CPU path behind
 * function pointers, filled once from the C versions and then overridden
 * level by level by the x86 or the AArch64 ones. Nothing else tests CPU flags.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_DSP_H
#define PSNRHVS_SRC_DSP_H

#include <stddef.h>
#include <stdint.h>

/* The terms of nblocks horizontally adjacent 8x8 blocks (step 7) of one
 * block row: ref and dist point at block 0's top-left sample (uint8_t at 8
 * bits, uint16_t above), block b starts 7 * b samples to the right. Only the
 * blocks' samples are read. The non-zero terms are written in order (block
 * by block, i,j order inside a block, spec section 3) and counted: adding a
 * zero term leaves the f32 chain unchanged. terms must hold
 * nblocks * 64 + PSNRHVS_ROW_TERMS_PAD floats (SIMD stores whole vectors).
 * plane picks the tables (0 = Y, 1 = Cb, 2 = Cr), mask_product is a
 * PSH_MASK_PRODUCT_* mode.
 * chain (may be NULL): terms of an earlier row to add, in order, to a running
 * f32 sum before the call returns. The SIMD versions spread these dependent
 * additions through their vector work, which hides the chain's latency (one
 * thread scoring a plane passes the previous row; on N threads a row task
 * passes the chain's next ready row). */
#define PSNRHVS_ROW_TERMS_PAD 16
typedef struct PsnrHvsChain {
    const float *terms; ///< advanced past the terms added
    int count;          ///< terms left to add (0 on return)
    float sum;          ///< the running sum
} PsnrHvsChain;
#define decl_row_terms_fn(name)                                                                    \
    int(name)(float *terms, const void *ref, ptrdiff_t ref_stride, const void *dist,               \
              ptrdiff_t dist_stride, int nblocks, int plane, int mask_product,                     \
              PsnrHvsChain *chain)
typedef decl_row_terms_fn(*PsnrHvsRowTermsFn);

/* An encoding ladder's block row: the terms of the same nblocks blocks of
 * one reference row against ndist distorted rows, dist[r] with stride
 * dist_stride[r], into terms[r] (nblocks * 64 + PSNRHVS_ROW_TERMS_PAD floats
 * each), non-zero terms only, counted in count[r]. Each reference block is
 * transformed once for all ndist; every rendition's terms are the bits
 * row_terms gives it alone. */
#define decl_row_terms_ladder_fn(name)                                                             \
    void(name)(float *const *terms, int *count, const void *ref, ptrdiff_t ref_stride,             \
               const void *const *dist, const ptrdiff_t *dist_stride, int ndist, int nblocks,      \
               int plane, int mask_product)
typedef decl_row_terms_ladder_fn(*PsnrHvsRowTermsLadderFn);

/* The lane kernel of the exact-sum engine (src/sum, docs/exact-sum.md):
 * lane j reduces terms[j*stride .. j*stride + len_j), len_j = clamp(count -
 * j*stride, 0, stride), to its sum map for binade e[j] in
 * [PSNRHVS_SUM_KERNEL_EMIN, 127] and writes it to d[j]. Entries are
 * normalised: every entry of 2^23 or more (it crosses, since n >= 2^23
 * there) is written as PSNRHVS_SUM_KERNEL_CROSS. */
#define PSNRHVS_SUM_LANES 8
/* Lowest binade the kernels accept. From 2^-101 up, a subnormal term is below
 * a quarter of the spacing, so the SIMD kernel may treat its exponent field as
 * if it were normal (docs/exact-sum.md, "Subnormals"). */
#define PSNRHVS_SUM_KERNEL_EMIN  (-101)
#define PSNRHVS_SUM_KERNEL_CROSS (1u << 24)
#define decl_sum_lanes_fn(name)                                                                    \
    void(name)(const float *terms, uint32_t count, uint32_t stride,                                \
               const int32_t e[PSNRHVS_SUM_LANES], uint32_t d[PSNRHVS_SUM_LANES][2])
typedef decl_sum_lanes_fn(*PsnrHvsSumLanesFn);

typedef struct PsnrHvsDspContext {
    PsnrHvsRowTermsFn row_terms[2]; ///< [0]: 8 bits, [1]: 10 and 12 bits
    PsnrHvsRowTermsLadderFn row_terms_ladder[2];
    PsnrHvsSumLanesFn sum_lanes; ///< the exact-sum engine's lane kernel
    const char *isa;             ///< "c", "avx2", "avx512", "neon": the highest level in use
} PsnrHvsDspContext;

/* Fill dsp for the CPU flags given (a subset of psh_get_cpu_flags()). */
void psh_dsp_init(PsnrHvsDspContext *dsp, unsigned flags);

decl_row_terms_fn(psh_row_terms_8bpc_c);
decl_row_terms_fn(psh_row_terms_16bpc_c);
decl_row_terms_ladder_fn(psh_row_terms_ladder_8bpc_c);
decl_row_terms_ladder_fn(psh_row_terms_ladder_16bpc_c);
decl_sum_lanes_fn(psh_sum_lanes_c);

#endif /* PSNRHVS_SRC_DSP_H */
