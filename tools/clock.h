/*
 * psnrhvs: the CLI's clock for timings (--timing, batch's seconds).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TOOLS_CLOCK_H
#define PSNRHVS_TOOLS_CLOCK_H

#include <time.h>

/** Seconds on the monotonic clock. */
static inline double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif /* PSNRHVS_TOOLS_CLOCK_H */
