/*
 * The device side of the CUDA/HIP split: the runtime header, and the few
 * warp operations kernels.cu uses, over logical warps of 32 lanes. On AMD
 * GPUs with 64-wide wavefronts a logical warp is half a wavefront: shuffles
 * take width 32 and a ballot keeps its half's bits.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CUDA_HIP_GPU_DEVICE_H
#define PSNRHVS_SRC_CUDA_HIP_GPU_DEVICE_H

#if defined(__HIP__)
#include <hip/hip_runtime.h>
#define PSH_HIP 1

/* Kernel parameters already live in constant memory there. */
#define PSH_GRID_CONSTANT
/* HIP's second __launch_bounds__ argument means something else (waves per
 * execution unit): only the block size. */
#define PSH_LAUNCH_BOUNDS_ONE_BLOCK(threads) __launch_bounds__(threads)

template <typename T> static __device__ __forceinline__ T psh_shfl(const T v, const int src) {
    return __shfl(v, src, 32);
}
template <typename T> static __device__ __forceinline__ T psh_shfl_up(const T v, const int d) {
    return __shfl_up(v, (unsigned)d, 32);
}
template <typename T> static __device__ __forceinline__ T psh_shfl_down(const T v, const int d) {
    return __shfl_down(v, (unsigned)d, 32);
}
static __device__ __forceinline__ unsigned psh_ballot(const int pred) {
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 64
    return (unsigned)(__ballot(pred) >> (threadIdx.x & 32));
#else
    return (unsigned)__ballot(pred);
#endif
}
/* Only the walk kernel syncs its warp, and its thread block is that warp. */
#define psh_syncwarp() __syncthreads()
#define psh_ldg(p)     (*(p))

#else
#include <cuda_runtime.h>
#define PSH_HIP 0

#define PSH_GRID_CONSTANT                    __grid_constant__
#define PSH_LAUNCH_BOUNDS_ONE_BLOCK(threads) __launch_bounds__(threads, 1)

template <typename T> static __device__ __forceinline__ T psh_shfl(const T v, const int src) {
    return __shfl_sync(0xffffffffu, v, src);
}
template <typename T> static __device__ __forceinline__ T psh_shfl_up(const T v, const int d) {
    return __shfl_up_sync(0xffffffffu, v, (unsigned)d);
}
template <typename T> static __device__ __forceinline__ T psh_shfl_down(const T v, const int d) {
    return __shfl_down_sync(0xffffffffu, v, (unsigned)d);
}
#define psh_ballot(pred)                     __ballot_sync(0xffffffffu, (pred))
#define psh_syncwarp()                       __syncwarp()
#define psh_ldg(p)                           __ldg(p)
#endif

#endif /* PSNRHVS_SRC_CUDA_HIP_GPU_DEVICE_H */
