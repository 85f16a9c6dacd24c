// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
// fuseOps: FusionGrouper's groups (FusionGrouper.cpp) as FusedBlocks, named and fingerprinted
// as TVM names fused functions.
#include "core/analysis/FusionAnalysis.h"

#include "core/analysis/FusionGrouper.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace cleave {

namespace {

constexpr std::size_t maxNameLength = 80;

/// Post-order of `members` from `root` along inputs inside the set (`inSet(node)`), then any
/// member the walk did not reach, in the given order.
template <typename InSet>
std::vector<NodeId> postOrderFrom(const Graph &graph, NodeId root,
                                  const std::vector<NodeId> &members, InSet inSet)
{
    std::vector<NodeId> order;
    order.reserve(members.size());
    std::vector<std::pair<NodeId, std::size_t>> stack;
    std::unordered_set<NodeId> seen;
    auto isSeen = [&](NodeId n) { return seen.contains(n); };
    auto walk = [&](NodeId start) {
        if (isSeen(start))
            return;
        seen.insert(start);
        stack.emplace_back(start, 0);
        while (!stack.empty()) {
            auto &[node, next] = stack.back();
            const auto &inputs = graph.node(node).inputs;
            if (next < inputs.size()) {
                const NodeId p = inputs[next++].node;
                if (inSet(p) && !isSeen(p)) {
                    seen.insert(p);
                    stack.emplace_back(p, 0);
                }
                continue;
            }
            order.push_back(node);
            stack.pop_back();
        }
    };
    if (root.isValid())
        walk(root);
    for (NodeId m : members)
        walk(m);
    return order;
}

/// Op names of `nodes` (a post-order) as they go into a fused function name.
std::vector<std::string> callNames(const Graph &graph, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> ops;
    for (NodeId id : nodes) {
        const Node &n = graph.node(id);
        if (n.kind == NodeKind::OpCall || n.kind == NodeKind::ConstructorCall)
            ops.push_back(n.op);
    }
    return ops;
}

std::string fusedName(std::vector<std::string> ops, bool foldBatchNorm)
{
    if (ops.size() > 1)
        std::erase(ops, std::string(FusionGrouper::stopFusionOp));
    std::string name = "fused";
    for (std::string op : ops) {
        if (foldBatchNorm && op == FusionGrouper::batchNormOp)
            op = "add";
        std::replace(op.begin(), op.end(), '.', '_');
        name += "_" + op;
    }
    return name;
}

/// A structural fingerprint of a member list: ops, attributes, types and internal wiring.
std::size_t signatureOf(const Graph &graph, const std::vector<NodeId> &nodes)
{
    std::string text;
    std::map<NodeId, std::size_t> position;
    std::map<TensorRef, std::size_t> params;
    for (NodeId id : nodes) {
        const Node &n = graph.node(id);
        position[id] = position.size();
        text += nodeKindName(n.kind);
        text += ' ' + n.op.str() + '(';
        for (const TensorRef &in : n.inputs) {
            if (const auto it = position.find(in.node); it != position.end()) {
                text += '#' + std::to_string(it->second) + '.' + std::to_string(in.output);
            } else {
                const auto [pit, added] = params.emplace(in, params.size());
                text += '$' + std::to_string(pit->second) + ':' + graph.tensorType(in).toRelay();
            }
            text += ',';
        }
        text += ')';
        for (const auto &[key, value] : n.attrs.items())
            text += key + '=' + value.toRelay() + ';';
        text += std::to_string(n.index) + "->";
        for (const Type &t : n.outputTypes())
            text += t.toRelay() + '|';
        text += '\n';
    }
    return std::hash<std::string> {}(text);
}

std::string hex(std::size_t v)
{
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4U)
        out[static_cast<std::size_t>(i)] = digits[v & 0xFU];
    return out;
}

/// The body of a function in post-order from its result (its parameters left out).
std::vector<NodeId> functionBody(const Graph &graph, FunctionId f)
{
    const Function &fn = graph.function(f);
    std::vector<NodeId> members;
    for (NodeId n : fn.nodes) {
        if (graph.node(n).kind != NodeKind::Input)
            members.push_back(n);
    }
    return postOrderFrom(graph, fn.result, members, [&](NodeId p) {
        return p.isValid() && graph.node(p).function == f && graph.node(p).kind != NodeKind::Input;
    });
}

} // namespace

