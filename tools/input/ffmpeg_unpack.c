/*
 * psnrhvs: a decoded frame's samples in psnrhvs's planes (FrameUnpack,
 * input/ffmpeg.h): which pixel formats are used as they are, and copying
 * their planes out, de-interleaved and moved down without arithmetic.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>

#include "input/ffmpeg.h"
#include "input/input.h"

/*
 * What a pixel format holds, or an error naming it. depth is the decoder's own
 * depth (a GPU frame of 10-bit video is P010 or P016: its sw_pix_fmt says 10).
 */
int unpack_init(FrameUnpack *const u, const int pix_fmt, const int depth, const int width,
                const int height, const char *const name, char *const err, const size_t err_size) {
    const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get((enum AVPixelFormat)pix_fmt);
    const char *const fmt_name = desc ? desc->name : "unknown";
    const uint64_t bad = AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_ALPHA |
                         AV_PIX_FMT_FLAG_BAYER | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_HWACCEL |
                         AV_PIX_FMT_FLAG_BITSTREAM;
    const uint16_t one = 1;
    uint8_t little;
    memcpy(&little, &one, 1);
    *u = (FrameUnpack){.pix_fmt = pix_fmt};
    /* Gray formats are one plane without the planar flag. */
    int ok = desc && !(desc->flags & bad) &&
             (desc->nb_components == 1 || (desc->flags & AV_PIX_FMT_FLAG_PLANAR)) &&
             !(desc->flags & AV_PIX_FMT_FLAG_BE) == !!little &&
             (desc->nb_components == 1 || desc->nb_components == 3);
    if (ok) {
        const AVComponentDescriptor *const c = desc->comp;
        u->bytes = c[0].depth + c[0].shift > 8 ? 2 : 1;
        u->down = c[0].shift + (c[0].depth > depth ? c[0].depth - depth : 0);
        ok = c[0].plane == 0 && c[0].offset == 0 && c[0].step == u->bytes &&
             c[0].depth + c[0].shift <= 8 * u->bytes && depth <= c[0].depth;
        for (int i = 1; ok && i < desc->nb_components; i++)
            ok = c[i].depth == c[0].depth && c[i].shift == c[0].shift;
        if (ok && desc->nb_components == 3) {
            u->semi = c[1].plane == c[2].plane;
            if (u->semi)
                ok = c[1].plane == 1 && c[1].step == 2 * u->bytes && c[2].step == 2 * u->bytes &&
                     ((c[1].offset == 0 && c[2].offset == u->bytes) ||
                      (c[2].offset == 0 && c[1].offset == u->bytes));
            else
                ok = c[1].plane == 1 && c[2].plane == 2 && c[1].step == u->bytes &&
                     c[2].step == u->bytes && !c[1].offset && !c[2].offset;
            u->chroma_swap = u->semi && c[2].offset == 0;
        }
        const int cw = desc->log2_chroma_w, ch = desc->log2_chroma_h;
        if (desc->nb_components == 1)
            u->fmt.layout = PSNRHVS_PIXEL_LAYOUT_I400;
        else if (cw == 1 && ch == 1)
            u->fmt.layout = PSNRHVS_PIXEL_LAYOUT_I420;
        else if (cw == 1 && ch == 0)
            u->fmt.layout = PSNRHVS_PIXEL_LAYOUT_I422;
        else if (cw == 0 && ch == 0)
            u->fmt.layout = PSNRHVS_PIXEL_LAYOUT_I444;
        else
            ok = 0;
    }
    if (!ok && desc && (desc->flags & AV_PIX_FMT_FLAG_RGB)) {
        /* An RGB image or video: which YUV it should be (matrix, range) is the
         * user's choice, so nothing is converted here. */
        snprintf(err, err_size,
                 "%s: pixel format %s is not supported: it is RGB, and psnrhvs scores YUV (or "
                 "gray) samples, as libvmaf does, converting nothing silently; convert it "
                 "first, e.g. ffmpeg -i %s "
                 "-pix_fmt yuv444p -strict -1 out.y4m (add -vf "
                 "scale=out_color_matrix=bt709:out_range=limited to choose the matrix and "
                 "range), and the other input the same way",
                 name, fmt_name, name);
        return -1;
    }
    if (!ok) {
        snprintf(err, err_size,
                 "%s: pixel format %s is not supported: psnrhvs scores planar or semi-planar YUV "
                 "4:2:0, 4:2:2, 4:4:4 or gray at 8, 10 or 12 bits and converts nothing silently "
                 "(convert it first, e.g. ffmpeg -i %s -pix_fmt yuv420p ...)",
                 name, fmt_name, name);
        return -1;
    }
    char msg[256];
    if (check_bitdepth(depth, msg, sizeof(msg)) < 0) {
        snprintf(err, err_size, "%s: %s (pixel format %s)", name, msg, fmt_name);
        return -1;
    }
    u->fmt.bitdepth = depth;
    u->fmt.width = width;
    u->fmt.height = height;
    if (width > PSNRHVS_MAX_DIMENSION || height > PSNRHVS_MAX_DIMENSION ||
        plane_geometry(&u->fmt, &u->geo) < 0) {
        snprintf(err, err_size, "%s: frame size %dx%d is not supported", name, width, height);
        return -1;
    }
    return 0;
}

