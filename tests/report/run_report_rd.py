#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs report with rate tables: rate-distortion curves and the BD-rate table.

Three rate tables (a bdrate-style table, psnrhvs batch's summary with its _mean
columns, one whose chroma curve falls) and a score file: each table is one curve
per key on a log rate axis (the points' x positions linear in log10(rate), their
y in dB), every rung a point carrying its rate and value; the BD-rate table holds
`psnrhvs bdrate --json`'s values against the first table, to the digits shown, and
the falling curve's error in its cell and below the table; the score file keeps
its per-frame section. A single table gets a note instead of a BD table. Nothing
refers outside the page. Headless Chromium renders it (BUILD/report-rd-screenshot.png)
where present.

Usage: run_report_rd.py PSNRHVS DATA_DIR BUILD_DIR"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import clitest  # noqa: E402
from run_report import chromium_screenshot, check_self_contained, parse_page  # noqa: E402

KEYS = ["psnr_hvs", "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr"]


class RdPage:
    """The rate-distortion parts of a page: points and curves by (key, curve)."""

    def __init__(self, page):
        import re
        self.page = page
        self.points = {}
        for m in re.finditer(r"<circle class=\"rd-point\"([^>]*)>", page.raw):
            a = dict(re.findall(r"([\w-]+)=\"([^\"]*)\"", m.group(1)))
            self.points.setdefault((a["data-key"], a["data-curve"]), []).append(
                (float(a["data-rate"]), float(a["data-db"]), float(a["cx"]), float(a["cy"])))
        self.curves = re.findall(r"<path class=\"rd-curve\" data-key=\"([^\"]*)\" "
                                 r"data-curve=\"([^\"]*)\"", page.raw)


