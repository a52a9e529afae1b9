/*
 * checkasm for psnrhvs: every SIMD function of the DSP context against its
 * C version, at every ISA level the CPU has, on seeded random and extreme
 * inputs; outputs compared with memcmp (no tolerance).
 *
 * usage: checkasm [--seed=N] [--test=NAME] [--function=NAME] [--bench]
 *                 [--list-functions] [--list-cpuflags]
 * The seed is fixed (20261130) unless --seed is given; it is printed.
 * --bench also times each checked version against C (ns per block).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/block.h"
#include "cpu.h"
#include "dsp.h"
#include "psnrhvs.h"

/* ---- PRNG: xorshift64*, one printed seed for the whole run ---- */
static uint64_t rng_state;

static void rnd_seed(const uint64_t seed) {
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
}

static uint32_t rnd(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* ---- tables: CPU levels and tests ---- */
static const struct {
    const char *name;
    unsigned flags;
} cpus[] = {
    {"c", 0},
    {"avx2", PSNRHVS_CPU_FLAG_AVX2},
    {"avx512", PSNRHVS_CPU_FLAG_AVX2 | PSNRHVS_CPU_FLAG_AVX512},
    {"neon", PSNRHVS_CPU_FLAG_NEON},
};

static struct {
    const char *test_filter, *func_filter;
    int list_functions, bench;
    const char *cpu_name;
    int failures, checked;
    /* Functions already checked, so each is tested once, at the level where it changes. */
    const void *seen[64];
    int nseen;
} state;

/* Non-NULL when fn is a version not checked yet and the filters allow it. */
static int check_func(const void *fn, const void *ref, const char *name) {
    if (state.list_functions) {
        if (fn == ref) printf("%s\n", name);
        return 0;
    }
    if (fn == ref) return 0;
    if (state.func_filter && strcmp(state.func_filter, name)) return 0;
    for (int i = 0; i < state.nseen; i++)
        if (state.seen[i] == fn) return 0;
    if (state.nseen < 64) state.seen[state.nseen++] = fn;
    return 1;
}

static void report(const char *name, const int fails, const int cases) {
    printf("  %-24s %-8s %s (%d cases)\n", name, state.cpu_name, fails ? "FAILED" : "ok", cases);
    state.failures += fails != 0;
    state.checked++;
}

/* ---- row_terms ---- */
enum Pattern {
    PAT_RANDOM,     /* independent random samples */
    PAT_ZERO,       /* all zero: zero variance, no terms */
    PAT_MAX,        /* all max against all zero */
    PAT_CHECKER,    /* checkerboard 0 / max against its inverse */
    PAT_EXTREMES,   /* random 0 or max in both */
    PAT_LSB,        /* dist = ref +- 1 LSB */
    PAT_SMOOTH,     /* gradient + noise, dist a noisy copy */
    PAT_IDENTICAL,  /* dist = ref */
    PAT_FLAT_NOISE, /* flat ref (variance 0) against noise */
    PAT_COUNT
};
static const char *const pattern_names[PAT_COUNT] = {
    "random", "zero", "max", "checker", "extremes", "lsb", "smooth", "identical", "flat-noise"};

static int sample(const enum Pattern pat, const int max, const int x, const int y, const int dist,
                  const int refv) {
    switch (pat) {
    case PAT_RANDOM:
        return (int)(rnd() % (unsigned)(max + 1));
    case PAT_ZERO:
        return 0;
    case PAT_MAX:
        return dist ? 0 : max;
    case PAT_CHECKER:
        return ((x + y + dist) & 1) ? max : 0;
    case PAT_EXTREMES:
        return rnd() & 1 ? max : 0;
    case PAT_LSB: {
        if (!dist) return (int)(rnd() % (unsigned)(max + 1));
        const int v = refv + (int)(rnd() % 3) - 1;
        return v < 0 ? 0 : v > max ? max : v;
    }
    case PAT_SMOOTH: {
        if (dist) {
            const int v = refv + (int)(rnd() % 9) - 4;
            return v < 0 ? 0 : v > max ? max : v;
        }
        const int v = (x * 3 + y * 5) * (max + 1) / 512 + (int)(rnd() % 5);
        return v % (max + 1);
    }
    case PAT_IDENTICAL:
        return dist ? refv : (int)(rnd() % (unsigned)(max + 1));
    case PAT_FLAT_NOISE:
        return dist ? (int)(rnd() % (unsigned)(max + 1)) : max / 2;
    default:
        return 0;
    }
}

/* One case: n blocks, exact-width buffers (so over-reads show under ASan). */
static int row_case(PsnrHvsRowTermsFn ref_fn, PsnrHvsRowTermsFn new_fn, const int bpc,
                    const enum Pattern pat, const int n, const int plane, const int mp) {
    const int bps = bpc > 8 ? 2 : 1, max = (1 << bpc) - 1;
    const int w = 7 * n + 1, pad = (int)(rnd() % 3) * 8;
    const ptrdiff_t stride = (ptrdiff_t)(w + pad) * bps;
    const size_t bytes = (size_t)stride * 7 + (size_t)w * bps;
    uint8_t *rbuf = malloc(bytes), *dbuf = malloc(bytes);
    const size_t nt = (size_t)n * 64 + PSNRHVS_ROW_TERMS_PAD;
    float *t_ref = malloc(nt * sizeof(float)), *t_new = malloc(nt * sizeof(float));
    if (!rbuf || !dbuf || !t_ref || !t_new) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < w + pad; x++) {
            const size_t o = (size_t)y * stride + (size_t)x * bps;
            if (o >= bytes) break;
            const int r = sample(pat, max, x, y, 0, 0);
            const int d = sample(pat, max, x, y, 1, r);
            if (bps == 1) {
                rbuf[o] = (uint8_t)r;
                dbuf[o] = (uint8_t)d;
            } else {
                const uint16_t r16 = (uint16_t)r, d16 = (uint16_t)d;
                memcpy(rbuf + o, &r16, 2);
                memcpy(dbuf + o, &d16, 2);
            }
        }
    /* Fill both outputs with the same junk: the padding must match too. */
    for (size_t i = 0; i < nt; i++) t_ref[i] = t_new[i] = (float)(i & 7) - 3.5f;
    /* An earlier row's terms for the chain: none, a few, or more than the
     * row's vector work spreads (the rest is added at the end). */
    const int nchain = (int)(rnd() % 4 == 0 ? 0 : rnd() % (unsigned)(n * 64 + 1));
    float *chain_terms = malloc(((size_t)nchain + 1) * sizeof(float));
    for (int i = 0; i < nchain; i++)
        chain_terms[i] = rnd() % 3 == 0 ? 0.0f : (float)(rnd() % 1000000) / (float)(1 + rnd() % 97);
    const float start = (float)(rnd() % 1000) * 0.37f;
    PsnrHvsChain ch_ref = {chain_terms, nchain, start}, ch_new = {chain_terms, nchain, start};
    const int c_ref = ref_fn(t_ref, rbuf, stride, dbuf, stride, n, plane, mp, &ch_ref);
    const int c_new = new_fn(t_new, rbuf, stride, dbuf, stride, n, plane, mp, &ch_new);
    int fail = c_ref != c_new || memcmp(t_ref, t_new, (size_t)c_ref * sizeof(float));
    if (ch_ref.count || ch_new.count || ch_ref.terms != chain_terms + nchain ||
        ch_new.terms != chain_terms + nchain || memcmp(&ch_ref.sum, &ch_new.sum, sizeof(float))) {
        printf("    chain mismatch: %d terms, sum %a vs %a, left %d vs %d\n", nchain,
               (double)ch_ref.sum, (double)ch_new.sum, ch_ref.count, ch_new.count);
        fail = 1;
    }
    free(chain_terms);
    if (fail) {
        int k = 0;
        while (k < c_ref && k < c_new && !memcmp(&t_ref[k], &t_new[k], sizeof(float))) k++;
        printf("    mismatch: %d bpc, %s, %d blocks, plane %d, %s product: count %d vs %d, "
               "first difference at term %d (%a vs %a)\n",
               bpc, pattern_names[pat], n, plane, mp ? "exact" : "float", c_ref, c_new, k,
               k < c_ref ? (double)t_ref[k] : 0.0, k < c_new ? (double)t_new[k] : 0.0);
    }
    free(rbuf);
    free(dbuf);
    free(t_ref);
    free(t_new);
    return fail;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per block of fn over a 1920-wide block row (273 blocks), best of 5. */
static double bench_row(PsnrHvsRowTermsFn fn, const int bpc) {
    const int n = 273, w = 7 * n + 1, bps = bpc > 8 ? 2 : 1, max = (1 << bpc) - 1;
    const ptrdiff_t stride = (ptrdiff_t)w * bps;
    uint8_t *r = malloc((size_t)stride * 8), *d = malloc((size_t)stride * 8);
    float *t = malloc(((size_t)n * 64 + PSNRHVS_ROW_TERMS_PAD) * sizeof(float));
    for (int i = 0; i < w * 8; i++) {
        const int rv = sample(PAT_SMOOTH, max, i % w, i / w, 0, 0);
        const int dv = sample(PAT_SMOOTH, max, i % w, i / w, 1, rv);
        if (bps == 1) {
            r[i] = (uint8_t)rv, d[i] = (uint8_t)dv;
        } else {
            const uint16_t r16 = (uint16_t)rv, d16 = (uint16_t)dv;
            memcpy(r + 2 * i, &r16, 2);
            memcpy(d + 2 * i, &d16, 2);
        }
    }
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        const double t0 = now_ns();
        for (int k = 0; k < 20; k++) fn(t, r, stride, d, stride, n, k % 3, 0, NULL);
        const double ns = (now_ns() - t0) / (20.0 * n);
        if (ns < best) best = ns;
    }
    free(r), free(d), free(t);
    return best;
}

