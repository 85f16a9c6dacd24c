// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/Graph.h"

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

namespace cleave {

/// A global function with `source`'s name, attributes and return type and nothing else yet: the
/// `main` a Relax writer rebuilds from the source's.
Function emptyGlobalLike(const Function &source);

/// Copies functions and nodes of one Graph into another, remapping node and function ids.
/// Global callees are copied once (or taken from the target when it already has a global of
/// that name); literal callees and `if` scopes are copied with the node that uses them.
class GraphCopier
{
public:
    GraphCopier(const Graph &source, Graph &target)
        : m_src(source)
        , m_dst(target)
    {
    }

    /// The target's global for a source global (copied on first use).
    FunctionId global(FunctionId f);
    /// Copies function `f` as a new function of the target (under `name` when not empty).
    FunctionId copyFunction(FunctionId f, FunctionId parent, const std::string &name = {});
    /// Copies one node into target function `into`; returns the new node.
    NodeId copyNode(NodeId id, FunctionId into);
    /// Makes `source` stand for `target` (a parameter bound to an existing value).
    void map(NodeId source, TensorRef target) { m_nodes[source.value] = target; }
    /// The target tensor of a source tensor (the source node must have been copied or mapped).
    [[nodiscard]] TensorRef resolve(TensorRef t) const;
    [[nodiscard]] bool isMapped(NodeId n) const { return m_nodes.contains(n.value); }

    /// Called for every input while copying a node: may return another target tensor.
    std::function<std::optional<TensorRef>(NodeId consumer, TensorRef input)> inputHook;

private:
    const Graph &m_src;
    Graph &m_dst;
    std::unordered_map<std::uint32_t, TensorRef> m_nodes;
    std::unordered_map<std::uint32_t, FunctionId> m_functions;
};

} // namespace cleave
