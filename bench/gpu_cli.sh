#!/bin/bash
# The end-to-end part of the GPU machine's work, in one call: the CLI built
# there (CUDA, OpenCL), libvmaf's vmaf built there from the carried tarball
# (the speed anchor, measured in the same run), bench/cli_gpu.sh (whole CLI
# runs, start-up, ladders, several scorers, vmaf side by side), the SYCL
# backend's parity from its bundle (bench/sycl_gpu.sh), and NVDEC decoding
# (bench/hwaccel_gpu.sh, from the same bundle).
#
#   here:  tests/sycl/pack-gpu.sh BUILD_DIR     (-> .device/sycl, with FFmpeg and clips)
#          mkdir -p .device/vmaf && cp ../shared/deps/libvmaf-*.tar.gz .device/vmaf/
#   there: bench/gpu_cli.sh OUT_DIR   (carry .device/sycl and .device/vmaf; ~9 minutes;
#          CPU_BENCH=1 also runs bench/cpu/cpu_bench before the CLI runs)
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/gpu_cli_out}}
mkdir -p "$OUT"
ROOT=$(pwd)
B=${BUILD_DIR:-/tmp/build-cli}
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
export PATH=/usr/local/cuda/bin:$PATH
if ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
    for f in /etc/OpenCL/vendors/*.icd; do [ -f "$f" ] && cp "$f" /tmp/icd/; done
    export OCL_ICD_VENDORS=/tmp/icd
fi

say "== build ($(date +%T))"
if ! { cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
    -DPSNRHVS_OPENCL=ON -DBUILD_TESTING=$([ "${CPU_BENCH:-0}" = 1 ] && echo ON || echo OFF) &&
    cmake --build "$B" -j"$(nproc)"; } >"$OUT/build.log" 2>&1; then
    tail -20 "$OUT/build.log" | tee -a "$S"
    exit 1
fi

VMAF=""
tarball=$(ls "$ROOT"/.device/vmaf/libvmaf-*.tar.gz 2>/dev/null | head -1)
if [ -n "$tarball" ]; then
    say "== libvmaf from $(basename "$tarball") ($(date +%T))"
    V=/tmp/vmaf-src
    rm -rf $V && mkdir -p $V && tar xzf "$tarball" -C $V
    src=$(dirname "$(find $V -name meson.build -path '*libvmaf/meson.build' | head -1)")
    meson=(meson)
    command -v meson >/dev/null || meson=(python3 -m mesonbuild.mesonmain)
    if (cd "$src" && "${meson[@]}" setup /tmp/vmaf-build --buildtype release -Denable_asm=false \
        -Dbuilt_in_models=false -Denable_tests=false -Denable_docs=false &&
        ninja -C /tmp/vmaf-build tools/vmaf) >"$OUT/vmaf_build.log" 2>&1; then
        VMAF=/tmp/vmaf-build/tools/vmaf
        say "vmaf: $($VMAF --version 2>&1 | head -1)"
    else
        tail -15 "$OUT/vmaf_build.log" | tee -a "$S"
    fi
fi

# CPU_BENCH=1: the CPU backend's own throughput from memory (frames one at a
# time with 16 threads, and 3 in flight), in the same call as the CLI's.
if [ "${CPU_BENCH:-0}" = 1 ]; then
    say "== bench/cpu/cpu_bench --threads=16 ($(date +%T))"
    "$B/bench/cpu/cpu_bench" --threads=16 --sizes=3840x2160,1920x1080 2>&1 | tee -a "$S"
fi

say "== bench/cli_gpu.sh ($(date +%T))"
DEADLINE=${DEADLINE:-280} BUILD=$B VMAF=$VMAF OUT=$OUT timeout 330 bench/cli_gpu.sh 2>"$OUT/cli_gpu.log"
cat "$OUT/cli_summary.txt" >>"$S"

if [ -x "$ROOT/.device/sycl/run.sh" ]; then
    say "== SYCL parity from the bundle ($(date +%T))"
    SKIP_EXPERIMENT=1 SKIP_SPEED=1 T=90 timeout 110 bench/sycl_gpu.sh "$OUT/sycl" >/dev/null 2>&1
    grep -v "^      " "$OUT/sycl/summary.txt" >>"$S"
    say "== NVDEC (--hwaccel cuda) from the bundle ($(date +%T))"
    REPS=${HW_REPS:-2} timeout 120 bash bench/hwaccel_gpu.sh "$ROOT/.device/sycl" "$OUT/hwaccel" >/dev/null 2>&1
    cat "$OUT/hwaccel/hwaccel.txt" >>"$S" 2>/dev/null
fi
say "== done ($(date +%T))"
