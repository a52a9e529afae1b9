#!/usr/bin/env bash
# On the GPU machine: the plugin's throughput against the CLI's on the same
# frames, CPU, auto (the CPU and the GPU) and CUDA, 1080p 8- and 10-bit, and
# the values compared bit for bit (bench/vapoursynth/vs_bench.sh).
#
#   here:  bench/vapoursynth/vs_carry.sh            (-> .device/vs)
#   there: bench/vapoursynth/vs_gpu.sh OUT_DIR      (carry .device/vs; ~4 minutes)
# SPDX-License-Identifier: BSD-2-Clause
set -uo pipefail
OUT=${1:-${OUT:-/tmp/vs_gpu_out}}
mkdir -p "$OUT"
ROOT=$(pwd)
B=${BUILD_DIR:-/tmp/build-vs}
export PATH=/usr/local/cuda/bin:$PATH
LIBVS=$ROOT/.device/vs/lib/libvapoursynth.so
[ -f "$LIBVS" ] || { echo "vs_gpu.sh: no $LIBVS: carry .device/vs (bench/vapoursynth/vs_carry.sh)"; exit 1; }
export LD_LIBRARY_PATH=$ROOT/.device/vs/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{
    cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
        -DPSNRHVS_VAPOURSYNTH=ON -DBUILD_TESTING=ON &&
        cmake --build "$B" -j"$(nproc)" --target psnrhvs_cli psnrhvs_vs psnrhvs_vs_testsource vs_bench
} >"$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
status=0
for depth in 8 10; do
    TMPDIR=/tmp "$ROOT/bench/vapoursynth/vs_bench.sh" "$B" "$LIBVS" 1920 1080 600 "$depth" \
        "cpu auto cuda" 2>&1 | tee -a "$OUT/vs_bench.txt" || status=1
done
exit $status
