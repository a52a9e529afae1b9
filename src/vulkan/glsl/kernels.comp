#version 460
/*
 * Vulkan compute kernels: every block's 64 terms and the whole plane's f32
 * sum, bit for bit libvmaf's chain (numerics spec section 3), on the device.
 * The same four stages as the OpenCL backend (src/opencl/kernels.cl, which
 * this file follows kernel for kernel), one SPIR-V module each, chosen by
 * PSH_VK_KERNEL at build time:
 *   0 terms:   terms of one block per invocation (stored coefficient-major,
 *              terms[chunk][k][block]), and an approximate sum per chunk;
 *   1 maps:    the approximate prefix of each chunk gives the binades the
 *              chain can be in there; the sum map of each block and of the
 *              whole chunk for those binades;
 *   2 windows: the maps of windows of PSH_VK_CHUNK chunks, composed;
 *   3 walk:    one work-group walks from r = 0 in order, a window's map where
 *              it fits, else its chunks' maps, else a chunk's block maps,
 *              else a block's terms one by one.
 * No work-group waits on another (shared/spec/exact-parallel-sum.md).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#extension GL_GOOGLE_include_directive : require

#include "portable.glsl"
#include "int_math.glsl"
#include "block.glsl"
#include "exact_sum.glsl"

#ifndef PSH_VK_KERNEL
#error "PSH_VK_KERNEL selects the kernel: 0 terms, 1 maps, 2 windows, 3 walk (4: tests)"
#endif

/* Blocks per chunk, the work-group size (CHUNK in vulkan_backend.c). */
#define PSH_VK_CHUNK 64

layout(local_size_x = PSH_VK_CHUNK, local_size_y = 1, local_size_z = 1) in;

/* The slot's packed frame (frame.h's layout), read as 32-bit words. */
layout(std430, set = 0, binding = 0) readonly buffer PshInput {
    uint words[];
}
psh_in;
layout(std430, set = 0, binding = 1) buffer PshTerms {
    float terms[];
}
psh_terms;
layout(std430, set = 0, binding = 2) buffer PshChunkSum {
    float chunk_sum[];
}
psh_chunk_sum;
layout(std430, set = 0, binding = 3) buffer PshChunks {
    PshSumChunkMaps chunks[];
}
psh_chunks;
/* A chunk's blocks' maps: slot [2 * i + c] of block i, candidate c. */
layout(std430, set = 0, binding = 4) buffer PshBlockMaps {
    PshSumMap block_maps[];
}
psh_block_maps;
layout(std430, set = 0, binding = 5) buffer PshWindows {
    PshSumChunkMaps windows[];
}
psh_windows;
/* Per slot and rendition, four words: the frame's out-of-range flag is the
 * first rendition's fourth (set by the terms kernel). Device memory. */
layout(std430, set = 0, binding = 6) buffer PshSums {
    uint sums[];
}
psh_sums;
/* The same layout in host-visible memory, written by the walk kernel: the
 * three f32 plane sums (as bits) and the flag, all the host reads. */
layout(std430, set = 0, binding = 8) buffer PshResults {
    uint words[];
}
psh_results;

layout(push_constant) uniform PshParams {
    uint ref_off;  /* bytes into the packed frame */
    uint dist_off;
    int width;     /* samples per packed row */
    int nbx;       /* blocks per row */
    int nblocks;
    int plane;
    int bitdepth;
    int mask_product;
    int nchunks;
    int out_index;  /* word of psh_results for this plane's sum */
    int flag_index; /* word of psh_sums and psh_results for the frame's flag */
}
pc;

/* Work-groups are dispatched as a 2-D grid (at most 65535 a side): the
 * linear index, past the count in the last row. */
uint psh_vk_group() {
    return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
}

#if PSH_VK_KERNEL == 0

shared float part[PSH_VK_CHUNK];

/* Sample i (byte index for 8 bits, sample index for 16) of the frame. */
uint psh_vk_sample8(const uint i) {
    return (psh_in.words[i >> 2] >> ((i & 3u) * 8u)) & 0xffu;
}
uint psh_vk_sample16(const uint i) {
    return (psh_in.words[i >> 1] >> ((i & 1u) * 16u)) & 0xffffu;
}

