/*
 * Content for the device backends' parity tests (opencl_parity, sycl_parity,
 * vulkan_parity): one generator, so that all score the same kind of frames.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_COMMON_PARITY_CONTENT_H
#define PSNRHVS_TESTS_COMMON_PARITY_CONTENT_H

#include <stddef.h>
#include <stdint.h>

static uint32_t psnrhvs_parity_rng = 12345;

static inline uint32_t psnrhvs_parity_rnd(void) {
    psnrhvs_parity_rng ^= psnrhvs_parity_rng << 13;
    psnrhvs_parity_rng ^= psnrhvs_parity_rng >> 17;
    psnrhvs_parity_rng ^= psnrhvs_parity_rng << 5;
    return psnrhvs_parity_rng;
}

/* A plane of content: gradient, texture and flat areas; dist adds noise of a
 * strength that changes across the frame (so terms vary widely in size),
 * and frame 0 of each case is scored against itself (all terms zero). */
static inline void psnrhvs_parity_fill(uint8_t *ref, uint8_t *dist, const int w, const int h,
                                       const ptrdiff_t stride, const int bitdepth,
                                       const int frame) {
    const int max = (1 << bitdepth) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v = (x * max) / (w + 1) / 2 +
                    ((x / 16 + y / 16) & 1 ? (int)(psnrhvs_parity_rnd() % 64) : 0);
            if (y > h / 2 && x < w / 3) v = max / 3; /* flat */
            v = v > max ? max : v;
            int n = frame ? (int)(psnrhvs_parity_rnd() % (1 + (frame * 7 * (x + y)) / (w + h))) : 0;
            if (psnrhvs_parity_rnd() % 97 == 0 && frame) /* outliers */
                n = (int)(psnrhvs_parity_rnd() % (max + 1)) - v;
            int d = v + (psnrhvs_parity_rnd() & 1 ? n : -n);
            d = d < 0 ? 0 : d > max ? max : d;
            if (bitdepth == 8) {
                ref[y * stride + x] = (uint8_t)v;
                dist[y * stride + x] = (uint8_t)d;
            } else {
                ((uint16_t *)(ref + y * stride))[x] = (uint16_t)v;
                ((uint16_t *)(dist + y * stride))[x] = (uint16_t)d;
            }
        }
}

#endif /* PSNRHVS_TESTS_COMMON_PARITY_CONTENT_H */
