/*
 * Unit tests of the portable core: the lifting DCT against a plain scalar
 * transcription of daala's, the f32 tables against the spec's bit patterns,
 * the threshold's f32 square root against libvmaf's f64 expression, and the
 * integer square roots against f64.
 * usage: test_core [seed]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/block.h"
#include "rng.h"

static uint64_t rng_state;
static uint32_t rnd(void) {
    return psnrhvs_test_rnd(&rng_state);
}

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* daala's od_bin_fdct8 as a plain transcription with int64 arithmetic
 * (no wrapping is ever reached for 12-bit input), written independently of
 * block.h's statement order of helpers. */
#define HALF(a)      (((a) + ((a) < 0)) >> 1)
#define MUL(a, k, s) ((((int64_t)(a) * (k)) + ((int64_t)1 << ((s)-1))) >> (s))
static void plain_fdct8(int64_t y[8], const int64_t x[8]) {
    int64_t t0 = x[0], t4 = x[1], t2 = x[2], t6 = x[3], t7 = x[4], t3 = x[5], t5 = x[6], t1 = x[7];
    int64_t t1h, t4h, t6h;
    t1 = t0 - t1, t1h = HALF(t1), t0 -= t1h;
    t4 += t5, t4h = HALF(t4), t5 -= t4h;
    t3 = t2 - t3, t2 -= HALF(t3);
    t6 += t7, t6h = HALF(t6), t7 = t6h - t7;
    t0 += t6h, t6 = t0 - t6;
    t2 = t4h - t2, t4 = t2 - t4;
    t0 -= MUL(t4, 13573, 15), t4 += MUL(t0, 11585, 14), t0 -= MUL(t4, 13573, 15);
    t6 -= MUL(t2, 21895, 15), t2 += MUL(t6, 15137, 14), t6 -= MUL(t2, 21895, 15);
    t3 += MUL(t5, 19195, 15), t5 += MUL(t3, 11585, 14), t3 -= MUL(t5, 7489, 13);
    t7 = HALF(t5) - t7, t5 -= t7;
    t3 = t1h - t3, t1 -= t3;
    t7 += MUL(t1, 3227, 15), t1 -= MUL(t7, 6393, 15), t7 += MUL(t1, 3227, 15);
    t5 += MUL(t3, 2485, 13), t3 -= MUL(t5, 18205, 15), t5 += MUL(t3, 2485, 13);
    y[0] = t0, y[1] = t1, y[2] = t2, y[3] = t3, y[4] = t4, y[5] = t5, y[6] = t6, y[7] = t7;
}

static void plain_fdct8x8(int64_t out[8][8], const int x[8][8]) {
    int64_t z[8][8], col[8];
    for (int c = 0; c < 8; c++) {
        for (int r = 0; r < 8; r++) col[r] = x[r][c];
        plain_fdct8(z[c], col);
    }
    for (int c = 0; c < 8; c++) {
        for (int r = 0; r < 8; r++) col[r] = z[r][c];
        plain_fdct8(out[c], col);
    }
}

static void fill_block(int x[8][8], int kind, int bitdepth) {
    const int max = (1 << bitdepth) - 1;
    const int base = (int)(rnd() % (unsigned)(max + 1));
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            switch (kind) {
            case 0:
                x[i][j] = (int)(rnd() % (unsigned)(max + 1));
                break;
            case 1:
                x[i][j] = ((i + j) & 1) ? max : 0;
                break;
            case 2:
                x[i][j] = base;
                break;
            case 3:
                x[i][j] = base + (int)(rnd() % 3) - 1;
                break;
            default:
                x[i][j] = (rnd() & 1) ? max : 0;
                break;
            }
            x[i][j] = x[i][j] < 0 ? 0 : x[i][j] > max ? max : x[i][j];
        }
}

static void test_dct(int blocks) {
    static const int depths[3] = {8, 10, 12};
    for (int n = 0; n < blocks; n++) {
        int x[8][8];
        fill_block(x, n % 5, depths[n % 3]);
        int64_t want[8][8];
        plain_fdct8x8(want, x);
        psh_i32 got[64];
        for (int k = 0; k < 64; k++) got[k] = x[k / 8][k % 8];
        psh_fdct8x8(got);
        for (int k = 0; k < 64; k++)
            CHECK(got[k] == want[k / 8][k % 8], "dct block %d coef %d: %d vs %lld", n, k, got[k],
                  (long long)want[k / 8][k % 8]);
    }
    /* A constant block of value v gives a DC of about 8v and no AC. */
    psh_i32 flat[64];
    for (int k = 0; k < 64; k++) flat[k] = 100;
    psh_fdct8x8(flat);
    CHECK(flat[0] >= 799 && flat[0] <= 801, "flat DC %d", flat[0]);
    for (int k = 1; k < 64; k++) CHECK(flat[k] == 0, "flat AC %d = %d", k, flat[k]);
}

/* The spec's first and last mask entries per plane and the rule that
 * produced them: the product in f64, rounded once. */
