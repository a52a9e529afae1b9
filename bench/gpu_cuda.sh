#!/bin/bash
# CUDA backend on a GPU machine, in one go: build, golden and parity tests
# through --backend cuda, compute-sanitizer, then the benchmark (resident
# kernel time, pinned-upload throughput vs the host-to-device bandwidth,
# end-to-end fps vs the CPU backend) at 2160p and 1080p, 8 and 10 bits.
# usage (from the repository root): bench/gpu_cuda.sh [out dir]
# Results: <out>/summary.txt (the table), plus one log per step.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/gpu_cuda_out}}
mkdir -p "$OUT"
# Logs go to $L and are packed into $OUT/logs.tar.gz at the end (the device
# tool returns at most 8 files); the summary stays in $OUT.
L=$(mktemp -d /tmp/gpu_cuda_logs.XXXXXX)
trap 'tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null' EXIT
ROOT=$(pwd)
B=${BUILD_DIR:-/tmp/build-gpu-cuda}
JOBS=$(nproc)
THREADS=${CPU_THREADS:-16}
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T))"; }

step machine
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max \
    --format=csv,noheader 2>&1 | tee -a "$S"
nvcc --version | tail -2 | tee -a "$S"
say "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

step build
export PATH=/usr/local/cuda/bin:$PATH
if ! cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
    >"$L/build.log" 2>&1; then
    tail -40 "$L/build.log"
    say "CONFIGURE FAILED"
    exit 1
fi
# Work in progress elsewhere in the tree must not stop the CUDA run: fall
# back to the targets this script needs.
if ! cmake --build "$B" -j"$JOBS" >>"$L/build.log" 2>&1; then
    say "full build failed (see build.log); building the CUDA targets only"
    grep -m5 -E "error" "$L/build.log" | tee -a "$S"
    if ! cmake --build "$B" -j"$JOBS" --target cuda_parity cuda_bench cuda_open >>"$L/build.log" 2>&1; then
        tail -40 "$L/build.log"
        say "BUILD FAILED"
        exit 1
    fi
fi
say "built"

step "ctest (whole suite, CUDA tests included)"
(cd "$B" && ctest -j"$JOBS" --timeout 200 --output-on-failure) >"$L/ctest.log" 2>&1
say "ctest rc=$? : $(grep -E 'tests passed|tests failed' "$L/ctest.log")"
grep -E "cuda_|Failed|\*\*\*" "$L/ctest.log" | head -20 | tee -a "$S"

step "parity cpu vs cuda (fixtures, Netflix clips, generated 1080p/2160p)"
"$B/tests/cuda/cuda_parity" "$ROOT/tests/data" 0 >"$L/parity.log" 2>&1
say "cuda_parity rc=$?"
cat "$L/parity.log" | tee -a "$S"

step "compute-sanitizer (small inputs)"
for tool in memcheck racecheck; do
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 \
        "$B/tests/cuda/cuda_parity" "$ROOT/tests/data" 0 quick >"$L/sanitizer_$tool.log" 2>&1
    say "$tool rc=$? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|frames compared' "$L/sanitizer_$tool.log" | tr '\n' ' ')"
done

step benchmark
say "| geometry | resident 1 stream ms | resident 4 streams ms | H2D GB/s | pinned fps | of H2D | lib cuda fps | lib cpu fps | cuda/cpu |"
say "|---|---|---|---|---|---|---|---|---|"
for g in "3840 2160 8" "3840 2160 10" "1920 1080 8" "1920 1080 10"; do
    set -- $g
    cf=16
    [ "$1" = 1920 ] && cf=48
    name="bench_${1}x${2}_${3}"
    "$B/tests/cuda/cuda_bench" $1 $2 $3 "$THREADS" $cf 400 >"$L/$name.log" 2>&1
    echo "rc=$?" >>"$L/$name.log"
    grep SUMMARY "$L/$name.log" | sed 's/^SUMMARY //' | tee -a "$S"
done
grep -h RESULT "$L"/bench_*.log | tee -a "$S"

# Each backend twice, alternating, so that neither gets a warmer page cache.
cli_run() { # w h frames
    local w=$1 h=$2 n=$3 T=/tmp/gpu_cuda_files
    step "CLI end to end from files (${w}x${h} 8-bit 4:2:0, $n frames)"
    mkdir -p $T
    "$B/tests/cuda/cuda_bench" gen $w $h 8 $n $T/ref.yuv $T/dist.yuv
    cat $T/ref.yuv $T/dist.yuv >/dev/null
    if [ ! -x "$CLI" ]; then say "no CLI built"; return; fi
    for be in cuda cpu cuda cpu; do
        rm -f $T/$be.json
        t0=$(date +%s.%N)
        "$CLI" -r $T/ref.yuv -d $T/dist.yuv -w $w -h $h -p 420 -b 8 --backend $be \
            --threads "$THREADS" -q --json --precision max --raw -o $T/$be.json \
            >>"$L/cli_${w}_$be.log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        say "cli ${w}x${h} --backend $be: rc=$rc $(awk -v a="$t0" -v b="$t1" -v n=$n 'BEGIN { printf "%.1f", n / (b - a) }') fps ($n frames, wall clock incl. start-up)"
    done
    # Every value but the timing line must match (%.17g and %a raw scores).
    if [ -s $T/cuda.json ] && cmp -s <(grep -v '"fps"' $T/cuda.json) <(grep -v '"fps"' $T/cpu.json); then
        say "cli json cuda vs cpu: identical"
    else
        say "cli json cuda vs cpu: DIFFERENT"
    fi
    rm -rf $T
}
CLI="$B/tools/psnrhvs"
cli_run 3840 2160 120
cli_run 1920 1080 480
step done
