/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "frame.h"

#include <errno.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

#include "core/block.h"
#include "layout.h"
#include "internal.h"

int psh_frame_geometry(PsnrHvsFrameGeometry *const g, const PsnrHvsSettings *const s) {
    memset(g, 0, sizeof(*g));
    /* The scored sizes are the file API's (layout.c), for every front-end. */
    const PsnrHvsFormat fmt = {s->width, s->height, s->layout, s->bitdepth};
    PsnrHvsGeometry fg;
    if (psnrhvs_geometry(&fmt, &fg) < 0) return PSNRHVS_ERR(EINVAL);
    g->num_planes = s->enable_chroma ? fg.num_planes : 1;
    g->bitdepth = s->bitdepth;
    g->bytes_per_sample = s->bitdepth > 8 ? 2 : 1;
    g->mask_product = s->mask_product == PSNRHVS_MASK_PRODUCT_EXACT ? PSH_MASK_PRODUCT_EXACT
                                                                    : PSH_MASK_PRODUCT_FLOAT;
    g->renditions = s->renditions > 1 ? s->renditions : 1;
    g->sample_shift = s->msb_aligned ? 16 - s->bitdepth : 0;
    g->reference_on_host = s->reference_on_host;
    for (int p = 0; p < 3; p++) {
        PsnrHvsPlaneGeometry *const pl = &g->plane[p];
        pl->w = fg.scored_w[p], pl->h = fg.scored_h[p];
        if (p >= g->num_planes) continue;
        pl->bw = psh_blocks_along(pl->w);
        pl->bh = psh_blocks_along(pl->h);
        pl->step = p && s->chroma_interleaved ? 2 : 1;
        pl->row_bytes = (size_t)pl->w * (size_t)g->bytes_per_sample;
        pl->ref_off = g->picture_bytes;
        g->picture_bytes += pl->row_bytes * (size_t)pl->h;
    }
    for (int p = 0; p < g->num_planes; p++)
        g->plane[p].dist_off = g->picture_bytes + g->plane[p].ref_off;
    g->frame_bytes = (size_t)(1 + g->renditions) * g->picture_bytes;

    char msg[256];
    if (psh_check_planes(&fmt, &fg, s->enable_chroma, PSH_WORDS_SETTINGS, msg, sizeof(msg)) < 0) {
        psh_log_settings(s, "%s", msg);
        return PSNRHVS_ERR(ERANGE);
    }
    return 0;
}

typedef struct PackJob {
    const PsnrHvsFrameGeometry *g;
    const PsnrHvsPicture *ref, *dist;
    unsigned char *dst;
    long long rows; ///< rows of all planes of the pictures packed
    int ntasks;
    int sides;     ///< pictures packed: the reference, then renditions
    int streaming; ///< rows stored past the caches (an upload's staging)
} PackJob;

/* A row copy whose stores bypass the caches: no cache line of the staging
 * is read for ownership first, a third less memory traffic for a buffer
 * only the GPU's DMA reads next; every size gained (bench/RESULTS.md). The
 * caller fences. */
static void copy_streaming(unsigned char *dst, const unsigned char *src, size_t n) {
#if defined(__SSE2__)
    while (((uintptr_t)dst & 15) && n) *dst++ = *src++, n--;
    for (; n >= 64; n -= 64, dst += 64, src += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)src);
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + 32));
        const __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(src + 48));
        _mm_stream_si128((__m128i *)(void *)dst, a);
        _mm_stream_si128((__m128i *)(void *)(dst + 16), b);
        _mm_stream_si128((__m128i *)(void *)(dst + 32), c);
        _mm_stream_si128((__m128i *)(void *)(dst + 48), d);
    }
#endif
    memcpy(dst, src, n);
}

/* Task t copies rows [rows * t / n, rows * (t + 1) / n) of the sequence
 * ref planes 0..2, then each rendition's planes 0..2. */
