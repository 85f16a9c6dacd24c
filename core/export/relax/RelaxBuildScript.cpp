// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/relax/RelaxArtefacts.h"
#include "core/io/relax/RelaxValues.h"

namespace cleave {

namespace {

const char *const scriptBody = R"PY(

def load(name):
    """Parses one TVMScript module of this folder."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
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
    """A numpy array as a runtime tensor (tvm.nd.array before TVM 0.22, tvm.runtime.tensor after)."""
    if hasattr(tvm, "nd") and hasattr(tvm.nd, "array"):
        return tvm.nd.array(value, dev)
    return tvm.runtime.tensor(value, dev)


def as_list(value):
    """A VM result as a list of tensors (a single tensor or a tuple)."""
    if hasattr(value, "numpy"):
        return [value]
    return list(value)


def run_partitions(inputs):
    """Runs mod0 ... modN in plan order; `inputs` maps global input names to numpy arrays."""
    manifest = json.load(open(os.path.join(HERE, "partitions.json"), encoding="utf-8"))
    results = {}
    for part in manifest["partitions"]:
        k = part["mod_idx"]
        target = TARGETS[k]
        dev = device_of(k)
        vm = relax.VirtualMachine(compile_module(load(part["file"]), target), dev)
        args = []
        for inp in part["inputs"]:
            src = inp["from"]
            if "mod_idx" in src:
                value = results[src["mod_idx"]][src["output_idx"]].numpy()
            elif "global_input" in src:
                value = inputs[src["global_input"]]
            else:
                raise SystemExit("mod%d needs the lifted constant %s: pass it in inputs" % (k, inp["name"]))
            args.append(to_device(value, dev))
        results[k] = as_list(vm["main"](*args))
        print("mod%d on %s: %d output(s)" % (k, target, len(results[k])))
    return [results[o["mod_idx"]][o["output_idx"]] for o in manifest["global_outputs"]]


def run_placed(inputs):
    """Builds placed.relax.py for all partition devices at once and runs it."""
    mod = load("placed.relax.py")
    mod = relax.transform.RealizeVDevice()(mod)
    mod = relax.transform.LegalizeOps()(mod)
    ex = tvm.compile(mod) if hasattr(tvm, "compile") else relax.build(mod)
    devices = [device_of(k) for k in range(len(DEVICES))]
    vm = relax.VirtualMachine(ex, devices)
    args = [to_device(inputs[name], devices[0]) for name in GLOBAL_INPUTS]
    return as_list(vm[FUNCTION](*args))


def random_inputs():
    manifest = json.load(open(os.path.join(HERE, "partitions.json"), encoding="utf-8"))
    values = {}
    for g in manifest["global_inputs"]:
        shape = g.get("shape")
        if shape is None or any(not isinstance(d, int) or d < 0 for d in shape):
            raise SystemExit("global input %s has no static shape: pass real inputs" % g["name"])
        values[g["name"]] = np.random.uniform(-1, 1, size=shape).astype(g["dtype"])
    return values


if __name__ == "__main__":
    data = random_inputs()
    outs = run_partitions(data)
    for i, out in enumerate(outs):
        print("output %d: shape %s" % (i, out.numpy().shape))
    if "--placed" in sys.argv:
        placed = run_placed(data)
        for a, b in zip(outs, placed):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)
        print("placed.relax.py matches the partitions")
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
Each mod<k>.relax.py is parsed with tvm.script.from_source, built for its target and run in
plan order on a Relax VirtualMachine, wired as partitions.json says; `--placed` also builds
placed.relax.py (one module, every binding on its partition's vdevice) for all devices at once
and checks that it gives the same outputs. BYOC partitions are built for the host here;
byoc.relax.py holds them as Codegen functions for RunCodegen.
"""

import json
import os
import sys

import numpy as np
import tvm
from tvm import relax

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
    std::vector<std::string> devices;
    for (const std::string &d : relaxPartitionDevices(model)) {
        const std::size_t colon = d.find(':');
        devices.push_back("(" + relax::quoted(d.substr(0, colon)) + ", " + d.substr(colon + 1)
                          + ")");
    }
    std::vector<std::string> inputs;
    for (const auto &[name, module] : model.globalInputs)
        inputs.push_back(relax::quoted(name));
    std::string s = "#!/usr/bin/env python3\n# Generated by Cleave " CLEAVE_VERSION ".\n";
    s += R"("""Builds and runs the partitions of )" + g.sourcePath()
        + " with TVM >= 0.20 (Relax).\n";
    s += scriptHeader;
    s += "FUNCTION = " + relax::quoted(g.function(plan.function()).name) + "\n";
    s += "# Per mod<k>: its build target and the device it runs on (its vdevice in "
         "placed.relax.py).\n";
    s += "TARGETS = " + pythonList(targets) + "\n";
    s += "DEVICES = " + pythonList(devices) + "\n";
    s += "GLOBAL_INPUTS = " + pythonList(inputs) + "\n";
    return s + scriptBody;
}

} // namespace cleave
