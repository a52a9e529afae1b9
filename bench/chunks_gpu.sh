#!/bin/bash
# Decoding in keyframe chunks (tools/input/chunks.c) on the GPU machine (an
# H200: 7 NVDEC engines, 16 cores), in one call: today's single decoder
# session against 2, 4, 7 and 14 sessions an input (--decode-sessions)
# and the default plan, on NVDEC and on the CPU, for 3840x2160 pairs of 600
# frames with a keyframe every 2 s (bench/chunks_carry.sh made them):
#  1. decoding alone (bench/decode/decode_bench: a pair's two files at once,
#     NVDEC frames kept on the GPU): how throughput grows with the sessions;
#  2. whole CLI runs, --hwaccel cuda (scored in place by the CUDA backend) and
#     CPU decoding scored by the CUDA backend: --frame_cnt 300 and all 600
#     frames, best of REPS; fps of the whole run and steady fps from the
#     difference of the two lengths; every run's output (--json --precision
#     max --raw) compared bit for bit within each pair and length;
#  3. start-up: process and libraries, each step of opening an input
#     (bench/decode/startup_bench), and --timing's lines of the CLI;
#  4. the default backend against the pinned ones on the same encodes, NVDEC
#     and CPU decoding, without --timing (which keeps the decoders'
#     close at the end of a run).
# The tree is built there with CUDA, against the carried FFmpeg (PSNRHVS_FFMPEG_ROOT);
# so is the earlier tree in .device/old when carried (git archive of the commit
# named in its COMMIT: CMakeLists.txt cmake include src tools, as they are or
# packed as tree.tar.xz), whose runs are the rows 'old' (its single session)
# of parts 2 and 4.
#
#   here:  bench/chunks_carry.sh BUILD_DIR          (-> .device/chunks, < 64 MiB with the tree)
#   there: bash bench/chunks_gpu.sh "$OUT"          (carry [".device/chunks"]; ~7 minutes;
#          NV_PAIRS, CPU_PAIRS: the pairs of NVDEC and CPU runs, CARRY: another folder)
# Results: OUT/summary.txt, OUT/chunks_logs.tar.gz (stderr of every run).
# Without a GPU (the CPU machine) the NVDEC parts are skipped.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/chunks_out}}
ROOT=$(pwd)
C=${CARRY:-$ROOT/.device/chunks}
B=${BUILD_DIR:-/tmp/build-chunks}
REPS=${REPS:-2}
DEADLINE=${DEADLINE:-450} # seconds from the start; later steps are skipped
SESSIONS=${SESSIONS:-"1 2 4 7 14"}
NV_PAIRS=${NV_PAIRS:-hevc8 hevc10 h264} # NVDEC runs, and CPU-decoded runs (CPU_PAIRS="": none)
CPU_PAIRS=${CPU_PAIRS-h264 hevc8}
N=${FRAMES:-600} # the clips' length (bench/chunks_carry.sh): runs of all and N/2 frames
H=$((N / 2))
T0=$(date +%s)
mkdir -p "$OUT"
L=$(mktemp -d /tmp/chunks_logs.XXXXXX)
W=$(mktemp -d /tmp/chunks_work.XXXXXX)
trap 'tar czf "$OUT/chunks_logs.tar.gz" -C "$L" . 2>/dev/null; rm -rf "$W"' EXIT
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say ""; say "== $* ($(date +%T), $(($(date +%s) - T0)) s)"; }
left() { [ $(($(date +%s) - T0)) -lt "$DEADLINE" ]; }
now() { date +%s.%N; }
export PATH=/usr/local/cuda/bin:$PATH

step machine
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
nvidia-smi -q 2>/dev/null | grep -iA3 "^ *Encoder\|Decoder" | head -4 | tee -a "$S" >/dev/null
say "cpu: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ ! -f "$C/ffmpeg.tar.xz" ]; then
    say "no $C/ffmpeg.tar.xz: run bench/chunks_carry.sh here first and carry .device/chunks"
    exit 1
