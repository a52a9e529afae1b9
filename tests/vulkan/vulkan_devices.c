/*
 * The Vulkan backend's devices and refusals, through the public API (and the
 * test hook of src/test_hooks.h that pretends a device property is missing):
 *   vulkan_devices devices   list-devices in both forms (and truncated); a
 *                            device index past the end is ENODEV with a
 *                            message naming it; device 0 scores with the
 *                            CPU's bits; a device lacking each property the
 *                            backend needs is refused with one line naming
 *                            it; backend auto never takes a CPU device
 *                            (lavapipe), but takes a GPU's (run with OpenCL
 *                            hidden, so that auto reaches Vulkan)
 *   vulkan_devices nodriver  run with the loader pointed at no driver: ENODEV
 *                            and a clear message; auto falls back
 * Exits 77 when no Vulkan device is present (devices).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"
#include "test_hooks.h"

static char logged[8192];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    const size_t n = strlen(logged);
    snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* The properties the backend refuses a device without (vulkan_device.c). */
static const char *const needed[] = {"Vulkan 1.2", "a compute queue", "shaderInt64",
                                     "shaderRoundingModeRTEFloat32",
                                     "shaderSignedZeroInfNanPreserveFloat32"};

static int devices(void) {
    CHECK(psnrhvs_backend_available(PSNRHVS_BACKEND_VULKAN), "vulkan not reported available");
    static char buf[65536], verbose[65536];
    const int n = psnrhvs_list_devices(PSNRHVS_BACKEND_VULKAN, 0, buf, sizeof(buf));
    printf("%s", buf);
    if (n == PSNRHVS_ERR(ENODEV)) {
        printf("SKIP: no Vulkan device\n");
        return 77;
    }
    CHECK(n == 0 && !strncmp(buf, "0: ", 3), "list-devices gave %d: '%s'", n, buf);
    CHECK(!psnrhvs_list_devices(PSNRHVS_BACKEND_VULKAN, 1, verbose, sizeof(verbose)) &&
              strstr(verbose, "maxStorageBufferRange") &&
              strstr(verbose, "f32 round to nearest even"),
          "verbose list-devices: '%s'", verbose);
    printf("%s", verbose);
    char small[8];
    psnrhvs_list_devices(PSNRHVS_BACKEND_VULKAN, 1, small, sizeof(small));
    CHECK(memchr(small, 0, sizeof(small)) != NULL, "truncated list not terminated");
    if (strstr(buf, "0: ") && strstr(buf, "unusable")) {
        const char *const nl = strchr(buf, '\n');
        if (strstr(buf, "unusable") < nl) {
            printf("SKIP: device 0 is unusable here\n");
            return 77;
        }
    }
    const int cpu_device = strstr(buf, " | CPU | ") && strstr(buf, " | CPU | ") < strchr(buf, '\n');

    Fixture fx;
    fixture_generate(&fx, "devices", 64, 48, 10, PSNRHVS_PIXEL_LAYOUT_I420, 1, 3);
    PsnrHvsSettings s = fx.s;
    s.logger.callback = logger;
    PsnrHvsContext *c = NULL;
    s.backend = PSNRHVS_BACKEND_VULKAN;
    s.device = 1000;
    logged[0] = 0;
    int err = psnrhvs_open(&c, &s);
    CHECK(err == PSNRHVS_ERR(ENODEV) && !c && strstr(logged, "device 1000 does not exist"),
          "device 1000: %d, '%s'", err, logged);

    /* Device 0 scores, with the CPU's bits. */
    s.device = 0;
    PsnrHvsScore got = {0}, want = {0};
    const PsnrHvsPicture r = fixture_ref(&fx, 0), d = fixture_dist(&fx, 0);
    logged[0] = 0;
    err = psnrhvs_open(&c, &s);
    CHECK(!err && !strcmp(psnrhvs_backend_name(c), "vulkan") && !psnrhvs_isa_name(c),
          "device 0: %d '%s'", err, logged);
    if (!err) {
        CHECK(!psnrhvs_score(c, &r, &d, &got), "device 0 score: '%s'", logged);
        psnrhvs_close(&c);
    }
    s.backend = PSNRHVS_BACKEND_CPU;
    if (!psnrhvs_open(&c, &s)) {
        CHECK(!psnrhvs_score(c, &r, &d, &want) && scores_same_bits(&got, &want),
              "vulkan and cpu differ");
        psnrhvs_close(&c);
    }

    /* Each property missing in turn: ENODEV and one line naming it. */
    s.backend = PSNRHVS_BACKEND_VULKAN;
    for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
        psh_test_set_vulkan_missing(needed[i]);
        logged[0] = 0;
        err = psnrhvs_open(&c, &s);
        const char *const nl = strchr(logged, '\n');
        char want_text[128];
        snprintf(want_text, sizeof(want_text), "lacks %s: ", needed[i]);
        CHECK(err == PSNRHVS_ERR(ENODEV) && !c && strstr(logged, want_text) && nl && !nl[1],
              "without %s: %d, '%s'", needed[i], err, logged);
        printf("without %s: %s", needed[i], logged);
        if (!err) psnrhvs_close(&c);
    }
    psh_test_set_vulkan_missing(NULL);
    logged[0] = 0;
    err = psnrhvs_open(&c, &s);
    CHECK(!err, "the device refused after the hook was cleared: '%s'", logged);
    if (!err) psnrhvs_close(&c);

    /* Backend auto: never a CPU device (OpenCL is hidden by the test's
     * environment, so auto comes to Vulkan after it). */
    s.backend = PSNRHVS_BACKEND_AUTO;
    logged[0] = 0;
    err = psnrhvs_open(&c, &s);
    CHECK(!err, "auto: %d '%s'", err, logged);
    if (!err) {
        while (psnrhvs_opening(c)) {
            const struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
        const char *const name = psnrhvs_backend_name(c);
        if (cpu_device)
            CHECK(!strstr(name, "vulkan"), "auto took %s with a CPU device 0: '%s'", name, logged);
        printf("auto: %s (%s)\n", name, cpu_device ? "device 0 is a CPU device" : "a GPU");
        psnrhvs_close(&c);
    }
    fixture_free(&fx);
    printf("%d failures\n", failures);
    return failures != 0;
}

