# SPDX-License-Identifier: BSD-2-Clause
"""Raw and Y4M files: the CLI's options give the CLI's bits, the CLI's errors
give exceptions with the CLI's words."""
import os
import re
import shutil
import warnings

import numpy as np

import pytest

import psnrhvs
from conftest import DATA, GOLDENS, assert_same_result, cli_args, golden_options, golden_paths

pytestmark = pytest.mark.usefixtures("lib")

G = {g["name"]: g for g in GOLDENS}
Y4M = G["yuv420p_176x144_y4m"]
RAW = G["yuv420p_176x144"]


def flags(opts):
    """score_files() keywords as CLI flags."""
    out = []
    feature = []
    for k, v in opts.items():
        if k == "enable_chroma":
            feature.append(f"enable_chroma={'true' if v else 'false'}")
        elif k == "mask_product":
            feature.append(f"mask_product={v}")
        else:
            out += [f"--{k}", str(v)]
    if feature:
        out += ["--feature", "psnr_hvs=" + ":".join(feature)]
    return out


@pytest.mark.parametrize("opts", [
    dict(subsample=2),
    dict(frame_cnt=3),
    dict(frame_skip_ref=1, frame_skip_dist=1),
    dict(frame_skip_dist=2, frame_cnt=2, subsample=2),
    dict(enable_chroma=False),
    dict(mask_product="exact"),
    dict(isa="scalar", threads=1),
    dict(threads=2),
], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("g", [Y4M, G["yuv420p10_176x144"], G["yuv422p10_176x144_y4m"]],
                         ids=lambda g: g["name"])
def test_options_same_as_cli(g, opts, psnrhvs_cli, tmp_path):
    ref, dist = golden_paths(g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", psnrhvs.PsnrHvsWarning)  # skips leave extra frames
        mine = psnrhvs.score_files(ref, dist, **golden_options(g), **opts)
    theirs, _ = psnrhvs_cli.json(tmp_path, *cli_args(g), *flags(opts))
    assert_same_result(mine, theirs)
    assert len(mine.frames) > 0


def test_y4m_and_raw_sides(psnrhvs_cli, tmp_path):
    """One side Y4M, the other raw: the raw side takes the Y4M geometry."""
    ref = DATA / Y4M["reference"]
    dist = DATA / RAW["distorted"]
    mine = psnrhvs.score_files(ref, dist)
    theirs, _ = psnrhvs_cli.json(tmp_path, "-r", ref, "-d", dist)
    assert_same_result(mine, theirs)


def test_identical_is_inf():
    g = G["identical_yuv420p_176x144"]
    r = psnrhvs.score_files(*golden_paths(g), **golden_options(g))
    assert all(f.psnr_hvs == float("inf") and f.raw_y == 0.0 for f in r.frames)
    assert r.pooled["psnr_hvs"].harmonic_mean == float("inf")
    assert '"psnr_hvs": null' in r.to_json()


def test_longer_input_warns(tmp_path, psnrhvs_cli):
    """Extra frames of the longer side are ignored with the CLI's warning."""
    g = RAW
    ref, dist = golden_paths(g)
    short = tmp_path / "short.yuv"
    data = open(dist, "rb").read()
    short.write_bytes(data[:len(data) * 3 // 5])  # 3 of 5 frames
    opts = golden_options(g)
    with pytest.warns(psnrhvs.PsnrHvsWarning) as w:
        r = psnrhvs.score_files(ref, short, **opts)
    assert len(r.frames) == 3
    p = psnrhvs_cli.run(*cli_args(g)[:2], "-d", short, "-w", 176, "-h", 144)
    assert str(w[0].message) in p.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        psnrhvs.score_files(ref, short, quiet=True, **opts)


def cut(src, dst, nbytes):
    data = open(src, "rb").read()
    dst.write_bytes(data[:len(data) - nbytes])
    return dst


def edit_header(src, dst, old, new):
    data = open(src, "rb").read()
    assert old in data
    dst.write_bytes(data.replace(old, new, 1))
    return dst


Y4M_REF = DATA / Y4M["reference"]
Y4M_DIST = DATA / Y4M["distorted"]


# (name, make(tmp_path) -> CLI/score_files arguments, exception class)
ERROR_CASES = [
    ("truncated_raw", lambda t: (golden_paths(RAW)[0], cut(golden_paths(RAW)[1], t / "d.yuv", 100),
                                 golden_options(RAW)), psnrhvs.TruncatedFrameError),
    ("truncated_y4m", lambda t: (Y4M_REF, cut(Y4M_DIST, t / "d.y4m", 500), {}),
     psnrhvs.TruncatedFrameError),
    ("truncated_frame_header", lambda t: (Y4M_REF, t.joinpath("d.y4m").write_bytes(
        open(Y4M_DIST, "rb").read() + b"FRA") and t / "d.y4m", {}),
     psnrhvs.TruncatedFrameError),
    ("bad_frame_header", lambda t: (Y4M_REF, t.joinpath("d.y4m").write_bytes(
        open(Y4M_DIST, "rb").read().replace(b"FRAME\n", b"FRAMX\n")) and t / "d.y4m", {}),
     psnrhvs.MalformedY4MError),
    ("y4m_name_without_magic", lambda t: (Y4M_REF, shutil.copy(golden_paths(RAW)[1], t / "d.y4m"),
                                          {}), psnrhvs.MalformedY4MError),
    ("missing_w", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"W176 ", b""), Y4M_DIST, {}),
     psnrhvs.MalformedY4MError),
    ("bad_w", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"W176", b"W17x6"), Y4M_DIST, {}),
     psnrhvs.MalformedY4MError),
    ("huge_w", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"W176", b"W70000"), Y4M_DIST, {}),
     psnrhvs.InputError),
    ("c411", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"C420jpeg", b"C411"), Y4M_DIST, {}),
     psnrhvs.MalformedY4MError),
    ("c420p16", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"C420jpeg", b"C420p16"), Y4M_DIST,
                           {}), psnrhvs.UnsupportedFormatError),
    ("header_too_long", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"C420jpeg",
                                               b"C420jpeg X" + b"x" * 5000), Y4M_DIST, {}),
     psnrhvs.MalformedY4MError),
    ("header_no_newline", lambda t: (t.joinpath("r.y4m").write_bytes(b"YUV4MPEG2 W16 H16")
                                     and t / "r.y4m", Y4M_DIST, {}), psnrhvs.MalformedY4MError),
    ("size_differs", lambda t: (Y4M_REF, DATA / "yuv444p_176x144_dist.y4m", {}),
     psnrhvs.FormatMismatchError),
    ("bitdepth_differs", lambda t: (Y4M_REF, DATA / "yuv420p10_176x144_dist.y4m", {}),
     psnrhvs.FormatMismatchError),
    ("geometry_differs", lambda t: (edit_header(Y4M_REF, t / "r.y4m", b"W176 H144", b"W88 H72"),
                                    Y4M_DIST, {}), psnrhvs.FormatMismatchError),
    ("frame_too_small", lambda t: (t.joinpath("r.yuv").write_bytes(b"\0" * 147) and t / "r.yuv",
                                   t.joinpath("d.yuv").write_bytes(b"\1" * 147) and t / "d.yuv",
                                   dict(width=7, height=7, pixel_format="444")),
     psnrhvs.PlaneTooSmallError),
    ("missing_file", lambda t: (t / "nope.yuv", Y4M_DIST, {}), psnrhvs.InputError),
    ("no_frames", lambda t: (t.joinpath("r.yuv").write_bytes(b"") or t / "r.yuv",
                             t.joinpath("d.yuv").write_bytes(b"") or t / "d.yuv",
                             dict(width=16, height=16)), psnrhvs.InputError),
]


