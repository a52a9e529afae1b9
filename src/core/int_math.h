/*
 * Correctly rounded f32 square roots from integer arithmetic, for devices
 * without f64 or without an IEEE f32 sqrt, and for the exact-product
 * threshold variant (numerics spec section 6).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CORE_INT_MATH_H
#define PSNRHVS_SRC_CORE_INT_MATH_H

#include "portable.h"

/* floor(sqrt(v)) for v < 2^50, digit by digit (one result bit per step). */
PSH_INLINE psh_u64 psh_isqrt50(psh_u64 v) {
    psh_u64 root = 0;
    psh_u64 bit = (psh_u64)1 << 50;
    for (int k = 0; k < 26; k++) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return root;
}

/* 2^e as an f32, for e in the normal range [-126, 127]. */
PSH_INLINE float psh_pow2f(int e) {
    return psh_u32_as_float((psh_u32)(e + 127) << 23);
}

/* Split a positive finite f32 into an integer significand in [2^23, 2^24)
 * and an exponent: x = m * 2^e (subnormals normalised). */
PSH_INLINE psh_u32 psh_split_f32(float x, int *e) {
    const psh_u32 bits = psh_float_as_u32(x);
    const int biased = (int)((bits >> 23) & 0xff);
    psh_u32 m = bits & 0x7fffffu;
    if (biased == 0) {
        int shift = 0;
        while (m < 0x800000u) {
            m <<= 1;
            shift++;
        }
        *e = -149 - shift;
        return m;
    }
    *e = biased - 150;
    return m | 0x800000u;
}

/*
 * RN_f32(sqrt(p * 2^ep)) for an integer p with p * 2^ep normalised so that
 * p lies in [2^48, 2^50), p even and ep even: the root lies in [2^24, 2^25)
 * where f32 values are the even integers and the midpoints the odd ones.
 * An even p is never an odd square, so the root never equals a midpoint:
 * s = floor(root) even means round down to s, odd means round up to s + 1.
 */
PSH_INLINE float psh_sqrt_scaled_rn(psh_u64 p, int ep) {
    psh_u64 s = psh_isqrt50(p);
    s += s & 1;
    /* s <= 2^25 is exact in f32, and so are both power-of-two scalings as
     * long as the result is a normal number (ep / 2 in [-150, 102]). */
    return (float)s * psh_pow2f(-24) * psh_pow2f(ep / 2 + 24);
}

/* Correctly rounded sqrtf(x) without a hardware square root. */
PSH_INLINE float psh_sqrt_rn_int(float x) {
    if (x == 0.0f) return x;
    if (!(x > 0.0f && x <= 3.4028235e38f)) return psh_sqrt_rn(x); /* NaN, inf, < 0 */
    int e;
    const psh_u32 m = psh_split_f32(x, &e);
    /* m * 2^25 or m * 2^26 lies in [2^48, 2^50): pick the one that leaves
     * an even power of two. */
    const int sh = ((e - 25) & 1) ? 26 : 25;
    return psh_sqrt_scaled_rn((psh_u64)m << sh, e - sh);
}

/*
 * RN_f32(sqrt(a * b)) with the product taken exactly (spec section 6): the
 * 48-bit significand product, normalised to [2^48, 2^50) with an even
 * exponent. Zero, subnormal, negative or non-finite operands take the plain
 * f32 route, as the spec allows.
 */
PSH_INLINE float psh_sqrt_prod_rn(float a, float b) {
    const float min_normal = 1.17549435e-38f, max_finite = 3.4028235e38f;
    if (!(a >= min_normal && a <= max_finite && b >= min_normal && b <= max_finite))
        return psh_sqrt_rn(a * b);
    int ea, eb;
    const psh_u64 p0 = (psh_u64)psh_split_f32(a, &ea) * psh_split_f32(b, &eb);
    const int e = ea + eb;
    /* p0 in [2^46, 2^48): shift by 2 or 3 (p0 < 2^47) or 1 or 2 (p0 >= 2^47)
     * to land in [2^48, 2^50), choosing the one that makes e - sh even. */
    const int lo = p0 < ((psh_u64)1 << 47) ? 2 : 1;
    const int sh = ((e - lo) & 1) ? lo + 1 : lo;
    const int ep = e - sh;
    /* Normal operands keep ep / 2 >= -150; only roots beyond the f32 range
     * (never met by psnr_hvs) take the plain route. */
    if (ep / 2 > 102) return psh_sqrt_rn(a * b);
    return psh_sqrt_scaled_rn(p0 << sh, ep);
}