static void pack_task(void *const arg, const int task, const int worker) {
    const PackJob *const pj = arg;
    const PsnrHvsFrameGeometry *const g = pj->g;
    const long long r0 = pj->rows * task / pj->ntasks, r1 = pj->rows * (task + 1) / pj->ntasks;
    long long base = 0;
    for (int side = 0; side < pj->sides; side++) {
        const PsnrHvsPicture *const pic = side ? &pj->dist[side - 1] : pj->ref;
        const size_t side_off = side ? (size_t)(side - 1) * g->picture_bytes : 0;
        for (int p = 0; p < g->num_planes; p++) {
            const PsnrHvsPlaneGeometry *const pl = &g->plane[p];
            const long long y0 = r0 > base ? r0 - base : 0;
            const long long y1 = r1 - base < pl->h ? r1 - base : pl->h;
            unsigned char *out = pj->dst + (side ? pl->dist_off + side_off : pl->ref_off) +
                                 y0 * (long long)pl->row_bytes;
            const unsigned char *in = (const unsigned char *)pic->data[p] + y0 * pic->stride[p];
            for (long long y = y0; y < y1; y++, out += pl->row_bytes, in += pic->stride[p]) {
                if (pj->streaming)
                    copy_streaming(out, in, pl->row_bytes);
                else
                    memcpy(out, in, pl->row_bytes);
            }
            base += pl->h;
        }
    }
#if defined(__SSE2__)
    if (pj->streaming) _mm_sfence(); /* the streamed rows, before the upload is queued */
#endif
}

static void pack(const PsnrHvsFrameGeometry *const g, const PsnrHvsPicture *const ref,
                 const PsnrHvsPicture *const dist, unsigned char *const dst,
                 PsnrHvsThreadPool *const pool, const int sides, const int upload) {
    PackJob pj = {
        .g = g, .ref = ref, .dist = dist, .dst = dst, .sides = sides, .streaming = upload};
    for (int p = 0; p < g->num_planes; p++) pj.rows += (long long)sides * g->plane[p].h;
    /* One thread copies less than PCIe takes: several share a frame. */
    const int size = psh_thread_pool_size(pool);
    pj.ntasks = size > 1 ? 4 * size : 1;
    if (pj.ntasks > pj.rows) pj.ntasks = (int)pj.rows;
    psh_thread_pool_run(pool, pj.ntasks, pack_task, &pj);
}

void psh_frame_pack(const PsnrHvsFrameGeometry *const g, const PsnrHvsPicture *const ref,
                    const PsnrHvsPicture *const dist, unsigned char *const dst,
                    PsnrHvsThreadPool *const pool) {
    pack(g, ref, dist, dst, pool, 1 + g->renditions, 0);
}

void psh_frame_pack_upload(const PsnrHvsFrameGeometry *const g, const PsnrHvsPicture *const ref,
                           const PsnrHvsPicture *const dist, unsigned char *const dst,
                           PsnrHvsThreadPool *const pool) {
    pack(g, ref, dist, dst, pool, 1 + g->renditions, 1);
}

void psh_frame_pack_reference(const PsnrHvsFrameGeometry *const g, const PsnrHvsPicture *const ref,
                              unsigned char *const dst, PsnrHvsThreadPool *const pool) {
    pack(g, ref, NULL, dst, pool, 1, 1);
}

float psh_frame_finish(const PsnrHvsFrameGeometry *const g, const int p, float sum) {
    const PsnrHvsPlaneGeometry *const pl = &g->plane[p];
    /* libvmaf's count is an int; 64 bits keep the same value for every size
     * it can handle and stay correct beyond (docs/numerics.md). */
    const int64_t count = (int64_t)pl->bw * pl->bh * 64;
    const int max = (1 << g->bitdepth) - 1;
    /* Both divisions in f32 with the integers converted first, as libvmaf. */
    sum = sum / (float)count;
    return sum / (float)(max * max);
}

unsigned psh_rows_max16(const void *const data, const ptrdiff_t stride, const int w, const int y0,
                        const int y1) {
    uint16_t m = 0;
    const uint8_t *row = (const uint8_t *)data + (ptrdiff_t)y0 * stride;
    for (int y = y0; y < y1; y++, row += stride) {
        const uint16_t *const r = (const uint16_t *)(const void *)row;
        uint16_t rm = 0;
        for (int x = 0; x < w; x++) rm = r[x] > rm ? r[x] : rm; /* vectorises */
        m = rm > m ? rm : m;
    }
    return m;
}

static int range_before(const PsnrHvsRangeError *a, const PsnrHvsRangeError *b) {
    if (!b->found) return 1;
    if (a->side != b->side) return a->side < b->side;
    if (a->plane != b->plane) return a->plane < b->plane;
    if (a->y != b->y) return a->y < b->y;
    return a->x < b->x;
}