static void check_row_terms(const PsnrHvsDspContext *dsp, const PsnrHvsDspContext *c) {
    static const char *const names[2] = {"row_terms_8bpc", "row_terms_16bpc"};
    for (int hbd = 0; hbd < 2; hbd++) {
        if (!check_func((const void *)dsp->row_terms[hbd], (const void *)c->row_terms[hbd],
                        names[hbd]))
            continue;
        int fails = 0, cases = 0;
        const int bpcs[2][2] = {{8, 8}, {10, 12}};
        for (int bi = 0; bi < 2; bi++) {
            if (bi && !hbd) break;
            const int bpc = bpcs[hbd][bi];
            for (int pat = 0; pat < PAT_COUNT; pat++)
                for (int plane = 0; plane < 3; plane++)
                    for (int mp = 0; mp < 2; mp++) {
                        /* Every tail length of both vector widths, and a long row. */
                        for (int n = 1; n <= 33; n++) {
                            if (fails < 8) {
                                fails += row_case(c->row_terms[hbd], dsp->row_terms[hbd], bpc,
                                                  (enum Pattern)pat, n, plane, mp);
                            }
                            cases++;
                        }
                        fails += row_case(c->row_terms[hbd], dsp->row_terms[hbd], bpc,
                                          (enum Pattern)pat, 40 + (int)(rnd() % 60), plane, mp);
                        cases++;
                    }
        }
        report(names[hbd], fails, cases);
        if (state.bench) {
            const int bpc = hbd ? 10 : 8;
            const double tc = bench_row(c->row_terms[hbd], bpc);
            const double tn = bench_row(dsp->row_terms[hbd], bpc);
            printf("    bench %d bpc: c %.1f ns/block, %s %.1f ns/block (%.1fx)\n", bpc, tc,
                   state.cpu_name, tn, tc / tn);
        }
    }
}

