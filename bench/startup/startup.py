#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Whole-command time of the default (auto) against --backend cpu on short
clips, interleaved run by run so both see the same machine.

usage: bench/startup/startup.py [CLI] [REPS]
  CLI   the psnrhvs binary (default build/tools/psnrhvs)
The clips are made with FFmpeg's testsrc2 into a temporary folder (page-cached
by a first read), 1280x720 8-bit 4:2:0, 12 and 48 frames.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "build/tools/psnrhvs"
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    if not shutil.which("ffmpeg"):
        sys.exit("startup.py: needs the ffmpeg command to make its clips")
    with tempfile.TemporaryDirectory() as tmp:
        for frames in (12, 48):
            ref, dist = os.path.join(tmp, "r.y4m"), os.path.join(tmp, "d.y4m")
            src = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                   "testsrc2=size=1280x720:rate=25", "-frames:v", str(frames)]
            subprocess.run(src + ["-pix_fmt", "yuv420p", ref], check=True)
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", ref, "-vf", "noise=alls=12:allf=t",
                            "-pix_fmt", "yuv420p", dist], check=True)
            for p in (ref, dist):
                with open(p, "rb") as f:
                    f.read()
            times = {"default": [], "--backend cpu": []}
            for _ in range(reps):
                for name, extra in (("default", []), ("--backend cpu", ["--backend", "cpu"])):
                    t = time.perf_counter()
                    # the scores on stdout, which the script discards: no device named
                    subprocess.run([cli, "-r", ref, "-d", dist, "-q", "-o", "-"] + extra,
                                   check=True, stdout=subprocess.DEVNULL)
                    times[name].append(time.perf_counter() - t)
            med = {k: statistics.median(v) for k, v in times.items()}
            print("1280x720 %d frames: default %.3f s, --backend cpu %.3f s (medians of %d), "
                  "default / cpu = %.2f" % (frames, med["default"], med["--backend cpu"], reps,
                                            med["default"] / med["--backend cpu"]))


if __name__ == "__main__":
    main()
