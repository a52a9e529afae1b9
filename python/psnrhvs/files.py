# SPDX-License-Identifier: BSD-2-Clause
"""Raw planar YUV and YUV4MPEG2 files, memory-mapped, and score_files().

The rules and the messages are the CLI's (tools/input, tools/psnrhvs.c,
docs/cli.md), so a file the CLI rejects raises here with the same words:
Y4M by its magic (a .y4m name without it is an error), raw otherwise; chroma
stored rounded up and scored rounded down; a partial last frame is an error
once the frames before it are scored; the longer input's extra frames are
ignored with a warning. Frames are numpy views into the mapping: nothing is
copied on the way to the library.

Inputs that are neither (an .mp4, .mkv, .ivf ...) go to the psnrhvs CLI,
which decodes them where it is built with FFmpeg's libraries.
"""
from __future__ import annotations

import mmap
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
                     PlaneTooSmallError, PsnrHvsWarning, TruncatedFrameError,
                     UnsupportedFormatError, UsageError)
from .results import FrameScore, Result, parse_json
from ._cli_args import (HWACCELS, SCALE_ALGOS, _device_arg, _hwaccel_name,  # noqa: F401
                        _pythonize, _scale_name, find_cli)
from .scorer import Scorer, check_int as _uint, normalize_pixel_format

PathLike = Union[str, "os.PathLike[str]"]

Y4M_MAGIC = b"YUV4MPEG2 "
Y4M_MAX_LINE = 4096  # tools/input/y4m.c: longer is not a Y4M header
RELEASE_BYTES = 16 << 20  # pages read are given back by this much at a time
UINT_MAX = 2**32 - 1
INT_MAX = 2**31 - 1

#: Magic numbers of containers and streams the raw reader must not take for YUV.
_COMPRESSED_MAGIC = (
    (4, b"ftyp"),                 # MP4, MOV, 3GP, HEIF
    (0, b"\x1a\x45\xdf\xa3"),     # Matroska, WebM
    (0, b"DKIF"),                 # IVF (VP8, VP9, AV1)
    (0, b"RIFF"),                 # AVI
    (0, b"OggS"),                 # Ogg
    (0, b"FLV"),                  # FLV
    (0, b"\x06\x0e\x2b\x34"),     # MXF
    (0, b"nut/mult"),             # NUT
    (0, b"\x89PNG\r\n\x1a\n"),     # PNG
    (0, b"\xff\xd8\xff"),         # JPEG
    (0, b"II*\x00"),              # TIFF, little endian
    (0, b"MM\x00*"),              # TIFF, big endian
)
#: --scale's algorithms (libswscale's names, tools/input/convert.c); bicubic is the default.

#: Names the CLI path takes even without a known magic (elementary streams).
_COMPRESSED_EXT = {".mp4", ".m4v", ".mov", ".mkv", ".webm", ".ivf", ".avi", ".ts", ".m2ts",
                   ".mts", ".mpg", ".mpeg", ".m2v", ".264", ".h264", ".avc", ".265", ".h265",
                   ".hevc", ".266", ".h266", ".vvc", ".obu", ".av1", ".flv", ".ogv", ".mxf",
                   ".3gp", ".nut", ".vob", ".wmv", ".png", ".jpg", ".jpeg", ".tif", ".tiff",
                   ".bmp", ".webp"}


def check_bitdepth(depth: int) -> Optional[str]:
    """None for 8, 10, 12, else the CLI's reason (13-16 bits get their own)."""
    if depth in (8, 10, 12):
        return None
    if 12 < depth <= 16:
        return (f"bit depth {depth} is not supported: 13-16 bits are not, because libvmaf's "
                "psnr_hvs accepts at most 12 bits and its f32 numerics are only defined up to 12")
    return f"bit depth {depth} is not supported (expected 8, 10 or 12)"


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
    the sizes libvmaf scores (rounded down): tools/input/geometry.c."""
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
    def of(cls, fmt: Format) -> "Geometry":
        w, h = fmt.width, fmt.height
        planes = [((h, w), (h, w))]
        if fmt.pixel_format == "420":
            planes += [(((h + 1) >> 1, (w + 1) >> 1), (h >> 1, w >> 1))] * 2
        elif fmt.pixel_format == "422":
            planes += [((h, (w + 1) >> 1), (h, w >> 1))] * 2
        elif fmt.pixel_format == "444":
            planes += [((h, w), (h, w))] * 2
        return cls(2 if fmt.bitdepth > 8 else 1, tuple(p[0] for p in planes),
                   tuple(p[1] for p in planes))


def _parse_dimension(text: str) -> int:
    """tools/input/y4m.c's parse_dimension: -1 malformed, -2 overflow, else the value."""
    if not text:
        return -1
    v = 0
    for ch in text:
        if not "0" <= ch <= "9":
            return -1
        v = v * 10 + ord(ch) - 48
        if v > INT_MAX:
            return -2
    return v if v else -1


