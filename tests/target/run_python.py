#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs.target() (python/psnrhvs/target.py): the CLI's search with its flags as keywords.

    run_python.py PSNRHVS DATA_DIR PYTHON_DIR

- target() returns what `psnrhvs target -o search.json` writes for the same flags (but
  its run object: times), its probes the table;
- a target out of reach raises CLIError with the CLI's line, the search in .result;
- encoder options as a dict, a ':' in a value escaped.
"""
import os
import sys
import tempfile

CLI, DATA, PYDIR = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, PYDIR)
import targettest  # noqa: E402

try:
    import psnrhvs  # noqa: E402
except ImportError as e:
    print("SKIP: the psnrhvs package needs %s" % e.name)
    sys.exit(77)

SRC = os.path.join(DATA, "yuv420p_176x144_ref.y4m")


def main():
    ck = targettest.Check(CLI)
    targettest.skip_unless_built(ck, SRC)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cli.json")
        ck.target(["-r", SRC, "--encoder", "libx264", "--encoder-options", "threads=1",
                   "--target", "38", "--pool", "p10", "--full", "--backend", "cpu", "-q",
                   "-o", out], "cli")
        cli = targettest.stable(targettest.load(out))
        r = psnrhvs.target(SRC, encoder="libx264", encoder_options={"threads": 1}, target=38,
                           pool="p10", full=True, backend="cpu", cli=CLI)
        got = targettest.stable(r)
        ck.check(got == cli, "target(): %s, the CLI %s" % (got, cli))
        ck.check(r["run"]["backend"] == "cpu" and len(r["run"]["probes"]) == len(r["probes"]),
                 "target(): run %s" % r["run"])
        try:
            psnrhvs.target(SRC, encoder="libx264", target=99, range=(30, 51), full=True,
                           backend="cpu", cli=CLI)
            ck.check(False, "out of reach: no exception")
        except psnrhvs.CLIError as e:
            ck.check("out of reach" in str(e) and e.result and e.result["chosen"] is None and
                     ("at crf %g" % e.result["best"]["setting"]) in str(e),
                     "out of reach: %s" % e)
        r = psnrhvs.target(SRC, encoder="libx264", target=30, full=True, backend="cpu",
                           range=(30, 31), cli=CLI,
                           encoder_options={"threads": 1, "x264-params": "ref=1:bframes=0"})
        ck.check(r["encoder_options"] == "threads=1:x264-params=ref=1\\:bframes=0",
                 "options: %r" % r["encoder_options"])
        try:
            psnrhvs.target(SRC, encoder="nosuchenc", target=30, cli=CLI)
            ck.check(False, "no encoder: no exception")
        except psnrhvs.CLIError as e:
            ck.check("no video encoder 'nosuchenc'" in str(e) and e.result is None,
                     "no encoder: %s" % e)
    ck.finish()


main()
