/*
 * The host layer's view of a frame, shared by every backend: the scored
 * geometry of each plane, the packed layout a picture pair takes in a
 * staging or device buffer, the copy into it, and the final step from a
 * plane's f32 sum to its raw score.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_FRAME_H
#define PSNRHVS_SRC_FRAME_H

#include <stddef.h>

#include "psnrhvs.h"
#include "thread_pool.h"

typedef struct PsnrHvsPlaneGeometry {
    int w, h;         ///< scored size (libvmaf's: chroma rounded down, spec section 1)
    int bw, bh;       ///< 8x8 blocks along each side, step 7
    int step;         ///< device pictures: samples from one of the plane's to the next (2:
                      ///< chroma_interleaved chroma), else 1
    size_t row_bytes; ///< w * bytes per sample: a packed row
    size_t ref_off;   ///< packed layout: the plane of the reference picture
    size_t dist_off;  ///< and of the (first) distorted one; rendition r's is
                      ///< picture_bytes * r further
} PsnrHvsPlaneGeometry;

typedef struct PsnrHvsFrameGeometry {
    int num_planes;        ///< scored: 3, or 1 for 4:0:0 or luma only
    int bitdepth;          ///< 8, 10 or 12
    int bytes_per_sample;  ///< 1 at 8 bits, 2 above
    int mask_product;      ///< PSH_MASK_PRODUCT_* (core/block.h)
    int renditions;        ///< distorted pictures per reference (1, or a ladder's)
    int sample_shift;      ///< device pictures: msb_aligned's 16 - bitdepth, else 0
    int reference_on_host; ///< device pictures: the reference's are host memory (planar)
    PsnrHvsPlaneGeometry plane[3];
    size_t picture_bytes; ///< one packed picture: its planes' rows back to back
    size_t frame_bytes;   ///< a packed frame: the reference picture, then each distorted
} PsnrHvsFrameGeometry;

/* Blocks (step 7) along a plane dimension; 0 below 8. */
static inline int psh_blocks_along(const int n) {
    return n < 8 ? 0 : (n - 8) / 7 + 1;
}

/* Geometry of valid settings. PSNRHVS_ERR(ERANGE), after logging why, when
 * a plane to score is smaller than one 8x8 block. */
int psh_frame_geometry(PsnrHvsFrameGeometry *g, const PsnrHvsSettings *s);

/* Copy the scored rows of ref and the g->renditions pictures dist[] into
 * dst in the packed layout, on the pool's threads (NULL: the caller's). */
void psh_frame_pack(const PsnrHvsFrameGeometry *g, const PsnrHvsPicture *ref,
                    const PsnrHvsPicture *dist, unsigned char *dst, PsnrHvsThreadPool *pool);

/* The same into the staging buffer of an upload (a device's DMA reads it
 * next, the CPU does not): its rows are stored past the caches. */
void psh_frame_pack_upload(const PsnrHvsFrameGeometry *g, const PsnrHvsPicture *ref,
                           const PsnrHvsPicture *dist, unsigned char *dst, PsnrHvsThreadPool *pool);

/* The reference picture alone into dst (the packed layout's first picture),
 * for an upload. */
void psh_frame_pack_reference(const PsnrHvsFrameGeometry *g, const PsnrHvsPicture *ref,
                              unsigned char *dst, PsnrHvsThreadPool *pool);

/* Samples above 2^bitdepth - 1 (possible only above 8 bits) have no
 * meaning and would overflow the DCT's i32 products (spec section 2): no
 * backend scores them. The first one of a frame, in the order picture
 * (reference, then distorted), plane, row, column. */
typedef struct PsnrHvsRangeError {
    int found;
    int side; ///< 0 reference, 1 + r rendition r's distorted
    int plane, x, y;
    int value;
} PsnrHvsRangeError;

/* The largest sample of rows [y0, y1) of a plane (16-bit samples). */
unsigned psh_rows_max16(const void *data, ptrdiff_t stride, int w, int y0, int y1);

/* Keeps in *into whichever of the two comes first. */
void psh_range_merge(PsnrHvsRangeError *into, const PsnrHvsRangeError *e);

/* Records in *e the first sample above max in rows [y0, y1) of a plane of
 * one side, if it comes before what *e holds. Returns 1 if one was found. */
int psh_range_find(PsnrHvsRangeError *e, int side, int plane, const void *data, ptrdiff_t stride,
                   int w, int y0, int y1, unsigned max);

/* The same over a frame's pictures (ref, then g->renditions dist[]), all
 * planes (packed or not). */
int psh_range_check(const PsnrHvsFrameGeometry *g, const PsnrHvsPicture *ref,
                    const PsnrHvsPicture *dist, PsnrHvsRangeError *e);

/* The same for a plane of a device picture as stored (copied to the host
 * as is): every step-th sample of rows [0, h), w of them a row; a sample
 * out of range has a bit outside the bit depth's, moved up by shift. */
int psh_range_find_stored(PsnrHvsRangeError *e, int side, int plane, const void *data,
                          ptrdiff_t stride, int w, int h, int step, int shift, int bitdepth);

/* Logs an error found by the checks above; returns PSNRHVS_ERR(EINVAL). */
int psh_range_report(const PsnrHvsContext *c, const PsnrHvsRangeError *e);

/* The pictures of a packed frame (psh_frame_pack's layout): pics[0]
 * the reference, pics[1 + r] rendition r. */
void psh_frame_pictures(const PsnrHvsFrameGeometry *g, const unsigned char *packed,
                        PsnrHvsPicture *pics);

/* The raw score of plane p from its f32 chain sum (spec section 3, last
 * step: two f32 divisions, as libvmaf). */
float psh_frame_finish(const PsnrHvsFrameGeometry *g, int p, float sum);

#endif /* PSNRHVS_SRC_FRAME_H */
