# SPDX-License-Identifier: BSD-2-Clause
"""A scorer over the C library: numpy planes in, FrameScore out.

Planes are handed to the library as pointer + byte stride, so any array whose
rows are contiguous (last axis stride = item size) is passed without a copy:
slices of wider arrays, views into memory-mapped files, padded buffers. Only
arrays the library cannot address that way are copied (see _plane()).
"""
from __future__ import annotations

import ctypes
import errno
import logging
import time
import warnings
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from .errors import (InvalidArgumentError, PsnrHvsError, PsnrHvsWarning, UsageError,
                     error_from_code)
from .results import FrameScore, Result

log = logging.getLogger("psnrhvs")

EAGAIN = errno.EAGAIN
INT_MIN, INT_MAX = -2**31, 2**31 - 1
_END = object()

Planes = Union[np.ndarray, Sequence[np.ndarray]]


def plane_sizes(width: int, height: int, pixel_format: str,
                library: Any = None) -> List[Tuple[int, int]]:
    """(height, width) of each plane libvmaf scores (chroma rounded down): the
    library's psnrhvs_geometry()."""
    lib = _lib.load_library(library)
    f = _lib.Format(width, height, lib.layouts()[pixel_format], 8)
    g = _lib.Geometry()
    if lib.c.geometry(ctypes.byref(f), ctypes.byref(g)) < 0:
        raise InvalidArgumentError(f"invalid size {width}x{height}")
    return [(g.scored_h[p], g.scored_w[p]) for p in range(g.num_planes)]


def normalize_pixel_format(pf: Any, library: Any = None) -> str:
    """pf as the library names layouts ("420", ...; "yuv420p" too), else UsageError."""
    text = str(pf)
    if text.startswith("yuv") and text.endswith("p"):
        text = text[3:-1]  # "yuv420p" -> "420"
    names = list(_lib.load_library(library).layouts())
    if text not in names:
        raise UsageError(f"unknown pixel format '{pf}' "
                         f"(expected {', '.join(names[:-1])} or {names[-1]})")
    return text


