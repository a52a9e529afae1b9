#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Seeds of the FFmpeg demuxer's fuzz target, made at test time: tiny encodes (32x32, a few
frames) in mkv, mp4, ivf, webm and mpegts by the encoders this ffmpeg has, and for each a
copy cut short and one with bytes overwritten in the middle (deterministic).
usage: make_ffmpeg_seeds.py FFMPEG OUTDIR"""
import os
import subprocess
import sys

ENCODES = [  # name, encoder options, container
    ("h264.mkv", ["-c:v", "libx264", "-g", "2", "-bf", "1"], "matroska"),
    ("h264.mp4", ["-c:v", "libx264", "-g", "2"], "mp4"),
    ("hevc.mkv", ["-c:v", "libx265", "-x265-params", "log-level=none:keyint=2"], "matroska"),
    ("vp9.ivf", ["-c:v", "libvpx-vp9", "-g", "2"], "ivf"),
    ("vp8.webm", ["-c:v", "libvpx", "-g", "2"], "webm"),
    ("av1.ivf", ["-c:v", "libaom-av1", "-cpu-used", "8", "-g", "2"], "ivf"),
    ("ffv1_10bit.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv420p10le"], "matroska"),
    ("mpeg2.ts", ["-c:v", "mpeg2video", "-g", "2"], "mpegts"),
]


def main():
    ffmpeg, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    made = 0
    for name, opts, fmt in ENCODES:
        path = os.path.join(out, name)
        cmd = [ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=32x32:rate=25",
               "-frames:v", "4"] + opts + ["-f", fmt, path]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode or not os.path.getsize(path):
            print("no %s: %s" % (name, p.stdout.decode(errors="replace").strip()[:200]))
            if os.path.exists(path):
                os.unlink(path)
            continue
        with open(path, "rb") as f:
            data = f.read()
        with open(os.path.join(out, "cut_" + name), "wb") as f:
            f.write(data[:len(data) * 2 // 3])
        bad = bytearray(data)
        for k in range(len(bad) // 3, len(bad) // 3 + 16):
            bad[k] ^= 0x5a
        with open(os.path.join(out, "bad_" + name), "wb") as f:
            f.write(bytes(bad))
        made += 1
        print("%s: %d bytes" % (name, len(data)))
    if not made:
        print("FAIL: no encode could be made")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
