/*
 * psnrhvs: the output's test hooks. Only the tests' CLI (tests/cli builds it
 * with PSNRHVS_CLI_TEST_HOOKS) reads them; the CLI that is installed has
 * none, and no environment variable changes what it does.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_OUTPUT_TEST_HOOKS_H
#define PSNRHVS_TOOLS_OUTPUT_TEST_HOOKS_H

#ifdef PSNRHVS_CLI_TEST_HOOKS
#include <stdlib.h>

/* PSNRHVS_TEST_INPLACE_FAIL_AT=N: the in-place rewrite fails with ENOSPC
 * after N bytes, as a disk that fills up half-way would. -1: never. */
static inline long long output_test_fail_at(void) {
    const char *const v = getenv("PSNRHVS_TEST_INPLACE_FAIL_AT");
    return v && *v ? atoll(v) : -1;
}
#else
static inline long long output_test_fail_at(void) {
    return -1;
}
#endif

#endif /* PSNRHVS_TOOLS_OUTPUT_TEST_HOOKS_H */
