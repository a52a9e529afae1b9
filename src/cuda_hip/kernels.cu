/*
 * The GPU kernels, one source for CUDA (nvcc) and HIP (hipcc): the per-block
 * code of src/core/block.h and the sum plan of src/core/exact_sum.h, driven
 * over a whole frame on the device. Only the f32 chain's value of each plane
 * leaves the device. gpu_device.h maps the few warp operations; a "warp" here
 * is always 32 lanes (on 64-wide AMD wavefronts, half of one).
 *
 *   terms:  one thread per 8x8 block: its 64 terms and their approximate sum
 *   supers: one thread block per super-chunk (1024 blocks): approximate sum
 *   maps:   one thread block per super-chunk: approximate prefix of every
 *           block, its binade guess (and the neighbour when ambiguous), the
 *           block's maps, then chunk (32 blocks) and super-chunk maps composed
 *           from them for the binades guessed at their own starts
 *   walk:   one warp per plane walks super-chunks in order, applying maps,
 *           descending to chunks, blocks and finally single terms only where
 *           a map was computed for another binade or leaves its binade
 *
 * The approximate sums only steer which binade a map is computed for; the
 * walk checks every map against the chain's actual value, so they cost time
 * when poor, never bits (shared/spec/exact-parallel-sum.md).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "gpu_device.h"

#include "../core/block.h"
#include "../core/exact_sum.h"
#include "kernels.h"

#define WARP          PSNRHVS_GPU_WARP
#define TERMS_THREADS PSNRHVS_GPU_TERMS_THREADS

/* Terms are stored chunk-major: term k of block g at
 * ((g / 32) * 64 + k) * 32 + g % 32, so that a warp (32 consecutive blocks)
 * writes and reads each k as one coalesced line. */
static __device__ __forceinline__ long long term_index(const long long g, const int k) {
    return ((g >> 5) * 64 + k) * WARP + (g & (WARP - 1));
}

/* Blocks of one plane start at multiples of PSNRHVS_GPU_SUPER, so a warp and
 * a super-chunk never straddle two planes. */
static __device__ __forceinline__ int plane_of(const PsnrHvsGpuJob &job, const long long g) {
    int p = 0;
    if (job.num_planes > 1 && g >= job.plane[1].block_off) p = 1;
    if (job.num_planes > 2 && g >= job.plane[2].block_off) p = 2;
    return p;
}

/* Loads a block of samples `step` apart in their rows (2: interleaved
 * chroma), moved down by `shift` (msb_aligned); returns the OR of the stored
 * samples: one out of range has a bit that its side's mask has not. */
template <typename Pixel>
static __device__ __forceinline__ unsigned load_block(psh_i32 x[64], const unsigned char *base,
                                                      const long long pitch, const int step,
                                                      const int shift) {
    unsigned any = 0;
    PSH_UNROLL
    for (int i = 0; i < 8; i++) {
        const Pixel *row = (const Pixel *)(base + i * pitch);
        PSH_UNROLL
        for (int j = 0; j < 8; j++) {
            const unsigned v = (unsigned)psh_ldg(row + j * step);
            x[i * 8 + j] = (psh_i32)(v >> shift);
            any |= v;
        }
    }
    return any;
}

/* A block with a sample out of range (stray: the bits outside the masks)
 * is not computed (its products would overflow): the frame is flagged and
 * the host reports it. */
static __device__ __forceinline__ int out_of_range(const PsnrHvsGpuJob &job, const long long g,
                                                   const unsigned stray) {
    if (!stray) return 0;
    atomicOr(job.flags, PSNRHVS_GPU_OUT_OF_RANGE);
    PSH_UNROLL
    for (int k = 0; k < 64; k++) job.terms[term_index(g, k)] = 0.0f;
    job.block_sum[g] = 0.0f;
    return 1;
}

