# SPDX-License-Identifier: BSD-2-Clause
"""Every golden fixture through the Python API, bit for bit: from files, from
numpy planes at odd strides, and against the CLI's --json --precision max --raw."""
import numpy as np
import pytest

import psnrhvs
from conftest import (GOLDENS, assert_matches_golden, assert_same_result, cli_args,
                      golden_ids, golden_options, golden_paths)

pytestmark = pytest.mark.usefixtures("lib")


def test_fixture_count():
    assert len(GOLDENS) >= 17


@pytest.mark.parametrize("g", GOLDENS, ids=golden_ids())
def test_files(g):
    ref, dist = golden_paths(g)
    r = psnrhvs.score_files(ref, dist, **golden_options(g))
    assert_matches_golden(r, g)
    assert (r.width, r.height, r.pixel_format, r.bitdepth) == \
        (g["width"], g["height"], g["pixel_format"], g["bitdepth"])


def read_frames(path, g):
    """The fixture's frames as plane arrays, read here without the package's reader."""
    raw = np.fromfile(path, dtype=np.uint8)
    w, h, pf = g["width"], g["height"], g["pixel_format"]
    dt = np.dtype("<u2") if g["bitdepth"] > 8 else np.dtype(np.uint8)
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h),
              "444": (w, h), "400": (0, 0)}[pf]
    shapes = [(h, w)] + ([(ch, cw)] * 2 if pf != "400" else [])
    fbytes = sum(a * b for a, b in shapes) * dt.itemsize
    pos = 0
    if g["container"] == "y4m":
        pos = raw.tobytes().index(b"\n") + 1
    frames = []
    while pos < raw.size:
        if g["container"] == "y4m":
            assert raw[pos:pos + 6].tobytes() == b"FRAME\n"
            pos += 6
        planes = []
        for sh in shapes:
            n = sh[0] * sh[1] * dt.itemsize
            planes.append(raw[pos:pos + n].view(dt).reshape(sh).astype(dt.newbyteorder("=")))
            pos += n
        frames.append(planes)
    return frames


def embed(plane, rng, pad_left=3, pad_right=13, pad_top=2):
    """plane as a view into a wider buffer of random samples: a row stride that
    is no multiple of anything, and garbage around it that must not be read."""
    h, w = plane.shape
    top = np.iinfo(plane.dtype).max
    buf = rng.integers(0, top, size=(h + pad_top + 1, w + pad_left + pad_right),
                       dtype=plane.dtype, endpoint=True)
    view = buf[pad_top:pad_top + h, pad_left:pad_left + w]
    view[...] = plane
    assert view.strides[1] == plane.itemsize and not view.flags.c_contiguous
    return view


@pytest.mark.parametrize("g", GOLDENS, ids=golden_ids())
def test_numpy_strided(g):
    ref, dist = golden_paths(g)
    rng = np.random.default_rng(14)
    rf = [[embed(p, rng) for p in fr] for fr in read_frames(ref, g)]
    df = [[embed(p, rng, 7, 5, 1) for p in fr] for fr in read_frames(dist, g)]
    r = psnrhvs.score_arrays(rf, df, width=g["width"], height=g["height"],
                             pixel_format=g["pixel_format"], bitdepth=g["bitdepth"])
    assert_matches_golden(r, g)


@pytest.mark.parametrize("g", GOLDENS, ids=golden_ids())
def test_same_as_cli(g, psnrhvs_cli, tmp_path):
    """The CLI's JSON and the package's give the same bits, and the package
    writes the CLI's JSON text itself (all but the measured fps)."""
    ref, dist = golden_paths(g)
    mine = psnrhvs.score_files(ref, dist, **golden_options(g))
    theirs, text = psnrhvs_cli.json(tmp_path, *cli_args(g))
    assert_same_result(mine, theirs)
    drop_fps = lambda t: [ln for ln in t.splitlines() if not ln.startswith('  "fps"')]  # noqa
    assert drop_fps(mine.to_json()) == drop_fps(text)
