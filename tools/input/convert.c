/*
 * psnrhvs: the explicit conversions of an input. Nothing here runs unless a
 * flag asks for it: --common_bitdepth shifts the lower-depth side up (x << n,
 * what the AOM CTC asks for an 8-bit source against a 10-bit encode), --scale
 * scales the distorted to the reference size with libswscale.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/convert.h"

#if HAVE_FFMPEG
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

#include "input/ffmpeg.h"
#endif

/* libswscale's names (ffmpeg -sws_flags), bicubic first: the default. */
static const struct {
    const char *name;
    int flag;
} algos[] = {
#if HAVE_FFMPEG
    {"bicubic", SWS_BICUBIC}, {"bilinear", SWS_BILINEAR}, {"fast_bilinear", SWS_FAST_BILINEAR},
    {"neighbor", SWS_POINT},  {"area", SWS_AREA},         {"bicublin", SWS_BICUBLIN},
    {"gauss", SWS_GAUSS},     {"sinc", SWS_SINC},         {"lanczos", SWS_LANCZOS},
    {"spline", SWS_SPLINE},   {"experimental", SWS_X},
#else
    {"bicubic", 0}, {"bilinear", 0}, {"fast_bilinear", 0}, {"neighbor", 0},
    {"area", 0},    {"bicublin", 0}, {"gauss", 0},         {"sinc", 0},
    {"lanczos", 0}, {"spline", 0},   {"experimental", 0},
#endif
};
#define NUM_ALGOS ((int)(sizeof(algos) / sizeof(algos[0])))

int scale_algo(const char *const name) {
    for (int i = 0; i < NUM_ALGOS; i++)
        if (!strcmp(name, algos[i].name)) return i + 1;
    return -1;
}

const char *scale_algo_name(const int algo) {
    return algo >= 1 && algo <= NUM_ALGOS ? algos[algo - 1].name : "?";
}

const char *scale_algo_list(void) {
    static char list[256];
    if (!list[0])
        for (int i = 0; i < NUM_ALGOS; i++)
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                     algos[i].name);
    return list;
}

int scale_available(void) {
#if HAVE_FFMPEG
    return 1;
#else
    return 0;
#endif
}

struct Converter {
    InputFormat in, out;
    PlaneGeometry gin, gout;
    int shift; ///< bits to move samples up
#if HAVE_FFMPEG
    struct SwsContext *sws;
    uint8_t *tmp; ///< the scaled picture at the input's depth, when a shift follows
    PsnrHvsPicture tmp_pic;
#endif
};

#if HAVE_FFMPEG
static enum AVPixelFormat av_format(const InputFormat *const f) {
    static const enum AVPixelFormat tbl[4][3] = {
        [PSNRHVS_PIXEL_LAYOUT_I420] = {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV420P10,
                                       AV_PIX_FMT_YUV420P12},
        [PSNRHVS_PIXEL_LAYOUT_I422] = {AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV422P10,
                                       AV_PIX_FMT_YUV422P12},
        [PSNRHVS_PIXEL_LAYOUT_I444] = {AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUV444P10,
                                       AV_PIX_FMT_YUV444P12},
        [PSNRHVS_PIXEL_LAYOUT_I400] = {AV_PIX_FMT_GRAY8, AV_PIX_FMT_GRAY10, AV_PIX_FMT_GRAY12},
    };
    return tbl[f->layout][f->bitdepth == 8 ? 0 : f->bitdepth == 10 ? 1 : 2];
}
#endif

