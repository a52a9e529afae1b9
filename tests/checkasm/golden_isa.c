/*
 * The golden fixtures through one CPU path: `golden_isa [--without=avx512|simd]
 * <isa>[:<sum>] <threads> <frames_in_flight> <golden.json>...` with isa
 * scalar, c, avx2, avx512, neon or auto, and the plane sum (test hook) chain, engine
 * or auto (the default); --without masks CPU flags off (cpu.h), as on a CPU
 * without them. Each JSON's raw pair lies in the folder above it. Frames
 * go through psnrhvs_send/receive with up to frames_in_flight queued; every
 * raw plane score and dB value must equal libvmaf's bit for bit (both
 * threshold products: a golden-exact/ JSON selects the exact one).
 * Exits 77 (skip) when the CPU or the build lacks the ISA, or when no fixture
 * was scored: a test that scored nothing has not passed.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "fixture.h"
#include "test_hooks.h"

enum { SCORED = 0, FAILED = 1, NOT_SCORED = 2, SKIP = 77 };

static unsigned cpu_mask = ~0u;

/* SCORED (every value matched), FAILED, NOT_SCORED (a .y4m fixture: its
 * pictures are those of its .yuv twin) or SKIP (the ISA is unavailable). */
static int run_fixture(const char *json_path, const char *isa, const int threads,
                       const int in_flight) {
    Fixture fx;
    const int r = fixture_load_golden(&fx, json_path, NULL);
    if (r > 0) {
        printf("%s: a .y4m fixture, not scored here\n", json_path);
        return NOT_SCORED;
    }
    if (r < 0) return FAILED;

    PsnrHvsSettings s = fx.s;
    s.threads = threads;
    s.frames_in_flight = in_flight;
    psh_set_cpu_flags_mask(cpu_mask);
    if (!strcmp(isa, "scalar"))
        s.isa = PSNRHVS_ISA_SCALAR;
    else if (!strcmp(isa, "avx2"))
        s.isa = PSNRHVS_ISA_AVX2;
    else if (!strcmp(isa, "avx512"))
        s.isa = PSNRHVS_ISA_AVX512;
    else if (!strcmp(isa, "neon"))
        s.isa = PSNRHVS_ISA_NEON;
    else if (!strcmp(isa, "c"))
        psh_set_cpu_flags_mask(0); /* auto over no SIMD flag: the C kernels */

    PsnrHvsContext *c;
    const int err = psnrhvs_open(&c, &s);
    if (err == PSNRHVS_ERR(ENOSYS)) {
        printf("%s: isa %s unavailable here\n", json_path, isa);
        fixture_free(&fx);
        return SKIP;
    }
    if (err) return FAILED;
    int failures = 0;
    if (strcmp(isa, "auto") && strcmp(psnrhvs_isa_name(c), isa)) {
        printf("%s: asked for isa %s, the context runs %s\n", json_path, isa, psnrhvs_isa_name(c));
        failures++;
    }
    PsnrHvsScore *sc = calloc((size_t)fx.frames, sizeof(*sc));
    if (!sc || fixture_score_queued(c, &fx, sc)) return FAILED;
    for (int f = 0; f < fx.frames; f++) failures += fixture_check_golden(&fx, f, &sc[f], fx.name);
    psnrhvs_close(&c);
    printf("%s: isa %s, %d threads, %d in flight: %d frames, %d mismatches\n", fx.name, isa,
           threads, in_flight, fx.frames, failures);
    free(sc);
    fixture_free(&fx);
    return failures ? FAILED : SCORED;
}

int main(int argc, char **argv) {
    int a = 1;
    if (argc > 1 && !strcmp(argv[1], "--without=avx512")) {
        cpu_mask = ~(unsigned)PSNRHVS_CPU_FLAG_AVX512;
        a++;
    } else if (argc > 1 && !strcmp(argv[1], "--without=simd")) {
        cpu_mask = 0;
        a++;
    }
    if (argc - a < 4) {
        fprintf(
            stderr,
            "usage: %s [--without=avx512|simd] isa[:chain|engine|auto] threads frames_in_flight "
            "golden.json...\n",
            argv[0]);
        return 1;
    }
    char *const isa = argv[a];
    char *const sum = strchr(isa, ':');
    if (sum) {
        *sum = '\0';
        if (!strcmp(sum + 1, "chain"))
            psh_test_set_cpu_sum(PSNRHVS_TEST_CPU_SUM_CHAIN);
        else if (!strcmp(sum + 1, "engine"))
            psh_test_set_cpu_sum(PSNRHVS_TEST_CPU_SUM_ENGINE);
        else if (strcmp(sum + 1, "auto")) {
            fprintf(stderr, "unknown plane sum %s\n", sum + 1);
            return 1;
        }
    }
    const int threads = atoi(argv[a + 1]), in_flight = atoi(argv[a + 2]);
    int failed = 0, scored = 0, not_scored = 0;
    for (int i = a + 3; i < argc; i++) {
        const int r = run_fixture(argv[i], isa, threads, in_flight);
        if (r == SKIP) {
            /* The same for every fixture: the ISA is missing. */
            printf("SKIP: isa %s unavailable on this CPU or build\n", isa);
            return failed ? 1 : 77;
        }
        scored += r == SCORED;
        failed += r == FAILED;
        not_scored += r == NOT_SCORED;
    }
    printf("%d fixtures scored, %d failed, %d not scored\n", scored, failed, not_scored);
    if (failed) return 1;
    if (!scored) {
        printf("SKIP: no fixture was scored\n");
        return 77;
    }
    return 0;
}
