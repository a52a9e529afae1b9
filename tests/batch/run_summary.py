#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs batch: a removed plot on resume, and the summary's values of CSV outputs.

- A job whose output is complete but whose --plot SVG was removed runs again on
  resume (with a note), and the SVG is back; a third run skips it.
- A CSV (or sub) output holds no pooled values: the summary pools its printed
  per-frame values and prints them as a score file would, with the job's
  --precision: 6 digits after the point by default (libvmaf's %.6f), N with
  precision N, the shortest exact text with max; never the float noise of the sum
  (35.94256629999999). The mean is the printed values' mean, to those digits.

Usage: run_summary.py PSNRHVS DATA_DIR"""
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import clitest  # noqa: E402

KEYS = ["psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"]
STATS = ["min", "max", "mean", "harmonic_mean"]


def batch(ck, tmp, *args):
    return subprocess.run([ck.psnrhvs, "batch", *args, "jobs.csv"], cwd=tmp,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)


def summary(tmp):
    with open(os.path.join(tmp, "jobs.summary.csv"), newline="") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    d = ck.data
    ref, dist = (os.path.join(d, "yuv420p_176x144_%s.y4m" % s) for s in ("ref", "dist"))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "jobs.csv"), "w") as f:
            f.write("id,reference,distorted,output,plot,precision\n")
            f.write("xml,%s,%s,out/a.xml,out/a.svg,\n" % (ref, dist))
            f.write("csv,%s,%s,out/b.csv,,\n" % (ref, dist))
            f.write("csv3,%s,%s,out/c.csv,,3\n" % (ref, dist))
            f.write("csvmax,%s,%s,out/d.csv,,max\n" % (ref, dist))
            f.write("sub,%s,%s,out/e.sub,,\n" % (ref, dist))
        p = batch(ck, tmp, "-q")
        ck.check(p.returncode == 0, "first run: %d %r" % (p.returncode, p.stderr))
        svg = os.path.join(tmp, "out", "a.svg")
        ck.check(os.path.isfile(svg), "first run: no plot")

        # ---- the plot removed: the job runs again and makes it
        os.unlink(svg)
        p = batch(ck, tmp)
        s = summary(tmp)
        ck.check(p.returncode == 0 and s["xml"]["status"] == "done" and
                 all(s[j]["status"] == "skipped" for j in ("csv", "csv3", "csvmax", "sub")),
                 "resume without the plot: %d %r" % (p.returncode,
                                                     {k: r["status"] for k, r in s.items()}))
        ck.check(b"job xml: its plot" in p.stderr and b"is missing, running it again" in p.stderr,
                 "resume without the plot: no note: %r" % p.stderr)
        ck.check(os.path.isfile(svg), "resume: the plot was not made again")
        p = batch(ck, tmp, "-q")
        s = summary(tmp)
        ck.check(p.returncode == 0 and all(r["status"] == "skipped" for r in s.values()),
                 "third run: %r" % {k: r["status"] for k, r in s.items()})

        # ---- pooled values of CSV and sub outputs, as a score file prints them
        for jid, out, digits in (("csv", "b.csv", 6), ("csv3", "c.csv", 3),
                                 ("csvmax", "d.csv", None), ("sub", "e.sub", 6)):
            row = s[jid]
            values = {}
            if out.endswith(".csv"):
                with open(os.path.join(tmp, "out", out), newline="") as f:
                    for r in csv.DictReader(f):
                        for k in KEYS:
                            values.setdefault(k, []).append(float(r[k]))
            else:
                with open(os.path.join(tmp, "out", out)) as f:
                    for line in f:
                        for k, v in re.findall(r"(psnr_hvs\w*): ([-\d.]+)", line):
                            values.setdefault(k, []).append(float(v))
            ck.check(sorted(values) == sorted(KEYS), "%s: keys %r" % (jid, sorted(values)))
            for k in KEYS:
                vals = values.get(k, [1.0])
                mean = sum(vals) / len(vals)
                for stat in STATS:
                    got = row.get("%s_%s" % (k, stat), "")
                    if digits is None:
                        ck.check(re.fullmatch(r"-?\d+(\.\d+)?(e[-+]\d+)?", got) is not None and
                                 float(got) == float(repr(float(got))),
                                 "%s %s_%s: %r" % (jid, k, stat, got))
                        continue
                    ck.check(re.fullmatch(r"-?\d+\.\d{%d}" % digits, got) is not None,
                             "%s %s_%s: %r is not printed with %d digits after the point" %
                             (jid, k, stat, got, digits))
                if digits is not None:
                    got = row.get("%s_mean" % k, "nan")
                    ck.check(got == "%.*f" % (digits, float(got)) and
                             math.isclose(float(got), mean, rel_tol=0,
                                          abs_tol=0.51 * 10 ** -digits),
                             "%s %s_mean: %r, the printed values' mean %r" % (jid, k, got, mean))
    ck.finish()


if __name__ == "__main__":
    main()
