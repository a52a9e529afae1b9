/*
 * A program built against the installed library only (tests/install): scores
 * a raw YUV pair through the public API and compares each frame's raw f32
 * plane scores, bit for bit, with the hex floats of a golden file.
 *   consumer REF DIST WIDTH HEIGHT 420|422|444|400 BITDEPTH FRAMES RAW...
 * RAW: the expected raw plane scores (%a), frame after frame.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

static int fail(const char *const what, const char *const arg) {
    fprintf(stderr, "consumer: %s%s\n", what, arg);
    return 1;
}

static uint32_t bits(const float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

int main(int argc, char **argv) {
    if (argc < 8) return fail("usage: REF DIST WIDTH HEIGHT FORMAT BITDEPTH FRAMES RAW...", "");
    /* The header and the library it finds at run time must be one version. */
    const unsigned api = (PSNRHVS_API_VERSION_MAJOR << 16) | (PSNRHVS_API_VERSION_MINOR << 8) |
                         PSNRHVS_API_VERSION_PATCH;
    if (strcmp(psnrhvs_version(), PSNRHVS_VERSION_STRING) || psnrhvs_version_api() != api)
        return fail("header and library versions differ: library ", psnrhvs_version());

    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = atoi(argv[3]);
    s.height = atoi(argv[4]);
    s.bitdepth = atoi(argv[6]);
    const int frames = atoi(argv[7]);
    const char *const format = argv[5];
    int cw = (s.width + 1) / 2, ch = (s.height + 1) / 2; /* stored chroma size */
    if (!strcmp(format, "420")) {
        s.layout = PSNRHVS_PIXEL_LAYOUT_I420;
    } else if (!strcmp(format, "422")) {
        s.layout = PSNRHVS_PIXEL_LAYOUT_I422, ch = s.height;
    } else if (!strcmp(format, "444")) {
        s.layout = PSNRHVS_PIXEL_LAYOUT_I444, cw = s.width, ch = s.height;
    } else if (!strcmp(format, "400")) {
        s.layout = PSNRHVS_PIXEL_LAYOUT_I400, cw = ch = 0;
    } else {
        return fail("unknown format ", format);
    }
    const int planes = s.layout == PSNRHVS_PIXEL_LAYOUT_I400 ? 1 : 3;
    if (frames < 1 || argc != 8 + frames * planes)
        return fail("expected one raw score per plane and frame", "");

    /* Files are little-endian, as the library's native order on this host. */
    const size_t bps = s.bitdepth > 8 ? 2 : 1;
    const size_t luma = (size_t)s.width * s.height * bps, chroma = (size_t)cw * ch * bps;
    const size_t frame_size = luma + 2 * chroma;
    unsigned char *const buf = malloc(2 * frame_size);
    FILE *const ref = fopen(argv[1], "rb"), *const dist = fopen(argv[2], "rb");
    PsnrHvsContext *c = NULL;
    if (!buf || !ref || !dist) return fail("cannot read the pair ", argv[1]);
    const int err = psnrhvs_open(&c, &s);
    if (err < 0) return fail("psnrhvs_open failed", "");

    int bad = 0;
    for (int f = 0; f < frames; f++) {
        unsigned char *const r = buf, *const d = buf + frame_size;
        if (fread(r, 1, frame_size, ref) != frame_size ||
            fread(d, 1, frame_size, dist) != frame_size)
            return fail("short file ", argv[1]);
        const PsnrHvsPicture pr = {
            {r, r + luma, r + luma + chroma},
            {(ptrdiff_t)(s.width * bps), (ptrdiff_t)(cw * bps), (ptrdiff_t)(cw * bps)}};
        PsnrHvsPicture pd = pr;
        for (int p = 0; p < 3; p++) pd.data[p] = d + ((const unsigned char *)pr.data[p] - r);
        PsnrHvsScore score;
        if (psnrhvs_score(c, &pr, &pd, &score) < 0) return fail("psnrhvs_score failed", "");
        for (int p = 0; p < planes; p++) {
            const char *const want = argv[8 + f * planes + p];
            char *end;
            const float expected = (float)strtod(want, &end);
            const int same = *end == 0 && bits(score.raw[p]) == bits(expected);
            printf("frame %d plane %d: %a %s %s\n", f, p, (double)score.raw[p],
                   same ? "==" : "!=", want);
            bad |= !same;
        }
    }
    psnrhvs_close(&c);
    fclose(ref);
    fclose(dist);
    free(buf);
    printf("%s, psnrhvs %s\n", bad ? "DIFFERENT bits" : "same bits", psnrhvs_version());
    return bad;
}
