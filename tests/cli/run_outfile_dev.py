#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""-o /dev/null, /dev/stdout, /dev/stderr, /dev/fd/N and a link in /dev, as root, without
touching the real /dev: this script runs itself again inside a private mount namespace
(unshare -m as root, unshare -m --map-root-user otherwise), mounts a tmpfs on /dev there
(seen by nothing outside), puts a null device (mknod 1:3, or a bind mount of the real one
where mknod is not allowed) and the usual stdout/stderr/fd links in it, and checks that
the scores arrive and every node is still what it was, with nothing added to /dev.
Exit 77 (ctest's skip), with the reason, where namespaces are not available."""
import json
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.abspath(__file__)
MARK = "inner-started"


def outer(psnrhvs, data):
    import shutil
    unshare = shutil.which("unshare")
    if not unshare:
        print("skipped: no unshare(1) (util-linux) to make a private mount namespace")
        return 77
    cmd = [unshare, "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        cmd.append("--map-root-user")
    with tempfile.TemporaryDirectory() as keep:  # for a bind mount that lives in the namespace only
        cmd += [sys.executable, HERE, "--inner", psnrhvs, data, keep]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    out = p.stdout.decode(errors="replace")
    if MARK not in out and (p.returncode == 77 or "Traceback" not in out):
        print("skipped: no private mount namespace with its own /dev (%s): %s"
              % (" ".join(cmd[:4]), out.strip()))
        return 77
    print(out)
    return p.returncode


def sh(*args):
    subprocess.run(list(args), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def node(path):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return "link:" + os.readlink(path)
    if stat.S_ISCHR(st.st_mode):
        return "chr:%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    return "type:%o" % stat.S_IFMT(st.st_mode)


def dev_is_ours():
    """The mount on /dev in this namespace is the test's tmpfs (read from mountinfo)."""
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split() for line in f]
    dev = [m for m in mounts if m[4] == "/dev"]
    if not dev:
        return False
    last = dev[-1]  # the one on top
    sep = last.index("-")
    return last[sep + 1] == "tmpfs" and last[sep + 2] == "psnrhvs-test-dev"


def inner(psnrhvs, data, keep):
    failures = []

    def check(cond, what):
        print(("PASS " if cond else "FAIL ") + what, flush=True)
        if not cond:
            failures.append(what)

    # Private from here on: nothing mounted below reaches the real /dev.
    real_null = os.path.join(keep, "null")
    try:
        sh("mount", "--make-rprivate", "/")
        open(real_null, "w").close()
        sh("mount", "--bind", "/dev/null", real_null)  # for where mknod is not allowed
        sh("mount", "-t", "tmpfs", "-o", "mode=755", "psnrhvs-test-dev", "/dev")
    except (OSError, subprocess.CalledProcessError) as e:
        print("skipped: cannot mount a tmpfs on /dev in the namespace: %s %s"
              % (e, getattr(e, "stderr", b"").decode(errors="replace").strip()))
        return 77
    # Nothing runs unless /dev is the empty tmpfs of this namespace.
    if not dev_is_ours() or os.listdir("/dev"):
        print("FAIL /dev is not the test's fresh tmpfs: not running anything")
        return 1
    print(MARK, flush=True)
    try:
        os.mknod("/dev/null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        how = "mknod"
    except PermissionError:
        open("/dev/null", "w").close()
        sh("mount", "--bind", real_null, "/dev/null")
        how = "bind mount"
    os.chmod("/dev/null", 0o666)
    os.symlink("/proc/self/fd", "/dev/fd")
    os.symlink("/proc/self/fd/1", "/dev/stdout")
    os.symlink("/proc/self/fd/2", "/dev/stderr")
    os.symlink("null", "/dev/null-link")
    before = {n: node(os.path.join("/dev", n)) for n in os.listdir("/dev")}
    check(before["null"] == "chr:1:3", "/dev/null is the null device (%s): %s" % (how, before["null"]))

    d = os.path.join(data, "cli")
    args = [psnrhvs, "-r", os.path.join(d, "tiny_frac_yuv420p_16x16_ref.yuv"),
            "-d", os.path.join(d, "tiny_frac_yuv420p_16x16_dist.yuv"), "-w", "16", "-h", "16", "--csv", "-q"]
    expected = subprocess.run(args + ["-o", "-"], stdout=subprocess.PIPE, check=True).stdout
    check(expected.count(b"\n") == 4, "the scores")

    def unchanged(what):
        after = {n: node(os.path.join("/dev", n)) for n in os.listdir("/dev")}
        check(after == before, "%s: /dev unchanged (%s)" % (what, json.dumps(after)))

    for out in ("/dev/null", "/dev/null-link"):
        p = subprocess.run(args + ["-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(p.returncode == 0 and p.stdout == b"", "-o %s: exit %d %r" % (out, p.returncode, p.stderr))
        unchanged("-o " + out)
    for out, fd in (("/dev/stdout", 1), ("/dev/fd/1", 1), ("/dev/stderr", 2), ("/dev/fd/2", 2)):
        p = subprocess.run(args + ["-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got = p.stdout if fd == 1 else p.stderr
        check(p.returncode == 0 and got == expected, "-o %s: exit %d, got %r" % (out, p.returncode, got[:60]))
        unchanged("-o " + out)
    # A file the shell opened (to append, after a header) keeps what it holds.
    for out, fd in (("/dev/stdout", 1), ("/dev/fd/1", 1), ("/dev/stderr", 2), ("/dev/fd/2", 2)):
        path = os.path.join(keep, "fd.out")
        with open(path, "wb") as f:
            f.write(b"header\n")
        with open(path, "ab") as f:
            p = subprocess.run(args + ["-o", out], stdout=f if fd == 1 else subprocess.DEVNULL,
                               stderr=f if fd == 2 else subprocess.DEVNULL)
        with open(path, "rb") as f:
            got = f.read()
        check(p.returncode == 0 and got == b"header\n" + expected,
              "-o %s onto a file opened to append: %r" % (out, got[:60]))
        unchanged("-o %s, a file" % out)
    # A link of the user's onto /dev/stdout: the descriptor, the link stays
    link = os.path.join(keep, "to-stdout")
    os.symlink("/dev/stdout", link)
    p = subprocess.run(args + ["-o", link], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and p.stdout == expected and os.readlink(link) == "/dev/stdout",
          "-o a link to /dev/stdout: exit %d %r" % (p.returncode, p.stderr))
    unchanged("-o a link to /dev/stdout")
    # A new name in /dev: refused before anything is made (this /dev is the test's tmpfs)
    for out in ("/dev/psnrhvs-new.json", "/dev/./psnrhvs-new.json"):
        p = subprocess.run(args + ["-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(p.returncode == 1 and b"no file is made or replaced in /dev" in p.stderr
              and p.stderr.count(b"\n") == 1, "-o %s: exit %d %r" % (out, p.returncode, p.stderr))
        check(not os.path.exists("/dev/psnrhvs-new.json"), "-o %s: made" % out)
        unchanged("-o " + out)
    # A batch job writing /dev/null is done (nothing to read back from a device)
    jobs = os.path.join(keep, "jobs.csv")
    with open(jobs, "w") as f:
        f.write("reference,distorted,output\n%s,%s,/dev/null\n%s,%s,%s\n" % (
            os.path.join(data, "yuv420p_176x144_ref.y4m"), os.path.join(data, "yuv420p_176x144_dist.y4m"),
            os.path.join(data, "yuv420p_176x144_ref.y4m"), os.path.join(data, "yuv420p_176x144_dist.y4m"),
            os.path.join(keep, "x.json")))
    p = subprocess.run([psnrhvs, "batch", "--quiet", jobs], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 0 and os.path.isfile(os.path.join(keep, "x.json")),
          "batch, a job writing /dev/null: exit %d %r" % (p.returncode, p.stderr))
    unchanged("batch onto /dev/null")
    # A descriptor not open: an error, nothing created
    p = subprocess.run(args + ["-o", "/dev/fd/9"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(p.returncode == 1 and b"cannot write to /dev/fd/9: Bad file descriptor" in p.stderr,
          "-o /dev/fd/9: exit %d %r" % (p.returncode, p.stderr))
    unchanged("-o /dev/fd/9")
    if os.getuid() == 0 and os.path.exists("/proc/self/uid_map") and \
            open("/proc/self/uid_map").read().split()[:3] == ["0", "0", "4294967295"]:
        # real root: the same as an unprivileged user
        def nobody():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        try:
            p = subprocess.run(args + ["-o", "/dev/stdout"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, preexec_fn=nobody)
        except OSError as e:  # not executable for nobody (a 0700 folder on the way)
            p = None
            print("skip: -o /dev/stdout as nobody: cannot run psnrhvs as nobody: %s" % e)
        if p is None:
            pass
        elif b"Permission denied" in p.stderr and b"cannot open" in p.stderr:
            print("skip: nobody cannot read the test data here")
        else:
            check(p.returncode == 0 and p.stdout == expected,
                  "-o /dev/stdout as nobody: exit %d %r" % (p.returncode, p.stderr))
            unchanged("-o /dev/stdout as nobody")
    print("%d failures" % len(failures))
    return 1 if failures else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--inner":
        sys.exit(inner(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit(outer(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))


if __name__ == "__main__":
    main()
