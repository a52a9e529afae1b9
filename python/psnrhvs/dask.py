# SPDX-License-Identifier: BSD-2-Clause
"""Score many pairs on the workers of a Dask cluster (dask.distributed).

    from distributed import Client
    import psnrhvs.dask
    client = Client("tcp://scheduler:8786")
    rows = psnrhvs.dask.score_jobs(jobs, client)

Each job is pure: it reads its two files and, if asked, writes its own output
file atomically (a temporary file renamed into place), so running it twice
is harmless and gives the same numbers. That is what makes the loss of a
worker safe: the scheduler gives the lost worker's jobs to another worker,
and score_jobs keeps one row per job id, whichever run delivered it first.

A worker process runs one job at a time (a process-wide lock), and each job
scores with all the cores of the host (threads=0) or the GPU it is given, so
start one single-threaded worker per host (or per GPU): see docs/python.md.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from .errors import PsnrHvsError
from .results import KEYS, STATS, Result, check_output

#: Options a job may carry: score_files()'s keywords.
JOB_OPTIONS = frozenset((
    "width", "height", "pixel_format", "bitdepth", "frame_cnt", "frame_skip_ref",
    "frame_skip_dist", "subsample", "enable_chroma", "mask_product", "backend", "device",
    "threads", "isa", "exact_helpers", "frames_in_flight", "container", "library", "cli",
    "scale", "common_bitdepth", "hwaccel", "colour_mismatch"))

#: Worker-side defaults for options a job does not set (a GPU host sets
#: PSNRHVS_BACKEND=cuda, a worker per GPU PSNRHVS_DEVICE=N).
ENV_DEFAULTS = {"backend": "PSNRHVS_BACKEND", "device": "PSNRHVS_DEVICE",
                "threads": "PSNRHVS_THREADS", "isa": "PSNRHVS_ISA",
                "hwaccel": "PSNRHVS_HWACCEL"}

#: Failures that are the cluster's, not the job's: the job runs again.
def _retryable() -> tuple:
    import asyncio
    kinds: List[type] = [asyncio.CancelledError, ConnectionError]
    try:
        from distributed.scheduler import KilledWorker
        kinds.append(KilledWorker)
    except ImportError:  # pragma: no cover
        pass
    try:
        from distributed.comm.core import CommClosedError
        kinds.append(CommClosedError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(kinds)


@dataclass(frozen=True)
class Job:
    """One pair to score. ``id`` names it in the table (unique); ``options``
    are score_files() keywords; ``output`` (optional) is a JSON file in the
    CLI's layout, written by the worker. Paths must be valid on the workers."""

    id: str
    reference: str
    distorted: str
    options: Mapping[str, Any] = field(default_factory=dict)
    output: Optional[str] = None

    @classmethod
    def coerce(cls, job: Union["Job", Mapping[str, Any]], index: int = 0) -> "Job":
        """A Job from a Job or a dict {"id", "reference", "distorted", "output",
        option: value ...} (the id defaults to the job's position)."""
        if isinstance(job, Job):
            return job
        d = dict(job)
        opts = dict(d.pop("options", {}) or {})
        jid = str(d.pop("id", index))
        ref, dist = d.pop("reference"), d.pop("distorted")
        out = d.pop("output", None)
        opts.update(d)
        unknown = set(opts) - JOB_OPTIONS
        if unknown:
            raise ValueError(f"job {jid}: unknown option(s) {', '.join(sorted(unknown))}")
        return cls(jid, os.fspath(ref), os.fspath(dist), opts,
                   os.fspath(out) if out is not None else None)

    def token(self) -> str:
        """A digest of everything the job does: equal jobs get equal task keys."""
        text = json.dumps([self.id, self.reference, self.distorted, sorted(
            (k, repr(v)) for k, v in self.options.items()), self.output])
        return hashlib.sha1(text.encode()).hexdigest()[:16]


# One job at a time per worker process: each job already uses every core
# (or the GPU) it is given; two at once would only compete for them.
_JOB_LOCK = threading.Lock()


def _worker_address() -> Optional[str]:
    try:
        from distributed import get_worker
        return get_worker().address
    except Exception:
        return None


def _base_row(job: Job) -> Dict[str, Any]:
    row: Dict[str, Any] = {"id": job.id, "reference": job.reference,
                           "distorted": job.distorted, "output": job.output,
                           "status": "ok", "error": None, "frames": 0, "width": None,
                           "height": None, "pixel_format": None, "bitdepth": None,
                           "backend": None}
    for k in KEYS:
        for s in STATS:
            row[f"{k}_{s}"] = None
    return row


