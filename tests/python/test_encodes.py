# SPDX-License-Identifier: BSD-2-Clause
"""Encodes through score_files, bit for bit as the CLI: a 10-bit encode of an
8-bit source with common_bitdepth, a lower rung with scale (bicubic and
lanczos), skips and counts, the same on Python's own reader (Y4M and raw
sides of different depths), the CLI's hints in Python's words, hwaccel
without a GPU, and a Dask job with these options. Clips are encoded at test
time with Debian's ffmpeg (skipped without it)."""
import shutil
import subprocess
import warnings

import pytest

import psnrhvs
import psnrhvs.dask
from conftest import DATA, assert_same_result

pytestmark = pytest.mark.usefixtures("lib")
FFMPEG = shutil.which("ffmpeg")
REF_Y4M = DATA / "yuv420p_176x144_ref.y4m"
REF_YUV = DATA / "yuv420p_176x144_ref.yuv"


def encoders():
    if not FFMPEG:
        return ""
    return subprocess.run([FFMPEG, "-hide_banner", "-encoders"], capture_output=True,
                          text=True).stdout


ENCODERS = encoders()
needs_ffmpeg = pytest.mark.skipif(not FFMPEG, reason="needs Debian's ffmpeg")


def encode(out, *args):
    subprocess.run([FFMPEG, "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s",
                    "176x144", "-r", "25", "-i", str(REF_YUV), *args, str(out)], check=True)
    return out


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    if not FFMPEG:
        pytest.skip("needs Debian's ffmpeg")
    t = tmp_path_factory.mktemp("encodes")
    codec = ["-c:v", "libx264", "-crf", "30"] if " libx264 " in ENCODERS else ["-c:v", "ffv1"]
    return {
        "ten": encode(t / "enc10.mkv", "-pix_fmt", "yuv420p10le", *codec),
        "rung": encode(t / "rung_88x72.mp4" if " libx264 " in ENCODERS else t / "rung.mkv",
                       "-vf", "scale=88:72", "-pix_fmt", "yuv420p", *codec),
        "eight": encode(t / "enc8.mkv", "-pix_fmt", "yuv420p", *codec),
    }


@needs_ffmpeg
def test_ten_bit_encode_common_bitdepth(clips, psnrhvs_cli, tmp_path):
    r = psnrhvs.score_files(REF_Y4M, clips["ten"], common_bitdepth=True)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", REF_Y4M, "-d", clips["ten"], "--common_bitdepth")
    assert len(r.frames) == 5 and (r.width, r.height) == (176, 144)
    assert_same_result(r, c)
    with pytest.raises(psnrhvs.CLIError) as e:
        psnrhvs.score_files(REF_Y4M, clips["ten"])
    assert "use common_bitdepth=True to shift the 8-bit side up to 10 bits" in str(e.value)
    assert "--common_bitdepth" in e.value.stderr  # the CLI's own words stay in stderr


@needs_ffmpeg
@pytest.mark.parametrize("scale,flag", [(True, "--scale"), ("lanczos", "--scale=lanczos")])
def test_lower_rung_scale(clips, psnrhvs_cli, tmp_path, scale, flag):
    r = psnrhvs.score_files(REF_Y4M, clips["rung"], scale=scale)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", REF_Y4M, "-d", clips["rung"], flag)
    assert (r.width, r.height) == (176, 144)
    assert_same_result(r, c)


@needs_ffmpeg
def test_rung_without_scale_names_the_keyword(clips):
    with pytest.raises(psnrhvs.CLIError) as e:
        psnrhvs.score_files(REF_Y4M, clips["rung"])
    assert "use scale=True to scale the distorted to the reference size" in str(e.value)


@needs_ffmpeg
def test_skips_and_counts_through_the_cli(clips, psnrhvs_cli, tmp_path):
    r = psnrhvs.score_files(REF_Y4M, clips["eight"], frame_skip_ref=1, frame_skip_dist=1,
                            frame_cnt=3, subsample=2, backend="cpu", device=0)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", REF_Y4M, "-d", clips["eight"], "--frame_skip_ref",
                            1, "--frame_skip_dist", 1, "--frame_cnt", 3, "--subsample", 2,
                            "--backend", "cpu")
    assert [f.frame for f in r.frames] == [0, 2]
    assert_same_result(r, c)


