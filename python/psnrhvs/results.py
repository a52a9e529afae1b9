# SPDX-License-Identifier: BSD-2-Clause
"""Scores as plain Python objects. Pooling, the score files' layouts and the
summary are the library's (psnrhvs_pool, psnrhvs_output_write,
psnrhvs_scores_parse), so they are the CLI's bytes and bits.
"""
from __future__ import annotations

import math
import os
import stat
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

#: libvmaf's per-frame keys, in its order.
KEYS = ("psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs")
#: the keys of a luma-only score.
LUMA_KEYS = ("psnr_hvs_y", "psnr_hvs")
RAW_KEYS = ("raw_y", "raw_cb", "raw_cr")
STATS = ("min", "max", "mean", "harmonic_mean")


@dataclass(frozen=True)
class FrameScore:
    """One frame. ``raw_*`` are the library's f32 plane scores (exact values as
    Python floats); ``psnr_hvs_cb``/``_cr`` and ``raw_cb``/``_cr`` are None when
    only luma is scored (4:0:0 or enable_chroma=False)."""

    frame: int
    psnr_hvs_y: float
    psnr_hvs_cb: Optional[float]
    psnr_hvs_cr: Optional[float]
    psnr_hvs: float
    raw_y: float
    raw_cb: Optional[float]
    raw_cr: Optional[float]

    @property
    def num_planes(self) -> int:
        return 1 if self.raw_cb is None else 3

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Pooled:
    min: float
    max: float
    mean: float
    harmonic_mean: float

    def as_dict(self) -> Dict[str, float]:
        return asdict(self)


def pool(values: Sequence[float], library=None) -> Pooled:
    """libvmaf's pooling of one key over frames, by the library (psnrhvs_pool)."""
    from ._lib import load_library
    p = load_library(library).pool(values)
    return Pooled(p.min, p.max, p.mean, p.harmonic_mean)


def format_hexfloat(v: float) -> str:
    """C99 printf's %a of a double: float.hex() without the trailing zero digits."""
    if not math.isfinite(v):
        return "nan" if math.isnan(v) else "inf" if v > 0 else "-inf"
    text = v.hex()  # e.g. 0x1.b5e0b40000000p-12
    mant, _, exp = text.partition("p")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}p{exp}"


@dataclass
class Result:
    """Per-frame scores and pooled values of one reference/distorted pair."""

    frames: List[FrameScore]
    pooled: Dict[str, Pooled]
    width: Optional[int] = None
    height: Optional[int] = None
    pixel_format: Optional[str] = None
    bitdepth: Optional[int] = None
    backend: Optional[str] = None
    isa: Optional[str] = None
    fps: float = 0.0
    version: str = ""
    extra: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_frames(cls, frames: List[FrameScore], library=None, **kw: Any) -> "Result":
        num_planes = frames[0].num_planes if frames else 3
        keys = KEYS if num_planes == 3 else LUMA_KEYS
        pooled = {k: pool([getattr(f, k) for f in frames], library) for k in keys}
        return cls(frames=frames, pooled=pooled, **kw)

    @property
    def num_planes(self) -> int:
        return self.frames[0].num_planes if self.frames else 3

    @property
    def keys(self) -> Tuple[str, ...]:
        return KEYS if self.num_planes == 3 else LUMA_KEYS

    def __len__(self) -> int:
        return len(self.frames)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-friendly dict (numbers as floats, raw scores as floats)."""
        return {
            "width": self.width, "height": self.height, "pixel_format": self.pixel_format,
            "bitdepth": self.bitdepth, "backend": self.backend, "frames": len(self.frames),
            "per_frame": [f.as_dict() for f in self.frames],
            "pooled": {k: p.as_dict() for k, p in self.pooled.items()},
        }

    def to_dataframe(self):
        """Per-frame scores as a pandas DataFrame indexed by frame number (needs pandas)."""
        import pandas as pd  # optional dependency
        cols = list(self.keys) + list(RAW_KEYS[:self.num_planes])
        rows = [[getattr(f, c) for c in cols] for f in self.frames]
        return pd.DataFrame(rows, columns=cols,
                            index=pd.Index([f.frame for f in self.frames], name="frame"))

    def pooled_dataframe(self):
        """Pooled values as a DataFrame: one row per key, columns min/max/mean/harmonic_mean."""
        import pandas as pd
        return pd.DataFrame([[getattr(p, s) for s in STATS] for p in self.pooled.values()],
                            columns=list(STATS), index=pd.Index(list(self.pooled), name="key"))

    def _output(self, precision: Optional[int], raw: bool):
        """The library's PsnrHvsOutput of these frames (it holds the array it points at)."""
        from . import _lib
        frames = (_lib.FrameScore * max(len(self.frames), 1))()
        for dst, fr in zip(frames, self.frames):
            dst.frame_num = fr.frame
            sc = dst.score
            sc.num_planes = fr.num_planes
            sc.psnr_hvs_y, sc.psnr_hvs = fr.psnr_hvs_y, fr.psnr_hvs
            sc.psnr_hvs_cb = fr.psnr_hvs_cb or 0.0
            sc.psnr_hvs_cr = fr.psnr_hvs_cr or 0.0
            for i, r in enumerate((fr.raw_y, fr.raw_cb, fr.raw_cr)):
                sc.raw[i] = 0.0 if r is None else r
        out = _lib.Output(version=self.version.encode(), width=self.width or 0,
                          height=self.height or 0, fps=self.fps, num_planes=self.num_planes,
                          precision=_lib.PRECISION_MAX if precision is None else precision,
                          raw=int(raw), frames=frames, num_frames=len(self.frames))
        out._keep = frames
        return out

    def summary(self, precision: int = 6, library=None) -> str:
        """The CLI's summary (what it prints without -o)."""
        from ._lib import load_library
        lib = load_library(library)
        return lib.write_output(self._output(precision, False), None)

    def __str__(self) -> str:
        return self.summary()

    def to_json(self, precision: Optional[int] = None, raw: bool = True, library=None) -> str:
        """libvmaf's JSON layout, byte for byte as ``psnrhvs --json --precision max --raw``
        writes it (precision None) apart from the measured fps."""
        return self.to_text("json", precision, raw, library)

    def to_text(self, fmt: str = "json", precision: Optional[int] = None, raw: bool = True,
                library=None) -> str:
        """A score file's text as the CLI writes it: fmt "xml", "json", "csv" or "sub"."""
        from ._lib import load_library
        lib = load_library(library)
        return lib.write_output(self._output(precision, raw), fmt)

    def write_json(self, path: "os.PathLike[str] | str", precision: Optional[int] = None,
                   raw: bool = True) -> None:
        """Write to_json() atomically: a temporary file in the same folder renamed
        into place, so a reader never sees a partial file (what the CLI does).
        A path that is one of the files scored is a UsageError, as in the CLI."""
        check_output(path, self.extra.get("inputs") or {})
        write_atomic(path, self.to_json(precision, raw))


