/*
 * The experiment's SYCL side: one queue per device, shared by both variants.
 * SPDX-License-Identifier: BSD-2-Clause
 */
#ifndef PSNRHVS_TESTS_SYCL_SCX_SYCL_HPP
#define PSNRHVS_TESTS_SYCL_SCX_SYCL_HPP

#include <sycl/sycl.hpp>

sycl::queue &scx_queue(int device);

#endif /* PSNRHVS_TESTS_SYCL_SCX_SYCL_HPP */
