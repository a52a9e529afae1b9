#!/usr/bin/env bash
# Packs sycl_core_exact, built here for 'omp;cuda:sm_90' (the cuda variant of
# AdaptiveCpp), with the minimal AdaptiveCpp runtime and the shared libraries
# a GPU machine may lack, into one folder that runs there as is:
#
#   tests/sycl/pack-gpu.sh BUILD_DIR [OUT_DIR]     (OUT_DIR default .device/sycl,
#                                                    ignored by git)
#   then, on the GPU machine:  OUT_DIR/run.sh [--require-gpu] [sycl_core_exact args]
#
# Nothing of AdaptiveCpp's compiler goes along: no acpp, clang or LLVM. The
# runtime finds its backends in lib/hipSYCL next to lib/libacpp-rt.so, and the
# CUDA driver (libcuda.so.1) is the machine's own.
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
build=${1:?usage: pack-gpu.sh BUILD_DIR [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../../.device/sycl}
bin=$build/sycl_core_exact
[ -x "$bin" ] || { echo "pack-gpu.sh: no $bin" >&2; exit 1; }

# The AdaptiveCpp install the binary was linked against.
acpp_rt=$(ldd "$bin" | awk '/libacpp-rt\.so/ {print $3}')
[ -n "$acpp_rt" ] || { echo "pack-gpu.sh: $bin does not link libacpp-rt.so" >&2; exit 1; }
acpp_lib=$(dirname "$acpp_rt")
[ -f "$acpp_lib/hipSYCL/librt-backend-cuda.so" ] ||
    echo "pack-gpu.sh: warning: $acpp_lib has no CUDA backend (cpu variant?)" >&2

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/hipSYCL"
cp "$bin" "$out/bin/"
cp "$acpp_lib/libacpp-rt.so" "$acpp_lib/libacpp-common.so" "$out/lib/"
cp "$acpp_lib"/hipSYCL/librt-backend-*.so "$out/lib/hipSYCL/"
# Debian 12's Boost 1.74, LLVM 16's OpenMP runtime and CUDA's runtime, which
# the GPU machine's image may not have at these versions.
for f in "$bin" "$acpp_lib"/hipSYCL/librt-backend-*.so; do
    ldd "$f" | awk '/libboost_(context|fiber)|libomp\.so|libcudart\.so/ {print $3}'
done | sort -u | while read -r lib; do
    [ -f "$lib" ] && cp -L "$lib" "$out/lib/"
done
cat >"$out/run.sh" <<'EOF'
#!/bin/sh
# Runs sycl_core_exact with the runtime carried beside it.
d=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/bin/sycl_core_exact" "$@"
EOF
chmod +x "$out/run.sh"
(cd "$out" && find . -type f | sort | xargs ls -l | awk '{printf "%9d  %s\n", $5, $9}')
echo "total: $(du -sb "$out" | cut -f1) bytes in $out"
