/*
 * The devices the experiment runs on: every SYCL device present (with
 * AdaptiveCpp: the OpenMP host device, and each CUDA GPU in a cuda build).
 * SPDX-License-Identifier: BSD-2-Clause
 */
#include "scx_sycl.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sycl_core_exact.h"

namespace {
std::vector<sycl::device> &devices() {
    static std::vector<sycl::device> list = sycl::device::get_devices();
    return list;
}
} // namespace

sycl::queue &scx_queue(int device) {
    static std::vector<std::unique_ptr<sycl::queue>> queues(devices().size());
    auto &q = queues.at(static_cast<size_t>(device));
    if (!q) q = std::make_unique<sycl::queue>(devices().at(static_cast<size_t>(device)),
                                              sycl::property::queue::in_order{});
    return *q;
}

extern "C" int scx_sycl_device_count(void) {
    try {
        return static_cast<int>(devices().size());
    } catch (const sycl::exception &e) {
        std::fprintf(stderr, "sycl: listing devices: %s\n", e.what());
        return 0;
    }
}

extern "C" int scx_sycl_device_describe(int device, char *buf, size_t size) {
    const sycl::device &d = devices().at(static_cast<size_t>(device));
    const std::string name = d.get_info<sycl::info::device::name>();
    const std::string platform = d.get_platform().get_info<sycl::info::platform::name>();
    std::snprintf(buf, size, "%s [%s, %s]", name.c_str(), platform.c_str(),
                  d.is_gpu() ? "gpu" : d.is_cpu() ? "cpu" : "other");
    return d.is_gpu() ? 1 : 0;
}
