/*
 * The portable C subset shared by the CPU code and the CUDA, HIP, OpenCL and
 * SYCL kernels: everything under src/core/ includes only this header, uses only
 * these types, qualifiers and helpers, and calls no libm function.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CORE_PORTABLE_H
#define PSNRHVS_SRC_CORE_PORTABLE_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
/* OpenCL C: built with -cl-fp32-correctly-rounded-divide-sqrt where the device
 * supports it, otherwise with PSH_EXACT_HELPERS (integer division and root). */
#pragma OPENCL FP_CONTRACT OFF
#define PSH_OPENCL 1
typedef int psh_i32;
typedef uint psh_u32;
typedef long psh_i64;
typedef ulong psh_u64;
#define PSH_INLINE          static inline
#define PSH_GLOBAL          __global
#define PSH_CONSTANT        __constant
#define PSH_CONST_TABLE     __constant
#define psh_float_as_u32(f) as_uint(f)
#define psh_u32_as_float(u) as_float(u)
#define psh_sqrt_rn(x)      sqrt(x)
#define PSH_UNROLL          _Pragma("unroll")

#elif defined(SYCL_LANGUAGE_VERSION)
/* SYCL 2020 (AdaptiveCpp; SYCL_LANGUAGE_VERSION comes from <sycl/sycl.hpp>,
 * which a SYCL source includes before any core header). Checked before the
 * CUDA branch: AdaptiveCpp's CUDA target compiles SYCL sources with -x cuda,
 * which defines __CUDACC__ too. One C++ source serves host and device, so
 * device functions are ordinary inline functions (AdaptiveCpp compiles what
 * a kernel calls for the device by itself) and constant tables are constexpr
 * (usable in device code in every SYCL implementation). Built with
 * -ffp-contract=off -fno-fast-math -fno-math-errno (cmake/Sycl.cmake): the
 * acpp driver itself adds -ffp-contract=fast at -O2 unless one is given, and
 * clang contracts CUDA device code by default. */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "psnrhvs SYCL code must not be built with fast math"
#endif
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0
#error "psnrhvs needs FLT_EVAL_METHOD == 0 (no x87 extended precision)"
#endif
typedef int psh_i32;
typedef unsigned int psh_u32;
typedef long long psh_i64;
typedef unsigned long long psh_u64;
static_assert(sizeof(psh_i32) == 4 && sizeof(psh_i64) == 8, "psh_* integer sizes");
/* Forced inline, as __forceinline__ in CUDA: a core function left as a call
 * gets its arrays passed through private memory (a stack frame on CUDA). */
#define PSH_INLINE static inline __attribute__((always_inline))
#define PSH_GLOBAL
#define PSH_CONSTANT    const
#define PSH_CONST_TABLE static constexpr
static inline psh_u32 psh_float_as_u32(float f) {
    return sycl::bit_cast<psh_u32>(f);
}
static inline float psh_u32_as_float(psh_u32 u) {
    return sycl::bit_cast<float>(u);
}
/* With -fno-math-errno, llvm.sqrt.f32: sqrtss on x86, sqrt.rn.f32 on NVIDIA.
 * Not sycl::sqrt or sqrtf: with LLVM 16 both become sqrt.approx.f32 there.
 * SPIR-V targets (AdaptiveCpp's generic target on Level Zero or OpenCL) do not
 * promise a correctly rounded f32 root or division: build their kernels with
 * PSH_EXACT_HELPERS=1 (int_math.h), as the OpenCL backend does. */
#define psh_sqrt_rn(x)  __builtin_sqrtf(x)
#if defined(__clang__)
#define PSH_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define PSH_UNROLL _Pragma("GCC unroll 8")
#else
#define PSH_UNROLL
#endif
#define PSH_SYCL 1

#elif defined(__ACPP_ENABLE_CUDA_TARGET__) || defined(__ACPP_ENABLE_HIP_TARGET__) ||               \
    defined(__ACPP_ENABLE_OMPHOST_TARGET__) || defined(__ACPP_ENABLE_LLVM_SSCP_TARGET__)
/* An acpp compile that reached a core header before <sycl/sycl.hpp>: it would
 * otherwise take the CUDA branch (-x cuda) with device-only functions. */
#error "include <sycl/sycl.hpp> before the src/core headers"

#elif defined(__CUDACC__) || defined(__HIPCC__)
/* CUDA / HIP: compiled with --fmad=false (nvcc) or -ffp-contract=off
 * -fhip-fp32-correctly-rounded-divide-sqrt (hipcc). */
typedef int psh_i32;
typedef unsigned int psh_u32;
typedef long long psh_i64;
typedef unsigned long long psh_u64;
#define PSH_INLINE static __device__ __forceinline__
#define PSH_GLOBAL
#define PSH_CONSTANT        const
#define PSH_CONST_TABLE     static __constant__ const
#define psh_float_as_u32(f) ((psh_u32)__float_as_uint(f))
#define psh_u32_as_float(u) __uint_as_float(u)
#if defined(__HIP__)
/* ROCm's __fsqrt_rn is the native approximation; sqrtf is correctly rounded
 * under -fhip-fp32-correctly-rounded-divide-sqrt (and the HIP build uses the
 * integer helpers of int_math.h besides: nothing AMD ran here). */
#define psh_sqrt_rn(x) sqrtf(x)
#else
#define psh_sqrt_rn(x) __fsqrt_rn(x)
#endif
#define PSH_UNROLL _Pragma("unroll")

#else
/* Plain C11 with -ffp-contract=off and SSE2 (or any IEEE single) arithmetic. */
#include <float.h>
#include <stdint.h>
#include <string.h>
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "psnrhvs needs FLT_EVAL_METHOD == 0 (no x87 extended precision)"
#endif
typedef int32_t psh_i32;
typedef uint32_t psh_u32;
typedef int64_t psh_i64;
typedef uint64_t psh_u64;
#define PSH_INLINE static inline
#define PSH_GLOBAL
#define PSH_CONSTANT    const
#define PSH_CONST_TABLE static const
static inline psh_u32 psh_float_as_u32(float f) {
    psh_u32 u;
    memcpy(&u, &f, sizeof(u));
    return u;
}
static inline float psh_u32_as_float(psh_u32 u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}
/* With -fno-math-errno this is the sqrtss instruction, not a libm call. */
#define psh_sqrt_rn(x)  __builtin_sqrtf(x)
#if defined(__clang__)
#define PSH_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define PSH_UNROLL _Pragma("GCC unroll 8")
#else
#define PSH_UNROLL
#endif
#endif

#ifndef PSH_OPENCL
#define PSH_OPENCL 0
#endif
#ifndef PSH_SYCL
#define PSH_SYCL 0
#endif

/* The numerics guarantee holds only without fast math: refuse to build
 * with it (-ffast-math or -ffinite-math-only in C and HIP, OpenCL's
 * -cl-fast-relaxed-math), whatever flags a packager adds. nvcc defines no
 * such macro: cmake/Numerics.cmake refuses its fast-math flags instead. */
#if defined(__FAST_MATH__) || defined(__FAST_RELAXED_MATH__) ||                                    \
    (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "psnrhvs must not be built with fast math: it changes the f32 numerics (docs/numerics.md)"
#endif

/* Devices without a guaranteed correctly rounded f32 division or square root
 * compile with PSH_EXACT_HELPERS and get the integer versions of int_math.h. */
#ifndef PSH_EXACT_HELPERS
#define PSH_EXACT_HELPERS 0
#endif

#endif /* PSNRHVS_SRC_CORE_PORTABLE_H */
