# SPDX-License-Identifier: BSD-2-Clause
"""Scores as plain Python objects, libvmaf's pooling, and the CLI's JSON layout.

Pooling repeats tools/output/output.c step for step (double sums in frame
order, no compensation, IEEE division by zero), so the pooled values have the
bits the CLI writes. Python floats are IEEE doubles and Python never contracts
a multiply-add, so the same operations in the same order give the same bits.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

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


def format_number(v: float, precision: Optional[int] = None, json_null: bool = False) -> str:
    """The CLI's number text: %.17g (precision None, 'max') or %.Nf; inf/nan or JSON null."""
    if not math.isfinite(v):
        if json_null:
            return "null"
        if math.isnan(v):
            return "nan"
        return "inf" if v > 0 else "-inf"
    if precision is None:
        return "%.17g" % v
    return "%.*f" % (precision, v)


def format_hexfloat(v: float) -> str:
    """C99 printf's %a of a double: float.hex() without the trailing zero digits."""
    if not math.isfinite(v):
        return format_number(v)
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

    def summary(self, precision: int = 6) -> str:
        """The CLI's summary (what it prints without -o)."""
        n = len(self.frames)
        lines = [f"{n} frame{'' if n == 1 else 's'}, {self.width}x{self.height}"]
        for k, p in self.pooled.items():
            lines.append("%-12s mean %s  min %s  max %s  harmonic_mean %s" % (
                k, *(format_number(getattr(p, s), precision) for s in
                     ("mean", "min", "max", "harmonic_mean"))))
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.summary()

    def to_json(self, precision: Optional[int] = None, raw: bool = True) -> str:
        """libvmaf's JSON layout, byte for byte as ``psnrhvs --json --precision max --raw``
        writes it (precision None) apart from the measured fps."""
        num = lambda v: format_number(v, precision, json_null=True)  # noqa: E731
        out = ["{\n", f'  "version": "{self.version}",\n', '  "fps": %.2f,\n' % self.fps,
               '  "frames": [\n']
        for i, fr in enumerate(self.frames):
            out.append("    {\n")
            out.append(f'      "frameNum": {fr.frame},\n')
            out.append('      "metrics": {\n')
            entries = [(k, num(getattr(fr, k))) for k in self.keys]
            if raw:
                entries += [(k, f'"{format_hexfloat(getattr(fr, k))}"')
                            for k in RAW_KEYS[:self.num_planes]]
            for j, (k, v) in enumerate(entries):
                # libvmaf ends a null entry without a newline: the nulls of an
                # identical frame share one line.
                out.append(f'        "{k}": {v}{"," if j + 1 < len(entries) else ""}'
                           f'{"" if v == "null" else chr(10)}')
            out.append("      }\n")
            out.append("    }%s\n" % ("," if i + 1 < len(self.frames) else ""))
        out.append("  ],\n")
        out.append('  "pooled_metrics": {\n')
        keys = list(self.pooled)
        for j, k in enumerate(keys):
            p = self.pooled[k]
            out.append(f'    "{k}": {{\n')
            out.append(f'      "min": {num(p.min)},\n')
            out.append(f'      "max": {num(p.max)},\n')
            out.append(f'      "mean": {num(p.mean)},\n')
            out.append(f'      "harmonic_mean": {num(p.harmonic_mean)}\n')
            out.append("    }%s\n" % ("," if j + 1 < len(keys) else ""))
        out.append("  },\n")
        out.append('  "aggregate_metrics": {\n')
        out.append("  }\n")
        out.append("}\n")
        return "".join(out)

    def write_json(self, path: "os.PathLike[str] | str", precision: Optional[int] = None,
                   raw: bool = True) -> None:
        """Write to_json() atomically: a temporary file in the same folder renamed
        into place, so a reader never sees a partial file (what the CLI does)."""
        write_atomic(path, self.to_json(precision, raw))


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


def parse_json(text: str, library=None) -> Result:
    """A Result from the CLI's JSON (``--json``, best with ``--precision max --raw``).

    JSON has no infinity: the CLI writes null. With raw scores the dB values
    are recomputed by the library's own conversion (exact); without them a
    null is taken as +inf. Pooled values are recomputed from the frames.
    """
    doc = json.loads(text)
    frames: List[FrameScore] = []
    lib = None
    for fr in doc["frames"]:
        m = fr["metrics"]
        luma_only = "psnr_hvs_cb" not in m
        raws = [float.fromhex(m[k]) if isinstance(m.get(k), str) else None for k in RAW_KEYS]
        vals = {k: m.get(k) for k in KEYS}
        if any(vals[k] is None for k in (LUMA_KEYS if luma_only else KEYS)):
            if raws[0] is not None:
                if lib is None:
                    from ._lib import load_library
                    lib = load_library(library)
                s = lib.raw_to_db(raws, 1 if luma_only else 3)
                conv = {k: getattr(s, k) for k in KEYS}
                vals = {k: conv[k] if vals[k] is None else vals[k] for k in KEYS}
            else:
                vals = {k: math.inf if vals[k] is None else vals[k] for k in KEYS}
        frames.append(FrameScore(
            frame=int(fr["frameNum"]),
            psnr_hvs_y=float(vals["psnr_hvs_y"]),
            psnr_hvs_cb=None if luma_only else float(vals["psnr_hvs_cb"]),
            psnr_hvs_cr=None if luma_only else float(vals["psnr_hvs_cr"]),
            psnr_hvs=float(vals["psnr_hvs"]),
            raw_y=raws[0] if raws[0] is not None else math.nan,
            raw_cb=None if luma_only else (raws[1] if raws[1] is not None else math.nan),
            raw_cr=None if luma_only else (raws[2] if raws[2] is not None else math.nan),
        ))
    return Result.from_frames(frames, library, fps=float(doc.get("fps", 0.0)),
                              version=str(doc.get("version", "")))


def read_json(path: "os.PathLike[str] | str", library=None) -> Result:
    with open(path) as f:
        return parse_json(f.read(), library)
