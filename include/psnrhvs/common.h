/*
 * psnrhvs: what every part shares: the export macro, the API version, error codes,
 * limits, and the enums and small types the settings are made of.
 * Part of the public API: include <psnrhvs.h>, which includes every part.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_COMMON_H
#define PSNRHVS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "psnrhvs_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PSNRHVS_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PSNRHVS_API __attribute__((visibility("default")))
#else
#define PSNRHVS_API
#endif

#define PSNRHVS_API_VERSION_MAJOR PSNRHVS_VERSION_MAJOR
#define PSNRHVS_API_VERSION_MINOR PSNRHVS_VERSION_MINOR
#define PSNRHVS_API_VERSION_PATCH PSNRHVS_VERSION_PATCH

/** Errors are negated POSIX errno values: PSNRHVS_ERR(EINVAL) etc. */
#define PSNRHVS_ERR(e) (-(e))

/** Largest luma width or height accepted (keeps every byte count in 64 bits). */
#define PSNRHVS_MAX_DIMENSION 65536
/** Most frames a context holds in flight (PsnrHvsSettings.frames_in_flight). */
#define PSNRHVS_MAX_FRAMES_IN_FLIGHT 64
/** Most CPU threads a context runs (PsnrHvsSettings.threads). */
#define PSNRHVS_MAX_THREADS 256
/** Most distorted pictures scored against one reference (PsnrHvsSettings.renditions). */
#define PSNRHVS_MAX_RENDITIONS 16

enum PsnrHvsPixelLayout {
    PSNRHVS_PIXEL_LAYOUT_I420 = 0, ///< 4:2:0, chroma (w>>1) x (h>>1)
    PSNRHVS_PIXEL_LAYOUT_I422 = 1, ///< 4:2:2, chroma (w>>1) x h
    PSNRHVS_PIXEL_LAYOUT_I444 = 2, ///< 4:4:4, chroma w x h
    PSNRHVS_PIXEL_LAYOUT_I400 = 3, ///< monochrome: luma only
};

enum PsnrHvsBackend {
    PSNRHVS_BACKEND_AUTO = 0, ///< the CPU and every GPU present, each through its best backend
                              ///< (Linux: no driver is loaded without a GPU device node)
    PSNRHVS_BACKEND_CPU = 1,
    PSNRHVS_BACKEND_CUDA = 2,
    PSNRHVS_BACKEND_OPENCL = 3,
    PSNRHVS_BACKEND_HIP = 4,
    PSNRHVS_BACKEND_SYCL = 5,   ///< AdaptiveCpp; only when named (auto skips it)
    PSNRHVS_BACKEND_VULKAN = 6, ///< Vulkan 1.2 compute; auto takes its GPUs, never a CPU device
};

/** How the block threshold multiplies masking energy by the variance ratio. */
enum PsnrHvsMaskProduct {
    PSNRHVS_MASK_PRODUCT_FLOAT = 0, ///< f32 product, as libvmaf (default)
    PSNRHVS_MASK_PRODUCT_EXACT = 1, ///< exact product (numerics spec section 6)
};

/** Where the samples of the pictures given to psnrhvs_send() live. */
enum PsnrHvsMemory {
    PSNRHVS_MEMORY_HOST = 0,   ///< host memory (default): copied before psnrhvs_send() returns
    PSNRHVS_MEMORY_DEVICE = 1, ///< device memory of `device` (cuda and hip backends): CUDA or HIP
                               ///< device pointers (cudaMalloc, NVDEC, PyTorch tensors...), read
                               ///< in place by the kernels, never through the host
    PSNRHVS_MEMORY_HOST_RETAINED = 2, ///< host memory the caller keeps valid and unchanged until
                                      ///< the frame is received (a mapped file, say): the cpu
                                      ///< backend reads it in place with frames in flight, no
                                      ///< copy; other backends treat it as PSNRHVS_MEMORY_HOST
};

/** Instruction set for the CPU backend. */
enum PsnrHvsIsa {
    PSNRHVS_ISA_AUTO = 0,   ///< best the CPU supports
    PSNRHVS_ISA_SCALAR = 1, ///< the scalar reference path
    PSNRHVS_ISA_AVX2 = 2,
    PSNRHVS_ISA_AVX512 = 3,
    PSNRHVS_ISA_NEON = 4, ///< AArch64 Advanced SIMD
};

/** One scorer of a context: a backend (not auto) and its device index. */
typedef struct PsnrHvsDevice {
    enum PsnrHvsBackend backend;
    int device;
} PsnrHvsDevice;

/** Most scorers one context spans (PsnrHvsSettings.num_devices). */
#define PSNRHVS_MAX_DEVICES 16

/** Log callback: one message without trailing newline. */
typedef struct PsnrHvsLogger {
    void *cookie;
    void (*callback)(void *cookie, const char *message);
} PsnrHvsLogger;

#ifdef __cplusplus
}
#endif

#endif /* PSNRHVS_COMMON_H */
