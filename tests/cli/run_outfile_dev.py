#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""-o onto what is not a regular file, all inside a temporary folder: nothing here names a
device, and no path in /dev is ever written.
- the descriptor names (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) reached
  through symbolic links in the temporary folder: psnrhvs recognises the name in the link
  and writes its own descriptor (a pipe, a file opened to append after a header, a pipe
  inherited as descriptor N, as nobody too), never opening the path; the link stays;
- a descriptor not open, or open only for reading: an error before anything is scored;
- a FIFO and a link to one (the reader is in place before psnrhvs starts): written where it
  is, never replaced by a rename; a batch job writing a FIFO is done (nothing to read back);
- a Unix socket (the branch a character device takes, whose open() fails): one line, the
  socket stays;
- a new name in /dev is refused before anything is made, run by a user who cannot write
  /dev (nobody, as root), so that even a regression cannot create a file there.
Usage: run_outfile_dev.py PSNRHVS DATA_DIR"""
import errno
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

NOBODY = 65534


def node(path):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return "link:" + os.readlink(path)
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            return "file:" + hashlib.sha256(f.read()).hexdigest()[:16]
    return "type:%o" % stat.S_IFMT(st.st_mode)


def nodes(folder):
    return {n: node(os.path.join(folder, n)) for n in sorted(os.listdir(folder))}


class _Reader:
    """Reads descriptor fd to its end on a thread."""

    def __init__(self, fd):
        self.fd = fd
        self.chunks = []
        self.thread = threading.Thread(target=self._read)
        self.thread.start()

    def _read(self):
        while True:
            b = os.read(self.fd, 65536)
            if not b:
                break
            self.chunks.append(b)

    def join(self):
        """What was read, or None when the end never came."""
        self.thread.join(120)
        if self.thread.is_alive():
            return None
        os.close(self.fd)
        return b"".join(self.chunks)


class FifoReader(_Reader):
    """Reads a FIFO to its end on a thread. Both ends are opened before psnrhvs starts (the
    test holds a write end of its own), so psnrhvs never waits for a reader and the reader
    sees the end only once finish() drops that write end: after psnrhvs has exited."""

    def __init__(self, path):
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.keep = os.open(path, os.O_WRONLY)
        os.set_blocking(fd, True)
        super().__init__(fd)

    def finish(self):
        os.close(self.keep)
        return self.join()


class PipeReader(_Reader):
    """A pipe whose write end a child inherits as a descriptor; read to its end on a thread
    (the end comes once the child has exited and close_writer() has run)."""

    def __init__(self):
        r, self.w = os.pipe()
        super().__init__(r)

    def close_writer(self):
        os.close(self.w)

    def finish(self):
        return self.join()


class Case:
    def __init__(self, ck, tmp):
        self.ck = ck
        self.tmp = tmp
        d = os.path.join(ck.data, "cli")
        # inputs copied into the (0755) folder: readable by nobody too
        for name in ("ref", "dist"):
            shutil.copy(os.path.join(d, "tiny_frac_yuv420p_16x16_%s.yuv" % name),
                        os.path.join(tmp, name + ".yuv"))
            os.chmod(os.path.join(tmp, name + ".yuv"), 0o644)
        os.chmod(tmp, 0o755)
        self.args = ["-r", os.path.join(tmp, "ref.yuv"), "-d", os.path.join(tmp, "dist.yuv"),
                     "-w", "16", "-h", "16", "--csv", "-q"]
        p = ck.run_ok(self.args + ["-o", "-"], "scores on stdout")
        self.expected = p.stdout
        ck.check(self.expected.count(b"\n") == 4, "the scores: %r" % self.expected)

    def run(self, out, **kw):
        kw.setdefault("stdout", subprocess.PIPE)
        kw.setdefault("stderr", subprocess.PIPE)
        p = subprocess.run([self.ck.psnrhvs] + self.args + ["-o", out], timeout=120, **kw)
        p.err = p.stderr.decode(errors="replace") if isinstance(p.stderr, bytes) else ""
        return p

    def link(self, name, text):
        path = os.path.join(self.tmp, name)
        os.symlink(text, path)
        return path


def descriptor_links(ck, c):
    """Links onto the descriptor names: the descriptor is written, the link stays."""
    for text, fd in (("/dev/stdout", 1), ("/dev/fd/1", 1), ("/dev/stderr", 2), ("/dev/fd/2", 2),
                     ("/proc/self/fd/1", 1)):
        link = c.link("to-" + text.replace("/", "_"), text)
        before = nodes(c.tmp)
        p = c.run(link)
        got = p.stdout if fd == 1 else p.stderr
        ck.check(p.returncode == 0 and got == c.expected,
                 "-o a link to %s: exit %d, got %r" % (text, p.returncode, got[:60]))
        ck.check(nodes(c.tmp) == before, "-o a link to %s: files changed: %r" % (text, nodes(c.tmp)))
        # a file the shell opened (to append, after a header) keeps what it holds
        path = os.path.join(c.tmp, "fd.out")
        with open(path, "wb") as f:
            f.write(b"header\n")
        with open(path, "ab") as f:
            p = c.run(link, stdout=f if fd == 1 else subprocess.DEVNULL,
                      stderr=f if fd == 2 else subprocess.DEVNULL)
        with open(path, "rb") as f:
            got = f.read()
        os.unlink(path)
        ck.check(p.returncode == 0 and got == b"header\n" + c.expected,
                 "-o a link to %s onto a file opened to append: exit %d, %r"
                 % (text, p.returncode, got[:60]))
        ck.check(nodes(c.tmp) == before, "-o a link to %s, a file: files changed" % text)


def inherited_pipe(ck, c):
    """A pipe the child inherits as descriptor N, named by a link to /dev/fd/N."""
    reader = PipeReader()
    try:
        link = c.link("to-fd", "/dev/fd/%d" % reader.w)
        before = nodes(c.tmp)
        proc = subprocess.Popen([ck.psnrhvs] + c.args + ["-o", link], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, pass_fds=(reader.w,))
    finally:
        reader.close_writer()
    out, err = proc.communicate(timeout=120)
    got = reader.finish()
    ck.check(proc.returncode == 0 and out == b"" and got == c.expected,
             "-o a link to /dev/fd/N, a pipe: exit %d %r, the reader got %r"
             % (proc.returncode, err, got and got[:60]))
    ck.check(nodes(c.tmp) == before, "-o a link to /dev/fd/N: files changed: %r" % nodes(c.tmp))


def bad_descriptors(ck, c):
    """A descriptor not open, or open only for reading (stdin on a file that is no input):
    an error before scoring, nothing created."""
    other = os.path.join(c.tmp, "other.bin")
    with open(other, "wb") as f:
        f.write(b"not an input\n")
    for text, stdin in (("/dev/fd/9", None), ("/dev/fd/0", other)):
        link = c.link("bad-" + text.replace("/", "_"), text)
        before = nodes(c.tmp)
        if stdin:
            with open(stdin, "rb") as f:
                p = c.run(link, stdin=f)
        else:
            p = c.run(link, stdin=subprocess.DEVNULL)
        ck.check(p.returncode == 1 and p.err.count("\n") == 1 and
                 ("cannot write to %s: %s" % (link, os.strerror(errno.EBADF))) in p.err,
                 "-o a link to %s: exit %d %r" % (text, p.returncode, p.err))
        ck.check(nodes(c.tmp) == before, "-o a link to %s: files changed" % text)


def fifos(ck, c):
    """A FIFO, directly and through a link: written where it is, never replaced."""
    fifo = os.path.join(c.tmp, "scores.fifo")
    os.mkfifo(fifo)
    c.link("to-fifo.csv", "scores.fifo")
    for out in (fifo, os.path.join(c.tmp, "to-fifo.csv")):
        before = nodes(c.tmp)
        reader = FifoReader(fifo)
        p = c.run(out)
        got = reader.finish()
        ck.check(p.returncode == 0 and got == c.expected,
                 "-o %s: exit %d %r, the reader got %r" % (out, p.returncode, p.err, got and got[:60]))
        ck.check(nodes(c.tmp) == before, "-o %s: replaced, or files left: %r" % (out, nodes(c.tmp)))


def unix_socket(ck, c):
    """A socket takes the branch of a character device (written in place, never replaced):
    open() says it cannot be written, and it stays."""
    path = os.path.join(c.tmp, "s.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(path)
        c.link("to-sock", "s.sock")
        for out in (path, os.path.join(c.tmp, "to-sock")):
            before = nodes(c.tmp)
            p = c.run(out)
            lines = p.err.splitlines()
            ck.check(p.returncode == 1 and len(lines) == 1 and
                     ("cannot write output file %s: %s" % (out, os.strerror(errno.ENXIO))) in p.err,
                     "-o %s, a socket: exit %d %r" % (out, p.returncode, p.err))
            ck.check(nodes(c.tmp) == before and stat.S_ISSOCK(os.lstat(path).st_mode),
                     "-o %s, a socket: files changed: %r" % (out, nodes(c.tmp)))
    finally:
        s.close()


def batch_fifo(ck, c):
    """A batch job writing a FIFO is done (nothing to read back), beside one writing a file."""
    fifo = os.path.join(c.tmp, "job.fifo")
    os.mkfifo(fifo)
    jobs = os.path.join(c.tmp, "jobs.csv")
    data = ck.data
    with open(jobs, "w") as f:
        f.write("reference,distorted,output,format\n%s,%s,%s,json\n%s,%s,%s,json\n" % (
            os.path.join(data, "yuv420p_176x144_ref.y4m"), os.path.join(data, "yuv420p_176x144_dist.y4m"),
            fifo,
            os.path.join(data, "yuv420p_176x144_ref.y4m"), os.path.join(data, "yuv420p_176x144_dist.y4m"),
            os.path.join(c.tmp, "x.json")))
    reader = FifoReader(fifo)
    p = subprocess.run([ck.psnrhvs, "batch", "--quiet", jobs], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    got = reader.finish()
    try:
        frames = len(json.loads(got.decode())["frames"])
    except (AttributeError, ValueError, KeyError) as e:
        frames = 0
        print("the FIFO's bytes: %s: %r" % (e, got and got[:80]))
    ck.check(p.returncode == 0 and os.path.isfile(os.path.join(c.tmp, "x.json")) and frames > 0,
             "batch, a job writing a FIFO: exit %d %r, %d frames" % (p.returncode, p.stderr, frames))
    ck.check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "batch: the FIFO was replaced")
    left = [n for n in os.listdir(c.tmp) if n.startswith(".psnrhvs-")]
    ck.check(not left, "batch: temporary files left: %r" % left)


def as_user_without_dev(ck, c):
    """-o a new name in /dev is refused, and a link to /dev/stdout is written, by a user who
    cannot write /dev: nobody when the test runs as root, else the test's own user."""
    if os.geteuid() == 0:
        def preexec():
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        st = os.stat("/dev")
        can_write = (st.st_uid == NOBODY and st.st_mode & 0o200) or \
            (st.st_gid == NOBODY and st.st_mode & 0o020) or st.st_mode & 0o002
        who = "nobody"
    else:
        preexec = None
        can_write = os.access("/dev", os.W_OK)
        who = "uid %d" % os.geteuid()
    if can_write:
        print("skip: /dev cases: %s may write /dev here" % who)
        return
    try:
        probe = c.run("-", preexec_fn=preexec)
    except OSError as e:  # not executable for nobody (a 0700 folder on the way)
        print("skip: /dev cases: cannot run psnrhvs as %s: %s" % (who, e))
        return
    if probe.returncode or probe.stdout != c.expected:
        print("skip: /dev cases: psnrhvs does not run as %s here: %s" % (who, probe.err.strip()))
        return
    dev = sorted(os.listdir("/dev"))
    for out in ("/dev/psnrhvs-new.json", "/dev/./psnrhvs-new.json"):
        p = c.run(out, preexec_fn=preexec)
        ck.check(p.returncode == 1 and "no file is made or replaced in /dev" in p.err and
                 p.err.count("\n") == 1, "-o %s as %s: exit %d %r" % (out, who, p.returncode, p.err))
        ck.check(not os.path.lexists("/dev/psnrhvs-new.json") and sorted(os.listdir("/dev")) == dev,
                 "-o %s: /dev changed" % out)
    link = c.link("nobody-stdout", "/dev/stdout")
    p = c.run(link, preexec_fn=preexec)
    ck.check(p.returncode == 0 and p.stdout == c.expected and os.readlink(link) == "/dev/stdout",
             "-o a link to /dev/stdout as %s: exit %d %r" % (who, p.returncode, p.err))


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    for test in (descriptor_links, inherited_pipe, bad_descriptors, fifos, unix_socket, batch_fifo,
                 as_user_without_dev):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                test(ck, Case(ck, tmp))
            except (OSError, subprocess.SubprocessError) as e:  # a missing file is a failure too
                ck.check(False, "%s: %r" % (test.__name__, e))
    ck.finish()


if __name__ == "__main__":
    main()
