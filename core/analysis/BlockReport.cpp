// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/analysis/BlockReport.h"

#include <algorithm>
#include <span>
#include <sstream>

namespace cleave {

namespace {

std::string joined(const std::vector<std::string> &items, const char *separator)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? separator : "") + items[i];
    return out;
}

std::vector<std::string> tensorLabels(const Graph &graph, std::span<const TensorRef> tensors)
{
    std::vector<std::string> labels;
    labels.reserve(tensors.size());
    for (const TensorRef &t : tensors)
        labels.push_back(tensorLabel(graph, t));
    return labels;
}

std::string functionLabel(const Graph &graph, FunctionId f)
{
    const Function &fn = graph.function(f);
    return fn.kind == Function::Kind::Global ? "@" + fn.name : fn.name;
}

} // namespace

std::string tensorLabel(const Graph &graph, TensorRef tensor)
{
    std::string label = graph.key(tensor.node);
    if (tensor.output > 0)
        label += ":" + std::to_string(tensor.output);
    return label;
}

nlohmann::json fusedBlocksToJson(const Graph &graph, const std::vector<FusedBlock> &blocks)
{
    nlohmann::json array = nlohmann::json::array();
    for (const FusedBlock &b : blocks) {
        nlohmann::json nodes = nlohmann::json::array();
        for (NodeId n : b.nodes)
            nodes.push_back(graph.key(n));
        nlohmann::json entry { { "name", b.name.str() },
                               { "pattern", opPatternName(b.pattern) },
                               { "nodes", std::move(nodes) },
                               { "ops", blockOps(graph, b) },
                               { "inputs", tensorLabels(graph, b.inputs) },
                               { "outputs", tensorLabels(graph, b.outputs) } };
        if (b.isExisting())
            entry["function"] = functionLabel(graph, b.callee);
        array.push_back(std::move(entry));
    }
    return array;
}

std::string fusedBlocksToText(const Graph &graph, const std::vector<FusedBlock> &blocks)
{
    std::size_t width = 0;
    for (const FusedBlock &b : blocks)
        width = std::max(width, b.name.size());
    std::ostringstream out;
    out << "\nFused blocks (" << blocks.size() << ")\n";
    for (const FusedBlock &b : blocks) {
        out << "  " << b.name << std::string(width - b.name.size() + 2, ' ') << b.nodes.size()
            << (b.nodes.size() == 1 ? " node   " : " nodes  ") << joined(blockOps(graph, b), " > ")
            << "  (" << joined(tensorLabels(graph, b.inputs), ", ") << " -> "
            << joined(tensorLabels(graph, b.outputs), ", ") << ")\n";
    }
    return out.str();
}

} // namespace cleave