template <typename Pixel> static __device__ __forceinline__ void terms(const PsnrHvsGpuJob &job) {
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= job.blocks) return;
    const int p = plane_of(job, g);
    const PsnrHvsGpuPlane &pl = job.plane[p];
    const long long b = g - pl.block_off;
    if (b >= pl.nb) {
        job.block_sum[g] = 0.0f;
        return;
    }
    const int by = (int)(b / pl.bw), bx = (int)(b - (long long)by * pl.bw);
    const long long x = (long long)bx * 7 * (long long)sizeof(Pixel), y = (long long)by * 7;
    const unsigned char *const ref = pl.ref + y * pl.ref_pitch + x * pl.ref_step;
    const unsigned char *const dist = pl.dist + y * pl.dist_pitch + x * pl.dist_step;
#if PSH_GPU_STAGE_COEFFS
    /* psh_block_terms step by step, each block's coefficients parked in LDS
     * once transformed: the live registers of one block at a time, so that
     * RDNA's 256 VGPRs hold them without spilling to scratch (the resource
     * check of tests/hip). Same functions, same order, same bits. */
    __shared__ psh_i32 cs[64][TERMS_THREADS], cd[64][TERMS_THREADS];
    float thr_s;
    {
        psh_i32 s[64];
        const unsigned any = load_block<Pixel>(s, ref, pl.ref_pitch, pl.ref_step, job.ref_shift);
        if (out_of_range(job, g, any & ~job.ref_mask)) return;
        thr_s = psh_block_transform(s, p, job.mask_product);
        PSH_UNROLL
        for (int k = 0; k < 64; k++) cs[k][threadIdx.x] = s[k];
    }
    psh_i32 d[64];
    if (out_of_range(job, g,
                     load_block<Pixel>(d, dist, pl.dist_pitch, pl.dist_step, job.dist_shift) &
                         ~job.dist_mask))
        return;
    const float thr = psh_block_limit(thr_s, psh_block_transform(d, p, job.mask_product));
    PSH_UNROLL
    for (int k = 0; k < 64; k++) cd[k][threadIdx.x] = d[k];
    float sum = 0.0f;
    for (int k = 0; k < 64; k++) {
        const float t = psh_block_term(cs[k][threadIdx.x], cd[k][threadIdx.x], k, p, thr);
        job.terms[term_index(g, k)] = t;
        sum = sum + t;
    }
    job.block_sum[g] = sum;
#else
    psh_i32 s[64], d[64];
    const unsigned stray =
        (load_block<Pixel>(s, ref, pl.ref_pitch, pl.ref_step, job.ref_shift) & ~job.ref_mask) |
        (load_block<Pixel>(d, dist, pl.dist_pitch, pl.dist_step, job.dist_shift) & ~job.dist_mask);
    if (out_of_range(job, g, stray)) return;
    float t[64];
    psh_block_terms(s, d, p, job.mask_product, t);
    PSH_UNROLL
    for (int k = 0; k < 64; k++) job.terms[term_index(g, k)] = t[k];
    job.block_sum[g] = psh_sum_chain(0.0f, t, 64);
#endif
}

/* A ladder's block: the reference block transformed once, its coefficients
 * parked in shared memory, then each rendition's block (psh_block_terms
 * step by step: same functions, same order, the bits of each pair alone). */
template <typename Pixel>
static __device__ __forceinline__ void terms_ladder(const PsnrHvsGpuLadder &L) {
    const PsnrHvsGpuJob &job = L.job;
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= job.blocks) return;
    const int p = plane_of(job, g);
    const PsnrHvsGpuPlane &pl = job.plane[p];
    const long long b = g - pl.block_off;
    int bad = b >= pl.nb;
    const int by = bad ? 0 : (int)(b / pl.bw), bx = bad ? 0 : (int)(b - (long long)by * pl.bw);
    const long long x = (long long)bx * 7 * (long long)sizeof(Pixel), y = (long long)by * 7;
    __shared__ psh_i32 cs[64][TERMS_THREADS];
#if PSH_GPU_STAGE_COEFFS
    __shared__ psh_i32 cd[64][TERMS_THREADS];
