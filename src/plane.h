/*
 * One plane of a picture pair, and the scalar reference that scores it.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_PLANE_H
#define PSNRHVS_SRC_PLANE_H

#include <stddef.h>
#include <stdint.h>

typedef struct PsnrHvsPlanePair {
    const void *ref; ///< uint8_t samples at 8 bits, uint16_t above
    const void *dist;
    ptrdiff_t ref_stride; ///< bytes
    ptrdiff_t dist_stride;
    int w, h;         ///< scored size
    int table;        ///< 0 = Y, 1 = Cb, 2 = Cr tables
    int bitdepth;     ///< 8, 10 or 12
    int mask_product; ///< PSH_MASK_PRODUCT_*
} PsnrHvsPlanePair;

/* The 8x8 block at (x, y) as i32 samples, row-major. */
void psh_load_block(int32_t out[64], const void *data, ptrdiff_t stride, int x, int y,
                    int bitdepth);

/* The scalar reference (libvmaf's loop): every block in raster order, one
 * running f32 sum of all terms (spec section 3). Returns that sum. */
float psh_plane_sum_scalar(const PsnrHvsPlanePair *p);

#endif /* PSNRHVS_SRC_PLANE_H */
