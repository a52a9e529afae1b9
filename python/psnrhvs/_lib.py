# SPDX-License-Identifier: BSD-2-Clause
"""ctypes mirror of include/psnrhvs.h and the search for libpsnrhvs.

The structs copy the header field for field (reserved bytes included) so the
library reads exactly what it would from C; tests/python/test_abi.py checks
sizes and offsets against the compiler.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
import types
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int,
                    c_size_t, c_ssize_t, c_uint, c_uint8, c_uint64, c_void_p)
from pathlib import Path
from typing import Dict, List, Optional, Union

from .errors import LibraryNotFoundError

#: API major version this package speaks (PSNRHVS_API_VERSION_MAJOR).
API_MAJOR = 1
MAX_DIMENSION = 65536

# enum PsnrHvsPixelLayout and enum PsnrHvsBackend: their names come from the
# library (Library.layouts, Library.backends)
# enum PsnrHvsMaskProduct
MASK_PRODUCTS = {"float": 0, "exact": 1}
# enum PsnrHvsIsa
ISAS = {"auto": 0, "scalar": 1, "avx2": 2, "avx512": 3, "neon": 4}

# void (*callback)(void *cookie, const char *message)
LOG_CALLBACK = CFUNCTYPE(None, c_void_p, c_char_p)


class Logger(Structure):
    _fields_ = [("cookie", c_void_p), ("callback", LOG_CALLBACK)]


class DeviceEntry(Structure):
    """PsnrHvsDeviceEntry: one device of the library's list (psnrhvs_devices)."""
    _fields_ = [
        ("backend", c_int),
        ("device", c_int),
        ("gpu", c_int),
        ("physical", c_int),
        ("automatic", c_int),
        ("name", c_char * 96),
        ("pci", c_char * 16),
        ("reserved", c_uint8 * 32),
    ]


class Settings(Structure):
    # C enums are int-sized with GCC, Clang and MSVC for these values.
    _fields_ = [
        ("width", c_int),
        ("height", c_int),
        ("layout", c_int),
        ("bitdepth", c_int),
        ("enable_chroma", c_int),
        ("mask_product", c_int),
        ("backend", c_int),
        ("device", c_int),
        ("threads", c_int),
        ("isa", c_int),
        ("exact_helpers", c_int),
        ("frames_in_flight", c_int),
        ("logger", Logger),
        ("memory", c_int),
        ("renditions", c_int),
        ("chroma_interleaved", c_int),
        ("msb_aligned", c_int),
        ("reference_on_host", c_int),
        ("num_devices", c_int),
        ("devices", c_void_p),
        ("module_dir", c_char_p),
        ("frames_hint", c_uint64),
        ("reserved", c_uint8 * 48),
    ]


class Picture(Structure):
    # ptrdiff_t is ssize_t on every platform the library builds for.
    _fields_ = [("data", c_void_p * 3), ("stride", c_ssize_t * 3)]


class Score(Structure):
    _fields_ = [
        ("num_planes", c_int),
        ("raw", c_float * 3),
        ("psnr_hvs_y", c_double),
        ("psnr_hvs_cb", c_double),
        ("psnr_hvs_cr", c_double),
        ("psnr_hvs", c_double),
        ("tag", c_uint64),
    ]


class Pool(Structure):
    _fields_ = [("min", c_double), ("max", c_double), ("mean", c_double),
                ("harmonic_mean", c_double)]


class Format(Structure):
    _fields_ = [("width", c_int), ("height", c_int), ("layout", c_int), ("bitdepth", c_int)]


class Geometry(Structure):
    _fields_ = [("num_planes", c_int), ("bytes_per_sample", c_int), ("stored_w", c_int * 3),
                ("stored_h", c_int * 3), ("scored_w", c_int * 3), ("scored_h", c_int * 3),
                ("plane_bytes", c_size_t * 3), ("frame_bytes", c_size_t)]


# enum PsnrHvsFileError
FILE_ERRORS = ("ok", "io", "malformed", "truncated", "unsupported", "limit", "mismatch", "usage",
               "too_small", "nomem")


class FileStatus(Structure):
    _fields_ = [("error", c_int), ("errnum", c_int), ("message", c_char * 16384)]


class Colour(Structure):
    _fields_ = [("range", c_char * 16), ("matrix", c_char * 32), ("primaries", c_char * 32),
                ("transfer", c_char * 32)]


class FileInfo(Structure):
    _fields_ = [("y4m", c_int), ("format", Format), ("geometry", Geometry),
                ("colour", Colour), ("header_bytes", c_size_t),
                ("frame_header_bytes", c_size_t), ("reserved", c_uint8 * 32)]


