#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Lossy encodes made at test time (x264 in MP4 with B-frames, x265 in Matroska
at 8, 10 and 12 bits, libaom AV1 in IVF, VP9 in WebM at an odd size, MJPEG's
full-range yuvj420p, raw H.264 and HEVC streams on stdin): psnrhvs on the
encode gives the same bits as psnrhvs on ffmpeg's own decoding piped as Y4M
(ffmpeg -i X -fps_mode passthrough -strict -1 -f yuv4mpegpipe - | psnrhvs -d -).
An encoder missing from this ffmpeg skips its case, with the reason."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402
from fftest import clitest  # noqa: E402


def main():
    ck = fftest.FF(sys.argv)
    goldens = {g["name"]: g for g in clitest.load_goldens(ck.data)}
    g8, g10, g12 = goldens["yuv420p_176x144"], goldens["yuv420p10_176x144"], goldens["yuv420p12_176x144"]
    godd = goldens["yuv420p_97x61"]
    cases = [
        # (name, golden, encoder, output, codec arguments)
        ("x264 mp4", g8, "libx264", "x264.mp4", ["-c:v", "libx264", "-preset", "fast", "-bf", "3",
                                                 "-crf", "35"]),
        ("x264 annexb stdin", g8, "libx264", "x264.264", ["-c:v", "libx264", "-crf", "30"]),
        ("x265 mkv", g8, "libx265", "x265.mkv", ["-c:v", "libx265", "-preset", "fast", "-crf", "32",
                                                 "-x265-params", "log-level=none"]),
        ("x265 10-bit mkv", g10, "libx265", "x265_10.mkv",
         ["-c:v", "libx265", "-crf", "30", "-pix_fmt", "yuv420p10le", "-x265-params", "log-level=none"]),
        ("x265 12-bit hevc stdin", g12, "libx265", "x265_12.hevc",
         ["-c:v", "libx265", "-crf", "30", "-pix_fmt", "yuv420p12le", "-x265-params", "log-level=none"]),
        ("aom av1 ivf", g8, "libaom-av1", "aom.ivf", ["-c:v", "libaom-av1", "-cpu-used", "8",
                                                     "-crf", "40", "-b:v", "0"]),
        ("vp9 webm 97x61", godd, "libvpx-vp9", "vp9.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime",
                                                            "-cpu-used", "8", "-crf", "40", "-b:v", "0"]),
        ("vp9 10-bit webm", g10, "libvpx-vp9", "vp9_10.webm",
         ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-crf", "40", "-b:v", "0",
          "-pix_fmt", "yuv420p10le"]),
        ("mjpeg yuvj420p", g8, "mjpeg", "mjpeg.avi", ["-c:v", "mjpeg", "-q:v", "8", "-pix_fmt",
                                                      "yuvj420p"]),
    ]
    ran = 0
    for name, g, encoder, out, codec in cases:
        if not ck.has(encoder):
            continue
        src = ck.raw_in(g, "distorted")
        if encoder == "mjpeg":
            src[src.index("yuv420p")] = "yuvj420p"  # the same samples, no range conversion
        enc = ck.encode(src, out, codec)
        ref = ["-r", os.path.join(ck.data, g["reference"])] + clitest.golden_args(ck.data, g)[4:]
        if "stdin" in name:
            with open(enc, "rb") as f:
                direct = ck.score(ref + ["-d", "-"], name, input_bytes=f.read())
        else:
            direct = ck.score(ref + ["-d", enc], name)
        piped = ck.via_pipe(ref, enc, name)
        if ck.same_scores(direct, piped, name):
            ck.check(len(direct[0]) == g["frames"], "%s: %d frames, expected %d" % (
                name, len(direct[0]), g["frames"]))
        ran += 1
    if not ran:
        fftest.skip("this ffmpeg has none of the encoders")
    ck.finish()


if __name__ == "__main__":
    main()