def result_row(job: Job, res: Result) -> Dict[str, Any]:
    """A job's row: identification, geometry, and every pooled value as key_stat."""
    row = _base_row(job)
    row.update(frames=len(res.frames), width=res.width, height=res.height,
               pixel_format=res.pixel_format, bitdepth=res.bitdepth, backend=res.backend)
    for k, p in res.pooled.items():
        for s in STATS:
            row[f"{k}_{s}"] = getattr(p, s)
    return row


def run_job(job: Union[Job, Mapping[str, Any]], per_frame: bool = False) -> Dict[str, Any]:
    """Run one job here (what each worker does). Input errors become a row with
    status "error" and the message: they are the job's answer, not a crash."""
    from .files import score_files
    job = Job.coerce(job)
    with _JOB_LOCK:
        start = time.monotonic()
        opts = dict(job.options)
        for opt, env in ENV_DEFAULTS.items():
            if opt not in opts and os.environ.get(env):
                value = os.environ[env]
                opts[opt] = int(value) if opt in ("device", "threads") else value
        try:
            if job.output:
                # Refused before scoring, as the CLI's batch refuses such a job.
                check_output(job.output, {"the reference": job.reference,
                                          "the distorted": job.distorted})
            res = score_files(job.reference, job.distorted, quiet=True, **opts)
            if job.output:
                res.write_json(job.output)
        except (PsnrHvsError, OSError, ValueError) as e:
            row = _base_row(job)
            row.update(status="error", error=f"{type(e).__name__}: {e}")
            res = None
        else:
            row = result_row(job, res)
        if per_frame:
            row["per_frame"] = [f.as_dict() for f in res.frames] if res else []
        row["worker"] = _worker_address()
        row["seconds"] = time.monotonic() - start
        return row


def score_jobs(jobs: Iterable[Union[Job, Mapping[str, Any]]], client: Any, *,
               per_frame: bool = False, max_attempts: int = 3,
               resources: Optional[Dict[str, float]] = None, dataframe: bool = False,
               progress: Optional[Callable[[int, int, Dict[str, Any]], None]] = None):
    """Run jobs on the cluster behind ``client``; one row per job, in job order.

    A worker lost mid-run costs nothing: the scheduler reruns its jobs on the
    other workers (distributed's allowed-failures, 3 by default); a job whose
    task still fails for the cluster's reasons (KilledWorker: it was on
    workers that died too often, a closed connection) is submitted again
    under a new key, up to max_attempts. Rows are kept by job id, so a job
    delivered twice is counted once. Input errors are rows with status
    "error". per_frame adds each job's frames; resources (e.g.
    {"GPU": 1}) are Dask worker resources each job needs; progress(done,
    total, row) is called as rows arrive; dataframe=True returns a pandas
    DataFrame.
    """
    from distributed import as_completed

    job_list = [Job.coerce(j, i) for i, j in enumerate(jobs)]
    seen: Dict[str, Job] = {}
    for j in job_list:
        if j.id in seen:
            raise ValueError(f"job id {j.id!r} is given twice: ids must be unique")
        seen[j.id] = j
    retryable = _retryable()
    by_key: Dict[str, Job] = {}
    attempts: Dict[str, int] = {}

    def submit(job: Job) -> Any:
        n = attempts.get(job.id, 0)
        key = f"psnrhvs-job-{job.token()}-{n}"
        fut = client.submit(run_job, job, per_frame, key=key, pure=False, resources=resources)
        by_key[fut.key] = job
        return fut

    rows: Dict[str, Dict[str, Any]] = {}
    # Results are fetched in the background as tasks finish (with_results),
    # not one round trip per job; errors come back as values to sort out here.
    pending = as_completed([submit(j) for j in job_list], with_results=True,
                           raise_errors=False)
    for fut, value in pending:
        job = by_key[fut.key]
        fut.release()
        if job.id in rows:  # delivered twice: the first row stands
            continue
        if isinstance(value, retryable):
            attempts[job.id] = attempts.get(job.id, 0) + 1
            if attempts[job.id] < max_attempts:
                pending.add(submit(job))
                continue
            row = _base_row(job)
            row.update(status="error", error=f"{type(value).__name__}: {value} "
                       f"(after {attempts[job.id]} attempts)")
        elif isinstance(value, BaseException):
            # A failure of the job code itself: running it again would fail again.
            row = _base_row(job)
            row.update(status="error", error=f"{type(value).__name__}: {value}")
        else:
            row = value
        if per_frame:
            row.setdefault("per_frame", [])
        row["attempts"] = attempts.get(job.id, 0) + 1
        rows[job.id] = row
        if progress is not None:
            progress(len(rows), len(job_list), row)

    table = [rows[j.id] for j in job_list]
    if dataframe:
        import pandas as pd
        return pd.DataFrame(table)
    return table