/* The 8x8 block at (x, y) of a packed plane at byte offset off; returns the
 * OR of its samples (above 8 bits a value above the maximum has a bit the
 * maximum has not). */
uint psh_vk_load(out psh_i32 v[64], const uint off, const int width, const uint x, const uint y,
                 const int bitdepth) {
    uint any = 0u;
    const uint w = uint(width);
    if (bitdepth == 8) {
        const uint p = off + y * w + x;
        PSH_UNROLL
        for (int i = 0; i < 8; i++) {
            PSH_UNROLL
            for (int j = 0; j < 8; j++) v[i * 8 + j] = int(psh_vk_sample8(p + uint(i) * w + uint(j)));
        }
    } else {
        const uint p = (off >> 1) + y * w + x;
        PSH_UNROLL
        for (int i = 0; i < 8; i++) {
            PSH_UNROLL
            for (int j = 0; j < 8; j++) {
                const uint s = psh_vk_sample16(p + uint(i) * w + uint(j));
                v[i * 8 + j] = int(s);
                any |= s;
            }
        }
    }
    return any;
}

void main() {
    const uint g = psh_vk_group();
    if (g >= uint(pc.nchunks)) return; /* a whole work-group past the end */
    const int lid = int(gl_LocalInvocationID.x);
    const int b = int(g) * PSH_VK_CHUNK + lid;
    const uint out_base = g * 64u * PSH_VK_CHUNK + uint(lid);
    precise float sum = 0.0;
    if (b < pc.nblocks) {
        const uint y = uint(b / pc.nbx) * 7u, x = uint(b % pc.nbx) * 7u;
        float t[64];
        psh_i32 s[64], d[64];
        const uint any = psh_vk_load(s, pc.ref_off, pc.width, x, y, pc.bitdepth) |
                         psh_vk_load(d, pc.dist_off, pc.width, x, y, pc.bitdepth);
        if ((any >> pc.bitdepth) != 0u) {
            /* A sample above the maximum: not computed (its products would
             * overflow); the frame is flagged and the host reports it. */
            atomicOr(psh_sums.sums[pc.flag_index], 1u);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) psh_terms.terms[out_base + uint(k) * PSH_VK_CHUNK] = 0.0;
        } else {
            psh_block_terms(s, d, pc.plane, pc.mask_product, t);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) {
                psh_terms.terms[out_base + uint(k) * PSH_VK_CHUNK] = t[k];
                sum += t[k];
            }
        }
    } else {
        /* Padding blocks of the last chunk add +0: exact no-ops. */
        PSH_UNROLL
        for (int k = 0; k < 64; k++) psh_terms.terms[out_base + uint(k) * PSH_VK_CHUNK] = 0.0;
    }
    /* Only a guess of where the chain will be: any order of additions does. */
    part[lid] = sum;
    barrier();
    for (int n = PSH_VK_CHUNK / 2; n > 0; n >>= 1) {
        if (lid < n) {
            precise float ab = part[lid] + part[lid + n];
            part[lid] = ab;
        }
        barrier();
    }
    if (lid == 0) psh_chunk_sum.chunk_sum[g] = part[0];
}

#elif PSH_VK_KERNEL == 1

shared float part[PSH_VK_CHUNK];
shared PshSumMap red[PSH_VK_CHUNK];

