#!/bin/bash
# Everything that needs the GPU machine, in one call (device time is scarce):
# one build with CUDA and OpenCL, the whole test suite with the OpenCL tests
# on the GPU, `psnrhvs parity` over every fixture for every backend, the
# CUDA, OpenCL and 16-thread CPU benchmarks, the HIP backend's code paths
# in a CUDA build, and the CLI end to end from files. Run from the repository root:  bench/gpu.sh [out dir]
# (CTEST_R=REGEX runs only those tests, BENCH=0 leaves the timings out).
# Results: <out>/summary.txt; logs packed into <out>/logs.tar.gz.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/gpu_out}}
mkdir -p "$OUT"
L=$(mktemp -d /tmp/gpu_logs.XXXXXX)
trap 'tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null' EXIT
ROOT=$(pwd)
B=${BUILD_DIR:-/tmp/build-gpu}
JOBS=$(nproc)
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T))"; }
export PATH=/usr/local/cuda/bin:$PATH

step machine
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max \
    --format=csv,noheader 2>&1 | tee -a "$S"
say "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "unknown (no .git in the copy)")"

# NVIDIA's OpenCL ICD is installed but not registered there.
if ldconfig -p | grep -q libnvidia-opencl.so.1; then
    mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
    for f in /etc/OpenCL/vendors/*.icd; do [ -f "$f" ] && cp "$f" /tmp/icd/; done
    export OCL_ICD_VENDORS=/tmp/icd
fi

step build
if ! cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
    -DPSNRHVS_OPENCL=ON >"$L/build.log" 2>&1 || ! cmake --build "$B" -j"$JOBS" >>"$L/build.log" 2>&1; then
    tail -40 "$L/build.log" | tee -a "$S"
    say "BUILD FAILED"
    exit 1
fi
CLI="$B/tools/psnrhvs"
"$CLI" --list-devices -v >"$L/devices.txt" 2>&1
cat "$L/devices.txt" | tee -a "$S"
# The GPU among the OpenCL devices (PoCL may be listed first).
GPU_CL=$("$B/tests/opencl/opencl_devices" 2>/dev/null |
    awk -F: '/^[0-9]+: .*(NVIDIA|GPU)/ {print $1; exit}')
export PSNRHVS_OPENCL_DEVICE=${GPU_CL:-0}
say "OpenCL GPU device index: $PSNRHVS_OPENCL_DEVICE"

step "ctest (whole suite; OpenCL tests on device $PSNRHVS_OPENCL_DEVICE, CUDA tests on the H200)"
# The install tests build the project twice more to check packaging, not the GPU: CI runs them.
# CTEST_R=REGEX: only the tests it matches (a short call).
(cd "$B" && ctest -j"$JOBS" --timeout 300 --output-on-failure -E '^install_' ${CTEST_R:+-R "$CTEST_R"}) >"$L/ctest.log" 2>&1
say "ctest rc=$? : $(grep -E 'tests passed|tests failed' "$L/ctest.log")"
grep -E "Failed|\*\*\*|Skipped|Not Run" "$L/ctest.log" | head -20 | tee -a "$S"

# CLI arguments of a golden fixture (its pair lies in the folder above its JSON's).
fixture_args() {
    python3 - "$1" <<'EOF'
import json, os, sys
g = json.load(open(sys.argv[1])); d = os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[1])))
a = ["-r", f"{d}/{g['reference']}", "-d", f"{d}/{g['distorted']}"]
if g["container"] == "yuv":
    a += ["-w", str(g["width"]), "-h", str(g["height"]), "-p", g["pixel_format"], "-b", str(g["bitdepth"])]
print(" ".join(a))
EOF
}
D="$ROOT/tests/data"

step "psnrhvs parity over every fixture: cpu scalar/avx2/avx512/threads, cuda, opencl (native, integer helpers), auto"
G=$PSNRHVS_OPENCL_DEVICE
LIST="cpu:scalar:threads=1,cpu:avx2:threads=1,cpu:avx512:threads=1,cpu:auto,cuda"
LIST="$LIST,opencl:device=$G,opencl:device=$G:exact_helpers=1,auto"
bad=0
n=0
for j in "$D"/golden/*.json; do
    args=$(fixture_args "$j")
    feats=("")
    # The exact-product threshold on the high-bit-depth pairs, where it differs most.
    case "$j" in *10_176x144.json | *12_176x144.json) feats+=("--feature psnr_hvs=mask_product=exact") ;; esac
    for feat in "${feats[@]}"; do
        # shellcheck disable=SC2086
        "$CLI" parity $args $feat --backends "$LIST" >>"$L/parity.log" 2>&1
        rc=$?
        n=$((n + 1))
        [ $rc -ne 0 ] && bad=$((bad + 1)) && say "parity FAILED rc=$rc: $(basename "$j") $feat"
    done
done
for bits in 10 12; do
    "$CLI" parity -r "$D/netflix/src01_hrc00_576x324.yuv420p${bits}le.yuv" \
        -d "$D/netflix/src01_hrc01_576x324.yuv420p${bits}le.yuv" -w 576 -h 324 -p 420 -b $bits \
        --backends "$LIST" >>"$L/parity.log" 2>&1 || { bad=$((bad + 1)); say "parity FAILED: netflix $bits-bit"; }
    n=$((n + 1))
done
say "parity: $n runs, $bad with differences ($(grep -c identical "$L/parity.log") identical lines)"

# The installed tree tests/sycl/pack-gpu.sh carries (.device/sycl/inst: the
# CLI, the core, lib/psnrhvs/ with the CUDA and SYCL modules built on the CPU
# machine): what it links, and its modules' parity on every fixture.
RUN=$ROOT/.device/sycl/run.sh
if [ -x "$RUN" ] && [ -d "$ROOT/.device/sycl/inst/lib/psnrhvs" ]; then
    step "the installed tree (.device/sycl/inst): NEEDED, devices, parity of its modules on every fixture"
    I=$ROOT/.device/sycl/inst
    say "modules: $(cd "$I/lib/psnrhvs" && ls backend-*.so | tr '\n' ' ')"
    say "bin/psnrhvs NEEDED: $(readelf -d "$I/bin/psnrhvs" | awk '/NEEDED/ {gsub(/[][]/, "", $5); printf "%s ", $5}')"
    say "lib/libpsnrhvs.so.1 NEEDED: $(readelf -d "$I/lib/libpsnrhvs.so.1" | awk '/NEEDED/ {gsub(/[][]/, "", $5); printf "%s ", $5}')"
    "$RUN" psnrhvs --list-devices >"$L/inst_devices.txt" 2>&1
    tee -a "$S" <"$L/inst_devices.txt"
    ILIST="cpu:scalar:threads=1,cuda,sycl,sycl:exact_helpers=1,auto"
    ibad=0
    in=0
    for j in "$D"/golden/*.json "$D"/stress/golden/*.json; do
        args=$(fixture_args "$j")
        # shellcheck disable=SC2086
        timeout 120 "$RUN" psnrhvs parity $args --backends "$ILIST" >>"$L/parity_inst.log" 2>&1 ||
            { ibad=$((ibad + 1)); say "installed parity FAILED: $(basename "$j")"; }
        in=$((in + 1))
    done
    say "installed tree, psnrhvs parity ($ILIST): $in runs, $ibad with differences ($(grep -c identical "$L/parity_inst.log") identical lines)"
fi

step "the HIP backend's device code paths in a CUDA build (shared memory staging, integer sqrt/division): parity"
B2=${B}-hip-paths
if cmake -S "$ROOT" -B "$B2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON -DPSNRHVS_OPENCL=OFF \
    -DPSNRHVS_HIP=OFF -DPSNRHVS_CUDA_HIP_PATHS=ON >"$L/build_hip_paths.log" 2>&1 &&
    cmake --build "$B2" -j"$JOBS" >>"$L/build_hip_paths.log" 2>&1; then
    (cd "$B2" && ctest -R "cuda|golden_lib" -j"$JOBS" --output-on-failure -V) >"$L/ctest_hip_paths.log" 2>&1
    say "hip paths on cuda: ctest rc=$? : $(grep -E 'tests passed|tests failed' "$L/ctest_hip_paths.log")"
    grep -h "Function properties for psh_gpu_terms" "$L/ctest_hip_paths.log" | tr -s ' ' | head -2 | tee -a "$S"
    hbad=0
    for j in "$D"/golden/*.json; do
        args=$(fixture_args "$j")
        # shellcheck disable=SC2086
        "$B2/tools/psnrhvs" parity $args --backends cpu:scalar:threads=1,cuda >>"$L/parity_hip_paths.log" 2>&1 ||
            { hbad=$((hbad + 1)); say "hip paths parity FAILED: $(basename "$j")"; }
    done
    say "hip paths on cuda, psnrhvs parity over every fixture: $hbad with differences"
    "$B2/tests/cuda/cuda_bench" 3840 2160 8 16 8 200 >"$L/cuda_bench_hip_paths.log" 2>&1
    grep -h -E "RESULT" "$L/cuda_bench_hip_paths.log" | head -3 | sed 's/^/hip paths: /' | tee -a "$S"
else
    tail -20 "$L/build_hip_paths.log" | tee -a "$S"
    say "hip paths build FAILED"
fi

step "OpenCL on the GPU: parity on generated 1080p/2160p 8/10-bit, speed at 2160p 8-bit vs CPU 16 threads"
OB="$B/tests/opencl/opencl_bench"
for size in "1920 1080" "3840 2160"; do
    for bd in 8 10; do
        # shellcheck disable=SC2086
        "$OB" parity $size $bd 6 2>&1 | tee -a "$S"
    done
done
"$OB" speed 3840 2160 8 60 2>&1 | tee -a "$S"
"$OB" profile 3840 2160 8 60 >"$L/opencl_profile.log" 2>&1
grep -h "profile" "$L/opencl_profile.log" | tee -a "$S"

if [ "${BENCH:-1}" = 0 ]; then # BENCH=0: bits only (parity, sanitizers), no timings
    step "benchmarks skipped (BENCH=0)"
else
step "CUDA benchmark (resident kernels, pinned uploads vs H2D bandwidth, library fps vs CPU 16 threads)"
for g in "3840 2160 8" "3840 2160 10" "1920 1080 8" "1920 1080 10"; do
    set -- $g
    "$B/tests/cuda/cuda_bench" $1 $2 $3 16 24 400 >"$L/cuda_bench_$1x$2_$3.log" 2>&1
    grep -h -E "SUMMARY|RESULT" "$L/cuda_bench_$1x$2_$3.log" | tee -a "$S"
done

step "CPU backend, 16 threads (scalar reference vs SIMD, chain vs engine)"
"$B/bench/cpu/cpu_bench" --threads=16 2>&1 | tee -a "$S"
# The same benchmarks built from an earlier tree carried in .device/old (git
# archive of a commit), run interleaved with this tree's: before/after in one
# call (CPU backend, CUDA kernels and uploads, the CLI end to end).
BO=""
if [ -d "$ROOT/.device/old/src" ]; then
    BO=${B}-old
    if cmake -S "$ROOT/.device/old" -B "$BO" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=ON \
        -DPSNRHVS_OPENCL=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_FFMPEG=OFF \
        -DPSNRHVS_VULKAN=OFF >"$L/build_old.log" 2>&1 &&
        cmake --build "$BO" -j"$JOBS" --target cpu_bench cuda_bench psnrhvs >>"$L/build_old.log" 2>&1; then
        say "the earlier tree ($(cat "$ROOT/.device/old/COMMIT" 2>/dev/null || echo unknown)), same machine, same run:"
        "$BO/bench/cpu/cpu_bench" --threads=16 2>&1 | sed 's/^/earlier tree: /' | tee -a "$S"
        "$B/bench/cpu/cpu_bench" --threads=16 2>&1 | sed 's/^/again, this tree: /' | tee -a "$S"
        for g in "3840 2160 8" "3840 2160 10" "1920 1080 8"; do
            set -- $g
            for t in old new; do
                cb="$B/tests/cuda/cuda_bench"
                [ $t = old ] && cb="$BO/tests/cuda/cuda_bench"
                "$cb" $1 $2 $3 16 24 400 >"$L/cuda_bench_${t}_$1x$2_$3.log" 2>&1
                grep -h -E "SUMMARY|RESULT" "$L/cuda_bench_${t}_$1x$2_$3.log" | sed "s/^/$t tree: /" | tee -a "$S"
            done
        done
    else
        tail -5 "$L/build_old.log" | tee -a "$S"
        BO=""
    fi
fi

step "ladders: one reference and 6 renditions, 6 separate runs against one ladder (library)"
for be in "cpu 16" "cuda 0"; do
    set -- $be
    for g in "1920 1080 8 60" "3840 2160 8 24" "3840 2160 10 24"; do
        # shellcheck disable=SC2086
        set -- "$1" "$2" $g
        "$B/bench/ladder/ladder_bench" "$1" "$3" "$4" "$5" 6 "$6" "$2" 2>&1 | grep RESULT | tee -a "$S"
    done
done

step "exact-sum engine vs the sequential chain (one 2160p frame of terms), 2 and 16 threads"
"$B/bench/sum/bench_sum" 2 10 2>&1 | tail -8 | tee -a "$S"
"$B/bench/sum/bench_sum" 16 10 2>&1 | tail -8 | tee -a "$S"

step "CLI end to end from files, 3840x2160 8-bit (steady state: frames of the longer run less the shorter)"
T=/tmp/gpu_files
mkdir -p $T
"$B/tests/cuda/cuda_bench" gen 3840 2160 8 320 $T/ref.yuv $T/dist.yuv
head -c $((3840 * 2160 * 3 / 2 * 80)) $T/ref.yuv >$T/ref80.yuv
head -c $((3840 * 2160 * 3 / 2 * 80)) $T/dist.yuv >$T/dist80.yuv
cat $T/*.yuv >/dev/null
CLIS="cuda cpu opencl auto"
[ -n "$BO" ] && CLIS="$CLIS old-cuda"
for be in $CLIS; do
    extra="--backend $be"
    bin=$CLI
    [ $be = opencl ] && extra="$extra --device $PSNRHVS_OPENCL_DEVICE"
    [ $be = auto ] && extra="" # the default
    [ $be = old-cuda ] && extra="--backend cuda" && bin=$BO/tools/psnrhvs
    for n in 80 320; do
        r=$T/ref.yuv d=$T/dist.yuv
        [ $n = 80 ] && r=$T/ref80.yuv d=$T/dist80.yuv
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$bin" -r $r -d $d -w 3840 -h 2160 -p 420 -b 8 $extra -q --json \
            --precision max --raw -o $T/$be$n.json >"$L/cli_$be$n.log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        echo "rc=$rc" >>"$L/cli_$be$n.log"
        [ $rc -ne 0 ] && say "cli --backend $be ($n frames) FAILED rc=$rc: $(head -1 "$L/cli_$be$n.log")"
        eval "t_${be//-/_}_$n=\$(awk -v a=$t0 -v b=$t1 'BEGIN{print b-a}')"
    done
    eval "a=\$t_${be//-/_}_80 b=\$t_${be//-/_}_320"
    say "cli --backend $be: 80 frames $a s, 320 frames $b s, steady $(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.1f", 240/(b-a)}') fps, whole 320-frame run $(awk -v b="$b" 'BEGIN{printf "%.1f", 320/b}') fps"
done
for be in cuda opencl auto; do
    if cmp -s <(grep -v '"fps"' $T/${be}320.json) <(grep -v '"fps"' $T/cpu320.json) && [ -s $T/cpu320.json ]; then
        say "cli json $be vs cpu (320 frames, %.17g and %a): identical"
    else
        say "cli json $be vs cpu: DIFFERENT"
    fi
done
rm -rf $T
fi

step "compute-sanitizer on a small input"
for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
        "$B/tests/cuda/cuda_parity" "$ROOT/tests/data" 0 quick >"$L/sanitizer_$tool.log" 2>&1
    say "$tool rc=$? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/sanitizer_$tool.log" | tr '\n' ' ')"
done
step done
