#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs built without FFmpeg (PSNRHVS_FFMPEG=OFF; built here as
psnrhvs_noffmpeg from the same sources): a compressed input, recognised by its
first bytes (files and stdin) or its name, gets one line saying so and how to
convert it, never a score of its bytes as raw video; --scale says it needs
libswscale; target says it needs FFmpeg; raw, Y4M and --common_bitdepth work as
ever. Needs no ffmpeg."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import clitest  # noqa: E402
import tempfile  # noqa: E402


def one_line(ck, args, what, status, *needles, input_bytes=None):
    p = ck.run(args, input_bytes=input_bytes)
    err = p.stderr.decode(errors="replace")
    ck.check(p.returncode == status and len(err.strip().splitlines()) == 1,
             "%s: exit %d, stderr %r" % (what, p.returncode, err))
    for n in needles:
        ck.check(n in err, "%s: %r not in %r" % (what, n, err))


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    d = ck.data
    ref = os.path.join(d, "yuv420p_176x144_ref.y4m")
    with tempfile.TemporaryDirectory() as tmp:
        magics = {
            "enc.mp4": b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2avc1mp41",
            "enc.mkv": b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01",
            "enc.ivf": b"DKIF\x00\x00\x20\x00AV01\xb0\x00\x90\x00",
            "enc.264": b"\x00\x00\x00\x01\x67\x64\x00\x1e\xac\xd9\x40",
            "enc.hevc": b"\x00\x00\x00\x01\x40\x01\x0c\x01\xff\xff",
        }
        for name, magic in magics.items():
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(magic + bytes(4096))
            one_line(ck, ["-r", ref, "-d", path], name, 1,
                     "psnrhvs was built without FFmpeg: cannot decode " + path,
                     "convert it to Y4M first with: ffmpeg -i " + path,
                     "-f yuv4mpegpipe")
            # the same bytes on stdin: the magic tells
            one_line(ck, ["-r", ref, "-d", "-"], name + " on stdin", 1,
                     "built without FFmpeg: cannot decode stdin", input_bytes=magic + bytes(4096))
        # a name alone (no magic): .webm, .mov
        for name in ("clip.webm", "clip.MOV", "clip.obu"):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(bytes(38016 * 2))
            one_line(ck, ["-r", ref, "-d", path], name, 1, "built without FFmpeg: cannot decode")
        # --scale needs libswscale; --common_bitdepth needs nothing
        small = os.path.join(tmp, "small.y4m")
        with open(small, "wb") as f:
            f.write(b"YUV4MPEG2 W88 H72 F25:1 C420jpeg\n" + (b"FRAME\n" + bytes(88 * 72 * 3 // 2)) * 5)
        one_line(ck, ["-r", ref, "-d", small, "--scale"], "--scale", 1,
                 "--scale needs FFmpeg's libswscale")
        # target encodes with FFmpeg's libraries: one line, exit 1
        one_line(ck, ["target", "-r", ref, "--encoder", "libx264", "--target", "40"], "target", 1,
                 "target: this psnrhvs was built without FFmpeg's libraries")
        p = ck.run(["-r", ref, "-d", os.path.join(d, "yuv420p10_176x144_dist.y4m"), "--frame_cnt",
                    "4", "--common_bitdepth", "-q"])
        ck.check(p.returncode == 0, "--common_bitdepth without FFmpeg: %r" % p.stderr)
    # raw and Y4M as ever: a golden pair
    g = next(x for x in clitest.load_goldens(d) if x["name"] == "yuv420p_97x61")
    p = ck.run_ok(clitest.golden_args(d, g) + ["--json", "--precision", "max", "--raw", "-q",
                                               "-o", "-"], "raw golden pair")
    if not p.returncode:
        frames, pooled, _ = clitest.parse_json_output(p.stdout.decode())
        clitest.compare_frames(ck, "raw golden pair", g, frames)
    ck.finish()


if __name__ == "__main__":
    main()
