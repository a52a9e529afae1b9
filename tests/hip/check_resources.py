#!/usr/bin/env python3
"""Reads each kernel's resource use from the HIP code object, for every
target: no private segment (scratch), no VGPR or SGPR spills. Scratch
memory returned wrong values on one GPU driver in the system this project is
modelled on; this check keeps the kernels out of it.

usage: check_resources.py <clang-offload-bundler> <llvm-readelf> <code object>
                          <workdir> <kernel>... -- <target>...
SPDX-License-Identifier: BSD-2-Clause
"""
import os
import re
import subprocess
import sys


def main():
    bundler, readelf, bundle, work = sys.argv[1:5]
    sep = sys.argv.index("--")
    kernels, targets = sys.argv[5:sep], sys.argv[sep + 1:]
    listed = subprocess.run([bundler, "--list", "--type=o", "--input=" + bundle],
                            check=True, capture_output=True, text=True).stdout.split()
    os.makedirs(work, exist_ok=True)
    failures = 0
    for target in targets:
        entry = [e for e in listed if e.endswith("--" + target)]
        if len(entry) != 1:
            print(f"FAIL {target}: not in the code object (it holds {', '.join(listed)})")
            failures += 1
            continue
        out = os.path.join(work, target + ".o")
        subprocess.run([bundler, "--unbundle", "--type=o", "--input=" + bundle,
                        "--targets=" + entry[0], "--output=" + out], check=True)
        notes = subprocess.run([readelf, "--notes", out], check=True, capture_output=True,
                               text=True).stdout
        # The AMDGPU metadata lists each kernel as a block of ".key: value" lines.
        found = {}
        for block in re.split(r"\n\s*- \.", notes):
            name = re.search(r"\.name:\s+(\S+)", block)
            if not name or name.group(1) not in kernels:
                continue
            vals = {k: int(v) for k, v in re.findall(
                r"\.(private_segment_fixed_size|sgpr_spill_count|vgpr_spill_count|vgpr_count|"
                r"sgpr_count):\s+(\d+)", block)}
            found[name.group(1)] = vals
        for k in kernels:
            v = found.get(k)
            if v is None or len(v) < 5:
                print(f"FAIL {target} {k}: no resource metadata found")
                failures += 1
                continue
            bad = (v["private_segment_fixed_size"] or v["sgpr_spill_count"] or
                   v["vgpr_spill_count"])
            print(f"{'FAIL' if bad else 'ok  '} {target:8} {k:16} scratch "
                  f"{v['private_segment_fixed_size']} bytes, VGPRs {v['vgpr_count']} "
                  f"(spilled {v['vgpr_spill_count']}), SGPRs {v['sgpr_count']} "
                  f"(spilled {v['sgpr_spill_count']})")
            failures += bool(bad)
    print(f"{len(targets)} targets, {len(kernels)} kernels each: {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
