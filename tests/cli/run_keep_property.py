#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Property: no command ever writes over one of its inputs. Each round (a fixed seed, a
bounded count: the same rounds every run) picks a command that writes a file (score -o,
score --plot, report, report reading stdin, batch's job output, batch's summary, bdrate's
stdout), one of its inputs, and a name for that input (itself, ./, its absolute path,
sub/../, a symbolic link, a chain of two, a hard link, /proc/self/fd/N and a link to /dev/fd/N
of a descriptor open on it for writing), and gives that name as the output. The run must fail
and every input (links included) keep its bytes.
Usage: run_keep_property.py PSNRHVS DATA_DIR"""
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

ROUNDS = 60
SEED = 41
RATE = ("id,bitrate,psnr_hvs,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr\n"
        "a,120.5,30.1,29.5,38.0,39.0\nb,260,33.2,32.7,39.5,40.2\n"
        "c,540,36.0,35.8,41.0,41.5\nd,1180,38.9,38.1,42.2,42.8\n")
FORMS = ["same", "dot", "abs", "updown", "link", "chain", "hard", "proc_fd", "dev_fd"]


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def commands(tmp):
    """name -> (its inputs, its argv for an output name (None: bdrate, the output is stdout))."""
    score = ["-r", "ref.y4m", "-d", "dist.y4m", "-q"]
    return {
        "score -o": (["ref.y4m", "dist.y4m"], lambda out: score + ["--json", "-o", out]),
        "score --plot": (["ref.y4m", "dist.y4m"], lambda out: score + ["-o", "x.xml", "--plot", out]),
        "report": (["a.json", "b.xml", "r1.csv"],
                   lambda out: ["report", "a.json", "b.xml", "r1.csv", "-o", out]),
        "report -": (["a.json"], lambda out: ["report", "-", "-o", out]),
        "batch output": (["ref.y4m", "dist.y4m"], lambda out: ["batch", "--quiet", "jobs.csv"]),
        "batch summary": (["ref.y4m", "dist.y4m", "jobs.csv"],
                          lambda out: ["batch", "--quiet", "--summary", out, "jobs.csv"]),
        "bdrate": (["r1.csv", "r2.csv"], None),
    }


def name_for(tmp, target, form, i, fds):
    """A name of target (a file in tmp) in the given form; descriptors opened go in fds."""
    if form == "same":
        return target
    if form == "dot":
        return "./" + target
    if form == "abs":
        return os.path.join(tmp, target)
    if form == "updown":
        return "sub/../" + target
    if form == "link":
        os.symlink(target, os.path.join(tmp, "link%d" % i))
        return "link%d" % i
    if form == "chain":
        os.symlink("../" + target, os.path.join(tmp, "sub", "c%d" % i))
        os.symlink("sub/c%d" % i, os.path.join(tmp, "chain%d" % i))
        return "chain%d" % i
    if form == "hard":
        os.link(os.path.join(tmp, target), os.path.join(tmp, "hard%d" % i))
        return "hard%d" % i
    fd = os.open(os.path.join(tmp, target), os.O_WRONLY | os.O_APPEND)
    fds.append(fd)
    if form == "proc_fd":
        return "/proc/self/fd/%d" % fd
    # /dev/fd/N through a link of the test's own: no path in /dev is given to psnrhvs
    os.symlink("/dev/fd/%d" % fd, os.path.join(tmp, "fdlink%d" % i))
    return "fdlink%d" % i


def setup(ck, tmp):
    for name in ("ref", "dist"):
        shutil.copy(os.path.join(ck.data, "yuv420p_176x144_%s.y4m" % name), os.path.join(tmp, name + ".y4m"))
    os.mkdir(os.path.join(tmp, "sub"))
    ck.run_ok(["-r", "ref.y4m", "-d", "dist.y4m", "-q", "--json", "-o", "a.json"], "a.json", cwd=tmp)
    ck.run_ok(["-r", "ref.y4m", "-d", "dist.y4m", "-q", "-o", "b.xml"], "b.xml", cwd=tmp)
    for name in ("r1.csv", "r2.csv"):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(RATE.replace("30.1", "30.%d" % len(name)) if name == "r2.csv" else RATE)


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        setup(ck, tmp)
        cmds = commands(tmp)
        names = sorted(cmds)
        seen = set()
        for i in range(ROUNDS):
            cmd = rng.choice(names)
            inputs, argv = cmds[cmd]
            target = rng.choice(inputs)
            form = rng.choice(FORMS)
            seen.add(cmd)
            fds = []
            out = name_for(tmp, target, form, i, fds)
            if cmd == "batch output":
                with open(os.path.join(tmp, "jobs.csv"), "w") as f:
                    f.write("reference,distorted,output\nref.y4m,dist.y4m,%s\n" % out)
            elif cmd == "batch summary":
                with open(os.path.join(tmp, "jobs.csv"), "w") as f:
                    f.write("reference,distorted,output\nref.y4m,dist.y4m,o.json\n")
            watched = [n for n in sorted(os.listdir(tmp)) if os.path.isfile(os.path.join(tmp, n))]
            before = {n: sha(os.path.join(tmp, n)) for n in watched if n in inputs or n == target
                      or n.startswith(("link", "chain", "hard"))}
            what = "round %d: %s, output %s (%s of %s)" % (i, cmd, out, form, target)
            stdin = open(os.path.join(tmp, "a.json"), "rb") if cmd == "report -" else None
            stdout = subprocess.PIPE
            try:
                if argv is None:  # bdrate: stdout opened on the name, to append
                    stdout = open(os.path.join(tmp, out) if not out.startswith("/") else out, "ab")
                    args = ["bdrate", "r1.csv", "r2.csv"]
                else:
                    args = argv(out)
                p = subprocess.run([ck.psnrhvs] + args, cwd=tmp, stdin=stdin, stdout=stdout,
                                   stderr=subprocess.PIPE, pass_fds=fds, timeout=300)
            finally:
                for fd in fds:
                    os.close(fd)
                if form == "dev_fd":  # its descriptor is closed now
                    os.unlink(os.path.join(tmp, out))
                if stdin:
                    stdin.close()
                if stdout is not subprocess.PIPE:
                    stdout.close()
            err = p.stderr.decode(errors="replace").strip()
            ck.check(p.returncode != 0, "%s: exit %d, %r" % (what, p.returncode, err))
            ck.check("not written over" in err or "cannot write" in err or "same file" in err,
                     "%s: %r" % (what, err))
            for n, h in before.items():
                ck.check(sha(os.path.join(tmp, n)) == h, "%s: %s changed" % (what, n))
        ck.check(seen == set(names), "every command drawn: %r" % sorted(seen))
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
