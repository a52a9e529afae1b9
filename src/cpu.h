/*
 * Runtime CPU feature flags, read once, with a mask for tests.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_CPU_H
#define PSNRHVS_SRC_CPU_H

enum PsnrHvsCpuFlags {
    PSNRHVS_CPU_FLAG_AVX2 = 1 << 0,   ///< AVX2 with OS support for the YMM state
    PSNRHVS_CPU_FLAG_AVX512 = 1 << 1, ///< AVX-512 F, BW, DQ and VL with the ZMM state
    PSNRHVS_CPU_FLAG_NEON = 1 << 2,   ///< AArch64 Advanced SIMD (HWCAP_ASIMD)
};

/* The flags the CPU has, ANDed with the mask. Read once (thread-safe). */
unsigned psh_get_cpu_flags(void);

/* Restricts psh_get_cpu_flags() to mask (tests, --cpumask); ~0u undoes it. */
void psh_set_cpu_flags_mask(unsigned mask);

#endif /* PSNRHVS_SRC_CPU_H */
