#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Never lose a file (issue 41): every command that reads files and writes one refuses an
output that is one of its inputs, each input hashed before and after, with one line on stderr
and a non-zero exit:
- report (score files, rate tables, '-' as stdin) and bdrate (stdout appended to a table);
- -o naming a file of an image-sequence input (f/%03d.jpg), or a new name its pattern takes;
- closed stdin, stdout and stderr: the outputs stay clean, a closed stdout is an error;
- a failed -o (a write past the file-size limit: EFBIG) leaves the --plot file as it was
  (and the reverse), whether the failed one is a temporary file or rewritten in place;
- another user's symbolic link in a sticky world-writable folder is not followed (root);
- smaller ones: a NUL byte in a Y4M header, -o under /proc (an accurate message), the reader
  thread's reason under a memory limit, no 'scored as decoded' line when nothing was scored
  (a batch job writing a FIFO: run_outfile_dev.py).
Usage: run_keep.py PSNRHVS DATA_DIR"""
import errno
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

RATE_A = ("id,bitrate,psnr_hvs,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr\n"
          "crf40,120.5,30.1,29.5,38.0,39.0\ncrf34,260,33.2,32.7,39.5,40.2\n"
          "crf28,540,36.0,35.8,41.0,41.5\ncrf22,1180,38.9,38.1,42.2,42.8\n")
RATE_B = ("id,bitrate,psnr_hvs,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr\n"
          "crf40,100.5,30.3,29.7,38.1,39.0\ncrf34,230,33.4,32.9,39.6,40.1\n"
          "crf28,500,36.1,35.9,41.2,41.4\ncrf22,1100,39.0,38.3,42.3,42.9\n")


def digest(folder):
    """Every file under folder and its bytes' hash (links as links)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, folder)
            if os.path.islink(p):
                out[rel] = "link:" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[rel] = "dir"
    return out


def refused(ck, what, args, cwd, expect, stdin=None, stdout=subprocess.PIPE, pass_fds=(),
            preexec=None):
    """The run fails with one line holding each of expect; nothing in cwd changed."""
    before = digest(cwd)
    p = subprocess.run([ck.psnrhvs] + args, cwd=cwd, stdin=stdin, stdout=stdout,
                       stderr=subprocess.PIPE, pass_fds=pass_fds, preexec_fn=preexec, timeout=300)
    err = p.stderr.decode(errors="replace")
    ck.check(p.returncode > 0, "%s: exit %d (%s)" % (what, p.returncode, err))
    ck.check(len(err.splitlines()) == 1 and all(e in err for e in expect),
             "%s: stderr %r, expected one line with %r" % (what, err, expect))
    after = digest(cwd)
    ck.check(after == before, "%s: files changed: %r" % (
        what, {k: (before.get(k), after.get(k)) for k in set(before) | set(after)
               if before.get(k) != after.get(k)}))
    return p


def setup(ck, tmp):
    for name in ("ref", "dist"):
        shutil.copy(os.path.join(ck.data, "yuv420p_176x144_%s.y4m" % name),
                    os.path.join(tmp, name + ".y4m"))


