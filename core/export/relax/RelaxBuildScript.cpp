// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/RelaxArtefacts.h"
#include "core/io/relax/RelaxValues.h"

#include <map>

namespace cleave {

namespace {

const char *const scriptBody = R"PY(

def fail(message, code=2):
    print("build_relax.py: " + message, file=sys.stderr)
    sys.exit(code)


try:
    import numpy as np
    import tvm
    from tvm import relax
except ImportError as error:  # the check needs TVM >= 0.20 and numpy
    fail("cannot import TVM (%s): pip install apache-tvm numpy" % error)


@functools.lru_cache(maxsize=None)
def load(path):
    """Parses one TVMScript module (tvm.script.from_source), once: the inputs are typed from the
    same modules that are then built."""
    with open(path, encoding="utf-8") as f:
        return tvm.script.from_source(f.read())


def device_of(k):
    """The runtime device partition k runs on (its vdevice in placed.relax.py)."""
    kind, index = DEVICES[k]
    if kind in ("llvm", "c") or kind not in DEVICE_KINDS:
        return tvm.cpu(index)
    return tvm.device(kind, index)


def compile_module(mod, target):
    """Legalizes and builds a Relax module (tvm.compile from TVM 0.21, relax.build before)."""
    mod = relax.transform.RealizeVDevice()(mod)
    mod = relax.transform.LegalizeOps()(mod)
    kind = target.split()[0] if target else "llvm"
    if kind in DEVICE_KINDS and kind not in ("llvm", "c"):
        schedules = tvm.s_tir if hasattr(tvm, "s_tir") else tvm.tir  # s_tir from TVM 0.24
        with tvm.target.Target(target):
            mod = schedules.transform.DefaultGPUSchedule()(mod)
    if hasattr(tvm, "compile"):
        return tvm.compile(mod, target=target)
    return relax.build(mod, target=target)


def to_device(value, dev):
    """A numpy array as a runtime tensor (tvm.nd.array before TVM 0.22, tvm.runtime.tensor after);
    other values (None for an object, a shape, an int) as they are."""
    if not isinstance(value, np.ndarray):
        return value
    if hasattr(tvm, "nd") and hasattr(tvm.nd, "array"):
        return tvm.nd.array(value, dev)
    return tvm.runtime.tensor(value, dev)


def type_of(var):
    """A Relax variable's type (struct_info before TVM 0.27, ty from 0.27)."""
    t = getattr(var, "struct_info", None)
    return t if t is not None else getattr(var, "ty", None)


def var_name(var):
    return getattr(var, "name_hint", None) or str(getattr(var, "name", var))


def type_kind(t):
    name = type(t).__name__
    for kind in ("Tensor", "Tuple", "Shape", "Prim"):
        if name.startswith(kind):
            return kind
    return "Object"


def dims_of(t, where, dims, missing):
    """The static shape of tensor type t (or the values of shape type t), symbolic dimensions
    taken from --dim."""
    values = getattr(t, "values", None) if type_kind(t) == "Shape" else None
    if values is None:
        shape_expr = getattr(t, "shape", None)
        values = getattr(shape_expr, "values", None)
    if values is None:
        missing.append("%s has no known shape (rank %s): pass real inputs"
                       % (where, getattr(t, "ndim", "?")))
        return None
    shape = []
    for d in values:
        if hasattr(d, "value"):
            shape.append(int(d.value))
        elif str(d) in dims:
            shape.append(dims[str(d)])
        else:
            missing.append("--dim %s=VALUE (in %s)" % (d, where))
            shape.append(1)
    return shape


def random_value(t, where, rng, dims, missing):
    """A seeded random value of Relax type t: tensors uniform in [-1, 1) (integers 0 or 1, so
    that they are valid indices), tuples field by field, objects None."""
    kind = type_kind(t)
    if kind == "Tensor":
        shape = dims_of(t, where, dims, missing)
        dtype = str(t.dtype).replace("T.", "")
        if shape is None:
            return None
        if dtype == "bool":
            return rng.integers(0, 2, size=shape).astype(bool)
        if dtype.startswith(("int", "uint")):
            return rng.integers(0, 2, size=shape).astype(dtype)
        return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    if kind == "Tuple":
        return tuple(random_value(f, "%s[%d]" % (where, i), rng, dims, missing)
                     for i, f in enumerate(t.fields))
    if kind == "Shape":
        values = getattr(t, "values", None)
        if values is None:
            missing.append("%s is a shape of unknown values: pass real inputs" % where)
            return None
        return tvm.runtime.ShapeTuple(dims_of(t, where, dims, missing))
    if kind == "Prim":
        return 1
    return None  # an object (e.g. an effect token): the function only passes it along


def global_inputs(args, manifest):
    """Seeded random values for the global inputs, typed from the modules that read them."""
    rng = np.random.default_rng(args.seed)
    dims = dict(args.dim)
    types = {}
    for part in manifest["partitions"]:
        fn = load(os.path.join(HERE, part["file"]))["main"]
        for var in fn.params:
            types.setdefault(var_name(var), type_of(var))
    missing = []
    values = {}
    for name in GLOBAL_INPUTS:
        if name in types:
            values[name] = random_value(types[name], "input %s" % name, rng, dims, missing)
    if missing:
        fail("cannot make the inputs:\n  " + "\n  ".join(dict.fromkeys(missing)))
    return values


def as_outputs(value, is_tuple):
    """A function's result as its list of outputs (the fields of a returned tuple)."""
    if is_tuple and not hasattr(value, "numpy"):
        return list(value)
    return [value]


def leaves(value):
    """Every tensor of a value (nested tuples flattened), as numpy arrays; other objects as None."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    if isinstance(value, (list, tuple)) or type(value).__name__ in ("Array", "ADT", "Tuple"):
        out = []
        for field in value:
            out.extend(leaves(field))
        return out
    return [None]


def run_partitions(manifest, inputs):
    """Builds and runs mod0 ... modN in plan order, wired as partitions.json says."""
    results = {}
    for part in manifest["partitions"]:
        k = part["mod_idx"]
        target = TARGETS[k]
        dev = device_of(k)
        try:
            vm = relax.VirtualMachine(compile_module(load(os.path.join(HERE, part["file"])),
                                                     target), dev)
        except Exception as error:
            fail("%s does not build for %s:\n%s" % (part["file"], target, error), 1)
        args = []
        for inp in part["inputs"]:
            src = inp["from"]
            if "mod_idx" in src:
                value = results[src["mod_idx"]][src["output_idx"]]
                if hasattr(value, "numpy"):
                    value = to_device(value.numpy(), dev)
            elif "global_input" in src:
                value = to_device(inputs[src["global_input"]], dev)
            else:
                fail("mod%d needs the lifted constant %s: pass it in inputs" % (k, inp["name"]))
            args.append(value)
        out = vm["main"](*args)
        results[k] = as_outputs(out, len(part["outputs"]) != 1)
        print("mod%d (%s) on %s: %d output(s)" % (k, part["name"], target, len(results[k])))
    return [results[o["mod_idx"]][o["output_idx"]] for o in manifest["global_outputs"]]


def run_whole(path, manifest, inputs):
    """Builds the whole source module for the host and runs its partitioned function."""
    mod = load(path)
    ex = compile_module(mod, "llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(1)
    args = []
    for v in mod[FUNCTION].params:
        name = var_name(v)
        if name not in inputs:  # an input no operator reads: any value of its type will do
            missing = []
            inputs[name] = random_value(type_of(v), "input %s" % name, rng, {}, missing)
            if missing:
                fail("cannot make the unused input %s of the source: %s" % (name, missing[0]))
        args.append(to_device(inputs[name], tvm.cpu()))
    return as_outputs(vm[FUNCTION](*args), manifest.get("result_is_tuple", False))


def run_placed(manifest, inputs):
    """Builds placed.relax.py for all partition devices at once and runs it.

