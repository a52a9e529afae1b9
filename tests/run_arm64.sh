#!/bin/sh
# The AArch64 tree of CI: the library, the CLI and the tests cross-built with
# Debian's aarch64-linux-gnu GCC (cmake/toolchains/aarch64-linux-gnu.cmake)
# and run under qemu-aarch64 (user mode, the cross C library as sysroot), in
# <dir>. No device backends, no FFmpeg. What runs there:
#   checkasm        every NEON function against its C version (run directly:
#                   each function of the DSP context must be checked as neon)
#   golden          every raw golden and stress pair through the library: the
#                   scalar reference and auto (NEON) at 1-3 threads
#                   (golden_lib_*), --isa neon with frames in flight
#                   (golden_isa_neon_*), the C kernels, the exact-sum engine
#                   on the NEON lane kernel (golden_isa_sum_engine_auto_*)
#   cli             golden pairs (raw and Y4M), formats, parity (cpu:neon
#                   against cpu:scalar), errors (vmaf's ARM --cpumask bit)
#   isa_select, unit_*, api_*, numerics_no_fused_multiply_add (no fmla,
#                   fmadd, ... in the library's objects: objdump)
#   mutations       a second tree with one NEON lane broken on purpose
#                   (PSNRHVS_NEON_MUTATION 1-3: a division's lane one ulp off,
#                   an integer product's lane off by one, a tie rounded up in
#                   one lane of the sum kernel): checkasm must fail each time
# usage: tests/run_arm64.sh <dir>     (JOBS: parallel jobs)
# SPDX-License-Identifier: BSD-2-Clause
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
sysroot=/usr/aarch64-linux-gnu
start=$(date +%s)
common="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=$root/cmake/toolchains/aarch64-linux-gnu.cmake
 -DPSNRHVS_CUDA=OFF -DPSNRHVS_HIP=OFF -DPSNRHVS_SYCL=OFF -DPSNRHVS_OPENCL=OFF -DPSNRHVS_FFMPEG=OFF"

for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
    command -v $tool >/dev/null || { echo "arm64: $tool not found (./build.sh installs it)"; exit 1; }
done

configure_build() { # <tree> <target or ""> <cmake args...>
    tree=$1 target=$2
    shift 2
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$tree" $common "$@" >"$tree.configure.log" 2>&1 ||
        { cat "$tree.configure.log"; exit 1; }
    cmake --build "$tree" -j "$jobs" ${target:+--target "$target"} >"$tree.build.log" 2>&1 ||
        { tail -40 "$tree.build.log"; exit 1; }
}

mkdir -p "$dir"
echo "== arm64: build (cross, aarch64-linux-gnu)"
configure_build "$dir" ""
echo "   $(($(date +%s) - start)) s"

echo "== arm64: checkasm under qemu-aarch64"
checkasm="qemu-aarch64 -L $sysroot $dir/tests/checkasm/checkasm"
$checkasm >"$dir/checkasm.log" 2>&1 || { cat "$dir/checkasm.log"; exit 1; }
grep -E "neon|checked" "$dir/checkasm.log"
for f in $($checkasm --list-functions); do
    grep -Eq "^  $f +neon +ok" "$dir/checkasm.log" ||
        { echo "arm64: checkasm did not check $f as neon"; exit 1; }
done

echo "== arm64: tests under qemu-aarch64"
tests="isa_select|numerics_no_fused_multiply_add|unit_.*|api_.*|golden_lib_.*|golden_isa_neon_.*"
tests="$tests|golden_isa_c_t1_f1|golden_isa_sum_engine_auto_t1_f1|golden_isa_sum_engine_auto_t3_f5"
tests="$tests|golden_isa_skips_.*|cli_(golden|y4m|formats|parity|errors)"
ctest --test-dir "$dir" -j "$jobs" --output-on-failure -R "^($tests)\$" >"$dir/ctest.log" 2>&1 ||
    { grep -vE "^ +Start|Passed" "$dir/ctest.log"; exit 1; }
grep -E "tests passed|tests failed|Total Test time" "$dir/ctest.log"
echo "   $(($(date +%s) - start)) s"

echo "== arm64: mutations (one NEON lane broken; checkasm must fail)"
mutant=$dir/mutant
for m in 1 2 3; do
    configure_build "$mutant" checkasm -DPSNRHVS_NEON_MUTATION=$m
    test=row_terms
    [ $m = 3 ] && test=sum_lanes
    rc=0
    qemu-aarch64 -L $sysroot "$mutant/tests/checkasm/checkasm" --test=$test \
        >"$mutant.$m.log" 2>&1 || rc=$?
    failed=$(grep -cE "^  [a-z0-9_]+ +neon +FAILED" "$mutant.$m.log" || true)
    if [ $rc -ne 1 ] || [ "$failed" -eq 0 ]; then
        echo "arm64: mutation $m went unseen by checkasm (exit $rc)"
        cat "$mutant.$m.log"
        exit 1
    fi
    echo "   mutation $m: caught, $failed function(s) FAILED: $(grep -m1 -E 'mismatch|lane' "$mutant.$m.log" | sed 's/^ *//' | cut -c1-100)"
done
echo "== arm64: done in $(($(date +%s) - start)) s"
