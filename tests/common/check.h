/*
 * A test program's CHECK: a failed condition prints where and why, the run
 * goes on, and main returns failures != 0.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_COMMON_CHECK_H
#define PSNRHVS_TESTS_COMMON_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif /* PSNRHVS_TESTS_COMMON_CHECK_H */
