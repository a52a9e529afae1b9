/*
 * psnrhvs_list_devices(OPENCL, verbose) on every device present: no kernel of
 * either build may use private-memory scratch (the per-block arrays must live
 * in registers). Each build also describes psh_cl_probe, a kernel with no
 * private data: a device that reports a nonzero CL_KERNEL_PRIVATE_MEM_SIZE
 * even for it (PoCL's CPU device reports a fixed 1024 bytes for any kernel)
 * reports a floor, not spills, so each kernel must report exactly that floor;
 * on GPUs the floor is 0.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psnrhvs.h"

/* The private_mem_size of "<build> <kernel>:" in line, or -1. */
static long long private_of(const char *const line) {
    const char *const p = strstr(line, "private_mem_size ");
    const char *const nl = strchr(line, '\n');
    if (!p || (nl && p > nl)) return -1;
    return strtoll(p + strlen("private_mem_size "), NULL, 10);
}

int main(void) {
    static char buf[1 << 16];
    const int err = psnrhvs_list_devices(PSNRHVS_BACKEND_OPENCL, 1, buf, sizeof(buf));
    fputs(buf, stdout);
    if (err == PSNRHVS_ERR(ENODEV)) {
        printf("SKIP: no OpenCL device\n");
        return 77;
    }
    if (err) return 1;
    int builds = 0, failures = 0;
    if (strstr(buf, "build failed")) {
        printf("FAIL: a kernel build failed\n");
        failures++;
    }
    /* Each build prints its three kernels, then its probe. */
    for (const char *p = buf; (p = strstr(p, " psh_cl_terms: ")); p++) {
        const char *const lines[4] = {p, strstr(p, " psh_cl_maps: "), strstr(p, " psh_cl_walk: "),
                                      strstr(p, " psh_cl_probe: ")};
        if (!lines[1] || !lines[2] || !lines[3]) {
            printf("FAIL: a build lists only some kernels\n");
            return 1;
        }
        const long long floor = private_of(lines[3]);
        if (floor < 0) return 1;
        if (floor)
            printf("note: this device reports %lld bytes for a kernel without private "
                   "data; each kernel must report the same\n",
                   floor);
        for (int k = 0; k < 3; k++) {
            const long long n = private_of(lines[k]);
            if (n != floor) {
                printf("FAIL: %.40s... uses %lld bytes of private memory (floor %lld)\n",
                       lines[k] + 1, n, floor);
                failures++;
            }
        }
        builds++;
    }
    if (!builds) {
        printf("FAIL: no kernel was described\n");
        return 1;
    }
    printf("%d builds checked, %d failures\n", builds, failures);
    return failures != 0;
}
