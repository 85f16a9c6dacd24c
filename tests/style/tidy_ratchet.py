#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Compares clang-tidy findings on core/, ui/ and app/ with the recorded baseline (a ratchet).

Reads clang-tidy's output on standard input, keeps each finding once (headers are seen from many
translation units; paths under build/include/<library>/ are the staged headers), counts
them per (file, check) and compares with tests/style/tidy-baseline.txt ("count file check" per
line). Exits 1 when a file has more findings of a check than recorded (a new finding), 0
otherwise; prints what went down so the baseline can be lowered with --update.
"""
import collections
import pathlib
import re
import sys

BASELINE = pathlib.Path(__file__).with_name("tidy-baseline.txt")
FINDING = re.compile(r"^(?P<path>/\S+?):(?P<line>\d+):(?P<col>\d+): (?:warning|error): .*\[(?P<check>[\w.,-]+)\]$")


def core_path(path: str) -> str:
    """The path from the source root (core/..., ui/..., app/...), staged headers included."""
    i = max(path.rfind(f"/{top}/") for top in ("core", "ui", "app"))
    return path[i + 1:] if i >= 0 else path


def findings(lines):
    seen = set()
    for line in lines:
        m = FINDING.match(line.rstrip("\n"))
        if not m:
            continue
        key = (core_path(m["path"]), m["line"], m["col"], m["check"])
        seen.add(key)
    counts = collections.Counter((f, c) for f, _, _, c in seen)
    return counts, sorted(seen)


def read_baseline():
    base = collections.Counter()
    if BASELINE.exists():
        for line in BASELINE.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                n, f, c = line.split()
                base[(f, c)] = int(n)
    return base


def main() -> int:
    counts, seen = findings(sys.stdin)
    if "--update" in sys.argv:
        body = "".join(f"{n} {f} {c}\n" for (f, c), n in sorted(counts.items()))
        BASELINE.write_text("# clang-tidy findings on core/, ui/ and app/ still to fix: count file check "
                            "(tests/style/tidy_ratchet.py --update rewrites it)\n" + body)
        print(f"tidy: baseline written: {sum(counts.values())} findings")
        return 0
    base = read_baseline()
    worse = [(k, n, base.get(k, 0)) for k, n in sorted(counts.items()) if n > base.get(k, 0)]
    better = [(k, counts.get(k, 0), base[k]) for k in sorted(base) if counts.get(k, 0) < base[k]]
    for (f, c), n, b in worse:
        print(f"tidy: NEW {f} [{c}]: {n} findings, the baseline allows {b}")
        for sf, line, col, sc in seen:
            if sf == f and sc == c:
                print(f"  {sf}:{line}:{col}")
    if better:
        print(f"tidy: {len(better)} file/check pairs improved; lower the baseline with "
              "tests/style/tidy_ratchet.py --update")
    print(f"tidy: {sum(counts.values())} findings, baseline {sum(base.values())}")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