#endif
    float thr_s = 0.0f;
    if (!bad) {
        psh_i32 s[64];
        const unsigned any = load_block<Pixel>(s, pl.ref + y * pl.ref_pitch + x * pl.ref_step,
                                               pl.ref_pitch, pl.ref_step, job.ref_shift);
        if (any & ~job.ref_mask) {
            atomicOr(job.flags, PSNRHVS_GPU_OUT_OF_RANGE);
            bad = 1;
        } else {
            thr_s = psh_block_transform(s, p, job.mask_product);
            PSH_UNROLL
            for (int k = 0; k < 64; k++) cs[k][threadIdx.x] = s[k];
        }
    }
    for (int r = 0; r < L.renditions; r++) {
        const PsnrHvsGpuRendition &R = L.r[r];
        psh_i32 d[64];
        int skip = bad;
        if (!skip) {
            const unsigned any = load_block<Pixel>(d, R.dist[p] + y * R.pitch[p] + x * pl.dist_step,
                                                   R.pitch[p], pl.dist_step, job.dist_shift);
            if (any & ~job.dist_mask) {
                atomicOr(job.flags, PSNRHVS_GPU_OUT_OF_RANGE);
                skip = 1;
            }
        }
        if (skip) {
            /* Padding or a sample out of range: no terms (+0, exact no-ops). */
            if (b < pl.nb)
                for (int k = 0; k < 64; k++) R.terms[term_index(g, k)] = 0.0f;
            R.block_sum[g] = 0.0f;
            continue;
        }
        const float thr = psh_block_limit(thr_s, psh_block_transform(d, p, job.mask_product));
#if PSH_GPU_STAGE_COEFFS
        /* The distorted coefficients in shared memory too (see terms). */
        PSH_UNROLL
        for (int k = 0; k < 64; k++) cd[k][threadIdx.x] = d[k];
#define PSH_LADDER_D(k) cd[k][threadIdx.x]
#else
#define PSH_LADDER_D(k) d[k]
#endif
        float sum = 0.0f;
        for (int k = 0; k < 64; k++) {
            const float t = psh_block_term(cs[k][threadIdx.x], PSH_LADDER_D(k), k, p, thr);
            R.terms[term_index(g, k)] = t;
            sum = sum + t;
        }
#undef PSH_LADDER_D
        R.block_sum[g] = sum;
    }
}

/* Sum over the thread block (blockDim.x == 1024) in a fixed order. */
static __device__ __forceinline__ double block_total(double v, double *scratch) {
    const int lane = threadIdx.x & (WARP - 1), warp = threadIdx.x / WARP;
    for (int o = WARP / 2; o > 0; o >>= 1) v += psh_shfl_down(v, o);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[lane];
    for (int o = WARP / 2; o > 0; o >>= 1) v += psh_shfl_down(v, o);
    return psh_shfl(v, 0);
}

extern "C" __global__ void __launch_bounds__(1024)
    psh_gpu_supers(const PSH_GRID_CONSTANT PsnrHvsGpuJob job) {
    __shared__ double scratch[WARP];
    const long long g = (long long)blockIdx.x * PSNRHVS_GPU_SUPER + threadIdx.x;
    const double total = block_total(job.block_sum[g], scratch);
    if (threadIdx.x == 0) job.super_sum[blockIdx.x] = total;
}

/* The block's map for binade e, if it has one: its own guess or neighbour. */
static __device__ __forceinline__ PshSumMap pick(const PshSumChunkMaps &m, const int e) {
    if (m.e[0] == e) return m.m[0];
    if (m.e[1] == e) return m.m[1];
    return psh_sum_map_saturated();
}

/* Compose the maps of the warp's lanes in lane order; lane 0 gets the whole. */
static __device__ __forceinline__ PshSumMap warp_compose(PshSumMap m) {
    for (int o = 1; o < WARP; o <<= 1) {
        PshSumMap next;
        next.d[0] = psh_shfl_down(m.d[0], o);
        next.d[1] = psh_shfl_down(m.d[1], o);
        /* Lane i (a multiple of 2o) holds [i, i+o), lane i+o holds [i+o, i+2o). */
        m = psh_sum_map_compose(m, next);
    }
    return m;
}

/* The map of block g's 64 terms for binade e: four independent runs of 16
 * terms (instruction-level parallelism), composed in order. Unrolled only
 * twice: a full unroll hoists all 64 loads and spills under the 64-register
 * cap of 1024-thread blocks. */
