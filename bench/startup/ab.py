#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Whole-command time of two psnrhvs binaries on the same inputs, run by
run in turn so both see the same machine; median and spread of REPS each,
and their JSON outputs compared byte for byte (fps aside).

usage: bench/startup/ab.py A_CLI B_CLI REPS -- PSNRHVS-ARGS...
  e.g. bench/startup/ab.py /tmp/old/tools/psnrhvs build/tools/psnrhvs 7 -- \\
           -r ref.mkv -d dist.mp4 --frame_cnt 24
The inputs are read once first (page cache). PSNRHVS-ARGS go to both
(--hwaccel cuda and the like).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(cli, args, out):
    t = time.perf_counter()
    p = subprocess.run([cli] + args + ["-q", "--json", "--precision", "max", "-o", out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if p.returncode:
        sys.exit("ab.py: %s failed (%d): %s" % (cli, p.returncode, p.stderr.decode()[-300:]))
    return dt


def body(path):
    with open(path) as f:
        return [ln for ln in f if '"fps"' not in ln]


def main():
    if len(sys.argv) < 5 or "--" not in sys.argv:
        sys.exit(__doc__)
    k = sys.argv.index("--")
    a, b, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    args = sys.argv[k + 1:]
    for i, x in enumerate(args):
        if i and args[i - 1] in ("-r", "-d") and os.path.isfile(x):
            with open(x, "rb") as f:
                while f.read(1 << 24):
                    pass
    with tempfile.TemporaryDirectory() as tmp:
        oa, ob = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
        run(a, args, oa), run(b, args, ob)  # warm: libraries, page cache
        ta, tb = [], []
        for _ in range(reps):
            ta.append(run(a, args, oa))
            tb.append(run(b, args, ob))
        same = body(oa) == body(ob)
    ma, mb = statistics.median(ta), statistics.median(tb)
    print("A %s: median %.3f s (%.3f-%.3f)" % (a, ma, min(ta), max(ta)))
    print("B %s: median %.3f s (%.3f-%.3f)" % (b, mb, min(tb), max(tb)))
    print("B/A %.3f; outputs %s" % (mb / ma, "identical" if same else "DIFFER"))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
