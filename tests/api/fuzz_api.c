/*
 * libFuzzer target for the public API: fuzzed settings and pictures (sizes,
 * layouts, bit depths, strides, samples in and out of range), scored by the
 * CPU backend's fast paths (threads, frames in flight) and compared bit for
 * bit with the scalar reference; both must agree on errors too. Built with
 * -fsanitize=fuzzer where clang has it (tests/run_sanitizers.sh); otherwise
 * its main() replays the files given (the committed corpus) once each.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

static void quiet(void *cookie, const char *msg) {
    (void)cookie, (void)msg;
}

typedef struct Input {
    const uint8_t *p;
    size_t n;
} Input;

static unsigned take(Input *in, unsigned range) {
    unsigned v = 0;
    if (in->n) v = *in->p++, in->n--;
    return range ? v % range : v;
}

#define MAX_FRAMES 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Input in = {data, size};
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.logger.callback = quiet;
    s.width = 1 + (int)take(&in, 48);
    s.height = 1 + (int)take(&in, 40);
    s.layout = (enum PsnrHvsPixelLayout)take(&in, 4);
    static const int depths[3] = {8, 10, 12};
    s.bitdepth = depths[take(&in, 3)];
    s.enable_chroma = (int)take(&in, 4) != 0;
    s.mask_product = (enum PsnrHvsMaskProduct)take(&in, 2);
    const int frames = 1 + (int)take(&in, MAX_FRAMES);
    const int pad = (int)take(&in, 5);
    /* Out-of-range samples only now and then, so that most inputs score. */
    const int wild = take(&in, 8) == 0;

    /* Pictures from the remaining bytes (repeated when short). */
    const int bps = s.bitdepth > 8 ? 2 : 1;
    const unsigned max = (1u << s.bitdepth) - 1;
    const size_t stride = ((size_t)s.width + (size_t)pad) * bps;
    const size_t plane = stride * (size_t)s.height;
    uint8_t *const buf = malloc(plane * 3 * 2 * MAX_FRAMES);
    if (!buf) return 0;
    for (size_t i = 0; i < plane * 3 * 2 * MAX_FRAMES; i += bps) {
        unsigned v = in.n ? in.p[i % in.n] | (unsigned)in.p[(i + 1) % in.n] << 8 : (unsigned)i;
        if (!wild) v = bps == 1 ? v & 0xff : v % (max + 1);
        if (bps == 1)
            buf[i] = (uint8_t)v;
        else
            memcpy(buf + i, &(uint16_t){(uint16_t)v}, 2);
    }
    PsnrHvsPicture pics[MAX_FRAMES][2];
    for (int f = 0; f < MAX_FRAMES; f++)
        for (int k = 0; k < 2; k++)
            for (int p = 0; p < 3; p++) {
                pics[f][k].data[p] = buf + ((size_t)f * 6 + (size_t)k * 3 + (size_t)p) * plane;
                pics[f][k].stride[p] = (ptrdiff_t)stride;
            }

    /* The scalar reference, one frame at a time. */
    PsnrHvsScore want[MAX_FRAMES];
    int want_err[MAX_FRAMES];
    PsnrHvsSettings r = s;
    r.isa = PSNRHVS_ISA_SCALAR;
    r.threads = 1;
    PsnrHvsContext *c;
    const int open_err = psnrhvs_open(&c, &r);
    if (open_err) {
        /* Then every path must refuse the same settings the same way. */
        PsnrHvsSettings t = s;
        t.threads = 2;
        PsnrHvsContext *d;
        if (psnrhvs_open(&d, &t) != open_err) abort();
        free(buf);
        return 0;
    }
    for (int f = 0; f < frames; f++)
        want_err[f] = psnrhvs_score(c, &pics[f][0], &pics[f][1], &want[f]);
    psnrhvs_close(&c);

    /* The fast paths: threads and frames in flight from the input. */
    PsnrHvsSettings t = s;
    t.threads = 1 + (int)take(&in, 3);
    t.frames_in_flight = (int)take(&in, 4);
    if (psnrhvs_open(&c, &t)) abort();
    int sent = 0, got = 0;
    while (got < frames) {
        if (sent < frames) {
            const int err = psnrhvs_send(c, &pics[sent][0], &pics[sent][1], (uint64_t)sent);
            if (!err) {
                sent++;
                continue;
            }
            if (err != PSNRHVS_ERR(EAGAIN)) abort();
        }
        PsnrHvsScore sc;
        const int err = psnrhvs_receive(c, &sc);
        if (err != want_err[got]) abort();
        if (!err && (sc.tag != (uint64_t)got || memcmp(sc.raw, want[got].raw, sizeof(sc.raw)) ||
                     memcmp(&sc.psnr_hvs, &want[got].psnr_hvs, sizeof(double))))
            abort();
        got++;
    }
    psnrhvs_close(&c);
    free(buf);
    return 0;
}

#ifndef PSNRHVS_LIBFUZZER
/* Without libFuzzer: run each file given once. */
int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        uint8_t buf[1 << 16];
        const size_t n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("fuzz_api: %d inputs replayed, every fast path agreed with the reference\n", argc - 1);
    return 0;
}
#endif
