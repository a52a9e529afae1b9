#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Messages and leftovers a new user meets.

- A warning while the progress line is drawn (stderr a terminal: a pty here) starts a
  line of its own: the reference comes through a pipe slowly enough for one progress
  line to be drawn (it is drawn after 0.25 s of scoring; the pipe holds frames back
  for 0.6 s), then the distorted ends first, which is a warning.
- A raw file whose size is not a whole number of frames: the truncated-frame message
  says that -w/-h/-p/-b may be wrong (a Y4M's does not: its header gives them).
- A ladder that fails after making its -o DIR/ folder (and --plot DIR/) leaves no
  folder it made; a folder that was there stays, and a ladder that succeeds keeps its.

Usage: run_messages.py PSNRHVS DATA_DIR"""
import os
import pty
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def y4m_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    head, rest = data.split(b"\n", 1)
    frames = [b"FRAME" + x for x in rest.split(b"FRAME")[1:]]
    return head + b"\n", frames


def progress_then_warning(ck, tmp):
    ref_head, ref_frames = y4m_frames(os.path.join(ck.data, "yuv420p_176x144_ref.y4m"))
    dist_head, dist_frames = y4m_frames(os.path.join(ck.data, "yuv420p_176x144_dist.y4m"))
    short = os.path.join(tmp, "short.y4m")
    with open(short, "wb") as f:
        f.write(dist_head + b"".join(dist_frames[:3]))
    master, slave = pty.openpty()
    p = subprocess.Popen([ck.psnrhvs, "-r", "-", "-d", short], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    p.stdin.write(ref_head + b"".join(ref_frames[:2]))
    p.stdin.flush()
    time.sleep(0.6)  # the next frame comes 0.6 s after the start: a progress line is due
    try:
        p.stdin.write(b"".join(ref_frames[2:]))
        p.stdin.close()
    except BrokenPipeError:
        pass
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the pty's other end closed
            break
        if not chunk:
            break
        out += chunk
    p.stdout.read()
    rc = p.wait()
    os.close(master)
    err = out.decode(errors="replace").replace("\r\n", "\n")
    ck.check(rc == 0, "slow reference: exit %d: %r" % (rc, err))
    ck.check("psnrhvs: frame " in err, "no progress line was drawn: %r" % err)
    at = err.find("psnrhvs: warning: ")
    ck.check(at > 0 and "ended before" in err[at:], "no warning that %s ended first: %r" %
             (short, err))
    if at > 0:
        ck.check(err[at - 1] == "\n", "the warning is on the progress line: %r" %
                 err[max(0, at - 80):at + 60])


def truncated_raw(ck, tmp):
    ref = os.path.join(ck.data, "yuv420p_176x144_ref.yuv")
    with open(os.path.join(ck.data, "yuv420p_176x144_dist.yuv"), "rb") as f:
        data = f.read()
    odd = os.path.join(tmp, "odd.yuv")
    with open(odd, "wb") as f:
        f.write(data[:-100])
    p = ck.run(["-r", ref, "-d", odd, "-w", 176, "-h", 144])
    err = p.stderr.decode()
    ck.check(p.returncode == 1 and len(err.splitlines()) == 1 and
             "truncated frame 4 in %s" % odd in err and
             "not a whole number of 176x144 420 8-bit frames: -w/-h/-p/-b may be wrong" in err,
             "raw size not a whole number of frames: %d %r" % (p.returncode, err))
    # the mistake the message is for: a 4:2:0 file read as 4:4:4 runs out mid-frame
    p = ck.run(["-r", ref, "-d", os.path.join(ck.data, "yuv420p_176x144_dist.yuv"), "-w", 176,
                "-h", 144, "-p", "444"])
    err = p.stderr.decode()
    ck.check(p.returncode == 1 and "176x144 444 8-bit frames: -w/-h/-p/-b may be wrong" in err,
             "-p 444 on a 4:2:0 file: %d %r" % (p.returncode, err))
    with open(os.path.join(ck.data, "yuv420p_176x144_dist.y4m"), "rb") as f:
        y4m = f.read()
    cut = os.path.join(tmp, "cut.y4m")
    with open(cut, "wb") as f:
        f.write(y4m[:-7])
    p = ck.run(["-r", os.path.join(ck.data, "yuv420p_176x144_ref.y4m"), "-d", cut])
    err = p.stderr.decode()
    ck.check(p.returncode == 1 and "truncated frame 4" in err and "may be wrong" not in err,
             "a cut Y4M: %d %r" % (p.returncode, err))


def ladder_folders(ck, tmp):
    ref = os.path.join(ck.data, "yuv420p_176x144_ref.y4m")
    good = os.path.join(ck.data, "yuv420p_176x144_dist.y4m")
    with open(good, "rb") as f:
        y4m = f.read()
    bad = os.path.join(tmp, "bad.y4m")
    with open(bad, "wb") as f:
        f.write(y4m[:-7])  # its last frame cut: the run fails after the outputs are open
    made = os.path.join(tmp, "new")
    p = ck.run(["-r", ref, "-d", good, "-d", bad, "-o", os.path.join(made, "scores") + "/",
                "--plot", os.path.join(tmp, "plots", "deep") + "/"])
    ck.check(p.returncode == 1 and b"truncated frame 4" in p.stderr,
             "failing ladder: %d %r" % (p.returncode, p.stderr))
    ck.check(not os.path.exists(made) and not os.path.exists(os.path.join(tmp, "plots")),
             "a failed ladder left the folders it made: %r" % sorted(os.listdir(tmp)))
    there = os.path.join(tmp, "there")
    os.mkdir(there)
    p = ck.run(["-r", ref, "-d", good, "-d", bad, "-o", os.path.join(there, "sub") + "/"])
    ck.check(p.returncode == 1 and os.path.isdir(there) and os.listdir(there) == [],
             "a failed ladder into an existing folder: %d %r" % (p.returncode,
                                                                 os.listdir(there)))
    p = ck.run(["-r", ref, "-d", good, "-d", ref, "-o", os.path.join(made, "ok") + "/"])
    ck.check(p.returncode == 0 and sorted(os.listdir(os.path.join(made, "ok"))) ==
             ["yuv420p_176x144_dist.xml", "yuv420p_176x144_ref.xml"],
             "a ladder that succeeds: %d %r" % (p.returncode, p.stderr))


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        progress_then_warning(ck, tmp)
        truncated_raw(ck, tmp)
        ladder_folders(ck, tmp)
    ck.finish()


if __name__ == "__main__":
    main()
