#!/bin/bash
# The library's device list on the GPU machine, in one part of bench/h200.sh:
# a build with CUDA, OpenCL (NVIDIA's ICD) and Vulkan (.device/vulkan), then
# `psnrhvs --list-devices -v`, the list as psnrhvs_devices() gives it (one GPU
# through CUDA, OpenCL and Vulkan is one physical device, auto takes it
# once), batch --gpus auto against --list-devices' auto line, and auto's
# scorers against the list (api_devices). DEVICES_TARGETS and DEVICES_CTEST_R
# build and run more.
#   bash bench/devices_gpu.sh OUT     (there; bench/vulkan_carry.sh here first)
# Results: OUT/summary.txt. SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:?usage: bench/devices_gpu.sh OUT}
mkdir -p "$OUT"
ROOT=$(pwd)
B=${BUILD_DIR:-/tmp/build-devices}
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T))"; }
export PATH=/usr/local/cuda/bin:$PATH

step machine
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>&1 | tee -a "$S"
if ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/icd
fi
VK=$ROOT/.device/vulkan
vk_args=(-DPSNRHVS_VULKAN=OFF)
if [ -f "$VK/spirv/SOURCES.sha256" ]; then
    vk_args=(-DPSNRHVS_VULKAN=ON -DPSNRHVS_VULKAN_INCLUDE_HINT="$VK/include" -DPSNRHVS_VULKAN_SPIRV_DIR="$VK/spirv")
    ldconfig -p | grep -q 'libvulkan\.so\.1 ' || export LD_LIBRARY_PATH=$VK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

step "build (cuda, opencl, vulkan)"
if ! (cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
    -DPSNRHVS_OPENCL=ON -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_FFMPEG=OFF "${vk_args[@]}" &&
    cmake --build "$B" -j"$(nproc)" --target psnrhvs_cli test_devices ${DEVICES_TARGETS:-}) \
    >"$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log" | tee -a "$S"
    say "BUILD FAILED"
    exit 1
fi

step "--list-devices -v"
"$B/tools/psnrhvs" --list-devices -v 2>&1 | tee -a "$S"
step "psnrhvs_devices() (test_devices list)"
"$B/tests/api/test_devices" list 2>&1 | tee -a "$S"
step "batch --gpus auto against --list-devices"
python3 tests/batch/run_auto_gpus.py "$B/tools/psnrhvs" "$ROOT/tests/data" 2>&1 | tee -a "$S"
step "ctest"
(cd "$B" && ctest -j8 --timeout 300 --output-on-failure \
    -R "${DEVICES_CTEST_R:-^(api_devices|api_cpu_count|batch_auto_gpus)$}") >"$OUT/ctest.log" 2>&1
say "ctest rc=$? : $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
grep -E "Failed|\*\*\*|Not Run" "$OUT/ctest.log" | head -20 | tee -a "$S"
