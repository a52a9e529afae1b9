#!/bin/bash
# A CUDA run's fixed costs on the GPU machine, in one short call: the
# context's start (open_bench) and its teardown at exit (exit_bench) with
# CUDA_DEVICE_MAX_CONNECTIONS (CONNS, the hardware queues a context makes),
# whole CLI runs with each of them against the default, alternating, and
# the timing lines of 1080p 960-frame default runs (the mix at 1080p).
#   there: bash bench/cuda/start_exit.sh OUT     (REPS, CONNS)
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:?usage: start_exit.sh OUT}
mkdir -p "$OUT"
ROOT=$(pwd)
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
calc() { awk "BEGIN {printf \"%.4f\", $*}"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
REPS=${REPS:-5}
CONNS=${CONNS:-"1 2 4"}
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/se-build W=/tmp/se-clips
say "== $(nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader), $(nproc) cores"
(cmake -S "$ROOT" -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON -DPSNRHVS_OPENCL=OFF \
    -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_FFMPEG=OFF -DPSNRHVS_VULKAN=OFF &&
    cmake --build $B -j14 --target psnrhvs_cli) >/tmp/se-build.log 2>&1 &
pb=$!
cu=(-I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart)
cc -std=c11 -O2 -o /tmp/se-exit "$ROOT/bench/cuda/exit_bench.c" "${cu[@]}" &&
    cc -std=c11 -O2 -o /tmp/se-open "$ROOT/bench/cuda/open_bench.c" "${cu[@]}" || say "bench build failed"
mkdir -p $W && cc -O2 -o $W/gen "$ROOT/bench/gen_frames.c"
$W/gen 3840 2160 8 480 8 0 0 $W/uhd8_ref.yuv & $W/gen 3840 2160 8 480 8 6 1 $W/uhd8_dist.yuv &
$W/gen 1920 1080 8 960 8 0 0 $W/hd8_ref.yuv & $W/gen 1920 1080 8 960 8 6 2 $W/hd8_dist.yuv &
wait $pb || { tail -20 /tmp/se-build.log | tee -a "$S"; exit 1; }
wait
cat $W/*.yuv >/dev/null
P=$B/tools/psnrhvs

say "== context start and exit teardown, by CUDA_DEVICE_MAX_CONNECTIONS"
for c in default $CONNS; do
    e=()
    [ $c = default ] || e=(CUDA_DEVICE_MAX_CONNECTIONS=$c)
    ctx=$(env "${e[@]}" X=0 /tmp/se-open 25 1 2>&1 | sed -n 's/.*context (cudaFree(0)): //p')
    say "connections $c: context $ctx"
    env "${e[@]}" X=0 /tmp/se-exit 25 4 3 2>&1 | grep -E "context only|streams\)" | sed "s/^/  /" | tee -a "$S"
done

say "== whole runs, alternating (median of $REPS, s)"
timed() {
    local s
    s=$(date +%s.%N)
    timeout 60 "$@" >/tmp/se-run.log 2>&1 || { echo fail; return; }
    calc "$(date +%s.%N) - $s"
}
declare -A T
list=()
for n in 300 480; do
    list+=("uhd8|$n|default|" "uhd8|$n|cuda|--backend cuda")
    for c in $CONNS; do list+=("uhd8|$n|cuda-c$c|--backend cuda|CUDA_DEVICE_MAX_CONNECTIONS=$c"); done
done
list+=("hd8|960|default|" "hd8|960|cuda|--backend cuda" "hd8|960|cpu|--backend cpu")
for r in $(seq "$REPS"); do
    for x in "${list[@]}"; do
        IFS='|' read -r clip n name flags envs <<<"$x"
        size=(-w 3840 -h 2160)
        [ $clip = hd8 ] && size=(-w 1920 -h 1080)
        v=$(timed env ${envs:-X=0} "$P" -r $W/${clip}_ref.yuv -d $W/${clip}_dist.yuv "${size[@]}" \
            $flags --frame_cnt $n -q --json --precision max --raw -o /tmp/se-$clip-$n-$name.json)
        T[$clip-$n-$name]="${T[$clip-$n-$name]:-} $v"
    done
done
for x in "${list[@]}"; do
    IFS='|' read -r clip n name flags envs <<<"$x"
    say "$clip $n $name: median $(median ${T[$clip-$n-$name]}) (runs:${T[$clip-$n-$name]})"
    cmp -s <(grep -v '"fps"' /tmp/se-$clip-$n-$name.json) <(grep -v '"fps"' /tmp/se-$clip-$n-cuda.json) ||
        say "  output DIFFERS from --backend cuda's"
done

say "== 1920x1080 960 frames, the default with --timing"
for r in 1 2 3; do
    v=$(timed "$P" --timing -r $W/hd8_ref.yuv -d $W/hd8_dist.yuv -w 1920 -h 1080 \
        --frame_cnt 960 -q --json -o /tmp/se-t.json)
    say "run $r: $v s"
    grep "timing:" /tmp/se-run.log | sed 's/^/  /' | tee -a "$S" >/dev/null
done
rm -rf $W
