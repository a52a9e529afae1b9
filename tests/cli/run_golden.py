#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every golden pair through the CLI (--json --precision max --raw): bit-exact values."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    goldens = clitest.load_goldens(ck.data)
    ck.check(len(goldens) >= 17, "expected at least 17 golden files, found %d" % len(goldens))
    with tempfile.TemporaryDirectory() as tmp:
        for g in goldens:
            out = os.path.join(tmp, g["name"] + ".json")
            p = ck.run_ok(clitest.golden_args(ck.data, g) + ["--json", "--precision", "max", "--raw",
                                                             "-o", out], g["name"])
            if p.returncode or not ck.check(os.path.exists(out), g["name"] + ": no output file"):
                continue
            with open(out) as f:
                frames, pooled, doc = clitest.parse_json_output(f.read())
            clitest.compare_frames(ck, g["name"], g, frames)
            clitest.compare_pooled(ck, g["name"], g, pooled)
            if g["name"].startswith("identical"):
                # +inf is written as JSON null, everywhere
                ck.check(all(v is None for fr in doc["frames"] for k, v in fr["metrics"].items()
                             if not k.startswith("raw_")), "identical: per-frame values not null")
                ck.check(all(v is None for d in doc["pooled_metrics"].values() for v in d.values()),
                         "identical: pooled values not null")
    ck.finish()


if __name__ == "__main__":
    main()
