#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs report with psnrhvs target's JSON: the probes over the setting and the bitrate.

fixtures: two searches checked in (data/search_crf.json: libx264's binary search over crf,
data/search_qp.json: a sweep over qp with a lossless probe, its score null), with a score
file and a rate table beside them. The page must hold, for each search, one curve in the
score-over-setting chart (a dot per probe with a score, at data-x = setting, data-y = score,
x increasing and y linear in the score, the lossless probe left out) and one in the
score-over-bitrate chart (a point per probe, x linear in log10(kbit/s)); each target as a
dashed line at the score it names (the same mapping as the dots); the chosen probe circled
where its dot is; a table of every probe by setting (order probed, setting, score or
"lossless", kbit/s, bytes, "chosen"); the score file's and rate table's sections still.
A search that reached nothing has no mark. A file that looks like a search but lacks or
garbles its probes, or is cut short, is one line naming it, exit 1, no page.

x264: a real `psnrhvs target` run on the shipped sample (libx264, --full, cpu), drawn the
same way from its JSON; 77 (skipped, with the reason) without FFmpeg or libx264.

Usage: run_report_target.py PSNRHVS DATA_DIR fixtures|x264"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import clitest  # noqa: E402
from run_report import check_self_contained, parse_page  # noqa: E402

FIXTURES = os.path.join(HERE, "data")


def attrs(tag):
    return dict(re.findall(r"([\w-]+)=\"([^\"]*)\"", tag))


def figure(raw, fid):
    """The markup of <figure id=fid>, or ""."""
    m = re.search(r'<figure id="%s">(.*?)</figure>' % re.escape(fid), raw, re.S)
    return m.group(1) if m else ""


def circles(svg, cls):
    return [attrs(m.group(1)) for m in re.finditer(r'<circle class="%s"([^>]*)>' % cls, svg)]


def lines(svg):
    return [attrs(m.group(1)) for m in re.finditer(r'<line class="target"([^>]*)/>', svg)]


def linear(ck, pairs, what, tol=0.15):
    """pairs of (value, pixel): the pixels one affine map of the values (to the 0.1 px
    printed). Returns the map, or None."""
    pairs = sorted(set(pairs))
    if len(pairs) < 2:
        return None
    (v0, p0), (v1, p1) = pairs[0], pairs[-1]
    if not ck.check(v1 != v0, "%s: one value only" % what):
        return None
    slope = (p1 - p0) / (v1 - v0)
    for v, p in pairs:
        ck.check(abs(p0 + slope * (v - v0) - p) <= tol,
                 "%s: %g drawn at %g, off the line through the others" % (what, v, p))
    return lambda v: p0 + slope * (v - v0)


