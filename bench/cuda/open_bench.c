/*
 * Where a cuda scorer's start-up goes: the context, then pinned frame
 * buffers the way gpu_open() makes them (cudaMallocHost) against anonymous
 * memory faulted in and registered (cudaHostRegister), with and without
 * transparent huge pages, and device buffers. Sizes: a 3840x2160 10-bit
 * pair (50 MB), 8 of them, as a mix's cuda slots take.
 *   open_bench [MB] [COUNT]       lines "RESULT ..." on stdout
 * Built there: cc -O2 open_bench.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#define CK(x)                                                                                      \
    do {                                                                                           \
        const cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) return printf("%s: %s\n", #x, cudaGetErrorString(e_)), 1;           \
    } while (0)

/* GB/s of ten uploads of bytes from h after two unmeasured, or -1. */
static double upload_gbps(void *const d, const void *const h, const size_t bytes,
                          const cudaStream_t st) {
    double t = 0;
    for (int k = 0; k < 12; k++) {
        if (k == 2) {
            if (cudaStreamSynchronize(st) != cudaSuccess) return -1;
            t = now();
        }
        if (cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st) != cudaSuccess) return -1;
    }
    if (cudaStreamSynchronize(st) != cudaSuccess) return -1;
    return 10.0 * (double)bytes / (now() - t) / 1e9;
}

int main(int argc, char **argv) {
    const size_t mb = argc > 1 ? strtoull(argv[1], NULL, 10) : 50;
    const int count = argc > 2 ? atoi(argv[2]) : 8;
    const size_t bytes = mb << 20;
    void *p[64];
    double t = now();
    CK(cudaFree(0));
    printf("RESULT open: context (cudaFree(0)): %.1f ms\n", (now() - t) * 1e3);
    for (int round = 0; round < 2; round++) {
        t = now();
        for (int i = 0; i < count; i++) CK(cudaMallocHost(&p[i], bytes));
        const double alloc = now() - t;
        t = now();
        for (int i = 0; i < count; i++) CK(cudaFreeHost(p[i]));
        printf("RESULT open: cudaMallocHost %d x %zu MB: %.1f ms (free %.1f ms)\n", count, mb,
               alloc * 1e3, (now() - t) * 1e3);
    }
    for (int huge = 0; huge < 2; huge++) {
        for (int round = 0; round < 2; round++) {
            double fault = 0, reg = 0;
            for (int i = 0; i < count; i++) {
                t = now();
                p[i] =
                    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p[i] == MAP_FAILED) return printf("mmap failed\n"), 1;
                if (huge) madvise(p[i], bytes, MADV_HUGEPAGE);
#ifdef MADV_POPULATE_WRITE
                if (madvise(p[i], bytes, MADV_POPULATE_WRITE))
#endif
                    memset(p[i], 0, bytes);
                const double t1 = now();
                CK(cudaHostRegister(p[i], bytes, cudaHostRegisterPortable));
                fault += t1 - t;
                reg += now() - t1;
            }
            t = now();
            for (int i = 0; i < count; i++) {
                CK(cudaHostUnregister(p[i]));
                munmap(p[i], bytes);
            }
            printf("RESULT open: anonymous%s %d x %zu MB: fault in %.1f ms, register %.1f ms "
                   "(unregister and unmap %.1f ms)\n",
                   huge ? " (huge pages)" : "", count, mb, fault * 1e3, reg * 1e3,
                   (now() - t) * 1e3);
        }
    }
    t = now();
    for (int i = 0; i < count; i++) CK(cudaMalloc(&p[i], bytes));
    const double dev = now() - t;
    t = now();
    for (int i = 0; i < count; i++) CK(cudaMemset(p[i], 0, bytes));
    CK(cudaDeviceSynchronize());
    printf("RESULT open: cudaMalloc %d x %zu MB: %.1f ms, memset %.1f ms\n", count, mb, dev * 1e3,
           (now() - t) * 1e3);
    /* an upload from each kind, to see the registered memory is as fast */
    void *d = p[0], *h;
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaMallocHost(&h, bytes));
    memset(h, 1, bytes);
    printf("RESULT open: upload from cudaMallocHost: %.1f GB/s\n", upload_gbps(d, h, bytes, st));
    void *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(a, bytes, MADV_HUGEPAGE);
    memset(a, 1, bytes);
    CK(cudaHostRegister(a, bytes, cudaHostRegisterPortable));
    printf("RESULT open: upload from registered anonymous memory: %.1f GB/s\n",
           upload_gbps(d, a, bytes, st));
    return 0;
}
