/*
 * psnrhvs: plane geometry, the formats scored, and a pair's format from what
 * its inputs declare and the options.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file.h"
#include "layout.h"

static const char *layout_name(const enum PsnrHvsPixelLayout layout) {
    const char *const s = psnrhvs_layout_string(layout);
    return s ? s : "?";
}

int psnrhvs_check_bitdepth(const int bitdepth, PsnrHvsFileStatus *const st) {
    if (bitdepth == 8 || bitdepth == 10 || bitdepth == 12) return 0;
    if (bitdepth > 12 && bitdepth <= 16)
        psh_status(st, PSNRHVS_FILE_ERROR_UNSUPPORTED, 0,
                   "bit depth %d is not supported: 13-16 bits are not, because libvmaf's "
                   "psnr_hvs accepts at most 12 bits and its f32 numerics are only defined up "
                   "to 12",
                   bitdepth);
    else
        psh_status(st, PSNRHVS_FILE_ERROR_UNSUPPORTED, 0,
                   "bit depth %d is not supported (expected 8, 10 or 12)", bitdepth);
    return PSNRHVS_ERR(EINVAL);
}

int psnrhvs_check_planes(const PsnrHvsFormat *const fmt, const int enable_chroma,
                         PsnrHvsFileStatus *const st) {
    PsnrHvsGeometry g;
    if (psnrhvs_geometry(fmt, &g) < 0) {
        psh_status(st, PSNRHVS_FILE_ERROR_LIMIT, 0, "invalid frame size %dx%d", fmt->width,
                   fmt->height);
        return PSNRHVS_ERR(EINVAL);
    }
    char msg[256];
    if (psh_check_planes(fmt, &g, enable_chroma, PSH_WORDS_FLAGS, msg, sizeof(msg)) < 0) {
        psh_status(st, PSNRHVS_FILE_ERROR_TOO_SMALL, 0, "%s", msg);
        return PSNRHVS_ERR(EINVAL);
    }
    return 0;
}

int psnrhvs_picture_shift(const PsnrHvsFormat *const fmt, const int from_bitdepth,
                          const PsnrHvsPicture *const src, const PsnrHvsPicture *const dst) {
    PsnrHvsGeometry g;
    if (psnrhvs_geometry(fmt, &g) < 0 || from_bitdepth < 8 || from_bitdepth >= fmt->bitdepth)
        return PSNRHVS_ERR(EINVAL);
    const int shift = fmt->bitdepth - from_bitdepth;
    for (int p = 0; p < g.num_planes; p++) {
        for (int y = 0; y < g.stored_h[p]; y++) {
            const uint8_t *const s = (const uint8_t *)src->data[p] + y * src->stride[p];
            uint8_t *const d = (uint8_t *)(uintptr_t)dst->data[p] + y * dst->stride[p];
            /* memcpy: 16-bit samples of a mapped file may lie at odd addresses */
            for (int x = 0; x < g.stored_w[p]; x++) {
                uint16_t v = s[x];
                if (from_bitdepth > 8) memcpy(&v, s + 2 * x, 2);
                v = (uint16_t)(v << shift);
                memcpy(d + 2 * x, &v, 2);
            }
        }
    }
    return 0;
}

int psnrhvs_colour_compare(const char *const ref_name, const PsnrHvsColour *const a,
                           const char *const dist_name, const PsnrHvsColour *const b,
                           const int error, PsnrHvsFileStatus *const st) {
    const struct {
        const char *what, *x, *y;
    } props[] = {
        {"range", a->range, b->range},
        {"matrix", a->matrix, b->matrix},
        {"primaries", a->primaries, b->primaries},
        {"transfer", a->transfer, b->transfer},
    };
    char diff[512] = "";
    size_t n = 0;
    for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
        if (!props[i].x[0] || !props[i].y[0] || !strcmp(props[i].x, props[i].y)) continue;
        n += (size_t)snprintf(diff + n, n < sizeof(diff) ? sizeof(diff) - n : 0, "%s%s %s vs %s",
                              n ? ", " : "", props[i].what, props[i].x, props[i].y);
    }
    if (!n) return 0;
    if (error) {
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0,
                   "the reference %s and the distorted %s declare different colour: %s "
                   "(--colour_mismatch error; convert one, or leave the option out to score them "
                   "as they are)",
                   ref_name, dist_name, diff);
        return PSNRHVS_ERR(EINVAL);
    }
    psh_status(st, PSNRHVS_FILE_OK, 0,
               "the reference %s and the distorted %s declare different colour: %s; scored as "
               "they are, as libvmaf does (--colour_mismatch error makes it an error)",
               ref_name, dist_name, diff);
    return 1;
}

