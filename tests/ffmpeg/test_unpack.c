/*
 * test_unpack: decoded frames in the layouts that only a GPU decoder or a
 * rawvideo stream gives (FFmpeg 5.1's containers cannot carry P010 raw video):
 * NV12, NV21, P010, P016 with 10- and 12-bit samples, YUV444P16 with 10-bit
 * samples, built here from a raw fixture's planes, must unpack to those very
 * planes, byte for byte; a bit below a moved sample, an RGB or alpha format,
 * a 9-bit format are errors naming the format.
 *   test_unpack DATA_DIR
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>

#include "input/ffmpeg.h"

static int failures, checks;

static void check(const int cond, const char *const what) {
    checks++;
    if (!cond) {
        failures++;
        printf("FAIL: %s\n", what);
    }
}

/* One frame of a raw fixture: planes back to back, 16-bit LE above 8 bits. */
static uint8_t *load(const char *const dir, const char *const name, const size_t bytes) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *const f = fopen(path, "rb");
    uint8_t *const buf = malloc(bytes);
    if (!f || !buf || fread(buf, 1, bytes, f) != bytes) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    return buf;
}

static unsigned sample(const uint8_t *const p, const int bytes, const size_t i) {
    return bytes == 1 ? p[i] : (unsigned)(p[2 * i] | p[2 * i + 1] << 8);
}

static void put(uint8_t *const row, const int bytes, const int x, const unsigned v) {
    if (bytes == 1)
        row[x] = (uint8_t)v;
    else {
        const uint16_t w = (uint16_t)v;
        memcpy(row + 2 * x, &w, 2);
    }
}

/*
 * Build a frame of pix_fmt from planar samples (layout 420 or 444, depth
 * bits), each sample moved up by `up` bits (P010: 6) and `low` ORed in (a bit
 * that must not be there), then unpack it and compare with the planes.
 */
