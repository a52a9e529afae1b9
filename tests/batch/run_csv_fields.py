#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The jobs file's fields as RFC 4180 reads them: a quoted field keeps the spaces inside
its quotes (a path or an id may begin or end with one), an unquoted field loses those
around it. Two jobs whose ids differ only by those spaces, and a quoted output name with
a leading space: the summary names each id as written, and the file is made under its
quoted name.

Usage: run_csv_fields.py PSNRHVS DATA_DIR"""
import csv
import os
import subprocess
import sys
import tempfile


def main():
    cli, data = sys.argv[1], sys.argv[2]
    ref = os.path.join(data, "yuv420p_176x144_ref.y4m")
    dist = os.path.join(data, "yuv420p_176x144_dist.y4m")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "jobs.csv"), "w") as f:
            f.write("id,reference,distorted,output\n")
            f.write('" a ",%s,%s," spaced.json"\n' % (ref, dist))
            f.write('  a  ,%s,%s,plain.json\n' % (ref, dist))
        p = subprocess.run([cli, "batch", "-q", "jobs.csv"], cwd=tmp, capture_output=True,
                           timeout=300)
        if p.returncode != 0:
            failures.append("batch: exit %d, %r" % (p.returncode, p.stderr))
        with open(os.path.join(tmp, "jobs.summary.csv"), newline="") as f:
            ids = [row["id"] for row in csv.DictReader(f)]
        if ids != [" a ", "a"]:
            failures.append("summary ids %r, expected [' a ', 'a']" % ids)
        for name in (" spaced.json", "plain.json"):
            if not os.path.isfile(os.path.join(tmp, name)):
                failures.append("no output %r (files: %r)" % (name, sorted(os.listdir(tmp))))
    for f in failures:
        print("FAIL: " + f)
    print("csv fields: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
