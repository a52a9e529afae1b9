#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""-o onto what a path can be, all inside a temporary folder (links to the descriptor names,
sockets and more FIFOs are in run_outfile_dev.py): a symbolic link (its target is
written, the link stays), a chain of relative links, a dangling link, a link loop, a FIFO,
a hard link (kept), a 0600 file (kept 0600, and its owner as root), a new file (0666 &
~umask), 250- and 255-character names, the descriptor behind - and /proc/self/fd/N, and as
a user who may not write: a read-only file, a read-only folder, a
writable file in a read-only folder. Path errors come before any frame is read."""
import os
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

OLD = b"previous contents, longer than the scores: " + b"x" * 4000 + b"\n"


class Case:
    def __init__(self, ck):
        self.ck = ck
        d = os.path.join(ck.data, "cli")
        self.args = ["-r", os.path.join(d, "tiny_frac_yuv420p_16x16_ref.yuv"),
                     "-d", os.path.join(d, "tiny_frac_yuv420p_16x16_dist.yuv"),
                     "-w", "16", "-h", "16", "--csv"]
        p = ck.run_ok(self.args + ["-o", "-"], "scores on stdout")
        self.expected = p.stdout
        ck.check(self.expected.count(b"\n") == 4, "the scores: %r" % self.expected)

    def run(self, out, preexec=None, **kw):
        p = subprocess.run([self.ck.psnrhvs] + self.args + ["-o", out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, preexec_fn=preexec, timeout=120, **kw)
        p.err = p.stderr.decode(errors="replace")
        return p

    def ok(self, out, what, **kw):
        p = self.run(out, **kw)
        self.ck.check(p.returncode == 0, "%s: exit %d, %s" % (what, p.returncode, p.err))
        return p

    def error(self, out, what, phrase, **kw):
        p = self.run(out, **kw)
        lines = p.err.splitlines()
        self.ck.check(p.returncode == 1 and len(lines) == 1 and phrase in p.err,
                      "%s: exit %d, stderr %r, expected one line with %r" % (what, p.returncode, p.err, phrase))
        return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data, mode=None):
    with open(path, "wb") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)
    return path


def listing(path):
    return sorted(os.listdir(path))


def links_and_files(ck, c, tmp):
    # a symbolic link onto a 0640 file: the target gets the scores and keeps its mode
    d = os.path.join(tmp, "link")
    os.mkdir(d)
    target = write(os.path.join(d, "target.csv"), OLD, 0o640)
    os.symlink("target.csv", os.path.join(d, "link.csv"))
    c.ok(os.path.join(d, "link.csv"), "symlink")
    ck.check(os.path.islink(os.path.join(d, "link.csv")) and
             os.readlink(os.path.join(d, "link.csv")) == "target.csv", "symlink: the link was replaced")
    ck.check(read(target) == c.expected, "symlink: target not written")
    ck.check(stat.S_IMODE(os.stat(target).st_mode) == 0o640,
             "symlink: target mode %o" % stat.S_IMODE(os.stat(target).st_mode))
    ck.check(listing(d) == ["link.csv", "target.csv"], "symlink: files %s" % listing(d))

    # a chain of relative links across folders, ending at a name that does not exist yet
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    os.mkdir(a)
    os.mkdir(b)
    os.symlink("../b/second", os.path.join(a, "first"))
    os.symlink("new.csv", os.path.join(b, "second"))
    mask = os.umask(0o027)
    os.umask(mask)
    c.ok(os.path.join(a, "first"), "link chain", preexec=lambda: os.umask(0o027))
    ck.check(os.path.islink(os.path.join(a, "first")) and os.path.islink(os.path.join(b, "second")),
             "link chain: a link was replaced")
    new = os.path.join(b, "new.csv")
    ck.check(os.path.isfile(new) and not os.path.islink(new) and read(new) == c.expected,
             "link chain: the final target was not created with the scores")
    ck.check(stat.S_IMODE(os.stat(new).st_mode) == 0o640,
             "new file under umask 027: mode %o, expected 640" % stat.S_IMODE(os.stat(new).st_mode))
    ck.check(listing(a) == ["first"] and listing(b) == ["new.csv", "second"],
             "link chain: files %s %s" % (listing(a), listing(b)))

    # a loop of links: an error at once
    os.symlink("loop2", os.path.join(tmp, "loop1"))
    os.symlink("loop1", os.path.join(tmp, "loop2"))
    c.error(os.path.join(tmp, "loop1"), "link loop", "Too many levels of symbolic links")

    # a hard link stays one, both names see the scores, nothing longer is left behind
    h = os.path.join(tmp, "hard")
    os.mkdir(h)
    h1 = write(os.path.join(h, "h1.csv"), OLD, 0o604)
    os.link(h1, os.path.join(h, "h2.csv"))
    ino = os.stat(h1).st_ino
    c.ok(h1, "hard link")
    s1, s2 = os.stat(h1), os.stat(os.path.join(h, "h2.csv"))
    ck.check(s1.st_ino == ino == s2.st_ino and s1.st_nlink == 2, "hard link: broken")
    ck.check(read(os.path.join(h, "h2.csv")) == c.expected, "hard link: the other name does not see the scores")
    ck.check(stat.S_IMODE(s1.st_mode) == 0o604, "hard link: mode %o" % stat.S_IMODE(s1.st_mode))
    ck.check(listing(h) == ["h1.csv", "h2.csv"], "hard link: files %s" % listing(h))
    # a failed run does not touch it (truncation only with the scores in hand)
    write(h1, OLD)
    trunc = write(os.path.join(tmp, "trunc.yuv"), read(c.args[3])[:-10])
    p = subprocess.run([ck.psnrhvs] + c.args[:2] + ["-d", trunc] + c.args[4:] + ["-o", h1],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    ck.check(p.returncode == 1 and b"truncated frame 2" in p.stderr, "hard link, failed run: %r" % p.stderr)
    ck.check(read(os.path.join(h, "h2.csv")) == OLD, "hard link: a failed run changed the file")

    # a 0600 file stays 0600 (and, as root, keeps its owner)
    priv = write(os.path.join(tmp, "private.csv"), OLD, 0o600)
    if os.geteuid() == 0:
        os.chown(priv, 65534, 65534)
    c.ok(priv, "0600 file")
    st = os.stat(priv)
    ck.check(stat.S_IMODE(st.st_mode) == 0o600 and read(priv) == c.expected,
             "0600 file: mode %o" % stat.S_IMODE(st.st_mode))
    if os.geteuid() == 0:
        ck.check((st.st_uid, st.st_gid) == (65534, 65534), "0600 file: owner %d:%d, expected 65534:65534"
                 % (st.st_uid, st.st_gid))

    # long names: the temporary name is short, whatever the target's
    for n in (250, 255):
        long_name = os.path.join(tmp, "L%d" % n)
        os.mkdir(long_name)
        c.ok(os.path.join(long_name, "s" * n), "%d-character name" % n)
        ck.check(listing(long_name) == ["s" * n] and read(os.path.join(long_name, "s" * n)) == c.expected,
                 "%d-character name: files %s" % (n, [x[:8] for x in listing(long_name)]))


def fifo(ck, c, tmp):
    """The FIFO is opened once the scores are ready, and stays a FIFO."""
    path = os.path.join(tmp, "scores.fifo")
    os.mkfifo(path)
    proc = subprocess.Popen([ck.psnrhvs] + c.args + ["-o", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    got = []
    reader = threading.Thread(target=lambda: got.append(read(path)))
    time.sleep(0.5)  # a reader that comes late
    reader.start()
    reader.join(60)
    try:
        rc = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = None
    err = proc.stderr.read().decode(errors="replace")
    proc.stdout.close()
    proc.stderr.close()
    ck.check(rc == 0, "FIFO: exit %r, %s" % (rc, err))
    ck.check(got == [c.expected], "FIFO: the reader got %r" % got[:1])
    ck.check(stat.S_ISFIFO(os.lstat(path).st_mode) and listing(tmp).count("scores.fifo") == 1,
             "FIFO: replaced, or files left %s" % listing(tmp))


def descriptors(ck, c, tmp):
    """-o - and /proc/self/fd/N: the descriptor at its offset (a file the shell opened keeps
    what it holds), never opened again. (/dev/stdout, /dev/stderr and /dev/fd/N are tested
    in run_outfile_dev.py, through links in a temporary folder.)"""
    for name, fd in (("-", 1), ("/proc/self/fd/1", 1), ("/proc/self/fd/2", 2)):
        path = os.path.join(tmp, "fd.out")
        write(path, b"header\n")
        with open(path, "ab") as f, open(os.devnull, "wb") as null:
            p = subprocess.run([ck.psnrhvs] + c.args + ["-o", name, "-q"],
                               stdout=f if fd == 1 else null, stderr=f if fd == 2 else subprocess.PIPE,
                               timeout=120)
        ck.check(p.returncode == 0, "-o %s: exit %d" % (name, p.returncode))
        ck.check(read(path) == b"header\n" + c.expected, "-o %s: file %r" % (name, read(path)[:80]))
        ck.check(listing(tmp) == ["fd.out"], "-o %s: files %s" % (name, listing(tmp)))
    # a descriptor that is not open, or open only for reading: an error before scoring
    c.error("/proc/self/fd/9", "-o /proc/self/fd/9 (closed)",
            "cannot write to /proc/self/fd/9: Bad file descriptor")
    with open(c.args[1], "rb") as f:
        c.error("/proc/self/fd/0", "-o /proc/self/fd/0 (read only)", "cannot write to /proc/self/fd/0",
                stdin=f)


def nobody_preexec():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


def unprivileged(ck, c, tmp):
    """What a user who may not write gets. As root, run as nobody (65534)."""
    preexec = None
    if os.geteuid() == 0:
        preexec = nobody_preexec
        os.chmod(tmp, 0o755)
    try:
        probe = c.run("-", preexec=preexec)
    except OSError as e:  # not executable for that user (a 0700 folder on the way)
        print("skip: unprivileged -o cases: cannot run psnrhvs as uid 65534 here: %s" % e)
        return
    if probe.returncode:
        print("skip: unprivileged -o cases: cannot run psnrhvs as uid %d here: %s"
              % (65534 if preexec else os.geteuid(), probe.err.strip()))
        return
    me = 65534 if preexec else os.geteuid()
    # a folder we may not write (root's 0755, or our own 0555)
    ro = os.path.join(tmp, "readonly")
    os.mkdir(ro, 0o755)
    if not preexec:
        os.chmod(ro, 0o555)
    c.error(os.path.join(ro, "new.csv"), "unwritable folder",
            "cannot create output file %s: Permission denied" % os.path.join(ro, "new.csv"),
            preexec=preexec)
    # a file we may not write is not replaced behind its mode's back
    os.chmod(ro, 0o755)
    locked = write(os.path.join(ro, "locked.csv"), OLD, 0o444)
    if not preexec:
        os.chmod(ro, 0o555)
    c.error(locked, "read-only file", "cannot write output file %s: Permission denied" % locked,
            preexec=preexec)
    ck.check(read(locked) == OLD, "read-only file: changed")
    # a file we may write in a folder we may not: written in place
    os.chmod(ro, 0o755)
    mine = write(os.path.join(ro, "mine.csv"), OLD, 0o644)
    os.chown(mine, me, -1)
    ino = os.stat(mine).st_ino
    if not preexec:
        os.chmod(ro, 0o555)
    c.ok(mine, "writable file in an unwritable folder", preexec=preexec)
    ck.check(read(mine) == c.expected and os.stat(mine).st_ino == ino,
             "writable file in an unwritable folder: not written in place")
    ck.check(listing(ro) == ["locked.csv", "mine.csv"], "unwritable folder: files %s" % listing(ro))
    os.chmod(ro, 0o755)


def checked_before_scoring(ck, c, tmp):
    """A bad -o fails at once, while the distorted input still waits on a pipe."""
    os.symlink("self", os.path.join(tmp, "self"))
    cases = [(tmp, "is a directory"), (os.path.join(tmp, "no", "dir", "x.csv"), "No such file or directory"),
             (os.path.join(tmp, "self"), "Too many levels"), ("/proc/self/fd/9", "Bad file descriptor")]
    for out, phrase in cases:
        proc = subprocess.Popen([ck.psnrhvs, "-r", c.args[1], "-d", "-", "-w", "16", "-h", "16", "-o", out],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write(read(c.args[3])[:384])  # one frame; stdin stays open
        proc.stdin.flush()
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = None
        proc.stdin.close()
        err = proc.stderr.read().decode(errors="replace")
        proc.stdout.close()
        proc.stderr.close()
        ck.check(rc == 1 and phrase in err, "-o %s with input pending: exit %r, %r" % (out, rc, err))


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    c = Case(ck)
    for test in (links_and_files, fifo, descriptors, unprivileged, checked_before_scoring):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                test(ck, c, tmp)
            except (OSError, subprocess.SubprocessError) as e:  # a missing file is a failure too
                ck.check(False, "%s: %r" % (test.__name__, e))
    ck.finish()


if __name__ == "__main__":
    main()