class VideoFile:
    """One input, memory-mapped. ``format`` is the Y4M header's (None for raw
    until set_format()); read() returns the next frame's planes as views."""

    def __init__(self, path: PathLike):
        self.path = os.fspath(path)
        self.name = self.path
        self.frames_read = 0
        self.format: Optional[Format] = None
        self.geometry: Optional[Geometry] = None
        #: the colour range a Y4M header declares (XCOLORRANGE): "limited", "full" or None
        self.colour_range: Optional[str] = None
        if os.path.isdir(self.path):
            raise InputError(f"cannot read {self.name}: Is a directory")
        try:
            self.size = os.path.getsize(self.path)
            with open(self.path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            raise InputError(f"cannot open {self.name}: {e.strerror}", errno=e.errno) from None
        # A zero-length file cannot be mapped; it simply has no frames.
        self._mm: Optional[mmap.mmap] = None
        self.data = np.zeros(0, np.uint8)
        if self.size:
            with open(self.path, "rb") as f:
                self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            if hasattr(self._mm, "madvise") and hasattr(mmap, "MADV_SEQUENTIAL"):
                self._mm.madvise(mmap.MADV_SEQUENTIAL)
            self.data = np.frombuffer(self._mm, dtype=np.uint8)
        self.pos = 0
        self._released = 0
        self.is_y4m = head[:10] == Y4M_MAGIC
        if not self.is_y4m and self.path[-4:] in (".y4m", ".Y4M"):
            raise MalformedY4MError(f'malformed Y4M {self.name}: missing "YUV4MPEG2 " magic')
        if self.is_y4m:
            self._open_y4m()

    def _line(self, pos: int) -> Tuple[int, bytes]:
        """read_line() of y4m.c at pos: (length or -1 EOF / -2 no newline / -3 too long, line)."""
        if pos >= self.size:
            return -1, b""
        window = self.data[pos:pos + Y4M_MAX_LINE].tobytes()
        nl = window.find(b"\n")
        if nl >= 0:
            return nl, window[:nl]
        return (-3 if len(window) == Y4M_MAX_LINE else -2), b""

    def _open_y4m(self) -> None:
        n, line = self._line(10)
        if n == -3:
            raise MalformedY4MError(f"malformed Y4M {self.name}: header too long "
                                    f"(over {Y4M_MAX_LINE} bytes)")
        if n < 0:
            raise MalformedY4MError(f"malformed Y4M {self.name}: header does not end with a "
                                    "newline")
        self.pos = 10 + n + 1
        w = h = None
        pf, depth = "420", 8
        # C strings: a NUL ends the header as far as the C reader is concerned.
        text = line.split(b"\0", 1)[0].decode("latin-1")
        for tok in text.split(" "):
            if not tok:
                continue
            tag, val = tok[0], tok[1:]
            if tag in "WH":
                v = _parse_dimension(val)
                if v == -2 or v > _lib.MAX_DIMENSION:
                    raise InputError(f"{'width' if tag == 'W' else 'height'} in {self.name} "
                                     f"exceeds the maximum of {_lib.MAX_DIMENSION}")
                if v < 0:
                    raise MalformedY4MError(f"malformed Y4M {self.name}: bad {tag} tag '{tok}'")
                if tag == "W":
                    w = v
                else:
                    h = v
            elif tag == "C":
                pf, depth = self._colorspace(val)
            elif tok in ("XCOLORRANGE=FULL", "XCOLORRANGE=LIMITED"):
                self.colour_range = tok.split("=")[1].lower()
        if w is None or h is None:
            raise MalformedY4MError(f"malformed Y4M {self.name}: missing "
                                    f"{'W (width)' if w is None else 'H (height)'} tag in the "
                                    "header")
        self.format = Format(w, h, pf, depth)

    def _colorspace(self, tag: str) -> Tuple[str, int]:
        for prefix, pf in (("420", "420"), ("422", "422"), ("444", "444"), ("mono", "400")):
            if not tag.startswith(prefix):
                continue
            rest = tag[len(prefix):]
            depth = 8
            if not rest or (pf == "420" and rest in ("jpeg", "mpeg2", "paldv")):
                pass
            else:
                if pf != "400":
                    if rest[0] != "p":
                        break
                    rest = rest[1:]
                depth = _parse_dimension(rest)
                if depth < 0:
                    break
            msg = check_bitdepth(depth)
            if msg:
                raise UnsupportedFormatError(f"{msg} (C{tag} in {self.name})")
            return pf, depth
        raise MalformedY4MError(
            f"malformed Y4M {self.name}: unsupported C tag 'C{tag}' (expected 420jpeg, "
            "420mpeg2, 420paldv, 420, 422, 444, mono or their p10/p12 forms)")

    def release(self) -> None:
        """Drop the pages before the read position from this process's mapping.

        Mapped file pages count in the process's resident size, so a long
        video read through would look like its whole size in memory (and a
        Dask nanny kills workers over their memory limit). The file is mapped
        read-only: a dropped page stays in the page cache and would simply be
        read again if an old view were used.
        """
        if self._mm is None or not hasattr(mmap, "MADV_DONTNEED"):
            return
        end = self.pos // mmap.PAGESIZE * mmap.PAGESIZE
        if end - self._released >= RELEASE_BYTES:
            self._mm.madvise(mmap.MADV_DONTNEED, self._released, end - self._released)
            self._released = end

    def set_format(self, fmt: Format) -> None:
        self.geometry = Geometry.of(fmt)
        self.format = fmt

    def _payload(self, pos: int) -> Optional[List[np.ndarray]]:
        g = self.geometry
        assert g is not None
        fb = g.frame_bytes
        left = self.size - pos
        if left < fb:
            raise TruncatedFrameError(f"truncated frame {self.frames_read} in {self.name}: "
                                      f"expected {fb} bytes, got {left}")
        planes = []
        off = pos
        dtype = np.dtype("<u2") if g.bytes_per_sample == 2 else np.dtype(np.uint8)
        for (h, w), nbytes in zip(g.stored, g.plane_bytes):
            view = self.data[off:off + nbytes]
            if dtype.itemsize == 2:
                # A view, not a copy: the scorer copies only where it must
                # (a big-endian host, a sample address that is not even).
                view = view.view(dtype)
            planes.append(view.reshape(h, w))
            off += nbytes
        self.pos = pos + fb
        self.frames_read += 1
        return planes

    def read(self) -> Optional[List[np.ndarray]]:
        """The next frame's stored planes, None at a clean end, or an InputError."""
        if not self.is_y4m:
            if self.pos >= self.size:
                return None
            return self._payload(self.pos)
        n, line = self._line(self.pos)
        if n == -1:
            return None
        if n == -2:
            raise TruncatedFrameError(f"truncated frame {self.frames_read} in {self.name}: "
                                      "incomplete FRAME header")
        if n < 0 or line[:5] != b"FRAME" or (len(line) > 5 and line[5] not in (0x20, 0x00)):
            raise MalformedY4MError(f"malformed Y4M {self.name}: bad FRAME header at frame "
                                    f"{self.frames_read}")
        return self._payload(self.pos + n + 1)


def _is_compressed(path: str) -> bool:
    """A container, coded stream or image the raw reader would misread as YUV
    (an image sequence pattern, frames/%05d.png, too)."""
    p = path.lower()
    if "%" in p and any(p.endswith(ext) for ext in (".png", ".jpg", ".jpeg", ".tif", ".tiff",
                                                    ".bmp", ".webp")):
        return True
    if any(p.endswith(ext) for ext in _COMPRESSED_EXT):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError:
        return False  # the reader reports it
    if head[:10] == Y4M_MAGIC:
        return False
    return any(head[off:off + len(m)] == m for off, m in _COMPRESSED_MAGIC)


def _resolve_format(ref: VideoFile, dist: VideoFile, width: Optional[int],
                    height: Optional[int], pixel_format: Optional[str],
                    bitdepth: Optional[int],
                    common_bitdepth: bool = False) -> Tuple[Format, Format, Format]:
    """psnrhvs.c's resolve_format(): Y4M headers win, options must agree with
    them (the depth may differ with common_bitdepth: the options then
    describe the raw side). Returns the format scored and the two as read."""
    def agree(f: VideoFile) -> None:
        h = f.format
        if h is None:
            return
        if width is not None and width != h.width:
            raise FormatMismatchError(f"width {width} does not match the Y4M header of "
                                      f"{f.name} (W{h.width})")
        if height is not None and height != h.height:
            raise FormatMismatchError(f"height {height} does not match the Y4M header of "
                                      f"{f.name} (H{h.height})")
        if pixel_format is not None and pixel_format != h.pixel_format:
            raise FormatMismatchError(f"pixel_format {pixel_format} does not match the Y4M "
                                      f"header of {f.name} ({h.pixel_format})")
        if bitdepth is not None and bitdepth != h.bitdepth and not common_bitdepth:
            raise FormatMismatchError(f"bitdepth {bitdepth} does not match the Y4M header of "
                                      f"{f.name} ({h.bitdepth}-bit)")

    def raw_side(other: Format) -> Format:
        return Format(width if width is not None else other.width,
                      height if height is not None else other.height,
                      pixel_format if pixel_format is not None else other.pixel_format,
                      bitdepth if bitdepth is not None else other.bitdepth)

    agree(ref)
    agree(dist)
    rf, df = ref.format, dist.format
    if rf is None and df is None:
        if width is None or height is None:
            raise UsageError("raw input needs width and height (or use Y4M files)")
        rf = df = Format(width, height, pixel_format or "420", bitdepth or 8)
    elif rf is None:
        rf = raw_side(df)
    elif df is None:
        df = raw_side(rf)
    assert rf is not None and df is not None
    if (rf.width, rf.height) != (df.width, df.height):
        raise FormatMismatchError(
            f"reference and distorted differ in size: {rf.width}x{rf.height} ({ref.name}) vs "
            f"{df.width}x{df.height} ({dist.name}); use scale=True to scale the distorted to "
            "the reference size")
    if rf.pixel_format != df.pixel_format:
        raise FormatMismatchError(
            f"reference and distorted differ in pixel format: {rf.pixel_format} ({ref.name}) "
            f"vs {df.pixel_format} ({dist.name})")
    if rf.bitdepth != df.bitdepth and not common_bitdepth:
        lo, hi = sorted((rf.bitdepth, df.bitdepth))
        raise FormatMismatchError(
            f"reference and distorted differ in bit depth: {rf.bitdepth} ({ref.name}) vs "
            f"{df.bitdepth} ({dist.name}); use common_bitdepth=True to shift the {lo}-bit side "
            f"up to {hi} bits")
    out = Format(rf.width, rf.height, rf.pixel_format, max(rf.bitdepth, df.bitdepth))
    return out, rf, df


def _check_colour(ref: "VideoFile", dist: "VideoFile", mode: Optional[str],
                  quiet: bool) -> None:
    """tools/input/input.c's input_colour_check() for what Y4M declares: the range."""
    a, b = ref.colour_range, dist.colour_range
    if not a or not b or a == b:
        return
    diff = f"range {a} vs {b}"
    if mode == "error":
        raise FormatMismatchError(
            f"the reference {ref.name} and the distorted {dist.name} declare different colour: "
            f"{diff} (colour_mismatch='error'; convert one, or leave the option out to score "
            "them as they are)")
    if not quiet:
        warnings.warn(f"the reference {ref.name} and the distorted {dist.name} declare "
                      f"different colour: {diff}; scored as they are, as libvmaf does "
                      "(colour_mismatch='error' makes it an error)", PsnrHvsWarning,
                      stacklevel=3)


def _shift_up(planes: List[np.ndarray], shift: int) -> List[np.ndarray]:
    """common_bitdepth: every sample times 2**shift, as the CLI's v << shift
    (tools/input/convert.c), in 16-bit words."""
    return [np.left_shift(p.astype(np.uint16), shift) for p in planes]


def _check_plane_sizes(fmt: Format, enable_chroma: bool) -> None:
    g = Geometry.of(fmt)
    h, w = g.scored[0]
    if w < 8 or h < 8:
        raise PlaneTooSmallError(f"frame size {fmt.width}x{fmt.height} is smaller than 8x8: "
                                 "psnr_hvs has no block to score")
    if enable_chroma and len(g.scored) == 3 and (g.scored[1][1] < 8 or g.scored[1][0] < 8):
        ch, cw = g.scored[1]
        raise PlaneTooSmallError(
            f"chroma planes of {fmt.width}x{fmt.height} {fmt.pixel_format} are {cw}x{ch}, "
            "smaller than 8x8: psnr_hvs has no block to score in them; use "
            "enable_chroma=False to score luma only")


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
    res.backend = backend
    # The CLI's JSON (libvmaf's layout) has no geometry: what a raw or Y4M
    # reference says is what was scored (scale scales the distorted to it).
    if not _is_compressed(ref):
        try:
            head = VideoFile(ref).format
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
    hwaccel ("cuda": NVDEC), colour_mismatch ("warn", "error"), device (N,
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
        pixel_format = normalize_pixel_format(pixel_format)
    if bitdepth is not None:
        bitdepth = _uint(bitdepth, "bitdepth", 1, 64)
        msg = check_bitdepth(bitdepth)
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

    compressed = _is_compressed(ref_path) or _is_compressed(dist_path)
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
    if hw and not quiet:
        warnings.warn("hwaccel has no effect: no input is compressed", PsnrHvsWarning,
                      stacklevel=2)
    device = int(device_text)
    opts["device"] = device

    ref = VideoFile(ref_path)
    dist = VideoFile(dist_path)
    fmt, ref_fmt, dist_fmt = _resolve_format(ref, dist, width, height, pixel_format, bitdepth,
                                             common_bitdepth)
    _check_colour(ref, dist, colour_mismatch, quiet)
    _check_plane_sizes(fmt, enable_chroma)
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
                        rp = _shift_up(rp, ref_shift)
                    if dist_shift:
                        dp = _shift_up(dp, dist_shift)
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
            version=f"psnrhvs-{sc.library.version}")

