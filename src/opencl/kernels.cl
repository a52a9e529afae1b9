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

/* A chunk's (and a window's) maps are a PshSumChunkMaps; its blocks' maps
 * are pairs for the chunk's two candidates: slot [2 * i + c] of block i. */

/* The 8x8 block at (x, y) of a packed plane of 8- or 16-bit samples; returns
 * the OR of its samples (above 8 bits a value above the maximum has a bit
 * the maximum has not). */
PSH_INLINE uint psh_cl_load(psh_i32 v[64], __global const uchar *const plane, const int width,
                            const size_t x, const size_t y, const int bitdepth) {
    uint any = 0;
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
            for (int j = 0; j < 8; j++) {
                v[i * 8 + j] = p[i * width + j];
                any |= (uint)v[i * 8 + j];
            }
        }
    }
    return any;
}

__kernel __attribute__((reqd_work_group_size(PSH_CL_CHUNK, 1, 1))) void
psh_cl_terms(__global const uchar *const ref, __global const uchar *const dist, const ulong ref_off,
             const ulong dist_off, const int width, const int nbx, const int nblocks,
             const int plane, const int bitdepth, const int mask_product,
             __global float *const terms, __global float *const chunk_sum,
             __global uint *const flags, const int flag_index) {
    __local float part[PSH_CL_CHUNK];
    const int lid = (int)get_local_id(0);
    const int b = (int)get_global_id(0);
    __global float *const out = terms + (size_t)get_group_id(0) * 64 * PSH_CL_CHUNK + lid;
    float sum = 0.0f;
    if (b < nblocks) {
        const size_t y = (size_t)(b / nbx) * 7, x = (size_t)(b % nbx) * 7;
        float t[64];
        psh_i32 s[64], d[64];
        const uint any = psh_cl_load(s, ref + ref_off, width, x, y, bitdepth) |
                         psh_cl_load(d, dist + dist_off, width, x, y, bitdepth);
        if (any >> bitdepth) {
            /* A sample above the maximum: not computed (its products would
             * overflow); the frame is flagged and the host reports it. */
            atomic_or(flags + flag_index, 1u);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) out[k * PSH_CL_CHUNK] = 0.0f;
        } else {
            psh_block_terms(s, d, plane, mask_product, t);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) {
                out[k * PSH_CL_CHUNK] = t[k];
                sum += t[k];
            }
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
            __global PshSumChunkMaps *const chunks, __global PshSumMap *const block_maps) {
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
    /* The sum plan's candidates for the chunk's start; the range reaches to
     * the chunk's end, so that after a crossing inside the chunk its later
     * blocks have maps for the next binade. A wrong guess only costs speed. */
    const PshSumCandidates cand = psh_sum_candidates(prefix, prefix, prefix + chunk_sum[g]);
    const int e0 = cand.e[0], e1 = cand.e[1];
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

/* A walk step through local copies of a run's candidates and maps. */
PSH_INLINE int psh_cl_step(const __local psh_i32 *const e, const __local PshSumMap *const m,
                           float *const r) {
    PshSumChunkMaps c;
    c.e[0] = e[0];
    c.e[1] = e[1];
    c.pad[0] = c.pad[1] = 0;
    c.m[0] = m[0];
    c.m[1] = m[1];
    return psh_sum_step(c, r);
}

/* A window is PSH_CL_CHUNK consecutive chunks. For the two binades the chain
 * most likely starts it in (its first chunk's candidates), the composition of
 * its chunks' maps for that binade, where every chunk has one: inside one
 * binade the maps compose exactly, so the walk can step a window at a time. */
__kernel __attribute__((reqd_work_group_size(PSH_CL_CHUNK, 1, 1))) void
psh_cl_windows(__global const PshSumChunkMaps *const chunks, const int nchunks,
               __global PshSumChunkMaps *const windows) {
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
            __global const PshSumChunkMaps *const ch = chunks + chunk;
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
psh_cl_walk(__global const float *const terms, __global const PshSumChunkMaps *const chunks,
            __global const PshSumMap *const block_maps,
            __global const PshSumChunkMaps *const windows, const int nchunks,
            __global float *const out, const int out_index) {
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
                if (!psh_sum_step(windows[w], &r)) break;
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
            __global const PshSumChunkMaps *const c = chunks + base + lid;
            ce[lid][0] = c->e[0];
            ce[lid][1] = c->e[1];
            cm[lid][0] = c->m[0];
            cm[lid][1] = c->m[1];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int pos = 0;
        for (;;) {
            if (lid == 0) {
                while (pos < n && psh_cl_step(ce[pos], cm[pos], &r)) pos++;
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
                    if (psh_cl_step(ce[pos], bm[j], &r)) continue;
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
