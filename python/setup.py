# SPDX-License-Identifier: BSD-2-Clause
"""Builds the package with the library and the CLI inside it.

    python3 -m pip install --no-build-isolation --no-index ./python

(Debian's setuptools and wheel, offline; in a venv made with
--system-site-packages for numpy.) build_py runs CMake on the repository
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

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover (Debian's python3-wheel provides it)
    bdist_wheel = None

HERE = Path(__file__).resolve().parent


def say(msg):
    print(f"psnrhvs setup.py: {msg}", file=sys.stderr, flush=True)


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
