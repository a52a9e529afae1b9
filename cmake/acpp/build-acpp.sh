#!/usr/bin/env bash
# Build AdaptiveCpp 24.06.0 (SYCL compiler and runtime) from the unmodified
# source tarball, offline, into a cache directory outside the clone; a second
# call with the same options finds the stamp and returns at once.
#
#   cmake/acpp/build-acpp.sh [--cuda] [--tarball PATH] [--prefix DIR] [-j N]
#
# Prints the install prefix on its last line of stdout (pass it to CMake as
# -DACPP_ROOT=..., or let cmake/Sycl.cmake find it in the cache by itself).
#
# Variants
#   cpu  (default): runtime + OpenMP CPU target (`--acpp-targets=omp`), minimal
#        compiler profile (no clang plugin, no libLLVM at run time). The CPU
#        kernels are compiled by clang++-16 in AdaptiveCpp's library-only mode.
#   cuda (--cuda):  the same plus the CUDA runtime backend and the clang plugin
#        (`--acpp-targets='omp;cuda:sm_90'`), against the CUDA toolkit at
#        --cuda-path (default $CUDA_PATH or /usr/local/cuda). With CUDA >= 13
#        it applies acpp-24.06-cuda13.patch (three runtime sources) and
#        installs the two compile-time workarounds that clang 16 needs with
#        CUDA 13 (see ../shared/deps/README.md), wired into the installed
#        acpp-cuda.json so that plain `acpp` works:
#          share/psnrhvs/cuda13-compat/include/texture_fetch_functions.h (empty)
#          share/psnrhvs/cuda13-compat/bin/fatbinary (--image= -> --image3=)
#
# Options
#   --cuda | --variant cpu|cuda
#   --tarball PATH   AdaptiveCpp-24.06.0.tar.xz (default: the copy in
#                    third_party/adaptivecpp; env ACPP_TARBALL)
#   --patch PATH     CUDA 13 patch (default: acpp-24.06-cuda13.patch next to
#                    the tarball; env ACPP_CUDA13_PATCH)
#   --cuda-path DIR  CUDA toolkit for the cuda variant
#   --prefix DIR     install here instead of the cache directory
#                    ${XDG_CACHE_HOME:-$HOME/.cache}/psnrhvs/acpp-24.06.0-<variant>
#   -j N             parallel build jobs (default $JOBS or 2)
#   --no-apt         never install Debian packages (fail if one is missing)
#   --force          rebuild even when the stamp matches
#   --check          exit 0 if the install is present and current, 1 if not
#   --print-prefix   print the prefix for these options and exit
#
# Nothing is downloaded: the OpenCL/SPIR-V and Level Zero parts (which fetch
# SPIRV-LLVM-Translator and OpenCL headers at configure time) are off, and
# FetchContent is disconnected. Debian packages that are missing are installed
# with apt-get (through sudo when not root).
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail

ACPP_VERSION=24.06.0
# Bump when the recipe changes in a way the options hash below cannot see.
RECIPE_REV=1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

variant=cpu
tarball=${ACPP_TARBALL:-}
patchfile=${ACPP_CUDA13_PATCH:-}
cuda_path=${CUDA_PATH:-/usr/local/cuda}
prefix=""
jobs=${JOBS:-2}
use_apt=1
force=0
mode=build

die() { echo "build-acpp.sh: $*" >&2; exit 1; }
say() { echo "build-acpp.sh: $*" >&2; }

while [ $# -gt 0 ]; do
    case "$1" in
    --cuda) variant=cuda ;;
    --variant) variant=${2:?}; shift ;;
    --variant=*) variant=${1#*=} ;;
    --tarball) tarball=${2:?}; shift ;;
    --tarball=*) tarball=${1#*=} ;;
    --patch) patchfile=${2:?}; shift ;;
    --patch=*) patchfile=${1#*=} ;;
    --cuda-path) cuda_path=${2:?}; shift ;;
    --cuda-path=*) cuda_path=${1#*=} ;;
    --prefix) prefix=${2:?}; shift ;;
    --prefix=*) prefix=${1#*=} ;;
    -j) jobs=${2:?}; shift ;;
    -j*) jobs=${1#-j} ;;
    --no-apt) use_apt=0 ;;
    --force) force=1 ;;
    --check) mode=check ;;
    --print-prefix) mode=print ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
case "$variant" in cpu | cuda) ;; *) die "--variant must be cpu or cuda" ;; esac

cache_root=${XDG_CACHE_HOME:-${HOME:?}/.cache}/psnrhvs
prefix=${prefix:-$cache_root/acpp-$ACPP_VERSION-$variant}
if [ "$mode" = print ]; then
    echo "$prefix"
    exit 0
fi

# The copy in the repository, so a clean clone needs nothing beside it.
tarball=${tarball:-$repo/third_party/adaptivecpp/AdaptiveCpp-$ACPP_VERSION.tar.xz}
[ -f "$tarball" ] || die "no AdaptiveCpp tarball at $tarball (give --tarball PATH)"
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