def check_search(ck, raw, name, doc):
    """One search's curves, points, target line and mark in both charts."""
    probes = doc["probes"]
    scored = sorted((p for p in probes if p["score"] is not None), key=lambda p: p["setting"])
    chosen = doc["chosen"]
    # score over setting
    svg = figure(raw, "search-setting")
    dots = [c for c in circles(svg, "dot") if c["data-rendition"] == name]
    got = [(float(c["data-x"]), float(c["data-y"])) for c in dots]
    ck.check(got == [(p["setting"], p["score"]) for p in scored],
             "%s: setting chart's dots %s, the probes %s" % (name, got, scored))
    xs = [float(c["cx"]) for c in dots]
    ck.check(all(b > a for a, b in zip(xs, xs[1:])), "%s: dots not left to right" % name)
    ymap = linear(ck, [(float(c["data-y"]), float(c["cy"])) for c in dots] +
                  [(float(a["data-y"]), float(a["y1"])) for a in lines(svg)],
                  "%s: setting chart y" % name)
    linear(ck, [(float(c["data-x"]), float(c["cx"])) for c in dots], "%s: setting chart x" % name)
    tl = [a for a in lines(svg) if float(a["data-y"]) == doc["target"]]
    ck.check(len(tl) == 1 and tl[0]["y1"] == tl[0]["y2"] and ymap is not None and
             abs(float(tl[0]["y1"]) - ymap(doc["target"])) <= 0.15,
             "%s: no level target line at %g dB in the setting chart: %s" %
             (name, doc["target"], lines(svg)))
    marks = {(m["cx"], m["cy"]) for m in circles(svg, "mark")}
    if chosen and chosen["score"] is not None:
        at = [(c["cx"], c["cy"]) for c in dots if float(c["data-x"]) == chosen["setting"]]
        ck.check(len(at) == 1 and at[0] in marks,
                 "%s: the chosen %g is not circled in the setting chart" % (name, chosen["setting"]))
    # score over bitrate
    svg = figure(raw, "search-rate")
    pts = [c for c in circles(svg, "rd-point") if c["data-curve"] == name]
    got = sorted((float(c["data-rate"]), float(c["data-db"])) for c in pts)
    want = sorted((p["kbps"], p["score"]) for p in scored)
    ck.check(got == want, "%s: rate chart's points %s, the probes %s" % (name, got, want))
    linear(ck, [(math.log10(float(c["data-rate"])), float(c["cx"])) for c in pts],
           "%s: rate chart x against log10(kbit/s)" % name)
    ymap = linear(ck, [(float(c["data-db"]), float(c["cy"])) for c in pts] +
                  [(float(a["data-y"]), float(a["y1"])) for a in lines(svg)],
                  "%s: rate chart y" % name)
    tl = [a for a in lines(svg) if float(a["data-y"]) == doc["target"]]
    ck.check(len(tl) == 1 and ymap is not None and abs(float(tl[0]["y1"]) - ymap(doc["target"]))
             <= 0.15, "%s: no target line at %g dB in the rate chart" % (name, doc["target"]))
    ck.check(re.search(r'<path class="rd-curve" data-key="[^"]*" data-curve="%s"' %
                       re.escape(name), svg) is not None, "%s: no rate curve" % name)
    rmarks = circles(svg, "mark")
    if chosen and chosen["score"] is not None:
        at = [(c["cx"], c["cy"]) for c in pts if float(c["data-rate"]) == chosen["kbps"]]
        ck.check(len(at) == 1 and any((m["cx"], m["cy"]) == at[0] for m in rmarks),
                 "%s: the chosen probe is not circled in the rate chart" % name)


def check_table(ck, page, name, doc):
    rows = [r for r in page.tables.get("probes", [])[1:] if r[0] == name]
    order = {id(p): i + 1 for i, p in enumerate(doc["probes"])}
    want = []
    for p in sorted(doc["probes"], key=lambda p: p["setting"]):
        want.append([name, str(order[id(p)]), "%s %g" % (doc["parameter"], p["setting"]),
                     "lossless" if p["score"] is None else "%.4f" % p["score"],
                     "%.1f" % p["kbps"], str(p["bytes"]),
                     "chosen" if doc["chosen"] and doc["chosen"]["setting"] == p["setting"]
                     else ""])
    ck.check(rows == want, "%s: probe table\n  %s\nwanted\n  %s" % (name, rows, want))


def report(ck, args, out):
    p = ck.run(["report"] + args + ["-o", out])
    ck.check(p.returncode == 0, "report %s: exit %d: %s" % (args, p.returncode,
                                                           p.stderr.decode(errors="replace")))
    return parse_page(out) if p.returncode == 0 else None


