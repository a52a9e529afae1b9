#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs parity: the default list agrees on every golden pair; a list that
really differs (mask_product) exits 3 and names exactly the frames that differ;
bad lists are usage errors; an explicit backend that cannot open is an error."""
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

IDENTICAL = re.compile(r"^parity: (\d+) frames, (\d+) configurations, identical\n$")


def check_identical(ck, what, p, frames, min_configs=3):
    out = p.stdout.decode(errors="replace")
    m = IDENTICAL.match(out)
    ck.check(p.returncode == 0 and m is not None,
             "%s: exit %d, stdout %r, stderr %r" % (what, p.returncode, out, p.stderr))
    if m:
        ck.check(int(m.group(1)) == frames, "%s: %s frames, expected %d" % (what, m.group(1), frames))
        ck.check(int(m.group(2)) >= min_configs,
                 "%s: %s configurations, expected at least %d" % (what, m.group(2), min_configs))


def raw_scores(ck, args, what):
    """Per-frame {key: value} with raw hex floats, from the scoring CLI itself."""
    p = ck.run_ok(args + ["--json", "--precision", "max", "--raw", "-o", "-"], what)
    if p.returncode:
        return None
    frames, _, _ = clitest.parse_json_output(p.stdout.decode())
    return frames


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    d = ck.data

    # 1. the default list on every golden pair, and the --backend parity alias
    for g in clitest.load_goldens(d):
        args = clitest.golden_args(d, g)
        check_identical(ck, "parity " + g["name"], ck.run(["parity"] + args), g["frames"])
    g = json.load(open(os.path.join(d, "golden", "yuv420p_176x144.json")))
    base = clitest.golden_args(d, g)
    check_identical(ck, "--backend parity", ck.run(base + ["--backend", "parity"]), 5)
    check_identical(ck, "parity --subsample 2", ck.run(["parity"] + base + ["--subsample", "2"]), 3)
    check_identical(ck, "parity --frame_cnt 2 luma only",
                    ck.run(["parity"] + base + ["--frame_cnt", "2", "--feature",
                                                "psnr_hvs=enable_chroma=false"]), 2)
    check_identical(ck, "explicit CPU list",
                    ck.run(["parity"] + base + ["--backends",
                                                "cpu:scalar:threads=1,cpu:auto:threads=2,cpu,"
                                                "cpu:auto:frames_in_flight=1"]), 5, 4)
    # stdin is read once and fed to every configuration
    with open(os.path.join(d, g["distorted"]), "rb") as f:
        dist = f.read()
    args = ["-r", os.path.join(d, g["reference"]), "-d", "-", "-w", "176", "-h", "144"]
    check_identical(ck, "parity on stdin", ck.run(["parity"] + args, input_bytes=dist), 5)

    # 2. it can fail: mask_product=exact changes some frames of this pair in the last bit
    plain = raw_scores(ck, base, "scores, mask_product=float")
    exact = raw_scores(ck, base + ["--feature", "psnr_hvs=mask_product=exact"],
                       "scores, mask_product=exact")
    if plain and exact:
        keys = ["raw_y", "raw_cb", "raw_cr"] + clitest.KEYS4
        want = {k: [n for (n, a), (_, b) in zip(plain, exact) if a[k] != b[k]] for k in keys}
        ck.check(any(want.values()), "mask_product=exact changes no frame: the test proves nothing")
        p = ck.run(["parity"] + base + ["--backends", "cpu:scalar,cpu:scalar:mask_product=exact"])
        out = p.stdout.decode(errors="replace")
        ck.check(p.returncode == 3, "mask_product parity: exit %d, expected 3; %r %r"
                 % (p.returncode, out, p.stderr))
        ck.check(out.startswith("parity: 5 frames, 2 configurations, 1 differs from cpu:scalar\n"),
                 "mask_product parity: first line %r" % out[:100])
        for k in keys:
            m = re.search(r"^  %s +(.*)$" % re.escape(k), out, re.M)
            if not ck.check(m is not None, "mask_product parity: no line for %s in %r" % (k, out)):
                continue
            line = m.group(1)
            if not want[k]:
                ck.check(line == "identical", "%s: %r, expected identical" % (k, line))
                continue
            fm = re.search(r"; frames ([0-9, ]+)$", line)
            got = [int(x) for x in fm.group(1).split(",")] if fm else None
            ck.check(got == want[k], "%s: frames %r, expected %r (%r)" % (k, got, want[k], line))
            ck.check(line.startswith("%d of 5 frames differ; largest difference " % len(want[k])),
                     "%s: %r" % (k, line))
        # the same pair the other way round, and three configurations: still caught
        p = ck.run(["parity"] + base + ["--backends",
                                        "cpu:scalar:mask_product=exact,cpu:auto,cpu:scalar"])
        ck.check(p.returncode == 3 and b"2 differ from cpu:scalar:mask_product=exact" in p.stdout,
                 "three configurations: exit %d %r" % (p.returncode, p.stdout[:200]))

    # 3. usage errors (exit 2), one line on stderr
    for lst, phrase in (("cpu:scalar", "at least two"), ("metal,cpu", "unknown backend 'metal'"),
                        ("cpu:mmx,cpu", "bad 'mmx'"), ("cpu:threads=x,cpu", "bad value 'x'"),
                        ("cpu,,cpu", "empty configuration"), ("", "empty configuration"),
                        ("cpu:device=1,cpu", "unknown option 'device'"),
                        ("cuda:scalar,cpu", "bad 'scalar'"), ("cpu:scalar:avx2,cpu", "bad 'avx2'"),
                        ("opencl:exact_helpers=2,cpu", "bad value '2'"),
                        ("cpu:mask_product=double,cpu", "bad value 'double'")):
        p = ck.run(["parity"] + base + ["--backends", lst])
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 2 and phrase in err and len(err.splitlines()) == 1
                 and err.startswith("psnrhvs: bad --backends: "),
                 "--backends %r: exit %d, stderr %r" % (lst, p.returncode, err))
        ck.check(p.stdout == b"", "--backends %r: stdout %r" % (lst, p.stdout))
    with tempfile.TemporaryDirectory() as tmp:
        for extra, phrase in ((["--backends", "cpu,cpu"], "--backends is for parity"),
                              (["--backend", "parity", "-o", os.path.join(tmp, "x.xml")], "-o"),
                              (["--backend", "parity", "--json"], "--json"),
                              (["--backend", "parity", "--backend", "cpu"], "cannot be combined")):
            p = ck.run(base + extra)
            ck.check(p.returncode == 2 and phrase.encode() in p.stderr,
                     "%s: exit %d, stderr %r" % (extra, p.returncode, p.stderr))
        ck.check(os.listdir(tmp) == [], "parity with -o left %s" % os.listdir(tmp))

    # 4. an explicitly listed backend that cannot open is an error; in the default list it is skipped
    p = ck.run(["--list-devices"])
    missing = [l.split(":")[0] for l in p.stdout.decode().splitlines() if l.endswith(": not built in")]
    for b in missing:
        p = ck.run(["parity"] + base + ["--backends", "cpu," + b])
        ck.check(p.returncode == 1 and ("cannot open %s" % b).encode() in p.stderr,
                 "explicit %s (not built): exit %d %r" % (b, p.returncode, p.stderr))
    p = ck.run(["parity"] + base + ["--backends", "cpu,cpu:auto:threads=1,opencl:device=99"])
    ck.check(p.returncode == 1 and b"cannot open opencl:device=99" in p.stderr,
             "opencl:device=99: exit %d %r" % (p.returncode, p.stderr))

    # 5. a read error: the message of the scoring run, exit 1
    with tempfile.TemporaryDirectory() as tmp:
        trunc = os.path.join(tmp, "trunc.yuv")
        with open(trunc, "wb") as f:
            f.write(dist[:-100])
        p = ck.run(["parity", "-r", os.path.join(d, g["reference"]), "-d", trunc, "-w", "176",
                    "-h", "144"])
        ck.check(p.returncode == 1 and b"truncated frame 4 in " in p.stderr and p.stdout == b"",
                 "parity on a truncated file: exit %d %r %r" % (p.returncode, p.stdout, p.stderr))
    ck.finish()


if __name__ == "__main__":
    main()
