#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""input_bitrate() (tools/input/bitrate.c) against ffprobe.

    run_bitrate.py BITRATE_TOOL DATA_DIR

Clips encoded at test time (x264 in MP4 with B-frames and in Matroska, a raw
H.264 stream, VP9 in IVF and WebM, FFV1 in NUT, with an audio track beside
the video in one): the bitrate must be, bit for bit, what ffprobe's packet
list of the video stream gives: bytes x 8 / (packets x den / num) / 1000,
the same operations in the same order; an image sequence (jpg%03d.jpg) too.
Raw and Y4M files are not
compressed (exit 3); a missing file and an audio-only file are errors.
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TOOL, DATA = sys.argv[1], Path(sys.argv[2])
ffmpeg, ffprobe = shutil.which("ffmpeg"), shutil.which("ffprobe")
if not ffmpeg or not ffprobe:
    print("SKIP: needs Debian's ffmpeg (ffmpeg and ffprobe)")
    sys.exit(77)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from clitest import Checker  # noqa: E402  (tests/cli: one pass/fail tally for every driver)

checker = Checker(None, None)
check = checker.check


def probe(path):
    """(kbps, bytes, packets) from ffprobe's packets of the first video stream:
    seconds = packets / the average frame rate, else the packets' span."""
    def ask(entries):
        return subprocess.run([ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
                               entries, "-of", "csv=p=0", str(path)], capture_output=True,
                              text=True, check=True).stdout.split()
    pkts = [line.split(",") for line in ask("packet=size,pts,duration")]
    num, den = (int(v) for v in ask("stream=avg_frame_rate")[0].split("/"))
    tb_num, tb_den = (int(v) for v in ask("stream=time_base")[0].split("/"))
    # csv columns come in ffprobe's field order: pts, duration, size
    nbytes, packets = sum(int(p[2]) for p in pkts), len(pkts)
    if num > 0 and den > 0:
        seconds = float(packets) * den / num
    else:
        first = min(int(p[0]) for p in pkts)
        last = max(int(p[0]) + max(int(p[1]) if p[1] not in ("", "N/A") else 0, 0) for p in pkts)
        seconds = float(last - first) * tb_num / tb_den
    return nbytes * 8.0 / seconds / 1000.0, nbytes, packets


encoders = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True,
                          text=True).stdout
src = DATA / "yuv420p_176x144_ref.yuv"
raw_in = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "176x144", "-r", "30000/1001",
          "-i", str(src)]
clips = [
    ("x264.mp4", "libx264", ["-c:v", "libx264", "-bf", "3", "-crf", "30"]),
    ("x264.mkv", "libx264", ["-c:v", "libx264", "-crf", "24"]),
    ("x264.264", "libx264", ["-c:v", "libx264", "-crf", "24", "-f", "h264"]),
    ("vp9.ivf", "libvpx-vp9", ["-c:v", "libvpx-vp9", "-b:v", "100k"]),
    ("vp9.webm", "libvpx-vp9", ["-c:v", "libvpx-vp9", "-crf", "40", "-b:v", "0"]),
    ("ffv1.nut", "ffv1", ["-c:v", "ffv1"]),
    ("audio.mkv", "libx264", ["-f", "lavfi", "-i", "sine=duration=0.2", "-c:v", "libx264",
                              "-c:a", "pcm_s16le", "-shortest"]),
    ("jpg%03d.jpg", "mjpeg", ["-c:v", "mjpeg", "-pix_fmt", "yuvj420p"]),  # an image sequence
]
with tempfile.TemporaryDirectory(prefix="psnrhvs-bitrate-") as tmp:
    tmp = Path(tmp)
    done = 0
    for name, encoder, args in clips:
        if f" {encoder} " not in encoders:
            print(f"{name}: skipped (no {encoder} encoder)")
            continue
        out = tmp / name
        pre = args[:args.index("-c:v")] if args[0] == "-f" else []
        post = args[len(pre):]
        subprocess.run([ffmpeg, "-v", "error", "-y", *raw_in, *pre, *post, str(out)], check=True)
        p = subprocess.run([TOOL, str(out)], capture_output=True, text=True)
        check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr.strip()}")
        if p.returncode:
            continue
        kbps, seconds, nbytes, packets, source = p.stdout.split()
        want = probe(out)
        check(source == "stream", f"{name}: source {source}")
        check((int(nbytes), int(packets)) == want[1:], f"{name}: {nbytes} bytes in {packets} "
              f"packets, ffprobe {want[1]} in {want[2]}")
        check(float(kbps) == want[0], f"{name}: {kbps} kbit/s, ffprobe's packets {want[0]!r}")
        print(f"{name}: {float(kbps):.3f} kbit/s over {float(seconds):.4f} s "
              f"({nbytes} bytes, {packets} packets)")
        done += 1
    check(done >= 3, f"only {done} clips encoded")

    for f in ("yuv420p_176x144_ref.yuv", "yuv420p_176x144_ref.y4m"):
        p = subprocess.run([TOOL, str(DATA / f)], capture_output=True, text=True)
        check(p.returncode == 3 and "not compressed" in p.stdout, f"{f}: {p.returncode}")
    p = subprocess.run([TOOL, str(tmp / "missing.mp4")], capture_output=True, text=True)
    check(p.returncode == 1 and "cannot open" in p.stderr, f"missing: {p.stderr}")
    subprocess.run([ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=0.2",
                    str(tmp / "sine.mka")], check=True)
    p = subprocess.run([TOOL, str(tmp / "sine.mka")], capture_output=True, text=True)
    check(p.returncode == 1 and "has no video stream" in p.stderr, f"audio only: {p.stderr}")

checker.finish()
