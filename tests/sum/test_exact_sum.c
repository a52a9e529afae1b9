/*
 * psnrhvs: the exact-sum engine against the plain sequential chain, bit for
 * bit. Usage: test_exact_sum [seed|random] [scale]   (scale 1 = the CI run)
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/exact_sum.h"
#include "cpu.h"
#include "dsp.h"
#include "sum/exact_sum.h"
#include "sum_test_util.h"

/* The lane kernels: the C one, and the best this CPU runs ([1] = [0] when
 * the CPU has no SIMD kernel). */
static PsnrHvsSumLanesFn lanes_fn[2];

#define MAX_TERMS (1u << 20)

static uint64_t failures, cases;
/* per generator: terms the engine had to add one by one, of all */
static uint64_t chain_terms[16], total_terms[16];

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (failures++ < 20) {                                                                     \
            fprintf(stderr, "FAIL: ");                                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* ---- term generators ---------------------------------------------------- */

enum Gen {
    GEN_FULL_RANGE,
    GEN_LOG_WINDOW,
    GEN_TIES,
    GEN_GROWING,
    GEN_ZERO_RUNS,
    GEN_ONE_HUGE,
    GEN_SUBNORMAL,
    GEN_ALL_ZERO,
    GEN_REAL_LIKE,
    GEN_NEAR_POW2,
    GEN_SIGNED_ZEROS,
    GEN_NONFINITE,
    GEN_COUNT
};

static const char *const gen_name[GEN_COUNT] = {
    "full-range", "log-window", "ties",      "growing",   "zero-runs",    "one-huge",
    "subnormal",  "all-zero",   "real-like", "near-pow2", "signed-zeros", "non-finite",
};

/* finite, >= 0, exponent field in [lo, hi] (0 = subnormal or zero) */
static float rand_exp(Rng *const r, const int lo, const int hi) {
    const uint32_t be = (uint32_t)lo + rng_below(r, (uint32_t)(hi - lo + 1));
    return u2f((be << 23) | (rng_u32(r) & 0x7fffffu));
}

static float real_like(Rng *const r) {
    if (rng_below(r, 4)) return 0.0f;
    static const float csf[4] = {0x1.9e902ap+0f, 0x1.2523f2p+1f, 0x1.4e586ap-2f, 0x1.5b49bep-1f};
    const float lim = (float)rng_unit(r) * 6.0f;
    const float a = (float)(1 + rng_below(r, rng_below(r, 8) ? 12 : 400));
    const float err = a < lim ? 0.0f : a - lim;
    const float w = csf[rng_below(r, 4)];
    return (err * w) * (err * w);
}

static void generate(Rng *const r, const int gen, float *const t, const uint32_t n) {
    const int lo = 1 + (int)rng_below(r, 200), width = 1 + (int)rng_below(r, 40);
    const int hi = lo + width > 254 ? 254 : lo + width;
    switch (gen) {
    case GEN_FULL_RANGE:
        for (uint32_t i = 0; i < n; i++) t[i] = rand_exp(r, 0, 254);
        break;
    case GEN_LOG_WINDOW:
        for (uint32_t i = 0; i < n; i++) t[i] = rand_exp(r, lo, hi);
        break;
    case GEN_TIES: {
        /* odd multiples of a half spacing of binades around E: most
         * additions are ties or exact, at both parities of n */
        const int e = -60 + (int)rng_below(r, 150);
        const float big = ldexpf(1.0f + (float)rng_unit(r), e);
        for (uint32_t i = 0; i < n; i++) {
            const int j = (int)rng_below(r, 4);
            const float odd = (float)(2 * rng_below(r, 1u << rng_below(r, 12)) + 1);
            t[i] = ldexpf(odd, e - 24 + j);
            if (rng_below(r, 1000) == 0) t[i] = big;
        }
        if (n) t[0] = big;
        break;
    }
    case GEN_GROWING: {
        /* crosses a binade every few terms */
        const float rate = 1.0f / (float)(1 + rng_below(r, 64));
        const int e0 = -100 + (int)rng_below(r, 100);
        for (uint32_t i = 0; i < n; i++) {
            const int e = e0 + (int)((float)i * rate) % 200;
            t[i] = ldexpf(1.0f + (float)rng_unit(r), e);
        }
        break;
    }
    case GEN_ZERO_RUNS:
        for (uint32_t i = 0; i < n;) {
            uint32_t run = rng_below(r, rng_below(r, 2) ? 100 : 100000);
            for (; run && i < n; run--) t[i++] = 0.0f;
            run = rng_below(r, 3000);
            for (; run && i < n; run--) t[i++] = rand_exp(r, lo, hi);
        }
        break;
    case GEN_ONE_HUGE:
        for (uint32_t i = 0; i < n; i++) t[i] = rand_exp(r, lo, hi);
        if (n) t[rng_below(r, n)] = rand_exp(r, hi, 254);
        break;
    case GEN_SUBNORMAL:
        for (uint32_t i = 0; i < n; i++)
            t[i] = rng_below(r, 50) ? u2f(rng_u32(r) >> (9 + rng_below(r, 20)))
                                    : rand_exp(r, 1, 1 + (int)rng_below(r, 30));
        break;
    case GEN_ALL_ZERO:
        for (uint32_t i = 0; i < n; i++) t[i] = 0.0f;
        break;
    case GEN_REAL_LIKE:
        for (uint32_t i = 0; i < n; i++) t[i] = real_like(r);
        break;
    case GEN_NEAR_POW2: {
        /* sit just below 2^(e+1) and creep up with sub-spacing terms, so the
         * chain reaches the power of two exactly, by ties and by round-ups */
        const int e = -90 + (int)rng_below(r, 200);
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t kind = rng_below(r, 8);
            if (i == 0 || kind == 0)
                t[i] = ldexpf(1.0f - ldexpf(1.0f, -(int)rng_below(r, 25)), e + 1);
            else
                t[i] = ldexpf((float)(1 + rng_below(r, 5)), e - 25 - (int)rng_below(r, 3));
        }
        break;
    }
    case GEN_SIGNED_ZEROS:
        for (uint32_t i = 0; i < n; i++)
            t[i] = rng_below(r, 3) == 0 ? rand_exp(r, lo, hi) : rng_below(r, 2) ? -0.0f : 0.0f;
        break;
    case GEN_NONFINITE: {
        /* Outside the engine's contract (terms >= 0, finite), where it must
         * still give the chain's bits: now and then a negative term, an
         * infinity or a NaN (payloads and signs vary) among ordinary ones. */
        static const uint32_t specials[6] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                             0xffc00001u, 0x7fa00000u, 0x7f800001u};
        const uint32_t rate = 1 + rng_below(r, 2000);
        for (uint32_t i = 0; i < n; i++) {
            t[i] = rand_exp(r, lo, hi);
            const uint32_t k = rng_below(r, rate);
            if (k == 0) t[i] = -t[i];
            if (k == 1 && rng_below(r, 8) == 0) t[i] = u2f(specials[rng_below(r, 6)]);
        }
        break;
    }
    }
}

