/*
 * OpenCL C kernels: every block's 64 terms and the whole plane's f32 sum, bit
 * for bit libvmaf's chain (numerics spec section 3), on the device.
 *
 * A chunk is PSH_CL_CHUNK consecutive blocks (one work-group). Its terms are
 * stored coefficient-major (terms[chunk][k][block]) so that stores and loads
 * coalesce; the chain's order is still block after block, k = 0..63 inside.
 *   psh_cl_terms: terms of one block per work-item, and an approximate (f32
 *                 tree) sum per chunk;
 *   psh_cl_maps:  the approximate prefix of each chunk gives the binades the
 *                 chain can be in there; the sum map (src/core/exact_sum.h) of
 *                 each block and of the whole chunk for those binades;
 *   psh_cl_windows: the maps of windows of PSH_CL_CHUNK chunks, composed;
 *   psh_cl_walk:  one work-group walks from r = 0 in order, a window's map
 *                 where it fits, else its chunks' maps, else a chunk's block
 *                 maps, else a block's terms one by one.
 * No kernel waits on another work-group, so nothing relies on forward
 * progress between work-groups (shared/spec/exact-parallel-sum.md).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "core/portable.h"
#include "core/tables.h"
#include "core/int_math.h"
#include "core/block.h"
#include "core/exact_sum.h"

#ifndef PSH_CL_CHUNK
#define PSH_CL_CHUNK 64
#endif
/* 1: keep the reference coefficients in local memory (see psh_cl_terms). */
#ifndef PSH_CL_LOCAL_COEFFS
#define PSH_CL_LOCAL_COEFFS 0
#endif

/* Map slot [2 * i + c] of block i of a chunk: binade candidate c. */
typedef struct PshClChunk {
    psh_i32 e[2]; /* candidate binades, PSH_SUM_NO_BINADE where unused */
    psh_i32 pad[2];
    PshSumMap m[2]; /* the whole chunk's map for e[c] */
} PshClChunk;

/* The 8x8 block at (x, y) of a packed plane of 8- or 16-bit samples. */
PSH_INLINE void psh_cl_load(psh_i32 v[64], __global const uchar *const plane, const int width,
                            const size_t x, const size_t y, const int bitdepth) {
    if (bitdepth == 8) {
        __global const uchar *const p = plane + y * width + x;
        PSH_UNROLL
        for (int i = 0; i < 8; i++) {
            PSH_UNROLL
            for (int j = 0; j < 8; j++) v[i * 8 + j] = p[i * width + j];
        }
    } else {
        __global const ushort *const p = (__global const ushort *)plane + y * width + x;
        PSH_UNROLL
        for (int i = 0; i < 8; i++) {
            PSH_UNROLL
            for (int j = 0; j < 8; j++) v[i * 8 + j] = p[i * width + j];
        }
    }
}

__kernel __attribute__((reqd_work_group_size(PSH_CL_CHUNK, 1, 1))) void
psh_cl_terms(__global const uchar *const ref, __global const uchar *const dist, const ulong ref_off,
             const ulong dist_off, const int width, const int nbx, const int nblocks,
             const int plane, const int bitdepth, const int mask_product,
             __global float *const terms, __global float *const chunk_sum) {
    __local float part[PSH_CL_CHUNK];
#if PSH_CL_LOCAL_COEFFS
    __local psh_i32 cs[64][PSH_CL_CHUNK];
#endif
    const int lid = (int)get_local_id(0);
    const int b = (int)get_global_id(0);
    __global float *const out = terms + (size_t)get_group_id(0) * 64 * PSH_CL_CHUNK + lid;
    float sum = 0.0f;
    if (b < nblocks) {
        const size_t y = (size_t)(b / nbx) * 7, x = (size_t)(b % nbx) * 7;
        float t[64];
#if PSH_CL_LOCAL_COEFFS
        /* psh_block_terms step by step, the reference block's coefficients
         * parked in local memory while the distorted block is transformed:
         * half the live registers, for devices that would spill. */
        float thr_s;
        {
            psh_i32 s[64];
            psh_cl_load(s, ref + ref_off, width, x, y, bitdepth);
            thr_s = psh_block_transform(s, plane, mask_product);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) cs[k][lid] = s[k];
        }
        psh_i32 d[64];
        psh_cl_load(d, dist + dist_off, width, x, y, bitdepth);
        const float thr = psh_block_limit(thr_s, psh_block_transform(d, plane, mask_product));
        PSH_UNROLL
        for (int k = 0; k < 64; k++) t[k] = psh_block_term(cs[k][lid], d[k], k, plane, thr);
#else
        psh_i32 s[64], d[64];
        psh_cl_load(s, ref + ref_off, width, x, y, bitdepth);
        psh_cl_load(d, dist + dist_off, width, x, y, bitdepth);
        psh_block_terms(s, d, plane, mask_product, t);
#endif
        PSH_UNROLL
        for (int k = 0; k < 64; k++) {
            out[k * PSH_CL_CHUNK] = t[k];
            sum += t[k];
        }
    } else {
        /* Padding blocks of the last chunk add +0: exact no-ops. */
        PSH_UNROLL
        for (int k = 0; k < 64; k++) out[k * PSH_CL_CHUNK] = 0.0f;
    }
    /* Only a guess of where the chain will be: any order of additions does. */
    part[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = PSH_CL_CHUNK / 2; n > 0; n >>= 1) {
        if (lid < n) part[lid] += part[lid + n];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) chunk_sum[get_group_id(0)] = part[0];
}

