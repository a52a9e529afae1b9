#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs target --encode OUT: the whole source at the setting chosen, scored on the way.

    run_encode.py PSNRHVS DATA_DIR

- On the 176x144 fixture (--full: the one sample is the whole clip), for .mkv and .mp4:
  the JSON's encode score is what plain `psnrhvs -r SOURCE -d OUT` gives (pooled mean,
  --precision max), bit for bit, and equals the chosen probe's score and bytes (the same
  encoder on the same frames).
- On a 64x64 clip of 200 frames probed on samples: OUT has every frame, and its score is
  plain psnrhvs's.
- OUT that is the source, or -o's file, is refused before anything runs (the source
  unchanged); a container FFmpeg does not know is one error line and no file.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import targettest  # noqa: E402
from targettest import load, y4m_with_cuts  # noqa: E402

CLI, DATA = sys.argv[1], sys.argv[2]
SRC = os.path.join(DATA, "yuv420p_176x144_ref.y4m")
X264 = ["--encoder", "libx264", "--encoder-options", "threads=1", "--backend", "cpu", "-q"]


def plain_score(ck, source, dist, tmp):
    out = os.path.join(tmp, "plain.json")
    p = ck.run(["-r", source, "-d", dist, "--json", "--precision", "max", "-o", out, "-q",
                "--backend", "cpu"])
    if not ck.check(p.returncode == 0, "scoring %s: %s" % (dist, p.stderr.decode())):
        return None, 0
    doc = load(out)
    return doc["pooled_metrics"]["psnr_hvs"]["mean"], len(doc["frames"])


def whole(ck, tmp):
    for ext in ("mkv", "mp4"):
        enc = os.path.join(tmp, "out." + ext)
        out = os.path.join(tmp, "encode.json")
        ck.target(["-r", SRC] + X264 + ["--full", "--target", "38", "--encode", enc, "-o", out],
                  "encode " + ext)
        doc = load(out)
        score, frames = plain_score(ck, SRC, enc, tmp)
        ck.check(frames == 5, "encode %s: %d frames" % (ext, frames))
        ck.check(doc["encode"]["score"] == score, "encode %s: %r reported, %r scored" %
                 (ext, doc["encode"]["score"], score))
        ck.check(doc["encode"]["score"] == doc["chosen"]["score"] and
                 doc["encode"]["bytes"] == doc["chosen"]["bytes"],
                 "encode %s: %s, the probe %s" % (ext, doc["encode"], doc["chosen"]))


def sampled(ck, tmp):
    clip = os.path.join(tmp, "clip.y4m")
    y4m_with_cuts(clip, frames=200, cuts=(60,))
    enc = os.path.join(tmp, "clip.mkv")
    out = os.path.join(tmp, "clip.json")
    ck.target(["-r", clip] + X264 + ["--samples", "2", "--sample-seconds", "0.6", "--target",
                                     "36", "--encode", enc, "-o", out], "sampled encode")
    doc = load(out)
    score, frames = plain_score(ck, clip, enc, tmp)
    ck.check(frames == 200, "sampled encode: %d frames" % frames)
    ck.check(doc["encode"]["score"] == score, "sampled encode: %r reported, %r scored" %
             (doc["encode"]["score"], score))


def refused(ck, tmp):
    with open(SRC, "rb") as f:
        before = f.read()
    base = ["target", "-r", SRC] + X264 + ["--full", "--target", "38"]
    p = ck.run(base + ["--encode", SRC])
    err = p.stderr.decode()
    ck.check(p.returncode == 1 and len(err.splitlines()) == 1 and "not written over" in err,
             "--encode SOURCE: exit %d %r" % (p.returncode, err))
    same = os.path.join(tmp, "same.json")
    p = ck.run(base + ["--encode", same, "-o", same])
    ck.check(p.returncode == 1 and not os.path.exists(same), "--encode = -o: exit %d %r" %
             (p.returncode, p.stderr.decode()))
    with open(SRC, "rb") as f:
        ck.check(f.read() == before, "--encode SOURCE: the source changed")
    bad = os.path.join(tmp, "out.nosuchcontainer")
    p = ck.run(base + ["--encode", bad])
    err = p.stderr.decode().splitlines()
    ck.check(p.returncode == 1 and len(err) == 1 and "no container" in err[0] and
             not os.path.exists(bad), "--encode .nosuchcontainer: exit %d %r" %
             (p.returncode, p.stderr.decode()))
    ck.check(not [n for n in os.listdir(tmp) if n.startswith("out.nosuch")],
             "--encode .nosuchcontainer: a file left behind")


def main():
    ck = targettest.Check(CLI)
    targettest.skip_unless_built(ck, SRC)
    with tempfile.TemporaryDirectory() as tmp:
        whole(ck, tmp)
        sampled(ck, tmp)
        refused(ck, tmp)
    ck.finish()


main()