fi
ls -l "$C" | tee -a "$S"

step "build (CUDA, FFmpeg from the carry)"
# A fixed place: a build tree kept from an earlier call finds its libraries there again.
FF=/tmp/chunks_ffmpeg/ffmpeg
rm -rf /tmp/chunks_ffmpeg && mkdir -p /tmp/chunks_ffmpeg && tar xJf "$C/ffmpeg.tar.xz" -C /tmp/chunks_ffmpeg
drv=""
for p in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$p/libnvcuvid.so.1" ] && drv="$drv:$p"
done
# Only for what was built here: the carry's stubs would break other programs (cmake).
LDP="$FF/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}$drv"
ff() { LD_LIBRARY_PATH="$LDP" "$@"; }
cuda=OFF
command -v nvcc >/dev/null && cuda=ON
targets="psnrhvs_cli decode_bench startup_bench"
[ $cuda = ON ] && targets="$targets psnrhvs_cuda_module"
# shellcheck disable=SC2086
OLDT=$ROOT/.device/old BO=/tmp/build-chunks-old PO=""
if [ -f "$OLDT/tree.tar.xz" ]; then # packed to fit the carry: unpacked beside
    rm -rf /tmp/chunks-old-src && mkdir -p /tmp/chunks-old-src &&
        tar xJf "$OLDT/tree.tar.xz" -C /tmp/chunks-old-src &&
        cp "$OLDT/COMMIT" /tmp/chunks-old-src/ 2>/dev/null
    OLDT=/tmp/chunks-old-src
fi
if [ -f "$OLDT/CMakeLists.txt" ]; then
    # shellcheck disable=SC2086
    (cmake -S "$OLDT" -B "$BO" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=$cuda \
        -DPSNRHVS_OPENCL=OFF -DPSNRHVS_VULKAN=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF \
        -DPSNRHVS_FFMPEG=ON -DPSNRHVS_FFMPEG_ROOT="$FF" -DBUILD_TESTING=OFF &&
        cmake --build "$BO" -j4 --target psnrhvs_cli $([ $cuda = ON ] && echo psnrhvs_cuda_module)) \
        >"$L/build_old.log" 2>&1 &
    p_old=$!
fi
if ! { cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=$cuda \
    -DPSNRHVS_OPENCL=OFF -DPSNRHVS_VULKAN=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF \
    -DPSNRHVS_FFMPEG=ON -DPSNRHVS_FFMPEG_ROOT="$FF" -DBUILD_TESTING=ON &&
    cmake --build "$B" -j"$(nproc)" --target $targets; } >"$L/build.log" 2>&1; then
    tail -30 "$L/build.log" | tee -a "$S"
    say "BUILD FAILED"
    exit 1
fi
P=$B/tools/psnrhvs
if [ -n "${p_old:-}" ]; then
    wait "$p_old"
    if [ -x "$BO/tools/psnrhvs" ]; then
        PO=$BO/tools/psnrhvs
        say "earlier tree: $(cat "$OLDT/COMMIT" 2>/dev/null || echo unknown) (rows 'old')"
    else
        tail -5 "$L/build_old.log" | tee -a "$S"
        say "earlier tree: build failed"
    fi
fi
DB=$B/bench/decode/decode_bench
SB=$B/bench/decode/startup_bench
ff "$P" --version 2>&1 | tee -a "$S"
ff "$P" --list-devices >"$L/devices.txt" 2>&1
tee -a "$S" <"$L/devices.txt"
gpu=0
grep -q '^cuda:$' "$L/devices.txt" && gpu=1
nvdec=0
# One session, as before: whether NVDEC works here, whatever the chunks do.
if [ $gpu = 1 ] && ff "$DB" --decode-sessions 1 --hwaccel --device "$C/hevc8_dist.mp4" \
    >"$L/nvdec_probe.txt" 2>&1; then
    nvdec=1
