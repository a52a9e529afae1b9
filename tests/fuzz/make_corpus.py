#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes tests/fuzz/corpus/<target>/ (small valid and broken inputs of each fuzz
target) and expect/<target>.txt, what the target must make of each. Run it again
after changing a case."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

CHROMA = {"420": lambda w, h: ((w + 1) // 2, (h + 1) // 2), "422": lambda w, h: ((w + 1) // 2, h),
          "444": lambda w, h: (w, h), "mono": lambda w, h: (0, 0), "400": lambda w, h: (0, 0)}


def samples(w, h, layout="420"):
    cw, ch = CHROMA[layout](w, h)
    return w * h + 2 * cw * ch


def frame(w, h, layout="420", bps=1, fill=0x80):
    """One frame of constant samples (in range for any depth when bps is 2)."""
    n = samples(w, h, layout)
    return bytes([fill]) * n if bps == 1 else struct.pack("<%dH" % n, *([fill * 2] * n))


def frames(n, w, h, layout="420", bps=1, params=""):
    return b"".join(("FRAME%s\n" % params).encode() + frame(w, h, layout, bps, 16 + i) for i in range(n))


def poke16(data, index, value):
    """Set 16-bit sample number index of data (little endian)."""
    b = bytearray(data)
    b[2 * index:2 * index + 2] = struct.pack("<H", value)
    return bytes(b)


# ---- fuzz_y4m: name, bytes, expectation ("ok N", "fail N PHRASE", "reject PHRASE", "capped")
Y4M = [
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
    ("ok_crlf.y4m", b"YUV4MPEG2 W8 H8 C420jpeg\r\nFRAME\r\n" + frame(8, 8), "ok 1"),
    ("ok_p12_max.y4m", b"YUV4MPEG2 W8 H8 C420p12\nFRAME\n" + struct.pack("<96H", *([4095] * 96)), "ok 1"),
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
    ("reject_c_cr_inside.y4m", b"YUV4MPEG2 W16 H16 C420\rjpeg\n", "reject unsupported C tag 'C420\\rjpeg'"),
    ("reject_long_header.y4m", b"YUV4MPEG2 W16 H16 X" + b"a" * 5000 + b"\n", "reject header too long"),
    ("fail_frame_tag.y4m", b"YUV4MPEG2 W8 H8\n" + frames(1, 8, 8) + b"FRAMX\n" + frame(8, 8),
     "fail 1 bad FRAME header at frame 1"),
    ("fail_frame_glued.y4m", b"YUV4MPEG2 W8 H8\nFRAMEX\n" + frame(8, 8), "fail 0 bad FRAME header at frame 0"),
    ("fail_payload.y4m", b"YUV4MPEG2 W8 H8\n" + frames(2, 8, 8)[:-5], "fail 1 truncated frame 1 in fuzz.y4m: expected 96 bytes, got 91"),
    ("fail_frame_line.y4m", b"YUV4MPEG2 W8 H8\n" + frames(1, 8, 8) + b"FRA", "fail 1 truncated frame 1 in fuzz.y4m: incomplete FRAME header"),
    ("fail_long_frame_line.y4m", b"YUV4MPEG2 W8 H8\nFRAME " + b"x" * 5000 + b"\n", "fail 0 bad FRAME header at frame 0"),
    # sample 65 of a 8x8 4:2:0 frame is Cb x=1 y=0
    ("fail_p10_range.y4m", b"YUV4MPEG2 W8 H8 C420p10\nFRAME\n" + poke16(frame(8, 8, "420", 2), 65, 1024),
     "fail 0 sample out of range in fuzz.y4m, frame 0: Cb plane x=1 y=0 is 1024, above the 10-bit maximum 1023"),
]


# ---- fuzz_pair: a 9-byte header (see fuzz_pair.c), the reference, the distorted
LAYOUT_BITS = {"420": 0, "422": 1, "444": 2, "400": 3}
DEPTH_BITS = {8: 0, 10: 1, 12: 2}


def pair(ref, dist, ref_raw=True, dist_raw=True, w=16, h=16, layout="420", depth=8,
         skip_ref=0, skip_dist=0, frame_cnt=0, subsample=0):
    flags = int(ref_raw) | int(dist_raw) << 1 | LAYOUT_BITS[layout] << 2 | DEPTH_BITS[depth] << 4
    head = bytes([flags, w - 1, h - 1, skip_ref, skip_dist, frame_cnt, subsample]) + struct.pack("<H", len(ref))
    return head + ref + dist


def raw(n, w, h, layout="420", depth=8):
    bps = 2 if depth > 8 else 1
    return b"".join(frame(w, h, layout, bps, 20 + 3 * i) for i in range(n))


PAIR = [
    ("ok_raw8.bin", pair(raw(3, 16, 16), raw(3, 16, 16)), "ok 3"),
    ("ok_raw12_444_odd_max.bin", pair(struct.pack("<%dH" % (2 * samples(9, 7, "444")), *([4095] * (2 * samples(9, 7, "444")))),
                                      raw(2, 9, 7, "444", 12), w=9, h=7, layout="444", depth=12), "ok 2"),
    ("ok_mono10.bin", pair(raw(2, 8, 8, "400", 10), raw(2, 8, 8, "400", 10), w=8, h=8, layout="400", depth=10), "ok 2"),
    ("ok_skip_ref.bin", pair(raw(4, 16, 16), raw(3, 16, 16), skip_ref=1), "ok 3"),
    ("ok_skip_both_cnt.bin", pair(raw(5, 16, 16), raw(5, 16, 16), skip_ref=1, skip_dist=2, frame_cnt=2), "ok 2"),
    ("ok_frame_cnt.bin", pair(raw(4, 16, 16), raw(4, 16, 16), frame_cnt=2), "ok 2"),
    ("ok_subsample3.bin", pair(raw(4, 16, 16), raw(4, 16, 16), subsample=3), "ok 4"),
    ("ok_y4m_ref_raw_dist.bin", pair(b"YUV4MPEG2 W8 H8 C444\n" + frames(2, 8, 8, "444"), raw(2, 8, 8, "444"),
                                     ref_raw=False), "ok 2"),
    ("ok_crlf_y4m.bin", pair(b"YUV4MPEG2 W8 H8\r\nFRAME\r\n" + frame(8, 8), b"YUV4MPEG2 W8 H8\nFRAME\n" + frame(8, 8),
                             ref_raw=False, dist_raw=False), "ok 1"),
    ("ok_ref_empty.bin", pair(b"", raw(2, 16, 16)), "ok 0"),
    ("ok_skip_past_end.bin", pair(raw(2, 16, 16), raw(2, 16, 16), skip_dist=5), "ok 0"),
    ("fail_dist_range.bin", pair(raw(2, 8, 8, depth=10), poke16(raw(2, 8, 8, depth=10), 96 + 8 + 2, 1024),
                                 w=8, h=8, depth=10),
     "fail 1 sample out of range in the distorted dist.yuv, frame 1: Y plane x=2 y=1 is 1024, above the 10-bit maximum 1023"),
    ("fail_ref_range_y4m.bin", pair(b"YUV4MPEG2 W8 H8 C420p12\nFRAME\n" + poke16(frame(8, 8, "420", 2), 95, 4096),
                                    raw(1, 8, 8, depth=12), ref_raw=False),
     "fail 0 sample out of range in the reference ref.y4m, frame 0: Cr plane x=3 y=3 is 4096, above the 12-bit maximum 4095"),
    ("fail_truncated_dist.bin", pair(raw(3, 16, 16), raw(3, 16, 16)[:-5]),
     "fail 2 truncated frame 2 in dist.yuv: expected 384 bytes, got 379 (the size is not a whole number of 16x16 420 8-bit frames: -w/-h/-p/-b may be wrong)"),
    ("reject_differ.bin", pair(b"YUV4MPEG2 W8 H8\n" + frames(1, 8, 8), b"YUV4MPEG2 W16 H8\n" + frames(1, 16, 8),
                               ref_raw=False, dist_raw=False), "reject reference and distorted differ"),
    ("reject_bad_y4m.bin", pair(b"YUV4MPEG2 W8 C411\n", raw(1, 8, 8), ref_raw=False),
     "reject unsupported C tag 'C411'"),
    ("reject_short.bin", b"\x03\x0f\x0f", "reject input shorter than the 9-byte header"),
]


# ---- fuzz_output: a 3-byte header and 49-byte frame records (see fuzz_output.c)
MUXERS = {"xml": 0, "json": 1, "csv": 2, "sub": 3, "summary": 4}
HOW = {"bits": 0, "tiny": 1, "special": 2}
SPECIAL = {"inf": 0, "-inf": 1, "nan": 2, "-0": 3, "0": 4, "dbl_min": 5, "true_min": 6, "dbl_max": 7}


def value(v):
    """-> (how, 8 bytes): a double as it is, ("tiny", n, k) for n + 1e-k, or a special name."""
    if isinstance(v, tuple):
        _, n, k = v
        return HOW["tiny"], struct.pack("<hBB", n, 0, k - 1) + bytes(4)
    if isinstance(v, str):
        return HOW["special"], bytes([SPECIAL[v]]) + bytes(7)
    return HOW["bits"], struct.pack("<d", v)


def output(muxer, records, precision="vmaf", raw=False, luma_only=False, digits=0):
    prec = {"vmaf": 0, "max": 1, "digits": 2 | digits << 2}[precision]
    out = bytes([MUXERS[muxer], prec, int(raw) | int(luma_only) << 1])
    for num, values, raws in records:
        sel, body = 0, b""
        for k, v in enumerate(values):
            how, b = value(v)
            sel |= how << (2 * k)
            body += b
        out += bytes([sel]) + body + struct.pack("<3f", *raws) + struct.pack("<I", num)
    return out


NORMAL = (0, [22.5, 31.25, 33.0, 24.125], [1e-3, 2e-4, 3e-4])
TINY = (1, [("tiny", 58, 7), 43.0000000123, ("tiny", 40, 6), ("tiny", 12, 20)], [1e-3, 2e-4, 3e-4])
IDENTICAL = (2, ["inf", "inf", "inf", "inf"], [0.0, 0.0, 0.0])
MIXED = (3, ["inf", 60.5, "nan", "-0"], [0.0, 1e-7, float("nan")])
EXTREME = (7, ["dbl_max", "true_min", "-inf", 2147483648.5], [float("inf"), 1.0, 0.0])

OUTPUT = [
    ("ok_xml_tiny.bin", output("xml", [NORMAL, TINY, IDENTICAL]), "ok 3"),
    ("ok_json_mixed.bin", output("json", [MIXED, IDENTICAL]), "ok 2"),
    ("ok_json_tiny_raw.bin", output("json", [TINY, NORMAL], raw=True), "ok 2"),
    ("ok_csv_vmaf.bin", output("csv", [NORMAL, TINY, MIXED, EXTREME]), "ok 4"),
    ("ok_csv_max_raw.bin", output("csv", [TINY, EXTREME], precision="max", raw=True), "ok 2"),
    ("ok_csv_digits32.bin", output("csv", [EXTREME], precision="digits", digits=32), "ok 1"),
    ("ok_sub.bin", output("sub", [TINY, MIXED], raw=True), "ok 2"),
    ("ok_summary_luma.bin", output("summary", [NORMAL, TINY], luma_only=True), "ok 2"),
    ("ok_no_frames.bin", output("xml", []), "ok 0"),
    ("reject_short.bin", b"\x01", "reject input shorter than the 3-byte header"),
]


# ---- fuzz_csv: batch jobs files ("ok N": N records, "fail N PHRASE": N records, then the error)
CSV = [
    ("ok_jobs.csv", b"reference,distorted,output\nref.y4m,dist.mkv,out.json\n", "ok 2"),
    ("ok_comments.csv", b"# jobs\n\nreference,distorted,output\n  # more\na,b,c\r\n", "ok 2"),
    ("ok_quoted.csv", b'reference,distorted,output\n"a, b","say ""hi""","x\ny"\n', "ok 2"),
    ("ok_no_newline.csv", b"a,b,c", "ok 1"),
    ("ok_spaces.csv", b' a , "b" ,c\n', "ok 1"),
    ("ok_empty.csv", b"", "ok 0"),
    ("fail_open_quote.csv", b'a,b\n"c,d\n', "fail 1 line 2: a quoted field without its closing quote"),
    ("fail_after_quote.csv", b'"a"b,c\n', "fail 0 line 1: text after a closing quote"),
    ("fail_inner_quote.csv", b'a,b"c\n', "fail 0 line 1: a quote inside an unquoted field"),
    ("fail_cr.csv", b"a,b\rc\n", "fail 0 line 1: a carriage return inside a line"),
]

# ---- fuzz_scores: score files ("ok N": N frames read, "reject PHRASE")
XML_SCORES = b"""<VMAF version="psnrhvs-1.0.0">
  <params qualityWidth="176" qualityHeight="144" />
  <frames>
    <frame frameNum="0" psnr_hvs_y="24.778154" psnr_hvs_cb="33.011076" psnr_hvs_cr="33.788962" psnr_hvs="25.600058" />
    <frame frameNum="1" psnr_hvs_y="22.517023" psnr_hvs_cb="27.195624" psnr_hvs_cr="25.371881" psnr_hvs="23.043305" />
  </frames>
  <pooled_metrics>
    <metric name="psnr_hvs_y" min="22.517023" max="24.778154" mean="23.647589" harmonic_mean="23.595731" />
  </pooled_metrics>
</VMAF>
"""
JSON_SCORES = b"""{"version": "psnrhvs-1.0.0", "fps": 165.81, "frames": [
  {"frameNum": 0, "metrics": {"psnr_hvs_y": 24.778154, "psnr_hvs": 25.600058}},
  {"frameNum": 1, "metrics": {"psnr_hvs_y": null, "psnr_hvs": 1e308}}],
 "pooled_metrics": {"psnr_hvs_y": {"min": 22.5, "max": 24.7, "mean": 23.6, "harmonic_mean": 23.5}},
 "aggregate_metrics": {}}
"""
SCORES = [
    ("ok_scores.xml", XML_SCORES, "ok 2"),
    ("ok_scores.json", JSON_SCORES, "ok 2"),
    ("ok_scores.csv", b"Frame,psnr_hvs_y,psnr_hvs_cb,psnr_hvs_cr,psnr_hvs,\n"
     b"0,24.778154,33.011076,33.788962,25.600058,\n1,22.517023,27.195624,25.371881,23.043305,\n",
     "ok 2"),
    ("ok_scores.sub", b"{0}{1}frame: 0|psnr_hvs_y: 24.778154|psnr_hvs: 25.600058|\n"
     b"{1}{2}frame: 1|psnr_hvs_y: 22.517023|psnr_hvs: 23.043305|\n", "ok 2"),
    ("reject_cut.xml", XML_SCORES[:300], "reject"),
    ("reject_cut.json", JSON_SCORES[:120], "reject"),
]


def write(target, cases):
    cdir = os.path.join(HERE, "corpus", target)
    os.makedirs(cdir, exist_ok=True)
    for name in os.listdir(cdir):
        os.unlink(os.path.join(cdir, name))
    os.makedirs(os.path.join(HERE, "expect"), exist_ok=True)
    with open(os.path.join(HERE, "expect", target + ".txt"), "w") as ex:
        ex.write("# Written by make_corpus.py: corpus file, then ok N | fail N PHRASE | reject PHRASE | capped\n")
        for name, data, expect in cases:
            with open(os.path.join(cdir, name), "wb") as f:
                f.write(data)
            ex.write("%s %s\n" % (name, expect))


def main():
    write("y4m", Y4M)
    write("pair", PAIR)
    write("output", OUTPUT)
    write("csv", CSV)
    write("scores", SCORES)


if __name__ == "__main__":
    main()
