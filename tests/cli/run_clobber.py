#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Outputs never destroy files: an -o, --plot, ladder or batch output that is an input (by
name, through a symbolic or a hard link) or the jobs file is refused with one line naming
both, every file left byte for byte; -o DIR/ of a ladder and batch outputs in missing folders
make the folders (never under /dev, /proc, /sys); a hard-linked output that cannot be
rewritten (a full disk: a small tmpfs in a private mount namespace where one can be made,
and a test hook that fails the write half-way everywhere) keeps its old bytes."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

HERE = os.path.abspath(__file__)


def digest(folder):
    """Every file under folder and its bytes' hash (links as links)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, folder)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[rel] = "dir"
    return out


def refused(ck, what, args, cwd, expect, code=None):
    """The run fails with one line containing each of expect, nothing in cwd changed."""
    before = digest(cwd)
    p = ck.run(args, cwd=cwd)
    err = p.stderr.decode(errors="replace")
    ok = p.returncode == code if code is not None else p.returncode != 0
    ck.check(ok and p.returncode > 0, "%s: exit %d (%s)" % (what, p.returncode, err))
    ck.check(len(err.splitlines()) == 1 and all(e in err for e in expect),
             "%s: stderr %r, expected one line with %r" % (what, err, expect))
    ck.check(digest(cwd) == before, "%s: files changed: %r -> %r" % (what, before, digest(cwd)))


def cli_cases(ck, tmp):
    data = ck.data
    for name in ("ref.y4m", "dist.y4m", "d2.y4m"):
        shutil.copy(os.path.join(data, "yuv420p_176x144_%s.y4m" % ("ref" if name == "ref.y4m" else "dist")),
                    os.path.join(tmp, name))
    os.symlink("ref.y4m", os.path.join(tmp, "link.xml"))
    os.link(os.path.join(tmp, "dist.y4m"), os.path.join(tmp, "hard.xml"))
    base = ["-r", "ref.y4m", "-d", "dist.y4m", "-q"]
    refused(ck, "-o the reference", base + ["-o", "ref.y4m"], tmp,
            ["output file ref.y4m", "the reference ref.y4m"])
    refused(ck, "-o the distorted", base + ["-o", "dist.y4m"], tmp,
            ["output file dist.y4m", "the distorted dist.y4m"])
    refused(ck, "-o a link to the reference", base + ["-o", "link.xml"], tmp,
            ["output file link.xml", "the reference ref.y4m"])
    refused(ck, "-o a hard link of the distorted", base + ["-o", "hard.xml"], tmp,
            ["output file hard.xml", "the distorted dist.y4m"])
    refused(ck, "--plot the reference", base + ["--plot", "ref.y4m"], tmp,
            ["plot file ref.y4m", "the reference ref.y4m"])
    refused(ck, "-o and --plot one file", base + ["-o", "a.xml", "--plot", "./a.xml"], tmp,
            ["output file a.xml", "plot file ./a.xml", "same file"])
    refused(ck, "-o the reference by another path", base + ["-o", os.path.join(tmp, "ref.y4m")], tmp,
            ["the reference ref.y4m"])
    refused(ck, "a ladder's output is a rendition",
            ["-r", "ref.y4m", "-d", "dist.y4m", "-d", "d2.y4m", "-q", "-o", "%s.y4m"], tmp,
            ["output file dist.y4m", "the distorted dist.y4m"])
    # stdout redirected to the reference: the descriptor's file is compared
    with open(os.path.join(tmp, "ref.y4m"), "ab") as f:
        before = digest(tmp)
        p = subprocess.run([ck.psnrhvs] + base + ["--json"], stdout=f, stderr=subprocess.PIPE, cwd=tmp)
    ck.check(p.returncode != 0 and b"the reference ref.y4m" in p.stderr,
             "stdout appended to the reference: exit %d %r" % (p.returncode, p.stderr))
    ck.check(digest(tmp) == before, "stdout appended to the reference: files changed")

    # -o DIR/ of a ladder makes the folders
    p = ck.run(["-r", "ref.y4m", "-d", "dist.y4m", "-d", "d2.y4m", "-q", "--json", "-o", "out/a/b/",
                "--plot", "plots/"], cwd=tmp)
    ck.check(p.returncode == 0, "-o out/a/b/: exit %d %r" % (p.returncode, p.stderr))
    for f in ("out/a/b/dist.json", "out/a/b/d2.json", "plots/dist.svg", "plots/d2.svg"):
        ck.check(os.path.isfile(os.path.join(tmp, f)), "-o out/a/b/: no %s" % f)
    for bad in ("/proc/psnrhvs-test-no/", "/sys/psnrhvs-test-no/x/"):
        p = ck.run(["-r", "ref.y4m", "-d", "dist.y4m", "-d", "d2.y4m", "-q", "-o", bad], cwd=tmp)
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 1 and "not made under /dev, /proc or /sys" in err,
                 "-o %s: exit %d %r" % (bad, p.returncode, err))
        ck.check(not os.path.exists(bad), "-o %s: made" % bad)
    # a plain -o in a missing folder stays an error (only DIR/ asks for one)
    p = ck.run(base + ["-o", "missing/x.xml"], cwd=tmp)
    ck.check(p.returncode == 1 and not os.path.exists(os.path.join(tmp, "missing")),
             "-o missing/x.xml: exit %d %r" % (p.returncode, p.stderr))


def batch_cases(ck, tmp):
    for name in ("ref.y4m", "dist.y4m"):
        shutil.copy(os.path.join(ck.data, "yuv420p_176x144_%s.y4m" % name[:-4]), os.path.join(tmp, name))

    def jobs(rows, name="jobs.csv"):
        with open(os.path.join(tmp, name), "w") as f:
            f.write("reference,distorted,output\n" + "".join(",".join(r) + "\n" for r in rows))
        return name

    def batch(name):
        return ["batch", "--quiet", name]

    refused(ck, "batch: output is its reference", batch(jobs([("ref.y4m", "dist.y4m", "ref.y4m")])), tmp,
            ["the output of job 1", "the reference of job 1"], code=2)
    refused(ck, "batch: output is another job's distorted",
            batch(jobs([("ref.y4m", "dist.y4m", "a.xml"), ("ref.y4m", "a2.y4m", "dist.y4m")])), tmp,
            ["the output of job 2 dist.y4m", "the distorted of job 1"], code=2)
    refused(ck, "batch: output is the jobs file", batch(jobs([("ref.y4m", "dist.y4m", "jobs.csv")])), tmp,
            ["the output of job 1 ", "the jobs file jobs.csv"], code=2)
    os.symlink("jobs.csv", os.path.join(tmp, "j.xml"))
    refused(ck, "batch: output links to the jobs file", batch(jobs([("ref.y4m", "dist.y4m", "j.xml")])), tmp,
            ["the jobs file jobs.csv"], code=2)
    # outputs in folders that are not there: made
    name = jobs([("ref.y4m", "dist.y4m", "out/deep/x.json"), ("ref.y4m", "dist.y4m", "out/y.csv")])
    p = ck.run(batch(name), cwd=tmp)
    ck.check(p.returncode == 0, "batch in missing folders: exit %d %r" % (p.returncode, p.stderr))
    for f in ("out/deep/x.json", "out/y.csv"):
        ck.check(os.path.isfile(os.path.join(tmp, f)), "batch in missing folders: no %s" % f)
    name = jobs([("ref.y4m", "dist.y4m", "/proc/psnrhvs-test-no/x.json")])
    p = ck.run(batch(name), cwd=tmp)
    ck.check(p.returncode != 0 and b"not made under /dev, /proc or /sys" in p.stderr,
             "batch under /proc: exit %d %r" % (p.returncode, p.stderr))


def hard_link_hook(ck, tmp):
    """The in-place rewrite failing half-way (a test hook, in the tests' CLI only) leaves both
    links as they were; the release CLI has no such hook."""
    hooks = sys.argv[3] if len(sys.argv) > 3 else "none"
    if hooks == "none":
        print("hook cases skipped: no CLI with test hooks in this build (cross build)")
        return
    for name in ("ref.y4m", "dist.y4m"):
        shutil.copy(os.path.join(ck.data, "yuv420p_176x144_%s.y4m" % name[:-4]), os.path.join(tmp, name))
    out, other = os.path.join(tmp, "hl.xml"), os.path.join(tmp, "other.xml")
    p = ck.run(["-r", "ref.y4m", "-d", "dist.y4m", "-q", "-o", "-"], cwd=tmp)
    size = len(p.stdout)
    old = b"the old scores, " * (size // 32)  # shorter than the new, and longer: below
    # (the size varies by a digit or two: the fps written)
    for fail_at in (0, 1, 100, len(old) - 1, len(old), len(old) + 1, size - 50):
        for f in (out, other):
            if os.path.exists(f):
                os.unlink(f)
        if fail_at == size - 50:
            old = b"longer old scores. " * size  # the rewrite shrinks it
        with open(out, "wb") as f:
            f.write(old)
        os.link(out, other)
        env = dict(os.environ, PSNRHVS_TEST_INPLACE_FAIL_AT=str(fail_at))
        p = subprocess.run([hooks, "-r", "ref.y4m", "-d", "dist.y4m", "-q", "-o", "hl.xml"], cwd=tmp,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 1 and "No space left on device" in err and len(err.splitlines()) == 1,
                 "hook at %d: exit %d %r" % (fail_at, p.returncode, err))
        for f in (out, other):
            with open(f, "rb") as fh:
                ck.check(fh.read() == old, "hook at %d: %s changed" % (fail_at, os.path.basename(f)))
    # the release CLI obeys no hook: rewritten in place, the link kept
    env = dict(os.environ, PSNRHVS_TEST_INPLACE_FAIL_AT="0")
    p = subprocess.run([ck.psnrhvs, "-r", "ref.y4m", "-d", "dist.y4m", "-q", "-o", "hl.xml"], cwd=tmp,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(other, "rb") as fh:
        text = fh.read()
    ck.check(p.returncode == 0 and text.startswith(b"<VMAF") and os.stat(out).st_nlink == 2,
             "hard link rewritten: exit %d %r" % (p.returncode, text[:40]))


def tmpfs_outer(ck):
    """The full disk for real: a 64 KiB tmpfs, in a mount namespace of this test's."""
    unshare = shutil.which("unshare")
    if not unshare:
        print("tmpfs case skipped: no unshare(1)")
        return
    cmd = [unshare, "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        cmd.append("--map-root-user")
    with tempfile.TemporaryDirectory() as mnt:
        p = subprocess.run(cmd + [sys.executable, HERE, "--tmpfs", ck.psnrhvs, ck.data, mnt],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    if "tmpfs-mounted" not in out:
        print("tmpfs case skipped: no tmpfs in a private mount namespace here: %s" % out.strip()[-300:])
        return
    print(out)
    ck.check(p.returncode == 0, "tmpfs case: exit %d" % p.returncode)


def tmpfs_inner(psnrhvs, data, mnt):
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode:
        print("mount failed: %s" % r.stdout.decode(errors="replace").strip())
        return 0
    print("tmpfs-mounted")
    ck = clitest.Checker(psnrhvs, data)
    # 40 frames: scores longer than the tmpfs's last free page
    work = tempfile.mkdtemp()
    src, dist = os.path.join(work, "ref.y4m"), os.path.join(work, "dist.y4m")
    for name, path in (("ref", src), ("dist", dist)):
        with open(os.path.join(data, "yuv420p_176x144_%s.y4m" % name), "rb") as f:
            header, body = f.read().split(b"\n", 1)
        with open(path, "wb") as f:
            f.write(header + b"\n" + body * 8)
    out, other = os.path.join(mnt, "hl.xml"), os.path.join(mnt, "other.xml")
    old = b"old scores\n"
    with open(out, "wb") as f:
        f.write(old)
    os.link(out, other)
    # fill the disk: the scores need more than the old file's page
    fd = os.open(os.path.join(mnt, "fill"), os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 1024)
    except OSError:
        pass
    os.close(fd)
    p = ck.run(["-r", src, "-d", dist, "-q", "-o", out])
    err = p.stderr.decode(errors="replace")
    ck.check(p.returncode == 1 and "No space left on device" in err, "full tmpfs: exit %d %r" % (p.returncode, err))
    for f in (out, other):
        with open(f, "rb") as fh:
            ck.check(fh.read() == old, "full tmpfs: %s changed" % os.path.basename(f))
    os.unlink(os.path.join(mnt, "fill"))
    p = ck.run(["-r", src, "-d", dist, "-q", "-o", out])
    with open(other, "rb") as fh:
        ck.check(p.returncode == 0 and fh.read().startswith(b"<VMAF"), "tmpfs with room: exit %d" % p.returncode)
    subprocess.run(["umount", mnt])
    shutil.rmtree(work)
    ck.finish()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--tmpfs":
        return tmpfs_inner(*sys.argv[2:5])
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    for case in (cli_cases, batch_cases, hard_link_hook):
        with tempfile.TemporaryDirectory() as tmp:
            case(ck, tmp)
    tmpfs_outer(ck)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
