/*
 * psnrhvs: plane geometry shared by the readers.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>

#include "input/input.h"

const char *layout_name(const enum PsnrHvsPixelLayout layout) {
    switch (layout) {
    case PSNRHVS_PIXEL_LAYOUT_I420:
        return "420";
    case PSNRHVS_PIXEL_LAYOUT_I422:
        return "422";
    case PSNRHVS_PIXEL_LAYOUT_I444:
        return "444";
    case PSNRHVS_PIXEL_LAYOUT_I400:
        return "400";
    }
    return "?";
}

int plane_geometry(const InputFormat *const fmt, PlaneGeometry *const g) {
    const int w = fmt->width, h = fmt->height;
    if (w < 1 || h < 1 || w > PSNRHVS_MAX_DIMENSION || h > PSNRHVS_MAX_DIMENSION) return -1;
    if (fmt->bitdepth < 8 || fmt->bitdepth > 16) return -1;

    *g = (PlaneGeometry){0};
    g->bytes_per_sample = fmt->bitdepth > 8 ? 2 : 1;
    g->stored_w[0] = g->scored_w[0] = w;
    g->stored_h[0] = g->scored_h[0] = h;
    g->num_planes = 3;
    /* Files round odd chroma sizes up (FFmpeg, y4m); libvmaf scores the
     * rounded-down part (numerics spec section 1). */
    switch (fmt->layout) {
    case PSNRHVS_PIXEL_LAYOUT_I420:
        g->stored_w[1] = (w + 1) >> 1, g->stored_h[1] = (h + 1) >> 1;
        g->scored_w[1] = w >> 1, g->scored_h[1] = h >> 1;
        break;
    case PSNRHVS_PIXEL_LAYOUT_I422:
        g->stored_w[1] = (w + 1) >> 1, g->stored_h[1] = h;
        g->scored_w[1] = w >> 1, g->scored_h[1] = h;
        break;
    case PSNRHVS_PIXEL_LAYOUT_I444:
        g->stored_w[1] = g->scored_w[1] = w;
        g->stored_h[1] = g->scored_h[1] = h;
        break;
    case PSNRHVS_PIXEL_LAYOUT_I400:
        g->num_planes = 1;
        break;
    default:
        return -1;
    }
    g->stored_w[2] = g->stored_w[1], g->stored_h[2] = g->stored_h[1];
    g->scored_w[2] = g->scored_w[1], g->scored_h[2] = g->scored_h[1];

    /* Each plane is at most 65536 * 65536 * 2 bytes: check the sum against size_t. */
    uint64_t total = 0;
    for (int p = 0; p < g->num_planes; p++) {
        const uint64_t bytes =
            (uint64_t)g->stored_w[p] * (uint64_t)g->stored_h[p] * (uint64_t)g->bytes_per_sample;
        if (bytes > SIZE_MAX) return -1;
        g->plane_bytes[p] = (size_t)bytes;
        total += bytes;
    }
    if (total > SIZE_MAX) return -1;
    g->frame_bytes = (size_t)total;
    return 0;
}

int check_bitdepth(const int bitdepth, char *const msg, const size_t size) {
    if (bitdepth == 8 || bitdepth == 10 || bitdepth == 12) return 0;
    if (bitdepth > 12 && bitdepth <= 16)
        snprintf(msg, size,
                 "bit depth %d is not supported: 13-16 bits are not, because libvmaf's "
                 "psnr_hvs accepts at most 12 bits and its f32 numerics are only defined up "
                 "to 12",
                 bitdepth);
    else
        snprintf(msg, size, "bit depth %d is not supported (expected 8, 10 or 12)", bitdepth);
    return -1;
}
