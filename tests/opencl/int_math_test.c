/*
 * The integer helpers of src/core/int_math.h (the device path without a
 * correctly rounded f32 division or square root) against the CPU's IEEE
 * operations, bit for bit: psh_sqrt_rn_int against sqrtf, psh_sqrt_prod_rn
 * against (float)sqrt((double)a * b) (53 >= 2 * 24 + 2 bits, so the double
 * rounding is innocuous), psh_div_rn_int against a / b. Random operands of
 * every class plus the hard cases: roots and quotients next to a midpoint,
 * powers of two, the ends of the normal range, subnormals, zeros, inf, NaN.
 * usage: opencl_int_math [random cases per function, default 2000000] [seed]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/int_math.h"
#include "rng.h"

static uint64_t rng_state;

static uint32_t rnd(void) {
    return psnrhvs_test_rnd(&rng_state);
}

static float from_bits(const uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

static uint32_t bits_of(const float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

/* Equal bits, or both NaN (payloads may differ). */
static int same(const float a, const float b) {
    return bits_of(a) == bits_of(b) || (isnan(a) && isnan(b));
}

/* A positive finite f32 with a random exponent (all binades equally likely)
 * and significand: subnormals and both ends of the range come up often. */
static float rnd_positive(void) {
    uint32_t e = rnd() % 255; /* 0 = subnormal, 254 = top binade */
    return from_bits((e << 23) | (rnd() & 0x7fffffu));
}

static long failures, checks;

static void check_sqrt(const float x) {
    const float want = __builtin_sqrtf(x), got = psh_sqrt_rn_int(x);
    checks++;
    if (!same(got, want) && failures++ < 20)
        printf("sqrt(%a): got %a, want %a\n", (double)x, (double)got, (double)want);
}

/* The expected value, from the CPU's IEEE operations only (never from the
 * helpers under test): psh_sqrt_prod_rn takes the exact product where both
 * operands are normal and finite and the root stays below 2^127, i.e. the
 * exact product below 2^254 (the f64 product of two f32 values is exact);
 * elsewhere it is documented to take the f32 product. */
static float want_sqrt_prod(const float a, const float b) {
    const float lo = 0x1p-126f, hi = 0x1.fffffep127f;
    if (!(a >= lo && a <= hi && b >= lo && b <= hi)) return __builtin_sqrtf(a * b);
    const double p = (double)a * (double)b;
    if (p >= 0x1p254) return __builtin_sqrtf(a * b);
    return (float)sqrt(p);
}

static void check_sqrt_prod(const float a, const float b) {
    const float want = want_sqrt_prod(a, b), got = psh_sqrt_prod_rn(a, b);
    checks++;
    if (!same(got, want) && failures++ < 20)
        printf("sqrt(%a * %a): got %a, want %a\n", (double)a, (double)b, (double)got, (double)want);
}

static void check_div(const float a, const float b) {
    const float want = a / b, got = psh_div_rn_int(a, b);
    checks++;
    if (!same(got, want) && failures++ < 20)
        printf("%a / %a: got %a, want %a\n", (double)a, (double)b, (double)got, (double)want);
}

/* Values of the binade [2^e, 2^(e+1)) at and next to its ends. */
static void edges(float out[6], const int e) {
    const float p = ldexpf(1.0f, e);
    out[0] = p;
    out[1] = nextafterf(p, INFINITY);
    out[2] = nextafterf(p, 0.0f);
    const float top = nextafterf(2 * p, 0.0f);
    out[3] = top;
    out[4] = nextafterf(top, 0.0f);
    out[5] = p * 1.5f;
}

