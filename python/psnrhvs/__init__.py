# SPDX-License-Identifier: BSD-2-Clause
"""PSNR-HVS scores with the bits of libvmaf's psnr_hvs, over libpsnrhvs (ctypes).

    import psnrhvs
    r = psnrhvs.score_files("ref.y4m", "dist.y4m")
    r.pooled["psnr_hvs"].mean, r.frames[0].raw_y, r.to_dataframe()

    with psnrhvs.Scorer(1920, 1080, bitdepth=10) as s:   # numpy planes, no copy
        score = s.score((y, u, v), (y2, u2, v2))

The library is found through library=PATH, $PSNRHVS_LIBRARY, next to this
package, this source tree's build/ folder, then the system's search path.
See docs/python.md.
"""
from ._lib import Library, find_library, load_library
from .errors import (BackendIOError, BackendNotBuiltError, BusyError, CLIError,
                     FormatMismatchError, InputError, InvalidArgumentError,
                     LibraryNotFoundError, MalformedY4MError, NoDeviceError, OutOfMemoryError,
                     PlaneTooSmallError, PsnrHvsError, PsnrHvsWarning, QueueFullError,
                     TruncatedFrameError, UnsupportedFormatError, UsageError)
from .files import Format, Geometry, VideoFile, find_cli, score_files, score_with_cli
from .results import (KEYS, LUMA_KEYS, RAW_KEYS, STATS, FrameScore, Pooled, Result, parse_json,
                      pool, read_json)
from .scorer import Scorer, score_arrays
from .target import target

__version__ = "1.0.0"


def library_version(library=None) -> str:
    """The loaded libpsnrhvs's version string."""
    return load_library(library).version


def backend_available(backend: str, library=None) -> bool:
    """Whether the backend ("cpu", "cuda", "opencl", "hip", "sycl", "vulkan") is compiled into the library."""
    return load_library(library).backend_available(backend)


def devices(auto_only: bool = False, library=None) -> list:
    """The library's device list: a dict per device (backend, device, gpu, physical,
    automatic, name, pci), the host CPU last; those with automatic are the ones
    backend "auto" scores on, as the CLI's --list-devices and batch use them
    (auto_only: only those, found as auto finds them)."""
    return load_library(library).devices(auto_only)


def cpu_count(library=None) -> int:
    """The cores this process may use (affinity mask, a container's CPU quota)."""
    return load_library(library).cpu_count()


__all__ = [
    "Scorer", "score_arrays", "score_files", "score_with_cli", "find_cli", "target", "VideoFile", "Format",
    "Geometry", "FrameScore", "Pooled", "Result", "pool", "parse_json", "read_json", "KEYS",
    "LUMA_KEYS", "RAW_KEYS", "STATS", "Library", "find_library", "load_library",
    "library_version", "backend_available", "devices", "cpu_count", "PsnrHvsError", "InvalidArgumentError",
    "PlaneTooSmallError", "BackendNotBuiltError", "NoDeviceError", "BusyError",
    "QueueFullError", "BackendIOError", "OutOfMemoryError", "UsageError", "InputError",
    "TruncatedFrameError", "MalformedY4MError", "UnsupportedFormatError",
    "FormatMismatchError", "CLIError", "LibraryNotFoundError", "PsnrHvsWarning",
]
