/*
 * The CUDA backend's device work for one frame, callable from C: the layout
 * of a frame's device workspace and the launches over it (kernels.cu).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CUDA_KERNELS_H
#define PSNRHVS_SRC_CUDA_KERNELS_H

#include <stddef.h>

#include "core/exact_sum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks per chunk (one warp) and per super-chunk (one 1024-thread block of
 * the map kernel). Each plane's blocks start at a multiple of
 * PSNRHVS_CUDA_SUPER in the frame's block arrays; the padding blocks have no
 * terms and act as the identity. */
#define PSNRHVS_CUDA_CHUNK 32
#define PSNRHVS_CUDA_SUPER 1024

typedef struct PsnrHvsCudaPlane {
    int w, h;            ///< scored size
    int bw, bh;          ///< blocks along each side (step 7)
    long long nb;        ///< bw * bh
    long long block_off; ///< first block in the frame's block arrays
    long long ref_off;   ///< byte offset of the reference plane in the frame
    long long dist_off;  ///< byte offset of the distorted plane
    long long pitch;     ///< bytes per row of both planes
} PsnrHvsCudaPlane;

typedef struct PsnrHvsCudaJob {
    int num_planes, bitdepth, mask_product;
    PsnrHvsCudaPlane plane[3];
    long long blocks;       ///< padded blocks of all planes
    size_t frame_bytes;     ///< the packed pair (frame.h)
    size_t workspace_bytes; ///< everything below, in one allocation
    /* Device pointers (psnrhvs_cuda_bind). */
    const unsigned char *frame;
    float *terms;                ///< 64 per block, chunk-major (see kernels.cu)
    float *block_sum;            ///< approximate sum of each block's terms
    double *super_sum;           ///< approximate sum of each super-chunk
    PshSumChunkMaps *block_maps; ///< per block, per chunk, per super-chunk
    PshSumChunkMaps *chunk_maps;
    PshSumChunkMaps *super_maps;
    float *sum; ///< the f32 chain's value per plane
} PsnrHvsCudaJob;

/* Fill geometry, offsets and sizes of a job for frames packed as g says
 * (no device call). */
struct PsnrHvsFrameGeometry; /* frame.h, host side only */
void psnrhvs_cuda_plan(PsnrHvsCudaJob *job, const struct PsnrHvsFrameGeometry *g);

/* Point a planned job at a workspace of job->workspace_bytes (256-aligned)
 * and a frame of job->frame_bytes. */
void psnrhvs_cuda_bind(PsnrHvsCudaJob *job, void *workspace, const void *frame);

/* Enqueue the four kernels of one frame on a stream (cudaStream_t); job->sum
 * holds the plane sums once the stream reaches that point. Returns a
 * cudaError_t, checked after every launch. */
int psnrhvs_cuda_enqueue(const PsnrHvsCudaJob *job, void *stream);

/* The same, kernels first..last only (0 terms, 1 super sums, 2 maps, 3 walk),
 * for benchmarks. */
#define PSNRHVS_CUDA_STAGES 4
int psnrhvs_cuda_enqueue_stages(const PsnrHvsCudaJob *job, void *stream, int first, int last);

/* cudaSuccess if this build has code the current device can run. */
int psnrhvs_cuda_probe_image(void);

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_SRC_CUDA_KERNELS_H */
