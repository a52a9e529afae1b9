#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Decoding in keyframe chunks (tools/input/chunks.c): for clips encoded here
with a keyframe every 8 frames, the frames the input library hands out when
3 and 8 sessions decode the chunks at once are, frame by frame (an MD5 of each
frame's planes), those of one session and those of ffmpeg -fps_mode
passthrough; and psnrhvs's scores equal the ffmpeg -f yuv4mpegpipe route bit
for bit. H.264 closed GOPs (MP4, with B-frames' edit list) and open GOPs with a
B-pyramid, HEVC open GOPs (CRA with RASL pictures) in Matroska, H.264 and
HEVC as raw Annex B streams (no index, no timestamps), VP9 with alt-ref frames, AV1
(dav1d), FFV1, an MP4 trimmed by an edit list (discarded packets), a VFR
Matroska without cues; frame threads in the sessions, a memory budget that
holds sessions back, a ladder whose inputs share the sessions, a truncated
file. --timing's plan line shows the chunks were decoded apart.

The settings of a run: "sessions" and "timing" are the CLI's flags
(--decode-sessions, --timing); "chunk", "threads" and "buffer_mb" are test
hooks (tools/test_hooks.h: PSNRHVS_TEST_DECODE_*), which let 48-frame clips
on a 2-core machine take the paths a film would."""
import hashlib
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fftest  # noqa: E402

FRAMES = 48
REUSED = [0]  # runs decoded in a flushed session, every split run together
SRC = ["-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25,noise=alls=20:allf=t+u",
       "-frames:v", str(FRAMES)]
GOP = ["-g", "8", "-keyint_min", "8", "-sc_threshold", "0"]
X265 = "log-level=none:keyint=8:min-keyint=8:scenecut=0:bframes=4:open-gop=1"
SPLIT = {"sessions": "3", "chunk": "1", "timing": "1"}
ONE = {"sessions": "1"}
FLAGS = {"sessions": "--decode-sessions", "timing": "--timing"}
HOOKS = {"chunk": "PSNRHVS_TEST_DECODE_CHUNK", "threads": "PSNRHVS_TEST_DECODE_THREADS",
         "buffer_mb": "PSNRHVS_TEST_DECODE_BUFFER_MB"}

# name, encoder, file, ffmpeg arguments, extra settings of the split run
CASES = [
    ("h264 closed gop mp4", "libx264", "closed.mp4",
     ["-c:v", "libx264", "-bf", "3"] + GOP + ["-crf", "30"], {}),
    ("h264 closed gop annex b", "libx264", "closed.264",
     ["-c:v", "libx264", "-bf", "3"] + GOP + ["-crf", "30"], {}),
    ("h264 open gop b-pyramid mkv", "libx264", "open.mkv",
     ["-c:v", "libx264", "-bf", "3"] + GOP +
     ["-x264-params", "open-gop=1:b-pyramid=normal", "-crf", "30"], {}),
    ("h264 open gop, frame threads", "libx264", "open_t.mkv",
     ["-c:v", "libx264", "-bf", "3"] + GOP +
     ["-x264-params", "open-gop=1:b-pyramid=normal", "-crf", "30"],
     {"threads": "2"}),
    ("hevc cra/rasl mkv", "libx265", "cra.mkv",
     ["-c:v", "libx265", "-x265-params", X265, "-crf", "30"], {}),
    ("hevc cra/rasl annex b", "libx265", "cra.hevc",
     ["-c:v", "libx265", "-x265-params", X265, "-crf", "30"], {"threads": "2"}),
    ("vp9 alt-ref webm", "libvpx-vp9", "vp9.webm",
     ["-c:v", "libvpx-vp9", "-g", "8", "-auto-alt-ref", "1", "-lag-in-frames", "16",
      "-cpu-used", "8", "-crf", "40", "-b:v", "0"], {}),
    ("av1 ivf (dav1d)", "libaom-av1", "av1.ivf",
     ["-c:v", "libaom-av1", "-g", "8", "-cpu-used", "8", "-crf", "45", "-b:v", "0"], {}),
    ("ffv1 mkv", "ffv1", "ffv1.mkv", ["-c:v", "ffv1", "-g", "8"],
     {"buffer_mb": "1"}),
]


def flags_of(extra):
    """The command-line flags of settings extra."""
    flags = []
    for k, flag in FLAGS.items():
        if k in extra:
            flags += [flag] if k == "timing" else [flag, extra[k]]
    return flags


def env_with(extra):
    """The environment with the test hooks of settings extra, and no others."""
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("PSNRHVS_TEST_DECODE_"):
            del env[k]
    env.update({HOOKS[k]: v for k, v in extra.items() if k in HOOKS})
    return env


def dump(ck, enc, out, extra, **kw):
    """input_dump of enc into out with settings extra."""
    return subprocess.run([ck.dump] + flags_of(extra) + [enc, out], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env_with(extra), **kw)


def frame_hashes(ck, enc, extra, what):
    """(per-frame MD5s, stderr) of the frames input_dump reads from enc."""
    out = ck.path("dump.yuv")
    p = dump(ck, enc, out, extra, timeout=300)
    err = p.stderr.decode(errors="replace")
    if not ck.check(p.returncode == 0, "%s: input_dump failed: %s" % (what, err.strip())):
        return None, err
    w, h, layout, depth, n = p.stdout.decode().split()
    with open(out, "rb") as f:
        data = f.read()
    n = int(n)
    size = len(data) // n if n else 0
    return [hashlib.md5(data[i * size:(i + 1) * size]).hexdigest() for i in range(n)], err


def ffmpeg_hashes(ck, enc):
    p = ck.ff(["-i", enc, "-fps_mode", "passthrough", "-f", "framemd5", "-"],
              stdout=subprocess.PIPE)
    return [line.split(",")[-1].strip() for line in p.stdout.decode().splitlines()
            if line and not line.startswith("#")]


def split_stats(err):
    """(chunks, runs) from the 'decode chunks' line, or None."""
    m = re.search(r"decode chunks: .*?: (\d+) chunks, (\d+) runs", err)
    return (int(m.group(1)), int(m.group(2))) if m else None


def session_stats(err):
    """(decoders opened, runs in a flushed one) from the 'decode chunks' line, or None."""
    m = re.search(r"(\d+) decoders opened in [0-9.]+ ms \((\d+) runs in one flushed\)", err)
    return (int(m.group(1)), int(m.group(2))) if m else None


def same_frames(ck, what, a, b, names):
    if a is None or b is None:
        return False
    if not ck.check(len(a) == len(b), "%s: %d frames (%s) vs %d (%s)" % (
            what, len(a), names[0], len(b), names[1])):
        return False
    bad = [i for i in range(len(a)) if a[i] != b[i]]
    return ck.check(not bad, "%s: frames %s differ between %s and %s" % (
        what, bad[:8], names[0], names[1]))


def check_split(ck, enc, extra, what, expect_chunks=3, reuse=False):
    """Frames of 3 and 8 sessions vs one session vs ffmpeg, and that it split.
    With 8 every chunk gets a session of its own, the last one too; with 3 the
    runs also decode on through chunks nobody has taken yet, and a worker's
    session, flushed, decodes its next run. reuse: no chunk needs options of
    its own (not H.264), so no more decoders open than sessions."""
    one, _ = frame_hashes(ck, enc, ONE, what + " (one session)")
    ref = ffmpeg_hashes(ck, enc)
    same_frames(ck, what, one, ref, ("1 session", "ffmpeg"))
    split = None
    for n in ("3", "8"):
        env = dict(SPLIT, **extra)
        env["sessions"] = n
        split, err = frame_hashes(ck, enc, env, what)
        tag = "%s sessions" % n
        same_frames(ck, what, split, one, (tag, "1 session"))
        if split is None:
            continue
        st = split_stats(err)
        ck.check(st is not None and st[0] >= expect_chunks and
                 (st[1] >= 2 if expect_chunks > 1 else st[0] == 1),
                 "%s (%s): not decoded in chunks as expected: %s" % (what, tag, err.strip()))
        ck.check("warning" not in err, "%s (%s): warnings: %s" % (what, tag, err.strip()))
        ss = session_stats(err)
        ck.check(ss is not None, "%s (%s): no session counts: %s" % (what, tag, err.strip()))
        if ss and st:
            REUSED[0] += ss[1]
            # Worker 0 decodes chunk 0 in the input's decoder, then opens its own.
            ck.check(not reuse or ss[0] <= int(n),
                     "%s (%s): %d decoders opened for %d sessions: %s" % (
                         what, tag, ss[0], int(n), err.strip()))
    return split


def score_split(ck, ref_args, enc, what, n):
    """Scores of the split decode vs ffmpeg's Y4M pipe, bit for bit."""
    split = {k: v for k, v in SPLIT.items() if k != "timing"}
    os.environ.update({HOOKS[k]: v for k, v in split.items() if k in HOOKS})
    try:
        a = ck.score(list(ref_args) + ["-d", enc, "--frame_cnt", n] + flags_of(split), what)
    finally:
        for k in HOOKS.values():
            os.environ.pop(k, None)
    b = ck.via_pipe(list(ref_args) + ["--frame_cnt", n], enc, what)
    ck.same_scores(a, b, what + ": split vs y4m pipe")


def main():
    ck = fftest.FF(sys.argv)
    ref = ck.path("ref.y4m")
    ck.ff(SRC + ["-strict", "-1", ref])
    ran = 0
    for name, encoder, out, codec, extra in CASES:
        if not ck.has(encoder):
            continue
        enc = ck.encode(SRC, out, codec)
        hashes = check_split(ck, enc, extra, name, reuse=encoder != "libx264")
        if hashes:
            score_split(ck, ["-r", ref], enc, name, len(hashes))
        ran += 1
    if not ran:
        fftest.skip("this ffmpeg has none of the encoders")

    if ck.has("libx264"):
        # An MP4 cut by an edit list: its first packets are decoded, not shown.
        closed = ck.path("closed.mp4")
        trim = ck.path("trim.mp4")
        ck.ff(["-ss", "0.5", "-i", closed, "-c", "copy", "-t", "1.2", trim])
        h = check_split(ck, trim, {}, "mp4 trimmed by an edit list")
        ck.check(h is not None and len(h) < FRAMES, "trimmed mp4: %s frames" % (len(h) if h else h))
        # VFR, Matroska without cues (written to a pipe), open GOPs.
        vfr = ck.path("vfr.mkv")
        with open(vfr, "wb") as f:
            ck.ff(SRC + ["-vf", "setpts='(N+N*N/20)/25/TB'", "-fps_mode", "vfr", "-c:v",
                         "libx264", "-bf", "2"] + GOP +
                  ["-x264-params", "open-gop=1", "-crf", "30", "-f", "matroska", "-"], stdout=f)
        h = check_split(ck, vfr, {}, "vfr mkv without cues")
        if h:
            score_split(ck, ["-r", ref], vfr, "vfr mkv without cues", len(h))
        # Raw H.264 with open GOPs has no timestamps for its leading pictures:
        # one chunk, decoded on by the first run; the frames are the same.
        raw = ck.encode(SRC, "open.264", ["-c:v", "libx264", "-bf", "3"] + GOP +
                        ["-x264-params", "open-gop=1", "-crf", "30"])
        check_split(ck, raw, {}, "raw h264 open gop (not split)", expect_chunks=1)
        # A truncated file: the same frames and the same error line.
        with open(ck.path("open.mkv"), "rb") as f:
            data = f.read()
        cut = ck.path("cut.mkv")
        with open(cut, "wb") as f:
            f.write(data[:len(data) * 2 // 3])
        # Its last chunk is short: what a session started at its keyframe
        # drains at the end must be what the sequential decoder outputs.
        b = dump(ck, cut, ck.path("b.yuv"), ONE)
        for n in ("3", "8"):
            a = dump(ck, cut, ck.path("a.yuv"), dict(SPLIT, sessions=n))
            ea = [ln for ln in a.stderr.decode().splitlines()
                  if not ln.startswith("psnrhvs: decode ")]
            ck.check(a.returncode == b.returncode and a.stdout == b.stdout and
                     ea == b.stderr.decode().splitlines(),
                     "truncated mkv, %s sessions: %d %r %r vs %d %r %r" % (
                         n, a.returncode, a.stdout, ea, b.returncode, b.stdout, b.stderr))
            with open(ck.path("a.yuv"), "rb") as fa, open(ck.path("b.yuv"), "rb") as fb:
                ck.check(fa.read() == fb.read(), "truncated mkv, %s sessions: other frames" % n)
        # A pipe and a short file: one session, and the plan says why.
        _, err = frame_hashes(ck, closed, {"timing": "1", "sessions": "3"}, "short")
        ck.check("one session" in err and "shorter than two chunks" in err,
                 "short file: %s" % err.strip())
        with open(ck.path("open.mkv"), "rb") as f:
            p = dump(ck, "-", ck.path("p.yuv"), SPLIT, input=f.read())
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 0 and "one session" in err and "pipe" in err, "pipe: %s" % err)

    if ck.has("libx264") and ck.has("libx265") and ck.has("ffv1"):
        # A ladder with a compressed reference: every input split, sharing sessions
        # and a budget of frames queued ahead that holds them back.
        refc = ck.path("ffv1.mkv")
        if not os.path.exists(refc):
            refc = ck.encode(SRC, "ffv1.mkv", ["-c:v", "ffv1", "-g", "8"])
        dists = [ck.path("open.mkv"), ck.path("cra.mkv"), ck.path("closed.mp4")]
        args = ["-r", refc]
        for d in dists:
            args += ["-d", d]
        lad = dict(SPLIT, buffer_mb="1")
        env = env_with(lad)
        p = subprocess.run([ck.psnrhvs] + args + flags_of(lad) +
                           ["--json", "--precision", "max", "--raw", "-q",
                            "-o", ck.path("lad_%d.json")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        err = p.stderr.decode(errors="replace")
        ck.check(p.returncode == 0, "ladder: exit %d: %s" % (p.returncode, err.strip()))
        ck.check(len(re.findall(r"decode chunks: ", err)) == 4, "ladder: not split: %s" % err)
        for i, d in enumerate(dists):
            with open(ck.path("lad_%d.json" % i)) as f:
                frames, pooled, _ = fftest.clitest.parse_json_output(f.read())
            b = ck.via_pipe(["-r", refc], d, "ladder rendition %d" % i)
            ck.same_scores((frames, pooled), b, "ladder rendition %d: split vs y4m pipe" % i)
    ck.check(not ran or REUSED[0] > 0, "no run was decoded in a flushed session")
    ck.finish()


if __name__ == "__main__":
    main()
