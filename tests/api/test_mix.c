/*
 * One context across several scorers (src/mix.c), on the devices CI has:
 * the CPU with PoCL's OpenCL device, SYCL's OpenMP device and Vulkan's
 * lavapipe where built, forced into auto by the test hook (auto itself never
 * takes a CPU device). Every frame's score has the bits of the CPU alone,
 * whoever scored it; the CPU scores before a delayed device joins; every
 * scorer takes frames; explicit lists and ladders too; auto without the hook
 * takes no CPU device of a GPU API; a short clip hinted opens no device.
 *   test_mix join|list|ladder|auto|hint JSON...
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "fixture.h"
#include "test_hooks.h"

static void sleep_ms(const int ms) {
    const struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The device backends here whose device 0 opens (with this geometry). */
static int devices_here(const PsnrHvsSettings *const base, PsnrHvsDevice *const list) {
    static const enum PsnrHvsBackend kinds[] = {PSNRHVS_BACKEND_OPENCL, PSNRHVS_BACKEND_SYCL,
                                                PSNRHVS_BACKEND_VULKAN};
    int n = 0;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        PsnrHvsSettings s = *base;
        s.backend = kinds[i];
        s.logger.callback = NULL;
        PsnrHvsContext *c = NULL;
        if (psnrhvs_open(&c, &s)) continue;
        psnrhvs_close(&c);
        list[n++] = (PsnrHvsDevice){kinds[i], 0};
    }
    return n;
}

/* The CPU alone, frame by frame: what every mix must give. */
static PsnrHvsScore *expected(const Fixture *const fx) {
    PsnrHvsSettings s = fx->s;
    s.backend = PSNRHVS_BACKEND_CPU;
    s.isa = PSNRHVS_ISA_SCALAR;
    PsnrHvsContext *c;
    PsnrHvsScore *const want = calloc((size_t)fx->frames, sizeof(*want));
    if (!want || psnrhvs_open(&c, &s)) exit(1);
    for (int f = 0; f < fx->frames; f++) {
        const PsnrHvsPicture r = fixture_ref(fx, f), d = fixture_dist(fx, f);
        if (psnrhvs_score(c, &r, &d, &want[f])) exit(1);
        fixture_check_golden(fx, f, &want[f], fx->name);
    }
    psnrhvs_close(&c);
    return want;
}

typedef struct Run {
    PsnrHvsContext *c;
    const Fixture *fx;
    const PsnrHvsScore *want;
    int renditions;
    unsigned sent, received;
} Run;

static void receive_one(Run *const r) {
    PsnrHvsScore out[2];
    const int err =
        r->renditions > 1 ? psnrhvs_receive_ladder(r->c, out) : psnrhvs_receive(r->c, out);
    CHECK(!err, "%s: receive %u: error %d", r->fx->name, r->received, err);
    if (err) exit(1);
    const int f = (int)(out[0].tag % (unsigned)r->fx->frames);
    CHECK(out[0].tag == r->received, "%s: frame %u came back as %llu", r->fx->name, r->received,
          (unsigned long long)out[0].tag);
    CHECK(scores_same_bits(&out[0], &r->want[f]), "%s: frame %u (%d) differs from the CPU's",
          r->fx->name, r->received, f);
    /* rendition 1 is the reference itself: the identical-frame score */
    if (r->renditions > 1)
        CHECK(out[1].raw[0] == 0.0f, "%s: frame %u: the reference against itself", r->fx->name,
              r->received);
    r->received++;
}

/* Sends n more frames (the fixture's, over and over), frames in flight. */
static void feed(Run *const r, const unsigned n) {
    for (unsigned k = 0; k < n; k++) {
        const int f = (int)(r->sent % (unsigned)r->fx->frames);
        const PsnrHvsPicture ref = fixture_ref(r->fx, f), dist = fixture_dist(r->fx, f);
        const PsnrHvsPicture ladder[2] = {dist, ref};
        for (;;) {
            const int err = r->renditions > 1 ? psnrhvs_send_ladder(r->c, &ref, ladder, r->sent)
                                              : psnrhvs_send(r->c, &ref, &dist, r->sent);
            if (!err) break;
            CHECK(err == PSNRHVS_ERR(EAGAIN), "%s: send %u: error %d", r->fx->name, r->sent, err);
            if (err != PSNRHVS_ERR(EAGAIN)) exit(1);
            receive_one(r);
        }
        r->sent++;
    }
}

