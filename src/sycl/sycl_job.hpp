/*
 * The SYCL backend's device work for one frame, described for the host
 * (sycl_backend.cpp) and the kernels (kernels.hpp): where each plane's
 * blocks, chunks and windows lie in the frame's arrays, and the enqueue of
 * the four kernels, built twice (native IEEE division and square root, and
 * the integer helpers of src/core/int_math.h).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_SYCL_SYCL_JOB_HPP
#define PSNRHVS_SRC_SYCL_SYCL_JOB_HPP

#include <sycl/sycl.hpp>

#include "core/exact_sum.h"

/* Blocks per chunk (one work-group) and chunks per window: the OpenCL
 * backend's layout (docs/opencl.md). */
#define PSH_SYCL_CHUNK 64

struct SyclPlane {
    size_t ref_off, dist_off; ///< bytes into the packed pair (frame.h)
    int width;                ///< samples per packed row
    int nbx, nblocks;         ///< blocks per row, blocks
    int chunk0, nchunks;      ///< first chunk in the frame's chunk arrays, chunks
    int window0, nwindows;    ///< first window, windows
};

struct SyclJob {
    int num_planes, bitdepth, mask_product;
    psh_u32 max_sample;    ///< 2^bitdepth - 1: larger samples are not scored
    int nchunks, nwindows; ///< of all planes
    SyclPlane plane[3];
    /* Device pointers. Terms are chunk-major, coefficient inside:
     * terms[(chunk * 64 + k) * PSH_SYCL_CHUNK + block in chunk]. */
    const unsigned char *frame;
    float *terms;
    float *chunk_sum;         ///< approximate (f32, any order) sum of each chunk
    PshSumChunkMaps *chunks;  ///< each chunk's maps for its candidates
    PshSumMap *block_maps;    ///< [2 * block]: each block's maps for its chunk's candidates
    PshSumChunkMaps *windows; ///< PSH_SYCL_CHUNK chunks composed
    psh_u32 *flags;           ///< 1: a sample above max_sample (terms kernel)
    float *out;               ///< the chain's value per plane, then [3] the flags' bits
};

/* The kernels in queue order, for profiling. */
#define PSH_SYCL_KERNELS 4

/* Enqueues the frame's kernels on q (in order), the first after `after`
 * when given; ev[i] gets kernel i's event. Throws sycl::exception. */
void psh_sycl_enqueue_native(sycl::queue &q, const SyclJob &job, const sycl::event *after,
                             sycl::event ev[PSH_SYCL_KERNELS]);
void psh_sycl_enqueue_exact(sycl::queue &q, const SyclJob &job, const sycl::event *after,
                            sycl::event ev[PSH_SYCL_KERNELS]);

#endif /* PSNRHVS_SRC_SYCL_SYCL_JOB_HPP */
