#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""ctest's way into pytest: skip (exit 77, with the reason) when a needed
Debian package is missing, else run pytest on the given files here.

usage: run_pytest.py [--require MODULE]... [pytest arguments]
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEBIAN = {"numpy": "python3-numpy", "pytest": "python3-pytest", "dask": "python3-dask",
          "distributed": "python3-distributed", "pandas": "python3-pandas"}


def main(argv):
    required = ["numpy", "pytest"]
    args = []
    it = iter(argv)
    for a in it:
        if a == "--require":
            required.append(next(it))
        else:
            args.append(a)
    missing = [m for m in required if importlib.util.find_spec(m) is None]
    if missing:
        pkgs = " ".join(DEBIAN.get(m, m) for m in missing)
        print(f"SKIP: {sys.executable} lacks {', '.join(missing)} "
              f"(apt-get install {pkgs}; ./build.sh installs them)")
        return 77
    import pytest
    os.chdir(HERE)
    return pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
