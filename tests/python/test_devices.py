# SPDX-License-Identifier: BSD-2-Clause
"""psnrhvs.devices(): the library's device list, the one the CLI's --list-devices and
batch use: the host CPU last and automatic, each GPU auto takes once, the same list
as the CLI's `auto` line; psnrhvs.cpu_count() within the machine's cores."""
import ctypes
import os
import re
import subprocess

import psnrhvs
from psnrhvs import _lib


def test_entry_mirrors_the_header():
    # five ints, name[96], pci[16], reserved[32]: no padding (include/psnrhvs.h)
    assert ctypes.sizeof(_lib.DeviceEntry) == 5 * 4 + 96 + 16 + 32
    assert _lib.DeviceEntry.name.offset == 20 and _lib.DeviceEntry.reserved.offset == 132


def test_devices(lib):
    devs = psnrhvs.devices(library=lib)
    assert devs and devs == psnrhvs.devices(library=lib)
    host = devs[-1]
    assert (host["backend"], host["device"], host["gpu"], host["physical"],
            host["automatic"]) == ("cpu", 0, False, 0, True)
    assert host["name"]
    for d in devs[:-1]:
        assert d["backend"] not in ("auto", "cpu"), d
        assert (d["physical"] >= 1) == d["gpu"], d
        assert not d["automatic"] or d["gpu"], d
    gpus = [d["physical"] for d in devs if d["automatic"] and d["gpu"]]
    assert len(gpus) == len(set(gpus))
    assert psnrhvs.devices(auto_only=True, library=lib) == [d for d in devs if d["automatic"]]


def test_devices_are_the_clis(lib, cli):
    out = subprocess.run([cli, "--list-devices"], capture_output=True, check=True,
                         env=dict(os.environ)).stdout.decode()
    m = re.search(r"^auto \(the default\): (.*)$", out, re.M)
    assert m, out
    want = [s.strip() for s in m.group(1).split(",")]
    got = ["cpu" if d["backend"] == "cpu" else "%s:%d" % (d["backend"], d["device"])
           for d in psnrhvs.devices(library=lib) if d["automatic"]]
    assert sorted(got) == sorted(want)


def test_cpu_count(lib):
    n = psnrhvs.cpu_count(library=lib)
    assert 1 <= n <= os.cpu_count()
    assert n <= len(os.sched_getaffinity(0))
