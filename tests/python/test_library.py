# SPDX-License-Identifier: BSD-2-Clause
"""The ctypes mirror against the compiler, finding the library, library errors
as exceptions with its messages, the CLI hook for compressed inputs."""
import ctypes
import errno
import gc
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

import psnrhvs
from psnrhvs import _lib
from conftest import (GOLDENS, REPO, assert_layout_mirrored, assert_same_result, golden_options,
                      golden_paths)

G = {g["name"]: g for g in GOLDENS}


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """sizeof/offsetof of the public structs, printed by a C program."""
    exe = os.environ.get("PSNRHVS_ABI_LAYOUT")
    if not exe:
        cc = next((c for c in ("cc", "gcc", "clang") if
                   subprocess.run(["which", c], capture_output=True).returncode == 0), None)
        if cc is None:
            pytest.skip("no C compiler and no PSNRHVS_ABI_LAYOUT to check the struct layout")
        exe = str(tmp_path_factory.mktemp("abi") / "abi_layout")
        subprocess.run([cc, "-std=c11", "-I", str(REPO / "include"),
                        str(Path(__file__).with_name("abi_layout.c")), "-o", exe], check=True)
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return dict((ln.rsplit(" ", 1)[0], int(ln.rsplit(" ", 1)[1])) for ln in out.splitlines())


STRUCTS = {"PsnrHvsLogger": _lib.Logger, "PsnrHvsSettings": _lib.Settings,
           "PsnrHvsPicture": _lib.Picture, "PsnrHvsScore": _lib.Score,
           "PsnrHvsFrameScore": _lib.FrameScore, "PsnrHvsOutput": _lib.Output,
           "PsnrHvsScoreRow": _lib.ScoreRow, "PsnrHvsScoreSet": _lib.ScoreSet}


def test_struct_layout_matches_the_header(layout):
    assert_layout_mirrored(layout, STRUCTS)
    assert _lib.Settings.reserved.size == layout["fieldsize PsnrHvsSettings.reserved"] == 48
    assert _lib.Settings.layout.size == layout["fieldsize PsnrHvsSettings.layout"]
    assert _lib.Picture.stride.size == layout["fieldsize PsnrHvsPicture.stride"]
    assert layout["api_version"] >> 16 == _lib.API_MAJOR
    assert layout["max_dimension"] == _lib.MAX_DIMENSION


def test_default_settings_round_trip(lib):
    s = _lib.Settings()
    ctypes.memset(ctypes.byref(s), 0xAB, ctypes.sizeof(s))
    lib.c.default_settings(ctypes.byref(s))
    assert (s.layout, s.bitdepth, s.enable_chroma, s.backend, s.isa) == (0, 8, 1, 0, 0)
    assert s.memory == 0 and s.renditions == 0 and bytes(s.reserved) == bytes(48)
    assert s.frames_hint == 0
    assert s.module_dir is None
    assert s.chroma_interleaved == 0 and s.msb_aligned == 0 and s.reference_on_host == 0


def test_version(lib):
    assert psnrhvs.library_version() == lib.version
    assert lib.version.split(".")[0] == str(_lib.API_MAJOR)
    meta = tomllib.loads((REPO / "python" / "pyproject.toml").read_text())
    assert meta["project"]["version"] == psnrhvs.__version__
    assert psnrhvs.backend_available("cpu")


