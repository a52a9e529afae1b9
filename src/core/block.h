/*
 * The per-block PSNR-HVS algorithm, written once (numerics spec sections 2,
 * 2a and 3). The CPU reference, the SIMD code's checks and every device
 * kernel compile this file; they differ only in how they load samples and
 * where the terms go.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CORE_BLOCK_H
#define PSNRHVS_SRC_CORE_BLOCK_H

#include "portable.h"
#include "tables.h"
#include "int_math.h"

/* Every division by a variable goes through PSH_DIV_RN: int_math.h defines
 * it as the integer division on devices whose f32 division is not IEEE. */
#if PSH_EXACT_HELPERS && !defined(PSH_DIV_RN)
#error "PSH_EXACT_HELPERS needs a correctly rounded division PSH_DIV_RN(a, b)"
#endif
#ifndef PSH_DIV_RN
#define PSH_DIV_RN(a, b) ((a) / (b))
#endif

/* Threshold product modes (PsnrHvsMaskProduct). */
#define PSH_MASK_PRODUCT_FLOAT 0
#define PSH_MASK_PRODUCT_EXACT 1

/* Spec 2 step 4: the f32 values of (1/63.f)*64 and (1/15.f)*16. */
#define PSH_K63 0x1.041042p+0f
#define PSH_K15 0x1.111112p+0f

/* Halving toward zero, daala's OD_DCT_RSHIFT(a, 1). */
PSH_INLINE psh_i32 psh_half(psh_i32 a) {
    return (a + (a < 0)) >> 1;
}

/* (a * k + 2^(s-1)) >> s with the i32 product wrapping as libvmaf's does. */
PSH_INLINE psh_i32 psh_mul_shift(psh_i32 a, psh_i32 k, int s) {
    return (psh_i32)((psh_u32)a * (psh_u32)k + ((psh_u32)1 << (s - 1))) >> s;
}

/* The 8-point lifting DCT of spec 2a: x[0], x[xs], ... to y[0], y[ys], ... */
PSH_INLINE void psh_fdct8(psh_i32 *y, const int ys, const psh_i32 *x, const int xs) {
    psh_i32 t0 = x[0 * xs], t4 = x[1 * xs], t2 = x[2 * xs], t6 = x[3 * xs];
    psh_i32 t7 = x[4 * xs], t3 = x[5 * xs], t5 = x[6 * xs], t1 = x[7 * xs];
    psh_i32 t1h, t4h, t6h;
    t1 = t0 - t1;
    t1h = psh_half(t1);
    t0 = t0 - t1h;
    t4 = t4 + t5;
    t4h = psh_half(t4);
    t5 = t5 - t4h;
    t3 = t2 - t3;
    t2 = t2 - psh_half(t3);
    t6 = t6 + t7;
    t6h = psh_half(t6);
    t7 = t6h - t7;
    /* 4-point DCT */
    t0 = t0 + t6h;
    t6 = t0 - t6;
    t2 = t4h - t2;
    t4 = t2 - t4;
    /* 2-point DCT */
    t0 -= psh_mul_shift(t4, 13573, 15);
    t4 += psh_mul_shift(t0, 11585, 14);
    t0 -= psh_mul_shift(t4, 13573, 15);
    /* 2-point DST */
    t6 -= psh_mul_shift(t2, 21895, 15);
    t2 += psh_mul_shift(t6, 15137, 14);
    t6 -= psh_mul_shift(t2, 21895, 15);
    /* 4-point DST */
    t3 += psh_mul_shift(t5, 19195, 15);
    t5 += psh_mul_shift(t3, 11585, 14);
    t3 -= psh_mul_shift(t5, 7489, 13);
    t7 = psh_half(t5) - t7;
    t5 = t5 - t7;
    t3 = t1h - t3;
    t1 = t1 - t3;
    t7 += psh_mul_shift(t1, 3227, 15);
    t1 -= psh_mul_shift(t7, 6393, 15);
    t7 += psh_mul_shift(t1, 3227, 15);
    t5 += psh_mul_shift(t3, 2485, 13);
    t3 -= psh_mul_shift(t5, 18205, 15);
    t5 += psh_mul_shift(t3, 2485, 13);
    y[0 * ys] = t0;
    y[1 * ys] = t1;
    y[2 * ys] = t2;
    y[3 * ys] = t3;
    y[4 * ys] = t4;
    y[5 * ys] = t5;
    y[6 * ys] = t6;
    y[7 * ys] = t7;
}

/* daala's od_bin_fdct8x8 in place: columns first (column c becomes row c of
 * a temporary), then the columns of the temporary. x is row-major 8x8. */