/*
 * RN_f32(a / b) from integer arithmetic, for devices whose f32 division is
 * not correctly rounded. The 24-bit significands give a quotient in (1/2, 2);
 * floor(ma * 2^26 / mb) holds 26 or 27 bits, so the bits below the kept
 * significand plus a nonzero remainder (sticky) decide the rounding, ties to
 * even. Subnormal results keep fewer bits, at the fixed quantum 2^-149.
 */
PSH_INLINE float psh_div_rn_int(float a, float b) {
    const psh_u32 ua = psh_float_as_u32(a), ub = psh_float_as_u32(b);
    const psh_u32 sign = (ua ^ ub) & 0x80000000u;
    const psh_u32 aa = ua & 0x7fffffffu, ab = ub & 0x7fffffffu;
    if (aa > 0x7f800000u || ab > 0x7f800000u) return a + b; /* NaN */
    if (aa == 0x7f800000u || ab == 0u) {
        if (ab == 0x7f800000u || aa == 0u) return psh_u32_as_float(0x7fc00000u); /* inf/inf, 0/0 */
        return psh_u32_as_float(sign | 0x7f800000u);
    }
    if (aa == 0u || ab == 0x7f800000u) return psh_u32_as_float(sign);
    /* Significands in [2^23, 2^24) and exponents, by value: no address-taken
     * locals, which a device compiler may put in private memory when this is
     * not inlined (63 calls per block). */
    int ea = (int)(aa >> 23), eb = (int)(ab >> 23);
    psh_u64 ma = aa & 0x7fffffu, mb = ab & 0x7fffffu;
    if (ea)
        ma |= 0x800000u;
    else
        ea = 1;
    if (eb)
        mb |= 0x800000u;
    else
        eb = 1;
    ea -= 150;
    eb -= 150;
    while (ma < 0x800000u) ma <<= 1, ea--;
    while (mb < 0x800000u) mb <<= 1, eb--;
    /* q = floor(ma * 2^26 / mb) by restoring division, one quotient bit a
     * step: no 64-bit divide, which device compilers call as a subroutine
     * with a stack frame (private memory). */
    psh_u64 q = 0, rem = ma;
    for (int k = 0; k < 27; k++) {
        q <<= 1;
        if (rem >= mb) {
            rem -= mb;
            q |= 1;
        }
        rem <<= 1;
    }
    const int sticky = rem != 0;
    const int len = q >= ((psh_u64)1 << 26) ? 27 : 26;
    /* a / b = (q + rem / mb) * 2^e; the result's leading bit is 2^(e + len - 1). */
    const int e = ea - eb - 26;
    if (e + len - 1 > 127) return psh_u32_as_float(sign | 0x7f800000u);
    /* bits to drop: down to 24 significant bits, or to the 2^-149 quantum */
    int shift = len - 24;
    if (e + shift < -149) shift = -149 - e;
    if (shift > 28) return psh_u32_as_float(sign); /* q < 2^27 is below half the quantum */
    psh_u64 kept = q >> shift;
    const psh_u64 dropped = q & (((psh_u64)1 << shift) - 1);
    const psh_u64 halfway = (psh_u64)1 << (shift - 1);
    if (dropped > halfway || (dropped == halfway && (sticky || (kept & 1)))) kept++;
    /* kept * 2^(e + shift): for normals the exponent field is e + shift + 150
     * and the hidden bit adds one more, so biased (e + shift + 149) << 23 plus
     * kept is right, carry into the next binade (or to inf) included; for
     * subnormals e + shift = -149 and the bits are kept itself. */
    const psh_u64 bits = ((psh_u64)(psh_i64)(e + shift + 149) << 23) + kept;
    if (bits >= 0x7f800000u) return psh_u32_as_float(sign | 0x7f800000u);
    return psh_u32_as_float(sign | (psh_u32)bits);
}

/* block.h divides through PSH_DIV_RN: integer division where the device's
 * own is not known to be correctly rounded. */
#if PSH_EXACT_HELPERS && !defined(PSH_DIV_RN)
#define PSH_DIV_RN(a, b) psh_div_rn_int((a), (b))
#endif

#endif /* PSNRHVS_SRC_CORE_INT_MATH_H */
