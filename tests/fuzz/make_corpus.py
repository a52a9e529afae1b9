#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes tests/fuzz/corpus/ (small valid and broken Y4M files) and expect.txt,
what the reader must do with each. Run it again after changing a case."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def frame(w, h, layout="420", bps=1, fill=0x80):
    cw, ch = {"420": ((w + 1) // 2, (h + 1) // 2), "422": ((w + 1) // 2, h), "444": (w, h),
              "mono": (0, 0)}[layout]
    return bytes([fill]) * ((w * h + 2 * cw * ch) * bps)


def frames(n, w, h, layout="420", bps=1, params=""):
    return b"".join(("FRAME%s\n" % params).encode() + frame(w, h, layout, bps, 16 + i) for i in range(n))


# name, bytes, expectation ("ok N", "fail N PHRASE", "reject PHRASE", "capped")
CASES = [
    ("ok_420jpeg_16x16.y4m", b"YUV4MPEG2 W16 H16 F25:1 Ip A0:0 C420jpeg XYSCSS=420JPEG\n" + frames(2, 16, 16),
     "ok 2"),
    ("ok_no_c_tag.y4m", b"YUV4MPEG2 W8 H8\n" + frames(1, 8, 8), "ok 1"),
    ("ok_mono10.y4m", b"YUV4MPEG2 W8 H8 Cmono10\n" + frames(3, 8, 8, "mono", 2), "ok 3"),
    ("ok_444p12_odd.y4m", b"YUV4MPEG2 W9 H7 C444p12 XCOLORRANGE=FULL\n" + frames(1, 9, 7, "444", 2, " Ixyz"),
     "ok 1"),
    ("ok_422_odd.y4m", b"YUV4MPEG2 H9 W17 C422\n" + frames(2, 17, 9, "422"), "ok 2"),
    ("ok_420p10_odd.y4m", b"YUV4MPEG2  W11 H5 C420p10 \n" + frames(2, 11, 5, "420", 2), "ok 2"),
    ("ok_header_only.y4m", b"YUV4MPEG2 W16 H16 C420mpeg2\n", "ok 0"),
    ("ok_huge_frame.y4m", b"YUV4MPEG2 W65536 H65536 C444p12\nFRAME\n", "capped"),
    ("reject_empty.y4m", b"", "reject missing \"YUV4MPEG2 \" magic"),
    ("reject_magic.y4m", b"YUV4MPEG3 W16 H16\n" + frames(1, 16, 16), "reject missing \"YUV4MPEG2 \" magic"),
    ("reject_no_newline.y4m", b"YUV4MPEG2 W16 H16", "reject header does not end with a newline"),
    ("reject_missing_w.y4m", b"YUV4MPEG2 H16 C420\n" + frames(1, 16, 16), "reject missing W (width)"),
    ("reject_missing_h.y4m", b"YUV4MPEG2 W16\n", "reject missing H (height)"),
    ("reject_w_zero.y4m", b"YUV4MPEG2 W0 H16\n", "reject bad W tag 'W0'"),
    ("reject_h_sign.y4m", b"YUV4MPEG2 W16 H-16\n", "reject bad H tag 'H-16'"),
    ("reject_w_huge.y4m", b"YUV4MPEG2 W99999999999999999999 H16\n", "reject width in fuzz.y4m exceeds the maximum of 65536"),
    ("reject_h_65537.y4m", b"YUV4MPEG2 W16 H65537\n", "reject height in fuzz.y4m exceeds the maximum of 65536"),
    ("reject_c411.y4m", b"YUV4MPEG2 W16 H16 C411\n", "reject unsupported C tag 'C411'"),
    ("reject_c420p16.y4m", b"YUV4MPEG2 W16 H16 C420p16\n", "reject at most 12 bits"),
    ("reject_c444p9.y4m", b"YUV4MPEG2 W16 H16 C444p9\n", "reject bit depth 9 is not supported"),
    ("reject_c_empty.y4m", b"YUV4MPEG2 W16 H16 C\n", "reject unsupported C tag 'C'"),
    ("reject_long_header.y4m", b"YUV4MPEG2 W16 H16 X" + b"a" * 5000 + b"\n", "reject header too long"),
    ("fail_frame_tag.y4m", b"YUV4MPEG2 W8 H8\n" + frames(1, 8, 8) + b"FRAMX\n" + frame(8, 8),
     "fail 1 bad FRAME header at frame 1"),
    ("fail_frame_glued.y4m", b"YUV4MPEG2 W8 H8\nFRAMEX\n" + frame(8, 8), "fail 0 bad FRAME header at frame 0"),
    ("fail_payload.y4m", b"YUV4MPEG2 W8 H8\n" + frames(2, 8, 8)[:-5], "fail 1 truncated frame 1 in fuzz.y4m: expected 96 bytes, got 91"),
    ("fail_frame_line.y4m", b"YUV4MPEG2 W8 H8\n" + frames(1, 8, 8) + b"FRA", "fail 1 truncated frame 1 in fuzz.y4m: incomplete FRAME header"),
    ("fail_long_frame_line.y4m", b"YUV4MPEG2 W8 H8\nFRAME " + b"x" * 5000 + b"\n", "fail 0 bad FRAME header at frame 0"),
]


def main():
    cdir = os.path.join(HERE, "corpus")
    os.makedirs(cdir, exist_ok=True)
    for name in os.listdir(cdir):
        os.unlink(os.path.join(cdir, name))
    with open(os.path.join(HERE, "expect.txt"), "w") as ex:
        ex.write("# Written by make_corpus.py: corpus file, then ok N | fail N PHRASE | reject PHRASE | capped\n")
        for name, data, expect in CASES:
            with open(os.path.join(cdir, name), "wb") as f:
                f.write(data)
            ex.write("%s %s\n" % (name, expect))


if __name__ == "__main__":
    main()
