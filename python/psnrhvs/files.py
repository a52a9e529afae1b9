# SPDX-License-Identifier: BSD-2-Clause
"""Raw planar YUV and YUV4MPEG2 files, and score_files().

The files are libpsnrhvs's (psnrhvs_file_*, include/psnrhvs.h), as the CLI
reads them: the library parses the Y4M header, locates each frame in the
bytes read, gives the plane geometry and negotiates the pair's format, and
its messages become the exceptions here (in this package's keywords: width,
not --width). A frame is read (pread) into an array of its own and its planes
are numpy views into it: nothing is copied again on the way to the library.

Inputs that are neither (an .mp4, .mkv, .ivf ...) go to the psnrhvs CLI,
which decodes them where it is built with FFmpeg's libraries.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

import numpy as np

from . import _lib
from .errors import (CLIError, FormatMismatchError, InputError, MalformedY4MError,
                     OutOfMemoryError, PlaneTooSmallError, PsnrHvsWarning, TruncatedFrameError,
                     UnsupportedFormatError, UsageError)
from .results import FrameScore, Result, parse_json
from ._cli_args import (HWACCELS, SCALE_ALGOS, _device_arg, _hwaccel_name,  # noqa: F401
                        _pythonize, _scale_name, find_cli)
from .scorer import Scorer, check_int as _uint, normalize_pixel_format

PathLike = Union[str, "os.PathLike[str]"]

_Y4M_MAX_LINE = 4096  # src/file.c: the longest FRAME line the library reads
UINT_MAX = 2**32 - 1

#: enum PsnrHvsFileError's kinds as exceptions
_ERRORS = {"malformed": MalformedY4MError, "truncated": TruncatedFrameError,
           "unsupported": UnsupportedFormatError, "mismatch": FormatMismatchError,
           "usage": UsageError, "too_small": PlaneTooSmallError, "nomem": OutOfMemoryError}


def _error(st: _lib.FileStatus) -> Exception:
    """The exception for a failed file call: its class from the library's kind,
    its text the library's message in this package's keywords."""
    kind = _lib.FILE_ERRORS[st.error] if 0 <= st.error < len(_lib.FILE_ERRORS) else "io"
    text = _pythonize(os.fsdecode(st.message))
    return _ERRORS.get(kind, InputError)(text, errno=st.errnum or None)


def _c_format(fmt: "Format", lib: _lib.Library) -> _lib.Format:
    return _lib.Format(fmt.width, fmt.height, lib.layouts()[fmt.pixel_format], fmt.bitdepth)


def _py_format(f: _lib.Format, lib: _lib.Library) -> "Format":
    return Format(f.width, f.height, lib.layout_name(f.layout), f.bitdepth)


def check_bitdepth(depth: int, library: Any = None) -> Optional[str]:
    """None for 8, 10, 12, else the library's reason (13-16 bits get their own)."""
    st = _lib.FileStatus()
    if _lib.load_library(library).c.check_bitdepth(depth, ctypes.byref(st)) == 0:
        return None
    return os.fsdecode(st.message)


@dataclass(frozen=True)
class Format:
    """What a file holds: luma size, chroma layout ("420", ...), bits per sample."""
    width: int
    height: int
    pixel_format: str = "420"
    bitdepth: int = 8


@dataclass(frozen=True)
class Geometry:
    """Stored plane sizes (chroma rounded up, as FFmpeg writes odd sizes) and
    the sizes libvmaf scores (rounded down): the library's psnrhvs_geometry()."""
    bytes_per_sample: int
    stored: Tuple[Tuple[int, int], ...]  # (rows, columns) per plane
    scored: Tuple[Tuple[int, int], ...]

    @property
    def plane_bytes(self) -> List[int]:
        return [h * w * self.bytes_per_sample for h, w in self.stored]

    @property
    def frame_bytes(self) -> int:
        return sum(self.plane_bytes)

    @classmethod
    def of(cls, fmt: Format, library: Any = None) -> "Geometry":
        g, lib = _lib.Geometry(), _lib.load_library(library)
        c = _c_format(fmt, lib)
        if lib.c.geometry(ctypes.byref(c), ctypes.byref(g)) < 0:
            raise UsageError(f"invalid format {fmt}")
        n = g.num_planes
        return cls(g.bytes_per_sample,
                   tuple((g.stored_h[p], g.stored_w[p]) for p in range(n)),
                   tuple((g.scored_h[p], g.scored_w[p]) for p in range(n)))