class FormatOptions(Structure):
    _fields_ = [("width", c_int), ("height", c_int), ("layout", c_int), ("bitdepth", c_int),
                ("scale", c_int), ("common_bitdepth", c_int), ("reserved", c_uint8 * 16)]


class FormatSide(Structure):
    _fields_ = [("name", c_char_p), ("declared", c_char_p), ("format", Format)]


class FrameScore(Structure):
    _fields_ = [("frame_num", c_uint), ("score", Score)]


class Output(Structure):
    _fields_ = [("version", c_char_p), ("engine", c_char_p), ("width", c_int), ("height", c_int),
                ("fps", c_double), ("num_planes", c_int), ("precision", c_int), ("raw", c_int),
                ("frames", POINTER(FrameScore)), ("num_frames", c_size_t),
                ("reserved", c_uint8 * 32)]


class ScoreRow(Structure):
    _fields_ = [("frame_num", c_uint), ("value", c_double * 4), ("has", c_uint8 * 4),
                ("raw", c_float * 3), ("has_raw", c_uint8 * 3)]


class ScoreSet(Structure):
    _fields_ = [("format", c_int), ("frames", POINTER(ScoreRow)), ("num_frames", c_size_t),
                ("has_key", c_int * 4), ("num_planes", c_int), ("pooled_in_file", c_int),
                ("pool", Pool * 4), ("width", c_int), ("height", c_int), ("nulls", c_size_t),
                ("fps", c_double), ("version", c_char * 64), ("reserved", c_uint8 * 32)]


# int (*write)(void *cookie, const char *data, size_t size)
WRITE_CALLBACK = CFUNCTYPE(c_int, c_void_p, POINTER(c_char), c_size_t)
# PsnrHvsOutput.precision
PRECISION_MAX = -1


_PROTOTYPES = {
    "psnrhvs_version": (c_char_p, []),
    "psnrhvs_version_api": (c_uint, []),
    "psnrhvs_default_settings": (None, [POINTER(Settings)]),
    "psnrhvs_open": (c_int, [POINTER(c_void_p), POINTER(Settings)]),
    "psnrhvs_score": (c_int, [c_void_p, POINTER(Picture), POINTER(Picture), POINTER(Score)]),
    "psnrhvs_send": (c_int, [c_void_p, POINTER(Picture), POINTER(Picture), c_uint64]),
    "psnrhvs_receive": (c_int, [c_void_p, POINTER(Score)]),
    "psnrhvs_close": (None, [POINTER(c_void_p)]),
    "psnrhvs_backend_name": (c_char_p, [c_void_p]),
    "psnrhvs_isa_name": (c_char_p, [c_void_p]),
    "psnrhvs_backend_available": (c_int, [c_int]),
    "psnrhvs_list_devices": (c_int, [c_int, c_int, c_char_p, c_size_t]),
    "psnrhvs_devices": (c_int, [POINTER(DeviceEntry), c_int, c_uint]),
    "psnrhvs_cpu_count": (c_int, []),
    "psnrhvs_raw_to_db": (None, [POINTER(Score)]),
    "psnrhvs_pool": (None, [POINTER(c_double), c_size_t, c_size_t, POINTER(Pool)]),
    "psnrhvs_backend_string": (c_char_p, [c_int]),
    "psnrhvs_layout_string": (c_char_p, [c_int]),
    "psnrhvs_file_open": (c_int, [POINTER(c_void_p), c_char_p, POINTER(FileStatus)]),
    "psnrhvs_file_info": (None, [c_void_p, POINTER(FileInfo)]),
    "psnrhvs_file_set_format": (c_int, [c_void_p, POINTER(Format), POINTER(FileStatus)]),
    "psnrhvs_file_locate": (c_int, [c_void_p, c_void_p, c_size_t, POINTER(c_size_t),
                                    POINTER(FileStatus)]),
    "psnrhvs_file_close": (None, [POINTER(c_void_p)]),
    "psnrhvs_file_probe": (c_char_p, [c_void_p, c_size_t, c_char_p]),
    "psnrhvs_geometry": (c_int, [POINTER(Format), POINTER(Geometry)]),
    "psnrhvs_check_bitdepth": (c_int, [c_int, POINTER(FileStatus)]),
    "psnrhvs_colour_compare": (c_int, [c_char_p, POINTER(Colour), c_char_p, POINTER(Colour), c_int,
                                       POINTER(FileStatus)]),
    "psnrhvs_picture_shift": (c_int, [POINTER(Format), c_int, POINTER(Picture), POINTER(Picture)]),
    "psnrhvs_check_planes": (c_int, [POINTER(Format), c_int, POINTER(FileStatus)]),
    "psnrhvs_format_negotiate": (c_int, [POINTER(FormatOptions), POINTER(FormatSide),
                                         POINTER(FormatSide), POINTER(Format),
                                         POINTER(FileStatus)]),
    "psnrhvs_scores_format_from_string": (c_int, [c_char_p]),
    "psnrhvs_output_write": (c_int, [POINTER(Output), c_int, WRITE_CALLBACK, c_void_p]),
    "psnrhvs_output_summary": (c_int, [POINTER(Output), WRITE_CALLBACK, c_void_p]),
    "psnrhvs_scores_parse": (c_int, [POINTER(ScoreSet), c_char_p, c_size_t, POINTER(FileStatus)]),
    "psnrhvs_scores_free": (None, [POINTER(ScoreSet)]),
}