    Two passes are set aside for it, as TVM 0.27 needs: StaticPlanBlockMemory shares one storage
    between tensors of different vdevices of the same kind, and batch_norm is decomposed first
    (DecomposeOpsForInference), since its legalization drops the vdevice."""
    mod = load(os.path.join(HERE, "placed.relax.py"))
    mod = relax.transform.DecomposeOpsForInference()(mod)
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["StaticPlanBlockMemory"]):
        ex = compile_module(mod, None)
    devices = [device_of(k) for k in range(len(DEVICES))]
    vm = relax.VirtualMachine(ex, devices)
    args = [to_device(inputs[var_name(v)], devices[INPUT_DEVICES.get(var_name(v), 0)])
            for v in mod[FUNCTION].params]
    try:
        return as_outputs(vm[FUNCTION](*args), manifest.get("result_is_tuple", False))
    except Exception as error:  # TVM's own limits of multi-device execution
        fail("placed.relax.py builds, but TVM %s cannot run it on %s: %s" % (
            tvm.__version__, ", ".join("%s:%d" % d for d in DEVICES), str(error).splitlines()[0]), 1)


def compare(name, got, want, rtol):
    """Per output: the largest difference relative to the largest magnitude of the expected
    tensor, max|got - want| / max|want| (absolute when want is all zeros)."""
    report = []
    a, b = leaves(got), leaves(want)
    if len(a) != len(b):
        return [{"output": name, "ok": False, "error": "%d tensors against %d" % (len(a), len(b))}]
    for i, (x, y) in enumerate(zip(a, b)):
        label = name if len(a) == 1 else "%s[%d]" % (name, i)
        if x is None or y is None:
            report.append({"output": label, "ok": x is None and y is None, "kind": "object"})
            continue
        if x.shape != y.shape or x.dtype != y.dtype:
            report.append({"output": label, "ok": False, "error": "%s %s against %s %s"
                           % (x.dtype, list(x.shape), y.dtype, list(y.shape))})
            continue
        xf, yf = x.astype(np.float64), y.astype(np.float64)
        scale = float(np.max(np.abs(yf))) if yf.size else 0.0
        diff = float(np.max(np.abs(xf - yf))) if yf.size else 0.0
        rel = diff / scale if scale > 0 else diff
        report.append({"output": label, "shape": list(y.shape), "dtype": str(y.dtype),
                       "max_abs_diff": diff, "max_rel_diff": rel, "ok": rel <= rtol})
    return report


def main():
    parser = argparse.ArgumentParser(
        description="Builds every mod<k>.relax.py of this folder with TVM, runs them in plan "
        "order on seeded inputs, and compares their outputs with the whole source module's.")
    parser.add_argument("--source", default=None,
                        help="the source module (default: %s, relative to this folder)" % SOURCE)
    parser.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                        type=lambda s: (s.split("=", 1)[0], int(s.split("=", 1)[1])),
                        help="a value for a symbolic dimension (repeat for several)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--rtol", type=float, default=1e-5,
                        help="largest relative difference accepted (default 1e-5)")
    parser.add_argument("--placed", action="store_true",
                        help="also build placed.relax.py for all devices and compare it")
    parser.add_argument("--no-source", action="store_true",
                        help="do not run the source module (only run the partitions)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the report as JSON to FILE ('-': standard output)")
    args = parser.parse_args()

    with open(os.path.join(HERE, "partitions.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    inputs = global_inputs(args, manifest)
    report = {"tvm_version": tvm.__version__, "function": FUNCTION, "rtol": args.rtol,
              "seed": args.seed, "partitions": len(manifest["partitions"]), "outputs": [],
              "placed": []}
    got = run_partitions(manifest, inputs)
    names = ["output %d" % o["index"] for o in manifest["global_outputs"]]
    ok = True
    if not args.no_source:
        source = args.source or os.path.join(HERE, SOURCE)
        if not os.path.isfile(source):
            fail("the source module is not at %s: pass --source PATH (or --no-source)" % source)
        want = run_whole(source, manifest, inputs)
        if len(want) != len(got):
            fail("the partitions give %d outputs, the source %d" % (len(got), len(want)), 1)
        for name, g, w in zip(names, got, want):
            report["outputs"].extend(compare(name, g, w, args.rtol))
    if args.placed:
        placed = run_placed(manifest, inputs)
        for name, p, g in zip(names, placed, got):
            report["placed"].extend(compare(name, p, g, args.rtol))
    for section, title in (("outputs", "partitions vs source"), ("placed", "placed vs partitions")):
        for r in report[section]:
            ok = ok and r["ok"]
            detail = r.get("error") or ("max relative difference %.3g (absolute %.3g)"
                                        % (r["max_rel_diff"], r["max_abs_diff"])
                                        if "max_rel_diff" in r else "object")
            print("%s, %s: %s %s" % (title, r["output"], "ok" if r["ok"] else "MISMATCH", detail))
    report["ok"] = ok
    if args.json:
        text = json.dumps(report, indent=2)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    if not args.no_source or args.placed:
        print("all outputs match" if ok else "outputs differ", file=sys.stderr if not ok else sys.stdout)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
)PY";

/// A Python list literal of already-quoted items, one item per line when there are many.
std::string pythonList(const std::vector<std::string> &items)
{
    const bool multiline = items.size() > 4;
    std::string s = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (multiline)
            s += "\n    " + items[i] + ",";
        else
            s += (i ? ", " : "") + items[i];
    }
    return s + (multiline ? "\n]" : "]");
}

const char *const scriptHeader = R"PY(
Usage: python3 build_relax.py [--dim NAME=VALUE]... [--placed] [--json FILE] [--source PATH]

Parses every mod<k>.relax.py of this folder with tvm.script.from_source, builds each for its
target (tvm.compile; relax.build before TVM 0.21) and runs them in plan order on a Relax
VirtualMachine, wired as partitions.json says, on seeded random inputs typed from the modules'
parameters (symbolic dimensions from --dim; an object input such as an effect token is None).
Then it builds and runs the whole source module on the same inputs and compares every output
(nested tuples field by field): max|partitions - source| / max|source| must not exceed --rtol
(1e-5). `--placed` also builds placed.relax.py (one module, every binding on its partition's
vdevice) for all devices at once and compares it with the partitions. Exit status: 0 when every
output matches, 1 when one differs or a module does not build, 2 when it cannot run (no TVM, no
source module, a dimension without a value). BYOC partitions are built for the host here;
byoc.relax.py holds them as Codegen functions for RunCodegen.
"""

import argparse
import functools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE_KINDS = ("llvm", "c", "cuda", "rocm", "vulkan", "metal", "opencl")
)PY";

} // namespace

