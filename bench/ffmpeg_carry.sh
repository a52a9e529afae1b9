#!/usr/bin/env bash
# Packs what `psnrhvs --hwaccel cuda` needs on the GPU machine, which has
# NVIDIA's driver (libcuda.so.1, libnvcuvid.so.1) but no FFmpeg and no network:
#
#   bench/ffmpeg_carry.sh [BUILD_DIR [OUT_DIR]]   (BUILD_DIR default build,
#                                                  OUT_DIR default .device/ffmpeg, ignored by git)
#   then there:  OUT_DIR/psnrhvs ...   (LD_LIBRARY_PATH wrapper; see bench/hwaccel_gpu.sh)
#
# OUT_DIR/bin/psnrhvs is the CLI of BUILD_DIR (built here with FFmpeg, and with
# the CUDA backend where nvcc was found). OUT_DIR/lib holds Debian's FFmpeg
# libraries it links, unchanged, and what they need to decode: libswresample,
# libdav1d (AV1 on the CPU), zlib, liblzma, libbz2. Debian's libavcodec and
# libavformat also link ~120 libraries for encoders, network protocols and
# other formats (x265, SVT-AV1, codec2, librsvg, ICU, GnuTLS, ...: 166 MB, 48 MB
# as .tar.xz), none of which decoding H.264, HEVC, VP9, AV1 or FFV1 from a
# file calls. Each is replaced by a stub library of the same soname that
# defines the symbols and symbol versions the FFmpeg libraries import from it
# (they are bound at load time: Debian links them -z now). A stub function
# returns 0 (NULL): FFmpeg calls a few at start-up (libaom's version, libvpx's
# capabilities, for its codec tables) and when it probes a file (libopenmpt's
# probe; libgme's gets an empty string: "not mine"); an encoder or protocol of
# a stubbed library fails to open. PSNRHVS_CARRY_TRACE=1 prints each call. OUT_DIR/include and the
# libX.so links let cmake build against them there (-DPSNRHVS_FFMPEG_ROOT).
# libx264 is carried as it is (psnrhvs target's encoder). FFMPEG_CLI=1 adds
# Debian's ffmpeg CLI (OUT_DIR/ffmpeg, with libavfilter, libavdevice and
# libpostproc) and VMAF=PATH a vmaf CLI (OUT_DIR/bin/vmaf), for
# bench/target/target_bench.sh's usual loop and encoder alone.
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-.device/ffmpeg}
cli=$build/tools/psnrhvs
[ -x "$cli" ] || { echo "ffmpeg_carry.sh: no $cli (build first: ./build.sh build)" >&2; exit 1; }
deps=$(ldd "$cli") # not piped into grep -q: pipefail would see ldd's SIGPIPE
grep -q libavcodec <<<"$deps" ||
    { echo "ffmpeg_carry.sh: $cli was built without FFmpeg" >&2; exit 1; }
for t in readelf nm gcc; do
    command -v $t >/dev/null || { echo "ffmpeg_carry.sh: needs $t" >&2; exit 1; }
done

# Libraries carried as they are: FFmpeg's and what decoding needs.
# libOpenCL (the ICD loader, 50 KB) too: libavutil links it, and the CLI's
# OpenCL backend opens the same soname; a stub would stand in for both.
# X11, DRM, VA-API and VDPAU too (2 MB): GPU drivers a process opens later
# (Vulkan's ICDs) link them, and would meet a stub of the same soname.
keep_re='^(libavformat|libavcodec|libavutil|libswscale|libswresample|libdav1d|libz|liblzma|libbz2|libOpenCL'
keep_re+='|libdrm|libX11|libX11-xcb|libxcb|libXext|libXfixes|libXau|libXdmcp|libva|libva-drm|libva-x11'
keep_re+='|libvdpau|libbsd|libmd|libx264'
[ "${FFMPEG_CLI:-0}" = 1 ] && keep_re+='|libavfilter|libavdevice|libpostproc'
keep_re+=')\.so'
# glibc: the GPU machine's own (newer) one is used.
glibc_re='^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64)\.so'