def chromium_widths(ck, page, tmp):
    """(the page's scroll width, its window's width) in Chromium at 1400x1000: a copy of the
    page with a script that writes them into the DOM, which --dump-dom prints."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    probe = os.path.join(tmp, "widths.html")
    write(probe, text.replace("</body>", "<script>var e=document.documentElement;"
                                         "document.body.setAttribute('data-widths',"
                                         "e.scrollWidth+','+e.clientWidth);</script></body>"))
    profile = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", "--user-data-dir=" + profile, "--window-size=1400,1000",
           "--dump-dom", "file://" + probe]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           timeout=180)
    except subprocess.TimeoutExpired:
        ck.check(False, "chromium --dump-dom did not finish in 180 s")
        return None
    m = re.search(r'data-widths="(\d+),(\d+)"', p.stdout.decode(errors="replace"))
    ck.check(m is not None, "chromium --dump-dom: no widths (exit %d): %s" %
             (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    return (int(m.group(1)), int(m.group(2))) if m else None


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    cli, data, build = ck.psnrhvs, ck.data, os.path.abspath(sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, "x264.csv")
        write(a, "id,bitrate,psnr_hvs,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr\n"
                 "crf40,120.5,30.1,29.5,38.0,39.0\ncrf34,260,33.2,32.7,39.5,40.2\n"
                 "crf28,540,36.0,35.8,41.0,41.5\ncrf22,1180,38.9,38.1,42.2,42.8\n")
        b = os.path.join(tmp, "x265.summary.csv")
        # psnrhvs batch's summary, with the bitrate column: its _mean columns are read
        stats = ("min", "max", "mean", "harmonic_mean")
        rows = [("q1", 100.0, (30.4, 29.9, 38.6, 39.3)), ("q2", 205.0, (33.7, 33.0, 40.0, 40.6)),
                ("q3", 410.0, (36.3, 36.2, 41.4, 41.9)), ("q4", 860.0, (39.5, 38.3, 42.6, 43.1))]
        with open(b, "w") as f:
            f.write("id,status,reference,distorted,output,format,frames,device,threads,seconds,"
                    "bitrate," + ",".join(f"{k}_{s}" for k in
                                          ("psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs")
                                          for s in stats) + ",message\n")
            for rid, kbps, (c, y, cb, cr) in rows:
                vals = {"psnr_hvs": c, "psnr_hvs_y": y, "psnr_hvs_cb": cb, "psnr_hvs_cr": cr}
                f.write(f"{rid},done,ref.y4m,{rid}.mkv,{rid}.json,json,60,cpu,2,1.5,{kbps}," +
                        ",".join(repr(vals[k] + (0.5 if s == "max" else -0.5 if s == "min"
                                                 else 0.0))
                                 for k in ("psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs")
                                 for s in stats) + ",\n")
        c = os.path.join(tmp, "av1.csv")
        write(c, "bitrate,psnr_hvs,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr\n"
                 "90,30.9,30.1,38.4,39.9\n190,34.2,33.4,38.1,40.9\n"
                 "400,37.0,36.6,41.9,42.0\n830,40.1,39.2,43.0,43.5\n")
        scores = os.path.join(tmp, "rung.json")
        subprocess.run([cli, "-r", os.path.join(data, "yuv420p_176x144_ref.y4m"), "-d",
                        os.path.join(data, "yuv420p_176x144_dist.y4m"), "--json", "-q", "-o",
                        scores], check=True)
        page_path = os.path.join(tmp, "rd.html")
        p = subprocess.run([cli, "report", a, b, c, scores, "--title", "Ladders", "-o",
                            page_path], capture_output=True, text=True)
        ck.check(p.returncode == 0, f"report: exit {p.returncode}: {p.stderr}")
        page = parse_page(page_path)
        rd = RdPage(page)
        check_self_contained(ck, page, "rd page")
        tables = {"x264": a, "x265.summary": b, "av1": c}
        for key in KEYS:
            for name in tables:
                pts = rd.points.get((key, name), [])
                ck.check(len(pts) == 4, f"{key} {name}: {len(pts)} points")
                ck.check((key, name) in rd.curves, f"{key} {name}: no curve")
                ys = sorted(pts, key=lambda q: q[1])
                ck.check(all(y1[3] < y0[3] for y0, y1 in zip(ys, ys[1:])),
                         f"{key} {name}: higher dB drawn lower")
            # one log axis for all curves of a chart: px per decade the same everywhere
            allp = [q for n in tables for q in rd.points.get((key, n), [])]
            allp.sort()
            r0, cx0 = allp[0][0], allp[0][2]
            scales = [(q[2] - cx0) / (math.log10(q[0]) - math.log10(r0)) for q in allp[1:]
                      if q[0] != r0]
            ck.check(max(scales) - min(scales) < 0.2 * 10,
                     f"{key}: x not linear in log10(rate): px/decade {min(scales)}..{max(scales)}")
        x265 = {q[0]: q[1] for q in rd.points[("psnr_hvs", "x265.summary")]}
        ck.check(x265 == {100.0: 30.4, 205.0: 33.7, 410.0: 36.3, 860.0: 39.5},
                 f"the summary's _mean columns: {x265}")
        # the BD table: psnrhvs bdrate's values, to the digits shown
        bd = page.tables.get("bdrate", [])
        ck.check(len(bd) == 3, f"BD table rows: {bd}")
        header = bd[0] if bd else []
        for row, path in zip(bd[1:], (b, c)):
            j = json.loads(subprocess.run([cli, "bdrate", a, path, "--json"],
                                          capture_output=True, text=True).stdout)
            cells = dict(zip(header[1:], row[1:]))
            for key in KEYS:
                m = j["metrics"][key]
                if "error" in m:
                    ck.check(cells.get(f"{key} BD-rate", "").startswith("error"),
                             f"{row[0]} {key}: {cells} for the error {m['error']}")
                    continue
                ck.check(cells.get(f"{key} BD-rate") == "%+.3f %%" % m["bd_rate"] and
                         cells.get(f"{key} BD-metric") == "%+.3f dB" % m["bd_metric"],
                         f"{row[0]} {key}: {cells} vs bdrate's {m}")
        ck.check("x264</b>, the first rate table" in page.raw, "the anchor is not named")
        ck.check('class="bd-error"' in page.raw and "psnr_hvs_cb curve is not monotonic"
                 in page.raw, "av1's falling Cb curve: no error shown")
        rungs = page.tables.get("rungs", [])
        ck.check(len(rungs) == 13, f"rungs table: {len(rungs)} rows")
        ck.check("Per frame" in page.raw and any(k == "psnr_hvs" for k, _, _ in page.curves),
                 "the score file's per-frame section is missing")
        ck.check("1 rendition &#183; 3 rate tables" in page.raw, "the meta line")

        # one table: no BD table, a note; only tables: no per-frame section
        one = os.path.join(tmp, "one.html")
        subprocess.run([cli, "report", a, "-o", one], check=True)
        op = parse_page(one)
        ck.check("bdrate" not in op.tables and "One rate table" in op.raw, "one table")
        ck.check("Per frame" not in op.raw and not op.curves, "one table: a per-frame section")
        # cubic and the harmonic mean, as bdrate has them
        cub = os.path.join(tmp, "cubic.html")
        subprocess.run([cli, "report", a, b, "--bd-method", "cubic", "--pool", "harmonic_mean",
                        "-o", cub], check=True)
        j = json.loads(subprocess.run([cli, "bdrate", a, b, "--json", "--method", "cubic",
                                       "--pool", "harmonic_mean"], capture_output=True,
                                      text=True).stdout)
        cp = parse_page(cub)
        cells = dict(zip(cp.tables["bdrate"][0][1:], cp.tables["bdrate"][1][1:]))
        ck.check(cells["psnr_hvs BD-rate"] == "%+.3f %%" % j["metrics"]["psnr_hvs"]["bd_rate"],
                 f"cubic: {cells} vs {j}")
        # a broken table is an error naming it, no page
        bad = os.path.join(tmp, "bad.csv")
        write(bad, "bitrate,psnr_hvs\n100,x\n")
        out = os.path.join(tmp, "bad.html")
        p = subprocess.run([cli, "report", a, bad, "-o", out], capture_output=True, text=True)
        ck.check(p.returncode == 1 and "bad.csv: rung line 2: psnr_hvs 'x' is not a number"
                 in p.stderr and not os.path.exists(out), f"bad table: {p.stderr}")
        p = subprocess.run([cli, "report", a, "--bd-method", "akima", "-o", out],
                           capture_output=True, text=True)
        ck.check(p.returncode == 2 and "unknown --bd-method" in p.stderr, f"usage: {p.stderr}")

        # The BD table fits a 1,400-pixel page: in a box that scrolls, its heads wrapping.
        ck.check(re.search(r'<div class="wide">\s*<table id="bdrate">', page.raw) is not None and
                 ".wide{max-width:100%;overflow-x:auto}" in page.raw,
                 "the BD table is not in a box of the page's width that scrolls")
        skip = chromium_screenshot(ck, page_path, os.path.join(build, "report-rd-screenshot.png"),
                                   tmp)
        if not skip:
            widths = chromium_widths(ck, page_path, tmp)
            ck.check(widths is not None and widths[0] <= widths[1],
                     "the page is wider than its 1,400-pixel window (scroll width, window): %r"
                     % (widths,))
    if skip and not ck.failures:
        print("%d checks passed; SKIP the Chromium rendering: %s" % (ck.checks, skip))
        sys.exit(77)
    ck.finish()


if __name__ == "__main__":
    main()
