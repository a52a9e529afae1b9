/*
 * src/sycl/cudart_dl.c, the SYCL module's CUDA runtime opened at the first
 * launch: registration before it is recorded, nothing loaded; the first
 * launch opens the runtime (here fake_cudart.c, PSH_CUDART_SONAME its path),
 * replays the fat binary and its kernels with the same pointers, then
 * forwards the call configuration and the launch; unregistration forwards.
 * Built with a soname that does not exist (argument "missing"): every
 * launch fails with cudaErrorInitializationError (3), nothing crashes.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct Dim3 {
    unsigned x, y, z;
} Dim3;

void **__cudaRegisterFatBinary(void *wrapper);
void __cudaRegisterFatBinaryEnd(void **h);
void __cudaUnregisterFatBinary(void **h);
int __cudaRegisterFunction(void **h, const char *host, char *device, const char *name, int limit,
                           void *tid, void *bid, Dim3 *bdim, Dim3 *gdim, int *ws);
unsigned __cudaPushCallConfiguration(Dim3 grid, Dim3 block, size_t shared, void *stream);
int __cudaPopCallConfiguration(Dim3 *grid, Dim3 *block, size_t *shared, void *stream);
int cudaLaunchKernel(const void *fn, Dim3 grid, Dim3 block, void **args, size_t shared,
                     void *stream);

static int failures;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("FAIL: " __VA_ARGS__);                                                          \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

int main(const int argc, char **const argv) {
    const int missing = argc > 1 && !strcmp(argv[1], "missing");
    static int wrapper;
    static const char host1 = 1, host2 = 2;
    char dev1[] = "k1_mangled", dev2[] = "k2_mangled";
    void **const h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, &host1, dev1, "k1", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(h, &host2, dev2, "k2", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    if (!missing)
        CHECK(!dlopen(PSH_CUDART_SONAME, RTLD_NOW | RTLD_NOLOAD),
              "the runtime was loaded before the first launch");

    void *args[1] = {NULL};
    Dim3 g = {0, 0, 0}, b = {0, 0, 0};
    size_t shared = 0;
    void *stream = NULL;
    const unsigned pushed =
        __cudaPushCallConfiguration((Dim3){7, 2, 1}, (Dim3){64, 1, 1}, 16, NULL);
    const int popped = __cudaPopCallConfiguration(&g, &b, &shared, &stream);
    const int launched = cudaLaunchKernel(&host2, g, b, args, shared, stream);
    if (missing) {
        CHECK(pushed == 3 && popped == 3 && launched == 3,
              "without a runtime: push %u, pop %d, launch %d, expected 3", pushed, popped,
              launched);
        __cudaUnregisterFatBinary(h);
        printf("%s\n", failures ? "failed" : "no runtime: every call says so");
        return failures != 0;
    }
    CHECK(!pushed && !popped && !launched, "push %u, pop %d, launch %d", pushed, popped, launched);
    CHECK(g.x == 7 && g.y == 2 && b.x == 64 && shared == 16, "popped %u,%u %u %zu", g.x, g.y, b.x,
          shared);
    __cudaUnregisterFatBinary(h);

    void *const fake = dlopen(PSH_CUDART_SONAME, RTLD_NOW | RTLD_NOLOAD);
    CHECK(fake != NULL, "the runtime is not loaded after a launch");
    const char *(*log)(void) = NULL;
    if (fake) *(void **)&log = dlsym(fake, "fake_cudart_log");
    char want[1024];
    snprintf(want, sizeof(want),
             "reg %p;fn 1 %p k1_mangled k1 -1 1;fn 1 %p k2_mangled k2 -1 1;end 1;"
             "push 7,2,1 64,1,1 16 %p;pop;launch %p 7,2,1 64 %p 16 %p;unreg 1;",
             (void *)&wrapper, (const void *)&host1, (const void *)&host2, NULL,
             (const void *)&host2, (void *)args, NULL);
    const char *const got = log ? log() : "(no log)";
    CHECK(!strcmp(got, want), "the runtime saw\n  %s\nexpected\n  %s", got, want);
    printf("%s\n",
           failures ? "failed" : "registration replayed at the first launch, calls forwarded");
    return failures != 0;
}
