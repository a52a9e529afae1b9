/*
 * The GPU backends' device work for one frame (kernels.cu, compiled as CUDA
 * by nvcc and as HIP by hipcc), described for the host: the layout of a
 * frame's device workspace, the kernels by name and the launch of each
 * stage. Plain C, shared by host and device code.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CUDA_HIP_KERNELS_H
#define PSNRHVS_SRC_CUDA_HIP_KERNELS_H

#include <stddef.h>

#include "core/exact_sum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks per chunk (one warp of 32 lanes) and per super-chunk (one
 * 1024-thread block of the map kernel). Each plane's blocks start at a
 * multiple of PSNRHVS_GPU_SUPER in the frame's block arrays; the padding
 * blocks have no terms and act as the identity. */
#define PSNRHVS_GPU_WARP  32
#define PSNRHVS_GPU_CHUNK 32
#define PSNRHVS_GPU_SUPER 1024

/* 1: the terms kernels park each block's coefficients in shared memory
 * (LDS) once transformed (kernels.cu), 512 bytes a thread: HIP's way, for
 * RDNA's 256 VGPRs. A CUDA build takes it with PSNRHVS_CUDA_HIP_PATHS, so
 * that the HIP kernels' code runs, and is checked, on NVIDIA GPUs. */
#ifndef PSH_GPU_STAGE_COEFFS
#if defined(__HIP__) || (defined(PSNRHVS_GPU_HIP) && PSNRHVS_GPU_HIP)
#define PSH_GPU_STAGE_COEFFS 1
#else
#define PSH_GPU_STAGE_COEFFS 0
#endif
#endif
/* Threads per block of the terms kernels (32 KB of shared memory staged). */
#define PSNRHVS_GPU_TERMS_THREADS (PSH_GPU_STAGE_COEFFS ? 64 : 128)

typedef struct PsnrHvsGpuPlane {
    int w, h;                ///< scored size
    int ref_step, dist_step; ///< samples from one of the plane's to the next in each picture
                             ///< (2: interleaved chroma device pictures)
    int bw, bh;              ///< blocks along each side (step 7)
    long long nb;            ///< bw * bh
    long long block_off;     ///< first block in the frame's block arrays
    /* The plane's first sample in each picture, on the device, and bytes per
     * row: in the slot's packed frame, or the caller's device pictures. */
    const unsigned char *ref, *dist;
    long long ref_pitch, dist_pitch;
    long long ref_off, dist_off; ///< the planes' offsets in a packed frame (frame.h)
} PsnrHvsGpuPlane;

typedef struct PsnrHvsGpuJob {
    int num_planes, bitdepth, mask_product;
    int ref_shift, dist_shift;    ///< stored samples are moved down by this (msb_aligned), else 0
    unsigned ref_mask, dist_mask; ///< the bits a stored sample may have: 2^bitdepth - 1 moved
                                  ///< up by the shift; a sample with another is not scored
    PsnrHvsGpuPlane plane[3];
    long long blocks;       ///< padded blocks of all planes
    size_t frame_bytes;     ///< the packed frame (frame.h)
    size_t picture_bytes;   ///< one packed picture
    size_t workspace_bytes; ///< everything below, in one allocation
    /* Device pointers (bind). */
    float *terms;                ///< 64 per block, chunk-major (see kernels.cu)
    float *block_sum;            ///< approximate sum of each block's terms
    double *super_sum;           ///< approximate sum of each super-chunk
    PshSumChunkMaps *block_maps; ///< per block, per chunk, per super-chunk
    PshSumChunkMaps *chunk_maps;
    PshSumChunkMaps *super_maps;
    float *sum;      ///< the f32 chain's value per plane, then [3] the flags below
    unsigned *flags; ///< PSNRHVS_GPU_OUT_OF_RANGE: a sample out of its mask
} PsnrHvsGpuJob;

/* Set by the terms kernels, handed to sum[3] and cleared by the walk. */
#define PSNRHVS_GPU_OUT_OF_RANGE 1u

/* An encoding ladder's terms stage: one reference against several distorted
 * pictures, each reference block transformed once (the ladder terms
 * kernels). Each rendition has a job of its own for the later stages. */
#define PSNRHVS_GPU_MAX_RENDITIONS 16
typedef struct PsnrHvsGpuRendition {
    const unsigned char *dist[3]; ///< the rendition's planes on the device
    long long pitch[3];
    float *terms, *block_sum; ///< its job's
} PsnrHvsGpuRendition;

typedef struct PsnrHvsGpuLadder {
    PsnrHvsGpuJob job; ///< rendition 0's job: geometry, reference planes, flags
    int renditions;
    PsnrHvsGpuRendition r[PSNRHVS_GPU_MAX_RENDITIONS];
} PsnrHvsGpuLadder;

/* The kernels, each taking the job (or a ladder) by value as its only
 * argument. */
enum PsnrHvsGpuKernel {
    PSNRHVS_GPU_TERMS8,         ///< one thread per block: 64 terms, approximate sum (8-bit)
    PSNRHVS_GPU_TERMS16,        ///< the same above 8 bits
    PSNRHVS_GPU_SUPERS,         ///< one thread block per super-chunk: its approximate sum
    PSNRHVS_GPU_MAPS,           ///< maps of blocks, chunks and super-chunks
    PSNRHVS_GPU_WALK,           ///< one warp per plane: the exact walk
    PSNRHVS_GPU_TERMS_LADDER8,  ///< a ladder's terms (PsnrHvsGpuLadder), 8-bit
    PSNRHVS_GPU_TERMS_LADDER16, ///< the same above 8 bits
    PSNRHVS_GPU_KERNELS
};
#define PSNRHVS_GPU_KERNEL_NAMES                                                                   \
    {                                                                                              \
        "psh_gpu_terms8", "psh_gpu_terms16", "psh_gpu_supers", "psh_gpu_maps", "psh_gpu_walk",     \
            "psh_gpu_terms_ladder8", "psh_gpu_terms_ladder16"                                      \
    }

/* A frame is these stages in order, on one stream. */
#define PSNRHVS_GPU_STAGES 4

/* Kernel and launch geometry (1-D) of stage s of a job. */
static inline enum PsnrHvsGpuKernel psh_gpu_stage(const PsnrHvsGpuJob *job, const int s,
                                                  unsigned *grid, unsigned *block) {
    const unsigned supers = (unsigned)(job->blocks / PSNRHVS_GPU_SUPER);
    switch (s) {
    case 0:
        *grid = (unsigned)(job->blocks / PSNRHVS_GPU_TERMS_THREADS);
        *block = PSNRHVS_GPU_TERMS_THREADS;
        return job->bitdepth == 8 ? PSNRHVS_GPU_TERMS8 : PSNRHVS_GPU_TERMS16;
    case 1:
        *grid = supers, *block = PSNRHVS_GPU_SUPER;
        return PSNRHVS_GPU_SUPERS;
    case 2:
        *grid = supers, *block = PSNRHVS_GPU_SUPER;
        return PSNRHVS_GPU_MAPS;
    default:
        *grid = (unsigned)job->num_planes, *block = PSNRHVS_GPU_WARP;
        return PSNRHVS_GPU_WALK;
    }
}

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_SRC_CUDA_HIP_KERNELS_H */
