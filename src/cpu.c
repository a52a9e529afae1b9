/*
 * CPU feature detection: CPUID for what the CPU has, XGETBV for what the OS
 * saves on a context switch (a CPU flag alone is not enough to use YMM/ZMM);
 * on AArch64 Linux the kernel's hardware capabilities (getauxval).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "cpu.h"

#include <pthread.h>
#include <stdatomic.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned xgetbv0(void) {
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return eax;
}

static unsigned detect(void) {
    unsigned a, b, c, d, flags = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx) return 0;
    const unsigned xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) return 0; /* XMM and YMM state */
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b >> 5) & 1) flags |= PSNRHVS_CPU_FLAG_AVX2;
    /* F (16), DQ (17), BW (30), VL (31); opmask, ZMM_Hi256 and Hi16_ZMM state. */
    const unsigned avx512 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
    if ((flags & PSNRHVS_CPU_FLAG_AVX2) && (b & avx512) == avx512 && (xcr0 & 0xe0) == 0xe0)
        flags |= PSNRHVS_CPU_FLAG_AVX512;
    return flags;
}
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif

static unsigned detect(void) {
    /* Advanced SIMD is mandatory in AArch64, but the kernel says so anyway. */
    return getauxval(AT_HWCAP) & HWCAP_ASIMD ? PSNRHVS_CPU_FLAG_NEON : 0;
}
#else
static unsigned detect(void) {
    return 0;
}
#endif

static unsigned cpu_flags;
static atomic_uint cpu_mask = ~0u;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void init_cpu(void) {
    cpu_flags = detect();
}

unsigned psh_get_cpu_flags(void) {
    pthread_once(&cpu_once, init_cpu);
    return cpu_flags & atomic_load(&cpu_mask);
}

void psh_set_cpu_flags_mask(const unsigned mask) {
    atomic_store(&cpu_mask, mask);
}
