#!/bin/bash
# The CLI end to end, on a GPU machine (H200, 16 cores, CUDA): whole runs of
# `psnrhvs` from page-cached raw files, 120 and 480 frames (steady fps from
# the difference, median of REPS runs), start-up (time to the first score),
# a 6-rendition ladder against 6 single runs, several scorers on one GPU
# (--device 0,0) and --device all, and libvmaf's vmaf on the same content
# when VMAF=<path to vmaf> is set.
#
#   BUILD=build bench/cli_gpu.sh                 # GPU machine: 4K and 1080p, cuda, cpu, opencl
#   QUICK=1 BUILD=/tmp/b bench/cli_gpu.sh        # anywhere: small clips, cpu and opencl
#   VMAF=/path/to/vmaf OUT=/tmp/out bench/cli_gpu.sh
#
# Output: one line per measurement (what, frames, seconds, fps) in
# $OUT/cli_summary.txt, or on stdout without OUT. Every step runs under
# `timeout`; steps are skipped once DEADLINE seconds (default 330) are spent.
# SPDX-License-Identifier: BSD-2-Clause
set -u
BUILD=${BUILD:-build}
P=$(cd "$BUILD" 2>/dev/null && pwd)/tools/psnrhvs
QUICK=${QUICK:-0}
REPS=${REPS:-3}
DEADLINE=${DEADLINE:-330}
T0=$(date +%s)
if [ ! -x "$P" ]; then
    echo "cli_gpu.sh: no $P: build first (BUILD=<build dir>)" >&2
    exit 1
fi
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    S="$OUT/cli_summary.txt"
else
    S=/dev/stdout
fi
[ "$S" != /dev/stdout ] && : >"$S"
exec 3>&1 # say() writes here even inside $(...)
W=$(mktemp -d "${TMPDIR:-/tmp}/cli_gpu.XXXXXX")
trap 'rm -rf "$W"' EXIT
say() {
    if [ "$S" = /dev/stdout ]; then echo "$*" >&3; else echo "$*" >>"$S" && echo "$*" >&2; fi
}
calc() { awk "BEGIN {printf \"%.6f\", $*}"; } # no bc needed
left() { [ $(($(date +%s) - T0)) -lt "$DEADLINE" ]; }
NCPU=$(nproc)
THREADS=${THREADS:-16}
[ "$QUICK" = 1 ] && THREADS=$NCPU

# ---- content: a small generator (no numpy needed) ----
cc -O2 -o "$W/gen" "$(dirname "$0")/gen_frames.c" || { echo "cli_gpu.sh: cannot build the generator" >&2; exit 1; }

if [ "$QUICK" = 1 ]; then
    BIG="640 360"; HD="320 180"; NS=12; NL=48; DISTINCT=4
else
    BIG="3840 2160"; HD="1920 1080"; NS=120; NL=480; DISTINCT=8
