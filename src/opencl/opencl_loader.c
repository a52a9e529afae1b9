/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define PSNRHVS_OPENCL_LOADER_IMPL
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dl.h"
#include "opencl/opencl_loader.h"

#define CL_SYMBOL(name) DL_SYMBOL(PsnrHvsClApi, name)

PsnrHvsClApi psh_cl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void) {
    /* The ICD loader's SONAME first; the development link only as a fallback. */
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    static const DlSymbol symbols[] = {PSNRHVS_CL_FUNCTIONS(CL_SYMBOL)};
    const DlLibrary l = {"OpenCL ICD loader", names, NULL, symbols,
                         sizeof(symbols) / sizeof(symbols[0])};
    PsnrHvsClApi api;
    if (!dl_load(&l, &api, failure, sizeof(failure))) psh_cl = api;
}

int psh_opencl_load(char *const why, const size_t size) {
    pthread_once(&once, load);
    if (!failure[0]) return 0;
    if (size) snprintf(why, size, "%s", failure);
    return -1;
}
