/*
 * Bit-exactness of src/core under SYCL: psh_block_terms on random 8x8 block
 * pairs (8/10/12-bit, every plane's tables, both mask products), the
 * exact-sum algebra of core/exact_sum.h on random term runs (maps, compose,
 * apply, chain, walk) and the arithmetic primitives, each computed by SYCL
 * kernels on every device present and by the same code compiled as plain C11
 * here, compared with memcmp. Twice: with the device's IEEE division and
 * square root (native) and with the integer helpers (PSH_EXACT_HELPERS=1).
 *
 *   sycl_core_exact [--blocks N] [--sums N] [--prims N] [--seed S]
 *                   [--device K] [--require-gpu]
 *
 * --blocks N block pairs per configuration (18 configurations), --sums N
 * runs, --prims N primitive cases. Exit 0: every result identical; 1: a
 * difference (printed); 2: usage or device error; 77: --require-gpu and no
 * GPU (or no SYCL device at all).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sycl_core_exact.h"

_Static_assert(sizeof(ScxBlockIn) == 512, "ScxBlockIn has padding");
_Static_assert(sizeof(ScxBlockOut) == 768, "ScxBlockOut has padding");
_Static_assert(sizeof(ScxSumCase) == 16, "ScxSumCase has padding");
_Static_assert(sizeof(ScxSumOut) == 112, "ScxSumOut has padding");
_Static_assert(sizeof(ScxPrimIn) == 16, "ScxPrimIn has padding");
_Static_assert(sizeof(ScxPrimOut) == 40, "ScxPrimOut has padding");

static uint64_t rng;
static uint32_t rnd(void) {
    return psnrhvs_test_rnd(&rng);
}
static uint32_t below(uint32_t n) {
    return (uint32_t)(((uint64_t)rnd() * n) >> 32);
}
static float bits_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
/* A positive float with a random significand and exponent in [lo, hi]. */
static float rand_float(int lo, int hi) {
    const int e = lo + (int)below((uint32_t)(hi - lo + 1));
    return ldexpf(1.0f + (float)(rnd() & 0x7fffff) * 0x1p-23f, e);
}

/* ---- generators ---------------------------------------------------------- */

static int32_t clampi(int64_t v, int32_t max) {
    return v < 0 ? 0 : v > max ? max : (int32_t)v;
}

static void gen_blocks(ScxBlockIn *b, size_t n, int depth) {
    const int32_t max = (1 << depth) - 1;
    for (size_t i = 0; i < n; i++) {
        int32_t *s = b[i].s, *d = b[i].d;
        const uint32_t kind = below(8);
        const int32_t amp = 1 << below((uint32_t)depth - 1); /* noise amplitude */
        const int32_t v = (int32_t)below((uint32_t)max + 1);
        for (int k = 0; k < 64; k++) {
            const int32_t noise = (int32_t)below(2u * (uint32_t)amp + 1) - amp;
            switch (kind) {
            case 0: /* two unrelated blocks */
                s[k] = (int32_t)below((uint32_t)max + 1);
                d[k] = (int32_t)below((uint32_t)max + 1);
                break;
            case 1: /* a distorted copy */
                s[k] = (int32_t)below((uint32_t)max + 1);
                d[k] = clampi((int64_t)s[k] + noise, max);
                break;
            case 2: /* identical: every term zero */
                s[k] = d[k] = (int32_t)below((uint32_t)max + 1);
                break;
            case 3: /* a flat reference (zero variance) */
                s[k] = v;
                d[k] = clampi((int64_t)v + (below(4) ? 0 : noise), max);
                break;
            case 4: { /* a gradient with noise */
                const int64_t g =
                    (int64_t)v + (int64_t)(k >> 3) * (amp / 8) - (int64_t)(k & 7) * (amp / 16);
                s[k] = clampi(g + noise / 4, max);
                d[k] = clampi((int64_t)s[k] + noise / 2, max);
                break;
            }
            case 5: /* extremes */
                s[k] = (rnd() & 1) ? max : 0;
                d[k] = (rnd() & 1) ? max : 0;
                break;
            case 6: /* one sample changed */
                s[k] = (int32_t)below((uint32_t)max + 1);
                d[k] = s[k];
                break;
            default: /* a narrow range */
                s[k] = clampi((int64_t)v + below(4), max);
                d[k] = clampi((int64_t)v + below(4), max);
                break;
            }
        }
        if (kind == 6) d[below(64)] = (int32_t)below((uint32_t)max + 1);
    }
}