needed() { readelf -d "$1" | awk '/\(NEEDED\)/ {gsub(/[\[\]]/, "", $5); print $5}'; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/include"
tmp=$(mktemp -d /tmp/ffmpeg_carry.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp "$cli" "$out/bin/psnrhvs"
bins=("$cli")
if [ "${FFMPEG_CLI:-0}" = 1 ]; then
    ff=$(command -v ffmpeg) || { echo "ffmpeg_carry.sh: FFMPEG_CLI=1 but no ffmpeg here" >&2; exit 1; }
    cp "$ff" "$out/bin/ffmpeg"
    bins+=("$ff")
fi
if [ -n "${VMAF:-}" ]; then
    [ -z "$(needed "$VMAF" | grep -vE "$glibc_re|^lib(stdc\+\+|gcc_s)\.so")" ] ||
        { echo "ffmpeg_carry.sh: $VMAF needs more than glibc and libstdc++" >&2; exit 1; }
    cp "$VMAF" "$out/bin/vmaf"
fi

# path of a soname, as the loader here finds it
declare -A path_of
while read -r so _ p _; do
    [ -n "${p:-}" ] && [ -f "$p" ] && path_of[$so]=$(readlink -f "$p")
done < <(for b in "${bins[@]}"; do ldd "$b"; done | awk '$2 == "=>" {print $1, $2, $3}')

# The kept libraries: FFmpeg's (what the CLI needs), then what they need that is kept.
declare -A kept stubbed
queue=()
# FFMPEG_CARRY_SKIP: a regex of libraries another bundle carries (the SYCL
# runtime in tests/sycl/pack-gpu.sh).
skip_re=${FFMPEG_CARRY_SKIP:-}
for so in $(for b in "${bins[@]}"; do needed "$b"; done | sort -u); do
    [[ $so =~ $glibc_re ]] && continue
    [ -n "$skip_re" ] && [[ $so =~ $skip_re ]] && continue
    # The library itself, and its backend modules beside it (lib/psnrhvs,
    # found from the library's own path): those that need only glibc (CUDA's,
    # HIP's); SYCL's runtime comes with tests/sycl/pack-gpu.sh.
    if [[ $so =~ ^libpsnrhvs\.so ]]; then
        [ -n "${path_of[$so]:-}" ] || { echo "ffmpeg_carry.sh: cannot find $so" >&2; exit 1; }
        cp "${path_of[$so]}" "$out/lib/$so"
        mkdir -p "$out/lib/psnrhvs"
        for m in "$(dirname "${path_of[$so]}")"/psnrhvs/backend-*.so; do
            [ -f "$m" ] || continue
            [ -z "$(needed "$m" | grep -vE "$glibc_re")" ] && cp "$m" "$out/lib/psnrhvs/"
        done
        continue
    fi
    [[ $so =~ $keep_re ]] || { echo "ffmpeg_carry.sh: $so is needed, not an FFmpeg library" >&2; exit 1; }
    queue+=("$so")
done
while [ ${#queue[@]} -gt 0 ]; do
    so=${queue[0]}
    queue=("${queue[@]:1}")
    [ -n "${kept[$so]:-}" ] && continue
    [ -n "${path_of[$so]:-}" ] || { echo "ffmpeg_carry.sh: cannot find $so" >&2; exit 1; }
    kept[$so]=1
    cp "${path_of[$so]}" "$out/lib/$so"
    for dep in $(needed "${path_of[$so]}"); do
        [[ $dep =~ $glibc_re ]] && continue
        if [[ $dep =~ $keep_re ]]; then queue+=("$dep"); else stubbed[$dep]=1; fi
    done
done

# One stub per library not carried: the symbols (and versions) the kept
# libraries import from it, taken from the real library here.
# What the kept libraries leave undefined (name@version), and the versions
# they need from each soname ("soname version").
for k in "${!kept[@]}"; do nm -D --undefined-only "$out/lib/$k"; done |
    awk '{print $2}' | sort -u >"$tmp/undef"
for k in "${!kept[@]}"; do readelf -V "$out/lib/$k"; done |
    awk '/Version definition section/ {f = ""} /File:/ {f = $5} /Name:/ && f != "" {print f, $3}' |
    sort -u >"$tmp/verneed"
nstub=0
for so in "${!stubbed[@]}"; do
    real=${path_of[$so]:-}
    [ -n "$real" ] || { echo "ffmpeg_carry.sh: cannot find $so to stub" >&2; exit 1; }
    # what the real library defines and they import: name version type size
    nm -D --defined-only -S "$real" |
        awk 'NR == FNR {u[$1] = 1; next}
             {sym = NF == 4 ? $4 : $3; type = NF == 4 ? $3 : $2; size = NF == 4 ? $2 : "0"
              name = sym; ver = "-"; i = index(sym, "@")
              if (i) { name = substr(sym, 1, i - 1); ver = sym; sub(/^[^@]*@+/, "", ver) }
              if (u[name "@" ver] || u[name]) print name, ver, type, size}' \
            "$tmp/undef" - | sort -u >"$tmp/syms.$so"
    {
        echo '#include <stdio.h>'
        echo '#include <stdlib.h>'
        echo "static long stub(const char *s) { if (getenv(\"PSNRHVS_CARRY_TRACE\")) fprintf(stderr, \"psnrhvs carry: %s of $so is a stub (bench/ffmpeg_carry.sh)\\n\", s); return 0; }"
        while read -r name ver type size; do
            # Opening a file probes every demuxer, libgme's and libopenmpt's
            # too: their probes answer "not mine" instead of aborting.
            case $name in
            gme_identify_header) echo "const char *$name(void) { return \"\"; }"; continue ;;
            openmpt_probe_file_header*) echo "int $name(void) { return 0; }"; continue ;;
            esac
            case $type in
            T | t | W | i) echo "long $name(void) { return stub(\"$name\"); }" ;;
            *) n=$((16#$size)); echo "char $name[$((n > 0 ? n : 8))] __attribute__((aligned(16)));" ;;
            esac
        done <"$tmp/syms.$so"
        echo "void psnrhvs_carry_stub_$(echo "$so" | tr -c 'a-zA-Z0-9\n' _)(void) {}"
    } >"$tmp/stub.c"
    # version nodes: every version the kept libraries need from this soname
    vers=$(awk -v so="$so" '$1 == so {print $2}' "$tmp/verneed")
    {
        for v in $vers; do
            syms=$(awk -v v="$v" '$2 == v {printf "%s; ", $1}' "$tmp/syms.$so")
            echo "$v { global: ${syms:-psnrhvs_carry_stub_$(echo "$so" | tr -c 'a-zA-Z0-9\n' _);} };"
        done
        echo "{ global: *; };"
    } >"$tmp/stub.map"
    # an unversioned anonymous node cannot sit beside named ones
    if [ -n "$vers" ]; then sed -i '$d' "$tmp/stub.map"; fi
    gcc -shared -fPIC -O1 -w -o "$out/lib/$so" "$tmp/stub.c" -Wl,-soname,"$so" \
        ${vers:+-Wl,--version-script="$tmp/stub.map"}
    nstub=$((nstub + 1))
done

# Headers and unversioned links, to build against them there.
inc=$(dirname "$(find /usr/include -path '*/libavcodec/avcodec.h' | head -1)")/..
for l in libavformat libavcodec libavutil libswscale libswresample; do
    cp -r "$inc/$l" "$out/include/"
    so=$(cd "$out/lib" && ls $l.so.* | head -1)
    ln -s "$so" "$out/lib/$l.so"
done

cat >"$out/psnrhvs" <<'EOF'
#!/bin/sh
# psnrhvs with the FFmpeg libraries carried beside it; the NVIDIA driver's
# libcuda.so.1 and libnvcuvid.so.1 come from the machine.
d=$(cd "$(dirname "$0")" && pwd)
drv=""
for p in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu; do
    [ -e "$p/libnvcuvid.so.1" ] && drv="$drv:$p"
done
LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}$drv" exec "$d/bin/psnrhvs" "$@"
EOF
chmod +x "$out/psnrhvs"
if [ "${FFMPEG_CLI:-0}" = 1 ]; then
    sed 's|/bin/psnrhvs"|/bin/ffmpeg"|; s|^# psnrhvs with|# ffmpeg with|' "$out/psnrhvs" >"$out/ffmpeg"
    chmod +x "$out/ffmpeg"
fi

# The clips bench/hwaccel_gpu.sh scores (CLIPS=0: none): CLIP_FRAMES (60) frames of 3840x2160
# at 30 fps, a grainy test pattern; the references an H.264 at 16 Mbit/s and
# a 10-bit HEVC at 8, the encodes H.264 at 6 and HEVC at 4 Mbit/s, 8 and 10
# bits (9.5 MB together).
if [ "${CLIPS:-1}" != 0 ]; then
    command -v ffmpeg >/dev/null || { echo "ffmpeg_carry.sh: no ffmpeg CLI for the clips" >&2; exit 1; }
    mkdir -p "$out/clips"
    src="testsrc2=size=3840x2160:rate=30,noise=alls=3:allf=t"
    nf=${CLIP_FRAMES:-60}
    enc() { ffmpeg -v error -nostdin -y -f lavfi -i "$src" -frames:v "$nf" "$@"; }
    echo "$nf" >"$out/clips/FRAMES"
    x265=(-c:v libx265 -preset ultrafast -b:v 4M -x265-params log-level=none)
    enc -c:v libx264 -preset ultrafast -b:v 16M "$out/clips/ref8.mkv"
    enc -c:v libx264 -preset veryfast -b:v 6M "$out/clips/dist_h264.mp4"
    enc "${x265[@]}" "$out/clips/dist_hevc.mp4"
    enc -pix_fmt yuv420p10le "${x265[@]}" "$out/clips/dist_hevc10.mkv"
    enc -pix_fmt yuv420p10le -c:v libx265 -preset ultrafast -b:v 8M -x265-params log-level=none \
        "$out/clips/ref10.mkv"
fi

# Check: every library resolves inside OUT_DIR or to glibc, and the CLI starts.
bad=$(LD_LIBRARY_PATH="$out/lib" ldd "$out/bin/psnrhvs" | awk '$2 == "=>" {print $1, $3}' |
    grep -vE "^[^ ]+ $(readlink -f "$out/lib")/|^[^ ]+ $PWD/$out/lib/|^[^ ]+ $out/lib/" |
    grep -vE '^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64)\.so' |
    { if [ -n "$skip_re" ]; then grep -vE "$skip_re"; else cat; fi; } || true)
[ -z "$bad" ] || { echo "ffmpeg_carry.sh: resolved outside the carry: $bad" >&2; exit 1; }
"$out/psnrhvs" --version >/dev/null
if [ "${FFMPEG_CLI:-0}" = 1 ]; then "$out/ffmpeg" -v error -f lavfi -i testsrc2=size=64x64 -frames:v 2 \
    -c:v libx264 -f null - || { echo "ffmpeg_carry.sh: the carried ffmpeg cannot encode" >&2; exit 1; }; fi
glibc=$(objdump -T "$out"/bin/psnrhvs "$out"/lib/*.so* 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' |
    sort -t. -k2 -n -u | tail -1)
echo "carried: ${#kept[@]} libraries as they are, $nstub stubs; needs $glibc or newer there"
echo "total: $(du -sbL "$out" | cut -f1) bytes in $out ($(du -shL "$out" | cut -f1))"