fi
gen() { timeout 120 "$W/gen" "$1" "$2" "$3" "$4" "$DISTINCT" "$5" "$6" "$7"; }
set -- $BIG; BW=$1 BH=$2
set -- $HD; HW=$1 HH=$2
gen $BW $BH 8 $NL 0 0 "$W/big_ref.yuv" && gen $BW $BH 8 $NL 6 1 "$W/big_dist.yuv"
gen $HW $HH 8 $NL 0 0 "$W/hd_ref.yuv" && gen $HW $HH 8 $NL 6 2 "$W/hd_dist.yuv"
gen $HW $HH 10 $NL 0 0 "$W/hd10_ref.yuv" && gen $HW $HH 10 $NL 20 3 "$W/hd10_dist.yuv"
for r in 1 2 3 4 5 6; do gen $HW $HH 8 $NS $((r * 2)) $((10 + r)) "$W/rung$r.yuv"; done
cat "$W"/*.yuv >/dev/null # page-cached
du -sh "$W" >&2
say "# psnrhvs CLI, $(date -u +%FT%TZ), $(nproc) cores, $("$P" -v), QUICK=$QUICK, REPS=$REPS"
say "# clips: ${BW}x${BH} 8-bit, ${HW}x${HH} 8 and 10-bit, $NL frames ($DISTINCT distinct), in $W"
say "# what | frames | seconds (median) | fps"

# ---- what is here ----
LIST=$("$P" --list-devices -v 2>&1)
# A backend's section lists its devices as "  N: ..." or "  cuda:N ...".
has() { [ "$(ndev "$1")" -gt 0 ]; }
ndev() { echo "$LIST" | awk -v b="$1:" '$0 == b {f = 1; next} /^[a-z]/ {f = 0} f && /^  ([a-z]+:)?[0-9]/ {n++} END {print n + 0}'; }
# The OpenCL GPU's index (PoCL's CPU device may come first).
CL_GPU=$(echo "$LIST" | awk '/^opencl:/ {f = 1; next} /^[a-z]/ {f = 0} f && /^  [0-9]+:.*(NVIDIA|GPU|gpu)/ {sub(/^ +/, ""); print $1 + 0; exit}')
BACKENDS=()
# cuda16: the CUDA backend with 16 threads packing frames into pinned memory (8 by default).
if [ "$QUICK" != 1 ] && has cuda; then BACKENDS+=(cuda cuda16); fi
BACKENDS+=(cpu)
if has opencl; then
    if [ "$QUICK" = 1 ] || echo "$LIST" | awk '/^opencl:/ {f = 1; next} /^[a-z]/ {f = 0} f' | grep -qi "gpu\|nvidia"; then
        BACKENDS+=(opencl)
    fi
fi
say "# backends: ${BACKENDS[*]} (cuda devices: $(ndev cuda), opencl devices: $(ndev opencl))"

bargs() { # backend -> flags
    case $1 in
    cpu) echo "--backend cpu --threads $THREADS" ;;
    opencl) echo "--backend opencl --device ${CL_GPU:-0}" ;;
    cuda16) echo "--backend cuda --threads 16" ;;
    *) echo "--backend $1" ;;
    esac
}
# one timed run: seconds on stdout, or "fail"
timed() {
    local s e
    s=$(date +%s.%N)
    if timeout 120 "$@" >"$W/run.log" 2>&1; then
        e=$(date +%s.%N)
        calc "$e - $s"
    else
        echo fail
    fi
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
# measure NAME FRAMES cmd...: REPS runs, the median
measure() {
    local name=$1 n=$2 t=() i v
    shift 2
    for i in $(seq "$REPS"); do
        v=$(timed "$@")
        [ "$v" = fail ] && { say "$name | $n | FAILED: $(tail -1 "$W/run.log")"; echo fail; return; }
        t+=("$v")
    done
    v=$(median "${t[@]}")
    say "$name | $n | $(printf %.3f "$v") | $(calc "$n / $v" | xargs printf %.1f)"
    echo "$v"
}
steady() { # name t_short t_long
    [ "$2" = fail ] || [ "$3" = fail ] && return
    say "$1 steady | $((NL - NS)) | $(calc "$3 - $2" | xargs printf %.3f) | $(calc "($NL - $NS) / ($3 - $2)" | xargs printf %.1f)"
}

# ---- whole runs: 120 and 480 frames ----
CLIPS=("big 8 $BW $BH" "hd 8 $HW $HH" "hd10 10 $HW $HH")
for be in "${BACKENDS[@]}"; do
    for c in "${CLIPS[@]}"; do
        set -- $c
        left || { say "# deadline: skipped $be $1"; continue; }
        common=(-r "$W/$1_ref.yuv" -d "$W/$1_dist.yuv" -w "$3" -h "$4" -b "$2" $(bargs "$be") -q -o "$W/out.xml")
        a=$(measure "psnrhvs $(bargs "$be") ${3}x${4} ${2}-bit" $NS "$P" "${common[@]}" --frame_cnt $NS | tail -1)
        b=$(measure "psnrhvs $(bargs "$be") ${3}x${4} ${2}-bit" $NL "$P" "${common[@]}" --frame_cnt $NL | tail -1)
        steady "psnrhvs $(bargs "$be") ${3}x${4} ${2}-bit" "$a" "$b"
        eval "T_${be}_$1_s=$a T_${be}_$1_l=$b"
    done
    # start-up: time to the first score, from the run's own clock
    if left; then
        timeout 60 "$P" --timing -r "$W/big_ref.yuv" -d "$W/big_dist.yuv" -w $BW -h $BH \
            $(bargs "$be") --frame_cnt 1 -q -o "$W/out.xml" 2>"$W/t.log" >/dev/null
        say "start-up $(bargs "$be") ${BW}x${BH} | 1 | $(sed -n 's/^psnrhvs: timing: //p' "$W/t.log" | head -1)"
        s=$(timed "$P" -r "$W/big_ref.yuv" -d "$W/big_dist.yuv" -w $BW -h $BH $(bargs "$be") --frame_cnt 1 -q -o "$W/out.xml")
        say "whole run of 1 frame $(bargs "$be") ${BW}x${BH} | 1 | $s | -"
    fi
done

# ---- libvmaf's vmaf on the same content ----
if [ -n "${VMAF:-}" ] && [ -x "$VMAF" ]; then
    for c in "${CLIPS[@]}"; do
        set -- $c
        left || { say "# deadline: skipped vmaf $1"; continue; }
        va=(--threads 16 --feature psnr_hvs --no_prediction -r "$W/$1_ref.yuv" -d "$W/$1_dist.yuv"
            --width "$3" --height "$4" --pixel_format 420 --bitdepth "$2" -q -o "$W/vmaf.xml")
        REPS_SAVE=$REPS; REPS=1
        a=$(measure "vmaf --threads 16 ${3}x${4} ${2}-bit" $NS "$VMAF" "${va[@]}" --frame_cnt $NS | tail -1)
        b=$(measure "vmaf --threads 16 ${3}x${4} ${2}-bit" $NL "$VMAF" "${va[@]}" --frame_cnt $NL | tail -1)
        REPS=$REPS_SAVE
        steady "vmaf --threads 16 ${3}x${4} ${2}-bit" "$a" "$b"
        for be in "${BACKENDS[@]}"; do
            eval "ps=\${T_${be}_$1_s:-fail} pl=\${T_${be}_$1_l:-fail}"
            [ "$a" = fail ] || [ "$ps" = fail ] || [ "$b" = fail ] || [ "$pl" = fail ] && continue
            say "vmaf / psnrhvs $(bargs "$be") ${3}x${4} ${2}-bit | $NS, $NL | $(calc "$a / $ps" | xargs printf %.1f)x, $(calc "$b / $pl" | xargs printf %.1f)x | (time ratios)"
        done
    done
else
    say "# VMAF not set: libvmaf's vmaf not measured"
fi

# ---- memory mapping against read(): the same run with the test hook PSNRHVS_TEST_NO_MMAP=1 ----
for be in "${BACKENDS[@]}"; do
    left || break
    [ "$be" = cpu ] && continue
    common=(-r "$W/big_ref.yuv" -d "$W/big_dist.yuv" -w $BW -h $BH $(bargs "$be") -q -o "$W/out.xml" --frame_cnt $NL)
    measure "read() path (PSNRHVS_TEST_NO_MMAP=1) $(bargs "$be") ${BW}x${BH}" $NL env PSNRHVS_TEST_NO_MMAP=1 "$P" "${common[@]}" >/dev/null
done

# ---- a ladder of 6 renditions against 6 single runs ----
LB=()
for be in cuda cpu; do [[ " ${BACKENDS[*]} " == *" $be "* ]] && LB+=("$be"); done
for be in "${LB[@]}"; do
    left || { say "# deadline: skipped the $be ladder"; continue; }
    mkdir -p "$W/ladder" "$W/single"
    rm -f "$W"/ladder/* "$W"/single/*
    lad=(-r "$W/hd_ref.yuv" -w $HW -h $HH $(bargs "$be") -q --frame_cnt $NS --json --precision max --raw)
    for r in 1 2 3 4 5 6; do lad+=(-d "$W/rung$r.yuv"); done
    l=$(measure "ladder of 6 $(bargs "$be") ${HW}x${HH}" $((6 * NS)) "$P" "${lad[@]}" -o "$W/ladder/" | tail -1)
    s=$(date +%s.%N)
    for r in 1 2 3 4 5 6; do
        timeout 120 "$P" -r "$W/hd_ref.yuv" -d "$W/rung$r.yuv" -w $HW -h $HH $(bargs "$be") -q --frame_cnt $NS \
            --json --precision max --raw -o "$W/single/rung$r.json" || say "single rung$r FAILED"
    done
    e=$(date +%s.%N)
    sep=$(calc "$e - $s")
    say "6 single runs $(bargs "$be") ${HW}x${HH} | $((6 * NS)) | $(printf %.3f "$sep") | $(calc "6 * $NS / $sep" | xargs printf %.1f)"
    same=1
    for r in 1 2 3 4 5 6; do
        cmp -s <(sed 's/"fps": [0-9.]*//' "$W/ladder/rung$r.json") <(sed 's/"fps": [0-9.]*//' "$W/single/rung$r.json") || same=0
    done
    [ "$l" != fail ] && say "ladder vs single $(bargs "$be") | - | speed-up $(calc "$sep / $l" | xargs printf %.2f)x | outputs $([ $same = 1 ] && echo identical || echo DIFFER)"