void main() {
    const uint gu = psh_vk_group();
    if (gu >= uint(pc.nchunks)) return;
    const int g = int(gu);
    const int lid = int(gl_LocalInvocationID.x);
    /* The approximate prefix: all chunks before this one, in any order. */
    precise float p = 0.0;
    for (int j = lid; j < g; j += PSH_VK_CHUNK) p += psh_chunk_sum.chunk_sum[j];
    part[lid] = p;
    barrier();
    for (int n = PSH_VK_CHUNK / 2; n > 0; n >>= 1) {
        if (lid < n) {
            precise float ab = part[lid] + part[lid + n];
            part[lid] = ab;
        }
        barrier();
    }
    const float prefix = part[0];
    /* The sum plan's candidates for the chunk's start; the range reaches to
     * the chunk's end. A wrong guess only costs speed. */
    precise float end = prefix + psh_chunk_sum.chunk_sum[g];
    const PshSumCandidates cand = psh_sum_candidates(prefix, prefix, end);
    const int e0 = cand.e[0], e1 = cand.e[1];
    const uint t0 = gu * 64u * PSH_VK_CHUNK + uint(lid);
    const uint bm = (gu * PSH_VK_CHUNK + uint(lid)) * 2u;
    for (int c = 0; c < 2; c++) {
        const int e = c != 0 ? e1 : e0;
        PshSumMap m = psh_sum_map_identity();
        if (e != PSH_SUM_NO_BINADE) {
            for (int k = 0; k < 64; k++)
                m = psh_sum_map_push(m, psh_terms.terms[t0 + uint(k) * PSH_VK_CHUNK], e);
        }
        psh_block_maps.block_maps[bm + uint(c)] = m;
        /* The chunk's map: blocks composed in order, pairwise. */
        barrier();
        red[lid] = m;
        barrier();
        for (int n = 1; n < PSH_VK_CHUNK; n <<= 1) {
            if ((lid & (2 * n - 1)) == 0) red[lid] = psh_sum_map_compose(red[lid], red[lid + n]);
            barrier();
        }
        if (lid == 0) {
            psh_chunks.chunks[gu].e[c] = e;
            psh_chunks.chunks[gu].pad[c] = 0;
            psh_chunks.chunks[gu].m[c] = red[0];
        }
    }
}

#elif PSH_VK_KERNEL == 2

shared PshSumMap red[PSH_VK_CHUNK];
shared bool ok;

/* A window is PSH_VK_CHUNK consecutive chunks: for the two binades the chain
 * most likely starts it in (its first chunk's candidates), the composition of
 * its chunks' maps for that binade, where every chunk has one. */
void main() {
    const uint w = psh_vk_group();
    const int nwindows = (pc.nchunks + PSH_VK_CHUNK - 1) / PSH_VK_CHUNK;
    if (w >= uint(nwindows)) return;
    const int lid = int(gl_LocalInvocationID.x);
    const int chunk = int(w) * PSH_VK_CHUNK + lid;
    for (int c = 0; c < 2; c++) {
        const int e = psh_chunks.chunks[w * PSH_VK_CHUNK].e[c];
        if (lid == 0) ok = e != PSH_SUM_NO_BINADE;
        barrier();
        PshSumMap m = psh_sum_map_identity();
        if (chunk < pc.nchunks) {
            if (psh_chunks.chunks[chunk].e[0] == e)
                m = psh_chunks.chunks[chunk].m[0];
            else if (psh_chunks.chunks[chunk].e[1] == e)
                m = psh_chunks.chunks[chunk].m[1];
            else
                ok = false;
        }
        red[lid] = m;
        barrier();
        for (int n = 1; n < PSH_VK_CHUNK; n <<= 1) {
            if ((lid & (2 * n - 1)) == 0) red[lid] = psh_sum_map_compose(red[lid], red[lid + n]);
            barrier();
        }
        if (lid == 0) {
            psh_windows.windows[w].e[c] = ok ? e : PSH_SUM_NO_BINADE;
            psh_windows.windows[w].pad[c] = 0;
            psh_windows.windows[w].m[c] = red[0];
        }
        barrier();
    }
}

#elif PSH_VK_KERNEL == 3

shared psh_i32 ce[PSH_VK_CHUNK][2];
shared PshSumMap cm[PSH_VK_CHUNK][2];
shared PshSumMap bm[PSH_VK_CHUNK][2];
shared int fail, next_window;

/* A walk step through the shared copies: candidates of chunk pos, maps of
 * the chunk itself (block < 0) or of its block j. */
