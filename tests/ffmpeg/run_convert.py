#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The explicit conversions. --scale (the distorted to the reference size,
libswscale, bicubic by default, any named algorithm) gives the bits of ffmpeg's
scale filter with flags=ALGO+accurate_rnd+bitexact piped as Y4M, for a
compressed, Y4M or raw distorted, 8 and 10 bits. --common_bitdepth (and
--aom_ctc v6.0, which implies it) gives the bits of the lower-depth side
shifted up (v << 2) by hand, on either side, and combined with --scale."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402


def shifted(src, dst, by):
    """8-bit planes to 16-bit little-endian words v << by."""
    with open(src, "rb") as f:
        data = f.read()
    out = bytearray(2 * len(data))
    for i, v in enumerate(data):
        w = v << by
        out[2 * i] = w & 0xff
        out[2 * i + 1] = w >> 8
    with open(dst, "wb") as f:
        f.write(out)


def scaled_pipe(ck, ref_args, small, size, algo, what, extra=()):
    """psnrhvs on ffmpeg's own scale (bitexact, accurate rounding) piped as Y4M."""
    p = subprocess.run([ck.ffmpeg, "-hide_banner", "-v", "error", "-nostdin", "-i", small, "-vf",
                        "scale=%s:flags=%s+accurate_rnd+bitexact" % (size, algo), "-strict", "-1",
                        "-f", "yuv4mpegpipe", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if not ck.check(p.returncode == 0, what + ": ffmpeg scale failed: " + p.stderr.decode()):
        return None
    return ck.score(list(ref_args) + ["-d", "-"] + list(extra), what + " (ffmpeg scale)",
                    input_bytes=p.stdout)


def main():
    ck = fftest.FF(sys.argv)
    d = ck.data
    ref8 = ["-r", os.path.join(d, "yuv420p_176x144_ref.y4m")]
    ref10 = ["-r", os.path.join(d, "yuv420p10_176x144_ref.y4m")]
    dist8 = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "176x144", "-i",
             os.path.join(d, "yuv420p_176x144_dist.yuv")]
    dist10 = ["-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "176x144", "-i",
              os.path.join(d, "yuv420p10_176x144_dist.yuv")]

    # --scale: a smaller encode (the ladder's lower rung) scaled up to the reference
    small8 = ck.encode(dist8, "small8.mkv", ["-vf", "scale=120:96", "-c:v", "ffv1"])
    small10 = ck.encode(dist10, "small10.mkv", ["-vf", "scale=88:72", "-c:v", "ffv1"])
    small_y4m = ck.encode(dist8, "small8.y4m", ["-vf", "scale=120:96", "-f", "yuv4mpegpipe"])
    small_yuv = ck.encode(dist8, "small8.yuv", ["-vf", "scale=120:96", "-f", "rawvideo"])
    for args, algo, what in [
            (["-d", small8, "--scale"], "bicubic", "--scale (bicubic default), ffv1"),
            (["-d", small8, "--scale", "lanczos"], "lanczos", "--scale lanczos"),
            (["-d", small8, "--scale=bilinear"], "bilinear", "--scale=bilinear"),
            (["-d", small_y4m, "--scale", "spline"], "spline", "--scale spline, y4m distorted"),
            (["-d", small_yuv, "-w", "120", "-h", "96", "--scale"], "bicubic",
             "--scale, raw distorted (-w -h describe it)")]:
        src = small_y4m if "y4m" in what or "raw" in what else small8
        ck.same_scores(ck.score(ref8 + args, what),
                       scaled_pipe(ck, ref8, src, "176:144", algo, what), what)
    ck.same_scores(ck.score(ref10 + ["-d", small10, "--scale"], "--scale 10-bit"),
                   scaled_pipe(ck, ref10, small10, "176:144", "bicubic", "--scale 10-bit"),
                   "--scale 10-bit")

    # --common_bitdepth: an 8-bit reference against a 10-bit encode
    enc10 = ck.encode(dist8, "enc10.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv420p10le"])
    ref_up = ck.path("ref_up.yuv")
    shifted(os.path.join(d, "yuv420p_176x144_ref.yuv"), ref_up, 2)
    by_hand = ck.score(["-r", ref_up, "-w", "176", "-h", "144", "-b", "10", "-d", enc10],
                       "reference shifted by hand")
    ck.same_scores(ck.score(ref8 + ["-d", enc10, "--common_bitdepth"], "--common_bitdepth"),
                   by_hand, "--common_bitdepth (8-bit y4m reference, 10-bit encode)")
    ck.same_scores(ck.score(ref8 + ["-d", enc10, "--aom_ctc", "v6.0"], "--aom_ctc v6.0"),
                   by_hand, "--aom_ctc v6.0 implies --common_bitdepth")
    # a raw 8-bit reference (-b 8 describes it) against the 10-bit encode
    ck.same_scores(ck.score(["-r", os.path.join(d, "yuv420p_176x144_ref.yuv"), "-w", "176", "-h",
                             "144", "-b", "8", "-d", enc10, "--common_bitdepth"],
                            "--common_bitdepth raw"), by_hand, "--common_bitdepth, raw reference")
    # the distorted is the lower side: a 10-bit reference, an 8-bit encode
    enc8 = ck.encode(dist8, "enc8.mkv", ["-c:v", "ffv1"])
    dist_up = ck.path("dist_up.yuv")
    shifted(os.path.join(d, "yuv420p_176x144_dist.yuv"), dist_up, 2)
    ref10_of8 = ck.encode(["-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-s", "176x144", "-i",
                           ck.path("ref_up.yuv")], "ref10_of8.mkv", ["-c:v", "ffv1"])
    ck.same_scores(ck.score(["-r", ref10_of8, "-d", enc8, "--common_bitdepth"], "lower distorted"),
                   ck.score(["-r", ref10_of8, "-d", dist_up, "-w", "176", "-h", "144", "-b", "10"],
                            "distorted shifted by hand"),
                   "--common_bitdepth, 8-bit distorted")
    # --scale and --common_bitdepth together: scaled at 8 bits, then shifted
    ck.same_scores(ck.score(["-r", ref10_of8, "-d", small8, "--scale", "--common_bitdepth"],
                            "--scale --common_bitdepth"),
                   scaled_pipe(ck, ["-r", ref10_of8], small8, "176:144", "bicubic",
                               "--scale --common_bitdepth", ["--common_bitdepth"]),
                   "--scale --common_bitdepth")
    ck.finish()


if __name__ == "__main__":
    main()
