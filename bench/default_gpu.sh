#!/bin/bash
# The default command against the pinned choices on the GPU machine, in one
# call: one build (CUDA, OpenCL with NVIDIA's ICD, Vulkan where
# .device/vulkan was carried, FFmpeg from .device/pairs/ffmpeg.tar.xz);
#  1. the device list: --list-devices -v, psnrhvs_devices() (test_devices),
#     batch --gpus auto against --list-devices' auto line, api tests;
#  2. the decoder: the default (--hwaccel auto) against --hwaccel none and
#     --hwaccel cuda on the 4K pairs of bench/pairs_carry.sh (HEVC 8-bit,
#     HEVC 10-bit, H.264) at 24, 120 and 600 frames, median of REPS
#     alternating tries, each output's bits against --hwaccel none's;
#  3. the scorer mix: the default against --backend cpu --threads 16 and
#     --backend cuda on page-cached raw 1920x1080 8-bit and 3840x2160 8- and
#     10-bit files at 24, 120 and 480 frames (median of REPS alternating),
#     then one --timing run of the default at each point (where its time
#     went, and which scorers it ended with).
#   here:  bash bench/pairs_carry.sh; bash bench/vulkan_carry.sh (if it fits)
#   there: bash bench/default_gpu.sh OUT   (carry .device/pairs [.device/vulkan .gl])
# PARTS (default "devices decode mix") picks parts, DECODE_PAIRS and DECODE_N the
# decoder's pairs and lengths, CARRY the folder of the pairs; DEADLINE (s) cuts off;
# MIX_CLIPS picks clips (hd8 uhd8 uhd10), MIX_FRAMES their length, MIX_N the runs;
# SKIP_BUILD=1 BUILD_DIR=build tries it on a build made here (FRAMES_MIX, a smaller size).
# Results: OUT/summary.txt, logs in OUT/logs.tar.gz.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/default_gpu_out}}
mkdir -p "$OUT"
ROOT=$(pwd)
C=${CARRY:-$ROOT/.device/pairs}
B=${BUILD_DIR:-/tmp/build-default}
W=/tmp/default-clips
L=$(mktemp -d /tmp/default_logs.XXXXXX)
trap 'tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null' EXIT
S="$OUT/summary.txt"
: >"$S"
REPS=${REPS:-3}
DEADLINE=${DEADLINE:-540}
PARTS=${PARTS:-devices decode mix}
T0=$(date +%s)
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T), $(($(date +%s) - T0)) s)"; }
left() { [ $(($(date +%s) - T0)) -lt "$1" ]; }
has() { [[ " $PARTS " == *" $1 "* ]]; }
export PATH=/usr/local/cuda/bin:$PATH

step machine
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
say "cpu: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
. "$ROOT/bench/gpu_env.sh"
ff_args=(-DPSNRHVS_FFMPEG=OFF)
LDP=${LD_LIBRARY_PATH:-}
if [ -f "$C/ffmpeg.tar.xz" ]; then
    FF=/tmp/default_ffmpeg/ffmpeg
    rm -rf /tmp/default_ffmpeg && mkdir -p /tmp/default_ffmpeg && tar xJf "$C/ffmpeg.tar.xz" -C /tmp/default_ffmpeg
    ff_args=(-DPSNRHVS_FFMPEG=ON -DPSNRHVS_FFMPEG_ROOT="$FF")
    drv=""
    for p in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu; do
        [ -e "$p/libnvcuvid.so.1" ] && drv="$drv:$p"
    done
    # only for what was built here: the carry's stubs would break cmake
    LDP="$FF/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}$drv"
fi
run() { LD_LIBRARY_PATH="$LDP" "$@"; }

# raw clips for the mix, written while the build runs
MF=${MIX_FRAMES:-480}
has_clip() { [[ " ${MIX_CLIPS:-hd8 uhd8 uhd10} " == *" $1 "* ]]; }
if has mix; then
    mkdir -p $W
    cc -O2 -o $W/gen "$ROOT/bench/gen_frames.c" && {
        has_clip hd8 && { $W/gen 1920 1080 8 $MF 8 0 0 $W/hd8_ref.yuv & $W/gen 1920 1080 8 $MF 8 6 2 $W/hd8_dist.yuv & }
        has_clip uhd8 && { $W/gen 3840 2160 8 $MF 8 0 0 $W/uhd8_ref.yuv & $W/gen 3840 2160 8 $MF 8 6 1 $W/uhd8_dist.yuv & }
        has_clip uhd10 && { $W/gen 3840 2160 10 $MF 8 0 0 $W/uhd10_ref.yuv & $W/gen 3840 2160 10 $MF 8 20 3 $W/uhd10_dist.yuv & }
    }
fi
step "build (cuda, opencl, ${vk_args[0]#-D}, ${ff_args[0]#-D})"
if [ -z "${SKIP_BUILD:-}" ] && ! (cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
    -DPSNRHVS_OPENCL=ON -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF "${ff_args[@]}" "${vk_args[@]}" &&
    cmake --build "$B" -j"$(nproc)" --target psnrhvs_cli psnrhvs_cuda_module test_devices) \
    >"$L/build.log" 2>&1; then
    tail -30 "$L/build.log" | tee -a "$S"
    say "BUILD FAILED"
    exit 1
