/*
 * The golden fixtures through one CPU path: `golden_isa <isa>[:<sum>] <threads>
 * <frames_in_flight> <data dir> <golden.json>...` with isa scalar, c, avx2,
 * avx512 or auto, and the plane sum (test hook) chain, engine or auto (the
 * default). Frames go through psnrhvs_send/receive with up to
 * frames_in_flight queued; every raw plane score and dB value must equal
 * libvmaf's bit for bit. Exits 77 when the CPU or the build lacks the ISA.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "fixture.h"
#include "test_hooks.h"

/* 0 pass, 1 fail, 77 skip */
static int run_fixture(const char *json_path, const char *datadir, const char *isa,
                       const int threads, const int in_flight) {
    Fixture fx;
    const int r = fixture_load_golden(&fx, json_path, datadir);
    if (r > 0) return 0; /* y4m fixtures: the same pictures as their yuv twins */
    if (r < 0) return 1;

    PsnrHvsSettings s = fx.s;
    s.threads = threads;
    s.frames_in_flight = in_flight;
    psnrhvs_set_cpu_flags_mask(~0u);
    if (!strcmp(isa, "scalar"))
        s.isa = PSNRHVS_ISA_SCALAR;
    else if (!strcmp(isa, "avx2"))
        s.isa = PSNRHVS_ISA_AVX2;
    else if (!strcmp(isa, "avx512"))
        s.isa = PSNRHVS_ISA_AVX512;
    else if (!strcmp(isa, "c"))
        psnrhvs_set_cpu_flags_mask(0); /* auto over no SIMD flag: the C kernels */

    PsnrHvsContext *c;
    const int err = psnrhvs_open(&c, &s);
    if (err == PSNRHVS_ERR(ENOSYS)) {
        printf("%s: isa %s unavailable here, skipped\n", json_path, isa);
        fixture_free(&fx);
        return 77;
    }
    if (err) return 1;
    int failures = 0;
    if (strcmp(isa, "auto") && strcmp(psnrhvs_isa_name(c), isa)) {
        printf("%s: asked for isa %s, the context runs %s\n", json_path, isa, psnrhvs_isa_name(c));
        failures++;
    }
    PsnrHvsScore *sc = calloc((size_t)fx.frames, sizeof(*sc));
    if (!sc || fixture_score_queued(c, &fx, sc)) return 1;
    for (int f = 0; f < fx.frames; f++) failures += fixture_check_golden(&fx, f, &sc[f], json_path);
    psnrhvs_close(&c);
    printf("%s: isa %s, %d threads, %d in flight: %d frames, %d mismatches\n", json_path, isa,
           threads, in_flight, fx.frames, failures);
    free(sc);
    fixture_free(&fx);
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr,
                "usage: %s isa[:chain|engine|auto] threads frames_in_flight datadir "
                "golden.json...\n",
                argv[0]);
        return 1;
    }
    char *const sum = strchr(argv[1], ':');
    if (sum) {
        *sum = '\0';
        if (!strcmp(sum + 1, "chain"))
            psnrhvs_test_set_cpu_sum(PSNRHVS_TEST_CPU_SUM_CHAIN);
        else if (!strcmp(sum + 1, "engine"))
            psnrhvs_test_set_cpu_sum(PSNRHVS_TEST_CPU_SUM_ENGINE);
        else if (strcmp(sum + 1, "auto")) {
            fprintf(stderr, "unknown plane sum %s\n", sum + 1);
            return 1;
        }
    }
    int status = 0, skipped = 0, run = 0;
    for (int i = 5; i < argc; i++) {
        const int r = run_fixture(argv[i], argv[4], argv[1], atoi(argv[2]), atoi(argv[3]));
        if (r == 77)
            skipped++;
        else
            run++, status |= r;
    }
    if (!run && skipped) return 77;
    return status;
}
