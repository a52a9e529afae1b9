/*
 * A stand-in for libcudart with the seven functions src/sycl/cudart_dl.c
 * forwards, recording each call (test_cudart_dl.c reads fake_cudart_log()).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct Dim3 {
    unsigned x, y, z;
} Dim3;

static char calls[4096];
static void *handle_storage;

const char *fake_cudart_log(void) {
    return calls;
}

static void note(const char *const fmt, ...) {
    const size_t n = strlen(calls);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(calls + n, sizeof(calls) - n, fmt, ap);
    va_end(ap);
}

void **__cudaRegisterFatBinary(void *const wrapper) {
    note("reg %p;", wrapper);
    return &handle_storage;
}

void __cudaRegisterFatBinaryEnd(void **const h) {
    note("end %d;", h == &handle_storage);
}

void __cudaUnregisterFatBinary(void **const h) {
    note("unreg %d;", h == &handle_storage);
}

void __cudaRegisterFunction(void **const h, const char *const host, char *const device,
                            const char *const name, const int limit, void *const tid,
                            void *const bid, Dim3 *const bdim, Dim3 *const gdim, int *const ws) {
    note("fn %d %p %s %s %d %d;", h == &handle_storage, (const void *)host, device, name, limit,
         !tid && !bid && !bdim && !gdim && !ws);
}

unsigned __cudaPushCallConfiguration(const Dim3 grid, const Dim3 block, const size_t shared,
                                     void *const stream) {
    note("push %u,%u,%u %u,%u,%u %zu %p;", grid.x, grid.y, grid.z, block.x, block.y, block.z,
         shared, stream);
    return 0;
}

int __cudaPopCallConfiguration(Dim3 *const grid, Dim3 *const block, size_t *const shared,
                               void *const stream) {
    (void)stream;
    *grid = (Dim3){7, 2, 1};
    *block = (Dim3){64, 1, 1};
    *shared = 16;
    note("pop;");
    return 0;
}

int cudaLaunchKernel(const void *const fn, const Dim3 grid, const Dim3 block, void **const args,
                     const size_t shared, void *const stream) {
    note("launch %p %u,%u,%u %u %p %zu %p;", fn, grid.x, grid.y, grid.z, block.x, (void *)args,
         shared, stream);
    return 0;
}
