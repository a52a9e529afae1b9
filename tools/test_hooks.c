/*
 * psnrhvs: the test hooks' values (test_hooks.h), from the environment.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "test_hooks.h"

/* Set and not "0". */
static int env_on(const char *const name) {
    const char *const v = getenv(name);
    return v && *v && strcmp(v, "0");
}

int test_hook_no_mmap(void) {
    return env_on("PSNRHVS_TEST_NO_MMAP");
}

int test_hook_hwaccel_copy(void) {
    return env_on("PSNRHVS_TEST_HWACCEL_COPY");
}