# --- what the build needs ---------------------------------------------------
CLANG=/usr/bin/clang++-16
CLANG_C=/usr/bin/clang-16
LLVM_DIR=/usr/lib/llvm-16/cmake
# Build tools, clang 16 (the compiler acpp drives), its OpenMP runtime and the
# Boost libraries of AdaptiveCpp's CPU backend (fibers for nd_range barriers).
PACKAGES="cmake ninja-build python3 xz-utils patch clang-16 libomp-16-dev libboost-context-dev libboost-fiber-dev"
cuda_major=0
if [ "$variant" = cuda ]; then
    # The clang plugin (integrated CUDA multipass) links LLVM and clang.
    PACKAGES="$PACKAGES llvm-16-dev libclang-16-dev libclang-cpp16-dev lld-16"
    [ -f "$cuda_path/include/cuda.h" ] || die "no CUDA toolkit at $cuda_path (give --cuda-path)"
    cuda_path=$(cd "$cuda_path" && pwd -P)
    cuda_version=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$cuda_path/include/cuda.h")
    cuda_major=$((cuda_version / 1000))
    if [ "$cuda_major" -ge 13 ]; then
        patchfile=${patchfile:-$(dirname "$tarball")/acpp-24.06-cuda13.patch}
        [ -f "$patchfile" ] || die "CUDA $cuda_major needs acpp-24.06-cuda13.patch (give --patch PATH)"
    else
        patchfile=""
    fi
fi

# Where `acpp` finds the CUDA 13 workarounds: $ACPP_PATH is substituted by the
# acpp driver with its own install root, so the install stays relocatable.
COMPAT_REL=share/psnrhvs/cuda13-compat
CUDA_CXX_FLAGS="-U__FLOAT128__ -U__SIZEOF_FLOAT128__ -isystem \$ACPP_PATH/include/AdaptiveCpp/hipSYCL/std/hiplike"
if [ "$cuda_major" -ge 13 ]; then
    CUDA_CXX_FLAGS="$CUDA_CXX_FLAGS -isystem \$ACPP_PATH/$COMPAT_REL/include -B\$ACPP_PATH/$COMPAT_REL/bin"
fi

CMAKE_ARGS=(
    -G Ninja
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_C_COMPILER=$CLANG_C
    -DCMAKE_CXX_COMPILER=$CLANG
    -DCLANG_EXECUTABLE_PATH=$CLANG
    -DLLVM_DIR=$LLVM_DIR
    -DACPP_COMPILER_FEATURE_PROFILE=minimal
    -DWITH_OPENCL_BACKEND=OFF
    -DWITH_LEVEL_ZERO_BACKEND=OFF
    -DWITH_ROCM_BACKEND=OFF
    -DDEFAULT_TARGETS=omp
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON
    # Never look for what is off: Debian's HIP packages (hipcc), where
    # installed, make AdaptiveCpp's configure fail, and the OpenCL parts would
    # download at configure time.
    -DCMAKE_DISABLE_FIND_PACKAGE_HIP=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON
)
if [ "$variant" = cuda ]; then
    CMAKE_ARGS+=(-DWITH_CUDA_BACKEND=ON "-DCUDA_TOOLKIT_ROOT_DIR=$cuda_path"
        "-DCUDA_CXX_FLAGS=$CUDA_CXX_FLAGS")
else
    CMAKE_ARGS+=(-DWITH_CUDA_BACKEND=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDA=ON)
fi

# The two CUDA 13 compile-time workarounds, installed into the prefix.
TEXTURE_H='/* Empty stand-in installed by psnrhvs cmake/acpp/build-acpp.sh: CUDA 13
 * removed texture_fetch_functions.h, which clang 16'"'"'s CUDA wrapper headers
 * still include. SYCL code uses no texture fetches. */
'
FATBINARY_SH='#!/bin/sh
# Installed by psnrhvs cmake/acpp/build-acpp.sh: clang 16 calls fatbinary with
# --image=profile=<sm_NN|compute_NN>,file=F, which CUDA 13 removed; translate it
# to --image3=kind=<elf|ptx>,sm=NN,file=F and run the real fatbinary. Found by
# clang through -B (see acpp-cuda.json, default-cuda-cxx-flags).
real="${ACPP_REAL_FATBINARY:-@CUDA_PATH@/bin/fatbinary}"
for a do
    shift
    case "$a" in
    --image=profile=*)
        rest=${a#--image=profile=}
        prof=${rest%%,*}
        file=${rest#*,file=}
        case "$prof" in
        sm_*) a="--image3=kind=elf,sm=${prof#sm_},file=$file" ;;
        compute_*) a="--image3=kind=ptx,sm=${prof#compute_},file=$file" ;;
        esac
        ;;
    --cuda) continue ;;
    esac
    set -- "$@" "$a"