def report_cases(ck, tmp):
    """1. report and bdrate."""
    setup(ck, tmp)
    base = ["-r", "ref.y4m", "-d", "dist.y4m", "-q"]
    for out in ("a.json", "b.json", "c.xml"):
        ck.run_ok(base + ["-o", out], "make " + out, cwd=tmp)
    for name, text in (("r1.csv", RATE_A), ("r2.csv", RATE_B)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    os.symlink("a.json", os.path.join(tmp, "link.html"))
    os.link(os.path.join(tmp, "b.json"), os.path.join(tmp, "hard.html"))
    rep = ["report", "a.json", "b.json", "c.xml"]
    refused(ck, "report -o an input", rep + ["-o", "a.json"], tmp,
            ["output file a.json is the input a.json", "not written over"])
    refused(ck, "report -o ./input", rep + ["-o", "./c.xml"], tmp,
            ["output file ./c.xml is the input c.xml"])
    refused(ck, "report -o its absolute path", rep + ["-o", os.path.join(tmp, "b.json")], tmp,
            ["is the input b.json"])
    refused(ck, "report -o a link to an input", rep + ["-o", "link.html"], tmp,
            ["output file link.html is the input a.json"])
    refused(ck, "report -o a hard link of an input", rep + ["-o", "hard.html"], tmp,
            ["output file hard.html is the input b.json"])
    with open(os.path.join(tmp, "a.json"), "rb") as f:
        refused(ck, "report - -o the file on stdin", ["report", "-", "-o", "a.json"], tmp,
                ["output file a.json is the input stdin"], stdin=f)
    fd = os.open(os.path.join(tmp, "c.xml"), os.O_RDWR)
    try:
        refused(ck, "report -o /proc/self/fd/N of an input",
                rep + ["-o", "/proc/self/fd/%d" % fd], tmp, ["is the input c.xml"], pass_fds=(fd,))
    finally:
        os.close(fd)
    refused(ck, "report on rate tables -o a table", ["report", "r1.csv", "r2.csv", "-o", "r1.csv"],
            tmp, ["output file r1.csv is the input r1.csv"])
    # the same page elsewhere: written
    p = ck.run(rep + ["r1.csv", "r2.csv", "-o", "page.html"], cwd=tmp)
    ck.check(p.returncode == 0 and os.path.getsize(os.path.join(tmp, "page.html")) > 0,
             "report -o page.html: exit %d %r" % (p.returncode, p.stderr))
    # bdrate writes stdout: appended to (or opened read-write on) a table, refused
    for mode in ("ab", "r+b"):
        with open(os.path.join(tmp, "r2.csv"), mode) as f:
            refused(ck, "bdrate with stdout on the test table (%s)" % mode,
                    ["bdrate", "r1.csv", "r2.csv"], tmp,
                    ["stdout is the test table r2.csv", "not written over"], stdout=f)
    p = ck.run(["bdrate", "r1.csv", "r2.csv"], cwd=tmp)
    ck.check(p.returncode == 0 and b"BD-rate" in p.stdout, "bdrate: exit %d %r" % (p.returncode, p.stderr))


def sequence_cases(ck, tmp):
    """2. -o onto a file of an image sequence."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        print("image-sequence cases skipped: no ffmpeg CLI to make the images")
        return
    setup(ck, tmp)
    os.mkdir(os.path.join(tmp, "f"))
    subprocess.run([ffmpeg, "-loglevel", "error", "-i", "ref.y4m", "-frames:v", "3", "-start_number", "1",
                    "f/%03d.jpg"], cwd=tmp, check=True)
    base = ["-r", "ref.y4m", "-d", "f/%03d.jpg", "-q", "--json", "--frame_cnt", "3"]
    p = ck.run(base + ["-o", "seq.json"], cwd=tmp)
    if p.returncode and b"without FFmpeg" in p.stderr:
        print("image-sequence cases skipped: %s" % p.stderr.decode(errors="replace").strip())
        return
    ck.check(p.returncode == 0, "score an image sequence: exit %d %r" % (p.returncode, p.stderr))
    os.symlink("f/001.jpg", os.path.join(tmp, "link.json"))
    os.link(os.path.join(tmp, "f", "002.jpg"), os.path.join(tmp, "hard.json"))
    for out, shown in (("f/003.jpg", "f/003.jpg"), ("./f/../f/002.jpg", "./f/../f/002.jpg"),
                       ("link.json", "link.json"), ("hard.json", "hard.json"),
                       (os.path.join(tmp, "f", "001.jpg"), "001.jpg"),
                       ("f/004.jpg", "f/004.jpg"), ("f/12.jpg", "f/12.jpg")):
        refused(ck, "-o %s of f/%%03d.jpg" % out, base + ["-o", out], tmp,
                [shown, "the distorted f/%03d.jpg, an image sequence"])
        if out in ("f/004.jpg", "f/12.jpg"):
            ck.check(not os.path.exists(os.path.join(tmp, out)), "-o %s: made" % out)
    refused(ck, "--plot onto a file of the sequence", base + ["-o", "x.json", "--plot", "f/002.jpg"], tmp,
            ["plot file f/002.jpg", "an image sequence"])
    p = ck.run(base + ["-o", "f/other.json"], cwd=tmp)
    ck.check(p.returncode == 0, "-o f/other.json beside the sequence: exit %d %r" % (p.returncode, p.stderr))


def closed_descriptors(ck, tmp):
    """5. stdin, stdout and stderr closed: no output file takes descriptor 2."""
    setup(ck, tmp)
    with open(os.path.join(tmp, "dist.y4m"), "rb") as f:
        head, body = f.read().split(b"\n", 1)
    with open(os.path.join(tmp, "short.y4m"), "wb") as f:  # warns: it ends before the reference
        f.write(head + b"\n" + body[:len(body) // 2 // 38022 * 38022])

    def closed(args):
        return subprocess.run(["/bin/sh", "-c", 'exec "$0" "$@" <&- >&- 2>&-', ck.psnrhvs] + args,
                              cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)

    p = closed(["-r", "ref.y4m", "-d", "short.y4m", "--json", "-o", "o.json"])
    ck.check(p.returncode == 0, "closed 0-2, --json -o: exit %d" % p.returncode)
    try:
        with open(os.path.join(tmp, "o.json")) as f:
            ok = len(json.load(f)["frames"]) > 0
    except (OSError, ValueError, KeyError) as e:
        ok = False
        print("o.json: %s" % e)
    ck.check(ok, "closed 0-2: o.json is the scores alone")
    p = closed(["-r", "ref.y4m", "-d", "short.y4m", "-o", "o.xml", "--plot", "p.svg"])
    ck.check(p.returncode == 0, "closed 0-2, XML and --plot: exit %d" % p.returncode)
    for name in ("o.xml", "p.svg"):
        try:
            ET.parse(os.path.join(tmp, name))
            ok = True
        except (OSError, ET.ParseError) as e:
            ok = False
            print("%s: %s" % (name, e))
        ck.check(ok, "closed 0-2: %s is well-formed" % name)
    # scores asked of a closed stdout: an error, not a silent success
    p = closed(["-r", "ref.y4m", "-d", "dist.y4m", "--json"])
    ck.check(p.returncode != 0, "closed stdout, --json: exit %d" % p.returncode)
    leftovers = [n for n in os.listdir(tmp) if n.startswith(".psnrhvs-")]
    ck.check(not leftovers, "closed 0-2: temporary files left: %r" % leftovers)


def file_size_limit(limit):
    """preexec_fn: files may not grow past limit bytes; SIGXFSZ ignored, so that a write past
    it fails with EFBIG (a disk that fills up, in a temporary folder)."""
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def long_clip(ck, tmp, frames):
    """The 176x144 clip's frames, repeated to `frames`, as raw ref.yuv and dist.yuv."""
    size = 176 * 144 * 3 // 2
    for name in ("ref", "dist"):
        with open(os.path.join(ck.data, "yuv420p_176x144_%s.y4m" % name), "rb") as f:
            body = f.read().split(b"\n", 1)[1]
        raw = [body[at + 6:at + 6 + size] for at in range(0, len(body), 6 + size)]
        with open(os.path.join(tmp, name + ".yuv"), "wb") as f:
            for i in range(frames):
                f.write(raw[i % len(raw)])


def commit_together(ck, tmp):
    """6. One run's outputs are all written, or none replaced. Files may not grow past a
    limit between the two outputs' sizes, so the larger fails (EFBIG): written first (the
    plot of the short clip), or after the other's temporary file was complete (the scores
    of a 40-frame --raw clip, or a hard link rewritten in place after the temporary files).
    Neither is replaced."""
    setup(ck, tmp)
    long_clip(ck, tmp, 40)
    short = ["-r", "ref.y4m", "-d", "dist.y4m", "-q", "--backend", "cpu", "--json"]
    # 40 frames with --raw: the scores outgrow the plot
    long = ["-r", "ref.yuv", "-d", "dist.yuv", "-w", "176", "-h", "144", "-q", "--backend", "cpu",
            "--json", "--raw"]
    sizes = {}
    for clip, base in (("short", short), ("long", long)):
        ck.run_ok(base + ["-o", "m.json", "--plot", "m.svg"], "sizes of the %s clip's outputs" % clip,
                  cwd=tmp)
        sizes[clip] = (os.path.getsize(os.path.join(tmp, "m.json")),
                       os.path.getsize(os.path.join(tmp, "m.svg")))
        os.unlink(os.path.join(tmp, "m.json"))
        os.unlink(os.path.join(tmp, "m.svg"))
    if not ck.check(sizes["short"][0] < sizes["short"][1] and sizes["long"][0] > sizes["long"][1],
                    "the clips no longer order the outputs' sizes (scores, plot): %r" % sizes):
        return
    efbig = os.strerror(errno.EFBIG)
    for name, text in (("p.svg", "the old plot\n"), ("o.json", "the old scores\n")):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    # the plot is written first (its temporary file), then the scores
    for clip, base, hard, fails in (
            ("short", short, None, "p.svg"),      # the plot's temporary file
            ("short", short, "p.svg", "p.svg"),   # after the scores' temporary file: in place
            ("long", long, None, "o.json"),       # after the plot's temporary file
            ("long", long, "o.json", "o.json")):  # after the plot's temporary file: in place
        if hard:
            os.link(os.path.join(tmp, hard), os.path.join(tmp, "hard-" + hard))
        limit = sum(sizes[clip]) // 2
        refused(ck, "%s clip, -o o.json --plot p.svg%s, files up to %d bytes"
                % (clip, ", %s a hard link" % hard if hard else "", limit),
                base + ["-o", "o.json", "--plot", "p.svg"], tmp,
                ["cannot write %s: %s" % (fails, efbig)], preexec=file_size_limit(limit))
        if hard:
            os.unlink(os.path.join(tmp, "hard-" + hard))
    p = ck.run(short + ["-o", "o.json", "--plot", "p.svg"], cwd=tmp)
    with open(os.path.join(tmp, "p.svg")) as f:
        plot = f.read()
    with open(os.path.join(tmp, "o.json")) as f:
        scores = f.read()
    ck.check(p.returncode == 0 and plot.startswith("<") and "the old" not in plot + scores,
             "-o o.json --plot p.svg: exit %d %r" % (p.returncode, p.stderr))


def sticky_links(ck, tmp):
    """7. Another user's link in a sticky world-writable folder is not followed."""
    if os.geteuid() != 0:
        print("sticky-folder cases skipped: need root (to give a link to another user)")
        return
    setup(ck, tmp)
    sticky, victim_dir = os.path.join(tmp, "sticky"), os.path.join(tmp, "victim")
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    os.mkdir(victim_dir)
    victim = os.path.join(victim_dir, "conf.txt")
    with open(victim, "w") as f:
        f.write("root's settings\n")
    link = os.path.join(sticky, "out.json")
    os.symlink(victim, link)
    os.lchown(link, 65534, 65534)
    refused(ck, "-o another user's link in a sticky folder",
            ["-r", "ref.y4m", "-d", "dist.y4m", "-q", "--json", "-o", link], tmp,
            ["sticky/out.json", "symbolic link of another user", "not followed"])
    ck.check(os.path.islink(link), "the link stays")
    refused(ck, "report -o another user's link in a sticky folder",
            ["report", "ref.y4m", "-o", link], tmp, ["not followed"])
    # the caller's own link there is followed
    os.unlink(link)
    os.symlink(victim, link)
    p = ck.run(["-r", "ref.y4m", "-d", "dist.y4m", "-q", "--json", "-o", link], cwd=tmp)
    with open(victim) as f:
        ck.check(p.returncode == 0 and json.load(f)["frames"],
                 "-o root's own link in a sticky folder: exit %d %r" % (p.returncode, p.stderr))


def nul_header(ck, tmp):
    """8. A NUL byte in a Y4M header is an error, as other control bytes are."""
    setup(ck, tmp)
    with open(os.path.join(tmp, "ref.y4m"), "rb") as f:
        head, body = f.read().split(b"\n", 1)
    with open(os.path.join(tmp, "nul.y4m"), "wb") as f:
        f.write(b"YUV4MPEG2 W176 H144\0 Cfoo\n" + body)
    refused(ck, "a NUL byte in a Y4M header", ["-r", "ref.y4m", "-d", "nul.y4m", "-q", "--json"], tmp,
            ["malformed Y4M nul.y4m: a NUL byte in the header"])


def reader_thread_reason(ck, tmp):
    """8. No memory for the reader thread's stack (ulimit -v 200000): the reason is given."""
    setup(ck, tmp)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (200000 * 1024, 200000 * 1024))

    p = subprocess.run([ck.psnrhvs, "-r", "ref.y4m", "-d", "dist.y4m", "-q", "--json", "--threads", "1"],
                       cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit, timeout=300)
    err = p.stderr.decode(errors="replace")
    if "cannot start the reader thread" in err:
        ck.check(p.returncode == 1 and "cannot start the reader thread: " in err,
                 "the reader thread's failure without its reason: %r" % err)
    else:
        print("reader-thread case not reached under a 200000 KiB address space: exit %d %r"
              % (p.returncode, err[-200:]))


