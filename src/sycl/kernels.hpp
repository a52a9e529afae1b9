/*
 * SYCL kernels: every block's 64 terms and each plane's f32 sum, bit for
 * bit libvmaf's chain (numerics spec section 3), on the device. The OpenCL
 * backend's structure (src/opencl/kernels.cl, docs/opencl.md), all planes of
 * a frame in one launch per kernel:
 *   terms:   one block per work-item (psh_block_terms), terms stored, and an
 *            approximate f32 sum per chunk of PSH_SYCL_CHUNK blocks;
 *   maps:    each chunk's approximate prefix gives the sum plan's candidate
 *            binades (psh_sum_candidates); the maps of each block and of the
 *            whole chunk for them;
 *   windows: PSH_SYCL_CHUNK consecutive chunk maps composed;
 *   walk:    one work-group per plane walks from r = 0 in order, a window's
 *            map where it fits (psh_sum_step), else its chunks', else a
 *            chunk's block maps, else a block's terms one by one.
 * nd_range kernels, work-group barriers and local memory only (no sub-group
 * operations: AdaptiveCpp's OpenMP target has sub-groups of one), no fp64,
 * and no work-group waits on another.
 *
 * Included by kernels_native.cpp and kernels_exact.cpp, which set
 * PSH_EXACT_HELPERS (0 or 1) and PSH_SYCL_NS first; <sycl/sycl.hpp> comes
 * before the core headers (portable.h picks its SYCL branch from it).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include <sycl/sycl.hpp>

#include "core/portable.h"
#include "core/tables.h"
#include "core/int_math.h"
#include "core/block.h"
#include "core/exact_sum.h"
#include "sycl/sycl_job.hpp"

/* A functor the compiler leaves as a call gets its arrays passed through
 * private memory (a stack frame on CUDA): inline the kernels' bodies. */
#define PSH_SYCL_KERNEL_INLINE __attribute__((always_inline))

