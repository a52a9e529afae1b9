#!/usr/bin/env bash
# psnrhvs: one entry point for a fresh Debian 12 machine.
#   ./build.sh sample   install what is missing, build, score the sample pair
#   ./build.sh test     install what is missing, build, run every test, then the
#                       AArch64 cross tree under QEMU (PSNRHVS_ARM64=0: not), and
#                       again under ASan+UBSan and TSan, and libFuzzer (PSNRHVS_SANITIZERS=0: not)
#   ./build.sh build    install what is missing, build
# BUILD_DIR (default ./build) and CMAKE_ARGS may be set in the environment.
set -euo pipefail
cd "$(dirname "$0")"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian packages the build and the tests use. The OpenCL backend is tested
# for real on the CPU through PoCL; nvcc, where installed, builds CUDA.
PACKAGES="cmake ninja-build gcc g++ python3 pkg-config ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo"
# HIP: hipcc builds the AMD kernels (no AMD GPU needed), clang-tools-15 and
# llvm-15 read their code objects back for the resource check.
PACKAGES="$PACKAGES hipcc libamdhip64-dev clang-tools-15 llvm-15"
# Vulkan: headers (the loader is opened at run time), the GLSL compiler and
# SPIR-V tools for the kernels and their checks, and Mesa's lavapipe, a CPU
# Vulkan device the tests run on.
PACKAGES="$PACKAGES libvulkan-dev glslang-tools spirv-tools mesa-vulkan-drivers"
# clang and its libFuzzer runtime for the fuzz targets.
PACKAGES="$PACKAGES clang libclang-rt-14-dev"
# FFmpeg's libraries for compressed input in the CLI, and its CLI for the tests.
PACKAGES="$PACKAGES libavformat-dev libavcodec-dev libavutil-dev libswscale-dev ffmpeg"
# The Python package's tests (numpy, pytest) and its Dask runner.
PACKAGES="$PACKAGES python3-numpy python3-pytest python3-dask python3-distributed python3-pandas"
# VapourSynth (built from third_party/vapoursynth by cmake/vapoursynth/build-vs.sh)
# for the plugin's tests; SciPy is the bdrate test's independent oracle.
PACKAGES="$PACKAGES autoconf automake libtool libzimg-dev cython3 python3-dev python3-scipy"
# pip installs python/ (setup.py bundles the C build) into a venv in its test.
PACKAGES="$PACKAGES python3-venv python3-pip python3-wheel python3-setuptools"
# Headless Chromium renders the report page of `psnrhvs report` in its test.
PACKAGES="$PACKAGES chromium"
# The AArch64 cross tree (NEON kernels): GCC and C library for aarch64-linux-gnu,
# QEMU's user-mode emulator to run its tests (tests/run_arm64.sh). On an
# AArch64 host the main tree builds and tests the NEON kernels natively.
ARM64_CROSS=1
[ "$(uname -m)" = aarch64 ] && ARM64_CROSS=0
[ "$ARM64_CROSS" = 1 ] && PACKAGES="$PACKAGES gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"

install_missing() {
    local missing=()
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "build.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# AdaptiveCpp for the SYCL backend, built from third_party/adaptivecpp into
# ~/.cache/psnrhvs (outside the clone) once, about 2.5 minutes, and reused
# after (a matching stamp returns at once): the cuda variant (omp and
# cuda:sm_90 targets) where nvcc is found, else the cpu one (omp). Without it
# PSNRHVS_SYCL=AUTO leaves the backend out.
setup_acpp() {
    local variant=""
    if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then variant="--cuda"; fi
    cmake/acpp/build-acpp.sh $variant -j "$JOBS" >/dev/null ||
        { [ -n "$variant" ] && cmake/acpp/build-acpp.sh -j "$JOBS" >/dev/null; } ||
        echo "build.sh: AdaptiveCpp not built: the SYCL backend is left out" >&2
}

# VapourSynth R65 for the plugin's tests, built from third_party/vapoursynth
# into ~/.cache/psnrhvs once (about 100 s) and reused after; without it the
# vapoursynth_* tests skip. The plugin itself needs only the header.
setup_vapoursynth() {
    cmake/vapoursynth/build-vs.sh -j "$JOBS" >/dev/null ||
        echo "build.sh: VapourSynth not built: the plugin's tests will skip" >&2
}

build() {
    setup_acpp
    setup_vapoursynth
    # nvcc lives outside PATH in NVIDIA's default install.
    [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
    cmake --build "$BUILD_DIR" -j "$JOBS"
}

case "${1:-sample}" in
sample)
    install_missing
    build
    "$BUILD_DIR/tools/psnrhvs" -r tests/data/yuv420p_176x144_ref.y4m \
        -d tests/data/yuv420p_176x144_dist.y4m
    ;;
test)
    install_missing
    build
    # PoCL compiles kernels on first use; keep its cache inside the build.
    export POCL_CACHE_DIR="$(cd "$BUILD_DIR" && pwd)/pocl-cache"
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
    # What each libFuzzer target did (ctest shows only failures' output).
    grep -h "_libfuzzer: .* executions" "$BUILD_DIR/Testing/Temporary/LastTest.log" || true
    # The NEON kernels: an AArch64 tree cross-built and tested under
    # qemu-aarch64 (PSNRHVS_ARM64=0 skips it).
    if [ "${PSNRHVS_ARM64:-1}" != 0 ] && [ "$ARM64_CROSS" = 1 ]; then
        JOBS=$JOBS tests/run_arm64.sh "$BUILD_DIR/arm64"
    fi
    # Then the suite again under ASan+UBSan and TSan, and libFuzzer on the
    # public API, each in a tree of its own (PSNRHVS_SANITIZERS=0 skips them).
    if [ "${PSNRHVS_SANITIZERS:-1}" != 0 ]; then
        JOBS=$JOBS tests/run_sanitizers.sh "$BUILD_DIR/sanitizers"
    fi
    ;;
build)
    install_missing
    build
    ;;
*)
    echo "usage: $0 [sample|test|build]" >&2
    exit 2
    ;;
esac
