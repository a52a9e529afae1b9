#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Several scorers (--device LIST|all): frames dealt in turn over one context per entry,
taken back in frame order, so the outputs are the bytes of a one-device run. Run on the
OpenCL backend (PoCL's CPU device in CI): --device 0,0 and 0,0,0 against --device 0, with
--subsample, a read error after some frames, and a ladder; --device all; the usage
errors (cpu, auto, bad lists, parity) and a device that does not exist. Skipped (77)
where OpenCL is not built in or lists no device."""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def strip_fps(data):
    data = re.sub(rb'<fyi fps="[^"]*" />', b'<fyi fps="" />', data)
    return re.sub(rb'"fps": [^,\n]*,', b'"fps": ,', data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    d = ck.data
    # usage errors need no device
    ref = os.path.join(d, "yuv420p_176x144_ref.y4m")
    dist = os.path.join(d, "yuv420p_176x144_dist.y4m")
    for args, phrase in ((["--backend", "cpu", "--device", "0,1"], "the cpu backend has no devices"),
                         (["--backend", "cpu", "--device", "all"], "the cpu backend has no devices"),
                         (["--device", "0,1"], "needs --backend cuda, hip, opencl or vulkan"),
                         (["--backend", "auto", "--device", "0,1"], "needs --backend cuda, hip, opencl or vulkan"),
                         (["--backend", "opencl", "--device", "0,,1"], "invalid --device '0,,1'"),
                         (["--backend", "opencl", "--device", "0,x"], "invalid --device 'x'"),
                         (["--backend", "opencl", "--device", "0,"], "invalid --device '0,'")):
        p = ck.run(["-r", ref, "-d", dist] + args)
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 2 and phrase in err, "%s: exit %d, %r" % (args, p.returncode, err))
    p = ck.run(["parity", "-r", ref, "-d", dist, "--device", "0,0"])
    ck.check(p.returncode == 2 and b"parity takes one device" in p.stderr, "parity: %r" % p.stderr)

    listing = ck.run(["--list-devices"]).stdout.decode(errors="replace")
    m = re.search(r"^opencl:\n((?:  .*\n)+)", listing, re.M)
    if not m:
        print("SKIP: no OpenCL device (--list-devices: %r)" % listing)
        sys.exit(77)
    num = len(m.group(1).splitlines())
    print("OpenCL devices: %d" % num)
    with tempfile.TemporaryDirectory() as tmp:
        fmt = ["--json", "--precision", "max", "--raw", "-q", "--backend", "opencl"]
        runs = [("8-bit", ["-r", ref, "-d", dist]),
                ("10-bit subsample", ["-r", os.path.join(d, "yuv420p10_176x144_ref.y4m"), "-d",
                                      os.path.join(d, "yuv420p10_176x144_dist.y4m"), "--subsample", "2"]),
                ("1280x720", ["-r", os.path.join(d, "yuv420p_1280x720_ref.yuv"), "-d",
                              os.path.join(d, "yuv420p_1280x720_dist.yuv"), "-w", "1280", "-h", "720"])]
        for what, args in runs:
            one = os.path.join(tmp, "one.json")
            p = ck.run_ok(args + fmt + ["--device", "0", "-o", one], what + " --device 0")
            if p.returncode:
                continue
            for devs in ("0,0", "0,0,0", "all"):
                out = os.path.join(tmp, "many.json")
                ck.run_ok(args + fmt + ["--device", devs, "-o", out], "%s --device %s" % (what, devs))
                ck.check(os.path.exists(out) and strip_fps(read(out)) == strip_fps(read(one)),
                         "%s: --device %s differs from --device 0" % (what, devs))

        # a ladder over two scorers: each rendition as its one-device single run
        outdir = os.path.join(tmp, "ladder")
        os.mkdir(outdir)
        dists = [dist, ref, os.path.join(d, "yuv420p_176x144_dist.yuv")]
        ck.run_ok(["-r", ref] + sum([["-d", x] for x in dists], []) + fmt +
                  ["--device", "0,0", "-o", outdir + "/%d.json"], "ladder on 0,0")
        for i, x in enumerate(dists):
            one = os.path.join(tmp, "one.json")
            ck.run_ok(["-r", ref, "-d", x] + fmt + ["--device", "0", "-o", one], "ladder single")
            got = os.path.join(outdir, "%d.json" % i)
            ck.check(os.path.exists(got) and strip_fps(read(got)) == strip_fps(read(one)),
                     "ladder on --device 0,0: rendition %d differs" % i)

        # a read error after 6 frames: those are scored first, then the error, no output
        fb = 176 * 144 * 3 // 2
        raw = read(os.path.join(d, "yuv420p_176x144_dist.yuv"))
        cut = os.path.join(tmp, "cut.yuv")
        with open(cut, "wb") as f:
            f.write(raw[:3 * fb + 100])
        out = os.path.join(tmp, "cut.json")
        p = ck.run(["-r", ref, "-d", cut] + fmt + ["--device", "0,0", "-o", out])
        ck.check(p.returncode == 1 and b"truncated frame 3 in" in p.stderr and not os.path.exists(out),
                 "truncated on 0,0: exit %d, %r" % (p.returncode, p.stderr))

        # a device that does not exist: one line, exit 1
        p = ck.run(["-r", ref, "-d", dist, "--backend", "opencl", "--device", "0,%d" % (num + 5)])
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 1 and err.startswith("psnrhvs: ") and len(err.splitlines()) == 1,
                 "missing device: exit %d, %r" % (p.returncode, err))
    ck.finish()


if __name__ == "__main__":
    main()