def check_int(value: Any, name: str, lo: int, hi: int) -> int:
    """value as an int if it is one (numpy's too, never a bool, a float or a
    string) from lo to hi, else UsageError: nothing is truncated."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not lo <= int(value) <= hi:
        raise UsageError(f"invalid {name} '{value}': expected an integer from {lo} to {hi}")
    return int(value)


def _choice(value: Any, table: dict, what: str) -> int:
    if value in table:
        return table[value]
    names = list(table)
    raise UsageError(f"unknown {what} '{value}' (expected {', '.join(names[:-1])} or {names[-1]})")


class Scorer:
    """One libpsnrhvs context for one geometry.

    ``score()`` scores one pair; ``send()``/``receive()`` keep frames in flight
    (threaded and GPU backends overlap them); ``score_frames()`` does that for
    an iterable of pairs. Not for concurrent use from several threads: open
    one Scorer per thread.
    """

    def __init__(self, width: int, height: int, *, pixel_format: Any = "420", bitdepth: int = 8,
                 enable_chroma: bool = True, mask_product: str = "float", backend: str = "auto",
                 device: int = 0, threads: int = 0, isa: str = "auto",
                 exact_helpers: bool = False, frames_in_flight: int = 0,
                 library: Any = None):
        self._ctx = ctypes.c_void_p()
        self._lib = _lib.load_library(library)
        self.pixel_format = normalize_pixel_format(pixel_format, self._lib)
        # Integers that fit a C int, never truncated: the library checks ranges.
        self.width = check_int(width, "width", INT_MIN, INT_MAX)
        self.height = check_int(height, "height", INT_MIN, INT_MAX)
        self.bitdepth = check_int(bitdepth, "bitdepth", INT_MIN, INT_MAX)
        self.messages: List[str] = []
        messages = self.messages

        def on_log(_cookie: Optional[int], msg: bytes) -> None:
            text = msg.decode("utf-8", "replace")
            messages.append(text)
            log.info("%s", text)

        # Kept on the instance: the library calls it until psnrhvs_close() returns.
        self._log_cb = _lib.LOG_CALLBACK(on_log)

        s = _lib.Settings()
        self._lib.c.default_settings(ctypes.byref(s))
        s.width, s.height = self.width, self.height
        s.layout = self._lib.layouts()[self.pixel_format]
        s.bitdepth = self.bitdepth
        s.enable_chroma = 1 if enable_chroma else 0
        s.mask_product = _choice(mask_product, _lib.MASK_PRODUCTS, "mask_product")
        s.backend = _choice(backend, self._lib.backends(), "backend")
        s.device = check_int(device, "device", INT_MIN, INT_MAX)
        s.threads = check_int(threads, "threads", INT_MIN, INT_MAX)
        s.isa = _choice(isa, _lib.ISAS, "isa")
        s.exact_helpers = 1 if exact_helpers else 0
        s.frames_in_flight = check_int(frames_in_flight, "frames_in_flight", INT_MIN, INT_MAX)
        s.logger.cookie = None
        s.logger.callback = self._log_cb
        self.settings = s

        before = len(messages)
        res = self._lib.c.open(ctypes.byref(self._ctx), ctypes.byref(s))
        if res < 0:
            self._ctx = ctypes.c_void_p()
            raise error_from_code(res, "cannot open the scorer", messages[before:])

        self.num_planes = 1 if self.pixel_format == "400" or not enable_chroma else 3
        self.sizes = plane_sizes(self.width, self.height, self.pixel_format,
                                 self._lib)[:self.num_planes]
        self.dtype = np.dtype(np.uint8 if self.bitdepth == 8 else np.uint16)
        self.in_flight = 0

    # --- context -----------------------------------------------------------------

    @property
    def backend(self) -> str:
        return self._lib.c.backend_name(self._live()).decode()

    @property
    def isa(self) -> Optional[str]:
        name = self._lib.c.isa_name(self._live())
        return name.decode() if name else None

    @property
    def library(self) -> _lib.Library:
        return self._lib

    def _live(self) -> ctypes.c_void_p:
        if not self._ctx:
            raise InvalidArgumentError("the scorer is closed")
        return self._ctx

    def close(self) -> None:
        """Free the context (waits for frames in flight)."""
        if self._ctx:
            self._lib.c.close(ctypes.byref(self._ctx))
            self._ctx = ctypes.c_void_p()
            self.in_flight = 0

    def __enter__(self) -> "Scorer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # --- pictures ----------------------------------------------------------------

    def _plane(self, arr: Any, p: int, what: str) -> Tuple[int, int, np.ndarray]:
        """(address, byte stride, array kept alive) for plane p.

        No copy when the library can read the array as it is: rows contiguous,
        a row stride of at least one scored row (so rows do not overlap, and
        never negative: the library takes strides >= the row size), aligned
        16-bit samples in native byte order. Anything else is copied once,
        only its scored part.
        """
        h, w = self.sizes[p]
        if not isinstance(arr, np.ndarray):
            arr = np.asarray(arr)
        if arr.ndim != 2:
            raise InvalidArgumentError(f"{what} plane {p} must be 2-D (rows, columns), "
                                       f"got shape {arr.shape}")
        if arr.dtype.kind != "u" or arr.dtype.itemsize != self.dtype.itemsize:
            raise InvalidArgumentError(
                f"{what} plane {p} has dtype {arr.dtype}; {self.bitdepth}-bit samples need "
                f"{self.dtype.name}")
        if arr.shape[0] < h or arr.shape[1] < w:
            raise InvalidArgumentError(
                f"{what} plane {p} is {arr.shape[1]}x{arr.shape[0]} (columns x rows), smaller "
                f"than the {w}x{h} scored for a {self.width}x{self.height} "
                f"{self.pixel_format} frame")
        isz = self.dtype.itemsize
        addr = arr.__array_interface__["data"][0]
        row, col = arr.strides
        usable = (col == isz and row >= w * isz and arr.dtype.isnative
                  and addr % isz == 0 and row % isz == 0)
        if not usable:
            # A fresh array (aligned; ascontiguousarray would keep a misaligned one).
            arr = np.array(arr[:h, :w], dtype=self.dtype.newbyteorder("="), order="C")
            addr = arr.__array_interface__["data"][0]
            row = arr.strides[0]
        return addr, row, arr

    def picture(self, planes: Planes, what: str = "picture") -> Tuple[_lib.Picture, list]:
        """The PsnrHvsPicture for planes, and the arrays to keep alive while it is used.

        planes: a 2-D array (luma only), a sequence of 1 or 3 2-D arrays, or a
        3-D array of planes along axis 0 (4:4:4 or 4:0:0).
        """
        if isinstance(planes, np.ndarray) and planes.ndim == 2:
            planes = (planes,)
        planes = list(planes)
        # 1 or 3, never more: a fourth plane (alpha?) would be ignored silently.
        if len(planes) < self.num_planes or len(planes) not in (1, 3):
            raise InvalidArgumentError(
                f"{what} has {len(planes)} plane(s); {self.num_planes} are scored "
                f"({self.pixel_format}{'' if self.num_planes == 3 else ', luma only'})")
        pic = _lib.Picture()
        keep = []
        for p in range(self.num_planes):
            addr, stride, arr = self._plane(planes[p], p, what)
            pic.data[p] = addr
            pic.stride[p] = stride
            keep.append(arr)
        return pic, keep

    # --- scoring -----------------------------------------------------------------

    def _frame(self, s: _lib.Score, frame: int) -> FrameScore:
        luma = s.num_planes == 1
        return FrameScore(
            frame=frame,
            psnr_hvs_y=s.psnr_hvs_y,
            psnr_hvs_cb=None if luma else s.psnr_hvs_cb,
            psnr_hvs_cr=None if luma else s.psnr_hvs_cr,
            psnr_hvs=s.psnr_hvs,
            raw_y=float(s.raw[0]),
            raw_cb=None if luma else float(s.raw[1]),
            raw_cr=None if luma else float(s.raw[2]),
        )

    def _call(self, fn, what: str, *args: Any) -> int:
        before = len(self.messages)
        res = fn(self._live(), *args)
        if res < 0 and res != -EAGAIN:
            raise error_from_code(res, what, self.messages[before:])
        return res

    def score(self, ref: Planes, dist: Planes, frame: int = 0) -> FrameScore:
        """Score one pair synchronously (no frames may be in flight)."""
        rp, keep_r = self.picture(ref, "reference")
        dp, keep_d = self.picture(dist, "distorted")
        out = _lib.Score()
        before = len(self.messages)
        res = self._lib.c.score(self._live(), ctypes.byref(rp), ctypes.byref(dp),
                                ctypes.byref(out))
        del keep_r, keep_d
        if res < 0:
            raise error_from_code(res, "scoring failed", self.messages[before:])
        return self._frame(out, frame)

    def send(self, ref: Planes, dist: Planes, tag: int = 0) -> bool:
        """Queue one pair; False when the queue is full (receive() first).
        The library copies the samples before returning: buffers may be reused."""
        rp, keep_r = self.picture(ref, "reference")
        dp, keep_d = self.picture(dist, "distorted")
        res = self._call(self._lib.c.send, f"scoring frame {tag} failed", ctypes.byref(rp),
                         ctypes.byref(dp), ctypes.c_uint64(tag))
        del keep_r, keep_d
        if res == -EAGAIN:
            return False
        self.in_flight += 1
        return True

    def receive(self) -> Optional[FrameScore]:
        """The oldest queued pair's score (waits for it), or None when nothing is queued."""
        out = _lib.Score()
        res = self._call(self._lib.c.receive, "scoring failed", ctypes.byref(out))
        if res == -EAGAIN:
            return None
        self.in_flight -= 1
        return self._frame(out, int(out.tag))

    def drain(self) -> List[FrameScore]:
        """Receive every frame still in flight."""
        out = []
        while True:
            s = self.receive()
            if s is None:
                return out
            out.append(s)

    def score_frames(self, pairs: Iterable[Tuple[Planes, Planes]],
                     start: int = 0) -> Iterator[FrameScore]:
        """Score (ref, dist) pairs with frames in flight, yielding scores in order.
        Frame numbers (tags) count from start."""
        tag = start
        try:
            for ref, dist in pairs:
                while not self.send(ref, dist, tag):
                    got = self.receive()
                    if got is None:
                        raise PsnrHvsError("the scorer is full with nothing queued")
                    yield got
                tag += 1
            while True:
                got = self.receive()
                if got is None:
                    return
                yield got
        finally:
            if self._ctx and self.in_flight:
                self.drain()  # a consumer that stopped early leaves nothing queued


