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


CUT_SHORT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[1])
    import psnrhvs, psnrhvs.files
    path, mode = sys.argv[2], sys.argv[3]
    size = os.path.getsize(path)
    frame = 176 * 144 * 3 // 2 + len(b"FRAME\\n")

    class CutShort(psnrhvs.files.VideoFile):
        # opened whole, then cut short before frame 2 is read: the race made deterministic
        def __init__(self, p, *a, **k):
            super().__init__(p, *a, **k)
            if os.path.samefile(p, path):
                os.truncate(path, size - 3 * frame - frame // 2)

    if mode == "read":
        vf = CutShort(path)
        vf.set_format(vf.format)
        got = 0
        try:
            while vf.read() is not None:
                got += 1
        except psnrhvs.TruncatedFrameError as e:
            print("raised after %d frames: %s" % (got, e))
    else:
        psnrhvs.files.VideoFile = CutShort
        try:
            psnrhvs.score_files(sys.argv[4], path)
        except psnrhvs.TruncatedFrameError as e:
            print("raised: %s" % e)
""")


@pytest.mark.parametrize("mode", ["read", "score"])
def test_cut_short_while_read_raises(tmp_path, mode):
    """The CLI's words ('... was cut short while being read'), never a SIGBUS (what touching
    a mapping's pages past the new end would be)."""
    dist = tmp_path / "dist.y4m"
    dist.write_bytes(DIST.read_bytes())
    p = subprocess.run([sys.executable, "-c", CUT_SHORT, str(REPO / "python"), str(dist), mode, str(REF)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, env=os.environ)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, f"exit {p.returncode} (-7: SIGBUS): {p.stderr.decode(errors='replace')}"
    assert "raised" in out and "the file was cut short while being read" in out, out
    assert f"in {dist}" in out


def test_four_planes_for_420_raise():
    rng = np.random.default_rng(41)
    y = rng.integers(0, 255, (144, 176), dtype=np.uint8)
    c = rng.integers(0, 255, (72, 88), dtype=np.uint8)
    with psnrhvs.Scorer(176, 144, pixel_format="420") as s:
        good = s.score((y, c, c), (y, c, c))
        assert good.psnr_hvs_y is not None
        for n in (2, 4):
            planes = (y, c, c, c)[:n]
            with pytest.raises(psnrhvs.InvalidArgumentError, match=f"has {n} plane"):
                s.score(planes, (y, c, c))
            with pytest.raises(psnrhvs.InvalidArgumentError, match=f"has {n} plane"):
                s.score((y, c, c), planes)


def test_property_no_writer_changes_an_input(pair):
    """Property: Result.write_json() and a Dask job, each given one of its inputs by a name
    drawn at random (itself, ./, its absolute path, sub/../, a symbolic link, a hard link,
    /proc/self/fd/N), refuse it; no input ever changes. A fixed seed, a bounded count."""
    import random
    tmp, ref, dist = pair
    (tmp / "sub").mkdir()
    res = psnrhvs.score_files(ref, dist)
    rng = random.Random(41)
    inputs = {"ref.y4m": "the reference", "dist.y4m": "the distorted"}
    before = {n: sha(tmp / n) for n in inputs}
    for i in range(40):
        writer = rng.choice(["write_json", "run_job"])
        target = rng.choice(sorted(inputs))
        form = rng.choice(["same", "dot", "abs", "updown", "link", "hard", "proc_fd"])
        fd = None
        if form == "same":
            out = target
        elif form == "dot":
            out = "./" + target
        elif form == "abs":
            out = str(tmp / target)
        elif form == "updown":
            out = "sub/../" + target
        elif form == "link":
            out = f"l{i}"
            os.symlink(target, tmp / out)
        elif form == "hard":
            out = f"h{i}"
            os.link(tmp / target, tmp / out)
        else:
            fd = os.open(tmp / target, os.O_RDWR)
            out = f"/proc/self/fd/{fd}"
        if not out.startswith("/"):
            out = str(tmp) + "/" + out
        what = f"round {i}: {writer} to {out} ({form} of {target})"
        try:
            if writer == "write_json":
                with pytest.raises(psnrhvs.UsageError, match=inputs[target]):
                    res.write_json(out)
            else:
                row = psnrhvs.dask.run_job({"id": str(i), "reference": str(ref),
                                            "distorted": str(dist), "output": out})
                assert row["status"] == "error" and inputs[target] in row["error"], what
        finally:
            if fd is not None:
                os.close(fd)
        assert {n: sha(tmp / n) for n in inputs} == before, what