/* ---- A: single terms and pairs through the portable map ------------------ */

static float rand_x(Rng *const r) {
    switch (rng_below(r, 6)) {
    case 0:
        return 0.0f;
    case 1:
        return u2f(rng_u32(r) & 0x7fffffu); /* subnormal */
    case 2:
        return ldexpf(1.0f, -126 + (int)rng_below(r, 254)) *
               (1.0f - ldexpf(1.0f, -24) * (float)rng_below(r, 4));
    default:
        return rand_exp(r, 0, 254);
    }
}

static float rand_t_for(Rng *const r, const float x) {
    const int e = psh_sum_binade(x);
    switch (rng_below(r, 6)) {
    case 0:
        return rand_exp(r, 0, 254);
    case 1: { /* a tie or near-tie at the spacing of x */
        const float odd = (float)(2 * rng_below(r, 1u << rng_below(r, 24)) + 1);
        const float t = ldexpf(odd, e - 24 - (int)rng_below(r, 2));
        return rng_below(r, 4) ? t : nextafterf(t, rng_below(r, 2) ? 0.0f : INFINITY);
    }
    case 2:
        return u2f(rng_u32(r) & 0x7fffffu);
    case 3:
        return 0.0f;
    default: { /* comparable to x, down to far below its spacing */
        const float t = ldexpf((float)rng_unit(r) + 0.5f, e - (int)rng_below(r, 40));
        return isfinite(t) ? t : 1.0f;
    }
    }
}

static void check_map_cases(Rng *const rng, const uint64_t n) {
    for (uint64_t c = 0; c < n; c++) {
        const float x = rand_x(rng);
        const float t1 = rand_t_for(rng, x), t2 = rand_t_for(rng, x);
        const int e = psh_sum_binade(x);
        /* one term */
        const float want1 = x + t1;
        float got = x;
        const int ok1 = psh_sum_map_apply(psh_sum_map_term(t1, e), e, &got);
        if (ok1 ? !same_bits(got, want1) : psh_sum_binade(want1) == e)
            FAIL("map x=%a t=%a want %a got %a ok %d", x, t1, want1, got, ok1);
        /* two terms, composed */
        const float want2 = (x + t1) + t2;
        got = x;
        const PshSumMap m = psh_sum_map_compose(psh_sum_map_term(t1, e), psh_sum_map_term(t2, e));
        const int ok2 = psh_sum_map_apply(m, e, &got);
        if (ok2 ? !same_bits(got, want2) : psh_sum_binade(want2) == e)
            FAIL("pair x=%a t=%a,%a want %a got %a ok %d", x, t1, t2, want2, got, ok2);
        cases += 2;
    }
}