static __device__ __forceinline__ PshSumMap block_map(const PsnrHvsGpuJob &job, const long long g,
                                                      const int e) {
    PshSumMap q0 = psh_sum_map_identity(), q1 = q0, q2 = q0, q3 = q0;
#pragma unroll 2
    for (int k = 0; k < 16; k++) {
        q0 = psh_sum_map_push(q0, job.terms[term_index(g, k)], e);
        q1 = psh_sum_map_push(q1, job.terms[term_index(g, k + 16)], e);
        q2 = psh_sum_map_push(q2, job.terms[term_index(g, k + 32)], e);
        q3 = psh_sum_map_push(q3, job.terms[term_index(g, k + 48)], e);
    }
    return psh_sum_map_compose(psh_sum_map_compose(q0, q1), psh_sum_map_compose(q2, q3));
}

/* Marks padding blocks: their maps are the identity for any binade. */
#define ANY_BINADE 0x7fffffff

extern "C" __global__ void PSH_LAUNCH_BOUNDS_ONE_BLOCK(1024)
    psh_gpu_maps(const PSH_GRID_CONSTANT PsnrHvsGpuJob job) {
    __shared__ double scratch[WARP];
    __shared__ double warp_prefix[WARP];
    __shared__ PshSumMap super_part[2][WARP];
    const int lane = threadIdx.x & (WARP - 1), warp = threadIdx.x / WARP;
    const long long g = (long long)blockIdx.x * PSNRHVS_GPU_SUPER + threadIdx.x;
    const int p = plane_of(job, g);
    const PsnrHvsGpuPlane &pl = job.plane[p];
    const long long b = g - pl.block_off;

    /* Approximate prefix at this block's start: earlier super-chunks of the
     * plane, then the blocks before it in this one. */
    double before = 0.0;
    for (long long i = pl.block_off / PSNRHVS_GPU_SUPER + threadIdx.x; i < blockIdx.x; i += 1024)
        before += job.super_sum[i];
    before = block_total(before, scratch);
    const double own = job.block_sum[g];
    double incl = own;
    for (int o = 1; o < WARP; o <<= 1) {
        const double v = psh_shfl_up(incl, o);
        if (lane >= o) incl += v;
    }
    if (lane == WARP - 1) warp_prefix[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        double w = warp_prefix[lane];
        for (int o = 1; o < WARP; o <<= 1) {
            const double v = psh_shfl_up(w, o);
            if (lane >= o) w += v;
        }
        warp_prefix[lane] = w - warp_prefix[lane];
    }
    __syncthreads();
    const float approx = (float)(before + warp_prefix[warp] + (incl - own));

    /* This block's maps for its likely binades (the sum plan's candidates
     * at the block's approximate start). */
    const PshSumCandidates cand = psh_sum_candidates(approx, approx, approx);
    PshSumChunkMaps bm;
    bm.e[0] = cand.e[0];
    bm.e[1] = cand.e[1];
    bm.pad[0] = bm.pad[1] = 0;
    if (b < pl.nb) {
        bm.m[0] = block_map(job, g, bm.e[0]);
        bm.m[1] =
            bm.e[1] == PSH_SUM_NO_BINADE ? psh_sum_map_saturated() : block_map(job, g, bm.e[1]);
    } else {
        bm.m[0] = bm.m[1] = psh_sum_map_identity();
    }
    job.block_maps[g] = bm;
    if (b >= pl.nb) bm.e[0] = bm.e[1] = ANY_BINADE;

    /* Chunk maps for the binades guessed at the chunk's start (lane 0), and
     * this warp's part of the super-chunk's (thread 0). */
    const int ec[2] = {psh_shfl(bm.e[0] == ANY_BINADE ? PSH_SUM_NO_BINADE : cand.e[0], 0),
                       psh_shfl(bm.e[0] == ANY_BINADE ? PSH_SUM_NO_BINADE : cand.e[1], 0)};
    __shared__ int es[2];
    if (threadIdx.x == 0) {
        es[0] = ec[0];
        es[1] = ec[1];
    }
    __syncthreads();
    PshSumChunkMaps cm;
    cm.pad[0] = cm.pad[1] = 0;
    PSH_UNROLL
    for (int i = 0; i < 2; i++) {
        cm.e[i] = ec[i];
        cm.m[i] = psh_sum_map_saturated();
        if (ec[i] != PSH_SUM_NO_BINADE) {
            const PshSumMap m =
                warp_compose(bm.e[0] == ANY_BINADE ? psh_sum_map_identity() : pick(bm, ec[i]));
            cm.m[i] = m;
        }
        const int e = es[i];
        if (e != PSH_SUM_NO_BINADE) {
            const PshSumMap m =
                warp_compose(bm.e[0] == ANY_BINADE ? psh_sum_map_identity() : pick(bm, e));
            if (lane == 0) super_part[i][warp] = m;
        }
    }
    if (lane == 0) job.chunk_maps[g / PSNRHVS_GPU_CHUNK] = cm;
    __syncthreads();
    if (warp == 0) {
        PshSumChunkMaps sm;
        sm.pad[0] = sm.pad[1] = 0;
        PSH_UNROLL
        for (int i = 0; i < 2; i++) {
            sm.e[i] = es[i];
            sm.m[i] = psh_sum_map_saturated();
            if (es[i] != PSH_SUM_NO_BINADE) sm.m[i] = warp_compose(super_part[i][lane]);
        }
        if (lane == 0) job.super_maps[blockIdx.x] = sm;
    }
}

