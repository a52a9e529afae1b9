/*
 * Fuzz target: arbitrary bytes through the CLI's Y4M reader (header and
 * frames, the sample range check included) from memory. Memory errors are
 * found by ASan/UBSan when built with them; without them, a broken promise of
 * the reader aborts.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "input/input.h"

const char fuzz_target_name[] = "y4m";

void fuzz_broken(const char *const what, const FuzzOutcome *const r) {
    fprintf(stderr, "fuzz_%s: %s (frames %d, message '%s')\n", fuzz_target_name, what, r->frames,
            r->err);
    abort();
}

#define broken fuzz_broken

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    Input *in = NULL;
    /* The .y4m name makes input without the magic a malformed Y4M, not raw video. */
    if (input_open_mem(&in, "fuzz.y4m", data, size, r->err, sizeof(r->err)) < 0) {
        if (!r->err[0]) broken("header rejected without a message", r);
        return;
    }
    r->opened = 1;
    InputFormat fmt;
    if (!input_has_format(in, &fmt)) broken("Y4M header accepted without a format", r);
    if (fmt.width < 1 || fmt.height < 1 || fmt.width > PSNRHVS_MAX_DIMENSION ||
        fmt.height > PSNRHVS_MAX_DIMENSION)
        broken("Y4M header accepted with a size out of range", r);
    if ((fmt.bitdepth != 8 && fmt.bitdepth != 10 && fmt.bitdepth != 12) ||
        (unsigned)fmt.layout > PSNRHVS_PIXEL_LAYOUT_I400)
        broken("Y4M header accepted with a bad depth or layout", r);
    PlaneGeometry g;
    if (plane_geometry(&fmt, &g) < 0) broken("accepted format without a geometry", r);
    if (g.frame_bytes > FUZZ_MAX_FRAME_BYTES) {
        r->capped = 1;
        input_close(&in);
        return;
    }
    InputFrame frame;
    if (input_set_format(in, &fmt) < 0 || input_frame_alloc(in, &frame) < 0)
        broken("cannot set up a small frame", r);
    r->status = 1;
    while (r->frames < FUZZ_MAX_FRAMES) {
        const int res = input_read(in, &frame);
        if (res == 1) {
            /* The reader's promise: no sample above the bit depth gets through. */
            if (g.bytes_per_sample == 2) {
                const uint16_t *const sample = (const uint16_t *)(const void *)frame.buf;
                for (size_t i = 0; i < g.frame_bytes / 2; i++)
                    if (sample[i] >> fmt.bitdepth) broken("a sample above the bit depth passed", r);
            }
            r->frames++;
            continue;
        }
        if (res != 0 && res != -1) broken("read returned neither 1, 0 nor -1", r);
        r->status = res;
        if (res < 0) {
            snprintf(r->err, sizeof(r->err), "%s", input_error(in));
            if (!r->err[0]) broken("frame rejected without a message", r);
        }
        break;
    }
    if (input_frames_read(in) != (unsigned)r->frames) broken("frame count mismatch", r);
    input_frame_free(&frame);
    input_close(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *const data, const size_t size) {
    FuzzOutcome r;
    fuzz_target_run(data, size, &r);
    return 0;
}
