#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""batch's --gpus auto is the library's auto: the GPUs it names on its first line are
the GPUs on the `auto (the default): ...` line of `psnrhvs --list-devices` (on a machine
without a GPU, none), and `--gpus none` names none. Its one job's output is the bytes of
a plain run.

Usage: run_auto_gpus.py PSNRHVS DATA_DIR"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    cli, data = sys.argv[1], sys.argv[2]
    failures = []

    def check(cond, msg):
        if not cond:
            failures.append(msg)
            print("FAIL: " + msg)

    listing = subprocess.run([cli, "--list-devices"], capture_output=True, timeout=300)
    text = listing.stdout.decode(errors="replace")
    m = re.search(r"^auto \(the default\): (.*)$", text, re.M)
    check(listing.returncode == 0 and m is not None, "--list-devices: no auto line: %r" % text)
    if m is None:
        return 1
    scorers = [s.strip() for s in m.group(1).split(",")]
    check("cpu" in scorers, "auto without the CPU: %r" % scorers)
    auto_gpus = [s for s in scorers if s != "cpu"]
    print("auto scores on %s" % scorers)

    ref = os.path.join(data, "yuv420p_176x144_ref.y4m")
    dist = os.path.join(data, "yuv420p_176x144_dist.y4m")
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "plain.xml")
        p = subprocess.run([cli, "-r", ref, "-d", dist, "-o", plain, "-q"], capture_output=True,
                           timeout=300)
        check(p.returncode == 0, "plain run: %r" % p.stderr)
        for gpus, want in (("auto", auto_gpus), ("none", [])):
            folder = os.path.join(tmp, gpus)
            os.mkdir(folder)
            with open(os.path.join(folder, "jobs.csv"), "w") as f:
                f.write("reference,distorted,output\n%s,%s,out.xml\n" % (ref, dist))
            p = subprocess.run([cli, "batch", "--gpus", gpus, "jobs.csv"], cwd=folder,
                               capture_output=True, timeout=300)
            err = p.stderr.decode(errors="replace")
            first = re.search(r"^psnrhvs: batch: 1 job, \d+ cores, GPUs: (.*)$", err, re.M)
            check(p.returncode == 0 and first is not None, "batch --gpus %s: exit %d, %r" %
                  (gpus, p.returncode, err))
            if first is None:
                continue
            named = [] if first.group(1) == "none" else [g.strip() for g in first.group(1).split(",")]
            check(named == want, "batch --gpus %s took %r, --list-devices says auto uses %r" %
                  (gpus, named, want))
            with open(plain) as a, open(os.path.join(folder, "out.xml")) as b:
                strip = lambda t: re.sub(r'fps="[^"]*"', "", t)
                check(strip(a.read()) == strip(b.read()), "batch --gpus %s: other bytes" % gpus)
    print("auto gpus: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
