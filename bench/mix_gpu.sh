#!/bin/bash
# The default command (no --backend: the CPU and every GPU in one context)
# against each backend pinned alone, on the GPU machine, in one call:
#
#   whole `psnrhvs` runs from page-cached raw files, 1920x1080 8-bit (24,
#   120, 480, 960 frames), 3840x2160 8-bit and 10-bit (24, 120, 480): the
#   default, --backend cpu --threads 16 and --backend cuda, median of REPS;
#   libvmaf's vmaf --threads 16 on the same files (built here in the same
#   call from .device/vmaf); the host-to-device bandwidth (cuda_bench);
#   batch in one process against the fork-per-job batch of the earlier tree
#   (.device/old), and with other --gpu-jobs/--gpu-threads (BATCH_VARIANTS);
#   a cuda scorer's start-up (bench/cuda/open_bench.c); the GPU reading a
#   mapped file in place (bench/cuda/hostreg_bench.c, HOSTREG=0 leaves it
#   out); where the frames of 480-frame 4K runs wait and their steady state
#   inside the run (--timing); what ending a CUDA process costs
#   (bench/cuda/exit_bench.c); A/B whole runs, alternating (AB_LIST, entries
#   CLIP|FRAMES|NAME|FLAGS|ENV split by ';', CLIP hd8, uhd8 or uhd10, or
#   AB_FILE, a file of them;
#   BENCH_ENV: cuda_bench's library lines again with it); NVDEC and CPU decoding
#   of 4K encodes with the default and pinned backends (bench/hwaccel_gpu.sh,
#   .device/ffmpeg).
#
# Here:   CLIP_FRAMES=120 bench/ffmpeg_carry.sh build .device/ffmpeg
#         bench/vulkan_carry.sh; .device/old = git archive of the earlier
#         commit (with COMMIT); .device/vmaf/libvmaf-*.tar.gz
# There:  bash bench/mix_gpu.sh OUT_DIR   (carry those four; about 6 minutes;
#         OLD_BENCH=0 leaves out the earlier tree's cuda_bench and CLI runs,
#         HW=0 the encodes; MIX_TEST_TARGETS and MIX_CTEST_R build and run
#         those ctest targets there first)
# Results: OUT_DIR/summary.txt, logs in OUT_DIR/logs.tar.gz.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/mix_gpu_out}}
mkdir -p "$OUT"
ROOT=$(pwd)
L=$(mktemp -d /tmp/mix_logs.XXXXXX)
trap 'tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null' EXIT
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T))"; }
calc() { awk "BEGIN {printf \"%.4f\", $*}"; }
REPS=${REPS:-3}
DEADLINE=${DEADLINE:-540}
T0=$(date +%s)
left() { [ $(($(date +%s) - T0)) -lt "$1" ]; }
export PATH=/usr/local/cuda/bin:$PATH
B=/tmp/mix-new BO=/tmp/mix-old W=/tmp/mix-clips
JOBS=$(nproc)

step machine
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max,persistence_mode \
    --format=csv,noheader 2>&1 | tee -a "$S"
say "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
. "$ROOT/bench/gpu_env.sh"

step "builds: this tree (cpu, cuda, opencl, vulkan), the earlier tree, libvmaf (in parallel)"
(cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON -DPSNRHVS_OPENCL=ON \
    -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_FFMPEG=OFF "${vk_args[@]}" &&
    cmake --build "$B" -j10 --target psnrhvs_cli cuda_bench ${MIX_TEST_TARGETS:-}) >"$L/build_new.log" 2>&1 &
p_new=$!
OLDC=$(cat "$ROOT/.device/old/COMMIT" 2>/dev/null || echo unknown)
(cmake -S "$ROOT/.device/old" -B "$BO" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
    -DPSNRHVS_OPENCL=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_FFMPEG=OFF -DPSNRHVS_VULKAN=OFF &&
    cmake --build "$BO" -j4 --target psnrhvs_cli cuda_bench) >"$L/build_old.log" 2>&1 &
