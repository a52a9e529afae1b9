#!/usr/bin/env bash
# Packs what bench/sycl_gpu.sh runs on the GPU machine, built here for
# 'omp;cuda:sm_90' (the cuda variant of AdaptiveCpp), with the minimal
# AdaptiveCpp runtime and the shared libraries that machine may lack, into
# one folder that runs there as is:
#
#   tests/sycl/pack-gpu.sh BUILD_DIR [OUT_DIR]     (OUT_DIR default .device/sycl,
#                                                    ignored by git)
#   then, on the GPU machine:  OUT_DIR/run.sh PROGRAM [args]
#
# Programs: psnrhvs (the CLI as installed, inst/: cpu, cuda, opencl, hip,
# sycl and vulkan backends, the modules in inst/lib/psnrhvs),
# sycl_bench (bench/sycl), cuda_bench (tests/cuda, when the CUDA backend is
# built) and sycl_core_exact (the toolchain experiment of tests/sycl).
# Nothing of AdaptiveCpp's compiler goes along: no acpp, clang or LLVM. The
# runtime finds its backends in lib/hipSYCL next to lib/libacpp-rt.so, and the
# CUDA driver (libcuda.so.1) is the machine's own.
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
build=${1:?usage: pack-gpu.sh BUILD_DIR [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../../.device/sycl}
progs=("$build/tools/psnrhvs" "$build/bench/sycl/sycl_bench" "$build/tests/sycl/sycl_core_exact")
[ -x "$build/tests/cuda/cuda_bench" ] && progs+=("$build/tests/cuda/cuda_bench")
for p in "${progs[@]}"; do
    [ -x "$p" ] || { echo "pack-gpu.sh: no $p (build it first)" >&2; exit 1; }
done

# The CLI links the library; the SYCL backend is its module (lib/psnrhvs,
# with the AdaptiveCpp runtime the build put beside it).
core=$(ldd "$build/tools/psnrhvs" | awk '/libpsnrhvs\.so/ {print $3}')
[ -n "$core" ] || { echo "pack-gpu.sh: psnrhvs does not link libpsnrhvs.so" >&2; exit 1; }
mods=$(dirname "$core")/psnrhvs
[ -f "$mods/backend-sycl.so" ] || { echo "pack-gpu.sh: no $mods/backend-sycl.so (no SYCL backend?)" >&2; exit 1; }
acpp_rt=$(ldd "$build/tests/sycl/sycl_core_exact" | awk '/libacpp-rt\.so/ {print $3}')
[ -n "$acpp_rt" ] || { echo "pack-gpu.sh: sycl_core_exact does not link libacpp-rt.so" >&2; exit 1; }
acpp_lib=$(dirname "$acpp_rt")
[ -f "$acpp_lib/hipSYCL/librt-backend-cuda.so" ] ||
    echo "pack-gpu.sh: warning: $acpp_lib has no CUDA backend (cpu variant?)" >&2

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/hipSYCL"
cp "${progs[@]:1}" "$out/bin/"
# The CLI as installed (bin/, lib/, lib/psnrhvs/ with the backend modules):
# what runs there is the installed tree, RUNPATH $ORIGIN/../lib.
cmake --install "$build" --prefix "$out/inst" >/dev/null
rm -f "$out/inst/lib/libpsnrhvs.a"
cp "$acpp_lib/libacpp-rt.so" "$acpp_lib/libacpp-common.so" "$out/lib/"
cp "$acpp_lib"/hipSYCL/librt-backend-*.so "$out/lib/hipSYCL/"
# Debian 12's Boost 1.74, LLVM 16's OpenMP runtime and CUDA's runtime, which
# the GPU machine's image may not have at these versions.
for f in "${progs[@]}" "$mods"/*.so "$acpp_lib"/hipSYCL/librt-backend-*.so; do
    ldd "$f" | awk '/libboost_(context|fiber)|libomp\.so|libcudart\.so/ {print $3}'
done | sort -u | while read -r lib; do
    [ -f "$lib" ] && cp -L "$lib" "$out/lib/"
done
# A CLI built with FFmpeg: Debian's FFmpeg libraries too (that machine has
# none), as bench/ffmpeg_carry.sh packs them, less what is packed above, and
# its 3840x2160 clips.
if ldd "$build/tools/psnrhvs" | grep libavcodec >/dev/null; then
    ff=$(mktemp -d /tmp/pack-gpu-ffmpeg.XXXXXX)
    FFMPEG_CARRY_SKIP='^(libpsnrhvs|libacpp|libomp|libboost|libcudart|libstdc\+\+|libgcc_s)' \
        "$here/../../bench/ffmpeg_carry.sh" "$build" "$ff/out" >/dev/null
    cp -a "$ff/out/lib/." "$out/lib/"
    # Its wrapper (NVDEC's driver library on the path) and clips: the folder
    # serves bench/hwaccel_gpu.sh as well, within one call's carry.
    sed 's|"$d/bin/psnrhvs"|"$d/inst/bin/psnrhvs"|' "$ff/out/psnrhvs" >"$out/psnrhvs"
    chmod +x "$out/psnrhvs"
    # FFmpeg's headers: with lib/, a build there finds FFmpeg (-DPSNRHVS_FFMPEG_ROOT=OUT_DIR).
    cp -a "$ff/out/include" "$out/"
    [ -d "$ff/out/clips" ] && cp -a "$ff/out/clips" "$out/"
    rm -rf "$ff"
fi
cat >"$out/run.sh" <<'EOF'
#!/bin/sh
# Runs one of bin/ with the runtime carried beside it: run.sh PROGRAM [args]
d=$(cd "$(dirname "$0")" && pwd)
p=${1:?usage: run.sh psnrhvs|sycl_bench|cuda_bench|sycl_core_exact [args]}
shift
b=$d/bin/$p
[ "$p" = psnrhvs ] && b=$d/inst/bin/psnrhvs
LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$b" "$@"
EOF
chmod +x "$out/run.sh"
echo "commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$here" diff --quiet HEAD 2>/dev/null || echo ' (with local changes)'), packed $(date -u +%Y-%m-%dT%H:%MZ)" >"$out/COMMIT"
(cd "$out" && find . -type f | sort | xargs ls -l | awk '{printf "%9d  %s\n", $5, $9}')
echo "total: $(du -sb "$out" | cut -f1) bytes in $out"
