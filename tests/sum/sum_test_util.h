/*
 * psnrhvs: shared helpers of the exact-sum tests (seeded PRNG, bit compare).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_SUM_SUM_TEST_UTIL_H
#define PSNRHVS_TESTS_SUM_SUM_TEST_UTIL_H

#include <stdint.h>
#include <string.h>

typedef struct Rng {
    uint64_t s;
} Rng;

/* splitmix64 */
static inline uint64_t rng_u64(Rng *const r) {
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint32_t rng_u32(Rng *const r) {
    return (uint32_t)(rng_u64(r) >> 32);
}

/* uniform in [0, n) (n > 0; the bias is irrelevant here) */
static inline uint32_t rng_below(Rng *const r, const uint32_t n) {
    return (uint32_t)(((uint64_t)rng_u32(r) * n) >> 32);
}

static inline double rng_unit(Rng *const r) {
    return (double)(rng_u64(r) >> 11) * 0x1p-53;
}

static inline uint32_t f2u(const float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float u2f(const uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline int same_bits(const float a, const float b) {
    return f2u(a) == f2u(b);
}

#endif /* PSNRHVS_TESTS_SUM_SUM_TEST_UTIL_H */
