#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Part of Cleave, the partition editor for deep-learning graphs.
"""TVM as the oracle for Cleave's Relax importer (issue 29): for every TVM-converted fixture and
every corpus module TVM 0.27 parses, what `cleave-cli inspect --json` reports must equal what a
walk over TVM's own IR (tvm.script.from_source, relax.analysis.post_order_visit) counts. The files
TVM rejects are listed with TVM's first message.

What is compared (Cleave's documented conventions: README `inspect`, tests/data/count_relax.py;
every number below is read off TVM's IR, never off Cleave's output):
  ops, op_calls  every call in every Relax function of the module, closures included: an operator
                 (`relax.nn.conv2d`) by its name; `call_tir` / `call_tir_inplace` /
                 `call_tir_with_grad` / `call_dps_packed` / `call_pure_packed` by their callee (a
                 GlobalVar's name or an ExternFunc's symbol); `R.call_packed("f", ...)` (a call
                 of an ExternFunc) by "f"; a call of a module function by its name. Calls of
                 local closures are not counted. op_calls is the sum.
  functions      the module's functions: every global (Relax and TIR) by `@name`, every Relax
                 closure by the name it is bound to, with the parameter count of the Relax ones.
  inputs         the parameters of the partitioned function (`main`, else the module's public
                 @R.function with the most calls, the first in the text on a tie: TVM's IRModule
                 keeps no order, so the text says which is first): name and type.
  outputs        the fields of the tuple that function returns (through aliases), else its one
                 value: the type of each.
  types          compared as a structure: a tensor's dtype and dims (ints; a symbolic dim by its
                 TVM expression, `H * 16`; -1 for an unknown dim; rank unknown), tuples field by
                 field, and the kind of other values (object, shape, prim, callable).
  constants      tensor constants (rank >= 1; TVM prints them as metadata references), each
                 distinct one once: their number and their bytes (shape x dtype). Rank-0
                 constants are the inline `R.const` scalars, not counted here.

Usage: relax_import_oracle.py CLEAVE_CLI [--fixtures DIR] [--data DIR] [--corpus DIR]
  --fixtures  the folder gen_relax_fixtures.py writes (fixtures.json and import_fixtures.json)
  --data      hand-written modules (tests/data/relax_run)
  --corpus    the Relax corpus (../shared/corpus/relax)
Every directory is optional; a missing one, and a missing file in it, is reported as SKIP.

Also (issue 34): metadata headers with a tensor payload TVM's loader refuses (not base64, no
magic number, a data size its shape and dtype contradict, a GPU device) are refused by TVM and by
Cleave alike (`relax.metadata`); a payload shorter than its declared size, which TVM 0.27 loads
with whatever memory follows as data, Cleave refuses as well; the intact header both accept.
Exit 0 when every parsed file matches, 1 with the differences, 77 (SKIP) when none was compared.
"""

import ast
import base64
import glob
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from collections import Counter

import tvm
from tvm import relax

from tvm_support import arg, type_of, var_name

CLI = sys.argv[1]
PACKED_CALLS = ("relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad",
                "relax.call_dps_packed", "relax.call_pure_packed")


# --- counting on TVM's IR ---------------------------------------------------------------------

def callee_name(e):
    if isinstance(e, tvm.ir.GlobalVar):
        return e.name_hint
    if isinstance(e, relax.ExternFunc):
        return str(e.global_symbol)
    return None


def relax_functions(mod):
    return [(gv.name_hint, mod[gv]) for gv in mod.get_global_vars()
            if isinstance(mod[gv], relax.Function)]


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

    for _, fn in relax_functions(mod):
        relax.analysis.post_order_visit(fn, visit)
    return counts


def count_functions(mod):
    """Counter of (name, params): `@g` for globals, the bound name for Relax closures; params
    is None for TIR functions (their buffers are not compared)."""
    found = Counter()
    for gv in mod.get_global_vars():
        fn = mod[gv]
        found[("@" + gv.name_hint,
               len(fn.params) if isinstance(fn, relax.Function) else None)] += 1
    for _, fn in relax_functions(mod):
        for b in bindings(fn):
            if isinstance(b, relax.VarBinding) and isinstance(b.value, relax.Function):
                found[(var_name(b.var), len(b.value.params))] += 1
    return found


