/*
 * The HIP runtime, opened at run time (see gpu_runtime.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "gpu/gpu_runtime.h"

PsnrHvsHipApi psnrhvs_hip;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The SONAME of ROCm 5 and 6 in turn, then the development link. */
    static const char *const names[] = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof(names) / sizeof(names[0]); i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof(failure),
                 "no HIP runtime (libamdhip64.so.6 or .so.5): ROCm is not installed");
        return;
    }
    PsnrHvsHipApi api;
#define PSNRHVS_HIP_LOAD(name)                                                                     \
    if (!(*(void **)&api.name = dlsym(lib, #name))) {                                              \
        snprintf(failure, sizeof(failure), "the HIP runtime lacks %s", #name);                     \
        dlclose(lib);                                                                              \
        return;                                                                                    \
    }
    PSNRHVS_HIP_FUNCTIONS(PSNRHVS_HIP_LOAD)
#undef PSNRHVS_HIP_LOAD
    psnrhvs_hip = api; /* the runtime stays loaded for the process */
}

int psnrhvs_hip_load(char *const why, const size_t size) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (size) snprintf(why, size, "%s", failure);
    return -1;
}