int converter_open(Converter **const out_c, const InputFormat *const in,
                   const InputFormat *const out, const int algo, char *const err,
                   const size_t err_size) {
    *out_c = NULL;
    if (in->layout != out->layout || in->bitdepth > out->bitdepth) {
        snprintf(err, err_size, "cannot convert %s %d-bit to %s %d-bit", layout_name(in->layout),
                 in->bitdepth, layout_name(out->layout), out->bitdepth);
        return -1;
    }
    const int scale = in->width != out->width || in->height != out->height;
    if (scale && !algo) {
        snprintf(err, err_size, "a %dx%d input cannot be used as %dx%d without --scale", in->width,
                 in->height, out->width, out->height);
        return -1;
    }
    if (scale && !scale_available()) {
        snprintf(err, err_size,
                 "--scale needs FFmpeg's libswscale, and psnrhvs was built without FFmpeg");
        return -1;
    }
    Converter *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    c->in = *in;
    c->out = *out;
    c->shift = out->bitdepth - in->bitdepth;
    if (plane_geometry(in, &c->gin) < 0 || plane_geometry(out, &c->gout) < 0) {
        snprintf(err, err_size, "invalid frame geometry");
        converter_close(&c);
        return -1;
    }
#if HAVE_FFMPEG
    if (scale) {
        ffmpeg_log_init();
        /* Exact C code paths (bitexact, accurate rounding): the same samples on
         * every CPU, and the same as ffmpeg -vf scale=W:H:flags=ALGO+accurate_rnd+bitexact. */
        c->sws = sws_getContext(
            in->width, in->height, av_format(in), out->width, out->height, av_format(in),
            algos[algo - 1].flag | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
        if (!c->sws) {
            snprintf(err, err_size, "libswscale cannot scale %dx%d to %dx%d", in->width, in->height,
                     out->width, out->height);
            converter_close(&c);
            return -1;
        }
        if (c->shift) {
            InputFormat mid = *out;
            mid.bitdepth = in->bitdepth;
            PlaneGeometry gm;
            if (plane_geometry(&mid, &gm) < 0 || !(c->tmp = malloc(gm.frame_bytes))) {
                snprintf(err, err_size, "out of memory");
                converter_close(&c);
                return -1;
            }
            psnrhvs_picture_layout(&gm, c->tmp, &c->tmp_pic);
            c->gin = gm; /* the shift reads the scaled picture */
        }
    }
#endif
    *out_c = c;
    return 0;
}

int converter_run(Converter *const c, const PsnrHvsPicture *const src,
                  const PsnrHvsPicture *const dst) {
    const PsnrHvsPicture *from = src;
#if HAVE_FFMPEG
    if (c->sws) {
        const PsnrHvsPicture *const to = c->shift ? &c->tmp_pic : dst;
        const uint8_t *sp[4] = {0};
        uint8_t *dp[4] = {0};
        int ss[4] = {0}, ds[4] = {0};
        for (int p = 0; p < c->gout.num_planes; p++) {
            sp[p] = src->data[p];
            ss[p] = (int)src->stride[p];
            dp[p] = (uint8_t *)(uintptr_t)to->data[p];
            ds[p] = (int)to->stride[p];
        }
        if (sws_scale(c->sws, sp, ss, 0, c->in.height, dp, ds) != c->out.height) return -1;
        if (!c->shift) return 0;
        from = &c->tmp_pic;
    }
#endif
    if (c->shift) return psnrhvs_picture_shift(&c->out, c->in.bitdepth, from, dst) < 0 ? -1 : 0;
    /* Same size and depth: a copy (not used by the readers, which skip the converter). */
    for (int p = 0; p < c->gout.num_planes; p++)
        for (int y = 0; y < c->gout.stored_h[p]; y++)
            memcpy((uint8_t *)(uintptr_t)dst->data[p] + y * dst->stride[p],
                   (const uint8_t *)from->data[p] + y * from->stride[p],
                   (size_t)c->gout.stored_w[p] * c->gout.bytes_per_sample);
    return 0;
}

void converter_close(Converter **const c_p) {
    Converter *const c = *c_p;
    if (!c) return;
#if HAVE_FFMPEG
    sws_freeContext(c->sws);
    free(c->tmp);
#endif
    free(c);
    *c_p = NULL;
}
