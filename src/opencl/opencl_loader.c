/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define PSNRHVS_OPENCL_LOADER_IMPL
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "opencl/opencl_loader.h"

PsnrHvsClApi psnrhvs_cl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The ICD loader's SONAME first; the development link only as a fallback. */
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *const e = dlerror();
        snprintf(failure, sizeof(failure), "no OpenCL ICD loader (libOpenCL.so.1): %s",
                 e ? e : "not found");
        if (!(lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL))) return;
        failure[0] = '\0';
    }
    PsnrHvsClApi api;
#define PSNRHVS_CL_LOAD(name)                                                                      \
    if (!(*(void **)&api.name = dlsym(lib, #name))) {                                              \
        snprintf(failure, sizeof(failure), "the OpenCL ICD loader lacks %s", #name);               \
        dlclose(lib);                                                                              \
        return;                                                                                    \
    }
    PSNRHVS_CL_FUNCTIONS(PSNRHVS_CL_LOAD)
#undef PSNRHVS_CL_LOAD
    psnrhvs_cl = api; /* the library stays loaded for the process */
}

int psnrhvs_opencl_load(char *const why, const size_t size) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (size) snprintf(why, size, "%s", failure);
    return -1;
}
