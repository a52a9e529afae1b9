#!/bin/bash
# One device call, several parts, one after the other, within one deadline
# (a call may run 10 minutes): each part is a script of bench/ with its own
# summary under OUT/<part>/, and a part that would not finish is cut off
# with what it wrote kept. Each part's stdout stays on the machine (its tail
# is printed): what comes back is OUT/<part>/summary.txt and its logs.
#
#   there: bash bench/h200.sh OUT PART...   (from the repository root)
#
# Parts and what they carry (made here first):
#   main     bench/gpu.sh: build, ctest (CTEST_R), parity on every fixture, ...
#   mix      bench/mix_gpu.sh: the default command against cpu and cuda, vmaf
#            (.device/vmaf, .device/vulkan, .gl)
#   vulkan   bench/vulkan_gpu.sh (.device/vulkan, .gl)
#   vs       bench/vapoursynth/vs_gpu.sh (.device/vs from vs_carry.sh)
#   devices  bench/default_gpu.sh's device list alone: --list-devices, batch's
#            auto (.device/vulkan, .gl)
#   default  bench/default_gpu.sh: the device list, the default decoder and mix
#            against the pinned ones (.device/pairs [.device/vulkan, .gl])
#   target   bench/target/target_bench.sh with the carried psnrhvs, ffmpeg and
#            vmaf (.device/target/ffmpeg.tar.xz: .device/ffmpeg from
#            CLIPS=0 FFMPEG_CLI=1 VMAF=... bench/ffmpeg_carry.sh, packed with
#            tar cJf .device/target/ffmpeg.tar.xz -C .device ffmpeg)
# .gl holds Debian's libvulkan1 and libglvnd packages: NVIDIA's Vulkan ICD
# needs libglvnd, which the machine lacks; they are unpacked under /tmp and
# put on LD_LIBRARY_PATH, nothing is written to the system.
# SPDX-License-Identifier: BSD-2-Clause
set -u
OUT=${1:?usage: bench/h200.sh OUT PART...}
shift
ROOT=$(pwd)
DEADLINE=${DEADLINE:-570}
T0=$(date +%s)
mkdir -p "$OUT"
if [ -d "$ROOT/.gl" ] && ls "$ROOT"/.gl/*.deb >/dev/null 2>&1; then
    G=/tmp/h200-gl
    rm -rf $G && mkdir -p $G
    for d in "$ROOT"/.gl/*.deb; do dpkg -x "$d" $G; done
    export LD_LIBRARY_PATH=$G/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
for part in "$@"; do
    left=$((DEADLINE - ($(date +%s) - T0)))
    [ $left -gt 20 ] || { echo "== $part: skipped, no time left"; continue; }
    case $part in
    main) cmd=(bash bench/gpu.sh "$OUT/main") ;;
    mix) cmd=(env DEADLINE=$((left - 10)) bash bench/mix_gpu.sh "$OUT/mix") ;;
    vulkan) cmd=(bash bench/vulkan_gpu.sh "$OUT/vulkan") ;;
    vs) cmd=(bash bench/vapoursynth/vs_gpu.sh "$OUT/vs") ;;
    devices) cmd=(env PARTS=devices bash bench/default_gpu.sh "$OUT/devices") ;;
    default) cmd=(env DEADLINE=$((left - 15)) bash bench/default_gpu.sh "$OUT/default") ;;
    target)
        mkdir -p "$OUT/target" && rm -rf /tmp/target_ffmpeg && mkdir -p /tmp/target_ffmpeg &&
            tar xJf "$ROOT/.device/target/ffmpeg.tar.xz" -C /tmp/target_ffmpeg
        C=/tmp/target_ffmpeg/ffmpeg
        cmd=(env PSNRHVS="$C/psnrhvs" FFMPEG="$C/ffmpeg" VMAF="$C/bin/vmaf" W=/tmp/tbench
            bash -c 'bash bench/target/target_bench.sh | tee -a "$0"' "$OUT/target/summary.txt") ;;
    *) echo "== $part: unknown part" && continue ;;
    esac
    echo "== $part ($(date +%T), $left s left)"
    # stdout stays here (files back are few): its summary.txt says it all
    timeout -k 5 $((left - 5)) "${cmd[@]}" >"/tmp/h200-$part.log" 2>&1
    echo "== $part rc=$? in $(($(date +%s) - T0)) s"
    tail -5 "/tmp/h200-$part.log"
done