bool psh_vk_step(const int pos, const int block, inout float r) {
    PshSumChunkMaps c;
    c.e[0] = ce[pos][0];
    c.e[1] = ce[pos][1];
    c.pad[0] = 0;
    c.pad[1] = 0;
    c.m[0] = block < 0 ? cm[pos][0] : bm[block][0];
    c.m[1] = block < 0 ? cm[pos][1] : bm[block][1];
    return psh_sum_step(c, r);
}

void main() {
    const int lid = int(gl_LocalInvocationID.x);
    const int nwindows = (pc.nchunks + PSH_VK_CHUNK - 1) / PSH_VK_CHUNK;
    precise float r = 0.0; /* the chain, held by invocation 0 */
    int w = 0;
    for (;;) {
        /* Whole windows, by invocation 0 alone, while their maps apply. */
        if (lid == 0) {
            for (; w < nwindows; w++) {
                if (!psh_sum_step(psh_windows.windows[w], r)) break;
            }
            next_window = w;
        }
        barrier();
        w = next_window;
        if (w >= nwindows) break;
        /* This window crosses a binade or its guess was wrong: chunk by
         * chunk, with its chunk maps loaded by all invocations at once. */
        const int base = w * PSH_VK_CHUNK;
        const int n = min(PSH_VK_CHUNK, pc.nchunks - base);
        if (lid < n) {
            ce[lid][0] = psh_chunks.chunks[base + lid].e[0];
            ce[lid][1] = psh_chunks.chunks[base + lid].e[1];
            cm[lid][0] = psh_chunks.chunks[base + lid].m[0];
            cm[lid][1] = psh_chunks.chunks[base + lid].m[1];
        }
        barrier();
        int pos = 0;
        for (;;) {
            if (lid == 0) {
                while (pos < n && psh_vk_step(pos, -1, r)) pos++;
                fail = pos;
            }
            barrier();
            pos = fail;
            if (pos >= n) break;
            /* This chunk crosses a binade, or its guess was wrong: block by
             * block, with the block maps loaded by all invocations at once. */
            const uint chunk = uint(base + pos);
            bm[lid][0] = psh_block_maps.block_maps[(chunk * PSH_VK_CHUNK + uint(lid)) * 2u];
            bm[lid][1] = psh_block_maps.block_maps[(chunk * PSH_VK_CHUNK + uint(lid)) * 2u + 1u];
            barrier();
            if (lid == 0) {
                const uint t = chunk * 64u * PSH_VK_CHUNK;
                for (int j = 0; j < PSH_VK_CHUNK; j++) {
                    if (psh_vk_step(pos, j, r)) continue;
                    for (int k = 0; k < 64; k++)
                        r += psh_terms.terms[t + uint(k) * PSH_VK_CHUNK + uint(j)];
                }
            }
            pos++;
            barrier();
        }
        w++;
        barrier();
    }
    if (lid == 0) {
        psh_results.words[pc.out_index] = floatBitsToUint(r);
        /* final: every plane's terms kernel ran before any walk */
        psh_results.words[pc.flag_index] = psh_sums.sums[pc.flag_index];
    }
}

#elif PSH_VK_KERNEL == 4

/* Not a stage: the integer helpers on operand pairs (a, b) read from the
 * input binding as bits, for tests/vulkan/vulkan_int_math (a test hook):
 * out[3i] = a / b, out[3i + 1] = sqrt(a), out[3i + 2] = sqrt(a * b) exact
 * product, into the terms binding. pc.nblocks is the pair count. */
void main() {
    const uint i = psh_vk_group() * PSH_VK_CHUNK + gl_LocalInvocationID.x;
    if (i >= uint(pc.nblocks)) return;
    const float a = uintBitsToFloat(psh_in.words[2u * i]);
    const float b = uintBitsToFloat(psh_in.words[2u * i + 1u]);
    psh_terms.terms[3u * i] = psh_div_rn_int(a, b);
    psh_terms.terms[3u * i + 1u] = psh_sqrt_rn_int(a);
    psh_terms.terms[3u * i + 2u] = psh_sqrt_prod_rn(a, b);
}

#else
#error "unknown PSH_VK_KERNEL"
#endif
