#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""kill -9 at every file-system system call of a real export (issue 34, item 4).

`cleave-cli partition MODEL --cut-after add:1 --out out` replaces an earlier export (cut after
add:0) that holds a file of the user's. The export is first traced once with strace to list its
system calls, from taking the folder lock to releasing it. It is then run once per call, with
strace injecting SIGKILL when that call is entered (`-e inject=NAME:signal=KILL:when=N`, N being
the call's occurrence among calls of that name: the export is single-threaded and
deterministic, which the test checks by the process dying at every point). After each kill:

  - before the swap, the folder holds the old export, complete; after it, the new one;
  - the user's file is in it either way;
  - the next export (no strace) leaves the new export and no leftover beside the folder.

Both swaps are tried: renameat2(RENAME_EXCHANGE), and the two-rename fallback, forced by
injecting EINVAL into renameat2 as a file system without the exchange (NFS, CIFS, some FUSE)
answers. In the fallback, a kill between the two renames leaves no folder; the previous export
must then be complete in the one `.out.old-N` sibling, `cleave-cli verify out` must name that
sibling, and the next export must put it back.

Usage: export_kills.py CLEAVE_CLI MODEL WORK_DIR
Exit 77 (SKIP) when strace is missing or cannot trace here (no ptrace in a container).
"""
import os
import re
import shutil
import subprocess
import sys

USER_FILE = ("notes.txt", b"the user's own notes\n")
LOCK = ".out.lock"
# System calls a kill is injected at: every call of the export between taking the lock and
# releasing it that strace's %file and %desc classes trace, and the syncs and renames.
TRACED = "%file,%desc,fsync,fdatasync,flock,rename,renameat,renameat2"
CALL = re.compile(r"^(\w+)\((.*)")


def snapshot(folder):
    """{relative path: bytes} of every file under `folder`, or None when it does not exist."""
    if not os.path.isdir(folder):
        return None
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, folder)] = f.read()
    return files


def siblings(work):
    """Names beside the export folder but for the folder itself and its lock file."""
    return sorted(n for n in os.listdir(work) if n not in ("out", LOCK))


def export(cli, model, work, cut, strace=None):
    """Runs the export into work/out; with `strace`, under strace with those arguments."""
    command = [cli, "partition", model, "--cut-after", f"add:{cut}", "--out", "out"]
    if strace is not None:
        command = ["strace", "-qq"] + strace + ["--"] + command
    return subprocess.run(command, cwd=work, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, timeout=120)


def prepare(cli, model, work):
    """work/out holds the old export (cut after add:0) and the user's file, nothing else."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    r = export(cli, model, work, 0)
    if r.returncode != 0:
        sys.exit(f"FAIL: the old export failed: {r.stderr.decode()}")
    with open(os.path.join(work, "out", USER_FILE[0]), "wb") as f:
        f.write(USER_FILE[1])


def calls_of_export(cli, model, work, fallback):
    """The export's system calls while it holds the lock: [(name, occurrence, text)]."""
    prepare(cli, model, work)
    trace = os.path.join(os.path.dirname(work), "trace.txt")
    options = ["-o", trace, "-e", f"trace={TRACED}"]
    if fallback:
        options += ["-e", "inject=renameat2:error=EINVAL"]
    r = export(cli, model, work, 1, options)
    if r.returncode != 0:
        sys.exit(f"FAIL: the traced export failed: {r.stderr.decode()}")
    seen = {}
    calls = []
    locked = False
    with open(trace) as f:
        for line in f:
            m = CALL.match(line)
            if not m:
                continue
            name = m.group(1)
            seen[name] = seen.get(name, 0) + 1
            if name == "openat" and LOCK in m.group(2):
                locked = True
            if locked:
                calls.append((name, seen[name], line.strip()))
                if name == "close" and calls[0][0] == "openat" and \
                        line.startswith("close(" + lock_fd(calls[0][2]) + ")"):
                    break
    if not calls:
        sys.exit("FAIL: the trace shows no export (the lock file was never opened)")
    return calls


def lock_fd(open_line):
    """The descriptor an `openat(...) = FD` line returned."""
    return open_line.rsplit("=", 1)[1].strip().split()[0]


