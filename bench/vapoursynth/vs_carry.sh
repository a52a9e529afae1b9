#!/usr/bin/env bash
# Packs the VapourSynth core for the GPU machine, which has no VapourSynth and
# no network: the libvapoursynth.so that cmake/vapoursynth/build-vs.sh built
# here and the libzimg it links (Debian's), 2.5 MB in all. The plugin, its
# test source and vs_bench are built there (bench/vapoursynth/vs_gpu.sh),
# against the vendored header; Python is not needed.
#
#   bench/vapoursynth/vs_carry.sh [OUT_DIR]   (default .device/vs, ignored by git)
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.device/vs}
prefix=$(cmake/vapoursynth/build-vs.sh --print-prefix)
cmake/vapoursynth/build-vs.sh --check ||
    { echo "vs_carry.sh: no VapourSynth in $prefix: run cmake/vapoursynth/build-vs.sh" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/lib"
cp "$prefix/lib/libvapoursynth.so" "$out/lib/"
zimg=$(ldd "$prefix/lib/libvapoursynth.so" | awk '$1 ~ /^libzimg/ {print $3}')
cp -L "$zimg" "$out/lib/$(basename "$zimg")"
du -sh "$out"
