/*
 * GLSL port of src/core/int_math.h: correctly rounded f32 square roots and
 * division from integer arithmetic (Vulkan's own division may be off by 2.5
 * ulp and its root is not correctly rounded). Same functions, same steps;
 * only the C casts became constructors, pointers out-parameters, and the
 * even exponents' halving `ep / 2` an exact `ep >> 1`.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_VULKAN_INT_MATH_GLSL
#define PSNRHVS_VULKAN_INT_MATH_GLSL

#include "portable.glsl"

/* floor(sqrt(v)) for v < 2^50, digit by digit (one result bit per step). */
psh_u64 psh_isqrt50(psh_u64 v) {
    psh_u64 root = 0ul;
    psh_u64 bit = 1ul << 50;
    [[dont_unroll]] for (int k = 0; k < 26; k++) {
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
float psh_pow2f(int e) {
    return psh_u32_as_float(psh_u32(e + 127) << 23);
}

/* Split a positive finite f32 into an integer significand in [2^23, 2^24)
 * and an exponent: x = m * 2^e (subnormals normalised). */
psh_u32 psh_split_f32(float x, out int e) {
    const psh_u32 bits = psh_float_as_u32(x);
    const int biased = int((bits >> 23) & 0xffu);
    psh_u32 m = bits & 0x7fffffu;
    if (biased == 0) {
        int shift = 0;
        while (m < 0x800000u) {
            m <<= 1;
            shift++;
        }
        e = -149 - shift;
        return m;
    }
    e = biased - 150;
    return m | 0x800000u;
}

/* RN_f32(sqrt(p * 2^ep)) for p in [2^48, 2^50), p and ep even (int_math.h). */
float psh_sqrt_scaled_rn(psh_u64 p, int ep) {
    psh_u64 s = psh_isqrt50(p);
    s += s & 1ul;
    /* s <= 2^25 is exact in f32, and so are both power-of-two scalings as
     * long as the result is a normal number (ep / 2 in [-150, 102]). */
    precise float r = float(s) * psh_pow2f(-24) * psh_pow2f((ep >> 1) + 24);
    return r;
}

/* Correctly rounded sqrtf(x) without a hardware square root. */
float psh_sqrt_rn_int(float x) {
    if (x == 0.0) return x;
    if (!(x > 0.0 && x <= uintBitsToFloat(0x7f7fffffu))) return psh_sqrt_rn(x); /* NaN, inf, < 0 */
    int e;
    const psh_u32 m = psh_split_f32(x, e);
    /* m * 2^25 or m * 2^26 lies in [2^48, 2^50): pick the one that leaves
     * an even power of two. */
    const int sh = ((e - 25) & 1) != 0 ? 26 : 25;
    return psh_sqrt_scaled_rn(psh_u64(m) << sh, e - sh);
}

/* RN_f32(sqrt(a * b)) with the product taken exactly (spec section 6). */
float psh_sqrt_prod_rn(float a, float b) {
    const float min_normal = uintBitsToFloat(0x00800000u), max_finite = uintBitsToFloat(0x7f7fffffu);
    if (!(a >= min_normal && a <= max_finite && b >= min_normal && b <= max_finite)) {
        precise float ab = a * b;
        return psh_sqrt_rn_int(ab); /* C: the device's IEEE root */
    }
    int ea, eb;
    const psh_u32 ma = psh_split_f32(a, ea);
    const psh_u64 p0 = psh_u64(ma) * psh_split_f32(b, eb);
    const int e = ea + eb;
    /* p0 in [2^46, 2^48): shift by 2 or 3 (p0 < 2^47) or 1 or 2 (p0 >= 2^47)
     * to land in [2^48, 2^50), choosing the one that makes e - sh even. */
    const int lo = p0 < (1ul << 47) ? 2 : 1;
    const int sh = ((e - lo) & 1) != 0 ? lo + 1 : lo;
    const int ep = e - sh;
    /* Normal operands keep ep / 2 >= -150; only roots beyond the f32 range
     * (never met by psnr_hvs) take the plain route. */
    if ((ep >> 1) > 102) {
        precise float ab = a * b;
        return psh_sqrt_rn_int(ab); /* C: the device's IEEE root */
    }
    return psh_sqrt_scaled_rn(p0 << sh, ep);
}

/* RN_f32(a / b) from integer arithmetic (int_math.h). */
float psh_div_rn_int(float a, float b) {
    const psh_u32 ua = psh_float_as_u32(a), ub = psh_float_as_u32(b);
    const psh_u32 sign = (ua ^ ub) & 0x80000000u;
    const psh_u32 aa = ua & 0x7fffffffu, ab = ub & 0x7fffffffu;
    if (aa > 0x7f800000u || ab > 0x7f800000u) {
        precise float nan = a + b; /* NaN */
        return nan;
    }
    if (aa == 0x7f800000u || ab == 0u) {
        if (ab == 0x7f800000u || aa == 0u) return psh_u32_as_float(0x7fc00000u); /* inf/inf, 0/0 */
        return psh_u32_as_float(sign | 0x7f800000u);
    }
    if (aa == 0u || ab == 0x7f800000u) return psh_u32_as_float(sign);
    int ea = int(aa >> 23), eb = int(ab >> 23);
    psh_u64 ma = psh_u64(aa & 0x7fffffu), mb = psh_u64(ab & 0x7fffffu);
    if (ea != 0)
        ma |= 0x800000ul;
    else
        ea = 1;
    if (eb != 0)
        mb |= 0x800000ul;
    else
        eb = 1;
    ea -= 150;
    eb -= 150;
    while (ma < 0x800000ul) {
        ma <<= 1;
        ea--;
    }
    while (mb < 0x800000ul) {
        mb <<= 1;
        eb--;
    }
    /* q = floor(ma * 2^26 / mb) and whether a remainder is left (sticky).
     * int_math.h runs a restoring division, one quotient bit a step (27
     * steps of 64-bit arithmetic: the bulk of the terms kernel here, 63
     * divisions a block); this is the same long division with 32-bit
     * digits: base 2^8 (three digits) and 2^2, each digit one exact 32-bit
     * udiv. A remainder is below mb < 2^24, so shifted by 8 it stays below
     * 2^32, and each digit is below its base. The quotient and remainder
     * are those of the restoring loop, bit for bit. */
    const psh_u32 m32 = psh_u32(mb);
    psh_u32 r32 = psh_u32(ma), q32 = 0u;
    if (r32 >= m32) {
        q32 = 1u;
        r32 -= m32;
    }
    PSH_UNROLL
    for (int k = 0; k < 4; k++) {
        const int sh = k < 3 ? 8 : 2;
        r32 <<= sh;
        q32 = (q32 << sh) | (r32 / m32);
        r32 = r32 % m32;
    }
    const psh_u64 q = psh_u64(q32);
    const bool sticky = r32 != 0u;
    const int len = q >= (1ul << 26) ? 27 : 26;
    /* a / b = (q + rem / mb) * 2^e; the result's leading bit is 2^(e + len - 1). */
    const int e = ea - eb - 26;
    if (e + len - 1 > 127) return psh_u32_as_float(sign | 0x7f800000u);
    /* bits to drop: down to 24 significant bits, or to the 2^-149 quantum */
    int shift = len - 24;
    if (e + shift < -149) shift = -149 - e;
    if (shift > 28) return psh_u32_as_float(sign); /* q < 2^27 is below half the quantum */
    psh_u64 kept = q >> shift;
    const psh_u64 dropped = q & ((1ul << shift) - 1ul);
    const psh_u64 halfway = 1ul << (shift - 1);
    if (dropped > halfway || (dropped == halfway && (sticky || (kept & 1ul) != 0ul))) kept++;
    /* kept * 2^(e + shift), carry into the next binade (or to inf) included. */
    const psh_u64 bits = (psh_u64(psh_i64(e + shift + 149)) << 23) + kept;
    if (bits >= 0x7f800000ul) return psh_u32_as_float(sign | 0x7f800000u);
    return psh_u32_as_float(sign | psh_u32(bits));
}

/* block.glsl divides through PSH_DIV_RN: always the integer division. */
#define PSH_DIV_RN(a, b) psh_div_rn_int((a), (b))

#endif
