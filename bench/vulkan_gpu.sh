#!/bin/bash
# The Vulkan backend on the GPU machine (NVIDIA's Vulkan driver), in one call:
# a build with CUDA and Vulkan, the Vulkan tests on the GPU, `psnrhvs parity`
# cpu vs cuda vs vulkan on every fixture, 1920x1080 and 3840x2160 8/10-bit
# parity against the CPU, and Vulkan against CUDA throughput through the
# library (same frames, same call). Run from the repository root:
#
#   bench/vulkan_carry.sh                  (here, first: packs .device/vulkan)
#   bash bench/vulkan_gpu.sh [out dir]     (there, with .device/vulkan carried)
#
# What the machine lacks comes from .device/vulkan: the kernels' SPIR-V
# (always taken from there when present, the modules validated here), the
# Vulkan headers, and the loader libvulkan.so.1 where the machine has none.
# The loader is pointed at NVIDIA's driver alone (VK_DRIVER_FILES): its
# nvidia_icd.json where installed, else a manifest written to a temporary
# folder naming libGLX_nvidia.so.0. Without a GPU driver (this script run on
# a CPU machine) it says so and goes on with the first Vulkan device listed
# (lavapipe) and no CUDA, so that it can be tried anywhere.
# Results: <out>/summary.txt; logs packed into <out>/logs.tar.gz.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:-${OUT:-/tmp/vulkan_gpu_out}}
mkdir -p "$OUT"
L=$(mktemp -d /tmp/vulkan_gpu_logs.XXXXXX)
trap 'tar czf "$OUT/logs.tar.gz" -C "$L" . 2>/dev/null' EXIT
ROOT=$(pwd)
CARRY=$ROOT/.device/vulkan
B=${BUILD_DIR:-/tmp/build-vulkan-gpu}
JOBS=$(nproc)
S="$OUT/summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
step() { say "== $* ($(date +%T))"; }
export PATH=/usr/local/cuda/bin:$PATH

step machine
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
else
    say "no nvidia-smi: not a GPU machine"
fi
say "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "unknown (no .git in the copy)")"
[ -f "$CARRY/MANIFEST" ] && sed 's/^/carried: /' "$CARRY/MANIFEST" | tee -a "$S"

step "Vulkan loader and NVIDIA's driver"
if ldconfig -p | grep -q 'libvulkan\.so\.1 '; then
    say "loader: the machine's ($(ldconfig -p | awk '/libvulkan\.so\.1 / {print $NF; exit}'))"
elif [ -f "$CARRY/lib/libvulkan.so.1" ]; then
    export LD_LIBRARY_PATH=$CARRY/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    say "loader: none installed; the carried one ($CARRY/lib/libvulkan.so.1)"
else
    say "loader: none installed and none carried (run bench/vulkan_carry.sh first): the Vulkan steps will fail"
fi
ICD=""
# The driver's own manifest first (/usr/local/nvidia: the container's
# mounted driver); one under /usr/share may name a library that is not there.
for d in /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d /usr/share/glvnd/egl_vendor.d; do
    for f in "$d"/nvidia*.json; do
        [ -f "$f" ] && grep -q '"ICD"' "$f" && { ICD=$f; break 2; }
    done
done
GLX=$(ldconfig -p | awk '/libGLX_nvidia\.so\.0 / {print $NF; exit}')
if [ -z "$GLX" ]; then
    for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/lib; do
        [ -e "$d/libGLX_nvidia.so.0" ] && { GLX=$d/libGLX_nvidia.so.0; break; }
    done
fi
if [ -z "$ICD" ] && [ -n "$GLX" ]; then
    mkdir -p /tmp/vk_icd
    ICD=/tmp/vk_icd/nvidia_icd.json
    printf '{\n    "file_format_version": "1.0.1",\n    "ICD": {\n        "library_path": "%s",\n        "api_version": "1.3.0"\n    }\n}\n' "$GLX" >"$ICD"
    say "NVIDIA ICD: no nvidia_icd.json installed; wrote $ICD naming $GLX"
fi
GPU=1
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl
if [ -n "$ICD" ]; then
    export VK_DRIVER_FILES=$ICD VK_ICD_FILENAMES=$ICD
    say "NVIDIA ICD: $ICD ($(grep -o '"library_path"[^,]*' "$ICD" | tr -d '\n'))"
    for lib in libGLX_nvidia.so.0 libnvidia-glvkspirv libnvidia-glcore libnvidia-gpucomp; do
        say "  $lib: $(ldconfig -p | awk -v l="$lib" 'index($1, l) == 1 {print $NF}' | head -1)"
    done
else
    GPU=0
    say "NVIDIA ICD: none (no nvidia_icd.json, no libGLX_nvidia.so.0): not NVIDIA's Vulkan driver; going on with the first Vulkan device listed"
fi

step build
cuda=OFF
command -v nvcc >/dev/null && cuda=ON
vk_args=(-DPSNRHVS_VULKAN=ON -DPSNRHVS_VULKAN_INCLUDE_HINT="$CARRY/include")
if [ -f "$CARRY/spirv/SOURCES.sha256" ]; then
    vk_args+=(-DPSNRHVS_VULKAN_SPIRV_DIR="$CARRY/spirv")
    say "SPIR-V: carried ($CARRY/spirv)"