@needs_ffmpeg
def test_both_encoded_scale_and_depth(clips, psnrhvs_cli, tmp_path):
    """A compressed reference too, both options at once."""
    r = psnrhvs.score_files(clips["eight"], clips["rung"], scale="bilinear",
                            common_bitdepth=True)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", clips["eight"], "-d", clips["rung"],
                            "--scale=bilinear", "--common_bitdepth")
    assert_same_result(r, c)


def test_common_bitdepth_on_python_reader(psnrhvs_cli, tmp_path):
    """8-bit Y4M against 10-bit Y4M, and against raw 10-bit described by bitdepth:
    the package's own reader shifts as the CLI does."""
    dist10 = DATA / "yuv420p10_176x144_dist.y4m"
    r = psnrhvs.score_files(REF_Y4M, dist10, common_bitdepth=True, container="files")
    c, _ = psnrhvs_cli.json(tmp_path, "-r", REF_Y4M, "-d", dist10, "--common_bitdepth")
    assert r.bitdepth == 10
    assert_same_result(r, c)
    raw10 = DATA / "yuv420p10_176x144_dist.yuv"
    r = psnrhvs.score_files(REF_Y4M, raw10, bitdepth=10, common_bitdepth=True)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", REF_Y4M, "-d", raw10, "-b", 10,
                            "--common_bitdepth")
    assert_same_result(r, c)
    # the 10-bit side as the reference: the 8-bit distorted is the one shifted
    r = psnrhvs.score_files(dist10, REF_Y4M, common_bitdepth=True)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", dist10, "-d", REF_Y4M, "--common_bitdepth")
    assert_same_result(r, c)
    with pytest.raises(psnrhvs.FormatMismatchError) as e:
        psnrhvs.score_files(REF_Y4M, dist10)
    assert "use common_bitdepth=True" in str(e.value)


def test_scale_on_y4m_goes_through_the_cli(psnrhvs_cli, tmp_path):
    small = DATA / "yuv444p_176x144_dist.y4m"  # another layout: an error either way
    with pytest.raises(psnrhvs.CLIError):
        psnrhvs.score_files(REF_Y4M, small, scale=True)
    r = psnrhvs.score_files(REF_Y4M, DATA / "yuv420p_176x144_dist.y4m", scale=True)
    c, _ = psnrhvs_cli.json(tmp_path, "-r", REF_Y4M, "-d", DATA / "yuv420p_176x144_dist.y4m",
                            "--scale")
    assert r.extra.get("cli")
    assert_same_result(r, c)
    with pytest.raises(psnrhvs.UsageError):
        psnrhvs.score_files(REF_Y4M, REF_Y4M, scale=True, container="files")


def test_option_values_checked():
    for kw in (dict(scale="cubic"), dict(hwaccel="vaapi"), dict(common_bitdepth=1),
               dict(colour_mismatch="maybe"), dict(device=[])):
        with pytest.raises(psnrhvs.UsageError):
            psnrhvs.score_files(REF_Y4M, REF_Y4M, **kw)


def test_hwaccel_without_compressed_input_warns():
    with pytest.warns(psnrhvs.PsnrHvsWarning, match="hwaccel has no effect"):
        psnrhvs.score_files(REF_Y4M, DATA / "yuv420p_176x144_dist.y4m", hwaccel="cuda")


def test_hwaccel_values_are_the_cli_flag():
    from psnrhvs._cli_args import _hwaccel_name
    # None keeps the CLI's default (auto); "none" and False pin the CPU
    assert [_hwaccel_name(v) for v in (None, False, "none", "auto", "cuda")] == \
        [None, "none", "none", "auto", "cuda"]
    with pytest.raises(psnrhvs.UsageError, match="expected auto, none or cuda"):
        _hwaccel_name("vaapi")


@needs_ffmpeg
def test_hwaccel_auto_and_none_same_bits(clips):
    base = psnrhvs.score_files(REF_Y4M, clips["eight"])
    for hw in ("auto", "none", False):
        assert_same_result(psnrhvs.score_files(REF_Y4M, clips["eight"], hwaccel=hw), base)