fi
P=$B/tools/psnrhvs
wait
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
secs() { # seconds of one run of "$@" (output in $L/run.err), or fail
    local s e
    s=$(date +%s.%N)
    timeout 120 env LD_LIBRARY_PATH="$LDP" "$@" >"$L/run.out" 2>"$L/run.err" || { echo fail; return; }
    e=$(date +%s.%N)
    awk -v a="$s" -v b="$e" 'BEGIN {printf "%.4f", b - a}'
}
same_bits() { cmp -s <(grep -v '"fps"' "$1") <(grep -v '"fps"' "$2"); }
# The default against two pinned configurations, tried in turn REPS times:
# three_way TAG A B FLAGS_FN CMD... runs CMD plus `FLAGS_FN CFG`'s flags for
# default, A and B; sets D, MA and MB (their medians) and TRIES, and says
# where an output's bits differ from the default's.
three_way() {
    local tag=$1 ca=$2 cb=$3 fn=$4 cfg rep v
    shift 4
    declare -A t=()
    for rep in $(seq "$REPS"); do
        for cfg in default "$ca" "$cb"; do
            # shellcheck disable=SC2046
            v=$(secs "$@" $($fn "$cfg") --json --precision max --raw -o "$L/$tag-$cfg.json")
            [ "$v" = fail ] && say "FAILED $tag $cfg: $(tail -1 "$L/run.err")"
            t[$cfg]="${t[$cfg]:-} $v"
        done
    done
    for cfg in "$ca" "$cb"; do
        same_bits "$L/$tag-default.json" "$L/$tag-$cfg.json" ||
            say "  $tag: default and $cfg outputs DIFFER"
    done
    D=$(median ${t[default]}) MA=$(median ${t[$ca]}) MB=$(median ${t[$cb]})
    TRIES="${t[default]} /${t[$ca]} /${t[$cb]}"
}
ratio() { awk -v d="$D" -v a="$MA" -v b="$MB" 'BEGIN {m = a < b ? a : b; printf "%.3f", d / m}'; }
hwaccel_flags() { [ "$1" = default ] || echo "--hwaccel $1"; }
backend_flags() { case $1 in cpu) echo "--backend cpu --threads 16" ;; cuda) echo "--backend cuda" ;; esac; }

if has devices; then
    step "1. devices: --list-devices -v"
    run "$P" --list-devices -v 2>&1 | tee -a "$S"
    step "psnrhvs_devices() (test_devices list)"
    run "$B/tests/api/test_devices" list 2>&1 | tee -a "$S"
    step "batch --gpus auto against --list-devices"
    run python3 tests/batch/run_auto_gpus.py "$P" "$ROOT/tests/data" 2>&1 | tail -5 | tee -a "$S"
    # The tests get LDP, ctest not: the carry's stub libxml2 stops Debian's ctest.
    python3 "$ROOT/bench/ctest_env.py" "$B" '^(api_devices|api_cpu_count|batch_auto_gpus)$' "$LDP" \
        >"$L/ctest.log" 2>&1
    say "ctest rc=$? : $(grep -E 'tests passed|tests failed' "$L/ctest.log")"
    grep -E "Failed|\*\*\*|Not Run" "$L/ctest.log" | head -10 | tee -a "$S"
fi

if has decode && [ -f "$C/hevc8_dist.mp4" ]; then
    step "2. decoding: default (auto) vs --hwaccel none vs --hwaccel cuda, 4K pairs, median of $REPS (s)"
    say "pair | frames | default | none | cuda | default / best | default decoded on"
    for pr in "hevc8 hevc8_ref.mkv hevc8_dist.mp4" "hevc10 hevc10_ref.mkv hevc10_dist.mkv" \
        "h264 h264_ref.mkv h264_dist.mp4"; do
        set -- $pr
        name=$1 ref=$C/$2 dist=$C/$3
        [ -f "$dist" ] && [[ " ${DECODE_PAIRS:-$name} " == *" $name "* ]] || continue
        for n in ${DECODE_N:-24 120 600}; do
            left $((DEADLINE - 150)) || { say "# deadline: skipped $name $n"; continue; }
            three_way "dec-$name-$n" none cuda hwaccel_flags "$P" -r "$ref" -d "$dist" --frame_cnt $n
            on=$(run "$P" -r "$ref" -d "$dist" --frame_cnt $n --timing -o "$L/x.json" --json 2>&1 |
                grep -o 'decoder: [^ ]*: [^(]*' | sed 's/decoder: [^ ]*: //' | sort -u | tr '\n' ' ')
            say "$name | $n | $D | $MA | $MB | $(ratio) | $on"
        done
    done
fi

if has mix; then
    step "3. the mix: default vs --backend cpu --threads 16 vs --backend cuda, raw page-cached, median of $REPS (s)"
    cat $W/*.yuv >/dev/null
    say "clip | frames | default | cpu-16 | cuda | default / best"
    for c in "hd8 1920 1080 8" "uhd8 3840 2160 8" "uhd10 3840 2160 10"; do
        set -- $c
        has_clip $1 || continue
        name=$1 w=$2 h=$3 bits=$4
        for n in ${MIX_N:-24 120 480}; do
            left $((DEADLINE - 40)) || { say "# deadline: skipped $name $n"; continue; }
            three_way "mix-$name-$n" cpu cuda backend_flags "$P" -r $W/${name}_ref.yuv \
                -d $W/${name}_dist.yuv -w $w -h $h -b $bits --frame_cnt $n -q
            say "$name | $n | $D | $MA | $MB | $(ratio)   (tries: $TRIES)"
        done
    done
    step "the default with --timing at each point (where the time went; the scorers at the end)"
    for c in "hd8 1920 1080 8" "uhd8 3840 2160 8" "uhd10 3840 2160 10"; do
        set -- $c
        has_clip $1 || continue
        for n in ${MIX_N:-24 120 480}; do
            left $((DEADLINE - 10)) || continue
            say "-- $1 $n"
            run "$P" -r $W/$1_ref.yuv -d $W/$1_dist.yuv -w $2 -h $3 -b $4 --frame_cnt $n --timing \
                -o "$L/t.json" --json 2>&1 | grep 'timing' | tee -a "$S"
        done
    done
fi
step done
