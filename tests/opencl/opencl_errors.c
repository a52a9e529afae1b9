/*
 * OpenCL error paths through the public API:
 *   opencl_errors device      a device index past the last one: ENODEV and a
 *                             message naming the count (skips with no device)
 *   opencl_errors noplatform  run with OCL_ICD_VENDORS at an empty folder: no
 *                             platform gives ENODEV and a clear message, and
 *                             backend auto falls back to another backend
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "psnrhvs.h"

static char messages[4096];

static void collect(void *cookie, const char *msg) {
    (void)cookie;
    strncat(messages, msg, sizeof(messages) - strlen(messages) - 2);
    strcat(messages, "\n");
}

static void settings(PsnrHvsSettings *s, enum PsnrHvsBackend b) {
    psnrhvs_default_settings(s);
    s->width = 64;
    s->height = 48;
    s->backend = b;
    s->logger.callback = collect;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    PsnrHvsSettings s;
    PsnrHvsContext *c = NULL;
    if (!strcmp(argv[1], "device")) {
        settings(&s, PSNRHVS_BACKEND_OPENCL);
        s.device = 999;
        const int err = psnrhvs_open(&c, &s);
        fputs(messages, stdout);
        if (strstr(messages, "no OpenCL platform")) {
            printf("SKIP: no OpenCL device\n");
            return 77;
        }
        if (err != PSNRHVS_ERR(ENODEV) || c || !strstr(messages, "device 999 does not exist")) {
            printf("FAIL: device 999 gave %d\n", err);
            return 1;
        }
        return 0;
    }
    if (!strcmp(argv[1], "noplatform")) {
        settings(&s, PSNRHVS_BACKEND_OPENCL);
        int err = psnrhvs_open(&c, &s);
        fputs(messages, stdout);
        if (!err) {
            /* Some loaders read other vendor folders as well (seen on a
             * machine with PoCL registered in /etc/OpenCL/vendors). */
            printf("SKIP: the ICD loader still finds a platform with OCL_ICD_VENDORS at an "
                   "empty folder\n");
            psnrhvs_close(&c);
            return 77;
        }
        if (err != PSNRHVS_ERR(ENODEV) || c || !strstr(messages, "no OpenCL platform")) {
            printf("FAIL: no platform gave %d\n", err);
            return 1;
        }
        messages[0] = 0;
        settings(&s, PSNRHVS_BACKEND_AUTO);
        err = psnrhvs_open(&c, &s);
        fputs(messages, stdout);
        /* auto without a platform: the CPU, nothing said */
        while (!err && psnrhvs_opening(c)) {
            const struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
        if (err || !c || strstr(psnrhvs_backend_name(c), "opencl") || messages[0]) {
            printf("FAIL: auto without an OpenCL platform: %d '%s'\n", err, messages);
            return 1;
        }
        printf("auto scored on %s\n", psnrhvs_backend_name(c));
        psnrhvs_close(&c);
        return 0;
    }
    return 2;
}