class Library:
    """One loaded libpsnrhvs with its prototypes declared.

    ctypes.CDLL releases the GIL around every call, so other Python threads
    (a Dask worker's, a reader's) run while a frame is scored.
    """

    def __init__(self, path: str):
        self.path = path
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as e:
            raise LibraryNotFoundError(f"cannot load {path}: {e}") from e
        #: the C functions without their prefix: lib.c.open(...), lib.c.send(...)
        self.c = types.SimpleNamespace()
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(self.dll, name)
            except AttributeError as e:
                raise LibraryNotFoundError(f"{path} is not libpsnrhvs: no symbol {name}") from e
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self.c, name[len("psnrhvs_"):], fn)
        api = self.c.version_api()
        if api >> 16 != API_MAJOR:
            raise LibraryNotFoundError(
                f"{path} has API version {api >> 16}.{(api >> 8) & 255}.{api & 255}; "
                f"this package needs {API_MAJOR}.x")

    @property
    def version(self) -> str:
        return self.c.version().decode()

    def backends(self) -> Dict[str, int]:
        """enum PsnrHvsBackend by name ("auto", "cpu", "cuda", ...), as the library names it."""
        names: Dict[str, int] = {}
        while True:
            name = self.c.backend_string(len(names))
            if name is None:
                return names
            names[name.decode()] = len(names)

    def layouts(self) -> Dict[str, int]:
        """enum PsnrHvsPixelLayout by name ("420", "422", "444", "400"), as the library
        names it for every front-end (the CLI's --pixel_format)."""
        names: Dict[str, int] = {}
        while True:
            name = self.c.layout_string(len(names))
            if name is None:
                return names
            names[name.decode()] = len(names)

    def layout_name(self, layout: int) -> str:
        """The name of enum PsnrHvsPixelLayout value layout."""
        name = self.c.layout_string(layout)
        return name.decode() if name is not None else "?"

    def backend_available(self, backend: str) -> bool:
        b = self.backends().get(backend)
        return b is not None and bool(self.c.backend_available(b))

    def devices(self, auto_only: bool = False) -> List[Dict[str, object]]:
        """The library's device list (psnrhvs_devices): every device of every backend,
        the host CPU last; "automatic" marks those backend auto scores on, and equal
        "physical" numbers one GPU seen through several backends. auto_only: only
        those, asked as auto asks (no driver loaded on a machine without a GPU)."""
        flags = 1 if auto_only else 0  # PSNRHVS_DEVICES_AUTO
        n = self.c.devices(None, 0, flags)
        if n < 0:
            raise OSError(-n, os.strerror(-n))
        entries = (DeviceEntry * max(n, 1))()
        n = min(self.c.devices(entries, n, flags), n)
        names = {v: k for k, v in self.backends().items()}
        return [{"backend": names.get(e.backend, str(e.backend)), "device": e.device,
                 "gpu": bool(e.gpu), "physical": e.physical, "automatic": bool(e.automatic),
                 "name": e.name.decode(errors="replace"), "pci": e.pci.decode()}
                for e in entries[:n]]

    def cpu_count(self) -> int:
        """The cores this process may use (affinity, a container's quota): psnrhvs_cpu_count."""
        return int(self.c.cpu_count())

    def pool(self, values) -> Pool:
        """libvmaf's pooling of one key's values, by the library (psnrhvs_pool)."""
        n = len(values)
        arr = (c_double * max(n, 1))(*values)
        out = Pool()
        self.c.pool(arr, n, 0, ctypes.byref(out))
        return out

    def raw_to_db(self, raw, num_planes: int) -> Score:
        """The library's own dB conversion, for scores that arrive as raw floats (CLI JSON)."""
        s = Score()
        s.num_planes = num_planes
        for i, r in enumerate(raw):
            s.raw[i] = 0.0 if r is None else r
        self.c.raw_to_db(ctypes.byref(s))
        return s

    def write_output(self, out: Output, fmt: Optional[str]) -> str:
        """A score file's text (fmt "xml", "json", "csv", "sub"; None: the summary)."""
        pieces: List[bytes] = []

        def take(_cookie, data, size):
            pieces.append(ctypes.string_at(data, size))
            return 0

        cb = WRITE_CALLBACK(take)
        if fmt is None:
            res = self.c.output_summary(ctypes.byref(out), cb, None)
        else:
            f = self.c.scores_format_from_string(fmt.encode())
            if f < 0:
                raise ValueError(f"unknown score format {fmt!r}")
            res = self.c.output_write(ctypes.byref(out), f, cb, None)
        if res < 0:
            raise ValueError(f"cannot write the scores ({os.strerror(-res)})")
        return b"".join(pieces).decode()

    def parse_scores(self, data: bytes):
        """A score file read: (its ScoreRows, copied; its version; its fps, NaN where none),
        or ValueError with the library's message."""
        s = ScoreSet()
        st = FileStatus()
        if self.c.scores_parse(ctypes.byref(s), data, len(data), ctypes.byref(st)) < 0:
            raise ValueError(st.message.decode(errors="replace"))
        try:
            rows = [ScoreRow.from_buffer_copy(s.frames[i]) for i in range(s.num_frames)]
        finally:
            self.c.scores_free(ctypes.byref(s))
        return rows, s.version.decode(errors="replace"), s.fps

    def __repr__(self) -> str:
        return f"<psnrhvs.Library {self.path} {self.version}>"


