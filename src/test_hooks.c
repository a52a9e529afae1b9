/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "test_hooks.h"

#include "internal.h"

#include <stdatomic.h>

static atomic_int cpu_sum_mode;
static atomic_size_t cpu_engine_rows, cpu_unbuffered_rows;
static atomic_int opencl_profile, sycl_profile, vulkan_profile;
static _Atomic(const char *) vulkan_missing;

void psnrhvs_test_set_cpu_sum(const enum PsnrHvsTestCpuSum mode) {
    atomic_store(&cpu_sum_mode, (int)mode);
}

enum PsnrHvsTestCpuSum psnrhvs_test_cpu_sum(void) {
    return (enum PsnrHvsTestCpuSum)atomic_load(&cpu_sum_mode);
}

size_t psnrhvs_test_cpu_engine_rows(void) {
    return atomic_load_explicit(&cpu_engine_rows, memory_order_relaxed);
}

void psnrhvs_test_count_cpu_engine_row(void) {
    atomic_fetch_add_explicit(&cpu_engine_rows, 1, memory_order_relaxed);
}

void psnrhvs_test_set_opencl_profile(const int on) {
    atomic_store(&opencl_profile, on);
}

int psnrhvs_test_opencl_profile(void) {
    return atomic_load(&opencl_profile);
}

size_t psnrhvs_test_cpu_unbuffered_rows(void) {
    return atomic_load_explicit(&cpu_unbuffered_rows, memory_order_relaxed);
}

void psnrhvs_test_count_cpu_unbuffered_row(void) {
    atomic_fetch_add_explicit(&cpu_unbuffered_rows, 1, memory_order_relaxed);
}

void psnrhvs_test_set_sycl_profile(const int on) {
    atomic_store(&sycl_profile, on);
}

int psnrhvs_test_sycl_profile(void) {
    return atomic_load(&sycl_profile);
}

double psnrhvs_test_sycl_resident_ms(PsnrHvsContext *const c, const int iters) {
    if (!c || c->ops->id != PSNRHVS_BACKEND_SYCL || !c->ops->resident_ms) return -1.0;
    return c->ops->resident_ms(c, iters);
}

void psnrhvs_test_set_vulkan_missing(const char *const property) {
    atomic_store(&vulkan_missing, property);
}

const char *psnrhvs_test_vulkan_missing(void) {
    return atomic_load(&vulkan_missing);
}

void psnrhvs_test_set_vulkan_profile(const int on) {
    atomic_store(&vulkan_profile, on);
}

int psnrhvs_test_vulkan_profile(void) {
    return atomic_load(&vulkan_profile);
}