p_old=$!
VMAF=""
tarball=$(ls "$ROOT"/.device/vmaf/libvmaf-*.tar.gz 2>/dev/null | head -1)
if [ -n "$tarball" ]; then
    V=/tmp/vmaf-src
    rm -rf $V && mkdir -p $V && tar xzf "$tarball" -C $V
    src=$(dirname "$(find $V -name meson.build -path '*libvmaf/meson.build' | head -1)")
    meson=(meson)
    command -v meson >/dev/null || meson=(python3 -m mesonbuild.mesonmain)
    (cd "$src" && "${meson[@]}" setup /tmp/vmaf-build --buildtype release -Denable_asm=false \
        -Dbuilt_in_models=false -Denable_tests=false -Denable_docs=false &&
        ninja -C /tmp/vmaf-build -j2 tools/vmaf) >"$L/vmaf_build.log" 2>&1 && VMAF=/tmp/vmaf-build/tools/vmaf
fi
# content while the builds run: 8 distinct frames repeated, written once
mkdir -p $W
cc -O2 -o $W/gen "$ROOT/bench/gen_frames.c"
$W/gen 1920 1080 8 960 8 0 0 $W/hd8_ref.yuv & $W/gen 1920 1080 8 960 8 6 2 $W/hd8_dist.yuv &
$W/gen 3840 2160 8 480 8 0 0 $W/uhd8_ref.yuv & $W/gen 3840 2160 8 480 8 6 1 $W/uhd8_dist.yuv &
$W/gen 3840 2160 10 480 8 0 0 $W/uhd10_ref.yuv & $W/gen 3840 2160 10 480 8 20 3 $W/uhd10_dist.yuv &
wait $p_new || { tail -30 "$L/build_new.log" | tee -a "$S"; say "BUILD FAILED"; exit 1; }
wait
say "vmaf: ${VMAF:-not built ($(tail -1 "$L/vmaf_build.log" 2>/dev/null))}"
[ -x "$BO/tools/psnrhvs" ] || { tail -5 "$L/build_old.log" | tee -a "$S"; say "earlier tree: build failed"; }
cat $W/*.yuv >/dev/null
say "clips: $(du -sh $W | cut -f1) page-cached"
P=$B/tools/psnrhvs
"$P" --list-devices >"$L/devices.txt" 2>&1
tee -a "$S" <"$L/devices.txt"
"$P" --timing -r $W/uhd8_ref.yuv -d $W/uhd8_dist.yuv -w 3840 -h 2160 --frame_cnt 24 -q \
    -o $L/t.xml 2>&1 | sed 's/^/default, 24 frames: /' | tee -a "$S"

if [ -n "${MIX_CTEST_R:-}" ]; then
    step "tests: ctest -R '$MIX_CTEST_R' (targets: ${MIX_TEST_TARGETS:-})"
    (cd "$B" && timeout 120 ctest -R "$MIX_CTEST_R" --output-on-failure) >"$L/ctest.log" 2>&1
    grep -E "tests passed|Failed|FAIL|\*\*\*Failed|Not Run" "$L/ctest.log" | head -20 | tee -a "$S"
fi

step "host-to-device bandwidth, the library's pinned path and resident kernels (cuda_bench), this tree and the earlier one"
for g in "3840 2160 10" "3840 2160 8" "1920 1080 8"; do
    set -- $g
    "$B/tests/cuda/cuda_bench" $1 $2 $3 16 24 400 >"$L/cuda_bench_$1x$2_$3.log" 2>&1
    grep -h "RESULT" "$L/cuda_bench_$1x$2_$3.log" | tee -a "$S"
    # BENCH_ENV: the library's lines again with these settings in the environment
    if [ -n "${BENCH_ENV:-}" ]; then
        env $BENCH_ENV "$B/tests/cuda/cuda_bench" $1 $2 $3 16 24 400 >"$L/cuda_bench_env_$1x$2_$3.log" 2>&1
        grep -h "RESULT.*library cuda:" "$L/cuda_bench_env_$1x$2_$3.log" | sed "s/^/$BENCH_ENV: /" | tee -a "$S"
    fi
    if [ -x "$BO/tests/cuda/cuda_bench" ] && [ "${OLD_BENCH:-1}" = 1 ]; then
        "$BO/tests/cuda/cuda_bench" $1 $2 $3 16 24 400 >"$L/cuda_bench_old_$1x$2_$3.log" 2>&1
        grep -h "RESULT" "$L/cuda_bench_old_$1x$2_$3.log" | sed "s/^/earlier tree: /" | tee -a "$S"
    fi
done
step "a cuda scorer's start-up: the context, pinned and registered buffers (open_bench, 8 x 50 MB)"
if cc -std=c11 -O2 -o /tmp/open_bench "$ROOT/bench/cuda/open_bench.c" -I/usr/local/cuda/include \
    -L/usr/local/cuda/lib64 -lcudart 2>"$L/open_build.log"; then
    timeout 60 /tmp/open_bench 50 8 2>&1 | tee -a "$S"
else
    say "open_bench: build failed: $(tail -1 "$L/open_build.log")"
fi
step "what ending a process that holds a CUDA context costs (exit_bench: _exit to waitpid, 4 x 25 MB)"
if cc -std=c11 -O2 -o /tmp/exit_bench "$ROOT/bench/cuda/exit_bench.c" -I/usr/local/cuda/include \
    -L/usr/local/cuda/lib64 -lcudart 2>"$L/exit_build.log"; then
    timeout 60 /tmp/exit_bench 25 4 3 2>&1 | tee -a "$S"
else
    say "exit_bench: build failed: $(tail -1 "$L/exit_build.log")"
fi
if [ "${HOSTREG:-1}" = 1 ]; then
    step "the GPU reading a mapped page-cached file in place (hostreg_bench: registered, pinned, pageable)"
    if cc -std=c11 -O2 -o /tmp/hostreg_bench "$ROOT/bench/cuda/hostreg_bench.c" -ldl 2>"$L/hostreg_build.log"; then
        for g in "uhd8 12441600" "uhd10 24883200"; do
            set -- $g
            timeout 60 /tmp/hostreg_bench $W/$1_ref.yuv $2 240 2>&1 | sed "s/^RESULT hostreg:/RESULT hostreg $1:/" | tee -a "$S"
        done
    else
        say "hostreg_bench: build failed: $(tail -1 "$L/hostreg_build.log")"
    fi
fi
H2D10=$(awk '/3840x2160 10-bit.*h2d bandwidth/ {for (i = 1; i <= NF; i++) if ($i == "(") print $(i + 1); else if (substr($i, 1, 1) == "(") print substr($i, 2)}' \
    "$L/cuda_bench_3840x2160_10.log" | head -1)

step "whole runs: the default, --backend cpu --threads 16, --backend cuda (median of $REPS; seconds, fps)"
timed() { # seconds of one run, or fail
    local s e
    s=$(date +%s.%N)
    timeout 120 "$@" >"$L/run.log" 2>&1 || { echo fail; return; }
    e=$(date +%s.%N)
    calc "$e - $s"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
declare -A T
say "clip | frames | default | cpu-16 | cuda | default / best pinned"
for c in "hd8 1920 1080 8 24 120 480 960" "uhd8 3840 2160 8 24 120 300 480" "uhd10 3840 2160 10 24 120 300 480"; do
    set -- $c
    name=$1 w=$2 h=$3 bits=$4
    shift 4
    for n in "$@"; do
        left $((DEADLINE - 200)) || { say "# deadline: skipped $name $n"; continue; }
        row="$name | $n"
        for cfg in default cpu cuda; do
            flags=()
            [ $cfg = cpu ] && flags=(--backend cpu --threads 16)
            [ $cfg = cuda ] && flags=(--backend cuda)
            t=()
            for r in $(seq "$REPS"); do
                v=$(timed "$P" -r $W/${name}_ref.yuv -d $W/${name}_dist.yuv -w $w -h $h -b $bits \
                    "${flags[@]}" --frame_cnt $n -q --json --precision max --raw -o $L/$name-$n-$cfg.json)
                [ "$v" = fail ] && { say "FAILED $cfg $name $n: $(tail -1 $L/run.log)"; break; }
                t+=("$v")
            done
            m=$(median "${t[@]:-999}")
            T[$name-$n-$cfg]=$m
            row="$row | $(printf %.3f "$m") s $(calc "$n / $m" | xargs printf %.0f) fps"
        done
        best=$(awk -v a="${T[$name-$n-cpu]}" -v b="${T[$name-$n-cuda]}" 'BEGIN {print a < b ? a : b}')
        say "$row | $(calc "${T[$name-$n-default]} / $best" | xargs printf %.3f)"
        for cfg in cpu cuda; do
            cmp -s <(grep -v '"fps"' $L/$name-$n-default.json) <(grep -v '"fps"' $L/$name-$n-$cfg.json) ||
                say "  $name $n: default and $cfg outputs DIFFER"
        done
    done
done
say "(outputs: every default run's JSON, %.17g and %a, compared with cpu's and cuda's: differences listed above, if any)"
for name in hd8 uhd8 uhd10; do
    a=${T[$name-120-default]:-} b=${T[$name-480-default]:-}
    [ -n "$a" ] && [ -n "$b" ] && say "steady, default, $name (120 to 480 frames): $(calc "360 / ($b - $a)" | xargs printf %.0f) fps"
done
# 300 and 480 frames both open the GPU (120 frames the CPU alone scores in
# about the 0.4 s bar: either way), so their difference is the steady state
# of one configuration.
for name in uhd8 uhd10; do
    a=${T[$name-300-default]:-} b=${T[$name-480-default]:-}
    [ -n "$a" ] && [ -n "$b" ] && say "steady, default, $name (300 to 480 frames): $(calc "180 / ($b - $a)" | xargs printf %.0f) fps"
done
if [ -n "$H2D10" ] && [ -n "${T[uhd10-480-default]:-}" ] && [ -n "${T[uhd10-300-default]:-}" ]; then
    for cfg in default cuda; do
        st=$(calc "180 / (${T[uhd10-480-$cfg]} - ${T[uhd10-300-$cfg]})")
        say "3840x2160 10-bit: $cfg steady (300 to 480) $(printf %.0f "$st") fps = $(calc "100 * $st / $H2D10" | xargs printf %.1f)% of the h2d limit ($H2D10 frame pairs/s)"
    done
fi

step "where the frames wait, 480 frames (--timing; one run each; s, then the timing line)"
for c in "uhd10 10 cuda" "uhd10 10 default" "uhd8 8 cuda" "uhd8 8 default" "uhd8 8 cpu"; do
    set -- $c
    flags=(--backend cuda)
    [ "$3" = cuda16 ] && flags=(--backend cuda --threads 16)
    [ "$3" = cpu ] && flags=(--backend cpu --threads 16)
    [ "$3" = default ] && flags=()
    v=$(timed env ${4:-} "$P" --timing -r $W/$1_ref.yuv -d $W/$1_dist.yuv -w 3840 -h 2160 \
        -b $2 "${flags[@]}" --frame_cnt 480 -q --json --precision max --raw -o $L/wait.json)
    say "$c: $v s"
    grep "timing:" $L/run.log | sed 's/^/  /' | tee -a "$S" >/dev/null
    # the steady state inside this run: scores 120 and 300 to 480
    sl=$(grep "timing: scores:" $L/run.log)
    if [ -n "$sl" ]; then
        read -r -a k <<<"$(echo "$sl" | sed 's/[^0-9. ]//g')"
        say "  steady in the run: ${k[0]} to ${k[4]} $(calc "(${k[4]} - ${k[0]}) / ((${k[5]} - ${k[1]}) / 1000)" | xargs printf %.0f) fps, ${k[2]} to ${k[4]} $(calc "(${k[4]} - ${k[2]}) / ((${k[5]} - ${k[3]}) / 1000)" | xargs printf %.0f) fps${H2D10:+ (h2d limit at 10 bits: $H2D10 pairs/s)}"
    fi
    cmp -s <(grep -v '"fps"' $L/wait.json) <(grep -v '"fps"' $L/$1-480-cuda.json) ||
        say "  outputs DIFFER from the grid's cuda run"
done

# Clips the CPU alone scores in about 0.4 s: whether the default opened a GPU
# shows in the time after "all" (a GPU's teardown at exit).
step "near the CPU's bar: the default, $((REPS + 2)) runs each (--timing: whole s, all ms, after all ms)"
for c in "uhd8 8 120" "uhd10 10 120" "hd8 8 480"; do
    set -- $c
    size=(-w 3840 -h 2160)
    [ $1 = hd8 ] && size=(-w 1920 -h 1080)
    row="$1 $3:"
    for r in $(seq $((REPS + 2))); do
        v=$(timed "$P" --timing -r $W/$1_ref.yuv -d $W/$1_dist.yuv "${size[@]}" -b $2 \
            --frame_cnt $3 -q --json --precision max --raw -o $L/bar.json)
        a=$(sed -n 's/.*all \([0-9.]*\) ms.*/\1/p' $L/run.log | head -1)
        sc=$(sed -n 's/.*(\([^ ]*\) so far.*/\1/p' $L/run.log | head -1)
        row="$row $v/${a:-?}/$(calc "$v * 1000 - ${a:-0}" | xargs printf %.0f)($sc)"
    done
    say "$row"
