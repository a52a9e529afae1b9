/*
 * psnrhvs: switches for the project's tests and benchmarks, never for users:
 * not in --help nor the manual, and the one place in tools/ that reads the
 * environment (PSNRHVS_TEST_*). None changes a score: each reaches a path
 * that gives the same frames (the read() path, a copy to host memory) or
 * sizes the decoder's work so that a small test clip takes the paths a long
 * film would. What users may set is a flag (cli_parse.c).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_TEST_HOOKS_H
#define PSNRHVS_TOOLS_TEST_HOOKS_H

/** PSNRHVS_TEST_NO_MMAP=1: raw and Y4M files are read with read() instead
 *  of mapped (tests/cli/run_mmap.py, bench/cli_gpu.sh). */
int test_hook_no_mmap(void);

/** PSNRHVS_TEST_HWACCEL_COPY=1: --hwaccel cuda's frames are copied to host
 *  memory even where the CUDA backend could read them in place
 *  (bench/hwaccel_gpu.sh). */
int test_hook_hwaccel_copy(void);

/* PSNRHVS_TEST_INPLACE_FAIL_AT=N: the in-place rewrite of an output fails
 * with ENOSPC after N bytes, as a disk that fills up half-way would; -1:
 * never. Read only by the tests' CLI (tests/cli builds psnrhvs_test_hooks
 * with PSNRHVS_CLI_TEST_HOOKS): it would lose data, so the installed CLI
 * has no such path at all. */
#ifdef PSNRHVS_CLI_TEST_HOOKS
#include <stdlib.h>
static inline long long test_hook_inplace_fail_at(void) {
    const char *const v = getenv("PSNRHVS_TEST_INPLACE_FAIL_AT");
    return v && *v ? atoll(v) : -1;
}
#else
static inline long long test_hook_inplace_fail_at(void) {
    return -1;
}
#endif

#endif /* PSNRHVS_TOOLS_TEST_HOOKS_H */