std::string relaxBuildScript(const ExportModel &model)
{
    const PartitionPlan &plan = *model.plan;
    const Graph &g = plan.graph();
    std::vector<std::string> targets;
    for (const std::string &t : model.targets)
        targets.push_back(relax::quoted(t.empty() || isByocTarget(t) ? std::string("llvm") : t));
    const std::vector<std::string> deviceNames = relaxPartitionDevices(model);
    std::vector<std::string> devices;
    for (const std::string &d : deviceNames) {
        const std::size_t colon = d.find(':');
        devices.push_back("(" + relax::quoted(d.substr(0, colon)) + ", " + d.substr(colon + 1)
                          + ")");
    }
    std::vector<std::string> inputs;
    for (const auto &[name, module] : model.globalInputs)
        inputs.push_back(relax::quoted(name));
    std::string inputDevices;
    for (const auto &[name, k] : relaxInputDevices(model))
        inputDevices
            += (inputDevices.empty() ? "" : ", ") + relax::quoted(name) + ": " + std::to_string(k);
    std::string s = "#!/usr/bin/env python3\n# Generated by Cleave " CLEAVE_VERSION ".\n";
    std::string name = scriptSourceName(model);
    for (char &c : name) {
        if (c == '"' || c == '\\')
            c = '_';
    }
    s += R"("""Builds, runs and checks the partitions of )" + name + " with TVM >= 0.20 (Relax).\n";
    s += scriptHeader;
    s += "FUNCTION = " + relax::quoted(g.function(plan.function()).name) + "\n";
    s += "# The source module, relative to this folder (as exported).\n";
    s += "SOURCE = " + relax::quoted(sourcePathFromFolder(model)) + "\n";
    s += "# Per mod<k>: its build target and the device it runs on (its vdevice in "
         "placed.relax.py).\n";
    s += "TARGETS = " + pythonList(targets) + "\n";
    s += "DEVICES = " + pythonList(devices) + "\n";
    s += "GLOBAL_INPUTS = " + pythonList(inputs) + "\n";
    s += "# The partition whose vdevice each global input is placed on in placed.relax.py.\n";
    s += "INPUT_DEVICES = {" + inputDevices + "}\n";
    return s + scriptBody;
}

} // namespace cleave
