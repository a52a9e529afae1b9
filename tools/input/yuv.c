/*
 * psnrhvs: raw planar YUV reader (frames back to back, no header).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "input/input.h"

static int yuv_probe(const uint8_t *const data, const size_t size) {
    return 1;
}

static int yuv_open(void *const priv, InputStream *const s, InputFormat *const fmt) {
    return 0;
}

static int yuv_read(void *const priv, InputStream *const s, uint8_t *const buf,
                    const size_t frame_bytes, const unsigned frame_idx) {
    /* A file size that is not a multiple of the frame size ends in an error. */
    return stream_read_frame(s, buf, frame_bytes, frame_idx, 1);
}

/* Frames back to back: nothing before the samples. */
static long long yuv_frame_header(InputStream *const s, const uint8_t *const data,
                                  const size_t avail, const unsigned frame_idx) {
    (void)s, (void)data, (void)avail, (void)frame_idx;
    return 0;
}

const Demuxer demuxer_yuv = {
    .name = "yuv",
    .priv_data_size = 0,
    .probe = yuv_probe,
    .open = yuv_open,
    .read = yuv_read,
    .close = NULL,
    .frame_header = yuv_frame_header,
};
