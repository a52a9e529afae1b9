/*
 * The Vulkan kernels' integer helpers (src/vulkan/glsl/int_math.glsl, the
 * GLSL port of src/core/int_math.h) run on the device, against the CPU's
 * IEEE operations, bit for bit: psh_div_rn_int against a / b,
 * psh_sqrt_rn_int against sqrtf, psh_sqrt_prod_rn against
 * (float)sqrt((double)a * b), as tests/opencl/int_math_test.c checks the C
 * helpers: random operands of every class plus the hard cases (quotients and
 * roots next to a midpoint, powers of two, the ends of the normal range,
 * subnormal quotients with ties, overflow, zeros, inf, NaN). Every pair goes
 * through all three functions.
 * The kernels do not ask the device to keep f32 subnormals (no DenormPreserve
 * execution mode: psnr_hvs never gives the helpers a subnormal operand, see
 * docs/vulkan.md), and where it flushes them the helpers' float comparisons
 * see such an operand as zero: those cases (and subnormal results) are
 * compared and reported apart,
 * and do not fail the test (lavapipe keeps subnormals: they all agree there).
 * usage: vulkan_int_math [random cases, default 200000] [seed]
 * Exits 77 when no Vulkan device is usable. PSNRHVS_VULKAN_DEVICE picks one.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"
#include "rng.h"
#include "test_hooks.h"

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

static int same(const float a, const float b) {
    return bits_of(a) == bits_of(b) || (isnan(a) && isnan(b));
}

static int subnormal(const float x) {
    return x != 0.0f && fabsf(x) < 0x1p-126f;
}

static float rnd_positive(void) {
    uint32_t e = rnd() % 255;
    return from_bits((e << 23) | (rnd() & 0x7fffffu));
}

static float want_sqrt_prod(const float a, const float b) {
    const float lo = 0x1p-126f, hi = 0x1.fffffep127f;
    if (!(a >= lo && a <= hi && b >= lo && b <= hi)) return __builtin_sqrtf(a * b);
    const double p = (double)a * (double)b;
    if (p >= 0x1p254) return __builtin_sqrtf(a * b);
    return (float)sqrt(p);
}

static float *pairs;
static size_t npairs, cap;

static void add(const float a, const float b) {
    if (npairs == cap) {
        cap = cap ? 2 * cap : 1 << 16;
        pairs = realloc(pairs, cap * 2 * sizeof(float));
        if (!pairs) exit(1);
    }
    pairs[2 * npairs] = a;
    pairs[2 * npairs + 1] = b;
    npairs++;
}

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

static void make_cases(const long n) {
    const float specials[] = {0.0f,       -0.0f,          INFINITY,       -INFINITY,
                              NAN,        1.0f,           -1.0f,          2.0f,
                              3.0f,       0x1p-149f,      0x1p-126f,      0x1.fffffcp-127f,
                              0x1p-127f,  0x1.8p-149f,    3.4028235e38f,  0x1p127f,
                              -0x1p-149f, -3.4028235e38f, 0x1.fffffep-1f, 0x1.000002p+0f};
    const int ns = (int)(sizeof(specials) / sizeof(specials[0]));
    for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) add(specials[i], specials[j]);
    /* binade ends against binade ends: overflow, subnormal and exact quotients */
    for (int e = -149; e <= 127; e++) {
        float v[6], w[6];
        edges(v, e);
        edges(w, (int)(rnd() % 277) - 149);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                add(v[i], w[j]);
                add(w[j], v[i]);
            }
    }
    /* products at and next to 2^254, where the exact route ends */
    for (int e = 100; e <= 127; e++) {
        float v[6], w[6];
        edges(v, e);
        edges(w, 253 - e + (int)(rnd() % 2));
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) add(v[i], w[j]);
    }
    /* roots next to a midpoint: x near (m + 1/2)^2 */
    for (long i = 0; i < n / 8; i++) {
        const uint64_t m = 0x800000u | (rnd() & 0x7fffffu);
        const double mid2 = (double)(2 * m + 1) * (double)(2 * m + 1);
        const int scale = (int)(rnd() % 200) - 100;
        float x = (float)ldexp(mid2, scale - 48);
        for (int k = 0; k < 3; k++, x = nextafterf(x, 0.0f)) add(x, rnd_positive());
        add(nextafterf((float)ldexp(mid2, scale - 48), INFINITY), 1.0f);
    }
    /* k * (k + 1): the root of the product just below the midpoint k + 1/2 */
    for (long i = 0; i < n / 4; i++) {
        const uint32_t k = 1 + (rnd() & 0xffffffu) % 0xffffffu;
        const int s = (int)(rnd() % 120) - 60;
        add(ldexpf((float)k, s), ldexpf((float)(k + 1), -s + (int)(rnd() % 5) - 2));
    }
    /* quotients: halving subnormals (ties), normal to subnormal, overflow edge */
    for (uint32_t m = 1; m < 4096; m++) {
        add(from_bits(m), 2.0f);
        add(from_bits(m * 3), 4.0f);
        add(from_bits(m), 0x1p-24f);
        add((float)m, 3.0f);
        add(0x1p-126f * m, 0x1p23f);
        add(3.4028235e38f, 1.0f - m * 0x1p-24f);
    }
    for (long i = 0; i < n; i++) {
        const uint32_t sa = rnd() & 0x80000000u, sb = rnd() & 0x80000000u;
        add(from_bits(sa | bits_of(rnd_positive())), from_bits(sb | bits_of(rnd_positive())));
        /* the range psnr_hvs divides in (lim = t / mask) and takes roots in */
        const float t = ldexpf(1.0f + (rnd() & 0x7fffffu) * 0x1p-23f, (int)(rnd() % 40) - 10);
        const float mk = ldexpf(1.0f + (rnd() & 0x7fffffu) * 0x1p-23f, (int)(rnd() % 20) - 14);
        add(t, mk);
        const float q = rnd_positive(), d = 1.0f + (rnd() & 0xfffu) * 0x1p-12f;
        add(nextafterf(q * d, INFINITY), d);
    }
}