PSH_INLINE void psh_fdct8x8(psh_i32 x[64]) {
    psh_i32 z[64];
    PSH_UNROLL
    for (int c = 0; c < 8; c++) psh_fdct8(z + 8 * c, 1, x + c, 8);
    PSH_UNROLL
    for (int c = 0; c < 8; c++) psh_fdct8(x + 8 * c, 1, z + c, 8);
}

/* Spec 2 steps 2-5: the variance ratio of one block, all f32 in i,j order. */
PSH_INLINE float psh_block_variance_ratio(const psh_i32 x[64]) {
    float gmean = 0.0f, gvar = 0.0f;
    float means[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    float vars[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    PSH_UNROLL
    for (int i = 0; i < 8; i++) {
        PSH_UNROLL
        for (int j = 0; j < 8; j++) {
            const int q = (i >= 4) + 2 * (j >= 4);
            gmean += (float)x[i * 8 + j];
            means[q] += (float)x[i * 8 + j];
        }
    }
    /* x / 2^k and x * 2^-k are the same real number, so they round alike;
     * the product keeps approximate device divisions out of the way. */
    gmean = gmean * 0x1p-6f;
    PSH_UNROLL
    for (int q = 0; q < 4; q++) means[q] = means[q] * 0x1p-4f;
    PSH_UNROLL
    for (int i = 0; i < 8; i++) {
        PSH_UNROLL
        for (int j = 0; j < 8; j++) {
            const int q = (i >= 4) + 2 * (j >= 4);
            const float v = (float)x[i * 8 + j];
            gvar += (v - gmean) * (v - gmean);
            vars[q] += (v - means[q]) * (v - means[q]);
        }
    }
    gvar = gvar * PSH_K63;
    PSH_UNROLL
    for (int q = 0; q < 4; q++) vars[q] = vars[q] * PSH_K15;
    if (gvar > 0.0f) gvar = PSH_DIV_RN(((vars[0] + vars[1]) + vars[2]) + vars[3], gvar);
    return gvar;
}

/* Spec 2 steps 7-8: masking energy of the AC coefficients and the threshold. */
PSH_INLINE float psh_block_threshold(const psh_i32 c[64], const float ratio, const int plane,
                                     const int mask_product) {
    float energy = 0.0f;
    PSH_UNROLL
    for (int k = 1; k < 64; k++) energy += (float)(c[k] * c[k]) * psh_mask[plane][k];
    float root;
    if (mask_product == PSH_MASK_PRODUCT_EXACT)
        root = psh_sqrt_prod_rn(energy, ratio);
    else if (PSH_EXACT_HELPERS)
        root = psh_sqrt_rn_int(energy * ratio);
    else
        root = psh_sqrt_rn(energy * ratio);
    /* Dividing by 32 (as a product by 2^-5, the same real number) is exact:
     * the root is far from the subnormal range. */
    return root * 0x1p-5f;
}

/* Spec 2 steps 2-8 for one block: returns its threshold and leaves the DCT
 * coefficients in x. */
PSH_INLINE float psh_block_transform(psh_i32 x[64], const int plane, const int mask_product) {
    const float ratio = psh_block_variance_ratio(x);
    psh_fdct8x8(x);
    return psh_block_threshold(x, ratio, plane, mask_product);
}

/* thr_d wins only if strictly greater (spec 2 step 9). */
PSH_INLINE float psh_block_limit(const float thr_s, const float thr_d) {
    return thr_d > thr_s ? thr_d : thr_s;
}

/* Spec 3: the error term of coefficient k (k = i * 8 + j) of a block whose
 * coefficients are cs (reference) and cd (distorted) and limit is t. */
PSH_INLINE float psh_block_term(const psh_i32 cs, const psh_i32 cd, const int k, const int plane,
                                const float t) {
    const psh_i32 diff = cs - cd;
    float err = (float)(diff < 0 ? -diff : diff);
    if (k != 0) {
        const float lim = PSH_DIV_RN(t, psh_mask[plane][k]);
        err = err < lim ? 0.0f : err - lim;
    }
    const float w = psh_csf[plane][k];
    return (err * w) * (err * w);
}

/* One whole block: s and d hold the 64 samples of the reference and
 * distorted block (row-major) on entry, their coefficients on return; the
 * 64 terms are written in i,j order. */
PSH_INLINE void psh_block_terms(psh_i32 s[64], psh_i32 d[64], const int plane,
                                const int mask_product, float terms[64]) {
    const float thr_s = psh_block_transform(s, plane, mask_product);
    const float thr_d = psh_block_transform(d, plane, mask_product);
    const float t = psh_block_limit(thr_s, thr_d);
    PSH_UNROLL
    for (int k = 0; k < 64; k++) terms[k] = psh_block_term(s[k], d[k], k, plane, t);
}

#endif /* PSNRHVS_SRC_CORE_BLOCK_H */
