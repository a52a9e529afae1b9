# SPDX-License-Identifier: BSD-2-Clause
"""Shared helpers of the compressed-input tests: the ffmpeg CLI (Debian's), its
encoders, clips made from the raw fixtures in a temporary folder."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
import clitest  # noqa: E402,F401

PIX_FMT = {("420", 8): "yuv420p", ("420", 10): "yuv420p10le", ("420", 12): "yuv420p12le",
           ("422", 8): "yuv422p", ("422", 10): "yuv422p10le", ("422", 12): "yuv422p12le",
           ("444", 8): "yuv444p", ("444", 10): "yuv444p10le", ("444", 12): "yuv444p12le",
           ("400", 8): "gray", ("400", 10): "gray10le", ("400", 12): "gray12le"}


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(77)


class FF(clitest.Checker):
    """clitest's Checker with the ffmpeg CLI and a temporary folder."""

    def __init__(self, argv):
        super().__init__(argv[1], argv[2])
        self.dump = argv[3] if len(argv) > 3 else None
        self.ffmpeg = shutil.which("ffmpeg")
        if not self.ffmpeg:
            skip("no ffmpeg CLI (Debian: apt-get install ffmpeg)")
        self.tmpdir = tempfile.TemporaryDirectory(prefix="psnrhvs-ffmpeg-")
        self.tmp = self.tmpdir.name
        out = subprocess.run([self.ffmpeg, "-hide_banner", "-encoders"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout.decode()
        self.encoders = {line.split()[1] for line in out.splitlines()
                         if len(line.split()) > 1 and line.startswith(" V")}

    def path(self, name):
        return os.path.join(self.tmp, name)

    def has(self, encoder):
        if encoder in self.encoders:
            return True
        print("SKIPPED PART: this ffmpeg has no %s encoder" % encoder)
        return False

    def ff(self, args, stdout=None):
        """Run ffmpeg quietly; raise with its stderr when it fails (a broken test setup)."""
        p = subprocess.run([self.ffmpeg, "-hide_banner", "-v", "error", "-nostdin", "-y"] +
                           [str(a) for a in args], stdout=stdout or subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=300)
        if p.returncode:
            raise RuntimeError("ffmpeg %s failed: %s" % (" ".join(map(str, args)),
                                                        p.stderr.decode(errors="replace")))
        return p

    def raw_in(self, g, which):
        """ffmpeg input arguments of a golden fixture's raw file."""
        return ["-f", "rawvideo", "-pix_fmt", PIX_FMT[(g["pixel_format"], g["bitdepth"])],
                "-s", "%dx%d" % (g["width"], g["height"]),
                "-i", os.path.join(self.data, g[which])]

    def encode(self, in_args, out, codec_args):
        out = self.path(out)
        self.ff(in_args + codec_args + [out])
        return out

    def score(self, args, what, input_bytes=None):
        """psnrhvs ... --json --precision max --raw -o -: (frames, pooled) or None."""
        p = self.run(list(args) + ["--json", "--precision", "max", "--raw", "-q", "-o", "-"],
                     input_bytes=input_bytes)
        if not self.check(p.returncode == 0, "%s: exit %d: %s" % (
                what, p.returncode, p.stderr.decode(errors="replace").strip())):
            return None
        frames, pooled, _ = clitest.parse_json_output(p.stdout.decode())
        return frames, pooled

    def via_pipe(self, ref_args, enc, what):
        """The scores of enc decoded by the ffmpeg CLI into a Y4M pipe."""
        y4m = subprocess.run([self.ffmpeg, "-hide_banner", "-v", "error", "-nostdin", "-i", enc,
                              "-fps_mode", "passthrough", "-strict", "-1", "-f", "yuv4mpegpipe",
                              "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if not self.check(y4m.returncode == 0, "%s: ffmpeg decoding failed: %s" % (
                what, y4m.stderr.decode(errors="replace"))):
            return None
        return self.score(list(ref_args) + ["-d", "-"], what + " (y4m pipe)",
                          input_bytes=y4m.stdout)

    def same_scores(self, a, b, what):
        """Two (frames, pooled) results, every number bit for bit."""
        if a is None or b is None:
            return False
        ok = self.check(len(a[0]) == len(b[0]), "%s: %d frames vs %d" % (what, len(a[0]), len(b[0])))
        for (na, ma), (nb, mb) in zip(a[0], b[0]):
            ok &= self.check(na == nb and sorted(ma) == sorted(mb) and
                             all(clitest.same(ma[k], mb[k]) if not k.startswith("raw_")
                                 else ma[k] == mb[k] for k in ma),
                             "%s frame %d: %r vs %r" % (what, na, ma, mb))
        ok &= self.check(json.dumps(a[1], sort_keys=True) == json.dumps(b[1], sort_keys=True),
                         "%s: pooled %r vs %r" % (what, a[1], b[1]))
        return ok

    def error(self, args, what, status, *needles, input_bytes=None):
        """A run that must fail with status and one stderr line holding every needle."""
        p = self.run(args, input_bytes=input_bytes)
        err = p.stderr.decode(errors="replace")
        lines = [line for line in err.splitlines() if line.strip()]
        self.check(p.returncode == status, "%s: exit %d, expected %d: %s" % (
            what, p.returncode, status, err.strip()))
        self.check(len(lines) == 1 and lines[0].startswith("psnrhvs: "),
                   "%s: expected one 'psnrhvs: ' line, got %r" % (what, err))
        for n in needles:
            self.check(n in err, "%s: %r not in %r" % (what, n, err.strip()))
        return err

    def finish(self):
        self.tmpdir.cleanup()
        super().finish()
