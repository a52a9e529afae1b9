#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Run a build's ctest tests with LD_LIBRARY_PATH set for the tests alone.

usage: bench/ctest_env.py BUILD REGEX LD_LIBRARY_PATH
ctest only lists the tests matching REGEX (--show-only=json-v1), started with the
caller's environment; each test's command then runs as ctest would run it (its folder,
its ENVIRONMENT, TIMEOUT and SKIP_RETURN_CODE) with LD_LIBRARY_PATH set. The GPU
scripts need this: the FFmpeg carry's stub libraries on LD_LIBRARY_PATH keep Debian's
ctest from starting (its libarchive needs the real libxml2). Prints ctest's summary
line ("N% tests passed, M tests failed out of T"); exits 1 if a test failed.
"""
import json
import os
import subprocess
import sys
import time


def prop(test, name, default=None):
    for p in test.get("properties", []):
        if p["name"] == name:
            return p["value"]
    return default


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    build, regex, ldp = sys.argv[1:]
    listing = subprocess.run(["ctest", "--show-only=json-v1", "-R", regex], cwd=build,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if listing.returncode:
        print("ctest cannot list the tests: %s" % listing.stderr.decode(errors="replace").strip())
        return 1
    tests = [t for t in json.loads(listing.stdout)["tests"] if t.get("command")]
    failed = []
    for i, t in enumerate(tests, 1):
        env = dict(os.environ)
        for kv in prop(t, "ENVIRONMENT", []):
            k, _, v = kv.partition("=")
            env[k] = v
        env["LD_LIBRARY_PATH"] = ldp
        skip = prop(t, "SKIP_RETURN_CODE")
        start = time.monotonic()
        try:
            p = subprocess.run(t["command"], cwd=prop(t, "WORKING_DIRECTORY", build), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=prop(t, "TIMEOUT", 120))
            rc, out = p.returncode, p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            rc, out = "timeout", (e.stdout or b"").decode(errors="replace")
        except OSError as e:
            rc, out = "not run", str(e)
        state = "Passed" if rc == 0 else "***Skipped" if rc == skip else \
            "***Timeout" if rc == "timeout" else "Not Run" if rc == "not run" else "***Failed"
        print("%d/%d Test: %s %s (exit %s) %.2f sec" % (i, len(tests), t["name"], state, rc,
                                                       time.monotonic() - start), flush=True)
        if rc != 0:
            print(out)
        if rc not in (0, skip):
            failed.append(t["name"])
    n = len(tests)
    print("%d%% tests passed, %d tests failed out of %d"
          % (100 * (n - len(failed)) // n if n else 0, len(failed), n))
    for name in failed:
        print("Failed: %s" % name)
    return 1 if failed or not n else 0


if __name__ == "__main__":
    sys.exit(main())
