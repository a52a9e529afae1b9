/*
 * psnrhvs: the lane kernel of the CPU exact-sum engine (internal).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_SRC_SUM_EXACT_SUM_KERNEL_H
#define PSNRHVS_SRC_SUM_EXACT_SUM_KERNEL_H

#include <stdint.h>

#define PSNRHVS_SUM_LANES 8
/* Lowest binade the kernels accept. From 2^-101 up, a subnormal term is below
 * a quarter of the spacing, so the SIMD kernel may treat its exponent field as
 * if it were normal (docs/exact-sum.md, "Subnormals"). */
#define PSNRHVS_SUM_KERNEL_EMIN  (-101)
#define PSNRHVS_SUM_KERNEL_CROSS (1u << 24)

/* Lane j reduces terms[j*stride .. j*stride + len_j), len_j = clamp(count -
 * j*stride, 0, stride), for binade e[j] in [PSNRHVS_SUM_KERNEL_EMIN, 127],
 * and writes its map to d[j]. Entries are normalised: every entry of 2^23 or
 * more (it crosses, since n >= 2^23 there) is written as 2^24. */
typedef void (*PsnrHvsSumLanesFn)(const float *terms, uint32_t count, uint32_t stride,
                                  const int32_t e[PSNRHVS_SUM_LANES],
                                  uint32_t d[PSNRHVS_SUM_LANES][2]);

void psnrhvs_sum_lanes_c(const float *terms, uint32_t count, uint32_t stride,
                         const int32_t e[PSNRHVS_SUM_LANES], uint32_t d[PSNRHVS_SUM_LANES][2]);
void psnrhvs_sum_lanes_avx2(const float *terms, uint32_t count, uint32_t stride,
                            const int32_t e[PSNRHVS_SUM_LANES], uint32_t d[PSNRHVS_SUM_LANES][2]);

/* The kernel selected by psnrhvs_sum_set_max_isa() and the CPU. */
PsnrHvsSumLanesFn psnrhvs_sum_lanes_fn(void);

#endif /* PSNRHVS_SRC_SUM_EXACT_SUM_KERNEL_H */
