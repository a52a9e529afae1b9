#!/bin/bash
# Decode-and-score speed of 3840x2160 encodes on the GPU machine: FFmpeg's
# CUDA decoder (NVDEC, --hwaccel cuda) against decoding on the CPU, each
# scored by the CPU backend and by the CUDA backend, and every configuration's
# scores compared bit for bit. Decoding on the GPU for the CUDA backend runs
# twice: frames scored where NVDEC wrote them (gpu), and copied to host
# memory and uploaded again (gpu-copy: the test hook PSNRHVS_TEST_HWACCEL_COPY=1). The GPU machine has no FFmpeg: everything comes
# from the folder bench/ffmpeg_carry.sh made here (the CLI, Debian's FFmpeg
# libraries, and 60-frame clips in CARRY/clips).
#
# Here:   ./build.sh build && bench/ffmpeg_carry.sh build .device/ffmpeg
# There:  bash bench/hwaccel_gpu.sh .device/ffmpeg "$OUT"
#         (device tool: carry [".device/ffmpeg"]; about 2 minutes)
# Results: OUT/hwaccel.txt (a table and the bit comparison), OUT/hwaccel_logs.tar.gz.
# SPDX-License-Identifier: BSD-2-Clause
set -u
CARRY=${1:-.device/ffmpeg}
OUT=${2:-${OUT:-/tmp/hwaccel_out}}
REPS=${REPS:-3}
mkdir -p "$OUT"
L=$(mktemp -d /tmp/hwaccel_logs.XXXXXX)
trap 'tar czf "$OUT/hwaccel_logs.tar.gz" -C "$L" . 2>/dev/null' EXIT
S="$OUT/hwaccel.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
P="$CARRY/psnrhvs"
C="$CARRY/clips"

