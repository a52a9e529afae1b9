/*
 * Packing a picture pair into one staging buffer for upload to a device:
 * the scored rows of each plane, back to back, copied by a thread pool (one
 * thread copies about 4-5 GB/s, short of what PCIe takes).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_STAGING_H
#define PSNRHVS_SRC_STAGING_H

#include <stddef.h>

#include "psnrhvs.h"
#include "thread_pool.h"

typedef struct PsnrHvsStagingPlane {
    size_t ref_off;   ///< byte offset of the reference plane in the buffer
    size_t dist_off;  ///< byte offset of the distorted plane
    size_t row_bytes; ///< bytes of one packed row (and of the scored row)
    int h;            ///< rows
} PsnrHvsStagingPlane;

typedef struct PsnrHvsStagingLayout {
    int num_planes;
    PsnrHvsStagingPlane plane[3];
} PsnrHvsStagingLayout;

/* Copy the scored rows of ref and dist into dst as the layout says. */
void psnrhvs_staging_pack(const PsnrHvsStagingLayout *layout, const PsnrHvsPicture *ref,
                          const PsnrHvsPicture *dist, unsigned char *dst, PsnrHvsThreadPool *pool);

#endif /* PSNRHVS_SRC_STAGING_H */
