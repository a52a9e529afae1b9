/*
 * Fuzz target: the CLI's pair reader (tools/input/pair_reader.c, its thread,
 * the Y4M and raw readers and the sample range check) on a reference and a
 * distorted input from memory, with the frame selection options taken from
 * the input:
 *
 *   byte 0     bit 0: reference is raw (named .yuv; else .y4m), bit 1: the
 *              distorted; bits 2-3: raw layout (420, 422, 444, 400);
 *              bits 4-5: raw depth (8, 10, 12, 10)
 *   byte 1, 2  raw width, height: 1 + byte % 64
 *   byte 3, 4  --frame_skip_ref, --frame_skip_dist: byte % 8
 *   byte 5     --frame_cnt: byte % 8 (0: all)
 *   byte 6     --subsample: byte % 8 (0 and 1: every frame, as vmaf)
 *   byte 7, 8  length of the reference, little endian (cut to what is left)
 *   then       the reference's bytes, then the distorted's
 *
 * Formats are resolved as the CLI does (a raw side takes a Y4M side's
 * format). Checked: pairs come numbered 0, 1, 2... without gaps, never more
 * than --frame_cnt; every sample handed out is within the bit depth; an error
 * comes with a message; and for two raw inputs that end cleanly, the number
 * of pairs is exactly what the file sizes and options give.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "input/input.h"
#include "input/pair_reader.h"

#define HEADER_BYTES 9

const char fuzz_target_name[] = "pair";

static int same_format(const InputFormat *const a, const InputFormat *const b) {
    return a->width == b->width && a->height == b->height && a->layout == b->layout &&
           a->bitdepth == b->bitdepth;
}

/* Every sample of the scored part of each plane within the bit depth. */
static void check_samples(const PsnrHvsPicture *const pic, const PlaneGeometry *const g,
                          const int bitdepth, const FuzzOutcome *const r) {
    for (int p = 0; p < g->num_planes; p++) {
        if (!pic->data[p]) fuzz_broken("a plane without data", r);
        if (g->bytes_per_sample == 1) continue;
        for (int y = 0; y < g->stored_h[p]; y++) {
            const uint16_t *const row =
                (const uint16_t *)(const void *)((const uint8_t *)pic->data[p] +
                                                 (ptrdiff_t)y * pic->stride[p]);
            for (int x = 0; x < g->stored_w[p]; x++)
                if (row[x] >> bitdepth) fuzz_broken("a sample above the bit depth passed", r);
        }
    }
}

static long long whole_frames(const size_t bytes, const size_t frame_bytes) {
    return (long long)(bytes / frame_bytes);
}

