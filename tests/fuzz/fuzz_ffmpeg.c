/*
 * Fuzz target: arbitrary bytes as a compressed file (mkv, mp4, ivf, webm...)
 * through the CLI's FFmpeg demuxer and decoder from memory: open, the format
 * it reports, and up to FUZZ_MAX_FRAMES frames. The seeds are tiny encodes
 * made at test time (run_libfuzzer.py --seed-cmd).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <string.h>

#include "fuzz_input.h"

const char fuzz_target_name[] = "ffmpeg";

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    Input *in = NULL;
    /* The name sends whatever the bytes are to FFmpeg, as a .mkv file would go. */
    if (input_open_mem(&in, "fuzz.mkv", data, size, r->err, sizeof(r->err)) < 0) {
        if (!r->err[0]) fuzz_broken("file rejected without a message", r);
        return;
    }
    r->opened = 1;
    /* Only the Y4M magic takes a .mkv away from FFmpeg (sniff.c). */
    if (!input_decoded(in) && (size < 10 || memcmp(data, "YUV4MPEG2 ", 10)))
        fuzz_broken("a .mkv input not decoded by FFmpeg", r);
    fuzz_read_input(in, "decoded stream", r);
}