done

# A/B entries: CLIP|FRAMES|NAME|FLAGS|ENV (AB_LIST replaces them)
ab=("uhd8|300|default|" "uhd8|300|cuda|--backend cuda" "uhd8|480|default|" "uhd8|480|cuda|--backend cuda"
    "uhd10|480|default|" "uhd10|480|cuda|--backend cuda")
[ -n "${AB_FILE:-}" ] && AB_LIST=$(tr -d '\n' <"$AB_FILE")
[ -n "${AB_LIST:-}" ] && IFS=';' read -r -a ab <<<"$AB_LIST"
step "A/B, whole runs (median of $REPS, alternating): ${ab[*]}"
declare -A AB
for r in $(seq "$REPS"); do
    for x in "${ab[@]}"; do
        IFS='|' read -r clip n name flags envs <<<"$x"
        bits=8 size=(-w 3840 -h 2160)
        [ $clip = uhd10 ] && bits=10
        [ $clip = hd8 ] && size=(-w 1920 -h 1080)
        v=$(timed env ${envs:-X=0} "$P" -r $W/${clip}_ref.yuv -d $W/${clip}_dist.yuv "${size[@]}" -b $bits \
            $flags --frame_cnt $n -q --json --precision max --raw -o $L/ab-$clip-$n-$name.json)
        AB[$clip-$n-$name]="${AB[$clip-$n-$name]:-} $v"
    done