static void drain(Run *const r) {
    while (r->received < r->sent) receive_one(r);
}

/* Every scorer of the mix took frames. */
static void check_all_scored(const Run *const r, const int expect_children) {
    char labels[PSNRHVS_MAX_DEVICES][24];
    uint64_t frames[PSNRHVS_MAX_DEVICES];
    const int n = psh_test_mix_children(r->c, labels, frames, PSNRHVS_MAX_DEVICES);
    CHECK(n == expect_children, "%s: %d scorers joined, expected %d", r->fx->name, n,
          expect_children);
    for (int i = 0; i < n; i++) {
        printf("  %s: %s scored %llu frames\n", r->fx->name, labels[i],
               (unsigned long long)frames[i]);
        CHECK(frames[i] > 0, "%s: %s scored no frame", r->fx->name, labels[i]);
    }
}

static int wait_for_children(const Run *const r, const int n, const int timeout_ms) {
    char labels[PSNRHVS_MAX_DEVICES][24];
    uint64_t frames[PSNRHVS_MAX_DEVICES];
    for (int t = 0; t < timeout_ms; t += 20) {
        if (psh_test_mix_children(r->c, labels, frames, PSNRHVS_MAX_DEVICES) >= n) return 1;
        sleep_ms(20);
    }
    return 0;
}

static void run_join(const Fixture *const fx, const PsnrHvsScore *const want,
                     const PsnrHvsDevice *const devs, const int ndev, const int renditions) {
    psh_test_set_mix_devices(devs, ndev);
    psh_test_set_mix_open_delay_ms(300);
    PsnrHvsSettings s = fx->s;
    s.backend = PSNRHVS_BACKEND_AUTO;
    s.renditions = renditions;
    Run r = {.fx = fx, .want = want, .renditions = renditions};
    if (psnrhvs_open(&r.c, &s)) exit(1);
    /* The CPU scores at once, before the delayed devices join. */
    feed(&r, (unsigned)fx->frames);
    drain(&r);
    char labels[PSNRHVS_MAX_DEVICES][24];
    uint64_t frames[PSNRHVS_MAX_DEVICES];
    const int before = psh_test_mix_children(r.c, labels, frames, PSNRHVS_MAX_DEVICES);
    CHECK(before == 1 && !strcmp(labels[0], "cpu") && frames[0] == (uint64_t)fx->frames,
          "%s: %d scorers before the devices joined (%s)", fx->name, before, labels[0]);
    CHECK(wait_for_children(&r, 1 + ndev, 120000), "%s: the devices never joined", fx->name);
    /* Enough frames for the policy's three measured windows and its choice. */
    feed(&r, 1200);
    drain(&r);
    check_all_scored(&r, 1 + ndev);
    psnrhvs_close(&r.c);
    psh_test_set_mix_devices(NULL, 0);
    psh_test_set_mix_open_delay_ms(0);
}

/* frames_hint: a clip the CPU alone scores at once opens no device; a long
 * one opens them once the CPU's first frames are rated. */
static void run_hint(const Fixture *const fx, const PsnrHvsScore *const want,
                     const PsnrHvsDevice *const devs, const int ndev) {
    psh_test_set_mix_devices(devs, ndev);
    static const uint64_t hints[] = {8, (uint64_t)1 << 40};
    for (int h = 0; h < 2; h++) {
        PsnrHvsSettings s = fx->s;
        s.backend = PSNRHVS_BACKEND_AUTO;
        s.frames_hint = hints[h];
        Run r = {.fx = fx, .want = want, .renditions = 1};
        if (psnrhvs_open(&r.c, &s)) exit(1);
        CHECK(psnrhvs_opening(r.c), "%s: hint %llu: no device is to open", fx->name,
              (unsigned long long)hints[h]);
        feed(&r, 8);
        drain(&r);
        if (!h) {
            sleep_ms(300);
            char labels[PSNRHVS_MAX_DEVICES][24];
            uint64_t frames[PSNRHVS_MAX_DEVICES];
            const int n = psh_test_mix_children(r.c, labels, frames, PSNRHVS_MAX_DEVICES);
            CHECK(n == 1 && !strcmp(labels[0], "cpu") && frames[0] == 8,
                  "%s: 8 frames hinted: %d scorers (%s), a device opened", fx->name, n, labels[0]);
            CHECK(!psnrhvs_opening(r.c), "%s: 8 frames hinted: still opening", fx->name);
        } else {
            CHECK(wait_for_children(&r, 1 + ndev, 120000), "%s: long clip: no device joined",
                  fx->name);
        }
        psnrhvs_close(&r.c);
    }
    psh_test_set_mix_devices(NULL, 0);
}