__kernel __attribute__((reqd_work_group_size(PSH_CL_CHUNK, 1, 1))) void
psh_cl_maps(__global const float *const terms, __global const float *const chunk_sum,
            __global PshClChunk *const chunks, __global PshSumMap *const block_maps) {
    __local float part[PSH_CL_CHUNK];
    __local PshSumMap red[PSH_CL_CHUNK];
    const int lid = (int)get_local_id(0);
    const int g = (int)get_group_id(0);
    /* The approximate prefix: all chunks before this one, in any order. */
    float p = 0.0f;
    for (int j = lid; j < g; j += PSH_CL_CHUNK) p += chunk_sum[j];
    part[lid] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int n = PSH_CL_CHUNK / 2; n > 0; n >>= 1) {
        if (lid < n) part[lid] += part[lid + n];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float prefix = part[0];
    /* The chain starts this chunk in binade lo or (near a power of two) the
     * next one, and may cross into the binade of the chunk's end: maps for the
     * lowest and highest candidates. A wrong guess only costs speed. */
    const int e0 = psh_sum_binade_lo(prefix);
    int e1 = psh_sum_binade_hi(prefix + chunk_sum[g]);
    if (e1 == e0) e1 = PSH_SUM_NO_BINADE;
    __global const float *const t = terms + (size_t)g * 64 * PSH_CL_CHUNK + lid;
    __global PshSumMap *const bm = block_maps + ((size_t)g * PSH_CL_CHUNK + lid) * 2;
    for (int c = 0; c < 2; c++) {
        const int e = c ? e1 : e0;
        PshSumMap m = psh_sum_map_identity();
        if (e != PSH_SUM_NO_BINADE) {
            for (int k = 0; k < 64; k++) m = psh_sum_map_push(m, t[k * PSH_CL_CHUNK], e);
        }
        bm[c] = m;
        /* The chunk's map: blocks composed in order, pairwise. */
        barrier(CLK_LOCAL_MEM_FENCE);
        red[lid] = m;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int n = 1; n < PSH_CL_CHUNK; n <<= 1) {
            if ((lid & (2 * n - 1)) == 0) red[lid] = psh_sum_map_compose(red[lid], red[lid + n]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            chunks[g].e[c] = e;
            chunks[g].m[c] = red[0];
        }
    }
}

/* Applies the map of candidate c if the chain is in its binade and stays. */
PSH_INLINE int psh_cl_apply(const __local psh_i32 *const e, const __local PshSumMap *const m,
                            float *const r) {
    const int be = psh_sum_binade(*r);
    if (e[0] == be && psh_sum_map_apply(m[0], be, r)) return 1;
    if (e[1] == be && psh_sum_map_apply(m[1], be, r)) return 1;
    return 0;
}

/* A window is PSH_CL_CHUNK consecutive chunks. For the two binades the chain
 * most likely starts it in (its first chunk's candidates), the composition of
 * its chunks' maps for that binade, where every chunk has one: inside one
 * binade the maps compose exactly, so the walk can step a window at a time. */
