#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Declared colour and images.

Colour: a Y4M source with XCOLORRANGE=LIMITED against a full-range encode gives one
warning line naming both files and both ranges, and the scores of the same pair
without the tag (nothing converted); -q silences it; --colour_mismatch error makes
it an error (exit 1, no output); matrix, primaries and transfer that differ are named
the same way; equal or undeclared values say nothing; two Y4M files compare their
ranges too; each rendition of a ladder is compared. JPEGs (full range by their
format) against a source that declares no range warn too, with the ffmpeg command
that converts them, which does.

Images: PNG, JPEG and TIFF files and image sequences (frames/%03d.jpg) go through
FFmpeg, never the raw reader: a YUV JPEG (yuvj420p) and a JPEG sequence are scored
with the bits of their frames decoded by ffmpeg to raw YUV; a gray PNG is scored
luma only; an RGB PNG, as a file and as a sequence, is an error naming the format
and the ffmpeg command that converts it; a missing sequence is an error."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402


def frames_of(ck, args, what):
    got = ck.score(args, what)
    return got[0] if got else None


def main():
    ck = fftest.FF(sys.argv)
    d = ck.data
    ref_y4m = os.path.join(d, "yuv420p_176x144_ref.y4m")
    dist_raw = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "176x144", "-i",
                os.path.join(d, "yuv420p_176x144_dist.yuv")]
    ref_raw = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "176x144", "-i",
               os.path.join(d, "yuv420p_176x144_ref.yuv")]

    # ---- colour ----
    with open(ref_y4m, "rb") as f:
        head, rest = f.read().split(b"\n", 1)
    limited = ck.path("ref_limited.y4m")
    with open(limited, "wb") as f:
        f.write(head + b" XCOLORRANGE=LIMITED\n" + rest)
    full_y4m = ck.path("dist_full.y4m")
    with open(os.path.join(d, "yuv420p_176x144_dist.y4m"), "rb") as f:
        dh, drest = f.read().split(b"\n", 1)
    with open(full_y4m, "wb") as f:
        f.write(dh + b" XCOLORRANGE=FULL\n" + drest)
    full = ck.encode(dist_raw, "full.mkv", ["-c:v", "ffv1", "-color_range", "pc"])
    out = ck.path("out.json")
    p = ck.run(["-r", limited, "-d", full, "--json", "--precision", "max", "-o", out])
    err = p.stderr.decode()
    warn = [ln for ln in err.splitlines() if "declare different colour" in ln]
    ck.check(p.returncode == 0 and os.path.exists(out), f"full vs limited: exit {p.returncode}")
    ck.check(len(warn) == 1 and warn[0].startswith("psnrhvs: warning: the reference ") and
             limited in warn[0] and full in warn[0] and "range limited vs full" in warn[0] and
             "--colour_mismatch error" in warn[0], f"the warning: {err!r}")
    with open(out) as f:
        warned = f.read()
    quiet = ck.path("plain.json")
    ck.run_ok(["-r", ref_y4m, "-d", full, "--json", "--precision", "max", "-o", quiet],
              "no tag")
    with open(quiet) as f:
        plain = f.read()
    strip = (lambda t: "\n".join(ln for ln in t.splitlines() if '"fps"' not in ln))
    ck.check(strip(warned) == strip(plain), "a warned pair's scores changed")
    p = ck.run(["-r", limited, "-d", full, "-q", "-o", ck.path("q.xml")])
    ck.check(p.returncode == 0 and not p.stderr, f"-q: {p.stderr!r}")
    os.unlink(out)
    p = ck.run(["-r", limited, "-d", full, "--colour_mismatch", "error", "-o", out])
    ck.check(p.returncode == 1 and not os.path.exists(out) and
             "declare different colour: range limited vs full (--colour_mismatch error"
             in p.stderr.decode(), f"--colour_mismatch error: {p.returncode} {p.stderr!r}")
    p = ck.run(["-r", limited, "-d", full, "--colour_mismatch", "warn", "-o", out])
    ck.check(p.returncode == 0 and b"warning" in p.stderr, "--colour_mismatch warn")
    ck.error(["-r", limited, "-d", full, "--colour_mismatch", "maybe"], "bad value", 2,
             "--colour_mismatch")
    # both Y4M: their ranges are compared too
    p = ck.run(["-r", limited, "-d", full_y4m, "-o", ck.path("y.xml")])
    ck.check(p.returncode == 0 and b"range limited vs full" in p.stderr, f"y4m: {p.stderr!r}")
    # matrix, primaries, transfer
    m709 = ck.encode(dist_raw, "m709.mkv", ["-c:v", "ffv1", "-colorspace", "bt709",
                                            "-color_primaries", "bt709", "-color_trc", "bt709"])
    m601 = ck.encode(ref_raw, "m601.mkv", ["-c:v", "ffv1", "-colorspace", "smpte170m",
                                           "-color_primaries", "smpte170m", "-color_trc",
                                           "smpte170m"])
    p = ck.run(["-r", m601, "-d", m709, "-o", ck.path("m.xml")])
    e = p.stderr.decode()
    ck.check(p.returncode == 0 and "matrix smpte170m vs bt709" in e and
             "primaries smpte170m vs bt709" in e and "transfer smpte170m vs bt709" in e,
             f"matrix/primaries/transfer: {e!r}")
    same709 = ck.encode(ref_raw, "s709.mkv", ["-c:v", "ffv1", "-colorspace", "bt709",
                                              "-color_primaries", "bt709", "-color_trc",
                                              "bt709"])
    for a, b, what in ((same709, m709, "equal"), (ref_y4m, full, "undeclared"),
                       (limited, m709, "one side undeclared")):
        p = ck.run(["-r", a, "-d", b, "-o", ck.path("n.xml")])
        ck.check(p.returncode == 0 and b"colour" not in p.stderr, f"{what}: {p.stderr!r}")
    # a ladder: each rendition
    p = ck.run(["-r", limited, "-d", full, "-d", full_y4m, "-d", m709, "-o", ck.path("lad/")])
    ck.check(p.returncode == 0 and p.stderr.decode().count("declare different colour") == 2,
             f"ladder: {p.stderr!r}")

    # ---- images ----
    if not ck.has("mjpeg") or not ck.has("png"):
        ck.finish()
    seq = ck.path("jpg")
    os.mkdir(seq)
    ck.ff(dist_raw + ["-pix_fmt", "yuvj420p", "-c:v", "mjpeg", "-q:v", "4",
                      os.path.join(seq, "d%03d.jpg")])
    one = os.path.join(seq, "d001.jpg")
    decoded = ck.path("jpg.yuv")
    ck.ff(["-i", os.path.join(seq, "d%03d.jpg"), "-f", "rawvideo", "-pix_fmt", "yuvj420p",
           decoded])
    want = frames_of(ck, ["-r", ref_y4m, "-d", decoded, "-w", 176, "-h", 144], "decoded")
    got = frames_of(ck, ["-r", ref_y4m, "-d", os.path.join(seq, "d%03d.jpg")], "sequence")
    ck.check(got is not None and got == want and len(got) == 5,
             "a JPEG sequence: not the bits of its frames decoded")
    got1 = frames_of(ck, ["-r", ref_y4m, "-d", one, "--frame_cnt", 1], "one JPEG")
    ck.check(got1 is not None and want and got1 == want[:1], "a YUV JPEG: not its decoded bits")
    # a full-range JPEG against the limited-range source: the warning, then the scores
    p = ck.run(["-r", limited, "-d", one, "--frame_cnt", "1", "-o", ck.path("j.xml")])
    ck.check(p.returncode == 0 and b"range limited vs full" in p.stderr, f"jpeg: {p.stderr!r}")
    # The README's case: JPEGs that ffmpeg wrote from a source declaring no range. The
    # JPEGs' range is their format's (full), the source's that of video (limited): the
    # warning, with the command that converts them; --colour_mismatch error fails.
    pattern = os.path.join(seq, "d%03d.jpg")
    src = os.path.join(d, "yuv420p_176x144_dist.y4m")  # what the JPEGs were written from
    convert = f"ffmpeg -i {pattern} -vf scale=out_range=tv,format=yuv420p OUT.y4m"
    jx = ck.path("jpeg_seq.xml")
    p = ck.run(["-r", src, "-d", pattern, "-o", jx])
    warn = [ln for ln in p.stderr.decode().splitlines() if "declare different colour" in ln]
    ck.check(p.returncode == 0 and len(warn) == 1 and "range undeclared vs full" in warn[0] and
             f"{pattern} is full range (JPEG)" in warn[0] and convert in warn[0],
             f"JPEGs against a source declaring no range: {p.stderr!r}")
    p = ck.run(["-r", src, "-d", pattern, "--colour_mismatch", "error", "-o", ck.path("e.xml")])
    ck.check(p.returncode == 1 and not os.path.exists(ck.path("e.xml")) and
             len(p.stderr.splitlines()) == 1 and b"range undeclared vs full" in p.stderr and
             convert.encode() in p.stderr,
             f"JPEGs, --colour_mismatch error: {p.returncode} {p.stderr!r}")
    # the command converts them: no warning, and they score as the video they came from
    conv = ck.path("jpeg_tv.y4m")
    ck.ff(["-i", pattern, "-vf", "scale=out_range=tv,format=yuv420p", conv])
    cx = ck.path("jpeg_tv.xml")
    p = ck.run(["-r", src, "-d", conv, "-o", cx])
    ck.check(p.returncode == 0 and b"colour" not in p.stderr, f"converted JPEGs: {p.stderr!r}")
    import re
    means = []
    for x in (jx, cx):
        with open(x) as f:
            m = re.search(r'<metric name="psnr_hvs" [^>]*? mean="([^"]+)"', f.read())
        means.append(float(m.group(1)) if m else None)
    ck.check(None not in means and means[1] > means[0] + 3,
             f"psnr_hvs of the JPEGs as decoded and converted: {means}")
    print(f"JPEGs against their source: psnr_hvs {means[0]} as decoded, {means[1]} converted")
    # a JPEG against a Y4M that declares full range: nothing to say
    p = ck.run(["-r", full_y4m, "-d", pattern, "-o", ck.path("f.xml")])
    ck.check(p.returncode == 0 and b"colour" not in p.stderr, f"JPEGs vs full: {p.stderr!r}")
    gray = ck.path("gray.png")
    ck.ff(dist_raw + ["-frames:v", "1", "-pix_fmt", "gray", gray])
    gray_raw = ck.path("gray.yuv")
    ck.ff(["-i", gray, "-f", "rawvideo", "-pix_fmt", "gray", gray_raw])
    ref_gray = ck.path("ref_gray.yuv")
    ck.ff(ref_raw + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", ref_gray])
    want = frames_of(ck, ["-r", ref_gray, "-d", gray_raw, "-w", 176, "-h", 144, "-p", "400"],
                     "gray raw")
    got = frames_of(ck, ["-r", ref_gray, "-d", gray, "-w", 176, "-h", 144, "-p", "400"],
                    "gray png")
    ck.check(got is not None and got == want, "a gray PNG: not its decoded bits")
    rgb_dir = ck.path("rgb")
    os.mkdir(rgb_dir)
    ck.ff(dist_raw + [os.path.join(rgb_dir, "f%03d.png")])
    for path in (os.path.join(rgb_dir, "f001.png"), os.path.join(rgb_dir, "f%03d.png")):
        ck.error(["-r", ref_y4m, "-d", path, "-o", out], "RGB " + path, 1,
                 "pixel format rgb24 is not supported: it is RGB", "ffmpeg -i " + path,
                 "-pix_fmt yuv444p")
    # a .png read as raw samples would be "truncated frame 0"; a renamed PNG by its magic
    odd = ck.path("frame001.dat")
    with open(os.path.join(rgb_dir, "f001.png"), "rb") as f, open(odd, "wb") as g:
        g.write(f.read())
    ck.error(["-r", ref_y4m, "-d", odd], "PNG by magic", 1, "it is RGB")
    ck.error(["-r", ref_y4m, "-d", os.path.join(rgb_dir, "none%03d.png")], "no files", 1,
             "none%03d.png")
    ck.finish()


if __name__ == "__main__":
    main()
