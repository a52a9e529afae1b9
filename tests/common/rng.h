/*
 * The tests' seeded PRNG (xorshift64*): a printed seed replays a run.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_COMMON_RNG_H
#define PSNRHVS_TESTS_COMMON_RNG_H

#include <stdint.h>

static inline uint32_t psnrhvs_test_rnd(uint64_t *const state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1DULL) >> 32);
}

#endif /* PSNRHVS_TESTS_COMMON_RNG_H */
