#!/bin/bash
# The GPU machine, one short call: psnrhvs_host_register's CUDA path. Builds
# the CLI and tests/cuda/cuda_host_register, runs the test, then 3840x2160
# 8-bit 480-frame CLI runs, --backend cuda and the default (whole-run
# seconds, outputs compared); a run that does not end in 30 s has its
# threads' kernel stacks and wait channels shown. Run x (8871c32) also ran
# each with PSNRHVS_HOST_REGISTER=1, the CLI's knob for registering its
# files, since removed.
#   there: bash bench/cuda/hostreg_check.sh OUT
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-/tmp/hostreg_check}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
ROOT=$(pwd)
B=/tmp/hostreg-build W=/tmp/hostreg-clips
export PATH=/usr/local/cuda/bin:$PATH
say "== build ($(date +%T))"
cmake -S "$ROOT" -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON -DPSNRHVS_OPENCL=OFF \
    -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_FFMPEG=OFF -DPSNRHVS_VULKAN=OFF >$OUT/build.log 2>&1 &&
    cmake --build $B -j16 --target psnrhvs_cli cuda_host_register test_api >>$OUT/build.log 2>&1 ||
    { tail -20 $OUT/build.log | tee -a "$S"; exit 1; }
mkdir -p $W
cc -O2 -o $W/gen "$ROOT/bench/gen_frames.c"
$W/gen 3840 2160 8 480 8 0 0 $W/ref.yuv & $W/gen 3840 2160 8 480 8 6 1 $W/dist.yuv &
say "== tests ($(date +%T))"
(cd $B && timeout 60 ctest -R 'cuda_host|api_retained|api_host' --output-on-failure) >$OUT/ctest.log 2>&1
grep -E "tests passed|FAIL|Failed|compared|identical" $OUT/ctest.log | tee -a "$S"
wait
cat $W/*.yuv >/dev/null
P=$B/tools/psnrhvs
run() { # NAME FLAGS...
    local name=$1
    shift
    local t0 t1 pid
    t0=$(date +%s.%N)
    $P --timing -r $W/ref.yuv -d $W/dist.yuv -w 3840 -h 2160 "$@" --frame_cnt 480 -q \
        --json --precision max --raw -o $OUT/$name.json 2>$OUT/$name.err &
    pid=$!
    for i in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    if kill -0 $pid 2>/dev/null; then
        say "$name: STALLED after 30 s; threads:"
        for t in /proc/$pid/task/*; do
            say "  $(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan 2>/dev/null) $(head -c 300 $t/stack 2>/dev/null | tr '\n' '|')"
        done
        kill -9 $pid
        wait $pid 2>/dev/null
        return
    fi
    wait $pid
    t1=$(date +%s.%N)
    say "$name: $(awk -v a=$t0 -v b=$t1 'BEGIN {printf "%.3f", b - a}') s; $(grep timing: $OUT/$name.err | tr '\n' ' ' | cut -c1-400)"
}
say "== 3840x2160 8-bit 480 frames ($(date +%T))"
for rep in 1 2; do
    run cuda-$rep --backend cuda
    run default-$rep
done
for f in default-1 cuda-2 default-2; do
    [ -f $OUT/$f.json ] && { cmp -s <(grep -v '"fps"' $OUT/cuda-1.json) <(grep -v '"fps"' $OUT/$f.json) &&
        say "$f: same bytes as cuda-1" || say "$f: DIFFERS from cuda-1"; }
done
rm -rf $W
say "== done ($(date +%T))"