/* ---- B: the portable walk (the device layout) on whole streams ----------- */

static void check_portable_walk(Rng *const rng, const float *const t, const uint32_t n,
                                const int gen) {
    float r = 0.0f, chain = 0.0f;
    for (uint32_t a = 0; a < n;) {
        uint32_t len = 1 + rng_below(rng, rng_below(rng, 2) ? 64 : 4096);
        if (len > n - a) len = n - a;
        /* candidates: sometimes the true binade, sometimes a neighbour or
         * junk (correctness must not depend on them) */
        PshSumChunkMaps c;
        const int truth = psh_sum_binade(chain);
        for (int k = 0; k < 2; k++) {
            const uint32_t kind = rng_below(rng, 6);
            c.e[k] = kind < 3   ? truth
                     : kind < 5 ? truth + (int)rng_below(rng, 3) - 1
                                : (int)rng_below(rng, 300) - 150;
            if (rng_below(rng, 8) == 0) c.e[k] = PSH_SUM_NO_BINADE;
            c.m[k] = psh_sum_reduce(t + a, len, c.e[k]);
        }
        if (!psh_sum_step(c, &r)) r = psh_sum_chain(r, t + a, len);
        chain = psh_sum_chain(chain, t + a, len);
        a += len;
    }
    const float want = psh_sum_sequential(t, n);
    if (!same_bits(r, want) || !same_bits(chain, want))
        FAIL("portable walk gen %s n %u: want %a got %a", gen_name[gen], n, want, r);
    cases++;
}

/* ---- C: SIMD lane kernel against the C kernel ---------------------------- */

static void check_kernel(Rng *const rng, float *const t, const uint64_t n) {
    if (lanes_fn[1] == lanes_fn[0]) {
        printf("  kernel: no SIMD lane kernel on this CPU, skipped\n");
        return;
    }
    for (uint64_t c = 0; c < n; c++) {
        const uint32_t count = 1 + rng_below(rng, rng_below(rng, 2) ? 2048 : 300);
        const uint32_t stride = count >= 2048 ? 256 : (count + 63) / 64 * 8 + 8 * rng_below(rng, 2);
        generate(rng, (int)rng_below(rng, GEN_COUNT), t, count);
        int32_t e[8];
        for (int j = 0; j < 8; j++) {
            float s = 0.0f;
            for (uint32_t i = (uint32_t)j * stride; i < count && i < (uint32_t)(j + 1) * stride;
                 i++)
                s += t[i];
            int ej = rng_below(rng, 8) ? psh_sum_binade(s) + (int)rng_below(rng, 14) - 1
                                       : -101 + (int)rng_below(rng, 229);
            e[j] = ej < -101 ? -101 : ej > 127 ? 127 : ej;
        }
        uint32_t dc[8][2], dv[8][2];
        lanes_fn[0](t, count, stride, e, dc);
        lanes_fn[1](t, count, stride, e, dv);
        for (int j = 0; j < 8; j++)
            if (dc[j][0] != dv[j][0] || dc[j][1] != dv[j][1])
                FAIL("kernel lane %d e %d count %u stride %u: c (%u,%u) simd (%u,%u)", j, e[j],
                     count, stride, dc[j][0], dc[j][1], dv[j][0], dv[j][1]);
        cases += 8;
    }
}

/* ---- D: the engine ------------------------------------------------------- */

static double f64_sum(const float *const t, const size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += t[i];
    return s;
}