namespace PSH_SYCL_NS {

constexpr int CHUNK = PSH_SYCL_CHUNK;

using sycl::nd_item;
template <typename T> using local_t = sycl::local_accessor<T, 1>;

/* Local memory as a plain pointer (SYCL 2020's get_multi_ptr is missing in
 * AdaptiveCpp 24.06). */
template <typename T> PSH_INLINE T *lptr(const local_t<T> &a) {
    return &a[0];
}

PSH_INLINE void barrier(const nd_item<1> &it) {
    sycl::group_barrier(it.get_group());
}

/* The plane a chunk (or, with window counts, a window) belongs to. */
PSH_INLINE int plane_of_chunk(const SyclJob &job, const int g) {
    int p = 0;
    if (job.num_planes > 1 && g >= job.plane[1].chunk0) p = 1;
    if (job.num_planes > 2 && g >= job.plane[2].chunk0) p = 2;
    return p;
}

PSH_INLINE int plane_of_window(const SyclJob &job, const int w) {
    int p = 0;
    if (job.num_planes > 1 && w >= job.plane[1].window0) p = 1;
    if (job.num_planes > 2 && w >= job.plane[2].window0) p = 2;
    return p;
}

/* The 8x8 block at p (row stride width samples). */
template <typename Pixel>
PSH_INLINE void load_block(psh_i32 v[64], const Pixel *const p, const size_t width) {
    PSH_UNROLL
    for (int i = 0; i < 8; i++) {
        PSH_UNROLL
        for (int j = 0; j < 8; j++) v[i * 8 + j] = (psh_i32)p[i * width + j];
    }
}

/* The OR of a block's samples (above 8 bits a value above the maximum has
 * a bit the maximum has not). */
template <typename Pixel> PSH_INLINE psh_u32 block_or(const Pixel *const p, const size_t width) {
    psh_u32 any = 0;
    for (int i = 0; i < 8; i++) {
        PSH_UNROLL
        for (int j = 0; j < 8; j++) any |= (psh_u32)p[i * width + j];
    }
    return any;
}

/* A block with a sample above the maximum is not computed (its products
 * would overflow): the frame is flagged and the host reports where. */
PSH_INLINE void flag_out_of_range(const SyclJob &job) {
    sycl::atomic_ref<psh_u32, sycl::memory_order::relaxed, sycl::memory_scope::device,
                     sycl::access::address_space::global_space>
        flags(job.flags[0]);
    flags.fetch_or(1u);
}

/* Sums part[0..CHUNK) into part[0] (any order: only a guess of where the
 * chain will be). */
PSH_INLINE float group_sum(const nd_item<1> &it, float *const part, const float v) {
    const int lid = (int)it.get_local_id(0);
    part[lid] = v;
    barrier(it);
    for (int n = CHUNK / 2; n > 0; n >>= 1) {
        if (lid < n) part[lid] += part[lid + n];
        barrier(it);
    }
    return part[0];
}

template <typename Pixel> struct TermsKernel {
    SyclJob job;
    local_t<float> part;
    local_t<psh_i32> cs, cd; /* [64 * CHUNK]: coefficient k of work-item i at k * CHUNK + i */

    PSH_SYCL_KERNEL_INLINE void operator()(nd_item<1> it) const {
        const int lid = (int)it.get_local_id(0);
        const int g = (int)it.get_group(0);
        const int p = plane_of_chunk(job, g);
        const SyclPlane &pl = job.plane[p];
        const int b = (g - pl.chunk0) * CHUNK + lid;
        float *const out = job.terms + (size_t)g * 64 * CHUNK + lid;
        float sum = 0.0f;
        if (b < pl.nblocks) {
            const size_t y = (size_t)(b / pl.nbx) * 7, x = (size_t)(b % pl.nbx) * 7;
            const size_t at = (y * (size_t)pl.width + x) * sizeof(Pixel);
            const Pixel *const ref = (const Pixel *)(job.frame + pl.ref_off + at);
            const Pixel *const dist = (const Pixel *)(job.frame + pl.dist_off + at);
            sum = block(ref, dist, (size_t)pl.width, p, lid, out);
        } else {
            /* Padding blocks of the last chunk add +0: exact no-ops. */
            for (int k = 0; k < 64; k++) out[k * CHUNK] = 0.0f;
        }
        const float total = group_sum(it, lptr(part), sum);
        if (lid == 0) job.chunk_sum[g] = total;
    }

    /* One block's 64 terms to out[k * CHUNK]; returns their f32 sum.
     * psh_block_terms step by step (its functions, in its order), each
     * block's coefficients parked in local memory once transformed, as
     * src/cuda_hip/kernels.cu does for HIP: one block's arrays live at a time.
     * Kept whole, the block spills 56 bytes at 255 registers on CUDA, and
     * with the integer helpers (64-term loop not unrolled) s, d and the
     * terms go to private memory (tests/sycl: sycl_backend_resources_*). The
     * OpenMP target runs the same code, so CI tests what GPUs run. */
    PSH_SYCL_KERNEL_INLINE float block(const Pixel *const ref, const Pixel *const dist,
                                       const size_t width, const int p, const int lid,
                                       float *const out) const {
        /* Both blocks' range first: no transform sees a sample too large. */
        if (sizeof(Pixel) > 1 &&
            ((block_or<Pixel>(ref, width) | block_or<Pixel>(dist, width)) & ~job.max_sample)) {
            flag_out_of_range(job);
            for (int k = 0; k < 64; k++) out[k * CHUNK] = 0.0f;
            return 0.0f;
        }
        psh_i32 *const ls = lptr(cs) + lid;
        psh_i32 *const ld = lptr(cd) + lid;
        float thr_s;
        {
            psh_i32 s[64];
            load_block<Pixel>(s, ref, width);
            thr_s = psh_block_transform(s, p, job.mask_product);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) ls[k * CHUNK] = s[k];
        }
        float thr;
        {
            psh_i32 d[64];
            load_block<Pixel>(d, dist, width);
            thr = psh_block_limit(thr_s, psh_block_transform(d, p, job.mask_product));
            PSH_UNROLL
            for (int k = 0; k < 64; k++) ld[k * CHUNK] = d[k];
        }
        float sum = 0.0f;
        for (int k = 0; k < 64; k++) {
            const float t = psh_block_term(ls[k * CHUNK], ld[k * CHUNK], k, p, thr);
            out[k * CHUNK] = t;
            sum += t;
        }
        return sum;
    }
};

struct MapsKernel {
    SyclJob job;
    local_t<float> part;
    local_t<PshSumMap> red;