static void run(const char *const what, const uint8_t *const planes, const int w, const int h,
                const int chroma_shift, const int depth, const enum AVPixelFormat pix_fmt,
                const int up, const unsigned low, const int expect_ok) {
    const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get(pix_fmt);
    const int in_bytes = depth > 8 ? 2 : 1;
    const int out_bytes = desc->comp[0].depth + desc->comp[0].shift > 8 ? 2 : 1;
    const int cw = (w + chroma_shift) >> chroma_shift, ch = (h + chroma_shift) >> chroma_shift;
    AVFrame *f = av_frame_alloc();
    f->format = pix_fmt;
    f->width = w;
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) exit(1);
    const uint8_t *const y = planes, *const u = y + (size_t)w * h * in_bytes,
                         *const v = u + (size_t)cw * ch * in_bytes;
    for (int r = 0; r < h; r++)
        for (int x = 0; x < w; x++)
            put(f->data[0] + r * f->linesize[0], out_bytes, x,
                sample(y, in_bytes, (size_t)r * w + x) << up | (r == 3 && x == 5 ? low : 0));
    const int semi = desc->comp[1].plane == desc->comp[2].plane;
    const int swap = semi && desc->comp[2].offset == 0;
    for (int r = 0; r < ch; r++)
        for (int x = 0; x < cw; x++) {
            const unsigned cb = sample(u, in_bytes, (size_t)r * cw + x) << up;
            const unsigned cr = sample(v, in_bytes, (size_t)r * cw + x) << up;
            if (semi) {
                put(f->data[1] + r * f->linesize[1], out_bytes, 2 * x + swap, cb);
                put(f->data[1] + r * f->linesize[1], out_bytes, 2 * x + !swap, cr);
            } else {
                put(f->data[1] + r * f->linesize[1], out_bytes, x, cb);
                put(f->data[2] + r * f->linesize[2], out_bytes, x, cr);
            }
        }
    FrameUnpack un;
    char err[512] = "", msg[700];
    int res = unpack_init(&un, pix_fmt, depth, w, h, "clip", err, sizeof(err));
    uint8_t *const got = res ? NULL : malloc(un.geo.frame_bytes);
    if (!res) res = unpack_frame(&un, f, got, 0, "clip", err, sizeof(err));
    if (expect_ok) {
        snprintf(msg, sizeof(msg), "%s: unpack failed: %s", what, err);
        check(!res, msg);
        if (!res) {
            /* native words against the fixture's little-endian ones */
            const size_t n = un.geo.frame_bytes / in_bytes;
            int same = un.geo.bytes_per_sample == in_bytes;
            for (size_t i = 0; same && i < n; i++)
                same = (in_bytes == 1 ? got[i] : ((const uint16_t *)(const void *)got)[i]) ==
                       sample(planes, in_bytes, i);
            snprintf(msg, sizeof(msg), "%s: planes differ from the fixture", what);
            check(same, msg);
        }
    } else {
        snprintf(msg, sizeof(msg), "%s: accepted, expected an error", what);
        check(res < 0, msg);
        snprintf(msg, sizeof(msg), "%s: message '%s' does not name %s", what, err,
                 av_get_pix_fmt_name(pix_fmt));
        check(strstr(err, av_get_pix_fmt_name(pix_fmt)) != NULL, msg);
        printf("%s: %s\n", what, err);
    }
    free(got);
    av_frame_free(&f);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_unpack DATA_DIR\n");
        return 2;
    }
    const char *const d = argv[1];
    /* 176x144: first frames of the 8-bit, 10-bit, 12-bit 4:2:0 and 10-bit 4:4:4 fixtures */
    const int w = 176, h = 144;
    uint8_t *const p8 = load(d, "yuv420p_176x144_ref.yuv", w * h * 3 / 2);
    uint8_t *const p10 = load(d, "yuv420p10_176x144_ref.yuv", w * h * 3);
    uint8_t *const p12 = load(d, "yuv420p12_176x144_ref.yuv", w * h * 3);
    uint8_t *const q10 = load(d, "yuv444p10_176x144_ref.yuv", w * h * 6);
    /* odd size: 97x61, chroma 49x31 */
    uint8_t *const odd = load(d, "yuv420p_97x61_ref.yuv", 97 * 61 + 2 * 49 * 31);

    run("nv12", p8, w, h, 1, 8, AV_PIX_FMT_NV12, 0, 0, 1);
    run("nv21", p8, w, h, 1, 8, AV_PIX_FMT_NV21, 0, 0, 1);
    run("nv12 97x61", odd, 97, 61, 1, 8, AV_PIX_FMT_NV12, 0, 0, 1);
    run("yuv420p", p8, w, h, 1, 8, AV_PIX_FMT_YUV420P, 0, 0, 1);
    run("yuvj420p", p8, w, h, 1, 8, AV_PIX_FMT_YUVJ420P, 0, 0, 1);
    run("p010", p10, w, h, 1, 10, AV_PIX_FMT_P010LE, 6, 0, 1);
    run("p016 holding 10 bits (NVDEC)", p10, w, h, 1, 10, AV_PIX_FMT_P016LE, 6, 0, 1);
    run("p016 holding 12 bits (NVDEC)", p12, w, h, 1, 12, AV_PIX_FMT_P016LE, 4, 0, 1);
    run("yuv420p10", p10, w, h, 1, 10, AV_PIX_FMT_YUV420P10LE, 0, 0, 1);
    run("yuv420p12", p12, w, h, 1, 12, AV_PIX_FMT_YUV420P12LE, 0, 0, 1);
    run("yuv444p16 holding 10 bits (NVDEC)", q10, w, h, 0, 10, AV_PIX_FMT_YUV444P16LE, 6, 0, 1);
    run("yuv444p10", q10, w, h, 0, 10, AV_PIX_FMT_YUV444P10LE, 0, 0, 1);
    /* a bit below the moved samples: not P010 data, an error (nothing is rounded away) */
    run("p010 with a low bit set", p10, w, h, 1, 10, AV_PIX_FMT_P010LE, 6, 1, 0);
    run("p016 holding 12 bits with a low bit set", p12, w, h, 1, 12, AV_PIX_FMT_P016LE, 4, 8, 0);
    /* formats psnrhvs does not take as they are */
    FrameUnpack un;
    char err[512];
    static const enum AVPixelFormat refused[] = {
        AV_PIX_FMT_RGB24,    AV_PIX_FMT_GBRP,    AV_PIX_FMT_YUVA420P,  AV_PIX_FMT_YUYV422,
        AV_PIX_FMT_YUV420P9, AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV420P16, AV_PIX_FMT_PAL8};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        const AVPixFmtDescriptor *const desc = av_pix_fmt_desc_get(refused[i]);
        const int res =
            unpack_init(&un, refused[i], desc->comp[0].depth, w, h, "clip", err, sizeof(err));
        char msg[700];
        snprintf(msg, sizeof(msg), "%s accepted, or its message '%s' does not name it", desc->name,
                 err);
        check(res < 0 && strstr(err, desc->name) != NULL, msg);
        printf("%s: %s\n", desc->name, err);
    }
    free(p8), free(p10), free(p12), free(q10), free(odd);
    printf("%d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
