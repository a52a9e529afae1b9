#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Frame-exact decoding: the frames psnrhvs's input library hands to the scorer
(input_dump writes them) are, byte for byte and in number, the frames of
ffmpeg -i X -fps_mode passthrough -f rawvideo: every decoded frame in
presentation order, none dropped or repeated. Clips of 30 frames with B-frames
and edit lists (x264 in MP4), open GOPs (x265), VP9's hidden alt-ref frames,
AV1, FFV1, from files and from stdin."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402


def main():
    ck = fftest.FF(sys.argv)
    src = ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25,noise=alls=20:allf=t+u",
           "-frames:v", "30"]
    cases = [
        ("x264 mp4 b-frames", "libx264", "e.mp4", ["-c:v", "libx264", "-bf", "3", "-g", "12",
                                                   "-crf", "30"], False),
        ("x265 mkv open gop", "libx265", "e.mkv", ["-c:v", "libx265", "-x265-params",
                                                   "log-level=none:open-gop=1:keyint=10:bframes=4",
                                                   "-crf", "30"], False),
        ("x265 10-bit on stdin", "libx265", "e10.hevc", ["-c:v", "libx265", "-pix_fmt",
                                                         "yuv420p10le", "-x265-params",
                                                         "log-level=none", "-crf", "30"], True),
        ("vp9 alt-ref webm", "libvpx-vp9", "e.webm", ["-c:v", "libvpx-vp9", "-auto-alt-ref", "1",
                                                      "-lag-in-frames", "16", "-cpu-used", "8",
                                                      "-crf", "40", "-b:v", "0"], False),
        ("aom av1 ivf", "libaom-av1", "e.ivf", ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf",
                                               "45", "-b:v", "0"], False),
        ("x264 mkv on stdin", "libx264", "s.mkv", ["-c:v", "libx264", "-bf", "2", "-crf", "30"], True),
        ("ffv1 444 12-bit", "ffv1", "e12.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv444p12le"], False),
    ]
    ran = 0
    for name, encoder, out, codec, stdin in cases:
        if not ck.has(encoder):
            continue
        enc = ck.encode(src, out, codec)
        want = ck.path(out + ".ffmpeg.yuv")
        ck.ff(["-i", enc, "-fps_mode", "passthrough", "-f", "rawvideo", want])
        got = ck.path(out + ".psnrhvs.yuv")
        if stdin:
            with open(enc, "rb") as f:
                p = subprocess.run([ck.dump, "-", got], stdin=f, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        else:
            p = subprocess.run([ck.dump, enc, got], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not ck.check(p.returncode == 0, "%s: input_dump failed: %s" % (name, p.stderr.decode())):
            continue
        w, h, layout, depth, n = p.stdout.decode().split()
        with open(want, "rb") as f:
            a = f.read()
        with open(got, "rb") as f:
            b = f.read()
        per_frame = len(b) // int(n) if int(n) else 1
        ck.check(a == b, "%s: %d frames (%s bytes) from psnrhvs, %d from ffmpeg: %s" % (
            name, int(n), len(b), len(a) // per_frame,
            "different bytes" if len(a) == len(b) else "different lengths"))
        ck.check(int(n) == 30, "%s: %s frames, expected 30" % (name, n))
        ran += 1
    if not ran:
        fftest.skip("this ffmpeg has none of the encoders")
    ck.finish()


if __name__ == "__main__":
    main()
