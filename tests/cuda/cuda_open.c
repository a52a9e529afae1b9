/*
 * Opening the CUDA backend. With a usable device: --backend auto picks cuda
 * and a device index past the last one is ENODEV. Without one (CI): opening
 * cuda fails with ENODEV and a log line saying why, list_devices says so too,
 * and auto falls back to the next backend and scores with the CPU's bits.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psnrhvs.h"

static char logged[4096];

static void capture(void *cookie, const char *msg) {
    (void)cookie;
    const size_t n = strlen(logged);
    snprintf(logged + n, sizeof(logged) - n, "%s\n", msg);
}

static PsnrHvsSettings settings(enum PsnrHvsBackend b, int device) {
    PsnrHvsSettings s;
    psnrhvs_default_settings(&s);
    s.width = 67;
    s.height = 45;
    s.backend = b;
    s.device = device;
    s.logger.callback = capture;
    return s;
}

static int score(enum PsnrHvsBackend b, PsnrHvsScore *out, char *name, size_t name_size) {
    static unsigned char ref[67 * 45 * 2], dist[67 * 45 * 2];
    for (int i = 0; i < (int)sizeof(ref); i++) {
        ref[i] = (unsigned char)(i * 7 + (i / 67) * 3);
        dist[i] = (unsigned char)(ref[i] + (i % 5 == 0 ? 3 : 0));
    }
    PsnrHvsSettings s = settings(b, 0);
    PsnrHvsContext *c;
    int err = psnrhvs_open(&c, &s);
    if (err) return err;
    /* auto: the CPU at once, the GPUs as they open; their names once open */
    while (psnrhvs_opening(c)) {
        const struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    snprintf(name, name_size, "%s", psnrhvs_backend_name(c));
    const PsnrHvsPicture r = {{ref, ref + 67 * 45, ref + 67 * 45 + 33 * 22}, {67, 33, 33}};
    const PsnrHvsPicture d = {{dist, dist + 67 * 45, dist + 67 * 45 + 33 * 22}, {67, 33, 33}};
    err = psnrhvs_score(c, &r, &d, out);
    psnrhvs_close(&c);
    return err;
}

int main(void) {
    if (!psnrhvs_backend_available(PSNRHVS_BACKEND_CUDA)) {
        printf("SKIP: the CUDA backend is not built in\n");
        return 77;
    }
    char list[1024];
    const int lerr = psnrhvs_list_devices(PSNRHVS_BACKEND_CUDA, 1, list, sizeof(list));
    printf("list_devices: %d\n%s", lerr, list);

    PsnrHvsSettings s = settings(PSNRHVS_BACKEND_CUDA, 0);
    PsnrHvsContext *c = NULL;
    const int err = psnrhvs_open(&c, &s);
    printf("open cuda: %d\n%s", err, logged);
    PsnrHvsScore cpu, got;
    char name[32] = "", cpu_name[32] = "";
    if (score(PSNRHVS_BACKEND_CPU, &cpu, cpu_name, sizeof(cpu_name))) {
        fprintf(stderr, "FAIL: the CPU backend cannot score\n");
        return 1;
    }
    if (!err) {
        psnrhvs_close(&c);
        if (lerr) {
            fprintf(stderr, "FAIL: a device opened but list_devices returned %d\n", lerr);
            return 1;
        }
        logged[0] = 0;
        s = settings(PSNRHVS_BACKEND_CUDA, 4096);
        const int e2 = psnrhvs_open(&c, &s);
        if (e2 != PSNRHVS_ERR(ENODEV) || !strstr(logged, "cuda:")) {
            fprintf(stderr, "FAIL: device 4096 gave %d, log: %s\n", e2, logged);
            return 1;
        }
        if (score(PSNRHVS_BACKEND_AUTO, &got, name, sizeof(name)) || !strstr(name, "cuda:0") ||
            memcmp(got.raw, cpu.raw, sizeof(cpu.raw))) {
            fprintf(stderr, "FAIL: auto ran on %s, raw %a vs cpu %a\n", name, got.raw[0],
                    cpu.raw[0]);
            return 1;
        }
        printf("device present: auto takes cuda (%s), same bits as cpu\n", name);
        return 0;
    }
    if (err != PSNRHVS_ERR(ENODEV) || !strstr(logged, "cuda: ")) {
        fprintf(stderr, "FAIL: expected ENODEV with a cuda: log line, got %d\n", err);
        return 1;
    }
    if (!(lerr == PSNRHVS_ERR(ENODEV) && strstr(list, "no CUDA device")) &&
        !strstr(logged, "cannot run")) {
        fprintf(stderr, "FAIL: list_devices without a device: %d '%s'\n", lerr, list);
        return 1;
    }
    logged[0] = 0;
    /* auto without a GPU: the CPU (PoCL's device is a CPU, never taken),
     * nothing said: having no GPU is no error. */
    if (score(PSNRHVS_BACKEND_AUTO, &got, name, sizeof(name)) || strstr(name, "cuda") ||
        memcmp(&got, &cpu, sizeof(cpu)) || logged[0]) {
        fprintf(stderr, "FAIL: auto without a device ran on '%s' (or other bits), said '%s'\n",
                name, logged);
        return 1;
    }
    printf("no device: ENODEV, clear message; auto scored on %s with the cpu's bits\n", name);
    return 0;
}
