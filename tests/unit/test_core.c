/*
 * Unit tests of the portable core: the lifting DCT against a plain scalar
 * transcription of daala's, all 192 CSF and 192 mask entries of tables.h
 * against the spec's bit patterns (read at run time from a copy of
 * shared/spec/psnr-hvs-tables.md, tests/data/spec/), the threshold's f32
 * square root against libvmaf's f64 expression, the integer square roots
 * against f64, and a probe that fails if the build contracts a * b - c.
 * usage: test_core <psnr-hvs-tables.md> [seed]
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

/* The spec's six tables: "csf_y (...):", "mask for csf_y:", then the same for
 * csf_cb420 and csf_cr420, each 8 lines of 8 C99 hex floats in i,j order.
 * A token counts only if "%a" prints it back unchanged (an exact f32 in the
 * shortest form), so a typo cannot parse into a neighbouring value. */
static int read_spec_tables(const char *path, uint32_t csf[3][64], uint32_t mask[3][64]) {
    static const char *const names[3] = {"csf_y", "csf_cb420", "csf_cr420"};
    FILE *const f = fopen(path, "r");
    if (!f) {
        printf("FAIL: cannot read %s\n", path);
        return -1;
    }
    char line[1024];
    uint32_t *table = NULL;
    int headers[2][3] = {{0}}, count[2][3] = {{0}}, *n = NULL, bad = 0;
    while (fgets(line, sizeof(line), f)) {
        int header = 0;
        for (int p = 0; p < 3 && !header; p++) {
            char mask_head[64];
            snprintf(mask_head, sizeof(mask_head), "mask for %s:", names[p]);
            const size_t len = strlen(names[p]);
            const int t = !strncmp(line, names[p], len) && line[len] == ' ' ? 0
                          : !strncmp(line, mask_head, strlen(mask_head))    ? 1
                                                                            : -1;
            if (t < 0) continue;
            table = t ? mask[p] : csf[p];
            n = &count[t][p];
            headers[t][p]++;
            header = 1;
        }
        if (header || !table) continue;
        if (!strncmp(line, "```", 3)) {
            table = NULL;
            continue;
        }
        for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
            char *end, back[64];
            const float v = strtof(tok, &end);
            snprintf(back, sizeof(back), "%a", (double)v);
            if (*end || strcmp(back, tok) || *n >= 64) {
                printf("FAIL: %s: bad or extra table entry \"%s\"\n", path, tok);
                bad = 1;
                continue;
            }
            table[(*n)++] = bits(v);
        }
    }
    fclose(f);
    for (int t = 0; t < 2; t++)
        for (int p = 0; p < 3; p++)
            if (headers[t][p] != 1 || count[t][p] != 64) {
                printf("FAIL: %s: %d \"%s%s\" tables, %d entries\n", path, headers[t][p],
                       t ? "mask for " : "", names[p], count[t][p]);
                bad = 1;
            }
    return bad ? -1 : 0;
}

/* Every entry against the spec's bits; the mask rule (the product in f64,
 * rounded once) and the tables' symmetry besides. */
