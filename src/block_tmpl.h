/*
 * The per-block algorithm of src/core/block.h with one block per SIMD lane:
 * LANES horizontally adjacent blocks at a time, every lane running exactly
 * the scalar sequence of operations (no FMA, IEEE division and square root,
 * f32 chains in i,j order per lane), so each lane's bits are the scalar
 * code's. Included by one translation unit per ISA, which defines:
 *   LANES, VI (i32 vector), VF (f32 vector), the I_* and F_* operations,
 *   load_blocks_8 / load_blocks_16 (samples (i,j) of the blocks into x[i*8+j],
 *   block b in lane b) and emit_terms (non-zero terms in block, then k order).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_BLOCK_TMPL_H
#define PSNRHVS_SRC_BLOCK_TMPL_H

#include "core/block.h"

#if defined(__GNUC__) && !defined(__clang__)
#define TMPL_UNROLL _Pragma("GCC unroll 64")
#else
#define TMPL_UNROLL _Pragma("unroll")
#endif
/* The DCT's 8 column transforms: fully unrolled unless the ISA says otherwise
 * (interleaved, 8 transforms spill AArch64's 32 registers; one at a time fits). */
#ifndef TMPL_DCT_UNROLL
#define TMPL_DCT_UNROLL TMPL_UNROLL
#endif

/* The running chain of an earlier row (PsnrHvsChain), advanced a few terms
 * at a time between vector operations: the additions depend only on each
 * other, so they execute under the vector work instead of after it. */
typedef struct ChainCursor {
    const float *t;
    int n;
    float sum;
} ChainCursor;

static inline __attribute__((always_inline)) void chain_step(ChainCursor *const c, const int k) {
    if (c->n >= k) {
        for (int i = 0; i < k; i++) c->sum += c->t[i];
        c->t += k;
        c->n -= k;
    } else {
        for (; c->n; c->n--) c->sum += *c->t++;
    }
}

static inline void chain_flush(ChainCursor *const c) {
    for (; c->n; c->n--) c->sum += *c->t++;
}

static inline VI v_half(const VI a) {
    return I_SRAI(I_ADD(a, I_SRLI(a, 31)), 1);
}

/* psh_mul_shift: the i32 product wraps, as vpmulld's low half does. */
#define V_MUL_SHIFT(a, k, s) I_SRAI(I_ADD(I_MULLO(a, I_SET1(k)), I_SET1(1 << ((s)-1))), s)

/* psh_fdct8, statement for statement. */
static inline __attribute__((always_inline)) void v_fdct8(VI *y, const int ys, const VI *x,
                                                          const int xs) {
    VI t0 = x[0 * xs], t4 = x[1 * xs], t2 = x[2 * xs], t6 = x[3 * xs];
    VI t7 = x[4 * xs], t3 = x[5 * xs], t5 = x[6 * xs], t1 = x[7 * xs];
    VI t1h, t4h, t6h;
    t1 = I_SUB(t0, t1);
    t1h = v_half(t1);
    t0 = I_SUB(t0, t1h);
    t4 = I_ADD(t4, t5);
    t4h = v_half(t4);
    t5 = I_SUB(t5, t4h);
    t3 = I_SUB(t2, t3);
    t2 = I_SUB(t2, v_half(t3));
    t6 = I_ADD(t6, t7);
    t6h = v_half(t6);
    t7 = I_SUB(t6h, t7);
    t0 = I_ADD(t0, t6h);
    t6 = I_SUB(t0, t6);
    t2 = I_SUB(t4h, t2);
    t4 = I_SUB(t2, t4);
    t0 = I_SUB(t0, V_MUL_SHIFT(t4, 13573, 15));
    t4 = I_ADD(t4, V_MUL_SHIFT(t0, 11585, 14));
    t0 = I_SUB(t0, V_MUL_SHIFT(t4, 13573, 15));
    t6 = I_SUB(t6, V_MUL_SHIFT(t2, 21895, 15));
    t2 = I_ADD(t2, V_MUL_SHIFT(t6, 15137, 14));
    t6 = I_SUB(t6, V_MUL_SHIFT(t2, 21895, 15));
    t3 = I_ADD(t3, V_MUL_SHIFT(t5, 19195, 15));
    t5 = I_ADD(t5, V_MUL_SHIFT(t3, 11585, 14));
    t3 = I_SUB(t3, V_MUL_SHIFT(t5, 7489, 13));
    t7 = I_SUB(v_half(t5), t7);
    t5 = I_SUB(t5, t7);
    t3 = I_SUB(t1h, t3);
    t1 = I_SUB(t1, t3);
    t7 = I_ADD(t7, V_MUL_SHIFT(t1, 3227, 15));
    t1 = I_SUB(t1, V_MUL_SHIFT(t7, 6393, 15));
    t7 = I_ADD(t7, V_MUL_SHIFT(t1, 3227, 15));
    t5 = I_ADD(t5, V_MUL_SHIFT(t3, 2485, 13));
    t3 = I_SUB(t3, V_MUL_SHIFT(t5, 18205, 15));
    t5 = I_ADD(t5, V_MUL_SHIFT(t3, 2485, 13));
    y[0 * ys] = t0;
    y[1 * ys] = t1;
    y[2 * ys] = t2;
    y[3 * ys] = t3;
    y[4 * ys] = t4;
    y[5 * ys] = t5;
    y[6 * ys] = t6;
    y[7 * ys] = t7;
}

