# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs.dask on a LocalCluster of 3 worker processes: the fixture jobs,
one worker killed mid-run; every job once in the table, with the bits of a
local run; outputs written atomically by the workers; input errors as rows."""
import logging
import os
import signal
import time

import pytest

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402

import psnrhvs  # noqa: E402
import psnrhvs.dask  # noqa: E402
from conftest import (GOLDENS, assert_same_result, golden_options, golden_paths,  # noqa: E402
                      same, same_f32)

REPEATS = int(os.environ.get("PSNRHVS_DASK_REPEATS", "20"))


def fixture_jobs(repeats, tmp_path=None):
    jobs = []
    for r in range(repeats):
        for g in GOLDENS:
            ref, dist = golden_paths(g)
            job = dict(id=f"{g['name']}#{r}", reference=ref, distorted=dist, threads=1,
                       **golden_options(g))
            if tmp_path is not None and r == 0:
                job["output"] = str(tmp_path / f"{g['name']}.json")
            jobs.append(job)
    return jobs


@pytest.fixture(scope="module")
def expected():
    """Each fixture scored here, in this process."""
    return {g["name"]: psnrhvs.score_files(*golden_paths(g), threads=1, **golden_options(g))
            for g in GOLDENS}


@pytest.fixture(scope="module")
def cluster():
    # The kill makes distributed log errors about the lost worker: expected.
    for name in ("distributed", "distributed.scheduler", "distributed.client",
                 "distributed.nanny", "distributed.core", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    # Workers are new processes: they import psnrhvs from this tree and load
    # the library named by PSNRHVS_LIBRARY (inherited environment).
    here = os.path.dirname(psnrhvs.__path__[0])
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (here, os.environ.get("PYTHONPATH")) if p)
    os.environ.setdefault("PSNRHVS_LIBRARY", psnrhvs.load_library().path)
    # A result held by the killed worker is fetched from it until the connect
    # timeout (30 s by default) before it is recomputed elsewhere: shorten it.
    dask.config.set({"distributed.comm.timeouts.connect": "3s"})
    lc = distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=logging.CRITICAL)
    client = distributed.Client(lc)
    yield client
    client.close()
    lc.close()


def check_row(row, res, none_as_nan=False):
    """A table row has the pooled bits of the local Result, and its frames.
    (pandas holds a missing value, here a chroma key of a luma-only job, as NaN.)"""
    assert row["status"] == "ok", row["error"]
    assert row["frames"] == len(res.frames)
    for k in psnrhvs.KEYS:
        for s in psnrhvs.STATS:
            want = getattr(res.pooled[k], s) if k in res.pooled else None
            got = row[f"{k}_{s}"]
            if none_as_nan and want is None:
                assert got != got, (row["id"], k, s)
                continue
            assert same(got, want), (row["id"], k, s)
    if "per_frame" in row:
        assert len(row["per_frame"]) == len(res.frames)
        for got, fr in zip(row["per_frame"], res.frames):
            for k in psnrhvs.KEYS:
                assert same(got[k], getattr(fr, k))
            for k in psnrhvs.RAW_KEYS:
                assert same_f32(got[k], getattr(fr, k))


def test_jobs_and_errors(cluster, expected, tmp_path):
    """A small run: rows in job order, an input error as a row, a DataFrame."""
    pd = pytest.importorskip("pandas")
    jobs = fixture_jobs(1)
    jobs.append(dict(id="missing", reference=str(tmp_path / "nope.y4m"),
                     distorted=jobs[0]["distorted"]))
    df = psnrhvs.dask.score_jobs(jobs, cluster, dataframe=True, per_frame=True)
    assert isinstance(df, pd.DataFrame)
    assert list(df["id"]) == [j["id"] for j in jobs]
    bad = df[df["id"] == "missing"].iloc[0]
    assert bad["status"] == "error" and "cannot open" in bad["error"]
    for row in df[df["id"] != "missing"].to_dict("records"):
        check_row(row, expected[row["id"].split("#")[0]], none_as_nan=True)


def test_duplicate_ids_rejected(cluster):
    jobs = fixture_jobs(1)[:2]
    jobs[1]["id"] = jobs[0]["id"]
    with pytest.raises(ValueError, match="given twice"):
        psnrhvs.dask.score_jobs(jobs, cluster)


def test_worker_killed_mid_run(cluster, expected, tmp_path):
    """Kill one worker process once a quarter of the jobs are in: the run
    completes, each job once, every value bit-identical to a local run."""
    jobs = fixture_jobs(REPEATS, tmp_path)
    pids = cluster.run(os.getpid)
    assert len(pids) == 3
    killed = {}

    def progress(done, total, row):
        if not killed and done >= total // 4:
            busy = cluster.processing()
            addr = max(pids, key=lambda a: len(busy.get(a, ())))
            killed.update(addr=addr, busy=list(busy.get(addr, ())), done=done)
            os.kill(pids[addr], signal.SIGKILL)

    start = time.monotonic()
    rows = psnrhvs.dask.score_jobs(jobs, cluster, progress=progress, per_frame=True)
    elapsed = time.monotonic() - start
    assert killed, "the run ended before a worker could be killed"
    assert killed["done"] < len(jobs), killed
    ids = [r["id"] for r in rows]
    assert ids == [j["id"] for j in jobs]          # every job, in order
    assert len(set(ids)) == len(ids)               # each once
    for row in rows:
        check_row(row, expected[row["id"].split("#")[0]])
    # the killed worker is gone; the jobs it held were run by the others
    assert killed["addr"] not in cluster.scheduler_info()["workers"]
    by_key = {f"psnrhvs-job-{psnrhvs.dask.Job.coerce(j).token()}-0": j["id"] for j in jobs}
    held = [by_key[k] for k in killed["busy"]]
    assert held, "the killed worker had no job"
    worker = {r["id"]: r["worker"] for r in rows}
    assert any(worker[i] != killed["addr"] for i in held), (held, killed)
    # outputs, written by whichever worker ran the job, in the CLI's layout
    for g in GOLDENS:
        out = tmp_path / f"{g['name']}.json"
        assert_same_result(psnrhvs.read_json(out), expected[g["name"]])
    assert not [p for p in os.listdir(tmp_path) if not p.endswith(".json")], "temporary left"
    print(f"{len(jobs)} jobs in {elapsed:.1f} s; killed {killed['addr']} after {killed['done']} "
          f"rows, holding {held}, rerun on {[worker[i] for i in held]}")


def test_run_job_locally(expected):
    """The worker's function runs here too (no cluster): the same row."""
    job = fixture_jobs(1)[0]
    row = psnrhvs.dask.run_job(job, per_frame=True)
    assert row["worker"] is None
    check_row(row, expected[job["id"].split("#")[0]])
    with pytest.raises(ValueError, match="unknown option"):
        psnrhvs.dask.Job.coerce(dict(job, colour="blue"))
