/*
 * The SYCL backend's devices and errors: --list-devices describes each
 * device (the OpenMP CPU device wherever AdaptiveCpp runs) in both forms, a
 * device index past the end is ENODEV with a message naming it, a build is
 * reported available, and backend auto never picks SYCL (its devices are
 * those of the CPU, CUDA, HIP and OpenCL backends, each faster there).
 * Exits 77 when no SYCL device is present.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"

static char logged[4096];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    snprintf(logged, sizeof(logged), "%s", msg);
}

int main(void) {
    int failures = 0;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
    CHECK(psnrhvs_backend_available(PSNRHVS_BACKEND_SYCL), "sycl not reported available");
    static char buf[65536], verbose[65536];
    const int n = psnrhvs_list_devices(PSNRHVS_BACKEND_SYCL, 0, buf, sizeof(buf));
    if (n == PSNRHVS_ERR(ENODEV)) {
        printf("SKIP: no SYCL device (%s)\n", buf);
        return 77;
    }
    CHECK(n == 0 && !strncmp(buf, "0: ", 3), "list-devices gave %d: '%s'", n, buf);
    CHECK(!psnrhvs_list_devices(PSNRHVS_BACKEND_SYCL, 1, verbose, sizeof(verbose)) &&
              strstr(verbose, "max work-group") && strstr(verbose, "local memory"),
          "verbose list-devices: '%s'", verbose);
    printf("%s", verbose);
    /* A truncated buffer stays terminated. */
    char small[8];
    psnrhvs_list_devices(PSNRHVS_BACKEND_SYCL, 1, small, sizeof(small));
    CHECK(memchr(small, 0, sizeof(small)) != NULL, "truncated list not terminated");

    Fixture fx;
    fixture_generate(&fx, "devices", 64, 48, 8, PSNRHVS_PIXEL_LAYOUT_I420, 1, 3);
    PsnrHvsSettings s = fx.s;
    s.logger.callback = logger;
    PsnrHvsContext *c = NULL;
    s.backend = PSNRHVS_BACKEND_SYCL;
    s.device = 1000;
    logged[0] = 0;
    int err = psnrhvs_open(&c, &s);
    CHECK(err == PSNRHVS_ERR(ENODEV) && !c && strstr(logged, "device 1000 does not exist"),
          "device 1000: %d, '%s'", err, logged);

    /* Device 0 scores, the same bits as the CPU. */
    s.device = 0;
    PsnrHvsScore got, want;
    const PsnrHvsPicture r = fixture_ref(&fx, 0), d = fixture_dist(&fx, 0);
    err = psnrhvs_open(&c, &s);
    CHECK(!err && !strcmp(psnrhvs_backend_name(c), "sycl") && !psnrhvs_isa_name(c),
          "device 0: %d '%s'", err, logged);
    if (!err) {
        CHECK(!psnrhvs_score(c, &r, &d, &got), "device 0 score: '%s'", logged);
        psnrhvs_close(&c);
    }
    s.backend = PSNRHVS_BACKEND_CPU;
    if (!psnrhvs_open(&c, &s)) {
        CHECK(!psnrhvs_score(c, &r, &d, &want) && scores_same_bits(&got, &want),
              "sycl and cpu differ");
        psnrhvs_close(&c);
    }

    s.backend = PSNRHVS_BACKEND_AUTO;
    err = psnrhvs_open(&c, &s);
    CHECK(!err && strcmp(psnrhvs_backend_name(c), "sycl"), "auto gave %d, %s", err,
          err ? "-" : psnrhvs_backend_name(c));
    if (!err) psnrhvs_close(&c);
    fixture_free(&fx);
    printf("%s\n", failures ? "FAILED" : "OK");
    return failures != 0;
}
