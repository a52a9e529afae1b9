/*
 * The HIP backend where no AMD GPU is present (CI): --backend hip fails with
 * ENODEV and says why, the device list says so, and auto moves on to the
 * next backend with the CPU's bits. With a GPU (HIP_VISIBLE_DEVICES or a
 * real device) it must open and score a fixture like the CPU.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"

static char logged[4096];

static void logger(void *cookie, const char *msg) {
    (void)cookie;
    strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
    strcat(logged, "\n");
}

static int score(Fixture *fx, enum PsnrHvsBackend b, PsnrHvsScore *sc, const char **name) {
    PsnrHvsSettings s = fx->s;
    s.backend = b;
    s.logger.callback = logger;
    PsnrHvsContext *c;
    const int err = psnrhvs_open(&c, &s);
    if (err) return err;
    *name = psnrhvs_backend_name(c);
    const int e = fixture_score_queued(c, fx, sc);
    psnrhvs_close(&c);
    return e;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    Fixture fx;
    if (fixture_load_golden(&fx, argv[1], argv[2])) return 1;
    PsnrHvsScore cpu[64], hip[64], aut[64];
    const char *name = "";
    if (fx.frames > 64 || score(&fx, PSNRHVS_BACKEND_CPU, cpu, &name)) return 1;
    logged[0] = '\0';
    const int err = score(&fx, PSNRHVS_BACKEND_HIP, hip, &name);
    if (!err) {
        /* A device is present: its bits must be the CPU's. */
        int diff = 0;
        for (int f = 0; f < fx.frames; f++)
            diff |= memcmp(cpu[f].raw, hip[f].raw, sizeof(cpu[f].raw));
        printf("hip device present: %s\n", diff ? "DIFFERENT bits" : "same bits as the cpu");
        return diff;
    }
    if (err != PSNRHVS_ERR(ENODEV) || !strstr(logged, "hip: ")) {
        printf("FAIL: --backend hip without a device gave %d and said: %s\n", err, logged);
        return 1;
    }
    printf("no device: ENODEV, said: %s", logged);
    char list[1024] = "";
    const int lerr = psnrhvs_list_devices(PSNRHVS_BACKEND_HIP, 1, list, sizeof(list));
    if (lerr != PSNRHVS_ERR(ENODEV) || !strstr(list, "hip: ")) {
        printf("FAIL: list_devices gave %d: %s\n", lerr, list);
        return 1;
    }
    printf("list: %s", list);
    logged[0] = '\0';
    if (score(&fx, PSNRHVS_BACKEND_AUTO, aut, &name)) return 1;
    int diff = 0;
    for (int f = 0; f < fx.frames; f++) diff |= memcmp(cpu[f].raw, aut[f].raw, sizeof(cpu[f].raw));
    /* auto without a GPU: the CPU, nothing said */
    if (diff || strstr(name, "hip") || logged[0]) {
        printf("FAIL: auto ran %s (%s), said: %s\n", name, diff ? "different bits" : "same bits",
               logged);
        return 1;
    }
    printf("auto moved on to %s with the cpu's bits\n", name);
    fixture_free(&fx);
    return 0;
}
