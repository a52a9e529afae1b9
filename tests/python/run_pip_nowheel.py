#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The README's pip command with an interpreter that has setuptools but no `wheel`.

    run_pip_nowheel.py PYTHON SOURCE_DIR WORK_DIR

The command is taken from the README (its "## Python" section). Interpreters tried:
a venv made by PYTHON without its system site (ensurepip: pip and setuptools before
70.1, no wheel, no numpy), and every pyenv CPython 3.9+ under ~/.pyenv/versions that
has setuptools but neither wheel nor a setuptools with bdist_wheel. Each must stop
before any build (no CMake run) with the advice naming itself, what it lacks and the
command to use instead, not pip's bare "invalid command 'bdist_wheel'". Exit 77 where
no such interpreter can be made or found.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

PYTHON, SRC, WORK = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from clitest import Checker  # noqa: E402

checker = Checker(None, None)
check = checker.check
env = {k: v for k, v in os.environ.items()
       if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PSNRHVS_PIP_BUILD_DIR")}
env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
env["PIP_NO_CACHE_DIR"] = "1"

readme = (SRC / "README.md").read_text()
section = readme.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
m = re.search(r"^python3 -m venv (.*?) && (venv/bin/python -m pip install .*)$", section,
              flags=re.M)
if not check(m is not None, "the README's Python section has no 'python3 -m venv ... && "
             "venv/bin/python -m pip install ...' line"):
    checker.finish()
venv_args, pip_cmd = shlex.split(m.group(1)), shlex.split(m.group(2))
check("./python" in pip_cmd and "-v" in pip_cmd, f"the README's pip command: {pip_cmd}")

shutil.rmtree(WORK, ignore_errors=True)
WORK.mkdir(parents=True)
shutil.copytree(SRC / "python", WORK / "python",
                ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__"))
(WORK / "CMakeLists.txt").symlink_to(SRC / "CMakeLists.txt")  # setup.py's source tree
(WORK / "include").symlink_to(SRC / "include")


def lacks_bdist_wheel(py):
    code = ("import setuptools\ntry:\n import setuptools.command.bdist_wheel\nexcept ImportError:\n"
            " try:\n  import wheel.bdist_wheel\n except ImportError:\n  print('none')\n")
    p = subprocess.run([py, "-c", code], capture_output=True, text=True, env=env)
    return p.returncode == 0 and p.stdout.strip() == "none"


def try_readme(venv, what):
    """The README's pip command in venv (made already); the advice, no build."""
    cmd = [str(venv / "bin" / "python") if c == "venv/bin/python" else c for c in pip_cmd]
    p = subprocess.run(cmd, cwd=WORK, capture_output=True, text=True, env=env, timeout=240)
    out = p.stdout + p.stderr
    py = str(venv / "bin" / "python")
    check(p.returncode != 0, f"{what}: pip succeeded without bdist_wheel?\n{out[-2000:]}")
    check("cannot build the package" in out and py in out and "'wheel' package" in out and
          "/usr/bin/python3 -m venv --system-site-packages venv && venv/bin/python -m pip "
          "install -v --no-build-isolation --no-index ./python" in out and
          f"{py} -m pip install wheel" in out,
          f"{what}: not the advice naming {py}:\n{out[-3000:]}")
    check("psnrhvs setup.py: cmake" not in out and "building the library" not in out,
          f"{what}: a build started before the advice:\n{out[-2000:]}")
    print(f"{what}: advice given ({len(out.splitlines())} lines of pip output)")


tried = 0
# 1. A venv of PYTHON without its system site: ensurepip's pip and setuptools only.
plain = WORK / "plain"
p = subprocess.run([PYTHON, "-m", "venv", str(plain)], capture_output=True, text=True, env=env)
if p.returncode == 0 and lacks_bdist_wheel(str(plain / "bin" / "python")):
    try_readme(plain, "a venv without wheel")
    tried += 1
else:
    print("no venv without wheel from %s: %s" % (PYTHON, (p.stderr or "it has bdist_wheel")[-300:]))
# 2. pyenv's CPythons, as the README's command runs them (python3 -m venv ... && ...).
for base in sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3"))):
    v = subprocess.run([base, "-c", "import sys; print(sys.version_info >= (3, 9))"],
                       capture_output=True, text=True, env=env)
    if v.stdout.strip() != "True" or not lacks_bdist_wheel(base):
        continue
    venv = WORK / ("pyenv-" + Path(base).parent.parent.name)
    p = subprocess.run([base, "-m", "venv", *venv_args[:-1], str(venv)], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        continue
    try_readme(venv, "pyenv " + Path(base).parent.parent.name)
    tried += 1
if not tried:
    print("SKIP: no interpreter with setuptools but without bdist_wheel here")
    sys.exit(77)
shutil.rmtree(WORK, ignore_errors=True)
checker.finish()