/* One term of a run starting at r (e: r's binade). */
static float gen_term(uint32_t style, int e) {
    switch (style) {
    case 0: /* like block terms: many zeros, a wide spread */
        return below(3) == 0 ? 0.0f : rand_float(-20, 12);
    case 1: /* far below half an ulp of r, or around it */
        return rand_float(e - 40, e - 20);
    case 2: /* exact multiples of half an ulp of r: ties */
        return ldexpf((float)(1 + below(7)), e - 24);
    case 3: /* edge classes */
        switch (below(8)) {
        case 0:
            return -0.0f;
        case 1:
            return bits_float(1 + below(0x7fffff)); /* subnormal */
        case 2:
            return -rand_float(-10, 10); /* negative: saturated maps */
        case 3:
            return below(16) ? rand_float(60, 100) : INFINITY;
        case 4:
            return 0.0f;
        default:
            return rand_float(e - 30, e - 1);
        }
    default: /* small against r: the run stays in r's binade */
        return rand_float(e - 35, e - 12);
    }
}

static float gen_start(void) {
    switch (below(8)) {
    case 0:
        return 0.0f;
    case 1:
        return bits_float(1 + below(0x7fffff));
    case 2:
        return rand_float(120, 127);
    case 3:
        return ldexpf(1.0f, -10 + (int)below(50)); /* a binade's first value */
    case 4:
        return bits_float(float_bits(ldexpf(1.0f, -10 + (int)below(50))) - 1 -
                          below(8)); /* just below */
    default:
        return rand_float(-10, 40);
    }
}

static size_t gen_sums(float *terms, size_t cap, ScxSumCase *c, size_t n) {
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t len = 1 + below(below(4) ? 64 : 300);
        if (used + len > cap) return i;
        const float r = gen_start();
        const uint32_t style = below(5);
        int e = (int)((float_bits(r) >> 23) & 0xff) - 127;
        if (e < -126) e = -126;
        c[i].offset = (uint32_t)used;
        c[i].n = len;
        c[i].r = r;
        for (uint32_t k = 0; k < len; k++) terms[used + k] = gen_term(style, e);
        used += len;
        /* An approximation of r: exact, within the drift margin, or poor. */
        const uint32_t a = below(4);
        const double rel = a == 0   ? 0.0
                           : a == 3 ? ((double)below(2001) - 1000.0) * 1e-4
                                    : ((double)below(2001) - 1000.0) * 2e-5;
        c[i].approx = (float)((double)r * (1.0 + rel));
    }
    return n;
}

static float gen_prim_float(void) {
    switch (below(10)) {
    case 0:
        return bits_float(1 + below(0x7fffff)); /* subnormal */
    case 1:
        return 0.0f;
    case 2:
        return rand_float(-126, 127);
    case 3: { /* near a perfect square */
        const float k = (float)(1 + below(4096));
        return bits_float(float_bits(k * k) + below(3) - 1);
    }
    case 4:
        return below(32) ? rand_float(-60, 60) : INFINITY;
    default:
        return rand_float(-30, 30);
    }
}

