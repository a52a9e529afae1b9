#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs report and --plot.

report: a page from the CLI's own outputs (JSON default and --precision max --raw, an
identical pair's nulls, luma only, XML and CSV) has one curve per key and rendition, the
pooled values, nearest-rank percentiles and worst frames of the files, notes for +inf and
luma only, and nothing that would fetch (no http:, https:, //, script, link, url(), src=
other than data:). A long ladder (3 x 30000 frames, written here) keeps a one-frame dip
visible and its paths bounded (first/lowest/highest/last per pixel column). Headless
Chromium renders it; the screenshot, BUILD/report-screenshot.png, must be a 1400x1000 PNG
with many colours and each rendition's legend colour (read with zlib, no PIL). Without
chromium the Chromium part exits 77 with the reason, after every other check.

--plot: a valid SVG with one curve per key (two for luma only, the +inf band for an
identical pair), a bad path fails before scoring, and parity refuses it.

Usage: run_report.py PSNRHVS DATA_DIR BUILD_DIR"""
import html.parser
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import clitest  # noqa: E402

KEYS = ["psnr_hvs", "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr"]
COLORS = [(0x1f, 0x77, 0xb4), (0xd6, 0x27, 0x28), (0x2c, 0xa0, 0x2c), (0xff, 0x7f, 0x0e)]


class Page(html.parser.HTMLParser):
    """The curves (path class=curve), tables by id, and every tag and attribute."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.curves = []  # (key, rendition, d)
        self.tags = []
        self.attrs = []
        self.tables = {}
        self._table = None
        self._row = None
        self._cell = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag == "path" and "curve" in (a.get("class") or "").split():
            self.curves.append((a.get("data-key"), a.get("data-rendition"), a.get("d", "")))
        if tag == "table":
            self._table = a.get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell += data