def load(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def errors(ck, tmp, crf):
    """Search-like files without good probes: one line naming them, exit 1, no page."""
    base = load(crf)
    cases = []
    for what, change, expect in (
            ("no probes", lambda d: d.pop("probes"), '"probes" is missing'),
            ("probes an object", lambda d: d.update(probes={"setting": 1}), "not an array"),
            ("no probe", lambda d: d.update(probes=[]), '"probes" is empty'),
            ("kbps a string", lambda d: d["probes"][2].update(kbps="fast"), 'probe 3: "kbps"'),
            ("no setting", lambda d: d["probes"][0].pop("setting"), 'probe 1: "setting"'),
            ("a probe a number", lambda d: d["probes"].__setitem__(4, 26), "probe 5: not an object"),
            ("bytes negative", lambda d: d["probes"][1].update(bytes=-1), 'probe 2: "bytes"'),
            ("chosen elsewhere", lambda d: d["chosen"].update(setting=13), "crf 13) is not among"),
            ("no parameter", lambda d: d.pop("parameter"), '"parameter" is missing'),
            ("target a string", lambda d: d.update(target="38"), '"target" is not a number')):
        doc = json.loads(json.dumps(base))
        change(doc)
        path = os.path.join(tmp, "bad %s.json" % what)
        write_json(path, doc)
        cases.append((what, path, expect))
    with open(crf, "rb") as f:
        text = f.read()
    cut = os.path.join(tmp, "cut.json")
    with open(cut, "wb") as f:
        f.write(text[:text.index(b'"probes"') + 60])
    cases.append(("cut short", cut, "bad JSON at byte"))
    garbled = os.path.join(tmp, "garbled.json")
    with open(garbled, "wb") as f:
        f.write(text.replace(b'"kbps": 149.24', b'"kbps": 149.24.5'))
    cases.append(("garbled number", garbled, "bad JSON at byte"))
    for what, path, expect in cases:
        out = os.path.join(tmp, "bad.html")
        p = ck.run(["report", crf, path, "-o", out])
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 1 and err.count("\n") == 1 and
                 err.startswith("psnrhvs: %s: target search: " % path) and expect in err and
                 not os.path.exists(out), "%s: exit %d, stderr %r" % (what, p.returncode, err))


def fixtures(ck, tmp):
    crf, qp = os.path.join(FIXTURES, "search_crf.json"), os.path.join(FIXTURES, "search_qp.json")
    data = ck.data
    scores = os.path.join(tmp, "rung.json")
    ck.run_ok(["-r", os.path.join(data, "yuv420p_176x144_ref.y4m"), "-d",
               os.path.join(data, "yuv420p_176x144_dist.y4m"), "--json", "-q", "-o", scores],
              "score")
    table = os.path.join(tmp, "x264.csv")
    with open(table, "w") as f:
        f.write("id,bitrate,psnr_hvs\ncrf40,120.5,30.1\ncrf34,260,33.2\ncrf28,540,36.0\n")
    out = os.path.join(tmp, "mixed.html")
    # --name names the inputs in order: the score file, then the search...
    page = report(ck, [scores, crf, table, qp, "--name", "rung", "--name", "x264 crf", "--name",
                       "ladder", "--name", "x265 qp"], out)
    if not page:
        return
    check_self_contained(ck, page, "mixed page")
    docs = {"x264 crf": load(crf), "x265 qp": load(qp)}
    for name, doc in docs.items():
        check_search(ck, page.raw, name, doc)
        check_table(ck, page, name, doc)
    ck.check(len(page.tables.get("probes", [])) == 1 + 7 + 5, "probe table: %d rows" %
             len(page.tables.get("probes", [])))
    ck.check("1 rendition &#183; 1 rate table &#183; 2 target searches" in page.raw,
             "meta line")
    ck.check(re.search(r"<b>x264 crf</b> libx264 crf, psnr_hvs harmonic_mean &#8805; 38 dB, "
                       r"7 probes: crf 26 chosen \(39\.0899 dB, 197\.2 kbit/s\)", page.raw)
             is not None, "x264's legend")
    # two parameters, one chart: the axis says "setting"; the shared key and pool the y axis
    svg = figure(page.raw, "search-setting")
    ck.check(">setting</text>" in svg and ">psnr_hvs harmonic_mean (dB)</text>" in svg,
             "axis names of two searches")
    ck.check(len(lines(svg)) == 2, "two targets, two lines: %s" % lines(svg))
    # the others' sections are still there
    ck.check(("psnr_hvs", "rung") in [(k, r) for k, r, _ in page.curves] and
             "Per frame" in page.raw,
             "the score file's per-frame curves")
    rd = figure(page.raw, "rd-psnr_hvs")
    ck.check(len(circles(rd, "rd-point")) == 3 and "search" not in rd,
             "the rate table's chart: %d points" % len(circles(rd, "rd-point")))
    ck.check(len(page.tables.get("rungs", [])) == 4, "the rate table's rungs")

    # one search alone, named by its file; its axes its own
    page = report(ck, [crf], os.path.join(tmp, "one.html"))
    if page:
        check_search(ck, page.raw, "search_crf", docs["x264 crf"])
        check_table(ck, page, "search_crf", docs["x264 crf"])
        svg = figure(page.raw, "search-setting")
        ck.check(">crf</text>" in svg and "Per frame" not in page.raw and
                 'id="chart-psnr_hvs"' not in page.raw,
                 "one search: x axis crf, no per-frame section")
    # a search that reached nothing: no mark, said so
    none = load(crf)
    none.update(chosen=None, target=45)
    path = os.path.join(tmp, "unreached.json")
    write_json(path, none)
    page = report(ck, [path], os.path.join(tmp, "unreached.html"))
    if page:
        check_search(ck, page.raw, "unreached", none)
        check_table(ck, page, "unreached", none)
        ck.check(not circles(page.raw, "mark") and "none reached the target" in page.raw,
                 "unreached: a mark, or no word of it")
    errors(ck, tmp, crf)


