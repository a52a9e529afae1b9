#!/bin/sh
# cli_signals N times in a row (default 50) while another scoring run loads
# every core, as CI's parallel ctest does: the check that signals sent to the
# process never reach a helper thread while it starts (under ThreadSanitizer
# they used to kill it about one run in three). Not part of ctest (minutes).
# usage: tests/cli/signals_loop.sh <psnrhvs> <tests/data> [runs]
#   e.g. a TSan tree: tests/run_sanitizers.sh build/sanitizers tsan, then
#   tests/cli/signals_loop.sh build/sanitizers/tsan/tools/psnrhvs tests/data
# SPDX-License-Identifier: BSD-2-Clause
set -u
here=$(cd "$(dirname "$0")" && pwd)
psnrhvs=$1
data=$2
runs=${3:-50}
# run_sanitizers.sh's TSan options: the deadly signals go to the program's handlers.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0}
ref=$data/netflix/src01_hrc00_576x324.yuv420p12le.yuv
dist=$data/netflix/src01_hrc01_576x324.yuv420p12le.yuv
(while :; do
    "$psnrhvs" -r "$ref" -d "$dist" -w 576 -h 324 -b 12 -p 420 -q >/dev/null 2>&1
done) &
load=$!
trap 'kill $load 2>/dev/null' EXIT INT TERM
passed=0
for i in $(seq "$runs"); do
    if python3 "$here/run_signals.py" "$psnrhvs" "$data" >"${TMPDIR:-/tmp}/signals_loop.$$.log" 2>&1; then
        passed=$((passed + 1))
    else
        echo "run $i failed:"
        grep FAIL "${TMPDIR:-/tmp}/signals_loop.$$.log" | head -5
    fi
done
rm -f "${TMPDIR:-/tmp}/signals_loop.$$.log"
echo "cli_signals: $passed/$runs passed under load"
[ "$passed" -eq "$runs" ]
