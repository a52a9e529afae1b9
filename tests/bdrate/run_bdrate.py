#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs bdrate against an independent oracle, and its errors.

    run_bdrate.py PSNRHVS BITRATE_TOOL DATA_DIR

The oracle: SciPy's PchipInterpolator(metric, log10(rate)).integrate() over
the overlap for pchip (what the bjontegaard package computes), numpy's
polyfit/polyint for cubic (VCEG-M33), BD-metric the same way with the axes
swapped. Every value of `psnrhvs bdrate --json` must be within 1e-9 of it
relative, absolute below 1 (the one place a tolerance is specified: the
oracle's own rounding differs).
Synthetic ladders: seeded random curves (4 to 10 rungs, irregular steps,
partial overlaps; four curves per file, one per metric column); real
ladders: the 176x144 fixture encoded at 6 rates by two x264 presets at test
time, scored by the CLI, bitrates from input_bitrate(), written as psnrhvs
batch's summary (its _mean and _harmonic_mean columns). Then each error.
"""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import numpy as np
    from scipy.interpolate import PchipInterpolator
except ImportError as e:
    print(f"SKIP: the oracle needs {e.name} (Debian's python3-scipy, python3-numpy)")
    sys.exit(77)

CLI, BITRATE, DATA = sys.argv[1], sys.argv[2], Path(sys.argv[3])
KEYS = ("psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs")
TOL = 1e-9  # relative, absolute below 1


def close(a, b):
    return abs(a - b) <= TOL * max(1.0, abs(b))


sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from clitest import Checker  # noqa: E402  (tests/cli: one pass/fail tally for every driver)

checker = Checker(None, None)
check = checker.check
edge_zero = 0  # PCHIP end slopes the shape rule set to 0 (the branch is covered)


def oracle(anchor, test, method):
    """(bd_rate %, bd_metric dB) of test against anchor, lists of (kbps, dB)."""
    global edge_zero
    a, t = sorted(anchor), sorted(test)
    ra, ma = np.log10([p[0] for p in a]), np.array([p[1] for p in a])
    rt, mt = np.log10([p[0] for p in t]), np.array([p[1] for p in t])
    lo, hi = max(ma[0], mt[0]), min(ma[-1], mt[-1])
    rlo, rhi = max(ra[0], rt[0]), min(ra[-1], rt[-1])
    if method == "pchip":
        for x, y in ((ma, ra), (mt, rt)):
            if np.any(PchipInterpolator(x, y).derivative()(x[[0, -1]]) == 0):
                edge_zero += 1
        ia = PchipInterpolator(ma, ra).integrate(lo, hi)
        it = PchipInterpolator(mt, rt).integrate(lo, hi)
        ja = PchipInterpolator(ra, ma).integrate(rlo, rhi)
        jt = PchipInterpolator(rt, mt).integrate(rlo, rhi)
    else:
        def cint(x, y, lo, hi):
            # numpy's fit in a window mapped to [-1, 1] (np.polyfit's raw
            # Vandermonde loses digits on dB values near 40)
            p = np.polynomial.Polynomial.fit(x, y, 3).integ()
            return p(hi) - p(lo)
        ia, it = cint(ma, ra, lo, hi), cint(mt, rt, lo, hi)
        ja, jt = cint(ra, ma, rlo, rhi), cint(rt, mt, rlo, rhi)
    return (10 ** ((it - ia) / (hi - lo)) - 1) * 100, (jt - ja) / (rhi - rlo)


def run(*args):
    return subprocess.run([CLI, "bdrate", *map(str, args)], capture_output=True, text=True)


def write_table(path, rates, cols, header_extra=(), ids=True):
    """A rate table: id, bitrate and the metric columns given (name -> values)."""
    names = (["id"] if ids else []) + ["bitrate"] + list(cols) + list(header_extra)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for i, r in enumerate(rates):
            row = ([f"r{i}"] if ids else []) + [repr(r)] + [repr(cols[c][i]) for c in cols]
            f.write(",".join(row) + "\n")


def compare(anchor_path, test_path, anchor, test, method, what, keys=KEYS, extra=()):
    """anchor/test: key -> list of (kbps, dB)."""
    p = run(anchor_path, test_path, "--json", "--method", method, *extra)
    try:
        out = json.loads(p.stdout)
    except ValueError:
        check(False, f"{what}: no JSON (exit {p.returncode}): {p.stderr.strip()}")
        return
    check(p.returncode == 0, f"{what}: exit {p.returncode}: {p.stderr.strip()}")
    check(out["method"] == method, f"{what}: method {out['method']}")
    for k in keys:
        got = out["metrics"].get(k, {})
        want = oracle(anchor[k], test[k], method)
        ok = "bd_rate" in got and close(got["bd_rate"], want[0]) and close(got["bd_metric"],
                                                                               want[1])
        check(ok, f"{what} {k} {method}: {got} vs the oracle's {want}")


def curve(rng, n, start_rate, start_db):
    rates, dbs = [], []
    r, d = start_rate, start_db
    for _ in range(n):
        rates.append(round(r, 3))
        dbs.append(round(d, 6))
        r *= rng.uniform(1.2, 2.6)
        d += rng.choice((rng.uniform(0.05, 0.6), rng.uniform(0.6, 3.0), rng.uniform(3.0, 6.0)))
    return rates, dbs


tmp = Path(tempfile.mkdtemp(prefix="psnrhvs-bdrate-"))
try:
    # ---- synthetic ladders ----------------------------------------------------
    rng = random.Random(2025)
    pairs = 0
    for case in range(36):
        na, nt = rng.randint(4, 10), rng.randint(4, 10)
        ra = curve(rng, na, rng.uniform(50, 400), 0)[0]
        rt = curve(rng, nt, ra[0] * rng.uniform(0.5, 1.6), 0)[0]
        anchor, test, acols, tcols = {}, {}, {}, {}
        for k in KEYS:
            base = rng.uniform(25, 40)
            _, da = curve(rng, na, 1, base)
            _, dt = curve(rng, nt, 1, base + rng.uniform(-2.5, 2.5))
            acols[k], tcols[k] = da, dt
            anchor[k] = list(zip(ra, da))
            test[k] = list(zip(rt, dt))
        # a case whose curves miss each other is an error case, not this one
        keys = [k for k in KEYS
                if max(min(acols[k]), min(tcols[k])) < min(max(acols[k]), max(tcols[k]))]
        if len(keys) < len(KEYS):
            continue
        a_path, t_path = tmp / f"a{case}.csv", tmp / f"t{case}.csv"
        # file order is not rate order: the tables are sorted by rate
        order_a = list(range(na))
        rng.shuffle(order_a)
        write_table(a_path, [ra[i] for i in order_a],
                    {k: [acols[k][i] for i in order_a] for k in KEYS})
        write_table(t_path, rt, tcols)
        for method in ("pchip", "cubic"):
            compare(a_path, t_path, anchor, test, method, f"synthetic {case}")
        pairs += len(KEYS)
    check(pairs >= 80, f"only {pairs} synthetic pairs")
    check(edge_zero > 0, "no synthetic curve exercised the PCHIP end-slope rule")
    print(f"synthetic: {pairs} curve pairs x 2 methods ({edge_zero} curves with a zero end slope)")

    # ---- real ladders ---------------------------------------------------------
    ffmpeg = shutil.which("ffmpeg")
    real = 0
    if not ffmpeg:
        print("real ladders: skipped (no ffmpeg)")
    else:
        enc = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True,
                             text=True).stdout
        if " libx264 " not in enc:
            print("real ladders: skipped (ffmpeg has no libx264)")
        else:
            src = DATA / "yuv420p_176x144_ref.yuv"
            tables = {}
            for name, preset in (("anchor", "ultrafast"), ("test", "slow")):
                rows = []
                for crf in (16, 22, 28, 34, 40, 46):
                    out = tmp / f"{name}_{crf}.mp4"
                    subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt",
                                    "yuv420p", "-s", "176x144", "-r", "25", "-i", str(src),
                                    "-c:v", "libx264", "-preset", preset, "-crf", str(crf),
                                    str(out)], check=True)
                    js = tmp / f"{name}_{crf}.json"
                    subprocess.run([CLI, "-r", str(src), "-d", str(out), "-w", "176", "-h",
                                    "144", "--json", "--precision", "max", "-q", "-o", str(js)],
                                   check=True)
                    pooled = json.loads(js.read_text())["pooled_metrics"]
                    b = subprocess.run([BITRATE, str(out)], capture_output=True, text=True,
                                       check=True).stdout.split()
                    rows.append((f"{name}-crf{crf}", float(b[0]), pooled))
                path = tmp / f"{name}.summary.csv"
                stats = ("min", "max", "mean", "harmonic_mean")
                with open(path, "w") as f:
                    f.write("id,status,reference,distorted,output,format,frames,device,threads,"
                            "seconds,bitrate," +
                            ",".join(f"{k}_{s}" for k in KEYS for s in stats) + ",message\n")
                    for rid, kbps, pooled in rows:
                        f.write(f"{rid},done,ref.yuv,{rid}.mp4,{rid}.json,json,5,cpu,2,0.1,"
                                f"{kbps!r}," +
                                ",".join(repr(float(pooled[k][s])) for k in KEYS for s in stats) +
                                ",\n")
                tables[name] = (path, rows)
            for pool in ("mean", "harmonic_mean"):
                curves = {n: {k: [(kb, float(p[k][pool])) for _, kb, p in rows] for k in KEYS}
                          for n, (_, rows) in tables.items()}
                for method in ("pchip", "cubic"):
                    p = run(tables["anchor"][0], tables["test"][0], "--json", "--method", method,
                            "--pool", pool)
                    out = json.loads(p.stdout)
                    for k in KEYS:
                        got = out["metrics"][k]
                        a, t = sorted(curves["anchor"][k]), sorted(curves["test"][k])
                        mono = all(y[1] > x[1] for c in (a, t) for x, y in zip(c, c[1:]))
                        if not mono:  # chroma of a tiny clip may fall: then an error, named
                            check("not monotonic" in got.get("error", ""),
                                  f"real {k}: {got} for a curve that falls")
                            continue
                        want = oracle(curves["anchor"][k], curves["test"][k], method)
                        check("bd_rate" in got and close(got["bd_rate"], want[0]) and
                              close(got["bd_metric"], want[1]),
                              f"real {k} {method} {pool}: {got} vs the oracle's {want}")
                        real += 1
            check(real >= 4, f"only {real} real curve pairs were monotonic")
            # the text table names the files and each metric
            p = run(tables["anchor"][0], tables["test"][0])
            check("BD-rate of" in p.stdout and "psnr_hvs " in p.stdout, f"text: {p.stdout}")
            print(f"real ladders: {real} curve pairs (x264 ultrafast vs slow, 6 CRFs)")

    # ---- errors ---------------------------------------------------------------
    good_r, good_d = [100, 200, 400, 800], [30.0, 33.0, 36.0, 39.0]
    write_table(tmp / "good.csv", good_r, {"psnr_hvs": good_d})

    def error(name, rates, cols, words, extra_rows="", header_extra=(), code=1, raw=None):
        path = tmp / f"{name}.csv"
        if raw is not None:
            path.write_text(raw)
        else:
            write_table(path, rates, cols, header_extra)
            if extra_rows:
                with open(path, "a") as f:
                    f.write(extra_rows)
        p = run(tmp / "good.csv", path)
        msg = p.stderr.strip()
        check(p.returncode == code and all(w in msg for w in words),
              f"error {name}: exit {p.returncode}, {msg!r} lacks {words}")
        print(f"error {name}: {msg}")

    error("three", good_r[:3], {"psnr_hvs": good_d[:3]}, ["has 3 rungs", "at least 4"])
    error("falls", good_r, {"psnr_hvs": [30.0, 33.0, 32.5, 39.0]},
          ["psnr_hvs curve is not monotonic", "33.000000 dB at 200 kbit/s", "32.500000 dB",
           "r2", "must rise"])
    error("flat", good_r, {"psnr_hvs": [30.0, 33.0, 33.0, 39.0]}, ["not monotonic"])
    error("apart", good_r, {"psnr_hvs": [40.0, 41.0, 42.0, 43.0]},
          ["curves do not overlap", "30.000000..39.000000 dB", "40.000000..43.000000 dB"])
    error("rate apart", [1000, 2000, 4000, 8000], {"psnr_hvs": [31.0, 34.0, 37.0, 38.0]},
          ["do not overlap in rate", "100..800 kbit/s", "1000..8000 kbit/s"])
    error("same rate", [100, 200, 200, 800], {"psnr_hvs": good_d}, ["same bitrate", "r1", "r2"])
    error("infinite", good_r, {"psnr_hvs": [30.0, 33.0, 36.0, float("inf")]},
          ["+inf", "identical frames"])
    error("no rate", None, None, ["no bitrate column"], raw="id,psnr_hvs\na,30\n")
    error("bad rate", None, None, ["bitrate '-5' is not a positive number"],
          raw="bitrate,psnr_hvs\n100,30\n-5,31\n")
    error("bad value", None, None, ["psnr_hvs 'x' is not a number"],
          raw="bitrate,psnr_hvs\n100,30\n200,x\n")
    error("failed job", None, None, ["rung t2 has status 'failed'"],
          raw="id,status,bitrate,psnr_hvs_mean\nt1,done,100,30\nt2,failed,,\n")
    error("no metric", None, None, ["no metric column"], raw="bitrate,vmaf\n100,90\n")
    error("none common", good_r, {"psnr_hvs_y": good_d}, ["no metric column in common"])
    p = run(tmp / "good.csv", tmp / "missing.csv")
    check(p.returncode == 1 and "cannot open" in p.stderr, f"missing: {p.stderr}")
    for args, words in (((tmp / "good.csv",), "needs two rate tables"),
                        ((tmp / "good.csv", tmp / "good.csv", "--method", "akima"),
                         "unknown --method"),
                        ((tmp / "good.csv", tmp / "good.csv", "--pool", "median"),
                         "unknown --pool"),
                        ((tmp / "good.csv", tmp / "good.csv", tmp / "good.csv"),
                         "more than two")):
        p = run(*args)
        check(p.returncode == 2 and words in p.stderr, f"usage {args}: {p.stderr}")
    # a metric that fails beside one that works: the other is still printed, exit 1
    write_table(tmp / "two.csv", good_r, {"psnr_hvs_y": good_d, "psnr_hvs": good_d})
    write_table(tmp / "twobad.csv", [110, 220, 440, 880],
                {"psnr_hvs_y": [30.5, 33.5, 36.5, 39.5], "psnr_hvs": [31, 30, 35, 39]})
    p = run(tmp / "two.csv", tmp / "twobad.csv", "--json")
    out = json.loads(p.stdout)
    check(p.returncode == 1 and "bd_rate" in out["metrics"]["psnr_hvs_y"] and
          "not monotonic" in out["metrics"]["psnr_hvs"]["error"], f"partial: {p.stdout}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

checker.finish()