def x264(ck, tmp):
    src = os.path.join(ck.data, "yuv420p_176x144_ref.y4m")
    p = ck.run(["target", "-r", src, "--encoder", "libx264", "--target", "99", "-q",
                "--range", "51-51", "--backend", "cpu"])
    err = p.stderr.decode(errors="replace")
    if "built without FFmpeg" in err:
        return "psnrhvs was built without FFmpeg's libraries"
    if "no video encoder" in err:
        return "this FFmpeg has no libx264"
    search, table = os.path.join(tmp, "search.json"), os.path.join(tmp, "search.csv")
    base = ["target", "-r", src, "--encoder", "libx264", "--encoder-options", "threads=1",
            "--full", "--backend", "cpu", "-q", "--target", "38", "--pool", "harmonic_mean"]
    ck.run_ok(base + ["-o", search], "target -o json")
    ck.run_ok(base + ["-o", table], "target -o csv")
    doc = load(search)
    ck.check(doc["chosen"] is not None and len(doc["probes"]) >= 3, "the search: %s" % doc)
    # the CSV's column is psnr_hvs_harmonic_mean: --pool reads it (the search's own pool)
    page = report(ck, [search, table, "--pool", "harmonic_mean"], os.path.join(tmp, "x264.html"))
    if page:
        check_search(ck, page.raw, "search", doc)
        check_table(ck, page, "search", doc)
        # the CSV of the same search: the rate table's points are the search's
        rd = figure(page.raw, "rd-psnr_hvs")
        got = sorted((float(c["data-rate"]), float(c["data-db"])) for c in circles(rd, "rd-point"))
        want = sorted((p["kbps"], p["score"]) for p in doc["probes"] if p["score"] is not None)
        ck.check(got == want, "the CSV's rate curve %s, the JSON's probes %s" % (got, want))
    return None


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    with tempfile.TemporaryDirectory() as tmp:
        skip = fixtures(ck, tmp) if sys.argv[3] == "fixtures" else x264(ck, tmp)
    if skip and not ck.failures:
        print("SKIP: %s" % skip)
        sys.exit(77)
    ck.finish()


if __name__ == "__main__":
    main()
