#!/bin/sh
# The CLI with --backend vulkan writes the CPU backend's bytes (JSON with raw
# f32 scores, XML, and the summary on stdout: nothing of the Vulkan driver gets
# there), but for the speed (fps) and the summary's engine name; and
# --list-devices has a vulkan section listing device 0.
# usage: cli_output.sh PSNRHVS DATA_DIR OUT_DIR
# SPDX-License-Identifier: BSD-2-Clause
set -eu
cli=$1 data=$2 out=$3
mkdir -p "$out"
args="-r $data/yuv420p10_176x144_ref.y4m -d $data/yuv420p10_176x144_dist.y4m"
for b in cpu vulkan; do
    # shellcheck disable=SC2086
    "$cli" $args --backend $b --json --precision max --raw -o - >"$out/$b.json"
    # shellcheck disable=SC2086
    "$cli" $args --backend $b -o "$out/$b.xml"
    # shellcheck disable=SC2086
    "$cli" $args --backend $b >"$out/$b.txt"
done
for f in json xml txt; do
    for b in cpu vulkan; do
        grep -v -e fps -e '^[0-9]* frames, ' "$out/$b.$f" >"$out/$b.$f.cmp"
    done
    cmp "$out/cpu.$f.cmp" "$out/vulkan.$f.cmp" || { echo "FAIL: --backend vulkan $f differs from cpu"; exit 1; }
done
"$cli" --list-devices >"$out/devices.txt"
grep -A1 '^vulkan:$' "$out/devices.txt" | grep -q '^  0: ' ||
    { echo "FAIL: no vulkan device 0 in --list-devices:"; cat "$out/devices.txt"; exit 1; }
# A device index past the end: one line on stderr, exit 1.
# shellcheck disable=SC2086
if "$cli" $args --backend vulkan --device 999 >"$out/nodev.txt" 2>&1; then
    echo "FAIL: --device 999 succeeded"
    exit 1
fi
grep -q "device 999" "$out/nodev.txt" || { echo "FAIL: --device 999 said:"; cat "$out/nodev.txt"; exit 1; }
cat "$out/devices.txt"
echo "OK: the same bytes as --backend cpu (json, xml, summary)"
