#!/usr/bin/env bash
# Prepares what bench/default_gpu.sh needs on the GPU machine (no FFmpeg, no
# network there) in OUT_DIR (default .device/pairs, ignored by git):
#  - ffmpeg.tar.xz: Debian's FFmpeg libraries and headers as bench/ffmpeg_carry.sh
#    packs them (7.6 MB compressed), to build the tree there against them;
#  - 3840x2160 clips of FRAMES (600) frames at 30 fps with a keyframe every
#    2 s (x264/x265: -g 60, no scene cuts), a grainy test pattern: references
#    at REF_RATE, encodes at DIST_RATE (kbit/s):
#      hevc8_ref.mkv, hevc8_dist.mp4     HEVC 8-bit (x265 open GOPs: CRA + RASL)
#      hevc10_ref.mkv, hevc10_dist.mkv   HEVC 10-bit (P010 on NVDEC)
#      h264_ref.mkv, h264_dist.mp4       H.264 High, B-frames, closed GOPs
# What travels to the GPU machine (the working tree, tracked and untracked
# files, and the carried folder) must stay within 64 MiB: the total is
# checked at the end, and the bitrates are chosen for it.
#
#   bench/pairs_carry.sh [BUILD_DIR [OUT_DIR]]  (BUILD_DIR: a build with FFmpeg, default build)
#   then there: bash bench/default_gpu.sh "$OUT"  (device tool: carry [".device/pairs"])
# Encoding takes about 10 minutes on 2 cores. SIZE=640x360 FRAMES=120 makes a
# quick set for trying the GPU script on the CPU machine.
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-.device/pairs}
SIZE=${SIZE:-3840x2160}
FRAMES=${FRAMES:-600}
REF_RATE=${REF_RATE:-2200}
DIST_RATE=${DIST_RATE:-1400}
command -v ffmpeg >/dev/null || { echo "pairs_carry.sh: needs the ffmpeg CLI" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d /tmp/pairs_carry.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# FFmpeg's libraries, without the CLI of this build (the tree is built there).
FFMPEG_CARRY_SKIP='^libpsnrhvs' CLIPS=0 bench/ffmpeg_carry.sh "$build" "$tmp/ffmpeg" >/dev/null
rm -rf "$tmp/ffmpeg/bin" "$tmp/ffmpeg/psnrhvs"
tar cJf "$out/ffmpeg.tar.xz" -C "$tmp" ffmpeg

src="testsrc2=size=$SIZE:rate=30,noise=alls=3:allf=t"
enc() {
    local name=$1
    shift
    [ -s "$out/$name" ] && [ "${REDO:-0}" != 1 ] && return 0
    echo "pairs_carry.sh: $name" >&2
    ffmpeg -hide_banner -v error -nostdin -y -f lavfi -i "$src" -frames:v "$FRAMES" "$@" \
        "$tmp/$name"
    mv "$tmp/$name" "$out/$name"
}
x265() {
    local rate=$1
    shift
    echo -c:v libx265 -preset ultrafast -b:v "${rate}k" "$@" -x265-params \
        log-level=none:keyint=60:min-keyint=60:scenecut=0:open-gop=1
}
x264() {
    echo -c:v libx264 -preset superfast -bf 3 -g 60 -keyint_min 60 -sc_threshold 0 -b:v "${1}k"
}
# shellcheck disable=SC2046
{
    enc hevc8_ref.mkv $(x265 "$REF_RATE")
    enc hevc8_dist.mp4 $(x265 "$DIST_RATE")
    enc hevc10_ref.mkv $(x265 "$REF_RATE" -pix_fmt yuv420p10le)
    enc hevc10_dist.mkv $(x265 "$DIST_RATE" -pix_fmt yuv420p10le)
    enc h264_ref.mkv $(x264 "$REF_RATE")
    enc h264_dist.mp4 $(x264 "$DIST_RATE")
}

# Everything that travels: tracked and untracked files the tree keeps, and this folder.
tree=$(git ls-files -z -co --exclude-standard | xargs -0 stat -c %s 2>/dev/null |
    awk '{s += $1} END {print s + 0}')
carried=$(du -sb "$out" | cut -f1)
total=$((tree + carried))
ls -l "$out"
echo "carried: $carried bytes in $out; with the working tree ($tree): $total of 67108864"
[ "$total" -le 67108864 ] || { echo "pairs_carry.sh: over 64 MiB: lower REF_RATE/DIST_RATE" >&2; exit 1; }