void psh_range_merge(PsnrHvsRangeError *const into, const PsnrHvsRangeError *const e) {
    if (e->found && range_before(e, into)) *into = *e;
}

int psh_range_find(PsnrHvsRangeError *const e, const int side, const int plane,
                   const void *const data, const ptrdiff_t stride, const int w, const int y0,
                   const int y1, const unsigned max) {
    if (psh_rows_max16(data, stride, w, y0, y1) <= max) return 0;
    const uint8_t *row = (const uint8_t *)data + (ptrdiff_t)y0 * stride;
    for (int y = y0; y < y1; y++, row += stride) {
        const uint16_t *const r = (const uint16_t *)(const void *)row;
        for (int x = 0; x < w; x++) {
            if (r[x] <= max) continue;
            const PsnrHvsRangeError here = {1, side, plane, x, y, r[x]};
            psh_range_merge(e, &here);
            return 1;
        }
    }
    return 0;
}

int psh_range_check(const PsnrHvsFrameGeometry *const g, const PsnrHvsPicture *const ref,
                    const PsnrHvsPicture *const dist, PsnrHvsRangeError *const e) {
    if (g->bitdepth == 8) return 0;
    const unsigned max = (1u << g->bitdepth) - 1;
    for (int side = 0; side <= g->renditions; side++) {
        const PsnrHvsPicture *const pic = side ? &dist[side - 1] : ref;
        for (int p = 0; p < g->num_planes; p++)
            if (psh_range_find(e, side, p, pic->data[p], pic->stride[p], g->plane[p].w, 0,
                               g->plane[p].h, max))
                return 1;
    }
    return 0;
}

int psh_range_find_stored(PsnrHvsRangeError *const e, const int side, const int plane,
                          const void *const data, const ptrdiff_t stride, const int w, const int h,
                          const int step, const int shift, const int bitdepth) {
    if (bitdepth == 8) return 0;
    const unsigned allowed = ((1u << bitdepth) - 1) << shift;
    const uint8_t *row = data;
    for (int y = 0; y < h; y++, row += stride) {
        for (int x = 0; x < w; x++) {
            uint16_t v;
            memcpy(&v, row + (size_t)x * (size_t)step * 2, 2);
            if (!(v & ~allowed)) continue;
            const PsnrHvsRangeError here = {1, side, plane, x, y, v};
            psh_range_merge(e, &here);
            return 1;
        }
    }
    return 0;
}

int psh_range_report(const PsnrHvsContext *const c, const PsnrHvsRangeError *const e) {
    static const char *const planes[3] = {"Y", "Cb", "Cr"};
    char side[48];
    if (!e->side)
        snprintf(side, sizeof(side), "reference");
    else if (c->geom.renditions == 1)
        snprintf(side, sizeof(side), "distorted");
    else
        snprintf(side, sizeof(side), "rendition %d's distorted", e->side - 1);
    if (c->geom.sample_shift && !(e->side == 0 && c->geom.reference_on_host)) {
        psh_log(c,
                "sample 0x%04x at x %d, y %d of the %s picture's %s plane has bits set below "
                "its %d high bits: not a %d-bit sample moved up (msb_aligned); the frame is "
                "not scored",
                (unsigned)e->value, e->x, e->y, side, planes[e->plane], c->geom.bitdepth,
                c->geom.bitdepth);
        return PSNRHVS_ERR(EINVAL);
    }
    psh_log(c,
            "sample %d at x %d, y %d of the %s picture's %s plane is above %u, the %d-bit "
            "maximum: the frame is not scored",
            e->value, e->x, e->y, side, planes[e->plane], (1u << c->geom.bitdepth) - 1,
            c->geom.bitdepth);
    return PSNRHVS_ERR(EINVAL);
}

void psh_frame_pictures(const PsnrHvsFrameGeometry *const g, const unsigned char *const packed,
                        PsnrHvsPicture *const pics) {
    memset(pics, 0, (size_t)(1 + g->renditions) * sizeof(*pics));
    for (int side = 0; side <= g->renditions; side++)
        for (int p = 0; p < g->num_planes; p++) {
            const PsnrHvsPlaneGeometry *const pl = &g->plane[p];
            pics[side].data[p] =
                packed +
                (side ? pl->dist_off + (size_t)(side - 1) * g->picture_bytes : pl->ref_off);
            pics[side].stride[p] = (ptrdiff_t)pl->row_bytes;
        }
}