static void test_tables(const char *spec_path) {
    static const char *const names[3] = {"csf_y", "csf_cb420", "csf_cr420"};
    uint32_t csf[3][64], mask[3][64];
    /* Sentinels (NaN bits no table holds): an entry the file lacks fails. */
    memset(csf, 0xff, sizeof(csf));
    memset(mask, 0xff, sizeof(mask));
    if (read_spec_tables(spec_path, csf, mask)) {
        failures++;
        return;
    }
    int compared = 0;
    for (int p = 0; p < 3; p++) {
        for (int k = 0; k < 64; k++, compared += 2) {
            CHECK(bits(psh_csf[p][k]) == csf[p][k], "%s[%d][%d] = %a (0x%08x), spec 0x%08x",
                  names[p], k / 8, k % 8, psh_csf[p][k], bits(psh_csf[p][k]), csf[p][k]);
            CHECK(bits(psh_mask[p][k]) == mask[p][k],
                  "mask for %s[%d][%d] = %a (0x%08x), spec 0x%08x", names[p], k / 8, k % 8,
                  psh_mask[p][k], bits(psh_mask[p][k]), mask[p][k]);
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
    printf("tables: %d entries compared with %s\n", compared, spec_path);
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

/* libvmaf's block statistics and threshold (calc_psnrhvs), transcribed with
 * every intermediate stored to a volatile float, so each operation is rounded
 * on its own whatever the contraction setting; the DCT is the plain one. */
static float libvmaf_threshold(const int x[8][8], const int plane) {
    volatile float gmean = 0, gvar = 0, energy = 0, means[4] = {0}, vars[4] = {0}, t;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
            gmean += x[i][j];
            means[sub] += x[i][j];
        }
    gmean /= 64.f;
    for (int i = 0; i < 4; i++) means[i] /= 16.f;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
            t = x[i][j] - gmean;
            t = t * t;
            gvar += t;
            t = x[i][j] - means[sub];
            t = t * t;
            vars[sub] += t;
        }
    gvar *= 1 / 63.f * 64;
    for (int i = 0; i < 4; i++) vars[i] *= 1 / 15.f * 16;
    if (gvar > 0) {
        t = vars[0] + vars[1];
        t = t + vars[2];
        t = t + vars[3];
        gvar = t / gvar;
    }
    int64_t c[8][8];
    plain_fdct8x8(c, x);
    for (int i = 0; i < 8; i++)
        for (int j = (i == 0); j < 8; j++) {
            const int k = (int)(c[i][j] * c[i][j]);
            t = (float)k * psh_mask[plane][i * 8 + j];
            energy += t;
        }
    t = energy * gvar;
    return (float)(sqrt(t) / 32.f);
}

/* Without contraction a * b - c rounds the product first. With FMA
 * contraction (GNU C's default, -ffp-contract=fast, on an FMA target) these
 * bits move, so the checks fail if the build loses -ffp-contract=off:
 * x = 1 + 2^-12, x * x = 1 + 2^-11 + 2^-24 rounds (a tie, to even) to
 * 1 + 2^-11 = y, while the fused result is 2^-24. */
static void test_no_contraction(int blocks) {
    volatile float x = 0x1.001p+0f, y = 0x1.002p+0f;
    const float a = x, b = y;
    CHECK(bits(a * a - b) == 0, "a * a - b = %a: contracted into an FMA", a * a - b);
    /* block.h's statistics, energy and threshold (every += of a product can
     * contract) against the transcription, bit for bit. */
    static const int depths[3] = {8, 10, 12};
    for (int n = 0; n < blocks; n++) {
        int xb[8][8];
        fill_block(xb, n % 5, depths[n % 3]);
        psh_i32 blk[64];
        for (int k = 0; k < 64; k++) blk[k] = xb[k / 8][k % 8];
        const int plane = n % 3;
        const float got = psh_block_transform(blk, plane, PSH_MASK_PRODUCT_FLOAT);
        const float want = libvmaf_threshold(xb, plane);
        CHECK(bits(got) == bits(want), "block %d threshold %a, libvmaf's %a", n, got, want);
    }
    /* One term, each step rounded on its own: |100 - 88| less the limit. */
    const float t = psh_block_term(100, 88, 9, 0, 0x1.2p-1f);
    volatile float lim = 0x1.2p-1f, e, w;
    lim = lim / psh_mask[0][9];
    e = 12.0f - lim;
    w = e * psh_csf[0][9];
    w = w * w;
    CHECK(bits(t) == bits(w), "term %a vs %a", t, (float)w);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s psnr-hvs-tables.md [seed]\n", argv[0]);
        return 2;
    }
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ULL;
    printf("seed 0x%llx\n", (unsigned long long)rng_state);
    test_dct(20000);
    test_tables(argv[1]);
    test_threshold(200000);
    test_no_contraction(20000);
    printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