def test_find_library(lib, monkeypatch, tmp_path):
    assert psnrhvs.find_library("/x/libpsnrhvs.so") == "/x/libpsnrhvs.so"
    monkeypatch.setenv("PSNRHVS_LIBRARY", lib.path)
    assert psnrhvs.find_library() == lib.path
    assert psnrhvs.load_library() is lib  # loaded once per path
    with pytest.raises(psnrhvs.LibraryNotFoundError, match="cannot load"):
        psnrhvs.load_library(tmp_path / "libpsnrhvs.so")
    with pytest.raises(psnrhvs.LibraryNotFoundError, match="is not libpsnrhvs"):
        psnrhvs.load_library("libm.so.6")  # loads, but lacks the symbols
    # without the variable: bundled by pip (lib/), next to the package, the build
    # tree, the system
    monkeypatch.delenv("PSNRHVS_LIBRARY")
    cands = _lib.library_candidates()
    assert cands[0].parent == Path(psnrhvs.__file__).resolve().parent / "lib"
    assert cands[len(_lib._NAMES)].parent == Path(psnrhvs.__file__).resolve().parent
    monkeypatch.setenv("PSNRHVS_BUILD_DIR", str(Path(lib.path).resolve().parent.parent))
    found = psnrhvs.find_library()
    assert os.path.samefile(found, lib.path) or Path(found).parent in {c.parent for c in cands}


def test_library_errors_are_exceptions_with_its_messages(lib):
    cases = [
        (dict(width=176, height=144, bitdepth=16), psnrhvs.InvalidArgumentError, errno.EINVAL,
         "bit depth 16 is not supported"),
        (dict(width=0, height=144), psnrhvs.InvalidArgumentError, errno.EINVAL,
         "frame size 0x144 is out of range"),
        (dict(width=7, height=7), psnrhvs.PlaneTooSmallError, errno.ERANGE,
         "frame 7x7 is smaller than one 8x8 block"),
        (dict(width=16, height=14), psnrhvs.PlaneTooSmallError, errno.ERANGE,
         "chroma planes of a 16x14 4:2:0 frame are 8x7"),
        (dict(width=64, height=64, threads=-1), psnrhvs.InvalidArgumentError, errno.EINVAL,
         "threads -1 is out of range"),
    ]
    for kw, cls, num, text in cases:
        w, h = kw.pop("width"), kw.pop("height")
        with pytest.raises(cls) as e:
            psnrhvs.Scorer(w, h, **kw)
        assert e.value.errno == num
        assert text in str(e.value) and any(text in m for m in e.value.messages)
        gc.collect()  # the logger callback must outlive any collection


@pytest.mark.parametrize("backend", ["cuda", "opencl", "hip", "sycl", "vulkan"])
def test_backend_not_built_or_no_device(lib, backend):
    if lib.backend_available(backend):
        try:
            with psnrhvs.Scorer(64, 64, backend=backend) as s:
                assert s.backend == backend
        except psnrhvs.NoDeviceError as e:
            assert e.errno == errno.ENODEV
        except psnrhvs.PsnrHvsError as e:  # a device that fails to open says why
            assert str(e)
    else:
        with pytest.raises(psnrhvs.BackendNotBuiltError, match="not built into") as e:
            psnrhvs.Scorer(64, 64, backend=backend)
        assert e.value.errno == errno.ENOSYS


def test_library_messages_go_to_logging(lib, caplog):
    with caplog.at_level("INFO", logger="psnrhvs"):
        with pytest.raises(psnrhvs.PlaneTooSmallError):
            psnrhvs.Scorer(7, 7)
    assert any("smaller than one 8x8 block" in r.getMessage() for r in caplog.records)


# --- the CLI hook -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["yuv420p_176x144_y4m", "gray10_176x144",
                                  "identical_yuv420p_176x144"])
def test_cli_path_gives_the_same_bits(name, cli):
    g = G[name]
    ref, dist = golden_paths(g)
    direct = psnrhvs.score_files(ref, dist, container="files", **golden_options(g))
    via = psnrhvs.score_files(ref, dist, container="cli", cli=cli, subsample=1,
                              **golden_options(g))
    assert via.extra["cli"] == cli
    assert_same_result(direct, via)


def test_cli_path_passes_options(cli):
    g = G["yuv420p_176x144_y4m"]
    ref, dist = golden_paths(g)
    opts = dict(subsample=2, frame_cnt=4, enable_chroma=False, mask_product="exact",
                isa="scalar", threads=1)
    assert_same_result(psnrhvs.score_files(ref, dist, container="files", **opts),
                       psnrhvs.score_files(ref, dist, container="cli", cli=cli, **opts))


