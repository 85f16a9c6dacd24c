#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Mutation campaign against cleave-cli (issue 14).

Makes N mutants of every seed file (byte flips, deletions, duplications, insertions of
interesting tokens, truncation, splices of two seeds) and runs each through
`cleave-cli inspect --json` and `cleave-cli partition --dry-run --json --cut-after OP:0`
under a timeout. Counts exit statuses, crashes (killed by a signal), hangs (over the timeout)
and statuses other than 0 / 1 / 2, and keeps every bad mutant in OUT_DIR/bad/. A run that
reports an error or warning without a position (FILE:LINE:COLUMN: ...) or without a code
([code] at the end) is counted as unlocated, and its mutant kept in OUT_DIR/unlocated/ with
the message beside it (issue 34: every reject is located and coded).

Usage: mutation_campaign.py CLEAVE_CLI OUT_DIR SEED... [--per-seed N] [--timeout S] [--seed R]
                             [--run "VERB ARG... {}"]...
  --run  the commands each mutant is given to instead of inspect and partition, `{}` standing
         for the mutant: a side file such as a device, latency, op-support or op-pattern file,
         e.g. --run "auto samples/resnet18.relay --devices {}"
"""
import argparse
import collections
import os
import random
import re
import shutil
import subprocess
import sys

TOKENS = [b"1e999", b"-1", b"99999999999999999999", b"\xff", b"\xc3", b"\x00", b"(" * 64,
          b"[" * 64, b"{", b"}", b"fn (", b"%0", b"meta[relay.Constant][0]", b'"', b"\\",
          b"Tensor[(", b"0", b"null", b"#[metadata]", b"/*", b"*/", b"99999999999",
          # Relax TVMScript
          b"R.call_tir(cls.", b"R.Tensor((", b'metadata["relax.expr.Constant"][7]', b"    ",
          b"\n", b"with R.dataflow():", b"R.output(", b'"""', b"@R.function\n", b"lambda"]


def mutate(data: bytes, other: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        pos = rng.randrange(len(out) + 1) if out else 0
        if kind == 0 and out:  # flip a byte
            out[min(pos, len(out) - 1)] = rng.randrange(256)
        elif kind == 1 and out:  # delete a run
            del out[pos:pos + rng.randint(1, 64)]
        elif kind == 2 and out:  # duplicate a run
            run = out[pos:pos + rng.randint(1, 256)]
            out[pos:pos] = run
        elif kind == 3:  # insert a token
            out[pos:pos] = rng.choice(TOKENS)
        elif kind == 4 and out:  # truncate
            del out[pos:]
        elif kind == 5 and other:  # splice another seed
            cut = rng.randrange(len(other) + 1)
            out[pos:] = other[cut:]
        elif kind == 6 and out:  # replace a digit run by a huge number
            digits = b"0123456789"
            i = pos
            while i < len(out) and out[i] not in digits:
                i += 1
            j = i
            while j < len(out) and out[j] in digits:
                j += 1
            out[i:j] = rng.choice([b"0", b"99999999999", b"-5", b"1e999"])
    return bytes(out)


# One finding as cleave-cli prints it: "FILE:LINE:COLUMN: error: MESSAGE [code]" (a finding's
# message may continue on indented lines, and ends with its code on its first line).
LOCATED = re.compile(r"^.+:\d+:\d+: (error|warning): .*\[[a-z0-9_.]+\]$")
FINDING = re.compile(r"(^|: )(error|warning): ")


# Findings about the command line, not the file: `--cut-after add:0` on a mutant with no add.
COMMAND_LINE = re.compile(r"^(.+: )?error: .*\[cut\.split_point_not_found\]$")


def unlocated_findings(stderr: str) -> list:
    """The finding lines of `stderr` that lack a position or a code."""
    return [line for line in stderr.splitlines()
            if FINDING.search(line) and not LOCATED.match(line)
            and not COMMAND_LINE.match(line)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("out")
    ap.add_argument("seeds", nargs="+")
    ap.add_argument("--per-seed", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--run", action="append", default=[])
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(os.path.join(args.out, "bad"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "unlocated"), exist_ok=True)
    unlocated = collections.Counter()
    seeds = [(p, open(p, "rb").read()) for p in args.seeds]
    statuses = collections.Counter()
    bad = collections.Counter()
    runs = 0
    for index, (path, data) in enumerate(seeds):
        name = os.path.basename(path)
        for k in range(args.per_seed):
            other = seeds[rng.randrange(len(seeds))][1]
            mutant = mutate(data, other, rng)
            file = os.path.join(args.out, f"m{index}_{k}_{name}")
            with open(file, "wb") as f:
                f.write(mutant)
            commands = [[file if word == "{}" else word for word in run.split()]
                        for run in args.run] or [
                ["inspect", file, "--json"],
                ["partition", file, "--dry-run", "--json", "--cut-after", "add:0"]]
            for command in commands:
                runs += 1
                try:
                    r = subprocess.run([args.cli] + command, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, timeout=args.timeout)
                    code = r.returncode
                    label = f"signal {-code}" if code < 0 else f"exit {code}"
                    lines = unlocated_findings(r.stderr.decode("utf-8", "replace"))
                    if lines:
                        # Counted by the message with its numbers and names blanked.
                        key = re.sub(r"'[^']*'|\d+", "_", lines[0].split(": ", 1)[-1])[:120]
                        unlocated[key] += 1
                        kept = os.path.join(args.out, "unlocated",
                                            f"{command[0]}_{os.path.basename(file)}")
                        shutil.copy(file, kept)
                        with open(kept + ".txt", "w") as f:
                            f.write("\n".join(lines) + "\n")
                except subprocess.TimeoutExpired:
                    label = "hang"
                statuses[label] += 1
                if label not in ("exit 0", "exit 1", "exit 2"):
                    bad[label] += 1
                    shutil.copy(file, os.path.join(args.out, "bad", f"{label.replace(' ', '')}_"
                                                                  f"{command[0]}_{os.path.basename(file)}"))
            os.remove(file)
    print(f"{runs} runs of {len(seeds) * args.per_seed} mutants of {len(seeds)} seeds")
    for label, count in sorted(statuses.items()):
        print(f"  {label:10} {count}")
    print(f"bad (crash, hang, other status): {sum(bad.values())}")
    print(f"unlocated or uncoded findings: {sum(unlocated.values())}")
    for key, count in unlocated.most_common():
        print(f"  {count:6}  {key}")
    return 1 if bad or unlocated else 0


if __name__ == "__main__":
    sys.exit(main())
