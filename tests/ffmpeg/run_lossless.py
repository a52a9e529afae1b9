#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Lossless FFV1 in Matroska, made at test time from every raw golden fixture
(4:2:0/4:2:2/4:4:4/gray, 8/10/12 bits, odd sizes): psnrhvs on the encodes gives
the golden values bit for bit (raw f32 scores as %a, %.17g values, pooled),
either side compressed, the other raw or Y4M, or on stdin. Raw video in NUT as
NV12, NV21 (semi-planar, de-interleaved) and yuvj420p (full range: the same
samples) too."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402
from fftest import clitest  # noqa: E402


def check_golden(ck, g, args, what, input_bytes=None):
    res = ck.score(args, what, input_bytes=input_bytes)
    if res:
        clitest.compare_frames(ck, what, g, res[0])
        clitest.compare_pooled(ck, what, g, res[1])


def main():
    ck = fftest.FF(sys.argv)
    goldens = [g for g in clitest.load_goldens(ck.data) if g["container"] == "yuv"]
    ck.check(len(goldens) >= 10, "expected the raw golden fixtures, found %d" % len(goldens))
    for g in goldens:
        name = g["name"]
        # both in one ffmpeg run (its start is most of the time)
        ref, dist = ck.path(name + "_ref.mkv"), ck.path(name + "_dist.mkv")
        ck.ff(ck.raw_in(g, "reference") + ck.raw_in(g, "distorted") +
              ["-map", "0", "-c:v", "ffv1", ref, "-map", "1", "-c:v", "ffv1", dist])
        check_golden(ck, g, ["-r", ref, "-d", dist], name + " ffv1/ffv1")
        # the raw side takes the decoded side's geometry, as with Y4M
        if name in ("yuv420p12_176x144", "yuv422p_176x144", "gray10_176x144", "yuv420p_97x61"):
            raw = clitest.golden_args(ck.data, g)
            check_golden(ck, g, [raw[0], raw[1], "-d", dist], name + " raw/ffv1")
            with open(dist, "rb") as f:
                check_golden(ck, g, ["-r", ref, "-d", "-"], name + " ffv1/ffv1 on stdin",
                             input_bytes=f.read())

    # Y4M reference, FFV1 distorted
    for g in clitest.load_goldens(ck.data):
        if g["name"] == "yuv420p10_176x144_y4m":
            raw = next(x for x in goldens if x["name"] == "yuv420p10_176x144")
            dist = ck.encode(ck.raw_in(raw, "distorted"), "d10.mkv", ["-c:v", "ffv1"])
            check_golden(ck, g, ["-r", os.path.join(ck.data, g["reference"]), "-d", dist],
                         "y4m/ffv1 10-bit")

    # Raw video in NUT: semi-planar NV12/NV21 (de-interleaved) and yuvj420p.
    g = next(x for x in goldens if x["name"] == "yuv420p_176x144")
    for pix in ("nv12", "nv21", "yuvj420p"):
        src = ck.raw_in(g, "distorted")
        if pix == "yuvj420p":
            src[src.index("yuv420p")] = "yuvj420p"  # the same bytes, tagged full range
        dist = ck.encode(src, "dist_%s.nut" % pix, ["-c:v", "rawvideo", "-pix_fmt", pix])
        check_golden(ck, g, ["-r", os.path.join(ck.data, g["reference"]), "-w", "176", "-h",
                             "144", "-d", dist], "rawvideo %s in NUT" % pix)
    ck.finish()


if __name__ == "__main__":
    main()
