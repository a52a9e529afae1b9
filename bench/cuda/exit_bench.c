/*
 * What a process holding a CUDA context pays to end: a child opens what a
 * cuda scorer holds (context, registered huge-page buffers, device buffers,
 * streams), says so on a pipe and calls _exit(0), as the CLI does once its
 * outputs are in place; the parent times from that byte to waitpid's
 * return, which is the teardown a user waits for after the last score.
 * Variants free things first (timed in the child), to see which part the
 * exit pays for. Sizes: COUNT buffers of MB (a mix's 4 cuda slots of a
 * 3840x2160 8-bit pair by default).
 *   exit_bench [MB] [COUNT] [REPS]     lines "RESULT exit ..." on stdout
 * Built there: cc -O2 exit_bench.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

enum { NOTHING, CONTEXT, PINNED, DEVICE, FREED, RESET, NUM_VARIANTS };
static const char *const names[] = {
    "no CUDA",
    "context only",
    "context + registered buffers",
    "context + registered + device buffers + streams",
    "the same, buffers freed before (free timed in the child)",
    "the same, cudaDeviceReset before (reset timed in the child)",
};

#define MAX_BUFS 16

/* The child: builds what the variant holds, writes the ms it spent freeing
 * (as a double) on fd, then ends. Never returns. */
static void child(const int v, const size_t bytes, const int count, const int fd) {
    void *host[MAX_BUFS], *dev[MAX_BUFS];
    cudaStream_t st[MAX_BUFS];
    double freeing = 0;
    if (v >= CONTEXT && cudaFree(0) != cudaSuccess) _exit(2);
    for (int i = 0; v >= PINNED && i < count; i++) {
        host[i] = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (host[i] == MAP_FAILED) _exit(3);
        madvise(host[i], bytes, MADV_HUGEPAGE);
        memset(host[i], 1, bytes);
        if (cudaHostRegister(host[i], bytes, cudaHostRegisterPortable) != cudaSuccess) _exit(4);
    }
    for (int i = 0; v >= DEVICE && i < count; i++) {
        if (cudaMalloc(&dev[i], bytes) != cudaSuccess) _exit(5);
        if (cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking) != cudaSuccess) _exit(6);
        if (cudaMemcpyAsync(dev[i], host[i], bytes, cudaMemcpyHostToDevice, st[i]) != cudaSuccess)
            _exit(7);
    }
    if (v >= DEVICE && cudaDeviceSynchronize() != cudaSuccess) _exit(8);
    const double t = now();
    if (v == FREED)
        for (int i = 0; i < count; i++) {
            cudaStreamDestroy(st[i]);
            cudaFree(dev[i]);
            cudaHostUnregister(host[i]);
            munmap(host[i], bytes);
        }
    if (v == RESET) cudaDeviceReset();
    freeing = (now() - t) * 1e3;
    if (write(fd, &freeing, sizeof(freeing)) != (ssize_t)sizeof(freeing)) _exit(9);
    _exit(0);
}

int main(int argc, char **argv) {
    const size_t mb = argc > 1 ? strtoull(argv[1], NULL, 10) : 25;
    const int count = argc > 2 ? atoi(argv[2]) : 4;
    const int reps = argc > 3 ? atoi(argv[3]) : 3;
    if (count < 1 || count > MAX_BUFS || reps < 1) return fprintf(stderr, "bad arguments\n"), 2;
    for (int v = 0; v < NUM_VARIANTS; v++) {
        double worst = 0, sum = 0, freed = 0;
        for (int r = 0; r < reps; r++) {
            int fds[2];
            if (pipe(fds)) return perror("pipe"), 1;
            const pid_t pid = fork();
            if (pid < 0) return perror("fork"), 1;
            if (!pid) {
                close(fds[0]);
                child(v, mb << 20, count, fds[1]);
            }
            close(fds[1]);
            double f = 0;
            const ssize_t got = read(fds[0], &f, sizeof(f));
            const double t = now();
            int status = 0;
            waitpid(pid, &status, 0);
            const double exit_ms = (now() - t) * 1e3;
            close(fds[0]);
            if (got != (ssize_t)sizeof(f) || !WIFEXITED(status) || WEXITSTATUS(status))
                return printf("RESULT exit %s: child failed (status %d)\n", names[v], status), 1;
            sum += exit_ms;
            freed += f;
            worst = exit_ms > worst ? exit_ms : worst;
        }
        printf("RESULT exit %s (%d x %zu MB): exit %.1f ms (worst %.1f)", names[v], count, mb,
               sum / reps, worst);
        if (v >= FREED) printf(", before it %.1f ms", freed / reps);
        printf("\n");
    }
    return 0;
}
