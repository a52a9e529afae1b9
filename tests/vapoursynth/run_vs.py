#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The VapourSynth plugin under VapourSynth R65 (cmake/vapoursynth/build-vs.sh).

    run_vs.py PLUGIN TEST_SOURCE CLI DATA_DIR

Every golden fixture (the float and exact mask products, the stress pairs)
goes in as frames written from numpy through std.BlankClip + std.ModifyFrame
(the two of odd 4:2:0 sizes, which BlankClip refuses, through the test
source plugin test_source.c);
the plugin's _PSNRHVS* properties must hold the golden doubles bit for bit
(struct.pack, never a tolerance). Then: frames fetched in reverse and in
parallel (get_frame_async in shuffled order on 8 VapourSynth threads, and
Python threads) give the same bits; luma only (chroma=0) against the CLI's
--json --precision max; the identifier and namespace; the clip returned is
the distorted one; each error of the create function and a sample out of
range at get_frame. Exit 77 (skipped) without the VapourSynth install.
"""
import concurrent.futures
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

PLUGIN, SOURCE, CLI, DATA = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])

try:
    import numpy as np
    import vapoursynth as vs
except ImportError as e:  # run_vs.cmake sets PYTHONPATH; a missing install skips
    print(f"SKIP: cannot import {e.name}: build VapourSynth with cmake/vapoursynth/build-vs.sh "
          f"({e})")
    sys.exit(77)

core = vs.core
core.num_threads = 8  # more requests at once than this machine's cores
core.std.LoadPlugin(PLUGIN)
core.std.LoadPlugin(SOURCE)
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def same(a, b):
    """Bit-for-bit equality of two doubles."""
    return struct.pack("<d", a) == struct.pack("<d", b)


def fmt_of(pf, depth):
    if pf == "400":
        return core.query_video_format(vs.GRAY, vs.INTEGER, depth, 0, 0)
    ss = {"420": (1, 1), "422": (1, 0), "444": (0, 0)}[pf]
    return core.query_video_format(vs.YUV, vs.INTEGER, depth, *ss)


def read_frames(path, g):
    """Stored planes of each frame (chroma rounded up, as FFmpeg writes them)."""
    w, h, pf, depth = g["width"], g["height"], g["pixel_format"], g["bitdepth"]
    dt = np.dtype("<u2") if depth > 8 else np.dtype(np.uint8)
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h),
              "444": (w, h), "400": (0, 0)}[pf]
    shapes = [(h, w)] + ([(ch, cw)] * 2 if pf != "400" else [])
    raw = np.fromfile(path, dtype=np.uint8)
    pos = raw.tobytes().index(b"\n") + 1 if g["container"] == "y4m" else 0
    frames = []
    while pos < raw.size:
        if g["container"] == "y4m":
            pos += raw[pos:pos + 64].tobytes().index(b"\n") + 1
        planes = []
        for sh in shapes:
            n = sh[0] * sh[1] * dt.itemsize
            planes.append(raw[pos:pos + n].view(dt).reshape(sh).astype(dt.newbyteorder("=")))
            pos += n
        frames.append(planes)
    return frames


def make_clip(frames, fmt, w, h, props=None):
    """A clip whose frame n holds frames[n]: VapourSynth's planes are libvmaf's
    scored sizes (chroma rounded down), the top-left of the stored ones."""
    blank = core.std.BlankClip(width=w, height=h, format=fmt.id, length=len(frames))

    def fill(n, f):
        out = f.copy()
        for p in range(fmt.num_planes):
            dst = np.asarray(out[p])
            dst[:] = frames[n][p][:dst.shape[0], :dst.shape[1]]
        if props:
            for k, v in props.items():
                out.props[k] = v
        return out
    return core.std.ModifyFrame(blank, blank, fill)


def golden_sets():
    for folder, mask in (("golden", "float"), ("golden-exact", "exact"),
                         ("stress/golden", "float"), ("stress/golden-exact", "exact")):
        for p in sorted((DATA / folder).glob("*.json")):
            g = json.loads(p.read_text())
            g["_dir"] = p.parent.parent
            g["_mask"] = mask
            yield g


KEYS = (("_PSNRHVS_Y", "psnr_hvs_y"), ("_PSNRHVS_CB", "psnr_hvs_cb"),
        ("_PSNRHVS_CR", "psnr_hvs_cr"), ("_PSNRHVS", "psnr_hvs"))


def check_frame(props, gf, luma_only, what):
    for prop, key in KEYS:
        if luma_only and prop in ("_PSNRHVS_CB", "_PSNRHVS_CR"):
            check(prop not in props, f"{what}: {prop} set for a luma-only score")
            continue
        # JSON's null is +inf (identical frames), as in the CLI's JSON.
        want = float("inf") if gf[key] is None else float(gf[key])
        got = props.get(prop)
        check(isinstance(got, float) and same(got, want),
              f"{what}: {prop} is {got!r}, the golden value {want!r}")


def metric(ref, dist, **kw):
    return core.psnrhvs.Metric(ref, dist, **kw)


# ---- identity -------------------------------------------------------------
plugin = core.psnrhvs
check(plugin.identifier == "com.psnrhvs.psnrhvs", f"identifier {plugin.identifier}")
check(plugin.namespace == "psnrhvs", f"namespace {plugin.namespace}")
check(any(p.identifier == "com.psnrhvs.psnrhvs" for p in core.plugins()),
      "not listed by core.plugins()")

# ---- every golden fixture -------------------------------------------------
fixtures = odd = 0
clips = {}
for g in golden_sets():
    fmt = fmt_of(g["pixel_format"], g["bitdepth"])
    R = read_frames(g["_dir"] / g["reference"], g)
    D = read_frames(g["_dir"] / g["distorted"], g)
    check(len(R) == len(D) == len(g["per_frame"]), f"{g['name']}: frame count")
    w, h = g["width"], g["height"]
    if w % (1 << fmt.subsampling_w) or h % (1 << fmt.subsampling_h):
        # BlankClip and ShufflePlanes want sizes divisible by the chroma
        # subsampling: the test source plugin makes these clips.
        ref = core.psnrhvstest.Raw(str(g["_dir"] / g["reference"]), w, h, fmt.id)
        dist = core.psnrhvstest.Raw(str(g["_dir"] / g["distorted"]), w, h, fmt.id)
        odd += 1
    else:
        ref = make_clip(R, fmt, w, h)
        dist = make_clip(D, fmt, w, h, props={"MyProp": 7})
    kw = {"mask_product": "exact"} if g["_mask"] == "exact" else {}
    m = metric(ref, dist, **kw)
    luma_only = g["pixel_format"] == "400"
    for n in range(m.num_frames):
        f = m.get_frame(n)
        check_frame(f.props, g["per_frame"][n], luma_only, f"{g['name']} frame {n}")
    if g["_mask"] == "float" and g["name"] not in clips:
        clips[g["name"]] = (ref, dist, g, D, fmt)
    fixtures += 1
check(fixtures >= 40, f"only {fixtures} fixtures found")
check(odd >= 2, f"{odd} fixtures of odd 4:2:0 sizes, expected 23x17 and 97x61")
print(f"golden: {fixtures} fixtures ({odd} through psnrhvstest.Raw)")

# ---- the clip returned is the distorted one, its properties kept ----------
ref, dist, g, D, fmt = clips["yuv420p10_176x144"]
m = metric(ref, dist)
check(m.format.id == dist.format.id and m.num_frames == dist.num_frames and
      (m.width, m.height) == (dist.width, dist.height), "output clip geometry")
for n in range(m.num_frames):
    f, fd = m.get_frame(n), dist.get_frame(n)
    for p in range(fmt.num_planes):
        check(np.array_equal(np.asarray(f[p]), np.asarray(fd[p])), f"frame {n} plane {p} changed")
    check(f.props.get("MyProp") == 7, f"frame {n}: the distorted frame's property is lost")

# ---- reverse and parallel -------------------------------------------------
ref, dist, g, D, fmt = clips["yuv420p_176x144"]
loops = 40
long_ref, long_dist = ref * loops, dist * loops
n_frames = long_ref.num_frames
m = metric(long_ref, long_dist)
for n in reversed(range(n_frames)):
    check_frame(m.get_frame(n).props, g["per_frame"][n % len(g["per_frame"])], False, f"reverse {n}")
order = list(range(n_frames))
random.Random(25).shuffle(order)
m = metric(long_ref, long_dist)  # a new instance: nothing cached
futures = {n: m.get_frame_async(n) for n in order}
for n, fut in futures.items():
    check_frame(fut.result().props, g["per_frame"][n % len(g["per_frame"])], False, f"async {n}")
m = metric(long_ref, long_dist, backend="cpu")
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    got = list(ex.map(lambda n: (n, dict(m.get_frame(n).props)), order))
for n, props in got:
    check_frame(props, g["per_frame"][n % len(g["per_frame"])], False, f"threads {n}")
print(f"reverse and parallel: {n_frames} frames x 3")

# ---- luma only and the CLI --------------------------------------------------
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "luma.json")
    subprocess.run([CLI, "-r", str(DATA / g["reference"]), "-d", str(DATA / g["distorted"]),
                    "-w", "176", "-h", "144", "--feature", "psnr_hvs=enable_chroma=false",
                    "--json", "--precision", "max", "-q", "-o", out], check=True)
    cli = json.load(open(out))["frames"]
m = metric(ref, dist, chroma=0)
for n in range(m.num_frames):
    props = m.get_frame(n).props
    want = {k: v for k, v in cli[n]["metrics"].items()}
    check_frame(props, {**want, "psnr_hvs_cb": None, "psnr_hvs_cr": None}, True, f"luma {n}")
print("luma only: the CLI's bits")

# ---- an 8-bit source against a 10-bit encode: resize.Point as --common_bitdepth ----
ref8, _, g8, _, _ = clips["yuv420p_176x144"]
_, dist10, g10, D10, fmt10 = clips["yuv420p10_176x144"]
up = core.resize.Point(ref8, format=fmt10.id)[:g10["frames"]]
for n in range(up.num_frames):
    a = np.asarray(up.get_frame(n)[0]).astype(np.uint16)
    b = np.asarray(ref8.get_frame(n)[0]).astype(np.uint16) << 2
    check(np.array_equal(a, b), f"resize.Point 8 -> 10 bits is not v << 2 (frame {n})")
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "cb.json")
    subprocess.run([CLI, "-r", str(DATA / "yuv420p_176x144_ref.y4m"), "-d",
                    str(DATA / "yuv420p10_176x144_dist.y4m"), "--common_bitdepth", "--json",
                    "--precision", "max", "-q", "-o", out], check=True)
    cli = json.load(open(out))["frames"]
m = metric(up, dist10)
for n in range(m.num_frames):
    check_frame(m.get_frame(n).props, cli[n]["metrics"], False, f"common_bitdepth {n}")
print("resize.Point to 10 bits: the CLI's --common_bitdepth bits")

# ---- errors -----------------------------------------------------------------


def expect_error(fn, words, what):
    try:
        clip = fn()
        clip.get_frame(0)
    except vs.Error as e:
        msg = str(e)
        check(all(w in msg for w in words), f"{what}: message {msg!r} lacks {words}")
        return msg
    check(False, f"{what}: no error")
    return ""


def blank(fmt_id=vs.YUV420P8, w=64, h=48, length=4):
    return core.std.BlankClip(width=w, height=h, format=fmt_id, length=length)


a = blank()
errors = [
    (lambda: metric(a, blank(w=32)), ["differ in size", "64x48 vs 32x48"], "size"),
    (lambda: metric(a, blank(vs.YUV444P8)), ["differ in format", "YUV420P8", "YUV444P8"],
     "format"),
    (lambda: metric(a, blank(vs.YUV420P10)), ["differ in format"], "depth"),
    (lambda: metric(a, blank(length=5)), ["differ in length", "4 vs 5"], "length"),
    (lambda: metric(blank(vs.RGB24), blank(vs.RGB24)), ["RGB24 is not supported"], "RGB"),
    (lambda: metric(blank(vs.YUV420P16), blank(vs.YUV420P16)), ["16-bit", "8, 10 or 12"], "16"),
    (lambda: metric(blank(vs.YUV420P9), blank(vs.YUV420P9)), ["9-bit"], "9-bit"),
    (lambda: metric(blank(vs.YUV444PS), blank(vs.YUV444PS)), ["integer samples"], "float"),
    (lambda: metric(blank(vs.YUV410P8), blank(vs.YUV410P8)), ["4:2:0, 4:2:2 or 4:4:4"], "410"),
    (lambda: metric(core.std.Splice([blank(), blank(w=32)], mismatch=True),
                    core.std.Splice([blank(), blank(w=32)], mismatch=True)),
     ["constant format and size"], "variable"),
    (lambda: metric(a, a, backend="metal"), ["unknown backend 'metal'"], "backend"),
    (lambda: metric(a, a, mask_product="fast"), ["unknown mask_product 'fast'"], "mask"),
    (lambda: metric(a, a, device=-1), ["device"], "device"),
    (lambda: metric(blank(w=6, h=6), blank(w=6, h=6)), ["cannot open", "8x8"], "too small"),
    (lambda: metric(blank(w=12, h=12), blank(w=12, h=12)), ["cannot open"], "small chroma"),
]
for fn, words, what in errors:
    print(f"error {what}: {expect_error(fn, words, what)}")
for b in ("cuda", "hip", "sycl"):  # not built into this tree (or no device): an error, not a crash
    try:
        metric(a, a, backend=b).get_frame(0)
    except vs.Error as e:
        check(f"cannot open the {b} scorer" in str(e), f"backend {b}: {e}")
        print(f"error {b}: {e}")

# A sample above the bit depth: an error of that frame, the others scored.
ten = fmt_of("420", 10)
frames = [[np.full((48, 64), 100, np.uint16), np.full((24, 32), 512, np.uint16),
           np.full((24, 32), 512, np.uint16)] for _ in range(3)]
bad = [[p.copy() for p in fr] for fr in frames]
bad[1][1][5, 3] = 1024
m = metric(make_clip(frames, ten, 64, 48), make_clip(bad, ten, 64, 48))
check(m.get_frame(0).props["_PSNRHVS"] > 0, "frame 0 of the out-of-range clip")
try:
    m.get_frame(1)
    check(False, "a 10-bit sample of 1024 was scored")
except vs.Error as e:
    check("frame 1" in str(e), f"out of range: {e}")
    print(f"error out of range: {e}")

print(f"{checks} checks, {len(failures)} failed")
sys.exit(1 if failures else 0)