class VideoFile:
    """One input. ``format`` is the Y4M header's (None for raw until
    set_format()); read() returns the next frame's planes as views of the
    bytes read for it."""

    def __init__(self, path: PathLike, library: Any = None):
        self.path = os.fspath(path)
        self.name = self.path
        self.frames_read = 0
        self.format: Optional[Format] = None
        self.geometry: Optional[Geometry] = None
        #: the colour range a Y4M header declares (XCOLORRANGE): "limited", "full" or None
        self.colour_range: Optional[str] = None
        self._lib = _lib.load_library(library)
        self._f = ctypes.c_void_p()
        st = _lib.FileStatus()
        if self._lib.c.file_open(ctypes.byref(self._f), os.fsencode(self.path),
                                 ctypes.byref(st)) < 0:
            raise _error(st)
        info = _lib.FileInfo()
        self._lib.c.file_info(self._f, ctypes.byref(info))
        self.is_y4m = bool(info.y4m)
        if self.is_y4m:
            self.format = _py_format(info.format, self._lib)
            self.colour_range = info.colour.range.decode() or None
        # Read, not mapped: a mapped file cut short under us (another process
        # truncating it) would kill the process with SIGBUS.
        self.size = os.path.getsize(self.path)
        self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        self.pos = info.header_bytes

    def close(self) -> None:
        if self._f:
            self._lib.c.file_close(ctypes.byref(self._f))
        if getattr(self, "_fd", -1) >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        if getattr(self, "_f", None):
            self.close()

    def release(self) -> None:
        """Kept for callers of the mapped reader: each frame is an array of its
        own, freed with its planes; nothing stays resident."""

    def set_format(self, fmt: Format) -> None:
        st = _lib.FileStatus()
        c = _c_format(fmt, self._lib)
        if self._lib.c.file_set_format(self._f, ctypes.byref(c), ctypes.byref(st)) < 0:
            raise _error(st)
        self.geometry = Geometry.of(fmt, self._lib)
        self.format = fmt

    def _cut_short(self) -> TruncatedFrameError:
        """The CLI's error for a file cut short while being read (tools/input/mapped.c)."""
        return TruncatedFrameError(f"truncated frame {self.frames_read} in {self.name}: the "
                                   "file was cut short while being read")

    def _read_bytes(self, length: int) -> np.ndarray:
        """The next length bytes, which the file had when it was opened: fewer
        now means it was cut short while being read."""
        buf = np.empty(length, np.uint8)
        got = 0
        while got < length:
            try:
                n = os.preadv(self._fd, [buf[got:]], self.pos + got)
            except OSError as e:
                raise InputError(f"cannot read {self.name}: {e.strerror}", errno=e.errno) from None
            if n <= 0:
                raise self._cut_short()
            got += n
        return buf

    def read(self) -> Optional[List[np.ndarray]]:
        """The next frame's stored planes, None at a clean end, or an InputError."""
        g = self.geometry
        assert g is not None
        avail = max(self.size - self.pos, 0)
        # What the library may look at: a FRAME line and the samples.
        window = self._read_bytes(min(avail, _Y4M_MAX_LINE + g.frame_bytes)) if avail else None
        at = window.ctypes.data if window is not None else None
        header = ctypes.c_size_t()
        st = _lib.FileStatus()
        res = self._lib.c.file_locate(self._f, at, avail, ctypes.byref(header),
                                      ctypes.byref(st))
        if res < 0:
            raise _error(st)
        if res == 0:
            return None
        planes = []
        off = header.value
        dtype = np.dtype("<u2") if g.bytes_per_sample == 2 else np.dtype(np.uint8)
        for (h, w), nbytes in zip(g.stored, g.plane_bytes):
            view = window[off:off + nbytes]
            if dtype.itemsize == 2:
                # A view, not a copy: the scorer copies only where it must
                # (a big-endian host, a sample address that is not even).
                view = view.view(dtype)
            planes.append(view.reshape(h, w))
            off += nbytes
        self.pos += off
        self.frames_read += 1
        return planes


