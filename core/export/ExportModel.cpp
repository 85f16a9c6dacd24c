// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ExportModel.h"

#include <algorithm>

namespace cleave {

namespace {

std::string targetKind(const std::string &target)
{
    const auto space = target.find_first_of(" \t");
    return target.substr(0, space);
}

} // namespace

bool isByocTarget(const std::string &target)
{
    static const char *const devices[]
        = { "llvm",    "c",      "cuda",    "nvptx", "opencl",  "vulkan", "metal", "rocm",
            "hexagon", "webgpu", "ext_dev", "aocl",  "sdaccel", "cpu",    "gpu",   "hybrid" };
    const std::string kind = targetKind(target);
    return !kind.empty()
        && std::none_of(std::begin(devices), std::end(devices),
                        [&](const char *d) { return kind == d; });
}

std::string deviceOf(const std::string &target)
{
    const std::string kind = targetKind(target);
    if (kind == "cuda" || kind == "nvptx")
        return "2,0";
    if (kind == "opencl")
        return "4,0";
    if (kind == "vulkan")
        return "7,0";
    if (kind == "metal")
        return "8,0";
    if (kind == "rocm")
        return "10,0";
    return "1,0";
}

ExportModel buildExportModel(const PartitionPlan &plan, const BoundaryTable &boundary,
                             const ExportOptions &options)
{
    ExportModel m;
    m.plan = &plan;
    m.boundary = &boundary;
    m.options = &options;
    const Graph &g = plan.graph();
    const std::size_t n = plan.partitionCount();
    auto error = [&](std::string code, std::string message, std::vector<NodeId> nodes = {}) {
        m.diagnostics.push_back(Diagnostic::make(Severity::Error, std::move(code),
                                                 std::move(message), std::move(nodes)));
    };
    if (n == 0) {
        error("export.empty", "the plan has no partitions");
        return m;
    }
    if (boundary.interfaces.size() != n) {
        error("export.boundary", "the boundary table does not belong to this plan");
        return m;
    }
    for (std::size_t k = 0; k < n; ++k) {
        const std::string over = k < options.targets.size() ? options.targets[k] : std::string();
        m.targets.push_back(over.empty() ? plan.partitions()[k].target : over);
        if (plan.nodeCount(plan.partitions()[k].id) == 0)
            error("export.empty_partition",
                  "partition '" + plan.partitions()[k].name + "' is empty");
    }
    if (options.targets.size() > n)
        error("export.targets",
              "--targets lists " + std::to_string(options.targets.size()) + " targets for "
                  + std::to_string(n) + " partitions");
    std::vector<NodeId> unassigned;
    for (NodeId id : plan.view().assignableNodes()) {
        if (plan.indexOf(plan.partitionOf(id)) < 0)
            unassigned.push_back(id);
    }
    if (!unassigned.empty())
        error("export.unassigned",
              std::to_string(unassigned.size()) + " node(s) belong to no partition, e.g. "
                  + g.key(unassigned.front()),
              unassigned);

    // Global inputs: the first partition reading one receives it; later readers get it
    // forwarded by that partition (the config binds a global input to one module only).
    m.passThrough.resize(n);
    std::vector<std::vector<std::pair<int, std::string>>> forwards(n); // per receiver module
    for (NodeId in : plan.view().inputs()) {
        std::vector<int> readers;
        for (std::size_t k = 0; k < n; ++k) {
            for (const PartitionInput &pi : boundary.interfaces[k].inputs) {
                if (pi.boundary < 0 && pi.globalInput == in)
                    readers.push_back(static_cast<int>(k));
            }
        }
        const std::string name = globalInputName(g, in);
        m.globalInputs.emplace_back(name, readers.empty() ? -1 : readers.front());
        if (readers.size() > 1) {
            m.diagnostics.push_back(Diagnostic::make(
                Severity::Info, "export.routed_input",
                "global input " + name + " is read by " + std::to_string(readers.size())
                    + " modules: it enters mod" + std::to_string(readers.front())
                    + ", which forwards it to the others as an extra output",
                { in }));
            m.passThrough[static_cast<std::size_t>(readers.front())].push_back(name);
            for (std::size_t r = 1; r < readers.size(); ++r)
                forwards[static_cast<std::size_t>(readers.front())].emplace_back(readers[r], name);
        }
    }

    m.outputs.resize(n);
    std::vector<bool> globalSeen(g.outputs(plan.function()).size(), false);
    for (std::size_t k = 0; k < n; ++k) {
        for (const PartitionOutput &o : boundary.interfaces[k].outputs) {
            ModuleOutputInfo info;
            if (o.boundary >= 0) {
                const BoundaryTensor &b = boundary.tensors[static_cast<std::size_t>(o.boundary)];
                info.type = b.type;
                for (const BoundaryConsumer &c : b.consumers) {
                    const int to = plan.indexOf(c.partition);
                    if (to <= static_cast<int>(k))
                        error("export.cycle",
                              "partition '" + plan.partitions()[k].name + "' feeds '"
                                  + plan.partitions()[static_cast<std::size_t>(to)].name
                                  + "', which comes before it: the partitions form a cycle",
                              { b.tensor.node });
                    info.dependencies.push_back({ to, c.inputName, -1 });
                }
            } else {
                info.type = g.tensorType(o.tensor);
            }
            if (o.globalOutput >= 0) {
                info.dependencies.push_back({ -1, {}, o.globalOutput });
                globalSeen[static_cast<std::size_t>(o.globalOutput)] = true;
            }
            m.outputs[k].push_back(std::move(info));
        }
        for (const std::string &name : m.passThrough[k]) {
            ModuleOutputInfo info;
            info.passThrough = name;
            for (const auto &[to, input] : forwards[k]) {
                if (input == name)
                    info.dependencies.push_back({ to, name, -1 });
            }
            for (NodeId in : plan.view().inputs()) {
                if (globalInputName(g, in) == name)
                    info.type = g.node(in).outputType();
            }
            m.outputs[k].push_back(std::move(info));
        }
    }
    for (std::size_t i = 0; i < globalSeen.size(); ++i) {
        if (!globalSeen[i])
            error("export.global_output",
                  "global output " + std::to_string(i)
                      + " is not computed by any partition (an input or a constant is returned "
                        "directly); the pipeline config cannot express it");
    }
    return m;
}

void useWriterNames(ExportModel &model)
{
    const BoundaryTable &boundary = *model.boundary;
    model.inputNames.clear();
    for (std::size_t k = 0; k < boundary.interfaces.size(); ++k) {
        std::vector<std::string> names = model.writer
            ? model.writer->interfaceInputNames(*model.plan, boundary, k)
            : std::vector<std::string> {};
        if (names.size() != boundary.interfaces[k].inputs.size()) {
            names.clear();
            for (const PartitionInput &in : boundary.interfaces[k].inputs)
                names.push_back(in.name);
        }
        model.inputNames.push_back(std::move(names));
    }
    for (auto &outputs : model.outputs) {
        for (ModuleOutputInfo &info : outputs) {
            for (OutputDependency &d : info.dependencies) {
                if (d.module < 0 || static_cast<std::size_t>(d.module) >= model.inputNames.size())
                    continue;
                const auto &inputs = boundary.interfaces[static_cast<std::size_t>(d.module)].inputs;
                for (std::size_t i = 0; i < inputs.size(); ++i) {
                    if (inputs[i].name == d.inputName) {
                        d.inputName = model.inputNames[static_cast<std::size_t>(d.module)][i];
                        break;
                    }
                }
            }
        }
    }
}

} // namespace cleave
