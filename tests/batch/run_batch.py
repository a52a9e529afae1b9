#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs batch, all inside a temporary folder.

21 jobs over the fixtures (raw and Y4M pairs, each layout, options repeated differently;
one reads its reference from a FIFO the test feeds; one has a truncated reference and
fails). Killed half-way: the whole process group gets SIGKILL while the FIFO job waits for
its second frame, so the ten jobs before it are complete, it leaves a stale temporary file,
and nothing after it has run. The rerun skips exactly those ten (status column, and their
files untouched: same inode and mtime), runs the others, reports the failing job with its
error line without stopping the rest, and exits 1. Every output (and the plot) is the same
bytes as a single `psnrhvs` run of its job, fps aside. Then: a third run skips everything
complete; an output cut short or in another format runs again; --force; batch killed alone
(its job ends by SIGTERM and removes its temporary file); SIGTERM to batch (summary written,
the job interrupted, the rest not_run, death by SIGTERM); the progress line on a terminal
(rewritten in place with frames/s and an ETA) and in a log (plain lines); the CPU budget
(--cores, --threads); a GPU slot through OpenCL where a device exists; jobs-file errors
(exit 2, one line, nothing run).

Usage: run_batch.py PSNRHVS DATA_DIR"""
import csv
import io
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import clitest  # noqa: E402

FRAME_420 = 176 * 144 * 3 // 2
COLUMNS = ["id", "reference", "distorted", "output", "format", "width", "height",
           "pixel_format", "bitdepth", "frame_cnt", "frame_skip_ref", "frame_skip_dist",
           "subsample", "enable_chroma", "mask_product", "precision", "raw", "plot", "args"]
W = {"width": 176, "height": 144}


def job_list(data):
    """(id, reference, distorted, format, options); paths under in/ are the test's own."""
    d = lambda n: os.path.join(data, n)  # noqa: E731
    y420 = (d("yuv420p_176x144_ref.yuv"), d("yuv420p_176x144_dist.yuv"))
    return [
        ("y4m-420", d("yuv420p_176x144_ref.y4m"), d("yuv420p_176x144_dist.y4m"), "xml", {}),
        ("y4m-420-max-raw", d("yuv420p_176x144_ref.y4m"), d("yuv420p_176x144_dist.y4m"), "json",
         {"precision": "max", "raw": "true"}),
        ("yuv-420-csv", y420[0], y420[1], "csv", dict(W)),
        ("yuv-420-sub", y420[0], y420[1], "sub", dict(W)),
        ("y4m-420p10-luma", d("yuv420p10_176x144_ref.y4m"), d("yuv420p10_176x144_dist.y4m"),
         "xml", {"enable_chroma": "false"}),
        ("yuv-420p10", d("yuv420p10_176x144_ref.yuv"), d("yuv420p10_176x144_dist.yuv"), "json",
         dict(W, bitdepth=10)),
        ("y4m-420p12-sub2", d("yuv420p12_176x144_ref.y4m"), d("yuv420p12_176x144_dist.y4m"),
         "json", {"subsample": 2}),
        ("yuv-420p12-cnt2", d("yuv420p12_176x144_ref.yuv"), d("yuv420p12_176x144_dist.yuv"),
         "xml", dict(W, bitdepth=12, frame_cnt=2)),
        ("y4m-422p10-raw", d("yuv422p10_176x144_ref.y4m"), d("yuv422p10_176x144_dist.y4m"), "csv",
         {"raw": "1"}),
        ("yuv-422, 8 \"bit\"", d("yuv422p_176x144_ref.yuv"), d("yuv422p_176x144_dist.yuv"), "xml",
         dict(W, pixel_format="422")),
        ("fifo-420", "in/fifo_ref.yuv", y420[1], "xml", dict(W, plot="out/fifo-420.svg")),
        ("y4m-444-exact", d("yuv444p_176x144_ref.y4m"), d("yuv444p_176x144_dist.y4m"), "json",
         {"mask_product": "exact"}),
        ("yuv-444", d("yuv444p_176x144_ref.yuv"), d("yuv444p_176x144_dist.yuv"), "sub",
         dict(W, pixel_format="444")),
        ("yuv-444p10-prec3", d("yuv444p10_176x144_ref.yuv"), d("yuv444p10_176x144_dist.yuv"),
         "xml", dict(W, pixel_format="444", bitdepth=10, precision=3)),
        ("gray", d("gray_176x144_ref.yuv"), d("gray_176x144_dist.yuv"), "json",
         dict(W, pixel_format="400")),
        ("gray10", d("gray10_176x144_ref.yuv"), d("gray10_176x144_dist.yuv"), "csv",
         dict(W, pixel_format="400", bitdepth=10)),
        ("identical-json", d("identical_yuv420p_176x144.yuv"), d("identical_yuv420p_176x144.yuv"),
         "json", dict(W)),
        ("identical-xml-luma", d("identical_yuv420p_176x144.yuv"),
         d("identical_yuv420p_176x144.yuv"), "xml",
         dict(W, args="--feature psnr_hvs=enable_chroma=false --frame_cnt 1")),
        ("97x61-skip", d("yuv420p_97x61_ref.yuv"), d("yuv420p_97x61_dist.yuv"), "json",
         {"width": 97, "height": 61, "frame_skip_ref": 1, "frame_skip_dist": 1}),
        ("bad-truncated", "in/truncated_ref.yuv", y420[1], "xml", dict(W)),
        ("1280x720", d("yuv420p_1280x720_ref.yuv"), d("yuv420p_1280x720_dist.yuv"), "json",
         {"width": 1280, "height": 720}),
    ]