done
exec "$real" "$@"
'
FATBINARY_SH=${FATBINARY_SH//@CUDA_PATH@/$cuda_path}

hash_inputs() {
    echo "AdaptiveCpp $ACPP_VERSION recipe $RECIPE_REV variant $variant"
    sha256sum <"$tarball" | cut -d' ' -f1
    [ -n "$patchfile" ] && sha256sum <"$patchfile" | cut -d' ' -f1
    printf '%s\n' "${CMAKE_ARGS[@]}"
    if [ "$cuda_major" -ge 13 ]; then
        printf '%s' "$TEXTURE_H" "$FATBINARY_SH"
    fi
}
options_hash=$(hash_inputs | sha256sum | cut -d' ' -f1)
stamp=$prefix/psnrhvs-acpp.stamp
stamp_head="AdaptiveCpp $ACPP_VERSION variant=$variant options=$options_hash"

is_current() {
    [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$stamp_head" ] && [ -x "$prefix/bin/acpp" ]
}

if [ "$mode" = check ]; then
    is_current && exit 0
    exit 1
fi
if [ "$force" = 0 ] && is_current; then
    say "AdaptiveCpp $ACPP_VERSION ($variant) is current in $prefix"
    echo "$prefix"
    exit 0
fi

mkdir -p "$(dirname "$prefix")"
# One build per prefix at a time (parallel CI jobs sharing a cache).
exec 9>"$prefix.lock"
flock 9
if [ "$force" = 0 ] && is_current; then
    say "AdaptiveCpp $ACPP_VERSION ($variant) was built meanwhile in $prefix"
    echo "$prefix"
    exit 0
fi

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
t_start=$(now)

# --- Debian packages, only the missing ones --------------------------------
missing=()
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$use_apt" = 1 ] || die "missing Debian packages: ${missing[*]} (--no-apt given)"
    say "installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    # Wait for another apt/dpkg run (a parallel job) rather than fail.
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends \
        "${missing[@]}" >/dev/null
fi
t_apt=$(now)

# --- configure, build, install ---------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/psnrhvs-acpp-build.XXXXXX")
log=$work/build.log
keep_work=1
cleanup() { [ "$keep_work" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT
fail() {
    say "failed: $*; last lines of $log:"
    tail -n 40 "$log" >&2 || true
    exit 1
}

say "building AdaptiveCpp $ACPP_VERSION ($variant) into $prefix, -j$jobs (log: $log)"
tar -xJf "$tarball" -C "$work"
src=$work/AdaptiveCpp-$ACPP_VERSION
[ -d "$src" ] || die "the tarball has no AdaptiveCpp-$ACPP_VERSION/ folder"
if [ -n "$patchfile" ]; then
    patch -d "$src" -p1 --batch --quiet <"$patchfile" >>"$log" 2>&1 || fail "applying $patchfile"
fi
# A stale or partial install (the stamp is written last) is replaced; a
# folder that is not ours is left alone.
if [ -e "$prefix" ] && [ ! -f "$stamp" ] && [ -n "$(ls -A "$prefix" 2>/dev/null)" ]; then
    die "$prefix exists and holds no psnrhvs-acpp.stamp: not deleting it"
fi
rm -rf "$prefix"
cmake -S "$src" -B "$work/build" -DCMAKE_INSTALL_PREFIX="$prefix" "${CMAKE_ARGS[@]}" \
    >>"$log" 2>&1 || fail "configure"
t_conf=$(now)
cmake --build "$work/build" -j "$jobs" >>"$log" 2>&1 || fail "build"
t_build=$(now)
cmake --install "$work/build" >>"$log" 2>&1 || fail "install"
if [ "$cuda_major" -ge 13 ]; then
    mkdir -p "$prefix/$COMPAT_REL/include" "$prefix/$COMPAT_REL/bin"
    printf '%s' "$TEXTURE_H" >"$prefix/$COMPAT_REL/include/texture_fetch_functions.h"
    printf '%s' "$FATBINARY_SH" >"$prefix/$COMPAT_REL/bin/fatbinary"
    chmod +x "$prefix/$COMPAT_REL/bin/fatbinary"
fi
mkdir -p "$prefix/share/psnrhvs"
cp "$log" "$prefix/share/psnrhvs/build-acpp.log"
t_end=$(now)

size=$(du -sm "$prefix" | cut -f1)
{
    echo "$stamp_head"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores, -j$jobs"
    echo "tarball: $tarball"
    [ -n "$patchfile" ] && echo "patch: $patchfile"
    [ "$variant" = cuda ] && echo "cuda: $cuda_path (CUDA $cuda_version)"
    echo "seconds: apt $(secs "$t_start" "$t_apt") configure $(secs "$t_apt" "$t_conf")" \
        "build $(secs "$t_conf" "$t_build") install $(secs "$t_build" "$t_end")" \
        "total $(secs "$t_start" "$t_end")"
    echo "install size: ${size} MiB"
    echo "cmake args:"
    printf '  %s\n' "${CMAKE_ARGS[@]}"
} >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
keep_work=0
sed -n '2,$p' "$stamp" | sed 's/^/build-acpp.sh: /' >&2
echo "$prefix"