def parse_page(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    p.raw = text
    return p


def check_self_contained(ck, page, what):
    low = page.raw.lower()
    for bad in ("http:", "https:", "//", "<script", "<link", "<img", "<iframe", "<object",
                "<embed", "url(", "@import"):
        ck.check(bad not in low, "%s: the page holds %r" % (what, bad))
    for name, value in page.attrs:
        if name in ("src", "href", "xlink:href", "srcset", "action", "poster", "data"):
            ck.check((value or "").startswith("data:"),
                     "%s: attribute %s=%r refers outside the page" % (what, name, value))


def path_points(d):
    """(x, y) of every point of an SVG path made of M, L and h commands."""
    pts = []
    for cmd, x, y in re.findall(r"([ML])\s*(-?[\d.]+)\s+(-?[\d.]+)", d):
        pts.append((float(x), float(y)))
    return pts


def nearest_rank(values, p):
    s = sorted(values)
    r = max(1, min(len(s), math.ceil(p / 100.0 * len(s))))
    return s[r - 1]


def fmt3(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "\u2014"
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    return "%.3f" % v


def json_frames(path):
    with open(path) as f:
        doc = json.load(f)
    frames = []
    for fr in doc["frames"]:
        m = {k: (math.inf if v is None else v) for k, v in fr["metrics"].items()
             if k in KEYS}
        frames.append((fr["frameNum"], m))
    pooled = {k: {s: (math.inf if v is None else v) for s, v in d.items()}
              for k, d in doc["pooled_metrics"].items()}
    return frames, pooled


def fixtures_report(ck, tmp):
    """The CLI's outputs of fixture pairs, a rendition each."""
    data = ck.data
    ins = []

    def score(name, args):
        out = os.path.join(tmp, name)
        ck.run_ok(args + ["-q", "-o", out], "scoring %s" % name)
        ins.append(out)
        return out

    y4m = ["-r", os.path.join(data, "yuv420p_176x144_ref.y4m"),
           "-d", os.path.join(data, "yuv420p_176x144_dist.y4m")]
    score("x264-40k.json", y4m + ["--json"])
    score("p10-max-raw.json", ["-r", os.path.join(data, "yuv420p10_176x144_ref.y4m"),
                               "-d", os.path.join(data, "yuv420p10_176x144_dist.y4m"),
                               "--json", "--precision", "max", "--raw"])
    ident = os.path.join(data, "identical_yuv420p_176x144.yuv")
    score("identical.json", ["-r", ident, "-d", ident, "-w", "176", "-h", "144", "--json",
                             "--precision", "max", "--raw"])
    score("gray.json", ["-r", os.path.join(data, "gray_176x144_ref.yuv"),
                        "-d", os.path.join(data, "gray_176x144_dist.yuv"),
                        "-w", "176", "-h", "144", "-p", "400", "--json"])
    page_path = os.path.join(tmp, "fixtures.html")
    # --name names the inputs in order; the fourth keeps its file name
    args = ["report", ins[0], ins[1], ins[2], ins[3], "--name", "x264 40k", "--name", "p10",
            "--name", "identical", "-o", page_path, "--worst", "3", "--title", "Fixtures <&>"]
    names = ["x264 40k", "p10", "identical", "gray"]
    p = ck.run_ok(args, "report of the fixtures")
    ck.check(p.stdout == b"" and p.stderr == b"", "report: output on stdout/stderr: %r %r" %
             (p.stdout, p.stderr))
    if not os.path.exists(page_path):
        return None
    page = parse_page(page_path)
    check_self_contained(ck, page, "fixtures page")
    ck.check("Fixtures &lt;&amp;&gt;" in page.raw, "report: the title is not escaped")

    expect = set()
    for name, path in zip(names, ins):
        frames, pooled = json_frames(path)
        keys = sorted({k for _, m in frames for k in m})
        for k in keys:
            expect.add((k, name))
        # pooled values as the file has them, 3 decimals
        rows = [r for r in page.tables.get("pooled", []) if r and r[0] == name]
        for k in keys:
            row = [r for r in rows if r[1] == k]
            if not ck.check(len(row) == 1, "pooled table: no row %s %s" % (name, k)):
                continue
            want = [str(len(frames)), fmt3(pooled[k]["mean"]), fmt3(pooled[k]["harmonic_mean"]),
                    fmt3(pooled[k]["min"]), fmt3(pooled[k]["max"])]
            ck.check(row[0][2:] == want, "pooled %s %s: %r, expected %r" % (name, k, row[0][2:], want))
        # percentiles, nearest rank
        prow = [r for r in page.tables.get("percentiles", []) if r and r[0] == name]
        for k in keys:
            vals = [m[k] for _, m in frames]
            row = [r for r in prow if r[1] == k]
            want = [fmt3(nearest_rank(vals, q)) for q in (1, 5, 10, 50)]
            ck.check(len(row) == 1 and row[0][2:] == want,
                     "percentiles %s %s: %r, expected %r" % (name, k, row[0][2:] if row else None, want))
        # worst frames by psnr_hvs, ties by frame number, 3 listed
        idx = names.index(name)
        wt = page.tables.get("worst-%d" % idx, [])
        order = sorted(frames, key=lambda fm: (fm[1]["psnr_hvs"], fm[0]))[:3]
        got = [int(r[1]) for r in wt[1:]]
        ck.check(got == [n for n, _ in order], "worst frames of %s: %r, expected %r" %
                 (name, got, [n for n, _ in order]))
        if wt[1:]:
            ck.check(wt[1][2] == fmt3(order[0][1]["psnr_hvs"]), "worst %s: %r" % (name, wt[1]))
    got = [(k, r) for k, r, _ in page.curves]
    ck.check(sorted(got) == sorted(expect) and len(got) == len(set(got)),
             "curves: %r, expected one per key and rendition: %r" % (sorted(got), sorted(expect)))
    ck.check(not any(k in ("psnr_hvs_cb", "psnr_hvs_cr") and r == "gray" for k, r in got),
             "luma only: chroma curves drawn")
    text = "".join(page.text)
    ck.check("identical: 2 of 2 frames identical" in text.replace("\n", " "),
             "no note on the identical frames: %r" % text[:2000])
    ck.check("gray: luma only" in text, "no note on the luma-only rendition")
    ck.check('class="inf"' in page.raw and "+inf" in page.raw, "no +inf band or marker")
    # the identical rendition's curves lie in the band: every point at one height
    for k, r, d in page.curves:
        if r == "identical":
            ys = {y for _, y in path_points(d)}
            ck.check(len(ys) == 1, "identical %s: curve not clipped flat: %r" % (k, ys))

    # XML and CSV inputs read as the JSON does; libvmaf's files too
    xml = os.path.join(tmp, "x264.xml")
    csvp = os.path.join(tmp, "x264c.csv")
    ck.run_ok(y4m + ["-q", "-o", xml], "xml output")
    ck.run_ok(y4m + ["-q", "--csv", "-o", csvp], "csv output")
    vmaf = os.path.join(data, "vmaf-output")
    extra = [os.path.join(vmaf, n) for n in sorted(os.listdir(vmaf))
             if n.endswith((".json", ".xml", ".csv", ".sub"))] if os.path.isdir(vmaf) else []
    out2 = os.path.join(tmp, "formats.html")
    p = ck.run_ok(["report", ins[0], xml, csvp] + extra + ["-o", out2], "report of xml/csv/vmaf files")
    if os.path.exists(out2):
        pg = parse_page(out2)
        rows = {r[0]: r for r in pg.tables.get("pooled", []) if len(r) > 2 and r[1] == "psnr_hvs"}
        ck.check(rows.get("x264-40k", [0])[2:] == rows.get("x264", [1])[2:],
                 "json and xml pooled differ: %r" % rows)
    return page_path


def long_ladder(ck, tmp, n=30000):
    """Three renditions of n frames: noise around a level, one deep dip, an identical stretch."""
    rnd = random.Random(14)
    paths = []
    spec = [("1080p", 40.0, False, (1000, 1200)), ("720p", 35.0, False, None),
            ("480p", 30.0, True, None)]
    for name, level, luma, ident in spec:
        frames = []
        for i in range(n):
            v = level + 1.5 * math.sin(i / 700.0) + rnd.gauss(0, 0.3)
            if i == n // 2 + 17:
                v = level - 20.0  # one frame: must stay visible
            m = {"psnr_hvs_y": v - 0.4}
            if not luma:
                m["psnr_hvs_cb"] = v + 5.0
                m["psnr_hvs_cr"] = v + 4.5
            m["psnr_hvs"] = v if not luma else v - 0.4
            if ident and ident[0] <= i < ident[1]:
                m = {k: None for k in m}
            frames.append({"frameNum": i, "metrics": m})
        doc = {"version": "synthetic", "fps": 1.0, "frames": frames, "pooled_metrics": {},
               "aggregate_metrics": {}}
        p = os.path.join(tmp, name + ".json")
        with open(p, "w") as f:
            json.dump(doc, f)
        paths.append(p)
    out = os.path.join(tmp, "ladder.html")
    ck.run_ok(["report"] + paths + ["-o", out, "--title", "Ladder (synthetic scores)"],
              "report of the long ladder")
    if not os.path.exists(out):
        return None
    page = parse_page(out)
    check_self_contained(ck, page, "ladder page")
    got = sorted((k, r) for k, r, _ in page.curves)
    want = sorted([(k, r) for r in ("1080p", "720p") for k in KEYS] +
                  [("psnr_hvs", "480p"), ("psnr_hvs_y", "480p")])
    ck.check(got == want, "ladder curves: %r" % got)
    for k, r, d in page.curves:
        pts = path_points(d)
        # the big chart has 1128 pixel columns, the small ones 328: at most 4 points each
        ck.check(0 < len(pts) <= 4 * 1130 + 8, "%s %s: %d points" % (k, r, len(pts)))
        if k == "psnr_hvs":
            ys = sorted(y for _, y in pts)
            median = ys[len(ys) // 2]
            ck.check(ys[-1] - median > 100, "%s %s: the one-frame dip is gone (lowest at %.1f, "
                     "median %.1f)" % (k, r, ys[-1], median))
    ck.check("note-downsampled" in page.raw, "no note on downsampling")
    return out


def png_info(path):
    """(width, height, colours, {rgb: count}) of an 8-bit RGB or RGBA PNG, unfiltered here."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG type %d depth %d interlace %d not handled" % (ctype, depth, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    counts = {}
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ft == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for i in range(0, stride, bpp):
            px = bytes(line[i:i + 3])
            counts[px] = counts.get(px, 0) + 1
        prev = line
    return w, h, counts


def chromium_screenshot(ck, page, shot, tmp):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        return "chromium not found (Debian's package chromium; build.sh installs it)"
    if os.path.exists(shot):
        os.unlink(shot)
    profile = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", "--user-data-dir=" + profile, "--screenshot=" + shot,
           "--window-size=1400,1000", "file://" + page]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                           timeout=180)
    except subprocess.TimeoutExpired:
        ck.check(False, "chromium did not finish in 180 s")
        return None
    ck.check(os.path.exists(shot), "chromium wrote no screenshot (exit %d): %s" %
             (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    if not os.path.exists(shot):
        return None
    w, h, counts = png_info(shot)
    ck.check((w, h) == (1400, 1000), "screenshot is %dx%d, expected 1400x1000" % (w, h))
    ck.check(len(counts) > 50, "screenshot has %d colours: a blank page?" % len(counts))
    white = counts.get(b"\xff\xff\xff", 0)
    ck.check(0.3 < white / float(w * h) < 0.98, "screenshot: %.1f %% white" % (100.0 * white / (w * h)))
    for i, rgb in enumerate(COLORS[:3]):
        n = counts.get(bytes(rgb), 0)
        ck.check(n > 100, "screenshot: rendition %d's colour #%02x%02x%02x in %d pixels only" %
                 ((i,) + rgb + (n,)))
    print("screenshot %s: %dx%d, %d colours" % (shot, w, h, len(counts)))
    return None


def test_plot(ck, tmp):
    data = ck.data
    y4m = ["-r", os.path.join(data, "yuv420p_176x144_ref.y4m"),
           "-d", os.path.join(data, "yuv420p_176x144_dist.y4m")]
    svg = os.path.join(tmp, "curve.svg")
    out = os.path.join(tmp, "curve.json")
    ck.run_ok(y4m + ["--json", "-o", out, "--plot", svg, "-q"], "--plot")
    frames, _ = json_frames(out)

    def curves(path):
        root = ET.parse(path).getroot()
        ck.check(root.tag == "{http://www.w3.org/2000/svg}svg", "--plot: root %s" % root.tag)
        found = {}
        for el in root.iter("{http://www.w3.org/2000/svg}path"):
            if "curve" in (el.get("class") or "").split():
                found[el.get("data-key")] = path_points(el.get("d"))
        return found, root

    if os.path.exists(svg):
        found, root = curves(svg)
        ck.check(sorted(found) == sorted(KEYS), "--plot curves: %r" % sorted(found))
        for k, pts in found.items():
            ck.check(len(pts) == len(frames), "--plot %s: %d points for %d frames" %
                     (k, len(pts), len(frames)))
            xs = [x for x, _ in pts]
            ck.check(xs == sorted(xs), "--plot %s: x not increasing" % k)
        # the lower the score, the lower on the chart (larger y)
        pts = found.get("psnr_hvs", [])
        vals = [m["psnr_hvs"] for _, m in frames]
        if len(pts) == len(vals):
            lo = vals.index(min(vals))
            ck.check(pts[lo][1] == max(y for _, y in pts), "--plot: the worst frame is not lowest")
        with open(svg) as f:
            text = f.read()
        ck.check("<script" not in text and "href" not in text, "--plot: script or link in the SVG")
    # luma only, identical
    ident = os.path.join(data, "identical_yuv420p_176x144.yuv")
    svg2 = os.path.join(tmp, "ident.svg")
    ck.run_ok(["-r", ident, "-d", ident, "-w", "176", "-h", "144", "--plot", svg2, "-q"],
              "--plot of an identical pair")
    if os.path.exists(svg2):
        found, root = curves(svg2)
        ck.check(len(found) == 4 and all(len({y for _, y in p}) == 1 for p in found.values()),
                 "--plot identical: curves not clipped flat")
        with open(svg2) as f:
            ck.check('class="inf"' in f.read(), "--plot identical: no +inf marker")
    svg3 = os.path.join(tmp, "gray.svg")
    ck.run_ok(["-r", os.path.join(data, "gray_176x144_ref.yuv"), "-d",
               os.path.join(data, "gray_176x144_dist.yuv"), "-w", "176", "-h", "144", "-p", "400",
               "--plot", svg3, "-q"], "--plot luma only")
    if os.path.exists(svg3):
        found, _ = curves(svg3)
        ck.check(sorted(found) == ["psnr_hvs", "psnr_hvs_y"], "--plot luma only: %r" % sorted(found))
    # a bad path fails before scoring, and no -o file appears
    out4 = os.path.join(tmp, "never.json")
    p = ck.run(y4m + ["--json", "-o", out4, "--plot", os.path.join(tmp, "no", "dir", "x.svg")])
    ck.check(p.returncode == 1 and not os.path.exists(out4) and
             p.stderr.count(b"\n") == 1 and b"x.svg" in p.stderr,
             "--plot bad path: exit %d, %r" % (p.returncode, p.stderr))
    ck.check(not [n for n in os.listdir(tmp) if n.startswith(".psnrhvs-")],
             "--plot bad path: a temporary file left: %r" % os.listdir(tmp))
    p = ck.run(["parity"] + y4m + ["--plot", os.path.join(tmp, "p.svg")])
    ck.check(p.returncode == 2 and b"--plot" in p.stderr, "parity --plot: %d %r" % (p.returncode, p.stderr))


def test_errors(ck, tmp):
    good = os.path.join(tmp, "x264-40k.json")
    out = os.path.join(tmp, "err.html")
    cases = [
        (["report", "-o", out], 2, b"no score files"),
        (["report", good], 2, b"missing -o"),
        (["report", good, "--name", "a", "--name", "b", "-o", out], 2, b"more --name"),
        (["report", good, "--worst", "x", "-o", out], 2, b"--worst"),
        (["report", good, "--percentiles", "0,5", "-o", out], 2, b"--percentiles"),
        (["report", good, "--bogus", "-o", out], 2, b"unknown option"),
        (["report", os.path.join(tmp, "missing.json"), "-o", out], 1, b"cannot open"),
    ]
    with open(good) as f:
        text = f.read()
    cut = os.path.join(tmp, "cut.json")
    with open(cut, "w") as f:
        f.write(text[:len(text) // 2])
    cases.append((["report", cut, "-o", out], 1, b"JSON"))
    junk = os.path.join(tmp, "junk.json")
    with open(junk, "w") as f:
        f.write("hello\n")
    cases.append((["report", junk, "-o", out], 1, b"not a score file"))
    nokeys = os.path.join(tmp, "nokeys.json")
    with open(nokeys, "w") as f:
        json.dump({"frames": [{"frameNum": 0, "metrics": {"vmaf": 90.0}}]}, f)
    cases.append((["report", nokeys, "-o", out], 1, b"no psnr_hvs scores"))
    deep = os.path.join(tmp, "deep.json")
    with open(deep, "w") as f:
        f.write('{"x": ' + "[" * 100000 + "]" * 100000 + "}")
    cases.append((["report", deep, "-o", out], 1, b"nested too deeply"))
    for args, rc, msg in cases:
        p = ck.run(args)
        ck.check(p.returncode == rc and msg in p.stderr and p.stderr.count(b"\n") == 1,
                 "%s: exit %d, %r (expected %d, %r)" % (" ".join(args[1:]), p.returncode,
                                                       p.stderr, rc, msg))
        ck.check(not os.path.exists(out), "%s: a page was written" % " ".join(args[1:]))


def test_mutations(ck, tmp, count=240):
    """Score files with bytes flipped, cut, doubled or dropped: a page or one error line,
    never a crash (a sanitizer build reports there)."""
    srcs = []
    data = ck.data
    y4m = ["-r", os.path.join(data, "yuv420p_176x144_ref.y4m"),
           "-d", os.path.join(data, "yuv420p_176x144_dist.y4m")]
    for fmt in ("json", "xml", "csv", "sub"):
        path = os.path.join(tmp, "m." + fmt)
        ck.run_ok(y4m + ["--" + fmt, "--precision", "max", "--raw", "-q", "-o", path],
                  "mutation source %s" % fmt)
        with open(path, "rb") as f:
            srcs.append(f.read())
    rnd = random.Random(1414)
    special = b'{}[]",:<>/="\\ 0-.eE\nnullinf'
    bad = os.path.join(tmp, "mutated.in")
    page = os.path.join(tmp, "mutated.html")
    outcomes = {0: 0, 1: 0}
    for i in range(count):
        b = bytearray(rnd.choice(srcs))
        for _ in range(rnd.randint(1, 4)):
            op = rnd.randrange(4)
            pos = rnd.randrange(len(b)) if b else 0
            if op == 0 and b:
                b[pos] = rnd.choice(special)
            elif op == 1:
                del b[pos:]
            elif op == 2:
                b[pos:pos] = b[pos:pos + rnd.randint(1, 64)]
            elif b:
                del b[pos:pos + rnd.randint(1, 16)]
        with open(bad, "wb") as f:
            f.write(bytes(b))
        p = ck.run(["report", bad, "-o", page])
        ok = p.returncode in (0, 1) and (p.returncode == 0 or p.stderr.count(b"\n") == 1)
        ck.check(ok and b"Sanitizer" not in p.stderr and b"runtime error" not in p.stderr,
                 "mutation %d: exit %d, %r" % (i, p.returncode, p.stderr[-500:]))
        ck.check(os.path.exists(page) == (p.returncode == 0), "mutation %d: page %s" %
                 (i, "missing" if p.returncode == 0 else "written"))
        outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
        if os.path.exists(page):
            os.unlink(page)
    print("mutated score files: %d pages, %d errors" % (outcomes.get(0, 0), outcomes.get(1, 0)))


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    build = os.path.abspath(sys.argv[3])
    skip = None
    with tempfile.TemporaryDirectory() as tmp:
        fixtures_report(ck, tmp)
        ladder = long_ladder(ck, tmp)
        test_plot(ck, tmp)
        test_errors(ck, tmp)
        test_mutations(ck, tmp)
        if ladder:
            skip = chromium_screenshot(ck, ladder, os.path.join(build, "report-screenshot.png"), tmp)
            if not skip:
                chromium_screenshot(ck, os.path.join(tmp, "fixtures.html"),
                                    os.path.join(build, "report-screenshot-fixtures.png"), tmp)
    if skip and not ck.failures:
        print("%d checks passed; SKIP the Chromium rendering: %s" % (ck.checks, skip))
        sys.exit(77)
    ck.finish()


if __name__ == "__main__":
    main()
