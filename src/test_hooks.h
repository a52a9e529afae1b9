/*
 * Switches for the project's tests and benchmarks. Not part of the API (the
 * shared library does not export them), never read from the environment,
 * and none changes a result: they pick between paths that give the same
 * bits, so that tests can check each path.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_TEST_HOOKS_H
#define PSNRHVS_SRC_TEST_HOOKS_H

#include <stddef.h>
#include <stdint.h>

/* How the CPU backend sums a plane, for contexts opened afterwards. */
enum PsnrHvsTestCpuSum {
    PSNRHVS_TEST_CPU_SUM_AUTO = 0, ///< the backend's policy (the default)
    PSNRHVS_TEST_CPU_SUM_CHAIN,    ///< each plane one f32 chain through its rows
    PSNRHVS_TEST_CPU_SUM_ENGINE,   ///< each row planned, then walked (src/sum)
};
void psh_test_set_cpu_sum(enum PsnrHvsTestCpuSum mode);
enum PsnrHvsTestCpuSum psh_test_cpu_sum(void);

/* Rows the CPU backend has walked through their plans, in the process. */
size_t psh_test_cpu_engine_rows(void);
void psh_test_count_cpu_engine_row(void);

/* Rows that found no free buffer and waited for the chain (benchmarks: the
 * store made at open should make this rare). */
size_t psh_test_cpu_unbuffered_rows(void);
void psh_test_count_cpu_unbuffered_row(void);

/* Backend b logs per-stage device times at close, for contexts opened
 * afterwards (bench/opencl, bench/sycl, bench/vulkan: the backends that
 * profile; the others ignore it). */
#include "psnrhvs.h"
void psh_test_set_profile(enum PsnrHvsBackend b, int on);
int psh_test_profile(enum PsnrHvsBackend b);

/* Vulkan: the backend treats the named device property as missing (one of
 * the names its refusal message gives: "shaderInt64",
 * "shaderRoundingModeRTEFloat32", ...), for contexts opened afterwards; NULL
 * (the default) for none. The string must outlive its use. */
void psh_test_set_vulkan_missing(const char *property);
const char *psh_test_vulkan_missing(void);

/* SYCL (the backend with resident_ms): runs the kernels `iters` more times on the frame last
 * uploaded into slot 0 of c (a --backend sycl context with nothing queued, after one
 * psnrhvs_score); returns the wall time per frame in ms, or -1. */
struct PsnrHvsContext;
double psh_test_sycl_resident_ms(struct PsnrHvsContext *c, int iters);

/* Vulkan: runs the device's integer helpers (src/vulkan/glsl/int_math.glsl)
 * on n operand pairs ab[2i], ab[2i + 1] with the device of c (a --backend
 * vulkan context): out[3i] = a / b, out[3i + 1] = sqrt(a), out[3i + 2] =
 * sqrt(a * b), the product exact. 0 or a PSNRHVS_ERR code. */
int psh_test_vulkan_math(struct PsnrHvsContext *c, const float *ab, size_t n, float *out);

/* auto's devices, for contexts opened afterwards: the n of list instead
 * of discovery (CPU devices allowed: PoCL, SYCL's OpenMP device), n = 0
 * back to discovery; and a delay before each device opens. */
#include "psnrhvs.h"
void psh_test_set_mix_devices(const PsnrHvsDevice *list, int n);
int psh_test_mix_devices(PsnrHvsDevice *list, int *n, int max); ///< 1 if set
void psh_test_set_mix_open_delay_ms(int ms);
int psh_test_mix_open_delay_ms(void);
/* A mix's scorers so far ("cpu", "opencl:0"...) and the frames each scored:
 * how many, or -1 for a context of one scorer (mix.c). */
int psh_test_mix_children(const struct PsnrHvsContext *c, char (*labels)[24], uint64_t *frames,
                          int max);

#endif /* PSNRHVS_SRC_TEST_HOOKS_H */