def test_compressed_input_goes_to_the_cli(tmp_path, cli, monkeypatch):
    """An MP4 is not raw video: the CLI is asked; without FFmpeg input it cannot
    read it and the exception says so, with the CLI's own words."""
    mp4 = tmp_path / "enc.mp4"
    mp4.write_bytes(b"\0\0\0\x20ftypisom\0\0\2\0isomiso2avc1mp41" + bytes(4000))
    ref = golden_paths(G["yuv420p_176x144_y4m"])[0]
    monkeypatch.setenv("PSNRHVS_CLI", cli)
    with pytest.raises(psnrhvs.CLIError) as e:
        psnrhvs.score_files(ref, mp4)
    text = str(e.value)
    assert "enc.mp4" in text and "FFmpeg" in text and e.value.returncode not in (0, None)
    assert e.value.stderr.startswith("psnrhvs: ")
    # the same bytes under another name are detected by their magic
    odd = tmp_path / "enc.bin"
    odd.write_bytes(mp4.read_bytes())
    with pytest.raises(psnrhvs.CLIError):
        psnrhvs.score_files(ref, odd)


def test_find_cli(lib, cli, monkeypatch, tmp_path):
    monkeypatch.delenv("PSNRHVS_CLI", raising=False)
    assert psnrhvs.find_cli("/some/psnrhvs") == "/some/psnrhvs"
    found = psnrhvs.find_cli(library=lib)
    assert os.access(found, os.X_OK)
    # a build tree: libdir/../tools/psnrhvs next to libdir/libpsnrhvs.so
    libdir = Path(lib.path).resolve().parent
    if (libdir.parent / "tools" / "psnrhvs").exists():
        assert Path(found) == libdir.parent / "tools" / "psnrhvs"
    with pytest.raises(psnrhvs.CLIError, match="cannot run"):
        psnrhvs.score_with_cli(*golden_paths(G["yuv420p_176x144_y4m"]),
                               cli=tmp_path / "missing-psnrhvs")


def test_pool_ieee_edges():
    """Pooling over inf and -1 dB follows C's IEEE division, not Python's exceptions."""
    inf = float("inf")
    assert psnrhvs.pool([inf, inf]) == psnrhvs.Pooled(inf, inf, inf, inf)
    p = psnrhvs.pool([-1.0, 3.0])
    assert p.harmonic_mean == -1.0  # 2 / (inf + 0.25) - 1
    assert str(psnrhvs.pool([]).mean) == "nan"


def test_hexfloat_like_c():
    f = psnrhvs.results.format_hexfloat
    assert f(0.0) == "0x0p+0"
    assert f(1.0) == "0x1p+0"
    assert f(float.fromhex("0x1.b5e0b4p-12")) == "0x1.b5e0b4p-12"
    assert f(-2.5) == "-0x1.4p+1"


def test_score_files_round_trip():
    """Every layout the library writes reads back to the same frames (inf and f32 raw included)."""
    inf = float("inf")
    frames = [psnrhvs.FrameScore(0, 28.0625, 33.5, 31.25, 29.75, 2.0**-9, 2.0**-11, 3 * 2.0**-12),
              psnrhvs.FrameScore(2, inf, inf, inf, inf, 0.0, 0.0, 0.0)]
    r = psnrhvs.Result.from_frames(frames, version="v1", fps=30.0, width=16, height=8)
    for fmt in ("xml", "json", "csv", "sub"):
        back = psnrhvs.parse_json(r.to_text(fmt))
        assert back.frames == frames, fmt
        assert back.pooled == r.pooled, fmt
    assert psnrhvs.parse_json(r.to_text("xml")).version == "v1"
    assert r.summary().startswith("2 frames, 16x8\npsnr_hvs_y   mean ")
    with pytest.raises(ValueError, match="unknown score format"):
        r.to_text("yaml")
    with pytest.raises(ValueError, match="XML ends early"):
        psnrhvs.parse_json(r.to_text("xml")[:-20])