/* One plane of samples, moved down by u->down bits; -1 if a moved-out bit is set. */
static int copy_plane(const FrameUnpack *const u, uint8_t *dst, const uint8_t *src,
                      const int linesize, const int w, const int h, const int step,
                      const int offset) {
    const size_t row = (size_t)w * (size_t)u->bytes;
    unsigned lost = 0;
    const unsigned mask = (1u << u->down) - 1;
    for (int y = 0; y < h; y++, dst += row, src += linesize) {
        if (step == 1 && !u->down) {
            memcpy(dst, src + offset, row);
        } else if (u->bytes == 1) {
            for (int x = 0; x < w; x++) dst[x] = src[offset + x * step];
        } else {
            uint16_t *const out = (uint16_t *)(void *)dst;
            for (int x = 0; x < w; x++) {
                uint16_t v;
                memcpy(&v, src + offset + 2 * x * step, 2);
                lost |= v & mask;
                out[x] = (uint16_t)(v >> u->down);
            }
        }
    }
    return lost ? -1 : 0;
}

int unpack_frame(const FrameUnpack *const u, const AVFrame *const f, uint8_t *const buf,
                 const unsigned idx, const char *const name, char *const err,
                 const size_t err_size) {
    static const char *const planes[3] = {"Y", "Cb", "Cr"};
    if (f->width != u->fmt.width || f->height != u->fmt.height || f->format != u->pix_fmt) {
        snprintf(err, err_size,
                 "frame %u of %s is %dx%d %s, its first frame %dx%d %s: psnrhvs scores one size "
                 "and pixel format per input",
                 idx, name, f->width, f->height, av_get_pix_fmt_name((enum AVPixelFormat)f->format),
                 u->fmt.width, u->fmt.height, av_get_pix_fmt_name((enum AVPixelFormat)u->pix_fmt));
        return -1;
    }
    uint8_t *dst = buf;
    for (int p = 0; p < u->geo.num_planes; p++) {
        const int w = u->geo.stored_w[p], h = u->geo.stored_h[p];
        int res;
        if (p && u->semi) {
            const int off = ((p == 2) != u->chroma_swap) ? u->bytes : 0;
            res = copy_plane(u, dst, f->data[1], f->linesize[1], w, h, 2, off);
        } else {
            res = copy_plane(u, dst, f->data[p], f->linesize[p], w, h, 1, 0);
        }
        if (res < 0) {
            snprintf(err, err_size,
                     "frame %u of %s: a %s sample of %s has bits set below its %d high bits: not "
                     "%d-bit samples moved up",
                     idx, name, planes[p], av_get_pix_fmt_name((enum AVPixelFormat)u->pix_fmt),
                     u->fmt.bitdepth, u->fmt.bitdepth);
            return -1;
        }
        dst += u->geo.plane_bytes[p];
    }
    return 0;
}