/* psh_fdct8x8: columns into rows of z, then the columns of z. */
static inline void v_fdct8x8(VI x[64]) {
    VI z[64];
    TMPL_DCT_UNROLL
    for (int c = 0; c < 8; c++) v_fdct8(z + 8 * c, 1, x + c, 8);
    TMPL_DCT_UNROLL
    for (int c = 0; c < 8; c++) v_fdct8(x + 8 * c, 1, z + c, 8);
}

/* psh_block_variance_ratio per lane. */
static inline VF v_variance_ratio(const VI x[64], ChainCursor *const cc) {
    VF gmean = F_ZERO(), gvar = F_ZERO();
    VF means[4] = {F_ZERO(), F_ZERO(), F_ZERO(), F_ZERO()};
    VF vars[4] = {F_ZERO(), F_ZERO(), F_ZERO(), F_ZERO()};
    TMPL_UNROLL
    for (int k = 0; k < 64; k++) {
        const int q = (k >= 32) + 2 * ((k & 7) >= 4);
        const VF f = F_CVT(x[k]);
        gmean = F_ADD(gmean, f);
        means[q] = F_ADD(means[q], f);
    }
    gmean = F_DIV(gmean, F_SET1(64.0f));
    for (int q = 0; q < 4; q++) means[q] = F_DIV(means[q], F_SET1(16.0f));
    TMPL_UNROLL
    for (int k = 0; k < 64; k++) {
        const int q = (k >= 32) + 2 * ((k & 7) >= 4);
        const VF f = F_CVT(x[k]); /* cheaper than keeping 64 vectors */
        const VF g = F_SUB(f, gmean), m = F_SUB(f, means[q]);
        gvar = F_ADD(gvar, F_MUL(g, g));
        vars[q] = F_ADD(vars[q], F_MUL(m, m));
        chain_step(cc, 1);
    }
    gvar = F_MUL(gvar, F_SET1(PSH_K63));
    for (int q = 0; q < 4; q++) vars[q] = F_MUL(vars[q], F_SET1(PSH_K15));
    const VF sum = F_ADD(F_ADD(F_ADD(vars[0], vars[1]), vars[2]), vars[3]);
    return F_RATIO(sum, gvar);
}

/* psh_block_transform per lane: the threshold; x becomes the coefficients. */
static inline VF v_block_transform(VI x[64], const float *const mask, const int mask_product,
                                   ChainCursor *const cc) {
    const VF ratio = v_variance_ratio(x, cc);
    v_fdct8x8(x);
    VF energy = F_ZERO();
    TMPL_UNROLL
    for (int k = 1; k < 64; k++)
        energy = F_ADD(energy, F_MUL(F_CVT(I_MULLO(x[k], x[k])), F_SET1(mask[k])));
    VF root;
    if (mask_product == PSH_MASK_PRODUCT_EXACT) {
        /* The exact-product option (spec section 6) is integer work per
         * block; it is not the default, so lanes take the scalar helper. */
        float e[LANES], r[LANES], o[LANES];
        F_STORE(e, energy);
        F_STORE(r, ratio);
        for (int l = 0; l < LANES; l++) o[l] = psh_sqrt_prod_rn(e[l], r[l]);
        root = F_LOAD(o);
    } else {
        root = F_SQRT(F_MUL(energy, ratio));
    }
    return F_DIV(root, F_SET1(32.0f));
}

