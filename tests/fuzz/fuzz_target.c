/*
 * What every fuzz target shares: the abort on a broken promise, and
 * libFuzzer's entry point over fuzz_target_run().
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_target.h"

void fuzz_broken(const char *const what, const FuzzOutcome *const r) {
    fprintf(stderr, "fuzz_%s: %s (%d handled, message '%s')\n", fuzz_target_name, what, r->frames,
            r->err);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *const data, const size_t size) {
    FuzzOutcome r;
    fuzz_target_run(data, size, &r);
    return 0;
}