def score_arrays(ref_frames: Iterable[Planes], dist_frames: Iterable[Planes], *,
                 width: Optional[int] = None, height: Optional[int] = None,
                 pixel_format: Any = "420", bitdepth: Optional[int] = None,
                 **options: Any) -> Result:
    """Score two sequences of numpy frames (each a 2-D luma array or a sequence of
    planes); the pooled result is what the CLI gives for the same samples.

    width/height default to the first reference luma plane's shape; bitdepth
    to 8 for uint8 samples (uint16 samples need it: 10 or 12). Options are
    Scorer's (enable_chroma, mask_product, backend, device, threads, isa, ...).
    """
    pixel_format = normalize_pixel_format(pixel_format, options.get("library"))
    ref_it, dist_it = iter(ref_frames), iter(dist_frames)
    frames: List[FrameScore] = []
    try:
        first_ref = next(ref_it)
        first_dist = next(dist_it)
    except StopIteration:
        raise InvalidArgumentError("no frames to score") from None
    luma = first_ref if isinstance(first_ref, np.ndarray) and first_ref.ndim == 2 else \
        np.asarray(first_ref[0])
    if height is None or width is None:
        height, width = luma.shape[0], luma.shape[1]
    if bitdepth is None:
        if luma.dtype.itemsize != 1:
            raise UsageError("uint16 samples need bitdepth=10 or 12")
        bitdepth = 8

    def pairs() -> Iterator[Tuple[Planes, Planes]]:
        yield first_ref, first_dist
        n = 1
        while True:
            r = next(ref_it, _END)
            d = next(dist_it, _END) if r is not _END else _END
            if r is _END or d is _END:
                break
            n += 1
            yield r, d
        # One side longer: the CLI's warning, and its frames are not scored.
        if r is _END and next(dist_it, _END) is not _END:
            ended, longer = "reference", "distorted"
        elif r is not _END:
            ended, longer = "distorted", "reference"
        else:
            return
        warnings.warn(f"the {ended} frames ended before the {longer} frames, after {n} frames",
                      PsnrHvsWarning, stacklevel=3)

    start = time.monotonic()
    with Scorer(width, height, pixel_format=pixel_format, bitdepth=bitdepth, **options) as sc:
        frames.extend(sc.score_frames(pairs()))
        elapsed = time.monotonic() - start
        return Result.from_frames(
            frames, sc.library, width=width, height=height, pixel_format=pixel_format,
            bitdepth=bitdepth,
            backend=sc.backend, isa=sc.isa, fps=len(frames) / elapsed if elapsed > 0 else 0.0,
            version=f"psnrhvs-{sc.library.version}")

