#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# psnrhvs target against the usual loop, in one run on one machine:
#   psnrhvs  the whole search: the source read once, probes encoded with
#            libx264 in process, decoded and scored in memory;
#   (a)      the usual loop on the same probes: ffmpeg encodes each sample
#            at each setting to a file, decodes it to Y4M, and libvmaf's
#            vmaf --feature psnr_hvs scores it;
#   (b)      the encoder alone on the same probes: ffmpeg encoding each
#            sample at each setting to nothing (no decode, no score).
# The settings and samples are the ones psnrhvs probed (its -o JSON); the
# samples of a probe run side by side in (a) and (b) as in psnrhvs. The
# samples are cut to Y4M files first, outside the times.
# Usage: VMAF=/path/to/vmaf [PSNRHVS=build/tools/psnrhvs] [FFMPEG=ffmpeg]
#        [W=/tmp/tbench] [SECONDS_=10] [TARGET=40] [NOISE=3] [OPTS=]
#        bench/target/target_bench.sh
# On the GPU machine: bench/h200.sh OUT target, after, here,
# CLIPS=0 FFMPEG_CLI=1 VMAF=/path/to/vmaf bench/ffmpeg_carry.sh.
set -euo pipefail
P=${PSNRHVS:-build/tools/psnrhvs}
FF=${FFMPEG:-ffmpeg}
W=${W:-/tmp/tbench}
T=${TARGET:-40}
DUR=${SECONDS_:-10}
OPTS=${OPTS:-}
VMAF=${VMAF:-}
mkdir -p "$W"
now() { date +%s.%N; }
calc() { python3 -c "print($1)"; }

# 1080p at 25 fps: FFmpeg's testsrc2 with temporal noise (NOISE, default 3:
# so that it does not compress to nothing), 8-bit 4:2:0.
NOISE=${NOISE:-3}
SRC=$W/src_1080p_${DUR}s_n$NOISE.y4m
[ -s "$SRC" ] || "$FF" -v error -f lavfi -i "testsrc2=size=1920x1080:rate=25,noise=alls=$NOISE:allf=t" \
    -t "$DUR" -pix_fmt yuv420p -strict -1 "$SRC"
cat "$SRC" >/dev/null # page-cached for every contender
echo "machine: $(nproc) cores; $(command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name --format=csv,noheader | head -1 || echo no GPU)"

eo=()
[ -n "$OPTS" ] && eo=(--encoder-options "$OPTS")
t0=$(now)
"$P" target -r "$SRC" --encoder libx264 "${eo[@]}" --target "$T" -o "$W/search.json" | tee "$W/search.txt"
t_ps=$(calc "$(now) - $t0")

# The probes and samples psnrhvs used.
python3 - "$W/search.json" >"$W/plan.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%d:%d" % (s["start"], s["frames"]) for s in d["samples"]))
print(" ".join("%g" % p["setting"] for p in d["probes"]))
PY
read -r -a samples < <(sed -n 1p "$W/plan.txt")
read -r -a crfs < <(sed -n 2p "$W/plan.txt")
for i in "${!samples[@]}"; do
    s=${samples[$i]%%:*} n=${samples[$i]##*:}
    [ -s "$W/s$i.y4m" ] || "$FF" -v error -i "$SRC" -vf "select=between(n\,$s\,$((s + n - 1)))" \
        -fps_mode passthrough -strict -1 "$W/s$i.y4m"
done
fo=()
[ -n "$OPTS" ] && fo=($(echo "$OPTS" | tr ':' '\n' | sed 's/^\([^=]*\)=\(.*\)$/-\1 \2/'))

# (b) the encoder alone.
t0=$(now)
for c in "${crfs[@]}"; do
    for i in "${!samples[@]}"; do
        "$FF" -v error -i "$W/s$i.y4m" -c:v libx264 "${fo[@]}" -crf "$c" -f null - &
    done
    wait
done
t_b=$(calc "$(now) - $t0")

# (a) the usual loop: encode to a file, decode, vmaf.
t_a=nan
if [ -n "$VMAF" ]; then
    t0=$(now)
    for c in "${crfs[@]}"; do
        for i in "${!samples[@]}"; do
            ("$FF" -v error -y -i "$W/s$i.y4m" -c:v libx264 "${fo[@]}" -crf "$c" "$W/p$i.mp4" &&
                "$FF" -v error -y -i "$W/p$i.mp4" -strict -1 "$W/p$i.y4m" &&
                "$VMAF" -r "$W/s$i.y4m" -d "$W/p$i.y4m" --feature psnr_hvs -n -q --json \
                    -o "$W/p$i.json" >/dev/null) &
        done
        wait
    done
    t_a=$(calc "$(now) - $t0")
    for i in "${!samples[@]}"; do
        grep -q '"psnr_hvs"' "$W/p$i.json" || { echo "vmaf wrote no psnr_hvs"; exit 1; }
    done
fi

python3 - "$W/search.json" "$t_ps" "$t_a" "$t_b" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ps, a, b = (float(x) for x in sys.argv[2:5])
r = d["run"]
enc = sum(p["encode_s"] for p in r["probes"])
sc = sum(p["score_s"] for p in r["probes"])
wall = sum(p["wall_s"] for p in r["probes"])
frames = sum(s["frames"] for s in d["samples"])
print("probes %d, samples %d (%d of %d frames), chosen %s" % (
    len(d["probes"]), len(d["samples"]), frames, d["source"]["frames"],
    d["chosen"]["setting"] if d["chosen"] else None))
print("psnrhvs target (whole run)  %8.2f s" % ps)
print("  probes (wall)             %8.2f s; outside them (source read, setup) %.2f s" %
      (wall, ps - wall))
print("  thread seconds: encoder %.2f, decode + score %.2f (%.1f %% of the encoder's)" %
      (enc, sc, 100 * sc / enc))
print("(a) ffmpeg + vmaf loop      %8.2f s" % a)
print("(b) encoder alone (ffmpeg)  %8.2f s" % b)
print("psnrhvs / (b) = %.3f (%+.1f %%); (a) / psnrhvs = %.2f" % (ps / b, 100 * (ps / b - 1),
                                                                 a / ps))
PY