__kernel __attribute__((reqd_work_group_size(PSH_CL_CHUNK, 1, 1))) void
psh_cl_windows(__global const PshClChunk *const chunks, const int nchunks,
               __global PshClChunk *const windows) {
    __local PshSumMap red[PSH_CL_CHUNK];
    __local int ok;
    const int lid = (int)get_local_id(0);
    const int w = (int)get_group_id(0);
    const int chunk = w * PSH_CL_CHUNK + lid;
    for (int c = 0; c < 2; c++) {
        const int e = chunks[w * PSH_CL_CHUNK].e[c];
        if (lid == 0) ok = e != PSH_SUM_NO_BINADE;
        barrier(CLK_LOCAL_MEM_FENCE);
        PshSumMap m = psh_sum_map_identity();
        if (chunk < nchunks) {
            __global const PshClChunk *const ch = chunks + chunk;
            if (ch->e[0] == e)
                m = ch->m[0];
            else if (ch->e[1] == e)
                m = ch->m[1];
            else
                ok = 0;
        }
        red[lid] = m;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int n = 1; n < PSH_CL_CHUNK; n <<= 1) {
            if ((lid & (2 * n - 1)) == 0) red[lid] = psh_sum_map_compose(red[lid], red[lid + n]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            windows[w].e[c] = ok ? e : PSH_SUM_NO_BINADE;
            windows[w].m[c] = red[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel __attribute__((reqd_work_group_size(PSH_CL_CHUNK, 1, 1))) void
psh_cl_walk(__global const float *const terms, __global const PshClChunk *const chunks,
            __global const PshSumMap *const block_maps, __global const PshClChunk *const windows,
            const int nchunks, __global float *const out, const int out_index) {
    __local psh_i32 ce[PSH_CL_CHUNK][2];
    __local PshSumMap cm[PSH_CL_CHUNK][2];
    __local PshSumMap bm[PSH_CL_CHUNK][2];
    __local int fail, next_window;
    const int lid = (int)get_local_id(0);
    const int nwindows = (nchunks + PSH_CL_CHUNK - 1) / PSH_CL_CHUNK;
    float r = 0.0f; /* the chain, held by work-item 0 */
    int w = 0;
    for (;;) {
        /* Whole windows, by work-item 0 alone, while their maps apply. */
        if (lid == 0) {
            for (; w < nwindows; w++) {
                const PshClChunk win = windows[w];
                const int be = psh_sum_binade(r);
                if (!(win.e[0] == be && psh_sum_map_apply(win.m[0], be, &r)) &&
                    !(win.e[1] == be && psh_sum_map_apply(win.m[1], be, &r)))
                    break;
            }
            next_window = w;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        w = next_window;
        if (w >= nwindows) break;
        /* This window crosses a binade or its guess was wrong: chunk by
         * chunk, with its chunk maps loaded by all work-items at once. */
        const int base = w * PSH_CL_CHUNK;
        const int n = min(PSH_CL_CHUNK, nchunks - base);
        if (lid < n) {
            __global const PshClChunk *const c = chunks + base + lid;
            ce[lid][0] = c->e[0];
            ce[lid][1] = c->e[1];
            cm[lid][0] = c->m[0];
            cm[lid][1] = c->m[1];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int pos = 0;
        for (;;) {
            if (lid == 0) {
                while (pos < n && psh_cl_apply(ce[pos], cm[pos], &r)) pos++;
                fail = pos;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            pos = fail;
            if (pos >= n) break;
            /* This chunk crosses a binade, or its guess was wrong: block by
             * block, with the block maps loaded by all work-items at once. */
            const size_t chunk = (size_t)(base + pos);
            bm[lid][0] = block_maps[(chunk * PSH_CL_CHUNK + lid) * 2];
            bm[lid][1] = block_maps[(chunk * PSH_CL_CHUNK + lid) * 2 + 1];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0) {
                __global const float *const t = terms + chunk * 64 * PSH_CL_CHUNK;
                for (int j = 0; j < PSH_CL_CHUNK; j++) {
                    if (psh_cl_apply(ce[pos], bm[j], &r)) continue;
                    PSH_UNROLL
                    for (int k = 0; k < 64; k++) r += t[k * PSH_CL_CHUNK + j];
                }
            }
            pos++;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        w++;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[out_index] = r;
}

/* Holds no private data: what a device reports as CL_KERNEL_PRIVATE_MEM_SIZE
 * for it is that device's floor, not spilled arrays (list-devices verbose). */
__kernel void psh_cl_probe(__global float *const out) {
    out[get_global_id(0)] = 0.0f;
}
