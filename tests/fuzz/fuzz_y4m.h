/*
 * The Y4M reader's fuzz target, shared by the libFuzzer build and the replay driver.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_FUZZ_FUZZ_Y4M_H
#define PSNRHVS_TESTS_FUZZ_FUZZ_Y4M_H

#include <stddef.h>
#include <stdint.h>

/* Frames over this many bytes are not allocated: a header may ask for 12 GB. */
#define FUZZ_MAX_FRAME_BYTES ((size_t)1 << 20)
/* Frames read at most per input. */
#define FUZZ_MAX_FRAMES 16

typedef struct FuzzY4mResult {
    int opened;    ///< the header was accepted
    int capped;    ///< accepted, but a frame is over FUZZ_MAX_FRAME_BYTES: not read
    int frames;    ///< frames read
    int status;    ///< the last read: 0 clean end, -1 error, 1 stopped at FUZZ_MAX_FRAMES
    char err[512]; ///< the reader's message when the header or a frame was rejected
} FuzzY4mResult;

/**
 * Open data as a .y4m file and read its frames. Checks what the reader
 * promises (a rejection always comes with a message, an accepted header has a
 * valid format) and aborts when a promise is broken.
 */
void fuzz_y4m_run(const uint8_t *data, size_t size, FuzzY4mResult *r);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* PSNRHVS_TESTS_FUZZ_FUZZ_Y4M_H */
