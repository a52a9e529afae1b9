#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Ladders: several -d against one reference. Each rendition's output must be the bytes a
single run of that rendition writes (fps aside) in XML, JSON, CSV and sub, with
--precision max --raw, --subsample, --frame_cnt, skips, --plot, a shorter rendition, a
rendition from stdin and 10-bit input; the naming rules of -o and --plot (DIR/, an
existing folder, %s, %d, %%) and their errors (a plain file, stdout, a format flag without
-o, two renditions on one name, an unknown %-sequence), a rendition of another geometry,
parity and more than 16 renditions refused."""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def strip_fps(data):
    data = re.sub(rb'<fyi fps="[^"]*" />', b'<fyi fps="" />', data)
    return re.sub(rb'"fps": [^,\n]*,', b'"fps": ,', data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def single(ck, tmp, ref, dist, fmt_args, ext, extra=(), what=""):
    out = os.path.join(tmp, "single." + ext)
    if os.path.exists(out):
        os.unlink(out)
    p = ck.run_ok(["-r", ref, "-d", dist, "-o", out, "-q"] + list(fmt_args) + list(extra),
                  "single %s %s" % (dist, what))
    return read(out) if p.returncode == 0 and os.path.exists(out) else None


def expect_usage(ck, what, args, phrase, status=2, cwd=None):
    p = ck.run(args, cwd=cwd)
    err = p.stderr.decode(errors="replace")
    ck.check(p.returncode == status, "%s: exit %d, expected %d; %r" % (what, p.returncode, status, err))
    ck.check(len([l for l in err.splitlines() if l.strip()]) == 1 and err.startswith("psnrhvs: "),
             "%s: not one line: %r" % (what, err))
    ck.check(phrase in err, "%s: %r not in %r" % (what, phrase, err))


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    d = ck.data
    ref = os.path.join(d, "yuv420p_176x144_ref.y4m")
    fb = 176 * 144 * 3 // 2
    with tempfile.TemporaryDirectory() as tmp:
        # Renditions of the reference's geometry: the distorted pair, the reference itself
        # (+inf, JSON null), the raw twin of the distorted, its frames reversed, and a
        # shorter one (3 whole frames).
        raw = read(os.path.join(d, "yuv420p_176x144_dist.yuv"))
        frames = [raw[i * fb:(i + 1) * fb] for i in range(len(raw) // fb)]
        rev = os.path.join(tmp, "reversed.yuv")
        with open(rev, "wb") as f:
            f.write(b"".join(reversed(frames)))
        short = os.path.join(tmp, "short.yuv")
        with open(short, "wb") as f:
            f.write(b"".join(frames[1:4]))
        idcopy = os.path.join(tmp, "copy_of_ref.y4m")
        shutil.copy(ref, idcopy)
        dists = [os.path.join(d, "yuv420p_176x144_dist.y4m"), idcopy,
                 os.path.join(d, "yuv420p_176x144_dist.yuv"), rev]
        names = ["yuv420p_176x144_dist", "copy_of_ref", "yuv420p_176x144_dist", "reversed"]

        # ---- every format, byte for byte a single run's ----
        formats = [(["--xml"], "xml"), (["--json"], "json"), (["--csv"], "csv"), (["--sub"], "sub"),
                   (["--json", "--precision", "max", "--raw"], "json"),
                   (["--xml", "--precision", "max", "--raw"], "xml"),
                   (["--csv", "--precision", "max", "--raw"], "csv")]
        for fmt_args, ext in formats:
            outdir = os.path.join(tmp, "out_" + "_".join(a.strip("-") for a in fmt_args))
            os.mkdir(outdir)
            args = ["-r", ref] + sum([["-d", x] for x in dists], []) + fmt_args + [
                "-o", os.path.join(outdir, "%d_%s." + ext), "-q"]
            p = ck.run_ok(args, "ladder %s" % fmt_args)
            if p.returncode:
                continue
            ck.check(sorted(os.listdir(outdir)) == sorted("%d_%s.%s" % (i, n, ext)
                                                          for i, n in enumerate(names)),
                     "ladder %s: files %s" % (fmt_args, os.listdir(outdir)))
            for i, x in enumerate(dists):
                want = single(ck, tmp, ref, x, fmt_args, ext)
                got = read(os.path.join(outdir, "%d_%s.%s" % (i, names[i], ext)))
                ck.check(want is not None and strip_fps(got) == strip_fps(want),
                         "ladder %s rendition %d (%s) differs from its single run" % (fmt_args, i, x))

        # ---- frame selection, a shorter rendition (its warning), 10-bit, stdin, plots ----
        cases = [
            ("subsample", ref, dists[:3], ["--subsample", "2"]),
            ("frame_cnt", ref, dists[:2], ["--frame_cnt", "3"]),
            ("skips", ref, dists[:3], ["--frame_skip_ref", "1", "--frame_skip_dist", "2"]),
            ("short", ref, [dists[0], short, dists[3]], []),
            ("10-bit", os.path.join(d, "yuv420p10_176x144_ref.y4m"),
             [os.path.join(d, "yuv420p10_176x144_dist.y4m"),
              os.path.join(d, "yuv420p10_176x144_dist.yuv"),
              os.path.join(d, "yuv420p10_176x144_ref.yuv")], []),
            ("luma only", ref, dists[:2], ["--feature", "psnr_hvs=enable_chroma=false"]),
        ]
        for what, r, ds, extra in cases:
            outdir = os.path.join(tmp, "case_" + what.replace(" ", "_"))
            os.mkdir(outdir)
            args = ["-r", r] + sum([["-d", x] for x in ds], []) + [
                "--json", "--precision", "max", "--raw", "-o", outdir + "/%d.json"] + extra
            p = ck.run_ok(args, "ladder " + what)
            if what == "short":
                ck.check(b"short.yuv ended before" in p.stderr and b"after 3 frames" in p.stderr,
                         "short: warning %r" % p.stderr)
            for i, x in enumerate(ds):
                want = single(ck, tmp, r, x, ["--json", "--precision", "max", "--raw"], "json",
                              extra, what)
                path = os.path.join(outdir, "%d.json" % i)
                ck.check(os.path.exists(path) and want is not None
                         and strip_fps(read(path)) == strip_fps(want),
                         "ladder %s rendition %d differs from its single run" % (what, i))

        # one rendition from a pipe
        outdir = os.path.join(tmp, "stdin")
        os.mkdir(outdir)
        p = ck.run_ok(["-r", ref, "-d", dists[0], "-d", "-", "--json", "-o", outdir + "/"],
                      "ladder with stdin", input_bytes=read(rev))
        ck.check(sorted(os.listdir(outdir)) == ["stdin.json", "yuv420p_176x144_dist.json"],
                 "stdin: files %s" % os.listdir(outdir))
        want = single(ck, tmp, ref, rev, ["--json"], "json")
        ck.check(os.path.exists(outdir + "/stdin.json") and want is not None
                 and strip_fps(read(outdir + "/stdin.json")) == strip_fps(want), "stdin rendition")

        # plots: DIR/<name>.svg, the bytes of single runs' plots
        outdir = os.path.join(tmp, "plots")
        os.mkdir(outdir)
        ck.run_ok(["-r", ref, "-d", dists[0], "-d", dists[3], "-o", outdir + "/", "--plot",
                   outdir + "/", "-q"], "ladder plots")
        ck.check(sorted(os.listdir(outdir)) == ["reversed.svg", "reversed.xml",
                                                "yuv420p_176x144_dist.svg",
                                                "yuv420p_176x144_dist.xml"],
                 "plots: files %s" % os.listdir(outdir))
        for x, n in ((dists[0], "yuv420p_176x144_dist"), (dists[3], "reversed")):
            sp = os.path.join(tmp, "single.svg")
            ck.run_ok(["-r", ref, "-d", x, "--plot", sp, "-q"], "single plot")
            ck.check(read(sp) == read(os.path.join(outdir, n + ".svg")), "plot of %s differs" % n)

        # ---- naming ----
        # an existing folder without a slash; DIR/ with the extension of the format
        outdir = os.path.join(tmp, "existing")
        os.mkdir(outdir)
        ck.run_ok(["-r", ref, "-d", dists[0], "-d", dists[3], "--csv", "-o", outdir], "folder")
        ck.check(sorted(os.listdir(outdir)) == ["reversed.csv", "yuv420p_176x144_dist.csv"],
                 "folder: files %s" % os.listdir(outdir))
        # %% and %s in a pattern, default XML
        ck.run_ok(["-r", ref, "-d", dists[0], "-d", dists[3], "-o", tmp + "/pat_%%_%s.out"],
                  "pattern %%")
        ck.check(os.path.exists(tmp + "/pat_%_reversed.out")
                 and read(tmp + "/pat_%_reversed.out").startswith(b"<VMAF "), "pattern %%")
        # without -o: a summary per rendition, each headed by its name
        p = ck.run_ok(["-r", ref, "-d", dists[0], "-d", dists[3]], "summary")
        out = p.stdout.decode()
        ck.check(out.count("5 frames, 176x144") == 2 and dists[0] in out and rev in out,
                 "summary: %r" % out)

        two = ["-r", ref, "-d", dists[0], "-d", dists[3]]
        expect_usage(ck, "plain file", two + ["-o", tmp + "/one.xml"], "is one file and there are several -d")
        expect_usage(ck, "stdout", two + ["-o", "-"], "would be mixed in one stream")
        expect_usage(ck, "format to stdout", two + ["--json"], "needs -o DIR/ or an -o pattern")
        expect_usage(ck, "same name", ["-r", ref, "-d", dists[0], "-d", dists[2], "-o", tmp + "/dup/"],
                     "would both write")
        ck.check(not os.path.exists(tmp + "/dup"), "same name: something was written")
        expect_usage(ck, "same name, pattern", two + ["-o", tmp + "/x_%%.json"], "would both write")
        expect_usage(ck, "bad pattern", two + ["-o", tmp + "/x_%x.json"], "bad output pattern")
        expect_usage(ck, "plot plain file", two + ["-o", tmp + "/", "--plot", tmp + "/p.svg"],
                     "--plot: -o")
        expect_usage(ck, "parity", ["parity"] + two, "parity compares backends on one distorted")
        expect_usage(ck, "17 renditions", ["-r", ref] + ["-d", dists[0]] * 17 + ["-o", tmp + "/%d"],
                     "at most 16 renditions")
        expect_usage(ck, "two stdin", ["-r", ref, "-d", "-", "-d", "-", "-o", tmp + "/%d"],
                     "can be stdin")
        # another geometry: one line naming the rendition, nothing written
        other = os.path.join(d, "yuv420p10_176x144_dist.y4m")
        outdir = os.path.join(tmp, "geometry")
        expect_usage(ck, "bit depth", ["-r", ref, "-d", dists[0], "-d", other, "-o", outdir + "/"],
                     "differ in bit depth: 8 (%s) vs 10 (%s)" % (ref, other), status=1)
        ck.check(not os.path.exists(outdir) or not os.listdir(outdir), "geometry: files written")
        other = os.path.join(d, "yuv444p_176x144_dist.y4m")
        expect_usage(ck, "layout", ["-r", ref, "-d", dists[0], "-d", other, "-o", outdir + "/"],
                     "differ in pixel format: 420 (%s) vs 444 (%s)" % (ref, other), status=1)
        # a rendition with no frame: one line naming it
        os.mkdir(outdir)
        empty = os.path.join(tmp, "empty.yuv")
        open(empty, "wb").close()
        expect_usage(ck, "no frames", ["-r", ref, "-d", dists[0], "-d", empty, "-o", outdir + "/"],
                     "no frames to score: %s has no frame" % empty, status=1)
        ck.check(not os.path.exists(outdir) or not os.listdir(outdir), "no frames: files written")
    ck.finish()


if __name__ == "__main__":
    main()