def proc_output(ck, tmp):
    """8. -o in /proc: refused with an accurate message (only a read-only file is named)."""
    setup(ck, tmp)
    with open("/proc/version", "rb") as f:
        version = f.read()
    p = ck.run(["-r", "ref.y4m", "-d", "dist.y4m", "-q", "--json", "-o", "/proc/version"], cwd=tmp)
    err = p.stderr.decode(errors="replace")
    ck.check(p.returncode == 1 and err.strip() == "psnrhvs: output file /proc/version is in /proc: "
             "no output is written there", "-o /proc/version: exit %d %r" % (p.returncode, err))
    with open("/proc/version", "rb") as f:
        ck.check(f.read() == version, "/proc/version unchanged")


def decoded_not_scored(ck, tmp):
    """8. 'its frames were scored as decoded' only after a run that scored them: an MJPEG
    AVI with damaged frames (FFmpeg conceals and logs) next to a reference that fails."""
    ffmpeg = shutil.which("ffmpeg")
    if not ffmpeg:
        print("decoding-warning cases skipped: no ffmpeg CLI to make the clip")
        return
    setup(ck, tmp)
    subprocess.run([ffmpeg, "-loglevel", "error", "-i", "ref.y4m", "-c:v", "mjpeg", "-q:v", "3",
                    "clip.avi"], cwd=tmp, check=True)
    with open(os.path.join(tmp, "clip.avi"), "rb") as f:
        clip = bytearray(f.read())
    at = clip.find(b"\xff\xda")  # each frame's entropy-coded data, flipped in the middle
    while at >= 0:
        for k in range(at + 200, min(at + 260, len(clip))):
            if clip[k] != 0xff and clip[k - 1] != 0xff:
                clip[k] ^= 0x55
        at = clip.find(b"\xff\xda", at + 2)
    with open(os.path.join(tmp, "bad.avi"), "wb") as f:
        f.write(clip)
    line = "were scored as decoded"
    p = ck.run(["-r", "ref.y4m", "-d", "bad.avi", "--json", "-o", "ok.json"], cwd=tmp)
    if p.returncode and b"without FFmpeg" in p.stderr:
        print("decoding-warning cases skipped: %s" % p.stderr.decode(errors="replace").strip())
        return
    if line not in p.stderr.decode(errors="replace"):
        print("decoding-warning cases skipped: FFmpeg logs no error for this clip: exit %d %r"
              % (p.returncode, p.stderr))
        return
    ck.check(p.returncode == 0, "the damaged clip scored: exit %d %r" % (p.returncode, p.stderr))
    shutil.copy(os.path.join(ck.data, "yuv420p10_176x144_ref.y4m"), os.path.join(tmp, "ref10.y4m"))
    for ref, expect in (("missing.y4m", "cannot open missing.y4m"), ("ref10.y4m", "bit")):
        refused(ck, "-r %s -d bad.avi: nothing scored" % ref,
                ["-r", ref, "-d", "bad.avi", "--json", "-o", "x.json"], tmp, [expect])


def main():
    ck = clitest.Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    for case in (report_cases, sequence_cases, closed_descriptors, commit_together, sticky_links,
                 nul_header, reader_thread_reason, proc_output, decoded_not_scored):
        with tempfile.TemporaryDirectory() as tmp:
            case(ck, tmp)
    ck.finish()


if __name__ == "__main__":
    sys.exit(main())
