#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""XML and CSV at --precision max (exact), and default-precision output against the
files libvmaf's vmaf CLI wrote (tests/data/vmaf-output), byte for byte but for version
and fps: its %.16f for fractions under 1e-6 (the tiny_frac pair), its JSON null lines,
--sub, --subsample."""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402


def mask_xml(text):
    text = re.sub(r'<VMAF version="[^"]*">', '<VMAF version="V">', text)
    return re.sub(r'<fyi fps="[0-9.]+" />', '<fyi fps="F" />', text)


def mask_json(text):
    text = re.sub(r'"version": "[^"]*"', '"version": "V"', text)
    return re.sub(r'"fps": [0-9.]+', '"fps": F', text)


def exact_formats(ck, tmp):
    for g in clitest.load_goldens(ck.data):
        for fmt in ("xml", "csv"):
            what = "%s (%s)" % (g["name"], fmt)
            out = os.path.join(tmp, "%s.%s" % (g["name"], fmt))
            p = ck.run_ok(clitest.golden_args(ck.data, g) +
                          ["--" + fmt, "--precision", "max", "--raw", "-o", out], what)
            if p.returncode:
                continue
            with open(out) as f:
                text = f.read()
            if fmt == "xml":
                frames, pooled, root = clitest.parse_xml_output(text)
                ck.check(root.tag == "VMAF" and root.get("version", "").startswith("psnrhvs-"),
                         what + ": root element")
                params = root.find("params")
                ck.check(params is not None and params.get("qualityWidth") == str(g["width"]) and
                         params.get("qualityHeight") == str(g["height"]), what + ": params")
                ck.check(root.find("fyi") is not None and root.find("aggregate_metrics") is not None,
                         what + ": fyi/aggregate_metrics")
                clitest.compare_frames(ck, what, g, frames)
                clitest.compare_pooled(ck, what, g, pooled)
            else:
                frames, header, lines = clitest.parse_csv_output(text)
                want = (["Frame"] + clitest.golden_keys(g) +
                        clitest.RAW3[:1 if g["pixel_format"] == "400" else 3] + [""])
                ck.check(header == want, "%s: header %s, expected %s" % (what, header, want))
                ck.check(all(line.endswith(",") for line in lines), what + ": rows end with ','")
                clitest.compare_frames(ck, what, g, frames)


def vmaf_reference_files(ck, tmp):
    d = ck.data
    ref = os.path.join(d, "yuv420p_176x144_ref.yuv")
    dist = os.path.join(d, "yuv420p_176x144_dist.yuv")
    ident = os.path.join(d, "identical_yuv420p_176x144.yuv")
    geo = ["-w", "176", "-h", "144", "-p", "420", "-b", "8", "--feature", "psnr_hvs", "-n"]
    cases = [
        ("yuv420p_176x144.xml", ["-r", ref, "-d", dist, "--xml"]),
        ("yuv420p_176x144.json", ["-r", ref, "-d", dist, "--json"]),
        ("yuv420p_176x144.csv", ["-r", ref, "-d", dist, "--csv"]),
        ("identical.xml", ["-r", ident, "-d", ident, "--xml"]),
        ("identical.json", ["-r", ident, "-d", ident, "--json"]),
        ("identical.csv", ["-r", ident, "-d", ident, "--csv"]),
        ("yuv420p_176x144_subsample2.json", ["-r", ref, "-d", dist, "--json", "--subsample", "2"]),
        # XML is the default format for files, as in libvmaf
        ("yuv420p_176x144.xml", ["-r", ref, "-d", dist]),
    ]
    # A pair whose values need libvmaf's %.16f (per frame and pooled) and whose
    # JSON mixes null entries (no newline after them) with numbers.
    tref = os.path.join(d, "cli", "tiny_frac_yuv420p_16x16_ref.yuv")
    tdist = os.path.join(d, "cli", "tiny_frac_yuv420p_16x16_dist.yuv")
    tgeo = ["-w", "16", "-h", "16", "-p", "420", "-b", "8", "--feature", "psnr_hvs", "-n"]
    tiny = [
        ("tiny_frac.xml", ["-r", tref, "-d", tdist, "--xml"]),
        ("tiny_frac.json", ["-r", tref, "-d", tdist, "--json"]),
        ("tiny_frac.csv", ["-r", tref, "-d", tdist, "--csv"]),
        ("tiny_frac.sub", ["-r", tref, "-d", tdist, "--sub"]),
        ("tiny_frac_subsample2.json", ["-r", tref, "-d", tdist, "--json", "--subsample", "2"]),
        ("tiny_frac_subsample2.sub", ["-r", tref, "-d", tdist, "--sub", "--subsample", "2"]),
        # vmaf's 0 means "off" for both
        ("tiny_frac.csv", ["-r", tref, "-d", tdist, "--csv", "--subsample", "0", "--frame_cnt", "0"]),
    ]
    runs = [(n, a + geo) for n, a in cases] + [(n, a + tgeo) for n, a in tiny]
    for name, args in runs:
        out = os.path.join(tmp, "vmaf_" + name)
        p = ck.run_ok(args + ["-o", out], "vmaf layout " + name)
        if p.returncode:
            continue
        with open(out) as f:
            got = f.read()
        with open(os.path.join(d, "vmaf-output", name)) as f:
            want = f.read()
        if name.endswith(".xml"):
            got, want = mask_xml(got), mask_xml(want)
        elif name.endswith(".json"):
            got, want = mask_json(got), mask_json(want)
        ck.check(got == want, "vmaf layout %s differs:\n--- got\n%s\n--- libvmaf\n%s" % (name, got, want))


def tiny_frac_sanity(ck):
    """The %.16f pair really holds what it is for (else the byte test proves little)."""
    with open(os.path.join(ck.data, "vmaf-output", "tiny_frac.json")) as f:
        text = f.read()
    ck.check('"psnr_hvs_cr": 58.0000009193611419' in text and
             '"harmonic_mean": 68.0000005306391273' in text and
             '"psnr_hvs_cb": null,        "psnr_hvs_cr"' in text, "tiny_frac.json: not the %.16f pair")


def main():
    ck = clitest.Checker(sys.argv[1], sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        exact_formats(ck, tmp)
        vmaf_reference_files(ck, tmp)
        tiny_frac_sanity(ck)
    ck.finish()


if __name__ == "__main__":
    main()