int main(int argc, char **argv) {
    const long n = argc > 1 ? atol(argv[1]) : 200000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ULL;
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = 64;
    s.height = 64;
    s.backend = PSNRHVS_BACKEND_VULKAN;
    if (getenv("PSNRHVS_VULKAN_DEVICE")) s.device = atoi(getenv("PSNRHVS_VULKAN_DEVICE"));
    PsnrHvsContext *c;
    const int err = psnrhvs_open(&c, &s);
    if (err == PSNRHVS_ERR(ENODEV) && !getenv("PSNRHVS_VULKAN_DEVICE")) {
        printf("SKIP: no usable Vulkan device\n");
        return 77;
    }
    if (err) return 1;
    printf("seed 0x%llx, %ld random cases, device %d\n", (unsigned long long)rng_state, n,
           s.device);

    make_cases(n);
    float *const out = malloc(npairs * 3 * sizeof(float));
    if (!out) return 1;
    if (psh_test_vulkan_math(c, pairs, npairs, out)) return 1;
    long failures = 0, checks = 0, sub_checks = 0, sub_differ = 0;
    for (size_t i = 0; i < npairs; i++) {
        const float a = pairs[2 * i], b = pairs[2 * i + 1];
        const float want[3] = {a / b, __builtin_sqrtf(a), want_sqrt_prod(a, b)};
        const char *const what[3] = {"%a / %a", "sqrt(%a) [%a]", "sqrt(%a * %a)"};
        for (int k = 0; k < 3; k++) {
            /* the helpers test their operands (and the fallback's f32
             * product) with float comparisons */
            const int sub = subnormal(want[k]) ||
                            (k == 1 ? subnormal(a)
                                    : k == 2 && (subnormal(a) || subnormal(b) || subnormal(a * b)));
            if (sub) {
                sub_checks++;
                if (!same(out[3 * i + k], want[k]) && sub_differ++ < 5) {
                    printf("(subnormal operand or result) ");
                    printf(what[k], (double)a, (double)b);
                    printf(": got %a, want %a\n", (double)out[3 * i + k], (double)want[k]);
                }
                continue;
            }
            checks++;
            if (!same(out[3 * i + k], want[k]) && failures++ < 20) {
                printf(what[k], (double)a, (double)b);
                printf(": got %a, want %a\n", (double)out[3 * i + k], (double)want[k]);
            }
        }
    }
    printf("%zu operand pairs: %ld checks (division, root, root of the exact product), %ld "
           "mismatches; %ld more with a subnormal operand or result, %ld of them differ%s\n",
           npairs, checks, failures, sub_checks, sub_differ,
           sub_differ ? " (the device flushes subnormals: never a psnr_hvs operand)" : "");
    psnrhvs_close(&c);
    free(out);
    free(pairs);
    return failures != 0;
}
