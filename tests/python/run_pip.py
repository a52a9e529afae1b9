#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The package installed with pip as the README says, used from another folder.

    run_pip.py PYTHON SOURCE_PYTHON_DIR BUILD_DIR DATA_DIR WORK_DIR

A fresh venv (--system-site-packages: Debian's numpy) gets
`pip install --no-build-isolation --no-index` of a copy of python/, offline;
PSNRHVS_PIP_BUILD_DIR=BUILD_DIR lets setup.py install this build tree instead
of building a second one. From a folder outside the tree, with no
PSNRHVS_LIBRARY, PSNRHVS_CLI or PYTHONPATH, `import psnrhvs` must load the
bundled library and score a golden pair with its bits, through the library
and through the bundled CLI. Then `pip wheel` the same way gives a
py3-none-<platform> wheel holding the library and an executable CLI, which
installs (--no-deps --no-index) into a second fresh venv and scores the same.
Exit 77 (skipped) where venv or pip is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PYTHON, SRC, BUILD, DATA, WORK = (sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]),
                                  Path(sys.argv[4]), Path(sys.argv[5]))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from clitest import Checker  # noqa: E402  (tests/cli: one pass/fail tally for every driver)

checker = Checker(None, None)
check = checker.check


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode:
        print(p.stdout[-3000:], p.stderr[-3000:])
    return p


env = {k: v for k, v in os.environ.items()
       if k not in ("PSNRHVS_LIBRARY", "PSNRHVS_CLI", "PYTHONPATH", "PSNRHVS_BUILD_DIR",
                    "PYTHONHOME", "VIRTUAL_ENV")}
env["PATH"] = ":".join(p for p in env.get("PATH", "/usr/bin:/bin").split(":")
                       if "/.pyenv/" not in p)
env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
env["PIP_NO_CACHE_DIR"] = "1"

shutil.rmtree(WORK, ignore_errors=True)
WORK.mkdir(parents=True)
src = WORK / "python"
shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info",
                                                        "__pycache__"))
elsewhere = WORK / "elsewhere"
elsewhere.mkdir()

if run([PYTHON, "-m", "venv", "--help"]).returncode or run([PYTHON, "-m", "pip",
                                                            "--version"]).returncode:
    print("SKIP: needs Debian's python3-venv and python3-pip")
    sys.exit(77)

SCRIPT = r"""
import json, struct, sys
import psnrhvs
site = sys.argv[1]
lib = psnrhvs.load_library()
cli = psnrhvs.find_cli()
g = json.load(open(sys.argv[2] + "/golden/yuv420p10_176x144.json"))
data = sys.argv[2]
kw = dict(width=176, height=144, bitdepth=10)
out = {"lib": lib.path, "cli": cli, "frames": []}
for container in ("files", "cli"):
    r = psnrhvs.score_files(data + "/" + g["reference"], data + "/" + g["distorted"],
                            container=container, **kw)
    out["frames"].append([[struct.pack("<d", getattr(f, k)).hex() for k in psnrhvs.KEYS]
                          for f in r.frames])
    if container == "cli":
        out["used_cli"] = r.extra.get("cli")
print(json.dumps(out))
"""


def use(venv, what):
    """Import and score from another folder; the bundled library and CLI, golden bits."""
    py = venv / "bin" / "python"
    p = run([py, "-c", SCRIPT, venv, DATA], cwd=elsewhere, env=env)
    check(p.returncode == 0, f"{what}: the script failed: {p.stderr[-2000:]}")
    if p.returncode:
        return
    out = json.loads(p.stdout)
    for k in ("lib", "cli", "used_cli"):
        check(str(out[k]).startswith(str(venv)), f"{what}: {k} {out[k]} is not the bundled one")
    g = json.loads((DATA / "golden" / "yuv420p10_176x144.json").read_text())
    import struct
    want = [[struct.pack("<d", float(f[k])).hex() for k in
             ("psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs")] for f in g["per_frame"]]
    for i, frames in enumerate(out["frames"]):
        check(frames == want, f"{what}: {('library', 'CLI')[i]} scores are not the golden bits")
    print(f"{what}: {out['lib']}, {out['cli']}: golden bits through the library and the CLI")


pip_env = dict(env, PSNRHVS_PIP_BUILD_DIR=str(BUILD))
venv_a = WORK / "venv-install"
check(run([PYTHON, "-m", "venv", "--system-site-packages", venv_a], env=env).returncode == 0,
      "venv")
p = run([venv_a / "bin" / "python", "-m", "pip", "install", "--no-build-isolation",
         "--no-index", src], env=pip_env, cwd=WORK)
check(p.returncode == 0, "pip install --no-build-isolation --no-index ./python failed")
if p.returncode == 0:
    use(venv_a, "pip install")

wheels = WORK / "wheels"
p = run([venv_a / "bin" / "python", "-m", "pip", "wheel", "--no-build-isolation", "--no-index",
         "--no-deps", "-w", wheels, src], env=pip_env, cwd=WORK)
check(p.returncode == 0, "pip wheel failed")
found = sorted(wheels.glob("psnrhvs-*.whl"))
check(len(found) == 1 and found[0].name.endswith("-py3-none-linux_x86_64.whl") or
      (found and "-py3-none-linux_" in found[0].name), f"wheel: {[w.name for w in found]}")
if found:
    with zipfile.ZipFile(found[0]) as z:
        names = {i.filename: i for i in z.infolist()}
        check("psnrhvs/lib/libpsnrhvs.so.1" in names, "the wheel has no library")
        cli = names.get("psnrhvs/bin/psnrhvs")
        check(cli is not None and (cli.external_attr >> 16) & 0o111,
              "the wheel's CLI is missing or not executable")
    venv_b = WORK / "venv-wheel"
    check(run([PYTHON, "-m", "venv", "--system-site-packages", venv_b], env=env).returncode == 0,
          "second venv")
    p = run([venv_b / "bin" / "python", "-m", "pip", "install", "--no-index", "--no-deps",
             found[0]], env=env, cwd=WORK)
    check(p.returncode == 0, "installing the wheel failed")
    if p.returncode == 0:
        use(venv_b, "the wheel")

if not checker.failures:
    shutil.rmtree(WORK, ignore_errors=True)
checker.finish()
