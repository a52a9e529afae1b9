/*
 * The CUDA runtime of the SYCL module's cuda target, opened when a CUDA
 * device first runs a kernel, not when the module loads: the host code that
 * clang emits for the kernels calls these seven functions of libcudart
 * (registration from the module's constructor, each launch). Defined here
 * (local to the module), registration is recorded and replayed into the
 * real runtime on the first launch, so the module, its OpenMP device
 * included, loads on machines without the CUDA runtime. AdaptiveCpp's CUDA
 * plugin (hipSYCL/librt-backend-cuda.so) has already loaded that runtime
 * whenever a CUDA device exists: the dlopen below then finds it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "dl.h"

#ifndef PSH_CUDART_SONAME
#error "PSH_CUDART_SONAME: the soname of the CUDA runtime the kernels were built with"
#endif

typedef struct Dim3 {
    unsigned x, y, z;
} Dim3;

typedef struct Cudart {
    void **(*__cudaRegisterFatBinary)(void *);
    void (*__cudaRegisterFatBinaryEnd)(void **);
    void (*__cudaUnregisterFatBinary)(void **);
    void (*__cudaRegisterFunction)(void **, const char *, char *, const char *, int, void *, void *,
                                   Dim3 *, Dim3 *, int *);
    unsigned (*__cudaPushCallConfiguration)(Dim3, Dim3, size_t, void *);
    int (*__cudaPopCallConfiguration)(Dim3 *, Dim3 *, size_t *, void *);
    int (*cudaLaunchKernel)(const void *, Dim3, Dim3, void **, size_t, void *);
} Cudart;

#define CUDART_FUNCTIONS(X)                                                                        \
    X(__cudaRegisterFatBinary)                                                                     \
    X(__cudaRegisterFatBinaryEnd)                                                                  \
    X(__cudaUnregisterFatBinary)                                                                   \
    X(__cudaRegisterFunction)                                                                      \
    X(__cudaPushCallConfiguration)                                                                 \
    X(__cudaPopCallConfiguration)                                                                  \
    X(cudaLaunchKernel)
#define CUDART_SYMBOL(name) DL_SYMBOL(Cudart, name)
static const DlSymbol cudart_symbols[] = {CUDART_FUNCTIONS(CUDART_SYMBOL)};

/* What the constructors registered: a few fat binaries (one per translation
 * unit with kernels) and their kernels. */
#define MAX_FATBINS 8

typedef struct Function {
    const char *host;
    char *device;
    const char *name;
    int thread_limit;
} Function;

typedef struct Fatbin {
    void *wrapper;
    void **real; ///< the runtime's handle, once replayed
    Function *fn;
    int num_fn, cap_fn;
} Fatbin;

static Fatbin fatbins[MAX_FATBINS];
static int num_fatbins;
static Cudart rt;
static int loaded; ///< 1: rt filled and every fat binary replayed; -1: no runtime
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define NO_RUNTIME 3 /* cudaErrorInitializationError */

static void load(void) {
    static const char *const sonames[] = {PSH_CUDART_SONAME, NULL};
    const DlLibrary lib = {"CUDA runtime", sonames, NULL, cudart_symbols,
                           sizeof(cudart_symbols) / sizeof(cudart_symbols[0])};
    char why[256];
    if (dl_load(&lib, &rt, why, sizeof(why)) < 0) {
        loaded = -1;
        return;
    }
    for (int i = 0; i < num_fatbins; i++) {
        Fatbin *const b = &fatbins[i];
        b->real = rt.__cudaRegisterFatBinary(b->wrapper);
        for (int k = 0; k < b->num_fn; k++)
            rt.__cudaRegisterFunction(b->real, b->fn[k].host, b->fn[k].device, b->fn[k].name,
                                      b->fn[k].thread_limit, NULL, NULL, NULL, NULL, NULL);
        rt.__cudaRegisterFatBinaryEnd(b->real);
    }
    loaded = 1;
}

static int ready(void) {
    pthread_once(&once, load);
    return loaded == 1;
}

/* The handle handed out is the record's address: only these functions see it. */
void **__cudaRegisterFatBinary(void *const wrapper) {
    if (num_fatbins == MAX_FATBINS) abort(); /* a build with more kernel files: raise it */
    fatbins[num_fatbins].wrapper = wrapper;
    return (void **)&fatbins[num_fatbins++];
}

void __cudaRegisterFatBinaryEnd(void **const handle) {
    (void)handle;
}

int __cudaRegisterFunction(void **const handle, const char *const host, char *const device,
                           const char *const name, const int thread_limit, void *const tid,
                           void *const bid, Dim3 *const bdim, Dim3 *const gdim, int *const wsize) {
    (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize; /* clang passes NULL */
    Fatbin *const b = (Fatbin *)(void *)handle;
    if (b->num_fn == b->cap_fn) {
        const int cap = b->cap_fn ? 2 * b->cap_fn : 16;
        Function *const fn = realloc(b->fn, (size_t)cap * sizeof(*fn));
        if (!fn) return 0; /* that kernel then fails to launch, with the runtime's error */
        b->fn = fn;
        b->cap_fn = cap;
    }
    b->fn[b->num_fn++] = (Function){host, device, name, thread_limit};
    return 0;
}

void __cudaUnregisterFatBinary(void **const handle) {
    Fatbin *const b = (Fatbin *)(void *)handle;
    if (loaded == 1 && b->real) rt.__cudaUnregisterFatBinary(b->real);
    free(b->fn);
    b->fn = NULL;
    b->num_fn = b->cap_fn = 0;
}

unsigned __cudaPushCallConfiguration(const Dim3 grid, const Dim3 block, const size_t shared,
                                     void *const stream) {
    return ready() ? rt.__cudaPushCallConfiguration(grid, block, shared, stream) : NO_RUNTIME;
}

int __cudaPopCallConfiguration(Dim3 *const grid, Dim3 *const block, size_t *const shared,
                               void *const stream) {
    return ready() ? rt.__cudaPopCallConfiguration(grid, block, shared, stream) : NO_RUNTIME;
}

int cudaLaunchKernel(const void *const fn, const Dim3 grid, const Dim3 block, void **const args,
                     const size_t shared, void *const stream) {
    return ready() ? rt.cudaLaunchKernel(fn, grid, block, args, shared, stream) : NO_RUNTIME;
}