else
    say "no NVDEC here ($(head -c 300 "$L/nvdec_probe.txt" 2>/dev/null)): its runs are skipped"
fi
# name | reference | distorted
pairs=("hevc8|hevc8_ref.mkv|hevc8_dist.mp4" "hevc10|hevc10_ref.mkv|hevc10_dist.mkv"
    "h264|h264_ref.mkv|h264_dist.mp4")
pair_files() {
    local p
    for p in "${pairs[@]}"; do
        IFS='|' read -r n r d <<<"$p"
        [ "$n" = "$1" ] && echo "$C/$r $C/$d"
    done
}
sess_flags() { # the earlier tree ('old') has one session and reads PSNRHVS_TIMING
    case $1 in
    default) echo "--timing" ;;
    old) echo "" ;;
    *) echo "--decode-sessions $1 --timing" ;;
    esac
}
bin_for() { [ "$1" = old ] && echo "$PO" || echo "$P"; } # sessions -> the CLI that runs them

step "1. decoding alone: a pair's two files at once (decode_bench), frames per second of each"
say "   steady: after both first frames; whole: from the start; 'default' is the plan's choice"
printf '%-7s %-6s %-8s %9s %9s  %s\n' pair decode sessions steady whole "first frames" | tee -a "$S"
bench_decode() { # pair mode(nvdec|cpu) sessions
    local files flags=() tag="dec_$1_$2_$3"
    files=$(pair_files "$1")
    [ "$2" = nvdec ] && flags=(--hwaccel --device)
    # shellcheck disable=SC2046,SC2086
    env LD_LIBRARY_PATH="$LDP" "$DB" $(sess_flags "$3") "${flags[@]}" $files >"$L/$tag.out" 2>"$L/$tag.err"
    local rc=$? all
    all=$(grep '^all:' "$L/$tag.out")
    if [ $rc -ne 0 ] || [ -z "$all" ]; then
        printf '%-7s %-6s %-8s %9s %9s  FAILED rc=%d: %s\n' "$1" "$2" "$3" - - $rc \
            "$(head -c 200 "$L/$tag.err")" | tee -a "$S"
        return
    fi
    printf '%-7s %-6s %-8s %9s %9s  %s ms\n' "$1" "$2" "$3" \
        "$(sed 's/.*: \([0-9.]*\) fps steady.*/\1/' <<<"$all")" \
        "$(sed 's/.*steady, \([0-9.]*\) fps whole.*/\1/' <<<"$all")" \
        "$(sed 's/.*first frames by \([0-9.]*\) ms.*/\1/' <<<"$all")" | tee -a "$S"
}
for pr in $NV_PAIRS; do
    [ $nvdec = 1 ] || break
    for s in $SESSIONS default; do left && bench_decode $pr nvdec "$s"; done
done
for pr in $CPU_PAIRS; do
    for s in $SESSIONS default; do left && bench_decode $pr cpu "$s"; done
done

step "2. whole CLI runs: fps of the whole run, steady fps from $H vs $N frames, best of $REPS"
printf '%-7s %-6s %-8s %8s %8s %8s %9s  %s\n' pair decode sessions "t$H s" "t$N s" whole steady \
    note | tee -a "$S"
