/*
 * The SYCL kernels with the integer division and square root of
 * src/core/int_math.h, for devices that do not promise correctly rounded
 * f32 ones (SPIR-V: Level Zero, OpenCL), or when settings.exact_helpers asks.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define PSH_EXACT_HELPERS 1
#define PSH_SYCL_NS       psh_sycl_exact
#include "sycl/kernels.hpp"

void psh_sycl_enqueue_exact(sycl::queue &q, const SyclJob &job, const sycl::event *after,
                            sycl::event ev[PSH_SYCL_KERNELS]) {
    psh_sycl_exact::enqueue(q, job, after, ev);
}
