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


def device_for(target):
    """The runtime device of a target string ("cuda -arch=sm_80" -> tvm.cuda(0))."""
    kind = target.split()[0] if target else "llvm"
    if kind in ("llvm", "c") or kind not in DEVICE_KINDS:
        return tvm.cpu(0)
    return tvm.device(kind, 0)


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
        dev = device_for(target)
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
    devices = [device_for(t) for t in PLACED_TARGETS]
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

std::string pythonList(const std::vector<std::string> &items)
{
    std::string s = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        s += (i ? ", " : "") + relax::quoted(items[i]);
    return s + "]";
}

} // namespace

std::string relaxBuildScript(const ExportModel &model)
{
    const PartitionPlan &plan = *model.plan;
    const Graph &g = plan.graph();
    std::vector<std::string> targets;
    std::vector<std::string> placed;
    for (const std::string &t : model.targets) {
        targets.push_back(t.empty() || isByocTarget(t) ? std::string("llvm") : t);
        placed.push_back(targets.back());
    }
    std::vector<std::string> inputs;
    for (const auto &[name, module] : model.globalInputs)
        inputs.push_back(name);
    std::string s = "#!/usr/bin/env python3\n"
                    "# Generated by Cleave " CLEAVE_VERSION ".\n"
                    "\"\"\"Builds and runs the partitions of "
        + g.sourcePath()
        + " with TVM >= 0.20 (Relax).\n\n"
          "Each mod<k>.relax.py is parsed with tvm.script.from_source, built for its target and "
          "run\n"
          "in plan order on a Relax VirtualMachine, wired as partitions.json says; `--placed` "
          "also\n"
          "builds placed.relax.py (one module, every binding on its partition's vdevice) for all\n"
          "devices at once and checks that it gives the same outputs. BYOC partitions are built\n"
          "for the host here; byoc.relax.py holds them as Codegen functions for "
          "RunCodegen.\n\"\"\"\n\n"
          "import json\nimport os\nimport sys\n\nimport numpy as np\nimport tvm\nfrom tvm import "
          "relax\n\n"
          "HERE = os.path.dirname(os.path.abspath(__file__))\n"
          "DEVICE_KINDS = (\"llvm\", \"c\", \"cuda\", \"rocm\", \"vulkan\", \"metal\", "
          "\"opencl\")\n"
          "FUNCTION = "
        + relax::quoted(g.function(plan.function()).name)
        + "\n"
          "TARGETS = "
        + pythonList(targets)
        + "  # per mod<k>\n"
          "PLACED_TARGETS = "
        + pythonList(placed)
        + "  # per vdevice of placed.relax.py\n"
          "GLOBAL_INPUTS = "
        + pythonList(inputs) + "\n";
    return s + scriptBody;
}

} // namespace cleave