    PSH_SYCL_KERNEL_INLINE void operator()(nd_item<1> it) const {
        const int lid = (int)it.get_local_id(0);
        const int g = (int)it.get_group(0);
        const SyclPlane &pl = job.plane[plane_of_chunk(job, g)];
        /* The approximate prefix: the plane's chunks before this one. */
        float pre = 0.0f;
        for (int j = pl.chunk0 + lid; j < g; j += CHUNK) pre += job.chunk_sum[j];
        const float prefix = group_sum(it, lptr(part), pre);
        /* The sum plan's candidates for the chunk's start; the range reaches
         * to the chunk's end, so that after a crossing inside the chunk its
         * later blocks have maps for the next binade. A wrong guess only
         * costs speed. */
        const PshSumCandidates cand = psh_sum_candidates(prefix, prefix, prefix + job.chunk_sum[g]);
        const float *const t = job.terms + (size_t)g * 64 * CHUNK + lid;
        PshSumMap *const bm = job.block_maps + ((size_t)g * CHUNK + lid) * 2;
        PshSumMap *const r = lptr(red);
        for (int c = 0; c < 2; c++) {
            /* A select, not cand.e[c]: a run-time index would put the pair
             * in private memory. */
            const int e = c ? cand.e[1] : cand.e[0];
            PshSumMap m = psh_sum_map_identity();
            if (e != PSH_SUM_NO_BINADE) {
                for (int k = 0; k < 64; k++) m = psh_sum_map_push(m, t[k * CHUNK], e);
            }
            bm[c] = m;
            /* The chunk's map: blocks composed in order, pairwise. */
            barrier(it);
            r[lid] = m;
            barrier(it);
            for (int n = 1; n < CHUNK; n <<= 1) {
                if ((lid & (2 * n - 1)) == 0) r[lid] = psh_sum_map_compose(r[lid], r[lid + n]);
                barrier(it);
            }
            if (lid == 0) {
                job.chunks[g].e[c] = e;
                job.chunks[g].pad[c] = 0;
                job.chunks[g].m[c] = r[0];
            }
        }
    }
};

/* A window is PSH_SYCL_CHUNK consecutive chunks of a plane. For the two
 * binades the chain most likely starts it in (its first chunk's
 * candidates), the composition of its chunks' maps for that binade, where
 * every chunk has one: inside one binade the maps compose exactly. */
struct WindowsKernel {
    SyclJob job;
    local_t<PshSumMap> red;
    local_t<int> ok;

    PSH_SYCL_KERNEL_INLINE void operator()(nd_item<1> it) const {
        const int lid = (int)it.get_local_id(0);
        const int w = (int)it.get_group(0);
        const SyclPlane &pl = job.plane[plane_of_window(job, w)];
        const int first = pl.chunk0 + (w - pl.window0) * CHUNK;
        const int n = pl.nchunks - (w - pl.window0) * CHUNK;
        PshSumMap *const r = lptr(red);
        for (int c = 0; c < 2; c++) {
            const int e = job.chunks[first].e[c];
            if (lid == 0) ok[0] = e != PSH_SUM_NO_BINADE;
            barrier(it);
            PshSumMap m = psh_sum_map_identity();
            if (lid < n) {
                const PshSumChunkMaps *const ch = job.chunks + first + lid;
                if (ch->e[0] == e)
                    m = ch->m[0];
                else if (ch->e[1] == e)
                    m = ch->m[1];
                else
                    ok[0] = 0;
            }
            r[lid] = m;
            barrier(it);
            for (int s = 1; s < CHUNK; s <<= 1) {
                if ((lid & (2 * s - 1)) == 0) r[lid] = psh_sum_map_compose(r[lid], r[lid + s]);
                barrier(it);
            }
            if (lid == 0) {
                job.windows[w].e[c] = ok[0] ? e : PSH_SUM_NO_BINADE;
                job.windows[w].pad[c] = 0;
                job.windows[w].m[c] = r[0];
            }
            barrier(it);
        }
    }
};

/* One work-group per plane walks its windows from r = 0; work-item 0 holds
 * the chain, the others load maps into local memory. */
struct WalkKernel {
    SyclJob job;
    local_t<PshSumChunkMaps> cm; /* a window's chunk maps */
    local_t<PshSumMap> bm;       /* a chunk's block maps, [2 * block] */
    local_t<int> pos;            /* [0] next window, [1] next chunk */