done

# ---- several scorers: --device 0,0 against --device 0; --device all ----
for be in cuda opencl; do
    [[ " ${BACKENDS[*]} " == *" $be "* ]] || continue
    [ "$QUICK" != 1 ] && [ "$be" = opencl ] && continue
    left || break
    common=(-r "$W/big_ref.yuv" -d "$W/big_dist.yuv" -w $BW -h $BH --backend $be -q --frame_cnt $NL --json --precision max --raw)
    measure "--backend $be --device 0 ${BW}x${BH}" $NL "$P" "${common[@]}" --device 0 -o "$W/d0.json" >/dev/null
    measure "--backend $be --device 0,0 ${BW}x${BH}" $NL "$P" "${common[@]}" --device 0,0 -o "$W/d00.json" >/dev/null
    cmp -s <(sed 's/"fps": [0-9.]*//' "$W/d0.json") <(sed 's/"fps": [0-9.]*//' "$W/d00.json") &&
        say "--device 0,0 vs 0 ($be) | - | - | outputs identical" || say "--device 0,0 vs 0 ($be) | - | - | outputs DIFFER"
    nd=$(ndev "$be")
    measure "--backend $be --device all ($nd devices) ${BW}x${BH}" $NL "$P" "${common[@]}" --device all -o "$W/dall.json" >/dev/null
    cmp -s <(sed 's/"fps": [0-9.]*//' "$W/d0.json") <(sed 's/"fps": [0-9.]*//' "$W/dall.json") &&
        say "--device all vs 0 ($be, $nd devices) | - | - | outputs identical" || say "--device all vs 0 ($be) | - | - | outputs DIFFER"
done

say "# done in $(($(date +%s) - T0)) s"