static int nodriver(void) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = 64;
    s.height = 48;
    s.backend = PSNRHVS_BACKEND_VULKAN;
    s.logger.callback = logger;
    PsnrHvsContext *c = NULL;
    int err = psnrhvs_open(&c, &s);
    fputs(logged, stdout);
    if (!err) {
        printf("SKIP: the loader still finds a device with VK_DRIVER_FILES at a missing file\n");
        psnrhvs_close(&c);
        return 77;
    }
    CHECK(err == PSNRHVS_ERR(ENODEV) && !c &&
              (strstr(logged, "no Vulkan driver") || strstr(logged, "no Vulkan device")),
          "no driver gave %d", err);
    static char buf[4096];
    err = psnrhvs_list_devices(PSNRHVS_BACKEND_VULKAN, 0, buf, sizeof(buf));
    CHECK(err == PSNRHVS_ERR(ENODEV) && !strncmp(buf, "vulkan: ", 8), "list gave %d '%s'", err,
          buf);
    logged[0] = 0;
    s.backend = PSNRHVS_BACKEND_AUTO;
    err = psnrhvs_open(&c, &s);
    fputs(logged, stdout);
    CHECK(!err && c && strcmp(psnrhvs_backend_name(c), "vulkan"), "auto did not fall back (%d)",
          err);
    if (!err) {
        printf("auto fell back to %s\n", psnrhvs_backend_name(c));
        psnrhvs_close(&c);
    }
    return failures != 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (!strcmp(argv[1], "devices")) return devices();
    if (!strcmp(argv[1], "nodriver")) return nodriver();
    return 2;
}
