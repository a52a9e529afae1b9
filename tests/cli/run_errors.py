#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every error case: the right exit status (1 input/runtime, 2 usage), one line on
stderr starting 'psnrhvs: ' with a specific phrase, no crash, no output file, and a
pre-existing output file left untouched."""
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

SENTINEL = b"previous good output\n"


def expect_error(ck, what, args, status, phrase, stdin_bytes=None, tmp=None):
    """Run twice: with no output file (none may appear) and over an existing one (kept)."""
    outdir = tempfile.mkdtemp(dir=tmp)
    try:
        for existing in (False, True):
            out = os.path.join(outdir, "out.json")
            if existing:
                with open(out, "wb") as f:
                    f.write(SENTINEL)
            # first, so that a case's own trailing arguments stay last
            p = ck.run(["--json", "-o", out] + args, input_bytes=stdin_bytes)
            err = p.stderr.decode(errors="replace")
            lines = [l for l in err.splitlines() if l.strip()]
            tag = "%s%s" % (what, " (existing output)" if existing else "")
            ck.check(p.returncode == status,
                     "%s: exit %d, expected %d; stderr %r" % (tag, p.returncode, status, err))
            ck.check(p.returncode > 0, "%s: killed by signal %d" % (tag, -p.returncode))
            ck.check(len(lines) == 1, "%s: %d stderr lines: %r" % (tag, len(lines), err))
            ck.check(bool(lines) and lines[0].startswith("psnrhvs: "), "%s: stderr %r" % (tag, err))
            ck.check(phrase in err, "%s: %r not in stderr %r" % (tag, phrase, err))
            ck.check(p.stdout == b"", "%s: stdout %r" % (tag, p.stdout[:200]))
            left = sorted(os.listdir(outdir))
            if existing:
                ck.check(left == ["out.json"], "%s: files left %s" % (tag, left))
                with open(out, "rb") as f:
                    ck.check(f.read() == SENTINEL, "%s: existing output file changed" % tag)
                os.unlink(out)
            else:
                ck.check(left == [], "%s: files left %s" % (tag, left))
    finally:
        shutil.rmtree(outdir)


def y4m_header(w, h, c="420jpeg", extra=""):
    return ("YUV4MPEG2 W%d H%d F25:1 Ip A0:0 C%s%s\n" % (w, h, c, extra)).encode()


def frame_bytes(w, h, layout="420", bps=1):
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h),
              "400": (0, 0)}[layout]
    return (w * h + 2 * cw * ch) * bps


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def interrupted_run(ck, ref, dist_data, geo):
    """SIGINT while scoring: the temporary output file is removed, an old file is kept."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.xml")
        with open(out, "wb") as f:
            f.write(SENTINEL)
        proc = subprocess.Popen([ck.psnrhvs, "-r", ref, "-d", "-", "-o", out] + geo,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write(dist_data)
        proc.stdin.flush()  # keep stdin open: the tool now waits for more frames
        deadline = time.time() + 30
        while len(os.listdir(tmp)) < 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        ck.check(len(os.listdir(tmp)) == 2, "interrupt: no temporary file seen: %s" % os.listdir(tmp))
        proc.send_signal(signal.SIGINT)
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
        ck.check(proc.returncode == -signal.SIGINT, "interrupt: returncode %d" % proc.returncode)
        ck.check(os.listdir(tmp) == ["out.xml"], "interrupt: files left %s" % os.listdir(tmp))
        with open(out, "rb") as f:
            ck.check(f.read() == SENTINEL, "interrupt: existing output changed")


def failure_with_stdin_open(ck, ref, dist_data, geo):
    """A scorer that cannot open must not wait for a pipe that stays open: the
    reader thread starts only with the scoring."""
    p = ck.run(["--list-devices"])
    failing = [l.split(":")[0] for l in p.stdout.decode().splitlines()
               if l.endswith(": not built in") or l.endswith(": no device")]
    if not failing:
        print("skip: every backend opens here; no open failure to provoke")
        return
    for args in (["--backend", failing[0]], ["parity", "--backends", "cpu," + failing[0]]):
        cmd = [ck.psnrhvs] + args + ["-r", ref, "-d", "-"] + geo
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            proc.stdin.write(dist_data[:1000])  # under a pipe's buffer
            proc.stdin.flush()  # and keep it open
        except BrokenPipeError:
            pass  # it has exited already
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
        proc.stdout.close()
        proc.stderr.close()
        ck.check(rc == 1, "%s with stdin open: exit %r, expected 1 at once" % (" ".join(args), rc))


def poke16(data, index, value):
    b = bytearray(data)
    b[2 * index:2 * index + 2] = struct.pack("<H", value)
    return bytes(b)


def issue12_errors(ck, E, t, d, ref_yuv, dist_yuv, ref_y4m, dist_y4m_data, hdr_len, geo):
    # Samples above 2^bitdepth - 1: one line naming the side, file, frame, plane, place and value.
    ref10 = os.path.join(d, "yuv420p10_176x144_ref.yuv")
    with open(os.path.join(d, "yuv420p10_176x144_dist.yuv"), "rb") as f:
        dist10 = f.read()
    fs = 176 * 144 * 3 // 2  # samples a frame
    geo10 = geo + ["-b", "10"]
    bad = write(t("bad_y.yuv"), poke16(dist10, 2 * fs + 7 * 176 + 5, 1024))
    E("10-bit Y sample 1024", ["-r", ref10, "-d", bad] + geo10, 1,
      "sample out of range in the distorted %s, frame 2: Y plane x=5 y=7 is 1024, above the 10-bit "
      "maximum 1023" % bad)
    bad = write(t("bad_cr.yuv"), poke16(dist10, fs + 176 * 144 + 88 * 72 + 3 * 88 + 87, 65535))
    E("10-bit Cr sample 65535", ["-r", bad, "-d", ref10] + geo10, 1,
      "sample out of range in the reference %s, frame 1: Cr plane x=87 y=3 is 65535" % bad)
    # the same file as 12-bit is in range: the limit follows the depth
    p = ck.run(["-r", bad, "-d", ref10, "--csv", "-o", "-"] + geo + ["-b", "12"])
    ck.check(p.returncode == 1 and b"Cr plane x=87 y=3 is 65535, above the 12-bit maximum 4095"
             in p.stderr, "12-bit 65535: %r" % p.stderr)
    # Y4M, 12-bit, on stdin; the frames before the bad one are scored, nothing is written
    with open(os.path.join(d, "yuv420p12_176x144_dist.y4m"), "rb") as f:
        y12 = f.read()
    h12 = y12.index(b"\n") + 1
    off = h12 + 6 + 176 * 144 * 2 + (10 * 88 + 4) * 2  # frame 0, Cb x=4 y=10
    y12_bad = y12[:off] + struct.pack("<H", 4096) + y12[off + 2:]
    E("12-bit y4m Cb 4096 on stdin", ["-r", os.path.join(d, "yuv420p12_176x144_ref.y4m"), "-d", "-"],
      1, "sample out of range in the distorted stdin, frame 0: Cb plane x=4 y=10 is 4096, above "
      "the 12-bit maximum 4095", stdin_bytes=y12_bad)
    # every sample at the maximum is fine
    full = write(t("full10.yuv"), struct.pack("<%dH" % fs, *([1023] * fs)))
    p = ck.run(["-r", full, "-d", ref10, "--csv", "-o", "-", "--frame_cnt", "1"] + geo10)
    ck.check(p.returncode == 0 and len(p.stdout.splitlines()) == 2,
             "all samples 1023: exit %d %r" % (p.returncode, p.stderr))

    # Empty inputs: one line, saying which
    empty = write(t("empty_ref.yuv"), b"")
    E("reference empty", ["-r", empty, "-d", dist_yuv] + geo, 1,
      "no frames to score: %s has no frame" % empty)
    E("distorted skipped past its end", ["-r", ref_yuv, "-d", dist_yuv, "--frame_skip_dist", "9"] + geo,
      1, "no frames to score: %s has no frame after skipping" % dist_yuv)
    E("y4m without frames", ["-r", ref_y4m, "-d", write(t("hdr.y4m"), dist_y4m_data[:hdr_len])], 1,
      "no frames to score: %s has no frame" % t("hdr.y4m"))

    # CR LF: a header ending in "\r\n" reads as with "\n"; a CR inside a tag is shown as \r
    crlf = write(t("crlf.y4m"), dist_y4m_data[:hdr_len - 1] + b"\r\n" + dist_y4m_data[hdr_len:])
    a = ck.run(["-r", ref_y4m, "-d", crlf, "--csv", "--precision", "max", "-o", "-"])
    b = ck.run(["-r", ref_y4m, "-d", os.path.join(d, "yuv420p_176x144_dist.y4m"), "--csv",
                "--precision", "max", "-o", "-"])
    ck.check(a.returncode == 0 and a.stdout == b.stdout and a.stdout.count(b"\n") == 6,
             "CR LF header: exit %d, %r" % (a.returncode, a.stderr))
    body = dist_y4m_data[hdr_len:]
    E("CR inside the C tag", ["-r", ref_y4m, "-d", write(t("cr.y4m"), b"YUV4MPEG2 W176 H144 C420\rjpeg\n" + body)],
      1, "unsupported C tag 'C420\\rjpeg'")
    p = ck.run(["-r", ref_y4m, "-d", t("cr.y4m")])
    ck.check(b"\r" not in p.stderr, "CR in a tag: a raw CR in the message: %r" % p.stderr)
    E("control byte in W", ["-r", ref_y4m, "-d", write(t("w.y4m"), b"YUV4MPEG2 W17\x016 H144\n" + body)],
      1, "bad W tag 'W17\\x016'")

    # -o checked before any frame: a directory, a block device, no such parent
    E("output is a directory", ["-r", ref_yuv, "-d", dist_yuv, "-o", tempfile.gettempdir()] + geo, 1,
      "output file %s is a directory" % tempfile.gettempdir())
    E("output ends with /", ["-r", ref_yuv, "-d", dist_yuv, "-o", t("x.xml/")] + geo, 1,
      "cannot create output file")

    # vmaf's flags that do not apply, and malformed ones: usage errors, one line each
    args = ["-r", ref_yuv, "-d", dist_yuv] + geo
    E("-m", args + ["-m", "version=vmaf_v0.6.1"], 2, "-m/--model does not apply: psnr_hvs uses no VMAF model")
    E("--model", args + ["--model=path=x.json"], 2, "-m/--model does not apply")
    E("--nflx_ctc v1.0", args + ["--nflx_ctc", "v1.0"], 2,
      "--nflx_ctc v1.0 does not apply: its metrics (the VMAF 4K models, psnr, float_ssim, cambi) do "
      "not include psnr_hvs")
    E("--nflx_ctc v9", args + ["--nflx_ctc", "v9"], 2, "unknown --nflx_ctc version 'v9'")
    E("--aom_ctc proposed", args + ["--aom_ctc", "proposed"], 2, "--aom_ctc proposed is deprecated")
    E("--aom_ctc v8.0", args + ["--aom_ctc", "v8.0"], 2, "unknown --aom_ctc version 'v8.0' (expected v1.0 to v7.0)")
    E("--cpumask word", args + ["--cpumask", "avx2"], 2, "invalid --cpumask 'avx2'")
    E("--cpumask negative", args + ["--cpumask", "-1"], 2, "invalid --cpumask '-1'")
    E("--gpumask junk", args + ["--gpumask", "0x1g"], 2, "invalid --gpumask '0x1g'")
    # the mask's bits and the ISAs built in depend on the CPU (cpu:neon: AArch64)
    if ck.run_ok(args, "summary").stdout.split(b"\n")[0].endswith(b", cpu:neon"):
        E("--isa neon --cpumask 1", args + ["--isa", "neon", "--cpumask", "1"], 2,
          "--isa neon needs what --cpumask 0x1 turns off")
        E("--isa avx2 on AArch64", args + ["--isa", "avx2"], 1,
          "isa avx2 is not built into this library")
    else:
        E("--isa avx2 --cpumask 8", args + ["--isa", "avx2", "--cpumask", "8"], 2,
          "--isa avx2 needs what --cpumask 0x8 turns off")
        E("--isa avx512 --cpumask 16", args + ["--isa", "avx512", "--cpumask", "16"], 2,
          "--isa avx512 needs what --cpumask 0x10 turns off")
        E("--isa neon on x86", args + ["--isa", "neon"], 1, "isa neon is not built into this library")
    E("--gpumask with --backend cuda", args + ["--gpumask", "1", "--backend", "cuda"], 2,
      "--gpumask 0x1 turns CUDA off")
    # no getopt abbreviations: vmaf's --sub is not --subsample, --subs is nothing
    E("--subs", args + ["--subs", "2"], 2, "unknown option --subs (options are not abbreviated; --subsample?)")
    E("--subs=2", args + ["--subs=2"], 2, "unknown option --subs")
    E("--sub takes no value", args + ["--sub", "2"], 2, "unexpected argument '2'")
    E("--feat", args + ["--feat", "psnr_hvs"], 2, "unknown option --feat")
    E("--prec=3", args + ["--prec=3"], 2, "unknown option --prec")
    p = ck.run(["parity"] + args + ["--sub"])
    ck.check(p.returncode == 2 and b"--csv and --sub cannot be used with it" in p.stderr,
             "--sub in parity: exit %d %r" % (p.returncode, p.stderr))


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    d = ck.data
    ref_yuv = os.path.join(d, "yuv420p_176x144_ref.yuv")
    dist_yuv = os.path.join(d, "yuv420p_176x144_dist.yuv")
    ref_y4m = os.path.join(d, "yuv420p_176x144_ref.y4m")
    dist_y4m = os.path.join(d, "yuv420p_176x144_dist.y4m")
    geo = ["-w", "176", "-h", "144"]
    fb = frame_bytes(176, 144)  # 38016
    with open(dist_yuv, "rb") as f:
        dist_data = f.read()
    with open(dist_y4m, "rb") as f:
        dist_y4m_data = f.read()
    hdr_len = dist_y4m_data.index(b"\n") + 1

    with tempfile.TemporaryDirectory() as tmp:
        t = lambda name: os.path.join(tmp, name)  # noqa: E731
        E = lambda *a, **kw: expect_error(ck, *a, tmp=tmp, **kw)  # noqa: E731

        # files
        E("missing file", ["-r", t("nope.yuv"), "-d", dist_yuv] + geo, 1, "cannot open")
        E("directory as input", ["-r", tmp, "-d", dist_yuv] + geo, 1, "psnrhvs: ")
        E("empty raw file", ["-r", write(t("empty.yuv"), b""), "-d", write(t("empty2.yuv"), b"")] + geo,
          1, "no frames to score")
        E("output directory missing", ["-r", ref_yuv, "-d", dist_yuv] + geo +
          ["-o", t("no/such/dir/x.json")], 1, "cannot create output file")

        # truncated last frame, raw and y4m, file and stdin
        trunc = write(t("trunc.yuv"), dist_data[:-100])
        E("truncated raw", ["-r", ref_yuv, "-d", trunc] + geo, 1,
          "truncated frame 4 in %s: expected %d bytes, got %d" % (trunc, fb, fb - 100))
        E("truncated raw on stdin", ["-r", ref_yuv, "-d", "-"] + geo, 1,
          "truncated frame 4 in stdin: expected %d bytes, got %d" % (fb, fb - 100),
          stdin_bytes=dist_data[:-100])
        E("raw size not a multiple of the frame", ["-r", write(t("one.yuv"), dist_data[:fb + 1]),
                                                   "-d", dist_yuv] + geo, 1,
          "truncated frame 1 in %s: expected %d bytes, got 1" % (t("one.yuv"), fb))
        trunc_y4m = write(t("trunc.y4m"), dist_y4m_data[:-7])
        E("truncated y4m", ["-r", ref_y4m, "-d", trunc_y4m], 1,
          "truncated frame 4 in %s: expected %d bytes, got %d" % (trunc_y4m, fb, fb - 7))
        cut = hdr_len + 2 * (6 + fb) + 3  # inside the third FRAME line
        E("y4m cut in a FRAME line", ["-r", ref_y4m, "-d", write(t("cutframe.y4m"), dist_y4m_data[:cut])],
          1, "truncated frame 2")
        E("y4m with no frame payload", ["-r", ref_y4m, "-d",
                                        write(t("nopayload.y4m"), dist_y4m_data[:hdr_len + 6])],
          1, "truncated frame 0 in %s: expected %d bytes, got 0" % (t("nopayload.y4m"), fb))

        # malformed Y4M
        body = dist_y4m_data[hdr_len:]
        E("bad magic", ["-r", ref_y4m, "-d", write(t("magic.y4m"), b"YUV4MPEG3" + dist_y4m_data[9:])],
          1, "magic")
        E("missing W", ["-r", ref_y4m, "-d", write(t("now.y4m"), b"YUV4MPEG2 H144 C420jpeg\n" + body)],
          1, "missing W")
        E("missing H", ["-r", ref_y4m, "-d", write(t("noh.y4m"), b"YUV4MPEG2 W176 C420jpeg\n" + body)],
          1, "missing H")
        E("bad W", ["-r", ref_y4m, "-d", write(t("badw.y4m"), b"YUV4MPEG2 W17x6 H144\n" + body)],
          1, "bad W tag")
        E("zero H", ["-r", ref_y4m, "-d", write(t("zeroh.y4m"), b"YUV4MPEG2 W176 H0\n" + body)],
          1, "bad H tag")
        E("bad C tag", ["-r", ref_y4m, "-d", write(t("c411.y4m"), y4m_header(176, 144, "411") + body)],
          1, "unsupported C tag")
        E("C444alpha", ["-r", ref_y4m, "-d", write(t("alpha.y4m"), y4m_header(176, 144, "444alpha") + body)],
          1, "unsupported C tag")
        E("y4m 16-bit", ["-r", ref_y4m, "-d", write(t("p16.y4m"), y4m_header(176, 144, "420p16") + body)],
          1, "at most 12 bits")
        E("y4m 9-bit", ["-r", ref_y4m, "-d", write(t("p9.y4m"), y4m_header(176, 144, "420p9") + body)],
          1, "bit depth 9 is not supported")
        bad_frame = bytearray(dist_y4m_data)
        second = hdr_len + 6 + fb
        bad_frame[second:second + 5] = b"FRAMX"
        E("bad FRAME line", ["-r", ref_y4m, "-d", write(t("badframe.y4m"), bytes(bad_frame))], 1,
          "bad FRAME header at frame 1")
        E("header too long", ["-r", ref_y4m, "-d", write(t("long.y4m"), b"YUV4MPEG2 W176 H144 X" +
                                                          b"a" * 5000 + b"\n" + body)], 1, "header too long")
        E("header without newline", ["-r", ref_y4m, "-d", write(t("nonl.y4m"), b"YUV4MPEG2 W176 H144")],
          1, "does not end with a newline")
        E("y4m too wide", ["-r", ref_y4m, "-d", write(t("wide.y4m"), y4m_header(70000, 16) + body)], 1,
          "exceeds the maximum of 65536")
        E("y4m absurd width", ["-r", ref_y4m, "-d", write(t("huge.y4m"), y4m_header(16, 16).replace(
            b"W16", b"W99999999999999999999") + body)], 1, "exceeds the maximum of 65536")
        E("y4m on stdin, bad C tag", ["-r", ref_y4m, "-d", "-"], 1, "unsupported C tag",
          stdin_bytes=y4m_header(176, 144, "411") + body)

        # geometry too small to have an 8x8 block
        tiny = write(t("tiny.yuv"), bytes(frame_bytes(7, 7)))
        E("7x7 frame", ["-r", tiny, "-d", tiny, "-w", "7", "-h", "7"], 1, "smaller than 8x8")
        E("7x7 frame luma only", ["-r", tiny, "-d", tiny, "-w", "7", "-h", "7", "--feature",
                                  "psnr_hvs=enable_chroma=false"], 1, "smaller than 8x8")
        small = write(t("small.yuv"), bytes(frame_bytes(16, 14)))
        E("16x14 4:2:0: chroma 8x7", ["-r", small, "-d", small, "-w", "16", "-h", "14"], 1,
          "--feature psnr_hvs=enable_chroma=false")
        small_y4m = write(t("small.y4m"), y4m_header(16, 14) + b"FRAME\n" + bytes(frame_bytes(16, 14)))
        E("16x14 y4m: chroma 8x7", ["-r", small_y4m, "-d", small_y4m], 1, "enable_chroma=false")
        # ...which scores with luma only
        p = ck.run(["-r", small, "-d", small, "-w", "16", "-h", "14", "--feature",
                    "psnr_hvs=enable_chroma=false", "--csv", "-o", "-"])
        ck.check(p.returncode == 0 and p.stdout.splitlines()[1:] == [b"0,inf,inf,"],
                 "16x14 luma only: exit %d %r %r" % (p.returncode, p.stdout, p.stderr))

        # mismatched inputs: say which property differs
        y4m_444 = os.path.join(d, "yuv444p_176x144_ref.y4m")
        y4m_10 = os.path.join(d, "yuv420p10_176x144_ref.y4m")
        E("size mismatch", ["-r", ref_y4m, "-d", small_y4m], 1, "differ in size: 176x144")
        E("format mismatch", ["-r", ref_y4m, "-d", y4m_444], 1, "differ in pixel format: 420")
        E("depth mismatch", ["-r", ref_y4m, "-d", y4m_10], 1, "differ in bit depth: 8")
        E("-w vs y4m header", ["-r", ref_y4m, "-d", dist_yuv, "-w", "160", "-h", "144"], 1,
          "--width 160 does not match the Y4M header")
        E("-p vs y4m header", ["-r", ref_y4m, "-d", dist_yuv, "-p", "444"], 1,
          "--pixel_format 444 does not match")
        E("-b vs y4m header", ["-r", ref_y4m, "-d", dist_yuv, "-b", "10"], 1,
          "--bitdepth 10 does not match")
        E(".y4m name without magic", ["-r", ref_y4m, "-d", write(t("raw.y4m"), dist_data)], 1,
          "magic")

        # usage errors: exit 2
        E("raw without size", ["-r", ref_yuv, "-d", dist_yuv], 2, "needs --width and --height")
        E("unknown pixel format", ["-r", ref_yuv, "-d", dist_yuv, "-p", "411"] + geo, 2,
          "unknown pixel format '411'")
        E("bitdepth 16", ["-r", ref_yuv, "-d", dist_yuv, "-b", "16"] + geo, 2, "at most 12 bits")
        E("bitdepth 13", ["-r", ref_yuv, "-d", dist_yuv, "-b", "13"] + geo, 2, "13-16 bits")
        E("bitdepth 9", ["-r", ref_yuv, "-d", dist_yuv, "-b", "9"] + geo, 2, "expected 8, 10 or 12")
        E("width too large", ["-r", ref_yuv, "-d", dist_yuv, "-w", "65537", "-h", "16"], 2,
          "invalid --width '65537'")
        E("width not a number", ["-r", ref_yuv, "-d", dist_yuv, "-w", "17x6", "-h", "16"], 2,
          "invalid --width")
        E("height zero", ["-r", ref_yuv, "-d", dist_yuv, "-w", "16", "-h", "0"], 2, "invalid --height")
        E("unknown feature", ["-r", ref_yuv, "-d", dist_yuv, "--feature", "vmaf"] + geo, 2,
          "unknown feature 'vmaf'")
        E("unknown feature option", ["-r", ref_yuv, "-d", dist_yuv, "--feature", "psnr_hvs=foo=1"] + geo,
          2, "unknown psnr_hvs option 'foo'")
        E("bad enable_chroma", ["-r", ref_yuv, "-d", dist_yuv, "--feature",
                                "psnr_hvs=enable_chroma=maybe"] + geo, 2, "unknown enable_chroma value")
        E("bad mask_product", ["-r", ref_yuv, "-d", dist_yuv, "--feature",
                               "psnr_hvs=mask_product=double"] + geo, 2, "unknown mask_product value")
        E("option without value", ["-r", ref_yuv, "-d", dist_yuv] + geo + ["--feature"], 2,
          "needs a value")
        E("unknown long option", ["-r", ref_yuv, "-d", dist_yuv, "--foo"] + geo, 2,
          "unknown option --foo")
        E("unknown short option", ["-r", ref_yuv, "-d", dist_yuv, "-x"] + geo, 2, "unknown option -x")
        E("stray argument", ["-r", ref_yuv, "-d", dist_yuv, "extra"] + geo, 2, "unexpected argument")
        E("subsample negative", ["-r", ref_yuv, "-d", dist_yuv, "--subsample", "-2"] + geo, 2,
          "invalid --subsample")
        E("frame_cnt -1", ["-r", ref_yuv, "-d", dist_yuv, "--frame_cnt", "-1"] + geo, 2,
          "invalid --frame_cnt")
        E("precision word", ["-r", ref_yuv, "-d", dist_yuv, "--precision", "high"] + geo, 2,
          "invalid --precision")
        E("unknown backend", ["-r", ref_yuv, "-d", dist_yuv, "--backend", "metal"] + geo, 2,
          "unknown backend 'metal'")
        E("unknown isa", ["-r", ref_yuv, "-d", dist_yuv, "--isa", "mmx"] + geo, 2, "unknown isa 'mmx'")
        E("both stdin", ["-r", "-", "-d", "-"] + geo, 2, "stdin")
        E("missing reference", ["-d", dist_yuv] + geo, 2, "missing --reference")
        E("missing distorted", ["-r", ref_yuv] + geo, 2, "missing --distorted")

        issue12_errors(ck, E, t, d, ref_yuv, dist_yuv, ref_y4m, dist_y4m_data, hdr_len, geo)

    interrupted_run(ck, ref_yuv, dist_data, geo)
    failure_with_stdin_open(ck, ref_yuv, dist_data, geo)
    ck.finish()


if __name__ == "__main__":
    main()
