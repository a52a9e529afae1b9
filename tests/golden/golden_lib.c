/*
 * Golden test through the library API: scores a raw .yuv pair and compares
 * every per-frame raw plane score and dB value with libvmaf's, bit for bit.
 * usage: golden_lib <golden.json> <data dir> [scalar|auto] [threads]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s golden.json datadir [isa] [threads]\n", argv[0]);
        return 2;
    }
    Fixture fx;
    const int r = fixture_load_golden(&fx, argv[1], argv[2]);
    if (r) {
        if (r > 0) fprintf(stderr, "not a raw pair\n");
        return 1;
    }
    PsnrHvsSettings s = fx.s;
    if (argc > 3 && !strcmp(argv[3], "scalar")) s.isa = PSNRHVS_ISA_SCALAR;
    if (argc > 4) s.threads = atoi(argv[4]);

    PsnrHvsContext *c;
    if (psnrhvs_open(&c, &s)) return 1;
    int failures = 0;
    for (int f = 0; f < fx.frames; f++) {
        const PsnrHvsPicture pr = fixture_ref(&fx, f), pd = fixture_dist(&fx, f);
        PsnrHvsScore sc;
        if (psnrhvs_score(c, &pr, &pd, &sc)) return 1;
        failures += fixture_check_golden(&fx, f, &sc, fx.name);
    }
    psnrhvs_close(&c);
    printf("%s: %d frames, %d mismatches\n", argv[1], fx.frames, failures);
    fixture_free(&fx);
    return failures != 0;
}
