# SPDX-License-Identifier: BSD-2-Clause
"""Shared helpers for the psnrhvs CLI tests (Python 3 standard library only)."""
import csv
import io
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

KEYS4 = ["psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"]
KEYS2 = ["psnr_hvs_y", "psnr_hvs"]
RAW3 = ["raw_y", "raw_cb", "raw_cr"]


class Checker:
    """Collects failures so one run reports every broken case, then exits non-zero."""

    def __init__(self, psnrhvs, data):
        self.psnrhvs = psnrhvs
        self.data = data
        self.failures = []
        self.checks = 0

    def check(self, cond, what):
        self.checks += 1
        if not cond:
            self.failures.append(what)
            print("FAIL: " + what)
        return cond

    def run(self, args, stdin=None, input_bytes=None, cwd=None):
        cmd = [self.psnrhvs] + [str(a) for a in args]
        p = subprocess.run(cmd, stdin=stdin, input=input_bytes, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=cwd, timeout=300)
        p.cmd = " ".join(cmd)
        return p

    def run_ok(self, args, what, **kw):
        p = self.run(args, **kw)
        self.check(p.returncode == 0,
                   "%s: exit %d, stderr: %s" % (what, p.returncode, p.stderr.decode(errors="replace")))
        return p

    def finish(self):
        print("%d checks, %d failures" % (self.checks, len(self.failures)))
        sys.exit(1 if self.failures or not self.checks else 0)


def load_goldens(data):
    gdir = os.path.join(data, "golden")
    out = []
    for name in sorted(os.listdir(gdir)):
        if name.endswith(".json"):
            with open(os.path.join(gdir, name)) as f:
                out.append(json.load(f))
    return out


def golden_args(data, g):
    args = ["-r", os.path.join(data, g["reference"]), "-d", os.path.join(data, g["distorted"])]
    if g["container"] == "yuv":
        args += ["-w", g["width"], "-h", g["height"], "-p", g["pixel_format"], "-b", g["bitdepth"]]
    return args


def golden_value(v):
    """Golden numbers: %.17g numbers, "inf"/"nan" strings, null for absent planes."""
    if v is None:
        return None
    if isinstance(v, str):
        return float(v)
    return float(v)


def golden_keys(g):
    return KEYS2 if g["pixel_format"] == "400" else KEYS4


def same(a, b):
    """Exact equality of doubles, bit for bit (inf == inf, nan == nan)."""
    if a is None or b is None:
        return a is b
    if math.isnan(a) and math.isnan(b):
        return True
    return a == b and math.copysign(1, a) == math.copysign(1, b)


def parse_cli_number(text):
    """A number as the CLI writes it in XML/CSV: %.17g/%.*f or inf/-inf/nan."""
    return float(text)


def parse_json_output(text):
    """-> (frames [(frameNum, {key: value or None})], pooled {key: {stat: value}})"""
    doc = json.loads(text)
    frames = [(fr["frameNum"], fr["metrics"]) for fr in doc["frames"]]

    def conv(v):
        return math.inf if v is None else v  # JSON null stands for +inf here

    out_frames = []
    for num, m in frames:
        out_frames.append((num, {k: (conv(v) if not k.startswith("raw_") else v) for k, v in m.items()}))
    pooled = {k: {s: conv(v) for s, v in d.items()} for k, d in doc["pooled_metrics"].items()}
    return out_frames, pooled, doc


def parse_xml_output(text):
    root = ET.fromstring(text)
    frames = []
    for fr in root.find("frames"):
        attrs = dict(fr.attrib)
        num = int(attrs.pop("frameNum"))
        frames.append((num, {k: (v if k.startswith("raw_") else parse_cli_number(v)) for k, v in attrs.items()}))
    pooled = {}
    for m in root.find("pooled_metrics"):
        attrs = dict(m.attrib)
        name = attrs.pop("name")
        pooled[name] = {k: parse_cli_number(v) for k, v in attrs.items()}
    return frames, pooled, root


def parse_csv_output(text):
    lines = text.splitlines()
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    frames = []
    for row in rows[1:]:
        vals = dict(zip(header, row))
        num = int(vals.pop("Frame"))
        vals.pop("", None)  # libvmaf ends every row with a comma
        frames.append((num, {k: (v if k.startswith("raw_") else parse_cli_number(v)) for k, v in vals.items()}))
    return frames, header, lines


def pool(values):
    """libvmaf's pooling: sequential double sums in frame order."""
    s = 0.0
    inv = 0.0
    for v in values:
        s += v
        inv += 1.0 / (v + 1.0)
    n = float(len(values))
    return {"min": min(values), "max": max(values), "mean": s / n, "harmonic_mean": n / inv - 1.0}


def compare_frames(ck, what, g, frames, raw=True, frame_map=None):
    """Per-frame values of the CLI against the golden file, exactly."""
    keys = golden_keys(g)
    expect = g["per_frame"] if frame_map is None else [g["per_frame"][i] for i in frame_map]
    if not ck.check(len(frames) == len(expect),
                    "%s: %d frames, expected %d" % (what, len(frames), len(expect))):
        return
    for (num, m), gf in zip(frames, expect):
        want_num = gf["frame"] if frame_map is None else num
        ck.check(num == want_num, "%s: frameNum %d, expected %d" % (what, num, want_num))
        want_keys = keys + ([r for r in RAW3 if gf.get(r) is not None] if raw else [])
        ck.check(sorted(m.keys()) == sorted(want_keys),
                 "%s frame %d: keys %s, expected %s" % (what, num, sorted(m.keys()), sorted(want_keys)))
        for k in keys:
            if k in m:
                ck.check(same(m[k], golden_value(gf[k])),
                         "%s frame %d %s: %r, expected %r" % (what, num, k, m[k], gf[k]))
        if raw:
            for r in RAW3:
                if gf.get(r) is None or r not in m:
                    continue
                ck.check(m[r] == gf[r] and float.fromhex(m[r]) == float.fromhex(gf[r]),
                         "%s frame %d %s: %r, expected %r" % (what, num, r, m[r], gf[r]))


def compare_pooled(ck, what, g, pooled):
    keys = golden_keys(g)
    ck.check(sorted(pooled.keys()) == sorted(keys),
             "%s: pooled keys %s, expected %s" % (what, sorted(pooled.keys()), sorted(keys)))
    for k in keys:
        for stat in ("min", "max", "mean", "harmonic_mean"):
            got = pooled.get(k, {}).get(stat)
            want = golden_value(g["pooled"][k][stat])
            ck.check(got is not None and same(got, want),
                     "%s pooled %s %s: %r, expected %r" % (what, k, stat, got, want))
