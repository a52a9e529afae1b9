/*
 * GLSL port of src/core/block.h: the per-block PSNR-HVS algorithm (numerics
 * spec sections 2, 2a and 3), function for function. C's strided pointers
 * into 8x8 arrays became an array plus an offset (psh_fdct8), and the tables
 * are read from the uniform buffer psh_tab (portable.glsl).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_VULKAN_BLOCK_GLSL
#define PSNRHVS_VULKAN_BLOCK_GLSL

#include "portable.glsl"
#include "int_math.glsl"

/* Threshold product modes (PsnrHvsMaskProduct). */
#define PSH_MASK_PRODUCT_FLOAT 0
#define PSH_MASK_PRODUCT_EXACT 1

/* Spec 2 step 4: the f32 values of (1/63.f)*64 and (1/15.f)*16
 * (0x1.041042p+0f and 0x1.111112p+0f). */
#define PSH_K63 uintBitsToFloat(0x3f820821u)
#define PSH_K15 uintBitsToFloat(0x3f888889u)
/* 0x1p-6f, 0x1p-4f and 0x1p-5f (exact in decimal) */
#define PSH_2EXP_M6 0.015625
#define PSH_2EXP_M4 0.0625
#define PSH_2EXP_M5 0.03125

/* Halving toward zero, daala's OD_DCT_RSHIFT(a, 1). */
psh_i32 psh_half(psh_i32 a) {
    return (a + int(a < 0)) >> 1;
}

/* (a * k + 2^(s-1)) >> s with the i32 product wrapping as libvmaf's does. */
psh_i32 psh_mul_shift(psh_i32 a, psh_i32 k, int s) {
    return psh_i32(psh_u32(a) * psh_u32(k) + (1u << (s - 1))) >> s;
}

/* The 8-point lifting DCT of spec 2a: x[xo], x[xo + xs], ... to y[yo],
 * y[yo + ys], ... (block.h's psh_fdct8(y + yo, ys, x + xo, xs)). */
void psh_fdct8(inout psh_i32 y[64], const int yo, const int ys, const psh_i32 x[64], const int xo,
               const int xs) {
    psh_i32 t0 = x[xo + 0 * xs], t4 = x[xo + 1 * xs], t2 = x[xo + 2 * xs], t6 = x[xo + 3 * xs];
    psh_i32 t7 = x[xo + 4 * xs], t3 = x[xo + 5 * xs], t5 = x[xo + 6 * xs], t1 = x[xo + 7 * xs];
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
    y[yo + 0 * ys] = t0;
    y[yo + 1 * ys] = t1;
    y[yo + 2 * ys] = t2;
    y[yo + 3 * ys] = t3;
    y[yo + 4 * ys] = t4;
    y[yo + 5 * ys] = t5;
    y[yo + 6 * ys] = t6;
    y[yo + 7 * ys] = t7;
}

/* daala's od_bin_fdct8x8 in place: columns first (column c becomes row c of
 * a temporary), then the columns of the temporary. x is row-major 8x8. */
void psh_fdct8x8(inout psh_i32 x[64]) {
    psh_i32 z[64];
    PSH_UNROLL
    for (int c = 0; c < 8; c++) psh_fdct8(z, 8 * c, 1, x, c, 8);
    PSH_UNROLL
    for (int c = 0; c < 8; c++) psh_fdct8(x, 8 * c, 1, z, c, 8);
}