@needs_ffmpeg
def test_hwaccel_without_gpu_is_the_cli_error(clips):
    if psnrhvs.backend_available("cuda"):
        pytest.skip("a CUDA build: NVDEC may exist here")
    with pytest.raises(psnrhvs.CLIError) as e:
        psnrhvs.score_files(REF_Y4M, clips["eight"], hwaccel="cuda")
    assert "hwaccel='cuda'" in str(e.value) and e.value.returncode == 1


@needs_ffmpeg
def test_dask_job_options(clips):
    """run_job (what a worker runs) with the encode options: the same bits."""
    row = psnrhvs.dask.run_job({"id": "ten", "reference": str(REF_Y4M),
                                "distorted": str(clips["ten"]), "common_bitdepth": True,
                                "scale": False})
    r = psnrhvs.score_files(REF_Y4M, clips["ten"], common_bitdepth=True)
    assert row["status"] == "ok", row["error"]
    assert row["width"] == 176 and row["frames"] == 5
    assert row["psnr_hvs_mean"] == r.pooled["psnr_hvs"].mean
    row = psnrhvs.dask.run_job({"id": "rung", "reference": str(REF_Y4M),
                                "distorted": str(clips["rung"]), "scale": "lanczos"})
    r = psnrhvs.score_files(REF_Y4M, clips["rung"], scale="lanczos")
    assert row["status"] == "ok" and row["psnr_hvs_y_min"] == r.pooled["psnr_hvs_y"].min
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = psnrhvs.dask.run_job({"id": "bad", "reference": str(REF_Y4M),
                                    "distorted": str(clips["ten"])})
    assert row["status"] == "error" and "common_bitdepth=True" in row["error"]


def _tagged(src, dst, tag):
    head, rest = src.read_bytes().split(b"\n", 1)
    dst.write_bytes(head + b" " + tag + b"\n" + rest)
    return dst


def test_colour_mismatch_files(psnrhvs_cli, tmp_path):
    """Y4M ranges that differ: the CLI's warning (in Python's words) or its error."""
    ref = _tagged(REF_Y4M, tmp_path / "lim.y4m", b"XCOLORRANGE=LIMITED")
    dist = _tagged(DATA / "yuv420p_176x144_dist.y4m", tmp_path / "full.y4m", b"XCOLORRANGE=FULL")
    p = psnrhvs_cli.run("-r", ref, "-d", dist, "-o", tmp_path / "x.xml")
    cli_warning = [ln for ln in p.stderr.splitlines() if "colour" in ln][0]
    with pytest.warns(psnrhvs.PsnrHvsWarning) as w:
        r = psnrhvs.score_files(ref, dist)
    assert [str(x.message) for x in w] == [
        psnrhvs.files._pythonize(cli_warning.removeprefix("psnrhvs: warning: "))]
    assert_same_result(r, psnrhvs.score_files(REF_Y4M, DATA / "yuv420p_176x144_dist.y4m"))
    msg, status = psnrhvs_cli.error("-r", ref, "-d", dist, "--colour_mismatch", "error")
    with pytest.raises(psnrhvs.FormatMismatchError) as e:
        psnrhvs.score_files(ref, dist, colour_mismatch="error")
    assert str(e.value) == psnrhvs.files._pythonize(msg) and status == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        psnrhvs.score_files(ref, dist, quiet=True)


@needs_ffmpeg
def test_colour_mismatch_cli(tmp_path):
    """A full-range encode against a limited-range source through the CLI."""
    ref = _tagged(REF_Y4M, tmp_path / "lim.y4m", b"XCOLORRANGE=LIMITED")
    full = encode(tmp_path / "full.mkv", "-c:v", "ffv1", "-color_range", "pc")
    with pytest.warns(psnrhvs.PsnrHvsWarning, match="range limited vs full"):
        psnrhvs.score_files(ref, full)
    with pytest.raises(psnrhvs.CLIError, match="colour_mismatch='error'"):
        psnrhvs.score_files(ref, full, colour_mismatch="error")