static void run_list(const Fixture *const fx, const PsnrHvsScore *const want,
                     const PsnrHvsDevice *const devs, const int ndev) {
    PsnrHvsDevice list[PSNRHVS_MAX_DEVICES];
    list[0] = (PsnrHvsDevice){PSNRHVS_BACKEND_CPU, 0};
    memcpy(list + 1, devs, (size_t)ndev * sizeof(*devs));
    PsnrHvsSettings s = fx->s;
    s.num_devices = 1 + ndev;
    s.devices = list;
    Run r = {.fx = fx, .want = want, .renditions = 1};
    if (psnrhvs_open(&r.c, &s)) exit(1);
    feed(&r, 1200);
    drain(&r);
    check_all_scored(&r, 1 + ndev);
    /* The synchronous path through the mix. */
    PsnrHvsScore one;
    const PsnrHvsPicture ref = fixture_ref(fx, 0), dist = fixture_dist(fx, 0);
    CHECK(!psnrhvs_score(r.c, &ref, &dist, &one) && scores_same_bits(&one, &want[0]),
          "%s: psnrhvs_score through a list", fx->name);
    psnrhvs_close(&r.c);
}

/* auto as shipped: the CPU, and only GPUs beside it. */
static void run_auto(const Fixture *const fx, const PsnrHvsScore *const want) {
    PsnrHvsSettings s = fx->s;
    s.backend = PSNRHVS_BACKEND_AUTO;
    Run r = {.fx = fx, .want = want, .renditions = 1};
    if (psnrhvs_open(&r.c, &s)) exit(1);
    feed(&r, 200);
    drain(&r);
    char labels[PSNRHVS_MAX_DEVICES][24];
    uint64_t frames[PSNRHVS_MAX_DEVICES];
    sleep_ms(500);
    const int n = psh_test_mix_children(r.c, labels, frames, PSNRHVS_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        printf("  auto: %s\n", labels[i]);
        /* PoCL, SYCL's OpenMP device and lavapipe are device 0 of their
         * backends here: only a GPU may join. */
        char list[8192] = "";
        enum PsnrHvsBackend b;
        if (!strncmp(labels[i], "opencl", 6))
            b = PSNRHVS_BACKEND_OPENCL;
        else if (!strncmp(labels[i], "sycl", 4))
            b = PSNRHVS_BACKEND_SYCL;
        else if (!strncmp(labels[i], "vulkan", 6))
            b = PSNRHVS_BACKEND_VULKAN;
        else
            continue;
        psnrhvs_list_devices(b, 0, list, sizeof(list));
        CHECK(!strstr(list, "cpu") && !strstr(list, "CPU") && !strstr(list, "llvmpipe") &&
                  !strstr(list, "pthread"),
              "auto took %s, a CPU device: %s", labels[i], list);
    }
    psnrhvs_close(&r.c);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_mix join|list|ladder|auto|hint JSON...\n");
        return 2;
    }
    const char *const part = argv[1];
    int ran = 0;
    for (int i = 2; i < argc; i++) {
        Fixture fx;
        if (fixture_load_golden(&fx, argv[i], NULL)) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        fx.s.module_dir = PSNRHVS_TEST_MODULE_DIR; /* the static core: the build's modules */
        PsnrHvsScore *const want = expected(&fx);
        PsnrHvsDevice devs[PSNRHVS_MAX_DEVICES];
        const int ndev = devices_here(&fx.s, devs);
        if (!strcmp(part, "auto")) {
            run_auto(&fx, want);
            ran++;
        } else if (ndev) {
            if (!strcmp(part, "join")) run_join(&fx, want, devs, ndev, 1);
            if (!strcmp(part, "ladder")) run_join(&fx, want, devs, ndev, 2);
            if (!strcmp(part, "list")) run_list(&fx, want, devs, ndev);
            if (!strcmp(part, "hint")) run_hint(&fx, want, devs, ndev);
            ran++;
        }
        free(want);
        fixture_free(&fx);
    }
    if (!ran) {
        printf("skipped: no device backend opens here (OpenCL, SYCL or Vulkan)\n");
        return 77;
    }
    printf("%s: %d failures\n", part, failures);
    return failures ? 1 : 0;
}