static size_t make_chunks(Rng *const rng, const float *const t, const uint32_t n,
                          PsnrHvsSumChunk *const ch, float *const compact, const int clean) {
    const uint32_t style = rng_below(rng, 4);
    const int drop_zeros = rng_below(rng, 2);
    size_t nc = 0, w = 0;
    for (uint32_t a = 0; a < n;) {
        uint32_t len = style == 0 ? n
                                  : 1 + rng_below(rng, style == 1   ? 40000
                                                       : style == 2 ? 3000
                                                                    : 100);
        if (len > n - a) len = n - a;
        const float *src = t + a;
        size_t cnt = len;
        if (drop_zeros) {
            float *const dst = compact + w;
            cnt = 0;
            for (uint32_t i = 0; i < len; i++)
                if (src[i] != 0.0f) dst[cnt++] = src[i];
            src = dst;
            w += cnt;
        }
        ch[nc].terms = src;
        ch[nc].count = cnt;
        const double s = f64_sum(src, cnt);
        switch (clean ? 7 : rng_below(rng, 8)) {
        case 0:
            ch[nc].approx = s * (1.0 + (rng_unit(rng) - 0.5) * 0.2);
            break;
        case 1: {
            static const double junk[5] = {0.0, -1.0, 1e300, 1e-300, NAN};
            ch[nc].approx = junk[rng_below(rng, 5)];
            break;
        }
        default:
            ch[nc].approx = s;
        }
        nc++;
        a += len;
    }
    return nc;
}

static void check_engine(Rng *const rng, const float *const t, const uint32_t n, const int gen,
                         PsnrHvsThreadPool *const pool, const int simd, PsnrHvsSumChunk *const ch,
                         float *const compact) {
    const float want = psh_sum_sequential(t, n);
    const PsnrHvsSumLanesFn lanes = lanes_fn[simd];
    /* a clean stream has every approx right: its walk statistics are kept */
    const int clean = rng_below(rng, 4) != 0;
    const size_t nc = make_chunks(rng, t, n, ch, compact, clean);
    PsnrHvsSumStats st = {0};
    const float got = psh_sum_chunks(ch, nc, pool, lanes, NULL, 0, &st);
    if (clean) {
        chain_terms[gen] += st.chain_terms;
        total_terms[gen] += st.terms;
    }
    if (!same_bits(got, want))
        FAIL("engine gen %s n %u chunks %zu simd %d threads %d: want %a got %a", gen_name[gen], n,
             nc, simd, psh_thread_pool_size(pool), want, got);
    const float got2 = psh_sum_exact(t, n, pool, lanes, NULL);
    if (!same_bits(got2, want))
        FAIL("exact gen %s n %u simd %d threads %d: want %a got %a", gen_name[gen], n, simd,
             psh_thread_pool_size(pool), want, got2);
    /* caller-owned scratch of exactly the size asked for */
    const size_t size = psh_sum_scratch_size(ch, nc);
    void *const scratch = size ? malloc(size) : NULL;
    const float got3 = psh_sum_chunks(ch, nc, pool, lanes, scratch, size, NULL);
    free(scratch);
    if (!same_bits(got3, want))
        FAIL("scratch gen %s n %u: want %a got %a", gen_name[gen], n, want, got3);
    cases += 3;
}

/* ---- E: chunk by chunk, plans made out of order from uncertain starts
 *      (as the CPU backend's row tasks make them) ------------------------- */

static void check_plans(Rng *const rng, const float *const t, const uint32_t n, const int gen,
                        PsnrHvsSumChunk *const ch, float *const compact) {
    const float want = psh_sum_sequential(t, n);
    const size_t nc = make_chunks(rng, t, n, ch, compact, rng_below(rng, 2));
    const PsnrHvsSumLanesFn lanes = lanes_fn[rng_below(rng, 2)];
    double prefix = 0.0;
    float r = 0.0f;
    for (size_t c = 0; c < nc; c++) {
        const size_t size = psh_sum_plan_size(ch[c].count);
        PsnrHvsSumPlan *const plan = malloc(size);
        if (!plan) abort();
        /* the start's estimate: exact, off by up to 50 %, or junk; the
         * bounds around it right or wrong */
        const double slack = prefix * rng_unit(rng) * (rng_below(rng, 2) ? 0.5 : 0.01);
        const double at = rng_below(rng, 8) ? prefix + slack * (rng_unit(rng) - 0.5)
                                            : (rng_below(rng, 2) ? -1.0 : 1e30);
        psh_sum_plan(plan, ch[c].terms, ch[c].count, ch[c].approx,
                     (PsnrHvsSumStart){at, at - slack, at + slack}, lanes);
        r = psh_sum_walk(r, plan, ch[c].terms, NULL);
        prefix += ch[c].approx == ch[c].approx ? ch[c].approx : 0.0;
        free(plan);
    }
    if (!same_bits(r, want))
        FAIL("plans gen %s n %u chunks %zu: want %a got %a", gen_name[gen], n, nc, want, r);
    cases++;
}

