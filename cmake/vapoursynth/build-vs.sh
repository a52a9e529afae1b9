#!/usr/bin/env bash
# Build VapourSynth R65 (the core library, vspipe and the Python module) from
# the unmodified source tarball, offline, into a cache directory outside the
# clone; a second call finds the stamp and returns at once. About 100 s on 2
# cores. Only the plugin's tests need it: the plugin itself builds against
# the tarball's VapourSynth4.h (cmake/vapoursynth/VapourSynth.cmake).
#
#   cmake/vapoursynth/build-vs.sh [--tarball PATH] [--prefix DIR] [-j N]
#
# Prints the install prefix on its last line of stdout. Debian 12 packages no
# VapourSynth; R65 is the newest tag that builds unmodified there (see
# third_party/vapoursynth/README.md).
#
# Options
#   --tarball PATH   vapoursynth-R65.tar.xz (default: third_party/vapoursynth)
#   --prefix DIR     install here instead of ${XDG_CACHE_HOME:-$HOME/.cache}/psnrhvs/vapoursynth-R65
#   -j N             parallel build jobs (default $JOBS or 2)
#   --no-apt         never install Debian packages (fail if one is missing)
#   --force          rebuild even when the stamp matches
#   --check          exit 0 if the install is present and current, 1 if not
#   --print-prefix   print the prefix and exit
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail

VS_VERSION=R65
VS_SHA256=1bbfbf1e33519b1b59ddba79bcd1422be98627b7fb96953236998c4a95ea79b6
# Bump when the recipe changes in a way the hash below cannot see.
RECIPE_REV=1

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

tarball=${VS_TARBALL:-}
prefix=""
jobs=${JOBS:-2}
use_apt=1
force=0
mode=build

die() { echo "build-vs.sh: $*" >&2; exit 1; }
say() { echo "build-vs.sh: $*" >&2; }

while [ $# -gt 0 ]; do
    case "$1" in
    --tarball) tarball=${2:?}; shift ;;
    --tarball=*) tarball=${1#*=} ;;
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

cache_root=${XDG_CACHE_HOME:-${HOME:?}/.cache}/psnrhvs
prefix=${prefix:-$cache_root/vapoursynth-$VS_VERSION}
if [ "$mode" = print ]; then
    echo "$prefix"
    exit 0
fi

tarball=${tarball:-$repo/third_party/vapoursynth/vapoursynth-$VS_VERSION.tar.xz}
[ -f "$tarball" ] || die "no VapourSynth tarball at $tarball (give --tarball PATH)"
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")

# Debian's interpreter: the module links its libpython3.11, and a pyenv
# python (3.12 and others) fails to import it.
PYTHON=/usr/bin/python3
PACKAGES="autoconf automake libtool pkg-config make g++ xz-utils libzimg-dev cython3 python3-dev python3-numpy"
CONFIGURE_ARGS=(--disable-static "PYTHON=$PYTHON")

hash_inputs() {
    echo "VapourSynth $VS_VERSION recipe $RECIPE_REV"
    sha256sum <"$tarball" | cut -d' ' -f1
    printf '%s\n' "${CONFIGURE_ARGS[@]}"
}
options_hash=$(hash_inputs | sha256sum | cut -d' ' -f1)
stamp=$prefix/psnrhvs-vs.stamp
stamp_head="VapourSynth $VS_VERSION options=$options_hash"

is_current() {
    [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$stamp_head" ] &&
        [ -f "$prefix/include/vapoursynth/VapourSynth4.h" ] &&
        ls "$prefix"/lib/libvapoursynth.so >/dev/null 2>&1
}

if [ "$mode" = check ]; then
    is_current && exit 0
    exit 1
fi
if [ "$force" = 0 ] && is_current; then
    say "VapourSynth $VS_VERSION is current in $prefix"
    echo "$prefix"
    exit 0
fi

mkdir -p "$(dirname "$prefix")"
# One build per prefix at a time (parallel CI jobs sharing a cache).
exec 9>"$prefix.lock"
flock 9
if [ "$force" = 0 ] && is_current; then
    say "VapourSynth $VS_VERSION was built meanwhile in $prefix"
    echo "$prefix"
    exit 0
fi

[ "$(sha256sum <"$tarball" | cut -d' ' -f1)" = "$VS_SHA256" ] ||
    die "$tarball is not the tarball of VapourSynth $VS_VERSION (sha256 differs)"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }
t_start=$(now)

missing=()
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$use_apt" = 1 ] || die "missing Debian packages: ${missing[*]} (--no-apt given)"
    say "installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get -o DPkg::Lock::Timeout=900 update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
fi
t_apt=$(now)

work=$(mktemp -d "${TMPDIR:-/tmp}/psnrhvs-vs-build.XXXXXX")
log=$work/build.log
keep_work=1
cleanup() { [ "$keep_work" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT
fail() {
    say "failed: $*; last lines of $log:"
    tail -n 40 "$log" >&2 || true
    exit 1
}

say "building VapourSynth $VS_VERSION into $prefix, -j$jobs (log: $log)"
tar -xJf "$tarball" -C "$work"
src=$work/vapoursynth-$VS_VERSION
[ -d "$src" ] || die "the tarball has no vapoursynth-$VS_VERSION/ folder"
if [ -e "$prefix" ] && [ ! -f "$stamp" ] && [ -n "$(ls -A "$prefix" 2>/dev/null)" ]; then
    die "$prefix exists and holds no psnrhvs-vs.stamp: not deleting it"
fi
rm -rf "$prefix"
# pyenv's shims off the PATH: configure and Cython must see Debian's python3.
clean_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/\.pyenv/' | paste -sd: -)
(
    cd "$src"
    export PATH=$clean_path
    unset PYTHONPATH PYENV_VERSION
    ./autogen.sh >>"$log" 2>&1 || exit 10
    ./configure --prefix="$prefix" "${CONFIGURE_ARGS[@]}" >>"$log" 2>&1 || exit 11
    make -j"$jobs" >>"$log" 2>&1 || exit 12
    make install >>"$log" 2>&1 || exit 13
) || case $? in
    10) fail "autogen.sh" ;;
    11) fail "configure" ;;
    12) fail "make" ;;
    *) fail "make install" ;;
esac
t_build=$(now)
pydir=$(ls -d "$prefix"/lib/python3*/site-packages 2>/dev/null | head -n1)
[ -n "$pydir" ] || fail "no Python module installed under $prefix/lib"
# The module must import with Debian's python, the core's plugins left out.
env -i PATH=$clean_path HOME="$work" PYTHONPATH="$pydir" LD_LIBRARY_PATH="$prefix/lib" \
    "$PYTHON" -c 'import vapoursynth as vs; assert vs.core.version_number() == 65' >>"$log" 2>&1 ||
    fail "import vapoursynth"
mkdir -p "$prefix/share/psnrhvs"
cp "$log" "$prefix/share/psnrhvs/build-vs.log"
t_end=$(now)

{
    echo "$stamp_head"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores, -j$jobs"
    echo "tarball: $tarball"
    echo "python: $PYTHON, module in $pydir"
    echo "seconds: apt $(secs "$t_start" "$t_apt") build $(secs "$t_apt" "$t_build")" \
        "total $(secs "$t_start" "$t_end")"
    echo "install size: $(du -sm "$prefix" | cut -f1) MiB"
} >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
keep_work=0
sed -n '2,$p' "$stamp" | sed 's/^/build-vs.sh: /' >&2
echo "$prefix"
