/*
 * Golden test of the SYCL backend: each raw golden pair scored with frames
 * in flight and compared bit for bit with libvmaf's values (raw f32 plane
 * scores and dB values) and with the CPU backend's scores; then the same
 * pair with the other threshold product, against the CPU backend.
 * usage: sycl_golden <exact_helpers 0|1> <frames_in_flight> <golden.json>...
 * A JSON's .yuv pair lies in the folder above the JSON's (golden/,
 * golden-exact/, stress/golden/, ...); .y4m fixtures are skipped (their
 * pictures are those of a .yuv twin). Exits 77 when no SYCL device is
 * present and none was named; PSNRHVS_SYCL_DEVICE picks the device.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

static int device(void) {
    const char *const d = getenv("PSNRHVS_SYCL_DEVICE");
    return d ? atoi(d) : -1;
}

/* Scores fx with the threshold product mp on the CPU and through SYCL;
 * compares with libvmaf where check_golden. Returns mismatches, -1 on an
 * error, 77 for no device. */
static int run(const Fixture *const fx, const enum PsnrHvsMaskProduct mp, const int exact,
               const int fif, const int check_golden) {
    PsnrHvsSettings s = fx->s;
    s.mask_product = mp;
    PsnrHvsContext *cpu, *dev;
    if (psnrhvs_open(&cpu, &s)) return -1;
    s.backend = PSNRHVS_BACKEND_SYCL;
    s.exact_helpers = exact;
    s.frames_in_flight = fif;
    if (device() >= 0) s.device = device();
    const int err = psnrhvs_open(&dev, &s);
    if (err) {
        psnrhvs_close(&cpu);
        return err == PSNRHVS_ERR(ENODEV) && device() < 0 ? 77 : -1;
    }
    PsnrHvsScore *const got = calloc((size_t)fx->frames, sizeof(*got));
    PsnrHvsScore *const want = calloc((size_t)fx->frames, sizeof(*want));
    int failures = -1;
    if (!got || !want) goto done;
    for (int f = 0; f < fx->frames; f++) {
        const PsnrHvsPicture r = fixture_ref(fx, f), d = fixture_dist(fx, f);
        if (psnrhvs_score(cpu, &r, &d, &want[f])) goto done;
    }
    if (fixture_score_queued(dev, fx, got)) goto done;
    failures = 0;
    const char *const product = mp == PSNRHVS_MASK_PRODUCT_EXACT ? "exact" : "float";
    for (int f = 0; f < fx->frames; f++) {
        char what[256];
        snprintf(what, sizeof(what), "%s (sycl, mask_product %s)", fx->name, product);
        if (check_golden && fx->golden) failures += fixture_check_golden(fx, f, &got[f], what);
        if (!scores_same_bits(&got[f], &want[f])) {
            printf("%s frame %d: sycl %a %a %a, cpu %a %a %a\n", what, f, (double)got[f].raw[0],
                   (double)got[f].raw[1], (double)got[f].raw[2], (double)want[f].raw[0],
                   (double)want[f].raw[1], (double)want[f].raw[2]);
            failures++;
        }
    }
    printf("%s: %d frames, mask_product %s%s, exact_helpers=%d, %d in flight: %d mismatches\n",
           fx->name, fx->frames, product, check_golden ? " (libvmaf's values)" : " (vs cpu)", exact,
           fif, failures);
done:
    free(got);
    free(want);
    psnrhvs_close(&dev);
    psnrhvs_close(&cpu);
    return failures;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s exact_helpers frames_in_flight golden.json...\n", argv[0]);
        return 2;
    }
    const int exact = atoi(argv[1]), fif = atoi(argv[2]);
    int failures = 0, scored = 0;
    for (int i = 3; i < argc; i++) {
        /* The pair's folder: the one above the JSON's. */
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s", argv[i]);
        for (int up = 0; up < 2; up++) {
            char *const slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            else
                snprintf(dir, sizeof(dir), up ? ".." : ".");
        }
        Fixture fx;
        const int loaded = fixture_load_golden(&fx, argv[i], dir);
        if (loaded == 1) continue;
        if (loaded < 0) {
            fprintf(stderr, "cannot read a raw pair for %s\n", argv[i]);
            return 1;
        }
        const enum PsnrHvsMaskProduct golden_mp = fx.s.mask_product;
        const enum PsnrHvsMaskProduct other = golden_mp == PSNRHVS_MASK_PRODUCT_EXACT
                                                  ? PSNRHVS_MASK_PRODUCT_FLOAT
                                                  : PSNRHVS_MASK_PRODUCT_EXACT;
        for (int k = 0; k < 2; k++) {
            const int r = run(&fx, k ? other : golden_mp, exact, fif, k == 0);
            if (r == 77) {
                printf("SKIP: no SYCL device\n");
                fixture_free(&fx);
                return 77;
            }
            failures += r < 0 ? 1 : r;
        }
        scored++;
        fixture_free(&fx);
    }
    printf("%d pairs, %d mismatches\n", scored, failures);
    return failures != 0 || scored == 0;
}