def bindings(fn):
    """Every binding of a Relax function, nested closures and if branches included."""
    out = []

    def walk(e):
        if isinstance(e, relax.Function):
            walk(e.body)
        elif isinstance(e, relax.SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    out.append(b)
                    walk(b.value)
            walk(e.body)
        elif isinstance(e, relax.If):
            walk(e.true_branch)
            walk(e.false_branch)

    walk(fn)
    return out


def count_constants(mod):
    """(number, bytes) of the distinct tensor constants of rank >= 1."""
    seen = {}

    def visit(e):
        if type(e).__name__ in ("GenericConst", "Constant") and e.ty.ndim != 0:
            seen[e.__hash__()] = e

    for _, fn in relax_functions(mod):
        relax.analysis.post_order_visit(fn, visit)
    # TVM 0.27's GenericConst holds its tensor in `value`, older Constants in `data`.
    data = [c.value if hasattr(c, "value") else c.data for c in seen.values()]
    return len(seen), sum(int(d.numpy().nbytes) for d in data)


def dim_text(d):
    if type(d).__name__ == "IntImm":
        return int(d.value)
    # TVM writes a constant inside a symbolic expression as T.int64(16); the script prints 16.
    return re.sub(r"T\.int64\((\d+)\)", r"\1", str(d))


def canonical(t):
    """A TVM type as a plain structure: ("tensor", dims or None, dtype), ("tuple", [fields]),
    ("object",), ("shape",), ("prim",), ("callable",)."""
    kind = type(t).__name__
    if kind in ("TensorType", "TensorStructInfo"):
        dtype = str(t.dtype).replace("T.", "")
        if t.shape is not None and hasattr(t.shape, "values"):
            return ("tensor", [dim_text(d) for d in t.shape.values], dtype)
        if t.ndim >= 0:
            return ("tensor", [-1] * t.ndim, dtype)
        return ("tensor", None, dtype)
    if kind in ("TupleType", "TupleStructInfo"):
        return ("tuple", [canonical(f) for f in t.fields])
    if kind in ("AnyType", "ObjectType", "ObjectStructInfo"):
        return ("object",)
    if kind in ("ShapeType", "ShapeStructInfo"):
        return ("shape",)
    if kind in ("PrimType", "PrimStructInfo"):
        return ("prim",)
    if kind in ("FuncType", "FuncStructInfo", "PackedFuncType"):
        return ("callable",)
    return ("other", kind)


def op_count(fn):
    """Calls bound directly in a function's body (if branches included, closures not)."""
    count = 0

    def walk(e):
        nonlocal count
        if isinstance(e, relax.SeqExpr):
            for block in e.blocks:
                for b in block.bindings:
                    if isinstance(b.value, (relax.Call, relax.If)):
                        count += 1
                    if isinstance(b.value, relax.If):
                        walk(b.value.true_branch)
                        walk(b.value.false_branch)

    walk(fn.body)
    return count


def entry_function(path, mod):
    """`main`, else the public @R.function (one with a global_symbol, not named `_...`) with the
    most calls, the first in the text on a tie."""
    functions = dict(relax_functions(mod))
    if "main" in functions:
        return "main"
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    best, best_ops = None, -1
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for stmt in cls.body:
            if not isinstance(stmt, ast.FunctionDef) or stmt.name not in functions:
                continue
            fn = functions[stmt.name]
            public = fn.attrs is not None and "global_symbol" in fn.attrs
            if not public or stmt.name.startswith("_"):
                continue
            ops = op_count(fn)
            if ops > best_ops:
                best, best_ops = stmt.name, ops
    return best


def tvm_io(mod, function):
    fn = mod[function]
    inputs = [(var_name(p), canonical(type_of(p))) for p in fn.params]
    var2val = {b.var.__hash__(): b.value for b in bindings(fn) if isinstance(b, relax.VarBinding)}
    result = fn.body.body if isinstance(fn.body, relax.SeqExpr) else fn.body
    while isinstance(result, relax.Var) and result.__hash__() in var2val:
        value = var2val[result.__hash__()]
        if not isinstance(value, (relax.Var, relax.Tuple)):
            break
        result = value
    if isinstance(result, relax.Tuple):
        outputs = [canonical(type_of(f)) for f in result.fields]
    else:
        outputs = [canonical(type_of(result))]
    return inputs, outputs


# --- Cleave's report as the same structure ----------------------------------------------------

def cleave_type(entry):
    """The structure of one `inputs` / `outputs` entry of inspect --json."""
    if entry.get("shape") is not None:
        return ("tensor", list(entry["shape"]), entry.get("dtype"))
    return parse_type(entry.get("type", "_"))


def parse_type(text):
    """Cleave's type text (Type::toRelay): `Tensor[(1, n), float32]`, `float32`, `(A, B)`,
    `R.Object`, `R.Shape`, `R.Tensor(dtype="float32")` (rank unknown), ..."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        inner = text[1:-1]
        fields, depth, start = [], 0, 0
        for i, c in enumerate(inner):
            depth += c in "([" and 1 or (c in ")]" and -1 or 0)
            if c == "," and depth == 0:
                fields.append(inner[start:i])
                start = i + 1
        if inner[start:].strip():
            fields.append(inner[start:])
        return ("tuple", [parse_type(f) for f in fields])
    if text.startswith("Tensor["):
        dims, dtype = text[len("Tensor[("):-1].rsplit("), ", 1)
        return ("tensor", [int(d) if re.fullmatch(r"-?\d+", d) else (-1 if d == "?" else d)
                           for d in dims.split(", ")], dtype)
    if re.fullmatch(r"[a-z]+[0-9]+(x[0-9]+)?|bool", text):
        return ("tensor", [], text)
    if text.startswith("R.Tensor"):
        m = re.search(r'dtype="([^"]*)"', text)
        return ("tensor", None, m.group(1) if m else "")
    for prefix, kind in (("R.Object", "object"), ("R.Any", "object"), ("R.Shape", "shape"),
                         ("R.Prim", "prim"), ("R.Callable", "callable"), ("fn ", "callable")):
        if text.startswith(prefix):
            return (kind,)
    return ("other", text)


# --- the comparison ---------------------------------------------------------------------------

def compare(path, mod, summary):
    """(problems, what was compared)."""
    problems = []
    want = count_ops(mod)
    got = Counter(summary["ops"])
    if got != want:
        problems.append("ops differ: only Cleave %s, only TVM %s"
                        % (dict(got - want), dict(want - got)))
    if summary["op_calls"] != sum(want.values()):
        problems.append("op_calls %d, TVM counts %d" % (summary["op_calls"], sum(want.values())))

    want_fns = count_functions(mod)
    tir = {name for name, params in want_fns if params is None}
    got_fns = Counter((f["name"], None if f["name"] in tir else f["params"])
                      for f in summary["functions"])
    if got_fns != want_fns:
        problems.append("functions differ: only Cleave %s, only TVM %s"
                        % (sorted(got_fns - want_fns), sorted(want_fns - got_fns)))

    count, size = count_constants(mod)
    c = summary["constants"]
    if (c["count"], c["bytes"], c["bytes_known"]) != (count, size, True):
        problems.append("constants: %d of %d bytes (bytes known: %s), TVM %d of %d bytes"
                        % (c["count"], c["bytes"], c["bytes_known"], count, size))

    function = entry_function(path, mod)
    inputs, outputs = tvm_io(mod, function)
    names = [i["name"] for i in summary["inputs"]]
    if names != [n for n, _ in inputs]:
        problems.append("inputs of %s: %s, TVM %s" % (function, names, [n for n, _ in inputs]))
    else:
        for entry, (n, t) in zip(summary["inputs"], inputs):
            if cleave_type(entry) != t:
                problems.append("input %s: %s, TVM %s" % (n, cleave_type(entry), t))
    if len(summary["outputs"]) != len(outputs):
        problems.append("%d outputs of %s, TVM %d: %s"
                        % (len(summary["outputs"]), function, len(outputs), outputs))
    else:
        for i, (entry, t) in enumerate(zip(summary["outputs"], outputs)):
            if cleave_type(entry) != t:
                problems.append("output %d: %s, TVM %s" % (i, cleave_type(entry), t))
    compared = ("%d op calls in %d kinds, %d functions, %d constants (%d bytes); @%s: %d inputs, "
                "%d outputs" % (sum(want.values()), len(want), sum(want_fns.values()), count,
                                size, function, len(inputs), len(outputs)))
    return problems, compared


def listed_files():
    """(kind, path) of every module to compare; prints a SKIP line for what is missing."""
    files = []
    fixtures = arg("--fixtures")
    for index in ("fixtures.json", "import_fixtures.json") if fixtures else ():
        path = os.path.join(fixtures, index)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                files += [("fixture", os.path.join(fixtures, fx["relax"])) for fx in json.load(f)]
        else:
            print("SKIP-PART: no %s in %s" % (index, fixtures))
    for option in ("--data", "--corpus"):
        folder = arg(option)
        if folder is None:
            continue
        found = sorted(glob.glob(os.path.join(folder, "*.relax.py")))
        if not found:
            print("SKIP-PART: no *.relax.py in %s" % folder)
        files += [("corpus", p) for p in found]
    return files


# A TVM 0.27 metadata header (tvm-ffi graph) with one GenericConst, a float32 (2, 3) tensor
# [0 .. 5] printed by TVM itself, and a module adding it to x.
FFI_PAYLOAD = ("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAAAAAACAPwAA"
               "AEAAAEBAAACAQAAAoEA=")
FFI_MODULE = (
    '# from tvm.script import relax as R\n'
    'metadata = tvm.ir.load_json("""{"root_index": 15, "nodes": ['
    '{"type": "ffi.String", "data": "ir.GenericConst"}, {"type": "None"}, '
    '{"type": "ir.PrimType", "data": {"span": 1, "dtype": "int64"}}, {"type": "int", "data": 2}, '
    '{"type": "ir.IntImm", "data": {"span": 1, "ty": 2, "value": 3}}, {"type": "int", "data": 3}, '
    '{"type": "ir.IntImm", "data": {"span": 1, "ty": 2, "value": 5}}, '
    '{"type": "ffi.Array", "data": [4, 6]}, '
    '{"type": "relax.ShapeType", "data": {"span": 1, "values": 7, "ndim": 2}}, '
    '{"type": "relax.expr.ShapeExpr", "data": {"span": 1, "ty": 8, "values": 7}}, '
    '{"type": "ir.PrimType", "data": {"span": 1, "dtype": "float32"}}, '
    '{"type": "relax.TensorType", "data": {"span": 1, "shape": 9, "dtype": 10, "vdevice": 1, '
    '"ndim": 2}}, {"type": "ffi.Tensor", "data": "PAYLOAD"}, '
    '{"type": "ir.GenericConst", "data": {"span": 1, "ty": 11, "value": 12}}, '
    '{"type": "ffi.Array", "data": [13]}, {"type": "ffi.Map", "data": [0, 14]}], '
    '"metadata": {"tvm_version": "0.27.0.post1"}}""")\n'
    '@I.ir_module\n'
    'class Module:\n'
    '    @R.function\n'
    '    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):\n'
    '        gv: R.Tensor((2, 3), dtype="float32") = R.add(x, metadata["ir.GenericConst"][0])\n'
    '        return gv\n')


def metadata_payloads(work):
    """Bad tensor payloads: TVM's verdict and Cleave's. Returns the failures."""
    raw = base64.b64decode(FFI_PAYLOAD)
    b64 = lambda b: base64.b64encode(b).decode()
    # name: (payload, TVM refuses it)
    cases = {
        "intact": (FFI_PAYLOAD, False),
        "not base64": ("@@@@", True),
        "no magic": (b64(struct.pack("<Q", 42) + raw[8:]), True),
        "size against shape": (b64(raw[:40] + struct.pack("<q", 20) + raw[48:]), True),
        "GPU device": (b64(raw[:16] + struct.pack("<i", 2) + raw[20:]), True),
        "short data": (b64(raw[:-8]), False),  # TVM reads past the payload
    }
    failures = []
    for name, (payload, tvm_refuses) in cases.items():
        source = FFI_MODULE.replace("PAYLOAD", payload)
        path = os.path.join(work, name.replace(" ", "_") + ".relax.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        try:
            tvm.script.from_source(source)
            refused = False
        except Exception:  # pylint: disable=broad-except
            refused = True
        r = subprocess.run([CLI, "inspect", path], capture_output=True, text=True)
        before = len(failures)
        cleave_refuses = r.returncode == 2 and "[relax.metadata]" in r.stderr
        if refused != tvm_refuses:
            failures.append("metadata %s: TVM %s it" % (name, "refuses" if refused else "loads"))
        if cleave_refuses != (name != "intact"):
            failures.append("metadata %s: cleave-cli inspect exits %d: %s"
                            % (name, r.returncode, r.stderr.strip()[:200]))
        print("%s metadata %s: TVM %s, Cleave %s" % (
            "FAIL" if len(failures) > before else "ok  ", name, "refuses" if refused else "loads",
            "refuses (relax.metadata)" if cleave_refuses else "loads"))
    return failures


def main():
    files = listed_files()
    failures, parsed, rejected = [], 0, []
    with tempfile.TemporaryDirectory(prefix="cleave-meta-") as work:
        failures += metadata_payloads(work)
    for kind, path in files:
        name = os.path.basename(path)
        if not os.path.isfile(path):
            print("SKIP %s: the file is missing" % path)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                mod = tvm.script.from_source(f.read())
        except Exception as error:  # TVM rejects it: listed
            message = str(error).strip().splitlines()[0]
            rejected.append((name, message))
            if kind == "fixture":
                failures.append("%s: TVM does not parse its own print: %s" % (name, message))
            continue
        parsed += 1
        r = subprocess.run([CLI, "inspect", path, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%s: cleave-cli inspect exits %d: %s"
                            % (name, r.returncode, r.stderr.strip()[:300]))
            print("FAIL %s" % failures[-1])
            continue
        problems, compared = compare(path, mod, json.loads(r.stdout))
        if problems:
            failures.append("%s:\n       %s" % (name, "\n       ".join(problems)))
            print("FAIL %s" % failures[-1][:4000])
        else:
            print("ok   %s: %s, as TVM counts them" % (name, compared))
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
