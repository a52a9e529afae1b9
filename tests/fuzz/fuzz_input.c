/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>

#include "fuzz_input.h"

static void broken_input(const char *const what, const char *const how,
                         const FuzzOutcome *const r) {
    char msg[128];
    snprintf(msg, sizeof(msg), "%s accepted %s", what, how);
    fuzz_broken(msg, r);
}

void fuzz_read_input(Input *in, const char *const what, FuzzOutcome *const r) {
    InputFormat fmt;
    if (!input_has_format(in, &fmt)) broken_input(what, "without a format", r);
    if (fmt.width < 1 || fmt.height < 1 || fmt.width > PSNRHVS_MAX_DIMENSION ||
        fmt.height > PSNRHVS_MAX_DIMENSION)
        broken_input(what, "with a size out of range", r);
    if ((fmt.bitdepth != 8 && fmt.bitdepth != 10 && fmt.bitdepth != 12) ||
        (unsigned)fmt.layout > PSNRHVS_PIXEL_LAYOUT_I400)
        broken_input(what, "with a bad depth or layout", r);
    PlaneGeometry g;
    if (plane_geometry(&fmt, &g) < 0) fuzz_broken("accepted format without a geometry", r);
    if (g.frame_bytes > FUZZ_MAX_FRAME_BYTES) {
        r->capped = 1;
        input_close(&in);
        return;
    }
    InputFrame frame;
    if (input_set_format(in, &fmt) < 0 || input_frame_alloc(in, &frame) < 0)
        fuzz_broken("cannot set up a small frame", r);
    r->status = 1;
    while (r->frames < FUZZ_MAX_FRAMES) {
        const int res = input_read(in, &frame);
        if (res == 1) {
            /* The readers' promise: no sample above the bit depth gets through. */
            if (g.bytes_per_sample == 2) {
                const uint16_t *const sample = (const uint16_t *)(const void *)frame.buf;
                for (size_t i = 0; i < g.frame_bytes / 2; i++)
                    if (sample[i] >> fmt.bitdepth)
                        fuzz_broken("a sample above the bit depth passed", r);
            }
            r->frames++;
            continue;
        }
        if (res != 0 && res != -1) fuzz_broken("read returned neither 1, 0 nor -1", r);
        r->status = res;
        if (res < 0) {
            snprintf(r->err, sizeof(r->err), "%s", input_error(in));
            if (!r->err[0]) fuzz_broken("frame rejected without a message", r);
        }
        break;
    }
    if (input_frames_read(in) != (unsigned)r->frames) fuzz_broken("frame count mismatch", r);
    input_frame_free(&frame);
    input_close(&in);
}