cli_run() { # pair mode sessions frames -> best seconds on stdout, json in $W
    local files ref dist flags=() tag="cli_$1_$2_$3_$4" best="" rep t0 t1 rc
    files=$(pair_files "$1")
    ref=${files% *}
    dist=${files#* }
    [ "$2" = nvdec ] && flags=(--hwaccel cuda) || flags=(--backend cuda)
    [ $gpu = 0 ] && flags=(--backend cpu)
    [ "$4" = "$H" ] && flags+=(--frame_cnt "$H")
    for rep in $(seq "$REPS"); do
        t0=$(now)
        # shellcheck disable=SC2046
        env LD_LIBRARY_PATH="$LDP" PSNRHVS_TIMING=1 "$(bin_for "$3")" $(sess_flags "$3") -r "$ref" -d "$dist" "${flags[@]}" --json \
            --precision max --raw -o "$W/$tag.json" >"$L/$tag.out" 2>"$L/$tag.err"
        rc=$?
        t1=$(now)
        [ $rc -ne 0 ] && { echo "FAIL"; return; }
        best=$(awk -v a="$t0" -v b="$t1" -v c="${best:-1e9}" 'BEGIN {d = b - a; printf "%.3f", d < c ? d : c}')
    done
    echo "$best"
}
nframes() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["frames"]))' "$1" 2>/dev/null || echo 0; }
cli_pair() { # pair mode sessions
    local a b na nb note=""
    left || return
    [ "$3" = old ] && [ -z "$PO" ] && return
    a=$(cli_run "$1" "$2" "$3" "$H")
    b=$(cli_run "$1" "$2" "$3" "$N")
    na=$(nframes "$W/cli_$1_$2_$3_$H.json")
    nb=$(nframes "$W/cli_$1_$2_$3_$N.json")
    grep -q "copied to host memory" "$L/cli_$1_$2_$3_$N.err" 2>/dev/null && note="frames copied to host"
    grep -q "NVDEC cannot decode\|no CUDA decoder" "$L/cli_$1_$2_$3_$N.err" 2>/dev/null && note="CPU FALLBACK"
    if [ "$a" = FAIL ] || [ "$b" = FAIL ]; then
        printf '%-7s %-6s %-8s %8s %8s %8s %9s  FAILED: %s\n' "$1" "$2" "$3" "$a" "$b" - - \
            "$(grep -h psnrhvs: "$L/cli_$1_$2_$3_"*.err | grep -v 'timing\|decode ' | head -c 200)" | tee -a "$S"
        return
    fi
    printf '%-7s %-6s %-8s %8s %8s %8s %9s  %s\n' "$1" "$2" "$3" "$a" "$b" \
        "$(awk -v t="$b" -v n="$nb" 'BEGIN {printf "%.1f", n / t}')" \
        "$(awk -v a="$a" -v b="$b" -v na="$na" -v nb="$nb" 'BEGIN {printf "%.1f", (b > a ? (nb - na) / (b - a) : 0)}')" \
        "$note" | tee -a "$S"
}
for pr in $NV_PAIRS; do
    [ $nvdec = 1 ] || break
    for s in old $SESSIONS default; do cli_pair $pr nvdec "$s"; done
done
REPS_NV=$REPS
REPS=${CPU_REPS:-1}
for pr in $CPU_PAIRS; do
    for s in ${CPU_SESSIONS:-old 1 4 7 default}; do cli_pair $pr cpu "$s"; done
done
REPS=$REPS_NV

