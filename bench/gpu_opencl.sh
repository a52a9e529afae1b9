#!/bin/sh
# OpenCL backend on the machine's GPU: build, device description (private
# memory per kernel), the golden fixtures and CPU/OpenCL parity through ctest,
# parity on generated 1920x1080 and 3840x2160 8- and 10-bit pictures, and
# ms/frame at 3840x2160 8-bit against the CPU backend with 16 threads, in the
# same run. Results go to bench/RESULTS.md (## OpenCL) by hand.
# usage (repo root): bench/gpu_opencl.sh [build dir] [frames]
# SPDX-License-Identifier: BSD-2-Clause
set -u
ROOT=$(pwd)
B=${1:-/tmp/psnrhvs-gpu-opencl}
FRAMES=${2:-40}
LOG=${OUT:-$B}/gpu_opencl.log
mkdir -p "$B" "$(dirname "$LOG")"
exec > "$LOG.tmp" 2>&1 || exit 1
trap 'cat "$LOG.tmp" > "$LOG"' EXIT
say() { echo "== $*"; }

# NVIDIA's ICD may be installed but not registered: register it for us.
if [ -z "${OCL_ICD_VENDORS:-}" ] && ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 &&
   ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
    export OCL_ICD_VENDORS=/tmp/icd
fi
say "ICD: ${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>/dev/null

# Headers and loader: the system's, CUDA's, or (headers only) a copy carried
# in .opencl-headers/CL.
ARGS=""
HDR=""
for d in /usr/include /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include; do
    [ -f "$d/CL/cl.h" ] && HDR=$d && break
done
[ -z "$HDR" ] && [ -f "$ROOT/.opencl-headers/CL/cl.h" ] && HDR=$ROOT/.opencl-headers
say "OpenCL headers: ${HDR:-none found}"
[ -n "$HDR" ] && ARGS="$ARGS -DOpenCL_INCLUDE_DIR=$HDR"
LIB=""
for f in /usr/lib/x86_64-linux-gnu/libOpenCL.so /usr/local/cuda/lib64/libOpenCL.so \
         /usr/local/cuda/targets/x86_64-linux/lib/libOpenCL.so; do
    [ -e "$f" ] && LIB=$f && break
done
[ -z "$LIB" ] && LIB=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
say "OpenCL loader: ${LIB:-none found}"
[ -n "$LIB" ] && ARGS="$ARGS -DOpenCL_LIBRARY=$LIB"

say build
GEN=""
command -v ninja >/dev/null && GEN="-G Ninja"
# shellcheck disable=SC2086
cmake -S "$ROOT" -B "$B" $GEN -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_OPENCL=ON \
    -DPSNRHVS_CUDA=OFF -DPSNRHVS_HIP=OFF $ARGS > "$B/cmake.log" 2>&1 || { tail -30 "$B/cmake.log"; exit 1; }
cmake --build "$B" -j "$(nproc)" > "$B/build.log" 2>&1 || { tail -30 "$B/build.log"; exit 1; }
cc -O2 -std=c11 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -I"$ROOT/include" \
    "$ROOT/bench/gpu_opencl.c" -L"$B/src" -lpsnrhvs -Wl,-rpath,"$B/src" -o "$B/gpu_opencl" || exit 1

# Each step twice where it matters: the default kernels, and the variant that
# parks the reference coefficients in local memory (fewer live registers).
VARIANT="-DPSH_CL_LOCAL_COEFFS=1"
# Device 0 is the first platform's first device, which can be PoCL even with
# OCL_ICD_VENDORS set (seen on the H200 machine): test and time the GPU.
if [ -z "${PSNRHVS_OPENCL_DEVICE:-}" ]; then
    PSNRHVS_OPENCL_DEVICE=$(PSNRHVS_OPENCL_OPTIONS= "$B/tests/opencl/opencl_devices" 2>/dev/null |
        awk -F: '/^[0-9]+: .*(NVIDIA|GPU|gfx|Radeon|Intel\(R\) (Arc|Data|UHD|Iris))/ {print $1; exit}')
fi
export PSNRHVS_OPENCL_DEVICE=${PSNRHVS_OPENCL_DEVICE:-0}
say "OpenCL device used by the tests and timings: $PSNRHVS_OPENCL_DEVICE"
say "devices (verbose: private memory of each kernel), default kernels"
"$B/tests/opencl/opencl_devices"
say "devices, $VARIANT"
PSNRHVS_OPENCL_OPTIONS=$VARIANT "$B/tests/opencl/opencl_devices"
say "ctest: golden fixtures (native and integer-helper builds), parity, errors, helpers"
(cd "$B" && ctest -R 'opencl|golden' --timeout 120 2>&1 | grep -v '^ *Start' | tail -n 50)
say "ctest, $VARIANT"
(cd "$B" && PSNRHVS_OPENCL_OPTIONS=$VARIANT ctest -R 'opencl_(golden|parity)' --timeout 120 2>&1 |
    grep -E 'tests passed|Failed|\*\*\*')

say "parity on generated pictures"
for size in "1920 1080" "3840 2160"; do
    for bd in 8 10; do
        # shellcheck disable=SC2086
        "$B/gpu_opencl" parity $size $bd 6
    done
done
PSNRHVS_OPENCL_OPTIONS=$VARIANT "$B/gpu_opencl" parity 3840 2160 8 6

say "speed at 3840x2160 8-bit"
"$B/gpu_opencl" speed 3840 2160 8 "$FRAMES"
PSNRHVS_OPENCL_OPTIONS=$VARIANT "$B/gpu_opencl" speed 3840 2160 8 "$FRAMES"
say "per-stage device times (PSNRHVS_OPENCL_PROFILE; the first line is the in-flight run)"
PSNRHVS_OPENCL_PROFILE=1 "$B/gpu_opencl" speed 3840 2160 8 "$FRAMES"
PSNRHVS_OPENCL_PROFILE=1 PSNRHVS_OPENCL_OPTIONS=$VARIANT "$B/gpu_opencl" speed 3840 2160 8 "$FRAMES"
say done
