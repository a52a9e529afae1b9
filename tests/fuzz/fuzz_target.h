/*
 * What every fuzz target of tests/fuzz gives the replay driver (main.c) and
 * libFuzzer: one run of fuzz_target_run() per input. A target checks the
 * promises of the code under test and abort()s when one is broken; memory
 * errors are found by ASan/UBSan when built with them.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_FUZZ_FUZZ_TARGET_H
#define PSNRHVS_TESTS_FUZZ_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Frames over this many bytes are not allocated: a header may ask for 12 GB. */
#define FUZZ_MAX_FRAME_BYTES ((size_t)1 << 20)
/* Frames read at most per input. */
#define FUZZ_MAX_FRAMES 16

/** One input's outcome, checked by the replay driver against expect/<target>.txt. */
typedef struct FuzzOutcome {
    int opened;    ///< the input was accepted (header, options)
    int capped;    ///< accepted, but a frame is over FUZZ_MAX_FRAME_BYTES: not read
    int frames;    ///< frames (pairs, written frames) handled
    int status;    ///< 0 clean end, -1 an error (err), 1 stopped at FUZZ_MAX_FRAMES
    char err[512]; ///< the message when rejected or failed
} FuzzOutcome;

/** The target's name ("y4m", "pair", "output"), for the driver's report. */
extern const char fuzz_target_name[];

void fuzz_target_run(const uint8_t *data, size_t size, FuzzOutcome *r);

/** Aborts with what broke: a broken promise is a crash, as libFuzzer wants it. */
void fuzz_broken(const char *what, const FuzzOutcome *r);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* PSNRHVS_TESTS_FUZZ_FUZZ_TARGET_H */