else
    vk_args+=(-DPSNRHVS_VULKAN_SPIRV_DIR=)
    say "SPIR-V: none carried, compiled here (needs glslangValidator or glslc)"
fi
if ! cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPSNRHVS_CUDA=$cuda \
    -DPSNRHVS_OPENCL=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_FFMPEG=OFF "${vk_args[@]}" \
    >"$L/build.log" 2>&1 || ! cmake --build "$B" -j"$JOBS" >>"$L/build.log" 2>&1; then
    tail -40 "$L/build.log" | tee -a "$S"
    say "BUILD FAILED"
    exit 1
fi
grep -E "Vulkan backend|CUDA backend" "$L/build.log" | tee -a "$S"
CLI="$B/tools/psnrhvs"
"$CLI" --list-devices -v >"$L/devices.txt" 2>&1
sed -n '/^vulkan/,$p' "$L/devices.txt" | tee -a "$S"
# The GPU among the Vulkan devices (listed GPUs first): device 0 unless it is a CPU.
G=$(sed -n '/^vulkan:/,$p' "$L/devices.txt" | awk -F: '/^  [0-9]+: / && !/\| CPU \|/ {gsub(/ /, "", $1); print $1; exit}')
if [ -z "$G" ]; then
    VK_LOADER_DEBUG=all "$CLI" --list-devices >"$L/loader_debug.txt" 2>&1
    grep -iE "error|warn" "$L/loader_debug.txt" | head -15 | tee -a "$S"
    if [ $GPU = 1 ] || ! sed -n '/^vulkan:/,$p' "$L/devices.txt" | grep -q '^  0: '; then
        say "NO VULKAN DEVICE to test: the loader found no usable $([ $GPU = 1 ] && echo NVIDIA )device (loader log in logs.tar.gz)"
        exit 1
    fi
    G=0 # no GPU driver here: the CPU device (lavapipe), for trying the script
fi
export PSNRHVS_VULKAN_DEVICE=$G
say "Vulkan device: $G"
CUDA_OK=0
[ $cuda = ON ] && grep -A1 '^cuda:' "$L/devices.txt" | grep -q '^  0' && CUDA_OK=1

step "ctest: the Vulkan tests on device $G (and the API test, which scores through every backend)"
(cd "$B" && ctest -R "vulkan|^api" -j4 --timeout 300 --output-on-failure) >"$L/ctest.log" 2>&1
say "ctest rc=$? : $(grep -E 'tests passed|tests failed' "$L/ctest.log")"
grep -E "Failed|\*\*\*|Skipped|Not Run" "$L/ctest.log" | head -20 | tee -a "$S"
grep -h "mismatches\|fixtures, \|same bits\|without shader" "$L/ctest.log" | grep -v "^ *[0-9]*: .*, 0 mismatches$" |
    grep -E "fixtures|operand pairs|failures" | head -8 | tee -a "$S"

# CLI arguments of a golden fixture (its pair lies in the folder above its JSON's).
fixture_args() {
    python3 - "$1" <<'PY'
import json, os, sys
g = json.load(open(sys.argv[1])); d = os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[1])))
a = ["-r", f"{d}/{g['reference']}", "-d", f"{d}/{g['distorted']}"]
if g["container"] == "yuv":
    a += ["-w", str(g["width"]), "-h", str(g["height"]), "-p", g["pixel_format"], "-b", str(g["bitdepth"])]
print(" ".join(a))
PY
}
D="$ROOT/tests/data"
LIST="cpu:scalar:threads=1,vulkan:device=$G,vulkan:device=$G:frames_in_flight=1"
[ $CUDA_OK = 1 ] && LIST="$LIST,cuda"
step "psnrhvs parity over every fixture: $LIST"
bad=0
n=0
for j in "$D"/golden/*.json "$D"/stress/golden/*.json; do
    args=$(fixture_args "$j")
    for feat in "" "--feature psnr_hvs=mask_product=exact"; do
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

step "parity on generated 1920x1080 and 3840x2160 pictures, 8 and 10 bits: vulkan vs cpu"
VB="$B/tests/vulkan/vulkan_bench"
for size in "1920 1080" "3840 2160"; do
    for bd in 8 10; do
        # shellcheck disable=SC2086
        timeout 300 "$VB" parity $size $bd 8 2>&1 | tee -a "$S"
    done
done

step "throughput through the library: vulkan vs cuda vs cpu, same frames, same call"
for g in "3840 2160 8 240" "3840 2160 10 240" "1920 1080 8 480"; do
    # shellcheck disable=SC2086
    set -- $g
    [ $GPU = 0 ] && set -- "$1" "$2" "$3" 6
    timeout 300 "$VB" speed "$1" "$2" "$3" "$4" >"$L/speed_$1x$2_$3.log" 2>&1
    say "rc=$? $(grep -h RESULT "$L/speed_$1x$2_$3.log" | tr '\n' ' ')"
done
step "per-stage device times at 3840x2160 8-bit (timestamp queries)"
timeout 300 "$VB" profile 3840 2160 8 $([ $GPU = 1 ] && echo 120 || echo 4) 2>&1 | tee -a "$S"
step done