/* Options given must agree with a declared format, unless scale (size) or
 * common_bitdepth (depth) lets the sides differ: they then describe the raw side. */
static int agrees(const PsnrHvsFormatOptions *const o, const PsnrHvsFormatSide *const side,
                  PsnrHvsFileStatus *const st) {
    const PsnrHvsFormat *const f = &side->format;
    const char *const what = side->declared, *const name = side->name;
    if (o->width && o->width != f->width && !o->scale)
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0, "--width %d does not match %s of %s (W%d)",
                   o->width, what, name, f->width);
    else if (o->height && o->height != f->height && !o->scale)
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0, "--height %d does not match %s of %s (H%d)",
                   o->height, what, name, f->height);
    else if (o->layout >= 0 && o->layout != (int)f->layout)
        psh_status(
            st, PSNRHVS_FILE_ERROR_MISMATCH, 0, "--pixel_format %s does not match %s of %s (%s)",
            layout_name((enum PsnrHvsPixelLayout)o->layout), what, name, layout_name(f->layout));
    else if (o->bitdepth && o->bitdepth != f->bitdepth && !o->common_bitdepth)
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0,
                   "--bitdepth %d does not match %s of %s (%d-bit)", o->bitdepth, what, name,
                   f->bitdepth);
    else
        return 1;
    return 0;
}

/* A raw side: the other side's format, with the options over it. */
static PsnrHvsFormat raw_side(const PsnrHvsFormatOptions *const o, const PsnrHvsFormat *const f) {
    PsnrHvsFormat r = *f;
    if (o->width) r.width = o->width;
    if (o->height) r.height = o->height;
    if (o->layout >= 0) r.layout = (enum PsnrHvsPixelLayout)o->layout;
    if (o->bitdepth) r.bitdepth = o->bitdepth;
    return r;
}

int psnrhvs_format_negotiate(const PsnrHvsFormatOptions *const o, PsnrHvsFormatSide *const ref,
                             PsnrHvsFormatSide *const dist, PsnrHvsFormat *const scored,
                             PsnrHvsFileStatus *const st) {
    if ((ref->declared && !agrees(o, ref, st)) || (dist->declared && !agrees(o, dist, st)))
        return PSNRHVS_ERR(EINVAL);
    PsnrHvsFormat *const rf = &ref->format, *const df = &dist->format;
    if (!ref->declared && !dist->declared) {
        if (!o->width || !o->height) {
            psh_status(st, PSNRHVS_FILE_ERROR_USAGE, 0,
                       "raw input needs --width and --height (or use Y4M files)");
            return PSNRHVS_ERR(EINVAL);
        }
        *rf = (PsnrHvsFormat){
            .width = o->width,
            .height = o->height,
            .layout =
                o->layout >= 0 ? (enum PsnrHvsPixelLayout)o->layout : PSNRHVS_PIXEL_LAYOUT_I420,
            .bitdepth = o->bitdepth ? o->bitdepth : 8,
        };
        *df = *rf;
    } else if (!ref->declared) {
        *rf = raw_side(o, df);
    } else if (!dist->declared) {
        *df = raw_side(o, rf);
    }

    const char *const rn = ref->name, *const dn = dist->name;
    if ((rf->width != df->width || rf->height != df->height) && !o->scale) {
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0,
                   "reference and distorted differ in size: %dx%d (%s) vs %dx%d (%s); "
                   "use --scale to scale the distorted to the reference size",
                   rf->width, rf->height, rn, df->width, df->height, dn);
        return PSNRHVS_ERR(EINVAL);
    }
    if (rf->layout != df->layout) {
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0,
                   "reference and distorted differ in pixel format: %s (%s) vs %s (%s)",
                   layout_name(rf->layout), rn, layout_name(df->layout), dn);
        return PSNRHVS_ERR(EINVAL);
    }
    if (rf->bitdepth != df->bitdepth && !o->common_bitdepth) {
        const int lo = rf->bitdepth < df->bitdepth ? rf->bitdepth : df->bitdepth;
        const int hi = rf->bitdepth > df->bitdepth ? rf->bitdepth : df->bitdepth;
        psh_status(st, PSNRHVS_FILE_ERROR_MISMATCH, 0,
                   "reference and distorted differ in bit depth: %d (%s) vs %d (%s); "
                   "use --common_bitdepth to shift the %d-bit side up to %d bits",
                   rf->bitdepth, rn, df->bitdepth, dn, lo, hi);
        return PSNRHVS_ERR(EINVAL);
    }
    *scored = *rf;
    if (df->bitdepth > scored->bitdepth) scored->bitdepth = df->bitdepth;
    return 0;
}
