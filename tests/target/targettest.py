# SPDX-License-Identifier: BSD-2-Clause
"""What the target tests share: running psnrhvs target, skipping without
FFmpeg or an encoder, checks that count failures."""
import json
import os
import subprocess
import sys


class Check:
    def __init__(self, psnrhvs):
        self.psnrhvs = psnrhvs
        self.failures = 0

    def check(self, ok, what):
        if not ok:
            self.failures += 1
            print("FAIL:", what)
        return ok

    def run(self, args, timeout=300):
        return subprocess.run([self.psnrhvs] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)

    def target(self, args, what):
        """psnrhvs target ARGS, which must succeed."""
        p = self.run(["target"] + args)
        self.check(p.returncode == 0, "%s: exit %d: %s" % (what, p.returncode,
                                                          p.stderr.decode(errors="replace")))
        return p

    def finish(self):
        if self.failures:
            print("%d check(s) failed" % self.failures)
            sys.exit(1)
        print("ok")
        sys.exit(0)


def skip_unless_built(ck, source):
    """Exit 77 when psnrhvs has no FFmpeg or libx264."""
    p = ck.run(["target", "-r", source, "--encoder", "libx264", "--target", "99", "-q",
                "--range", "51-51", "--backend", "cpu"])
    err = p.stderr.decode(errors="replace")
    if "built without FFmpeg" in err:
        print("SKIP: psnrhvs was built without FFmpeg's libraries")
        sys.exit(77)
    if "no video encoder" in err:
        print("SKIP: this FFmpeg has no libx264")
        sys.exit(77)


def has_encoder(ck, source, name):
    p = ck.run(["target", "-r", source, "--encoder", name, "--target", "99", "-q"])
    return "no video encoder" not in p.stderr.decode(errors="replace")


def load(path):
    with open(path) as f:
        return json.load(f)


def stable(doc):
    """The JSON without its "run" object (the backend's name and times)."""
    return {k: v for k, v in doc.items() if k != "run"}


def y4m_with_cuts(path, frames=500, cuts=(70, 235, 450)):
    """64x64 4:2:0 at 25 fps: a textured picture moving a row a frame, another at each cut."""
    w = h = 64

    def scene(k):
        return bytes((((x * 7 + y * 13) * (k + 3)) % 64 + 40 + 60 * (k % 3)) & 255
                     for y in range(h) for x in range(w))

    with open(path, "wb") as f:
        f.write(b"YUV4MPEG2 W64 H64 F25:1 Ip A1:1 C420jpeg\n")
        k, pic = 0, scene(0)
        for i in range(frames):
            if i in cuts:
                k += 1
                pic = scene(k)
            s = (i * w) % len(pic)
            f.write(b"FRAME\n" + pic[s:] + pic[:s] + bytes([128]) * (w * h // 2))
