#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Each CLI flag: frame selection, precision, feature options, threads, quiet,
version, help, stdin, mixed y4m/raw input, summary output, progress line."""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def golden(ck, name):
    with open(os.path.join(ck.data, "golden", name + ".json")) as f:
        return json.load(f)


def run_json(ck, args, what, **kw):
    """Run with JSON on stdout at max precision; -> (frames, pooled) or None."""
    p = ck.run_ok(args + ["--json", "--precision", "max", "--raw", "-o", "-"], what, **kw)
    if p.returncode:
        return None
    frames, pooled, _ = clitest.parse_json_output(p.stdout.decode())
    return frames, pooled


def test_frame_selection(ck):
    g = golden(ck, "yuv420p_176x144")
    base = clitest.golden_args(ck.data, g)

    r = run_json(ck, base + ["--frame_cnt", "2"], "frame_cnt")
    if r:
        clitest.compare_frames(ck, "frame_cnt 2", g, r[0], frame_map=[0, 1])
        ck.check([n for n, _ in r[0]] == [0, 1], "frame_cnt 2: frameNum")

    r = run_json(ck, base + ["--frame_skip_ref", "1", "--frame_skip_dist", "1"], "frame_skip both")
    if r:
        clitest.compare_frames(ck, "frame_skip 1/1", g, r[0], frame_map=[1, 2, 3, 4])
        ck.check([n for n, _ in r[0]] == [0, 1, 2, 3], "frame_skip 1/1: frameNum from 0")

    r = run_json(ck, base + ["--frame_skip_ref", "2", "--frame_skip_dist", "2", "--frame_cnt", "2"],
                 "frame_skip + frame_cnt")
    if r:
        clitest.compare_frames(ck, "frame_skip 2 + frame_cnt 2", g, r[0], frame_map=[2, 3])

    # The identical file against itself, shifted by one frame on one side only: finite scores.
    ident = os.path.join(ck.data, "identical_yuv420p_176x144.yuv")
    geo = ["-w", "176", "-h", "144"]
    for opt in ("--frame_skip_ref", "--frame_skip_dist"):
        r = run_json(ck, ["-r", ident, "-d", ident] + geo + [opt, "1"], opt)
        if r:
            ck.check(len(r[0]) == 1, "%s 1 on a 2-frame pair: %d frames" % (opt, len(r[0])))
            ck.check(all(math.isfinite(v) for _, m in r[0] for k, v in m.items()
                         if not k.startswith("raw_")), "%s 1: shifted frames give finite scores" % opt)
    r = run_json(ck, ["-r", ident, "-d", ident] + geo + ["--frame_skip_ref", "1", "--frame_skip_dist", "1"],
                 "identical skip both")
    if r:
        ck.check(len(r[0]) == 1 and all(v == math.inf for k, v in r[0][0][1].items()
                                        if not k.startswith("raw_")), "skip 1/1 on identical: inf")

    for n, want in ((2, [0, 2, 4]), (3, [0, 3]), (5, [0]), (100, [0])):
        r = run_json(ck, base + ["--subsample", str(n)], "subsample %d" % n)
        if not r:
            continue
        ck.check([num for num, _ in r[0]] == want, "subsample %d: frameNum %s" % (n, [x for x, _ in r[0]]))
        clitest.compare_frames(ck, "subsample %d" % n, g, r[0], frame_map=want)
        for k in clitest.KEYS4:
            want_pool = clitest.pool([clitest.golden_value(g["per_frame"][i][k]) for i in want])
            for stat, v in want_pool.items():
                ck.check(clitest.same(r[1][k][stat], v), "subsample %d pooled %s %s: %r, expected %r"
                         % (n, k, stat, r[1][k][stat], v))

    # --subsample with --frame_cnt: frame_cnt counts frames read, as libvmaf
    r = run_json(ck, base + ["--subsample", "2", "--frame_cnt", "3"], "subsample + frame_cnt")
    if r:
        ck.check([num for num, _ in r[0]] == [0, 2], "subsample 2 frame_cnt 3: frameNum")


def test_precision(ck):
    g = golden(ck, "yuv420p_176x144")
    base = clitest.golden_args(ck.data, g)
    for prec, fmt in (("3", "%.3f"), ("0", "%.0f"), ("10", "%.10f"), ("max", "%.17g"), (None, "%.6f")):
        args = base + ["--csv", "-o", "-"] + (["--precision", prec] if prec else [])
        p = ck.run_ok(args, "precision %s" % prec)
        if p.returncode:
            continue
        lines = p.stdout.decode().splitlines()
        for i, line in enumerate(lines[1:]):
            cells = line.split(",")
            want = [str(i)] + [fmt % g["per_frame"][i][k] for k in clitest.KEYS4] + [""]
            ck.check(cells == want, "precision %s row %d: %s, expected %s" % (prec, i, cells, want))
        ck.check(len(lines) == 6, "precision %s: %d lines" % (prec, len(lines)))
    # the pooled values follow the same formatter
    p = ck.run_ok(base + ["--xml", "--precision", "2", "-o", "-"], "precision 2 xml")
    if not p.returncode:
        m = re.search(r'<metric name="psnr_hvs_y" min="([^"]*)" max="([^"]*)" mean="([^"]*)"',
                      p.stdout.decode())
        ck.check(m is not None and m.group(3) == "%.2f" % g["pooled"]["psnr_hvs_y"]["mean"],
                 "precision 2: pooled mean")


def test_features(ck):
    # enable_chroma=false: luma only, psnr_hvs == psnr_hvs_y, same luma bits as with chroma
    for name in ("yuv420p_176x144", "yuv444p10_176x144", "yuv422p10_176x144_y4m", "yuv420p_23x17"):
        g = golden(ck, name)
        r = run_json(ck, clitest.golden_args(ck.data, g) + ["--feature", "psnr_hvs=enable_chroma=false"],
                     "enable_chroma=false " + name)
        if not r:
            continue
        frames, pooled = r
        ck.check(len(frames) == g["frames"], "enable_chroma=false %s: frame count" % name)
        for (num, m), gf in zip(frames, g["per_frame"]):
            ck.check(sorted(m) == ["psnr_hvs", "psnr_hvs_y", "raw_y"],
                     "enable_chroma=false %s: keys %s" % (name, sorted(m)))
            ck.check(m.get("psnr_hvs") == m.get("psnr_hvs_y") == gf["psnr_hvs_y"],
                     "enable_chroma=false %s frame %d: psnr_hvs %r, y %r, golden y %r"
                     % (name, num, m.get("psnr_hvs"), m.get("psnr_hvs_y"), gf["psnr_hvs_y"]))
            ck.check(m.get("raw_y") == gf["raw_y"], "enable_chroma=false %s: raw_y" % name)
        ck.check(sorted(pooled) == ["psnr_hvs", "psnr_hvs_y"], "enable_chroma=false: pooled keys")
        ck.check(pooled.get("psnr_hvs") == pooled.get("psnr_hvs_y"), "enable_chroma=false: pooled equal")
    # explicit defaults give the golden bits
    g = golden(ck, "yuv420p_97x61")
    r = run_json(ck, clitest.golden_args(ck.data, g) +
                 ["--feature", "psnr_hvs=enable_chroma=true:mask_product=float"], "explicit defaults")
    if r:
        clitest.compare_frames(ck, "explicit defaults", g, r[0])

    # mask_product=exact differs from libvmaf's float product on some frames, not on all
    differ = same_count = 0
    for g in clitest.load_goldens(ck.data):
        r = run_json(ck, clitest.golden_args(ck.data, g) + ["--feature", "psnr_hvs=mask_product=exact"],
                     "mask_product=exact " + g["name"])
        if not r:
            continue
        for (num, m), gf in zip(r[0], g["per_frame"]):
            for raw in clitest.RAW3:
                if gf.get(raw) is None:
                    continue
                if m.get(raw) == gf[raw]:
                    same_count += 1
                else:
                    differ += 1
    ck.check(differ > 0, "mask_product=exact never differs from float")
    ck.check(same_count > 0, "mask_product=exact always differs from float")


def test_misc(ck):
    g = golden(ck, "yuv420p10_176x144")
    base = clitest.golden_args(ck.data, g)
    for args in (["--threads", "1"], ["--threads", "2"], ["--threads", "0"], ["--backend", "cpu"],
                 ["--isa", "scalar"], ["--isa", "auto"], ["-n"], ["--no_prediction"], ["--device", "0"]):
        r = run_json(ck, base + args, " ".join(args))
        if r:
            clitest.compare_frames(ck, " ".join(args), g, r[0])
            clitest.compare_pooled(ck, " ".join(args), g, r[1])

    # -q: nothing on stderr, results unchanged
    p = ck.run_ok(base + ["-q", "--json", "--precision", "max", "-o", "-"], "-q")
    ck.check(p.stderr == b"", "-q: stderr not empty: %r" % p.stderr)
    # a warning when one input is shorter, silenced by -q
    short = clitest.golden_args(ck.data, golden(ck, "yuv420p_176x144"))
    ident = os.path.join(ck.data, "identical_yuv420p_176x144.yuv")
    longer = short[:2] + ["-d", ident] + short[4:]
    p = ck.run_ok(longer, "different lengths")
    ck.check(b"ended before" in p.stderr, "different lengths: no warning: %r" % p.stderr)
    p = ck.run_ok(longer + ["-q"], "different lengths -q")
    ck.check(p.stderr == b"", "different lengths -q: stderr %r" % p.stderr)

    p = ck.run_ok(["--version"], "--version")
    ck.check(re.match(rb"^psnrhvs \d+\.\d+\.\d+", p.stdout) is not None, "--version: %r" % p.stdout)
    p = ck.run_ok(["-v"], "-v")
    ck.check(p.stdout.startswith(b"psnrhvs "), "-v: %r" % p.stdout)
    p = ck.run_ok(["--help"], "--help")
    for opt in (b"--reference", b"--distorted", b"--precision", b"--feature", b"--subsample", b"--raw"):
        ck.check(opt in p.stdout, "--help does not mention %s" % opt.decode())
    p = ck.run_ok(["--list-devices"], "--list-devices")
    ck.check(p.stdout.startswith(b"cpu"), "--list-devices: %r" % p.stdout)
    p = ck.run_ok(["--list-devices", "-v"], "--list-devices -v")

    # a backend that is not built in is an error, not a silent CPU run
    listing = ck.run(["--list-devices"]).stdout.decode()
    for b in ("cuda", "opencl", "hip", "sycl", "vulkan"):
        if ("%s: not built in" % b) in listing:
            p = ck.run(base + ["--backend", b])
            ck.check(p.returncode == 1 and p.stderr.startswith(b"psnrhvs: ") and b.encode() in p.stderr,
                     "--backend %s (not built): exit %d, %r" % (b, p.returncode, p.stderr))

    # without -o: a summary of the pooled values on stdout
    g8 = golden(ck, "yuv420p_176x144")
    p = ck.run_ok(clitest.golden_args(ck.data, g8), "summary")
    out = p.stdout.decode()
    for k in clitest.KEYS4:
        line = [l for l in out.splitlines() if l.split() and l.split()[0] == k]
        ck.check(len(line) == 1 and ("%.6f" % g8["pooled"][k]["mean"]) in line[0],
                 "summary line for %s: %r" % (k, out))
    # a format without -o writes that format to stdout
    p = ck.run_ok(clitest.golden_args(ck.data, g8) + ["--csv"], "--csv without -o")
    ck.check(p.stdout.startswith(b"Frame,psnr_hvs_y,"), "--csv without -o: %r" % p.stdout[:40])


def test_stdin(ck):
    d = ck.data
    g = golden(ck, "yuv420p10_176x144_y4m")
    with open(os.path.join(d, g["reference"]), "rb") as f:
        r = run_json(ck, ["-r", "-", "-d", os.path.join(d, g["distorted"])], "y4m ref on stdin", stdin=f)
    if r:
        clitest.compare_frames(ck, "y4m ref on stdin", g, r[0])
    with open(os.path.join(d, g["distorted"]), "rb") as f:
        r = run_json(ck, ["-r", os.path.join(d, g["reference"]), "-d", "-"], "y4m dist on stdin", stdin=f)
    if r:
        clitest.compare_frames(ck, "y4m dist on stdin", g, r[0])
    g = golden(ck, "yuv420p_97x61")
    with open(os.path.join(d, g["distorted"]), "rb") as f:
        r = run_json(ck, ["-r", os.path.join(d, g["reference"]), "-d", "-", "-w", "97", "-h", "61"],
                     "raw dist on stdin", stdin=f)
    if r:
        clitest.compare_frames(ck, "raw dist on stdin", g, r[0])
    # a pipe gives short reads: feed it through a subprocess pipe as well
    with open(os.path.join(d, g["reference"]), "rb") as f:
        data = f.read()
    r = run_json(ck, ["-r", "-", "-d", os.path.join(d, g["distorted"]), "-w", "97", "-h", "61"],
                 "raw ref piped", input_bytes=data)
    if r:
        clitest.compare_frames(ck, "raw ref piped", g, r[0])


def test_mixed(ck):
    d = ck.data
    g = golden(ck, "yuv420p_176x144")
    y4m = os.path.join(d, "yuv420p_176x144_ref.y4m")
    raw = os.path.join(d, "yuv420p_176x144_dist.yuv")
    for extra in ([], ["-w", "176", "-h", "144", "-p", "420", "-b", "8"]):
        r = run_json(ck, ["-r", y4m, "-d", raw] + extra, "y4m ref + raw dist %s" % extra)
        if r:
            clitest.compare_frames(ck, "y4m + raw %s" % extra, g, r[0])
    g = golden(ck, "yuv444p_176x144")
    r = run_json(ck, ["-r", os.path.join(d, "yuv444p_176x144_ref.yuv"),
                      "-d", os.path.join(d, "yuv444p_176x144_dist.y4m")], "raw ref + y4m dist 444")
    if r:
        clitest.compare_frames(ck, "raw + y4m 444", g, r[0])


def test_files(ck):
    """-o replaces an existing file, with the usual permissions, and leaves no temporary file."""
    g = golden(ck, "yuv420p_176x144")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "scores.xml")
        with open(out, "w") as f:
            f.write("old\n")
        ck.run_ok(clitest.golden_args(ck.data, g) + ["-o", out], "-o over an existing file")
        with open(out) as f:
            ck.check(f.read().startswith("<VMAF version="), "-o: existing file not replaced")
        ck.check(os.listdir(tmp) == ["scores.xml"], "-o: stray files %s" % os.listdir(tmp))
        mask = os.umask(0)
        os.umask(mask)
        mode = os.stat(out).st_mode & 0o777
        ck.check(mode == 0o666 & ~mask, "-o: mode %o, expected %o" % (mode, 0o666 & ~mask))


def test_progress(ck):
    """On a terminal, a progress line on stderr; none with -q."""
    try:
        import pty
    except ImportError:
        return
    g = golden(ck, "yuv420p_176x144")
    for quiet in (False, True):
        master, slave = pty.openpty()
        try:
            proc = subprocess.run([ck.psnrhvs] + [str(a) for a in clitest.golden_args(ck.data, g)] +
                                  (["-q"] if quiet else []), stdout=subprocess.PIPE, stderr=slave,
                                  timeout=300)
            os.close(slave)
            slave = None
            err = b""
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                err += chunk
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)
        ck.check(proc.returncode == 0, "progress run (quiet=%s)" % quiet)
        if quiet:
            ck.check(b"frames" not in err, "-q on a terminal: progress shown: %r" % err)
        else:
            ck.check(b"5 frames" in err and b"fps" in err, "no progress line on a terminal: %r" % err)
            check_progress_lines(ck, err, "progress")


def check_progress_lines(ck, err, what):
    """Each rewrite of the line clears what a longer one left (ESC [K), and only the last ends it."""
    parts = [x for x in err.split(b"\r") if x.strip()]  # a pty writes "\n" as "\r\n"
    ck.check(len(parts) >= 1 and all(x.startswith(b"psnrhvs: ") and
                                     x.rstrip(b"\n").endswith(b"\x1b[K") for x in parts),
             "%s: a line without clear-to-end: %r" % (what, err))
    ck.check(err.endswith(b"\x1b[K\r\n") or err.endswith(b"\x1b[K\n"),
             "%s: the last line is not ended: %r" % (what, err))


def test_progress_total(ck):
    """A known frame count (the reference's file size) gives frame N/M and an ETA while
    frames come slowly through a pipe."""
    try:
        import pty
    except ImportError:
        return
    g = golden(ck, "yuv420p_176x144")
    with open(os.path.join(ck.data, g["distorted"]), "rb") as f:
        data = f.read()
    fb = 38016
    master, slave = pty.openpty()
    proc = subprocess.Popen([ck.psnrhvs, "-r", os.path.join(ck.data, g["reference"]), "-d", "-",
                             "-w", "176", "-h", "144"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    for i in range(5):
        proc.stdin.write(data[i * fb:(i + 1) * fb])
        proc.stdin.flush()
        time.sleep(0.35)
    proc.stdin.close()
    proc.wait(timeout=60)
    proc.stdout.close()
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    ck.check(proc.returncode == 0, "progress with total: exit %d" % proc.returncode)
    ck.check(re.search(rb"frame [234]/5, [0-9.]+ fps, ETA \d+:\d\d\x1b\[K", err) is not None,
             "progress with total: no 'frame N/5, fps, ETA': %r" % err)
    ck.check(b"5 frames" in err, "progress with total: no final line: %r" % err)
    check_progress_lines(ck, err, "progress with total")


def test_vmaf_flags(ck):
    """vmaf's flags: --sub, 0 meaning off, --cpumask, --gpumask, --aom_ctc, and no abbreviations."""
    g = golden(ck, "yuv420p_176x144")
    base = clitest.golden_args(ck.data, g)
    ref = ck.run_ok(base + ["--csv", "--precision", "max", "-o", "-"], "reference run").stdout

    # --sub without -o: libvmaf's subtitle lines on stdout, one per frame
    p = ck.run_ok(base + ["--sub"], "--sub")
    lines = p.stdout.decode().splitlines()
    ck.check(len(lines) == 5 and all(l.startswith("{%d}{%d}frame: %d|psnr_hvs_y: " % (i, i + 1, i))
                                     and l.endswith("|") for i, l in enumerate(lines)),
             "--sub: %r" % lines)
    ck.check(lines and ("psnr_hvs: %.6f|" % g["per_frame"][0]["psnr_hvs"]) in lines[0], "--sub values")
    # ... and its raw/precision variants stay one line per frame
    p = ck.run_ok(base + ["--sub", "--raw", "--precision", "max"], "--sub --raw")
    ck.check(p.stdout.count(b"\n") == 5 and b"|raw_cr: 0x" in p.stdout, "--sub --raw: %r" % p.stdout[:200])

    # 0 is "off" for --subsample and --frame_cnt, as in vmaf
    for args in (["--subsample", "0"], ["--frame_cnt", "0"], ["--subsample", "0", "--frame_cnt", "0"]):
        p = ck.run_ok(base + args + ["--csv", "--precision", "max", "-o", "-"], " ".join(args))
        ck.check(p.stdout == ref, "%s: not every frame: %r" % (" ".join(args), p.stdout[:100]))

    # --cpumask: the same bits whatever is turned off; the summary says what ran.
    # The bits depend on the CPU, as in vmaf: on AArch64 (the default run is
    # cpu:neon) bit 0 is NEON and the x86 bits change nothing.
    default = ck.run_ok(base, "summary").stdout.split(b"\n")[0]
    if default.endswith(b", cpu:neon"):
        masks = (("0", None), ("1", ("scalar",)), ("0x1", ("scalar",)), ("7", ("scalar",)),
                 ("16", None), ("8", None), ("0x18", None), ("32", None))
    else:
        masks = (("0", None), ("16", ("avx2", "scalar")), ("0x10", ("avx2", "scalar")),
                 ("8", ("scalar",)), ("0x18", ("scalar",)), ("010", ("scalar",)),
                 ("7", None), ("32", None))
    for mask, isas in masks:
        p = ck.run_ok(base + ["--cpumask", mask, "--csv", "--precision", "max", "-o", "-"],
                      "--cpumask " + mask)
        ck.check(p.stdout == ref, "--cpumask %s: different scores" % mask)
        first = ck.run_ok(base + ["--cpumask", mask], "--cpumask summary").stdout.split(b"\n")[0]
        if isas is None:  # bits psnrhvs has no kernels for change nothing
            ck.check(first == default, "--cpumask %s: %r, expected %r" % (mask, first, default))
        else:
            ck.check(any(first.endswith(b", cpu:" + i.encode()) for i in isas),
                     "--cpumask %s: ran %r, expected cpu:%s" % (mask, first, "/".join(isas)))
    p = ck.run_ok(base + ["--cpumask", "16", "--isa", "scalar"], "--cpumask with --isa scalar")
    ck.check(p.stdout.split(b"\n")[0].endswith(b", cpu:scalar"), "--isa wins: %r" % p.stdout[:60])

    # --gpumask and --aom_ctc: one warning line (none with -q), the same scores
    for args, phrase in ((["--gpumask", "1"], b"--gpumask has no effect"),
                         (["--gpumask", "0"], b"--gpumask has no effect"),
                         (["--aom_ctc", "v1.0"], b"--aom_ctc v1.0: only its psnr_hvs (default options) "
                                                 b"is computed, not its VMAF models, psnr, ciede, "
                                                 b"float_ssim, float_ms_ssim\n"),
                         (["--aom_ctc", "v7.0"], b"float_ms_ssim, cambi\n")):
        p = ck.run_ok(base + args + ["--csv", "--precision", "max", "-o", "-"], " ".join(args))
        ck.check(p.stdout == ref, "%s: different scores" % " ".join(args))
        ck.check(p.stderr.count(b"\n") == 1 and p.stderr.startswith(b"psnrhvs: warning: ") and
                 phrase in p.stderr, "%s: stderr %r" % (" ".join(args), p.stderr))
        p = ck.run_ok(base + args + ["-q", "--csv", "-o", "-"], " ".join(args) + " -q")
        ck.check(p.stderr == b"", "%s -q: stderr %r" % (" ".join(args), p.stderr))

    # whole option names work, with = too
    p = ck.run_ok(base + ["--subsample=2", "--frame_cnt=3", "--csv", "-o", "-"], "--opt=value")
    ck.check(p.stdout.count(b"\n") == 3, "--subsample=2 --frame_cnt=3: %r" % p.stdout)


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    test_frame_selection(ck)
    test_precision(ck)
    test_features(ck)
    test_misc(ck)
    test_stdin(ck)
    test_mixed(ck)
    test_files(ck)
    test_progress(ck)
    test_progress_total(ck)
    test_vmaf_flags(ck)
    ck.finish()


if __name__ == "__main__":
    main()
