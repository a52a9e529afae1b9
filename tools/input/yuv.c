/*
 * psnrhvs: raw planar YUV reader (frames back to back, no header).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <string.h>

#include "input/input.h"

static int yuv_probe(const uint8_t *const data, const size_t size) {
    return 1;
}

static int yuv_open(void *const priv, InputStream *const s, InputFormat *const fmt) {
    return 0;
}

static int yuv_read(void *const priv, InputStream *const s, uint8_t *const buf,
                    const size_t frame_bytes, const unsigned frame_idx) {
    const size_t got = psnrhvs_stream_read(s, buf, frame_bytes);
    if (got == frame_bytes) return 1;
    if (ferror(s->f)) {
        psnrhvs_stream_error(s, "cannot read %s: %s", s->name, strerror(errno));
        return -1;
    }
    if (!got) return 0;
    /* A file size that is not a multiple of the frame size ends here. */
    psnrhvs_stream_error(s, "truncated frame %u in %s: expected %zu bytes, got %zu", frame_idx,
                         s->name, frame_bytes, got);
    return -1;
}

const Demuxer psnrhvs_demuxer_yuv = {
    .name = "yuv",
    .priv_data_size = 0,
    .probe = yuv_probe,
    .open = yuv_open,
    .read = yuv_read,
    .close = NULL,
};