static void test_tables(void) {
    static const uint32_t csf_first[3] = {0x3fcf4815, 0x3ff49ff1, 0x40027a63};
    for (int p = 0; p < 3; p++) {
        CHECK(bits(psh_csf[p][0]) == csf_first[p], "csf[%d][0] = %a", p, psh_csf[p][0]);
        for (int k = 0; k < 64; k++) {
            const double c = (double)psh_csf[p][k] * 0.3885746225901003;
            const float want = (float)(c * c);
            CHECK(bits(psh_mask[p][k]) == bits(want), "mask[%d][%d] = %a, want %a", p, k,
                  psh_mask[p][k], want);
        }
        /* The table is symmetric (i,j) = (j,i). */
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                CHECK(bits(psh_csf[p][i * 8 + j]) == bits(psh_csf[p][j * 8 + i]), "csf symmetry");
    }
    /* Computing the mask in f32 changes about half the entries (spec 1). */
    int changed = 0;
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < 64; k++) {
            const float c = psh_csf[p][k] * 0.3885746225901003f;
            changed += bits(c * c) != bits(psh_mask[p][k]);
        }
    CHECK(changed == 98, "f32 mask differs in %d entries, spec says 98", changed);
}

/* libvmaf's threshold expression, literally. */
static float threshold_f64(float energy, float ratio) {
    return (float)(sqrt((double)(energy * ratio)) / 32.0);
}
static float threshold_exact_f64(float energy, float ratio) {
    return (float)(sqrt((double)energy * (double)ratio) / 32.0);
}

static float random_float(float lo_exp, float hi_exp) {
    const float e = lo_exp + (hi_exp - lo_exp) * (float)(rnd() & 0xffff) / 65536.0f;
    return ldexpf(1.0f + (float)(rnd() & 0x7fffff) / 8388608.0f, (int)e);
}

static void test_threshold(int cases) {
    int exact_differs = 0;
    for (int n = 0; n < cases; n++) {
        const float energy = random_float(-10, 40), ratio = random_float(-30, 4);
        const float want = threshold_f64(energy, ratio);
        const float got = psh_sqrt_rn(energy * ratio) / 32.0f;
        CHECK(bits(got) == bits(want), "threshold %a %a: %a vs %a", energy, ratio, got, want);
        const float got_int = psh_sqrt_rn_int(energy * ratio) / 32.0f;
        CHECK(bits(got_int) == bits(want), "int sqrt %a: %a vs %a", energy * ratio, got_int, want);
        const float want_exact = threshold_exact_f64(energy, ratio);
        const float got_exact = psh_sqrt_prod_rn(energy, ratio) / 32.0f;
        CHECK(bits(got_exact) == bits(want_exact), "exact product %a*%a: %a vs %a", energy, ratio,
              got_exact, want_exact);
        exact_differs += bits(want_exact) != bits(want);
    }
    /* The variant differs from libvmaf on a small share of inputs (spec 6). */
    CHECK(exact_differs > 0 && exact_differs < cases / 4, "exact variant differs %d/%d",
          exact_differs, cases);

    /* Integer root on boundaries: zero, subnormals, extremes, squares of
     * midpoints and their neighbours. */
    const float specials[] = {0.0f, -0.0f, 1e-45f, 1.17549435e-38f, 1.1754942e-38f, 3.4028235e38f,
                              1.0f, 2.0f,  4.0f,   0.25f,           16777215.0f,    16777216.0f};
    for (size_t i = 0; i < sizeof(specials) / sizeof(*specials); i++) {
        const float x = specials[i];
        CHECK(bits(psh_sqrt_rn_int(x)) == bits(sqrtf(x)), "sqrt_int(%a)", x);
    }
    for (int n = 0; n < cases; n++) {
        /* x near the square of an f32 midpoint m = (2k + 1) / 2^24. */
        const uint32_t k = (1u << 23) + (rnd() & 0x7fffff);
        const double m = ((double)k + 0.5) / 8388608.0;
        const float x = (float)(m * m);
        for (int d = -2; d <= 2; d++) {
            const float y = from_bits(bits(x) + (uint32_t)d);
            CHECK(bits(psh_sqrt_rn_int(y)) == bits(sqrtf(y)), "sqrt_int midpoint %a", y);
        }
        const float a = random_float(-140, 120), b = random_float(-140, 120);
        /* Subnormal operands take sqrtf(a * b) by the spec's definition. */
        const int normal = fabsf(a) >= 1.17549435e-38f && fabsf(b) >= 1.17549435e-38f;
        const float want = normal ? (float)sqrt((double)a * (double)b) : sqrtf(a * b);
        CHECK(bits(psh_sqrt_prod_rn(a, b)) == bits(want), "sqrt_prod %a %a", a, b);
    }
}

/* Contraction of (err*csf)*(err*csf) or of the energy sum into an FMA
 * changes these bits; with -ffp-contract=off they stay libvmaf's. */
static void test_no_contraction(void) {
    volatile float err = 0x1.8p+3f, w = 0x1.9e902ap+0f;
    const float t = psh_block_term(100, 88, 9, 0, 0x1.2p-1f);
    const float lim = 0x1.2p-1f / psh_mask[0][9];
    const float e = 12.0f - lim;
    const float want = (e * psh_csf[0][9]) * (e * psh_csf[0][9]);
    CHECK(bits(t) == bits(want), "term %a vs %a", t, want);
    const float prod = err * w;
    CHECK(bits(prod * prod) == bits((float)((double)prod * (double)prod)), "square rounding");
}

int main(int argc, char **argv) {
    rng_state = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x9e3779b97f4a7c15ULL;
    printf("seed 0x%llx\n", (unsigned long long)rng_state);
    test_dct(20000);
    test_tables();
    test_threshold(200000);
    test_no_contraction();
    printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
