/*
 * psnrhvs: the pixel layouts: the one table of their names, the plane sizes
 * they give and the 8x8 rule. Compiled into the library and into every
 * backend module, whose frame geometry (frame.c) comes from here too.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"

/* The layouts: the one table of their names (every front-end's words:
 * --pixel_format, Python's pixel_format, the messages) and of how their
 * chroma is subsampled. */
static const struct {
    const char *name;
    int num_planes;
    int shift_w, shift_h; ///< chroma: luma's size >> shift (scored), rounded up (stored)
} layouts[] = {
    [PSNRHVS_PIXEL_LAYOUT_I420] = {"420", 3, 1, 1},
    [PSNRHVS_PIXEL_LAYOUT_I422] = {"422", 3, 1, 0},
    [PSNRHVS_PIXEL_LAYOUT_I444] = {"444", 3, 0, 0},
    [PSNRHVS_PIXEL_LAYOUT_I400] = {"400", 1, 0, 0},
};

#define NUM_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

const char *psnrhvs_layout_string(const enum PsnrHvsPixelLayout layout) {
    return (unsigned)layout < NUM_LAYOUTS ? layouts[layout].name : NULL;
}

int psnrhvs_layout_from_string(const char *const name) {
    for (size_t i = 0; name && i < NUM_LAYOUTS; i++)
        if (!strcmp(name, layouts[i].name)) return (int)i;
    return PSNRHVS_ERR(EINVAL);
}

static const char *layout_name(const enum PsnrHvsPixelLayout layout) {
    const char *const s = psnrhvs_layout_string(layout);
    return s ? s : "?";
}

/* The settings' words for a layout: its name as a ratio, "4:2:0". */
static const char *layout_ratio(const enum PsnrHvsPixelLayout layout, char buf[8]) {
    const char *const s = layout_name(layout);
    if (strlen(s) != 3) return s;
    snprintf(buf, 8, "%c:%c:%c", s[0], s[1], s[2]);
    return buf;
}

int psnrhvs_geometry(const PsnrHvsFormat *const fmt, PsnrHvsGeometry *const g) {
    const int w = fmt->width, h = fmt->height;
    if (w < 1 || h < 1 || w > PSNRHVS_MAX_DIMENSION || h > PSNRHVS_MAX_DIMENSION)
        return PSNRHVS_ERR(EINVAL);
    if (fmt->bitdepth < 8 || fmt->bitdepth > 16) return PSNRHVS_ERR(EINVAL);
    if ((unsigned)fmt->layout >= NUM_LAYOUTS) return PSNRHVS_ERR(EINVAL);

    *g = (PsnrHvsGeometry){0};
    g->bytes_per_sample = fmt->bitdepth > 8 ? 2 : 1;
    g->stored_w[0] = g->scored_w[0] = w;
    g->stored_h[0] = g->scored_h[0] = h;
    g->num_planes = layouts[fmt->layout].num_planes;
    /* Files round odd chroma sizes up (FFmpeg, y4m); libvmaf scores the
     * rounded-down part (numerics spec section 1). */
    const int sw = layouts[fmt->layout].shift_w, sh = layouts[fmt->layout].shift_h;
    for (int p = 1; p < g->num_planes; p++) {
        g->stored_w[p] = (w + (1 << sw) - 1) >> sw, g->stored_h[p] = (h + (1 << sh) - 1) >> sh;
        g->scored_w[p] = w >> sw, g->scored_h[p] = h >> sh;
    }

    /* Each plane is at most 65536 * 65536 * 2 bytes: check the sum against size_t. */
    uint64_t total = 0;
    for (int p = 0; p < g->num_planes; p++) {
        const uint64_t bytes =
            (uint64_t)g->stored_w[p] * (uint64_t)g->stored_h[p] * (uint64_t)g->bytes_per_sample;
        if (bytes > SIZE_MAX) return PSNRHVS_ERR(EINVAL);
        g->plane_bytes[p] = (size_t)bytes;
        total += bytes;
    }
    if (total > SIZE_MAX) return PSNRHVS_ERR(EINVAL);
    g->frame_bytes = (size_t)total;
    return 0;
}

/* The tests pin each path's words (tests/api/test_file.c, the front-ends';
 * tests/python/test_library.py, psnrhvs_open's): one rule, said twice. */
int psh_check_planes(const PsnrHvsFormat *const fmt, const PsnrHvsGeometry *const g,
                     const int enable_chroma, const enum PshWords words, char *const msg,
                     const size_t size) {
    const int flags = words == PSH_WORDS_FLAGS;
    if (g->scored_w[0] < 8 || g->scored_h[0] < 8) {
        snprintf(msg, size,
                 flags ? "frame size %dx%d is smaller than 8x8: psnr_hvs has no block to score"
                       : "frame %dx%d is smaller than one 8x8 block: PSNR-HVS is undefined",
                 fmt->width, fmt->height);
        return -1;
    }
    if (enable_chroma && g->num_planes == 3 && (g->scored_w[1] < 8 || g->scored_h[1] < 8)) {
        char ratio[8];
        snprintf(msg, size,
                 flags ? "chroma planes of %dx%d %s are %dx%d, smaller than 8x8: psnr_hvs has no "
                         "block to score in them; use --feature psnr_hvs=enable_chroma=false to "
                         "score luma only"
                       : "chroma planes of a %dx%d %s frame are %dx%d, smaller than one 8x8 "
                         "block; score luma only with enable_chroma=false",
                 fmt->width, fmt->height,
                 flags ? layout_name(fmt->layout) : layout_ratio(fmt->layout, ratio),
                 g->scored_w[1], g->scored_h[1]);
        return -1;
    }
    return 0;
}
