# SPDX-License-Identifier: BSD-2-Clause
"""numpy planes: which arrays go to the library as they are (their own memory,
their own stride) and which are copied; frames in flight; picture errors."""
import gc
import warnings

import numpy as np
import pytest

import psnrhvs
from conftest import DATA, GOLDENS, same, same_f32

pytestmark = pytest.mark.usefixtures("lib")
W, H = 64, 48


def frame(rng, w=W, h=H, pf="420", dtype=np.uint8, top=255):
    cw, ch = {"420": (w // 2, h // 2), "422": (w // 2, h), "444": (w, h)}[pf]
    return [rng.integers(0, top, size=s, dtype=dtype, endpoint=True)
            for s in ((h, w), (ch, cw), (ch, cw))]


def noisy(planes, rng, amp=6, top=255):
    out = []
    for p in planes:
        n = rng.integers(-amp, amp, size=p.shape, endpoint=True)
        out.append(np.clip(p.astype(np.int64) + n, 0, top).astype(p.dtype))
    return out


def addr(a):
    return a.__array_interface__["data"][0]


@pytest.fixture
def rng():
    return np.random.default_rng(20240614)


@pytest.mark.parametrize("bitdepth,dtype", [(8, np.uint8), (10, np.uint16), (12, np.uint16)])
def test_no_copy_passes_the_arrays_own_memory(rng, bitdepth, dtype):
    """Views with their own row stride reach the library as pointer + stride, no copy."""
    top = (1 << bitdepth) - 1
    big = rng.integers(0, top, size=(H + 9, W + 21), dtype=dtype, endpoint=True)
    views = [
        big[:H, :W],                    # first rows of a wider array
        big[5:5 + H, 3:3 + W],          # offset into it
        big[::2, :W][:H // 2 + 1],      # every other row: stride of two rows (chroma size)
        np.ascontiguousarray(big[:H, :W]),
    ]
    ro = big[1:1 + H, 2:2 + W]
    ro.flags.writeable = False
    views.append(ro)
    with psnrhvs.Scorer(W, H, pixel_format="444", bitdepth=bitdepth,
                        enable_chroma=False) as s:
        for v in views:
            if v.shape[0] < H:
                continue
            pic, keep = s.picture(v)
            assert pic.data[0] == addr(v), "copied"
            assert pic.stride[0] == v.strides[0]
            assert keep[0] is v
    with psnrhvs.Scorer(W, 2 * (H // 2), pixel_format="420", bitdepth=bitdepth) as s:
        y, c = views[1], views[2][:H // 2, :W // 2]
        pic, keep = s.picture((y, c, c))
        assert [pic.data[i] for i in range(3)] == [addr(y), addr(c), addr(c)]
        assert [pic.stride[i] for i in range(3)] == [y.strides[0], c.strides[0], c.strides[0]]


def test_file_views_are_not_copied(tmp_path):
    """A frame read is one array; its planes are views into it, handed on as they are."""
    g = next(g for g in GOLDENS if g["name"] == "yuv420p10_176x144")
    vf = psnrhvs.VideoFile(DATA / g["reference"])
    vf.set_format(psnrhvs.Format(176, 144, "420", 10))
    planes = vf.read()
    base = planes[0].base
    while base is not None and base.base is not None:
        base = base.base
    lo = addr(base)
    assert all(lo <= addr(p) and addr(p) + p.nbytes <= lo + base.nbytes for p in planes)
    assert not any(p.flags.owndata for p in planes)
    with psnrhvs.Scorer(176, 144, bitdepth=10) as s:
        pic, _ = s.picture(planes)
        assert [pic.data[i] for i in range(3)] == [addr(p) for p in planes]


@pytest.mark.parametrize("case", ["columns_strided", "fortran", "negative_rows",
                                  "big_endian", "misaligned", "overlapping_rows"])
def test_copied_when_the_library_cannot_read_it(rng, case):
    """Arrays the library cannot address as rows of consecutive samples are
    copied (scored part only), and score as their contiguous equivalent."""
    ref = frame(rng, pf="444", dtype=np.uint16, top=1023)
    dist = noisy(ref, rng, top=1023)
    y = dist[0]
    if case == "columns_strided":
        wide = np.zeros((H, 2 * W), np.uint16)
        wide[:, ::2] = y
        odd = wide[:, ::2]
    elif case == "fortran":
        odd = np.asfortranarray(y)
    elif case == "negative_rows":
        odd = y[::-1].copy()[::-1]
    elif case == "big_endian":
        odd = y.astype(">u2")
    elif case == "misaligned":
        buf = np.zeros(y.nbytes + 1, np.uint8)
        odd = buf[1:].view(np.uint16).reshape(H, W)
        odd[...] = y
        assert addr(odd) % 2 == 1
    else:  # rows 2 samples apart: as_strided views overlap
        odd = np.lib.stride_tricks.as_strided(y, shape=(H, W), strides=(2, 2))
        y = np.ascontiguousarray(odd)
    assert np.array_equal(odd, y)
    with psnrhvs.Scorer(W, H, pixel_format="444", bitdepth=10) as s:
        pic, keep = s.picture((odd, dist[1], dist[2]))
        assert pic.data[0] != addr(odd) and keep[0] is not odd
        assert keep[0].flags.c_contiguous and keep[0].dtype.isnative
        a = s.score(ref, (odd, dist[1], dist[2]))
        b = s.score(ref, (y, dist[1], dist[2]))
    for k in psnrhvs.KEYS:
        assert same(getattr(a, k), getattr(b, k))
    for k in psnrhvs.RAW_KEYS:
        assert same_f32(getattr(a, k), getattr(b, k))


def test_larger_planes_and_3d_arrays(rng):
    """Planes larger than the scored size are fine (the extra samples are not
    read); a 3-D array is planes along axis 0."""
    ref = np.stack(frame(rng, pf="444"))
    dist = np.stack(noisy(list(ref), rng))
    with psnrhvs.Scorer(W, H, pixel_format="444") as s:
        a = s.score(ref, dist)
    big_r = np.zeros((3, H + 4, W + 8), np.uint8)
    big_d = np.full((3, H + 4, W + 8), 255, np.uint8)
    big_r[:, :H, :W], big_d[:, :H, :W] = ref, dist
    with psnrhvs.Scorer(W, H, pixel_format="444") as s:
        b = s.score(big_r, big_d)
    assert a == b


def test_frames_in_flight(rng):
    """send/receive: tags come back with their frames, in order, same bits as score()."""
    pairs = []
    for _ in range(9):
        r = frame(rng)
        pairs.append((r, noisy(r, rng)))
    with psnrhvs.Scorer(W, H, threads=2, frames_in_flight=3) as s:
        sync = [s.score(r, d, frame=i) for i, (r, d) in enumerate(pairs)]
        assert s.receive() is None
        got, i = [], 0
        for r, d in pairs:
            while not s.send(r, d, tag=1000 + i):
                got.append(s.receive())
            i += 1
        assert s.in_flight > 0
        with pytest.raises(psnrhvs.BusyError):
            s.score(*pairs[0])
        got += s.drain()
        assert [g.frame for g in got] == list(range(1000, 1009))
        assert [g.psnr_hvs for g in got] == [x.psnr_hvs for x in sync]
        streamed = list(s.score_frames(iter(pairs)))
        assert streamed == sync
        # a consumer that stops early leaves nothing in flight
        gen = s.score_frames(iter(pairs))
        next(gen)
        gen.close()
        assert s.in_flight == 0 and s.receive() is None


def test_buffers_may_be_reused_after_send(rng):
    """The library copies on send: overwriting the arrays afterwards changes nothing."""
    r = frame(rng)
    d = noisy(r, rng)
    with psnrhvs.Scorer(W, H, frames_in_flight=4, threads=2) as s:
        want = s.score(r, d)
        buf_r = [p.copy() for p in r]
        buf_d = [p.copy() for p in d]
        assert s.send(buf_r, buf_d, 7)
        for p in buf_r + buf_d:
            p[...] = 0
        got = s.receive()
    assert got.frame == 7 and got.psnr_hvs == want.psnr_hvs


def test_threads_isa_backends_agree(rng):
    """The same bits from the scalar reference, the SIMD kernels and several threads."""
    r = frame(rng, w=96, h=80)
    d = noisy(r, rng)
    outs = []
    for opts in (dict(isa="scalar", threads=1), dict(isa="auto", threads=1),
                 dict(isa="auto", threads=2)):
        with psnrhvs.Scorer(96, 80, **opts) as s:
            outs.append(s.score(r, d))
    assert outs[0] == outs[1] == outs[2]


def test_score_arrays_luma_stack(rng):
    """A (frames, rows, columns) array of 4:0:0 frames, bitdepth from the dtype."""
    ref = rng.integers(0, 255, size=(4, H, W), dtype=np.uint8, endpoint=True)
    dist = np.stack(noisy(list(ref), rng))
    r = psnrhvs.score_arrays(ref, dist, pixel_format="400")
    assert len(r) == 4 and list(r.pooled) == ["psnr_hvs_y", "psnr_hvs"]
    assert all(f.psnr_hvs == f.psnr_hvs_y and f.raw_cb is None for f in r.frames)
    with pytest.raises(psnrhvs.UsageError, match="bitdepth"):
        psnrhvs.score_arrays(ref.astype(np.uint16), dist.astype(np.uint16), pixel_format="400")


@pytest.mark.parametrize("bad,match", [
    (lambda f: [f[0].astype(np.uint16)] + f[1:], "dtype uint16; 8-bit samples need uint8"),
    (lambda f: [f[0].astype(np.float32)] + f[1:], "dtype float32"),
    (lambda f: [f[0].astype(np.int8)] + f[1:], "dtype int8"),
    (lambda f: [f[0][:H - 1]] + f[1:], "smaller than the 64x48 scored"),
    (lambda f: [f[0], f[1][:, :W // 2 - 1], f[2]], "plane 1 is 31x24"),
    (lambda f: [f[0].ravel()] + f[1:], "must be 2-D"),
    (lambda f: f[:2], "has 2 plane"),
])
def test_picture_errors(rng, bad, match):
    good = frame(rng)
    with psnrhvs.Scorer(W, H) as s:
        with pytest.raises(psnrhvs.InvalidArgumentError, match=match) as e:
            s.score(good, bad(good))
        assert e.value.errno == 22 and isinstance(e.value, ValueError)


def test_wrong_dtype_for_high_bitdepth(rng):
    good = frame(rng)
    with psnrhvs.Scorer(W, H, bitdepth=10) as s:
        with pytest.raises(psnrhvs.InvalidArgumentError, match="10-bit samples need uint16"):
            s.score(good, good)


def test_dataframe(rng):
    pd = pytest.importorskip("pandas")
    ref = rng.integers(0, 255, size=(3, H, W), dtype=np.uint8, endpoint=True)
    r = psnrhvs.score_arrays(ref, np.stack(noisy(list(ref), rng)), pixel_format="400")
    df = r.to_dataframe()
    assert list(df.columns) == ["psnr_hvs_y", "psnr_hvs", "raw_y"]
    assert list(df.index) == [0, 1, 2] and df.index.name == "frame"
    assert df["psnr_hvs"].tolist() == [f.psnr_hvs for f in r.frames]
    pooled = r.pooled_dataframe()
    assert pooled.loc["psnr_hvs", "mean"] == r.pooled["psnr_hvs"].mean
    assert isinstance(df, pd.DataFrame)


def test_closed_scorer(rng):
    s = psnrhvs.Scorer(W, H)
    s.close()
    s.close()
    with pytest.raises(psnrhvs.InvalidArgumentError, match="closed"):
        s.score(frame(rng), frame(rng))
    del s
    gc.collect()


@pytest.mark.parametrize("kw,match", [
    (dict(width=1.5), "invalid width '1.5'"),
    (dict(width="176"), "invalid width '176'"),
    (dict(width=True), "invalid width 'True'"),
    (dict(width=2**31, height=2**31), "invalid width '2147483648'"),
    (dict(height=-2**31 - 1), "invalid height"),
    (dict(threads=2.0), "invalid threads '2.0'"),
    (dict(device=2**31), "invalid device '2147483648'"),
    (dict(frames_in_flight="3"), "invalid frames_in_flight '3'"),
    (dict(bitdepth=10.0), "invalid bitdepth '10.0'"),
])
def test_integer_arguments_are_checked_not_truncated(kw, match):
    args = dict(width=W, height=H)
    args.update(kw)
    width, height = args.pop("width"), args.pop("height")
    with pytest.raises(psnrhvs.UsageError, match=match):
        psnrhvs.Scorer(width, height, **args)


def test_numpy_integers_are_integers(rng):
    with psnrhvs.Scorer(np.int32(W), np.uint16(H), threads=np.int64(1)) as s:
        assert (s.width, s.height) == (W, H)


@pytest.mark.parametrize("nref,ndist,ended,longer", [(3, 2, "distorted", "reference"),
                                                      (2, 3, "reference", "distorted")])
def test_score_arrays_warns_when_one_side_ends_first(rng, nref, ndist, ended, longer):
    ref = [frame(rng) for _ in range(max(nref, ndist))]
    dist = [noisy(f, rng) for f in ref]
    with pytest.warns(psnrhvs.PsnrHvsWarning,
                      match=f"the {ended} frames ended before the {longer} frames, after 2 frames"):
        r = psnrhvs.score_arrays(ref[:nref], dist[:ndist])
    assert len(r.frames) == 2
    with psnrhvs.Scorer(W, H) as s:
        for k in range(2):
            assert same(r.frames[k].psnr_hvs, s.score(ref[k], dist[k]).psnr_hvs)


def test_score_arrays_equal_lengths_do_not_warn(rng):
    ref = [frame(rng) for _ in range(2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(psnrhvs.score_arrays(ref, [noisy(f, rng) for f in ref]).frames) == 2