def check_output(path: "os.PathLike[str] | str", inputs: Mapping[str, str]) -> None:
    """The CLI's refusal (tools/output/outfile.c): an output that is one of the
    inputs ({"the reference": path, ...}), by name, through a link or
    /proc/self/fd, is a UsageError before anything is written."""
    from .errors import UsageError
    try:
        so = os.stat(path)
    except OSError:
        return  # a new file is no input
    if not stat.S_ISREG(so.st_mode):
        return
    for role, p in inputs.items():
        try:
            si = os.stat(p)
        except OSError:
            continue
        if (si.st_dev, si.st_ino) == (so.st_dev, so.st_ino):
            raise UsageError(f"output {os.fspath(path)} is {role} {os.fspath(p)}: "
                             "it is not written over")


def write_atomic(path: "os.PathLike[str] | str", text: str) -> None:
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def parse_json(text: "str | bytes", library=None) -> Result:
    """A Result from a score file the CLI (or libvmaf) wrote: JSON, XML, CSV or sub,
    read by the library (best with ``--precision max --raw``).

    JSON has no infinity: the CLI writes null, read as +inf. Pooled values are
    recomputed from the frames.
    """
    from ._lib import load_library
    lib = load_library(library)
    data = text.encode() if isinstance(text, str) else text
    frames: List[FrameScore] = []
    rows, version, fps = lib.parse_scores(data)
    for row in rows:
        luma_only = not row.has[1]
        v = [row.value[k] if row.has[k] else math.inf for k in range(4)]
        raws = [float(row.raw[p]) if row.has_raw[p] else math.nan for p in range(3)]
        frames.append(FrameScore(
            frame=int(row.frame_num),
            psnr_hvs_y=v[0],
            psnr_hvs_cb=None if luma_only else v[1],
            psnr_hvs_cr=None if luma_only else v[2],
            psnr_hvs=v[3],
            raw_y=raws[0],
            raw_cb=None if luma_only else raws[1],
            raw_cr=None if luma_only else raws[2],
        ))
    return Result.from_frames(frames, library, fps=fps if math.isfinite(fps) else 0.0,
                              version=version)


def read_json(path: "os.PathLike[str] | str", library=None) -> Result:
    with open(path) as f:
        return parse_json(f.read(), library)