def _is_compressed(path: str, library: Any = None) -> bool:
    """A container, coded stream or image the raw reader would misread as YUV
    (an image sequence pattern, frames/%05d.png, too): the library's probe."""
    try:
        with open(path, "rb") as f:
            head: Optional[bytes] = f.read(16)
    except OSError:
        head = None  # by name only; the reader reports it
    what = _lib.load_library(library).c.file_probe(head, len(head or b""), os.fsencode(path))
    return what is not None and what != b"Y4M"


def _resolve_format(ref: VideoFile, dist: VideoFile, width: Optional[int],
                    height: Optional[int], pixel_format: Optional[str],
                    bitdepth: Optional[int],
                    common_bitdepth: bool = False) -> Tuple[Format, Format, Format]:
    """The library's psnrhvs_format_negotiate(), as the CLI's: Y4M headers win,
    options must agree with them (the depth may differ with common_bitdepth:
    the options then describe the raw side). Returns the format scored and
    the two as read."""
    lib = ref._lib
    opt = _lib.FormatOptions(width or 0, height or 0,
                             lib.layouts()[pixel_format] if pixel_format else -1, bitdepth or 0,
                             0, int(common_bitdepth))

    def side(f: VideoFile) -> _lib.FormatSide:
        s = _lib.FormatSide(os.fsencode(f.name), b"the Y4M header" if f.is_y4m else None)
        if f.format is not None:
            s.format = _c_format(f.format, lib)
        return s

    r, d, out, st = side(ref), side(dist), _lib.Format(), _lib.FileStatus()
    if lib.c.format_negotiate(ctypes.byref(opt), ctypes.byref(r), ctypes.byref(d),
                              ctypes.byref(out), ctypes.byref(st)) < 0:
        raise _error(st)
    return _py_format(out, lib), _py_format(r.format, lib), _py_format(d.format, lib)


def _check_colour(ref: "VideoFile", dist: "VideoFile", mode: Optional[str],
                  quiet: bool) -> None:
    """The library's psnrhvs_colour_compare() of what Y4M declares: the range."""
    a, b = _lib.Colour(), _lib.Colour()
    a.range, b.range = (ref.colour_range or "").encode(), (dist.colour_range or "").encode()
    st = _lib.FileStatus()
    res = ref._lib.c.colour_compare(os.fsencode(ref.name), ctypes.byref(a),
                                    os.fsencode(dist.name), ctypes.byref(b),
                                    int(mode == "error"), ctypes.byref(st))
    if res < 0:
        raise _error(st)
    if res and not quiet:
        warnings.warn(_pythonize(os.fsdecode(st.message)), PsnrHvsWarning, stacklevel=3)


def _shift_up(planes: List[np.ndarray], fmt: Format, from_bitdepth: int,
              library: Any = None) -> List[np.ndarray]:
    """common_bitdepth: the library's psnrhvs_picture_shift() into new 16-bit
    planes of fmt (the CLI's v << shift)."""
    src, dst = _lib.Picture(), _lib.Picture()
    out = []
    for p, plane in enumerate(planes):
        if plane.dtype.itemsize == 2 and not plane.dtype.isnative:
            plane = plane.astype(np.uint16)  # a big-endian host: samples in its order
        planes[p] = plane
        out.append(np.empty(plane.shape, np.uint16))
        src.data[p], src.stride[p] = plane.ctypes.data, plane.strides[0]
        dst.data[p], dst.stride[p] = out[p].ctypes.data, out[p].strides[0]
    lib = _lib.load_library(library)
    c = _c_format(fmt, lib)
    if lib.c.picture_shift(ctypes.byref(c), from_bitdepth, ctypes.byref(src),
                           ctypes.byref(dst)) < 0:
        raise UsageError(f"cannot shift {from_bitdepth}-bit samples to {fmt}")
    return out


def _check_plane_sizes(fmt: Format, enable_chroma: bool, library: Any = None) -> None:
    lib = _lib.load_library(library)
    st, c = _lib.FileStatus(), _c_format(fmt, lib)
    if lib.c.check_planes(ctypes.byref(c), int(enable_chroma), ctypes.byref(st)) < 0:
        raise _error(st)


