/*
 * The host side of the CUDA/HIP split: the handful of runtime calls the
 * shared host (gpu_backend.c) makes, under neutral gpu* names, for the
 * build selected by PSNRHVS_GPU_HIP. Written for this project instead of
 * HIP's own NVIDIA-platform headers (those of ROCm 5.2 do not compile
 * against CUDA 13).
 *
 * CUDA: the runtime is linked statically (cudart_static); kernels.cu, built
 * by nvcc into the library, gives its kernels as a table of host stubs.
 * HIP: nothing is linked. libamdhip64 is opened at run time and the kernels
 * come as an embedded code object (hipcc --genco, every target), loaded with
 * the module API and launched by name, so the library and the CLI start on
 * machines without ROCm and --backend hip says why it cannot run.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CUDA_HIP_GPU_RUNTIME_H
#define PSNRHVS_SRC_CUDA_HIP_GPU_RUNTIME_H

#include <stddef.h>
#include <stdio.h>

#include "cuda_hip/kernels.h"

#ifndef PSNRHVS_GPU_HIP
#define PSNRHVS_GPU_HIP 0 /* the CUDA build */
#endif

#if PSNRHVS_GPU_HIP
#include <hip/hip_runtime_api.h>

#define PSNRHVS_GPU_NAME     "hip"
#define PSNRHVS_GPU_RUNTIME  "HIP"
#define PSNRHVS_GPU_ID       PSNRHVS_BACKEND_HIP
#define PSNRHVS_GPU_FN(name) psh_hip_##name
#define PSNRHVS_GPU_OPS      psh_backend_hip

/* The runtime entry points, from libamdhip64 (gpu_runtime_hip.c). */
#define PSNRHVS_HIP_FUNCTIONS(X)                                                                   \
    X(hipDeviceGet)                                                                                \
    X(hipDeviceGetName)                                                                            \
    X(hipDeviceGetPCIBusId)                                                                        \
    X(hipDeviceTotalMem)                                                                           \
    X(hipEventCreateWithFlags)                                                                     \
    X(hipEventDestroy)                                                                             \
    X(hipEventRecord)                                                                              \
    X(hipEventSynchronize)                                                                         \
    X(hipFree)                                                                                     \
    X(hipGetDeviceCount)                                                                           \
    X(hipGetErrorName)                                                                             \
    X(hipGetErrorString)                                                                           \
    X(hipHostFree)                                                                                 \
    X(hipHostMalloc)                                                                               \
    X(hipMalloc)                                                                                   \
    X(hipMemcpyAsync)                                                                              \
    X(hipMemsetAsync)                                                                              \
    X(hipMemcpy2D)                                                                                 \
    X(hipModuleGetFunction)                                                                        \
    X(hipModuleLaunchKernel)                                                                       \
    X(hipModuleLoadData)                                                                           \
    X(hipModuleUnload)                                                                             \
    X(hipSetDevice)                                                                                \
    X(hipStreamCreateWithFlags)                                                                    \
    X(hipStreamDestroy)                                                                            \
    X(hipStreamSynchronize)                                                                        \
    X(hipStreamWaitEvent)

typedef struct PsnrHvsHipApi {
#define PSNRHVS_HIP_MEMBER(name) __typeof__(name) *name;
    PSNRHVS_HIP_FUNCTIONS(PSNRHVS_HIP_MEMBER)
#undef PSNRHVS_HIP_MEMBER
} PsnrHvsHipApi;

extern PsnrHvsHipApi psh_hip;
/* The code object of kernels.cu for every target built (hip_code_object.c). */
extern const unsigned char psh_hip_code_object[];

/* Opens libamdhip64 once (thread-safe). 0, or -1 with the reason in why. */
int psh_hip_load(char *why, size_t size);