void fuzz_target_run(const uint8_t *const data, const size_t size, FuzzOutcome *const r) {
    memset(r, 0, sizeof(*r));
    if (size < HEADER_BYTES) {
        snprintf(r->err, sizeof(r->err), "input shorter than the %d-byte header", HEADER_BYTES);
        return;
    }
    static const enum PsnrHvsPixelLayout layouts[4] = {
        PSNRHVS_PIXEL_LAYOUT_I420, PSNRHVS_PIXEL_LAYOUT_I422, PSNRHVS_PIXEL_LAYOUT_I444,
        PSNRHVS_PIXEL_LAYOUT_I400};
    static const int depths[4] = {8, 10, 12, 10};
    const int raw[2] = {data[0] & 1, (data[0] >> 1) & 1};
    const InputFormat raw_fmt = {
        .width = 1 + data[1] % 64,
        .height = 1 + data[2] % 64,
        .layout = layouts[(data[0] >> 2) & 3],
        .bitdepth = depths[(data[0] >> 4) & 3],
    };
    const PairReaderSettings prs = {
        .skip_ref = data[3] % 8u,
        .skip_dist = data[4] % 8u,
        .frame_cnt = data[5] % 8u,
        .quiet = 1,
    };
    const unsigned subsample = data[6] % 8u ? data[6] % 8u : 1;
    size_t ref_len = (size_t)data[7] | (size_t)data[8] << 8;
    const size_t body = size - HEADER_BYTES;
    if (ref_len > body) ref_len = body;
    const uint8_t *const ref_data = data + HEADER_BYTES, *const dist_data = ref_data + ref_len;
    const size_t dist_len = body - ref_len;

    Input *in[2] = {NULL, NULL};
    PairReader *pr = NULL;
    char err[512];
    const char *const names[2] = {raw[0] ? "ref.yuv" : "ref.y4m", raw[1] ? "dist.yuv" : "dist.y4m"};
    const uint8_t *const bytes[2] = {ref_data, dist_data};
    const size_t lens[2] = {ref_len, dist_len};
    for (int i = 0; i < 2; i++) {
        if (input_open_mem(&in[i], names[i], bytes[i], lens[i], err, sizeof(err)) < 0) {
            snprintf(r->err, sizeof(r->err), "%s", err);
            if (!r->err[0]) fuzz_broken("an input rejected without a message", r);
            goto end;
        }
    }
    input_set_role(in[0], "reference");
    input_set_role(in[1], "distorted");

    /* The CLI's resolution: a Y4M side's format wins over the raw options. */
    InputFormat fmt[2];
    const int has[2] = {input_has_format(in[0], &fmt[0]), input_has_format(in[1], &fmt[1])};
    if (!has[0]) fmt[0] = has[1] ? fmt[1] : raw_fmt;
    if (!has[1]) fmt[1] = fmt[0];
    if (!same_format(&fmt[0], &fmt[1])) {
        snprintf(r->err, sizeof(r->err), "reference and distorted differ");
        goto end;
    }
    PlaneGeometry g;
    if (plane_geometry(&fmt[0], &g) < 0) fuzz_broken("an accepted format has no geometry", r);
    r->opened = 1;
    if (g.frame_bytes > FUZZ_MAX_FRAME_BYTES) {
        r->capped = 1;
        goto end;
    }
    if (input_set_format(in[0], &fmt[0]) < 0 || input_set_format(in[1], &fmt[1]) < 0)
        fuzz_broken("cannot set a valid format", r);
    if (pair_reader_open(&pr, in[0], in[1], &prs) < 0)
        fuzz_broken("cannot open the pair reader on small frames", r);

    FramePair fp;
    int res = 0;
    r->status = 1;
    while (r->frames < FUZZ_MAX_FRAMES && (res = pair_reader_next(pr, &fp)) > 0) {
        if (fp.idx != (unsigned)r->frames) fuzz_broken("pairs out of order or with a gap", r);
        /* Only the pairs --subsample scores are looked at, as in the CLI. */
        if (fp.idx % subsample == 0) {
            check_samples(fp.ref, &g, fmt[0].bitdepth, r);
            check_samples(fp.dist, &g, fmt[1].bitdepth, r);
        }
        pair_reader_release(pr);
        r->frames++;
    }
    if (r->frames == FUZZ_MAX_FRAMES) goto end; /* closing with the reader busy is tested too */
    r->status = res;
    if (res < 0) {
        snprintf(r->err, sizeof(r->err), "%s", pair_reader_error(pr));
        if (!r->err[0]) fuzz_broken("a read error without a message", r);
    } else if (res != 0) {
        fuzz_broken("next returned neither 1, 0 nor -1", r);
    }
    if (prs.frame_cnt && (unsigned)r->frames > prs.frame_cnt) fuzz_broken("past --frame_cnt", r);
    /* Two raw inputs without a Y4M magic: the count follows from the sizes. */
    if (!res && !has[0] && !has[1]) {
        long long n[2] = {whole_frames(ref_len, g.frame_bytes) - prs.skip_ref,
                          whole_frames(dist_len, g.frame_bytes) - prs.skip_dist};
        long long want = n[0] < n[1] ? n[0] : n[1];
        if (want < 0) want = 0;
        if (prs.frame_cnt && want > prs.frame_cnt) want = prs.frame_cnt;
        if (r->frames != want) fuzz_broken("raw pairs: not the count the sizes give", r);
    }

end:
    pair_reader_close(&pr);
    input_close(&in[0]);
    input_close(&in[1]);
}
