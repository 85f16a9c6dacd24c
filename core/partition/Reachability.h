// SPDX-License-Identifier: Apache-2.0
// Part of Cleave, the partition editor for deep-learning graphs.
#pragma once

#include "core/graph/FunctionView.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cleave {

/// Finds a path that leaves a node set and comes back into it: returns {m, x1, ..., xk, m'}
/// with m, m' members and every x outside the set, or an empty vector when no such path exists
/// (the set is convex). `inSet(NodeId)` tells membership. Only nodes before the last member in
/// program order can lie on such a path, which bounds the search. O(nodes + edges) worst case.
template <typename InSet>
std::vector<NodeId> reentryWitness(const FunctionView &view, const std::vector<NodeId> &members,
                                   InSet inSet)
{
    std::int32_t maxPos = -1;
    for (NodeId m : members)
        maxPos = std::max(maxPos, view.position(m));
    std::vector<NodeId> parent(view.graph().nodeCount());
    std::vector<std::uint8_t> seen(view.graph().nodeCount(), 0);
    std::vector<NodeId> queue;
    auto pathTo = [&](NodeId x, NodeId reentry) {
        std::vector<NodeId> path { reentry, x };
        NodeId cur = x;
        while (!inSet(cur)) {
            cur = parent[cur.index()];
            path.push_back(cur);
        }
        std::reverse(path.begin(), path.end());
        return path;
    };
    for (NodeId m : members) {
        for (const FlowEdge &e : view.outEdges(m)) {
            const NodeId c = e.consumer;
            if (inSet(c) || seen[c.index()] || view.position(c) > maxPos)
                continue;
            seen[c.index()] = 1;
            parent[c.index()] = m;
            queue.push_back(c);
        }
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeId x = queue[head];
        for (const FlowEdge &e : view.outEdges(x)) {
            const NodeId y = e.consumer;
            if (inSet(y))
                return pathTo(x, y);
            if (seen[y.index()] || view.position(y) > maxPos)
                continue;
            seen[y.index()] = 1;
            parent[y.index()] = x;
            queue.push_back(y);
        }
    }
    return {};
}

} // namespace cleave
