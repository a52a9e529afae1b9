# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs.target(): the cheapest encoder setting whose pooled psnr_hvs reaches
a target, through the CLI's ``psnrhvs target`` (docs/cli.md), with its flags
as keywords and its JSON as the result."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from ._cli_args import PathLike, find_cli
from .errors import CLIError, UsageError


def _options(opts: Union[None, str, Mapping[str, Any]]) -> Optional[str]:
    """key=value:key=value, a ':' inside a value escaped as the CLI reads it."""
    if opts is None or isinstance(opts, str):
        return opts
    return ":".join("%s=%s" % (k, str(v).replace("\\", "\\\\").replace(":", "\\:"))
                    for k, v in opts.items())


def _flags(kw: Dict[str, Any]) -> list:
    args = []
    for name, flag in (("width", "-w"), ("height", "-h"), ("pixel_format", "-p"),
                       ("bitdepth", "-b"), ("fps", "--fps"), ("pool", "--pool"),
                       ("key", "--key"), ("samples", "--samples"),
                       ("sample_seconds", "--sample-seconds"), ("keep_probes", "--keep-probes"),
                       ("encode", "--encode"), ("backend", "--backend"), ("device", "--device"),
                       ("threads", "--threads"), ("jobs", "--jobs")):
        if kw.get(name) is not None:
            args += [flag, os.fspath(kw[name]) if name in ("keep_probes", "encode")
                     else str(kw[name])]
    rng = kw.get("range")
    if rng is not None:
        lo, hi = rng if isinstance(rng, (tuple, list)) else (rng, rng)
        args += ["--range", "%g-%g" % (lo, hi)]
    if kw.get("full"):
        args.append("--full")
    if kw.get("sweep"):
        args.append("--sweep")
    return args


def target(source: PathLike, *, encoder: str, target: float,
           encoder_options: Union[None, str, Mapping[str, Any]] = None,
           pool: str = "mean", key: str = "psnr_hvs",
           range: Optional[Tuple[float, float]] = None, samples: Optional[int] = None,
           sample_seconds: Optional[float] = None, full: bool = False, sweep: bool = False,
           keep_probes: Optional[PathLike] = None, encode: Optional[PathLike] = None,
           width: Optional[int] = None, height: Optional[int] = None,
           pixel_format: Optional[str] = None, bitdepth: Optional[int] = None,
           fps: Optional[str] = None, backend: Optional[str] = None,
           device: Optional[int] = None, threads: Optional[int] = None,
           jobs: Optional[int] = None, cli: Optional[PathLike] = None,
           library: Any = None) -> Dict[str, Any]:
    """Run ``psnrhvs target`` and return its JSON as a dict: ``chosen`` (setting,
    score, kbps, bytes, predicted_bytes) or None, ``best``, ``probes`` (one dict per
    probe, in the order probed: the table), ``samples``, ``run`` (backend, times) and
    with encode= ``encode``. Flags as keywords (range=(lo, hi); encoder_options a
    string or a dict). A target out of reach raises CLIError naming the best score,
    with the search in its ``result``; so does any other failure (``result`` None)."""
    if not encoder:
        raise UsageError("encoder= is needed (libx264, libsvtav1, ...)")
    kw = dict(width=width, height=height, pixel_format=pixel_format, bitdepth=bitdepth,
              fps=fps, pool=pool, key=key, samples=samples, sample_seconds=sample_seconds,
              keep_probes=keep_probes, encode=encode, backend=backend, device=device,
              threads=threads, jobs=jobs, range=range, full=full, sweep=sweep)
    exe = find_cli(cli, library)
    args = [exe, "target", "-r", os.fspath(source), "--encoder", encoder, "--target",
            repr(float(target)), "-q"] + _flags(kw)
    opts = _options(encoder_options)
    if opts is not None:
        args += ["--encoder-options", opts]
    with tempfile.TemporaryDirectory(prefix="psnrhvs-") as tmp:
        out = os.path.join(tmp, "search.json")
        try:
            p = subprocess.run(args + ["-o", out], capture_output=True, text=True)
        except OSError as e:
            raise CLIError(f"cannot run {exe}: {e.strerror}") from None
        result = None
        if os.path.exists(out):
            with open(out) as f:
                result = json.load(f)
    if p.returncode != 0:
        why = [line for line in p.stderr.splitlines() if line.startswith("psnrhvs")]
        err = CLIError((why[-1] if why else p.stderr.strip()) or "psnrhvs target failed",
                       returncode=p.returncode, stderr=p.stderr)
        err.result = result
        raise err
    return result