EXT = {"xml": ".xml", "json": ".json", "csv": ".csv", "sub": ".sub"}


def out_name(job):
    # every other job names its format in a column, the others by the extension
    return "out/%s%s" % (job[0], EXT[job[3]])


def write_jobs(path, jobs, explicit_format=True):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")  # CR LF, as spreadsheets write
        f.write("# psnrhvs batch test jobs\n")
        w.writerow(COLUMNS)
        for i, (jid, ref, dist, fmt, opts) in enumerate(jobs):
            row = {"id": jid, "reference": ref, "distorted": dist, "output": out_name((jid, ref, dist, fmt)),
                   "format": fmt if explicit_format and i % 2 == 0 else ""}
            row.update({k: str(v) for k, v in opts.items()})
            w.writerow([row.get(c, "") for c in COLUMNS])


def single_args(tmp, job):
    """The same job as one psnrhvs run, built from the job itself (not from batch)."""
    jid, ref, dist, fmt, opts = job
    p = lambda x: x if os.path.isabs(x) else os.path.join(tmp, x)  # noqa: E731
    args = ["-r", p(ref), "-d", p(dist)]
    feature = []
    for k, v in opts.items():
        if k in ("plot", "args"):
            continue
        if k == "raw":
            args.append("--raw")
        elif k in ("enable_chroma", "mask_product"):
            feature.append("%s=%s" % (k, v))
        else:
            args += ["--" + k, str(v)]
    if feature:
        args += ["--feature", "psnr_hvs=" + ":".join(feature)]
    args += opts.get("args", "").split()
    args += ["--" + fmt, "-q"]
    return args


def strip_fps(data):
    data = re.sub(rb'<fyi fps="[^"]*" />', b"<fyi fps=\"\" />", data)
    return re.sub(rb'"fps": [^,\n]*,', b'"fps": ,', data)


def read_summary(path):
    with open(path, newline="") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def outputs_of(tmp, jobs):
    return [os.path.join(tmp, out_name(j)) for j in jobs]


def temporaries(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith(".psnrhvs-"))