E=${ENC_FRAMES:-120}
step "4. the default backend on encodes, $E frames, without --timing (best of $REPS, s)"
say "   NVDEC: default and --backend cuda; CPU decoding: default, --backend cpu --threads 16, --backend cuda"
say "   old: the earlier tree's default, NVDEC and CPU decoding"
plain_run() { # pair tag flags... -> best seconds; output in $W/plain_<pair>_<tag>.json
    local files ref dist pr=$1 tag=$2 best="" t0 t1 rep
    shift 2
    files=$(pair_files "$pr")
    ref=${files% *}
    dist=${files#* }
    for rep in $(seq "$REPS"); do
        t0=$(now)
        env LD_LIBRARY_PATH="$LDP" "${RUN_BIN:-$P}" -r "$ref" -d "$dist" "$@" --frame_cnt "$E" -q --json \
            --precision max --raw -o "$W/plain_${pr}_$tag.json" 2>"$L/plain_${pr}_$tag.err" ||
            { echo FAIL; return; }
        t1=$(now)
        best=$(awk -v a="$t0" -v b="$t1" -v c="${best:-1e9}" 'BEGIN {d = b - a; printf "%.3f", d < c ? d : c}')
    done
    echo "$best"
}
for pr in $NV_PAIRS; do
    [ $nvdec = 1 ] && left || break
    nd=$(plain_run $pr nvdec_default --hwaccel cuda)
    nc=$(plain_run $pr nvdec_cuda --hwaccel cuda --backend cuda)
    cd_=$(plain_run $pr cpu_default)
    cc=$(plain_run $pr cpu_cpu16 --backend cpu --threads 16)
    cu=$(plain_run $pr cpu_cuda --backend cuda)
    no=- co=- olds=""
    if [ -n "$PO" ]; then
        no=$(RUN_BIN=$PO plain_run $pr nvdec_old --hwaccel cuda)
        co=$(RUN_BIN=$PO plain_run $pr cpu_old)
        olds="nvdec_old cpu_old"
    fi
    say "$pr: NVDEC default $nd, cuda $nc, old $no; CPU decoding default $cd_, cpu-16 $cc, cuda $cu, old $co"
    for t in nvdec_cuda cpu_default cpu_cpu16 cpu_cuda $olds; do
        cmp -s <(grep -v '"fps"' "$W/plain_${pr}_nvdec_default.json") <(grep -v '"fps"' "$W/plain_${pr}_$t.json") ||
            say "  $pr: $t's output DIFFERS from NVDEC default's"
    done
done

step "bits: every run of a pair and length, NVDEC and CPU decoding, any sessions"
python3 - "$W" >>"$S" 2>&1 <<'EOF'
import glob, json, os, sys
groups = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "cli_*.json"))):
    _, pair, mode, sess, frames = os.path.basename(p)[:-5].split("_")
    try:
        doc = json.load(open(p))
        groups.setdefault((pair, frames), []).append(("%s/%s" % (mode, sess),
                                                      (doc["frames"], doc["pooled_metrics"])))
    except Exception as e:  # a broken output is a difference
        groups.setdefault((pair, frames), []).append(("%s/%s" % (mode, sess), repr(e)))
bad = 0
for (pair, frames), runs in sorted(groups.items()):
    first = runs[0]
    diff = [name for name, v in runs if v != first[1]]
    bad += len(diff)
    n = len(first[1][0]) if not isinstance(first[1], str) else 0
    print("%-7s %s frames: %d runs %s%s" % (pair, frames, len(runs),
          "identical" if not diff else "DIFFER: " + " ".join(diff),
          "" if n == int(frames) else " (%d frames scored)" % n))
print("bit comparison: %s" % ("all identical" if not bad and groups else
                              "%d differ (or nothing ran)" % bad))
EOF
tail -1 "$S"

step "3. start-up"
best=""
for i in 1 2 3; do
    t0=$(now)
    ff "$P" --version >/dev/null 2>&1
    t1=$(now)
    best=$(awk -v a="$t0" -v b="$t1" -v c="${best:-1e9}" 'BEGIN {d = b - a; printf "%.4f", d < c ? d : c}')
done
say "psnrhvs --version (process, libraries, no device): $(awk -v t="$best" 'BEGIN {printf "%.1f", t * 1e3}') ms"
# shellcheck disable=SC2046
if [ $nvdec = 1 ]; then
    say "opening the hevc8 pair's inputs one after the other, --hwaccel (a fresh process):"
    ff "$SB" --hwaccel $(pair_files hevc8) 2>&1 | sed 's/^/  /' | tee -a "$S"
fi
say "the same on the CPU:"
# shellcheck disable=SC2046
ff "$SB" $(pair_files hevc8) 2>&1 | sed 's/^/  /' | tee -a "$S"
for t in nvdec_1 nvdec_default cpu_1 cpu_default; do
    f="$L/cli_hevc8_${t}_$N.err"
    [ -f "$f" ] || continue
    say "CLI hevc8 ${t/_/ sessions }: --timing:"
    grep "timing:\|decode plan\|decode chunks" "$f" | sed 's/^psnrhvs: /  /' | tee -a "$S"
done
step done
