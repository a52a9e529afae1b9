/*
 * The scalar reference: the per-block code of src/core/ driven exactly as
 * libvmaf drives its own, block after block with one f32 accumulator.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "plane.h"

#include "core/block.h"

void psh_load_block(int32_t out[64], const void *data, ptrdiff_t stride, int x, int y,
                    int bitdepth) {
    const uint8_t *row = (const uint8_t *)data + (ptrdiff_t)y * stride;
    if (bitdepth == 8) {
        for (int i = 0; i < 8; i++, row += stride)
            for (int j = 0; j < 8; j++) out[i * 8 + j] = row[x + j];
    } else {
        for (int i = 0; i < 8; i++, row += stride) {
            const uint16_t *r16 = (const uint16_t *)(const void *)row;
            for (int j = 0; j < 8; j++) out[i * 8 + j] = r16[x + j];
        }
    }
}

float psh_plane_sum_scalar(const PsnrHvsPlanePair *p) {
    float sum = 0.0f;
    for (int y = 0; y < p->h - 7; y += 7) {
        for (int x = 0; x < p->w - 7; x += 7) {
            int32_t s[64], d[64];
            float terms[64];
            psh_load_block(s, p->ref, p->ref_stride, x, y, p->bitdepth);
            psh_load_block(d, p->dist, p->dist_stride, x, y, p->bitdepth);
            psh_block_terms(s, d, p->table, p->mask_product, terms);
            for (int k = 0; k < 64; k++) sum += terms[k];
        }
    }
    return sum;
}