done
for x in "${ab[@]}"; do
    IFS='|' read -r clip n name flags envs <<<"$x"
    say "ab $clip $n $name: median $(median ${AB[$clip-$n-$name]}) s (runs:${AB[$clip-$n-$name]})"
    # against the A/B's own cuda entry where there is one, else the grid's
    ref=$L/ab-$clip-$n-cuda.json
    [ -f "$ref" ] || ref=$L/$clip-$n-cuda.json
    cmp -s <(grep -v '"fps"' $L/ab-$clip-$n-$name.json) <(grep -v '"fps"' "$ref") ||
        say "  ab $clip $n $name: output DIFFERS from $(basename "$ref")"
done

if [ -x "$BO/tools/psnrhvs" ] && [ "${OLD_BENCH:-1}" = 1 ]; then
    step "the earlier tree's CLI, --backend cuda and --backend cpu --threads 16, 3840x2160 8-bit (median of $REPS)"
    for cfg in cuda cpu; do
        for n in 120 480; do
            flags=(--backend $cfg)
            [ $cfg = cpu ] && flags+=(--threads 16)
            t=()
            for r in $(seq "$REPS"); do
                t+=("$(timed "$BO/tools/psnrhvs" -r $W/uhd8_ref.yuv -d $W/uhd8_dist.yuv -w 3840 -h 2160 \
                    "${flags[@]}" --frame_cnt $n -q -o $L/old.xml)")
            done
            m=$(median "${t[@]}")
            say "earlier tree --backend $cfg uhd8 $n: $(printf %.3f "$m") s ($(calc "$n / $m" | xargs printf %.0f) fps); this tree: ${T[uhd8-$n-$cfg]:-?} s"
        done
    done