int main(int argc, char **argv) {
    uint64_t seed = 0x5eed2024u;
    double scale = 1.0;
    if (argc > 1)
        seed = !strcmp(argv[1], "random") ? (uint64_t)time(NULL) : strtoull(argv[1], NULL, 0);
    if (argc > 2) scale = atof(argv[2]);
    printf("test_exact_sum: seed %" PRIu64 " scale %g (rerun: test_exact_sum %" PRIu64 " %g)\n",
           seed, scale, seed, scale);
    Rng rng = {seed};
    PsnrHvsDspContext dsp;
    psh_dsp_init(&dsp, 0);
    lanes_fn[0] = dsp.sum_lanes;
    psh_dsp_init(&dsp, psh_get_cpu_flags());
    lanes_fn[1] = dsp.sum_lanes;

    float *const t = malloc(sizeof(float) * MAX_TERMS);
    float *const compact = malloc(sizeof(float) * MAX_TERMS);
    PsnrHvsSumChunk *const ch = malloc(sizeof(*ch) * MAX_TERMS);
    PsnrHvsThreadPool *const pool = psh_thread_pool_create(2);
    if (!t || !compact || !ch || !pool) return 2;

    uint64_t before = cases;
    check_map_cases(&rng, (uint64_t)(15e6 * scale));
    printf("  A portable map, single terms and pairs: %" PRIu64 " cases\n", cases - before);

    before = cases;
    uint64_t terms = 0;
    for (uint64_t s = 0; s < (uint64_t)(1500 * scale); s++) {
        const int gen = (int)(s % GEN_COUNT);
        const uint32_t n = rng_below(&rng, rng_below(&rng, 4) ? 3000 : 60000);
        generate(&rng, gen, t, n);
        check_portable_walk(&rng, t, n, gen);
        terms += n;
    }
    printf("  B portable chunk walk: %" PRIu64 " streams, %" PRIu64 " terms\n", cases - before,
           terms);

    before = cases;
    check_kernel(&rng, t, (uint64_t)(30000 * scale));
    printf("  C SIMD lane kernel vs C: %" PRIu64 " lanes\n", cases - before);

    before = cases;
    terms = 0;
    for (uint64_t s = 0; s < (uint64_t)(2000 * scale); s++) {
        const int gen = (int)(s % GEN_COUNT);
        const int simd = (s / GEN_COUNT) % 4 != 0;
        const uint32_t big = !simd ? 30000 : s % 97 == 0 ? MAX_TERMS : 200000;
        const uint32_t n = s % 50 == 7 ? 0 : rng_below(&rng, rng_below(&rng, 3) ? 5000 : big);
        generate(&rng, gen, t, n);
        check_engine(&rng, t, n, gen, (s & 1) ? pool : NULL, simd, ch, compact);
        terms += 2 * (uint64_t)n;
    }
    printf("  D engine (chunks and exact, C and SIMD lanes, 1 and 2 threads): %" PRIu64
           " sums, %" PRIu64 " terms\n",
           cases - before, terms);

    before = cases;
    for (uint64_t s = 0; s < (uint64_t)(600 * scale); s++) {
        const int gen = (int)(s % GEN_COUNT);
        const uint32_t n = rng_below(&rng, rng_below(&rng, 3) ? 5000 : 100000);
        generate(&rng, gen, t, n);
        check_plans(&rng, t, n, gen, ch, compact);
    }
    printf("  E chunk plans from uncertain starts: %" PRIu64 " sums\n", cases - before);

    /* The fast path must carry streams like real planes: with exact
     * approximations, few of their terms may be added one by one. These
     * bounds are far above what the engine does (see the printed shares) and
     * far below what a broken guess gives (every term: 100 %). */
    static const struct {
        int gen;
        double max_share;
    } fast[] = {{GEN_REAL_LIKE, 0.10},
                {GEN_LOG_WINDOW, 0.10},
                {GEN_TIES, 0.10},
                {GEN_NEAR_POW2, 0.10},
                {GEN_ZERO_RUNS, 0.20}};
    for (int g = 0; g < GEN_COUNT; g++)
        printf("    %-12s %5.1f %% of %" PRIu64 " terms added one by one (exact approx)\n",
               gen_name[g],
               total_terms[g] ? 100.0 * (double)chain_terms[g] / (double)total_terms[g] : 0.0,
               total_terms[g]);
    for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++) {
        const int g = fast[i].gen;
        const double share = total_terms[g] ? (double)chain_terms[g] / (double)total_terms[g] : 1.0;
        if (share > fast[i].max_share)
            FAIL("%s: %.1f %% of the terms were added one by one, more than %.0f %%", gen_name[g],
                 100.0 * share, 100.0 * fast[i].max_share);
    }
    printf("test_exact_sum: %" PRIu64 " cases, %" PRIu64 " differences\n", cases, failures);
    psh_thread_pool_destroy(pool);
    free(t);
    free(compact);
    free(ch);
    return failures != 0;
}
