# SPDX-License-Identifier: BSD-2-Clause
"""The psnrhvs CLI as score_with_cli() runs it: where it is, the flags made
from keywords, and its messages in the keywords' words."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any, Optional, Union

from . import _lib
from .errors import CLIError, UsageError
from .scorer import check_int as _uint

PathLike = Union[str, "os.PathLike[str]"]
INT_MAX = 2**31 - 1

SCALE_ALGOS = ("bicubic", "bilinear", "fast_bilinear", "neighbor", "area", "bicublin", "gauss",
               "sinc", "lanczos", "spline", "experimental")
HWACCELS = ("auto", "none", "cuda")


def find_cli(cli: Optional[PathLike] = None, library: Any = None) -> str:
    """The psnrhvs CLI: explicit, $PSNRHVS_CLI, next to the library (installed
    prefix/bin or the build tree's tools/), else PATH."""
    if cli:
        return os.fspath(cli)
    env = os.environ.get("PSNRHVS_CLI")
    if env:
        return env
    try:
        libdir = Path(_lib.load_library(library).path).resolve().parent
        for cand in (libdir.parent / "bin" / "psnrhvs", libdir.parent / "tools" / "psnrhvs",
                     libdir / "psnrhvs"):
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    except Exception:
        pass
    found = shutil.which("psnrhvs")
    if found:
        return found
    raise CLIError("the psnrhvs CLI is needed for compressed inputs and was not found: "
                   "pass cli=PATH, set PSNRHVS_CLI, or put psnrhvs on PATH")


def _scale_name(scale: Any) -> Optional[str]:
    """scale=True (bicubic), an algorithm's name, or False/None (sizes must match)."""
    if scale is None or scale is False:
        return None
    if scale is True:
        return "bicubic"
    if isinstance(scale, str) and scale in SCALE_ALGOS:
        return scale
    raise UsageError(f"unknown scale algorithm '{scale}' (expected True, False or one of "
                     f"{', '.join(SCALE_ALGOS)})")


def _hwaccel_name(hwaccel: Any) -> Optional[str]:
    """--hwaccel's value; None: the CLI's default (auto)."""
    if hwaccel is None:
        return None
    if hwaccel is False:
        return "none"
    if hwaccel in HWACCELS:
        return hwaccel
    raise UsageError(f"unknown hwaccel '{hwaccel}' (expected auto, none or cuda)")


def _device_arg(device: Any) -> str:
    """--device's value: N, "all", or a list of indices (one scorer each)."""
    if device == "all":
        return "all"
    if isinstance(device, (list, tuple)):
        if not device:
            raise UsageError("invalid device []: expected N, 'all' or a list of N")
        return ",".join(str(_uint(d, "device", 0, INT_MAX)) for d in device)
    return str(_uint(device, "device", 0, INT_MAX))


# The CLI's flags in its messages, as this package's keywords name them.
_PY_NAMES = ((re.compile(r"--feature psnr_hvs=enable_chroma=false"), "enable_chroma=False"),
             (re.compile(r"--frame_cnt (\d+)"), r"frame_cnt=\1"),
             (re.compile(r"--common_bitdepth"), "common_bitdepth=True"),
             (re.compile(r"--scale\b"), "scale=True"),
             (re.compile(r"--hwaccel cuda"), "hwaccel='cuda'"),
             (re.compile(r"--colour_mismatch error"), "colour_mismatch='error'"),
             (re.compile(r"--(frame_skip_ref|frame_skip_dist|subsample|width|height|bitdepth"
                         r"|pixel_format|backend|device|threads|isa)\b"), r"\1"))


def _pythonize(text: str) -> str:
    for pat, repl in _PY_NAMES:
        text = pat.sub(repl, text)
    return text
