#!/bin/bash
# psnrhvs batch: JOBS jobs of FRAMES-frame W x H 8-bit pairs from page-cached
# raw files, frames per second over the whole batch (median of REPS runs),
# against another psnrhvs binary (today's fork-per-job batch, built from an
# older tree) in the same run; every output (CSV) identical between the two.
#   bench/batch/batch_bench.sh NEW_PSNRHVS OLD_PSNRHVS [JOBS] [FRAMES] [W] [H] [REPS]
# Defaults: 200 jobs, 60 frames, 1920x1080, 3 runs. Lines "what | seconds |
# fps" on stdout; extra batch flags in BATCH_FLAGS; VARIANTS: more runs of
# the new binary, flag sets separated by ';' ("--gpu-jobs 1;--gpu-jobs 3"),
# where a word NAME=VALUE is put in the batch's environment instead.
# SPDX-License-Identifier: BSD-2-Clause
set -u
NEW=$1 OLD=$2
JOBS=${3:-200} FRAMES=${4:-60} W=${5:-1920} H=${6:-1080} REPS=${7:-3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/batch_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$T/gen" "$HERE/gen_frames.c" || exit 1
"$T/gen" "$W" "$H" 8 "$FRAMES" 8 0 0 "$T/ref.yuv" && "$T/gen" "$W" "$H" 8 "$FRAMES" 8 6 1 "$T/dist.yuv" || exit 1
cat "$T"/*.yuv >/dev/null # page-cached
jobs_file() { # DIR: jobs.csv writing into DIR/out
    mkdir -p "$1/out"
    {
        echo "reference,distorted,output,width,height"
        for i in $(seq "$JOBS"); do echo "$T/ref.yuv,$T/dist.yuv,out/$i.csv,$W,$H"; done
    } >"$1/jobs.csv"
}
run() { # BINARY DIR: seconds of one batch run, outputs in DIR/out
    rm -rf "$2"
    jobs_file "$2"
    local t0 t1 w flags=() envs=(X=0)
    for w in ${BATCH_FLAGS:-}; do
        case $w in
        -*) flags+=("$w") ;;
        *=*) envs+=("$w") ;;
        *) flags+=("$w") ;;
        esac
    done
    t0=$(date +%s.%N)
    env "${envs[@]}" "$1" batch -q "${flags[@]}" "$2/jobs.csv" >/dev/null 2>"$2/err.txt" || { cat "$2/err.txt" >&2; echo fail; return; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}'
}
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "# psnrhvs batch, $(date -u +%FT%TZ), $(nproc) cores, $JOBS jobs of $FRAMES frames ${W}x${H} 8-bit"
echo "# what | seconds (median of $REPS) | fps over the batch"
measure() { # NAME BINARY FLAGS...: the median of REPS runs, outputs in $T/NAME/out
    local name=$1 bin=$2 times="" r sec fps
    shift 2
    for r in $(seq "$REPS"); do times="$times $(BATCH_FLAGS="${BATCH_FLAGS:-} $*" run "$bin" "$T/$name")"; done
    sec=$(echo $times | median)
    fps=$(awk -v s="$sec" -v n=$((JOBS * FRAMES)) 'BEGIN {printf "%.0f", n / s}')
    echo "batch $name${*:+ ($*)} ($bin) | $sec (runs:$times) | $fps"
    SEC=$sec
}
same() { # NAME: its outputs against the old binary's
    local i
    for i in $(seq "$JOBS"); do cmp -s "$T/old/out/$i.csv" "$T/$1/out/$i.csv" || { echo "DIFFERENT (job $i)"; return; }; done
    echo identical
}
measure old "$OLD"
sec_old=$SEC
measure new "$NEW"
sec_new=$SEC
echo "outputs of the two: $(same new)"
awk -v o="$sec_old" -v n="$sec_new" 'BEGIN {printf "new / old speed: %.2fx\n", o / n}'
k=0
IFS=';' read -ra variants <<<"${VARIANTS:-}"
for v in "${variants[@]}"; do
    k=$((k + 1))
    read -ra flags <<<"$v"
    measure "v$k" "$NEW" "${flags[@]}"
    awk -v o="$sec_old" -v n="$SEC" -v f="$v" -v s="$(same "v$k")" \
        'BEGIN {printf "new (%s) / old speed: %.2fx, outputs %s\n", f, o / n, s}'
done
