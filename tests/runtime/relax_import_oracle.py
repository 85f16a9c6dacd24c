#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""TVM as the oracle for Cleave's Relax importer (issue 29): for every TVM-converted fixture and
every corpus module TVM 0.27 parses, the op histogram and the partitioned function's input and
output types that `cleave-cli inspect --json` reports must equal what a walk over TVM's own IR
(tvm.script.from_source) counts. The files TVM rejects are listed with TVM's first message.

What is counted (Cleave's documented convention, tests/data/count_relax.py, read off TVM's IR):
  ops       every call in every Relax function of the module, closures included: an operator
            (`relax.nn.conv2d`) by its name; `call_tir` / `call_tir_inplace` / `call_dps_packed`
            / `call_pure_packed` by their callee (a GlobalVar's name or an ExternFunc's
            symbol); a call of a module function by its name; `R.call_packed("f", ...)` by "f".
            Calls of local closures are not counted.
  inputs    the parameters of `main` (else the module's first Relax function): name, shape
            (a symbolic dimension by its name), dtype.
  outputs   the fields of the tuple `main` returns, else its one value: shape and dtype of the
            tensor ones.

Usage: relax_import_oracle.py CLEAVE_CLI [--fixtures DIR] [--data DIR] [--corpus DIR]
"""

import glob
import json
import os
import subprocess
import sys
from collections import Counter

import tvm
from tvm import relax

CLI = sys.argv[1]
PACKED_CALLS = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad",
                "relax.call_dps_packed", "relax.call_pure_packed")


def arg(name):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def callee_name(e):
    if isinstance(e, tvm.ir.GlobalVar):
        return e.name_hint
    if isinstance(e, relax.ExternFunc):
        return str(e.global_symbol)
    return None


def count_ops(mod):
    """The op histogram of every Relax function of the module, nested closures included."""
    counts = Counter()

    def visit(e):
        if not isinstance(e, relax.Call):
            return
        if isinstance(e.op, tvm.ir.Op):
            if e.op.name in PACKED_CALLS and len(e.args) > 0 and callee_name(e.args[0]):
                counts[callee_name(e.args[0])] += 1
            else:
                counts[e.op.name] += 1
        elif callee_name(e.op):
            counts[callee_name(e.op)] += 1

    for gv in mod.get_global_vars():
        if isinstance(mod[gv], relax.Function):
            relax.analysis.post_order_visit(mod[gv], visit)
    return counts


def type_of(v):
    t = getattr(v, "struct_info", None)
    return t if t is not None else getattr(v, "ty", None)


def tensor_facts(t):
    """(shape, dtype) of a tensor type; None for other types or an unknown shape."""
    if t is None or not type(t).__name__.startswith("Tensor"):
        return None
    shape = getattr(t, "shape", None)
    values = getattr(shape, "values", None)
    if values is None:
        return None
    dims = [int(d.value) if hasattr(d, "value") else str(d) for d in values]
    return dims, str(t.dtype).replace("T.", "")


def entry_function(mod):
    names = [gv.name_hint for gv in mod.get_global_vars() if isinstance(mod[gv], relax.Function)]
    return "main" if "main" in names else None


def tvm_facts(mod, function):
    fn = mod[function]
    inputs = []
    for p in fn.params:
        name = getattr(p, "name_hint", None) or str(getattr(p, "name", p))
        inputs.append((name, tensor_facts(type_of(p))))
    body = fn.body
    result = body.body if isinstance(body, relax.SeqExpr) else body
    rtype = type_of(result) if not isinstance(result, relax.Tuple) else None
    if isinstance(result, relax.Tuple):
        outputs = [tensor_facts(type_of(f)) for f in result.fields]
    elif rtype is not None and type(rtype).__name__.startswith("Tuple"):
        outputs = [tensor_facts(f) for f in rtype.fields]
    else:
        outputs = [tensor_facts(rtype)]
    return inputs, outputs


def cleave_dims(entry):
    if entry.get("shape") is None:
        return None
    return [d for d in entry["shape"]], entry.get("dtype")


def main():
    files = []
    fixtures = arg("--fixtures")
    if fixtures and os.path.isfile(os.path.join(fixtures, "fixtures.json")):
        with open(os.path.join(fixtures, "fixtures.json"), encoding="utf-8") as f:
            files += [("fixture", os.path.join(fixtures, fx["relax"])) for fx in json.load(f)]
    elif fixtures:
        print("SKIP-PART: no fixtures.json in %s" % fixtures)
    for option in ("--data", "--corpus"):
        if arg(option):
            files += [("corpus", p)
                      for p in sorted(glob.glob(os.path.join(arg(option), "*.relax.py")))]
    failures, parsed, rejected = [], 0, []
    for kind, path in files:
        name = os.path.basename(path)
        try:
            with open(path, encoding="utf-8") as f:
                mod = tvm.script.from_source(f.read())
        except Exception as error:
            message = str(error).strip().splitlines()[0]
            rejected.append((name, message))
            if kind == "fixture":
                failures.append("%s: TVM does not parse its own print: %s" % (name, message))
            continue
        parsed += 1
        r = subprocess.run([CLI, "inspect", path, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%s: cleave-cli inspect exits %d: %s" % (name, r.returncode,
                                                                    r.stderr.strip()[:300]))
            continue
        summary = json.loads(r.stdout)
        want = count_ops(mod)
        got = Counter(summary["ops"])
        problems = []
        if got != want:
            problems.append("ops differ: only Cleave %s, only TVM %s"
                            % (dict(got - want), dict(want - got)))
        if summary["op_calls"] != sum(want.values()):
            problems.append("op_calls %d, TVM counts %d" % (summary["op_calls"], sum(want.values())))
        function = entry_function(mod)
        checked_io = ""
        if function:
            inputs, outputs = tvm_facts(mod, function)
            names = [i["name"] for i in summary["inputs"]]
            if names != [n for n, _ in inputs]:
                problems.append("inputs %s, TVM %s" % (names, [n for n, _ in inputs]))
            else:
                for entry, (n, facts) in zip(summary["inputs"], inputs):
                    if facts is not None and cleave_dims(entry) != (facts[0], facts[1]):
                        problems.append("input %s: %s, TVM %s" % (n, cleave_dims(entry), facts))
            if len(summary["outputs"]) != len(outputs):
                problems.append("%d outputs, TVM %d" % (len(summary["outputs"]), len(outputs)))
            else:
                for i, (entry, facts) in enumerate(zip(summary["outputs"], outputs)):
                    if facts is not None and cleave_dims(entry) != (facts[0], facts[1]):
                        problems.append("output %d: %s, TVM %s" % (i, cleave_dims(entry), facts))
            checked_io = ", %d inputs, %d outputs" % (len(inputs), len(outputs))
        if problems:
            failures.append("%s: %s" % (name, "; ".join(problems)))
            print("FAIL %s" % failures[-1][:2000])
        else:
            print("ok   %s: %d op calls in %d kinds%s, as TVM counts them"
                  % (name, sum(want.values()), len(want), checked_io))
    for name, message in rejected:
        print("TVM %s rejects %s: %s" % (tvm.__version__, name, message))
    print("TVM parsed %d of %d files" % (parsed, len(files)))
    if parsed == 0:
        print("SKIP: no module to compare")
        return 77
    print("%d files differ" % len(failures) if failures else "every parsed file matches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
