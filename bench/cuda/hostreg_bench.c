/*
 * Can the GPU read a page-cached raw file where it is mapped, with no copy
 * on the host? Times, on one mapped file: cuMemHostRegister (read-only) of
 * the whole mapping and of one frame at a time, the upload of each frame
 * from the registered mapping, from a pinned buffer, and from the mapping
 * unregistered (the driver's own staging), and a host memcpy into the
 * pinned buffer (what packing costs).
 *   hostreg_bench FILE FRAME_BYTES [FRAMES]
 * Lines "RESULT ..." on stdout. libcuda is opened at run time.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef unsigned long long CUdeviceptr;
#define REG_READ_ONLY 0x08 /* CU_MEMHOSTREGISTER_READ_ONLY */

static CUresult (*cuInit_)(unsigned);
static CUresult (*cuDeviceGet_)(CUdevice *, int);
static CUresult (*cuDevicePrimaryCtxRetain_)(CUcontext *, CUdevice);
static CUresult (*cuCtxSetCurrent_)(CUcontext);
static CUresult (*cuMemAlloc_)(CUdeviceptr *, size_t);
static CUresult (*cuMemAllocHost_)(void **, size_t);
static CUresult (*cuMemHostRegister_)(void *, size_t, unsigned);
static CUresult (*cuMemHostUnregister_)(void *);
static CUresult (*cuMemcpyHtoD_)(CUdeviceptr, const void *, size_t);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define SYM(n)                                                                                     \
    do {                                                                                           \
        *(void **)&n##_ = dlsym(h, #n "_v2");                                                      \
        if (!n##_) *(void **)&n##_ = dlsym(h, #n);                                                 \
        if (!n##_) return fprintf(stderr, "no %s\n", #n), 1;                                       \
    } while (0)
#define CK(x)                                                                                      \
    do {                                                                                           \
        const CUresult r_ = (x);                                                                   \
        if (r_) return fprintf(stderr, "%s: error %d\n", #x, r_), 1;                               \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 3) return fprintf(stderr, "usage: hostreg_bench FILE FRAME_BYTES [FRAMES]\n"), 2;
    const size_t fb = strtoull(argv[2], NULL, 10);
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) return fprintf(stderr, "no libcuda: %s\n", dlerror()), 1;
    SYM(cuInit);
    SYM(cuDeviceGet);
    SYM(cuDevicePrimaryCtxRetain);
    SYM(cuCtxSetCurrent);
    SYM(cuMemAlloc);
    SYM(cuMemAllocHost);
    SYM(cuMemHostRegister);
    SYM(cuMemHostUnregister);
    SYM(cuMemcpyHtoD);
    const int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) return perror(argv[1]), 1;
    size_t frames = (size_t)st.st_size / fb;
    if (argc > 3 && strtoull(argv[3], NULL, 10) < frames) frames = strtoull(argv[3], NULL, 10);
    const long page = sysconf(_SC_PAGESIZE);
    const size_t len = (frames * fb + page - 1) / page * page;
    double t = now();
    CK(cuInit_(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet_(&dev, 0));
    CK(cuDevicePrimaryCtxRetain_(&ctx, dev));
    CK(cuCtxSetCurrent_(ctx));
    printf("RESULT hostreg: cuInit + primary context %.1f ms\n", (now() - t) * 1e3);
    CUdeviceptr d;
    void *pinned;
    CK(cuMemAlloc_(&d, fb));
    t = now();
    CK(cuMemAllocHost_(&pinned, fb));
    printf("RESULT hostreg: cuMemAllocHost of %.1f MB %.2f ms\n", fb / 1e6, (now() - t) * 1e3);
    memset(pinned, 1, fb);

    unsigned char *map = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) return perror("mmap"), 1;
    volatile unsigned char sink = 0;
    for (size_t i = 0; i < len; i += page) sink += map[i];

    /* host copy into pinned: one thread (packing uses up to 16) */
    t = now();
    for (size_t f = 0; f < frames; f++) memcpy(pinned, map + f * fb, fb);
    double s = now() - t;
    printf("RESULT hostreg: memcpy mapping -> pinned, 1 thread: %.2f GB/s\n",
           frames * fb / s / 1e9);

    t = now();
    for (size_t f = 0; f < frames; f++) CK(cuMemcpyHtoD_(d, pinned, fb));
    s = now() - t;
    printf("RESULT hostreg: upload from pinned: %.2f GB/s (%.3f ms a frame)\n",
           frames * fb / s / 1e9, s * 1e3 / frames);

    t = now();
    for (size_t f = 0; f < frames; f++) CK(cuMemcpyHtoD_(d, map + f * fb, fb));
    s = now() - t;
    printf("RESULT hostreg: upload from the mapping, unregistered: %.2f GB/s\n",
           frames * fb / s / 1e9);

    /* one frame at a time: register, upload, unregister */
    t = now();
    double treg = 0, tunreg = 0;
    for (size_t f = 0; f < frames; f++) {
        const size_t a = f * fb / page * page, b = ((f + 1) * fb + page - 1) / page * page;
        const double t0 = now();
        CK(cuMemHostRegister_(map + a, b - a, REG_READ_ONLY));
        const double t1 = now();
        CK(cuMemcpyHtoD_(d, map + f * fb, fb));
        const double t2 = now();
        CK(cuMemHostUnregister_(map + a));
        tunreg += now() - t2;
        treg += t1 - t0;
    }
    s = now() - t;
    printf("RESULT hostreg: a frame at a time: register %.3f ms, unregister %.3f ms, all %.3f ms a "
           "frame (%.2f GB/s)\n",
           treg * 1e3 / frames, tunreg * 1e3 / frames, s * 1e3 / frames, frames * fb / s / 1e9);

    /* the whole mapping at once */
    t = now();
    CK(cuMemHostRegister_(map, len, REG_READ_ONLY));
    const double reg = now() - t;
    printf("RESULT hostreg: register the whole mapping (%.2f GB): %.1f ms (%.1f GB/s)\n", len / 1e9,
           reg * 1e3, len / reg / 1e9);
    t = now();
    for (size_t f = 0; f < frames; f++) CK(cuMemcpyHtoD_(d, map + f * fb, fb));
    s = now() - t;
    printf("RESULT hostreg: upload from the registered mapping: %.2f GB/s (%.3f ms a frame)\n",
           frames * fb / s / 1e9, s * 1e3 / frames);
    t = now();
    CK(cuMemHostUnregister_(map));
    printf("RESULT hostreg: unregister the whole mapping: %.1f ms\n", (now() - t) * 1e3);
    (void)sink;
    munmap(map, len);
    close(fd);
    return 0;
}
