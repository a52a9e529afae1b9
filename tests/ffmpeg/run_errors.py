#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every error of compressed input: one line on stderr, the status, no output
file, and the option that fixes it where one does. Unsupported pixel format,
size mismatch without --scale, depth mismatch without --common_bitdepth,
different lengths (both counts; --frame_cnt runs), --hwaccel cuda without an
NVIDIA GPU (or, where one works, the same bits as CPU decoding), an MP4 indexed
at its end on a pipe, no video stream, a damaged file, a frame size change, a
Matroska file cut short (the length error alone: nothing was scored)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402


def main():
    ck = fftest.FF(sys.argv)
    d = ck.data
    ref_y4m = os.path.join(d, "yuv420p_176x144_ref.y4m")
    dist8 = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "176x144", "-i",
             os.path.join(d, "yuv420p_176x144_dist.yuv")]
    enc = ck.encode(dist8, "enc.mkv", ["-c:v", "ffv1"])
    out = ck.path("out.xml")

    rgb = ck.encode(dist8, "rgb.nut", ["-c:v", "rawvideo", "-pix_fmt", "rgb24"])
    ck.error(["-r", ref_y4m, "-d", rgb, "-o", out], "rgb24", 1, "pixel format rgb24 is not supported")
    alpha = ck.encode(dist8, "alpha.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuva420p"])
    ck.error(["-r", ref_y4m, "-d", alpha], "yuva420p", 1, "pixel format yuva420p is not supported")
    p9 = ck.encode(dist8, "p9.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv420p9le"])
    ck.error(["-r", ref_y4m, "-d", p9], "9-bit", 1, "bit depth 9 is not supported", "yuv420p9le")

    small = ck.encode(dist8, "small.mkv", ["-vf", "scale=88:72", "-c:v", "ffv1"])
    ck.error(["-r", ref_y4m, "-d", small, "-o", out], "size mismatch", 1,
             "differ in size: 176x144", "88x72", "--scale")
    ck.error(["-r", small, "-d", enc, "--scale", "cubic"], "unknown algorithm", 2,
             "unexpected argument 'cubic'")
    ck.error(["-r", small, "-d", enc, "--scale=cubic"], "unknown algorithm", 2,
             "unknown --scale algorithm 'cubic'", "bicubic", "lanczos")
    d10 = ck.encode(dist8, "d10.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv420p10le"])
    ck.error(["-r", ref_y4m, "-d", d10, "-o", out], "depth mismatch", 1,
             "differ in bit depth: 8", "vs 10", "--common_bitdepth")
    d422 = ck.encode(dist8, "d422.mkv", ["-c:v", "ffv1", "-pix_fmt", "yuv422p"])
    ck.error(["-r", ref_y4m, "-d", d422, "--scale", "--common_bitdepth"], "layout mismatch", 1,
             "differ in pixel format: 420")
    ck.check(not os.path.exists(out), "an output file was written after an error")

    short = ck.encode(dist8, "short.mkv", ["-frames:v", "3", "-c:v", "ffv1"])
    ck.error(["-r", ref_y4m, "-d", short, "-o", out], "lengths", 1,
             "differ in length", "has 5 frames", "has 3", "--frame_cnt 3")
    ck.error(["-r", short, "-d", ref_y4m], "lengths, longer distorted", 1,
             "short.mkv has 3 frames", "has 5", "--frame_cnt 3")
    ck.error(["-r", ref_y4m, "-d", short, "--frame_skip_ref", "1"], "lengths after skipping", 1,
             "has 4 frames after skipping", "has 3")
    ck.check(not os.path.exists(out), "an output file was written after a length error")
    res = ck.score(["-r", ref_y4m, "-d", short, "--frame_cnt", "3"], "--frame_cnt 3")
    ck.check(res is not None and len(res[0]) == 3, "--frame_cnt 3: not 3 frames")

    # --hwaccel cuda: no NVIDIA GPU here (the usual case) is one clear error; with one,
    # the frames decoded on it give the CPU's bits.
    if ck.has("libx264"):
        h264 = ck.encode(dist8, "h264.mp4", ["-c:v", "libx264", "-crf", "30"])
        p = ck.run(["-r", ref_y4m, "-d", h264, "--hwaccel", "cuda", "--json", "--raw",
                    "--precision", "max", "-o", "-"])
        if p.returncode:
            err = p.stderr.decode()
            ck.check(p.returncode == 1 and len(err.strip().splitlines()) == 1 and
                     "--hwaccel cuda: cannot open CUDA device 0 to decode" in err and
                     "without --hwaccel the CPU decodes it" in err,
                     "--hwaccel cuda without a GPU: %d %r" % (p.returncode, err))
            print("no CUDA decoding here: " + err.strip())
        else:
            print("CUDA decoding works here: comparing its bits with the CPU's")
            ck.same_scores(ck.score(["-r", ref_y4m, "-d", h264, "--hwaccel", "cuda"], "hwaccel"),
                           ck.score(["-r", ref_y4m, "-d", h264], "cpu"), "--hwaccel cuda")
        # a decoder without CUDA support: a warning, decoded on the CPU
        p = ck.run(["-r", ref_y4m, "-d", enc, "--hwaccel", "cuda"])
        ck.check(p.returncode == 0 and b"FFmpeg has no CUDA decoder for" in p.stderr,
                 "--hwaccel cuda on FFV1: %d %r" % (p.returncode, p.stderr))
        p = ck.run(["-r", ref_y4m, "-d", ref_y4m, "--hwaccel", "cuda"])
        ck.check(p.returncode == 0 and b"--hwaccel has no effect" in p.stderr,
                 "--hwaccel with no compressed input: %r" % p.stderr)
        ck.error(["-r", ref_y4m, "-d", h264, "--hwaccel", "vaapi"], "--hwaccel vaapi", 2,
                 "unknown --hwaccel 'vaapi'")
        # an MP4 whose index follows its media (and FFmpeg's 64 KiB read buffer)
        # cannot be read from a pipe
        big = ck.encode(["-f", "lavfi", "-i", "testsrc2=size=320x240,noise=alls=30:allf=t",
                         "-frames:v", "10"], "big.mp4",
                        ["-c:v", "libx264", "-crf", "0", "-preset", "ultrafast"])
        ck.check(os.path.getsize(big) > 1 << 17, "big.mp4 is too small for the test")
        with open(big, "rb") as f:
            ck.error(["-r", ref_y4m, "-d", "-"], "mp4 on a pipe", 1, "stdin",
                     "-movflags +faststart", input_bytes=f.read())
        fs = ck.encode(dist8, "fs.mp4", ["-c:v", "libx264", "-crf", "30", "-movflags", "+faststart"])
        with open(fs, "rb") as f:
            ck.check(ck.score(["-r", ref_y4m, "-d", "-"], "faststart mp4 on a pipe",
                              input_bytes=f.read()) is not None, "faststart mp4 on a pipe")

    audio = ck.encode(["-f", "lavfi", "-i", "sine=d=0.2"], "audio.mka", ["-c:a", "pcm_s16le"])
    ck.error(["-r", ref_y4m, "-d", audio], "no video", 1, "audio.mka has no video stream")
    bad = ck.path("bad.mp4")
    with open(bad, "wb") as f:
        f.write(b"\x00\x00\x00\x18ftypisom" + b"\x17" * 200)
    ck.error(["-r", ref_y4m, "-d", bad], "damaged mp4", 1, "cannot open", "bad.mp4")
    empty = ck.encode(dist8, "empty.nut", ["-frames:v", "0", "-c:v", "ffv1"])
    ck.error(["-r", ref_y4m, "-d", empty], "no frame", 1, "empty.nut")
    if ck.has("libx264"):
        # the size changes within the stream: two H.264 streams one after the other
        a = ck.encode(dist8, "a.264", ["-frames:v", "2", "-c:v", "libx264"])
        b = ck.encode(dist8, "b.264", ["-frames:v", "2", "-vf", "scale=88:72", "-c:v", "libx264"])
        changing = ck.path("changing.264")
        with open(changing, "wb") as f:
            for part in (a, b):
                with open(part, "rb") as g:
                    f.write(g.read())
        ck.error(["-r", ref_y4m, "-d", changing], "size change", 1, "frame 2 of", "is 88x72",
                 "first frame 176x144")
        # damage (a run of zeros in the middle): concealed by the decoder as ffmpeg
        # conceals it, scored, and one warning
        whole = ck.encode(dist8, "whole.264", ["-c:v", "libx264", "-crf", "20", "-g", "100"])
        with open(whole, "rb") as f:
            data = bytearray(f.read())
        mid = len(data) * 2 // 3
        data[mid:mid + 40] = bytes(40)
        p = ck.run(["-r", ref_y4m, "-d", "-", "-q"], input_bytes=bytes(data))
        p2 = ck.run(["-r", ref_y4m, "-d", "-"], input_bytes=bytes(data))
        print("damaged stream: exit %d, %r" % (p2.returncode, p2.stderr.decode().strip()))
        ck.check(p.stderr == b"" and p.returncode in (0, 1), "damaged stream with -q: %r" % p.stderr)
        # a Matroska file cut short: its last packet damaged (FFmpeg logs a decoding
        # error) and fewer frames than the source: the length error is the one line,
        # no word on frames "scored as decoded" when nothing was scored
        def cut_mkv(name, in_args):
            mkv = ck.encode(in_args, name + "_src.mkv", ["-c:v", "libx264", "-crf", "20"])
            with open(mkv, "rb") as f:
                data = f.read()
            cut = ck.path(name + ".mkv")
            with open(cut, "wb") as f:
                f.write(data[:len(data) * 2 // 3])
            return cut
        # five frames cut: none left to decode, one line
        short = cut_mkv("cut5", dist8)
        err = ck.error(["-r", ref_y4m, "-d", short, "-o", out], "truncated 5-frame mkv", 1,
                       "no frames to score")
        ck.check("scored as decoded" not in err, "truncated 5-frame mkv: %r" % err)
        # twenty frames cut: more than the reference's 5, fewer than encoded
        cut = cut_mkv("cut20", ["-stream_loop", "3"] + dist8)
        err = ck.error(["-r", ref_y4m, "-d", cut, "-o", out], "truncated mkv", 1,
                       "differ in length", "--frame_cnt")
        ck.check("scored as decoded" not in err, "truncated mkv: %r" % err)
        # with --frame_cnt the frames it has are scored: the decoding error is then
        # a warning after the scores
        n = err.split("--frame_cnt ")[1].split()[0] if "--frame_cnt " in err else "1"
        p = ck.run(["-r", ref_y4m, "-d", cut, "--frame_cnt", n, "-o", out])
        print("truncated mkv, --frame_cnt %s: exit %d, %r" % (n, p.returncode, p.stderr))
        ck.check(p.returncode == 0 and os.path.exists(out),
                 "truncated mkv with --frame_cnt %s: %d %r" % (n, p.returncode, p.stderr))
    ck.finish()


if __name__ == "__main__":
    main()