/* ---- row_terms_ladder ---- */

/* One ladder row of n blocks, nd renditions of the reference (each its own
 * pattern draw): new_fn against ref_fn, and rendition by rendition against
 * the plain row function (the ladder must give each pair's bits alone). */
static int ladder_case(PsnrHvsRowTermsLadderFn ref_fn, PsnrHvsRowTermsLadderFn new_fn,
                       PsnrHvsRowTermsFn row_fn, const int bpc, const enum Pattern pat, const int n,
                       const int nd, const int plane, const int mp) {
    const int bps = bpc > 8 ? 2 : 1, max = (1 << bpc) - 1;
    const int w = 7 * n + 1;
    const ptrdiff_t stride = (ptrdiff_t)(w + (int)(rnd() % 3) * 8) * bps;
    const size_t bytes = (size_t)stride * 8;
    const size_t nt = (size_t)n * 64 + PSNRHVS_ROW_TERMS_PAD;
    uint8_t *const buf = malloc(bytes * (size_t)(1 + nd));
    float *const t = malloc(nt * sizeof(float) * (size_t)(3 * nd));
    if (!buf || !t) abort();
    for (int v = 0; v <= nd; v++)
        for (int y = 0; y < 8; y++)
            for (int x = 0; (ptrdiff_t)x * bps < stride; x++) {
                const int r = sample(pat, max, x, y, 0, 0);
                const int val = v ? sample(pat, max, x + 3 * v, y, 1, r) : r;
                const size_t o = bytes * (size_t)v + (size_t)y * stride + (size_t)x * bps;
                if (bps == 1)
                    buf[o] = (uint8_t)val;
                else
                    memcpy(buf + o, &(uint16_t){(uint16_t)val}, 2);
            }
    float *t_ref[PSNRHVS_MAX_RENDITIONS], *t_new[PSNRHVS_MAX_RENDITIONS];
    const void *dist[PSNRHVS_MAX_RENDITIONS];
    ptrdiff_t strides[PSNRHVS_MAX_RENDITIONS];
    int c_ref[PSNRHVS_MAX_RENDITIONS], c_new[PSNRHVS_MAX_RENDITIONS];
    for (int v = 0; v < nd; v++) {
        t_ref[v] = t + nt * (size_t)v;
        t_new[v] = t + nt * (size_t)(nd + v);
        dist[v] = buf + bytes * (size_t)(1 + v);
        strides[v] = stride;
    }
    for (size_t i = 0; i < nt * (size_t)(2 * nd); i++) t[i] = (float)(i & 7) - 3.5f;
    ref_fn(t_ref, c_ref, buf, stride, dist, strides, nd, n, plane, mp);
    new_fn(t_new, c_new, buf, stride, dist, strides, nd, n, plane, mp);
    int fail = 0;
    for (int v = 0; v < nd; v++) {
        float *const alone = t + nt * (size_t)(2 * nd + v);
        const int c_alone = row_fn(alone, buf, stride, dist[v], stride, n, plane, mp, NULL);
        if (c_ref[v] != c_new[v] || memcmp(t_ref[v], t_new[v], (size_t)c_ref[v] * 4) ||
            c_alone != c_ref[v] || memcmp(alone, t_ref[v], (size_t)c_alone * 4)) {
            printf("    mismatch: %d bpc, %s, %d blocks, rendition %d of %d, plane %d: counts "
                   "%d / %d / alone %d\n",
                   bpc, pattern_names[pat], n, v, nd, plane, c_ref[v], c_new[v], c_alone);
            fail = 1;
        }
    }
    free(buf);
    free(t);
    return fail;
}

