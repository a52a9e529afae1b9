/*
 * psh_sqrt_rn_int against sqrtf for every positive f32, +0 and +inf (2^31
 * values, about a minute on 8 threads). Not a ctest test: run it by hand
 * after touching src/core/int_math.h (docs/opencl.md).
 * usage: opencl_sqrt_exhaustive [threads, default 8]
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/int_math.h"

#define LAST 0x7f800000u /* +inf */

typedef struct Job {
    uint32_t first, step;
    uint64_t mismatches;
    uint32_t example;
} Job;

static void *run(void *arg) {
    Job *const j = arg;
    for (uint64_t u = j->first; u <= LAST; u += j->step) {
        float x, got, want;
        const uint32_t b = (uint32_t)u;
        memcpy(&x, &b, sizeof(x));
        got = psh_sqrt_rn_int(x);
        want = __builtin_sqrtf(x);
        if (memcmp(&got, &want, sizeof(got))) {
            if (!j->mismatches) j->example = b;
            j->mismatches++;
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 8;
    if (n < 1 || n > 256) n = 8;
    pthread_t t[256];
    Job jobs[256];
    for (int i = 0; i < n; i++) {
        jobs[i] = (Job){.first = (uint32_t)i, .step = (uint32_t)n};
        if (pthread_create(&t[i], NULL, run, &jobs[i])) return 1;
    }
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        total += jobs[i].mismatches;
        if (jobs[i].mismatches) printf("mismatch at bits 0x%08x\n", jobs[i].example);
    }
    printf("%llu values checked, %llu mismatches\n", (unsigned long long)LAST + 1,
           (unsigned long long)total);
    return total != 0;
}
