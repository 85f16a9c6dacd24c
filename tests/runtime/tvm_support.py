# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""What the runtime test scripts of this folder share: arguments, TVM's parse of a module, the
names and types of Relax variables across TVM versions, and ok / FAIL lines."""

import sys

import tvm

failures = []


def arg(name, default=None):
    """The value after option `name` on the command line, or `default`."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def check(ok, what):
    """Prints `ok   what` or `FAIL what` (and remembers the failure); returns ok."""
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
    return ok


def parse(path):
    """TVM's own parse of a TVMScript file."""
    with open(path, encoding="utf-8") as f:
        return tvm.script.from_source(f.read())


def var_name(v):
    """A Relax variable's name: `name` in TVM 0.27, `name_hint` before."""
    return getattr(v, "name_hint", None) or str(getattr(v, "name", v))


def type_of(e):
    """A Relax expression's type: `ty` in TVM 0.27, `struct_info` before."""
    for attr in ("ty", "struct_info"):
        t = getattr(e, attr, None)
        if t is not None:
            return t
    return None
