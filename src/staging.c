/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "staging.h"

#include <string.h>

typedef struct PackJob {
    const PsnrHvsStagingLayout *layout;
    const PsnrHvsPicture *pic[2];
    unsigned char *dst;
    long long rows; ///< rows of all planes of both pictures
    int ntasks;
} PackJob;

/* Task t copies rows [rows * t / n, rows * (t + 1) / n) of the sequence
 * ref planes 0..2, then dist planes 0..2. */
static void pack_task(void *const arg, const int task, const int worker) {
    const PackJob *const pj = arg;
    const long long r0 = pj->rows * task / pj->ntasks, r1 = pj->rows * (task + 1) / pj->ntasks;
    long long base = 0;
    for (int side = 0; side < 2; side++) {
        const PsnrHvsPicture *const pic = pj->pic[side];
        for (int p = 0; p < pj->layout->num_planes; p++) {
            const PsnrHvsStagingPlane *const pl = &pj->layout->plane[p];
            const long long y0 = r0 > base ? r0 - base : 0;
            const long long y1 = r1 - base < pl->h ? r1 - base : pl->h;
            unsigned char *out =
                pj->dst + (side ? pl->dist_off : pl->ref_off) + y0 * (long long)pl->row_bytes;
            const unsigned char *in = (const unsigned char *)pic->data[p] + y0 * pic->stride[p];
            for (long long y = y0; y < y1; y++, out += pl->row_bytes, in += pic->stride[p])
                memcpy(out, in, pl->row_bytes);
            base += pl->h;
        }
    }
}

void psnrhvs_staging_pack(const PsnrHvsStagingLayout *const layout, const PsnrHvsPicture *const ref,
                          const PsnrHvsPicture *const dist, unsigned char *const dst,
                          PsnrHvsThreadPool *const pool) {
    PackJob pj = {.layout = layout, .pic = {ref, dist}, .dst = dst};
    for (int p = 0; p < layout->num_planes; p++) pj.rows += 2 * (long long)layout->plane[p].h;
    const int size = pool ? psnrhvs_thread_pool_size(pool) : 1;
    pj.ntasks = size > 1 ? 4 * size : 1;
    if (pj.ntasks > pj.rows) pj.ntasks = (int)pj.rows;
    if (pj.ntasks <= 1 || !pool) {
        pj.ntasks = 1;
        pack_task(&pj, 0, 0);
        return;
    }
    psnrhvs_thread_pool_run(pool, pj.ntasks, pack_task, &pj);
}