def check_point(cli, model, work, old, new, calls, index, fallback, swap, moved):
    """Kills the export at calls[index] and checks the folder; returns an error or None."""
    name, occurrence, text = calls[index]
    prepare(cli, model, work)
    options = ["-o", "/dev/null", "-e", f"trace={TRACED}",
               "-e", f"inject={name}:signal=KILL:when={occurrence}"]
    if fallback:
        options += ["-e", "inject=renameat2:error=EINVAL"]
    r = export(cli, model, work, 1, options)
    where = f"killed at call {index} ({text[:90]})"
    if r.returncode not in (-9, 137):
        return f"{where}: the export was not killed (exit {r.returncode})"
    now = snapshot(os.path.join(work, "out"))
    if moved is not None and moved < index <= swap:
        # Between the two renames of the fallback: the old export waits beside the folder.
        left = [n for n in siblings(work) if n.startswith(".out.old-")]
        if now is not None or len(left) != 1:
            return f"{where}: expected no folder and one .out.old-N, found {siblings(work)}"
        if snapshot(os.path.join(work, left[0])) != old:
            return f"{where}: {left[0]} is not the old export, complete"
        v = subprocess.run([cli, "verify", "out"], cwd=work, capture_output=True, text=True)
        if v.returncode == 0 or left[0] not in v.stdout + v.stderr:
            return f"{where}: verify does not name {left[0]}: {v.stdout}{v.stderr}"
    else:
        expected = new if index > swap else old
        if now != expected:
            state = "missing" if now is None else \
                "the old export" if now == old else "the new export" if now == new else \
                f"neither export: {sorted(now)}"
            return f"{where}: expected the {'new' if index > swap else 'old'} export, " \
                   f"found {state}"
    r = export(cli, model, work, 1)
    if r.returncode != 0:
        return f"{where}: the next export failed: {r.stderr.decode()}"
    if snapshot(os.path.join(work, "out")) != new or siblings(work):
        return f"{where}: the next export left {siblings(work)} or not the new export"
    return None


def run_mode(cli, model, base, fallback):
    label = "two-rename fallback" if fallback else "renameat2 exchange"
    work = os.path.join(base, "fallback" if fallback else "exchange", "work")
    os.makedirs(os.path.dirname(work), exist_ok=True)
    # References: the old and the new export, each with the user's file.
    prepare(cli, model, work)
    old = snapshot(os.path.join(work, "out"))
    if export(cli, model, work, 1).returncode != 0:
        sys.exit("FAIL: the new export failed")
    new = snapshot(os.path.join(work, "out"))
    if old == new or old.get(USER_FILE[0]) != USER_FILE[1] or new.get(USER_FILE[0]) != USER_FILE[1]:
        sys.exit("FAIL: the reference exports do not differ or lost the user's file")

    calls = calls_of_export(cli, model, work, fallback)
    # The call that publishes the new export, and (fallback) the one that moves the old away.
    moved = None
    if fallback:
        renames = [i for i, c in enumerate(calls) if c[0] == "rename" and '"./out"' in c[2]]
        if len(renames) != 2 or '"./out", "./.out.old-' not in calls[renames[0]][2]:
            sys.exit(f"FAIL: the fallback trace has not its two renames: {renames}")
        moved, swap = renames
    else:
        swaps = [i for i, c in enumerate(calls) if c[0] == "renameat2"
                 and "RENAME_EXCHANGE" in c[2] and c[2].endswith("= 0")]
        if len(swaps) != 1:
            sys.exit(f"FAIL: the exchange trace has {len(swaps)} successful exchanges")
        swap = swaps[0]
    failures = []
    points = 0
    for index in range(len(calls)):
        if fallback and calls[index][0] == "renameat2":
            continue  # already made to fail with EINVAL
        points += 1
        error = check_point(cli, model, work, old, new, calls, index, fallback, swap, moved)
        if error:
            failures.append(error)
    print(f"{label}: {points} kill points over {len(calls)} system calls, the swap at call "
          f"{swap}: {points - len(failures)} left the old or the new export complete, "
          f"with the user's file")
    for f in failures:
        print(f"FAIL {label}: {f}")
    return points, failures


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cli, model, base = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    if shutil.which("strace") is None:
        print("SKIP: strace is not installed (packaging/deps.sh installs it)")
        return 77
    probe = subprocess.run(["strace", "-qq", "-o", "/dev/null", "true"], capture_output=True)
    if probe.returncode != 0:
        print(f"SKIP: strace cannot trace here: {probe.stderr.decode().strip()}")
        return 77
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    total = 0
    failures = []
    for fallback in (False, True):
        points, failed = run_mode(cli, model, base, fallback)
        total += points
        failures += failed
    print(f"{total} kills, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
