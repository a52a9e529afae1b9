#!/bin/sh
# The CLI and the library start without the Vulkan loader: neither links
# libvulkan, and with the loader hidden (an empty file bound over it in a
# private mount namespace; nothing outside the namespace changes) the CPU
# backend scores and --backend vulkan says why it cannot.
# usage: no_loader.sh <psnrhvs CLI> <libpsnrhvs.so> <tests/data> <scratch dir>
# SPDX-License-Identifier: BSD-2-Clause
set -u
cli=$1 lib=$2 data=$3 tmp=$4
fail() { echo "FAIL: $*"; exit 1; }

for f in "$cli" "$lib"; do
    if readelf -d "$f" | grep -q 'NEEDED.*libvulkan'; then
        fail "$f links libvulkan: $(readelf -d "$f" | grep NEEDED | tr -s ' ')"
    fi
done
echo "no libvulkan among the NEEDED entries of the CLI and the library"

mkdir -p "$tmp" && : >"$tmp/empty"
cat >"$tmp/run.sh" <<EOS
set -u
# the system's loader, and any on LD_LIBRARY_PATH (a carried one, bench/vulkan_gpu.sh)
for f in \$(ldconfig -p | awk '/libvulkan\.so/ {print \$NF}' | sort -u) \
    \$(echo "\${LD_LIBRARY_PATH:-}" | tr ':' '\\n' | while read -r d; do ls "\$d"/libvulkan.so* 2>/dev/null; done); do
    mount --bind "$tmp/empty" "\$f" || exit 3
done
"$cli" -r "$data/yuv420p_176x144_ref.y4m" -d "$data/yuv420p_176x144_dist.y4m" --backend cpu \
    >"$tmp/cpu.out" 2>&1 || { echo "cpu backend failed:"; cat "$tmp/cpu.out"; exit 1; }
"$cli" -r "$data/yuv420p_176x144_ref.y4m" -d "$data/yuv420p_176x144_dist.y4m" --backend vulkan \
    >"$tmp/vulkan.out" 2>&1 && { echo "vulkan ran without a loader?"; exit 1; }
grep -q "no Vulkan loader" "$tmp/vulkan.out" || { echo "no reason given:"; cat "$tmp/vulkan.out"; exit 1; }
"$cli" --list-devices >"$tmp/list.out" 2>&1 || { echo "--list-devices failed:"; cat "$tmp/list.out"; exit 1; }
grep -q "^vulkan: no device" "$tmp/list.out" || { echo "--list-devices:"; cat "$tmp/list.out"; exit 1; }
exit 0
EOS
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    unshare -m sh "$tmp/run.sh"
elif unshare -rm true 2>/dev/null; then
    unshare -rm sh "$tmp/run.sh"
else
    echo "SKIP: no private mount namespace here (unshare -m) to hide the loader in"
    exit 77
fi
rc=$?
[ $rc = 3 ] && { echo "SKIP: cannot bind-mount in the namespace"; exit 77; }
[ $rc = 0 ] || fail "see above"
echo "with the loader hidden: --backend cpu scores, --backend vulkan: $(head -1 "$tmp/vulkan.out")"
