// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#include "core/partition/BlockGraph.h"

#include "core/partition/PartitionPlan.h"

#include <algorithm>

namespace cleave {

namespace {

/// What a copied node that is not a plain op call is called at block level.
std::string shownOpName(const Graph &graph, const Node &node)
{
    switch (node.kind) {
    case NodeKind::FunctionCall:
        return node.callee.isValid() ? graph.function(node.callee).name : "call";
    case NodeKind::ClosureCall:
        return "call";
    case NodeKind::If:
        return "if";
    case NodeKind::Match:
        return "match";
    default:
        return node.op;
    }
}

} // namespace

std::vector<NodeId> BlockGraph::originalNodes(NodeId blockNode) const
{
    for (const KernelMatch &k : mapping.kernels) {
        if (k.kernel == blockNode)
            return k.relayNodes;
    }
    std::vector<NodeId> out;
    for (const auto &[original, shown] : shownAs) {
        if (shown == blockNode)
            out.push_back(original);
    }
    return out;
}

std::vector<EdgeRef> BlockGraph::originalEdges(const Graph &original,
                                               const std::vector<EdgeRef> &edges) const
{
    std::vector<EdgeRef> out;
    for (const EdgeRef &e : edges) {
        const auto tensor = originalTensor.find(e.tensor);
        if (tensor == originalTensor.end())
            continue;
        const std::vector<NodeId> inside = originalNodes(e.consumer);
        for (const Use &u : original.uses(tensor->second.node)) {
            if (original.node(u.consumer).inputs[u.input] != tensor->second)
                continue;
            if (std::find(inside.begin(), inside.end(), u.consumer) == inside.end())
                continue;
            const EdgeRef pe { tensor->second, u.consumer };
            if (std::find(out.begin(), out.end(), pe) == out.end())
                out.push_back(pe);
        }
    }
    return out;
}

BlockGraph collapseBlocks(const Graph &graph, FunctionId f, const std::vector<FusedBlock> &blocks,
                          const std::vector<std::size_t> &expanded)
{
    BlockGraph out;
    Function main;
    main.kind = Function::Kind::Global;
    main.name = "main";
    const FunctionId nf = out.graph.addFunction(std::move(main));
    out.graph.setFormat(graph.format());
    out.graph.setSourcePath(graph.sourcePath());
    out.graph.setChecksum(graph.checksum());

    const std::vector<NodeId> order = graph.topologicalOrder(f);
    std::vector<std::int32_t> position(graph.nodeCount(), -1);
    for (std::size_t i = 0; i < order.size(); ++i)
        position[order[i].index()] = static_cast<std::int32_t>(i);

    // Which collapsed block each node belongs to, and each block's root.
    std::vector<int> blockOf(graph.nodeCount(), -1);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        if (std::find(expanded.begin(), expanded.end(), b) != expanded.end())
            continue;
        for (NodeId n : blocks[b].nodes)
            blockOf[n.index()] = static_cast<int>(b);
    }

    std::map<TensorRef, TensorRef> &shown = out.shownTensor;
    auto remap = [&](const std::vector<TensorRef> &inputs) {
        std::vector<TensorRef> mapped;
        for (TensorRef t : inputs) {
            const auto it = shown.find(t);
            if (it != shown.end())
                mapped.push_back(it->second);
        }
        return mapped;
    };
    auto record = [&](NodeId original, NodeId copy, std::size_t outputs) {
        for (std::uint32_t i = 0; i < std::max<std::size_t>(outputs, 1); ++i) {
            shown[{ original, i }] = { copy, i };
            out.originalTensor[{ copy, i }] = { original, i };
        }
        out.shownAs[original] = copy;
    };

    for (NodeId n : order) {
        const Node &node = graph.node(n);
        const int b = blockOf[n.index()];
        if (b >= 0) {
            const FusedBlock &block = blocks[static_cast<std::size_t>(b)];
            out.shownAs[n] = NodeId(); // filled in when the root is reached
            if (n != block.root)
                continue;
            Node collapsed;
            collapsed.kind = NodeKind::OpCall;
            collapsed.function = nf;
            collapsed.op = block.name;
            collapsed.name = node.name;
            collapsed.inputs = remap(block.inputs);
            for (TensorRef t : block.outputs)
                collapsed.outputTypes.push_back(graph.tensorType(t));
            if (collapsed.outputTypes.empty())
                collapsed.outputTypes = node.outputTypes;
            const NodeId id = out.graph.addNode(std::move(collapsed));
            std::vector<NodeId> members = block.nodes;
            std::sort(members.begin(), members.end(), [&](NodeId x, NodeId y) {
                return position[x.index()] < position[y.index()];
            });
            for (NodeId m : members)
                out.shownAs[m] = id;
            for (std::uint32_t i = 0; i < block.outputs.size(); ++i) {
                shown[block.outputs[i]] = { id, i };
                out.originalTensor[{ id, i }] = block.outputs[i];
            }
            if (block.outputs.empty())
                record(block.root, id, 1);
            KernelMatch k;
            k.kernel = id;
            k.name = block.name;
            k.funcName = block.name;
            k.relayNodes = std::move(members);
            k.matched = true;
            out.mapping.kernels.push_back(std::move(k));
            continue;
        }
        Node copy;
        copy.kind = node.kind;
        copy.function = nf;
        copy.name = node.name;
        copy.op = node.op;
        copy.attrs = node.attrs;
        copy.outputTypes = node.outputTypes;
        copy.index = node.index;
        copy.value = node.value;
        copy.metaRef = node.metaRef;
        copy.typeAnnotated = node.typeAnnotated;
        if (node.kind == NodeKind::FunctionCall || node.kind == NodeKind::ClosureCall
            || node.kind == NodeKind::If || node.kind == NodeKind::Match
            || node.kind == NodeKind::FunctionValue) {
            copy.kind
                = node.kind == NodeKind::FunctionValue ? NodeKind::Constant : NodeKind::OpCall;
            copy.op = shownOpName(graph, node);
        }
        copy.inputs = remap(node.inputs);
        const NodeId id = out.graph.addNode(std::move(copy));
        if (node.kind == NodeKind::Input)
            out.graph.function(nf).params.push_back(id);
        record(n, id, node.outputCount());
        if (out.graph.node(id).isOperator()) {
            KernelMatch k;
            k.kernel = id;
            k.name = graph.key(n);
            k.funcName = out.graph.node(id).op;
            k.relayNodes = { n };
            k.matched = true;
            out.mapping.kernels.push_back(std::move(k));
        }
    }
    // Parameters keep the function's parameter order.
    std::vector<NodeId> params;
    for (NodeId p : graph.function(f).params) {
        const auto it = out.shownAs.find(p);
        if (it != out.shownAs.end())
            params.push_back(it->second);
    }
    out.graph.function(nf).params = std::move(params);
    const NodeId result = graph.function(f).result;
    if (result.isValid()) {
        const auto it = shown.find({ result, 0 });
        if (it != shown.end())
            out.graph.function(nf).result = it->second.node;
    }
    out.graph.finalize();
    return out;
}

} // namespace cleave
