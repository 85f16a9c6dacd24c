// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/export/ExportModel.h"

#include "core/analysis/WeightInputs.h"
#include "core/partition/WeightFollowers.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace cleave {

namespace {

/// Global outputs that no partition computes because the model returns an input or a constant
/// directly: each becomes a pass-through output of one module (the first that reads the value,
/// else the first module for an input and the last for a constant). Returns, per (module,
/// pass-through name), the global output indices that output feeds.
std::map<std::pair<int, std::string>, std::vector<int>>
routeDirectOutputs(const PartitionPlan &plan, const BoundaryTable &boundary, ExportModel &m)
{
    std::map<std::pair<int, std::string>, std::vector<int>> routes;
    const Graph &g = plan.graph();
    const std::vector<TensorRef> outs = g.outputs(plan.function());
    std::vector<bool> computed(outs.size(), false);
    for (const PartitionInterface &iface : boundary.interfaces) {
        for (const PartitionOutput &o : iface.outputs) {
            if (o.globalOutput >= 0 && static_cast<std::size_t>(o.globalOutput) < outs.size())
                computed[static_cast<std::size_t>(o.globalOutput)] = true;
        }
    }
    const int n = static_cast<int>(plan.partitionCount());
    for (std::size_t i = 0; i < outs.size(); ++i) {
        if (computed[i] || !outs[i].isValid())
            continue;
        const Node &node = g.node(outs[i].node);
        std::string name;
        int module = -1;
        if (node.kind == NodeKind::Input && node.function == plan.function()) {
            name = globalInputName(g, outs[i].node);
            for (auto &[input, reader] : m.globalInputs) {
                if (input == name && reader < 0
                    && std::none_of(m.params.begin(), m.params.end(),
                                    [&](const ExportParam &p) { return p.name == name; }))
                    reader = 0; // read by no module: the first one receives it
                if (input == name)
                    module = reader;
            }
            for (ExportParam &p : m.params) {
                if (p.name != name)
                    continue;
                if (p.groups.empty())
                    p.groups.emplace_back(name, 0);
                module = p.groups.front().second;
            }
        } else if (node.kind == NodeKind::Constant) {
            name = g.key(outs[i].node);
            for (const Use &u : g.uses(outs[i].node)) {
                const int reader = plan.indexOf(plan.partitionOf(u.consumer));
                if (reader >= 0 && (module < 0 || reader < module))
                    module = reader;
            }
            if (module < 0)
                module = n - 1;
        }
        if (module < 0 || name.empty())
            continue;
        auto &list = m.passThrough[static_cast<std::size_t>(module)];
        if (std::find(list.begin(), list.end(), name) == list.end())
            list.push_back(name);
        routes[{ module, name }].push_back(static_cast<int>(i));
        m.diagnostics.push_back(Diagnostic::make(
            Severity::Info, "export.direct_output",
            "global output " + std::to_string(i) + " is the "
                + (node.kind == NodeKind::Input ? "input " : "constant ") + name + " itself: mod"
                + std::to_string(module) + " returns it as a pass-through output",
            { outs[i].node }));
    }
    return routes;
}

} // namespace

std::string targetKind(const std::string &target)
{
    return target.substr(0, target.find_first_of(" \t"));
}

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

std::string scriptSourceName(const ExportModel &model)
{
    std::string name = std::filesystem::path(model.plan->graph().sourcePath()).filename().string();
    for (char &c : name) {
        if (c == '\n' || c == '\r')
            c = ' ';
    }
    return name;
}

