/*
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "test_hooks.h"

#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int cpu_sum_mode;
static atomic_size_t cpu_engine_rows, cpu_unbuffered_rows;
static atomic_int profile[PSNRHVS_BACKEND_VULKAN + 1];
static _Atomic(const char *) vulkan_missing;

void psh_test_set_cpu_sum(const enum PsnrHvsTestCpuSum mode) {
    atomic_store(&cpu_sum_mode, (int)mode);
}

enum PsnrHvsTestCpuSum psh_test_cpu_sum(void) {
    return (enum PsnrHvsTestCpuSum)atomic_load(&cpu_sum_mode);
}

size_t psh_test_cpu_engine_rows(void) {
    return atomic_load_explicit(&cpu_engine_rows, memory_order_relaxed);
}

void psh_test_count_cpu_engine_row(void) {
    atomic_fetch_add_explicit(&cpu_engine_rows, 1, memory_order_relaxed);
}

void psh_test_set_profile(const enum PsnrHvsBackend b, const int on) {
    if ((unsigned)b < sizeof(profile) / sizeof(profile[0])) atomic_store(&profile[b], on);
}

int psh_test_profile(const enum PsnrHvsBackend b) {
    return (unsigned)b < sizeof(profile) / sizeof(profile[0]) ? atomic_load(&profile[b]) : 0;
}

size_t psh_test_cpu_unbuffered_rows(void) {
    return atomic_load_explicit(&cpu_unbuffered_rows, memory_order_relaxed);
}

void psh_test_count_cpu_unbuffered_row(void) {
    atomic_fetch_add_explicit(&cpu_unbuffered_rows, 1, memory_order_relaxed);
}

double psh_test_sycl_resident_ms(PsnrHvsContext *const c, const int iters) {
    if (!c || !c->ops->resident_ms) return -1.0;
    return c->ops->resident_ms(c, iters);
}

void psh_test_set_vulkan_missing(const char *const property) {
    atomic_store(&vulkan_missing, property);
}

const char *psh_test_vulkan_missing(void) {
    return atomic_load(&vulkan_missing);
}

static pthread_mutex_t mix_lock = PTHREAD_MUTEX_INITIALIZER;
static PsnrHvsDevice mix_list[PSNRHVS_MAX_DEVICES];
static int mix_n;
static atomic_int mix_delay;

void psh_test_set_mix_devices(const PsnrHvsDevice *const list, const int n) {
    pthread_mutex_lock(&mix_lock);
    mix_n = n < 0 ? 0 : n > PSNRHVS_MAX_DEVICES ? PSNRHVS_MAX_DEVICES : n;
    if (mix_n) memcpy(mix_list, list, (size_t)mix_n * sizeof(*list));
    pthread_mutex_unlock(&mix_lock);
}

int psh_test_mix_devices(PsnrHvsDevice *const list, int *const n, const int max) {
    pthread_mutex_lock(&mix_lock);
    const int set = mix_n > 0;
    if (set) {
        *n = mix_n < max ? mix_n : max;
        memcpy(list, mix_list, (size_t)*n * sizeof(*list));
    }
    pthread_mutex_unlock(&mix_lock);
    return set;
}

void psh_test_set_mix_open_delay_ms(const int ms) {
    atomic_store(&mix_delay, ms);
}

int psh_test_mix_open_delay_ms(void) {
    return atomic_load(&mix_delay);
}