typedef hipError_t gpuError_t;
typedef hipStream_t gpuStream_t;
typedef hipEvent_t gpuEvent_t;
#define gpuSuccess                         hipSuccess
#define gpuErrorMemoryAllocation           hipErrorOutOfMemory
#define gpuErrorNoDevice                   hipErrorNoDevice
#define gpuErrorInsufficientDriver         hipErrorInsufficientDriver
#define gpuErrorInvalidDevice              hipErrorInvalidDevice
#define gpuErrorNoKernelImage              hipErrorNoBinaryForGpu
#define gpuMemcpyHostToDevice              hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost              hipMemcpyDeviceToHost
#define gpuGetDeviceCount(n)               psh_hip.hipGetDeviceCount(n)
#define gpuDeviceGetPCIBusId(b, n, d)      psh_hip.hipDeviceGetPCIBusId(b, n, d)
#define PSNRHVS_GPU_VENDOR                 "amd"
#define gpuSetDevice(d)                    psh_hip.hipSetDevice(d)
#define gpuMalloc(p, n)                    psh_hip.hipMalloc(p, n)
#define gpuFree(p)                         psh_hip.hipFree(p)
#define gpuMallocHost(p, n)                psh_hip.hipHostMalloc(p, n, 0)
#define gpuFreeHost(p)                     psh_hip.hipHostFree(p)
#define gpuMemcpyAsync(d, s, n, k, st)     psh_hip.hipMemcpyAsync(d, s, n, k, st)
#define gpuMemsetAsync(p, v, n, st)        psh_hip.hipMemsetAsync(p, v, n, st)
#define gpuMemcpy2D(d, dp, s, sp, w, h, k) psh_hip.hipMemcpy2D(d, dp, s, sp, w, h, k)
#define gpuStreamCreate(s)                 psh_hip.hipStreamCreateWithFlags(s, hipStreamNonBlocking)
#define gpuStreamDestroy(s)                psh_hip.hipStreamDestroy(s)
#define gpuStreamSynchronize(s)            psh_hip.hipStreamSynchronize(s)
#define gpuEventCreate(e)                  psh_hip.hipEventCreateWithFlags(e, hipEventDisableTiming)
#define gpuEventDestroy(e)                 psh_hip.hipEventDestroy(e)
#define gpuEventRecord(e, s)               psh_hip.hipEventRecord(e, s)
#define gpuEventSynchronize(e)             psh_hip.hipEventSynchronize(e)
#define gpuStreamWaitEvent(s, e)           psh_hip.hipStreamWaitEvent(s, e, 0)
#define gpuGetErrorName(e)                 psh_hip.hipGetErrorName(e)
#define gpuGetErrorString(e)               psh_hip.hipGetErrorString(e)

static inline int gpu_runtime_load(char *why, size_t size) {
    return psh_hip_load(why, size);
}

/* The kernels of one device: the code object loaded as a module. */
typedef struct GpuKernels {
    hipModule_t module;
    hipFunction_t fn[PSNRHVS_GPU_KERNELS];
} GpuKernels;

static inline gpuError_t gpu_kernels_load(GpuKernels *k) {
    static const char *const names[PSNRHVS_GPU_KERNELS] = PSNRHVS_GPU_KERNEL_NAMES;
    gpuError_t e = psh_hip.hipModuleLoadData(&k->module, psh_hip_code_object);
    for (int i = 0; e == hipSuccess && i < PSNRHVS_GPU_KERNELS; i++)
        e = psh_hip.hipModuleGetFunction(&k->fn[i], k->module, names[i]);
    return e;
}

static inline void gpu_kernels_unload(GpuKernels *k) {
    if (k->module) psh_hip.hipModuleUnload(k->module);
    k->module = NULL;
}

static inline gpuError_t gpu_launch(const GpuKernels *k, enum PsnrHvsGpuKernel id, unsigned grid,
                                    unsigned block, void **args, gpuStream_t st) {
    return psh_hip.hipModuleLaunchKernel(k->fn[id], grid, 1, 1, block, 1, 1, 0, st, args, NULL);
}

static inline void gpu_describe(int i, int verbose, char *buf, size_t size) {
    char name[256] = "?";
    size_t mem = 0;
    hipDevice_t dev;
    if (psh_hip.hipDeviceGet(&dev, i) == hipSuccess) {
        psh_hip.hipDeviceGetName(name, (int)sizeof(name), dev);
        psh_hip.hipDeviceTotalMem(&mem, dev);
    }
    if (verbose)
        snprintf(buf, size, "hip:%d %s (%.1f GiB)\n", i, name,
                 (double)mem / (1024.0 * 1024.0 * 1024.0));
    else
        snprintf(buf, size, "hip:%d %s\n", i, name);
}

#else
#include <cuda_runtime_api.h>

#define PSNRHVS_GPU_NAME                            "cuda"
#define PSNRHVS_GPU_RUNTIME                         "CUDA"
#define PSNRHVS_GPU_ID                              PSNRHVS_BACKEND_CUDA
#define PSNRHVS_GPU_FN(name)                        psh_cuda_##name
#define PSNRHVS_GPU_OPS                             psh_backend_cuda

/* kernels.cu's host stubs, in PsnrHvsGpuKernel order. */
extern const void *const psh_cuda_kernels[PSNRHVS_GPU_KERNELS];