std::string sourcePathFromFolder(const ExportModel &model)
{
    namespace fs = std::filesystem;
    const std::string &source = model.plan->graph().sourcePath();
    if (source.empty())
        return {};
    std::error_code ec;
    const fs::path from = fs::weakly_canonical(fs::absolute(source, ec), ec);
    const fs::path folder
        = ec ? fs::path() : fs::weakly_canonical(fs::absolute(model.folder, ec), ec);
    const fs::path relative = ec ? fs::path() : from.lexically_relative(folder);
    return relative.empty() ? scriptSourceName(model) : relative.generic_string();
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

namespace {

void addError(ExportModel &m, std::string code, std::string message, std::vector<NodeId> nodes = {})
{
    m.diagnostics.push_back(
        Diagnostic::make(Severity::Error, std::move(code), std::move(message), std::move(nodes)));
}

/// The module target of each partition (options.targets overrides the plan's) and errors for
/// empty partitions, surplus targets and unassigned nodes.
void resolveTargets(const PartitionPlan &plan, const ExportOptions &options, ExportModel &m)
{
    const std::size_t n = plan.partitionCount();
    for (std::size_t k = 0; k < n; ++k) {
        const std::string over = k < options.targets.size() ? options.targets[k] : std::string();
        m.targets.push_back(over.empty() ? plan.partitions()[k].target : over);
        if (plan.nodeCount(plan.partitions()[k].id) == 0)
            addError(m, "export.empty_partition",
                     "partition '" + plan.partitions()[k].name + "' is empty");
    }
    if (options.targets.size() > n)
        addError(m, "export.targets",
                 "--targets lists " + std::to_string(options.targets.size()) + " targets for "
                     + std::to_string(n) + " partitions");
    std::vector<NodeId> unassigned;
    for (NodeId id : plan.view().assignableNodes()) {
        if (plan.indexOf(plan.partitionOf(id)) < 0)
            unassigned.push_back(id);
    }
    if (!unassigned.empty())
        addError(m, "export.unassigned",
                 std::to_string(unassigned.size()) + " node(s) belong to no partition, e.g. "
                     + plan.graph().key(unassigned.front()),
                 unassigned);
}

/// Per receiver module, the (module, global input name) pairs it forwards.
using Forwards = std::vector<std::vector<std::pair<int, std::string>>>;

/// Global inputs: the first partition reading one receives it; later readers get it
/// forwarded by that partition (the config binds a global input to one module only). Weights
/// go to every reading module through its own param group instead.
Forwards routeGlobalInputs(const PartitionPlan &plan, const BoundaryTable &boundary,
                           const ExportOptions &options, ExportModel &m)
{
    const Graph &g = plan.graph();
    const std::size_t n = plan.partitionCount();
    m.passThrough.resize(n);
    Forwards forwards(n);
    const std::vector<WeightInput> weights
        = WeightFollowers::followedWeights(plan.view(), options.params);
    for (NodeId in : plan.view().inputs()) {
        std::vector<int> readers;
        for (std::size_t k = 0; k < n; ++k) {
            for (const PartitionInput &pi : boundary.interfaces[k].inputs) {
                if (pi.boundary < 0 && pi.globalInput == in)
                    readers.push_back(static_cast<int>(k));
            }
        }
        const std::string name = globalInputName(g, in);
        const auto weight = std::find_if(weights.begin(), weights.end(),
                                         [&](const WeightInput &w) { return w.input == in; });
        if (weight != weights.end()) {
            m.globalInputs.emplace_back(name, -1);
            ExportParam param {
                name, in, weight->reason == WeightReason::Marked ? "marked" : "weight_operand", {}
            };
            for (int r : readers)
                param.groups.emplace_back(
                    readers.size() == 1 ? name : name + "@mod" + std::to_string(r), r);
            m.params.push_back(std::move(param));
            continue;
        }
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
    if (!m.params.empty()) {
        std::size_t groups = 0;
        for (const ExportParam &p : m.params)
            groups += p.groups.size();
        m.diagnostics.push_back(Diagnostic::make(
            Severity::Info, "export.params",
            std::to_string(m.params.size())
                + " weight(s) passed as graph inputs go to their "
                  "modules through param_connection ("
                + std::to_string(groups) + " param group(s)), not through the data path"));
    }
    return forwards;
}

/// Output `o` of module `k` as computed by the partition: its type and who reads it.
ModuleOutputInfo computedOutput(const PartitionPlan &plan, const BoundaryTable &boundary,
                                std::size_t k, const PartitionOutput &o, ExportModel &m)
{
    ModuleOutputInfo info;
    if (o.boundary < 0) {
        info.type = plan.graph().tensorType(o.tensor);
    } else {
        const BoundaryTensor &b = boundary.tensors[static_cast<std::size_t>(o.boundary)];
        info.type = b.type;
        for (const BoundaryConsumer &c : b.consumers) {
            const int to = plan.indexOf(c.partition);
            if (to <= static_cast<int>(k))
                addError(m, "export.cycle",
                         "partition '" + plan.partitions()[k].name + "' feeds '"
                             + plan.partitions()[static_cast<std::size_t>(to)].name
                             + "', which comes before it: the partitions form a cycle",
                         { b.tensor.node });
            info.dependencies.push_back({ to, c.inputName, -1 });
        }
    }
    if (o.globalOutput >= 0)
        info.dependencies.push_back({ -1, {}, o.globalOutput });
    return info;
}

/// The extra output of module `k` that passes the input or constant `name` through, to the
/// modules it forwards it to and the global outputs that return it directly.
ModuleOutputInfo passThroughOutput(const PartitionPlan &plan, std::size_t k,
                                   const std::string &name, const Forwards &forwards,
                                   const std::vector<int> *directGlobals)
{
    const Graph &g = plan.graph();
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
    if (const NodeId c = g.findByKey(name); c.isValid() && g.node(c).kind == NodeKind::Constant)
        info.type = g.node(c).outputType();
    if (directGlobals) {
        for (int global : *directGlobals)
            info.dependencies.push_back({ -1, {}, global });
    }
    return info;
}

/// Every module's outputs: computed ones, then pass-throughs; an error for each global output
/// that no module provides.
void describeOutputs(const PartitionPlan &plan, const BoundaryTable &boundary,
                     const Forwards &forwards, ExportModel &m)
{
    const std::size_t n = plan.partitionCount();
    const auto directRoutes = routeDirectOutputs(plan, boundary, m);
    m.outputs.resize(n);
    std::vector<bool> globalSeen(plan.graph().outputs(plan.function()).size(), false);
    auto markSeen = [&](const ModuleOutputInfo &info) {
        for (const OutputDependency &d : info.dependencies) {
            if (d.globalOutput >= 0)
                globalSeen[static_cast<std::size_t>(d.globalOutput)] = true;
        }
    };
    for (std::size_t k = 0; k < n; ++k) {
        for (const PartitionOutput &o : boundary.interfaces[k].outputs) {
            m.outputs[k].push_back(computedOutput(plan, boundary, k, o, m));
            markSeen(m.outputs[k].back());
        }
        for (const std::string &name : m.passThrough[k]) {
            const auto it = directRoutes.find({ static_cast<int>(k), name });
            m.outputs[k].push_back(passThroughOutput(
                plan, k, name, forwards, it == directRoutes.end() ? nullptr : &it->second));
            markSeen(m.outputs[k].back());
        }
    }
    for (std::size_t i = 0; i < globalSeen.size(); ++i) {
        if (!globalSeen[i])
            addError(m, "export.global_output",
                     "global output " + std::to_string(i)
                         + " is neither computed by a partition nor an input or a constant the "
                           "export can forward; the pipeline config cannot express it");
    }
}

} // namespace

ExportModel buildExportModel(const PartitionPlan &plan, const BoundaryTable &boundary,
                             const ExportOptions &options)
{
    ExportModel m;
    m.plan = &plan;
    m.boundary = &boundary;
    m.options = &options;
    if (plan.partitionCount() == 0) {
        addError(m, "export.empty", "the plan has no partitions");
        return m;
    }
    if (boundary.interfaces.size() != plan.partitionCount()) {
        addError(m, "export.boundary", "the boundary table does not belong to this plan");
        return m;
    }
    resolveTargets(plan, options, m);
    const Forwards forwards = routeGlobalInputs(plan, boundary, options, m);
    describeOutputs(plan, boundary, forwards, m);
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
