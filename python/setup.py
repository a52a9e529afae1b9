# SPDX-License-Identifier: BSD-2-Clause
"""Builds the package with the library and the CLI inside it.

    python3 -m pip install -v --no-build-isolation --no-index ./python

(Debian's setuptools and wheel, offline; in a venv made with
--system-site-packages for numpy; -v shows the build's progress. An
interpreter without bdist_wheel, a pyenv one without 'wheel', is told
which one to use, before anything is built.) build_py runs CMake on the repository
(this folder's parent, or $PSNRHVS_SOURCE_DIR) into a temporary folder:
Release, BUILD_TESTING=OFF, the device backends as CMake finds them, and
installs it to a temporary prefix, from which the package takes

    psnrhvs/lib/libpsnrhvs.so.1     the library (what _lib.py loads first)
    psnrhvs/lib/psnrhvs/            its backend modules, where built
    psnrhvs/lib/vapoursynth/        the VapourSynth plugin, where built
    psnrhvs/bin/psnrhvs             the CLI (RUNPATH $ORIGIN/../lib)

$PSNRHVS_PIP_BUILD_DIR names an existing, built tree to install from
instead (CI reuses its own: no second build); $PSNRHVS_PIP_CMAKE_ARGS adds
CMake options; $PSNRHVS_PIP_JOBS sets the build's parallelism. The wheel
is tagged for this platform (py3-none-linux_x86_64): it installs on other
machines of the same kind (the same C library or newer).
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools 70.1 and later have their own
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:  # Debian's python3-wheel provides it
        bdist_wheel = None

HERE = Path(__file__).resolve().parent


def say(msg):
    print(f"psnrhvs setup.py: {msg}", file=sys.stderr, flush=True)


def check_interpreter():
    """pip builds a wheel (its metadata first): without bdist_wheel that fails with
    "invalid command 'bdist_wheel'" after nothing useful. Say what this interpreter
    lacks and which one to use, before anything is built."""
    if not {"bdist_wheel", "dist_info", "editable_wheel"} & set(sys.argv[1:]):
        return
    try:
        import numpy  # noqa: F401  (a dependency: pip --no-index finds only an installed one)
        numpy_missing = False
    except ImportError:
        numpy_missing = True
    py = sys.executable
    if bdist_wheel is not None:
        if numpy_missing:
            say(f"note: numpy is not installed for {py}: pip must fetch it (with --no-index "
                "it cannot: install numpy first, or make the venv with --system-site-packages "
                "from Debian's python3 with python3-numpy)")
        return
    import setuptools
    base = getattr(sys, "_base_executable", py)
    lacks = "the 'wheel' package" + (" and numpy" if numpy_missing else "")
    raise SystemExit(
        f"psnrhvs setup.py: {py} (Python {sys.version.split()[0]}"
        f"{', a venv of ' + base if base != py else ''}) cannot build the package: its "
        f"setuptools {setuptools.__version__} has no bdist_wheel command (setuptools 70.1 "
        f"and later have one) and {lacks} {'are' if numpy_missing else 'is'} not installed.\n"
        "Use Debian's python3, which has them (apt-get install python3-venv python3-pip "
        "python3-wheel python3-numpy):\n"
        "  /usr/bin/python3 -m venv --system-site-packages venv && venv/bin/python -m pip "
        "install -v --no-build-isolation --no-index ./python\n"
        "or, with network access, add them to this interpreter first:\n"
        f"  {py} -m pip install wheel{' numpy' if numpy_missing else ''}")


check_interpreter()


def run(cmd):
    say(" ".join(shlex.quote(str(c)) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True)


def source_dir():
    env = os.environ.get("PSNRHVS_SOURCE_DIR")
    src = Path(env) if env else HERE.parent
    if not (src / "CMakeLists.txt").is_file() or not (src / "include" / "psnrhvs.h").is_file():
        raise SystemExit("psnrhvs setup.py: no psnrhvs source tree at %s: install from the "
                         "repository's python/ folder, or set PSNRHVS_SOURCE_DIR (or "
                         "PSNRHVS_PIP_BUILD_DIR to a built tree)" % src)
    return src


def install_tree(prefix, tmp):
    """Build (or reuse) a tree and install it into prefix (lib/, bin/)."""
    build = os.environ.get("PSNRHVS_PIP_BUILD_DIR")
    if build:
        build = Path(build).resolve()
        if not (build / "CMakeCache.txt").is_file():
            raise SystemExit(f"psnrhvs setup.py: PSNRHVS_PIP_BUILD_DIR={build} is no CMake "
                             "build tree")
        run(["cmake", "--build", build, "--target", "psnrhvs_cli"])
    else:
        src = source_dir()
        build = Path(tmp) / "build"
        gen = ["-G", "Ninja"] if shutil.which("ninja") else []
        run(["cmake", "-S", src, "-B", build, *gen, "-DCMAKE_BUILD_TYPE=Release",
             "-DBUILD_TESTING=OFF", "-DCMAKE_INSTALL_LIBDIR=lib",
             *shlex.split(os.environ.get("PSNRHVS_PIP_CMAKE_ARGS", ""))])
        jobs = os.environ.get("PSNRHVS_PIP_JOBS") or str(os.cpu_count() or 2)
        say(f"building the library and the CLI on {jobs} cores (a few minutes; pip -v shows "
            "the build's progress)")
        run(["cmake", "--build", build, "-j", jobs])
    run(["cmake", "--install", build, "--prefix", prefix])


class BuildWithLibrary(build_py):
    """build_py, then the C build's library, modules and CLI into the package."""

    def run(self):
        super().run()
        dest = Path(self.build_lib) / "psnrhvs"
        with tempfile.TemporaryDirectory(prefix="psnrhvs-pip-") as tmp:
            prefix = Path(tmp) / "prefix"
            install_tree(prefix, tmp)
            libdirs = [d for d in (prefix / "lib", prefix / "lib64") if d.is_dir()]
            libdirs += [p.parent for p in prefix.glob("lib/*/libpsnrhvs.so.1")]
            lib = next((d / "libpsnrhvs.so.1" for d in libdirs
                        if (d / "libpsnrhvs.so.1").exists()), None)
            if lib is None:
                raise SystemExit(f"psnrhvs setup.py: no libpsnrhvs.so.1 installed under {prefix}")
            libdir = lib.parent
            (dest / "lib").mkdir(parents=True, exist_ok=True)
            # Wheels hold no symbolic links: the file itself, under its SONAME
            # (what the CLI and the plugin look for).
            shutil.copy2(lib.resolve(), dest / "lib" / "libpsnrhvs.so.1")
            for sub in ("psnrhvs", "vapoursynth"):
                if (libdir / sub).is_dir():
                    shutil.rmtree(dest / "lib" / sub, ignore_errors=True)
                    shutil.copytree(libdir / sub, dest / "lib" / sub, symlinks=False)
            cli = prefix / "bin" / "psnrhvs"
            (dest / "bin").mkdir(exist_ok=True)
            shutil.copy2(cli, dest / "bin" / "psnrhvs")
            # The CLI finds the library through $ORIGIN/../lib (cmake/Install.cmake
            # sets it for bin/ beside lib/): check it does, here.
            out = subprocess.run([str(dest / "bin" / "psnrhvs"), "--version"],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                raise SystemExit("psnrhvs setup.py: the bundled CLI does not run: " + out.stderr)
            say(f"bundled {out.stdout.strip()} and {lib.name} into {dest}")


class BinaryDistribution(Distribution):
    """Compiled files inside: installed to platlib, the wheel not pure."""

    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildWithLibrary}
if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """A wheel for this platform: it holds compiled code, for no Python ABI."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