typedef cudaError_t gpuError_t;
typedef cudaStream_t gpuStream_t;
typedef cudaEvent_t gpuEvent_t;
#define gpuSuccess                                  cudaSuccess
#define gpuErrorMemoryAllocation                    cudaErrorMemoryAllocation
#define gpuErrorNoDevice                            cudaErrorNoDevice
#define gpuErrorInsufficientDriver                  cudaErrorInsufficientDriver
#define gpuErrorInvalidDevice                       cudaErrorInvalidDevice
#define gpuErrorInvalidValue                        cudaErrorInvalidValue
#define gpuErrorNoKernelImage                       cudaErrorNoKernelImageForDevice
#define gpuMemcpyHostToDevice                       cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost                       cudaMemcpyDeviceToHost
#define gpuGetDeviceCount(n)                        cudaGetDeviceCount(n)
#define gpuDeviceGetPCIBusId(b, n, d)               cudaDeviceGetPCIBusId(b, n, d)
#define PSNRHVS_GPU_VENDOR                          "nvidia"
#define gpuSetDevice(d)                             cudaSetDevice(d)
#define gpuMalloc(p, n)                             cudaMalloc(p, n)
#define gpuFree(p)                                  cudaFree(p)
#define gpuMallocHost(p, n)                         cudaMallocHost(p, n)
#define gpuFreeHost(p)                              cudaFreeHost(p)
#define gpuMemcpyAsync(d, s, n, k, st)              cudaMemcpyAsync(d, s, n, k, st)
#define gpuMemsetAsync(p, v, n, st)                 cudaMemsetAsync(p, v, n, st)
#define gpuMemcpy2D(d, dp, s, sp, w, h, k)          cudaMemcpy2D(d, dp, s, sp, w, h, k)
#define gpuMemcpy2DAsync(d, dp, s, sp, w, h, k, st) cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, st)
#define gpuStreamCreate(s)                          cudaStreamCreateWithFlags(s, cudaStreamNonBlocking)
#define gpuStreamDestroy(s)                         cudaStreamDestroy(s)
#define gpuStreamSynchronize(s)                     cudaStreamSynchronize(s)
#define gpuEventCreate(e)                           cudaEventCreateWithFlags(e, cudaEventDisableTiming)
#define gpuEventDestroy(e)                          cudaEventDestroy(e)
#define gpuEventRecord(e, s)                        cudaEventRecord(e, s)
#define gpuEventSynchronize(e)                      cudaEventSynchronize(e)
#define gpuStreamWaitEvent(s, e)                    cudaStreamWaitEvent(s, e, 0)
#define gpuGetErrorName(e)                          cudaGetErrorName(e)
#define gpuGetErrorString(e)                        cudaGetErrorString(e)

static inline int gpu_runtime_load(char *why, size_t size) {
    (void)why, (void)size;
    return 0; /* linked */
}

typedef struct GpuKernels {
    const void *const *fn;
} GpuKernels;

/* cudaSuccess if this build has code the current device can run. */
static inline gpuError_t gpu_kernels_load(GpuKernels *k) {
    struct cudaFuncAttributes a;
    k->fn = psh_cuda_kernels;
    return cudaFuncGetAttributes(&a, k->fn[PSNRHVS_GPU_WALK]);
}

static inline void gpu_kernels_unload(GpuKernels *k) {
    k->fn = NULL;
}

static inline gpuError_t gpu_launch(const GpuKernels *k, enum PsnrHvsGpuKernel id, unsigned grid,
                                    unsigned block, void **args, gpuStream_t st) {
    const dim3 g = {grid, 1, 1}, b = {block, 1, 1};
    return cudaLaunchKernel(k->fn[id], g, b, args, 0, st);
}

static inline void gpu_describe(int i, int verbose, char *buf, size_t size) {
    struct cudaDeviceProp p;
    p.name[sizeof(p.name) - 1] = '\0';
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess)
        snprintf(buf, size, "cuda:%d ?\n", i);
    else if (verbose)
        snprintf(buf, size,
                 "cuda:%d %s (sm_%d%d, %d multiprocessors, %.1f GiB, PCI %04x:%02x:%02x)\n", i,
                 p.name, p.major, p.minor, p.multiProcessorCount,
                 (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.pciDomainID, p.pciBusID,
                 p.pciDeviceID);
    else
        snprintf(buf, size, "cuda:%d %s\n", i, p.name);
}
#endif

/* Host helpers of this runtime's backend (gpu_backend.c), for bench/cuda too:
 * the job of frames packed as g says (no device call), and its workspace
 * (job->workspace_bytes, 256-aligned) and frame (job->frame_bytes) on the
 * device, for one rendition of the frame. */
struct PsnrHvsFrameGeometry;
void PSNRHVS_GPU_FN(plan)(PsnrHvsGpuJob *job, const struct PsnrHvsFrameGeometry *g);
void PSNRHVS_GPU_FN(bind)(PsnrHvsGpuJob *job, void *workspace, const void *frame, int rendition);
#if !PSNRHVS_GPU_HIP
/* Stages first..last of a frame on a cudaStream_t; a cudaError_t. */
int psh_cuda_enqueue_stages(const PsnrHvsGpuJob *job, void *stream, int first, int last);
#endif

#endif /* PSNRHVS_SRC_CUDA_HIP_GPU_RUNTIME_H */
