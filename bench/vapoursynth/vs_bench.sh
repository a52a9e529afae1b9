#!/usr/bin/env bash
# The VapourSynth plugin's throughput against the CLI's, on the same frames,
# and their per-frame values compared (the same bits, as text of %.17g).
#
#   bench/vapoursynth/vs_bench.sh BUILD_DIR LIBVAPOURSYNTH [W H FRAMES DEPTH] [BACKENDS]
#
# BUILD_DIR holds tools/psnrhvs, the plugin and bench/vapoursynth/vs_bench
# (a tree configured with tests, which builds the test source);
# LIBVAPOURSYNTH is the core (~/.cache/psnrhvs/vapoursynth-R65/lib/libvapoursynth.so
# here, .device/vs/lib/libvapoursynth.so carried to the GPU machine). Default
# 1280x720, 100 frames, 8-bit; BACKENDS (default "auto cpu") are run each
# through the CLI (--backend B) and the plugin (backend=B). The clips go to
# $TMPDIR (default /tmp) and are read from the page cache by both.
# SPDX-License-Identifier: BSD-2-Clause
set -euo pipefail
B=${1:?usage: vs_bench.sh BUILD_DIR LIBVAPOURSYNTH [W H FRAMES DEPTH] [BACKENDS]}
LIBVS=${2:?libvapoursynth.so}
W=${3:-1280} H=${4:-720} N=${5:-100} D=${6:-8}
BACKENDS=${7:-auto cpu}
CLI=$B/tools/psnrhvs
PLUGIN=$(ls "$B"/tools/vapoursynth/libpsnrhvs-vs.so)
SOURCE=$(ls "$B"/tests/vapoursynth/libpsnrhvs_vs_testsource.so)
BENCH=$B/bench/vapoursynth/vs_bench
dir=$(mktemp -d "${TMPDIR:-/tmp}/vs_bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now() { date +%s.%N; }

echo "vs_bench.sh: $(nproc) cores; ${W}x${H} ${D}-bit, $N frames"
"$BENCH" make "$dir" "$W" "$H" "$N" "$D"
cat "$dir"/ref.yuv "$dir"/dist.yuv >/dev/null # into the page cache
"$BENCH" run "$LIBVS" "$PLUGIN" "$SOURCE" "$dir/ref.yuv" "$dir/dist.yuv" "$W" "$H" "$D" --source-only
status=0
for b in $BACKENDS; do
    t0=$(now)
    if ! "$CLI" -r "$dir/ref.yuv" -d "$dir/dist.yuv" -w "$W" -h "$H" -b "$D" --backend "$b" \
        --json --precision max -q -o "$dir/cli-$b.json"; then
        echo "vs_bench.sh: the CLI cannot run --backend $b: skipped"
        continue
    fi
    t1=$(now)
    awk -v n="$N" -v a="$t0" -v b="$t1" -v be="$b" \
        'BEGIN { printf "vs_bench.sh: CLI --backend %s: %d frames, %.3f s (whole process), %.1f fps\n", be, n, b - a, n / (b - a) }'
    for req in "" 32; do
        "$BENCH" run "$LIBVS" "$PLUGIN" "$SOURCE" "$dir/ref.yuv" "$dir/dist.yuv" "$W" "$H" "$D" \
            --backend "$b" --values "$dir/vs-$b.txt" ${req:+--requests $req} || { status=1; continue; }
        python3 - "$dir/cli-$b.json" "$dir/vs-$b.txt" <<'EOF' || status=1
import json, sys
cli = [repr(f["metrics"]["psnr_hvs"]) for f in json.load(open(sys.argv[1]))["frames"]]
vs = [repr(float(line)) for line in open(sys.argv[2])]
bad = [i for i, (a, b) in enumerate(zip(cli, vs)) if a != b]
ok = len(cli) == len(vs) and not bad
print(f"vs_bench.sh: values: {len(vs)} frames, {'the CLI bits' if ok else 'DIFFER at %s' % bad[:5]}")
sys.exit(0 if ok else 1)
EOF
    done
done
exit $status
