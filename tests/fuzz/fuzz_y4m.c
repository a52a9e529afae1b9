/*
 * Fuzz target: arbitrary bytes through the CLI's Y4M reader (header and
 * frames, the sample range check included) from memory. Memory errors are
 * found by ASan/UBSan when built with them; without them, a broken promise of
 * the reader aborts.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "fuzz_input.h"

const char fuzz_target_name[] = "y4m";

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    Input *in = NULL;
    /* The .y4m name makes input without the magic a malformed Y4M, not raw video. */
    if (input_open_mem(&in, "fuzz.y4m", data, size, r->err, sizeof(r->err)) < 0) {
        if (!r->err[0]) fuzz_broken("header rejected without a message", r);
        return;
    }
    r->opened = 1;
    fuzz_read_input(in, "Y4M header", r);
}
