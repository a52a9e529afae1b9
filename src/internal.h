/*
 * Library-internal context and helpers shared by lib.c and the backends.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_INTERNAL_H
#define PSNRHVS_SRC_INTERNAL_H

#include <stdarg.h>

#include "psnrhvs.h"
#include "backend.h"

struct PsnrHvsContext {
    PsnrHvsSettings s;
    int num_planes; ///< planes scored: 3, or 1 for 4:0:0 / luma only
    int plane_w[3]; ///< scored (libvmaf) plane sizes
    int plane_h[3];
    int queued; ///< frames sent and not yet received
    const PsnrHvsBackendOps *ops;
    void *backend; ///< the backend's own state
};

#if defined(__GNUC__)
#define PSNRHVS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PSNRHVS_PRINTF(a, b)
#endif

/* Formats one message and hands it to the settings' logger. */
void psnrhvs_log(const PsnrHvsContext *c, const char *fmt, ...) PSNRHVS_PRINTF(2, 3);
void psnrhvs_log_settings(const PsnrHvsSettings *s, const char *fmt, ...) PSNRHVS_PRINTF(2, 3);

/* libvmaf's scored plane size (chroma rounded down, spec section 1). */
void psnrhvs_plane_size(enum PsnrHvsPixelLayout layout, int width, int height, int plane, int *w,
                        int *h);

/* Number of 8x8 blocks (step 7) along a plane dimension; 0 below 8. */
static inline int psnrhvs_blocks_along(int n) {
    return n < 8 ? 0 : (n - 8) / 7 + 1;
}

/* The raw score from a plane's f32 sum (spec section 3, last step). */
float psnrhvs_plane_finish(float sum, int w, int h, int bitdepth);

#endif /* PSNRHVS_SRC_INTERNAL_H */