def wait_group_gone(pgid, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


class FifoFeeder(threading.Thread):
    """Opens the FIFO (waiting for the job to open it), writes `first` bytes, then the rest
    once `go` is set, or closes at once when `stop` is set."""

    def __init__(self, path, data, first):
        super().__init__(daemon=True)
        self.path, self.data, self.first = path, data, first
        self.go = threading.Event()
        self.stop = threading.Event()
        self.wrote = threading.Event()  # the job has the FIFO open and its first bytes
        self.error = None

    def run(self):
        try:
            fd = os.open(self.path, os.O_WRONLY)
        except OSError as e:
            self.error = e
            return
        try:
            os.write(fd, self.data[:self.first])
            self.wrote.set()
            while not self.go.is_set() and not self.stop.is_set():
                time.sleep(0.01)
            if self.go.is_set():
                view = memoryview(self.data)[self.first:]
                while len(view):
                    n = os.write(fd, view)
                    view = view[n:]
        except OSError as e:
            self.error = e  # EPIPE once the job is gone: expected when it is killed
        finally:
            os.close(fd)

    def finish(self):
        """Stops, and joins: a feeder still waiting to open the FIFO (its job never
        opened it) is let through by a reader of our own, so that it cannot write
        into a later run's FIFO beside that run's feeder."""
        self.stop.set()
        if self.is_alive():
            try:
                rfd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                rfd = None
            self.join(timeout=30)
            if rfd is not None:
                os.close(rfd)
        self.join(timeout=30)


def wait_for(cond, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.01)
    return False


def start_batch(ck, args, cwd, **kw):
    return subprocess.Popen([ck.psnrhvs, "batch"] + args, cwd=cwd, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def test_kill_resume(ck, tmp):
    data = ck.data
    jobs = job_list(data)
    os.makedirs(os.path.join(tmp, "in"))
    os.makedirs(os.path.join(tmp, "out"))
    ref420 = os.path.join(data, "yuv420p_176x144_ref.yuv")
    with open(ref420, "rb") as f:
        ref_bytes = f.read()
    with open(os.path.join(tmp, "in", "truncated_ref.yuv"), "wb") as f:
        f.write(ref_bytes[:FRAME_420 * 2 + 1000])  # frame 2 cut short
    fifo = os.path.join(tmp, "in", "fifo_ref.yuv")
    os.mkfifo(fifo)
    jobs_csv = os.path.join(tmp, "jobs.csv")
    write_jobs(jobs_csv, jobs)
    outs = outputs_of(tmp, jobs)
    k = [j[0] for j in jobs].index("fifo-420")
    ck.check(k == 10 and len(jobs) == 21, "job list: fifo at %d of %d" % (k, len(jobs)))

    # ---- first run, killed with SIGKILL (the whole process group) half-way ----
    feeder = FifoFeeder(fifo, ref_bytes, FRAME_420)
    feeder.start()
    proc = start_batch(ck, ["-j", "1", "--gpus", "none", "jobs.csv"], tmp)
    err_chunks = []
    reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
    reader.start()
    outdir = os.path.join(tmp, "out")
    ok = wait_for(lambda: all(os.path.exists(o) for o in outs[:k]) and temporaries(outdir))
    ck.check(ok, "first run: the ten jobs before the FIFO job and its temporary file never "
             "appeared: %r" % os.listdir(outdir))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    ck.check(wait_group_gone(proc.pid), "first run: processes left after SIGKILL")
    feeder.finish()
    reader.join(timeout=30)
    proc.stdout.close()
    proc.stderr.close()
    err = b"".join(err_chunks)
    lines = [x for x in err.split(b"\n") if x]
    ck.check(lines and all(x.startswith(b"psnrhvs: batch: ") for x in lines) and
             any(b"jobs" in x and b"frames/s" in x for x in lines) and b"\r" not in err,
             "first run: not plain progress lines in a log: %r" % err)
    done_first = [os.path.exists(o) for o in outs]
    ck.check(done_first == [True] * k + [False] * (len(jobs) - k),
             "after the kill: outputs %r" % done_first)
    stale = temporaries(outdir)
    ck.check(len(stale) >= 1, "after SIGKILL: no stale temporary file (expected the FIFO job's)")
    ck.check(not os.path.exists(os.path.join(tmp, "jobs.summary.csv")),
             "after SIGKILL: a summary was written")
    before = {o: os.stat(o) for o in outs[:k]}

    # ---- the rerun: exactly the missing jobs ----
    os.unlink(fifo)
    os.symlink(ref420, fifo)
    p = subprocess.run([ck.psnrhvs, "batch", "jobs.csv"], cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    ck.check(p.returncode == 1, "rerun: exit %d, expected 1 (one job fails): %s" %
             (p.returncode, p.stderr.decode(errors="replace")))
    ck.check(p.stdout == b"", "rerun: stdout %r" % p.stdout)
    ck.check(b"job bad-truncated failed: truncated frame 2" in p.stderr,
             "rerun: the failing job's line: %r" % p.stderr)
    summary = read_summary(os.path.join(tmp, "jobs.summary.csv"))
    ck.check(list(summary) == [j[0] for j in jobs], "summary ids: %r" % list(summary))
    for i, j in enumerate(jobs):
        row = summary.get(j[0], {})
        want = "skipped" if i < k else "failed" if j[0] == "bad-truncated" else "done"
        ck.check(row.get("status") == want, "rerun: job %s is %r, expected %s" %
                 (j[0], row.get("status"), want))
    bad = summary.get("bad-truncated", {})
    ck.check(bad.get("message", "").startswith("truncated frame 2 in ") and bad.get("frames") == "",
             "summary: the failing job's message %r" % bad.get("message"))
    for o, st in before.items():
        st2 = os.stat(o)
        ck.check((st2.st_ino, st2.st_mtime_ns) == (st.st_ino, st.st_mtime_ns),
                 "rerun: %s was written again" % o)
    ck.check(temporaries(outdir) == stale, "rerun: the stale temporary files changed: %r -> %r" %
             (stale, temporaries(outdir)))
    for i, j in enumerate(jobs):
        ck.check(os.path.exists(outs[i]) == (j[0] != "bad-truncated"), "rerun: output of %s" % j[0])

    # ---- every output is a single run's, fps aside; the summary holds the file's pooled values ----
    single = os.path.join(tmp, "single")
    os.makedirs(single)
    for i, j in enumerate(jobs):
        if j[0] == "bad-truncated":
            continue
        one = os.path.join(single, os.path.basename(outs[i]))
        args = single_args(tmp, j) + ["-o", one]
        if "plot" in j[4]:
            args += ["--plot", os.path.join(single, "plot.svg")]
        ck.run_ok(args, "single run of %s" % j[0])
        with open(one, "rb") as f1, open(outs[i], "rb") as f2:
            a, b = f1.read(), f2.read()
        ck.check(strip_fps(a) == strip_fps(b), "job %s: batch output differs from a single run" % j[0])
        if "plot" in j[4]:
            with open(os.path.join(single, "plot.svg"), "rb") as f1, \
                    open(os.path.join(tmp, j[4]["plot"]), "rb") as f2:
                ck.check(f1.read() == f2.read(), "job %s: the plot differs" % j[0])
        check_summary_values(ck, j, outs[i], summary.get(j[0], {}))
    return jobs, jobs_csv, outs


def check_summary_values(ck, job, out, row):
    """The summary's pooled values are the output file's (JSON and XML: as written)."""
    fmt = job[3]
    with open(out) as f:
        text = f.read()
    if fmt == "json":
        frames, pooled, _ = clitest.parse_json_output(text)
    elif fmt == "xml":
        frames, pooled, _ = clitest.parse_xml_output(text)
    else:
        return
    ck.check(row.get("frames") == str(len(frames)), "summary %s: frames %r, file %d" %
             (job[0], row.get("frames"), len(frames)))
    for key, stats in pooled.items():
        for stat, v in stats.items():
            got = row.get("%s_%s" % (key, stat))
            ck.check(got is not None and clitest.same(float(got), v),
                     "summary %s %s_%s: %r, file %r" % (job[0], key, stat, got, v))
    for key in clitest.KEYS4:
        if key not in pooled:
            ck.check(row.get(key + "_mean") == "", "summary %s: %s_mean for a key the file lacks" %
                     (job[0], key))


def test_reruns(ck, tmp, jobs, outs):
    # everything complete: skipped, only the failing job runs (and fails) again
    stats = {o: os.stat(o) for o in outs if os.path.exists(o)}
    p = subprocess.run([ck.psnrhvs, "batch", "-q", "jobs.csv"], cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    s = read_summary(os.path.join(tmp, "jobs.summary.csv"))
    ck.check(p.returncode == 1 and [r["status"] for r in s.values()].count("skipped") == 20 and
             s["bad-truncated"]["status"] == "failed",
             "third run: exit %d, %r" % (p.returncode, [r["status"] for r in s.values()]))
    ck.check(p.stderr.count(b"\n") == 1 and b"bad-truncated failed" in p.stderr,
             "-q: only the failure line: %r" % p.stderr)
    ck.check(all(os.stat(o).st_mtime_ns == st.st_mtime_ns for o, st in stats.items()),
             "third run: an output was written again")
    ck.check(all(r["threads"] == "" for r in s.values() if r["status"] == "skipped"),
             "skipped jobs have threads")

    # an output cut short, and one in another format, are not complete
    cut, other = outs[2], outs[0]  # csv, xml
    with open(cut, "rb") as f:
        text = f.read()
    with open(cut, "wb") as f:
        f.write(text[:len(text) // 2])
    with open(outs[1], "rb") as f:
        json_text = f.read()
    with open(other, "wb") as f:
        f.write(json_text)
    p = subprocess.run([ck.psnrhvs, "batch", "jobs.csv"], cwd=tmp, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    s = read_summary(os.path.join(tmp, "jobs.summary.csv"))
    ran = sorted(r["id"] for r in s.values() if r["status"] != "skipped")
    ck.check(ran == sorted([jobs[0][0], jobs[2][0], "bad-truncated"]),
             "incomplete outputs: ran %r" % ran)
    ck.check(b"not complete, running it again" in p.stderr and b"holds json" in p.stderr,
             "incomplete outputs: no note: %r" % p.stderr)
    with open(cut, "rb") as f:
        ck.check(f.read() == text, "the cut output was not written whole again")

    # --force runs everything
    p = subprocess.run([ck.psnrhvs, "batch", "--force", "-q", "jobs.csv", "--summary",
                        "forced.csv"], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    s = read_summary(os.path.join(tmp, "forced.csv"))
    ck.check(p.returncode == 1 and [r["status"] for r in s.values()].count("done") == 20,
             "--force: %r" % [r["status"] for r in s.values()])


def fifo_jobs(tmp, name, n_before=0):
    """A jobs file: n_before ordinary jobs, then one that reads its reference from a FIFO."""
    folder = os.path.join(tmp, name)
    os.makedirs(os.path.join(folder, "out"))
    fifo = os.path.join(folder, "fifo.yuv")
    os.mkfifo(fifo)
    return folder, fifo


def test_parent_killed(ck, tmp, data):
    folder, fifo = fifo_jobs(tmp, "orphan")
    dist = os.path.join(data, "yuv420p_176x144_dist.yuv")
    with open(os.path.join(folder, "jobs.csv"), "w") as f:
        f.write("reference,distorted,output,width,height\nfifo.yuv,%s,out/a.xml,176,144\n" % dist)
    with open(os.path.join(data, "yuv420p_176x144_ref.yuv"), "rb") as f:
        ref = f.read()
    feeder = FifoFeeder(fifo, ref, FRAME_420)
    feeder.start()
    proc = start_batch(ck, ["jobs.csv"], folder)
    out = os.path.join(folder, "out")
    ck.check(wait_for(lambda: temporaries(out) and feeder.wrote.is_set()),
             "orphan: the job never started")
    os.kill(proc.pid, signal.SIGKILL)  # batch alone: its job must not run on
    proc.wait(timeout=60)
    # The first feeder must be gone before the rerun opens the FIFO: two
    # writers would interleave their frames.
    feeder.finish()
    # The jobs are threads of batch: they end with it (SIGKILL leaves the job's
    # temporary file, as it would a single run's), nothing is written, and a
    # rerun does the job.
    ck.check(wait_group_gone(proc.pid), "batch killed alone: its job still runs")
    ck.check(not os.path.exists(os.path.join(out, "a.xml")), "batch killed alone: an output")
    feeder2 = FifoFeeder(fifo, ref, FRAME_420)
    feeder2.go.set()
    feeder2.start()
    p = ck.run(["batch", "-q", "jobs.csv"], cwd=folder)
    ck.check(p.returncode == 0 and os.path.exists(os.path.join(out, "a.xml")),
             "batch killed alone, rerun: exit %d %r" % (p.returncode, p.stderr))
    feeder2.finish()
    feeder.finish()
    proc.stdout.close()
    proc.stderr.close()


def test_sigterm(ck, tmp, data):
    folder, fifo = fifo_jobs(tmp, "term")
    dist = os.path.join(data, "yuv420p_176x144_dist.yuv")
    ref_path = os.path.join(data, "yuv420p_176x144_ref.yuv")
    with open(os.path.join(folder, "jobs.csv"), "w") as f:
        f.write("id,reference,distorted,output,width,height\n")
        f.write("fifo,fifo.yuv,%s,out/a.xml,176,144\n" % dist)
        for i in range(3):
            f.write("later%d,%s,%s,out/l%d.xml,176,144\n" % (i, ref_path, dist, i))
    with open(ref_path, "rb") as f:
        ref = f.read()
    feeder = FifoFeeder(fifo, ref, FRAME_420)
    feeder.start()
    proc = start_batch(ck, ["-j", "1", "--gpus", "none", "jobs.csv"], folder)
    out = os.path.join(folder, "out")
    ck.check(wait_for(lambda: temporaries(out)), "sigterm: the job never started")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    ck.check(proc.returncode == -signal.SIGTERM, "SIGTERM: batch exit %d, expected death by "
             "SIGTERM: %r" % (proc.returncode, err))
    s = read_summary(os.path.join(folder, "jobs.summary.csv")) \
        if os.path.exists(os.path.join(folder, "jobs.summary.csv")) else {}
    ck.check([(r["status"], r["message"]) for r in s.values()] ==
             [("failed", "interrupted")] + [("not_run", "interrupted before it started")] * 3,
             "SIGTERM: summary %r" % [(r.get("status"), r.get("message")) for r in s.values()])
    ck.check(b"interrupted; the summary is in jobs.summary.csv" in err, "SIGTERM: %r" % err)
    ck.check(wait_for(lambda: not temporaries(out), 30), "SIGTERM: temporary file left")
    ck.check(wait_group_gone(proc.pid), "SIGTERM: the job still runs")
    feeder.finish()


def test_tty_progress(ck, tmp, data):
    try:
        import pty
    except ImportError:
        return
    folder, fifo = fifo_jobs(tmp, "tty")
    ref_path = os.path.join(data, "yuv420p_176x144_ref.yuv")
    dist = os.path.join(data, "yuv420p_176x144_dist.yuv")
    with open(os.path.join(folder, "jobs.csv"), "w") as f:
        f.write("reference,distorted,output,width,height\n")
        for i in range(3):
            f.write("%s,%s,out/%d.json,176,144\n" % (ref_path, dist, i))
        f.write("fifo.yuv,%s,out/fifo.json,176,144\n" % dist)
    with open(ref_path, "rb") as f:
        ref = f.read()
    feeder = FifoFeeder(fifo, ref, FRAME_420)
    feeder.start()
    master, slave = pty.openpty()
    proc = subprocess.Popen([ck.psnrhvs, "batch", "-j", "1", "--gpus", "none", "jobs.csv"],
                            cwd=folder, stdout=subprocess.PIPE, stderr=slave,
                            start_new_session=True)
    os.close(slave)
    chunks = []

    def drain():
        while True:
            try:
                c = os.read(master, 4096)
            except OSError:
                break
            if not c:
                break
            chunks.append(c)

    t = threading.Thread(target=drain, daemon=True)
    t.start()
    ck.check(wait_for(lambda: temporaries(os.path.join(folder, "out"))), "tty: the FIFO job never started")
    time.sleep(1.2)  # redraws while it waits
    feeder.go.set()
    feeder.join(timeout=60)
    proc.wait(timeout=120)
    proc.stdout.close()
    t.join(timeout=30)
    os.close(master)
    err = b"".join(chunks)
    parts = [x for x in err.split(b"\r") if x.strip()]
    ck.check(proc.returncode == 0, "tty run: exit %d: %r" % (proc.returncode, err))
    ck.check(len(parts) >= 4 and all(x.startswith(b"psnrhvs: batch: ") and b"\x1b[K" in x
                                     for x in parts[:-2]),
             "tty: not a line rewritten in place: %r" % err)
    ck.check(any(b"3/4 jobs" in x and b"frames/s" in x and b"ETA" in x for x in parts),
             "tty: no line with jobs, frames/s and an ETA: %r" % err)
    ck.check(b"4 jobs: 4 done" in err and err.endswith(b"\n"), "tty: no final line: %r" % err)


def test_budget(ck, tmp, data):
    folder = os.path.join(tmp, "budget")
    os.makedirs(folder)
    ref = os.path.join(data, "yuv420p_176x144_ref.y4m")
    dist = os.path.join(data, "yuv420p_176x144_dist.y4m")
    with open(os.path.join(folder, "jobs.csv"), "w") as f:
        f.write("reference,distorted,output,threads\n%s,%s,a.xml,\n%s,%s,b.xml,\n%s,%s,c.xml,1\n"
                % (ref, dist, ref, dist, ref, dist))
    p = subprocess.run([ck.psnrhvs, "batch", "--cores", "4", "--gpus", "none", "-q", "jobs.csv"],
                       cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    s = read_summary(os.path.join(folder, "jobs.summary.csv"))
    # 4 cores, 3 jobs waiting: 1 each, then the job's own column
    got = [(r["device"], r["threads"]) for r in s.values()]
    ck.check(p.returncode == 0 and got[2] == ("cpu", "1") and
             all(d == "cpu" and 1 <= int(t) <= 4 for d, t in got), "budget: %r %r" % (got, p.stderr))
    p = subprocess.run([ck.psnrhvs, "batch", "--cores", "4", "--gpus", "none", "--threads", "3",
                        "--force", "-q", "jobs.csv"], cwd=folder, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    s = read_summary(os.path.join(folder, "jobs.summary.csv"))
    ck.check([r["threads"] for r in s.values()] == ["3", "3", "1"], "--threads 3: %r" %
             [r["threads"] for r in s.values()])
    with open(os.path.join(folder, "jobs2.csv"), "w") as f:
        f.write("reference,distorted,output\n%s,%s,x.xml\n%s,%s,y.xml\n" % (ref, dist, ref, dist))
    p = subprocess.run([ck.psnrhvs, "batch", "--cores", "4", "--gpus", "none", "-q", "jobs2.csv"],
                       cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    s = read_summary(os.path.join(folder, "jobs2.summary.csv"))
    ck.check([r["threads"] for r in s.values()] == ["2", "2"],
             "4 cores, 2 jobs: %r" % [r["threads"] for r in s.values()])


def test_opencl_slot(ck, tmp, data):
    """A GPU slot (here OpenCL, PoCL's CPU device where no GPU exists): its jobs get
    --backend/--device and give the same bytes."""
    p = ck.run(["--list-devices"])
    text = p.stdout.decode(errors="replace")
    if "opencl:\n  0:" not in text:
        print("note: no OpenCL device, GPU slot case not run (%s)" %
              [x for x in text.splitlines() if x.startswith("opencl")])
        return
    folder = os.path.join(tmp, "gpu")
    os.makedirs(folder)
    jobs = [("g%d" % i, os.path.join(data, r), os.path.join(data, d), "json", {})
            for i, (r, d) in enumerate([("yuv420p_176x144_ref.y4m", "yuv420p_176x144_dist.y4m"),
                                        ("yuv444p_176x144_ref.y4m", "yuv444p_176x144_dist.y4m"),
                                        ("yuv420p10_176x144_ref.y4m", "yuv420p10_176x144_dist.y4m")])]
    with open(os.path.join(folder, "jobs.csv"), "w") as f:
        f.write("id,reference,distorted,output\n")
        for j in jobs:
            f.write("%s,%s,%s,%s.json\n" % (j[0], j[1], j[2], j[0]))
    p = subprocess.run([ck.psnrhvs, "batch", "--gpus", "opencl:0", "--cores", "2",
                        "--gpu-threads", "2", "-q", "jobs.csv"], cwd=folder,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    s = read_summary(os.path.join(folder, "jobs.summary.csv"))
    devs = [r["device"] for r in s.values()]
    ck.check(p.returncode == 0 and "opencl:0" in devs, "GPU slot: exit %d, devices %r: %r" %
             (p.returncode, devs, p.stderr))
    # the GPU holds both cores: its jobs have --gpu-threads, no CPU job runs beside them
    threads = [(r["device"], r["threads"]) for r in s.values()]
    ck.check(all(t == "2" for d, t in threads if d == "opencl:0"),
             "--gpu-threads 2: %r" % threads)
    for j in jobs:
        one = os.path.join(folder, "single-%s.json" % j[0])
        ck.run_ok(single_args(folder, j) + ["-o", one], "single run %s" % j[0])
        with open(one, "rb") as f1, open(os.path.join(folder, j[0] + ".json"), "rb") as f2:
            ck.check(strip_fps(f1.read()) == strip_fps(f2.read()), "GPU slot %s: differs" % j[0])


def test_errors(ck, tmp, data):
    folder = os.path.join(tmp, "errors")
    os.makedirs(folder)
    ref = os.path.join(data, "yuv420p_176x144_ref.y4m")
    dist = os.path.join(data, "yuv420p_176x144_dist.y4m")
    ok_row = "%s,%s,o.xml" % (ref, dist)
    cases = [
        ("reference,distorted,output,colour\n%s,red\n" % ok_row, b"unknown column 'colour'"),
        ("reference,distorted\n%s,%s\n" % (ref, dist), b"needs the columns reference, distorted and output"),
        ("reference,distorted,output\n%s\n%s\n" % (ok_row, ok_row), b"is the output (or plot) of two jobs"),
        ("reference,distorted,output\n-,%s,o.xml\n" % dist, b"'-' (stdin or stdout)"),
        ("reference,distorted,output,args\n%s,-o x.xml\n" % ok_row, b"-o in args"),
        ("reference,distorted,output,format\n%s,mp4\n" % ok_row, b"unknown format 'mp4'"),
        ("reference,distorted,output,device\n%s,1\n" % ok_row, b"a device without a GPU backend"),
        ("reference,distorted,output\n", b"has no jobs"),
        ("", b"has no header row"),
        ("reference,distorted,output\n\"%s,%s,o.xml\n" % (ref, dist), b"without its closing quote"),
        ("reference,distorted,output\n%s,x,y\n" % ok_row, b"5 fields, the header has 3"),
        ("reference,distorted,output,raw\n%s,maybe\n" % ok_row, b"raw is 'maybe'"),
        ("reference,reference,distorted,output\n%s,%s\n" % (ref, ok_row), b"column 'reference' twice"),
        ('reference,distorted,output,format\n%s,"mp\n4"\n' % ok_row, b"unknown format 'mp\\x0a4'"),
    ]
    for i, (text, msg) in enumerate(cases):
        path = os.path.join(folder, "j%d.csv" % i)
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([ck.psnrhvs, "batch", path], cwd=folder, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        ck.check(p.returncode == 2 and msg in p.stderr and p.stderr.count(b"\n") == 1,
                 "jobs file %r: exit %d, %r (expected %r)" % (text[:60], p.returncode, p.stderr, msg))
        ck.check(sorted(os.listdir(folder)) == sorted("j%d.csv" % n for n in range(i + 1)),
                 "jobs file %r: something was written: %r" % (text[:60], os.listdir(folder)))
    p = subprocess.run([ck.psnrhvs, "batch", os.path.join(folder, "missing.csv")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    ck.check(p.returncode == 1 and b"cannot open" in p.stderr, "missing jobs file: %r" % p.stderr)
    for args, msg in ((["--jobs", "0", "x.csv"], b"--jobs"), (["--gpus", "metal:0", "j0.csv"], b"--gpus"),
                      (["--gpu-jobs", "0", "x.csv"], b"--gpu-jobs"),
                      (["--gpu-threads", "x", "x.csv"], b"--gpu-threads"),
                      ([], b"no jobs file"), (["-", ], b"need --summary"),
                      (["--bogus", "x.csv"], b"unknown option")):
        p = subprocess.run([ck.psnrhvs, "batch"] + args, cwd=folder, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        ck.check(p.returncode == 2 and msg in p.stderr, "batch %s: %d %r" % (args, p.returncode, p.stderr))
    p = subprocess.run([ck.psnrhvs, "batch", "--help"], stdout=subprocess.PIPE, timeout=60)
    ck.check(p.returncode == 0 and b"JOBS.csv" in p.stdout, "batch --help")


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        jobs, _, outs = test_kill_resume(ck, tmp)
        print("kill and resume: %.1f s" % (time.time() - t0))
        test_reruns(ck, tmp, jobs, outs)
        test_parent_killed(ck, tmp, ck.data)
        test_sigterm(ck, tmp, ck.data)
        test_tty_progress(ck, tmp, ck.data)
        test_budget(ck, tmp, ck.data)
        test_errors(ck, tmp, ck.data)
        test_opencl_slot(ck, tmp, ck.data)
    print("%.1f s" % (time.time() - t0))
    ck.finish()


if __name__ == "__main__":
    main()
