#!/bin/sh
# The CLI and the library start without an OpenCL ICD loader: neither links
# libOpenCL, and with the loader hidden (an empty file bound over it in a
# private mount namespace; nothing outside the namespace changes) the CPU
# backend scores and --backend opencl says why it cannot.
# usage: no_loader.sh <psnrhvs CLI> <libpsnrhvs.so> <tests/data> <scratch dir>
# SPDX-License-Identifier: BSD-2-Clause
set -u
cli=$1 lib=$2 data=$3 tmp=$4
fail() { echo "FAIL: $*"; exit 1; }

for f in "$cli" "$lib"; do
    if readelf -d "$f" | grep -q 'NEEDED.*libOpenCL'; then
        fail "$f links libOpenCL: $(readelf -d "$f" | grep NEEDED | tr -s ' ')"
    fi
done
echo "no libOpenCL among the NEEDED entries of the CLI and the library"

mkdir -p "$tmp" && : >"$tmp/empty"
cat >"$tmp/run.sh" <<EOS
set -u
for f in \$(ldconfig -p | awk '/libOpenCL\.so/ {print \$NF}' | sort -u); do
    mount --bind "$tmp/empty" "\$f" || exit 3
done
"$cli" -r "$data/yuv420p_176x144_ref.y4m" -d "$data/yuv420p_176x144_dist.y4m" --backend cpu \
    >"$tmp/cpu.out" 2>&1 || { echo "cpu backend failed:"; cat "$tmp/cpu.out"; exit 1; }
"$cli" -r "$data/yuv420p_176x144_ref.y4m" -d "$data/yuv420p_176x144_dist.y4m" --backend opencl \
    >"$tmp/opencl.out" 2>&1 && { echo "opencl ran without a loader?"; exit 1; }
grep -q "ICD loader" "$tmp/opencl.out" || { echo "no reason given:"; cat "$tmp/opencl.out"; exit 1; }
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
echo "with the loader hidden: --backend cpu scores, --backend opencl: $(head -1 "$tmp/opencl.out")"