/* Spec 2 steps 2-5: the variance ratio of one block, all f32 in i,j order. */
float psh_block_variance_ratio(const psh_i32 x[64]) {
    precise float gmean = 0.0, gvar = 0.0;
    precise float means[4] = float[4](0.0, 0.0, 0.0, 0.0);
    precise float vars[4] = float[4](0.0, 0.0, 0.0, 0.0);
    PSH_UNROLL
    for (int i = 0; i < 8; i++) {
        PSH_UNROLL
        for (int j = 0; j < 8; j++) {
            const int q = int(i >= 4) + 2 * int(j >= 4);
            gmean += float(x[i * 8 + j]);
            means[q] += float(x[i * 8 + j]);
        }
    }
    /* x / 2^k and x * 2^-k are the same real number, so they round alike. */
    gmean = gmean * PSH_2EXP_M6;
    PSH_UNROLL
    for (int q = 0; q < 4; q++) means[q] = means[q] * PSH_2EXP_M4;
    PSH_UNROLL
    for (int i = 0; i < 8; i++) {
        PSH_UNROLL
        for (int j = 0; j < 8; j++) {
            const int q = int(i >= 4) + 2 * int(j >= 4);
            precise float v = float(x[i * 8 + j]);
            gvar += (v - gmean) * (v - gmean);
            vars[q] += (v - means[q]) * (v - means[q]);
        }
    }
    gvar = gvar * PSH_K63;
    PSH_UNROLL
    for (int q = 0; q < 4; q++) vars[q] = vars[q] * PSH_K15;
    if (gvar > 0.0) gvar = PSH_DIV_RN(((vars[0] + vars[1]) + vars[2]) + vars[3], gvar);
    return gvar;
}

/* Spec 2 steps 7-8: masking energy of the AC coefficients and the threshold. */
float psh_block_threshold(const psh_i32 c[64], const float ratio, const int plane,
                          const int mask_product) {
    precise float energy = 0.0;
    PSH_UNROLL
    for (int k = 1; k < 64; k++) energy += float(c[k] * c[k]) * psh_mask_at(plane, k);
    precise float root;
    if (mask_product == PSH_MASK_PRODUCT_EXACT) {
        root = psh_sqrt_prod_rn(energy, ratio);
    } else {
        precise float product = energy * ratio;
        root = psh_sqrt_rn_int(product);
    }
    /* Dividing by 32 (as a product by 2^-5, the same real number) is exact:
     * the root is far from the subnormal range. */
    precise float t = root * PSH_2EXP_M5;
    return t;
}

/* Spec 2 steps 2-8 for one block: returns its threshold and leaves the DCT
 * coefficients in x. */
float psh_block_transform(inout psh_i32 x[64], const int plane, const int mask_product) {
    const float ratio = psh_block_variance_ratio(x);
    psh_fdct8x8(x);
    return psh_block_threshold(x, ratio, plane, mask_product);
}

/* thr_d wins only if strictly greater (spec 2 step 9). */
float psh_block_limit(const float thr_s, const float thr_d) {
    return thr_d > thr_s ? thr_d : thr_s;
}

/* Spec 3: the error term of coefficient k (k = i * 8 + j) of a block whose
 * coefficients are cs (reference) and cd (distorted) and limit is t. */
float psh_block_term(const psh_i32 cs, const psh_i32 cd, const int k, const int plane,
                     const float t) {
    const psh_i32 diff = cs - cd;
    precise float err = float(diff < 0 ? -diff : diff);
    if (k != 0) {
        const float lim = PSH_DIV_RN(t, psh_mask_at(plane, k));
        err = err < lim ? 0.0 : err - lim;
    }
    const float w = psh_csf_at(plane, k);
    precise float term = (err * w) * (err * w);
    return term;
}

/* One whole block: s and d hold the 64 samples of the reference and
 * distorted block (row-major) on entry, their coefficients on return; the
 * 64 terms are written in i,j order. */
void psh_block_terms(inout psh_i32 s[64], inout psh_i32 d[64], const int plane,
                     const int mask_product, out float terms[64]) {
    const float thr_s = psh_block_transform(s, plane, mask_product);
    const float thr_d = psh_block_transform(d, plane, mask_product);
    const float t = psh_block_limit(thr_s, thr_d);
    PSH_UNROLL
    for (int k = 0; k < 64; k++) terms[k] = psh_block_term(s[k], d[k], k, plane, t);
}

#endif
