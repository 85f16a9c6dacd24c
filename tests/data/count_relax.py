#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""Counts op calls, functions and the partitioned function's inputs and outputs of printed Relax
modules (TVMScript).

This is the independent reference for the Relax importer tests: it shares no code with the C++
importer. TVMScript is Python syntax, so the text is read with Python's own parser (`ast`) and the
facts are read off the syntax tree, following the definitions of issue 16:

ops            every binding (`x = value` / `x: T = value`) whose value is a call, in every
               `@R.function` of the module, nested closures included: operator calls
               `R.nn.conv2d(...)` under their TVM op name `relax.nn.conv2d`; `R.call_tir`,
               `R.call_tir_inplace`, `R.call_dps_packed`, `R.call_packed`, `R.call_pure_packed`
               under the callee's name (`cls.f` -> `f`, a string symbol as written); calls of
               module functions `cls.f(...)` under `f`; `R.match_cast(value, T)` is TVM's
               MatchCast binding, not an op: it counts the call it casts, if `value` is one.
               Not counted: calls of local closures,
               the value constructors `R.shape`, `R.const`, `R.prim_value`, `R.str`, `R.dtype`,
               `R.tuple`, projections, tuples, aliases; statements (`R.func_attr`, `R.output`).
op_calls       sum of ops.
functions      members of the module class (`@R.function` and `@T.prim_func`).
prim_funcs     `@T.prim_func` members.
closures       `@R.function` definitions nested in other functions.
function       the function partitioning works on: `main`, else the first `@R.function`.
main_inputs    its parameters.
main_outputs   fields of the tuple it returns (following aliases to the tuple binding), else 1.

Usage:
    python3 tests/data/count_relax.py              # rewrite tests/data/relax_expected.json
    python3 tests/data/count_relax.py --check      # compare with the stored file
    python3 tests/data/count_relax.py FILE...      # print the counts of some files
The corpus is taken from $CLEAVE_CORPUS_DIR/relax or ../shared/corpus/relax beside the repository.
"""

import ast
import glob
import json
import os
import sys
from collections import Counter

KERNEL_CALLS = {"call_tir", "call_tir_inplace", "call_tir_with_grad", "call_dps_packed",
                "call_packed", "call_pure_packed"}
CONSTRUCTORS = {"shape", "const", "prim_value", "str", "dtype", "tuple"}


def dotted(node):
    """`R.nn.conv2d` for an Attribute chain over a Name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def decorator_name(d):
    return dotted(d.func if isinstance(d, ast.Call) else d)


def op_name(call, class_name):
    """The op a binding's call counts under, or None."""
    callee = dotted(call.func)
    if callee is None:
        return None
    if callee.startswith("R."):
        op = callee[2:]
        if op in KERNEL_CALLS:
            target = call.args[0]
            if isinstance(target, ast.Constant):
                return target.value
            return dotted(target).split(".", 1)[1]
        if op in CONSTRUCTORS:
            return None
        return "relax." + op
    head, _, rest = callee.partition(".")
    if rest and head in ("cls", class_name):
        return rest
    return None  # a local closure


def statements(body):
    """Statements of a function body, descending into with / if blocks, not into defs."""
    for stmt in body:
        if isinstance(stmt, ast.With):
            yield from statements(stmt.body)
        elif isinstance(stmt, ast.If):
            yield from statements(stmt.body)
            yield from statements(stmt.orelse)
        else:
            yield stmt


def relax_functions(body, nested):
    """(FunctionDef, is_nested) for every @R.function in a body, closures included."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            if any(decorator_name(d) == "R.function" for d in stmt.decorator_list):
                yield stmt, nested
                yield from relax_functions(stmt.body, True)
        elif isinstance(stmt, (ast.With, ast.If)):
            yield from relax_functions(stmt.body, nested)
            yield from relax_functions(getattr(stmt, "orelse", []), nested)


def output_count(fn):
    bindings = {}
    for stmt in statements(fn.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            bindings[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            bindings[stmt.target.id] = stmt.value
    ret = [s for s in statements(fn.body) if isinstance(s, ast.Return)][-1].value
    for _ in range(100):
        if isinstance(ret, ast.Name) and ret.id in bindings:
            ret = bindings[ret.id]
        else:
            break
    if isinstance(ret, ast.Tuple):
        return len(ret.elts)
    return 1


def count(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    cls = [n for n in tree.body if isinstance(n, ast.ClassDef)][0]
    members = [n for n in cls.body if isinstance(n, ast.FunctionDef)]
    prim_funcs = [m for m in members if any(decorator_name(d) == "T.prim_func" for d in m.decorator_list)]
    ops = Counter()
    closures = 0
    relax = []
    for fn, nested in relax_functions(cls.body, False):
        closures += 1 if nested else 0
        if not nested:
            relax.append(fn)
        for stmt in statements(fn.body):
            value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Call) and dotted(value.func) == "R.match_cast":
                value = value.args[0] if value.args else None
            if isinstance(value, ast.Call):
                op = op_name(value, cls.name)
                if op is not None:
                    ops[op] += 1
    main = next((f for f in relax if f.name == "main"), relax[0])
    return {
        "ops": dict(sorted(ops.items())),
        "op_calls": sum(ops.values()),
        "functions": len(members),
        "prim_funcs": len(prim_funcs),
        "closures": closures,
        "function": main.name,
        "main_inputs": len(main.args.args),
        "main_outputs": output_count(main),
    }


def corpus_dir():
    env = os.environ.get("CLEAVE_CORPUS_DIR")
    if env:
        return os.path.join(env, "relax")
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "corpus", "relax"))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "relax_expected.json")
    files = [a for a in argv if not a.startswith("--")]
    if files:
        for f in files:
            print(f, json.dumps(count(f), indent=1))
        return 0
    result = {}
    for path in sorted(glob.glob(os.path.join(corpus_dir(), "*.relax.py"))):
        result[os.path.basename(path)] = count(path)
    if "--check" in argv:
        with open(out, encoding="utf-8") as f:
            stored = json.load(f)
        if stored != result:
            print("relax_expected.json is out of date")
            return 1
        return 0
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", out, "for", len(result), "files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
