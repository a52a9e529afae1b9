#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Raw and Y4M files are memory-mapped (frames handed out in place); pipes are read.
Both paths must give the same bytes: every kind of fixture through a file, a pipe and
PSNRHVS_TEST_NO_MMAP=1 (the read() path on a file); Y4M FRAME lines with parameters, CR LF
and lengths that leave 16-bit payloads unaligned; truncated and malformed files with the
messages of the pipe path; a file cut short while it is being scored (an error, never
a SIGBUS)."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def strip_fps(data):
    data = re.sub(rb'<fyi fps="[^"]*" />', b'<fyi fps="" />', data)
    return re.sub(rb'"fps": [^,\n]*,', b'"fps": ,', data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def split_y4m(data):
    """-> (header line with its newline, [payloads]) of a Y4M with plain FRAME lines."""
    nl = data.index(b"\n") + 1
    header, rest = data[:nl], data[nl:]
    chunks = rest.split(b"FRAME\n")
    assert chunks[0] == b""
    size = len(chunks[1])
    # payloads may contain "FRAME\n" by chance: cut by the fixed size instead
    payloads = []
    pos = 0
    while pos < len(rest):
        assert rest[pos:pos + 6] == b"FRAME\n"
        payloads.append(rest[pos + 6:pos + 6 + size])
        pos += 6 + size
    return header, payloads


def score(ck, args, out, env=None, input_bytes=None):
    if os.path.exists(out):
        os.unlink(out)
    cmd = [ck.psnrhvs] + [str(a) for a in args] + ["--json", "--precision", "max", "--raw", "-o", out]
    p = subprocess.run(cmd, input=input_bytes, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, timeout=300)
    return p, (read(out) if os.path.exists(out) else None)


def three_ways(ck, what, args, side, path, tmp):
    """args with path at position side: through the mapping, PSNRHVS_TEST_NO_MMAP, a pipe."""
    out = os.path.join(tmp, "o.json")
    p1, a = score(ck, args, out)
    ck.check(p1.returncode == 0 and a is not None, "%s: mapped: %r" % (what, p1.stderr))
    env = dict(os.environ, PSNRHVS_TEST_NO_MMAP="1")
    p2, b = score(ck, args, out, env=env)
    piped = list(args)
    piped[piped.index(path)] = "-"
    p3, c = score(ck, piped, out, input_bytes=read(path))
    ck.check(a is not None and b is not None and strip_fps(a) == strip_fps(b),
             "%s: mapped and read() differ" % what)
    ck.check(a is not None and c is not None and strip_fps(a) == strip_fps(c),
             "%s: file and pipe differ (%s)" % (what, p3.stderr))
    return a


def errors_alike(ck, what, args, path, phrase, tmp):
    """The same one-line error (file name aside) through the mapping and a pipe."""
    out = os.path.join(tmp, "e.json")
    p1, a = score(ck, args, out)
    piped = list(args)
    piped[piped.index(path)] = "-"
    p2, b = score(ck, piped, out, input_bytes=read(path))
    e1 = p1.stderr.decode(errors="replace")
    e2 = p2.stderr.decode(errors="replace")
    ck.check(p1.returncode == 1 and a is None and phrase in e1,
             "%s: mapped: exit %d, %r" % (what, p1.returncode, e1))
    ck.check(e1.replace(path, "stdin") == e2 and p2.returncode == 1,
             "%s: mapped %r, pipe %r" % (what, e1, e2))


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    d = ck.data
    j = lambda n: os.path.join(d, n)  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            ("y4m 8-bit", ["-r", j("yuv420p_176x144_ref.y4m"), "-d", j("yuv420p_176x144_dist.y4m")], 3),
            ("y4m 10-bit ref", ["-r", j("yuv420p10_176x144_ref.y4m"), "-d", j("yuv420p10_176x144_dist.y4m")], 1),
            ("y4m 422p10", ["-r", j("yuv422p10_176x144_ref.y4m"), "-d", j("yuv422p10_176x144_dist.y4m")], 3),
            ("yuv 444p10", ["-r", j("yuv444p10_176x144_ref.yuv"), "-d", j("yuv444p10_176x144_dist.yuv"),
                            "-w", "176", "-h", "144", "-p", "444", "-b", "10"], 3),
            ("yuv gray10", ["-r", j("gray10_176x144_ref.yuv"), "-d", j("gray10_176x144_dist.yuv"),
                            "-w", "176", "-h", "144", "-p", "400", "-b", "10"], 1),
            ("yuv odd 97x61", ["-r", j("yuv420p_97x61_ref.yuv"), "-d", j("yuv420p_97x61_dist.yuv"),
                               "-w", "97", "-h", "61"], 3),
            ("yuv 720p", ["-r", j("yuv420p_1280x720_ref.yuv"), "-d", j("yuv420p_1280x720_dist.yuv"),
                          "-w", "1280", "-h", "720"], 3),
            ("common_bitdepth", ["-r", j("yuv420p_176x144_ref.y4m"), "-d", j("yuv420p10_176x144_dist.y4m"),
                                 "--common_bitdepth"], 3),
            ("skips", ["-r", j("yuv420p_176x144_ref.y4m"), "-d", j("yuv420p_176x144_dist.yuv"),
                       "--frame_skip_dist", "1", "--frame_skip_ref", "2"], 3),
        ]
        for what, args, side in cases:
            three_ways(ck, what, args, side, args[side], tmp)

        # ---- FRAME lines with parameters, CR LF, odd lengths (16-bit payloads unaligned) ----
        for src in ("yuv420p10_176x144_dist.y4m", "yuv420p_176x144_dist.y4m"):
            ref = j(src.replace("_dist", "_ref"))
            header, payloads = split_y4m(read(j(src)))
            lines = [b"FRAME Ixyz\n", b"FRAME\r\n", b"FRAME Xa=b c\n", b"FRAME X\n", b"FRAME  \n"]
            var = os.path.join(tmp, "params_" + src)
            with open(var, "wb") as f:
                f.write(header + b"".join(lines[i % len(lines)] + p for i, p in enumerate(payloads)))
            plain = three_ways(ck, "plain " + src, ["-r", ref, "-d", j(src)], 3, j(src), tmp)
            got = three_ways(ck, "FRAME params " + src, ["-r", ref, "-d", var], 3, var, tmp)
            ck.check(plain is not None and got is not None and strip_fps(plain) == strip_fps(got),
                     "FRAME params %s: scores differ from the plain file" % src)

        # ---- truncated and malformed files: the pipe path's messages ----
        ref = j("yuv420p_176x144_ref.y4m")
        raw = read(j("yuv420p_176x144_dist.yuv"))
        fb = 176 * 144 * 3 // 2
        t = os.path.join(tmp, "trunc.yuv")
        with open(t, "wb") as f:
            f.write(raw[:3 * fb + 1000])
        errors_alike(ck, "raw partial frame", ["-r", ref, "-d", t], t,
                     "truncated frame 3 in %s: expected %d bytes, got 1000" % (t, fb), tmp)
        header, payloads = split_y4m(read(j("yuv420p_176x144_dist.y4m")))
        body = header + b"".join(b"FRAME\n" + p for p in payloads[:2])
        for what, tail, phrase in (
                ("header cut", b"FRA", "truncated frame 2 in %s: incomplete FRAME header"),
                ("payload cut", b"FRAME\n" + payloads[2][:500], "truncated frame 2 in %s: expected %d bytes, got 500" % ("%s", fb)),
                ("no payload", b"FRAME\n", "truncated frame 2 in %s: expected %d bytes, got 0" % ("%s", fb)),
                ("bad FRAME", b"FRAMX\n" + payloads[2], "bad FRAME header at frame 2"),
                ("FRAMES", b"FRAMES\n" + payloads[2], "bad FRAME header at frame 2"),
                ("long line", b"FRAME " + b"x" * 5000 + b"\n" + payloads[2], "bad FRAME header at frame 2"),
                ("long cut", b"FRAME " + b"x" * 3000, "incomplete FRAME header")):
            t = os.path.join(tmp, "trunc.y4m")
            with open(t, "wb") as f:
                f.write(body + tail)
            errors_alike(ck, "y4m " + what, ["-r", ref, "-d", t], t,
                         phrase % t if "%s" in phrase else phrase, tmp)

        # ---- 16-bit samples above the maximum: in place, the library's refusal is named by
        # the CLI as the pipe path's scan of each frame names it (file, frame, plane, x, y) ----
        geo = ["-w", "176", "-h", "144", "-p", "444", "-b", "10"]
        good = read(j("yuv444p10_176x144_dist.yuv"))
        frame = 176 * 144 * 3 * 2
        bad = bytearray(good)
        at = frame + 176 * 144 * 2 + (9 * 176 + 30) * 2  # frame 1, Cb, x=30 y=9
        bad[at:at + 2] = (1500).to_bytes(2, "little")
        badp = os.path.join(tmp, "bad444p10.yuv")
        with open(badp, "wb") as f:
            f.write(bad)
        refp = j("yuv444p10_176x144_ref.yuv")
        phrase = ("sample out of range in the distorted %s, frame 1: Cb plane x=30 y=9 is 1500, "
                  "above the 10-bit maximum 1023" % badp)
        devices = subprocess.run([ck.psnrhvs, "--list-devices"], capture_output=True).stdout
        backends = [["--backend", "cpu"], ["--backend", "cpu", "--threads", "3"]]
        if re.search(rb"^opencl:\n  0:", devices, re.M):
            backends.append(["--backend", "opencl"])
        for be in backends:
            errors_alike(ck, "out of range %s" % " ".join(be), ["-r", refp, "-d", badp] + geo + be,
                         badp, phrase, tmp)
        p, _ = score(ck, ["-r", refp, "-d", j("yuv444p10_176x144_dist.yuv"), "-d", badp] + geo,
                     os.path.join(tmp, "lad%d.json"))
        e = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 1 and e.strip() == "psnrhvs: " + phrase,
                 "out of range in a ladder's rendition: exit %d, %r" % (p.returncode, e))

        # ---- cut short while being scored: the reference comes through a pipe we feed
        # frame by frame, so the distorted file is mapped and read ahead when we cut it ----
        big = os.path.join(tmp, "big.yuv")
        with open(big, "wb") as f:
            f.write(raw * 4)  # 20 frames
        out = os.path.join(tmp, "cut.json")
        rraw = read(j("yuv420p_176x144_ref.yuv"))
        proc = subprocess.Popen([ck.psnrhvs, "-r", "-", "-d", big, "-w", "176", "-h", "144", "-q",
                                 "--json", "-o", out], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        feed = rraw * 4
        proc.stdin.write(feed[:3 * fb])
        proc.stdin.flush()
        time.sleep(0.5)
        os.truncate(big, 2 * fb)
        try:
            proc.stdin.write(feed[3 * fb:])
            proc.stdin.close()
        except BrokenPipeError:
            pass
        err = proc.stderr.read().decode(errors="replace")
        rc = proc.wait(timeout=60)
        ck.check(rc == 1, "cut while running: exit %d (a negative one is a signal), %r" % (rc, err))
        ck.check(("truncated" in err or "cut short" in err) and len(err.splitlines()) == 1,
                 "cut while running: stderr %r" % err)
        ck.check(not os.path.exists(out), "cut while running: output written")

        drop_behind(ck, tmp)
    ck.finish()


def sanitized(path):
    """A sanitizer build: its shadow memory makes the process's size meaningless."""
    data = read(path)
    return b"__asan_init" in data or b"__tsan_init" in data


def drop_behind(ck, tmp):
    """The pages of frames scored leave the process as it runs: the files' pages
    mapped at the peak (ru_maxrss) stay under half of the two files, where
    mapping them whole would hold both; the scores are those of the read path."""
    w, h, frames = 640, 360, 800  # 276 MB a file
    fb = w * h * 3 // 2
    paths = []
    for name in ("ref", "dist"):
        path = os.path.join(tmp, "drop_%s.yuv" % name)
        with open(path, "wb") as f:
            frame = os.urandom(fb)
            for _ in range(frames):
                f.write(frame)
        paths.append(path)
    args = [ck.psnrhvs, "-r", paths[0], "-d", paths[1], "-w", w, "-h", h, "-q",
            "--backend", "cpu", "--json", "--precision", "max", "--raw"]
    args = [str(a) for a in args]
    outs = []
    for env_extra in ({}, {"PSNRHVS_TEST_NO_MMAP": "1"}):
        out = os.path.join(tmp, "drop%d.json" % len(outs))
        proc = subprocess.Popen(args + ["-o", out], env=dict(os.environ, **env_extra),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        err = proc.stderr.read().decode(errors="replace")
        proc.stdout.close()
        proc.stderr.close()
        ck.check(os.waitstatus_to_exitcode(status) == 0, "drop behind %r: %r" % (env_extra, err))
        outs.append(read(out) if os.path.exists(out) else None)
        if not env_extra and not sanitized(ck.psnrhvs):
            peak = usage.ru_maxrss * 1024
            ck.check(peak < frames * fb, "drop behind: %d MB mapped at the peak, files of %d MB"
                     % (peak >> 20, frames * fb >> 20))
    ck.check(outs[0] is not None and outs[1] is not None and
             strip_fps(outs[0]) == strip_fps(outs[1]), "drop behind: mapped and read() differ")
    for path in paths:
        os.unlink(path)


if __name__ == "__main__":
    main()