static __device__ __forceinline__ PshSumMap shfl_up_map(const PshSumMap m, const int o) {
    PshSumMap r;
    r.d[0] = psh_shfl_up(m.d[0], o);
    r.d[1] = psh_shfl_up(m.d[1], o);
    return r;
}

/* Lane i holds the maps of item i of a level (super-chunks, chunks or
 * blocks). Applies items from, from+1, ... for r's binade as far as they fit
 * and returns the first item where none does (n if all fit); r is then the
 * chain's value before that item. A warp scan of map compositions does in a
 * few steps what walking the items one by one would do in up to 32. */
static __device__ __forceinline__ int run_level(const PshSumChunkMaps &mine, const int from,
                                                const int n, float *const r) {
    const int lane = threadIdx.x & (WARP - 1);
    const int e = psh_sum_binade(*r);
    const int in = lane >= from && lane < n;
    PshSumMap m = in ? pick(mine, e) : psh_sum_map_identity();
    for (int o = 1; o < WARP; o <<= 1) {
        const PshSumMap before = shfl_up_map(m, o);
        if (lane >= o) m = psh_sum_map_compose(before, m);
    }
    float ri = *r;
    const int ok = in ? psh_sum_map_apply(m, e, &ri) : 1;
    /* Maps never shrink n, so the failures are a suffix of [from, n). */
    const unsigned fail = psh_ballot(!ok);
    const int f = fail ? __ffs((int)fail) - 1 : n;
    if (f > from) *r = psh_shfl(ri, f - 1);
    return f;
}

/* The chain through block g's terms; zero terms leave it unchanged (r + 0 = r,
 * spec section 3), so only the non-zero ones go through it, in order. */
static __device__ __forceinline__ float chain_block(const PsnrHvsGpuJob &job, const long long g,
                                                    const float r, float *const tt) {
    const int lane = threadIdx.x & (WARP - 1);
    const float a = job.terms[term_index(g, lane)], b = job.terms[term_index(g, lane + WARP)];
    const unsigned za = psh_ballot(a != 0.0f), zb = psh_ballot(b != 0.0f);
    const unsigned below = (1u << lane) - 1;
    psh_syncwarp();
    if (a != 0.0f) tt[__popc(za & below)] = a;
    if (b != 0.0f) tt[__popc(za) + __popc(zb & below)] = b;
    psh_syncwarp();
    return psh_sum_chain(r, tt, (psh_u32)(__popc(za) + __popc(zb)));
}

static __device__ __forceinline__ PshSumChunkMaps no_maps(void) {
    PshSumChunkMaps m;
    m.e[0] = m.e[1] = PSH_SUM_NO_BINADE;
    m.pad[0] = m.pad[1] = 0;
    m.m[0] = m.m[1] = psh_sum_map_saturated();
    return m;
}

/* One warp per plane walks the super-chunks in order, descending into a
 * super-chunk's chunks, a chunk's blocks, and a block's terms only where no
 * map fits. Every lane carries the same r, so control flow stays uniform. */
