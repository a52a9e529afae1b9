#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs target's search against an exhaustive sweep, its samples, its errors.

    run_search.py PSNRHVS DATA_DIR

- For libx264 and libx265 (or libaom-av1) on the 176x144 fixture (--full: 5 frames), every
  pooling (mean, harmonic_mean, min, p10): `--sweep` probes every CRF of the range; for
  targets 32, 36, 40 and 44 dB the search's setting must be the highest CRF whose swept
  score reaches the target (or none, and exit 1), and each probe of the search must have the
  sweep's score and bytes at its setting; at most 10 probes (the binary search and the
  settings it checks past its boundary).
- -o .csv: a rate table (id, crf, bitrate, psnr_hvs_mean, ...) of the JSON's probes, which
  psnrhvs report draws.
- Samples: a synthetic 20 s clip with scene changes at frames 70, 235 and 450: the
  segments of the documented plan, moved to a scene change within their window.
- Errors: a target out of reach (the best score and its setting named, the JSON still
  written), a missing encoder, an option the encoder lacks, a bad value, the searched
  parameter among the options, a --range outside the encoder's, a bad --pool, -o onto the
  source: one line on stderr, a non-zero exit, the source untouched.
"""
import csv
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import targettest  # noqa: E402
from targettest import load, y4m_with_cuts  # noqa: E402

CLI, DATA = sys.argv[1], sys.argv[2]
SRC = os.path.join(DATA, "yuv420p_176x144_ref.y4m")
POOLS = ("mean", "harmonic_mean", "min", "p10")
TARGETS = (32.0, 36.0, 40.0, 44.0)


def sweep_vs_search(ck, tmp, encoder, options):
    base = ["-r", SRC, "--encoder", encoder, "--encoder-options", options, "--full",
            "--backend", "cpu", "-q"]
    for pool in POOLS:
        sw = os.path.join(tmp, "sweep_%s_%s.json" % (encoder, pool))
        ck.target(base + ["--pool", pool, "--target", "0", "--sweep", "-o", sw],
                  "%s %s sweep" % (encoder, pool))
        probes = {p["setting"]: p for p in load(sw)["probes"]}
        lo, hi = load(sw)["range"]
        if pool == "mean":
            csv_table(ck, tmp, base, probes, encoder)
        ck.check(sorted(probes) == list(range(int(lo), int(hi) + 1)),
                 "%s sweep: every setting of %g-%g" % (encoder, lo, hi))
        for target in TARGETS:
            out = os.path.join(tmp, "search.json")
            p = ck.run(["target"] + base + ["--pool", pool, "--target", str(target), "-o", out])
            reach = [s for s, q in probes.items() if q["score"] is not None and q["score"] >= target]
            want = max(reach) if reach else None
            doc = load(out)
            got = doc["chosen"]["setting"] if doc["chosen"] else None
            what = "%s %s target %g" % (encoder, pool, target)
            ck.check(got == want, "%s: search chose %s, the sweep %s" % (what, got, want))
            ck.check(p.returncode == (0 if want is not None else 1), "%s: exit %d" %
                     (what, p.returncode))
            for q in doc["probes"]:
                ck.check(q == probes.get(q["setting"]), "%s: probe %s differs from the sweep's"
                         " %s" % (what, q, probes.get(q["setting"])))
            ck.check(len(doc["probes"]) <= 10, "%s: %d probes for 52 or 64 settings" %
                     (what, len(doc["probes"])))


def csv_table(ck, tmp, base, probes, encoder):
    """-o .csv: a rate table of the same probes, which psnrhvs report draws."""
    out = os.path.join(tmp, "sweep_%s.csv" % encoder)
    ck.target(base + ["--target", "0", "--sweep", "-o", out], "%s csv" % encoder)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    got = {float(r["crf"]): (float(r["bitrate"]), float(r["psnr_hvs_mean"]), int(r["bytes"]))
           for r in rows}
    # JSON's null is an infinite score (a lossless probe): "inf" in the CSV.
    want = {s: (p["kbps"], float("inf") if p["score"] is None else p["score"], p["bytes"])
            for s, p in probes.items()}
    ck.check(got == want and all(r["id"] == "crf%g" % float(r["crf"]) for r in rows),
             "%s csv: its rows differ from the JSON's probes" % encoder)
    page = os.path.join(tmp, "rd.html")
    p = ck.run(["report", out, "-o", page])
    ck.check(p.returncode == 0 and os.path.getsize(page) > 0, "%s csv: psnrhvs report: %s" %
             (encoder, p.stderr.decode()))


def samples(ck, tmp):
    clip = os.path.join(tmp, "cuts.y4m")
    y4m_with_cuts(clip)
    base = ["-r", clip, "--encoder", "libx264", "--encoder-options", "threads=1",
            "--target", "30", "--range", "30-31", "--backend", "cpu", "-q"]
    out = os.path.join(tmp, "samples.json")
    # Plan: k segments of L frames; part = 500 // k; window = min(part - L, L // 2);
    # start_i = i * part + (part - L - window) // 2, then the first scene change in
    # (start_i, start_i + window] if any.
    for flags, want in ((["--samples", "3", "--sample-seconds", "1"],
                         [(70, 25), (235, 25), (396, 25)]),
                        ([], [(70, 50), (235, 50), (377, 50)]),
                        (["--full"], [(0, 500)])):
        ck.target(base + flags + ["-o", out], "samples %s" % flags)
        doc = load(out)
        got = [(s["start"], s["frames"]) for s in doc["samples"]]
        ck.check(got == want, "samples %s: %s, want %s" % (flags, got, want))
        ck.check(doc["source"]["frames"] == 500, "samples: the source's frames")


def one_line_error(ck, what, args, expect, status=1, encoder_says=False):
    """One line of psnrhvs's (encoder_says: after libx264's own, which it prints itself)."""
    p = ck.run(["target"] + args)
    err = p.stderr.decode(errors="replace")
    if encoder_says:
        err = "\n".join(line for line in err.splitlines() if not line.startswith("x264 ["))
    ck.check(p.returncode == status, "%s: exit %d, want %d (%s)" % (what, p.returncode, status,
                                                                    err))
    ck.check(len(err.strip().splitlines()) == 1 and all(e in err for e in expect),
             "%s: stderr %r lacks %s" % (what, err, expect))
    return p


def errors(ck, tmp):
    base = ["-r", SRC, "--full", "--backend", "cpu", "-q"]
    x264 = base + ["--encoder", "libx264", "--encoder-options", "threads=1"]
    out = os.path.join(tmp, "unreachable.json")
    # CRF 0 is lossless (an infinite score): the range stops short of it.
    x264 += ["--range", "30-51"]
    one_line_error(ck, "unreachable", x264 + ["--target", "99", "-o", out],
                   ["out of reach", "best found is", "at crf"])
    best = load(out)["best"] if os.path.exists(out) else None
    ck.check(best is not None and load(out)["chosen"] is None, "unreachable: the JSON")
    if best:
        p = ck.run(["target"] + x264 + ["--target", "99"])
        ck.check(("%.4f dB at crf %g" % (best["score"], best["setting"])) in
                 p.stderr.decode(), "unreachable: names the best probe")
    one_line_error(ck, "missing encoder", base + ["--encoder", "nosuchenc", "--target", "40"],
                   ["no video encoder 'nosuchenc'"])
    one_line_error(ck, "unknown option", base + ["--encoder", "libx264", "--target", "40",
                                                 "--encoder-options", "nosuchopt=1"],
                   ["libx264 has no option 'nosuchopt'"])
    one_line_error(ck, "bad value", base + ["--encoder", "libx264", "--target", "40",
                                            "--encoder-options", "preset=bogus"],
                   ["cannot open libx264", "Error setting preset/tune bogus"], encoder_says=True)
    one_line_error(ck, "crf given", base + ["--encoder", "libx264", "--target", "40",
                                            "--encoder-options", "crf=20"],
                   ["sets crf, which target searches"])
    one_line_error(ck, "range", base + ["--encoder", "libx264", "--target", "40",
                                        "--range", "10-90"], ["outside libx264's crf range 0-51"])
    one_line_error(ck, "pool", base + ["--encoder", "libx264", "--target", "40", "--pool", "p0"],
                   ["bad --pool"], status=2)
    with open(SRC, "rb") as f:
        before = f.read()
    one_line_error(ck, "-o source", base + ["--encoder", "libx264", "--target", "40", "-o", SRC],
                   [SRC])
    with open(SRC, "rb") as f:
        ck.check(f.read() == before, "-o source: the source changed")


def main():
    ck = targettest.Check(CLI)
    targettest.skip_unless_built(ck, SRC)
    with tempfile.TemporaryDirectory() as tmp:
        sweep_vs_search(ck, tmp, "libx264", "threads=1")
        second = [e for e in (("libx265", "x265-params=log-level=error\\:pools=1"),
                              ("libaom-av1", "cpu-used=8:threads=1"))
                  if targettest.has_encoder(ck, SRC, e[0])]
        if second:
            sweep_vs_search(ck, tmp, *second[0])
        else:
            print("note: no libx265 or libaom-av1: only libx264 searched")
        samples(ck, tmp)
        errors(ck, tmp)
    ck.finish()


main()
