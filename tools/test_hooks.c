/*
 * psnrhvs: the test hooks' values (test_hooks.h), from the environment.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "test_hooks.h"

/* A whole number from lo up, hi at most; 0 when unset or not a number. */
static long env_long(const char *const name, const long lo, const long hi) {
    const char *const v = getenv(name);
    if (!v || !*v) return 0;
    char *end;
    const long x = strtol(v, &end, 10);
    if (*end || x < lo) return 0;
    return x > hi ? hi : x;
}

/* Set and not "0". */
static int env_on(const char *const name) {
    const char *const v = getenv(name);
    return v && *v && strcmp(v, "0");
}

int test_hook_decode_chunk(void) {
    return (int)env_long("PSNRHVS_TEST_DECODE_CHUNK", 1, 1 << 20);
}

int test_hook_decode_threads(void) {
    return (int)env_long("PSNRHVS_TEST_DECODE_THREADS", 1, 256);
}

long test_hook_decode_buffer_mb(void) {
    return env_long("PSNRHVS_TEST_DECODE_BUFFER_MB", 1, 1L << 30);
}

int test_hook_no_mmap(void) {
    return env_on("PSNRHVS_TEST_NO_MMAP");
}

int test_hook_hwaccel_copy(void) {
    return env_on("PSNRHVS_TEST_HWACCEL_COPY");
}
