#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Run one libFuzzer target for a fixed time (a ctest) and print what it did:
executions, time, coverage, corpus. Exit 77 (ctest's skip) with the reason when
the target could not be built; 1 when libFuzzer found a crash or a leak (the
reproducer is in the work folder) or ran nothing."""
import argparse
import os
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--skip-reason", default="")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--work", required=True, help="build-tree folder: new inputs and crash files")
    ap.add_argument("--corpus", required=True, help="the committed seed corpus (read only)")
    ap.add_argument("--max-len", type=int, default=65536)
    a = ap.parse_args()
    a.binary, a.work, a.corpus = (os.path.abspath(p) for p in (a.binary, a.work, a.corpus))
    name = os.path.basename(a.binary)
    if a.skip_reason or not os.path.exists(a.binary):
        print("skipped: %s: %s" % (name, a.skip_reason or "not built"))
        return 77
    new = os.path.join(a.work, "corpus")
    os.makedirs(new, exist_ok=True)
    cmd = [a.binary, "-seed=1", "-max_total_time=%d" % a.seconds, "-max_len=%d" % a.max_len,
           "-timeout=20", "-rss_limit_mb=2048", "-print_final_stats=1",
           "-artifact_prefix=" + a.work + os.sep, new, a.corpus]
    print(" ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=a.work,
                       timeout=a.seconds + 100)
    log = p.stdout.decode(errors="replace")
    execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    done = re.search(r"Done (\d+) runs in (\d+) second", log)
    cov = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)", log)
    if p.returncode or not execs:
        print(log[-6000:])
        print("FAIL: %s exited %d%s" % (name, p.returncode, "" if execs else ", no statistics"))
        return 1
    runs = int(execs.group(1))
    secs = int(done.group(2)) if done else a.seconds
    print("%s: %d executions in %d s (%d/s)%s" % (
        name, runs, secs, runs // max(secs, 1),
        ", coverage %s edges, %s features, corpus %s" % cov[-1] if cov else ""))
    return 0 if runs > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