std::vector<FusedBlock> FusionGrouper::collectBlocks()
{
    const std::size_t count = m_order.size();
    std::vector<std::uint32_t> blockOf(m_graph.nodeCount(), none);
    std::vector<std::uint32_t> blockOfRoot(count, none);
    std::vector<std::vector<NodeId>> members;
    std::vector<std::uint32_t> roots;
    // Roots in post-order give the order TVM calls the fused functions in.
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t r = findRoot(i);
        const Node &n = m_graph.node(m_order[i]);
        if (n.kind == NodeKind::Input || n.kind == NodeKind::Constant)
            continue;
        if (blockOfRoot[r] == none) {
            blockOfRoot[r] = static_cast<std::uint32_t>(members.size());
            members.emplace_back();
            roots.push_back(r);
        }
        members[blockOfRoot[r]].push_back(m_order[i]);
    }
    std::vector<std::size_t> byRoot(members.size());
    for (std::size_t b = 0; b < byRoot.size(); ++b)
        byRoot[b] = b;
    std::sort(byRoot.begin(), byRoot.end(),
              [&](std::size_t a, std::size_t b) { return roots[a] < roots[b]; });

    const std::vector<TensorRef> returned = m_graph.outputs(m_function);
    std::map<std::string, std::vector<std::size_t>> signatures; // base name → distinct bodies
    // At most one block per group: reserved, then trimmed to the blocks made, since the
    // document keeps them for the model's lifetime (grown by doubling, up to half of the store
    // went unused).
    std::vector<FusedBlock> blocks;
    blocks.reserve(byRoot.size());
    for (std::size_t b : byRoot) {
        const std::vector<NodeId> &group = members[b];
        if (std::none_of(group.begin(), group.end(),
                         [&](NodeId id) { return m_graph.node(id).isOperator(); }))
            continue; // tuples and projections no block consumes stay structural
        FusedBlock block;
        block.root = m_order[roots[b]];
        block.pattern = m_groups[roots[b]].pattern;
        const auto index = static_cast<std::uint32_t>(blocks.size());
        for (NodeId id : group)
            blockOf[id.index()] = index;
        block.nodes = postOrderFrom(m_graph, block.root, group, [&](NodeId p) {
            return p.isValid() && blockOf[p.index()] == index;
        });
        for (NodeId id : block.nodes) {
            for (const TensorRef &in : m_graph.node(id).inputs) {
                if (blockOf[in.node.index()] != index
                    && std::find(block.inputs.begin(), block.inputs.end(), in)
                        == block.inputs.end())
                    block.inputs.push_back(in);
            }
        }
        for (NodeId id : block.nodes) {
            const Node &n = m_graph.node(id);
            for (std::uint32_t o = 0; o < std::max<std::size_t>(1, n.outputCount()); ++o) {
                const TensorRef t { id, o };
                bool outside = std::find(returned.begin(), returned.end(), t) != returned.end();
                for (const Use &u : m_graph.uses(id)) {
                    if (outside)
                        break;
                    outside = m_graph.node(u.consumer).inputs[u.input].output == o
                        && blockOf[u.consumer.index()] != index;
                }
                if (outside)
                    block.outputs.push_back(t);
            }
        }

        const Node &rootNode = m_graph.node(block.root);
        std::string base;
        std::size_t signature = 0;
        bool uniquify = true;
        if (block.nodes.size() == 1 && rootNode.kind == NodeKind::FunctionCall
            && rootNode.callee.isValid()) {
            block.callee = rootNode.callee;
            const Function &callee = m_graph.function(rootNode.callee);
            if (!callee.composite().empty()) {
                base = callee.composite();
                uniquify = false;
            } else if (callee.kind == Function::Kind::Global) {
                base = callee.name;
                uniquify = false;
            } else {
                const std::vector<NodeId> body = functionBody(m_graph, rootNode.callee);
                base = fusedName(callNames(m_graph, body), m_options.foldBatchNorm);
                signature = signatureOf(m_graph, body);
            }
        } else if (rootNode.kind == NodeKind::If || rootNode.kind == NodeKind::Match
                   || rootNode.kind == NodeKind::ClosureCall
                   || rootNode.kind == NodeKind::FunctionCall) {
            base = nodeKindName(rootNode.kind);
            std::replace(base.begin(), base.end(), ' ', '_');
            uniquify = false;
        } else if (m_graph.format() == "graph.json" && rootNode.kind == NodeKind::OpCall) {
            base = rootNode.op; // already a compiled kernel: its func_name is its name
            uniquify = false;
        } else {
            base = fusedName(callNames(m_graph, block.nodes), m_options.foldBatchNorm);
            signature = signatureOf(m_graph, block.nodes);
        }
        if (uniquify && base.size() > maxNameLength)
            base = base.substr(0, maxNameLength) + "_" + hex(signature) + "_";
        std::string name = base;
        if (uniquify) {
            auto &seen = signatures[base];
            auto it = std::find(seen.begin(), seen.end(), signature);
            if (it == seen.end())
                it = seen.insert(seen.end(), signature);
            if (const auto k = static_cast<std::size_t>(it - seen.begin()); k > 0)
                name += "_" + std::to_string(k);
        }
        block.name = InternedString(name);
        blocks.push_back(std::move(block));
    }
    blocks.shrink_to_fit();
    return blocks;
}

std::vector<FusedBlock> fuseOps(const Graph &graph, FunctionId f, const FusionOptions &options)
{
    if (!f.isValid() || f.index() >= graph.functionCount())
        return {};
    FusionGrouper partitioner(graph, f, options);
    return partitioner.run();
}

std::vector<std::string> blockOps(const Graph &graph, const FusedBlock &block)
{
    if (!block.isExisting())
        return callNames(graph, block.nodes);
    // The calls of the function body, composite and other nested calls expanded in place.
    std::vector<std::string> ops;
    std::function<void(FunctionId, int)> expand = [&](FunctionId f, int depth) {
        for (NodeId id : functionBody(graph, f)) {
            const Node &n = graph.node(id);
            if (n.kind == NodeKind::OpCall)
                ops.push_back(n.op);
            else if (n.kind == NodeKind::FunctionCall && n.callee.isValid() && depth < 16)
                expand(n.callee, depth + 1);
        }
    };
    expand(block.callee, 0);
    return ops;
}

} // namespace cleave
