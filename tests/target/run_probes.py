#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs target's probes scored the ordinary way, and the same answer on every backend.

    run_probes.py PSNRHVS DATA_DIR

- --keep-probes DIR writes each probe of each sample as DIR/crf_V_sN.mkv: scored with plain
  `psnrhvs -r SOURCE -d PROBE` (--frame_skip_ref at the sample's start, --precision max), the
  frames pooled as target pools them (mean, min, p10: in the order of the samples) give the
  probe's score, the same double; on the 176x144 fixture (--full) and on a 64x64 clip of
  two samples. A second run into the same DIR creates nothing over the files there.
- The JSON's bytes before its "run" object (backend and times) are the same with --backend
  cpu, opencl (PoCL) and vulkan (lavapipe) where built and a device is found.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import targettest  # noqa: E402
from targettest import load, y4m_with_cuts  # noqa: E402

CLI, DATA = sys.argv[1], sys.argv[2]
SRC = os.path.join(DATA, "yuv420p_176x144_ref.y4m")
X264 = ["--encoder", "libx264", "--encoder-options", "threads=1"]


def frame_scores(ck, source, probe, start, frames, tmp):
    out = os.path.join(tmp, "scores.json")
    p = ck.run(["-r", source, "-d", probe, "--frame_skip_ref", str(start), "--frame_cnt",
                str(frames), "--json", "--precision", "max", "--backend", "cpu", "-o", out, "-q"])
    if not ck.check(p.returncode == 0, "scoring %s: %s" % (probe, p.stderr.decode())):
        return []
    return [f["metrics"]["psnr_hvs"] for f in load(out)["frames"]]


def pool(name, values):
    if name == "mean":
        s = 0.0
        for v in values:
            s += v
        return s / len(values)
    if name == "min":
        return min(values)
    rank = max(1, math.ceil(float(name[1:]) / 100.0 * len(values)))  # pN: nearest rank
    return sorted(values)[rank - 1]


def kept_probes(ck, tmp, source, flags, what):
    for name in ("mean", "min", "p10"):
        keep = os.path.join(tmp, "keep_%s_%s" % (what, name))
        os.mkdir(keep)
        base = ["-r", source] + X264 + flags + ["--backend", "cpu", "-q", "--target", "36",
                                               "--range", "20-40", "--pool", name]
        out = os.path.join(tmp, "probes.json")
        ck.target(base + ["--keep-probes", keep, "-o", out], what)
        doc = load(out)
        for p in doc["probes"]:
            values = []
            for i, s in enumerate(doc["samples"]):
                f = os.path.join(keep, "crf_%g_s%d.mkv" % (p["setting"], i))
                if ck.check(os.path.exists(f), "%s: %s not written" % (what, f)):
                    values += frame_scores(ck, source, f, s["start"], s["frames"], tmp)
            ck.check(len(values) == sum(s["frames"] for s in doc["samples"]),
                     "%s crf %g: frames scored" % (what, p["setting"]))
            if values:
                ck.check(pool(name, values) == p["score"], "%s %s crf %g: %r scored, %r searched"
                         % (what, name, p["setting"], pool(name, values), p["score"]))
    # Never over a file that is there.
    before = {n: open(os.path.join(keep, n), "rb").read() for n in os.listdir(keep)}
    p = ck.run(["target"] + base + ["--keep-probes", keep])
    ck.check(p.returncode == 1 and "File exists" in p.stderr.decode(),
             "%s: a second run into %s: exit %d %s" % (what, keep, p.returncode, p.stderr))
    after = {n: open(os.path.join(keep, n), "rb").read() for n in os.listdir(keep)}
    ck.check(before == after, "%s: a second run changed %s" % (what, keep))


def backends():
    p = subprocess.run([CLI, "--list-devices"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = p.stdout.decode()
    found = []
    for name in ("opencl", "vulkan"):
        i = text.find(name + ":\n  0:")
        if i >= 0:
            found.append(name)
    return found


def same_json(ck, tmp):
    base = ["-r", SRC] + X264 + ["--full", "-q", "--target", "38"]
    ref = None
    for b in ["cpu"] + backends():
        out = os.path.join(tmp, "b_%s.json" % b)
        ck.target(base + ["--backend", b, "-o", out], "backend " + b)
        if not os.path.exists(out):
            continue
        with open(out, "rb") as f:
            data = f.read()
        head = data[:data.find(b'\n  "run": ')]
        ck.check(load(out)["run"]["backend"].startswith(b), "backend %s: ran on %s" %
                 (b, load(out)["run"]["backend"]))
        if ref is None:
            ref = head
        ck.check(head == ref, "backend %s: the JSON differs from cpu's" % b)
        print("backend %s: the same JSON" % b)


def main():
    ck = targettest.Check(CLI)
    targettest.skip_unless_built(ck, SRC)
    with tempfile.TemporaryDirectory() as tmp:
        kept_probes(ck, tmp, SRC, ["--full"], "fixture")
        clip = os.path.join(tmp, "clip.y4m")
        y4m_with_cuts(clip, frames=200, cuts=(60,))
        kept_probes(ck, tmp, clip, ["--samples", "2", "--sample-seconds", "0.6"], "samples")
        same_json(ck, tmp)
    ck.finish()


main()