static void check_row_terms_ladder(const PsnrHvsDspContext *dsp, const PsnrHvsDspContext *c) {
    static const char *const names[2] = {"row_terms_ladder_8bpc", "row_terms_ladder_16bpc"};
    for (int hbd = 0; hbd < 2; hbd++) {
        if (!check_func((const void *)dsp->row_terms_ladder[hbd],
                        (const void *)c->row_terms_ladder[hbd], names[hbd]))
            continue;
        int fails = 0, cases = 0;
        const int bpc = hbd ? (rnd() % 2 ? 10 : 12) : 8;
        for (int pat = 0; pat < PAT_COUNT; pat++)
            for (int plane = 0; plane < 3; plane++)
                for (int mp = 0; mp < 2; mp++)
                    for (int i = 0; i < 3 && fails < 8; i++, cases++)
                        fails +=
                            ladder_case(c->row_terms_ladder[hbd], dsp->row_terms_ladder[hbd],
                                        c->row_terms[hbd], bpc, (enum Pattern)pat,
                                        1 + (int)(rnd() % 40), 1 + (int)(rnd() % 6), plane, mp);
        report(names[hbd], fails, cases);
    }
}

/* ---- sum_lanes ---- */

static float bits_float(const uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* A term of one of several kinds: ordinary positive values around 2^e,
 * far smaller ones, ties at the chain's spacing, subnormals, zeros of both
 * signs, and (rarely) negative, infinite or NaN terms that make a lane cross. */
static float sum_term(const int e) {
    const uint32_t kind = rnd() % 64;
    const int be = e + 127;
    if (kind < 24) { /* within 2^-30 .. 2^-1 of 2^e */
        const int x = be - 1 - (int)(rnd() % 30);
        return x > 0 ? bits_float((uint32_t)x << 23 | (rnd() & 0x7fffffu)) : 0.0f;
    }
    if (kind < 40) { /* odd multiples of a half spacing: ties */
        const int x = be - 24 - (int)(rnd() % 2);
        return x > 0 ? bits_float((uint32_t)x << 23 | ((rnd() % 16) << 19)) : 0.0f;
    }
    if (kind < 48) return bits_float(rnd() & 0x7fffffu); /* subnormal */
    if (kind < 56) return kind & 1 ? -0.0f : 0.0f;
    if (kind < 62) { /* large: the lane crosses */
        const int x = be + (int)(rnd() % 3);
        return bits_float((uint32_t)(x < 254 ? x : 254) << 23 | (rnd() & 0x7fffffu));
    }
    static const uint32_t specials[4] = {0xbf800000u, 0x7f800000u, 0x7fc00000u, 0xff800001u};
    return bits_float(specials[rnd() % 4]);
}

static void check_sum_lanes(const PsnrHvsDspContext *dsp, const PsnrHvsDspContext *c) {
    if (!check_func((const void *)dsp->sum_lanes, (const void *)c->sum_lanes, "sum_lanes")) return;
    enum { MAX = PSNRHVS_SUM_LANES * 256 };
    float *const t = malloc(sizeof(float) * MAX);
    if (!t) abort();
    int fails = 0, cases = 0;
    for (int it = 0; it < 6000; it++) {
        /* full groups, short groups (every stride the engine uses and its
         * neighbours) and tiny ones */
        const uint32_t count = it % 3 == 0 ? MAX : 1 + rnd() % (it % 3 == 1 ? MAX : 64);
        const uint32_t stride = count == MAX ? 256 : (count + 63) / 64 * 8 + 8 * (rnd() % 2);
        const int e0 = PSNRHVS_SUM_KERNEL_EMIN + (int)(rnd() % (127 - PSNRHVS_SUM_KERNEL_EMIN + 1));
        /* mostly ordinary terms; a rare kind now and then */
        for (uint32_t i = 0; i < count; i++)
            t[i] = rnd() % 8 ? sum_term(e0) : sum_term(e0 - (int)(rnd() % 40));
        if (it % 5 == 0)
            for (uint32_t i = 0; i < count; i++)
                if (t[i] < 0.0f || t[i] != t[i] || t[i] > 1e30f) t[i] = 0.0f;
        int32_t e[PSNRHVS_SUM_LANES];
        for (int j = 0; j < PSNRHVS_SUM_LANES; j++) {
            const int ej = rnd() % 4 ? e0 + (int)(rnd() % 5) - 2
                                     : PSNRHVS_SUM_KERNEL_EMIN + (int)(rnd() % 229);
            e[j] = ej < PSNRHVS_SUM_KERNEL_EMIN ? PSNRHVS_SUM_KERNEL_EMIN : ej > 127 ? 127 : ej;
        }
        uint32_t want[PSNRHVS_SUM_LANES][2], got[PSNRHVS_SUM_LANES][2];
        c->sum_lanes(t, count, stride, e, want);
        dsp->sum_lanes(t, count, stride, e, got);
        if (memcmp(want, got, sizeof(want))) {
            if (fails++ < 8)
                for (int j = 0; j < PSNRHVS_SUM_LANES; j++)
                    if (memcmp(want[j], got[j], sizeof(want[j])))
                        printf("    sum_lanes count %u stride %u lane %d e %d: c (%u, %u), "
                               "%s (%u, %u)\n",
                               count, stride, j, e[j], want[j][0], want[j][1], state.cpu_name,
                               got[j][0], got[j][1]);
        }
        cases++;
    }
    free(t);
    report("sum_lanes", fails, cases);
}

/* Subnormals are kept (no flush to zero): the C versions and the SIMD ones
 * run under the same control register, so a flush would go unseen by the
 * comparisons above. x86: MXCSR's FTZ (15) and DAZ (6); AArch64: FPCR.FZ (24). */
static int flushes_subnormals(void) {
    volatile float tiny = 0x1p-140f;
    if (tiny * 0.5f == 0.0f) return 1;
#if defined(__aarch64__)
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    if (fpcr >> 24 & 1) return 1;
#elif defined(__x86_64__)
    uint32_t mxcsr;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    if (mxcsr & (1u << 15 | 1u << 6)) return 1;
#endif
    return 0;
}

static const struct {
    const char *name;
    void (*func)(const PsnrHvsDspContext *dsp, const PsnrHvsDspContext *c);
} tests[] = {
    {"row_terms", check_row_terms},
    {"row_terms_ladder", check_row_terms_ladder},
    {"sum_lanes", check_sum_lanes},
};

int main(int argc, char **argv) {
    /* A fixed seed, so that any failure replays from its log line alone;
     * --seed=N explores others. */
    uint64_t seed = 20261130;
    int list_cpus = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--seed=", 7))
            seed = strtoull(argv[i] + 7, NULL, 10);
        else if (!strncmp(argv[i], "--test=", 7))
            state.test_filter = argv[i] + 7;
        else if (!strncmp(argv[i], "--function=", 11))
            state.func_filter = argv[i] + 11;
        else if (!strcmp(argv[i], "--list-functions"))
            state.list_functions = 1;
        else if (!strcmp(argv[i], "--bench"))
            state.bench = 1;
        else if (!strcmp(argv[i], "--list-cpuflags"))
            list_cpus = 1;
        else {
            fprintf(
                stderr,
                "usage: %s [--seed=N] [--test=NAME] [--function=NAME] [--bench] [--list-functions] "
                "[--list-cpuflags]\n",
                argv[0]);
            return 1;
        }
    }
    const unsigned have = psh_get_cpu_flags();
    if (list_cpus) {
        for (size_t i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
            printf("%-8s %s\n", cpus[i].name,
                   (have & cpus[i].flags) == cpus[i].flags ? "available" : "not available");
        return 0;
    }
    PsnrHvsDspContext c;
    psh_dsp_init(&c, 0);
    if (state.list_functions) {
        for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) tests[t].func(&c, &c);
        return 0;
    }
    printf("checkasm: seed %" PRIu64 "\n", seed);
    for (size_t i = 1; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
        if ((have & cpus[i].flags) != cpus[i].flags) {
            printf("  %s: not available on this CPU, skipped\n", cpus[i].name);
            continue;
        }
        PsnrHvsDspContext dsp;
        psh_dsp_init(&dsp, cpus[i].flags);
        state.cpu_name = cpus[i].name;
        for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
            if (state.test_filter && strcmp(state.test_filter, tests[t].name)) continue;
            rnd_seed(seed); /* the same inputs for every function and level */
            tests[t].func(&dsp, &c);
        }
    }
    if (!state.checked) {
        printf("checkasm: no SIMD function to check on this CPU/build\n");
        return state.test_filter || state.func_filter ? 1 : 77;
    }
    if (flushes_subnormals()) {
        printf("checkasm: subnormals are flushed to zero in this process\n");
        state.failures++;
    }
    printf("checkasm: %d functions checked, %d failed (seed %" PRIu64 ")\n", state.checked,
           state.failures, seed);
    return state.failures != 0;
}
