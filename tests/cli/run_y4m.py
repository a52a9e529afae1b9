#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The Y4M reader on every C tag and tolerated tag: raw golden pairs rewrapped as Y4M
(header variants, FRAME parameters, odd sizes, mono) must give the golden bits."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def frame_size(g):
    w, h = g["width"], g["height"]
    bps = 2 if g["bitdepth"] > 8 else 1
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h),
              "400": (0, 0)}[g["pixel_format"]]
    return (w * h + 2 * cw * ch) * bps


def to_y4m(src, dst, g, ctag, extra="", frame_params=""):
    with open(src, "rb") as f:
        data = f.read()
    fs = frame_size(g)
    assert len(data) == fs * g["frames"], src
    with open(dst, "wb") as f:
        tag = " C" + ctag if ctag is not None else ""
        f.write(("YUV4MPEG2 W%d H%d F30000:1001 It A1:1%s%s\n" % (g["width"], g["height"], tag, extra)).encode())
        for i in range(g["frames"]):
            f.write(("FRAME%s\n" % frame_params).encode())
            f.write(data[i * fs:(i + 1) * fs])


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    goldens = {g["name"]: g for g in clitest.load_goldens(ck.data)}
    cases = [
        ("yuv420p_176x144", "420mpeg2", " XYSCSS=420MPEG2 XCOLORRANGE=LIMITED", " Ip Xfoo=bar"),
        ("yuv420p_176x144", "420paldv", " XCOLORRANGE=FULL", ""),
        ("yuv420p_176x144", "420", "", " "),
        ("yuv420p_176x144", None, "", ""),  # no C tag: 420jpeg
        ("yuv420p_97x61", "420jpeg", "", ""),
        ("yuv420p_23x17", "420jpeg", "", ""),
        ("yuv420p12_176x144", "420p12", " XYSCSS=420P12", ""),
        ("yuv422p_176x144", "422", "", ""),
        ("yuv444p10_176x144", "444p10", " XYSCSS=444P10", ""),
        ("gray_176x144", "mono", "", ""),
        ("gray10_176x144", "mono10", "", ""),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for name, ctag, extra, fparams in cases:
            g = goldens[name]
            what = "%s as C%s%s" % (name, ctag, extra)
            ref = os.path.join(tmp, "ref.y4m")
            dist = os.path.join(tmp, "dist.y4m")
            to_y4m(os.path.join(ck.data, g["reference"]), ref, g, ctag, extra, fparams)
            to_y4m(os.path.join(ck.data, g["distorted"]), dist, g, ctag, extra, fparams)
            p = ck.run_ok(["-r", ref, "-d", dist, "--json", "--precision", "max", "--raw", "-o", "-"], what)
            if p.returncode:
                continue
            frames, pooled, _ = clitest.parse_json_output(p.stdout.decode())
            clitest.compare_frames(ck, what, g, frames)
            clitest.compare_pooled(ck, what, g, pooled)
    ck.finish()


if __name__ == "__main__":
    main()
