#!/usr/bin/env bash
# Packs what the Vulkan backend needs on the GPU machine (Ubuntu 24.04 with
# NVIDIA's driver, maybe without the Vulkan loader, its headers or a GLSL
# compiler, and without network), for bench/vulkan_gpu.sh:
#
#   bench/vulkan_carry.sh [OUT_DIR]     (default .device/vulkan, ignored by git)
#
#   OUT_DIR/spirv/     the kernels' SPIR-V as this tree's GLSL compiles them
#                      (glslangValidator or glslc, the build's own command
#                      lines: a scratch CMake tree builds psnrhvs_vulkan_spirv
#                      only), and SOURCES.sha256, the GLSL's fingerprint: a
#                      build given -DPSNRHVS_VULKAN_SPIRV_DIR=OUT_DIR/spirv
#                      refuses SPIR-V of other GLSL
#   OUT_DIR/include/   the C headers of Debian's libvulkan-dev (vulkan/*.h,
#                      vk_video/*.h: -DPSNRHVS_VULKAN_INCLUDE_HINT=OUT_DIR/include)
#   OUT_DIR/lib/       Debian's loader, libvulkan.so.1 (glibc 2.36: runs on
#                      Ubuntu 24.04's 2.39), used only where the machine has none
#   OUT_DIR/MANIFEST   what was packed, from which packages and versions
# About 2 MB. SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.device/vulkan}
for t in cmake; do
    command -v $t >/dev/null || { echo "vulkan_carry.sh: needs $t" >&2; exit 1; }
done
[ -f /usr/include/vulkan/vulkan.h ] ||
    { echo "vulkan_carry.sh: no /usr/include/vulkan/vulkan.h (apt-get install libvulkan-dev)" >&2; exit 1; }
loader=$(ldconfig -p | awk '/libvulkan\.so\.1 .*x86-64/ && !f {print $NF; f = 1}') # no early exit: pipefail
[ -n "$loader" ] || { echo "vulkan_carry.sh: no libvulkan.so.1 here (apt-get install libvulkan1)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/vulkan_carry.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The SPIR-V exactly as the build makes it (nothing else of the tree is built).
cmake -S . -B "$tmp/build" -G Ninja -DPSNRHVS_VULKAN=ON -DPSNRHVS_CUDA=OFF -DPSNRHVS_HIP=OFF \
    -DPSNRHVS_OPENCL=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_FFMPEG=OFF -DBUILD_TESTING=OFF \
    >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log" >&2; exit 1; }
grep -q "Vulkan backend: on (.*SPIR-V from" "$tmp/configure.log" ||
    { echo "vulkan_carry.sh: the build compiles no SPIR-V here:" >&2; grep -i vulkan "$tmp/configure.log" >&2; exit 1; }
cmake --build "$tmp/build" --target psnrhvs_vulkan_spirv >"$tmp/build.log" 2>&1 ||
    { cat "$tmp/build.log" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/spirv" "$out/include" "$out/lib"
cp "$tmp"/build/src/vulkan/kernel_*.spv "$tmp/build/src/vulkan/SOURCES.sha256" "$out/spirv/"
cp -r /usr/include/vulkan "$out/include/"
rm -f "$out"/include/vulkan/*.hpp # C++ bindings: megabytes, unused
[ -d /usr/include/vk_video ] && cp -r /usr/include/vk_video "$out/include/"
cp "$(readlink -f "$loader")" "$out/lib/libvulkan.so.1"
compiler=$(grep -o "SPIR-V from [^,]*" "$tmp/configure.log" | head -1)
{
    echo "packed $(date -u +%FT%TZ) from commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "spirv: $(cd "$out/spirv" && ls kernel_*.spv | tr '\n' ' ')($compiler)"
    echo "glsl sha256: $(cat "$out/spirv/SOURCES.sha256")"
    echo "headers: libvulkan-dev $(dpkg-query -W -f='${Version}' libvulkan-dev 2>/dev/null || echo '?')"
    echo "loader: $(readlink -f "$loader") (libvulkan1 $(dpkg-query -W -f='${Version}' libvulkan1 2>/dev/null || echo '?'))"
} >"$out/MANIFEST"
cat "$out/MANIFEST"
du -sh "$out"
