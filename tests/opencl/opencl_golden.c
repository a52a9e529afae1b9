/*
 * Golden and parity test of a device backend: scores a raw .yuv golden pair
 * with frames in flight (send/receive) and compares every raw plane score
 * and dB value with libvmaf's, and every raw score with the CPU backend's,
 * bit for bit.
 * usage: opencl_golden <golden.json> <data dir> <exact_helpers 0|1> [frames_in_flight]
 * Exits 77 (skip) when no OpenCL device is present. PSNRHVS_OPENCL_DEVICE
 * picks the device (default 0), for machines with several platforms.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s golden.json datadir exact_helpers [frames_in_flight]\n",
                argv[0]);
        return 2;
    }
    Fixture fx;
    if (fixture_load_golden(&fx, argv[1], argv[2])) {
        fprintf(stderr, "cannot read a raw pair from %s\n", argv[1]);
        return 1;
    }
    PsnrHvsSettings s = fx.s;
    PsnrHvsContext *cpu, *dev;
    s.backend = PSNRHVS_BACKEND_CPU;
    if (psnrhvs_open(&cpu, &s)) return 1;
    s.backend = PSNRHVS_BACKEND_OPENCL;
    s.exact_helpers = atoi(argv[3]);
    s.frames_in_flight = argc > 4 ? atoi(argv[4]) : 0;
    if (getenv("PSNRHVS_OPENCL_DEVICE")) s.device = atoi(getenv("PSNRHVS_OPENCL_DEVICE"));
    const int err = psnrhvs_open(&dev, &s);
    if (err == PSNRHVS_ERR(ENODEV) && !getenv("PSNRHVS_OPENCL_DEVICE")) {
        printf("SKIP: no OpenCL device\n");
        return 77;
    }
    if (err) return 1;

    PsnrHvsScore *got = calloc((size_t)fx.frames, sizeof(*got));
    PsnrHvsScore *want_cpu = calloc((size_t)fx.frames, sizeof(*want_cpu));
    if (!got || !want_cpu) return 1;
    for (int f = 0; f < fx.frames; f++) {
        const PsnrHvsPicture pr = fixture_ref(&fx, f), pd = fixture_dist(&fx, f);
        if (psnrhvs_score(cpu, &pr, &pd, &want_cpu[f])) return 1;
    }
    /* Keep the device queue full: send until EAGAIN, then receive one. */
    if (fixture_score_queued(dev, &fx, got)) return 1;

    int failures = 0;
    for (int f = 0; f < fx.frames; f++) {
        static const char *const raw_keys[3] = {"raw_y", "raw_cb", "raw_cr"};
        failures += fixture_check_golden(&fx, f, &got[f], fx.name);
        for (int p = 0; p < got[f].num_planes; p++) {
            char what[192];
            snprintf(what, sizeof(what), "%s frame %d %s (opencl vs cpu)", fx.name, f, raw_keys[p]);
            failures += check_bits_f32(what, got[f].raw[p], want_cpu[f].raw[p]);
        }
    }
    psnrhvs_close(&dev);
    psnrhvs_close(&cpu);
    printf("%s (opencl, exact_helpers=%d): %d frames, %d mismatches\n", argv[1], s.exact_helpers,
           fx.frames, failures);
    free(got);
    free(want_cpu);
    fixture_free(&fx);
    return failures != 0;
}