_NAMES = ("libpsnrhvs.so", "libpsnrhvs.so.1", "libpsnrhvs.dylib", "psnrhvs.dll")
_PACKAGE_DIR = Path(__file__).resolve().parent
_REPO_ROOT = _PACKAGE_DIR.parent.parent


def library_candidates() -> List[Path]:
    """Where the library is looked for after the argument and PSNRHVS_LIBRARY."""
    dirs = [
        _PACKAGE_DIR / "lib",   # bundled by setup.py (pip install ./python)
        _PACKAGE_DIR,           # copied into the package
        _PACKAGE_DIR.parent,    # next to the package (site-packages or prefix/lib)
    ]
    build = os.environ.get("PSNRHVS_BUILD_DIR")
    if build:
        dirs.append(Path(build) / "src")
    dirs.append(_REPO_ROOT / "build" / "src")  # this source tree's ./build.sh build
    return [d / n for d in dirs for n in _NAMES]


def find_library(path: Optional[Union[str, os.PathLike]] = None) -> str:
    """The library to load: explicit path, $PSNRHVS_LIBRARY, the one bundled in the
    package (pip install), next to the package, the source tree's build folder,
    then the system's search (ldconfig, LD_LIBRARY_PATH)."""
    if path:
        return os.fspath(path)
    env = os.environ.get("PSNRHVS_LIBRARY")
    if env:
        return env
    for cand in library_candidates():
        if cand.is_file():
            return str(cand)
    found = ctypes.util.find_library("psnrhvs")
    if found:
        return found
    # find_library() ignores LD_LIBRARY_PATH on some systems; dlopen() does not.
    soname = "libpsnrhvs.dylib" if sys.platform == "darwin" else "libpsnrhvs.so.1"
    try:
        ctypes.CDLL(soname)
        return soname
    except OSError:
        pass
    looked = ", ".join(str(c) for c in library_candidates()[::len(_NAMES)])
    raise LibraryNotFoundError(
        "libpsnrhvs not found: pass library=PATH, set PSNRHVS_LIBRARY, or build it "
        f"(./build.sh build); looked in {looked} and the system's library path")


_loaded: Dict[str, Library] = {}
_load_lock = threading.Lock()


def load_library(path: Optional[Union[str, os.PathLike, Library]] = None) -> Library:
    """Load (once per path) and return the library."""
    if isinstance(path, Library):
        return path
    resolved = find_library(path)
    with _load_lock:
        lib = _loaded.get(resolved)
        if lib is None:
            lib = _loaded[resolved] = Library(resolved)
        return lib