fi

if [ -n "$VMAF" ]; then
    step "libvmaf's vmaf --threads 16 --feature psnr_hvs on the same files (one run each)"
    for c in "uhd8 3840 2160 8 120 480" "hd8 1920 1080 8 960"; do
        set -- $c
        name=$1 w=$2 h=$3 bits=$4
        shift 4
        for n in "$@"; do
            v=$(timed "$VMAF" --threads 16 --feature psnr_hvs --no_prediction -r $W/${name}_ref.yuv \
                -d $W/${name}_dist.yuv --width $w --height $h --pixel_format 420 --bitdepth $bits \
                --frame_cnt $n -q -o $L/vmaf.xml)
            [ "$v" = fail ] && { say "vmaf $name $n FAILED: $(tail -1 $L/run.log)"; continue; }
            d=${T[$name-$n-default]:-}
            say "vmaf $name $n frames: $(printf %.3f "$v") s ($(calc "$n / $v" | xargs printf %.1f) fps)${d:+; default psnrhvs $(printf %.3f "$d") s: $(calc "$v / $d" | xargs printf %.1f)x}"
        done
    done
fi

if [ -x "$BO/tools/psnrhvs" ] && left $((DEADLINE - 200)); then
    step "batch: 200 jobs of 60-frame 1920x1080 pairs, in one process against fork per job ($OLDC)"
    VARIANTS=${BATCH_VARIANTS:-"--gpu-jobs 1 --gpu-threads 4;--gpu-jobs 1;--gpu-jobs 3;--gpu-threads 12"} \
        timeout 240 bash "$ROOT/bench/batch/batch_bench.sh" "$P" "$BO/tools/psnrhvs" 200 60 1920 1080 ${BATCH_REPS:-3} 2>&1 | tee -a "$S"
fi

if [ -x "$ROOT/.device/ffmpeg/psnrhvs" ] && [ "${HW:-1}" = 1 ] && left $((DEADLINE - 90)); then
    step "encodes, 3840x2160: NVDEC or CPU decoding, the default against cpu and cuda pinned"
    REPS=2 timeout $((DEADLINE - ($(date +%s) - T0))) bash "$ROOT/bench/hwaccel_gpu.sh" "$ROOT/.device/ffmpeg" "$OUT/hwaccel" \
        >/dev/null 2>&1
    grep -v "^== machine\|^cpu:\|^glibc" "$OUT/hwaccel/hwaccel.txt" | tee -a "$S"
fi
rm -rf $W
step "done in $(($(date +%s) - T0)) s"