say "== machine ($(date -u +%FT%TZ))"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$S"
say "cpu: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
say "glibc: $(ldd --version 2>&1 | head -1)"
for lib in libcuda.so.1 libnvcuvid.so.1; do
    where=$( (ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l {print $NF; exit}'; ls /usr/local/nvidia/lib64/$lib 2>/dev/null) | head -1)
    say "$lib: ${where:-NOT FOUND (NVDEC decoding cannot work)}"
done
if [ ! -x "$P" ] || [ ! -d "$C" ]; then
    say "no $P or $C: run bench/ffmpeg_carry.sh here first and carry $CARRY"
    exit 1
fi
if ! "$P" --version >"$L/version.txt" 2>&1; then
    say "the carried CLI does not start:"
    tee -a "$S" <"$L/version.txt"
    exit 1
fi
say "$(cat "$L/version.txt"), carried $(du -sbL "$CARRY" | cut -f1) bytes"
"$P" --list-devices >"$L/devices.txt" 2>&1
tee -a "$S" <"$L/devices.txt"
backends="cpu"
# auto: the default command (no --backend), the CPU and the GPU together.
grep -q '^cuda:$' "$L/devices.txt" && backends="cpu cuda auto"
ls -l "$C" | tee -a "$S"

# name | reference | distorted | extra flags
pairs=(
    "h264|ref8.mkv|dist_h264.mp4|"
    "hevc|ref8.mkv|dist_hevc.mp4|"
    "hevc10|ref8.mkv|dist_hevc10.mkv|--common_bitdepth"
    "p010|ref10.mkv|dist_hevc10.mkv|"
)
now() { date +%s.%N; }
say ""
say "== decode and score, 3840x2160, best of $REPS runs: fps of the whole command (start-up included), and"
say "   steady fps from --timing (frames after the first score over the time after it)"
printf '%-8s %-8s %-6s %6s %8s %8s  %s\n' pair decode score frames fps steady note | tee -a "$S"
fail=0
for pr in "${pairs[@]}"; do
    IFS='|' read -r name ref dist extra <<<"$pr"
    [ -f "$C/$ref" ] && [ -f "$C/$dist" ] || continue
    for dec in cpu gpu gpu-copy; do
        for be in $backends; do
            [ "$dec" = gpu-copy ] && [ "$be" != cuda ] && continue
            tag="${name}_${dec}_${be}"
            flags=(--threads 0)
            [ "$be" != auto ] && flags+=(--backend "$be")
            [ "$dec" != cpu ] && flags+=(--hwaccel cuda)
            copy=0
            [ "$dec" = gpu-copy ] && copy=1
            best=""
            steady=""
            note=""
            for rep in $(seq "$REPS"); do
                t0=$(now)
                # shellcheck disable=SC2086
                PSNRHVS_TEST_HWACCEL_COPY=$copy "$P" --timing -r "$C/$ref" -d "$C/$dist" $extra \
                    "${flags[@]}" --json --raw --precision max -o "$L/$tag.json" >"$L/$tag.out" \
                    2>"$L/$tag.err"
                rc=$?
                t1=$(now)
                if [ $rc -ne 0 ]; then
                    note="FAILED rc=$rc: $(head -c 300 "$L/$tag.err")"
                    fail=$((fail + 1))
                    break
                fi
                wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
                best=$(awk -v w="$wall" -v b="${best:-1e9}" 'BEGIN {print (w < b ? w : b)}')
                s1=$(awk -v n=$(($(cat "$C/FRAMES" 2>/dev/null || echo 60) - 1)) '/timing:/ {for (i = 1; i <= NF; i++) {if ($i == "first" && $(i+1) == "score") f = $(i+2); if ($i == "all") a = $(i+1)}} END {if (a > f) printf "%.1f", n / ((a - f) / 1e3)}' "$L/$tag.err")
                steady=$(awk -v s="${s1:-0}" -v b="${steady:-0}" 'BEGIN {print (s > b ? s : b)}')
            done
            grep -q "NVDEC cannot decode\|no CUDA decoder" "$L/$tag.err" 2>/dev/null &&
                note="CPU FALLBACK: $(head -c 200 "$L/$tag.err")"
            if [ "$dec" != cpu ] && [ -z "$note" ]; then
                if grep -q "copied to host memory" "$L/$tag.err"; then
                    note="frames copied to host: $(grep -o 'memory: .*' "$L/$tag.err" | head -c 120)"
                else
                    note="frames scored on the GPU where NVDEC wrote them"
                fi
            fi
            frames=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["frames"]))' \
                "$L/$tag.json" 2>/dev/null || echo 0)
            fps=$([ -n "$best" ] && awk -v n="$frames" -v t="$best" 'BEGIN {printf "%.1f", n / t}' || echo -)
            printf '%-8s %-8s %-6s %6s %8s %8s  %s\n' "$name" "$dec" "$be" "$frames" "$fps" \
                "${steady:--}" "$note" | tee -a "$S"
        done
    done
done

say ""
say "== the same bits everywhere (per-frame values and raw f32 scores, pooled values)"
python3 - "$L" "$backends" >>"$S" 2>&1 <<'EOF'
import json, os, sys
d, backends = sys.argv[1], sys.argv[2].split()
bad = 0
for name in ("h264", "hevc", "hevc10", "p010"):
    runs = {}
    for dec in ("cpu", "gpu", "gpu-copy"):
        for be in backends:
            p = os.path.join(d, "%s_%s_%s.json" % (name, dec, be))
            if os.path.exists(p):
                doc = json.load(open(p))
                runs["%s-decode/%s-score" % (dec, be)] = (doc["frames"], doc["pooled_metrics"])
    if len(runs) < 2:
        print("%s: fewer than two runs to compare" % name)
        bad += 1
        continue
    first = next(iter(runs))
    for k, v in runs.items():
        same = v == runs[first]
        bad += not same
        print("%-7s %-24s %s %s (%d frames)" % (name, k, "identical to" if same else "DIFFERS from",
                                                first, len(v[0])))
print("bit comparison: %s" % ("all identical" if not bad else "%d differ or missing" % bad))
EOF
tail -1 "$S"
say "failures: $fail"