int main(int argc, char **argv) {
    const long n = argc > 1 ? atol(argv[1]) : 2000000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ULL;
    printf("seed 0x%llx, %ld random cases per function\n", (unsigned long long)rng_state, n);
    const float specials[] = {0.0f,       -0.0f,          INFINITY,       -INFINITY,
                              NAN,        1.0f,           -1.0f,          2.0f,
                              3.0f,       0x1p-149f,      0x1p-126f,      0x1.fffffcp-127f,
                              0x1p-127f,  0x1.8p-149f,    3.4028235e38f,  0x1p127f,
                              -0x1p-149f, -3.4028235e38f, 0x1.fffffep-1f, 0x1.000002p+0f};
    const int ns = (int)(sizeof(specials) / sizeof(specials[0]));

    /* Square root. */
    for (int i = 0; i < ns; i++) check_sqrt(specials[i]);
    for (int e = -149; e <= 127; e++) {
        float v[6];
        edges(v, e);
        for (int i = 0; i < 6; i++) check_sqrt(v[i]);
    }
    /* Roots next to a midpoint: x near (m + 1/2)^2 for 24-bit m, where the
     * rounding decision needs every bit. */
    for (long i = 0; i < n / 8; i++) {
        const uint64_t m = 0x800000u | (rnd() & 0x7fffffu);
        const double mid2 = (double)(2 * m + 1) * (double)(2 * m + 1); /* exact, < 2^50 */
        const int scale = (int)(rnd() % 200) - 100;
        float x = (float)ldexp(mid2, scale - 48);
        for (int k = 0; k < 3; k++, x = nextafterf(x, 0.0f)) check_sqrt(x);
        check_sqrt(nextafterf((float)ldexp(mid2, scale - 48), INFINITY));
    }
    for (long i = 0; i < n; i++) check_sqrt(rnd_positive());
    const long sqrt_checks = checks;

    /* Square root of an exact product. */
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) check_sqrt_prod(specials[i], specials[j]);
    for (int e = -126; e <= 127; e += 3) {
        float v[6], w[6];
        edges(v, e);
        edges(w, -e - 1 + (int)(rnd() % 7) - 3);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) check_sqrt_prod(v[i], w[j]);
    }
    /* Products at and next to 2^254, where the exact route ends. */
    for (int e = 100; e <= 127; e++) {
        float v[6], w[6], x[6];
        edges(v, e);
        edges(w, 253 - e);
        edges(x, 254 - e);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                check_sqrt_prod(v[i], w[j]);
                if (254 - e <= 127) check_sqrt_prod(v[i], x[j]);
            }
    }
    /* k * (k + 1): the root sits just below the midpoint k + 1/2. */
    for (long i = 0; i < n / 4; i++) {
        const uint32_t k = 1 + (rnd() & 0xffffffu) % 0xffffffu; /* k + 1 <= 2^24 */
        const int s = (int)(rnd() % 120) - 60;
        check_sqrt_prod(ldexpf((float)k, s), ldexpf((float)(k + 1), -s + (int)(rnd() % 5) - 2));
        check_sqrt_prod((float)k, (float)k);
    }
    for (long i = 0; i < n; i++) {
        /* mostly products inside the f32 range, as psnr_hvs gives */
        const float a = ldexpf(1.0f + (rnd() & 0x7fffffu) * 0x1p-23f, (int)(rnd() % 120) - 60);
        check_sqrt_prod(a, rnd() & 1 ? rnd_positive() : a * 0.5f);
    }
    const long prod_checks = checks - sqrt_checks;

    /* Division. */
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) check_div(specials[i], specials[j]);
    /* Quotients landing next to overflow, next to and inside the subnormal
     * range (ties at the 2^-149 quantum included), and exactly. */
    for (int e = -149; e <= 127; e++) {
        float v[6], w[6];
        edges(v, e);
        edges(w, (int)(rnd() % 277) - 149);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                check_div(v[i], w[j]);
                check_div(w[j], v[i]);
            }
    }
    for (uint32_t m = 1; m < 4096; m++) {
        check_div(from_bits(m), 2.0f);                 /* halving subnormals: ties */
        check_div(from_bits(m * 3), 4.0f);             /* quarter steps */
        check_div(from_bits(m), 0x1p-24f);             /* back to normals */
        check_div((float)m, 3.0f);                     /* repeating quotients */
        check_div(0x1p-126f * m, 0x1p23f);             /* normal to subnormal */
        check_div(3.4028235e38f, 1.0f - m * 0x1p-24f); /* overflow edge */
    }
    for (long i = 0; i < n; i++) {
        const uint32_t sa = rnd() & 0x80000000u, sb = rnd() & 0x80000000u;
        check_div(from_bits(sa | bits_of(rnd_positive())), from_bits(sb | bits_of(rnd_positive())));
        /* quotients in the range psnr_hvs divides in: lim = t / mask */
        const float t = ldexpf(1.0f + (rnd() & 0x7fffffu) * 0x1p-23f, (int)(rnd() % 40) - 10);
        const float m = ldexpf(1.0f + (rnd() & 0x7fffffu) * 0x1p-23f, (int)(rnd() % 20) - 14);
        check_div(t, m);
        /* quotients with a 1-ulp neighbour of an exact result */
        const float q = rnd_positive(), d = 1.0f + (rnd() & 0xfffu) * 0x1p-12f;
        check_div(nextafterf(q * d, INFINITY), d);
    }
    const long div_checks = checks - sqrt_checks - prod_checks;

    printf("sqrt: %ld, sqrt of product: %ld, division: %ld checks; %ld mismatches\n", sqrt_checks,
           prod_checks, div_checks, failures);
    return failures != 0;
}
