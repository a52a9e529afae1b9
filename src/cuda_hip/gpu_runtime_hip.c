/*
 * The HIP runtime, opened at run time (see gpu_runtime.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdio.h>

#include "dl.h"
#include "cuda_hip/gpu_runtime.h"

#define HIP_SYMBOL(name) DL_SYMBOL(PsnrHvsHipApi, name)

PsnrHvsHipApi psh_hip;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The SONAME of ROCm 6 and 5 in turn, then the development link. */
    static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so",
                                        NULL};
    static const DlSymbol symbols[] = {PSNRHVS_HIP_FUNCTIONS(HIP_SYMBOL)};
    const DlLibrary l = {"HIP runtime", names, "ROCm 5 or 6 is not installed", symbols,
                         sizeof(symbols) / sizeof(symbols[0])};
    PsnrHvsHipApi api;
    if (!dl_load(&l, &api, failure, sizeof(failure))) psh_hip = api;
}

int psh_hip_load(char *const why, const size_t size) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (size) snprintf(why, size, "%s", failure);
    return -1;
}
