# SPDX-License-Identifier: BSD-2-Clause
"""The ctypes mirror of the library's file API (psnrhvs_file_*, formats) and
what the package takes from it: the structs' layout, the error kinds as
exception classes with the library's words, geometry and probe."""
import os
import subprocess

import pytest

import psnrhvs
from psnrhvs import _lib, files
from conftest import DATA, assert_layout_mirrored

pytestmark = pytest.mark.usefixtures("lib")

STRUCTS = {"PsnrHvsFormat": _lib.Format, "PsnrHvsGeometry": _lib.Geometry,
           "PsnrHvsFileStatus": _lib.FileStatus, "PsnrHvsColour": _lib.Colour,
           "PsnrHvsFileInfo": _lib.FileInfo, "PsnrHvsFormatOptions": _lib.FormatOptions,
           "PsnrHvsFormatSide": _lib.FormatSide}


@pytest.fixture(scope="module")
def layout():
    """sizeof/offsetof of the file API's structs, printed by a C program (ctest builds it)."""
    exe = os.environ.get("PSNRHVS_ABI_FILE_LAYOUT")
    if not exe:
        pytest.skip("PSNRHVS_ABI_FILE_LAYOUT (tests/python/abi_file_layout.c) not given")
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return dict((ln.rsplit(" ", 1)[0], int(ln.rsplit(" ", 1)[1])) for ln in out.splitlines())


def test_struct_layout_matches_the_header(layout):
    assert_layout_mirrored(layout, STRUCTS)
    assert layout["file_errors"] == len(_lib.FILE_ERRORS)


def test_video_file_reads_the_header():
    f = psnrhvs.VideoFile(DATA / "yuv420p10_176x144_ref.y4m")
    assert f.is_y4m and f.format == psnrhvs.Format(176, 144, "420", 10)
    f.set_format(f.format)
    planes = f.read()
    assert [p.shape for p in planes] == [(144, 176), (72, 88), (72, 88)]
    assert planes[0].dtype.itemsize == 2


def test_geometry_rounds_stored_chroma_up():
    g = psnrhvs.Geometry.of(psnrhvs.Format(17, 9, "420", 10))
    assert g.stored == ((9, 17), (5, 9), (5, 9)) and g.scored == ((9, 17), (4, 8), (4, 8))
    assert g.frame_bytes == 2 * (17 * 9 + 2 * 9 * 5)
    assert psnrhvs.Geometry.of(psnrhvs.Format(8, 8, "400")).stored == ((8, 8),)


@pytest.mark.parametrize("data,cls,msg", [
    (b"YUV4MPEG2 W16 H16", psnrhvs.MalformedY4MError, "header does not end with a newline"),
    (b"YUV4MPEG2 W16 H16 C420p16\n", psnrhvs.UnsupportedFormatError, "bit depth 16"),
    (b"YUV4MPEG2 W70000 H16\n", psnrhvs.InputError, "width in .* exceeds the maximum of 65536"),
])
def test_error_kinds_become_classes(tmp_path, data, cls, msg):
    p = tmp_path / "x.y4m"
    p.write_bytes(data)
    with pytest.raises(cls, match=msg):
        psnrhvs.VideoFile(p)


def test_probe(tmp_path):
    mkv = tmp_path / "a.yuv"
    mkv.write_bytes(b"\x1a\x45\xdf\xa3" + b"\0" * 12)
    assert files._is_compressed(str(mkv))
    assert files._is_compressed(str(tmp_path / "missing.mp4"))
    assert files._is_compressed("frames/%05d.png")
    assert not files._is_compressed(str(DATA / "yuv420p_176x144_ref.y4m"))
    assert not files._is_compressed(str(tmp_path / "missing.yuv"))