extern "C" __global__ void __launch_bounds__(WARP)
    psh_gpu_walk(const PSH_GRID_CONSTANT PsnrHvsGpuJob job) {
    __shared__ float tt[64];
    const int lane = threadIdx.x;
    const PsnrHvsGpuPlane &pl = job.plane[blockIdx.x];
    const long long first = pl.block_off / PSNRHVS_GPU_SUPER;
    const long long supers = (pl.nb + PSNRHVS_GPU_SUPER - 1) / PSNRHVS_GPU_SUPER;
    float r = 0.0f;
    for (long long s0 = 0; s0 < supers; s0 += WARP) {
        const int ns = (int)(supers - s0 < WARP ? supers - s0 : WARP);
        const PshSumChunkMaps sm = lane < ns ? job.super_maps[first + s0 + lane] : no_maps();
        for (int i = run_level(sm, 0, ns, &r); i < ns; i = run_level(sm, i + 1, ns, &r)) {
            const long long s = first + s0 + i;
            const long long left = pl.nb - (s * PSNRHVS_GPU_SUPER - pl.block_off);
            const long long lc = (left + PSNRHVS_GPU_CHUNK - 1) / PSNRHVS_GPU_CHUNK;
            const int nc = (int)(lc < WARP ? lc : WARP);
            const PshSumChunkMaps cm = lane < nc ? job.chunk_maps[s * WARP + lane] : no_maps();
            for (int c = run_level(cm, 0, nc, &r); c < nc; c = run_level(cm, c + 1, nc, &r)) {
                const long long g0 = s * PSNRHVS_GPU_SUPER + c * PSNRHVS_GPU_CHUNK;
                const long long lb = pl.nb - (g0 - pl.block_off);
                const int nb = (int)(lb < WARP ? lb : WARP);
                const PshSumChunkMaps bm = lane < nb ? job.block_maps[g0 + lane] : no_maps();
                for (int j = run_level(bm, 0, nb, &r); j < nb; j = run_level(bm, j + 1, nb, &r))
                    r = chain_block(job, g0 + j, r, tt);
            }
        }
    }
    if (lane == 0) job.sum[blockIdx.x] = r;
    /* The terms kernel of this frame is done (same stream): hand its flags
     * to the host with the sums, and clear them for the next frame. */
    if (lane == 0 && blockIdx.x == 0) {
        job.sum[3] = __uint_as_float(*job.flags);
        *job.flags = 0;
    }
}

/* The entry points of the terms stage, one per sample size. */
extern "C" __global__ void __launch_bounds__(TERMS_THREADS)
    psh_gpu_terms8(const PSH_GRID_CONSTANT PsnrHvsGpuJob job) {
    terms<unsigned char>(job);
}

extern "C" __global__ void __launch_bounds__(TERMS_THREADS)
    psh_gpu_terms16(const PSH_GRID_CONSTANT PsnrHvsGpuJob job) {
    terms<unsigned short>(job);
}

extern "C" __global__ void __launch_bounds__(TERMS_THREADS)
    psh_gpu_terms_ladder8(const PSH_GRID_CONSTANT PsnrHvsGpuLadder ladder) {
    terms_ladder<unsigned char>(ladder);
}

extern "C" __global__ void __launch_bounds__(TERMS_THREADS)
    psh_gpu_terms_ladder16(const PSH_GRID_CONSTANT PsnrHvsGpuLadder ladder) {
    terms_ladder<unsigned short>(ladder);
}

#if !PSH_HIP
/* CUDA: the host launches through this table (HIP finds the kernels by name
 * in the code object, PSNRHVS_GPU_KERNEL_NAMES). */
extern "C" const void *const psh_cuda_kernels[PSNRHVS_GPU_KERNELS] = {
    (const void *)psh_gpu_terms8,        (const void *)psh_gpu_terms16,
    (const void *)psh_gpu_supers,        (const void *)psh_gpu_maps,
    (const void *)psh_gpu_walk,          (const void *)psh_gpu_terms_ladder8,
    (const void *)psh_gpu_terms_ladder16};
#endif
