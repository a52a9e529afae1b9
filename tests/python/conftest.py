# SPDX-License-Identifier: BSD-2-Clause
"""Shared fixtures: the package from this tree, the fixtures, the CLI, exact comparisons.

ctest passes PSNRHVS_LIBRARY, PSNRHVS_CLI, PSNRHVS_ABI_LAYOUT and
PSNRHVS_TEST_DATA (tests/python/CMakeLists.txt); run by hand, the library and
CLI are looked for in ./build (see docs/python.md).
"""
import json
import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))

import psnrhvs  # noqa: E402

DATA = Path(os.environ.get("PSNRHVS_TEST_DATA", REPO / "tests" / "data"))


def assert_layout_mirrored(layout, structs):
    """Each ctypes struct has the C struct's size and field offsets, and every
    field the C program printed (all of them) is mirrored."""
    import ctypes
    checked = 0
    for cname, py in structs.items():
        assert ctypes.sizeof(py) == layout[f"sizeof {cname}"], cname
        for field, *_ in py._fields_:
            key = f"offsetof {cname}.{field}"
            assert getattr(py, field).offset == layout[key], key
            checked += 1
    assert checked == sum(1 for k in layout if k.startswith("offsetof"))


def load_goldens():
    return [json.loads(p.read_text()) for p in sorted((DATA / "golden").glob("*.json"))]


GOLDENS = load_goldens()


def golden_ids():
    return [g["name"] for g in GOLDENS]


def golden_value(v):
    """Golden numbers: %.17g, "inf"/"nan" strings, null for planes not scored."""
    return None if v is None else float(v)


def golden_raw(v):
    return None if v is None else float.fromhex(v)


def same(a, b):
    """Bit-for-bit equality of two doubles (None only equals None)."""
    if a is None or b is None:
        return a is None and b is None
    return struct.pack("<d", a) == struct.pack("<d", b)


def same_f32(a, b):
    """Bit-for-bit equality of two f32 values held in Python floats, and both
    really f32 values (no double digits hiding behind the comparison)."""
    if a is None or b is None:
        return a is None and b is None
    for v in (a, b):
        assert struct.unpack("<f", struct.pack("<f", v))[0] == v or math.isnan(v), \
            f"{v!r} is not an f32 value"
    return struct.pack("<f", a) == struct.pack("<f", b)


def golden_options(g):
    """score_files() keywords for a golden pair."""
    if g["container"] == "yuv":
        return dict(width=g["width"], height=g["height"], pixel_format=g["pixel_format"],
                    bitdepth=g["bitdepth"])
    return {}


def golden_paths(g):
    return str(DATA / g["reference"]), str(DATA / g["distorted"])


def assert_matches_golden(result, g):
    """Every frame and pooled value of result has the golden bits."""
    keys = ("psnr_hvs_y", "psnr_hvs") if g["pixel_format"] == "400" else psnrhvs.KEYS
    assert len(result.frames) == g["frames"] == len(g["per_frame"])
    for fr, gf in zip(result.frames, g["per_frame"]):
        assert fr.frame == gf["frame"]
        for k in psnrhvs.KEYS:
            assert same(getattr(fr, k), golden_value(gf[k])), (g["name"], fr.frame, k)
        for k in psnrhvs.RAW_KEYS:
            assert same_f32(getattr(fr, k), golden_raw(gf[k])), (g["name"], fr.frame, k)
    assert list(result.pooled) == list(keys) == list(g["pooled"])
    for k in keys:
        for s in psnrhvs.STATS:
            assert same(getattr(result.pooled[k], s), golden_value(g["pooled"][k][s])), \
                (g["name"], k, s)


def assert_same_result(a, b, pooled=True):
    """Two Results with the same bits in every frame (and pooled value)."""
    assert [f.frame for f in a.frames] == [f.frame for f in b.frames]
    for fa, fb in zip(a.frames, b.frames):
        for k in psnrhvs.KEYS:
            assert same(getattr(fa, k), getattr(fb, k)), (fa.frame, k)
        for k in psnrhvs.RAW_KEYS:
            assert same_f32(getattr(fa, k), getattr(fb, k)), (fa.frame, k)
    if pooled:
        assert list(a.pooled) == list(b.pooled)
        for k in a.pooled:
            for s in psnrhvs.STATS:
                assert same(getattr(a.pooled[k], s), getattr(b.pooled[k], s)), (k, s)


@pytest.fixture(scope="session")
def lib():
    try:
        return psnrhvs.load_library()
    except psnrhvs.LibraryNotFoundError as e:
        pytest.fail(f"{e} (ctest sets PSNRHVS_LIBRARY; by hand: ./build.sh build)")


@pytest.fixture(scope="session")
def cli(lib):
    try:
        return psnrhvs.find_cli(library=lib)
    except psnrhvs.CLIError as e:
        pytest.fail(str(e))


class CLI:
    """The psnrhvs binary, for comparisons."""

    def __init__(self, exe):
        self.exe = exe

    def run(self, *args, check=False):
        p = subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True)
        if check:
            assert p.returncode == 0, p.stderr
        return p

    def json(self, tmp_path, *args):
        """Run with --json --precision max --raw: (Result, text)."""
        out = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}.json"
        self.run(*args, "--json", "--precision", "max", "--raw", "-q", "-o", out, check=True)
        text = out.read_text()
        return psnrhvs.parse_json(text), text

    def error(self, *args):
        """The one error line (without 'psnrhvs: ') and the exit status."""
        p = self.run(*args, "-q")
        assert p.returncode != 0, "the CLI accepted it"
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert lines, "no message"
        return lines[-1].removeprefix("psnrhvs: "), p.returncode


@pytest.fixture(scope="session")
def psnrhvs_cli(cli):
    return CLI(cli)


def cli_args(g):
    ref, dist = golden_paths(g)
    args = ["-r", ref, "-d", dist]
    o = golden_options(g)
    if o:
        args += ["-w", o["width"], "-h", o["height"], "-p", o["pixel_format"], "-b", o["bitdepth"]]
    return args
