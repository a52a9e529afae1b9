/*
 * The SYCL kernels with the device's IEEE division and square root (the
 * OpenMP and CUDA targets: correctly rounded under cmake/Sycl.cmake's flags).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#define PSH_EXACT_HELPERS 0
#define PSH_SYCL_NS       psh_sycl_native
#include "sycl/kernels.hpp"

void psh_sycl_enqueue_native(sycl::queue &q, const SyclJob &job, const sycl::event *after,
                             sycl::event ev[PSH_SYCL_KERNELS]) {
    psh_sycl_native::enqueue(q, job, after, ev);
}
