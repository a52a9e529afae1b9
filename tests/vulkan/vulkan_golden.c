/*
 * Golden and parity test of the Vulkan backend: scores raw .yuv golden pairs
 * with frames in flight (send/receive) and compares every raw plane score
 * and dB value with libvmaf's (golden/), the mask_product=exact variant's
 * (golden-exact/, chosen by the JSON) or the stress pairs', and every score
 * with the CPU backend's (scalar, synchronous), bit for bit. All fixtures in
 * one process: the device and its compiled kernels are made once.
 * usage: vulkan_golden <frames_in_flight> <golden.json>...
 * (each JSON's pair lies in the folder above it)
 * Exits 77 (skip) when no Vulkan device is usable. PSNRHVS_VULKAN_DEVICE
 * picks the device (default 0: the first GPU, else a CPU device).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"

/* 0 same bits, 1 a mismatch or an error, 77 no device. */
static int run(const char *const json, const int in_flight) {
    Fixture fx;
    if (fixture_load_golden(&fx, json, NULL)) {
        fprintf(stderr, "cannot read a raw pair from %s\n", json);
        return 1;
    }
    PsnrHvsSettings s = fx.s;
    PsnrHvsContext *cpu, *dev;
    s.backend = PSNRHVS_BACKEND_CPU;
    s.isa = PSNRHVS_ISA_SCALAR;
    if (psnrhvs_open(&cpu, &s)) return 1;
    s.backend = PSNRHVS_BACKEND_VULKAN;
    s.isa = PSNRHVS_ISA_AUTO;
    s.frames_in_flight = in_flight;
    if (getenv("PSNRHVS_VULKAN_DEVICE")) s.device = atoi(getenv("PSNRHVS_VULKAN_DEVICE"));
    const int err = psnrhvs_open(&dev, &s);
    if (err == PSNRHVS_ERR(ENODEV) && !getenv("PSNRHVS_VULKAN_DEVICE")) {
        psnrhvs_close(&cpu);
        fixture_free(&fx);
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
        failures += fixture_check_golden(&fx, f, &got[f], fx.name);
        if (!scores_same_bits(&got[f], &want_cpu[f]) ||
            got[f].num_planes != want_cpu[f].num_planes) {
            printf("%s frame %d: vulkan %a %a %a, cpu %a %a %a\n", fx.name, f,
                   (double)got[f].raw[0], (double)got[f].raw[1], (double)got[f].raw[2],
                   (double)want_cpu[f].raw[0], (double)want_cpu[f].raw[1],
                   (double)want_cpu[f].raw[2]);
            failures++;
        }
    }
    psnrhvs_close(&dev);
    psnrhvs_close(&cpu);
    printf("%s (vulkan, %s product): %d frames, %d mismatches\n", fx.name,
           fx.s.mask_product == PSNRHVS_MASK_PRODUCT_EXACT ? "exact" : "f32", fx.frames, failures);
    free(got);
    free(want_cpu);
    fixture_free(&fx);
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s frames_in_flight golden.json...\n", argv[0]);
        return 2;
    }
    const int in_flight = atoi(argv[1]);
    int failed = 0;
    for (int i = 2; i < argc; i++) {
        const int r = run(argv[i], in_flight);
        if (r == 77) {
            printf("SKIP: no usable Vulkan device\n");
            return 77;
        }
        failed += r != 0;
    }
    printf("%d fixtures, %d failed\n", argc - 2, failed);
    return failed != 0;
}
