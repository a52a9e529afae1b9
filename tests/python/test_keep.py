# SPDX-License-Identifier: BSD-2-Clause
"""Never lose a file (issue 41), in Python: a writer or a Dask job whose output is one of its
inputs is refused as the CLI refuses it (inputs hashed before and after); a Y4M file cut short
while it is read raises the CLI's error instead of killing the process with SIGBUS; a picture
of 4 planes is refused."""
import hashlib
import os
import subprocess
import sys
import textwrap

import numpy as np

import pytest

import psnrhvs
import psnrhvs.dask
from conftest import DATA, REPO

pytestmark = pytest.mark.usefixtures("lib")

REF, DIST = DATA / "yuv420p_176x144_ref.y4m", DATA / "yuv420p_176x144_dist.y4m"


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def pair(tmp_path):
    ref, dist = tmp_path / "ref.y4m", tmp_path / "dist.y4m"
    ref.write_bytes(REF.read_bytes())
    dist.write_bytes(DIST.read_bytes())
    os.symlink("dist.y4m", tmp_path / "link.json")
    os.link(ref, tmp_path / "hard.json")
    return tmp_path, ref, dist


def output_names(tmp, ref, dist):
    """The inputs by every name that reaches them, and the role the message names."""
    return [(str(dist), "the distorted"), (str(ref), "the reference"),
            (os.path.join(str(tmp), ".", "dist.y4m"), "the distorted"),
            (str(tmp / "link.json"), "the distorted"), (str(tmp / "hard.json"), "the reference")]


def test_dask_job_output_is_an_input(pair):
    tmp, ref, dist = pair
    before = {p: sha(p) for p in (ref, dist)}
    names = output_names(tmp, ref, dist)
    fd = os.open(dist, os.O_RDWR)
    names.append((f"/proc/self/fd/{fd}", "the distorted"))
    try:
        for out, role in names:
            row = psnrhvs.dask.run_job({"id": "j", "reference": str(ref), "distorted": str(dist),
                                        "output": out})
            assert row["status"] == "error", out
            assert "UsageError" in row["error"] and f"{role} " in row["error"], row["error"]
            assert "it is not written over" in row["error"]
            assert {p: sha(p) for p in (ref, dist)} == before, out
    finally:
        os.close(fd)
    # elsewhere: written, the inputs as they were
    row = psnrhvs.dask.run_job({"id": "j", "reference": str(ref), "distorted": str(dist),
                                "output": str(tmp / "out.json")})
    assert row["status"] == "ok" and (tmp / "out.json").stat().st_size > 0
    assert {p: sha(p) for p in (ref, dist)} == before


def test_write_json_over_an_input(pair):
    tmp, ref, dist = pair
    before = {p: sha(p) for p in (ref, dist)}
    res = psnrhvs.score_files(ref, dist)
    for out, role in output_names(tmp, ref, dist):
        with pytest.raises(psnrhvs.UsageError, match=f"is {role} .*not written over"):
            res.write_json(out)
        assert {p: sha(p) for p in (ref, dist)} == before, out
    res.write_json(tmp / "out.json")
    assert psnrhvs.read_json(tmp / "out.json").pooled == res.pooled