    PSH_SYCL_KERNEL_INLINE void operator()(nd_item<1> it) const {
        const int lid = (int)it.get_local_id(0);
        const int p = (int)it.get_group(0);
        const SyclPlane &pl = job.plane[p];
        PshSumChunkMaps *const lcm = lptr(cm);
        PshSumMap *const lbm = lptr(bm);
        float r = 0.0f;
        int w = 0;
        for (;;) {
            /* Whole windows, by work-item 0 alone, while their maps apply. */
            if (lid == 0) {
                for (; w < pl.nwindows; w++)
                    if (!psh_sum_step(job.windows[pl.window0 + w], &r)) break;
                pos[0] = w;
            }
            barrier(it);
            w = pos[0];
            if (w >= pl.nwindows) break;
            /* This window crosses a binade or its guess was wrong: chunk by
             * chunk, its chunk maps loaded by all work-items at once. */
            const int base = pl.chunk0 + w * CHUNK;
            const int left = pl.nchunks - w * CHUNK;
            const int n = left < CHUNK ? left : CHUNK;
            if (lid < n) lcm[lid] = job.chunks[base + lid];
            barrier(it);
            int c = 0;
            for (;;) {
                if (lid == 0) {
                    while (c < n && psh_sum_step(lcm[c], &r)) c++;
                    pos[1] = c;
                }
                barrier(it);
                c = pos[1];
                if (c >= n) break;
                /* This chunk crosses a binade, or its guess was wrong: block
                 * by block, its block maps loaded by all work-items. */
                const size_t chunk = (size_t)(base + c);
                lbm[2 * lid] = job.block_maps[(chunk * CHUNK + lid) * 2];
                lbm[2 * lid + 1] = job.block_maps[(chunk * CHUNK + lid) * 2 + 1];
                barrier(it);
                if (lid == 0) {
                    const float *const t = job.terms + chunk * 64 * CHUNK;
                    PshSumChunkMaps m = lcm[c];
                    for (int j = 0; j < CHUNK; j++) {
                        m.m[0] = lbm[2 * j];
                        m.m[1] = lbm[2 * j + 1];
                        if (psh_sum_step(m, &r)) continue;
                        for (int k = 0; k < 64; k++) r += t[k * CHUNK + j];
                    }
                }
                c++;
                barrier(it);
            }
            w++;
            barrier(it);
        }
        if (lid == 0) {
            job.out[p] = r;
            /* The terms kernel of this frame is done (in-order queue): hand
             * its flags to the host with the sums, and clear them. */
            if (p == 0) {
                job.out[3] = psh_u32_as_float(job.flags[0]);
                job.flags[0] = 0;
            }
        }
    }
};

inline void enqueue(sycl::queue &q, const SyclJob &job, const sycl::event *const after,
                    sycl::event ev[PSH_SYCL_KERNELS]) {
    const sycl::range<1> local(CHUNK);
    const sycl::nd_range<1> chunks(sycl::range<1>((size_t)job.nchunks * CHUNK), local);
    ev[0] = q.submit([&](sycl::handler &h) {
        if (after) h.depends_on(*after);
#define PSH_SYCL_TERMS(Pixel)                                                                      \
    TermsKernel<Pixel> {                                                                           \
        job, local_t<float>(local, h), local_t<psh_i32>(sycl::range<1>(64 * CHUNK), h),            \
            local_t<psh_i32>(sycl::range<1>(64 * CHUNK), h)                                        \
    }
        if (job.bitdepth == 8)
            h.parallel_for(chunks, PSH_SYCL_TERMS(unsigned char));
        else
            h.parallel_for(chunks, PSH_SYCL_TERMS(unsigned short));
#undef PSH_SYCL_TERMS
    });
    ev[1] = q.submit([&](sycl::handler &h) {
        h.parallel_for(chunks,
                       MapsKernel{job, local_t<float>(local, h), local_t<PshSumMap>(local, h)});
    });
    ev[2] = q.submit([&](sycl::handler &h) {
        h.parallel_for(
            sycl::nd_range<1>(sycl::range<1>((size_t)job.nwindows * CHUNK), local),
            WindowsKernel{job, local_t<PshSumMap>(local, h), local_t<int>(sycl::range<1>(1), h)});
    });
    ev[3] = q.submit([&](sycl::handler &h) {
        h.parallel_for(sycl::nd_range<1>(sycl::range<1>((size_t)job.num_planes * CHUNK), local),
                       WalkKernel{job, local_t<PshSumChunkMaps>(local, h),
                                  local_t<PshSumMap>(sycl::range<1>(2 * CHUNK), h),
                                  local_t<int>(sycl::range<1>(2), h)});
    });
}

} // namespace PSH_SYCL_NS
