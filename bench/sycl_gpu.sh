#!/bin/bash
# The SYCL backend on the GPU machine, from binaries built here (no SYCL
# compiler there): tests/sycl/pack-gpu.sh packs them with AdaptiveCpp's
# runtime into .device/sycl, which travels with the working tree.
#
#   here:     BUILD_DIR=/tmp/sycl-build ./build.sh build   (AdaptiveCpp's cuda variant)
#             tests/sycl/pack-gpu.sh /tmp/sycl-build        (-> .device/sycl, ~13 MB)
#   GPU box:  bench/sycl_gpu.sh [OUT_DIR]   from the repository root, with
#             .device/sycl carried (OUT_DIR default $OUT, else /tmp/sycl_gpu_out)
#
# In one run: the devices; the toolchain experiment on the GPU
# (sycl_core_exact); `psnrhvs parity` cpu vs sycl (native and integer-helper
# kernels) vs cuda on every fixture, both threshold products where libvmaf
# has values for them; parity on generated 1920x1080 and 3840x2160 8/10-bit
# frames (in process and through the CLI from files); the kernel time with
# frames resident and the end-to-end fps of sycl against the CUDA backend
# (and the CPU backend, 16 threads), and the CLI from files with each.
# Every step has a time limit; the run takes about 5 minutes. QUICK=1 runs
# every step on small sizes (a smoke test of the script on any machine);
# SKIP_EXPERIMENT=1 and SKIP_SPEED=1 leave out those steps.
# Results: OUT_DIR/summary.txt; every log in OUT_DIR/logs/.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/sycl_gpu_out}}
ROOT=$(pwd)
PK=${PACK:-$ROOT/.device/sycl}
L="$OUT/logs"
mkdir -p "$L"
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T))"; }
run() { timeout "${T:-240}" "$PK/run.sh" "$@"; }
D="$ROOT/tests/data"
FAIL=0
# Sizes of the generated frames: parity, speed, the CLI from files.
GEN_PARITY=("1920 1080 8" "1920 1080 10" "3840 2160 8" "3840 2160 10")
GEN_SPEED=("3840 2160 8" "3840 2160 10" "1920 1080 8")
BIG="3840 2160"
NP=16 NS=400 NF=80
if [ "${QUICK:-0}" = 1 ]; then
    GEN_PARITY=("352 288 8" "352 288 10")
    GEN_SPEED=("352 288 8")
    BIG="352 288"
    NP=4 NS=8 NF=8
fi

if [ ! -x "$PK/run.sh" ]; then
    say "no $PK/run.sh: pack it first (tests/sycl/pack-gpu.sh BUILD_DIR) and carry .device/sycl"
    exit 2
fi

step machine
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
say "cpu: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "bundle: $(du -sb "$PK" | cut -f1) bytes; $(cat "$PK/COMMIT" 2>/dev/null || echo 'commit unknown')"
run psnrhvs --list-devices -v >"$L/devices.txt" 2>&1
tee -a "$S" <"$L/devices.txt"
# The GPU among the SYCL devices (GPUs come first; the OpenMP CPU device last).
G=$(awk '/^sycl:/ {s = 1; next} /^[a-z]+:/ {s = 0} s && / \| gpu \| / {sub(/^ +/, ""); print $1 + 0; exit}' "$L/devices.txt")
if [ -z "$G" ]; then
    say "NO SYCL GPU: AdaptiveCpp's own diagnostics follow"
    ACPP_DEBUG_LEVEL=2 run psnrhvs --list-devices 2>&1 | tail -20 | tee -a "$S"
    G=0
    FAIL=1
fi
export PSNRHVS_SYCL_DEVICE=$G
say "SYCL device: $G"
HAVE_CUDA=0
grep -q '^cuda:$' "$L/devices.txt" && HAVE_CUDA=1

[ "${SKIP_EXPERIMENT:-0}" = 1 ] || {
step "toolchain experiment on the GPU: src/core in SYCL kernels vs plain C (sycl_core_exact --require-gpu)"
run sycl_core_exact --require-gpu --blocks 20000 --sums 100000 --prims 1000000 >"$L/core_exact.log" 2>&1
rc=$?
grep -E "^device|differ|OK|FAIL|SKIP" "$L/core_exact.log" | tee -a "$S"
say "sycl_core_exact rc=$rc"
[ $rc -ne 0 ] && FAIL=1
}

# CLI arguments of a golden JSON: its pair (in the folder above the JSON's),
# geometry for .yuv pairs, and its feature string when it has one.
fixture_args() {
    python3 - "$1" <<'EOF'
import json, os, sys
j = sys.argv[1]
g = json.load(open(j))
d = os.path.dirname(os.path.dirname(os.path.abspath(j)))
a = ["-r", os.path.join(d, g["reference"]), "-d", os.path.join(d, g["distorted"])]
if g["container"] == "yuv":
    a += ["-w", str(g["width"]), "-h", str(g["height"]), "-p", g["pixel_format"], "-b", str(g["bitdepth"])]
if g.get("feature"):
    a += ["--feature", g["feature"]]
print(" ".join(a))
EOF
}