static void gen_prims(ScxPrimIn *p, size_t n) {
    static const int32_t edges[] = {0, -1, 1, 2147483647, (-2147483647 - 1), 65535, -65536};
    for (size_t i = 0; i < n; i++) {
        float a, b;
        do {
            a = gen_prim_float();
            b = gen_prim_float();
            /* no NaN result: no 0/0, inf/inf, 0*inf */
        } while ((a == 0.0f || isinf(a)) && (b == 0.0f || isinf(b)));
        if (rnd() & 1) a = -a;
        if (rnd() & 1) b = -b;
        p[i].a = a;
        p[i].b = b;
        p[i].c = (rnd() & 1 ? 1.0f : -1.0f) * rand_float(-40, 40);
        p[i].i = below(8) == 0 ? edges[below(7)] : (int32_t)rnd();
    }
}

/* ---- comparisons ----------------------------------------------------------- */

static int failures;

static void *xmalloc(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

typedef struct Variant {
    const char *name;
    void (*ref_blocks)(const ScxBlockIn *, ScxBlockOut *, size_t, int, int);
    void (*ref_sums)(const float *, const ScxSumCase *, ScxSumOut *, size_t);
    void (*ref_prims)(const ScxPrimIn *, ScxPrimOut *, size_t);
    int (*dev_blocks)(int, const ScxBlockIn *, ScxBlockOut *, size_t, int, int);
    int (*dev_sums)(int, const float *, size_t, const ScxSumCase *, ScxSumOut *, size_t);
    int (*dev_prims)(int, const ScxPrimIn *, ScxPrimOut *, size_t);
} Variant;

static const Variant variants[2] = {
    {"native", scx_ref_blocks_native, scx_ref_sums_native, scx_ref_prims_native,
     scx_sycl_blocks_native, scx_sycl_sums_native, scx_sycl_prims_native},
    {"exact", scx_ref_blocks_exact, scx_ref_sums_exact, scx_ref_prims_exact, scx_sycl_blocks_exact,
     scx_sycl_sums_exact, scx_sycl_prims_exact},
};

static void device_error(const char *what) {
    fprintf(stderr, "FAIL: %s did not run on the device\n", what);
    exit(2);
}

/* Blocks of every configuration; returns the number compared. */
static size_t check_blocks(const Variant *v, int dev, size_t n, uint64_t seed, size_t *n_cross) {
    ScxBlockIn *in = xmalloc(n * sizeof *in);
    ScxBlockOut *ref = xmalloc(n * sizeof *ref), *out = xmalloc(n * sizeof *out);
    ScxBlockOut *other = xmalloc(n * sizeof *other);
    size_t compared = 0, bad_blocks = 0, bad_terms = 0, shown = 0, cross = 0;
    static const int depths[3] = {8, 10, 12};
    for (int di = 0; di < 3; di++) {
        for (int plane = 0; plane < 3; plane++) {
            for (int mp = 0; mp < 2; mp++) {
                rng = seed ^ ((uint64_t)(di * 6 + plane * 2 + mp + 1) * 0x9e3779b97f4a7c15ULL);
                gen_blocks(in, n, depths[di]);
                memset(ref, 0, n * sizeof *ref);
                v->ref_blocks(in, ref, n, plane, mp);
                if (v->dev_blocks(dev, in, out, n, plane, mp) != 0) device_error("blocks");
                for (size_t i = 0; i < n; i++) {
                    if (memcmp(&ref[i], &out[i], sizeof ref[i]) == 0) continue;
                    bad_blocks++;
                    for (int k = 0; k < 64; k++) {
                        if (memcmp(&ref[i].terms[k], &out[i].terms[k], 4) == 0) continue;
                        bad_terms++;
                        if (shown++ < 5)
                            printf("  DIFF %s block %zu (%d-bit, plane %d, mask product %d) term "
                                   "%d: C %a, SYCL %a\n",
                                   v->name, i, depths[di], plane, mp, k, ref[i].terms[k],
                                   out[i].terms[k]);
                    }
                    if (memcmp(ref[i].cs, out[i].cs, sizeof ref[i].cs) ||
                        memcmp(ref[i].cd, out[i].cd, sizeof ref[i].cd)) {
                        if (shown++ < 5)
                            printf("  DIFF %s block %zu: DCT coefficients\n", v->name, i);
                    }
                }
                compared += n;
                /* On the host: the other variant's C code gives the same bits
                 * (the integer helpers are correctly rounded). */
                const Variant *o = &variants[v == &variants[0]];
                o->ref_blocks(in, other, n, plane, mp);
                for (size_t i = 0; i < n; i++)
                    cross += memcmp(&ref[i], &other[i], sizeof ref[i]) != 0;
            }
        }
    }
    printf("  %-6s blocks: %zu block pairs (18 configurations x %zu), %zu differ (%zu terms)\n",
           v->name, compared, n, bad_blocks, bad_terms);
    if (bad_blocks) failures++;
    *n_cross += cross;
    free(in), free(ref), free(out), free(other);
    return compared;
}

static void check_sums(const Variant *v, int dev, size_t n, uint64_t seed) {
    const size_t cap = n * 160 + 300;
    float *terms = xmalloc(cap * sizeof *terms);
    ScxSumCase *in = xmalloc(n * sizeof *in);
    ScxSumOut *ref = xmalloc(n * sizeof *ref), *out = xmalloc(n * sizeof *out);
    rng = seed ^ 0x5555aaaa5555aaaaULL;
    n = gen_sums(terms, cap, in, n);
    const size_t n_terms = n ? in[n - 1].offset + in[n - 1].n : 0;
    memset(ref, 0, n * sizeof *ref);
    v->ref_sums(terms, in, ref, n);
    if (v->dev_sums(dev, terms, n_terms, in, out, n) != 0) device_error("sums");
    size_t bad = 0, shown = 0, applied = 0, walk[3] = {0, 0, 0}, algebra = 0;
    for (size_t i = 0; i < n; i++) {
        const ScxSumOut *a = &ref[i], *b = &out[i];
        if (memcmp(a, b, sizeof *a) != 0) {
            bad++;
            if (shown++ < 5)
                printf("  DIFF %s sum run %zu (n %u, r %a): chain C %a SYCL %a, map C {%lld,%lld} "
                       "SYCL {%lld,%lld}\n",
                       v->name, i, in[i].n, in[i].r, a->r_chain, b->r_chain, (long long)a->m_seq[0],
                       (long long)a->m_seq[1], (long long)b->m_seq[0], (long long)b->m_seq[1]);
        }
        /* The algebra's own promises, on the C side. */
        applied += a->ok;
        walk[a->walk_maps < 0 || a->walk_maps > 2 ? 2 : a->walk_maps]++;
        if (memcmp(&a->r_walk, &a->r_chain, 4) || (a->ok && memcmp(&a->r_apply, &a->r_chain, 4)) ||
            (a->ok_up && memcmp(&a->r_apply_up, &a->r_chain, 4)) ||
            memcmp(a->m_seq, a->m_tree, sizeof a->m_seq))
            algebra++;
    }
    printf("  %-6s sums:   %zu runs (%zu terms), %zu differ; C side: map applied on %zu runs, walk "
           "used map 0/1/chain %zu/%zu/%zu, %zu algebra violations\n",
           v->name, n, n_terms, bad, applied, walk[0], walk[1], walk[2], algebra);
    if (bad || algebra) failures++;
    free(terms), free(in), free(ref), free(out);
}

static void check_prims(const Variant *v, int dev, size_t n, uint64_t seed) {
    ScxPrimIn *in = xmalloc(n * sizeof *in);
    ScxPrimOut *ref = xmalloc(n * sizeof *ref), *out = xmalloc(n * sizeof *out);
    rng = seed ^ 0x0123456789abcdefULL;
    gen_prims(in, n);
    memset(ref, 0, n * sizeof *ref);
    v->ref_prims(in, ref, n);
    if (v->dev_prims(dev, in, out, n) != 0) device_error("prims");
    static const char *const field[8] = {"sqrt_rn", "sqrt_int", "sqrt_prod", "div",
                                         "div_int", "a*b+c",    "(float)i",  "half/mul"};
    size_t bad[8] = {0}, any = 0, shown = 0, helpers = 0;
    for (size_t i = 0; i < n; i++) {
        const float *a = &ref[i].sqrt_rn, *b = &out[i].sqrt_rn;
        if (memcmp(&ref[i], &out[i], sizeof ref[i]) == 0) goto host;
        any++;
        for (int f = 0; f < 8; f++) {
            const int differs = f < 7 ? memcmp(&a[f], &b[f], 4) != 0
                                      : ref[i].half != out[i].half || ref[i].mul != out[i].mul;
            if (!differs) continue;
            bad[f]++;
            if (shown++ < 5 && f < 7)
                printf("  DIFF %s %s(a %a, b %a, c %a): C %a, SYCL %a\n", v->name, field[f],
                       in[i].a, in[i].b, in[i].c, a[f], b[f]);
        }
    host:
        /* C side: the integer helpers equal the IEEE operations. */
        helpers += memcmp(&ref[i].sqrt_int, &ref[i].sqrt_rn, 4) != 0 ||
                   memcmp(&ref[i].div_int, &ref[i].div, 4) != 0;
    }
    printf("  %-6s prims:  %zu cases, %zu differ", v->name, n, any);
    for (int f = 0; f < 8; f++)
        if (bad[f]) printf(" [%s: %zu]", field[f], bad[f]);
    printf("; C side: integer sqrt/div != IEEE on %zu\n", helpers);
    if (any || helpers) failures++;
    free(in), free(ref), free(out);
}

int main(int argc, char **argv) {
    size_t n_blocks = 2000, n_sums = 20000, n_prims = 200000;
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    int only = -1, require_gpu = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--require-gpu")) {
            require_gpu = 1;
            continue;
        }
        if (!val) goto usage;
        if (!strcmp(a, "--blocks"))
            n_blocks = strtoull(val, NULL, 0);
        else if (!strcmp(a, "--sums"))
            n_sums = strtoull(val, NULL, 0);
        else if (!strcmp(a, "--prims"))
            n_prims = strtoull(val, NULL, 0);
        else if (!strcmp(a, "--seed"))
            seed = strtoull(val, NULL, 0);
        else if (!strcmp(a, "--device"))
            only = atoi(val);
        else
            goto usage;
        i++;
    }
    if (!n_blocks || !n_sums || !n_prims) goto usage;

    const int count = scx_sycl_device_count();
    int gpus = 0, ran = 0;
    printf("seed 0x%llx, %d SYCL device(s)\n", (unsigned long long)seed, count);
    for (int d = 0; d < count; d++) {
        char desc[256];
        const int gpu = scx_sycl_device_describe(d, desc, sizeof desc);
        gpus += gpu;
        printf("device %d: %s%s\n", d, desc, only >= 0 && only != d ? " (skipped)" : "");
        if (only >= 0 && only != d) continue;
        if (require_gpu && !gpu) continue;
        size_t cross = 0, compared = 0;
        for (int v = 0; v < 2; v++) {
            compared += check_blocks(&variants[v], d, n_blocks, seed, &cross);
            check_sums(&variants[v], d, n_sums, seed);
            check_prims(&variants[v], d, n_prims, seed);
        }
        printf("  host C: native vs exact helpers on the same %zu block pairs: %zu differ\n",
               compared, cross);
        if (cross) failures++;
        ran++;
    }
    if (require_gpu && !gpus) {
        printf("SKIP: no SYCL GPU device (--require-gpu)\n");
        return 77;
    }
    if (!ran) {
        printf("SKIP: no SYCL device ran\n");
        return 77;
    }
    printf(failures ? "FAIL: %d check(s) found differences\n"
                    : "OK: bit-identical on %d device(s)\n",
           failures ? failures : ran);
    return failures ? 1 : 0;

usage:
    fprintf(stderr,
            "usage: %s [--blocks N] [--sums N] [--prims N] [--seed S] [--device K] "
            "[--require-gpu]\n",
            argv[0]);
    return 2;
}
