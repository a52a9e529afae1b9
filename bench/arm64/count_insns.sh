#!/bin/sh
# Guest instructions for one frame per CPU path, counted under QEMU user mode
# with a plugin (insn_plugin.c, built here with the host compiler): the
# scalar reference, the C kernels and the SIMD kernels, one thread, on one
# generated 4:2:0 frame per bit depth. Under emulation time says nothing
# about an ARM core, so instructions are what is compared; they are not a
# speed ratio either (a vector division is not a scalar add).
#   bench/arm64/count_insns.sh BUILD_DIR [WIDTHxHEIGHT] [BITS...]
# BUILD_DIR: a built tree with bench/arm64/insn_frame: an AArch64 one
# (cmake/toolchains/aarch64-linux-gnu.cmake; paths scalar, c, neon), or an
# x86-64 one for comparison (qemu-x86_64 -cpu max; paths scalar, c, avx2:
# QEMU 7.2 emulates AVX2 but not AVX-512). Defaults: 1920x1080, 8 and 10.
# SPDX-License-Identifier: BSD-2-Clause
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: $0 BUILD_DIR [WxH] [BITS...]}" && pwd)
shift
size=${1:-1920x1080}
[ $# -gt 0 ] && shift
bits=${*:-8 10}
w=${size%x*}
h=${size#*x}
prog=$build/bench/arm64/insn_frame
plugin=$build/bench/arm64/insn_plugin.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$prog" ] || { echo "no $prog: build the tree first" >&2; exit 1; }
case $(readelf -h "$prog" | sed -n 's/^ *Machine: *//p') in
AArch64)
    emulate="${QEMU:-qemu-aarch64} -L ${PSNRHVS_CROSS_SYSROOT:-/usr/aarch64-linux-gnu}"
    paths="scalar c neon" ;;
*X86-64*)
    emulate="${QEMU:-qemu-x86_64} -cpu max"
    paths="scalar c avx2" ;;
*)
    echo "$prog: not an AArch64 or x86-64 program" >&2
    exit 1 ;;
esac
${CC_HOST:-cc} -O2 -Wall -shared -fPIC -o "$plugin" "$here/insn_plugin.c"
echo "qemu: $(${emulate%% *} --version | head -1)"
echo "compiler: $(grep -m1 '^CMAKE_C_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2)" \
     "($(grep -m1 '^CMAKE_BUILD_TYPE:' "$build/CMakeCache.txt" | cut -d= -f2))"
printf '%-9s %4s  %-7s %15s  %s\n' size bits path instructions "C kernels / path"
status=0
for b in $bits; do
    raw_first=""
    for path in $paths; do
        $emulate -plugin "$plugin" -d plugin -D "$work/log" "$prog" "$path" "$w" "$h" "$b" \
            >"$work/out"
        n=$(awk '$1 == "insns" { print $3 }' "$work/log")
        [ -n "$n" ] || { echo "$path: no count in the plugin's log" >&2; exit 1; }
        raw=$(sed 's/.*raw //' "$work/out")
        [ -z "$raw_first" ] && raw_first=$raw
        if [ "$raw" != "$raw_first" ]; then
            echo "$path: scores $raw differ from the scalar reference's $raw_first" >&2
            status=1
        fi
        echo "$path $n" >>"$work/counts.$b"
    done
    c_count=$(awk '$1 == "c" { print $2 }' "$work/counts.$b")
    while read -r path n; do
        printf '%-9s %4s  %-7s %15s  %.2fx\n' "$size" "$b" "$path" "$n" \
            "$(awk -v a="$c_count" -v b="$n" 'BEGIN { print a / b }')"
    done <"$work/counts.$b"
    echo "  scores (every path): raw $raw_first"
done
exit $status