LIST="cpu:scalar:threads=1,cpu,sycl:device=$G,sycl:device=$G:exact_helpers=1,sycl:device=$G:frames_in_flight=1"
[ $HAVE_CUDA -eq 1 ] && LIST="$LIST,cuda"
step "psnrhvs parity on every fixture: $LIST"
bad=0
n=0
for j in "$D"/golden/*.json "$D"/golden-exact/*.json "$D"/stress/golden/*.json "$D"/stress/golden-exact/*.json; do
    [ -f "$j" ] || continue
    args=$(fixture_args "$j")
    feats=("")
    # The other threshold product on the pairs of golden/ too.
    case "$j" in */golden/*) feats+=("--feature psnr_hvs=mask_product=exact") ;; esac
    for feat in "${feats[@]}"; do
        # shellcheck disable=SC2086
        T=120 run psnrhvs parity $args $feat --backends "$LIST" >>"$L/parity.log" 2>&1
        rc=$?
        n=$((n + 1))
        [ $rc -ne 0 ] && bad=$((bad + 1)) && say "parity FAILED rc=$rc: ${j#"$D"/} $feat"
    done
done
for bits in 10 12; do
    [ "${QUICK:-0}" = 1 ] && break
    T=120 run psnrhvs parity -r "$D/netflix/src01_hrc00_576x324.yuv420p${bits}le.yuv" \
        -d "$D/netflix/src01_hrc01_576x324.yuv420p${bits}le.yuv" -w 576 -h 324 -p 420 -b $bits \
        --backends "$LIST" >>"$L/parity.log" 2>&1 || { bad=$((bad + 1)); say "parity FAILED: netflix $bits-bit"; }
    n=$((n + 1))
done
say "fixture parity: $n runs, $bad with differences or errors ($(grep -c identical "$L/parity.log") identical)"
[ $bad -ne 0 ] && FAIL=1

step "parity on generated frames (sycl_bench: cpu vs sycl native, sycl integer helpers, cuda)"
for g in "${GEN_PARITY[@]}"; do
    # shellcheck disable=SC2086
    run sycl_bench parity $g $NP >"$L/parity_gen_${g// /_}.log" 2>&1 || FAIL=1
    grep RESULT "$L/parity_gen_${g// /_}.log" | tee -a "$S"
done
step "parity through the CLI on generated ${BIG/ /x} 8/10-bit files"
F=$(mktemp -d /tmp/sycl_gpu_files.XXXXXX)
# shellcheck disable=SC2086
set -- $BIG
for bd in 8 10; do
    run sycl_bench gen "$1" "$2" $bd 12 "$F/ref$bd.yuv" "$F/dist$bd.yuv"
    T=300 run psnrhvs parity -r "$F/ref$bd.yuv" -d "$F/dist$bd.yuv" -w "$1" -h "$2" -b $bd \
        --backends "cpu,sycl:device=$G$([ $HAVE_CUDA -eq 1 ] && echo ,cuda)" 2>&1 | tail -1 |
        sed "s/^/${BIG/ /x} $bd-bit files: /" | tee -a "$S"
    [ "${PIPESTATUS[0]}" -ne 0 ] && FAIL=1
done

[ "${SKIP_SPEED:-0}" = 1 ] || {
step "speed: sycl kernels (frames resident), per kernel, end to end; cuda and cpu (16 threads) in the same run"
for g in "${GEN_SPEED[@]}"; do
    # shellcheck disable=SC2086
    set -- $g
    if [ $HAVE_CUDA -eq 1 ]; then
        run cuda_bench "$1" "$2" "$3" 16 24 $NS >"$L/cuda_bench_$1x$2_$3.log" 2>&1
        grep -h -E "resident|stages|library cuda:" "$L/cuda_bench_$1x$2_$3.log" | tee -a "$S"
    fi
    run sycl_bench speed "$1" "$2" "$3" $NS 16 >"$L/sycl_bench_$1x$2_$3.log" 2>&1 || FAIL=1
    grep -h -E "RESULT|SUMMARY|profile" "$L/sycl_bench_$1x$2_$3.log" | tee -a "$S"
done
}

step "the CLI end to end from files, ${BIG/ /x} 8-bit, $NF frames (page-cached; wall time)"
# shellcheck disable=SC2086
set -- $BIG
run sycl_bench gen "$1" "$2" 8 $NF "$F/ref.yuv" "$F/dist.yuv"
cat "$F/ref.yuv" "$F/dist.yuv" >/dev/null
for b in "sycl --device $G" cuda "cpu --threads 16"; do
    [ "$b" = cuda ] && [ $HAVE_CUDA -eq 0 ] && continue
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    run psnrhvs -r "$F/ref.yuv" -d "$F/dist.yuv" -w "$1" -h "$2" --backend $b --json -o "$F/out_${b%% *}.json" \
        >"$L/cli_${b%% *}.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    say "CLI --backend $b: rc=$rc, $(awk -v a="$t0" -v b="$t1" -v n=$NF 'BEGIN { printf "%.2f s, %.1f frames/s", b - a, n / (b - a) }')"
done
if [ -f "$F/out_sycl.json" ] && [ -f "$F/out_cpu.json" ]; then
    # The same scores (the fps line aside).
    if diff <(grep -v fps "$F/out_cpu.json") <(grep -v fps "$F/out_sycl.json") >/dev/null; then
        say "CLI JSON sycl = cpu: yes"
    else
        say "CLI JSON sycl = cpu: NO"
        FAIL=1
    fi
fi
rm -rf "$F"

step "done"
say "overall: $([ $FAIL -eq 0 ] && echo "no differences, every step ran" || echo "FAILURES above")"
exit $FAIL
