#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Signals while scoring into -o FILE: every fatal signal removes the temporary file and
ends the process by that signal, an existing output left as it was; a signal inherited as
ignored (nohup, a script's background job) stays ignored and the run completes. Core
dumps are off (RLIMIT_CORE 0) and each run's folder is a temporary one."""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

SENTINEL = b"previous good output\n"
FATAL = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGABRT", "SIGBUS", "SIGFPE", "SIGUSR1", "SIGSEGV",
         "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGSYS"]


def start(ck, data, tmp, out, ignore=None):
    ref = os.path.join(data, "yuv420p_176x144_ref.yuv")

    def preexec():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # The defaults, whatever this test inherited (a background job's shell ignores
        # SIGINT and SIGQUIT): psnrhvs rightly keeps a signal it inherits as ignored.
        for name in FATAL:
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        if ignore:
            signal.signal(ignore, signal.SIG_IGN)

    # psnrhvs leaves a handler it finds in place: in an ASan build, ASan's own for SEGV,
    # BUS and FPE. Turned off here, so that psnrhvs's handlers are the ones tested.
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(x for x in (env.get("ASAN_OPTIONS", ""), "handle_segv=0",
                                               "handle_sigbus=0", "handle_sigfpe=0") if x)
    proc = subprocess.Popen([ck.psnrhvs, "-r", ref, "-d", "-", "-w", "176", "-h", "144", "-q", "-o", out],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=tmp, preexec_fn=preexec, env=env)
    return proc


def wait_for_temporary(tmp, proc):
    deadline = time.time() + 30
    while time.time() < deadline and proc.poll() is None:
        if any(n != "out.xml" for n in os.listdir(tmp)):  # whatever its name
            return True
        time.sleep(0.01)
    return False


def finish(proc):
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    rc = proc.wait(timeout=60)
    err = proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    return rc, err


def main():
    # absolute: each run's working folder is a temporary one
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    with open(os.path.join(ck.data, "yuv420p_176x144_dist.yuv"), "rb") as f:
        dist = f.read()
    fb = 38016

    for name in FATAL:
        sig = getattr(signal, name)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.xml")
            with open(out, "wb") as f:
                f.write(SENTINEL)
            proc = start(ck, ck.data, tmp, out)
            proc.stdin.write(dist[:fb])  # one frame; the tool waits for more
            proc.stdin.flush()
            seen = wait_for_temporary(tmp, proc)
            ck.check(seen, "%s: no temporary file seen: %s" % (name, os.listdir(tmp)))
            proc.send_signal(sig)
            # It dies waiting for input: stdin stays open meanwhile (closed at once, a
            # signal a sanitizer's runtime delivers late would find the run finished).
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
            rc, err = finish(proc)
            ck.check(rc == -sig, "%s: exit %r, expected death by the signal; %r" % (name, rc, err))
            ck.check(os.listdir(tmp) == ["out.xml"], "%s: files left %s" % (name, os.listdir(tmp)))
            with open(out, "rb") as f:
                ck.check(f.read() == SENTINEL, "%s: the existing output changed" % name)

    # Inherited as ignored: stays ignored, the scores are written.
    for name in ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM"):
        sig = getattr(signal, name)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.xml")
            proc = start(ck, ck.data, tmp, out, ignore=sig)
            proc.stdin.write(dist[:fb])
            proc.stdin.flush()
            ck.check(wait_for_temporary(tmp, proc), "%s ignored: no temporary file seen" % name)
            proc.send_signal(sig)
            time.sleep(0.2)
            ck.check(proc.poll() is None, "%s ignored: the process died of it" % name)
            try:
                proc.stdin.write(dist[fb:])
            except BrokenPipeError:
                pass
            rc, err = finish(proc)
            ck.check(rc == 0, "%s ignored: exit %r %r" % (name, rc, err))
            ck.check(os.listdir(tmp) == ["out.xml"], "%s ignored: files %s" % (name, os.listdir(tmp)))
            with open(out, "rb") as f:
                text = f.read()
            ck.check(text.count(b"<frame frameNum=") == 5, "%s ignored: output %r" % (name, text[:100]))

    # A hard-linked output is written in place, and only once the scores are ready:
    # a fatal signal before that leaves it whole.
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.xml")
        with open(out, "wb") as f:
            f.write(SENTINEL)
        os.link(out, os.path.join(tmp, "other.xml"))
        proc = start(ck, ck.data, tmp, out)
        proc.stdin.write(dist[:fb])
        proc.stdin.flush()
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        rc, _ = finish(proc)
        ck.check(rc == -signal.SIGTERM, "hard link, SIGTERM: exit %r" % rc)
        with open(os.path.join(tmp, "other.xml"), "rb") as f:
            ck.check(f.read() == SENTINEL, "hard link, SIGTERM: the file changed")
        ck.check(sorted(os.listdir(tmp)) == ["other.xml", "out.xml"], "hard link: files %s" % os.listdir(tmp))
    ck.finish()


if __name__ == "__main__":
    main()