/* psh_block_terms for LANES blocks: t[k] holds coefficient k's terms. */
static inline __attribute__((always_inline)) void v_block_terms(VF t[64], VI s[64], VI d[64],
                                                                const int plane,
                                                                const int mask_product,
                                                                ChainCursor *const cc) {
    const float *const mask = psh_mask[plane], *const csf = psh_csf[plane];
    const VF thr_s = v_block_transform(s, mask, mask_product, cc);
    const VF thr_d = v_block_transform(d, mask, mask_product, cc);
    const VF lim = F_GT_SELECT(thr_d, thr_s);
    TMPL_UNROLL
    for (int k = 0; k < 64; k++) {
        VF err = F_CVT(I_ABS(I_SUB(s[k], d[k])));
        if (k) err = F_SUB_OR_ZERO(err, F_DIV(lim, F_SET1(mask[k])));
        const VF w = F_MUL(err, F_SET1(csf[k]));
        t[k] = F_MUL(w, w);
        chain_step(cc, 8);
    }
}

#define DEF_ROW_TERMS(name, pixel, load)                                                           \
    decl_row_terms_fn(name) {                                                                      \
        int count = 0;                                                                             \
        ChainCursor cc = {NULL, 0, 0.0f};                                                          \
        if (chain) cc.t = chain->terms, cc.n = chain->count, cc.sum = chain->sum;                  \
        for (int b0 = 0; b0 < nblocks; b0 += LANES) {                                              \
            const int n = nblocks - b0 < LANES ? nblocks - b0 : LANES;                             \
            VI s[64], d[64];                                                                       \
            VF t[64];                                                                              \
            load(s, (const pixel *)ref + 7 * b0, ref_stride, n);                                   \
            load(d, (const pixel *)dist + 7 * b0, dist_stride, n);                                 \
            v_block_terms(t, s, d, plane, mask_product, &cc);                                      \
            count += emit_terms(terms + count, t, n);                                              \
        }                                                                                          \
        if (chain) {                                                                               \
            chain_flush(&cc);                                                                      \
            chain->terms = cc.t, chain->count = 0, chain->sum = cc.sum;                            \
        }                                                                                          \
        return count;                                                                              \
    }

/* The ladder: the reference blocks' transform once (s becomes their
 * coefficients), then for each rendition v_block_terms's second half. */
#define DEF_ROW_TERMS_LADDER(name, pixel, load)                                                    \
    decl_row_terms_ladder_fn(name) {                                                               \
        const float *const mask = psh_mask[plane], *const csf = psh_csf[plane];                    \
        ChainCursor cc = {NULL, 0, 0.0f};                                                          \
        for (int r = 0; r < ndist; r++) count[r] = 0;                                              \
        for (int b0 = 0; b0 < nblocks; b0 += LANES) {                                              \
            const int n = nblocks - b0 < LANES ? nblocks - b0 : LANES;                             \
            VI s[64];                                                                              \
            load(s, (const pixel *)ref + 7 * b0, ref_stride, n);                                   \
            const VF thr_s = v_block_transform(s, mask, mask_product, &cc);                        \
            for (int r = 0; r < ndist; r++) {                                                      \
                VI d[64];                                                                          \
                VF t[64];                                                                          \
                load(d, (const pixel *)dist[r] + 7 * b0, dist_stride[r], n);                       \
                const VF thr_d = v_block_transform(d, mask, mask_product, &cc);                    \
                const VF lim = F_GT_SELECT(thr_d, thr_s);                                          \
                TMPL_UNROLL                                                                        \
                for (int k = 0; k < 64; k++) {                                                     \
                    VF err = F_CVT(I_ABS(I_SUB(s[k], d[k])));                                      \
                    if (k) err = F_SUB_OR_ZERO(err, F_DIV(lim, F_SET1(mask[k])));                  \
                    const VF w = F_MUL(err, F_SET1(csf[k]));                                       \
                    t[k] = F_MUL(w, w);                                                            \
                }                                                                                  \
                count[r] += emit_terms(terms[r] + count[r], t, n);                                 \
            }                                                                                      \
        }                                                                                          \
    }

#endif /* PSNRHVS_SRC_BLOCK_TMPL_H */