def cli_flags(opts):
    m = {"width": "-w", "height": "-h", "pixel_format": "-p", "bitdepth": "-b"}
    out = []
    for k, v in opts.items():
        out += [m[k], str(v)]
    return out


@pytest.mark.parametrize("name,make,cls", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_input_errors_match_cli(name, make, cls, tmp_path, psnrhvs_cli):
    ref, dist, opts = make(tmp_path)
    msg, status = psnrhvs_cli.error("-r", ref, "-d", dist, *cli_flags(opts))
    assert status == 1
    with pytest.raises(cls) as e:
        psnrhvs.score_files(ref, dist, **opts)
    assert isinstance(e.value, psnrhvs.PsnrHvsError)
    # the option that fixes a mismatch is named as the keyword (scale=True for --scale)
    assert str(e.value) == psnrhvs.files._pythonize(msg)


def test_chroma_too_small(tmp_path, psnrhvs_cli):
    """16x14 4:2:0 has 8x7 chroma: an error unless luma only (hint in Python terms)."""
    ref = tmp_path.joinpath("r.yuv")
    ref.write_bytes((bytes(range(256)) * 2)[:16 * 14 * 3 // 2])
    msg, status = psnrhvs_cli.error("-r", ref, "-d", ref, "-w", 16, "-h", 14)
    with pytest.raises(psnrhvs.PlaneTooSmallError) as e:
        psnrhvs.score_files(ref, ref, width=16, height=14)
    assert str(e.value).split("; use")[0] == msg.split("; use")[0]
    assert "enable_chroma=False" in str(e.value)
    r = psnrhvs.score_files(ref, ref, width=16, height=14, enable_chroma=False)
    assert len(r.frames) == 1 and r.frames[0].psnr_hvs_cb is None


@pytest.mark.parametrize("opts,cls,match", [
    (dict(), psnrhvs.UsageError, "raw input needs width and height"),
    (dict(width=16, height=16, pixel_format="411"), psnrhvs.UsageError, "unknown pixel format"),
    (dict(width=16, height=16, bitdepth=16), psnrhvs.UsageError,
     "bit depth 16 is not supported: 13-16 bits are not"),
    (dict(width=16, height=16, bitdepth=9), psnrhvs.UsageError, r"expected 8, 10 or 12"),
    (dict(width=0, height=16), psnrhvs.UsageError, "invalid width '0'"),
    (dict(width=70000, height=16), psnrhvs.UsageError, "from 1 to 65536"),
    (dict(width=16, height=16, subsample=0), psnrhvs.UsageError, "invalid subsample"),
    (dict(width=16, height=16, frame_cnt=0), psnrhvs.UsageError, "invalid frame_cnt"),
    (dict(width=16, height=16, backend="metal"), psnrhvs.UsageError, "unknown backend"),
    (dict(width=16, height=16, isa="mmx"), psnrhvs.UsageError, "unknown isa"),
    (dict(width=16, height=16, container="mp4"), psnrhvs.UsageError, "unknown container"),
])
def test_usage_errors(opts, cls, match):
    ref, dist = golden_paths(RAW)
    with pytest.raises(cls, match=match) as e:
        psnrhvs.score_files(ref, dist, **opts)
    assert isinstance(e.value, ValueError)


def test_option_disagrees_with_y4m_header():
    with pytest.raises(psnrhvs.FormatMismatchError,
                       match=r"width 160 does not match the Y4M header of .* \(W176\)"):
        psnrhvs.score_files(Y4M_REF, Y4M_DIST, width=160)
    with pytest.raises(psnrhvs.FormatMismatchError, match=r"\(8-bit\)"):
        psnrhvs.score_files(Y4M_REF, Y4M_DIST, bitdepth=10)
    r = psnrhvs.score_files(Y4M_REF, Y4M_DIST, width=176, height=144, pixel_format="420",
                            bitdepth=8)
    assert len(r) == 5


def test_truncated_after_good_frames_is_still_an_error(tmp_path):
    """The frames before a truncation are scored, then the error comes (no result)."""
    ref, dist = golden_paths(RAW)
    bad = cut(dist, tmp_path / "d.yuv", 10)
    with pytest.raises(psnrhvs.TruncatedFrameError, match="truncated frame 4 in"):
        psnrhvs.score_files(ref, bad, **golden_options(RAW))
    r = psnrhvs.score_files(ref, bad, frame_cnt=4, **golden_options(RAW))
    assert len(r) == 4


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc (Linux)")
def test_mapped_pages_are_given_back(tmp_path, monkeypatch):
    """Reading a file through does not keep it resident (Dask's nanny counts
    a mapping's pages as worker memory): frames are read, not mapped."""
    w, h, n = 640, 360, 80
    rng = np.random.default_rng(5)
    frames = rng.integers(0, 255, size=(n, w * h * 3 // 2), dtype=np.uint8)
    ref, dist = tmp_path / "r.yuv", tmp_path / "d.yuv"
    frames.tofile(ref)
    (frames ^ 1).tofile(dist)
    del frames

    def rss_file_kb():
        return int(re.search(r"RssFile:\s+(\d+)", open("/proc/self/status").read()).group(1))

    peak = []

    class Watch(psnrhvs.Scorer):
        def send(self, *a, **k):
            peak.append(rss_file_kb())
            return super().send(*a, **k)

    monkeypatch.setattr(psnrhvs.files, "Scorer", Watch)
    psnrhvs.score_files(ref, dist, width=w, height=h, threads=1, frame_cnt=1)  # code paged in
    peak.clear()
    before = rss_file_kb()
    r = psnrhvs.score_files(ref, dist, width=w, height=h, threads=1)
    assert len(r) == n
    grown = max(peak) - before
    total = 2 * os.path.getsize(ref) // 1024
    assert grown < total // 3, f"{grown} KiB resident of {total} KiB mapped"
