#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""--hwaccel auto, the default: where each compressed input is decoded, as
--timing explains it and the summary line says, and the same bits as
--hwaccel none in every case. A short HEVC clip, H.264, a clip for a CPU
scorer and a non-4:2:0 stream stay on the CPU; a HEVC clip long enough for
this machine's cores passes the length rule (then NVDEC where a GPU and the
cuda backend are, the CPU with the reason otherwise), and the same clip cut
short by --frame_cnt does not."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402

# input/decode_choice.c: samples of one CPU core's break-even
PER_CORE = 48 * 3840 * 2160 / 16


def choice(ck, args, what):
    """(where, why) from --timing's decoder line of the distorted, and the summary line."""
    p = ck.run(args + ["--timing"])
    err = p.stderr.decode(errors="replace")
    out = p.stdout.decode(errors="replace")
    if not ck.check(p.returncode == 0, "%s: exit %d: %s" % (what, p.returncode, err.strip())):
        return None, None, None
    m = re.search(r"psnrhvs: decoder: %s: (NVDEC|the CPU) \((.*)\)" % re.escape(args[3]), err)
    ck.check(m is not None, "%s: no decoder line in %r" % (what, err))
    return (m.group(1), m.group(2), out.splitlines()[0]) if m else (None, None, None)


def same_as_cpu(ck, args, what):
    ck.same_scores(ck.score(args, what), ck.score(args + ["--hwaccel", "none"], what + ", none"),
                   what + ": auto against --hwaccel none")


def main():
    ck = fftest.FF(sys.argv)
    if not ck.has("libx265") or not ck.has("libx264"):
        fftest.skip("libx265 and libx264 are needed")
    d = ck.data
    ref = os.path.join(d, "yuv420p_176x144_ref.y4m")
    dist = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "176x144", "-i",
            os.path.join(d, "yuv420p_176x144_dist.yuv")]
    x265 = ["-c:v", "libx265", "-x265-params", "log-level=error"]
    hevc = ck.encode(dist, "short.mkv", x265)
    where, why, line = choice(ck, ["-r", ref, "-d", hevc], "short HEVC")
    ck.check(where == "the CPU" and why and re.match(r"5 frames of 176x144 are decoded sooner "
                                                     r"on \d+ CPU cores$", why),
             "short HEVC: %r %r" % (where, why))
    ck.check(line and line.endswith(", decoded on the CPU"), "short HEVC summary: %r" % line)
    same_as_cpu(ck, ["-r", ref, "-d", hevc], "short HEVC")

    h264 = ck.encode(dist, "enc.mp4", ["-c:v", "libx264"])
    where, why, _ = choice(ck, ["-r", ref, "-d", h264], "H.264")
    ck.check(where == "the CPU" and why == "h264 decodes as fast on the CPU",
             "H.264: %r %r" % (where, why))
    same_as_cpu(ck, ["-r", ref, "-d", h264], "H.264")
    where, why, _ = choice(ck, ["-r", ref, "-d", hevc, "--backend", "cpu"], "--backend cpu")
    ck.check(where == "the CPU" and why == "its frames would be copied to host memory for the "
             "scorer", "--backend cpu: %r %r" % (where, why))
    d422 = ck.encode(dist, "d422.mkv", x265 + ["-pix_fmt", "yuv422p"])
    ref422 = ck.encode(["-i", ref], "ref422.y4m", ["-pix_fmt", "yuv422p"])
    where, why, _ = choice(ck, ["-r", ref422, "-d", d422], "4:2:2")
    ck.check(where == "the CPU" and why == "NVDEC may not decode its yuv422p samples",
             "4:2:2 HEVC: %r %r" % (where, why))

    # Long enough for the rule on this machine's cores (psnrhvs_cpu_count() may
    # be fewer than the affinity mask: the bar then is lower still).
    cores = len(os.sched_getaffinity(0))
    w, h = 640, 360
    frames = int(PER_CORE * cores / (w * h)) + 8
    src = ["-f", "lavfi", "-i", "testsrc2=size=%dx%d:rate=30" % (w, h), "-frames:v", str(frames)]
    long_ref = ck.encode(src, "long_ref.y4m", ["-pix_fmt", "yuv420p"])
    long_hevc = ck.encode(src, "long.mkv", x265 + ["-preset", "ultrafast", "-pix_fmt", "yuv420p"])
    args = ["-r", long_ref, "-d", long_hevc]
    where, why, line = choice(ck, args, "long HEVC")
    ok_why = {"NVDEC": "%d frames of %dx%d hevc" % (frames, w, h),
              "the CPU": None}
    ck.check(where in ok_why and (where == "NVDEC" and why == ok_why[where] or
                                  why in ("no CUDA device 0 opens",
                                          "no cuda backend scores its frames")),
             "long HEVC (%d frames, %d cores): %r %r" % (frames, cores, where, why))
    ck.check(line and line.endswith("decoded on %s" % where), "long HEVC summary: %r" % line)
    same_as_cpu(ck, args, "long HEVC")
    where, why, _ = choice(ck, args + ["--frame_cnt", "8"], "long HEVC, --frame_cnt 8")
    ck.check(where == "the CPU" and why and why.startswith("8 frames of %dx%d are decoded sooner"
                                                           % (w, h)),
             "--frame_cnt 8: %r %r" % (where, why))
    ck.finish()


if __name__ == "__main__":
    main()