def score_with_cli(reference: PathLike, distorted: PathLike, *, cli: Optional[PathLike] = None,
                   library: Any = None, width: Optional[int] = None,
                   height: Optional[int] = None, pixel_format: Optional[str] = None,
                   bitdepth: Optional[int] = None, frame_cnt: Optional[int] = None,
                   frame_skip_ref: int = 0, frame_skip_dist: int = 0, subsample: int = 1,
                   enable_chroma: bool = True, mask_product: str = "float",
                   backend: str = "auto", device: Any = 0, threads: int = 0,
                   isa: str = "auto", scale: Any = None, common_bitdepth: bool = False,
                   hwaccel: Any = None, colour_mismatch: Optional[str] = None,
                   quiet: bool = False, **_ignored: Any) -> Result:
    """Run ``psnrhvs --json --precision max --raw -o TMP`` and read its output.
    The values are the CLI's bits (raw scores as %a, dB values as %.17g); the
    CLI's warnings come as PsnrHvsWarning (none with quiet)."""
    exe = find_cli(cli, library)
    ref, dist = os.fspath(reference), os.fspath(distorted)
    args = [exe, "-r", ref, "-d", dist, "--json", "--precision", "max", "--raw"]
    if quiet:
        args.append("-q")
    for flag, v in (("-w", width), ("-h", height), ("-p", pixel_format), ("-b", bitdepth),
                    ("--frame_cnt", frame_cnt)):
        if v is not None:
            args += [flag, str(v)]
    if frame_skip_ref:
        args += ["--frame_skip_ref", str(frame_skip_ref)]
    if frame_skip_dist:
        args += ["--frame_skip_dist", str(frame_skip_dist)]
    if subsample != 1:
        args += ["--subsample", str(subsample)]
    algo = _scale_name(scale)
    if algo:
        args.append(f"--scale={algo}")
    if common_bitdepth:
        args.append("--common_bitdepth")
    hw = _hwaccel_name(hwaccel)
    if hw:
        args += ["--hwaccel", hw]
    if colour_mismatch:
        args += ["--colour_mismatch", colour_mismatch]
    feat = []
    if not enable_chroma:
        feat.append("enable_chroma=false")
    if mask_product != "float":
        feat.append(f"mask_product={mask_product}")
    if feat:
        args += ["--feature", "psnr_hvs=" + ":".join(feat)]
    args += ["--backend", backend, "--device", _device_arg(device), "--threads", str(threads),
             "--isa", isa]
    with tempfile.TemporaryDirectory(prefix="psnrhvs-") as tmp:
        out = os.path.join(tmp, "scores.json")
        start = time.monotonic()
        try:
            p = subprocess.run(args + ["-o", out], capture_output=True, text=True)
        except OSError as e:
            raise CLIError(f"cannot run {exe}: {e.strerror}") from None
        if p.returncode != 0 or not os.path.exists(out):
            why = " ".join(line.strip() for line in p.stderr.splitlines() if line.strip())
            raise CLIError(
                f"the psnrhvs CLI ({exe}) cannot score {ref} / {dist} (exit {p.returncode}): "
                f"{_pythonize(why) or 'no output'}. Compressed inputs need a CLI built with "
                "FFmpeg's libraries; raw .yuv and .y4m files are read by the Python package "
                "itself", returncode=p.returncode, stderr=p.stderr)
        elapsed = time.monotonic() - start
        for line in p.stderr.splitlines():
            if line.startswith("psnrhvs: warning: "):
                warnings.warn(_pythonize(line[len("psnrhvs: warning: "):]), PsnrHvsWarning,
                              stacklevel=3)
        with open(out) as f:
            res = parse_json(f.read(), library)
    res.extra["cli"] = exe
    res.extra["inputs"] = {"the reference": ref, "the distorted": dist}
    res.backend = backend
    # The CLI's JSON (libvmaf's layout) has no geometry: what a raw or Y4M
    # reference says is what was scored (scale scales the distorted to it).
    if not _is_compressed(ref, library):
        try:
            head = VideoFile(ref, library).format
        except InputError:
            head = None
        fmt = head or (Format(width, height, pixel_format or "420", bitdepth or 8)
                       if width and height else None)
        if fmt is not None:
            res.width, res.height, res.pixel_format = fmt.width, fmt.height, fmt.pixel_format
            res.bitdepth = None if common_bitdepth else fmt.bitdepth
    res.fps = len(res.frames) / elapsed if elapsed > 0 else 0.0
    return res


def _no_frames_message(ref: "VideoFile", dist: "VideoFile", skip_ref: int, skip_dist: int) -> str:
    """The CLI's one line (tools/psnrhvs.c): which side had no frame to pair."""
    ref_none = ref.frames_read <= skip_ref
    dist_none = dist.frames_read <= skip_dist
    if ref_none and dist_none and ref.name != dist.name:
        after = " after skipping" if skip_ref or skip_dist else ""
        return f"no frames to score: neither {ref.name} nor {dist.name} has a frame{after}"
    if ref_none or dist_none:
        f, skip = (ref, skip_ref) if ref_none else (dist, skip_dist)
        return f"no frames to score: {f.name} has no frame{' after skipping' if skip else ''}"
    return "no frames to score"


def score_files(reference: PathLike, distorted: PathLike, *, width: Optional[int] = None,
                height: Optional[int] = None, pixel_format: Any = None,
                bitdepth: Optional[int] = None, frame_cnt: Optional[int] = None,
                frame_skip_ref: int = 0, frame_skip_dist: int = 0, subsample: int = 1,
                enable_chroma: bool = True, mask_product: str = "float", backend: str = "auto",
                device: Any = 0, threads: int = 0, isa: str = "auto",
                exact_helpers: bool = False, frames_in_flight: int = 0, quiet: bool = False,
                scale: Any = None, common_bitdepth: bool = False, hwaccel: Any = None,
                colour_mismatch: Optional[str] = None, container: str = "auto",
                library: Any = None, cli: Optional[PathLike] = None) -> Result:
    """Score a distorted video file against a reference, as the CLI would.

    Raw YUV needs width/height (pixel_format defaults to "420", bitdepth to 8);
    Y4M brings its own. The options are the CLI's flags of the same names:
    scale (True: bicubic, or an algorithm's name: the distorted scaled to the
    reference size), common_bitdepth (the lower-depth side shifted up),
    hwaccel ("auto", the default: NVDEC where it is faster; "none" or False:
    the CPU; "cuda": NVDEC), colour_mismatch ("warn", "error"), device (N,
    "all" or a list). container: "auto" (Y4M by magic; a compressed container,
    coded stream or image, scale, or a device list go to the CLI; anything else
    is raw), "files" (never the CLI) or "cli" (always the CLI).
    """
    ref_path, dist_path = os.fspath(reference), os.fspath(distorted)
    if width is not None:
        width = _uint(width, "width", 1, _lib.MAX_DIMENSION)
    if height is not None:
        height = _uint(height, "height", 1, _lib.MAX_DIMENSION)
    if pixel_format is not None:
        pixel_format = normalize_pixel_format(pixel_format, library)
    if bitdepth is not None:
        bitdepth = _uint(bitdepth, "bitdepth", 1, 64)
        msg = check_bitdepth(bitdepth, library)
        if msg:
            raise UsageError(msg)
    if frame_cnt is not None:
        frame_cnt = _uint(frame_cnt, "frame_cnt", 1, UINT_MAX)
    frame_skip_ref = _uint(frame_skip_ref, "frame_skip_ref", 0, UINT_MAX)
    frame_skip_dist = _uint(frame_skip_dist, "frame_skip_dist", 0, UINT_MAX)
    subsample = _uint(subsample, "subsample", 1, UINT_MAX)
    threads = _uint(threads, "threads", 0, 1024)
    device_list = device == "all" or isinstance(device, (list, tuple))
    device_text = _device_arg(device)
    algo = _scale_name(scale)
    hw = _hwaccel_name(hwaccel)
    if colour_mismatch not in (None, "warn", "error"):
        raise UsageError(f"unknown colour_mismatch '{colour_mismatch}' (expected warn or error)")
    if not isinstance(common_bitdepth, bool):
        raise UsageError(f"invalid common_bitdepth {common_bitdepth!r}: expected True or False")
    if container not in ("auto", "files", "cli"):
        raise UsageError(f"unknown container '{container}' (expected auto, files or cli)")
    opts = dict(enable_chroma=enable_chroma, mask_product=mask_product, backend=backend,
                threads=threads, isa=isa)

    compressed = _is_compressed(ref_path, library) or _is_compressed(dist_path, library)
    if container == "files" and (algo or device_list):
        raise UsageError(f"{'scale' if algo else 'a device list'} needs the psnrhvs CLI "
                         "(container='files' forbids it)")
    if container == "cli" or (container == "auto" and (compressed or algo or device_list)):
        return score_with_cli(ref_path, dist_path, cli=cli, library=library, width=width,
                              height=height, pixel_format=pixel_format, bitdepth=bitdepth,
                              frame_cnt=frame_cnt, frame_skip_ref=frame_skip_ref,
                              frame_skip_dist=frame_skip_dist, subsample=subsample,
                              scale=algo, common_bitdepth=common_bitdepth, hwaccel=hw,
                              colour_mismatch=colour_mismatch, quiet=quiet, device=device,
                              **opts)
    if hw == "cuda" and not quiet:
        warnings.warn("hwaccel has no effect: no input is compressed", PsnrHvsWarning,
                      stacklevel=2)
    device = int(device_text)
    opts["device"] = device

    ref = VideoFile(ref_path, library)
    dist = VideoFile(dist_path, library)
    fmt, ref_fmt, dist_fmt = _resolve_format(ref, dist, width, height, pixel_format, bitdepth,
                                             common_bitdepth)
    _check_colour(ref, dist, colour_mismatch, quiet)
    _check_plane_sizes(fmt, enable_chroma, library)
    ref.set_format(ref_fmt)
    dist.set_format(dist_fmt)
    ref_shift, dist_shift = fmt.bitdepth - ref_fmt.bitdepth, fmt.bitdepth - dist_fmt.bitdepth

    frames: List[FrameScore] = []
    start = time.monotonic()
    with Scorer(fmt.width, fmt.height, pixel_format=fmt.pixel_format, bitdepth=fmt.bitdepth,
                exact_helpers=exact_helpers, frames_in_flight=frames_in_flight,
                library=library, **opts) as sc:
        error: Optional[InputError] = None
        ended: Optional[Tuple[VideoFile, VideoFile, int]] = None
        try:
            # pair_reader.c: skips first (a read error there is an error), then pairs.
            for f, n in ((ref, frame_skip_ref), (dist, frame_skip_dist)):
                for _ in range(n):
                    if f.read() is None:
                        break
            idx = 0
            while frame_cnt is None or idx < frame_cnt:
                # Both sides are read before either error is reported: the
                # reference's error wins, as in the CLI's pair reader.
                r_err = d_err = None
                try:
                    rp = ref.read()
                except InputError as e:
                    r_err, rp = e, None
                try:
                    dp = dist.read()
                except InputError as e:
                    d_err, dp = e, None
                if r_err or d_err:
                    raise r_err or d_err  # type: ignore[misc]
                if rp is None or dp is None:
                    if (rp is None) != (dp is None):
                        ended = (ref, dist, idx) if rp is None else (dist, ref, idx)
                    break
                if idx % subsample == 0:
                    if ref_shift:
                        rp = _shift_up(rp, fmt, ref_fmt.bitdepth, library)
                    if dist_shift:
                        dp = _shift_up(dp, fmt, dist_fmt.bitdepth, library)
                    while not sc.send(rp, dp, idx):
                        got = sc.receive()
                        if got is None:
                            raise InputError("the scorer is full with nothing queued")
                        frames.append(got)
                # Sent frames are copied by the library: their pages can go.
                del rp, dp
                ref.release()
                dist.release()
                idx += 1
        except InputError as e:
            error = e  # reported after the frames read before it are scored
        frames.extend(sc.drain())
        if error is not None:
            raise error
        if ended is not None and not quiet:
            warnings.warn(f"{ended[0].name} ended before {ended[1].name}, after {ended[2]} "
                          "frames", PsnrHvsWarning, stacklevel=2)
        elapsed = time.monotonic() - start
        if not frames:
            raise InputError(_no_frames_message(ref, dist, frame_skip_ref, frame_skip_dist))
        return Result.from_frames(
            frames, sc.library, width=fmt.width, height=fmt.height,
            pixel_format=fmt.pixel_format, bitdepth=fmt.bitdepth, backend=sc.backend, isa=sc.isa,
            fps=len(frames) / elapsed if elapsed > 0 else 0.0,
            version=f"psnrhvs-{sc.library.version}",
            extra={"inputs": {"the reference": ref_path, "the distorted": dist_path}})

